//! `gasoline status` and `gasoline clear`, black-box, with and without a
//! running server on the database.

mod cli;
mod common;

use cli::{db_arg, fails, feed, ok};
use common::{Mcp, Server, TempDb, count};
use serde_json::{Value, json};

/// The ring figures both reports share: ids and times.
fn rings(kinds: &Value) -> Vec<Value> {
    let ring = |k: &Value| {
        let fields =
            ["kind", "count", "capacity", "oldest_id", "newest_id", "last_issued_id", "oldest_ts", "newest_ts"];
        fields.iter().map(|f| k.get(*f).cloned().unwrap_or_else(|| json!(format!("no {f}")))).collect()
    };
    kinds.as_array().expect("kinds").iter().map(ring).collect()
}

#[tokio::test]
async fn status_reports_what_configure_status_does_with_and_without_a_server() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "logs=2"]);
    feed(&server).await;
    let mcp = Mcp::http(&server).await;
    let configure = mcp.ok("configure", json!({"action": "status"})).await;
    mcp.close().await;
    let d = db_arg(&db.path);
    let port = server.port.to_string();

    let running: Value = serde_json::from_str(&ok(&["status", "--json", "--db", &d, "--port", &port])).unwrap();
    assert_eq!(rings(&running["kinds"]), rings(&configure["kinds"]));
    assert_eq!(running["kinds"][0]["count"], 2, "logs trimmed to its capacity");
    assert_eq!(configure["kinds"][0]["newest_ts"], cli::T0 + 1_260, "configure's ring has its times");
    assert_eq!(running["server"]["port"].as_u64(), Some(u64::from(server.port)));
    assert_eq!(running["server"]["same_db"], true);
    assert_eq!(running["db"], configure["db"]);
    assert_eq!(running["extension_id"], Value::Null);
    let tabs: Vec<(i64, Value)> =
        running["tabs"].as_array().unwrap().iter().map(|t| (t["tabId"].as_i64().unwrap(), t["url"].clone())).collect();
    // Tab 7 reported itself just now (the capture's events are stamped in the past).
    assert_eq!(tabs, [(7, json!("http://app.test/")), (8, Value::Null)], "most recently active first");
    assert_eq!(running["tabs"][1]["last_event_ts"], cli::T0 + 1_260);
    let logs_newest = &running["kinds"][0];
    assert_eq!(logs_newest["newest_ts"], cli::T0 + 1_260);

    let human = ok(&["status", "--db", &d, "--port", &port]);
    assert!(human.contains(&format!("listening on 127.0.0.1:{port}")), "{human}");
    assert!(human.contains("extension: not paired"), "{human}");
    assert!(human.lines().any(|l| l.starts_with("logs") && l.split_whitespace().nth(1) == Some("2")), "{human}");

    // Without --db, the database of the gasoline on --port (started with a --db of its own), not
    // the default one of this HOME, for status, tail and export alike.
    let home = tempfile::tempdir().unwrap();
    let home_env = [("HOME", home.path().to_str().unwrap()), ("XDG_DATA_HOME", home.path().to_str().unwrap())];
    let by_port = cli::gasoline_env(&["status", "--json", "--port", &port], &home_env);
    assert_eq!(by_port.code, Some(0), "{}", by_port.stderr);
    let by_port: Value = serde_json::from_str(&by_port.stdout).unwrap();
    assert_eq!((&by_port["db"], &by_port["server"]["same_db"]), (&configure["db"], &json!(true)), "{by_port}");
    let tailed = cli::gasoline_env(&["tail", "logs", "-n", "2", "--port", &port], &home_env);
    assert_eq!(
        (tailed.code, tailed.stdout.clone()),
        (Some(0), ok(&["tail", "logs", "-n", "2", "--db", &d])),
        "{}",
        tailed.stderr
    );
    let out = home.path().join("by-port.jsonl");
    let exported = cli::gasoline_env(&["export", "--jsonl", out.to_str().unwrap(), "logs", "--port", &port], &home_env);
    assert_eq!(exported.code, Some(0), "{}", exported.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2, "the server's two logs");

    server.stop();
    // The paired extension, as pairing records it.
    rusqlite::Connection::open(&db.path)
        .unwrap()
        .execute("INSERT INTO settings (key, value) VALUES ('extension_id', 'abcdefghijklmnopabcdefghijklmnop')", [])
        .unwrap();
    let stopped: Value = serde_json::from_str(&ok(&["status", "--json", "--db", &d, "--port", &port])).unwrap();
    assert_eq!(rings(&stopped["kinds"]), rings(&configure["kinds"]));
    assert_eq!(stopped["server"], Value::Null);
    assert_eq!(stopped["extension_id"], "abcdefghijklmnopabcdefghijklmnop");
    let human = ok(&["status", "--db", &d, "--port", &port]);
    assert!(human.contains("not running") && human.contains("paired (abcdefghijklmnopabcdefghijklmnop)"), "{human}");

    fails(&["status", "--db", &db_arg(&db.dir.path().join("gone.db"))], "no database here");
}

