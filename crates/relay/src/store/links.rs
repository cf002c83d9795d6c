//! Answer links (`koder_answer_links`, migration 0010): each a capability for one elicitation,
//! kept by the SHA-256 of its token (never the token). A link goes when retention deletes its
//! elicitation (the table's foreign key cascades), so a token is unknown from then on.

use super::db::{either, Database};
use super::StoreError;

/// A link to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLink {
    /// 128 random bits, hex: what the audit trail names.
    pub id: String,
    /// The one elicitation it reaches.
    pub elicitation_id: String,
    /// SHA-256 of the token, hex.
    pub token_hash: String,
    /// When it was made, ms since the Unix epoch.
    pub created_at: i64,
}

/// A link found by its token's hash.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LinkRow {
    /// Its id.
    pub id: String,
    /// The one elicitation it reaches.
    pub elicitation_id: String,
}

/// The links.
#[derive(Debug, Clone)]
pub struct LinkStore {
    pub(super) database: Database,
}

impl LinkStore {
    /// Keeps a new link. Its elicitation must exist (a foreign key): one deleted meanwhile
    /// fails the insert.
    pub async fn insert(&self, link: &NewLink) -> Result<(), StoreError> {
        either!(self.database.writer(), |pool| {
            sqlx::query(
                "INSERT INTO koder_answer_links (id, elicitation_id, token_hash, created_at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(&link.id)
            .bind(&link.elicitation_id)
            .bind(&link.token_hash)
            .bind(link.created_at)
            .execute(pool)
            .await?;
            Ok(())
        })
    }

    /// The link whose token hashes to `token_hash`; `None` when there is none.
    pub async fn find(&self, token_hash: &str) -> Result<Option<LinkRow>, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_as::<_, LinkRow>(
                "SELECT id, elicitation_id FROM koder_answer_links WHERE token_hash = $1",
            )
            .bind(token_hash)
            .fetch_optional(pool)
            .await?)
        })
    }

    /// How many links reach the elicitation `elicitation_id` (tests and operators).
    pub async fn count_for(&self, elicitation_id: &str) -> Result<i64, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM koder_answer_links WHERE elicitation_id = $1",
            )
            .bind(elicitation_id)
            .fetch_one(pool)
            .await?)
        })
    }
}
