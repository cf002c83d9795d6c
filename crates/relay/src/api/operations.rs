//! The operators' routes (no elicitation data). With the service token: `GET /v1/audit` (the
//! audit trail as NDJSON, oldest first), `GET /v1/audit/checkpoint` (the latest checkpoint, to
//! keep outside the database) and `GET /metrics`. Without credentials: `GET /v1/openapi.json`,
//! `GET /livez` (the process serves) and `GET /readyz` (this replica should get traffic: not
//! draining, its LISTEN link up on PostgreSQL, its database answering). `--metrics-listen`
//! serves the probes and `/metrics` without credentials.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use super::extract::Host;
use super::{AppState, Routes};
use crate::audit::DEFAULT_PAGE;
use crate::error::ApiError;
use crate::metrics::CONTENT_TYPE;

/// The OpenAPI 3.1 document of the hosts' and people's API, served as is.
pub const OPENAPI_DOCUMENT: &str = include_str!("../../openapi.json");

/// The operators' routes on the main address: the probes (with the service token on
/// `/metrics`), the audit trail and the OpenAPI document.
pub fn routes() -> Routes {
    probes_with(metrics_with_token)
        .get("/v1/audit", audit)
        .get("/v1/audit/checkpoint", checkpoint)
        .get("/v1/openapi.json", openapi)
}

/// The probes and `/metrics` without credentials, as `--metrics-listen` serves them.
pub fn probes() -> Routes {
    probes_with(metrics)
}

fn probes_with<T: 'static>(metrics: impl axum::handler::Handler<T, AppState>) -> Routes {
    Routes::new()
        .get("/livez", livez)
        .get("/readyz", readyz)
        .get("/metrics", metrics)
}

/// The query of `GET /v1/audit`.
#[derive(Debug, Deserialize)]
pub struct AuditQuery {
    /// The last sequence number already read (default 0).
    after: Option<i64>,
    /// The most entries to answer with (default [`DEFAULT_PAGE`], capped at 1000).
    limit: Option<i64>,
}

/// `GET /v1/audit?after=SEQ&limit=N`: the entries after `after`, one JSON object a line.
pub async fn audit(
    State(state): State<AppState>,
    _host: Host,
    query: Result<Query<AuditQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request(
            "after and limit must be whole numbers",
        ));
    };
    let at_least = |name: &str, value: Option<i64>, least: i64| match value {
        Some(value) if value < least => Err(ApiError::bad_request(format!(
            "{name} must be a whole number of at least {least}"
        ))),
        _ => Ok(value),
    };
    let after = at_least("after", query.after, 0)?.unwrap_or(0);
    let limit = at_least("limit", query.limit, 1)?.unwrap_or(DEFAULT_PAGE);
    let mut body = String::new();
    for entry in &state.audit.page(after, limit).await? {
        body.push_str(&entry.to_line().to_string());
        body.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}

/// `GET /v1/audit/checkpoint`: the latest checkpoint (`seq`, `at`, `chains`, `hash`); 404 while
/// there is none (nothing has been audited yet).
pub async fn checkpoint(State(state): State<AppState>, _host: Host) -> Result<Response, ApiError> {
    match state.audit.latest_checkpoint().await? {
        Some(checkpoint) => Ok(Json(checkpoint).into_response()),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no audit checkpoint yet: nothing has been audited",
        )),
    }
}

async fn openapi() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        OPENAPI_DOCUMENT,
    )
        .into_response()
}

/// `GET /livez`: 200 while the process serves.
pub async fn livez() -> Json<serde_json::Value> {
    Json(json!({"status": "live"}))
}

/// `GET /readyz`: 200, or 503 with the reason this replica should not get traffic now.
pub async fn readyz(State(state): State<AppState>) -> Response {
    let unready = if state.is_draining() {
        Some("draining: this relay is shutting down")
    } else if state.link_is_down() {
        Some("the LISTEN link to PostgreSQL is down")
    } else {
        state.health.database_unready().await
    };
    match unready {
        None => Json(json!({"status": "ready"})).into_response(),
        Some(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "unready", "reason": reason})),
        )
            .into_response(),
    }
}

/// `GET /metrics` on the main address: the service token's.
pub async fn metrics_with_token(State(state): State<AppState>, _host: Host) -> Response {
    metrics(State(state)).await
}

/// `GET /metrics` on `--metrics-listen`: no auth (a private address).
pub async fn metrics(State(state): State<AppState>) -> Response {
    let pending = state.health.pending_count().await;
    let text = state.metrics.render(state.hub.open_streams(), pending);
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}
