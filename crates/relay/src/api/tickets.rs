//! `POST /v1/stream/ticket`: a one-use ticket for `GET /v1/stream?ticket=…`, so a page that must
//! use `EventSource` (no headers) never puts its long-lived token in a URL.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;
use koder_elicitation_relay_protocol::StreamTicket;

use super::{now_ms, AppState};
use crate::auth::{new_ticket, PersonToken};
use crate::error::ApiError;
use crate::store::{NewTicket, MAX_LIVE_TICKETS};

/// How long a ticket stays valid: long enough to open the stream, short enough that a logged URL
/// is useless.
pub const TICKET_LIFETIME_MS: i64 = 30_000;

/// The handler: the Bearer token's scope and end are kept under the ticket's digest.
pub async fn issue(
    State(state): State<AppState>,
    token: PersonToken,
) -> Result<impl IntoResponse, ApiError> {
    let now = now_ms();
    // `exp` is checked in whole seconds: a token in its last second may already be over here.
    if token.expires_at_ms <= now {
        return Err(ApiError::unauthorized("token expired"));
    }
    // A ticket never outlives the token that asked for it.
    let expires_at = (now + TICKET_LIFETIME_MS).min(token.expires_at_ms);
    let (ticket, digest) = new_ticket()?;
    let kept = NewTicket {
        digest,
        user_id: token.filter.user_id,
        workspace_id: token.filter.workspace_id,
        conversation_id: token.filter.conversation_id,
        token_expires_at: token.expires_at_ms,
        expires_at,
    };
    let issued = state.store.tickets.issue(&kept, MAX_LIVE_TICKETS, now);
    if !issued.await? {
        return Err(ApiError::too_many_requests(
            format!("too many live stream tickets (at most {MAX_LIVE_TICKETS}); try again later"),
            // The oldest of them is gone by then at the latest.
            TICKET_LIFETIME_MS.unsigned_abs() / 1000,
        ));
    }
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(StreamTicket {
            ticket,
            expires_in_ms: expires_at - now,
        }),
    ))
}
