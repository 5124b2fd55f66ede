//! Every argument of the `observe` and `configure` tools, described once: name,
//! type, bounds, default, where it applies and what it means. The tools' input
//! schemas (`mcp/schema.rs`), the parsers' checks of names, types and bounds
//! (`args.rs`, `mcp/configure.rs`) and the reference tables of docs/observe.md
//! are all made from these tables; the filters come from `kind.rs`.

use serde_json::{Map, Value, json};

use super::args::{
    DEFAULT_CONTEXT_MS, DEFAULT_CURSOR_LIMIT, DEFAULT_MAX_CHARS, DEFAULT_MAX_TOKENS, MAX_CONTEXT_MS, MAX_FIELDS,
    MAX_IDS, MAX_MARK_NAME, MAX_MAX_CHARS, MAX_MAX_TOKENS, MIN_MAX_CHARS, MIN_MAX_TOKENS, What,
};
use super::search;
use crate::kind::{self, ColumnType, Filter, KINDS};

/// The JSON type an argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Integer,
    /// An integer, or null to unset.
    IntegerOrNull,
    /// Epoch ms, or a time as text (RFC 3339, an age like "10m").
    IntegerOrText,
    Boolean,
    Text,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A list of strings.
    Texts,
    /// A list of integers.
    Integers,
}

/// Which `what`s (observe) or actions (configure) an argument applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applies(u16);

impl Applies {
    /// Every kind's ring and `errors`: the paginated whats.
    pub const KINDS: Applies = Applies(1);
    /// `errors` only.
    pub const ERRORS: Applies = Applies(1 << 1);
    pub const SUMMARY: Applies = Applies(1 << 2);
    pub const COMPARE: Applies = Applies(1 << 3);
    /// `page`, `tabs`, `vitals`.
    pub const STATE: Applies = Applies(1 << 4);
    /// `logs` only.
    pub const LOGS: Applies = Applies(1 << 5);
    pub const EVERY_WHAT: Applies = Applies(0b11_1111);

    pub const TRACK_TAB: Applies = Applies(1 << 8);
    pub const CLEAR: Applies = Applies(1 << 9);
    pub const CAPACITY: Applies = Applies(1 << 10);
    pub const STATUS: Applies = Applies(1 << 11);
    pub const EXPORT: Applies = Applies(1 << 12);
    pub const MARK: Applies = Applies(1 << 13);
    pub const EVERY_ACTION: Applies = Applies(0b11_1111 << 8);

    pub const fn or(self, other: Applies) -> Applies {
        Applies(self.0 | other.0)
    }

    pub const fn has(self, other: Applies) -> bool {
        self.0 & other.0 != 0
    }

    /// The set a `what` belongs to.
    pub fn of_what(what: What) -> Applies {
        match what {
            What::Kind { errors_only: true, .. } => Applies::KINDS.or(Applies::ERRORS),
            What::Kind { kind, .. } if kind.name == kind::LOGS.name => Applies::KINDS.or(Applies::LOGS),
            What::Kind { .. } => Applies::KINDS,
            What::Summary => Applies::SUMMARY,
            What::Compare => Applies::COMPARE,
            What::Page | What::Tabs | What::Vitals => Applies::STATE,
        }
    }

    /// How people read the set: "errors", "the paginated kinds and summary", "export, mark".
    pub fn describe(self) -> String {
        if self == Applies::EVERY_WHAT || self == Applies::EVERY_ACTION {
            return "every".into();
        }
        const NAMES: [(Applies, &str); 12] = [
            (Applies::KINDS, "the paginated kinds"),
            (Applies::ERRORS, "errors"),
            (Applies::LOGS, "logs"),
            (Applies::SUMMARY, "summary"),
            (Applies::COMPARE, "compare"),
            (Applies::STATE, "page/tabs/vitals"),
            (Applies::TRACK_TAB, "track_tab"),
            (Applies::CLEAR, "clear"),
            (Applies::CAPACITY, "capacity"),
            (Applies::STATUS, "status"),
            (Applies::EXPORT, "export"),
            (Applies::MARK, "mark"),
        ];
        let names: Vec<&str> = NAMES.iter().filter(|(a, _)| self.has(*a)).map(|(_, n)| *n).collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => (*one).to_string(),
            [first @ .., last] => format!("{} and {last}", first.join(", ")),
        }
    }
}

