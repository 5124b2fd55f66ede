//! Faults at start: a file that is not SQLite, a damaged store, a store from a newer gasoline, a
//! read-only file or directory, a missing directory, a port already in use.
//! Each gives one clear error line and a non-zero exit, never a panic, and the
//! file on disk is left exactly as it was (never replaced by an empty store).
//! And the fault after start that attach mode meets: the gasoline that owns the
//! port exits, and the attached `gasoline mcp` takes ingest over.
//!
//! The read-only cases need, as root, `chattr` (e2fsprogs, installed by
//! scripts/setup.sh) on a filesystem with the immutable attribute: without them the
//! test fails, unless `GASOLINE_TEST_NO_CHATTR=1` says this machine cannot.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{McpProc, Server, TempDb, command, count, logs, run_to_exit};
use serde_json::json;

const EXIT_WITHIN: Duration = Duration::from_secs(20);

/// Runs `gasoline <mode>` on `db` to its exit; asserts a clean refusal whose one `gasoline:` line
/// contains `expected`. Returns that line.
fn refused(mode: &str, db: &Path, expected: &str) -> String {
    let mut cmd = command(mode, db, 0, &[]);
    cmd.stdin(std::process::Stdio::null());
    refused_cmd(cmd, expected)
}

fn refused_cmd(cmd: Command, expected: &str) -> String {
    let (code, log) = run_to_exit(cmd, EXIT_WITHIN);
    assert!(matches!(code, Some(c) if c != 0), "expected a non-zero exit, got {code:?}; log:\n{log}");
    assert!(!log.contains("panicked"), "{log}");
    let errors: Vec<&str> = log.lines().filter(|l| l.starts_with("gasoline: ")).collect();
    assert_eq!(errors.len(), 1, "one error line expected:\n{log}");
    assert!(errors[0].contains(expected), "expected \"{expected}\" in: {}", errors[0]);
    assert!(!log.contains(" ERROR "), "an error line and no noise: {log}");
    errors[0].to_owned()
}

