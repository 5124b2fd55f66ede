//! A full MCP round trip over stdio: an rmcp client spawns the real `gasoline mcp`
//! and calls `tools/call observe` for 100 entries (p50/p99), and the time from
//! spawning the process to the answer of `initialize`.
//! Targets: round trip p50 <= 1 ms; start to first `initialize` answer <= 50 ms.

#[path = "common/mod.rs"]
mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

async fn spawn(db: &std::path::Path) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gasoline"));
    cmd.args(["mcp", "--port", &common::free_port().to_string(), "--db"]).arg(db).env("RUST_LOG", "warn");
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn gasoline mcp");
    ().serve(transport).await.expect("initialize")
}

async fn observe(client: &RunningService<RoleClient, ()>) {
    let args = json!({"what": "logs", "offset": -100}).as_object().cloned().unwrap_or_default();
    let result =
        client.call_tool(CallToolRequestParams::new("observe").with_arguments(args)).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "observe failed: {result:?}");
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
    let _ = (served.child.kill(), served.child.wait());
    let db = served.dir.path().join("gasoline.db");

    let client = rt.block_on(spawn(&db));
    let mut group = c.benchmark_group("mcp_stdio");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    group.bench_function("observe_last_100", |b| b.iter(|| rt.block_on(observe(&client))));
    group.sample_size(20).measurement_time(Duration::from_secs(5));
    group.bench_function("spawn_to_initialize", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let other = rt.block_on(spawn(&db));
                total += t.elapsed();
                rt.block_on(other.cancel()).expect("close");
            }
            total
        })
    });
    group.finish();

    let mut calls: Vec<Duration> = (0..2_000)
        .map(|_| {
            let t = Instant::now();
            rt.block_on(observe(&client));
            t.elapsed()
        })
        .collect();
    let mut starts: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            let other = rt.block_on(spawn(&db));
            let elapsed = t.elapsed();
            rt.block_on(other.cancel()).expect("close");
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
    rt.block_on(client.cancel()).expect("close");
}

criterion_group!(benches, bench);
criterion_main!(benches);