/// One argument of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    pub name: &'static str,
    pub ty: Type,
    /// Least value (integers), length (text) or items (lists), if bounded.
    pub min: Option<i64>,
    /// Greatest value (integers), length (text) or items (lists), if bounded.
    pub max: Option<i64>,
    /// The value when the argument is left out, if it has one worth saying.
    pub default: Option<i64>,
    pub applies: Applies,
    /// What it does, in a phrase (the schema's description and the docs' "meaning").
    pub help: &'static str,
}

const fn arg(name: &'static str, ty: Type, applies: Applies, help: &'static str) -> Arg {
    Arg { name, ty, min: None, max: None, default: None, applies, help }
}

const fn bounded(arg: Arg, min: i64, max: Option<i64>, default: Option<i64>) -> Arg {
    Arg { min: Some(min), max, default, ..arg }
}

use Type::{Boolean, Integer, IntegerOrNull, IntegerOrText, Integers, OneOf, Text, Texts};

const KINDS_: Applies = Applies::KINDS;
const MARKED: Applies = Applies::KINDS.or(Applies::SUMMARY);

// Help texts that name a number say it here too, so they cannot drift apart.
const _: () = assert!(DEFAULT_CURSOR_LIMIT == 100 && MAX_IDS == 50);

/// `observe`'s arguments besides `what` and the filters of `kind.rs`, in the order the schema lists them.
pub static OBSERVE: [Arg; 18] = [
    bounded(
        arg("limit", Integer, KINDS_, "page size; 0 or omitted = all that fit the budget (cursor reads: 100)"),
        0,
        None,
        None,
    ),
    arg(
        "offset",
        Integer,
        KINDS_,
        "0-based position of the first entry, oldest first; -N = the last N entries. Not with a cursor",
    ),
    bounded(
        arg(
            "after_cursor",
            Integer,
            KINDS_,
            "entries with id > this (the `cursor` of the previous answer): stable under live appends, the way to poll",
        ),
        0,
        None,
        None,
    ),
    bounded(
        arg(
            "before_cursor",
            Integer,
            KINDS_,
            "the newest entries with id < this, still oldest first: pages backwards (pass `prev_cursor` while `has_older`)",
        ),
        0,
        None,
        None,
    ),
    arg("tabId", Integer, Applies::EVERY_WHAT, kind::TAB_ID_FILTER.help),
    arg("since", Integer, MARKED, kind::SINCE_FILTER.help),
    bounded(
        arg("max_tokens", Integer, Applies::EVERY_WHAT, "largest answer in tokens; the rest is left for the next call"),
        MIN_MAX_TOKENS as i64,
        Some(MAX_MAX_TOKENS as i64),
        Some(DEFAULT_MAX_TOKENS as i64),
    ),
    bounded(
        arg(
            "max_chars",
            Integer,
            Applies::EVERY_WHAT,
            "largest answer in characters (UTF-16 units, as JavaScript counts them)",
        ),
        MIN_MAX_CHARS as i64,
        Some(MAX_MAX_CHARS as i64),
        Some(DEFAULT_MAX_CHARS as i64),
    ),
    bounded(
        arg(
            "fields",
            Texts,
            KINDS_,
            "field names to return instead of the compact set (e.g. [\"url\", \"status\", \"responseHeaders\"]), or [\"all\"] for every stored field",
        ),
        1,
        Some(MAX_FIELDS as i64),
        None,
    ),
    arg(
        "id",
        Integer,
        KINDS_,
        "one entry, whole (every stored field; with `fields`, those); not with paging arguments",
    ),
    bounded(
        arg(
            "ids",
            Integers,
            KINDS_,
            "up to 50 entries, whole (with `fields`, those fields); not with paging arguments",
        ),
        1,
        Some(MAX_IDS as i64),
        None,
    ),
    arg(
        "since_navigation",
        Boolean,
        MARKED.or(Applies::STATE),
        "true: only the tab's entries at or after its latest load or reload (the top frame's; not pushState, hash changes or an iframe's load), by time; tabId, else the tracked tab, else the only tab seen (`only_tab_id`), else the tab loaded last (`loaded_last_tab_id`); the answer names the `navigation`, and its `soft_navigations` since (a single-page app's route changes: how many, and the latest, where the tab is now)",
    ),
    bounded(
        arg(
            "search",
            Text,
            KINDS_,
            "only entries holding this text, case-insensitive, as the page produced it (messages, arguments, stacks, URLs, headers, bodies, WebSocket data, action targets); quotes, %, _, * are plain characters",
        ),
        1,
        Some(search::MAX_CHARS as i64),
        None,
    ),
    bounded(
        arg(
            "since_mark",
            Text,
            MARKED,
            "only entries after this named mark (configure action=mark); the answer names the `mark` and what the rings lost since",
        ),
        1,
        Some(MAX_MARK_NAME as i64),
        None,
    ),
    bounded(
        arg("mark", Text, Applies::COMPARE, "the mark compared across (default: the tab's last two page loads)"),
        1,
        Some(MAX_MARK_NAME as i64),
        None,
    ),
    arg(
        "group",
        Boolean,
        Applies::ERRORS.or(Applies::LOGS),
        "fingerprint groups (count, first and last id, an example and where it happened, `at`; `uncaught: true` for an error nobody caught; `fixed` for a failing page or a build error the page said was fixed since) instead of occurrences: errors, a page or frame that answered an error status and was not loaded fine since first, then what the dev server could not build and is not fixed, then what nobody caught, then the most frequent, as frequent the earliest first; logs (each group with its `level`), warnings first, the app's ahead of its libraries', one group of each tag (`[intlify]`) before a second, then the most frequent (no offset or cursor)",
    ),
    arg(
        "context",
        OneOf(&["ids", "full"]),
        Applies::ERRORS,
        "related entries before each error (the tab's failed requests, last action, navigation; the message a WebSocket or EventSource handler was handling; the response whose script threw) as ids (default) or inline",
    ),
    bounded(
        arg("context_ms", Integer, Applies::ERRORS, "how far back an error's context looks, in ms"),
        0,
        Some(MAX_CONTEXT_MS),
        Some(DEFAULT_CONTEXT_MS),
    ),
];

