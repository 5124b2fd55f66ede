//! `search`: a case-insensitive substring of the text as the page produced it,
//! over every kind's text (log messages and arguments, stacks, URLs, headers,
//! bodies, WebSocket data, action targets).
//!
//! Matched against string values, not their JSON escaping: a needle `"id":4711`
//! finds a response body holding that JSON (stored as `"{\"id\":4711}"`), and a
//! needle `\"` does not match every escaped quote. A scan, not an index: an SQL
//! function ([`FUNCTION`]) run as one more condition of the filter's WHERE clause,
//! so that search combines with every filter and paging mode, and counts and
//! cursors keep their guarantees. BENCHMARKS.md has the figures (a full default
//! ring of every kind, a needle that matches nothing) that chose it over FTS.
//!
//! Per row: the kind's searched columns are matched as they are; for `data`
//! (canonical JSON, as ingest writes it), the needle's JSON-escaped form is looked
//! for in the raw text first (a string value holding the needle holds it escaped),
//! which rejects almost every row in one pass of a literal search; only on a hit
//! are the string values walked, unescaped, and matched. Keys of the top-level
//! object are ours (field names) and never match; nested keys (header names, a
//! logged object's keys) are the page's. Fields the server derives (source-mapped
//! `original`/`frames`, what was `redacted`, join ids) are not the page's text
//! and are skipped, which also keeps a row's match fixed once stored (the cached
//! counts of `count.rs` rely on it).

use regex::bytes::{Regex, RegexBuilder};
use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;

use crate::kind::{ColumnType, Kind};

/// The SQL function: `gasoline_search(needle, data, column...)` is 1 when the needle
/// is in one of the columns or in a string value of `data`.
pub const FUNCTION: &str = "gasoline_search";

/// Longest needle, in characters.
pub const MAX_CHARS: usize = 1_000;

/// Fields of `data` that are not text the page produced.
const SKIPPED: [&str; 11] = [
    "original",
    "frames",
    "sourcemap",
    "redacted",
    "requestId",
    "frameId",
    "parentFrameId",
    "category",
    "connectionId",
    "source",
    "initiatorType",
];

/// Columns that hold a label of ours or the browser's, not the page's text.
const LABELS: [&str; 5] = ["method", "initiator_type", "source", "type", "connection_id"];

/// A needle that may be searched for, or why not.
pub fn validate(needle: &str) -> Result<String, String> {
    if needle.is_empty() {
        return Err(
            "search is empty: send the text to find (a case-insensitive substring, e.g. \"undefined is not\"), or leave search out"
                .into(),
        );
    }
    let chars = needle.chars().count();
    if chars > MAX_CHARS {
        return Err(format!(
            "search is {chars} characters; it takes at most {MAX_CHARS}: send a distinctive part of the text"
        ));
    }
    Ok(needle.to_string())
}

/// The SQL condition "this row of `kind` holds the needle" (one `?`: the needle).
pub fn condition(kind: &Kind) -> String {
    let mut sql = format!("{FUNCTION}(?, data");
    for c in searched_columns(kind) {
        sql.push_str(", ");
        sql.push_str(c);
    }
    sql.push_str(") = 1");
    sql
}

/// The text columns of `kind` that hold the page's text (not a fixed list of values
/// such as a level, nor a method).
fn searched_columns(kind: &Kind) -> impl Iterator<Item = &'static str> + '_ {
    kind.columns
        .iter()
        .filter(|c| c.ty == ColumnType::Text && c.one_of.is_empty() && !LABELS.contains(&c.name))
        .map(|c| c.name)
}

/// Makes [`FUNCTION`] known to `conn`, once per connection (registering it again
/// would expire every cached statement of the connection).
pub fn ensure(conn: &Connection) -> rusqlite::Result<()> {
    let known = conn.prepare_cached(&format!("SELECT {FUNCTION}('x', '{{}}')")).is_ok();
    if known {
        return Ok(());
    }
    conn.create_scalar_function(
        FUNCTION,
        -1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS,
        call,
    )
}

fn call(ctx: &Context<'_>) -> rusqlite::Result<bool> {
    if ctx.len() < 2 {
        return Err(rusqlite::Error::UserFunctionError(format!("{FUNCTION} takes a needle and data").into()));
    }
    let needle = ctx.get_or_create_aux(0, |v| -> Result<Needle, Box<dyn std::error::Error + Send + Sync>> {
        let text = v.as_str()?;
        Ok(Needle::new(text)?)
    })?;
    for i in 2..ctx.len() {
        if let ValueRef::Text(t) = ctx.get_raw(i)
            && needle.plain.is_match(t)
        {
            return Ok(true);
        }
    }
    Ok(match ctx.get_raw(1) {
        ValueRef::Text(data) => needle.in_json(data),
        _ => false,
    })
}

/// A compiled needle.
#[derive(Debug)]
pub struct Needle {
    /// The needle, case-insensitive.
    plain: Finder,
    /// Its JSON-escaped form, for the raw text of `data`.
    escaped: Finder,
}