/// A store holding 10 logs, cleanly closed.
async fn store_with_data(db: &TempDb) {
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(10, 0, Some(1))).await;
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_and_left_alone() {
    let db = TempDb::new();
    let mut rng = common::Rng::new(42);
    let noise: Vec<u8> = (0..8192).map(|_| rng.next() as u8).collect();
    let samples: [(&str, Vec<u8>); 3] = [
        ("random bytes", noise),
        ("a text file", "this is my shopping list\n".repeat(200).into_bytes()),
        ("a JSON file", br#"{"entries": [{"level": "log", "message": "not a database"}]}"#.repeat(20)),
    ];
    for (what, bytes) in samples {
        std::fs::write(&db.path, &bytes).unwrap();
        for mode in ["serve", "mcp"] {
            let line = refused(mode, &db.path, "is not a SQLite database");
            assert!(line.contains(&db.path.display().to_string()), "{what}: names the file: {line}");
            assert_eq!(std::fs::read(&db.path).unwrap(), bytes, "{what}: the file was changed by {mode}");
        }
    }
    eprintln!("FIGURE fault not-sqlite: 3 files x 2 modes refused, files unchanged");
}

/// Another app's SQLite database, or a FIFO, named as `--db`: every command that writes the store
/// refuses it before changing anything of it (its mode, its journal mode, its bytes), and
/// `pair` without `--reset` writes nothing, not even into an empty file.
#[test]
fn another_app_s_database_is_refused_before_anything_of_it_changes() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let db = TempDb::new();
    {
        let conn = rusqlite::Connection::open(&db.path).unwrap();
        conn.execute_batch("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann');").unwrap();
    }
    std::fs::set_permissions(&db.path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let before = std::fs::read(&db.path).unwrap();
    let cli = |args: &[&str]| {
        let mut cmd = Command::new(common::BIN);
        cmd.args(args).arg("--db").arg(&db.path).stdin(std::process::Stdio::null());
        cmd
    };
    for mode in ["serve", "mcp"] {
        refused(mode, &db.path, "not a gasoline store");
    }
    refused_cmd(cli(&["pair", "--reset"]), "not a gasoline store");
    refused_cmd(cli(&["pair"]), "not a gasoline database");
    refused_cmd(cli(&["clear", "--port", "1"]), "not a gasoline store");
    let mode = std::fs::metadata(&db.path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "its mode was changed");
    assert_eq!(std::fs::read(&db.path).unwrap(), before, "its bytes were changed");
    let journal: String =
        rusqlite::Connection::open(&db.path).unwrap().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(journal, "delete", "its journal mode was changed");

    std::fs::write(&db.path, b"").unwrap();
    refused_cmd(cli(&["pair"]), "not a gasoline database");
    assert_eq!(std::fs::metadata(&db.path).unwrap().len(), 0, "pair wrote into an empty file");

    std::fs::remove_file(&db.path).unwrap();
    assert!(Command::new("mkfifo").arg(&db.path).status().unwrap().success());
    std::fs::set_permissions(&db.path, std::fs::Permissions::from_mode(0o644)).unwrap();
    refused("serve", &db.path, "not a regular file");
    let meta = std::fs::metadata(&db.path).unwrap();
    assert!(meta.file_type().is_fifo() && meta.permissions().mode() & 0o777 == 0o644, "the FIFO was changed");
}

/// A store whose pages were damaged (a disk fault, a bad copy): refused before anything is written
/// into it, rather than acknowledging writes its readers then cannot read.
#[tokio::test]
async fn a_damaged_store_is_refused_and_left_alone() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(3_000, 0, Some(1))).await;
    assert_eq!(server.stop(), Some(0));
    let mut bytes = std::fs::read(&db.path).unwrap();
    let page = 4096;
    assert!(bytes.len() > 40 * page, "a store of many pages: {} bytes", bytes.len());
    let mut rng = common::Rng::new(7);
    for b in &mut bytes[20 * page..23 * page] {
        *b = rng.next() as u8;
    }
    std::fs::write(&db.path, &bytes).unwrap();
    for mode in ["serve", "mcp"] {
        let line = refused(mode, &db.path, "is damaged");
        assert!(line.contains(".recover"), "says how to get its rows back: {line}");
        assert_eq!(std::fs::read(&db.path).unwrap(), bytes, "the file was changed by {mode}");
    }
    eprintln!("FIGURE fault damaged: 2 modes refused, file unchanged");
}

#[tokio::test]
async fn a_store_from_a_newer_gasoline_is_refused_and_left_alone() {
    let db = TempDb::new();
    store_with_data(&db).await;
    {
        let conn = rusqlite::Connection::open(&db.path).unwrap();
        conn.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum)
             VALUES (999, 'from_the_future', '2030-01-01T00:00:00Z', '0')",
            [],
        )
        .unwrap();
    }
    let before = std::fs::read(&db.path).unwrap();
    for mode in ["serve", "mcp"] {
        let line = refused(mode, &db.path, "newer gasoline");
        assert!(line.contains("999"), "{line}");
    }
    assert_eq!(std::fs::read(&db.path).unwrap(), before, "the newer store was modified");
    assert_eq!(count(&db.path, "logs"), 10);
}

/// Makes `path` unwritable even for root (`chattr +i`), undone on drop.
struct Immutable<'a>(&'a Path);

impl<'a> Immutable<'a> {
    fn set(path: &'a Path) -> Result<Self, String> {
        let out = Command::new("chattr").arg("+i").arg(path).output().map_err(|e| format!("chattr: {e}"))?;
        if out.status.success() {
            Ok(Immutable(path))
        } else {
            Err(format!("chattr +i failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
        }
    }
}

impl Drop for Immutable<'_> {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(self.0).status();
    }
}

