//! Stream tickets: one-use, short-lived stand-ins for a person's token on `GET /v1/stream`, for
//! `EventSource`, which cannot send headers. Only a ticket's SHA-256 digest is stored, with the
//! scope and the end of the token that asked for it; redeeming deletes the row, so a ticket works
//! once, on whichever replica it is presented to.

/// The most live tickets one person (user in a workspace) may hold; past it, 429.
pub const MAX_LIVE_TICKETS: i64 = 32;

/// A ticket to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTicket {
    /// SHA-256 of the ticket, hex (never the ticket itself).
    pub digest: String,
    /// The person (`sub` of their token).
    pub user_id: String,
    /// Their workspace.
    pub workspace_id: String,
    /// The conversation their token is limited to, if any.
    pub conversation_id: Option<String>,
    /// When the token that asked for it ends, ms since the Unix epoch.
    pub token_expires_at: i64,
    /// When the ticket itself ends, ms since the Unix epoch.
    pub expires_at: i64,
}

/// What a redeemed ticket grants: the scope and the end of the token that asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedeemedTicket {
    /// The person.
    pub user_id: String,
    /// Their workspace.
    pub workspace_id: String,
    /// The conversation the token was limited to, if any.
    pub conversation_id: Option<String>,
    /// When the token ends, ms since the Unix epoch.
    pub token_expires_at: i64,
}

/// A redeemed ticket's row (`user_id, workspace_id, conversation_id, token_expires_at`).
pub(super) fn redeemed_from_row<'r, R>(row: &'r R) -> Result<RedeemedTicket, super::StoreError>
where
    R: sqlx::Row,
    &'static str: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(RedeemedTicket {
        user_id: row.try_get("user_id")?,
        workspace_id: row.try_get("workspace_id")?,
        conversation_id: row.try_get("conversation_id")?,
        token_expires_at: row.try_get("token_expires_at")?,
    })
}
