//! Test harness: the real `gasoline` binary on an ephemeral loopback port with a
//! real database file, and real rmcp clients over stdio and streamable HTTP.
#![allow(dead_code)]

pub mod corpus;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_gasoline");

/// A temp directory holding a database path.
pub struct TempDb {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl TempDb {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("gasoline.db");
        TempDb { dir, path }
    }
}

/// A running `gasoline serve`.
pub struct Server {
    child: Child,
    pub port: u16,
    pub db: PathBuf,
    pub stderr: Arc<Mutex<Vec<String>>>,
    http: reqwest::Client,
}

impl Server {
    /// Starts `gasoline serve --port 0 --db <db> <extra...>` and waits until it listens.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        Self::start_on(db, 0, extra)
    }

    pub fn start_on(db: &Path, port: u16, extra: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", &port.to_string(), "--db"])
            .arg(db)
            .args(extra)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn gasoline");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = stderr.clone();
        let pipe = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://127.0.0.1:").nth(1) {
                    let port: u16 =
                        rest.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("0").parse().unwrap_or(0);
                    let _ = tx.send(port);
                }
                lines.lock().unwrap().push(line);
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(port) => port,
            Err(_) => {
                let _ = child.kill();
                panic!("gasoline did not start: {:?}", stderr.lock().unwrap());
            }
        };
        Server { child, port, db: db.to_path_buf(), stderr, http: reqwest::Client::new() }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// POSTs a JSON body to `/events/{kind}`; returns the status and the JSON reply.
    pub async fn post(&self, kind: &str, body: &Value) -> (u16, Value) {
        self.post_raw(kind, body.to_string().into_bytes(), &[]).await
    }

    pub async fn post_raw(&self, kind: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut request = self.http.post(self.url(&format!("/events/{kind}"))).body(body);
        request = request.header("content-type", "application/json");
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let response = request.send().await.expect("POST");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// POSTs entries and asserts they were accepted; returns (first_id, last_id).
    pub async fn ingest(&self, kind: &str, entries: Vec<Value>) -> (i64, i64) {
        let n = entries.len();
        let (status, reply) = self.post(kind, &json!({ "entries": entries })).await;
        assert_eq!(status, 200, "ingest {kind}: {reply}");
        assert_eq!(reply["accepted"], n, "{reply}");
        (reply["first_id"].as_i64().unwrap_or(0), reply["last_id"].as_i64().unwrap_or(0))
    }

    /// PUTs a capture report (`PUT /capture`) with extra headers; returns the status and the JSON reply (Null when empty).
    pub async fn put_capture(&self, body: &Value, headers: &[(&str, &str)]) -> (u16, Value) {
        self.put_capture_raw(body.to_string().into_bytes(), headers).await
    }

    pub async fn put_capture_raw(&self, body: Vec<u8>, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut request = self.http.put(self.url("/capture")).body(body).header("content-type", "application/json");
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let response = request.send().await.expect("PUT /capture");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        let reply =
            if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
        (status, reply)
    }

    pub async fn health(&self) -> Value {
        self.http.get(self.url("/health")).send().await.expect("health").json().await.expect("health json")
    }

    /// Waits until the server holds at least `bytes` of room in its pending-writes budget
    /// (`/health`'s `pending_bytes`), as uploads it has admitted take it.
    pub async fn wait_pending(&self, bytes: u64) {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let pending = self.health().await["pending_bytes"].as_u64().unwrap_or(0);
            if pending >= bytes {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server never held {bytes} pending bytes (holds {pending})"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGTERM, then waits; returns the exit status code.
    pub fn stop(mut self) -> Option<i32> {
        signal(self.child.id(), libc::SIGTERM);
        wait_exit(&mut self.child, Duration::from_secs(15))
    }

    /// SIGKILL, no goodbye.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn signal(pid: u32, sig: i32) {
    // SAFETY: sending a signal to a child we spawned.
    unsafe {
        libc::kill(pid as i32, sig);
    }
}

pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A direct read-only look at the database, as a user with sqlite3 would.
pub fn open_db(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open db")
}

pub fn count(path: &Path, table: &str) -> i64 {
    open_db(path).query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).expect("count")
}

/// An MCP client session.
pub struct Mcp {
    service: RunningService<RoleClient, ()>,
}

impl Mcp {
    /// Spawns `gasoline mcp --port <port> --db <db>` and talks to it over stdio.
    pub async fn stdio(db: &Path, port: u16) -> Mcp {
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.args(["mcp", "--port", &port.to_string(), "--db"]).arg(db).env("RUST_LOG", "warn");
        let (transport, _stderr) =
            TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn gasoline mcp");
        Self::over(transport).await
    }

    /// Connects to `/mcp` of a running server over streamable HTTP.
    pub async fn http(server: &Server) -> Mcp {
        Self::over(StreamableHttpClientTransport::from_uri(server.url("/mcp"))).await
    }

    /// Connects over any rmcp client transport.
    pub async fn over_transport<T, E, A>(transport: T) -> Mcp
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Self::over(transport).await
    }

    async fn over<T, E, A>(transport: T) -> Mcp
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let service = ().serve(transport).await.expect("MCP initialize");
        Mcp { service }
    }

    /// Connects as a client of the stateless 2026-07-28 revision: `server/discover`, then
    /// requests that each name their protocol, no `initialize`.
    pub async fn discovering<T, E, A>(transport: T) -> Mcp
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        use rmcp::{ClientLifecycleMode, ClientServiceExt, model::ProtocolVersion};
        let mode = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let service = ().serve_with_lifecycle(transport, mode).await.expect("MCP server/discover");
        Mcp { service }
    }

    /// The protocol version the session speaks.
    pub fn protocol_version(&self) -> Option<String> {
        self.service.peer_info().map(|info| info.protocol_version.to_string())
    }

    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let args = args.as_object().cloned().unwrap_or_default();
        self.service
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
            .expect("tools/call")
    }

    /// Calls a tool that must succeed; returns its JSON answer and its length in characters.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let (value, _) = self.ok_sized(tool, args).await;
        value
    }

    pub async fn ok_sized(&self, tool: &str, args: Value) -> (Value, usize) {
        let result = self.call(tool, args.clone()).await;
        let text = text_of(&result);
        assert_ne!(result.is_error, Some(true), "{tool} {args} failed: {text}");
        (serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")), text.chars().count())
    }

    pub async fn observe(&self, args: Value) -> Value {
        self.ok("observe", args).await
    }

    /// Calls a tool that must fail with a tool error; returns the message.
    pub async fn err(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone()).await;
        let text = text_of(&result);
        assert_eq!(result.is_error, Some(true), "{tool} {args} should fail, got: {text}");
        text
    }

    pub async fn list_tools(&self) -> Vec<rmcp::model::Tool> {
        self.service.list_all_tools().await.expect("tools/list")
    }

    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

