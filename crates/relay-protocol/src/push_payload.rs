//! What a Web Push from the relay carries, decrypted: a new question, or the close of one.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::views::HostStatus;

/// One push's payload: `{"type":"elicitation",…}` or `{"type":"settled",…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PushPayload {
    /// A question waits for the person (also its reminder).
    #[serde(rename_all = "camelCase")]
    Elicitation {
        /// Its id (the notification's tag).
        id: String,
        /// The MCP server's name, or `null`.
        server_name: Option<String>,
        /// The question's message, cut to fit one push (ending in "…" when cut).
        message: String,
        /// Whose workspace it is in.
        workspace_id: String,
        /// Its conversation (empty for none).
        conversation_id: String,
        /// Milliseconds left until it expires, when the push was sent.
        expires_in_ms: i64,
        /// Where clicking the notification opens (`--push-open-url`), when set.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        /// What the notification shows, in the words the element's own `notify` uses (the core's
        /// `notification_text`): absent from older relays, whose pushes a worker titles with the
        /// server's name.
        #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
        shown: Option<Box<ShownNotification>>,
        /// The notification's buttons, for a one-tap question with the answer page on (none
        /// otherwise, and from older relays).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        actions: Vec<PushAction>,
        /// How a service worker answers with one of `actions`, through this push's own link:
        /// present exactly when `actions` are.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<Box<PushAnswer>>,
    },
    /// The question is over: close its notification. Never the answer.
    Settled {
        /// Its id.
        id: String,
        /// How it ended: `settled`, `expired` or `withdrawn`.
        status: HostStatus,
    },
}

/// A notification's words, rendered by the relay in one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownNotification {
    /// "<server> needs your input", localized; the server's name isolated.
    pub title: String,
    /// The question's message on one line, isolated and cut to what a notification shows.
    pub body: String,
    /// The language of `title` and `body` (a BCP 47 tag, the notification's `lang`).
    pub lang: String,
    /// Its direction, `ltr` or `rtl` (the notification's `dir`).
    pub dir: String,
}

/// One button of a notification (the Notifications API's `NotificationAction`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushAction {
    /// What `notificationclick`'s `event.action` says: `choice-<n>`, `n` the choice's index in
    /// the core's `OneTap::choices`.
    pub action: String,
    /// Its words, in the notification's language.
    pub title: String,
}

/// What answering from a notification takes: one `POST endpoint` with
/// `{"token", "result": results[event.action]}`; when that fails, the question's `link` opens.
/// Its `Debug` leaves the token out (it is in `link` too), so no log line can show it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushAnswer {
    /// `<public-url>/v1/links/answer`.
    pub endpoint: String,
    /// This push's link token (the one `link` carries).
    pub token: String,
    /// `<public-url>/answer/#t=<token>`: the question's page.
    pub link: String,
    /// The `ElicitResult` each action answers, by its `action`.
    pub results: Map<String, Value>,
}

impl std::fmt::Debug for PushAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let page = self.link.split_once("#t=").map_or("", |(page, _)| page);
        f.debug_struct("PushAnswer")
            .field("endpoint", &self.endpoint)
            .field("token", &"<redacted>")
            .field("link", &format!("{page}#t=<redacted>"))
            .field("results", &self.results)
            .finish()
    }
}
