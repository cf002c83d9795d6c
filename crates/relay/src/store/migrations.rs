//! The schema, versioned: one folder of migrations per backend (`migrations/sqlite`,
//! `migrations/postgres`), applied by sqlx's migrator when a store opens. Two things come
//! before it:
//! - a database newer than this binary (a migration version it does not know) is refused, so an
//!   old replica never runs against a schema it cannot read;
//! - a database the relay wrote before migrations were versioned (its tables, no
//!   `_sqlx_migrations`) is brought to the shape of migration 0001 first (an older shape is
//!   upgraded, then its columns are checked), and 0001 then adopts it: it creates only what is
//!   missing, and is recorded as applied.

use sqlx::migrate::Migrator;
use sqlx::{Connection, PgConnection, SqliteConnection};

use super::StoreError;

/// SQLite's migrations, compiled in.
static SQLITE: Migrator = sqlx::migrate!("migrations/sqlite");
/// PostgreSQL's migrations, compiled in.
static POSTGRES: Migrator = sqlx::migrate!("migrations/postgres");

/// sqlx's table of applied migrations.
const MIGRATIONS_TABLE: &str = "_sqlx_migrations";

/// Held (as a session lock) by the replica that migrates, so replicas starting together take
/// turns: the second finds everything applied.
const MIGRATION_LOCK_KEY: i64 = 0x6b6f_6465_725f_726c; // "koder_rl"

/// The newest migration this binary knows.
fn newest_known(migrator: &Migrator) -> i64 {
    migrator
        .iter()
        .map(|migration| migration.version)
        .max()
        .unwrap_or(0)
}

/// Refuses a database whose newest applied migration this binary does not know.
fn refuse_newer(applied: Option<i64>, migrator: &Migrator) -> Result<(), StoreError> {
    let known = newest_known(migrator);
    match applied {
        Some(version) if version > known => Err(StoreError(format!(
            "database schema version {version} is newer than this relay (knows up to {known}); \
             upgrade the relay"
        ))),
        _ => Ok(()),
    }
}

/// The columns of `koder_elicitations` as migration 0001 makes it.
const ADOPTED_COLUMNS: [&str; 14] = [
    "id",
    "user_id",
    "workspace_id",
    "conversation_id",
    "request",
    "server_name",
    "created_at",
    "expires_at",
    "status",
    "result",
    "finished_at",
    "completed",
    "idempotency_key",
    "request_digest",
];

/// Refuses to adopt an unversioned `koder_elicitations` that is not 0001's shape (after the
/// older shape's upgrade): 0001 would leave it as it is, and queries would fail at run time.
fn check_adoptable(columns: &[String]) -> Result<(), StoreError> {
    let missing: Vec<&str> = ADOPTED_COLUMNS
        .into_iter()
        .filter(|expected| !columns.iter().any(|column| column == expected))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(StoreError(format!(
        "the database has a koder_elicitations table without versioned migrations that this \
         relay cannot adopt: it lacks {}",
        missing.join(", ")
    )))
}

fn migrate_error(error: sqlx::migrate::MigrateError) -> StoreError {
    StoreError(format!("migrating the schema failed: {error}"))
}

// --- SQLite ----------------------------------------------------------------------------------

/// The shape before per-tenant idempotency keys (a table-wide `UNIQUE` on `idempotency_key`, no
/// `request_digest`) rebuilt as 0001 has it, the way SQLite documents for changes `ALTER TABLE`
/// cannot make: create the new table, copy, drop the old, rename. Its indexes went with the old
/// table; 0001 makes them again.
const SQLITE_FROM_GLOBAL_KEYS: [&str; 4] = [
    "CREATE TABLE koder_elicitations_upgraded (
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
        completed INTEGER NOT NULL DEFAULT 0,
        idempotency_key TEXT NULL,
        request_digest TEXT NULL
    )",
    "INSERT INTO koder_elicitations_upgraded (id, user_id, workspace_id, conversation_id, \
     request, server_name, created_at, expires_at, status, result, finished_at, completed, \
     idempotency_key, request_digest) \
     SELECT id, user_id, workspace_id, conversation_id, request, server_name, created_at, \
     expires_at, status, result, finished_at, completed, idempotency_key, NULL \
     FROM koder_elicitations",
    "DROP TABLE koder_elicitations",
    "ALTER TABLE koder_elicitations_upgraded RENAME TO koder_elicitations",
];

