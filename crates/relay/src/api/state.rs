//! What every handler reaches, and how a change is announced on this replica.

use std::sync::Arc;

use axum::extract::FromRef;
use koder_mcp_elicitation_core::i18n::Catalog;
use tokio::sync::{watch, Notify};

use super::views::rendered;
use crate::auth::Auth;
use crate::events::{Event, EventSink};
use crate::hub::Hub;
use crate::listen::LinkState;
use crate::metrics::Metrics;
use crate::store::{Clock, Store};

/// What every handler reaches.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Where elicitations live.
    pub store: Arc<dyn Store>,
    /// This replica's streams and long-polls.
    pub hub: Hub,
    /// Renders this replica's own changes for `hub` (the same sink the LISTEN link and the
    /// sweeper deliver to).
    pub announcer: Announcer,
    /// Token checks.
    pub auth: Arc<Auth>,
    /// The relay's own messages (the shipped languages), owned here rather than shared with
    /// anything else in the process: a person's 422 errors come in their language.
    pub messages: Arc<Catalog>,
    /// Flips to `true` when the server starts draining (it is stopping): streams end with a
    /// `retry:` hint, long-polls answer at once, new streams are refused, `/readyz` says 503.
    pub shutdown: watch::Receiver<bool>,
    /// This replica's metrics.
    pub metrics: Metrics,
    /// On PostgreSQL, the LISTEN link's state: while it is down, streams are refused.
    pub link: Option<LinkState>,
}

impl AppState {
    /// Tells this replica's streams and long-polls of a change this replica made.
    pub fn announce(&self, event: &Event) {
        self.metrics.count_change(event);
        self.announcer.deliver(event);
    }

    /// Whether the server is draining.
    pub fn is_draining(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// Whether this replica has a LISTEN link and it is down (it would miss other replicas'
    /// changes).
    pub fn link_is_down(&self) -> bool {
        self.link.as_ref().is_some_and(|link| !link.is_up())
    }
}

impl FromRef<AppState> for Arc<Auth> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.auth)
    }
}

/// Renders each change once and hands it to the hub: the sink for this replica's own changes
/// and for those the LISTEN link hears from the others.
#[derive(Debug, Clone)]
pub struct Announcer {
    hub: Hub,
    /// The store's clock, which a new one's time left is told by.
    clock: Clock,
    /// Wakes the webhook worker (when webhooks are on): a change's webhook is in the outbox.
    webhooks: Option<Arc<Notify>>,
}

impl Announcer {
    /// An announcer for `hub`, rendering by `clock`.
    pub fn new(hub: Hub, clock: Clock) -> Announcer {
        Announcer {
            hub,
            clock,
            webhooks: None,
        }
    }

    /// The same, also waking the webhook worker on every change.
    pub fn waking(mut self, webhooks: Arc<Notify>) -> Announcer {
        self.webhooks = Some(webhooks);
        self
    }
}

impl EventSink for Announcer {
    fn deliver(&self, event: &Event) {
        self.hub
            .publish(event.id(), rendered(event, self.clock.now_ms()));
        if let Some(webhooks) = &self.webhooks {
            webhooks.notify_one();
        }
    }

    fn resync(&self) {
        self.hub.end_streams();
    }
}

/// Milliseconds since the Unix epoch (the one clock function both sides of the wire share).
pub use koder_elicitation_relay_protocol::now_ms;
