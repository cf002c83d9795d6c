//! What every handler reaches.

use std::sync::Arc;

use axum::extract::FromRef;
use koder_mcp_elicitation_core::i18n::Catalog;
use tokio::sync::watch;

use crate::auth::Auth;
use crate::channels::push::PushSubscriptions;
use crate::channels::NotifyChecks;
use crate::hub::Hub;
use crate::listen::LinkState;
use crate::metrics::Metrics;
use crate::service::{Audit, Elicitations, Health, Links, Tickets};

/// What every handler reaches: the services, and this replica's own parts.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The elicitation lifecycle: every change, announced on this replica, and waiting for ends.
    pub elicitations: Elicitations,
    /// Stream tickets.
    pub tickets: Tickets,
    /// What the channels accept of a create's `notify` (an e-mail: to the allowed domains).
    pub notify: NotifyChecks,
    /// Web Push subscriptions, when the relay has a VAPID key; `None`: the push routes answer
    /// 404.
    pub push: Option<PushSubscriptions>,
    /// Answer links, when the answer page is on; `None`: the page and the links' routes
    /// answer 404.
    pub links: Option<Links>,
    /// The audit trail.
    pub audit: Audit,
    /// Whether the database answers.
    pub health: Health,
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
