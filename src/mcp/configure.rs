//! The configure tool: arguments → store calls → a small JSON answer.

use serde_json::{Map, Value, json};

use crate::export::{self, Format, Selection};
use crate::kind::{self, Kind};
use crate::query::args::as_integer;
use crate::query::rows::Filter;
use crate::query::{QueryError, arguments};
use crate::store::{Store, now_ms, sql};

/// Runs one configure call; `Err(Invalid)` is the caller's mistake.
pub async fn run(store: &Store, args: &Map<String, Value>) -> Result<Value, QueryError> {
    let invalid = |m: String| QueryError::Invalid(m);
    let actions: Vec<&str> = arguments::ACTIONS.iter().map(|(name, _)| *name).collect();
    let action = args
        .get("action")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("`action` is required: one of {}", actions.join(", "))))?;
    let Some((_, applies)) = arguments::ACTIONS.iter().find(|(name, _)| *name == action) else {
        return Err(invalid(format!("unknown action \"{action}\": send one of {}", actions.join(", "))));
    };
    let allowed = arguments::configure_names(*applies);
    if let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!("`{extra}` does not apply to action={action}; it takes {}", allowed.join(", "))));
    }
    match action {
        "track_tab" => {
            let tab = match args.get("tabId") {
                // Left out is a mistake (as every other action's missing argument is), not "stop".
                None => {
                    return Err(invalid(
                        "track_tab needs `tabId`: a tab's id (observe what=tabs lists them), or null to stop tracking"
                            .into(),
                    ));
                }
                Some(Value::Null) => None,
                Some(v) => {
                    Some(as_integer(v).ok_or_else(|| invalid(format!("tabId must be an integer or null, got {v}")))?)
                }
            };
            store.set_setting(sql::TRACKED_TAB, tab.map(|t| t.to_string())).await?;
            Ok(json!({ "tracked_tab_id": tab }))
        }
        "clear" => {
            let what = args.get("what").and_then(Value::as_str).ok_or_else(|| {
                invalid(format!("clear needs `what`: \"all\" or one of {}", kind::names().join(", ")))
            })?;
            let only = if what == "all" { None } else { Some(kind_arg(what)?) };
            let cleared = store.clear(only).await?;
            Ok(json!({ "cleared": cleared, "what": what }))
        }
        "capacity" => {
            let what = args
                .get("what")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(format!("capacity needs `what`: one of {}", kind::names().join(", "))))?;
            let kind = kind_arg(what)?;
            if let Some(v) = args.get("capacity").filter(|v| !v.is_null()) {
                let capacity = as_integer(v)
                    .ok_or_else(|| kind::capacity_refused(v))
                    .and_then(kind::check_capacity)
                    .map_err(invalid)?;
                store.set_capacity(kind, capacity).await?;
            }
            let stats = store.read(move |conn| sql::kind_stats(conn, kind)).await?;
            Ok(json!(stats))
        }
        "export" => export(store, args).await,
        "mark" => mark(store, args).await,
        _ => status(store).await,
    }
}

