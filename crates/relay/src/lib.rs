//! koder-elicitation-relay: carries MCP elicitations from hosts that run on servers to the right
//! person's browser, scoped per tenant, settled exactly once, on SQLite or on PostgreSQL shared
//! by several replicas. Every request and every answer is checked by the same core as the web
//! element and the terminal.

#![deny(missing_docs, missing_debug_implementations)]

pub mod api;
pub mod audit;
pub mod audit_checkpoint;
pub mod audit_verify;
pub mod auth;
pub mod canonical;
pub mod cli;
pub mod config;
pub mod delivery;
pub mod error;
pub mod events;
pub mod http;
pub mod hub;
pub mod jwks;
pub mod listen;
pub mod logging;
pub mod metrics;
pub mod push;
pub mod record;
pub mod retention;
pub mod server;
pub mod service;
pub mod store;
pub mod tls;
pub mod views;
pub mod webhooks;

pub use config::Config;
pub use server::{serve, serve_with_store, ServeError, Server};
