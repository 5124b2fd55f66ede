//! What an answer costs an agent, in tokens as a BPE tokenizer counts them
//! (cl100k, from tiktoken-rs): the last 100 logs of a page logging
//! `console.log('event i of the flood', {i, user: {id, name}, tags: ['a', 'b']})`
//! ("flood page" below),
//! compact by default and whole with `fields=["all"]`, beside the figure
//! measured for chrome-devtools-mcp's console list. Counts are deterministic:
//! this bench prints them for BENCHMARKS.md rather than timing anything.
//!
//! Run: `cargo bench --bench answer_tokens`.

use gasoline::ingest::{Limits, decode_events};
use gasoline::kind::LOGS;
use gasoline::query;
use gasoline::store::{Batch, OpenOptions, Store};
use serde_json::{Value, json};

fn flood(n: usize) -> Vec<u8> {
    let entries: Vec<Value> = (0..n)
        .map(|i| {
            json!({"tabId": 1_873_456_921, "ts": 1_790_000_000_000i64 + i as i64 * 3, "level": "log", "source": "console",
                   "url": "http://localhost:5173/", "location": "http://localhost:5173/src/main.ts:12:9",
                   "message": format!("event {i} of the flood {}", json!({"i": i, "user": {"id": i, "name": format!("user{i}")}, "tags": ["a", "b"]}))})
        })
        .collect();
    json!({ "entries": entries }).to_string().into_bytes()
}

struct Figures {
    chars_per_entry: f64,
    median_tokens: usize,
    answer_tokens: usize,
    answer_chars: usize,
}

fn measure(store: &Store, bpe: &tiktoken_rs::CoreBPE, args: Value) -> Figures {
    let Value::Object(map) = args else { unreachable!() };
    let parsed = query::parse(&map).expect("valid arguments");
    let text = store
        .read_blocking(move |c| {
            query::observe(c, &parsed).map_err(|e| gasoline::store::StoreError::Invalid(e.to_string()))
        })
        .expect("answer");
    let answer: Value = serde_json::from_str(&text).expect("json");
    let entries = answer["entries"].as_array().expect("entries");
    let texts: Vec<String> = entries.iter().map(|e| serde_json::to_string(e).expect("entry")).collect();
    let mut per: Vec<usize> = texts.iter().map(|t| bpe.encode_with_special_tokens(t).len() + 1).collect();
    per.sort_unstable();
    Figures {
        chars_per_entry: texts.iter().map(|t| t.chars().count() + 1).sum::<usize>() as f64 / texts.len() as f64,
        median_tokens: per[per.len() / 2],
        answer_tokens: bpe.encode_with_special_tokens(&text).len(),
        answer_chars: text.chars().count(),
    }
}

fn main() {
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k_base");
    let dir = tempfile::tempdir().expect("temp dir");
    println!("| page | entries | chars/entry | median tokens/entry | answer tokens | answer chars |");
    println!("|---|---|---|---|---|---|");
    for (label, n) in [("flood page: 100 logs", 100usize), ("last 100 of a 3,000-log flood", 3_000)] {
        let store = Store::open(&dir.path().join(format!("flood-{n}.db")), &OpenOptions::default()).expect("store");
        let rows = decode_events(&LOGS, &flood(n), &Limits::default(), 0).expect("valid batch");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(store.write_batch(Batch::Events(&LOGS, rows), None, Default::default())).expect("insert");
        for (form, args) in [
            (
                "compact (default)",
                json!({"what": "logs", "offset": -100, "max_tokens": 100_000, "max_chars": 1_000_000}),
            ),
            (
                "fields=[\"all\"]",
                json!({"what": "logs", "offset": -100, "fields": ["all"], "max_tokens": 100_000, "max_chars": 1_000_000}),
            ),
        ] {
            let f = measure(&store, &bpe, args);
            println!(
                "| {label}, {form} | 100 | {:.0} | {} | {} | {} |",
                f.chars_per_entry, f.median_tokens, f.answer_tokens, f.answer_chars
            );
        }
        let f = measure(&store, &bpe, json!({"what": "logs"}));
        println!("| {label}, default call (`what=logs`) | — | — | — | {} | {} |", f.answer_tokens, f.answer_chars);
    }
    let devtools = "msgid=7 [log] event 6 of the flood [object Object] (2 args)";
    println!(
        "| chrome-devtools-mcp 1.11 list line (object content lost) | 1 | {} | {} | — | — |",
        devtools.chars().count() + 1,
        bpe.encode_with_special_tokens(devtools).len() + 1
    );
}
