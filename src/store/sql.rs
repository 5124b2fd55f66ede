//! The SQL that writes, and the ring statistics every answer reports.
//! Generic over [`Kind`]: statements are built from the kind's columns.

use rusqlite::{Connection, OptionalExtension, ToSql, params};
use serde::Serialize;

use super::StoreError;
use crate::capture::Capture;
use crate::ingest::{Row, TabInfo, Vitals};
use crate::kind::{KINDS, Kind};

/// What an insert stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Inserted {
    pub accepted: usize,
    pub first_id: Option<i64>,
    pub last_id: Option<i64>,
}

/// Rows per INSERT statement: a multi-row `VALUES` list. Each statement that fires the
/// trimming trigger opens a statement journal, so fewer statements cost less; chunks are
/// powers of two up to this, so a kind has few statement shapes to cache.
const CHUNK: usize = 64;

pub(super) fn insert_rows(
    conn: &Connection,
    kind: &Kind,
    rows: &[Row],
    received_at: i64,
) -> Result<Inserted, StoreError> {
    let mut first_id = None;
    let mut last_id = None;
    let mut rest = rows;
    while !rest.is_empty() {
        let n = if rest.len() >= CHUNK { CHUNK } else { 1 << rest.len().ilog2() };
        let (chunk, tail) = rest.split_at(n);
        let mut stmt = conn.prepare_cached(&insert_sql(kind, n))?;
        let mut values: Vec<&dyn ToSql> = Vec::with_capacity(n * (kind.columns.len() + 5));
        for row in chunk {
            values.extend([&row.tab_id as &dyn ToSql, &row.ts, &received_at]);
            values.extend(row.columns.iter().map(|v| v as &dyn ToSql));
            values.extend([&row.data as &dyn ToSql, &row.truncated]);
        }
        stmt.execute(values.as_slice())?;
        // One statement, one writer, AUTOINCREMENT: the chunk's ids are contiguous.
        let last = conn.last_insert_rowid();
        first_id.get_or_insert(last - n as i64 + 1);
        last_id = Some(last);
        rest = tail;
    }
    Ok(Inserted { accepted: rows.len(), first_id, last_id })
}

fn insert_sql(kind: &Kind, rows: usize) -> String {
    let columns: Vec<&str> = kind.columns.iter().map(|c| c.name).collect();
    let tuple = format!("({})", vec!["?"; columns.len() + 5].join(", "));
    format!(
        "INSERT INTO {} (tab_id, ts, received_at, {}, data, truncated) VALUES {}",
        kind.name,
        columns.join(", "),
        vec![tuple; rows].join(", ")
    )
}

pub(super) fn upsert_tabs(conn: &Connection, tabs: &[TabInfo], now: i64) -> Result<usize, StoreError> {
    let mut stmt = conn.prepare_cached(
        // A field sent again replaces its value, and with it its truncation record.
        "INSERT INTO tabs (tab_id, url, title, last_seen, truncated) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (tab_id) DO UPDATE SET
           url = coalesce(excluded.url, url), title = coalesce(excluded.title, title), last_seen = excluded.last_seen,
           truncated = nullif(json_patch(
             json_remove(coalesce(truncated, '{}'),
                         iif(excluded.url IS NULL, '$.__kept', '$.url'),
                         iif(excluded.title IS NULL, '$.__kept', '$.title')),
             coalesce(excluded.truncated, '{}')), '{}')",
    )?;
    for t in tabs {
        stmt.execute(params![t.tab_id, t.url, t.title, now, t.truncated])?;
    }
    Ok(tabs.len())
}

/// How many earlier pages of a tab its vitals row keeps in `previous`.
const PREVIOUS_PAGES: i64 = 5;

