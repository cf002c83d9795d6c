//! What the relay answers with: the host's view of an elicitation, a person's view of one, the
//! status alone, the pending list, a stream ticket, and the one error body.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where an elicitation is, in the host API's words (and in webhooks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostStatus {
    /// Still waiting for the person.
    Pending,
    /// The person answered.
    Settled,
    /// Nobody answered in time.
    Expired,
    /// The host withdrew it.
    Withdrawn,
}

impl HostStatus {
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            HostStatus::Pending => "pending",
            HostStatus::Settled => "settled",
            HostStatus::Expired => "expired",
            HostStatus::Withdrawn => "withdrawn",
        }
    }
}

/// The host's view of one elicitation (`GET …/result`, `DELETE …`), and a person's answer's
/// (`POST …/result`, always settled): `{"status":"pending"}`, or the final status with the
/// ElicitResult (`{"action":"cancel"}` when expired or withdrawn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostView {
    /// Where it is.
    pub status: HostStatus,
    /// The ElicitResult, once it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Who answered it, once answered (the host's view only).
    #[serde(
        rename = "answeredBy",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub answered_by: Option<crate::AnsweredBy>,
    /// A team question's audience as created (the host's view only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<crate::Members>,
    /// A team question's escalation stages reached so far, 0 before any (the host's view only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalated: Option<i64>,
}

impl HostView {
    /// Where it is, and its result once over; nothing about who.
    pub fn of(status: HostStatus, result: Option<Value>) -> HostView {
        HostView {
            status,
            result,
            answered_by: None,
            audience: None,
            escalated: None,
        }
    }
}

/// The status people see: `complete` once a URL-mode elicitation is reported complete (unless
/// it expired or was withdrawn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PublicStatus {
    /// Still waiting for the person.
    Pending,
    /// URL-mode completion was reported.
    Complete,
    /// The person answered.
    Settled,
    /// Nobody answered in time.
    Expired,
    /// The host withdrew it.
    Withdrawn,
}

/// `GET …/status` and `POST …/complete`: `{"status"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusView {
    /// Where it is.
    pub status: PublicStatus,
}

/// The scope as views, webhooks and audit lines report it: the core's tenant, `conversationId`
/// `""` when the host gave none.
pub use koder_mcp_elicitation_core::scope::Tenant as ViewScope;

/// One elicitation as a person sees it: the stream's `elicitation` event and an entry of the
/// pending list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationView {
    /// Its id.
    pub id: String,
    /// The request as the relay stored it.
    pub request: Value,
    /// The MCP server's name, or `null`.
    pub server_name: Option<String>,
    /// When the host created it, ms since the Unix epoch.
    pub created_at: i64,
    /// When it expires, ms since the Unix epoch (the relay's clock).
    pub expires_at: i64,
    /// The time left when the relay sent this, by the relay's clock: a page times its countdown
    /// from this, so a browser clock that is off does not shorten or stretch it.
    pub expires_in_ms: i64,
    /// Whose it is.
    pub scope: ViewScope,
}

impl ElicitationView {
    /// `expiresInMs` for an elicitation expiring at `expires_at`, seen at `now`: never negative.
    pub fn time_left_ms(expires_at: i64, now: i64) -> i64 {
        expires_at.saturating_sub(now).max(0)
    }
}

/// `GET /v1/elicitations`: the pending ones, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitationList {
    /// Each one as the person sees it.
    pub elicitations: Vec<ElicitationView>,
}

/// `POST /v1/stream/ticket`: a one-use ticket for `GET /v1/stream?ticket=…`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamTicket {
    /// 128 random bits, hex.
    pub ticket: String,
    /// How long it stays valid, in ms.
    pub expires_in_ms: i64,
}

/// Every failure's body: `{"error":{…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// The inside of an [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// The HTTP status again.
    pub status: u16,
    /// What went wrong, for a developer (en-US).
    pub message: String,
    /// On a 400 from the core's request or answer check: the JSON-RPC code a client would
    /// answer with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jsonrpc_code: Option<i32>,
    /// On a 422: each content error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ContentError>,
}

/// One way an answer's content breaks the requested schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentError {
    /// JSON Pointer into the content (`/email`); empty for the content as a whole.
    pub path: String,
    /// The schema keyword that failed.
    pub keyword: String,
    /// The message the element shows, in the person's language.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn host_views_read_and_write_the_relays_json() {
        let pending: HostView = serde_json::from_value(json!({ "status": "pending" })).unwrap();
        assert_eq!(pending.status, HostStatus::Pending);
        assert_eq!(pending.result, None);
        assert_eq!(
            serde_json::to_value(&pending).unwrap(),
            json!({ "status": "pending" })
        );
        let expired: HostView = serde_json::from_value(
            json!({ "status": "expired", "result": { "action": "cancel" } }),
        )
        .unwrap();
        assert_eq!(expired.status.as_str(), "expired");
        assert_eq!(expired.result, Some(json!({ "action": "cancel" })));
        assert!(serde_json::from_value::<HostView>(json!({ "status": "complete" })).is_err());
        assert_eq!(
            serde_json::to_string(&StatusView {
                status: PublicStatus::Complete
            })
            .unwrap(),
            r#"{"status":"complete"}"#
        );
    }

    #[test]
    fn an_elicitation_view_has_the_fields_the_element_reads_in_order() {
        let tenant = ViewScope {
            user_id: "u".into(),
            workspace_id: "w".into(),
            conversation_id: String::new(),
        };
        let view = ElicitationView {
            id: "0123".into(),
            request: json!({ "message": "Hi" }),
            server_name: None,
            created_at: 1_000,
            expires_at: 301_000,
            expires_in_ms: ElicitationView::time_left_ms(301_000, 1_500),
            scope: tenant,
        };
        assert_eq!(
            serde_json::to_string(&view).unwrap(),
            r#"{"id":"0123","request":{"message":"Hi"},"serverName":null,"createdAt":1000,"expiresAt":301000,"expiresInMs":299500,"scope":{"userId":"u","workspaceId":"w","conversationId":""}}"#
        );
        assert_eq!(ElicitationView::time_left_ms(1_000, 5_000), 0);
        assert_eq!(ElicitationView::time_left_ms(i64::MAX, i64::MIN), i64::MAX);
    }

    #[test]
    fn an_error_body_leaves_out_what_it_does_not_carry() {
        let plain = ErrorBody {
            error: ErrorDetail {
                status: 404,
                message: "no such elicitation".into(),
                jsonrpc_code: None,
                errors: Vec::new(),
            },
        };
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"error":{"status":404,"message":"no such elicitation"}}"#
        );
        let content = ErrorBody {
            error: ErrorDetail {
                status: 422,
                message: "m".into(),
                jsonrpc_code: Some(-32602),
                errors: vec![ContentError {
                    path: "/a".into(),
                    keyword: "required".into(),
                    message: "x".into(),
                }],
            },
        };
        assert_eq!(
            serde_json::to_string(&content).unwrap(),
            r#"{"error":{"status":422,"message":"m","jsonrpcCode":-32602,"errors":[{"path":"/a","keyword":"required","message":"x"}]}}"#
        );
    }
}
