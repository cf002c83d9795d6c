//! The push channel, on the channels' one delivery loop ([`crate::channels::delivery`]). Each claimed row
//! is checked again before anything is sent: its deadline, its subscription (still there), its
//! elicitation (a question already over is not pushed), its endpoint (still on the allow list).
//! The payload is built then, encrypted to the subscription's keys, and POSTed with a VAPID
//! token. A 2xx delivers it; 404 or 410 deletes the subscription and its rows; a network
//! failure, 429 or 5xx is retried with backoff (not before its `Retry-After`), until the
//! deadline; any other answer gives it up.

use std::sync::Arc;
use std::time::Duration;

use koder_mcp_elicitation_core::i18n::Locale;
use koder_web_push::{encrypt, PushError, SubscriptionKeys};

use super::deliver::{self, Answer, Push};
use super::payload::{self, ActionAnswer};
use super::store::{PushDelivery, PushKind, PushStore, PushTarget, TABLE};
use super::{PushOrigin, PushSettings};
use crate::channels::delivery::{doubling, retry_until, Retry};
use crate::channels::{Attempt, Channel};
use crate::record::Record;
use crate::service::Elicitations;
use crate::service::Links;
use crate::store::outbox::{OutboxTable, Outcome};
use crate::store::{Store, StoreError};
use crate::time::system_time;

/// The first retry's wait; each one after doubles it, up to [`MAX_RETRY_WAIT`].
const FIRST_RETRY_WAIT: Duration = Duration::from_secs(1);
/// The longest wait between attempts (the deadline ends them anyway).
const MAX_RETRY_WAIT: Duration = Duration::from_secs(10 * 60);
/// How long a VAPID token is good for (RFC 8292 allows at most 24 hours).
const VAPID_VALIDITY: Duration = Duration::from_secs(12 * 3600);

/// What one push came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushOutcome {
    /// The push service has it.
    Delivered,
    /// Failed for now: tried again.
    Retried(Retry),
    /// The subscription is gone (404 or 410, or removed meanwhile): it and its rows are deleted.
    Gone,
    /// Not sent: its deadline passed, or the question was over before it could go.
    Expired(String),
    /// Not sent: its endpoint is not on the allow list (any more).
    Refused(String),
    /// Given up: the push service will never take it, or it cannot be made.
    Failed(String),
}

impl PushOutcome {
    /// Its label in `koder_relay_push_deliveries_total{outcome}`.
    pub fn label(&self) -> &'static str {
        match self {
            PushOutcome::Delivered => "delivered",
            PushOutcome::Retried(_) => "retried",
            PushOutcome::Gone => "gone",
            PushOutcome::Expired(_) => "expired",
            PushOutcome::Refused(_) => "refused",
            PushOutcome::Failed(_) => "failed",
        }
    }

    /// What the outbox keeps of it (nothing for a gone subscription, whose rows are deleted).
    fn kept(&self) -> Outcome {
        match self {
            PushOutcome::Delivered => Outcome::Delivered,
            PushOutcome::Retried(retry) => retry.kept(),
            PushOutcome::Gone => Outcome::Dropped,
            PushOutcome::Expired(error)
            | PushOutcome::Refused(error)
            | PushOutcome::Failed(error) => Outcome::GaveUp {
                error: error.clone(),
            },
        }
    }
}

/// The push channel: each claimed row encrypted to its subscription and POSTed to its push
/// service.
#[derive(Debug)]
pub struct Pushes {
    pub(crate) store: Arc<Store>,
    pub(crate) elicitations: Elicitations,
    pub(crate) pushes: PushStore,
    pub(crate) settings: Arc<PushSettings>,
    /// With the answer page on and no `--push-open-url`: a push opens the link made for its
    /// row.
    pub(crate) links: Option<Links>,
    pub(crate) client: reqwest::Client,
}