pub(super) fn upsert_vitals(conn: &Connection, vitals: &[Vitals], now: i64) -> Result<usize, StoreError> {
    // A new page (a new URL, or the same URL loaded again: the extension's `started`, when the
    // page began, differs) has its metrics replace the old ones, which join `previous` (newest
    // first, the last PREVIOUS_PAGES pages of the tab). Within one page, metrics arrive one at a
    // time, so a missing one keeps its value.
    let new_page =
        "(excluded.url IS NOT url OR json_extract(excluded.data, '$.started') IS NOT json_extract(data, '$.started'))";
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO vitals (tab_id, url, lcp, cls, inp, fcp, ttfb, updated_at, data, truncated)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (tab_id) DO UPDATE SET
           lcp  = CASE WHEN {new_page} THEN excluded.lcp  ELSE coalesce(excluded.lcp, lcp) END,
           cls  = CASE WHEN {new_page} THEN excluded.cls  ELSE coalesce(excluded.cls, cls) END,
           inp  = CASE WHEN {new_page} THEN excluded.inp  ELSE coalesce(excluded.inp, inp) END,
           fcp  = CASE WHEN {new_page} THEN excluded.fcp  ELSE coalesce(excluded.fcp, fcp) END,
           ttfb = CASE WHEN {new_page} THEN excluded.ttfb ELSE coalesce(excluded.ttfb, ttfb) END,
           data = CASE WHEN {new_page} THEN json_set(excluded.data, '$.previous', (
               SELECT json_group_array(json(page)) FROM (
                 SELECT 0 AS n, json_object('url', url, 'lcp', lcp, 'cls', cls, 'inp', inp, 'fcp', fcp,
                   'ttfb', ttfb, 'updated_at', updated_at) AS page
                 UNION ALL
                 SELECT 1 + key, value FROM json_each(coalesce(json_extract(data, '$.previous'), '[]'))
                   WHERE key < ?11 - 1
                 ORDER BY n)))
             ELSE json_patch(data, excluded.data) END,
           truncated = CASE WHEN {new_page} THEN excluded.truncated
             ELSE nullif(json_patch(coalesce(truncated, '{{}}'), coalesce(excluded.truncated, '{{}}')), '{{}}') END,
           url = excluded.url,
           updated_at = excluded.updated_at"
    ))?;
    for v in vitals {
        let [lcp, cls, inp, fcp, ttfb] = v.metrics;
        stmt.execute(params![v.tab_id, v.url, lcp, cls, inp, fcp, ttfb, now, v.data, v.truncated, PREVIOUS_PAGES])?;
    }
    Ok(vitals.len())
}

/// The writer's `secure_delete` mode (store/open.rs): a deleted row's bytes are overwritten in its
/// page and a page taken for a table starts blank, at no extra I/O.
pub(super) const SECURE_DELETE: &str = "FAST";

/// Deletes every row of `kind`; with None, of every kind and of the `tabs` and `vitals` state.
/// Answers how many entries went (rows of the kinds; the state rows are not entries).
///
/// A wipe, not only a delete: SQLite leaves a deleted row's bytes in free pages, where
/// `strings gasoline.db` still reads them. So the rows are deleted with `secure_delete` on
/// (their cells and freed pages overwritten with zeros, not only their cells as `FAST` does), and
/// every free page, those that earlier trims left too, is given back to the filesystem. What the WAL still holds of
/// them goes with the checkpoint that follows ([`super::Store::clear`]).
pub(super) fn clear(conn: &Connection, kind: Option<&Kind>) -> Result<usize, StoreError> {
    conn.pragma_update(None, "secure_delete", true)?;
    let wiped = (|| -> rusqlite::Result<usize> {
        let mut deleted = 0;
        for k in KINDS.iter().filter(|k| kind.is_none_or(|only| only.name == k.name)) {
            deleted += conn.execute(&format!("DELETE FROM {}", k.name), [])?;
        }
        // The tabs' and vitals' rows go too, but are no entries: the count is of entries alone.
        if kind.is_none() {
            for table in STATE_TABLES {
                conn.execute(&format!("DELETE FROM {table}"), [])?;
            }
        }
        // Stepped to its end: each step frees one page.
        let mut vacuum = conn.prepare("PRAGMA incremental_vacuum")?;
        let mut steps = vacuum.query([])?;
        while steps.next()?.is_some() {}
        Ok(deleted)
    })();
    let restored = conn.pragma_update(None, "secure_delete", SECURE_DELETE);
    let deleted = wiped?;
    restored?;
    Ok(deleted)
}

