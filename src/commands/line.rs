//! One entry as one line for a person: time, tab, kind, level, then what
//! happened. Styled by severity; the stream the line goes to drops the styles
//! when it is not a terminal (anstream).

use anstyle::{AnsiColor, Style};
use chrono::{DateTime, Local};
use serde_json::Value;

use crate::kind::{Kind, NETWORK_BODIES, NETWORK_WATERFALL};
use crate::query::outcome::{self, Outcome};
use crate::query::rows::Entry;

/// How bad an entry is, which picks its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Severity {
    Debug,
    Normal,
    Warn,
    Error,
}

impl Severity {
    fn style(self) -> Style {
        match self {
            Severity::Debug => Style::new().dimmed(),
            Severity::Normal => Style::new(),
            Severity::Warn => AnsiColor::Yellow.on_default(),
            Severity::Error => AnsiColor::Red.on_default().bold(),
        }
    }
}

/// The line for `entry` (without its newline), with ANSI styles.
pub fn render(entry: &Entry, today: chrono::NaiveDate) -> String {
    let v: Value = serde_json::from_str(&entry.json).unwrap_or(Value::Null);
    let (label, level, severity, text) = describe(entry.kind.name, &v);
    let tab = match v.get("tabId").and_then(Value::as_i64) {
        Some(t) => format!("tab {t}"),
        None => "tab -".into(),
    };
    let dim = Style::new().dimmed();
    let style = severity.style();
    format!(
        "{dim}{}{dim:#} {tab:>9} {label:<9} {style}{level:<5}{style:#} {style}{}{style:#}",
        time(entry.ts, today),
        one_line(&text)
    )
}

/// `HH:MM:SS.mmm` for today (local time), with the date before it otherwise.
fn time(ts: i64, today: chrono::NaiveDate) -> String {
    match DateTime::from_timestamp_millis(ts) {
        Some(t) => {
            let t = t.with_timezone(&Local);
            if t.date_naive() == today {
                t.format("%H:%M:%S%.3f").to_string()
            } else {
                t.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
            }
        }
        None => format!("ts={ts}"),
    }
}

/// Newlines and tabs of a message become visible marks, so one entry stays one line.
/// On one line, and safe for a terminal (`printable`): a page wrote it.
fn one_line(text: &str) -> String {
    let joined = text.trim_end().replace("\r\n", " ⏎ ").replace(['\n', '\r'], " ⏎ ");
    crate::printable::printable(&joined).into_owned()
}

fn str_of<'v>(v: &'v Value, field: &str) -> &'v str {
    v.get(field).and_then(Value::as_str).unwrap_or("")
}

fn level_severity(level: &str) -> Severity {
    match level {
        "error" => Severity::Error,
        "warn" => Severity::Warn,
        "debug" => Severity::Debug,
        _ => Severity::Normal,
    }
}

/// A request's severity by its outcome (`query::outcome`): reported errors and 5xx
/// are errors, 4xx warnings, an unknown outcome (status 0 or none) is not a failure.
fn request_severity(kind: &Kind, v: &Value) -> Severity {
    match Outcome::of_entry(kind, v) {
        Outcome::Error => Severity::Error,
        Outcome::Status(s) if s >= 500 => Severity::Error,
        Outcome::Status(s) if s >= 400 => Severity::Warn,
        Outcome::Status(_) | Outcome::Unknown => Severity::Normal,
    }
}

/// A request's HTTP status, from the field its kind's status is read from (`query::outcome`).
fn status_of(kind: &Kind, v: &Value) -> Option<i64> {
    outcome::status_field(kind).and_then(|field| v.get(field)).and_then(Value::as_i64)
}

/// A request's duration as a person reads it: whole milliseconds, or, for a
/// figure no real request takes (a page may send any number), a short exponent
/// instead of 300 digits. A negative one is unknown, as the HAR export counts it: not shown.
fn duration(v: &Value) -> String {
    v.get("duration")
        .and_then(Value::as_f64)
        .filter(|d| *d >= 0.0)
        .map(|d| format!(" {}ms", milliseconds(d)))
        .unwrap_or_default()
}

fn milliseconds(d: f64) -> String {
    if d.abs() < 1e9 { format!("{d:.0}") } else { format!("{d:.3e}") }
}

