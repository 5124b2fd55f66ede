//! Attach mode: `gasoline mcp` started while another gasoline holds the port and
//! writes the same database reads the file and sends its `configure` changes to
//! that gasoline, so the file keeps one writer; once the owner exits it takes the
//! port over and writes the file itself.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{McpProc, Server, TempDb, count, logs, marked_entry, open_db};
use serde_json::{Value, json};

/// The access mode (`O_RDONLY` 0, `O_WRONLY` 1, `O_RDWR` 2) of each descriptor `pid` holds on `file`.
/// Only the database file itself tells a reader: SQLite opens the `-wal` and `-shm` read-write
/// for any connection (the `-shm` holds the readers' marks); a connection opened
/// `SQLITE_OPEN_READ_ONLY` begins no write transaction and runs no checkpoint, so it never
/// writes the WAL.
fn access_modes(pid: u32, file: &Path) -> Vec<i32> {
    let Ok(file) = file.canonicalize() else { return Vec::new() };
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return Vec::new() };
    fds.filter_map(Result::ok)
        .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == file))
        .filter_map(|fd| {
            let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_str()?)).ok()?;
            let flags = info.lines().find_map(|l| l.strip_prefix("flags:"))?.trim();
            Some(i32::from_str_radix(flags, 8).ok()? & libc::O_ACCMODE)
        })
        .collect()
}

/// One POST of the ingest running beside the attached process's calls.
struct Posted {
    status: u16,
    sent: Instant,
    answered: Instant,
    ids: Option<(i64, i64)>,
}

