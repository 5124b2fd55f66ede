//! What gasoline writes is readable by its owner only: the database and its
//! `-wal`/`-shm` (0600), the data directory it creates (0700), and every export
//! file (0600), checked by stat after a real server run and real exports.
#![cfg(unix)]

mod cli;
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use cli::{db_arg, ok};
use common::{BIN, Mcp, Server, TempDb, logs, wal_path};
use serde_json::json;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display())).permissions().mode() & 0o777
}

/// `gasoline serve` with no --db: its data directory under `data` (XDG_DATA_HOME).
fn serve_without_db(data: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--port", "0"])
        .env_remove("GASOLINE_DB")
        .env("XDG_DATA_HOME", data)
        .env("HOME", home)
        .env("RUST_LOG", "info");
    cmd
}

fn shm_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-shm");
    PathBuf::from(name)
}

#[tokio::test]
async fn the_data_directory_database_wal_and_shm_are_the_owner_s_only() {
    let home = tempfile::tempdir().expect("temp dir");
    // No --db: the server creates its data directory under XDG_DATA_HOME.
    let data = home.path().join("xdg");
    let dir = data.join("gasoline");
    let db = dir.join("gasoline.db");
    let server = Server::spawn(serve_without_db(&data, home.path()), &db);
    server.ingest("logs", logs(3, 0, Some(1))).await;

    assert_eq!(mode(&dir), 0o700, "the data directory");
    assert_eq!(mode(&db), 0o600, "the database");
    assert_eq!(mode(&wal_path(&db)), 0o600, "the WAL, while the server runs");
    assert_eq!(mode(&shm_path(&db)), 0o600, "the shared-memory index, while the server runs");
    server.stop();
    assert_eq!(mode(&db), 0o600, "the database after a clean stop");
    for left in [wal_path(&db), shm_path(&db)] {
        if left.exists() {
            assert_eq!(mode(&left), 0o600, "{}", left.display());
        }
    }
}

#[tokio::test]
async fn a_database_named_by_db_is_created_private_too() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    assert_eq!(mode(&db.path), 0o600);
    assert_eq!(mode(&wal_path(&db.path)), 0o600);
    server.stop();
}

/// SQLite's `-wal` and `-shm` left read-only beside the database (a read-only open of a file
/// chmod 400 at the time leaves them with its mode) are made the owner's and writable again
/// when the server starts, so that ingest works rather than answering 500 to every batch.
#[tokio::test]
async fn wal_and_shm_left_read_only_are_made_writable_again() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    server.kill(); // the WAL and its index stay, as a reader of a read-only database leaves them
    for side in [wal_path(&db.path), shm_path(&db.path)] {
        assert!(side.exists(), "{}", side.display());
        std::fs::set_permissions(&side, std::fs::Permissions::from_mode(0o400)).unwrap();
    }
    let server = Server::start(&db.path, &[]);
    assert_eq!((mode(&wal_path(&db.path)), mode(&shm_path(&db.path))), (0o600, 0o600));
    server.ingest("logs", logs(2, 3, Some(1))).await;
    assert_eq!(Mcp::http(&server).await.observe(json!({"what": "logs"})).await["total"], 5);
    server.stop();
}

#[tokio::test]
async fn every_export_file_is_the_owner_s_only() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    server
        .ingest(
            "network_bodies",
            vec![json!({"tabId": 1, "ts": 1, "method": "GET", "url": "http://a.test/", "status": 200})],
        )
        .await;
    let d = db_arg(&db.path);

    let har = db.dir.path().join("capture.har");
    ok(&["export", "--har", &har.display().to_string(), "--db", &d]);
    assert_eq!(mode(&har), 0o600, "gasoline export --har");

    // A file that was readable by others is replaced by a private one.
    let jsonl = db.dir.path().join("capture.jsonl");
    std::fs::write(&jsonl, "old").expect("write");
    std::fs::set_permissions(&jsonl, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    ok(&["export", "--jsonl", &jsonl.display().to_string(), "--db", &d]);
    assert_eq!(mode(&jsonl), 0o600, "gasoline export --jsonl over a 0644 file");

    let mcp = Mcp::http(&server).await;
    for format in ["har", "jsonl"] {
        let answer = mcp.ok("configure", json!({"action": "export", "format": format})).await;
        let path = PathBuf::from(answer["path"].as_str().expect("a path"));
        assert_eq!(mode(&path), 0o600, "configure action=export format={format}");
        assert_eq!(mode(path.parent().expect("its directory")), 0o700, "the exports directory");
    }
    // A folder named exports that was there already beside the database (a project's) keeps its
    // mode; what is written in it is private all the same.
    let exports = db.dir.path().join("exports");
    std::fs::set_permissions(&exports, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let answer = mcp.ok("configure", json!({"action": "export", "format": "jsonl"})).await;
    assert_eq!(mode(Path::new(answer["path"].as_str().expect("a path"))), 0o600);
    assert_eq!(mode(&exports), 0o755, "an exports folder that was there keeps its mode");
    mcp.close().await;
    server.stop();
}

/// A database, WAL or data directory that was already there, open to others
/// (made by an older version, copied, created by hand), is made the owner's
/// alone when the server opens it: the capture does not stay readable by all.
#[tokio::test]
async fn an_existing_database_and_data_directory_open_to_others_are_made_private() {
    let home = tempfile::tempdir().expect("temp dir");
    let data = home.path().join("xdg");
    let dir = data.join("gasoline");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod dir");
    let db = dir.join("gasoline.db");
    std::fs::write(&db, b"").expect("an empty file is an empty database");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod db");
    let server = Server::spawn(serve_without_db(&data, home.path()), &db);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    assert_eq!(mode(&dir), 0o700, "the data directory");
    assert_eq!(mode(&db), 0o600, "the database");
    assert_eq!(mode(&wal_path(&db)), 0o600, "its WAL, made after");
    assert_eq!(mode(&shm_path(&db)), 0o600, "its shared-memory index");
    assert!(server.log().contains("was open to others (644)"), "it says so: {}", server.log());
    server.stop();
}
