//! What became of a request: the one definition of "failed" that every reader
//! uses (`tail` and export filters, an error's context, the summary, a tail line).
//!
//! A request FAILED when the browser or the page reports an error — the entry
//! has an `error`, or `failed: true` (a page-side row that knows it failed
//! without a reason) — or its status is 400 or more. A status of 0, or none,
//! without an error is UNKNOWN (a request still in flight, an opaque response,
//! a row without its status yet), never failed.
//!
//! A failure can be the BROWSER'S OWN GUESS rather than the app's: Chrome asks every origin
//! for `/favicon.ico` whether the page names an icon or not, and a 404 there says nothing of
//! the app. Such a request still failed (it stays in the waterfall and in any listing by
//! status), but an error's context and summary's failed lists leave it out
//! ([`browser_guess_sql`]).
//!
//! Both request kinds keep the status in the `status` column (`responseStatus`
//! on the wire for network_waterfall, `status` for network_bodies).

use rusqlite::Connection;
use serde_json::Value;

use super::QueryError;
use super::filter::field_expr;
use crate::kind::{Kind, LEFT_PAGE_PREFIX, LONG_POLL_URLS, quoted};

/// The SQL column holding a request kind's HTTP status.
const STATUS_COLUMN: &str = "status";

/// The outcome of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The browser or the page reported an error (`error`, or `failed: true`), whatever the status.
    Error,
    /// An HTTP status (100 or more).
    Status(i64),
    /// No error, and no status or a status below 100 (0: no response seen).
    Unknown,
}

impl Outcome {
    /// The outcome of a request with this status, error text (present or not) and `failed` flag.
    pub fn new(status: Option<i64>, has_error: bool, failed_flag: bool) -> Self {
        match status {
            _ if has_error || failed_flag => Outcome::Error,
            Some(s) if s >= 100 => Outcome::Status(s),
            _ => Outcome::Unknown,
        }
    }

    /// The outcome of a stored entry of `kind`, as observe's entry JSON.
    pub fn of_entry(kind: &Kind, entry: &Value) -> Self {
        let status = status_field(kind).and_then(|f| entry.get(f)).and_then(Value::as_i64);
        let has_error = entry.get("error").is_some_and(|e| !e.is_null());
        let failed_flag = entry.get("failed").and_then(Value::as_bool).unwrap_or(false);
        Outcome::new(status, has_error, failed_flag)
    }

    /// True when the request failed: an error was reported, or the status is 400 or more.
    pub fn failed(self) -> bool {
        match self {
            Outcome::Error => true,
            Outcome::Status(s) => s >= 400,
            Outcome::Unknown => false,
        }
    }

    /// The summary's class: `1xx` … `5xx`, `failed` (an error, or a status past 599), `unknown`.
    pub fn class(self) -> &'static str {
        match self {
            Outcome::Error => "failed",
            Outcome::Status(s) if s < 600 => ["1xx", "2xx", "3xx", "4xx", "5xx"][(s / 100 - 1) as usize],
            Outcome::Status(_) => "failed",
            Outcome::Unknown => "unknown",
        }
    }
}

/// The wire name of a kind's status field (`responseStatus`, `status`), if it has one.
pub fn status_field(kind: &Kind) -> Option<&'static str> {
    kind.column(STATUS_COLUMN).map(|c| c.field)
}

/// True when `kind` holds requests (it has a status).
pub fn is_request_kind(kind: &Kind) -> bool {
    status_field(kind).is_some()
}

/// The SQL condition "this request failed" over a row of `kind` (a request kind):
/// the same definition as [`Outcome::failed`].
pub fn failed_sql(kind: &Kind) -> String {
    format!(
        "({} IS NOT NULL OR {} = 1 OR {STATUS_COLUMN} >= 400)",
        field_expr(kind, "error"),
        field_expr(kind, "failed")
    )
}

/// The SQL condition "this request is the browser's own guess" over a row of a request kind:
/// `/favicon.ico` at the root of any origin, with any query or fragment (ASCII case ignored,
/// as LIKE compares), answered 404.
pub fn browser_guess_sql() -> String {
    format!("({STATUS_COLUMN} = 404 AND {})", favicon_sql())
}

/// The SQL condition "this logs entry is the browser's message about its own guess" (deep mode's
/// browser console): Chrome's "Failed to load resource: the server responded with a status of 404"
/// of a [`browser_guess_sql`] request. Grouped answers (summary, errors by group, compare) leave it
/// out as the summary's failed lists leave out the request.
pub fn browser_guess_log_sql() -> String {
    format!(
        "(source = 'browser' AND message LIKE 'Failed to load resource: the server responded with a status of 404%' AND {})",
        favicon_sql()
    )
}

/// The SQL condition "`url` is `/favicon.ico` at the root of its origin".
fn favicon_sql() -> String {
    // The path: what follows the host (the URL after `://`, from its first `/`).
    let rest = "substr(url, instr(url, '://') + 3)";
    let path = format!("substr({rest}, instr({rest}, '/'))");
    format!(
        "(instr(url, '://') > 0 AND instr({rest}, '/') > 0 \
         AND ({path} LIKE '/favicon.ico' OR {path} LIKE '/favicon.ico?%' OR {path} LIKE '/favicon.ico#%'))"
    )
}

/// The SQL condition "this request is a long poll" over a row of a request kind: its URL holds one
/// of [`LONG_POLL_URLS`] (ASCII case ignored).
pub fn long_poll_sql() -> String {
    let any: Vec<String> = LONG_POLL_URLS.iter().map(|p| format!("instr(lower(url), {}) > 0", quoted(&[p]))).collect();
    format!("({})", any.join(" OR "))
}

