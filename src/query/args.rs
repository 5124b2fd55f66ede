//! Parsing of observe arguments from a JSON object, with errors that tell an
//! agent what to send instead. Pure: no I/O.

use serde_json::{Map, Value};

use super::arguments::{self, Arg};
use super::budget::{Budget, Cost};
use crate::kind::{self, COMMON_FILTERS, ColumnType, Filter, Kind};

/// What an observe call reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum What {
    /// A kind's ring; `errors_only` is the `errors` view of logs.
    Kind {
        kind: &'static Kind,
        errors_only: bool,
    },
    Page,
    Tabs,
    Vitals,
    /// Counts, groups and notable requests of every kind, in a few hundred tokens.
    Summary,
    /// What changed across a mark (or the tab's last page load): errors, requests, warnings, vitals.
    Compare,
}

impl What {
    pub fn name(&self) -> &'static str {
        match self {
            What::Kind { errors_only: true, .. } => "errors",
            What::Kind { kind, .. } => kind.name,
            What::Page => "page",
            What::Tabs => "tabs",
            What::Vitals => "vitals",
            What::Summary => "summary",
            What::Compare => "compare",
        }
    }
}

/// Every value of `what`, in the order the tool lists them.
pub fn what_names() -> Vec<&'static str> {
    let mut names = kind::names();
    names.insert(1, "errors");
    names.extend(["page", "tabs", "vitals", "summary", "compare"]);
    names
}

/// A filter argument with its value.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterValue {
    pub filter: &'static Filter,
    pub value: Value,
}

/// Which fields entries carry.
#[derive(Debug, Clone, PartialEq)]
pub enum Fields {
    /// The kind's compact entry, shared values said once in `common`.
    Compact,
    /// Every stored field, as stored.
    All,
    /// These fields (compact form), besides `id`.
    Only(Vec<String>),
}

/// What `context` on `what=errors` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextMode {
    /// Ids of the related entries.
    Ids,
    /// The related entries' compact forms.
    Full,
}

/// Validated observe arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ObserveArgs {
    pub what: What,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    pub after_cursor: Option<i64>,
    pub before_cursor: Option<i64>,
    pub tab_id: Option<i64>,
    pub filters: Vec<FilterValue>,
    pub max_chars: usize,
    pub max_tokens: usize,
    pub fields: Fields,
    /// Drill-down: these entries whole (`id` or `ids`).
    pub ids: Option<Vec<i64>>,
    pub since_navigation: bool,
    /// `what=errors group=true`: fingerprint groups instead of occurrences.
    pub group: bool,
    pub context: ContextMode,
    pub context_ms: i64,
    /// Only entries whose text holds this (case-insensitive; `query::search`).
    pub search: Option<String>,
    /// Only entries after this mark (`configure action=mark`).
    pub since_mark: Option<String>,
    /// `what=compare`: the mark compared across (None: the tab's last two page loads).
    pub mark: Option<String>,
    /// Set by `query::observe`, never parsed: what it adds around the answer.
    pub extras: Extras,
}

/// What `observe` adds to an answer beside the caller's arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    /// Room the answer leaves for metadata spliced into it afterwards (`capture`).
    pub reserved: Cost,
    /// The hint of an answer that comes back empty (capture paused, or the page asked
    /// about not captured).
    pub empty_hint: Option<String>,
    /// `since_mark` resolved: each kind's cursor when the mark was set.
    pub since_mark: Option<super::marks::Mark>,
    /// `since_navigation` resolved: when its document began. An entry the document before logged
    /// as it was left (its `docStart` earlier) is that document's, though dated after.
    pub document_since: Option<i64>,
}

impl ObserveArgs {
    /// The budget the answer is built in: `max_chars` and `max_tokens` less what is reserved.
    pub fn budget(&self) -> Budget {
        Budget { chars: self.max_chars, tokens: self.max_tokens }.minus(self.extras.reserved)
    }

    /// A quarter of `max_chars` and `max_tokens`: the most a field beside the answer proper (the
    /// capture note, the viewer's link) may take.
    pub fn quarter(&self) -> Budget {
        Budget { chars: self.max_chars / 4, tokens: self.max_tokens / 4 }
    }
}

