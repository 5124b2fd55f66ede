//! Logged objects as JavaScript literals: `{i:6,name:'x'}` costs far fewer tokens inside a JSON
//! string than `{\"i\":6,\"name\":\"x\"}`, and reads as DevTools shows the object.
//!
//! Only an object written as the extension writes it is rewritten: compact, as `JSON.stringify`
//! makes it (each string and number reads back the same, each key once), and with the values JSON
//! cannot hold written bare (`NaN`, `Infinity`, `-0`, `undefined`, `12n`, `Symbol(s)`), as the
//! extension writes them. Text that merely looks like an object (a key named twice, a 30-digit
//! number, spacing of its own) is left as the page wrote it, since its literal would say something
//! else. Pure.

use std::borrow::Cow;

/// Deepest nesting read: the extension writes 5 levels; a page's own text may hold any number of
/// brackets, which must not take the server's stack.
const MAX_DEPTH: usize = 64;

/// `s` with each object or array in it written as a JavaScript literal.
pub fn literals(s: &str) -> Cow<'_, str> {
    if !s.contains(['{', '[']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut changed = false;
    while let Some(start) = rest.find(['{', '[']) {
        out.push_str(&rest[..start]);
        let candidate = &rest[start..];
        let mut literal = String::new();
        match value(candidate, &mut literal, 0) {
            Some(used) if used > 2 => {
                out.push_str(&literal);
                rest = &candidate[used..];
                changed = true;
            }
            _ => {
                // One that begins as the extension writes an object and is not one (a message cut
                // short, mid-object) is left as written to its end: its inner objects rewritten
                // inside it would mix two ways of writing one object.
                let skip = if looks_written(candidate) { raw_extent(candidate) } else { 1 };
                out.push_str(&candidate[..skip]);
                rest = &candidate[skip..];
            }
        }
    }
    out.push_str(rest);
    if changed { Cow::Owned(out) } else { Cow::Borrowed(s) }
}

/// Whether `text` begins as the extension writes an object or array: `{"`, or `[` then a value's
/// first character (not `[INFO]`, a page's prose).
fn looks_written(text: &str) -> bool {
    let b = text.as_bytes();
    match (b.first(), b.get(1)) {
        (Some(b'{'), Some(b'"')) => true,
        (Some(b'['), Some(c)) => matches!(c, b'"' | b'{' | b'[' | b'-' | b'0'..=b'9'),
        _ => false,
    }
}

/// How far the bracket `text` begins with reaches: past its matching close, or to the end of the
/// text when it never closes (cut short). Brackets inside strings do not count.
pub(super) fn raw_extent(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut i, mut in_string) = (0usize, 0usize, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'{' | b'[' if !in_string => depth += 1,
            b'}' | b']' if !in_string => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// Reads one value at the start of `text` as the extension writes it, writes its literal to
/// `out`, and answers how many bytes it took; None for anything else.
fn value(text: &str, out: &mut String, depth: usize) -> Option<usize> {
    let first = *text.as_bytes().first()?;
    match first {
        b'{' | b'[' if depth < MAX_DEPTH => container(text, out, depth),
        b'"' => {
            let (s, used) = string(text)?;
            quoted(out, &s);
            Some(used)
        }
        _ => {
            let used = scalar(text)?;
            out.push_str(&text[..used]);
            Some(used)
        }
    }
}

fn container(text: &str, out: &mut String, depth: usize) -> Option<usize> {
    let object = text.starts_with('{');
    let close = if object { b'}' } else { b']' };
    out.push(if object { '{' } else { '[' });
    let bytes = text.as_bytes();
    let mut at = 1;
    let mut keys: Vec<String> = Vec::new();
    if bytes.get(at) == Some(&close) {
        out.push(close as char);
        return Some(at + 1);
    }
    loop {
        if object {
            let (key, used) = string(&text[at..])?;
            if keys.contains(&key) {
                return None; // JSON.stringify names a key once
            }
            if is_identifier(&key) {
                out.push_str(&key);
            } else {
                quoted(out, &key);
            }
            keys.push(key);
            at += used;
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            out.push(':');
            at += 1;
        }
        at += value(&text[at..], out, depth + 1)?;
        match bytes.get(at) {
            Some(b',') => {
                out.push(',');
                at += 1;
            }
            Some(&b) if b == close => {
                out.push(close as char);
                return Some(at + 1);
            }
            _ => return None,
        }
    }
}

/// A JSON string at the start of `text`, as `JSON.stringify` writes it: its text and length.
fn string(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                let written = &text[..=i];
                let s: String = serde_json::from_str(written).ok()?;
                // Read back the same as written: escapes of its own are a page's text.
                return (serde_json::to_string(&s).ok()? == written).then_some((s, i + 1));
            }
            _ => i += 1,
        }
    }
    None
}

