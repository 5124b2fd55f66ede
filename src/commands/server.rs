//! Is a gasoline listening on the port, and does it write this database?
//! Asked through its `/health` (see `probe`).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

/// A gasoline found on 127.0.0.1:`port`.
#[derive(Debug, Clone, Serialize)]
pub struct Running {
    pub port: u16,
    pub version: String,
    /// The database it writes.
    pub db: String,
    /// True when that is the database this command was given.
    pub same_db: bool,
}

/// The `/health` of the gasoline on `port`, if one answers there.
async fn gasoline_health(port: u16) -> Option<Value> {
    let health = crate::probe::health(port).await?;
    (health.get("service").and_then(Value::as_str) == Some("gasoline")).then_some(health)
}

/// The database file the gasoline on `port` serves, if one answers there.
pub async fn served_db(port: u16) -> Option<PathBuf> {
    let health = gasoline_health(port).await?;
    health.get("db").and_then(Value::as_str).filter(|db| !db.is_empty()).map(PathBuf::from)
}

/// The gasoline on `port`, if one answers there.
pub async fn find(port: u16, db: &Path) -> Option<Running> {
    let health = gasoline_health(port).await?;
    let theirs = health.get("db").and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(Running {
        port,
        version: health.get("version").and_then(Value::as_str).unwrap_or_default().to_owned(),
        same_db: same_file(Path::new(&theirs), db),
        db: theirs,
    })
}

/// The gasoline that serves `db`: the one on `port` when it writes `db`, else the one the
/// file's lock names (a server started with another `--port`), else whatever answers on `port`
/// (a gasoline that writes another file, for the caller to say so).
pub async fn serving(port: u16, db: &Path) -> Option<Running> {
    let on_port = find(port, db).await;
    if on_port.as_ref().is_some_and(|r| r.same_db) {
        return on_port;
    }
    let theirs = crate::store::serve_lock::holder(db).and_then(|h| h.port).filter(|p| *p != port);
    match theirs {
        Some(p) => match find(p, db).await {
            Some(found) if found.same_db => Some(found),
            _ => on_port,
        },
        None => on_port,
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
