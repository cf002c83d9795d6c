//! The store replicas share: one PostgreSQL table. Every state change is one conditional statement
//! (`… WHERE status = 'pending'`), so exactly one writer wins even across replicas, and the same
//! statement sends `pg_notify` on [`EVENTS_CHANNEL`] (delivered on commit, only when a row
//! changed). The replica that made a change announces it itself from the event it gets back; the
//! other replicas hear of it through their LISTEN task (`crate::listen`).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use sqlx::postgres::{PgPool, PgPoolOptions};

use super::clock::{measured_offset_ms, process_now_ms, ClockReading};
use super::journal;
use super::migrations::migrate_postgres;
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

/// The NOTIFY channel every replica listens on.
pub const EVENTS_CHANNEL: &str = "koder_relay_events";

/// Connections per replica: enough for concurrent requests; PostgreSQL serves ~100 in total.
const POOL_SIZE: u32 = 8;
/// How long a request waits for a free connection before answering "storage unavailable".
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// How many readings of the database's clock a measurement takes (the quickest one counts).
const CLOCK_READINGS: usize = 3;

/// The database's clock in ms since the Unix epoch: `clock_timestamp()` is the time as the
/// statement runs, not when its transaction began.
const DATABASE_NOW_MS: &str =
    "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms";

/// The `SELECT` list of a whole record.
macro_rules! record_columns {
    () => {
        "id, user_id, workspace_id, conversation_id, request, server_name, \
         created_at, expires_at, status, result, finished_at, completed"
    };
}

/// `pg_notify` of one changed row (`$1` = origin, `$2` = event name), as text: `void` has no
/// Rust type to decode into. Only the id travels: each replica reads the record once.
macro_rules! notify_changed {
    () => {
        "pg_notify('koder_relay_events', json_build_object('origin', $1::text, 'kind', $2::text, \
         'id', id)::text)::text AS notified"
    };
}

/// Elicitations in a PostgreSQL database that several relay replicas may share.
#[derive(Debug)]
pub struct PostgresStore {
    pool: PgPool,
    /// This replica's random id, sent with each notification: its LISTEN task skips its own.
    origin: String,
    /// The process clock corrected to the database's, re-measured by [`Store::sync_clock`].
    clock: Clock,
    /// Whether each change also queues its webhook (with `--webhook-url`).
    webhook_outbox: bool,
}

impl PostgresStore {
    /// With `on`, every change also queues its webhook in its own transaction.
    pub fn with_webhook_outbox(mut self, on: bool) -> PostgresStore {
        self.webhook_outbox = on;
        self
    }

    /// Queues `event`'s webhook in the change's transaction, beside its journal entry, when
    /// webhooks are on.
    async fn enqueue(
        &self,
        transaction: &mut sqlx::PgConnection,
        event: &Event,
    ) -> Result<(), sqlx::Error> {
        if self.webhook_outbox {
            outbox::enqueue_postgres(transaction, event, self.clock.now_ms()).await?;
        }
        Ok(())
    }

    /// Connects to `url` (`postgres://…`) and migrates the database to the newest schema this
    /// binary knows (refusing a newer one).
    /// Other replicas' changes are heard by a [`crate::listen`] task started with [`Self::origin`].
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        migrate_postgres(url).await?;
        let pool = PgPoolOptions::new()
            .max_connections(POOL_SIZE)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect(url)
            .await?;
        let origin = koder_elicitation_relay_protocol::random_id()
            .map_err(|error| StoreError(format!("no randomness for the replica id: {error}")))?;
        let store = PostgresStore {
            pool,
            origin,
            clock: Clock::default(),
            webhook_outbox: false,
        };
        store.sync_clock().await?;
        Ok(store)
    }

    /// This replica's id in the notifications it sends.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    async fn by_idempotency_key(
        &self,
        tenant: &Tenant,
        key: &str,
    ) -> Result<Option<Keyed>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            ", request_digest FROM koder_elicitations WHERE user_id = $1 AND workspace_id = $2 ",
            "AND conversation_id = $3 AND idempotency_key = $4"
        ))
        .bind(&tenant.user_id)
        .bind(&tenant.workspace_id)
        .bind(&tenant.conversation_id)
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(keyed_from_row).transpose()
    }

    /// Inserts a new pending one and journals it, in one transaction (its notification is
    /// delivered on commit); the event to announce.
    async fn insert(&self, new: &NewElicitation, actor: &Actor) -> Result<Event, sqlx::Error> {
        let event = created_event(new);
        let mut transaction = self.pool.begin().await?;
        sqlx::query(concat!(
            "WITH inserted AS (",
            "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, request, ",
            "server_name, created_at, expires_at, status, completed, idempotency_key, ",
            "request_digest) ",
            "VALUES ($3, $4, $5, $6, $7, $8, $9, $10, 'pending', false, $11, $12) ",
            "RETURNING id, user_id, workspace_id, conversation_id) ",
            "SELECT ",
            notify_changed!(),
            " FROM inserted"
        ))
        .bind(&self.origin)
        .bind(EventKind::Created.event_name())
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
        journal::append_postgres(&mut transaction, &event, actor, new.created_at).await?;
        self.enqueue(&mut transaction, &event).await?;
        transaction.commit().await?;
        Ok(event)
    }
}

