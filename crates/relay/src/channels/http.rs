//! The client outbound attempts go through (webhooks, pushes), and what an answer or a failure
//! is reduced to. Nothing in an answer can point a request elsewhere: redirects are not
//! followed, and an answer is read only up to a small cap, then dropped.

use std::time::Duration;

/// How long one attempt may take, connection included.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of an answer is read (so the connection can be reused); the rest is dropped.
const MAX_ANSWER_BYTES: usize = 16 * 1024;
/// How much of an error is kept in an outbox's `last_error`.
const MAX_ERROR_CHARS: usize = 200;

/// A client with its own rustls configuration (ring, the platform's roots: nothing
/// process-wide is installed), no redirects and a per-attempt timeout. `purpose` names what it
/// is for in an error (`--webhook-url`, `Web Push`).
pub fn client(purpose: &str) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .tls_backend_preconfigured(crate::tls::client_config(purpose)?)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(ATTEMPT_TIMEOUT)
        .user_agent(concat!(
            "koder-elicitation-relay/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .map_err(|error| format!("cannot set up the HTTP client for {purpose}: {error}"))
}

/// Reads up to [`MAX_ANSWER_BYTES`] of an answer and drops it.
pub async fn drain(mut response: reqwest::Response) {
    let mut read = 0;
    while read < MAX_ANSWER_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            _ => break,
        }
    }
}

/// What kind of failure a send was, short, without the URL reqwest's errors include (it may
/// hold a receiver's token).
pub fn describe(error: reqwest::Error) -> String {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_redirect() {
        "redirected"
    } else if error.is_body() || error.is_decode() {
        "broke off"
    } else {
        "failed"
    };
    let error = error.without_url();
    let text = match std::error::Error::source(&error) {
        Some(cause) => format!("{what}: {error}: {cause}"),
        None => format!("{what}: {error}"),
    };
    text.chars().take(MAX_ERROR_CHARS).collect()
}
