//! Reading a kind's rows for the person-facing commands (`tail`, `export`) and
//! for `configure action=export`: their filters as SQL, scans in id order, and
//! each row as the same entry JSON `observe` answers. Reads only.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};

use crate::kind::{Kind, levels_at_least};
use crate::query::entry::entry_json;
use crate::query::outcome::{failed_sql, is_request_kind};
use crate::store::StoreError;

/// What narrows the rows of a kind. Each field applies to the kinds that have
/// its column; [`Filter::applies`] says whether a kind can honour all of them.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub tab: Option<i64>,
    /// Entries with `ts` at or after this, ms since the epoch.
    pub since_ms: Option<i64>,
    /// The `url` column contains this text.
    pub url: Option<String>,
    /// Console levels at or above this.
    pub min_level: Option<&'static str>,
    /// HTTP status at least this.
    pub status_min: Option<i64>,
    /// Only failed requests, as [`crate::query::outcome`] defines them: an error
    /// reported by the browser or the page, or a status of 400 or more.
    pub failed_only: bool,
    /// A column of the kind equals this text (`connection_id`, `type`).
    pub equals: Option<(&'static str, String)>,
}

impl Filter {
    /// The first filter `kind` has no column for, if any.
    pub fn unsupported(&self, kind: &Kind) -> Option<&'static str> {
        let has = |column: &str| kind.column(column).is_some();
        if self.url.is_some() && !has("url") {
            return Some("--url");
        }
        if self.min_level.is_some() && !has("level") {
            return Some("--level");
        }
        if self.status_min.is_some() && !is_request_kind(kind) {
            return Some("--status-min");
        }
        if self.failed_only && !is_request_kind(kind) {
            return Some("--failed");
        }
        None
    }

    /// ` WHERE …` (or empty) and its parameters, plus `extra` conditions.
    fn clause(&self, kind: &Kind, extra: &[&str]) -> (String, Vec<SqlValue>) {
        let mut conditions: Vec<String> = Vec::new();
        let mut params = Vec::new();
        if let Some(tab) = self.tab {
            conditions.push("tab_id = ?".into());
            params.push(SqlValue::Integer(tab));
        }
        if let Some(since) = self.since_ms {
            conditions.push("ts >= ?".into());
            params.push(SqlValue::Integer(since));
        }
        if let Some(url) = self.url.as_ref().filter(|_| kind.column("url").is_some()) {
            conditions.push("instr(url, ?) > 0".into());
            params.push(SqlValue::Text(url.clone()));
        }
        if let Some(level) = self.min_level.filter(|_| kind.column("level").is_some()) {
            let quoted: Vec<String> = levels_at_least(level).unwrap_or(&[]).iter().map(|l| format!("'{l}'")).collect();
            conditions.push(format!("level IN ({})", quoted.join(", ")));
        }
        if is_request_kind(kind) {
            if let Some(min) = self.status_min {
                conditions.push("status >= ?".into());
                params.push(SqlValue::Integer(min));
            }
            if self.failed_only {
                conditions.push(failed_sql(kind));
            }
        }
        if let Some((column, value)) = self.equals.as_ref().filter(|(c, _)| kind.column(c).is_some()) {
            conditions.push(format!("{column} = ?"));
            params.push(SqlValue::Text(value.clone()));
        }
        conditions.extend(extra.iter().map(|c| (*c).to_owned()));
        let sql = if conditions.is_empty() { String::new() } else { format!(" WHERE {}", conditions.join(" AND ")) };
        (sql, params)
    }
}

/// One stored entry: its kind, id, time and observe's JSON text of it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: &'static Kind,
    pub id: i64,
    pub ts: i64,
    pub json: String,
}

impl Entry {
    /// The JSON text with `"kind"` first: how lines of a mixed stream say what they are.
    pub fn json_with_kind(&self) -> String {
        let rest = self.json.strip_prefix('{').unwrap_or(&self.json);
        format!("{{\"kind\":\"{}\",{rest}", self.kind.name)
    }
}