/// `GASOLINE_TEST_NO_CHATTR=1`: this machine runs the tests as root but cannot set the
/// immutable attribute, so the read-only cases cannot run here (RELIABILITY.md).
fn no_chattr_declared() -> bool {
    std::env::var("GASOLINE_TEST_NO_CHATTR").is_ok_and(|v| v == "1")
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Makes `path` read-only in the way that binds the current user: mode 0444 (0555 for a
/// directory) for a normal user; root ignores modes, so for root the immutable attribute.
fn make_read_only(path: &Path) -> Result<Option<Immutable<'_>>, String> {
    use std::os::unix::fs::PermissionsExt;
    if is_root() {
        return Immutable::set(path).map(Some);
    }
    let mode = if path.is_dir() { 0o555 } else { 0o444 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| e.to_string())?;
    Ok(None)
}

fn restore_mode(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if path.is_dir() { 0o755 } else { 0o644 };
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

#[tokio::test]
async fn a_read_only_file_or_directory_is_refused_and_left_alone() {
    let db = TempDb::new();
    store_with_data(&db).await;
    let before = std::fs::read(&db.path).unwrap();
    for target in [db.path.clone(), db.dir.path().to_path_buf()] {
        if target.is_dir() {
            // A directory where SQLite cannot create its `-wal` and `-shm` files (with them already
            // there, and writable, SQLite can and does write: that is not a read-only store).
            assert_eq!(common::file_len(&common::wal_path(&db.path)), 0, "the clean stop checkpointed");
            for suffix in ["-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", db.path.display()));
            }
        }
        let guard = match make_read_only(&target) {
            Ok(guard) => guard,
            Err(reason) => {
                // Only root can be unable to make a file read-only (no chattr, or a filesystem without
                // the immutable attribute). That fails the test unless the machine says it cannot.
                assert!(is_root(), "could not make {} read-only: {reason}", target.display());
                assert!(
                    no_chattr_declared(),
                    "running as root, could not make {} read-only: {reason}. Install e2fsprogs (scripts/setup.sh \
                     does) and keep the temp dir on a filesystem with the immutable attribute, or set \
                     GASOLINE_TEST_NO_CHATTR=1 to say this machine cannot (RELIABILITY.md)",
                    target.display()
                );
                eprintln!("NOT RUN read-only {}: GASOLINE_TEST_NO_CHATTR=1 and {reason}", target.display());
                continue;
            }
        };
        for mode in ["serve", "mcp"] {
            let line = refused(mode, &db.path, "read-only");
            // The one that is read-only is named: the file, or the directory it is in.
            assert!(line.starts_with(&format!("gasoline: {} is read-only", target.display())), "{line}");
            for suffix in ["-wal", "-shm"] {
                let beside = PathBuf::from(format!("{}{suffix}", db.path.display()));
                assert!(!beside.exists(), "{mode} left {} beside the read-only store", beside.display());
            }
        }
        drop(guard);
        restore_mode(&target);
        assert_eq!(std::fs::read(&db.path).unwrap(), before, "the read-only store was modified");
    }
    assert_eq!(count(&db.path, "logs"), 10);
    // Writable again: it starts and still holds its data.
    let server = Server::start(&db.path, &[]);
    assert_eq!(server.health().await["kinds"]["logs"]["count"], 10);
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_missing_directory_is_refused_and_not_created() {
    let db = TempDb::new();
    let missing = db.dir.path().join("no").join("such").join("dir");
    let path = missing.join("gasoline.db");
    for mode in ["serve", "mcp"] {
        let line = refused(mode, &path, "directory does not exist");
        assert!(line.contains(&missing.display().to_string()), "names the directory: {line}");
        assert!(!missing.exists() && !db.dir.path().join("no").exists(), "{mode} created the directory");
    }
}

#[test]
fn a_port_held_by_another_program_is_named_and_mcp_still_serves() {
    let db = TempDb::new();
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    let mut serve = command("serve", &db.path, port, &[]);
    serve.stdin(std::process::Stdio::null());
    let line = refused_cmd(serve, &format!("port {port}"));
    assert!(line.contains("already in use"), "{line}");
    assert!(!db.path.exists(), "serve said so before it made any database file");

    // `gasoline mcp` cannot ingest then, but still answers MCP on stdio from the database.
    let mut mcp = McpProc::start(&db.path, port, &[]);
    let answer = mcp.call("observe", json!({"what": "logs"}));
    assert_eq!(answer["total"], 0, "{answer}");
    let status = mcp.call("configure", json!({"action": "status"}));
    assert!(status.is_object(), "{status}");
    let (code, _, log) = mcp.close_stdin_and_wait(EXIT_WITHIN);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains(&format!("port {port} is used by another program")), "{log}");
    drop(holder);
}

