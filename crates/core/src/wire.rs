//! The JSON a surface hands to its host, built in one place: the detail of every event (contract
//! §7), the JSON-RPC error reply to a malformed request, and the normalized request `parseRequest`
//! returns. The web element and any other surface send exactly these shapes.

use serde_json::Value;

use crate::error::ElicitationError;
use crate::json::{self, object};
use crate::one_tap::Persist;
use crate::reply::Ending;
use crate::request::{Mode, Protocol, Request};
use crate::scope::{Scope, Tenant};
use crate::session::WaitEnd;

/// `{ code, message }` of an error, as events and JSON-RPC error replies carry it.
pub fn error_object(error: &ElicitationError) -> Value {
    object([
        ("code", error.code.into()),
        ("message", error.message.clone().into()),
    ])
}

/// The JSON-RPC error response to the request with `id`.
pub fn error_reply(id: Value, error: &ElicitationError) -> Value {
    object([
        ("jsonrpc", "2.0".into()),
        ("id", id),
        ("error", error_object(error)),
    ])
}

/// What a malformed input is answered with: `kind` says what it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// An `elicitation/create` request: a JSON-RPC one is answered with a JSON-RPC error reply.
    Request,
    /// A URLElicitationRequiredError (-32042): an error response, which nothing answers, about
    /// URL mode.
    Required,
}

/// The `invalid` event's detail for the input `text` (`None`: it was not JSON), refused with
/// `error`, while the surface works for `tenant`. What can be read of the input (its `id`, its
/// mode) is reported; nothing else of it is trusted.
pub fn invalid_detail(
    text: Option<&str>,
    error: &ElicitationError,
    tenant: &Tenant,
    kind: Malformed,
) -> Value {
    let raw: Option<Value> = text.and_then(|text| json::parse(text).ok());
    let id = raw
        .as_ref()
        .and_then(|raw| raw.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    let mode_of = |value: &Value| value.get("mode").and_then(Value::as_str) == Some("url");
    let is_url = kind == Malformed::Required
        || raw
            .as_ref()
            .is_some_and(|raw| mode_of(raw) || raw.get("params").is_some_and(mode_of));
    let is_json_rpc = raw.as_ref().is_some_and(|raw| raw.get("jsonrpc").is_some());
    let reply = if is_json_rpc && kind == Malformed::Request {
        error_reply(id.clone(), error)
    } else {
        Value::Null
    };
    let scope = Scope {
        tenant: tenant.clone(),
        server: String::new(),
        elicitation_id: String::new(),
    };
    object([
        ("id", id),
        ("mode", if is_url { "url" } else { "form" }.into()),
        ("scope", scope.to_json()),
        ("result", Value::Null),
        ("reply", reply),
        ("error", error_object(error)),
    ])
}

/// The detail every event about a held elicitation carries: `id`, `mode`, `scope`, and the
/// `result` and `reply` of `answered` (both `null` without one, or when nothing is sent back).
pub fn event_detail(request: &Request, scope: &Scope, answered: Option<&Ending>) -> Value {
    detail_remembering(request, scope, answered, None)
}

/// [`event_detail`] whose `result` and `reply` carry the scope the person chose to be remembered
/// for (`_meta.persist`, contract §13).
fn detail_remembering(
    request: &Request,
    scope: &Scope,
    answered: Option<&Ending>,
    persist: Option<Persist>,
) -> Value {
    let id = match request.protocol {
        Protocol::Bare => Value::String(request.elicitation_id.clone()),
        _ => request.id.clone().unwrap_or(Value::Null),
    };
    object([
        ("id", id),
        ("mode", request.mode_name().into()),
        ("scope", scope.to_json()),
        (
            "result",
            answered
                .and_then(|ending| ending.result_remembering(persist))
                .into(),
        ),
        (
            "reply",
            answered
                .and_then(|ending| {
                    ending.reply_remembering(&request.protocol, request.id.as_ref(), persist)
                })
                .into(),
        ),
    ])
}

/// The detail of the event an elicitation settles with (`accept`, `reject`, `cancel`,
/// `timeout`): [`event_detail`] with its result, plus `source` for a cancel and `reason` for a
/// decline.
pub fn settled_detail(request: &Request, scope: &Scope, ending: &Ending) -> Value {
    settled_detail_remembering(request, scope, ending, None)
}

/// [`settled_detail`] of an ending the person chose to be remembered for (`persist`), so its
/// `result` and `reply` carry `_meta.persist`.
pub fn settled_detail_remembering(
    request: &Request,
    scope: &Scope,
    ending: &Ending,
    persist: Option<Persist>,
) -> Value {
    let mut detail = detail_remembering(request, scope, Some(ending), persist);
    add_ending_fields(&mut detail, ending);
    detail
}

/// The detail of the event a URL-mode wait ends with (`complete`, or the ending that closed it).
/// The accept already answered, so `result` and `reply` are `null`; it names the elicitation, so
/// a host that opened the URL itself can close what it opened.
pub fn wait_ended_detail(request: &Request, scope: &Scope, end: &WaitEnd) -> Value {
    let mut detail = event_detail(request, scope, None);
    json::set(
        &mut detail,
        "elicitationId",
        Value::String(request.elicitation_id.clone()),
    );
    if let WaitEnd::Closed(Ending::Cancel(source)) = end {
        json::set(&mut detail, "source", Value::from(source.name()));
    }
    detail
}

/// The name of the event a URL-mode wait ends with.
pub fn wait_ended_event(end: &WaitEnd) -> &'static str {
    match end {
        WaitEnd::Completed => "complete",
        WaitEnd::Closed(ending) => ending.event_name(),
    }
}

