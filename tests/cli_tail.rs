//! `gasoline tail`, black-box: the real binary reading a real database that the
//! real server was fed over HTTP.

mod cli;
mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use cli::{T0, db_arg, fails, feed, gasoline_env, ok};
use common::{BIN, Server, TempDb, logs, signal, wait_exit};
use serde_json::{Value, json};

#[tokio::test]
async fn tail_prints_the_last_entries_in_time_order() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(12, 0, Some(1))).await;
    let d = db_arg(&db.path);

    let out = ok(&["tail", "logs", "-n", "5", "--db", &d]);
    let messages: Vec<&str> = out.lines().map(|l| l.split_whitespace().last().unwrap()).collect();
    assert_eq!(messages, ["m7", "m8", "m9", "m10", "m11"], "{out}");
    assert!(!out.contains('\x1b'), "piped output has no colour codes: {out:?}");
    assert!(out.lines().all(|l| l.contains("tab 1") && l.contains("console")), "{out}");

    // The same lines on a forced-colour stream carry styles: the check above can fail.
    let forced = gasoline_env(&["tail", "logs", "-n", "5", "--db", &d], &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.stdout.contains('\x1b'), "{:?}", forced.stdout);

    // GASOLINE_DB names the database as --db does.
    let by_env = gasoline_env(&["tail", "logs", "-n", "5"], &[("GASOLINE_DB", &d)]);
    assert_eq!(by_env.stdout, out, "{}", by_env.stderr);

    let json = ok(&["tail", "logs", "-n", "3", "--json", "--db", &d]);
    let lines: Vec<Value> = json.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let ids: Vec<i64> = lines.iter().map(|v| v["id"].as_i64().expect("an id")).collect();
    assert_eq!(ids, [10, 11, 12]);
    assert_eq!(
        lines[2],
        json!({"kind": "logs", "id": 12, "tabId": 1, "ts": 1_700_000_000_011i64, "level": "log", "message": "m11"})
    );
    server.stop();
}