/// Brings a SQLite database to the newest schema this binary knows.
pub(super) async fn migrate_sqlite(connection: &mut SqliteConnection) -> Result<(), StoreError> {
    // IMMEDIATE takes the write lock before looking: two processes opening one old file adopt
    // it once.
    let mut transaction = connection.begin_with("BEGIN IMMEDIATE").await?;
    let has_table = |name: &'static str| {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        )
        .bind(name)
    };
    let versioned = has_table(MIGRATIONS_TABLE)
        .fetch_one(&mut *transaction)
        .await?
        > 0;
    if versioned {
        let applied: Option<i64> =
            sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(&mut *transaction)
                .await?;
        refuse_newer(applied, &SQLITE)?;
    } else if has_table("koder_elicitations")
        .fetch_one(&mut *transaction)
        .await?
        > 0
    {
        let has_digest: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pragma_table_info('koder_elicitations') \
             WHERE name = 'request_digest'",
        )
        .fetch_one(&mut *transaction)
        .await?;
        if has_digest == 0 {
            for statement in SQLITE_FROM_GLOBAL_KEYS {
                sqlx::query(statement).execute(&mut *transaction).await?;
            }
        }
        let columns: Vec<String> =
            sqlx::query_scalar("SELECT name FROM pragma_table_info('koder_elicitations')")
                .fetch_all(&mut *transaction)
                .await?;
        check_adoptable(&columns)?;
    }
    transaction.commit().await?;
    SQLITE.run(&mut *connection).await.map_err(migrate_error)
}

// --- PostgreSQL ------------------------------------------------------------------------------

/// The shape before per-tenant idempotency keys made as 0001 has it: the inline `UNIQUE` on
/// `idempotency_key` (named by PostgreSQL's default `<table>_<column>_key`) goes, and the digest
/// column comes.
const POSTGRES_FROM_GLOBAL_KEYS: &str = "ALTER TABLE koder_elicitations \
     DROP CONSTRAINT IF EXISTS koder_elicitations_idempotency_key_key, \
     ADD COLUMN IF NOT EXISTS request_digest TEXT NULL";

/// Brings a PostgreSQL database to the newest schema this binary knows, on a connection of its
/// own (`url`), closed afterwards. Replicas starting together take turns on a session advisory
/// lock (sqlx's migrator takes its own as well); closing the connection releases it whatever
/// happened.
pub(super) async fn migrate_postgres(url: &str) -> Result<(), StoreError> {
    let mut connection = PgConnection::connect(url).await?;
    let migrated = migrate_postgres_locked(&mut connection).await;
    let closed = connection.close().await;
    migrated?;
    closed?;
    Ok(())
}

async fn migrate_postgres_locked(connection: &mut PgConnection) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(MIGRATION_LOCK_KEY)
        .execute(&mut *connection)
        .await?;
    let exists = |name: &'static str| {
        sqlx::query_scalar::<_, bool>("SELECT to_regclass($1) IS NOT NULL").bind(name)
    };
    if exists(MIGRATIONS_TABLE).fetch_one(&mut *connection).await? {
        let applied: Option<i64> =
            sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(&mut *connection)
                .await?;
        refuse_newer(applied, &POSTGRES)?;
    } else if exists("koder_elicitations")
        .fetch_one(&mut *connection)
        .await?
    {
        // One transaction: a table that cannot be adopted is left as it was.
        let mut transaction = connection.begin().await?;
        sqlx::query(POSTGRES_FROM_GLOBAL_KEYS)
            .execute(&mut *transaction)
            .await?;
        let columns: Vec<String> = sqlx::query_scalar(
            "SELECT column_name::text FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = 'koder_elicitations'",
        )
        .fetch_all(&mut *transaction)
        .await?;
        check_adoptable(&columns)?;
        transaction.commit().await?;
    }
    POSTGRES
        .run(&mut *connection)
        .await
        .map_err(migrate_error)?;
    sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(MIGRATION_LOCK_KEY)
        .execute(&mut *connection)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_backends_know_the_same_versions() {
        let versions = |migrator: &Migrator| {
            migrator
                .iter()
                .map(|migration| (migration.version, migration.description.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(versions(&SQLITE), versions(&POSTGRES));
        assert_eq!(newest_known(&SQLITE), newest_known(&POSTGRES));
    }

    #[test]
    fn only_a_table_of_the_adopted_shape_is_adopted() {
        let mut columns: Vec<String> = ADOPTED_COLUMNS.map(String::from).to_vec();
        columns.push("something_else".into());
        assert!(check_adoptable(&columns).is_ok());
        columns.retain(|column| column != "status" && column != "result");
        let refused = check_adoptable(&columns).unwrap_err();
        assert!(
            refused.0.ends_with("it lacks status, result"),
            "{}",
            refused.0
        );
    }

    #[test]
    fn a_newer_database_is_refused_with_both_versions_named() {
        let known = newest_known(&SQLITE);
        assert!(refuse_newer(None, &SQLITE).is_ok());
        assert!(refuse_newer(Some(known), &SQLITE).is_ok());
        let refused = refuse_newer(Some(known + 1), &SQLITE).unwrap_err();
        assert_eq!(
            refused.0,
            format!(
                "database schema version {} is newer than this relay (knows up to {known}); \
                 upgrade the relay",
                known + 1
            )
        );
    }
}
