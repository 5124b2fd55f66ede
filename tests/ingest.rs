//! Store and ingest, black-box: the real binary on a loopback port, the real
//! database file read back with rusqlite as a user with sqlite3 would.

mod common;

use common::{Server, TempDb, count, logs, open_db};
use rusqlite::types::Value as SqlValue;
use serde_json::{Value, json};

/// A kind, one entry of it, and the column values it must be stored with.
type Sample = (&'static str, Value, Vec<(&'static str, SqlValue)>);

/// One entry per kind with every column, extras, and a tab id.
fn samples() -> Vec<Sample> {
    let t = |s: &str| SqlValue::Text(s.into());
    vec![
        (
            "logs",
            json!({"tabId": 11, "ts": 1700000000001i64, "level": "warn", "message": "careful", "source": "console",
                   "url": "http://app/x", "args": ["careful", {"n": 1}], "location": {"line": 3}}),
            vec![("level", t("warn")), ("message", t("careful")), ("source", t("console")), ("url", t("http://app/x"))],
        ),
        (
            "network_waterfall",
            json!({"tabId": 12, "ts": 1700000000002i64, "url": "http://app/a.js", "initiatorType": "script",
                   "responseStatus": 200, "duration": 12.5, "transferSize": 300, "startTime": 1.25}),
            vec![
                ("url", t("http://app/a.js")),
                ("initiator_type", t("script")),
                ("status", SqlValue::Integer(200)),
                ("duration", SqlValue::Real(12.5)),
            ],
        ),
        (
            "network_bodies",
            json!({"tabId": 13, "ts": 1700000000003i64, "method": "POST", "url": "http://app/api", "status": 201,
                   "duration": 40.0, "requestBody": "{\"a\":1}", "responseHeaders": {"content-type": "application/json"}}),
            vec![
                ("method", t("POST")),
                ("url", t("http://app/api")),
                ("status", SqlValue::Integer(201)),
                ("duration", SqlValue::Real(40.0)),
            ],
        ),
        (
            "websocket_events",
            json!({"tabId": 14, "ts": 1700000000004i64, "connectionId": "ws-1", "event": "message",
                   "direction": "incoming", "url": "ws://app/live", "data": "hello", "size": 5}),
            vec![
                ("connection_id", t("ws-1")),
                ("event", t("message")),
                ("direction", t("incoming")),
                ("url", t("ws://app/live")),
            ],
        ),
        (
            "actions",
            json!({"tabId": 15, "ts": 1700000000005i64, "type": "click", "selector": "#save", "url": "http://app/",
                   "text": "Save"}),
            vec![("type", t("click")), ("selector", t("#save")), ("url", t("http://app/"))],
        ),
        (
            "extension_logs",
            json!({"tabId": null, "ts": 1700000000006i64, "level": "error", "message": "server unreachable",
                   "dropped": 3}),
            vec![("level", t("error")), ("message", t("server unreachable"))],
        ),
    ]
}

#[tokio::test]
async fn every_kind_round_trips_every_field() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    for (kind, entry, columns) in samples() {
        let (first, last) = server.ingest(kind, vec![entry.clone()]).await;
        assert_eq!(first, last);
        let conn = open_db(&db.path);
        let names: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
        let sql = format!("SELECT id, tab_id, ts, received_at, data, truncated, {} FROM {kind}", names.join(", "));
        let (id, tab, ts, received, data, truncated, values) = conn
            .query_row(&sql, [], |r| {
                let values: Vec<SqlValue> = (0..names.len()).map(|i| r.get(6 + i)).collect::<Result<_, _>>()?;
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    values,
                ))
            })
            .unwrap();
        assert_eq!(id, first, "{kind}");
        assert_eq!(tab, entry["tabId"].as_i64(), "{kind} tabId");
        assert_eq!(ts, entry["ts"].as_i64().unwrap(), "{kind} ts");
        assert!(received > 1_600_000_000_000, "{kind} received_at {received}");
        assert_eq!(truncated, None);
        for ((column, expected), got) in columns.iter().zip(values) {
            assert_eq!(&got, expected, "{kind}.{column}");
        }
        // Every field that has no column is kept in `data`, unchanged, and nothing else is.
        let kind_def = gasoline::kind::by_name(kind).unwrap();
        let mut expected = entry.as_object().unwrap().clone();
        expected
            .retain(|field, _| field != "tabId" && field != "ts" && !kind_def.columns.iter().any(|c| c.field == field));
        assert_eq!(serde_json::from_str::<Value>(&data).unwrap(), Value::Object(expected), "{kind} data");
    }
}

