//! Exports of the capture: a HAR 1.2 file of the network ([`har`]) and every
//! entry as JSON lines ([`jsonl`]). Used by `gasoline export` and by
//! `configure action=export`. Reads one snapshot; streams rows, so memory stays
//! small whatever the rings hold.

pub mod har;
pub mod jsonl;
pub mod since;

use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::kind::Kind;
use crate::query::Snapshot;
use crate::query::rows::Filter;
use crate::store::StoreError;

/// Which file to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Har,
    Jsonl,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Har => "har",
            Format::Jsonl => "jsonl",
        }
    }
}

/// What to export: the filters (tab, since, url) and, for JSONL, the kinds (empty = all).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub filter: Filter,
    pub kinds: Vec<&'static Kind>,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl From<rusqlite::Error> for ExportError {
    fn from(e: rusqlite::Error) -> Self {
        ExportError::Store(StoreError::Sqlite(e))
    }
}

/// Told how many items there are, then of each one written.
pub trait Progress {
    fn total(&self, _items: u64) {}
    fn advance(&self, _items: u64) {}
}

/// No progress to show.
pub struct Quiet;
impl Progress for Quiet {}

/// What an export wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// HAR entries (requests and WebSocket connections) or JSON lines.
    pub entries: u64,
    pub bytes: u64,
}

/// Writes the export to `out` from one read snapshot of `conn`. `target` names
/// the destination in errors.
pub fn write(
    conn: &Connection,
    format: Format,
    selection: &Selection,
    out: &mut dyn Write,
    target: &Path,
    progress: &dyn Progress,
) -> Result<Written, ExportError> {
    let _snapshot = Snapshot::begin(conn)?;
    // Captured text holds what a page put there: no export carries a character a terminal obeys.
    let mut counted = Counted { inner: out, bytes: 0 };
    let mut safe = crate::printable::JsonWriter::new(&mut counted);
    let entries = match format {
        Format::Har => har::write(conn, selection, &mut safe, progress),
        Format::Jsonl => jsonl::write(conn, selection, &mut safe, progress),
    }
    .map_err(|e| match e {
        Failure::Io(source) => ExportError::Write { path: target.to_path_buf(), source },
        Failure::Export(e) => e,
    })?;
    safe.flush().map_err(|source| ExportError::Write { path: target.to_path_buf(), source })?;
    drop(safe);
    Ok(Written { entries, bytes: counted.bytes })
}

/// Writes the export to `path` through a temporary file beside it, so that a
/// failed export leaves no half file and an existing one stays until the new one is whole.
/// A path that is not a regular file (a pipe, `/dev/stdout`, `/dev/fd/3`, a FIFO) or is a
/// link is written through as it is, never replaced. A SQLite database (the capture's own,
/// its `-wal`, or any other) is never overwritten, nor the lock file of its server.
pub fn to_file(
    conn: &Connection,
    format: Format,
    selection: &Selection,
    path: &Path,
    progress: &dyn Progress,
) -> Result<Written, ExportError> {
    let cannot = |source: std::io::Error| ExportError::Write { path: path.to_path_buf(), source };
    if path.is_dir() {
        return Err(cannot(std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory")));
    }
    if let Some(why) = a_database(conn, path) {
        return Err(cannot(std::io::Error::new(std::io::ErrorKind::AlreadyExists, why)));
    }
    let through = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
        || std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    if through {
        let file = std::fs::OpenOptions::new().write(true).truncate(true).open(path).map_err(cannot)?;
        let mut buffered = std::io::BufWriter::with_capacity(256 * 1024, file);
        let written = write(conn, format, selection, &mut buffered, path, progress)?;
        buffered.flush().map_err(cannot)?;
        return Ok(written);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".gasoline-export");
    // What was captured (bodies, headers, console output) is the user's alone: 0600, also
    // when it replaces a file that was readable by others.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600));
    // Said of the file asked for: tempfile names its own hidden file in the error, which the
    // person never asked for.
    let mut temp = builder.tempfile_in(dir).map_err(|e| {
        let inner = e.get_ref().and_then(std::error::Error::source);
        match e.raw_os_error().or_else(|| inner?.downcast_ref::<std::io::Error>()?.raw_os_error()) {
            Some(code) => cannot(std::io::Error::from_raw_os_error(code)),
            None => cannot(std::io::Error::new(e.kind(), e.kind().to_string())),
        }
    })?;
    let written = {
        let mut buffered = std::io::BufWriter::with_capacity(256 * 1024, temp.as_file_mut());
        let written = write(conn, format, selection, &mut buffered, path, progress)?;
        buffered.flush().map_err(cannot)?;
        written
    };
    temp.as_file().sync_all().map_err(cannot)?;
    temp.persist(path).map_err(|e| cannot(e.error))?;
    Ok(written)
}

/// Why `path` must not be overwritten by an export: it is the capture's database or one of
/// the files SQLite keeps beside it, or another SQLite database. None when it may be.
fn a_database(conn: &Connection, path: &Path) -> Option<String> {
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(db) = conn.path().filter(|p| !p.is_empty()).map(Path::new) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let beside = PathBuf::from(format!("{}{suffix}", db.display()));
            if same(path, &beside) {
                return Some(format!(
                    "it is {} of the capture being exported; name another file",
                    if suffix.is_empty() { "the database".to_owned() } else { format!("the {suffix} file") }
                ));
            }
        }
        // Replaced, its lock would be gone: a second server could then write the same database.
        if same(path, &crate::store::serve_lock::path_of(db)) {
            return Some(
                "it is the lock file of the server of the capture being exported; name another file".to_owned(),
            );
        }
    }
    // Only a regular file is read: opening a FIFO to read would wait for a writer.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    crate::store::is_sqlite_file(path)
        .is_ok_and(|sqlite| sqlite)
        .then(|| "it is a SQLite database, which an export would replace; name another file".to_owned())
}

/// A failure inside a writer: the output (to be named by the caller) or the rest.
pub(crate) enum Failure {
    Io(std::io::Error),
    Export(ExportError),
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Export(ExportError::Store(e))
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Failure::Export(e.into())
    }
}

/// Counts the bytes going through.
struct Counted<'w> {
    inner: &'w mut dyn Write,
    bytes: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
