//! The tamper-evident audit trail: one append-only hash chain per tenant (user and workspace),
//! one entry per change (created, answered, expired, withdrawn, completed). A change records
//! its entry in its own transaction without taking any lock ([`Recorded`]); the sealer then
//! gives recorded entries, oldest first, their places in their chains and their hashes
//! (`store::journal`), one sealer at a time. So changes never wait on each other for the trail,
//! on any replica.
//!
//! An entry holds no content: only a SHA-256 of the request (on create) or of the result (when
//! it ends). Each entry's `hash` covers all its other fields and the previous entry's hash in its
//! chain, so editing, deleting or reordering entries breaks the chain from there on; `audit
//! verify` recomputes every chain. Newest entries cut off leave an intact but shorter chain: the
//! checkpoints (`crate::audit_checkpoint`) catch that.
//!
//! The hash is SHA-256 (lowercase hex) of the UTF-8 JSON text of the array `[chain, chain_seq,
//! at, elicitation_id, user_id, workspace_id, conversation_id, actor, action, digest, prev_hash]`:
//! numbers as JSON integers, strings as JSON strings, no whitespace (what `JSON.stringify` gives
//! too). A chain's first entry has `prev_hash` [`GENESIS_HASH`].
//!
//! Entries written before per-tenant chains form one chain, [`SINGLE_CHAIN`], hashed as they
//! were: the array `[seq, at, elicitation_id, user_id, workspace_id, conversation_id, actor,
//! action, digest, prev_hash]`, with `chain_seq` equal to `seq`.
//!
//! `seq` orders the whole trail for paging (`GET /v1/audit?after=`). It is not hashed: on
//! PostgreSQL it is given after commit, in batches, by whoever reads the trail (see
//! `store::journal`), so that a page never skips an entry that commits late.

use koder_elicitation_relay_protocol::AuditLine;
use serde_json::{json, Value};
use sqlx::{ColumnIndex, Decode, Row, Type};

use crate::audience::Audience;
use crate::canonical::{canonical_json, sha256_hex};
use crate::events::{Event, EventKind};
use crate::record::{Actor, Tenant};

/// The `prev_hash` of a chain's first entry.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The chain key of the entries written before per-tenant chains (one chain for everyone).
pub const SINGLE_CHAIN: &str = "";

/// The most entries one `GET /v1/audit` returns.
pub const MAX_PAGE: i64 = 1000;
/// Entries per page when `limit` is not given.
pub const DEFAULT_PAGE: i64 = 100;

/// The columns of an entry.
macro_rules! audit_columns {
    () => {
        "seq, chain, chain_seq, at, elicitation_id, user_id, workspace_id, conversation_id, \
         actor, action, digest, prev_hash, hash"
    };
}
pub(crate) use audit_columns;

/// One entry of a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its place in the whole trail (1, 2, 3… with no gaps), for paging; `None` until given
    /// (PostgreSQL gives it after commit).
    pub seq: Option<i64>,
    /// Its chain: [`Audience::chain_key`] of its tenant, or [`SINGLE_CHAIN`].
    pub chain: String,
    /// Its place in its chain: 1, 2, 3… with no gaps.
    pub chain_seq: i64,
    /// When the change was made, ms since the Unix epoch by the deployment's clock.
    pub at: i64,
    /// The elicitation changed.
    pub elicitation_id: String,
    /// Whose elicitation it is.
    pub tenant: Tenant,
    /// Who made the change: `host`, `person:<sub>`, `link:<id>` or `relay`.
    pub actor: String,
    /// `created`, `answered:accept`, `answered:decline`, `answered:cancel`, `expired`,
    /// `withdrawn` or `completed`.
    pub action: String,
    /// SHA-256 (hex) of the canonical request (created) or result (answered, expired,
    /// withdrawn); empty for `completed`, which carries no content.
    pub digest: String,
    /// The previous entry's `hash` in its chain ([`GENESIS_HASH`] for the first).
    pub prev_hash: String,
    /// SHA-256 over the other fields and `prev_hash` (see the module's documentation).
    pub hash: String,
}

/// What a change records, in its own transaction: an entry before the sealer gives it its
/// place in its chain (`store::journal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// When the change was made, ms since the Unix epoch by the deployment's clock.
    pub at: i64,
    /// The elicitation changed.
    pub elicitation_id: String,
    /// Whose elicitation it is.
    pub tenant: Tenant,
    /// Who made the change.
    pub actor: String,
    /// What the change was.
    pub action: String,
    /// SHA-256 (hex) of its content, empty for none.
    pub digest: String,
}

