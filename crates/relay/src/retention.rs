//! Retention: finished elicitations (settled, expired, withdrawn) are deleted once they have been
//! finished for longer than `--retention`, a batch at a time, by the sweeper. Pending ones are
//! never deleted; audit entries are never deleted (they hold digests, not content). Each
//! channel's outbox rows done with are deleted past the same retention.

use std::time::Duration;

use crate::store::{Store, StoreError};
use crate::time::millis;

/// How often the sweeper looks for finished elicitations past retention.
pub const PURGE_INTERVAL: Duration = Duration::from_secs(1);
/// Rows one statement deletes, so no statement holds its locks for long.
pub const PURGE_BATCH: i64 = 500;
/// Batches one sweep deletes at most; what is left waits for the next sweep, so expiry is never
/// held up behind a large backlog.
const MAX_BATCHES_PER_SWEEP: usize = 20;

/// Deletes what finished more than `retention` ago by the store's clock; returns how many
/// elicitations.
pub async fn purge(store: &Store, retention: Duration) -> Result<u64, StoreError> {
    let retention_ms = millis(retention);
    let finished_by = store.now_ms().saturating_sub(retention_ms);
    let purged = in_batches(|| store.elicitations.purge_finished(finished_by, PURGE_BATCH)).await?;
    // Each channel's outbox rows done with go by the same retention (a webhook's body carries
    // the answer; an e-mail row a person's address); a channel may keep the rows it gave up on
    // for an operator to see. They are not counted in what this returns.
    for table in store.outboxes().tables() {
        let outbox = store.outbox(table);
        in_batches(|| outbox.purge(finished_by, PURGE_BATCH)).await?;
    }
    Ok(purged)
}

/// Runs `purge` until a batch comes back short, a sweep's batches at most; how many in all.
async fn in_batches<F: std::future::Future<Output = Result<u64, StoreError>>>(
    purge: impl Fn() -> F,
) -> Result<u64, StoreError> {
    let mut purged = 0;
    for _ in 0..MAX_BATCHES_PER_SWEEP {
        let batch = purge().await?;
        purged += batch;
        if batch < PURGE_BATCH.unsigned_abs() {
            break;
        }
        tokio::task::yield_now().await;
    }
    Ok(purged)
}
