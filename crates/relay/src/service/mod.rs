//! The service between the routes and the stores: the elicitation lifecycle (each change one
//! transaction, then one announce and one metrics update) and the jobs that run beside the
//! requests (expiry, retention, ticket purge, clock sync, audit checkpoints).

/// Create, answer, withdraw, complete, expire: every change to an elicitation.
pub mod elicitations;

/// The pending elicitations this replica last heard of, so a change needs no read.
pub mod pending;

/// The background jobs, each on its own timer.
pub mod sweeper;

pub use elicitations::{Changed, Elicitations};
