//! `gasoline clear [KIND|all]`: through the running server (MCP `configure
//! action=clear` at its `/mcp`, forwarded as an attached `gasoline mcp` does,
//! `crate::attach`) when one writes this database, so that its writer stays the
//! only one; otherwise on the file directly, by the same
//! writer code. Ids never restart either way.

use std::path::Path;

use serde_json::{Value, json};

use super::server::{self, Running};
use super::{CommandError, db_path};
use crate::cli::{ClearArgs, ClearTarget};
use crate::store::{OpenOptions, Store, StoreError};

pub async fn clear(args: ClearArgs) -> Result<(), CommandError> {
    let path = db_path(&args.db, &args.port).await?;
    if !path.exists() {
        return Err(StoreError::NotFound(path).into());
    }
    let what = args.what;
    let (cleared, how) = match server::serving(args.port.port(), &path).await {
        Some(running) if running.same_db => {
            (through_server(&running, what).await?, format!("through the server on port {}", running.port))
        }
        other => {
            if let Some(r) = other {
                eprintln!(
                    "gasoline: the server on port {} writes {}, not this database; clearing the file directly",
                    r.port, r.db
                );
            }
            (directly(&path, what).await?, "directly in the file".to_owned())
        }
    };
    let scope = match what {
        ClearTarget::All => "all kinds".to_owned(),
        ClearTarget::One(kind) => kind.name.to_owned(),
    };
    let entries = if cleared == 1 { "entry" } else { "entries" };
    super::say(&format!("cleared {cleared} {entries} of {scope} ({how}, {})", path.display()))
        .map_err(CommandError::Stdout)
}

async fn through_server(running: &Running, what: ClearTarget) -> Result<u64, CommandError> {
    let refused = |message: String| CommandError::Server { port: running.port, message };
    let args = json!({ "action": "clear", "what": what.name() });
    let result = crate::attach::configure(running.port, args.as_object().cloned().unwrap_or_default())
        .await
        .map_err(|e| refused(e.to_string()))?;
    let text: String = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    if result.is_error == Some(true) {
        return Err(refused(text));
    }
    let answer: Value = serde_json::from_str(&text).map_err(|e| refused(format!("{e}: {text}")))?;
    answer["cleared"].as_u64().ok_or_else(|| refused(format!("no count in {text}")))
}

async fn directly(path: &Path, what: ClearTarget) -> Result<u64, CommandError> {
    // An empty file is not a database to clear: said as status and tail say it, not made into
    // one (another program's database is refused by the store's own open, which names it).
    if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
        drop(crate::store::open_read_only(path)?);
    }
    let store = Store::open(path, &OpenOptions { readers: 1, ..OpenOptions::default() })?;
    let only = match what {
        ClearTarget::All => None,
        ClearTarget::One(kind) => Some(kind),
    };
    let cleared = store.clear(only).await;
    store.shutdown().await?;
    Ok(cleared? as u64)
}
