//! Web Push (RFC 8030, 8291, 8292): what the relay pushes with, when it has a VAPID key. Without
//! one the relay has no push at all: its push routes answer 404 and nothing is sent.
//!
//! [`PushSettings`] is built from the flags (`--vapid-private-key-file` and the rest) and shared
//! by the routes (subscriptions) and the delivery. [`allow`] is the list of push services the
//! relay sends to.

use std::sync::Arc;
use std::time::Duration;

use koder_web_push::VapidKey;
use reqwest::Url;

use crate::channels::{http, Relay, Settings};
use crate::store::outbox::Queue;

pub mod allow;

/// What a push says, and the `Topic` every push about one elicitation shares.
pub mod payload;

/// One push: the POST, and what the push service's answer means.
pub mod deliver;

/// The channel: one attempt at a row.
pub mod channel;

/// Its outbox table: the rows a change queues, what a push reads beside them.
pub mod store;

/// People's subscriptions: what their pushes go to.
pub mod subscriptions;

pub use allow::{AllowList, EndpointRefused, PushOrigin, MAX_ENDPOINT_CHARS};
pub use channel::Pushes;
pub use store::{PushKind, PushQueue};
pub use subscriptions::PushSubscriptions;

impl Settings for PushSettings {
    type Channel = Pushes;

    fn queue(&self) -> Arc<dyn Queue> {
        Arc::new(PushQueue {
            remind_before: self.remind_before,
        })
    }

    fn channel(&self, relay: &Relay) -> Result<Pushes, String> {
        Ok(Pushes {
            store: Arc::clone(&relay.store),
            elicitations: relay.elicitations.clone(),
            pushes: store::PushStore::of(&relay.store),
            settings: Arc::new(self.clone()),
            links: relay.links.clone(),
            client: http::client("Web Push")?,
        })
    }
}

/// How many subscriptions one person (user in a workspace) may hold without
/// `--push-subscriptions-per-person`: a phone, a laptop, a few browsers.
pub const DEFAULT_SUBSCRIPTIONS_PER_PERSON: usize = 10;

/// The placeholders `--push-open-url` may hold, each replaced by its value, percent-encoded.
pub const OPEN_URL_PLACEHOLDERS: [&str; 3] = ["{id}", "{workspaceId}", "{conversationId}"];

/// What the relay pushes with.
#[derive(Clone)]
pub struct PushSettings {
    /// The application server's key: signs each push's `Authorization`, and its public half is
    /// the browsers' `applicationServerKey` (`GET /v1/push/key`).
    pub vapid: VapidKey,
    /// The VAPID `sub`: a `mailto:` or `https:` contact for the push services.
    pub subject: String,
    /// The push services the relay sends to.
    pub allow: AllowList,
    /// The page a notification opens: a template with `{id}`, `{workspaceId}` and
    /// `{conversationId}` ([`PushSettings::open_url`]).
    pub open_url: Option<String>,
    /// When set, one reminder this long before an elicitation expires.
    pub remind_before: Option<Duration>,
    /// The most subscriptions one person holds.
    pub per_person: usize,
}

impl PushSettings {
    /// Settings with this key and subject, the browsers' push services, no open URL, no
    /// reminder and the default cap. The subject is checked.
    pub fn new(vapid: VapidKey, subject: impl Into<String>) -> Result<PushSettings, String> {
        let settings = PushSettings {
            vapid,
            subject: subject.into(),
            allow: AllowList::browsers(),
            open_url: None,
            remind_before: None,
            per_person: DEFAULT_SUBSCRIPTIONS_PER_PERSON,
        };
        settings.check()?;
        Ok(settings)
    }

    /// What must hold however the settings were made; the error names the flag.
    pub fn check(&self) -> Result<(), String> {
        check_subject(&self.subject).map_err(|why| format!("--vapid-subject {why}"))?;
        if let Some(template) = &self.open_url {
            check_open_url(template).map_err(|why| format!("--push-open-url {why}"))?;
        }
        if self.per_person == 0 {
            return Err("--push-subscriptions-per-person must be above 0".into());
        }
        Ok(())
    }

    /// The public key as browsers take it (`applicationServerKey`): the uncompressed P-256
    /// point, base64url without padding.
    pub fn public_key(&self) -> String {
        self.vapid.public_key_base64url()
    }

    /// The page a notification about elicitation `id` opens, from `--push-open-url` with each
    /// value percent-encoded; `None` without the flag.
    pub fn open_url(&self, id: &str, workspace_id: &str, conversation_id: &str) -> Option<String> {
        self.open_url
            .as_deref()
            .map(|template| fill_open_url(template, id, workspace_id, conversation_id))
    }
}

