//! Filtered totals, offsets and cursors at depth: observe against the same
//! questions asked of SQLite directly, over a ring of many thousand rows (so that
//! the cached bucket counts of `query/count.rs` are used), while the ring trims,
//! after a row is deleted by hand in the middle, and on repeated calls.

mod common;

use common::Rng;
use gasoline::ingest::{Limits, decode_events};
use gasoline::kind::LOGS;
use gasoline::query;
use gasoline::store::{Batch, OpenOptions, Store};
use rusqlite::Connection;
use serde_json::{Value, json};

const TABS: i64 = 7;
const LEVELS: [&str; 4] = ["log", "info", "warn", "error"];

async fn add(store: &Store, from: usize, n: usize) {
    let entries: Vec<Value> = (from..from + n)
        .map(|i| {
            // Uneven tabs: tab 1 is rare, so its buckets hold few rows.
            let tab = if i % 50 == 0 { 1 } else { 2 + (i as i64 * 7919) % (TABS - 1) };
            json!({"tabId": tab, "level": LEVELS[(i * 31) % 4], "message": format!("m{i}")})
        })
        .collect();
    let body = json!({ "entries": entries }).to_string();
    let rows = decode_events(&LOGS, body.as_bytes(), &Limits::default(), 0).expect("valid");
    store.write_batch(Batch::Events(&LOGS, rows), None, Default::default()).await.expect("insert");
}

fn observe(store: &Store, args: Value) -> Value {
    let Value::Object(map) = args else { unreachable!() };
    let args = query::parse(&map).expect("valid arguments");
    let text = store.read_blocking(|c| query::observe(c, &args)).expect("observe");
    serde_json::from_str(&text).expect("JSON")
}

/// The ids SQLite itself says match `tab` (and `level`), ascending.
fn matching_ids(db: &Connection, tab: Option<i64>, level: Option<&str>) -> Vec<i64> {
    let mut stmt = db
        .prepare("SELECT id FROM logs WHERE (?1 IS NULL OR tab_id = ?1) AND (?2 IS NULL OR level = ?2) ORDER BY id")
        .expect("prepare");
    stmt.query_map(rusqlite::params![tab, level], |r| r.get(0)).expect("query").map(|r| r.expect("id")).collect()
}

fn ids(answer: &Value) -> Vec<i64> {
    answer["entries"].as_array().expect("entries").iter().map(|e| e["id"].as_i64().expect("id")).collect()
}

/// Random questions at every depth, each checked against `matching_ids`.
fn check_round(store: &Store, db: &Connection, rng: &mut Rng, rounds: usize) {
    for _ in 0..rounds {
        let tab = (rng.range(0, 4) > 0).then(|| rng.range(1, TABS as u64 + 1) as i64);
        let level = (rng.range(0, 3) == 0).then(|| LEVELS[rng.range(0, 4) as usize]);
        let expected = matching_ids(db, tab, level);
        let total = expected.len() as i64;
        let mut base = json!({"what": "logs", "limit": 20});
        if let Some(t) = tab {
            base["tabId"] = json!(t);
        }
        if let Some(l) = level {
            base["level"] = json!(l);
        }
        let ask = |extra: Value| {
            let mut args = base.clone();
            for (k, v) in extra.as_object().expect("object") {
                args[k] = v.clone();
            }
            observe(store, args)
        };
        let what = format!("tab {tab:?} level {level:?}");

        let offset = rng.range(0, total as u64 + 2) as i64;
        let answer = ask(json!({"offset": offset}));
        assert_eq!(answer["total"], total, "{what}: total");
        let want: Vec<i64> = expected.iter().skip(offset as usize).take(20).copied().collect();
        assert_eq!(ids(&answer), want, "{what}: offset {offset} of {total}");

        let last = rng.range(1, 60) as i64;
        let answer = ask(json!({"offset": -last, "limit": 0}));
        let want: Vec<i64> = expected.iter().skip((total - last).max(0) as usize).copied().collect();
        assert_eq!(ids(&answer), want, "{what}: last {last}");

        let newest = expected.last().copied().unwrap_or(0);
        let cursor = rng.range(0, newest as u64 + 1) as i64;
        let answer = ask(json!({"after_cursor": cursor}));
        let before = expected.iter().filter(|id| **id <= cursor).count() as i64;
        let want: Vec<i64> = expected.iter().filter(|id| **id > cursor).take(20).copied().collect();
        assert_eq!(ids(&answer), want, "{what}: after_cursor {cursor}");
        assert_eq!(answer["offset"], before, "{what}: offset of after_cursor {cursor}");

        let answer = ask(json!({"before_cursor": cursor + 1}));
        let kept: Vec<i64> = expected.iter().filter(|id| **id <= cursor).copied().collect();
        let want: Vec<i64> = kept[kept.len().saturating_sub(20)..].to_vec();
        assert_eq!(ids(&answer), want, "{what}: before_cursor {}", cursor + 1);
        assert_eq!(answer["offset"], kept.len() as i64 - want.len() as i64, "{what}: offset of before_cursor");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_pages_match_sqlite_at_every_depth_while_the_ring_trims_and_after_a_hand_delete() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("gasoline.db");
    let options = OpenOptions { capacities: vec![(&LOGS, 30_000)], ..OpenOptions::default() };
    let store = Store::open(&path, &options).expect("store");
    let seed = Rng::seed();
    eprintln!("seed {seed} (GASOLINE_SEED={seed} replays it)");
    let mut rng = Rng::new(seed);
    let mut next = 0;
    for _ in 0..25 {
        add(&store, next, 1_000).await;
        next += 1_000;
    }
    let db = Connection::open(&path).expect("sqlite");
    check_round(&store, &db, &mut rng, 30);

    // The ring fills and trims its head: bucket counts below the oldest id go out of use.
    for _ in 0..15 {
        add(&store, next, 1_000).await;
        next += 1_000;
    }
    check_round(&store, &db, &mut rng, 30);

    // A person deletes rows in the middle by hand: the ring has a hole, counts go to SQL.
    let (min, max): (i64, i64) =
        db.query_row("SELECT min(id), max(id) FROM logs", [], |r| Ok((r.get(0)?, r.get(1)?))).expect("range");
    let middle = min + (max - min) / 2;
    db.execute("DELETE FROM logs WHERE id BETWEEN ?1 AND ?1 + 5000", [middle]).expect("hand delete");
    check_round(&store, &db, &mut rng, 30);

    // Ingest goes on until the hole is trimmed away; the ring is contiguous again.
    for _ in 0..31 {
        add(&store, next, 1_000).await;
        next += 1_000;
    }
    check_round(&store, &db, &mut rng, 30);
    store.shutdown().await.expect("shutdown");
}
