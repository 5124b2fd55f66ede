//! `gasoline export` and `configure action=export`, black-box: a capture of
//! every network kind fed over HTTP to the real server, exported by the real
//! binary, checked against the HAR 1.2 JSON Schema and against the database.

mod cli;
mod common;

use std::collections::BTreeSet;
use std::path::Path;

use cli::{Fed, db_arg, fails, feed, gasoline, ok};
use common::{Mcp, Server, TempDb, open_db};
use serde_json::{Value, json};

fn har_schema() -> jsonschema::Validator {
    let text = include_str!("fixtures/har-1.2.schema.json");
    let schema: Value = serde_json::from_str(text).expect("schema JSON");
    jsonschema::options().should_validate_formats(true).build(&schema).expect("a valid schema")
}

fn assert_valid_har(har: &Value) {
    let errors: Vec<String> = har_schema().iter_errors(har).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "HAR 1.2 schema: {errors:#?}");
    // What Chrome DevTools' importer (HARFormat.ts) reads as numbers and objects.
    for e in har["log"]["entries"].as_array().unwrap() {
        for n in [
            &e["time"],
            &e["request"]["headersSize"],
            &e["request"]["bodySize"],
            &e["response"]["status"],
            &e["response"]["bodySize"],
            &e["response"]["content"]["size"],
            &e["timings"]["send"],
            &e["timings"]["wait"],
            &e["timings"]["receive"],
        ] {
            assert!(n.is_number(), "{n} in {e}");
        }
        // HAR 1.2: time is the sum of the timings that apply (-1: does not), ssl being inside connect.
        let sum = ["blocked", "dns", "connect", "send", "wait", "receive"]
            .iter()
            .map(|k| e["timings"][k].as_f64().unwrap())
            .filter(|t| *t != -1.0)
            .sum::<f64>();
        assert!((sum - e["time"].as_f64().unwrap()).abs() < 1e-6, "timings add up to time: {e}");
        for k in ["blocked", "dns", "connect", "ssl", "send", "wait", "receive"] {
            let t = e["timings"][k].as_f64().unwrap();
            assert!(t == -1.0 || t >= 0.0, "{k} {t} in {e}");
        }
        assert!(e["_resourceType"].is_string(), "{e}");
    }
}

/// Ids of `kind` the HAR entries name, each entry's once.
fn har_ids(har: &Value, kind: &str) -> Vec<i64> {
    har["log"]["entries"].as_array().unwrap().iter().filter_map(|e| e["_gasoline"][kind].as_i64()).collect()
}

fn entry_by_url<'h>(har: &'h Value, url: &str) -> &'h Value {
    har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["request"]["url"] == url)
        .unwrap_or_else(|| panic!("no entry for {url}"))
}

