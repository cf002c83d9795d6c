//! The store replicas share: one PostgreSQL table. Every state change is one conditional statement
//! (`… WHERE status = 'pending'`), so exactly one writer wins even across replicas, and the same
//! statement sends `pg_notify` on [`EVENTS_CHANNEL`] (delivered on commit, only when a row
//! changed). Each store publishes its own changes to its [`Hub`] at once; its LISTEN task feeds
//! the other replicas' changes into the same hub.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};
use tokio::task::JoinHandle;

use super::rows::{created_or_existing, publish, record_from_row, tenant_from_row};
use super::tickets::redeemed_from_row;
use super::{
    Event, EventKind, NewElicitation, NewTicket, Record, RedeemedTicket, Status, Store, StoreError,
    Tenant, TenantFilter,
};
use crate::hub::Hub;

/// The NOTIFY channel every replica listens on.
pub const EVENTS_CHANNEL: &str = "koder_relay_events";

/// Connections per replica: enough for concurrent requests; PostgreSQL serves ~100 in total.
const POOL_SIZE: u32 = 8;
/// How long a request waits for a free connection before answering "storage unavailable".
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// The LISTEN task's wait before rebuilding a lost listener, doubling up to the maximum.
const RELISTEN_FIRST_DELAY: Duration = Duration::from_millis(100);
const RELISTEN_MAX_DELAY: Duration = Duration::from_secs(5);
/// Serialises schema creation when replicas start together (CREATE … IF NOT EXISTS races).
const SCHEMA_LOCK_KEY: i64 = 0x6b6f_6465_725f_726c; // "koder_rl"

const SCHEMA: [&str; 5] = [
    "CREATE TABLE IF NOT EXISTS koder_elicitations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        request TEXT NOT NULL,
        server_name TEXT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        status TEXT NOT NULL,
        result TEXT NULL,
        finished_at BIGINT NULL,
        completed BOOLEAN NOT NULL DEFAULT false,
        idempotency_key TEXT NULL UNIQUE
    )",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_tenant
        ON koder_elicitations (user_id, workspace_id, status)",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_due
        ON koder_elicitations (status, expires_at)",
    "CREATE TABLE IF NOT EXISTS koder_stream_tickets (
        digest TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        conversation_id TEXT NULL,
        token_expires_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS koder_stream_tickets_person
        ON koder_stream_tickets (user_id, workspace_id, expires_at)",
];

/// The `SELECT` list of a whole record.
macro_rules! record_columns {
    () => {
        "id, user_id, workspace_id, conversation_id, request, server_name, \
         created_at, expires_at, status, result, finished_at, completed"
    };
}

/// `pg_notify` of one changed row (`$1` = origin, `$2` = event name), as text: `void` has no
/// Rust type to decode into.
macro_rules! notify_changed {
    () => {
        "pg_notify('koder_relay_events', json_build_object('origin', $1::text, 'kind', $2::text, \
         'id', id, 'userId', user_id, 'workspaceId', workspace_id, \
         'conversationId', conversation_id)::text)::text AS notified"
    };
}

/// Elicitations in a PostgreSQL database that several relay replicas may share.
#[derive(Debug)]
pub struct PostgresStore {
    pool: PgPool,
    hub: Hub,
    /// This replica's random id: its LISTEN task skips its own notifications.
    origin: String,
    listen_task: AbortOnDrop,
}

#[derive(Debug)]
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl PostgresStore {
    /// Connects to `url` (`postgres://…`), creates the table and its indexes when missing, and
    /// starts listening for the other replicas' changes before it returns.
    pub async fn connect(url: &str, hub: Hub) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(POOL_SIZE)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect(url)
            .await?;
        create_schema(&pool).await?;
        let origin = random_origin()?;
        let listener = new_listener(url).await?;
        let listen_task = tokio::spawn(relay_notifications(
            listener,
            url.to_string(),
            hub.clone(),
            origin.clone(),
        ));
        Ok(PostgresStore {
            pool,
            hub,
            origin,
            listen_task: AbortOnDrop(listen_task),
        })
    }

    /// Whether this store's LISTEN task still runs (it only ends when the store is dropped).
    pub fn is_listening(&self) -> bool {
        !self.listen_task.0.is_finished()
    }

    async fn by_idempotency_key(&self, key: &str) -> Result<Option<Record>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            " FROM koder_elicitations WHERE idempotency_key = $1"
        ))
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(record_from_row).transpose()
    }
}

