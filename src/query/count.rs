//! Counting and positioning the rows that match a filter, fast at any depth.
//!
//! An unfiltered ring with contiguous ids is counted by id arithmetic. A filtered
//! count over an id range is the sum of per-bucket counts (ids `[kB, (k+1)B)`),
//! cached per database file and filter, plus counts of the partial buckets at
//! the two ends. The count of any id range never changes while the range lies
//! inside the kept ids of a contiguous ring: ids are never reused, gasoline
//! never updates rows, and rows leave only from the head (trimming, clearing).
//! So whole buckets and partial ranges are both remembered, and a partial range
//! at the top that has grown (new rows) is extended by counting the new ids. A
//! delete anywhere else makes the ring non-contiguous (`kinds.gap_upto`), and
//! counts then go straight to SQL until the gap has been trimmed away.
//!
//! So the first filtered call at 1M rows counts once (O(matches)); later calls,
//! such as an agent polling a tab, cost O(rows / B) cached sums plus the new rows.

use std::collections::{BTreeMap, HashMap};
use std::sync::{LazyLock, Mutex};

use rusqlite::{Connection, params_from_iter};

use super::QueryError;
use super::filter::Where;
use crate::kind::Kind;
use crate::store::sql::KindStats;

/// Ids per bucket.
const BUCKET: i64 = 1024;
/// Filters remembered; beyond this the cache starts over (it is only a cache).
const MAX_FILTERS: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    db: String,
    kind: &'static str,
    clause: String,
    params: String,
}

/// What is known of one (database, kind, filter).
#[derive(Debug, Default)]
struct Counts {
    /// Bucket index → rows of the whole bucket that match.
    buckets: BTreeMap<i64, i64>,
    /// Partial buckets counted before, as `(lo, hi, matches)`. A range of kept ids keeps its
    /// count; a range that grew at the top (new rows) is extended by counting the new ids only.
    partial: Vec<(i64, i64, i64)>,
}

/// Partial ranges remembered per filter: the bottom and top of the ring, and a few cursors.
const PARTIALS: usize = 8;

static CACHE: LazyLock<Mutex<HashMap<Key, Counts>>> = LazyLock::new(Default::default);

/// Counts and seeks for one filter on one kind, within one read transaction.
pub struct Counter<'a> {
    conn: &'a Connection,
    kind: &'a Kind,
    filter: &'a Where,
    stats: &'a KindStats,
    key: Option<Key>,
}

impl<'a> Counter<'a> {
    pub fn new(conn: &'a Connection, kind: &'a Kind, filter: &'a Where, stats: &'a KindStats) -> Self {
        let key = conn.path().filter(|p| !p.is_empty() && filter.is_filtered() && stats.contiguous).map(|db| Key {
            db: db.to_owned(),
            kind: kind.name,
            clause: filter.clause(None),
            params: format!("{:?}", filter.params),
        });
        Counter { conn, kind, filter, stats, key }
    }

    /// Matching rows with ids in `lo..=hi` (clamped to the kept ids).
    pub fn in_range(&self, lo: i64, hi: i64) -> Result<i64, QueryError> {
        let (Some(oldest), Some(newest)) = (self.stats.oldest_id, self.stats.newest_id) else { return Ok(0) };
        let (lo, hi) = (lo.max(oldest), hi.min(newest));
        if lo > hi {
            return Ok(0);
        }
        if !self.filter.is_filtered() && self.stats.contiguous {
            return Ok(hi - lo + 1);
        }
        let Some((first, end)) = self.full_buckets(lo, hi) else { return self.live(lo, hi) };
        let buckets = self.buckets(first, end)?;
        Ok(self.live(lo, first * BUCKET - 1)? + buckets.iter().sum::<i64>() + self.live(end * BUCKET, hi)?)
    }

