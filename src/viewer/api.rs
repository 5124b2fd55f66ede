//! The JSON twins of the views: `observe` arguments from the query string,
//! answered by `crate::query::observe` (the one query path), plus the overview
//! (ring statistics, tabs, pairing) and clearing through the store's clear.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{Viewer, own_origins, refuse};
use crate::kind::{self, ColumnType};
use crate::query::rows;
use crate::query::{self, QueryError};
use crate::store::{StoreError, now_ms, sql};

/// The page size when the page asks for none.
const DEFAULT_LIMIT: i64 = 200;
/// The viewer reads with the largest budget observe allows: it pages by cursor anyway.
const MAX_CHARS: i64 = crate::query::args::MAX_MAX_CHARS as i64;
const MAX_TOKENS: i64 = crate::query::args::MAX_MAX_TOKENS as i64;

/// Arguments that are whole numbers on the wire of `observe`.
const INTEGERS: [&str; 12] = [
    "limit",
    "offset",
    "after_cursor",
    "before_cursor",
    "tabId",
    "status_min",
    "status_max",
    "id",
    "max_chars",
    "max_tokens",
    "context_ms",
    "since",
];
const BOOLEANS: [&str; 2] = ["since_navigation", "group"];

/// A query string → observe's arguments for `what` (a parameter with an empty value is left out);
/// the message says which parameter is wrong.
pub(super) fn observe_args(what: &str, query: Option<&str>) -> Result<Map<String, Value>, String> {
    let mut args = Map::new();
    args.insert("what".into(), json!(what));
    let kind = kind::by_name(if what == "errors" { "logs" } else { what });
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let name = name.into_owned();
        if name == "what" {
            return Err("`what` is the path: /api/rows/{what}".into());
        }
        // `tabId=&since=`, as a form with cleared fields sends it: an empty parameter is left out.
        if value.is_empty() {
            continue;
        }
        // `tabId=1&tabId=2` is no filter by tab 2: a parameter says one thing, once.
        if args.contains_key(&name) {
            return Err(format!("{name} is given twice: send it once"));
        }
        let filter_ty = kind.and_then(|k| k.filter(&name)).map(|f| f.ty);
        let v = if name == "since" && value.parse::<i64>().is_err() {
            // "10m", RFC 3339: the strings `gasoline export --since` takes.
            json!(crate::export::since::parse(&value, now_ms()).ok_or_else(|| format!(
                "since \"{value}\" is not a time: send epoch ms, RFC 3339, or an age like 10m"
            ))?)
        } else if INTEGERS.contains(&name.as_str()) || filter_ty == Some(ColumnType::Integer) {
            let n = value.parse::<i64>().map_err(|_| format!("{name} must be a whole number, got \"{value}\""))?;
            budget_within_bounds(&name, n)?;
            json!(n)
        } else if filter_ty == Some(ColumnType::Real) {
            json!(value.parse::<f64>().map_err(|_| format!("{name} must be a number, got \"{value}\""))?)
        } else if BOOLEANS.contains(&name.as_str()) || filter_ty == Some(ColumnType::Boolean) {
            match value.as_ref() {
                "true" | "1" => json!(true),
                "false" | "0" => json!(false),
                other => return Err(format!("{name} must be true or false, got \"{other}\"")),
            }
        } else if name == "ids" {
            let ids: Result<Vec<i64>, _> = value.split(',').map(|s| s.trim().parse::<i64>()).collect();
            json!(ids.map_err(|_| format!("ids must be whole numbers separated by commas, got \"{value}\""))?)
        } else if name == "fields" && value != "all" {
            json!(value.split(',').map(str::trim).collect::<Vec<_>>())
        } else {
            json!(value)
        };
        args.insert(name, v);
    }
    let drill = args.contains_key("id") || args.contains_key("ids");
    let group = args.get("group") == Some(&json!(true));
    if kind.is_some() && !group {
        args.entry("fields").or_insert(json!("all"));
        if !drill {
            args.entry("limit").or_insert(json!(DEFAULT_LIMIT));
        }
    }
    args.entry("max_chars").or_insert(json!(MAX_CHARS));
    args.entry("max_tokens").or_insert(json!(MAX_TOKENS));
    Ok(args)
}