/// The wait before attempt `attempts + 1`: doubling from [`FIRST_RETRY_WAIT`] up to
/// [`MAX_RETRY_WAIT`], jittered, and never before the push service's `Retry-After`.
fn retry_wait(attempts: i64, id: &str, retry_after: Option<Duration>) -> Duration {
    doubling(FIRST_RETRY_WAIT, MAX_RETRY_WAIT, attempts, id)
        .max(retry_after.unwrap_or(Duration::ZERO))
}

impl Pushes {
    /// Sends one row, or says why it was not sent.
    async fn push(&self, row: &PushDelivery) -> Result<PushOutcome, StoreError> {
        let store = &self.store;
        let now = store.now_ms();
        let Some(kind) = PushKind::parse(&row.kind) else {
            return Ok(PushOutcome::Failed(format!("unknown kind {:?}", row.kind)));
        };
        if now >= row.deadline {
            return Ok(PushOutcome::Expired("its deadline passed".into()));
        }
        let Some(target) = self.pushes.target(&row.subscription_id).await? else {
            return Ok(PushOutcome::Gone);
        };
        let Some(record) = self.elicitations.get(&row.elicitation_id).await? else {
            return Ok(PushOutcome::Expired("the elicitation is gone".into()));
        };
        let body = match kind {
            PushKind::Settled => payload::settled(&record),
            PushKind::Elicitation | PushKind::Reminder | PushKind::RemindAfter => {
                if !record.is_open(now) {
                    return Ok(PushOutcome::Expired("the question was over first".into()));
                }
                // In the subscription's language as the element picks a locale: the nearest
                // shipped one, else en-US.
                let locale = Locale::negotiate(target.language.as_deref());
                let (url, answer) = self.opened_and_answered(row, &record).await?;
                payload::elicitation(&record, url, now, locale, answer.as_ref())
            }
        };
        let origin = match self.settings.allow.check(&target.endpoint) {
            Ok(origin) => origin,
            Err(refused) => return Ok(PushOutcome::Refused(refused.to_string())),
        };
        let (body, authorization) = match self.seal(&target, &origin, &body, now) {
            Ok(sealed) => sealed,
            Err(error) => return Ok(PushOutcome::Failed(error.to_string())),
        };
        let topic = payload::topic(&record.id);
        let push = Push {
            endpoint: &target.endpoint,
            body,
            ttl_s: (row.deadline - now).div_euclid(1000),
            topic: &topic,
            authorization,
        };
        let clock = system_time(now);
        Ok(match deliver::attempt(&self.client, push, clock).await {
            Answer::Accepted => PushOutcome::Delivered,
            Answer::Gone => PushOutcome::Gone,
            Answer::Rejected { error } => PushOutcome::Failed(error),
            Answer::Busy { retry_after, error } => self.retry(row, retry_after, error),
        })
    }

    /// The page a notification about `record` opens: `--push-open-url` filled in; else, with
    /// the answer page on, the link made for `row` (the same on every attempt); else none. And,
    /// with the page on and a question a push can answer ([`payload::push_tap`]), what its
    /// actions answer through: that same link.
    async fn opened_and_answered(
        &self,
        row: &PushDelivery,
        record: &Record,
    ) -> Result<(Option<String>, Option<ActionAnswer>), StoreError> {
        let tenant = &record.tenant;
        let filled =
            self.settings
                .open_url(&record.id, &tenant.workspace_id, &tenant.conversation_id);
        let Some(links) = &self.links else {
            return Ok((filled, None));
        };
        let tap = payload::push_tap(record);
        if filled.is_some() && tap.is_none() {
            return Ok((filled, None));
        }
        let link = links
            .for_message(Self::NAME, &row.id, &record.id, record.expires_at, None)
            .await?;
        let url = filled.unwrap_or_else(|| link.url.clone());
        let answer = tap.map(|tap| ActionAnswer {
            tap,
            endpoint: links.page().answer_endpoint(),
            link,
        });
        Ok((Some(url), answer))
    }

