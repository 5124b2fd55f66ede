//! Is a gasoline listening on the port, and does it write this database?
//! Asked through its `/health` (see `probe`).

use std::path::Path;

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

/// The gasoline on `port`, if one answers there.
pub async fn find(port: u16, db: &Path) -> Option<Running> {
    let health = crate::probe::health(port).await?;
    if health.get("service").and_then(Value::as_str) != Some("gasoline") {
        return None;
    }
    let theirs = health.get("db").and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(Running {
        port,
        version: health.get("version").and_then(Value::as_str).unwrap_or_default().to_owned(),
        same_db: same_file(Path::new(&theirs), db),
        db: theirs,
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
