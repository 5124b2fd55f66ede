//! `what=summary` and `what=errors group=true`: what happened, in a few
//! hundred tokens — per kind the count and id range, logs and errors grouped
//! by fingerprint, requests by status class and host, the failed and the
//! slowest ones.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::QueryError;
use super::args::ObserveArgs;
use super::budget::{Cost, fit};
use super::compact::{self, number};
use super::filter::{Where, field_expr};
use super::fingerprint;
use super::fixed_since;
use super::outcome::{self, Outcome};
use crate::kind::{
    DOCUMENT_TYPES, EXTENSION_LOGS, KINDS, Kind, LEFT_PAGE_PREFIX, LEVELS, LOGS, NETWORK_BODIES, NETWORK_WATERFALL,
    REQUEST_TYPE, quoted,
};

/// Characters of a group's example message.
const EXAMPLE: usize = 160;

/// One fingerprint group of log messages.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub fingerprint: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    pub count: i64,
    pub first_id: i64,
    pub last_id: i64,
    pub example: String,
    /// Where it happened, as an entry's compact `at` says it (its original location where a source
    /// map gave one); filled by [`locate`] for the groups an answer shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// A page or frame that answered an error status ("The page answered 500: …").
    #[serde(skip)]
    pub page: bool,
    /// Thrown and caught by nobody, or a rejection nobody handled: a crash, where an error the app
    /// logged is one it handled.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub uncaught: bool,
    /// What the dev server said would not build (`source: "dev-server"`): the page runs old code,
    /// or none, until it is fixed.
    #[serde(skip)]
    pub build: bool,
    /// An error a dev server's client logged of a build (`[webpack-dev-server] Errors while
    /// compiling.`, its copy of the report): fixed when the build is, though it ranks as any error.
    #[serde(skip)]
    pub dev_client: bool,
    /// A page error or build error the page said was fixed since, and how ([`fixed_since`]): no longer first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<&'static str>,
    /// Logged by library code (its call site's source is on the ignore list, or its script is a
    /// dependency's or the dev server's own): React's DevTools banner, Vite's "[vite] connected".
    #[serde(skip)]
    pub library: bool,
    /// Every fingerprint the group holds: one, or more where entries of other messages logged the
    /// same Error (see [`groups`]); `fingerprint` is the least of them, so that a window with the
    /// same messages names the group alike, and `compare` matches groups by any of them.
    #[serde(skip)]
    pub members: Vec<String>,
}

