//! The elicitation lifecycle. Every change is one conditional store call (committed with its
//! audit record, its webhook row and its push rows), so exactly one writer wins, here, in the
//! sweeper or on another replica; the winner announces it once and counts it once. A loser
//! reads the row again to say how it ended. Reads expire what is due, so nobody is shown one
//! whose time is up. Where a read is served from (memory or the store) is decided here.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use koder_elicitation_relay_protocol::AnsweredBy;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::events::{Event, EventKind, EventSink};
use crate::hub::Hub;
use crate::metrics::Metrics;
use crate::service::pending::PendingCache;
use crate::store::{
    Actor, Created, NewElicitation, Record, Status, Store, StoreError, TenantFilter,
};

/// The longest wait for an end (a longer one is clamped).
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// A waiting long-poll re-reads the row at least this often, so a lost wake-up only delays it.
const REREAD_INTERVAL: Duration = Duration::from_secs(1);

/// Runs a change to its end even when its caller stops waiting (a request dropped while its
/// change waits for the writer): a change once made must also be announced.
async fn detached<T: Send + 'static>(
    change: impl Future<Output = Result<T, StoreError>> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::spawn(change)
        .await
        .map_err(|error| StoreError(format!("a change stopped: {error}")))?
}

/// What a change came to: made by this call, or already made (by another writer, or before).
#[derive(Debug, Clone, PartialEq)]
pub enum Changed {
    /// This call changed it: the record as it left it.
    ByThisCall(Record),
    /// It was not this call's to change: the record as it is now.
    Already(Record),
}

impl Changed {
    /// The record either way.
    pub fn record(&self) -> &Record {
        match self {
            Changed::ByThisCall(record) | Changed::Already(record) => record,
        }
    }
}

/// The lifecycle over a store, announcing to this replica's sink, counting in its metrics and
/// waiting for ends on its hub.
#[derive(Debug, Clone)]
pub struct Elicitations {
    store: Arc<Store>,
    sink: Arc<dyn EventSink>,
    metrics: Metrics,
    hub: Hub,
    pending: Arc<PendingCache>,
}

/// The result an elicitation ends with when nobody answered it.
fn cancel() -> Value {
    json!({"action": "cancel"})
}

