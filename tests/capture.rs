//! `PUT /capture`, black-box: the real server takes the capture state the
//! extension reports (only from the paired extension, strictly validated),
//! keeps it across a restart, and every observe answer (over a real MCP client)
//! carries it; an answer that is empty because capture is paused or the page
//! asked about is not captured says how to turn capture on.

mod cli;
mod common;

use cli::{db_arg, ok};
use common::{Mcp, Server, TempDb, text_of};
use serde_json::{Value, json};

const OURS: &str = "aaaabbbbccccddddeeeeffffgggghhhh";
const OTHER: &str = "ppppoooonnnnmmmmllllkkkkjjjjiiii";

fn origin(id: &str) -> String {
    format!("chrome-extension://{id}")
}

fn report(origins: &[&str], paused: bool) -> Value {
    json!({"origins": origins, "paused": paused, "deep_tabs": [7], "server_origin": "http://127.0.0.1:7890"})
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

#[tokio::test]
async fn the_paired_extension_reports_capture_and_every_answer_carries_it_across_a_restart() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--extension-id", OURS]);
    let mcp = Mcp::http(&server).await;
    let d = db_arg(&db.path);
    let port = server.port.to_string();
    let human = ok(&["status", "--db", &d, "--port", &port]);
    assert!(human.contains("capture:   not reported by the extension yet"), "{human}");
    // Nothing reported yet: every answer says so.
    for what in ["logs", "summary", "tabs", "page", "vitals", "errors"] {
        let answer = mcp.observe(json!({"what": what})).await;
        assert_eq!(answer.get("capture"), Some(&Value::Null), "{what}: {answer}");
    }
    // Nothing stored and nothing ever reported: the summary says how to connect the extension.
    let summary = mcp.observe(json!({"what": "summary"})).await;
    assert!(summary["hint"].as_str().unwrap_or_default().contains("has not reached this server"), "{summary}");

    let before = now_ms();
    let sent = report(&["http://localhost/*", "https://shop.example/*"], false);
    let (status, reply) = server.put_capture(&sent, &[("origin", &origin(OURS))]).await;
    assert_eq!((status, &reply), (204, &Value::Null));
    let expected = |answer: &Value| {
        let capture = &answer["capture"];
        assert_eq!(capture["origins"], json!(["http://localhost/*", "https://shop.example/*"]), "{answer}");
        assert_eq!(capture["paused"], false, "{answer}");
        assert_eq!(capture["deep_tabs"], json!([7]), "{answer}");
        let at = capture["reported_at"].as_i64().expect("reported_at");
        assert!(at >= before && at <= now_ms(), "{answer}");
        at
    };
    let summary = mcp.observe(json!({"what": "summary"})).await;
    assert!(!summary["hint"].as_str().unwrap_or_default().contains("has not reached"), "reported now: {summary}");
    let mut reported_at = 0;
    for args in [
        json!({"what": "logs"}),
        json!({"what": "summary"}),
        json!({"what": "tabs"}),
        json!({"what": "page"}),
        json!({"what": "vitals"}),
        json!({"what": "errors", "group": true}),
        json!({"what": "network_bodies", "id": 1}),
    ] {
        reported_at = expected(&mcp.observe(args.clone()).await);
    }
    // configure status shows the whole report, with the server it was sent to.
    let status = mcp.ok("configure", json!({"action": "status"})).await;
    let mut whole = sent.clone();
    whole["reported_at"] = json!(reported_at);
    assert_eq!(status["capture"], whole, "{status}");
    // So does gasoline status, for the person.
    let json: Value = serde_json::from_str(&ok(&["status", "--json", "--db", &d, "--port", &port])).unwrap();
    assert_eq!(json["capture"], whole, "{json}");
    let human = ok(&["status", "--db", &d, "--port", &port]);
    assert!(
        human.contains("capture:   http://localhost/*, https://shop.example/*, deep view of tab 7, reported "),
        "{human}"
    );
    mcp.close().await;

    // A second report replaces the first; unknown fields are ignored.
    let mut next = report(&["<all_urls>"], true);
    next["coming_later"] = json!({"anything": [1, 2]});
    let (status, _) = server.put_capture(&next, &[("origin", &origin(OURS))]).await;
    assert_eq!(status, 204);
    server.stop();

    let server = Server::start(&db.path, &["--extension-id", OURS]);
    let mcp = Mcp::http(&server).await;
    let answer = mcp.observe(json!({"what": "logs"})).await;
    assert_eq!(answer["capture"]["origins"], json!(["<all_urls>"]), "survives a restart: {answer}");
    assert_eq!(answer["capture"]["paused"], true, "{answer}");
    assert!(answer["capture"]["reported_at"].as_i64() >= Some(reported_at), "{answer}");
    assert!(answer["capture"].get("coming_later").is_none(), "{answer}");
    mcp.close().await;
    server.stop();
}

