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
use super::rows::{changed, created_or_existing, keyed_from_row, record_from_row, Keyed};
use super::schema::{elicitations_table, INDEXES, TICKET_SCHEMA};
use super::tickets::redeemed_from_row;
use super::{
    Clock, Created, NewElicitation, NewTicket, Record, RedeemedTicket, Status, Store, StoreError,
    Tenant, TenantFilter,
};
use crate::events::{Event, EventKind};

/// The NOTIFY channel every replica listens on.
pub const EVENTS_CHANNEL: &str = "koder_relay_events";

/// Connections per replica: enough for concurrent requests; PostgreSQL serves ~100 in total.
const POOL_SIZE: u32 = 8;
/// How long a request waits for a free connection before answering "storage unavailable".
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// Serialises schema creation when replicas start together (CREATE … IF NOT EXISTS races).
const SCHEMA_LOCK_KEY: i64 = 0x6b6f_6465_725f_726c; // "koder_rl"

/// How many readings of the database's clock a measurement takes (the quickest one counts).
const CLOCK_READINGS: usize = 3;

/// The elicitations table as this version keeps it.
const CREATE_TABLE: &str =
    elicitations_table!("koder_elicitations", "BOOLEAN NOT NULL DEFAULT false");

/// Whether the table has the `request_digest` column (the previous version's has not).
const HAS_REQUEST_DIGEST: &str = "SELECT EXISTS (SELECT 1 FROM information_schema.columns \
     WHERE table_schema = current_schema() AND table_name = 'koder_elicitations' \
     AND column_name = 'request_digest')";

/// The previous version's table made current: its inline `UNIQUE` on `idempotency_key` (named
/// by PostgreSQL's default `<table>_<column>_key`) goes, and the digest column comes.
const UPGRADE_FROM_GLOBAL_KEYS: &str = "ALTER TABLE koder_elicitations \
     DROP CONSTRAINT IF EXISTS koder_elicitations_idempotency_key_key, \
     ADD COLUMN IF NOT EXISTS request_digest TEXT NULL";

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
}

impl PostgresStore {
    /// Connects to `url` (`postgres://…`) and creates the table and its indexes when missing.
    /// Other replicas' changes are heard by a [`crate::listen`] task started with [`Self::origin`].
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(POOL_SIZE)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect(url)
            .await?;
        create_schema(&pool).await?;
        let origin = koder_elicitation_relay_client::wire::random_id()
            .map_err(|error| StoreError(format!("no randomness for the replica id: {error}")))?;
        let store = PostgresStore {
            pool,
            origin,
            clock: Clock::default(),
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
}

#[async_trait]
impl Store for PostgresStore {
    async fn create(&self, new: NewElicitation) -> Result<Created, StoreError> {
        let inserted = sqlx::query(concat!(
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
        .execute(&self.pool)
        .await
        .map(|_| ());
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
    ) -> Result<Option<Event>, StoreError> {
        let Some(kind) = EventKind::finishing(status) else {
            return Err(StoreError("cannot finish an elicitation as pending".into()));
        };
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
        .fetch_optional(&self.pool)
        .await?;
        changed(kind, row.as_ref())
    }

    async fn complete(&self, id: &str) -> Result<Option<Event>, StoreError> {
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
        .fetch_optional(&self.pool)
        .await?;
        changed(EventKind::Complete, row.as_ref())
    }

    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError> {
        // Replicas sweep at once: a row another replica is expiring is re-checked after its
        // commit and skipped (no longer pending), so each row expires once.
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
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| Ok(Event::new(EventKind::Expired, record_from_row(row)?)))
            .collect()
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
}

async fn create_schema(pool: &PgPool) -> Result<(), StoreError> {
    let mut transaction = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SCHEMA_LOCK_KEY)
        .execute(&mut *transaction)
        .await?;
    sqlx::query(CREATE_TABLE).execute(&mut *transaction).await?;
    let has_digest: bool = sqlx::query_scalar(HAS_REQUEST_DIGEST)
        .fetch_one(&mut *transaction)
        .await?;
    if !has_digest {
        sqlx::query(UPGRADE_FROM_GLOBAL_KEYS)
            .execute(&mut *transaction)
            .await?;
    }
    for statement in INDEXES.iter().chain(&TICKET_SCHEMA) {
        sqlx::query(*statement).execute(&mut *transaction).await?;
    }
    transaction.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_notify_on_the_channel_replicas_listen_on() {
        assert!(notify_changed!().contains(&format!("pg_notify('{EVENTS_CHANNEL}'")));
    }
}
