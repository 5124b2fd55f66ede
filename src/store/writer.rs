//! The single writer: one thread owns the only write connection.
//!
//! Jobs queue on a channel; the thread takes every job waiting, runs each in its
//! own SAVEPOINT inside one `BEGIN IMMEDIATE` transaction (group commit; a job
//! alone needs no savepoint), commits, and only then answers each job. So an
//! acknowledged write is on disk, a failing job rolls back alone, and a burst of
//! small requests costs one commit.
//!
//! Backpressure: before an ingest request's body is even read, it must get one
//! permit per byte from a semaphore sized to the pending-bytes budget
//! ([`Writer::admit`]); a request that cannot get them within the busy wait is
//! refused with [`StoreError::Busy`]. The permits go with the job and are given
//! back when it is answered, so the bytes held in memory for waiting writes
//! (bodies, decoded rows) follow the budget, not the number of clients.

use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use super::StoreError;
use super::checkpointer::Checkpointer;
use super::open::{JOURNAL_SIZE_LIMIT, wal_size};
use super::sql::exec_cached;

/// Most jobs folded into one transaction.
const MAX_GROUP: usize = 128;
/// The writer tidies up after this long without work, and at least this often under load.
const MAINTENANCE_EVERY: Duration = Duration::from_secs(1);
/// How often a checkpoint is tried while the WAL is past half its bound.
const WAL_PRESSURE_EVERY: Duration = Duration::from_millis(100);
/// How long a truncation of the WAL asked for (after a clear) waits for readers to let go.
const TRUNCATE_WAIT: Duration = Duration::from_secs(2);
/// Free pages (4 KiB) tolerated before an incremental vacuum gives space back.
const FREE_PAGES_KEPT: i64 = 2_048;
/// Most free pages given back per idle second (64 MiB of 4 KiB pages).
const VACUUM_STEP: i64 = 16_384;

trait Job: Send {
    /// Runs the job's work; the result waits for the commit.
    fn apply(&mut self, conn: &Connection);
    fn failed(&self) -> bool;
    /// Answers the caller; `commit` is the fate of the whole transaction.
    fn finish(self: Box<Self>, commit: Result<(), &StoreError>);
}

struct Typed<R, F> {
    work: Option<F>,
    result: Option<Result<R, StoreError>>,
    reply: oneshot::Sender<Result<R, StoreError>>,
    _admission: Admission,
}

/// Room for one request's bytes in the writer's pending budget, held from before
/// its body is read until its job is answered. `Admission::default()` holds none.
#[derive(Default)]
pub struct Admission {
    permit: Option<OwnedSemaphorePermit>,
}

impl Admission {
    /// Bytes of the budget held.
    pub fn bytes(&self) -> usize {
        self.permit.as_ref().map_or(0, OwnedSemaphorePermit::num_permits)
    }

    /// Adds `more`'s room to this one, to be held and given back together.
    pub fn merge(&mut self, more: Admission) {
        match (&mut self.permit, more.permit) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }
}

impl<R, F> Job for Typed<R, F>
where
    R: Send,
    F: FnOnce(&Connection) -> Result<R, StoreError> + Send,
{
    fn apply(&mut self, conn: &Connection) {
        if let Some(work) = self.work.take() {
            self.result = Some(work(conn).map_err(|e| match e {
                StoreError::Sqlite(e) => StoreError::classify(e),
                other => other,
            }));
        }
    }

    fn failed(&self) -> bool {
        matches!(self.result, Some(Err(_)))
    }

    fn finish(self: Box<Self>, commit: Result<(), &StoreError>) {
        let answer = match (self.result, commit) {
            (Some(Err(own)), _) => Err(own),
            (_, Err(e)) => Err(echo(e)),
            (Some(Ok(value)), Ok(())) => Ok(value),
            (None, Ok(())) => Err(StoreError::Closed),
        };
        let _ = self.reply.send(answer);
    }
}

/// The same failure, for each job of a transaction that failed as a whole.
fn echo(e: &StoreError) -> StoreError {
    match e {
        StoreError::DiskFull(m) => StoreError::DiskFull(m.clone()),
        StoreError::Closed => StoreError::Closed,
        StoreError::Locked(m) => StoreError::Locked(m.clone()),
        other => StoreError::Invalid(other.to_string()),
    }
}

enum Msg {
    Job(Box<dyn Job>),
    Shutdown(oneshot::Sender<Result<(), StoreError>>),
    /// Fold the WAL into the database and truncate it, between transactions.
    TruncateWal(oneshot::Sender<()>),
}

