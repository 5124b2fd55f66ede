//! Bounded disk: ingest at full speed while agents poll with `after_cursor`
//! (over MCP) and a user polls the file with sqlite3-style short reads. The
//! `-wal` file must stay under a stated bound (the store sets
//! `journal_size_limit` = 64 MiB and checkpoints when the WAL passes 32 MiB),
//! the database file must stop growing once every ring is full (freed pages are
//! reused), and lowering a capacity must give the space back to the filesystem
//! (`auto_vacuum=INCREMENTAL` plus `incremental_vacuum` when idle).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Load, LoadSpec, MIB, Mcp, Rng, Server, TempDb, file_len, open_db, scale, wal_path};
use serde_json::{Value, json};

/// The `-wal` file never exceeds this: `journal_size_limit` (64 MiB) is where SQLite truncates the
/// WAL after a checkpoint; the writer forces one past 32 MiB. 64 MiB is the bound a user can rely on.
const WAL_BOUND: u64 = 64 << 20;

const CAPS: [(&str, i64); 6] = [
    ("logs", 4000),
    ("network_waterfall", 4000),
    ("network_bodies", 400),
    ("websocket_events", 4000),
    ("actions", 4000),
    ("extension_logs", 2000),
];

fn cap_args() -> Vec<String> {
    CAPS.iter().flat_map(|(k, c)| ["--capacity".to_owned(), format!("{k}={c}")]).collect()
}

/// An agent looping on observe with `after_cursor` over every kind, as fast as answers come.
async fn mcp_poller(mcp: Mcp, stop: Arc<AtomicBool>, polls: Arc<AtomicUsize>) {
    let mut cursors = [0i64; 6];
    while !stop.load(Ordering::SeqCst) {
        for (i, (kind, _)) in CAPS.iter().enumerate() {
            let page = mcp.observe(json!({"what": kind, "after_cursor": cursors[i], "limit": 200})).await;
            if let Some(c) = page["cursor"].as_i64() {
                cursors[i] = c;
            }
            polls.fetch_add(1, Ordering::Relaxed);
        }
    }
    mcp.close().await;
}