impl Needle {
    pub fn new(needle: &str) -> Result<Needle, regex::Error> {
        let json = serde_json::to_string(needle).unwrap_or_default();
        let escaped = json.get(1..json.len().saturating_sub(1)).unwrap_or(needle);
        Ok(Needle { plain: Finder::new(needle)?, escaped: Finder::new(escaped)? })
    }

    /// True when `text` holds the needle.
    pub fn in_text(&self, text: &str) -> bool {
        self.plain.is_match(text.as_bytes())
    }

    /// True when a string value of the JSON object `data` (or a key below its top
    /// level) holds the needle, outside the skipped fields.
    pub fn in_json(&self, data: &[u8]) -> bool {
        self.escaped.is_match(data) && walk(data, |s| self.plain.is_match(s))
    }
}

/// A case-insensitive substring finder. An ASCII needle (the usual case) is found by
/// `memchr` on its rarest byte in both cases, each candidate compared ignoring ASCII
/// case: several times faster per row than a regex call on short texts. Other
/// needles go through a case-insensitive regex (Unicode simple case folding). Two
/// ASCII letters have a non-ASCII case mate in that folding, `k` (K, the Kelvin sign)
/// and `s` (ſ, the long s): a needle with one of them also tries the regex on a text
/// the fast path missed, when that text is not ASCII.
#[derive(Debug)]
enum Finder {
    Ascii {
        /// The needle, lowercased.
        lower: Vec<u8>,
        /// Where its rarest byte is, and that byte in lower and upper case.
        at: usize,
        cases: (u8, u8),
        /// For a needle with `k` or `s`: the case-insensitive regex, for non-ASCII texts.
        unicode: Option<Regex>,
    },
    Unicode(Regex),
}

impl Finder {
    fn new(needle: &str) -> Result<Finder, regex::Error> {
        let regex = || RegexBuilder::new(&regex::escape(needle)).case_insensitive(true).size_limit(64 << 20).build();
        if !needle.is_ascii() || needle.is_empty() {
            return Ok(Finder::Unicode(regex()?));
        }
        let lower = needle.as_bytes().to_ascii_lowercase();
        let at = (0..lower.len()).max_by_key(|&i| (rarity(lower[i]), std::cmp::Reverse(i))).unwrap_or(0);
        let b = lower[at];
        let unicode = if lower.iter().any(|c| matches!(c, b'k' | b's')) { Some(regex()?) } else { None };
        Ok(Finder::Ascii { cases: (b, b.to_ascii_uppercase()), lower, at, unicode })
    }

    fn is_match(&self, hay: &[u8]) -> bool {
        match self {
            Finder::Unicode(regex) => regex.is_match(hay),
            Finder::Ascii { lower, at, cases, unicode } => {
                let n = lower.len();
                let fast = hay.len() >= n && {
                    // Candidates for the rare byte where the whole needle would still fit.
                    let window = &hay[*at..hay.len() - n + at + 1];
                    let found = |i: usize| hay[i..i + n].eq_ignore_ascii_case(lower);
                    if cases.0 == cases.1 {
                        memchr::memchr_iter(cases.0, window).any(found)
                    } else {
                        memchr::memchr2_iter(cases.0, cases.1, window).any(found)
                    }
                };
                fast || unicode.as_ref().is_some_and(|regex| !hay.is_ascii() && regex.is_match(hay))
            }
        }
    }
}

/// How rare a (lowercase) byte is in the text of web pages and JSON: higher is rarer.
fn rarity(b: u8) -> u8 {
    const LETTERS: &[u8] = b"etaoinsrhldcumfpgwybvkxjqz";
    match b {
        b' ' | b'"' | b':' | b',' | b'/' | b'.' | b'e' => 0,
        b'a'..=b'z' => 4 + LETTERS.iter().position(|&l| l == b).unwrap_or(0) as u8,
        b'0'..=b'9' => 6,
        b'{' | b'}' | b'[' | b']' | b'_' | b'-' | b'=' | b'\\' => 8,
        _ => 30,
    }
}

