//! One log line and one histogram sample per request: method, route template (never the raw path
//! or its query, which may hold a stream ticket), status, time to the response head, and a request
//! id, taken from `x-request-id` when it is sane and made otherwise, and echoed in the response.
//! Whatever a handler logs is inside the request's span, so it carries the id too.

use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tokio::time::Instant;
use tracing::Instrument;

use crate::metrics::Metrics;

/// The request id header, read and echoed.
pub const REQUEST_ID_HEADER: &str = "x-request-id";
/// The longest request id taken from a request; longer ones are replaced.
pub const MAX_REQUEST_ID_BYTES: usize = 128;
/// What a request that matched no route is logged as.
const UNMATCHED_ROUTE: &str = "unmatched";
/// Routes polled all day by probes and scrapers: logged only when they fail.
const QUIET_ROUTES: &[&str] = &["/livez", "/readyz", "/metrics"];

/// The middleware.
pub async fn log_requests(
    State(metrics): State<Metrics>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let request_id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|id| is_sane_request_id(id))
        .map_or_else(new_request_id, str::to_string);
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or(UNMATCHED_ROUTE, MatchedPath::as_str)
        .to_string();
    let method = request.method().clone();
    let span = tracing::info_span!("request", request_id = %request_id);
    let mut response = next.run(request).instrument(span).await;
    let took = started.elapsed();
    metrics.observe_request(method.as_str(), &route, took);
    let status = response.status();
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    if !(status.is_success() && QUIET_ROUTES.contains(&route.as_str())) {
        tracing::info!(
            request_id = %request_id,
            method = %method,
            route = %route,
            status = status.as_u16(),
            latency_ms = (took.as_secs_f64() * 1_000_000.0).round() / 1_000.0,
            "request"
        );
    }
    response
}

/// 1 to [`MAX_REQUEST_ID_BYTES`] visible ASCII characters (no spaces, no control characters).
pub fn is_sane_request_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_REQUEST_ID_BYTES && id.bytes().all(|b| b.is_ascii_graphic())
}

/// A fresh request id: 32 random hex characters, or a process-wide counter when the system
/// gives no randomness (an id must never fail a request).
fn new_request_id() -> String {
    static FALLBACK: AtomicU64 = AtomicU64::new(0);
    koder_elicitation_relay_protocol::random_id()
        .unwrap_or_else(|_| format!("local-{}", FALLBACK.fetch_add(1, Ordering::Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bounded_visible_ascii_ids_are_taken() {
        assert!(is_sane_request_id("abc-123_XYZ.9"));
        assert!(is_sane_request_id(&"a".repeat(MAX_REQUEST_ID_BYTES)));
        for insane in [
            String::new(),
            "a".repeat(MAX_REQUEST_ID_BYTES + 1),
            "with space".into(),
            "line\nbreak".into(),
            "ünïcode".into(),
            "tab\t".into(),
        ] {
            assert!(!is_sane_request_id(&insane), "{insane:?}");
        }
        assert_eq!(new_request_id().len(), 32);
    }
}
