//! The people's API (their JWT, or a ticket on the stream): list what waits for them, answer it,
//! read its status, their stream and its tickets, their push subscriptions. Every lookup is
//! scoped by the token; out of scope answers exactly as unknown does. Only these routes get CORS.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{MatchedPath, Path, Query, Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use koder_elicitation_relay_protocol::{AnsweredBy, ElicitationList, HostView, StatusView};
use serde::Deserialize;
use serde_json::Value;
use tower::{Layer, ServiceExt};
use tower_http::cors::CorsLayer;

use super::checks::{check_answer, AnswerError};
use super::extract::accepted_languages;

use super::{json_body, known, method_not_allowed, path_id, push, stream, AppState, Routes};
use crate::auth::PersonToken;
use crate::error::ApiError;
use crate::record::{Actor, Record, Status, TenantFilter};
use crate::service::Changed;
use crate::views::{answer_view, elicitation_view, status_view};

/// The people's routes.
pub fn routes() -> Routes {
    Routes::new()
        .get("/v1/elicitations", list_pending)
        .post("/v1/elicitations/{id}/result", answer)
        .get("/v1/elicitations/{id}/status", status)
        .get("/v1/stream", stream::stream)
        .post("/v1/stream/ticket", stream::ticket)
        .get("/v1/push/key", push::key)
        .post("/v1/push/subscriptions", push::subscribe)
        .get("/v1/push/subscriptions", push::list)
        .delete("/v1/push/subscriptions/{id}", push::unsubscribe)
}

/// The people's router, with `cors` (when on) on its routes alone.
pub fn router(cors: Option<CorsLayer>) -> Router<AppState> {
    let routes = routes();
    let Some(layer) = cors else {
        return routes.router;
    };
    let cors = PeopleCors {
        layer,
        served: Arc::from(routes.served),
    };
    // The people's own answer to a method they are not served, so that on a path hosts share
    // (where hosts serve other methods) a preflight reaches the CORS layer below.
    routes
        .router
        .method_not_allowed_fallback(method_not_allowed)
        .layer(from_fn_with_state(cors, people_cors))
}

#[derive(Debug, Clone)]
struct PeopleCors {
    layer: CorsLayer,
    served: Arc<[(Method, &'static str)]>,
}

/// CORS for a request to a method the people are served at its path; a preflight is judged by
/// the method it asks for. Anything else (a host's method on a shared path) passes by.
async fn people_cors(State(cors): State<PeopleCors>, request: Request, next: Next) -> Response {
    let method = if request.method() == Method::OPTIONS {
        request
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_METHOD)
            .and_then(|value| Method::from_bytes(value.as_bytes()).ok())
    } else {
        Some(request.method().clone())
    };
    let path = request.extensions().get::<MatchedPath>();
    let for_people = method.zip(path).is_some_and(|(method, path)| {
        cors.served
            .iter()
            .any(|served| served.0 == method && served.1 == path.as_str())
    });
    if !for_people {
        return next.run(request).await;
    }
    match cors.layer.layer(next).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

/// The query of `GET /v1/elicitations`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    /// Which list: only `pending` is kept (the default).
    status: Option<String>,
}

/// `GET /v1/elicitations?status=pending`: the pending ones in the token's scope, oldest first.
pub async fn list_pending(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<ElicitationList>, ApiError> {
    let Ok(Query(ListQuery { status })) = query else {
        return Err(ApiError::bad_request("invalid query string"));
    };
    if status.is_some_and(|status| status != "pending") {
        return Err(ApiError::bad_request(
            "status must be \"pending\" (the only list kept)",
        ));
    }
    let pending = state.elicitations.pending(&filter).await?;
    let now = state.elicitations.now_ms();
    let elicitations = pending
        .iter()
        .map(|record| elicitation_view(record, now))
        .collect();
    Ok(Json(ElicitationList { elicitations }))
}

/// The record if it exists and the token may see it (out of scope reads as unknown).
fn scoped(filter: &TenantFilter, record: Option<Record>) -> Result<Record, ApiError> {
    known(record.filter(|record| record.audience().admits(filter)))
}

/// `POST /v1/elicitations/{id}/result`: the person's `ElicitResult`, stored exactly once.
pub async fn answer(
    State(state): State<AppState>,
    PersonToken { filter, name, .. }: PersonToken,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<HostView>, ApiError> {
    let body = json_body(body)?;
    let id = path_id(id, ApiError::no_such_elicitation)?;
    let record = scoped(&filter, state.elicitations.to_change(&id).await?)?;
    let locale = state.messages.negotiate(accepted_languages(&headers));
    let result = match check_answer(&body, &record.request, &state.messages, locale) {
        Ok(result) => result,
        Err(AnswerError::Invalid(error)) => return Err(ApiError::invalid_params(error)),
        Err(AnswerError::Content(errors)) => {
            // Content for one already over is not worth checking: say it is over.
            if record.status != Status::Pending {
                return settled_answer(&record, &body, &filter.user_id);
            }
            return Err(ApiError::invalid_content(errors));
        }
    };
    // The scope's user is the verified token's `sub`.
    let person = Actor::Person {
        sub: filter.user_id.clone(),
    };
    let answered_by = AnsweredBy::Person {
        user_id: filter.user_id.clone(),
        name,
    };
    let changed = state
        .elicitations
        .answer(record, &result, &person, answered_by)
        .await?;
    match changed {
        Changed::ByThisCall(record) => Ok(Json(answer_view(&record))),
        // Another writer won (or it was over already): answer from the row as it is now.
        Changed::Already(record) => settled_answer(&record, &result, &filter.user_id),
    }
}

/// The answer for one no longer pending: the same result again from the same person (a retry)
/// is fine; another one, or another member's, conflicts (the first answer won).
fn settled_answer(record: &Record, result: &Value, user: &str) -> Result<Json<HostView>, ApiError> {
    let same_person = match &record.answered_by {
        Some(AnsweredBy::Person { user_id, .. }) => user_id == user,
        Some(AnsweredBy::Link { .. }) => false,
        None => true,
    };
    match record.status {
        Status::Settled if record.result.as_ref() == Some(result) && same_person => {
            Ok(Json(answer_view(record)))
        }
        Status::Settled => Err(ApiError::conflict(
            "already answered with a different result",
        )),
        Status::Expired => Err(ApiError::gone("this elicitation expired")),
        Status::Withdrawn => Err(ApiError::gone("this elicitation was withdrawn")),
        // Still pending after losing a conditional update cannot happen; never settle twice.
        Status::Pending => Err(ApiError::conflict("try again")),
    }
}

/// `GET /v1/elicitations/{id}/status`.
pub async fn status(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<StatusView>, ApiError> {
    let id = path_id(id, ApiError::no_such_elicitation)?;
    let record = scoped(&filter, state.elicitations.get(&id).await?)?;
    Ok(Json(status_view(&record)))
}