/// `max_chars` and `max_tokens` within observe's bounds, said with the viewer's defaults (observe's
/// own refusal would name observe's: 40000 characters where the viewer reads 500,000).
fn budget_within_bounds(name: &str, n: i64) -> Result<(), String> {
    let default = match name {
        "max_chars" => MAX_CHARS,
        "max_tokens" => MAX_TOKENS,
        _ => return Ok(()),
    };
    let Some(arg) = crate::query::arguments::observe_arg(name) else { return Ok(()) };
    let (min, max) = (arg.min.unwrap_or(i64::MIN), arg.max.unwrap_or(i64::MAX));
    if (min..=max).contains(&n) {
        Ok(())
    } else {
        Err(format!("{name} must be between {min} and {max} (default {default}), got {n}"))
    }
}

/// Runs observe with `args` off the runtime; its JSON text, or the refusal.
async fn observe(viewer: &Viewer, args: Map<String, Value>) -> Result<String, Response> {
    let parsed = query::parse(&args).map_err(|m| refuse(StatusCode::BAD_REQUEST, m))?;
    match viewer.store.read(move |conn| query::observe(conn, &parsed)).await {
        Ok(text) => Ok(text),
        Err(QueryError::Invalid(m)) => Err(refuse(StatusCode::BAD_REQUEST, m)),
        Err(QueryError::Store(e)) => Err(store_error(e)),
    }
}

fn store_error(e: StoreError) -> Response {
    crate::http::ApiError::from(e).into_response()
}