impl Recorded {
    /// The record of `event`, made by `actor` at `at`.
    pub fn of(event: &Event, actor: &Actor, at: i64) -> Recorded {
        Recorded {
            at,
            elicitation_id: event.id().to_string(),
            tenant: event.tenant().clone(),
            actor: actor.name(),
            action: action_of(event),
            digest: digest_of(event),
        }
    }

    /// Its entry as entry `chain_seq` of its tenant's chain, after the one hashed `prev_hash`.
    /// The store gives its `seq`.
    pub fn sealed(self, chain_seq: i64, prev_hash: String) -> AuditEntry {
        let mut entry = AuditEntry {
            seq: None,
            chain: Audience::of(&self.tenant).chain_key(),
            chain_seq,
            at: self.at,
            elicitation_id: self.elicitation_id,
            tenant: self.tenant,
            actor: self.actor,
            action: self.action,
            digest: self.digest,
            prev_hash,
            hash: String::new(),
        };
        entry.hash = entry.computed_hash();
        entry
    }
}

impl AuditEntry {
    /// The hash its fields and `prev_hash` call for (the single chain's entries as they were
    /// hashed: over `seq`, which is their `chain_seq`).
    pub fn computed_hash(&self) -> String {
        let mut fields = if self.chain == SINGLE_CHAIN {
            vec![json!(self.chain_seq)]
        } else {
            vec![json!(self.chain), json!(self.chain_seq)]
        };
        fields.extend([
            json!(self.at),
            json!(self.elicitation_id),
            json!(self.tenant.user_id),
            json!(self.tenant.workspace_id),
            json!(self.tenant.conversation_id),
            json!(self.actor),
            json!(self.action),
            json!(self.digest),
            json!(self.prev_hash),
        ]);
        sha256_hex(Value::Array(fields).to_string().as_bytes())
    }

    /// As `GET /v1/audit` shows it (one NDJSON line).
    pub fn to_line(&self) -> AuditLine {
        AuditLine {
            // A page holds numbered entries only (it selects by `seq`), so `seq` is there.
            seq: self.seq.unwrap_or_default(),
            chain: self.chain.clone(),
            chain_seq: self.chain_seq,
            at: self.at,
            elicitation_id: self.elicitation_id.clone(),
            scope: self.tenant.clone(),
            actor: self.actor.clone(),
            action: self.action.clone(),
            digest: self.digest.clone(),
            prev_hash: self.prev_hash.clone(),
            hash: self.hash.clone(),
        }
    }

    /// Where it is, for messages: `seq 7 (chain ["ana","acme"] entry 3)`.
    pub fn place(&self) -> String {
        let in_chain = place_in_chain(&self.chain, self.chain_seq);
        match self.seq {
            Some(seq) => format!("seq {seq} ({in_chain})"),
            None => in_chain,
        }
    }
}

/// `chain ["ana","acme"] entry 3`, or `the single chain entry 3`.
pub fn place_in_chain(chain: &str, chain_seq: i64) -> String {
    if chain == SINGLE_CHAIN {
        format!("the single chain's entry {chain_seq}")
    } else {
        format!("chain {chain} entry {chain_seq}")
    }
}

/// The action an event records.
fn action_of(event: &Event) -> String {
    match event.kind {
        EventKind::Created => "created".to_string(),
        EventKind::Settled => {
            let action = event
                .record
                .result
                .as_ref()
                .and_then(|result| result.get("action"))
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            format!("answered:{action}")
        }
        EventKind::Expired => "expired".to_string(),
        EventKind::Withdrawn => "withdrawn".to_string(),
        EventKind::Complete => "completed".to_string(),
        EventKind::Escalated => format!("escalated:{}", event.record.escalated),
    }
}

/// The digest an event records: of the request on create, of the result when it ends.
fn digest_of(event: &Event) -> String {
    let content = match event.kind {
        EventKind::Created => Some(&event.record.request),
        EventKind::Settled | EventKind::Expired | EventKind::Withdrawn => {
            event.record.result.as_ref()
        }
        EventKind::Complete | EventKind::Escalated => None,
    };
    content
        .map(|value| sha256_hex(canonical_json(value).as_bytes()))
        .unwrap_or_default()
}