/// The tabs' table keeps its columns under the header, also for Chrome's ten-digit tab ids.
#[tokio::test]
async fn status_aligns_the_tabs_under_their_header() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let click = |tab: i64| json!({"tabId": tab, "ts": cli::T0, "type": "click", "selector": "#a"});
    server.ingest("actions", vec![click(7), click(1_234_567_890)]).await;
    let human = ok(&["status", "--db", &db_arg(&db.path), "--port", &server.port.to_string()]);
    let table: Vec<&str> = human.lines().skip_while(|l| !l.trim_start().starts_with("tab  ")).collect();
    assert_eq!(table.len(), 3, "{human}");
    // Where each line's first column (right-aligned) ends.
    let column = |l: &str| l.len() - l.trim_start().len() + l.trim_start().split(' ').next().unwrap_or("").len();
    assert!(table.iter().all(|l| column(l) == column(table[0])), "{human}");
    server.stop();
}

/// A capture scope of a thousand long patterns is shortened as configure action=status shows it:
/// the first ones named, the rest counted, not a line of two million characters.
#[tokio::test]
async fn status_shortens_a_large_capture_scope() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let origins: Vec<String> = (0..1_000).map(|i| format!("https://site-{i}.example/{}*", "p".repeat(2_000))).collect();
    let body = json!({"origins": origins, "paused": false, "deep_tabs": []});
    let (status, reply) =
        server.put_capture(&body, &[("origin", "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh")]).await;
    assert_eq!(status, 204, "{reply}");
    let d = db_arg(&db.path);
    let port = server.port.to_string();
    let human = ok(&["status", "--db", &d, "--port", &port]);
    let line = human.lines().find(|l| l.starts_with("capture:")).expect("a capture line");
    assert!(line.len() < 4_000, "{} characters", line.len());
    assert!(line.contains("https://site-0.example/") && line.contains("and 980 more"), "{line}");
    let json: Value = serde_json::from_str(&ok(&["status", "--json", "--db", &d, "--port", &port])).unwrap();
    assert_eq!(json["capture"]["origins_omitted"], 980);
    assert!(json.to_string().len() < 8_000, "{} characters", json.to_string().len());

    // The tabs in the deep view are named, paused said.
    let body = json!({"origins": ["http://localhost/*"], "paused": true, "deep_tabs": [412, 415]});
    let (status, reply) =
        server.put_capture(&body, &[("origin", "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh")]).await;
    assert_eq!(status, 204, "{reply}");
    let human = ok(&["status", "--db", &d, "--port", &port]);
    let line = human.lines().find(|l| l.starts_with("capture:")).expect("a capture line");
    assert!(line.contains("http://localhost/* (paused), deep view of tabs 412, 415, reported"), "{line}");
}

