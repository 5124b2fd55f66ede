//! Batch keys: a batch sent again under the same `Idempotency-Key` is answered
//! with the first answer and stores nothing again.
//!
//! [`write_once`] runs inside one writer job, so looking the key up, storing the
//! rows and remembering the key commit together or not at all: a batch is
//! either stored and remembered, or neither. Only answers that stored something
//! are remembered; a refused or failed batch may be sent again under its key.

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::StoreError;

/// Keys remembered by default: the newest this many batches.
pub const DEFAULT_REMEMBERED: i64 = 10_000;
/// Longest key accepted.
pub const MAX_KEY_LEN: usize = 200;

/// A batch's key, what it was posted to, and the digest of its body.
#[derive(Debug, Clone)]
pub struct BatchKey {
    pub key: String,
    pub target: String,
    pub digest: Vec<u8>,
}

impl BatchKey {
    /// `None` when `key` is not a usable key (empty, too long, not visible ASCII).
    pub fn new(key: &str, target: &str, body: &[u8]) -> Option<Self> {
        let usable = !key.is_empty() && key.len() <= MAX_KEY_LEN && key.bytes().all(|b| b.is_ascii_graphic());
        usable.then(|| BatchKey {
            key: key.to_owned(),
            target: target.to_owned(),
            digest: Sha256::digest(body).to_vec(),
        })
    }
}

/// The answer to a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Stored now: HTTP status and JSON body.
    Stored { status: u16, body: String },
    /// Stored before under this key: the first answer, nothing stored now.
    Replayed { status: u16, body: String },
    /// The key was used before for another target or body.
    Conflict { target: String },
}

/// Runs `store` (which writes the batch and says what to answer) unless `key`
/// was answered before; remembers the answer under `key`, keeping the newest
/// `remembered` keys. Call it inside a writer job.
pub(super) fn write_once(
    conn: &Connection,
    key: Option<&BatchKey>,
    remembered: i64,
    now: i64,
    store: impl FnOnce(&Connection) -> Result<(u16, String), StoreError>,
) -> Result<Outcome, StoreError> {
    let Some(key) = key else {
        let (status, body) = store(conn)?;
        return Ok(Outcome::Stored { status, body });
    };
    let previous = conn
        .prepare_cached("SELECT target, digest, status, body FROM batch_keys WHERE key = ?1")?
        .query_row([&key.key], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?, r.get::<_, u16>(2)?, r.get::<_, String>(3)?))
        })
        .optional()?;
    if let Some((target, digest, status, body)) = previous {
        if target != key.target || digest != key.digest {
            return Ok(Outcome::Conflict { target });
        }
        return Ok(Outcome::Replayed { status, body });
    }
    let (status, body) = store(conn)?;
    conn.prepare_cached(
        "INSERT INTO batch_keys (key, target, digest, status, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![key.key, key.target, key.digest, status, body, now])?;
    let newest = conn.last_insert_rowid();
    conn.prepare_cached("DELETE FROM batch_keys WHERE id <= ?1")?.execute([newest - remembered.max(1)])?;
    Ok(Outcome::Stored { status, body })
}
