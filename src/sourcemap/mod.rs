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
mod fetch;
pub mod frames;
pub mod locate;
pub mod lookup;
pub mod parse;
pub mod scope;
mod worker;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// No map: none named, or the script or map could not be fetched (404, refused).
    #[error("not found")]
    NotFound,
    /// The map is not a source map, or names sources or names it does not hold.
    #[error("invalid")]
    Invalid,
    /// The script or map is over 20 MiB, or declares too many mappings.
    #[error("too large")]
    TooLarge,
    /// The map has no mapping for the frame's position.
    #[error("out of range")]
    OutOfRange,
    /// The script or map is not on the page's origin, or the page is outside the capture scope.
    #[error("not in scope")]
    NotInScope,
    /// The dev server did not answer in time.
    #[error("timed out")]
    TimedOut,
}

/// Batches waiting for the resolver; past this, new ones are not resolved.
pub const QUEUE: usize = 64;

/// The frames of one stored entry to resolve.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// The entry's position in its batch (its id is the batch's first id plus this).
    pub index: usize,
    /// The page that logged it: fetches go only to its origin.
    pub page_url: String,
    pub location: Option<Frame>,
    pub frames: Vec<Frame>,
}

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, default)]
    location: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stack: Option<Cow<'a, str>>,
}

/// The entries of a `logs` batch that have a call site or a stack to resolve.
/// Other kinds have none.
pub fn wanted(kind: &Kind, rows: &[Row]) -> Vec<Wanted> {
    if kind.name != crate::kind::LOGS.name {
        return Vec::new();
    }
    let Some(url_column) = kind.columns.iter().position(|c| c.name == "url") else { return Vec::new() };
    rows.iter()
        .enumerate()
        .filter_map(|(index, row)| {
            // Most entries have neither: skip them without decoding.
            if !row.data.contains("\"location\"") && !row.data.contains("\"stack\"") {
                return None;
            }
            let SqlValue::Text(page_url) = row.columns.get(url_column)? else { return None };
            let fields: Fields = serde_json::from_str(&row.data).ok()?;
            let location = fields.location.as_deref().and_then(frames::location_frame);
            let frames = fields.stack.as_deref().map(frames::stack_frames).unwrap_or_default();
            (location.is_some() || !frames.is_empty()).then(|| Wanted {
                index,
                page_url: page_url.clone(),
                location,
                frames,
            })
        })
        .collect()
}

/// One stored batch's entries to resolve.
struct Job {
    first_id: i64,
    wanted: Vec<Wanted>,
}

/// The handle ingest hands stored entries to; cheap to clone.
#[derive(Clone)]
pub struct Resolver {
    tx: Option<mpsc::Sender<Job>>,
    dropped: Arc<AtomicU64>,
}

impl Resolver {
    /// Starts the background resolver on the current Tokio runtime; a resolver
    /// that resolves nothing when there is no runtime or no HTTP client.
    pub fn start(store: Store, server_port: u16) -> Resolver {
        let dropped = Arc::new(AtomicU64::new(0));
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return Resolver { tx: None, dropped } };
        let worker = match worker::Worker::new(store, server_port) {
            Ok(worker) => worker,
            Err(e) => {
                tracing::warn!("source maps will not be resolved: {e}");
                return Resolver { tx: None, dropped };
            }
        };
        let (tx, rx) = mpsc::channel(QUEUE);
        runtime.spawn(worker.run(rx));
        Resolver { tx: Some(tx), dropped }
    }

    /// Queues the entries of a batch stored from `first_id` on; never waits.
    pub fn submit(&self, first_id: i64, wanted: Vec<Wanted>) {
        let Some(tx) = &self.tx else { return };
        if wanted.is_empty() {
            return;
        }
        if tx.try_send(Job { first_id, wanted }).is_err() {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!("source maps: {n} batches left unresolved (the resolver is behind)");
            }
        }
    }
}
