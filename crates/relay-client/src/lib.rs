//! The host side of koder-elicitation-relay in Rust. [`RelayClient`] posts an elicitation for a
//! person, waits (long-polling) for their answer and withdraws it when the caller gives up; with
//! the `rmcp` feature, `RelayElicitationHandler` is an rmcp `ClientHandler` whose
//! `create_elicitation` goes through the relay. [`wire`] is the relay's wire contract (the
//! `koder-elicitation-relay-protocol` crate), the same types the relay parses and renders with.
//! Neither axum nor sqlx is a dependency.
//!
//! TLS: without the `rustls` feature the client speaks plain HTTP (a relay next to the host, or
//! behind a TLS proxy), or uses a `reqwest::Client` of the caller's
//! ([`RelayClient::with_http_client`]). With it, [`http_client`] carries its own rustls
//! configuration. No call installs a process-wide crypto provider, except
//! `install_default_crypto_provider()` (`rustls` feature), for an application that wants one.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use koder_elicitation_relay_client::{RelayClient, Scope};
//! let relay = RelayClient::new("http://127.0.0.1:8790", "service-token")?;
//! let request = serde_json::json!({
//!     "message": "Proceed?",
//!     "requestedSchema": { "type": "object", "properties": {} }
//! });
//! let scope = Scope::new("user-1", "workspace-1");
//! let answer = relay.elicit(&scope, request, std::future::pending()).await?;
//! # let _ = answer; Ok(()) }
//! ```

#![deny(missing_docs, missing_debug_implementations)]

mod client;
mod error;
#[cfg(feature = "rmcp")]
mod handler;
#[cfg(feature = "rustls")]
mod tls;

pub use client::{http_client, ElicitOptions, Outcome, RelayClient};
pub use error::RelayClientError;
#[cfg(feature = "rmcp")]
pub use handler::RelayElicitationHandler;
/// What the relay and its clients share: the clock, the id maker, the JSON bodies.
pub use koder_elicitation_relay_protocol as wire;
#[cfg(feature = "rustls")]
pub use tls::install_default_crypto_provider;
pub use wire::{Created, Scope};
