//! Web Push: the relay's public key (`GET /v1/push/key`), the subscription a browser stores
//! (`POST /v1/push/subscriptions`, the body being `PushSubscription.toJSON()` and the page's
//! language) and what the relay answers about a person's subscriptions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::create::InvalidBody;

/// The longest `endpoint` taken; real ones are a few hundred characters.
pub const MAX_PUSH_ENDPOINT_CHARS: usize = 2048;
/// The longest key (`p256dh`, `auth`) taken: a P-256 point is 87 base64url characters.
pub const MAX_PUSH_KEY_CHARS: usize = 256;
/// The longest `language` taken: BCP 47 asks implementations to take tags of at least 35.
pub const MAX_PUSH_LANGUAGE_CHARS: usize = 35;

/// `GET /v1/push/key`: the browsers' `applicationServerKey`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushKey {
    /// The relay's VAPID public key: the 65-byte uncompressed P-256 point, base64url without
    /// padding.
    pub public_key: String,
}

/// `POST /v1/push/subscriptions`: `PushSubscription.toJSON()` as the browser gives it, with the
/// language the page wants its pushes in. Read
/// with [`PushSubscriptionBody::try_from`] (serde's `Deserialize` goes through it), which says
/// in one sentence what is wrong with a bad one; fields the relay does not use are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "Value")]
pub struct PushSubscriptionBody {
    /// The push service's URL for this browser.
    pub endpoint: String,
    /// When the browser says the subscription ends (ms since the Unix epoch), usually `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_time: Option<f64>,
    /// The browser's keys.
    pub keys: PushSubscriptionKeys,
    /// The BCP 47 tag its pushes are worded in (the nearest shipped locale; en-US without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// The keys of a [`PushSubscriptionBody`], base64url as browsers give them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushSubscriptionKeys {
    /// The browser's P-256 public key.
    pub p256dh: String,
    /// The browser's 16-byte auth secret.
    pub auth: String,
}

impl TryFrom<Value> for PushSubscriptionBody {
    type Error = InvalidBody;

    fn try_from(value: Value) -> Result<PushSubscriptionBody, InvalidBody> {
        let invalid = |message: String| Err(InvalidBody(message));
        let Value::Object(mut body) = value else {
            return invalid(
                "the body must be PushSubscription.toJSON(): {endpoint, expirationTime, \
                 keys: {p256dh, auth}}"
                    .into(),
            );
        };
        let endpoint = match body.remove("endpoint") {
            Some(Value::String(text))
                if !text.is_empty() && text.chars().count() <= MAX_PUSH_ENDPOINT_CHARS =>
            {
                text
            }
            _ => {
                return invalid(format!(
                    "endpoint must be a non-empty string of at most {MAX_PUSH_ENDPOINT_CHARS} \
                     characters"
                ))
            }
        };
        let expiration_time = match body.remove("expirationTime") {
            None | Some(Value::Null) => None,
            Some(Value::Number(number)) if number.as_f64().is_some() => number.as_f64(),
            Some(_) => return invalid("expirationTime must be a number or null".into()),
        };
        let Some(Value::Object(mut keys)) = body.remove("keys") else {
            return invalid("keys must be an object {p256dh, auth}".into());
        };
        let mut key = |name: &str| match keys.remove(name) {
            Some(Value::String(text))
                if !text.is_empty() && text.chars().count() <= MAX_PUSH_KEY_CHARS =>
            {
                Ok(text)
            }
            _ => Err(InvalidBody(format!(
                "keys.{name} must be a non-empty base64url string of at most {MAX_PUSH_KEY_CHARS} \
                 characters"
            ))),
        };
        let p256dh = key("p256dh")?;
        let auth = key("auth")?;
        let language = match body.remove("language") {
            None | Some(Value::Null) => None,
            Some(Value::String(tag))
                if !tag.is_empty()
                    && tag.len() <= MAX_PUSH_LANGUAGE_CHARS
                    && tag
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-') =>
            {
                Some(tag)
            }
            Some(_) => {
                return invalid(format!(
                    "language must be a BCP 47 tag such as \"pt-BR\": at most \
                     {MAX_PUSH_LANGUAGE_CHARS} letters, digits and hyphens"
                ))
            }
        };
        Ok(PushSubscriptionBody {
            endpoint,
            expiration_time,
            keys: PushSubscriptionKeys { p256dh, auth },
            language,
        })
    }
}

