//! What every handler reaches.

use std::sync::Arc;

use axum::extract::FromRef;
use koder_mcp_elicitation_core::i18n::Catalog;
use tokio::sync::watch;

use crate::auth::Auth;
use crate::hub::Hub;
use crate::listen::LinkState;
use crate::metrics::Metrics;
use crate::push::PushSettings;
use crate::service::Elicitations;
use crate::store::Store;

/// What every handler reaches.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The stores (tickets, the audit trail, health); elicitations go through the service.
    pub store: Arc<Store>,
    /// The elicitation lifecycle: every change, announced on this replica.
    pub elicitations: Elicitations,
    /// This replica's streams and long-polls.
    pub hub: Hub,
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
    /// Web Push, when the relay has a VAPID key; `None`: the push routes answer 404.
    pub push: Option<Arc<PushSettings>>,
}

impl AppState {
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

/// Milliseconds since the Unix epoch (the one clock function both sides of the wire share).
pub use koder_elicitation_relay_protocol::now_ms;
