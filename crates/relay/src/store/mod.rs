//! Where elicitations live: small stores by job (elicitations, tickets, the audit trail, the
//! channels' outboxes, health) over one database, SQLite in one process or PostgreSQL shared by
//! replicas. Each statement is written once for both dialects wherever they agree; only NOTIFY,
//! `SKIP LOCKED` and how changes are committed differ. Stores know nothing of who listens.

/// The database of either dialect, and running one text on both.
pub(crate) mod db;

/// Every change to an elicitation, with its audit entry and each channel's rows, written once.
mod changes;

/// What a change writes beside itself, and binding values to statements.
pub mod beside;

/// The elicitations.
pub mod elicitations;

/// One-use stream tickets (for `EventSource`), kept by digest.
pub mod tickets;

/// The audit trail's pages.
pub mod audit;

/// The audit trail read-only, for `audit verify`.
pub mod audit_reader;

/// The outboxes: one table per channel, run by the same statements.
pub mod outbox;

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

/// A question's reminder come due: what the channels queue for it, if still open.
pub mod timers;

/// Database URLs: their dialect, and their text without a password.
pub mod url;

pub use crate::record::Actor;
pub use crate::record::{NewElicitation, Record, Status, Tenant, TenantFilter};
pub use audit::AuditStore;
pub use audit_reader::AuditReader;
pub use clock::Clock;
pub use elicitations::ElicitationStore;
pub use health::Health;
pub use links::{LinkRow, LinkStore, NewLink};
pub use outbox::{Outbox, OutboxChannel, OutboxTable, Outboxes, Queue, Queued, Reminded};
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

/// Every store of one database.
#[derive(Debug, Clone)]
pub struct Store {
    /// The elicitations and their changes.
    pub elicitations: ElicitationStore,
    /// Stream tickets.
    pub tickets: TicketStore,
    /// The audit trail.
    pub audit: AuditStore,
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
    database: Database,
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
            outboxes: outboxes.clone(),
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
            subscriptions: SubscriptionStore {
                database: database.clone(),
            },
            links: LinkStore {
                database: database.clone(),
            },
            health: Health {
                database: database.clone(),
                clock,
            },
            database,
            origin,
            outboxes,
        }
    }

    /// What every change queues besides itself: fixed when the store is opened.
    pub fn outboxes(&self) -> &Outboxes {
        &self.outboxes
    }

    /// The outbox kept in `table` (a channel's).
    pub fn outbox(&self, table: &'static OutboxTable) -> Outbox {
        Outbox::new(self.database.clone(), table)
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