#[tokio::test]
async fn ring_keeps_exactly_the_newest_and_ids_keep_rising() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "logs=50"]);
    let mut last = 0;
    for batch in 0..10 {
        let (first, l) = server.ingest("logs", logs(50, batch * 50, Some(1))).await;
        assert_eq!(first, last + 1, "ids continue across requests");
        last = l;
    }
    let conn = open_db(&db.path);
    let ids: Vec<i64> = column(&conn, "SELECT id FROM logs ORDER BY id");
    assert_eq!(ids, (451..=500).collect::<Vec<_>>());
    let messages: Vec<String> = conn
        .prepare("SELECT message FROM logs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(messages.first().map(String::as_str), Some("m450"));
    let health = server.health().await;
    assert_eq!(health["kinds"]["logs"]["count"], 50);
    assert_eq!(health["kinds"]["logs"]["capacity"], 50);
    assert_eq!(health["kinds"]["logs"]["oldest_id"], 451);
    assert_eq!(health["kinds"]["logs"]["newest_id"], 500);
}

#[tokio::test]
async fn ids_never_repeat_after_trimming_clearing_and_restart() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "actions=5"]);
    let click = |i: usize| json!({"type": "click", "selector": format!("#b{i}")});
    let (_, last) = server.ingest("actions", (0..12).map(click).collect()).await;
    assert_eq!(last, 12);
    // Clear through the MCP configure tool, as an agent would.
    let mcp = common::Mcp::http(&server).await;
    let cleared = mcp.ok("configure", json!({"action": "clear", "what": "actions"})).await;
    assert_eq!(cleared["cleared"], 5);
    mcp.close().await;
    assert_eq!(count(&db.path, "actions"), 0);
    let (first, _) = server.ingest("actions", vec![click(13)]).await;
    assert_eq!(first, 13, "clearing does not restart ids");
    assert_eq!(server.stop(), Some(0));

    let server = Server::start(&db.path, &[]);
    let (first, _) = server.ingest("actions", vec![click(14)]).await;
    assert_eq!(first, 14, "a restart does not restart ids");
    // The capacity set on the first start is stored in the database.
    assert_eq!(server.health().await["kinds"]["actions"]["capacity"], 5);
}

#[tokio::test]
async fn everything_acknowledged_survives_a_restart() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mut acknowledged = 0;
    for (kind, entry, _) in samples() {
        server.ingest(kind, vec![entry.clone(), entry]).await;
        acknowledged += 2;
    }
    server.ingest("tabs", vec![json!({"tabId": 11, "url": "http://app/", "title": "App"})]).await;
    assert_eq!(server.stop(), Some(0));
    let total: i64 = samples().iter().map(|(k, _, _)| count(&db.path, k)).sum();
    assert_eq!(total, acknowledged);
    let server = Server::start(&db.path, &[]);
    let health = server.health().await;
    for (kind, _, _) in samples() {
        assert_eq!(health["kinds"][kind]["count"], 2, "{kind}");
    }
    let title: String =
        open_db(&db.path).query_row("SELECT title FROM tabs WHERE tab_id = 11", [], |r| r.get(0)).unwrap();
    assert_eq!(title, "App");
}