#[tokio::test]
async fn clear_goes_through_the_server_when_one_writes_the_database_else_directly() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let fed = feed(&server).await;
    let d = db_arg(&db.path);
    let port = server.port.to_string();

    fails(&["clear", "cookies", "--db", &d, "--port", &port], "unknown kind \"cookies\"");
    assert_eq!(count(&db.path, "logs"), 3, "a refused clear deletes nothing");

    let out = ok(&["clear", "logs", "--db", &d, "--port", &port]);
    assert!(out.contains("cleared 3 entries of logs") && out.contains("through the server"), "{out}");
    assert_eq!((count(&db.path, "logs"), count(&db.path, "actions")), (0, 3));
    let (next, _) = server.ingest("logs", common::logs(1, 0, Some(7))).await;
    assert_eq!(next, fed.of("logs").last().unwrap() + 1, "ids never restart");

    server.stop();
    let out = ok(&["clear", "--db", &d, "--port", &port]);
    // 18 entries; `all` also empties tabs and vitals, whose rows are no entries and are not counted.
    assert!(out.contains("cleared 18 entries of all kinds") && out.contains("directly"), "{out}");
    for kind in ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs", "tabs"]
    {
        assert_eq!(count(&db.path, kind), 0, "{kind}");
    }
    let server = Server::start(&db.path, &[]);
    let (after, _) = server.ingest("logs", common::logs(1, 0, Some(7))).await;
    assert_eq!(after, next + 1, "ids never restart, also after a direct clear");
    server.stop();

    // Its reader gone (`gasoline clear | true`): the clear is done and said to nobody, no panic.
    for args in [&["clear", "logs", "--db", &d, "--port", &port][..], &["pair", "--db", &d][..]] {
        let mut child = std::process::Command::new(common::BIN)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the pipe's reader goes before anything is written
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    assert_eq!(count(&db.path, "logs"), 0, "the clear was done");

    // No database there: pair says so and makes none, as tail and status do.
    let missing = db.dir.path().join("missing.db");
    fails(&["pair", "--db", &db_arg(&missing)], "no database here");
    assert!(!missing.exists(), "pair creates no database");

    let missing = db.dir.path().join("none.db");
    fails(&["clear", "--db", &db_arg(&missing), "--port", &port], "no database here");
    assert!(!missing.exists(), "clear creates no database");
    // An empty file is not made into a database either.
    let empty = db.dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    fails(&["clear", "--db", &db_arg(&empty), "--port", &port], "is not a gasoline database");
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0, "clear left the empty file alone");
}

/// A database a server stored three logs of tab 4 in, the server stopped.
async fn three_logs_stopped() -> TempDb {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", common::logs(3, 0, Some(4))).await;
    server.stop();
    db
}

