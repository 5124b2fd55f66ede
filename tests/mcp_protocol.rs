//! The MCP server against JSON-RPC 2.0 and the MCP transports, as a client
//! that is not rmcp meets it: raw HTTP bodies to `/mcp` and raw lines to
//! `gasoline mcp`'s stdin. A malformed message gets the JSON-RPC error the spec
//! gives it (-32700, -32600, -32602, -32601), with `"id": null` where no id can
//! be read, and the server goes on answering.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use common::{Server, TempDb};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";

/// The JSON-RPC message in an answer, whether it came as JSON or as one SSE event.
fn message_of(body: &str) -> Value {
    let text = body.lines().filter_map(|l| l.strip_prefix("data: ")).find(|d| !d.trim().is_empty()).unwrap_or(body);
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {body}"))
}

struct Http {
    client: reqwest::Client,
    url: String,
}

impl Http {
    async fn post(&self, session: Option<&str>, body: &str) -> (u16, String) {
        let mut request =
            self.client.post(&self.url).header("accept", ACCEPT).header("content-type", "application/json");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let answer = request.body(body.to_owned()).send().await.unwrap();
        (answer.status().as_u16(), answer.text().await.unwrap())
    }

    async fn session(&self) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
        let answer = self.client.post(&self.url).header("accept", ACCEPT).json(&init).send().await.unwrap();
        let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let (status, _) = self.post(Some(&session), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        assert_eq!(status, 202);
        session
    }

    async fn delete(&self, session: &str) -> u16 {
        self.client.delete(&self.url).header("mcp-session-id", session).send().await.unwrap().status().as_u16()
    }
}

fn error_of(message: &Value) -> (Value, i64) {
    (message["id"].clone(), message["error"]["code"].as_i64().unwrap_or_else(|| panic!("no error: {message}")))
}

