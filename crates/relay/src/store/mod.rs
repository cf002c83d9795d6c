//! Where elicitations live: small stores by job (elicitations, tickets, the audit trail, the
//! webhook and push outboxes, health) over one database, SQLite in one process or PostgreSQL shared by
//! replicas. Each statement is written once for both dialects wherever they agree; only NOTIFY,
//! `SKIP LOCKED` and how changes are committed differ. Stores know nothing of who listens.

/// The database of either dialect, and running one text on both.
pub(crate) mod db;

/// Every change to an elicitation, with its audit entry, webhook row and push rows, written once.
mod changes;

/// What a change writes beside itself, and binding values to statements.
mod beside;

/// The elicitations.
pub mod elicitations;

/// One-use stream tickets (for `EventSource`), kept by digest.
pub mod tickets;

/// The audit trail's pages.
pub mod audit;

/// The audit trail read-only, for `audit verify`.
pub mod audit_reader;

/// The webhook outbox.
pub mod outbox;

/// The push outbox.
pub mod push_outbox;

/// The e-mail outbox.
pub mod email_outbox;

/// Web Push subscriptions.
pub mod subscriptions;

/// Answer links, kept by their token's digest.
pub mod links;

/// Readiness and the clock measured against the database.
pub mod health;

/// Row reading both dialects share.
mod rows;

/// The one clock of a deployment (the database's, on PostgreSQL).
pub mod clock;

/// SQLite: opening the file, and the group committer of its one writer.
pub mod sqlite;

/// PostgreSQL: connecting, and the channel replicas hear each other's changes on.
pub mod postgres;

/// The schema, versioned: sqlx migrations per backend, and adopting an unversioned database.
mod migrations;

/// Who made a change, and what every change writes in its own transaction.
pub mod journal;

/// Database URLs: their dialect, and their text without a password.
pub mod url;

pub use crate::record::Actor;
pub use crate::record::{EmailNotice, NewElicitation, Record, Status, Tenant, TenantFilter};
pub use audit::AuditStore;
pub use audit_reader::AuditReader;
pub use clock::Clock;
pub use elicitations::ElicitationStore;
pub use email_outbox::{EmailOutboxStore, EmailQueue};
pub use health::Health;
pub use links::{LinkRow, LinkStore, NewLink};
pub use outbox::{OutboxStore, WebhookRows};
pub use push_outbox::{PushOutboxStore, PushQueue};
pub use subscriptions::{PushSubscriptionRow, Subscribed, SubscriptionStore};
pub use tickets::{NewTicket, RedeemedTicket, TicketStore, MAX_LIVE_TICKETS};
pub use url::{redact_database, DatabaseKind};

use std::sync::Arc;

use tokio::sync::Notify;

use crate::events::Event;
use changes::ChangeContext;
use db::Database;
use elicitations::Committer;

/// A storage failure. Handlers answer 500 "storage unavailable" and log the detail.
#[derive(Debug, Clone, thiserror::Error)]
#[error("storage error: {0}")]
pub struct StoreError(pub String);

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

impl Outboxes {
    /// Whether both queue the same: webhooks on or off alike, the same pushes and e-mails.
    pub fn agree(&self, other: &Outboxes) -> bool {
        self.webhooks.is_some() == other.webhooks.is_some()
            && self.push == other.push
            && self.email == other.email
    }
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

/// What every change queues besides itself, in its own transaction.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outboxes {
    /// The webhook row of an event, when webhooks are on.
    pub webhooks: Option<WebhookRows>,
    /// Which pushes an event queues, when Web Push is on.
    pub push: Option<PushQueue>,
    /// When a create's e-mail is due, when e-mail is on.
    pub email: Option<EmailQueue>,
}

