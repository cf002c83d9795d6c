//! In-process fan-out of rendered events: to the streams of one person (by user and workspace)
//! and to the long-polls waiting on one id. Every message is rendered once per replica before it
//! gets here; the hub knows no store. It also counts open streams and refuses past the caps.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{broadcast, Notify};

use crate::audience::HubKey;
use crate::record::{Record, Status, TenantFilter};
use crate::views::Outgoing;

/// How many messages a stream may fall behind before it is ended (its client reconnects and
/// gets the pending ones replayed). Small: each person's channel holds this many slots.
pub const STREAM_BACKLOG: usize = 64;
/// Open streams one person (user and workspace) may hold on one replica by default.
pub const DEFAULT_MAX_STREAMS_PER_PERSON: usize = 16;
/// Open streams one replica holds by default.
pub const DEFAULT_MAX_STREAMS: usize = 10_000;
/// People's channels are spread over this many locks, so that connecting, publishing and
/// disconnecting for one person never waits on everybody else.
const SHARDS: usize = 16;

/// How many streams may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    /// Per person (user and workspace) on this replica.
    pub per_person: usize,
    /// On this replica in all.
    pub per_replica: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            per_person: DEFAULT_MAX_STREAMS_PER_PERSON,
            per_replica: DEFAULT_MAX_STREAMS,
        }
    }
}

/// Why a stream was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// This person holds as many streams as allowed.
    PersonFull,
    /// This replica holds as many streams as allowed.
    ReplicaFull,
}

/// The relay's event switchboard. Cheap to clone: clones share one switchboard.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    limits: StreamLimits,
    hasher: RandomState,
    shards: [Mutex<HashMap<HubKey, Channel>>; SHARDS],
    waiters: Mutex<HashMap<String, Arc<Slot>>>,
    open_streams: AtomicUsize,
}

/// What the long-polls on one id wait for: the next event, and the record once it ended.
#[derive(Debug, Default)]
struct Slot {
    notify: Notify,
    ended: Mutex<Option<Arc<Record>>>,
}

/// One person's channel and how many of their streams are open.
#[derive(Debug)]
struct Channel {
    sender: broadcast::Sender<Arc<Outgoing>>,
    streams: usize,
}

impl Hub {
    /// A switchboard that allows `limits` open streams.
    pub fn new(limits: StreamLimits) -> Hub {
        Hub {
            inner: Arc::new(Inner {
                limits,
                hasher: RandomState::new(),
                shards: std::array::from_fn(|_| Mutex::new(HashMap::new())),
                waiters: Mutex::new(HashMap::new()),
                open_streams: AtomicUsize::new(0),
            }),
        }
    }

