//! One gasoline serves a database file at a time.
//!
//! Two servers on one file (a `gasoline serve --port 7891` beside the default one, an MCP
//! client's `gasoline mcp` beside a person's `serve`) would both ingest, trim and checkpoint it,
//! each with its own idea of the capture scope and marks. The serving process holds an exclusive
//! advisory lock on `<db>-server` for as long as it writes, with its pid and port in the file;
//! another process reads them to say who serves the file, or to attach to it.
//!
//! The lock is the operating system's (`flock`, `LockFileEx`): a process killed with `kill -9`
//! lets go of it at once. The file is left in place when the server stops: removing it would let
//! two processes each lock a different file of the same name.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::StoreError;

/// What the serving process wrote in its lock file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    /// The port it serves HTTP on (none when it got no port: `mcp` on a port another program holds).
    pub port: Option<u16>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.pid, self.port) {
            (Some(pid), Some(port)) => write!(f, "pid {pid}, http://127.0.0.1:{port}"),
            (Some(pid), None) => write!(f, "pid {pid}, no HTTP port"),
            (None, Some(port)) => write!(f, "http://127.0.0.1:{port}"),
            (None, None) => write!(f, "a process starting up"),
        }
    }
}

/// The lock of a serving process, held until dropped (or the process ends).
#[derive(Debug)]
pub struct ServeLock {
    file: File,
}

/// How many times, and how far apart, a lock another process holds is tried again before it is
/// called held: a `holder` probe holds it shared for a moment.
const TRIES: u32 = 5;
const TRY_EVERY: Duration = Duration::from_millis(40);

/// The lock file of the database `db`, named after the file `db` reaches through symlinks (as
/// SQLite names its `-wal` and `-shm`), so that every name of one file has one lock.
pub fn path_of(db: &Path) -> PathBuf {
    super::open::beside(&real_path(db), "-server")
}

/// `db` with every symlink resolved: the file's own, or, for a file not made yet, its directory's.
fn real_path(db: &Path) -> PathBuf {
    if let Ok(real) = db.canonicalize() {
        return real;
    }
    match (db.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d }), db.file_name()) {
        (Some(dir), Some(name)) => dir.canonicalize().map_or_else(|_| db.to_path_buf(), |d| d.join(name)),
        _ => db.to_path_buf(),
    }
}

impl ServeLock {
    /// Takes the lock of `db` for this process, serving HTTP on `port`; refuses with
    /// [`StoreError::Served`] while another process holds it.
    pub fn acquire(db: &Path, port: Option<u16>) -> Result<ServeLock, StoreError> {
        super::open::vet_path(db)?;
        let path = path_of(db);
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(|e| match e.kind() {
            // The directory: a file there could not be written either.
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem if !path.exists() => {
                StoreError::ReadOnlyDirectory(
                    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).into(),
                )
            }
            _ => StoreError::Unreadable(path.clone(), e.to_string()),
        })?;
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if tries + 1 < TRIES => {
                    tries += 1;
                    std::thread::sleep(TRY_EVERY);
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Served { db: db.to_path_buf(), holder: read_holder(&mut file) });
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(StoreError::Unreadable(path, format!("cannot lock it: {e}")));
                }
            }
        }
        let mut lock = ServeLock { file };
        lock.write(port).map_err(|e| StoreError::Unreadable(path, e.to_string()))?;
        Ok(lock)
    }

    /// Records the port this process serves on (after it has bound one).
    pub fn announce(&mut self, port: u16) {
        if let Err(e) = self.write(Some(port)) {
            tracing::warn!("cannot record the port in the database's lock file: {e}");
        }
    }

    fn write(&mut self, port: Option<u16>) -> std::io::Result<()> {
        let text = match port {
            Some(port) => format!("{} {port}\n", std::process::id()),
            None => format!("{}\n", std::process::id()),
        };
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }
}

/// The process serving `db`, if one holds its lock.
pub fn holder(db: &Path) -> Option<Holder> {
    let mut file = File::open(path_of(db)).ok()?;
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            None
        }
        Err(std::fs::TryLockError::WouldBlock) => Some(read_holder(&mut file)),
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// "pid port" as [`ServeLock`] writes it; what cannot be read is left out.
fn read_holder(file: &mut File) -> Holder {
    let mut text = String::new();
    let _ = file.rewind().and_then(|()| file.take(64).read_to_string(&mut text));
    let mut words = text.split_whitespace();
    Holder { pid: words.next().and_then(|w| w.parse().ok()), port: words.next().and_then(|w| w.parse().ok()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_who_holds_it_and_free_again_after_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.db");
        assert_eq!(holder(&db), None);
        let mut first = ServeLock::acquire(&db, None).unwrap();
        first.announce(7891);
        let me = Holder { pid: Some(std::process::id()), port: Some(7891) };
        assert_eq!(holder(&db), Some(me));
        match ServeLock::acquire(&db, Some(7892)) {
            Err(StoreError::Served { holder, .. }) => assert_eq!(holder, me),
            other => panic!("expected Served, got {other:?}"),
        }
        drop(first);
        assert_eq!(holder(&db), None);
        let second = ServeLock::acquire(&db, Some(7892)).unwrap();
        assert_eq!(holder(&db).and_then(|h| h.port), Some(7892));
        drop(second);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_the_database_shares_its_lock() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.db");
        std::fs::write(&db, b"").unwrap();
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&db, &link).unwrap();
        let _lock = ServeLock::acquire(&db, Some(1)).unwrap();
        assert!(matches!(ServeLock::acquire(&link, Some(2)), Err(StoreError::Served { .. })));
        assert_eq!(holder(&link).and_then(|h| h.port), Some(1));
    }

    #[cfg(unix)]
    #[test]
    fn the_lock_file_is_its_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.db");
        let _lock = ServeLock::acquire(&db, Some(1)).unwrap();
        let mode = std::fs::metadata(path_of(&db)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
