//! The service between the routes and the stores, the only door the routes have: the
//! elicitation lifecycle (each change one transaction, then one announce and one metrics
//! update), stream tickets, push subscriptions, what operators read, and the jobs that run
//! beside the requests (expiry, retention, ticket purge, clock sync, audit checkpoints).

/// Renders each change once for this replica's hub.
pub mod announcer;

/// Create, answer, withdraw, complete, expire, wait for an end: every change to an elicitation.
pub mod elicitations;

/// The audit trail and the database's health, as operators read them.
pub mod operators;

/// The pending elicitations this replica last heard of, so a change needs no read.
pub mod pending;

/// People's Web Push subscriptions.
pub mod subscriptions;

/// The background jobs, each on its own timer.
pub mod sweeper;

/// One-use stream tickets.
pub mod tickets;

pub use announcer::Announcer;
pub use elicitations::{Changed, Elicitations};
pub use operators::{Audit, Health};
pub use subscriptions::PushSubscriptions;
pub use tickets::Tickets;
