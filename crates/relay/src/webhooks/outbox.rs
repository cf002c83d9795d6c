//! The outbox rows (`koder_webhook_outbox`, see the `0004_webhook_outbox` migrations): the
//! enqueue, run inside the transaction of the change it tells of; the claim, which leases due
//! rows to one worker (on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so one replica sends each);
//! and the outcome of an attempt. One copy of each statement per dialect.

use sqlx::{PgConnection, PgPool, Row, SqliteConnection, SqlitePool};

use super::{event_type, payload, webhook_id};
use crate::events::Event;

/// One claimed row: what to send, and how many attempts it has had, this one included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The `webhook-id`, the same on every attempt.
    pub id: String,
    /// The JSON body, byte for byte as signed.
    pub payload: String,
    /// Attempts so far, counting the one this claim is for.
    pub attempts: i64,
}

/// What an attempt came to, as the outbox keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// 2xx: done.
    Delivered,
    /// Failed; try again at `next_attempt_at` (ms since the Unix epoch).
    Retry {
        /// When.
        next_attempt_at: i64,
        /// Why this one failed (short, no secrets).
        error: String,
    },
    /// Failed and the schedule is spent: the row stays, marked failed, for an operator to see.
    GaveUp {
        /// Why the last one failed.
        error: String,
    },
}

/// A row ready to insert.
struct Queued {
    id: String,
    elicitation_id: String,
    event_type: &'static str,
    payload: String,
}

fn row_of(event: &Event) -> Option<Queued> {
    let event_type = event_type(event.kind)?;
    Some(Queued {
        id: webhook_id(event, event_type),
        elicitation_id: event.id().to_string(),
        event_type,
        payload: payload(event, event_type).to_string(),
    })
}

/// Queues `event`'s webhook on SQLite, inside the caller's transaction. A repeat is a no-op.
pub async fn enqueue_sqlite(
    connection: &mut SqliteConnection,
    event: &Event,
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    let Some(row) = row_of(event) else {
        return Ok(());
    };
    sqlx::query(
        "INSERT INTO koder_webhook_outbox \
         (id, elicitation_id, event_type, payload, created_at, attempts, next_attempt_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, 0, ?5) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&row.id)
    .bind(&row.elicitation_id)
    .bind(row.event_type)
    .bind(&row.payload)
    .bind(now_ms)
    .execute(connection)
    .await?;
    Ok(())
}

/// Queues `event`'s webhook on PostgreSQL, inside the caller's transaction. A repeat is a no-op.
pub async fn enqueue_postgres(
    connection: &mut PgConnection,
    event: &Event,
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    let Some(row) = row_of(event) else {
        return Ok(());
    };
    sqlx::query(
        "INSERT INTO koder_webhook_outbox \
         (id, elicitation_id, event_type, payload, created_at, attempts, next_attempt_at) \
         VALUES ($1, $2, $3, $4, $5, 0, $5) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&row.id)
    .bind(&row.elicitation_id)
    .bind(row.event_type)
    .bind(&row.payload)
    .bind(now_ms)
    .execute(connection)
    .await?;
    Ok(())
}

fn delivery_from_row<'r, R>(row: &'r R) -> Result<Delivery, sqlx::Error>
where
    R: Row,
    &'static str: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(Delivery {
        id: row.try_get("id")?,
        payload: row.try_get("payload")?,
        attempts: row.try_get("attempts")?,
    })
}

/// Leases up to `limit` due rows for `lease_ms` (pushing their next attempt past it, so no other
/// claim takes them while this worker sends) and counts the attempt. SQLite has one process.
pub async fn claim_sqlite(
    pool: &SqlitePool,
    now_ms: i64,
    lease_ms: i64,
    limit: i64,
) -> Result<Vec<Delivery>, sqlx::Error> {
    let rows = sqlx::query(
        "UPDATE koder_webhook_outbox SET attempts = attempts + 1, next_attempt_at = ?1 + ?2 \
         WHERE id IN (SELECT id FROM koder_webhook_outbox \
         WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ?1 \
         ORDER BY next_attempt_at LIMIT ?3) \
         RETURNING id, payload, attempts",
    )
    .bind(now_ms)
    .bind(lease_ms)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter().map(delivery_from_row).collect()
}

