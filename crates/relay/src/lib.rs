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

/// Renders each change once for this replica's streams and long-polls.
pub mod announcer;
/// The HTTP API: routes, handlers, and the JSON views they answer with.
pub mod api;
/// The tamper-evident audit trail: its entries and their hash chain.
pub mod audit;
/// Audit checkpoints: a hash over every chain's head, kept and logged periodically.
pub mod audit_checkpoint;
/// `audit verify`: the chains of a database, recomputed.
pub mod audit_verify;
/// Who is calling: the service token or a person's JWT.
pub mod auth;
/// Canonical JSON and SHA-256 digests.
pub mod canonical;
/// Flags and environment variables.
pub mod config;
/// What the outboxes share to send: the worker loop and the outbound HTTP client.
pub mod delivery;
/// The JSON error every failure answers with.
pub mod error;
/// What changed: stores return events; sinks hear them.
pub mod events;
/// The HTTP/1.1 server under the router.
pub mod http;
/// In-process fan-out of rendered events to streams and long-polls, with the stream caps.
pub mod hub;
/// An identity provider's public keys (JWKS) for people's tokens.
pub mod jwks;
/// The PostgreSQL LISTEN link that hears the other replicas' changes.
pub mod listen;
/// Log lines (JSON or text) on stderr.
pub mod logging;
/// Prometheus metrics.
pub mod metrics;
/// Web Push: the VAPID key, the push services the relay sends to, and what a push opens.
pub mod push;
/// What an elicitation is as the relay keeps it, and the scope a token admits.
pub mod record;
/// Deleting finished elicitations past `--retention`.
pub mod retention;
/// A running relay: store, service, HTTP server, background jobs.
pub mod server;
/// The elicitation lifecycle between the routes and the stores, and the background jobs.
pub mod service;
/// Small stores by job over SQLite or PostgreSQL, each statement written once.
pub mod store;
/// Signed webhooks (Standard Webhooks) through a durable outbox.
pub mod webhooks;

pub use config::Config;
pub use server::{open_store, outboxes, serve, serve_with_store, ServeError, Server};
