//! Stream tickets: one-use, short-lived stand-ins for a person's token on `GET /v1/stream`, for
//! `EventSource`, which cannot send headers. Only a ticket's SHA-256 digest is stored, with the
//! scope and the end of the token that asked for it; redeeming deletes the row, so a ticket works
//! once, on whichever replica it is presented to.

use super::db::{either, Database};
use super::{StoreError, TenantFilter};

/// The most live tickets one person (user in a workspace) may hold; past it, 429.
pub const MAX_LIVE_TICKETS: i64 = 32;

/// A ticket to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTicket {
    /// SHA-256 of the ticket, hex (never the ticket itself).
    pub digest: String,
    /// What the token that asked for it sees.
    pub filter: TenantFilter,
    /// When the token that asked for it ends, ms since the Unix epoch.
    pub token_expires_at: i64,
    /// When the ticket itself ends, ms since the Unix epoch.
    pub expires_at: i64,
}

/// What a redeemed ticket grants: the scope and the end of the token that asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedeemedTicket {
    /// What the token sees.
    pub filter: TenantFilter,
    /// When the token ends, ms since the Unix epoch.
    pub token_expires_at: i64,
}

/// The tickets.
#[derive(Debug, Clone)]
pub struct TicketStore {
    pub(super) database: Database,
}

impl TicketStore {
    /// Keeps a stream ticket unless its person already holds `max_live` live ones (`false`
    /// then), in one statement. Replicas racing may pass the cap by a few; it bounds abuse, not
    /// exact counts (SQLite's one writer makes the count and the insert one step).
    pub async fn issue(
        &self,
        ticket: &NewTicket,
        max_live: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        either!(self.database.writer(), |pool| {
            let inserted = sqlx::query(
                "INSERT INTO koder_stream_tickets \
                 (digest, user_id, workspace_id, conversation_id, token_expires_at, expires_at, \
                 token_groups) SELECT $1, $2, $3, $4, $5, $6, $9 WHERE (SELECT COUNT(*) FROM koder_stream_tickets \
                 WHERE user_id = $2 AND workspace_id = $3 AND expires_at > $7) < $8",
            )
            .bind(&ticket.digest)
            .bind(&ticket.filter.user_id)
            .bind(&ticket.filter.workspace_id)
            .bind(&ticket.filter.conversation_id)
            .bind(ticket.token_expires_at)
            .bind(ticket.expires_at)
            .bind(now_ms)
            .bind(max_live)
            .bind(serde_json::to_string(&ticket.filter.groups).unwrap_or_else(|_| "[]".into()))
            .execute(pool)
            .await?;
            Ok(inserted.rows_affected() == 1)
        })
    }

    /// Deletes the live ticket with this digest and returns what it grants, in one statement,
    /// so a ticket works exactly once (two replicas redeeming at once: the second DELETE waits
    /// for the first's commit, then finds no row); `None` for an unknown, expired or used one.
    pub async fn redeem(
        &self,
        digest: &str,
        now_ms: i64,
    ) -> Result<Option<RedeemedTicket>, StoreError> {
        either!(self.database.writer(), |pool| {
            let rows = sqlx::query_as::<_, (String, String, Option<String>, i64, String)>(
                "DELETE FROM koder_stream_tickets WHERE digest = $1 AND expires_at > $2 \
                 RETURNING user_id, workspace_id, conversation_id, token_expires_at, token_groups",
            )
            .bind(digest)
            .bind(now_ms)
            // Run to completion, so the ticket is gone before the stream it opens starts.
            .fetch_all(pool)
            .await?;
            Ok(rows.into_iter().next().map(
                |(user_id, workspace_id, conversation_id, token_expires_at, groups)| {
                    RedeemedTicket {
                        filter: TenantFilter {
                            user_id,
                            workspace_id,
                            conversation_id,
                            // Written by `issue` from a list; anything else grants no group.
                            groups: serde_json::from_str(&groups).unwrap_or_default(),
                        },
                        token_expires_at,
                    }
                },
            ))
        })
    }

    /// Deletes the tickets expired at `now_ms`; returns how many.
    pub async fn purge(&self, now_ms: i64) -> Result<u64, StoreError> {
        either!(self.database.writer(), |pool| {
            let purged = sqlx::query("DELETE FROM koder_stream_tickets WHERE expires_at <= $1")
                .bind(now_ms)
                .execute(pool)
                .await?;
            Ok(purged.rows_affected())
        })
    }
}
