//! Source-mapped frames, black-box: the real server, a dev server of our own on
//! 127.0.0.1 serving the fixture bundles and their maps (tests/fixtures/sourcemap/),
//! logs entries POSTed as the extension sends them. The stored entries get
//! `original` beside their call site and `frames` beside their stack, written
//! after the batch was acknowledged; what cannot be mapped says why. Nothing is
//! fetched outside the page's origin and the dev servers beside it in the scope:
//! a server on 127.0.0.2 that pages name counts zero requests, and so does a
//! port of this machine that a site on the network names.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use common::{Mcp, Server, TempDb, entries};
use serde_json::{Value, json};

/// Files by path: the body and its version (the ETag).
type Files = HashMap<String, (Vec<u8>, u64)>;

/// A dev server: files by path, an ETag per version, every request counted.
#[derive(Clone, Default)]
struct Site {
    files: Arc<Mutex<Files>>,
    requests: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<String>>>,
    /// Paths served without validators (no ETag), as Metro serves its maps.
    plain: Arc<Mutex<Vec<String>>>,
}

impl Site {
    fn put(&self, path: &str, body: impl Into<Vec<u8>>) {
        let mut files = self.files.lock().expect("files");
        let version = files.get(path).map_or(1, |(_, v)| v + 1);
        files.insert(path.to_string(), (body.into(), version));
    }

    /// Serves `path` without validators from now on.
    fn plain(&self, path: &str) {
        self.plain.lock().expect("plain").push(path.to_string());
    }

    /// Serves 404 for `path` from now on (a bundle its dev server cannot build).
    fn remove(&self, path: &str) {
        self.files.lock().expect("files").remove(path);
    }

    fn fixture(&self, path: &str) {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap").join(path);
        self.put(&format!("/{path}"), std::fs::read(&file).unwrap_or_else(|e| panic!("{path}: {e}")));
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    async fn start(self, ip: &str) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind((ip, 0)).await.expect("bind the dev server");
        self.start_with(listener)
    }

    fn start_with(self, listener: tokio::net::TcpListener) -> SocketAddr {
        async fn serve(State(site): State<Site>, uri: Uri, headers: HeaderMap) -> Response {
            site.requests.fetch_add(1, Ordering::SeqCst);
            site.log.lock().expect("log").push(uri.to_string());
            let Some((body, version)) = site.files.lock().expect("files").get(uri.path()).cloned() else {
                return StatusCode::NOT_FOUND.into_response();
            };
            if site.plain.lock().expect("plain").iter().any(|p| p == uri.path()) {
                return ([(header::CONTENT_TYPE, "application/json")], body).into_response();
            }
            let etag = format!("\"v{version}\"");
            if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes()) {
                return StatusCode::NOT_MODIFIED.into_response();
            }
            ([(header::ETAG, etag), (header::CONTENT_TYPE, "text/javascript".into())], body).into_response()
        }
        let addr = listener.local_addr().expect("addr");
        let app = Router::new().fallback(serve).with_state(self);
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    }
}

/// The position of `needle` in a fixture script, as "line:col" (1-based).
fn at(script: &str, needle: &str) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap").join(script);
    let code = std::fs::read_to_string(file).expect("fixture");
    let i = code.find(needle).unwrap_or_else(|| panic!("{needle} in {script}"));
    let line = code[..i].matches('\n').count() + 1;
    let col = i - code[..i].rfind('\n').map_or(0, |n| n + 1) + 1;
    format!("{line}:{col}")
}

/// The line of `needle` in a fixture source (1-based).
fn line_of(source: &str, needle: &str) -> u64 {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap/src").join(source);
    let code = std::fs::read_to_string(file).expect("fixture");
    code[..code.find(needle).expect("needle")].matches('\n').count() as u64 + 1
}

async fn report_scope(server: &Server, origins: &[&str]) {
    let (status, reply) = server.put_capture(&json!({"origins": origins, "paused": false}), &[]).await;
    assert_eq!(status, 204, "PUT /capture: {reply}");
}

