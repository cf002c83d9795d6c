//! The people's API (their JWT): list what waits for them, answer it, read its status. Every
//! lookup is scoped by the token; out of scope answers exactly as unknown does.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::Json;
use koder_elicitation_relay_protocol::{ElicitationList, HostView, StatusView};
use serde_json::Value;

use super::checks::{check_answer, AnswerError};
use super::host::{found, Read};
use super::views::{elicitation_view, host_view, status_view};
use super::{json_body, AppState};
use crate::auth::PersonToken;
use crate::error::ApiError;
use crate::service::Changed;
use crate::store::{Record, Status, TenantFilter};

/// `GET /v1/elicitations?status=pending`: the pending ones in the token's scope, oldest first.
pub async fn list_pending(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<ElicitationList>, ApiError> {
    let query = query.map_err(|_| ApiError::bad_request("invalid query string"))?;
    match query.0.get("status").map(String::as_str) {
        None | Some("pending") => {}
        Some(_) => {
            return Err(ApiError::bad_request(
                "status must be \"pending\" (the only list kept)",
            ))
        }
    }
    let pending = state.elicitations.pending(&filter).await?;
    let now = state.elicitations.now_ms();
    let elicitations = pending
        .iter()
        .map(|record| elicitation_view(record, now))
        .collect();
    Ok(Json(ElicitationList { elicitations }))
}

/// The record if it exists and the token may see it.
async fn scoped(
    state: &AppState,
    filter: &TenantFilter,
    id: Result<Path<String>, PathRejection>,
    read: Read,
) -> Result<Record, ApiError> {
    let record = found(state, id, read).await?;
    if filter.admits(&record.tenant) {
        Ok(record)
    } else {
        Err(ApiError::no_such_elicitation())
    }
}

/// `POST /v1/elicitations/{id}/result`: the person's `ElicitResult`, stored exactly once.
pub async fn answer(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<HostView>, ApiError> {
    let body = json_body(body)?;
    let record = scoped(&state, &filter, id, Read::AsLastHeard).await?;
    let locale = state.messages.negotiate(accepted_languages(&headers));
    let result = match check_answer(&body, &record.request, &state.messages, locale) {
        Ok(result) => result,
        Err(AnswerError::Invalid(error)) => return Err(ApiError::invalid_params(error)),
        Err(AnswerError::Content(errors)) => {
            // Content for one already over is not worth checking: say it is over.
            if record.status != Status::Pending {
                return settled_answer(&record, &body);
            }
            return Err(ApiError::invalid_content(errors));
        }
    };
    // The scope's user is the verified token's `sub`.
    match state
        .elicitations
        .answer(record, &result, &filter.user_id)
        .await?
    {
        Changed::ByThisCall(record) => Ok(Json(host_view(&record))),
        // Another writer won (or it was over already): answer from the row as it is now.
        Changed::Already(record) => settled_answer(&record, &result),
    }
}

/// The answer for one no longer pending: the same result again is fine, another one conflicts.
fn settled_answer(record: &Record, result: &Value) -> Result<Json<HostView>, ApiError> {
    match record.status {
        Status::Settled if record.result.as_ref() == Some(result) => Ok(Json(host_view(record))),
        Status::Settled => Err(ApiError::conflict(
            "already answered with a different result",
        )),
        Status::Expired => Err(ApiError::gone("this elicitation expired")),
        Status::Withdrawn => Err(ApiError::gone("this elicitation was withdrawn")),
        // Still pending after losing a conditional update cannot happen; never store twice.
        Status::Pending => Err(ApiError::conflict("try again")),
    }
}

/// `GET /v1/elicitations/{id}/status`.
pub async fn status(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<StatusView>, ApiError> {
    let record = scoped(&state, &filter, id, Read::FromStore).await?;
    Ok(Json(status_view(&record)))
}

/// The language tags of `Accept-Language`, in the order given (weights aside: browsers list
/// them by preference already). A header that is not text gives none, and so en-US.
fn accepted_languages(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .split(',')
        .filter_map(|entry| entry.split(';').next())
        .map(str::trim)
        .filter(|tag| !tag.is_empty() && *tag != "*")
}