/// `configure`'s actions, in the order the schema lists them.
pub const ACTIONS: [(&str, Applies); 6] = [
    ("track_tab", Applies::TRACK_TAB),
    ("clear", Applies::CLEAR),
    ("capacity", Applies::CAPACITY),
    ("status", Applies::STATUS),
    ("export", Applies::EXPORT),
    ("mark", Applies::MARK),
];

/// `configure`'s arguments besides `action` and `what`.
pub static CONFIGURE: [Arg; 6] = [
    arg(
        "tabId",
        IntegerOrNull,
        Applies::TRACK_TAB.or(Applies::EXPORT),
        "track_tab: the tab to track, null stops tracking; export: only this tab",
    ),
    arg(
        "format",
        OneOf(&["har", "jsonl"]),
        Applies::EXPORT,
        "the file format: HAR 1.2 of the network capture, or every entry as JSON lines",
    ),
    arg(
        "since",
        IntegerOrText,
        Applies::EXPORT,
        "only entries at or after this time (epoch ms, RFC 3339, or an age like \"10m\")",
    ),
    arg("url", Text, Applies::EXPORT, "only entries whose URL contains this"),
    bounded(
        arg("name", Text, Applies::MARK, "the mark's name (e.g. \"before-fix\"); setting a name again moves it"),
        1,
        Some(MAX_MARK_NAME as i64),
        None,
    ),
    bounded(
        arg(
            "capacity",
            Integer,
            Applies::CAPACITY,
            "the new ring size (the ring is trimmed at once); leave out to read it",
        ),
        1,
        Some(kind::MAX_CAPACITY),
        None,
    ),
];