/// (kind label, level word, severity, text) of an entry of the named kind.
fn describe(kind: &str, v: &Value) -> (&'static str, String, Severity, String) {
    match kind {
        "logs" | "extension_logs" => {
            let level = str_of(v, "level").to_owned();
            // A logged object as observe's compact entries and DevTools write it: `{id:1,name:'x'}`.
            let message = str_of(v, "message");
            let mut text = crate::query::literals(message).into_owned();
            text.push_str(&cut_note(v, "message", message));
            // Where an error happened, in the source when its map was found.
            if level == "error"
                && let Some(at) = crate::query::at_of(v)
            {
                text.push_str(&format!("  (at {at})"));
            }
            if let Some(source) = v.get("source").and_then(Value::as_str).filter(|s| *s != "console") {
                text = format!("[{source}] {text}");
            }
            let label = if kind == "logs" { "console" } else { "extension" };
            (label, level.clone(), level_severity(&level), text)
        }
        "network_bodies" => {
            let status = status_of(&NETWORK_BODIES, v);
            let error = v.get("error").and_then(Value::as_str);
            let shown = status.map_or_else(|| "-".into(), |s| s.to_string());
            let mut text = format!("{} {} {shown}{}", str_of(v, "method"), str_of(v, "url"), duration(v));
            if let Some(e) = error {
                text.push_str(&format!(" ({e})"));
            }
            let severity = request_severity(&NETWORK_BODIES, v);
            ("body", level_word(severity), severity, text)
        }
        "network_waterfall" => {
            let status = status_of(&NETWORK_WATERFALL, v);
            let shown = status.map_or_else(|| "-".into(), |s| s.to_string());
            let initiator = crate::kind::request_type(v).unwrap_or_default();
            // The method where the page or the browser knew it (null for a resource timing alone).
            let method = v.get("method").and_then(Value::as_str).map_or_else(String::new, |m| format!("{m} "));
            let mut text = format!("{method}{} {shown}{} {initiator}", str_of(v, "url"), duration(v));
            if let Some(e) = v.get("error").and_then(Value::as_str) {
                text = format!("{} ({e})", text.trim_end());
            }
            // A document a form's POST redirected to: the form's action.
            if let Some(action) = v.get("afterFormPost").and_then(Value::as_str) {
                text = format!("{}  (after POST {action})", text.trim_end());
            }
            // A failed request's call site in the page's code, in the source when its map was found.
            if v.get("location").is_some()
                && let Some(at) = crate::query::request_at_of(v)
            {
                text = format!("{}  (at {at})", text.trim_end());
            }
            let severity = request_severity(&NETWORK_WATERFALL, v);
            ("request", level_word(severity), severity, text.trim_end().to_owned())
        }
        "websocket_events" => {
            let event = str_of(v, "event");
            let (severity, text) = match event {
                "message" => {
                    let arrow = if str_of(v, "direction") == "outgoing" { "→" } else { "←" };
                    let data = data_text(v);
                    let note = cut_note(v, "data", &data);
                    (Severity::Normal, format!("{arrow} {data}{note}"))
                }
                "open" => (Severity::Normal, format!("open {}", str_of(v, "url"))),
                "close" => {
                    let code = v.get("code").map(Value::to_string).unwrap_or_default();
                    (Severity::Normal, format!("close {code} {}", str_of(v, "reason")).trim_end().to_owned())
                }
                other => (Severity::Error, format!("{other} {}", str_of(v, "url"))),
            };
            let connection = str_of(v, "connectionId");
            ("websocket", level_word(severity), severity, format!("[{connection}] {text}"))
        }
        "actions" => {
            let kind = str_of(v, "type");
            let detail = [str_of(v, "selector"), str_of(v, "url"), str_of(v, "key")]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            ("action", "info".into(), Severity::Normal, format!("{kind} {detail}").trim_end().to_owned())
        }
        _ => ("entry", String::new(), Severity::Normal, v.to_string()),
    }
}

/// What follows a text cut on its way, so that a cut line does not pass for the whole: by
/// ingest, ` … (+N bytes sent)` from its `_truncated` length (as observe's compact entries say
/// it); by the page (`messageTruncated`, a frame's `truncated`), `… (cut in the page)`.
fn cut_note(v: &Value, field: &str, shown: &str) -> String {
    match v.get("_truncated").and_then(|t| t.get(field)).and_then(Value::as_u64) {
        Some(sent) => format!("… (+{} bytes sent)", (sent as usize).saturating_sub(shown.len())),
        None if v.get("messageTruncated") == Some(&Value::Bool(true)) && field == "message" => {
            "… (cut in the page)".into()
        }
        None if v.get("truncated") == Some(&Value::Bool(true)) && field == "data" => "… (cut in the page)".into(),
        None => String::new(),
    }
}

