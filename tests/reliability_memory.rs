//! Bounded memory and backpressure.
//!
//! - The server's RSS stays flat over a long mixed run: ingest from clients that
//!   reconnect, MCP sessions that come and go (some end properly with DELETE,
//!   some just vanish), agents polling.
//! - When ingest outruns the writer, requests wait briefly and then get 503 with
//!   `Retry-After`; nothing acknowledged is lost and the retries go through.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Load, LoadSpec, Mcp, Rng, Server, TempDb, rss_kib, scale, verify_acked};
use serde_json::json;

const KINDS: [&str; 6] =
    ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs"];

/// Idle MCP session keep-alive given to the server under test (GASOLINE_MCP_SESSION_KEEP_ALIVE).
const KEEP_ALIVE_SECS: u64 = 2;

/// MCP sessions the server holds, from `/health`.
async fn live_sessions(server: &Server) -> u64 {
    let health = server.health().await;
    health["mcp_sessions"].as_u64().unwrap_or_else(|| panic!("/health has no mcp_sessions: {health}"))
}

/// MCP clients that connect, read a while and leave; every other one without ending its session.
async fn mcp_churn(port: u16, stop: Arc<AtomicBool>, sessions: Arc<AtomicUsize>, seed: u64) {
    let mut rng = Rng::new(seed);
    while !stop.load(Ordering::SeqCst) {
        let transport =
            rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://127.0.0.1:{port}/mcp"));
        let mcp = Mcp::over_transport(transport).await;
        let mut cursors = [0i64; 6];
        for _ in 0..20 {
            let k = rng.range(0, 6) as usize;
            let kind = KINDS[k];
            let page = if rng.chance(50) {
                mcp.observe(json!({"what": kind, "offset": -50})).await
            } else {
                mcp.observe(json!({"what": kind, "after_cursor": cursors[k], "limit": 100})).await
            };
            cursors[k] = page["cursor"].as_i64().unwrap_or(cursors[k]);
        }
        let n = sessions.fetch_add(1, Ordering::Relaxed);
        if n.is_multiple_of(2) {
            mcp.close().await;
        } else {
            drop(mcp); // vanished: no DELETE
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_memory_stays_flat_over_a_long_mixed_run() {
    let run_for = Duration::from_secs(scale(24, 600));
    let db = TempDb::new();
    let caps: Vec<String> = KINDS.iter().map(|k| format!("{k}=3000")).collect();
    let mut args = Vec::new();
    for c in &caps {
        args.extend(["--capacity", c.as_str()]);
    }
    // Unused MCP sessions live 2 s here (a day by default), so that sessions left open by clients
    // that vanished must be gone well within the run: a leak shows in the live count.
    let mut cmd = common::command("serve", &db.path, 0, &args);
    cmd.env("GASOLINE_MCP_SESSION_KEEP_ALIVE", KEEP_ALIVE_SECS.to_string());
    let server = Server::spawn(cmd, &db.path);
    let spec =
        LoadSpec { kinds: KINDS.to_vec(), batch: (1, 200), pad: 600, reconnect_every: 25, ..LoadSpec::default() };
    let load = Load::start(server.port, 2, &spec, Rng::seed());
    let stop = Arc::new(AtomicBool::new(false));
    let sessions = Arc::new(AtomicUsize::new(0));
    let churn: Vec<_> =
        (0..2).map(|i| tokio::spawn(mcp_churn(server.port, stop.clone(), sessions.clone(), 17 + i))).collect();
    let started = Instant::now();
    let mut samples: Vec<(Duration, u64)> = Vec::new();
    let mut live_peak = 0;
    while started.elapsed() < run_for {
        tokio::time::sleep(Duration::from_millis(250)).await;
        samples.push((started.elapsed(), rss_kib(server.pid()).expect("server alive")));
        live_peak = live_peak.max(live_sessions(&server).await);
    }
    stop.store(true, Ordering::SeqCst);
    let report = load.finish().await;
    for c in churn {
        c.await.unwrap();
    }
    // Every session ends: those closed with DELETE at once, the vanished ones once idle past
    // the keep-alive. A session the server kept anyway would stay in the count.
    let total = sessions.load(Ordering::Relaxed) as u64;
    assert!(total >= 10, "the churn opened only {total} MCP sessions");
    let deadline = Instant::now() + Duration::from_secs(KEEP_ALIVE_SECS * 10 + 20);
    let mut live = live_sessions(&server).await;
    while live > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(250)).await;
        live = live_sessions(&server).await;
    }
    assert_eq!(live, 0, "{live} of {total} MCP sessions still live after their clients left (peak {live_peak})");
    assert!(live_peak < total, "sessions ended during the run: peak {live_peak} live of {total}");
    assert_eq!(server.stop(), Some(0));
    assert!(report.refusals.is_empty(), "{:?}", &report.refusals[..1]);

    // Steady state: the highest RSS of the second fifth of the run (after warm-up: rings full,
    // caches and pools grown). The last half may not exceed it by more than the margin.
    let window = |from: f64, to: f64| {
        samples
            .iter()
            .filter(|(t, _)| (from..to).contains(&(t.as_secs_f64() / run_for.as_secs_f64())))
            .map(|(_, kib)| *kib)
            .max()
            .unwrap()
    };
    let (steady, late) = (window(0.2, 0.4), window(0.5, 1.01));
    let low = samples.iter().map(|(_, k)| *k).min().unwrap();
    let margin = (steady / 4).max(16 * 1024);
    eprintln!(
        "FIGURE memory: {run_for:?} mixed run, {} events ingested, {} MCP sessions (half never closed; at most \
         {live_peak} live, 0 after {KEEP_ALIVE_SECS} s idle); RSS {:.1}-{:.1} MiB, steady-state peak {:.1} MiB, late \
         peak {:.1} MiB (margin {:.1} MiB)",
        report.acked_events(),
        total,
        low as f64 / 1024.0,
        samples.iter().map(|(_, k)| *k).max().unwrap() as f64 / 1024.0,
        steady as f64 / 1024.0,
        late as f64 / 1024.0,
        margin as f64 / 1024.0
    );
    assert!(
        late <= steady + margin,
        "RSS grew: steady {steady} KiB, late {late} KiB; samples {:?}",
        samples.iter().map(|(_, k)| k / 1024).collect::<Vec<_>>()
    );
}

/// Holds SQLite's write lock from outside for `hold`, as a stalled disk would stall the writer.
fn stall_writer(db: &std::path::Path, hold: Duration) -> std::thread::JoinHandle<()> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    std::thread::spawn(move || {
        std::thread::sleep(hold);
        conn.execute_batch("ROLLBACK").unwrap();
    })
}