pub fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("")
}

/// Ids of an observe answer's entries.
/// An answer's entries with its `common` values filled back into each, as a
/// reader of the answer takes them.
pub fn entries(answer: &Value) -> Vec<Value> {
    let common = answer["common"].as_object().cloned().unwrap_or_default();
    answer["entries"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|e| {
                    let mut e = e.clone();
                    for (k, v) in &common {
                        if k != "t0" && k != "t0_utc" && e.get(k).is_none() {
                            e[k] = v.clone();
                        }
                    }
                    e
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn ids(answer: &Value) -> Vec<i64> {
    answer["entries"].as_array().map(|e| e.iter().map(|x| x["id"].as_i64().unwrap()).collect()).unwrap_or_default()
}

/// `n` log entries on `tab`, messages numbered from `from`.
pub fn logs(n: usize, from: usize, tab: Option<i64>) -> Vec<Value> {
    (from..from + n)
        .map(|i| json!({ "tabId": tab, "ts": 1_700_000_000_000i64 + i as i64, "level": "log", "message": format!("m{i}") }))
        .collect()
}

// ---------------------------------------------------------------------------
// Reliability helpers (tests/reliability_*.rs): long runs, processes started
// with special limits, raw stdio MCP, file sizes, RSS, load generators.
// ---------------------------------------------------------------------------

/// `GASOLINE_LONG=1` selects the long versions of the reliability tests.
pub fn long() -> bool {
    std::env::var("GASOLINE_LONG").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The fast or the long figure, by [`long`].
pub fn scale<T>(fast: T, long_run: T) -> T {
    if long() { long_run } else { fast }
}

/// A `gasoline <mode> --port <port> --db <db> <extra...>` command, not started.
pub fn command(mode: &str, db: &Path, port: u16, extra: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args([mode, "--port", &port.to_string(), "--db"]).arg(db).args(extra).env("RUST_LOG", "info");
    cmd
}

/// Reads a child's stderr into `lines` on a thread; sends each "listening on" port on `ports`.
fn collect_stderr(
    pipe: std::process::ChildStderr,
    lines: Arc<Mutex<Vec<String>>>,
    ports: std::sync::mpsc::Sender<u16>,
) {
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on http://127.0.0.1:").nth(1) {
                let port: u16 = rest.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("0").parse().unwrap_or(0);
                let _ = ports.send(port);
            }
            lines.lock().unwrap().push(line);
        }
    });
}

