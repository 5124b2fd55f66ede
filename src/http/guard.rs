//! Who may talk to the server: loopback Host headers only, and a request
//! naming no host refused (against DNS rebinding), no web-page Origins but the
//! server's own (on the viewer's routes and `/mcp`), only the paired extension's origin
//! ([`Pairing`]), and CORS answers for it alone. Requests without an Origin
//! (MCP clients, curl, the CLI) pass.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::pairing::Pairing;

/// The Host values this server answers to, and the extension it is paired with.
pub struct Allowed {
    hosts: Vec<String>,
    pairing: Arc<Pairing>,
    /// The server's own origins, admitted on the viewer's routes and on `/mcp`.
    own: [String; 3],
}

impl Allowed {
    pub fn new(port: u16, pairing: Arc<Pairing>) -> Arc<Self> {
        let hosts = ["127.0.0.1", "localhost", "[::1]"].iter().map(|h| format!("{h}:{port}")).collect();
        Arc::new(Allowed { hosts, pairing, own: crate::viewer::own_origins(port) })
    }

    /// Whether `origin` is the server's own.
    fn is_own(&self, origin: &str) -> bool {
        self.own.iter().any(|own| own == origin)
    }
}

const EXTENSION_SCHEME: &str = "chrome-extension://";

pub async fn guard(State(allowed): State<Arc<Allowed>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    // One Host and one Origin: with two, which one a proxy or a framework reads is anyone's guess,
    // so the checks below would judge one and something else could act on the other.
    for name in [header::HOST, header::ORIGIN] {
        if headers.get_all(&name).iter().nth(1).is_some() {
            return ApiError::BadRequest(format!("the request names more than one {name}: send one")).into_response();
        }
    }
    // HTTP/1 names the host in `Host`; HTTP/2, and an HTTP/1 request in absolute form
    // (`GET http://host/path`, which then outranks `Host`), in the request's authority. Each one
    // named must be ours. A request naming none is refused too: every browser names one, so only
    // a check skipped could let one through.
    let named = [
        headers.get(header::HOST).map(|h| h.to_str().unwrap_or("").to_ascii_lowercase()),
        request.uri().authority().map(|a| a.as_str().to_ascii_lowercase()),
    ];
    if let Some(host) = named.iter().flatten().find(|h| !allowed.hosts.contains(h)) {
        return ApiError::Forbidden(format!(
            "Host \"{host}\" is not allowed: gasoline answers only to {}",
            allowed.hosts.join(", ")
        ))
        .into_response();
    }
    if named.iter().all(Option::is_none) {
        return ApiError::BadRequest(format!(
            "the request names no Host: gasoline answers only to {}",
            allowed.hosts.join(", ")
        ))
        .into_response();
    }
    let origin = headers.get(header::ORIGIN).map(|o| o.to_str().unwrap_or(""));
    if crate::viewer::is_viewer_path(request.uri().path()) {
        // The viewer's pages: the server's own origin or none, never with CORS headers.
        return match origin {
            None => next.run(request).await,
            Some(o) if allowed.is_own(o) => next.run(request).await,
            Some(o) => ApiError::Forbidden(format!(
                "the viewer's routes answer only the viewer's own pages, not requests from \"{o}\""
            ))
            .into_response(),
        };
    }
    let origin = match origin {
        None => None,
        // The server's own origin on `/mcp`: a same-origin request needs no CORS, and a page there
        // is the viewer's, which reads the capture anyway. The MCP spec's answer to DNS rebinding
        // (validate Origin) takes a loopback origin as valid, and clients that send one (the
        // official conformance suite does) must get in; a page's own port is another origin.
        Some(o) if is_mcp_path(request.uri().path()) && allowed.is_own(o) => {
            return next.run(request).await;
        }
        Some(o) if o.starts_with(EXTENSION_SCHEME) => Some(o.to_owned()),
        Some(o) => {
            return ApiError::Forbidden(format!(
                "requests from the web origin \"{o}\" are refused: only the paired Gasoline extension (chrome-extension://) and local programs without an Origin (MCP clients, the CLI) get in"
            ))
            .into_response();
        }
    };
    let Some(origin) = origin else { return next.run(request).await };
    let id = origin[EXTENSION_SCHEME.len()..].trim_end_matches('/');
    if let Err(refused) = allowed.pairing.check(id).await {
        return refused.into_response();
    }
    // A preflight (OPTIONS) too goes to its route, which answers 204 with its `Allow` (OPTIONS
    // among the methods, as without an Origin); CORS is added here.
    let mut response = next.run(request).await;
    cors(response.headers_mut(), &origin);
    response
}

fn is_mcp_path(path: &str) -> bool {
    path == "/mcp" || path.starts_with("/mcp/")
}

fn cors(headers: &mut HeaderMap, origin: &str) {
    if let Ok(origin) = HeaderValue::from_str(origin) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, PUT, DELETE, OPTIONS"));
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type, idempotency-key, mcp-session-id, mcp-protocol-version, last-event-id"),
    );
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("mcp-session-id"));
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
}
