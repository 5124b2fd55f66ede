//! Decoding of ingest request bodies into rows, generic over [`Kind`].
//!
//! Pure: bytes in, rows or a precise error out. No I/O, no SQL. A request is
//! decoded whole before anything is written, so a bad entry rejects the whole
//! request and stores nothing.

use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

use crate::kind::{Column, ColumnType, Kind, Required};

/// Limits applied while decoding.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest string kept in a field whose name contains "body", in bytes.
    pub body_cap: usize,
    /// Longest string kept in any other field, in bytes.
    pub field_cap: usize,
    /// Most entries accepted in one request.
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { body_cap: 64 * 1024, field_cap: 16 * 1024, max_entries: 10_000 }
    }
}

/// One decoded event, ready for the writer.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub tab_id: Option<i64>,
    pub ts: i64,
    /// Values of `kind.columns`, in order.
    pub columns: Vec<SqlValue>,
    /// Every other field, as a JSON object.
    pub data: String,
    /// `{"path": original length}` for each string that was cut, or None.
    pub truncated: Option<String>,
}

/// Tab information from `POST /events/tabs`.
#[derive(Debug, Clone, PartialEq)]
pub struct TabInfo {
    pub tab_id: i64,
    pub url: Option<String>,
    pub title: Option<String>,
    /// `{"field": original length}` for each string that was cut, or None.
    pub truncated: Option<String>,
}

/// A vitals snapshot from `POST /events/vitals`.
#[derive(Debug, Clone, PartialEq)]
pub struct Vitals {
    pub tab_id: i64,
    pub url: Option<String>,
    /// lcp, cls, inp, fcp, ttfb in [`VITALS`] order.
    pub metrics: [Option<f64>; 5],
    pub data: String,
    /// `{"path": original length}` for each string that was cut, or None.
    pub truncated: Option<String>,
}

pub const VITALS: [&str; 5] = ["lcp", "cls", "inp", "fcp", "ttfb"];

/// Keys the server owns in an observe entry. A client field of the same name
/// is kept under `client_<name>` instead of being dropped or shadowed.
const RESERVED: [&str; 4] = ["id", "tabId", "ts", "_truncated"];

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum IngestError {
    #[error("request body is not valid JSON: {0}")]
    Json(String),
    #[error("request body must be a JSON object of the form {{\"entries\": [ ... ]}}")]
    Shape,
    #[error("{count} entries in one request; at most {max} are accepted, split the batch")]
    TooManyEntries { count: usize, max: usize },
    #[error("entries[{index}]{}{field}: {problem}", if field.is_empty() { "" } else { "." })]
    Entry { index: usize, field: String, problem: String },
}

/// What decoding a body would build, counted from its bytes without building it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// JSON values (containers, strings including keys, scalars).
    pub values: usize,
    /// Strings, keys included: each is an allocation of its own.
    pub strings: usize,
    /// Deepest nesting of arrays and objects.
    pub depth: usize,
}

/// Deepest nesting accepted; serde_json refuses deeper input with the same words.
pub const MAX_DEPTH: usize = 128;
/// Bytes a decoded value costs beyond its text (a `serde_json::Value`, its share of the
/// array or map holding it, and growth slack), measured on the worst shapes.
const VALUE_COST: usize = 48;
/// Bytes a decoded string or key costs beyond its text (its own allocation).
const STRING_COST: usize = 32;

