//! The HTTP server: ingest, the extension's capture state (`PUT /capture`), health,
//! and MCP over streamable HTTP at `/mcp`.
//! Handlers translate between the wire and the store; they hold no SQL.

mod body;
mod error;
mod guard;
mod mcp_gate;
mod mcp_sessions;
mod pairing;
pub mod serve;

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::capture;
use crate::ingest::{self, Limits};
use crate::kind;
use crate::mcp::GasolineMcp;
use crate::store::{Batch, BatchKey, Outcome, Store, batch_keys, now_ms, sql};
pub use body::MAX_BODY_BYTES;
pub use error::ApiError;
pub use pairing::valid_id as valid_extension_id;

/// Bodies larger than this are decoded off the async runtime.
const DECODE_INLINE_BYTES: usize = 64 * 1024;

/// How the HTTP server runs, beyond the store.
#[derive(Debug, Clone)]
pub struct Options {
    pub limits: Limits,
    /// The one extension id accepted (`--extension-id`); None = the recorded one, or the first to connect.
    pub extension_id: Option<String>,
    /// How long an idle MCP session over HTTP lives.
    pub session_keep_alive: Duration,
}

#[derive(Clone)]
struct AppState {
    store: Store,
    limits: Limits,
    decoding: Arc<body::Decoding>,
    pairing: Arc<pairing::Pairing>,
    sessions: Arc<LocalSessionManager>,
    /// Resolves the frames of stored logs entries through source maps, after they are stored.
    sourcemaps: crate::sourcemap::Resolver,
}

/// The whole HTTP app for a server bound to `port`.
pub fn router(store: Store, options: Options, port: u16, shutdown: CancellationToken) -> Router {
    let mcp_store = store.clone();
    let shutdown_viewer = shutdown.clone();
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
        // No priming event (an empty `data:` that MCP 2025-11-25 added for resuming a stream):
        // clients of 2025-06-18 and 2025-03-26 read every SSE event as a message and trip on it,
        // and with no event store here there is nothing to resume.
        .with_sse_retry(None)
        .with_cancellation_token(shutdown);
    config.max_request_body_bytes = mcp_gate::MAX_MESSAGE_BYTES;
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_keep_alive);
    sessions.session_config.sse_retry = None; // no priming event on a request's stream either (above)
    let sessions = Arc::new(sessions);
    let mcp = StreamableHttpService::new(
        move || Ok(GasolineMcp::new(mcp_store.clone()).with_viewer(crate::viewer::Address::at(port))),
        sessions.clone(),
        config,
    );
    // Decoding gets a budget as large as the pending-writes one; MCP messages decode within it too.
    let decoding = Arc::new(body::Decoding::new(store.max_pending(), crate::store::DEFAULT_BUSY_WAIT));
    let gate = mcp_gate::Gate {
        sessions: mcp_sessions::Sessions::new(sessions.clone()),
        mcp: mcp.clone(),
        decoding: decoding.clone(),
    };
    let mcp = Router::new().nest_service("/mcp", mcp).layer(axum::middleware::from_fn_with_state(gate, mcp_gate::gate));
    let pairing = Arc::new(pairing::Pairing::new(store.clone(), options.extension_id));
    let allowed = guard::Allowed::new(port, pairing.clone());
    let sourcemaps = crate::sourcemap::Resolver::start(store.clone(), port);
    let viewer = crate::viewer::router(store.clone(), port, shutdown_viewer);
    Router::new()
        .route("/events/{kind}", post(post_events).fallback(|m, u| wrong_method("POST", m, u)))
        .route("/capture", put(put_capture).fallback(|m, u| wrong_method("PUT", m, u)))
        .route("/health", get(health).fallback(|m, u| wrong_method("GET", m, u)))
        .with_state(AppState { decoding, pairing, store, limits: options.limits, sessions, sourcemaps })
        .merge(mcp)
        .merge(viewer)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(allowed, guard::guard))
}

/// What a `POST /events/{name}` writes to.
#[derive(Clone, Copy)]
enum Target {
    Tabs,
    Vitals,
    Events(&'static kind::Kind),
}

/// The request header naming a batch, so that sending it again stores it once.
const IDEMPOTENCY_KEY: &str = "idempotency-key";
/// The reply header saying a batch was stored before and this is its first answer.
const REPLAYED: &str = "idempotent-replayed";

/// A route asked with a method it does not take: 405 with `Allow`, said in JSON like every refusal.
/// `OPTIONS` is one it takes (the extension's CORS preflight is answered in `guard`); asked
/// without an extension's Origin it answers 204 with `Allow` alone.
async fn wrong_method(takes: &'static str, method: axum::http::Method, uri: axum::http::Uri) -> Response {
    if method == axum::http::Method::OPTIONS {
        return options(takes);
    }
    let message = format!("{} takes {takes}, not {method}", uri.path());
    (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, allowed(takes))], Json(json!({ "error": message })))
        .into_response()
}

/// What a route that takes `takes` answers an `OPTIONS` without an extension's Origin: 204 with `Allow`.
fn options(takes: &str) -> Response {
    (StatusCode::NO_CONTENT, [(header::ALLOW, allowed(takes))]).into_response()
}

/// A route's `Allow`: what it takes, and `OPTIONS` (the extension's preflight).
fn allowed(takes: &str) -> String {
    format!("{takes}, OPTIONS")
}