/// Writes a HAR or JSONL export under the data directory (beside the database,
/// in `exports/`) and answers its path and size, for the agent to hand to the user.
async fn export(store: &Store, args: &Map<String, Value>) -> Result<Value, QueryError> {
    let invalid = |m: String| QueryError::Invalid(m);
    let format = match args.get("format") {
        Some(Value::String(f)) if f == "har" => Format::Har,
        Some(Value::String(f)) if f == "jsonl" => Format::Jsonl,
        None | Some(Value::Null) => return Err(invalid("export needs `format`: \"har\" or \"jsonl\"".into())),
        Some(other) => return Err(invalid(format!("format must be \"har\" or \"jsonl\", got {other}"))),
    };
    let tab = match args.get("tabId") {
        None | Some(Value::Null) => None,
        Some(v) => Some(as_integer(v).ok_or_else(|| invalid(format!("tabId must be an integer, got {v}")))?),
    };
    let since_ms = match args.get("since") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Number(n)) => {
            Some(as_integer(v).ok_or_else(|| invalid(format!("since must be whole milliseconds, got {n}")))?)
        }
        Some(Value::String(s)) => Some(export::since::parse(s, now_ms()).ok_or_else(|| {
            invalid(format!("since \"{s}\" is not a time: send epoch ms, RFC 3339, or an age like \"10m\""))
        })?),
        Some(other) => return Err(invalid(format!("since must be epoch ms or a time string, got {other}"))),
    };
    let url = match args.get("url") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(invalid(format!("url must be a string, got {other}"))),
    };
    let kinds = match (format, args.get("what").and_then(Value::as_str)) {
        (_, None) | (Format::Jsonl, Some("all")) => Vec::new(),
        (Format::Har, Some(_)) => {
            return Err(invalid("`what` applies to format=jsonl; har is the network capture".into()));
        }
        (Format::Jsonl, Some(name)) => vec![kind_arg(name)?],
    };
    let filter = Filter { tab, since_ms, url, ..Filter::default() };
    if let Some(kind) = kinds.iter().find(|k| filter.unsupported(k).is_some()) {
        return Err(invalid(format!("`url` does not apply to {}: it has no URL", kind.name)));
    }
    let dir = store.path().parent().map_or_else(|| std::path::PathBuf::from("exports"), |d| d.join("exports"));
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S%.3f");
    let path = dir.join(format!("gasoline-{stamp}.{}", format.extension()));
    let selection = Selection { filter, kinds };
    let target = path.clone();
    let written = store
        .read(move |conn| {
            if let Err(e) = crate::store::create_private_dir(&dir, false) {
                return Ok(Err(format!("cannot create {}: {e}", dir.display())));
            }
            match export::to_file(conn, format, &selection, &target, &export::Quiet) {
                Ok(written) => Ok(Ok(written)),
                Err(export::ExportError::Store(e)) => Err(e),
                Err(other) => Ok(Err(other.to_string())),
            }
        })
        .await?
        .map_err(invalid)?;
    Ok(json!({
        "path": path.display().to_string(),
        "format": format.extension(),
        "bytes": written.bytes,
        "entries": written.entries,
    }))
}

/// Sets (or moves) a named mark: now, and every kind's last id.
async fn mark(store: &Store, args: &Map<String, Value>) -> Result<Value, QueryError> {
    let name = match args.get("name") {
        Some(Value::String(s)) => crate::query::args::mark_name(s, "name").map_err(QueryError::Invalid)?,
        Some(other) if !other.is_null() => {
            return Err(QueryError::Invalid(format!(
                "name must be a string (a mark's name such as \"before-fix\"), got {}",
                crate::query::args::kind_of(other)
            )));
        }
        _ => {
            return Err(QueryError::Invalid(
                "mark needs `name`: a name for this moment (e.g. \"before-fix\"), to read since it (observe since_mark) or compare across it (observe what=compare mark)".into(),
            ));
        }
    };
    let (ts, cursors) = store.set_mark(name.clone()).await?;
    let cursors: Value = serde_json::from_str(&cursors).unwrap_or(Value::Null);
    Ok(json!({
        "mark": name,
        "ts": ts,
        "cursors": cursors,
        "hint": format!("read what follows with observe since_mark=\"{name}\"; after a change, observe what=compare mark=\"{name}\""),
    }))
}

fn kind_arg(name: &str) -> Result<&'static Kind, QueryError> {
    kind::named(name, &[]).map_err(|e| QueryError::Invalid(e.to_string()))
}

async fn status(store: &Store) -> Result<Value, QueryError> {
    let path = store.path().to_path_buf();
    let (kinds, tracked, extension, capture) = store
        .read(|conn| -> Result<_, QueryError> {
            // Each ring as `gasoline status` reads it: ids and the times of its oldest and newest entries.
            let kinds = crate::query::rows::rings(conn)?;
            Ok((kinds, sql::tracked_tab(conn)?, sql::paired_extension(conn)?, sql::capture(conn)?))
        })
        .await?;
    // As reported (the whole scope, with the server it was sent to, shortened when long), and when.
    let capture = capture.and_then(|(state, at)| crate::query::capture::for_status(&state, at));
    let (db_bytes, wal_bytes) = crate::store::file_bytes(&path);
    Ok(json!({
        "db": path.display().to_string(),
        "db_bytes": db_bytes,
        "wal_bytes": wal_bytes,
        "tracked_tab_id": tracked,
        "extension_id": extension,
        "capture": capture,
        "kinds": kinds,
    }))
}
