//! The one call every change makes inside its transaction
//! ([`append_sqlite`] / [`append_postgres`]): the change's audit entry, chained to the one
//! before it. Whatever else must be written with a change, and only with it, goes beside it.

use sqlx::{PgConnection, SqliteConnection};

use crate::audit::{audit_columns, entry_from_row, AuditEntry};
use crate::events::Event;
use crate::record::Actor;

/// Every replica appends to one chain: this transaction-scoped advisory lock makes appends take
/// turns, so each reads the head the previous one wrote.
const AUDIT_LOCK_KEY: i64 = 0x6b6f_6465_725f_6175; // "koder_au"

/// The insert of one entry (the same placeholders in both dialects).
const INSERT_ENTRY: &str = concat!(
    "INSERT INTO koder_audit (",
    audit_columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
);

/// The chain's head: the last entry's seq and hash.
const HEAD: &str = "SELECT seq, hash FROM koder_audit ORDER BY seq DESC LIMIT 1";

/// Records `event`, made by `actor` at `at_ms`, in the SQLite transaction that made it (which
/// holds SQLite's one write lock, so appends take turns).
pub(super) async fn append_sqlite(
    transaction: &mut SqliteConnection,
    event: &Event,
    actor: &Actor,
    at_ms: i64,
) -> Result<(), sqlx::Error> {
    let head: Option<(i64, String)> = sqlx::query_as(HEAD)
        .fetch_optional(&mut *transaction)
        .await?;
    let entry = AuditEntry::next(head, event, actor, at_ms);
    bind_entry(sqlx::query(INSERT_ENTRY), &entry)
        .execute(&mut *transaction)
        .await?;
    Ok(())
}

/// Records `event`, made by `actor` at `at_ms`, in the PostgreSQL transaction that made it.
pub(super) async fn append_postgres(
    transaction: &mut PgConnection,
    event: &Event,
    actor: &Actor,
    at_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(AUDIT_LOCK_KEY)
        .execute(&mut *transaction)
        .await?;
    let head: Option<(i64, String)> = sqlx::query_as(HEAD)
        .fetch_optional(&mut *transaction)
        .await?;
    let entry = AuditEntry::next(head, event, actor, at_ms);
    bind_entry(sqlx::query(INSERT_ENTRY), &entry)
        .execute(&mut *transaction)
        .await?;
    Ok(())
}

fn bind_entry<'q, DB>(
    query: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments>,
    entry: &AuditEntry,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments>
where
    DB: sqlx::Database,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    query
        .bind(entry.seq)
        .bind(entry.at)
        .bind(entry.elicitation_id.clone())
        .bind(entry.tenant.user_id.clone())
        .bind(entry.tenant.workspace_id.clone())
        .bind(entry.tenant.conversation_id.clone())
        .bind(entry.actor.clone())
        .bind(entry.action.clone())
        .bind(entry.digest.clone())
        .bind(entry.prev_hash.clone())
        .bind(entry.hash.clone())
}

/// `SELECT` of entries after a seq, in order (`$1` after, `$2` how many).
pub(super) const PAGE: &str = concat!(
    "SELECT ",
    audit_columns!(),
    " FROM koder_audit WHERE seq > $1 ORDER BY seq LIMIT $2"
);

/// A page of rows as entries.
pub(super) fn entries<'r, R>(rows: &'r [R]) -> Result<Vec<AuditEntry>, sqlx::Error>
where
    R: sqlx::Row,
    &'static str: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    rows.iter().map(entry_from_row).collect()
}
