//! The background resolver: one batch at a time, its entries' frames resolved
//! through the cache (a script fetched or revalidated once per batch), decoding
//! on the blocking pool, and the results written into the rows still stored
//! through the writer, in one job per batch.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use sourcemap::SourceView;
use tokio::sync::mpsc;
use url::Url;

use super::cache::{Cache, Entry, Loaded};
use super::eval_module::{self, Bundle, Bundles, Indexed, Indexes};
use super::fetch::{Fetched, Fetcher, Validators};
use super::frames::Frame;
use super::function_name;
use super::locate::{self, MapRef};
use super::lookup::{self, Original};
use super::parse;
use super::scope::{self, Allowed};
use super::vite_base;
use super::{Job, Requeue, Unmapped, Wanted};
use crate::capture::Capture;

use crate::store::{Store, StoreError, sql};

pub struct Worker {
    store: Store,
    fetcher: Fetcher,
    cache: Cache,
    server_port: u16,
    /// Batches handled so far: what a cache entry was last confirmed in.
    jobs: u64,
    /// Bundles holding eval'd modules, and which bundle held a module last (eval_module.rs).
    bundles: Bundles,
    homes: HashMap<String, Url>,
    /// Scripts that hold no eval'd module (or are no script: a 404), and when: not asked again
    /// for [`PASSED_FOR`] (a page logging frames of a module it does not have must not make
    /// every batch fetch its tab's scripts again).
    passed: HashMap<String, Instant>,
    /// Reads of a bundle that failed (its dev server stopped, or did not answer) so far: a module
    /// not found while one failed is not remembered as missing, nor its scripts as passed, so
    /// that a dev server started again (a remote of a Module Federation host) is read again.
    failed_reads: u64,
    /// The eval'd modules each script held when last read, and the batch it was read in: kept
    /// when the script's text is not, so that a module is not looked for in every script again.
    indexes: Indexes,
    /// Modules looked for and not found, when, and among which scripts ([`MISSING_FOR`]).
    missing: HashMap<String, (Instant, u64)>,
    /// When the scripts of each origin were last read again for a module not found ([`REFRESH_EVERY`]).
    refreshed: HashMap<String, Instant>,
    /// Within the batch at hand: the scripts of each tab.
    tab_scripts: HashMap<i64, Vec<String>>,
    /// Within the batch at hand: a tab's latest loads of a script (time, length), newest first.
    loads: HashMap<(i64, String), Vec<(i64, u64)>>,
    /// Whether an origin's dev server serves Vite's client under a folder (`<origin> <folder>`):
    /// that folder is its base, not a folder of the app.
    vite_bases: HashMap<String, bool>,
    requeue: Requeue,
}

/// A frame's result within a batch: its page, script, line and column, the function the stack
/// names there (whose original name the result holds), and the length of the script the page ran
/// where the script was seen to change ([`Entry::as_run`]).
/// A frame's result within a batch: its page, URL, position, function, which load of the script
/// ran, and for an eval'd module the app modules its entry names ([`app_modules`]), which may tell
/// which build ran it.
type ResultKey<'j> = (&'j str, &'j str, u32, u32, Option<&'j str>, Option<u64>, u64);

/// Most modules (or scripts, or origins) each of the resolver's small maps remembers: past it,
/// the map starts again empty.
const MAX_REMEMBERED: usize = 4096;

/// `map[key] = value`, the map emptied first when it is full.
fn remember<V>(map: &mut HashMap<String, V>, key: String, value: V) {
    if map.len() >= MAX_REMEMBERED && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, value);
}

/// Why a frame has no original, as the resolver tells it: a reason, or a module webpack ran
/// through eval that none of the scripts known yet holds (stored as `not found` once the entry
/// was tried again after [`super::RETRY_AFTER`]), or whose tab has no script known yet at all
/// (tried again up to [`super::MOST_TRIES`] times: its rows are late).
enum Miss {
    Unmapped(Unmapped),
    NotYetFound,
    NoScriptYet,
}