impl Shape {
    /// Scans `body` once (strings and escapes included) and counts what decoding
    /// would build. Invalid JSON is counted as far as it goes: decoding refuses it.
    pub fn measure(body: &[u8]) -> Result<Shape, IngestError> {
        let mut shape = Shape::default();
        let (mut depth, mut in_string, mut escaped, mut in_scalar) = (0usize, false, false, false);
        for &b in body {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => {
                    in_string = true;
                    in_scalar = false;
                    shape.values += 1;
                    shape.strings += 1;
                }
                b'[' | b'{' => {
                    in_scalar = false;
                    shape.values += 1;
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(IngestError::Json(format!(
                            "recursion limit exceeded: JSON nested deeper than {MAX_DEPTH} levels"
                        )));
                    }
                    shape.depth = shape.depth.max(depth);
                }
                b']' | b'}' => {
                    in_scalar = false;
                    depth = depth.saturating_sub(1);
                }
                b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' => in_scalar = false,
                _ if !in_scalar => {
                    in_scalar = true;
                    shape.values += 1;
                }
                _ => {}
            }
        }
        Ok(shape)
    }

    /// Bytes that decoding builds beyond the text it copies: the values, their
    /// containers, and an allocation per string.
    pub fn decode_overhead(&self) -> usize {
        self.values.saturating_mul(VALUE_COST).saturating_add(self.strings.saturating_mul(STRING_COST))
    }
}

fn entry_error(index: usize, field: &str, problem: impl Into<String>) -> IngestError {
    IngestError::Entry { index, field: field.to_owned(), problem: problem.into() }
}

/// Parses `{"entries": [...]}` and decodes each entry, which must be an object, with `decode`.
fn decode_objects<T>(
    body: &[u8],
    limits: &Limits,
    single_object_ok: bool,
    mut decode: impl FnMut(usize, Map<String, Value>) -> Result<T, IngestError>,
) -> Result<Vec<T>, IngestError> {
    parse_entries(body, limits, single_object_ok)?
        .into_iter()
        .enumerate()
        .map(|(index, entry)| match entry {
            Value::Object(map) => decode(index, map),
            _ => Err(entry_error(index, "", "each entry must be a JSON object")),
        })
        .collect()
}

/// Parses `{"entries": [...]}` and returns the entries.
fn parse_entries(body: &[u8], limits: &Limits, single_object_ok: bool) -> Result<Vec<Value>, IngestError> {
    // Half an emoji (a lone surrogate) costs one replacement character, not the batch.
    let body = crate::surrogates::mend(body);
    let value = crate::unique_keys::from_slice(&body).map_err(|e| IngestError::Json(e.to_string()))?;
    let entries = match value {
        Value::Object(mut map) => match map.remove("entries") {
            Some(Value::Array(entries)) => entries,
            None if single_object_ok => vec![Value::Object(map)],
            _ => return Err(IngestError::Shape),
        },
        _ => return Err(IngestError::Shape),
    };
    if entries.len() > limits.max_entries {
        return Err(IngestError::TooManyEntries { count: entries.len(), max: limits.max_entries });
    }
    Ok(entries)
}

/// Decodes a `POST /events/{kind}` body.
pub fn decode_events(kind: &Kind, body: &[u8], limits: &Limits, now_ms: i64) -> Result<Vec<Row>, IngestError> {
    decode_objects(body, limits, false, |index, map| decode_entry(kind, index, map, limits, now_ms))
}

fn decode_entry(
    kind: &Kind,
    index: usize,
    mut map: Map<String, Value>,
    limits: &Limits,
    now_ms: i64,
) -> Result<Row, IngestError> {
    let tab_id = take_tab_id(&mut map, index)?;
    let ts = match map.remove("ts") {
        None | Some(Value::Null) => now_ms,
        Some(v) => number_as_i64(&v, true).filter(is_safe).ok_or_else(|| {
            entry_error(index, "ts", "must be a number of milliseconds since the epoch, of at most 2^53 - 1")
        })?,
    };
    let mut truncated = Map::new();
    let mut columns = Vec::with_capacity(kind.columns.len());
    for column in kind.columns {
        columns.push(take_column(column, &mut map, index, limits.field_cap, &mut truncated)?);
    }
    for (column, value) in kind.columns.iter().zip(&columns) {
        if let (Required::When(other, wanted), SqlValue::Null) = (column.required, value) {
            let other_value = kind.columns.iter().position(|c| c.field == other).map(|i| &columns[i]);
            if matches!(other_value, Some(SqlValue::Text(v)) if v == wanted) {
                return Err(entry_error(index, column.field, format!("required when {other} is \"{wanted}\"")));
            }
        }
    }
    for key in RESERVED {
        if let Some(v) = map.remove(key) {
            let mut renamed = format!("client_{key}");
            while map.contains_key(&renamed) {
                renamed.insert(0, '_');
            }
            map.insert(renamed, v);
        }
    }
    cap_keys(&mut map, "", limits, &mut truncated);
    for (key, value) in map.iter_mut() {
        cap_strings(value, key, key, limits, &mut truncated);
    }
    let data = Value::Object(map).to_string();
    Ok(Row { tab_id, ts, columns, data, truncated: record(truncated) })
}

