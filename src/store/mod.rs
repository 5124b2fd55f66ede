//! The SQLite store: the only module that opens the database.
//!
//! One writer thread owns the only write connection ([`writer`]); readers come
//! from an r2d2 pool of `query_only` connections. SQL that writes lives in
//! [`sql`]; SQL that reads for observe lives in `crate::query`. A store opened
//! with [`Store::open_reader`] (beside another gasoline that writes the file) has
//! read-only readers and no writer until [`Store::become_writer`].

pub mod batch_keys;
mod checkpointer;
pub mod marks;
mod open;
pub mod serve_lock;
pub mod sql;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;

use crate::capture::Capture;
use crate::ingest::{Row, TabInfo, Vitals};
use crate::kind::Kind;
pub use batch_keys::{BatchKey, Outcome};
pub use open::{OpenOptions, create_private_dir, file_bytes, is_sqlite_file, open_read_only};
pub use serve_lock::{Holder, ServeLock};
pub use sql::{Inserted, KindStats};
pub use writer::Admission;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;

/// Why the store refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}: the directory does not exist; create it or pass another --db path")]
    MissingDirectory(PathBuf),
    #[error("{0}: no database here (has gasoline run with this --db?); pass another --db path")]
    NotFound(PathBuf),
    #[error("cannot read {0}: {1}")]
    Unreadable(PathBuf, String),
    #[error("{0} is not a SQLite database (is --db pointing at the right file?)")]
    NotSqlite(PathBuf),
    #[error(
        "{path} was written by a newer gasoline (schema version {found}, this build knows up to {known}); upgrade gasoline"
    )]
    NewerSchema { path: PathBuf, found: i64, known: i64 },
    #[error(
        "{} is damaged (SQLite's check: {detail}); nothing was written to it. Move it aside (with its -wal file) to start \
         an empty store, or recover its rows with `sqlite3 {} .recover`", path.display(), path.display()
    )]
    Damaged { path: PathBuf, detail: String },
    #[error("{0} is read-only; gasoline needs to write to it (check permissions, or pass another --db path)")]
    ReadOnly(PathBuf),
    #[error(
        "{0} is read-only; gasoline writes the database's WAL and lock files beside it (check permissions, or pass \
         another --db path)"
    )]
    ReadOnlyDirectory(PathBuf),
    #[error(
        "{} has {links} hard links; SQLite keeps a WAL for each name of a file, so writing it through two names \
         loses data: remove the other links (or copy the file) and pass one path", path.display()
    )]
    HardLinked { path: PathBuf, links: u64 },
    #[error("the disk is full: {0}")]
    DiskFull(String),
    #[error("the writer is busy; retry shortly")]
    Busy,
    #[error("the database is locked by another program ({0}; an open sqlite3 transaction?)")]
    Locked(String),
    #[error(
        "{} is already served by another gasoline ({holder}); stop it, or pass another --db path", db.display()
    )]
    Served { db: PathBuf, holder: serve_lock::Holder },
    #[error("this process only reads the database: the gasoline that holds the port writes it")]
    NotWriter,
    #[error("the store is shutting down")]
    Closed,
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("migration failed: {0}")]
    Migration(#[from] refinery::Error),
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("{0}")]
    Invalid(String),
}

impl StoreError {
    /// Maps a write the disk refused to [`StoreError::DiskFull`]: SQLite's
    /// own disk-full code (ENOSPC), and a failed write, which is how a
    /// file-size limit (EFBIG, `ulimit -f`) or a full quota shows up.
    pub(crate) fn classify(e: rusqlite::Error) -> Self {
        let refused_write = matches!(
            &e,
            rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_IOERR_WRITE
        );
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DiskFull) => StoreError::DiskFull(e.to_string()),
            // Past the busy timeout: another connection (not ours: we have one writer) holds the file.
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                StoreError::Locked(e.to_string())
            }
            _ if refused_write => {
                StoreError::DiskFull(format!("{e} (the disk refused a write: full, or over a file-size limit)"))
            }
            _ => StoreError::Sqlite(e),
        }
    }
}

