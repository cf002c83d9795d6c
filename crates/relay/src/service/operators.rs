//! What operators read: the audit trail and its checkpoints, and whether the database answers
//! (for the readiness probe and the metrics' pending count). None of it reads or changes an
//! elicitation.

use std::time::Duration;

use crate::audit::{AuditEntry, MAX_PAGE};
use crate::audit_checkpoint::Checkpoint;
use crate::store::{AuditStore, ElicitationStore, StoreError};

/// How long a probe or a scrape waits for the database before calling it unavailable.
pub const DATABASE_PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// The audit trail.
#[derive(Debug, Clone)]
pub struct Audit {
    pub(crate) store: AuditStore,
}

impl Audit {
    /// The entries after `after`, oldest first, at most `limit` (capped at [`MAX_PAGE`]).
    pub async fn page(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        self.store.page(after, limit.min(MAX_PAGE)).await
    }

    /// The latest checkpoint; `None` while nothing has been audited.
    pub async fn latest_checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        self.store.latest_checkpoint().await
    }
}

/// Whether the database answers, each look bounded by [`DATABASE_PROBE_TIMEOUT`].
#[derive(Debug, Clone)]
pub struct Health {
    pub(crate) database: crate::store::Health,
    pub(crate) elicitations: ElicitationStore,
}

impl Health {
    /// Why the database is not ready to serve; `None` when it answered in time.
    pub async fn database_unready(&self) -> Option<&'static str> {
        match tokio::time::timeout(DATABASE_PROBE_TIMEOUT, self.database.ping()).await {
            Ok(Ok(())) => None,
            Ok(Err(error)) => {
                tracing::warn!(%error, "readiness: the database did not answer");
                Some("the database did not answer")
            }
            Err(_) => Some("the database did not answer within 1 s"),
        }
    }

    /// How many elicitations are pending; `None` when the database did not say in time.
    pub async fn pending_count(&self) -> Option<i64> {
        let counted = self.elicitations.count_pending();
        match tokio::time::timeout(DATABASE_PROBE_TIMEOUT, counted).await {
            Ok(Ok(count)) => Some(count),
            Ok(Err(error)) => {
                tracing::warn!(%error, "metrics: counting the pending elicitations failed");
                None
            }
            Err(_) => None,
        }
    }
}