#[async_trait]
impl Store for PostgresStore {
    async fn create(&self, new: NewElicitation, actor: &Actor) -> Result<Created, StoreError> {
        let inserted = self.insert(&new, actor).await;
        created_or_existing(inserted, new, |tenant, key| async move {
            self.by_idempotency_key(&tenant, &key).await
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            " FROM koder_elicitations WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    async fn pending(&self, filter: &TenantFilter) -> Result<Vec<Record>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            " FROM koder_elicitations ",
            "WHERE user_id = $1 AND workspace_id = $2 AND status = 'pending' ",
            "AND ($3::text IS NULL OR conversation_id = $3::text) ORDER BY created_at, id"
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
        let mut transaction = self.pool.begin().await?;
        let row = sqlx::query(concat!(
            "WITH changed AS (",
            "UPDATE koder_elicitations SET status = $3, result = $4, finished_at = $5 ",
            "WHERE id = $6 AND status = 'pending' RETURNING ",
            record_columns!(),
            ") SELECT ",
            record_columns!(),
            ", ",
            notify_changed!(),
            " FROM changed"
        ))
        .bind(&self.origin)
        .bind(kind.event_name())
        .bind(status.as_str())
        .bind(result.to_string())
        .bind(now_ms)
        .bind(id)
        .fetch_optional(&mut *transaction)
        .await?;
        let Some(event) = changed(kind, row.as_ref())? else {
            return Ok(None);
        };
        journal::append_postgres(&mut transaction, &event, actor, now_ms).await?;
        self.enqueue(&mut transaction, &event).await?;
        transaction.commit().await?;
        Ok(Some(event))
    }

    async fn complete(&self, id: &str, actor: &Actor) -> Result<Option<Event>, StoreError> {
        let mut transaction = self.pool.begin().await?;
        let row = sqlx::query(concat!(
            "WITH changed AS (",
            "UPDATE koder_elicitations SET completed = true WHERE id = $3 AND NOT completed ",
            "RETURNING ",
            record_columns!(),
            ") SELECT ",
            record_columns!(),
            ", ",
            notify_changed!(),
            " FROM changed"
        ))
        .bind(&self.origin)
        .bind(EventKind::Complete.event_name())
        .bind(id)
        .fetch_optional(&mut *transaction)
        .await?;
        let Some(event) = changed(EventKind::Complete, row.as_ref())? else {
            return Ok(None);
        };
        journal::append_postgres(&mut transaction, &event, actor, self.clock.now_ms()).await?;
        self.enqueue(&mut transaction, &event).await?;
        transaction.commit().await?;
        Ok(Some(event))
    }

    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError> {
        // Replicas sweep at once: a row another replica is expiring is re-checked after its
        // commit and skipped (no longer pending), so each row expires once.
        let mut transaction = self.pool.begin().await?;
        let rows = sqlx::query(concat!(
            "WITH changed AS (",
            "UPDATE koder_elicitations ",
            "SET status = 'expired', result = '{\"action\":\"cancel\"}', finished_at = $3 ",
            "WHERE status = 'pending' AND expires_at <= $3 ",
            "RETURNING ",
            record_columns!(),
            ") SELECT ",
            record_columns!(),
            ", ",
            notify_changed!(),
            " FROM changed ORDER BY created_at, id"
        ))
        .bind(&self.origin)
        .bind(EventKind::Expired.event_name())
        .bind(now_ms)
        .fetch_all(&mut *transaction)
        .await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let events = rows
            .iter()
            .map(|row| Ok(Event::new(EventKind::Expired, record_from_row(row)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        for event in journal::in_lock_order(&events) {
            journal::append_postgres(&mut transaction, event, &Actor::Relay, now_ms).await?;
            self.enqueue(&mut transaction, event).await?;
        }
        transaction.commit().await?;
        Ok(events)
    }

    async fn purge_finished(&self, finished_by_ms: i64, batch: i64) -> Result<u64, StoreError> {
        let purged = sqlx::query(
            "DELETE FROM koder_elicitations WHERE id IN (SELECT id FROM koder_elicitations \
             WHERE finished_at <= $1 AND status <> 'pending' LIMIT $2)",
        )
        .bind(finished_by_ms)
        .bind(batch)
        .execute(&self.pool)
        .await?;
        Ok(purged.rows_affected())
    }

    async fn audit(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        Ok(journal::page_postgres(&self.pool, after, limit).await?)
    }

    fn clock(&self) -> &Clock {
        &self.clock
    }

    async fn sync_clock(&self) -> Result<(), StoreError> {
        // One connection for every reading: waiting for the pool is not part of a round trip.
        let mut connection = self.pool.acquire().await?;
        let mut readings = Vec::with_capacity(CLOCK_READINGS);
        for _ in 0..CLOCK_READINGS {
            let sent_ms = process_now_ms();
            let database_ms: i64 = sqlx::query_scalar(DATABASE_NOW_MS)
                .fetch_one(&mut *connection)
                .await?;
            readings.push(ClockReading {
                sent_ms,
                database_ms,
                received_ms: process_now_ms(),
            });
        }
        if let Some(offset_ms) = measured_offset_ms(&readings) {
            self.clock.set_offset_ms(offset_ms);
        }
        Ok(())
    }

    async fn issue_ticket(
        &self,
        ticket: &NewTicket,
        max_live: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO koder_stream_tickets \
             (digest, user_id, workspace_id, conversation_id, token_expires_at, expires_at) \
             SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT COUNT(*) FROM koder_stream_tickets \
             WHERE user_id = $2 AND workspace_id = $3 AND expires_at > $7) < $8",
        )
        .bind(&ticket.digest)
        .bind(&ticket.user_id)
        .bind(&ticket.workspace_id)
        .bind(&ticket.conversation_id)
        .bind(ticket.token_expires_at)
        .bind(ticket.expires_at)
        .bind(now_ms)
        .bind(max_live)
        .execute(&self.pool)
        .await?;
        Ok(inserted.rows_affected() == 1)
    }

    async fn redeem_ticket(
        &self,
        digest: &str,
        now_ms: i64,
    ) -> Result<Option<RedeemedTicket>, StoreError> {
        // Two replicas redeeming at once: the second DELETE waits for the first's commit, then
        // finds no row.
        let row = sqlx::query(
            "DELETE FROM koder_stream_tickets WHERE digest = $1 AND expires_at > $2 \
             RETURNING user_id, workspace_id, conversation_id, token_expires_at",
        )
        .bind(digest)
        .bind(now_ms)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(redeemed_from_row).transpose()
    }

    async fn purge_tickets(&self, now_ms: i64) -> Result<u64, StoreError> {
        let purged = sqlx::query("DELETE FROM koder_stream_tickets WHERE expires_at <= $1")
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        Ok(purged.rows_affected())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn count_pending(&self) -> Result<i64, StoreError> {
        let count: i64 =
            sqlx::query_scalar("SELECT count(*) FROM koder_elicitations WHERE status = $1")
                .bind(Status::Pending.as_str())
                .fetch_one(&self.pool)
                .await?;
        Ok(count)
    }

    async fn claim_webhooks(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<Delivery>, StoreError> {
        Ok(outbox::claim_postgres(&self.pool, now_ms, lease_ms, limit).await?)
    }

    async fn record_webhook_attempts(
        &self,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        Ok(outbox::record_postgres(&self.pool, attempts, now_ms).await?)
    }

    async fn purge_delivered_webhooks(
        &self,
        before_ms: i64,
        limit: i64,
    ) -> Result<u64, StoreError> {
        Ok(outbox::purge_delivered_postgres(&self.pool, before_ms, limit).await?)
    }

    async fn write_audit_checkpoint(&self, now_ms: i64) -> Result<Option<Checkpoint>, StoreError> {
        Ok(journal::write_checkpoint_postgres(&self.pool, &self.pool, now_ms).await?)
    }

    async fn latest_audit_checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        Ok(journal::latest_checkpoint_postgres(&self.pool).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_notify_on_the_channel_replicas_listen_on() {
        assert!(notify_changed!().contains(&format!("pg_notify('{EVENTS_CHANNEL}'")));
    }
}