pub(crate) fn set_capacity(conn: &Connection, kind: &Kind, capacity: i64) -> Result<(), StoreError> {
    conn.execute("UPDATE kinds SET capacity = ?1 WHERE kind = ?2", params![capacity, kind.name])?;
    let newest: Option<i64> = conn.query_row(&format!("SELECT max(id) FROM {}", kind.name), [], |r| r.get(0))?;
    if let Some(newest) = newest {
        conn.execute(&format!("DELETE FROM {} WHERE id <= ?1", kind.name), [newest - capacity])?;
    }
    Ok(())
}

pub(super) fn set_setting(conn: &Connection, key: &str, value: Option<&str>) -> Result<(), StoreError> {
    match value {
        Some(v) => conn.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, v],
        )?,
        None => conn.execute("DELETE FROM settings WHERE key = ?1", [key])?,
    };
    Ok(())
}

pub fn setting(conn: &Connection, key: &str) -> Result<Option<String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT value FROM settings WHERE key = ?1")?;
    Ok(stmt.query_row([key], |r| r.get(0)).optional()?.flatten())
}

/// Replaces the capture state the extension reported (one row, migrations/V6).
pub(super) fn set_capture(conn: &Connection, state: &str, now: i64) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO capture (id, state, reported_at) VALUES (1, ?1, ?2)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, reported_at = excluded.reported_at",
    )?
    .execute(params![state, now])?;
    Ok(())
}

/// The capture state last reported (its JSON text) and when, if any was.
pub fn capture(conn: &Connection) -> Result<Option<(String, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT state, reported_at FROM capture WHERE id = 1")?;
    Ok(stmt.query_row([], |r| Ok((r.get(0)?, r.get(1)?))).optional()?)
}

/// The capture state last reported, read (a state that no longer reads is as none) and when.
pub fn capture_reported(conn: &Connection) -> Result<Option<(Capture, i64)>, StoreError> {
    Ok(capture(conn)?.and_then(|(state, at)| serde_json::from_str::<Capture>(&state).ok().map(|c| (c, at))))
}

/// The distinct URLs of the scripts tab `tab_id` loaded, the newest first, at most `limit`:
/// its waterfall rows the page called scripts (`initiatorType`) or whose URL names a `.js`
/// file, but not webpack's hot updates (`*.hot-update.js`: a day of edits loads hundreds, and
/// the dev server's bundle holds what they hold).
pub fn script_urls(conn: &Connection, tab_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT url FROM network_waterfall WHERE tab_id = ?1
         AND (initiator_type = 'script' OR url LIKE '%.js' OR url LIKE '%.js?%')
         AND url NOT LIKE '%.hot-update.js%'
         GROUP BY url ORDER BY max(id) DESC LIMIT ?2",
    )?;
    let urls = stmt.query_map(params![tab_id, limit as i64], |r| r.get(0))?;
    Ok(urls.collect::<Result<_, _>>()?)
}

/// The first of `urls` tab `tab_id` loaded (a row of it, its query aside), in their order.
pub fn first_loaded(conn: &Connection, tab_id: i64, urls: &[String]) -> Result<Option<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT 1 FROM network_waterfall WHERE tab_id = ?1 AND (url = ?2 OR substr(url, 1, length(?2) + 1) = ?2 || '?') LIMIT 1",
    )?;
    for url in urls {
        if stmt.exists(params![tab_id, url])? {
            return Ok(Some(url.clone()));
        }
    }
    Ok(None)
}