fn json_text(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// `GET /api/rows/{what}?…`: a page of a kind (or `errors`, `tabs`, `page`, `vitals`)
/// with observe's paging and filters, every stored field by default.
pub(super) async fn rows(State(viewer): State<Viewer>, Path(what): Path<String>, RawQuery(q): RawQuery) -> Response {
    if what == "summary" {
        return refuse(StatusCode::NOT_FOUND, "the summary is at /api/summary".into());
    }
    let args = match observe_args(&what, q.as_deref()) {
        Ok(a) => a,
        Err(m) => return refuse(StatusCode::BAD_REQUEST, m),
    };
    match observe(&viewer, args).await {
        Ok(text) => json_text(with_at(&what, text)),
        Err(r) => r,
    }
}

/// An answer of a kind with script positions (logs, errors, failed requests) with each entry's
/// `at`: where it happened as an agent's compact entry says it (its original location where a
/// source map gave one, `query::at_of`), so that the person's viewer names the line the agent is
/// told of. Other answers as they are.
fn with_at(what: &str, text: String) -> String {
    let mapped = what == "errors" || crate::kind::by_name(what).is_some_and(|k| k.frames_page.is_some());
    if !mapped {
        return text;
    }
    let Ok(mut answer) = serde_json::from_str::<Value>(&text) else { return text };
    let Some(entries) = answer.get_mut("entries").and_then(Value::as_array_mut) else { return text };
    for entry in entries {
        if entry.get("at").is_some() {
            continue; // a compact entry says it already
        }
        if let Some(at) = crate::query::at_of(entry) {
            entry["at"] = json!(at);
        }
    }
    answer.to_string()
}

/// `GET /api/rows/{what}/{id}`: one entry whole; 404 when it is not kept.
pub(super) async fn row(
    State(viewer): State<Viewer>,
    Path((what, id)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return refuse(StatusCode::BAD_REQUEST, format!("an entry id is a whole number, got \"{id}\""));
    };
    let mut args = match observe_args(&what, q.as_deref()) {
        Ok(a) => a,
        Err(m) => return refuse(StatusCode::BAD_REQUEST, m),
    };
    args.insert("id".into(), json!(id));
    args.remove("limit");
    let text = match observe(&viewer, args).await {
        Ok(text) => text,
        Err(r) => return r,
    };
    let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if answer["not_found"].as_array().is_some_and(|a| !a.is_empty()) {
        return refuse(
            StatusCode::NOT_FOUND,
            format!("no {what} entry {id}: it was trimmed from the ring, cleared, or never existed"),
        );
    }
    if answer["filtered_out"].as_array().is_some_and(|a| !a.is_empty()) {
        return refuse(StatusCode::NOT_FOUND, format!("{what} entry {id} does not match the arguments given with it"));
    }
    json_text(with_at(&what, text))
}

/// `GET /api/summary?tabId=&since=`: observe's summary.
pub(super) async fn summary(State(viewer): State<Viewer>, RawQuery(q): RawQuery) -> Response {
    let args = match observe_args("summary", q.as_deref()) {
        Ok(a) => a,
        Err(m) => return refuse(StatusCode::BAD_REQUEST, m),
    };
    match observe(&viewer, args).await {
        Ok(text) => json_text(text),
        Err(r) => r,
    }
}

/// `GET /api/overview`: the server, the database file, every ring (with what it
/// lost to eviction and to clearing), the paired extension and the tabs.
pub(super) async fn overview(State(viewer): State<Viewer>) -> Response {
    let read = viewer
        .store
        .read(|conn| {
            let kinds = crate::query::rows::rings(conn)?;
            Ok((kinds, rows::tabs(conn)?, sql::paired_extension(conn)?, sql::tracked_tab(conn)?))
        })
        .await;
    let (stats, tabs, extension, tracked) = match read {
        Ok(r) => r,
        Err(e) => return store_error(e),
    };
    let mut kinds = Vec::new();
    for crate::query::rows::Ring { stats: s, oldest_ts, newest_ts } in stats {
        // What the ring lost since the first id: observe's own accounting, from cursor 0.
        let args = json!({ "what": s.kind, "after_cursor": 0, "limit": 1, "fields": ["id"] });
        let lost: Value = match observe(&viewer, args.as_object().cloned().unwrap_or_default()).await {
            Ok(text) => serde_json::from_str(&text).unwrap_or(Value::Null),
            Err(r) => return r,
        };
        let kind = kind::by_name(s.kind);
        kinds.push(json!({
            "kind": s.kind,
            "count": s.count,
            "capacity": s.capacity,
            "oldest_id": s.oldest_id,
            "newest_id": s.newest_id,
            "last_issued_id": s.last_issued_id,
            "oldest_ts": oldest_ts,
            "newest_ts": newest_ts,
            "evicted": lost["evicted_since_cursor"].as_i64().unwrap_or(0),
            "cleared": lost["cleared_since_cursor"].as_i64().unwrap_or(0),
            "filters": kind.map(filters_of),
        }));
    }
    let last_event_ts = kinds.iter().filter_map(|k| k["newest_ts"].as_i64()).max();
    let path = viewer.store.path().to_path_buf();
    let (db_bytes, wal_bytes) = crate::store::file_bytes(&path);
    Json(json!({
        "server": {
            "service": "gasoline",
            "version": env!("CARGO_PKG_VERSION"),
            "port": viewer.port,
            "pid": std::process::id(),
            "now": now_ms(),
        },
        "db": { "path": path.display().to_string(), "bytes": db_bytes, "wal_bytes": wal_bytes },
        "extension": { "id": extension, "last_event_ts": last_event_ts },
        "tracked_tab_id": tracked,
        "levels": kind::LEVELS,
        "kinds": kinds,
        "tabs": tabs,
    }))
    .into_response()
}

/// The observe arguments that narrow `kind` and that the page may send: the kind's
/// filters, and `search` when observe takes it (asked of observe's own parser).
fn filters_of(kind: &'static kind::Kind) -> Vec<&'static str> {
    let mut args: Vec<&'static str> = kind.filters.iter().map(|f| f.arg).collect();
    let probe = json!({ "what": kind.name, "search": "x" });
    if query::parse(probe.as_object().unwrap_or(&Map::new())).is_ok() {
        args.push("search");
    }
    args
}

/// `POST /api/clear` with `{"what": "all" | kind}`: what `gasoline clear` does,
/// through the store's writer. Only from the viewer's own page: a same-origin
/// `Origin` or `Sec-Fetch-Site`, and a JSON body (which no plain form can send).
pub(super) async fn clear(State(viewer): State<Viewer>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let same_origin = origin.is_some_and(|o| own_origins(viewer.port).iter().any(|own| own == o))
        || (origin.is_none() && site == Some("same-origin"));
    if !same_origin {
        return refuse(
            StatusCode::FORBIDDEN,
            "clearing is done from the viewer's own page (same origin), or with `gasoline clear`".into(),
        );
    }
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if !json_body {
        return refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send {\"what\": \"all\"} as application/json".into());
    }
    // `{"what":"logs","what":"all"}` must not clear everything: a key named twice is refused.
    let value = match crate::unique_keys::from_slice(&body) {
        Ok(value) => value,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("{e}: send {{\"what\": \"all\"}} or one kind")),
    };
    // `{"what": "logs", "extra": 1}` is not quietly a clear of the logs: a key it does not take is named.
    if let Some(object) = value.as_object() {
        let unknown: Vec<String> = object.keys().filter(|k| *k != "what").map(|k| format!("\"{k}\"")).collect();
        if !unknown.is_empty() {
            return refuse(
                StatusCode::BAD_REQUEST,
                format!(
                    "clear takes only \"what\", not {}: send {{\"what\": \"all\"}} or one kind",
                    unknown.join(", ")
                ),
            );
        }
    }
    let what = value["what"].as_str().map(str::to_owned);
    let Some(what) = what else {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!("send {{\"what\": \"all\"}} or one of {}", kind::names().join(", ")),
        );
    };
    let only = if what == "all" {
        None
    } else {
        match kind::named(&what, &["all"]) {
            Ok(k) => Some(k),
            Err(e) => return refuse(StatusCode::BAD_REQUEST, e.to_string()),
        }
    };
    match viewer.store.clear(only).await {
        Ok(cleared) => Json(json!({ "cleared": cleared, "what": what })).into_response(),
        Err(e) => store_error(e),
    }
}

