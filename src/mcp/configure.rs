//! The configure tool: arguments → store calls → a small JSON answer.

use serde_json::{Map, Value, json};

use crate::kind::{self, KINDS, Kind};
use crate::query::QueryError;
use crate::store::{Store, sql};

/// Runs one configure call; `Err(Invalid)` is the caller's mistake.
pub async fn run(store: &Store, args: &Map<String, Value>) -> Result<Value, QueryError> {
    let invalid = |m: String| QueryError::Invalid(m);
    let action = args
        .get("action")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("`action` is required: one of track_tab, clear, capacity, status".into()))?;
    let allowed: &[&str] = match action {
        "track_tab" => &["action", "tabId"],
        "clear" => &["action", "what"],
        "capacity" => &["action", "what", "capacity"],
        "status" => &["action"],
        other => {
            return Err(invalid(format!("unknown action \"{other}\": send one of track_tab, clear, capacity, status")));
        }
    };
    if let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!("`{extra}` does not apply to action={action}; it takes {}", allowed.join(", "))));
    }
    match action {
        "track_tab" => {
            let tab = match args.get("tabId") {
                None | Some(Value::Null) => None,
                Some(v) => {
                    Some(v.as_i64().ok_or_else(|| invalid(format!("tabId must be an integer or null, got {v}")))?)
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
                let capacity = v
                    .as_i64()
                    .filter(|c| *c >= 1)
                    .ok_or_else(|| invalid(format!("capacity must be an integer of at least 1, got {v}")))?;
                store.set_capacity(kind, capacity).await?;
            }
            let stats = store.read(move |conn| sql::kind_stats(conn, kind)).await?;
            Ok(json!(stats))
        }
        _ => status(store).await,
    }
}

fn kind_arg(name: &str) -> Result<&'static Kind, QueryError> {
    kind::by_name(name).ok_or_else(|| {
        QueryError::Invalid(format!("unknown kind \"{name}\": send one of {}", kind::names().join(", ")))
    })
}

async fn status(store: &Store) -> Result<Value, QueryError> {
    let path = store.path().to_path_buf();
    let (kinds, tracked, extension) = store
        .read(|conn| {
            let kinds = KINDS.iter().map(|k| sql::kind_stats(conn, k)).collect::<Result<Vec<_>, _>>()?;
            Ok((kinds, sql::tracked_tab(conn)?, sql::paired_extension(conn)?))
        })
        .await?;
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
    Ok(json!({
        "db": path.display().to_string(),
        "db_bytes": size(&path),
        "wal_bytes": size(&wal),
        "tracked_tab_id": tracked,
        "extension_id": extension,
        "kinds": kinds,
    }))
}
