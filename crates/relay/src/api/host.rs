//! The hosts' API (service token): create an elicitation, wait for its result, withdraw it,
//! report URL-mode completion, get a link to answer it (with the answer page on).

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use koder_elicitation_relay_protocol::{
    CreateElicitation, Created as CreatedView, HostView, LinkCreated, StatusView, MAX_FIELD_CHARS,
};
use serde::Deserialize;
use serde_json::Value;

use super::checks::{check_request, is_url_mode};
use super::extract::Host;
use super::links::links_of;
use super::{json_body, known, new_id, path_id, AppState, Routes};
use crate::audience::TeamStages;
use crate::canonical::{canonical_json, sha256_hex};
use crate::error::ApiError;
use crate::record::{NewElicitation, Record, Tenant};
use crate::service::elicitations::MAX_WAIT;
use crate::views::{host_view, status_view};

/// The hosts' routes.
pub fn routes() -> Routes {
    Routes::new()
        .post("/v1/elicitations", create)
        .get("/v1/elicitations/{id}/result", result)
        .delete("/v1/elicitations/{id}", withdraw)
        .post("/v1/elicitations/{id}/complete", complete)
        .post("/v1/elicitations/{id}/link", link)
}

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
    let stages = body
        .escalate
        .iter()
        .filter_map(|stage| stage.notify.as_ref());
    for notify in body.notify.iter().chain(stages) {
        state
            .notify
            .check(notify)
            .map_err(ApiError::unprocessable)?;
    }
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
            notify: body.notify,
            team: body.audience.map(|audience| TeamStages {
                audience,
                escalate: body.escalate,
            }),
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
/// sent, and `notify`, `audience` and `escalate` when given), serialized with sorted object
/// keys: a retry that orders its keys differently is the same request. A create without them
/// digests as before they existed, so a retry across an upgrade is still the same request.
fn request_digest(body: &Value) -> String {
    let mut canonical: String = ["request", "scope", "serverName", "timeoutMs"]
        .iter()
        .map(|field| canonical_json(body.get(field).unwrap_or(&Value::Null)) + "\n")
        .collect();
    if let Some(notify) = body.get("notify").filter(|notify| !notify.is_null()) {
        canonical.push_str(&(canonical_json(notify) + "\n"));
    }
    for team in ["audience", "escalate"] {
        if let Some(given) = body.get(team).filter(|given| !given.is_null()) {
            canonical.push_str(&format!("{team}:{}\n", canonical_json(given)));
        }
    }
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

/// The query of `GET /v1/elicitations/{id}/result`.
#[derive(Debug, Deserialize)]
pub struct ResultQuery {
    /// Seconds to wait for an end while pending (0 to 60; longer is clamped).
    wait: Option<f64>,
}

/// `GET /v1/elicitations/{id}/result?wait=SECONDS`: the result, waiting up to `wait` seconds
/// for one while pending.
pub async fn result(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<ResultQuery>, QueryRejection>,
) -> Result<Json<HostView>, ApiError> {
    let id = path_id(id, ApiError::no_such_elicitation)?;
    let wait = match query.map(|Query(query)| query.wait.unwrap_or(0.0)) {
        Ok(seconds) if seconds.is_finite() => seconds.clamp(0.0, MAX_WAIT.as_secs_f64()),
        _ => {
            return Err(ApiError::bad_request(
                "wait must be a number of seconds (0 to 60)",
            ))
        }
    };
    let (wait, stopping) = (Duration::from_secs_f64(wait), state.shutdown.clone());
    let record = state.elicitations.result(&id, wait, stopping);
    let record = record.await?;
    Ok(Json(host_view(&known(record)?)))
}

/// `DELETE /v1/elicitations/{id}`: withdraws it while pending; always the final state.
pub async fn withdraw(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<HostView>, ApiError> {
    let record = to_change(&state, id).await?;
    let withdrawn = state.elicitations.withdraw(record).await?;
    Ok(Json(host_view(withdrawn.record())))
}

/// `POST /v1/elicitations/{id}/complete`: URL-mode completion (2025-11-25).
pub async fn complete(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<StatusView>, ApiError> {
    let record = to_change(&state, id).await?;
    if !is_url_mode(&record.request) {
        return Err(ApiError::conflict(
            "only a URL-mode elicitation can complete",
        ));
    }
    let completed = state.elicitations.complete(record).await?;
    Ok(Json(status_view(completed.record())))
}

/// `POST /v1/elicitations/{id}/link`: 201 `{"url","expiresAt"}`, a new link to answer it on
/// the answer page each call (all working until it is over); 404 when the page is off.
pub async fn link(
    State(state): State<AppState>,
    _host: Host,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let links = links_of(&state)?;
    let id = path_id(id, ApiError::no_such_elicitation)?;
    let link = links.mint_for_host(&id).await?;
    let created = LinkCreated {
        url: link.url,
        expires_at: link.expires_at,
    };
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// The elicitation the path names, to change; unknown (and a malformed id) is 404.
async fn to_change(
    state: &AppState,
    id: Result<Path<String>, PathRejection>,
) -> Result<Record, ApiError> {
    let id = path_id(id, ApiError::no_such_elicitation)?;
    known(state.elicitations.to_change(&id).await?)
}
