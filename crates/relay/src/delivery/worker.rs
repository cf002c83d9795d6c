//! The loop every outbox's worker runs: claim due rows in batches, send each (concurrently
//! within a batch), keep what came of them in one write. It wakes when this replica makes a
//! change, when a retry falls due, and every [`POLL_INTERVAL`] for rows other replicas queued.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::sync::{watch, Notify};

use super::http::ATTEMPT_TIMEOUT;
use crate::store::StoreError;

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

/// One outbox as its worker sees it.
pub trait Outbox: Send + Sync {
    /// A claimed row.
    type Row: Send + Sync;
    /// What sending one came to.
    type Attempt: Send;
    /// What the log says when the outbox cannot be read.
    const UNAVAILABLE: &'static str;

    /// Leases up to `limit` due rows for `lease_ms`.
    fn claim(
        &self,
        lease_ms: i64,
        limit: i64,
    ) -> impl Future<Output = Result<Vec<Self::Row>, StoreError>> + Send;

    /// Sends one row.
    fn send(&self, row: &Self::Row) -> impl Future<Output = Self::Attempt> + Send;

    /// Keeps (and counts) what a batch came to; the soonest retry among them, if any.
    fn record(&self, attempts: Vec<Self::Attempt>)
        -> impl Future<Output = Option<Duration>> + Send;
}

/// Runs `outbox`'s worker until `shutdown` turns true (checked between batches: a batch in
/// flight ends within [`ATTEMPT_TIMEOUT`]).
pub async fn run<O: Outbox>(outbox: O, wake: Arc<Notify>, mut shutdown: watch::Receiver<bool>) {
    let lease_ms = i64::try_from(LEASE.as_millis()).unwrap_or(i64::MAX);
    let mut failing = false;
    loop {
        if *shutdown.borrow() {
            return;
        }
        let mut next_wait = POLL_INTERVAL;
        match outbox.claim(lease_ms, BATCH).await {
            Ok(batch) => {
                failing = false;
                if !batch.is_empty() {
                    let full = i64::try_from(batch.len()).unwrap_or(0) >= BATCH;
                    let sends = batch.iter().map(|row| outbox.send(row));
                    let attempts = futures_util::future::join_all(sends).await;
                    let soonest = outbox.record(attempts).await;
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
                    tracing::error!(%error, "{}", O::UNAVAILABLE);
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

/// Milliseconds of a duration, saturating.
pub fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