fn check_har(har: &Value, fed: &Fed) {
    assert_valid_har(har);
    assert_eq!(har["log"]["version"], "1.2");
    assert_eq!(har["log"]["creator"]["name"], "gasoline");

    // Every captured request once: each fetch/XHR, each resource-timing row (alone or
    // joined to its fetch), each WebSocket connection.
    let bodies = har_ids(har, "network_bodies");
    assert_eq!(bodies.iter().collect::<BTreeSet<_>>().len(), bodies.len(), "no fetch twice");
    assert_eq!(bodies.iter().copied().collect::<BTreeSet<_>>(), fed.of("network_bodies").into_iter().collect());
    let timings = har_ids(har, "network_waterfall");
    assert_eq!(timings.iter().collect::<BTreeSet<_>>().len(), timings.len(), "no timing row twice");
    assert_eq!(timings.iter().copied().collect::<BTreeSet<_>>(), fed.of("network_waterfall").into_iter().collect());
    let entries = har["log"]["entries"].as_array().unwrap();
    // 5 fetch/XHR + 4 timing rows, one of which is the first fetch's + 1 WebSocket.
    assert_eq!(entries.len(), 5 + 4 - 1 + 1);

    // The relative fetch was made absolute and joined to its resource timing.
    let items = entry_by_url(har, "http://app.test/api/items?token=%5Bredacted%5D&q=1");
    assert!(items["_gasoline"]["network_waterfall"].is_i64(), "{items}");
    assert_eq!(items["response"]["_transferSize"], 450);
    assert_eq!(items["request"]["httpVersion"], "HTTP/2.0");
    assert_eq!(items["_resourceType"], "fetch");
    // Redacted values stay redacted.
    let header = |e: &Value, side: &str, name: &str| -> Value {
        e[side]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == name)
            .map(|h| h["value"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(header(items, "request", "authorization"), "[redacted]");
    assert_eq!(header(items, "response", "set-cookie"), "[redacted]");
    assert_eq!(
        items["request"]["queryString"],
        json!([{"name": "token", "value": "[redacted]"}, {"name": "q", "value": "1"}])
    );
    assert!(items["response"]["content"]["text"].as_str().unwrap().contains("\"password\":\"[redacted]\""));

    let save = entry_by_url(har, "http://app.test/api/save");
    assert_eq!((save["request"]["method"].as_str(), save["response"]["status"].as_i64()), (Some("POST"), Some(500)));
    assert_eq!(save["request"]["postData"]["text"], "{\"name\":\"x\",\"token\":\"[redacted]\"}");
    assert_eq!(save["request"]["postData"]["mimeType"], "application/json");
    assert_eq!(save["response"]["content"]["text"], "boom");

    let big = entry_by_url(har, "http://app.test/api/big");
    assert_eq!(big["_resourceType"], "xhr");
    assert_eq!(big["response"]["content"]["size"], 250_000);
    let comment = big["response"]["content"]["comment"].as_str().unwrap_or_default();
    assert!(comment.contains("first 100 of 250000 bytes"), "truncation noted: {big}");

    let failed = entry_by_url(har, "http://down.test/x");
    assert_eq!(failed["response"]["status"], 0);
    assert_eq!(failed["response"]["_error"], "TypeError: Failed to fetch");

    let form = entry_by_url(har, "http://app.test/form");
    assert_eq!(
        form["request"]["postData"]["params"],
        json!([{"name": "a", "value": "1"}, {"name": "b", "value": "two"}])
    );
    assert_eq!(form["response"]["redirectURL"], "/done");
    assert!(form["response"]["content"].get("text").is_none(), "a note is not a body: {form}");

    let logo = entry_by_url(har, "http://app.test/logo.png");
    assert_eq!((logo["_resourceType"].as_str(), logo["response"]["_transferSize"].as_i64()), (Some("image"), Some(0)));
    let script = entry_by_url(har, "http://app.test/app.js");
    assert_eq!((script["_resourceType"].as_str(), script["response"]["status"].as_i64()), (Some("script"), Some(200)));

    let ws = entry_by_url(har, "ws://app.test/live");
    assert_eq!((ws["_resourceType"].as_str(), ws["response"]["status"].as_i64()), (Some("websocket"), Some(101)));
    assert_eq!(
        ws["_webSocketMessages"],
        json!([
            {"type": "send", "time": (cli::T0 + 2_010) as f64 / 1000.0, "opcode": 1, "data": "{\"sub\":\"news\"}"},
            {"type": "receive", "time": (cli::T0 + 2_050) as f64 / 1000.0, "opcode": 2, "data": "[binary 16 bytes]"},
        ])
    );
    assert!(ws["comment"].as_str().unwrap().contains("closed with code 1000 (bye)"));

    // Pages per navigation; every entry points at one.
    let pages = har["log"]["pages"].as_array().unwrap();
    let page_ids: BTreeSet<&str> = pages.iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert!(pages.iter().any(|p| p["title"] == "http://app.test/" && p["pageTimings"]["onLoad"] == 290.5), "{pages:?}");
    assert!(
        !pages.iter().any(|p| p["title"] == "http://app.test/frame.html"),
        "an iframe's load is no page: {pages:?}"
    );
    for e in entries {
        assert!(page_ids.contains(e["pageref"].as_str().unwrap_or("none")), "{e}");
    }
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

#[tokio::test]
async fn har_and_jsonl_hold_the_whole_capture() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let fed = feed(&server).await;
    let d = db_arg(&db.path);

    // While the server runs (a WAL reader beside it).
    let har_path = db.dir.path().join("capture.har");
    let ran = gasoline(&["export", "--har", &har_path.display().to_string(), "--db", &d]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stderr.contains("wrote 9 HAR entries"), "{}", ran.stderr);
    let har: Value = serde_json::from_slice(&file_bytes(&har_path)).expect("HAR is JSON");
    check_har(&har, &fed);
    // The schema check bites: an entry without its response content is not HAR.
    let mut broken = har.clone();
    broken["log"]["entries"][0]["response"].as_object_mut().unwrap().remove("content");
    assert!(!har_schema().is_valid(&broken));

    // To stdout, the same document.
    let stdout: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &d])).unwrap();
    assert_eq!(stdout["log"]["entries"], har["log"]["entries"]);

    // Filters.
    let one: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--url", "/api/save", "--db", &d])).unwrap();
    assert_eq!(one["log"]["entries"].as_array().unwrap().len(), 1);
    let none: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--tab", "99", "--db", &d])).unwrap();
    assert_eq!(none["log"]["entries"], json!([]));
    assert_valid_har(&none);
    let since = (cli::T0 + 1_900).to_string();
    let late: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--since", &since, "--db", &d])).unwrap();
    assert_eq!(late["log"]["entries"].as_array().unwrap().len(), 1, "only the WebSocket");
    let pages: Vec<&Value> = late["log"]["pages"].as_array().unwrap().iter().map(|p| &p["title"]).collect();
    assert_eq!(pages, ["http://app.test/"], "the page it belongs to began before --since");
    let rfc = "2025-11-23T12:13:21.900Z"; // T0 + 1900
    let late_rfc: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--since", rfc, "--db", &d])).unwrap();
    assert_eq!(late_rfc["log"]["entries"], late["log"]["entries"]);
    let aged: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--since", "10m", "--db", &d])).unwrap();
    assert_eq!(aged["log"]["entries"], json!([]), "the capture is older than 10 minutes");

    // JSONL: every entry of every kind, once, as the database holds it.
    server.stop();
    let jsonl_path = db.dir.path().join("all.jsonl");
    ok(&["export", "--jsonl", &jsonl_path.display().to_string(), "--db", &d]);
    let text = String::from_utf8(file_bytes(&jsonl_path)).unwrap();
    let mut seen = BTreeSet::new();
    let conn = open_db(&db.path);
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        let (kind, id) = (v["kind"].as_str().unwrap().to_owned(), v["id"].as_i64().unwrap());
        assert!(seen.insert((kind.clone(), id)), "{kind} {id} twice");
        let ts: i64 = conn.query_row(&format!("SELECT ts FROM {kind} WHERE id = ?1"), [id], |r| r.get(0)).unwrap();
        assert_eq!(v["ts"], ts);
    }
    let stored: BTreeSet<(String, i64)> = fed.ids.iter().map(|(k, id)| ((*k).to_owned(), *id)).collect();
    assert_eq!(seen, stored);
    let logs_only = ok(&["export", "--jsonl", "-", "logs", "extension_logs", "--db", &d]);
    assert_eq!(logs_only.lines().count(), 4);
}

