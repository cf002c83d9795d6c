//! Webhooks on the Standard Webhooks convention (<https://www.standardwebhooks.com>): every
//! change a host may want to hear of without polling is written to a durable outbox in the same
//! transaction as the change, and a worker POSTs it, signed, to the one configured URL, retrying
//! with backoff for hours under the same `webhook-id`.

use std::sync::Arc;

use koder_elicitation_relay_protocol::{
    WebhookElicitation, WebhookEscalated, WebhookEscalation, WebhookEvent,
};

use crate::channels::{http, Relay, Settings};
use crate::events::{Event, EventKind};
use crate::record::Status;
use crate::store::outbox::Queue;

/// The `webhook-signature` of a body, and the `whsec_…` key it is made with.
pub mod sign;

/// One attempt: the signed POST to the configured URL.
pub mod deliver;

/// The channel: one attempt at a row, and the retry schedule.
pub mod channel;

/// Its outbox table: the row a change queues, the row a claim returns.
pub mod store;

pub use channel::{RetrySchedule, Webhooks};
pub use sign::WebhookSecret;
pub use store::OutboxRow;

/// Where webhooks go and how they are signed: `--webhook-url` and its secret.
#[derive(Clone)]
pub struct WebhookConfig {
    /// The only URL the relay ever POSTs to (`https://`, or `http://` on localhost).
    pub url: reqwest::Url,
    /// The signing key.
    pub secret: WebhookSecret,
    /// The retry delays, scaled by `--webhook-retry-scale`.
    pub retries: RetrySchedule,
}

impl PartialEq for WebhookConfig {
    fn eq(&self, other: &Self) -> bool {
        self.url == other.url && self.secret == other.secret && self.retries == other.retries
    }
}

impl Eq for WebhookConfig {}

impl std::fmt::Debug for WebhookConfig {
    // The URL's origin only: a path or query may carry a receiver's own token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("url", &self.url.origin().ascii_serialization())
            .field("secret", &"<redacted>")
            .field("retries", &self.retries)
            .finish()
    }
}

impl Settings for WebhookConfig {
    type Channel = Webhooks;

    fn queue(&self) -> Arc<dyn Queue> {
        Arc::new(store::WebhookQueue)
    }

    fn channel(&self, relay: &Relay) -> Result<Webhooks, String> {
        Ok(Webhooks {
            store: Arc::clone(&relay.store),
            config: self.clone(),
            links: relay.links.clone(),
            client: http::client("--webhook-url")?,
        })
    }
}

/// Checks a `--webhook-url`: `https://`, or `http://` on `localhost`, `127.0.0.1` or `[::1]`
/// for development; no credentials in it (they would be in logs and process lists).
pub fn parse_url(text: &str) -> Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(text)
        .map_err(|error| format!("--webhook-url {text:?} is not a URL: {error}"))?;
    crate::given_url::check_https_or_local(&url, "--webhook-url")?;
    Ok(url)
}

/// The Standard Webhooks event type of a change, `None` for changes that send none (URL-mode
/// completion: the server told the host itself).
pub fn event_type(kind: EventKind) -> Option<&'static str> {
    match kind {
        EventKind::Created => Some("elicitation.created"),
        EventKind::Settled => Some("elicitation.settled"),
        EventKind::Expired => Some("elicitation.expired"),
        EventKind::Withdrawn => Some("elicitation.withdrawn"),
        // The escalation's webhook is queued where stages are fired.
        EventKind::Complete | EventKind::Escalated => None,
    }
}

/// The outbox row of an event (`None` for a change that sends none), which the store queues in
/// the change's own transaction.
pub fn outbox_row(event: &Event) -> Option<OutboxRow> {
    let event_type = event_type(event.kind)?;
    Some(OutboxRow {
        id: webhook_id(event, event_type),
        elicitation_id: event.id().to_string(),
        event_type,
        payload: payload(event, event_type).to_string(),
    })
}