/// `POST /v1/push/subscriptions`: the subscription's id (201 when new, 200 when the person had
/// subscribed this endpoint already).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushSubscriptionCreated {
    /// 128 random bits, hex.
    pub id: String,
}

/// One subscription in a person's list (its keys are not shown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushSubscriptionView {
    /// Its id, for `DELETE /v1/push/subscriptions/{id}`.
    pub id: String,
    /// The push service's URL.
    pub endpoint: String,
    /// When it was first stored, ms since the Unix epoch.
    pub created_at: i64,
}

/// `GET /v1/push/subscriptions`: the person's subscriptions, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushSubscriptionList {
    /// Each one.
    pub subscriptions: Vec<PushSubscriptionView>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: Value) -> Result<PushSubscriptionBody, String> {
        PushSubscriptionBody::try_from(value).map_err(|error| error.0)
    }

    #[test]
    fn a_browsers_to_json_reads_and_extra_fields_are_ignored() {
        let body = read(json!({
            "endpoint": "https://fcm.googleapis.com/fcm/send/abc",
            "expirationTime": null,
            "keys": {"p256dh": "BNc", "auth": "tBH"},
            "somethingNew": 1
        }))
        .unwrap();
        assert_eq!(body.endpoint, "https://fcm.googleapis.com/fcm/send/abc");
        assert_eq!(body.expiration_time, None);
        assert_eq!(body.keys.p256dh, "BNc");
        let again: PushSubscriptionBody =
            serde_json::from_value(serde_json::to_value(&body).unwrap()).unwrap();
        assert_eq!(again, body);
        let dated = read(json!({"endpoint": "e", "expirationTime": 1.7e12,
                                "keys": {"p256dh": "a", "auth": "b"}}))
        .unwrap();
        assert_eq!(dated.expiration_time, Some(1.7e12));
        assert_eq!(body.language, None);
        let worded = read(
            json!({"endpoint": "e", "keys": {"p256dh": "a", "auth": "b"},
                                 "language": "pt-BR"}),
        )
        .unwrap();
        assert_eq!(worded.language.as_deref(), Some("pt-BR"));
    }

    #[test]
    fn a_bad_body_says_which_field_is_wrong() {
        let keys = json!({"p256dh": "a", "auth": "b"});
        for (body, expected) in [
            (json!([]), "PushSubscription.toJSON()"),
            (json!({"keys": keys}), "endpoint must be"),
            (json!({"endpoint": "", "keys": keys}), "endpoint must be"),
            (json!({"endpoint": 7, "keys": keys}), "endpoint must be"),
            (
                json!({"endpoint": "x".repeat(MAX_PUSH_ENDPOINT_CHARS + 1), "keys": keys}),
                "endpoint must be",
            ),
            (
                json!({"endpoint": "e", "expirationTime": "soon", "keys": keys}),
                "expirationTime",
            ),
            (json!({"endpoint": "e"}), "keys must be"),
            (
                json!({"endpoint": "e", "keys": {"auth": "b"}}),
                "keys.p256dh",
            ),
            (
                json!({"endpoint": "e", "keys": {"p256dh": "a", "auth": 1}}),
                "keys.auth",
            ),
            (
                json!({"endpoint": "e", "keys": {"p256dh": "a".repeat(MAX_PUSH_KEY_CHARS + 1), "auth": "b"}}),
                "keys.p256dh",
            ),
            (
                json!({"endpoint": "e", "keys": keys, "language": "pt_BR"}),
                "language must be",
            ),
            (
                json!({"endpoint": "e", "keys": keys, "language": "x".repeat(36)}),
                "language must be",
            ),
            (
                json!({"endpoint": "e", "keys": keys, "language": ""}),
                "language must be",
            ),
            (
                json!({"endpoint": "e", "keys": keys, "language": 1}),
                "language must be",
            ),
        ] {
            let error = read(body.clone()).unwrap_err();
            assert!(error.contains(expected), "{body}: {error}");
        }
    }
}
