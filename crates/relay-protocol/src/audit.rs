//! One line of `GET /v1/audit` (NDJSON): an entry of the tamper-evident audit trail.

use serde::{Deserialize, Serialize};

use crate::views::ViewScope;

/// One audit entry as the API lists it. It holds no content: only digests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditLine {
    /// Its place in the chain.
    pub seq: i64,
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
    /// The previous entry's hash.
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
