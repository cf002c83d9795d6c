//! One line of `GET /v1/audit` (NDJSON): an entry of the tamper-evident audit trail.

use serde::{Deserialize, Serialize};

use crate::views::ViewScope;

/// One audit entry as the API lists it. It holds no content: only digests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditLine {
    /// Its place in the whole trail: 1, 2, 3… with no gaps (for paging).
    pub seq: i64,
    /// The chain: the JSON array `[userId, workspaceId]` as text, or "" for the entries written
    /// before per-tenant chains.
    pub chain: String,
    /// Its place in its chain: 1, 2, 3… with no gaps.
    pub chain_seq: i64,
    /// When the change was made, ms since the Unix epoch (the deployment's clock).
    pub at: i64,
    /// The elicitation changed.
    pub elicitation_id: String,
    /// Whose elicitation it is.
    pub scope: ViewScope,
    /// `host`, `person:<sub>` or `relay`.
    pub actor: String,
    /// `created`, `answered:<action>`, `expired`, `withdrawn` or `completed`.
    pub action: String,
    /// SHA-256 (hex) of the canonical request or result; empty for `completed`.
    pub digest: String,
    /// The previous entry's hash in its chain.
    pub prev_hash: String,
    /// SHA-256 (hex) over the other fields and `prev_hash`.
    pub hash: String,
}

impl std::fmt::Display for AuditLine {
    /// The NDJSON line (without its line break).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

/// `GET /v1/audit/checkpoint`: a hash over the head of every audit chain, to keep outside the
/// database (`audit verify --checkpoint HASH` checks the trail still holds it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditCheckpoint {
    /// It covers every entry up to this `seq`.
    pub seq: i64,
    /// When it was made, ms since the Unix epoch.
    pub at: i64,
    /// How many chains it covers.
    pub chains: i64,
    /// SHA-256 (hex) over the chains' heads.
    pub hash: String,
}
