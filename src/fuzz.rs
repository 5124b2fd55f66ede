//! Entry points for fuzzing: the cargo-fuzz targets in `fuzz/` and the stable test
//! `tests/reliability_fuzz.rs` call these with arbitrary bytes.
//!
//! Each function must return for any input, never panic, except when a property
//! the rest of gasoline relies on is broken (then it panics on purpose, naming it):
//! - ingest: a decoded row has a JSON-object `data` without the server's own keys,
//!   text columns within the field cap, required columns present, and a
//!   `truncated` record that is a JSON object of original lengths, and values from a
//!   fixed list (`level`, `event`, `direction`) exactly one of those values;
//! - observe: an answer is valid JSON no longer than `max_chars` characters and
//!   `max_tokens` estimated tokens, and
//!   wrong arguments are refused with a message, not a database error.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value, json};

use crate::ingest::{self, IngestError, Limits};
use crate::kind::{self, Kind, Required};
use crate::query::{self, QueryError};
use crate::store::{OpenOptions, Store, StoreError};

/// The limits the server runs with, and tiny ones that make every string a truncation case.
pub const LIMITS: [Limits; 2] = [
    Limits { body_cap: 64 * 1024, field_cap: 16 * 1024, max_entries: 10_000 },
    Limits { body_cap: 7, field_cap: 3, max_entries: 4 },
];

/// Decodes `body` as a `POST /events/{kind}` body (kind may also be `tabs` or `vitals`) under
/// `limits`, checks the rows, and returns how many were decoded or the refusal message.
pub fn ingest_bytes_with(kind: &str, body: &[u8], limits: &Limits) -> Result<usize, String> {
    let refusal = |e: IngestError| {
        let message = e.to_string();
        assert!(!message.is_empty(), "an ingest refusal without a message");
        message
    };
    match kind {
        "tabs" => {
            let tabs = ingest::decode_tabs(body, limits).map_err(refusal)?;
            for t in &tabs {
                for s in [&t.url, &t.title].into_iter().flatten() {
                    assert!(s.len() <= limits.field_cap, "tab string over the field cap: {}", s.len());
                }
            }
            Ok(tabs.len())
        }
        "vitals" => {
            let vitals = ingest::decode_vitals(body, limits).map_err(refusal)?;
            for v in &vitals {
                check_object(&v.data, "vitals data");
            }
            Ok(vitals.len())
        }
        name => {
            let kind = kind::by_name(name).ok_or_else(|| format!("unknown kind {name}"))?;
            let rows = ingest::decode_events(kind, body, limits, 1_700_000_000_000).map_err(refusal)?;
            assert!(rows.len() <= limits.max_entries, "{} rows over max_entries", rows.len());
            for row in &rows {
                check_row(kind, row, limits);
            }
            Ok(rows.len())
        }
    }
}

/// [`ingest_bytes_with`] with the server's default limits.
pub fn ingest_bytes(kind: &str, body: &[u8]) -> Result<usize, String> {
    ingest_bytes_with(kind, body, &LIMITS[0])
}

/// Every kind, `tabs` and `vitals`, under both [`LIMITS`]: what the `ingest` fuzz target runs.
pub fn ingest_every_kind(body: &[u8]) {
    for limits in &LIMITS {
        for name in kind::names().into_iter().chain(["tabs", "vitals"]) {
            let _ = ingest_bytes_with(name, body, limits);
        }
    }
}

fn check_object(text: &str, what: &str) -> Map<String, Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        other => panic!("{what} is not a JSON object: {other:?} from {text:?}"),
    }
}

fn check_row(kind: &Kind, row: &ingest::Row, limits: &Limits) {
    assert_eq!(row.columns.len(), kind.columns.len(), "{}: column count", kind.name);
    for (column, value) in kind.columns.iter().zip(&row.columns) {
        match value {
            SqlValue::Text(s) if column.one_of.is_empty() => {
                assert!(s.len() <= limits.field_cap, "{}.{}: {} bytes over the cap", kind.name, column.name, s.len());
            }
            SqlValue::Text(s) => {
                assert!(column.one_of.contains(&s.as_str()), "{}.{}: {s:?} not allowed", kind.name, column.name);
            }
            SqlValue::Null => {
                assert!(column.required != Required::Yes, "{}.{}: required but null", kind.name, column.name)
            }
            _ => {}
        }
    }
    let data = check_object(&row.data, "data");
    for reserved in ["id", "tabId", "ts", "_truncated"] {
        assert!(!data.contains_key(reserved), "{}: data carries the server's key {reserved}", kind.name);
    }
    if let Some(t) = &row.truncated {
        let record = check_object(t, "truncated");
        assert!(!record.is_empty(), "an empty truncation record");
        for (path, original) in &record {
            let original = original.as_u64().unwrap_or_else(|| panic!("truncated[{path}] is not a length"));
            assert!(original as usize > limits.field_cap.min(limits.body_cap), "truncated[{path}] = {original}");
        }
    }
}