/// Fills each group's `at`, so that where an error happens takes no second call: the page's own
/// line where a map gave one, of its latest entry (the code as it is now, after edits; its example
/// is then that entry's text, so that the two say the same version) else of its first; else where
/// its first entry happened as its compact `at` says it. The first entries of a group can be a hot
/// update's, whose code no map reaches: the group still names the page's line.
pub(super) fn locate(conn: &Connection, groups: &mut [Group]) -> Result<(), QueryError> {
    let sql = format!("SELECT substr(message, 1, {}), data FROM logs WHERE id = ?1", fingerprint::PREFIX);
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut entry = |id: i64| -> Result<Option<(String, Value)>, QueryError> {
        let found: Option<(String, String)> = stmt.query_row([id], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
        Ok(found.and_then(|(message, d)| serde_json::from_str::<Value>(&d).ok().map(|data| (message, data))))
    };
    for group in groups {
        let first = entry(group.first_id)?;
        let last = if group.last_id == group.first_id { None } else { entry(group.last_id)? };
        if let Some((message, at)) = last.as_ref().and_then(|(m, d)| compact::app_at_of(d).map(|at| (m, at))) {
            group.example = example(message);
            group.at = Some(at);
            continue;
        }
        group.at = first
            .as_ref()
            .and_then(|(_, d)| compact::app_at_of(d))
            .or_else(|| first.as_ref().and_then(|(_, d)| compact::at_of(d)));
    }
    Ok(())
}

/// Groups of the logs matching `filter` (oldest first in, most frequent first out), but for the
/// browser's message about its own guess at a favicon ([`super::outcome::browser_guess_log_sql`]).
pub(super) fn groups(conn: &Connection, filter: &Where, with_level: bool) -> Result<Vec<Group>, QueryError> {
    let sql = format!(
        "SELECT id, level, substr(message, 1, {}), source, url, {PAGE_FAILED}, \
         json_extract(data, '$.original.ignored'), json_extract(data, '$.location'), \
         CASE WHEN level = 'error' THEN substr(json_extract(data, '$.stack'), 1, {STACK_PREFIX}) END FROM logs{} ORDER BY id",
        fingerprint::PREFIX,
        // The browser's message about its own guess at a favicon is no problem of the page's.
        filter.clause(Some(&format!("NOT {}", super::outcome::browser_guess_log_sql())))
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(filter.params.iter()))?;
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    // One Error logged under several messages is one problem: React's "The above error occurred in
    // <Badge>", Storybook's "Error rendering story", the app's boundary and the uncaught error itself
    // each carry the same Error, whose stack (its message and frames) no other error has.
    let mut by_stack: HashMap<(String, String), usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let level: String = row.get(1)?;
        let message: String = row.get(2)?;
        let source: Option<String> = row.get(3)?;
        let url: Option<String> = row.get(4)?;
        let stack: Option<String> = row.get(8)?;
        let level_key = if with_level { level.clone() } else { String::new() };
        let key = (level_key.clone(), of_entry(&message, source.as_deref(), url.as_deref()));
        let stack_key = stack.filter(|s| s.contains("\n    at ")).map(|s| (level_key, s));
        let found = index.get(&key).or_else(|| stack_key.as_ref().and_then(|k| by_stack.get(k))).copied();
        match found {
            Some(i) => {
                let group = &mut groups[i];
                group.count += 1;
                group.last_id = id;
                group.uncaught |= matches!(source.as_deref(), Some("exception" | "unhandledrejection"));
                if !group.members.contains(&key.1) {
                    group.members.push(key.1.clone());
                    group.fingerprint = group.members.iter().min().cloned().unwrap_or_default();
                    index.insert(key, i);
                }
                if let Some(k) = stack_key {
                    by_stack.entry(k).or_insert(i);
                }
            }
            None => {
                if let Some(k) = stack_key {
                    by_stack.insert(k, groups.len());
                }
                index.insert(key.clone(), groups.len());
                let dev_client = level == "error" && of_a_build(&message);
                groups.push(Group {
                    members: vec![key.1.clone()],
                    fingerprint: key.1,
                    level: with_level.then_some(level),
                    count: 1,
                    first_id: id,
                    last_id: id,
                    example: example(&message),
                    at: None,
                    page: row.get::<_, Option<bool>>(5)?.unwrap_or(false),
                    uncaught: matches!(source.as_deref(), Some("exception" | "unhandledrejection")),
                    build: source.as_deref() == Some("dev-server"),
                    dev_client,
                    fixed: None,
                    library: row.get::<_, Option<bool>>(6)?.unwrap_or(false)
                        || row.get::<_, Option<String>>(7)?.is_some_and(|l| compact::served_from_dependencies(&l)),
                });
            }
        }
    }
    for group in groups.iter_mut() {
        if group.build || group.dev_client {
            group.fixed = fixed_since::build(conn, group.last_id)?;
        } else if group.page {
            group.fixed = fixed_since::page(conn, group.last_id)?;
        } else if group.uncaught
            && ["Uncaught SyntaxError: ", "SyntaxError: "].iter().any(|p| group.example.starts_with(p))
        {
            group.fixed = fixed_since::syntax(conn, group.last_id)?;
        }
    }
    // A page that answered an error status first: the page the person looked at was the server's
    // error (a form re-shown with 422, a 500), which assets that fail on every load would push off
    // the list. Then what the dev server could not build (the page runs old code, or none, until it
    // is fixed), then what is not fixed ahead of what the page said was, then what nobody caught (a crash), ahead of errors the app caught and logged,
    // which a data library retrying a request logs again and again. Then the most frequent first;
    // among as frequent, the earliest first: the first error of a cascade (a component's
    // TypeError, then the framework's errors about the broken tree) is its cause.
    // What the browser hid (another origin's script threw: "Script error.", no error, no place)
    // says nothing an agent can act on but its hint: after every error that says something.
    let muted = |g: &Group| g.example.starts_with(MUTED);
    groups.sort_by(|a, b| {
        (b.page && b.fixed.is_none())
            .cmp(&(a.page && a.fixed.is_none()))
            .then((b.build && b.fixed.is_none()).cmp(&(a.build && a.fixed.is_none())))
            .then(a.fixed.is_some().cmp(&b.fixed.is_some()))
            .then(muted(a).cmp(&muted(b)))
            .then(b.uncaught.cmp(&a.uncaught))
            .then(b.count.cmp(&a.count))
            .then(a.first_id.cmp(&b.first_id))
    });
    Ok(groups)
}

/// The console groups (any level) of `filter`, in the order a person reads them: the most severe
/// first (errors, warnings, info, then log and debug), then the most frequent: a dev server's "connected"
/// on every load would otherwise fill the list ahead of the app's one warning. Warnings first,
/// whoever logged them (a library's warning is about the app's use of it); below them, what the
/// app logged ahead of what its libraries and dev server logged (React's DevTools banner, an info
/// on every load, over the app's own log line). Among as severe, one group of each tag first
/// ([`tag`]): a flood of one library's warnings of many messages (vue-i18n's missing keys, one
/// group a key) does not hide another library's one warning (Vue Router's redirect loop).
pub fn log_groups(conn: &Connection, filter: &Where) -> Result<Vec<Group>, QueryError> {
    let mut groups = groups(conn, filter, true)?;
    app_logged(conn, &mut groups)?;
    let severity = |g: &Group| g.level.as_deref().and_then(|l| LEVELS.iter().position(|x| *x == l)).unwrap_or(0);
    // (Errors too, where a filter holds them: `what=logs group=true`.)
    let warning = |g: &Group| matches!(g.level.as_deref(), Some("warn" | "error"));
    groups.sort_by(|a, b| {
        warning(b)
            .cmp(&warning(a))
            .then(a.library.cmp(&b.library))
            .then(severity(b).cmp(&severity(a)))
            .then(b.count.cmp(&a.count))
            .then(a.first_id.cmp(&b.first_id))
    });
    // Each group's place among the groups of its tag before it, in that order; then a stable sort.
    let mut seen: HashMap<(bool, bool, usize, &str), usize> = HashMap::new();
    let nth: Vec<usize> = groups
        .iter()
        .map(|g| match tag(&g.fingerprint) {
            Some(t) => {
                let n = seen.entry((warning(g), g.library, severity(g), t)).or_insert(0);
                *n += 1;
                *n - 1
            }
            None => 0,
        })
        .collect();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&i| (!warning(&groups[i]), groups[i].library, std::cmp::Reverse(severity(&groups[i])), nth[i]));
    let mut slots: Vec<Option<Group>> = groups.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// The tag a library begins its lines with (`[intlify]`, `[Vue warn]`, `[Vue Router warn]`,