#[tokio::test]
async fn http_answers_malformed_messages_with_their_json_rpc_errors() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let http = Http { client: reqwest::Client::new(), url: server.url("/mcp") };

    // Not JSON, not one message: 400 with the error, whatever the session.
    for (body, code) in [
        ("not json", -32700),
        (r#"{"jsonrpc":"2.0","id":4,"method":"ping""#, -32700),
        ("[]", -32600),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, -32600),
        (r#""text""#, -32600),
    ] {
        let (status, answer) = http.post(None, body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_of(&message_of(&answer)), (Value::Null, code), "{body}");
    }
    // JSON nested past what the server reads is a parse error too, as over stdio.
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let (status, answer) = http.post(None, &deep).await;
    assert_eq!((status, error_of(&message_of(&answer))), (400, (Value::Null, -32700)), "{answer}");
    assert!(answer.contains("nested deeper"), "{answer}");
    // A compressed body is refused for its encoding (415), as ingest refuses one.
    let gzipped = http
        .client
        .post(&http.url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .body(vec![0x1f, 0x8b, 8, 0])
        .send()
        .await
        .unwrap();
    let status = gzipped.status().as_u16();
    let text = gzipped.text().await.unwrap();
    assert_eq!(status, 415, "{text}");
    let refusal = message_of(&text);
    assert_eq!(error_of(&refusal), (Value::Null, -32000), "a JSON-RPC error, as every refusal on /mcp: {text}");
    assert!(refusal["error"]["message"].as_str().unwrap_or_default().contains("gzip"), "{text}");
    // initialize without params: its params are wrong, not its session.
    let (status, answer) = http.post(None, r#"{"jsonrpc":"2.0","id":7,"method":"initialize"}"#).await;
    assert_eq!((status, error_of(&message_of(&answer))), (200, (json!(7), -32602)), "{answer}");

    let session = http.session().await;
    // Every SSE event carries a message: no empty priming event (a 2025-11-25 feature that the
    // SDKs of the versions this server speaks read as a malformed message).
    let (status, answer) = http.post(Some(&session), r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#).await;
    assert_eq!(status, 200, "{answer}");
    let data: Vec<&str> = answer.lines().filter_map(|l| l.strip_prefix("data:")).collect();
    assert!(!data.is_empty() && data.iter().all(|d| !d.trim().is_empty()), "an empty SSE event: {answer:?}");
    let (status, answer) = http.post(Some(&session), r#"{"id":9,"method":"ping"}"#).await;
    assert_eq!((status, error_of(&message_of(&answer))), (400, (json!(9), -32600)), "{answer}");
    for (body, id, code, says) in [
        (r#"{"jsonrpc":"2.0","id":10,"method":"tools/call"}"#, json!(10), -32602, "name"),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"observe","arguments":[1]}}"#,
            json!(11),
            -32602,
            "tools/call",
        ),
        (r#"{"jsonrpc":"2.0","id":"r","method":"resources/list"}"#, json!("r"), -32601, "resources/list"),
        // Well-formed JSON with a number no double holds: the call's params, not a parse error.
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","offset":1e400}}}"#,
            json!(14),
            -32602,
            "number out of range",
        ),
    ] {
        let (status, answer) = http.post(Some(&session), body).await;
        let message = message_of(&answer);
        assert_eq!((status, error_of(&message)), (200, (id, code)), "{body}: {answer}");
        assert!(message["error"]["message"].as_str().unwrap().contains(says), "{answer}");
    }
    // A key named twice in the arguments: refused, not the last one silently taken.
    let twice = r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","what":"errors"}}}"#;
    let (status, answer) = http.post(Some(&session), twice).await;
    let message = message_of(&answer);
    assert_eq!((status, error_of(&message)), (400, (json!(12), -32600)), "{answer}");
    assert!(message["error"]["message"].as_str().unwrap().contains("\"what\" appears twice"), "{answer}");
    // Half an emoji in the arguments (a lone surrogate escape, as JSON.stringify writes one)
    // costs that character: the call is answered, searching for U+FFFD in its place.
    let half = r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","search":"x\ud83d"}}}"#;
    let (status, answer) = http.post(Some(&session), half).await;
    let message = message_of(&answer);
    assert_eq!((status, &message["id"]), (200, &json!(13)), "{answer}");
    assert!(message["result"]["content"].is_array() && message.get("error").is_none(), "{answer}");
    // A batch (MCP 2025-03-26) gets the array of its answers, refusals among them; one of
    // notifications only gets 202.
    let batch = r#"[{"jsonrpc":"2.0","id":21,"method":"ping"},"bad",{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs"}}},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    let (status, answer) = http.post(Some(&session), batch).await;
    assert_eq!(status, 200, "{answer}");
    let answers: Vec<Value> = serde_json::from_str(&answer).unwrap();
    let mut ids: Vec<String> = answers.iter().map(|a| a["id"].to_string()).collect();
    ids.sort();
    assert_eq!(ids, ["21", "22", "null"], "{answer}");
    let by_id = |id: Value| answers.iter().find(|a| a["id"] == id).unwrap().clone();
    assert_eq!(by_id(json!(21))["result"], json!({}));
    assert!(
        by_id(json!(22))["result"]["content"][0]["text"].as_str().unwrap().contains("\"what\":\"logs\""),
        "{answer}"
    );
    assert_eq!(error_of(&by_id(Value::Null)), (Value::Null, -32600));
    let (status, _) = http.post(Some(&session), r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#).await;
    assert_eq!(status, 202);
    // A batch that would open a session is told why it cannot, not that it lacks one.
    let opening = r#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}]"#;
    let (status, answer) = http.post(None, opening).await;
    assert_eq!((status, answer.contains("initialize must be sent alone")), (400, true), "{answer}");

    // The session still works, and a tool's own mistakes stay tool results.
    let (status, answer) = http.post(Some(&session), r#"{"jsonrpc":"2.0","id":12,"method":"ping"}"#).await;
    assert_eq!((status, message_of(&answer)["result"].clone()), (200, json!({})), "{answer}");
    let call = r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","bogus":null}}}"#;
    let (_, answer) = http.post(Some(&session), call).await;
    let result = &message_of(&answer)["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("unknown argument `bogus`"), "{answer}");

    // A request naming a session that does not exist is told so (404), even with bad params, in a
    // JSON-RPC error as every other refusal of the transport.
    let (status, answer) =
        http.post(Some("no-such-session"), r#"{"jsonrpc":"2.0","id":14,"method":"tools/call"}"#).await;
    assert_eq!((status, error_of(&message_of(&answer)).1), (404, -32001), "{answer}");
    let (status, answer) = http.post(None, r#"{"jsonrpc":"2.0","id":15,"method":"ping"}"#).await;
    assert_eq!((status, error_of(&message_of(&answer)).1), (400, -32000), "no session: {answer}");
    assert!(message_of(&answer)["error"]["message"].as_str().unwrap().contains("Session ID"), "{answer}");
    let wrong_type = http.client.post(&http.url).header("accept", ACCEPT).header("content-type", "text/plain");
    let refused = wrong_type.header("mcp-session-id", &session).body("{}").send().await.unwrap();
    assert_eq!(refused.headers()["content-type"], "application/json");
    let (status, answer) = (refused.status().as_u16(), refused.text().await.unwrap());
    assert_eq!((status, error_of(&message_of(&answer)).1), (415, -32000), "{answer}");
    // A client that accepts anything accepts what MCP answers with.
    let any = http.client.post(&http.url).header("accept", "*/*").header("mcp-session-id", &session);
    let answer = any.json(&json!({"jsonrpc": "2.0", "id": 16, "method": "ping"})).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(message_of(&answer.text().await.unwrap())["result"], json!({}));
    // Nor does one that names the two types' ranges (RFC 9110: a range takes each type in it);
    // a range it refuses (q=0) is no acceptance.
    let ranges = |accept: &str| http.client.post(&http.url).header("accept", accept).header("mcp-session-id", &session);
    let ping = json!({"jsonrpc": "2.0", "id": 17, "method": "ping"});
    let answer = ranges("application/*, text/*;q=0.5").json(&ping).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(message_of(&answer.text().await.unwrap())["result"], json!({}));
    let refused = ranges("application/json, text/*;q=0").json(&ping).send().await.unwrap();
    assert_eq!(refused.status(), 406);
    // A method /mcp does not take: 405, and `Allow` names what it takes, OPTIONS too, as every route's.
    for method in [reqwest::Method::PUT, reqwest::Method::PATCH] {
        let refused = http.client.request(method.clone(), &http.url).send().await.unwrap();
        assert_eq!(refused.status(), 405, "{method}");
        assert_eq!(refused.headers()["allow"], "GET, POST, DELETE, OPTIONS", "{method}");
    }
    // A GET opens the session's event stream: one that does not accept event streams is refused (406).
    let get = |accept: &str| http.client.get(&http.url).header("mcp-session-id", &session).header("accept", accept);
    for accept in ["application/json", "text/html, application/json;q=0.9"] {
        let refused = get(accept).send().await.unwrap();
        assert_eq!(refused.status(), 406, "Accept {accept}");
    }
    // Nor one that names no Accept at all (a raw request: HTTP clients add `*/*`).
    let raw = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nmcp-session-id: {session}\r\nConnection: close\r\n\r\n",
        server.port
    );
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    socket.write_all(raw.as_bytes()).unwrap();
    let mut status_line = String::new();
    BufReader::new(socket).read_line(&mut status_line).unwrap();
    assert!(status_line.starts_with("HTTP/1.1 406"), "no Accept: {status_line}");
    let stream = get("text/event-stream").send().await.unwrap();
    assert_eq!(
        (stream.status().as_u16(), stream.headers()["content-type"].to_str().unwrap()),
        (200, "text/event-stream")
    );
    drop(stream);
    // Ending a session: 204 once, 404 for an ended or unknown one.
    assert_eq!(http.delete("no-such-session").await, 404);
    assert_eq!(http.delete(&session).await, 204);
    assert_eq!(http.delete(&session).await, 404);
    server.stop();
}

/// Writes `lines` to a `gasoline mcp` on stdio, closes stdin, and returns every message it
/// wrote to stdout before exiting (which it must, with status 0).
fn stdio_exchange(lines: &[String]) -> Vec<Value> {
    let db = TempDb::new();
    let mut child = common::command("mcp", &db.path, 0, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn gasoline mcp");
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin); // the client leaves: the server answers what it got, then exits
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (lines_read, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = lines_read.send(stdout.lines().map_while(Result::ok).collect::<Vec<String>>());
    });
    let Ok(written) = read.recv_timeout(Duration::from_secs(30)) else {
        let _ = child.kill();
        panic!("gasoline mcp did not end its output after stdin closed");
    };
    let answers: Vec<Value> = written
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout holds only JSON-RPC ({e}): {l}")))
        .collect();
    let status = common::wait_exit(&mut child, Duration::from_secs(20));
    assert_eq!(status, Some(0));
    answers
}

fn initialize_line() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string()
}

/// A client that does not wait for its `initialize` answer before it asks (and sends its
/// `initialized` late, or not at all) is served as over HTTP.
#[test]
fn stdio_serves_requests_sent_before_the_initialized_notification() {
    let answers = stdio_exchange(&[
        initialize_line(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"observe","arguments":{"what":"summary"}}}"#
            .to_owned(),
    ]);
    let by_id =
        |id: i64| answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {answers:?}"));
    assert!(by_id(2)["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{answers:?}");
    assert!(by_id(3)["result"]["content"].is_array(), "{answers:?}");
    assert_eq!(answers.len(), 3, "{answers:?}");
}

#[test]
fn stdio_answers_malformed_lines_with_their_json_rpc_errors_and_goes_on() {
    let init = initialize_line();
    let lines = [
        "not json".to_owned(),
        // A ping before initialization is answered (MCP 2025-06-18: either side may ping at any time).
        r#"{"jsonrpc":"2.0","id":17,"method":"ping"}"#.to_owned(),
        // A request before initialization is told to initialize first.
        r#"{"jsonrpc":"2.0","id":19,"method":"tools/list"}"#.to_owned(),
        // Notifications and responses before initialization need no answer, and end nothing.
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#.to_owned(),
        r#"[{"jsonrpc":"2.0","method":"notifications/foo"}]"#.to_owned(),
        init.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        // A second initialize, with a version the server does not speak: refused, and the session
        // goes on in the revision it began with (its ping still answered, below).
        r#"{"jsonrpc":"2.0","id":22,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.to_owned(),
        r#"{"id":9,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call"}"#.to_owned(),
        r#"[{"jsonrpc":"2.0","id":11,"method":"ping"},"bad",{"jsonrpc":"2.0","id":15,"method":"nope"}]"#.to_owned(),
        "[]".to_owned(),
        // Nested past what the server reads: one parse error, not a batch's array of one.
        format!("{}1{}", "[".repeat(200), "]".repeat(200)),
        r#"{"jsonrpc":"2.0","id":12,"method":"resources/list"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":13,"method":"ping"}"#.to_owned(),
        // Half an emoji (a lone surrogate escape) costs that character, not the message.
        r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","search":"x\ud83d"}}}"#.to_owned(),
        // A number no double holds: the call's params are refused, with its id.
        r#"{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","limit":1e400}}}"#.to_owned(),
        // No cursor was ever given out: one sent is invalid (MCP pagination: -32602).
        r#"{"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"cursor":"zzz"}}"#.to_owned(),
        // The stateless revision (its version in _meta) has no ping and no initialize: told so
        // in its own methods, as over HTTP.
        r#"{"jsonrpc":"2.0","id":20,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":21,"method":"nope","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_owned(),
    ];
    let answers = stdio_exchange(&lines);

    let by_id = |id: Value| answers.iter().filter(move |a| a.is_object() && a["id"] == id).cloned().collect::<Vec<_>>();
    let mut nulls: Vec<i64> = by_id(Value::Null).iter().map(|a| error_of(a).1).collect();
    nulls.sort();
    assert_eq!(nulls, [-32700, -32700, -32600], "not JSON, nested too deep, and the empty batch: {answers:?}");
    // The batch's answer is one array: the ping's result, the refusals of "bad" and of "nope".
    let batch: Vec<&Value> = answers.iter().filter(|a| a.is_array()).collect();
    assert_eq!(batch.len(), 1, "{answers:?}");
    let mut in_batch: Vec<String> = batch[0].as_array().unwrap().iter().map(|a| a["id"].to_string()).collect();
    in_batch.sort();
    assert_eq!(in_batch, ["11", "15", "null"], "{answers:?}");
    assert_eq!(error_of(&by_id(json!(9))[0]).1, -32600);
    assert_eq!(error_of(&by_id(json!(10))[0]).1, -32602);
    assert_eq!(error_of(&by_id(json!(12))[0]).1, -32601);
    assert!(by_id(json!(1))[0]["result"]["serverInfo"].is_object(), "{answers:?}");
    assert_eq!(by_id(json!(13))[0]["result"], json!({}), "{answers:?}");
    assert!(by_id(json!(14))[0]["result"]["content"].is_array(), "{answers:?}");
    assert_eq!(error_of(&by_id(json!(16))[0]).1, -32602);
    assert_eq!(by_id(json!(17))[0]["result"], json!({}), "{answers:?}");
    assert_eq!(error_of(&by_id(json!(18))[0]).1, -32602);
    let again = &by_id(json!(22))[0];
    assert_eq!(error_of(again).1, -32600, "{again}");
    assert!(again["error"]["message"].as_str().unwrap().contains("already initialized"), "{again}");
    assert!(by_id(json!(14))[0]["result"].get("resultType").is_none(), "still the first revision's results");
    let early = &by_id(json!(19))[0];
    assert_eq!(error_of(early).1, -32600);
    assert!(early["error"]["message"].as_str().unwrap().contains("initialize first"), "{early}");
    for id in [20, 21] {
        let missing = &by_id(json!(id))[0];
        assert_eq!(error_of(missing).1, -32601, "{missing}");
        let message = missing["error"]["message"].as_str().unwrap_or_default();
        let answers = message.split("this server answers").nth(1).unwrap_or_default();
        assert!(
            answers.contains("tools/call") && !answers.contains("initialize") && !answers.contains("ping"),
            "{message}"
        );
    }
    assert_eq!(answers.len(), 17, "one answer per request or batch, none for the notification: {answers:?}");
}

/// Sessions are bounded: with 128 open, a new `initialize` is answered and ends the least
/// recently used session (whose next request gets 404, which tells its client to initialize
/// again); the others go on working, and the count stays at the bound.
#[tokio::test]
async fn http_sessions_are_bounded_by_ending_the_least_recently_used() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let http = Http { client: reqwest::Client::new(), url: server.url("/mcp") };
    let mut sessions = Vec::new();
    for _ in 0..128 {
        sessions.push(http.session().await);
    }
    let ping = r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#;
    // Every session but the second is used again: the second is now the least recently used.
    for (i, session) in sessions.iter().enumerate() {
        if i != 1 {
            let (status, body) = http.post(Some(session), ping).await;
            assert_eq!(status, 200, "{body}");
        }
    }
    let init = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string();
    let (status, body) = http.post(None, &init).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(message_of(&body)["result"]["serverInfo"]["name"], "gasoline", "{body}");
    let (status, _) = http.post(Some(&sessions[1]), ping).await;
    assert_eq!(status, 404, "the least recently used session was ended");
    for i in [0, 2, 127] {
        let (status, body) = http.post(Some(&sessions[i]), ping).await;
        assert_eq!((status, message_of(&body)["result"].clone()), (200, json!({})), "session {i} still answers");
    }
    assert_eq!(server.health().await["mcp_sessions"], 128, "never more than the bound");
    // A deleted session is not one to end: room is made from the least recently used of the open ones.
    assert_eq!(http.delete(&sessions[127]).await, 204);
    let (status, body) = http.post(None, &init).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = http.post(Some(&sessions[0]), ping).await;
    assert_eq!(status, 200, "a session used since is kept while there is room");
}

/// A client of the stateless 2026-07-28 revision (`server/discover`, no `initialize`) is served
/// on both transports, as one of 2025-11-25 is.
#[tokio::test]
async fn a_stateless_revision_client_is_served_on_stdio_and_http() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", vec![json!({"level": "error", "message": "seen by discover", "ts": 1})]).await;
    let http = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url("/mcp"));
    let mut cmd = tokio::process::Command::new(common::BIN);
    cmd.args(["mcp", "--port", &server.port.to_string(), "--db"]).arg(&db.path).env("RUST_LOG", "warn");
    let (stdio, _) =
        rmcp::transport::TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn gasoline mcp");
    for (name, client) in
        [("http", common::Mcp::discovering(http).await), ("stdio", common::Mcp::discovering(stdio).await)]
    {
        assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"), "{name}");
        let answer = client.ok("observe", json!({"what": "logs"})).await;
        assert_eq!(answer["entries"][0]["message"], "seen by discover", "{name}: {answer}");
        // This revision requires resultType in every result: the stdio process is attached to the
        // server, so its configure is answered by the server and forwarded.
        for args in [json!({"action": "mark", "name": name}), json!({"action": "no_such_action"})] {
            let result = client.call("configure", args.clone()).await;
            assert_eq!(result.result_type, Some(rmcp::model::ResultType::COMPLETE), "{name} {args}: {result:?}");
        }
    }
    server.stop();
}

/// Over HTTP, a request of the stateless revision for a method the server lacks, ping and
/// initialize among them (that revision has neither), is told so in words, with the 404 the
/// revision gives it, and the methods it names are the revision's own.
#[tokio::test]
async fn a_stateless_request_for_a_missing_method_says_what_the_server_answers() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let client = reqwest::Client::new();
    for method in ["ping", "initialize", "resources/list"] {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        let answer = client
            .post(server.url("/mcp"))
            .header("accept", ACCEPT)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .json(&body)
            .send()
            .await
            .expect("answer");
        let status = answer.status().as_u16();
        let reply: Value = serde_json::from_str(&answer.text().await.expect("text")).expect("JSON");
        assert_eq!(
            (status, reply["id"].clone(), reply["error"]["code"].clone()),
            (404, json!(9), json!(-32601)),
            "{reply}"
        );
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("tools/call") && message.contains(method), "{method}: {message}");
        let answers = message.split("this server answers").nth(1).unwrap_or_default();
        assert!(!answers.contains("initialize") && !answers.contains("ping"), "{method}: {message}");
    }
    server.stop();
}
