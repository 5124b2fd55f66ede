//! Workers the captured pages started. A worker's own requests run in its own global, where the
//! page-side capture has nothing: a worker's failed fetch is seen only in deep mode. So that an
//! agent does not read "no failed request" as "nothing failed", the summary says when pages that
//! were not in deep mode started workers (their script rows: `initiatorType: "worker"`).

use rusqlite::Connection;

use super::QueryError;
use super::args::ObserveArgs;
use super::filter::{Where, field_expr};
use super::fingerprint::url_pattern;
use crate::kind::{NETWORK_WATERFALL, REQUEST_TYPE};
use crate::store::sql;

/// Worker scripts read, at most.
const MOST: i64 = 100;

/// The sentence for the summary's hint, or None when no page outside deep mode started a worker
/// in the span (`tabId`, `since`, `since_navigation`, `since_mark`).
pub fn note(conn: &Connection, args: &ObserveArgs) -> Result<Option<String>, QueryError> {
    let mut filter = Where::common(&NETWORK_WATERFALL, args);
    filter.push_condition(&format!("{} = 'worker'", field_expr(&NETWORK_WATERFALL, REQUEST_TYPE[1])));
    let deep: Vec<String> =
        sql::capture_reported(conn)?.map(|(c, _)| c.deep_tabs.iter().map(i64::to_string).collect()).unwrap_or_default();
    if !deep.is_empty() {
        filter.push_condition(&format!("(tab_id IS NULL OR tab_id NOT IN ({}))", deep.join(",")));
    }
    let sql = format!("SELECT url FROM network_waterfall{} ORDER BY id LIMIT {MOST}", filter.clause(None));
    let urls: Vec<String> = conn
        .prepare_cached(&sql)?
        .query_map(rusqlite::params_from_iter(filter.params.iter()), |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let Some(first) = urls.first() else { return Ok(None) };
    let mut scripts: Vec<String> = urls.iter().map(|u| url_pattern(u)).collect();
    scripts.sort();
    scripts.dedup();
    let more = match scripts.len() {
        1 => String::new(),
        2 => " and 1 other".to_owned(),
        n => format!(" and {} others", n - 1),
    };
    Ok(Some(format!(
        "the page started a worker ({}{more}): what a worker fetches is seen only in deep mode (the popup's Deep view of this tab)",
        url_pattern(first)
    )))
}
