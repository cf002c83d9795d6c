//! In-process fan-out of store events: to the streams of one person (by user and workspace) and
//! to the long-polls waiting on one id. Channels exist only while someone listens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{broadcast, Notify};

use crate::store::Event;

/// How many events a slow stream may fall behind before it replays pending ones instead.
const STREAM_BACKLOG: usize = 256;

type TenantKey = (String, String);

/// The relay's event switchboard. Cheap to clone: clones share one switchboard.
#[derive(Debug, Clone, Default)]
pub struct Hub {
    inner: Arc<Mutex<Routes>>,
}

#[derive(Debug, Default)]
struct Routes {
    tenants: HashMap<TenantKey, broadcast::Sender<Event>>,
    waiters: HashMap<String, Arc<Notify>>,
}

impl Hub {
    /// Events of one person in one workspace (every conversation; streams filter further).
    pub fn subscribe_tenant(
        &self,
        user_id: &str,
        workspace_id: &str,
    ) -> broadcast::Receiver<Event> {
        let mut routes = self.routes();
        // People who closed every stream leave a channel nobody reads: forget those here, so
        // the map holds only people who listen now.
        routes
            .tenants
            .retain(|_, sender| sender.receiver_count() > 0);
        routes
            .tenants
            .entry((user_id.to_string(), workspace_id.to_string()))
            .or_insert_with(|| broadcast::channel(STREAM_BACKLOG).0)
            .subscribe()
    }

    /// A waiter woken by the next event for `id`. Take it before reading the row, then await
    /// it, so an event between the read and the wait is not missed.
    pub fn waiter(&self, id: &str) -> Waiter {
        let notify = Arc::clone(self.routes().waiters.entry(id.to_string()).or_default());
        Waiter {
            hub: self.clone(),
            id: id.to_string(),
            notify,
        }
    }

    /// Delivers an event to the person's streams and to the long-polls on its id.
    pub fn publish(&self, event: &Event) {
        let mut routes = self.routes();
        let key = (
            event.tenant.user_id.clone(),
            event.tenant.workspace_id.clone(),
        );
        if let Some(sender) = routes.tenants.get(&key) {
            if sender.send(event.clone()).is_err() {
                // Nobody listens any more: forget the channel.
                routes.tenants.remove(&key);
            }
        }
        if let Some(notify) = routes.waiters.get(&event.id) {
            notify.notify_waiters();
        }
    }

    /// Ends every open stream, so that each person reconnects and has the pending ones replayed.
    /// For when events may have been missed: this replica's link to the others was down.
    pub fn end_streams(&self) {
        self.routes().tenants.clear();
    }

    /// Open tenant channels and id waiters (for tests and the load bench).
    pub fn sizes(&self) -> (usize, usize) {
        let routes = self.routes();
        (routes.tenants.len(), routes.waiters.len())
    }

    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A long-poll's wake-up for one id; dropping the last waiter of an id forgets it.
#[derive(Debug)]
pub struct Waiter {
    hub: Hub,
    id: String,
    notify: Arc<Notify>,
}

impl Waiter {
    /// Resolves on the next event for the id published after this waiter was made.
    pub fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.notify.notified()
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut routes = self.hub.routes();
        // Two references left: the map's and ours. Then nobody else waits on this id.
        if Arc::strong_count(&self.notify) <= 2 {
            routes.waiters.remove(&self.id);
        }
    }
}
