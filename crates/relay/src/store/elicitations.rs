//! The elicitations: reads, and every change through the committer (`changes`). Every change is
//! conditional on the row still being `pending` (or not yet completed), so exactly one writer
//! wins, even across replicas, and the winner gets the change back as an [`Event`] to announce.

use serde_json::Value;
use sqlx::{AssertSqlSafe, PgPool, QueryBuilder};

use super::changes::{apply_on_postgres, record_columns, Applied, Change, ChangeContext};
use super::db::{either, push_list, Database};
use super::rows::record_from_row;
use super::sqlite::GroupCommit;
use super::{Created, NewElicitation, Record, Status, StoreError, TenantFilter};
use crate::audience::Audience;
use crate::events::Event;
use crate::record::Actor;
use koder_elicitation_relay_protocol::AnsweredBy;

/// The elicitations.
#[derive(Debug, Clone)]
pub struct ElicitationStore {
    pub(super) database: Database,
    pub(super) committer: Committer,
}

impl ElicitationStore {
    /// Stores a new pending elicitation, journalled as made by `actor`. With an idempotency key
    /// already used in the same tenant (user, workspace, conversation), stores nothing and
    /// returns the first record when the request digests match, [`Created::KeyReused`] when
    /// they differ. Other tenants' keys are never looked at.
    pub async fn create(&self, new: NewElicitation, actor: &Actor) -> Result<Created, StoreError> {
        let actor = actor.clone();
        let new = Box::new(new);
        match self.committer.commit(Change::Create { new, actor }).await? {
            Applied::Created(created) => Ok(created),
            Applied::Changed(_) => Err(StoreError("a create changed no row".into())),
        }
    }

    /// The elicitation with this id, whoever it belongs to (callers check scope).
    pub async fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        either!(self.database.reader(), |pool| {
            let row = sqlx::query(concat!(
                "SELECT ",
                record_columns!(),
                " FROM koder_elicitations WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(record_from_row).transpose()
        })
    }

    /// The elicitations with these ids that exist, in any order (callers check scope).
    pub async fn get_many(&self, ids: &[&str]) -> Result<Vec<Record>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        either!(self.database.reader(), |pool| {
            let mut query = QueryBuilder::new(concat!(
                "SELECT ",
                record_columns!(),
                " FROM koder_elicitations WHERE id IN "
            ));
            push_list(&mut query, ids.iter().map(|id| id.to_string()));
            let rows = query.build().fetch_all(pool).await?;
            rows.iter().map(record_from_row).collect()
        })
    }

    /// The pending elicitations whose audience admits `person`, oldest first.
    pub async fn pending(&self, person: &TenantFilter) -> Result<Vec<Record>, StoreError> {
        let theirs = Audience::pending_for(person, 1);
        let text = format!(
            concat!(
                "SELECT ",
                record_columns!(),
                " FROM koder_elicitations WHERE {} AND status = 'pending' ORDER BY created_at, id"
            ),
            theirs.sql
        );
        either!(self.database.reader(), |pool| {
            let mut query = sqlx::query(AssertSqlSafe(text.as_str()));
            for bind in &theirs.binds {
                query = query.bind(bind);
            }
            let rows = query.fetch_all(pool).await?;
            rows.iter().map(record_from_row).collect()
        })
    }

    /// Moves `record`, while pending, to `status` with `result` at `now_ms`, journalled as made
    /// by `actor`: the change when this call won; `None` when it was no longer pending. (The
    /// record as read earlier: what the change writes beside itself is made from it.) A
    /// settle keeps `answered_by`.
    pub async fn finish(
        &self,
        record: &Record,
        status: Status,
        result: &Value,
        now_ms: i64,
        actor: &Actor,
        answered_by: Option<AnsweredBy>,
    ) -> Result<Option<Event>, StoreError> {
        let change = Change::Finish {
            record: Box::new(record.clone()),
            status,
            result: result.clone(),
            at: now_ms,
            actor: actor.clone(),
            answered_by,
        };
        Ok(self.changed(change).await?.into_iter().next())
    }