pub const DEFAULT_MAX_CHARS: usize = 40_000;
pub const MIN_MAX_CHARS: usize = 1_000;
/// The most `max_chars` takes: Claude Code's ceiling for `anthropic/maxResultSizeChars` (its
/// MCP docs), so that no answer an agent can ask for is written to a file instead of shown.
pub const MAX_MAX_CHARS: usize = 500_000;
pub const DEFAULT_MAX_TOKENS: usize = 8_000;
pub const MIN_MAX_TOKENS: usize = 500;
pub const MAX_MAX_TOKENS: usize = 100_000;
/// Page size of cursor reads when `limit` is omitted.
pub const DEFAULT_CURSOR_LIMIT: i64 = 100;
/// Most entries one drill-down returns.
pub const MAX_IDS: usize = 50;
/// Most names in `fields` (a kind has fewer fields than this).
pub const MAX_FIELDS: usize = 64;
pub const DEFAULT_CONTEXT_MS: i64 = 5_000;
pub const MAX_CONTEXT_MS: i64 = 600_000;

const PAGING: [&str; 4] = ["limit", "offset", "after_cursor", "before_cursor"];

/// Parses a tools/call `arguments` object.
pub fn parse(args: &Map<String, Value>) -> Result<ObserveArgs, String> {
    let what_name = match args.get("what") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(format!("`what` must be a string, got {}", describe(other))),
        None => return Err(format!("`what` is required: one of {}", what_names().join(", "))),
    };
    let what = match what_name {
        "errors" => What::Kind { kind: &kind::LOGS, errors_only: true },
        "page" => What::Page,
        "tabs" => What::Tabs,
        "vitals" => What::Vitals,
        "summary" => What::Summary,
        "compare" => What::Compare,
        name => match kind::by_name(name) {
            Some(kind) => What::Kind { kind, errors_only: false },
            None => return Err(format!("unknown what \"{}\": send one of {}", echo(name), what_names().join(", "))),
        },
    };
    check_names(args, what)?;

    let int = |name: &str| integer(args, name);
    let limit = int("limit")?;
    if let Some(l) = limit.filter(|l| *l < 0) {
        return Err(format!(
            "limit must be 0 (all that fit the budget) or a positive page size, got {l}; for the last N entries send offset=-N"
        ));
    }
    let offset = int("offset")?;
    let after_cursor = int("after_cursor")?;
    let before_cursor = int("before_cursor")?;
    for (name, value) in [("after_cursor", after_cursor), ("before_cursor", before_cursor)] {
        if let Some(c) = value.filter(|c| *c < 0) {
            return Err(format!(
                "{name} must be an entry id (0 or more), got {c}; take it from `cursor` of a previous answer"
            ));
        }
    }
    if after_cursor.is_some() && before_cursor.is_some() {
        return Err("send either after_cursor (newer entries) or before_cursor (older entries), not both".into());
    }
    if offset.is_some() && (after_cursor.is_some() || before_cursor.is_some()) {
        return Err("a cursor and an offset cannot be combined: page with after_cursor alone (it is stable while entries arrive), or drop the cursor to use offset".into());
    }
    let max_chars = usize::try_from(bounded(args, row("max_chars"))?).unwrap_or(DEFAULT_MAX_CHARS);
    let max_tokens = usize::try_from(bounded(args, row("max_tokens"))?).unwrap_or(DEFAULT_MAX_TOKENS);
    let tab_id = int("tabId")?;
    let mut filters = Vec::new();
    let kind_filters = match what {
        What::Kind { kind, .. } => Some(kind.filters),
        What::Summary => Some(&[][..]),
        _ => None,
    };
    if let Some(kind_filters) = kind_filters {
        for filter in kind_filters.iter().chain(COMMON_FILTERS.iter().skip(1)) {
            if let Some(value) = args.get(filter.arg).filter(|v| !v.is_null()) {
                filters.push(FilterValue { filter, value: filter_value(filter, value)? });
            }
        }
    }
    let fields = fields(args, what)?;
    let ids = ids(args)?;
    if ids.is_some() {
        let paging: Vec<&str> = PAGING.iter().copied().filter(|p| args.get(*p).is_some_and(|v| !v.is_null())).collect();
        if !paging.is_empty() {
            return Err(format!(
                "id/ids returns those entries whole and cannot be combined with {}: drop them, or drop id/ids to page",
                paging.join(", ")
            ));
        }
    }
    let since_navigation = boolean(args, "since_navigation")?;
    let group = boolean(args, "group")?;
    if group && ids.is_some() {
        return Err("group=true lists groups; it cannot be combined with id/ids".into());
    }
    // Groups are listed most frequent first, within the budget: no offset or cursor pages them.
    if let Some(name) = ["offset", "after_cursor", "before_cursor", "fields", "context"]
        .into_iter()
        .find(|n| group && args.get(*n).is_some_and(|v| !v.is_null()))
    {
        return Err(format!(
            "`{name}` does not apply to group=true: groups come most frequent first; narrow them with tabId, since or since_navigation, or raise max_tokens"
        ));
    }
    let context = match args.get("context") {
        None | Some(Value::Null) => ContextMode::Ids,
        Some(Value::String(s)) if s == "ids" => ContextMode::Ids,
        Some(Value::String(s)) if s == "full" => ContextMode::Full,
        Some(other) => {
            return Err(format!(
                "context must be \"ids\" (the related entries' ids) or \"full\" (their compact forms), got {}",
                describe(other)
            ));
        }
    };
    let context_ms = bounded(args, row("context_ms"))?;
    let search = match what {
        What::Kind { .. } => text(args, "search")?.map(|s| super::search::validate(&s)).transpose()?,
        _ => None,
    };
    let since_mark = text(args, "since_mark")?.map(|m| mark_name(&m, "since_mark")).transpose()?;
    let mark = text(args, "mark")?.map(|m| mark_name(&m, "mark")).transpose()?;
    if what == What::Compare && since_mark.is_some() {
        return Err("compare takes `mark` (the window before it against the window after it), not since_mark".into());
    }
    Ok(ObserveArgs {
        what,
        limit,
        offset,
        after_cursor,
        before_cursor,
        tab_id,
        filters,
        max_chars,
        max_tokens,
        fields,
        ids,
        since_navigation,
        group,
        context,
        context_ms,
        search,
        since_mark,
        mark,
        extras: Extras::default(),
    })
}