/// Like [`claim_sqlite`], across replicas: rows another replica is claiming are skipped, not
/// waited for, and a row it has claimed is no longer due, so each row goes to one replica.
pub async fn claim_postgres(
    pool: &PgPool,
    now_ms: i64,
    lease_ms: i64,
    limit: i64,
) -> Result<Vec<Delivery>, sqlx::Error> {
    let rows = sqlx::query(
        "UPDATE koder_webhook_outbox SET attempts = attempts + 1, next_attempt_at = $1 + $2 \
         WHERE id IN (SELECT id FROM koder_webhook_outbox \
         WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1 \
         ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) \
         RETURNING id, payload, attempts",
    )
    .bind(now_ms)
    .bind(lease_ms)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter().map(delivery_from_row).collect()
}

/// The update that keeps what an attempt came to, as one statement with the same three
/// parameters in both dialects (`$1` id, `$2` a time, `$3` the error or NULL).
fn record_statement(outcome: &Outcome, now_ms: i64) -> (&'static str, i64, Option<String>) {
    match outcome {
        Outcome::Delivered => (
            "UPDATE koder_webhook_outbox SET delivered_at = $2, last_error = $3 WHERE id = $1",
            now_ms,
            None,
        ),
        Outcome::Retry {
            next_attempt_at,
            error,
        } => (
            "UPDATE koder_webhook_outbox SET next_attempt_at = $2, last_error = $3 WHERE id = $1",
            *next_attempt_at,
            Some(error.clone()),
        ),
        Outcome::GaveUp { error } => (
            "UPDATE koder_webhook_outbox SET failed_at = $2, last_error = $3 WHERE id = $1",
            now_ms,
            Some(error.clone()),
        ),
    }
}

/// Keeps what each attempt of a batch came to on SQLite, in one transaction (one commit for the
/// batch, not one per delivery).
pub async fn record_sqlite(
    pool: &SqlitePool,
    attempts: &[(String, Outcome)],
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    let mut transaction = pool.begin().await?;
    for (id, outcome) in attempts {
        let (statement, at, error) = record_statement(outcome, now_ms);
        sqlx::query(statement)
            .bind(id)
            .bind(at)
            .bind(error)
            .execute(&mut *transaction)
            .await?;
    }
    transaction.commit().await
}

/// Keeps what each attempt of a batch came to on PostgreSQL, in one transaction (one commit for the
/// batch, not one per delivery).
pub async fn record_postgres(
    pool: &PgPool,
    attempts: &[(String, Outcome)],
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    let mut transaction = pool.begin().await?;
    for (id, outcome) in attempts {
        let (statement, at, error) = record_statement(outcome, now_ms);
        sqlx::query(statement)
            .bind(id)
            .bind(at)
            .bind(error)
            .execute(&mut *transaction)
            .await?;
    }
    transaction.commit().await
}

/// Deletes up to `limit` rows delivered before `before_ms` on SQLite (for retention; rows given
/// up on stay until an operator looks). Returns how many.
pub async fn purge_delivered_sqlite(
    pool: &SqlitePool,
    before_ms: i64,
    limit: i64,
) -> Result<u64, sqlx::Error> {
    let purged = sqlx::query(
        "DELETE FROM koder_webhook_outbox WHERE id IN (SELECT id FROM koder_webhook_outbox \
         WHERE delivered_at IS NOT NULL AND delivered_at < ?1 LIMIT ?2)",
    )
    .bind(before_ms)
    .bind(limit)
    .execute(pool)
    .await?;
    Ok(purged.rows_affected())
}

/// Deletes up to `limit` rows delivered before `before_ms` on PostgreSQL. Returns how many.
pub async fn purge_delivered_postgres(
    pool: &PgPool,
    before_ms: i64,
    limit: i64,
) -> Result<u64, sqlx::Error> {
    let purged = sqlx::query(
        "DELETE FROM koder_webhook_outbox WHERE id IN (SELECT id FROM koder_webhook_outbox \
         WHERE delivered_at IS NOT NULL AND delivered_at < $1 LIMIT $2)",
    )
    .bind(before_ms)
    .bind(limit)
    .execute(pool)
    .await?;
    Ok(purged.rows_affected())
}
