//! What a Web Push from the relay carries, decrypted: a new question, or the close of one.

use serde::{Deserialize, Serialize};

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
    },
    /// The question is over: close its notification. Never the answer.
    Settled {
        /// Its id.
        id: String,
        /// How it ended: `settled`, `expired` or `withdrawn`.
        status: HostStatus,
    },
}