/// A user's script reading the file directly with short read transactions.
fn direct_poller(db: std::path::PathBuf, stop: Arc<AtomicBool>, polls: Arc<AtomicUsize>) {
    let conn = open_db(&db);
    let mut cursor = 0i64;
    while !stop.load(Ordering::SeqCst) {
        let rows: Vec<(i64, String)> = conn
            .prepare_cached("SELECT id, data FROM logs WHERE id > ?1 ORDER BY id LIMIT 500")
            .unwrap()
            .query_map([cursor], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        if let Some((id, _)) = rows.last() {
            cursor = *id;
        }
        polls.fetch_add(1, Ordering::Relaxed);
    }
}

fn rings_full(health: &Value) -> bool {
    CAPS.iter().all(|(k, c)| health["kinds"][k]["count"].as_i64() == Some(*c))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wal_and_database_stay_bounded_under_full_speed_ingest_and_continuous_polling() {
    let run_for = Duration::from_secs(scale(20, 300));
    let db = TempDb::new();
    let args = cap_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Server::start(&db.path, &args);
    let spec =
        LoadSpec { kinds: CAPS.iter().map(|(k, _)| *k).collect(), batch: (20, 200), pad: 700, ..LoadSpec::default() };
    let load = Load::start(server.port, 3, &spec, Rng::seed());
    let stop = Arc::new(AtomicBool::new(false));
    let (polls, direct_polls) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut pollers = Vec::new();
    for _ in 0..2 {
        let mcp = Mcp::http(&server).await;
        pollers.push(tokio::spawn(mcp_poller(mcp, stop.clone(), polls.clone())));
    }
    let direct = std::thread::spawn({
        let (db, stop, polls) = (db.path.clone(), stop.clone(), direct_polls.clone());
        move || direct_poller(db, stop, polls)
    });

    let wal = wal_path(&db.path);
    let started = Instant::now();
    let (mut wal_peak, mut db_at_full, mut db_peak_after, mut full_at) = (0u64, None, 0u64, None);
    let mut samples = 0;
    while started.elapsed() < run_for {
        tokio::time::sleep(Duration::from_millis(100)).await;
        samples += 1;
        wal_peak = wal_peak.max(file_len(&wal));
        let db_len = file_len(&db.path);
        match full_at {
            None if samples % 5 == 0 && rings_full(&server.health().await) => full_at = Some(started.elapsed()),
            // Once every ring is full, give the free list one maintenance round to form, then hold it.
            Some(at) if started.elapsed() > at + Duration::from_secs(3) => {
                db_at_full.get_or_insert(db_len);
                db_peak_after = db_peak_after.max(db_len);
            }
            _ => {}
        }
    }
    stop.store(true, Ordering::SeqCst);
    let report = load.finish().await;
    for p in pollers {
        p.await.unwrap();
    }
    direct.join().unwrap();
    let health = server.health().await;
    assert_eq!(server.stop(), Some(0));

    let full_at = full_at.expect("the rings never filled up");
    let db_at_full = db_at_full.expect("no sample after the rings filled");
    let events = report.acked_events();
    eprintln!(
        "FIGURE bounds: {:?} run, {events} events in {} requests ({:.0}/s), {} MCP observe calls and {} direct reads; rings full after \
         {full_at:?}; WAL peak {:.1} MiB (bound {} MiB); db {:.1} MiB when full, peak {:.1} MiB after",
        run_for,
        report.acked.len(),
        events as f64 / run_for.as_secs_f64(),
        polls.load(Ordering::Relaxed),
        direct_polls.load(Ordering::Relaxed),
        wal_peak as f64 / MIB,
        WAL_BOUND >> 20,
        db_at_full as f64 / MIB,
        db_peak_after as f64 / MIB
    );
    assert!(report.refusals.is_empty(), "{:?}", &report.refusals[..1]);
    assert!(rings_full(&health), "{health}");
    assert!(wal_peak <= WAL_BOUND, "WAL reached {:.1} MiB", wal_peak as f64 / MIB);
    // Full rings reuse their freed pages: the file may settle a little, it may not keep growing.
    let slack = db_at_full / 10 + (4 << 20);
    assert!(
        db_peak_after <= db_at_full + slack,
        "the database kept growing with full rings: {:.1} MiB -> {:.1} MiB",
        db_at_full as f64 / MIB,
        db_peak_after as f64 / MIB
    );
}

/// Waits (at most `within`) for the file to shrink to `limit` bytes; returns whether it did and its size.
fn settles_below(path: &std::path::Path, limit: u64, within: Duration) -> (bool, u64) {
    let deadline = Instant::now() + within;
    loop {
        let len = file_len(path);
        if len <= limit || Instant::now() > deadline {
            return (len <= limit, len);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

async fn fill_logs(server: &Server, n: usize, tag: &str) {
    for chunk in 0..n / 1000 {
        let entries: Vec<Value> =
            (0..1000).map(|i| common::marked_entry("logs", &format!("{tag}-{chunk}-{i}"), 1, 2000)).collect();
        server.ingest("logs", entries).await;
    }
}

/// What the file may keep after logs shrink to 100 rows of ~2 KB: those rows, the free pages the
/// writer keeps for reuse (2,048 pages of 4 KiB at most) and the schema.
const SHRUNK_BELOW: u64 = 10 << 20;

async fn shrinks_within(path: &std::path::Path, within: Duration) -> (bool, u64) {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || settles_below(&path, SHRUNK_BELOW, within)).await.unwrap()
}

/// While serving, with nothing else running, `configure action=capacity` lowering a ring shrinks the
/// file once the writer is idle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lowering_a_capacity_with_configure_gives_the_space_back() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "logs=20000"]);
    fill_logs(&server, 20_000, "a").await;
    // Idle, the writer folds the WAL into the file (a TRUNCATE checkpoint).
    let wal = wal_path(&db.path);
    assert!(common::until(Duration::from_secs(20), || file_len(&wal) == 0).await, "the WAL was folded in");
    let full = file_len(&db.path);
    let mcp = Mcp::http(&server).await;
    let answer = mcp.ok("configure", json!({"action": "capacity", "what": "logs", "capacity": 100})).await;
    assert_eq!(answer["count"], 100, "{answer}");
    let (ok, shrunk) = shrinks_within(&db.path, Duration::from_secs(10)).await;
    eprintln!(
        "FIGURE vacuum configure: logs 20000 -> 100 rows of ~2 KB: {:.1} MiB -> {:.1} MiB after 10 s idle",
        full as f64 / MIB,
        shrunk as f64 / MIB
    );
    assert!(ok, "configure: {:.1} MiB -> {:.1} MiB", full as f64 / MIB, shrunk as f64 / MIB);
    mcp.close().await;
    assert_eq!(server.stop(), Some(0));
    assert_eq!(common::integrity(&db.path), "ok");
}

/// A restart with a lower `--capacity` shrinks the file before serving, with no write needed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lowering_a_capacity_on_restart_gives_the_space_back() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "logs=20000"]);
    fill_logs(&server, 20_000, "b").await;
    assert_eq!(server.stop(), Some(0));
    let full = file_len(&db.path);
    let server = Server::start(&db.path, &["--capacity", "logs=100"]);
    assert_eq!(server.health().await["kinds"]["logs"]["count"], 100);
    let (ok, shrunk) = shrinks_within(&db.path, Duration::from_secs(10)).await;
    eprintln!(
        "FIGURE vacuum restart: logs 20000 -> 100 rows of ~2 KB: {:.1} MiB -> {:.1} MiB at start-up",
        full as f64 / MIB,
        shrunk as f64 / MIB
    );
    assert!(ok, "--capacity on restart: {:.1} MiB -> {:.1} MiB", full as f64 / MIB, shrunk as f64 / MIB);
    assert_eq!(server.stop(), Some(0));
    assert_eq!(common::integrity(&db.path), "ok");
    assert_eq!(common::count(&db.path, "logs"), 100);
}
