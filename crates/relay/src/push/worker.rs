//! The push worker, on the outboxes' shared loop ([`crate::delivery::worker`]). Each claimed row
//! is checked again before anything is sent: its deadline, its subscription (still there), its
//! elicitation (a question already over is not pushed), its endpoint (still on the allow list).
//! The payload is built then, encrypted to the subscription's keys, and POSTed with a VAPID
//! token. A 2xx delivers it; 404 or 410 deletes the subscription and its rows; a network
//! failure, 429 or 5xx is retried with backoff (not before its `Retry-After`), until the
//! deadline; any other answer gives it up.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use koder_mcp_elicitation_core::i18n::Locale;
use koder_web_push::{encrypt, PushError, SubscriptionKeys};

use super::deliver::{self, Answer, Push};
use super::payload;
use super::{PushOrigin, PushSettings};
use crate::delivery::worker::{doubling, millis, Outbox};
use crate::metrics::DeliveryMetrics;
use crate::record::{Record, Status};
use crate::service::Links;
use crate::store::outbox::Outcome;
use crate::store::push_outbox::{PushDelivery, PushKind, PushTarget};
use crate::store::{Store, StoreError};

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
    /// Failed for now: tried again at `next_attempt_at`, in `wait`.
    Retried {
        /// When (ms since the Unix epoch).
        next_attempt_at: i64,
        /// How long from now.
        wait: Duration,
        /// Why.
        error: String,
    },
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
            PushOutcome::Retried { .. } => "retried",
            PushOutcome::Gone => "gone",
            PushOutcome::Expired(_) => "expired",
            PushOutcome::Refused(_) => "refused",
            PushOutcome::Failed(_) => "failed",
        }
    }

    /// What the outbox keeps of it (`None` for a gone subscription, whose rows are deleted).
    fn kept(&self) -> Option<Outcome> {
        match self {
            PushOutcome::Delivered => Some(Outcome::Delivered),
            PushOutcome::Retried {
                next_attempt_at,
                error,
                ..
            } => Some(Outcome::Retry {
                next_attempt_at: *next_attempt_at,
                error: error.clone(),
            }),
            PushOutcome::Gone => None,
            PushOutcome::Expired(error)
            | PushOutcome::Refused(error)
            | PushOutcome::Failed(error) => Some(Outcome::GaveUp {
                error: error.clone(),
            }),
        }
    }
}

/// One claimed row and what came of it.
#[derive(Debug)]
pub struct PushAttempt {
    row: PushDelivery,
    outcome: PushOutcome,
}

/// The push outbox as its worker sees it, for the outboxes' shared loop
/// ([`crate::delivery::worker::run`]).
#[derive(Debug)]
pub struct Pushes {
    pub(crate) store: Arc<Store>,
    pub(crate) settings: Arc<PushSettings>,
    /// With the answer page on and no `--push-open-url`: a push opens a link minted as it is
    /// sent.
    pub(crate) links: Option<Links>,
    pub(crate) client: reqwest::Client,
    pub(crate) counts: DeliveryMetrics,
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
        let Some(target) = store.push_outbox.target(&row.subscription_id).await? else {
            return Ok(PushOutcome::Gone);
        };
        let Some(record) = store.elicitations.get(&row.elicitation_id).await? else {
            return Ok(PushOutcome::Expired("the elicitation is gone".into()));
        };
        let body = match kind {
            PushKind::Settled => payload::settled(&record),
            PushKind::Elicitation | PushKind::Reminder => {
                if record.status != Status::Pending || record.expires_at <= now {
                    return Ok(PushOutcome::Expired("the question was over first".into()));
                }
                let url = self.open_url(&record).await?;
                // In the subscription's language as the element picks a locale: the nearest
                // shipped one, else en-US.
                let locale = Locale::negotiate(target.language.as_deref());
                payload::elicitation(&record, url, now, locale)
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
        let clock = SystemTime::UNIX_EPOCH + Duration::from_millis(now.unsigned_abs());
        Ok(match deliver::attempt(&self.client, push, clock).await {
            Answer::Accepted => PushOutcome::Delivered,
            Answer::Gone => PushOutcome::Gone,
            Answer::Rejected { error } => PushOutcome::Failed(error),
            Answer::Busy { retry_after, error } => self.retry(row, retry_after, error),
        })
    }

    /// The page a notification about `record` opens: `--push-open-url` filled in; else, with
    /// the answer page on, a new link to it; else none.
    async fn open_url(&self, record: &Record) -> Result<Option<String>, StoreError> {
        let tenant = &record.tenant;
        let filled =
            self.settings
                .open_url(&record.id, &tenant.workspace_id, &tenant.conversation_id);
        match (filled, &self.links) {
            (Some(url), _) => Ok(Some(url)),
            (None, Some(links)) => Ok(Some(links.mint(&record.id, record.expires_at).await?.url)),
            (None, None) => Ok(None),
        }
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
        let next_attempt_at = self.store.now_ms().saturating_add(millis(wait));
        if next_attempt_at >= row.deadline {
            return PushOutcome::Expired(format!("{error}; its deadline comes first"));
        }
        PushOutcome::Retried {
            next_attempt_at,
            wait,
            error,
        }
    }
}

impl Outbox for Pushes {
    type Row = PushDelivery;
    type Attempt = PushAttempt;
    const UNAVAILABLE: &'static str = "push outbox unavailable";

    async fn claim(&self, lease_ms: i64, limit: i64) -> Result<Vec<PushDelivery>, StoreError> {
        let now = self.store.now_ms();
        self.store.push_outbox.claim(now, lease_ms, limit).await
    }

    async fn send(&self, row: &PushDelivery) -> PushAttempt {
        let outcome = match self.push(row).await {
            Ok(outcome) => outcome,
            // The database could not be read: another attempt, as for a push service that
            // did not answer.
            Err(error) => self.retry(row, None, error.to_string()),
        };
        match &outcome {
            PushOutcome::Delivered => {}
            PushOutcome::Retried { wait, error, .. } => tracing::warn!(
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
        PushAttempt {
            row: row.clone(),
            outcome,
        }
    }

    async fn record(&self, attempts: Vec<PushAttempt>) -> Option<Duration> {
        let mut soonest = None;
        let mut kept = Vec::with_capacity(attempts.len());
        let mut gone = Vec::new();
        for PushAttempt { row, outcome } in attempts {
            self.counts.count(outcome.label());
            if let PushOutcome::Retried { wait, .. } = &outcome {
                soonest = Some(soonest.map_or(*wait, |soonest: Duration| soonest.min(*wait)));
            }
            match outcome.kept() {
                Some(outcome) => kept.push((row.id, outcome)),
                None => gone.push(row.subscription_id),
            }
        }
        let store = &self.store;
        let mut recorded = store.push_outbox.record(&kept, store.now_ms()).await;
        for subscription in &gone {
            // The subscription first, so no new push is queued for it; then what was.
            if recorded.is_ok() {
                recorded = store.subscriptions.remove(subscription).await.map(drop);
            }
            if recorded.is_ok() {
                recorded = store.push_outbox.drop_pushes_to(subscription).await;
            }
        }
        if let Err(error) = recorded {
            // The leases run out and the rows are claimed again: a push sent twice at worst,
            // under the same Topic.
            tracing::error!(pushes = kept.len(), %error, "cannot record push attempts");
        }
        soonest
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
