//! One push: the POST to the subscription's endpoint (RFC 8030) with the encrypted body, its
//! `TTL`, `Urgency`, `Topic` and VAPID `Authorization`, and what the push service's answer
//! means for the outbox. The endpoint was checked against the allow list just before; the
//! client follows no redirect ([`crate::channels::http::client`]).

use std::time::{Duration, SystemTime};

use crate::channels::http::{describe, drain};

/// One push, ready to send.
#[derive(Debug)]
pub struct Push<'a> {
    /// The subscription's endpoint.
    pub endpoint: &'a str,
    /// The aes128gcm body.
    pub body: Vec<u8>,
    /// Seconds the push service may hold it.
    pub ttl_s: i64,
    /// The elicitation's topic.
    pub topic: &'a str,
    /// `vapid t=…, k=…`.
    pub authorization: String,
}

/// What the push service's answer means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// 2xx: it has the push.
    Accepted,
    /// 404 or 410: the subscription is gone for good.
    Gone,
    /// A network failure, 429 or 5xx: try again, not before `retry_after` when it said so.
    Busy {
        /// Its `Retry-After`, from the time it answered.
        retry_after: Option<Duration>,
        /// A short reason (never the endpoint, which is a capability).
        error: String,
    },
    /// Any other answer (400, 401, 403, 413…): this push will never be taken.
    Rejected {
        /// A short reason.
        error: String,
    },
}

/// POSTs `push`; `now` reads a `Retry-After` given as a date.
pub async fn attempt(client: &reqwest::Client, push: Push<'_>, now: SystemTime) -> Answer {
    let sent = client
        .post(push.endpoint)
        .header("content-encoding", "aes128gcm")
        .header("content-type", "application/octet-stream")
        .header("ttl", push.ttl_s.max(0).to_string())
        .header("urgency", "high")
        .header("topic", push.topic)
        .header("authorization", push.authorization)
        .body(push.body)
        .send()
        .await;
    let response = match sent {
        Ok(response) => response,
        Err(error) => {
            return Answer::Busy {
                retry_after: None,
                error: describe(error),
            }
        }
    };
    let status = response.status();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| retry_after(value, now));
    drain(response).await;
    let error = format!("answered {}", status.as_u16());
    match status.as_u16() {
        200..=299 => Answer::Accepted,
        404 | 410 => Answer::Gone,
        429 | 500..=599 => Answer::Busy { retry_after, error },
        _ => Answer::Rejected { error },
    }
}

/// A `Retry-After` value (RFC 9110, section 10.2.3): delay seconds, or an HTTP date read against
/// `now` (a date already past is no wait). `None` when it is neither.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_or_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(retry_after("1", now), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(" 120 ", now), Some(Duration::from_secs(120)));
        // RFC 9110's example date is 784111777 s after the epoch.
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:30 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
    }
}