#[tokio::test]
async fn default_tail_merges_logs_and_failed_requests_of_every_tab() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    feed(&server).await;
    // As the extension sends them: each fetch's row beside its body, and a CORS refusal and an
    // image that failed to load, which have a row and no body.
    let rows = vec![
        json!({"tabId": 7, "ts": T0 + 1_200, "url": "http://app.test/api/save", "method": "POST", "initiatorType": "fetch",
               "duration": 120.0, "responseStatus": 500, "source": "page"}),
        json!({"tabId": 7, "ts": T0 + 1_400, "url": "http://down.test/x", "method": "GET", "initiatorType": "fetch",
               "duration": 5.0, "error": "TypeError: Failed to fetch", "failed": true, "source": "page"}),
        json!({"tabId": 7, "ts": T0 + 1_410, "url": "http://api.other.test/v1", "method": "GET", "initiatorType": "fetch",
               "duration": 3.0, "error": "net::ERR_FAILED (CORS: missing Access-Control-Allow-Origin)", "source": "browser"}),
        json!({"tabId": 7, "ts": T0 + 1_420, "url": "http://app.test/missing.png", "initiatorType": "img",
               "error": "the element fired error", "failed": true, "source": "page"}),
        // The browser's own guess at a favicon the page does not have: not the app's failure.
        json!({"tabId": 7, "ts": T0 + 1_430, "url": "http://app.test/favicon.ico", "initiatorType": "other",
               "responseStatus": 404, "source": "page"}),
    ];
    server.ingest("network_waterfall", rows).await;
    // A dev server's debug line on every load: left out of the default view, as DevTools' default
    // levels leave it out.
    server
        .ingest("logs", vec![json!({"tabId": 7, "ts": T0 + 1_300, "level": "debug", "message": "[vite] connected."})])
        .await;
    let d = db_arg(&db.path);

    let out = ok(&["tail", "-n", "6", "--db", &d]);
    assert!(!out.contains("[vite] connected."), "{out}");
    let debug = ok(&["tail", "--level", "debug", "-n", "6", "--db", &d]);
    assert!(debug.contains("[vite] connected."), "{debug}");
    assert!(ok(&["tail", "logs", "--db", &d]).contains("[vite] connected."), "naming logs shows every level");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    // By time: the 500 (T0+1200), the error (1250), tab 8's warning (1260), the failed fetch (1400),
    // the CORS refusal (1410), the image (1420): one line a request, bodies not repeated.
    // The 200s, the bodies, the WebSocket and the actions are not shown by default.
    assert!(lines[0].contains("tab 7 request   error POST http://app.test/api/save 500 120ms fetch"), "{out}");
    assert!(lines[1].contains("error") && lines[1].ends_with("save failed: 500"), "{out}");
    assert!(lines[2].contains("tab 8") && lines[2].contains("warn"), "{out}");
    assert!(lines[3].contains("GET http://down.test/x - 5ms fetch") && lines[3].contains("Failed to fetch"), "{out}");
    assert!(lines[4].contains("api.other.test") && lines[4].contains("CORS"), "{out}");
    assert!(lines[5].contains("missing.png") && lines[5].contains("img"), "{out}");
    // --failed lists every failure, the favicon's 404 too.
    let failed = ok(&["tail", "--failed", "-n", "1", "--db", &d]);
    assert!(failed.contains("favicon.ico 404"), "{failed}");

    let errors = ok(&["tail", "errors", "--db", &d]);
    assert_eq!(errors.lines().count(), 1, "{errors}");
    let tab8 = ok(&["tail", "--tab", "8", "--db", &d]);
    assert_eq!(tab8.lines().count(), 1, "{tab8}");
    let failed = ok(&["tail", "network_bodies", "--status-min", "400", "--json", "--db", &d]);
    let statuses: Vec<i64> =
        failed.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["status"].as_i64().unwrap()).collect();
    assert_eq!(statuses, [500]);
    let ws = ok(&["tail", "websocket_events", "--db", &d]);
    assert!(ws.lines().nth(1).is_some_and(|l| l.contains("→ {\"sub\":\"news\"}")), "{ws}");
    // --level sorts the console lines; the default's failed requests stay, they have no level.
    let warn = ok(&["tail", "--level", "warn", "-n", "6", "--db", &d]);
    let warn: Vec<&str> = warn.lines().collect();
    assert_eq!(warn.len(), 6, "{warn:?}");
    assert!(warn[0].contains("api/save 500") && warn[3].contains("down.test"), "{warn:?}");
    // A negative tab id is a value, not a flag.
    let none = ok(&["tail", "--tab", "-1", "--db", &d]);
    assert_eq!(none.lines().count(), 0, "{none}");
    let _ = T0;
    server.stop();
}

/// `gasoline tail -f -n 1 --json logs` on `db`, with its stdout and stderr as channels of lines.
fn tail_follow_logs(db: &std::path::Path) -> (std::process::Child, mpsc::Receiver<String>, mpsc::Receiver<String>) {
    let mut child = Command::new(BIN)
        .args(["tail", "-f", "-n", "1", "--json", "logs", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tail -f");
    let lines = |stream: Box<dyn std::io::Read + Send>| {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        rx
    };
    let out = lines(Box::new(child.stdout.take().expect("stdout")));
    let err = lines(Box::new(child.stderr.take().expect("stderr")));
    (child, out, err)
}

#[tokio::test]
async fn tail_follow_prints_each_new_entry_once_and_stops_on_sigint() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    let (mut child, rx, _) = tail_follow_logs(&db.path);
    let first: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(20)).expect("the last entry")).unwrap();
    assert_eq!(first["message"], "m2");

    // Three batches after it started, each sent once the one before is printed (so each is
    // found by a poll of its own), with one to another kind it does not follow.
    let (mut expected, mut seen) = (Vec::new(), Vec::new());
    for batch in 0..3 {
        let (a, b) = server.ingest("logs", logs(4, 10 + batch * 4, Some(2))).await;
        expected.extend(a..=b);
        server.ingest("actions", vec![json!({"tabId": 2, "type": "click"})]).await;
        while seen.len() < expected.len() {
            let line = rx.recv_timeout(Duration::from_secs(20)).expect("a followed entry");
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["kind"], "logs");
            seen.push(v["id"].as_i64().unwrap());
        }
    }
    assert_eq!(seen, expected, "each new entry once, in order");

    signal(child.id(), libc::SIGINT);
    assert_eq!(wait_exit(&mut child, Duration::from_secs(10)), Some(0), "exits 0 on Ctrl-C");
    // Everything it printed up to its exit (the reader ends at the end of its output).
    let late: Vec<String> = std::iter::from_fn(|| rx.recv_timeout(Duration::from_secs(10)).ok()).collect();
    assert!(late.is_empty(), "nothing printed twice: {late:?}");
    server.stop();
}

