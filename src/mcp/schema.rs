//! The tools' descriptions and input schemas; the schemas are made from
//! `query::arguments` (every argument described once) and the kinds' filters,
//! so a new argument, filter or kind shows up in `tools/list` without another edit.

use serde_json::{Map, Value, json};

use crate::query::args::MAX_MAX_CHARS;
use crate::query::arguments;

pub const OBSERVE_DESCRIPTION: &str = "Read what the user's browser tabs did (Gasoline extension): console logs and \
errors, network, WebSocket, user actions, extension logs; page, tabs, vitals. Start with what=summary. Lists are \
compact, oldest first: each entry has its `id` and `t` (ms after common.t0); values shared by all entries are in \
`common`; logged objects show as JS literals. Drill into entries with id=N or ids=[...] (every stored field), or \
fields=[\"all\"]. Every answer fits max_tokens (default 8000) and max_chars (40000); a list of entries says total, has_more, \
next_offset and cursor. Page with limit+offset (offset -N = last N) or after_cursor=<cursor> (never repeats or skips, \
polls only what is new); before_cursor pages back (prev_cursor, has_older). Errors carry `context`: the same tab's \
failed requests, last action and navigation just before. since_navigation=true: only since the tab's last reload. \
`capture` says which sites the extension captures and whether it is paused (null: it never reported); an empty \
answer about a site outside it says how to capture it. search=\"text\" finds entries holding that text \
(case-insensitive, in messages, arguments, stacks, URLs, headers, bodies, WebSocket data, action targets), with any \
filter or paging. since_mark=NAME: only entries after a mark (configure action=mark). what=compare: error groups \
new/gone/changed/recurring, requests newly failing or fixed, warnings new/gone/recurring and vitals before -> after, across mark=NAME \
(from the mark or page load before it) or, without mark, across the tab's last two page loads. `viewer` is a \
link to show the user what the answer shows (replace {id} with an entry's id).";

pub const CONFIGURE_DESCRIPTION: &str = "Configure Gasoline. action=track_tab (tabId, or null to stop) sets the tab \
reported as tracked_tab_id; action=clear (what: a kind or \"all\") deletes captured entries (ids never restart, so \
cursors stay valid); action=capacity (what: a kind, capacity: N to change it) reads or sets a ring's size; \
action=status reports every ring's count, capacity, id range and the times of its oldest and newest entries (ts), the database path and size, and the capture \
state the extension last reported; \
action=export (format: \"har\" or \"jsonl\"; optional tabId, since, url, and for jsonl what: a kind) writes a HAR 1.2 \
file of the network capture or every entry as JSON lines under the data directory and answers its path and size, \
for the user to open (Chrome DevTools' Network panel imports the HAR); action=mark (name) names this moment \
(setting a name again moves it): observe since_mark=name reads what followed, observe what=compare mark=name \
compares before and after it.";

/// observe's input schema: made from the arguments table and the kinds' filters.
pub fn observe() -> Map<String, Value> {
    object(arguments::observe_properties(), &["what"])
}

/// `_meta` of the observe tool: the longest answer it can give, so that a client
/// that writes long results to a file (Claude Code, past 50,000 characters by
/// default) keeps an answer inline when the agent raised `max_chars` itself.
pub fn observe_meta() -> rmcp::model::MetaObject {
    let mut meta = Map::new();
    meta.insert("anthropic/maxResultSizeChars".into(), json!(MAX_MAX_CHARS));
    rmcp::model::MetaObject::from(meta)
}

/// configure's input schema: made from the arguments table.
pub fn configure() -> Map<String, Value> {
    object(arguments::configure_properties(), &["action"])
}

fn object(props: Map<String, Value>, required: &[&str]) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    schema.insert("required".into(), json!(required));
    schema.insert("additionalProperties".into(), json!(false));
    schema
}