#[tokio::test]
async fn export_refuses_bad_input_and_writes_nothing() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    feed(&server).await;
    server.stop();
    let d = db_arg(&db.path);
    let before = (file_bytes(&db.path), std::fs::metadata(&db.path).unwrap().modified().unwrap());

    let out = db.dir.path().join("x.har");
    let o = out.display().to_string();
    fails(&["export", "--har", &o, "--since", "yesterday", "--db", &d], "--since \"yesterday\" is not a time");
    // A negative number is judged as the value it is, not taken for an unknown flag.
    fails(&["export", "--har", &o, "--since", "-1h", "--db", &d], "--since \"-1h\" is not a time");
    fails(&["tail", "-n", "-1", "--db", &d], "invalid value '-1' for '--lines");
    fails(&["tail", "--status-min", "-5", "--db", &d], "-5 is not in 0..1000");
    fails(&["export", "--jsonl", &o, "cookies", "--db", &d], "unknown kind \"cookies\"");
    fails(&["export", "--har", &o, "logs", "--db", &d], "KIND arguments go with --jsonl");
    fails(
        &["export", "--jsonl", &o, "extension_logs", "--url", "x", "--db", &d],
        "--url does not apply to extension_logs",
    );
    let missing_dir = db.dir.path().join("no/such/dir/x.har");
    let said = fails(&["export", "--har", &missing_dir.display().to_string(), "--db", &d], "cannot write");
    assert!(said.contains("x.har") && !said.contains(".gasoline-export"), "the file asked for, not ours: {said}");
    fails(&["export", "--har", &db.dir.path().display().to_string(), "--db", &d], "cannot write");
    fails(&["export", "--har", &o, "--db", &db_arg(&db.dir.path().join("none.db"))], "no database here");
    assert!(!out.exists(), "no file from a refused export");

    // A database of a newer schema.
    let newer = TempDb::new();
    std::fs::copy(&db.path, &newer.path).unwrap();
    rusqlite::Connection::open(&newer.path)
        .unwrap()
        .execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (999, 'future', '', '0')",
            [],
        )
        .unwrap();
    let nd = db_arg(&newer.path);
    fails(&["export", "--har", &o, "--db", &nd], "written by a newer gasoline");
    fails(&["tail", "--db", &nd], "written by a newer gasoline");
    fails(&["status", "--db", &nd], "written by a newer gasoline");

    // Exports, tails and status read; they never write the database.
    ok(&["export", "--har", &o, "--db", &d]);
    ok(&["tail", "--db", &d]);
    ok(&["status", "--db", &d, "--port", "1"]);
    assert_eq!((file_bytes(&db.path), std::fs::metadata(&db.path).unwrap().modified().unwrap()), before);
}

