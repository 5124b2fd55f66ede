//! Source-mapped frames: every frame of a logs entry's `stack` and its call
//! site (`location`) mapped back to the original source through the script's
//! source map, stored beside the raw frame.
//!
//! Resolution happens in the server, after the batch is stored: ingest picks
//! out the entries with frames ([`wanted`], while decoding the body), and once
//! the batch has committed (and been acknowledged), hands them to a bounded
//! background [`Resolver`]. It fetches scripts and maps from the page's own
//! origin while it is in the capture scope ([`scope`]), decodes maps with
//! Sentry's parser under guards ([`parse`]), looks positions up ([`lookup`]),
//! remembers maps by URL and validators ([`cache`]) and writes the result into
//! the rows' `data` through the single writer (`Store::patch_data`), if they
//! are still stored. Ingest never waits on the network; a full queue drops
//! the work (the entries keep their raw frames).
//!
//! What an entry gets (`docs/sourcemaps.md`):
//! - `original`: where `location` came from, or `sourcemap`: why it has none;
//! - `frames`: one object per script frame of `stack`, `{at, fn, original}` or
//!   `{at, fn, sourcemap}`.

mod cache;
pub mod eval_module;
mod fetch;
pub mod frames;
pub mod function_name;
pub mod locate;
pub mod lookup;
pub mod parse;
pub mod scope;
mod secrets;
mod vite_base;
mod worker;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rusqlite::types::Value as SqlValue;
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::ingest::Row;
use crate::kind::Kind;
use crate::store::Store;
use frames::Frame;

/// Why a frame has no original position; stored as `sourcemap` beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unmapped {
    /// No map: none named, or the script or map could not be fetched (404).
    #[error("not found")]
    NotFound,
    /// Said as [`Unmapped::NotFound`]: nothing answered (nothing listening, the connection
    /// dropped). What was read of a bundle before still holds, and it is read again next time:
    /// the dev server may be back (a Module Federation remote restarted).
    #[error("not found")]
    Unreachable,
    /// The map is not a source map, or names sources or names it does not hold.
    #[error("invalid")]
    Invalid,
    /// The script or map is over 20 MiB, or declares too many mappings.
    #[error("too large")]
    TooLarge,
    /// The map has no mapping for the frame's position.
    #[error("out of range")]
    OutOfRange,
    /// The position comes before the map's first mapping: the bundler's own code ahead of the
    /// modules it maps (esbuild's helpers), of no source.
    #[error("{}", crate::kind::BUNDLER_CODE_REASON)]
    BundlerCode,
    /// The script or map is not on the page's origin, or the page is outside the capture scope.
    #[error("{}", crate::kind::NOT_IN_SCOPE_REASON)]
    NotInScope,
    /// The dev server did not answer in time.
    #[error("timed out")]
    TimedOut,
    /// A script inline in the page's own document: its "script" is the page, and fetching the
    /// page would run its server-side view again (a GET with side effects, or another page than
    /// the one a POST answered), so it is not fetched.
    #[error("inline in the page")]
    Inline,
    /// Code a Turbopack hot update ran through `eval`: its frames name the chunk's URL with the
    /// module's `?id=`, which serves the whole updated chunk, not the code that ran. Mapping it
    /// would name a wrong line with confidence; a reload maps it.
    #[error("{}", crate::kind::HOT_UPDATE_REASON)]
    HotUpdate,
    /// The page ran a version of the script the dev server no longer serves (the file was saved
    /// again between the entry and its resolution): the map at hand would name a wrong line.
    #[error("changed since it ran")]
    Changed,
    /// A module webpack ran through `eval` whose name more than one build on the page holds with
    /// other code (Module Federation's host and remote each have a `./src/api.ts`), and the
    /// entry's other frames do not tell which ran: mapping it through either would name a wrong
    /// file with confidence.
    #[error("ambiguous")]
    Ambiguous,
}

/// An entry with a frame of an eval'd module whose bundle was not found is tried once more
/// after this long, before anything is written: a page's urgent error can reach the server
/// before the rows of the scripts it loaded, where the bundle is looked for.
pub const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(2);
/// Tries in all for an entry whose tab has no script known yet at all: its rows are late (a
/// busy machine), so it is tried again after 2, 4 and 8 s before it is said `not found`.
pub const MOST_TRIES: u8 = 4;

/// The environment variable that turns resolution off (`off`, `0` or `false`).
pub const OFF_VAR: &str = "GASOLINE_SOURCEMAPS";

/// Batches waiting for the resolver; past this, new ones are not resolved.
pub const QUEUE: usize = 64;
/// Bytes of frames waiting for the resolver (what [`Wanted::size`] counts); past this, new
/// batches are not resolved either: a queue of batches alone would not bound memory.
pub const QUEUE_BYTES: usize = 16 * 1024 * 1024;

