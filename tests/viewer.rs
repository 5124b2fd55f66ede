//! The viewer at `/`: its page and files, its JSON twins (which must answer what
//! `observe` answers), its event stream, and who may use it. The real binary on
//! an ephemeral port; the page itself in real Chromium at the end
//! (`extension/test/e2e/viewer.mjs`).

mod common;
mod node;

use std::time::{Duration, Instant};

use common::{Mcp, Server, TempDb};
use serde_json::{Value, json};

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

async fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(server.url(path));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.send().await.expect("GET")
}

async fn get_json(server: &Server, path: &str) -> (u16, Value) {
    let r = get(server, path, &[]).await;
    let status = r.status().as_u16();
    (status, r.json().await.expect("JSON"))
}

async fn clear(server: &Server, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let mut request = reqwest::Client::new().post(server.url("/api/clear")).body(body.to_owned());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let r = request.send().await.expect("POST");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn header<'a>(r: &'a reqwest::Response, name: &str) -> &'a str {
    r.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

#[tokio::test]
async fn the_page_and_its_files_are_served_with_a_strict_policy() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    for path in ["/", "/overview", "/console", "/network", "/timeline"] {
        let r = get(&server, path, &[]).await;
        assert_eq!(r.status(), 200, "{path}");
        assert!(header(&r, "content-type").starts_with("text/html"), "{path}");
        let csp = header(&r, "content-security-policy").to_owned();
        for directive in ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"), "{csp}");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
        assert_eq!(header(&r, "x-frame-options"), "DENY");
        let html = r.text().await.unwrap();
        // Every script comes from a file: none is inline.
        for script in html.split("<script").skip(1) {
            assert!(script.trim_start().starts_with("type=\"module\" src=\"/static/"), "inline script in {path}");
        }
    }
    let r = get(&server, "/static/app.js", &[]).await;
    assert_eq!(r.status(), 200);
    assert!(header(&r, "content-type").starts_with("text/javascript"));
    assert!(header(&r, "content-security-policy").contains("default-src 'self'"));
    let r = get(&server, "/static/nope.js", &[]).await;
    assert_eq!(r.status(), 404);
    // An unknown path: a browser gets the page (which says there is no such view) with a 404.
    let r = get(&server, "/no-such-view", &[("accept", "text/html")]).await;
    assert_eq!(r.status(), 404);
    assert!(header(&r, "content-security-policy").contains("default-src 'self'"));
    assert!(r.text().await.unwrap().contains("/static/app.js"));
    let r = get(&server, "/no-such-view", &[]).await;
    assert_eq!(r.status(), 404);
    let r = get(&server, "/api/nothing-here", &[]).await;
    assert_eq!(r.status(), 404);
    assert!(r.text().await.unwrap().contains("/api/overview"), "the 404 lists the routes");
}

/// The console's rows say where each happened as the agent is told: a logs entry's `at`, the
/// original location where a source map gave one, beside its stored fields.
#[tokio::test]
async fn a_console_row_says_where_it_happened_as_the_agent_is_told() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server
        .ingest(
            "logs",
            vec![
                json!({"level": "error", "message": "boom", "tabId": 1, "location": "http://localhost:5173/assets/i.js:1:9",
                       "original": {"source": "src/a.ts", "line": 3, "column": 1}}),
                json!({"level": "log", "message": "plain", "tabId": 1}),
            ],
        )
        .await;
    let (status, rows) = get_json(&server, "/api/rows/logs").await;
    assert_eq!(status, 200, "{rows}");
    assert_eq!(rows["entries"][0]["at"], "src/a.ts:3:1", "{rows}");
    assert_eq!(rows["entries"][0]["location"], "http://localhost:5173/assets/i.js:1:9", "stored fields as they are");
    assert!(rows["entries"][1].get("at").is_none(), "{rows}");
    let (_, one) = get_json(&server, "/api/rows/logs/1").await;
    assert_eq!(one["entries"][0]["at"], "src/a.ts:3:1", "{one}");
}