impl Server {
    /// Starts a prepared `serve` command (see [`command`]) and waits until it listens.
    pub fn spawn(mut cmd: Command, db: &Path) -> Server {
        let mut child =
            cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("spawn gasoline");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        collect_stderr(child.stderr.take().expect("stderr"), stderr.clone(), tx);
        let port = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(port) => port,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                std::thread::sleep(Duration::from_millis(100));
                panic!("gasoline did not start: {:?}", stderr.lock().unwrap());
            }
        };
        Server { child, port, db: db.to_path_buf(), stderr, http: reqwest::Client::new() }
    }

    /// Sends `sig` and waits (at most `timeout`); returns the exit code and how long the exit took.
    pub fn signal_and_wait(mut self, sig: i32, timeout: Duration) -> (Option<i32>, Duration) {
        let start = Instant::now();
        signal(self.child.id(), sig);
        let code = wait_exit(&mut self.child, timeout);
        (code, start.elapsed())
    }

    /// Sends `sig`, waits (at most `timeout`) and returns the exit code and everything the
    /// process wrote to stderr, its last line included.
    pub fn signal_and_log(mut self, sig: i32, timeout: Duration) -> (Option<i32>, String) {
        signal(self.child.id(), sig);
        let code = wait_exit(&mut self.child, timeout);
        let said = |log: &str| log.contains("stopped cleanly") || log.contains("gasoline: ");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !said(&self.log()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        (code, self.log())
    }

    /// Waits for the process to exit by itself (killed after `timeout`); returns its exit code.
    pub fn wait(mut self, timeout: Duration) -> Option<i32> {
        wait_exit(&mut self.child, timeout)
    }

    /// True once the process has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

/// Runs `gasoline` with `args` to its exit (killed after `timeout`); returns the exit code and stderr.
pub fn run_to_exit(mut cmd: Command, timeout: Duration) -> (Option<i32>, String) {
    let mut child =
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("spawn gasoline");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (tx, _rx) = std::sync::mpsc::channel();
    collect_stderr(child.stderr.take().expect("stderr"), lines.clone(), tx);
    let code = wait_exit(&mut child, timeout);
    std::thread::sleep(Duration::from_millis(100));
    let log = lines.lock().unwrap().join("\n");
    (code, log)
}

/// Waits until `done` holds, checking every 10 ms, for at most `within`; returns whether it held.
/// For a test that needs a state (ingest under way, the WAL folded in), not an amount of time.
pub async fn until(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

/// Rows stored in every ring, read as a user would (0 while the file is not a store yet).
pub fn stored_rows(path: &Path) -> i64 {
    let sum = "SELECT (SELECT count(*) FROM logs) + (SELECT count(*) FROM extension_logs) \
               + (SELECT count(*) FROM network_waterfall) + (SELECT count(*) FROM network_bodies) \
               + (SELECT count(*) FROM websocket_events) + (SELECT count(*) FROM actions)";
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row(sum, [], |r| r.get(0)))
        .unwrap_or(0)
}

/// Size of a file in bytes, 0 when it does not exist.
pub fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// The `-wal` file beside a database.
pub fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Resident set size of a process in KiB (VmRSS), None once it is gone.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// `PRAGMA integrity_check` as a user would run it (read-only).
pub fn integrity(path: &Path) -> String {
    let conn = open_db(path);
    let rows: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.join("; ")
}

pub const MIB: f64 = 1024.0 * 1024.0;

/// A small deterministic generator (xorshift64*), so failures can be replayed from a printed seed.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// A seed from the clock, or `GASOLINE_SEED` when set.
    pub fn seed() -> u64 {
        std::env::var("GASOLINE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
        })
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `lo..hi` (hi exclusive, hi > lo).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// The column each kind's load entries carry their unique marker in.
pub fn marker_column(kind: &str) -> &'static str {
    match kind {
        "logs" | "extension_logs" => "message",
        "network_waterfall" | "network_bodies" => "url",
        "websocket_events" => "connection_id",
        "actions" => "type",
        other => panic!("no marker column for {other}"),
    }
}

