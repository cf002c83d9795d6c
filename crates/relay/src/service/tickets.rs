//! Stream tickets: a one-use stand-in for a person's token on `GET /v1/stream?ticket=…`, so a
//! page that must use `EventSource` (no headers) never puts its long-lived token in a URL.
//! Issued and redeemed on one clock, the deployment's.

use koder_elicitation_relay_protocol::StreamTicket;

use super::ServiceError;
use crate::auth::{new_ticket, ticket_digest, ticket_grant, PersonToken};
use crate::store::{Clock, NewTicket, TicketStore, MAX_LIVE_TICKETS};

/// How long a ticket stays valid: long enough to open the stream, short enough that a logged URL
/// is useless.
pub const TICKET_LIFETIME_MS: i64 = 30_000;

/// Issues and redeems tickets.
#[derive(Debug, Clone)]
pub struct Tickets {
    pub(crate) store: TicketStore,
    pub(crate) clock: Clock,
}

impl Tickets {
    /// A ticket for `token`'s scope and end, kept under its digest; it never outlives the token.
    pub async fn issue(&self, token: PersonToken) -> Result<StreamTicket, ServiceError> {
        let now = self.clock.now_ms();
        // `exp` is checked in whole seconds: a token in its last second may already be over here.
        if token.expires_at_ms <= now {
            return Err(ServiceError::Unauthorized("token expired".into()));
        }
        let expires_at = (now + TICKET_LIFETIME_MS).min(token.expires_at_ms);
        let (ticket, digest) =
            new_ticket().map_err(|error| ServiceError::NoRandomness(error.to_string()))?;
        let kept = NewTicket {
            digest,
            filter: token.filter,
            token_expires_at: token.expires_at_ms,
            expires_at,
        };
        if !self.store.issue(&kept, MAX_LIVE_TICKETS, now).await? {
            return Err(ServiceError::TooMany {
                message: format!(
                    "too many live stream tickets (at most {MAX_LIVE_TICKETS}); try again later"
                ),
                // The oldest of them is gone by then at the latest.
                retry_after_s: TICKET_LIFETIME_MS.unsigned_abs() / 1000,
            });
        }
        Ok(StreamTicket {
            ticket,
            expires_in_ms: expires_at - now,
        })
    }

    /// What `ticket` grants, once: the token it was issued for, while that token lasts.
    pub async fn redeem(&self, ticket: &str) -> Result<PersonToken, ServiceError> {
        let now = self.clock.now_ms();
        match self.store.redeem(&ticket_digest(ticket), now).await? {
            Some(redeemed) if redeemed.token_expires_at > now => Ok(ticket_grant(redeemed)),
            Some(_) => Err(ServiceError::Unauthorized("token expired".into())),
            None => Err(ServiceError::Unauthorized(
                "invalid ticket: unknown, expired or already used".into(),
            )),
        }
    }
}