fn add_ending_fields(detail: &mut Value, ending: &Ending) {
    match ending {
        Ending::Cancel(source) => json::set(detail, "source", Value::from(source.name())),
        Ending::Decline { reason } => json::set(
            detail,
            "reason",
            reason.clone().map(Value::String).unwrap_or(Value::Null),
        ),
        _ => {}
    }
}

/// `parseRequest`'s answer: the request as the core read it, with its protocol, ids, texts and
/// (form mode) its fields, or (URL mode) its URL.
pub fn normalized_request(request: &Request) -> Value {
    let protocol = match request.protocol {
        Protocol::JsonRpc => "jsonrpc",
        Protocol::Envelope => "envelope",
        Protocol::Bare => "params",
    };
    let mut normalized = object([
        ("protocol", protocol.into()),
        ("id", request.id.clone().into()),
        ("mode", request.mode_name().into()),
        (
            "elicitationId",
            (!request.elicitation_id.is_empty())
                .then(|| request.elicitation_id.clone())
                .into(),
        ),
        ("title", request.title.clone().into()),
        ("message", request.message.clone().into()),
        ("timeoutMs", request.timeout_ms.into()),
    ]);
    match &request.mode {
        Mode::Form(schema) => json::set(
            &mut normalized,
            "fields",
            schema
                .fields
                .iter()
                .map(|field| {
                    object([
                        ("name", field.name.clone().into()),
                        ("path", field.path.clone().into()),
                        ("label", field.label.clone().into()),
                        ("required", field.required.into()),
                        ("default", field.default.clone().into()),
                        ("secret", field.secret.into()),
                    ])
                })
                .collect(),
        ),
        Mode::Url(url) => json::set(&mut normalized, "url", Value::String(url.url.clone())),
    }
    normalized
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::CancelSource;
    use crate::request::{parse_request, ParseOptions};
    use serde_json::json;

    fn tenant() -> Tenant {
        Tenant {
            user_id: "u".into(),
            workspace_id: "w".into(),
            conversation_id: "c".into(),
        }
    }

    fn scope(id: &str) -> Scope {
        Scope {
            tenant: tenant(),
            server: "Weather".into(),
            elicitation_id: id.into(),
        }
    }

    fn parsed(value: Value) -> Request {
        parse_request(
            &value,
            &ParseOptions {
                strict: false,
                local_id: "local-1".into(),
            },
        )
        .unwrap()
    }

    fn form_rpc() -> Request {
        parsed(
            json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {
            "message": "City?",
            "requestedSchema": {"type": "object", "properties": {"city": {"type": "string", "title": "City"}},
                "required": ["city"]}}}),
        )
    }

    #[test]
    fn a_malformed_json_rpc_request_gets_an_error_reply_with_its_id() {
        let error = ElicitationError::invalid("params.message", "is required");
        let text = r#"{"jsonrpc":"2.0","id":"r1","method":"elicitation/create","params":{}}"#;
        let detail = invalid_detail(Some(text), &error, &tenant(), Malformed::Request);
        assert_eq!(
            detail,
            json!({
                "id": "r1",
                "mode": "form",
                "scope": {"userId": "u", "workspaceId": "w", "conversationId": "c", "elicitationId": ""},
                "result": null,
                "reply": {"jsonrpc": "2.0", "id": "r1",
                    "error": {"code": -32602, "message": "params.message is required"}},
                "error": {"code": -32602, "message": "params.message is required"},
            })
        );
    }

    #[test]
    fn malformed_bare_params_and_non_json_are_not_answered() {
        let error = ElicitationError::invalid("url", "is required");
        let detail = invalid_detail(
            Some(r#"{"mode":"url","message":"m"}"#),
            &error,
            &tenant(),
            Malformed::Request,
        );
        assert_eq!(detail["mode"], "url");
        assert_eq!(detail["id"], Value::Null);
        assert_eq!(detail["reply"], Value::Null);
        let detail = invalid_detail(None, &error, &tenant(), Malformed::Request);
        assert_eq!(detail["mode"], "form");
        assert_eq!(detail["reply"], Value::Null);
    }

    #[test]
    fn a_malformed_required_error_is_url_mode_and_never_answered() {
        let error = ElicitationError::invalid("error.data", "is required");
        let text = r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32042}}"#;
        let detail = invalid_detail(Some(text), &error, &tenant(), Malformed::Required);
        assert_eq!(detail["id"], 4);
        assert_eq!(detail["mode"], "url");
        assert_eq!(detail["reply"], Value::Null);
        assert_eq!(detail["error"]["code"], -32602);
    }

    #[test]
    fn an_accept_carries_its_result_and_the_reply_in_the_request_protocol() {
        let ending = Ending::Accept(Some(json!({"city": "Lisbon"})));
        let detail = settled_detail(&form_rpc(), &scope("7"), &ending);
        assert_eq!(
            detail,
            json!({
                "id": 7,
                "mode": "form",
                "scope": {"userId": "u", "workspaceId": "w", "conversationId": "c", "elicitationId": "7"},
                "result": {"action": "accept", "content": {"city": "Lisbon"}},
                "reply": {"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "content": {"city": "Lisbon"}}},
            })
        );
    }

    #[test]
    fn a_remembered_accept_carries_meta_persist_in_result_and_reply() {
        let ending = Ending::Accept(Some(json!({"ok": true})));
        let detail =
            settled_detail_remembering(&form_rpc(), &scope("7"), &ending, Some(Persist::Session));
        let result =
            json!({"action": "accept", "content": {"ok": true}, "_meta": {"persist": "session"}});
        assert_eq!(detail["result"], result);
        assert_eq!(
            detail["reply"],
            json!({"jsonrpc": "2.0", "id": 7, "result": result})
        );
        let once = settled_detail(&form_rpc(), &scope("7"), &ending);
        assert_eq!(once["result"].get("_meta"), None);
    }

    #[test]
    fn a_cancel_names_its_source_and_a_decline_its_reason() {
        let server = settled_detail(
            &form_rpc(),
            &scope("7"),
            &Ending::Cancel(CancelSource::Server),
        );
        assert_eq!(server["source"], "server");
        assert_eq!(server["result"], Value::Null);
        assert_eq!(server["reply"], Value::Null);
        let declined = settled_detail(
            &form_rpc(),
            &scope("7"),
            &Ending::Decline {
                reason: Some("not now".into()),
            },
        );
        assert_eq!(declined["reason"], "not now");
        assert_eq!(declined["result"], json!({"action": "decline"}));
        let silent = settled_detail(&form_rpc(), &scope("7"), &Ending::Decline { reason: None });
        assert_eq!(silent["reason"], Value::Null);
        assert_eq!(silent.get("source"), None);
    }

    #[test]
    fn bare_params_are_named_by_their_scope_id() {
        let request = parsed(
            json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
        );
        let detail = event_detail(&request, &scope("local-1"), None);
        assert_eq!(detail["id"], "local-1");
        assert_eq!(detail["result"], Value::Null);
    }

    #[test]
    fn an_ended_wait_names_the_elicitation_and_sends_nothing() {
        let request = parsed(
            json!({"mode": "url", "message": "m", "url": "https://a.example/x",
            "elicitationId": "e-1"}),
        );
        let done = wait_ended_detail(&request, &scope("e-1"), &WaitEnd::Completed);
        assert_eq!(done["elicitationId"], "e-1");
        assert_eq!(done["result"], Value::Null);
        assert_eq!(done["reply"], Value::Null);
        assert_eq!(wait_ended_event(&WaitEnd::Completed), "complete");
        let closed = WaitEnd::Closed(Ending::Cancel(CancelSource::User));
        let cancelled = wait_ended_detail(&request, &scope("e-1"), &closed);
        assert_eq!(cancelled["source"], "user");
        assert_eq!(wait_ended_event(&closed), "cancel");
    }

    #[test]
    fn parse_request_reports_fields_or_the_url() {
        assert_eq!(
            normalized_request(&form_rpc()),
            json!({
                "protocol": "jsonrpc", "id": 7, "mode": "form", "elicitationId": "7", "title": null,
                "message": "City?", "timeoutMs": null,
                "fields": [{"name": "city", "path": ["city"], "label": "City", "required": true,
                    "default": null, "secret": false}],
            })
        );
        let url = parsed(json!({"mode": "url", "message": "m", "url": "https://a.example/x"}));
        let normalized = normalized_request(&url);
        assert_eq!(normalized["protocol"], "params");
        assert_eq!(normalized["url"], "https://a.example/x");
        assert_eq!(normalized.get("fields"), None);
    }
}