/// One valid entry of `kind` carrying `marker` in its marker column and `pad` bytes of extra data.
pub fn marked_entry(kind: &str, marker: &str, tab: i64, pad: usize) -> Value {
    let extra = "x".repeat(pad);
    match kind {
        "logs" => json!({"tabId": tab, "level": "log", "message": marker, "args": [extra]}),
        "extension_logs" => json!({"tabId": tab, "level": "warn", "message": marker, "detail": extra}),
        "network_waterfall" => json!({"tabId": tab, "url": marker, "responseStatus": 200, "duration": 1.5, "x": extra}),
        "network_bodies" => {
            json!({"tabId": tab, "method": "POST", "url": marker, "status": 200, "responseBody": extra})
        }
        "websocket_events" => json!({"tabId": tab, "connectionId": marker, "event": "message", "direction": "incoming",
                                     "data": extra}),
        "actions" => json!({"tabId": tab, "type": marker, "selector": "#b", "text": extra}),
        other => panic!("no entries for {other}"),
    }
}

/// A request that was acknowledged: its kind, ids and the markers of its entries, in order.
#[derive(Debug, Clone)]
pub struct Acked {
    pub kind: &'static str,
    pub first_id: i64,
    pub last_id: i64,
    pub markers: Vec<String>,
}

/// What a load client saw.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub acked: Vec<Acked>,
    /// HTTP status → count (200 included).
    pub statuses: std::collections::BTreeMap<u16, usize>,
    /// Requests that got no HTTP answer (connection refused or reset).
    pub transport_errors: usize,
    /// Of those, requests sent on a connection that then closed without an answer (not refused at connect).
    pub cut_off: usize,
    /// Non-200 answers: status, Retry-After header, body.
    pub refusals: Vec<(u16, Option<String>, String)>,
}

impl LoadReport {
    pub fn merge(&mut self, other: LoadReport) {
        self.acked.extend(other.acked);
        for (s, n) in other.statuses {
            *self.statuses.entry(s).or_default() += n;
        }
        self.transport_errors += other.transport_errors;
        self.cut_off += other.cut_off;
        self.refusals.extend(other.refusals);
    }

    pub fn acked_events(&self) -> usize {
        self.acked.iter().map(|a| a.markers.len()).sum()
    }
}

