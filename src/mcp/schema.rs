//! The tools' input schemas, generated from the kinds so that a new filter or
//! kind shows up in `tools/list` without another edit.

use serde_json::{Map, Value, json};

use crate::kind::{self, ColumnType, KINDS};
use crate::query::args::{DEFAULT_CURSOR_LIMIT, DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS, what_names};

pub const OBSERVE_DESCRIPTION: &str = "Read browser telemetry captured by the Gasoline extension: console logs and errors, \
network waterfall and bodies, WebSocket events, user actions, extension logs, and the current page, tabs and vitals. \
Entries come oldest first, each with its `id` and `tabId`. Every answer fits `max_chars` (default 100000) and says \
`total`, `has_more`, `next_offset` and `cursor`. Page with `limit`+`offset` (offset -N = last N), or, for live data \
(logs, websocket_events, actions), with `after_cursor`=<cursor of the previous answer>: it never repeats or skips an \
entry while new ones arrive, and polling with it returns only what is new. Narrow with `tabId` and the filters.";

pub const CONFIGURE_DESCRIPTION: &str = "Configure Gasoline. action=track_tab (tabId, or null to stop) sets the tab \
reported as tracked_tab_id; action=clear (what: a kind or \"all\") deletes captured entries (ids never restart, so \
cursors stay valid); action=capacity (what: a kind, capacity: N to change it) reads or sets a ring's size; \
action=status reports every ring's count, capacity and id range and the database path and size; \
action=export (format: \"har\" or \"jsonl\"; optional tabId, since, url, and for jsonl what: a kind) writes a HAR 1.2 \
file of the network capture or every entry as JSON lines under the data directory and answers its path and size, \
for the user to open (Chrome DevTools' Network panel imports the HAR).";

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
    props.insert("max_chars".into(), json!({ "type": "integer", "minimum": MIN_MAX_CHARS, "maximum": MAX_MAX_CHARS,
        "description": format!("longest answer in characters (default {DEFAULT_MAX_CHARS}); entries that do not fit are left for the next call") }));
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

pub fn configure() -> Map<String, Value> {
    let mut what = vec!["all"];
    what.extend(kind::names());
    let mut props = Map::new();
    props.insert(
        "action".into(),
        json!({ "type": "string", "enum": ["track_tab", "clear", "capacity", "status", "export"] }),
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