/// The export's path is the capture's own database (while the server writes it, or after),
/// a file SQLite keeps beside it, its server's lock file, or another SQLite database: refused,
/// the file untouched.
#[tokio::test]
async fn export_never_replaces_a_database() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    feed(&server).await;
    let d = db_arg(&db.path);
    fails(&["export", "--har", &d, "--db", &d], "the database of the capture being exported");
    let wal = format!("{d}-wal");
    fails(&["export", "--jsonl", &wal, "--db", &d], "the -wal file of the capture being exported");
    // The server's lock file: replaced, a second server could write the same database.
    let lock = format!("{d}-server");
    let lock_before = std::fs::read(&lock).unwrap();
    fails(&["export", "--jsonl", &lock, "--db", &d], "the lock file of the server of the capture being exported");
    assert_eq!(std::fs::read(&lock).unwrap(), lock_before, "the lock file is untouched");
    server.stop();
    let before = file_bytes(&db.path);
    fails(&["export", "--jsonl", &d, "--db", &d], "the database of the capture being exported");
    let other = db.dir.path().join("app.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE users (x); INSERT INTO users VALUES (1);")
        .unwrap();
    let other_before = file_bytes(&other);
    fails(&["export", "--jsonl", &other.display().to_string(), "--db", &d], "is a SQLite database");
    assert_eq!(file_bytes(&db.path), before, "the database is untouched");
    assert_eq!(file_bytes(&other), other_before, "another app's database is untouched");
    let lines = ok(&["tail", "logs", "--json", "--db", &d]);
    assert!(lines.lines().count() > 0, "the capture is still there: {lines}");
}

/// What a page logged may hold terminal controls (a one-character CSI, a bidi override): an
/// export holds them as JSON escapes, never as themselves, and reads back as what was logged.
#[tokio::test]
async fn exports_carry_no_character_a_terminal_obeys() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let hostile = "a\u{9b}2J\u{202e}b\u{1b}]0;x\u{7}c\u{7f}";
    server
        .ingest("logs", vec![json!({"tabId": 1, "ts": 1_700_000_000_000i64, "level": "log", "message": hostile})])
        .await;
    server.stop();
    let d = db_arg(&db.path);
    let out = db.dir.path().join("logs.jsonl");
    for text in [
        ok(&["export", "--jsonl", "-", "logs", "--db", &d]),
        {
            ok(&["export", "--jsonl", &out.display().to_string(), "logs", "--db", &d]);
            std::fs::read_to_string(&out).unwrap()
        },
        ok(&["export", "--har", "-", "--db", &d]),
    ] {
        let raw: Vec<char> = text.chars().filter(|&c| c.is_control() && c != '\n' || c == '\u{202e}').collect();
        assert!(raw.is_empty(), "raw controls {raw:?} in {text}");
    }
    let line: Value =
        serde_json::from_str(ok(&["export", "--jsonl", "-", "logs", "--db", &d]).lines().next().unwrap()).unwrap();
    assert_eq!(line["message"], hostile, "the same text once read as JSON");
}

/// A pipe (a FIFO, `/dev/stdout`, a shell's `>(gzip)`) or a link is written through, never
/// replaced by a file of its own.
#[tokio::test]
async fn export_writes_through_a_fifo_and_a_link() {
    use std::os::unix::fs::FileTypeExt;
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    feed(&server).await;
    server.stop();
    let d = db_arg(&db.path);
    let fifo = db.dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reading = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
    };
    ok(&["export", "--jsonl", &fifo.display().to_string(), "logs", "--db", &d]);
    let read = reading.join().expect("the reader");
    assert!(read.lines().count() > 0 && read.lines().all(|l| l.starts_with('{')), "{read}");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");

    let target = db.dir.path().join("real.jsonl");
    std::fs::write(&target, "old").unwrap();
    let link = db.dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(&["export", "--jsonl", &link.display().to_string(), "logs", "--db", &d]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), read, "written through the link");
}

#[tokio::test]
async fn configure_export_writes_under_the_data_directory() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let fed = feed(&server).await;
    let mcp = Mcp::http(&server).await;

    let answer = mcp.ok("configure", json!({"action": "export", "format": "har"})).await;
    let path = Path::new(answer["path"].as_str().unwrap()).to_path_buf();
    assert!(path.starts_with(db.dir.path().join("exports")), "{answer}");
    assert_eq!(answer["bytes"].as_u64(), Some(std::fs::metadata(&path).unwrap().len()));
    assert_eq!(answer["entries"], 9);
    check_har(&serde_json::from_slice(&file_bytes(&path)).unwrap(), &fed);

    let logs = mcp.ok("configure", json!({"action": "export", "format": "jsonl", "what": "logs", "tabId": 7})).await;
    let text = std::fs::read_to_string(logs["path"].as_str().unwrap()).unwrap();
    assert_eq!((text.lines().count(), logs["entries"].as_u64()), (2, Some(2)));

    let err = mcp.err("configure", json!({"action": "export", "format": "pdf"})).await;
    assert!(err.contains("format must be \"har\" or \"jsonl\", got \"pdf\""), "{err}");
    let err = mcp.err("configure", json!({"action": "export"})).await;
    assert!(err.contains("export needs `format`"), "{err}");
    let err = mcp.err("configure", json!({"action": "export", "format": "har", "since": "soon"})).await;
    assert!(err.contains("not a time"), "{err}");
    mcp.close().await;
    server.stop();
}