/// The key shows as its public half only.
impl std::fmt::Debug for PushSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushSettings")
            .field("public_key", &self.public_key())
            .field("subject", &self.subject)
            .field("allow", &self.allow.origins())
            .field("open_url", &self.open_url)
            .field("remind_before", &self.remind_before)
            .field("per_person", &self.per_person)
            .finish()
    }
}

/// Two settings are the same when their keys are (by the public half) and all else is.
impl PartialEq for PushSettings {
    fn eq(&self, other: &PushSettings) -> bool {
        self.public_key() == other.public_key()
            && self.subject == other.subject
            && self.allow == other.allow
            && self.open_url == other.open_url
            && self.remind_before == other.remind_before
            && self.per_person == other.per_person
    }
}

impl Eq for PushSettings {}

/// A VAPID subject: `mailto:someone@example.com` or an `https://` URL (RFC 8292 §2.1).
pub fn check_subject(subject: &str) -> Result<(), String> {
    if let Some(address) = subject.strip_prefix("mailto:") {
        if address.contains('@') && !address.contains(char::is_whitespace) {
            return Ok(());
        }
    } else if let Ok(url) = Url::parse(subject) {
        if url.scheme() == "https" && url.host_str().is_some() {
            return Ok(());
        }
    }
    Err(format!(
        "{subject:?} must be a mailto: address (mailto:ops@example.com) or an https:// URL"
    ))
}

/// A `--push-open-url` template: an `http(s)://` URL once its placeholders are filled, with no
/// other `{…}`.
pub fn check_open_url(template: &str) -> Result<(), String> {
    let filled = fill_open_url(template, "id", "workspace", "conversation");
    if filled.contains(['{', '}']) {
        return Err(format!(
            "{template:?} has a placeholder other than {}",
            OPEN_URL_PLACEHOLDERS.join(", ")
        ));
    }
    match Url::parse(&filled) {
        Ok(url) if matches!(url.scheme(), "https" | "http") && url.host_str().is_some() => Ok(()),
        _ => Err(format!(
            "{template:?} must be an http:// or https:// URL (for example \
             https://chat.example.com/c/{{conversationId}}?elicitation={{id}})"
        )),
    }
}

fn fill_open_url(template: &str, id: &str, workspace_id: &str, conversation_id: &str) -> String {
    // Percent-encoded values hold no braces, so a value is never read as a placeholder.
    template
        .replace("{id}", &percent_encode(id))
        .replace("{workspaceId}", &percent_encode(workspace_id))
        .replace("{conversationId}", &percent_encode(conversation_id))
}

/// Every byte but RFC 3986's unreserved characters as `%XX`: safe in a path segment, a query
/// value and a fragment alike.
fn percent_encode(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> PushSettings {
        PushSettings::new(VapidKey::generate(), "mailto:ops@example.com").unwrap()
    }

    #[test]
    fn the_open_url_has_each_value_percent_encoded() {
        let mut push = settings();
        assert_eq!(push.open_url("a", "w", "c"), None);
        push.open_url =
            Some("https://chat.example.com/w/{workspaceId}/c/{conversationId}#q={id}".into());
        assert_eq!(
            push.open_url("0f3a", "acme corp/eu", "c?1&x={id}")
                .as_deref(),
            Some("https://chat.example.com/w/acme%20corp%2Feu/c/c%3F1%26x%3D%7Bid%7D#q=0f3a")
        );
        assert_eq!(
            push.open_url("id", "é", "").as_deref(),
            Some("https://chat.example.com/w/%C3%A9/c/#q=id")
        );
    }

    #[test]
    fn open_url_templates_are_http_urls_with_known_placeholders() {
        for good in [
            "https://chat.example.com/",
            "http://localhost:8080/c/{conversationId}?e={id}&w={workspaceId}",
        ] {
            assert_eq!(check_open_url(good), Ok(()), "{good}");
        }
        for bad in [
            "chat.example.com/{id}",
            "javascript:alert(1)",
            "file:///tmp/{id}",
            "https://chat.example.com/{user}",
            "https://chat.example.com/{id",
            "/relative/{id}",
        ] {
            assert!(check_open_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn subjects_are_mailto_or_https() {
        for good in [
            "mailto:ops@example.com",
            "https://relay.example.com/contact",
        ] {
            assert_eq!(check_subject(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "ops@example.com",
            "mailto:",
            "mailto:nobody",
            "http://relay.example.com",
            "https://",
        ] {
            assert!(check_subject(bad).is_err(), "{bad}");
        }
        assert!(PushSettings::new(VapidKey::generate(), "ops")
            .unwrap_err()
            .starts_with("--vapid-subject"));
    }

    #[test]
    fn settings_compare_by_public_key_and_never_print_the_private_one() {
        let push = settings();
        assert_eq!(push, push.clone());
        assert_ne!(push, settings());
        let printed = format!("{push:?}");
        assert!(printed.contains(&push.public_key()), "{printed}");
        assert!(!printed.contains("PRIVATE"), "{printed}");
    }
}