/// `configure`'s `what`: which actions take it, and what it means.
pub const CONFIGURE_WHAT: (Applies, &str) = (
    Applies::CLEAR.or(Applies::CAPACITY).or(Applies::EXPORT),
    "the kind to clear, size or export as jsonl (\"all\" for clear and export)",
);

/// Every observe argument that applies to `what`, with the filters `kind.rs` gives it.
pub fn observe_names(what: What) -> Vec<&'static str> {
    let set = Applies::of_what(what);
    let mut names = vec!["what"];
    names.extend(observe_args().filter(|a| a.applies.has(set)).map(|a| a.name));
    if let What::Kind { kind, errors_only } = what {
        // Every error is level error: the level filters would only confuse.
        let level = |f: &&Filter| errors_only && f.column == "level";
        names.extend(kind.filters.iter().filter(|f| !level(f)).map(|f| f.arg));
    }
    names
}

/// `observe`'s own arguments (not `what`, nor the filters of `kind.rs`).
pub fn observe_args() -> impl Iterator<Item = &'static Arg> {
    OBSERVE.iter()
}

/// The observe argument called `name`, if it is one of the table's.
pub fn observe_arg(name: &str) -> Option<&'static Arg> {
    observe_args().find(|a| a.name == name)
}

/// Where an argument named `name` applies, for an error message: "errors", "network_waterfall, network_bodies", ….
pub fn observe_applies(name: &str) -> Option<String> {
    if let Some(a) = observe_arg(name) {
        return Some(a.applies.describe());
    }
    let kinds = filter_kinds(name);
    (!kinds.is_empty()).then(|| kinds.join(", "))
}

/// The configure arguments `action` takes.
pub fn configure_names(action: Applies) -> Vec<&'static str> {
    let mut names = vec!["action"];
    if CONFIGURE_WHAT.0.has(action) {
        names.push("what");
    }
    names.extend(CONFIGURE.iter().filter(|a| a.applies.has(action)).map(|a| a.name));
    names
}

/// The schema of one argument.
pub fn schema(a: &Arg) -> Value {
    let mut s = match a.ty {
        Integer => json!({ "type": "integer" }),
        IntegerOrNull => json!({ "type": ["integer", "null"] }),
        IntegerOrText => json!({ "type": ["integer", "string"] }),
        Boolean => json!({ "type": "boolean" }),
        Text => json!({ "type": "string" }),
        OneOf(values) => json!({ "type": "string", "enum": values }),
        Texts => json!({ "type": "array", "items": { "type": "string" } }),
        Integers => json!({ "type": "array", "items": { "type": "integer" } }),
    };
    let (min_key, max_key) = match a.ty {
        Text => ("minLength", "maxLength"),
        Texts | Integers => ("minItems", "maxItems"),
        _ => ("minimum", "maximum"),
    };
    if let Some(min) = a.min {
        s[min_key] = json!(min);
    }
    if let Some(max) = a.max {
        s[max_key] = json!(max);
    }
    if let Some(default) = a.default {
        s["default"] = json!(default);
    }
    s["description"] = json!(a.help);
    s
}

/// The schema of a filter of `kind.rs`, naming the kinds that take it.
pub fn filter_schema(f: &Filter) -> Value {
    let ty = match f.ty {
        ColumnType::Text => "string",
        ColumnType::Integer => "integer",
        ColumnType::Real => "number",
        ColumnType::Boolean => "boolean",
    };
    let mut s = json!({ "type": ty, "description": filter_help(f.arg) });
    if let Some(values) = filter_values(f) {
        s["enum"] = json!(values);
    }
    if f.op == kind::FilterOp::NotContains {
        s["type"] = json!([ty, "array"]);
        s["items"] = json!({ "type": ty });
        s["minItems"] = json!(1);
        s["maxItems"] = json!(kind::MAX_EXCLUDED);
    }
    s
}