#[tokio::test]
async fn tabs_and_vitals_upsert_the_latest() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (s, r) = server.post("tabs", &json!({"entries": [{"tabId": 3, "url": "http://a/", "title": "A"}]})).await;
    assert_eq!((s, &r["accepted"]), (200, &json!(1)));
    server.post("tabs", &json!({"tabId": 3, "url": "http://a/next", "title": "Next"})).await;
    server.post("vitals", &json!({"entries": [{"tabId": 3, "url": "http://a/next", "lcp": 1200.5, "ttfb": 80}]})).await;
    server.post("vitals", &json!({"entries": [{"tabId": 3, "url": "http://a/next", "cls": 0.02}]})).await;
    let conn = open_db(&db.path);
    let (url, title): (String, String) =
        conn.query_row("SELECT url, title FROM tabs WHERE tab_id = 3", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((url.as_str(), title.as_str()), ("http://a/next", "Next"));
    let (lcp, cls, ttfb): (f64, f64, f64) = conn
        .query_row("SELECT lcp, cls, ttfb FROM vitals WHERE tab_id = 3", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    assert_eq!((lcp, cls, ttfb), (1200.5, 0.02, 80.0), "metrics of one page accumulate");
    server.post("vitals", &json!({"tabId": 3, "url": "http://a/other", "fcp": 300})).await;
    let lcp: Option<f64> = conn.query_row("SELECT lcp FROM vitals WHERE tab_id = 3", [], |r| r.get(0)).unwrap();
    assert_eq!(lcp, None, "a new page starts from fresh metrics");
}

#[tokio::test]
async fn long_strings_are_cut_and_the_row_says_so() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = "b".repeat(100_000);
    let message = "m".repeat(20_000);
    server
        .ingest(
            "network_bodies",
            vec![json!({"method": "GET", "url": "http://a/", "responseBody": body, "note": message})],
        )
        .await;
    let (data, truncated): (String, String) = open_db(&db.path)
        .query_row("SELECT data, truncated FROM network_bodies", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let data: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(data["responseBody"].as_str().unwrap().len(), 64 * 1024);
    assert_eq!(data["note"].as_str().unwrap().len(), 16 * 1024);
    let truncated: Value = serde_json::from_str(&truncated).unwrap();
    assert_eq!(truncated, json!({"responseBody": 100_000, "note": 20_000}));
}

/// Asserts that nothing was stored by a refused request.
fn unchanged(db: &TempDb, before: &[(&str, i64)]) {
    for (table, n) in before {
        assert_eq!(count(&db.path, table), *n, "{table} changed");
    }
}

#[tokio::test]
async fn bad_input_is_refused_clearly_and_stores_nothing() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    let before = [("logs", 3), ("network_bodies", 0)];

    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        ("logs", b"{\"entries\": [".to_vec(), 400, "not valid JSON"),
        ("logs", b"[1,2]".to_vec(), 400, "{\"entries\": [ ... ]}"),
        ("logs", br#"{"entries": {"level": "log"}}"#.to_vec(), 400, "{\"entries\": [ ... ]}"),
        (
            "logs",
            br#"{"entries": [{"level": "log", "message": "ok"}, {"level": "log", "message": 5}]}"#.to_vec(),
            400,
            "entries[1].message: must be a string",
        ),
        ("logs", br#"{"entries": [{"level": "log"}]}"#.to_vec(), 400, "entries[0].message: required field is missing"),
        ("logs", br#"{"entries": [{"level": "log", "message": "m", "tabId": "x"}]}"#.to_vec(), 400, "entries[0].tabId"),
        (
            "logs",
            br#"{"entries": [{"level": "log", "message": "m", "tabId": 1e300}]}"#.to_vec(),
            400,
            "entries[0].tabId",
        ),
        ("logs", br#"{"entries": [{"level": "log", "message": "m", "ts": "now"}]}"#.to_vec(), 400, "entries[0].ts"),
        ("logs", br#"{"entries": [7]}"#.to_vec(), 400, "entries[0]: each entry must be a JSON object"),
        (
            "network_bodies",
            br#"{"entries": [{"method": "GET", "url": "u", "status": "200"}]}"#.to_vec(),
            400,
            "entries[0].status: must be an integer",
        ),
        (
            "websocket_events",
            br#"{"entries": [{"connectionId": "c", "event": "message"}]}"#.to_vec(),
            400,
            "entries[0].direction",
        ),
        ("tabs", br#"{"entries": [{"url": "u"}]}"#.to_vec(), 400, "entries[0].tabId"),
        // A key named twice: serde_json would keep the second and drop the first batch unseen.
        (
            "logs",
            br#"{"entries": [{"level": "log", "message": "a"}], "entries": [{"level": "log", "message": "b"}]}"#
                .to_vec(),
            400,
            "the key \"entries\" appears twice",
        ),
        (
            "logs",
            br#"{"entries": [{"level": "log", "message": "a", "message": "b"}]}"#.to_vec(),
            400,
            "the key \"message\" appears twice",
        ),
        ("cookies", br#"{"entries": []}"#.to_vec(), 404, "valid kinds: logs, network_waterfall"),
    ];
    for (kind, body, status, message) in cases {
        let (got, reply) = server.post_raw(kind, body.clone(), &[]).await;
        assert_eq!(got, status, "{kind} {}: {reply}", String::from_utf8_lossy(&body));
        let error = reply["error"].as_str().unwrap_or_default();
        assert!(error.contains(message), "{kind}: expected {message:?} in {error:?}");
        unchanged(&db, &before);
    }

    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let (got, reply) = server
        .post_raw("logs", format!(r#"{{"entries":[{{"level":"log","message":"m","x":{deep}}}]}}"#).into_bytes(), &[])
        .await;
    assert_eq!(got, 400, "{reply}");
    assert!(reply["error"].as_str().unwrap().contains("recursion limit"), "{reply}");

    let big = vec![b' '; 10 * 1024 * 1024 + 1];
    let (got, reply) = server.post_raw("logs", big, &[]).await;
    assert_eq!(got, 413);
    assert!(reply["error"].as_str().unwrap().contains("over 10 MiB"), "{reply}");

    let many = json!({"entries": logs(10_001, 0, None)});
    let (got, reply) = server.post("logs", &many).await;
    assert_eq!(got, 413);
    assert!(reply["error"].as_str().unwrap().contains("10001 entries"), "{reply}");
    unchanged(&db, &before);

    // Still serving, and nothing stored before was lost.
    server.ingest("logs", logs(1, 3, None)).await;
    assert_eq!(count(&db.path, "logs"), 4);
}

#[tokio::test]
async fn web_origins_and_foreign_hosts_are_refused() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = json!({"entries": logs(1, 0, None)}).to_string().into_bytes();
    for origin in ["https://evil.example", "http://localhost:3000", "null"] {
        let (status, reply) = server.post_raw("logs", body.clone(), &[("origin", origin)]).await;
        assert_eq!(status, 403, "{origin}");
        assert!(reply["error"].as_str().unwrap().contains("refused"), "{reply}");
    }
    for host in ["evil.example".to_string(), format!("evil.example:{}", server.port), "127.0.0.1:1".to_string()] {
        let (status, reply) = server.post_raw("logs", body.clone(), &[("host", &host)]).await;
        assert_eq!(status, 403, "{host}");
        assert!(reply["error"].as_str().unwrap().contains("is not allowed"), "{reply}");
    }
    // A request naming no host at all (HTTP/1.0 allows it; no browser sends one) is refused too.
    let no_host = raw_exchange(server.port, "GET /health HTTP/1.0\r\n\r\n");
    assert!(no_host.starts_with("HTTP/1.0 400"), "{no_host}");
    assert!(no_host.contains("names no Host"), "{no_host}");
    let named = raw_exchange(server.port, &format!("GET /health HTTP/1.0\r\nHost: 127.0.0.1:{}\r\n\r\n", server.port));
    assert!(named.starts_with("HTTP/1.0 200"), "{named}");
    // A request in absolute form names its host in the request line, which outranks Host.
    let p = server.port;
    let absolute = raw_exchange(
        p,
        &format!("GET http://evil.example:{p}/health HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nConnection: close\r\n\r\n"),
    );
    assert!(absolute.starts_with("HTTP/1.1 403"), "{absolute}");
    let ours = raw_exchange(
        p,
        &format!("GET http://127.0.0.1:{p}/health HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nConnection: close\r\n\r\n"),
    );
    assert!(ours.starts_with("HTTP/1.1 200"), "{ours}");
    // Two Hosts, or two Origins: only one would be judged, so neither is.
    for twice in [
        format!("GET /health HTTP/1.0\r\nHost: 127.0.0.1:{p}\r\nHost: evil.example\r\n\r\n"),
        format!(
            "GET /health HTTP/1.0\r\nHost: 127.0.0.1:{p}\r\nOrigin: {ext}\r\nOrigin: https://evil.example\r\n\r\n",
            ext = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
        ),
    ] {
        let answer = raw_exchange(server.port, &twice);
        assert!(answer.starts_with("HTTP/1.0 400") && answer.contains("more than one"), "{answer}");
    }
    assert_eq!(count(&db.path, "logs"), 0);
    // The extension's origin is welcome, and CORS answers it (and only it).
    let ext = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
    let localhost = format!("localhost:{}", server.port);
    let (status, _) = server.post_raw("logs", body.clone(), &[("origin", ext), ("host", &localhost)]).await;
    assert_eq!(status, 200);
    let client = reqwest::Client::new();
    let preflight = client
        .request(reqwest::Method::OPTIONS, server.url("/events/logs"))
        .header("origin", ext)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert_eq!(preflight.headers()["access-control-allow-origin"], ext);
    // The extension names each batch (Idempotency-Key): the preflight allows that header.
    let allowed = preflight.headers()["access-control-allow-headers"].to_str().unwrap();
    assert!(allowed.split(", ").any(|h| h == "idempotency-key"), "{allowed}");
    let health = client.get(server.url("/health")).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(health.status().as_u16(), 403);
    assert!(health.headers().get("access-control-allow-origin").is_none());
    // The MCP endpoint is under the same rules.
    let mcp = client
        .post(server.url("/mcp"))
        .header("origin", "https://evil.example")
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status().as_u16(), 403);
}

#[tokio::test]
async fn health_reports_version_path_and_rings() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "network_bodies=7"]);
    server.ingest("network_bodies", vec![json!({"method": "GET", "url": "u"})]).await;
    let health = server.health().await;
    assert_eq!(health["service"], "gasoline");
    assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(health["db"], db.path.display().to_string());
    let bodies = &health["kinds"]["network_bodies"];
    assert_eq!((bodies["count"].as_i64(), bodies["capacity"].as_i64()), (Some(1), Some(7)));
    assert_eq!((bodies["oldest_id"].as_i64(), bodies["newest_id"].as_i64()), (Some(1), Some(1)));
    assert!(server.log().contains(&db.path.display().to_string()), "the path is logged at start-up");
}

#[test]
fn schema_matches_the_kind_descriptions() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let conn = open_db(&db.path);
    for kind in gasoline::kind::KINDS {
        let columns: Vec<String> = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{}')", kind.name))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for c in ["id", "tab_id", "ts", "received_at", "data", "truncated"]
            .into_iter()
            .chain(kind.columns.iter().map(|c| c.name))
        {
            assert!(columns.iter().any(|x| x == c), "{}.{c} missing from the schema", kind.name);
        }
        let plan: String = conn
            .query_row(
                &format!(
                    "EXPLAIN QUERY PLAN SELECT id FROM {} WHERE tab_id = 1 AND id > 5 ORDER BY id LIMIT 10",
                    kind.name
                ),
                [],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains(&format!("{}_tab", kind.name)), "{}: {plan}", kind.name);
    }
    drop(server);
}

#[test]
fn default_database_lives_in_the_data_directory() {
    let home = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(common::BIN)
        .args(["serve", "--port", "0"])
        .env_remove("GASOLINE_DB")
        .env_remove("RUST_LOG")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let expected = home.path().join("data/gasoline/gasoline.db");
    // Read the log until the server says it listens: only then is start-up over.
    let mut log = String::new();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    while !log.contains("listening") {
        if std::io::BufRead::read_line(&mut stderr, &mut log).unwrap() == 0 {
            break;
        }
    }
    common::signal(child.id(), libc::SIGTERM);
    std::io::Read::read_to_string(&mut stderr, &mut log).unwrap();
    let status = child.wait().unwrap();
    assert!(expected.exists(), "default db not created: {log}");
    assert!(log.contains(&expected.display().to_string()), "absolute path logged: {log}");
    assert_eq!(status.code(), Some(0), "{log}");

    // $GASOLINE_DB wins over the default.
    let chosen = home.path().join("chosen.db");
    let mut child = std::process::Command::new(common::BIN)
        .args(["serve", "--port", "0"])
        .env("GASOLINE_DB", &chosen)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !chosen.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    common::signal(child.id(), libc::SIGTERM);
    child.wait().unwrap();
    assert!(chosen.exists());
}

#[test]
fn help_explains_every_flag() {
    let out = std::process::Command::new(common::BIN).args(["serve", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in ["--port", "--db", "--capacity", "--body-cap", "--field-cap", "--extension-id"] {
        assert!(help.contains(flag), "{flag} missing from --help:\n{help}");
    }
    let bad = std::process::Command::new(common::BIN).args(["serve", "--capacity", "cookies=5"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown kind \"cookies\""));
}

/// `tabs` and `vitals` hold one row per tab and are bounded like the rings (1,000 tabs each,
/// the least recently seen go first); the strings they cut are recorded in `truncated`; and
/// `configure clear what=all` empties them with the rings.
#[tokio::test]
async fn tabs_and_vitals_are_bounded_record_their_cuts_and_are_cleared_with_all() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let capacity: i64 = open_db(&db.path)
        .query_row("SELECT capacity FROM kinds WHERE kind = 'tabs'", [], |r| r.get(0))
        .expect("the tabs capacity is in kinds");
    assert_eq!(capacity, 1_000);
    for (kind, round) in [("tabs", 0), ("vitals", 0), ("tabs", 1), ("vitals", 1)] {
        // 1,200 tabs in two requests: the newest 1,000 are kept.
        let entries: Vec<Value> = (0..600)
            .map(|i| {
                let tab = round * 600 + i + 1;
                json!({"tabId": tab, "url": format!("http://app/{tab}"), "title": "t", "lcp": 1.5})
            })
            .collect();
        let (status, reply) = server.post(kind, &json!({ "entries": entries })).await;
        assert_eq!(status, 200, "{kind}: {reply}");
        // The next request is seen later: its time (ms) is past this one's.
        let answered = epoch_ms();
        while epoch_ms() <= answered {
            tokio::task::yield_now().await;
        }
    }
    for (table, seen) in [("tabs", "last_seen"), ("vitals", "updated_at")] {
        let conn = open_db(&db.path);
        let (n, oldest, newest): (i64, i64, i64) = conn
            .query_row(&format!("SELECT count(*), min(tab_id), max(tab_id) FROM {table}"), [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!((n, oldest, newest), (1_000, 201, 1_200), "{table} keeps the 1,000 tabs {seen} last");
    }

    // Cut strings are recorded like every other row's.
    let title = "T".repeat(20_000);
    let (status, _) = server.post("tabs", &json!({"tabId": 5000, "url": "http://app/", "title": title})).await;
    assert_eq!(status, 200);
    let (status, _) = server.post("vitals", &json!({"tabId": 5000, "url": "http://app/", "note": title})).await;
    assert_eq!(status, 200);
    let conn = open_db(&db.path);
    let cut: String = conn.query_row("SELECT truncated FROM tabs WHERE tab_id = 5000", [], |r| r.get(0)).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&cut).unwrap(), json!({"title": 20_000}));
    let cut: String = conn.query_row("SELECT truncated FROM vitals WHERE tab_id = 5000", [], |r| r.get(0)).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&cut).unwrap(), json!({"note": 20_000}));
    // A title sent again uncut replaces the record; the url's state is kept.
    let (status, _) = server.post("tabs", &json!({"tabId": 5000, "title": "short"})).await;
    assert_eq!(status, 200);
    let cut: Option<String> =
        conn.query_row("SELECT truncated FROM tabs WHERE tab_id = 5000", [], |r| r.get(0)).unwrap();
    assert_eq!(cut, None);
    assert_eq!(count(&db.path, "tabs"), 1_000);

    // `configure clear what=all` clears them with the rings.
    server.ingest("logs", logs(3, 0, Some(5000))).await;
    let mcp = common::Mcp::http(&server).await;
    let cleared = mcp.ok("configure", json!({"action": "clear", "what": "all"})).await;
    assert_eq!(cleared["cleared"], 3, "the entries; the tabs' and vitals' rows go too, uncounted: {cleared}");
    mcp.close().await;
    assert_eq!((count(&db.path, "tabs"), count(&db.path, "vitals"), count(&db.path, "logs")), (0, 0, 0));
}

fn epoch_ms() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis())
}

