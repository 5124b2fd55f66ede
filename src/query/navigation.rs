//! `since_navigation`: a tab's latest hard navigation (a load or reload, not
//! a pushState or hash change), which bounds every `what` to "since the last
//! reload".

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::QueryError;
use super::compact::utc;
use crate::store::sql::tracked_tab;

/// The navigation an answer was bounded by.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Navigation {
    /// Its `actions` entry.
    pub id: i64,
    #[serde(rename = "tabId")]
    pub tab_id: i64,
    pub url: Option<String>,
    pub how: String,
    pub ts: i64,
    pub utc: String,
}

/// The tab `since_navigation` applies to: `tabId`, else the tracked tab.
pub fn tab(conn: &Connection, tab_id: Option<i64>) -> Result<i64, QueryError> {
    match tab_id {
        Some(tab) => Ok(tab),
        None => tracked_tab(conn)?.ok_or_else(|| {
            QueryError::Invalid(
                "since_navigation needs a tab: send tabId (observe what=tabs lists them) or track one with configure action=track_tab".into(),
            )
        }),
    }
}

/// The latest `navigate` action of `tab` by `load` or `reload`, by time.
pub fn latest(conn: &Connection, tab: i64) -> Result<Option<Navigation>, QueryError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, ts, url, json_extract(data, '$.how') FROM actions \
         WHERE tab_id = ?1 AND type = 'navigate' AND json_extract(data, '$.how') IN ('load', 'reload') \
         ORDER BY ts DESC, id DESC LIMIT 1",
    )?;
    let found = stmt
        .query_row([tab], |r| {
            let ts: i64 = r.get(1)?;
            Ok(Navigation { id: r.get(0)?, tab_id: tab, url: r.get(2)?, how: r.get(3)?, ts, utc: utc(ts) })
        })
        .optional()?;
    Ok(found)
}