/// Longest mark name, in characters.
pub const MAX_MARK_NAME: usize = 100;

/// A mark's name: 1 to MAX_MARK_NAME characters.
pub fn mark_name(name: &str, arg: &str) -> Result<String, String> {
    let n = name.chars().count();
    if n == 0 || n > MAX_MARK_NAME || name.chars().any(char::is_control) || name.trim().is_empty() {
        return Err(format!(
            "{arg} must be a mark's name of 1 to {MAX_MARK_NAME} characters, not only spaces, without control characters, got {n} characters; set one with configure action=mark name=..."
        ));
    }
    Ok(name.to_string())
}

fn text(args: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("{name} must be a string, got {}", describe(other))),
    }
}

/// An integer argument within the bounds the table gives it, or its default.
fn bounded(args: &Map<String, Value>, arg: &Arg) -> Result<i64, String> {
    let (min, max) = (arg.min.unwrap_or(i64::MIN), arg.max.unwrap_or(i64::MAX));
    let default = arg.default.unwrap_or(min);
    match integer(args, arg.name)? {
        None => Ok(default),
        Some(m) if (min..=max).contains(&m) => Ok(m),
        Some(m) => Err(format!("{} must be between {min} and {max} (default {default}), got {m}", arg.name)),
    }
}

/// The table's row for one of observe's own arguments.
fn row(name: &str) -> &'static Arg {
    arguments::observe_arg(name).unwrap_or_else(|| unreachable!("`{name}` is in the arguments table"))
}

fn boolean(args: &Map<String, Value>, name: &str) -> Result<bool, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("{name} must be true or false, got {}", describe(other))),
    }
}

