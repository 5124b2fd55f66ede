//! The tools' input schemas, generated from the kinds so that a new filter or
//! kind shows up in `tools/list` without another edit.

use serde_json::{Map, Value, json};

use crate::kind::{self, ColumnType, KINDS};
use crate::query::args::{
    DEFAULT_CONTEXT_MS, DEFAULT_CURSOR_LIMIT, DEFAULT_MAX_CHARS, DEFAULT_MAX_TOKENS, MAX_IDS, MAX_MAX_CHARS,
    MAX_MAX_TOKENS, MIN_MAX_CHARS, MIN_MAX_TOKENS, what_names,
};
use crate::query::search;

pub const OBSERVE_DESCRIPTION: &str = "Read what the user's browser tabs did (Gasoline extension): console logs and \
errors, network, WebSocket, user actions, extension logs; page, tabs, vitals. Start with what=summary. Lists are \
compact, oldest first: each entry has its `id` and `t` (ms after common.t0); values shared by all entries are in \
`common`; logged objects show as JS literals. Drill into entries with id=N or ids=[...] (every stored field), or \
fields=[\"all\"]. Every answer fits max_tokens (default 8000) and max_chars (40000) and says total, has_more, \
next_offset and cursor. Page with limit+offset (offset -N = last N) or after_cursor=<cursor> (never repeats or skips, \
polls only what is new); before_cursor pages back (prev_cursor, has_older). Errors carry `context`: the same tab's \
failed requests, last action and navigation just before. since_navigation=true: only since the tab's last reload. \
`capture` says which sites the extension captures and whether it is paused (null: it never reported); an empty \
answer about a site outside it says how to capture it. search=\"text\" finds entries holding that text \
(case-insensitive, in messages, arguments, stacks, URLs, headers, bodies, WebSocket data, action targets), with any \
filter or paging. since_mark=NAME: only entries after a mark (configure action=mark). what=compare: error groups \
new/gone/changed, requests newly failing or fixed, warnings new/gone and vitals before -> after, across mark=NAME \
(from the mark or page load before it) or, without mark, across the tab's last two page loads.";

pub const CONFIGURE_DESCRIPTION: &str = "Configure Gasoline. action=track_tab (tabId, or null to stop) sets the tab \
reported as tracked_tab_id; action=clear (what: a kind or \"all\") deletes captured entries (ids never restart, so \
cursors stay valid); action=capacity (what: a kind, capacity: N to change it) reads or sets a ring's size; \
action=status reports every ring's count, capacity and id range, the database path and size, and the capture \
state the extension last reported; \
action=export (format: \"har\" or \"jsonl\"; optional tabId, since, url, and for jsonl what: a kind) writes a HAR 1.2 \
file of the network capture or every entry as JSON lines under the data directory and answers its path and size, \
for the user to open (Chrome DevTools' Network panel imports the HAR); action=mark (name) names this moment \
(setting a name again moves it): observe since_mark=name reads what followed, observe what=compare mark=name \
compares before and after it.";

fn integer(description: &str) -> Value {
    json!({ "type": "integer", "description": description })
}

