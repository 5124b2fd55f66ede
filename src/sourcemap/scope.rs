//! What the server may fetch to resolve an entry's frames: only http(s) URLs,
//! only while the page that logged the entry is in the capture scope the
//! extension reported (`PUT /capture`, `crate::capture`; the extension's
//! default scope, local development origins, until it has reported one), never
//! the server's own origin, and only
//! - the page's own origin, or
//! - a dev server beside the page's backend: an origin in the scope too, on the
//!   page's host (any port: `http://myapp.test:5173` for `http://myapp.test`),
//!   or on loopback when the page is (Laravel's, Rails' or Django's page on
//!   `127.0.0.1:8000` loading its modules from Vite on `localhost:5173`).
//!
//! A page naming `http://169.254.169.254/…`, a loopback address outside the
//! scope, a local port when the page is a site on the network, or a `file:` URL
//! as its map gets `sourcemap: "not in scope"` and no request.

use std::sync::Arc;

use rusqlite::Connection;
use url::{Origin, Url};

use crate::capture::{Capture, UrlParts};
use crate::store::{StoreError, sql};

/// The hosts of the extension's scope before it reports one, any port, http and https
/// (extension/lib/scope.js `DEFAULT_PATTERNS`; a test holds the two equal).
const DEFAULT_HOSTS: [&str; 4] = ["localhost", "*.localhost", "127.0.0.1", "[::1]"];

/// The default scope as the extension writes it: `http://host/*` and `https://host/*` for each host.
fn default_patterns() -> Vec<String> {
    DEFAULT_HOSTS.iter().flat_map(|h| [format!("http://{h}/*"), format!("https://{h}/*")]).collect()
}

/// The capture scope in force: the one reported, or the default.
pub fn read_capture(conn: &Connection) -> Result<Capture, StoreError> {
    let reported = sql::capture_reported(conn)?.map(|(capture, _)| capture);
    Ok(reported.unwrap_or_else(|| Capture {
        origins: default_patterns(),
        paused: false,
        deep_tabs: Vec::new(),
        server_origin: None,
    }))
}

/// The origins fetches for an entry may go to: the page's, and the dev servers beside it.
#[derive(Debug, Clone)]
pub struct Allowed {
    /// The page, when it is in the scope and not the server itself.
    page: Option<Url>,
    /// The scope in force, shared by every page of a batch.
    capture: Arc<Capture>,
    server_port: u16,
}

impl Allowed {
    /// For an entry logged by `page_url`: its origin if the page is in `capture`
    /// and is not the server itself (`server_port` on a loopback address).
    pub fn for_page(page_url: &str, capture: &Arc<Capture>, server_port: u16) -> Allowed {
        let page = Url::parse(page_url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .filter(|u| in_scope(u, capture))
            .filter(|u| !is_server(u, server_port));
        Allowed { page, capture: Arc::clone(capture), server_port }
    }

    /// True when `url` may be fetched.
    pub fn permits(&self, url: &Url) -> bool {
        let Some(page) = &self.page else { return false };
        if !matches!(url.scheme(), "http" | "https") {
            return false;
        }
        if url.origin() == page.origin() {
            return true;
        }
        let beside = url.host() == page.host() || (is_loopback(page) && is_loopback(url));
        beside && in_scope(url, &self.capture) && !is_server(url, self.server_port)
    }

    /// The page's origin, when it may be fetched from at all.
    pub fn origin(&self) -> Option<Origin> {
        self.page.as_ref().map(Url::origin)
    }
}

fn in_scope(url: &Url, capture: &Capture) -> bool {
    UrlParts::parse(url.as_str()).is_some_and(|parts| capture.covers(&parts))
}

/// True when `url` names this machine (127.0.0.0/8, ::1, localhost, *.localhost).
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
        None => false,
    }
}