/// The outbox row of escalation stage `stage` reached at `at`: an `elicitation.escalated`
/// (`data: { id, stage }`), its id one per stage.
pub fn escalated_row(elicitation_id: &str, stage: i64, at: i64) -> Option<OutboxRow> {
    let event_type = "elicitation.escalated";
    let payload = WebhookEscalated {
        event_type: event_type.to_string(),
        timestamp: iso_8601(at),
        data: WebhookEscalation {
            id: elicitation_id.to_string(),
            stage,
        },
    };
    let payload = serde_json::to_string(&payload).ok()?;
    Some(OutboxRow {
        id: format!("msg_{elicitation_id}_escalated_{stage}"),
        elicitation_id: elicitation_id.to_string(),
        event_type,
        payload,
    })
}

/// The `webhook-id` of an event: one per elicitation and event type, so the same change always
/// has the same id (receivers deduplicate by it) and an enqueue repeated is a no-op.
pub fn webhook_id(event: &Event, event_type: &str) -> String {
    let kind = event_type.trim_start_matches("elicitation.");
    format!("msg_{}_{kind}", event.id())
}

/// The body POSTed for an event: `{"type","timestamp","data"}`, where `timestamp` is when the
/// change happened (ISO 8601, UTC) and `data` is the elicitation as the host knows it, with the
/// `result` once finished. The request itself is not repeated: the host sent it.
pub fn payload(event: &Event, event_type: &str) -> WebhookEvent {
    let record = &event.record;
    let happened_at = match event.kind {
        EventKind::Created => record.created_at,
        _ => record.finished_at.unwrap_or(record.created_at),
    };
    let finished = record.status != Status::Pending;
    WebhookEvent {
        event_type: event_type.to_string(),
        timestamp: iso_8601(happened_at),
        data: WebhookElicitation {
            id: record.id.clone(),
            scope: record.tenant.clone(),
            server_name: record.server_name.clone(),
            status: record.status,
            created_at: record.created_at,
            expires_at: record.expires_at,
            finished_at: record.finished_at.filter(|_| finished),
            result: finished.then(|| record.result_or_cancel()),
            answered_by: record.told_answered_by().filter(|_| finished),
            // Never queued: a link's token is derived only when the webhook is sent.
            answer_url: None,
        },
    }
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (proleptic Gregorian, UTC).
pub fn iso_8601(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// Howard Hinnant's days-to-civil: the date `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Record, Tenant};
    use serde_json::json;

    #[test]
    fn times_are_iso_8601_in_utc() {
        assert_eq!(iso_8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_8601(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso_8601(1_795_000_000_000), "2026-11-18T11:06:40.000Z");
        assert_eq!(iso_8601(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn only_https_or_local_http_urls_without_credentials_are_taken() {
        for good in [
            "https://hooks.example.com/relay",
            "http://localhost:8080/hook",
            "http://127.0.0.1:9/x",
            "http://[::1]:9/x",
        ] {
            assert!(parse_url(good).is_ok(), "{good}");
        }
        for bad in [
            "http://hooks.example.com/relay",
            "http://127.0.0.2/",
            "ftp://localhost/",
            "https://user:pass@hooks.example.com/",
            "hooks.example.com",
        ] {
            assert!(
                parse_url(bad).unwrap_err().contains("--webhook-url"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_settled_event_carries_its_result_and_completion_sends_none() {
        let record = Record {
            id: "e1".into(),
            tenant: Tenant {
                user_id: "u".into(),
                workspace_id: "w".into(),
                conversation_id: String::new(),
            },
            request: json!({"message": "hi"}),
            server_name: Some("S".into()),
            created_at: 0,
            expires_at: 1000,
            status: Status::Settled,
            result: Some(json!({"action": "accept", "content": {"a": 1}})),
            finished_at: Some(500),
            completed: false,
            team: None,
            escalated: 0,
            answered_by: None,
        };
        let event = Event::new(EventKind::Settled, record);
        let kind = event_type(event.kind).unwrap();
        let body = serde_json::to_value(payload(&event, kind)).unwrap();
        assert_eq!(body["type"], "elicitation.settled");
        assert_eq!(body["timestamp"], "1970-01-01T00:00:00.500Z");
        assert_eq!(body["data"]["result"]["content"]["a"], 1);
        assert_eq!(body["data"]["scope"]["userId"], "u");
        assert!(body["data"].get("request").is_none());
        assert_eq!(webhook_id(&event, kind), "msg_e1_settled");
        assert_eq!(event_type(EventKind::Complete), None);
    }
}