/// The frames of one stored entry to resolve.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// The entry's position in its batch (its id is the batch's first id plus this).
    pub index: usize,
    /// The page that logged it: fetches go only to its origin.
    pub page_url: String,
    /// Logged or thrown by a worker (deep mode): `page_url` is then the worker's script, not a
    /// document, and a frame of that script is no script inline in a page.
    pub in_worker: bool,
    /// Its tab, whose scripts may hold the modules webpack runs through `eval`, and whose loads of
    /// a script tell which version of it ran.
    pub tab_id: Option<i64>,
    /// When it happened (ms since the epoch): the load of a script before it is the one that ran.
    pub ts: i64,
    /// Tries made before this one ([`RETRY_AFTER`], [`MOST_TRIES`]).
    pub tries: u8,
    pub location: Option<Frame>,
    pub frames: Vec<Frame>,
}

impl Wanted {
    /// About the bytes it holds.
    pub fn size(&self) -> usize {
        let frame = |f: &Frame| 64 + f.at.len() + f.url.len() + f.function.as_ref().map_or(0, String::len);
        64 + self.page_url.len()
            + self.location.iter().map(frame).sum::<usize>()
            + self.frames.iter().map(frame).sum::<usize>()
    }
}

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, default)]
    location: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stack: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    callers: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    worker: Option<Cow<'a, str>>,
}

/// The entries of a batch that have a call site or a stack to resolve: of a kind whose entries
/// carry script positions ([`Kind::frames_page`]: a log line, a failed request), with their page.
pub fn wanted(kind: &Kind, rows: &[Row]) -> Vec<Wanted> {
    let Some(page_field) = kind.frames_page else { return Vec::new() };
    let page_column = kind.columns.iter().position(|c| c.field == page_field);
    rows.iter()
        .enumerate()
        .filter_map(|(index, row)| {
            // Most entries have neither (callers come only with a location): skip them without decoding.
            if !row.data.contains("\"location\"") && !row.data.contains("\"stack\"") {
                return None;
            }
            let fields: Fields = serde_json::from_str(&row.data).ok()?;
            let page_url = match page_column {
                Some(i) => match row.columns.get(i)? {
                    SqlValue::Text(url) => url.clone(),
                    _ => return None,
                },
                // Named in `data` (a failed request's `pageUrl`).
                None => {
                    serde_json::from_str::<serde_json::Value>(&row.data).ok()?.get(page_field)?.as_str()?.to_string()
                }
            };
            let location = fields.location.as_deref().and_then(frames::location_frame);
            // A console call's callers stand in for a stack it does not have: the page's own frame
            // is found among them when the call site is a library's wrapper of the console.
            let frames = match (fields.stack.as_deref(), fields.callers.as_deref()) {
                (Some(stack), _) => frames::stack_frames(stack),
                (None, Some(callers)) => frames::caller_frames(callers),
                (None, None) => Vec::new(),
            };
            (location.is_some() || !frames.is_empty()).then_some(Wanted {
                index,
                page_url,
                in_worker: fields.worker.is_some(),
                tab_id: row.tab_id,
                ts: row.ts,
                tries: 0,
                location,
                frames,
            })
        })
        .collect()
}

/// One stored batch's entries to resolve, holding its share of the queue's bytes.
struct Job {
    /// The kind the batch was stored in, whose rows the results are written into.
    kind: &'static Kind,
    first_id: i64,
    wanted: Vec<Wanted>,
    _queued: Queued,
}

/// Bytes a job holds in the queue, given back when it is dropped.
struct Queued {
    bytes: usize,
    pending: Arc<AtomicUsize>,
}

impl Queued {
    fn hold(wanted: &[Wanted], pending: &Arc<AtomicUsize>) -> (Queued, usize) {
        let bytes = wanted.iter().map(Wanted::size).sum();
        let before = pending.fetch_add(bytes, Ordering::Relaxed);
        (Queued { bytes, pending: pending.clone() }, before + bytes)
    }
}

/// How the worker queues an entry again ([`RETRY_AFTER`]), without keeping the queue open.
struct Requeue {
    tx: mpsc::WeakSender<Job>,
    pending: Arc<AtomicUsize>,
}

impl Requeue {
    /// Queues `wanted` of the batch stored from `first_id` again, after [`RETRY_AFTER`] doubled
    /// for each try already made, if the queue is still open and has room then.
    fn later(&self, kind: &'static Kind, first_id: i64, wanted: Vec<Wanted>) {
        let (tx, pending) = (self.tx.clone(), self.pending.clone());
        let tries = wanted.iter().map(|w| w.tries).max().unwrap_or(1).clamp(1, MOST_TRIES);
        let wait = RETRY_AFTER * (1 << (tries - 1));
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let Some(tx) = tx.upgrade() else { return };
            let (queued, total) = Queued::hold(&wanted, &pending);
            if total <= QUEUE_BYTES {
                let _ = tx.try_send(Job { kind, first_id, wanted, _queued: queued });
            }
        });
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.pending.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// The handle ingest hands stored entries to; cheap to clone.
#[derive(Clone)]
pub struct Resolver {
    tx: Option<mpsc::Sender<Job>>,
    dropped: Arc<AtomicU64>,
    pending: Arc<AtomicUsize>,
}