#[tokio::test]
async fn the_json_twins_answer_what_observe_answers() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = now_ms();
    let logs: Vec<Value> = (0..30)
        .map(|i| {
            json!({"level": if i % 3 == 0 { "error" } else { "log" }, "message": format!("message {i}"),
                   "ts": t + i, "tabId": 1 + i % 2})
        })
        .collect();
    server.ingest("logs", logs).await;
    server
        .ingest(
            "network_waterfall",
            vec![
                json!({"url": "http://a.test/", "method": "GET", "responseStatus": 200, "ts": t, "duration": 30.5, "tabId": 1}),
                json!({"url": "http://a.test/api", "method": "POST", "responseStatus": 500, "ts": t + 5, "duration": 12, "tabId": 1}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    for (query, args) in [
        ("", json!({})),
        ("tabId=1", json!({"tabId": 1})),
        ("min_level=error", json!({"min_level": "error"})),
        ("level=log&tabId=2", json!({"level": "log", "tabId": 2})),
    ] {
        let (status, twin) = get_json(&server, &format!("/api/rows/logs?limit=500&{query}")).await;
        assert_eq!(status, 200, "{query}: {twin}");
        let mut observe_args =
            json!({"what": "logs", "limit": 500, "fields": "all", "max_chars": 500_000, "max_tokens": 100_000});
        observe_args.as_object_mut().unwrap().extend(args.as_object().unwrap().clone());
        let observed = mcp.observe(observe_args).await;
        assert_eq!(twin["total"], observed["total"], "{query}");
        assert_eq!(twin["entries"], observed["entries"], "{query}: the twin's rows are observe's");
    }
    // Paging by cursor, as the page follows live.
    let (_, page) = get_json(&server, "/api/rows/logs?after_cursor=25").await;
    let ids: Vec<i64> = page["entries"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![26, 27, 28, 29, 30]);
    // Network filters: status, method, url.
    let (_, failed) = get_json(&server, "/api/rows/network_waterfall?status_min=400").await;
    assert_eq!(failed["total"], 1);
    assert_eq!(failed["entries"][0]["url"], "http://a.test/api");
    let (_, by_url) = get_json(&server, "/api/rows/network_waterfall?url=%2Fapi&method=POST").await;
    assert_eq!(by_url["total"], 1);
    // One row by id; one that does not exist; bad input.
    let (status, one) = get_json(&server, "/api/rows/logs/7").await;
    assert_eq!(status, 200);
    assert_eq!(one["entries"][0]["message"], "message 6");
    let (status, missing) = get_json(&server, "/api/rows/logs/999").await;
    assert_eq!(status, 404);
    assert!(missing["error"].as_str().unwrap().contains("no logs entry 999"), "{missing}");
    let (status, bad) = get_json(&server, "/api/rows/logs/seven").await;
    assert_eq!(status, 400, "{bad}");
    let (status, bad) = get_json(&server, "/api/rows/logs?tabId=one").await;
    assert_eq!(status, 400);
    assert!(bad["error"].as_str().unwrap().contains("tabId must be a whole number"), "{bad}");
    let (status, recent) = get_json(&server, "/api/rows/logs?since=10m").await;
    assert_eq!(status, 200, "{recent}");
    assert_eq!(recent["total"], 30, "an age, as `gasoline export --since` takes");
    let (status, bad) = get_json(&server, "/api/rows/logs?since=yesterday-ish").await;
    assert_eq!(status, 400);
    assert!(bad["error"].as_str().unwrap().contains("is not a time"), "{bad}");
    let (status, bad) = get_json(&server, "/api/rows/cookies").await;
    assert_eq!(status, 400);
    assert!(bad["error"].as_str().unwrap().contains("unknown what"), "{bad}");
    let (status, bad) = get_json(&server, "/api/rows/logs?status_min=400").await;
    assert_eq!(status, 400, "a filter the kind does not have: {bad}");
    // The summary and error groups come from observe too.
    let (status, groups) = get_json(&server, "/api/rows/errors?group=true").await;
    assert_eq!(status, 200, "{groups}");
    let (status, summary) = get_json(&server, "/api/summary").await;
    assert_eq!(status, 200);
    assert_eq!(summary["kinds"]["logs"]["count"], 30, "{summary}");
    // The overview: rings, tabs, the database.
    let (status, overview) = get_json(&server, "/api/overview").await;
    assert_eq!(status, 200);
    let logs = overview["kinds"].as_array().unwrap().iter().find(|k| k["kind"] == "logs").unwrap();
    assert_eq!(logs["count"], 30);
    assert_eq!(logs["evicted"], 0);
    assert_eq!(overview["db"]["path"], db.path.display().to_string());
    assert!(overview["db"]["bytes"].as_u64().unwrap() > 0);
    let tabs: Vec<i64> = overview["tabs"].as_array().unwrap().iter().map(|t| t["tabId"].as_i64().unwrap()).collect();
    assert_eq!(tabs.len(), 2, "{tabs:?}");
    mcp.close().await;
}

#[tokio::test]
async fn the_overview_counts_what_the_ring_lost_to_eviction() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    mcp.ok("configure", json!({"action": "capacity", "what": "actions", "capacity": 10})).await;
    let t = now_ms();
    server.ingest("actions", (0..25).map(|i| json!({"type": "click", "ts": t + i})).collect()).await;
    let (_, overview) = get_json(&server, "/api/overview").await;
    let actions = overview["kinds"].as_array().unwrap().iter().find(|k| k["kind"] == "actions").unwrap();
    assert_eq!(actions["count"], 10);
    assert_eq!(actions["evicted"], 15, "{actions}");
    mcp.close().await;
}

#[tokio::test]
async fn other_origins_cannot_read_the_capture_or_clear_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", vec![json!({"level": "log", "message": "secret", "ts": now_ms()})]).await;
    let own = format!("http://127.0.0.1:{}", server.port);
    // Another site's page: refused, and never given CORS headers.
    for headers in [
        vec![("origin", "http://evil.test")],
        vec![("origin", "null")],
        vec![("origin", "http://127.0.0.1:3000")],
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site")],
        // Another extension of the browser (host permissions, no Origin): the browser's own fetch.
        vec![("sec-fetch-site", "none"), ("sec-fetch-mode", "cors")],
        vec![("sec-fetch-site", "none")],
    ] {
        for path in ["/api/rows/logs", "/api/overview", "/api/events", "/api/rows/logs/1"] {
            let r = get(&server, path, &headers).await;
            assert_eq!(r.status(), 403, "{path} {headers:?}");
            assert!(r.headers().get("access-control-allow-origin").is_none(), "{path} {headers:?}");
            assert!(!r.text().await.unwrap().contains("secret"));
        }
    }
    // A person who types an /api/ address reads it.
    let r = get(&server, "/api/overview", &[("sec-fetch-site", "none"), ("sec-fetch-mode", "navigate")]).await;
    assert_eq!(r.status(), 200);
    // The viewer's own page reads, without CORS headers either.
    let r = get(&server, "/api/rows/logs", &[("origin", &own), ("sec-fetch-site", "same-origin")]).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    assert_eq!(header(&r, "cross-origin-resource-policy"), "same-origin");
    // A wrong Host (DNS rebinding) is refused as on every route.
    let r = get(&server, "/api/rows/logs", &[("host", "evil.test")]).await;
    assert_eq!(r.status(), 403);
    let r = get(&server, "/", &[("host", &format!("evil.test:{}", server.port))]).await;
    assert_eq!(r.status(), 403);
    // The server's own origin may write nothing: ingest refuses it.
    let (status, _) = server.post_raw("logs", br#"{"entries":[]}"#.to_vec(), &[("origin", &own)]).await;
    assert_eq!(status, 403, "ingest refuses the server's own origin");
    // /mcp takes it, as the MCP spec's DNS-rebinding rule has a loopback origin valid (the official
    // conformance suite sends Host and Origin of the server's own address), without CORS headers;
    // a page on another port of the same host is another origin and is refused.
    let initialize = |origin: String| {
        reqwest::Client::new()
            .post(server.url("/mcp"))
            .header("origin", origin)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            )
            .send()
    };
    for own in [own.clone(), format!("http://localhost:{}", server.port)] {
        let r = initialize(own.clone()).await.unwrap();
        assert_eq!(r.status(), 200, "/mcp takes the server's own origin {own}");
        assert!(r.headers().get("access-control-allow-origin").is_none());
        assert!(r.text().await.unwrap().contains("\"serverInfo\""), "an initialize answer");
    }
    for other in ["http://127.0.0.1:5173".to_owned(), format!("http://evil.test:{}", server.port)] {
        let r = initialize(other.clone()).await.unwrap();
        assert_eq!(r.status(), 403, "/mcp refuses {other}");
    }
    // Clearing: only a same-origin JSON POST.
    let json_type = ("content-type", "application/json");
    let body = r#"{"what":"all"}"#;
    assert_eq!(clear(&server, &[json_type], body).await.0, 403, "no origin at all (curl, a form without Origin)");
    assert_eq!(clear(&server, &[json_type, ("origin", "http://evil.test")], body).await.0, 403);
    assert_eq!(clear(&server, &[json_type, ("sec-fetch-site", "cross-site")], body).await.0, 403);
    let form = ("content-type", "application/x-www-form-urlencoded");
    assert_eq!(clear(&server, &[form, ("origin", &own)], "what=all").await.0, 415, "a form post");
    assert_eq!(common::count(&db.path, "logs"), 1, "nothing was cleared by a refused request");
    let (status, reply) = clear(&server, &[json_type, ("origin", &own)], r#"{"what":"nope"}"#).await;
    assert_eq!(status, 400, "{reply}");
    let (status, reply) = clear(&server, &[json_type, ("origin", &own)], r#"{"what":"logs","what":"all"}"#).await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply["error"].as_str().unwrap().contains("\"what\" appears twice"), "{reply}");
    let huge = format!("{{\"what\":\"all\",\"pad\":\"{}\"}}", "x".repeat(11 * 1024 * 1024));
    let (status, reply) = clear(&server, &[json_type, ("origin", &own)], &huge).await;
    assert_eq!(status, 413, "an 11 MB body is refused");
    assert!(reply["error"].is_string(), "said in JSON: {reply}");
    // A method a route does not take: 405 with Allow, said in JSON too.
    let r = reqwest::Client::new().post(server.url("/api/overview")).send().await.unwrap();
    assert_eq!((r.status().as_u16(), header(&r, "allow").to_owned()), (405, "GET,HEAD".to_owned()));
    let reply: Value = r.json().await.expect("JSON");
    assert_eq!(reply["error"], "/api/overview does not take POST: the Allow header names what it takes");
    assert_eq!(common::count(&db.path, "logs"), 1);
    let (status, reply) = clear(&server, &[json_type, ("origin", &own)], body).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["cleared"], 1);
    assert_eq!(common::count(&db.path, "logs"), 0);
}

/// Reads server-sent events from `response` until `want` accepts one (or 10 s pass).
async fn next_event(
    response: &mut reqwest::Response,
    buffer: &mut String,
    want: impl Fn(&Value) -> bool,
) -> (String, Value) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let mut id = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ").or_else(|| line.strip_prefix("id:")) {
                    id = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ").or_else(|| line.strip_prefix("data:")) {
                    data.push_str(v);
                }
            }
            if data.is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&data).expect("event data is JSON");
            if want(&value) {
                return (id, value);
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no matching event within 10 s; got so far: {buffer}");
        let chunk = tokio::time::timeout(left, response.chunk()).await.expect("an event in time").expect("stream");
        buffer.push_str(&String::from_utf8_lossy(&chunk.expect("the stream stays open")));
    }
}

