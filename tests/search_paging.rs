//! Property: observe `search` with any paging mode returns exactly the rows that a
//! plain scan with the same predicate returns, while another thread appends and
//! the ring trims. The predicate here is written independently of
//! `query::search`: the needle, lowercased, in the lowercased message, URL or a
//! string (or nested key) of the entry's arguments.
//!
//! Cursor reads run during the appends (no duplicate, no gap: every matching row
//! still stored up to the last cursor was returned, once, in order). Offsets and
//! negative offsets are positions, which appends and trimming move, so they are
//! compared with the scan at a moment the appender is held back.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use gasoline::ingest::{Limits, decode_events};
use gasoline::kind::LOGS;
use gasoline::query;
use gasoline::store::{Batch, OpenOptions, Store, StoreError};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Characters the texts and needles are made of: SQL and FTS syntax, JSON escapes, case.
const ALPHABET: &[char] = &['a', 'b', 'A', '"', '%', '_', '\\', '*', '-', 'é', 'É', ' ', '\n'];
const CAPACITY: i64 = 300;

fn text(seed: &mut u64, max: usize) -> String {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let n = (next() % (max as u64 + 1)) as usize;
    (0..n).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]).collect()
}

fn entry(seed: &mut u64, i: u64) -> Value {
    let tab = (i % 3) as i64 + 1;
    let (message, arg, key, value) = (text(seed, 12), text(seed, 8), text(seed, 3), text(seed, 6));
    let mut e = json!({"tabId": tab, "ts": 1_790_000_000_000i64 + i as i64, "level": "log", "message": message,
                       "args": [arg, {key: value}]});
    if i.is_multiple_of(4) {
        e["url"] = json!(format!("http://h/{}", text(seed, 4)));
    }
    e
}

/// The independent predicate.
fn holds(needle: &str, message: &str, url: Option<&str>, data: &Value) -> bool {
    let n = needle.to_lowercase();
    let has = |s: &str| s.to_lowercase().contains(&n);
    fn strings<'a>(v: &'a Value, top: bool, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(a) => a.iter().for_each(|x| strings(x, false, out)),
            Value::Object(m) => {
                for (k, x) in m {
                    if !top {
                        out.push(k);
                    }
                    strings(x, false, out);
                }
            }
            _ => {}
        }
    }
    let mut all = Vec::new();
    strings(data, true, &mut all);
    has(message) || url.is_some_and(has) || all.into_iter().any(has)
}

/// Ids of the stored rows (of `tab`, if given) that hold `needle`, by a plain scan.
fn scan(store: &Store, needle: &str, tab: Option<i64>) -> Vec<i64> {
    let needle = needle.to_string();
    store
        .read_blocking(move |c| -> Result<_, StoreError> {
            let mut stmt = c.prepare("SELECT id, tab_id, message, url, data FROM logs ORDER BY id")?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })?;
            let mut ids = Vec::new();
            for row in rows {
                let (id, t, message, url, data) = row?;
                let data: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
                if tab.is_none_or(|tab| t == Some(tab)) && holds(&needle, &message, url.as_deref(), &data) {
                    ids.push(id);
                }
            }
            Ok(ids)
        })
        .expect("scan")
}

fn observe(store: &Store, args: Value) -> Value {
    let Value::Object(map) = args else { unreachable!() };
    let parsed = query::parse(&map).expect("valid arguments");
    let text = store.read_blocking(|c| query::observe(c, &parsed)).expect("observe");
    serde_json::from_str(&text).expect("JSON")
}

fn ids(answer: &Value) -> Vec<i64> {
    answer["entries"].as_array().map(|e| e.iter().filter_map(|x| x["id"].as_i64()).collect()).unwrap_or_default()
}

/// Appends batches of logs until stopped; `gate` is held for each batch.
fn appender(
    store: Store,
    stop: Arc<AtomicBool>,
    gate: Arc<Mutex<()>>,
    appended: Arc<AtomicU64>,
    seed: u64,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let mut seed = seed | 1;
        let mut i = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let _held = gate.lock().unwrap_or_else(|p| p.into_inner());
            let entries: Vec<Value> = (0..7).map(|k| entry(&mut seed, i + k)).collect();
            i += 7;
            let body = serde_json::to_vec(&json!({ "entries": entries })).expect("JSON");
            let rows = decode_events(&LOGS, &body, &Limits::default(), 0).expect("valid");
            rt.block_on(store.write_batch(Batch::Events(&LOGS, rows), None, Default::default())).expect("stored");
            appended.fetch_add(7, Ordering::Relaxed);
        }
    })
}