/// What a filter named `arg` means, each meaning with the whats that declare it so, in the order
/// `what` lists them: one meaning for most; two for `type` (a request's, an action's).
fn filter_meanings(arg: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    let mut meanings: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for what in paginated_whats().filter(|w| observe_names(*w).contains(&arg)) {
        let What::Kind { kind, .. } = what else { continue };
        let Some(f) = kind.filters.iter().find(|f| f.arg == arg) else { continue };
        match meanings.iter_mut().find(|(help, _)| *help == f.help) {
            Some((_, whats)) => whats.push(what.name()),
            None => meanings.push((f.help, vec![what.name()])),
        }
    }
    meanings
}

/// Several meanings of one filter as "kinds: help; kinds: help", or `None` for one meaning.
fn several_meanings(meanings: &[(&str, Vec<&str>)]) -> Option<String> {
    (meanings.len() > 1).then(|| {
        meanings.iter().map(|(help, whats)| format!("{}: {help}", whats.join(", "))).collect::<Vec<_>>().join("; ")
    })
}

/// What a filter named `arg` means, and where: "help (kinds)", or each meaning with its kinds.
fn filter_help(arg: &str) -> String {
    let meanings = filter_meanings(arg);
    several_meanings(&meanings).unwrap_or_else(|| match meanings.first() {
        Some((help, whats)) => format!("{help} ({})", whats.join(", ")),
        None => String::new(),
    })
}

/// The values a filter takes when its column holds one of a few (`level`, `direction`...).
pub fn filter_values(f: &Filter) -> Option<&'static [&'static str]> {
    KINDS.iter().find_map(|k| k.column(f.column).filter(|c| !c.one_of.is_empty()).map(|c| c.one_of))
}

/// The paginated whats a filter named `arg` applies to, as `observe_names` decides it (`errors`
/// takes the filters of logs but the level ones), in the order `what` lists them.
fn filter_kinds(arg: &str) -> Vec<&'static str> {
    paginated_whats().filter(|w| observe_names(*w).contains(&arg)).map(|w| w.name()).collect()
}

/// Every kind's ring, with `errors` (the view of logs) after logs.
fn paginated_whats() -> impl Iterator<Item = What> {
    KINDS.iter().copied().flat_map(|kind| {
        let errors = (kind == &kind::LOGS).then_some(What::Kind { kind, errors_only: true });
        std::iter::once(What::Kind { kind, errors_only: false }).chain(errors)
    })
}

/// Every filter of every kind, once each (the first kind's declaration), in kind order.
pub fn filters() -> Vec<&'static Filter> {
    let mut seen: Vec<&'static Filter> = Vec::new();
    for k in KINDS.iter().copied() {
        for f in k.filters {
            if !seen.iter().any(|s| s.arg == f.arg) {
                seen.push(f);
            }
        }
    }
    seen
}

/// The properties of the observe schema: `what`, the table, then the filters.
pub fn observe_properties() -> Map<String, Value> {
    let mut props = Map::new();
    props.insert(
        "what".into(),
        json!({ "type": "string", "enum": super::args::what_names(), "description": "what to read" }),
    );
    for a in observe_args() {
        props.insert(a.name.into(), schema(a));
    }
    for f in filters() {
        props.entry(f.arg).or_insert_with(|| filter_schema(f));
    }
    props
}

/// The properties of the configure schema.
pub fn configure_properties() -> Map<String, Value> {
    let mut props = Map::new();
    let actions: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
    props.insert("action".into(), json!({ "type": "string", "enum": actions, "description": "what to do" }));
    let mut what = vec!["all"];
    what.extend(kind::names());
    props.insert("what".into(), json!({ "type": "string", "enum": what, "description": CONFIGURE_WHAT.1 }));
    for a in &CONFIGURE {
        props.insert(a.name.into(), schema(a));
    }
    props
}

