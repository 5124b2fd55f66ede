//! The viewer: a web page at `/` that shows the capture as a person would look at
//! it (overview, console, network with its waterfall, timeline), live.
//!
//! Static files are embedded in the binary ([`assets`]); every view reads through
//! JSON twins under `/api/` ([`api`]) that call the same query layer as `observe`
//! (no SQL here); `/api/events` is a Server-Sent Events stream of per-kind cursors
//! ([`events`]) from which the page fetches new rows through those twins.
//! [`link`] makes the link an observe answer carries to the view that shows it.
//!
//! Security: captured strings are hostile. Every viewer response carries a strict
//! Content-Security-Policy and `nosniff`; `/api/` answers only the viewer's own
//! pages (no CORS headers, `Sec-Fetch-Site` other than same-origin refused,
//! `Cross-Origin-Resource-Policy: same-origin`); clearing takes a same-origin POST
//! with a JSON body. The Host check and the Origin rule live in `http::guard`.

mod api;
mod assets;
mod events;
pub mod link;

pub use link::Address;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::store::Store;

/// The views the page routes to on the client; each path serves the page.
pub const VIEWS: [&str; 4] = ["/overview", "/console", "/network", "/timeline"];

/// What the viewer's handlers share.
#[derive(Clone)]
struct Viewer {
    store: Store,
    port: u16,
    /// Cancelled when the server shuts down: event streams end then.
    shutdown: CancellationToken,
}

/// The viewer's routes, for the HTTP server bound to `port`.
pub fn router(store: Store, port: u16, shutdown: CancellationToken) -> Router {
    let mut pages = Router::new().route("/", get(assets::index));
    for view in VIEWS {
        pages = pages.route(view, get(assets::index));
    }
    pages
        .route("/static/{*file}", get(assets::file))
        .route("/api/overview", get(api::overview))
        .route("/api/summary", get(api::summary))
        .route("/api/rows/{what}", get(api::rows))
        .route("/api/rows/{what}/{id}", get(api::row))
        .route("/api/events", get(events::stream))
        .route("/api/clear", post(api::clear))
        .route("/api/{*rest}", get(api::unknown).post(api::unknown))
        .fallback(assets::not_found)
        .with_state(Viewer { store, port, shutdown })
        .layer(axum::middleware::from_fn(secure))
}

/// Whether `path` is one of the viewer's routes: there (and only there) the
/// server's own origin is admitted besides the extension's.
pub fn is_viewer_path(path: &str) -> bool {
    path == "/" || VIEWS.contains(&path) || path.starts_with("/static/") || path.starts_with("/api/")
}

/// The origins of the server's own pages on `port`.
pub fn own_origins(port: u16) -> [String; 3] {
    [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}"), format!("http://[::1]:{port}")]
}

/// The policy of every viewer response: scripts, styles and fetches from the
/// server itself only, no inline script, no framing, no plugins, no forms.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                       connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
                       frame-ancestors 'none'";

/// Security headers on every viewer response, and the refusal of `/api/`
/// requests that a browser says did not come from the viewer's own page.
async fn secure(request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    if api && let Some(refusal) = not_the_viewers(request.headers()) {
        return refuse(StatusCode::FORBIDDEN, refusal);
    }
    let is_head_or_get = matches!(*request.method(), Method::GET | Method::HEAD);
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let mut response = in_json(next.run(request).await, &method, &path).await;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    headers.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    if api || !is_head_or_get {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Why a browser's request to `/api/` is refused, or None. A browser says where a request
/// comes from in `Sec-Fetch-Site`: the viewer's own page is `same-origin`; a person typing the
/// address is `none` with `Sec-Fetch-Mode: navigate`. Any other extension of the browser that
/// holds host permissions fetches as `none` too, in `cors` mode and without an `Origin`, which
/// the pairing never sees: refused, or every such extension could read the capture. A request
/// with no `Sec-Fetch-Site` is no browser's (curl, a local program: as `/mcp` admits them).
fn not_the_viewers(headers: &axum::http::HeaderMap) -> Option<String> {
    let text = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("?"));
    match (text("sec-fetch-site"), text("sec-fetch-mode")) {
        (None | Some("same-origin"), _) | (Some("none"), Some("navigate")) => None,
        (Some("none"), mode) => Some(format!(
            "the viewer's API answers only the viewer's own pages: this request came from the browser itself \
             (Sec-Fetch-Site: none, Sec-Fetch-Mode: {}), as another extension's would",
            mode.unwrap_or("absent")
        )),
        (Some(site), _) => {
            Some(format!("the viewer's API answers only the viewer's own pages (Sec-Fetch-Site: {site})"))
        }
    }
}

/// A refusal axum wrote itself (405 with no body, 413 in plain text) said in JSON like every
/// other: `{"error": …}`.
async fn in_json(response: Response, method: &Method, path: &str) -> Response {
    let status = response.status();
    let content_type = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let said_already = content_type.starts_with("application/json") || content_type.starts_with("text/html");
    if !(status.is_client_error() || status.is_server_error()) || said_already {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let said = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let said = String::from_utf8_lossy(&said).trim().to_owned();
    // (axum adds `Allow` outside this layer, so the methods a route takes are named there.)
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            format!("{path} does not take {method}: the Allow header names what it takes")
        }
        _ if !said.is_empty() => said,
        _ => status.canonical_reason().unwrap_or("refused").to_owned(),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(parts, axum::body::Body::from(json!({ "error": message }).to_string()))
}

/// A JSON refusal `{"error": message}`.
fn refuse(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewer_paths_are_the_pages_static_files_and_api_only() {
        for p in ["/", "/overview", "/network", "/static/app.js", "/api/rows/logs"] {
            assert!(is_viewer_path(p), "{p}");
        }
        for p in ["/mcp", "/events/logs", "/health", "/capture", "/apix", "/networks"] {
            assert!(!is_viewer_path(p), "{p}");
        }
    }
}
