//! Where elicitations live: one trait, two implementations (SQLite in one process, PostgreSQL
//! shared by replicas). Every state change is conditional on the row still being `pending`, so
//! exactly one writer wins, and each implementation publishes the change to the [`Hub`] itself.

use std::fmt::Debug;

use async_trait::async_trait;
use serde_json::Value;

use crate::hub::Hub;

/// The single-process store on one SQLite file.
pub mod sqlite;

/// Row reading and create results both stores share.
mod rows;

/// The store several replicas share, on PostgreSQL (LISTEN/NOTIFY between them).
pub mod postgres;

/// One-use stream tickets (for `EventSource`), kept by digest.
pub mod tickets;

pub use tickets::{NewTicket, RedeemedTicket, MAX_LIVE_TICKETS};

/// Where an elicitation is in its life. `complete` is not a status but a flag ([`Record::completed`]):
/// URL-mode completion may come before or after the person's consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting for the person.
    Pending,
    /// The person answered; the result is stored.
    Settled,
    /// Nobody answered in time; settled as the element's timeout does (`{"action":"cancel"}`).
    Expired,
    /// The host withdrew it (its tool call ended).
    Withdrawn,
}

impl Status {
    /// The name stored in the database and shown in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Settled => "settled",
            Status::Expired => "expired",
            Status::Withdrawn => "withdrawn",
        }
    }

    /// The status a stored name stands for.
    pub fn parse(name: &str) -> Option<Status> {
        [
            Status::Pending,
            Status::Settled,
            Status::Expired,
            Status::Withdrawn,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
    }
}

/// Who an elicitation is for. Made by the host API from a trusted body, and compared with a
/// [`TenantFilter`] that only authentication makes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tenant {
    /// The person (`sub` of their token).
    pub user_id: String,
    /// The workspace (`workspace` of their token).
    pub workspace_id: String,
    /// The conversation; empty when the host gave none.
    pub conversation_id: String,
}

/// What a person's token lets them see: one user in one workspace, and optionally one
/// conversation only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantFilter {
    /// The person.
    pub user_id: String,
    /// Their workspace.
    pub workspace_id: String,
    /// `Some` limits the token to that conversation.
    pub conversation_id: Option<String>,
}

impl TenantFilter {
    /// Whether an elicitation for `tenant` is visible to this token.
    pub fn admits(&self, tenant: &Tenant) -> bool {
        self.user_id == tenant.user_id
            && self.workspace_id == tenant.workspace_id
            && self
                .conversation_id
                .as_ref()
                .is_none_or(|conversation| *conversation == tenant.conversation_id)
    }
}

/// A new elicitation, already checked by the core.
#[derive(Debug, Clone)]
pub struct NewElicitation {
    /// The fresh random id (32 hex characters).
    pub id: String,
    /// Who it is for.
    pub tenant: Tenant,
    /// The request as the host sent it (the element parses it again when showing it).
    pub request: Value,
    /// The MCP server's name, shown in the dialog.
    pub server_name: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at: i64,
    /// When it expires, ms since the Unix epoch.
    pub expires_at: i64,
    /// The host's `Idempotency-Key`: a second create with the same key returns the first record.
    pub idempotency_key: Option<String>,
}

/// One stored elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Its id.
    pub id: String,
    /// Who it is for.
    pub tenant: Tenant,
    /// The request as the host sent it.
    pub request: Value,
    /// The MCP server's name.
    pub server_name: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at: i64,
    /// Expiry time, ms since the Unix epoch.
    pub expires_at: i64,
    /// Where it is in its life.
    pub status: Status,
    /// The `ElicitResult`, once settled, expired or withdrawn.
    pub result: Option<Value>,
    /// When it left `pending`, ms since the Unix epoch.
    pub finished_at: Option<i64>,
    /// Whether the host reported URL-mode completion.
    pub completed: bool,
}

/// What changed, as streams and long-polls hear it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A new pending elicitation.
    Created,
    /// The person answered.
    Settled,
    /// It expired unanswered.
    Expired,
    /// The host withdrew it.
    Withdrawn,
    /// The host reported URL-mode completion.
    Complete,
}

impl EventKind {
    /// The SSE event name (`elicitation` for a new one).
    pub fn event_name(self) -> &'static str {
        match self {
            EventKind::Created => "elicitation",
            EventKind::Settled => "settled",
            EventKind::Expired => "expired",
            EventKind::Withdrawn => "withdrawn",
            EventKind::Complete => "complete",
        }
    }

    /// The kind an event name stands for (used between replicas).
    pub fn parse(name: &str) -> Option<EventKind> {
        [
            EventKind::Created,
            EventKind::Settled,
            EventKind::Expired,
            EventKind::Withdrawn,
            EventKind::Complete,
        ]
        .into_iter()
        .find(|kind| kind.event_name() == name)
    }

    /// The event a finished status publishes.
    pub fn finishing(status: Status) -> Option<EventKind> {
        match status {
            Status::Pending => None,
            Status::Settled => Some(EventKind::Settled),
            Status::Expired => Some(EventKind::Expired),
            Status::Withdrawn => Some(EventKind::Withdrawn),
        }
    }
}

/// One change to one elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// To which elicitation.
    pub id: String,
    /// Whose it is (streams filter on it).
    pub tenant: Tenant,
}

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

/// The one seam between the relay and its database.
#[async_trait]
pub trait Store: Send + Sync + Debug + 'static {
    /// Stores a new pending elicitation and publishes [`EventKind::Created`]. With an
    /// idempotency key already used, stores nothing and returns the first record.
    async fn create(&self, new: NewElicitation) -> Result<Record, StoreError>;

    /// The elicitation with this id, whoever it belongs to (callers check scope).
    async fn get(&self, id: &str) -> Result<Option<Record>, StoreError>;

    /// The pending elicitations this filter admits, oldest first.
    async fn pending(&self, filter: &TenantFilter) -> Result<Vec<Record>, StoreError>;

    /// Moves a pending elicitation to `status` with `result`; `false` when it was no longer
    /// pending (another writer won). Publishes the matching event when it wins.
    async fn finish(
        &self,
        id: &str,
        status: Status,
        result: &Value,
        now_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Marks URL-mode completion; `false` when unknown or already marked. Publishes
    /// [`EventKind::Complete`] when it marks.
    async fn complete(&self, id: &str) -> Result<bool, StoreError>;

    /// Expires every pending elicitation due at `now_ms` (result `{"action":"cancel"}`) and
    /// returns them; publishes [`EventKind::Expired`] for each.
    async fn expire_due(&self, now_ms: i64) -> Result<Vec<Record>, StoreError>;

    /// Where this store publishes its changes.
    fn hub(&self) -> &Hub;

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
}
