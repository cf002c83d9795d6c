//! Who is calling: a host (the service token) or a person (a JWT: HS256 with the relay's secret,
//! or RS256/ES256/EdDSA from an identity provider's key set). This is the only place a
//! [`TenantFilter`] is made, so every scope the people's API applies comes from a verified token
//! (directly, or through a stream ticket such a token asked for).

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::jwks::KeySet;
use crate::store::{RedeemedTicket, TenantFilter};

mod settings;

pub use settings::{
    AuthSettings, DEFAULT_AUDIENCE, DEFAULT_CONVERSATION_CLAIM, DEFAULT_GROUPS_CLAIM,
    DEFAULT_WORKSPACE_CLAIM,
};

/// The most groups a token may list (more is refused: a token is not a directory).
pub const MAX_TOKEN_GROUPS: usize = 256;
/// The longest `name` claim kept (a longer one is left out of `answeredBy`).
pub const MAX_NAME_CHARS: usize = 256;

// The longest `sub`, workspace or conversation a token may carry, as the host API allows.
use koder_mcp_elicitation_core::limits::MAX_SCOPE_CHARS;

/// The service token, the keys people's tokens are checked with, and what their claims must say.
pub struct Auth {
    service_token: Vec<u8>,
    /// HS256 secrets: the current one first, then the previous one during a rotation.
    secrets: Vec<DecodingKey>,
    key_set: Option<KeySet>,
    audience: String,
    issuer: Option<String>,
    workspace_claim: String,
    conversation_claim: String,
    groups_claim: String,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("hs256_secrets", &self.secrets.len())
            .field("key_set", &self.key_set.is_some())
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// A verified person's token: the scope it grants and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonToken {
    /// What the token lets them see (with the token's groups).
    pub filter: TenantFilter,
    /// The token's `name` claim: who answered, as other members are told.
    pub name: Option<String>,
    /// The token's `exp`, in ms since the Unix epoch.
    pub expires_at_ms: i64,
}

impl Auth {
    /// Checks the settings ([`AuthSettings::check`]) and loads their key set. The error is a
    /// message for whoever started the relay.
    pub async fn new(config: &AuthSettings) -> Result<Auth, String> {
        config.check()?;
        let secrets = config
            .jwt_secret
            .iter()
            .chain(&config.jwt_previous_secret)
            .map(|secret| DecodingKey::from_secret(secret.expose().as_bytes()))
            .collect();
        let key_set = match &config.jwks_url {
            Some(url) => Some(KeySet::load(url).await.map_err(|error| {
                format!("cannot load the key set of --jwks-url {url:?}: {error}")
            })?),
            None => None,
        };
        Ok(Auth {
            service_token: config.service_token.expose().as_bytes().to_vec(),
            secrets,
            key_set,
            audience: config.jwt_audience.clone(),
            issuer: config.jwt_issuer.clone(),
            workspace_claim: config.workspace_claim.clone(),
            conversation_claim: config.conversation_claim.clone(),
            groups_claim: config.groups_claim.clone(),
        })
    }

    /// Whether `token` is the service token, compared in constant time.
    pub fn is_service_token(&self, token: &str) -> bool {
        constant_time_eq(token.as_bytes(), &self.service_token)
    }

