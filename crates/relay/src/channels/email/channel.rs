//! The e-mail channel, on the channels' one delivery loop ([`crate::channels::delivery`]). Each
//! claimed row is checked again before anything is sent: its deadline, its elicitation (a
//! question over by now, answered while `--email-after` passed, is not mailed: the row is done,
//! skipped). The row's link is made then (the same on every attempt; its token derived, so none
//! ever waits in the outbox), the message made and handed to the SMTP server. A connection error or an SMTP 4yz is retried with backoff until the
//! deadline; a 5yz gives it up.

use std::sync::Arc;
use std::time::Duration;

use koder_mcp_elicitation_core::i18n::Locale;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use super::message::Question;
use super::store::{link_key, EmailDelivery, REMINDER, TABLE};
use super::{EmailSettings, SmtpSecurity};
use crate::channels::delivery::{doubling, retry_until, Retry};
use crate::channels::http::ATTEMPT_TIMEOUT;
use crate::channels::{Attempt, Channel};
use crate::service::links::Links;
use crate::service::Elicitations;
use crate::store::outbox::{OutboxTable, Outcome};
use crate::store::{Store, StoreError};

/// The first retry's wait; each one after doubles it, up to [`MAX_RETRY_WAIT`].
const FIRST_RETRY_WAIT: Duration = Duration::from_secs(1);
/// The longest wait between attempts (the deadline ends them anyway).
const MAX_RETRY_WAIT: Duration = Duration::from_secs(5 * 60);
/// How much of an error is kept in the outbox's `last_error`.
const MAX_ERROR_CHARS: usize = 200;

/// What one e-mail came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmailOutcome {
    /// The SMTP server took it.
    Sent,
    /// Failed for now: tried again.
    Retried(Retry),
    /// Not sent: the question was over first (or is gone).
    Skipped(String),
    /// Given up: the server refused it for good (5yz), it cannot be made, or the retries ran
    /// into its deadline.
    Failed(String),
}

impl EmailOutcome {
    /// Its label in `koder_relay_email_deliveries_total{outcome}`.
    pub fn label(&self) -> &'static str {
        match self {
            EmailOutcome::Sent => "sent",
            EmailOutcome::Retried(_) => "retried",
            EmailOutcome::Skipped(_) => "skipped",
            EmailOutcome::Failed(_) => "failed",
        }
    }

    /// What the outbox keeps of it: sent, another attempt, or done (the reason kept).
    fn kept(&self) -> Outcome {
        match self {
            EmailOutcome::Sent => Outcome::Delivered,
            EmailOutcome::Retried(retry) => retry.kept(),
            EmailOutcome::Skipped(reason) => Outcome::GaveUp {
                error: format!("skipped: {reason}"),
            },
            EmailOutcome::Failed(error) => Outcome::GaveUp {
                error: error.clone(),
            },
        }
    }
}

/// The SMTP transport `settings` describe: TLS from the first byte (`smtps://`), STARTTLS
/// required (`smtp://`), or STARTTLS when offered (`smtp://` to the local host). Its roots are
/// the relay's other clients' (rustls-platform-verifier: the system store, or `SSL_CERT_FILE`).
pub fn transport(settings: &EmailSettings) -> Result<AsyncSmtpTransport<Tokio1Executor>, String> {
    let smtp = &settings.smtp;
    let parameters = TlsParameters::builder(smtp.host.clone())
        .build_rustls()
        .map_err(|error| format!("cannot set up TLS for --smtp-url: {error}"))?;
    let tls = match smtp.security {
        SmtpSecurity::Implicit => Tls::Wrapper(parameters),
        SmtpSecurity::StartTls => Tls::Required(parameters),
        SmtpSecurity::StartTlsWhenOffered => Tls::Opportunistic(parameters),
    };
    let from = settings.from_mailbox()?;
    let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(smtp.host.clone())
        .port(smtp.port)
        .tls(tls)
        .timeout(Some(ATTEMPT_TIMEOUT))
        .hello_name(ClientId::Domain(from.email.domain().to_string()));
    if let (Some(user), Some(password)) = (&settings.user, &settings.password) {
        let password = password.expose().to_string();
        builder = builder.credentials(Credentials::new(user.clone(), password));
    }
    Ok(builder.build())
}

