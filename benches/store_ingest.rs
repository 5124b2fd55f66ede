//! Store ingest against SQLite's own limit. In one run: (a) raw rusqlite
//! inserts of the same rows into an identical `logs` table (same columns,
//! indexes and pragmas) without the trimming trigger, one transaction per batch
//! of 100; (b) the store's ingest path (`Store::write_batch`: the writer thread, group
//! commit, savepoint, trigger) for the same batches with the ring full.
//! Target: (b) at least 70% of (a). Also (a) without `auto_vacuum`, to show what
//! the store's ability to give space back costs.

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gasoline::ingest::{Limits, Row, decode_events};
use gasoline::kind::LOGS;
use gasoline::store::{Batch, OpenOptions, Outcome, Store, StoreError};
use rusqlite::{Connection, params_from_iter};

const BATCH: usize = 100;
const CAPACITY: i64 = 10_000;

fn rows(from: usize) -> Vec<Row> {
    decode_events(&LOGS, &common::batch(from, BATCH, 10), &Limits::default(), 0).expect("valid batch")
}

/// A plain SQLite file with the store's `logs` table and indexes and the store's
/// pragmas (WAL, `synchronous=NORMAL`, `auto_vacuum=INCREMENTAL`, an 8 MiB page cache), no trigger.
/// `plain` leaves auto_vacuum off, to show what giving space back costs.
fn raw_db(dir: &std::path::Path, schema_from: &Store, plain: bool) -> Connection {
    let ddl: Vec<String> = schema_from
        .read_blocking(|c| -> Result<_, gasoline::store::StoreError> {
            let mut stmt =
                c.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'logs' AND type IN ('table', 'index') AND sql IS NOT NULL")?;
            let ddl = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            Ok(ddl)
        })
        .expect("schema");
    let conn = Connection::open(dir.join(if plain { "plain.db" } else { "raw.db" })).expect("raw db");
    if !plain {
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;").expect("auto_vacuum");
    }
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
         PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192;",
    )
    .expect("pragmas");
    for statement in ddl {
        conn.execute_batch(&statement).expect("ddl");
    }
    conn
}

fn raw_insert(conn: &mut Connection, rows: &[Row]) {
    let tx = conn.transaction().expect("begin");
    {
        let mut stmt = tx
            .prepare_cached(
                "INSERT INTO logs (tab_id, ts, received_at, level, message, source, url, data, truncated)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .expect("prepare");
        for row in rows {
            let mut values: Vec<rusqlite::types::Value> = vec![row.tab_id.into(), row.ts.into(), 0i64.into()];
            values.extend(row.columns.iter().cloned());
            values.push(row.data.clone().into());
            values.push(row.truncated.clone().into());
            stmt.execute(params_from_iter(values)).expect("insert");
        }
    }
    tx.commit().expect("commit");
}

/// What the HTTP handler does: room in the pending budget, then the write.
async fn ingest(store: &Store, rows: Vec<Row>, weight: usize) -> Result<Outcome, StoreError> {
    let admission = store.admit(weight).await?;
    store.write_batch(Batch::Events(&LOGS, rows), None, admission).await
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = OpenOptions { capacities: vec![(&LOGS, CAPACITY)], ..OpenOptions::default() };
    let store = Store::open(&dir.path().join("gasoline.db"), &options).expect("store");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime");
    let weight = common::batch(0, BATCH, 10).len();
    // Fill the ring so every insert also trims.
    for i in 0..(CAPACITY as usize / BATCH + 1) {
        rt.block_on(ingest(&store, rows(i * BATCH), weight)).expect("prefill");
    }
    let mut raw = raw_db(dir.path(), &store, false);
    let mut plain = raw_db(dir.path(), &store, true);
    let batch = rows(0);

    let mut group = c.benchmark_group("store_ingest");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    group.bench_function("raw_sqlite_no_trigger", |b| b.iter(|| raw_insert(&mut raw, &batch)));
    group.bench_function("raw_sqlite_no_trigger_no_auto_vacuum", |b| b.iter(|| raw_insert(&mut plain, &batch)));
    group.bench_function("store_ring_full", |b| {
        b.iter(|| rt.block_on(ingest(&store, batch.clone(), weight)).expect("insert"))
    });
    group.finish();

    // The ratios, from interleaved blocks long enough to include each side's checkpoints
    // (raw SQLite checkpoints inline every 1,000 pages; the store's checkpointer thread
    // every 16 MiB), with a pause after the store's block so that a checkpoint it left
    // running does not slow the raw block that follows.
    const BLOCKS: usize = 8;
    const PER_BLOCK: usize = 250;
    let timed = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        for _ in 0..PER_BLOCK {
            f();
        }
        t.elapsed()
    };
    let (mut raw_time, mut plain_time, mut store_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..BLOCKS {
        raw_time += timed(&mut || raw_insert(&mut raw, &batch));
        plain_time += timed(&mut || raw_insert(&mut plain, &batch));
        store_time += timed(&mut || {
            rt.block_on(ingest(&store, batch.clone(), weight)).expect("insert");
        });
        std::thread::sleep(Duration::from_millis(300));
    }
    let events = (BLOCKS * PER_BLOCK * BATCH) as f64;
    let rate = |t: Duration| events / t.as_secs_f64();
    let (raw_rate, plain_rate, store_rate) = (rate(raw_time), rate(plain_time), rate(store_time));
    println!(
        "store_ingest: raw {raw_rate:.0} events/s, store {store_rate:.0} events/s, ratio {:.0}% (target >= 70%); \
         raw without auto_vacuum {plain_rate:.0} events/s, ratio {:.0}%",
        100.0 * store_rate / raw_rate,
        100.0 * store_rate / plain_rate
    );
    rt.block_on(store.shutdown()).expect("shutdown");
}

criterion_group!(benches, bench);
criterion_main!(benches);
