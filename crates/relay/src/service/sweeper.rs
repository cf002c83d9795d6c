//! The jobs that run beside the requests, each on its own timer: expiring what is due, measuring
//! the deployment's clock again, deleting used-up stream tickets, deleting finished
//! elicitations past `--retention`, keeping an audit checkpoint every
//! `--audit-checkpoint-interval` (the first at once), and sealing the audit records changes
//! make. A failing job is said once per outage, not on every tick.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::{interval_at, Instant, MissedTickBehavior};

use super::Elicitations;
use crate::retention;
use crate::store::{Store, StoreError};

/// How often due elicitations are expired.
pub const SWEEP_INTERVAL: Duration = Duration::from_millis(200);
/// How often the store's clock is measured again (PostgreSQL: against the database's), so a
/// process clock that drifts or steps is corrected within this long.
pub const CLOCK_SYNC_INTERVAL: Duration = Duration::from_secs(5);
/// How often expired stream tickets are deleted (a redeem ignores them anyway).
const TICKET_PURGE_INTERVAL: Duration = Duration::from_secs(30);
/// The shortest interval between audit checkpoints (a zero one would spin).
const MIN_CHECKPOINT_INTERVAL: Duration = Duration::from_millis(10);
/// How long the sealer lets records gather after a change, so one transaction seals many.
const SEAL_GATHER: Duration = Duration::from_millis(20);
/// How often the sealer looks without being told: records of another replica that was sealing
/// when this one's turn came, or of a replica that stopped.
const SEAL_INTERVAL: Duration = Duration::from_secs(1);

/// Runs every job until `shutdown` turns true.
pub async fn sweep(
    elicitations: Elicitations,
    store: Arc<Store>,
    retention: Duration,
    checkpoint_interval: Duration,
    shutdown: watch::Receiver<bool>,
) {
    let store = store.as_ref();
    // The hash last logged: a checkpoint is logged when it is new.
    let last_logged = Mutex::new(None::<String>);
    tokio::join!(
        seal_as_recorded(store, &shutdown),
        every(SWEEP_INTERVAL, "expiry sweep failed", &shutdown, || async {
            elicitations.expire_due().await.map(drop)
        }),
        every(
            CLOCK_SYNC_INTERVAL,
            "measuring the database's clock failed",
            &shutdown,
            || store.health.sync_clock()
        ),
        every(
            TICKET_PURGE_INTERVAL,
            "purging stream tickets failed",
            &shutdown,
            || async { store.tickets.purge(store.now_ms()).await.map(drop) }
        ),
        every(
            retention::PURGE_INTERVAL,
            "deleting finished elicitations failed",
            &shutdown,
            || async { retention::purge(store, retention).await.map(drop) }
        ),
        every_from(
            Duration::ZERO,
            checkpoint_interval.max(MIN_CHECKPOINT_INTERVAL),
            "writing the audit checkpoint failed",
            &shutdown,
            || async {
                if let Some(checkpoint) = store.audit.write_checkpoint(store.now_ms()).await? {
                    let mut last = last_logged
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    if last.as_ref() != Some(&checkpoint.hash) {
                        tracing::info!(
                            seq = checkpoint.seq,
                            chains = checkpoint.chains,
                            hash = %checkpoint.hash,
                            "audit checkpoint"
                        );
                        *last = Some(checkpoint.hash);
                    }
                }
                Ok(())
            }
        ),
    );
}

/// Seals the audit records of changes as they are made (after [`SEAL_GATHER`]), and every
/// [`SEAL_INTERVAL`], until `shutdown`; then once more, so a relay that stops leaves none.
async fn seal_as_recorded(store: &Store, shutdown: &watch::Receiver<bool>) {
    let mut stopping = shutdown.clone();
    let mut failing = false;
    loop {
        let stop = tokio::select! {
            () = store.audit.recorded() => false,
            () = tokio::time::sleep(SEAL_INTERVAL) => false,
            _ = stopping.wait_for(|stopping| *stopping) => true,
        };
        if !stop {
            tokio::time::sleep(SEAL_GATHER).await;
        }
        let sealed = store.audit.seal(stop).await.map(drop);
        say_once(sealed, &mut failing, "sealing the audit trail failed");
        if stop {
            return;
        }
    }
}

/// Runs `job` every `period` until `shutdown` turns true; a failure is logged as `failure`,
/// once until the job succeeds again.
async fn every<Job, Run>(
    period: Duration,
    failure: &'static str,
    shutdown: &watch::Receiver<bool>,
    job: Job,
) where
    Job: FnMut() -> Run,
    Run: Future<Output = Result<(), StoreError>>,
{
    every_from(period, period, failure, shutdown, job).await;
}

/// [`every`], the first run `first` from now.
async fn every_from<Job, Run>(
    first: Duration,
    period: Duration,
    failure: &'static str,
    shutdown: &watch::Receiver<bool>,
    mut job: Job,
) where
    Job: FnMut() -> Run,
    Run: Future<Output = Result<(), StoreError>>,
{
    let mut shutdown = shutdown.clone();
    let mut ticks = interval_at(Instant::now() + first, period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = shutdown.wait_for(|stopping| *stopping) => return,
        }
        say_once(job().await, &mut failing, failure);
    }
}

/// Logs a job's failure as `failure` once per outage: `failing` says whether its last run
/// failed too.
fn say_once(result: Result<(), StoreError>, failing: &mut bool, failure: &str) {
    match result {
        Ok(()) => *failing = false,
        Err(error) => {
            if !*failing {
                tracing::error!(%error, "{failure}");
            }
            *failing = true;
        }
    }
}