/// How a load client behaves.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    pub kinds: Vec<&'static str>,
    /// Entries per request, uniform in this range (inclusive).
    pub batch: (usize, usize),
    /// Extra bytes per entry.
    pub pad: usize,
    /// Prefix of every marker (unique per test round).
    pub tag: String,
    /// After a non-200 answer, retry the same batch (as the extension does) after its Retry-After.
    pub retry: bool,
    /// A new HTTP client (new connections) every this many requests; 0 = never.
    pub reconnect_every: usize,
}

impl Default for LoadSpec {
    fn default() -> Self {
        LoadSpec {
            kinds: vec!["logs", "network_waterfall"],
            batch: (1, 40),
            pad: 64,
            tag: "t".into(),
            retry: false,
            reconnect_every: 0,
        }
    }
}

/// Clients posting marked entries as fast as they are answered, until stopped.
pub struct Load {
    stop: Arc<std::sync::atomic::AtomicBool>,
    handles: Vec<tokio::task::JoinHandle<LoadReport>>,
}

impl Load {
    pub fn start(port: u16, clients: usize, spec: &LoadSpec, seed: u64) -> Load {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let handles = (0..clients)
            .map(|c| {
                let (stop, spec) = (stop.clone(), spec.clone());
                tokio::spawn(load_client(port, c, spec, Rng::new(seed.wrapping_add(c as u64 * 7919)), stop))
            })
            .collect();
        Load { stop, handles }
    }

    /// Asks every client to stop after its current request and collects what they saw.
    pub async fn finish(self) -> LoadReport {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let mut report = LoadReport::default();
        for h in self.handles {
            report.merge(h.await.expect("load client"));
        }
        report
    }
}

