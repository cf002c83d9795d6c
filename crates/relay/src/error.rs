//! Every failure the HTTP API reports, as one JSON shape:
//! `{"error":{"status":<http status>,"message":"…"}}`, plus `jsonrpcCode` for a request or answer
//! the core refused and `errors` for content that breaks the requested schema.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use koder_elicitation_relay_protocol::{ContentError as WireContentError, ErrorBody, ErrorDetail};
use koder_mcp_elicitation_core::content::ContentError;
use koder_mcp_elicitation_core::error::ElicitationError;

/// The one message for an unknown id and for one outside the caller's scope, so the two cannot
/// be told apart.
pub const NO_SUCH_ELICITATION: &str = "no such elicitation";

/// An error answer of the HTTP API.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} {message}", .status.as_u16())]
pub struct ApiError {
    status: StatusCode,
    message: String,
    jsonrpc_code: Option<i32>,
    errors: Vec<ContentError>,
    /// Seconds for `Retry-After` (429 and 503).
    retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a status and a message and nothing else.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            jsonrpc_code: None,
            errors: Vec::new(),
            retry_after: None,
        }
    }

    /// 400 with a plain message.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 400 carrying the core's JSON-RPC code and its message (which names the path).
    pub fn invalid_params(error: ElicitationError) -> Self {
        ApiError {
            jsonrpc_code: Some(error.code),
            ..ApiError::new(StatusCode::BAD_REQUEST, error.message)
        }
    }

    /// 401: no token, a bad one, or the wrong kind.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 404 for an unknown or out-of-scope id (one body for both).
    pub fn no_such_elicitation() -> Self {
        ApiError::new(StatusCode::NOT_FOUND, NO_SUCH_ELICITATION)
    }

    /// 409: the elicitation is settled differently, or the operation does not fit it.
    pub fn conflict(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    /// 410: it expired or was withdrawn before this answer.
    pub fn gone(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::GONE, message)
    }

    /// 413: the body is over the limit.
    pub fn payload_too_large(limit_bytes: usize) -> Self {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body is larger than {limit_bytes} bytes"),
        )
    }

    /// 422: content that breaks the request's schema, one entry per broken rule.
    pub fn invalid_content(errors: Vec<ContentError>) -> Self {
        ApiError {
            errors,
            ..ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "content does not match the requested schema",
            )
        }
    }

    /// 422: an `Idempotency-Key` this tenant already used for a different request.
    pub fn idempotency_key_reused() -> Self {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "this Idempotency-Key was already used with a different request",
        )
    }

    /// 422: a body the relay reads but will not act on (an e-mail address off the allow list).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// 429: the caller holds as much of something as allowed; try again after `retry_after`
    /// seconds.
    pub fn too_many_requests(message: impl Into<String>, retry_after: u64) -> Self {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, message)
        }
    }

    /// 503: this replica cannot take it now; try again (perhaps elsewhere) after `retry_after`
    /// seconds.
    pub fn unavailable(message: impl Into<String>, retry_after: u64) -> Self {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
        }
    }

    /// 500: the system gave no randomness for a fresh id. The detail goes to the log.
    pub fn no_randomness(error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "no randomness");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "no randomness available")
    }

    /// 500: the database failed. The detail goes to the log, never to the caller.
    pub fn storage_failed(error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "storage failed");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "storage unavailable")
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A message as programs read it: without the Unicode isolation marks (U+2066–U+2069) the
/// catalog puts around a server's words for people's screens.
fn plain_text(message: String) -> String {
    message
        .chars()
        .filter(|c| !matches!(c, '\u{2066}'..='\u{2069}'))
        .collect()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let errors = self.errors.into_iter().map(|error| WireContentError {
            path: error.path,
            keyword: error.keyword.to_string(),
            message: plain_text(error.message),
        });
        let body = ErrorBody {
            error: ErrorDetail {
                status: self.status.as_u16(),
                message: plain_text(self.message),
                jsonrpc_code: self.jsonrpc_code,
                errors: errors.collect(),
            },
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