#[async_trait]
impl Store for PostgresStore {
    async fn create(&self, new: NewElicitation) -> Result<Record, StoreError> {
        let inserted = sqlx::query(concat!(
            "WITH inserted AS (",
            "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, request, ",
            "server_name, created_at, expires_at, status, completed, idempotency_key) ",
            "VALUES ($3, $4, $5, $6, $7, $8, $9, $10, 'pending', false, $11) ",
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
        .execute(&self.pool)
        .await
        .map(|_| ());
        created_or_existing(inserted, new, &self.hub, |key| async move {
            self.by_idempotency_key(&key).await
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
    ) -> Result<bool, StoreError> {
        let Some(kind) = EventKind::finishing(status) else {
            return Err(StoreError("cannot finish an elicitation as pending".into()));
        };
        let changed = sqlx::query(concat!(
            "WITH changed AS (",
            "UPDATE koder_elicitations SET status = $3, result = $4, finished_at = $5 ",
            "WHERE id = $6 AND status = 'pending' ",
            "RETURNING id, user_id, workspace_id, conversation_id) ",
            "SELECT user_id, workspace_id, conversation_id, ",
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
        match changed {
            Some(row) => {
                publish(&self.hub, kind, id, &tenant_from_row(&row)?);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn complete(&self, id: &str) -> Result<bool, StoreError> {
        let changed = sqlx::query(concat!(
            "WITH changed AS (",
            "UPDATE koder_elicitations SET completed = true WHERE id = $3 AND NOT completed ",
            "RETURNING id, user_id, workspace_id, conversation_id) ",
            "SELECT user_id, workspace_id, conversation_id, ",
            notify_changed!(),
            " FROM changed"
        ))
        .bind(&self.origin)
        .bind(EventKind::Complete.event_name())
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        match changed {
            Some(row) => {
                publish(&self.hub, EventKind::Complete, id, &tenant_from_row(&row)?);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Record>, StoreError> {
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
        let expired = rows
            .iter()
            .map(record_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        for record in &expired {
            publish(&self.hub, EventKind::Expired, &record.id, &record.tenant);
        }
        Ok(expired)
    }

    fn hub(&self) -> &Hub {
        &self.hub
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
}

async fn create_schema(pool: &PgPool) -> Result<(), StoreError> {
    let mut transaction = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SCHEMA_LOCK_KEY)
        .execute(&mut *transaction)
        .await?;
    for statement in SCHEMA {
        sqlx::query(statement).execute(&mut *transaction).await?;
    }
    transaction.commit().await?;
    Ok(())
}

fn random_origin() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| StoreError(format!("no randomness for the replica id: {error}")))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

async fn new_listener(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(EVENTS_CHANNEL).await?;
    Ok(listener)
}

/// The LISTEN task: publishes the other replicas' changes to `hub` until aborted. A lost
/// connection is re-established by the listener itself (re-issuing LISTEN); when that fails, a
/// fresh listener is built with a doubling delay. Changes made while disconnected are not
/// heard: long-polls still re-read the row every second, and this replica's streams are ended
/// so that each person reconnects and gets the pending ones replayed.
async fn relay_notifications(mut listener: PgListener, url: String, hub: Hub, origin: String) {
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                if let Some(event) = event_from_notification(notification.payload(), &origin) {
                    hub.publish(&event);
                }
            }
            // The connection dropped and the listener reconnected: keep listening.
            Ok(None) => hub.end_streams(),
            Err(_) => {
                listener = relisten(&url).await;
                hub.end_streams();
            }
        }
    }
}

async fn relisten(url: &str) -> PgListener {
    let mut delay = RELISTEN_FIRST_DELAY;
    loop {
        tokio::time::sleep(delay).await;
        if let Ok(listener) = new_listener(url).await {
            return listener;
        }
        delay = (delay * 2).min(RELISTEN_MAX_DELAY);
    }
}

/// One replica's notification, as sent by [`notify_changed!`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    origin: String,
    kind: String,
    id: String,
    user_id: String,
    workspace_id: String,
    conversation_id: String,
}

/// The event another replica announced; `None` for this replica's own (already published) and
/// for anything malformed: a payload is untrusted, since anyone with access may NOTIFY.
fn event_from_notification(payload: &str, own_origin: &str) -> Option<Event> {
    let notification: Notification = serde_json::from_str(payload).ok()?;
    if notification.origin == own_origin {
        return None;
    }
    Some(Event {
        kind: EventKind::parse(&notification.kind)?,
        id: notification.id,
        tenant: Tenant {
            user_id: notification.user_id,
            workspace_id: notification.workspace_id,
            conversation_id: notification.conversation_id,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OTHER: &str = r#"{"origin":"b","kind":"settled","id":"x","userId":"u","workspaceId":"w","conversationId":"c"}"#;

    #[test]
    fn statements_notify_on_the_channel_replicas_listen_on() {
        assert!(notify_changed!().contains(&format!("pg_notify('{EVENTS_CHANNEL}'")));
    }

    #[test]
    fn another_replicas_notification_becomes_an_event() {
        let event = event_from_notification(OTHER, "a");
        assert_eq!(
            event,
            Some(Event {
                kind: EventKind::Settled,
                id: "x".into(),
                tenant: Tenant {
                    user_id: "u".into(),
                    workspace_id: "w".into(),
                    conversation_id: "c".into(),
                },
            })
        );
    }

    #[test]
    fn own_and_malformed_notifications_are_ignored() {
        assert_eq!(event_from_notification(OTHER, "b"), None);
        for payload in [
            "",
            "not json",
            "null",
            "[]",
            r#"{"origin":"b"}"#,
            r#"{"origin":"b","kind":"exploded","id":"x","userId":"u","workspaceId":"w","conversationId":"c"}"#,
            r#"{"origin":"b","kind":"settled","id":7,"userId":"u","workspaceId":"w","conversationId":"c"}"#,
            r#"{"origin":"b","kind":"settled","id":"x","userId":null,"workspaceId":"w","conversationId":"c"}"#,
        ] {
            assert_eq!(event_from_notification(payload, "a"), None, "{payload}");
        }
    }
}
