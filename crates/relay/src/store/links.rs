//! Answer links (`koder_answer_links`, migration 0010): each a capability for one elicitation,
//! kept by the SHA-256 of its token (never the token). A link goes when retention deletes its
//! elicitation (the table's foreign key cascades), so a token is unknown from then on.

use super::db::{either, Database};
use super::StoreError;

/// A link to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLink {
    /// 128 random bits, or for a message's link 128 bits derived from the message, hex: what
    /// the audit trail names.
    pub id: String,
    /// The one elicitation it reaches.
    pub elicitation_id: String,
    /// SHA-256 of the token, hex.
    pub token_hash: String,
    /// When it was made, ms since the Unix epoch.
    pub created_at: i64,
    /// The message it was made for (`<channel>:<row id>`); `None`: a host asked for it.
    pub made_for: Option<String>,
    /// The address it was mailed to, for an e-mail's link.
    pub email: Option<String>,
}

/// A link found by its token's hash.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LinkRow {
    /// Its id.
    pub id: String,
    /// The one elicitation it reaches.
    pub elicitation_id: String,
    /// The address it was mailed to, for an e-mail's link.
    pub email: Option<String>,
}

/// The links.
#[derive(Debug, Clone)]
pub struct LinkStore {
    pub(super) database: Database,
}

impl LinkStore {
    /// Keeps a new link; `false` when a link of that id was there already (a message's link
    /// made again on a retry), whose token hash is then set to this one's (the same, unless the
    /// key it is derived with changed). Its elicitation must exist (a foreign key): one deleted
    /// meanwhile fails the insert.
    pub async fn keep(&self, link: &NewLink) -> Result<bool, StoreError> {
        either!(self.database.writer(), |pool| {
            let inserted = sqlx::query(
                "INSERT INTO koder_answer_links \
                 (id, elicitation_id, token_hash, created_at, made_for, email) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
            )
            .bind(&link.id)
            .bind(&link.elicitation_id)
            .bind(&link.token_hash)
            .bind(link.created_at)
            .bind(&link.made_for)
            .bind(&link.email)
            .execute(pool)
            .await?
            .rows_affected();
            if inserted == 0 {
                sqlx::query(
                    "UPDATE koder_answer_links SET token_hash = $2 \
                     WHERE id = $1 AND token_hash <> $2",
                )
                .bind(&link.id)
                .bind(&link.token_hash)
                .execute(pool)
                .await?;
            }
            Ok(inserted > 0)
        })
    }

    /// The link whose token hashes to `token_hash`; `None` when there is none.
    pub async fn find(&self, token_hash: &str) -> Result<Option<LinkRow>, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_as::<_, LinkRow>(
                "SELECT id, elicitation_id, email FROM koder_answer_links WHERE token_hash = $1",
            )
            .bind(token_hash)
            .fetch_optional(pool)
            .await?)
        })
    }

    /// How many links reach the elicitation `elicitation_id`, hosts' and messages' alike.
    pub async fn count_for(&self, elicitation_id: &str) -> Result<i64, StoreError> {
        self.count(
            "SELECT count(*) FROM koder_answer_links WHERE elicitation_id = $1",
            elicitation_id,
        )
        .await
    }

    /// How many links hosts asked for reach the elicitation `elicitation_id` (bounding a
    /// host's links; those made for messages are not counted).
    pub async fn count_for_hosts(&self, elicitation_id: &str) -> Result<i64, StoreError> {
        self.count(
            "SELECT count(*) FROM koder_answer_links \
             WHERE elicitation_id = $1 AND made_for IS NULL",
            elicitation_id,
        )
        .await
    }

    async fn count(
        &self,
        statement: &'static str,
        elicitation_id: &str,
    ) -> Result<i64, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_scalar::<_, i64>(statement)
                .bind(elicitation_id)
                .fetch_one(pool)
                .await?)
        })
    }
}
