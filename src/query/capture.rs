//! The capture state in every answer: what the extension last reported
//! (`PUT /capture`) as a small `capture` object in the metadata, and the hint
//! of an answer that is empty because capture is paused or the page the agent
//! asked about is outside the capture scope.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension};
use serde_json::{Value, json};

use super::QueryError;
use super::args::ObserveArgs;
use super::budget::Cost;
use crate::capture::{Asked, Capture, UrlParts};
use crate::store::sql;

/// Most match patterns and deep tabs an answer names (the rest are counted).
const SHOWN: usize = 20;
/// Longest pattern an answer names, in characters.
const PATTERN_CHARS: usize = 80;
/// Longest site name a hint repeats, in characters.
const SITE_CHARS: usize = 100;

/// What an answer carries about capture.
#[derive(Debug, Clone)]
pub struct Note {
    /// `,"capture":{…}` (or `null`): spliced into the answer's metadata.
    pub field: String,
    /// What to say when the answer comes back empty.
    pub empty_hint: Option<String>,
}

impl Note {
    /// What the field costs in the answer (and a little for where it joins).
    pub fn cost(&self) -> Cost {
        let field = Cost::of(&self.field);
        Cost { chars: field.chars, tokens: field.tokens + 2 }
    }
}

/// The summary's hint when nothing is stored and no extension has ever reported to this database.
pub const NEVER_REPORTED: &str = "nothing captured yet, and the Gasoline extension has not reached this server: \
     load it in Chrome (chrome://extensions, Developer mode, Load unpacked: the extension/ folder), open a page on \
     localhost, and check in its popup that it sends to this server's address";

/// Whether no extension has ever reported its capture to this database.
pub fn never_reported(conn: &Connection) -> Result<bool, QueryError> {
    Ok(sql::capture(conn)?.is_none())
}

/// The capture state last reported, and the hint for an empty answer to `args`.
pub fn note(conn: &Connection, args: &ObserveArgs) -> Result<Note, QueryError> {
    let reported = sql::capture_reported(conn)?;
    let Some((capture, reported_at)) = reported else {
        return Ok(Note { field: ",\"capture\":null".into(), empty_hint: None });
    };
    // At most a quarter of the budget: fewer patterns and tabs named until it fits.
    let room = args.quarter();
    let mut shown = SHOWN;
    let named = either_scheme(&capture.origins);
    let field = loop {
        let field = format!(",\"capture\":{}", metadata(&capture, &named, reported_at, shown));
        if shown == 0 || room.admits(Cost::of(&field)) {
            break field;
        }
        shown /= 2;
    };
    let empty_hint = if capture.paused {
        Some("capture is paused: switch it back on in the Gasoline popup".to_string())
    } else {
        asked_site(conn, args, &capture)?.map(|site| {
            format!("{} is not captured: open the Gasoline popup on it and choose Capture this site", cut(&site))
        })
    };
    Ok(Note { field, empty_hint })
}

/// Longest whole report `configure status` shows, in characters; a longer one is shortened.
const STATUS_CHARS: usize = 4_000;

/// The capture report as `configure status` shows it: whole (with the server it was sent to)
/// while it is small, else as answers show it, with the server: each list cut to [`SHOWN`]
/// patterns or tabs and the rest counted, so that the status of a report at its bounds (1,000
/// patterns of 2,048 characters) still fits any client's limit.
pub fn for_status(state: &str, reported_at: i64) -> Option<Value> {
    let mut whole = serde_json::from_str::<Value>(state).ok()?;
    whole["reported_at"] = json!(reported_at);
    if state.len() <= STATUS_CHARS {
        return Some(whole);
    }
    let capture = serde_json::from_str::<Capture>(state).ok()?;
    let mut shown = metadata(&capture, &either_scheme(&capture.origins), reported_at, SHOWN);
    if let Some(server) = &capture.server_origin {
        shown["server_origin"] = json!(cut(server));
    }
    Some(shown)
}

/// `{"origins":[…],"paused":…,"deep_tabs":[…],"reported_at":…}`, at most `shown` of each
/// list named and the rest counted; `named`: the scope's patterns as answers name them
/// ([`either_scheme`]).
fn metadata(capture: &Capture, named: &[String], reported_at: i64, shown: usize) -> Value {
    let origins: Vec<String> = named
        .iter()
        .take(shown)
        .map(|p| match p.char_indices().nth(PATTERN_CHARS) {
            Some((at, _)) => format!("{}…", &p[..at]),
            None => p.clone(),
        })
        .collect();
    let mut meta = json!({
        "origins": origins,
        "paused": capture.paused,
        "deep_tabs": capture.deep_tabs.iter().take(shown).collect::<Vec<_>>(),
        "reported_at": reported_at,
    });
    if named.len() > shown {
        meta["origins_omitted"] = json!(named.len() - shown);
    }
    if capture.deep_tabs.len() > shown {
        meta["deep_tabs_omitted"] = json!(capture.deep_tabs.len() - shown);
    }
    meta
}