/// A page's absurd timings (a duration of 1e308, of a billion seconds, a negative one) still make
/// a valid HAR: each date within its page's day, such a duration counted as unknown (0), not
/// moving its entry's start by ages.
#[tokio::test]
async fn absurd_timings_still_make_a_valid_har() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64; // 2026-09-21
    let durations = [1e308, 1e15, -500.0, 120.0];
    let rows = durations
        .iter()
        .enumerate()
        .map(|(i, d)| {
            json!({"tabId": 1, "ts": ts + i as i64, "url": format!("http://localhost:3000/r{i}.js"),
                   "initiatorType": "script", "responseStatus": 200, "duration": d, "startTime": d})
        })
        .collect();
    server.ingest("network_waterfall", rows).await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let entries = har["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), durations.len());
    for e in entries {
        assert!(e["startedDateTime"].as_str().unwrap().starts_with("2026-09-21T"), "{e}");
    }
    let mut times: Vec<f64> = entries.iter().map(|e| e["time"].as_f64().unwrap()).collect();
    times.sort_by(f64::total_cmp);
    assert_eq!(times, [0.0, 0.0, 0.0, 120.0], "only the sane duration is taken as told");
    for p in har["log"]["pages"].as_array().unwrap() {
        assert!(p["startedDateTime"].as_str().unwrap().starts_with("2026-09-21T"), "{p}");
    }
}

/// Sizes and statuses a client sent as nonsense (negative, huge, text) are unknown in the HAR,
/// not a size of -9223372036854775808 bytes: HAR takes -1 for an unknown size, never another
/// negative.
#[tokio::test]
async fn absurd_sizes_still_make_a_valid_har() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64;
    let nonsense = [json!(-1e300), json!(1e308), json!("x"), json!(-2)];
    let rows = nonsense
        .iter()
        .enumerate()
        .map(|(i, n)| {
            json!({"tabId": 1, "ts": ts + i as i64, "url": format!("http://localhost:3000/w{i}.js"), "initiatorType": "script",
                   "responseStatus": 200, "duration": 5, "encodedBodySize": n, "decodedBodySize": n, "transferSize": n})
        })
        .collect();
    server.ingest("network_waterfall", rows).await;
    let bodies = nonsense
        .iter()
        .enumerate()
        .map(|(i, n)| {
            json!({"tabId": 1, "ts": ts + 10 + i as i64, "method": "POST", "url": format!("http://localhost:3000/api/{i}"),
                   "status": 200, "requestBody": "{}", "requestBodySize": n, "responseBody": "ok", "responseBodySize": n})
        })
        .collect();
    server.ingest("network_bodies", bodies).await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    for e in har["log"]["entries"].as_array().unwrap() {
        for n in [&e["request"]["bodySize"], &e["response"]["bodySize"], &e["response"]["content"]["size"]] {
            let n = n.as_i64().unwrap();
            assert!(n == -1 || (0..1 << 53).contains(&n), "{n} in {e}");
        }
        if let Some(t) = e["response"].get("_transferSize") {
            assert!((0..1 << 53).contains(&t.as_i64().unwrap()), "{e}");
        }
    }
}

/// An HTML error page answered to a fetch is kept as its text (`pageText`): the HAR holds that
/// text, as plain text, not the note that stands in the body's place.
#[tokio::test]
async fn an_error_page_s_text_is_the_har_response_content() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = json!({"tabId": 1, "ts": 1_790_000_000_000i64, "method": "GET", "url": "http://127.0.0.1:8000/api/stats/",
                      "status": 500, "contentType": "text/html; charset=utf-8",
                      "responseBody": "[an HTML error page: its text is pageText]",
                      "pageText": "ZeroDivisionError at /api/stats/\ndivision by zero"});
    server.ingest("network_bodies", vec![body]).await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let content = &entry_by_url(&har, "http://127.0.0.1:8000/api/stats/")["response"]["content"];
    assert_eq!(content["text"], "ZeroDivisionError at /api/stats/\ndivision by zero", "{content}");
    assert_eq!(content["mimeType"], "text/plain; charset=utf-8");
    assert!(content["comment"].as_str().unwrap().contains("text/html"), "{content}");
}

