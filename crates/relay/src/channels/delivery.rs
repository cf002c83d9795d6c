//! The one loop every channel's worker runs: claim due rows in batches, attempt each
//! (concurrently within a batch), count what each came to, keep it in one write, and sleep until
//! the soonest retry. It wakes when this replica makes a change, when a retry falls due, and
//! every [`POLL_INTERVAL`] for rows other replicas queued.

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::sync::{watch, Notify};

use super::http::ATTEMPT_TIMEOUT;
use super::{Attempt, Channel};
use crate::metrics::DeliveryMetrics;
use crate::store::outbox::{Claimed, Outbox, Outcome};
use crate::store::Clock;
use crate::time::millis;

/// How often a worker looks for due rows when nothing wakes it.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// How many rows one claim takes.
pub const BATCH: i64 = 32;
/// How long a claim holds its rows: longer than a batch's attempts (all sent at once, each
/// bounded by [`ATTEMPT_TIMEOUT`]), so no other claim sends them meanwhile. A worker that dies
/// holding rows leaves them to be claimed again after this.
pub const LEASE: Duration = Duration::from_secs(30);
/// How long a woken worker waits before it claims: changes come in bursts, and a moment lets
/// one claim (one write, on SQLite through the one writer) take a burst's rows together.
pub const GATHER: Duration = Duration::from_millis(20);
/// How long a shutdown waits for a batch in flight.
pub const SHUTDOWN_WAIT: Duration = ATTEMPT_TIMEOUT;

/// A channel at work: its outbox, the clock its rows are timed by, and its count of attempts.
#[derive(Debug)]
pub struct Worker<C> {
    /// The channel.
    pub channel: C,
    /// Its outbox.
    pub outbox: Outbox,
    /// The deployment's clock.
    pub clock: Clock,
    /// `koder_relay_<channel>_deliveries_total{outcome}`.
    pub counts: DeliveryMetrics,
}

impl<C: Channel> Worker<C> {
    /// Runs until `shutdown` turns true (checked between batches: a batch in flight ends
    /// within [`ATTEMPT_TIMEOUT`]).
    pub async fn run(self, wake: Arc<Notify>, mut shutdown: watch::Receiver<bool>) {
        let lease_ms = millis(LEASE);
        let mut failing = false;
        loop {
            if *shutdown.borrow() {
                return;
            }
            let mut next_wait = POLL_INTERVAL;
            let now = self.clock.now_ms();
            let claimed = self
                .outbox
                .claim::<C::Row>(now, lease_ms, BATCH, C::MOSTLY_EMPTY)
                .await;
            match claimed {
                Ok(batch) => {
                    failing = false;
                    if !batch.is_empty() {
                        let full = i64::try_from(batch.len()).unwrap_or(0) >= BATCH;
                        let attempts = batch.iter().map(|row| self.channel.attempt(row));
                        let attempts = futures_util::future::join_all(attempts).await;
                        let soonest = self.keep(&batch, attempts).await;
                        if full {
                            // More may be due: claim again at once.
                            continue;
                        }
                        if let Some(soonest) = soonest {
                            next_wait = next_wait.min(soonest);
                        }
                    }
                }
                Err(error) => {
                    // Said once per outage, not every second.
                    if !failing {
                        tracing::error!(%error, channel = C::NAME, "outbox unavailable");
                    }
                    failing = true;
                }
            }
            let woken = tokio::select! {
                _ = wake.notified() => true,
                _ = tokio::time::sleep(next_wait) => false,
                _ = shutdown.wait_for(|stopping| *stopping) => return,
            };
            if woken {
                tokio::time::sleep(GATHER).await;
            }
        }
    }

    /// Counts what a batch's attempts came to and keeps it in one write; the wait until the
    /// soonest retry among them, if any.
    async fn keep(&self, batch: &[C::Row], attempts: Vec<Attempt>) -> Option<Duration> {
        let now = self.clock.now_ms();
        let mut soonest: Option<i64> = None;
        let mut kept = Vec::with_capacity(attempts.len());
        for (row, attempt) in batch.iter().zip(attempts) {
            self.counts.count(attempt.label);
            if let Outcome::Retry {
                next_attempt_at, ..
            } = &attempt.outcome
            {
                soonest = Some(soonest.map_or(*next_attempt_at, |at| at.min(*next_attempt_at)));
            }
            kept.push((row.id().to_string(), attempt.outcome));
        }
        if let Err(error) = self.outbox.record(&kept, now).await {
            // The leases run out and the rows are claimed again: sent twice at worst, each
            // channel's message carrying the same id both times.
            tracing::error!(channel = C::NAME, rows = kept.len(), %error, "cannot record attempts");
        }
        soonest.map(|at| Duration::from_millis(at.saturating_sub(now).max(0).unsigned_abs()))
    }
}

/// `delay` jittered by ±20%, from the row's id and attempt, so rows that failed together do not
/// all come back at once (spread without a source of randomness).
pub fn jitter(delay: Duration, id: &str, attempts: i64) -> Duration {
    let digest = Sha256::digest(format!("{id}.{attempts}").as_bytes());
    let spread = digest.first().copied().unwrap_or(128);
    let factor = 0.8 + 0.4 * f64::from(spread) / 255.0;
    delay.mul_f64(factor)
}

/// The wait before attempt `attempts + 1`: `first`, doubling with each attempt up to `max`,
/// jittered ([`jitter`]).
pub fn doubling(first: Duration, max: Duration, attempts: i64, id: &str) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
    let backoff = first
        .saturating_mul(2u32.saturating_pow(doublings))
        .min(max);
    jitter(backoff, id, attempts)
}

/// Another attempt at a row that failed for now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    /// When (ms since the Unix epoch).
    pub next_attempt_at: i64,
    /// How long from now.
    pub wait: Duration,
    /// Why this one failed.
    pub error: String,
}

impl Retry {
    /// What the outbox keeps of it.
    pub fn kept(&self) -> Outcome {
        Outcome::Retry {
            next_attempt_at: self.next_attempt_at,
            error: self.error.clone(),
        }
    }
}

/// A retry `wait` after `now_ms` of a row worth sending only before `deadline`; when the
/// deadline comes first, why the row is given up (`error`, and that).
pub fn retry_until(
    now_ms: i64,
    wait: Duration,
    deadline: i64,
    error: String,
) -> Result<Retry, String> {
    let next_attempt_at = now_ms.saturating_add(millis(wait));
    if next_attempt_at >= deadline {
        return Err(format!("{error}; its deadline comes first"));
    }
    Ok(Retry {
        next_attempt_at,
        wait,
        error,
    })
}
