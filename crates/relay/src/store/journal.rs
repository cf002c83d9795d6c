//! The audit trail's SQL: what every change records beside itself ([`record`]); the sealer,
//! which gives recorded entries their places in their chains ([`seal`]); the pages of
//! `GET /v1/audit`; and the checkpoints. One text per statement for both dialects, except where
//! they truly differ: how an entry gets its `seq`, and the sealer's turn.
//!
//! A change takes no lock for the trail: it inserts its record into `koder_audit_pending`.
//! The sealer, one at a time (SQLite's one writer; on PostgreSQL whoever holds an advisory lock
//! no change takes), moves committed records, oldest first, into their chains: each gets the
//! next `chain_seq` of its chain, the previous entry's hash and its own, and the chain's head in
//! `koder_audit_heads` moves, all in one transaction that also deletes the records. Two
//! changes of one elicitation commit in their order, so they are sealed in it.
//!
//! `seq`, the order pages follow: on SQLite the sealer gives it as it seals. On PostgreSQL
//! whoever reads the trail first gives `seq` to every sealed entry still without one
//! ([`sequence_postgres`], under its own advisory lock): the sequenced entries are always
//! 1..N with no gap.

use std::collections::HashMap;

use sqlx::{PgPool, QueryBuilder};

use super::beside::{beside, Arg, Beside, BesideText};
use super::db::{either, push_list, Database, Dialects};
use super::StoreError;
use crate::audience::Audience;
use crate::audit::{audit_columns, place_in_chain, AuditEntry, Recorded, GENESIS_HASH};
use crate::audit_checkpoint::{checkpoint_over, ChainHead, Checkpoint};
use crate::record::Tenant;

/// A change's record, beside it (see `changes`).
const RECORD: BesideText = beside!(
    "INSERT INTO koder_audit_pending (at, elicitation_id, user_id, workspace_id, \
     conversation_id, actor, action, digest) SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM ",
    ""
);

/// What `recorded` writes beside its change.
pub(super) fn record(recorded: Recorded) -> Beside {
    Beside {
        text: RECORD,
        args: vec![
            Arg::Int(recorded.at),
            Arg::Text(recorded.elicitation_id),
            Arg::Text(recorded.tenant.user_id),
            Arg::Text(recorded.tenant.workspace_id),
            Arg::Text(recorded.tenant.conversation_id),
            Arg::Text(recorded.actor),
            Arg::Text(recorded.action),
            Arg::Text(recorded.digest),
        ],
    }
}

/// Records sealed per transaction.
pub(super) const SEAL_BATCH: i64 = 500;

/// The oldest committed records (`$1` how many).
const PENDING: &str = "SELECT id, at, elicitation_id, user_id, workspace_id, conversation_id, \
     actor, action, digest FROM koder_audit_pending ORDER BY id LIMIT $1";

/// Held (transaction-scoped) by the PostgreSQL sealer; changes never take it.
const SEALER_LOCK_KEY: i64 = 0x6b6f_6465_725f_736c; // "koder_sl"

/// Whose turn it is to seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Turn {
    /// Wait for it (a reader that must see every committed change).
    Wait,
    /// Skip when another replica is sealing (it seals what is committed).
    Skip,
}

/// How a sealer begins: on SQLite taking the write lock at once.
const BEGIN_SEAL: Dialects = Dialects {
    sqlite: "BEGIN IMMEDIATE",
    postgres: "BEGIN",
};

/// The turn to seal (`$1` the lock's key), waiting for it; true once taken. SQLite's one writer
/// is the turn already.
const WAIT_FOR_TURN: Dialects = Dialects {
    sqlite: "SELECT $1 IS NOT NULL",
    postgres: "SELECT count(*) = 1 FROM (SELECT pg_advisory_xact_lock($1)) AS taken",
};

/// The turn to seal, unless another has it: whether it was taken.
const TRY_TURN: Dialects = Dialects {
    sqlite: "SELECT $1 IS NOT NULL",
    postgres: "SELECT pg_try_advisory_xact_lock($1)",
};

/// One committed record waiting for the sealer.
#[derive(Debug, Clone, sqlx::FromRow)]
struct PendingRow {
    id: i64,
    at: i64,
    elicitation_id: String,
    user_id: String,
    workspace_id: String,
    conversation_id: String,
    actor: String,
    action: String,
    digest: String,
}

impl PendingRow {
    fn recorded(self) -> Recorded {
        Recorded {
            at: self.at,
            elicitation_id: self.elicitation_id,
            tenant: Tenant {
                user_id: self.user_id,
                workspace_id: self.workspace_id,
                conversation_id: self.conversation_id,
            },
            actor: self.actor,
            action: self.action,
            digest: self.digest,
        }
    }
}