    /// The scope a person's token grants and when it ends, or why it grants nothing.
    pub async fn person(&self, token: &str) -> Result<PersonToken, ApiError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| ApiError::unauthorized("invalid token"))?;
        let claims = if header.alg == Algorithm::HS256 {
            // Only the relay's secrets: a public key used as an HMAC secret never gets here.
            self.verify_hs256(token)?
        } else {
            let (Some(key_set), Some(kid)) = (&self.key_set, header.kid.as_deref()) else {
                return Err(ApiError::unauthorized("invalid token"));
            };
            let Some(pinned) = key_set.key(kid).await else {
                return Err(ApiError::unauthorized("invalid token: unknown key (kid)"));
            };
            if pinned.algorithm != header.alg {
                return Err(ApiError::unauthorized("invalid token"));
            }
            jsonwebtoken::decode::<Map<String, Value>>(
                token,
                &pinned.key,
                &self.validation(pinned.algorithm),
            )
            .map_err(|error| self.refusal(error.kind()))?
            .claims
        };
        self.person_from_claims(&claims)
    }

    fn verify_hs256(&self, token: &str) -> Result<Map<String, Value>, ApiError> {
        let validation = self.validation(Algorithm::HS256);
        for secret in &self.secrets {
            match jsonwebtoken::decode::<Map<String, Value>>(token, secret, &validation) {
                Ok(data) => return Ok(data.claims),
                // Maybe signed with the previous secret.
                Err(error) if *error.kind() == ErrorKind::InvalidSignature => continue,
                Err(error) => return Err(self.refusal(error.kind())),
            }
        }
        Err(ApiError::unauthorized("invalid token"))
    }

    /// `exp` and `aud` required, `iss` when configured, `nbf` honoured; no leeway: the relay and
    /// the token's signer are expected to keep time.
    fn validation(&self, algorithm: Algorithm) -> Validation {
        let mut validation = Validation::new(algorithm);
        validation.leeway = 0;
        validation.validate_nbf = true;
        validation.set_audience(&[&self.audience]);
        match &self.issuer {
            Some(issuer) => {
                validation.set_issuer(&[issuer]);
                validation.set_required_spec_claims(&["exp", "aud", "iss"]);
            }
            None => validation.set_required_spec_claims(&["exp", "aud"]),
        }
        validation
    }

    fn refusal(&self, kind: &ErrorKind) -> ApiError {
        ApiError::unauthorized(match kind {
            ErrorKind::ExpiredSignature => "token expired".to_string(),
            ErrorKind::ImmatureSignature => "token not valid yet (nbf)".to_string(),
            ErrorKind::InvalidAudience => {
                format!("invalid token: aud must be {:?}", self.audience)
            }
            ErrorKind::InvalidIssuer => "invalid token: wrong iss".to_string(),
            ErrorKind::MissingRequiredClaim(claim) => format!("invalid token: no {claim} claim"),
            _ => "invalid token".to_string(),
        })
    }

    fn person_from_claims(&self, claims: &Map<String, Value>) -> Result<PersonToken, ApiError> {
        let scope = |name: &str| {
            claims
                .get(name)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty() && text.chars().count() <= MAX_SCOPE_CHARS)
                .map(str::to_string)
        };
        let (Some(user_id), Some(workspace_id)) = (scope("sub"), scope(&self.workspace_claim))
        else {
            return Err(ApiError::unauthorized(format!(
                "invalid token: sub and {} must be non-empty strings of at most {MAX_SCOPE_CHARS} characters",
                self.workspace_claim
            )));
        };
        let conversation_id = match claims.get(&self.conversation_claim) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if text.chars().count() <= MAX_SCOPE_CHARS => {
                Some(text.clone())
            }
            Some(_) => {
                return Err(ApiError::unauthorized(format!(
                    "invalid token: {} must be a string of at most {MAX_SCOPE_CHARS} characters",
                    self.conversation_claim
                )))
            }
        };
        let groups = self.groups(claims)?;
        let name = claims
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty() && name.chars().count() <= MAX_NAME_CHARS)
            .map(str::to_string);
        // Checked by the validation already; a float `exp` counts by its whole seconds.
        let exp_secs = claims
            .get("exp")
            .and_then(|exp| exp.as_i64().or_else(|| exp.as_f64().map(|exp| exp as i64)))
            .ok_or_else(|| ApiError::unauthorized("invalid token: no exp claim"))?;
        Ok(PersonToken {
            filter: TenantFilter {
                user_id,
                workspace_id,
                conversation_id,
                groups,
            },
            name,
            expires_at_ms: exp_secs.saturating_mul(1000),
        })
    }

    /// The token's groups: its groups claim, a list of strings (one string is one group);
    /// absent or null is none. Anything else, or more than [`MAX_TOKEN_GROUPS`], is refused:
    /// a token that means to name groups and cannot is a misconfigured identity provider, and
    /// a clear 401 says so where silently seeing nothing would not.
    fn groups(&self, claims: &Map<String, Value>) -> Result<Vec<String>, ApiError> {
        let refused = || {
            ApiError::unauthorized(format!(
                "invalid token: {} must be a string or a list of at most {MAX_TOKEN_GROUPS} \
                 strings",
                self.groups_claim
            ))
        };
        match claims.get(&self.groups_claim) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(group)) => Ok(vec![group.clone()]),
            Some(Value::Array(groups)) if groups.len() <= MAX_TOKEN_GROUPS => groups
                .iter()
                .map(|group| group.as_str().map(str::to_string).ok_or_else(refused))
                .collect(),
            Some(_) => Err(refused()),
        }
    }
}

/// Equal-length inputs take the same time whatever their content; a length difference is not
/// a secret worth hiding.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    let difference = given
        .iter()
        .zip(expected)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    given.len() == expected.len() && std::hint::black_box(difference) == 0
}

