//! The six kinds of event, described once as data.
//!
//! Ingest validation, the ring capacities, query translation and the MCP schema
//! all read these tables; none of them knows a kind by name. The SQL schema in
//! `migrations/` is the other half of the description: `store` tests check that
//! every column named here exists there.

/// How a column's value is typed on the wire and in SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Text,
    Integer,
    Real,
    /// `true` or `false` on the wire; 1 or 0 in SQLite.
    Boolean,
}

/// Whether an entry must carry a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Required {
    No,
    Yes,
    /// Required when another field has the given value (`direction` when `event` is `message`).
    When(&'static str, &'static str),
}

/// A real column of a kind table, filled from one JSON field of an entry.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// SQL column name.
    pub name: &'static str,
    /// JSON field name on the wire and in observe answers.
    pub field: &'static str,
    pub ty: ColumnType,
    pub required: Required,
    /// Allowed values; empty means any.
    pub one_of: &'static [&'static str],
}

/// How an observe filter argument narrows a kind's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterOp {
    /// `column = ?`
    Equals,
    /// `instr(column, ?) > 0`
    Contains,
    /// `instr(column, ?) = 0`, or no value; given a list (at most [`MAX_EXCLUDED`] texts), none of them.
    NotContains,
    /// `column >= ?`
    AtLeast,
    /// `column <= ?`
    AtMost,
    /// `column IN (levels at or above ?)`, over [`LEVELS`].
    LevelAtLeast,
    /// The request failed (`true`) or did not (`false`), as `query::outcome` defines it.
    Failed,
}

/// Most texts one [`FilterOp::NotContains`] filter takes in a list.
pub const MAX_EXCLUDED: usize = 20;

/// An observe argument that filters a kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Filter {
    /// Argument name in the observe tool.
    pub arg: &'static str,
    pub column: &'static str,
    pub op: FilterOp,
    pub ty: ColumnType,
    /// What it keeps, for the tool's schema and the docs.
    pub help: &'static str,
    /// A field of `data` that says the same thing as the column under another name, compared
    /// first, the column where the field is not there (the browser's network rows name their
    /// `type`, the page's their `initiatorType`; a deep tab's joined row has both).
    pub or_field: Option<&'static str>,
}

/// How a compact field is made from the stored ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The value as stored (numbers rounded, long strings cut).
    Whole,
    /// A logged message: as [`Shape::Whole`], with the objects in it written as JavaScript
    /// literals, as DevTools shows a logged object (`{i:6,name:'x'}`). Only a message: a body or a
    /// frame's payload is shown as the page sent it.
    Logged,
    /// A text a page showed (an error page's): as [`Shape::Logged`] cuts a long one (its start and
    /// its end), but as the page had it, its code's quotes and brackets untouched.
    Shown,
    /// A stack's first N frames ("    at …" lines), its head (the error's message, which the entry
    /// says beside it) left out; a text with no frame line, its first N lines.
    Frames(usize),
    /// The length in characters of a string.
    Length,
    /// A count of bytes, as stored; a zero is passed over for the next field named (a response a
    /// cache or a service worker answered transferred none, and its body's size says more).
    Bytes,
}

/// One field of a kind's compact entries: `name`, taken from the first of
/// `from` (stored field names) that the entry has, in `shape`.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub name: &'static str,
    pub from: &'static [&'static str],
    pub shape: Shape,
}

/// One kind of event: its table, columns, filters and default ring capacity.
#[derive(Debug)]
pub struct Kind {
    /// Table name, URL segment (`POST /events/{name}`) and `what` in observe.
    pub name: &'static str,
    pub default_capacity: i64,
    pub columns: &'static [Column],
    pub filters: &'static [Filter],
    pub description: &'static str,
    /// Fields the extension stores in `data` (besides the columns): what `fields` may name.
    pub data_fields: &'static [&'static str],
    /// The compact entry observe lists by default (after `id` and the time).
    pub compact: &'static [View],
    /// For a kind whose entries carry script positions of the page's code (`location`, `stack`,
    /// `callers`), which the server maps back to the original source: the field naming the page
    /// whose scripts they are in (a column or a data field). None: nothing to map.
    pub frames_page: Option<&'static str>,
}

