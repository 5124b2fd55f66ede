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
use crate::store::{Batch, OpenOptions, Store, StoreError};

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

/// A store (temporary file) holding entries of every kind, for running fuzzed observe calls
/// end to end: arguments, SQL, pagination, the count cache, the `max_chars` budget. Each ring
/// spans several of the count cache's 1,024-id buckets ([`FIXTURE_ROWS`] ids issued) and has
/// holes: every ring has trimmed its head (capacity [`FIXTURE_CAPACITY`]), `actions` was
/// cleared and refilled, and `extension_logs` lost a range from its middle (as a hand-run
/// `DELETE` would), so both the contiguous and the gap paths run.
pub struct ObserveFixture {
    store: Store,
    path: PathBuf,
}

static FIXTURES: AtomicU64 = AtomicU64::new(0);

/// Ids issued to each ring of the fixture (before `actions` is cleared and refilled).
pub const FIXTURE_ROWS: i64 = 5_500;
/// Ring capacity in the fixture: the oldest 1,500 ids of each ring are trimmed.
pub const FIXTURE_CAPACITY: i64 = 4_000;
/// Ids issued to `actions` after it is cleared.
const REFILL_ROWS: i64 = 2_500;
/// Ids deleted by hand from the middle of `extension_logs`.
const HAND_DELETED: std::ops::Range<i64> = 3_000..3_200;

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
        let by_hand = rusqlite::Connection::open(&path)?;
        by_hand.busy_timeout(std::time::Duration::from_secs(5))?;
        by_hand
            .execute("DELETE FROM extension_logs WHERE id >= ?1 AND id < ?2", [HAND_DELETED.start, HAND_DELETED.end])?;
        Ok(ObserveFixture { store, path })
    }

    /// `n` entries of `kind` numbered from `from`, with every field any kind takes.
    fn entries(from: i64, n: i64) -> Vec<Value> {
        let levels = ["debug", "log", "info", "warn", "error"];
        let big = "é".repeat(3_000);
        (from..from + n)
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
                    "extra": if i % 100 == 0 { json!(big) } else { json!([i, {"nested": i}]) },
                })
            })
            .collect()
    }

    async fn insert(store: &Store, kind: &'static Kind, from: i64, n: i64) -> Result<(), StoreError> {
        // In requests of at most 1,000 entries, as the extension sends them.
        let mut at = from;
        while at < from + n {
            let batch = (from + n - at).min(1_000);
            let body = json!({ "entries": Self::entries(at, batch) }).to_string();
            let rows = ingest::decode_events(kind, body.as_bytes(), &Limits::default(), 1_700_000_000_000)
                .map_err(|e| StoreError::Invalid(e.to_string()))?;
            store.write_batch(Batch::Events(kind, rows), None, Default::default()).await?;
            at += batch;
        }
        Ok(())
    }

    async fn fill(store: &Store) -> Result<(), StoreError> {
        for kind in kind::KINDS {
            store.set_capacity(kind, FIXTURE_CAPACITY).await?;
            Self::insert(store, kind, 0, FIXTURE_ROWS).await?;
        }
        store.clear(Some(&kind::ACTIONS)).await?;
        Self::insert(store, &kind::ACTIONS, FIXTURE_ROWS, REFILL_ROWS).await?;
        let tabs = ingest::decode_tabs(br#"{"tabId":1,"url":"http://app/","title":"App"}"#, &Limits::default())
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        store.write_batch(Batch::Tabs(tabs), None, Default::default()).await?;
        Ok(())
    }

    /// The state of each ring of the fixture, to check that it has the shape it promises.
    pub fn rings(&self) -> Result<Vec<crate::store::KindStats>, StoreError> {
        self.store.read_blocking(|conn| kind::KINDS.iter().map(|k| crate::store::sql::kind_stats(conn, k)).collect())
    }

    /// Runs `data` as observe arguments against the fixture; checks the answer's shape and size.
    pub fn observe_bytes(&self, data: &[u8]) -> Result<String, String> {
        let args = observe_args_bytes(data)?;
        let max_chars = args.max_chars;
        let answer = self.store.read_blocking(|conn| query::observe(conn, &args));
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
            Err(QueryError::Invalid(message)) => {
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