/// What a redeemed stream ticket grants: the scope and the end of the token it was issued for
/// (scopes are made here only, from a token or from a ticket a token bought).
pub fn ticket_grant(redeemed: RedeemedTicket) -> PersonToken {
    PersonToken {
        filter: redeemed.filter,
        // A stream answers nothing: who answered is never asked of a ticket.
        name: None,
        expires_at_ms: redeemed.token_expires_at,
    }
}

/// A fresh stream ticket (128 random bits, hex) and the digest the store keeps instead of it.
pub fn new_ticket() -> Result<(String, String), getrandom::Error> {
    let ticket = koder_elicitation_relay_protocol::random_id()?;
    let digest = ticket_digest(&ticket);
    Ok((ticket, digest))
}

/// SHA-256 of a ticket, hex: what a database leak would show cannot be redeemed.
pub fn ticket_digest(ticket: &str) -> String {
    crate::canonical::sha256_hex(ticket.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::MIN_SECRET_BYTES;
    use jsonwebtoken::{EncodingKey, Header};
    use koder_elicitation_relay_protocol::now_ms;
    use serde_json::json;

    const SERVICE: &str = "service-token-0123456789abcdef0123";
    const SECRET: &str = "jwt-secret-0123456789abcdef0123456789";
    const PREVIOUS: &str = "previous-jwt-secret-0123456789abcdef";

    fn now() -> i64 {
        now_ms() / 1000
    }

    async fn auth(config: AuthSettings) -> Auth {
        Auth::new(&config).await.unwrap()
    }

    fn mint(claims: Value, secret: &str) -> String {
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    fn claims(extra: Value) -> Value {
        let mut claims =
            json!({"sub": "u1", "workspace": "w1", "aud": DEFAULT_AUDIENCE, "exp": now() + 60});
        for (name, value) in extra.as_object().unwrap() {
            claims[name] = value.clone();
        }
        claims
    }

    async fn refusal(auth: &Auth, token: &str) -> String {
        auth.person(token).await.unwrap_err().message().to_string()
    }

    #[tokio::test]
    async fn a_valid_token_gives_its_scope_and_its_end() {
        let auth = auth(AuthSettings::new(SERVICE, SECRET)).await;
        let exp = now() + 60;
        let token = auth
            .person(&mint(claims(json!({"exp": exp})), SECRET))
            .await
            .unwrap();
        assert_eq!(
            token.filter,
            TenantFilter {
                user_id: "u1".into(),
                workspace_id: "w1".into(),
                conversation_id: None,
                groups: Vec::new(),
            }
        );
        assert_eq!(token.expires_at_ms, exp * 1000);
        let token = mint(claims(json!({"conversation": "c"})), SECRET);
        assert_eq!(
            auth.person(&token)
                .await
                .unwrap()
                .filter
                .conversation_id
                .as_deref(),
            Some("c")
        );
        // `aud` may be a list naming the relay among others.
        let token = mint(claims(json!({"aud": ["app", DEFAULT_AUDIENCE]})), SECRET);
        assert!(auth.person(&token).await.is_ok());
    }

    #[tokio::test]
    async fn bad_tokens_are_refused() {
        let auth = auth(AuthSettings::new(SERVICE, SECRET)).await;
        assert_eq!(
            refusal(&auth, &mint(claims(json!({})), PREVIOUS)).await,
            "invalid token"
        );
        assert_eq!(
            refusal(&auth, &mint(claims(json!({"exp": now() - 1})), SECRET)).await,
            "token expired"
        );
        assert_eq!(
            refusal(&auth, &mint(claims(json!({"nbf": now() + 30})), SECRET)).await,
            "token not valid yet (nbf)"
        );
        let mut no_aud = claims(json!({}));
        no_aud.as_object_mut().unwrap().remove("aud");
        assert_eq!(
            refusal(&auth, &mint(no_aud, SECRET)).await,
            "invalid token: no aud claim"
        );
        assert!(refusal(&auth, &mint(claims(json!({"aud": "app"})), SECRET))
            .await
            .contains("aud must be"));
        let mut no_exp = claims(json!({}));
        no_exp.as_object_mut().unwrap().remove("exp");
        assert!(auth.person(&mint(no_exp, SECRET)).await.is_err());
        for extra in [
            json!({"sub": ""}),
            json!({"workspace": 7}),
            json!({"workspace": "w".repeat(257)}),
            json!({"conversation": 7}),
        ] {
            assert!(
                auth.person(&mint(claims(extra.clone()), SECRET))
                    .await
                    .is_err(),
                "{extra}"
            );
        }
        assert!(auth.person(SERVICE).await.is_err());
        let hs384 = jsonwebtoken::encode(
            &Header::new(Algorithm::HS384),
            &claims(json!({})),
            &EncodingKey::from_secret(SECRET.as_bytes()),
        )
        .unwrap();
        assert_eq!(refusal(&auth, &hs384).await, "invalid token");
    }

    #[tokio::test]
    async fn the_previous_secret_the_issuer_and_the_claim_names_are_honoured() {
        let mut rotating = AuthSettings::new(SERVICE, SECRET);
        rotating.jwt_previous_secret = Some(PREVIOUS.into());
        rotating.jwt_issuer = Some("https://idp.example".into());
        rotating.workspace_claim = "https://app.example/workspace".into();
        rotating.conversation_claim = "https://app.example/conversation".into();
        let auth = auth(rotating).await;
        let namespaced = claims(json!({
            "iss": "https://idp.example",
            "https://app.example/workspace": "w9",
            "https://app.example/conversation": "c9",
        }));
        for secret in [SECRET, PREVIOUS] {
            let token = auth
                .person(&mint(namespaced.clone(), secret))
                .await
                .unwrap();
            assert_eq!(token.filter.workspace_id, "w9");
            assert_eq!(token.filter.conversation_id.as_deref(), Some("c9"));
        }
        let mut no_iss = namespaced.clone();
        no_iss.as_object_mut().unwrap().remove("iss");
        assert_eq!(
            refusal(&auth, &mint(no_iss, SECRET)).await,
            "invalid token: no iss claim"
        );
        let mut other_iss = namespaced;
        other_iss["iss"] = json!("https://other.example");
        assert_eq!(
            refusal(&auth, &mint(other_iss, SECRET)).await,
            "invalid token: wrong iss"
        );
    }

    #[tokio::test]
    async fn short_or_missing_secrets_stop_the_start() {
        let mut short = AuthSettings::new(SERVICE, SECRET);
        short.jwt_secret = Some("x".repeat(MIN_SECRET_BYTES - 1).into());
        assert!(Auth::new(&short)
            .await
            .unwrap_err()
            .contains("--jwt-secret"));
        let mut short = AuthSettings::new(SERVICE, SECRET);
        short.service_token = "s".into();
        assert!(Auth::new(&short)
            .await
            .unwrap_err()
            .contains("--service-token"));
        let mut short = AuthSettings::new(SERVICE, SECRET);
        short.jwt_previous_secret = Some("p".into());
        assert!(Auth::new(&short)
            .await
            .unwrap_err()
            .contains("--jwt-previous-secret"));
        let mut none = AuthSettings::new(SERVICE, SECRET);
        none.jwt_secret = None;
        assert!(Auth::new(&none).await.unwrap_err().contains("--jwks-url"));
    }

    #[tokio::test]
    async fn groups_come_from_the_named_claim_and_the_name_is_kept() {
        let mut named = AuthSettings::new(SERVICE, SECRET);
        named.groups_claim = "roles".into();
        let auth = auth(named).await;
        let person = |extra: Value| {
            let token = mint(claims(extra), SECRET);
            let auth = &auth;
            async move { auth.person(&token).await }
        };
        let listed = person(json!({"roles": ["ops", "db"], "name": "Ana"}))
            .await
            .unwrap();
        assert_eq!(listed.filter.groups, ["ops", "db"]);
        assert_eq!(listed.name.as_deref(), Some("Ana"));
        let one = person(json!({"roles": "ops"})).await.unwrap();
        assert_eq!(one.filter.groups, ["ops"]);
        assert!(person(json!({"groups": ["ops"]}))
            .await
            .unwrap()
            .filter
            .groups
            .is_empty());
        for bad in [
            json!({"roles": 7}),
            json!({"roles": ["ops", 7]}),
            json!({"roles": {}}),
        ] {
            let refusal = person(bad.clone()).await.unwrap_err();
            assert!(refusal.message().contains("roles must be"), "{bad}");
        }
    }

    #[test]
    fn service_token_compare() {
        assert!(constant_time_eq(b"service", b"service"));
        assert!(!constant_time_eq(b"servicf", b"service"));
        assert!(!constant_time_eq(b"servic", b"service"));
        assert!(!constant_time_eq(b"", b"service"));
    }

    #[test]
    fn tickets_are_kept_by_digest_only() {
        let (ticket, digest) = new_ticket().unwrap();
        assert_eq!(ticket.len(), 32);
        assert_eq!(digest.len(), 64);
        assert_ne!(ticket, digest);
        assert_eq!(ticket_digest(&ticket), digest);
        assert_eq!(
            ticket_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
