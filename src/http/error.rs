//! One error type for every HTTP refusal: a status code and a JSON body.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::capture::CaptureError;
use crate::ingest::IngestError;
use crate::kind;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("unknown kind \"{0}\"")]
    UnknownKind(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    UnsupportedEncoding(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Timeout(String),
    #[error("{0}")]
    Conflict(String),
    #[error("the store is busy writing; retry after a moment")]
    Busy,
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    DiskFull(String),
    #[error("{0}")]
    Internal(String),
}

/// Seconds a refused client should wait before retrying.
const RETRY_AFTER_SECS: &str = "1";

impl From<IngestError> for ApiError {
    fn from(e: IngestError) -> Self {
        match e {
            IngestError::TooManyEntries { .. } => ApiError::TooLarge(e.to_string()),
            other => ApiError::BadRequest(other.to_string()),
        }
    }
}

impl From<CaptureError> for ApiError {
    fn from(e: CaptureError) -> Self {
        ApiError::BadRequest(e.to_string())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Busy => ApiError::Busy,
            StoreError::Locked(m) => ApiError::Unavailable(format!(
                "the database is locked by another program ({m}; an open sqlite3 transaction?); nothing of this \
                 request was stored, retry in a moment"
            )),
            StoreError::Closed => ApiError::Unavailable("gasoline is shutting down; retry in a moment".into()),
            StoreError::DiskFull(m) => ApiError::DiskFull(format!(
                "the disk holding the database is full ({m}); nothing of this request was stored, retry once space is free"
            )),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let message = self.to_string();
        let (status, body) = match &self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, json!({ "error": message })),
            ApiError::UnknownKind(_) => (
                StatusCode::NOT_FOUND,
                json!({ "error": format!("{message}; valid kinds: {}, plus tabs and vitals", kind::names().join(", ")),
                        "valid_kinds": kind::names() }),
            ),
            ApiError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, json!({ "error": message })),
            ApiError::UnsupportedEncoding(_) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, json!({ "error": message })),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, json!({ "error": message })),
            ApiError::Timeout(_) => (StatusCode::REQUEST_TIMEOUT, json!({ "error": message })),
            ApiError::Conflict(_) => (StatusCode::CONFLICT, json!({ "error": message })),
            ApiError::Busy | ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, json!({ "error": message })),
            ApiError::DiskFull(_) => (StatusCode::INSUFFICIENT_STORAGE, json!({ "error": message })),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, json!({ "error": message })),
        };
        let mut response = (status, Json(body)).into_response();
        // A refusal is data, never a page: no browser sniffs, runs or frames it.
        let headers = response.headers_mut();
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        if matches!(self, ApiError::Busy | ApiError::Unavailable(_) | ApiError::DiskFull(_)) {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER_SECS));
        }
        response
    }
}

#[cfg(test)]
mod lock_tests {
    use super::*;

    #[test]
    fn a_database_locked_by_another_program_is_503() {
        let locked = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(5), Some("database is locked".into()));
        let api = ApiError::from(StoreError::classify(locked));
        assert!(matches!(api, ApiError::Unavailable(_)), "{api:?}");
        let response = api.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "a refusal is never sniffed");
    }
}
