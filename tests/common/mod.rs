//! Test harness: the real `gasoline` binary on an ephemeral loopback port with a
//! real database file, and real rmcp clients over stdio and streamable HTTP.
#![allow(dead_code)]

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

    pub async fn health(&self) -> Value {
        self.http.get(self.url("/health")).send().await.expect("health").json().await.expect("health json")
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

    async fn over<T, E, A>(transport: T) -> Mcp
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let service = ().serve(transport).await.expect("MCP initialize");
        Mcp { service }
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
pub fn ids(answer: &Value) -> Vec<i64> {
    answer["entries"].as_array().map(|e| e.iter().map(|x| x["id"].as_i64().unwrap()).collect()).unwrap_or_default()
}

/// `n` log entries on `tab`, messages numbered from `from`.
pub fn logs(n: usize, from: usize, tab: Option<i64>) -> Vec<Value> {
    (from..from + n)
        .map(|i| json!({ "tabId": tab, "ts": 1_700_000_000_000i64 + i as i64, "level": "log", "message": format!("m{i}") }))
        .collect()
}
