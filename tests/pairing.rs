//! Pairing: the server accepts one extension id (the first to connect, recorded in
//! the database, or the one given by `--extension-id` / `GASOLINE_EXTENSION_ID`)
//! and refuses every other extension origin on every route, saying how to re-pair.

mod common;

use std::time::Duration;

use common::{BIN, Mcp, Server, TempDb, count, logs, open_db, until};
use serde_json::{Value, json};

const OURS: &str = "aaaabbbbccccddddeeeeffffgggghhhh";
const OTHER: &str = "ppppoooonnnnmmmmllllkkkkjjjjiiii";

fn origin(id: &str) -> String {
    format!("chrome-extension://{id}")
}

fn body() -> Vec<u8> {
    json!({"entries": logs(1, 0, None)}).to_string().into_bytes()
}

/// What `gasoline pair [--reset]` prints, and its exit code.
fn pair(db: &std::path::Path, reset: bool) -> (Option<i32>, String) {
    let mut cmd = std::process::Command::new(BIN);
    cmd.arg("pair").arg("--db").arg(db);
    if reset {
        cmd.arg("--reset");
    }
    let out = cmd.output().expect("run gasoline pair");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Status and body of a request from `origin` to `path` (GET when `body` is None).
async fn request(server: &Server, path: &str, origin: &str, body: Option<Vec<u8>>) -> (u16, Value) {
    let client = reqwest::Client::new();
    let request = match body {
        Some(b) => client.post(server.url(path)).header("content-type", "application/json").body(b),
        None => client.get(server.url(path)),
    };
    let response = request.header("origin", origin).send().await.expect("request");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// Asserts that `id` is refused on every route with a message naming how to re-pair.
async fn refused_everywhere(server: &Server, id: &str) {
    let o = origin(id);
    for (path, body) in [
        ("/events/logs", Some(body())),
        ("/events/tabs", Some(br#"{"tabId":1,"url":"u"}"#.to_vec())),
        ("/health", None),
        ("/mcp", Some(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_vec())),
    ] {
        let (status, reply) = request(server, path, &o, body).await;
        assert_eq!(status, 403, "{path} from {o}: {reply}");
        let message = reply["error"].as_str().unwrap_or_default();
        assert!(
            message.contains("gasoline pair --reset") && message.contains("--extension-id"),
            "{path}: the refusal says how to re-pair: {message}"
        );
    }
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, server.url("/events/logs"))
        .header("origin", &o)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 403, "preflight from {o}");
    assert!(preflight.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn the_first_extension_is_trusted_recorded_and_the_only_one_served() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    assert_eq!(server.health().await["extension_id"], Value::Null, "nobody paired yet");

    // What is no Chrome extension id (32 letters a to p) pairs nothing.
    for bad in ["x", &"z".repeat(32), &"a".repeat(31), &"0123456789abcdef".repeat(2)] {
        let (status, reply) = server.post_raw("logs", body(), &[("origin", &origin(bad))]).await;
        assert_eq!(status, 403, "{bad}: {reply}");
    }
    assert_eq!(server.health().await["extension_id"], Value::Null, "still nobody paired");

    // Trust on first use: our extension's first request pairs it.
    let (status, reply) = server.post_raw("logs", body(), &[("origin", &origin(OURS))]).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(server.health().await["extension_id"], OURS);
    let stored: String = open_db(&db.path)
        .query_row("SELECT value FROM settings WHERE key = 'extension_id'", [], |r| r.get(0))
        .expect("the pairing is recorded in settings");
    assert_eq!(stored, OURS);
    assert!(server.log().contains(&format!("paired with extension {OURS}")), "logged: {}", server.log());

    // Any other extension is refused everywhere, and stores nothing; the server's log says so,
    // once (it retries every batch), for a person with no popup open to read it.
    refused_everywhere(&server, OTHER).await;
    let said = format!("requests from the extension \"chrome-extension://{OTHER}\" are refused");
    assert!(until(Duration::from_secs(10), || server.log().contains(&said)).await, "logged: {}", server.log());
    assert_eq!(server.log().matches(&said).count(), 1, "said once: {}", server.log());
    assert_eq!(count(&db.path, "logs"), 1);
    assert_eq!(count(&db.path, "tabs"), 0);

    // Requests without an Origin are unchanged; configure status shows the pairing.
    server.ingest("logs", logs(1, 1, None)).await;
    let mcp = Mcp::http(&server).await;
    let status = mcp.ok("configure", json!({"action": "status"})).await;
    assert_eq!(status["extension_id"], OURS, "{status}");
    mcp.close().await;

    // The pairing survives a restart.
    drop(server);
    let server = Server::start(&db.path, &[]);
    refused_everywhere(&server, OTHER).await;
    let (status, _) = server.post_raw("logs", body(), &[("origin", &origin(OURS))]).await;
    assert_eq!(status, 200);

    // `gasoline pair` shows it; `--reset` forgets it, and the next extension is trusted,
    // on the running server too.
    let (code, out) = pair(&db.path, false);
    assert_eq!(code, Some(0));
    assert!(out.contains(OURS), "{out}");
    let (code, out) = pair(&db.path, true);
    assert_eq!(code, Some(0));
    assert!(out.contains("forgot extension") && out.contains(OURS), "{out}");
    let (_, out) = pair(&db.path, false);
    assert!(out.contains("no extension paired"), "{out}");
    // The running server notices the reset when it next reads the pairing; until then OTHER is refused.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let (status, reply) = loop {
        let (status, reply) = server.post_raw("logs", body(), &[("origin", &origin(OTHER))]).await;
        if status == 200 || std::time::Instant::now() > deadline {
            break (status, reply);
        }
        assert_eq!(status, 403, "refused until the reset is noticed: {reply}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status, 200, "after a reset the next extension pairs: {reply}");
    assert_eq!(server.health().await["extension_id"], OTHER);
    refused_everywhere(&server, OURS).await;
}

#[tokio::test]
async fn the_extension_given_by_flag_or_environment_is_the_only_one_accepted() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--extension-id", OURS]);
    assert_eq!(server.health().await["extension_id"], OURS);
    // The first extension to connect is not trusted when one is configured.
    refused_everywhere(&server, OTHER).await;
    // An origin that holds no extension id is not told to start gasoline with it, which would refuse it.
    for junk in ["zzzz", "ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP", "aaaabbbbccccddddeeeeffffgggghhhhi"] {
        let (status, reply) = request(&server, "/events/logs", &origin(junk), Some(body())).await;
        let message = reply["error"].as_str().unwrap_or_default();
        assert_eq!(status, 403, "{junk}: {reply}");
        assert!(message.contains("is not an extension id gasoline can pair with"), "{junk}: {message}");
        assert!(!message.contains(&format!("--extension-id {junk}")), "{junk}: {message}");
    }
    let (status, reply) = server.post_raw("logs", body(), &[("origin", &origin(OURS))]).await;
    assert_eq!(status, 200, "{reply}");
    // Forgetting the recorded pairing does not unpair a server started with the flag.
    let (_, out) = pair(&db.path, true);
    assert!(out.contains("--extension-id keeps that id"), "{out}");
    assert_eq!(server.health().await["extension_id"], OURS);
    refused_everywhere(&server, OTHER).await;
    drop(server);

    // GASOLINE_EXTENSION_ID does the same, and replaces the recorded pairing.
    let mut cmd = common::command("serve", &db.path, 0, &[]);
    cmd.env("GASOLINE_EXTENSION_ID", OTHER);
    let server = Server::spawn(cmd, &db.path);
    assert_eq!(server.health().await["extension_id"], OTHER);
    refused_everywhere(&server, OURS).await;
    let (status, _) = server.post_raw("logs", body(), &[("origin", &origin(OTHER))]).await;
    assert_eq!(status, 200);
    assert_eq!(count(&db.path, "logs"), 2);

    // A malformed id is refused at start-up with one clear line.
    let (code, log) = common::run_to_exit(
        common::command("serve", &db.path, 0, &["--extension-id", "Not An Id"]),
        Duration::from_secs(10),
    );
    assert_ne!(code, Some(0));
    assert!(log.contains("not an extension id"), "{log}");
}
