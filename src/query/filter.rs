//! Filters → one SQL WHERE clause: the one predicate layer. `observe` (its
//! arguments), `tail`, `export` and the viewer (through [`super::rows::Filter`])
//! all turn the filters `kind.rs` declares into SQL here. One clause per filter
//! combination, so each combination gets its own plan: a catch-all `(?2 IS NULL OR tab_id = ?2)`
//! WHERE plans as a rowid scan and ignores the `(tab_id, id)` index (measured
//! on SQLite 3.53).

use rusqlite::types::Value as SqlValue;
use serde_json::Value;

use super::args::ObserveArgs;
use super::outcome;
use super::search;
use crate::kind::{self, COMMON_FILTERS, Filter, FilterOp, Kind, levels_at_least};

/// The condition of `what=errors`, and of one tab's rows.
const ERRORS_ONLY: &str = "level = 'error'";
const OF_TAB: &str = "tab_id = ?";
/// How long after a navigation began the page it left may still log (its unload, a stream cut off):
/// an entry dated later is the new page's without reading its `data`, so a long window costs no scan.
const LEAVING_MS: i64 = 10_000;
/// Not an entry of a document begun before this time (`docStart`: the page logged it as it was
/// left). Params: the time plus [`LEAVING_MS`], the time.
const LEFT_DOCUMENT_AFTER: &str =
    "(ts >= ? OR instr(data, '\"docStart\"') = 0 OR json_extract(data, '$.docStart') >= ?)";
/// Dated before this time, or an entry of a document begun before it (logged as it was left).
/// Params: the time, the time plus [`LEAVING_MS`], the time.
const BEFORE_OR_LEFT_DOCUMENT: &str =
    "(ts < ? OR (ts < ? AND instr(data, '\"docStart\"') > 0 AND json_extract(data, '$.docStart') < ?))";

/// The conditions of one observe call.
#[derive(Debug, Clone, Default)]
pub struct Where {
    conditions: Vec<String>,
    pub params: Vec<SqlValue>,
}

impl Where {
    /// Every condition of `args` on `kind`: the filters, `since_mark`, and `search` last
    /// (the scan runs only on rows the indexed conditions let through).
    pub fn new(kind: &Kind, errors_only: bool, args: &ObserveArgs) -> Self {
        let mut w = Where::filters(kind, errors_only, args);
        w.mark_and_search(kind, args);
        w
    }

    fn mark_and_search(&mut self, kind: &Kind, args: &ObserveArgs) {
        if let Some(mark) = &args.extras.since_mark {
            self.push_mark(mark.after(kind));
        }
        if let Some(began) = args.extras.document_since {
            // `since` holds its time already; the document's own entries only.
            self.push_left_document_after(began);
        }
        if let Some(needle) = &args.search {
            self.push(&search::condition(kind), SqlValue::Text(needle.clone()));
        }
    }

    fn filters(kind: &Kind, errors_only: bool, args: &ObserveArgs) -> Self {
        let mut w = Where::tab_only(errors_only, args.tab_id);
        for fv in &args.filters {
            w.push_filter(kind, fv.filter, &fv.value);
        }
        w
    }

    /// Only errors for `what=errors`, and only the tab's rows when one is named: what a tab holds
    /// before the other filters.
    pub fn tab_only(errors_only: bool, tab: Option<i64>) -> Self {
        let mut w = Where::default();
        if errors_only {
            w.conditions.push(ERRORS_ONLY.into());
        }
        if let Some(tab) = tab {
            w.push(OF_TAB, tab.into());
        }
        w
    }

    /// Whether a condition other than the tab's (and `what=errors`' level) narrows the rows.
    pub fn narrows_beyond_tab(&self) -> bool {
        self.conditions.iter().any(|c| c != OF_TAB && c != ERRORS_ONLY)
    }

    /// Only the filters every kind takes (`tabId`, `since`, `since_mark`): for reading several kinds at once.
    pub fn common(kind: &Kind, args: &ObserveArgs) -> Self {
        let mut common = args.clone();
        common.filters.retain(|f| COMMON_FILTERS.iter().any(|c| c.arg == f.filter.arg));
        common.search = None;
        Where::new(kind, false, &common)
    }

