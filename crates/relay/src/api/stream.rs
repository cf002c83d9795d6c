//! `GET /v1/stream`: a person's server-sent events. On connect, one `elicitation` event per
//! pending one in the token's scope (oldest first); then the live events of that scope, each
//! rendered once per replica by the hub's announcer. A stream that falls behind is ended with a
//! `retry:` hint instead of skipping what it missed: its client reconnects and gets the pending
//! ones replayed (the element ignores ids it already shows). Streams end, with the same hint, when
//! the server drains, and when the hub ends them (the link to the other replicas was lost).
//! `POST /v1/stream/ticket` gives a one-use ticket for `GET /v1/stream?ticket=…`, so a page that
//! must use `EventSource` (no headers) never puts its long-lived token in a URL.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use futures_util::Stream;
use koder_elicitation_relay_protocol::{now_ms, StreamEvent};
use tokio::sync::{broadcast, watch};

use super::extract::StreamPerson;
use super::AppState;
use crate::auth::PersonToken;
use crate::error::ApiError;
use crate::hub::{Refusal, Subscription};
use crate::record::TenantFilter;
use crate::service::Elicitations;
use crate::views::elicitation_view;

/// How often an idle stream sends a comment, so proxies keep it open.
pub const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(15);
/// What a refused stream is told to wait before trying again, in seconds.
pub const STREAM_RETRY_AFTER_SECONDS: u64 = 5;
/// What a stream refused by a draining relay is told to wait, in seconds: another replica
/// takes it.
pub const DRAINING_RETRY_AFTER_SECONDS: u64 = 1;
/// The `retry:` hint of a stream the relay ends, before jitter: the client reconnects soon.
const RECONNECT_HINT: Duration = Duration::from_millis(1_000);

/// The stream handler.
pub async fn stream(
    State(state): State<AppState>,
    StreamPerson(PersonToken {
        filter,
        expires_at_ms,
        ..
    }): StreamPerson,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    // Subscribed before reading the pending ones, so nothing created in between is lost.
    let subscription = state.hub.subscribe(&filter).map_err(refused)?;
    // Checked after subscribing: a drain or a lost link that starts now still ends this stream.
    if state.is_draining() {
        return Err(ApiError::unavailable(
            "this relay is shutting down: connect again",
            DRAINING_RETRY_AFTER_SECONDS,
        ));
    }
    if state.link_is_down() {
        return Err(ApiError::unavailable(
            "this relay lost its link to the other replicas: connect again",
            STREAM_RETRY_AFTER_SECONDS,
        ));
    }
    let queue = pending_events(&state.elicitations, &filter).await?;
    let person = PersonStream {
        queue,
        subscription,
        filter,
        token_ends: token_deadline(state.elicitations.now_ms(), expires_at_ms),
        shutdown: state.shutdown.clone(),
        ended: false,
    };
    let stream = futures_util::stream::unfold(person, |mut person| async move {
        let event = person.next_event().await?;
        Some((Ok(event), person))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE_INTERVAL)))
}

/// `POST /v1/stream/ticket`: a ticket for the Bearer token's scope, until its end at the latest.
pub async fn ticket(
    State(state): State<AppState>,
    token: PersonToken,
) -> Result<impl IntoResponse, ApiError> {
    let ticket = state.tickets.issue(token).await?;
    Ok(([(header::CACHE_CONTROL, "no-store")], Json(ticket)))
}

fn refused(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::PersonFull => ApiError::too_many_requests(
            "too many open streams for this person",
            STREAM_RETRY_AFTER_SECONDS,
        ),
        Refusal::ReplicaFull => ApiError::unavailable(
            "this relay holds as many streams as it can",
            STREAM_RETRY_AFTER_SECONDS,
        ),
    }
}

struct PersonStream {
    queue: VecDeque<SseEvent>,
    subscription: Subscription,
    filter: TenantFilter,
    /// When the token that opened the stream ends: the stream ends then too, and its client
    /// reconnects with a fresh token.
    token_ends: tokio::time::Instant,
    shutdown: watch::Receiver<bool>,
    /// The farewell (`retry:`) was sent: the next poll ends the stream.
    ended: bool,
}

impl PersonStream {
    /// The next event to send; `None` ends the stream.
    async fn next_event(&mut self) -> Option<SseEvent> {
        if self.ended {
            return None;
        }
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            let received = tokio::select! {
                received = self.subscription.recv() => Some(received),
                _ = self.shutdown.wait_for(|stopping| *stopping) => None,
                () = tokio::time::sleep_until(self.token_ends) => None,
            };
            // The token ended, or the relay is draining: so does the stream, and its client
            // comes back (with a fresh token, or to another replica).
            let Some(received) = received else {
                return Some(self.farewell());
            };
            match received {
                Ok(message) if message.audience.admits(&self.filter) => {
                    return Some(SseEvent::default().event(message.name).data(&message.data));
                }
                Ok(_) => {}
                // Fell behind: what it missed may close dialogs, so it must not be skipped.
                Err(broadcast::error::RecvError::Lagged(_)) => return Some(self.farewell()),
                // The hub ended it (the link to the other replicas was lost).
                Err(broadcast::error::RecvError::Closed) => return Some(self.farewell()),
            }
        }
    }

    /// The last event of a stream the relay ends: a `retry:` hint with jitter, so clients
    /// ended together do not all come back in the same instant.
    fn farewell(&mut self) -> SseEvent {
        self.ended = true;
        let jitter_ms = u64::try_from(now_ms().rem_euclid(1_000)).unwrap_or(0);
        SseEvent::default()
            .comment("ended by the relay: reconnect")
            .retry(RECONNECT_HINT + Duration::from_millis(jitter_ms))
    }
}

/// The instant a token ending at `expires_at_ms` (Unix ms) ends, on the runtime's clock, as of
/// `now_ms`.
fn token_deadline(now_ms: i64, expires_at_ms: i64) -> tokio::time::Instant {
    let left = u64::try_from(expires_at_ms.saturating_sub(now_ms)).unwrap_or(0);
    tokio::time::Instant::now() + Duration::from_millis(left)
}

async fn pending_events(
    elicitations: &Elicitations,
    filter: &TenantFilter,
) -> Result<VecDeque<SseEvent>, ApiError> {
    let pending = elicitations.pending(filter).await?;
    let now = elicitations.now_ms();
    Ok(pending
        .iter()
        .map(|record| {
            let event = StreamEvent::Elicitation(elicitation_view(record, now));
            SseEvent::default().event(event.name()).data(event.data())
        })
        .collect())
}
