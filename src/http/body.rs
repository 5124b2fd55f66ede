//! Reading and decoding an ingest request's body within memory budgets.
//!
//! Room in the writer's pending-writes budget comes before the bytes: a request
//! that declares its length gets room for it before anything is read (and one
//! declaring more than [`MAX_BODY_BYTES`] is refused from its headers alone); a
//! chunked body gets room as its bytes arrive. That room is held until the
//! request is answered, since its rows (about as large as the body) wait for the
//! writer. Then the JSON is measured before it is decoded, and room is taken in a
//! second budget, [`Decoding`], for the tree decoding builds on top of the text;
//! that room is given back as soon as the rows are made. Two budgets rather than
//! one: a request that holds room for its body and waits for room to decode must
//! never wait on other such requests, or a crowd of them would hold the whole
//! budget and wait for each other until every one timed out.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use http_body_util::BodyExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;
use crate::ingest::Shape;
use crate::store::{Admission, Store};

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// Longest wait for a request body once it has room in the pending budget.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Bodies longer than this are measured off the async runtime.
const MEASURE_INLINE_BYTES: usize = 64 * 1024;
/// Room a chunked body takes at a time as it arrives.
const CHUNKED_STEP: usize = 64 * 1024;
/// After a 413, how long and how much of the rest of the body is read and dropped, so that a
/// client still uploading reads the answer instead of finding the connection reset.
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 32 * 1024 * 1024;

