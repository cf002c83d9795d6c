//! What a run's flags say together: secrets from where they were given, webhooks and Web Push
//! complete, and then [`Config::check`].

use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::ArgMatches;

use super::{RunFlags, SMTP_PASSWORD_ENV, VAPID_PRIVATE_KEY_ENV, WEBHOOK_SECRET_ENV};
use crate::answer_page::AnswerPageSettings;
use crate::channels::email::EmailSettings;
use crate::channels::push::PushSettings;
use crate::channels::webhooks::{self, RetrySchedule, WebhookConfig, WebhookSecret};
use crate::config::{AuthSettings, Config};
use crate::hub::StreamLimits;
use crate::secret::{check_secret_length, Secret};
use crate::store::DatabaseKind;

impl RunFlags {
    /// What the flags say together: secrets from where they were given, webhooks complete, the
    /// database a supported one, and then [`Config::check`].
    pub(super) fn into_config(mut self, matches: &ArgMatches) -> Result<Config, String> {
        DatabaseKind::named(&self.database, "--database")?;
        let push = self.push_settings(matches)?;
        let email = self.email_settings(matches)?;
        let answer_page = self.answer_page_settings(matches)?;
        let service_token = one_secret(
            matches,
            (self.service_token, "service_token", "--service-token"),
            (
                self.service_token_file,
                "service_token_file",
                "--service-token-file",
            ),
        )?
        .ok_or(
            "missing secret: set --service-token, --service-token-file, KODER_RELAY_SERVICE_TOKEN \
             or KODER_RELAY_SERVICE_TOKEN_FILE",
        )?;
        let jwt_secret = one_secret(
            matches,
            (self.jwt_secret, "jwt_secret", "--jwt-secret"),
            (self.jwt_secret_file, "jwt_secret_file", "--jwt-secret-file"),
        )?;
        let webhook = webhook_config(
            self.webhook_url,
            std::env::var(WEBHOOK_SECRET_ENV).ok(),
            self.webhook_secret_file,
            self.webhook_retry_scale,
        )?;
        let config = Config {
            listen: self.listen,
            database: self.database,
            auth: AuthSettings {
                service_token: Secret::from(service_token),
                jwt_secret: jwt_secret.map(Secret::from),
                jwt_previous_secret: self.jwt_previous_secret.map(Secret::from),
                jwt_audience: self.jwt_audience,
                jwt_issuer: self.jwt_issuer,
                jwks_url: self.jwks_url,
                workspace_claim: self.workspace_claim,
                conversation_claim: self.conversation_claim,
                groups_claim: self.jwt_groups_claim,
            },
            allow_origins: self.allow_origins,
            streams: StreamLimits {
                per_person: self.max_streams_per_person,
                per_replica: self.max_streams,
            },
            webhook,
            push,
            email,
            answer_page,
            retention: self.retention,
            metrics_listen: self.metrics_listen,
            drain_timeout: self.drain_timeout,
            audit_checkpoint_interval: self.audit_checkpoint_interval,
            log_format: self.log_format,
        };
        config.check()?;
        Ok(config)
    }

    /// E-mail from `--smtp-url`, the sender, the allow list, the delay and the credentials (the
    /// password from [`SMTP_PASSWORD_ENV`] or `--smtp-password-file`, one of them); `None`
    /// without an SMTP URL, and then no other e-mail flag may be set.
    fn email_settings(&mut self, matches: &ArgMatches) -> Result<Option<EmailSettings>, String> {
        let file = self.smtp_password_file.take();
        let file_flag = ("smtp_password_file", "--smtp-password-file");
        let password = match env_or_file(matches, SMTP_PASSWORD_ENV, file, file_flag)? {
            // A file's trailing line break is not part of the password.
            Some(Given::File(_, text)) => Some(text.trim_end_matches(['\n', '\r']).to_string()),
            Some(Given::Environment(text)) => Some(text),
            None => None,
        };
        if password.as_deref() == Some("") {
            return Err("the SMTP password is empty".into());
        }
        let Some(smtp) = self.smtp_url.take() else {
            let flags = [
                ("smtp_user", "--smtp-user"),
                ("email_from", "--email-from"),
                ("email_allow_domains", "--email-allow-domain"),
                ("email_after", "--email-after"),
            ];
            if let Some(flag) = first_set(matches, &flags, not_default) {
                return Err(format!(
                    "{flag} is set but the relay has no SMTP server: set --smtp-url"
                ));
            }
            if password.is_some() {
                return Err(format!(
                    "an SMTP password is set ({SMTP_PASSWORD_ENV} or --smtp-password-file) but \
                     --smtp-url is not"
                ));
            }
            return Ok(None);
        };
        let from = self
            .email_from
            .take()
            .ok_or("--email-from is required with --smtp-url (\"Name <address>\" or an address)")?;
        let settings = EmailSettings {
            smtp,
            user: self.smtp_user.take(),
            password: password.map(Secret::from),
            from,
            allow_domains: std::mem::take(&mut self.email_allow_domains),
            after: self.email_after,
        };
        settings.check()?;
        Ok(Some(settings))
    }

