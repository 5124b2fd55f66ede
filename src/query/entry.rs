//! One stored row → the JSON text of one observe entry, and clipping of an entry
//! that alone would not fit an answer.

use std::borrow::Cow;

use rusqlite::Row;
use rusqlite::types::ValueRef;
use serde_json::Value;

use crate::kind::Kind;

/// `{"id":…,"tabId":…,"ts":…,<columns>,<data fields>[,"_truncated":{…}]}`.
/// Built as bytes: the `data` column is already a JSON object and is spliced in,
/// and strings are escaped straight into the output (this is observe's hot loop).
pub fn entry_json(kind: &Kind, row: &Row<'_>) -> rusqlite::Result<String> {
    // Most entries fit without growing: growth was 6% of a page read.
    let mut out = Vec::with_capacity(ENTRY_CAPACITY);
    out.extend_from_slice(b"{\"id\":");
    push_value(&mut out, row.get_ref(0)?);
    out.extend_from_slice(b",\"tabId\":");
    push_value(&mut out, row.get_ref(1)?);
    out.extend_from_slice(b",\"ts\":");
    push_value(&mut out, row.get_ref(2)?);
    for (i, column) in kind.columns.iter().enumerate() {
        let value = row.get_ref(3 + i)?;
        if value != ValueRef::Null {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(column.field.as_bytes());
            out.extend_from_slice(b"\":");
            push_value(&mut out, value);
        }
    }
    let n = kind.columns.len();
    if let ValueRef::Text(data) = row.get_ref(3 + n)? {
        let data = text(data);
        let data = data.trim();
        match data.strip_prefix('{').and_then(|d| d.strip_suffix('}')) {
            Some(inner) if !inner.trim().is_empty() => {
                out.push(b',');
                out.extend_from_slice(inner.as_bytes());
            }
            Some(_) => {}
            // Not an object (edited by hand?): keep it visible rather than break the answer.
            None => {
                out.extend_from_slice(b",\"data\":");
                push_text(&mut out, data);
            }
        }
    }
    if let ValueRef::Text(t) = row.get_ref(4 + n)? {
        out.extend_from_slice(b",\"_truncated\":");
        match serde_json::from_slice::<Value>(t) {
            Ok(v) => push_json(&mut out, &v),
            Err(_) => push_text(&mut out, &text(t)),
        }
    }
    out.push(b'}');
    // Everything written is UTF-8 (escaped strings, JSON text that was valid UTF-8).
    Ok(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Bytes reserved for an entry's JSON.
const ENTRY_CAPACITY: usize = 768;

fn push_value(out: &mut Vec<u8>, value: ValueRef<'_>) {
    match value {
        ValueRef::Null => out.extend_from_slice(b"null"),
        ValueRef::Integer(i) => push_json(out, &i),
        ValueRef::Real(f) => push_json(out, &f),
        ValueRef::Text(t) => push_text(out, &text(t)),
        ValueRef::Blob(b) => push_json(out, &format!("<{} bytes of binary data>", b.len())),
    }
}

/// Writes `s` as a JSON string. Most stored text has nothing to escape and is copied
/// whole (serde_json's escaper goes byte by byte: it was a tenth of a page read); the
/// rest goes through serde_json, so the output is the same either way.
fn push_text(out: &mut Vec<u8>, s: &str) {
    // A fold without early exit, so that it vectorises.
    let needs_escape = s.bytes().fold(false, |found, b| found | (b < 0x20) | (b == b'"') | (b == b'\\'));
    if needs_escape {
        push_json(out, s);
    } else {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// Writes `value` as JSON (a non-finite float becomes null).
fn push_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

/// Stored text as a string; bytes that are not UTF-8 (written by hand) become U+FFFD.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    std::str::from_utf8(bytes).map_or_else(|_| String::from_utf8_lossy(bytes), Cow::Borrowed)
}

/// Number of characters as `max_chars` counts them: UTF-16 units, as a JavaScript client's
/// `length` does (an emoji is two), never fewer than the code points.
pub fn chars(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.encode_utf16().count() }
}

/// Keys that identify an entry; clipping never removes them.
const KEPT: [&str; 3] = ["id", "tabId", "ts"];
/// Room kept for the `_clipped` and `_omitted_fields` markers.
const MARKERS: usize = 48;

/// Fits an entry into `target` characters and marks it `"_clipped": true`.
/// Identity fields stay; the other fields go in smallest first while they fit
/// whole, the first one that does not is cut to the room left (a nested value
/// becomes a cut preview of its JSON), and the count of fields left out is in
/// `_omitted_fields`. One pass: linear in the entry's size after a sort of its
/// fields, whatever their number.
pub fn clip(entry: &str, target: usize) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(entry) else {
        return "{\"_clipped\":true}".into();
    };
    let mut out = serde_json::Map::new();
    let mut rest = Vec::with_capacity(fields.len());
    for (key, value) in fields {
        if KEPT.contains(&key.as_str()) {
            out.insert(key, value);
        } else if key != "_clipped" {
            // "key":value, — what the field adds to the object's text.
            let size = chars(&Value::from(key.as_str()).to_string()) + chars(&value.to_string()) + 2;
            rest.push((size, key, value));
        }
    }
    out.insert("_clipped".into(), Value::Bool(true));
    let mut used = chars(&Value::Object(out.clone()).to_string()) + MARKERS;
    rest.sort_by_key(|(size, _, _)| *size);
    let mut omitted = 0usize;
    for (size, key, value) in rest {
        if used + size <= target {
            used += size;
            out.insert(key, value);
            continue;
        }
        let room = target.saturating_sub(used + chars(&Value::from(key.as_str()).to_string()) + 2);
        match preview(&value, room) {
            Some(cut) => {
                used += chars(&Value::from(key.as_str()).to_string()) + chars(&cut.to_string()) + 2;
                out.insert(key, cut);
            }
            None => omitted += 1,
        }
    }
    if omitted > 0 {
        out.insert("_omitted_fields".into(), Value::from(omitted));
    }
    Value::Object(out).to_string()
}

/// Whether an entry's text is one [`clip`] shortened (it says `"_clipped": true`).
pub fn is_clipped(text: &str) -> bool {
    text.contains("\"_clipped\":true")
}

/// Whether a clipped entry kept nothing but its identity fields and clipping's markers.
pub fn is_shell(clipped: &str) -> bool {
    match serde_json::from_str::<Value>(clipped) {
        Ok(Value::Object(fields)) => {
            fields.keys().all(|k| KEPT.contains(&k.as_str()) || k == "_clipped" || k == "_omitted_fields")
        }
        _ => true,
    }
}

/// A cut string standing for `value` in at most `room` characters of JSON, or
/// `None` when there is too little room to say anything useful.
fn preview(value: &Value, room: usize) -> Option<Value> {
    const USEFUL: usize = 24;
    if room < USEFUL {
        return None;
    }
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // Escaping can grow a character to six (\u0000), so cut by the escaped size.
    let mut cut = String::new();
    let mut size = 2 + 1; // quotes and the ellipsis
    for c in text.chars() {
        let escaped = chars(&Value::from(c.to_string()).to_string()) - 2;
        if size + escaped > room {
            break;
        }
        size += escaped;
        cut.push(c);
    }
    cut.push('…');
    Some(Value::from(cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_fits_and_keeps_the_id() {
        let big =
            format!(r#"{{"id":7,"tabId":1,"ts":2,"a":"{}","b":[{}]}}"#, "x".repeat(50_000), vec!["1"; 5_000].join(","));
        let clipped = clip(&big, 1_000);
        assert!(chars(&clipped) <= 1_000, "{}", chars(&clipped));
        let v: Value = serde_json::from_str(&clipped).unwrap();
        assert_eq!((v["id"].as_i64(), v["_clipped"].as_bool()), (Some(7), Some(true)));
    }

    #[test]
    fn clip_is_fast_and_fits_with_many_small_fields() {
        let fields: Vec<String> = (0..200_000).map(|i| format!(r#""f{i}":"v""#)).collect();
        let big = format!(r#"{{"id":9,"tabId":null,"ts":3,{}}}"#, fields.join(","));
        let clipped = clip(&big, 1_000);
        assert!(chars(&clipped) <= 1_000, "{}", chars(&clipped));
        let v: Value = serde_json::from_str(&clipped).unwrap();
        assert_eq!(v["id"], 9);
        let kept = v.as_object().unwrap().keys().filter(|k| k.starts_with('f')).count();
        assert!(kept > 50, "as many whole fields as fit are kept: {kept}");
        assert_eq!(v["_omitted_fields"].as_u64(), Some(200_000 - kept as u64));
    }

    #[test]
    fn clip_cuts_escaped_text_within_the_target() {
        let big = format!(r#"{{"id":1,"message":"{}"}}"#, "\\u0001".repeat(10_000));
        let clipped = clip(&big, 1_000);
        assert!(chars(&clipped) <= 1_000, "{}", chars(&clipped));
        assert!(clipped.contains("\\u0001"));
    }

    #[test]
    fn text_is_escaped_as_serde_json_does() {
        for s in ["plain", "", "quote \" and \\ back", "tab\tnew\nline", "\u{1}\u{1f}\u{7f}", "é ✓ 𝄞 \u{2028}"] {
            let mut out = Vec::new();
            push_text(&mut out, s);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn chars_counts_characters_not_bytes() {
        assert_eq!(chars("héllo"), 5);
        assert_eq!(chars("a😀"), 3, "an emoji is two UTF-16 units, as JavaScript counts it");
    }
}
