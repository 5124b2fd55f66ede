//! Whether a failure that leads the summary has been fixed since, by what the page said after it: a
//! summary that led with an error the developer fixed minutes ago would send an agent to mend
//! working code.
//!
//! A page that answered an error status (`The page answered 500: …`) is fixed once the same tab
//! loaded the same URL again and got a status below 400.
//!
//! A build error a dev server reported (`source: "dev-server"`): Vite's client (and Astro's, which
//! is Vite's) tells it two ways:
//! - after a hot update it logs `[vite] hot updated: /src/App.tsx` once the updated modules were
//!   imported, which they were not while one of them failed to build;
//! - an update that comes while its error overlay is shown reloads the page, and a page whose
//!   modules still fail to build gets the error again as soon as it asks for them, within moments of
//!   its client's `[vite] connected.`.
//!
//! Rsbuild's client (Rspack) is told `{"type":"ok"}` on its HMR socket (`/rsbuild-hmr`) after a
//! build that succeeded, and a page that connects while the build is broken is sent the errors at
//! once, as Vite's is, after `[rsbuild] WebSocket connected.`. Parcel's runtime logs
//! `[parcel] ✨ Error resolved` after the next build that succeeded.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};

use super::QueryError;
use super::filter::field_expr;
use super::navigation::PAGE_LOAD;
use crate::kind::{DOCUMENT_TYPES, NETWORK_WATERFALL, REQUEST_TYPE, quoted};

/// How long after a reloaded page's Vite client connected a build error it still has is sure to
/// have come.
const SETTLE_MS: i64 = 2_000;

/// Why a failure counts as fixed.
pub const LOADED: &str = "the page loaded since";
pub const HOT_UPDATED: &str = "a hot update applied after it";
pub const REBUILT: &str = "a build succeeded after it";
pub const RELOADED: &str = "the page loaded again without it";

/// What a dev server's client logs once it is connected: then a build error still there comes.
const CONNECTED: &str = "message IN ('[vite] connected.', '[rsbuild] WebSocket connected.')";

/// Whether the page whose error status was logged as entry `last_id` (a group's latest) loaded
/// again since with a status below 400.
pub fn page(conn: &Connection, last_id: i64) -> Result<Option<&'static str>, QueryError> {
    let Some((tab, ts, Some(url))) = logged(conn, last_id)? else { return Ok(None) };
    let [first, then] = REQUEST_TYPE.map(|f| field_expr(&NETWORK_WATERFALL, f));
    let sql = format!(
        "SELECT 1 FROM network_waterfall WHERE tab_id = ?1 AND ts > ?2 AND url = ?3 \
         AND coalesce({first}, {then}) IN ({}) AND status > 0 AND status < 400 LIMIT 1",
        quoted(DOCUMENT_TYPES)
    );
    let loaded = conn.prepare_cached(&sql)?.exists(params![tab, ts, url])?;
    Ok(loaded.then_some(LOADED))
}

/// Whether the build error logged as entry `last_id` (a group's latest) is fixed, and how the page
/// said so; None while nothing after it says so.
pub fn build(conn: &Connection, last_id: i64) -> Result<Option<&'static str>, QueryError> {
    let Some((tab, ts, _)) = logged(conn, last_id)? else { return Ok(None) };
    let hot_updated = conn
        .prepare_cached(
            "SELECT 1 FROM logs WHERE tab_id = ?1 AND id > ?2 AND message LIKE '[vite] hot updated: %' LIMIT 1",
        )?
        .exists(params![tab, last_id])?;
    if hot_updated {
        return Ok(Some(HOT_UPDATED));
    }
    let rebuilt = conn
        .prepare_cached(
            "SELECT 1 FROM websocket_events WHERE tab_id = ?1 AND ts >= ?2 AND direction = 'incoming' \
             AND url LIKE '%/rsbuild-hmr%' AND json_extract(data, '$.data') = '{\"type\":\"ok\"}' LIMIT 1",
        )?
        .exists(params![tab, ts])?;
    let resolved = conn
        .prepare_cached(
            "SELECT 1 FROM logs WHERE tab_id = ?1 AND id > ?2 AND message LIKE '[parcel] ✨ Error resolved%' LIMIT 1",
        )?
        .exists(params![tab, last_id])?;
    if rebuilt || resolved {
        return Ok(Some(REBUILT));
    }
    let load: Option<i64> = conn
        .prepare_cached(&format!(
            "SELECT ts FROM actions WHERE tab_id = ?1 AND ts > ?2 AND {PAGE_LOAD} ORDER BY ts DESC, id DESC LIMIT 1"
        ))?
        .query_row(params![tab, ts], |r| r.get(0))
        .optional()?;
    let Some(load) = load else { return Ok(None) };
    let settled = conn
        .prepare_cached(&format!(
            "SELECT 1 FROM logs WHERE tab_id = ?1 AND id > ?2 AND ts >= ?3 AND ts <= ?4 AND {CONNECTED} LIMIT 1"
        ))?
        .exists(params![tab, last_id, load, now_ms() - SETTLE_MS])?;
    let again = conn
        .prepare_cached(
            "SELECT 1 FROM logs WHERE tab_id = ?1 AND id > ?2 AND ts >= ?3 AND source = 'dev-server' LIMIT 1",
        )?
        .exists(params![tab, last_id, load])?;
    Ok((settled && !again).then_some(RELOADED))
}

/// The tab, time and page URL of the logs entry `id`; None when it has no tab (nothing after it
/// in its tab can be found).
fn logged(conn: &Connection, id: i64) -> Result<Option<(i64, i64, Option<String>)>, QueryError> {
    let found: Option<(Option<i64>, i64, Option<String>)> = conn
        .prepare_cached("SELECT tab_id, ts, url FROM logs WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    Ok(found.and_then(|(tab, ts, url)| Some((tab?, ts, url))))
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
