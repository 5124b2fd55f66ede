//! The checkpointer: a thread with its own connection that copies the WAL back
//! into the database file (PASSIVE checkpoints) while the writer goes on writing.
//!
//! A checkpoint ends in an fsync of the database file. Run by SQLite's automatic
//! checkpoint on the writer's connection, that fsync stalled every commit that
//! crossed the threshold (ingest lost a third of its throughput, and a request's
//! p99 was four times its p50). On its own connection it overlaps the writer:
//! WAL mode lets a checkpoint and a write transaction run at the same time.
//!
//! The writer nudges it after each commit; it checkpoints once the `-wal` file
//! passes [`CHECKPOINT_AT`]. The writer keeps its own safety net (a RESTART
//! checkpoint past half the journal size limit) for when readers hold the WAL.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::open::wal_size;

/// WAL size past which a checkpoint runs (SQLite's own default is 1,000 pages).
pub(super) const CHECKPOINT_AT: u64 = 16 * 1024 * 1024;
/// How often the thread looks at the WAL without being nudged.
const LOOK_EVERY: Duration = Duration::from_millis(500);

pub(super) struct Checkpointer {
    nudge: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread, or returns None (and the writer checkpoints by itself)
    /// when a second connection cannot be opened.
    pub(super) fn start(path: &Path) -> Option<Self> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = match Connection::open_with_flags(path, flags) {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!("no checkpointer thread ({e}); the writer will checkpoint");
                return None;
            }
        };
        // Never wait behind the writer or a reader: try again at the next nudge.
        let _ = conn.busy_timeout(Duration::ZERO);
        let (nudge, rx) = mpsc::sync_channel(1);
        let thread = thread::Builder::new().name("gasoline-checkpointer".into()).spawn(move || run(&conn, &rx));
        match thread {
            Ok(thread) => Some(Checkpointer { nudge: Some(nudge), thread: Some(thread) }),
            Err(e) => {
                tracing::warn!("no checkpointer thread ({e}); the writer will checkpoint");
                None
            }
        }
    }

    /// Tells the thread that the WAL has grown; never blocks.
    pub(super) fn nudge(&self) {
        if let Some(nudge) = &self.nudge {
            let _ = nudge.try_send(());
        }
    }

    /// Stops the thread and waits for it (its connection is closed when this returns).
    pub(super) fn stop(&mut self) {
        self.nudge = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run(conn: &Connection, rx: &mpsc::Receiver<()>) {
    loop {
        match rx.recv_timeout(LOOK_EVERY) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        if wal_size(conn) < CHECKPOINT_AT {
            continue;
        }
        // A nudge sent meanwhile stays in the channel, so frames written during this
        // checkpoint are looked at straight after it.
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::debug!("checkpoint: {e}");
        }
    }
}
