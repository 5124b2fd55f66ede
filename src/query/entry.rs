//! One stored row → the JSON text of one observe entry, and clipping of an entry
//! that alone would not fit an answer.

use rusqlite::Row;
use rusqlite::types::ValueRef;
use serde_json::Value;

use crate::kind::Kind;

/// `{"id":…,"tabId":…,"ts":…,<columns>,<data fields>[,"_truncated":{…}]}`.
/// Built as text: the `data` column is already a JSON object and is spliced in.
pub fn entry_json(kind: &Kind, row: &Row<'_>) -> rusqlite::Result<String> {
    let mut out = String::with_capacity(256);
    out.push_str("{\"id\":");
    push_value(&mut out, row.get_ref(0)?);
    out.push_str(",\"tabId\":");
    push_value(&mut out, row.get_ref(1)?);
    out.push_str(",\"ts\":");
    push_value(&mut out, row.get_ref(2)?);
    for (i, column) in kind.columns.iter().enumerate() {
        let value = row.get_ref(3 + i)?;
        if value != ValueRef::Null {
            out.push_str(",\"");
            out.push_str(column.field);
            out.push_str("\":");
            push_value(&mut out, value);
        }
    }
    let n = kind.columns.len();
    if let ValueRef::Text(data) = row.get_ref(3 + n)? {
        let data = String::from_utf8_lossy(data);
        let data = data.trim();
        match data.strip_prefix('{').and_then(|d| d.strip_suffix('}')) {
            Some(inner) if !inner.trim().is_empty() => {
                out.push(',');
                out.push_str(inner);
            }
            Some(_) => {}
            // Not an object (edited by hand?): keep it visible rather than break the answer.
            None => {
                out.push_str(",\"data\":");
                out.push_str(&Value::from(data).to_string());
            }
        }
    }
    if let ValueRef::Text(t) = row.get_ref(4 + n)? {
        out.push_str(",\"_truncated\":");
        match serde_json::from_slice::<Value>(t) {
            Ok(v) => out.push_str(&v.to_string()),
            Err(_) => out.push_str(&Value::from(String::from_utf8_lossy(t)).to_string()),
        }
    }
    out.push('}');
    Ok(out)
}

fn push_value(out: &mut String, value: ValueRef<'_>) {
    match value {
        ValueRef::Null => out.push_str("null"),
        ValueRef::Integer(i) => out.push_str(&i.to_string()),
        ValueRef::Real(f) => out.push_str(&Value::from(f).to_string()),
        ValueRef::Text(t) => out.push_str(&Value::from(String::from_utf8_lossy(t)).to_string()),
        ValueRef::Blob(b) => out.push_str(&Value::from(format!("<{} bytes of binary data>", b.len())).to_string()),
    }
}

/// Number of characters, which is what `max_chars` counts.
pub fn chars(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.chars().count() }
}

/// Shrinks an entry's largest strings and arrays until it fits `target`
/// characters, and marks it `"_clipped": true`. Ids and numbers are kept.
pub fn clip(entry: &str, target: usize) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(entry) else {
        return "{\"_clipped\":true}".into();
    };
    if let Value::Object(map) = &mut value {
        map.insert("_clipped".into(), Value::Bool(true));
    }
    loop {
        let text = value.to_string();
        let size = chars(&text);
        if size <= target {
            return text;
        }
        if !shrink_largest(&mut value, size - target) {
            // Only the skeleton is left and it still does not fit.
            return text;
        }
    }
}

/// Cuts the largest string or array under `value` by at least `excess` characters
/// where it can; returns false when nothing is left to cut.
fn shrink_largest(value: &mut Value, excess: usize) -> bool {
    match value {
        Value::String(s) => {
            let len = s.chars().count();
            if len == 0 {
                return false;
            }
            let keep = len.saturating_sub(excess + 8).min(len / 2);
            *s = s.chars().take(keep).collect::<String>() + "…";
            if keep == 0 {
                s.clear();
            }
            true
        }
        Value::Array(items) => {
            if items.len() > 1 {
                items.truncate(items.len() / 2);
                return true;
            }
            items.first_mut().is_some_and(|item| shrink_largest(item, excess)) || {
                let had = !items.is_empty();
                items.clear();
                had
            }
        }
        Value::Object(map) => {
            let largest = map
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "id" | "tabId" | "ts" | "_clipped"))
                .max_by_key(|(_, v)| v.to_string().len())
                .map(|(k, _)| k.clone());
            match largest {
                Some(key) => {
                    map.get_mut(&key).is_some_and(|v| shrink_largest(v, excess)) || {
                        map.remove(&key);
                        true
                    }
                }
                None => false,
            }
        }
        _ => false,
    }
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
    fn chars_counts_characters_not_bytes() {
        assert_eq!(chars("héllo"), 5);
    }
}
