//! What was learned of a script: its map decoded (or why it has none), keyed by
//! the script's URL and kept with the validators of the script and of its
//! external map, so that the next batch asks the dev server only "has it
//! changed?" (a 304 keeps the entry): a dev server serves new code under the
//! same URL after an edit. Within one batch a script is asked about once.
//! Bounded by entries and by the bytes the decoded maps hold; the least
//! recently used goes first ([`Lru`], which also keeps the bundles of
//! webpack's eval'd modules).

use std::collections::HashMap;
use std::sync::Arc;

use sourcemap::SourceView;
use url::Url;

use super::Unmapped;
use super::fetch::Validators;
use super::parse::Parsed;

/// Most scripts remembered.
pub const MAX_ENTRIES: usize = 256;
/// Most bytes the remembered maps may hold (a map's JSON size plus its mappings).
pub const MAX_COST: usize = 128 * 1024 * 1024;

/// A script's map, decoded, and the URL its `sources` resolve against.
#[derive(Debug)]
pub struct Loaded {
    pub parsed: Parsed,
    pub map_url: Url,
    /// The script's own text, when small enough to keep: what turns a minified function name back
    /// into the original one ([`super::function_name`]).
    pub script: Option<Arc<SourceView>>,
}

impl Loaded {
    /// Bytes it holds: the map's cost and the script's text.
    pub fn cost(&self) -> usize {
        self.parsed.cost + self.script.as_ref().map_or(0, |s| s.source().len())
    }
}

/// What is known of one script.
#[derive(Debug, Clone)]
pub struct Entry {
    pub script: Validators,
    /// The script's length as fetched (None: not fetched, or learned only from a bundle).
    pub size: Option<usize>,
    /// The external map's URL and validators (None for an inline map or none).
    pub map: Option<(Url, Validators)>,
    pub outcome: Result<Arc<Loaded>, Unmapped>,
    /// The batch (the resolver's count of them) in which the server last confirmed it.
    pub checked_in: u64,
    /// The version fetched before this one, when it had another length: a page loaded before the
    /// edit still runs it, and its entries may reach the server after the dev server serves the
    /// new one under the same URL.
    pub before: Option<Arc<Version>>,
}

/// One version of a script: its length and its map.
#[derive(Debug)]
pub struct Version {
    pub size: usize,
    pub outcome: Result<Arc<Loaded>, Unmapped>,
}

impl Entry {
    /// What is known of a script no fetch of its own gave (a module in a bundle, or a fetch that
    /// failed): its outcome alone, confirmed during batch `job`.
    pub fn outcome_only(outcome: Result<Arc<Loaded>, Unmapped>, job: u64) -> Entry {
        Entry { script: Validators::default(), size: None, map: None, outcome, checked_in: job, before: None }
    }

    /// Confirmed during batch `job`: used without asking again.
    pub fn is_fresh(&self, job: u64) -> bool {
        self.checked_in == job
    }

    /// The newest version fetched: what [`Entry::before`] of the entry replacing it keeps, when
    /// the new one has another length.
    pub fn version(&self) -> Option<Version> {
        Some(Version { size: self.size?, outcome: self.outcome.clone() })
    }

    /// The map of the version a page ran, told by the length its own timing gave the script
    /// (`ran`; 0 when the page was not given it, a cross-origin script without
    /// `Timing-Allow-Origin` or a revalidated one). The version at hand when the lengths agree,
    /// or when nothing says the script changed while the server watched it; the one before when
    /// that is the length the page ran; else `changed since it ran`: another version than any
    /// fetched, whose map the dev server no longer serves. An edit that keeps the length is not
    /// told apart (it seldom moves a line). With it, whether it is the version before.
    /// A script not served now (its fetch failed, no length) gives the version before where that
    /// is the length the page ran.
    pub fn as_run(&self, ran: Option<u64>) -> Result<(Arc<Loaded>, bool), Unmapped> {
        let now = || self.outcome.clone().map(|loaded| (loaded, false));
        let (Some(ran), Some(before)) = (ran.filter(|n| *n > 0), &self.before) else {
            return now();
        };
        match self.size {
            Some(size) if ran == size as u64 => now(),
            _ if ran == before.size as u64 => before.outcome.clone().map(|loaded| (loaded, true)),
            Some(_) => Err(Unmapped::Changed),
            None => now(),
        }
    }
}

