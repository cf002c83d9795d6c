//! The single-process store: one SQLite file in WAL mode. Every state change is one conditional
//! statement (`… WHERE status = 'pending'`), so exactly one writer wins, and the winner gets the
//! changed row back as its event.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::rows::{changed, created_or_existing, keyed_from_row, record_from_row, Keyed};
use super::schema::{elicitations_table, INDEXES, TICKET_SCHEMA};
use super::tickets::redeemed_from_row;
use super::{
    Clock, Created, NewElicitation, NewTicket, Record, RedeemedTicket, Status, Store, StoreError,
    Tenant, TenantFilter,
};
use crate::events::{Event, EventKind};

/// Writers queue behind SQLite's one write lock; a busy connection waits this long before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// A few readers alongside the one writer WAL allows.
const POOL_SIZE: u32 = 4;

/// The previous version's table (a table-wide `UNIQUE` on `idempotency_key`, no
/// `request_digest`) rebuilt in the current shape, the way SQLite documents for changes
/// `ALTER TABLE` cannot make: create the new table, copy, drop the old, rename. Its indexes
/// went with the old table; [`INDEXES`] makes them again.
const UPGRADE_FROM_GLOBAL_KEYS: [&str; 4] = [
    elicitations_table!("koder_elicitations_upgraded", "INTEGER NOT NULL DEFAULT 0"),
    "INSERT INTO koder_elicitations_upgraded (id, user_id, workspace_id, conversation_id, \
     request, server_name, created_at, expires_at, status, result, finished_at, completed, \
     idempotency_key, request_digest) \
     SELECT id, user_id, workspace_id, conversation_id, request, server_name, created_at, \
     expires_at, status, result, finished_at, completed, idempotency_key, NULL \
     FROM koder_elicitations",
    "DROP TABLE koder_elicitations",
    "ALTER TABLE koder_elicitations_upgraded RENAME TO koder_elicitations",
];

/// Whether the table has the `request_digest` column (the previous version's has not).
const HAS_REQUEST_DIGEST: &str =
    "SELECT count(*) FROM pragma_table_info('koder_elicitations') WHERE name = 'request_digest'";

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
    pool: SqlitePool,
    /// The process clock: one process is the whole deployment.
    clock: Clock,
}

impl SqliteStore {
    /// Opens (creating when missing) the database at `url` (`sqlite://PATH` or `sqlite::memory:`),
    /// switches it to WAL and creates the table and its indexes.
    pub async fn open(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT);
        // Each connection to `:memory:` is its own empty database: keep exactly one, forever.
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let pool_options = if in_memory {
            SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
        } else {
            SqlitePoolOptions::new().max_connections(POOL_SIZE)
        };
        let pool = pool_options.connect_with(options).await?;
        create_schema(&pool).await?;
        Ok(SqliteStore {
            pool,
            clock: Clock::default(),
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
}

/// Creates the table and its indexes, first upgrading a table the previous version made.
async fn create_schema(pool: &SqlitePool) -> Result<(), StoreError> {
    sqlx::query(elicitations_table!(
        "koder_elicitations",
        "INTEGER NOT NULL DEFAULT 0"
    ))
    .execute(pool)
    .await?;
    // IMMEDIATE takes the write lock before the check: two processes opening one old file
    // upgrade it once.
    let mut transaction = pool.begin_with("BEGIN IMMEDIATE").await?;
    let has_digest: i64 = sqlx::query_scalar(HAS_REQUEST_DIGEST)
        .fetch_one(&mut *transaction)
        .await?;
    if has_digest == 0 {
        for statement in UPGRADE_FROM_GLOBAL_KEYS {
            sqlx::query(statement).execute(&mut *transaction).await?;
        }
    }
    for statement in INDEXES.iter().chain(&TICKET_SCHEMA) {
        sqlx::query(*statement).execute(&mut *transaction).await?;
    }
    transaction.commit().await?;
    Ok(())
}

#[async_trait]
impl Store for SqliteStore {
    async fn create(&self, new: NewElicitation) -> Result<Created, StoreError> {
        let request = new.request.to_string();
        let inserted = sqlx::query(
            "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, request, \
             server_name, created_at, expires_at, status, result, finished_at, completed, \
             idempotency_key, request_digest) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', NULL, NULL, 0, ?9, ?10)",
        )
        .bind(&new.id)
        .bind(&new.tenant.user_id)
        .bind(&new.tenant.workspace_id)
        .bind(&new.tenant.conversation_id)
        .bind(&request)
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
    ) -> Result<Option<Event>, StoreError> {
        let Some(kind) = EventKind::finishing(status) else {
            return Err(StoreError("cannot finish an elicitation as pending".into()));
        };
        let rows = sqlx::query(concat!(
            "UPDATE koder_elicitations SET status = ?1, result = ?2, finished_at = ?3 ",
            "WHERE id = ?4 AND status = 'pending' RETURNING ",
            record_columns!()
        ))
        .bind(status.as_str())
        .bind(result.to_string())
        .bind(now_ms)
        .bind(id)
        // Run to completion (not `fetch_optional`), so the statement is done and its change
        // committed before anyone hears of it.
        .fetch_all(&self.pool)
        .await?;
        changed(kind, rows.first())
    }

    async fn complete(&self, id: &str) -> Result<Option<Event>, StoreError> {
        let rows = sqlx::query(concat!(
            "UPDATE koder_elicitations SET completed = 1 WHERE id = ?1 AND completed = 0 ",
            "RETURNING ",
            record_columns!()
        ))
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        changed(EventKind::Complete, rows.first())
    }

    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError> {
        let rows = sqlx::query(concat!(
            "UPDATE koder_elicitations ",
            "SET status = 'expired', result = '{\"action\":\"cancel\"}', finished_at = ?1 ",
            "WHERE status = 'pending' AND expires_at <= ?1 RETURNING ",
            record_columns!()
        ))
        .bind(now_ms)
        .fetch_all(&self.pool)
        .await?;
        let mut expired = rows
            .iter()
            .map(record_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        expired.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(expired
            .into_iter()
            .map(|record| Event::new(EventKind::Expired, record))
            .collect())
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
        .execute(&self.pool)
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
        .fetch_all(&self.pool)
        .await?;
        rows.first().map(redeemed_from_row).transpose()
    }

    async fn purge_tickets(&self, now_ms: i64) -> Result<u64, StoreError> {
        let purged = sqlx::query("DELETE FROM koder_stream_tickets WHERE expires_at <= ?1")
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
            sqlx::query_scalar("SELECT count(*) FROM koder_elicitations WHERE status = ?1")
                .bind(Status::Pending.as_str())
                .fetch_one(&self.pool)
                .await?;
        Ok(count)
    }
}
