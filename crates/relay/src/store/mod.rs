//! Where elicitations live: one trait, two implementations (SQLite in one process, PostgreSQL
//! shared by replicas). Every state change is conditional on the row still being `pending`, so
//! exactly one writer wins, and the winner gets the change back as an [`Event`] to announce.
//! Stores know nothing of who listens.

use std::fmt::Debug;

use async_trait::async_trait;
use serde_json::Value;

use crate::audit::AuditEntry;
use crate::audit_checkpoint::Checkpoint;
use crate::events::Event;
use crate::webhooks::outbox::{Delivery, Outcome};

/// The single-process store on one SQLite file.
pub mod sqlite;

/// Row reading and create results both stores share.
mod rows;

/// The one clock of a deployment (the database's, on PostgreSQL).
pub mod clock;

/// The store several replicas share, on PostgreSQL (LISTEN/NOTIFY between them).
pub mod postgres;

/// The schema, versioned: sqlx migrations per backend, and adopting an unversioned database.
mod migrations;

/// Who made a change, and what every change writes in its own transaction.
pub mod journal;

/// One-use stream tickets (for `EventSource`), kept by digest.
pub mod tickets;

pub use crate::record::Actor;
pub use crate::record::{NewElicitation, Record, Status, Tenant, TenantFilter};
pub use clock::Clock;
pub use tickets::{NewTicket, RedeemedTicket, MAX_LIVE_TICKETS};

/// A storage failure. Handlers answer 500 "storage unavailable" and log the detail.
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "storage error: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        StoreError(error.to_string())
    }
}

/// What a create came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Created {
    /// A new pending elicitation, to announce.
    New(Event),
    /// The idempotency key was used before in this tenant with the same request: the first
    /// record, stored nothing.
    Existing(Box<Record>),
    /// The idempotency key was used before in this tenant with a different request: stored
    /// nothing, and the first record is not the answer.
    KeyReused,
}

impl Created {
    /// The record the host is answered with; `None` for a reused key.
    pub fn record(&self) -> Option<&Record> {
        match self {
            Created::New(event) => Some(&event.record),
            Created::Existing(record) => Some(record),
            Created::KeyReused => None,
        }
    }
}

/// The one seam between the relay and its database.
#[async_trait]
pub trait Store: Send + Sync + Debug + 'static {
    /// Stores a new pending elicitation. With an idempotency key already used in the same tenant
    /// (user, workspace, conversation), stores nothing and returns the first record when the
    /// request digests match, [`Created::KeyReused`] when they differ. Other tenants' keys are
    /// never looked at. A new one is stored and journalled (made by `actor`) in one transaction.
    async fn create(&self, new: NewElicitation, actor: &Actor) -> Result<Created, StoreError>;

    /// The elicitation with this id, whoever it belongs to (callers check scope).
    async fn get(&self, id: &str) -> Result<Option<Record>, StoreError>;

    /// The pending elicitations this filter admits, oldest first.
    async fn pending(&self, filter: &TenantFilter) -> Result<Vec<Record>, StoreError>;

    /// Moves a pending elicitation to `status` with `result`, journalled as made by `actor`, in
    /// one transaction. The change when this call won; `None` when it was no longer pending
    /// (another writer won).
    async fn finish(
        &self,
        id: &str,
        status: Status,
        result: &Value,
        now_ms: i64,
        actor: &Actor,
    ) -> Result<Option<Event>, StoreError>;

    /// Marks URL-mode completion, journalled as made by `actor`, in one transaction: the change,
    /// or `None` when unknown or already marked.
    async fn complete(&self, id: &str, actor: &Actor) -> Result<Option<Event>, StoreError>;

    /// Expires every pending elicitation due at `now_ms` (result `{"action":"cancel"}`), oldest
    /// first, journalled as made by [`Actor::Relay`], in one transaction.
    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError>;

    /// Deletes up to `batch` finished elicitations (settled, expired, withdrawn) that finished
    /// at or before `finished_by_ms`; returns how many. Pending ones are never deleted, nor
    /// audit entries. A deleted one is unknown from then on, and its idempotency key free.
    async fn purge_finished(&self, finished_by_ms: i64, batch: i64) -> Result<u64, StoreError>;

    /// The audit entries after `after`, oldest first, at most `limit`.
    async fn audit(&self, after: i64, limit: i64) -> Result<Vec<AuditEntry>, StoreError>;

    /// The deployment's clock: every stored time and every "is it due?" is read from it.
    fn clock(&self) -> &Clock;

    /// Milliseconds since the Unix epoch by [`Self::clock`].
    fn now_ms(&self) -> i64 {
        self.clock().now_ms()
    }

    /// Measures the clock again against the database (PostgreSQL); nothing to do when the
    /// process clock is the deployment's (SQLite).
    async fn sync_clock(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Keeps a stream ticket unless its person already holds `max_live` live ones (`false`
    /// then). Replicas racing may pass the cap by a few; it bounds abuse, not exact counts.
    async fn issue_ticket(
        &self,
        ticket: &NewTicket,
        max_live: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Deletes the live ticket with this digest and returns what it grants, in one statement,
    /// so a ticket works exactly once; `None` for an unknown, expired or used one.
    async fn redeem_ticket(
        &self,
        digest: &str,
        now_ms: i64,
    ) -> Result<Option<RedeemedTicket>, StoreError>;

    /// Deletes the tickets expired at `now_ms`; returns how many.
    async fn purge_tickets(&self, now_ms: i64) -> Result<u64, StoreError>;

    /// Webhook outbox: leases up to `limit` due deliveries for `lease_ms` and counts their
    /// attempt. Each row goes to one caller, across replicas too.
    async fn claim_webhooks(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// Webhook outbox: keeps what each attempt of a batch came to (delivery id, outcome), in
    /// one transaction.
    async fn record_webhook_attempts(
        &self,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError>;

    /// Webhook outbox: deletes up to `limit` rows delivered before `before_ms` (retention);
    /// returns how many. Rows given up on are kept.
    async fn purge_delivered_webhooks(&self, before_ms: i64, limit: i64)
        -> Result<u64, StoreError>;
    /// Runs the cheapest query there is (`SELECT 1`): whether the database answers (readiness).
    async fn ping(&self) -> Result<(), StoreError>;

    /// How many elicitations are pending, every tenant's (metrics).
    async fn count_pending(&self) -> Result<i64, StoreError>;

    /// Audit: keeps a checkpoint of every chain's head now, made at `now_ms` (unless one at the
    /// same point is kept already); the latest checkpoint, `None` while the trail is empty.
    async fn write_audit_checkpoint(&self, now_ms: i64) -> Result<Option<Checkpoint>, StoreError>;

    /// Audit: the latest checkpoint kept.
    async fn latest_audit_checkpoint(&self) -> Result<Option<Checkpoint>, StoreError>;
}