#[tokio::test]
async fn the_event_stream_carries_cursors_and_resumes_from_last_event_id() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", vec![json!({"level": "log", "message": "one", "ts": now_ms()})]).await;
    let mut r = get(&server, "/api/events", &[]).await;
    assert_eq!(r.status(), 200);
    assert!(header(&r, "content-type").starts_with("text/event-stream"));
    let mut buf = String::new();
    let (id, first) = next_event(&mut r, &mut buf, |_| true).await;
    assert_eq!(first["cursors"]["logs"], 1, "{first}");
    assert!(id.contains("logs=1"), "the id is the cursors: {id}");
    // A row arrives: an event says the logs cursor moved.
    server.ingest("network_waterfall", vec![json!({"url": "http://a.test/", "ts": now_ms()})]).await;
    let (id2, moved) = next_event(&mut r, &mut buf, |v| v["cursors"]["network_waterfall"] == 1).await;
    assert!(id2.contains("network_waterfall=1"), "{id2}");
    assert_eq!(moved["counts"]["network_waterfall"], 1);
    drop(r);
    // Reconnecting with Last-Event-ID: the first event says where the client was and where the rings are.
    server.ingest("logs", vec![json!({"level": "log", "message": "two", "ts": now_ms()})]).await;
    let mut r = get(&server, "/api/events", &[("last-event-id", &id)]).await;
    let mut buf = String::new();
    let (_, resumed) = next_event(&mut r, &mut buf, |_| true).await;
    assert_eq!(resumed["resumed_from"]["logs"], 1, "{resumed}");
    assert_eq!(resumed["cursors"]["logs"], 2, "{resumed}");
}