/// `fields`: a list of field names, or `["all"]`.
fn fields(args: &Map<String, Value>, what: What) -> Result<Fields, String> {
    let list = match args.get("fields") {
        None | Some(Value::Null) => return Ok(Fields::Compact),
        Some(Value::Array(list)) => list,
        Some(Value::String(s)) if s == "all" => return Ok(Fields::All),
        Some(other) => {
            return Err(format!("fields must be a list of field names or [\"all\"], got {}", describe(other)));
        }
    };
    let What::Kind { kind, .. } = what else {
        return Err(format!("`fields` does not apply to what=\"{}\"", what.name()));
    };
    if list.len() > MAX_FIELDS {
        return Err(format!("fields lists at most {MAX_FIELDS} names, got {}: send each name once", list.len()));
    }
    let known = kind.field_names();
    let mut names: Vec<String> = Vec::with_capacity(list.len());
    for item in list {
        let Some(name) = item.as_str() else {
            return Err(format!("fields must be a list of strings, got an item {}", describe(item)));
        };
        if name == "all" {
            if list.len() > 1 {
                return Err("fields=[\"all\"] returns every stored field; send it alone".into());
            }
            return Ok(Fields::All);
        }
        if name == "at" && known.contains(&"location") {
            return Err(format!(
                "\"at\" is where a compact entry says it happened, read from the stored location, original and \
                 frames: leave fields out for compact entries, which carry it, or ask for fields=[\"location\", \
                 \"original\", \"frames\"] of {}",
                what.name()
            ));
        }
        if !known.contains(&name) {
            return Err(format!(
                "unknown field \"{}\" for {}: send some of {}, or [\"all\"]",
                echo(name),
                what.name(),
                known.join(", ")
            ));
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string()); // a name sent twice is one field
        }
    }
    if names.is_empty() {
        return Err("fields is empty: send some field names, [\"all\"], or leave it out for the compact entries".into());
    }
    Ok(Fields::Only(names))
}

/// `id` (one) or `ids` (up to MAX_IDS).
fn ids(args: &Map<String, Value>) -> Result<Option<Vec<i64>>, String> {
    let one = integer(args, "id")?;
    let many = match args.get("ids") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => {
            let mut ids = Vec::with_capacity(list.len());
            for v in list {
                ids.push(
                    as_integer(v).ok_or_else(|| format!("ids must be entry ids (integers), got {}", describe(v)))?,
                );
            }
            Some(ids)
        }
        Some(other) => return Err(format!("ids must be a list of entry ids, got {}", describe(other))),
    };
    match (one, many) {
        (Some(_), Some(_)) => Err("send either id (one entry) or ids (a list), not both".into()),
        (Some(id), None) => Ok(Some(vec![id])),
        (None, Some(ids)) if ids.is_empty() => Err("ids is empty: send 1 to 50 entry ids".into()),
        (None, Some(ids)) if ids.len() > MAX_IDS => {
            Err(format!("ids takes at most {MAX_IDS} ids, got {}: split the list over several calls", ids.len()))
        }
        (None, Some(mut ids)) => {
            ids.sort_unstable();
            ids.dedup();
            Ok(Some(ids))
        }
        (None, None) => Ok(None),
    }
}

/// Every argument must be known, and apply to `what` (as `arguments.rs` says).
fn check_names(args: &Map<String, Value>, what: What) -> Result<(), String> {
    let allowed = arguments::observe_names(what);
    for (name, value) in args {
        // A null is an argument left unset (some clients send every property of the schema), but
        // only for a name the schema has: an unknown name is refused whatever its value.
        if allowed.contains(&name.as_str()) || (value.is_null() && arguments::observe_applies(name).is_some()) {
            continue;
        }
        if what.name() == "errors" && ["level", "min_level"].contains(&name.as_str()) {
            return Err(format!(
                "`{name}` does not apply to what=\"errors\" (every error is level error); for other levels send what=\"logs\" with {name}"
            ));
        }
        return Err(match arguments::observe_applies(name) {
            Some(where_) => format!(
                "`{name}` does not apply to what=\"{}\"; it applies to {where_}. Arguments for this what: {}",
                what.name(),
                allowed.join(", ")
            ),
            None => {
                format!(
                    "unknown argument `{}`. Arguments for what=\"{}\": {}",
                    echo(name),
                    what.name(),
                    allowed.join(", ")
                )
            }
        });
    }
    Ok(())
}

