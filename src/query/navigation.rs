//! A tab's page loads (hard navigations: a load or reload, not a pushState or
//! hash change): the latest bounds every `what` to "since the last reload"
//! (`since_navigation`), the last two are compare's implicit marks.

use rusqlite::Connection;
use serde::Serialize;

use super::QueryError;
use super::compact::utc;
use crate::store::sql::tracked_tab;

/// A page load: what an answer was bounded by, or one side of a comparison.
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

/// The tab an answer is about: `tabId`, else the tracked tab, else the only tab the store holds
/// anything of ([`only_tab`]; `true` beside it then, for the answer to say so). None when none is.
pub fn asked_tab(conn: &Connection, tab_id: Option<i64>) -> Result<Option<(i64, bool)>, QueryError> {
    if let Some(tab) = tab_id.or(tracked_tab(conn)?) {
        return Ok(Some((tab, false)));
    }
    Ok(only_tab(conn)?.map(|tab| (tab, true)))
}

/// The tab `since_navigation` applies to ([`asked_tab`]), which it needs.
pub fn tab(conn: &Connection, tab_id: Option<i64>) -> Result<(i64, bool), QueryError> {
    asked_tab(conn, tab_id)?.ok_or_else(|| {
        QueryError::Invalid(
            "since_navigation needs a tab: send tabId (observe what=tabs lists them) or track one with configure action=track_tab".into(),
        )
    })
}

/// The one tab the store holds anything of (an entry of any kind, a row of `tabs`), when it
/// holds something of exactly one: with no tab sent or tracked, there is no other it could be.
/// Each table's least and greatest `tab_id`, read from its index.
pub fn only_tab(conn: &Connection) -> Result<Option<i64>, QueryError> {
    let mut seen: Option<i64> = None;
    for table in crate::kind::KINDS.iter().map(|k| k.name).chain(["tabs"]) {
        let (lo, hi): (Option<i64>, Option<i64>) = conn
            .prepare_cached(&format!("SELECT min(tab_id), max(tab_id) FROM {table}"))?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for tab in [lo, hi].into_iter().flatten() {
            match seen {
                Some(s) if s != tab => return Ok(None),
                _ => seen = Some(tab),
            }
        }
    }
    Ok(seen)
}

/// The latest page load of `tab`, by time.
pub fn latest(conn: &Connection, tab: i64) -> Result<Option<Navigation>, QueryError> {
    Ok(loads(conn, tab, i64::MAX, 1)?.into_iter().next())
}

/// [`TOP_FRAME_NAVIGATION`]'s text, written once for it and for [`PAGE_LOAD`] (`concat!` takes literals only).
macro_rules! top_frame_navigation {
    () => {
        "type = 'navigate' AND coalesce(json_extract(data, '$.frameId'), 0) = 0"
    };
}

/// An `actions` row that is a page load of its tab: a `navigate` by `load`, `reload` or
/// `back_forward` (the browser's back or forward button, a document loaded again or restored from
/// the back-forward cache) of the top frame (a subframe's entries carry its `frameId`, Chrome's 0
/// being the top frame's; an iframe's load is not the page's).
pub const PAGE_LOAD: &str =
    concat!(top_frame_navigation!(), " AND json_extract(data, '$.how') IN ('load', 'reload', 'back_forward')");

/// A `navigate` action of the top frame (a load, a reload, a route change of the page itself).
pub const TOP_FRAME_NAVIGATION: &str = top_frame_navigation!();

/// When the tab's latest page load at or before `ts` began, if one is recorded: where the page an
/// entry of that time belongs to starts.
pub fn began_by(conn: &Connection, tab: i64, ts: i64) -> Result<Option<i64>, QueryError> {
    Ok(conn
        .prepare_cached(&format!("SELECT max(ts) FROM actions WHERE tab_id = ?1 AND ts <= ?2 AND {PAGE_LOAD}"))?
        .query_row([tab, ts], |r| r.get(0))?)
}

/// The tab's page loads ([`PAGE_LOAD`]: what "since the last navigation" and compare's implicit
/// marks mean), newest first, at most `n`, with action ids up to `upto`.
pub fn loads(conn: &Connection, tab: i64, upto: i64, n: i64) -> Result<Vec<Navigation>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, ts, url, json_extract(data, '$.how') FROM actions \
         WHERE tab_id = ?1 AND id <= ?2 AND {PAGE_LOAD} ORDER BY ts DESC, id DESC LIMIT ?3"
    ))?;
    let loads = stmt
        .query_map(rusqlite::params![tab, upto, n], |r| {
            let ts: i64 = r.get(1)?;
            // A page's URL may run to the field cap (state in the query): cut, as a list cuts it.
            let url = r.get::<_, Option<String>>(2)?.map(|u| super::compact::cut(&u).into_owned());
            Ok(Navigation { id: r.get(0)?, tab_id: tab, url, how: r.get(3)?, ts, utc: utc(ts) })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(loads)
}