/// A browser's JSON.stringify writes half an emoji (a lone UTF-16 surrogate) as
/// `\ud83d`: a page may log one, and a string cut at a length may end in one.
/// It costs that one character (U+FFFD), never the batch it came in.
#[tokio::test]
async fn a_lone_surrogate_costs_one_character_not_the_batch() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = r#"{"entries":[{"level":"info","message":"good1"},{"level":"info","message":"emoji cut \ud83d"},{"level":"info","message":"\ude00 and a pair \ud83d\ude00"}]}"#;
    let (status, reply) = server.post_raw("logs", body.as_bytes().to_vec(), &[]).await;
    assert_eq!((status, reply["accepted"].as_i64()), (200, Some(3)), "{reply}");
    let messages: Vec<String> = column(&common::open_db(&db.path), "SELECT message FROM logs ORDER BY id");
    assert_eq!(messages, ["good1", "emoji cut \u{fffd}", "\u{fffd} and a pair 😀"]);
    server.stop();
}

/// Every refusal is JSON with an `error`, also a wrong method (405 with `Allow`) and a
/// path that is not text.
#[tokio::test]
async fn a_wrong_method_or_path_is_refused_in_json() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let http = reqwest::Client::new();
    let get = http.get(server.url("/events/logs")).send().await.unwrap();
    assert_eq!(get.status(), 405);
    assert_eq!(get.headers().get("allow").and_then(|v| v.to_str().ok()), Some("POST, OPTIONS"));
    let body: Value = get.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("takes POST"), "{body}");
    // OPTIONS is taken (it is the extension's preflight): asked without an Origin, Allow alone;
    // from the extension (paired on first use here), with CORS, and the same Allow.
    let ext = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
    for (path, takes) in [
        ("/events/logs", "POST, OPTIONS"),
        ("/capture", "PUT, OPTIONS"),
        ("/health", "GET, OPTIONS"),
        ("/mcp", "GET, POST, DELETE, OPTIONS"),
    ] {
        let options = http.request(reqwest::Method::OPTIONS, server.url(path)).send().await.unwrap();
        assert_eq!(options.status(), 204, "{path}");
        assert_eq!(options.headers().get("allow").and_then(|v| v.to_str().ok()), Some(takes), "{path}");
        let preflight = http
            .request(reqwest::Method::OPTIONS, server.url(path))
            .header("origin", ext)
            .header("access-control-request-method", takes.split(", ").next().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(preflight.status(), 204, "{path} from the extension");
        let header = |name: &str| preflight.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        assert_eq!(header("allow").as_deref(), Some(takes), "{path} from the extension");
        assert_eq!(header("access-control-allow-origin").as_deref(), Some(ext), "{path}");
    }
    let bad = http
        .post(server.url("/events/%ff"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let body: Value = bad.json().await.unwrap();
    assert!(body["error"].as_str().is_some(), "{body}");
    let (status, reply) = server.post("logs", &json!({"entries": [7]})).await;
    assert_eq!(status, 400);
    assert_eq!(reply["error"], "entries[0]: each entry must be a JSON object", "no stray dot");
    server.stop();
}

/// Sends `request` as it is on a new connection and reads the answer until the server closes it.
fn raw_exchange(port: u16, request: &str) -> String {
    use std::io::{Read, Write};
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    tcp.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    answer
}

/// The first column of every row `sql` gives.
fn column<T: rusqlite::types::FromSql>(conn: &rusqlite::Connection, sql: &str) -> Vec<T> {
    conn.prepare(sql).unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

/// A compressed body is refused as such (415), not as "not JSON", and a plain one said to be
/// compressed too; `identity` is no coding. Nothing of either is stored.
#[tokio::test]
async fn a_body_with_a_content_coding_is_refused_as_such() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = json!({"entries": logs(1, 0, Some(1))}).to_string().into_bytes();
    // A gzip stream's header (the body itself is never looked at: the header says it all).
    let gzipped = vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03];
    for (sent, coding) in [(gzipped, "gzip"), (body.clone(), "gzip"), (body.clone(), "br, gzip")] {
        let (status, reply) = server.post_raw("logs", sent, &[("content-encoding", coding)]).await;
        assert_eq!(status, 415, "{coding}: {reply}");
        assert!(reply["error"].as_str().unwrap().contains("send the JSON uncompressed"), "{reply}");
    }
    assert_eq!(count(&db.path, "logs"), 0);
    let (status, reply) = server.post_raw("logs", body, &[("content-encoding", "identity")]).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(count(&db.path, "logs"), 1);
}

/// A key is cut like a value: an object keyed by a whole document is not stored whole (an 8 MiB
/// key made an 8 MiB row), at the top of an entry and inside its values alike.
#[tokio::test]
async fn a_long_key_is_cut_to_the_field_cap_like_a_value() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--field-cap", "100"]);
    let long = "k".repeat(5_000);
    let entry = json!({"tabId": 1, "level": "info", "message": "keys", long.clone(): 1, "args": [{long.clone(): 2}]});
    let (status, reply) = server.post_raw("logs", json!({ "entries": [entry] }).to_string().into_bytes(), &[]).await;
    assert_eq!(status, 200, "{reply}");
    let (data, truncated): (String, String) =
        open_db(&db.path).query_row("SELECT data, truncated FROM logs", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    let cut = "k".repeat(100);
    let data: Value = serde_json::from_str(&data).unwrap();
    assert_eq!((&data[&cut], &data["args"][0][&cut]), (&json!(1), &json!(2)), "{data}");
    let truncated: Value = serde_json::from_str(&truncated).unwrap();
    assert_eq!(truncated[&cut], 5_000, "{truncated}");
    assert_eq!(truncated[format!("args[0].{cut}")], 5_000, "{truncated}");
}
