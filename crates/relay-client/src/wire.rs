//! What the relay and its clients share: the clock, the id maker, and the JSON bodies of the
//! host API and of the people's stream (field names as `crates/relay/openapi.json` gives them).

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Milliseconds since the Unix epoch (0 on a clock set before it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A fresh id: 128 random bits as 32 lowercase hex characters; an error when the system has no
/// randomness to give.
pub fn random_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Whose browser an elicitation goes to (the relay's tenant), as a host names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    /// The person: the `sub` of their token.
    pub user_id: String,
    /// Their workspace: the workspace claim.
    pub workspace_id: String,
    /// The conversation; a token with a conversation claim only sees its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
}

impl Scope {
    /// A person in a workspace, in no particular conversation.
    pub fn new(user_id: impl Into<String>, workspace_id: impl Into<String>) -> Scope {
        Scope {
            user_id: user_id.into(),
            workspace_id: workspace_id.into(),
            conversation_id: None,
        }
    }

    /// The same person, in one conversation.
    pub fn in_conversation(mut self, conversation_id: impl Into<String>) -> Scope {
        self.conversation_id = Some(conversation_id.into());
        self
    }
}

/// `POST /v1/elicitations`: the body a host sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateElicitation {
    /// Whose browser it goes to.
    pub scope: Scope,
    /// Any request shape the element takes; usually the `elicitation/create` params.
    pub request: Value,
    /// The MCP server's name, shown in the person's dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// How long the person has, in ms (the relay clamps it to [1000, 86400000]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// The relay's 201 answer to a create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    /// The elicitation's id.
    pub id: String,
    /// When the relay expires it, ms since the Unix epoch.
    pub expires_at: i64,
}

/// Where an elicitation is, in the host API's words.
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

/// The host's view of one elicitation (`GET …/result`, `DELETE …`): `{"status":"pending"}`, or
/// the final status with the ElicitResult (`{"action":"cancel"}` when expired or withdrawn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostView {
    /// Where it is.
    pub status: HostStatus,
    /// The ElicitResult, once it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// The scope as a person's view reports it: `conversationId` is `""` when the host gave none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewScope {
    /// The person.
    pub user_id: String,
    /// Their workspace.
    pub workspace_id: String,
    /// The conversation, or `""`.
    pub conversation_id: String,
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn random_ids_are_32_lowercase_hex_and_differ() {
        let first = random_id().unwrap();
        let second = random_id().unwrap();
        for id in [&first, &second] {
            assert_eq!(id.len(), 32, "{id}");
            assert!(
                id.bytes()
                    .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)),
                "{id}"
            );
        }
        assert_ne!(first, second);
    }

    #[test]
    fn now_ms_is_the_unix_clock_in_milliseconds() {
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let now = now_ms();
        let after = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis();
        assert!(i128::from(now) >= before as i128 && i128::from(now) <= after as i128);
    }

    #[test]
    fn a_create_body_leaves_out_what_the_host_did_not_say() {
        let body = CreateElicitation {
            scope: Scope::new("u", "w"),
            request: json!({ "message": "Proceed?" }),
            server_name: None,
            timeout_ms: None,
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({ "scope": { "userId": "u", "workspaceId": "w" }, "request": { "message": "Proceed?" } })
        );
        let body = CreateElicitation {
            scope: Scope::new("u", "w").in_conversation("c"),
            server_name: Some("Weather".into()),
            timeout_ms: Some(1000),
            ..body
        };
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text,
            r#"{"scope":{"userId":"u","workspaceId":"w","conversationId":"c"},"request":{"message":"Proceed?"},"serverName":"Weather","timeoutMs":1000}"#
        );
        assert_eq!(
            serde_json::from_str::<CreateElicitation>(&text).unwrap(),
            body
        );
    }

    #[test]
    fn created_and_host_views_read_the_relays_json() {
        let created: Created =
            serde_json::from_value(json!({ "id": "ab", "expiresAt": 1_700_000_000_000_i64 }))
                .unwrap();
        assert_eq!(
            created,
            Created {
                id: "ab".into(),
                expires_at: 1_700_000_000_000
            }
        );
        assert!(serde_json::from_value::<Created>(json!({ "id": "ab" })).is_err());

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
    }

    #[test]
    fn an_elicitation_view_has_the_fields_the_element_reads_in_order() {
        let view = ElicitationView {
            id: "0123".into(),
            request: json!({ "message": "Hi" }),
            server_name: None,
            created_at: 1_000,
            expires_at: 301_000,
            expires_in_ms: ElicitationView::time_left_ms(301_000, 1_500),
            scope: ViewScope {
                user_id: "u".into(),
                workspace_id: "w".into(),
                conversation_id: String::new(),
            },
        };
        assert_eq!(
            serde_json::to_string(&view).unwrap(),
            r#"{"id":"0123","request":{"message":"Hi"},"serverName":null,"createdAt":1000,"expiresAt":301000,"expiresInMs":299500,"scope":{"userId":"u","workspaceId":"w","conversationId":""}}"#
        );
        assert_eq!(ElicitationView::time_left_ms(1_000, 5_000), 0);
        assert_eq!(ElicitationView::time_left_ms(i64::MAX, i64::MIN), i64::MAX);
    }
}
