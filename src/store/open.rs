//! Opening the database file: checks that give one clear error, pragmas,
//! migrations, and the reader pool.

use std::path::Path;
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::{Pool, StoreError, sql};
use crate::kind::Kind;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// How to open the store.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Ring capacities to set at start-up (stored in the database, so they persist).
    pub capacities: Vec<(&'static Kind, i64)>,
    /// Bytes of decoded requests that may wait for the writer before ingest gets 503.
    pub max_pending_bytes: usize,
    /// How long a request may wait for room in that queue.
    pub busy_wait: Duration,
    /// Readers in the pool.
    pub readers: u32,
    /// Batch keys remembered, so a batch sent again is answered without storing it twice.
    pub remembered_batches: i64,
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self {
            capacities: Vec::new(),
            max_pending_bytes: 64 * 1024 * 1024,
            busy_wait: super::DEFAULT_BUSY_WAIT,
            readers: 4,
            remembered_batches: super::batch_keys::DEFAULT_REMEMBERED,
        }
    }
}

const BUSY_TIMEOUT_MS: u32 = 5_000;
/// After a checkpoint resets the WAL, SQLite truncates the file to this size.
pub const JOURNAL_SIZE_LIMIT: i64 = 64 * 1024 * 1024;

/// Size in bytes of the `-wal` file beside the database `conn` has open (0 when none).
pub(super) fn wal_size(conn: &Connection) -> u64 {
    conn.path().map_or(0, |p| file_bytes(Path::new(p)).1)
}

/// `db` with `suffix` after its file name: SQLite's `-wal` and `-shm` files beside it.
pub fn beside(db: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Bytes of the database file `db` and of its WAL (0 for a file that is not there, or is not a file).
pub fn file_bytes(db: &Path) -> (u64, u64) {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| if m.is_file() { m.len() } else { 0 });
    (size(db), size(&beside(db, "-wal")))
}

/// Prepared statements a reader keeps.
const READER_STATEMENTS: usize = 128;

/// Opens the write connection (migrated) and the reader pool.
pub(super) fn open(path: &Path, options: &OpenOptions) -> Result<(Connection, Pool), StoreError> {
    let conn = open_writer(path, options)?;
    Ok((conn, reader_pool(path, options.readers, OpenFlags::SQLITE_OPEN_READ_WRITE)?))
}

/// The reader pool alone, for a process that does not write the file (another gasoline
/// does): the file must be a gasoline store already, and is neither created, migrated
/// nor written (`SQLITE_OPEN_READ_ONLY`, so not even a checkpoint when the last
/// connection closes).
pub(super) fn open_readers(path: &Path, options: &OpenOptions) -> Result<Pool, StoreError> {
    drop(open_read_only(path)?);
    reader_pool(path, options.readers, OpenFlags::SQLITE_OPEN_READ_ONLY)
}

/// The write connection: created if need be, pragmas set, migrated, capacities applied,
/// free pages given back.
pub(super) fn open_writer(path: &Path, options: &OpenOptions) -> Result<Connection, StoreError> {
    vet_path(path)?;
    create_private_file(path);
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| classify_open(e, path))?;
    conn.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS.into())).map_err(|e| classify_open(e, path))?;
    // Six kinds times a few multi-row INSERT shapes (see sql::insert_rows), plus the rest.
    conn.set_prepared_statement_cache_capacity(128);
    let page_count: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).map_err(|e| classify_open(e, path))?;
    if conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(StoreError::ReadOnly(path.to_path_buf()));
    }
    if page_count == 0 {
        // Must precede the first table: lets a lowered capacity give pages back to the OS.
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL").map_err(|e| classify_open(e, path))?;
    }
    let _mode: String =
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| classify_open(e, path))?;
    // The writer's page cache: 8 MiB holds the pages a full ring's inserts and trims touch
    // (its tail, its head, and both ends of each index), so they are not read back per commit.
    // `secure_delete` ([`sql::SECURE_DELETE`]): otherwise what the ring trimmed stays readable in
    // the file's unused space (`strings gasoline.db`). A clear wipes free pages too.
    conn.execute_batch(&format!(
        "PRAGMA synchronous = NORMAL;
         PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT};
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -8192;
         PRAGMA secure_delete = {};",
        sql::SECURE_DELETE
    ))?;
    check_schema_version(&conn, path)?;
    check_intact(&conn, path)?;
    embedded::migrations::runner().run(&mut conn).map_err(|e| match e.kind() {
        refinery::error::Kind::Connection(_, inner) => {
            match inner.downcast_ref::<rusqlite::Error>().and_then(rusqlite::Error::sqlite_error_code) {
                Some(ErrorCode::ReadOnly) => StoreError::ReadOnly(path.to_path_buf()),
                _ => StoreError::Migration(e),
            }
        }
        _ => StoreError::Migration(e),
    })?;
    for (kind, capacity) in &options.capacities {
        sql::set_capacity(&conn, kind, *capacity)?;
    }
    give_back_free_pages(&conn)?;
    Ok(conn)
}

