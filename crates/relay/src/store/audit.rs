//! The audit trail as stored: sealing what changes recorded, pages of entries, oldest first, and
//! its checkpoints (SQL in `journal`). Reads seal first, so they show every committed change.

use std::sync::Arc;

use tokio::sync::Notify;

use super::db::{either, Database, Either};
use super::journal::{self, Turn};
use super::StoreError;
use crate::audit::{entry_from_row, AuditEntry};
use crate::audit_checkpoint::{checkpoint_from_row, Checkpoint};

/// The audit trail.
#[derive(Debug, Clone)]
pub struct AuditStore {
    pub(super) database: Database,
    /// Told by the committer after changes that recorded entries.
    pub(super) recorded: Arc<Notify>,
}

impl AuditStore {
    /// Resolves when changes recorded entries since the last call (or before the first).
    pub async fn recorded(&self) {
        self.recorded.notified().await;
    }

    /// Seals every committed record into its chain, batch after batch (see `journal`); how
    /// many. With `wait` false, stops when another replica is sealing (it seals them).
    pub async fn seal(&self, wait: bool) -> Result<usize, StoreError> {
        let turn = if wait { Turn::Wait } else { Turn::Skip };
        let mut sealed = 0;
        while let Some(batch) = journal::seal(&self.database, turn).await? {
            sealed += batch;
            if batch < journal::SEAL_BATCH as usize {
                break;
            }
        }
        Ok(sealed)
    }

    /// The entries after `after`, oldest first, at most `limit`.
    pub async fn page(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        self.seal(true).await?;
        // On PostgreSQL, committed entries get their `seq` first (see `journal`).
        if let Either::Postgres(pool) = self.database.reader() {
            journal::sequence_postgres(pool, journal::SEQUENCE_BATCH.max(limit)).await?;
        }
        either!(self.database.reader(), |pool| {
            let rows = sqlx::query(journal::PAGE)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            Ok(rows.iter().map(entry_from_row).collect::<Result<_, _>>()?)
        })
    }

    /// Keeps a checkpoint of every chain's head now, made at `now_ms` (unless one at the same
    /// point is kept already); the latest checkpoint, `None` while the trail is empty.
    pub async fn write_checkpoint(&self, now_ms: i64) -> Result<Option<Checkpoint>, StoreError> {
        self.seal(true).await?;
        if let Either::Postgres(pool) = self.database.reader() {
            journal::sequence_everything_postgres(pool).await?;
        }
        let heads = either!(self.database.reader(), |pool| {
            sqlx::query_as(journal::HEADS).fetch_all(pool).await?
        });
        if let Some(checkpoint) = journal::checkpoint_of(heads, now_ms) {
            either!(self.database.writer(), |pool| {
                sqlx::query(journal::INSERT_CHECKPOINT)
                    .bind(checkpoint.seq)
                    .bind(checkpoint.at)
                    .bind(checkpoint.chains)
                    .bind(&checkpoint.hash)
                    .execute(pool)
                    .await?;
            });
        }
        self.latest_checkpoint().await
    }

    /// The latest checkpoint kept.
    pub async fn latest_checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        either!(self.database.reader(), |pool| {
            let row = sqlx::query_as(journal::LATEST_CHECKPOINT)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(checkpoint_from_row))
        })
    }
}
