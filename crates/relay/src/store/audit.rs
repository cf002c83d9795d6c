//! The audit trail as stored: pages of entries, oldest first, and its checkpoints. Each entry is
//! appended by the change it records, in that change's transaction (`journal`, called by
//! `changes`).

use super::db::{either, Database, Either};
use super::journal;
use super::StoreError;
use crate::audit::{entry_from_row, AuditEntry};
use crate::audit_checkpoint::{checkpoint_from_row, Checkpoint};

/// The audit trail.
#[derive(Debug, Clone)]
pub struct AuditStore {
    pub(super) database: Database,
}

impl AuditStore {
    /// The entries after `after`, oldest first, at most `limit`.
    pub async fn page(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
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