/// Kinds are static and named uniquely: the name is the identity.
impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Kind {
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn filter(&self, arg: &str) -> Option<&'static Filter> {
        self.filters.iter().find(|f| f.arg == arg)
    }

    /// Every field name `fields` accepts: identity, columns, known data fields, compact views.
    pub fn field_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = IDENTITY_FIELDS.to_vec();
        let more = self.columns.iter().map(|c| c.field).chain(self.data_fields.iter().copied());
        for name in more.chain(self.compact.iter().map(|v| v.name)).chain(ERRORS_COMPACT.iter().map(|v| v.name)) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

/// The largest ring a kind may be given (`--capacity`, `configure action=capacity`): a ring is a
/// bound on the file, and an agent's typo of `1e15` must not lift it.
pub const MAX_CAPACITY: i64 = 1_000_000;

/// `n` as a kind's ring capacity, or why it cannot be one.
pub fn check_capacity(n: i64) -> Result<i64, String> {
    if (1..=MAX_CAPACITY).contains(&n) { Ok(n) } else { Err(capacity_refused(n)) }
}

/// Why `got` (as the person or agent sent it) is no ring capacity.
pub fn capacity_refused(got: impl std::fmt::Display) -> String {
    format!("capacity must be an integer from 1 to {MAX_CAPACITY}, got {got}")
}

/// Fields every entry has.
pub const IDENTITY_FIELDS: [&str; 4] = ["id", "tabId", "ts", "t"];

