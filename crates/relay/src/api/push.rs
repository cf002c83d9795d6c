//! Web Push routes: the relay's public key, and a person's push subscriptions (their JWT; the
//! person comes from the token, never the body). Every route answers 404 when the relay has no
//! VAPID key.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use koder_elicitation_relay_protocol::{
    PushKey, PushSubscriptionBody, PushSubscriptionCreated, PushSubscriptionList,
};

use super::{json_body, new_id, path_id, AppState};
use crate::auth::PersonToken;
use crate::channels::push::subscriptions::{whole_person, PushSubscriptions, Subscribed};
use crate::error::ApiError;
use crate::service::{Missing, ServiceError};

/// What every push route answers while the relay has no VAPID key.
pub const PUSH_OFF: &str = "Web Push is off: this relay has no VAPID key";

/// The one answer for an unknown subscription id and for another person's.
pub const NO_SUCH_SUBSCRIPTION: &str = "no such push subscription";

/// The subscriptions, or 404 while push is off.
fn push_on(state: &AppState) -> Result<&PushSubscriptions, ApiError> {
    state
        .push
        .as_ref()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, PUSH_OFF))
}

fn no_such_subscription() -> ApiError {
    ServiceError::NotFound(Missing::Subscription).into()
}

/// `GET /v1/push/key`: the browsers' `applicationServerKey`. Public, like any public key.
pub async fn key(State(state): State<AppState>) -> Result<Json<PushKey>, ApiError> {
    let push = push_on(&state)?;
    Ok(Json(PushKey {
        public_key: push.settings.public_key(),
    }))
}

/// `POST /v1/push/subscriptions`: stores `PushSubscription.toJSON()` for the token's person;
/// 201 with a new id, 200 with the same id for an endpoint they subscribed already.
pub async fn subscribe(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<PushSubscriptionCreated>), ApiError> {
    let push = push_on(&state)?;
    // The token's groups, kept with the subscription: a team question's pushes go by them.
    let groups = filter.groups.clone();
    let person = whole_person(filter)?;
    let body = PushSubscriptionBody::try_from(json_body(body)?)
        .map_err(|invalid| ApiError::bad_request(invalid.0))?;
    match push.subscribe(person, groups, body, new_id()?).await? {
        Subscribed::Created(id) => Ok((StatusCode::CREATED, Json(PushSubscriptionCreated { id }))),
        Subscribed::Existing(id) => Ok((StatusCode::OK, Json(PushSubscriptionCreated { id }))),
        Subscribed::Full => Err(ApiError::conflict(format!(
            "this person already has {} push subscriptions, the most a person keeps: delete one \
             (DELETE /v1/push/subscriptions/{{id}}) before adding another",
            push.settings.per_person
        ))),
    }
}

/// `GET /v1/push/subscriptions`: the token's person's, oldest first, without their keys.
pub async fn list(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
) -> Result<Json<PushSubscriptionList>, ApiError> {
    let push = push_on(&state)?;
    let subscriptions = push.list(&whole_person(filter)?).await?;
    Ok(Json(PushSubscriptionList { subscriptions }))
}

/// `DELETE /v1/push/subscriptions/{id}`: 204, or 404 for an unknown id and another person's
/// alike.
pub async fn unsubscribe(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    let push = push_on(&state)?;
    let person = whole_person(filter)?;
    let id = path_id(id, no_such_subscription)?;
    push.unsubscribe(&person, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
