//! What reaches rmcp's `/mcp` service, and how its answers leave, where rmcp
//! strays from the MCP and JSON-RPC specs:
//! - a POSTed JSON body is checked first (`mcp::envelope`): text that is not
//!   JSON or not one JSON-RPC message gets 400 with the JSON-RPC error (rmcp
//!   said 415, "unsupported media type", to a body that was JSON); a request
//!   whose params do not fit, or whose method this server lacks, gets its
//!   JSON-RPC error (-32602, -32601) in an `application/json` answer, once its
//!   session is known to be good (a request for a session that is missing or
//!   gone still gets rmcp's 400 or 404, which tells the client to start over);
//! - a batch (MCP 2025-03-26: a JSON array of messages, which rmcp refuses) is
//!   served message by message through rmcp, and answered with the array of
//!   their answers (202 when none is a request);
//! - `DELETE` of a session that does not exist is 404, as any request naming
//!   an ended session must be (rmcp answers 202 whatever the id);
//! - `DELETE` that ends a session is 204: rmcp's 202 is read as a failure by
//!   the Python SDK ("Session termination failed: 202"), which expects 200 or 204;
//! - past `MAX_SESSIONS` open (128), an `initialize` ends the least recently used
//!   session (`mcp_sessions`) instead of growing the server;
//! - `Accept: */*` counts as accepting JSON and event streams (rmcp said 406);
//! - a refusal of the transport's (a session missing or gone, 406, 413, 415...)
//!   is a JSON-RPC error in a JSON body, as every other answer, with its status
//!   kept (clients tell a session gone by its 404); rmcp wrote plain text;
//! - a message body is at most `MAX_MESSAGE_BYTES` (1 MiB: observe's and configure's
//!   calls are a few hundred bytes) and takes room in the decoding budget ingest
//!   uses (`body::Decoding`) until it is answered: the gate and rmcp each decode
//!   it, and 10 MiB of `[0,0,…]` took 1.6 GB to serve before.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header, request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::ErrorCode;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;

use super::body::{self, BODY_READ_TIMEOUT, Decoding};
use super::error::ApiError;
use super::mcp_sessions::Sessions;
use crate::mcp::GasolineMcp;
use crate::mcp::envelope::{self, Batch, Refusal};

/// What the gate needs: the sessions that exist, and the service itself for a batch's messages.
#[derive(Clone)]
pub struct Gate {
    pub sessions: Sessions,
    pub mcp: StreamableHttpService<GasolineMcp, LocalSessionManager>,
    pub decoding: Arc<Decoding>,
}

/// The largest body of one POSTed message or batch.
pub const MAX_MESSAGE_BYTES: usize = 1024 * 1024;

const SESSION_HEADER: &str = "mcp-session-id";
/// The methods `/mcp` takes.
const TAKES: &str = "GET, POST, DELETE";

pub async fn gate(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    accept_anything_as_both(&mut request);
    as_json_rpc(gated(gate, request, next).await).await
}