/// A handle on the open database; cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    pool: Pool,
    writer: writer::Writer,
    /// Batch keys remembered (see [`batch_keys`]).
    remembered_batches: i64,
}

/// One POSTed batch, decoded: what it writes to and its rows.
pub enum Batch {
    Events(&'static Kind, Vec<Row>),
    Tabs(Vec<TabInfo>),
    Vitals(Vec<Vitals>),
}

impl Store {
    /// Opens (creating if needed) the database at `path`, migrates it and starts the writer.
    pub fn open(path: &Path, options: &OpenOptions) -> Result<Self, StoreError> {
        let (conn, pool) = open::open(path, options)?;
        let writer = writer::Writer::start(conn, options.max_pending_bytes, options.busy_wait);
        let remembered_batches = options.remembered_batches.max(1);
        let store = Store { inner: Arc::new(Inner { path: path.to_path_buf(), pool, writer, remembered_batches }) };
        Ok(store)
    }

    /// Opens an existing store to read only, beside the process that writes it: no
    /// migration, no writer, no checkpoint; every write answers [`StoreError::NotWriter`]
    /// until [`Store::become_writer`].
    pub fn open_reader(path: &Path, options: &OpenOptions) -> Result<Self, StoreError> {
        let pool = open::open_readers(path, options)?;
        let writer = writer::Writer::idle(options.max_pending_bytes, options.busy_wait);
        let remembered_batches = options.remembered_batches.max(1);
        Ok(Store { inner: Arc::new(Inner { path: path.to_path_buf(), pool, writer, remembered_batches }) })
    }

    /// Makes a reader the writer, once the process that wrote the file is gone: opens the
    /// write connection as [`Store::open`] does (migrations, `options.capacities`) and starts
    /// the writer thread. Blocking. Nothing to do for a store that writes already.
    pub fn become_writer(&self, options: &OpenOptions) -> Result<(), StoreError> {
        if self.is_writer() {
            return Ok(());
        }
        let conn = open::open_writer(&self.inner.path, options)?;
        self.inner.writer.begin(conn);
        Ok(())
    }