async fn post_events(
    State(state): State<AppState>,
    kind: Result<Path<String>, axum::extract::rejection::PathRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Ok(Path(kind_name)) = kind else {
        return ApiError::BadRequest("the kind in the path is not valid UTF-8 text".into()).into_response();
    };
    let (body, declared) = match body::admit(&headers, body, MAX_BODY_BYTES, body::too_large) {
        Ok(admitted) => admitted,
        // Refused from its headers alone: the connection then closes, so a client that stalls
        // after declaring 11 MiB holds nothing.
        Err(refused) => return closing(refused),
    };
    handled(ingest_body(state, kind_name, &headers, body, declared).await)
}

/// The response to a body's handling: a body found too large while read closes the connection
/// (whatever of it was not read is not read on).
fn handled(result: Result<Response, ApiError>) -> Response {
    match result {
        Ok(response) => response,
        Err(e @ ApiError::TooLarge(_)) => closing(e),
        Err(e) => e.into_response(),
    }
}

/// A refusal after which the server closes the connection.
fn closing(refusal: ApiError) -> Response {
    let mut response = refusal.into_response();
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

async fn ingest_body(
    state: AppState,
    kind_name: String,
    headers: &HeaderMap,
    body: Body,
    declared: Option<usize>,
) -> Result<Response, ApiError> {
    let target = match kind_name.as_str() {
        "tabs" => Target::Tabs,
        "vitals" => Target::Vitals,
        name => Target::Events(kind::by_name(name).ok_or_else(|| ApiError::UnknownKind(name.to_owned()))?),
    };
    let key = batch_key(headers)?;
    // Room in the pending-writes budget comes before the body is read (body.rs).
    let body::Admitted { body, admission } = body::read(&state.store, body, declared).await?;
    // Room to decode is held while decoding only: the rows that come out are about the
    // size of the body, for which the admission holds room until they are stored.
    let decoding = state.decoding.room_for(&body).await?;
    let limits = state.limits;
    let now = now_ms();
    let (batch, key, wanted) = decode(body, move |b| {
        let key = key.and_then(|k| BatchKey::new(&k, &kind_name, &b));
        let mut wanted = Vec::new();
        let batch = match target {
            Target::Tabs => Batch::Tabs(ingest::decode_tabs(&b, &limits)?),
            Target::Vitals => Batch::Vitals(ingest::decode_vitals(&b, &limits)?),
            Target::Events(kind) => {
                let rows = ingest::decode_events(kind, &b, &limits, now)?;
                wanted = crate::sourcemap::wanted(kind, &rows);
                Batch::Events(kind, rows)
            }
        };
        Ok::<_, ingest::IngestError>((batch, key, wanted))
    })
    .await?;
    drop(decoding);
    match state.store.write_batch(batch, key, admission).await? {
        Outcome::Stored { status, body } => {
            // Committed and about to be acknowledged: frames are resolved in the background.
            if let (Some(first_id), Target::Events(kind)) = (first_id(&body), target) {
                state.sourcemaps.submit(kind, first_id, wanted);
            }
            Ok(answer(status, body, false))
        }
        Outcome::Replayed { status, body } => Ok(answer(status, body, true)),
        Outcome::Conflict { target } => Err(ApiError::Conflict(format!(
            "this Idempotency-Key was used for another batch (posted to {target}); give every batch its own key"
        ))),
    }
}

/// The first id of a stored events batch, from its answer (`{"accepted":n,"first_id":…}`).
fn first_id(answer: &str) -> Option<i64> {
    serde_json::from_str::<Value>(answer).ok()?.get("first_id")?.as_i64()
}

/// The batch's `Idempotency-Key`, if it has one; a key that cannot be one is refused.
fn batch_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let mut values = headers.get_all(IDEMPOTENCY_KEY).iter();
    let Some(value) = values.next() else { return Ok(None) };
    if values.next().is_some() {
        // Which one names the batch would be a guess, as with two Host or Origin headers.
        return Err(ApiError::BadRequest("send one Idempotency-Key header, not several".into()));
    }
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

/// `PUT /capture`: the capture state in force in the extension (`crate::capture`),
/// stored through the writer so that it outlives a restart; 204 once committed.
async fn put_capture(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let (body, declared) = match body::admit(&headers, body, MAX_BODY_BYTES, body::too_large) {
        Ok(admitted) => admitted,
        Err(refused) => return closing(refused),
    };
    let stored = async {
        let body::Admitted { body, admission } = body::read(&state.store, body, declared).await?;
        let decoding = state.decoding.room_for(&body).await?;
        let report = decode(body, |b| capture::decode(&b)).await?;
        drop(decoding);
        state.store.set_capture(&report, admission).await?;
        Ok::<_, ApiError>(StatusCode::NO_CONTENT.into_response())
    };
    handled(stored.await)
}

/// Decodes small bodies inline and large ones on the blocking pool.
async fn decode<T: Send + 'static, E: Send + 'static>(
    body: Bytes,
    f: impl FnOnce(Bytes) -> Result<T, E> + Send + 'static,
) -> Result<T, ApiError>
where
    ApiError: From<E>,
{
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
    let extension_id = state.pairing.current().await?;
    let mcp_sessions = state.sessions.sessions.read().await.len();
    let kinds: serde_json::Map<String, Value> = kinds.into_iter().map(|s| (s.kind.to_owned(), json!(s))).collect();
    Ok(Json(json!({
        "service": "gasoline",
        "version": env!("CARGO_PKG_VERSION"),
        "db": path,
        "extension_id": extension_id,
        "mcp_sessions": mcp_sessions,
        "pending_bytes": state.store.pending_bytes(),
        "kinds": kinds,
    })))
}
