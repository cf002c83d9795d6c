//! The PostgreSQL LISTEN link, its own component: it hears the other replicas' changes on
//! [`EVENTS_CHANNEL`], reads each changed record once, and hands the event to this replica's
//! [`EventSink`]. A store knows nothing of it, and it knows nothing of streams.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use sqlx::postgres::PgListener;
use tokio::task::JoinHandle;

use crate::events::{Event, EventKind, EventSink};
use crate::store::postgres::EVENTS_CHANNEL;
use crate::store::Store;

/// The wait before rebuilding a lost listener, doubling up to the maximum.
const RELISTEN_FIRST_DELAY: Duration = Duration::from_millis(100);
const RELISTEN_MAX_DELAY: Duration = Duration::from_secs(5);

/// A running LISTEN task; dropping it stops the task.
#[derive(Debug)]
pub struct Listening {
    task: JoinHandle<()>,
}

impl Listening {
    /// Connects to `url`, listens, and only then returns, so nothing announced after this is
    /// missed. `origin` is this replica's own id (its notifications are skipped: it announced
    /// those itself); `store` reads the changed records.
    pub async fn start(
        url: &str,
        origin: &str,
        store: Arc<dyn Store>,
        sink: Arc<dyn EventSink>,
    ) -> Result<Listening, sqlx::Error> {
        let listener = new_listener(url).await?;
        let task = tokio::spawn(relay_notifications(
            listener,
            url.to_string(),
            origin.to_string(),
            store,
            sink,
        ));
        Ok(Listening { task })
    }

    /// Whether the task still runs (it only ends when dropped).
    pub fn is_running(&self) -> bool {
        !self.task.is_finished()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn new_listener(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(EVENTS_CHANNEL).await?;
    Ok(listener)
}

/// Hands the other replicas' changes to `sink` until aborted. A lost connection is re-established
/// by the listener itself (re-issuing LISTEN); when that fails, a fresh listener is built with a
/// doubling delay. Changes made while disconnected are not heard: long-polls still re-read the
/// row every second, and the sink is told to resync, so that each person's stream starts over
/// with the pending ones.
async fn relay_notifications(
    mut listener: PgListener,
    url: String,
    origin: String,
    store: Arc<dyn Store>,
    sink: Arc<dyn EventSink>,
) {
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                let Some((kind, id)) = change_from_notification(notification.payload(), &origin)
                else {
                    continue;
                };
                match store.get(&id).await {
                    Ok(Some(record)) => sink.deliver(&Event::new(kind, record)),
                    // Gone already (purged): nobody needs to hear of it.
                    Ok(None) => {}
                    Err(error) => {
                        eprintln!(
                            "koder-elicitation-relay: reading a changed record failed: {error}"
                        );
                        sink.resync();
                    }
                }
            }
            // The connection dropped and the listener reconnected: keep listening.
            Ok(None) => sink.resync(),
            Err(_) => {
                listener = relisten(&url).await;
                sink.resync();
            }
        }
    }
}

async fn relisten(url: &str) -> PgListener {
    let mut delay = RELISTEN_FIRST_DELAY;
    loop {
        tokio::time::sleep(delay).await;
        if let Ok(listener) = new_listener(url).await {
            return listener;
        }
        delay = (delay * 2).min(RELISTEN_MAX_DELAY);
    }
}

/// One replica's notification, as `store::postgres` sends it.
#[derive(Deserialize)]
struct Notification {
    origin: String,
    kind: String,
    id: String,
}

/// The change another replica announced; `None` for this replica's own (already announced) and
/// for anything malformed: a payload is untrusted, since anyone with access may NOTIFY.
fn change_from_notification(payload: &str, own_origin: &str) -> Option<(EventKind, String)> {
    let notification: Notification = serde_json::from_str(payload).ok()?;
    if notification.origin == own_origin {
        return None;
    }
    Some((EventKind::parse(&notification.kind)?, notification.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OTHER: &str = r#"{"origin":"b","kind":"settled","id":"x","userId":"u","workspaceId":"w","conversationId":"c"}"#;

    #[test]
    fn another_replicas_notification_names_a_change() {
        assert_eq!(
            change_from_notification(OTHER, "a"),
            Some((EventKind::Settled, "x".to_string()))
        );
    }

    #[test]
    fn own_and_malformed_notifications_are_ignored() {
        assert_eq!(change_from_notification(OTHER, "b"), None);
        for payload in [
            "",
            "not json",
            "null",
            "[]",
            r#"{"origin":"b"}"#,
            r#"{"origin":"b","kind":"exploded","id":"x"}"#,
            r#"{"origin":"b","kind":"settled","id":7}"#,
        ] {
            assert_eq!(change_from_notification(payload, "a"), None, "{payload}");
        }
    }
}
