//! Memory: the peak RSS (VmHWM) of the real `gasoline serve` after ingesting
//! 1,000,000 events across the six kinds over HTTP, with default capacities (the
//! rings are full long before the end), sampled along the way to show it flat.
//! Target: peak RSS <= 64 MiB. Not a timing, so no criterion: it prints figures.
//! `GASOLINE_BENCH_EVENTS` changes the number of events.

#[path = "common/mod.rs"]
mod common;

const BATCH: usize = 100;
const CLIENTS: usize = 4;

fn main() {
    // `cargo bench -- <filter>` passes arguments; run unless filtered out.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if !args.is_empty() && !args.iter().any(|a| "memory".contains(a.as_str())) {
        return;
    }
    let events: usize = std::env::var("GASOLINE_BENCH_EVENTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let server = common::Served::start(&[]);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let http = reqwest::Client::new();
    let bodies: Vec<Vec<(String, Vec<u8>)>> = common::KINDS
        .iter()
        .map(|kind| {
            (0..8)
                .map(|i| (server.url(&format!("/events/{kind}")), common::batch_of(kind, i * BATCH, BATCH, 10)))
                .collect()
        })
        .collect();
    let requests = events / BATCH;
    let start_rss = server.status_kib("VmRSS:");
    let mut samples = Vec::new();
    let started = std::time::Instant::now();
    let step = (requests / 20).max(1);
    let mut sent = 0;
    while sent < requests {
        let n = step.min(requests - sent);
        rt.block_on(async {
            let tasks: Vec<_> = (0..CLIENTS)
                .map(|c| {
                    let http = http.clone();
                    let mine: Vec<(String, Vec<u8>)> = (sent + c..sent + n)
                        .step_by(CLIENTS)
                        .map(|r| bodies[r % bodies.len()][(r / bodies.len()) % 8].clone())
                        .collect();
                    tokio::spawn(async move {
                        for (url, body) in mine {
                            let response = http.post(url).body(body).send().await.expect("POST");
                            assert!(response.status().is_success(), "ingest answered {}", response.status());
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.expect("client");
            }
        });
        sent += n;
        samples.push((sent * BATCH, server.status_kib("VmRSS:")));
    }
    let elapsed = started.elapsed();
    let peak = server.status_kib("VmHWM:");
    let after_half: Vec<u64> = samples[samples.len() / 2..].iter().map(|s| s.1).collect();
    println!(
        "memory: {} events in {:.1?} ({:.0} events/s); RSS at start {} KiB, over the second half {}..{} KiB, peak (VmHWM) {:.1} MiB (target <= 64 MiB)",
        sent * BATCH,
        elapsed,
        (sent * BATCH) as f64 / elapsed.as_secs_f64(),
        start_rss,
        after_half.iter().min().copied().unwrap_or(0),
        after_half.iter().max().copied().unwrap_or(0),
        peak as f64 / 1024.0
    );
    for (events, rss) in samples {
        println!("memory: after {events:>8} events RSS {rss} KiB");
    }
}