/// Any other `/api/` path.
pub(super) async fn unknown(uri: axum::http::Uri) -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        format!(
            "no viewer API at {}: there are /api/overview, /api/summary, /api/rows/{{what}}, /api/rows/{{what}}/{{id}}, /api/events, POST /api/clear",
            uri.path()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_become_typed_observe_arguments() {
        let a = observe_args("network_waterfall", Some("tabId=3&status_min=400&url=%2Fapi&after_cursor=7")).unwrap();
        assert_eq!(a["tabId"], json!(3));
        assert_eq!(a["status_min"], json!(400));
        assert_eq!(a["url"], json!("/api"));
        assert_eq!(a["after_cursor"], json!(7));
        assert_eq!(a["fields"], json!("all"));
        assert!(query::parse(&a).is_ok());
        assert!(observe_args("logs", Some("limit=ten")).unwrap_err().contains("limit must be a whole number"));
        assert_eq!(observe_args("logs", Some("tabId=1&tabId=2")).unwrap_err(), "tabId is given twice: send it once");
        let e = observe_args("logs", Some("max_chars=2000000")).unwrap_err();
        assert_eq!(e, "max_chars must be between 1000 and 500000 (default 500000), got 2000000");
        let g = observe_args("errors", Some("group=true")).unwrap();
        assert!(query::parse(&g).is_ok(), "{g:?}");
        // A kind's boolean filter is read as a boolean, as observe takes it.
        let f = observe_args("network_bodies", Some("failed=1")).unwrap();
        assert_eq!(f["failed"], json!(true));
        assert!(query::parse(&f).is_ok(), "{f:?}");
        assert_eq!(
            observe_args("network_waterfall", Some("failed=maybe")).unwrap_err(),
            "failed must be true or false, got \"maybe\""
        );
    }
}
