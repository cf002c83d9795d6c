//! The announcer: renders each change once and hands it to this replica's hub, for this
//! replica's own changes and for those the LISTEN link hears from the others. The service calls
//! it; it sits between the events and the hub.

use std::sync::Arc;

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
    /// Wakes the outbox workers (webhooks, pushes: those that are on): a change's rows are in
    /// their outboxes.
    outboxes: Vec<Arc<Notify>>,
}

impl Announcer {
    /// An announcer for `hub`, rendering by `clock`, waking the `outboxes` workers on every
    /// change.
    pub fn new(hub: Hub, clock: Clock, outboxes: Vec<Arc<Notify>>) -> Announcer {
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
        for worker in &self.outboxes {
            worker.notify_one();
        }
    }

    fn resync(&self) {
        self.hub.end_streams();
    }
}
