//! The page's files, embedded in the binary at build time (so a `cargo install`ed
//! gasoline serves the same files as the tree it was built from).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::refuse;

macro_rules! files {
    ($($name:literal),* $(,)?) => {
        /// Every file under `src/viewer/static/`, by name.
        pub const FILES: &[(&str, &[u8])] = &[$(($name, include_bytes!(concat!("static/", $name)))),*];
    };
}

files!(
    "index.html",
    "style.css",
    "app.js",
    "api.js",
    "dom.js",
    "filter.js",
    "vlist.js",
    "live.js",
    "overview.js",
    "console.js",
    "network.js",
    "waterfall.js",
    "timeline.js",
    "detail.js",
    "favicon.svg",
);

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

fn serve(name: &str, status: StatusCode) -> Response {
    match FILES.iter().find(|(n, _)| *n == name) {
        Some((n, bytes)) => (status, [(header::CONTENT_TYPE, content_type(n))], *bytes).into_response(),
        None => refuse(StatusCode::NOT_FOUND, format!("no viewer file {name}")),
    }
}

/// The page, for `/` and each view's path (the page routes on the client).
pub(super) async fn index() -> Response {
    serve("index.html", StatusCode::OK)
}

/// Any path no route answers: for a browser, the page with a 404 (it says there is
/// no such view); for anything else, a JSON 404.
pub(super) async fn not_found(
    method: axum::http::Method,
    headers: axum::http::HeaderMap,
    uri: axum::http::Uri,
) -> Response {
    let html = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("text/html"));
    if html && method == axum::http::Method::GET {
        return serve("index.html", StatusCode::NOT_FOUND);
    }
    refuse(StatusCode::NOT_FOUND, format!("nothing at {}: the viewer is at /, the API at /api/", uri.path()))
}

/// `GET /static/{file}`.
pub(super) async fn file(Path(name): Path<String>) -> Response {
    serve(&name, StatusCode::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_static_folder_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/viewer/static");
        let mut on_disk: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(n, _)| (*n).to_owned()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "add new files to the files! list in assets.rs");
    }
}