/// `[vite]`), if any.
fn tag(fingerprint: &str) -> Option<&str> {
    let end = fingerprint.strip_prefix('[')?.find(']')?;
    (end > 0 && end <= 40).then(|| &fingerprint[..end + 2])
}

/// How dev servers' clients begin the lines they log of a build: at error level, their copy of a
/// build error (webpack-dev-server's, webpack's hot client's), or a module a broken save kept from
/// reloading (Vite's "Failed to reload"). Fixed when the build is ([`fixed_since::build`]).
const DEV_CLIENTS: [&str; 5] = ["[webpack-dev-server] ", "[HMR] ", "[vite] ", "[rsbuild] ", "[parcel] "];

/// Whether an error line is of a build rather than of the app: a dev server's client's line
/// ([`DEV_CLIENTS`]), or a hot update's module the page could not import while the build was
/// broken (`Failed to fetch dynamically imported module: …/Badge.tsx?t=1732…`: Vite's timestamp of
/// an update, which Storybook's preview and routers' lazy routes ask for), or a script of such a
/// URL that failed to load.
fn of_a_build(message: &str) -> bool {
    DEV_CLIENTS.iter().any(|p| message.starts_with(p))
        || BUILD_THROWN.iter().any(|p| message.starts_with(p))
        || NEXT_REPORT.is_match(message)
        || WEBPACK_STUB.is_match(message)
        || [DYNAMIC_IMPORT_FAILED, SCRIPT_FAILED]
            .iter()
            .any(|failed| message.split_once(failed).is_some_and(|(_, url)| url.contains("?t=") || url.contains("&t=")))
}

/// What a dev client throws of a build error (Expo's, Metro's report as an uncaught error).
const BUILD_THROWN: [&str; 2] = ["TransformError: ", "Uncaught TransformError: "];

/// Next.js's client's copy of a build error (its console line, or the error it throws on a page
/// loaded while broken): a first line that is only the module and its place, `./app/page.tsx:13:18`.
static NEXT_REPORT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(?:Uncaught )?(?:Error: )?\./[^\s:]+:\d+:\d+\n")
        .unwrap_or_else(|e| panic!("Next's report pattern: {e}"))
});

/// What webpack (and Rspack) puts in place of a module that did not build: a module that throws the
/// build error, run by the page when it loads it or a hot update brings it (`Unhandled rejection:
/// Error: × Module build failed (from ./node_modules/@docusaurus/mdx-loader/…)`). Fixed with the build.
static WEBPACK_STUB: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(?:Uncaught |Unhandled rejection: )?(?:Error: )?(?:\s*×\s*)?Module (?:build|parse) failed \(")
        .unwrap_or_else(|e| panic!("webpack's stub pattern: {e}"))
});

const DYNAMIC_IMPORT_FAILED: &str = "Failed to fetch dynamically imported module: ";
/// A script element's load error (the extension's `resources.js`): Vite's page reloaded while a
/// module under it does not compile fails at its entry (`…/src/main.ts?t=1732…`).
const SCRIPT_FAILED: &str = "Failed to load script: ";

/// A group whose call site is library code but whose first entry has a line of the app's own among
/// its callers was logged by the app through a library's wrapper of the console (Expo wraps every
/// console call): the app's. One read per such group.
fn app_logged(conn: &Connection, groups: &mut [Group]) -> Result<(), QueryError> {
    let mut stmt = conn.prepare_cached("SELECT data FROM logs WHERE id = ?1")?;
    for group in groups.iter_mut().filter(|g| g.library) {
        let data: Option<String> = stmt.query_row([group.first_id], |r| r.get(0)).optional()?;
        let data: Option<Value> = data.and_then(|d| serde_json::from_str(&d).ok());
        if data.as_ref().and_then(compact::app_at_of).is_some() {
            group.library = false;
        }
    }
    Ok(())
}

/// Characters of a logged Error's stack that tell it from another: its message and first frames.
const STACK_PREFIX: usize = 2_000;

/// A log entry saying its page or frame answered an error status (the extension's `resources.js`).
const PAGE_FAILED: &str = "source = 'resource' AND json_extract(data, '$.tag') = 'document'";

/// A log entry's fingerprint. The browser's own messages keep the URL they are about in a field of
/// their own ("Failed to load resource: the server responded with a status of 500" names no URL):
/// theirs joins the fingerprint, so two resources that fail are two groups, as when the page says it.
fn of_entry(message: &str, source: Option<&str>, url: Option<&str>) -> String {
    match (source, url) {
        (Some("browser"), Some(url)) if !url.is_empty() => {
            format!("{} ({})", fingerprint::of(message), fingerprint::url_pattern(url))
        }
        _ => fingerprint::of(message),
    }
}