/// An entry starts at its `ts` (the extension dates a request's row and body when it started), and
/// belongs to the page whose navigation came before it: a page load's own document is its page's,
/// not the page before's, however long it took.
#[tokio::test]
async fn har_entries_start_at_their_ts_on_their_own_page() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_790_000_000_000i64;
    let nav = |dt: i64, url: &str| json!({"tabId": 1, "ts": t + dt, "type": "navigate", "how": "load", "url": url});
    server
        .ingest("actions", vec![nav(0, "http://127.0.0.1:8000/login/"), nav(1_000, "http://127.0.0.1:8000/dashboard/")])
        .await;
    let row = |dt: i64, url: &str, initiator: &str, duration: f64| json!({"tabId": 1, "ts": t + dt, "url": url, "initiatorType": initiator, "responseStatus": 200, "duration": duration, "source": "page"});
    server
        .ingest(
            "network_waterfall",
            vec![
                row(0, "http://127.0.0.1:8000/login/", "navigation", 320.0),
                row(100, "http://127.0.0.1:8000/static/app.css", "link", 40.0),
                row(1_000, "http://127.0.0.1:8000/dashboard/", "navigation", 450.0),
            ],
        )
        .await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let pages: Vec<(&str, &str)> = har["log"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["title"].as_str().unwrap()))
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    let of = |url: &str| entry_by_url(&har, url);
    let page_of = |url: &str| {
        let id = of(url)["pageref"].as_str().unwrap();
        pages.iter().find(|(p, _)| *p == id).unwrap().1.to_owned()
    };
    assert_eq!(page_of("http://127.0.0.1:8000/login/"), "http://127.0.0.1:8000/login/");
    assert_eq!(page_of("http://127.0.0.1:8000/static/app.css"), "http://127.0.0.1:8000/login/");
    assert_eq!(page_of("http://127.0.0.1:8000/dashboard/"), "http://127.0.0.1:8000/dashboard/");
    let started =
        |url: &str| chrono::DateTime::parse_from_rfc3339(of(url)["startedDateTime"].as_str().unwrap()).unwrap();
    assert_eq!(started("http://127.0.0.1:8000/dashboard/").timestamp_millis(), t + 1_000);
    assert_eq!(started("http://127.0.0.1:8000/static/app.css").timestamp_millis(), t + 100);
}

/// The browser's row of a redirected request (deep mode: a form POST answered 302, then the GET of
/// where it led) is an entry per hop, as DevTools exports it: the POST with its 302 and
/// redirectURL, then the GET with its status; a row that knows its method says it.
#[tokio::test]
async fn a_redirected_request_is_an_entry_per_hop() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_790_000_000_000i64;
    let login = "http://127.0.0.1:8000/login/";
    let dashboard = "http://127.0.0.1:8000/dashboard/";
    server
        .ingest(
            "network_waterfall",
            vec![
                json!({"tabId": 1, "ts": t, "url": login, "method": "POST", "type": "main_frame", "source": "browser",
                        "responseStatus": 200, "duration": 80, "finalUrl": dashboard,
                        "redirects": [{"url": login, "status": 302, "location": dashboard}]}),
            ],
        )
        .await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let hops: Vec<(String, String, i64, String, String)> = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["request"]["method"].as_str().unwrap().to_owned(),
                e["request"]["url"].as_str().unwrap().to_owned(),
                e["response"]["status"].as_i64().unwrap(),
                e["response"]["redirectURL"].as_str().unwrap().to_owned(),
                e["_resourceType"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        hops,
        [
            ("POST".into(), login.into(), 302, dashboard.into(), "document".into()),
            ("GET".into(), dashboard.into(), 200, String::new(), "document".into()),
        ]
    );
}

