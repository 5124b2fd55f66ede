//! Disk full: the database lives on a filesystem that runs out of space (a small
//! tmpfs, when the test may mount one) or in a process whose file-size limit is
//! reached (`RLIMIT_FSIZE`, what `ulimit -f` sets; works unprivileged). Ingest must
//! answer 507 with a clear message, nothing stored before may be damaged, reads go
//! on, and ingest resumes by itself once space returns.
//!
//! The tmpfs case needs root (CI runs as root): without the right to mount it fails,
//! unless `GASOLINE_TEST_NO_TMPFS=1` says this machine cannot mount (RELIABILITY.md).

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Acked, Mcp, Server, TempDb, command, file_len, integrity, marked_entry, verify_acked, wal_path};
use serde_json::{Value, json};

/// A batch of `n` network bodies of ~60 KB each (under the 64 KiB body cap, so stored whole).
fn bodies(tag: &str, n: usize) -> (Vec<String>, Value) {
    let markers: Vec<String> = (0..n).map(|i| format!("{tag}-{i}")).collect();
    let entries: Vec<Value> = markers.iter().map(|m| marked_entry("network_bodies", m, 1, 60_000)).collect();
    (markers, json!({ "entries": entries }))
}

async fn post_acked(
    server: &Server,
    kind: &'static str,
    markers: Vec<String>,
    body: &Value,
) -> Result<Acked, (u16, Value)> {
    let (status, reply) = server.post(kind, body).await;
    if status != 200 {
        return Err((status, reply));
    }
    let (first_id, last_id) = (reply["first_id"].as_i64().unwrap(), reply["last_id"].as_i64().unwrap());
    Ok(Acked { kind, first_id, last_id, markers })
}

/// Ingests until the disk refuses: what was acknowledged, and the refusal.
async fn fill(server: &Server, what: &str) -> (Vec<Acked>, (u16, Value)) {
    let mut acked = Vec::new();
    let baseline: Vec<String> = (0..50).map(|i| format!("{what}-base-{i}")).collect();
    let entries: Vec<Value> = baseline.iter().map(|m| marked_entry("logs", m, 1, 100)).collect();
    acked.push(post_acked(server, "logs", baseline, &json!({ "entries": entries })).await.unwrap());

    let mut refusal = None;
    for batch in 0..1000 {
        let (markers, body) = bodies(&format!("{what}-fill-{batch}"), 20);
        match post_acked(server, "network_bodies", markers, &body).await {
            Ok(a) => acked.push(a),
            Err(e) => {
                refusal = Some(e);
                break;
            }
        }
    }
    (acked, refusal.expect("the disk never filled up"))
}