fn example(message: &str) -> String {
    let text = super::literal::literals(message);
    match text.char_indices().nth(EXAMPLE) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.into_owned(),
    }
}

/// `what=errors group=true` (error groups, as [`groups`] ranks them) and `what=logs group=true`
/// (console groups of every level, as [`log_groups`] ranks them): as many as fit.
pub fn grouped(
    conn: &Connection,
    kind: &Kind,
    errors_only: bool,
    args: &ObserveArgs,
    scope: Option<Value>,
) -> Result<String, QueryError> {
    let filter = Where::new(kind, errors_only, args);
    let mut all = if errors_only { groups(conn, &filter, false)? } else { log_groups(conn, &filter)? };
    let what = if errors_only { "errors" } else { "logs" };
    let occurrences: i64 = all.iter().map(|g| g.count).sum();
    let wanted = args.limit.filter(|l| *l > 0).map_or(all.len(), |l| (l as usize).min(all.len()));
    let mut head = Map::new();
    head.insert("what".into(), json!(what));
    head.insert("group".into(), json!(true));
    head.insert("count".into(), json!(0));
    head.insert("total_groups".into(), json!(all.len()));
    head.insert("occurrences".into(), json!(occurrences));
    head.insert("truncated".into(), json!(false));
    if let Some(scope) = scope {
        head.insert("navigation".into(), scope);
    }
    let failed_requests = if errors_only { super::context::failed_requests_note(conn, args)? } else { None };
    let budget = args.budget();
    let reserve = Cost::of(&Value::Object(head.clone()).to_string())
        .plus(Cost::of(&"x".repeat(300)))
        .plus(Cost::of(failed_requests.as_deref().unwrap_or_default()));
    let ids: Vec<i64> = all.iter().take(wanted).map(|g| g.first_id).collect();
    // Each group located as it is tried: only those that fit the answer are read (a ring of
    // thousands of distinct errors is not).
    let (kept, cut) = fit(&ids, budget.minus(reserve), false, |i| {
        locate(conn, &mut all[i..=i])?;
        Ok::<_, QueryError>(serde_json::to_string(&all[i]).unwrap_or_default())
    })?;
    let shown = kept.len();
    head.insert("count".into(), json!(shown));
    head.insert("truncated".into(), json!(cut));
    if shown < all.len() {
        head.insert(
            "hint".into(),
            json!(format!(
                "{shown} of {} groups shown, most frequent first; narrow with {}since or since_navigation, or raise max_tokens",
                all.len(),
                if args.tab_id.is_some() { "" } else { "tabId, " }
            )),
        );
    } else if !all.is_empty() {
        head.insert(
            "hint".into(),
            json!(format!("drill into a group with observe what={what} id=<first_id or last_id>")),
        );
    } else if let Some(h) = &args.extras.empty_hint {
        head.insert("hint".into(), json!(h));
    }
    if let Some(note) = failed_requests {
        let hint = match head.get("hint").and_then(Value::as_str) {
            Some(h) => format!("{h}. {note}"),
            None => note,
        };
        head.insert("hint".into(), json!(hint));
    }
    let mut out = Value::Object(head).to_string();
    out.pop();
    out.push_str(",\"groups\":[");
    out.push_str(&kept.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(","));
    out.push_str("]}");
    Ok(out)
}

/// Most items of a list a summary shows (fewer when the answer would not fit).
const TOP: usize = 5;

/// How the browser's message begins for an error a script of another origin threw, loaded without
/// CORS (the page's `error` event has no error, file or line: extension/page/errors.js).
const MUTED: &str = "Script error.";
/// Most other places named for one failed request (`also_at`), newest first.
const ALSO_AT: usize = 3;
/// Most of the slowest requests a summary shows.
const SLOWEST: usize = 3;

/// Requests of one network kind, read once and shown at any length.
struct Network {
    by_status: Map<String, Value>,
    /// Hosts, most requests first.
    hosts: Vec<(String, i64)>,
    failed_count: i64,
    /// The latest failures, newest first (at most TOP), one per request failing the same way (its
    /// method, URL, status and error) with how many times (`count`, above one) and its newest id.
    failed: Vec<Value>,
    /// The slowest requests, slowest first (at most SLOWEST).
    slowest: Vec<Value>,
}

impl Network {
    /// The kind's summary with at most `top` items per list.
    fn render(&self, top: usize) -> Value {
        let mut host_map = Map::new();
        for (h, n) in self.hosts.iter().take(top) {
            host_map.insert(h.clone(), json!(n));
        }
        let failed: Vec<&Value> = self.failed.iter().take(top).collect();
        let mut rendered = json!({ "by_status": self.by_status, "failed_count": self.failed_count });
        // The smallest form (no item of any list) names the lists' counts alone.
        if top > 0 {
            rendered["by_host"] = json!(host_map);
            rendered["failed"] = json!(failed);
            rendered["slowest"] = json!(self.slowest.iter().take(top.min(SLOWEST)).collect::<Vec<_>>());
        }
        // Said where a list is cut, as a group list says `not_shown`, so that a host or a failure
        // left out is not taken for one that never was.
        let more_hosts = self.hosts.len().saturating_sub(top);
        if more_hosts > 0 {
            rendered["hosts_not_shown"] = json!(more_hosts);
        }
        let more_failed = self.failed_not_shown(top);
        if more_failed > 0 {
            rendered["failed_not_shown"] = json!(more_failed);
        }
        rendered
    }