fn integer(args: &Map<String, Value>, name: &str) -> Result<Option<i64>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => as_integer(v).map(Some).ok_or_else(|| not_integer(name, v)),
    }
}

/// Why `v` is not an integer argument: not a whole number, or one too large to be exact.
fn not_integer(name: &str, v: &Value) -> String {
    let whole = v.is_u64() || v.is_i64() || v.as_f64().is_some_and(|f| f.fract() == 0.0);
    if whole {
        format!("{name} is out of range, got {}: too large to be an exact integer", describe(v))
    } else {
        format!("{name} must be an integer, got {}", describe(v))
    }
}

/// An integer argument within JavaScript's exact range, ±(2^53 − 1), as ingest takes a `tabId`:
/// a client in JavaScript could not send or read back one beyond it exactly.
pub(crate) fn as_integer(v: &Value) -> Option<i64> {
    const MAX_EXACT: u64 = (1 << 53) - 1;
    v.as_i64().filter(|n| n.unsigned_abs() <= MAX_EXACT).or_else(|| {
        let f = v.as_f64()?;
        (f.fract() == 0.0 && f.abs() <= MAX_EXACT as f64).then_some(f as i64)
    })
}

fn filter_value(filter: &Filter, value: &Value) -> Result<Value, String> {
    // A filter that leaves text out takes several texts at once: each one is checked as one would be.
    if let (kind::FilterOp::NotContains, Value::Array(items)) = (filter.op, value) {
        if items.is_empty() || items.len() > kind::MAX_EXCLUDED {
            return Err(format!(
                "{} takes one text or a list of 1 to {} texts, got a list of {}",
                filter.arg,
                kind::MAX_EXCLUDED,
                items.len()
            ));
        }
        let texts: Result<Vec<Value>, String> = items.iter().map(|item| filter_value(filter, item)).collect();
        return texts.map(Value::Array);
    }
    match filter.ty {
        ColumnType::Integer => as_integer(value).map(Value::from).ok_or_else(|| not_integer(filter.arg, value)),
        ColumnType::Real => value
            .as_f64()
            .map(Value::from)
            .ok_or_else(|| format!("{} must be a number, got {}", filter.arg, describe(value))),
        ColumnType::Boolean => value
            .as_bool()
            .map(Value::from)
            .ok_or_else(|| format!("{} must be true or false, got {}", filter.arg, describe(value))),
        ColumnType::Text => {
            let Some(s) = value.as_str() else {
                return Err(format!("{} must be a string, got {}", filter.arg, describe(value)));
            };
            // A column of a few values (`level`, `direction`...) takes only those: a value it never
            // holds is a mistake, not a filter that matches nothing.
            if let Some(values) = arguments::filter_values(filter).filter(|v| !v.contains(&s)) {
                return Err(format!("{} must be one of {}, got \"{}\"", filter.arg, values.join(", "), echo(s)));
            }
            Ok(value.clone())
        }
    }
}

/// The agent's own text, repeated in an error, cut to its first 40 characters: an error
/// answers what was wrong, it does not hand 100,000 characters back.
pub fn echo(text: &str) -> String {
    let shown: String = text.chars().take(40).collect();
    if shown.len() < text.len() { format!("{shown}…") } else { shown }
}

fn describe(v: &Value) -> String {
    format!("{} ({})", echo(&v.to_string()), kind_of(v))
}

