//! A WebSocket connection as one HAR entry, its messages streamed into
//! Chrome's `_webSocketMessages` so that a long conversation is never held whole; an
//! EventSource's (its URL an http one) as the HTTP request it is, its events in
//! `_eventSourceMessages`.

use std::io::Write;

use rusqlite::Connection;
use serde_json::{Value, json};

use super::Item;
use super::entries::{iso, query_string, timings};
use crate::export::Failure;
use crate::kind::WEBSOCKET_EVENTS;
use crate::query::rows::{self, Filter, Socket};

/// One WebSocket connection: the handshake as the request, its messages streamed
/// into `_webSocketMessages` (Chrome's form: type, time in seconds, opcode, data).
pub(super) fn write_socket(
    conn: &Connection,
    filter: &Filter,
    socket: &Socket,
    row: Option<i64>,
    item: &Item,
    pageref: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let time = (socket.last_ts - socket.first_ts).max(0) as f64;
    // An EventSource is an HTTP response that streams: 200, not a protocol switch.
    let stream = item.url.starts_with("http://") || item.url.starts_with("https://");
    let (status, status_text) = match (socket.opened, stream) {
        (false, _) => (0, ""),
        (true, true) => (200, "OK"),
        (true, false) => (101, "Switching Protocols"),
    };
    let mut entry = json!({
        "startedDateTime": iso(item.start),
        "time": time,
        "request": {
            "method": "GET",
            "url": item.url,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [],
            "queryString": query_string(&item.url),
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status,
            "statusText": status_text,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [],
            "content": { "size": 0, "mimeType": if stream { "text/event-stream" } else { "x-unknown" } },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": 0,
        },
        "cache": {},
        "timings": timings(time),
        "_resourceType": if stream { "eventsource" } else { "websocket" },
        "_gasoline": { "tabId": socket.tab, "connectionId": socket.connection_id },
    });
    if let Some(row) = row {
        // The handshake's own row in the waterfall, which this entry stands for.
        entry["_gasoline"]["network_waterfall"] = json!(row);
    }
    if let Some(p) = pageref {
        entry["pageref"] = json!(p);
    }
    let head = entry.to_string();
    out.write_all(head.strip_suffix('}').unwrap_or(&head).as_bytes())?;
    out.write_all(if stream { b",\"_eventSourceMessages\":[" } else { b",\"_webSocketMessages\":[" })?;
    let events = Filter { equals: Some(("connectionId", socket.connection_id.clone())), ..filter.clone() };
    let mut first = true;
    let mut notes: Vec<String> = Vec::new();
    rows::each(conn, &WEBSOCKET_EVENTS, &events, |e| -> Result<(), Failure> {
        let v: Value = serde_json::from_str(&e.json).unwrap_or(Value::Null);
        // A Socket.IO session's packets that came in its long polls, before the upgrade to this
        // socket: they are those polls' bodies, entries of their own.
        if v["transport"] == "polling" {
            return Ok(());
        }
        match v["event"].as_str() {
            Some("message") => {
                let data = match &v["data"] {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                let binary = data.starts_with("[binary ") || data.starts_with("[Blob ");
                let message = if stream {
                    // An event as the page got it: its type (`message` unless the server named one).
                    json!({
                        "time": e.ts as f64 / 1000.0,
                        "eventName": v["eventType"].as_str().unwrap_or("message"),
                        "eventId": v["lastEventId"].as_str().unwrap_or_default(),
                        "data": data,
                    })
                } else {
                    json!({
                        "type": if v["direction"].as_str() == Some("outgoing") { "send" } else { "receive" },
                        "time": e.ts as f64 / 1000.0,
                        "opcode": if binary { 2 } else { 1 },
                        "data": data,
                    })
                };
                let sep: &[u8] = if first { b"" } else { b"," };
                first = false;
                out.write_all(sep)?;
                out.write_all(message.to_string().as_bytes())?;
            }
            Some("close") => notes.push(format!(
                "closed with code {}{}",
                v["code"],
                v["reason"].as_str().filter(|r| !r.is_empty()).map(|r| format!(" ({r})")).unwrap_or_default()
            )),
            Some("error") => notes
                .push(if stream { "an EventSource error event fired" } else { "a WebSocket error event fired" }.into()),
            _ => {}
        }
        Ok(())
    })?;
    out.write_all(b"]")?;
    if !notes.is_empty() {
        write!(out, ",\"comment\":{}", json!(notes.join("; ")))?;
    }
    out.write_all(b"}")?;
    Ok(())
}
