//! PostgreSQL, shared by replicas: connecting, and the channel their changes are told on. Every
//! change statement also sends `pg_notify` on [`EVENTS_CHANNEL`] (delivered on commit, only
//! when a row changed, see `changes`). The replica that made a change announces it itself from
//! the event it gets back; the others hear of it through their LISTEN link (`crate::listen`).

use std::time::Duration;

use sqlx::postgres::PgPoolOptions;

use super::db::Database;
use super::migrations::migrate_postgres;
use super::StoreError;

/// The NOTIFY channel every replica listens on.
pub const EVENTS_CHANNEL: &str = "koder_relay_events";

/// Connections per replica: enough for concurrent requests; PostgreSQL serves ~100 in total.
const POOL_SIZE: u32 = 8;
/// How long a request waits for a free connection before answering "storage unavailable".
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// Connects to `url` (`postgres://…`) and migrates the database to the newest schema this
/// binary knows (refusing a newer one).
pub(super) async fn connect(url: &str) -> Result<Database, StoreError> {
    migrate_postgres(url).await?;
    let pool = PgPoolOptions::new()
        .max_connections(POOL_SIZE)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect(url)
        .await?;
    Ok(Database::Postgres(pool))
}