/// Seals up to [`SEAL_BATCH`] records (see the module's documentation); how many, or `None`
/// when another replica had the turn and `turn` is [`Turn::Skip`].
pub(super) async fn seal(database: &Database, turn: Turn) -> Result<Option<usize>, StoreError> {
    let postgres = matches!(database, Database::Postgres(_));
    either!(database.writer(), |pool, dialect| {
        let mut transaction = pool.begin_with(dialect(BEGIN_SEAL)).await?;
        let take = match turn {
            Turn::Wait => WAIT_FOR_TURN,
            Turn::Skip => TRY_TURN,
        };
        let taken: bool = sqlx::query_scalar(dialect(take))
            .bind(SEALER_LOCK_KEY)
            .fetch_one(&mut *transaction)
            .await?;
        if !taken {
            return Ok(None);
        }
        let pending: Vec<PendingRow> = sqlx::query_as(PENDING)
            .bind(SEAL_BATCH)
            .fetch_all(&mut *transaction)
            .await?;
        if pending.is_empty() {
            return Ok(Some(0));
        }
        let ids: Vec<i64> = pending.iter().map(|row| row.id).collect();
        let records: Vec<Recorded> = pending.into_iter().map(PendingRow::recorded).collect();
        let mut chains: Vec<String> = records
            .iter()
            .map(|recorded| Audience::of(&recorded.tenant).chain_key())
            .collect();
        chains.sort();
        chains.dedup();
        let mut read_heads = QueryBuilder::new(
            "SELECT h.chain, h.chain_seq, a.hash FROM koder_audit_heads h \
             LEFT JOIN koder_audit a ON a.chain = h.chain AND a.chain_seq = h.chain_seq \
             WHERE h.chain IN ",
        );
        push_list(&mut read_heads, chains);
        let heads: Vec<(String, i64, Option<String>)> = read_heads
            .build_query_as()
            .fetch_all(&mut *transaction)
            .await?;
        // SQLite numbers entries as they are sealed; PostgreSQL when the trail is read.
        let first_seq = if postgres {
            None
        } else {
            let top: i64 = sqlx::query_scalar("SELECT coalesce(max(seq), 0) FROM koder_audit")
                .fetch_one(&mut *transaction)
                .await?;
            Some(top + 1)
        };
        let entries = sealed(records, heads, first_seq)?;
        let mut insert =
            QueryBuilder::new(concat!("INSERT INTO koder_audit (", audit_columns!(), ") "));
        insert.push_values(&entries, |mut row, entry| {
            row.push_bind(entry.seq)
                .push_bind(entry.chain.clone())
                .push_bind(entry.chain_seq)
                .push_bind(entry.at)
                .push_bind(entry.elicitation_id.clone())
                .push_bind(entry.tenant.user_id.clone())
                .push_bind(entry.tenant.workspace_id.clone())
                .push_bind(entry.tenant.conversation_id.clone())
                .push_bind(entry.actor.clone())
                .push_bind(entry.action.clone())
                .push_bind(entry.digest.clone())
                .push_bind(entry.prev_hash.clone())
                .push_bind(entry.hash.clone());
        });
        insert.build().execute(&mut *transaction).await?;
        let mut move_heads = QueryBuilder::new("INSERT INTO koder_audit_heads (chain, chain_seq) ");
        move_heads.push_values(chain_heads(&entries), |mut row, (chain, chain_seq)| {
            row.push_bind(chain).push_bind(chain_seq);
        });
        move_heads.push(" ON CONFLICT (chain) DO UPDATE SET chain_seq = excluded.chain_seq");
        move_heads.build().execute(&mut *transaction).await?;
        let mut delete = QueryBuilder::new("DELETE FROM koder_audit_pending WHERE id IN ");
        push_list(&mut delete, ids);
        delete.build().execute(&mut *transaction).await?;
        transaction.commit().await?;
        Ok(Some(entries.len()))
    })
}

/// `records`, oldest first, sealed after their chains' `heads` (chain, length, the last
/// entry's hash); numbered from `first_seq` when given.
fn sealed(
    records: Vec<Recorded>,
    heads: Vec<(String, i64, Option<String>)>,
    first_seq: Option<i64>,
) -> Result<Vec<AuditEntry>, StoreError> {
    let mut heads: HashMap<String, (i64, Option<String>)> = heads
        .into_iter()
        .map(|(chain, chain_seq, hash)| (chain, (chain_seq, hash)))
        .collect();
    let mut entries = Vec::with_capacity(records.len());
    for (index, recorded) in records.into_iter().enumerate() {
        let chain = Audience::of(&recorded.tenant).chain_key();
        let (length, last_hash) = heads.remove(&chain).unwrap_or((0, None));
        let prev_hash = match (length, last_hash) {
            (0, _) => GENESIS_HASH.to_string(),
            (_, Some(hash)) => hash,
            (length, None) => {
                return Err(StoreError(format!(
                    "the audit trail lacks {}, its chain's newest entry (run audit verify)",
                    place_in_chain(&chain, length)
                )))
            }
        };
        let mut entry = recorded.sealed(length + 1, prev_hash);
        entry.seq = first_seq.map(|first| first + index as i64);
        heads.insert(chain, (entry.chain_seq, Some(entry.hash.clone())));
        entries.push(entry);
    }
    Ok(entries)
}

