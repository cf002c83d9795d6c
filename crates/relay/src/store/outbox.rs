//! The webhook outbox (`koder_webhook_outbox`, see the `0004_webhook_outbox` migrations): the
//! row a change queues beside itself ([`enqueue`], committed with the change), the
//! claim that leases due rows to one worker (on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so one
//! replica sends each), what an attempt came to, and retention. One text for both dialects
//! except the claim's lock. The claim and the record of attempts are written once for every
//! outbox table ([`OutboxTable`]): the push outbox (`push_outbox`) runs the same.

use sqlx::QueryBuilder;

use super::beside::{beside, Arg, Beside, BesideText};
use super::db::{either, push_list, Database, Dialects};
use super::StoreError;
use crate::events::Event;

/// One row to queue: what the webhook module makes of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxRow {
    /// The `webhook-id`, the same on every attempt.
    pub id: String,
    /// The elicitation it tells of.
    pub elicitation_id: String,
    /// The Standard Webhooks event type.
    pub event_type: &'static str,
    /// The JSON body, byte for byte as it will be signed.
    pub payload: String,
}

/// The webhook row of an event (`None` for a change that sends none): given to the store when
/// webhooks are on, so every change queues its row in its own transaction.
pub type WebhookRows = fn(&Event) -> Option<OutboxRow>;

/// One claimed row: what to send, and how many attempts it has had, this one included.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
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

/// The insert of one row beside its change (`$5` its time); a repeat is a no-op.
const ENQUEUE: BesideText = beside!(
    "INSERT INTO koder_webhook_outbox \
     (id, elicitation_id, event_type, payload, created_at, attempts, next_attempt_at) \
     SELECT $1, $2, $3, $4, $5, 0, $5 FROM ",
    " WHERE TRUE ON CONFLICT (id) DO NOTHING"
);

/// What queuing `row` at `now_ms` writes beside its change.
pub(super) fn enqueue(row: OutboxRow, now_ms: i64) -> Beside {
    Beside {
        text: ENQUEUE,
        args: vec![
            Arg::Text(row.id),
            Arg::Text(row.elicitation_id),
            Arg::Text(row.event_type.to_string()),
            Arg::Text(row.payload),
            Arg::Int(now_ms),
        ],
    }
}

/// The statements every outbox table runs alike (`koder_webhook_outbox`, `koder_push_outbox`):
/// both have `id`, `attempts`, `next_attempt_at`, `delivered_at`, `failed_at` and `last_error`.
#[derive(Debug, Clone, Copy)]
pub(super) struct OutboxTable {
    /// Leases due rows (`$1` now, `$2` the lease, `$3` how many), counting the attempt, and
    /// returns them.
    pub(super) claim: Dialects,
    /// Marks rows delivered: the time and then the ids follow.
    pub(super) delivered: &'static str,
    /// Schedules a row's next attempt (`$1` id, `$2` when, `$3` the error).
    pub(super) retry: &'static str,
    /// Gives a row up (`$1` id, `$2` now, `$3` the error).
    pub(super) gave_up: &'static str,
    /// Whether any row is due at `$1`.
    pub(super) due: &'static str,
    /// Deletes up to `$2` rows done (delivered or given up) before `$1`.
    pub(super) purge_done: &'static str,
}

/// The statements of the outbox table `$table`, claims returning `$returning`. A claim leases
/// due rows and counts the attempt; on PostgreSQL rows another replica is claiming are skipped,
/// not waited for, and a claimed row is no longer due, so each goes to one replica.
macro_rules! outbox_table {
    ($table:literal, $returning:literal) => {
        OutboxTable {
            claim: Dialects {
                sqlite: outbox_table!(@claim $table, $returning, ""),
                postgres: outbox_table!(@claim $table, $returning, " FOR UPDATE SKIP LOCKED"),
            },
            delivered: concat!("UPDATE ", $table, " SET delivered_at = "),
            retry: concat!(
                "UPDATE ", $table, " SET next_attempt_at = $2, last_error = $3 WHERE id = $1"
            ),
            gave_up: concat!(
                "UPDATE ", $table, " SET failed_at = $2, last_error = $3 WHERE id = $1"
            ),
            due: concat!(
                "SELECT EXISTS (SELECT 1 FROM ", $table, " WHERE delivered_at IS NULL ",
                "AND failed_at IS NULL AND next_attempt_at <= $1)"
            ),
            purge_done: concat!(
                "DELETE FROM ", $table, " WHERE id IN (SELECT id FROM ", $table, " ",
                "WHERE delivered_at < $1 OR failed_at < $1 LIMIT $2)"
            ),
        }
    };
    (@claim $table:literal, $returning:literal, $lock:literal) => {
        concat!(
            "UPDATE ", $table, " SET attempts = attempts + 1, next_attempt_at = $1 + $2 ",
            "WHERE id IN (SELECT id FROM ", $table, " ",
            "WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1 ",
            "ORDER BY next_attempt_at LIMIT $3",
            $lock,
            ") RETURNING ",
            $returning
        )
    };
}
pub(super) use outbox_table;