/// The latest loads of the script at `url` in tab `tab_id` (its rows among the tab's last
/// [`LOADS_SEARCHED`]), newest first: each one's time and the length its body had
/// (`decodedBodySize`; 0 where the page was not given it).
pub fn script_loads(conn: &Connection, tab_id: i64, url: &str) -> Result<Vec<(i64, u64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        // The tab's index walked from its newest row down to the bound; `data` read for matches only.
        "SELECT ts, iif(json_type(data, '$.decodedBodySize') IN ('integer', 'real'), json_extract(data, '$.decodedBodySize'), 0)
         FROM network_waterfall
         WHERE tab_id = ?1 AND url = ?2 AND id >= coalesce(
           (SELECT id FROM network_waterfall WHERE tab_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?3 - 1), 0)
         ORDER BY id DESC LIMIT 8",
    )?;
    let loads = stmt.query_map(params![tab_id, url, LOADS_SEARCHED], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1).map(|n| if n.is_finite() && n > 0.0 { n as u64 } else { 0 })?))
    })?;
    Ok(loads.collect::<Result<_, _>>()?)
}

/// How many of a tab's latest requests [`script_loads`] looks through.
pub const LOADS_SEARCHED: i64 = 5000;

/// Merges each JSON object, whose members are among `keys`, into the `data` of the row of
/// `kind` with that id; rows no longer stored are passed over. Only `data` changes, no column:
/// no index or cached count moves. When `data` holds none of `keys` (as `"key":`), the patch's
/// members are spliced onto its text, which costs no JSON parse; otherwise `json_patch` merges.
pub(super) fn patch_data(
    conn: &Connection,
    kind: &Kind,
    keys: &[&str],
    patches: &[(i64, String)],
) -> Result<usize, StoreError> {
    if keys.iter().any(|k| k.is_empty() || !k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')) {
        return Err(StoreError::Invalid(format!("patch keys must be plain names, got {keys:?}")));
    }
    let absent: Vec<String> = keys.iter().map(|k| format!("instr(data, '\"{k}\":') = 0")).collect();
    let absent = if absent.is_empty() { "1".to_string() } else { absent.join(" AND ") };
    let mut stmt = conn.prepare_cached(&format!(
        "UPDATE {} SET data = CASE
           WHEN {absent} AND data <> '{{}}' AND substr(data, -1) = '}}'
             AND ?2 <> '{{}}' AND substr(?2, 1, 1) = '{{'
             THEN substr(data, 1, length(data) - 1) || ',' || substr(?2, 2)
           ELSE json_patch(data, ?2) END
         WHERE id = ?1",
        kind.name
    ))?;
    let mut changed = 0;
    for (id, patch) in patches {
        changed += stmt.execute(params![id, patch])?;
    }
    Ok(changed)
}

/// Runs a statement without parameters or rows (BEGIN, COMMIT, SAVEPOINT …), prepared
/// once per connection: `execute_batch` parses it again on every call.
pub fn exec_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// The per-tab state tables, bounded by their rows in `kinds` (migrations/V2).
pub const STATE_TABLES: [&str; 2] = ["tabs", "vitals"];

/// The settings key holding the id of the extension gasoline is paired with.
pub const EXTENSION_ID: &str = "extension_id";

pub fn paired_extension(conn: &Connection) -> Result<Option<String>, StoreError> {
    setting(conn, EXTENSION_ID)
}

/// The settings key holding the tracked tab id.
pub const TRACKED_TAB: &str = "tracked_tab_id";

pub fn tracked_tab(conn: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(setting(conn, TRACKED_TAB)?.and_then(|v| v.parse().ok()))
}

/// The state of one ring, read in O(log n).
#[derive(Debug, Clone, Serialize)]
pub struct KindStats {
    pub kind: &'static str,
    pub count: i64,
    pub capacity: i64,
    /// Oldest id still kept (null when empty).
    pub oldest_id: Option<i64>,
    /// Newest id still kept (null when empty).
    pub newest_id: Option<i64>,
    /// Highest id ever issued, also after clearing (0 when none).
    pub last_issued_id: i64,
    /// True while ids from oldest to newest have no hole, so positions are id arithmetic.
    #[serde(skip)]
    pub contiguous: bool,
}

/// What happened to the entries after a cursor that are no longer kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gone {
    /// Trimmed by the ring reaching its capacity.
    pub evicted: i64,
    /// Removed by `configure clear` or by hand.
    pub cleared: i64,
}