fn select_list(kind: &Kind) -> String {
    let columns: Vec<&str> = kind.columns.iter().map(|c| c.name).collect();
    format!("id, tab_id, ts, {}, data, truncated", columns.join(", "))
}

fn read<E: From<rusqlite::Error>>(
    conn: &Connection,
    kind: &'static Kind,
    sql: &str,
    params: Vec<SqlValue>,
    mut each: impl FnMut(Entry) -> Result<(), E>,
) -> Result<(), E> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params_from_iter(params))?;
    while let Some(row) = rows.next()? {
        let entry = Entry { kind, id: row.get(0)?, ts: row.get(2)?, json: entry_json(kind, row)? };
        each(entry)?;
    }
    Ok(())
}

/// The newest `n` matching entries of `kind`, oldest first.
pub fn last(conn: &Connection, kind: &'static Kind, filter: &Filter, n: usize) -> Result<Vec<Entry>, StoreError> {
    let (clause, mut params) = filter.clause(kind, &[]);
    params.push(SqlValue::Integer(i64::try_from(n).unwrap_or(i64::MAX)));
    let sql = format!("SELECT {} FROM {}{clause} ORDER BY id DESC LIMIT ?", select_list(kind), kind.name);
    let mut out = Vec::with_capacity(n.min(1024));
    read::<StoreError>(conn, kind, &sql, params, |e| {
        out.push(e);
        Ok(())
    })?;
    out.reverse();
    Ok(out)
}