/// The truncation record of one row: None when nothing was cut.
fn record(truncated: Map<String, Value>) -> Option<String> {
    (!truncated.is_empty()).then(|| Value::Object(truncated).to_string())
}

/// Largest integer every reader represents exactly: JavaScript's `Number.MAX_SAFE_INTEGER`
/// (the viewer, the extension, most MCP clients). A tab id past it would be shown rounded,
/// as another tab's.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Within what every reader represents exactly (a `ts`, a status, a tab id past it would be shown
/// rounded, as another value).
pub fn is_safe(n: &i64) -> bool {
    (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(n)
}

fn take_tab_id(map: &mut Map<String, Value>, index: usize) -> Result<Option<i64>, IngestError> {
    match map.remove("tabId") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => number_as_i64(&v, false).filter(is_safe).map(Some).ok_or_else(|| {
            entry_error(index, "tabId", "must be an integer (a Chrome tab id) of at most 2^53 - 1, or null")
        }),
    }
}

/// An integer in i64 range; with `round`, any finite number in range is rounded.
fn number_as_i64(v: &Value, round: bool) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    let f = v.as_f64()?;
    let in_range = f.is_finite() && f >= i64::MIN as f64 && f < i64::MAX as f64;
    (in_range && (round || f.fract() == 0.0)).then(|| f.round() as i64)
}

fn take_column(
    column: &Column,
    map: &mut Map<String, Value>,
    index: usize,
    cap: usize,
    truncated: &mut Map<String, Value>,
) -> Result<SqlValue, IngestError> {
    let value = match map.remove(column.field) {
        None | Some(Value::Null) => {
            return match column.required {
                Required::Yes => Err(entry_error(index, column.field, "required field is missing")),
                _ => Ok(SqlValue::Null),
            };
        }
        Some(v) => v,
    };
    let wrong = |what: &str| entry_error(index, column.field, format!("must be {what}"));
    match column.ty {
        ColumnType::Text => {
            let Value::String(mut s) = value else { return Err(wrong("a string")) };
            if !column.one_of.is_empty() && !column.one_of.contains(&s.as_str()) {
                return Err(wrong(&format!("one of {}", column.one_of.join(", "))));
            }
            // A value from a fixed list is short and must stay exactly that value, whatever the cap.
            if column.one_of.is_empty()
                && let Some(original) = cap_string(&mut s, cap)
            {
                truncated.insert(column.field.to_owned(), original.into());
            }
            Ok(SqlValue::Text(s))
        }
        ColumnType::Integer => number_as_i64(&value, false)
            .filter(is_safe)
            .map(SqlValue::Integer)
            .ok_or_else(|| wrong("an integer of at most 2^53 - 1 in size")),
        ColumnType::Real => value.as_f64().map(SqlValue::Real).ok_or_else(|| wrong("a number")),
        ColumnType::Boolean => {
            value.as_bool().map(|b| SqlValue::Integer(b.into())).ok_or_else(|| wrong("true or false"))
        }
    }
}

/// Cuts `s` to at most `cap` bytes on a char boundary; returns the original length if cut.
pub fn cap_string(s: &mut String, cap: usize) -> Option<usize> {
    if s.len() <= cap {
        return None;
    }
    let original = s.len();
    let mut end = cap;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    Some(original)
}

