//! Hostile input that is (mostly) valid JSON, over real HTTP: nesting far past
//! serde_json's recursion limit, million-element arrays, 10 MiB strings on both
//! sides of the body limit, NUL bytes, lone UTF-16 surrogates, numbers beyond
//! i64, negative tab ids, and tab ids and timestamps past JavaScript's exact integers. Each is stored
//! safely (long strings cut, with a truncation record) or refused with a clear
//! 4xx; after each the server still answers and what was stored before is intact.

mod common;

use common::{Acked, Mcp, Server, TempDb, open_db, verify_acked};
use serde_json::{Value, json};

enum Expect {
    /// 200, all entries accepted.
    Stored,
    /// This status, and an `error` message containing this text.
    Refused(u16, &'static str),
}

struct Case {
    name: &'static str,
    kind: &'static str,
    body: Vec<u8>,
    expect: Expect,
}

fn case(name: &'static str, kind: &'static str, body: impl Into<Vec<u8>>, expect: Expect) -> Case {
    Case { name, kind, body: body.into(), expect }
}

/// One log entry whose extra field `x` is the raw JSON text `x`.
fn log_with(x: &str) -> Vec<u8> {
    format!(r#"{{"entries":[{{"level":"log","message":"hostile","tabId":5,"x":{x}}}]}}"#).into_bytes()
}

/// One log entry with the raw JSON text `fields` spliced in.
fn log_fields(fields: &str) -> Vec<u8> {
    format!(r#"{{"entries":[{{"level":"log","message":"hostile",{fields}}}]}}"#).into_bytes()
}

const MAX_BODY: usize = 10 * 1024 * 1024;

/// Longer than any of these requests takes (well under a second each here): past it the
/// server is stuck, and the test says so instead of hanging the suite.
const HANG: std::time::Duration = std::time::Duration::from_secs(30);

async fn within<T>(limit: std::time::Duration, f: impl std::future::Future<Output = T>, what: &str) -> T {
    tokio::time::timeout(limit, f).await.unwrap_or_else(|_| panic!("{what}: no answer within {limit:?}: stuck"))
}

fn cases() -> Vec<Case> {
    use Expect::{Refused, Stored};
    let deep_arrays = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_objects = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    let just_nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let million = format!("[{}0]", "0,".repeat(999_999));
    let many_entries = format!(r#"{{"entries":[{}{{}}]}}"#, "{},".repeat(999_999));
    // A single string making the body exactly one byte over, and 64 bytes under, the limit.
    let wrapper = log_fields(r#""message2":"""#).len();
    let over = log_fields(&format!(r#""message2":"{}""#, "s".repeat(MAX_BODY + 1 - wrapper)));
    let under = log_fields(&format!(r#""message2":"{}""#, "s".repeat(MAX_BODY - 64 - wrapper)));
    let big_message = format!(
        r#"{{"entries":[{{"level":"log","message":"{}"}}]}}"#,
        "é".repeat((MAX_BODY - 1024) / 2) // 2 bytes each: cut on a char boundary
    );
    let huge_key = log_fields(&format!(r#""{}":1"#, "k".repeat(1 << 20)));
    let mut raw_nul = log_fields(r#""note":"a"#);
    raw_nul.extend_from_slice(b"\0b\"}]}");
    raw_nul.truncate(raw_nul.len()); // a raw NUL byte inside a string: a control character
    let mut bad_utf8 = log_fields(r#""note":"a"#);
    bad_utf8.extend_from_slice(b"\xff\xfe\"}]}");
    vec![
        case("100k nested arrays", "logs", log_with(&deep_arrays), Refused(400, "recursion limit")),
        case("100k nested objects", "logs", log_with(&deep_objects), Refused(400, "recursion limit")),
        case("100 nested arrays (within the limit)", "logs", log_with(&just_nested), Stored),
        case("a million-element array", "logs", log_with(&million), Stored),
        case("a million entries", "logs", many_entries, Refused(413, "at most 10000")),
        case("a 10 MiB string, body 1 byte over the limit", "logs", over, Refused(413, "10 MiB")),
        case("a 10 MiB string, body just under the limit", "logs", under, Stored),
        case("a 10 MiB two-byte-character message", "logs", big_message, Stored),
        case("a 1 MiB key", "logs", huge_key, Stored),
        case("escaped NUL bytes", "logs", log_fields(r#""note":"a\u0000b","message2":"\u0000""#), Stored),
        case("a raw NUL byte in a string", "logs", raw_nul, Refused(400, "control character")),
        case("invalid UTF-8 in a string", "logs", bad_utf8, Refused(400, "not valid JSON")),
        case("a lone leading surrogate", "logs", log_fields(r#""note":"\ud800""#), Stored),
        case("a lone trailing surrogate", "logs", log_fields(r#""note":"\udc00x""#), Stored),
        case("a valid surrogate pair", "logs", log_fields(r#""note":"\ud83d\ude00""#), Stored),
        case("tabId beyond i64", "logs", log_fields(r#""tabId":9223372036854775808"#), Refused(400, "tabId")),
        case("tabId u64::MAX", "logs", log_fields(r#""tabId":18446744073709551615"#), Refused(400, "tabId")),
        case("tabId 1e30", "logs", log_fields(r#""tabId":1e30"#), Refused(400, "tabId")),
        case("tabId 1.5", "logs", log_fields(r#""tabId":1.5"#), Refused(400, "tabId")),
        // Past JavaScript's exact integers a reader (the viewer, most MCP clients) would show another tab's id.
        case("tabId i64::MAX", "logs", log_fields(r#""tabId":9223372036854775807"#), Refused(400, "2^53 - 1")),
        case("tabId i64::MIN", "logs", log_fields(r#""tabId":-9223372036854775808"#), Refused(400, "2^53 - 1")),
        case("tabId 2^53 - 1", "logs", log_fields(r#""tabId":9007199254740991"#), Stored),
        case("tabId -(2^53 - 1)", "logs", log_fields(r#""tabId":-9007199254740991"#), Stored),
        case("tabId -1 (chrome.tabs.TAB_ID_NONE)", "logs", log_fields(r#""tabId":-1"#), Stored),
        case("ts beyond i64", "logs", log_fields(r#""ts":99999999999999999999999"#), Refused(400, "ts")),
        case("ts 1e300", "logs", log_fields(r#""ts":1e300"#), Refused(400, "ts")),
        case("ts i64::MAX (far future)", "logs", log_fields(r#""ts":9223372036854775807"#), Refused(400, "2^53 - 1")),
        case("ts 2^53 - 1", "logs", log_fields(r#""ts":9007199254740991"#), Stored),
        case("ts year 9999", "logs", log_fields(r#""ts":253402300799999"#), Stored),
        case("ts before 1970", "logs", log_fields(r#""ts":-62135596800000"#), Stored),
        case("a number past f64 (1e400)", "logs", log_with("1e400"), Refused(400, "out of range")),
        case(
            "status beyond i64",
            "network_waterfall",
            r#"{"entries":[{"url":"u","responseStatus":1e30}]}"#,
            Refused(400, "responseStatus"),
        ),
        case("duration 1.7e308", "network_waterfall", r#"{"entries":[{"url":"u","duration":1.7e308}]}"#, Stored),
        case("tabs: tabId beyond i64", "tabs", r#"{"tabId":1e20,"url":"u"}"#, Refused(400, "tabId")),
        case(
            "tabs: huge negative tabId",
            "tabs",
            r#"{"tabId":-9223372036854775808,"url":"u"}"#,
            Refused(400, "2^53 - 1"),
        ),
        case("tabs: the most negative exact tabId", "tabs", r#"{"tabId":-9007199254740991,"url":"u"}"#, Stored),
        case("vitals: lcp 1.7e308", "vitals", r#"{"tabId":5,"lcp":1.7e308,"cls":-0.0}"#, Stored),
        case("an empty body", "logs", "", Refused(400, "not valid JSON")),
        case("a bare string", "logs", r#""entries""#, Refused(400, "entries")),
        case("entries as an object", "logs", r#"{"entries":{"0":{}}}"#, Refused(400, "entries")),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_json_is_stored_safely_or_refused_clearly_and_the_server_keeps_serving() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let baseline: Vec<String> = (0..20).map(|i| format!("baseline-{i}")).collect();
    let entries: Vec<Value> = baseline.iter().map(|m| common::marked_entry("logs", m, 1, 32)).collect();
    let (first_id, last_id) = server.ingest("logs", entries).await;
    let baseline = [Acked { kind: "logs", first_id, last_id, markers: baseline }];
    let mcp = Mcp::http(&server).await;
    let (mut stored, mut refused) = (0, 0);
    let mut ids = std::collections::HashMap::new();
    for c in cases() {
        let started = std::time::Instant::now();
        let (status, reply) = within(HANG, server.post_raw(c.kind, c.body.clone(), &[]), c.name).await;
        match c.expect {
            Expect::Stored => {
                assert_eq!(status, 200, "{}: {reply}", c.name);
                assert!(reply["accepted"].as_u64() >= Some(1), "{}: {reply}", c.name);
                ids.insert(c.name, reply["first_id"].as_i64().unwrap_or(0));
                stored += 1;
            }
            Expect::Refused(want, text) => {
                let message = reply["error"].as_str().unwrap_or_default();
                assert_eq!(status, want, "{}: {reply}", c.name);
                assert!(message.contains(text), "{}: expected \"{text}\" in {message}", c.name);
                assert!(message.len() < 500, "{}: a short message, not an echo of the input", c.name);
                refused += 1;
            }
        }
        // Still serving, and what was there before is intact.
        assert_eq!(server.health().await["service"], "gasoline", "{}", c.name);
        let (expected, found, problems) = verify_acked(&db.path, &baseline);
        assert_eq!(found, expected, "{}: {problems:?}", c.name);
        // And what is stored reads back within the budget.
        if c.kind == "logs" {
            let (page, chars) = mcp
                .ok_sized("observe", json!({"what": "logs", "offset": -1, "max_chars": 20_000, "fields": ["all"]}))
                .await;
            assert!(chars <= 20_000, "{}: {chars}", c.name);
            assert_eq!(page["count"], 1, "{}: {page}", c.name);
        }
        eprintln!("{}: {status}, checked after {:?}", c.name, started.elapsed());
    }
    // The stored extremes read back as sent.
    let conn = open_db(&db.path);
    let tabs: Vec<i64> = conn
        .prepare("SELECT tab_id FROM logs WHERE tab_id IS NOT NULL ORDER BY tab_id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    const SAFE: i64 = (1 << 53) - 1;
    assert!(tabs.contains(&-SAFE) && tabs.contains(&SAFE) && tabs.contains(&-1), "{tabs:?}");
    assert!(!tabs.contains(&i64::MIN) && !tabs.contains(&i64::MAX), "{tabs:?}");
    for tab in [SAFE, -SAFE, -1] {
        let page = mcp.observe(json!({"what": "logs", "tabId": tab})).await;
        assert_eq!(page["count"], 1, "tabId {tab}: {page}");
    }
    // The latest time a reader shows exactly (2^53 - 1 ms): stored and found.
    let far = mcp.observe(json!({"what": "logs", "since": 9_007_199_254_740_991i64})).await;
    assert_eq!(far["count"], 1, "{far}");
    // Half a character (a lone surrogate, as a browser's JSON.stringify writes it) costs that character only.
    for (name, note) in [
        ("escaped NUL bytes", "a\u{0}b"),
        ("a valid surrogate pair", "\u{1F600}"),
        ("a lone leading surrogate", "\u{fffd}"),
        ("a lone trailing surrogate", "\u{fffd}x"),
    ] {
        let page =
            mcp.observe(json!({"what": "logs", "after_cursor": ids[name] - 1, "limit": 1, "fields": ["all"]})).await;
        assert_eq!(page["entries"][0]["note"], note, "{name}: {page}");
    }
    // Long strings were cut, and the row says so with the original length.
    let cut: Vec<String> = conn
        .prepare("SELECT truncated FROM logs WHERE truncated IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let cut: Vec<Value> = cut.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
    assert!(cut.iter().any(|t| t["message2"].as_u64() > Some(10_000_000)), "{cut:?}");
    assert!(cut.iter().any(|t| t["message"].as_u64() > Some(10_000_000)), "{cut:?}");
    let longest: i64 = conn.query_row("SELECT max(length(CAST(message AS BLOB))) FROM logs", [], |r| r.get(0)).unwrap();
    assert!(longest <= 16 * 1024, "message column capped at --field-cap: {longest}");
    mcp.close().await;
    assert_eq!(server.stop(), Some(0));
    assert_eq!(common::integrity(&db.path), "ok");
    eprintln!(
        "FIGURE hostile: {} cases, {stored} stored safely, {refused} refused with a clear 4xx; server up after each",
        stored + refused
    );
}

/// An entry with 200,000 small fields (a big object logged to the console) is accepted, and an
/// observe page that must clip it answers, clipped, within the budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_with_200k_small_fields_reads_back_clipped() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let many_keys = format!("{{{}\"k\":0}}", (0..200_000).map(|i| format!("\"k{i}\":{i},")).collect::<String>());
    let (status, reply) = server.post_raw("logs", log_with(&many_keys), &[]).await;
    assert_eq!(status, 200, "{reply}");
    let mcp = Mcp::http(&server).await;
    let started = std::time::Instant::now();
    let last = mcp.ok_sized("observe", json!({"what": "logs", "offset": -1, "max_chars": 20_000, "fields": ["all"]}));
    let (page, chars) = within(HANG, last, "observe of a 200k-field entry").await;
    assert!(chars <= 20_000, "{chars}");
    assert_eq!(page["entries"][0]["_clipped"], true, "{page}");
    eprintln!("FIGURE hostile 200k fields: clipped answer of {chars} chars in {:?}", started.elapsed());
    mcp.close().await;
}

/// Opens a raw upload that declares `length` bytes, sends a few, and stalls. Returns the
/// status the server finally answers (0 if it never does within 30 s).
fn stalled_upload(port: u16, length: usize) -> std::thread::JoinHandle<u16> {
    use std::io::{Read, Write};
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    std::thread::spawn(move || {
        tcp.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
        let head = format!(
            "POST /events/logs HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Content-Length: {length}\r\nConnection: close\r\n\r\n{{\"entries\": ["
        );
        tcp.write_all(head.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = tcp.read_to_string(&mut answer);
        answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
    })
}

/// Uploads that stall hold room in the pending-writes budget (it is taken before a body is
/// read), so other ingest that does not fit waits and gets 503; after the body timeout each
/// stalled upload gets 408, its room comes back, and the same request goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_uploads_get_408_and_give_their_room_back() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", common::logs(5, 0, None)).await;
    // 6 x 10.4 MB declared leave 4.7 MB of the 64 MiB budget.
    let stalled: Vec<_> = (0..6).map(|_| stalled_upload(server.port, 10_400_000)).collect();
    server.wait_pending(6 * 10_400_000).await;
    let big = json!({"entries": [{"level": "log", "message": "x".repeat(6_000_000)}]});
    let (status, reply) = server.post("logs", &big).await;
    assert_eq!(status, 503, "a 6 MB request finds no room while uploads stall: {reply}");
    let statuses: Vec<u16> = stalled.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(statuses, vec![408; 6], "each stalled upload is answered 408");
    let (status, reply) = server.post("logs", &big).await;
    assert_eq!(status, 200, "room is back: {reply}");
    let conn = open_db(&db.path);
    let n: i64 = conn.query_row("SELECT count(*) FROM logs", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 6, "the 5 stored before and the 6 MB one, nothing of the stalled uploads");
    eprintln!(
        "FIGURE hostile stalled uploads: 6 x 408 after the 10 s body timeout; a 6 MB request 503 meanwhile, 200 after"
    );
}

/// A client that sends its request's headers a line a second and never ends them (slowloris)
/// holds no connection for long: the server closes it once the 10 s header deadline passes,
/// and answers others meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_dripping_its_headers_is_closed_after_the_header_deadline() {
    use std::io::{Read, Write};
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let port = server.port;
    let dripping = std::thread::spawn(move || {
        let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        tcp.set_read_timeout(Some(std::time::Duration::from_secs(1))).unwrap();
        let _ = tcp.write_all(b"POST /events/logs HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        // At most 60 lines, a second apart: the connection must close well before.
        for line in 0..60 {
            let mut byte = [0u8; 64];
            match tcp.read(&mut byte) {
                Ok(_) => return Some(line),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Some(line),
                Err(_) => {}
            }
            if tcp.write_all(format!("X-Drip-{line}: 1\r\n").as_bytes()).is_err() {
                return Some(line);
            }
        }
        None
    });
    server.ingest("logs", common::logs(2, 0, None)).await;
    let closed_after = tokio::task::spawn_blocking(move || dripping.join().unwrap()).await.unwrap();
    assert!(closed_after.is_some(), "the server kept a connection whose headers never ended for 60 s");
    eprintln!("FIGURE hostile slow headers: closed after {} header lines a second apart", closed_after.unwrap_or(0));
}

/// Sends `head` (and `then`) on a raw connection, stops sending, and reads the answer.
/// Returns the status (0 if none within 30 s) and whether the server then closed the connection.
fn raw_exchange(port: u16, head: String, then: Vec<u8>) -> std::thread::JoinHandle<(u16, bool)> {
    use std::io::{Read, Write};
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    std::thread::spawn(move || {
        tcp.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
        let _ = tcp.write_all(head.as_bytes());
        let _ = tcp.write_all(&then);
        let mut answer = Vec::new();
        // The server closed the connection: end of stream, or a reset when it left bytes we sent
        // unread (what was answered before stays readable). A read timeout means it did not.
        let closed = match tcp.read_to_end(&mut answer) {
            Ok(_) => true,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        };
        let text = String::from_utf8_lossy(&answer);
        (text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0), closed)
    })
}

fn post_head(port: u16, framing: &str) -> String {
    format!("POST /events/logs HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{framing}\r\n")
}

/// A request that declares more than 10 MiB is refused from its headers alone: 413 and the
/// connection closed, without waiting for (or reading) a byte of the body. So clients that
/// declare 11 MiB and stall hold nothing, however many they are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_declared_over_10_mib_is_refused_from_its_headers_and_the_connection_closed() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let declared = format!("Content-Length: {}\r\n", MAX_BODY + 1024 * 1024);
    let stalled: Vec<_> = (0..32)
        .map(|_| raw_exchange(server.port, post_head(server.port, &declared), b"{\"entries\":[".to_vec()))
        .collect();
    let answers: Vec<(u16, bool)> = stalled.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(answers, vec![(413, true); 32], "each stalled 11 MiB upload: 413 from the headers, connection closed");
    // Meanwhile and after, ordinary ingest goes through.
    server.ingest("logs", common::logs(3, 0, None)).await;
    assert_eq!(common::count(&db.path, "logs"), 3);
    eprintln!("FIGURE hostile declared 11 MiB: 32 stalled uploads, 32 x 413 from the headers, connections closed");
}

/// `/mcp` holds its bodies to limits of its own: a message declared over 1 MiB is refused from
/// its headers (413, connection closed; a 10 MiB `[0,0,…]` took 1.6 GB to serve before), one just
/// under it is served, one that stops arriving gets 408 after the body deadline instead of holding
/// its connection forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_bodies_are_refused_from_their_headers_and_not_waited_for_forever() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let head = |length: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n",
            server.port
        )
    };
    let oversize = raw_exchange(server.port, head(MAX_BODY + 1024 * 1024), b"{\"jsonrpc\":".to_vec());
    let over_mcp = raw_exchange(server.port, head(2 * 1024 * 1024), b"{\"jsonrpc\":".to_vec());
    let stalled = raw_exchange(server.port, head(100), b"{".to_vec());
    let oversize = tokio::task::spawn_blocking(move || oversize.join().unwrap()).await.unwrap();
    assert_eq!(oversize, (413, true), "an 11 MiB message: 413 from its headers, connection closed");
    let over_mcp = tokio::task::spawn_blocking(move || over_mcp.join().unwrap()).await.unwrap();
    assert_eq!(over_mcp, (413, true), "a 2 MiB message: 413 from its headers, connection closed");
    // The most values a message under 1 MiB can hold, in an initialize: served.
    let zeros = vec!["0"; 500_000].join(",");
    let initialize = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"big","version":"1"}},"padding":[{zeros}]}}}}"#
    );
    assert!(initialize.len() < 1024 * 1024);
    let under = raw_exchange(
        server.port,
        head(initialize.len()).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"),
        initialize.into_bytes(),
    );
    let under = tokio::task::spawn_blocking(move || under.join().unwrap()).await.unwrap();
    assert_eq!(under.0, 200, "a message of 500,000 values under 1 MiB is served");
    let stalled = tokio::task::spawn_blocking(move || stalled.join().unwrap()).await.unwrap();
    assert_eq!(stalled.0, 408, "a message that stops arriving: 408 after the body deadline");
    let mcp = Mcp::http(&server).await;
    mcp.observe(json!({"what": "logs"})).await;
    mcp.close().await;
}

/// A connection that says nothing is not held for ever (each holds a file descriptor, and
/// enough of them stop ingest): one that sends no byte, half of HTTP/2's preface, or the whole
/// preface and then nothing is closed by the server, while a real client is served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_say_nothing_are_closed() {
    use std::io::{Read, Write};
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    let quiet: Vec<_> = [Vec::new(), preface[..10].to_vec(), preface.clone()]
        .into_iter()
        .map(|sent| {
            let mut tcp = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
            std::thread::spawn(move || {
                // Far longer than the server's deadlines: a read that times out means it held on.
                tcp.set_read_timeout(Some(std::time::Duration::from_secs(90))).unwrap();
                tcp.write_all(&sent).unwrap();
                let mut rest = Vec::new();
                match tcp.read_to_end(&mut rest) {
                    Ok(_) => true,
                    Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
                }
            })
        })
        .collect();
    server.ingest("logs", common::logs(2, 0, None)).await;
    let closed: Vec<bool> =
        tokio::task::spawn_blocking(move || quiet.into_iter().map(|t| t.join().unwrap()).collect()).await.unwrap();
    assert_eq!(closed, [true, true, true], "silent, half a preface, the preface alone: each closed by the server");
    assert_eq!(common::count(&db.path, "logs"), 2);
}

/// A chunked body (no declared length) holds room in the pending budget for what has arrived,
/// not for the largest body: six chunked uploads that stall after 1 KB leave room for an 8 MB
/// request; past 10 MiB a chunked body is refused as it arrives (413, connection closed); and
/// the stalled ones get 408 after the body timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunked_body_holds_room_for_what_has_arrived_and_is_cut_off_past_10_mib() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let chunked = "Transfer-Encoding: chunked\r\n";
    let first_kb = [b"400\r\n".as_slice(), b"{\"entries\":[", &[b' '; 1012], b"\r\n"].concat();
    let stalled: Vec<_> =
        (0..6).map(|_| raw_exchange(server.port, post_head(server.port, chunked), first_kb.clone())).collect();
    // Each holds one step of room (64 KiB) for its first kilobyte.
    server.wait_pending(6 * 64 * 1024).await;
    let big = json!({"entries": [{"level": "log", "message": "x".repeat(8_000_000)}]});
    let (status, reply) = server.post("logs", &big).await;
    assert_eq!(status, 200, "an 8 MB request finds room beside six stalled chunked uploads: {reply}");

    // 11 MiB sent chunked, at full speed: refused once past 10 MiB, without the rest being read.
    let mut over = Vec::new();
    for _ in 0..11 {
        over.extend_from_slice(format!("{:x}\r\n", 1 << 20).as_bytes());
        over.extend(std::iter::repeat_n(b' ', 1 << 20));
        over.extend_from_slice(b"\r\n");
    }
    let (status, closed) = raw_exchange(server.port, post_head(server.port, chunked), over).join().unwrap();
    assert_eq!((status, closed), (413, true), "a chunked body past 10 MiB");

    let statuses: Vec<(u16, bool)> = stalled.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(statuses.iter().all(|(s, _)| *s == 408), "each stalled chunked upload is answered 408: {statuses:?}");
    assert_eq!(common::count(&db.path, "logs"), 1);
    eprintln!(
        "FIGURE hostile chunked: 6 stalled chunked uploads leave room for an 8 MB request; 11 MiB chunked -> 413"
    );
}
