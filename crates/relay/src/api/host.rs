//! The host API (service token): create an elicitation, wait for its result, withdraw it, report
//! URL-mode completion.

use std::collections::HashMap;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use koder_elicitation_relay_protocol::{
    CreateElicitation, Created as CreatedView, HostView, StatusView, MAX_FIELD_CHARS,
};
use serde_json::Value;
use tokio::time::Instant;

use super::checks::{check_request, is_url_mode};
use super::extract::Host;
use super::views::{host_view, status_view};
use super::{json_body, new_id, AppState};
use crate::canonical::{canonical_json, sha256_hex};
use crate::error::ApiError;
use crate::store::{NewElicitation, Record, Status, Tenant};

/// The longest `?wait=` in seconds (longer is clamped).
pub const MAX_WAIT_SECONDS: f64 = 60.0;
/// A waiting long-poll re-reads the row at least this often, so a lost wake-up only delays it.
const REREAD_INTERVAL: Duration = Duration::from_secs(1);

/// `POST /v1/elicitations`: 201 `{"id","expiresAt"}`.
pub async fn create(
    State(state): State<AppState>,
    _host: Host,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let idempotency_key = idempotency_key(&headers)?;
    let body = json_body(body)?;
    // Only a keyed create can be repeated, so only its digest is ever compared.
    let request_digest = idempotency_key.as_ref().map(|_| request_digest(&body));
    let body = CreateElicitation::try_from(body).map_err(|error| ApiError::bad_request(error.0))?;
    let timeout_ms = body.timeout_or_default_ms();
    let id = new_id()?;
    let checked = check_request(&body.request, &id).map_err(ApiError::invalid_params)?;
    let created_at = state.elicitations.now_ms();
    let created = state
        .elicitations
        .create(NewElicitation {
            id,
            tenant: Tenant::from(body.scope),
            request: checked.stored,
            server_name: body.server_name,
            created_at,
            expires_at: created_at.saturating_add(timeout_ms),
            idempotency_key,
            request_digest,
        })
        .await?;
    let record = created
        .record()
        .ok_or_else(ApiError::idempotency_key_reused)?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedView {
            id: record.id.clone(),
            expires_at: record.expires_at,
        }),
    )
        .into_response())
}

/// SHA-256 (hex) of what a create asks for (`request`, `scope`, `serverName`, `timeoutMs`, as
/// sent), serialized with sorted object keys: a retry that orders its keys differently is the
/// same request.
fn request_digest(body: &Value) -> String {
    let canonical: String = ["request", "scope", "serverName", "timeoutMs"]
        .iter()
        .map(|field| canonical_json(body.get(field).unwrap_or(&Value::Null)) + "\n")
        .collect();
    sha256_hex(canonical.as_bytes())
}

fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(key) if !key.is_empty() && key.chars().count() <= MAX_FIELD_CHARS => {
            Ok(Some(key.to_string()))
        }
        _ => Err(ApiError::bad_request(format!(
            "Idempotency-Key must be 1 to {MAX_FIELD_CHARS} visible ASCII characters"
        ))),
    }
}

/// `GET /v1/elicitations/{id}/result?wait=SECONDS`: the result, waiting up to `wait` seconds
/// for one while pending.
pub async fn result(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<HostView>, ApiError> {
    let Ok(Path(id)) = id else {
        return Err(ApiError::no_such_elicitation());
    };
    let query = query.map_err(|_| ApiError::bad_request("invalid query string"))?;
    let wait = match query.0.get("wait") {
        None => 0.0,
        Some(text) => match text.parse::<f64>() {
            Ok(seconds) if seconds.is_finite() => seconds.clamp(0.0, MAX_WAIT_SECONDS),
            _ => {
                return Err(ApiError::bad_request(
                    "wait must be a number of seconds (0 to 60)",
                ))
            }
        },
    };
    let deadline = Instant::now() + Duration::from_secs_f64(wait);
    let waiter = state.hub.waiter(&id);
    // A look may be from memory while waiting: a pending one waits, and its end wakes us. The
    // store is read for a result at once, on the timer (a lost wake-up only delays), and at the
    // deadline.
    let mut read = if wait > 0.0 {
        Read::AsLastHeard
    } else {
        Read::FromStore
    };
    loop {
        // Armed before the read: an event between the read and the select still wakes us.
        let notified = waiter.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        // Woken by its end: the event holds the record, so it is not read again.
        if let Some(ended) = waiter.ended() {
            return Ok(Json(host_view(&ended)));
        }
        let record = look(&state, &id, read)
            .await?
            .ok_or_else(ApiError::no_such_elicitation)?;
        if record.status != Status::Pending || Instant::now() >= deadline {
            return Ok(Json(host_view(&record)));
        }
        let mut shutdown = state.shutdown.clone();
        read = tokio::select! {
            () = &mut notified => Read::AsLastHeard,
            () = tokio::time::sleep(REREAD_INTERVAL) => Read::FromStore,
            () = tokio::time::sleep_until(deadline) => Read::FromStore,
            _ = shutdown.wait_for(|stopping| *stopping) => {
                return Ok(Json(host_view(&record)));
            }
        };
    }
}

/// `DELETE /v1/elicitations/{id}`: withdraws it while pending; always the final state.
pub async fn withdraw(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<HostView>, ApiError> {
    let record = found(&state, id, Read::AsLastHeard).await?;
    let withdrawn = state.elicitations.withdraw(record).await?;
    Ok(Json(host_view(withdrawn.record())))
}

/// `POST /v1/elicitations/{id}/complete`: URL-mode completion (2025-11-25).
pub async fn complete(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<StatusView>, ApiError> {
    let record = found(&state, id, Read::AsLastHeard).await?;
    if !is_url_mode(&record.request) {
        return Err(ApiError::conflict(
            "only a URL-mode elicitation can complete",
        ));
    }
    let completed = state.elicitations.complete(record).await?;
    Ok(Json(status_view(completed.record())))
}

/// Where a handler reads an elicitation from: the store, to show it; or what this replica last
/// heard of, to change it or to wait for its end (a change is conditional on the row, and an end
/// wakes a waiting long-poll).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    FromStore,
    AsLastHeard,
}

/// The elicitation the path names; a malformed id reads as unknown (404).
pub(super) async fn found(
    state: &AppState,
    id: Result<Path<String>, PathRejection>,
    read: Read,
) -> Result<Record, ApiError> {
    let Ok(Path(id)) = id else {
        return Err(ApiError::no_such_elicitation());
    };
    look(state, &id, read)
        .await?
        .ok_or_else(ApiError::no_such_elicitation)
}

/// The elicitation `id`, read as `read` says.
async fn look(state: &AppState, id: &str, read: Read) -> Result<Option<Record>, ApiError> {
    Ok(match read {
        Read::FromStore => state.elicitations.get(id).await?,
        Read::AsLastHeard => state.elicitations.get_as_last_heard(id).await?,
    })
}
