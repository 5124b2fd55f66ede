//! Workers the captured pages started. A worker's own requests run in its own global, where the
//! page-side capture has nothing: a worker's failed fetch is seen only in deep mode. So that an
//! agent does not read "no failed request" as "nothing failed", the summary says when pages that
//! were not in deep mode started workers (their script rows: `initiatorType: "worker"`), and when
//! their service worker answered their requests (what the network answered it is not theirs to see).

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
/// or had its service worker answer it in the span (`tabId`, `since`, `since_navigation`, `since_mark`).
pub fn note(conn: &Connection, args: &ObserveArgs) -> Result<Option<String>, QueryError> {
    let deep: Vec<String> =
        sql::capture_reported(conn)?.map(|(c, _)| c.deep_tabs.iter().map(i64::to_string).collect()).unwrap_or_default();
    let mut filter = outside_deep(args, &deep);
    filter.push_condition(&format!("{} = 'worker'", field_expr(&NETWORK_WATERFALL, REQUEST_TYPE[1])));
    let sql = format!("SELECT url FROM network_waterfall{} ORDER BY id LIMIT {MOST}", filter.clause(None));
    let urls: Vec<String> = conn
        .prepare_cached(&sql)?
        .query_map(rusqlite::params_from_iter(filter.params.iter()), |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let started = urls.first().map(|first| {
        let mut scripts: Vec<String> = urls.iter().map(|u| url_pattern(u)).collect();
        scripts.sort();
        scripts.dedup();
        let more = match scripts.len() {
            1 => String::new(),
            2 => " and 1 other".to_owned(),
            n => format!(" and {} others", n - 1),
        };
        format!(
            "the page started a worker ({}{more}): what a worker fetches is seen only in deep mode (the popup's Deep view of this tab)",
            url_pattern(first)
        )
    });
    let served = served_by_worker(conn, args, &deep)?;
    Ok(match (started, served) {
        (Some(a), Some(b)) => Some(format!("{a}. {b}")),
        (a, b) => a.or(b),
    })
}

/// The sentence for the page's requests its service worker answered outside deep mode, if any:
/// the page sees the worker's answer (a cached 200), never what the network said to the worker (the
/// 500 the cache hid).
fn served_by_worker(conn: &Connection, args: &ObserveArgs, deep: &[String]) -> Result<Option<String>, QueryError> {
    let mut filter = outside_deep(args, deep);
    filter.push_condition(&format!("{} IS NOT NULL", field_expr(&NETWORK_WATERFALL, "fromServiceWorker")));
    filter.push_condition(&format!("{} = 'page'", field_expr(&NETWORK_WATERFALL, "source")));
    let sql = format!("SELECT count(*) FROM network_waterfall{}", filter.clause(None));
    let n: i64 =
        conn.prepare_cached(&sql)?.query_row(rusqlite::params_from_iter(filter.params.iter()), |r| r.get(0))?;
    Ok((n > 0).then(|| {
        format!(
            "{n} of the page's requests were answered by its service worker (fromServiceWorker): what the server answered the worker (an error a cache hid) is seen only in deep mode"
        )
    }))
}

/// The waterfall rows of the span asked about, of tabs that are not deep (`deep`: their ids).
fn outside_deep(args: &ObserveArgs, deep: &[String]) -> Where {
    let mut filter = Where::common(&NETWORK_WATERFALL, args);
    if !deep.is_empty() {
        filter.push_condition(&format!("(tab_id IS NULL OR tab_id NOT IN ({}))", deep.join(",")));
    }
    filter
}