    /// Opens a stream for an authenticated person (their channel: every conversation of theirs;
    /// streams filter further), or says why not. The count drops when the subscription does.
    pub fn subscribe(&self, person: &TenantFilter) -> Result<Subscription, Refusal> {
        let key = HubKey::of(person);
        let mut shard = self.shard(&key);
        let streams = shard.get(&key).map_or(0, |channel| channel.streams);
        if streams >= self.inner.limits.per_person {
            return Err(Refusal::PersonFull);
        }
        self.inner
            .open_streams
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.inner.limits.per_replica).then_some(open + 1)
            })
            .map_err(|_| Refusal::ReplicaFull)?;
        let receiver = join(&mut shard, &key);
        drop(shard);
        // Team questions in the person's workspace come on its team channel.
        let team_key = HubKey::team_of(person);
        let team_receiver = join(&mut self.shard(&team_key), &team_key);
        Ok(Subscription {
            hub: self.clone(),
            key,
            receiver,
            team_key,
            team_receiver,
        })
    }

    /// Delivers a rendered message to the streams of those who may answer it, and wakes the
    /// long-polls on `record`'s id (with or without a message: some changes are for long-polls
    /// only), handing them the record when it ended, so they need not read it again.
    pub fn publish(&self, record: &Arc<Record>, message: Option<Outgoing>) {
        if let Some(message) = message {
            let message = Arc::new(message);
            for key in message.audience.hub_keys() {
                let shard = self.shard(&key);
                if let Some(channel) = shard.get(&key) {
                    // No receiver is fine: nobody of theirs listens on this replica now.
                    let _ = channel.sender.send(Arc::clone(&message));
                }
            }
        }
        if let Some(slot) = self.waiters().get(&record.id) {
            if record.status != Status::Pending {
                *lock(&slot.ended) = Some(Arc::clone(record));
            }
            slot.notify.notify_waiters();
        }
    }

    /// A waiter woken by the next event for `id`. Take it before reading the row, then await
    /// it, so an event between the read and the wait is not missed.
    pub fn waiter(&self, id: &str) -> Waiter {
        let slot = Arc::clone(self.waiters().entry(id.to_string()).or_default());
        Waiter {
            hub: self.clone(),
            id: id.to_string(),
            slot,
        }
    }

    /// Ends every open stream, so that each person reconnects and has the pending ones replayed.
    /// For when events may have been missed: this replica's link to the others was down.
    pub fn end_streams(&self) {
        for shard in &self.inner.shards {
            let mut shard = lock(shard);
            for channel in shard.values_mut() {
                // Dropping the old sender closes every receiver of it.
                channel.sender = broadcast::channel(STREAM_BACKLOG).0;
            }
        }
    }

    /// Streams open on this replica.
    pub fn open_streams(&self) -> usize {
        self.inner.open_streams.load(Ordering::Acquire)
    }

    /// People with open streams, and ids with waiting long-polls (for tests and the bench).
    pub fn sizes(&self) -> (usize, usize) {
        let people = self
            .inner
            .shards
            .iter()
            .map(|shard| lock(shard).len())
            .sum();
        (people, self.waiters().len())
    }

    fn shard(&self, key: &HubKey) -> MutexGuard<'_, HashMap<HubKey, Channel>> {
        let index = usize::try_from(self.inner.hasher.hash_one(key) % SHARDS as u64).unwrap_or(0);
        // `index < SHARDS` always; the first shard only keeps the no-panic floor.
        let [first, ..] = &self.inner.shards;
        lock(self.inner.shards.get(index).unwrap_or(first))
    }

    fn waiters(&self) -> MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        lock(&self.inner.waiters)
    }

    fn unsubscribe(&self, keys: [&HubKey; 2]) {
        for key in keys {
            let mut shard = self.shard(key);
            if let Some(channel) = shard.get_mut(key) {
                channel.streams = channel.streams.saturating_sub(1);
                if channel.streams == 0 {
                    shard.remove(key);
                }
            }
        }
        self.inner.open_streams.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One more stream on the channel `key` (made now if it is the first).
fn join(shard: &mut HashMap<HubKey, Channel>, key: &HubKey) -> broadcast::Receiver<Arc<Outgoing>> {
    let channel = shard.entry(key.clone()).or_insert_with(|| Channel {
        sender: broadcast::channel(STREAM_BACKLOG).0,
        streams: 0,
    });
    channel.streams += 1;
    channel.sender.subscribe()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One open stream's feed; dropping it closes the stream's place in the counts.
#[derive(Debug)]
pub struct Subscription {
    hub: Hub,
    key: HubKey,
    receiver: broadcast::Receiver<Arc<Outgoing>>,
    /// The workspace's team channel: every team question's changes there (each stream keeps
    /// those its token is admitted to).
    team_key: HubKey,
    team_receiver: broadcast::Receiver<Arc<Outgoing>>,
}

impl Subscription {
    /// The next message, the person's own or their workspace's team's; `Lagged` when the
    /// stream fell too far behind, `Closed` when the hub ended it.
    pub async fn recv(&mut self) -> Result<Arc<Outgoing>, broadcast::error::RecvError> {
        tokio::select! {
            own = self.receiver.recv() => own,
            team = self.team_receiver.recv() => team,
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.unsubscribe([&self.key, &self.team_key]);
    }
}

/// A long-poll's wake-up for one id; dropping the last waiter of an id forgets it.
#[derive(Debug)]
pub struct Waiter {
    hub: Hub,
    id: String,
    slot: Arc<Slot>,
}

impl Waiter {
    /// Resolves on the next event for the id published after this waiter was made.
    pub fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.slot.notify.notified()
    }

    /// The record as it ended, once an event published after this waiter was made says so.
    pub fn ended(&self) -> Option<Arc<Record>> {
        lock(&self.slot.ended).clone()
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut waiters = self.hub.waiters();
        // Two references left: the map's and ours. Then nobody else waits on this id.
        if Arc::strong_count(&self.slot) <= 2 {
            waiters.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audience::Audience;
    use crate::record::Tenant;

    fn tenant(user: &str) -> Tenant {
        Tenant {
            user_id: user.into(),
            workspace_id: "w".into(),
            conversation_id: String::new(),
        }
    }

    fn person(user: &str) -> TenantFilter {
        TenantFilter::new(user, "w")
    }

    fn record(id: &str, status: Status) -> Arc<Record> {
        Arc::new(Record::example(id, status, serde_json::json!({})))
    }

    fn message(user: &str) -> Outgoing {
        Outgoing {
            audience: Audience::of(&tenant(user)),
            name: "complete",
            data: "{}".into(),
        }
    }

    #[tokio::test]
    async fn a_person_hears_their_own_messages_only() {
        let hub = Hub::new(StreamLimits::default());
        let mut ana = hub.subscribe(&person("ana")).unwrap();
        let mut bob = hub.subscribe(&person("bob")).unwrap();
        hub.publish(&record("x", Status::Pending), Some(message("ana")));
        assert!(ana.recv().await.unwrap().audience.admits(&person("ana")));
        assert!(bob.receiver.try_recv().is_err());
    }

    #[tokio::test]
    async fn long_polls_are_woken_and_handed_the_record_once_it_ended() {
        let hub = Hub::new(StreamLimits::default());
        let waiter = hub.waiter("x");
        {
            let woken = waiter.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            hub.publish(&record("x", Status::Pending), None);
            woken.await;
        }
        assert!(waiter.ended().is_none(), "still pending");
        hub.publish(&record("y", Status::Settled), None);
        assert!(waiter.ended().is_none(), "another id");
        hub.publish(&record("x", Status::Settled), None);
        assert_eq!(
            waiter.ended().map(|ended| ended.status),
            Some(Status::Settled)
        );
        drop(waiter);
        assert_eq!(hub.sizes().1, 0, "the last waiter's slot is gone");
    }

    #[test]
    fn the_caps_refuse_and_closing_frees_a_place() {
        let hub = Hub::new(StreamLimits {
            per_person: 2,
            per_replica: 3,
        });
        let first = hub.subscribe(&person("ana")).unwrap();
        let _second = hub.subscribe(&person("ana")).unwrap();
        assert_eq!(
            hub.subscribe(&person("ana")).unwrap_err(),
            Refusal::PersonFull
        );
        let _bob = hub.subscribe(&person("bob")).unwrap();
        assert_eq!(
            hub.subscribe(&person("cy")).unwrap_err(),
            Refusal::ReplicaFull
        );
        assert_eq!(hub.open_streams(), 3);
        drop(first);
        assert_eq!(hub.open_streams(), 2);
        assert!(hub.subscribe(&person("ana")).is_ok());
    }

    #[tokio::test]
    async fn ending_streams_closes_them_and_keeps_the_counts() {
        let hub = Hub::new(StreamLimits::default());
        let mut ana = hub.subscribe(&person("ana")).unwrap();
        hub.end_streams();
        assert!(matches!(
            ana.recv().await,
            Err(broadcast::error::RecvError::Closed)
        ));
        assert_eq!(hub.open_streams(), 1);
        drop(ana);
        assert_eq!(hub.open_streams(), 0);
        assert_eq!(hub.sizes(), (0, 0));
    }
}