pub(super) struct Writer {
    /// The writer thread's queue; unset while this process only reads (attached to
    /// another gasoline that writes the file), set once when it becomes the writer.
    tx: OnceLock<mpsc::Sender<Msg>>,
    pending: Arc<Semaphore>,
    max_pending: usize,
    busy_wait: Duration,
}

impl Writer {
    pub(super) fn start(conn: Connection, max_pending_bytes: usize, busy_wait: Duration) -> Self {
        let writer = Self::idle(max_pending_bytes, busy_wait);
        writer.begin(conn);
        writer
    }

    /// A writer without a thread: every write answers [`StoreError::NotWriter`] until [`Writer::begin`].
    pub(super) fn idle(max_pending_bytes: usize, busy_wait: Duration) -> Self {
        let max_pending = max_pending_bytes.clamp(1, Semaphore::MAX_PERMITS);
        Writer { tx: OnceLock::new(), pending: Arc::new(Semaphore::new(max_pending)), max_pending, busy_wait }
    }

    /// Starts the writer thread on `conn` (once; a second call drops `conn`).
    pub(super) fn begin(&self, conn: Connection) {
        let (tx, rx) = mpsc::channel();
        if self.tx.set(tx).is_err() {
            tracing::error!("the writer was started twice; the second connection is closed");
            return;
        }
        let spawned = thread::Builder::new().name("gasoline-writer".into()).spawn(move || run(conn, rx));
        if let Err(e) = spawned {
            // Without a writer every write answers Closed, which callers report.
            tracing::error!("could not start the writer thread: {e}");
        }
    }

    /// True once the writer thread was started: this process writes the file.
    pub(super) fn started(&self) -> bool {
        self.tx.get().is_some()
    }

    fn sender(&self) -> Result<&mpsc::Sender<Msg>, StoreError> {
        self.tx.get().ok_or(StoreError::NotWriter)
    }

    /// The whole pending budget: no admission holds more.
    /// Bytes of room taken in the pending-writes budget now (requests admitted, not yet answered).
    pub(super) fn pending_bytes(&self) -> usize {
        self.max_pending.saturating_sub(self.pending.available_permits())
    }

    pub(super) fn max_pending(&self) -> usize {
        self.max_pending
    }

    /// Waits (at most the busy wait) for room for `weight` bytes of pending writes.
    pub(super) async fn admit(&self, weight: usize) -> Result<Admission, StoreError> {
        self.sender()?;
        if weight == 0 {
            return Ok(Admission::default());
        }
        let n = u32::try_from(weight.min(self.max_pending)).unwrap_or(u32::MAX);
        let acquire = self.pending.clone().acquire_many_owned(n);
        match tokio::time::timeout(self.busy_wait, acquire).await {
            Err(_) => Err(StoreError::Busy),
            Ok(Err(_)) => Err(StoreError::Closed),
            Ok(Ok(permit)) => Ok(Admission { permit: Some(permit) }),
        }
    }

    pub(super) async fn run<R, F>(&self, admission: Admission, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&Connection) -> Result<R, StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job = Typed { work: Some(work), result: None, reply, _admission: admission };
        self.sender()?.send(Msg::Job(Box::new(job))).map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Folds the WAL into the database and truncates it once the jobs queued before are done;
    /// best effort (a reader holding the WAL for longer than [`TRUNCATE_WAIT`] keeps it).
    pub(super) async fn truncate_wal(&self) {
        let Ok(tx) = self.sender() else { return };
        let (reply, done) = oneshot::channel();
        if tx.send(Msg::TruncateWal(reply)).is_ok() {
            let _ = done.await;
        }
    }

    /// Finishes the queued jobs and closes; nothing to do when this process never wrote.
    pub(super) async fn shutdown(&self) -> Result<(), StoreError> {
        let Some(tx) = self.tx.get() else { return Ok(()) };
        let (reply, answer) = oneshot::channel();
        tx.send(Msg::Shutdown(reply)).map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }
}