const fn pick(name: &'static str, from: &'static [&'static str]) -> View {
    View { name, from, shape: Shape::Whole }
}

/// The compact entry of `what=errors` (a view of logs): where it was thrown, and its top frames.
pub static ERRORS_COMPACT: [View; 8] = [
    View { name: "message", from: &["message"], shape: Shape::Logged },
    pick("source", &["source"]),
    // Thrown or logged in a worker (deep mode): "dedicated", "shared" or "service".
    pick("worker", &["worker"]),
    pick("location", &["location"]),
    View { name: "stack", from: &["stack"], shape: Shape::Frames(4) },
    pick("url", &["url"]),
    // A body read as JSON that was none: the URL of the response (an HTML page answered to an API call).
    pick("jsonFrom", &["jsonFrom"]),
    // A document that answered with an error status: the text of the error page the server sent.
    View { name: "pageText", from: &["pageText"], shape: Shape::Shown },
];

/// How a page-side row's `error` begins when the request failed as its page was being left (a
/// reload, a link, a dev server's full reload): the browser canceled it, the app did not fail.
/// Written by the extension's `page/requests.js` (held to this by its unit test, through
/// `gasoline kinds`); the summary lists such failures last, an error's context leaves them out.
pub const LEFT_PAGE_PREFIX: &str = "canceled as the page was left: ";

/// A logs entry's (or a frame's) `sourcemap` reason when its code ran from a hot update through
/// `eval` and no map of it can be had: the source-map resolver writes it, compact entries read it.
pub const HOT_UPDATE_REASON: &str = "hot update";
/// A frame's `sourcemap` reason when its script is not on the page's origin (or the page is outside
/// the capture scope): the resolver writes it, compact entries count such a frame as library code.
pub const NOT_IN_SCOPE_REASON: &str = "not in scope";
/// A frame's `sourcemap` reason when its position comes before the first its map maps: code the
/// bundler put ahead of the modules (esbuild's `__async` helper at the top of a chunk), of no
/// source. The resolver writes it; compact entries count such a frame as library code.
pub const BUNDLER_CODE_REASON: &str = "bundler code";

/// Whether a segment of a script's URL path or of a source's path marks library code: a
/// `node_modules` folder (DevTools' default ignore list), a `vendor` folder (an import map's
/// `/vendor/turbo.js`, Rails' and Laravel's vendored scripts), the modules Vite serves of its own
/// (`/@vite/client`, its HMR client and error overlay; `/@react-refresh`, `/@solid-refresh`), a dev server's cache
/// of prebundled dependencies outside `node_modules` (`.vite`; Angular CLI's
/// `.angular/cache/20.3.4/app/vite/deps/chunk-….js`, whose esbuild `__async` helper is the first
/// frame of every `await`ed call, with a map naming only itself), django-debug-toolbar's static
/// files (`/static/debug_toolbar/js/toolbar.js`, whose wrapper of `fetch` is the first frame of
/// every request the page makes), or the file of a
/// library a server-rendered app serves as it is ([`LIBRARY_FILES`]: `/static/htmx.min.js`,
/// Rails' `/assets/turbo.min-3f2a….js`). One rule for the source-map resolver, which marks an
/// original `ignored`, and for compact entries, which count an unmapped frame as library code by
/// its URL.
pub fn is_library_segment(segment: &str) -> bool {
    if matches!(
        segment,
        "node_modules"
            | "vendor"
            | "@vite"
            | "@react-refresh"
            | "@solid-refresh"
            | ".vite"
            | ".angular"
            | "debug_toolbar"
    ) {
        return true;
    }
    // A frame's last segment carries its place: `htmx.min.js:1:23203`.
    let file = segment.split(':').next().unwrap_or_default();
    // Turbopack names a chunk by the path of its first module, folders joined by `_`: one of a
    // dependency's (`node_modules_next_dist_client_14zvornz047l2._.js`, Next's client) is library code.
    if file.starts_with("node_modules_") && file.ends_with("._.js") {
        return true;
    }
    let Some(stem) = file.strip_suffix(".js").or_else(|| file.strip_suffix(".mjs")) else { return false };
    let name = stem.split(['.', '-', '@']).next().unwrap_or_default();
    LIBRARY_FILES.contains(&name.to_ascii_lowercase().as_str())
}

/// Libraries served as one file of their own name (with `.min`, a version or a digest after it),
/// which report the page's errors from their own frames: htmx runs a swapped-in part's scripts,
/// Stimulus logs a controller's error, Turbo makes every visit's request.
pub const LIBRARY_FILES: &[&str] = &["htmx", "turbo", "stimulus", "jquery", "alpine", "alpinejs", "hotwired"];

/// Console levels from least to most severe; `min_level` keeps a suffix of this.
pub const LEVELS: &[&str] = &["debug", "log", "info", "warn", "error"];
/// The fields a network row names what made it by, as its entry's `type` shows it: the browser's
/// rows (deep mode) Chrome's `type`, the page's rows Resource Timing's `initiatorType`. A deep
/// tab's row joined with the page's carries both, and the browser's says it (a worker's script is
/// `script` to the browser, `other` to the page's timing). The `type` filter, compact entries, the
/// summary, HAR and `tail` read it through [`request_type`] or these names, the first there first.
pub const REQUEST_TYPE: [&str; 2] = ["type", "initiatorType"];

/// What made a request, from its entry: the first of [`REQUEST_TYPE`] it carries.
pub fn request_type(entry: &serde_json::Value) -> Option<&str> {
    REQUEST_TYPE.iter().find_map(|f| entry.get(f).and_then(serde_json::Value::as_str))
}

/// What a long poll's URL holds: a request that waits for the server's next message by design,
/// as a WebSocket does, so that its duration is no slowness (Socket.IO's polling transport,
/// `?EIO=4&transport=polling`; SignalR's `transport=longPolling`; Phoenix LiveView's
/// `/live/longpoll`). Compared with the URL in lower case.
pub const LONG_POLL_URLS: &[&str] = &["transport=polling", "transport=longpolling", "/longpoll"];

/// What made a request that loaded a document, as its entry's type says it: the page's own row of
/// its document (Resource Timing's `navigation`), the browser's rows in deep mode (a tab's page, a frame's).
pub const DOCUMENT_TYPES: &[&str] = &["navigation", "main_frame", "sub_frame"];

/// `values` as an SQL list of string literals (`'a', 'b'`): for the lists of this file, which hold no quote.
pub fn quoted(values: &[&str]) -> String {
    values.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ")
}
const WS_EVENTS: &[&str] = &["open", "message", "close", "error"];
const DIRECTIONS: &[&str] = &["incoming", "outgoing"];

const fn col(name: &'static str, field: &'static str, ty: ColumnType) -> Column {
    Column { name, field, ty, required: Required::No, one_of: &[] }
}
const fn req(name: &'static str, field: &'static str, ty: ColumnType) -> Column {
    Column { name, field, ty, required: Required::Yes, one_of: &[] }
}
const fn filter(arg: &'static str, column: &'static str, op: FilterOp, ty: ColumnType, help: &'static str) -> Filter {
    Filter { arg, column, op, ty, help, or_field: None }
}

use ColumnType::{Boolean, Integer, Real, Text};
use FilterOp::{AtLeast, AtMost, Contains, Equals, Failed, LevelAtLeast, NotContains};

const LEVEL_COLUMN: Column = Column { one_of: LEVELS, ..req("level", "level", Text) };
const LEVEL_FILTERS: [Filter; 2] = [
    filter("level", "level", Equals, Text, "only this level"),
    filter("min_level", "level", LevelAtLeast, Text, "this level and more severe (debug < log < info < warn < error)"),
];
const URL_FILTER: Filter = filter("url", "url", Contains, Text, "the URL contains this text");
const URL_NOT_FILTER: Filter = filter(
    "url_not",
    "url",
    NotContains,
    Text,
    "the URL contains none of this text, or of these texts (a poll's path, the dev server's HMR client: \
     to see what else happened)",
);
const STATUS_FILTERS: [Filter; 2] = [
    filter("status_min", "status", AtLeast, Integer, "HTTP status at least"),
    filter("status_max", "status", AtMost, Integer, "HTTP status at most"),
];
const DURATION_FILTER: Filter =
    filter("duration_min", "duration", AtLeast, Real, "only requests that took at least this many ms (the slow ones)");
const FAILED_FILTER: Filter = filter(
    "failed",
    "status",
    Failed,
    Boolean,
    "true: only the requests that failed (an error reported by the browser or the page, or a status >= 400); \
     false: only the others (a status of 0 or none without an error is unknown, not failed)",
);

pub static LOGS: Kind = Kind {
    name: "logs",
    default_capacity: 50_000,
    columns: &[LEVEL_COLUMN, req("message", "message", Text), col("source", "source", Text), col("url", "url", Text)],
    filters: &[LEVEL_FILTERS[0], LEVEL_FILTERS[1], URL_FILTER, URL_NOT_FILTER],
    description: "console output, uncaught exceptions and unhandled rejections, CSP violations (source \"csp\"), \
                  elements that failed to load (source \"resource\"), a dev server's build errors (source \"dev-server\") and \
                  failures a framework answered with 200 (source \"framework\": SvelteKit's), from every frame",
    data_fields: &[
        "docStart",
        "location",
        "callers",
        "stack",
        "messageTruncated",
        "messageSize",
        "args",
        "method",
        "count",
        "group",
        "frameId",
        "frameUrl",
        "blockedURI",
        "violatedDirective",
        "effectiveDirective",
        "disposition",
        "sample",
        "resourceUrl",
        "pageText",
        "pageTextTruncated",
        "tag",
        "selector",
        "reason",
        "original",
        "sourcemap",
        "frames",
        "category",
        "requestId",
        "jsonFrom",
        "redacted",
        "worker",
    ],
    compact: &[
        pick("level", &["level"]),
        View { name: "message", from: &["message"], shape: Shape::Logged },
        pick("source", &["source"]),
        pick("url", &["url"]),
        pick("worker", &["worker"]),
        // The console groups a line was logged in, outermost first: a library's "Request" line
        // means something under its "[MSW] GET /api/products (200 OK)".
        pick("group", &["group"]),
    ],
    frames_page: Some("url"),
};

pub static NETWORK_WATERFALL: Kind = Kind {
    name: "network_waterfall",
    default_capacity: 20_000,
    columns: &[
        req("url", "url", Text),
        col("initiator_type", REQUEST_TYPE[1], Text),
        col("status", "responseStatus", Integer),
        col("duration", "duration", Real),
        col("method", "method", Text),
        col("error", "error", Text),
    ],
    filters: &[
        URL_FILTER,
        URL_NOT_FILTER,
        STATUS_FILTERS[0],
        STATUS_FILTERS[1],
        FAILED_FILTER,
        DURATION_FILTER,
        filter("method", "method", Equals, Text, "HTTP method, exact (e.g. POST)"),
        filter(
            "error",
            "error",
            Contains,
            Text,
            "the failure reason contains this text (e.g. net::, ERR_NAME_NOT_RESOLVED, CORS)",
        ),
        Filter {
            or_field: Some(REQUEST_TYPE[0]),
            ..filter(
                "type",
                "initiator_type",
                Equals,
                Text,
                "what made the request, as its entry's `type` says: type=fetch leaves a dev server's module \
                 loads out (not a webpack or Rspack hot update's manifest, `*.hot-update.json`, which its runtime \
                 fetches). fetch, xmlhttprequest, script, eventsource, websocket, worker are the same word in every row; \
                 otherwise the page's rows use Resource Timing's words (img, link, css, navigation, iframe, \
                 beacon, other), the browser's rows in deep mode Chrome's (image, stylesheet, font, media, \
                 main_frame, sub_frame, ping, other)",
            )
        },
    ],
    description: "one entry per request of the tab (documents, frames, workers, beacons, images, scripts ...), \
                  `source` \"browser\" or \"page\" by who saw it: method, status, Chrome's error for a failed \
                  one (net::ERR_...) or `failed: true`, redirect chain, frame, timings, a document's \
                  domContentLoaded and load (ms, may come later); a failed fetch/XHR says `at`, the \
                  page's line that made it. Failed = an error or a status >= 400; \
                  status 0 or none without an error is unknown",
    data_fields: &[
        "docStart",
        "type",
        "requestId",
        "frameId",
        "parentFrameId",
        "frameUrl",
        "initiator",
        "statusLine",
        "fromCache",
        "ip",
        "startedAt",
        "responseAt",
        "endedAt",
        "redirects",
        "finalUrl",
        "source",
        "startTime",
        "transferSize",
        "encodedBodySize",
        "decodedBodySize",
        "nextHopProtocol",
        "phases",
        "startUnknown",
        "location",
        "callers",
        "pageUrl",
        "original",
        "sourcemap",
        "frames",
        "fromTiming",
        "failed",
        "unfinished",
        "domContentLoaded",
        "load",
        "fromServiceWorker",
        "fromWorker",
        "connectionId",
        "afterFormPost",
        "operation",
        // A fetch's or an XHR's answer that is an HTML error page (a Turbo visit's, an htmx swap's):
        // the page the person then sees, listed with the documents.
        "errorPage",
        // A response that streams until closed (server-sent events, ndjson; deep mode): its end is
        // a close, its duration the stream's life.
        "stream",
        "redacted",
    ],
    compact: &[
        pick("method", &["method"]),
        pick("url", &["url"]),
        // A GraphQL request's operation, by name, a tRPC request's procedures: one POST /graphql apart from the next.
        pick("operation", &["operation"]),
        pick("status", &["responseStatus"]),
        pick("duration", &["duration"]),
        View { name: "size", from: &["transferSize", "encodedBodySize"], shape: Shape::Bytes },
        pick("type", &REQUEST_TYPE),
        pick("error", &["error"]),
        pick("failed", &["failed"]),
        pick("finalUrl", &["finalUrl"]),
        // A request the page's service worker took: what answered it, where known (a 503 its own
        // code made is no server's).
        pick("fromServiceWorker", &["fromServiceWorker"]),
        // A dedicated or shared worker's request (deep mode): the worker that made it.
        pick("fromWorker", &["fromWorker"]),
        // A document a form's POST redirected to: the form's action.
        pick("afterFormPost", &["afterFormPost"]),
        // A failed request's call site in the page's code (`at` leads where it maps).
        pick("location", &["location"]),
    ],
    frames_page: Some("pageUrl"),
};

pub static NETWORK_BODIES: Kind = Kind {
    name: "network_bodies",
    default_capacity: 2_000,
    columns: &[
        req("method", "method", Text),
        req("url", "url", Text),
        col("status", "status", Integer),
        col("duration", "duration", Real),
    ],
    filters: &[
        URL_FILTER,
        URL_NOT_FILTER,
        filter("method", "method", Equals, Text, "HTTP method, exact (e.g. POST)"),
        STATUS_FILTERS[0],
        STATUS_FILTERS[1],
        FAILED_FILTER,
        DURATION_FILTER,
    ],
    description: "fetch/XHR requests (every frame) and sendBeacon payloads with headers and bodies, joined to \
                  network_waterfall by requestId; failed = an `error`, `failed: true` or a status >= 400",
    data_fields: &[
        "docStart",
        "initiator",
        "statusText",
        "contentType",
        "requestHeaders",
        "requestBody",
        "requestBodySize",
        "requestBodyTruncated",
        "responseHeaders",
        "responseBody",
        "responseBodySize",
        "responseBodyTruncated",
        "error",
        "note",
        "redirected",
        "responseUrl",
        "requestId",
        "frameId",
        "frameUrl",
        "headersMs",
        "durationTo",
        "queued",
        "requestBodyStream",
        "responseBodyStream",
        "failed",
        "unfinished",
        "pageText",
        "pageTextTruncated",
        "operation",
        "redacted",
    ],
    compact: &[
        pick("method", &["method"]),
        pick("url", &["url"]),
        pick("operation", &["operation"]),
        pick("status", &["status"]),
        pick("duration", &["duration"]),
        View { name: "size", from: &["responseBodySize", "responseBody"], shape: Shape::Length },
        pick("error", &["error"]),
        pick("failed", &["failed"]),
        // Where the browser's redirects ended (a form's POST answered 303): the body is that URL's.
        pick("finalUrl", &["responseUrl"]),
        // A response that is an error page (HTML with a status >= 400): the page's text.
        View { name: "pageText", from: &["pageText"], shape: Shape::Shown },
    ],
    frames_page: None,
};

pub static WEBSOCKET_EVENTS: Kind = Kind {
    name: "websocket_events",
    default_capacity: 50_000,
    columns: &[
        req("connection_id", "connectionId", Text),
        Column { one_of: WS_EVENTS, ..req("event", "event", Text) },
        Column {
            one_of: DIRECTIONS,
            required: Required::When("event", "message"),
            ..col("direction", "direction", Text)
        },
        col("url", "url", Text),
    ],
    filters: &[
        URL_FILTER,
        URL_NOT_FILTER,
        filter("connectionId", "connection_id", Equals, Text, "one WebSocket or EventSource connection"),
        filter("direction", "direction", Equals, Text, "incoming or outgoing messages"),
    ],
    description: "WebSocket and EventSource (server-sent events) open, message, close and error events, and \
                  Socket.IO's long polls as its session's messages (one a packet); `transport` says which",
    data_fields: &[
        "docStart",
        "data",
        "size",
        "truncated",
        "protocol",
        "code",
        "reason",
        "wasClean",
        "closedBy",
        "transport",
        "eventType",
        "lastEventId",
        "readyState",
        "reconnecting",
        "frameId",
        "frameUrl",
        "redacted",
    ],
    compact: &[
        pick("connectionId", &["connectionId"]),
        pick("event", &["event"]),
        // An EventSource message's type: `message`, or the name its server gave it (`tick`).
        pick("eventType", &["eventType"]),
        pick("direction", &["direction"]),
        pick("data", &["data"]),
        // A close: its code and reason, and who ended it (page, server or network).
        pick("code", &["code"]),
        pick("reason", &["reason"]),
        pick("closedBy", &["closedBy"]),
        pick("url", &["url"]),
    ],
    frames_page: None,
};

pub static ACTIONS: Kind = Kind {
    name: "actions",
    default_capacity: 10_000,
    columns: &[req("type", "type", Text), col("selector", "selector", Text), col("url", "url", Text)],
    filters: &[
        filter(
            "type",
            "type",
            Equals,
            Text,
            "action type (click, input, change, submit, keydown, navigate, offline, online ...)",
        ),
        URL_FILTER,
        URL_NOT_FILTER,
    ],
    description: "user actions: clicks, input, submits, key presses, navigation, the browser going offline and online",
    data_fields: &[
        "docStart",
        "tag",
        "text",
        "x",
        "y",
        "inputType",
        "value",
        "valueTruncated",
        "checked",
        "key",
        "how",
        "from",
        "action",
        "method",
        "target",
        "dialog",
        // A submit htmx sends by its XHR (`hx-post` on the form): `action` and `method` are its.
        "via",
        "defaultPrevented",
        "synthetic",
        "frameId",
        "frameUrl",
        "redacted",
    ],
    compact: &[
        pick("type", &["type"]),
        pick("selector", &["selector"]),
        pick("text", &["text"]),
        pick("value", &["value", "checked", "key"]),
        pick("how", &["how"]),
        // Where and how a form posts (a submit's), and the frame an action was in (an iframe's load
        // reads as the top page's otherwise).
        pick("method", &["method"]),
        pick("action", &["action"]),
        pick("via", &["via"]),
        // A `method="dialog"` form's submit sends nothing: it closes this dialog.
        pick("dialog", &["dialog"]),
        // A submit the page's handler kept (a single-page app's form): the browser itself sent
        // nothing (Turbo and htmx send the form by fetch or XHR: its request is in the waterfall).
        pick("defaultPrevented", &["defaultPrevented"]),
        pick("frameId", &["frameId"]),
        pick("url", &["url"]),
    ],
    frames_page: None,
};

pub static EXTENSION_LOGS: Kind = Kind {
    name: "extension_logs",
    default_capacity: 5_000,
    columns: &[LEVEL_COLUMN, req("message", "message", Text)],
    filters: &LEVEL_FILTERS,
    description: "the extension's own warnings and errors",
    data_fields: &["context", "dropped", "redacted"],
    compact: &[pick("level", &["level"]), pick("message", &["message"])],
    frames_page: None,
};

/// Every kind, in the order they are listed to users.
pub static KINDS: [&Kind; 6] =
    [&LOGS, &NETWORK_WATERFALL, &NETWORK_BODIES, &WEBSOCKET_EVENTS, &ACTIONS, &EXTENSION_LOGS];

/// `tabId`: one tab's entries.
pub const TAB_ID_FILTER: Filter = filter(
    "tabId",
    "tab_id",
    Equals,
    Integer,
    "only entries of this Chrome tab (page and vitals: which tab; default the tracked tab)",
);
/// `since`: entries from a time on.
pub const SINCE_FILTER: Filter =
    filter("since", "ts", AtLeast, Integer, "only entries with ts >= this (ms since the epoch)");

/// Filters every kind accepts, whatever its columns.
pub static COMMON_FILTERS: [Filter; 2] = [TAB_ID_FILTER, SINCE_FILTER];

pub fn by_name(name: &str) -> Option<&'static Kind> {
    KINDS.iter().copied().find(|k| k.name == name)
}

