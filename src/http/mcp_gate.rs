//! What reaches rmcp's `/mcp` service, and how its answers leave, where rmcp
//! strays from the MCP and JSON-RPC specs:
//! - a POSTed JSON body is checked first (`mcp::envelope`): text that is not
//!   JSON or not one JSON-RPC message gets 400 with the JSON-RPC error (rmcp
//!   said 415, "unsupported media type", to a body that was JSON); a request
//!   whose params do not fit, or whose method this server lacks, gets its
//!   JSON-RPC error (-32602, -32601) in an `application/json` answer, once its
//!   session is known to be good (a request for a session that is missing or
//!   gone still gets rmcp's 400 or 404, which tells the client to start over);
//! - `DELETE` of a session that does not exist is 404, as any request naming
//!   an ended session must be (rmcp answers 202 whatever the id);
//! - `DELETE` that ends a session is 204: rmcp's 202 is read as a failure by
//!   the Python SDK ("Session termination failed: 202"), which expects 200 or 204.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::MAX_BODY_BYTES;
use crate::mcp::envelope::{self, Refusal};

const SESSION_HEADER: &str = "mcp-session-id";

pub async fn gate(State(sessions): State<Arc<LocalSessionManager>>, request: Request, next: Next) -> Response {
    if request.method() == Method::DELETE {
        if let Some(id) = session_of(&request)
            && !sessions.sessions.read().await.contains_key(id.as_str())
        {
            return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
        }
        let response = next.run(request).await;
        if response.status() == StatusCode::ACCEPTED {
            return StatusCode::NO_CONTENT.into_response();
        }
        return response;
    }
    if request.method() != Method::POST || !is_json(&request) {
        return next.run(request).await; // rmcp says what is wrong with the method or the content type
    }
    let session = session_of(&request);
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        let too_large = format!("request body is over {} MiB; send smaller messages", MAX_BODY_BYTES >> 20);
        return (StatusCode::PAYLOAD_TOO_LARGE, too_large).into_response();
    };
    if let Err(refusal) = envelope::check(&bytes) {
        let session_good = match &session {
            Some(id) => sessions.sessions.read().await.contains_key(id.as_str()),
            None => refusal.method.as_deref() == Some("initialize"),
        };
        if !refusal.is_of_a_request() {
            return answer(StatusCode::BAD_REQUEST, &refusal);
        }
        if session_good {
            return answer(StatusCode::OK, &refusal);
        }
        // Left to rmcp, which tells the client its session is missing or gone.
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
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

fn answer(status: StatusCode, refusal: &Refusal) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], refusal.to_line()).into_response()
}