/// What a review of docs/viewer.md against the server found: the documented template
/// `/api/summary?tabId=&since=` was refused (an empty parameter is now left out, as a form's
/// cleared field is), and a `Last-Event-ID` with no cursor in it resumed from `{}` rather than null.
#[tokio::test]
async fn empty_parameters_count_as_left_out_and_junk_last_event_ids_resume_from_nothing() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", vec![json!({"level": "log", "message": "one", "ts": now_ms(), "tabId": 1})]).await;
    let (status, summary) = get_json(&server, "/api/summary?tabId=&since=").await;
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["kinds"]["logs"]["count"], 1, "{summary}");
    let (status, rows) = get_json(&server, "/api/rows/logs?tabId=&url=&search=&limit=").await;
    assert_eq!((status, &rows["total"]), (200, &json!(1)), "{rows}");
    // A value that is there but wrong is still refused.
    let (status, reply) = get_json(&server, "/api/summary?tabId=one").await;
    assert_eq!(status, 400, "{reply}");
    for junk in ["junk", "cookies=3", ""] {
        let mut r = get(&server, "/api/events", &[("last-event-id", junk)]).await;
        let mut buf = String::new();
        let (_, first) = next_event(&mut r, &mut buf, |_| true).await;
        assert_eq!(first["resumed_from"], Value::Null, "{junk:?}: {first}");
    }
}