fn is_server(url: &Url, server_port: u16) -> bool {
    is_loopback(url) && url.port_or_known_default() == Some(server_port)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(origins: &[&str]) -> Arc<Capture> {
        Arc::new(Capture {
            origins: origins.iter().map(|o| (*o).to_string()).collect(),
            paused: false,
            deep_tabs: vec![],
            server_origin: None,
        })
    }

    fn url(u: &str) -> Url {
        Url::parse(u).expect("a URL")
    }

    #[test]
    fn the_page_origin_and_those_beside_it_while_in_scope() {
        let scope = capture(&["http://localhost/*", "http://127.0.0.1/*"]);
        let allowed = Allowed::for_page("http://localhost:5173/app", &scope, 7890);
        assert!(allowed.permits(&url("http://localhost:5173/src/App.jsx")));
        assert!(allowed.permits(&url("http://localhost:5174/src/App.jsx")), "a dev server beside it, in the scope");
        assert!(!allowed.permits(&url("http://[::1]:5174/src/App.jsx")), "beside it, but outside the scope");
        assert!(!allowed.permits(&url("http://127.0.0.2:5173/secret.map")));
        assert!(!allowed.permits(&url("http://169.254.169.254/latest/meta-data")));
        assert!(!allowed.permits(&url("file:///etc/passwd")));
        assert!(!allowed.permits(&url("https://localhost:5173/a.js")), "the scheme is part of the origin");

        let outside = Allowed::for_page("http://shop.example/", &scope, 7890);
        assert!(!outside.permits(&url("http://shop.example/a.js")), "a page outside the scope");
        let server = Allowed::for_page("http://127.0.0.1:7890/viewer", &scope, 7890);
        assert!(!server.permits(&url("http://127.0.0.1:7890/a.js")), "never the server itself");
        let file = Allowed::for_page("file:///home/me/index.html", &capture(&["<all_urls>"]), 7890);
        assert!(!file.permits(&url("file:///home/me/a.js")));
        assert!(!Allowed::for_page("not a url", &scope, 7890).permits(&url("http://localhost/a.js")));
    }

    #[test]
    fn a_dev_server_beside_the_page_s_backend_in_the_scope_too() {
        let scope = read_default();
        // Laravel's page on 127.0.0.1:8000, its modules from Vite on another loopback port.
        let backend = Allowed::for_page("http://127.0.0.1:8000/login", &scope, 7890);
        for beside in [
            "http://localhost:5173/resources/js/app.js",
            "http://[::1]:5173/@vite/client",
            "https://127.0.0.1:3036/a.js",
        ] {
            assert!(backend.permits(&url(beside)), "{beside}");
        }
        assert!(!backend.permits(&url("http://127.0.0.1:7890/api/rows/logs")), "never the server itself");
        assert!(!backend.permits(&url("http://127.0.0.2:5173/a.js")), "a loopback address outside the scope");
        assert!(!backend.permits(&url("http://169.254.169.254/latest/meta-data")));
        assert!(!backend.permits(&url("https://cdn.example/a.js")), "a site outside the scope");
        // A site the person turned on: its own host on another port, not this machine's ports.
        let mut turned_on = (*scope).clone();
        turned_on.origins.push("*://myapp.test/*".into());
        let turned_on = Arc::new(turned_on);
        let site = Allowed::for_page("http://myapp.test/", &turned_on, 7890);
        assert!(site.permits(&url("http://myapp.test:5173/resources/js/app.js")));
        assert!(!site.permits(&url("http://localhost:5173/resources/js/app.js")), "a remote page names a local port");
        assert!(!site.permits(&url("http://other.test:5173/a.js")));
        // A page outside the scope gets nothing, beside or not.
        let outside = Allowed::for_page("http://shop.example/", &scope, 7890);
        assert!(!outside.permits(&url("http://localhost:5173/a.js")));
    }

    fn read_default() -> Arc<Capture> {
        capture(&default_patterns().iter().map(String::as_str).collect::<Vec<_>>())
    }

    #[test]
    fn the_default_scope_is_the_extension_s() {
        let js = include_str!("../../extension/lib/scope.js");
        let hosts: Vec<String> = DEFAULT_HOSTS.iter().map(|h| format!("\"{h}\"")).collect();
        let declared =
            format!("[{}].flatMap((host) => [`http://${{host}}/*`, `https://${{host}}/*`])", hosts.join(", "));
        assert!(js.contains(&declared), "extension/lib/scope.js no longer declares {declared}");
        assert_eq!(default_patterns()[..2], ["http://localhost/*", "https://localhost/*"]);
    }
}
