//! What the relay runs with, and what must hold of it whoever built it (the command line in
//! [`crate::cli`], or a program serving the relay itself).

use std::net::SocketAddr;
use std::time::Duration;

use crate::answer_page::AnswerPageSettings;
use crate::channels::email::EmailSettings;
use crate::channels::push::PushSettings;
use crate::channels::webhooks::WebhookConfig;
use crate::channels::{self, Registry};
use crate::hub::StreamLimits;
use crate::logging::LogFormat;
use crate::store::{redact_database, DatabaseKind, Outboxes};

/// The shortest service token or HS256 secret the relay starts with: shorter ones can be guessed.
pub const MIN_SECRET_BYTES: usize = 32;
/// The `aud` people's tokens carry unless `--jwt-audience` says otherwise.
pub const DEFAULT_AUDIENCE: &str = "koder-elicitation-relay";
/// The claim naming the workspace unless `--workspace-claim` says otherwise.
pub const DEFAULT_WORKSPACE_CLAIM: &str = "workspace";
/// The claim naming the conversation unless `--conversation-claim` says otherwise.
pub const DEFAULT_CONVERSATION_CLAIM: &str = "conversation";

/// The address used without `--listen`.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8790";
/// How long a stopping relay waits for open requests without `--drain-timeout`.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// The database used without `--database`: a SQLite file in the working directory.
pub const DEFAULT_DATABASE: &str = "sqlite://koder-elicitation-relay.db";

/// How long finished elicitations are kept without `--retention`: 30 days.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// How often the audit trail is checkpointed without `--audit-checkpoint-interval`.
pub const DEFAULT_AUDIT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(60);

/// Everything the server needs.
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// `sqlite://PATH` or `postgres://…`.
    pub database: String,
    /// Who may call: the hosts' token, and how people's tokens are checked.
    pub auth: AuthSettings,
    /// Origins allowed by CORS on the people's API; empty means no CORS headers at all.
    pub allow_origins: Vec<String>,
    /// How many streams may be open.
    pub streams: StreamLimits,
    /// Where webhooks go, when they are on.
    pub webhook: Option<WebhookConfig>,
    /// Web Push, when the relay has a VAPID key.
    pub push: Option<PushSettings>,
    /// E-mail, when the relay has an SMTP server (`--smtp-url`).
    pub email: Option<EmailSettings>,
    /// The answer page and its links, when `--answer-page` is on.
    pub answer_page: Option<AnswerPageSettings>,
    /// How long finished elicitations are kept before the sweeper deletes them.
    pub retention: Duration,
    /// A second address serving `/metrics` (and the probes) without auth, when set.
    pub metrics_listen: Option<SocketAddr>,
    /// How long a stop waits for open requests before dropping them.
    pub drain_timeout: Duration,
    /// How often the audit trail is checkpointed.
    pub audit_checkpoint_interval: Duration,
    /// How log lines are written; `None`: JSON unless stderr is a terminal.
    pub log_format: Option<LogFormat>,
}

/// The hosts' token, and the keys and claims people's tokens are checked with.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthSettings {
    /// The bearer token of the host API (at least 32 bytes).
    pub service_token: String,
    /// The HS256 secret of people's JWTs (at least 32 bytes); `None` with a key set only.
    pub jwt_secret: Option<String>,
    /// The HS256 secret before `jwt_secret`, still accepted during a rotation.
    pub jwt_previous_secret: Option<String>,
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
}

