//! Helpers of the `tests/cli_*.rs` tests: running a person-facing command of the
//! real binary, and a realistic capture fed over HTTP (the shapes
//! extension/page/capture.js builds).
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::common::{BIN, Server};

/// What a finished command printed.
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `gasoline <args>` to its end, with no GASOLINE_* from the environment.
pub fn gasoline(args: &[&str]) -> Ran {
    gasoline_env(args, &[])
}

pub fn gasoline_env(args: &[&str], env: &[(&str, &str)]) -> Ran {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env_remove("GASOLINE_DB").env_remove("GASOLINE_PORT").env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let Output { status, stdout, stderr } =
        cmd.stdin(Stdio::null()).output().unwrap_or_else(|e| panic!("run gasoline {args:?}: {e}"));
    Ran {
        code: status.code(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// `gasoline <args>` that must succeed; its stdout.
pub fn ok(args: &[&str]) -> String {
    let ran = gasoline(args);
    assert_eq!(ran.code, Some(0), "gasoline {args:?} failed: {}", ran.stderr);
    ran.stdout
}

/// `gasoline <args>` that must fail with one line on stderr naming `expected`.
pub fn fails(args: &[&str], expected: &str) -> String {
    let ran = gasoline(args);
    assert!(ran.code.is_some_and(|c| c != 0), "gasoline {args:?} should fail: {}{}", ran.stdout, ran.stderr);
    let first = ran.stderr.lines().next().unwrap_or_default();
    assert!(first.contains(expected), "gasoline {args:?}: expected {expected:?} in {:?}", ran.stderr);
    assert_eq!(ran.stderr.lines().count(), 1, "gasoline {args:?}: one line, not {:?}", ran.stderr);
    assert!(ran.stdout.is_empty(), "nothing on stdout: {}", ran.stdout);
    ran.stderr
}

pub fn db_arg(db: &Path) -> String {
    db.display().to_string()
}

/// Base time of the capture (ms).
pub const T0: i64 = 1_763_900_000_000;

/// What [`feed`] stored: ids per kind.
#[derive(Debug, Default)]
pub struct Fed {
    pub ids: Vec<(&'static str, i64)>,
}

impl Fed {
    pub fn of(&self, kind: &str) -> Vec<i64> {
        self.ids.iter().filter(|(k, _)| *k == kind).map(|(_, id)| *id).collect()
    }
}

/// One page load of tab 7 at http://app.test/ (navigation, a script, an image,
/// three fetches of which one also has its resource-timing row, an XHR with a cut
/// body, a failed fetch, a WebSocket), console output, actions and an extension log.
pub async fn feed(server: &Server) -> Fed {
    let mut fed = Fed::default();
    let (status, _) =
        server.post("tabs", &json!({"entries": [{"tabId": 7, "url": "http://app.test/", "title": "App"}]})).await;
    assert_eq!(status, 200);
    let batches: Vec<(&'static str, Vec<Value>)> = vec![
        (
            "actions",
            vec![
                json!({"tabId": 7, "ts": T0, "type": "navigate", "how": "load", "url": "http://app.test/"}),
                json!({"tabId": 7, "ts": T0 + 900, "type": "click", "selector": "button#save", "text": "Save", "url": "http://app.test/"}),
                // An iframe of the page loading: its own navigation, not a page of the tab.
                json!({"tabId": 7, "ts": T0 + 500, "type": "navigate", "how": "load", "url": "http://app.test/frame.html",
                       "frameId": 3, "frameUrl": "http://app.test/frame.html"}),
            ],
        ),
        (
            "network_waterfall",
            vec![
                json!({"tabId": 7, "ts": T0 + 300, "url": "http://app.test/", "initiatorType": "navigation", "startTime": 0,
                   "duration": 290.5, "transferSize": 2300, "encodedBodySize": 2000, "decodedBodySize": 5000,
                   "nextHopProtocol": "http/1.1", "responseStatus": 200}),
                json!({"tabId": 7, "ts": T0 + 400, "url": "http://app.test/app.js", "initiatorType": "script", "startTime": 50,
                   "duration": 80.0, "transferSize": 10300, "encodedBodySize": 10000, "decodedBodySize": 30000,
                   "nextHopProtocol": "h2", "responseStatus": 200}),
                json!({"tabId": 7, "ts": T0 + 450, "url": "http://app.test/logo.png", "initiatorType": "img", "startTime": 60,
                   "duration": 20.0, "transferSize": 0, "encodedBodySize": 700, "decodedBodySize": 700}),
                json!({"tabId": 7, "ts": T0 + 1_050, "url": "http://app.test/api/items?token=%5Bredacted%5D&q=1",
                   "initiatorType": "fetch", "startTime": 1000, "duration": 40.0, "transferSize": 450,
                   "encodedBodySize": 150, "decodedBodySize": 150, "nextHopProtocol": "h2", "responseStatus": 200}),
            ],
        ),
        (
            "network_bodies",
            vec![
                // Relative, as the page wrote it; its resource-timing row has the absolute URL.
                json!({"tabId": 7, "ts": T0 + 1_045, "method": "GET", "url": "/api/items?token=%5Bredacted%5D&q=1",
                   "initiator": "fetch", "duration": 38.0, "status": 200, "statusText": "OK",
                   "requestHeaders": {"authorization": "[redacted]", "accept": "application/json"},
                   "responseHeaders": {"content-type": "application/json", "set-cookie": "[redacted]"},
                   "contentType": "application/json", "responseBody": "{\"items\":[1,2,3],\"password\":\"[redacted]\"}"}),
                json!({"tabId": 7, "ts": T0 + 1_200, "method": "POST", "url": "http://app.test/api/save",
                   "initiator": "fetch", "duration": 120.0, "status": 500, "statusText": "Internal Server Error",
                   "requestHeaders": {"content-type": "application/json"},
                   "requestBody": "{\"name\":\"x\",\"token\":\"[redacted]\"}",
                   "responseHeaders": {"content-type": "text/plain"}, "contentType": "text/plain",
                   "responseBody": "boom"}),
                json!({"tabId": 7, "ts": T0 + 1_300, "method": "GET", "url": "http://app.test/api/big",
                   "initiator": "xhr", "duration": 60.0, "status": 200, "statusText": "OK",
                   "requestHeaders": {}, "responseHeaders": {"content-type": "text/plain"}, "contentType": "text/plain",
                   "responseBody": "y".repeat(100), "responseBodyTruncated": true, "responseBodySize": 250_000}),
                json!({"tabId": 7, "ts": T0 + 1_400, "method": "GET", "url": "http://down.test/x",
                   "initiator": "fetch", "duration": 5.0, "requestHeaders": {}, "error": "TypeError: Failed to fetch"}),
                json!({"tabId": 7, "ts": T0 + 1_500, "method": "POST", "url": "http://app.test/form",
                   "initiator": "fetch", "duration": 15.0, "status": 302, "statusText": "Found",
                   "requestHeaders": {"content-type": "application/x-www-form-urlencoded"},
                   "requestBody": "a=1&b=two", "responseHeaders": {"location": "/done"},
                   "responseBody": "[image/png 1234 bytes not captured]"}),
            ],
        ),
        (
            "websocket_events",
            vec![
                json!({"tabId": 7, "ts": T0 + 2_000, "connectionId": "ab12-1", "event": "open", "url": "ws://app.test/live", "protocol": ""}),
                json!({"tabId": 7, "ts": T0 + 2_010, "connectionId": "ab12-1", "event": "message", "direction": "outgoing",
                   "url": "ws://app.test/live", "data": "{\"sub\":\"news\"}", "size": 14}),
                json!({"tabId": 7, "ts": T0 + 2_050, "connectionId": "ab12-1", "event": "message", "direction": "incoming",
                   "url": "ws://app.test/live", "data": "[binary 16 bytes]", "size": 16}),
                json!({"tabId": 7, "ts": T0 + 2_500, "connectionId": "ab12-1", "event": "close", "url": "ws://app.test/live",
                   "code": 1000, "reason": "bye", "wasClean": true}),
            ],
        ),
        (
            "logs",
            vec![
                json!({"tabId": 7, "ts": T0 + 100, "level": "info", "message": "booting", "source": "console"}),
                json!({"tabId": 7, "ts": T0 + 1_250, "level": "error", "message": "save failed: 500", "source": "console"}),
                json!({"tabId": 8, "ts": T0 + 1_260, "level": "warn", "message": "slow tab 8", "source": "console"}),
            ],
        ),
        ("extension_logs", vec![json!({"tabId": null, "ts": T0 + 5, "level": "warn", "message": "retrying delivery"})]),
    ];
    for (kind, entries) in batches {
        let (first, last) = server.ingest(kind, entries).await;
        fed.ids.extend((first..=last).map(|id| (kind, id)));
    }
    fed
}