#[tokio::test]
async fn only_the_paired_extension_may_report_and_a_bad_report_is_refused_with_what_to_send() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--extension-id", OURS]);
    let good = report(&["http://localhost/*"], false);

    let (status, reply) = server.put_capture(&good, &[("origin", "https://evil.example")]).await;
    assert_eq!(status, 403, "{reply}");
    assert!(reply["error"].as_str().unwrap_or_default().contains("web origin"), "{reply}");
    let (status, reply) = server.put_capture(&good, &[("origin", &origin(OTHER))]).await;
    assert_eq!(status, 403, "another extension: {reply}");
    let (status, reply) = server.put_capture(&good, &[("host", "evil.example")]).await;
    assert_eq!(status, 403, "a non-loopback Host: {reply}");

    // The paired extension's preflight is answered, PUT included.
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, server.url("/capture"))
        .header("origin", origin(OURS))
        .header("access-control-request-method", "PUT")
        .send()
        .await
        .expect("preflight");
    assert_eq!(preflight.status().as_u16(), 204);
    let methods = preflight.headers().get("access-control-allow-methods").and_then(|v| v.to_str().ok());
    assert!(methods.is_some_and(|m| m.contains("PUT")), "{methods:?}");

    let many = |n: usize, item: Value| Value::Array(vec![item; n]);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"{not json".to_vec(), "not JSON"),
        (b"[1]".to_vec(), "JSON object"),
        (json!({"origins": ["http://localhost/*"]}).to_string().into_bytes(), "`paused`"),
        (json!({"paused": false}).to_string().into_bytes(), "`origins`"),
        (json!({"origins": "http://localhost/*", "paused": false}).to_string().into_bytes(), "`origins`"),
        (json!({"origins": ["localhost"], "paused": false}).to_string().into_bytes(), "not a match pattern"),
        (json!({"origins": [3], "paused": false}).to_string().into_bytes(), "`origins[0]`"),
        (json!({"origins": many(1001, json!("<all_urls>")), "paused": false}).to_string().into_bytes(), "at most 1000"),
        (
            json!({"origins": [format!("http://localhost/{}", "x".repeat(2040))], "paused": false})
                .to_string()
                .into_bytes(),
            "longer than 2048",
        ),
        (
            json!({"origins": [], "paused": false, "deep_tabs": many(1001, json!(1))}).to_string().into_bytes(),
            "at most 1000",
        ),
        (json!({"origins": [], "paused": false, "deep_tabs": ["7"]}).to_string().into_bytes(), "`deep_tabs[0]`"),
        (json!({"origins": [], "paused": "no"}).to_string().into_bytes(), "`paused`"),
        (json!({"origins": [], "paused": false, "server_origin": 7890}).to_string().into_bytes(), "`server_origin`"),
    ];
    for (body, expected) in cases {
        let shown = String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned();
        let (status, reply) = server.put_capture_raw(body, &[("origin", &origin(OURS))]).await;
        assert_eq!(status, 400, "{shown}: {reply}");
        let message = reply["error"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{shown}: expected {expected:?} in {reply}");
    }
    // Nothing refused was stored.
    let mcp = Mcp::http(&server).await;
    assert_eq!(mcp.observe(json!({"what": "logs"})).await["capture"], Value::Null);

    // At the bounds, accepted.
    let full = json!({
        "origins": many(1000, json!(format!("https://shop.example/{}", "x".repeat(2048 - 21)))),
        "paused": false,
        "deep_tabs": many(1000, json!(3)),
    });
    let (status, reply) = server.put_capture(&full, &[("origin", &origin(OURS))]).await;
    assert_eq!(status, 204, "{reply}");
    // Its metadata stays small: the smallest budget still holds a whole answer.
    let answer = mcp.call("observe", json!({"what": "summary", "max_chars": 1000, "max_tokens": 500})).await;
    let text = text_of(&answer);
    assert!(text.chars().count() <= 1000, "{} chars: {text}", text.chars().count());
    let answer: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        answer["capture"]["origins_omitted"].as_i64().unwrap()
            + answer["capture"]["origins"].as_array().unwrap().len() as i64,
        1000
    );
    // And configure status, which has no budget argument, names some and counts the rest.
    let status = text_of(&mcp.call("configure", json!({"action": "status"})).await);
    assert!(status.chars().count() < 12_000, "{} chars", status.chars().count());
    let status: Value = serde_json::from_str(&status).expect("JSON");
    let capture = &status["capture"];
    assert_eq!(
        (capture["origins_omitted"].as_i64(), capture["deep_tabs_omitted"].as_i64()),
        (Some(980), Some(980)),
        "{capture}"
    );
    mcp.close().await;
    server.stop();
}

