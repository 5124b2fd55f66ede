//! Named marks (`configure action=mark`): the time and every kind's last issued
//! id, stored in `marks` (V7) inside one writer job, so the cursors are exact.

use rusqlite::{Connection, params};

use super::StoreError;
use super::sql::kind_stats;
use crate::kind::KINDS;

/// Marks kept; setting one more forgets the oldest.
pub const MAX_MARKS: i64 = 1_000;

/// Sets (or moves) the mark `name` to `now` and every kind's last issued id; answers
/// the cursors as stored (a JSON object, kind → id).
pub(super) fn set(conn: &Connection, name: &str, now: i64) -> Result<String, StoreError> {
    let mut cursors = serde_json::Map::new();
    for kind in KINDS {
        cursors.insert(kind.name.into(), kind_stats(conn, kind)?.last_issued_id.into());
    }
    let cursors = serde_json::Value::Object(cursors).to_string();
    conn.prepare_cached("INSERT OR REPLACE INTO marks (name, ts, cursors) VALUES (?1, ?2, ?3)")?
        .execute(params![name, now, cursors])?;
    conn.prepare_cached(
        "DELETE FROM marks WHERE name IN (SELECT name FROM marks ORDER BY ts DESC, rowid DESC LIMIT -1 OFFSET ?1)",
    )?
    .execute([MAX_MARKS])?;
    Ok(cursors)
}
