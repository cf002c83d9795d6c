//! The delivery worker: claims due outbox rows in batches, sends each (concurrently within a
//! batch), and keeps what came of it: delivered on a 2xx, else the next attempt on the retry
//! schedule (exponential, jittered, for hours), else given up. It wakes when this replica makes
//! a change, when a retry falls due, and every [`POLL_INTERVAL`] for rows other replicas queued.

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::sync::{watch, Notify};

use super::deliver::{self, ATTEMPT_TIMEOUT};

use super::WebhookConfig;
use crate::metrics::WebhookMetrics;
use crate::store::outbox::{Delivery, Outcome};
use crate::store::Store;

/// How often the worker looks for due rows when nothing wakes it.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// How many rows one claim takes.
const BATCH: i64 = 32;
/// How long a claim holds its rows: longer than a batch's attempts (all sent at once, each
/// bounded by [`ATTEMPT_TIMEOUT`]), so no other claim sends them meanwhile. A worker that dies
/// holding rows leaves them to be claimed again after this.
const LEASE: Duration = Duration::from_secs(30);

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
        let delay = *self.delays.get(index)?;
        // Jitter from the id and the attempt: spread without a source of randomness.
        let digest = Sha256::digest(format!("{id}.{attempts}").as_bytes());
        let spread = digest.first().copied().unwrap_or(128);
        let factor = 0.8 + 0.4 * f64::from(spread) / 255.0;
        Some(delay.mul_f64(factor))
    }
}

/// Deliveries by outcome, counted into `koder_relay_webhook_deliveries_total{outcome}`:
/// `delivered`, `retried` (an attempt failed, another is scheduled) and `failed` (given up).
#[derive(Debug, Clone, Default)]
pub struct DeliveryCounts {
    exported: WebhookMetrics,
}

impl DeliveryCounts {
    /// Counts into the relay's exported metric.
    pub fn exported(metrics: WebhookMetrics) -> DeliveryCounts {
        DeliveryCounts { exported: metrics }
    }

    fn count(&self, outcome: &Outcome) {
        let label = match outcome {
            Outcome::Delivered => "delivered",
            Outcome::Retry { .. } => "retried",
            Outcome::GaveUp { .. } => "failed",
        };
        self.exported
            .deliveries
            .get_or_create(&[("outcome", label)])
            .inc();
    }
}

/// Runs the worker until `shutdown` turns true (checked between batches: a batch in flight ends
/// within [`ATTEMPT_TIMEOUT`]).
pub async fn run(
    store: Arc<Store>,
    config: WebhookConfig,
    client: reqwest::Client,
    wake: Arc<Notify>,
    counts: DeliveryCounts,
    mut shutdown: watch::Receiver<bool>,
) {
    let lease_ms = i64::try_from(LEASE.as_millis()).unwrap_or(i64::MAX);
    let mut failing = false;
    loop {
        if *shutdown.borrow() {
            return;
        }
        let mut next_wait = POLL_INTERVAL;
        match store.outbox.claim(store.now_ms(), lease_ms, BATCH).await {
            Ok(batch) => {
                failing = false;
                if !batch.is_empty() {
                    let full = i64::try_from(batch.len()).unwrap_or(0) >= BATCH;
                    let sends = batch
                        .iter()
                        .map(|delivery| send(&store, &config, &client, delivery));
                    let attempts = futures_util::future::join_all(sends).await;
                    record(&store, &counts, &attempts).await;
                    let retries = attempts.into_iter().map(|(_, _, retry_in)| retry_in);
                    if full {
                        // More may be due: claim again at once.
                        continue;
                    }
                    if let Some(soonest) = retries.into_iter().flatten().min() {
                        next_wait = next_wait.min(soonest);
                    }
                }
            }
            Err(error) => {
                // Said once per outage, not every second.
                if !failing {
                    tracing::error!(%error, "webhook outbox unavailable");
                }
                failing = true;
            }
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(next_wait) => {}
            _ = shutdown.wait_for(|stopping| *stopping) => return,
        }
    }
}

/// Keeps what a batch's attempts came to, in one write, and counts them.
async fn record(
    store: &Store,
    counts: &DeliveryCounts,
    attempts: &[(String, Outcome, Option<Duration>)],
) {
    let outcomes: Vec<(String, Outcome)> = attempts
        .iter()
        .map(|(id, outcome, _)| (id.clone(), outcome.clone()))
        .collect();
    for (_, outcome) in &outcomes {
        counts.count(outcome);
    }
    if let Err(error) = store.outbox.record(&outcomes, store.now_ms()).await {
        // The leases run out and the rows are claimed again: sent twice at worst, same
        // webhook-id.
        tracing::error!(deliveries = outcomes.len(), %error, "cannot record webhook attempts");
    }
}

/// Sends one claimed row: its id, what the attempt came to, and the wait until its retry, if
/// one was scheduled.
async fn send(
    store: &Store,
    config: &WebhookConfig,
    client: &reqwest::Client,
    delivery: &Delivery,
) -> (String, Outcome, Option<Duration>) {
    let timestamp = store.now_ms().div_euclid(1000);
    let sent = deliver::attempt(
        client,
        &config.url,
        &config.secret,
        &delivery.id,
        timestamp,
        &delivery.payload,
    )
    .await;
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
                let wait_ms = i64::try_from(wait.as_millis()).unwrap_or(i64::MAX);
                Outcome::Retry {
                    next_attempt_at: store.now_ms().saturating_add(wait_ms),
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

/// How long a shutdown waits for a batch in flight.
pub const SHUTDOWN_WAIT: Duration = ATTEMPT_TIMEOUT;

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
