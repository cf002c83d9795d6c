//! The tamper-evident audit trail: one append-only chain of entries, one per change (created,
//! answered, expired, withdrawn, completed), each written in the transaction of its change.
//!
//! An entry holds no content: only a SHA-256 of the request (on create) or of the result (when
//! it ends). Each entry's `hash` covers all its other fields and the previous entry's hash, so
//! editing or deleting an entry breaks the chain from there on; `audit verify` recomputes it.
//!
//! The hash is SHA-256 (lowercase hex) of the UTF-8 JSON text of the array
//! `[seq, at, elicitation_id, user_id, workspace_id, conversation_id, actor, action, digest,
//! prev_hash]`: numbers as JSON integers, strings as JSON strings, no whitespace (what
//! `JSON.stringify` gives too). The first entry's `prev_hash` is [`GENESIS_HASH`].

use koder_elicitation_relay_protocol::{AuditLine, ViewScope};
use serde_json::{json, Value};
use sqlx::{ColumnIndex, Decode, Row, Type};

use crate::canonical::{canonical_json, sha256_hex};
use crate::events::{Event, EventKind};
use crate::record::{Actor, Tenant};

/// The `prev_hash` of the first entry.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The most entries one `GET /v1/audit` returns.
pub const MAX_PAGE: i64 = 1000;
/// Entries per page when `limit` is not given.
pub const DEFAULT_PAGE: i64 = 100;

/// The columns of an entry, in the order of the table.
macro_rules! audit_columns {
    () => {
        "seq, at, elicitation_id, user_id, workspace_id, conversation_id, actor, action, digest, \
         prev_hash, hash"
    };
}
pub(crate) use audit_columns;

/// One entry of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its place in the chain: 1, 2, 3… with no gaps.
    pub seq: i64,
    /// When the change was made, ms since the Unix epoch by the deployment's clock.
    pub at: i64,
    /// The elicitation changed.
    pub elicitation_id: String,
    /// Whose elicitation it is.
    pub tenant: Tenant,
    /// Who made the change: `host`, `person:<sub>` or `relay`.
    pub actor: String,
    /// `created`, `answered:accept`, `answered:decline`, `answered:cancel`, `expired`,
    /// `withdrawn` or `completed`.
    pub action: String,
    /// SHA-256 (hex) of the canonical request (created) or result (answered, expired,
    /// withdrawn); empty for `completed`, which carries no content.
    pub digest: String,
    /// The previous entry's `hash` ([`GENESIS_HASH`] for the first).
    pub prev_hash: String,
    /// SHA-256 over the other fields and `prev_hash` (see the module's documentation).
    pub hash: String,
}

impl AuditEntry {
    /// The entry recording `event`, made by `actor` at `at`, after the chain's head
    /// (`(seq, hash)`, `None` for an empty chain).
    pub fn next(head: Option<(i64, String)>, event: &Event, actor: &Actor, at: i64) -> AuditEntry {
        let (seq, prev_hash) = match head {
            Some((seq, hash)) => (seq.saturating_add(1), hash),
            None => (1, GENESIS_HASH.to_string()),
        };
        let mut entry = AuditEntry {
            seq,
            at,
            elicitation_id: event.id().to_string(),
            tenant: event.tenant().clone(),
            actor: actor.name(),
            action: action_of(event),
            digest: digest_of(event),
            prev_hash,
            hash: String::new(),
        };
        entry.hash = entry.computed_hash();
        entry
    }

    /// The hash its fields and `prev_hash` call for.
    pub fn computed_hash(&self) -> String {
        let encoded = json!([
            self.seq,
            self.at,
            self.elicitation_id,
            self.tenant.user_id,
            self.tenant.workspace_id,
            self.tenant.conversation_id,
            self.actor,
            self.action,
            self.digest,
            self.prev_hash,
        ])
        .to_string();
        sha256_hex(encoded.as_bytes())
    }

    /// As `GET /v1/audit` shows it (one NDJSON line).
    pub fn to_line(&self) -> AuditLine {
        AuditLine {
            seq: self.seq,
            at: self.at,
            elicitation_id: self.elicitation_id.clone(),
            scope: ViewScope::from(&self.tenant),
            actor: self.actor.clone(),
            action: self.action.clone(),
            digest: self.digest.clone(),
            prev_hash: self.prev_hash.clone(),
            hash: self.hash.clone(),
        }
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
    }
}