impl Cost for Entry {
    fn cost(&self) -> usize {
        let cost = |outcome: &Result<Arc<Loaded>, Unmapped>| outcome.as_ref().map_or(256, |l| l.cost());
        cost(&self.outcome) + self.before.as_ref().map_or(0, |v| cost(&v.outcome))
    }
}

/// What a remembered value costs the memory budget of an [`Lru`].
pub trait Cost {
    fn cost(&self) -> usize;
}

/// Values by URL, bounded by count and by the sum of their costs; the least recently used
/// goes first, and a value larger than the whole budget is not kept.
pub struct Lru<V> {
    entries: HashMap<String, (V, u64)>,
    cost: usize,
    clock: u64,
    max_entries: usize,
    max_cost: usize,
}

/// The scripts' maps.
pub type Cache = Lru<Entry>;

impl Default for Cache {
    fn default() -> Cache {
        Lru::new(MAX_ENTRIES, MAX_COST)
    }
}

impl<V: Clone + Cost> Lru<V> {
    pub fn new(max_entries: usize, max_cost: usize) -> Lru<V> {
        Lru { entries: HashMap::new(), cost: 0, clock: 0, max_entries, max_cost }
    }

    pub fn get(&mut self, url: &str) -> Option<V> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(url).map(|(value, used)| {
            *used = clock;
            value.clone()
        })
    }

    pub fn put(&mut self, url: &str, value: V) {
        self.remove(url);
        let cost = value.cost();
        if cost > self.max_cost {
            return;
        }
        while !self.entries.is_empty() && (self.entries.len() >= self.max_entries || self.cost + cost > self.max_cost) {
            let oldest = self.entries.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone());
            match oldest {
                Some(key) => self.remove(&key),
                None => break,
            }
        }
        self.clock += 1;
        self.cost += cost;
        self.entries.insert(url.to_string(), (value, self.clock));
    }

    /// The value at `url`, without counting it as used.
    pub fn peek(&self, url: &str) -> Option<&V> {
        self.entries.get(url).map(|(value, _)| value)
    }

    fn remove(&mut self, url: &str) {
        if let Some((old, _)) = self.entries.remove(url) {
            self.cost -= old.cost();
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(test)]
    pub fn cost(&self) -> usize {
        self.cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing() -> Entry {
        Entry::outcome_only(Err(Unmapped::NotFound), 0)
    }

    #[test]
    fn the_version_a_page_ran_is_told_by_its_length() {
        let now = Entry { size: Some(120), outcome: Err(Unmapped::OutOfRange), ..missing() };
        // Nothing says the script changed: the version at hand, whatever the page's length.
        assert_eq!(now.as_run(Some(99)).err(), Some(Unmapped::OutOfRange));
        let edited = Entry { before: Some(Arc::new(Version { size: 99, outcome: Err(Unmapped::TooLarge) })), ..now };
        assert_eq!(edited.as_run(Some(120)).err(), Some(Unmapped::OutOfRange), "the page ran the version at hand");
        assert_eq!(edited.as_run(Some(99)).err(), Some(Unmapped::TooLarge), "the page ran the one before");
        assert_eq!(edited.as_run(Some(7)).err(), Some(Unmapped::Changed), "a version no longer served");
        assert_eq!(edited.as_run(Some(0)).err(), Some(Unmapped::OutOfRange), "the page was not told its length");
        assert_eq!(edited.as_run(None).err(), Some(Unmapped::OutOfRange), "no load of it known");
    }

    #[test]
    fn bounded_by_entries_least_recently_used_first() {
        let mut cache = Cache::default();
        for i in 0..MAX_ENTRIES {
            cache.put(&format!("http://localhost/{i}.js"), missing());
        }
        assert!(cache.get("http://localhost/0.js").is_some(), "used: kept");
        cache.put("http://localhost/new.js", missing());
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert!(cache.get("http://localhost/0.js").is_some());
        assert!(cache.get("http://localhost/1.js").is_none(), "the least recently used went");
        cache.put("http://localhost/new.js", missing());
        assert_eq!(cache.len(), MAX_ENTRIES, "replaced, not added");
        assert_eq!(cache.cost(), MAX_ENTRIES * 256);
    }
}
