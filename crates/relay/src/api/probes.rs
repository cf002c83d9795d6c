//! What operators poll: `GET /livez` (the process serves), `GET /readyz` (this replica should get
//! traffic: not draining, its LISTEN link up on PostgreSQL, its database answering) and
//! `GET /metrics` (Prometheus text; on the main address with the service token, on
//! `--metrics-listen` without). None of them reads or changes an elicitation.

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::extract::Host;
use super::AppState;
use crate::metrics::CONTENT_TYPE;

/// How long a probe or a scrape waits for the database before calling it unavailable.
pub const DATABASE_PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Why this replica should not get traffic now; `None` when it should.
pub async fn unready_reason(state: &AppState) -> Option<&'static str> {
    if state.is_draining() {
        return Some("draining: this relay is shutting down");
    }
    if state.link_is_down() {
        return Some("the LISTEN link to PostgreSQL is down");
    }
    match tokio::time::timeout(DATABASE_PROBE_TIMEOUT, state.store.health.ping()).await {
        Ok(Ok(())) => None,
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: the database did not answer");
            Some("the database did not answer")
        }
        Err(_) => Some("the database did not answer within 1 s"),
    }
}

/// `GET /livez`: 200 while the process serves.
pub async fn livez() -> Json<serde_json::Value> {
    Json(json!({"status": "live"}))
}

/// `GET /readyz`: 200, or 503 with the reason.
pub async fn readyz(State(state): State<AppState>) -> Response {
    match unready_reason(&state).await {
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
    let pending = match tokio::time::timeout(
        DATABASE_PROBE_TIMEOUT,
        state.store.elicitations.count_pending(),
    )
    .await
    {
        Ok(Ok(count)) => Some(count),
        Ok(Err(error)) => {
            tracing::warn!(%error, "metrics: counting the pending elicitations failed");
            None
        }
        Err(_) => None,
    };
    let text = state.metrics.render(state.hub.open_streams(), pending);
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}
