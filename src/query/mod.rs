//! observe: arguments → indexed SQL → one JSON answer that fits `max_chars`.
//!
//! Reads only; runs inside one read transaction so that totals, ids and the
//! page come from the same snapshot. Pagination is keyset wherever it can be:
//! cursors are `id > ?` / `id < ?`, and offsets on an unfiltered ring with
//! contiguous ids are id arithmetic. Only filtered offsets use SQL `OFFSET`, over
//! the index, from whichever end is nearer.

pub mod args;
mod count;
pub(crate) mod entry;
mod filter;

use rusqlite::{Connection, OptionalExtension, params_from_iter};
use serde::Serialize;
use serde_json::{Value, json};

pub use args::{ObserveArgs, What, parse};
use count::Counter;
use filter::{Where, select_list};

use crate::kind::Kind;
use crate::store::StoreError;
use crate::store::sql::{KindStats, exec_cached, kind_stats, tracked_tab};

/// Why observe could not answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The caller's arguments are wrong; the message says what to send instead.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for QueryError {
    fn from(e: rusqlite::Error) -> Self {
        QueryError::Store(StoreError::Sqlite(e))
    }
}

/// Answers one observe call with the JSON text of the answer.
pub fn observe(conn: &Connection, args: &ObserveArgs) -> Result<String, QueryError> {
    let tx = ReadTx::begin(conn)?;
    let answer = match args.what {
        What::Kind { kind, errors_only } => observe_kind(conn, kind, errors_only, args)?,
        What::Tabs => tabs(conn)?,
        What::Page => page(conn, args.tab_id)?,
        What::Vitals => vitals(conn, args.tab_id)?,
    };
    tx.commit()?;
    Ok(answer)
}

/// A read transaction by cached statements (rusqlite's `Transaction` parses BEGIN and
/// COMMIT on every call); rolled back if dropped unfinished, so that a pooled
/// connection never goes back to the pool inside a transaction.
struct ReadTx<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> ReadTx<'c> {
    fn begin(conn: &'c Connection) -> rusqlite::Result<Self> {
        exec_cached(conn, "BEGIN")?;
        Ok(ReadTx { conn, open: true })
    }

    fn commit(mut self) -> rusqlite::Result<()> {
        self.open = false;
        exec_cached(self.conn, "COMMIT")
    }
}

impl Drop for ReadTx<'_> {
    fn drop(&mut self) {
        if self.open && !self.conn.is_autocommit() {
            let _ = exec_cached(self.conn, "ROLLBACK");
        }
    }
}

