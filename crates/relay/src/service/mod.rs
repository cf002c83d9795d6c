//! The service between the routes and the stores, the only door the routes have: the
//! elicitation lifecycle (each change one transaction, then one announce and one metrics
//! update), stream tickets, answer links, what operators read, and the jobs that run beside the
//! requests (expiry, retention, ticket purge, clock sync, audit checkpoints). It knows no HTTP:
//! a call fails with a [`ServiceError`] (or, when only its store can fail it, the
//! [`StoreError`](crate::store::StoreError) that [`ServiceError::Store`] holds), and the API
//! words each once.

pub mod announcer;
pub mod elicitations;
pub mod error;
pub mod links;
pub mod operators;
pub mod pending;
pub mod sweeper;
pub mod tickets;

pub use announcer::{Announcer, OutboxWakes};
pub use elicitations::{Changed, Elicitations};
pub use error::{Missing, ServiceError};
pub use links::Links;
pub use operators::{Audit, Health};
pub use tickets::Tickets;