    /// Moves a pending team question `record` to escalation stage `stage` (only from the stage
    /// before it) at `now_ms`, journalled as made by `actor`, with what each channel queues for
    /// an escalation: the change, or `None` when it was not pending at `stage - 1` any more
    /// (fired already, here or on another replica, or ended).
    pub async fn escalate(
        &self,
        record: &Record,
        stage: i64,
        now_ms: i64,
        actor: &Actor,
    ) -> Result<Option<Event>, StoreError> {
        let change = Change::Escalate {
            record: Box::new(Record {
                escalated: stage - 1,
                ..record.clone()
            }),
            stage,
            at: now_ms,
            actor: actor.clone(),
        };
        Ok(self.changed(change).await?.into_iter().next())
    }

    /// Marks URL-mode completion of `record`, journalled as made by `actor`: the change, or
    /// `None` when gone or already marked.
    pub async fn complete(
        &self,
        record: &Record,
        actor: &Actor,
    ) -> Result<Option<Event>, StoreError> {
        let change = Change::Complete {
            record: Box::new(record.clone()),
            actor: actor.clone(),
        };
        Ok(self.changed(change).await?.into_iter().next())
    }

    /// Expires every pending elicitation due at `now_ms` (result `{"action":"cancel"}`), oldest
    /// first, journalled as made by [`Actor::Relay`]. Replicas sweep at once: a row another is
    /// expiring is re-checked after its commit and skipped, so each row expires once.
    pub async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError> {
        // Asked five times a second: a reader answers "nothing is due" without a write.
        let due = either!(self.database.reader(), |pool| {
            sqlx::query_scalar::<_, bool>(
                "SELECT EXISTS (SELECT 1 FROM koder_elicitations \
                 WHERE status = 'pending' AND expires_at <= $1)",
            )
            .bind(now_ms)
            .fetch_one(pool)
            .await?
        });
        if !due {
            return Ok(Vec::new());
        }
        self.changed(Change::ExpireDue { at: now_ms }).await
    }

    /// Deletes up to `batch` finished elicitations (settled, expired, withdrawn) that finished
    /// at or before `finished_by_ms`; returns how many. Pending ones are never deleted, nor
    /// audit entries. A deleted one is unknown from then on, and its idempotency key free.
    pub async fn purge_finished(&self, finished_by_ms: i64, batch: i64) -> Result<u64, StoreError> {
        either!(self.database.writer(), |pool| {
            let purged = sqlx::query(
                "DELETE FROM koder_elicitations WHERE id IN (SELECT id FROM koder_elicitations \
                 WHERE finished_at <= $1 AND status <> 'pending' LIMIT $2)",
            )
            .bind(finished_by_ms)
            .bind(batch)
            .execute(pool)
            .await?;
            Ok(purged.rows_affected())
        })
    }

    /// How many elicitations are pending, every tenant's (metrics).
    pub async fn count_pending(&self) -> Result<i64, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM koder_elicitations WHERE status = 'pending'",
            )
            .fetch_one(pool)
            .await?)
        })
    }

    /// Commits a change that creates no row: the events of the rows it changed (none when
    /// another writer won).
    async fn changed(&self, change: Change) -> Result<Vec<Event>, StoreError> {
        match self.committer.commit(change).await? {
            Applied::Changed(events) => Ok(events),
            Applied::Created(_) => Err(StoreError("a change created a row".into())),
        }
    }
}

/// Commits each change: on PostgreSQL on its own (one statement, see `changes`), on SQLite in
/// the group committer's batch. Either way the sealer hears of it.
#[derive(Debug, Clone)]
pub(super) enum Committer {
    /// SQLite's one writer.
    Sqlite(GroupCommit),
    /// PostgreSQL.
    Postgres {
        pool: PgPool,
        context: ChangeContext,
    },
}

impl Committer {
    /// Makes `change` and commits it.
    pub(super) async fn commit(&self, change: Change) -> Result<Applied, StoreError> {
        match self {
            Committer::Sqlite(group) => group.commit(change).await,
            Committer::Postgres { pool, context } => {
                let applied = apply_on_postgres(pool, &change, context).await?;
                context.recorded.notify_one();
                Ok(applied)
            }
        }
    }
}
