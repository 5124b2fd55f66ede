//! Acknowledged means durable: concurrent clients ingest while the server is
//! killed with SIGKILL at random moments, round after round on the same file.
//! Every request that got its 200 must be found at its ids with its markers;
//! ids keep rising across restarts; SQLite's integrity check passes.
//!
//! The claim is about a process crash (SIGKILL, OOM kill, panic=abort), with
//! `synchronous=NORMAL` in WAL mode. A power loss may lose the last commits.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{Load, LoadSpec, Rng, Server, TempDb, integrity, scale, verify_acked, wal_path};

const KINDS: [&str; 4] = ["logs", "network_waterfall", "network_bodies", "websocket_events"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_acknowledged_event_survives_sigkill_rounds() {
    let rounds = scale(4, 30);
    let seed = Rng::seed();
    eprintln!("seed {seed} (GASOLINE_SEED={seed} replays the batch sizes and kill moments)");
    let mut rng = Rng::new(seed);
    let db = TempDb::new();
    // The largest rings: nothing acknowledged is trimmed during the test (30 rounds send about
    // 1.3 million events over six kinds).
    let caps: Vec<String> = KINDS.iter().map(|k| format!("{k}={}", gasoline::kind::MAX_CAPACITY)).collect();
    let mut args = Vec::new();
    for c in &caps {
        args.extend(["--capacity", c.as_str()]);
    }
    let mut acked = Vec::new();
    let mut high_water: BTreeMap<&str, i64> = BTreeMap::new();
    let (mut requests, mut lost_unacked) = (0usize, 0usize);
    for round in 0..rounds {
        let server = Server::start(&db.path, &args);
        if round > 0 {
            // The file exactly as the killed server left it, recovered by the new one.
            assert_eq!(integrity(&db.path), "ok", "round {round}");
            let (expected, found, problems) = verify_acked(&db.path, &acked);
            assert_eq!(found, expected, "round {round}: acknowledged events missing: {problems:?}");
        }
        let spec = LoadSpec {
            kinds: KINDS.to_vec(),
            batch: (1, 60),
            pad: rng.range(16, 2048) as usize,
            tag: format!("r{round}"),
            ..LoadSpec::default()
        };
        let load = Load::start(server.port, 4, &spec, seed.wrapping_add(round as u64));
        let kill_after = Duration::from_millis(rng.range(300, 1500));
        tokio::time::sleep(kill_after).await;
        let wal = common::file_len(&wal_path(&db.path));
        tokio::task::spawn_blocking(move || server.kill()).await.unwrap();
        let report = load.finish().await;
        assert!(!report.acked.is_empty(), "round {round}: nothing was acknowledged in {kill_after:?}");
        // Everything refused was refused because the server died, not for a bad answer.
        assert!(report.refusals.is_empty(), "round {round}: {:?}", &report.refusals[..1]);
        for a in &report.acked {
            let before = high_water.get(a.kind).copied().unwrap_or(0);
            assert!(
                a.first_id > before,
                "round {round}: {} id {} not above {before} from earlier rounds",
                a.kind,
                a.first_id
            );
        }
        for a in &report.acked {
            let hw = high_water.entry(a.kind).or_default();
            *hw = (*hw).max(a.last_id);
        }
        requests += report.statuses.values().sum::<usize>();
        lost_unacked += report.transport_errors;
        eprintln!(
            "round {round}: killed after {kill_after:?} with WAL {:.1} MiB; {} events in {} acknowledged requests, \
             {} requests cut off unanswered",
            wal as f64 / common::MIB,
            report.acked_events(),
            report.acked.len(),
            report.transport_errors
        );
        acked.extend(report.acked);
    }
    // The last kill is recovered by plain SQLite, as a user opening the file with sqlite3 would.
    assert_eq!(integrity(&db.path), "ok");
    let (expected, found, problems) = verify_acked(&db.path, &acked);
    assert_eq!(found, expected, "acknowledged events missing after the last kill: {problems:?}");
    eprintln!(
        "FIGURE crash: {rounds} SIGKILLs, {} acknowledged requests ({expected} events), {found} found, \
         integrity_check ok; {requests} answered requests, {lost_unacked} cut off (unacknowledged, may be lost)",
        acked.len()
    );
}
