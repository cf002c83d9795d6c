//! `koder-elicitation-relay audit verify`: reads the audit trail of a database, page by page and
//! read-only, and recomputes it:
//! - the trail's `seq` runs 1..N with no gap (a deleted entry leaves one);
//! - every chain, entry by entry (place, link to the previous entry, hash, tenant, order);
//! - every chain reaches its head (`koder_audit_heads`): newest entries cut off fall short (the
//!   heads are read first, so entries a running relay appends meanwhile are no false alarm);
//! - with `--checkpoint HASH`: the database still holds that checkpoint, and the entries it
//!   covered still hash to it (what catches newest entries cut off with the heads rewritten).

use std::collections::HashMap;
use std::str::FromStr;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::Row;

use crate::audit::{audit_columns, entry_from_row, place_in_chain, ChainBreak, ChainCheck};
use crate::audit_checkpoint::{checkpoint_from_row, checkpoint_over, ChainHead, Checkpoint};
use crate::config::{redact_database, DatabaseKind};
use crate::store::db::{either, Either};

/// Entries read per query by `audit verify`.
const VERIFY_PAGE: i64 = 1000;

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

/// Why `audit verify` could not say the trail is intact.
#[derive(Debug)]
pub enum VerifyError {
    /// The database could not be read.
    Database(String),
    /// The trail is broken.
    Broken(ChainBreak),
    /// The checkpoint asked for is gone, or no longer matches.
    Checkpoint(String),
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerifyError::Database(message) => write!(f, "cannot read the audit trail: {message}"),
            VerifyError::Broken(broken) => write!(f, "{broken}"),
            VerifyError::Checkpoint(message) => write!(f, "audit checkpoint failed: {message}"),
        }
    }
}

impl std::error::Error for VerifyError {}

impl From<sqlx::Error> for VerifyError {
    fn from(error: sqlx::Error) -> Self {
        VerifyError::Database(error.to_string())
    }
}

/// What an intact trail came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Entries checked.
    pub entries: i64,
    /// Chains checked.
    pub chains: i64,
    /// The checkpoint over every chain's head now (what the next checkpoint written will be,
    /// once every entry has a `seq`).
    pub heads: Checkpoint,
    /// The checkpoint asked for, found and matching.
    pub checkpoint: Option<Checkpoint>,
    /// Changes recorded but not yet in their chains (a running relay seals them within a
    /// second; one that stopped, when it starts again), so not verified yet.
    pub unsealed: i64,
}

/// A read-only connection to either database.
type Reader = Either<SqlitePool, PgPool>;

