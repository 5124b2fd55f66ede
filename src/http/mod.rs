//! The HTTP server: ingest, health, and MCP over streamable HTTP at `/mcp`.
//! Handlers translate between the wire and the store; they hold no SQL.

mod error;
mod guard;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http_body_util::BodyExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::ingest::{self, Limits};
use crate::kind;
use crate::mcp::GasolineMcp;
use crate::store::{Batch, BatchKey, Outcome, Store, batch_keys, now_ms, sql};
pub use error::ApiError;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// Longest wait for a request body once it has room in the pending budget.
const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Most bytes of an oversized body read (and dropped) before answering 413.
const DRAIN_BYTES: usize = 256 * 1024 * 1024;
/// Bodies larger than this are decoded off the async runtime.
const DECODE_INLINE_BYTES: usize = 64 * 1024;

#[derive(Clone)]
struct AppState {
    store: Store,
    limits: Limits,
}

/// The whole HTTP app for a server bound to `port`.
pub fn router(store: Store, limits: Limits, port: u16, shutdown: CancellationToken) -> Router {
    let mcp_store = store.clone();
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
        .with_cancellation_token(shutdown);
    config.max_request_body_bytes = MAX_BODY_BYTES;
    let mcp = StreamableHttpService::new(
        move || Ok(GasolineMcp::new(mcp_store.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mcp = Router::new().nest_service("/mcp", mcp).layer(axum::middleware::from_fn(session_end_no_content));
    Router::new()
        .route("/events/{kind}", post(post_events))
        .route("/health", get(health))
        .with_state(AppState { store, limits })
        .merge(mcp)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(guard::Allowed::for_port(port), guard::guard))
}

/// rmcp answers the `DELETE` that ends an MCP session with 202, which the
/// Python SDK reports as "Session termination failed: 202" (it expects 200 or
/// 204). The session is gone either way: say so in the form every client reads
/// as success.
async fn session_end_no_content(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let is_delete = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if is_delete && response.status() == axum::http::StatusCode::ACCEPTED {
        return axum::http::StatusCode::NO_CONTENT.into_response();
    }
    response
}

/// What a `POST /events/{name}` writes to.
enum Target {
    Tabs,
    Vitals,
    Events(&'static kind::Kind),
}

/// The request header naming a batch, so that sending it again stores it once.
const IDEMPOTENCY_KEY: &str = "idempotency-key";
/// The reply header saying a batch was stored before and this is its first answer.
const REPLAYED: &str = "idempotent-replayed";

async fn post_events(
    State(state): State<AppState>,
    Path(kind_name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let target = match kind_name.as_str() {
        "tabs" => Target::Tabs,
        "vitals" => Target::Vitals,
        name => Target::Events(kind::by_name(name).ok_or_else(|| ApiError::UnknownKind(name.to_owned()))?),
    };
    let key = batch_key(&headers)?;
    // Room in the pending-writes budget comes before the body is read, so waiting
    // requests hold no more memory than the budget, however many clients wait.
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        // Read it away (keeping nothing), so the client gets the 413 rather than a reset.
        read_body(body, 0).await?;
        return Err(too_large());
    }
    let admission = state.store.admit(declared.unwrap_or(MAX_BODY_BYTES).max(1)).await?;
    // The admission is held while the body arrives: a stalled upload must not keep it.
    let body =
        tokio::time::timeout(BODY_READ_TIMEOUT, read_body(body, declared.unwrap_or(0))).await.map_err(|_| {
            ApiError::Timeout(format!(
                "the request body did not arrive within {} s; send it in one go",
                BODY_READ_TIMEOUT.as_secs()
            ))
        })??;
    let limits = state.limits;
    let now = now_ms();
    let (batch, key) = decode(body, move |b| {
        let key = key.and_then(|k| BatchKey::new(&k, &kind_name, &b));
        let batch = match target {
            Target::Tabs => Batch::Tabs(ingest::decode_tabs(&b, &limits)?),
            Target::Vitals => Batch::Vitals(ingest::decode_vitals(&b, &limits)?),
            Target::Events(kind) => Batch::Events(kind, ingest::decode_events(kind, &b, &limits, now)?),
        };
        Ok((batch, key))
    })
    .await?;
    match state.store.write_batch(batch, key, admission).await? {
        Outcome::Stored { status, body } => Ok(answer(status, body, false)),
        Outcome::Replayed { status, body } => Ok(answer(status, body, true)),
        Outcome::Conflict { target } => Err(ApiError::Conflict(format!(
            "this Idempotency-Key was used for another batch (posted to {target}); give every batch its own key"
        ))),
    }
}

/// The batch's `Idempotency-Key`, if it has one; a key that cannot be one is refused.
fn batch_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else { return Ok(None) };
    let refuse = || {
        ApiError::BadRequest(format!(
            "Idempotency-Key must be 1 to {} visible ASCII characters (no spaces)",
            batch_keys::MAX_KEY_LEN
        ))
    };
    let key = value.to_str().map_err(|_| refuse())?;
    // Validated here, before the body is read; the digest is taken with the body.
    BatchKey::new(key, "", b"").ok_or_else(refuse)?;
    Ok(Some(key.to_owned()))
}

/// A stored answer as the HTTP reply it was (or is again, when `replayed`).
fn answer(status: u16, body: String, replayed: bool) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    if replayed {
        response.headers_mut().insert(REPLAYED, HeaderValue::from_static("true"));
    }
    response
}

fn too_large() -> ApiError {
    ApiError::TooLarge(format!("request body is over {} MiB; send smaller batches", MAX_BODY_BYTES >> 20))
}

/// Reads the whole body, at most [`MAX_BODY_BYTES`]. A longer body is read on
/// (up to [`DRAIN_BYTES`]) and dropped, so the client is still reading when the
/// 413 comes instead of finding the connection reset under its upload.
async fn read_body(mut body: Body, expected: usize) -> Result<Bytes, ApiError> {
    let mut kept = Vec::with_capacity(expected.min(MAX_BODY_BYTES));
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::BadRequest(format!("could not read the request body: {e}")))?;
        let Ok(data) = frame.into_data() else { continue };
        seen = seen.saturating_add(data.len());
        if seen <= MAX_BODY_BYTES {
            kept.extend_from_slice(&data);
        } else if seen > DRAIN_BYTES {
            break;
        } else if !kept.is_empty() {
            kept = Vec::new();
        }
    }
    if seen > MAX_BODY_BYTES {
        return Err(too_large());
    }
    Ok(Bytes::from(kept))
}

/// Decodes small bodies inline and large ones on the blocking pool.
async fn decode<T: Send + 'static>(
    body: Bytes,
    f: impl FnOnce(Bytes) -> Result<T, ingest::IngestError> + Send + 'static,
) -> Result<T, ApiError> {
    if body.len() <= DECODE_INLINE_BYTES {
        return Ok(f(body)?);
    }
    tokio::task::spawn_blocking(move || f(body))
        .await
        .map_err(|e| ApiError::Internal(format!("decoder failed: {e}")))?
        .map_err(ApiError::from)
}

async fn health(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let path = state.store.path().display().to_string();
    let kinds = state
        .store
        .read(|conn| kind::KINDS.iter().map(|k| sql::kind_stats(conn, k)).collect::<Result<Vec<_>, _>>())
        .await?;
    let kinds: serde_json::Map<String, Value> = kinds.into_iter().map(|s| (s.kind.to_owned(), json!(s))).collect();
    Ok(Json(json!({
        "service": "gasoline",
        "version": env!("CARGO_PKG_VERSION"),
        "db": path,
        "kinds": kinds,
    })))
}
