//! Where elicitations live: one trait, two implementations (SQLite in one process, PostgreSQL
//! shared by replicas). Every state change is conditional on the row still being `pending`, so
//! exactly one writer wins, and the winner gets the change back as an [`Event`] to announce.
//! Stores know nothing of who listens.

use std::fmt::Debug;

use async_trait::async_trait;
use serde_json::Value;

use crate::events::Event;

/// The single-process store on one SQLite file.
pub mod sqlite;

/// Row reading and create results both stores share.
mod rows;

/// The store several replicas share, on PostgreSQL (LISTEN/NOTIFY between them).
pub mod postgres;

pub use crate::record::{NewElicitation, Record, Status, Tenant, TenantFilter};

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
    /// The idempotency key was used before: the first record, stored nothing.
    Existing(Box<Record>),
}

impl Created {
    /// The record the host is answered with.
    pub fn record(&self) -> &Record {
        match self {
            Created::New(event) => &event.record,
            Created::Existing(record) => record,
        }
    }
}

/// The one seam between the relay and its database.
#[async_trait]
pub trait Store: Send + Sync + Debug + 'static {
    /// Stores a new pending elicitation. With an idempotency key already used, stores nothing
    /// and returns the first record.
    async fn create(&self, new: NewElicitation) -> Result<Created, StoreError>;

    /// The elicitation with this id, whoever it belongs to (callers check scope).
    async fn get(&self, id: &str) -> Result<Option<Record>, StoreError>;

    /// The pending elicitations this filter admits, oldest first.
    async fn pending(&self, filter: &TenantFilter) -> Result<Vec<Record>, StoreError>;

    /// Moves a pending elicitation to `status` with `result`. The change when this call won;
    /// `None` when it was no longer pending (another writer won).
    async fn finish(
        &self,
        id: &str,
        status: Status,
        result: &Value,
        now_ms: i64,
    ) -> Result<Option<Event>, StoreError>;

    /// Marks URL-mode completion: the change, or `None` when unknown or already marked.
    async fn complete(&self, id: &str) -> Result<Option<Event>, StoreError>;

    /// Expires every pending elicitation due at `now_ms` (result `{"action":"cancel"}`), oldest
    /// first.
    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Event>, StoreError>;
}