/// The digest an event records: of the request on create, of the result when it ends.
fn digest_of(event: &Event) -> String {
    let content = match event.kind {
        EventKind::Created => Some(&event.record.request),
        EventKind::Settled | EventKind::Expired | EventKind::Withdrawn => {
            event.record.result.as_ref()
        }
        EventKind::Complete => None,
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
{
    Ok(AuditEntry {
        seq: row.try_get("seq")?,
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

/// Where a chain is broken: the first entry that does not follow from the ones before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainBreak {
    /// The sequence number expected next (an entry deleted there leaves a gap).
    pub seq: i64,
    /// What is wrong there.
    pub reason: String,
}

impl std::fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "audit chain broken at seq {}: {}", self.seq, self.reason)
    }
}

/// Checks a chain entry by entry, in order.
#[derive(Debug, Clone)]
pub struct ChainCheck {
    next_seq: i64,
    prev_hash: String,
}

impl Default for ChainCheck {
    fn default() -> Self {
        ChainCheck {
            next_seq: 1,
            prev_hash: GENESIS_HASH.to_string(),
        }
    }
}

impl ChainCheck {
    /// Checks the next entry.
    pub fn check(&mut self, entry: &AuditEntry) -> Result<(), ChainBreak> {
        let broken = |reason: String| ChainBreak {
            seq: self.next_seq,
            reason,
        };
        if entry.seq != self.next_seq {
            return Err(broken(format!(
                "expected seq {}, found seq {} (an entry is missing)",
                self.next_seq, entry.seq
            )));
        }
        if entry.prev_hash != self.prev_hash {
            return Err(broken(
                "prev_hash is not the previous entry's hash (an entry before it was changed or \
                 removed)"
                    .to_string(),
            ));
        }
        if entry.hash != entry.computed_hash() {
            return Err(broken(
                "hash does not match the entry's fields (the entry was edited)".to_string(),
            ));
        }
        self.next_seq = entry.seq.saturating_add(1);
        self.prev_hash = entry.hash.clone();
        Ok(())
    }

    /// How many entries passed.
    pub fn entries(&self) -> i64 {
        self.next_seq.saturating_sub(1)
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
            },
        )
    }

    fn chain() -> Vec<AuditEntry> {
        let created = AuditEntry::next(None, &event(EventKind::Created, None), &Actor::Host, 10);
        let answered = AuditEntry::next(
            Some((created.seq, created.hash.clone())),
            &event(
                EventKind::Settled,
                Some(json!({"action": "accept", "content": {"city": "Lisbon"}})),
            ),
            &Actor::Person { sub: "ana".into() },
            20,
        );
        vec![created, answered]
    }

    #[test]
    fn entries_name_the_actor_and_action_and_hold_digests_only() {
        let entries = chain();
        assert_eq!(entries[0].seq, 1);
        assert_eq!(entries[0].prev_hash, GENESIS_HASH);
        assert_eq!(entries[0].action, "created");
        assert_eq!(entries[0].actor, "host");
        assert_eq!(entries[1].seq, 2);
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
    }

    #[test]
    fn the_hash_is_sha256_of_the_documented_array() {
        let entry = &chain()[0];
        let text = format!(
            r#"[1,10,"e1","ana","acme","c1","host","created","{}","{GENESIS_HASH}"]"#,
            entry.digest
        );
        assert_eq!(entry.hash, sha256_hex(text.as_bytes()));
    }

    #[test]
    fn an_intact_chain_passes_and_edits_or_deletions_name_the_entry() {
        let entries = chain();
        let mut check = ChainCheck::default();
        for entry in &entries {
            check.check(entry).unwrap();
        }
        assert_eq!(check.entries(), 2);
        assert_eq!(check.head_hash(), entries[1].hash);

        let mut edited = entries.clone();
        edited[1].actor = "person:mallory".into();
        let mut check = ChainCheck::default();
        check.check(&edited[0]).unwrap();
        assert_eq!(check.check(&edited[1]).unwrap_err().seq, 2);

        // The first one deleted: a gap at 1.
        assert_eq!(ChainCheck::default().check(&entries[1]).unwrap_err().seq, 1);

        // An edited entry whose hash was recomputed still breaks the next one's link.
        let mut rehashed = entries.clone();
        rehashed[0].actor = "relay".into();
        rehashed[0].hash = rehashed[0].computed_hash();
        let mut check = ChainCheck::default();
        check.check(&rehashed[0]).unwrap();
        assert_eq!(check.check(&rehashed[1]).unwrap_err().seq, 2);
    }
}
