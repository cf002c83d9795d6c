//! URL mode's status polling: GET the status URL until it answers `{"status": "complete"}`,
//! backing off after failures by the core's rule. Runs on its own thread; dropping the poller
//! stops it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use koder_mcp_elicitation_core::policy::PollBackoff;
use serde_json::Value;

use crate::lifecycle::Signals;

/// A running poll; stops when dropped.
pub struct StatusPoller {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl StatusPoller {
    /// Polls `template` with `{id}` replaced by the encoded elicitation id.
    pub fn start(template: &str, elicitation_id: &str, first_ms: f64, signals: Signals) -> Self {
        let url = status_url(template, elicitation_id);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(poll(url, first_ms, signals, stopped));
        });
        StatusPoller {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for StatusPoller {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn poll(url: String, first_ms: f64, signals: Signals, stop: Arc<AtomicBool>) {
    crate::connect::install_tls_provider();
    let client = reqwest::Client::new();
    let mut backoff = PollBackoff::new(Some(first_ms));
    loop {
        // Sleep in short steps so a drop is noticed quickly.
        let mut slept = 0.0;
        while slept < backoff.delay_ms() {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            slept += 50.0;
        }
        let answer = async {
            let response = client
                .get(&url)
                .timeout(Duration::from_secs(10))
                .send()
                .await
                .ok()?;
            if !response.status().is_success() {
                return None;
            }
            let body: Value = serde_json::from_str(&response.text().await.ok()?).ok()?;
            Some(body.get("status").and_then(Value::as_str) == Some("complete"))
        }
        .await;
        match answer {
            Some(true) => {
                signals.complete();
                return;
            }
            Some(false) => {}
            None => backoff.failed(),
        }
    }
}

/// The template with `{id}` replaced as `encodeURIComponent` would, like the element.
pub fn status_url(template: &str, elicitation_id: &str) -> String {
    let mut encoded = String::new();
    for byte in elicitation_id.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    template.replace("{id}", &encoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_encoded_like_encode_uri_component() {
        assert_eq!(
            status_url("https://s.example/status/{id}", "a b/ç?"),
            "https://s.example/status/a%20b%2F%C3%A7%3F"
        );
    }
}