impl Reader {
    async fn open(url: &str) -> Result<Reader, sqlx::Error> {
        Ok(match DatabaseKind::of(url) {
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
                ))
            }
        })
    }

    async fn close(&self) {
        either!(self, |pool| pool.close().await)
    }

    /// The largest `seq`, and the first missing from 1..largest, if any.
    async fn seqs(&self) -> Result<(i64, Option<i64>), sqlx::Error> {
        either!(self, |pool| {
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

    async fn chain_page(
        &self,
        after: &(String, i64),
    ) -> Result<Vec<crate::audit::AuditEntry>, sqlx::Error> {
        either!(self, |pool| {
            let rows = sqlx::query(CHAIN_PAGE)
                .bind(&after.0)
                .bind(after.1)
                .bind(VERIFY_PAGE)
                .fetch_all(pool)
                .await?;
            rows.iter().map(entry_from_row).collect()
        })
    }

    async fn heads(&self) -> Result<HashMap<String, i64>, sqlx::Error> {
        either!(self, |pool| {
            let rows = sqlx::query(HEADS).fetch_all(pool).await?;
            rows.iter()
                .map(|row| Ok((row.try_get("chain")?, row.try_get("chain_seq")?)))
                .collect()
        })
    }

    /// Changes waiting for the sealer; none on a schema older than the sealer.
    async fn unsealed(&self) -> Result<i64, sqlx::Error> {
        either!(self, |pool| {
            let newest: Option<i64> = sqlx::query_scalar(NEWEST_MIGRATION).fetch_one(pool).await?;
            if newest.unwrap_or(0) < SEALER_MIGRATION {
                return Ok(0);
            }
            sqlx::query_scalar(UNSEALED).fetch_one(pool).await
        })
    }

    async fn checkpoint(&self, hash: &str) -> Result<Option<Checkpoint>, sqlx::Error> {
        either!(self, |pool| {
            let row = sqlx::query_as(CHECKPOINT)
                .bind(hash)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(checkpoint_from_row))
        })
    }
}

/// Recomputes the whole trail in the database at `url`, reading only (no migration, no write),
/// and, given a checkpoint's hash, holds the trail against it.
pub async fn verify_database(url: &str, checkpoint: Option<&str>) -> Result<Verified, VerifyError> {
    // A database's error names the database (without its password).
    let database_error = |error: VerifyError| match error {
        VerifyError::Database(error) => {
            VerifyError::Database(format!("{error} ({})", redact_database(url)))
        }
        other => other,
    };
    let reader = Reader::open(url)
        .await
        .map_err(|error| database_error(error.into()))?;
    let has_chains = either!(&reader, |pool| sqlx::query(HAS_CHAINS)
        .fetch_one(pool)
        .await
        .map(drop));
    if has_chains.is_err() {
        reader.close().await;
        return Err(VerifyError::Database(format!(
            "{} has no per-tenant audit chains yet (its schema is older than this relay): start \
             this relay on it once to migrate it, then verify",
            redact_database(url)
        )));
    }
    let verified = verify(&reader, checkpoint).await;
    reader.close().await;
    verified.map_err(database_error)
}

fn broken(at: String, reason: impl Into<String>) -> VerifyError {
    VerifyError::Broken(ChainBreak {
        at,
        reason: reason.into(),
    })
}

/// The heads one pass over the chains collects: each chain's last entry, and its last entry
/// with a `seq` up to a bound (the checkpoint's, or the largest).
#[derive(Default)]
struct Heads {
    bound: i64,
    covered: Vec<ChainHead>,
    last: Option<ChainHead>,
}

impl Heads {
    /// A new chain begins: the last one's covered head is kept.
    fn end_chain(&mut self) {
        self.covered.extend(self.last.take());
    }

    fn saw(&mut self, entry: &crate::audit::AuditEntry) {
        if entry.seq.is_some_and(|seq| seq <= self.bound) {
            self.last = Some(ChainHead {
                chain: entry.chain.clone(),
                chain_seq: entry.chain_seq,
                hash: entry.hash.clone(),
            });
        }
    }
}

async fn verify(reader: &Reader, checkpoint_hash: Option<&str>) -> Result<Verified, VerifyError> {
    let (top, missing) = reader.seqs().await?;
    if let Some(missing) = missing {
        return Err(broken(
            format!("seq {missing}"),
            "the entry is missing (the seqs after it are there): an entry was deleted",
        ));
    }
    let checkpoint = match checkpoint_hash {
        None => None,
        Some(hash) => Some(reader.checkpoint(hash).await?.ok_or_else(|| {
            VerifyError::Checkpoint(format!(
                "the database holds no checkpoint {hash} (it was removed, or is not of this \
                 database)"
            ))
        })?),
    };
    let bound = |bound| Heads {
        bound,
        ..Heads::default()
    };
    let mut heads_now = bound(top);
    let mut heads_then = bound(checkpoint.as_ref().map_or(0, |found| found.seq));
    let mut recorded_heads = reader.heads().await?;
    let mut headless = Vec::new();
    let mut entries = 0i64;
    let mut chains = 0i64;
    let mut current: Option<ChainCheck> = None;
    let mut after = (String::new(), 0i64);
    loop {
        let page = reader.chain_page(&after).await?;
        for entry in &page {
            if current
                .as_ref()
                .is_none_or(|check| check.chain() != entry.chain)
            {
                if let Some(done) = current.take() {
                    reaches_its_head(&done, &mut recorded_heads, &mut headless)?;
                }
                heads_now.end_chain();
                heads_then.end_chain();
                chains += 1;
                current = Some(ChainCheck::new(&entry.chain));
            }
            if let Some(check) = current.as_mut() {
                check.check(entry).map_err(VerifyError::Broken)?;
            }
            heads_now.saw(entry);
            heads_then.saw(entry);
            entries += 1;
        }
        match page.last() {
            Some(last) if page.len() as i64 == VERIFY_PAGE => {
                after = (last.chain.clone(), last.chain_seq);
            }
            _ => break,
        }
    }
    if let Some(done) = current.take() {
        reaches_its_head(&done, &mut recorded_heads, &mut headless)?;
    }
    // A chain begun after the heads were read has its head by now.
    if !headless.is_empty() {
        let heads_now = reader.heads().await?;
        if let Some(chain) = headless
            .iter()
            .find(|chain| !heads_now.contains_key(*chain))
        {
            return Err(broken(
                place_in_chain(chain, 1),
                "the chain has no head (koder_audit_heads lost its row)",
            ));
        }
    }
    if let Some((chain, chain_seq)) = recorded_heads.into_iter().next() {
        return Err(broken(
            place_in_chain(&chain, 1),
            format!(
                "the entries are missing: the chain's head says it has {chain_seq}, none are \
                 left (its entries were removed)"
            ),
        ));
    }
    heads_now.end_chain();
    heads_then.end_chain();
    let now = checkpoint_over(top, 0, heads_now.covered);
    let checkpoint = match checkpoint {
        None => None,
        Some(found) => {
            let recomputed = checkpoint_over(found.seq, found.at, heads_then.covered);
            if recomputed.hash != found.hash {
                return Err(VerifyError::Checkpoint(format!(
                    "the entries checkpoint {} covered (up to seq {}) no longer hash to it: \
                     entries it covered were removed or changed",
                    found.hash, found.seq
                )));
            }
            Some(found)
        }
    };
    Ok(Verified {
        entries,
        chains,
        heads: now,
        checkpoint,
        unsealed: reader.unsealed().await?,
    })
}

/// A chain checked to its end reaches the head read for it before (which is then checked off);
/// it may have grown since. One without a head then is kept in `headless`, to look again.
fn reaches_its_head(
    check: &ChainCheck,
    recorded_heads: &mut HashMap<String, i64>,
    headless: &mut Vec<String>,
) -> Result<(), VerifyError> {
    match recorded_heads.remove(check.chain()) {
        Some(head) if check.entries() < head => Err(broken(
            place_in_chain(check.chain(), check.entries().saturating_add(1)),
            format!(
                "the entry is missing: the chain's head says it has {head} entries, {} are left \
                 (its newest entries were removed)",
                check.entries()
            ),
        )),
        Some(_) => Ok(()),
        None => {
            headless.push(check.chain().to_string());
            Ok(())
        }
    }
}