fn run(conn: Connection, rx: mpsc::Receiver<Msg>) {
    let mut checkpointer = conn.path().filter(|p| !p.is_empty()).and_then(|p| Checkpointer::start(Path::new(p)));
    if checkpointer.is_some() {
        // Checkpoints happen on the checkpointer's connection, not after our commits.
        if let Err(e) = conn.execute_batch("PRAGMA wal_autocheckpoint = 0") {
            tracing::warn!("could not hand checkpoints to the checkpointer: {e}");
        }
    }
    let mut last_maintenance = Instant::now();
    let mut dirty = false;
    loop {
        let first = match rx.recv_timeout(MAINTENANCE_EVERY) {
            Ok(msg) => msg,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if dirty {
                    // More free pages than one step gives back: come back next idle second.
                    dirty = maintain(&conn, true);
                }
                last_maintenance = Instant::now();
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                drop(checkpointer.take());
                let _ = close(&conn);
                return;
            }
        };
        let mut jobs = Vec::new();
        let mut shutdown = None;
        let mut truncate = None;
        match first {
            Msg::Job(job) => jobs.push(job),
            Msg::Shutdown(reply) => shutdown = Some(reply),
            Msg::TruncateWal(reply) => truncate = Some(reply),
        }
        while shutdown.is_none() && truncate.is_none() && jobs.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(Msg::Job(job)) => jobs.push(job),
                Ok(Msg::Shutdown(reply)) => shutdown = Some(reply),
                Ok(Msg::TruncateWal(reply)) => truncate = Some(reply),
                Err(_) => break,
            }
        }
        if !jobs.is_empty() {
            commit_group(&conn, jobs);
            dirty = true;
            if let Some(checkpointer) = &checkpointer {
                checkpointer.nudge();
            }
        }
        if let Some(reply) = truncate {
            let _ = conn.busy_timeout(TRUNCATE_WAIT);
            if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
                tracing::debug!("WAL not truncated now: {e}");
            }
            let _ = conn.busy_timeout(Duration::from_secs(5));
            let _ = reply.send(());
        }
        if let Some(reply) = shutdown {
            // Finish whatever was queued before the shutdown, then close.
            while let Ok(msg) = rx.try_recv() {
                match msg {
                    Msg::Job(job) => commit_group(&conn, vec![job]),
                    Msg::TruncateWal(reply) => drop(reply), // closing truncates it
                    Msg::Shutdown(_) => {}
                }
            }
            // The final checkpoint must not race the checkpointer's.
            drop(checkpointer.take());
            // Closed before the answer: whoever waits for it may end the process at once, and
            // SQLite removes the -wal and -shm only when the last connection really closes.
            let closed = close(&conn);
            drop(conn);
            let _ = reply.send(closed);
            return;
        }
        // Past half the WAL's bound, a checkpoint is tried every 100 ms rather than every second:
        // at full speed the WAL grows tens of MiB in a second, which readers polling the file
        // kept from being reset (the bound test saw 75-90 MiB on an otherwise quiet machine).
        let due = if wal_size(&conn) > JOURNAL_SIZE_LIMIT as u64 / 2 { WAL_PRESSURE_EVERY } else { MAINTENANCE_EVERY };
        if last_maintenance.elapsed() >= due {
            maintain(&conn, false);
            last_maintenance = Instant::now();
        }
    }
}

fn commit_group(conn: &Connection, mut jobs: Vec<Box<dyn Job>>) {
    // A job alone needs no savepoint: rolling the transaction back is the same thing, and
    // spares the savepoint's journal of every page the job touches.
    let alone = jobs.len() == 1;
    let outcome = (|| -> Result<(), StoreError> {
        exec_cached(conn, "BEGIN IMMEDIATE").map_err(StoreError::classify)?;
        for job in &mut jobs {
            if !alone {
                exec_cached(conn, "SAVEPOINT job").map_err(StoreError::classify)?;
            }
            job.apply(conn);
            if conn.is_autocommit() {
                // SQLite rolled the whole transaction back (disk full, I/O error).
                return Err(StoreError::DiskFull("the transaction was rolled back by SQLite".into()));
            }
            if alone {
                if job.failed() {
                    // The job answers with its own error; the transaction itself went fine.
                    return exec_cached(conn, "ROLLBACK").map_err(StoreError::classify);
                }
            } else {
                if job.failed() {
                    exec_cached(conn, "ROLLBACK TO job").map_err(StoreError::classify)?;
                }
                exec_cached(conn, "RELEASE job").map_err(StoreError::classify)?;
            }
        }
        exec_cached(conn, "COMMIT").map_err(StoreError::classify)
    })();
    if outcome.is_err() && !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    if let Err(e) = &outcome {
        tracing::warn!("write transaction failed: {e}");
    }
    for job in jobs {
        job.finish(outcome.as_ref().map(|_| ()));
    }
}