/// Every logs entry once each has what `done` waits for (the resolver writes after the answer).
async fn resolved(mcp: &Mcp, n: usize, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = mcp.observe(json!({"what": "logs", "fields": "all", "limit": 100, "max_chars": 500_000})).await;
        let list = entries(&answer);
        if list.len() == n && list.iter().all(&done) {
            return list;
        }
        assert!(Instant::now() < deadline, "entries not resolved in time: {list:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn has_result(e: &Value) -> bool {
    (e.get("location").is_none() || e.get("original").is_some() || e.get("sourcemap").is_some())
        && (e.get("stack").is_none() || e.get("frames").is_some())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_entries_get_their_original_frames_and_reasons() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    for f in [
        "minified/app.min.js",
        "minified/app.min.js.map",
        "webpack/main.js",
        "webpack/main.js.map",
        "inline/charset.js",
    ] {
        site.fixture(f);
    }
    site.fixture("src/cart.js"); // a script without a map
    site.put("/broken.js", "f()\n//# sourceMappingURL=broken.js.map\n");
    site.put("/broken.js.map", "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAAC\"}");
    let addr = site.clone().start("127.0.0.1").await;
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let page = format!("{origin}/index.html");
    let min = format!("{origin}/minified/app.min.js");
    let stack = format!(
        "Error: checkout without a customer\n    at c ({min}:{})\n    at i ({min}:{})\n    at Array.map (<anonymous>)\n    at {origin}/src/cart.js:3:1\n    at {origin}/broken.js:1:1\n    at {origin}/missing.js:1:1",
        at("minified/app.min.js", "throw new Error"),
        at("minified/app.min.js", "return r()"),
    );
    let (first, _) = server
        .ingest(
            "logs",
            vec![
                json!({"ts": 1, "level": "error", "source": "exception", "url": page, "message": "Uncaught Error: checkout without a customer",
                       "stack": stack, "location": format!("{min}:{}", at("minified/app.min.js", "throw new Error"))}),
                json!({"ts": 2, "level": "error", "source": "console", "url": page, "message": "charging 5.00 EUR",
                       "location": format!("{origin}/webpack/main.js:{}", at("webpack/main.js", "console.error"))}),
                json!({"ts": 3, "level": "log", "source": "console", "url": page, "message": "inline",
                       "location": format!("{origin}/inline/charset.js:{}", at("inline/charset.js", "euros.toFixed"))}),
                json!({"ts": 4, "level": "log", "source": "console", "url": page, "message": "no stack, no location"}),
                json!({"ts": 5, "level": "log", "source": "console", "url": "http://shop.example/", "message": "outside",
                       "location": "http://shop.example/app.js:1:1"}),
                // Code a Turbopack hot update ran through eval: the chunk's URL, the query ignored,
                // serves a script with a map, but not the code that ran.
                json!({"ts": 6, "level": "error", "source": "console", "url": page, "message": "after an edit",
                       "location": format!("{min}?id=%255Bproject%255D/app/page.tsx+%255Bapp-client%255D:{}", at("minified/app.min.js", "throw new Error"))}),
            ],
        )
        .await;
    assert!(first > 0);
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 6, has_result).await;

    let thrown = &list[0];
    let original = &thrown["original"];
    assert_eq!(original["source"], "src/cart.js", "{thrown:#}");
    assert_eq!(original["line"], line_of("cart.js", "throw new Error"));
    let context = original["context"]["lines"].as_array().expect("context lines");
    assert!(context.iter().any(|l| l.as_str().is_some_and(|l| l.contains("throw new Error"))), "{context:?}");
    let frames = thrown["frames"].as_array().expect("frames");
    let summary: Vec<(String, Value)> = frames
        .iter()
        .map(|f| {
            let at = f["at"].as_str().unwrap_or("").replace(&origin, "");
            (at, f.get("original").map_or_else(|| f["sourcemap"].clone(), |o| o["source"].clone()))
        })
        .collect();
    assert_eq!(summary.len(), 5, "native frames are passed over: {summary:?}");
    assert_eq!(summary[0].1, "src/cart.js");
    assert_eq!(frames[0]["fn"], "c");
    // The minified names given back from the script's text and the map's names.
    assert_eq!(frames[0]["original"]["function"], "checkout", "{thrown:#}");
    assert_eq!(frames[1]["original"]["function"], "retry", "{thrown:#}");
    assert_eq!(summary[1].1, "src/vendor.js");
    assert_eq!(frames[1]["original"]["name"], Value::Null, "the minified name is not the original one here");
    assert_eq!(summary[2].1, "not found", "a script without a map");
    assert_eq!(summary[3].1, "invalid", "a map naming a name it does not hold");
    assert_eq!(summary[4].1, "not found", "a script the server does not have");

    assert_eq!(list[1]["original"]["source"], "src/cart.js", "webpack://my-app/./src/cart.js: {}", list[1]);
    assert_eq!(list[1]["original"]["line"], line_of("cart.js", "console.error"));
    assert_eq!(list[2]["original"]["source"], "inline/src/money.js");
    assert_eq!(list[2]["original"]["line"], line_of("money.js", "euros.toFixed"));
    assert!(list[3].get("original").is_none() && list[3].get("frames").is_none());
    assert_eq!(list[4]["sourcemap"], "not in scope");
    assert_eq!((list[5].get("original"), &list[5]["sourcemap"]), (None, &json!("hot update")), "{}", list[5]);

    // The compact answer (the default) leads with the original location.
    let compact = mcp.observe(json!({"what": "logs", "limit": 10})).await;
    let compact = entries(&compact);
    assert_eq!(
        compact[0]["at"],
        format!("src/cart.js:{}:{}", line_of("cart.js", "throw new Error"), original["column"])
    );
    // An error's compact frames name the original functions.
    let errors = mcp.observe(json!({"what": "errors", "limit": 10})).await;
    let lines = entries(&errors)[0]["frames"].as_str().unwrap_or_default().to_string();
    assert!(lines.starts_with("checkout src/cart.js:") && lines.contains("\nretry src/vendor.js:"), "{errors:#}");
    mcp.close().await;
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_fetched_outside_the_page_origin() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let secret = Site::default();
    secret.put("/secret.map", "{\"version\":3,\"sources\":[\"secret.js\"],\"names\":[],\"mappings\":\"AAAA\"}");
    secret.put("/secret.js", "s()\n//# sourceMappingURL=secret.map\n");
    let secret_addr = secret.clone().start("127.0.0.2").await;
    let secret_origin = format!("http://127.0.0.2:{}", secret_addr.port());

    let site = Site::default();
    site.put("/evil.js", format!("e()\n//# sourceMappingURL={secret_origin}/secret.map\n"));
    site.put("/file.js", "f()\n//# sourceMappingURL=file:///etc/passwd\n");
    site.put("/meta.js", "m()\n//# sourceMappingURL=http://169.254.169.254/latest/meta-data\n");
    site.put("/redirect.js", "r()\n//# sourceMappingURL=/go\n");
    let addr = site.clone().start("127.0.0.1").await;
    // The one page whose origin is in the scope: 127.0.0.1 only.
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let page = format!("{origin}/index.html");
    let entry = |url: &str, location: String| json!({"ts": 1, "level": "error", "source": "console", "url": url, "message": "x", "location": location});
    server
        .ingest(
            "logs",
            vec![
                entry(&page, format!("{origin}/evil.js:1:1")),
                entry(&page, format!("{origin}/file.js:1:1")),
                entry(&page, format!("{origin}/meta.js:1:1")),
                entry(&page, format!("{secret_origin}/secret.js:1:1")),
                entry(&page, "file:///etc/passwd:1:1".into()),
                entry(&format!("{secret_origin}/index.html"), format!("{secret_origin}/secret.js:1:1")),
                entry(&page, "http://169.254.169.254/latest/meta-data:1:1".into()),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 7, has_result).await;
    let reasons: Vec<&str> = list.iter().map(|e| e["sourcemap"].as_str().unwrap_or("mapped?")).collect();
    assert_eq!(reasons, vec!["not in scope"; 7], "{list:#?}");
    assert_eq!(secret.requests(), 0, "the server on 127.0.0.2 was asked: {:?}", secret.log.lock().expect("log"));
    assert!(site.requests() >= 3, "the page's own scripts were fetched");
    mcp.close().await;
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dev_server_beside_the_page_is_read_and_a_site_on_the_network_never_reaches_this_machine() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    // Vite beside a backend: the page on one port of this machine, its modules on another.
    let vite = Site::default();
    vite.put("/resources/js/app.js", "boom()\n//# sourceMappingURL=app.js.map\n");
    vite.put(
        "/resources/js/app.js.map",
        r#"{"version":3,"sources":["app.js"],"sourcesContent":["boom()"],"names":[],"mappings":"AAAA"}"#,
    );
    vite.put("/private.js", "p()\n");
    // django-vite's Vite serves under its base, /static/ (its client is there): the source is
    // named without it.
    vite.put("/static/src/cart.ts", "c()\n//# sourceMappingURL=cart.ts.map\n");
    vite.put(
        "/static/src/cart.ts.map",
        r#"{"version":3,"sources":["cart.ts"],"sourcesContent":["c()"],"names":[],"mappings":"AAAA"}"#,
    );
    vite.put("/static/@vite/client", "export { createHotContext, injectQuery };\n");
    let addr = vite.clone().start("127.0.0.1").await;
    let vite_origin = format!("http://127.0.0.1:{}", addr.port());
    report_scope(&server, &["http://127.0.0.1/*", "*://myapp.test/*"]).await;
    let entry = |url: &str, location: String| json!({"ts": 1, "level": "error", "source": "console", "url": url, "message": "x", "location": location});
    server
        .ingest(
            "logs",
            vec![
                entry("http://127.0.0.1:8000/login", format!("{vite_origin}/resources/js/app.js:1:1")),
                // A site the person turned on names a port of this machine: no request.
                entry("http://myapp.test/", format!("{vite_origin}/private.js:1:1")),
                json!({"tabId": 7, "ts": 2, "level": "error", "source": "console", "url": "http://127.0.0.1:8000/cart",
                       "message": "x", "location": format!("{vite_origin}/static/src/cart.ts:1:1")}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 3, has_result).await;
    assert_eq!(list[2]["original"]["source"], "src/cart.ts", "{list:#?}");
    assert_eq!(list[0]["original"]["source"], "resources/js/app.js", "{list:#?}");
    assert_eq!(list[0]["original"]["line"], 1, "{list:#?}");
    assert_eq!(list[1]["sourcemap"], "not in scope", "{list:#?}");
    let log = vite.log.lock().expect("log").clone();
    assert!(!log.iter().any(|path| path.contains("private")), "{log:?}");
    mcp.close().await;
    server.stop();
}

/// A line logged by a script inline in the page's own document: its "script" is the page, and the
/// page is not fetched (a server-rendered view would run again: a GET with side effects, or another
/// page than the one a POST answered). Its frame says why it has no original.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_script_s_page_is_not_fetched_again() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    site.put("/dashboard/", "<!doctype html><script>console.error('x')</script>");
    let origin = serve_app_js(&server, &site).await;
    let page = format!("{origin}/dashboard/");
    server
        .ingest(
            "logs",
            vec![
                json!({"ts": 1, "level": "error", "source": "console", "url": page, "message": "inline", "location": format!("{page}:1:33")}),
                json!({"ts": 2, "level": "error", "source": "console", "url": format!("{page}#top"), "message": "inline too",
                       "stack": format!("Error: inline too\n    at {page}:1:33")}),
                logged_at(&origin, 3),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 3, has_result).await;
    assert_eq!(list[0]["sourcemap"], "inline in the page", "{list:#?}");
    assert_eq!(list[1]["frames"][0]["sourcemap"], "inline in the page", "{list:#?}");
    let asked = site.log.lock().expect("log").clone();
    assert!(!asked.iter().any(|u| u.starts_with("/dashboard/")), "the page was fetched again: {asked:?}");
    assert!(asked.iter().any(|u| u == "/app.js"), "a script of its own is still fetched: {asked:?}");
    mcp.close().await;
    server.stop();
}

/// A line a worker logged or threw (deep mode) names the worker's script as its `url`: a frame of
/// that script is the worker's code, mapped through its map, not a script inline in a page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_s_own_lines_are_mapped_through_its_script_s_map() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    site.put("/app.js.map", eleven_line_map("AAEA"));
    let origin = serve_app_js(&server, &site).await;
    let script = format!("{origin}/app.js");
    server
        .ingest(
            "logs",
            vec![
                json!({"ts": 1, "level": "warn", "source": "console", "worker": "service", "url": script,
                       "message": "revalidate answered 500", "location": format!("{script}:1:1")}),
                json!({"ts": 2, "level": "error", "source": "exception", "worker": "shared", "url": script,
                       "message": "Uncaught Error: failed", "stack": format!("Error: failed\n    at {script}:1:1")}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(list[0]["original"]["line"], 3, "{list:#?}");
    assert_eq!(list[1]["frames"][0]["original"]["line"], 3, "{list:#?}");
    mcp.close().await;
    server.stop();
}

/// `site` serving `/app.js` (naming `app.js.map`, served or not) on 127.0.0.1, that origin in the
/// capture scope; its origin.
async fn serve_app_js(server: &Server, site: &Site) -> String {
    site.put("/app.js", "a()\n//# sourceMappingURL=app.js.map\n");
    let addr = site.clone().start("127.0.0.1").await;
    report_scope(server, &["http://127.0.0.1/*"]).await;
    format!("http://127.0.0.1:{}", addr.port())
}

/// A console line logged at the start of `origin`'s /app.js.
fn logged_at(origin: &str, ts: i64) -> Value {
    json!({"ts": ts, "level": "log", "source": "console", "url": format!("{origin}/"), "message": "m", "location": format!("{origin}/app.js:1:1")})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_changed_under_the_same_url_is_mapped_with_its_new_map() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    let map = |line: u32| {
        // One mapping at the start of generated line 1, to source line `line` (0-based in the VLQ).
        let vlq = match line {
            2 => "AAEA",
            9 => "AASA",
            _ => unreachable!(),
        };
        format!(
            r#"{{"version":3,"sources":["app.js"],"sourcesContent":["1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11"],"names":[],"mappings":"{vlq}"}}"#
        )
    };
    site.put("/app.js.map", map(2));
    let origin = serve_app_js(&server, &site).await;
    let entry = |ts: i64| logged_at(&origin, ts);
    server.ingest("logs", vec![entry(1)]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["original"]["line"], 3);
    // The dev server rebuilds after an edit: same URLs, new map (and ETag).
    site.put("/app.js", "a(1)\n//# sourceMappingURL=app.js.map\n");
    site.put("/app.js.map", map(9));
    server.ingest("logs", vec![entry(2)]).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(list[0]["original"]["line"], 3, "the first entry keeps what was resolved when it was stored");
    assert_eq!(list[1]["original"]["line"], 10, "the second is mapped with the new map");
    mcp.close().await;
    server.stop();
}

/// A map of `app.js` (eleven source lines) with `vlq` its one mapping.
fn eleven_line_map(vlq: &str) -> String {
    saved_map(vlq, "1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11")
}

/// A map of `app.js` whose source reads `text` (JSON-escaped), with `vlq` its one mapping.
fn saved_map(vlq: &str, text: &str) -> String {
    format!(r#"{{"version":3,"sources":["app.js"],"sourcesContent":["{text}"],"names":[],"mappings":"{vlq}"}}"#)
}

/// A console line logged in `tab` at the start of `origin`'s /app.js.
fn logged_in(tab: i64, origin: &str, ts: i64) -> Value {
    json!({"tabId": tab, "ts": ts, "level": "log", "url": format!("{origin}/"), "message": "m", "location": format!("{origin}/app.js:1:1")})
}

/// An entry that reaches the server after its file was saved again is mapped with the map of the
/// version its page ran, told by the length the page's Resource Timing gave the script.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_of_a_version_before_an_edit_is_mapped_with_that_versions_map() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    let map = eleven_line_map;
    site.put("/app.js.map", map("AAEA")); // generated line 1 → source line 3
    let origin = serve_app_js(&server, &site).await;
    let tab = 7;
    let logged = |ts: i64| logged_in(tab, &origin, ts);
    // The tab's loads of the script: its time, and the length the page was told (0: a 304).
    let loaded = |ts: i64, size: usize| json!({"tabId": tab, "ts": ts, "url": format!("{origin}/app.js"), "initiatorType": "script", "decodedBodySize": size});
    let v1 = "a()\n//# sourceMappingURL=app.js.map\n";
    let v2 = "b();a()\n//# sourceMappingURL=app.js.map\n";
    server.ingest("network_waterfall", vec![loaded(1, v1.len())]).await;
    server.ingest("logs", vec![logged(2)]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["original"]["line"], 3, "{:#}", list[0]);
    // Saved again, a statement put above: generated line 1 now maps to source line 10.
    site.put("/app.js", v2);
    site.put("/app.js.map", saved_map("AASA", "0\\n1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11"));
    // Logged by the page still running the first version, resolved after the edit.
    server.ingest("logs", vec![logged(3)]).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(list[1]["original"]["line"], 3, "the version that ran: {:#}", list[1]);
    assert_eq!(list[1]["original"]["edited"], true, "{:#}", list[1]);
    // The page reloaded: the new version, then a load the browser revalidated (304, no length).
    server.ingest("network_waterfall", vec![loaded(4, v2.len()), loaded(5, 0)]).await;
    server.ingest("logs", vec![logged(6)]).await;
    let list = resolved(&mcp, 3, has_result).await;
    assert_eq!(list[2]["original"]["line"], 10, "the version at hand: {:#}", list[2]);
    assert_eq!(list[2]["original"].get("edited"), None, "{:#}", list[2]);
    // A version of a length the server never fetched: its map is gone.
    server.ingest("network_waterfall", vec![loaded(7, 3)]).await;
    server.ingest("logs", vec![logged(8)]).await;
    let list = resolved(&mcp, 4, has_result).await;
    assert_eq!(list[3]["sourcemap"], "changed since it ran", "{:#}", list[3]);
    assert_eq!(list[3].get("original"), None);
    // Another tab that loaded nothing the server knows of: the version at hand, as before.
    server
        .ingest("logs", vec![json!({"tabId": 8, "ts": 9, "level": "log", "url": format!("{origin}/"), "message": "m", "location": format!("{origin}/app.js:1:1")})])
        .await;
    let list = resolved(&mcp, 5, has_result).await;
    assert_eq!(list[4]["original"]["line"], 10, "{:#}", list[4]);
    mcp.close().await;
    server.stop();
}

/// A script served anew whose own file was not saved (Vite's importer of a saved module: its
/// import's `?t=` changed, and with it its length) is mapped with the version that ran and is no
/// edit: its map says the same text of the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_served_anew_with_its_file_unsaved_is_no_edit() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    site.put("/app.js.map", eleven_line_map("AAEA"));
    let origin = serve_app_js(&server, &site).await;
    let tab = 7;
    let loaded = |ts: i64, size: usize| json!({"tabId": tab, "ts": ts, "url": format!("{origin}/app.js"), "initiatorType": "script", "decodedBodySize": size});
    let v1 = "import './label.js';a()\n//# sourceMappingURL=app.js.map\n";
    site.put("/app.js", v1);
    server.ingest("network_waterfall", vec![loaded(1, v1.len())]).await;
    server.ingest("logs", vec![logged_in(tab, &origin, 2)]).await;
    let mcp = Mcp::http(&server).await;
    resolved(&mcp, 1, has_result).await;
    // label.js saved: app.js is served with a new import URL, its own text and map's source the same.
    site.put("/app.js", "import './label.js?t=1732';a()\n//# sourceMappingURL=app.js.map\n");
    site.put("/app.js.map", eleven_line_map("AAEA"));
    server.ingest("logs", vec![logged_in(tab, &origin, 3)]).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(list[1]["original"]["line"], 3, "{:#}", list[1]);
    assert_eq!(list[1]["original"].get("edited"), None, "{:#}", list[1]);
    mcp.close().await;
    server.stop();
}

/// Metro answers its bundle with an error while a file does not compile: what a page loaded before
/// still runs is the version the server had, and its entries, resolved while the bundle is not
/// served or after the fix is served under the same URL, are mapped with that version's map and
/// said edited (they were mapped through the new map, lines off by the edit, and not flagged).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_kept_through_a_broken_build_maps_what_the_page_still_runs() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    let map = eleven_line_map;
    site.put("/app.js.map", map("AAEA")); // generated line 1 → source line 3
    let origin = serve_app_js(&server, &site).await;
    let tab = 7;
    let logged = |ts: i64| logged_in(tab, &origin, ts);
    let v1 = "a()\n//# sourceMappingURL=app.js.map\n";
    server
        .ingest("network_waterfall", vec![json!({"tabId": tab, "ts": 1, "url": format!("{origin}/app.js"), "initiatorType": "script", "decodedBodySize": v1.len()})])
        .await;
    server.ingest("logs", vec![logged(2)]).await;
    let mcp = Mcp::http(&server).await;
    assert_eq!(resolved(&mcp, 1, has_result).await[0]["original"]["line"], 3);
    // A file saved broken: the bundle is not served.
    site.remove("/app.js");
    server.ingest("logs", vec![logged(3)]).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(
        (list[1]["original"]["line"].as_u64(), list[1]["original"]["edited"].as_bool()),
        (Some(3), Some(true)),
        "{:#}",
        list[1]
    );
    // Fixed, with a statement put above: served again under the same URL, its lines moved.
    site.put("/app.js", "b();a()\n//# sourceMappingURL=app.js.map\n");
    site.put("/app.js.map", saved_map("AASA", "0\\n1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11"));
    server.ingest("logs", vec![logged(4)]).await;
    let list = resolved(&mcp, 3, has_result).await;
    assert_eq!(
        (list[2]["original"]["line"].as_u64(), list[2]["original"]["edited"].as_bool()),
        (Some(3), Some(true)),
        "{:#}",
        list[2]
    );
    mcp.close().await;
    server.stop();
}

/// A map the dev server did not have yet (written after its script, or a first compile that
/// failed) is asked for again with the next batch, though the script answers 304.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_map_missing_at_first_is_asked_for_again_under_an_unchanged_script() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    let origin = serve_app_js(&server, &site).await;
    let entry = |ts: i64| logged_at(&origin, ts);
    server.ingest("logs", vec![entry(1)]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["sourcemap"], "not found", "no map yet: {:#}", list[0]);
    site.put(
        "/app.js.map",
        r#"{"version":3,"sources":["app.js"],"sourcesContent":["1\n2\n3"],"names":[],"mappings":"AAEA"}"#,
    );
    server.ingest("logs", vec![entry(2)]).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(list[1]["original"]["line"], 3, "mapped now that the map is there: {:#}", list[1]);
    let log = site.log.lock().expect("log").clone();
    assert_eq!(
        log.iter().filter(|u| u.as_str() == "/app.js.map").count(),
        2,
        "the map asked for once a batch: {log:?}"
    );
    // A map served without validators (Metro's) under a script that answers 304 is the script's
    // map still: not downloaded and parsed again for every batch.
    site.plain("/app.js.map");
    for ts in 3..6 {
        server.ingest("logs", vec![entry(ts)]).await;
        let list = resolved(&mcp, ts as usize, has_result).await;
        assert_eq!(list.last().expect("the entry")["original"]["line"], 3);
    }
    let log = site.log.lock().expect("log").clone();
    assert_eq!(log.iter().filter(|u| u.as_str() == "/app.js.map").count(), 3, "{log:?}");
    mcp.close().await;
    server.stop();
}

/// The source lines stored beside a frame are the server's own fetch, which no rule of the
/// extension's sees: the secrets written in them are redacted before they reach the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_the_source_context_never_reach_the_database() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    let source = r#"const stripe = Stripe(\"sk_live_ZQXctxStripeKey1234567\");\nthrow new Error(\"boom\");\nconst config = { password: \"ZQXctxpw\" };"#;
    site.put(
        "/app.js.map",
        format!(r#"{{"version":3,"sources":["app.js"],"sourcesContent":["{source}"],"names":[],"mappings":"AACA"}}"#),
    );
    let origin = serve_app_js(&server, &site).await;
    server.ingest("logs", vec![logged_at(&origin, 1)]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    let context = &list[0]["original"]["context"];
    assert_eq!(
        context["lines"],
        json!([
            "const stripe = Stripe(\"[redacted]\");",
            "throw new Error(\"boom\");",
            "const config = { password: \"[redacted]\" };"
        ]),
        "{:#}",
        list[0]
    );
    mcp.close().await;
    server.stop();
    for file in [db.path.clone(), db.path.with_extension("db-wal")] {
        let bytes = std::fs::read(&file).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("ZQXctxStripeKey") && !text.contains("ZQXctxpw"), "a secret in {}", file.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pathological_scripts_and_maps_leave_raw_frames_and_the_server_serving() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    site.put("/huge.js", format!("h()\n//{}\n", " ".repeat(21 * 1024 * 1024)));
    site.put("/declared.js", "d()\n//# sourceMappingURL=declared.js.map\n");
    let separators = ";".repeat(gasoline::sourcemap::parse::MAX_SEPARATORS + 1);
    site.put("/declared.js.map", format!(r#"{{"version":3,"sources":["a.js"],"mappings":"{separators}"}}"#));
    let mut deep = r#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}"#.to_string();
    for _ in 0..100 {
        deep = format!(r#"{{"version":3,"sections":[{{"offset":{{"line":0,"column":0}},"map":{deep}}}]}}"#);
    }
    site.put("/deep.js", "d()\n//# sourceMappingURL=deep.js.map\n");
    site.put("/deep.js.map", deep);
    site.put("/names.js", "n()\n//# sourceMappingURL=names.js.map\n");
    site.put("/names.js.map", r#"{"version":3,"sources":["a.js"],"names":["x"],"mappings":"AAAAE"}"#);
    site.put("/empty.js", "e()\n//# sourceMappingURL=data:application/json;base64,\n");
    let addr = site.clone().start("127.0.0.1").await;
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let scripts = ["huge", "declared", "deep", "names", "empty"];
    let list: Vec<Value> = scripts
        .iter()
        .map(|s| json!({"ts": 1, "level": "error", "source": "console", "url": format!("{origin}/"), "message": s, "location": format!("{origin}/{s}.js:1:1")}))
        .collect();
    server.ingest("logs", list).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, scripts.len(), has_result).await;
    let reasons: Vec<&str> = list.iter().map(|e| e["sourcemap"].as_str().unwrap_or("mapped?")).collect();
    assert_eq!(reasons, ["too large", "too large", "invalid", "invalid", "invalid"], "{list:#?}");
    assert_eq!(server.health().await["service"], "gasoline", "still serving");
    mcp.close().await;
    server.stop();
}

/// A dev server opened as `http://app.localhost:PORT` (in the default scope): its maps are
/// fetched from 127.0.0.1 as Chrome reaches it, though the system's resolver knows no such name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_a_localhost_subdomain_gets_its_original_frames() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    site.fixture("minified/app.min.js");
    site.fixture("minified/app.min.js.map");
    let addr = site.clone().start("127.0.0.1").await;
    let origin = format!("http://app.localhost:{}", addr.port());
    let entry = json!({"ts": 1, "level": "log", "source": "console", "url": format!("{origin}/"), "message": "m",
                       "location": format!("{origin}/minified/app.min.js:{}", at("minified/app.min.js", "throw new Error"))});
    server.ingest("logs", vec![entry]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert!(list[0]["original"]["source"].is_string(), "{:#}", list[0]);
    assert!(site.requests() >= 2, "the script and its map were fetched from 127.0.0.1");
    mcp.close().await;
    server.stop();
}

/// A hot update run from text that names itself by a path (`//# sourceURL=/__parcel_hmr/1a2b`, as
/// Parcel's are): its frames name that path alone, which is the page's origin's, where the dev
/// server serves the code with its map.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_named_by_a_path_is_mapped_on_the_page_s_origin() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    let script =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap/minified/app.min.js"))
            .expect("fixture");
    let map =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap/minified/app.min.js.map"))
            .expect("fixture");
    site.put("/__parcel_hmr/1a2b", script);
    site.put("/__parcel_hmr/app.min.js.map", map);
    let addr = site.clone().start("127.0.0.1").await;
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let thrown = at("minified/app.min.js", "throw new Error");
    let stack = format!("Error: checkout without a customer\n    at c (/__parcel_hmr/1a2b:{thrown})");
    let entry = json!({"ts": 1, "level": "error", "source": "exception", "url": format!("{origin}/"), "message": "Uncaught Error",
                       "stack": stack, "location": format!("/__parcel_hmr/1a2b:{thrown}")});
    server.ingest("logs", vec![entry]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["original"]["source"], "src/cart.js", "{:#}", list[0]);
    assert_eq!(list[0]["frames"][0]["original"]["function"], "checkout", "{:#}", list[0]);
    let errors = mcp.observe(json!({"what": "errors", "limit": 10})).await;
    assert!(
        entries(&errors)[0]["frames"].as_str().unwrap_or_default().starts_with("checkout src/cart.js:"),
        "{errors:#}"
    );
    mcp.close().await;
    server.stop();
}

/// Standard base64, as webpack writes an eval'd module's inline map.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ABC[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// webpack's `eval-source-map` (Next.js's webpack dev default): each module is a string the
/// bundle evals, with its own inline map and a `webpack-internal:///` sourceURL, which is what
/// Chrome names its frames by and which no URL serves. The module's map is found in the bundle
/// its tab loaded, even when the error reaches the server before the row of that bundle (an
/// urgent error overtakes the page's waterfall): the entry is tried again a moment later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webpack_eval_module_is_mapped_through_the_bundle_its_tab_loaded() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (site, origin) = webpack_site().await;
    let tab = 7;
    let stack = "Error: boom\n    at explode (webpack-internal:///./src/util.js:3:9)\n    at eval (webpack-internal:///./src/util.js:3:3)";
    server
        .ingest("logs", vec![json!({"tabId": tab, "ts": 1, "level": "error", "source": "exception", "url": format!("{origin}/"),
                                     "message": "boom", "stack": stack, "location": "webpack-internal:///./src/util.js:3:3"})])
        .await;
    // The bundle's row comes after the error, as the extension may send them: here after the
    // resolver's first look, which found no bundle and wrote nothing (the pause only orders the
    // two; were the resolver slower, the row would be there at its first look and pass as well).
    tokio::time::sleep(Duration::from_millis(500)).await;
    server
        .ingest(
            "network_waterfall",
            vec![
                json!({"tabId": tab, "ts": 2, "url": format!("{origin}/plain.js"), "initiatorType": "script"}),
                json!({"tabId": tab, "ts": 2, "url": format!("{origin}/main.js"), "initiatorType": "script"}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    let entry = &list[0];
    assert_eq!(entry["original"]["source"], "src/util.js", "{entry:#}");
    assert_eq!(entry["original"]["line"], 7, "{entry:#}");
    assert_eq!(entry["original"]["context"]["lines"][1], "  throw new Error(\"boom\");", "{entry:#}");
    assert_eq!(entry["frames"][0]["original"]["line"], 7, "{entry:#}");
    assert_eq!(entry["frames"][0]["fn"], "explode");
    // A module the bundle does not hold: not found. The same module logged by another tab of
    // the same origin: found where it was last, in the bundle that origin serves.
    server
        .ingest(
            "logs",
            vec![
                json!({"tabId": tab, "ts": 3, "level": "log", "source": "console", "url": format!("{origin}/"),
                                     "message": "m", "location": "webpack-internal:///./src/other.js:1:1"}),
                json!({"tabId": 8, "ts": 4, "level": "log", "source": "console", "url": format!("{origin}/"),
                                     "message": "m", "location": "webpack-internal:///./src/util.js:3:3"}),
            ],
        )
        .await;
    let list = resolved(&mcp, 3, has_result).await;
    assert_eq!(list[1]["sourcemap"], "not found", "{:#}", list[1]);
    assert_eq!(list[2]["original"]["line"], 7, "{:#}", list[2]);
    // A script that holds no eval'd module is asked for once, not again for every batch that
    // looks for a module (src/other.js was looked for twice, in its first try and its second).
    let fetched = |path: &str| site.log.lock().expect("log").iter().filter(|p| p.as_str() == path).count();
    assert_eq!(fetched("/plain.js"), 1, "{:?}", site.log.lock().expect("log"));
    // A page naming a module none of its scripts holds, batch after batch: the scripts are not
    // read again for each (they were up to 16 full downloads a batch).
    let before = fetched("/main.js");
    for ts in 10..16 {
        server
            .ingest(
                "logs",
                vec![json!({"tabId": tab, "ts": ts, "level": "log", "source": "console", "url": format!("{origin}/"),
                                         "message": "m", "location": "webpack-internal:///./src/gone.js:1:1"})],
            )
            .await;
        let list = resolved(&mcp, ts as usize - 6, has_result).await;
        assert_eq!(list.last().expect("the entry")["sourcemap"], "not found");
    }
    assert!(fetched("/main.js") - before <= 1, "{:?}", site.log.lock().expect("log"));
    mcp.close().await;
    server.stop();
}

/// A webpack dev server's bundle (`/main.js`, module `./src/util.js` with its inline map: its
/// line 3 column 2 is line 7 of src/util.js) and a plain script (`/plain.js`), and its origin.
async fn webpack_site() -> (Site, String) {
    let site = Site::default();
    // The module's eval'd code: line 1 `{`, line 2 `function explode() {`, line 3 `  throw …`; its map
    // sends generated line 3 column 2 to line 7 column 2 of src/util.js (0-based in the VLQ).
    let map = json!({"version": 3, "sources": ["webpack://app/./src/util.js?e0eb"], "names": [],
                     "sourcesContent": ["// util\n\n\n\n\nexport function explode() {\n  throw new Error(\"boom\");\n}\n"],
                     "mappings": "AAAA;AAKA;EACE"});
    let module = format!(
        "{{\nfunction explode() {{\n  throw new Error(\"boom\");\n}}\n//# sourceURL=[module]\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,{}\n//# sourceURL=webpack-internal:///./src/util.js\n}}",
        base64(map.to_string().as_bytes())
    );
    let bundle = format!(
        "(() => {{\nvar __webpack_modules__ = ({{\n\"./src/util.js\": (() => {{\neval({});\n}})\n}});\n}})();\n",
        json!(module)
    );
    site.put("/main.js", bundle);
    site.put("/plain.js", "console.log('no eval here');\n");
    let addr = site.clone().start("127.0.0.1").await;
    (site, format!("http://127.0.0.1:{}", addr.port()))
}

/// A bundle of modules webpack runs through `eval`, each `(name, code, map)`: its code (three lines
/// at least) with its inline map and its `webpack-internal:///` sourceURL.
fn eval_bundle(modules: &[(&str, &str, Value)]) -> String {
    let entries: Vec<String> = modules
        .iter()
        .map(|(name, code, map)| {
            let module = format!(
                "{code}\n//# sourceURL=[module]\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,{}\n//# sourceURL=webpack-internal:///{name}\n",
                base64(map.to_string().as_bytes())
            );
            format!("{}: (() => {{\neval({});\n}})", json!(name), json!(module))
        })
        .collect();
    format!("(() => {{\nvar __webpack_modules__ = ({{\n{}\n}});\n}})();\n", entries.join(",\n"))
}

/// An eval'd module's map sending its generated line 3 column 2 to line `line` (1-based) of
/// `source` in the build `namespace`.
fn module_map(namespace: &str, source: &str, line: usize) -> Value {
    let text: String = (1..=line + 2).map(|n| format!("// {source} line {n}\n")).collect();
    // VLQ: line 1 to source line 0; line 2 to source line `line - 2`; line 3 column 2 one line on.
    let delta = line - 2;
    let vlq = if delta < 16 {
        ["A", "C", "E", "G", "I", "K", "M", "O", "Q", "S", "U", "W", "Y", "a", "c", "e"][delta].to_string()
    } else {
        panic!("line")
    };
    json!({"version": 3, "sources": [format!("webpack://{namespace}/./{source}")], "names": [],
           "sourcesContent": [text], "mappings": format!("AAAA;AA{vlq}A;EACE")})
}

/// Module Federation: a host and a remote, two webpack builds on two origins, each with a module
/// `./src/api.js` of its own code. Chrome names both modules' frames `webpack-internal:///./src/api.js`.
/// A frame of it is mapped through the build that holds the entry's other app modules (the remote's
/// `./src/Widget.js`, which the host lacks), and said `ambiguous` where nothing tells the two apart,
/// rather than mapped through whichever build was read first; a library both builds hold with the same
/// code (React, shared) maps as always.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_module_name_two_webpack_builds_hold_is_mapped_through_the_build_that_ran_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let library = (
        "../node_modules/lib/index.js",
        "{\nfunction lib() {\n  return callback();\n}",
        module_map("x", "node_modules/lib/index.js", 4),
    );
    let host = Site::default();
    host.put(
        "/main.js",
        eval_bundle(&[
            ("./src/api.js", "{\nfunction host() {\n  return fetch(flags);\n}", module_map("host", "src/api.js", 5)),
            library.clone(),
        ]),
    );
    let remote = Site::default();
    remote.put(
        "/remoteEntry.js",
        eval_bundle(&[
            (
                "./src/api.js",
                "{\nfunction price() {\n  throw new Error(\"boom\");\n}",
                module_map("remote", "src/api.js", 11),
            ),
            (
                "./src/Widget.js",
                "{\nfunction Widget() {\n  return price();\n}",
                module_map("remote", "src/Widget.js", 7),
            ),
            library,
        ]),
    );
    let host_origin = format!("http://127.0.0.1:{}", host.clone().start("127.0.0.1").await.port());
    let remote_origin = format!("http://127.0.0.1:{}", remote.clone().start("127.0.0.1").await.port());
    let tab = 5;
    // The host's script is the newer: the one read first where one build alone is searched.
    let script = |origin: &str, path: &str, ts: i64| json!({"tabId": tab, "ts": ts, "url": format!("{origin}{path}"), "initiatorType": "script"});
    server
        .ingest(
            "network_waterfall",
            vec![script(&remote_origin, "/remoteEntry.js", 1), script(&host_origin, "/main.js", 2)],
        )
        .await;
    let log = |location: &str, stack: Option<&str>| {
        let mut entry = json!({"tabId": tab, "ts": 3, "level": "error", "source": "exception", "url": format!("{host_origin}/"),
                               "message": "boom", "location": location});
        if let Some(stack) = stack {
            entry["stack"] = json!(stack);
        }
        entry
    };
    let stack = "Error: boom\n    at price (webpack-internal:///./src/api.js:3:9)\n    at Widget (webpack-internal:///./src/Widget.js:3:3)\n    at lib (webpack-internal:///../node_modules/lib/index.js:3:3)";
    server
        .ingest(
            "logs",
            vec![
                log("webpack-internal:///./src/api.js:3:3", Some(stack)),
                log("webpack-internal:///./src/api.js:3:3", None),
                log("webpack-internal:///../node_modules/lib/index.js:3:3", None),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 3, has_result).await;
    let frames = &list[0]["frames"];
    assert_eq!(frames[0]["original"]["source"], "src/api.js", "{:#}", list[0]);
    assert_eq!(frames[0]["original"]["line"], 11, "the remote's api.js, not the host's line 5: {:#}", list[0]);
    assert_eq!(frames[0]["original"]["context"]["lines"][1], "// src/api.js line 11", "{:#}", list[0]);
    assert_eq!(frames[1]["original"]["line"], 7, "{:#}", list[0]);
    // Which build: src/api.js alone would not say whose.
    assert_eq!(frames[0]["original"]["build"], "remote", "{:#}", list[0]);
    assert_eq!(list[2]["original"].get("build"), None, "one build's code: {:#}", list[2]);
    let compact = mcp.observe(json!({"what": "errors", "limit": 1})).await;
    assert_eq!(entries(&compact)[0]["at"], "src/api.js:11:3 (in remote)", "{compact}");
    assert_eq!(list[1]["sourcemap"], "ambiguous", "nothing tells the builds apart: {:#}", list[1]);
    assert_eq!(list[2]["original"]["line"], 4, "the same library code in both builds: {:#}", list[2]);
    mcp.close().await;
    server.stop();
}

/// A frame of a webpack bundle itself, outside the modules it runs through `eval` (its runtime:
/// `__webpack_require__`, Module Federation loading a remote's entry), is webpack's code of no
/// source file, said `bundler code` (library code to an entry's `at`), not a script whose map was
/// not found; a plain script without a map is still `not found`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_of_webpack_s_runtime_is_bundler_code() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (_site, origin) = webpack_site().await;
    let stack = format!(
        "ScriptExternalLoadError: Loading script failed.\n    at __webpack_require__.l ({origin}/main.js:2:5)\n    at load ({origin}/plain.js:1:1)"
    );
    server
        .ingest(
            "logs",
            vec![json!({"tabId": 9, "ts": 1, "level": "error", "source": "exception", "url": format!("{origin}/"),
                         "message": "ScriptExternalLoadError: Loading script failed.", "stack": stack})],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["frames"][0]["sourcemap"], "bundler code", "{:#}", list[0]);
    assert_eq!(list[0]["frames"][1]["sourcemap"], "not found", "{:#}", list[0]);
    mcp.close().await;
    server.stop();
}

/// A Module Federation remote's dev server stopped, then started again: a frame of its module
/// logged while it was down is not found, and one logged once it is back is mapped, though its
/// script was asked for moments before and nothing answered (that was remembered as a script
/// holding no module, and the module as missing, for 30 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_s_module_is_mapped_once_its_dev_server_is_back() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let host = Site::default();
    host.put(
        "/main.js",
        eval_bundle(&[("./src/host.js", "{\nfunction host() {\n  return 1;\n}", module_map("host", "src/host.js", 5))]),
    );
    let host_origin = format!("http://127.0.0.1:{}", host.clone().start("127.0.0.1").await.port());
    // The remote's port, with nothing listening on it yet.
    let remote_port =
        tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.expect("bind").local_addr().expect("addr").port();
    let remote_origin = format!("http://127.0.0.1:{remote_port}");
    let tab = 6;
    let script = |origin: &str, path: &str| json!({"tabId": tab, "ts": 1, "url": format!("{origin}{path}"), "initiatorType": "script"});
    server
        .ingest("network_waterfall", vec![script(&host_origin, "/main.js"), script(&remote_origin, "/remoteEntry.js")])
        .await;
    let log = |ts: i64| {
        json!({"tabId": tab, "ts": ts, "level": "error", "source": "console", "url": format!("{host_origin}/"),
               "message": "widget", "location": "webpack-internal:///./src/Widget.js:3:3"})
    };
    server.ingest("logs", vec![log(2)]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["sourcemap"], "not found", "the remote is down: {:#}", list[0]);
    let remote = Site::default();
    remote.put(
        "/remoteEntry.js",
        eval_bundle(&[(
            "./src/Widget.js",
            "{\nfunction Widget() {\n  return price();\n}",
            module_map("remote", "src/Widget.js", 7),
        )]),
    );
    let listener =
        tokio::net::TcpListener::bind(("127.0.0.1", remote_port)).await.expect("bind the remote's port again");
    remote.clone().start_with(listener);
    server.ingest("logs", vec![log(3)]).await;
    let list = resolved(&mcp, 2, has_result).await;
    assert_eq!(list[1]["original"]["source"], "src/Widget.js", "the remote is back: {:#}", list[1]);
    assert_eq!(list[1]["original"]["line"], 7, "{:#}", list[1]);
    mcp.close().await;
    server.stop();
}

/// On a busy machine the rows of a tab's scripts may come seconds after its error: while no
/// script of the tab is known at all, the entry is tried again longer (2, 4, then 8 s) before it
/// is said `not found`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_eval_module_is_mapped_though_its_tab_s_scripts_come_seconds_late() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (_site, origin) = webpack_site().await;
    let stack = "Error: boom\n    at explode (webpack-internal:///./src/util.js:3:9)";
    server
        .ingest(
            "logs",
            vec![json!({"tabId": 7, "ts": 1, "level": "error", "source": "exception", "url": format!("{origin}/"),
                                     "message": "boom", "stack": stack})],
        )
        .await;
    // Past the first try and the second (at 2 s), with nothing written meanwhile.
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    let mcp = Mcp::http(&server).await;
    let list = entries(&mcp.observe(json!({"what": "logs", "fields": "all"})).await);
    assert!(list[0].get("frames").is_none(), "nothing written while the tab has no script known: {:#}", list[0]);
    server
        .ingest(
            "network_waterfall",
            vec![json!({"tabId": 7, "ts": 2, "url": format!("{origin}/main.js"), "initiatorType": "script"})],
        )
        .await;
    let list = resolved(&mcp, 1, has_result).await;
    assert_eq!(list[0]["frames"][0]["original"]["line"], 7, "{:#}", list[0]);
    mcp.close().await;
    server.stop();
}

/// A dev server that accepts connections and never answers (stopped in a debugger): the first
/// fetch from it times out, and its other scripts are not asked for while it is stalled, so the
/// frames waiting behind it are answered `timed out` at once instead of five seconds each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_dev_server_is_waited_for_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            held.push(socket); // read nothing, answer nothing
        }
    });
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{port}");
    let stack: String = (0..6).map(|i| format!("    at f{i} ({origin}/chunk-{i}.js:1:{})\n", 10 + i)).collect();
    let entry = json!({"ts": 1, "level": "error", "source": "exception", "url": format!("{origin}/"),
                       "message": "Error: x", "stack": format!("Error: x\n{stack}")});
    server.ingest("logs", vec![entry]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    let frames = list[0]["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 6, "{:#}", list[0]);
    assert!(frames.iter().all(|f| f["sourcemap"] == "timed out"), "{:#}", list[0]);
    assert_eq!(connections.load(Ordering::SeqCst), 1, "one request to the stalled server, not one per script");
    mcp.close().await;
    server.stop();
}

/// A WebAssembly module names its map in a custom section (`sourceMappingURL`), and a wasm frame
/// is its module's one line at a byte offset (`trap.wasm:wasm-function[0]:0x68`; the error event's
/// `trap.wasm:1:105`): both are mapped to the AssemblyScript line that trapped. The fixture is
/// `wasm/index.ts` built by AssemblyScript 0.28 (`asc index.ts --outFile trap.wasm --sourceMap --debug`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wasm_trap_is_mapped_to_the_line_that_trapped() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    site.fixture("wasm/trap.wasm");
    site.fixture("wasm/trap.wasm.map");
    let addr = site.clone().start("127.0.0.1").await;
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let stack = format!(
        "RuntimeError: unreachable\n    at assembly/index/crash ({origin}/wasm/trap.wasm:wasm-function[0]:0x68)\n    \
         at assembly/index/deep ({origin}/wasm/trap.wasm:wasm-function[2]:0x85)"
    );
    let entry = json!({"ts": 1, "level": "error", "source": "exception", "url": format!("{origin}/"),
        "message": "RuntimeError: unreachable", "stack": stack, "location": format!("{origin}/wasm/trap.wasm:1:105")});
    server.ingest("logs", vec![entry]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    let place = |o: &Value| format!("{}:{}:{}", o["source"].as_str().unwrap_or_default(), o["line"], o["column"]);
    // Named as served: the map at /wasm/, its sourceRoot `./trap`.
    let source = "wasm/trap/assembly/index.ts";
    let unreachable = line_of_wasm("unreachable();");
    let deep = line_of_wasm("return crash(5)");
    assert_eq!(place(&list[0]["original"]), format!("{source}:{unreachable}:5"), "{:#}", list[0]);
    assert_eq!(place(&list[0]["frames"][0]["original"]), format!("{source}:{unreachable}:5"), "{:#}", list[0]);
    assert_eq!(list[0]["frames"][1]["original"]["line"], deep, "{:#}", list[0]);
    let errors = mcp.observe(json!({"what": "errors", "limit": 10})).await;
    assert_eq!(entries(&errors)[0]["at"], format!("{source}:{unreachable}:5"), "{errors:#}");
    mcp.close().await;
    server.stop();
}

/// The line of `needle` in the wasm fixture's source (1-based).
fn line_of_wasm(needle: &str) -> u64 {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap/wasm/index.ts");
    let code = std::fs::read_to_string(file).expect("fixture");
    code[..code.find(needle).expect("needle")].matches('\n').count() as u64 + 1
}

/// A framework that sends its server's error to the page in development (React Router's loader
/// error, with its stack) names the file by its path on disk, which ends with the path the page
/// loaded it under: that frame's place is the source's already, given as the served path, and not
/// looked up through the browser's build of the file (Vite serves files by their path on disk too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dev_server_s_own_frame_is_the_file_the_page_loaded_as_written() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let site = Site::default();
    // The browser's build of the route module, whose map would put line 4 elsewhere.
    site.put("/app/routes/crash.tsx", "export default function C(){}\n//# sourceMappingURL=crash.tsx.map\n");
    site.put("/tmp/rrapp/app/routes/crash.tsx", "export default function C(){}\n//# sourceMappingURL=crash.tsx.map\n");
    site.put("/app/routes/crash.tsx.map", eleven_line_map("AASA"));
    let addr = site.clone().start("127.0.0.1").await;
    report_scope(&server, &["http://127.0.0.1/*"]).await;
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let tab = 3;
    server
        .ingest(
            "network_waterfall",
            vec![json!({"tabId": tab, "ts": 1, "url": format!("{origin}/app/routes/crash.tsx?import"), "initiatorType": "script"})],
        )
        .await;
    let stack = "Error: inventory service is down\n    at readInventory (/tmp/rrapp/app/routes/crash.tsx:4:9)\n    \
                 at loader (/tmp/rrapp/app/routes/crash.tsx:8:23)\n    at callRouteHandler (/tmp/rrapp/node_modules/react-router/dist/development/index.mjs:9:5)";
    let entry = json!({"tabId": tab, "ts": 2, "level": "error", "source": "console", "url": format!("{origin}/crash"),
        "message": "Error: inventory service is down", "stack": stack});
    server.ingest("logs", vec![entry]).await;
    let mcp = Mcp::http(&server).await;
    let list = resolved(&mcp, 1, has_result).await;
    let place = |f: &Value| {
        format!(
            "{}:{}:{}",
            f["original"]["source"].as_str().unwrap_or("-"),
            f["original"]["line"],
            f["original"]["column"]
        )
    };
    assert_eq!(place(&list[0]["frames"][0]), "app/routes/crash.tsx:4:9", "{:#}", list[0]);
    assert_eq!(place(&list[0]["frames"][1]), "app/routes/crash.tsx:8:23", "{:#}", list[0]);
    let fetched = site.log.lock().expect("log").clone();
    assert!(
        !fetched.iter().any(|u| u.starts_with("/tmp/rrapp/app/")),
        "nothing on disk asked of the dev server: {fetched:?}"
    );
    let errors = mcp.observe(json!({"what": "errors", "limit": 10})).await;
    assert_eq!(entries(&errors)[0]["at"], "app/routes/crash.tsx:4:9", "{errors:#}");
    mcp.close().await;
    server.stop();
}