async fn gated(gate: Gate, request: Request, next: Next) -> Response {
    if request.method() == Method::OPTIONS {
        // Asked what it takes (the extension's CORS preflight is answered before, in `guard`),
        // as every other route answers it.
        return super::options(TAKES);
    }
    let session = session_of(&request);
    // Whether the session the request names exists, looked up once.
    let known = match &session {
        Some(id) => gate.sessions.knows(id).await,
        None => false,
    };
    if let (Some(id), true) = (&session, known) {
        gate.sessions.touch(id);
    }
    if request.method() == Method::DELETE {
        let Some(id) = &session else { return next.run(request).await };
        if !known {
            return session_gone();
        }
        gate.sessions.forget(id);
        let response = next.run(request).await;
        if response.status() == StatusCode::ACCEPTED {
            return StatusCode::NO_CONTENT.into_response();
        }
        return response;
    }
    if ![Method::GET, Method::POST].contains(request.method()) {
        // As every other route refuses a method it does not take, `Allow` naming `OPTIONS` too.
        return super::wrong_method(TAKES, request.method().clone(), request.uri().clone()).await;
    }
    if request.method() != Method::POST || !is_json(&request) {
        return next.run(request).await; // rmcp says what is wrong with the content type, or serves the stream
    }
    let (parts, body) = request.into_parts();
    let too_large =
        || ApiError::TooLarge(format!("request body is over {} MiB; send smaller messages", MAX_MESSAGE_BYTES >> 20));
    // Refused from its headers when it says it is too large or compressed, as ingest does (413,
    // 415); the rest of it is read and dropped for a while so that a client still sending reads
    // the answer.
    let body = match body::admit(&parts.headers, body, MAX_MESSAGE_BYTES, too_large) {
        Ok((body, _)) => body,
        Err(refused) => return in_words(refused),
    };
    // A client that stops sending mid-body is not waited for forever: as ingest, 408 after the deadline.
    let bytes = match tokio::time::timeout(BODY_READ_TIMEOUT, axum::body::to_bytes(body, MAX_MESSAGE_BYTES)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return in_words(too_large()),
        Err(_) => return (StatusCode::REQUEST_TIMEOUT, body::late_message()).into_response(),
    };
    // Room for what decoding it builds, held until it is answered (413 or 503 as ingest's).
    let _room = match gate.decoding.room_for(&bytes).await {
        Ok(room) => room,
        // JSON this server cannot read (nested past its limit): a parse error, as over stdio.
        Err(ApiError::BadRequest(why)) => {
            let refusal = Refusal {
                id: None,
                method: None,
                code: ErrorCode::PARSE_ERROR,
                message: format!("parse error: {why}: send one JSON-RPC 2.0 message as JSON"),
            };
            return answer(StatusCode::BAD_REQUEST, &refusal);
        }
        Err(refused) => return in_words(refused),
    };
    // Half an emoji (a lone surrogate escape, as JavaScript's JSON.stringify writes one) costs
    // that character (U+FFFD), not the message: serde_json, and so rmcp, would refuse it whole.
    let bytes = crate::surrogates::mended(bytes);
    if let Some(items) = envelope::batch(&bytes) {
        return match &session {
            // A batch opening the session is the mistake to name: initialize must come alone.
            None if items.iter().any(|item| {
                matches!(envelope::check(item), Ok(envelope::Message::Request { method, .. }) if method == "initialize")
            }) =>
            {
                (StatusCode::BAD_REQUEST, "Bad Request: initialize must be sent alone, not in a batch").into_response()
            }
            None => (StatusCode::BAD_REQUEST, "Bad Request: Session ID is required").into_response(),
            Some(_) if !known => session_gone(),
            Some(_) => serve_batch(&gate.mcp, &parts, Batch::of(items)).await,
        };
    }
    // A request of the stateless revision (2026-07-28 and after): no session, its version in a header.
    let stateless = session.is_none()
        && parts
            .headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|version| version > LAST_SESSION_REVISION);
    let checked = if stateless { envelope::check_stateless(&bytes) } else { envelope::check(&bytes) };
    let opens = session.is_none()
        && matches!(&checked, Ok(envelope::Message::Request { method, .. }) if method == "initialize");
    if opens {
        // Each session holds memory until it ends: a client that starts one per call would grow
        // the server without bound, so the least recently used one makes room.
        gate.sessions.make_room().await;
    }
    if let Err(refusal) = checked {
        if !refusal.is_of_a_request() {
            return answer(StatusCode::BAD_REQUEST, &refusal);
        }
        // An initialize opens a session, so its refusal is answered as one; not in the stateless
        // revision, which has no initialize: there it is a missing method like any other.
        let session_good = match &session {
            Some(_) => known,
            None => !stateless && refusal.method.as_deref() == Some("initialize"),
        };
        if session_good {
            return answer(StatusCode::OK, &refusal);
        }
        if stateless {
            // That revision answers an unknown method with 404 (as rmcp does for it), with our words.
            let status =
                if refusal.code == ErrorCode::METHOD_NOT_FOUND { StatusCode::NOT_FOUND } else { StatusCode::OK };
            return answer(status, &refusal);
        }
        // Left to rmcp, which tells the client its session is missing or gone.
    }
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    if opens && let Some(id) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
        gate.sessions.touch(id);
    }
    response
}

