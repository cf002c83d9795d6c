//! A question's reminder come due (a timer of its schedule, see `crate::channels::schedule`):
//! in one transaction, the question read as it is (locked on PostgreSQL, so an answer waits
//! for it or comes first) and, only when it is still open, what each channel that is on queues
//! for a reminder ([`Reminded`]). A question that ended first gets nothing.

use sqlx::AssertSqlSafe;

use super::beside::bound;
use super::changes::record_columns;
use super::db::{either, Dialects};
use super::outbox::{Queued, Reminded};
use super::rows::record_from_row;
use super::{Store, StoreError};
use crate::events::{Event, EventKind};
use crate::record::Status;

/// The question, read inside the firing's transaction (on PostgreSQL locked until it commits;
/// SQLite has one writer already).
const READ: Dialects = Dialects {
    sqlite: concat!(
        "SELECT ",
        record_columns!(),
        " FROM koder_elicitations WHERE id = $1"
    ),
    postgres: concat!(
        "SELECT ",
        record_columns!(),
        " FROM koder_elicitations WHERE id = $1 FOR UPDATE"
    ),
};

impl Store {
    /// Reminds the people of the question `elicitation_id` at `now_ms`: what the channels queue
    /// for `reminded`, committed together, when the question is still open; `false` (nothing
    /// queued) when it ended first, expired or is gone.
    pub async fn remind(
        &self,
        elicitation_id: &str,
        reminded: &Reminded,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        either!(self.database.writer(), |pool, dialect| {
            let mut transaction = pool.begin().await?;
            let row = sqlx::query(dialect(READ))
                .bind(elicitation_id)
                .fetch_optional(&mut *transaction)
                .await?;
            let Some(record) = row.as_ref().map(record_from_row).transpose()? else {
                return Ok(false);
            };
            if record.status != Status::Pending || !record.is_open(now_ms) {
                return Ok(false);
            }
            let event = Event::new(EventKind::Created, record);
            let queued = Queued {
                event: &event,
                created: None,
                reminded: Some(reminded),
                at: now_ms,
            };
            for beside in self.outboxes.rows(&queued) {
                // Built from the channels' constants and filters: no caller's text is in it.
                bound(sqlx::query(AssertSqlSafe(beside.text.alone)), beside.args)
                    .execute(&mut *transaction)
                    .await?;
            }
            transaction.commit().await?;
            Ok(true)
        })
    }
}
