//! `GET /v1/audit` (service token): the audit trail as NDJSON, oldest first; and
//! `GET /v1/audit/checkpoint`: the latest checkpoint, to keep outside the database.

use std::collections::HashMap;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::header;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};

use super::extract::Host;
use super::AppState;
use crate::audit::{DEFAULT_PAGE, MAX_PAGE};
use crate::error::ApiError;

/// `GET /v1/audit?after=SEQ&limit=N`: the entries after `after` (default 0), at most `limit`
/// (default [`DEFAULT_PAGE`], capped at [`MAX_PAGE`]), one JSON object a line.
pub async fn list(
    State(state): State<AppState>,
    _host: Host,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Response, ApiError> {
    let query = query.map_err(|_| ApiError::bad_request("invalid query string"))?;
    let number = |name: &str, default: i64, least: i64| match query.0.get(name) {
        None => Ok(default),
        Some(text) => match text.parse::<i64>() {
            Ok(value) if value >= least => Ok(value),
            _ => Err(ApiError::bad_request(format!(
                "{name} must be a whole number of at least {least}"
            ))),
        },
    };
    let after = number("after", 0, 0)?;
    let limit = number("limit", DEFAULT_PAGE, 1)?.min(MAX_PAGE);
    let entries = state.store.audit.page(after, limit).await?;
    let mut body = String::new();
    for entry in &entries {
        body.push_str(&entry.to_line().to_string());
        body.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}

/// `GET /v1/audit/checkpoint`: the latest checkpoint (`seq`, `at`, `chains`, `hash`); 404 while
/// there is none (nothing has been audited yet).
pub async fn checkpoint(State(state): State<AppState>, _host: Host) -> Result<Response, ApiError> {
    match state.store.audit.latest_checkpoint().await? {
        Some(checkpoint) => Ok(Json(checkpoint).into_response()),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no audit checkpoint yet: nothing has been audited",
        )),
    }
}