    /// True when this process writes the file (always, except for a reader not yet made the writer).
    pub fn is_writer(&self) -> bool {
        self.inner.writer.started()
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` on a pooled read-only connection, off the async runtime. `f`'s
    /// error is the caller's own (a store error, or a query's refusal), so a
    /// layer's error type passes through unchanged.
    pub async fn read<R, E, F>(&self, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<R, E> + Send + 'static,
    {
        let pool = self.inner.pool.clone();
        tokio::task::spawn_blocking(move || f(&*pool.get().map_err(StoreError::from)?))
            .await
            .map_err(|e| StoreError::Invalid(format!("reader task failed: {e}")))?
    }

    /// Runs `f` on a pooled read-only connection on this thread.
    pub fn read_blocking<R, E: From<StoreError>>(&self, f: impl FnOnce(&Connection) -> Result<R, E>) -> Result<R, E> {
        f(&*self.inner.pool.get().map_err(StoreError::from)?)
    }

    /// Bytes of room taken in the pending-writes budget now: ingest admitted and not yet
    /// answered (a body being read, rows waiting for the writer).
    pub fn pending_bytes(&self) -> usize {
        self.inner.writer.pending_bytes()
    }

    /// Waits for room for a request of `bytes` in the pending-writes budget, or
    /// refuses with [`StoreError::Busy`] after the busy wait. Call it before
    /// reading the body; pass the admission to the write.
    pub async fn admit(&self, bytes: usize) -> Result<Admission, StoreError> {
        self.inner.writer.admit(bytes).await
    }

    /// The pending-writes budget in bytes: the most one admission can hold.
    pub fn max_pending(&self) -> usize {
        self.inner.writer.max_pending()
    }

    /// Stores a batch (the one way rows are written: ingest, the fuzz fixture and the
    /// benches alike) and answers with the HTTP status and JSON body to send, in one
    /// transaction with its key: a batch whose key was answered before stores
    /// nothing and gets that first answer ([`Outcome::Replayed`]).
    pub async fn write_batch(
        &self,
        batch: Batch,
        key: Option<BatchKey>,
        admission: Admission,
    ) -> Result<Outcome, StoreError> {
        let now = now_ms();
        let remembered = self.inner.remembered_batches;
        self.inner
            .writer
            .run(admission, move |conn| {
                batch_keys::write_once(conn, key.as_ref(), remembered, now, |conn| {
                    let body = match &batch {
                        Batch::Events(kind, rows) => {
                            serde_json::to_string(&sql::insert_rows(conn, kind, rows, now)?).unwrap_or_default()
                        }
                        Batch::Tabs(tabs) => accepted(sql::upsert_tabs(conn, tabs, now)?),
                        Batch::Vitals(vitals) => accepted(sql::upsert_vitals(conn, vitals, now)?),
                    };
                    Ok((200, body))
                })
            })
            .await
    }

    /// Deletes every row of `kind` (all kinds when None), wiping their bytes from the file
    /// ([`sql::clear`]), then folds the WAL into the database and truncates it, so that the
    /// WAL's copies of the rows go too (when no reader holds it; else the idle writer does it
    /// later). Ids never restart.
    pub async fn clear(&self, kind: Option<&'static Kind>) -> Result<usize, StoreError> {
        let cleared = self.inner.writer.run(Admission::default(), move |conn| sql::clear(conn, kind)).await?;
        self.inner.writer.truncate_wal().await;
        Ok(cleared)
    }

    /// Sets a ring capacity and trims the ring to it at once.
    pub async fn set_capacity(&self, kind: &'static Kind, capacity: i64) -> Result<(), StoreError> {
        let capacity = crate::kind::check_capacity(capacity).map_err(StoreError::Invalid)?;
        self.inner.writer.run(Admission::default(), move |conn| sql::set_capacity(conn, kind, capacity)).await
    }

    /// Stores the capture state the extension reported, replacing the last one; answers
    /// when it is committed, with the time it was stored (ms).
    pub async fn set_capture(&self, capture: &Capture, admission: Admission) -> Result<i64, StoreError> {
        let state = serde_json::to_string(capture).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let now = now_ms();
        self.inner
            .writer
            .run(admission, move |conn| {
                sql::set_capture(conn, &state, now)?;
                Ok(now)
            })
            .await
    }

    /// Merges a JSON object (whose members are among `keys`) into the `data` of each row of
    /// `kind` named by id, if it is still stored (source-mapped frames written after the batch,
    /// `crate::sourcemap`); answers how many rows were changed, once committed.
    pub async fn patch_data(
        &self,
        kind: &'static Kind,
        keys: &'static [&'static str],
        patches: Vec<(i64, String)>,
        admission: Admission,
    ) -> Result<usize, StoreError> {
        self.inner.writer.run(admission, move |conn| sql::patch_data(conn, kind, keys, &patches)).await
    }

    /// Sets (or moves) the named mark to now and every kind's last issued id (`marks`);
    /// answers its time (ms) and the cursors (a JSON object, kind → id), once committed.
    pub async fn set_mark(&self, name: String) -> Result<(i64, String), StoreError> {
        let now = now_ms();
        self.inner.writer.run(Admission::default(), move |conn| Ok((now, marks::set(conn, &name, now)?))).await
    }

    pub async fn set_setting(&self, key: &'static str, value: Option<String>) -> Result<(), StoreError> {
        self.inner.writer.run(Admission::default(), move |conn| sql::set_setting(conn, key, value.as_deref())).await
    }

    /// Finishes queued writes, checkpoints the WAL into the main file and stops the writer.
    pub async fn shutdown(&self) -> Result<(), StoreError> {
        self.inner.writer.shutdown().await
    }
}

fn accepted(n: usize) -> String {
    format!("{{\"accepted\":{n}}}")
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// How long an ingest request may wait for the writer before it gets 503.
pub const DEFAULT_BUSY_WAIT: Duration = Duration::from_secs(2);
