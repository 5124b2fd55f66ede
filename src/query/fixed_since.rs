//! Whether a failure that leads the summary has been fixed since, by what the page said after it: a
//! summary that led with an error the developer fixed minutes ago would send an agent to mend
//! working code.
//!
//! A page that answered an error status (`The page answered 500: …`) is fixed once the same tab
//! loaded the same URL again by the same method and got a status below 400: the answer to a form's
//! POST is fixed by a POST (or by the page a POST was redirected to, `afterFormPost`), not by
//! opening the form again, which a GET always answers.
//!
//! A build error a dev server reported (`source: "dev-server"`): Vite's client (and Astro's, which
//! is Vite's) tells it two ways:
//! - after a hot update it logs `[vite] hot updated: /src/App.tsx`; also after one it could not
//!   import, right after `[vite] Failed to reload /src/App.tsx. This could be due to syntax errors…`,
//!   which is no fix;
//! - an update that comes while its error overlay is shown reloads the page, and a page whose
//!   modules still fail to build gets the error again as soon as it asks for them, within moments of
//!   its client's `[vite] connected.`.
//!
//! Rsbuild's client (Rspack) is told `{"type":"ok"}` on its HMR socket (`/rsbuild-hmr`) after a
//! build that succeeded, and a page that connects while the build is broken is sent the errors at
//! once, as Vite's is, after `[rsbuild] WebSocket connected.`. Parcel's runtime logs
//! `[parcel] ✨ Error resolved` after the next build that succeeded.
//!
//! A script that does not parse (an uncaught `SyntaxError` placed in it) is fixed once a page loaded
//! again and fetched it without the error coming back.
//!
//! Next.js's dev server sends `built` with no errors on its HMR socket (`/_next/hmr`) once a save
//! compiles again, and `sync` with no errors to a page that connects while the build is whole.
//!
//! Metro (Expo's dev server) sends an `update` on its HMR socket (`/hot`) once a save compiles
//! again.
//!
//! webpack-dev-server's client socket (`/ws` by default) is told `{"type":"ok"}` after a build that
//! succeeded, or `{"type":"warnings",…}` alone after one that succeeded with warnings (sent with
//! errors, its warnings carry `"params":{"preventReloading":true}`). Only the socket that said the
//! error counts, or the reloaded page's to the same URL: a Module Federation remote's dev server, on
//! its own port, says nothing of the host's build. A page that connects is told at once how the
//! build stands, so a reloaded page without the error hears `ok` too; its client logs nothing once
//! connected (`[webpack-dev-server] Server started: …` comes before its socket opens), so it has no
//! `CONNECTED` line.

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
/// again since by the same method with a status below 400.
pub fn page(conn: &Connection, last_id: i64) -> Result<Option<&'static str>, QueryError> {
    let Some((tab, ts, Some(url))) = logged(conn, last_id)? else { return Ok(None) };
    let [first, then] = REQUEST_TYPE.map(|f| field_expr(&NETWORK_WATERFALL, f));
    let document = format!("coalesce({first}, {then}) IN ({})", quoted(DOCUMENT_TYPES));
    // The failed load's method: its document row's, the latest at or before the error (the page's
    // own row of a load has none, a GET's; the answer to a form's POST says POST).
    let method: String = conn
        .prepare_cached(&format!(
            "SELECT coalesce(method, 'GET') FROM network_waterfall WHERE tab_id = ?1 AND ts <= ?2 AND url = ?3 \
             AND {document} ORDER BY ts DESC, id DESC LIMIT 1"
        ))?
        .query_row(params![tab, ts, url], |r| r.get(0))
        .optional()?
        .unwrap_or_else(|| "GET".to_owned());
    let after_post = field_expr(&NETWORK_WATERFALL, "afterFormPost");
    let sql = format!(
        "SELECT 1 FROM network_waterfall WHERE tab_id = ?1 AND ts > ?2 AND {document} AND status > 0 AND status < 400 \
         AND ((url = ?3 AND coalesce(method, 'GET') = ?4) OR (?4 = 'POST' AND {after_post} = ?3)) LIMIT 1"
    );
    let loaded = conn.prepare_cached(&sql)?.exists(params![tab, ts, url, method])?;
    Ok(loaded.then_some(LOADED))
}

