//! The webhook worker, on the outboxes' shared loop ([`crate::delivery::worker`]): each claimed
//! row is sent, and kept as delivered on a 2xx, else its next attempt on the retry schedule
//! (exponential, jittered, for hours), else given up.

use std::sync::Arc;
use std::time::Duration;

use koder_elicitation_relay_protocol::WebhookEvent;

use super::deliver;
use super::WebhookConfig;
use crate::delivery::worker::{jitter, millis, Outbox};
use crate::metrics::WebhookMetrics;
use crate::service::Links;
use crate::store::outbox::{Delivery, Outcome};
use crate::store::{Store, StoreError};

/// The waits between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts over
/// about 28 hours), then the row is kept, marked failed.
const DELAYS: [Duration; 7] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(10 * 3600),
];

/// The retry schedule, scaled by `--webhook-retry-scale` (tests run it in milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule {
    delays: Vec<Duration>,
}

impl Default for RetrySchedule {
    fn default() -> Self {
        RetrySchedule {
            delays: DELAYS.to_vec(),
        }
    }
}

impl RetrySchedule {
    /// The standard schedule with every wait multiplied by `scale` (0 < scale ≤ 1).
    pub fn scaled(scale: f64) -> RetrySchedule {
        RetrySchedule {
            delays: DELAYS.iter().map(|delay| delay.mul_f64(scale)).collect(),
        }
    }

    /// The wait after attempt number `attempts` (1 for the first) failed, jittered by ±20% so
    /// rows that failed together do not all come back at once; `None` when the schedule is spent.
    pub fn after(&self, attempts: i64, id: &str) -> Option<Duration> {
        let index = usize::try_from(attempts.checked_sub(1)?).ok()?;
        Some(jitter(*self.delays.get(index)?, id, attempts))
    }
}

/// An attempt's label in `koder_relay_webhook_deliveries_total{outcome}`: `delivered`, `retried`
/// (another attempt is scheduled) or `failed` (given up).
fn label(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Delivered => "delivered",
        Outcome::Retry { .. } => "retried",
        Outcome::GaveUp { .. } => "failed",
    }
}

/// The webhook outbox as its worker sees it, for the outboxes' shared loop
/// ([`crate::delivery::worker::run`]).
#[derive(Debug)]
pub struct Webhooks {
    pub(crate) store: Arc<Store>,
    pub(crate) config: WebhookConfig,
    /// With the answer page on: `elicitation.created` carries a link minted as it is sent.
    pub(crate) links: Option<Links>,
    pub(crate) client: reqwest::Client,
    pub(crate) counts: WebhookMetrics,
}

impl Webhooks {
    /// The body to sign and send: as queued, but an `elicitation.created` with the answer page
    /// on gets `data.answerUrl`, a link minted now (so no token ever waits in the outbox; each
    /// attempt carries a new one, all reaching the same elicitation).
    async fn body(&self, delivery: &Delivery) -> Result<String, String> {
        let Some(links) = &self.links else {
            return Ok(delivery.payload.clone());
        };
        let mut event: WebhookEvent = serde_json::from_str(&delivery.payload)
            .map_err(|error| format!("the queued body is not a webhook event: {error}"))?;
        if event.event_type != "elicitation.created" {
            return Ok(delivery.payload.clone());
        }
        let data = &mut event.data;
        let link = links
            .mint(&data.id, data.expires_at)
            .await
            .map_err(|error| format!("cannot mint its answer link: {error}"))?;
        data.answer_url = Some(link.url);
        Ok(event.to_string())
    }
}

impl Outbox for Webhooks {
    type Row = Delivery;
    /// The row's id, what the attempt came to, and the wait until its retry, if one was
    /// scheduled.
    type Attempt = (String, Outcome, Option<Duration>);
    const UNAVAILABLE: &'static str = "webhook outbox unavailable";

    async fn claim(&self, lease_ms: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
        let now = self.store.now_ms();
        self.store.outbox.claim(now, lease_ms, limit).await
    }

    async fn send(&self, delivery: &Delivery) -> Self::Attempt {
        let (store, config) = (&self.store, &self.config);
        let timestamp = store.now_ms().div_euclid(1000);
        let sent = match self.body(delivery).await {
            Ok(body) => {
                let (client, url, secret) = (&self.client, &config.url, &config.secret);
                deliver::attempt(client, url, secret, &delivery.id, timestamp, &body).await
            }
            Err(error) => Err(error),
        };
        let mut retry_in = None;
        let outcome = match sent {
            Ok(()) => Outcome::Delivered,
            Err(error) => match config.retries.after(delivery.attempts, &delivery.id) {
                Some(wait) => {
                    tracing::warn!(
                        webhook_id = %delivery.id,
                        attempt = delivery.attempts,
                        %error,
                        retry_in_s = wait.as_secs_f64(),
                        "webhook delivery failed; retrying"
                    );
                    retry_in = Some(wait);
                    Outcome::Retry {
                        next_attempt_at: store.now_ms().saturating_add(millis(wait)),
                        error,
                    }
                }
                None => {
                    tracing::error!(
                        webhook_id = %delivery.id,
                        attempts = delivery.attempts,
                        %error,
                        "webhook delivery gave up"
                    );
                    Outcome::GaveUp { error }
                }
            },
        };
        (delivery.id.clone(), outcome, retry_in)
    }

    /// Keeps what a batch's attempts came to, in one write, and counts them.
    async fn record(&self, attempts: Vec<Self::Attempt>) -> Option<Duration> {
        let soonest = attempts
            .iter()
            .filter_map(|(_, _, retry_in)| *retry_in)
            .min();
        let outcomes: Vec<(String, Outcome)> = attempts
            .into_iter()
            .map(|(id, outcome, _)| (id, outcome))
            .collect();
        for (_, outcome) in &outcomes {
            self.counts.count(label(outcome));
        }
        let store = &self.store;
        if let Err(error) = store.outbox.record(&outcomes, store.now_ms()).await {
            // The leases run out and the rows are claimed again: sent twice at worst, same
            // webhook-id.
            tracing::error!(deliveries = outcomes.len(), %error, "cannot record webhook attempts");
        }
        soonest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_runs_for_hours_with_jitter_then_gives_up() {
        let schedule = RetrySchedule::default();
        let first = schedule.after(1, "msg_a").unwrap();
        assert!(first >= Duration::from_secs(4) && first <= Duration::from_secs(6));
        let last = schedule.after(7, "msg_a").unwrap();
        assert!(last >= Duration::from_secs(8 * 3600));
        let total: Duration = (1..=7).filter_map(|n| schedule.after(n, "msg_a")).sum();
        assert!(total > Duration::from_secs(20 * 3600), "{total:?}");
        assert_eq!(schedule.after(8, "msg_a"), None);
        assert_eq!(schedule.after(0, "msg_a"), None);
        let spread: std::collections::HashSet<_> = (0..20)
            .map(|n| schedule.after(1, &format!("msg_{n}")))
            .collect();
        assert!(
            spread.len() > 10,
            "jitter spreads rows that failed together"
        );
        let fast = RetrySchedule::scaled(0.001).after(1, "msg_a").unwrap();
        assert!(fast <= Duration::from_millis(6));
    }
}
