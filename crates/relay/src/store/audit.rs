//! The audit trail as stored: pages of entries, oldest first, and its checkpoints. Each entry is
//! appended by the change it records, in that change's transaction (`journal`, called by
//! `changes`).

use super::db::{Database, Either};
use super::journal;
use super::StoreError;
use crate::audit::AuditEntry;
use crate::audit_checkpoint::Checkpoint;

/// The audit trail.
#[derive(Debug, Clone)]
pub struct AuditStore {
    pub(super) database: Database,
}

impl AuditStore {
    /// The entries after `after`, oldest first, at most `limit`.
    /// On PostgreSQL, committed entries get their `seq` first (see `journal`).
    pub async fn page(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        match self.database.reader() {
            Either::Sqlite(pool) => {
                let rows = sqlx::query(journal::PAGE)
                    .bind(after)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?;
                Ok(journal::entries(&rows)?)
            }
            Either::Postgres(pool) => Ok(journal::page_postgres(pool, after, limit).await?),
        }
    }

    /// Keeps a checkpoint of every chain's head now, made at `now_ms` (unless one at the same
    /// point is kept already); the latest checkpoint, `None` while the trail is empty.
    pub async fn write_checkpoint(&self, now_ms: i64) -> Result<Option<Checkpoint>, StoreError> {
        Ok(match &self.database {
            Database::Sqlite { readers, writer } => {
                journal::write_checkpoint_sqlite(readers, writer, now_ms).await?
            }
            Database::Postgres(pool) => {
                journal::write_checkpoint_postgres(pool, pool, now_ms).await?
            }
        })
    }

    /// The latest checkpoint kept.
    pub async fn latest_checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        Ok(match self.database.reader() {
            Either::Sqlite(pool) => journal::latest_checkpoint_sqlite(pool).await?,
            Either::Postgres(pool) => journal::latest_checkpoint_postgres(pool).await?,
        })
    }
}