async fn load_client(
    port: u16,
    client: usize,
    spec: LoadSpec,
    mut rng: Rng,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> LoadReport {
    use std::sync::atomic::Ordering;
    let url = |kind: &str| format!("http://127.0.0.1:{port}/events/{kind}");
    let mut http = reqwest::Client::new();
    let mut report = LoadReport::default();
    let mut seq = 0usize;
    let mut sent = 0usize;
    let mut pending: Option<(&'static str, Vec<String>, String)> = None;
    while !stop.load(Ordering::SeqCst) {
        let (kind, markers, body) = match pending.take() {
            Some(p) => p,
            None => {
                let kind = spec.kinds[rng.range(0, spec.kinds.len() as u64) as usize];
                let n = rng.range(spec.batch.0 as u64, spec.batch.1 as u64 + 1) as usize;
                let markers: Vec<String> = (0..n).map(|i| format!("{}-c{client}-{}", spec.tag, seq + i)).collect();
                seq += n;
                let entries: Vec<Value> =
                    markers.iter().map(|m| marked_entry(kind, m, client as i64, spec.pad)).collect();
                (kind, markers, json!({ "entries": entries }).to_string())
            }
        };
        sent += 1;
        if spec.reconnect_every > 0 && sent.is_multiple_of(spec.reconnect_every) {
            http = reqwest::Client::new();
        }
        let response = http.post(url(kind)).header("content-type", "application/json").body(body.clone()).send().await;
        let response = match response {
            Ok(r) => r,
            Err(e) => {
                report.transport_errors += 1;
                report.cut_off += usize::from(!e.is_connect());
                tokio::time::sleep(Duration::from_millis(20)).await;
                if spec.retry {
                    pending = Some((kind, markers, body));
                }
                continue;
            }
        };
        let status = response.status().as_u16();
        let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let text = response.text().await.unwrap_or_default();
        *report.statuses.entry(status).or_default() += 1;
        if status == 200 {
            let reply: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            assert_eq!(reply["accepted"], markers.len(), "{reply}");
            let (first_id, last_id) = (reply["first_id"].as_i64().unwrap(), reply["last_id"].as_i64().unwrap());
            report.acked.push(Acked { kind, first_id, last_id, markers });
        } else {
            let wait: u64 = retry_after.as_deref().and_then(|s| s.parse().ok()).unwrap_or(0);
            report.refusals.push((status, retry_after, text));
            if spec.retry {
                pending = Some((kind, markers, body));
                tokio::time::sleep(Duration::from_millis(wait * 1000 + 10)).await;
            }
        }
    }
    report
}

/// Checks that every acknowledged entry is in the database at its id, with its marker.
/// Returns (acknowledged entries, entries found) and the first few discrepancies.
pub fn verify_acked(db: &Path, acked: &[Acked]) -> (usize, usize, Vec<String>) {
    let conn = open_db(db);
    let (mut expected, mut found, mut problems) = (0, 0, Vec::new());
    for a in acked {
        expected += a.markers.len();
        assert_eq!(a.last_id - a.first_id + 1, a.markers.len() as i64, "ids of one request are contiguous: {a:?}");
        let sql =
            format!("SELECT id, {} FROM {} WHERE id BETWEEN ?1 AND ?2 ORDER BY id", marker_column(a.kind), a.kind);
        let rows: Vec<(i64, String)> = conn
            .prepare_cached(&sql)
            .unwrap()
            .query_map([a.first_id, a.last_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (i, marker) in a.markers.iter().enumerate() {
            let id = a.first_id + i as i64;
            match rows.iter().find(|(rid, _)| *rid == id) {
                Some((_, m)) if m == marker => found += 1,
                other => {
                    if problems.len() < 10 {
                        problems.push(format!("{} id {id}: expected {marker}, found {other:?}", a.kind));
                    }
                }
            }
        }
    }
    (expected, found, problems)
}

/// `gasoline mcp` over raw JSON-RPC lines on its stdin/stdout, to control exactly when stdin closes.
pub struct McpProc {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    ports: std::sync::mpsc::Receiver<u16>,
    pub stderr: Arc<Mutex<Vec<String>>>,
    next_id: u64,
}

impl McpProc {
    /// Spawns `gasoline mcp` and completes the MCP handshake.
    pub fn start(db: &Path, port: u16, extra: &[&str]) -> McpProc {
        let mut child = command("mcp", db, port, extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn gasoline mcp");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (port_tx, ports) = std::sync::mpsc::channel();
        collect_stderr(child.stderr.take().expect("stderr"), stderr.clone(), port_tx);
        let (line_tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut mcp = McpProc { child, stdin, lines, ports, stderr, next_id: 1 };
        let init = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "reliability-test", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "initialize: {init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    /// The HTTP port it listens on (waits for the log line).
    pub fn http_port(&self) -> Option<u16> {
        self.ports.recv_timeout(Duration::from_secs(10)).ok()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, message: &Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to gasoline mcp");
        stdin.flush().expect("flush");
    }

    /// Sends a request and waits for the answer with the same id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!("no answer to {method} from gasoline mcp: {:?}", self.stderr.lock().unwrap())
            });
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout not JSON ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls a tool; returns its text answer parsed as JSON (panics on a tool error).
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert_ne!(result["isError"], true, "{tool} {args}: {text}");
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"))
    }

    /// Closes stdin (the MCP client went away) and waits; returns the exit code and how long it took.
    pub fn close_stdin_and_wait(mut self, timeout: Duration) -> (Option<i32>, Duration, String) {
        drop(self.stdin.take());
        self.wait(timeout)
    }

    /// Waits for the exit with stdin still open (after a signal); returns the exit code, time and log.
    pub fn wait(mut self, timeout: Duration) -> (Option<i32>, Duration, String) {
        let start = Instant::now();
        let code = wait_exit(&mut self.child, timeout);
        let took = start.elapsed();
        std::thread::sleep(Duration::from_millis(100));
        let log = self.stderr.lock().unwrap().join("\n");
        (code, took, log)
    }

    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }
}

impl Drop for McpProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