/// Each chain's last place among `entries`.
fn chain_heads(entries: &[AuditEntry]) -> Vec<(String, i64)> {
    let mut heads: HashMap<&str, i64> = HashMap::new();
    for entry in entries {
        heads.insert(&entry.chain, entry.chain_seq);
    }
    heads
        .into_iter()
        .map(|(chain, chain_seq)| (chain.to_string(), chain_seq))
        .collect()
}

/// Held (transaction-scoped) by whoever gives `seq` on PostgreSQL: readers and checkpoint
/// writers take turns; changes never take it.
const SEQUENCER_LOCK_KEY: i64 = 0x6b6f_6465_725f_7371; // "koder_sq"

/// Gives `seq` to up to `$1` committed entries without one, after the largest given: in the
/// order of their time (the latest time so far along each chain, so a chain's entries keep
/// their order whatever the clocks of the replicas that wrote them said), then chain, then place.
const SEQUENCE: &str = "WITH top AS (SELECT coalesce(max(seq), 0) AS seq FROM koder_audit), \
     pending AS (SELECT chain, chain_seq, \
     max(at) OVER (PARTITION BY chain ORDER BY chain_seq) AS reached \
     FROM koder_audit WHERE seq IS NULL), \
     batch AS (SELECT chain, chain_seq, \
     row_number() OVER (ORDER BY reached, chain, chain_seq) AS place \
     FROM pending ORDER BY reached, chain, chain_seq LIMIT $1) \
     UPDATE koder_audit SET seq = top.seq + batch.place FROM top, batch \
     WHERE koder_audit.chain = batch.chain AND koder_audit.chain_seq = batch.chain_seq";

/// Entries given `seq` per statement: at least a page ([`crate::audit::MAX_PAGE`]), so a page
/// comes back short only when nothing more has committed.
pub(super) const SEQUENCE_BATCH: i64 = 10_000;

/// `SELECT` of entries after a seq, in order (`$1` after, `$2` how many).
pub(super) const PAGE: &str = concat!(
    "SELECT ",
    audit_columns!(),
    " FROM koder_audit WHERE seq > $1 ORDER BY seq LIMIT $2"
);

/// Every chain's head once the trail reached its largest `seq`, in one statement (one
/// snapshot): that `seq`, and per chain its last entry with a `seq` up to it. A chain whose
/// entries have no `seq` yet is not covered.
pub(super) const HEADS: &str = "SELECT top.seq AS covered, a.chain, a.chain_seq, a.hash \
     FROM (SELECT coalesce(max(seq), 0) AS seq FROM koder_audit) top \
     JOIN koder_audit_heads h ON true \
     JOIN koder_audit a ON a.chain = h.chain AND a.seq = (SELECT max(b.seq) FROM koder_audit b \
     WHERE b.chain = h.chain AND b.seq <= top.seq)";

/// Keeps a checkpoint; one at the same `seq` already kept (by another replica, or with nothing
/// new since) stays.
pub(super) const INSERT_CHECKPOINT: &str =
    "INSERT INTO koder_audit_checkpoints (seq, at, chains, hash) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (seq) DO NOTHING";

pub(super) const LATEST_CHECKPOINT: &str =
    "SELECT seq, at, chains, hash FROM koder_audit_checkpoints ORDER BY seq DESC LIMIT 1";

/// Gives `seq` to committed entries without one, up to `batch` of them (see the module's
/// documentation); how many got one.
pub(super) async fn sequence_postgres(pool: &PgPool, batch: i64) -> Result<u64, sqlx::Error> {
    let mut transaction = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SEQUENCER_LOCK_KEY)
        .execute(&mut *transaction)
        .await?;
    let sequenced = sqlx::query(SEQUENCE)
        .bind(batch)
        .execute(&mut *transaction)
        .await?
        .rows_affected();
    transaction.commit().await?;
    Ok(sequenced)
}

/// Gives `seq` to every committed entry without one, batch after batch.
pub(super) async fn sequence_everything_postgres(pool: &PgPool) -> Result<(), sqlx::Error> {
    while sequence_postgres(pool, SEQUENCE_BATCH).await? >= SEQUENCE_BATCH as u64 {}
    Ok(())
}

/// The rows of [`HEADS`] as a checkpoint made at `now_ms`; `None` while no entry has a `seq`.
pub(super) fn checkpoint_of(
    heads: Vec<(i64, String, i64, String)>,
    now_ms: i64,
) -> Option<Checkpoint> {
    let covered = heads.first()?.0;
    let heads = heads
        .into_iter()
        .map(|(_, chain, chain_seq, hash)| ChainHead {
            chain,
            chain_seq,
            hash,
        })
        .collect();
    Some(checkpoint_over(covered, now_ms, heads))
}