/// A refusal of ingest's with its status and headers (Retry-After on a 503) and its words as plain
/// text, which [`as_json_rpc`] makes the JSON-RPC error's message, as every refusal on `/mcp`.
fn in_words(refused: ApiError) -> Response {
    let message = refused.to_string();
    let (mut parts, _) = refused.into_response().into_parts();
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(message))
}

/// What rmcp answers a request naming a session that does not exist (any more).
fn session_gone() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// A client whose `Accept` takes JSON and event streams through ranges (`*/*`, `application/*,
/// text/*`) accepts both, which rmcp wants named.
fn accept_anything_as_both(request: &mut Request) {
    let ranges: Vec<String> = request
        .headers()
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::to_owned)
        .collect();
    if accepts(&ranges, "application", "json") && accepts(&ranges, "text", "event-stream") {
        let both = header::HeaderValue::from_static("application/json, text/event-stream");
        request.headers_mut().insert(header::ACCEPT, both);
    }
}

/// Whether one of `ranges` (an `Accept` header's items) takes `ty/sub`: the type itself, its
/// `ty/*` or `*/*`, and not with `q=0` (RFC 9110 §12.5.1).
fn accepts(ranges: &[String], ty: &str, sub: &str) -> bool {
    ranges.iter().any(|range| {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.trim()
                .split_once('=')
                .is_some_and(|(k, v)| k.trim() == "q" && v.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
        });
        let matches = media == "*/*" || media == format!("{ty}/*") || media == format!("{ty}/{sub}");
        matches && !refused
    })
}

/// Longest refusal text of rmcp's turned into a JSON-RPC error (its refusals are a line or two).
const MAX_REFUSAL_BYTES: usize = 4096;

/// A refusal (4xx, 5xx) in plain text as a JSON-RPC error with the same status; anything else as it was.
async fn as_json_rpc(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MAX_REFUSAL_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    // As the TypeScript SDK's server answers them: -32001 for a session that is gone, -32000 else.
    let code = if status == StatusCode::NOT_FOUND { -32001 } else { -32000 };
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("refused").to_owned() } else { text };
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    parts.headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body.to_string()))
}

fn session_of(request: &Request) -> Option<String> {
    request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn is_json(request: &Request) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("application/json"))
}

/// The last revision with sessions (`initialize`, `Mcp-Session-Id`); those after are stateless.
const LAST_SESSION_REVISION: &str = "2025-11-25";

fn answer(status: StatusCode, refusal: &Refusal) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], refusal.to_line()).into_response()
}

/// Each message of `batch` through rmcp as if posted alone, on the batch's headers; the answers
/// together (with the refusals), or the first answer that is not one (a session gone meanwhile).
async fn serve_batch(
    mcp: &StreamableHttpService<GasolineMcp, LocalSessionManager>,
    parts: &request::Parts,
    batch: Batch,
) -> Response {
    let Batch { forward, waiting, mut answers } = batch;
    for message in forward {
        let mut one = Request::new(Body::from(message));
        *one.method_mut() = parts.method.clone();
        *one.uri_mut() = parts.uri.clone();
        *one.headers_mut() = parts.headers.clone();
        let reply = mcp.handle(one).await;
        let status = reply.status();
        let Ok(body) = reply.into_body().collect().await.map(|b| b.to_bytes());
        match status {
            StatusCode::ACCEPTED => {}
            StatusCode::OK => answers.extend(messages_in(&body).filter(|m| waiting.contains(&m["id"]))),
            _ => return (status, body).into_response(),
        }
    }
    if answers.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], Value::Array(answers).to_string()).into_response()
}

/// The JSON-RPC messages of an answer, whether it came as JSON or as Server-Sent Events.
fn messages_in(body: &Bytes) -> impl Iterator<Item = Value> + '_ {
    let text = std::str::from_utf8(body).unwrap_or("");
    let whole = serde_json::from_str::<Value>(text).ok();
    let events =
        text.lines().filter_map(|l| l.strip_prefix("data:")).filter_map(|d| serde_json::from_str(d.trim()).ok());
    whole.into_iter().chain(events).filter(|m: &Value| m.get("id").is_some())
}
