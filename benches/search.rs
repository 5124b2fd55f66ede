//! observe `search` over a full default ring of every kind: logs 50,000,
//! network_waterfall 20,000, network_bodies 2,000 (request and response headers,
//! JSON bodies of 2–16 KiB), websocket_events 50,000, actions 10,000. The worst
//! case is a needle that matches nothing: every row's text is scanned (and the
//! filtered count cache is of no help, since every call uses a new needle).
//! Target: p99 <= 50 ms. Measured at the query layer the MCP tool calls (a pooled
//! reader, one read transaction, the answer serialised).
//!
//! The database is built once and kept in target/bench-data/.

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use gasoline::ingest::{Limits, decode_events};
use gasoline::kind::{self, Kind};
use gasoline::query::{self, ObserveArgs};
use gasoline::store::{Batch, OpenOptions, Store, StoreError};
use serde_json::{Value, json};

const TABS: i64 = 10;
/// Rounds of every kind for the percentiles.
const ROUNDS: usize = 60;
const FILLED: [(&str, usize); 5] = [
    ("logs", 50_000),
    ("network_waterfall", 20_000),
    ("network_bodies", 2_000),
    ("websocket_events", 50_000),
    ("actions", 10_000),
];

/// A JSON response body of about `bytes` bytes: a page of products.
fn body(i: usize, bytes: usize) -> String {
    let mut items = Vec::new();
    let mut len = 2;
    let mut k = 0;
    while len < bytes {
        let item = json!({"id": i * 100 + k, "sku": format!("SKU-{:05}", (i * 31 + k) % 99_991),
            "name": format!("Product {k} of order {i}: a sturdy thing with a long description"),
            "price": (k * 137 % 10_000) as f64 / 100.0, "tags": ["new", "sale", "eco"], "stock": k % 17});
        len += item.to_string().len() + 1;
        items.push(item);
        k += 1;
    }
    json!({"page": i, "items": items}).to_string()
}

fn entry(kind: &str, i: usize) -> Value {
    let tab = (i as i64 % TABS) + 1;
    if kind != "network_bodies" {
        return common::event(kind, i, tab);
    }
    let size = 2_048 + (i * 7_919) % (14 * 1_024);
    json!({"tabId": tab, "ts": 1_790_000_000_000i64 + i as i64, "method": "GET", "status": 200, "duration": 41.0,
        "url": format!("http://localhost:3000/api/products?page={i}&sort=price"),
        "contentType": "application/json",
        "requestHeaders": {"Accept": "application/json", "X-Request-Id": format!("req-{i:08x}"), "Authorization": "[redacted]"},
        "responseHeaders": {"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store",
                            "ETag": format!("W/\"{i:x}-abc\""), "Server-Timing": "db;dur=12.5, app;dur=30.1"},
        "responseBody": body(i, size), "responseBodySize": size})
}

fn store() -> Store {
    let path = common::data_dir().join("search-full-ring.db");
    let store = Store::open(&path, &OpenOptions::default()).expect("bench store");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    for (name, rows) in FILLED {
        let kind = kind::by_name(name).expect("a kind");
        let count: i64 = store
            .read_blocking(|c| {
                Ok::<_, StoreError>(c.query_row(&format!("SELECT count(*) FROM {name}"), [], |r| r.get(0))?)
            })
            .expect("count");
        if count as usize == rows {
            continue;
        }
        let started = Instant::now();
        for from in (0..rows).step_by(500) {
            let entries: Vec<Value> = (from..from + 500).map(|i| entry(name, i)).collect();
            let body = serde_json::to_vec(&json!({ "entries": entries })).expect("serialisable");
            let decoded = decode_events(kind, &body, &Limits::default(), 0).expect("valid batch");
            rt.block_on(store.write_batch(Batch::Events(kind, decoded), None, Default::default())).expect("insert");
        }
        eprintln!("filled {name} ({rows} rows) in {:.1?}", started.elapsed());
    }
    store
}

fn args(v: Value) -> ObserveArgs {
    let Value::Object(map) = v else { unreachable!() };
    query::parse(&map).expect("valid observe arguments")
}

fn call(store: &Store, args: &ObserveArgs) -> String {
    store.read_blocking(|c| query::observe(c, args)).expect("observe")
}

fn kinds() -> Vec<&'static Kind> {
    FILLED.iter().filter_map(|(n, _)| kind::by_name(n)).collect()
}

fn report(store: &Store) {
    let mut per_kind: Vec<Vec<Duration>> = vec![Vec::new(); FILLED.len()];
    let mut every_kind = Vec::new();
    let mut first_match = vec![Vec::new(); FILLED.len()];
    // Warm the page cache and the readers once.
    for k in kinds() {
        call(store, &args(json!({"what": k.name, "search": "warm-up-needle", "limit": 100})));
    }
    for round in 0..ROUNDS {
        let mut all = Duration::ZERO;
        for (i, k) in kinds().into_iter().enumerate() {
            // A new needle each call: nothing is cached.
            let a = args(json!({"what": k.name, "search": format!("zq-nothing-{round}"), "limit": 100}));
            let started = Instant::now();
            let answer = call(store, &a);
            let took = started.elapsed();
            assert!(answer.contains("\"total\":0"), "{}", &answer[..200.min(answer.len())]);
            per_kind[i].push(took);
            all += took;
            let a = args(json!({"what": k.name, "search": format!("{}", 4_000 + round), "limit": 20}));
            let started = Instant::now();
            call(store, &a);
            first_match[i].push(started.elapsed());
        }
        every_kind.push(all);
    }
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
    for (i, (name, rows)) in FILLED.iter().enumerate() {
        let p50 = common::percentile(&mut per_kind[i], 50.0);
        let p99 = common::percentile(&mut per_kind[i], 99.0);
        let m50 = common::percentile(&mut first_match[i], 50.0);
        let m99 = common::percentile(&mut first_match[i], 99.0);
        println!(
            "search {name} ({rows} rows), no match: p50 {} p99 {}; a number that matches (20 entries, total counted): p50 {} p99 {}",
            ms(p50),
            ms(p99),
            ms(m50),
            ms(m99)
        );
    }
    let p50 = common::percentile(&mut every_kind, 50.0);
    let p99 = common::percentile(&mut every_kind, 99.0);
    println!(
        "search every kind in turn (132,000 rows), no match: p50 {} p99 {} (target p99 <= 50 ms)",
        ms(p50),
        ms(p99)
    );
}

fn bench(c: &mut Criterion) {
    let store = store();
    report(&store);
    let mut group = c.benchmark_group("search_full_ring");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    let mut n = 0usize;
    group.bench_function("network_bodies_no_match", |b| {
        b.iter(|| {
            n += 1;
            call(&store, &args(json!({"what": "network_bodies", "search": format!("zq-criterion-{n}"), "limit": 100})))
        })
    });
    group.bench_function("logs_no_match", |b| {
        b.iter(|| {
            n += 1;
            call(&store, &args(json!({"what": "logs", "search": format!("zq-criterion-{n}"), "limit": 100})))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
