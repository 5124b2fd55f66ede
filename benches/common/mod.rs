//! What the benches share: realistic events, percentiles, a free port.
#![allow(dead_code)] // each bench uses part of it

use std::time::Duration;

use serde_json::{Value, json};

/// About 300 bytes of JSON: what a real console line looks like on the wire.
pub fn log_event(i: usize, tab: i64) -> Value {
    let level = ["log", "info", "warn", "error", "debug"][i % 5];
    json!({
        "level": level,
        "message": format!("GET /api/orders/{i} returned 200 in {} ms; cart has {} items, user session is active and the page re-rendered", i % 97, i % 13),
        "source": "console",
        "url": format!("http://localhost:3000/checkout?step={}", i % 4),
        "location": "http://localhost:3000/static/js/main.chunk.js:1042:17",
        "tabId": tab,
        "ts": 1_790_000_000_000i64 + i as i64,
    })
}

/// `{"entries": [...]}` of `n` log events starting at `from`, over `tabs` tabs.
pub fn batch(from: usize, n: usize, tabs: i64) -> Vec<u8> {
    batch_of("logs", from, n, tabs)
}

/// The p-th percentile (0..=100) of `samples`, which it sorts.
pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

pub fn micros(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// Where benches keep databases they build once (under `target/`).
pub fn data_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("target/bench-data");
    dir
}

/// One realistic entry (about 300 bytes of JSON) of `kind`.
pub fn event(kind: &str, i: usize, tab: i64) -> Value {
    let ts = 1_790_000_000_000i64 + i as i64;
    let url = format!("http://localhost:3000/api/orders/{}?expand=items,customer&page={}", i % 997, i % 7);
    match kind {
        "logs" => log_event(i, tab),
        "extension_logs" => json!({"tabId": tab, "ts": ts, "level": "info", "source": "delivery",
            "message": format!("posted batch {i} of 100 entries to http://127.0.0.1:7890/events/logs in {} ms", i % 50),
            "context": {"queue": i % 100, "retries": 0, "backoffMs": 0}}),
        "network_waterfall" => json!({"tabId": tab, "ts": ts, "url": url, "method": "GET", "status": 200,
            "initiatorType": "fetch", "startTime": 1042.5, "duration": 38.25, "transferSize": 5120,
            "encodedBodySize": 4900, "decodedBodySize": 18000, "nextHopProtocol": "h2"}),
        "network_bodies" => json!({"tabId": tab, "ts": ts, "url": url, "method": "POST", "status": 201,
            "contentType": "application/json", "duration": 41.0,
            "requestBody": "{\"sku\":\"A-1042\",\"qty\":2}",
            "responseBody": format!("{{\"id\":{i},\"status\":\"created\",\"items\":[{{\"sku\":\"A-1042\",\"qty\":2}}]}}")}),
        "websocket_events" => json!({"tabId": tab, "ts": ts, "connectionId": format!("ws-{}", i % 4),
            "url": "ws://localhost:3000/live", "event": "message", "direction": if i.is_multiple_of(2) { "incoming" } else { "outgoing" },
            "data": format!("{{\"type\":\"price\",\"symbol\":\"ACME\",\"price\":{}.{:02},\"seq\":{i}}}", 100 + i % 50, i % 100),
            "size": 72}),
        "actions" => json!({"tabId": tab, "ts": ts, "type": ACTION_TYPES[i % 3],
            "selector": "main > form#checkout > button.primary[data-test=\"submit-order\"]",
            "text": "Place order", "url": "http://localhost:3000/checkout", "x": 640, "y": 412}),
        other => panic!("no events for {other}"),
    }
}

/// `{"entries": [...]}` of `n` events of `kind` starting at `from`, over `tabs` tabs.
pub fn batch_of(kind: &str, from: usize, n: usize, tabs: i64) -> Vec<u8> {
    let entries: Vec<Value> = (from..from + n).map(|i| event(kind, i, (i as i64 % tabs) + 1)).collect();
    serde_json::to_vec(&json!({ "entries": entries })).expect("serialisable")
}

const ACTION_TYPES: [&str; 3] = ["click", "input", "scroll"];

pub const KINDS: [&str; 6] =
    ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs"];

/// A `gasoline serve` child on a free port with its database in a temp dir; killed on drop.
pub struct Served {
    pub child: std::process::Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

impl Served {
    pub fn start(extra: &[&str]) -> Served {
        let dir = tempfile::tempdir().expect("tempdir");
        let port = free_port();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_gasoline"))
            .args(["serve", "--port", &port.to_string(), "--db"])
            .arg(dir.path().join("gasoline.db"))
            .args(extra)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn gasoline serve");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "gasoline serve did not listen");
            std::thread::sleep(Duration::from_millis(10));
        }
        Served { child, port, dir }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// A line of `/proc/PID/status` in KiB (VmRSS, VmHWM).
    pub fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// CPU seconds (user + system) spent so far by each thread of the server, by thread name.
    pub fn cpu_by_thread(&self) -> std::collections::BTreeMap<String, f64> {
        // SAFETY: sysconf has no preconditions.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let mut by_name = std::collections::BTreeMap::new();
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.child.id())) else { return by_name };
        for task in tasks.flatten() {
            let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else { continue };
            // "tid (name) state ppid ...": fields after the name start at state (field 3).
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
            let name = stat[open + 1..close].to_owned();
            let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
            let cpu: f64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<f64>().ok()).sum::<f64>() / ticks;
            *by_name.entry(name).or_insert(0.0) += cpu;
        }
        by_name
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