/// The e-mail channel: each claimed row's message handed to the SMTP server.
#[derive(Debug)]
pub struct Emails {
    pub(crate) store: Arc<Store>,
    pub(crate) elicitations: Elicitations,
    pub(crate) from: Mailbox,
    pub(crate) transport: AsyncSmtpTransport<Tokio1Executor>,
    pub(crate) links: Links,
}

/// A short description of an SMTP failure (lettre's errors name the kind, the code and the
/// server's words, never the credentials).
fn describe(error: &lettre::transport::smtp::Error) -> String {
    error.to_string().chars().take(MAX_ERROR_CHARS).collect()
}

impl Emails {
    /// Sends one row, or says why it was not sent.
    async fn email(&self, row: &EmailDelivery) -> Result<EmailOutcome, StoreError> {
        let now = self.store.now_ms();
        let Some(record) = self.elicitations.get(&row.elicitation_id).await? else {
            return Ok(EmailOutcome::Skipped("the elicitation is gone".into()));
        };
        if !record.is_open(now) || now >= row.deadline {
            return Ok(EmailOutcome::Skipped("the question was over first".into()));
        }
        let to = match row.address.parse() {
            Ok(address) => Mailbox::new(None, address),
            Err(_) => return Ok(EmailOutcome::Failed("the address does not parse".into())),
        };
        // One link per address, whatever the message (a reminder carries the first one's).
        let link = self
            .links
            .for_message(
                Self::NAME,
                &link_key(&record.id, &row.address),
                &record.id,
                record.expires_at,
                Some(&row.address),
            )
            .await?;
        let question = Question {
            record: &record,
            link: &link.url,
            // The nearest shipped language, else en-US, as the element picks one.
            locale: Locale::negotiate(row.language.as_deref()),
            reminder: row.kind == REMINDER,
        };
        let message = match question.message(self.from.clone(), to, &row.id) {
            Ok(message) => message,
            Err(error) => return Ok(EmailOutcome::Failed(error)),
        };
        Ok(match self.transport.send(message).await {
            Ok(_) => EmailOutcome::Sent,
            Err(error) if error.is_permanent() => EmailOutcome::Failed(describe(&error)),
            Err(error) => self.retry(row, describe(&error)),
        })
    }

    /// Schedules another attempt, unless it would come after the deadline.
    fn retry(&self, row: &EmailDelivery, error: String) -> EmailOutcome {
        let wait = doubling(FIRST_RETRY_WAIT, MAX_RETRY_WAIT, row.attempts, &row.id);
        retry_until(self.store.now_ms(), wait, row.deadline, error)
            .map_or_else(EmailOutcome::Failed, EmailOutcome::Retried)
    }
}

impl Channel for Emails {
    const NAME: &'static str = "email";
    const METRIC_HELP: &'static str = "E-mail attempts by outcome: sent, retried (a connection \
        error or SMTP 4yz), failed (SMTP 5yz, or its deadline passed), skipped (the question was \
        over first)";
    const TABLE: &'static OutboxTable = &TABLE;
    // Only creates that ask for an e-mail queue one.
    const MOSTLY_EMPTY: bool = true;
    type Row = EmailDelivery;

    async fn attempt(&self, row: &EmailDelivery) -> Attempt {
        let outcome = match self.email(row).await {
            Ok(outcome) => outcome,
            // The database could not be read: another attempt, as for a server that did not
            // answer.
            Err(error) => self.retry(row, error.to_string()),
        };
        // The elicitation's id only: the address is a person's.
        match &outcome {
            EmailOutcome::Sent => tracing::info!(elicitation = %row.elicitation_id, "e-mail sent"),
            EmailOutcome::Retried(Retry { wait, error, .. }) => tracing::warn!(
                elicitation = %row.elicitation_id,
                attempt = row.attempts,
                %error,
                retry_in_s = wait.as_secs_f64(),
                "e-mail failed; retrying"
            ),
            EmailOutcome::Skipped(reason) => {
                tracing::info!(elicitation = %row.elicitation_id, %reason, "e-mail not sent")
            }
            EmailOutcome::Failed(reason) => {
                tracing::warn!(elicitation = %row.elicitation_id, %reason, "e-mail given up")
            }
        }
        Attempt {
            label: outcome.label(),
            outcome: outcome.kept(),
        }
    }
}