/// The metadata of a paginated answer; `entries` is appended after it.
#[derive(Debug, Serialize)]
struct Meta {
    what: &'static str,
    count: usize,
    total: i64,
    offset: i64,
    limit: i64,
    has_more: bool,
    next_offset: Option<i64>,
    cursor: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_cursor: Option<i64>,
    oldest_id: Option<i64>,
    newest_id: Option<i64>,
    tracked_tab_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filtered_by_tab: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_entries_all_tabs: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evicted_since_cursor: Option<i64>,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

/// Which rows to read, in which order, and how many at most.
struct Plan {
    sql: String,
    params: Vec<rusqlite::types::Value>,
    /// The SQL yields rows newest first; they are reversed after reading.
    reversed: bool,
    /// The budget keeps the newest rows (paging backwards) rather than the oldest.
    keep_newest: bool,
    /// Rows read at most (the page size, plus one to learn whether more exist).
    max_rows: i64,
    /// Page size; None means "all that fit".
    page_size: Option<i64>,
}

fn observe_kind(
    conn: &Connection,
    kind: &'static Kind,
    errors_only: bool,
    args: &ObserveArgs,
) -> Result<String, QueryError> {
    let stats = kind_stats(conn, kind)?;
    let filter = Where::new(errors_only, args);
    let last_issued = stats.last_issued_id;
    if let Some(c) = args.after_cursor.filter(|c| *c > last_issued) {
        return Err(QueryError::Invalid(format!(
            "after_cursor {c} is beyond the newest id of {} ({last_issued}); poll with after_cursor={last_issued} for new entries",
            kind.name
        )));
    }
    if let Some(c) = args.before_cursor.filter(|c| *c > last_issued + 1) {
        return Err(QueryError::Invalid(format!(
            "before_cursor {c} is beyond the newest id of {} ({last_issued}); send before_cursor={} for the newest entries",
            kind.name,
            last_issued + 1
        )));
    }
    let counter = Counter::new(conn, kind, &filter, &stats);
    let total = counter.in_range(i64::MIN, i64::MAX)?;
    let select = format!("SELECT {} FROM {}", select_list(kind), kind.name);
    // Enough rows to fill any budget: an entry is at least ~30 characters.
    let budget_rows = (args.max_chars / 30 + 2) as i64;
    let page_size = |default: Option<i64>| match args.limit {
        Some(0) => None,
        Some(l) => Some(l),
        None => default,
    };

    let mut evicted = None;
    let (plan, offset, reported_limit) = if let Some(c) = args.after_cursor {
        let kept_from = stats.oldest_id.unwrap_or(last_issued + 1);
        evicted = Some((kept_from - 1 - c).max(0));
        let size = page_size(Some(args::DEFAULT_CURSOR_LIMIT));
        let offset = counter.in_range(i64::MIN, c)?;
        let plan = Plan {
            sql: format!("{select}{} ORDER BY id LIMIT ?", filter.clause(Some("id > ?"))),
            params: filter.params_with(&[c, rows_to_read(size, budget_rows)]),
            reversed: false,
            keep_newest: false,
            max_rows: rows_to_read(size, budget_rows),
            page_size: size,
        };
        (plan, offset, size.unwrap_or(0))
    } else if let Some(c) = args.before_cursor {
        let size = page_size(Some(args::DEFAULT_CURSOR_LIMIT));
        let before = counter.in_range(i64::MIN, c.saturating_sub(1))?;
        let plan = Plan {
            sql: format!("{select}{} ORDER BY id DESC LIMIT ?", filter.clause(Some("id < ?"))),
            params: filter.params_with(&[c, rows_to_read(size, budget_rows)]),
            reversed: true,
            keep_newest: true,
            max_rows: rows_to_read(size, budget_rows),
            page_size: size,
        };
        // The page ends just before the cursor; its start is known once rows are read.
        (plan, before, size.unwrap_or(0))
    } else {
        let requested = args.offset.unwrap_or(0);
        let (start, size) = if requested < 0 {
            (total.saturating_add(requested).max(0), page_size(Some(requested.saturating_neg())))
        } else {
            (requested, page_size(None))
        };
        let plan = offset_plan(&counter, &filter, &stats, &select, start, size, total, budget_rows)?;
        (plan, start, size.unwrap_or(0))
    };

    let mut rows = read_rows(conn, kind, &plan)?;
    let more_beyond = plan.page_size.is_some_and(|size| rows.len() as i64 > size);
    if more_beyond {
        // The extra row only told us that more exist.
        if plan.reversed {
            rows.remove(0)
        } else {
            rows.pop().unwrap_or_default()
        };
    }
    let tracked_tab_id = tracked_tab(conn)?;
    let mut meta = Meta {
        what: args.what.name(),
        count: 0,
        total,
        offset,
        limit: reported_limit,
        has_more: false,
        next_offset: None,
        cursor: 0,
        prev_cursor: None,
        oldest_id: stats.oldest_id,
        newest_id: stats.newest_id,
        tracked_tab_id,
        filtered_by_tab: args.tab_id,
        total_entries_all_tabs: args.tab_id.map(|_| stats.count),
        evicted_since_cursor: evicted,
        truncated: false,
        hint: Some(String::new()),
    };
    // Reserve room for the metadata at its largest (with a hint), then fill.
    meta.hint = Some("x".repeat(HINT_RESERVE));
    meta.truncated = true;
    meta.has_more = true;
    meta.next_offset = Some(i64::MAX);
    meta.cursor = i64::MAX;
    meta.prev_cursor = args.before_cursor.map(|_| i64::MAX);
    let reserve = entry::chars(&serde_json::to_string(&meta).map_err(internal)?) + ",\"entries\":[]".len();
    let budget = args.max_chars.saturating_sub(reserve);
    let (entries, cut) = fit(rows, budget, plan.keep_newest);

    let count = entries.len() as i64;
    if args.before_cursor.is_some() {
        meta.offset = offset - count;
    }
    let first_id = entries.first().map(|(id, _)| *id);
    let last_id = entries.last().map(|(id, _)| *id);
    meta.count = entries.len();
    meta.truncated = cut;
    meta.has_more = if args.before_cursor.is_some() {
        meta.offset > 0
    } else if args.after_cursor.is_some() {
        more_beyond || cut
    } else {
        meta.offset + count < total
    };
    let forward_more = meta.offset + count < total;
    meta.next_offset = forward_more.then_some(meta.offset + count);
    meta.cursor = match (last_id, args.before_cursor) {
        (Some(id), _) => id,
        (None, Some(c)) => c - 1,
        // Nothing matched up to the newest id: polling from there misses nothing.
        (None, None) => args.after_cursor.unwrap_or(0).max(last_issued),
    };
    meta.prev_cursor = args.before_cursor.map(|c| first_id.unwrap_or(c));
    meta.hint = hint(&meta, args, kind, first_id);
    render(&meta, &entries)
}

/// Room kept for the hint when budgeting (hints are shorter than this).
const HINT_RESERVE: usize = 400;

fn rows_to_read(page_size: Option<i64>, budget_rows: i64) -> i64 {
    page_size.map_or(budget_rows, |s| s.min(budget_rows).saturating_add(1))
}

/// Rows for `[start, start + size)` of the matching rows, by the cheapest exact route.
#[allow(clippy::too_many_arguments)]
fn offset_plan(
    counter: &Counter<'_>,
    filter: &Where,
    stats: &KindStats,
    select: &str,
    start: i64,
    size: Option<i64>,
    total: i64,
    budget_rows: i64,
) -> Result<Plan, QueryError> {
    let wanted = size.unwrap_or(i64::MAX).min(total.saturating_sub(start).max(0));
    let max_rows = wanted.min(budget_rows);
    if !filter.is_filtered() && stats.contiguous {
        // Contiguous ids: the row at position `start` has id oldest + start.
        let first = stats.oldest_id.unwrap_or(0).saturating_add(start);
        return Ok(Plan {
            sql: format!("{select} WHERE id >= ? ORDER BY id LIMIT ?"),
            params: vec![first.into(), max_rows.into()],
            reversed: false,
            keep_newest: false,
            max_rows,
            page_size: None,
        });
    }
    if start < total
        && let Some((from_id, skip)) = counter.seek(start)?
    {
        // Bucket counts place the start within one bucket: a short OFFSET from there.
        return Ok(Plan {
            sql: format!("{select}{} ORDER BY id LIMIT ? OFFSET ?", filter.clause(Some("id >= ?"))),
            params: filter.params_with(&[from_id, max_rows, skip]),
            reversed: false,
            keep_newest: false,
            max_rows,
            page_size: None,
        });
    }
    let end = start.saturating_add(wanted);
    Ok(if start > total / 2 && wanted <= budget_rows {
        // Nearer the end: walk the index backwards.
        Plan {
            sql: format!("{select}{} ORDER BY id DESC LIMIT ? OFFSET ?", filter.clause(None)),
            params: filter.params_with(&[wanted, total - end]),
            reversed: true,
            keep_newest: false,
            max_rows,
            page_size: None,
        }
    } else {
        Plan {
            sql: format!("{select}{} ORDER BY id LIMIT ? OFFSET ?", filter.clause(None)),
            params: filter.params_with(&[max_rows, start]),
            reversed: false,
            keep_newest: false,
            max_rows,
            page_size: None,
        }
    })
}

/// Rows as `(id, entry JSON)`, in ascending id order.
fn read_rows(conn: &Connection, kind: &Kind, plan: &Plan) -> Result<Vec<(i64, String)>, QueryError> {
    let mut stmt = conn.prepare_cached(&plan.sql)?;
    let mut rows = stmt.query(params_from_iter(plan.params.iter()))?;
    let mut out = Vec::with_capacity(plan.max_rows.clamp(0, 1024) as usize);
    while let Some(row) = rows.next()? {
        out.push((row.get::<_, i64>(0)?, entry::entry_json(kind, row)?));
        if out.len() as i64 >= plan.max_rows {
            break;
        }
    }
    if plan.reversed {
        out.reverse();
    }
    Ok(out)
}

/// Keeps as many whole entries as fit `budget` characters: from the start, or
/// from the end when `keep_newest`. A first entry that alone is too large is
/// clipped, so every call makes progress. Returns the entries and whether any were cut.
fn fit(rows: Vec<(i64, String)>, budget: usize, keep_newest: bool) -> (Vec<(i64, String)>, bool) {
    let n = rows.len();
    let mut ordered: Vec<(i64, String)> = if keep_newest { rows.into_iter().rev().collect() } else { rows };
    let mut used = 0;
    let mut kept = 0;
    for (i, (_, text)) in ordered.iter_mut().enumerate() {
        let size = entry::chars(text) + usize::from(i > 0);
        if used + size > budget {
            if i == 0 {
                *text = entry::clip(text, budget);
                kept = 1;
            }
            break;
        }
        used += size;
        kept = i + 1;
    }
    let clipped_first = kept == 1 && ordered.first().is_some_and(|(_, t)| t.contains("\"_clipped\":true"));
    ordered.truncate(kept);
    if keep_newest {
        ordered.reverse();
    }
    (ordered, kept < n || clipped_first)
}

fn render(meta: &Meta, entries: &[(i64, String)]) -> Result<String, QueryError> {
    let head = serde_json::to_string(meta).map_err(internal)?;
    let mut out = String::with_capacity(head.len() + entries.iter().map(|(_, e)| e.len() + 1).sum::<usize>() + 16);
    out.push_str(&head[..head.len() - 1]);
    out.push_str(",\"entries\":[");
    for (i, (_, e)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(e);
    }
    out.push_str("]}");
    Ok(out)
}

fn hint(meta: &Meta, args: &ObserveArgs, kind: &Kind, first_id: Option<i64>) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(n) = meta.evicted_since_cursor.filter(|n| *n > 0) {
        parts.push(format!(
            "{n} entries after your cursor were trimmed from the ring (capacity reached); continuing from the oldest kept"
        ));
    }
    if let (Some(tab), 0, 0) = (meta.filtered_by_tab, meta.count, meta.total) {
        parts.push(format!(
            "no {} entries for tabId {tab} ({} across all tabs); see observe what=tabs",
            kind.name,
            meta.total_entries_all_tabs.unwrap_or(0)
        ));
    }
    if meta.truncated {
        parts.push(format!(
            "{} of {} shown: the answer is capped at max_chars={}",
            meta.count,
            meta.total - meta.offset,
            args.max_chars
        ));
    }
    if meta.has_more {
        if args.before_cursor.is_some() {
            parts.push(format!("older entries remain: continue with before_cursor={}", first_id.unwrap_or(0)));
        } else {
            let offset = meta.next_offset.map(|o| format!(" (or offset={o})")).unwrap_or_default();
            parts.push(format!(
                "{} of {} shown; continue with after_cursor={}{offset}, or narrow with tabId, limit or a filter",
                meta.count, meta.total, meta.cursor
            ));
        }
    }
    (!parts.is_empty()).then(|| parts.join(". "))
}

