//! The relay's Prometheus metrics: one registry per server, its handles cheap to clone. Counters
//! count what this replica did (sum them over replicas); gauges are set when scraped.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::events::{Event, EventKind};
use crate::record::Status;

/// The content type of [`Metrics::render`]'s text (Prometheus reads OpenMetrics).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Labels of a count by outcome (`outcome="accept"`, …).
pub type OutcomeLabels = [(&'static str, &'static str); 1];
/// Labels of a request: its method and its route template (`/v1/elicitations/{id}/result`), never
/// the raw path, so ids do not become series.
pub type RouteLabels = [(&'static str, String); 2];

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// Every metric of one relay.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    streams_open: Gauge<i64, AtomicI64>,
    elicitations_pending: Gauge<i64, AtomicI64>,
    created: Counter,
    settled: Family<OutcomeLabels, Counter>,
    request_duration: HistogramFamily<RouteLabels>,
    notify_lag: Histogram,
    /// Each channel's deliveries, by the channel's name.
    deliveries: Arc<BTreeMap<&'static str, DeliveryMetrics>>,
    links: LinkMetrics,
}

/// An outbox's deliveries by outcome, registered here so the outbox's worker only has to count.
#[derive(Debug, Clone, Default)]
pub struct DeliveryMetrics {
    /// `koder_relay_webhook_deliveries_total{outcome}`,
    /// `koder_relay_push_deliveries_total{outcome}` or
    /// `koder_relay_email_deliveries_total{outcome}`: each attempt by how it ended.
    pub deliveries: Family<OutcomeLabels, Counter>,
}

/// `koder_relay_answer_links_total{outcome}`: links minted, tokens that named a link
/// (`redeemed`) or none (`unknown`: forged, malformed, or its question no longer kept), and
/// answers made through one (`answered`). Counted the same way as deliveries.
pub type LinkMetrics = DeliveryMetrics;

impl DeliveryMetrics {
    /// Counts one attempt that ended as `outcome`.
    pub fn count(&self, outcome: &'static str) {
        self.deliveries.get_or_create(&[("outcome", outcome)]).inc();
    }
}

/// Registers an outbox's deliveries by outcome as `name` (a counter: `name_total`).
fn register_deliveries(
    registry: &mut Registry,
    name: String,
    help: &'static str,
) -> DeliveryMetrics {
    let metrics = DeliveryMetrics::default();
    registry.register(name, help, metrics.deliveries.clone());
    metrics
}

fn request_histogram() -> Histogram {
    // 1 ms to about 65 s: a long-poll waits up to 60 s; a stream counts until its head is sent.
    Histogram::new([
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 65.0,
    ])
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::with_channels(&[])
    }
}

impl Metrics {
    /// A fresh registry with every metric at zero, no channel's among them.
    pub fn new() -> Metrics {
        Metrics::default()
    }

