//! The single-process store: one SQLite file in WAL mode. Every state change is one conditional
//! statement (`… WHERE status = 'pending'`), so exactly one writer wins, and the winner gets the
//! changed row back as its event.
//!
//! Every write goes through one connection (the writer), beside a few readers: SQLite takes one
//! writer at a time anyway, and writers queued here wait their turn in order, where writers on
//! several connections would meet the write lock and poll for it in the busy handler's sleeps.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::journal;
use super::migrations::migrate_sqlite;
use super::rows::{
    changed, created_event, created_or_existing, keyed_from_row, record_from_row, Keyed,
};
use super::tickets::redeemed_from_row;
use super::{
    Clock, Created, NewElicitation, NewTicket, Record, RedeemedTicket, Status, Store, StoreError,
    Tenant, TenantFilter,
};
use crate::audit::AuditEntry;
use crate::audit_checkpoint::Checkpoint;
use crate::events::{Event, EventKind};
use crate::record::Actor;
use crate::webhooks::outbox::{self, Delivery, Outcome};

/// Writers queue behind SQLite's one write lock; a busy connection waits this long before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// A few readers alongside the one writer WAL allows.
const READERS: u32 = 4;

/// Every change is one transaction that takes SQLite's write lock as it begins (a deferred one
/// that reads first cannot always upgrade to write, and fails instead of waiting).
const BEGIN_CHANGE: &str = "BEGIN IMMEDIATE";

/// Every column of a record, for `SELECT` and `RETURNING`.
macro_rules! record_columns {
    () => {
        "id, user_id, workspace_id, conversation_id, request, server_name, \
         created_at, expires_at, status, result, finished_at, completed"
    };
}

/// `SELECT <every column> FROM koder_elicitations <rest>` as one static string.
macro_rules! select_sql {
    ($rest:literal) => {
        concat!(
            "SELECT ",
            record_columns!(),
            " FROM koder_elicitations ",
            $rest
        )
    };
}

/// Elicitations in one SQLite file (or in memory, for tests).
#[derive(Debug)]
pub struct SqliteStore {
    /// Reads (WAL lets them run beside the writer).
    pool: SqlitePool,
    /// Every write: one connection (the same as `pool` in memory, where there is only one).
    writer: SqlitePool,
    /// The process clock: one process is the whole deployment.
    clock: Clock,
    /// Whether each change also queues its webhook (with `--webhook-url`).
    webhook_outbox: bool,
}

impl SqliteStore {
    /// With `on`, every change also queues its webhook in its own transaction.
    pub fn with_webhook_outbox(mut self, on: bool) -> SqliteStore {
        self.webhook_outbox = on;
        self
    }

    /// Queues `event`'s webhook in the change's transaction, beside its journal entry, when
    /// webhooks are on.
    async fn enqueue(
        &self,
        transaction: &mut sqlx::SqliteConnection,
        event: &Event,
    ) -> Result<(), sqlx::Error> {
        if self.webhook_outbox {
            outbox::enqueue_sqlite(transaction, event, self.clock.now_ms()).await?;
        }
        Ok(())
    }

