//! The viewer's link for an observe answer: the view and filter that show what the
//! answer shows, with `sel=<kind>:{id}` for the agent to fill in with an entry's id
//! (the page's routes keep the whole state in the URL: `app.js`).
//!
//! Only where a viewer answers: [`Address`] holds the port this process (or the
//! gasoline it is attached to, writing the same file) serves the viewer on, and is
//! empty while nobody does, so that an answer never carries a dead link.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};

use serde_json::Value;

use crate::query::{ObserveArgs, What};

/// Longest link an answer carries, in bytes.
pub const MAX_LINK: usize = 1_000;

/// Where the viewer of this process's database is served, once it is: shared by
/// the MCP handlers of a process and set when the HTTP server starts serving.
#[derive(Debug, Clone, Default)]
pub struct Address(Arc<AtomicU16>);

impl Address {
    /// The viewer on 127.0.0.1:`port`.
    pub fn at(port: u16) -> Address {
        let address = Address::default();
        address.set(port);
        address
    }

    /// From now on the viewer is on 127.0.0.1:`port`.
    pub fn set(&self, port: u16) {
        self.0.store(port, Ordering::Relaxed);
    }

    /// The port, or None while no viewer shows this database.
    pub fn port(&self) -> Option<u16> {
        Some(self.0.load(Ordering::Relaxed)).filter(|p| *p != 0)
    }

    /// The link for an answer to `args`, when a viewer is served and the link is short
    /// enough to be one (the filters it carries are the agent's own text, which may be
    /// anything: a link of 60,000 characters would only take the answer's room).
    pub fn link(&self, args: &ObserveArgs) -> Option<String> {
        self.port().map(|port| link(port, args)).filter(|l| l.len() <= MAX_LINK)
    }
}

/// `http://127.0.0.1:PORT/<view>?<filters>&sel=<kind>:{id}`: the view that shows
/// `args`'s entries, narrowed as far as the viewer's filter bar can say what the
/// arguments say (tab, time, level, the search word, `url:`, method, one status);
/// a filter it has no words for (a status range, `error`, `connectionId`, a mark)
/// is left out, so the view shows more, never less. One id asked for is filled in.
pub fn link(port: u16, args: &ObserveArgs) -> String {
    let (view, sel) = view_of(&args.what);
    let mut query: Vec<(&str, String)> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut level: Option<&str> = None;
    if matches!(args.what, What::Kind { errors_only: true, .. }) {
        level = Some("error");
    }
    words.extend(args.search.as_deref().and_then(word));
    for f in &args.filters {
        match (f.filter.arg, &f.value) {
            ("min_level", Value::String(l)) => level = level.or(Some(l)),
            ("level", Value::String(l)) => words.extend(property("level", l)),
            ("url", Value::String(u)) => words.extend(property("url", u)),
            ("url_not", Value::String(u)) => words.extend(property("url", u).map(|w| format!("-{w}"))),
            ("url_not", Value::Array(us)) => words.extend(
                us.iter().filter_map(Value::as_str).filter_map(|u| property("url", u)).map(|w| format!("-{w}")),
            ),
            ("method", Value::String(m)) => words.extend(property("method", m)),
            ("status_min", Value::Number(n)) if status_max(args) == n.as_i64() => {
                words.push(format!("status-code:{n}"));
            }
            ("failed", Value::Bool(failed)) => words.push(if *failed { "is:failed" } else { "-is:failed" }.to_owned()),
            _ => {}
        }
    }
    if !words.is_empty() {
        query.push(("q", words.join(" ")));
    }
    if let Some(tab) = args.tab_id {
        query.push(("tab", tab.to_string()));
    }
    if let Some(level) = level {
        query.push(("level", level.to_owned()));
    }
    if args.since_navigation {
        query.push(("since", "nav".to_owned()));
    } else if let Some(since) = args.filters.iter().find(|f| f.filter.arg == "since").and_then(|f| f.value.as_i64()) {
        query.push(("since", since.to_string()));
    }
    let mut out = format!("http://127.0.0.1:{port}/{view}");
    let mut sep = '?';
    for (name, value) in &query {
        let _ = write!(out, "{sep}{name}={}", encode(value));
        sep = '&';
    }
    if let Some(kind) = sel {
        match args.ids.as_deref() {
            Some([one]) => {
                let _ = write!(out, "{sep}sel={kind}:{one}");
            }
            _ => {
                let _ = write!(out, "{sep}sel={kind}:{{id}}");
            }
        }
    }
    out
}

