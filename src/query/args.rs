//! Parsing of observe arguments from a JSON object, with errors that tell an
//! agent what to send instead. Pure: no I/O.

use serde_json::{Map, Value};

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
}

impl What {
    pub fn name(&self) -> &'static str {
        match self {
            What::Kind { errors_only: true, .. } => "errors",
            What::Kind { kind, .. } => kind.name,
            What::Page => "page",
            What::Tabs => "tabs",
            What::Vitals => "vitals",
        }
    }
}

/// Every value of `what`, in the order the tool lists them.
pub fn what_names() -> Vec<&'static str> {
    let mut names = kind::names();
    names.insert(1, "errors");
    names.extend(["page", "tabs", "vitals"]);
    names
}

/// A filter argument with its value.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterValue {
    pub filter: &'static Filter,
    pub value: Value,
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
}

pub const DEFAULT_MAX_CHARS: usize = 100_000;
pub const MIN_MAX_CHARS: usize = 1_000;
pub const MAX_MAX_CHARS: usize = 10_000_000;
/// Page size of cursor reads when `limit` is omitted.
pub const DEFAULT_CURSOR_LIMIT: i64 = 100;

const PAGING: [&str; 5] = ["limit", "offset", "after_cursor", "before_cursor", "max_chars"];

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
        name => match kind::by_name(name) {
            Some(kind) => What::Kind { kind, errors_only: false },
            None => return Err(format!("unknown what \"{name}\": send one of {}", what_names().join(", "))),
        },
    };
    check_names(args, what)?;

    let int = |name: &str| integer(args, name);
    let limit = int("limit")?;
    if let Some(l) = limit.filter(|l| *l < 0) {
        return Err(format!(
            "limit must be 0 (all, within max_chars) or a positive page size, got {l}; for the last N entries send offset=-N"
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
    let max_chars = match int("max_chars")? {
        None => DEFAULT_MAX_CHARS,
        Some(m) if (MIN_MAX_CHARS as i64..=MAX_MAX_CHARS as i64).contains(&m) => m as usize,
        Some(m) => return Err(format!("max_chars must be between {MIN_MAX_CHARS} and {MAX_MAX_CHARS}, got {m}")),
    };
    let tab_id = int("tabId")?;
    let mut filters = Vec::new();
    if let What::Kind { kind, .. } = what {
        for filter in kind.filters.iter().chain(COMMON_FILTERS.iter().skip(1)) {
            if let Some(value) = args.get(filter.arg).filter(|v| !v.is_null()) {
                filters.push(FilterValue { filter, value: filter_value(filter, value)? });
            }
        }
    }
    Ok(ObserveArgs { what, limit, offset, after_cursor, before_cursor, tab_id, filters, max_chars })
}

/// Every argument must be known, and apply to `what`.
fn check_names(args: &Map<String, Value>, what: What) -> Result<(), String> {
    let allowed: Vec<&str> = match what {
        What::Kind { kind, .. } => {
            ["what", "tabId", "since"].into_iter().chain(PAGING).chain(kind.filters.iter().map(|f| f.arg)).collect()
        }
        What::Page | What::Vitals => vec!["what", "tabId"],
        What::Tabs => vec!["what"],
    };
    for (name, value) in args {
        if allowed.contains(&name.as_str()) || value.is_null() {
            continue;
        }
        let applies_to: Vec<&str> = kind::KINDS.iter().filter(|k| k.filter(name).is_some()).map(|k| k.name).collect();
        let known = PAGING.contains(&name.as_str()) || ["tabId", "since"].contains(&name.as_str());
        return Err(if !applies_to.is_empty() || known {
            let where_ = if applies_to.is_empty() { "the paginated kinds".to_string() } else { applies_to.join(", ") };
            format!(
                "`{name}` does not apply to what=\"{}\"; it applies to {where_}. Arguments for this what: {}",
                what.name(),
                allowed.join(", ")
            )
        } else {
            format!("unknown argument `{name}`. Arguments for what=\"{}\": {}", what.name(), allowed.join(", "))
        });
    }
    Ok(())
}

fn integer(args: &Map<String, Value>, name: &str) -> Result<Option<i64>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => as_integer(v).map(Some).ok_or_else(|| format!("{name} must be an integer, got {}", describe(v))),
    }
}

fn as_integer(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        let f = v.as_f64()?;
        (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
    })
}

fn filter_value(filter: &Filter, value: &Value) -> Result<Value, String> {
    match filter.ty {
        ColumnType::Integer => as_integer(value)
            .map(Value::from)
            .ok_or_else(|| format!("{} must be an integer, got {}", filter.arg, describe(value))),
        ColumnType::Real => value
            .as_f64()
            .map(Value::from)
            .ok_or_else(|| format!("{} must be a number, got {}", filter.arg, describe(value))),
        ColumnType::Text => {
            let Some(s) = value.as_str() else {
                return Err(format!("{} must be a string, got {}", filter.arg, describe(value)));
            };
            if filter.column == "level" && !kind::LEVELS.contains(&s) {
                return Err(format!("{} must be one of {}, got \"{s}\"", filter.arg, kind::LEVELS.join(", ")));
            }
            Ok(value.clone())
        }
    }
}

fn describe(v: &Value) -> String {
    let text = v.to_string();
    let shown: String = text.chars().take(40).collect();
    let kind = match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    if shown.len() < text.len() { format!("{shown}… ({kind})") } else { format!("{shown} ({kind})") }
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
        assert!(p(json!({"what":"logs","url":"x"})).unwrap_err().contains("applies to network_waterfall"));
        assert!(p(json!({"what":"logs","tab_id":1})).unwrap_err().contains("unknown argument `tab_id`"));
        assert!(p(json!({"what":"tabs","limit":1})).unwrap_err().contains("does not apply"));
        assert!(p(json!({"what":"logs","min_level":"fatal"})).unwrap_err().contains("one of debug"));
        assert!(p(json!({"what":"logs","max_chars":10})).unwrap_err().contains("between"));
        assert!(p(json!({})).unwrap_err().contains("`what` is required"));
    }

    #[test]
    fn whole_floats_are_integers_and_nulls_are_absent() {
        let a = p(json!({"what":"logs","limit":10.0,"offset":null,"url":null})).unwrap();
        assert_eq!((a.limit, a.offset), (Some(10), None));
    }
}