fn internal(e: serde_json::Error) -> QueryError {
    QueryError::Invalid(format!("could not encode the answer: {e}"))
}

/// Most tabs listed by `what=tabs`.
const TABS_SHOWN: i64 = 100;

fn tab_json(row: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
    Ok(json!({
        "tabId": row.get::<_, i64>(0)?,
        "url": row.get::<_, Option<String>>(1)?,
        "title": row.get::<_, Option<String>>(2)?,
        "last_seen": row.get::<_, i64>(3)?,
    }))
}

fn tabs(conn: &Connection) -> Result<String, QueryError> {
    let mut stmt =
        conn.prepare_cached("SELECT tab_id, url, title, last_seen FROM tabs ORDER BY last_seen DESC, tab_id LIMIT ?")?;
    let tabs: Vec<Value> = stmt.query_map([TABS_SHOWN], tab_json)?.collect::<Result<_, _>>()?;
    let total: i64 = conn.query_row("SELECT count(*) FROM tabs", [], |r| r.get(0))?;
    Ok(json!({
        "what": "tabs",
        "count": tabs.len(),
        "total": total,
        "tracked_tab_id": tracked_tab(conn)?,
        "tabs": tabs,
    })
    .to_string())
}

/// The tab `page` and `vitals` describe: the one asked for, else the tracked
/// tab, else the tab seen most recently.
fn default_tab(conn: &Connection, tab_id: Option<i64>) -> Result<Option<i64>, QueryError> {
    if let Some(tab) = tab_id.or(tracked_tab(conn)?) {
        return Ok(Some(tab));
    }
    Ok(conn.query_row("SELECT tab_id FROM tabs ORDER BY last_seen DESC LIMIT 1", [], |r| r.get(0)).optional()?)
}

