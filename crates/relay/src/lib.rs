//! koder-elicitation-relay: carries MCP elicitations from hosts that run on servers to the right
//! person's browser, scoped per tenant, settled exactly once, on SQLite or on PostgreSQL shared
//! by several replicas. Every request and every answer is checked by the same core as the web
//! element and the terminal.

// Untrusted input must end in a clear error, never a panic: a panic drops people's work.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]
#![deny(missing_docs, missing_debug_implementations)]

/// In-process fan-out of store events to streams and long-polls.
pub mod hub;
/// The storage seam: one trait, SQLite and PostgreSQL behind it.
pub mod store;
