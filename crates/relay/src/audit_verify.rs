//! `koder-elicitation-relay audit verify`: reads the audit trail of a database, page by page and
//! read-only, and recomputes it:
//! - the trail's `seq` runs 1..N with no gap (a deleted entry leaves one);
//! - every chain, entry by entry (place, link to the previous entry, hash, tenant, order);
//! - every chain reaches its head (`koder_audit_heads`): newest entries cut off fall short (the
//!   heads are read first, so entries a running relay appends meanwhile are no false alarm);
//! - with `--checkpoint HASH`: the database still holds that checkpoint, and the entries it
//!   covered still hash to it (what catches newest entries cut off with the heads rewritten).

use std::collections::HashMap;

use crate::audit::{place_in_chain, AuditEntry, ChainBreak, ChainCheck};
use crate::audit_checkpoint::{checkpoint_over, ChainHead, Checkpoint};
use crate::store::{redact_database, AuditReader, StoreError};

/// Entries read per query by `audit verify`.
const VERIFY_PAGE: i64 = 1000;

/// Why `audit verify` could not say the trail is intact.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The database could not be read.
    #[error("cannot read the audit trail: {0}")]
    Database(String),
    /// The trail is broken.
    #[error("{0}")]
    Broken(ChainBreak),
    /// The checkpoint asked for is gone, or no longer matches.
    #[error("audit checkpoint failed: {0}")]
    Checkpoint(String),
}

impl From<StoreError> for VerifyError {
    fn from(error: StoreError) -> Self {
        VerifyError::Database(error.0)
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
    let reader = AuditReader::open(url)
        .await
        .map_err(|error| database_error(error.into()))?;
    if !reader.has_chains().await {
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

    fn saw(&mut self, entry: &AuditEntry) {
        if entry.seq.is_some_and(|seq| seq <= self.bound) {
            self.last = Some(ChainHead {
                chain: entry.chain.clone(),
                chain_seq: entry.chain_seq,
                hash: entry.hash.clone(),
            });
        }
    }
}

async fn verify(
    reader: &AuditReader,
    checkpoint_hash: Option<&str>,
) -> Result<Verified, VerifyError> {
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
        let page = reader.chain_page(&after, VERIFY_PAGE).await?;
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