    /// Web Push from the VAPID key (a file, or PEM text in [`VAPID_PRIVATE_KEY_ENV`]) and the
    /// push flags; `None` without a key, and then no push flag may be set.
    fn push_settings(&mut self, matches: &ArgMatches) -> Result<Option<PushSettings>, String> {
        let file = self.vapid_private_key_file.take();
        let file_flag = ("vapid_private_key_file", "--vapid-private-key-file");
        let pem = |text: &str, source: &dyn std::fmt::Display| {
            koder_web_push::VapidKey::from_pkcs8_pem(text)
                .map_err(|error| format!("{source}: {error}"))
        };
        let key = match env_or_file(matches, VAPID_PRIVATE_KEY_ENV, file, file_flag)? {
            Some(Given::File(path, text)) => {
                Some(pem(&text, &format!("--vapid-private-key-file {path:?}"))?)
            }
            Some(Given::Environment(text)) => Some(pem(&text, &VAPID_PRIVATE_KEY_ENV)?),
            None => None,
        };
        let Some(vapid) = key else {
            let flags = [
                ("vapid_subject", "--vapid-subject"),
                ("push_endpoint_allow", "--push-endpoint-allow"),
                ("push_open_url", "--push-open-url"),
                ("push_remind_before", "--push-remind-before"),
                (
                    "push_subscriptions_per_person",
                    "--push-subscriptions-per-person",
                ),
            ];
            if let Some(flag) = first_set(matches, &flags, not_default) {
                return Err(format!(
                    "{flag} is set but Web Push has no VAPID key: set --vapid-private-key-file or \
                     {VAPID_PRIVATE_KEY_ENV} (koder-elicitation-relay vapid generate makes one)"
                ));
            }
            return Ok(None);
        };
        let subject = self.vapid_subject.take().ok_or(
            "--vapid-subject is required with a VAPID key (mailto:ops@example.com or an \
             https:// URL): push services contact its owner about problems",
        )?;
        let mut settings = PushSettings::new(vapid, subject)?;
        if let Some(allow) = self.push_endpoint_allow.take() {
            settings.allow = allow;
        }
        settings.open_url = self.push_open_url.take();
        settings.remind_before = self.push_remind_before;
        settings.per_person = self.push_subscriptions_per_person;
        settings.check()?;
        Ok(Some(settings))
    }
}

impl RunFlags {
    /// The answer page from `--answer-page`, `--public-url` and `--answer-page-assets`; `None`
    /// without the first, and then neither of the others may be on the command line (in the
    /// environment they wait for the page: the image sets the assets).
    fn answer_page_settings(
        &mut self,
        matches: &ArgMatches,
    ) -> Result<Option<AnswerPageSettings>, String> {
        let (public_url, assets) = (self.public_url.take(), self.answer_page_assets.take());
        if !self.answer_page {
            let flags = [
                ("public_url", "--public-url"),
                ("answer_page_assets", "--answer-page-assets"),
            ];
            let on_command_line = |source| source == ValueSource::CommandLine;
            if let Some(flag) = first_set(matches, &flags, on_command_line) {
                return Err(format!(
                    "{flag} is set but the answer page is off: add --answer-page (or \
                     KODER_RELAY_ANSWER_PAGE=true)"
                ));
            }
            return Ok(None);
        }
        let public_url = public_url.ok_or(
            "--answer-page needs --public-url (or KODER_RELAY_PUBLIC_URL): the origin its links \
             carry, e.g. https://relay.example.com",
        )?;
        let assets = assets.ok_or(
            "--answer-page needs --answer-page-assets DIR (or KODER_RELAY_ANSWER_PAGE_ASSETS): \
             the element's built files, the package's dist/ directory",
        )?;
        AnswerPageSettings::new(&public_url, assets).map(Some)
    }
}