/// The writer stalls for 3.5 s while 24 clients each send 8.5 MB requests (200 MB offered,
/// three times the 64 MiB pending-bytes budget). Requests beyond the budget wait (2 s) and get 503 with
/// Retry-After; the clients retry as the extension does; every acknowledged event is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingest_beyond_the_writer_budget_gets_503_with_retry_after_and_loses_nothing() {
    const CLIENTS: usize = 24;
    let db = TempDb::new();
    // The largest ring: the ~100,000 logs offered are all kept.
    let server = Server::start(&db.path, &["--capacity", "logs=1000000"]);
    server.ingest("logs", common::logs(1, 0, None)).await;
    let spec = LoadSpec { kinds: vec!["logs"], batch: (4000, 4000), pad: 2000, retry: true, ..LoadSpec::default() };
    let stall = stall_writer(&db.path, Duration::from_millis(3500));
    let load = Load::start(server.port, CLIENTS, &spec, Rng::seed());
    let started = Instant::now();
    let mut rss_peak = 0;
    while started.elapsed() < Duration::from_secs(9) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        rss_peak = rss_peak.max(rss_kib(server.pid()).unwrap_or(0));
    }
    let report = load.finish().await;
    stall.join().unwrap();
    let busy: Vec<_> = report.refusals.iter().filter(|(s, _, _)| *s == 503).collect();
    for (status, retry_after, body) in &report.refusals {
        assert_eq!(*status, 503, "only 503 under pressure, got: {body}");
        assert_eq!(retry_after.as_deref(), Some("1"), "503 carries Retry-After: {body}");
        assert!(body.contains("retry"), "{body}");
    }
    assert!(!busy.is_empty(), "no 503 although 200 MB waited for a stalled writer: {:?}", report.statuses);
    let (expected, found, problems) = verify_acked(&db.path, &report.acked);
    assert_eq!(found, expected, "acknowledged events missing: {problems:?}");
    assert!(!report.acked.is_empty(), "nothing went through: {:?}", report.statuses);
    // The writer is back: a request now goes straight through.
    server.ingest("logs", common::logs(10, 1, None)).await;
    assert_eq!(server.health().await["service"], "gasoline");
    assert_eq!(server.stop(), Some(0));
    // Memory follows the pending budget (64 MiB of bodies, each also held decoded while it waits),
    // not the number of clients nor the length of the stall: a request waits for room before its
    // body is read, and refused requests are dropped, not queued. (Reading every body first, as
    // gasoline once did, took this run past 600 MiB.)
    assert!(rss_peak < 450 * 1024, "server RSS reached {} MiB", rss_peak / 1024);
    eprintln!(
        "FIGURE backpressure: writer stalled 3.5 s under {CLIENTS} x 8.5 MB requests: {} answered 503 + Retry-After, \
         {} requests ({} events) acknowledged and all found; server RSS peak {:.0} MiB",
        busy.len(),
        report.acked.len(),
        report.acked_events(),
        rss_peak as f64 / 1024.0
    );
}