/// How many tries in all a frame's miss deserves: one (a reason), two (a module not found in the
/// scripts known), or [`super::MOST_TRIES`] (no script of its tab known yet).
fn tries_for(miss: Option<&Miss>) -> u8 {
    match miss {
        None | Some(Miss::Unmapped(_)) => 1,
        Some(Miss::NotYetFound) => 2,
        Some(Miss::NoScriptYet) => super::MOST_TRIES,
    }
}

impl From<Unmapped> for Miss {
    fn from(why: Unmapped) -> Miss {
        Miss::Unmapped(why)
    }
}
/// How long a script found to hold no eval'd module is passed over.
const PASSED_FOR: Duration = Duration::from_secs(30);
/// How long a module not found among the same scripts is not looked for again.
const MISSING_FOR: Duration = Duration::from_secs(30);
/// How often the scripts of an origin are read again for a module none of them held.
const REFRESH_EVERY: Duration = Duration::from_secs(10);

impl Worker {
    pub fn new(store: Store, server_port: u16, requeue: Requeue) -> Result<Worker, reqwest::Error> {
        Ok(Worker {
            store,
            fetcher: Fetcher::new()?,
            cache: Cache::default(),
            server_port,
            jobs: 0,
            bundles: Bundles::default(),
            homes: HashMap::new(),
            failed_reads: 0,
            passed: HashMap::new(),
            indexes: Indexes::default(),
            missing: HashMap::new(),
            refreshed: HashMap::new(),
            tab_scripts: HashMap::new(),
            loads: HashMap::new(),
            vite_bases: HashMap::new(),
            requeue,
        })
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
        self.passed.retain(|_, at| at.elapsed() < PASSED_FOR);
        self.tab_scripts.clear();
        self.loads.clear();
        let capture: Arc<Capture> = Arc::new(self.store.read(scope::read_capture).await?);
        // Entries of a batch share pages and often positions (a log line in a loop): each page's
        // scope and each position's result is worked out once per batch, as JSON text.
        let mut pages: HashMap<&str, (Allowed, Option<Url>)> = HashMap::new();
        let mut results: HashMap<ResultKey, (String, u8)> = HashMap::new();
        let mut patches = Vec::with_capacity(job.wanted.len());
        let mut later = Vec::new();
        for wanted in &job.wanted {
            let mut tries = 1; // tries its frames deserve: more for an eval'd module not found yet
            let page_url = wanted.page_url.as_str();
            if !pages.contains_key(page_url) {
                let allowed = Allowed::for_page(page_url, &capture, self.server_port);
                pages.insert(page_url, (allowed, Url::parse(page_url).ok()));
            }
            let Some((allowed, page)) = pages.get(page_url) else { continue };
            let mut patch = String::from("{");
            if let Some(location) = &wanted.location {
                let (text, deserves) = self.result(&mut results, wanted, location, allowed, page.as_ref()).await;
                tries = tries.max(deserves);
                patch.push_str(&text);
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
                    let (text, deserves) = self.result(&mut results, wanted, frame, allowed, page.as_ref()).await;
                    tries = tries.max(deserves);
                    patch.push_str(&text);
                    patch.push('}');
                }
                patch.push(']');
            }
            patch.push('}');
            if wanted.tries + 1 < tries {
                later.push(Wanted { tries: wanted.tries + 1, ..wanted.clone() });
                continue;
            }
            patches.push((job.first_id + wanted.index as i64, patch));
        }
        if !later.is_empty() {
            self.requeue.later(job.kind, job.first_id, later);
        }
        let bytes = patches.iter().map(|(_, p)| p.len() + 64).sum();
        let admission = self.store.admit(bytes).await?;
        self.store.patch_data(job.kind, &["original", "sourcemap", "frames"], patches, admission).await?;
        Ok(())
    }

    /// `"original":{…}` or `"sourcemap":"…"` for a frame of an entry of `page_url`, worked out
    /// once per batch, and the tries in all its answer deserves ([`tries_for`]).
    async fn result<'j>(
        &mut self,
        results: &mut HashMap<ResultKey<'j>, (String, u8)>,
        wanted: &'j Wanted,
        frame: &'j Frame,
        allowed: &Allowed,
        page: Option<&Url>,
    ) -> (String, u8) {
        let ran = self.ran(wanted, &frame.url).await;
        let builds =
            if eval_module::is_eval_module(&frame.url) { fingerprint(&app_modules(wanted).join(" ")) } else { 0 };
        let key = (
            wanted.page_url.as_str(),
            frame.url.as_str(),
            frame.line,
            frame.column,
            frame.function.as_deref(),
            ran,
            builds,
        );
        if let Some(known) = results.get(&key) {
            return known.clone();
        }
        let reason = |why: Unmapped| format!("\"sourcemap\":{}", json!(why.to_string()));
        let result = match self.resolve(wanted, frame, allowed, page).await {
            Ok(original) => (format!("\"original\":{}", json!(original)), tries_for(None)),
            Err(miss) => {
                let tries = tries_for(Some(&miss));
                let why = match miss {
                    Miss::Unmapped(why) => why,
                    Miss::NotYetFound | Miss::NoScriptYet => Unmapped::NotFound,
                };
                (reason(why), tries)
            }
        };
        results.insert(key, result.clone());
        result
    }

    /// The place of a frame of the dev server's own stack, where it is a file the page loaded: a
    /// framework that sends its server's error to the page in development (React Router's loader
    /// error, with its stack) names the file by its path on disk (`/home/ann/app/app/routes/crash.tsx`),
    /// which ends with the path the page loaded it under (`/app/routes/crash.tsx`). Its position is
    /// the source's already (the dev server maps its own stacks); looked up on the page's origin,
    /// where Vite serves files by their path on disk too, it would be read through the browser's
    /// build of the file.
    async fn server_frame(&mut self, wanted: &Wanted, frame: &Frame, page: &Url) -> Option<Original> {
        let tab = wanted.tab_id?;
        let origin = page.origin().ascii_serialization();
        let candidates: Vec<String> = served_paths(&frame.url).iter().map(|p| format!("{origin}{p}")).collect();
        if candidates.is_empty() {
            return None;
        }
        let found = self.store.read(move |conn| sql::first_loaded(conn, tab, &candidates)).await.ok().flatten()?;
        let path = &found[origin.len()..];
        Some(Original::as_written(path.trim_start_matches('/'), frame.line, frame.column))
    }

    async fn resolve(
        &mut self,
        wanted: &Wanted,
        frame: &Frame,
        allowed: &Allowed,
        page: Option<&Url>,
    ) -> Result<Original, Miss> {
        let page = page.ok_or(Unmapped::NotInScope)?;
        if eval_module::is_eval_module(&frame.url) {
            let (loaded, among_builds) = self.eval_module(wanted, &frame.url, allowed).await?;
            let mut original = lookup::lookup(&loaded.parsed.map, frame.line, frame.column, &loaded.map_url, page)?;
            if among_builds {
                original.build = lookup::build_at(&loaded.parsed.map, frame.line, frame.column);
            }
            return Ok(original);
        }
        if let Some(original) = self.server_frame(wanted, frame, page).await {
            return Ok(original);
        }
        let url = frame_url(&frame.url, page)?;
        if !allowed.permits(&url) {
            return Err(Unmapped::NotInScope.into());
        }
        if !wanted.in_worker && same_document(&url, page) {
            return Err(Unmapped::Inline.into());
        }
        if eval_module::is_hot_update(&url) {
            return Err(Unmapped::HotUpdate.into());
        }
        let entry = self.script(&url, allowed).await?;
        // Looked up again: the fetch may just have found the script changed.
        let ran = self.ran(wanted, url.as_str()).await;
        let (loaded, edited) = match entry.as_run(ran) {
            // A webpack bundle whose modules run through `eval` maps only them: a frame of the bundle
            // itself is webpack's runtime (`__webpack_require__`, Module Federation's loading of a
            // remote), code of no source file.
            Err(Unmapped::NotFound) => {
                let bundled = self.indexes.get(url.as_str()).is_some()
                    || (!self.passed.contains_key(url.as_str()) && self.bundle(&url, allowed).await.is_some());
                return Err(if bundled { Unmapped::BundlerCode } else { Unmapped::NotFound }.into());
            }
            outcome => outcome?,
        };
        let (line, column) = (frame.line, frame.column);
        let mut original = lookup::lookup(&loaded.parsed.map, line, column, &loaded.map_url, page)?;
        // The version before ran: an edit of this file only where its text differs now.
        original.edited = edited
            && !entry
                .outcome
                .as_ref()
                .is_ok_and(|now| lookup::same_source_text(&loaded.parsed.map, &now.parsed.map, line, column));
        if let Some(folder) = vite_base::first_folder(&original.source)
            && self.is_vite_base(&url, folder, allowed).await
        {
            original.source = vite_base::without(&original.source, folder);
        }
        if let (Some(function), Some(script)) = (&frame.function, &loaded.script) {
            original.function = function_name::original_function(&loaded.parsed.map, line, column, function, script);
        }
        Ok(original)
    }

    /// The decoded inline map of a module webpack ran through `eval`, from the bundle on the
    /// page's origin that holds the module's string: the bundle that held it last, else the
    /// scripts the entry's own stack names, else those its tab loaded, the newest first.
    /// With it, whether it was told apart from another build's module of the same name.
    async fn eval_module(
        &mut self,
        wanted: &Wanted,
        module: &str,
        allowed: &Allowed,
    ) -> Result<(Arc<Loaded>, bool), Miss> {
        let origin = allowed.origin().ok_or(Unmapped::NotInScope)?.ascii_serialization();
        let home_key = format!("{origin} {module}");
        let candidates = self.candidates(wanted, &home_key, allowed).await;
        if candidates.is_empty() {
            return Err(Miss::NoScriptYet); // no row of the tab's scripts has come yet
        }
        // Scripts of more than one origin may be more than one webpack build (a Module Federation
        // host and its remotes), each with modules of the same names: which one ran is told first.
        if let Some(found) = self.among_builds(wanted, module, &candidates, allowed).await {
            return found.map(|loaded| (loaded, true));
        }
        let failed_before = self.failed_reads;
        let among = fingerprint(&candidates.iter().map(Url::as_str).collect::<Vec<_>>().join(" "));
        // Looked for in these same scripts lately, and not there: not fetched again.
        if self.missing.get(&home_key).is_some_and(|(at, was)| *was == among && at.elapsed() < MISSING_FOR) {
            return Err(Unmapped::NotFound.into());
        }
        // The scripts that may hold it: those known to hold it, and those not read yet.
        for url in &candidates {
            if self.indexes.get(url.as_str()).is_some_and(|known| !known.modules.contains_key(module)) {
                continue;
            }
            if let Some(outcome) = self.look_in(url, module, &home_key, allowed).await {
                return Ok((outcome?, false));
            }
        }
        // A script read before may have been rebuilt with the module since (a new file imported
        // by the bundle): read again, at most once every REFRESH_EVERY per origin.
        if self.refreshed.get(&origin).is_none_or(|at| at.elapsed() >= REFRESH_EVERY) {
            remember(&mut self.refreshed, origin, Instant::now());
            for url in &candidates {
                let read_now = self.indexes.get(url.as_str()).is_some_and(|known| known.job == self.jobs);
                if read_now || self.passed.contains_key(url.as_str()) {
                    continue; // read in this batch already, or holding no eval'd module
                }
                if let Some(outcome) = self.look_in(url, module, &home_key, allowed).await {
                    return Ok((outcome?, false));
                }
            }
        }
        if self.failed_reads == failed_before {
            remember(&mut self.missing, home_key, (Instant::now(), among));
        }
        Err(Miss::NotYetFound) // in none of the scripts known yet: the entry is tried again
    }

    /// Where the tab's scripts come from more than one origin and more than one of those holds a
    /// module of this name with other code: the one holding the most of the modules the entry's
    /// frames name (a remote's `./src/api.ts` called from its `./src/Widget.tsx`, which the host
    /// lacks), else `ambiguous`. None where one build holds it (or none yet): the usual search
    /// goes on, which remembers where it was last.
    async fn among_builds(
        &mut self,
        wanted: &Wanted,
        module: &str,
        candidates: &[Url],
        allowed: &Allowed,
    ) -> Option<Result<Arc<Loaded>, Miss>> {
        let origin_of = |url: &Url| url.origin().ascii_serialization();
        let mut origins: Vec<String> = Vec::new();
        for url in candidates {
            if !origins.contains(&origin_of(url)) {
                origins.push(origin_of(url));
            }
        }
        if origins.len() < 2 {
            return None;
        }
        // Per origin, the first script (the newest) holding the module: an older one holds an
        // older version of it, not another build's.
        let mut holders: Vec<(String, Url, Bundle)> = Vec::new();
        for origin in &origins {
            for url in candidates.iter().filter(|u| origin_of(u) == *origin) {
                if self.indexes.get(url.as_str()).is_some_and(|known| !known.modules.contains_key(module)) {
                    continue;
                }
                if let Some(bundle) = self.bundle(url, allowed).await
                    && bundle.modules.contains_key(module)
                {
                    holders.push((origin.clone(), url.clone(), bundle));
                    break;
                }
            }
        }
        let first_code = holders.first().and_then(|(_, _, b)| b.code_of(module).map(fingerprint));
        if holders.iter().all(|(_, _, b)| b.code_of(module).map(fingerprint) == first_code) {
            return None; // one build holds it, or the same code in each (a shared library)
        }
        // The app's other modules the entry's frames name, and which origin's scripts hold the most.
        let named: Vec<&str> = app_modules(wanted).into_iter().filter(|u| *u != module).collect();
        // Each origin's scripts read once (a script found to hold no eval'd module is passed over).
        let mut scores: Vec<(usize, &Url)> = Vec::new();
        for (origin, url, _) in &holders {
            let scripts: Vec<&Url> = candidates
                .iter()
                .filter(|u| origin_of(u) == *origin && !self.passed.contains_key(u.as_str()))
                .collect();
            let mut held: HashSet<&str> = HashSet::new();
            for script in scripts {
                if let Some(bundle) = self.bundle(script, allowed).await {
                    held.extend(named.iter().copied().filter(|name| bundle.modules.contains_key(*name)));
                }
            }
            scores.push((held.len(), url));
        }
        let best = scores.iter().map(|(held, _)| *held).max().unwrap_or(0);
        let mut winners = scores.iter().filter(|(held, _)| *held == best);
        match (winners.next(), winners.next()) {
            (Some((_, url)), None) if best > 0 => {
                let url = (*url).clone();
                let key = format!("{} {module}", origin_of(&url));
                Some(
                    self.look_in(&url, module, &key, allowed)
                        .await
                        .unwrap_or(Err(Unmapped::NotFound))
                        .map_err(Miss::from),
                )
            }
            _ => Some(Err(Unmapped::Ambiguous.into())),
        }
    }

    /// The module's decoded map if the script at `url` holds the module (`NotFound` when it holds
    /// it without a map); None when it does not hold it or cannot be read.
    async fn look_in(
        &mut self,
        url: &Url,
        module: &str,
        home_key: &str,
        allowed: &Allowed,
    ) -> Option<Result<Arc<Loaded>, Unmapped>> {
        let bundle = self.bundle(url, allowed).await?;
        let Some(reference) = bundle.map_of(module) else {
            // Held there without a map (the plain eval devtool), or not held there.
            return bundle.modules.contains_key(module).then_some(Err(Unmapped::NotFound));
        };
        remember(&mut self.homes, home_key.to_string(), url.clone());
        // A decoded map is remembered by what the bundle says of it, so an edit gets a new one.
        let key = format!("{url}#{module}#{:x}", fingerprint(reference));
        if let Some(entry) = self.cache.get(&key) {
            return Some(entry.outcome);
        }
        // Its sources resolve against the module's own name, not the bundle's URL: Next.js
        // names them by absolute file paths, which are no path of the dev server's origin.
        let base = Url::parse(module).unwrap_or_else(|_| url.clone());
        let outcome = match locate::resolve(reference, url) {
            Ok(MapRef::Inline(bytes)) => decode(bytes, base, None).await,
            Ok(MapRef::Url(_)) => Err(Unmapped::NotFound),
            Err(why) => Err(why),
        };
        self.cache.put(&key, Entry::outcome_only(outcome.clone(), self.jobs));
        Some(outcome)
    }

    /// Where a module may be, in the order tried, each on the page's origin and named once.
    async fn candidates(&mut self, wanted: &Wanted, home_key: &str, allowed: &Allowed) -> Vec<Url> {
        let mut urls: Vec<Url> = self.homes.get(home_key).cloned().into_iter().collect();
        let named = wanted.frames.iter().chain(&wanted.location).map(|f| f.url.clone());
        let loaded = match wanted.tab_id {
            Some(tab) => self.scripts_of(tab).await,
            None => Vec::new(),
        };
        for text in named.chain(loaded) {
            let Ok(url) = Url::parse(&text) else { continue };
            if allowed.permits(&url) && !urls.contains(&url) && !self.passed.contains_key(url.as_str()) {
                urls.push(url);
            }
        }
        urls.truncate(eval_module::MAX_CANDIDATES);
        urls
    }

    /// Whether the dev server that served `script` serves Vite's client under `folder`, asked
    /// once per origin and folder.
    async fn is_vite_base(&mut self, script: &Url, folder: &str, allowed: &Allowed) -> bool {
        let key = format!("{} {folder}", script.origin().ascii_serialization());
        if let Some(known) = self.vite_bases.get(&key) {
            return *known;
        }
        let Some(client) = vite_base::client_url(script, folder) else { return false };
        let is = matches!(self.fetcher.get(&client, allowed, None).await, Ok(Fetched::Body(body)) if vite_base::is_client(&body.bytes));
        remember(&mut self.vite_bases, key, is);
        is
    }

    /// The scripts tab `tab` loaded, read once per batch.
    async fn scripts_of(&mut self, tab: i64) -> Vec<String> {
        if let Some(known) = self.tab_scripts.get(&tab) {
            return known.clone();
        }
        let read = self.store.read(move |conn| eval_module::tab_scripts(conn, tab)).await;
        let scripts = read.unwrap_or_else(|e: StoreError| {
            tracing::warn!("source maps: the tab's scripts could not be read: {e}");
            Vec::new()
        });
        self.tab_scripts.insert(tab, scripts.clone());
        scripts
    }

    /// The bundle at `url`: confirmed in this batch, revalidated, or fetched.
    async fn bundle(&mut self, url: &Url, allowed: &Allowed) -> Option<Bundle> {
        let cached = self.bundles.get(url.as_str());
        if let Some(bundle) = &cached
            && bundle.checked_in == self.jobs
        {
            return cached;
        }
        let known = cached.as_ref().map(|b| &b.validators).filter(|v| !v.is_empty());
        let bundle = match self.fetcher.get(url, allowed, known).await {
            Ok(Fetched::NotModified) => cached.map(|b| Bundle { checked_in: self.jobs, ..b }),
            Ok(Fetched::Body(body)) => {
                let jobs = self.jobs;
                tokio::task::spawn_blocking(move || Bundle::new(body.validators, body.bytes, jobs)).await.ok()
            }
            Err(Unmapped::Unreachable | Unmapped::TimedOut) => {
                // Not answered (nothing listening, timed out): what was read of it before still
                // holds what the page ran, and it is read again next time.
                self.failed_reads += 1;
                return cached;
            }
            Err(_) => None,
        };
        match bundle {
            Some(b) if !b.modules.is_empty() => {
                self.indexes.put(url.as_str(), Indexed::of(&b, self.jobs));
                self.bundles.put(url.as_str(), b.clone());
                Some(b)
            }
            _ => {
                remember(&mut self.passed, url.to_string(), Instant::now());
                None
            }
        }
    }

    /// What is known of the script at `url`: remembered, revalidated, or fetched. A new version of
    /// another length keeps the one before it ([`Entry::before`]).
    async fn script(&mut self, url: &Url, allowed: &Allowed) -> Result<Entry, Unmapped> {
        let key = url.as_str();
        let cached = self.cache.get(key);
        if let Some(entry) = &cached
            && entry.is_fresh(self.jobs)
        {
            return Ok(entry.clone());
        }
        let known = cached.as_ref().map(|e| &e.script).filter(|v| !v.is_empty());
        let entry = match self.fetcher.get(url, allowed, known).await {
            Ok(Fetched::NotModified) => match cached {
                Some(entry) => self.revalidate_map(entry, allowed).await,
                None => return Err(Unmapped::NotFound),
            },
            Ok(Fetched::Body(body)) => {
                let (script, size) = (body.validators.clone(), body.bytes.len());
                let before = match cached {
                    Some(old) if old.size.is_some_and(|was| was != size) => old.version().map(Arc::new),
                    Some(old) => old.before,
                    None => None,
                };
                let (map, outcome) = self.load(body, allowed).await;
                Entry { script, size: Some(size), map, outcome, checked_in: self.jobs, before }
            }
            // Nothing was asked of the network: nothing to remember.
            Err(Unmapped::NotInScope) => return Err(Unmapped::NotInScope),
            // Not served now (Metro answers its bundle 500 while a file does not compile): the
            // version had before is what a page loaded then still runs, kept as the one before.
            Err(why) => Entry {
                before: cached.and_then(|old| old.version().map(Arc::new).or(old.before)),
                ..Entry::outcome_only(Err(why), self.jobs)
            },
        };
        self.cache.put(key, entry.clone());
        Ok(entry)
    }

    /// The length of the script at `url` as the page that made `wanted` loaded it (its tab's latest
    /// load of it before the entry that was given one), looked up only where the script was seen to change: the
    /// version that ran is then told by it ([`Entry::as_run`]).
    async fn ran(&mut self, wanted: &Wanted, url: &str) -> Option<u64> {
        let tab = wanted.tab_id?;
        self.cache.peek(url)?.before.as_ref()?;
        let key = (tab, url.to_string());
        if !self.loads.contains_key(&key) {
            let owned = url.to_string();
            let read = self.store.read(move |conn| sql::script_loads(conn, tab, &owned)).await;
            let loads = read.unwrap_or_else(|e: StoreError| {
                tracing::warn!("source maps: a script's loads could not be read: {e}");
                Vec::new()
            });
            self.loads.insert(key.clone(), loads);
        }
        // A load the browser revalidated (304) is given no length: it ran what the load before it got.
        self.loads.get(&key)?.iter().find(|(ts, size)| *ts <= wanted.ts && *size > 0).map(|(_, size)| *size)
    }

    /// A script unchanged: its external map may still have changed.
    async fn revalidate_map(&mut self, mut entry: Entry, allowed: &Allowed) -> Entry {
        entry.checked_in = self.jobs;
        let Some((map_url, validators)) = entry.map.clone() else { return entry };
        // A map its server gives no validators for is one with its unchanged script: read again it
        // would cost a whole download and parse a batch (Metro's, 8 MB of 850 sections), for
        // nothing. One that could not be had yet is asked for again.
        if validators.is_empty() && entry.outcome.is_ok() {
            return entry;
        }
        let known = (!validators.is_empty()).then_some(&validators);
        match self.fetcher.get(&map_url, allowed, known).await {
            Ok(Fetched::NotModified) => entry,
            Ok(Fetched::Body(body)) => {
                let validators = body.validators.clone();
                let script = entry.outcome.as_ref().ok().and_then(|loaded| loaded.script.clone());
                entry.outcome = decode(body.bytes, map_url.clone(), script).await;
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
        let (reference, script) = tokio::task::spawn_blocking(move || {
            // A WebAssembly module: its map named in a section of its own; no text to keep.
            if locate::is_wasm(&body.bytes) {
                let reference = locate::wasm_map_reference(body.sourcemap_header.as_deref(), &body.bytes)
                    .ok_or(Unmapped::NotFound)
                    .and_then(|reference| locate::resolve(&reference, &body.url));
                return (reference, None);
            }
            // The script's text, moved rather than copied when it is UTF-8 (as scripts are).
            let text =
                String::from_utf8(body.bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            let reference = locate::map_reference(body.sourcemap_header.as_deref(), &text)
                .ok_or(Unmapped::NotFound)
                .and_then(|reference| locate::resolve(reference, &body.url));
            let script =
                (reference.is_ok() && text.len() <= MAX_SCRIPT_KEPT).then(|| Arc::new(SourceView::from_string(text)));
            (reference, script)
        })
        .await
        .unwrap_or((Err(Unmapped::Invalid), None));
        match reference {
            Err(why) => (None, Err(why)),
            Ok(MapRef::Inline(bytes)) => (None, decode(bytes, script_url, script).await),
            Ok(MapRef::Url(map_url)) => match self.fetcher.get(&map_url, allowed, None).await {
                Ok(Fetched::Body(map)) => {
                    let validators = map.validators.clone();
                    let outcome = decode(map.bytes, map.url, script).await;
                    (Some((map_url, validators)), outcome)
                }
                Ok(Fetched::NotModified) => (None, Err(Unmapped::NotFound)),
                // Remembered without validators: the next batch asks for the map again, though
                // the script answers 304 (a map written after its script, a first compile that
                // failed, a dev server slow to answer).
                Err(Unmapped::NotInScope) => (None, Err(Unmapped::NotInScope)),
                Err(why) => (Some((map_url, Validators::default())), Err(why)),
            },
        }
    }
}

/// Largest script whose text is kept beside its map, for the original names of minified
/// functions (the cache's byte budget counts it).
const MAX_SCRIPT_KEPT: usize = 8 * 1024 * 1024;

/// Decodes a map on the blocking pool; the script's text is kept only when the map has names to
/// give back.
async fn decode(bytes: Vec<u8>, map_url: Url, script: Option<Arc<SourceView>>) -> Result<Arc<Loaded>, Unmapped> {
    tokio::task::spawn_blocking(move || {
        parse::parse(&bytes).map(|parsed| {
            let script = script.filter(|_| parse::has_names(&parsed.map));
            Arc::new(Loaded { parsed, map_url, script })
        })
    })
    .await
    .unwrap_or(Err(Unmapped::Invalid))
}

/// A short fingerprint of a text (not for security: a cache key's part).
/// The app's eval'd modules an entry's frames name, sorted, each once: what may tell which of two
/// webpack builds ran a module of a name both hold. A library's (node_modules) tells nothing: a host
/// shares React with its remotes.
fn app_modules(wanted: &Wanted) -> Vec<&str> {
    let mut named: Vec<&str> = wanted
        .frames
        .iter()
        .chain(&wanted.location)
        .map(|f| f.url.as_str())
        .filter(|u| eval_module::is_eval_module(u) && !u.contains("/node_modules/"))
        .collect();
    named.sort_unstable();
    named.dedup();
    named
}

fn fingerprint(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Whether a frame's script is the page's own document (an inline `<script>`): the same URL,
/// fragment aside.
fn same_document(script: &Url, page: &Url) -> bool {
    script[..url::Position::AfterQuery] == page[..url::Position::AfterQuery]
}

/// The paths a path on disk may be served under ([`Worker::server_frame`]): its endings of two
/// folders or more, longest first (`/app/routes/crash.tsx` of `/home/ann/app/app/routes/crash.tsx`),
/// not the whole path.
fn served_paths(path: &str) -> Vec<&str> {
    if !path.starts_with('/') || path.starts_with("//") || path.len() > MAX_DISK_PATH {
        return Vec::new();
    }
    path.match_indices('/')
        .skip(1)
        .map(|(i, _)| &path[i..])
        .filter(|p| p.matches('/').count() >= 2)
        .take(MAX_SERVED_PATHS)
        .collect()
}

/// Endings of a path on disk looked up among a tab's loads.
const MAX_SERVED_PATHS: usize = 8;
/// Longest path on disk of a frame looked up so.
const MAX_DISK_PATH: usize = 1024;

/// A frame's script as a URL. A script run from text that named itself with a path
/// (`//# sourceURL=/__parcel_hmr/1a2b`: Parcel's hot updates) is that path on the page's
/// origin, where the dev server serves it, as DevTools resolves it.
fn frame_url(url: &str, page: &Url) -> Result<Url, Unmapped> {
    match Url::parse(url) {
        Ok(url) => Ok(url),
        Err(url::ParseError::RelativeUrlWithoutBase) if url.starts_with('/') => {
            page.join(url).map_err(|_| Unmapped::NotInScope)
        }
        Err(_) => Err(Unmapped::NotInScope),
    }
}
