//! One read transaction, so that everything read in it (totals, ids, a page,
//! a whole export) comes from one snapshot of the database.

use rusqlite::Connection;

use crate::store::StoreError;
use crate::store::sql::exec_cached;

/// A read transaction by cached statements (rusqlite's `Transaction` parses BEGIN
/// and COMMIT on every call); rolled back if dropped unfinished, so that a pooled
/// connection never goes back to the pool inside a transaction. It never writes.
pub struct Snapshot<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> Snapshot<'c> {
    pub fn begin(conn: &'c Connection) -> Result<Self, StoreError> {
        exec_cached(conn, "BEGIN").map_err(StoreError::Sqlite)?;
        Ok(Snapshot { conn, open: true })
    }

    /// Ends the transaction (a read's commit only releases the snapshot).
    pub fn commit(mut self) -> rusqlite::Result<()> {
        self.open = false;
        exec_cached(self.conn, "COMMIT")
    }
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        if self.open && !self.conn.is_autocommit() {
            let _ = exec_cached(self.conn, "ROLLBACK");
        }
    }
}
