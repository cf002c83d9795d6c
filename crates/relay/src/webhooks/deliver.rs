//! One delivery attempt: the signed POST to the configured URL. Nothing in a request or an
//! answer can point it elsewhere: the URL is fixed at start, redirects are not followed, and the
//! receiver's answer is read only up to a small cap, then dropped.

use std::sync::Arc;
use std::time::Duration;

use super::WebhookSecret;

/// How long one attempt may take, connection included.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a receiver's answer is read (so the connection can be reused); the rest is dropped.
const MAX_ANSWER_BYTES: usize = 16 * 1024;
/// How much of an error is kept in the outbox's `last_error`.
const MAX_ERROR_CHARS: usize = 200;

/// The client every attempt goes through, with its own rustls configuration (ring, the platform's
/// roots), no redirects and a per-attempt timeout.
pub fn client() -> Result<reqwest::Client, String> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| builder.with_platform_verifier())
        .map_err(|error| format!("cannot set up TLS for --webhook-url: {error}"))?
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(ATTEMPT_TIMEOUT)
        .user_agent(concat!(
            "koder-elicitation-relay/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .map_err(|error| format!("cannot set up the HTTP client for --webhook-url: {error}"))
}

/// POSTs `body` as webhook `id`, signed at `timestamp` (Unix seconds). `Ok` on a 2xx answer;
/// otherwise a short reason for `last_error` (a status, or the kind of network failure: never
/// the URL, which may hold a receiver's token).
pub async fn attempt(
    client: &reqwest::Client,
    url: &reqwest::Url,
    secret: &WebhookSecret,
    id: &str,
    timestamp: i64,
    body: &str,
) -> Result<(), String> {
    let response = client
        .post(url.clone())
        .header("content-type", "application/json")
        .header("webhook-id", id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", secret.signature(id, timestamp, body))
        .body(body.to_string())
        .send()
        .await
        .map_err(|error| short(&describe(error)))?;
    let status = response.status();
    drain(response).await;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("answered {}", status.as_u16()))
    }
}

/// Reads up to [`MAX_ANSWER_BYTES`] of an answer and drops it.
async fn drain(mut response: reqwest::Response) {
    let mut read = 0;
    while read < MAX_ANSWER_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            _ => break,
        }
    }
}

/// What kind of failure a send was, without the URL reqwest's errors include.
fn describe(error: reqwest::Error) -> String {
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
    match std::error::Error::source(&error) {
        Some(cause) => format!("{what}: {error}: {cause}"),
        None => format!("{what}: {error}"),
    }
}

fn short(text: &str) -> String {
    text.chars().take(MAX_ERROR_CHARS).collect()
}
