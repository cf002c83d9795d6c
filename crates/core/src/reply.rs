//! How a settled elicitation is reported: the MCP `ElicitResult`, and the same result wrapped in the
//! protocol the request came in (JSON-RPC response, Koder envelope reply, or the bare result).

use serde_json::Value;

use crate::json::{self, object};
use crate::one_tap::Persist;
use crate::request::Protocol;

/// Who ended an elicitation with `cancel` (event detail `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelSource {
    /// Esc, the cancel button.
    User,
    /// The server withdrew the request (abort signal, `cancel()`): nothing is sent back.
    Server,
    /// The tenant scope changed.
    Workspace,
    /// Too many elicitations from one server within a minute.
    RateLimit,
    /// The element left the document.
    Detached,
}

impl CancelSource {
    /// The `detail.source` string.
    pub fn name(self) -> &'static str {
        match self {
            CancelSource::User => "user",
            CancelSource::Server => "server",
            CancelSource::Workspace => "workspace",
            CancelSource::RateLimit => "rate-limit",
            CancelSource::Detached => "detached",
        }
    }
}

/// How an elicitation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// Form content, or `None` for URL-mode consent.
    Accept(Option<Value>),
    Decline {
        reason: Option<String>,
    },
    Cancel(CancelSource),
    Timeout,
}