/// A kind by its name, or an error that names every kind and `also` (the other
/// words the caller takes there, such as `all` or `errors`): the one parser of
/// kind names for the CLI, configure and the viewer.
pub fn named(name: &str, also: &[&'static str]) -> Result<&'static Kind, UnknownKind> {
    by_name(name).ok_or_else(|| UnknownKind { name: name.to_owned(), also: also.to_vec() })
}

/// A name that is no kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown kind \"{name}\": send one of {}", self.also.iter().copied().chain(names()).collect::<Vec<_>>().join(", "))]
pub struct UnknownKind {
    pub name: String,
    pub also: Vec<&'static str>,
}

pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

/// Levels at or above `level`, or None if `level` is not a known level.
pub fn levels_at_least(level: &str) -> Option<&'static [&'static str]> {
    LEVELS.iter().position(|l| *l == level).map(|i| &LEVELS[i..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn library_code_is_known_by_its_folder_or_its_file() {
        for library in [
            "node_modules",
            "vendor",
            "@vite",
            "htmx.min.js",
            "htmx.min.js:1:23203",
            "turbo.min-3f2a9c81.js",
            "jquery-3.7.1.min.js",
            "stimulus@3.2.2.mjs",
            ".vite",
            ".angular",
            "node_modules_next_dist_client_14zvornz047l2._.js:11741:12",
            "debug_toolbar",
        ] {
            assert!(is_library_segment(library), "{library}");
        }
        for app in [
            "src",
            "app.js",
            "turbocharger.js",
            "chart_controller.js",
            "htmx",
            "vendors.txt",
            "angular",
            "vite",
            "app_page_tsx_1a2b._.js",
        ] {
            assert!(!is_library_segment(app), "{app}");
        }
    }

    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for k in KINDS {
            assert_eq!(by_name(k.name).map(|f| f.name), Some(k.name));
        }
        assert!(by_name("cookies").is_none());
    }

    #[test]
    fn every_filter_names_a_column_of_its_kind() {
        for k in KINDS {
            for f in k.filters {
                assert!(k.column(f.column).is_some(), "{}: filter {} -> {}", k.name, f.arg, f.column);
            }
        }
    }

    #[test]
    fn min_level_keeps_the_more_severe_levels() {
        assert_eq!(levels_at_least("warn"), Some(&["warn", "error"][..]));
        assert_eq!(levels_at_least("debug").map(<[_]>::len), Some(5));
        assert_eq!(levels_at_least("fatal"), None);
    }
}