/// POSTs batches of 20 logs (tab 2) to `port` until `stop`; records every answer.
async fn ingest_until(port: u16, stop: Arc<AtomicBool>) -> Vec<Posted> {
    let http = reqwest::Client::new();
    let mut posted = Vec::new();
    let mut n = 10_000;
    while !stop.load(Ordering::Relaxed) {
        let body = json!({ "entries": logs(20, n, Some(2)) }).to_string();
        n += 20;
        let sent = Instant::now();
        let response = http
            .post(format!("http://127.0.0.1:{port}/events/logs"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("POST to the owner");
        let status = response.status().as_u16();
        let reply: Value = response.json().await.unwrap_or(Value::Null);
        let ids = reply["first_id"].as_i64().zip(reply["last_id"].as_i64());
        posted.push(Posted { status, sent, answered: Instant::now(), ids });
    }
    posted
}

/// What a tool call answered: its text and whether it was a tool error.
/// POSTs `entries` as logs to the gasoline on `port`, as the extension would; answers the status.
async fn post_logs(port: u16, entries: Vec<Value>) -> u16 {
    let url = format!("http://127.0.0.1:{port}/events/logs");
    let sent = reqwest::Client::new().post(url).json(&json!({ "entries": entries })).send().await;
    sent.expect("POST to the gasoline on the port").status().as_u16()
}

fn tool_answer(answer: &Value) -> (String, bool) {
    let result = &answer["result"];
    (result["content"][0]["text"].as_str().unwrap_or_default().to_owned(), result["isError"] == true)
}

/// The attached process clears, tracks a tab, sets a capacity and a mark while the
/// owner ingests over HTTP: every change lands (the owner answers them), every POST is
/// stored (never refused as busy), the logs acknowledged after the clear are all
/// kept and those before it are gone, rows of kinds nobody cleared stay, and the
/// attached process holds the database file open for reading only. When the owner
/// exits, the attached process takes the port over and writes the file itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_mcp_reads_and_its_writes_go_to_the_owner_until_it_takes_over() {
    let db = TempDb::new();
    let owner = Server::start(&db.path, &[]);
    let port = owner.port;
    let kept: Vec<Value> =
        (0..30).map(|i| marked_entry("network_waterfall", &format!("http://app/{i}"), 1, 0)).collect();
    owner.ingest("network_waterfall", kept).await;
    owner.ingest("actions", (0..20).map(|i| marked_entry("actions", &format!("click{i}"), 1, 0)).collect()).await;
    owner.ingest("logs", logs(10, 0, Some(1))).await;

    let mut mcp = McpProc::start(&db.path, port, &[]);
    let pid = mcp.pid();
    assert!(mcp.log().contains("as a reader"), "it says it reads: {}", mcp.log());
    let modes = access_modes(pid, &db.path);
    assert!(!modes.is_empty() && modes.iter().all(|m| *m == libc::O_RDONLY), "read-only: {modes:?}");

    let stop = Arc::new(AtomicBool::new(false));
    let ingest = tokio::spawn(ingest_until(port, stop.clone()));
    let path = db.path.clone();
    // The attached process's calls, while the owner ingests.
    let (mut mcp, clear_sent, clear_answered) = tokio::task::spawn_blocking(move || {
        // Wait until the ingest is under way, so the clears meet it.
        while count(&path, "logs") <= 10 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let cleared = mcp.call("configure", json!({"action": "clear", "what": "actions"}));
        assert_eq!(cleared["cleared"], 20, "the owner's answer comes back: {cleared}");
        let tracked = mcp.call("configure", json!({"action": "track_tab", "tabId": 2}));
        assert_eq!(tracked["tracked_tab_id"], 2, "{tracked}");
        let capacity = mcp.call("configure", json!({"action": "capacity", "what": "network_bodies", "capacity": 500}));
        assert_eq!(capacity["capacity"], 500, "{capacity}");
        let mark = mcp.call("configure", json!({"action": "mark", "name": "before-clear"}));
        assert_eq!(mark["mark"], "before-clear", "{mark}");
        let clear_sent = Instant::now();
        mcp.call("configure", json!({"action": "clear", "what": "logs"}));
        let clear_answered = Instant::now();
        for _ in 0..5 {
            mcp.call("configure", json!({"action": "clear", "what": "actions"}));
        }
        // The whole call goes over: the owner's own refusal comes back.
        let (text, error) = tool_answer(&mcp.request(
            "tools/call",
            json!({"name": "configure",
            "arguments": {"action": "no_such_action"}}),
        ));
        assert!(error && text.contains("unknown action"), "{text}");
        // What only reads is answered here.
        let status = mcp.call("configure", json!({"action": "status"}));
        assert_eq!(status["tracked_tab_id"], 2, "{status}");
        (mcp, clear_sent, clear_answered)
    })
    .await
    .expect("attached calls");
    // Some ingest after the last clear too.
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(&db.path, "logs") == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let posted = ingest.await.expect("ingest");

    let refused: Vec<u16> = posted.iter().map(|p| p.status).filter(|s| *s != 200).collect();
    assert!(refused.is_empty(), "every POST stored, none busy: {refused:?}\n{}", owner.log());
    let conn = open_db(&db.path);
    let stored = |(first, last): (i64, i64)| -> i64 {
        conn.query_row("SELECT count(*) FROM logs WHERE id BETWEEN ?1 AND ?2", [first, last], |r| r.get(0)).unwrap()
    };
    let (mut before, mut after) = (0, 0);
    for p in &posted {
        let ids = p.ids.expect("ids in the answer");
        if p.answered < clear_sent {
            assert_eq!(stored(ids), 0, "logs acknowledged before the clear are cleared");
            before += 1;
        } else if p.sent > clear_answered {
            assert_eq!(stored(ids), 20, "logs acknowledged after the clear are all kept: {ids:?}");
            after += 1;
        }
    }
    assert!(before > 0 && after > 0, "the ingest ran across the clear: {before} batches before, {after} after");
    assert_eq!(count(&db.path, "network_waterfall"), 30, "what nobody cleared stays");
    assert_eq!(count(&db.path, "marks"), 1, "the mark set through the attached process is stored");
    assert_eq!(count(&db.path, "actions"), 0);
    let owner_view = common::Mcp::http(&owner).await.ok("configure", json!({"action": "status"})).await;
    assert_eq!(owner_view["tracked_tab_id"], 2, "{owner_view}");
    let bodies = owner_view["kinds"].as_array().unwrap().iter().find(|k| k["kind"] == "network_bodies").cloned();
    assert_eq!(bodies.unwrap()["capacity"], 500, "{owner_view}");
    let modes = access_modes(pid, &db.path);
    assert!(modes.iter().all(|m| *m == libc::O_RDONLY), "still read-only: {modes:?}");
    for log in [owner.log(), mcp.log()] {
        assert!(!log.contains("locked") && !log.contains("busy") && !log.contains("transaction failed"), "{log}");
    }

    // The owner exits: the attached process takes the port over and writes the file.
    assert_eq!(owner.stop(), Some(0));
    assert_eq!(mcp.http_port(), Some(port), "the attached process listens on the port: {}", mcp.log());
    let cleared = mcp.call("configure", json!({"action": "clear", "what": "network_waterfall"}));
    assert_eq!(cleared["cleared"], 30, "answered by this process, now the writer: {cleared}");
    assert!(mcp.log().contains("now writes"), "{}", mcp.log());
    assert!(access_modes(pid, &db.path).contains(&libc::O_RDWR), "it opened the file to write");
    assert_eq!(post_logs(port, logs(3, 0, Some(3))).await, 200, "POSTed to the process that took over");
    let answer = mcp.call("observe", json!({"what": "logs", "tabId": 3}));
    assert_eq!(answer["total"], 3, "{answer}");
    let (code, _, log) = mcp.close_stdin_and_wait(Duration::from_secs(15));
    assert_eq!(code, Some(0), "{log}");
}

/// Two servers on one file would each ingest, trim and checkpoint it with their own capture
/// scope: a second `serve` on the same file, on another port, is refused and names the first;
/// a `gasoline mcp` on another port finds the first through the file's lock, reads beside it
/// and sends its changes there, and writes the file once the first has stopped.
#[tokio::test]
async fn one_server_per_file_whatever_the_port() {
    let db = TempDb::new();
    let first = Server::start(&db.path, &[]);
    first.ingest("logs", logs(4, 0, Some(1))).await;

    let (code, log) = common::run_to_exit(common::command("serve", &db.path, 0, &[]), Duration::from_secs(20));
    assert_eq!(code, Some(1), "{log}");
    let said = format!("already served by another gasoline (pid {}, http://127.0.0.1:{})", first.pid(), first.port);
    assert!(log.contains(&said), "names the server of the file: {log}");
    assert!(!log.contains("listening"), "{log}");
    // Nor through another name of the file: a symlink shares its lock; a hard link would have a
    // WAL of its own, and is refused whatever serves the file.
    let symlink = db.dir.path().join("symlink.db");
    std::os::unix::fs::symlink(&db.path, &symlink).unwrap();
    let (code, log) = common::run_to_exit(common::command("serve", &symlink, 0, &[]), Duration::from_secs(20));
    assert!(code == Some(1) && log.contains(&said), "{log}");
    let hard_link = db.dir.path().join("hard.db");
    std::fs::hard_link(&db.path, &hard_link).unwrap();
    let (code, log) = common::run_to_exit(common::command("serve", &hard_link, 0, &[]), Duration::from_secs(20));
    assert!(code == Some(1) && log.contains("has 2 hard links"), "{log}");
    std::fs::remove_file(&hard_link).unwrap();
    // The person's commands find it too, whatever port they are told.
    let status = std::process::Command::new(common::BIN)
        .args(["status", "--json", "--port", "1", "--db"])
        .arg(&db.path)
        .output()
        .expect("gasoline status");
    let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    assert_eq!(status["server"]["port"], first.port, "{status}");

    let mut mcp = McpProc::start(&db.path, 0, &[]);
    assert!(mcp.log().contains("as a reader"), "{}", mcp.log());
    let modes = access_modes(mcp.pid(), &db.path);
    assert!(!modes.is_empty() && modes.iter().all(|m| *m == libc::O_RDONLY), "read-only: {modes:?}");
    assert_eq!(mcp.call("observe", json!({"what": "logs"}))["total"], 4);
    let cleared = mcp.call("configure", json!({"action": "clear", "what": "logs"}));
    assert_eq!(cleared["cleared"], 4, "cleared by the first server: {cleared}");
    first.ingest("logs", logs(2, 0, Some(1))).await;

    // It takes over the first's port, where the extension sends.
    let port = first.port;
    assert_eq!(first.stop(), Some(0));
    assert_eq!(mcp.http_port(), Some(port), "the mcp listens on the first's port: {}", mcp.log());
    assert_eq!(post_logs(port, logs(3, 0, Some(3))).await, 200, "POSTed to the process that took over");
    assert!(access_modes(mcp.pid(), &db.path).contains(&libc::O_RDWR), "it writes the file now");
    assert_eq!(mcp.call("observe", json!({"what": "logs"}))["total"], 5, "2 after the clear, then 3");
    let (code, _, log) = mcp.close_stdin_and_wait(Duration::from_secs(15));
    assert_eq!(code, Some(0), "{log}");
}

/// A forwarded `configure` takes none of the owner's bounded MCP sessions (it speaks the stateless
/// revision): with all 128 in use by clients, an attached process forwarding calls ends none of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_calls_end_no_client_s_session() {
    const ACCEPT: &str = "application/json, text/event-stream";
    let db = TempDb::new();
    let owner = Server::start(&db.path, &[]);
    let http = reqwest::Client::new();
    let post = |session: Option<String>, body: Value| {
        let mut request = http.post(owner.url("/mcp")).header("accept", ACCEPT).json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let mut sessions = Vec::new();
    for _ in 0..128 {
        let answer = post(None, init.clone()).await.expect("initialize");
        let session = answer.headers()["mcp-session-id"].to_str().expect("id").to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(post(Some(session.clone()), initialized).await.expect("initialized").status(), 202);
        sessions.push(session);
    }
    assert_eq!(owner.health().await["mcp_sessions"], 128, "the owner's sessions are all in use");
    let mut mcp = McpProc::start(&db.path, owner.port, &[]);
    let (mcp, answers) = tokio::task::spawn_blocking(move || {
        let answers: Vec<Value> =
            (0..5).map(|i| mcp.call("configure", json!({"action": "mark", "name": format!("m{i}")}))).collect();
        (mcp, answers)
    })
    .await
    .expect("forwarded calls");
    assert!(answers.iter().enumerate().all(|(i, a)| a["mark"] == format!("m{i}")), "{answers:?}");
    for (i, session) in sessions.iter().enumerate() {
        let ping = post(Some(session.clone()), json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).await;
        assert_eq!(ping.expect("ping").status(), 200, "client session {i} was ended to make room");
    }
    drop(mcp);
}

/// `gasoline mcp` on a port another program (no gasoline) held writes its file from the start;
/// once the port is free it takes ingest over, and its log says what held the port, not that a
/// gasoline did.
#[tokio::test]
async fn a_port_freed_by_another_program_is_taken_over_and_said_so() {
    let db = TempDb::new();
    let holder = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = holder.local_addr().expect("its address").port();
    let mcp = McpProc::start(&db.path, port, &[]);
    assert!(mcp.log().contains(&format!("port {port} is used by another program")), "{}", mcp.log());
    drop(holder);
    let landed = common::until(Duration::from_secs(10), || mcp.log().contains("takes over ingest")).await;
    assert!(landed, "{}", mcp.log());
    assert_eq!(post_logs(port, logs(1, 0, Some(1))).await, 200, "{}", mcp.log());
    let log = mcp.log();
    let said = log.lines().find(|l| l.contains("takes over ingest")).unwrap_or_default();
    assert!(!said.contains("the gasoline"), "no gasoline held the port: {said}");
    assert!(said.contains("another program"), "{said}");
    let (code, _, log) = mcp.close_stdin_and_wait(Duration::from_secs(10));
    assert_eq!(code, Some(0), "{log}");
}