/// The body's length as the request declares it (None when chunked or unreadable).
pub fn declared_length(headers: &axum::http::HeaderMap) -> Option<usize> {
    headers.get(axum::http::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
}

/// A refusal of a body sent with a content coding (`Content-Encoding: gzip`): bodies are read as
/// the JSON text they are, never decompressed (what decoding may build stays bounded by the body's
/// size), so a compressed one would be refused as "not JSON", and a plain one said to be
/// compressed would be read as it is not said to be. None for no coding or `identity`.
pub fn encoding_refused(headers: &axum::http::HeaderMap) -> Option<ApiError> {
    let codings: Vec<&str> = headers
        .get_all(axum::http::header::CONTENT_ENCODING)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"))
        .collect();
    (!codings.is_empty()).then(|| {
        ApiError::UnsupportedEncoding(format!(
            "Content-Encoding {} is not taken: send the JSON uncompressed",
            codings.join(", ")
        ))
    })
}

/// What a request whose body stopped arriving before [`BODY_READ_TIMEOUT`] is told (408).
pub fn late_message() -> String {
    format!("the request body did not arrive within {} s; send it in one go", BODY_READ_TIMEOUT.as_secs())
}

/// A body's headers judged before it is read, for a route that takes at most `max` bytes: its
/// declared length (when given), or the refusal of one declared over `max` (`too_large`) or in an
/// encoding not taken. A refusal comes from the headers alone, without waiting for the body; what
/// does arrive meanwhile is dropped as it comes ([`linger`]), so an uploading client reads the
/// answer, not a reset.
pub fn admit(
    headers: &axum::http::HeaderMap,
    body: Body,
    max: usize,
    too_large: impl FnOnce() -> ApiError,
) -> Result<(Body, Option<usize>), ApiError> {
    let declared = declared_length(headers);
    let refused = if declared.is_some_and(|n| n > max) { Some(too_large()) } else { encoding_refused(headers) };
    match refused {
        Some(refusal) => {
            linger(body);
            Err(refusal)
        }
        None => Ok((body, declared)),
    }
}

pub fn too_large() -> ApiError {
    ApiError::TooLarge(format!("request body is over {} MiB; send smaller batches", MAX_BODY_BYTES >> 20))
}

/// Reads what is left of a refused body and drops it, beside the answer (which does not wait
/// for it), for at most [`LINGER`] and [`LINGER_BYTES`]; holds one frame at a time. Then the
/// connection closes.
pub fn linger(mut body: Body) {
    tokio::spawn(async move {
        let drain = async {
            let mut seen = 0usize;
            while let Some(Ok(frame)) = body.frame().await {
                seen = seen.saturating_add(frame.data_ref().map_or(0, |d| d.len()));
                if seen > LINGER_BYTES {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(LINGER, drain).await;
    });
}

/// A body read whole, with the room it holds in the pending budget.
pub struct Admitted {
    pub body: Bytes,
    pub admission: Admission,
}

/// Reads the body of a request that declared `declared` bytes (None when chunked),
/// holding room for it in `store`'s budget; at most [`BODY_READ_TIMEOUT`].
/// The caller has refused a declared length over [`MAX_BODY_BYTES`].
pub async fn read(store: &Store, body: Body, declared: Option<usize>) -> Result<Admitted, ApiError> {
    let first = declared.unwrap_or(CHUNKED_STEP).max(1);
    let admission = store.admit(first).await?;
    tokio::time::timeout(BODY_READ_TIMEOUT, read_within(store, body, declared, admission))
        .await
        .map_err(|_| ApiError::Timeout(late_message()))?
}

async fn read_within(
    store: &Store,
    mut body: Body,
    declared: Option<usize>,
    mut admission: Admission,
) -> Result<Admitted, ApiError> {
    let mut kept = Vec::with_capacity(declared.unwrap_or(0).min(MAX_BODY_BYTES));
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::BadRequest(format!("could not read the request body: {e}")))?;
        let Ok(data) = frame.into_data() else { continue };
        let len = kept.len().saturating_add(data.len());
        if len > MAX_BODY_BYTES {
            linger(body);
            return Err(too_large());
        }
        if len > admission.bytes() {
            // A chunked body (a declared one cannot outgrow its length): room for the next step first.
            let more = (len - admission.bytes()).max(CHUNKED_STEP).min(MAX_BODY_BYTES - admission.bytes());
            admission.merge(store.admit(more).await?);
        }
        kept.extend_from_slice(&data);
    }
    Ok(Admitted { body: Bytes::from(kept), admission })
}

/// The budget for what decoding builds beyond a body's text: the `serde_json` tree
/// (values, their containers, an allocation per string). Held only while decoding.
pub struct Decoding {
    permits: Arc<Semaphore>,
    size: usize,
    wait: Duration,
}

impl Decoding {
    pub fn new(size: usize, wait: Duration) -> Self {
        let size = size.clamp(1, Semaphore::MAX_PERMITS);
        Decoding { permits: Arc::new(Semaphore::new(size)), size, wait }
    }

    /// Measures the JSON of `body` and waits (at most the busy wait) for room to decode it.
    /// A body whose decoding alone would need more than the whole budget is refused (413).
    pub async fn room_for(&self, body: &Bytes) -> Result<OwnedSemaphorePermit, ApiError> {
        let shape = if body.len() <= MEASURE_INLINE_BYTES {
            Shape::measure(body)?
        } else {
            let body = body.clone();
            tokio::task::spawn_blocking(move || Shape::measure(&body))
                .await
                .map_err(|e| ApiError::Internal(format!("measuring the body failed: {e}")))??
        };
        let cost = shape.decode_overhead();
        if cost > self.size {
            return Err(ApiError::TooLarge(format!(
                "the body holds {} JSON values ({} strings); decoding them would take more memory than gasoline \
                 gives all requests together ({} MiB): send fewer values per request",
                shape.values,
                shape.strings,
                self.size >> 20
            )));
        }
        let n = u32::try_from(cost.max(1)).unwrap_or(u32::MAX);
        match tokio::time::timeout(self.wait, self.permits.clone().acquire_many_owned(n)).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) => Err(ApiError::Unavailable("gasoline is shutting down; retry in a moment".into())),
            Err(_) => Err(ApiError::Busy),
        }
    }
}