/// What an audit of the viewer found said wrong: a parameter given twice, a clear with a key it
/// does not take, observe's own names and defaults in a refusal, the stream's `retry:` after its
/// first event.
#[tokio::test]
async fn the_viewers_refusals_name_what_it_takes_and_the_stream_says_retry_first() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", vec![json!({"level": "log", "message": "one", "ts": now_ms(), "tabId": 1})]).await;
    // A parameter given twice is not quietly the last one.
    for (query, name) in
        [("tabId=1&tabId=2", "tabId"), ("level=log&level=error", "level"), ("limit=5&limit=5", "limit")]
    {
        let (status, reply) = get_json(&server, &format!("/api/rows/logs?{query}")).await;
        assert_eq!(status, 400, "{query}: {reply}");
        let said = reply["error"].as_str().unwrap();
        assert!(said.contains(&format!("{name} is given twice")), "{query}: {said}");
    }
    let (status, reply) = get_json(&server, "/api/rows/logs/1?fields=all&fields=ts").await;
    assert_eq!(status, 400, "{reply}");
    // The budget's bounds with the viewer's default (500,000 characters), not observe's (40,000).
    let (status, reply) = get_json(&server, "/api/rows/logs?max_chars=2000000").await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"], "max_chars must be between 1000 and 500000 (default 500000), got 2000000");
    let (status, reply) = get_json(&server, "/api/rows/logs?max_tokens=10").await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"], "max_tokens must be between 500 and 100000 (default 100000), got 10");
    // A clear with a key it does not take is refused, naming the key, and clears nothing.
    let own = format!("http://127.0.0.1:{}", server.port);
    let headers = [("content-type", "application/json"), ("origin", own.as_str())];
    let (status, reply) = clear(&server, &headers, r#"{"what":"logs","extra":1,"and":true}"#).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(
        reply["error"],
        "clear takes only \"what\", not \"extra\", \"and\": send {\"what\": \"all\"} or one kind"
    );
    let (status, reply) = clear(&server, &headers, r#"["logs"]"#).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(common::count(&db.path, "logs"), 1, "nothing cleared");
    // `retry:` comes first, before the first event's fields (docs/viewer.md), and once.
    let mut r = get(&server, "/api/events", &[]).await;
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !text.contains("\n\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, r.chunk()).await.expect("the first event in time").expect("stream");
        text.push_str(&String::from_utf8_lossy(&chunk.expect("the stream stays open")));
    }
    assert!(text.starts_with("retry: 500\nevent: cursors\nid: logs=1,"), "{text}");
    // The next event carries no second `retry:`.
    server.ingest("logs", vec![json!({"level": "log", "message": "two", "ts": now_ms()})]).await;
    while text.matches("event: cursors").count() < 2 || !text.ends_with("\n\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, r.chunk()).await.expect("the second event in time").expect("stream");
        text.push_str(&String::from_utf8_lossy(&chunk.expect("the stream stays open")));
    }
    assert_eq!(text.matches("retry:").count(), 1, "{text}");
}