/// Cuts a key like a value (a page may log an object keyed by a whole document): kept under its
/// first field_cap bytes, its full length recorded under `<prefix><cut key>`.
fn cap_keys(map: &mut Map<String, Value>, prefix: &str, limits: &Limits, truncated: &mut Map<String, Value>) {
    if !map.keys().any(|k| k.len() > limits.field_cap) {
        return;
    }
    for (mut k, v) in std::mem::take(map) {
        if let Some(original) = cap_string(&mut k, limits.field_cap) {
            truncated.insert(format!("{prefix}{k}"), original.into());
        }
        map.insert(k, v);
    }
}

fn cap_strings(value: &mut Value, key: &str, path: &str, limits: &Limits, truncated: &mut Map<String, Value>) {
    match value {
        Value::String(s) => {
            let cap = if key.to_ascii_lowercase().contains("body") { limits.body_cap } else { limits.field_cap };
            if let Some(original) = cap_string(s, cap) {
                truncated.insert(path.to_owned(), original.into());
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                cap_strings(item, key, &format!("{path}[{i}]"), limits, truncated);
            }
        }
        Value::Object(map) => {
            cap_keys(map, &format!("{path}."), limits, truncated);
            for (k, v) in map.iter_mut() {
                cap_strings(v, k, &format!("{path}.{k}"), limits, truncated);
            }
        }
        _ => {}
    }
}

fn required_tab_id(map: &mut Map<String, Value>, index: usize) -> Result<i64, IngestError> {
    take_tab_id(map, index)?.ok_or_else(|| entry_error(index, "tabId", "required field is missing"))
}

/// A string field that may be absent; a cut is recorded in `truncated` under its name.
fn optional_string(
    map: &mut Map<String, Value>,
    field: &str,
    index: usize,
    cap: usize,
    truncated: &mut Map<String, Value>,
) -> Result<Option<String>, IngestError> {
    match map.remove(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(mut s)) => {
            if let Some(original) = cap_string(&mut s, cap) {
                truncated.insert(field.to_owned(), original.into());
            }
            Ok(Some(s))
        }
        Some(_) => Err(entry_error(index, field, "must be a string")),
    }
}

/// Decodes a `POST /events/tabs` body: `{"entries": [...]}` or one object.
pub fn decode_tabs(body: &[u8], limits: &Limits) -> Result<Vec<TabInfo>, IngestError> {
    decode_objects(body, limits, true, |index, mut map| {
        let mut truncated = Map::new();
        Ok(TabInfo {
            tab_id: required_tab_id(&mut map, index)?,
            url: optional_string(&mut map, "url", index, limits.field_cap, &mut truncated)?,
            title: optional_string(&mut map, "title", index, limits.field_cap, &mut truncated)?,
            truncated: record(truncated),
        })
    })
}

