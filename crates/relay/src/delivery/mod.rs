//! What both outboxes (webhooks and Web Push) share to send their rows: the worker loop that
//! claims due rows in batches, sends them and keeps what came of it, the jitter of its retries,
//! and the outbound HTTP client with its answer and error handling.

/// The worker loop every outbox runs.
pub mod worker;

/// The outbound HTTP client: its own TLS, no redirects, a per-attempt timeout.
pub mod http;