/// Refuses, before anything is made or changed, a `path` that cannot become or be a gasoline
/// store: a directory missing or named instead of a file, or a file that is not gasoline's
/// (its mode and journal are left alone).
pub(super) fn vet_path(path: &Path) -> Result<(), StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
        return Err(StoreError::MissingDirectory(dir.to_path_buf()));
    }
    if path.is_dir() {
        return Err(a_directory(path));
    }
    vet_existing(path)
}

/// `readers` pooled connections opened with `access` (read-write or read-only), each `query_only`.
fn reader_pool(path: &Path, readers: u32, access: OpenFlags) -> Result<Pool, StoreError> {
    let manager =
        SqliteConnectionManager::file(path).with_flags(access | OpenFlags::SQLITE_OPEN_NO_MUTEX).with_init(|c| {
            c.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS.into()))?;
            // Every filter combination is a statement shape of its own (query::filter).
            c.set_prepared_statement_cache_capacity(READER_STATEMENTS);
            // Without the query planner stability guarantee, a statement whose plan may
            // depend on a bound `LIMIT ?` is parsed again each time it is bound: that was
            // every page read.
            c.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
            c.execute_batch("PRAGMA query_only = 1;")
        });
    Ok(r2d2::Pool::builder().max_size(readers.max(1)).test_on_check_out(false).build(manager)?)
}

/// Creates the database file readable and writable by its owner only (0600), when it
/// does not exist yet: SQLite creates the `-wal` and `-shm` files with the main
/// file's mode, so they are private too. What is captured (bodies, console
/// output, URLs) is the user's alone. A failure here is left to SQLite's own
/// open to report.
fn create_private_file(path: &Path) {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    if options.open(path).is_err() {
        // It was there already: a file made before, or by other hands, readable by others.
        make_private(path, 0o600);
        // SQLite's own files beside it: also writable by their owner. A read-only open of a
        // read-only database (`sqlite3`, or the CLI, on a file chmod 400 then) leaves them with
        // the database's mode, and the writer could then never write.
        for file in [beside(path, "-wal"), beside(path, "-shm")] {
            make_private_and_writable(&file);
        }
    }
}

/// `path` made 0600 when it is not already (open to others, or not writable by its owner).
fn make_private_and_writable(path: &Path) {
    set_mode_when(path, 0o600, |was| was != 0o600, "not its owner's alone and writable");
}

/// Refuses, before anything is changed, a file at `path` that cannot be a gasoline store: not a
/// regular file (a device, a FIFO), not SQLite, another app's database, or one of a newer
/// gasoline. A missing or empty file passes: it becomes the store.
fn vet_existing(path: &Path) -> Result<(), StoreError> {
    let Ok(meta) = std::fs::metadata(path) else { return Ok(()) };
    if !meta.is_file() {
        return Err(StoreError::Unreadable(
            path.to_path_buf(),
            "it is not a regular file; --db names the database file".into(),
        ));
    }
    // SQLite keeps a WAL per name of a file: written through two hard links, what one name's WAL
    // holds is lost to the other (sqlite.org/howtocorrupt.html, 2.5).
    #[cfg(unix)]
    if let links @ 2.. = std::os::unix::fs::MetadataExt::nlink(&meta) {
        return Err(StoreError::HardLinked { path: path.to_path_buf(), links });
    }
    // Said before SQLite opens it: a read-only open would leave `-wal` and `-shm` files beside it.
    if !may_write(path) {
        return Err(StoreError::ReadOnly(path.to_path_buf()));
    }
    if meta.len() == 0 {
        return Ok(());
    }
    match is_sqlite_file(path) {
        Ok(true) => {}
        Ok(false) => return Err(StoreError::NotSqlite(path.to_path_buf())),
        Err(e) => return Err(StoreError::Unreadable(path.to_path_buf(), e.to_string())),
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| classify_open(e, path))?;
    conn.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS.into())).map_err(|e| classify_open(e, path))?;
    check_schema_version(&conn, path).map_err(|e| match e {
        StoreError::Sqlite(e) => classify_open(e, path),
        other => other,
    })
}