/// Whether the script that did not parse (an uncaught `SyntaxError` of no frame logged as entry
/// `last_id`, a group's latest, placed in that script) loaded since without it: a page loaded again, the same
/// script (its query aside: Vite's `?t=`) fetched by it with a status below 400, and no such error
/// after it for [`SETTLE_MS`]. A script that does not parse fails each time it loads, where the
/// file was saved without a dev server that reports builds (Vite sends none for a plain `.js`).
pub fn syntax(conn: &Connection, last_id: i64) -> Result<Option<&'static str>, QueryError> {
    let found: Option<Thrown> = conn
        .prepare_cached(
            "SELECT tab_id, ts, json_extract(data, '$.location'), json_extract(data, '$.stack') FROM logs WHERE id = ?1",
        )?
        .query_row([last_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?;
    let Some((Some(tab), ts, Some(location), stack)) = found else { return Ok(None) };
    // A script's parse error has no frame: one with frames was thrown by running code (JSON.parse
    // at a click), which a load need not reach.
    if stack.is_some_and(|s| s.contains("\n    at ")) {
        return Ok(None);
    }
    // "url:line:col", the script's URL without its query.
    let Some(script) = location.rsplitn(3, ':').nth(2).map(|url| url.split(['?', '#']).next().unwrap_or(url)) else {
        return Ok(None);
    };
    let Some(load) = load_after(conn, tab, ts)? else { return Ok(None) };
    let loaded = conn
        .prepare_cached(
            "SELECT 1 FROM network_waterfall WHERE tab_id = ?1 AND ts >= ?2 AND ts <= ?3 AND status > 0 AND status < 400 \
             AND (url = ?4 OR substr(url, 1, length(?4) + 1) IN (?4 || '?', ?4 || '#')) LIMIT 1",
        )?
        .exists(params![tab, load, now_ms() - SETTLE_MS, script])?;
    Ok(loaded.then_some(RELOADED))
}

/// An uncaught error's tab, time, `location` and `stack`, as stored.
type Thrown = (Option<i64>, i64, Option<String>, Option<String>);

/// Whether the build error logged as entry `last_id` (a group's latest) is fixed, and how the page
/// said so; None while nothing after it says so.
pub fn build(conn: &Connection, last_id: i64) -> Result<Option<&'static str>, QueryError> {
    let Some((tab, ts, _)) = logged(conn, last_id)? else { return Ok(None) };
    // Vite's client logs `hot updated` for a module even after it could not import it, right after
    // `Failed to reload <module>`: that one is no fix.
    let hot_updated = conn
        .prepare_cached(
            "SELECT 1 FROM logs h WHERE h.tab_id = ?1 AND h.id > ?2 AND h.message LIKE '[vite] hot updated: %' \
             AND NOT EXISTS (SELECT 1 FROM logs f WHERE f.tab_id = ?1 AND f.id >= ?2 AND f.id < h.id AND f.ts >= h.ts - 2000 \
               AND (f.message LIKE '[vite] Failed to reload %' OR f.message LIKE '[hmr] Failed to reload %') \
               AND instr(f.message, substr(h.message, 21) || '.') > 0) \
             LIMIT 1",
        )?
        .exists(params![tab, last_id])?;
    if hot_updated {
        return Ok(Some(HOT_UPDATED));
    }
    // Rsbuild's `ok`, Metro's `update` (an update is built only from code that compiled), or
    // Next's `built` or `sync` with no errors.
    let rebuilt = conn
        .prepare_cached(
            "SELECT 1 FROM websocket_events WHERE tab_id = ?1 AND ts >= ?2 AND direction = 'incoming' \
             AND ((url LIKE '%/rsbuild-hmr%' AND json_extract(data, '$.data') = '{\"type\":\"ok\"}') \
               OR ((url LIKE '%/hot' OR url LIKE '%/hot?%') AND json_extract(data, '$.data') LIKE '{\"type\":\"update\",\"body\":%') \
               OR (url LIKE '%/\\_next/%hmr%' ESCAPE '\\' AND json_extract(data, '$.truncated') IS NULL \
                   AND (json_extract(data, '$.data') LIKE '{\"type\":\"built\",%' OR json_extract(data, '$.data') LIKE '{\"type\":\"sync\",%') \
                   AND json_extract(data, '$.data') LIKE '%\"errors\":[]%')) \
             LIMIT 1",
        )?
        .exists(params![tab, ts])?;
    let resolved = conn
        .prepare_cached(
            "SELECT 1 FROM logs WHERE tab_id = ?1 AND id > ?2 AND message LIKE '[parcel] ✨ Error resolved%' LIMIT 1",
        )?
        .exists(params![tab, last_id])?;
    if rebuilt || resolved || webpack_rebuilt(conn, tab, ts)? {
        return Ok(Some(REBUILT));
    }
    let Some(load) = load_after(conn, tab, ts)? else { return Ok(None) };
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

/// How long before its entry a build error's message may have come on the dev server's socket:
/// the page records the message, then the entry, in one handler; a module webpack put in place of
/// one that did not build throws when a hot update runs it, which may come after the next build
/// succeeded (40 ms after its `ok`, measured under Docusaurus): the build error it stands for is the
/// last one said before it.
const SAID_MS: i64 = 10 * 60 * 1_000;

/// Whether webpack-dev-server's socket that said the last build error before the entry logged in
/// `tab` at `ts` (or the page's next socket to the same URL) said a build succeeded after it.
fn webpack_rebuilt(conn: &Connection, tab: i64, ts: i64) -> Result<bool, QueryError> {
    let said: Option<(String, i64)> = conn
        .prepare_cached(
            "SELECT url, ts FROM websocket_events WHERE tab_id = ?1 AND ts >= ?2 AND ts <= ?3 AND direction = 'incoming' \
             AND url IS NOT NULL AND json_extract(data, '$.data') LIKE '{\"type\":\"errors\",\"data\":[%' \
             ORDER BY ts DESC, id DESC LIMIT 1",
        )?
        .query_row(params![tab, ts - SAID_MS, ts], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((socket, ts)) = said else { return Ok(false) };
    // A warnings message cut short may have lost the `params` that say errors came with it.
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM websocket_events WHERE tab_id = ?1 AND ts >= ?2 AND direction = 'incoming' AND url = ?3 \
             AND (json_extract(data, '$.data') = '{\"type\":\"ok\"}' \
               OR (json_extract(data, '$.data') LIKE '{\"type\":\"warnings\",%' \
                   AND truncated IS NULL AND json_extract(data, '$.truncated') IS NULL \
                   AND json_extract(data, '$.data') NOT LIKE '%\"params\":{\"preventReloading\":true}}')) LIMIT 1",
        )?
        .exists(params![tab, ts, socket])?)
}

/// When the tab's latest page load after `ts` began, if it loaded a page since.
fn load_after(conn: &Connection, tab: i64, ts: i64) -> Result<Option<i64>, QueryError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT ts FROM actions WHERE tab_id = ?1 AND ts > ?2 AND {PAGE_LOAD} ORDER BY ts DESC, id DESC LIMIT 1"
        ))?
        .query_row(params![tab, ts], |r| r.get(0))
        .optional()?)
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