impl Ending {
    /// The DOM event announcing it.
    pub fn event_name(&self) -> &'static str {
        match self {
            Ending::Accept(_) => "accept",
            Ending::Decline { .. } => "reject",
            Ending::Cancel(_) => "cancel",
            Ending::Timeout => "timeout",
        }
    }

    /// The `ElicitResult` to send back, or `None` when nothing must be sent.
    pub fn result(&self) -> Option<Value> {
        self.result_remembering(None)
    }

    /// [`Ending::result`], with `_meta.persist` naming `persist` when the person accepted and
    /// chose to be remembered (contract §13); any other ending carries no `_meta`.
    pub fn result_remembering(&self, persist: Option<Persist>) -> Option<Value> {
        let action = match self {
            Ending::Accept(_) => "accept",
            Ending::Decline { .. } => "decline",
            Ending::Cancel(CancelSource::Server) => return None,
            Ending::Cancel(_) | Ending::Timeout => "cancel",
        };
        let mut result = object([("action", action.into())]);
        if let Ending::Accept(content) = self {
            if let Some(content) = content {
                json::set(&mut result, "content", content.clone());
            }
            if let Some(persist) = persist {
                json::set(
                    &mut result,
                    "_meta",
                    object([("persist", persist.name().into())]),
                );
            }
        }
        Some(result)
    }

    /// The result in the request's own protocol (`None` when nothing must be sent).
    pub fn reply(&self, protocol: &Protocol, id: Option<&Value>) -> Option<Value> {
        self.reply_remembering(protocol, id, None)
    }

    /// [`Ending::reply`] of [`Ending::result_remembering`]: a JSON-RPC response or a bare result
    /// carries the result's `_meta`, and a Koder envelope reply carries it beside `content`.
    pub fn reply_remembering(
        &self,
        protocol: &Protocol,
        id: Option<&Value>,
        persist: Option<Persist>,
    ) -> Option<Value> {
        let result = self.result_remembering(persist)?;
        Some(match protocol {
            Protocol::JsonRpc => object([
                ("jsonrpc", "2.0".into()),
                ("id", id.cloned().unwrap_or(Value::Null)),
                ("result", result),
            ]),
            Protocol::Bare => result,
            Protocol::Envelope => {
                let kind = match self {
                    Ending::Accept(_) => "elicitation/accept",
                    Ending::Decline { .. } => "elicitation/reject",
                    Ending::Cancel(_) => "elicitation/cancel",
                    Ending::Timeout => "elicitation/timeout",
                };
                let mut reply = object([
                    ("type", kind.into()),
                    ("id", id.cloned().unwrap_or(Value::Null)),
                ]);
                // The result's own fields but `action`: the content, and a remembered accept's
                // `_meta`.
                if let Value::Object(fields) = &result {
                    for (name, value) in fields {
                        if name != "action" {
                            json::set(&mut reply, name, value.clone());
                        }
                    }
                }
                let reason = match self {
                    Ending::Decline { reason } => reason.as_deref(),
                    Ending::Cancel(source) => Some(source.name()),
                    _ => None,
                };
                if let Some(reason) = reason {
                    json::set(&mut reply, "reason", reason.into());
                }
                reply
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_follow_the_mcp_shape() {
        assert_eq!(
            Ending::Accept(Some(json!({"a": 1}))).result(),
            Some(json!({"action": "accept", "content": {"a": 1}}))
        );
        assert_eq!(
            Ending::Accept(None).result(),
            Some(json!({"action": "accept"}))
        );
        assert_eq!(
            Ending::Decline { reason: None }.result(),
            Some(json!({"action": "decline"}))
        );
        assert_eq!(Ending::Timeout.result(), Some(json!({"action": "cancel"})));
        assert_eq!(
            Ending::Cancel(CancelSource::User).result(),
            Some(json!({"action": "cancel"}))
        );
        assert_eq!(Ending::Cancel(CancelSource::Server).result(), None);
    }

    #[test]
    fn replies_use_the_request_protocol() {
        let accept = Ending::Accept(Some(json!({"city": "Lisbon"})));
        assert_eq!(
            accept.reply(&Protocol::JsonRpc, Some(&json!(7))),
            Some(
                json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "content": {"city": "Lisbon"}}})
            )
        );
        assert_eq!(accept.reply(&Protocol::Bare, None), accept.result());
        assert_eq!(
            accept.reply(&Protocol::Envelope, Some(&json!("e_123"))),
            Some(
                json!({"type": "elicitation/accept", "id": "e_123", "content": {"city": "Lisbon"}})
            )
        );
        assert_eq!(
            Ending::Decline {
                reason: Some("no".into())
            }
            .reply(&Protocol::Envelope, Some(&json!("e"))),
            Some(json!({"type": "elicitation/reject", "id": "e", "reason": "no"}))
        );
        assert_eq!(
            Ending::Timeout.reply(&Protocol::Envelope, Some(&json!("e"))),
            Some(json!({"type": "elicitation/timeout", "id": "e"}))
        );
        assert_eq!(
            Ending::Cancel(CancelSource::Server).reply(&Protocol::JsonRpc, Some(&json!(1))),
            None
        );
    }

    #[test]
    fn a_remembered_accept_carries_meta_persist_in_every_protocol() {
        let accept = Ending::Accept(Some(json!({"ok": true})));
        let always = Some(Persist::Always);
        assert_eq!(
            accept.result_remembering(always),
            Some(
                json!({"action": "accept", "content": {"ok": true}, "_meta": {"persist": "always"}})
            )
        );
        assert_eq!(
            accept.reply_remembering(&Protocol::JsonRpc, Some(&json!(3)), Some(Persist::Session)),
            Some(json!({"jsonrpc": "2.0", "id": 3, "result":
                {"action": "accept", "content": {"ok": true}, "_meta": {"persist": "session"}}}))
        );
        assert_eq!(
            accept.reply_remembering(&Protocol::Bare, None, always),
            accept.result_remembering(always)
        );
        assert_eq!(
            accept.reply_remembering(&Protocol::Envelope, Some(&json!("e")), always),
            Some(
                json!({"type": "elicitation/accept", "id": "e", "content": {"ok": true},
                "_meta": {"persist": "always"}})
            )
        );
    }

    #[test]
    fn only_an_accept_is_remembered() {
        let always = Some(Persist::Always);
        assert_eq!(
            Ending::Decline { reason: None }.result_remembering(always),
            Some(json!({"action": "decline"}))
        );
        assert_eq!(
            Ending::Cancel(CancelSource::User).reply_remembering(
                &Protocol::Envelope,
                Some(&json!("e")),
                always
            ),
            Some(json!({"type": "elicitation/cancel", "id": "e", "reason": "user"}))
        );
        assert_eq!(
            Ending::Accept(None).result_remembering(None),
            Some(json!({"action": "accept"}))
        );
    }
}