const WEBHOOKS: OutboxTable = outbox_table!("koder_webhook_outbox", "id, payload, attempts");

impl OutboxTable {
    /// Leases up to `limit` due rows for `lease_ms` and counts their attempt.
    pub(super) async fn claim<T>(
        &self,
        database: &Database,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<T>, StoreError>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
            + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
            + Send
            + Unpin,
    {
        either!(database.writer(), |pool, dialect| {
            Ok(sqlx::query_as::<_, T>(dialect(self.claim))
                .bind(now_ms)
                .bind(lease_ms)
                .bind(limit)
                .fetch_all(pool)
                .await?)
        })
    }

    /// Like [`claim`](Self::claim), for a table most changes queue nothing to: a reader
    /// answers "nothing is due" first, without taking the writer.
    pub(super) async fn claim_when_due<T>(
        &self,
        database: &Database,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<T>, StoreError>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
            + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
            + Send
            + Unpin,
    {
        let due = either!(database.reader(), |pool| {
            sqlx::query_scalar::<_, bool>(self.due)
                .bind(now_ms)
                .fetch_one(pool)
                .await?
        });
        if !due {
            return Ok(Vec::new());
        }
        self.claim(database, now_ms, lease_ms, limit).await
    }

    /// Deletes up to `limit` rows done (delivered or given up) before `before_ms` (retention);
    /// returns how many.
    pub(super) async fn purge_done(
        &self,
        database: &Database,
        before_ms: i64,
        limit: i64,
    ) -> Result<u64, StoreError> {
        either!(database.writer(), |pool| {
            let purged = sqlx::query(self.purge_done)
                .bind(before_ms)
                .bind(limit)
                .execute(pool)
                .await?;
            Ok(purged.rows_affected())
        })
    }

    /// Keeps what each attempt of a batch came to (row id, outcome), in one transaction.
    pub(super) async fn record(
        &self,
        database: &Database,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let delivered: Vec<&str> = attempts
            .iter()
            .filter(|(_, outcome)| *outcome == Outcome::Delivered)
            .map(|(id, _)| id.as_str())
            .collect();
        either!(database.writer(), |pool| {
            let mut transaction = pool.begin().await?;
            // Deliveries, the common outcome, in one statement.
            if !delivered.is_empty() {
                let mut update = QueryBuilder::new(self.delivered);
                update.push_bind(now_ms);
                update.push(", last_error = NULL WHERE id IN ");
                push_list(&mut update, delivered.iter().map(|id| id.to_string()));
                update.build().execute(&mut *transaction).await?;
            }
            for (id, outcome) in attempts {
                let (statement, at, error) = match outcome {
                    Outcome::Delivered => continue,
                    Outcome::Retry {
                        next_attempt_at,
                        error,
                    } => (self.retry, *next_attempt_at, error),
                    Outcome::GaveUp { error } => (self.gave_up, now_ms, error),
                };
                sqlx::query(statement)
                    .bind(id)
                    .bind(at)
                    .bind(error)
                    .execute(&mut *transaction)
                    .await?;
            }
            Ok(transaction.commit().await?)
        })
    }
}

/// The outbox.
#[derive(Debug, Clone)]
pub struct OutboxStore {
    pub(super) database: Database,
}

impl OutboxStore {
    /// Leases up to `limit` due deliveries for `lease_ms` (pushing their next attempt past it)
    /// and counts their attempt. Each row goes to one caller, across replicas too.
    pub async fn claim(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<Delivery>, StoreError> {
        WEBHOOKS
            .claim(&self.database, now_ms, lease_ms, limit)
            .await
    }

    /// Keeps what each attempt of a batch came to (delivery id, outcome), in one transaction
    /// (one commit for the batch, not one per delivery).
    pub async fn record(
        &self,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        WEBHOOKS.record(&self.database, attempts, now_ms).await
    }

    /// Deletes up to `limit` rows delivered before `before_ms` (retention); returns how many.
    /// Rows given up on stay until an operator looks.
    pub async fn purge_delivered(&self, before_ms: i64, limit: i64) -> Result<u64, StoreError> {
        either!(self.database.writer(), |pool| {
            let purged = sqlx::query(
                "DELETE FROM koder_webhook_outbox WHERE id IN (SELECT id FROM \
                 koder_webhook_outbox WHERE delivered_at IS NOT NULL AND delivered_at < $1 \
                 LIMIT $2)",
            )
            .bind(before_ms)
            .bind(limit)
            .execute(pool)
            .await?;
            Ok(purged.rows_affected())
        })
    }
}