/// Fills the disk through ingest; checks the refusal, that reads go on and nothing is damaged;
/// calls `make_room`; checks that ingest resumes and that everything survives a restart.
async fn fill_refuse_and_recover(db: &Path, server: Server, make_room: impl FnOnce(&Server), what: &str) {
    let (mut acked, (status, reply)) = fill(&server, what).await;
    let stored_mib = (file_len(db) + file_len(&wal_path(db))) as f64 / common::MIB;
    assert_eq!(status, 507, "{what}: a full disk answers 507 Insufficient Storage: {reply}");
    let message = reply["error"].as_str().unwrap_or_default();
    assert!(message.contains("full") && message.contains("retry"), "{what}: a clear message: {message}");
    // More attempts are refused the same way, not crashed on. One may be stored after all:
    // a checkpoint that copied the WAL into the main file lets SQLite write the WAL from its
    // start again, which is room; what is acknowledged then must be kept like the rest.
    for i in 0..5 {
        let (markers, body) = bodies(&format!("{what}-refused-{i}"), 20);
        match post_acked(&server, "network_bodies", markers, &body).await {
            Ok(a) => acked.push(a),
            Err((status, reply)) => assert_eq!(status, 507, "{what}: {reply}"),
        }
    }
    // Reads go on while the disk is full: health, MCP, and the file as sqlite3 sees it.
    let health = server.health().await;
    assert_eq!(health["service"], "gasoline");
    let mcp = Mcp::http(&server).await;
    let last = mcp.observe(json!({"what": "network_bodies", "offset": -1})).await;
    let newest = acked.last().unwrap();
    assert_eq!(last["entries"][0]["id"], newest.last_id, "{what}: {last}");
    mcp.close().await;
    assert_eq!(integrity(db), "ok", "{what}: while full");
    let (expected, found, problems) = verify_acked(db, &acked);
    assert_eq!(found, expected, "{what}: damaged while full: {problems:?}");

    make_room(&server);
    // Space is back: the extension's retry (after Retry-After) goes through.
    let mut resumed = None;
    for attempt in 0..20 {
        let (markers, body) = bodies(&format!("{what}-after-{attempt}"), 20);
        match post_acked(&server, "network_bodies", markers, &body).await {
            Ok(a) => {
                resumed = Some(attempt);
                acked.push(a);
                break;
            }
            Err((status, reply)) => {
                assert_eq!(status, 507, "{what}: {reply}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    let attempts = resumed.expect("ingest did not resume once space returned") + 1;
    let (code, _) = tokio::task::spawn_blocking(move || server.signal_and_wait(libc::SIGTERM, Duration::from_secs(15)))
        .await
        .unwrap();
    assert_eq!(code, Some(0), "{what}: clean stop after the episode");
    assert_eq!(file_len(&wal_path(db)), 0, "{what}");
    let server = Server::start(db, &[]);
    assert_eq!(integrity(db), "ok", "{what}: after restart");
    let (expected, found, problems) = verify_acked(db, &acked);
    assert_eq!(found, expected, "{what}: after restart: {problems:?}");
    drop(server);
    eprintln!(
        "FIGURE disk-full {what}: 507 after {:.1} MiB stored ({expected} events acknowledged, all found, \
         integrity ok); ingest resumed on attempt {attempts} after space returned",
        stored_mib
    );
}

/// A tmpfs mounted for the test, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Result<Tmpfs, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if out.status.success() {
            Ok(Tmpfs(dir.to_path_buf()))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
        }
    }

    fn resize(&self, size: &str) {
        let ok = Command::new("mount").args(["-o", &format!("remount,size={size}")]).arg(&self.0).status();
        assert!(ok.is_ok_and(|s| s.success()), "remount");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// `GASOLINE_TEST_NO_TMPFS=1`: this machine cannot mount a tmpfs (not root, or a container
/// without CAP_SYS_ADMIN), so the tmpfs case cannot run here (RELIABILITY.md).
fn no_tmpfs_declared() -> bool {
    std::env::var("GASOLINE_TEST_NO_TMPFS").is_ok_and(|v| v == "1")
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A 16 MiB tmpfs in `tmp`'s directory, or None where this machine says it cannot mount one
/// (the `test` is then not run, and says so).
fn small_tmpfs(tmp: &TempDb, test: &str) -> Option<Tmpfs> {
    match Tmpfs::mount(&tmp.dir.path().join("small"), "16m") {
        Ok(fs) => Some(fs),
        Err(reason) => {
            // Mounting needs root (CAP_SYS_ADMIN). A machine that cannot must say so; otherwise this fails.
            assert!(
                no_tmpfs_declared(),
                "cannot mount a 16 MiB tmpfs ({reason}; root: {}): run the tests as root (CI does), or set \
                 GASOLINE_TEST_NO_TMPFS=1 to say this machine cannot (RELIABILITY.md)",
                is_root()
            );
            eprintln!("NOT RUN tmpfs {test} test: GASOLINE_TEST_NO_TMPFS=1 and cannot mount ({reason})");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_filesystem_answers_507_keeps_what_was_stored_and_resumes_when_space_returns() {
    let tmp = TempDb::new();
    let Some(fs) = small_tmpfs(&tmp, "disk-full") else { return };
    let db = fs.0.join("gasoline.db");
    let server = Server::start(&db, &["--capacity", "network_bodies=1000000"]);
    fill_refuse_and_recover(&db, server, |_| fs.resize("64m"), "tmpfs 16 MiB").await;
}

/// Starts `gasoline serve` whose file-size limit is `bytes`, as `ulimit -f` sets it: SIGXFSZ
/// left at its default action, which kills a process that does not catch it.
fn start_with_file_size_limit(db: &Path, bytes: u64) -> Server {
    let mut cmd = command("serve", db, 0, &["--capacity", "network_bodies=1000000"]);
    // SAFETY: only an async-signal-safe call (setrlimit) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: libc::RLIM_INFINITY };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Server::spawn(cmd, db)
}

/// Raises a running process's file-size limit, as freeing disk space would.
fn lift_file_size_limit(pid: u32) {
    let limit = libc::rlimit { rlim_cur: libc::RLIM_INFINITY, rlim_max: libc::RLIM_INFINITY };
    // SAFETY: prlimit on a child we spawned, with a valid rlimit and no old-limit pointer.
    let rc = unsafe { libc::prlimit(pid as libc::pid_t, libc::RLIMIT_FSIZE, &limit, std::ptr::null_mut()) };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_size_limit_answers_507_keeps_what_was_stored_and_resumes_when_lifted() {
    let tmp = TempDb::new();
    let server = start_with_file_size_limit(&tmp.path, 16 << 20);
    fill_refuse_and_recover(&tmp.path, server, |s| lift_file_size_limit(s.pid()), "RLIMIT_FSIZE 16 MiB").await;
}

/// Stopped while the disk is still full: nothing acknowledged may be lost, and the stop is a
/// clean one (exit 0) that says the WAL is folded in on the next start, not a database error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopped_while_the_disk_is_full_it_exits_cleanly_and_loses_nothing() {
    let tmp = TempDb::new();
    let Some(fs) = small_tmpfs(&tmp, "stop-while-full") else { return };
    let db = fs.0.join("gasoline.db");
    let server = Server::start(&db, &["--capacity", "network_bodies=1000000"]);
    let (acked, (status, reply)) = fill(&server, "full at stop").await;
    assert_eq!(status, 507, "{reply}");
    let (code, stopped) =
        tokio::task::spawn_blocking(move || server.signal_and_log(libc::SIGTERM, Duration::from_secs(15)))
            .await
            .unwrap();
    assert_eq!(code, Some(0), "a clean stop: {stopped}");
    assert!(stopped.contains("next start") && !stopped.contains("database error"), "{stopped}");
    fs.resize("64m");
    let restarted = Server::start(&db, &[]);
    assert_eq!(integrity(&db), "ok");
    let (expected, found, problems) = verify_acked(&db, &acked);
    assert_eq!(found, expected, "after the restart: {problems:?}");
    drop(restarted);
}
