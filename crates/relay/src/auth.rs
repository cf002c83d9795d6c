//! Who is calling: a host (the service token) or a person (an HS256 JWT). This is the only place
//! a [`TenantFilter`] is made, so every scope the people's API applies comes from a verified token.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts, Query};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use crate::error::ApiError;
use crate::store::TenantFilter;

/// The longest `sub`, `workspace` or `conversation` a token may carry, as the host API allows.
pub const MAX_SCOPE_CHARS: usize = 256;

/// The two secrets and how tokens are checked.
pub struct Auth {
    service_token: Vec<u8>,
    jwt_key: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Auth { .. }")
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    workspace: String,
    #[serde(default)]
    conversation: Option<String>,
}

impl Auth {
    /// Checks hosts against `service_token` and people's tokens against `jwt_secret` (HS256 only,
    /// `exp` required and enforced without leeway).
    pub fn new(service_token: &str, jwt_secret: &str) -> Auth {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        Auth {
            service_token: service_token.as_bytes().to_vec(),
            jwt_key: DecodingKey::from_secret(jwt_secret.as_bytes()),
            validation,
        }
    }

    /// Whether `token` is the service token, compared in constant time.
    pub fn is_service_token(&self, token: &str) -> bool {
        constant_time_eq(token.as_bytes(), &self.service_token)
    }

    /// The scope a person's token grants, or why it grants none.
    pub fn person(&self, token: &str) -> Result<TenantFilter, ApiError> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.jwt_key, &self.validation)
            .map_err(|error| {
                ApiError::unauthorized(match error.kind() {
                    jsonwebtoken::errors::ErrorKind::ExpiredSignature => "token expired",
                    _ => "invalid token",
                })
            })?
            .claims;
        let within = |text: &str| !text.is_empty() && text.chars().count() <= MAX_SCOPE_CHARS;
        if !within(&claims.sub) || !within(&claims.workspace) {
            return Err(ApiError::unauthorized(
                "invalid token: sub and workspace must be non-empty strings",
            ));
        }
        if claims
            .conversation
            .as_deref()
            .is_some_and(|conversation| conversation.chars().count() > MAX_SCOPE_CHARS)
        {
            return Err(ApiError::unauthorized(
                "invalid token: conversation too long",
            ));
        }
        Ok(TenantFilter {
            user_id: claims.sub,
            workspace_id: claims.workspace,
            conversation_id: claims.conversation,
        })
    }
}

/// Equal-length inputs take the same time whatever their content; a length difference is not
/// a secret worth hiding.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    let difference = given
        .iter()
        .zip(expected)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(difference) == 0
}

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

impl<S> FromRequestParts<S> for Host
where
    Arc<Auth>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let auth = Arc::<Auth>::from_ref(state);
        match bearer(parts)? {
            Some(token) if auth.is_service_token(token) => Ok(Host),
            Some(_) => Err(ApiError::unauthorized("invalid service token")),
            None => Err(ApiError::unauthorized("missing bearer token")),
        }
    }
}

/// A person, by the scope of their token (Authorization header only).
#[derive(Debug, Clone)]
pub struct Person(pub TenantFilter);

impl<S> FromRequestParts<S> for Person
where
    Arc<Auth>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let auth = Arc::<Auth>::from_ref(state);
        match bearer(parts)? {
            Some(token) => auth.person(token).map(Person),
            None => Err(ApiError::unauthorized("missing bearer token")),
        }
    }
}

/// A person on the stream: the Authorization header, or `?access_token=` for `EventSource`,
/// which cannot send headers.
#[derive(Debug, Clone)]
pub struct StreamPerson(pub TenantFilter);

impl<S> FromRequestParts<S> for StreamPerson
where
    Arc<Auth>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let auth = Arc::<Auth>::from_ref(state);
        if let Some(token) = bearer(parts)? {
            return auth.person(token).map(StreamPerson);
        }
        let query = Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
            .map_err(|_| ApiError::unauthorized("invalid query string"))?;
        match query.0.get("access_token") {
            Some(token) => auth.person(token).map(StreamPerson),
            None => Err(ApiError::unauthorized("missing bearer token")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header};
    use serde_json::json;

    fn now() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    }

    fn mint(claims: serde_json::Value, secret: &str) -> String {
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    #[test]
    fn a_valid_token_gives_its_scope() {
        let auth = Auth::new("service", "secret");
        let token = mint(
            json!({"sub": "u1", "workspace": "w1", "exp": now() + 60}),
            "secret",
        );
        assert_eq!(
            auth.person(&token).unwrap(),
            TenantFilter {
                user_id: "u1".into(),
                workspace_id: "w1".into(),
                conversation_id: None
            }
        );
        let token = mint(
            json!({"sub": "u1", "workspace": "w1", "conversation": "c", "exp": now() + 60}),
            "secret",
        );
        assert_eq!(
            auth.person(&token).unwrap().conversation_id.as_deref(),
            Some("c")
        );
    }

    #[test]
    fn bad_tokens_are_refused() {
        let auth = Auth::new("service", "secret");
        let forged = mint(
            json!({"sub": "u1", "workspace": "w1", "exp": now() + 60}),
            "other",
        );
        assert_eq!(auth.person(&forged).unwrap_err().message(), "invalid token");
        let expired = mint(
            json!({"sub": "u1", "workspace": "w1", "exp": now() - 1}),
            "secret",
        );
        assert_eq!(
            auth.person(&expired).unwrap_err().message(),
            "token expired"
        );
        let no_exp = mint(json!({"sub": "u1", "workspace": "w1"}), "secret");
        assert!(auth.person(&no_exp).is_err());
        let empty_sub = mint(
            json!({"sub": "", "workspace": "w1", "exp": now() + 60}),
            "secret",
        );
        assert!(auth.person(&empty_sub).is_err());
        assert!(auth.person("service").is_err());
    }

    #[test]
    fn service_token_compare() {
        let auth = Auth::new("service", "secret");
        assert!(auth.is_service_token("service"));
        assert!(!auth.is_service_token("servicf"));
        assert!(!auth.is_service_token("servic"));
        assert!(!auth.is_service_token(""));
    }
}
