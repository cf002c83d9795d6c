//! The audit trail read from a database only to check it (`audit verify`): one read-only
//! connection, no migration, no write, page by page.

use std::collections::HashMap;
use std::str::FromStr;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::Row;

use super::db::{either, Either};
use super::{DatabaseKind, StoreError};
use crate::audit::{audit_columns, entry_from_row, AuditEntry};
use crate::audit_checkpoint::{checkpoint_from_row, Checkpoint};

/// How many entries have a `seq`, and the largest.
const SEQ_SUMMARY: &str =
    "SELECT count(seq) AS sequenced, coalesce(max(seq), 0) AS top FROM koder_audit";

/// The first `seq` missing below the largest (run only when there is one).
const FIRST_MISSING_SEQ: &str = "SELECT CASE WHEN min(seq) > 1 THEN 1 ELSE \
     (SELECT min(a.seq) + 1 FROM koder_audit a WHERE a.seq IS NOT NULL AND NOT EXISTS \
     (SELECT 1 FROM koder_audit b WHERE b.seq = a.seq + 1)) END AS missing FROM koder_audit";

/// Entries in chain order after (`$1` chain, `$2` place), `$3` of them.
const CHAIN_PAGE: &str = concat!(
    "SELECT ",
    audit_columns!(),
    " FROM koder_audit WHERE (chain, chain_seq) > ($1, $2) ORDER BY chain, chain_seq LIMIT $3"
);

const HEADS: &str = "SELECT chain, chain_seq FROM koder_audit_heads";

/// Fails on a database whose schema predates per-tenant chains (migration 0005).
const HAS_CHAINS: &str = "SELECT count(*) AS heads FROM koder_audit_heads";

/// Changes recorded and not yet sealed into their chains (migration 0008 on).
const UNSEALED: &str = "SELECT count(*) FROM koder_audit_pending";

/// The newest migration the database has had.
const NEWEST_MIGRATION: &str = "SELECT MAX(version) FROM _sqlx_migrations";

/// The migration that made the sealer's table (`koder_audit_pending`).
const SEALER_MIGRATION: i64 = 8;

/// A kept checkpoint by its hash.
const CHECKPOINT: &str =
    "SELECT seq, at, chains, hash FROM koder_audit_checkpoints WHERE hash = $1 LIMIT 1";

/// A read-only connection to either database.
#[derive(Debug)]
pub struct AuditReader(Either<SqlitePool, PgPool>);

impl AuditReader {
    /// Opens the database at `url` read-only.
    pub async fn open(url: &str) -> Result<AuditReader, StoreError> {
        Ok(AuditReader(match DatabaseKind::of(url) {
            Some(DatabaseKind::Sqlite) => Either::Sqlite(
                SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(SqliteConnectOptions::from_str(url)?.read_only(true))
                    .await?,
            ),
            Some(DatabaseKind::Postgres) => {
                Either::Postgres(PgPoolOptions::new().max_connections(1).connect(url).await?)
            }
            None => {
                return Err(sqlx::Error::Configuration(
                    "database URL must start with sqlite: or postgres://".into(),
                )
                .into())
            }
        }))
    }

    /// Closes the connection.
    pub async fn close(&self) {
        either!(&self.0, |pool| pool.close().await)
    }

    /// Whether the schema has per-tenant chains (migration 0005 on).
    pub async fn has_chains(&self) -> bool {
        either!(&self.0, |pool| sqlx::query(HAS_CHAINS)
            .fetch_one(pool)
            .await
            .is_ok())
    }

    /// The largest `seq`, and the first missing from 1..largest, if any.
    pub async fn seqs(&self) -> Result<(i64, Option<i64>), StoreError> {
        either!(&self.0, |pool| {
            let (sequenced, top): (i64, i64) = sqlx::query_as(SEQ_SUMMARY).fetch_one(pool).await?;
            if sequenced == top {
                return Ok((top, None));
            }
            let missing = sqlx::query_scalar(FIRST_MISSING_SEQ)
                .fetch_one(pool)
                .await?;
            Ok((top, missing))
        })
    }

    /// Up to `limit` entries in chain order after `after` (chain, place in it).
    pub async fn chain_page(
        &self,
        after: &(String, i64),
        limit: i64,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        either!(&self.0, |pool| {
            let rows = sqlx::query(CHAIN_PAGE)
                .bind(&after.0)
                .bind(after.1)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            Ok(rows.iter().map(entry_from_row).collect::<Result<_, _>>()?)
        })
    }

    /// Each chain's head: how many entries it says it has.
    pub async fn heads(&self) -> Result<HashMap<String, i64>, StoreError> {
        either!(&self.0, |pool| {
            let rows = sqlx::query(HEADS).fetch_all(pool).await?;
            Ok(rows
                .iter()
                .map(|row| Ok((row.try_get("chain")?, row.try_get("chain_seq")?)))
                .collect::<Result<_, sqlx::Error>>()?)
        })
    }

    /// Changes waiting for the sealer; none on a schema older than the sealer.
    pub async fn unsealed(&self) -> Result<i64, StoreError> {
        either!(&self.0, |pool| {
            let newest: Option<i64> = sqlx::query_scalar(NEWEST_MIGRATION).fetch_one(pool).await?;
            if newest.unwrap_or(0) < SEALER_MIGRATION {
                return Ok(0);
            }
            Ok(sqlx::query_scalar(UNSEALED).fetch_one(pool).await?)
        })
    }

    /// The checkpoint kept with this hash, if any.
    pub async fn checkpoint(&self, hash: &str) -> Result<Option<Checkpoint>, StoreError> {
        either!(&self.0, |pool| {
            let row = sqlx::query_as(CHECKPOINT)
                .bind(hash)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(checkpoint_from_row))
        })
    }
}