/// `gasoline mcp` attached to another gasoline (the port was taken) takes the port over once
/// that process exits, says so on stderr, and ingests: the extension's next retry lands, and
/// the MCP answers of the attached process show the new events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_mcp_takes_ingest_over_when_the_owner_exits() {
    let db = TempDb::new();
    let owner = Server::start(&db.path, &[]);
    let port = owner.port;
    owner.ingest("logs", logs(3, 0, Some(1))).await;
    let mut mcp = McpProc::start(&db.path, port, &[]);
    let answer = mcp.call("observe", json!({"what": "logs"}));
    assert_eq!(answer["total"], 3, "{answer}");
    assert!(mcp.log().contains("served by another gasoline"), "{}", mcp.log());

    owner.kill();
    let killed = std::time::Instant::now();
    // The extension retries until a POST lands; it must land on the attached process.
    let client = reqwest::Client::new();
    let body = json!({"entries": logs(2, 100, Some(1))}).to_string();
    let mut landed = None;
    while landed.is_none() && killed.elapsed() < EXIT_WITHIN {
        let sent = client
            .post(format!("http://127.0.0.1:{port}/events/logs"))
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(r) if r.status().as_u16() == 200 => landed = Some(killed.elapsed()),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let took = landed.unwrap_or_else(|| panic!("ingest never resumed on port {port}: {}", mcp.log()));
    assert_eq!(mcp.http_port(), Some(port), "the attached process listens on the port: {}", mcp.log());
    assert!(mcp.log().contains("takes over ingest"), "it says so on stderr: {}", mcp.log());
    let answer = mcp.call("observe", json!({"what": "logs"}));
    assert_eq!(answer["total"], 5, "the MCP answers see the new events: {answer}");
    assert_eq!(answer["entries"][4]["message"], "m101", "{answer}");
    let (code, _, log) = mcp.close_stdin_and_wait(EXIT_WITHIN);
    assert_eq!(code, Some(0), "{log}");
    eprintln!("FIGURE port take-over: owner SIGKILLed; ingest landed on the attached gasoline mcp after {took:?}");
}

/// Another program holding a lock on the file (`sqlite3 gasoline.db` with an
/// open `BEGIN EXCLUSIVE`): a batch that waited past the busy timeout gets 503
/// with Retry-After, which the extension retries, and nothing stored is lost.
#[tokio::test]
async fn a_database_locked_by_another_program_is_503_and_retried() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(2, 0, Some(1))).await;
    let other = rusqlite::Connection::open(&db.path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE; SELECT count(*) FROM logs;").unwrap();
    let answer = reqwest::Client::new()
        .post(server.url("/events/logs"))
        .header("content-type", "application/json")
        .body(json!({"entries": logs(1, 2, Some(1))}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
    assert_eq!(answer.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
    let text = answer.text().await.unwrap();
    assert!(text.contains("locked by another program"), "{text}");
    other.execute_batch("COMMIT").unwrap();
    drop(other);
    server.ingest("logs", logs(1, 2, Some(1))).await;
    assert_eq!(common::count(&db.path, "logs"), 3, "the two before and the one sent again");
    server.stop();
}