/// A row of `koder_audit` (selected with [`audit_columns!`]) as an entry.
pub(crate) fn entry_from_row<'r, R>(row: &'r R) -> Result<AuditEntry, sqlx::Error>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(AuditEntry {
        seq: row.try_get("seq")?,
        chain: row.try_get("chain")?,
        chain_seq: row.try_get("chain_seq")?,
        at: row.try_get("at")?,
        elicitation_id: row.try_get("elicitation_id")?,
        tenant: Tenant {
            user_id: row.try_get("user_id")?,
            workspace_id: row.try_get("workspace_id")?,
            conversation_id: row.try_get("conversation_id")?,
        },
        actor: row.try_get("actor")?,
        action: row.try_get("action")?,
        digest: row.try_get("digest")?,
        prev_hash: row.try_get("prev_hash")?,
        hash: row.try_get("hash")?,
    })
}

/// Where the trail is broken, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("audit chain broken at {at}: {reason}")]
pub struct ChainBreak {
    /// Where: `seq 7 (chain ["ana","acme"] entry 3)`, or the chain position alone when the
    /// entry there has no `seq` (or is missing).
    pub at: String,
    /// What is wrong there.
    pub reason: String,
}

/// Checks one chain entry by entry, in `chain_seq` order.
#[derive(Debug, Clone)]
pub struct ChainCheck {
    chain: String,
    next_chain_seq: i64,
    prev_hash: String,
    /// The `seq` of the last entry that had one: `seq` grows along a chain.
    last_seq: Option<i64>,
    /// Whether an entry without `seq` was seen: the ones after it have none either.
    unsequenced: bool,
}

impl ChainCheck {
    /// A check of the chain `chain`, from its first entry.
    pub fn new(chain: &str) -> ChainCheck {
        ChainCheck {
            chain: chain.to_string(),
            next_chain_seq: 1,
            prev_hash: GENESIS_HASH.to_string(),
            last_seq: None,
            unsequenced: false,
        }
    }

    /// Checks the chain's next entry.
    pub fn check(&mut self, entry: &AuditEntry) -> Result<(), ChainBreak> {
        let broken = |reason: &str| ChainBreak {
            at: entry.place(),
            reason: reason.to_string(),
        };
        if entry.chain != self.chain || entry.chain_seq != self.next_chain_seq {
            return Err(ChainBreak {
                at: place_in_chain(&self.chain, self.next_chain_seq),
                reason: format!(
                    "the entry is missing (the next one found is {}): an entry was deleted",
                    entry.place()
                ),
            });
        }
        if entry.chain == SINGLE_CHAIN {
            if entry.seq != Some(entry.chain_seq) {
                return Err(broken(
                    "its seq is not its place in the single chain (entries were reordered)",
                ));
            }
        } else if entry.chain != Audience::of(&entry.tenant).chain_key() {
            return Err(broken(
                "its scope is not its chain's tenant (the entry was edited or moved)",
            ));
        }
        match entry.seq {
            Some(_) if self.unsequenced => {
                return Err(broken(
                    "it has a seq while an entry before it in its chain has none",
                ))
            }
            Some(seq) if self.last_seq.is_some_and(|last| seq <= last) => {
                return Err(broken(
                    "its seq is not after the previous entry's (entries were reordered)",
                ))
            }
            Some(seq) => self.last_seq = Some(seq),
            None => self.unsequenced = true,
        }
        if entry.prev_hash != self.prev_hash {
            return Err(broken(
                "prev_hash is not the previous entry's hash (an entry before it was changed, \
                 removed or moved)",
            ));
        }
        if entry.hash != entry.computed_hash() {
            return Err(broken(
                "hash does not match the entry's fields (the entry was edited)",
            ));
        }
        self.next_chain_seq = entry.chain_seq.saturating_add(1);
        self.prev_hash = entry.hash.clone();
        Ok(())
    }

    /// Its key.
    pub fn chain(&self) -> &str {
        &self.chain
    }

    /// How many entries passed.
    pub fn entries(&self) -> i64 {
        self.next_chain_seq.saturating_sub(1)
    }

    /// The last good entry's hash ([`GENESIS_HASH`] before any).
    pub fn head_hash(&self) -> &str {
        &self.prev_hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Record, Status};

    fn event(kind: EventKind, result: Option<Value>) -> Event {
        Event::new(
            kind,
            Record {
                id: "e1".into(),
                tenant: Tenant {
                    user_id: "ana".into(),
                    workspace_id: "acme".into(),
                    conversation_id: "c1".into(),
                },
                request: json!({"message": "Which city?", "requestedSchema": {}}),
                server_name: None,
                created_at: 1,
                expires_at: 2,
                status: Status::Settled,
                result,
                finished_at: None,
                completed: false,
                team: None,
                escalated: 0,
                answered_by: None,
            },
        )
    }