/// At most `limit` matching entries of `kind` with id > `cursor`, oldest first.
pub fn after(
    conn: &Connection,
    kind: &'static Kind,
    filter: &Filter,
    cursor: i64,
    limit: usize,
) -> Result<Vec<Entry>, StoreError> {
    let (clause, mut params) = filter.clause(kind, &["id > ?"]);
    params.push(SqlValue::Integer(cursor));
    params.push(SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    let sql = format!("SELECT {} FROM {}{clause} ORDER BY id LIMIT ?", select_list(kind), kind.name);
    let mut out = Vec::new();
    read::<StoreError>(conn, kind, &sql, params, |e| {
        out.push(e);
        Ok(())
    })?;
    Ok(out)
}

/// Calls `each` on every matching entry of `kind`, oldest first, one row in
/// memory at a time; stops at the first error `each` returns.
pub fn each<E: From<rusqlite::Error>>(
    conn: &Connection,
    kind: &'static Kind,
    filter: &Filter,
    each: impl FnMut(Entry) -> Result<(), E>,
) -> Result<(), E> {
    let (clause, params) = filter.clause(kind, &[]);
    let sql = format!("SELECT {} FROM {}{clause} ORDER BY id", select_list(kind), kind.name);
    read(conn, kind, &sql, params, each)
}

/// The entry of `kind` with this id, if it is still kept.
pub fn by_id(conn: &Connection, kind: &'static Kind, id: i64) -> Result<Option<Entry>, StoreError> {
    let sql = format!("SELECT {} FROM {} WHERE id = ?", select_list(kind), kind.name);
    let mut found = None;
    read::<StoreError>(conn, kind, &sql, vec![SqlValue::Integer(id)], |e| {
        found = Some(e);
        Ok(())
    })?;
    Ok(found)
}

/// One WebSocket connection's events, summed up.
#[derive(Debug, Clone)]
pub struct Socket {
    pub connection_id: String,
    pub tab: Option<i64>,
    pub first_ts: i64,
    pub last_ts: i64,
    pub url: Option<String>,
    pub opened: bool,
}

/// The matching WebSocket connections, in the order they started.
pub fn websocket_connections(conn: &Connection, filter: &Filter) -> Result<Vec<Socket>, StoreError> {
    let kind = &crate::kind::WEBSOCKET_EVENTS;
    let (clause, params) = filter.clause(kind, &[]);
    let sql = format!(
        "SELECT connection_id, max(tab_id), min(ts), max(ts), max(url), max(event = 'open'), min(id)
         FROM websocket_events{clause} GROUP BY connection_id ORDER BY min(id)"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(params), |r| {
        Ok(Socket {
            connection_id: r.get(0)?,
            tab: r.get(1)?,
            first_ts: r.get(2)?,
            last_ts: r.get(3)?,
            url: r.get(4)?,
            opened: r.get::<_, Option<bool>>(5)?.unwrap_or(false),
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// How many entries of `kind` match.
pub fn count(conn: &Connection, kind: &'static Kind, filter: &Filter) -> Result<i64, StoreError> {
    let (clause, params) = filter.clause(kind, &[]);
    let sql = format!("SELECT count(*) FROM {}{clause}", kind.name);
    Ok(conn.prepare_cached(&sql)?.query_row(params_from_iter(params), |r| r.get(0))?)
}

/// The highest id ever issued for `kind` (0 when none): where `tail -f` starts.
pub fn last_issued(conn: &Connection, kind: &Kind) -> Result<i64, StoreError> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = ?1")?
        .query_row([kind.name], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// A read transaction, so that everything read in it comes from one snapshot.
/// Rolled back when dropped (it never writes).
pub struct Snapshot<'c> {
    conn: &'c Connection,
}

impl<'c> Snapshot<'c> {
    pub fn begin(conn: &'c Connection) -> Result<Self, StoreError> {
        conn.prepare_cached("BEGIN")?.execute([])?;
        Ok(Snapshot { conn })
    }
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// `ts` of the entry of `kind` with this id.
pub fn ts_of(conn: &Connection, kind: &Kind, id: Option<i64>) -> Result<Option<i64>, StoreError> {
    use rusqlite::OptionalExtension;
    let Some(id) = id else { return Ok(None) };
    let sql = format!("SELECT ts FROM {} WHERE id = ?1", kind.name);
    Ok(conn.prepare_cached(&sql)?.query_row([id], |r| r.get(0)).optional()?)
}

/// A tab that reported itself or has entries.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TabSeen {
    #[serde(rename = "tabId")]
    pub tab_id: i64,
    pub url: Option<String>,
    pub title: Option<String>,
    /// Newest `ts` of any entry of this tab, or when the tab last reported itself.
    pub last_event_ts: Option<i64>,
}

/// Every tab seen, the most recently active first.
pub fn tabs(conn: &Connection) -> Result<Vec<TabSeen>, StoreError> {
    use rusqlite::OptionalExtension;
    let mut ids: Vec<i64> = Vec::new();
    for kind in crate::kind::KINDS {
        // Walks the (tab_id, id) index.
        let sql = format!("SELECT DISTINCT tab_id FROM {} WHERE tab_id IS NOT NULL", kind.name);
        let mut stmt = conn.prepare_cached(&sql)?;
        ids.extend(stmt.query_map([], |r| r.get::<_, i64>(0))?.collect::<Result<Vec<_>, _>>()?);
    }
    let mut stmt = conn.prepare_cached("SELECT tab_id FROM tabs")?;
    ids.extend(stmt.query_map([], |r| r.get::<_, i64>(0))?.collect::<Result<Vec<_>, _>>()?);
    ids.sort_unstable();
    ids.dedup();
    let mut tabs = Vec::with_capacity(ids.len());
    for tab_id in ids {
        let (url, title, seen): (Option<String>, Option<String>, Option<i64>) = conn
            .prepare_cached("SELECT url, title, last_seen FROM tabs WHERE tab_id = ?1")?
            .query_row([tab_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?
            .unwrap_or((None, None, None));
        let mut last = seen;
        for kind in crate::kind::KINDS {
            let sql = format!("SELECT ts FROM {} WHERE tab_id = ?1 ORDER BY id DESC LIMIT 1", kind.name);
            let ts: Option<i64> = conn.prepare_cached(&sql)?.query_row([tab_id], |r| r.get(0)).optional()?;
            last = last.max(ts);
        }
        tabs.push(TabSeen { tab_id, url, title, last_event_ts: last });
    }
    tabs.sort_by_key(|t| std::cmp::Reverse(t.last_event_ts));
    Ok(tabs)
}