    /// The failed requests a list of `top` items leaves out: those of the items not shown.
    fn failed_not_shown(&self, top: usize) -> usize {
        let shown: usize = self.failed.iter().take(top).map(|f| f["count"].as_u64().map_or(1, |n| n as usize)).sum();
        usize::try_from(self.failed_count).unwrap_or(0).saturating_sub(shown)
    }
}

/// The data field holding a response's body.
const BODY_FIELD: &str = "responseBody";
/// Characters of a failed request's body its summary item shows (`said`).
const SAID_CHARS: usize = 80;
/// Where a JSON answer keeps its message, the first that holds text: most frameworks' `message`
/// (h3, Nest, Laravel, Spring's), Express apps' `error`, a nested error's, Django REST's `detail`,
/// FastAPI's first validation error's (`detail[0].msg`), GraphQL's first error's, RFC 9457's
/// `detail` and `title`, h3's `statusMessage`, OAuth's `error_description`.
const MESSAGE_PATHS: [&str; 9] = [
    "$.message",
    "$.error",
    "$.error.message",
    "$.detail",
    "$.detail[0].msg",
    "$.errors[0].message",
    "$.error_description",
    "$.title",
    "$.statusMessage",
];
/// A failed request's `retried`: the same request succeeded within [`outcome::RETRY_MS`] after it.
const RETRIED: &str = "succeeded when sent again";

/// What made a request, as its row's type says, that is the page's code at work: the wrappers'.
const MADE_BY_CODE: [&str; 5] = ["fetch", "xmlhttprequest", "beacon", "eventsource", "websocket"];
/// How a failure the page's own code asked for reads (a fetch's AbortController, an XHR's
/// `abort()`; deep mode's): ranked after the others.
const ABORTED: [&str; 3] = ["AbortError", "aborted (XHR abort())", "net::ERR_ABORTED"];

/// Characters of a message that, found in a body's start, say the start shows it already.
const SAID_PROBE: usize = 20;