/// A query value, percent-encoded only where a query needs it (`/` and `:` stay as they
/// are: fewer tokens, and a person can read the link); a space is `+`.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b' ' => out.push('+'),
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
            | b':'
            | b'@'
            | b'!'
            | b'*'
            | b','
            | b';' => {
                out.push(char::from(b));
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

fn status_max(args: &ObserveArgs) -> Option<i64> {
    args.filters.iter().find(|f| f.filter.arg == "status_max").and_then(|f| f.value.as_i64())
}

/// The view that shows `what`, and the kind its entries' ids belong to.
fn view_of(what: &What) -> (&'static str, Option<&'static str>) {
    match what {
        What::Kind { kind, .. } => match kind.name {
            "network_waterfall" | "network_bodies" | "websocket_events" => ("network", Some(kind.name)),
            "actions" => ("timeline", Some(kind.name)),
            _ => ("console", Some(kind.name)),
        },
        What::Compare => ("timeline", None),
        What::Summary | What::Tabs | What::Page | What::Vitals => ("overview", None),
    }
}

/// A value as one word of the filter box: quoted when the box would otherwise read it
/// as several words, a negation or a property filter; None when it holds a quote,
/// which the box cannot say.
fn word(text: &str) -> Option<String> {
    quoted(text, |t| t.starts_with('-') || t.contains(':') || t.chars().any(char::is_whitespace))
}

/// `name:value`, the value quoted when it holds a space.
fn property(name: &str, value: &str) -> Option<String> {
    quoted(value, |t| t.chars().any(char::is_whitespace)).map(|v| format!("{name}:{v}"))
}

fn quoted(text: &str, needs_quotes: impl Fn(&str) -> bool) -> Option<String> {
    if text.is_empty() || text.contains('"') {
        return None;
    }
    Some(if needs_quotes(text) { format!("\"{text}\"") } else { text.to_owned() })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(v: Value) -> ObserveArgs {
        crate::query::parse(v.as_object().expect("object")).expect("valid arguments")
    }

    #[test]
    fn each_kind_links_to_the_view_that_shows_it_with_an_id_to_fill_in() {
        assert_eq!(link(7890, &args(json!({"what": "logs"}))), "http://127.0.0.1:7890/console?sel=logs:{id}");
        assert_eq!(
            link(7890, &args(json!({"what": "errors"}))),
            "http://127.0.0.1:7890/console?level=error&sel=logs:{id}"
        );
        assert_eq!(
            link(1, &args(json!({"what": "network_waterfall"}))),
            "http://127.0.0.1:1/network?sel=network_waterfall:{id}"
        );
        assert_eq!(link(1, &args(json!({"what": "actions"}))), "http://127.0.0.1:1/timeline?sel=actions:{id}");
        assert_eq!(link(1, &args(json!({"what": "summary"}))), "http://127.0.0.1:1/overview");
        assert_eq!(link(1, &args(json!({"what": "logs", "id": 42}))), "http://127.0.0.1:1/console?sel=logs:42");
    }

    #[test]
    fn the_filters_the_viewer_can_say_go_into_the_link() {
        let a = args(json!({"what": "network_waterfall", "tabId": 3, "url": "/api user", "method": "POST",
                            "status_min": 404, "status_max": 404, "since": 1_700_000_000_000_i64}));
        assert_eq!(
            link(7890, &a),
            "http://127.0.0.1:7890/network?q=url:%22/api+user%22+status-code:404+method:POST&tab=3&since=1700000000000&sel=network_waterfall:{id}"
        );
        let a = args(json!({"what": "logs", "min_level": "warn", "search": "boom", "since_navigation": true}));
        assert_eq!(link(1, &a), "http://127.0.0.1:1/console?q=boom&level=warn&since=nav&sel=logs:{id}");
        // A range the filter box cannot say is left out: the view shows more, not less.
        let a = args(json!({"what": "network_waterfall", "status_min": 400}));
        assert_eq!(link(1, &a), "http://127.0.0.1:1/network?sel=network_waterfall:{id}");
        // A URL left out: the filter box's -url:.
        let a = args(json!({"what": "network_waterfall", "url_not": "/poll"}));
        assert_eq!(link(1, &a), "http://127.0.0.1:1/network?q=-url:/poll&sel=network_waterfall:{id}");
        let a = args(json!({"what": "network_waterfall", "url_not": ["/poll", "/@vite"]}));
        assert_eq!(link(1, &a), "http://127.0.0.1:1/network?q=-url:/poll+-url:/@vite&sel=network_waterfall:{id}");
        // Failed requests: the filter box's is:failed.
        let a = args(json!({"what": "network_waterfall", "failed": true}));
        assert_eq!(link(1, &a), "http://127.0.0.1:1/network?q=is:failed&sel=network_waterfall:{id}");
    }

    #[test]
    fn a_link_costs_few_tokens() {
        let a = args(
            json!({"what": "network_waterfall", "tabId": 3, "url": "/api/user", "status_min": 500, "status_max": 500}),
        );
        let field = format!(",\"viewer\":{}", Value::from(link(7890, &a)));
        let cost = crate::query::Cost::of(&field);
        println!("{field}: {cost:?}");
        assert!(cost.tokens <= 60, "{field}: {cost:?}");
        let plain = format!(",\"viewer\":{}", Value::from(link(7890, &args(json!({"what": "logs"})))));
        println!("{plain}: {:?}", crate::query::Cost::of(&plain));
    }

    #[test]
    fn no_viewer_no_link() {
        let a = args(json!({"what": "logs"}));
        assert_eq!(Address::default().link(&a), None);
        assert!(Address::at(7890).link(&a).is_some());
    }
}