/// A WebSocket is one entry with its messages: the waterfall row of its handshake (the page's,
/// naming its connection, or the browser's, found by its URL) joins that entry instead of being
/// a second entry for the same socket; a handshake row without its socket's events stays an entry.
#[tokio::test]
async fn a_websocket_and_its_handshake_row_are_one_entry() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64;
    let handshake = |url: &str, at: i64, connection: Option<&str>| {
        let mut row = json!({"tabId": 3, "ts": at, "url": url, "initiatorType": "websocket", "responseStatus": 101, "duration": 4.0});
        if let Some(c) = connection {
            row["connectionId"] = json!(c);
        }
        row
    };
    let (rows, _) = server
        .ingest(
            "network_waterfall",
            vec![
                handshake("ws://localhost:3000/hmr", ts, Some("ws-1")),
                // The browser's row in a deep tab, which names what made it by Chrome's `type`.
                json!({"tabId": 3, "ts": ts + 10, "url": "ws://localhost:3000/live", "type": "websocket",
                       "source": "browser", "responseStatus": 101, "duration": 4.0}),
                handshake("ws://localhost:3000/lonely", ts + 20, Some("ws-9")),
            ],
        )
        .await;
    let event = |c: &str, url: &str, at: i64, event: &str| {
        let mut e = json!({"tabId": 3, "ts": at, "connectionId": c, "url": url, "event": event});
        if event == "message" {
            e["direction"] = json!("incoming");
            e["data"] = json!("hi");
        }
        e
    };
    server
        .ingest(
            "websocket_events",
            vec![
                event("ws-1", "ws://localhost:3000/hmr", ts + 1, "open"),
                event("ws-1", "ws://localhost:3000/hmr", ts + 5, "message"),
                event("ws-2", "ws://localhost:3000/live", ts + 11, "open"),
                event("ws-2", "ws://localhost:3000/live", ts + 15, "message"),
            ],
        )
        .await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let entries = har["log"]["entries"].as_array().unwrap();
    let urls: Vec<&str> = entries.iter().filter_map(|e| e["request"]["url"].as_str()).collect();
    assert_eq!(urls, ["ws://localhost:3000/hmr", "ws://localhost:3000/live", "ws://localhost:3000/lonely"], "{har}");
    let first_row = rows;
    for (url, row) in [("ws://localhost:3000/hmr", first_row), ("ws://localhost:3000/live", first_row + 1)] {
        let e = entry_by_url(&har, url);
        assert_eq!(e["_gasoline"]["network_waterfall"], row, "{e}");
        assert_eq!(e["_webSocketMessages"].as_array().map(Vec::len), Some(1), "{e}");
    }
    let mut named = har_ids(&har, "network_waterfall");
    named.sort();
    assert_eq!(named, [first_row, first_row + 1, first_row + 2], "each handshake row once");
}

/// An EventSource is one entry too: the HTTP request it is (200, `text/event-stream`), its events in
/// `_eventSourceMessages`, its stream's row joined to it, never a WebSocket's 101 (a Turbo review
/// found `/notifications` twice, once as a WebSocket).
#[tokio::test]
async fn an_event_source_is_one_http_entry_with_its_events() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64;
    let url = "http://localhost:3000/notifications";
    let (row, _) = server
        .ingest(
            "network_waterfall",
            vec![json!({"tabId": 3, "ts": ts, "url": url, "initiatorType": "eventsource", "method": "GET", "responseStatus": 200})],
        )
        .await;
    let event = |at: i64, event: &str| {
        let mut e = json!({"tabId": 3, "ts": at, "connectionId": "es-1", "url": url, "event": event, "transport": "eventsource"});
        if event == "message" {
            e["direction"] = json!("incoming");
            e["data"] = json!("{\"orders\":43}");
            e["eventType"] = json!("orders");
            e["lastEventId"] = json!("7");
        }
        e
    };
    server.ingest("websocket_events", vec![event(ts + 2, "open"), event(ts + 9, "message")]).await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let entries = har["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{har}");
    let e = &entries[0];
    assert_eq!(
        (e["response"]["status"].as_i64(), e["_resourceType"].as_str()),
        (Some(200), Some("eventsource")),
        "{e}"
    );
    assert_eq!(e["response"]["content"]["mimeType"], "text/event-stream", "{e}");
    assert_eq!(e["_gasoline"]["network_waterfall"], row, "{e}");
    assert!(e.get("_webSocketMessages").is_none(), "{e}");
    let events = e["_eventSourceMessages"].as_array().expect("its events");
    assert_eq!(
        (events.len(), events[0]["eventName"].as_str(), events[0]["eventId"].as_str(), events[0]["data"].as_str()),
        (1, Some("orders"), Some("7"), Some("{\"orders\":43}")),
        "{e}"
    );
}

