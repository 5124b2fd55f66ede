//! Graceful shutdown: SIGTERM and SIGINT during ingest, and stdin closing for
//! `gasoline mcp`, finish the requests in flight, commit, fold the WAL into the
//! database (the `-wal` file is gone or empty) and exit 0 within a few seconds.

mod common;

use std::time::Duration;

use common::{Load, LoadReport, LoadSpec, McpProc, Rng, Server, TempDb, file_len, integrity, verify_acked, wal_path};
use serde_json::json;

/// Longest a clean exit may take: the 5 s drain limit for stuck requests, plus margin.
const EXIT_WITHIN: Duration = Duration::from_secs(10);

fn check_after_exit(db: &TempDb, report: &LoadReport, what: &str) {
    assert_eq!(file_len(&wal_path(&db.path)), 0, "{what}: the WAL was not checkpointed and truncated");
    assert_eq!(integrity(&db.path), "ok", "{what}");
    let (expected, found, problems) = verify_acked(&db.path, &report.acked);
    assert_eq!(found, expected, "{what}: acknowledged events missing: {problems:?}");
    // A request the server answered during shutdown was either done (200) or told to retry (503).
    for (status, retry_after, body) in &report.refusals {
        assert_eq!(*status, 503, "{what}: {body}");
        assert!(retry_after.is_some(), "{what}: 503 without Retry-After: {body}");
    }
    assert!(expected > 0, "{what}: nothing was acknowledged before the shutdown");
}

