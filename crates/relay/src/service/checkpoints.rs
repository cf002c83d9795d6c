//! The audit checkpoints' writer: every `--audit-checkpoint-interval` (the first at once) a
//! checkpoint over every chain's head is kept in the database and logged, so an operator can keep
//! its hash outside the database (see `crate::audit_checkpoint`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::store::Store;

/// The shortest interval between checkpoints (a zero one would spin).
const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// Writes a checkpoint every `interval` (the first at once) and logs it, until `shutdown` turns
/// true. A failure is logged once per outage; the next tick tries again.
pub async fn run(store: Arc<Store>, interval: Duration, mut shutdown: watch::Receiver<bool>) {
    let mut ticks = tokio::time::interval(interval.max(MIN_INTERVAL));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    let mut last_logged = None;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = shutdown.wait_for(|stopping| *stopping) => return,
        }
        match store.audit.write_checkpoint(store.now_ms()).await {
            Ok(Some(checkpoint)) => {
                failing = false;
                if last_logged.as_ref() != Some(&checkpoint.hash) {
                    tracing::info!(
                        seq = checkpoint.seq,
                        chains = checkpoint.chains,
                        hash = %checkpoint.hash,
                        "audit checkpoint"
                    );
                    last_logged = Some(checkpoint.hash);
                }
            }
            Ok(None) => failing = false,
            Err(error) => {
                if !failing {
                    tracing::error!(%error, "writing the audit checkpoint failed");
                }
                failing = true;
            }
        }
    }
}
