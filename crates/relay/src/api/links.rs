//! The link holders' API: whoever holds an answer link (`<public-url>/answer/#t=<token>`) reads
//! and answers its one elicitation and nothing else. The token comes in the POST body only
//! (never a query string, which logs, proxies and `Referer` keep), and a POST is what a person
//! does: mail scanners and unfurlers that follow links only GET. The answer page is served from
//! this same origin; `api::router` adds CORS for `--allow-origin` so an app's own service worker
//! can answer a push's action. An unknown, forged or malformed token, and a link whose
//! elicitation retention deleted, all get one identical 404. The view of a pending one-tap
//! question also carries its choices, worded in the caller's `Accept-Language`, so the page
//! shows an e-mail's chosen answer (`c=<n>`) with the core's words and result, never a guess.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use koder_elicitation_relay_protocol::{LinkPageView, LinkView};
use serde_json::Value;

use super::checks::{check_answer, AnswerError};
use super::extract::accepted_languages;
use super::{json_body, AppState, Routes};
use crate::error::ApiError;
use crate::record::{Record, Status};
use crate::service::links::Redeemed;
use crate::service::{Changed, Links};
use crate::tap_choices::tap_choices;
use crate::views::link_view;

/// The one answer for a token that names no link (unknown, forged, malformed, or purged).
pub const NO_SUCH_LINK: &str = "no such link";

/// The link holders' routes.
pub fn routes() -> Routes {
    Routes::new()
        .post("/v1/links/view", view)
        .post("/v1/links/answer", answer)
}

/// `POST /v1/links/view` `{"token"}`: the link's elicitation, as [`link_view`] shows it, and
/// while it is pending and a one-tap shape, its choices in the caller's language.
pub async fn view(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<LinkPageView>, ApiError> {
    let links = links_of(&state)?;
    let body = json_body(body)?;
    let redeemed = redeem(links, &body).await?;
    let record = &redeemed.record;
    let LinkView { elicitation } = link_view(record, state.elicitations.now_ms());
    let one_tap = elicitation.request.as_ref().and_then(|request| {
        tap_choices(
            request,
            state.messages.negotiate(accepted_languages(&headers)),
        )
    });
    Ok(Json(LinkPageView {
        elicitation,
        one_tap,
    }))
}

/// `POST /v1/links/answer` `{"token","result"}`: the person's `ElicitResult`, checked as any
/// person's answer is and stored exactly once, made by the link; 409 once it is over.
pub async fn answer(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<LinkView>, ApiError> {
    let links = links_of(&state)?;
    let body = json_body(body)?;
    let result = body
        .get("result")
        .ok_or_else(|| ApiError::bad_request("result is required: the ElicitResult"))?;
    let redeemed = redeem(links, &body).await?;
    if redeemed.record.status != Status::Pending {
        return Err(already_over(&redeemed.record));
    }
    let locale = state.messages.negotiate(accepted_languages(&headers));
    let request = &redeemed.record.request;
    let result = match check_answer(result, request, &state.messages, locale) {
        Ok(result) => result,
        Err(AnswerError::Invalid(error)) => return Err(ApiError::invalid_params(error)),
        Err(AnswerError::Content(errors)) => return Err(ApiError::invalid_content(errors)),
    };
    match links.answer(redeemed, &result).await? {
        Changed::ByThisCall(record) => Ok(Json(link_view(&record, state.elicitations.now_ms()))),
        Changed::Already(record) => Err(already_over(&record)),
    }
}

/// The links, or 404 when the answer page is off.
pub(super) fn links_of(state: &AppState) -> Result<&Links, ApiError> {
    state.links.as_ref().ok_or_else(answer_page_off)
}

/// 404: the relay runs without `--answer-page`.
pub(super) fn answer_page_off() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "the answer page is off (start the relay with --answer-page)",
    )
}

/// The link the body's `token` names, with its elicitation; 404 [`NO_SUCH_LINK`] otherwise.
async fn redeem(links: &Links, body: &Value) -> Result<Redeemed, ApiError> {
    let token = body
        .get("token")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("token is required: the t= of the link's #"))?;
    Ok(links.redeem(token).await?)
}

/// 409 for an answer to one already over, saying how it ended (never with what).
fn already_over(record: &Record) -> ApiError {
    ApiError::conflict(format!("already {}", record.status.as_str()))
}