/// A body of about `size` bytes: `open`, then `item` repeated (comma-separated), then `close`.
fn repeated(open: &str, item: &str, close: &str, size: usize) -> Vec<u8> {
    let n = (size - open.len() - close.len()) / (item.len() + 1);
    let mut body = Vec::with_capacity(size);
    body.extend_from_slice(open.as_bytes());
    for i in 0..n {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(item.as_bytes());
    }
    body.extend_from_slice(close.as_bytes());
    body
}

/// The bodies that make decoding build the most per byte, each within the 10 MiB body limit.
/// Those that would build more than the pending budget are refused (413) before decoding;
/// the rest are decoded within it.
fn worst_shapes() -> Vec<(&'static str, Vec<u8>)> {
    const NEAR_LIMIT: usize = 10 * 1024 * 1024 - 1024;
    // One log entry whose field `x` is an array of the items.
    let (open, close) = (r#"{"entries":[{"level":"log","message":"shape","x":["#, "]}]}");
    vec![
        ("10 MiB of [0,0,0...]", repeated("[", "0", "]", NEAR_LIMIT)),
        ("10 MiB of {\"entries\":[{},{},...]}", repeated(r#"{"entries":["#, "{}", "]}", NEAR_LIMIT)),
        ("10 MiB of tiny strings", repeated(open, r#""a""#, close, NEAR_LIMIT)),
        ("10 MiB of empty arrays", repeated(open, "[]", close, NEAR_LIMIT)),
        ("10 MiB of tiny objects", repeated(open, r#"{"a":0}"#, close, NEAR_LIMIT)),
        (
            "10 MiB nested 128 deep, repeated",
            repeated(open, &format!("{}0{}", "[".repeat(120), "]".repeat(120)), close, NEAR_LIMIT),
        ),
        ("2 MB of [0,0,...] (a million values)", repeated(open, "0", close, 2_000_000)),
        ("2.5 MB of tiny strings", repeated(open, r#""a""#, close, 2_500_000)),
    ]
}

/// Many clients send the worst shapes at once, again and again. Whatever the bodies, the
/// server's memory stays under the bound RELIABILITY.md states (450 MiB), each body is
/// answered (stored, refused 413 for building too much, or 503 when the budget is full), and
/// the server serves normally afterwards. (Before decoding was budgeted, this run took the
/// server to 3,993 MiB.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worst_json_shapes_from_many_clients_keep_memory_bounded() {
    const CLIENTS: usize = 16;
    const ROUNDS: usize = 3;
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let shapes = Arc::new(worst_shapes());
    let rss_peak = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (pid, rss_peak, done) = (server.pid(), rss_peak.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                rss_peak.fetch_max(rss_kib(pid).unwrap_or(0) as usize, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let port = server.port;
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let shapes = shapes.clone();
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut seen = Vec::new();
                for round in 0..ROUNDS {
                    let (name, body) = &shapes[(c + round) % shapes.len()];
                    let sent = http
                        .post(format!("http://127.0.0.1:{port}/events/logs"))
                        .header("content-type", "application/json")
                        .body(body.clone())
                        .send()
                        .await;
                    match sent {
                        Ok(response) => {
                            let status = response.status().as_u16();
                            seen.push((*name, status, response.text().await.unwrap_or_default()));
                        }
                        // Refused (503) before its body was read, the connection closes under
                        // the upload: the client may see that instead of the answer (status 0).
                        Err(e) => seen.push((*name, 0, format!("{e:?}"))),
                    }
                }
                seen
            })
        })
        .collect();
    let mut answers = Vec::new();
    for c in clients {
        answers.extend(c.await.unwrap());
    }
    done.store(true, Ordering::SeqCst);
    sampler.join().unwrap();
    let peak_mib = rss_peak.load(Ordering::SeqCst) / 1024;
    let mut tally: std::collections::BTreeMap<(&str, u16), usize> = Default::default();
    for (name, status, _) in &answers {
        *tally.entry((name, *status)).or_default() += 1;
    }
    eprintln!(
        "FIGURE worst JSON shapes: {CLIENTS} clients x {ROUNDS} bodies; server RSS peak {peak_mib} MiB; {tally:?}"
    );
    assert!(peak_mib < 450, "server RSS reached {peak_mib} MiB under the worst JSON shapes: {tally:?}");
    for (name, status, text) in &answers {
        assert!(matches!(status, 0 | 200 | 413 | 503), "{name}: {status} {text}");
        if *status == 413 {
            assert!(text.contains("JSON values"), "{name}: the refusal says why: {text}");
        }
    }
    for (name, _) in worst_shapes().iter().take(3) {
        assert!(
            answers.iter().any(|(n, s, _)| n == name && *s == 413),
            "{name} builds far more than the budget and must be refused: {tally:?}"
        );
    }
    // Still serving, and normal ingest goes through.
    server.ingest("logs", common::logs(10, 0, None)).await;
    assert_eq!(server.stop(), Some(0));
}