#[tokio::test]
async fn an_open_event_stream_does_not_hold_shutdown_hostage() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mut r = get(&server, "/api/events", &[]).await;
    let mut buf = String::new();
    next_event(&mut r, &mut buf, |_| true).await;
    let started = Instant::now();
    assert_eq!(server.stop(), Some(0));
    assert!(started.elapsed() < Duration::from_secs(3), "stopped in {:?}", started.elapsed());
}

/// The link an observe answer gives, with `{id}` filled in, as a person's browser asks for it.
fn entry_link(answer: &Value, id: i64) -> String {
    let link = answer["viewer"].as_str().unwrap_or_else(|| panic!("no viewer link: {answer}"));
    assert!(link.contains("{id}"), "{link}");
    link.replace("{id}", &id.to_string())
}

/// The port a link names.
fn port_of(link: &str) -> u16 {
    let rest = link.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback link: {link}"));
    rest.split('/').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {link}"))
}

/// Observe answers carry one link to the viewer: the view and filter that show the
/// answer, with `{id}` for an entry's id, on the port that serves it. Over streamable
/// HTTP from `serve`, over stdio from `gasoline mcp` attached to it (the owner's viewer
/// shows the same file) and from one that owns its port; none from one whose port
/// another program holds (no viewer shows its file). Within the answer's budget.
#[tokio::test]
async fn observe_answers_link_to_the_viewer_that_shows_them() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = now_ms();
    server
        .ingest(
            "logs",
            (0..40)
                .map(|i| json!({"level": if i % 4 == 0 { "error" } else { "log" }, "message": format!("boom {i}"), "ts": t + i, "tabId": 3}))
                .collect(),
        )
        .await;
    server
        .ingest(
            "network_waterfall",
            vec![json!({"url": "http://a.test/api/user", "method": "GET", "responseStatus": 500, "ts": t, "duration": 2000, "tabId": 3})],
        )
        .await;
    let http = Mcp::http(&server).await;
    let base = format!("http://127.0.0.1:{}", server.port);

    let errors = http.observe(json!({"what": "errors", "tabId": 3})).await;
    assert_eq!(errors["viewer"], json!(format!("{base}/console?tab=3&level=error&sel=logs:{{id}}")), "{errors}");
    let id = errors["entries"][0]["id"].as_i64().expect("an id");
    let link = entry_link(&errors, id);
    assert_eq!(link, format!("{base}/console?tab=3&level=error&sel=logs:{id}"));
    // The address a browser opens: the page (its state is the URL; viewer.mjs opens it in Chromium).
    let r = reqwest::get(&link).await.expect("GET the link");
    assert_eq!(r.status(), 200, "{link}");
    assert!(r.text().await.unwrap().contains("/static/app.js"));

    let requests = http
        .observe(json!({"what": "network_waterfall", "url": "/api/user", "status_min": 500, "status_max": 500}))
        .await;
    assert_eq!(
        requests["viewer"],
        json!(format!("{base}/network?q=url:/api/user+status-code:500&sel=network_waterfall:{{id}}")),
        "{requests}"
    );
    let one = http.observe(json!({"what": "network_waterfall", "id": requests["entries"][0]["id"]})).await;
    assert!(
        one["viewer"]
            .as_str()
            .is_some_and(|l| l.ends_with(&format!("sel=network_waterfall:{}", requests["entries"][0]["id"]))),
        "{one}"
    );
    let summary = http.observe(json!({"what": "summary"})).await;
    assert_eq!(summary["viewer"], json!(format!("{base}/overview")), "{summary}");
    // The link counts in the budget: the smallest answer still fits it.
    for args in [
        json!({"what": "errors", "tabId": 3, "max_tokens": 500}),
        json!({"what": "logs", "max_chars": 1000, "fields": "all"}),
    ] {
        let text = common::text_of(&http.call("observe", args.clone()).await);
        let answer: Value = serde_json::from_str(&text).expect("JSON");
        assert!(answer["viewer"].is_string() && answer["count"].as_u64() > Some(0), "{answer}");
        let max_chars = args["max_chars"].as_u64().unwrap_or(40_000) as usize;
        let max_tokens = args["max_tokens"].as_u64().unwrap_or(8_000) as usize;
        assert!(text.chars().count() <= max_chars, "{} > {max_chars}: {text}", text.chars().count());
        let tokens = tiktoken_rs::cl100k_base().expect("cl100k").encode_with_special_tokens(&text).len();
        assert!(tokens <= max_tokens, "{tokens} > {max_tokens}");
    }
    http.close().await;

    // `gasoline mcp` attached to the server (it writes this file): the server's viewer.
    let attached = Mcp::stdio(&db.path, server.port).await;
    assert_eq!(attached.observe(json!({"what": "errors", "tabId": 3})).await["viewer"], errors["viewer"]);
    attached.close().await;

    // `gasoline mcp` owning its port: its own viewer, which shows its own file.
    let own = TempDb::new();
    let owner = Mcp::stdio(&own.path, 0).await;
    let answer = owner.observe(json!({"what": "logs"})).await;
    let link = answer["viewer"].as_str().unwrap_or_else(|| panic!("{answer}")).to_owned();
    let overview: Value = reqwest::get(format!("http://127.0.0.1:{}/api/overview", port_of(&link)))
        .await
        .expect("its viewer answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(overview["db"]["path"], json!(std::path::absolute(&own.path).unwrap()), "{overview}");
    owner.close().await;

    // Another program holds the port: no viewer shows this file, so no link.
    let squatter = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = squatter.local_addr().unwrap().port();
    let lone_db = TempDb::new();
    let lone = Mcp::stdio(&lone_db.path, port).await;
    let answer = lone.observe(json!({"what": "logs"})).await;
    assert!(answer.get("viewer").is_none(), "a dead link: {answer}");
    lone.close().await;
}

/// The page itself in headless Chromium: a fixture capture in every view (counts
/// compared with observe, waterfall bars at their times in DevTools' colours),
/// hostile strings as text under the CSP, live rows, a server restart, other
/// origins refused, axe-core, screenshots under target/viewer/.
#[test]
fn the_viewer_in_real_chromium() {
    node::run_node(&["test/e2e/viewer.mjs"]);
}

/// The page fed stored data of every shape a page may send (`extension/test/e2e/viewer_shapes.mjs`):
/// times no date can hold, multi-line messages, the page's own `_` keys, structures of the wrong
/// shape, values longer than a line or one read, requests spread over a long time or started in
/// 1970, a flood while the person reads older rows, failed requests on the timeline, a clear.
#[test]
fn the_viewer_shows_stored_data_of_every_shape() {
    node::run_node(&["test/e2e/viewer_shapes.mjs"]);
}
