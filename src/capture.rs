//! The capture state the extension reports (`PUT /capture`): the Chrome match
//! patterns of the sites it captures, whether capture is paused, the tabs
//! captured in depth and the server it sends to. Decoding with strict bounds,
//! and matching a URL against the patterns. Pure: no I/O.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Most match patterns a report may carry.
pub const MAX_ORIGINS: usize = 1_000;
/// Longest match pattern (and `server_origin`), in characters.
pub const MAX_ORIGIN_CHARS: usize = 2_048;
/// Most tab ids in `deep_tabs`.
pub const MAX_DEEP_TABS: usize = 1_000;

/// The capture state in force in the extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    /// Chrome match patterns of the capture scope (`https://shop.example/*`, `<all_urls>`).
    pub origins: Vec<String>,
    pub paused: bool,
    /// Tabs captured in depth.
    #[serde(default)]
    pub deep_tabs: Vec<i64>,
    /// The server the extension sends to, as it knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_origin: Option<String>,
}

/// Why a report was refused; the message says what to send.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    #[error("the body is not JSON: {0}")]
    NotJson(String),
    #[error(
        "the body must be a JSON object: {{\"origins\": [match patterns], \"paused\": true|false, \"deep_tabs\": [tab ids], \"server_origin\": \"http://127.0.0.1:7890\"}}"
    )]
    NotObject,
    #[error("`{field}` {expected}")]
    Field { field: String, expected: String },
}

fn field(field: impl Into<String>, expected: impl Into<String>) -> CaptureError {
    CaptureError::Field { field: field.into(), expected: expected.into() }
}

/// Decodes a `PUT /capture` body. `origins` and `paused` are required, `deep_tabs`
/// and `server_origin` may be left out (or null); other fields are ignored.
pub fn decode(body: &[u8]) -> Result<Capture, CaptureError> {
    let value: Value = crate::unique_keys::from_slice(body).map_err(|e| CaptureError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else { return Err(CaptureError::NotObject) };
    let origins = origins(&map)?;
    let paused = match map.get("paused") {
        Some(Value::Bool(b)) => *b,
        _ => return Err(field("paused", "must be true or false")),
    };
    let deep_tabs = match map.get("deep_tabs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(ids)) if ids.len() > MAX_DEEP_TABS => {
            return Err(field("deep_tabs", format!("holds {} tab ids; at most {MAX_DEEP_TABS}", ids.len())));
        }
        Some(Value::Array(ids)) => ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                id.as_i64().filter(|id| *id >= 0 && crate::ingest::is_safe(id)).ok_or_else(|| {
                    field(
                        format!("deep_tabs[{i}]"),
                        format!("must be a tab id (an integer from 0 to 2^53 - 1), got {id}"),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(field("deep_tabs", "must be an array of tab ids")),
    };
    let server_origin = match map.get("server_origin") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= MAX_ORIGIN_CHARS => Some(s.clone()),
        Some(Value::String(_)) => {
            return Err(field("server_origin", format!("is longer than {MAX_ORIGIN_CHARS} characters")));
        }
        Some(_) => return Err(field("server_origin", "must be a URL string such as \"http://127.0.0.1:7890\"")),
    };
    Ok(Capture { origins, paused, deep_tabs, server_origin })
}

fn origins(map: &Map<String, Value>) -> Result<Vec<String>, CaptureError> {
    let list = match map.get("origins") {
        Some(Value::Array(list)) => list,
        _ => return Err(field("origins", "must be an array of match patterns, such as [\"https://shop.example/*\"]")),
    };
    if list.len() > MAX_ORIGINS {
        return Err(field("origins", format!("holds {} patterns; at most {MAX_ORIGINS}", list.len())));
    }
    list.iter()
        .enumerate()
        .map(|(i, p)| {
            let name = format!("origins[{i}]");
            let Value::String(p) = p else {
                return Err(field(name, format!("must be a match pattern string, got {p}")));
            };
            if p.chars().count() > MAX_ORIGIN_CHARS {
                return Err(field(name, format!("is longer than {MAX_ORIGIN_CHARS} characters")));
            }
            if Pattern::parse(p).is_none() {
                return Err(field(
                    name,
                    format!(
                        "\"{p}\" is not a match pattern: send <all_urls> or scheme://host/path (scheme * or a name, \
                         host * or *.domain or a name, an optional :port)"
                    ),
                ));
            }
            Ok(p.clone())
        })
        .collect()
}

/// Schemes `<all_urls>` matches.
const ALL_URLS_SCHEMES: [&str; 7] = ["http", "https", "ws", "wss", "ftp", "file", "data"];

/// The parts of a URL a match pattern looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    pub scheme: String,
    pub host: String,
    /// The port written in the URL (None: the scheme's default).
    pub port: Option<u16>,
    /// Path and query (no fragment); "/" when empty.
    pub path: String,
}

impl UrlParts {
    /// A URL's scheme, host, port and path; None for what is not `scheme://...`.
    pub fn parse(url: &str) -> Option<UrlParts> {
        let (scheme, rest) = url.split_once("://")?;
        if scheme.is_empty() || !scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) {
            return None;
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_port(host_port)?;
        let tail = &rest[end..];
        let tail = tail.split('#').next().unwrap_or("");
        let path = if tail.starts_with('/') { tail.to_string() } else { format!("/{tail}") };
        Some(UrlParts { scheme: scheme.to_ascii_lowercase(), host: host.to_ascii_lowercase(), port, path })
    }

    /// `host` or `host:port`, as a person would name the site.
    pub fn site(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.clone(),
        }
    }
}