/// The SQL condition "the app's request failed" over a row of `kind`: failed ([`failed_sql`]),
/// and not the browser's own guess ([`browser_guess_sql`]).
pub fn app_failed_sql(kind: &Kind) -> String {
    format!("({} AND NOT {})", failed_sql(kind), browser_guess_sql())
}

/// Longest after a failed request that the same request succeeding is its retry.
pub const RETRY_MS: i64 = 10_000;

/// Whether the same request succeeded after the failed row `id` of `kind`: a later row of the same
/// tab, method and URL answered below 400 within [`RETRY_MS`] (and at `until` or before, where
/// given): an access token refreshed and the request sent again, a client's retry that worked. The
/// failure was met, and is not what went wrong after it. Only a failure a retry meets (no answer,
/// 401, 403, 408, 425, 429, 5xx): a form answered 400 or 422 and sent again corrected was refused
/// for what it held. Asked of one row at a time (the rows a list shows): over a storm's thousands
/// of failures in seconds, a condition on every row would read the window once per row.
pub fn retried(conn: &Connection, kind: &Kind, id: i64, until: Option<i64>) -> Result<bool, QueryError> {
    let k = kind.name;
    let method = field_expr(kind, "method");
    let sql = format!(
        "SELECT 1 FROM {k} AS failed JOIN {k} AS again ON again.tab_id = failed.tab_id AND again.ts > failed.ts \
         AND again.ts <= failed.ts + {RETRY_MS} AND again.ts <= ?2 AND again.url = failed.url \
         AND coalesce(again.{method}, '') = coalesce(failed.{method}, '') \
         AND again.{STATUS_COLUMN} > 0 AND again.{STATUS_COLUMN} < 400 \
         WHERE failed.id = ?1 AND (coalesce(failed.{STATUS_COLUMN}, 0) IN (0, 401, 403, 408, 425, 429) \
           OR failed.{STATUS_COLUMN} >= 500) LIMIT 1"
    );
    Ok(conn.prepare_cached(&sql)?.exists(rusqlite::params![id, until.unwrap_or(i64::MAX)])?)
}

/// The SQL condition "the browser canceled this request as its page was left" over a row of a
/// request kind: its error begins with [`LEFT_PAGE_PREFIX`] (a stream cut by a reload). It ended
/// with its page, after anything that happened on it.
pub fn left_page_sql(kind: &Kind) -> String {
    let prefix = quoted(&[LEFT_PAGE_PREFIX]);
    format!("(substr(coalesce({}, ''), 1, length({prefix})) = {prefix})", field_expr(kind, "error"))
}

/// SQL expressions that read what [`Outcome::new`] takes, in its order: status,
/// error (NULL when none), failed flag (1 when true).
pub fn outcome_columns(kind: &Kind) -> [String; 3] {
    [STATUS_COLUMN.to_string(), field_expr(kind, "error"), field_expr(kind, "failed")]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{NETWORK_BODIES, NETWORK_WATERFALL};
    use serde_json::json;

    #[test]
    fn failed_means_an_error_or_a_status_of_400_or_more() {
        let cases = [
            (Some(0), false, false, false, "unknown"),
            (None, false, false, false, "unknown"),
            (Some(200), true, false, true, "failed"),
            (None, false, true, true, "failed"),
            (Some(404), false, false, true, "4xx"),
            (Some(500), false, false, true, "5xx"),
            (Some(204), false, false, false, "2xx"),
            (Some(0), true, false, true, "failed"),
        ];
        for (status, error, flag, failed, class) in cases {
            let o = Outcome::new(status, error, flag);
            assert_eq!(o.failed(), failed, "{status:?} {error} {flag}");
            assert_eq!(o.class(), class, "{status:?} {error} {flag}");
        }
    }

    #[test]
    fn entries_are_read_by_their_kind_s_status_field() {
        let w = json!({"responseStatus": 503});
        assert_eq!(Outcome::of_entry(&NETWORK_WATERFALL, &w), Outcome::Status(503));
        let b = json!({"status": 0, "failed": true});
        assert!(Outcome::of_entry(&NETWORK_BODIES, &b).failed());
        let b = json!({"status": 0, "error": null});
        assert_eq!(Outcome::of_entry(&NETWORK_BODIES, &b), Outcome::Unknown);
    }

    #[test]
    fn the_browser_s_guess_is_a_favicon_at_an_origin_s_root_answered_404() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let guess = |url: &str, status: i64| -> bool {
            conn.query_row(
                &format!("SELECT {} FROM (SELECT ?1 AS url, ?2 AS status)", browser_guess_sql()),
                rusqlite::params![url, status],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert!(guess("http://localhost:5173/favicon.ico", 404));
        assert!(guess("https://app.example/favicon.ico?v=2", 404));
        assert!(guess("http://127.0.0.1:9000/FAVICON.ICO#x", 404));
        assert!(!guess("http://localhost:5173/favicon.ico", 500));
        assert!(!guess("http://localhost:5173/favicon.ico", 200));
        assert!(!guess("http://localhost:5173/static/favicon.ico", 404));
        assert!(!guess("http://localhost:5173/favicon.icon", 404));
        assert!(!guess("http://localhost:5173/api/favicon.ico", 404));
        assert!(!guess("/favicon.ico", 404));
    }

    #[test]
    fn the_sql_reads_the_same_fields() {
        assert_eq!(
            failed_sql(&NETWORK_WATERFALL),
            "(error IS NOT NULL OR json_extract(data, '$.failed') = 1 OR status >= 400)"
        );
        assert_eq!(
            failed_sql(&NETWORK_BODIES),
            "(json_extract(data, '$.error') IS NOT NULL OR json_extract(data, '$.failed') = 1 OR status >= 400)"
        );
    }
}