impl Config {
    /// A configuration with the defaults: SQLite in the working directory on
    /// [`DEFAULT_LISTEN`], HS256 tokens with `jwt_secret`, the default audience and claim names,
    /// no CORS.
    pub fn new(service_token: impl Into<String>, jwt_secret: impl Into<String>) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8790)),
            database: DEFAULT_DATABASE.to_string(),
            auth: AuthSettings::new(service_token, jwt_secret),
            allow_origins: Vec::new(),
            streams: StreamLimits::default(),
            webhook: None,
            push: None,
            email: None,
            answer_page: None,
            retention: DEFAULT_RETENTION,
            metrics_listen: None,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            audit_checkpoint_interval: DEFAULT_AUDIT_CHECKPOINT_INTERVAL,
            log_format: None,
        }
    }

    /// What must hold whoever built the configuration: a supported database, the
    /// [`AuthSettings::check`], whole Web Push settings, and an answer page with its origin and
    /// the element's files. The error names the flag.
    pub fn check(&self) -> Result<(), String> {
        DatabaseKind::named(&self.database, "--database")?;
        self.auth.check()?;
        if let Some(push) = &self.push {
            push.check()?;
        }
        if let Some(email) = &self.email {
            email.check()?;
            if self.answer_page.is_none() {
                return Err(
                    "--smtp-url needs the answer page, which its messages link to: set \
                     --answer-page and --public-url (or KODER_RELAY_ANSWER_PAGE and \
                     KODER_RELAY_PUBLIC_URL)"
                        .into(),
                );
            }
        }
        if let Some(page) = &self.answer_page {
            page.check()?;
        }
        Ok(())
    }

    /// The relay's channels, each on when its flags are given: webhooks with `--webhook-url`,
    /// pushes with a VAPID key, e-mails with `--smtp-url`.
    pub fn channels(&self) -> Registry {
        channels::registry(
            self.webhook.as_ref(),
            self.push.as_ref(),
            self.email.as_ref(),
        )
    }

    /// The outboxes the store must queue to: those of the channels that are on.
    pub fn outboxes(&self) -> Outboxes {
        self.channels().outboxes()
    }
}

impl AuthSettings {
    /// HS256 tokens with `jwt_secret`, the default audience and claim names.
    pub fn new(service_token: impl Into<String>, jwt_secret: impl Into<String>) -> AuthSettings {
        AuthSettings {
            service_token: service_token.into(),
            jwt_secret: Some(jwt_secret.into()),
            jwt_previous_secret: None,
            jwt_audience: DEFAULT_AUDIENCE.to_string(),
            jwt_issuer: None,
            jwks_url: None,
            workspace_claim: DEFAULT_WORKSPACE_CLAIM.to_string(),
            conversation_claim: DEFAULT_CONVERSATION_CLAIM.to_string(),
        }
    }

    /// Secrets of at least [`MIN_SECRET_BYTES`], a way to check people's tokens, a current
    /// HS256 secret beside a previous one, and no empty claim names. The error names the flag.
    pub fn check(&self) -> Result<(), String> {
        check_secret_length("--service-token", &self.service_token)?;
        if let Some(secret) = &self.jwt_secret {
            check_secret_length("--jwt-secret", secret)?;
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
            check_secret_length("--jwt-previous-secret", previous)?;
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
            (self.jwt_issuer.as_deref(), "--jwt-issuer"),
        ];
        if let Some((_, flag)) = named.iter().find(|(value, _)| *value == Some("")) {
            return Err(format!("{flag} is empty"));
        }
        Ok(())
    }
}

// Secrets stay out of logs.

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("listen", &self.listen)
            .field("database", &redact_database(&self.database))
            .field("auth", &self.auth)
            .field("allow_origins", &self.allow_origins)
            .field("streams", &self.streams)
            .field("webhook", &self.webhook)
            .field("push", &self.push)
            .field("email", &self.email)
            .field("answer_page", &self.answer_page)
            .field("retention", &self.retention)
            .field("metrics_listen", &self.metrics_listen)
            .field("drain_timeout", &self.drain_timeout)
            .field("audit_checkpoint_interval", &self.audit_checkpoint_interval)
            .field("log_format", &self.log_format)
            .finish()
    }
}

impl std::fmt::Debug for AuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |secret: &Option<String>| secret.as_ref().map(|_| "<redacted>");
        f.debug_struct("AuthSettings")
            .field("service_token", &"<redacted>")
            .field("jwt_secret", &redacted(&self.jwt_secret))
            .field("jwt_previous_secret", &redacted(&self.jwt_previous_secret))
            .field("jwt_audience", &self.jwt_audience)
            .field("jwt_issuer", &self.jwt_issuer)
            .field("jwks_url", &self.jwks_url)
            .field("workspace_claim", &self.workspace_claim)
            .field("conversation_claim", &self.conversation_claim)
            .finish()
    }
}

/// Refuses a secret shorter than [`MIN_SECRET_BYTES`], naming the flag it came from.
pub fn check_secret_length(flag: &str, secret: &str) -> Result<(), String> {
    if secret.len() < MIN_SECRET_BYTES {
        return Err(format!(
            "{flag} is {} bytes; give at least {MIN_SECRET_BYTES} (for example: openssl rand -hex 32)",
            secret.len()
        ));
    }
    Ok(())
}