impl KindStats {
    /// The entries after `cursor` no longer kept: the ring keeps ids in
    /// `(last_issued - capacity, last_issued]`, so those after the cursor below that window were
    /// trimmed; the rest missing below the oldest kept entry were cleared. One definition for
    /// observe's `evicted_since_cursor` and `gasoline tail -f`.
    pub fn gone_since(&self, cursor: i64) -> Gone {
        let kept_from = self.oldest_id.unwrap_or(self.last_issued_id + 1);
        let missing = (kept_from - 1 - cursor).max(0);
        let trimmed_upto = (self.last_issued_id - self.capacity).min(kept_from - 1);
        let evicted = (trimmed_upto - cursor).clamp(0, missing);
        Gone { evicted, cleared: missing - evicted }
    }
}

pub fn kind_stats(conn: &Connection, kind: &'static Kind) -> Result<KindStats, StoreError> {
    let (oldest_id, newest_id): (Option<i64>, Option<i64>) = conn
        // Two subqueries: SQLite answers a lone min() or max() from the end of the b-tree,
        // but `SELECT min(id), max(id)` in one query scans the whole table.
        .prepare_cached(&format!("SELECT (SELECT min(id) FROM {0}), (SELECT max(id) FROM {0})", kind.name))?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let (capacity, gap_upto): (i64, i64) = conn
        .prepare_cached("SELECT capacity, gap_upto FROM kinds WHERE kind = ?1")?
        .query_row([kind.name], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let last_issued_id: i64 = conn
        .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = ?1")?
        .query_row([kind.name], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    let contiguous = oldest_id.is_none_or(|oldest| oldest > gap_upto);
    let count = match (oldest_id, newest_id) {
        (Some(o), Some(n)) if contiguous => n - o + 1,
        (Some(_), Some(_)) => {
            conn.prepare_cached(&format!("SELECT count(*) FROM {}", kind.name))?.query_row([], |r| r.get(0))?
        }
        _ => 0,
    };
    Ok(KindStats { kind: kind.name, count, capacity, oldest_id, newest_id, last_issued_id, contiguous })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::LOGS;

    #[test]
    fn patches_are_spliced_or_merged_into_data() {
        let conn = Connection::open_in_memory().expect("memory");
        conn.execute_batch("CREATE TABLE logs (id INTEGER PRIMARY KEY, data TEXT NOT NULL)").expect("table");
        let rows = [r#"{"a":1}"#, "{}", r#"{"original":{"old":true},"b":2}"#, r#"{"message":"say \"original\": yes"}"#];
        for (i, data) in rows.iter().enumerate() {
            conn.execute("INSERT INTO logs (id, data) VALUES (?1, ?2)", params![i as i64 + 1, data]).expect("row");
        }
        let patch = r#"{"original":{"source":"src/App.jsx","line":9},"frames":[{"at":"x","sourcemap":"not found"}]}"#;
        let patches: Vec<(i64, String)> = (1..=5).map(|id| (id, patch.to_string())).collect();
        let keys = ["original", "sourcemap", "frames"];
        assert_eq!(patch_data(&conn, &LOGS, &keys, &patches).expect("patched"), 4, "row 5 is not stored");
        let data = |id: i64| -> serde_json::Value {
            let text: String = conn.query_row("SELECT data FROM logs WHERE id = ?1", [id], |r| r.get(0)).expect("row");
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("row {id} is not JSON ({e}): {text}"))
        };
        let patched: serde_json::Value = serde_json::from_str(patch).expect("JSON");
        for id in 1..=4 {
            let row = data(id);
            assert_eq!(row["original"]["source"], patched["original"]["source"], "row {id}: {row}");
            assert_eq!(row["original"]["line"], 9, "row {id}: {row}");
            assert_eq!(row["frames"], patched["frames"], "row {id}: {row}");
        }
        assert_eq!(data(1)["a"], 1);
        assert_eq!(data(3)["b"], 2, "merged (RFC 7396: objects member by member)");
        assert_eq!(data(4)["message"], "say \"original\": yes");
        assert!(patch_data(&conn, &LOGS, &["bad key"], &patches).is_err());
    }
}
