//! How people's tokens are checked, and the hosts' token: what [`Auth`](super::Auth) is made
//! from. The command line (or a program serving the relay itself) builds these; secrets are
//! [`Secret`]s, so the settings can be logged whole.

use crate::secret::{check_secret_length, Secret};

/// The `aud` people's tokens carry unless `--jwt-audience` says otherwise.
pub const DEFAULT_AUDIENCE: &str = "koder-elicitation-relay";
/// The claim naming the workspace unless `--workspace-claim` says otherwise.
pub const DEFAULT_WORKSPACE_CLAIM: &str = "workspace";
/// The claim naming the conversation unless `--conversation-claim` says otherwise.
pub const DEFAULT_CONVERSATION_CLAIM: &str = "conversation";
/// The claim listing the person's groups unless `--jwt-groups-claim` says otherwise.
pub const DEFAULT_GROUPS_CLAIM: &str = "groups";

/// The hosts' token, and the keys and claims people's tokens are checked with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSettings {
    /// The bearer token of the host API (at least 32 bytes).
    pub service_token: Secret,
    /// The HS256 secret of people's JWTs (at least 32 bytes); `None` with a key set only.
    pub jwt_secret: Option<Secret>,
    /// The HS256 secret before `jwt_secret`, still accepted during a rotation.
    pub jwt_previous_secret: Option<Secret>,
    /// The `aud` people's tokens must carry.
    pub jwt_audience: String,
    /// The `iss` people's tokens must carry, when set.
    pub jwt_issuer: Option<String>,
    /// An identity provider's JWKS (`https://…` or `file:///…`) for RS256, ES256 and EdDSA tokens.
    pub jwks_url: Option<String>,
    /// The claim naming the workspace.
    pub workspace_claim: String,
    /// The claim naming the conversation.
    pub conversation_claim: String,
    /// The claim listing the person's groups (a team question's `audience.groups`).
    pub groups_claim: String,
}

impl AuthSettings {
    /// HS256 tokens with `jwt_secret`, the default audience and claim names.
    pub fn new(service_token: impl Into<String>, jwt_secret: impl Into<String>) -> AuthSettings {
        AuthSettings {
            service_token: Secret::from(service_token.into()),
            jwt_secret: Some(Secret::from(jwt_secret.into())),
            jwt_previous_secret: None,
            jwt_audience: DEFAULT_AUDIENCE.to_string(),
            jwt_issuer: None,
            jwks_url: None,
            workspace_claim: DEFAULT_WORKSPACE_CLAIM.to_string(),
            conversation_claim: DEFAULT_CONVERSATION_CLAIM.to_string(),
            groups_claim: DEFAULT_GROUPS_CLAIM.to_string(),
        }
    }

    /// Secrets of at least [`MIN_SECRET_BYTES`](crate::secret::MIN_SECRET_BYTES), a way to check people's tokens, a current
    /// HS256 secret beside a previous one, and no empty claim names. The error names the flag.
    pub fn check(&self) -> Result<(), String> {
        check_secret_length("--service-token", self.service_token.expose())?;
        if let Some(secret) = &self.jwt_secret {
            check_secret_length("--jwt-secret", secret.expose())?;
        }
        if self.jwt_secret.is_none() && self.jwks_url.is_none() {
            return Err(
                "missing key for people's tokens: set --jwt-secret, --jwt-secret-file, \
                 KODER_RELAY_JWT_SECRET or KODER_RELAY_JWT_SECRET_FILE (HS256), or --jwks-url / \
                 KODER_RELAY_JWKS_URL (an identity provider), or both"
                    .into(),
            );
        }
        if let Some(previous) = &self.jwt_previous_secret {
            check_secret_length("--jwt-previous-secret", previous.expose())?;
            if self.jwt_secret.is_none() {
                return Err("--jwt-previous-secret needs --jwt-secret (the current one)".into());
            }
        }
        let named = [
            (Some(self.jwt_audience.as_str()), "--jwt-audience"),
            (Some(self.workspace_claim.as_str()), "--workspace-claim"),
            (
                Some(self.conversation_claim.as_str()),
                "--conversation-claim",
            ),
            (Some(self.groups_claim.as_str()), "--jwt-groups-claim"),
            (self.jwt_issuer.as_deref(), "--jwt-issuer"),
        ];
        if let Some((_, flag)) = named.iter().find(|(value, _)| *value == Some("")) {
            return Err(format!("{flag} is empty"));
        }
        Ok(())
    }
}
