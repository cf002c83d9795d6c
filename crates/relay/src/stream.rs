//! `GET /v1/stream`: a person's server-sent events. On connect, one `elicitation` event per
//! pending one in the token's scope (oldest first); then the live events of that scope. A stream
//! that falls behind replays the pending ones instead of the events it missed (the element ignores
//! ids it already shows). Streams end when the server shuts down.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::Stream;
use serde_json::{json, Value};
use tokio::sync::{broadcast, watch};

use crate::api::{elicitation_view, now_ms, AppState};
use crate::auth::StreamPerson;
use crate::error::ApiError;
use crate::store::{Event, EventKind, Status, Store, StoreError, TenantFilter};

/// How often an idle stream sends a comment, so proxies keep it open.
pub const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(15);

/// The stream handler.
pub async fn stream(
    State(state): State<AppState>,
    StreamPerson { filter, .. }: StreamPerson,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    // Subscribed before reading the pending ones, so nothing created in between is lost.
    let events = state
        .store
        .hub()
        .subscribe_tenant(&filter.user_id, &filter.workspace_id);
    let queue = pending_events(state.store.as_ref(), &filter).await?;
    let person = PersonStream {
        queue,
        events,
        store: Arc::clone(&state.store),
        filter,
        shutdown: state.shutdown.clone(),
    };
    let stream = futures_util::stream::unfold(person, |mut person| async move {
        let (name, data) = person.next_event().await?;
        Some((Ok(sse_event(name, &data)), person))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE_INTERVAL)))
}

/// One event to send: its name and its JSON data.
type Message = (&'static str, Value);

struct PersonStream {
    queue: VecDeque<Message>,
    events: broadcast::Receiver<Event>,
    store: Arc<dyn Store>,
    filter: TenantFilter,
    shutdown: watch::Receiver<bool>,
}

impl PersonStream {
    /// The next event to send; `None` ends the stream.
    async fn next_event(&mut self) -> Option<Message> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            let received = tokio::select! {
                received = self.events.recv() => received,
                _ = self.shutdown.wait_for(|stopping| *stopping) => return None,
            };
            match received {
                Ok(event) if self.filter.admits(&event.tenant) => {
                    if let Some(sse) = self.render(&event).await {
                        return Some(sse);
                    }
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    match pending_events(self.store.as_ref(), &self.filter).await {
                        Ok(pending) => self.queue = pending,
                        // The client reconnects and replays on connect.
                        Err(_) => return None,
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    async fn render(&self, event: &Event) -> Option<Message> {
        let name = event.kind.event_name();
        let data = match event.kind {
            EventKind::Created => {
                let record = self.read(&event.id).await?;
                if record.status != Status::Pending || record.expires_at <= now_ms() {
                    return None;
                }
                elicitation_view(&record)
            }
            EventKind::Settled => {
                let action = self
                    .read(&event.id)
                    .await
                    .and_then(|record| record.result)
                    .and_then(|result| result.get("action").cloned())
                    .unwrap_or_else(|| json!("cancel"));
                json!({"id": event.id, "action": action})
            }
            EventKind::Expired | EventKind::Withdrawn | EventKind::Complete => {
                json!({"id": event.id})
            }
        };
        Some((name, data))
    }

    async fn read(&self, id: &str) -> Option<crate::store::Record> {
        match self.store.get(id).await {
            Ok(record) => record,
            Err(error) => {
                eprintln!("koder-elicitation-relay: stream read failed: {error}");
                None
            }
        }
    }
}

fn sse_event(name: &str, data: &Value) -> SseEvent {
    // Serialized JSON has no raw line breaks, so it is one `data:` line.
    SseEvent::default().event(name).data(data.to_string())
}

async fn pending_events(
    store: &dyn Store,
    filter: &TenantFilter,
) -> Result<VecDeque<Message>, StoreError> {
    let now = now_ms();
    Ok(store
        .pending(filter)
        .await?
        .iter()
        .filter(|record| record.expires_at > now)
        .map(|record| ("elicitation", elicitation_view(record)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::Hub;
    use crate::store::sqlite::SqliteStore;
    use crate::store::{NewElicitation, Tenant};

    fn tenant() -> Tenant {
        Tenant {
            user_id: "u".into(),
            workspace_id: "w".into(),
            conversation_id: String::new(),
        }
    }

    #[tokio::test]
    async fn a_stream_that_falls_behind_replays_the_pending_ones() {
        let hub = Hub::default();
        let store: Arc<dyn Store> = Arc::new(
            SqliteStore::open("sqlite::memory:", hub.clone())
                .await
                .unwrap(),
        );
        let filter = TenantFilter {
            user_id: "u".into(),
            workspace_id: "w".into(),
            conversation_id: None,
        };
        let (_stop, shutdown) = watch::channel(false);
        let mut person = PersonStream {
            queue: VecDeque::new(),
            events: hub.subscribe_tenant("u", "w"),
            store: Arc::clone(&store),
            filter,
            shutdown,
        };
        let now = now_ms();
        let record = store
            .create(NewElicitation {
                id: "0123456789abcdef0123456789abcdef".into(),
                tenant: tenant(),
                request: json!({"message": "m", "requestedSchema": {"type": "object"}}),
                server_name: None,
                created_at: now,
                expires_at: now + 60_000,
                idempotency_key: None,
            })
            .await
            .unwrap();
        // Far more events than the backlog, none read: the stream lags.
        for _ in 0..1_000 {
            hub.publish(&Event {
                kind: EventKind::Complete,
                id: "other".into(),
                tenant: tenant(),
            });
        }
        let (name, data) = person.next_event().await.unwrap();
        assert_eq!(name, "elicitation");
        assert_eq!(data["id"], json!(record.id));
    }
}
