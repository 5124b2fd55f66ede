//! The tools for the person beside the agent: `tail`, `status`, `export`,
//! `clear`, and `kinds` (what the server declares, for the extension's
//! tests). Thin: each parses nothing (clap did), reads through `rows` and
//! `store`, and prints. All but `clear` open the database read-only.

mod clear;
mod export;
mod kinds;
mod line;
pub(crate) mod server;
mod status;
mod tail;

use std::path::{Path, PathBuf};

pub use clear::clear;
pub use export::export;
pub use kinds::{declared as declared_kinds, kinds};
pub use status::status;
pub use tail::tail;

use crate::cli::{DbArgs, PortArgs, default_db_path};
use crate::store::StoreError;

/// Why a command failed: one line for the person, then a non-zero exit.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("no data directory on this platform; pass --db PATH")]
    NoDataDirectory,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Usage(String),
    #[error(
        "--since \"{0}\" is not a time: give RFC 3339 (2026-11-23T18:00:00Z), epoch milliseconds, or an age (10m, 2h, 1d)"
    )]
    Since(String),
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot write to stdout: {0}")]
    Stdout(std::io::Error),
    #[error("the running gasoline on port {port} refused: {message}")]
    Server { port: u16, message: String },
    #[error("cannot install the Ctrl-C handler: {0}")]
    Signals(std::io::Error),
}

/// The database a command reads, made absolute: `--db` (or `$GASOLINE_DB`) when given; else the
/// one the gasoline on `--port` (default 7890) serves, as its `/health` names it (a server started
/// with a `--db` of its own); else the same default as `serve`.
pub async fn db_path(args: &DbArgs, port: &PortArgs) -> Result<PathBuf, CommandError> {
    let path = match &args.db {
        Some(p) => p.clone(),
        None => match server::served_db(port.port()).await {
            Some(served) => served,
            None => default_db_path().ok_or(CommandError::NoDataDirectory)?,
        },
    };
    Ok(std::path::absolute(&path).unwrap_or(path))
}

/// Opens the database as a reader: never creates, migrates or writes it.
fn open_reader(path: &Path) -> Result<rusqlite::Connection, CommandError> {
    Ok(crate::store::open_read_only(path)?)
}

/// True when writing failed because the reader went away (`gasoline tail | head`).
fn is_closed_pipe(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Writes `text` to stdout as it is; a reader that went away is no failure
/// (`println!` would panic there), a full disk or a closed descriptor is.
fn print(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if is_closed_pipe(&e) => Ok(()),
        other => other,
    }
}

/// Prints `line` and a newline on stdout, as [`print`].
pub fn say(line: &str) -> std::io::Result<()> {
    print(&format!("{line}\n"))
}