/// Every store of one database.
#[derive(Debug, Clone)]
pub struct Store {
    /// The elicitations and their changes.
    pub elicitations: ElicitationStore,
    /// Stream tickets.
    pub tickets: TicketStore,
    /// The audit trail.
    pub audit: AuditStore,
    /// The webhook outbox.
    pub outbox: OutboxStore,
    /// The push outbox.
    pub push_outbox: PushOutboxStore,
    /// The e-mail outbox.
    pub email_outbox: EmailOutboxStore,
    /// Web Push subscriptions.
    pub subscriptions: SubscriptionStore,
    /// Answer links.
    pub links: LinkStore,
    /// Readiness and the clock.
    pub health: Health,
    /// On PostgreSQL, this replica's random id in the notifications it sends: its LISTEN link
    /// skips its own.
    origin: Option<String>,
    outboxes: Outboxes,
}

impl Store {
    /// Opens the database `url` names: SQLite (`sqlite://PATH`, created when missing, or
    /// `sqlite::memory:`), or PostgreSQL (`postgres://…`), which other replicas may share, its
    /// clock measured. Every change also queues what `outboxes` ask for, in the change's own
    /// transaction. The error names the database without its password.
    pub async fn open(url: &str, outboxes: Outboxes) -> Result<Store, StoreError> {
        let kind = DatabaseKind::named(url, "database URL").map_err(StoreError)?;
        let opened = match kind {
            DatabaseKind::Sqlite => sqlite::open(url)
                .await
                .map(|db| Store::of(db, outboxes, None)),
            DatabaseKind::Postgres => Store::postgres(url, outboxes).await,
        };
        opened.map_err(|error| StoreError(format!("{} ({})", error.0, redact_database(url))))
    }

    async fn postgres(url: &str, outboxes: Outboxes) -> Result<Store, StoreError> {
        let database = postgres::connect(url).await?;
        let origin = koder_elicitation_relay_protocol::random_id()
            .map_err(|error| StoreError(format!("no randomness for the replica id: {error}")))?;
        let store = Store::of(database, outboxes, Some(origin));
        store.health.sync_clock().await?;
        Ok(store)
    }

    fn of(database: Database, outboxes: Outboxes, origin: Option<String>) -> Store {
        let clock = Clock::default();
        let recorded = Arc::new(Notify::new());
        let context = ChangeContext {
            origin: origin.clone().unwrap_or_default(),
            clock: clock.clone(),
            webhook_rows: outboxes.webhooks,
            push: outboxes.push,
            email: outboxes.email,
            recorded: recorded.clone(),
        };
        let committer = match &database {
            Database::Sqlite { writer, .. } => {
                Committer::Sqlite(sqlite::GroupCommit::start(writer.clone(), context))
            }
            Database::Postgres(pool) => Committer::Postgres {
                pool: pool.clone(),
                context,
            },
        };
        Store {
            elicitations: ElicitationStore {
                database: database.clone(),
                committer,
            },
            tickets: TicketStore {
                database: database.clone(),
            },
            audit: AuditStore {
                database: database.clone(),
                recorded,
            },
            outbox: OutboxStore {
                database: database.clone(),
            },
            push_outbox: PushOutboxStore {
                database: database.clone(),
            },
            email_outbox: EmailOutboxStore {
                database: database.clone(),
            },
            subscriptions: SubscriptionStore {
                database: database.clone(),
            },
            links: LinkStore {
                database: database.clone(),
            },
            health: Health { database, clock },
            origin,
            outboxes,
        }
    }

    /// What every change queues besides itself: fixed when the store is opened.
    pub fn outboxes(&self) -> Outboxes {
        self.outboxes
    }

    /// This replica's id in the notifications it sends, on a database replicas share
    /// (PostgreSQL); `None` on SQLite.
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// The deployment's clock.
    pub fn clock(&self) -> &Clock {
        self.health.clock()
    }

    /// Milliseconds since the Unix epoch by the deployment's clock.
    pub fn now_ms(&self) -> i64 {
        self.health.clock().now_ms()
    }
}