/// Parses `data` as observe arguments (a JSON object) the way the MCP tool does.
pub fn observe_args_bytes(data: &[u8]) -> Result<query::ObserveArgs, String> {
    let value: Value = serde_json::from_slice(data).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(args) = value else { return Err("not an object".into()) };
    let parsed = query::parse(&args);
    if let Err(message) = &parsed {
        assert!(!message.is_empty(), "an observe refusal without a message");
    }
    parsed
}

/// A small store (temporary file) holding a few entries of every kind, for running fuzzed
/// observe calls end to end: arguments, SQL, pagination, the `max_chars` budget.
pub struct ObserveFixture {
    store: Store,
    path: PathBuf,
}

static FIXTURES: AtomicU64 = AtomicU64::new(0);

impl ObserveFixture {
    pub fn new() -> Result<Self, StoreError> {
        let n = FIXTURES.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("gasoline-fuzz-{}-{n}.db", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let store = Store::open(&path, &OpenOptions::default())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        runtime.block_on(Self::fill(&store))?;
        Ok(ObserveFixture { store, path })
    }

    async fn fill(store: &Store) -> Result<(), StoreError> {
        let levels = ["debug", "log", "info", "warn", "error"];
        let big = "é".repeat(3_000);
        for kind in kind::KINDS {
            let entries: Vec<Value> = (0..40i64)
                .map(|i| {
                    let tab = if i % 7 == 0 { Value::Null } else { json!(i % 3) };
                    json!({
                        "tabId": tab, "ts": 1_700_000_000_000i64 + i * 1000,
                        "level": levels[i as usize % 5], "message": format!("m{i}"),
                        "url": format!("http://app/{i}"), "method": if i % 2 == 0 { "GET" } else { "POST" },
                        "status": 200 + (i % 4) * 100, "responseStatus": 200 + (i % 4) * 100,
                        "connectionId": format!("c{}", i % 3), "event": "message",
                        "direction": if i % 2 == 0 { "incoming" } else { "outgoing" },
                        "type": if i % 2 == 0 { "click" } else { "input" },
                        "extra": if i % 10 == 0 { json!(big) } else { json!([i, {"nested": i}]) },
                    })
                })
                .collect();
            let body = json!({ "entries": entries }).to_string();
            let rows = ingest::decode_events(kind, body.as_bytes(), &Limits::default(), 1_700_000_000_000)
                .map_err(|e| StoreError::Invalid(e.to_string()))?;
            store.insert(kind, rows, Default::default()).await?;
        }
        store.clear(Some(&kind::ACTIONS)).await?;
        let tabs = ingest::decode_tabs(br#"{"tabId":1,"url":"http://app/","title":"App"}"#, &Limits::default())
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        store.upsert_tabs(tabs, Default::default()).await?;
        Ok(())
    }

    /// Runs `data` as observe arguments against the fixture; checks the answer's shape and size.
    pub fn observe_bytes(&self, data: &[u8]) -> Result<String, String> {
        let args = observe_args_bytes(data)?;
        let max_chars = args.max_chars;
        let answer = self.store.read_blocking(|conn| {
            query::observe(conn, &args).map_err(|e| match e {
                QueryError::Invalid(m) => StoreError::Invalid(m),
                QueryError::Store(s) => s,
            })
        });
        match answer {
            Ok(text) => {
                let chars = text.chars().count();
                assert!(chars <= max_chars, "answer of {chars} chars over max_chars {max_chars}: {args:?}");
                let tokens = query::Cost::of(&text).tokens;
                let max_tokens = args.max_tokens;
                assert!(tokens <= max_tokens, "answer of ~{tokens} tokens over max_tokens {max_tokens}: {args:?}");
                let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("answer not JSON ({e})"));
                assert!(value.is_object(), "answer not an object");
                Ok(text)
            }
            Err(StoreError::Invalid(message)) => {
                assert!(!message.is_empty(), "an observe refusal without a message");
                Err(message)
            }
            Err(other) => panic!("observe {args:?} failed inside the store: {other}"),
        }
    }
}

impl Drop for ObserveFixture {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
        }
    }
}