fn data_text(v: &Value) -> String {
    match v.get("data") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn level_word(severity: Severity) -> String {
    match severity {
        Severity::Debug => "debug",
        Severity::Normal => "info",
        Severity::Warn => "warn",
        Severity::Error => "error",
    }
    .into()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{describe, duration, milliseconds};

    #[test]
    fn a_duration_stays_short_whatever_the_page_sent() {
        assert_eq!(milliseconds(120.4), "120");
        assert_eq!(milliseconds(999_999_999.0), "999999999");
        assert_eq!(milliseconds(1e308), "1.000e308");
        assert_eq!(milliseconds(-2.5e12), "-2.500e12");
    }

    #[test]
    fn a_cut_message_says_it_is_cut() {
        let ingest = json!({"level": "log", "message": "abcdef", "_truncated": {"message": 20_006}});
        assert!(describe("logs", &ingest).3.ends_with("abcdef… (+20000 bytes sent)"));
        let page = json!({"level": "log", "message": "abc", "messageTruncated": true, "messageSize": 90_000});
        assert!(describe("logs", &page).3.ends_with("abc… (cut in the page)"));
        let frame =
            json!({"event": "message", "direction": "incoming", "data": "xy", "truncated": true, "connectionId": "w"});
        assert!(describe("websocket_events", &frame).3.ends_with("← xy… (cut in the page)"));
        let whole = json!({"level": "log", "message": "all of it", "location": "http://localhost:5173/src/a.js:3:1"});
        assert_eq!(describe("logs", &whole).3, "all of it");
    }

    #[test]
    fn an_error_says_where_it_happened() {
        let mapped = json!({"level": "error", "message": "boom", "location": "http://localhost:5173/assets/i.js:1:9",
                            "original": {"source": "src/App.jsx", "line": 12, "column": 9}});
        assert_eq!(describe("logs", &mapped).3, "boom  (at src/App.jsx:12:9)");
        let raw = json!({"level": "error", "message": "boom", "location": "http://localhost:5173/src/a.js:3:1"});
        assert_eq!(describe("logs", &raw).3, "boom  (at http://localhost:5173/src/a.js:3:1)");
        let nowhere = json!({"level": "error", "message": "boom"});
        assert_eq!(describe("logs", &nowhere).3, "boom");
    }

    #[test]
    fn a_failed_request_says_where_the_page_made_it() {
        let mapped = json!({"method": "GET", "url": "http://localhost:5173/api/cart", "responseStatus": 500,
                            "duration": 12.0, "initiatorType": "fetch", "location": "http://localhost:5173/src/App.jsx:5:26",
                            "original": {"source": "src/App.jsx", "line": 5, "column": 26}});
        assert_eq!(
            describe("network_waterfall", &mapped).3,
            "GET http://localhost:5173/api/cart 500 12ms fetch  (at src/App.jsx:5:26)"
        );
        let fine = json!({"method": "GET", "url": "http://localhost:5173/api/cart", "responseStatus": 200, "initiatorType": "fetch"});
        assert_eq!(describe("network_waterfall", &fine).3, "GET http://localhost:5173/api/cart 200 fetch");
        // A document a form's POST redirected to says which form it came after.
        let after = json!({"method": null, "url": "http://localhost:5000/items/2", "responseStatus": 500,
                           "initiatorType": "navigation", "afterFormPost": "http://localhost:5000/items/new"});
        assert_eq!(
            describe("network_waterfall", &after).3,
            "http://localhost:5000/items/2 500 navigation  (after POST http://localhost:5000/items/new)"
        );
        // A deep tab's row names what made it by Chrome's `type`, as its compact entry shows it.
        let browser = json!({"method": "GET", "url": "http://localhost:5173/logo.png", "responseStatus": 404,
                             "type": "image", "source": "browser"});
        assert_eq!(describe("network_waterfall", &browser).3, "GET http://localhost:5173/logo.png 404 image");
    }

    #[test]
    fn a_logged_object_reads_as_observe_writes_it() {
        let logged = json!({"level": "log", "message": "event {\"i\":1,\"user\":{\"id\":7,\"name\":\"Ann\"},\"tags\":[\"a\",\"b\"]}"});
        assert_eq!(describe("logs", &logged).3, "event {i:1,user:{id:7,name:'Ann'},tags:['a','b']}");
        // Cut by ingest: the count is of the bytes as sent, not of the shorter literal.
        let cut = json!({"level": "log", "message": "{\"a\":1}", "_truncated": {"message": 107}});
        assert_eq!(describe("logs", &cut).3, "{a:1}… (+100 bytes sent)");
    }

    #[test]
    fn a_negative_duration_is_unknown_and_not_shown() {
        assert_eq!(duration(&serde_json::json!({"duration": 12.2})), " 12ms");
        assert_eq!(duration(&serde_json::json!({"duration": -5})), "");
        assert_eq!(duration(&serde_json::json!({"duration": 0})), " 0ms");
    }
}
