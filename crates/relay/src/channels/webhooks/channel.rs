//! The webhook channel: each claimed row is sent, and kept as delivered on a 2xx, else its next
//! attempt on the retry schedule (exponential, jittered, for hours), else given up.

use std::sync::Arc;
use std::time::Duration;

use koder_elicitation_relay_protocol::WebhookEvent;

use super::deliver;
use super::store::{Delivery, TABLE};
use super::WebhookConfig;
use crate::channels::delivery::jitter;
use crate::channels::{Attempt, Channel};
use crate::service::Links;
use crate::store::outbox::{OutboxTable, Outcome};
use crate::store::Store;
use crate::time::millis;

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
        Outcome::GaveUp { .. } | Outcome::Dropped => "failed",
    }
}

/// The webhook channel: each claimed row POSTed, signed, to `--webhook-url`.
#[derive(Debug)]
pub struct Webhooks {
    pub(crate) store: Arc<Store>,
    pub(crate) config: WebhookConfig,
    /// With the answer page on: `elicitation.created` carries the link made for its row.
    pub(crate) links: Option<Links>,
    pub(crate) client: reqwest::Client,
}

impl Webhooks {
    /// The body to sign and send: as queued, but an `elicitation.created` with the answer page
    /// on gets `data.answerUrl`, the link made for this row (the same on every attempt; its
    /// token is derived when it is sent, so none ever waits in the outbox).
    async fn body(&self, delivery: &Delivery) -> Result<String, String> {
        let Some(links) = &self.links else {
            return Ok(delivery.payload.clone());
        };
        let queued: serde_json::Value = serde_json::from_str(&delivery.payload)
            .map_err(|error| format!("the queued body is not JSON: {error}"))?;
        // Only a created event gets a link; the others (an escalation's too) go as queued.
        if queued.get("type").and_then(serde_json::Value::as_str) != Some("elicitation.created") {
            return Ok(delivery.payload.clone());
        }
        let mut event: WebhookEvent = serde_json::from_value(queued)
            .map_err(|error| format!("the queued body is not a webhook event: {error}"))?;
        let data = &mut event.data;
        let link = links
            .for_message(Self::NAME, &delivery.id, &data.id, data.expires_at, None)
            .await
            .map_err(|error| format!("cannot make its answer link: {error}"))?;
        data.answer_url = Some(link.url);
        Ok(event.to_string())
    }
}

impl Channel for Webhooks {
    const NAME: &'static str = "webhook";
    const METRIC_HELP: &'static str = "Webhook delivery attempts by outcome";
    const TABLE: &'static OutboxTable = &TABLE;
    // Every change queues a webhook.
    const MOSTLY_EMPTY: bool = false;
    type Row = Delivery;

    async fn attempt(&self, delivery: &Delivery) -> Attempt {
        let (store, config) = (&self.store, &self.config);
        let timestamp = store.now_ms().div_euclid(1000);
        let sent = match self.body(delivery).await {
            Ok(body) => {
                let (client, url, secret) = (&self.client, &config.url, &config.secret);
                deliver::attempt(client, url, secret, &delivery.id, timestamp, &body).await
            }
            Err(error) => Err(error),
        };
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
        Attempt {
            label: label(&outcome),
            outcome,
        }
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