fn needle() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), 1..=3).prop_map(|c| c.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn search_pages_exactly_like_a_scan(
        needle in needle(),
        limit in 1i64..40,
        tab in proptest::option::of(1i64..=3),
        offset_fraction in 0.0f64..1.0,
        seed in any::<u64>(),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = OpenOptions { capacities: vec![(&LOGS, CAPACITY)], ..OpenOptions::default() };
        let store = Store::open(&dir.path().join("gasoline.db"), &options).expect("store");
        let stop = Arc::new(AtomicBool::new(false));
        let gate = Arc::new(Mutex::new(()));
        let appended = Arc::new(AtomicU64::new(0));
        let writer = appender(store.clone(), stop.clone(), gate.clone(), appended.clone(), seed);
        let base = |extra: Value| {
            let mut a = json!({"what": "logs", "search": needle, "max_tokens": 100_000, "max_chars": 500_000});
            if let Some(t) = tab { a["tabId"] = json!(t); }
            for (k, v) in extra.as_object().cloned().unwrap_or_default() { a[k] = v; }
            a
        };

        // Cursor reads while the ring fills and trims: in order, once each, no gap.
        let mut read = Vec::new();
        let mut cursor = 0;
        // Until the ring has trimmed at least twice over (and a while past it).
        let mut polls = 0;
        while polls < 40 || appended.load(Ordering::Relaxed) < 3 * CAPACITY as u64 {
            let a = observe(&store, base(json!({"after_cursor": cursor, "limit": limit})));
            read.extend(ids(&a));
            cursor = a["cursor"].as_i64().expect("cursor");
            polls += 1;
            prop_assert!(polls < 100_000, "the appender made no progress");
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().expect("appender");
        prop_assert!(read.windows(2).all(|w| w[0] < w[1]), "in order, no duplicate: {read:?}");
        let stored = scan(&store, &needle, tab);
        let kept_from = store
            .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT min(id) FROM logs", [], |r| r.get::<_, Option<i64>>(0))?))
            .expect("min")
            .unwrap_or(i64::MAX);
        let expected_tail: Vec<i64> = stored.iter().copied().filter(|id| *id <= cursor).collect();
        let read_tail: Vec<i64> = read.iter().copied().filter(|id| *id >= kept_from).collect();
        prop_assert_eq!(&read_tail, &expected_tail, "every matching row still stored up to the cursor, once");

        // Positions, at a still moment: offsets, negative offsets, before_cursor, totals.
        let _still = gate.lock().unwrap_or_else(|p| p.into_inner());
        let all = scan(&store, &needle, tab);
        let total = all.len() as i64;
        let whole = observe(&store, base(json!({})));
        prop_assert_eq!(ids(&whole), all.clone());
        prop_assert_eq!(whole["total"].as_i64(), Some(total));
        let start = ((total as f64) * offset_fraction) as i64;
        let page = observe(&store, base(json!({"offset": start, "limit": limit})));
        let want: Vec<i64> = all.iter().copied().skip(start as usize).take(limit as usize).collect();
        prop_assert_eq!(ids(&page), want);
        let last = observe(&store, base(json!({"offset": -limit})));
        let want: Vec<i64> = all.iter().copied().skip(all.len().saturating_sub(limit as usize)).collect();
        prop_assert_eq!(ids(&last), want);
        let mut back = Vec::new();
        let mut before = all.last().map_or(1, |id| id + 1);
        for _ in 0..(total / limit + 2) {
            let a = observe(&store, base(json!({"before_cursor": before, "limit": limit})));
            let mut p = ids(&a);
            p.extend(back);
            back = p;
            before = a["prev_cursor"].as_i64().expect("prev_cursor");
            if a["has_older"] == false { break; }
        }
        prop_assert_eq!(back, all);
    }
}
