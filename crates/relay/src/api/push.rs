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
    PushSubscriptionView,
};
use koder_web_push::SubscriptionKeys;

use super::{json_body, new_id, AppState};
use crate::auth::PersonToken;
use crate::error::ApiError;
use crate::push::PushSettings;
use crate::store::{PushSubscriptionRow, Subscribed, TenantFilter};

/// What every push route answers while the relay has no VAPID key.
pub const PUSH_OFF: &str = "Web Push is off: this relay has no VAPID key";

/// The one answer for an unknown subscription id and for another person's.
pub const NO_SUCH_SUBSCRIPTION: &str = "no such push subscription";

/// The settings, or 404 while push is off.
fn push_on(state: &AppState) -> Result<&PushSettings, ApiError> {
    state
        .push
        .as_deref()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, PUSH_OFF))
}

/// The person a subscription belongs to: a user in a workspace. A token limited to one
/// conversation may not subscribe: the pushes would tell of the person's other conversations.
fn whole_person(filter: TenantFilter) -> Result<(String, String), ApiError> {
    if filter.conversation_id.is_some() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "a token limited to one conversation cannot manage the person's push subscriptions \
             (they receive pushes from every conversation): use a token without a conversation \
             claim",
        ));
    }
    Ok((filter.user_id, filter.workspace_id))
}

/// `GET /v1/push/key`: the browsers' `applicationServerKey`. Public, like any public key.
pub async fn key(State(state): State<AppState>) -> Result<Json<PushKey>, ApiError> {
    let push = push_on(&state)?;
    Ok(Json(PushKey {
        public_key: push.public_key(),
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
    let (user_id, workspace_id) = whole_person(filter)?;
    let body = PushSubscriptionBody::try_from(json_body(body)?)
        .map_err(|invalid| ApiError::bad_request(invalid.0))?;
    push.allow
        .check(&body.endpoint)
        .map_err(|refused| ApiError::bad_request(refused.to_string()))?;
    SubscriptionKeys::from_base64url(&body.keys.p256dh, &body.keys.auth)
        .map_err(|error| ApiError::bad_request(format!("keys: {error}")))?;
    let row = PushSubscriptionRow {
        id: new_id()?,
        user_id,
        workspace_id,
        endpoint: body.endpoint,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        created_at: state.store.now_ms(),
    };
    let cap = i64::try_from(push.per_person).unwrap_or(i64::MAX);
    match state.store.subscriptions.subscribe(&row, cap).await? {
        Subscribed::Created(id) => Ok((StatusCode::CREATED, Json(PushSubscriptionCreated { id }))),
        Subscribed::Existing(id) => Ok((StatusCode::OK, Json(PushSubscriptionCreated { id }))),
        Subscribed::Full => Err(ApiError::conflict(format!(
            "this person already has {} push subscriptions, the most a person keeps: delete one \
             (DELETE /v1/push/subscriptions/{{id}}) before adding another",
            push.per_person
        ))),
    }
}

/// `GET /v1/push/subscriptions`: the token's person's, oldest first, without their keys.
pub async fn list(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
) -> Result<Json<PushSubscriptionList>, ApiError> {
    push_on(&state)?;
    let (user_id, workspace_id) = whole_person(filter)?;
    let rows = state
        .store
        .subscriptions
        .list_for_person(&user_id, &workspace_id)
        .await?;
    let subscriptions = rows
        .into_iter()
        .map(|row| PushSubscriptionView {
            id: row.id,
            endpoint: row.endpoint,
            created_at: row.created_at,
        })
        .collect();
    Ok(Json(PushSubscriptionList { subscriptions }))
}

/// `DELETE /v1/push/subscriptions/{id}`: 204, or 404 for an unknown id and another person's
/// alike.
pub async fn unsubscribe(
    State(state): State<AppState>,
    PersonToken { filter, .. }: PersonToken,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    push_on(&state)?;
    let (user_id, workspace_id) = whole_person(filter)?;
    let no_such = || ApiError::new(StatusCode::NOT_FOUND, NO_SUCH_SUBSCRIPTION);
    let Ok(Path(id)) = id else {
        return Err(no_such());
    };
    if state
        .store
        .subscriptions
        .delete_for_person(&id, &user_id, &workspace_id)
        .await?
    {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(no_such())
    }
}