    /// `body` encrypted to the subscription's keys, and the VAPID `Authorization` for its push
    /// service (`aud` its origin, `exp` [`VAPID_VALIDITY`] from `now_ms`).
    fn seal(
        &self,
        target: &PushTarget,
        origin: &PushOrigin,
        body: &[u8],
        now_ms: i64,
    ) -> Result<(Vec<u8>, String), PushError> {
        let keys = SubscriptionKeys::from_base64url(&target.p256dh, &target.auth)?;
        let expires_at_s = now_ms
            .div_euclid(1000)
            .saturating_add_unsigned(VAPID_VALIDITY.as_secs());
        let authorization = self.settings.vapid.authorization(
            origin.as_str(),
            &self.settings.subject,
            u64::try_from(expires_at_s).unwrap_or(0),
        )?;
        Ok((encrypt(&keys, body)?, authorization))
    }

    /// Schedules another attempt, unless it would come after the deadline.
    fn retry(
        &self,
        row: &PushDelivery,
        retry_after: Option<Duration>,
        error: String,
    ) -> PushOutcome {
        let wait = retry_wait(row.attempts, &row.id, retry_after);
        retry_until(self.store.now_ms(), wait, row.deadline, error)
            .map_or_else(PushOutcome::Expired, PushOutcome::Retried)
    }
}

impl Pushes {
    /// Deletes a subscription its push service says is gone: the subscription first, so no new
    /// push is queued for it, then every push queued for it (this one too).
    async fn forget(&self, subscription: &str) -> Result<(), StoreError> {
        self.store.subscriptions.remove(subscription).await?;
        self.pushes.drop_pushes_to(subscription).await
    }

    /// Says in the log what `outcome` was.
    fn log(row: &PushDelivery, outcome: &PushOutcome) {
        match outcome {
            PushOutcome::Delivered => {}
            PushOutcome::Retried(Retry { wait, error, .. }) => tracing::warn!(
                push_id = %row.id,
                attempt = row.attempts,
                %error,
                retry_in_s = wait.as_secs_f64(),
                "push failed; retrying"
            ),
            PushOutcome::Gone => tracing::info!(
                subscription = %row.subscription_id,
                "push subscription gone; deleted"
            ),
            PushOutcome::Expired(reason) => {
                tracing::info!(push_id = %row.id, %reason, "push not sent")
            }
            PushOutcome::Refused(reason) | PushOutcome::Failed(reason) => {
                tracing::warn!(push_id = %row.id, %reason, "push given up")
            }
        }
    }
}

impl Channel for Pushes {
    const NAME: &'static str = "push";
    const METRIC_HELP: &'static str =
        "Web Push attempts by outcome: delivered, retried, gone (the \
        subscription was removed), expired (its deadline passed or the question was over \
        first), refused (its endpoint is off the allow list), failed";
    const TABLE: &'static OutboxTable = &TABLE;
    // Only creates and ends queue pushes, and only for people with a subscription.
    const MOSTLY_EMPTY: bool = true;
    type Row = PushDelivery;

    async fn attempt(&self, row: &PushDelivery) -> Attempt {
        let mut outcome = match self.push(row).await {
            Ok(outcome) => outcome,
            // The database could not be read: another attempt, as for a push service that
            // did not answer.
            Err(error) => self.retry(row, None, error.to_string()),
        };
        if outcome == PushOutcome::Gone {
            if let Err(error) = self.forget(&row.subscription_id).await {
                outcome = self.retry(row, None, error.to_string());
            }
        }
        Self::log(row, &outcome);
        Attempt {
            label: outcome.label(),
            outcome: outcome.kept(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_double_up_to_a_cap_and_wait_for_retry_after() {
        let first = retry_wait(1, "p", None);
        assert!(first >= Duration::from_millis(800) && first <= Duration::from_millis(1200));
        let third = retry_wait(3, "p", None);
        assert!(third >= Duration::from_millis(3200) && third <= Duration::from_millis(4800));
        assert!(retry_wait(40, "p", None) <= MAX_RETRY_WAIT.mul_f64(1.2));
        assert_eq!(
            retry_wait(1, "p", Some(Duration::from_secs(30))),
            Duration::from_secs(30)
        );
    }
}
