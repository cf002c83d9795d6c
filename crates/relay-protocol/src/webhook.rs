//! The body of a webhook (Standard Webhooks): `{"type","timestamp","data"}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::views::{HostStatus, ViewScope};

/// One webhook's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEvent {
    /// `elicitation.created`, `elicitation.settled`, `elicitation.expired` or
    /// `elicitation.withdrawn`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// When the change happened (ISO 8601, UTC, in ms).
    pub timestamp: String,
    /// The elicitation as the host knows it.
    pub data: WebhookElicitation,
}

/// The body of an `elicitation.escalated` webhook: an escalation stage was reached while the
/// question was still open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookEscalated {
    /// `elicitation.escalated`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// When the stage was reached (ISO 8601, UTC, in ms).
    pub timestamp: String,
    /// Which question, which stage.
    pub data: WebhookEscalation,
}

/// `data` of an `elicitation.escalated` webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookEscalation {
    /// The elicitation's id.
    pub id: String,
    /// The stage reached, counted from 1.
    pub stage: i64,
}

impl std::fmt::Display for WebhookEvent {
    /// The body as sent: JSON on one line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

/// The elicitation in a webhook: not the request (the host sent it), but the result once over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookElicitation {
    /// Its id.
    pub id: String,
    /// Whose it is.
    pub scope: ViewScope,
    /// The MCP server's name, or `null`.
    pub server_name: Option<String>,
    /// Where it is.
    pub status: HostStatus,
    /// When the host created it, ms since the Unix epoch.
    pub created_at: i64,
    /// When it expires, ms since the Unix epoch.
    pub expires_at: i64,
    /// When it ended, once over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<i64>,
    /// The ElicitResult, once over (`{"action":"cancel"}` when expired or withdrawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Who answered it (`elicitation.settled` of an answered one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<crate::AnsweredBy>,
    /// `elicitation.created` with the answer page on: a new link to answer it
    /// (`<public-url>/answer/#t=<token>`), made when the webhook is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_url: Option<String>,
}