    /// Opens (creating when missing) the database at `url` (`sqlite://PATH` or `sqlite::memory:`),
    /// switches it to WAL and migrates it to the newest schema this binary knows (refusing a
    /// newer one).
    pub async fn open(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT);
        // Each connection to `:memory:` is its own empty database: keep exactly one, forever.
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let one_forever = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None);
        let writer = one_forever.connect_with(options.clone()).await?;
        migrate_sqlite(&mut *writer.acquire().await?).await?;
        let pool = if in_memory {
            writer.clone()
        } else {
            SqlitePoolOptions::new()
                .max_connections(READERS)
                .connect_with(options)
                .await?
        };
        Ok(SqliteStore {
            pool,
            writer,
            clock: Clock::default(),
            webhook_outbox: false,
        })
    }

    async fn by_idempotency_key(
        &self,
        tenant: &Tenant,
        key: &str,
    ) -> Result<Option<Keyed>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            ", request_digest FROM koder_elicitations WHERE user_id = ?1 AND workspace_id = ?2 ",
            "AND conversation_id = ?3 AND idempotency_key = ?4"
        ))
        .bind(&tenant.user_id)
        .bind(&tenant.workspace_id)
        .bind(&tenant.conversation_id)
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(keyed_from_row).transpose()
    }

    /// Inserts a new pending one and journals it, in one transaction; the event to announce.
    async fn insert(&self, new: &NewElicitation, actor: &Actor) -> Result<Event, sqlx::Error> {
        let event = created_event(new);
        let mut transaction = self.writer.begin_with(BEGIN_CHANGE).await?;
        sqlx::query(
            "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, request, \
             server_name, created_at, expires_at, status, result, finished_at, completed, \
             idempotency_key, request_digest) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', NULL, NULL, 0, ?9, ?10)",
        )
        .bind(&new.id)
        .bind(&new.tenant.user_id)
        .bind(&new.tenant.workspace_id)
        .bind(&new.tenant.conversation_id)
        .bind(new.request.to_string())
        .bind(&new.server_name)
        .bind(new.created_at)
        .bind(new.expires_at)
        .bind(&new.idempotency_key)
        .bind(&new.request_digest)
        .execute(&mut *transaction)
        .await?;
        journal::append_sqlite(&mut transaction, &event, actor, new.created_at).await?;
        self.enqueue(&mut transaction, &event).await?;
        transaction.commit().await?;
        Ok(event)
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn create(&self, new: NewElicitation, actor: &Actor) -> Result<Created, StoreError> {
        let inserted = self.insert(&new, actor).await;
        created_or_existing(inserted, new, |tenant, key| async move {
            self.by_idempotency_key(&tenant, &key).await
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let row = sqlx::query(select_sql!("WHERE id = ?1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    async fn pending(&self, filter: &TenantFilter) -> Result<Vec<Record>, StoreError> {
        let rows = sqlx::query(select_sql!(
            "WHERE user_id = ?1 AND workspace_id = ?2 AND status = 'pending' \
             AND (?3 IS NULL OR conversation_id = ?3) ORDER BY created_at, id"
        ))
        .bind(&filter.user_id)
        .bind(&filter.workspace_id)
        .bind(&filter.conversation_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(record_from_row).collect()
    }

    async fn finish(
        &self,
        id: &str,
        status: Status,
        result: &Value,
        now_ms: i64,
        actor: &Actor,
    ) -> Result<Option<Event>, StoreError> {
        let Some(kind) = EventKind::finishing(status) else {
            return Err(StoreError("cannot finish an elicitation as pending".into()));
        };
        let mut transaction = self.writer.begin_with(BEGIN_CHANGE).await?;
        let rows = sqlx::query(concat!(
            "UPDATE koder_elicitations SET status = ?1, result = ?2, finished_at = ?3 ",
            "WHERE id = ?4 AND status = 'pending' RETURNING ",
            record_columns!()
        ))
        .bind(status.as_str())
        .bind(result.to_string())
        .bind(now_ms)
        .bind(id)
        // Run to completion (not `fetch_optional`), so the statement is done before the commit.
        .fetch_all(&mut *transaction)
        .await?;
        let Some(event) = changed(kind, rows.first())? else {
            return Ok(None);
        };
        journal::append_sqlite(&mut transaction, &event, actor, now_ms).await?;
        self.enqueue(&mut transaction, &event).await?;
        transaction.commit().await?;
        Ok(Some(event))
    }

    async fn complete(&self, id: &str, actor: &Actor) -> Result<Option<Event>, StoreError> {
        let mut transaction = self.writer.begin_with(BEGIN_CHANGE).await?;
        let rows = sqlx::query(concat!(
            "UPDATE koder_elicitations SET completed = 1 WHERE id = ?1 AND completed = 0 ",
            "RETURNING ",
            record_columns!()
        ))
        .bind(id)
        .fetch_all(&mut *transaction)
        .await?;
        let Some(event) = changed(EventKind::Complete, rows.first())? else {
            return Ok(None);
        };
        journal::append_sqlite(&mut transaction, &event, actor, self.clock.now_ms()).await?;
        self.enqueue(&mut transaction, &event).await?;
        transaction.commit().await?;
        Ok(Some(event))
    }

    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError> {
        // Asked five times a second: a reader answers "nothing is due" without queueing for the
        // writer.
        let due: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM koder_elicitations \
             WHERE status = 'pending' AND expires_at <= ?1)",
        )
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        if !due {
            return Ok(Vec::new());
        }
        let mut transaction = self.writer.begin_with(BEGIN_CHANGE).await?;
        let rows = sqlx::query(concat!(
            "UPDATE koder_elicitations ",
            "SET status = 'expired', result = '{\"action\":\"cancel\"}', finished_at = ?1 ",
            "WHERE status = 'pending' AND expires_at <= ?1 RETURNING ",
            record_columns!()
        ))
        .bind(now_ms)
        .fetch_all(&mut *transaction)
        .await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut expired = rows
            .iter()
            .map(record_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        expired.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        let events: Vec<Event> = expired
            .into_iter()
            .map(|record| Event::new(EventKind::Expired, record))
            .collect();
        for event in &events {
            journal::append_sqlite(&mut transaction, event, &Actor::Relay, now_ms).await?;
            self.enqueue(&mut transaction, event).await?;
        }
        transaction.commit().await?;
        Ok(events)
    }

    async fn purge_finished(&self, finished_by_ms: i64, batch: i64) -> Result<u64, StoreError> {
        let purged = sqlx::query(
            "DELETE FROM koder_elicitations WHERE id IN (SELECT id FROM koder_elicitations \
             WHERE finished_at <= ?1 AND status <> 'pending' LIMIT ?2)",
        )
        .bind(finished_by_ms)
        .bind(batch)
        .execute(&self.writer)
        .await?;
        Ok(purged.rows_affected())
    }

    async fn audit(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(journal::PAGE)
            .bind(after)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        Ok(journal::entries(&rows)?)
    }

    fn clock(&self) -> &Clock {
        &self.clock
    }

    async fn issue_ticket(
        &self,
        ticket: &NewTicket,
        max_live: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        // One statement: SQLite's single writer makes the count and the insert one step.
        let inserted = sqlx::query(
            "INSERT INTO koder_stream_tickets \
             (digest, user_id, workspace_id, conversation_id, token_expires_at, expires_at) \
             SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE (SELECT COUNT(*) FROM koder_stream_tickets \
             WHERE user_id = ?2 AND workspace_id = ?3 AND expires_at > ?7) < ?8",
        )
        .bind(&ticket.digest)
        .bind(&ticket.user_id)
        .bind(&ticket.workspace_id)
        .bind(&ticket.conversation_id)
        .bind(ticket.token_expires_at)
        .bind(ticket.expires_at)
        .bind(now_ms)
        .bind(max_live)
        .execute(&self.writer)
        .await?;
        Ok(inserted.rows_affected() == 1)
    }

    async fn redeem_ticket(
        &self,
        digest: &str,
        now_ms: i64,
    ) -> Result<Option<RedeemedTicket>, StoreError> {
        let rows = sqlx::query(
            "DELETE FROM koder_stream_tickets WHERE digest = ?1 AND expires_at > ?2 \
             RETURNING user_id, workspace_id, conversation_id, token_expires_at",
        )
        .bind(digest)
        .bind(now_ms)
        // Run to completion, so the ticket is gone before the stream it opens starts.
        .fetch_all(&self.writer)
        .await?;
        rows.first().map(redeemed_from_row).transpose()
    }

    async fn purge_tickets(&self, now_ms: i64) -> Result<u64, StoreError> {
        let purged = sqlx::query("DELETE FROM koder_stream_tickets WHERE expires_at <= ?1")
            .bind(now_ms)
            .execute(&self.writer)
            .await?;
        Ok(purged.rows_affected())
    }

    async fn claim_webhooks(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<Delivery>, StoreError> {
        Ok(outbox::claim_sqlite(&self.writer, now_ms, lease_ms, limit).await?)
    }

    async fn record_webhook_attempts(
        &self,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        Ok(outbox::record_sqlite(&self.writer, attempts, now_ms).await?)
    }

    async fn purge_delivered_webhooks(
        &self,
        before_ms: i64,
        limit: i64,
    ) -> Result<u64, StoreError> {
        Ok(outbox::purge_delivered_sqlite(&self.writer, before_ms, limit).await?)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn count_pending(&self) -> Result<i64, StoreError> {
        let count: i64 =
            sqlx::query_scalar("SELECT count(*) FROM koder_elicitations WHERE status = ?1")
                .bind(Status::Pending.as_str())
                .fetch_one(&self.pool)
                .await?;
        Ok(count)
    }

    async fn write_audit_checkpoint(&self, now_ms: i64) -> Result<Option<Checkpoint>, StoreError> {
        Ok(journal::write_checkpoint_sqlite(&self.pool, &self.writer, now_ms).await?)
    }

    async fn latest_audit_checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        Ok(journal::latest_checkpoint_sqlite(&self.pool).await?)
    }
}
