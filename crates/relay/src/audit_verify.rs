//! `koder-elicitation-relay audit verify`: reads the audit chain of a database, page by page and
//! read-only, and recomputes it.

use std::str::FromStr;

use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

use crate::audit::{audit_columns, entry_from_row, AuditEntry, ChainBreak, ChainCheck};
use crate::config::{redact_database, DatabaseKind};

/// Entries read per query by `audit verify`.
const VERIFY_PAGE: i64 = 1000;

/// Why `audit verify` could not say the chain is intact.
#[derive(Debug)]
pub enum VerifyError {
    /// The database could not be read.
    Database(String),
    /// The chain is broken.
    Broken(ChainBreak),
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerifyError::Database(message) => write!(f, "cannot read the audit trail: {message}"),
            VerifyError::Broken(broken) => write!(f, "{broken}"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Recomputes the whole chain in the database at `url`, reading only (no migration, no write):
/// the finished check when intact.
pub async fn verify_database(url: &str) -> Result<ChainCheck, VerifyError> {
    let database_error =
        |error: sqlx::Error| VerifyError::Database(format!("{error} ({})", redact_database(url)));
    let mut check = ChainCheck::default();
    match DatabaseKind::of(url) {
        Some(DatabaseKind::Sqlite) => {
            let options = SqliteConnectOptions::from_str(url)
                .map_err(database_error)?
                .read_only(true);
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await
                .map_err(database_error)?;
            loop {
                let rows = sqlx::query(concat!(
                    "SELECT ",
                    audit_columns!(),
                    " FROM koder_audit WHERE seq > ?1 ORDER BY seq LIMIT ?2"
                ))
                .bind(check.entries())
                .bind(VERIFY_PAGE)
                .fetch_all(&pool)
                .await
                .map_err(database_error)?;
                if !check_page(&mut check, rows.iter().map(entry_from_row))? {
                    break;
                }
            }
            pool.close().await;
        }
        Some(DatabaseKind::Postgres) => {
            let pool = PgPoolOptions::new()
                .max_connections(1)
                .connect(url)
                .await
                .map_err(database_error)?;
            loop {
                let rows = sqlx::query(concat!(
                    "SELECT ",
                    audit_columns!(),
                    " FROM koder_audit WHERE seq > $1 ORDER BY seq LIMIT $2"
                ))
                .bind(check.entries())
                .bind(VERIFY_PAGE)
                .fetch_all(&pool)
                .await
                .map_err(database_error)?;
                if !check_page(&mut check, rows.iter().map(entry_from_row))? {
                    break;
                }
            }
            pool.close().await;
        }
        None => {
            return Err(VerifyError::Database(format!(
                "database URL {:?} must start with sqlite: or postgres://",
                redact_database(url)
            )))
        }
    }
    Ok(check)
}

/// Checks one page of entries; whether there may be more.
fn check_page(
    check: &mut ChainCheck,
    entries: impl Iterator<Item = Result<AuditEntry, sqlx::Error>>,
) -> Result<bool, VerifyError> {
    let mut read = 0;
    for entry in entries {
        let entry = entry.map_err(|error| VerifyError::Database(error.to_string()))?;
        check.check(&entry).map_err(VerifyError::Broken)?;
        read += 1;
    }
    Ok(read == VERIFY_PAGE)
}
