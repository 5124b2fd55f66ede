//! A full MCP round trip over stdio: an rmcp client spawns the real `gasoline mcp`
//! and calls `tools/call observe` for 100 entries (p50/p99), and the time from
//! spawning the process to the answer of `initialize`; and the same call over
//! streamable HTTP to a running `gasoline serve` (its answer an SSE stream).
//! Targets: round trip p50 <= 1 ms; start to first `initialize` answer <= 50 ms.

#[path = "common/mod.rs"]
mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

/// A client of a `gasoline mcp` spawned on `db`, and the process's id.
async fn spawn(db: &std::path::Path) -> (RunningService<RoleClient, ()>, u32) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gasoline"));
    cmd.args(["mcp", "--port", &common::free_port().to_string(), "--db"]).arg(db).env("RUST_LOG", "warn");
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn gasoline mcp");
    let pid = transport.id().expect("a running child");
    (().serve(transport).await.expect("initialize"), pid)
}

/// Closes the client and waits for its process to be gone: a `gasoline` started while the last
/// one still holds the database waits for it (run.rs).
async fn close(client: RunningService<RoleClient, ()>, pid: u32) {
    client.cancel().await.expect("close");
    // SAFETY: kill with signal 0 sends nothing; it only asks whether the process exists.
    while unsafe { libc::kill(pid as libc::pid_t, 0) } == 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

async fn observe(client: &RunningService<RoleClient, ()>) {
    let args = json!({"what": "logs", "offset": -100}).as_object().cloned().unwrap_or_default();
    let result =
        client.call_tool(CallToolRequestParams::new("observe").with_arguments(args)).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "observe failed: {result:?}");
}

/// 2,000 calls of [`observe`], each timed.
fn timed_calls(rt: &tokio::runtime::Runtime, client: &RunningService<RoleClient, ()>) -> Vec<Duration> {
    (0..2_000)
        .map(|_| {
            let t = Instant::now();
            rt.block_on(observe(client));
            t.elapsed()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    // A database with 10,000 logs, written by a `gasoline serve` that is then stopped.
    let mut served = common::Served::start(&[]);
    let http = reqwest::Client::new();
    for from in (0..10_000).step_by(1_000) {
        let request = http.post(served.url("/events/logs")).body(common::batch(from, 1_000, 10));
        let status = rt.block_on(request.send()).expect("POST").status();
        assert!(status.is_success(), "prefill answered {status}");
    }
    // Over streamable HTTP, to the server that stored them.
    let uri = served.url("/mcp");
    let over_http = rt
        .block_on(async { ().serve(StreamableHttpClientTransport::from_uri(uri)).await })
        .expect("initialize over HTTP");
    let mut group = c.benchmark_group("mcp_http");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    group.bench_function("observe_last_100", |b| b.iter(|| rt.block_on(observe(&over_http))));
    group.finish();
    let mut http_calls = timed_calls(&rt, &over_http);
    println!(
        "mcp_http: observe 100 entries p50 {} p99 {} (target p50 <= 1000 µs)",
        common::micros(common::percentile(&mut http_calls, 50.0)),
        common::micros(common::percentile(&mut http_calls, 99.0)),
    );
    rt.block_on(over_http.cancel()).expect("close");
    let _ = (served.child.kill(), served.child.wait());
    let db = served.dir.path().join("gasoline.db");

    let (client, pid) = rt.block_on(spawn(&db));
    let mut group = c.benchmark_group("mcp_stdio");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    group.bench_function("observe_last_100", |b| b.iter(|| rt.block_on(observe(&client))));
    let mut calls = timed_calls(&rt, &client);
    // Each start alone: one started while another gasoline holds the file waits for it, then
    // reads beside it (run.rs), which is not what a start costs.
    rt.block_on(close(client, pid));
    group.sample_size(20).measurement_time(Duration::from_secs(5));
    group.bench_function("spawn_to_initialize", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let (other, pid) = rt.block_on(spawn(&db));
                total += t.elapsed();
                rt.block_on(close(other, pid));
            }
            total
        })
    });
    group.finish();
    let mut starts: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            let (other, pid) = rt.block_on(spawn(&db));
            let elapsed = t.elapsed();
            rt.block_on(close(other, pid));
            elapsed
        })
        .collect();
    println!(
        "mcp_stdio: observe 100 entries p50 {} p99 {} (target p50 <= 1000 µs); spawn to initialize answer p50 {} p99 {} (target <= 50 ms)",
        common::micros(common::percentile(&mut calls, 50.0)),
        common::micros(common::percentile(&mut calls, 99.0)),
        common::micros(common::percentile(&mut starts, 50.0)),
        common::micros(common::percentile(&mut starts, 99.0)),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
