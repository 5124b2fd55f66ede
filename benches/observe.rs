//! observe latency for a 100-entry page at 10k, 100k and 1M log rows over 10 tabs,
//! at every position an agent uses: the first page, a deep offset (90% of the
//! total), the last N (negative offset), `after_cursor` in the middle, and a
//! tabId-filtered page (first and deep). Measured at the query layer the MCP tool
//! calls (a pooled reader, one read transaction, the answer serialised to JSON).
//! Targets: p50 <= 170 µs and p99 <= 1 ms at 100k at every position; at 1M no
//! position more than 2x the first page.
//!
//! The databases are built once and kept in target/bench-data/.

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gasoline::ingest::{Limits, decode_events};
use gasoline::kind::LOGS;
use gasoline::query::{self, ObserveArgs};
use gasoline::store::{Batch, OpenOptions, Store, StoreError};
use serde_json::{Value, json};

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];
const TABS: i64 = 10;
/// Interleaved calls per position for the percentiles.
const ROUNDS: usize = 3_000;

/// A store holding exactly `rows` logs (ids 1..=rows), built on first use.
fn store_with(rows: usize) -> Store {
    let path = common::data_dir().join(format!("observe-{rows}.db"));
    let options = OpenOptions { capacities: vec![(&LOGS, rows as i64)], ..OpenOptions::default() };
    let store = Store::open(&path, &options).expect("bench store");
    let count: i64 = store
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM logs", [], |r| r.get(0))?))
        .expect("count");
    if count as usize != rows {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(store.clear(None)).expect("clear");
        let started = Instant::now();
        for from in (0..rows).step_by(1_000) {
            let body = common::batch(from, 1_000, TABS);
            let rows = decode_events(&LOGS, &body, &Limits::default(), 0).expect("valid batch");
            rt.block_on(store.write_batch(Batch::Events(&LOGS, rows), None, Default::default())).expect("insert");
        }
        eprintln!("built {} ({rows} rows) in {:.1?}", path.display(), started.elapsed());
    }
    store
}

fn positions(store: &Store) -> Vec<(&'static str, ObserveArgs)> {
    let (first, last, total): (i64, i64, i64) = store
        .read_blocking(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT min(id), max(id), count(*) FROM logs", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?)
        })
        .expect("id range");
    let args = |v: Value| {
        let Value::Object(map) = v else { unreachable!() };
        query::parse(&map).expect("valid observe arguments")
    };
    vec![
        ("first", args(json!({"what": "logs", "limit": 100}))),
        ("deep_offset_90pct", args(json!({"what": "logs", "offset": total * 9 / 10, "limit": 100}))),
        ("last_100", args(json!({"what": "logs", "offset": -100}))),
        ("after_cursor_mid", args(json!({"what": "logs", "after_cursor": first + (last - first) / 2, "limit": 100}))),
        ("tab_first", args(json!({"what": "logs", "tabId": 3, "limit": 100}))),
        (
            "tab_deep_offset_90pct",
            args(json!({"what": "logs", "tabId": 3, "offset": total / TABS * 9 / 10, "limit": 100})),
        ),
        ("tab_last_100", args(json!({"what": "logs", "tabId": 3, "offset": -100}))),
    ]
}

fn call(store: &Store, args: &ObserveArgs) -> String {
    store.read_blocking(|c| query::observe(c, args)).expect("observe")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("observe_100");
    group.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    let mut report = Vec::new();
    for rows in SIZES {
        let store = store_with(rows);
        let positions = positions(&store);
        for (position, args) in &positions {
            let answer = call(&store, args);
            let entries =
                serde_json::from_str::<Value>(&answer).expect("JSON")["entries"].as_array().map_or(0, Vec::len);
            assert_eq!(entries, 100, "{position} at {rows} rows returned {entries} entries");
            group.bench_with_input(BenchmarkId::new(*position, rows), args, |b, args| b.iter(|| call(&store, args)));
        }
        // Percentiles from interleaved calls, so that machine noise hits every position alike.
        let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(ROUNDS); positions.len()];
        for _ in 0..ROUNDS {
            for ((_, args), times) in positions.iter().zip(samples.iter_mut()) {
                let t = Instant::now();
                std::hint::black_box(call(&store, args));
                times.push(t.elapsed());
            }
        }
        for ((position, _), mut times) in positions.iter().zip(samples) {
            let p50 = common::percentile(&mut times, 50.0);
            let p99 = common::percentile(&mut times, 99.0);
            report.push((rows, *position, p50, p99));
        }
    }
    group.finish();
    println!("observe (100 entries per page): rows, position, p50, p99");
    for (rows, position, p50, p99) in &report {
        let first = report.iter().find(|r| r.0 == *rows && r.1 == "first").map_or(*p50, |r| r.2);
        println!(
            "observe: {rows:>8} {position:<22} p50 {:>7} p99 {:>7} ({:.2}x first page)",
            common::micros(*p50),
            common::micros(*p99),
            p50.as_secs_f64() / first.as_secs_f64()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