/// `host[:port]` → host and port; IPv6 hosts keep their brackets. None for a bad port.
fn split_port(host_port: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if host_port.starts_with('[') {
        match host_port.find(']') {
            Some(close) => (&host_port[..=close], host_port[close + 1..].strip_prefix(':')),
            None => return None,
        }
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    match port {
        None | Some("") => Some((host, None)),
        Some(p) => p.parse::<u16>().ok().map(|p| (host, Some(p))),
    }
}

/// The scheme part of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scheme {
    /// `<all_urls>`: every scheme in [`ALL_URLS_SCHEMES`].
    All,
    /// `*`: http and https.
    Web,
    Exact(String),
}

/// The host part of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    Any,
    /// `*.example.com`: example.com and every name under it.
    Domain(String),
    Exact(String),
}

/// One Chrome match pattern, of the subset the extension sends: `<all_urls>`, or
/// `scheme://host[:port]/path` with scheme `*` (http and https) or a name, host
/// `*`, `*.domain` or a name, and a path where `*` matches anything. A pattern
/// without a port matches any port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    scheme: Scheme,
    host: Host,
    /// None: any port.
    port: Option<u16>,
    path: String,
}

impl Pattern {
    pub fn parse(pattern: &str) -> Option<Pattern> {
        if pattern == "<all_urls>" {
            return Some(Pattern { scheme: Scheme::All, host: Host::Any, port: None, path: "/*".into() });
        }
        let (scheme, rest) = pattern.split_once("://")?;
        let scheme = match scheme {
            "*" => Scheme::Web,
            s if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) => {
                Scheme::Exact(s.to_ascii_lowercase())
            }
            _ => return None,
        };
        let slash = rest.find('/')?;
        let (authority, path) = rest.split_at(slash);
        // A host is printable ASCII or a name's letters: no control, space or bidi character.
        if authority.chars().any(|c| c.is_control() || c.is_whitespace() || crate::printable::is_bidi(c)) {
            return None;
        }
        let (host, port) = match authority.strip_suffix(":*") {
            Some(host) => (host, None),
            None => split_port(authority)?,
        };
        let host = match host {
            "*" => Host::Any,
            "" if scheme == Scheme::Exact("file".into()) => Host::Any,
            "" => return None,
            h if h.contains('*') => match h.strip_prefix("*.") {
                Some(domain) if !domain.is_empty() && !domain.contains('*') => {
                    Host::Domain(domain.to_ascii_lowercase())
                }
                _ => return None,
            },
            h => Host::Exact(h.to_ascii_lowercase()),
        };
        Some(Pattern { scheme, host, port, path: path.to_string() })
    }

    fn scheme_matches(&self, scheme: &str) -> bool {
        match &self.scheme {
            Scheme::All => ALL_URLS_SCHEMES.contains(&scheme),
            Scheme::Web => scheme == "http" || scheme == "https",
            Scheme::Exact(s) => s == scheme,
        }
    }

    /// True when the pattern's host part takes `host`.
    pub fn host_matches(&self, host: &str) -> bool {
        match &self.host {
            Host::Any => true,
            Host::Domain(d) => host == d || host.strip_suffix(d.as_str()).is_some_and(|sub| sub.ends_with('.')),
            Host::Exact(h) => h == host,
        }
    }

    /// True when the URL is inside the pattern.
    pub fn matches(&self, url: &UrlParts) -> bool {
        self.scheme_matches(&url.scheme)
            && self.host_matches(&url.host)
            && (self.port.is_none() || self.port == url.port.or_else(|| default_port(&url.scheme)))
            && glob(&self.path, &url.path)
    }

    /// True when some http or https URL of `host` (any port, any path) is inside the pattern.
    pub fn takes_host(&self, host: &str) -> bool {
        (self.scheme_matches("http") || self.scheme_matches("https")) && self.host_matches(host)
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

/// `*` in `pattern` matches any run of characters; everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

impl Capture {
    fn patterns(&self) -> impl Iterator<Item = Pattern> + '_ {
        self.origins.iter().filter_map(|p| Pattern::parse(p))
    }

    /// True when the URL is inside one of the patterns.
    pub fn covers(&self, url: &UrlParts) -> bool {
        self.patterns().any(|p| p.matches(url))
    }

    /// True when some web page of `host` is inside one of the patterns.
    pub fn covers_host(&self, host: &str) -> bool {
        self.patterns().any(|p| p.takes_host(host))
    }
}