fn vitals_json(conn: &Connection, tab: i64) -> Result<Option<Value>, QueryError> {
    let row = conn
        .query_row(
            "SELECT tab_id, url, lcp, cls, inp, fcp, ttfb, updated_at, data FROM vitals WHERE tab_id = ?1",
            [tab],
            |r| {
                let data: String = r.get(8)?;
                let mut v = json!({
                    "tabId": r.get::<_, i64>(0)?,
                    "url": r.get::<_, Option<String>>(1)?,
                    "lcp": r.get::<_, Option<f64>>(2)?,
                    "cls": r.get::<_, Option<f64>>(3)?,
                    "inp": r.get::<_, Option<f64>>(4)?,
                    "fcp": r.get::<_, Option<f64>>(5)?,
                    "ttfb": r.get::<_, Option<f64>>(6)?,
                    "updated_at": r.get::<_, i64>(7)?,
                });
                let extra = serde_json::from_str::<Value>(&data).ok().and_then(|e| e.as_object().cloned());
                if let (Some(extra), Some(map)) = (extra.filter(|e| !e.is_empty()), v.as_object_mut()) {
                    map.insert("extra".into(), Value::Object(extra));
                }
                Ok(v)
            },
        )
        .optional()?;
    Ok(row)
}

fn page(conn: &Connection, tab_id: Option<i64>) -> Result<String, QueryError> {
    let tab = default_tab(conn, tab_id)?;
    let info = match tab {
        Some(t) => conn
            .query_row("SELECT tab_id, url, title, last_seen FROM tabs WHERE tab_id = ?1", [t], tab_json)
            .optional()?,
        None => None,
    };
    let vitals = match tab {
        Some(t) => vitals_json(conn, t)?,
        None => None,
    };
    let hint = info.is_none().then(|| match tab {
        Some(t) => format!("no page information for tabId {t} yet; see observe what=tabs"),
        None => "no tab has reported yet: is the extension installed and pointed at this server?".to_string(),
    });
    Ok(json!({
        "what": "page",
        "tabId": tab,
        "tracked_tab_id": tracked_tab(conn)?,
        "page": info,
        "vitals": vitals,
        "hint": hint,
    })
    .to_string())
}

fn vitals(conn: &Connection, tab_id: Option<i64>) -> Result<String, QueryError> {
    let tab = default_tab(conn, tab_id)?;
    let vitals = match tab {
        Some(t) => vitals_json(conn, t)?,
        None => None,
    };
    Ok(json!({
        "what": "vitals",
        "tabId": tab,
        "tracked_tab_id": tracked_tab(conn)?,
        "vitals": vitals,
    })
    .to_string())
}