/// Whether the file at `path` starts with SQLite's header (one shorter than the header is not
/// SQLite). Read it only when it is a regular file: opening a FIFO to read waits for a writer.
pub fn is_sqlite_file(path: &Path) -> std::io::Result<bool> {
    let mut head = [0u8; 16];
    match std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head)) {
        Ok(()) => Ok(&head == b"SQLite format 3\0"),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Takes group and others' access off `path` (a file or directory that exists), leaving
/// it `mode`; says so when it changed anything.
fn make_private(path: &Path, mode: u32) {
    set_mode_when(path, mode, |was| was & 0o077 != 0, "open to others");
}

/// Sets `path` (a file or directory that exists) to `mode` when `wrong` says its mode is, and
/// says so: `path` was `what`. Never through a symlink; a file of another user stays as it is
/// (only its owner may change it).
fn set_mode_when(path: &Path, mode: u32, wrong: impl Fn(u32) -> bool, what: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let Ok(meta) = std::fs::symlink_metadata(path) else { return };
        let was = meta.mode() & 0o777;
        if meta.file_type().is_symlink() || !wrong(was) {
            return;
        }
        if std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).is_ok() {
            tracing::warn!("{} was {what} ({was:o}): made it {mode:o}", path.display());
        }
    }
    #[cfg(not(unix))]
    let _ = (path, mode, wrong, what);
}

/// A directory where the database file was named: said as such, for the writer and readers alike.
fn a_directory(path: &Path) -> StoreError {
    StoreError::Unreadable(path.to_path_buf(), "it is a directory; --db names the database file".into())
}

/// Creates `dir` and its missing parents readable by their owner only (0700): the
/// data directory and its exports. `take_existing`: one that was there already (made
/// before, or by other hands) is made 0700 too; only for gasoline's own data directory,
/// never a folder beside a database the person placed (a project's `exports/`).
pub fn create_private_dir(dir: &Path, take_existing: bool) -> std::io::Result<()> {
    let existed = dir.is_dir();
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    if take_existing || !existed {
        make_private(dir, 0o700);
    }
    Ok(())
}

/// Returns the free pages (from a lowered `--capacity`, or left by the last run) to the
/// filesystem before serving, and folds that into the main file so it shrinks at once.
fn give_back_free_pages(conn: &Connection) -> Result<(), StoreError> {
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    if free == 0 {
        return Ok(());
    }
    // incremental_vacuum frees one page per step (each step yields a row): run it to the end.
    let mut stmt = conn.prepare("PRAGMA incremental_vacuum")?;
    let mut rows = stmt.query([])?;
    while rows.next()?.is_some() {}
    drop(rows);
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    Ok(())
}

fn classify_open(e: rusqlite::Error, path: &Path) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotSqlite(path.to_path_buf()),
        // A file that may be written in a directory that may not: SQLite could not make its `-wal`
        // and `-shm` files there.
        Some(ErrorCode::ReadOnly) | Some(ErrorCode::CannotOpen) if path.is_file() && may_write(path) => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            StoreError::ReadOnlyDirectory(dir.to_path_buf())
        }
        Some(ErrorCode::ReadOnly) | Some(ErrorCode::CannotOpen) if path.exists() => {
            StoreError::ReadOnly(path.to_path_buf())
        }
        _ => StoreError::Sqlite(e),
    }
}

/// Whether this process may write the regular file at `path`: asked by opening it to write,
/// which changes nothing (its mode, an immutable attribute, a read-only mount all answer).
fn may_write(path: &Path) -> bool {
    std::fs::OpenOptions::new().write(true).open(path).is_ok()
}

/// Refuses a damaged database before anything is written to it (SQLite's `quick_check`: the
/// structure of every page, a fraction of a second for a full store), rather than acknowledging
/// writes into it that its readers then cannot read.
fn check_intact(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    // SQLite's verdict runs over lines ("*** in database main ***\nTree 5 page 21 …"): one line, short.
    let damaged = |detail: String| {
        let line = detail.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("***")).collect::<Vec<_>>();
        let detail: String = line.join("; ").chars().take(200).collect();
        StoreError::Damaged { path: path.to_path_buf(), detail }
    };
    match conn.query_row("PRAGMA quick_check(1)", [], |r| r.get::<_, String>(0)) {
        Ok(verdict) if verdict == "ok" => Ok(()),
        Ok(verdict) => Err(damaged(verdict)),
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseCorrupt) => Err(damaged(e.to_string())),
        Err(e) => Err(classify_open(e, path)),
    }
}

/// Refuses a database migrated by a newer build rather than guessing at its schema.
fn check_schema_version(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let known = embedded::migrations::runner().get_migrations().iter().map(|m| i64::from(m.version())).max();
    if !has_history(conn)? {
        let tables: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))?;
        if tables > 0 {
            return Err(StoreError::Invalid(format!(
                "{} is a SQLite database but not a gasoline store (it has other tables); pass another --db path",
                path.display()
            )));
        }
        return Ok(());
    }
    let found: Option<i64> = conn.query_row("SELECT max(version) FROM refinery_schema_history", [], |r| r.get(0))?;
    match (found, known) {
        (Some(found), Some(known)) if found > known => {
            Err(StoreError::NewerSchema { path: path.to_path_buf(), found, known })
        }
        _ => Ok(()),
    }
}

