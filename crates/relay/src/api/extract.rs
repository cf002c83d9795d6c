//! Who is calling, as handlers take it: the bearer token (or a stream ticket) checked by
//! [`Auth`], which alone makes a scope from it, and the languages they read.

use axum::extract::{FromRequestParts, Query};
use axum::http::header::{ACCEPT_LANGUAGE, AUTHORIZATION};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use serde::Deserialize;

use super::AppState;
use crate::auth::PersonToken;
use crate::error::ApiError;

fn bearer(parts: &Parts) -> Result<Option<&str>, ApiError> {
    let Some(value) = parts.headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("invalid Authorization header"))?;
    match text.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => Ok(Some(token.trim())),
        _ => Err(ApiError::unauthorized(
            "Authorization must be \"Bearer <token>\"",
        )),
    }
}

/// A caller holding the service token: a host.
#[derive(Debug, Clone, Copy)]
pub struct Host;

impl FromRequestParts<AppState> for Host {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match bearer(parts)? {
            Some(token) if state.auth.is_service_token(token) => Ok(Host),
            Some(_) => Err(ApiError::unauthorized("invalid service token")),
            None => Err(ApiError::unauthorized("missing bearer token")),
        }
    }
}

/// A person's verified token from the Authorization header (and never from the URL).
impl FromRequestParts<AppState> for PersonToken {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match bearer(parts)? {
            Some(token) => state.auth.person(token).await,
            None => Err(ApiError::unauthorized("missing bearer token")),
        }
    }
}

/// What `?access_token=` answers now: long-lived tokens stay out of URLs (and so out of logs).
pub const ACCESS_TOKEN_REFUSED: &str = "?access_token= is not accepted: send the token in the \
     Authorization header, or get a one-use ticket from POST /v1/stream/ticket and open \
     /v1/stream?ticket=…";

/// A person on the stream: the Authorization header, or `?ticket=` (a one-use ticket from
/// `POST /v1/stream/ticket`) for `EventSource`, which cannot send headers. The stream ends when
/// the token behind it does.
#[derive(Debug, Clone)]
pub struct StreamPerson(pub PersonToken);

/// The query of `GET /v1/stream`.
#[derive(Debug, Deserialize)]
struct StreamQuery {
    ticket: Option<String>,
    /// Refused, with the way to do without it.
    access_token: Option<String>,
}

impl FromRequestParts<AppState> for StreamPerson {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(token) = bearer(parts)? {
            return Ok(StreamPerson(state.auth.person(token).await?));
        }
        let Ok(Query(query)) = Query::<StreamQuery>::try_from_uri(&parts.uri) else {
            return Err(ApiError::unauthorized("invalid query string"));
        };
        if query.access_token.is_some() {
            return Err(ApiError::unauthorized(ACCESS_TOKEN_REFUSED));
        }
        let Some(ticket) = query.ticket else {
            return Err(ApiError::unauthorized("missing bearer token"));
        };
        Ok(StreamPerson(state.tickets.redeem(&ticket).await?))
    }
}

/// The language tags of `Accept-Language`, in the order given (weights aside: browsers list
/// them by preference already). A header that is not text gives none, and so en-US.
pub fn accepted_languages(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get(ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .split(',')
        .filter_map(|entry| entry.split(';').next())
        .map(str::trim)
        .filter(|tag| !tag.is_empty() && *tag != "*")
}