    fn chain() -> Vec<AuditEntry> {
        let mut created = Recorded::of(&event(EventKind::Created, None), &Actor::Host, 10)
            .sealed(1, GENESIS_HASH.into());
        created.seq = Some(4);
        let mut answered = Recorded::of(
            &event(
                EventKind::Settled,
                Some(json!({"action": "accept", "content": {"city": "Lisbon"}})),
            ),
            &Actor::Person { sub: "ana".into() },
            20,
        )
        .sealed(2, created.hash.clone());
        answered.seq = Some(9);
        vec![created, answered]
    }

    fn check_all(entries: &[AuditEntry]) -> Result<ChainCheck, ChainBreak> {
        let mut check = ChainCheck::new(&entries[0].chain);
        for entry in entries {
            check.check(entry)?;
        }
        Ok(check)
    }

    #[test]
    fn entries_name_the_actor_and_action_and_hold_digests_only() {
        let entries = chain();
        assert_eq!(entries[0].chain, r#"["ana","acme"]"#);
        assert_eq!(entries[0].chain_seq, 1);
        assert_eq!(entries[0].prev_hash, GENESIS_HASH);
        assert_eq!(entries[0].action, "created");
        assert_eq!(entries[0].actor, "host");
        assert_eq!(entries[1].chain_seq, 2);
        assert_eq!(entries[1].prev_hash, entries[0].hash);
        assert_eq!(entries[1].action, "answered:accept");
        assert_eq!(entries[1].actor, "person:ana");
        assert_eq!(
            entries[1].digest,
            sha256_hex(br#"{"action":"accept","content":{"city":"Lisbon"}}"#)
        );
        let shown = entries
            .iter()
            .map(|entry| entry.to_line().to_string())
            .collect::<String>();
        assert!(!shown.contains("Lisbon") && !shown.contains("Which city"));
        assert_eq!(entries[1].to_line().seq, 9);
        assert_eq!(entries[1].to_line().chain_seq, 2);
    }

    #[test]
    fn the_hash_is_sha256_of_the_documented_array() {
        let entry = &chain()[0];
        let text = format!(
            r#"["[\"ana\",\"acme\"]",1,10,"e1","ana","acme","c1","host","created","{}","{GENESIS_HASH}"]"#,
            entry.digest
        );
        assert_eq!(entry.hash, sha256_hex(text.as_bytes()));
        // The single chain's entries keep the hash they were written with, over seq.
        let single = AuditEntry {
            seq: Some(1),
            chain: SINGLE_CHAIN.into(),
            ..entry.clone()
        };
        let text = format!(
            r#"[1,10,"e1","ana","acme","c1","host","created","{}","{GENESIS_HASH}"]"#,
            entry.digest
        );
        assert_eq!(single.computed_hash(), sha256_hex(text.as_bytes()));
    }

    #[test]
    fn an_intact_chain_passes_and_edits_deletions_and_swaps_name_the_entry() {
        let entries = chain();
        let check = check_all(&entries).unwrap();
        assert_eq!(check.entries(), 2);
        assert_eq!(check.head_hash(), entries[1].hash);

        let mut edited = entries.clone();
        edited[1].actor = "person:mallory".into();
        let broken = check_all(&edited).unwrap_err();
        assert_eq!(broken.at, r#"seq 9 (chain ["ana","acme"] entry 2)"#);
        assert!(broken.reason.contains("edited"), "{broken}");

        // The first one deleted: a gap at entry 1.
        let broken = check_all(&entries[1..]).unwrap_err();
        assert_eq!(broken.at, r#"chain ["ana","acme"] entry 1"#);

        // An edited entry whose hash was recomputed still breaks the next one's link.
        let mut rehashed = entries.clone();
        rehashed[0].actor = "relay".into();
        rehashed[0].hash = rehashed[0].computed_hash();
        assert!(check_all(&rehashed).unwrap_err().at.starts_with("seq 9 "));

        // Swapped places in the trail: the seqs run backwards.
        let mut swapped = entries.clone();
        swapped[0].seq = Some(9);
        swapped[1].seq = Some(4);
        let broken = check_all(&swapped).unwrap_err();
        assert!(broken.reason.contains("reordered"), "{broken}");

        // Moved to another tenant's chain, hash recomputed: the scope gives it away.
        let mut moved = entries.clone();
        moved[0].chain = Audience::of(&Tenant {
            user_id: "bob".into(),
            workspace_id: "acme".into(),
            conversation_id: String::new(),
        })
        .chain_key();
        moved[0].hash = moved[0].computed_hash();
        assert!(check_all(&moved[..1])
            .unwrap_err()
            .reason
            .contains("tenant"));
    }
}