/// A read-only connection to `path` (`immutable`: through an `immutable=1` URI, which reads the
/// main file alone, takes no lock and creates nothing) and whether it holds gasoline's tables.
fn read_gasoline_tables(path: &Path, immutable: bool) -> Result<(Connection, bool), rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = if immutable {
        Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)?
    } else {
        match open_query_only(path) {
            Ok(conn) => conn,
            Err(_) => Connection::open_with_flags(path, flags)?,
        }
    };
    conn.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS.into()))?;
    conn.set_prepared_statement_cache_capacity(READER_STATEMENTS);
    let gasoline = has_history(&conn)?;
    Ok((conn, gasoline))
}

/// A connection that may write the file but runs no statement that writes (`query_only`), where
/// the person may write it: SQLite creates the -wal and -shm files of a WAL database for any
/// reader, and only a connection that may write removes them when it closes as the last one
/// (a read-only one left both beside the database after every `gasoline status` or `tail`).
fn open_query_only(path: &Path) -> Result<Connection, rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

/// Whether the database holds refinery's migration history: the mark of a gasoline store.
fn has_history(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'refinery_schema_history')",
        [],
        |r| r.get(0),
    )
}

/// Whether `path`'s -wal file holds no page: absent, empty, or not a file SQLite could have written.
fn wal_holds_nothing(path: &Path) -> bool {
    file_bytes(path).1 == 0
}

/// `file:<path>?immutable=1`, the path's bytes other than unreserved ones and `/` percent-encoded
/// (SQLite's URI filenames: a `?`, `#` or `%` in a directory name is part of the path).
fn immutable_uri(path: &Path) -> String {
    use std::fmt::Write;
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/._~-".contains(&b) {
            uri.push(char::from(b));
        } else {
            let _ = write!(uri, "%{b:02X}");
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// Opens the file for reading only, as the person-facing commands do: never
/// creates it, never migrates it, never writes (`SQLITE_OPEN_READ_ONLY`; a WAL
/// reader beside a running server), and reads it in a directory it may not
/// write to. Refuses a file that is not a gasoline store
/// or was written by a newer gasoline.
pub fn open_read_only(path: &Path) -> Result<Connection, StoreError> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(StoreError::NotFound(path.to_path_buf())),
        Err(e) => return Err(StoreError::Unreadable(path.to_path_buf(), e.to_string())),
        Ok(m) if m.is_dir() => return Err(a_directory(path)),
        Ok(_) => {}
    }
    // Opening does not read the file; make an unreadable one fail here with its reason.
    if let Err(e) = std::fs::File::open(path) {
        return Err(StoreError::Unreadable(path.to_path_buf(), e.to_string()));
    }
    let unreadable = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotSqlite(path.to_path_buf()),
        _ => StoreError::Unreadable(path.to_path_buf(), e.to_string()),
    };
    let (conn, has_history) = match read_gasoline_tables(path, false) {
        // A WAL database is read through its -wal and -shm files, which SQLite creates when they
        // are missing: in a directory the person may not write (a copy on read-only media, a
        // shared folder), it cannot. With no -wal holding anything, the main file is the whole
        // database: read it as immutable, without those files.
        // (SQLite says CANTOPEN, or READONLY where it could open the -shm but not write it.)
        Err(e)
            if matches!(e.sqlite_error_code(), Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly))
                && wal_holds_nothing(path) =>
        {
            read_gasoline_tables(path, true).map_err(unreadable)?
        }
        // The same, but its -wal holds entries not yet in the main file: they cannot be read
        // without the -shm SQLite must make beside them.
        Err(e) if matches!(e.sqlite_error_code(), Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly)) => {
            return Err(StoreError::Unreadable(
                path.to_path_buf(),
                format!(
                    "{e}: its -wal holds entries not yet folded into it, and SQLite cannot create the -shm \
                     it reads them through in this directory; copy the database with its -wal to a directory \
                     you can write, or let the gasoline that wrote it stop (it folds the WAL in)"
                ),
            ));
        }
        other => other.map_err(unreadable)?,
    };
    if !has_history {
        return Err(StoreError::Invalid(format!(
            "{} is not a gasoline database (no gasoline tables in it); pass another --db path",
            path.display()
        )));
    }
    check_schema_version(&conn, path)?;
    Ok(conn)
}
