//! The announcer: renders each change once and hands it to this replica's hub, for this
//! replica's own changes and for those the LISTEN link hears from the others. The service calls
//! it; it sits between the events and the hub.

use std::sync::{Arc, OnceLock};

use tokio::sync::Notify;

use crate::events::{Event, EventSink};
use crate::hub::Hub;
use crate::store::Clock;
use crate::views::rendered;

/// Renders each change once and hands it to the hub.
#[derive(Debug, Clone)]
pub struct Announcer {
    hub: Hub,
    /// The store's clock, which a new one's time left is told by.
    clock: Clock,
    /// Wakes the outbox workers: a change's rows are in their outboxes.
    outboxes: OutboxWakes,
}

/// What wakes the outbox workers (those that are on), given once they are made: they are made
/// after the services the announcer serves, which they use (answer links).
#[derive(Debug, Clone, Default)]
pub struct OutboxWakes(Arc<OnceLock<Vec<Arc<Notify>>>>);

impl OutboxWakes {
    /// Hands over the workers' wakes; only the first call counts (there is one set of workers).
    pub fn set(&self, wakes: Vec<Arc<Notify>>) {
        let _ = self.0.set(wakes);
    }

    /// Wakes every worker (none before [`set`](Self::set)).
    fn wake(&self) {
        for worker in self.0.get().into_iter().flatten() {
            worker.notify_one();
        }
    }
}

impl Announcer {
    /// An announcer for `hub`, rendering by `clock`, waking the `outboxes` workers on every
    /// change.
    pub fn new(hub: Hub, clock: Clock, outboxes: OutboxWakes) -> Announcer {
        Announcer {
            hub,
            clock,
            outboxes,
        }
    }
}

impl EventSink for Announcer {
    fn deliver(&self, event: &Event) {
        self.hub
            .publish(&event.record, rendered(event, self.clock.now_ms()));
        self.outboxes.wake();
    }

    fn resync(&self) {
        self.hub.end_streams();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn workers_given_later_are_woken_by_every_announcement_after() {
        let wakes = OutboxWakes::default();
        // Before the workers exist, a wake reaches nobody and does not fail.
        wakes.wake();
        let (first, second) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        wakes
            .clone()
            .set(vec![Arc::clone(&first), Arc::clone(&second)]);
        wakes.wake();
        // `notify_one` leaves a permit, so each worker's next wait returns at once.
        tokio::time::timeout(std::time::Duration::from_secs(1), async {
            first.notified().await;
            second.notified().await;
        })
        .await
        .expect("both workers woken");
    }
}