/// Socket.IO's session over long polls: its packets are the session's messages in websocket_events,
/// but in HAR the polls are HTTP entries of their own, and the session is no second entry.
#[tokio::test]
async fn a_socket_io_session_over_long_polls_is_its_polls_in_har() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64;
    let url = "http://localhost:3000/socket.io/?EIO=4&transport=polling&t=1";
    server
        .ingest(
            "network_bodies",
            vec![json!({"tabId": 3, "ts": ts, "url": url, "method": "GET", "status": 200, "responseBody": "0{\"sid\":\"s1\"}"})],
        )
        .await;
    let event = |at: i64, event: &str| {
        let mut e =
            json!({"tabId": 3, "ts": at, "connectionId": "c-1", "url": url, "event": event, "transport": "polling"});
        if event == "message" {
            e["direction"] = json!("incoming");
            e["data"] = json!("0{\"sid\":\"s1\"}");
        }
        e
    };
    server.ingest("websocket_events", vec![event(ts + 2, "open"), event(ts + 2, "message")]).await;
    // The WebSocket the session upgrades to is the same connection: its entry holds its own frames.
    let socket = "ws://localhost:3000/socket.io/?EIO=4&transport=websocket&sid=s1";
    let frame = |at: i64, event: &str, data: Option<&str>| {
        let mut e = json!({"tabId": 3, "ts": at, "connectionId": "c-1", "url": socket, "event": event, "transport": "websocket"});
        if let Some(d) = data {
            e["direction"] = json!("incoming");
            e["data"] = json!(d);
        }
        e
    };
    server
        .ingest("websocket_events", vec![frame(ts + 20, "open", None), frame(ts + 25, "message", Some("3probe"))])
        .await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let entries = har["log"]["entries"].as_array().unwrap();
    let upgraded = entry_by_url(&har, socket);
    let frames: Vec<&str> =
        upgraded["_webSocketMessages"].as_array().unwrap().iter().filter_map(|m| m["data"].as_str()).collect();
    assert_eq!(frames, ["3probe"], "{har}");
    let entries: Vec<&Value> = entries.iter().filter(|e| e["request"]["url"] != socket).collect();
    let urls: Vec<&str> = entries.iter().filter_map(|e| e["request"]["url"].as_str()).collect();
    assert_eq!(urls, [url], "{har}");
    assert!(
        entries[0].get("_eventSourceMessages").is_none() && entries[0].get("_webSocketMessages").is_none(),
        "{har}"
    );
}

/// Why a request failed, in HAR: the browser's reason where deep mode saw it (a worker's request
/// with no body, a fetch whose body says only the page's `TypeError: Failed to fetch`).
#[tokio::test]
async fn a_failed_request_s_har_entry_says_the_browser_s_reason() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64;
    let row = |url: &str, at: i64, error: &str| {
        json!({"tabId": 3, "ts": at, "url": url, "method": "GET", "type": "fetch", "source": "browser",
               "error": error, "duration": 3.0})
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                row("http://localhost:3000/api/status", ts, "net::ERR_INTERNET_DISCONNECTED"),
                row("http://localhost:3000/api/boom", ts + 50, "net::ERR_FAILED"),
            ],
        )
        .await;
    server
        .ingest(
            "network_bodies",
            vec![json!({"tabId": 3, "ts": ts + 50, "url": "http://localhost:3000/api/boom", "method": "GET",
                        "failed": true, "error": "TypeError: Failed to fetch", "duration": 3.0})],
        )
        .await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let status = entry_by_url(&har, "http://localhost:3000/api/status");
    assert_eq!(status["response"]["_error"], "net::ERR_INTERNET_DISCONNECTED", "{status}");
    assert!(status["comment"].as_str().unwrap().contains("it failed: net::ERR_INTERNET_DISCONNECTED"), "{status}");
    let boom = entry_by_url(&har, "http://localhost:3000/api/boom");
    assert_eq!(boom["response"]["_error"], "net::ERR_FAILED", "{boom}");
}

/// A row's phases (Resource Timing's, where the page may see them) are the HAR entry's timings:
/// dns, connect with its TLS as ssl, wait and receive, the rest of the duration blocked; they add
/// up to the entry's time. Phases that cannot be (longer than the request) leave it all as wait.
#[tokio::test]
async fn phases_are_the_har_timings() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let ts = 1_790_000_000_000i64;
    let row = |i: i64, duration: f64, phases: Value| {
        json!({"tabId": 1, "ts": ts + i, "url": format!("http://localhost:3000/r{i}.js"), "initiatorType": "script",
               "responseStatus": 200, "duration": duration, "phases": phases})
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                row(0, 60.0, json!({"redirect": 0, "dns": 5, "connect": 10, "tls": 4, "waiting": 30, "download": 5})),
                row(1, 20.0, json!({"dns": 5, "connect": 10, "waiting": 30, "download": 5})),
                row(2, 40.3, json!({"dns": 0, "connect": 0, "waiting": 40.2, "download": 0.2})),
            ],
        )
        .await;
    server.stop();
    let har: Value = serde_json::from_str(&ok(&["export", "--har", "-", "--db", &db_arg(&db.path)])).unwrap();
    assert_valid_har(&har);
    let timings = |i: i64| entry_by_url(&har, &format!("http://localhost:3000/r{i}.js"))["timings"].clone();
    assert_eq!(
        timings(0),
        json!({"blocked": 10.0, "dns": 5.0, "connect": 10.0, "send": 0, "wait": 30.0, "receive": 5.0, "ssl": 4.0})
    );
    assert_eq!(
        timings(1),
        json!({"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 20.0, "receive": 0, "ssl": -1})
    );
    let rounded = timings(2);
    assert_eq!((rounded["blocked"].as_f64(), rounded["receive"].as_f64()), (Some(0.0), Some(0.2)), "{rounded}");
}
