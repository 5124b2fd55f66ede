//! The background resolver: one batch at a time, its entries' frames resolved
//! through the cache (a script fetched or revalidated once per batch), decoding
//! on the blocking pool, and the results written into the rows still stored
//! through the writer, in one job per batch.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;
use url::Url;

use super::cache::{Cache, Entry, Loaded};
use super::fetch::{Fetched, Fetcher, Validators};
use super::frames::Frame;
use super::locate::{self, MapRef};
use super::lookup::{self, Original};
use super::parse;
use super::scope::{self, Allowed};
use super::{Job, Unmapped};
use crate::capture::Capture;
use crate::kind;
use crate::store::{Store, StoreError};

pub struct Worker {
    store: Store,
    fetcher: Fetcher,
    cache: Cache,
    server_port: u16,
    /// Batches handled so far: what a cache entry was last confirmed in.
    jobs: u64,
}

impl Worker {
    pub fn new(store: Store, server_port: u16) -> Result<Worker, reqwest::Error> {
        Ok(Worker { store, fetcher: Fetcher::new()?, cache: Cache::default(), server_port, jobs: 0 })
    }

    pub async fn run(mut self, mut rx: mpsc::Receiver<Job>) {
        while let Some(job) = rx.recv().await {
            match self.job(job).await {
                Ok(()) | Err(StoreError::Closed) => {}
                Err(e) => tracing::warn!("source maps: results not stored: {e}"),
            }
        }
    }

    async fn job(&mut self, job: Job) -> Result<(), StoreError> {
        self.jobs += 1;
        let capture: Capture = self.store.read(scope::read_capture).await?;
        // Entries of a batch share pages and often positions (a log line in a loop): each page's
        // scope and each position's result is worked out once per batch, as JSON text.
        let mut pages: HashMap<&str, (Allowed, Option<Url>)> = HashMap::new();
        let mut results: HashMap<(&str, &str, u32, u32), String> = HashMap::new();
        let mut patches = Vec::with_capacity(job.wanted.len());
        for wanted in &job.wanted {
            let page_url = wanted.page_url.as_str();
            if !pages.contains_key(page_url) {
                let allowed = Allowed::for_page(page_url, &capture, self.server_port);
                pages.insert(page_url, (allowed, Url::parse(page_url).ok()));
            }
            let Some((allowed, page)) = pages.get(page_url) else { continue };
            let mut patch = String::from("{");
            if let Some(location) = &wanted.location {
                patch.push_str(&self.result(&mut results, page_url, location, allowed, page.as_ref()).await);
            }
            if !wanted.frames.is_empty() {
                if patch.len() > 1 {
                    patch.push(',');
                }
                patch.push_str("\"frames\":[");
                for (i, frame) in wanted.frames.iter().enumerate() {
                    if i > 0 {
                        patch.push(',');
                    }
                    patch.push_str(&format!("{{\"at\":{}", json!(frame.at)));
                    if let Some(function) = &frame.function {
                        patch.push_str(&format!(",\"fn\":{}", json!(function)));
                    }
                    patch.push(',');
                    patch.push_str(&self.result(&mut results, page_url, frame, allowed, page.as_ref()).await);
                    patch.push('}');
                }
                patch.push(']');
            }
            patch.push('}');
            patches.push((job.first_id + wanted.index as i64, patch));
        }
        let bytes = patches.iter().map(|(_, p)| p.len() + 64).sum();
        let admission = self.store.admit(bytes).await?;
        self.store.patch_data(&kind::LOGS, &["original", "sourcemap", "frames"], patches, admission).await?;
        Ok(())
    }