    /// Adds one of the filters `kind.rs` declares on `kind`, with the value the caller gave.
    pub fn push_filter(&mut self, kind: &Kind, f: &Filter, value: &Value) {
        // Several texts left out: none of them.
        if let (FilterOp::NotContains, Value::Array(items)) = (f.op, value) {
            for item in items {
                self.push_filter(kind, f, item);
            }
            return;
        }
        let param = match value {
            Value::String(s) => SqlValue::Text(s.clone()),
            Value::Number(n) => n.as_i64().map_or_else(|| SqlValue::Real(n.as_f64().unwrap_or(0.0)), SqlValue::Integer),
            _ => SqlValue::Null,
        };
        let column = filter_expr(f);
        match f.op {
            FilterOp::Equals => self.push(&format!("{column} = ?"), param),
            FilterOp::Contains => self.push(&format!("instr({column}, ?) > 0"), param),
            FilterOp::NotContains => self.push(&format!("coalesce(instr({column}, ?), 0) = 0"), param),
            FilterOp::AtLeast => self.push(&format!("{column} >= ?"), param),
            FilterOp::AtMost => self.push(&format!("{column} <= ?"), param),
            FilterOp::LevelAtLeast => {
                let levels = value.as_str().and_then(levels_at_least).unwrap_or(&[]);
                self.conditions.push(format!("{column} IN ({})", kind::quoted(levels)));
            }
            // A row with neither an error, a flag nor a status makes the condition NULL: not failed.
            FilterOp::Failed => {
                let failed = format!("COALESCE({}, 0)", outcome::failed_sql(kind));
                self.conditions.push(if value.as_bool() == Some(false) { format!("NOT {failed}") } else { failed });
            }
        }
    }

    /// The entries of the page loaded at `began` and after: dated from then, and not logged by the
    /// document before as it was left (`docStart`, read only from the few entries that carry it).
    pub fn push_page_since(&mut self, began: i64) {
        self.push("ts >= ?", began.into());
        self.push_left_document_after(began);
    }

    fn push_left_document_after(&mut self, began: i64) {
        self.conditions.push(LEFT_DOCUMENT_AFTER.to_owned());
        self.params.extend([SqlValue::Integer(began.saturating_add(LEAVING_MS)), SqlValue::Integer(began)]);
    }

    /// The entries before the page loaded at `began`: dated before it, or logged by a document
    /// begun before it as that document was left.
    pub fn push_pages_before(&mut self, began: i64) {
        self.conditions.push(BEFORE_OR_LEFT_DOCUMENT.to_owned());
        self.params.extend([began, began.saturating_add(LEAVING_MS), began].map(SqlValue::Integer));
    }

    /// Adds a condition with one parameter.
    pub fn push_param(&mut self, condition: &str, value: SqlValue) {
        self.push(condition, value);
    }

    /// Adds a mark's condition ([`super::marks::Mark::after`], [`super::marks::Mark::up_to`]).
    pub fn push_mark(&mut self, (condition, params): (&str, [i64; 3])) {
        self.conditions.push(condition.to_owned());
        self.params.extend(params.map(SqlValue::Integer));
    }

    /// Adds a condition without parameters.
    pub fn push_condition(&mut self, condition: &str) {
        self.conditions.push(condition.to_owned());
    }

    fn push(&mut self, condition: &str, value: SqlValue) {
        self.conditions.push(condition.to_owned());
        self.params.push(value);
    }

    /// True when some filter narrows the kind's rows (ids are then sparse).
    pub fn is_filtered(&self) -> bool {
        !self.conditions.is_empty()
    }

    /// ` WHERE c1 AND c2 [AND extra]`, or empty.
    pub fn clause(&self, extra: Option<&str>) -> String {
        let all: Vec<&str> = self.conditions.iter().map(String::as_str).chain(extra).collect();
        if all.is_empty() { String::new() } else { format!(" WHERE {}", all.join(" AND ")) }
    }

    /// The params followed by `extra`.
    pub fn params_with(&self, extra: &[i64]) -> Vec<SqlValue> {
        self.params.iter().cloned().chain(extra.iter().map(|v| SqlValue::Integer(*v))).collect()
    }
}

/// SQL for what a filter compares: the field of `data` it names where there is one, else its column.
pub fn filter_expr(f: &Filter) -> String {
    match f.or_field {
        Some(field) => format!("coalesce(json_extract(data, '$.{field}'), {})", f.column),
        None => f.column.to_string(),
    }
}

/// SQL for one field of a kind's entries: its column, or its place in `data`.
pub fn field_expr(kind: &Kind, field: &str) -> String {
    match kind.columns.iter().find(|c| c.field == field) {
        Some(c) => c.name.to_string(),
        None => format!("json_extract(data, '$.{field}')"),
    }
}

/// `SELECT` list of an entry row: id, tab_id, ts, the kind's columns, data, truncated.
pub fn select_list(kind: &Kind) -> String {
    let columns: Vec<&str> = kind.columns.iter().map(|c| c.name).collect();
    format!("id, tab_id, ts, {}, data, truncated", columns.join(", "))
}
