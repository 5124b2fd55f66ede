//! Reading a kind's rows for the person-facing commands (`tail`, `export`, `status`) and
//! for `configure action=export` and `status`: their filters as SQL, scans in id order, and
//! each row as the same entry JSON `observe` answers. Reads only.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};

use serde_json::Value;

use super::entry::entry_json;
use super::filter::{Where, select_list};
use crate::kind::{COMMON_FILTERS, KINDS, Kind};
use crate::store::StoreError;

/// What narrows the rows of a kind for a person's command. Each field is one
/// of the filters `kind.rs` declares (or the one definition of a failed
/// request), turned into SQL by the same [`Where`] observe uses.
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
    /// With `failed_only`: not the browser's own guess at a favicon either
    /// ([`crate::query::outcome::app_failed_sql`]), as observe's hints and counts leave it out.
    pub app_failures: bool,
    /// One of the kind's equality filters, by its observe name (`connectionId`, `type`), and its value.
    pub equals: Option<(&'static str, String)>,
}

/// The command-line flag of each filter that not every kind has, and the observe filter behind it.
const FLAGS: [(&str, &str); 4] =
    [("--url", "url"), ("--level", "min_level"), ("--status-min", "status_min"), ("--failed", "failed")];

impl Filter {
    /// The first filter `kind` cannot honour, by its flag, if any.
    pub fn unsupported(&self, kind: &Kind) -> Option<&'static str> {
        let given = [self.url.is_some(), self.min_level.is_some(), self.status_min.is_some(), self.failed_only];
        for ((flag, arg), given) in FLAGS.iter().zip(given) {
            if given && kind.filter(arg).is_none() {
                return Some(flag);
            }
        }
        None
    }

    /// The conditions on `kind`'s rows; a filter the kind has no column for is left out.
    pub fn to_where(&self, kind: &Kind) -> Where {
        let mut w = Where::default();
        let common = [self.tab.map(Value::from), self.since_ms.map(Value::from)];
        for (filter, value) in COMMON_FILTERS.iter().zip(common) {
            if let Some(value) = value {
                w.push_filter(kind, filter, &value);
            }
        }
        let narrowing = [
            ("url", self.url.clone().map(Value::from)),
            ("min_level", self.min_level.map(Value::from)),
            ("status_min", self.status_min.map(Value::from)),
            ("failed", self.failed_only.then_some(Value::Bool(true))),
        ];
        let equals = self.equals.as_ref().map(|(arg, v)| (*arg, Some(Value::from(v.as_str()))));
        for (arg, value) in narrowing.into_iter().chain(equals) {
            if let (Some(filter), Some(value)) = (kind.filter(arg), value) {
                w.push_filter(kind, filter, &value);
            }
        }
        if self.failed_only && self.app_failures && kind.filter("failed").is_some() {
            w.push_condition(&format!("NOT {}", crate::query::outcome::browser_guess_sql()));
        }
        w
    }

    /// ` WHERE …` (or empty) with `extra` last, and its parameters followed by `extra_params`.
    fn clause(&self, kind: &Kind, extra: Option<&str>, extra_params: &[i64]) -> (String, Vec<SqlValue>) {
        let w = self.to_where(kind);
        (w.clause(extra), w.params_with(extra_params))
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
    let (clause, params) = filter.clause(kind, None, &[i64::try_from(n).unwrap_or(i64::MAX)]);
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
    let (clause, params) = filter.clause(kind, Some("id > ?"), &[cursor, i64::try_from(limit).unwrap_or(i64::MAX)]);
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
    let (clause, params) = filter.clause(kind, None, &[]);
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

/// The matching WebSocket and EventSource connections, in the order they started: not Socket.IO's
/// sessions over long polls (`transport: "polling"`), whose polls are HTTP requests of their own.
pub fn websocket_connections(conn: &Connection, filter: &Filter) -> Result<Vec<Socket>, StoreError> {
    let kind = &crate::kind::WEBSOCKET_EVENTS;
    let (clause, params) = filter.clause(kind, Some("json_extract(data, '$.transport') IS NOT 'polling'"), &[]);
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
    let (clause, params) = filter.clause(kind, None, &[]);
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

/// `ts` of the entry of `kind` with this id.
pub fn ts_of(conn: &Connection, kind: &Kind, id: Option<i64>) -> Result<Option<i64>, StoreError> {
    use rusqlite::OptionalExtension;
    let Some(id) = id else { return Ok(None) };
    let sql = format!("SELECT ts FROM {} WHERE id = ?1", kind.name);
    Ok(conn.prepare_cached(&sql)?.query_row([id], |r| r.get(0)).optional()?)
}

/// One ring as `gasoline status` and `configure action=status` report it.
#[derive(Debug, serde::Serialize)]
pub struct Ring {
    #[serde(flatten)]
    pub stats: crate::store::sql::KindStats,
    /// `ts` of the oldest and newest entries kept (ms since the epoch).
    pub oldest_ts: Option<i64>,
    pub newest_ts: Option<i64>,
}

/// Every ring, in kind order: the one reading of them that `gasoline status`,
/// `configure action=status` and the viewer's `/api/overview` share.
pub fn rings(conn: &Connection) -> Result<Vec<Ring>, StoreError> {
    let mut kinds = Vec::new();
    for kind in KINDS {
        let stats = crate::store::sql::kind_stats(conn, kind)?;
        let (oldest_ts, newest_ts) = (ts_of(conn, kind, stats.oldest_id)?, ts_of(conn, kind, stats.newest_id)?);
        kinds.push(Ring { stats, oldest_ts, newest_ts });
    }
    Ok(kinds)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{ACTIONS, EXTENSION_LOGS, LOGS, NETWORK_WATERFALL, WEBSOCKET_EVENTS};
    use crate::query::filter::Where;
    use serde_json::json;

    /// The conditions and parameters of a clause, in a set's order (AND commutes).
    fn conditions((clause, params): (String, Vec<SqlValue>)) -> (Vec<String>, Vec<String>) {
        let mut c: Vec<String> = clause.trim_start_matches(" WHERE ").split(" AND ").map(str::to_owned).collect();
        let mut p: Vec<String> = params.iter().map(|v| format!("{v:?}")).collect();
        c.sort();
        p.sort();
        (c, p)
    }

    /// The SQL observe makes of these arguments for `kind`.
    fn observe_where(kind: &Kind, args: Value) -> (Vec<String>, Vec<String>) {
        let Value::Object(args) = args else { unreachable!("arguments are an object") };
        let parsed = crate::query::parse(&args).unwrap_or_else(|e| panic!("observe refused {args:?}: {e}"));
        let w = Where::new(kind, false, &parsed);
        conditions((w.clause(None), w.params))
    }

    fn command_where(kind: &Kind, filter: &Filter) -> (Vec<String>, Vec<String>) {
        conditions(filter.clause(kind, None, &[]))
    }

    #[test]
    fn a_command_s_filters_are_observe_s_filters() {
        let filter = Filter {
            tab: Some(7),
            since_ms: Some(1_700_000_000_000),
            url: Some("/api".into()),
            status_min: Some(400),
            ..Filter::default()
        };
        let observe = observe_where(
            &NETWORK_WATERFALL,
            json!({"what": "network_waterfall", "tabId": 7, "since": 1_700_000_000_000_i64, "url": "/api", "status_min": 400}),
        );
        assert_eq!(command_where(&NETWORK_WATERFALL, &filter), observe);

        let filter = Filter { min_level: Some("warn"), ..Filter::default() };
        assert_eq!(command_where(&LOGS, &filter), observe_where(&LOGS, json!({"what": "logs", "min_level": "warn"})));

        let filter = Filter { equals: Some(("connectionId", "c1".into())), ..Filter::default() };
        let observe = observe_where(&WEBSOCKET_EVENTS, json!({"what": "websocket_events", "connectionId": "c1"}));
        assert_eq!(command_where(&WEBSOCKET_EVENTS, &filter), observe);
    }

    #[test]
    fn failed_is_outcome_s_definition_and_only_for_requests() {
        let filter = Filter { failed_only: true, ..Filter::default() };
        let (sql, _) = command_where(&NETWORK_WATERFALL, &filter);
        assert_eq!(sql, [format!("COALESCE({}, 0)", crate::query::outcome::failed_sql(&NETWORK_WATERFALL))]);
        let observe = observe_where(&NETWORK_WATERFALL, json!({"what": "network_waterfall", "failed": true}));
        assert_eq!(command_where(&NETWORK_WATERFALL, &filter), observe, "--failed is observe's failed=true");
        assert_eq!(filter.unsupported(&LOGS), Some("--failed"));
        assert_eq!(filter.unsupported(&NETWORK_WATERFALL), None);
        let app = Filter { app_failures: true, ..filter };
        let (clause, _) = app.clause(&NETWORK_WATERFALL, None, &[]);
        assert!(clause.ends_with(&format!(" AND NOT {}", crate::query::outcome::browser_guess_sql())), "{clause}");
    }

    #[test]
    fn a_flag_applies_where_observe_has_the_filter() {
        let url = Filter { url: Some("x".into()), ..Filter::default() };
        assert_eq!(url.unsupported(&EXTENSION_LOGS), Some("--url"));
        assert_eq!(url.unsupported(&LOGS), None, "a log's page URL");
        assert_eq!(url.unsupported(&ACTIONS), None);
        let level = Filter { min_level: Some("error"), ..Filter::default() };
        assert_eq!(level.unsupported(&NETWORK_WATERFALL), Some("--level"));
        let status = Filter { status_min: Some(500), ..Filter::default() };
        assert_eq!(status.unsupported(&ACTIONS), Some("--status-min"));
    }
}