#[tokio::test]
async fn tail_follow_says_what_the_ring_trimmed_before_it_could_print_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "logs=50"]);
    server.ingest("logs", logs(3, 0, Some(1))).await;
    let (mut child, out, err) = tail_follow_logs(&db.path);
    let first: Value =
        serde_json::from_str(&out.recv_timeout(Duration::from_secs(20)).expect("the last entry")).unwrap();
    assert_eq!(first["id"], 3);

    // One batch of 200 into a ring of 50: ids 4..=153 are trimmed in the batch's own transaction.
    let (a, b) = server.ingest("logs", logs(200, 10, Some(1))).await;
    assert_eq!((a, b), (4, 203));
    let said = err.recv_timeout(Duration::from_secs(20)).expect("a word about the trimmed entries");
    assert_eq!(
        said,
        "gasoline tail: 150 logs entries were trimmed from the ring (capacity reached) before they could be shown"
    );
    let shown: Vec<i64> = (0..50)
        .map(|_| {
            serde_json::from_str::<Value>(&out.recv_timeout(Duration::from_secs(20)).expect("a kept entry")).unwrap()
        })
        .map(|v| v["id"].as_i64().unwrap())
        .collect();
    assert_eq!(shown, (154..=203).collect::<Vec<_>>());

    signal(child.id(), libc::SIGINT);
    assert_eq!(wait_exit(&mut child, Duration::from_secs(10)), Some(0));
    server.stop();
}

#[tokio::test]
async fn tail_refuses_bad_input_with_one_line() {
    let db = TempDb::new();
    let missing = db.dir.path().join("nope.db");
    fails(&["tail", "--db", &db_arg(&missing)], "no database here");
    assert!(!missing.exists(), "tail creates no database");

    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(2, 0, None)).await;
    server.stop();
    let d = db_arg(&db.path);
    fails(&["tail", "cookies", "--db", &d], "unknown kind \"cookies\"");
    fails(&["tail", "--level", "loud", "--db", &d], "unknown level \"loud\"");
    fails(&["tail", "-n", "many", "--db", &d], "invalid value 'many'");
    fails(&["tail", "actions", "--status-min", "400", "--db", &d], "--status-min does not apply to actions");

    let text = db.dir.path().join("notes.txt");
    std::fs::write(&text, "not a database at all, just some words that are long enough").unwrap();
    fails(&["tail", "--db", &db_arg(&text)], "is not a SQLite database");
}