/// The first of `flags` (clap's id, the flag's name) whose value came from a source `counts`
/// takes: a flag that needs another one and is set without it.
fn first_set<'a>(
    matches: &ArgMatches,
    flags: &[(&str, &'a str)],
    counts: impl Fn(ValueSource) -> bool,
) -> Option<&'a str> {
    flags
        .iter()
        .find(|(id, _)| matches.value_source(id).is_some_and(&counts))
        .map(|(_, flag)| *flag)
}

/// Set on the command line or in the environment, not left at its default.
fn not_default(source: ValueSource) -> bool {
    source != ValueSource::DefaultValue
}

/// Text given in an environment variable or in a file, and which.
enum Given {
    /// The variable's value.
    Environment(String),
    /// The file, and what it holds.
    File(PathBuf, String),
}

/// The text in the environment variable `env` or in the file `file` names (clap's id, the flag;
/// the flag's own variable is `{env}_FILE`): one of them, or the file when it is on the command
/// line; `None` when neither is given.
fn env_or_file(
    matches: &ArgMatches,
    env: &str,
    file: Option<PathBuf>,
    (file_id, file_flag): (&str, &str),
) -> Result<Option<Given>, String> {
    let file_on_command_line = matches.value_source(file_id) == Some(ValueSource::CommandLine);
    match (std::env::var(env).ok(), file) {
        (Some(_), Some(_)) if !file_on_command_line => {
            Err(format!("give {env} or {env}_FILE, not both"))
        }
        (_, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("{file_flag} {path:?} cannot be read: {error}"))?;
            Ok(Some(Given::File(path, text)))
        }
        (Some(text), None) => Ok(Some(Given::Environment(text))),
        (None, None) => Ok(None),
    }
}

/// A secret given directly or in a file (one or the other), `None` when neither is set. Given
/// on the command line in either form, the environment's are not read at all. A file's trailing
/// line break is not part of the secret, and its length is checked here, naming the file (a
/// direct one's by [`Config::check`]).
fn one_secret(
    matches: &ArgMatches,
    (direct, direct_id, flag): (Option<String>, &str, &str),
    (file, file_id, file_flag): (Option<PathBuf>, &str, &str),
) -> Result<Option<String>, String> {
    let on_command_line = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    let (direct, file) = if on_command_line(direct_id) || on_command_line(file_id) {
        (
            direct.filter(|_| on_command_line(direct_id)),
            file.filter(|_| on_command_line(file_id)),
        )
    } else {
        (direct, file)
    };
    match (direct, file) {
        (Some(_), Some(_)) => Err(format!("give {flag} or {file_flag}, not both")),
        (Some(value), None) if value.is_empty() => Err(format!("{flag} is empty; give a secret")),
        (Some(value), None) => Ok(Some(value)),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("{file_flag} {path:?} cannot be read: {error}"))?;
            let value = text.trim_end_matches(['\n', '\r']).to_string();
            check_secret_length(&format!("the secret in {file_flag} {path:?}"), &value)?;
            Ok(Some(value))
        }
        (None, None) => Ok(None),
    }
}

/// Webhooks from `--webhook-url`, its key (from the environment or a file, one of them) and
/// `--webhook-retry-scale`; `None` without a URL.
fn webhook_config(
    url: Option<String>,
    secret: Option<String>,
    secret_file: Option<PathBuf>,
    retry_scale: Option<f64>,
) -> Result<Option<WebhookConfig>, String> {
    let Some(url) = url else {
        if secret.is_some() || secret_file.is_some() || retry_scale.is_some() {
            return Err(format!(
                "a webhook key or --webhook-retry-scale is set but --webhook-url is not \
                 (set --webhook-url or KODER_RELAY_WEBHOOK_URL, or unset {WEBHOOK_SECRET_ENV} \
                 and --webhook-secret-file)"
            ));
        }
        return Ok(None);
    };
    let url = webhooks::parse_url(&url)?;
    let secret = match (secret, secret_file) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "give {WEBHOOK_SECRET_ENV} or --webhook-secret-file, not both"
            ))
        }
        (Some(text), None) => WebhookSecret::parse(&text, WEBHOOK_SECRET_ENV)?,
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path).map_err(|error| {
                format!("--webhook-secret-file {path:?} cannot be read: {error}")
            })?;
            WebhookSecret::parse(&text, &format!("--webhook-secret-file {path:?}"))?
        }
        (None, None) => {
            return Err(format!(
                "--webhook-url needs its whsec_… key: set {WEBHOOK_SECRET_ENV} or \
                 --webhook-secret-file"
            ))
        }
    };
    Ok(Some(WebhookConfig {
        url,
        secret,
        retries: retry_scale.map_or_else(RetrySchedule::default, RetrySchedule::scaled),
    }))
}
