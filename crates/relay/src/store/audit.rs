//! The audit trail as stored: pages of entries, oldest first. Each entry is appended by the
//! change it records, in that change's transaction (`journal`, called by `changes`).

use super::db::{either, Database};
use super::journal;
use super::StoreError;
use crate::audit::AuditEntry;

/// The audit trail.
#[derive(Debug, Clone)]
pub struct AuditStore {
    pub(super) database: Database,
}

impl AuditStore {
    /// The entries after `after`, oldest first, at most `limit`.
    pub async fn page(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        either!(self.database.reader(), |pool| {
            let rows = sqlx::query(journal::PAGE)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            Ok(journal::entries(&rows)?)
        })
    }
}