    /// Where the match at 0-based `position` is: `(from_id, skip)` such that it is the
    /// `skip`-th match with `id >= from_id`, `skip` below one bucket. None when the
    /// cache does not apply (the caller then uses a plain `OFFSET`).
    pub fn seek(&self, position: i64) -> Result<Option<(i64, i64)>, QueryError> {
        let (Some(oldest), Some(newest)) = (self.stats.oldest_id, self.stats.newest_id) else { return Ok(None) };
        let Some((first, end)) = self.full_buckets(oldest, newest) else { return Ok(None) };
        let head = self.live(oldest, first * BUCKET - 1)?;
        if position < head {
            return Ok(Some((oldest, position)));
        }
        let mut left = position - head;
        for (k, n) in (first..end).zip(self.buckets(first, end)?) {
            if left < n {
                return Ok(Some((k * BUCKET, left)));
            }
            left -= n;
        }
        Ok(Some((end * BUCKET, left)))
    }

    /// The whole buckets `first..end` inside `lo..=hi`, when the cache applies.
    fn full_buckets(&self, lo: i64, hi: i64) -> Option<(i64, i64)> {
        self.key.as_ref()?;
        let first = lo.div_euclid(BUCKET) + i64::from(lo.rem_euclid(BUCKET) != 0);
        let end = (hi + 1).div_euclid(BUCKET);
        (first < end).then_some((first, end))
    }

    /// Runs `f` on what is known of this filter, first forgetting what lies below the
    /// oldest kept id (ids are never reused, so it never comes back).
    fn known<R>(&self, key: &Key, f: impl FnOnce(&mut Counts) -> R) -> R {
        let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cache.len() >= MAX_FILTERS && !cache.contains_key(key) {
            cache.clear();
        }
        let counts = cache.entry(key.clone()).or_default();
        let oldest = self.stats.oldest_id.unwrap_or(0);
        let oldest_bucket = oldest.div_euclid(BUCKET);
        if counts.buckets.first_key_value().is_some_and(|(k, _)| *k < oldest_bucket) {
            counts.buckets = counts.buckets.split_off(&oldest_bucket);
        }
        counts.partial.retain(|(lo, _, _)| *lo >= oldest);
        f(counts)
    }

    /// The counts of buckets `first..end`, computing (and remembering) the missing ones.
    fn buckets(&self, first: i64, end: i64) -> Result<Vec<i64>, QueryError> {
        let Some(key) = &self.key else { return Err(QueryError::Invalid("bucket counts without a key".into())) };
        let mut counts = self.known(key, |known| {
            let mut counts = vec![None; (end - first) as usize];
            for (k, n) in known.buckets.range(first..end) {
                counts[(k - first) as usize] = Some(*n);
            }
            counts
        });
        let mut computed = Vec::new();
        for (k, slot) in (first..end).zip(counts.iter_mut()) {
            if slot.is_none() {
                let n = self.count_sql(k * BUCKET, (k + 1) * BUCKET - 1)?;
                computed.push((k, n));
                *slot = Some(n);
            }
        }
        if !computed.is_empty() {
            self.known(key, |known| known.buckets.extend(computed));
        }
        Ok(counts.into_iter().flatten().collect())
    }

    /// Matching rows with ids in `lo..=hi`, a part of one bucket: from what is known when
    /// possible, counting by SQL only the ids not seen before.
    fn live(&self, lo: i64, hi: i64) -> Result<i64, QueryError> {
        if lo > hi {
            return Ok(0);
        }
        let Some(key) = &self.key else { return self.count_sql(lo, hi) };
        let before = self.known(key, |known| known.partial.iter().find(|(l, h, _)| *l == lo && *h <= hi).copied());
        let n = match before {
            Some((_, h, n)) if h == hi => return Ok(n),
            Some((_, h, n)) => n + self.count_sql(h + 1, hi)?,
            None => self.count_sql(lo, hi)?,
        };
        self.known(key, |known| {
            known.partial.retain(|(l, _, _)| *l != lo);
            if known.partial.len() >= PARTIALS {
                known.partial.remove(0);
            }
            known.partial.push((lo, hi, n));
        });
        Ok(n)
    }

    /// Matching rows with ids in `lo..=hi`, counted by SQL over the index.
    fn count_sql(&self, lo: i64, hi: i64) -> Result<i64, QueryError> {
        let sql = format!("SELECT count(*) FROM {}{}", self.kind.name, self.filter.clause(Some("id BETWEEN ? AND ?")));
        let params = self.filter.params_with(&[lo, hi]);
        Ok(self.conn.prepare_cached(&sql)?.query_row(params_from_iter(params.iter()), |r| r.get(0))?)
    }
}