/// What a `url` substring an agent filtered by says about the site it wants:
/// a whole URL, or a leading `host[:port]` (a name with a dot, `localhost`, an
/// IP address). None when it names no site (`/api/users`, `cart`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    Url(UrlParts),
    Host { host: String, port: Option<u16> },
}

impl Asked {
    pub fn from_filter(text: &str) -> Option<Asked> {
        let text = text.trim();
        if text.contains("://") {
            return UrlParts::parse(text).filter(|u| !u.host.is_empty() && looks_like_host(&u.host)).map(Asked::Url);
        }
        let end = text.find(['/', '?', '#']).unwrap_or(text.len());
        let (host, port) = split_port(&text[..end])?;
        let host = host.to_ascii_lowercase();
        let named = host == "localhost" || host.starts_with('[') || host.contains('.');
        // A file's name (`flood.html`, `main.js`) is a part of a path, no site, unless a port follows.
        let file = port.is_none() && host.rsplit('.').next().is_some_and(|last| FILE_EXTENSIONS.contains(&last));
        (named && !file && looks_like_host(&host) && !host.starts_with('.')).then_some(Asked::Host { host, port })
    }

    /// The site as the agent named it.
    pub fn site(&self) -> String {
        match self {
            Asked::Url(u) => u.site(),
            Asked::Host { host, port: Some(p) } => format!("{host}:{p}"),
            Asked::Host { host, port: None } => host.clone(),
        }
    }

    /// True when the capture scope takes what was asked about.
    pub fn is_covered(&self, capture: &Capture) -> bool {
        match self {
            Asked::Url(u) => capture.covers(u),
            Asked::Host { host, port: None } => capture.covers_host(host),
            Asked::Host { host, port: Some(port) } => ["http", "https"].iter().any(|scheme| {
                let url =
                    UrlParts { scheme: (*scheme).into(), host: host.clone(), port: Some(*port), path: "/".into() };
                capture.covers(&url)
            }),
        }
    }
}

/// The last parts of a file's name a `url` filter may hold alone, none of them a top-level domain.
const FILE_EXTENSIONS: &[&str] = &[
    "html", "htm", "js", "mjs", "cjs", "jsx", "ts", "tsx", "css", "json", "map", "wasm", "png", "jpg", "jpeg", "gif",
    "svg", "webp", "ico", "txt", "xml", "vue", "svelte", "php", "woff", "woff2", "ttf",
];