/// A Markdown table cell: `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn type_name(a: &Arg) -> String {
    let bounds = match (a.min, a.max) {
        (Some(min), Some(max)) => format!(", {min} to {max}"),
        (Some(min), None) => format!(", at least {min}"),
        (None, Some(max)) => format!(", at most {max}"),
        (None, None) => String::new(),
    };
    let default = a.default.map(|d| format!(", default {d}")).unwrap_or_default();
    let ty = match a.ty {
        Integer => "integer".to_string(),
        IntegerOrNull => "integer or null".into(),
        IntegerOrText => "integer or text".into(),
        Boolean => "boolean".into(),
        Text => "text".into(),
        OneOf(values) => values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(" or "),
        Texts => "list of text".into(),
        Integers => "list of integers".into(),
    };
    let unit = match a.ty {
        Text => " characters",
        Texts | Integers => " items",
        _ => "",
    };
    let bounds = if bounds.is_empty() { bounds } else { format!("{bounds}{unit}") };
    format!("{ty}{bounds}{default}")
}

/// The reference table of observe's arguments (docs/observe.md holds it verbatim).
pub fn observe_reference() -> String {
    let mut out = String::from("| argument | applies to | type | meaning |\n|---|---|---|---|\n");
    for a in observe_args() {
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", a.name, a.applies.describe(), type_name(a), cell(a.help)));
    }
    for f in filters() {
        let ty = match (f.ty, filter_values(f)) {
            (_, Some(values)) => values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(" or "),
            (ColumnType::Text, None) if f.op == kind::FilterOp::NotContains => {
                format!("text or list of text (up to {})", kind::MAX_EXCLUDED)
            }
            (ColumnType::Text, None) => "text".into(),
            (ColumnType::Integer, None) => "integer".into(),
            (ColumnType::Real, None) => "number".into(),
            (ColumnType::Boolean, None) => "boolean".into(),
        };
        let kinds = filter_kinds(f.arg).join(", ");
        // One meaning: its help alone (the column before names the kinds); several: each with its kinds.
        let meanings = filter_meanings(f.arg);
        let meaning = several_meanings(&meanings).unwrap_or_else(|| f.help.to_owned());
        out.push_str(&format!("| `{}` | {kinds} | {ty} | {} |\n", f.arg, cell(&meaning)));
    }
    out
}

/// The reference table of configure's arguments (docs/observe.md holds it verbatim).
pub fn configure_reference() -> String {
    let mut out = String::from("| argument | actions | type | meaning |\n|---|---|---|---|\n");
    out.push_str(&format!(
        "| `what` | {} | a kind, or `all` | {} |\n",
        CONFIGURE_WHAT.0.describe(),
        cell(CONFIGURE_WHAT.1)
    ));
    for a in &CONFIGURE {
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", a.name, a.applies.describe(), type_name(a), cell(a.help)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_argument_is_described_once() {
        let mut names: Vec<&str> = observe_args().map(|a| a.name).chain(filters().iter().map(|f| f.arg)).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "an observe argument is both in the table and a filter: {names:?}");
        assert!(observe_args().all(|a| !a.help.is_empty()));
    }

    #[test]
    fn the_docs_hold_the_generated_reference() {
        let docs = include_str!("../../docs/observe.md");
        let observe = observe_reference();
        let configure = configure_reference();
        assert!(docs.contains(&observe), "docs/observe.md must hold this table of observe's arguments:\n{observe}");
        assert!(
            docs.contains(&configure),
            "docs/observe.md must hold this table of configure's arguments:\n{configure}"
        );
    }

    #[test]
    fn a_filter_names_every_what_it_applies_to() {
        let url = filter_schema(kind::LOGS.filter("url").expect("logs take url"));
        assert_eq!(
            url["description"],
            "the URL contains this text (logs, errors, network_waterfall, network_bodies, websocket_events, actions)"
        );
        // Every error is level error: errors take no level filter.
        assert_eq!(filter_kinds("min_level"), ["logs", "extension_logs"]);
        assert_eq!(
            observe_applies("url").as_deref(),
            Some("logs, errors, network_waterfall, network_bodies, websocket_events, actions")
        );
    }

    #[test]
    fn sets_read_as_people_say_them() {
        assert_eq!(MARKED.describe(), "the paginated kinds and summary");
        assert_eq!(Applies::TRACK_TAB.or(Applies::EXPORT).describe(), "track_tab and export");
        assert_eq!(Applies::EVERY_WHAT.describe(), "every");
    }
}