/// Decodes a `POST /events/vitals` body: `{"entries": [...]}` or one object.
pub fn decode_vitals(body: &[u8], limits: &Limits) -> Result<Vec<Vitals>, IngestError> {
    decode_objects(body, limits, true, |index, mut map| {
        let tab_id = required_tab_id(&mut map, index)?;
        let mut truncated = Map::new();
        let url = optional_string(&mut map, "url", index, limits.field_cap, &mut truncated)?;
        let mut metrics = [None; 5];
        for (slot, name) in metrics.iter_mut().zip(VITALS) {
            *slot = match map.remove(name) {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_f64().ok_or_else(|| entry_error(index, name, "must be a number"))?),
            };
        }
        map.remove("ts");
        cap_keys(&mut map, "", limits, &mut truncated);
        for (key, value) in map.iter_mut() {
            cap_strings(value, key, key, limits, &mut truncated);
        }
        Ok(Vitals { tab_id, url, metrics, data: Value::Object(map).to_string(), truncated: record(truncated) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{LOGS, WEBSOCKET_EVENTS};

    fn decode(kind: &Kind, body: &str) -> Result<Vec<Row>, IngestError> {
        decode_events(kind, body.as_bytes(), &Limits::default(), 1_000)
    }

    #[test]
    fn keeps_columns_and_everything_else() {
        let rows = decode(&LOGS, r#"{"entries":[{"tabId":7,"ts":5,"level":"warn","message":"m","args":[1,{"a":2}]}]}"#)
            .unwrap();
        assert_eq!(rows[0].tab_id, Some(7));
        assert_eq!(rows[0].ts, 5);
        assert_eq!(rows[0].columns[0], SqlValue::Text("warn".into()));
        assert_eq!(rows[0].data, r#"{"args":[1,{"a":2}]}"#);
        assert_eq!(rows[0].truncated, None);
    }

    #[test]
    fn missing_ts_is_received_time_and_missing_tab_is_null() {
        let rows = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m"}]}"#).unwrap();
        assert_eq!((rows[0].tab_id, rows[0].ts), (None, 1_000));
    }

    #[test]
    fn errors_name_the_entry_and_field() {
        let err = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m"},{"level":"loud","message":"m"}]}"#);
        assert_eq!(err.unwrap_err().to_string(), "entries[1].level: must be one of debug, log, info, warn, error");
        let err = decode(&LOGS, r#"{"entries":[{"level":"log"}]}"#).unwrap_err();
        assert_eq!(err.to_string(), "entries[0].message: required field is missing");
        let err = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m","tabId":"7"}]}"#).unwrap_err();
        assert!(err.to_string().starts_with("entries[0].tabId: must be an integer"));
        let err = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m","tabId":1e30}]}"#).unwrap_err();
        assert!(matches!(err, IngestError::Entry { field, .. } if field == "tabId"));
        // Past 2^53 - 1 a JavaScript reader (the viewer) would show another tab's id.
        for id in ["9007199254740992", "-9007199254740993", "9223372036854775807", "-9223372036854775808"] {
            let err =
                decode(&LOGS, &format!(r#"{{"entries":[{{"level":"log","message":"m","tabId":{id}}}]}}"#)).unwrap_err();
            assert!(matches!(err, IngestError::Entry { ref field, .. } if field == "tabId"), "{id}: {err}");
        }
        let rows = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m","tabId":9007199254740991}]}"#).unwrap();
        assert_eq!(rows[0].tab_id, Some(9_007_199_254_740_991));
        // So would a time or a status past it.
        let err = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m","ts":9223372036854775807}]}"#).unwrap_err();
        assert!(err.to_string().starts_with("entries[0].ts: must be a number of milliseconds"), "{err}");
        let body = r#"{"entries":[{"url":"u","responseStatus":9223372036854775807}]}"#;
        let err = decode(&crate::kind::NETWORK_WATERFALL, body).unwrap_err();
        assert_eq!(err.to_string(), "entries[0].responseStatus: must be an integer of at most 2^53 - 1 in size");
    }

    #[test]
    fn direction_is_required_for_messages_only() {
        assert!(decode(&WEBSOCKET_EVENTS, r#"{"entries":[{"connectionId":"c","event":"open"}]}"#).is_ok());
        let err = decode(&WEBSOCKET_EVENTS, r#"{"entries":[{"connectionId":"c","event":"message"}]}"#).unwrap_err();
        assert_eq!(err.to_string(), "entries[0].direction: required when event is \"message\"");
    }

    #[test]
    fn long_strings_are_cut_and_recorded() {
        let big = "é".repeat(40_000);
        let body =
            format!(r#"{{"entries":[{{"level":"log","message":"{big}","responseBody":"{big}","x":["{big}"]}}]}}"#);
        let rows = decode(&LOGS, &body).unwrap();
        let SqlValue::Text(message) = &rows[0].columns[1] else { panic!() };
        assert!(message.len() <= 16 * 1024 && message.len() > 16 * 1024 - 2);
        let data: Value = serde_json::from_str(&rows[0].data).unwrap();
        assert!(data["responseBody"].as_str().unwrap().len() > 60_000);
        let truncated: Value = serde_json::from_str(rows[0].truncated.as_deref().unwrap()).unwrap();
        assert_eq!(truncated["message"], 80_000);
        assert_eq!(truncated["responseBody"], 80_000);
        assert_eq!(truncated["x[0]"], 80_000);
    }

    #[test]
    fn a_long_key_is_cut_like_a_value() {
        let limits = Limits { field_cap: 8, ..Limits::default() };
        let mut value = serde_json::json!({"args": [{"k".repeat(20): 1, "short": "v"}]});
        let mut truncated = Map::new();
        cap_strings(&mut value, "data", "data", &limits, &mut truncated);
        assert_eq!(value, serde_json::json!({"args": [{"kkkkkkkk": 1, "short": "v"}]}));
        assert_eq!(truncated.get("data.args[0].kkkkkkkk"), Some(&Value::from(20)));
    }

    #[test]
    fn a_tiny_field_cap_never_cuts_a_value_from_a_fixed_list() {
        let limits = Limits { field_cap: 3, ..Limits::default() };
        let body = br#"{"entries":[{"connectionId":"conn","event":"message","direction":"outgoing"}]}"#;
        let rows = decode_events(&WEBSOCKET_EVENTS, body, &limits, 0).unwrap();
        assert_eq!(rows[0].columns[1], SqlValue::Text("message".into()));
        assert_eq!(rows[0].columns[2], SqlValue::Text("outgoing".into()));
        assert_eq!(rows[0].columns[0], SqlValue::Text("con".into()));
    }

    #[test]
    fn reserved_client_fields_are_renamed_not_lost() {
        let rows = decode(&LOGS, r#"{"entries":[{"level":"log","message":"m","id":"abc","_truncated":1}]}"#).unwrap();
        let data: Value = serde_json::from_str(&rows[0].data).unwrap();
        assert_eq!(data["client_id"], "abc");
        assert_eq!(data["client__truncated"], 1);
    }

    #[test]
    fn shape_and_size_errors() {
        assert_eq!(decode(&LOGS, "[]").unwrap_err(), IngestError::Shape);
        assert!(matches!(decode(&LOGS, "{").unwrap_err(), IngestError::Json(_)));
        let many = format!(r#"{{"entries":[{}]}}"#, vec!["{}"; 10_001].join(","));
        assert_eq!(decode(&LOGS, &many).unwrap_err(), IngestError::TooManyEntries { count: 10_001, max: 10_000 });
    }

    #[test]
    fn shape_counts_values_strings_and_depth_without_building_them() {
        let shape = Shape::measure(br#"{"entries":[{"a":"x,]\"}","b":[1,-2.5e3,true,null]},{}]}"#).unwrap();
        // values: outer {}, "entries", [], {}, "a", "x,]\"}", "b", [], 1, -2.5e3, true, null, {}
        assert_eq!(shape, Shape { values: 13, strings: 4, depth: 4 });
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(Shape::measure(deep.as_bytes()).unwrap_err().to_string().contains("recursion limit"));
        let zeros = format!("[{}0]", "0,".repeat(999));
        assert_eq!(Shape::measure(zeros.as_bytes()).unwrap().values, 1_001);
    }

    #[test]
    fn tabs_and_vitals_accept_a_single_object() {
        let tabs = decode_tabs(br#"{"tabId":3,"url":"u","title":"t"}"#, &Limits::default()).unwrap();
        assert_eq!(tabs, vec![TabInfo { tab_id: 3, url: Some("u".into()), title: Some("t".into()), truncated: None }]);
        let vitals = decode_vitals(br#"{"entries":[{"tabId":3,"lcp":1200.5,"cls":0.1}]}"#, &Limits::default()).unwrap();
        assert_eq!(vitals[0].metrics, [Some(1200.5), Some(0.1), None, None, None]);
        assert!(decode_tabs(br#"{"url":"u"}"#, &Limits::default()).is_err());
    }
}