    /// `"original":{…}` or `"sourcemap":"…"` for a frame of an entry of `page_url`, worked out
    /// once per batch.
    async fn result<'j>(
        &mut self,
        results: &mut HashMap<(&'j str, &'j str, u32, u32), String>,
        page_url: &'j str,
        frame: &'j Frame,
        allowed: &Allowed,
        page: Option<&Url>,
    ) -> String {
        let key = (page_url, frame.url.as_str(), frame.line, frame.column);
        if let Some(known) = results.get(&key) {
            return known.clone();
        }
        let text = match self.resolve(frame, allowed, page).await {
            Ok(original) => format!("\"original\":{}", json!(original)),
            Err(why) => format!("\"sourcemap\":{}", json!(why.to_string())),
        };
        results.insert(key, text.clone());
        text
    }

    async fn resolve(&mut self, frame: &Frame, allowed: &Allowed, page: Option<&Url>) -> Result<Original, Unmapped> {
        let page = page.ok_or(Unmapped::NotInScope)?;
        let url = Url::parse(&frame.url).map_err(|_| Unmapped::NotInScope)?;
        if !allowed.permits(&url) {
            return Err(Unmapped::NotInScope);
        }
        let loaded = self.script(&url, allowed).await?;
        let (line, column) = (frame.line, frame.column);
        lookup::lookup(&loaded.parsed.map, line, column, &loaded.map_url, page)
    }

    /// The decoded map of the script at `url`: remembered, revalidated, or fetched.
    async fn script(&mut self, url: &Url, allowed: &Allowed) -> Result<Arc<Loaded>, Unmapped> {
        let key = url.as_str();
        let cached = self.cache.get(key);
        if let Some(entry) = &cached
            && entry.is_fresh(self.jobs)
        {
            return entry.outcome.clone();
        }
        let known = cached.as_ref().map(|e| &e.script).filter(|v| !v.is_empty());
        let entry = match self.fetcher.get(url, allowed, known).await {
            Ok(Fetched::NotModified) => match cached {
                Some(entry) => self.revalidate_map(entry, allowed).await,
                None => return Err(Unmapped::NotFound),
            },
            Ok(Fetched::Body(body)) => {
                let script = body.validators.clone();
                let (map, outcome) = self.load(body, allowed).await;
                Entry { script, map, outcome, checked_in: self.jobs }
            }
            // Nothing was asked of the network: nothing to remember.
            Err(Unmapped::NotInScope) => return Err(Unmapped::NotInScope),
            Err(why) => Entry { script: Validators::default(), map: None, outcome: Err(why), checked_in: self.jobs },
        };
        let outcome = entry.outcome.clone();
        self.cache.put(key, entry);
        outcome
    }

    /// A script unchanged: its external map may still have changed.
    async fn revalidate_map(&mut self, mut entry: Entry, allowed: &Allowed) -> Entry {
        entry.checked_in = self.jobs;
        let Some((map_url, validators)) = entry.map.clone() else { return entry };
        let known = (!validators.is_empty()).then_some(&validators);
        match self.fetcher.get(&map_url, allowed, known).await {
            Ok(Fetched::NotModified) => entry,
            Ok(Fetched::Body(body)) => {
                let validators = body.validators.clone();
                entry.outcome = decode(body.bytes, map_url.clone()).await;
                entry.map = Some((map_url, validators));
                entry
            }
            Err(why) => {
                entry.outcome = Err(why);
                entry
            }
        }
    }

    /// A script's body → its map, fetched if external.
    async fn load(
        &mut self,
        body: super::fetch::Body,
        allowed: &Allowed,
    ) -> (Option<(Url, Validators)>, Result<Arc<Loaded>, Unmapped>) {
        let script_url = body.url.clone();
        let reference = tokio::task::spawn_blocking(move || {
            let text = String::from_utf8_lossy(&body.bytes);
            let reference = locate::map_reference(body.sourcemap_header.as_deref(), &text).ok_or(Unmapped::NotFound)?;
            locate::resolve(reference, &body.url)
        })
        .await
        .unwrap_or(Err(Unmapped::Invalid));
        match reference {
            Err(why) => (None, Err(why)),
            Ok(MapRef::Inline(bytes)) => (None, decode(bytes, script_url).await),
            Ok(MapRef::Url(map_url)) => match self.fetcher.get(&map_url, allowed, None).await {
                Ok(Fetched::Body(map)) => {
                    let validators = map.validators.clone();
                    let outcome = decode(map.bytes, map.url).await;
                    (Some((map_url, validators)), outcome)
                }
                Ok(Fetched::NotModified) => (None, Err(Unmapped::NotFound)),
                Err(why) => (None, Err(why)),
            },
        }
    }
}

/// Decodes a map on the blocking pool.
async fn decode(bytes: Vec<u8>, map_url: Url) -> Result<Arc<Loaded>, Unmapped> {
    tokio::task::spawn_blocking(move || parse::parse(&bytes).map(|parsed| Arc::new(Loaded { parsed, map_url })))
        .await
        .unwrap_or(Err(Unmapped::Invalid))
}