/// Reads the requests of one network kind for the summary.
fn network(conn: &Connection, kind: &'static Kind, args: &ObserveArgs) -> Result<Network, QueryError> {
    let filter = Where::common(kind, args);
    let [status, error, failed_flag] = outcome::outcome_columns(kind);
    // A connection that stays open (a WebSocket, an EventSource: a dev server's HMR socket among
    // them) lasts as long as the page, and a long poll waits for the server's next message: their
    // durations are no slowness, and they are not ranked as one.
    // What made the request, as its entry's `type` says.
    let [first, then] = REQUEST_TYPE.map(|f| field_expr(kind, f));
    let request_type = format!("coalesce({first}, {then})");
    // A stream a worker fetched for the page (deep mode: `stream`) lasts as the page's EventSource does.
    let lasting = format!(
        "({request_type} IN ('websocket', 'eventsource') OR {} OR coalesce({}, 0) = 1)",
        outcome::long_poll_sql(),
        field_expr(kind, "stream")
    );
    // A page: a document, or an HTML error page a fetch or an XHR got (a body's `pageText`, a row's
    // `errorPage`: a Turbo visit, an htmx swap or a form they sent, answered 422 or 500, is the page
    // the person then sees).
    let document = format!(
        "({request_type} IN ({}) OR {} IS NOT NULL OR {} IS NOT NULL)",
        quoted(DOCUMENT_TYPES),
        field_expr(kind, "pageText"),
        field_expr(kind, "errorPage")
    );
    // Where a failed request was made in the page's code: its call site, source-mapped where it could be.
    let made_at = match kind.frames_page {
        Some(_) => format!(
            "CASE WHEN {} THEN json_object('original', data -> '$.original', 'frames', data -> '$.frames', \
             'sourcemap', data -> '$.sourcemap', 'location', data -> '$.location', \
             'afterFormPost', data ->> '$.afterFormPost') END",
            outcome::failed_sql(kind)
        ),
        None => "NULL".to_string(),
    };
    // What a failed request's server said, where the kind keeps response bodies and the body is no
    // HTML page (that one's text is the page's): the start of it, so that a 500's `{"error": …}`
    // takes no second call.
    // And the message a JSON answer carries in a field of its own ([`MESSAGE_PATHS`]), for one
    // whose start is taken by other fields (h3's and Nuxt's `{"error":true,"url":…,"statusCode":404,
    // …,"message":"item 99 not found"}`).
    let (said, message) = if kind.data_fields.contains(&BODY_FIELD) {
        let when = format!("{} AND {} IS NULL", outcome::failed_sql(kind), field_expr(kind, "pageText"));
        let body = format!("json_extract(data, '$.{BODY_FIELD}')");
        let texts = MESSAGE_PATHS
            .iter()
            .map(|p| format!("CASE WHEN json_type({body}, '{p}') = 'text' THEN json_extract({body}, '{p}') END"))
            .collect::<Vec<_>>()
            .join(", ");
        (
            format!("CASE WHEN {when} THEN substr({body}, 1, {}) END", SAID_CHARS * 4),
            format!("CASE WHEN {when} AND json_valid({body}) THEN coalesce({texts}) END"),
        )
    } else {
        ("NULL".to_string(), "NULL".to_string())
    };
    let sql = format!(
        "SELECT id, url, {status}, duration, {}, {error}, {failed_flag}, {lasting}, {}, {made_at}, {document}, {said}, {message}, {request_type} FROM {}{} ORDER BY id",
        field_expr(kind, "method"),
        outcome::browser_guess_sql(),
        kind.name,
        filter.clause(None)
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(filter.params.iter()))?;
    let mut by_status: HashMap<&'static str, i64> = HashMap::new();
    let mut by_host: HashMap<String, i64> = HashMap::new();
    // Failures by what failed and how: each request failing the same way once, with its count.
    // Each with whether it loaded a document (a page or a frame), and the places in the page's code
    // that made it, newest last.
    // Each with whether the page's code made it (a fetch, an XHR, a beacon, a stream: what a
    // wrapper saw, which an HTTP client that starts its request from a promise chain leaves no
    // line of the page's in, as axios does) rather than the page's markup or its dev server.
    let mut failed: Vec<(bool, bool, Value, Vec<String>)> = Vec::new();
    let mut failed_at: HashMap<String, usize> = HashMap::new();
    let mut failed_count = 0;
    let mut timed: Vec<(f64, i64, String)> = Vec::new();
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let url: String = row.get(1)?;
        let status: Option<i64> = row.get(2)?;
        let duration: Option<f64> = row.get(3)?;
        let method: Option<String> = row.get(4)?;
        // An error is text; anything else stored there still says that one was reported.
        let error: Option<String> = match row.get_ref(5)? {
            rusqlite::types::ValueRef::Null => None,
            rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
            other => Some(format!("{:?}", other.data_type())),
        };
        let failed_flag = row.get::<_, Option<i64>>(6).ok().flatten() == Some(1);
        let outcome = Outcome::new(status, error.is_some(), failed_flag);
        *by_status.entry(outcome.class()).or_default() += 1;
        *by_host.entry(host(&url).to_string()).or_default() += 1;
        // The browser's own guess at a favicon failed, but not the app: not among the failed.
        let guess = row.get::<_, Option<i64>>(8).ok().flatten() == Some(1);
        if outcome.failed() && !guess {
            failed_count += 1;
            let mut f = json!({ "id": id, "url": cut(&url, 120) });
            if let Some(m) = method {
                f["method"] = json!(m);
            }
            if let Some(s) = status {
                f["status"] = json!(s);
            }
            if let Some(e) = error {
                f["error"] = json!(cut(&e, 80));
            }
            if failed_flag {
                f["failed"] = json!(true);
            }

            let place = row.get::<_, Option<String>>(9)?.and_then(|text| serde_json::from_str::<Value>(&text).ok());
            let same_way = format!("{}|{}|{}|{}|{}", f["method"], url, f["status"], f["error"], failed_flag);
            let (item, places) = match failed_at.get(&same_way) {
                Some(&at) => {
                    let (_, _, item, places) = &mut failed[at];
                    let count = item["count"].as_i64().unwrap_or(1) + 1;
                    item["count"] = json!(count);
                    item["id"] = json!(id);
                    (item, places)
                }
                None => {
                    failed_at.insert(same_way, failed.len());
                    let document = row.get::<_, Option<bool>>(10)?.unwrap_or(false);
                    let by_code = row.get::<_, Option<String>>(13)?.is_some_and(|t| MADE_BY_CODE.contains(&t.as_str()));
                    failed.push((document, by_code, f, Vec::new()));
                    let (_, _, item, places) = failed.last_mut().expect("just pushed");
                    (item, places)
                }
            };
            // What its server said, the newest's: its start, or the message its start leaves out.
            let fold = |b: String| b.split_whitespace().collect::<Vec<_>>().join(" ");
            let said = row.get::<_, Option<String>>(11).ok().flatten().map(fold).map(|s| cut(&s, SAID_CHARS));
            let message = row.get::<_, Option<String>>(12).ok().flatten().map(fold).filter(|m| !m.is_empty());
            let said = match (said, message) {
                (Some(start), Some(m)) if !start.contains(m.chars().take(SAID_PROBE).collect::<String>().as_str()) => {
                    Some(cut(&format!("message: {m}"), SAID_CHARS))
                }
                (said, _) => said,
            };
            match said.filter(|b| !b.is_empty()) {
                Some(said) => item["said"] = json!(said),
                None => _ = item.as_object_mut().map(|o| o.remove("said")),
            }
            // `at` is the newest's own place (the row `id` names), so that drilling into it finds
            // the same line; the other places that made it are named beside (`also_at`).
            let at = place.as_ref().and_then(compact::request_at_of);
            match &at {
                Some(at) => item["at"] = json!(at),
                None => _ = item.as_object_mut().map(|o| o.remove("at")),
            }
            if let Some(at) = at {
                places.retain(|p| *p != at);
                places.push(at);
            }
            // A document a form's POST redirected to: the form's action.
            if item.get("afterFormPost").is_none()
                && let Some(action) = place.as_ref().and_then(|p| p["afterFormPost"].as_str())
            {
                item["afterFormPost"] = json!(cut(action, 120));
            }
        }
        // Nor among the slowest: how long a dev server took to answer the guess is not the app's.
        let lasting = row.get::<_, Option<i64>>(7).ok().flatten() == Some(1);
        if let Some(d) = duration.filter(|_| !lasting && !guess) {
            timed.push((d, id, url));
        }
    }
    // The pages (and frames) that failed to load first, the server's answer to the page the person
    // looked at, which the assets failing on every load would push off the list; then what the
    // page's code asked for (its place in the code known: an API call), which a dev server's
    // module reloads failing after each broken save would push off too; then the rest; each the
    // most recent first (by its newest id). Last, what the browser canceled as its page was left
    // (a stream cut by a reload): failed, as an aborted request is, but no failure of the app's.
    // And the slowest requests.
    // Whether the same request succeeded after it, the newest's (`retried`): met, ranked after the
    // rest. Asked of each failure's newest row, not of every failed row.
    for (_, _, item, _) in failed.iter_mut() {
        if let Some(id) = item["id"].as_i64()
            && outcome::retried(conn, kind, id, None)?
        {
            item["retried"] = json!(RETRIED);
        }
    }
    // An abort the page's code asked for (a route left, a search superseded) comes after the
    // other failures, before what the browser canceled as the page was left.
    failed.sort_by_key(|(document, by_code, f, _)| {
        let made_by_code = *by_code || f.get("at").is_some();
        let error = f["error"].as_str().unwrap_or_default();
        let left = error.starts_with(LEFT_PAGE_PREFIX);
        let aborted = ABORTED.iter().any(|a| error.contains(a));
        let retried = f.get("retried").is_some();
        (
            left,
            aborted,
            retried,
            std::cmp::Reverse(*document),
            std::cmp::Reverse(made_by_code),
            std::cmp::Reverse(f["id"].as_i64().unwrap_or(0)),
        )
    });
    failed.truncate(TOP);
    let failed: Vec<Value> = failed
        .into_iter()
        .map(|(_, _, mut f, places)| {
            let newest = f["at"].as_str().map(str::to_owned);
            let others: Vec<&String> =
                places.iter().rev().filter(|p| Some(p.as_str()) != newest.as_deref()).take(ALSO_AT).collect();
            if !others.is_empty() {
                f["also_at"] = json!(others);
            }
            f
        })
        .collect();
    timed.sort_by(|a, b| b.0.total_cmp(&a.0));
    let slowest: Vec<Value> = timed
        .into_iter()
        .take(SLOWEST)
        .map(|(d, id, url)| json!({ "id": id, "url": cut(&url, 120), "duration": serde_json::from_str::<Value>(&number(d)).unwrap_or(Value::Null) }))
        .collect();
    let mut hosts: Vec<(String, i64)> = by_host.into_iter().collect();
    hosts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut status_map = Map::new();
    for class in ["1xx", "2xx", "3xx", "4xx", "5xx", "failed", "unknown"] {
        if let Some(n) = by_status.get(class) {
            status_map.insert(class.into(), json!(n));
        }
    }
    Ok(Network { by_status: status_map, hosts, failed_count, failed, slowest })
}

fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    authority.rsplit_once('@').map_or(authority, |(_, h)| h)
}

pub(super) fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// How the extension says it lost events (its `delivery.js`): `dropped 15004 logs events: <why>`.
static DROPPED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^dropped (\d{1,15}) ([a-z_]{1,40}) events?: ")
        .unwrap_or_else(|e| panic!("the dropped pattern: {e}"))
});

/// Events of each kind the extension said it dropped, in the tabs and time asked about.
fn dropped(conn: &Connection, args: &ObserveArgs) -> Result<HashMap<String, i64>, QueryError> {
    let mut filter = Where::common(&EXTENSION_LOGS, args);
    filter.push_condition("message LIKE 'dropped %'");
    let sql = format!("SELECT message FROM {}{} LIMIT 10000", EXTENSION_LOGS.name, filter.clause(None));
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(filter.params.iter()))?;
    let mut by_kind: HashMap<String, i64> = HashMap::new();
    while let Some(row) = rows.next()? {
        let message: String = row.get(0)?;
        if let Some(c) = DROPPED.captures(&message)
            && let Ok(n) = c[1].parse::<i64>()
        {
            *by_kind.entry(c[2].to_string()).or_default() += n;
        }
    }
    Ok(by_kind)
}

/// `what=summary`.
pub fn summary(conn: &Connection, args: &ObserveArgs, scope: Option<Value>) -> Result<String, QueryError> {
    let budget = args.budget();
    let mut kinds = Map::new();
    // tabId, since and since_mark apply to every kind alike.
    for kind in KINDS {
        let filter = Where::common(kind, args);
        let sql = format!("SELECT count(*), min(id), max(id) FROM {}{}", kind.name, filter.clause(None));
        let (count, first, last): (i64, Option<i64>, Option<i64>) = conn
            .prepare_cached(&sql)?
            .query_row(rusqlite::params_from_iter(filter.params.iter()), |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        // An empty ring has no ids to name.
        let counted = if count == 0 {
            json!({ "count": 0 })
        } else {
            json!({ "count": count, "first_id": first, "last_id": last })
        };
        kinds.insert(kind.name.into(), counted);
    }
    // What the extension could not keep of the same tabs and time (its queue full, a page faster
    // than it), beside the count of what it kept: a flood's 4,999 lines are not all it logged.
    for (kind, n) in dropped(conn, args)? {
        if let Some(counted) = kinds.get_mut(&kind).and_then(Value::as_object_mut) {
            counted.insert("dropped".into(), json!(n));
        }
    }
    let nothing = kinds.values().all(|k| k["count"] == 0);
    let logs_filter = {
        let mut w = Where::common(&LOGS, args);
        w.push_condition("level <> 'error'");
        w
    };
    let mut log_groups = log_groups(conn, &logs_filter)?;
    let mut error_groups = groups(conn, &Where::new(&LOGS, true, args), false)?;
    let shown = error_groups.len().min(TOP);
    locate(conn, &mut error_groups[..shown])?;
    let shown = log_groups.len().min(TOP);
    locate(conn, &mut log_groups[..shown])?;
    let waterfall = network(conn, &NETWORK_WATERFALL, args)?;
    let bodies = network(conn, &NETWORK_BODIES, args)?;
    // What failed in no tab (a service worker's), which a tab's summary leaves out.
    let no_tab = super::context::no_tab_note(conn, args)?;
    // Workers started where the page-side capture cannot follow what they fetch.
    let workers = super::workers::note(conn, args)?;
    // Fewer items per list until the answer fits.
    let fitted = compact::first_fitting(&[TOP, 3, 2, 1, 0], budget, |top| {
        let mut answer = Map::new();
        answer.insert("what".into(), json!("summary"));
        if let Some(tab) = args.tab_id {
            answer.insert("tabId".into(), json!(tab));
        }
        if let Some(scope) = &scope {
            answer.insert("navigation".into(), scope.clone());
        }
        // The smallest form counts each kind alone; its ids are in every larger one.
        let counted = if top > 0 {
            kinds.clone()
        } else {
            kinds.iter().map(|(k, v)| (k.clone(), json!({ "count": v["count"] }))).collect()
        };
        answer.insert("kinds".into(), Value::Object(counted));
        answer.insert("logs".into(), group_list(&log_groups, top));
        answer.insert("errors".into(), group_list(&error_groups, top));
        answer.insert(NETWORK_WATERFALL.name.into(), waterfall.render(top));
        answer.insert(NETWORK_BODIES.name.into(), bodies.render(top));
        // `not_shown` is named where a list has it: groups left out here.
        let failures_cut = [&waterfall, &bodies].iter().any(|n| n.failed_not_shown(top) > 0);
        let never_reported = nothing && args.extras.empty_hint.is_none() && super::capture::never_reported(conn)?;
        let hint = match &args.extras.empty_hint {
            // Nothing at all: capture is paused, or the tab asked about is not captured.
            Some(h) if nothing => h.clone(),
            // Nothing at all, and no extension has ever reported here.
            None if never_reported => super::capture::NEVER_REPORTED.to_owned(),
            _ if top == 0 => {
                "lists left out at this max_tokens (not_shown): ask for more, or list them with what=errors group=true, what=logs group=true and what=network_waterfall failed=true".to_owned()
            }
            // Every list that left something out says where to read it whole.
            _ => {
                let groups = match (error_groups.len() > top, log_groups.len() > top) {
                    (true, true) => {
                        "list every error group with what=errors group=true and every log group with what=logs group=true (not_shown: groups left out here)"
                    }
                    (true, false) => "list every error group with what=errors group=true (not_shown: groups left out here)",
                    (false, true) => {
                        "list error groups with what=errors group=true and every log group with what=logs group=true (not_shown: groups left out here)"
                    }
                    (false, false) => "list error groups with what=errors group=true",
                };
                let failures = if failures_cut {
                    "; every failed request with what=network_waterfall failed=true (failed_not_shown: left out here)"
                } else {
                    ""
                };
                let no_tab = no_tab.as_ref().map_or_else(String::new, |n| format!(". {n}"));
                let workers = workers.as_ref().map_or_else(String::new, |n| format!(". {n}"));
                format!(
                    "drill down with observe what=<kind> id=<id>; {groups}{failures}; recent entries with offset=-20{no_tab}{workers}"
                )
            }
        };
        answer.insert("hint".into(), json!(hint));
        Ok::<_, QueryError>(answer)
    })?;
    fitted.map_err(|least| compact::too_small("summary", least, args))
}

fn group_list(groups: &[Group], top: usize) -> Value {
    let mut list = json!({
        "groups_total": groups.len(),
        "occurrences": groups.iter().map(|g| g.count).sum::<i64>(),
    });
    if top > 0 {
        list["groups"] = json!(groups.iter().take(top).collect::<Vec<_>>());
    }
    // Said where it happens, so that a group left out is not taken for one that never was.
    if groups.len() > top {
        list["not_shown"] = json!(groups.len() - top);
    }
    list
}

#[cfg(test)]
mod tests {
    use super::host;

    #[test]
    fn host_of_urls() {
        assert_eq!(host("https://user:pw@api.example.com:8443/x?y"), "api.example.com:8443");
        assert_eq!(host("http://localhost:5173"), "localhost:5173");
        assert_eq!(host("data:text/plain,hi"), "data:text");
    }
}