/// `gasoline tail --failed` and `observe what=summary` read the same stored rows and
/// agree on every one: failed is an error (from the browser or the page, with any
/// status) or a status of 400 or more; a status of 0 or none without an error is unknown.
#[tokio::test]
async fn tail_failed_and_the_summary_agree_on_which_requests_failed() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    // (path, status, error, failed flag, failed?)
    type Case = (&'static str, Option<i64>, Option<&'static str>, bool, bool);
    let cases: [Case; 7] = [
        ("zero", Some(0), None, false, false),
        ("none", None, None, false, false),
        ("error-200", Some(200), Some("net::ERR_BLOCKED_BY_CLIENT"), false, true),
        ("page-failed", None, None, true, true),
        ("not-found", Some(404), None, false, true),
        ("server-error", Some(500), None, false, true),
        ("ok", Some(200), None, false, false),
    ];
    let mut expected: Vec<(&str, i64, bool)> = Vec::new();
    for (kind, status_field) in [("network_waterfall", "responseStatus"), ("network_bodies", "status")] {
        let entries: Vec<Value> = cases
            .iter()
            .enumerate()
            .map(|(i, (path, status, error, flag, _))| {
                let mut e = json!({"tabId": 3, "ts": T0 + i as i64, "method": "GET", "url": format!("http://shop.test/{path}")});
                if let Some(s) = status {
                    e[status_field] = json!(s);
                }
                if let Some(text) = error {
                    e["error"] = json!(text);
                }
                if *flag {
                    e["failed"] = json!(true);
                    e["source"] = json!("page");
                }
                e
            })
            .collect();
        let (first, _) = server.ingest(kind, entries).await;
        expected.extend(cases.iter().enumerate().map(|(i, c)| (kind, first + i as i64, c.4)));
    }

    let both = ["network_waterfall", "network_bodies"];
    let out = ok(&["tail", both[0], both[1], "--failed", "--json", "-n", "100", "--db", &db_arg(&db.path)]);
    let tailed: Vec<(String, i64)> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .map(|v| (v["kind"].as_str().unwrap_or_default().to_owned(), v["id"].as_i64().unwrap_or(0)))
        .collect();

    let mcp = common::Mcp::http(&server).await;
    let summary = mcp.observe(json!({"what": "summary"})).await;
    for (kind, id, failed) in &expected {
        let in_tail = tailed.contains(&((*kind).to_owned(), *id));
        let listed = summary[kind]["failed"].as_array().unwrap().iter().any(|f| f["id"] == *id);
        assert_eq!(in_tail, *failed, "tail --failed on {kind} {id}: {out}");
        assert_eq!(listed, *failed, "summary's failed {kind} {id}: {}", summary[kind]);
    }
    for kind in ["network_waterfall", "network_bodies"] {
        assert_eq!(summary[kind]["failed_count"], 4, "{}", summary[kind]);
        assert_eq!(
            summary[kind]["by_status"],
            json!({"2xx": 1, "4xx": 1, "5xx": 1, "failed": 2, "unknown": 2}),
            "{}",
            summary[kind]
        );
    }
    // A list shows that a request the page saw fail failed, though it has no status or error.
    for kind in ["network_waterfall", "network_bodies"] {
        let list = mcp.observe(json!({"what": kind, "url": "page-failed"})).await;
        assert_eq!(common::entries(&list)[0]["failed"], true, "{list}");
    }
    // The default tail (logs and failed requests' rows) and the 'failed' view agree too.
    let default = ok(&["tail", "--json", "-n", "100", "--db", &db_arg(&db.path)]);
    let rows: Vec<i64> = default
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["id"].as_i64().unwrap_or(0))
        .collect();
    let failed_rows: Vec<i64> = expected.iter().filter(|e| e.0 == "network_waterfall" && e.2).map(|e| e.1).collect();
    assert_eq!(rows, failed_rows, "{default}");
    mcp.close().await;
    server.stop();
}

/// A page decides what its console says: terminal control sequences in a
/// captured message are shown as text on the person's terminal, never obeyed
/// (a screen clear, a window title, a clipboard write through OSC 52, a
/// right-to-left override), also when the output is coloured.
#[tokio::test]
async fn tail_shows_a_pages_terminal_controls_as_text() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let hostile = "a\u{1b}[2J\u{1b}]0;owned\u{7}\u{1b}]52;c;cGF3bmVk\u{7}\u{9b}31m\u{202e}gpj.exe";
    server.ingest("logs", vec![json!({"tabId": 1, "ts": T0, "level": "error", "message": hostile})]).await;
    let d = db_arg(&db.path);
    for env in [&[][..], &[("CLICOLOR_FORCE", "1")][..]] {
        let out = gasoline_env(&["tail", "logs", "-n", "1", "--db", &d], env).stdout;
        for raw in ["\u{1b}[2J", "\u{1b}]", "\u{7}", "\u{9b}", "\u{202e}"] {
            assert!(!out.contains(raw), "{raw:?} reached the terminal: {out:?}");
        }
        assert!(
            out.contains(r"a\u{1b}[2J\u{1b}]0;owned\u{7}\u{1b}]52;c;cGF3bmVk\u{7}\u{9b}31m\u{202e}gpj.exe"),
            "{out:?}"
        );
        // --json: the same message, every such character a JSON escape.
        let json = gasoline_env(&["tail", "logs", "-n", "1", "--json", "--db", &d], env).stdout;
        assert!(!json.chars().any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'), "{json:?}");
        let entry: Value = serde_json::from_str(json.trim()).unwrap();
        assert_eq!(entry["message"], hostile);
    }
    server.stop();
}