/// What sort of JSON value `v` is, in words ("a string", "a fraction"), for the messages
/// that say what was sent instead of what was wanted.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() != 0.0) => "a fraction",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Result<ObserveArgs, String> {
        parse(v.as_object().unwrap())
    }

    #[test]
    fn parses_paging_and_filters() {
        let a = p(json!({"what":"network_bodies","limit":10,"offset":-5,"tabId":3,"method":"POST","status_min":400}))
            .unwrap();
        assert_eq!((a.limit, a.offset, a.tab_id), (Some(10), Some(-5), Some(3)));
        assert_eq!(a.filters.len(), 2);
        assert_eq!(a.max_chars, DEFAULT_MAX_CHARS);
    }

    #[test]
    fn errors_say_what_to_send() {
        assert!(p(json!({"what":"cookies"})).unwrap_err().contains("send one of logs, errors"));
        assert!(p(json!({"what":"logs","limit":-1})).unwrap_err().contains("offset=-N"));
        assert!(p(json!({"what":"logs","limit":1.5})).unwrap_err().contains("limit must be an integer"));
        assert!(p(json!({"what":"logs","limit":"10"})).unwrap_err().contains("a string"));
        assert!(p(json!({"what":"logs","offset":5,"after_cursor":3})).unwrap_err().contains("cannot be combined"));
        let url = p(json!({"what":"extension_logs","url":"x"})).unwrap_err();
        assert!(url.contains("applies to logs, errors, network_waterfall"), "{url}");
        assert!(p(json!({"what":"logs","tab_id":1})).unwrap_err().contains("unknown argument `tab_id`"));
        assert!(p(json!({"what":"tabs","limit":1})).unwrap_err().contains("does not apply"));
        assert!(p(json!({"what":"errors","min_level":"warn"})).unwrap_err().contains("every error is level error"));
        assert!(p(json!({"what":"logs","fields":["nope"]})).unwrap_err().contains("unknown field \"nope\""));
        let at = p(json!({"what":"errors","fields":["at", "message"]})).unwrap_err();
        assert!(at.contains("leave fields out for compact entries"), "{at}");
        let twice = p(json!({"what":"logs","fields":["message", "level", "message"]})).unwrap();
        assert_eq!(
            twice.fields,
            Fields::Only(vec!["message".into(), "level".into()]),
            "a name sent twice is one field"
        );
        let many = vec![json!("message"); MAX_FIELDS + 1];
        assert!(p(json!({"what":"logs","fields": many})).unwrap_err().contains("at most 64 names"));
        assert!(p(json!({"what":"logs","id":3,"limit":5})).unwrap_err().contains("cannot be combined with limit"));
        assert!(p(json!({"what":"logs","ids":(1..=51).collect::<Vec<i64>>()})).unwrap_err().contains("at most 50"));
        assert!(p(json!({"what":"logs","max_tokens":100})).unwrap_err().contains("max_tokens must be between"));
        assert!(p(json!({"what":"logs","group":true})).is_ok());
        assert!(p(json!({"what":"actions","group":true})).unwrap_err().contains("applies to errors and logs"));
        for paging in ["offset", "after_cursor", "before_cursor"] {
            let e = p(json!({"what":"errors","group":true, paging: 2})).unwrap_err();
            assert!(e.contains(&format!("`{paging}` does not apply to group=true")), "{e}");
        }
        let e = p(json!({"what":"websocket_events","direction":"up"})).unwrap_err();
        assert!(e.contains("direction must be one of incoming, outgoing"), "{e}");
        assert!(p(json!({"what":"logs","min_level":"fatal"})).unwrap_err().contains("one of debug"));
        assert!(p(json!({"what":"logs","max_chars":10})).unwrap_err().contains("between"));
        assert!(p(json!({})).unwrap_err().contains("`what` is required"));
        assert!(p(json!({"what":5})).unwrap_err().contains("`what` must be a string"));
        assert!(p(json!({"what":"logs","offset":"ten"})).unwrap_err().contains("offset must be an integer"));
        assert!(p(json!({"what":"logs","limit":1e300})).unwrap_err().contains("limit is out of range"));
        // Past JavaScript's exact range: refused, not echoed back as a limit no JS client reads exactly.
        let min = p(json!({"what":"logs","offset":i64::MIN})).unwrap_err();
        assert!(min.contains("offset is out of range"), "{min}");
        assert!(p(json!({"what":"logs","offset":-9_007_199_254_740_991_i64})).is_ok());
        assert!(
            p(json!({"what":"logs","offset":9223372036854775808u64})).unwrap_err().contains("offset is out of range")
        );
        assert!(p(json!({"what":"logs","offset":3,"before_cursor":4})).unwrap_err().contains("cannot be combined"));
        assert!(p(json!({"what":"logs","after_cursor":1,"before_cursor":4})).unwrap_err().contains("not both"));
        assert!(p(json!({"what":"logs","after_cursor":-1})).unwrap_err().contains("after_cursor must be an entry id"));
        assert!(p(json!({"what":"logs","tabId":"one"})).unwrap_err().contains("tabId must be an integer"));
        assert!(p(json!({"what":"network_bodies","status_min":"4xx"})).unwrap_err().contains("status_min must be"));
        assert!(p(json!({"what":"tabs","offset":2})).unwrap_err().contains("does not apply"));
        assert!(p(json!({"what":"errors","context_ms":600_001})).unwrap_err().contains("context_ms must be between"));
        assert!(p(json!({"what":"errors","context":"some"})).unwrap_err().contains("context must be"));
        assert!(p(json!({"what":"compare","limit":3})).unwrap_err().contains("applies to the paginated kinds"));
    }

    #[test]
    fn every_argument_the_table_gives_a_what_is_taken_and_no_other() {
        for name in what_names() {
            let what = p(json!({ "what": name })).unwrap_or_else(|e| panic!("{name}: {e}")).what;
            let allowed = arguments::observe_names(what);
            for a in arguments::observe_args() {
                let sample = match a.ty {
                    arguments::Type::Boolean => json!(false),
                    arguments::Type::OneOf(values) => json!(values[0]),
                    arguments::Type::Text => json!("m"),
                    arguments::Type::Texts => json!(["id"]),
                    arguments::Type::Integers => json!([1]),
                    _ => json!(a.min.unwrap_or(1).max(a.default.unwrap_or(1))),
                };
                let mut args = json!({ "what": name });
                args[a.name] = sample;
                let refused = p(args.clone()).err().filter(|e| e.contains("does not apply"));
                assert_eq!(refused.is_none(), allowed.contains(&a.name), "{args}: {refused:?}");
            }
        }
    }

    #[test]
    fn search_and_marks() {
        let a = p(json!({"what":"network_bodies","search":"\"id\":4711 %_*","offset":-5})).unwrap();
        assert_eq!(a.search.as_deref(), Some("\"id\":4711 %_*"));
        assert!(p(json!({"what":"logs","search":""})).unwrap_err().contains("search is empty"));
        assert!(p(json!({"what":"logs","search":"x".repeat(1001)})).unwrap_err().contains("at most 1000"));
        assert!(p(json!({"what":"logs","search":5})).unwrap_err().contains("search must be a string"));
        assert!(p(json!({"what":"summary","search":"x"})).unwrap_err().contains("does not apply"));
        assert_eq!(p(json!({"what":"summary","since_mark":"m"})).unwrap().since_mark.as_deref(), Some("m"));
        assert!(p(json!({"what":"logs","mark":"m"})).unwrap_err().contains("applies to compare"));
        assert!(p(json!({"what":"compare","since_mark":"m"})).unwrap_err().contains("does not apply"));
        assert!(p(json!({"what":"logs","since_mark":""})).unwrap_err().contains("1 to 100 characters"));
        assert_eq!(p(json!({"what":"compare","mark":"before-fix","tabId":3})).unwrap().what, What::Compare);
    }

    #[test]
    fn whole_floats_are_integers_and_nulls_are_absent() {
        let a = p(json!({"what":"logs","limit":10.0,"offset":null,"url":null})).unwrap();
        assert_eq!((a.limit, a.offset), (Some(10), None));
    }

    #[test]
    fn a_null_stands_for_a_known_argument_left_unset_never_for_an_unknown_one() {
        // Every name of the schema may come as null (some clients send them all), even one that
        // does not apply to this what; a name the schema lacks is refused, null or not.
        assert!(p(json!({"what":"logs","tabId":null,"search":null,"since_mark":null,"context_ms":null})).is_ok());
        let e = p(json!({"what":"logs","bogus":null})).unwrap_err();
        assert!(e.contains("unknown argument `bogus`"), "{e}");
    }
}
