//! What the relay runs with, and what must hold of it whoever built it (the command line in
//! [`crate::cli`], or a program serving the relay itself).

use std::net::SocketAddr;
use std::time::Duration;

use crate::answer_page::AnswerPageSettings;
pub use crate::auth::{
    AuthSettings, DEFAULT_AUDIENCE, DEFAULT_CONVERSATION_CLAIM, DEFAULT_GROUPS_CLAIM,
    DEFAULT_WORKSPACE_CLAIM,
};
use crate::channels::email::EmailSettings;
use crate::channels::push::PushSettings;
use crate::channels::webhooks::WebhookConfig;
use crate::channels::{self, Registry};
use crate::hub::StreamLimits;
use crate::logging::LogFormat;
pub use crate::secret::{check_secret_length, MIN_SECRET_BYTES};
use crate::store::{redact_database, DatabaseKind, Outboxes};

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
    /// Origins allowed by CORS on the people's API and the link routes; empty means no CORS
    /// headers at all.
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
