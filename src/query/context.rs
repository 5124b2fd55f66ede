//! An error's context: what the same tab did in the `context_ms` before it, since its page's
//! last load or reload, or its last route change in a single-page app, from the user action that
//! led to it (a request that failed on the page before is not why, nor one that failed after it) — the requests that
//! failed (not the browser's own guess at a favicon, `outcome`'s rule), the last user action, the navigation the visit began with, the message a socket handler was handling (a Socket.IO long poll's body where no socket brought it) and the response whose script threw — so that "why did this error happen?"
//! takes one call instead of four.

use std::cell::RefCell;
use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use super::QueryError;
use super::args::{ContextMode, Fields, ObserveArgs};
use super::compact::{Common, Layout};
use super::filter::{Where, field_expr, select_list};
use super::{outcome, same_request};
use crate::kind::{ACTIONS, Kind, LOGS, NETWORK_BODIES, NETWORK_WATERFALL, WEBSOCKET_EVENTS};

/// Most failed requests named per kind.
const MAX_FAILED: i64 = 10;

/// How much later than the error a request may be seen to end and still be named: the page dates
/// a request's start and length by its monotonic clock and a log entry by the wall clock, which
/// drift apart a little over a page's life. A request that ended seconds after the error (a stream
/// the next reload cut) is not why it happened.
const END_SLACK_MS: i64 = 1_000;

/// An `actions` row that is the user's doing, not a navigation.
const USER_ACTION: &str = "type <> 'navigate'";