fn hint(answer: &Value) -> String {
    answer["hint"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn an_empty_answer_about_a_page_outside_capture_says_how_to_capture_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server
        .ingest(
            "network_waterfall",
            vec![json!({"tabId": 1, "ts": 1, "url": "http://localhost:3000/api", "responseStatus": 200})],
        )
        .await;
    server.post("tabs", &json!({"entries": [{"tabId": 1, "url": "http://localhost:3000/", "title": "App"}]})).await;
    server
        .post("tabs", &json!({"entries": [{"tabId": 9, "url": "https://shop.example/cart?id=3", "title": "Shop"}]}))
        .await;
    let mcp = Mcp::http(&server).await;
    const NOT_CAPTURED: &str = "is not captured: open the Gasoline popup on it and choose Capture this site";

    // Before any report, no such hint.
    let answer = mcp.observe(json!({"what": "network_waterfall", "url": "shop.example"})).await;
    assert!(!hint(&answer).contains(NOT_CAPTURED), "{answer}");

    let (status, _) = server.put_capture(&report(&["http://localhost/*"], false), &[]).await;
    assert_eq!(status, 204);

    // By the agent's url filter: the host it asked about, and no other.
    for url in ["shop.example", "https://shop.example/cart"] {
        let answer = mcp.observe(json!({"what": "network_waterfall", "url": url})).await;
        assert_eq!(answer["count"], 0, "{answer}");
        let h = hint(&answer);
        assert!(h.contains(&format!("shop.example {NOT_CAPTURED}")), "{url}: {answer}");
        assert!(!h.contains("localhost"), "names only what was asked: {h}");
    }
    // By the tab it named: that tab's host.
    for what in ["logs", "network_bodies", "summary"] {
        let answer = mcp.observe(json!({"what": what, "tabId": 9})).await;
        let h = hint(&answer);
        assert!(h.contains(&format!("shop.example {NOT_CAPTURED}")), "{what}: {answer}");
        assert!(!h.contains("cart") && !h.contains("localhost"), "{h}");
    }
    // A captured site with nothing matching, a substring naming no site, a non-empty answer: no such hint.
    for args in [
        json!({"what": "network_waterfall", "url": "localhost:3000/none"}),
        json!({"what": "network_waterfall", "url": "/none"}),
        json!({"what": "network_waterfall", "url": "localhost"}),
        json!({"what": "logs", "tabId": 1}),
        json!({"what": "logs", "tabId": 12345}),
    ] {
        let answer = mcp.observe(args.clone()).await;
        assert!(!hint(&answer).contains("not captured"), "{args}: {answer}");
    }

    // Paused: an empty answer says so; one with entries does not.
    let (status, _) = server.put_capture(&report(&["http://localhost/*"], true), &[]).await;
    assert_eq!(status, 204);
    const PAUSED: &str = "capture is paused: switch it back on in the Gasoline popup";
    let empty = mcp.observe(json!({"what": "logs"})).await;
    assert!(hint(&empty).contains(PAUSED), "{empty}");
    let summary = mcp.observe(json!({"what": "summary", "tabId": 9})).await;
    assert!(hint(&summary).contains(PAUSED), "{summary}");
    let some = mcp.observe(json!({"what": "network_waterfall"})).await;
    assert_eq!(some["count"], 1);
    assert!(!hint(&some).contains("paused"), "{some}");
    mcp.close().await;
    server.stop();
}

/// A page that started workers: what they fetch is seen only in deep mode, and the summary of a
/// tab that is not deep says so; a deep tab's does not.
#[tokio::test]
async fn the_summary_says_a_worker_s_requests_are_seen_only_in_deep_mode() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--extension-id", OURS]);
    let mcp = Mcp::http(&server).await;
    let (status, _) = server.put_capture(&report(&["http://localhost/*"], false), &[("origin", &origin(OURS))]).await;
    assert_eq!(status, 204);
    let worker = |tab: i64, path: &str| {
        json!({"tabId": tab, "ts": 1_732_380_000_000i64, "source": "page", "method": "GET", "initiatorType": "worker",
            "url": format!("http://localhost:5173{path}"), "responseStatus": 200})
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                worker(3, "/src/worker.ts?worker_file&type=module"),
                worker(3, "/src/worker.ts?worker_file&type=module"),
                worker(3, "/src/stats.worker.ts"),
                worker(7, "/src/deep.worker.ts"),
            ],
        )
        .await;
    let summary = mcp.observe(json!({"what": "summary", "tabId": 3})).await;
    let hint = summary["hint"].as_str().unwrap_or_default();
    assert!(
        hint.ends_with(
            "the page started a worker (http://localhost:5173/src/worker.ts and 1 other): what a worker fetches is seen only in deep mode (the popup's Deep view of this tab)"
        ),
        "{summary}"
    );
    // Tab 7 is deep: the browser's view has its worker's requests.
    let deep = mcp.observe(json!({"what": "summary", "tabId": 7})).await;
    assert!(!deep["hint"].as_str().unwrap_or_default().contains("worker"), "{deep}");
    // A PWA's page: its service worker answered two requests from its cache (the server said 500 to
    // the worker, which the page never sees): the summary says where that is seen.
    let cached = |tab: i64| {
        json!({"tabId": tab, "ts": 1_732_380_000_000i64, "source": "page", "method": "GET", "initiatorType": "fetch",
            "url": "http://localhost:5173/api/report", "responseStatus": 200, "fromServiceWorker": "fetch-handler"})
    };
    server.ingest("network_waterfall", vec![cached(4), cached(4), cached(7)]).await;
    let pwa = mcp.observe(json!({"what": "summary", "tabId": 4})).await;
    assert!(
        pwa["hint"].as_str().unwrap_or_default().ends_with(
            "2 of the page's requests were answered by its service worker (fromServiceWorker): what the server answered the worker (an error a cache hid) is seen only in deep mode"
        ),
        "{pwa}"
    );
    let deep = mcp.observe(json!({"what": "summary", "tabId": 7})).await;
    assert!(!deep["hint"].as_str().unwrap_or_default().contains("service worker"), "{deep}");
}
