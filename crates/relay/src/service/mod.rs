//! The service between the routes and the stores, the only door the routes have: the
//! elicitation lifecycle (each change one transaction, then one announce and one metrics
//! update), stream tickets, answer links, what operators read, and the jobs that run
//! beside the requests (expiry, retention, ticket purge, clock sync, audit checkpoints).

pub mod announcer;
pub mod elicitations;
pub mod links;
pub mod operators;
pub mod pending;
pub mod sweeper;
pub mod tickets;

pub use announcer::Announcer;
pub use elicitations::{Changed, Elicitations};
pub use links::Links;
pub use operators::{Audit, Health};
pub use tickets::Tickets;