/// The entries one answer's contexts gave in full (`context=full`), by kind and id, each with the
/// error whose context gave it: errors of one page share their navigation, and a cascade shares
/// its failed request, so each is given once and named by its id after that. Only for answers
/// whose entries are all shown once built but the last ([`Shown::once`]); a drill-down by ids,
/// which passes over an entry too large and goes on, gives each in full ([`Shown::every_time`]).
pub struct Shown(Option<RefCell<HashMap<(&'static str, i64), i64>>>);

impl Shown {
    pub fn once() -> Shown {
        Shown(Some(RefCell::default()))
    }

    pub fn every_time() -> Shown {
        Shown(None)
    }

    fn first(&self, kind: &'static Kind, id: i64) -> Option<i64> {
        self.0.as_ref().and_then(|m| m.borrow().get(&(kind.name, id)).copied())
    }

    fn given(&self, kind: &'static Kind, id: i64, error: i64) {
        if let Some(m) = &self.0 {
            m.borrow_mut().entry((kind.name, id)).or_insert(error);
        }
    }
}

/// The `context` object of the error `id` of `tab` at `ts`, as JSON text.
pub fn of_error(
    conn: &Connection,
    id: i64,
    (tab, ts): (Option<i64>, Option<i64>),
    window_ms: i64,
    mode: ContextMode,
    shown: &Shown,
) -> Result<String, QueryError> {
    let render = |kind: &'static Kind, ids: &[i64], list: bool| render(conn, kind, ids, (mode, id, shown), list);
    let (Some(tab), Some(ts)) = (tab, ts) else {
        return Ok("{}".into());
    };
    // What the error entry itself says of where it came from, read once: its source, its stack, and
    // the response whose body it met reading JSON (`jsonFrom`), or whose body told the failure a
    // framework answered under 200 (`resourceUrl` of a GraphQL, tRPC or gRPC-web error).
    let (built, stack, json_from): (bool, String, Option<String>) = conn
        .prepare_cached(
            "SELECT source IS 'dev-server', coalesce(json_extract(data, '$.stack'), ''), \
             coalesce(json_extract(data, '$.jsonFrom'), CASE WHEN source = 'framework' THEN json_extract(data, '$.resourceUrl') END) \
             FROM logs WHERE id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?
        .unwrap_or_default();
    // A build error came of a file saved, not of what the page did: a click before it is not why.
    if built {
        return Ok("{}".into());
    }
    let page_began = super::navigation::visit_began(conn, tab, ts)?;
    let span_began = match page_began {
        Some(began) => Some(route_change_cause(conn, tab, began)?.unwrap_or(began)),
        None => None,
    };
    let from = ts.saturating_sub(window_ms).max(span_began.unwrap_or(i64::MIN));
    let mut parts: Vec<String> = Vec::new();
    // The user's last action before the error: a failed request that began before it came from
    // another interaction, or is data the action then read. Both are the error's context, so the
    // requests are listed, and those that began before the action are named (`before_action`).
    let action = latest_action(conn, tab, (from, ts), USER_ACTION)?;
    let action_at = action.map(|(_, at)| at);
    let mut before_action: Vec<String> = Vec::new();
    for kind in [&NETWORK_BODIES, &NETWORK_WATERFALL] {
        let sql = format!(
            "SELECT id, ts FROM {} WHERE tab_id = ?1 AND ts BETWEEN ?2 AND ?3 AND {} AND NOT {} \
             AND ({duration} IS NULL OR ts + {duration} <= ?3 + {END_SLACK_MS}) ORDER BY ts, id LIMIT {MAX_FAILED}",
            kind.name,
            outcome::app_failed_sql(kind),
            outcome::left_page_sql(kind),
            duration = field_expr(kind, "duration"),
        );
        let failed: Vec<(i64, i64)> = conn
            .prepare_cached(&sql)?
            .query_map([tab, from, ts], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        // Not one the same request succeeded after before the error (a token refreshed and the
        // request sent again): met, and not what went wrong.
        let mut rows = Vec::with_capacity(failed.len());
        for row in failed {
            if !outcome::retried(conn, kind, row.0, Some(ts))? {
                rows.push(row);
            }
        }
        if !rows.is_empty() {
            let ids: Vec<i64> = rows.iter().map(|(id, _)| *id).collect();
            let before: Vec<String> = rows
                .iter()
                .filter(|(_, at)| action_at.is_some_and(|a| *at < a))
                .map(|(id, _)| id.to_string())
                .collect();
            if !before.is_empty() {
                before_action.push(format!("\"{}\":[{}]", kind.name, before.join(",")));
            }
            parts.push(format!("\"{}\":{}", kind.name, render(kind, &ids, true)?));
        }
    }
    // Ids by kind: a body's and a row's ids are counted apart.
    if !before_action.is_empty() {
        parts.push(format!("\"before_action\":{{{}}}", before_action.join(",")));
    }
    // An error thrown in a WebSocket's or an EventSource's handler: the message it was handling is
    // the tab's latest incoming one before it (the shape the handler misread, say).
    let mut poll: Vec<i64> = Vec::new();
    if thrown_in_a_message_handler(&stack) {
        let sql = "SELECT id FROM websocket_events WHERE tab_id = ?1 AND ts BETWEEN ?2 AND ?3 \
                   AND event = 'message' AND direction = 'incoming' ORDER BY ts DESC, id DESC LIMIT 1";
        let ids: Vec<i64> =
            conn.prepare_cached(sql)?.query_map([tab, from, ts], |r| r.get(0))?.collect::<Result<_, _>>()?;
        if !ids.is_empty() {
            parts.push(format!("\"message\":{}", render(&WEBSOCKET_EVENTS, &ids, false)?));
        } else {
            // No socket: Socket.IO's polling transport brought the message, in a long poll's body.
            let sql = format!(
                "SELECT id FROM network_bodies WHERE tab_id = ?1 AND ts BETWEEN ?2 AND ?3 AND method = 'GET' \
                 AND {} ORDER BY ts DESC, id DESC LIMIT 1",
                outcome::long_poll_sql()
            );
            poll = conn.prepare_cached(&sql)?.query_map([tab, from, ts], |r| r.get(0))?.collect::<Result<_, _>>()?;
        }
    }
    // The response the error came of: the one whose body was read as JSON and was none (the
    // extension names its URL, `jsonFrom`), else, for an error thrown by code a response brought (a
    // swapped-in part's script, which htmx, Turbo and jQuery run as code of no file), the tab's
    // latest body before it.
    let response: Vec<i64> = if !poll.is_empty() {
        poll
    } else if json_from.is_some() || thrown_in_evaluated_code(&stack) {
        let sql = "SELECT id FROM network_bodies WHERE tab_id = ?1 AND ts BETWEEN ?2 AND ?3 AND (?4 IS NULL OR url = ?4) \
                   ORDER BY ts DESC, id DESC LIMIT 1";
        let params = rusqlite::params![tab, from, ts, json_from];
        conn.prepare_cached(sql)?.query_map(params, |r| r.get(0))?.collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    if !response.is_empty() {
        parts.push(format!("\"response\":{}", render(&NETWORK_BODIES, &response, false)?));
    }
    // The navigation is the one the page's visit began with (its top frame's load, or the route
    // change that brought it there), when within the span: an iframe loading, or a router writing
    // back the same route, is not where the page came from.
    let navigation = match page_began.filter(|began| *began >= from) {
        Some(began) => latest_action(conn, tab, (began, began), super::navigation::TOP_FRAME_NAVIGATION)?,
        None => None,
    };
    for (name, found) in [("action", action), ("navigation", navigation)] {
        if let Some((id, _)) = found {
            parts.push(format!("\"{name}\":{}", render(&ACTIONS, &[id], false)?));
        }
    }
    Ok(format!("{{{}}}", parts.join(",")))
}

/// The `actions` row of `tab` meeting `condition` latest within `span` (ms, both ends included):
/// its id and time.
fn latest_action(
    conn: &Connection,
    tab: i64,
    span: (i64, i64),
    condition: &str,
) -> Result<Option<(i64, i64)>, QueryError> {
    let sql = format!(
        "SELECT id, ts FROM actions WHERE tab_id = ?1 AND ts BETWEEN ?2 AND ?3 AND {condition} ORDER BY ts DESC, id DESC LIMIT 1"
    );
    Ok(conn.prepare_cached(&sql)?.query_row([tab, span.0, span.1], |r| Ok((r.get(0)?, r.get(1)?))).optional()?)
}

/// Longest a route change is looked back from for the user action that led to it.
const CAUSE_LEAD_MS: i64 = 10_000;
/// The same for a step through the page's history (`popstate`, `hashchange`): one the page made
/// (a click on its own Back link, an `href="#…"`) follows the click within a task or two, while the
/// browser's Back button is no action of the page's, and the click before it led elsewhere.
const HISTORY_LEAD_MS: i64 = 1_000;

/// When the visit began by a route change at `began`: the time of the user action that led to it
/// (the latest one within [`CAUSE_LEAD_MS`] before it, with no other navigation between). A data
/// router (React Router, Remix, Next, TanStack) fetches the next route's data before it writes the
/// URL, so the request that failed on the way to the route is older than the route change: the
/// click, the requests it started and the route change are one span. None for a page load, or a
/// route change no action led to (a script's own redirect, the browser's Back button: a history
/// step is looked back from for [`HISTORY_LEAD_MS`] only).
fn route_change_cause(conn: &Connection, tab: i64, began: i64) -> Result<Option<i64>, QueryError> {
    use super::navigation::{PAGE_LOAD, TOP_FRAME_NAVIGATION};
    let lead = format!(
        "CASE WHEN EXISTS (SELECT 1 FROM actions WHERE tab_id = ?1 AND ts = ?2 AND {TOP_FRAME_NAVIGATION} \
         AND json_extract(data, '$.how') IN ('popstate', 'hashchange')) THEN {HISTORY_LEAD_MS} ELSE {CAUSE_LEAD_MS} END"
    );
    let sql = format!(
        "SELECT a.ts FROM actions a WHERE a.tab_id = ?1 AND a.ts BETWEEN ?2 - ({lead}) AND ?2 AND a.type <> 'navigate' \
         AND NOT EXISTS (SELECT 1 FROM actions WHERE tab_id = ?1 AND ts = ?2 AND {PAGE_LOAD}) \
         AND NOT EXISTS (SELECT 1 FROM actions WHERE tab_id = ?1 AND ts > a.ts AND ts < ?2 AND {TOP_FRAME_NAVIGATION}) \
         ORDER BY a.ts DESC, a.id DESC LIMIT 1"
    );
    Ok(conn.prepare_cached(&sql)?.query_row([tab, began], |r| r.get(0)).optional()?)
}

/// Whether an error of this `stack` was thrown in a WebSocket's or an EventSource's message
/// handler: its stack has the connection's frame (V8 names a listener `WebSocket.<anonymous>` or
/// `EventSource.<anonymous>`, and an arrow assigned as `es.onmessage = (e) => …` by where it was
/// assigned: `es.onmessage`), or Socket.IO's, which calls an event's handlers from its
/// `Socket.emitEvent` in a microtask of its own, with no frame of the socket's (a bundler may
/// have renamed the class: `Socket2.emitEvent`).
fn thrown_in_a_message_handler(stack: &str) -> bool {
    if ["at WebSocket.", "at EventSource.", ".onmessage ("].iter().any(|frame| stack.contains(frame)) {
        return true;
    }
    stack
        .lines()
        .map(str::trim_start)
        .any(|line| line.starts_with("at Socket") && (line.contains(".emitEvent (") || line.contains(".onevent (")))
}

/// Whether an error of this `stack` was thrown by code that came with no file: its first frame is
/// a script of no name (`at <anonymous>:1:1`, where a library ran a swapped-in part's script) or
/// `eval`'s. A built-in's frame (`at JSON.parse (<anonymous>)`) has no line and is not one.
fn thrown_in_evaluated_code(stack: &str) -> bool {
    let Some(top) = stack.lines().map(str::trim_start).find(|l| l.starts_with("at ")) else { return false };
    let nameless = top.strip_prefix("at ").map(|f| f.trim_end_matches(')')).is_some_and(|f| {
        let place = f.rsplit_once('(').map_or(f, |(_, p)| p);
        place.strip_prefix("<anonymous>:").is_some_and(|lc| lc.split(':').all(|n| n.parse::<u32>().is_ok()))
    });
    // `at eval (webpack-internal:///./src/App.tsx:21:15)` is a function of no name in a module webpack
    // ran through `eval` (its `eval-*` devtools): that module names its file.
    let named_module = top.strip_prefix("at eval (").is_some_and(|place| place.contains("://"));
    nameless || (top.starts_with("at eval ") && !named_module) || top.contains("(eval at ")
}

/// For an errors answer: a sentence saying how many of the app's requests failed in the same
/// scope (`tabId`, `since`, `since_navigation`, `since_mark`) and how to list them, when any did.
/// A request that failed and logged nothing is otherwise missed by an agent that starts with
/// errors. Failed is `outcome`'s definition, not counting the browser's own guess at a favicon;
/// a request with a waterfall row and a body is counted once ([`same_request`]).
pub fn failed_requests_note(conn: &Connection, args: &ObserveArgs) -> Result<Option<String>, QueryError> {
    let mut failed = 0i64;
    for kind in [&NETWORK_WATERFALL, &NETWORK_BODIES] {
        let mut filter = Where::common(kind, args);
        filter.push_condition(&outcome::app_failed_sql(kind));
        if kind.name == NETWORK_BODIES.name {
            filter.push_condition(&same_request::body_alone_sql());
        }
        let sql = format!("SELECT count(*) FROM {}{}", kind.name, filter.clause(None));
        let n: i64 =
            conn.prepare_cached(&sql)?.query_row(rusqlite::params_from_iter(filter.params.iter()), |r| r.get(0))?;
        failed += n;
    }
    let mut note = (failed > 0).then(|| {
        format!(
            "{failed} request{} failed in the same span: observe what=summary (same tabId, since, since_navigation or since_mark) lists them, what=network_waterfall failed=true url_not=/favicon.ico shows each",
            if failed == 1 { "" } else { "s" }
        )
    });
    if let Some(of_no_tab) = no_tab_note(conn, args)? {
        note = Some(note.map_or(of_no_tab.clone(), |n| format!("{n}. {of_no_tab}")));
    }
    Ok(note)
}

/// With a `tabId`: what the page's service worker (in deep mode; it belongs to no tab, being every
/// tab's of its origin) had fail or say at warning or error level in the same span, which the
/// tab's answer leaves out: its failed fetch, Chrome's "The FetchEvent … resulted in a network
/// error response", are often why the tab's request failed.
pub fn no_tab_note(conn: &Connection, args: &ObserveArgs) -> Result<Option<String>, QueryError> {
    if args.tab_id.is_none() {
        return Ok(None);
    }
    let unscoped = ObserveArgs { tab_id: None, ..args.clone() };
    let count = |kind: &'static Kind, condition: &str| -> Result<i64, QueryError> {
        let mut filter = Where::common(kind, &unscoped);
        filter.push_condition("tab_id IS NULL");
        filter.push_condition(condition);
        let sql = format!("SELECT count(*) FROM {}{}", kind.name, filter.clause(None));
        Ok(conn.prepare_cached(&sql)?.query_row(rusqlite::params_from_iter(filter.params.iter()), |r| r.get(0))?)
    };
    let failed = count(&NETWORK_WATERFALL, &outcome::app_failed_sql(&NETWORK_WATERFALL))?;
    let said = count(&LOGS, "level IN ('warn', 'error')")?;
    if failed + said == 0 {
        return Ok(None);
    }
    let plural = |n: i64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let what = match (failed, said) {
        (0, s) => plural(s, "warning or error was logged", "warnings or errors were logged"),
        (f, 0) => plural(f, "request failed", "requests failed"),
        (f, s) => format!(
            "{} and {}",
            plural(f, "request failed", "requests failed"),
            plural(s, "warning or error was logged", "warnings or errors were logged")
        ),
    };
    Ok(Some(format!(
        "In no tab, {what} in the same span (a service worker's, seen in deep mode): the same observe without tabId shows them"
    )))
}

/// Ids as a list (or one id), or with `context=full` their compact entries: an entry an earlier
/// context of the same answer gave in full as `{"id":…,"in_context_of_error":<that error's id>}`.
fn render(
    conn: &Connection,
    kind: &'static Kind,
    ids: &[i64],
    (mode, error, shown): (ContextMode, i64, &Shown),
    list: bool,
) -> Result<String, QueryError> {
    let items: Vec<String> = match mode {
        ContextMode::Ids => ids.iter().map(i64::to_string).collect(),
        ContextMode::Full => {
            let layout = Layout::new(kind, false, &Fields::Compact)
                .ok_or_else(|| QueryError::Invalid("no compact layout".into()))?;
            let sql = format!("SELECT {} FROM {} WHERE id = ?1", select_list(kind), kind.name);
            let mut stmt = conn.prepare_cached(&sql)?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(first) = shown.first(kind, *id) {
                    out.push(format!("{{\"id\":{id},\"in_context_of_error\":{first}}}"));
                    continue;
                }
                let mut rows = stmt.query([id])?;
                if let Some(row) = rows.next()? {
                    let mut item = layout.item(kind, row)?;
                    item.fields.retain(|(name, _)| *name != "tabId");
                    if let Some(ts) = item.ts {
                        item.fields.insert(0, ("ts", ts.to_string()));
                    }
                    out.push(item.render(&Common::default()));
                    shown.given(kind, *id, error);
                }
            }
            out
        }
    };
    Ok(if list { format!("[{}]", items.join(",")) } else { items.join(",") })
}

#[cfg(test)]
mod tests {
    use super::thrown_in_evaluated_code;

    #[test]
    fn code_of_no_file_is_told_from_a_module_webpack_ran_through_eval() {
        // A swapped-in part's script (htmx, Turbo), and code run by `eval` itself.
        assert!(thrown_in_evaluated_code("Error: x\n    at <anonymous>:1:7"));
        assert!(thrown_in_evaluated_code(
            "Error: x\n    at eval (eval at run (http://localhost/app.js:3:5), <anonymous>:1:1)"
        ));
        assert!(thrown_in_evaluated_code("Error: x\n    at eval (<anonymous>:1:1)"));
        // A function of no name in a module webpack's `eval-*` devtools ran: its module is a file.
        assert!(!thrown_in_evaluated_code(
            "Error: stats request failed with 500\n    at eval (webpack-internal:///./src/components/ApiStatus.tsx:21:15)"
        ));
        assert!(!thrown_in_evaluated_code("TypeError: x\n    at JSON.parse (<anonymous>)\n    at <anonymous>:1:1"));
    }
}