/// A number, `true`, `false`, `null`, or a value JSON cannot hold as the extension writes it bare:
/// how many bytes it takes.
fn scalar(text: &str) -> Option<usize> {
    let end = text.find([',', '}', ']']).unwrap_or(text.len());
    let token = &text[..end];
    let bare = matches!(token, "true" | "false" | "null" | "NaN" | "Infinity" | "-Infinity" | "undefined" | "-0")
        || bigint(token)
        || symbol(token);
    if bare {
        return Some(end);
    }
    // A number reads back as written, as JSON.stringify writes it (not 30 digits past f64's).
    let number: serde_json::Number = serde_json::from_str(token).ok()?;
    (number.to_string() == token).then_some(end)
}

/// `12n`, `-3n`: a bigint as the extension writes it.
fn bigint(token: &str) -> bool {
    let digits = token.strip_suffix('n').map(|t| t.strip_prefix('-').unwrap_or(t));
    digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `Symbol(desc)`: a symbol as the extension writes it, its description without brackets or quotes.
fn symbol(token: &str) -> bool {
    token
        .strip_prefix("Symbol(")
        .and_then(|t| t.strip_suffix(')'))
        .is_some_and(|desc| !desc.contains(['(', ')', '"', '\'', '{', '[', ':']))
}

fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn quoted(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logged_objects_become_literals_and_keep_their_content() {
        let m = r#"event 6 of the flood {"i":6,"user":{"id":6,"name":"user6"},"tags":["a","b"],"a-b":"it's"}"#;
        assert_eq!(literals(m), r#"event 6 of the flood {i:6,user:{id:6,name:'user6'},tags:['a','b'],'a-b':'it\'s'}"#);
        assert_eq!(literals("no objects {here"), "no objects {here");
        assert_eq!(literals("[] {} [1]"), "[] {} [1]");
        assert_eq!(literals(r#"{"a":[],"b":{},"c":[1.5,-2,1e-7,true,null]}"#), "{a:[],b:{},c:[1.5,-2,1e-7,true,null]}");
        // Text that only looks like JSON keeps what it says: a key named twice, a number past
        // f64's digits, spacing of its own, escapes JSON.stringify would not write.
        for kept in [
            r#"dup {"a":1,"a":2}"#,
            r#"{"id":123456789012345678901234567890}"#,
            r#"json { "order": 4711 }"#,
            r#"{"a":"\u0041"}"#,
            r#"{"a":1"#,
            r#"{"a":NaNx}"#,
        ] {
            assert_eq!(literals(kept), kept);
        }
    }

    /// A message cut short inside an object (the extension's 16 KB cap, a summary's example) keeps
    /// that object as written, its inner objects too: an Angular review read
    /// `{"headers":{headers:{'[Map]':[]}},"status":0…`, two ways of writing one object.
    #[test]
    fn an_object_cut_short_is_left_as_written_inside_too() {
        let cut = r#"backend unreachable {"headers":{"headers":{"[Map]":[]}},"status":0,"statusText":"Unknown Err"#;
        assert_eq!(literals(cut), cut);
        let after = r#"{"a":1,"b":{"c":2} then {"d":3}"#;
        assert_eq!(literals(after), after, "no close for the first: the rest is that object's");
        assert_eq!(literals(r#"{"a":1 x} then {"d":3}"#), r#"{"a":1 x} then {d:3}"#, "one that closes ends there");
        assert_eq!(literals(r#"[INFO] {"d":3}"#), "[INFO] {d:3}", "prose in brackets is no object");
        assert_eq!(literals(r#"{"s":"a}b"x {"d":3}"#), r#"{"s":"a}b"x {"d":3}"#, "a bracket in a string is text");
    }

    #[test]
    fn values_json_cannot_hold_are_written_bare() {
        assert_eq!(
            literals(
                r#"cart {"total":NaN,"coupon":undefined,"max":Infinity,"min":-Infinity,"z":-0,"cents":12n,"k":Symbol(s),"name":"NaN"}"#
            ),
            "cart {total:NaN,coupon:undefined,max:Infinity,min:-Infinity,z:-0,cents:12n,k:Symbol(s),name:'NaN'}"
        );
        assert_eq!(literals("[undefined,-3n]"), "[undefined,-3n]");
    }

    proptest::proptest! {
        /// Whatever a page logs: read without a panic, and text without brackets left as it is.
        #[test]
        fn any_text_is_read(s in "[\\[\\]{}\":,a-zNIfn0-9\\\\.' -]{0,300}") {
            let out = literals(&s);
            if !s.contains(['{', '[']) {
                proptest::prop_assert_eq!(out.as_ref(), s.as_str());
            }
        }
    }

    #[test]
    fn deep_brackets_are_left_as_written() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(literals(&deep).len(), deep.len());
        let nested = format!("{}1{}", "[".repeat(60), "]".repeat(60));
        assert_eq!(literals(&nested), nested, "within the depth: the same text, as a literal");
    }
}