/// POSTs `body` over a raw connection: the headers and half the body, then `midway()`, then the rest.
/// Returns the status and the reply body.
fn slow_post(port: u16, kind: &str, body: &[u8], midway: impl FnOnce()) -> (u16, String) {
    use std::io::{Read, Write};
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "POST /events/{kind} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).unwrap();
    let half = body.len() / 2;
    tcp.write_all(&body[..half]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    midway();
    std::thread::sleep(Duration::from_millis(200));
    tcp.write_all(&body[half..]).unwrap();
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let reply = answer.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    (status, reply)
}

async fn serve_stops_cleanly_on(sig: i32, name: &str) {
    let db = TempDb::new();
    // Rings large enough that nothing acknowledged is trimmed before it is checked.
    let server = Server::start(&db.path, &["--capacity", "network_bodies=1000000", "--capacity", "actions=1000000"]);
    let spec =
        LoadSpec { kinds: vec!["logs", "network_bodies", "actions"], batch: (1, 200), pad: 512, ..LoadSpec::default() };
    let load = Load::start(server.port, 4, &spec, Rng::seed());
    assert!(common::until(Duration::from_secs(20), || common::stored_rows(&db.path) > 0).await, "ingest under way");
    let wal_before = file_len(&wal_path(&db.path));
    let stderr = server.stderr.clone();
    // One request is half uploaded when the signal arrives: it must still be stored and answered.
    let (port, pid) = (server.port, server.pid());
    let entries: Vec<_> = (0..2000).map(|i| common::marked_entry("logs", &format!("inflight-{i}"), 9, 256)).collect();
    let body = json!({ "entries": entries }).to_string();
    let (sent_tx, sent_rx) = std::sync::mpsc::channel();
    let in_flight = tokio::task::spawn_blocking(move || {
        slow_post(port, "logs", body.as_bytes(), || {
            common::signal(pid, sig);
            let _ = sent_tx.send(std::time::Instant::now());
        })
    });
    let (code, took) = tokio::task::spawn_blocking(move || {
        let sent = sent_rx.recv().expect("signal sent");
        let code = server.wait(EXIT_WITHIN);
        (code, sent.elapsed())
    })
    .await
    .unwrap();
    let (status, reply) = in_flight.await.unwrap();
    let report = load.finish().await;
    assert_eq!(status, 200, "{name}: the request in flight was not finished: {reply}");
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["accepted"], 2000, "{reply}");
    let first = reply["first_id"].as_i64().unwrap();
    let markers = (0..2000).map(|i| format!("inflight-{i}")).collect();
    let acked = [common::Acked { kind: "logs", first_id: first, last_id: first + 1999, markers }];
    let (expected, found, problems) = verify_acked(&db.path, &acked);
    assert_eq!(found, expected, "{name}: the in-flight request is not all there: {problems:?}");
    let log = stderr.lock().unwrap().join("\n");
    assert_eq!(code, Some(0), "{name}: exit code; log:\n{log}");
    assert!(log.contains("stopped cleanly"), "{name}: {log}");
    assert!(!log.contains("panicked"), "{name}: {log}");
    check_after_exit(&db, &report, name);
    eprintln!(
        "FIGURE shutdown {name}: exit 0 after {took:?}; WAL {:.1} MiB before, 0 after; {} events in {} requests \
         acknowledged and found; {} answered 503; {} refused at connect and {} closed unanswered after the listener \
         stopped",
        wal_before as f64 / common::MIB,
        report.acked_events(),
        report.acked.len(),
        report.refusals.len(),
        report.transport_errors - report.cut_off,
        report.cut_off
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_ingest_commits_checkpoints_and_exits_zero() {
    serve_stops_cleanly_on(libc::SIGTERM, "SIGTERM").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_ingest_commits_checkpoints_and_exits_zero() {
    serve_stops_cleanly_on(libc::SIGINT, "SIGINT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_exits_cleanly_when_stdin_closes_during_ingest() {
    let db = TempDb::new();
    let mut mcp = tokio::task::spawn_blocking({
        let path = db.path.clone();
        move || McpProc::start(&path, 0, &[])
    })
    .await
    .unwrap();
    let port = mcp.http_port().expect("gasoline mcp serves HTTP ingest beside stdio");
    let load = Load::start(port, 3, &LoadSpec::default(), Rng::seed());
    // The load mixes kinds: wait for the one asked about below, not for any row.
    assert!(common::until(Duration::from_secs(20), || common::count(&db.path, "logs") > 0).await, "logs under way");
    let (mcp, answer) = tokio::task::spawn_blocking(move || {
        let answer = mcp.call("observe", json!({"what": "logs", "offset": -5}));
        (mcp, answer)
    })
    .await
    .unwrap();
    assert!(answer["total"].as_i64().unwrap() > 0, "{answer}");
    let (code, took, log) = tokio::task::spawn_blocking(move || mcp.close_stdin_and_wait(EXIT_WITHIN)).await.unwrap();
    let report = load.finish().await;
    assert_eq!(code, Some(0), "log:\n{log}");
    assert!(log.contains("stdin closed"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    check_after_exit(&db, &report, "mcp stdin closed");
    eprintln!(
        "FIGURE shutdown mcp-stdin-EOF: exit 0 after {took:?}; WAL 0 after; {} events acknowledged and found",
        report.acked_events()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_exits_cleanly_on_sigterm_with_stdin_still_open() {
    let db = TempDb::new();
    let path = db.path.clone();
    let mcp = tokio::task::spawn_blocking(move || McpProc::start(&path, 0, &[])).await.unwrap();
    let port = mcp.http_port().expect("HTTP port");
    let load = Load::start(port, 2, &LoadSpec::default(), Rng::seed());
    assert!(common::until(Duration::from_secs(20), || common::stored_rows(&db.path) > 0).await, "ingest under way");
    let pid = mcp.pid();
    let (code, log) = tokio::task::spawn_blocking(move || {
        common::signal(pid, libc::SIGTERM);
        let (code, _, log) = mcp.wait(EXIT_WITHIN);
        (code, log)
    })
    .await
    .unwrap();
    let report = load.finish().await;
    assert_eq!(code, Some(0), "log:\n{log}");
    check_after_exit(&db, &report, "mcp SIGTERM");
}