/// Whether an id could be one of ours (32 lowercase hex characters); anything else is unknown
/// without a database read.
pub fn is_well_formed_id(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

impl Elicitations {
    /// The lifecycle over `store`, telling `sink` of every change, counting into `metrics`, and
    /// woken by `hub` (which the sink publishes to) while a long-poll waits.
    pub fn new(
        store: Arc<Store>,
        sink: Arc<dyn EventSink>,
        metrics: Metrics,
        hub: Hub,
    ) -> Elicitations {
        Elicitations {
            store,
            sink,
            metrics,
            hub,
            pending: Arc::default(),
        }
    }

    /// Milliseconds since the Unix epoch by the deployment's clock.
    pub fn now_ms(&self) -> i64 {
        self.store.now_ms()
    }

    /// Stores a new pending elicitation (idempotent by its key, see
    /// [`ElicitationStore::create`](crate::store::ElicitationStore::create)) and announces it
    /// when it is new.
    pub async fn create(&self, new: NewElicitation) -> Result<Created, StoreError> {
        let this = self.clone();
        detached(async move {
            let created = this.store.elicitations.create(new, &Actor::Host).await?;
            if let Created::New(event) = &created {
                this.announce(event);
            }
            Ok(created)
        })
        .await
    }

    /// The elicitation with this id, expired first if its time is up; `None` when unknown.
    pub async fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        if !is_well_formed_id(id) {
            return Ok(None);
        }
        let Some(record) = self.store.elicitations.get(id).await? else {
            return Ok(None);
        };
        // Over already, or still open: as it is; pending with its time up: expired now.
        if record.status != Status::Pending || record.is_open(self.now_ms()) {
            return Ok(Some(record));
        }
        let expired = self
            .finish(record, Status::Expired, &cancel(), &Actor::Relay, None)
            .await?;
        Ok(Some(expired.record().clone()))
    }

    /// The elicitation with this id to change (answer, withdraw, complete) or to wait on: as
    /// this replica last heard of it, the pending record kept in memory when there is one and
    /// its time is not up, else as [`get`](Self::get). A change is conditional on the row being
    /// pending, and a long-poll is woken by the end, so a record another replica ended
    /// meanwhile only costs the read made then.
    pub async fn to_change(&self, id: &str) -> Result<Option<Record>, StoreError> {
        match self.pending.get(id) {
            Some(record) if record.is_open(self.now_ms()) => Ok(Some((*record).clone())),
            _ => self.get(id).await,
        }
    }

    /// The elicitation with this id once it is over, or as it is when `wait` (at most
    /// [`MAX_WAIT`]) has passed or `stopping` turns true; `None` when unknown. Woken by this
    /// replica's hub, which hands over the record an end left. While it waits, a look may be
    /// from memory (a pending one waits on, and its end wakes it); the store is read at once
    /// when it does not wait, on the timer (a lost wake-up only delays) and at the deadline.
    pub async fn result(
        &self,
        id: &str,
        wait: Duration,
        mut stopping: watch::Receiver<bool>,
    ) -> Result<Option<Record>, StoreError> {
        let deadline = Instant::now() + wait.min(MAX_WAIT);
        let waiter = self.hub.waiter(id);
        let mut from_store = wait.is_zero();
        loop {
            // Armed before the read: an event between the read and the select still wakes us.
            let notified = waiter.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(ended) = waiter.ended() {
                return Ok(Some((*ended).clone()));
            }
            let looked = if from_store {
                self.get(id).await?
            } else {
                self.to_change(id).await?
            };
            let Some(record) = looked else {
                return Ok(None);
            };
            if record.status != Status::Pending || Instant::now() >= deadline {
                return Ok(Some(record));
            }
            from_store = tokio::select! {
                () = &mut notified => false,
                () = tokio::time::sleep(REREAD_INTERVAL) => true,
                () = tokio::time::sleep_until(deadline) => true,
                _ = stopping.wait_for(|stopping| *stopping) => return Ok(Some(record)),
            };
        }
    }

    /// The pending elicitations whose audience admits `person`, oldest first, without those
    /// whose time is up (the sweeper expires them).
    pub async fn pending(&self, person: &TenantFilter) -> Result<Vec<Record>, StoreError> {
        let now = self.now_ms();
        let mut pending = self.store.elicitations.pending(person).await?;
        pending.retain(|record| record.is_open(now));
        Ok(pending)
    }

    /// Settles `record` with a person's `result`, made by `actor` (the person by their token's
    /// `sub`, or whoever held an answer link), who is kept as `answered_by`.
    pub async fn answer(
        &self,
        record: Record,
        result: &Value,
        actor: &Actor,
        answered_by: AnsweredBy,
    ) -> Result<Changed, StoreError> {
        self.finish(record, Status::Settled, result, actor, Some(answered_by))
            .await
    }

    /// Moves the team question `id` to escalation stage `stage` (1 to 3) as one change: only
    /// while it is pending at `stage - 1` (so each stage once, across replicas and restarts,
    /// and none after it ended), with its audit entry (made by the relay) and what each
    /// channel queues for an [`EventKind::Escalated`] event (pushes to the members it newly
    /// admits; a channel's queue sees the stage as the event's `record.escalated` and the
    /// stage's `notify` in its `record.team`). Announced once: the newly admitted members'
    /// streams get it as a new question. The event when this call made the change, else
    /// `None` (unknown, one person's, no such stage, already reached, or over).
    pub async fn escalate(&self, id: &str, stage: i64) -> Result<Option<Event>, StoreError> {
        let Some(record) = self.get(id).await? else {
            return Ok(None);
        };
        let stages = record.team.as_ref().map_or(0, |team| team.escalate.len());
        let known = usize::try_from(stage).is_ok_and(|stage| (1..=stages).contains(&stage));
        if !known || record.status != Status::Pending || record.escalated >= stage {
            return Ok(None);
        }
        let this = self.clone();
        detached(async move {
            let now = this.now_ms();
            let event = this
                .store
                .elicitations
                .escalate(&record, stage, now, &Actor::Relay)
                .await?;
            Ok(this.announced(event))
        })
        .await
    }

    /// Withdraws `record` for its host.
    pub async fn withdraw(&self, record: Record) -> Result<Changed, StoreError> {
        self.finish(record, Status::Withdrawn, &cancel(), &Actor::Host, None)
            .await
    }

    /// Marks URL-mode completion of `record` for its host.
    pub async fn complete(&self, record: Record) -> Result<Changed, StoreError> {
        if record.completed {
            return Ok(Changed::Already(record));
        }
        let (this, before) = (self.clone(), record.clone());
        let event = detached(async move {
            let event = this
                .store
                .elicitations
                .complete(&before, &Actor::Host)
                .await?;
            Ok(this.announced(event))
        })
        .await?;
        self.settle(record, event).await
    }

    /// Expires every pending one that is due; returns how many.
    pub async fn expire_due(&self) -> Result<usize, StoreError> {
        let expired = self.store.elicitations.expire_due(self.now_ms()).await?;
        for event in &expired {
            self.announce(event);
        }
        Ok(expired.len())
    }

    /// Other replicas made `changes` (each a kind and an id, in the order heard): reads their
    /// records in one query and tells this replica's sink of each, in that order (not the
    /// metrics: the replica that made a change counted it). The events; one whose record is
    /// gone already (purged) has none.
    pub async fn heard(&self, changes: &[(EventKind, String)]) -> Result<Vec<Event>, StoreError> {
        let ids: Vec<&str> = changes.iter().map(|(_, id)| id.as_str()).collect();
        let records: HashMap<String, Record> = self
            .store
            .elicitations
            .get_many(&ids)
            .await?
            .into_iter()
            .map(|record| (record.id.clone(), record))
            .collect();
        let events: Vec<Event> = changes
            .iter()
            .filter_map(|(kind, id)| Some(Event::new(*kind, records.get(id)?.clone())))
            .collect();
        for event in &events {
            self.pending.note(&event.record);
            self.sink.deliver(event);
        }
        Ok(events)
    }

    /// Changes may have been missed: what this replica kept in memory is forgotten, and
    /// everyone listening on it starts over.
    pub fn resync(&self) {
        self.pending.clear();
        self.sink.resync();
    }

    /// Moves a pending `record` to `status`, unless it is over already.
    async fn finish(
        &self,
        record: Record,
        status: Status,
        result: &Value,
        actor: &Actor,
        answered_by: Option<AnsweredBy>,
    ) -> Result<Changed, StoreError> {
        if record.status != Status::Pending {
            return Ok(Changed::Already(record));
        }
        let (this, before, result, actor) =
            (self.clone(), record.clone(), result.clone(), actor.clone());
        let event = detached(async move {
            let now = this.now_ms();
            let elicitations = &this.store.elicitations;
            let event = elicitations
                .finish(&before, status, &result, now, &actor, answered_by)
                .await?;
            Ok(this.announced(event))
        })
        .await?;
        self.settle(record, event).await
    }

    /// What a conditional change came to: the change when this call won; else the row as it
    /// is now (another writer won).
    async fn settle(&self, record: Record, event: Option<Event>) -> Result<Changed, StoreError> {
        match event {
            Some(event) => Ok(Changed::ByThisCall((*event.record).clone())),
            None => Ok(Changed::Already(
                self.store
                    .elicitations
                    .get(&record.id)
                    .await?
                    .unwrap_or(record),
            )),
        }
    }

    /// Announces the change this call won, if it did.
    fn announced(&self, event: Option<Event>) -> Option<Event> {
        if let Some(event) = &event {
            self.announce(event);
        }
        event
    }

    /// One announce and one metrics update per change this replica made.
    fn announce(&self, event: &Event) {
        self.pending.note(&event.record);
        self.metrics.count_change(event);
        self.sink.deliver(event);
    }
}