/// The patterns as an answer names them: an `http://` and an `https://` pattern of the same host and
/// path as one `*://` pattern, which in Chrome's match patterns means either (the default scope's
/// eight patterns read as four), in the order the first of each pair came.
fn either_scheme(patterns: &[String]) -> Vec<String> {
    let all: HashSet<&str> = patterns.iter().map(String::as_str).collect();
    let mut merged: HashSet<&str> = HashSet::new();
    let paired = |rest: &str| {
        all.contains(format!("http://{rest}").as_str()) && all.contains(format!("https://{rest}").as_str())
    };
    patterns
        .iter()
        .filter_map(|p| {
            match p.strip_prefix("http://").or_else(|| p.strip_prefix("https://")).filter(|rest| paired(rest)) {
                Some(rest) => merged.insert(rest).then(|| format!("*://{rest}")),
                None => Some(p.clone()),
            }
        })
        .collect()
}

/// The site the agent asked about (its `url` filter, else the last known URL of the
/// tab it named) when the capture scope does not take it.
fn asked_site(conn: &Connection, args: &ObserveArgs, capture: &Capture) -> Result<Option<String>, QueryError> {
    let filtered = args.filters.iter().find(|f| f.filter.arg == "url").and_then(|f| f.value.as_str());
    if let Some(text) = filtered {
        return Ok(Asked::from_filter(text).filter(|a| !a.is_covered(capture)).map(|a| a.site()));
    }
    let Some(tab) = args.tab_id else { return Ok(None) };
    let url: Option<String> = conn
        .prepare_cached("SELECT url FROM tabs WHERE tab_id = ?1")?
        .query_row([tab], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(url
        .as_deref()
        .and_then(UrlParts::parse)
        .filter(|u| matches!(u.scheme.as_str(), "http" | "https") && !u.host.is_empty() && !capture.covers(u))
        .map(|u| u.site()))
}

fn cut(site: &str) -> String {
    match site.char_indices().nth(SITE_CHARS) {
        Some((at, _)) => format!("{}…", &site[..at]),
        None => site.to_string(),
    }
}

/// `answer` (a JSON object's text) with `field` spliced in after its `"what"`, or first.
pub fn splice(answer: &str, field: &str) -> String {
    const WHAT: &str = "{\"what\":\"";
    let at = match answer.strip_prefix(WHAT).and_then(|rest| rest.find('"')) {
        Some(end) => WHAT.len() + end + 1,
        None if answer.starts_with('{') => {
            // No "what" first: the field leads, and the object's first member follows it.
            let body = &answer[1..];
            let comma = if body.trim_start().starts_with('}') { "" } else { "," };
            return format!("{{{}{comma}{body}", field.trim_start_matches(','));
        }
        None => return answer.to_string(),
    };
    let mut out = String::with_capacity(answer.len() + field.len());
    out.push_str(&answer[..at]);
    out.push_str(field);
    out.push_str(&answer[at..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_http_and_https_pair_is_named_once() {
        let p = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let default = p(&["http://localhost/*", "https://localhost/*", "http://[::1]/*", "https://[::1]/*"]);
        assert_eq!(super::either_scheme(&default), p(&["*://localhost/*", "*://[::1]/*"]));
        let mixed = p(&["https://shop.example/*", "http://localhost/*", "http://shop.example/*", "<all_urls>"]);
        assert_eq!(super::either_scheme(&mixed), p(&["*://shop.example/*", "http://localhost/*", "<all_urls>"]));
    }

    use super::*;

    #[test]
    fn the_field_goes_after_what() {
        assert_eq!(
            splice(r#"{"what":"logs","count":0}"#, r#","capture":null"#),
            r#"{"what":"logs","capture":null,"count":0}"#
        );
        assert_eq!(splice(r#"{"count":0}"#, r#","capture":null"#), r#"{"capture":null,"count":0}"#);
        assert_eq!(splice("{}", r#","capture":null"#), r#"{"capture":null}"#);
    }

    #[test]
    fn the_metadata_stays_small_however_many_patterns_are_reported() {
        let capture = Capture {
            origins: (0..1000).map(|i| format!("https://site{i}.example/{}", "x".repeat(2000))).collect(),
            paused: false,
            deep_tabs: (0..1000).collect(),
            server_origin: None,
        };
        let meta = metadata(&capture, &either_scheme(&capture.origins), 1, SHOWN).to_string();
        assert!(meta.len() < 4_000, "{}", meta.len());
        assert!(meta.contains("\"origins_omitted\":980") && meta.contains("\"deep_tabs_omitted\":980"), "{meta}");
    }
}