/// Calls `found` on the unescaped bytes of every string of `data` that is page text,
/// until it answers true.
fn walk(data: &[u8], mut found: impl FnMut(&[u8]) -> bool) -> bool {
    // Per open container: true for an object. `key` is set while an object waits for a key.
    let mut stack: Vec<bool> = Vec::with_capacity(8);
    let mut key = false;
    // Depth at which a skipped top-level field's value started (its subtree is skipped).
    let mut skip_from: Option<usize> = None;
    let mut last_top_key_skipped = false;
    let mut i = 0;
    let mut decoded = Vec::new();
    while i < data.len() {
        match data[i] {
            b'{' => {
                stack.push(true);
                key = true;
                i += 1;
            }
            b'[' => {
                stack.push(false);
                key = false;
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                if skip_from.is_some_and(|d| stack.len() < d) {
                    skip_from = None;
                }
                key = false;
                i += 1;
            }
            b',' => {
                key = stack.last().copied().unwrap_or(false);
                if stack.len() == 1 {
                    skip_from = None;
                }
                i += 1;
            }
            b':' => {
                key = false;
                if stack.len() == 1 && last_top_key_skipped {
                    skip_from = Some(1);
                }
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                let mut escaped = false;
                let end = loop {
                    match memchr::memchr2(b'"', b'\\', &data[j..]) {
                        Some(k) if data[j + k] == b'\\' => {
                            escaped = true;
                            j += k + 2;
                        }
                        Some(k) => break j + k,
                        None => return false,
                    }
                    if j >= data.len() {
                        return false;
                    }
                };
                let raw = &data[start..end];
                let top_key = key && stack.len() == 1;
                if top_key {
                    last_top_key_skipped = SKIPPED.iter().any(|s| s.as_bytes() == raw);
                } else if skip_from.is_none() {
                    let text: &[u8] = if escaped {
                        decoded.clear();
                        match serde_json::from_slice::<String>(&data[i..=end]) {
                            Ok(s) => decoded.extend_from_slice(s.as_bytes()),
                            Err(_) => decoded.extend_from_slice(raw),
                        }
                        &decoded
                    } else {
                        raw
                    };
                    if found(text) {
                        return true;
                    }
                }
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hit(needle: &str, data: serde_json::Value) -> bool {
        Needle::new(needle).unwrap().in_json(data.to_string().as_bytes())
    }

    #[test]
    fn string_values_unescaped_and_case_insensitive() {
        let body = json!({"responseBody": "{\"order\":4711,\"note\":\"line1\\nline2\"}"});
        assert!(hit("\"order\":4711", body.clone()), "quotes are ordinary characters");
        assert!(hit("ORDER", body.clone()));
        assert!(!hit("\\\"", body.clone()), "the escaping is not the text");
        assert!(hit("line1\\nline2", body), "the body's own escape is its text");
        let logged = json!({"args": ["line1\nline2 \"quoted\""]});
        assert!(hit("line1\nline2", logged.clone()), "a newline the page produced");
        assert!(hit("\"quoted\"", logged.clone()));
        assert!(!hit("\\n", logged.clone()), "stored as \\n, but the page wrote a newline");
        assert!(!hit("\\\"", logged));
        assert!(hit("ÉCOLE", json!({"args": ["école"]})), "Unicode case folding");
        // The two ASCII letters with a non-ASCII case mate: K (Kelvin sign) and ſ (long s).
        assert!(hit("kelvin sign k", json!({"message": "\u{212A}ELVIN SIGN \u{212A}"})));
        assert!(hit("mass", json!({"message": "MAſſ"})));
        assert!(!hit("kelvin", json!({"message": "\u{212A}elvi"})));
    }

    #[test]
    fn our_keys_and_derived_fields_never_match() {
        assert!(!hit("responseBody", json!({"responseBody": "x"})));
        assert!(hit("x-request-id", json!({"responseHeaders": {"X-Request-Id": "1"}})), "a header name");
        assert!(!hit("App.jsx", json!({"original": {"source": "src/App.jsx"}, "stack": "at main.js:1:2"})));
        assert!(hit("main.js", json!({"original": {"source": "src/App.jsx"}, "stack": "at main.js:1:2"})));
        assert!(!hit("true", json!({"fromCache": true})), "not a string");
        assert!(hit("true", json!({"frames": [1], "args": ["true"]})));
    }

    #[test]
    fn syntax_is_plain_text() {
        for needle in ["%", "_", "*", "\"", "NEAR", "-x", "a\"b", "(", "[", "\\", "'"] {
            assert!(!hit(needle, json!({"message": "plain"})), "{needle}");
            assert!(hit(needle, json!({"m": format!("a{needle}b")})), "{needle}");
        }
    }

    #[test]
    fn the_ascii_finder_agrees_with_lowercase_contains() {
        let hays = ["", "a", "Zq-Nothing-3", "xx zq-nothing-3", "zq-nothing", "AAAb", "\\\"quoted\\\"", "%_%", "aaa"];
        for needle in ["a", "zq-NOTHING-3", "ab", "B", "\\\"", "%_", "aaaa", "q-n"] {
            let f = Finder::new(needle).unwrap();
            for hay in hays {
                let want = hay.to_lowercase().contains(&needle.to_lowercase());
                assert_eq!(f.is_match(hay.as_bytes()), want, "{needle:?} in {hay:?}");
            }
        }
    }

    #[test]
    fn validation() {
        assert!(validate("").unwrap_err().contains("empty"));
        assert!(validate(&"x".repeat(MAX_CHARS + 1)).unwrap_err().contains("at most"));
        assert_eq!(validate("NEAR \"x").unwrap(), "NEAR \"x");
    }
}
