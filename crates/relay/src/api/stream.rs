//! `GET /v1/stream`: a person's server-sent events. On connect, one `elicitation` event per
//! pending one in the token's scope (oldest first); then the live events of that scope, each
//! rendered once per replica by the hub's announcer. A stream that falls behind is ended with a
//! `retry:` hint instead of skipping what it missed: its client reconnects and gets the pending
//! ones replayed (the element ignores ids it already shows). Streams end when the server shuts
//! down, and when the hub ends them (the link to the other replicas was down).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::Stream;
use tokio::sync::{broadcast, watch};

use super::state::{now_ms, AppState};
use super::views::elicitation_view;
use crate::auth::StreamPerson;
use crate::error::ApiError;
use crate::hub::{Refusal, Subscription};
use crate::store::{Store, StoreError, TenantFilter};

/// How often an idle stream sends a comment, so proxies keep it open.
pub const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(15);
/// What a refused stream is told to wait before trying again, in seconds.
pub const STREAM_RETRY_AFTER_SECONDS: u64 = 5;
/// The `retry:` hint of a stream the relay ends, before jitter: the client reconnects soon.
const RECONNECT_HINT: Duration = Duration::from_millis(1_000);

/// The stream handler.
pub async fn stream(
    State(state): State<AppState>,
    StreamPerson(filter): StreamPerson,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    // Subscribed before reading the pending ones, so nothing created in between is lost.
    let subscription = state
        .hub
        .subscribe(&filter.user_id, &filter.workspace_id)
        .map_err(refused)?;
    let queue = pending_events(state.store.as_ref(), &filter).await?;
    let person = PersonStream {
        queue,
        subscription,
        filter,
        shutdown: state.shutdown.clone(),
        ended: false,
    };
    let stream = futures_util::stream::unfold(person, |mut person| async move {
        let event = person.next_event().await?;
        Some((Ok(event), person))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE_INTERVAL)))
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
                received = self.subscription.recv() => received,
                _ = self.shutdown.wait_for(|stopping| *stopping) => return None,
            };
            match received {
                Ok(message) if self.filter.admits(&message.tenant) => {
                    return Some(SseEvent::default().event(message.name).data(&message.data));
                }
                Ok(_) => {}
                // Fell behind: what it missed may close dialogs, so it must not be skipped.
                Err(broadcast::error::RecvError::Lagged(_)) => return Some(self.farewell()),
                Err(broadcast::error::RecvError::Closed) => return None,
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

async fn pending_events(
    store: &dyn Store,
    filter: &TenantFilter,
) -> Result<VecDeque<SseEvent>, StoreError> {
    let now = store.now_ms();
    Ok(store
        .pending(filter)
        .await?
        .iter()
        .filter(|record| record.expires_at > now)
        .map(|record| {
            SseEvent::default()
                .event("elicitation")
                .data(elicitation_view(record, now).to_string())
        })
        .collect())
}
