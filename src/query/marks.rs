//! Marks: named moments (`configure action=mark`, stored by `store::marks`) and
//! a tab's page loads (implicit marks). `since_mark` narrows a read to the ids
//! after a named mark; `what=compare` reads the windows on both sides of one.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;
use serde_json::{Value, json};

use super::QueryError;
use super::compact::utc;
use crate::kind::{KINDS, Kind};
use crate::store::sql::kind_stats;

/// A named mark: when it was set and each kind's last issued id then.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mark {
    pub name: String,
    /// Server time, ms since the epoch.
    pub ts: i64,
    /// Kind name → the last id issued when the mark was set.
    pub cursors: BTreeMap<String, i64>,
}

/// How long before a mark an entry issued after it may be dated and still count before it. The
/// extension sends a page's entries in batches every half second, and a request's row once the
/// request ended: an agent that marks right after a click would otherwise find what the click did
/// after its mark. An entry dated earlier than this before the mark and issued after it counts
/// after it, as its id says: the page's timeline (Resource Timing) can lag the clock by the time
/// the machine slept.
pub const LATE_MS: i64 = 60_000;

impl Mark {
    /// The last id of `kind` at the mark (entries after it have greater ids).
    pub fn cursor(&self, kind: &Kind) -> Option<i64> {
        self.cursors.get(kind.name).copied()
    }

    /// The SQL condition and its parameters for `kind`'s entries after the mark: issued after it
    /// and not dated within [`LATE_MS`] before it.
    pub fn after(&self, kind: &Kind) -> (&'static str, [i64; 3]) {
        ("(id > ? AND (ts >= ? OR ts < ?))", [self.cursor(kind).unwrap_or(0), self.ts, self.ts - LATE_MS])
    }

    /// The SQL condition and its parameters for `kind`'s entries up to the mark: issued before
    /// it, or issued after it and dated within [`LATE_MS`] before it.
    pub fn up_to(&self, kind: &Kind) -> (&'static str, [i64; 3]) {
        ("(id <= ? OR (ts < ? AND ts >= ?))", [self.cursor(kind).unwrap_or(i64::MAX), self.ts, self.ts - LATE_MS])
    }

    /// Whether `kind`'s entry `id`, dated `ts`, came after the mark ([`Mark::after`]).
    pub fn is_after(&self, kind: &Kind, id: i64, ts: i64) -> bool {
        id > self.cursor(kind).unwrap_or(0) && !(self.ts - LATE_MS..self.ts).contains(&ts)
    }
}

/// How many known marks an unknown name's error lists.
const LISTED: usize = 20;

/// The mark named `name`, or an error listing the known ones.
pub fn get(conn: &Connection, name: &str) -> Result<Mark, QueryError> {
    let found = conn
        .prepare_cached("SELECT name, ts, cursors FROM marks WHERE name = ?1")?
        .query_row([name], row_to_mark)
        .optional()?;
    match found {
        Some(mark) => Ok(mark),
        None => {
            let known = names(conn)?;
            let list = if known.is_empty() {
                "no mark is set yet".to_string()
            } else {
                let shown: Vec<String> = known.iter().take(LISTED).map(|n| format!("\"{n}\"")).collect();
                let more = known.len().saturating_sub(LISTED);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                format!("known marks, newest first: {}{more}", shown.join(", "))
            };
            // At the limit, the oldest marks have been forgotten to make room: this may be one.
            let full = if known.len() as i64 >= crate::store::marks::MAX_MARKS {
                format!(
                    "; only the newest {} marks are kept, so an older one may have been forgotten",
                    crate::store::marks::MAX_MARKS
                )
            } else {
                String::new()
            };
            Err(QueryError::Invalid(format!(
                "no mark named \"{}\" ({list}){full}; set one with configure action=mark name=...",
                super::summary::cut(name, 100)
            )))
        }
    }
}

fn row_to_mark(r: &rusqlite::Row<'_>) -> rusqlite::Result<Mark> {
    let cursors: String = r.get(2)?;
    Ok(Mark { name: r.get(0)?, ts: r.get(1)?, cursors: serde_json::from_str(&cursors).unwrap_or_default() })
}

/// Every mark's name, newest first.
pub fn names(conn: &Connection) -> Result<Vec<String>, QueryError> {
    let mut stmt = conn.prepare_cached("SELECT name FROM marks ORDER BY ts DESC, rowid DESC")?;
    let names = stmt.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
    Ok(names)
}

/// The named mark set just before `mark` (by the ids it saw), if any.
pub fn previous(conn: &Connection, mark: &Mark) -> Result<Option<Mark>, QueryError> {
    let mut stmt = conn.prepare_cached("SELECT name, ts, cursors FROM marks WHERE name <> ?1 AND ts <= ?2")?;
    let marks = stmt.query_map(rusqlite::params![mark.name, mark.ts], row_to_mark)?.collect::<Result<Vec<_>, _>>()?;
    // Latest by the ids seen, then time: two marks set with nothing between them are one window.
    Ok(marks
        .into_iter()
        .filter(|m| m.cursors.iter().all(|(k, c)| mark.cursors.get(k).is_none_or(|mc| c <= mc)))
        .max_by(|a, b| a.cursors.values().sum::<i64>().cmp(&b.cursors.values().sum::<i64>()).then(a.ts.cmp(&b.ts))))
}

/// Entries of each kind after the mark that the ring no longer holds (trimmed or cleared).
pub fn lost_since(
    conn: &Connection,
    mark: &Mark,
    kinds: &[&'static Kind],
) -> Result<BTreeMap<String, i64>, QueryError> {
    lost_between(conn, Some(mark), None, kinds)
}

/// Entries of each kind with ids in `(from, to]` (`from` None: since the first) that the
/// ring no longer holds; only kinds that lost some.
pub fn lost_between(
    conn: &Connection,
    from: Option<&Mark>,
    to: Option<&Mark>,
    kinds: &[&'static Kind],
) -> Result<BTreeMap<String, i64>, QueryError> {
    let mut lost = BTreeMap::new();
    for kind in kinds {
        let stats = kind_stats(conn, kind)?;
        let kept_from = stats.oldest_id.unwrap_or(stats.last_issued_id + 1);
        let lo = from.and_then(|m| m.cursor(kind)).unwrap_or(0);
        let hi = to.and_then(|m| m.cursor(kind)).unwrap_or(stats.last_issued_id).min(kept_from - 1);
        if hi > lo {
            lost.insert(kind.name.to_string(), hi - lo);
        }
    }
    Ok(lost)
}

/// The `mark` field of an answer read with `since_mark`: the mark, and what was lost after it.
pub fn note(conn: &Connection, mark: &Mark, kinds: &[&'static Kind]) -> Result<Value, QueryError> {
    let lost = lost_since(conn, mark, kinds)?;
    let mut v = json!({ "name": mark.name, "ts": mark.ts, "utc": utc(mark.ts) });
    let cursors: serde_json::Map<String, Value> =
        kinds.iter().filter_map(|k| mark.cursor(k).map(|c| (k.name.to_string(), json!(c)))).collect();
    v["cursors"] = Value::Object(cursors);
    if !lost.is_empty() {
        v["evicted_since_mark"] = json!(lost);
    }
    Ok(v)
}

/// The kinds an answer of `what` reads (for the mark's note).
pub fn kinds_of(what: &super::What) -> Vec<&'static Kind> {
    match what {
        super::What::Kind { kind, .. } => vec![*kind],
        _ => KINDS.to_vec(),
    }
}