/// A database in a directory the person may not write to (a copy on read-only
/// media, a colleague's folder): SQLite cannot create the -wal and -shm files
/// it reads a WAL database through. `status`, `tail` and `export` read the main
/// file alone then, and create nothing beside it. The directory is made
/// read-only, and a directory stands where the -wal file would be created, so
/// that SQLite meets the refusal it meets there even for root (who may write
/// to a read-only directory).
#[tokio::test]
async fn the_commands_read_a_database_in_a_directory_they_may_not_write() {
    use std::os::unix::fs::PermissionsExt;
    let db = three_logs_stopped().await;
    let dir = db.path.parent().expect("the database's directory").to_path_buf();
    let beside = |suffix: &str| std::path::PathBuf::from(format!("{}{suffix}", db.path.display()));
    assert!(!beside("-wal").exists(), "the server's last connection removed its WAL");
    std::fs::create_dir(beside("-wal")).unwrap();
    let listing = || {
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    let before = listing();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let d = db_arg(&db.path);
    let status: Value = serde_json::from_str(&ok(&["status", "--json", "--db", &d, "--port", "1"])).unwrap();
    let tail = ok(&["tail", "logs", "--db", &d]);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("logs.jsonl");
    let exported = cli::gasoline(&["export", "--jsonl", out.to_str().unwrap(), "logs", "--db", &d]);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();

    assert_eq!(status["kinds"][0]["kind"], "logs");
    assert_eq!(status["kinds"][0]["count"], 3, "{status}");
    assert_eq!(tail.lines().count(), 3, "{tail}");
    assert!(tail.contains("m2"), "{tail}");
    assert_eq!(exported.code, Some(0), "{}", exported.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 3);
    assert_eq!(listing(), before, "nothing was created beside the database");
}

/// Reading a stopped server's database where the person may write leaves the
/// directory as it was: SQLite makes the -wal and -shm files for any reader of a
/// WAL database, and the commands' connection, the last to close, removes them.
#[tokio::test]
async fn the_commands_leave_no_wal_or_shm_beside_a_database_they_read() {
    let db = three_logs_stopped().await;
    let beside = |suffix: &str| std::path::PathBuf::from(format!("{}{suffix}", db.path.display()));
    let d = db_arg(&db.path);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("logs.jsonl");
    let status: Value = serde_json::from_str(&ok(&["status", "--json", "--db", &d, "--port", "1"])).unwrap();
    let tail = ok(&["tail", "logs", "--db", &d]);
    ok(&["export", "--jsonl", out.to_str().unwrap(), "logs", "--db", &d]);

    assert_eq!(status["kinds"][0]["count"], 3, "{status}");
    assert_eq!(tail.lines().count(), 3, "{tail}");
    for left in ["-wal", "-shm"] {
        assert!(!beside(left).exists(), "{left} left beside the database");
    }
}

/// gasoline run as a person other than the owner of the files: `nobody` through `setpriv` when
/// the tests run as root, else the person running them. The binary is copied into `shared`
/// first, where nobody may run it (the checkout may sit in a home folder of 0700).
fn as_someone_else(shared: &std::path::Path) -> std::process::Command {
    use std::os::unix::fs::PermissionsExt;
    let bin = shared.join("gasoline");
    if !bin.exists() {
        std::fs::copy(common::BIN, &bin).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let root = std::process::Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    if root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    }
}

/// The same as a person who is not root meets it: a colleague's database, readable by all, in a
/// folder they may not write. Run as `nobody` through `setpriv` when the tests run as root.
#[tokio::test]
async fn a_person_reads_a_database_in_a_folder_of_someone_else() {
    use std::os::unix::fs::PermissionsExt;
    let db = three_logs_stopped().await;
    let shared = tempfile::tempdir().unwrap();
    let folder = shared.path().join("colleague");
    std::fs::create_dir(&folder).unwrap();
    let copy = folder.join("gasoline.db");
    std::fs::copy(&db.path, &copy).unwrap();
    for (path, mode) in [(&copy, 0o644), (&folder, 0o555), (&shared.path().to_path_buf(), 0o755)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let run = |args: &[&str]| {
        let out = as_someone_else(shared.path()).args(args).arg("--db").arg(&copy).output().expect("run gasoline");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let tail = run(&["tail", "logs"]);
    assert_eq!(tail.lines().count(), 3, "{tail}");
    let status: Value = serde_json::from_str(&run(&["status", "--json", "--port", "1"])).unwrap();
    assert_eq!(status["kinds"][0]["count"], 3, "{status}");
    let names: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["gasoline.db"], "nothing created beside it");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whatever answers on the port (any local program) is shown, never obeyed: escape sequences in
/// its /health are printed as escapes.
#[tokio::test]
async fn status_prints_another_program_s_text_as_text() {
    use std::io::{Read, Write};
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.stop();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let body = r#"{"service":"gasoline","version":"1.0\u001b]0;PWNED\u0007\u001b[2J","db":"/x\u009b2J\u202e"}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let shown = ok(&["status", "--db", &db_arg(&db.path), "--port", &port.to_string()]);
    assert!(shown.contains("listens on 127.0.0.1"), "the fake server is shown: {shown}");
    let raw: Vec<char> = shown.chars().filter(|&c| (c.is_control() && c != '\n') || c == '\u{202e}').collect();
    assert!(raw.is_empty(), "raw controls {raw:?} in {shown}");
    assert!(shown.contains("\\u{1b}]0;PWNED"), "{shown}");
    // Without --db the database is the server's: its path, not there, is said as text too.
    let out = std::process::Command::new(common::BIN).args(["status", "--port", &port.to_string()]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no database here") && said.contains("\\u{9b}2J"), "{said}");
    assert!(!said.chars().any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'), "{said:?}");
}

/// Every file of the database (the WAL too), as bytes.
fn files_of(db: &TempDb) -> Vec<u8> {
    let mut all = Vec::new();
    for suffix in ["", "-wal"] {
        let mut name = db.path.clone().into_os_string();
        name.push(suffix);
        all.extend(std::fs::read(&name).unwrap_or_default());
    }
    all
}

fn holds(bytes: &[u8], marker: &str) -> usize {
    bytes.windows(marker.len()).filter(|w| *w == marker.as_bytes()).count()
}

/// `clear` wipes: what a person cleared cannot be read back from the database file or its WAL
/// with `strings` (SQLite leaves a deleted row's bytes in free pages and unused space), through
/// the server and directly; what was not cleared stays.
#[tokio::test]
async fn clear_leaves_nothing_of_the_cleared_entries_in_the_files() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let bodies: Vec<Value> = (0..300)
        .map(|i| {
            json!({"tabId": 1, "ts": 1_700_000_000_000i64 + i, "url": format!("http://localhost:5173/api/{i}"),
                   "method": "GET", "status": 200, "duration": 3.0, "initiator": "fetch",
                   "responseBody": format!("{{\"card\":\"SECRETBODY-{i}\",\"pad\":\"{}\"}}", "x".repeat(400))})
        })
        .collect();
    server.ingest("network_bodies", bodies).await;
    let logs: Vec<Value> = (0..50)
        .map(|i| json!({"tabId": 1, "ts": 1_700_000_000_000i64 + i, "level": "log", "message": format!("KEEPLOG-{i}")}))
        .collect();
    server.ingest("logs", logs).await;
    assert!(holds(&files_of(&db), "SECRETBODY-") >= 300, "the files hold the bodies before the clear");
    let (d, port) = (db_arg(&db.path), server.port.to_string());

    let out = ok(&["clear", "network_bodies", "--db", &d, "--port", &port]);
    assert!(out.contains("cleared 300 entries of network_bodies"), "{out}");
    assert_eq!(holds(&files_of(&db), "SECRETBODY-"), 0, "no cleared body is left in the files");
    assert_eq!(holds(&files_of(&db), "KEEPLOG-"), 50, "the logs were not cleared");

    server.stop();
    let out = ok(&["clear", "--db", &d, "--port", &port]);
    assert!(out.contains("directly"), "{out}");
    assert_eq!(holds(&files_of(&db), "KEEPLOG-"), 0, "no cleared log is left in the files");
}

/// `pair` finds the database as the other commands do: the running server's (so the hint of a
/// refusal, `gasoline pair --reset`, acts on the file that server writes), else the default one;
/// with neither, it says so and creates nothing, not even the data directory.
#[tokio::test]
async fn pair_reads_the_running_server_s_database_and_creates_nothing_without_one() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", common::logs(1, 0, Some(1))).await;
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let port = server.port.to_string();
    let pair = |args: &[&str]| {
        std::process::Command::new(common::BIN)
            .args(args)
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", &data)
            .env_remove("GASOLINE_DB")
            .env("GASOLINE_PORT", &port)
            .output()
            .unwrap()
    };
    let out = pair(&["pair"]);
    let said = String::from_utf8_lossy(&out.stdout);
    // The server's database, which exists (the default one does not): its pairing is shown.
    assert!(out.status.success() && said.contains("paired"), "{said} {out:?}");
    assert!(!data.join("gasoline").exists(), "pair made the data directory");
    server.stop();
    let out = pair(&["pair"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database here"), "{out:?}");
    assert!(!data.join("gasoline").exists(), "pair made the data directory");
}

/// A copy of a running server's database taken with its -wal (entries not yet folded in), in a
/// folder the person may not write: SQLite cannot make the -shm it reads the WAL through, and
/// the refusal says why and what to do, not only SQLite's "unable to open database file". Run as
/// `nobody` through `setpriv` when the tests run as root.
#[tokio::test]
async fn a_database_whose_wal_cannot_be_read_here_says_why() {
    use std::os::unix::fs::PermissionsExt;
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", common::logs(3, 0, Some(4))).await;
    let shared = tempfile::tempdir().unwrap();
    let folder = shared.path().join("colleague");
    std::fs::create_dir(&folder).unwrap();
    let copy = folder.join("gasoline.db");
    let wal = std::fs::read(format!("{}-wal", db.path.display())).unwrap_or_default();
    std::fs::copy(&db.path, &copy).unwrap();
    server.stop();
    assert!(!wal.is_empty(), "the running server's WAL holds its last writes");
    let copied_wal = folder.join("gasoline.db-wal");
    std::fs::write(&copied_wal, &wal).unwrap();
    for (path, mode) in [(&copy, 0o644), (&copied_wal, 0o644), (&folder, 0o555), (&shared.path().to_path_buf(), 0o755)]
    {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = as_someone_else(shared.path())
        .args(["status", "--port", "1", "--db"])
        .arg(&copy)
        .output()
        .expect("run gasoline");
    let said = String::from_utf8_lossy(&out.stderr);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("its -wal holds entries not yet folded into it"), "{said}");
    assert!(said.contains("copy the database with its -wal"), "{said}");
}