impl Resolver {
    /// Starts the background resolver on the current Tokio runtime; a resolver
    /// that resolves nothing when there is no runtime or no HTTP client, or when
    /// the environment says `GASOLINE_SOURCEMAPS=off` (the server then fetches nothing).
    pub fn start(store: Store, server_port: u16) -> Resolver {
        let dropped = Arc::new(AtomicU64::new(0));
        let pending = Arc::new(AtomicUsize::new(0));
        let off = std::env::var(OFF_VAR).is_ok_and(|v| matches!(v.as_str(), "off" | "0" | "false"));
        let runtime = tokio::runtime::Handle::try_current().ok().filter(|_| !off);
        let Some(runtime) = runtime else { return Resolver { tx: None, dropped, pending } };
        let (tx, rx) = mpsc::channel(QUEUE);
        let requeue = Requeue { tx: tx.downgrade(), pending: pending.clone() };
        let worker = match worker::Worker::new(store, server_port, requeue) {
            Ok(worker) => worker,
            Err(e) => {
                tracing::warn!("source maps will not be resolved: {e}");
                return Resolver { tx: None, dropped, pending };
            }
        };
        runtime.spawn(worker.run(rx));
        Resolver { tx: Some(tx), dropped, pending }
    }

    /// Queues the entries of a batch of `kind` stored from `first_id` on; never waits.
    pub fn submit(&self, kind: &'static Kind, first_id: i64, wanted: Vec<Wanted>) {
        let Some(tx) = &self.tx else { return };
        if wanted.is_empty() {
            return;
        }
        let (queued, total) = Queued::hold(&wanted, &self.pending);
        if total > QUEUE_BYTES || tx.try_send(Job { kind, first_id, wanted, _queued: queued }).is_err() {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!("source maps: {n} batches left unresolved (the resolver is behind)");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Limits, decode_events};
    use crate::kind::{LOGS, NETWORK_WATERFALL};

    #[test]
    fn entries_with_a_call_site_or_a_stack_and_their_page_are_wanted() {
        let body = r#"{"entries":[
            {"ts":1,"level":"log","message":"plain","url":"http://localhost:5173/"},
            {"ts":2,"level":"warn","message":"w","url":"http://localhost:5173/","location":"http://localhost:5173/src/App.jsx?t=1:7:11"},
            {"ts":3,"level":"error","message":"e","url":"http://localhost:5173/","source":"exception",
             "stack":"Error: e\n    at App (http://localhost:5173/src/App.jsx:9:11)\n    at native (<anonymous>)"},
            {"ts":4,"level":"log","message":"a \"location\" in the text only","url":"http://localhost:5173/"},
            {"ts":6,"level":"warn","message":"wrapped","url":"http://localhost:5173/","location":"http://localhost:5173/lib.js:2:3",
             "callers":"http://localhost:5173/src/App.jsx:7:11\nhttp://localhost:5173/src/main.jsx:3:1"},
            {"ts":5,"level":"log","message":"no url","location":"http://localhost:5173/a.js:1:1"}
        ]}"#;
        let rows = decode_events(&LOGS, body.as_bytes(), &Limits::default(), 0).expect("a batch");
        let wanted = wanted(&LOGS, &rows);
        let got: Vec<(usize, bool, usize)> =
            wanted.iter().map(|w| (w.index, w.location.is_some(), w.frames.len())).collect();
        assert_eq!(got, [(1, true, 0), (2, false, 1), (4, true, 2)]);
        assert_eq!(wanted[2].frames[0].url, "http://localhost:5173/src/App.jsx");
        assert_eq!(wanted[0].page_url, "http://localhost:5173/");
        assert!(wanted[1].size() > 64);
        // A failed request's call site, in the code of the page its row names; a row that names
        // no page has nothing to be mapped through.
        let requests = decode_events(
            &NETWORK_WATERFALL,
            br#"{"entries":[
                {"ts":1,"url":"http://localhost/api/cart","failed":true,"location":"http://localhost/a.js:1:1"},
                {"ts":2,"url":"http://localhost/api/cart","responseStatus":500,"pageUrl":"http://localhost/shop",
                 "location":"http://localhost/a.js:3:4","callers":"http://localhost/src/cart.js:7:2"}
            ]}"#,
            &Limits::default(),
            0,
        )
        .expect("a batch");
        let wanted = super::wanted(&NETWORK_WATERFALL, &requests);
        assert_eq!(wanted.len(), 1);
        assert_eq!((wanted[0].index, wanted[0].page_url.as_str()), (1, "http://localhost/shop"));
        assert_eq!(wanted[0].location.as_ref().map(|f| f.line), Some(3));
        assert_eq!(wanted[0].frames[0].url, "http://localhost/src/cart.js");
        let bodies = decode_events(
            &crate::kind::NETWORK_BODIES,
            br#"{"entries":[{"ts":1,"method":"GET","url":"http://localhost/x","pageUrl":"http://localhost/","location":"http://localhost/a.js:1:1"}]}"#,
            &Limits::default(),
            0,
        )
        .expect("a batch");
        assert!(super::wanted(&crate::kind::NETWORK_BODIES, &bodies).is_empty(), "bodies carry no call site");
    }
}
