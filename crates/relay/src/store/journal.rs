//! The audit trail's SQL: the one call every change makes inside its transaction ([`append`]),
//! the entry after its tenant's chain head; the pages of `GET /v1/audit`; and the checkpoints.
//! One text per statement for both dialects, except where they truly differ: how an entry gets
//! its `seq`.
//!
//! A change takes its chain's next place in `koder_audit_heads` (an upsert that, on PostgreSQL,
//! locks that one row until the change commits), so changes of one tenant take turns and
//! changes of different tenants never wait on each other.
//!
//! `seq`, the order pages follow: on SQLite, whose one writer commits changes in order, an
//! entry takes the next `seq` as it is inserted. On PostgreSQL, changes commit in any order, so a
//! `seq` taken before commit could be passed by one that commits first, and a reader paging with
//! `after=` would skip the late one for good. There whoever reads the trail first gives `seq` to
//! every committed entry still without one ([`sequence_postgres`], under an advisory lock no
//! change takes): the sequenced entries are always 1..N with no gap, and a late commit gets a
//! `seq` after every one already shown.

use sqlx::PgPool;

use super::db::Dialects;
use crate::audit::{audit_columns, chain_key, place_in_chain, AuditEntry, GENESIS_HASH};
use crate::audit_checkpoint::{checkpoint_over, ChainHead, Checkpoint};
use crate::events::Event;
use crate::record::Actor;

/// Takes the chain's next place (`$1` the chain): its new length. On PostgreSQL the row stays
/// locked until the change commits, so the next change of this chain waits for it, and then
/// reads the entry it wrote.
const TAKE_PLACE: &str = "INSERT INTO koder_audit_heads (chain, chain_seq) VALUES ($1, 1) \
     ON CONFLICT (chain) DO UPDATE SET chain_seq = koder_audit_heads.chain_seq + 1 \
     RETURNING chain_seq";

/// The hash of entry `$2` of chain `$1`.
const ENTRY_HASH: &str = "SELECT hash FROM koder_audit WHERE chain = $1 AND chain_seq = $2";

/// The insert of one entry, with `$seq` the dialect's way to its `seq`.
macro_rules! insert_entry {
    ($seq:literal) => {
        concat!(
            "INSERT INTO koder_audit (chain, chain_seq, at, elicitation_id, user_id, ",
            "workspace_id, conversation_id, actor, action, digest, prev_hash, hash, seq) ",
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ",
            $seq,
            ")"
        )
    };
}

/// SQLite takes the next `seq` as it inserts (its one writer commits in this order);
/// PostgreSQL none yet ([`sequence_postgres`] gives it after commit).
pub(super) const INSERT: Dialects = Dialects {
    sqlite: insert_entry!("(SELECT coalesce(max(seq), 0) + 1 FROM koder_audit)"),
    postgres: insert_entry!("NULL"),
};

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

/// Records `event`, made by `actor` at `at_ms`, in the transaction that made it (`insert`:
/// the dialect's [`INSERT`]).
pub(super) async fn append<C, DB>(
    transaction: &mut C,
    insert: &'static str,
    event: &Event,
    actor: &Actor,
    at_ms: i64,
) -> Result<(), sqlx::Error>
where
    C: sqlx::Connection<Database = DB>,
    DB: sqlx::Database,
    DB::Arguments: sqlx::IntoArguments<DB>,
    for<'c> &'c mut C: sqlx::Executor<'c, Database = DB>,
    i64: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    String: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let chain = chain_key(event.tenant());
    let chain_seq: i64 = sqlx::query_scalar(TAKE_PLACE)
        .bind(&chain)
        .fetch_one(&mut *transaction)
        .await?;
    let prev_hash = if chain_seq > 1 {
        let previous: Option<String> = sqlx::query_scalar(ENTRY_HASH)
            .bind(&chain)
            .bind(chain_seq - 1)
            .fetch_optional(&mut *transaction)
            .await?;
        previous.ok_or_else(|| missing_head(&chain, chain_seq - 1))?
    } else {
        GENESIS_HASH.to_string()
    };
    let entry = AuditEntry::next(chain_seq, prev_hash, event, actor, at_ms);
    sqlx::query(insert)
        .bind(entry.chain)
        .bind(entry.chain_seq)
        .bind(entry.at)
        .bind(entry.elicitation_id)
        .bind(entry.tenant.user_id)
        .bind(entry.tenant.workspace_id)
        .bind(entry.tenant.conversation_id)
        .bind(entry.actor)
        .bind(entry.action)
        .bind(entry.digest)
        .bind(entry.prev_hash)
        .bind(entry.hash)
        .execute(&mut *transaction)
        .await?;
    Ok(())
}

/// The head of a chain names an entry that is not there: its newest entries were removed.
fn missing_head(chain: &str, chain_seq: i64) -> sqlx::Error {
    sqlx::Error::Protocol(format!(
        "the audit trail lacks {}, its chain's newest entry (run audit verify)",
        place_in_chain(chain, chain_seq)
    ))
}

/// `events` in the order a transaction recording several should lock their chains' heads: by
/// chain, so two such transactions (two replicas expiring at once) never wait on each other in
/// a circle.
pub(super) fn in_lock_order(events: &[Event]) -> Vec<&Event> {
    let mut ordered: Vec<&Event> = events.iter().collect();
    ordered.sort_by_cached_key(|event| chain_key(event.tenant()));
    ordered
}

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
