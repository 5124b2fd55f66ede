//! The background resolver: one batch at a time, its entries' frames resolved
//! through the cache (a script fetched or revalidated once per batch), decoding
//! on the blocking pool, and the results written into the rows still stored
//! through the writer, in one job per batch.

use std::sync::Arc;

use serde_json::{Map, Value, json};
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
        let mut patches = Vec::with_capacity(job.wanted.len());
        for wanted in &job.wanted {
            let allowed = Allowed::for_page(&wanted.page_url, &capture, self.server_port);
            let page = Url::parse(&wanted.page_url).ok();
            let mut patch = Map::new();
            if let Some(location) = &wanted.location {
                match self.resolve(location, &allowed, page.as_ref()).await {
                    Ok(original) => patch.insert("original".into(), json!(original)),
                    Err(why) => patch.insert("sourcemap".into(), json!(why.to_string())),
                };
            }
            if !wanted.frames.is_empty() {
                let mut frames = Vec::with_capacity(wanted.frames.len());
                for frame in &wanted.frames {
                    let mut out = Map::new();
                    out.insert("at".into(), json!(frame.at));
                    if let Some(function) = &frame.function {
                        out.insert("fn".into(), json!(function));
                    }
                    match self.resolve(frame, &allowed, page.as_ref()).await {
                        Ok(original) => out.insert("original".into(), json!(original)),
                        Err(why) => out.insert("sourcemap".into(), json!(why.to_string())),
                    };
                    frames.push(Value::Object(out));
                }
                patch.insert("frames".into(), Value::Array(frames));
            }
            let id = job.first_id + wanted.index as i64;
            patches.push((id, Value::Object(patch).to_string()));
        }
        let bytes = patches.iter().map(|(_, p)| p.len() + 64).sum();
        let admission = self.store.admit(bytes).await?;
        self.store.patch_data(&kind::LOGS, patches, admission).await?;
        Ok(())
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
