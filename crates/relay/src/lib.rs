//! koder-elicitation-relay: carries MCP elicitations from hosts that run on servers to the right
//! person's browser, scoped per tenant, settled exactly once, on SQLite or on PostgreSQL shared
//! by several replicas. Every request and every answer is checked by the same core as the web
//! element and the terminal.

#![deny(missing_docs, missing_debug_implementations)]

pub mod answer_page;
pub mod api;
mod audience;
pub mod audit;
mod audit_checkpoint;
pub mod audit_verify;
mod auth;
pub mod canonical;
pub mod channels;
pub mod cli;
pub mod config;
mod error;
pub mod events;
mod given_url;
mod http;
pub mod hub;
pub mod jwks;
pub mod listen;
pub mod logging;
pub mod metrics;
mod record;
mod retention;
pub mod secret;
mod server;
pub mod service;
pub mod store;
mod tap_choices;
pub mod time;
mod tls;
mod views;

pub use config::Config;
pub use server::{serve, serve_with_store, ServeError, Server};
