//! Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`
//! with the key a `whsec_<base64>` secret decodes to.

use crate::canonical::hmac_sha256;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The shortest key the relay signs with (Standard Webhooks asks for 24 to 64 random bytes).
pub const MIN_KEY_BYTES: usize = 24;
/// The longest key taken.
pub const MAX_KEY_BYTES: usize = 64;

/// A webhook signing key, from a `whsec_<base64>` secret. Never shown: its `Debug` is redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret {
    key: Vec<u8>,
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

impl WebhookSecret {
    /// Decodes `whsec_<base64>` (the prefix is what receivers' libraries expect too). `source`
    /// names where it came from, for the error; the secret itself is never in a message.
    pub fn parse(text: &str, source: &str) -> Result<WebhookSecret, String> {
        let Some(encoded) = text.trim().strip_prefix("whsec_") else {
            return Err(format!(
                "the webhook secret in {source} must look like whsec_<base64> (for example: \
                 echo whsec_$(openssl rand -base64 32))"
            ));
        };
        let key = STANDARD.decode(encoded).map_err(|_| {
            format!("the webhook secret in {source} is not valid base64 after whsec_")
        })?;
        if !(MIN_KEY_BYTES..=MAX_KEY_BYTES).contains(&key.len()) {
            return Err(format!(
                "the webhook secret in {source} decodes to {} bytes; give {MIN_KEY_BYTES} to \
                 {MAX_KEY_BYTES}",
                key.len()
            ));
        }
        Ok(WebhookSecret { key })
    }

    /// The `webhook-signature` header of `body` sent as `id` at `timestamp` (Unix seconds).
    pub fn signature(&self, id: &str, timestamp: i64, body: &str) -> String {
        let timestamp = timestamp.to_string();
        let signed = [
            id.as_bytes(),
            b".",
            timestamp.as_bytes(),
            b".",
            body.as_bytes(),
        ];
        format!("v1,{}", STANDARD.encode(hmac_sha256(&self.key, &signed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_standard_webhooks_reference_vector() {
        // The reference example of the Standard Webhooks specification.
        let secret =
            WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "a test").unwrap();
        assert_eq!(
            secret.signature(
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                r#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn bad_secrets_are_refused_without_showing_them() {
        for (text, says) in [
            ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_<base64>"),
            ("whsec_***", "not valid base64"),
            ("whsec_c2hvcnQ=", "decodes to 5 bytes"),
        ] {
            let error = WebhookSecret::parse(text, "KODER_RELAY_WEBHOOK_SECRET").unwrap_err();
            assert!(error.contains(says), "{error}");
            assert!(!error.contains(text), "{error}");
        }
        let secret =
            WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "a test").unwrap();
        assert!(!format!("{secret:?}").contains("MfKQ"));
    }
}
