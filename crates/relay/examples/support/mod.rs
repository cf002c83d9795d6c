//! What the load generators share: tokens, the relay's memory, and latency summaries.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{EncodingKey, Header};
use serde_json::{json, Map, Value};

pub type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The workspace every bench person is in.
pub const WORKSPACE: &str = "bench";

/// A person's bearer token for `user_id` in [`WORKSPACE`], four hours long, with `extra` claims
/// (a team member's `groups` and `name`).
pub fn mint_token(
    secret: &str,
    user_id: &str,
    extra: Map<String, Value>,
) -> Result<String, Failure> {
    let exp = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs() + 4 * 3600;
    let mut claims = json!({"sub": user_id, "workspace": WORKSPACE, "aud": "koder-elicitation-relay", "exp": exp});
    if let Some(claims) = claims.as_object_mut() {
        claims.extend(extra);
    }
    Ok(jsonwebtoken::encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )?)
}

/// `VmRSS` of a process in bytes, from /proc.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Milliseconds with microsecond resolution.
pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

pub fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// p50 / p95 / p99 / max (nearest rank) of a set of latencies in ms.
pub fn summary(mut values: Vec<f64>) -> Value {
    values.sort_by(f64::total_cmp);
    let rank = |p: f64| {
        let index = ((p * values.len() as f64).ceil() as usize).saturating_sub(1);
        values.get(index).copied().map(round3)
    };
    let mean =
        (!values.is_empty()).then(|| round3(values.iter().sum::<f64>() / values.len() as f64));
    json!({
        "count": values.len(),
        "p50": rank(0.50),
        "p95": rank(0.95),
        "p99": rank(0.99),
        "max": values.last().copied().map(round3),
        "mean": mean,
    })
}

/// Warms a relay's HTTP path before a memory baseline, so the baseline is not a cold process:
/// [`WARM_AT_ONCE`] requests at a time, four times, so its database pool has grown to its size
/// (PostgreSQL: 8 connections, each with its buffers) and that fixed cost is not counted per
/// stream. A client of its own, dropped after: the streams open connections of their own.
pub async fn warm_up(relay: &str, token: &str) -> Result<(), Failure> {
    let client = reqwest::Client::builder().build()?;
    for _ in 0..4 {
        let requests = (0..WARM_AT_ONCE).map(|_| async {
            let response = client
                .get(format!("{relay}/v1/elicitations?status=pending"))
                .bearer_auth(token)
                .send()
                .await?;
            response.bytes().await
        });
        let warmed = futures_util::future::join_all(requests).await;
        warmed.into_iter().collect::<Result<Vec<_>, _>>()?;
    }
    Ok(())
}

/// Requests in flight at once while warming up.
const WARM_AT_ONCE: usize = 16;