pub fn observe() -> Map<String, Value> {
    let mut props = Map::new();
    props.insert("what".into(), json!({ "type": "string", "enum": what_names(), "description": "what to read" }));
    props.insert("limit".into(), json!({ "type": "integer", "minimum": 0,
        "description": format!("page size; 0 or omitted = all that fit max_chars (cursor reads default to {DEFAULT_CURSOR_LIMIT})") }));
    props.insert(
        "offset".into(),
        integer("0-based position of the first entry; -N = the last N entries. Not with a cursor."),
    );
    props.insert("after_cursor".into(), json!({ "type": "integer", "minimum": 0,
        "description": "entries with id > this (pass the `cursor` of the previous answer); stable under live appends" }));
    props.insert(
        "before_cursor".into(),
        json!({ "type": "integer", "minimum": 0,
        "description": "the newest entries with id < this, still oldest first: pages backwards (pass `prev_cursor`)" }),
    );
    props.insert(
        "tabId".into(),
        integer("only entries of this Chrome tab (page and vitals: which tab; default the tracked tab)"),
    );
    props.insert("since".into(), integer("only entries with ts >= this (ms since the epoch)"));
    props.insert("max_tokens".into(), json!({ "type": "integer", "minimum": MIN_MAX_TOKENS, "maximum": MAX_MAX_TOKENS,
        "description": format!("largest answer in tokens (default {DEFAULT_MAX_TOKENS}); the rest is left for the next call") }));
    props.insert(
        "max_chars".into(),
        json!({ "type": "integer", "minimum": MIN_MAX_CHARS, "maximum": MAX_MAX_CHARS,
        "description": format!("largest answer in characters (default {DEFAULT_MAX_CHARS})") }),
    );
    props.insert(
        "fields".into(),
        json!({ "type": "array", "items": { "type": "string" },
        "description": "field names to return instead of the compact set, or [\"all\"] for every stored field" }),
    );
    props.insert("id".into(), integer("one entry, whole"));
    props.insert(
        "ids".into(),
        json!({ "type": "array", "items": { "type": "integer" }, "maxItems": MAX_IDS,
        "description": format!("up to {MAX_IDS} entries, whole") }),
    );
    props.insert(
        "since_navigation".into(),
        json!({ "type": "boolean", "description": "only entries since the tab's last load or reload (tabId or the tracked tab)" }),
    );
    props.insert(
        "search".into(),
        json!({ "type": "string", "minLength": 1, "maxLength": search::MAX_CHARS,
        "description": "only entries holding this text, case-insensitive, as the page produced it (messages, arguments, stacks, URLs, headers, bodies, WebSocket data, action targets); quotes, %, _, * are plain characters" }),
    );
    props.insert(
        "since_mark".into(),
        json!({ "type": "string", "description": "only entries after this named mark (configure action=mark); not for compare" }),
    );
    props.insert(
        "mark".into(),
        json!({ "type": "string", "description": "compare: the mark compared across (default: the tab's last two page loads)" }),
    );
    props.insert("group".into(), json!({ "type": "boolean", "description": "errors: fingerprint groups with counts" }));
    props.insert(
        "context".into(),
        json!({ "type": "string", "enum": ["ids", "full"], "description": "errors: related entries as ids (default) or inline" }),
    );
    props.insert(
        "context_ms".into(),
        json!({ "type": "integer", "minimum": 0,
        "description": format!("errors: how far back context looks (default {DEFAULT_CONTEXT_MS} ms)") }),
    );
    for k in KINDS {
        for f in k.filters {
            let applies: Vec<&str> = KINDS.iter().filter(|o| o.filter(f.arg).is_some()).map(|o| o.name).collect();
            let ty = match f.ty {
                ColumnType::Text => "string",
                ColumnType::Integer => "integer",
                ColumnType::Real => "number",
            };
            let mut schema =
                json!({ "type": ty, "description": format!("{} ({})", filter_meaning(f.arg), applies.join(", ")) });
            if f.column == "level" {
                schema["enum"] = json!(kind::LEVELS);
            }
            props.entry(f.arg).or_insert(schema);
        }
    }
    object(props, &["what"])
}

fn filter_meaning(arg: &str) -> &'static str {
    match arg {
        "level" => "only this level",
        "min_level" => "this level and more severe (debug < log < info < warn < error)",
        "url" => "url contains this text",
        "method" => "HTTP method, exact (e.g. POST)",
        "status_min" => "HTTP status at least",
        "status_max" => "HTTP status at most",
        "connectionId" => "one WebSocket connection",
        "direction" => "incoming or outgoing messages",
        "type" => "action type (click, input, change, submit, keydown, navigation)",
        _ => "filter",
    }
}

/// `_meta` of the observe tool: the longest answer it can give, so that a client
/// that writes long results to a file (Claude Code, past 50,000 characters by
/// default) keeps an answer inline when the agent raised `max_chars` itself.
pub fn observe_meta() -> rmcp::model::MetaObject {
    let mut meta = Map::new();
    meta.insert("anthropic/maxResultSizeChars".into(), json!(MAX_MAX_CHARS));
    rmcp::model::MetaObject::from(meta)
}

pub fn configure() -> Map<String, Value> {
    let mut what = vec!["all"];
    what.extend(kind::names());
    let mut props = Map::new();
    props.insert(
        "action".into(),
        json!({ "type": "string", "enum": ["track_tab", "clear", "capacity", "status", "export", "mark"] }),
    );
    props.insert(
        "what".into(),
        json!({ "type": "string", "enum": what, "description": "the kind to clear, size or export as jsonl (\"all\" for clear and export)" }),
    );
    props.insert(
        "tabId".into(),
        json!({ "type": ["integer", "null"], "description": "track_tab: the tab to track; null stops tracking. export: only this tab" }),
    );
    props.insert(
        "format".into(),
        json!({ "type": "string", "enum": ["har", "jsonl"], "description": "export: the file format" }),
    );
    props.insert(
        "since".into(),
        json!({ "type": ["integer", "string"],
        "description": "export: only entries at or after this time (epoch ms, RFC 3339, or an age like \"10m\")" }),
    );
    props.insert(
        "url".into(),
        json!({ "type": "string", "description": "export: only entries whose URL contains this" }),
    );
    props.insert(
        "name".into(),
        json!({ "type": "string", "minLength": 1, "maxLength": crate::query::args::MAX_MARK_NAME,
        "description": "mark: the mark's name (e.g. \"before-fix\")" }),
    );
    props.insert(
        "capacity".into(),
        json!({ "type": "integer", "minimum": 1, "description": "capacity: the new ring size" }),
    );
    object(props, &["action"])
}

fn object(props: Map<String, Value>, required: &[&str]) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    schema.insert("required".into(), json!(required));
    schema.insert("additionalProperties".into(), json!(false));
    schema
}
