//! One delivery attempt: the signed POST to the configured URL. Nothing in a request or an
//! answer can point it elsewhere: the URL is fixed at start, and the client
//! ([`crate::channels::http::client`]) follows no redirect and reads an answer only up to a
//! small cap.

use super::WebhookSecret;
use crate::channels::http::{describe, drain};

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
        .map_err(describe)?;
    let status = response.status();
    drain(response).await;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("answered {}", status.as_u16()))
    }
}