fn looks_like_host(host: &str) -> bool {
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
    match bare {
        Some(ipv6) => !ipv6.is_empty() && ipv6.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.'),
        None => !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(patterns: &[&str], url: &str) -> bool {
        let capture = Capture {
            origins: patterns.iter().map(|p| (*p).to_string()).collect(),
            paused: false,
            deep_tabs: vec![],
            server_origin: None,
        };
        capture.covers(&UrlParts::parse(url).expect(url))
    }

    #[test]
    fn patterns_match_as_chrome_does_for_the_subset_sent() {
        assert!(covered(&["http://localhost/*"], "http://localhost:5173/app?x=1"), "no port: any port");
        assert!(!covered(&["http://localhost/*"], "https://localhost/"), "the scheme counts");
        assert!(covered(&["*://shop.example/*"], "https://shop.example/cart"));
        assert!(covered(&["*://shop.example/*"], "http://shop.example"));
        assert!(!covered(&["*://shop.example/*"], "ws://shop.example/"), "* is http and https");
        assert!(covered(&["https://*.example.com/*"], "https://api.example.com/x"));
        assert!(covered(&["https://*.example.com/*"], "https://example.com/"));
        assert!(!covered(&["https://*.example.com/*"], "https://badexample.com/"));
        assert!(covered(&["http://localhost:3000/*"], "http://localhost:3000/"));
        assert!(!covered(&["http://localhost:3000/*"], "http://localhost:5173/"));
        assert!(covered(&["https://shop.example:443/*"], "https://shop.example/"), "the default port");
        assert!(covered(&["<all_urls>"], "http://anything.test/"));
        assert!(covered(&["http://[::1]/*"], "http://[::1]:8080/"));
        assert!(!covered(&["https://shop.example/api/*"], "https://shop.example/cart"));
        assert!(covered(&["https://shop.example/api/*"], "https://shop.example/api/users"));
        assert!(!covered(&[], "http://localhost/"));
    }

    #[test]
    fn what_is_not_a_pattern_is_refused() {
        for bad in [
            "",
            "localhost",
            "http://",
            "http://*foo/*",
            "http://shop.example",
            "://x/*",
            "http://a:99999/*",
            "http://\u{1b}]0;PWNED\u{7}\u{1b}[2Jx/*",
            "http://a b/*",
            "http://\u{202e}moc.example/*",
        ] {
            assert!(Pattern::parse(bad).is_none(), "{bad}");
        }
        for good in ["<all_urls>", "*://*/*", "file:///*", "http://localhost:*/*", "https://*.a.b/*"] {
            assert!(Pattern::parse(good).is_some(), "{good}");
        }
    }

    #[test]
    fn reports_are_decoded_within_bounds() {
        let ok = decode(br#"{"origins":["http://localhost/*"],"paused":false,"deep_tabs":[3],"server_origin":"http://127.0.0.1:7890","extra":1}"#)
            .expect("valid");
        assert_eq!(ok.deep_tabs, [3]);
        assert_eq!(ok.server_origin.as_deref(), Some("http://127.0.0.1:7890"));
        assert!(decode(br#"{"origins":[],"paused":true}"#).is_ok());
        let twice = decode(br#"{"origins":[],"paused":true,"paused":false}"#).expect_err("a key named twice");
        assert!(twice.to_string().contains("\"paused\" appears twice"), "{twice}");
        let refused = |body: &str| decode(body.as_bytes()).expect_err(body).to_string();
        assert!(refused("[]").contains("JSON object"));
        assert!(refused("{").contains("not JSON"));
        assert!(refused(r#"{"origins":[]}"#).contains("`paused`"));
        assert!(refused(r#"{"paused":false}"#).contains("`origins`"));
        assert!(refused(r#"{"origins":[1],"paused":false}"#).contains("`origins[0]`"));
        assert!(refused(r#"{"origins":["shop"],"paused":false}"#).contains("not a match pattern"));
        assert!(refused(r#"{"origins":[],"paused":false,"deep_tabs":["1"]}"#).contains("`deep_tabs[0]`"));
        // Past 2^53 - 1 a tab id reads back rounded, as another tab's.
        assert!(refused(r#"{"origins":[],"paused":false,"deep_tabs":[9007199254740992]}"#).contains("`deep_tabs[0]`"));
        let many = format!(r#"{{"origins":[{}],"paused":false}}"#, vec!["\"<all_urls>\""; 1001].join(","));
        assert!(refused(&many).contains("at most 1000"));
        let long = format!(r#"{{"origins":["http://a/{}"],"paused":false}}"#, "x".repeat(2048));
        assert!(refused(&long).contains("longer than 2048"));
        let tabs = format!(r#"{{"origins":[],"paused":false,"deep_tabs":[{}]}}"#, vec!["1"; 1001].join(","));
        assert!(refused(&tabs).contains("at most 1000"));
    }

    #[test]
    fn a_url_filter_names_a_site_only_when_it_holds_one() {
        let host = |h: &str, p: Option<u16>| Some(Asked::Host { host: h.into(), port: p });
        assert_eq!(Asked::from_filter("shop.example"), host("shop.example", None));
        assert_eq!(Asked::from_filter("localhost:3000/api"), host("localhost", Some(3000)));
        assert_eq!(Asked::from_filter("/api/users"), None);
        assert_eq!(Asked::from_filter("cart"), None);
        assert_eq!(Asked::from_filter("flood.html"), None, "a file's name");
        assert_eq!(Asked::from_filter("main.js"), None);
        assert_eq!(Asked::from_filter("trap.wasm?v=1"), None);
        assert_eq!(Asked::from_filter("shop.example.com"), host("shop.example.com", None));
        assert_eq!(Asked::from_filter("https://Shop.Example/cart").map(|a| a.site()), Some("shop.example".into()));
        let capture = Capture {
            origins: vec!["http://localhost:3000/*".into()],
            paused: false,
            deep_tabs: vec![],
            server_origin: None,
        };
        assert!(Asked::from_filter("localhost").is_some_and(|a| a.is_covered(&capture)), "some port of it");
        assert!(Asked::from_filter("localhost:3000").is_some_and(|a| a.is_covered(&capture)));
        assert!(!Asked::from_filter("localhost:5173").is_some_and(|a| a.is_covered(&capture)));
        assert!(!Asked::from_filter("shop.example").is_some_and(|a| a.is_covered(&capture)));
    }
}
