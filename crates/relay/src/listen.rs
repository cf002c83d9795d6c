//! The PostgreSQL LISTEN link, its own component: it hears the other replicas' changes on
//! [`EVENTS_CHANNEL`] and hands them to the service, which reads the changed records and
//! announces them on this replica. A store knows nothing of it, and it knows nothing of streams.
//!
//! Two tasks: one only receives (it never waits on the database, so notifications never queue
//! in the connection), the other takes everything received so far and has it read in one query
//! per batch, in the order heard.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use sqlx::postgres::PgListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::events::{Event, EventKind};
use crate::metrics::Metrics;
use crate::service::Elicitations;
use crate::store::postgres::EVENTS_CHANNEL;

/// The wait before rebuilding a lost listener, doubling up to the maximum.
const RELISTEN_FIRST_DELAY: Duration = Duration::from_millis(100);
const RELISTEN_MAX_DELAY: Duration = Duration::from_secs(5);
/// The most changes read in one query.
const MAX_BATCH: usize = 256;

/// Whether a LISTEN link is connected right now: false from the moment it is lost until a new
/// connection listens again. Cheap to clone: clones share one state.
#[derive(Debug, Clone, Default)]
pub struct LinkState(Arc<AtomicBool>);

impl LinkState {
    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    fn set(&self, up: bool) {
        self.0.store(up, Ordering::Release);
    }
}

/// A running LISTEN link (its two tasks); dropping it stops them.
#[derive(Debug)]
pub struct Listening {
    receiving: JoinHandle<()>,
    announcing: JoinHandle<()>,
    link: LinkState,
}

impl Listening {
    /// Connects to `url`, listens, and only then returns, so nothing announced after this is
    /// missed. Notifications from `origin` (this replica) are skipped: it announced those itself.
    pub async fn start(
        url: &str,
        origin: &str,
        elicitations: Elicitations,
        metrics: Option<Metrics>,
    ) -> Result<Listening, sqlx::Error> {
        let listener = new_listener(url).await?;
        let link = LinkState::default();
        link.set(true);
        let (heard, to_announce) = mpsc::unbounded_channel();
        let receiving = tokio::spawn(receive_notifications(
            listener,
            Link {
                url: url.to_string(),
                origin: origin.to_string(),
                state: link.clone(),
            },
            heard,
            elicitations.clone(),
        ));
        let announcing = tokio::spawn(announce_heard(to_announce, elicitations, metrics));
        Ok(Listening {
            receiving,
            announcing,
            link,
        })
    }

    /// Whether the tasks still run (they only end when dropped), connected or not.
    pub fn is_running(&self) -> bool {
        !self.receiving.is_finished() && !self.announcing.is_finished()
    }

    /// Whether the link is connected and listening now.
    pub fn is_connected(&self) -> bool {
        self.is_running() && self.link.is_up()
    }

    /// The link's state, to watch from elsewhere.
    pub fn link(&self) -> LinkState {
        self.link.clone()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.receiving.abort();
        self.announcing.abort();
    }
}

/// What the receiving task needs besides the service.
struct Link {
    url: String,
    origin: String,
    state: LinkState,
}

async fn new_listener(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    // Report a lost connection at once, rather than after reconnecting (which waits for the
    // server to come back): the link must read as down while it is.
    listener.eager_reconnect(false);
    listener.listen(EVENTS_CHANNEL).await?;
    Ok(listener)
}

/// Receives notifications and passes on each change of another replica, until the announcing
/// task is gone. While the connection is lost the link is down and the service resyncs
/// (streams end, and new ones are refused: changes made meanwhile are not heard) until a fresh
/// listener, rebuilt with a doubling delay, listens. Long-polls re-read the row every second,
/// so they never depend on the link.
async fn receive_notifications(
    mut listener: PgListener,
    link: Link,
    heard: mpsc::UnboundedSender<(EventKind, String)>,
    elicitations: Elicitations,
) {
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                let change = change_from_notification(notification.payload(), &link.origin);
                if change.is_some_and(|change| heard.send(change).is_err()) {
                    return;
                }
            }
            Ok(None) | Err(_) => {
                link.state.set(false);
                tracing::warn!(
                    "the LISTEN link to PostgreSQL is down; ending streams until it is back"
                );
                elicitations.resync();
                listener = relisten(&link.url).await;
                link.state.set(true);
                tracing::info!("the LISTEN link to PostgreSQL is back");
            }
        }
    }
}

/// Has every change received so far read in one query (up to [`MAX_BATCH`]) and announced, in
/// the order heard.
async fn announce_heard(
    mut to_announce: mpsc::UnboundedReceiver<(EventKind, String)>,
    elicitations: Elicitations,
    metrics: Option<Metrics>,
) {
    let mut changes = Vec::with_capacity(MAX_BATCH);
    while to_announce.recv_many(&mut changes, MAX_BATCH).await > 0 {
        match elicitations.heard(&changes).await {
            Ok(events) => {
                if let Some(metrics) = &metrics {
                    let now = elicitations.now_ms();
                    for changed_at in events.iter().filter_map(changed_at) {
                        metrics.observe_notify_lag(now.saturating_sub(changed_at));
                    }
                }
            }
            Err(error) => {
                tracing::error!(%error, "reading changed records failed");
                elicitations.resync();
            }
        }
        changes.clear();
    }
}

fn changed_at(event: &Event) -> Option<i64> {
    match event.kind {
        EventKind::Created => Some(event.record.created_at),
        EventKind::Settled | EventKind::Expired | EventKind::Withdrawn => event.record.finished_at,
        EventKind::Complete | EventKind::Escalated => None,
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