/// Keeps the WAL and the free list bounded. When `idle`, also gives free pages
/// back to the filesystem (a step at a time, so a writer that wakes up waits
/// little) and truncates the WAL. Returns true when free pages remain to give back.
fn maintain(conn: &Connection, idle: bool) -> bool {
    let mut more = false;
    if idle {
        let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap_or(0);
        if free > FREE_PAGES_KEPT {
            let pages = (free - FREE_PAGES_KEPT / 2).min(VACUUM_STEP);
            more = free - pages > FREE_PAGES_KEPT;
            if let Err(e) = incremental_vacuum(conn, pages) {
                tracing::debug!("incremental vacuum: {e}");
            }
        }
    }
    let mode = if idle {
        Some("TRUNCATE")
    } else if wal_size(conn) > JOURNAL_SIZE_LIMIT as u64 / 2 {
        Some("RESTART")
    } else {
        None
    };
    if let Some(mode) = mode {
        // Never stall ingest behind a reader for long: give up and retry next time; but past
        // three quarters of the bound, wait for the readers (each reads briefly) rather than grow on.
        let wait = if wal_size(conn) > JOURNAL_SIZE_LIMIT as u64 / 4 * 3 { 1000 } else { 100 };
        let _ = conn.busy_timeout(Duration::from_millis(wait));
        let _ = conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(()));
        let _ = conn.busy_timeout(Duration::from_secs(5));
    }
    more
}

/// `PRAGMA incremental_vacuum` frees one page per step (each step yields a
/// row), so it must be stepped to the end to free `pages`.
fn incremental_vacuum(conn: &Connection, pages: i64) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!("PRAGMA incremental_vacuum({pages})"))?;
    let mut rows = stmt.query([])?;
    while rows.next()?.is_some() {}
    Ok(())
}

/// Folds the WAL into the database so the file is whole on its own. A reader of
/// the file (a person's `tail`, an attached `gasoline mcp`, a second writer run by
/// hand) may hold a lock: then waiting here would only delay exit, and the next
/// writer to open the file checkpoints. So does it when the disk refuses the checkpoint's
/// writes: every acknowledged entry is committed in the WAL already, so that is no failure.
fn close(conn: &Connection) -> Result<(), StoreError> {
    let _ = conn.busy_timeout(Duration::from_millis(500));
    match conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
        Ok(()) => Ok(()),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => {
            tracing::debug!("final checkpoint skipped: another connection holds the database");
            Ok(())
        }
        Err(e) => match StoreError::classify(e) {
            StoreError::DiskFull(why) => {
                tracing::warn!(
                    "the WAL was not folded into the database ({why}): what was stored is kept in the WAL, and \
                     the next start folds it in"
                );
                Ok(())
            }
            other => Err(other),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer() -> (tempfile::TempDir, Writer) {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = Connection::open(dir.path().join("w.db")).expect("open");
        conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER NOT NULL)").expect("schema");
        (dir, Writer::start(conn, 1 << 20, Duration::from_secs(1)))
    }

    /// A job that stores `v`, then fails if asked to.
    fn insert(v: i64, fail: bool) -> impl FnOnce(&Connection) -> Result<(), StoreError> + Send + 'static {
        move |c| {
            c.execute("INSERT INTO t VALUES (?1)", [v])?;
            if fail { Err(StoreError::Invalid(format!("job {v} fails"))) } else { Ok(()) }
        }
    }

    async fn stored(w: &Writer) -> Vec<i64> {
        w.run(Admission::default(), |c| {
            let mut stmt = c.prepare("SELECT v FROM t ORDER BY v")?;
            let values = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            Ok(values)
        })
        .await
        .expect("read")
    }

    #[tokio::test]
    async fn a_failing_job_loses_its_own_writes_only_alone_or_in_a_group() {
        let (_dir, w) = writer();
        // Alone in its transaction.
        assert!(w.run(Admission::default(), insert(1, true)).await.is_err());
        w.run(Admission::default(), insert(2, false)).await.expect("job 2");
        assert_eq!(stored(&w).await, [2]);

        // In one group: the writer is held until the three jobs are queued behind it.
        let (release, held) = std::sync::mpsc::channel::<()>();
        let hold = w.run(Admission::default(), move |_| {
            let _ = held.recv();
            Ok(())
        });
        let let_go = async {
            tokio::task::yield_now().await;
            let _ = release.send(());
        };
        let (h, a, b, c, ()) = tokio::join!(
            hold,
            w.run(Admission::default(), insert(3, false)),
            w.run(Admission::default(), insert(4, true)),
            w.run(Admission::default(), insert(5, false)),
            let_go
        );
        assert!(h.is_ok() && a.is_ok() && c.is_ok(), "{h:?} {a:?} {c:?}");
        assert!(matches!(b, Err(StoreError::Invalid(_))), "{b:?}");
        assert_eq!(stored(&w).await, [2, 3, 5]);
    }
}
