//! Answer links: what a host gets for one (`POST /v1/elicitations/{id}/link`), what the answer
//! page sends with a link's token (`POST /v1/links/view`, `POST /v1/links/answer`), and what a
//! link shows of its one elicitation (with its one-tap choices, when it has them).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::views::HostStatus;

/// `POST /v1/elicitations/{id}/link`: 201 `{"url","expiresAt"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCreated {
    /// `<public-url>/answer/#t=<token>`: the token is in the fragment only.
    pub url: String,
    /// When the link stops working: when its elicitation expires, ms since the Unix epoch.
    pub expires_at: i64,
}

/// `POST /v1/links/view`'s body: the token from the link's fragment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkToken {
    /// The token (43 base64url characters).
    pub token: String,
}

/// `POST /v1/links/answer`'s body: the token and the person's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkAnswer {
    /// The token (43 base64url characters).
    pub token: String,
    /// The `ElicitResult`.
    pub result: Value,
}

/// What a link shows: `{"elicitation":{…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkView {
    /// Its one elicitation.
    pub elicitation: LinkElicitation,
}

/// A link's elicitation: while pending, the question to show; once over, only how it ended
/// (never the request nor the answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkElicitation {
    /// Its id.
    pub id: String,
    /// Where it is: pending, or how it ended.
    pub status: HostStatus,
    /// While pending: the request as the relay stored it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Value>,
    /// While pending: the MCP server's name, when the host gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// While pending: when it expires, ms since the Unix epoch (the relay's clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// While pending: the time left by the relay's clock when this was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_ms: Option<i64>,
}

/// `POST /v1/links/view`'s answer: what a link shows, and, while its question is a one-tap shape
/// (contract §13), the buttons that answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkPageView {
    /// Its one elicitation.
    pub elicitation: LinkElicitation,
    /// While pending and a one-tap shape: its choices, in the order an e-mail's `c=<n>` counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_tap: Option<LinkOneTap>,
}

/// A one-tap question's choices, worded in the language the page asked in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkOneTap {
    /// The request's message.
    pub message: String,
    /// The property's title, else its description (none when the request has no properties, or
    /// its property has neither).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The choices, the last always Reject; `c=<n>` names `choices[n]`.
    pub choices: Vec<LinkChoice>,
}

/// One choice of a one-tap question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkChoice {
    /// Its words ("Yes", "No", an option's title, "Reject").
    pub title: String,
    /// The `ElicitResult` it answers with.
    pub result: Value,
}