    /// A fresh registry with every metric at zero, a `koder_relay_<name>_deliveries` counter
    /// for each of `channels` (its name, its help) among them.
    pub fn with_channels(channels: &[(&'static str, &'static str)]) -> Metrics {
        let mut registry = Registry::default();
        let streams_open = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "koder_relay_streams_open",
            "Event streams open on this replica",
            streams_open.clone(),
        );
        let elicitations_pending = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "koder_relay_elicitations_pending",
            "Pending elicitations in the database (all replicas), as of the scrape",
            elicitations_pending.clone(),
        );
        let created = Counter::default();
        registry.register(
            "koder_relay_elicitations_created",
            "Elicitations this replica created",
            created.clone(),
        );
        let settled = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "koder_relay_elicitations_settled",
            "Elicitations this replica finished, by outcome: accept, decline, cancel (the \
             person's answer), expired, withdrawn",
            settled.clone(),
        );
        let request_duration: HistogramFamily<RouteLabels> =
            Family::new_with_constructor(request_histogram);
        registry.register(
            "koder_relay_http_request_duration_seconds",
            "Time to the response head, by method and route template",
            request_duration.clone(),
        );
        let notify_lag = Histogram::new([
            0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ]);
        registry.register(
            "koder_relay_notify_lag_seconds",
            "PostgreSQL: from another replica's change (its stored time) to this replica \
             announcing it",
            notify_lag.clone(),
        );
        let deliveries = channels
            .iter()
            .map(|&(channel, help)| {
                let name = format!("koder_relay_{channel}_deliveries");
                (channel, register_deliveries(&mut registry, name, help))
            })
            .collect();
        let links = register_deliveries(
            &mut registry,
            "koder_relay_answer_links".into(),
            "Answer links: minted, redeemed (a token named one), unknown (a token named none), \
             answered (an answer came through one)",
        );
        Metrics {
            registry: Arc::new(registry),
            streams_open,
            elicitations_pending,
            created,
            settled,
            request_duration,
            notify_lag,
            deliveries: Arc::new(deliveries),
            links,
        }
    }

    /// Counts a change this replica made (the LISTEN link's are other replicas').
    pub fn count_change(&self, event: &Event) {
        let outcome = match event.kind {
            EventKind::Created => {
                self.created.inc();
                return;
            }
            EventKind::Complete | EventKind::Escalated => return,
            EventKind::Expired => "expired",
            EventKind::Withdrawn => "withdrawn",
            EventKind::Settled => match event.record.status {
                Status::Settled => match event
                    .record
                    .result
                    .as_ref()
                    .and_then(|result| result.get("action"))
                    .and_then(|action| action.as_str())
                {
                    Some("accept") => "accept",
                    Some("decline") => "decline",
                    _ => "cancel",
                },
                _ => return,
            },
        };
        self.settled.get_or_create(&[("outcome", outcome)]).inc();
    }

    /// Records one request's time to its response head.
    pub fn observe_request(&self, method: &str, route: &str, took: Duration) {
        let method = match method {
            "GET" => "GET",
            "POST" => "POST",
            "DELETE" => "DELETE",
            "OPTIONS" => "OPTIONS",
            "HEAD" => "HEAD",
            _ => "other",
        };
        self.request_duration
            .get_or_create(&[("method", method.to_string()), ("route", route.to_string())])
            .observe(took.as_secs_f64());
    }

    /// Records how long another replica's change took to reach this replica's streams.
    pub fn observe_notify_lag(&self, lag_ms: i64) {
        self.notify_lag.observe(lag_ms.max(0) as f64 / 1000.0);
    }

    /// The deliveries of the channel `name` (counted nowhere if it has no metric here).
    pub fn deliveries(&self, name: &str) -> DeliveryMetrics {
        self.deliveries.get(name).cloned().unwrap_or_default()
    }

    /// The answer links' handles.
    pub fn links(&self) -> &LinkMetrics {
        &self.links
    }

    /// The text exposition, with the gauges set to these values first. `pending` is `None` when
    /// the database did not answer (the gauge keeps its last value).
    pub fn render(&self, streams_open: usize, pending: Option<i64>) -> String {
        self.streams_open
            .set(i64::try_from(streams_open).unwrap_or(i64::MAX));
        if let Some(pending) = pending {
            self.elicitations_pending.set(pending);
        }
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Record, Tenant};
    use serde_json::json;

    fn finished(status: Status, result: serde_json::Value) -> Event {
        let kind = EventKind::finishing(status).unwrap();
        Event::new(
            kind,
            Record {
                id: "x".into(),
                tenant: Tenant {
                    user_id: "u".into(),
                    workspace_id: "w".into(),
                    conversation_id: String::new(),
                },
                request: json!({}),
                server_name: None,
                created_at: 0,
                expires_at: 1,
                status,
                result: Some(result),
                finished_at: Some(1),
                completed: false,
                team: None,
                escalated: 0,
                answered_by: None,
            },
        )
    }

    #[test]
    fn settles_are_counted_by_outcome_and_counters_end_in_total() {
        let metrics = Metrics::new();
        metrics.count_change(&finished(Status::Settled, json!({"action": "accept"})));
        metrics.count_change(&finished(Status::Settled, json!({"action": "decline"})));
        metrics.count_change(&finished(Status::Expired, json!({"action": "cancel"})));
        metrics.observe_request(
            "GET",
            "/v1/elicitations/{id}/result",
            Duration::from_millis(3),
        );
        let text = metrics.render(7, Some(2));
        for line in [
            "koder_relay_elicitations_settled_total{outcome=\"accept\"} 1",
            "koder_relay_elicitations_settled_total{outcome=\"decline\"} 1",
            "koder_relay_elicitations_settled_total{outcome=\"expired\"} 1",
            "koder_relay_streams_open 7",
            "koder_relay_elicitations_pending 2",
            "koder_relay_elicitations_created_total 0",
            "koder_relay_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/elicitations/{id}/result\"} 1",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
    }
}
