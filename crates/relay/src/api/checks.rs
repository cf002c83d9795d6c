//! The core's rules applied to what hosts and people send: a host's request is parsed by
//! `request::parse_request` (or, for one `inputRequests` entry, by `input_required`), and a
//! person's answer is checked against the request's mode and `requestedSchema`.

use koder_mcp_elicitation_core::content::{validate_content_with, ContentError};
use koder_mcp_elicitation_core::error::ElicitationError;
use koder_mcp_elicitation_core::i18n::{Catalog, Locale};
use koder_mcp_elicitation_core::input_required::parse_input_round;
use koder_mcp_elicitation_core::request::{parse_request, Mode, ParseOptions, Protocol, Request};
use serde_json::{Map, Value};

/// The key an `inputRequests` entry is parsed under; it is cut from the core's messages again.
const ENTRY_KEY: &str = "request";
const ENTRY_PREFIX: &str = "inputRequests.request.";

/// A host's request the core accepted.
#[derive(Debug, Clone)]
pub struct CheckedRequest {
    /// What is stored and streamed to the element: the request as sent, a JSON string decoded,
    /// an `inputRequests` entry reduced to its params (bare `ElicitRequestParams`).
    pub stored: Value,
    /// The core's reading of it.
    pub request: Request,
}

/// Checks a host's `request`: any shape the element takes (JSON-RPC request, bare params, Koder
/// envelope, a JSON string of one) or one `inputRequests` entry `{"method","params"}`.
pub fn check_request(value: &Value, local_id: &str) -> Result<CheckedRequest, ElicitationError> {
    let options = ParseOptions {
        strict: false,
        local_id: local_id.to_string(),
    };
    match value {
        Value::String(text) => {
            let decoded =
                koder_mcp_elicitation_core::json::parse_argument_unwrapped(text, "request")?;
            if decoded.is_string() {
                return Err(ElicitationError::invalid(
                    "request",
                    "must be a JSON-RPC request, MCP elicitation params or a Koder envelope object",
                ));
            }
            check_request(&decoded, local_id)
        }
        Value::Object(object)
            if object.contains_key("method") && !object.contains_key("jsonrpc") =>
        {
            check_entry(value, &options)
        }
        _ => Ok(CheckedRequest {
            request: parse_request(value, &options)?,
            stored: value.clone(),
        }),
    }
}

/// One `inputRequests` entry, parsed the way the core parses a round's entries.
fn check_entry(entry: &Value, options: &ParseOptions) -> Result<CheckedRequest, ElicitationError> {
    let mut map = Map::new();
    map.insert(ENTRY_KEY.to_string(), entry.clone());
    let round = parse_input_round(&Value::Object(map), options).map_err(|error| {
        let message = error
            .message
            .strip_prefix(ENTRY_PREFIX)
            .map(str::to_string)
            .unwrap_or(error.message);
        ElicitationError { message, ..error }
    })?;
    match round.elicitations.into_iter().next() {
        Some(keyed) => Ok(CheckedRequest {
            stored: keyed.params,
            request: keyed.request,
        }),
        // Any other method (sampling, roots…) is not for a person's browser.
        None => Err(ElicitationError::invalid(
            "method",
            "must be \"elicitation/create\"",
        )),
    }
}

/// Re-reads a stored request (always an object the core accepted at creation).
pub fn stored_request(stored: &Value) -> Result<Request, ElicitationError> {
    parse_request(
        stored,
        &ParseOptions {
            strict: false,
            local_id: String::new(),
        },
    )
}

/// The form's schema inside a stored request of the given protocol.
fn requested_schema<'a>(stored: &'a Value, request: &Request) -> Option<&'a Value> {
    match request.protocol {
        Protocol::JsonRpc => stored.get("params")?.get("requestedSchema"),
        Protocol::Bare => stored.get("requestedSchema"),
        Protocol::Envelope => stored.get("schema"),
    }
}

/// Why an answer cannot be stored.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerError {
    /// Malformed for the request (400, the core's -32602 shape).
    Invalid(ElicitationError),
    /// Content breaking the form's rules (422).
    Content(Vec<ContentError>),
}

/// Checks a person's `ElicitResult` against the stored request and returns what to store:
/// `{"action"}` or `{"action","content"}` (other members are dropped). Content errors are worded
/// in `locale` of `messages`.
pub fn check_answer(
    answer: &Value,
    stored: &Value,
    messages: &Catalog,
    locale: Locale,
) -> Result<Value, AnswerError> {
    let object = answer.as_object().ok_or_else(|| {
        AnswerError::Invalid(ElicitationError::invalid(
            "result",
            "must be an ElicitResult object",
        ))
    })?;
    let action = match object.get("action") {
        Some(Value::String(action))
            if action == "accept" || action == "decline" || action == "cancel" =>
        {
            action.as_str()
        }
        Some(_) => {
            return Err(AnswerError::Invalid(ElicitationError::invalid(
                "action",
                "must be \"accept\", \"decline\" or \"cancel\"",
            )))
        }
        None => {
            return Err(AnswerError::Invalid(ElicitationError::invalid(
                "action",
                "is required",
            )))
        }
    };
    let content = match object.get("content") {
        None => None,
        Some(Value::Object(content)) => Some(content),
        Some(_) => {
            return Err(AnswerError::Invalid(ElicitationError::invalid(
                "content",
                "must be an object",
            )))
        }
    };
    if action != "accept" && content.is_some() {
        return Err(AnswerError::Invalid(ElicitationError::invalid(
            "content",
            format!("is only allowed with \"accept\", not \"{action}\""),
        )));
    }
    if action == "accept" {
        let request = stored_request(stored).map_err(AnswerError::Invalid)?;
        match &request.mode {
            Mode::Url(_) if content.is_some() => {
                return Err(AnswerError::Invalid(ElicitationError::invalid(
                    "content",
                    "is not allowed for a URL-mode elicitation",
                )))
            }
            Mode::Url(_) => {}
            Mode::Form(_) => {
                let schema = requested_schema(stored, &request).ok_or_else(|| {
                    AnswerError::Invalid(ElicitationError::invalid(
                        "requestedSchema",
                        "is required",
                    ))
                })?;
                // No content counts as an empty form: required fields are then missing.
                let given = Value::Object(content.cloned().unwrap_or_default());
                let errors = validate_content_with(messages, schema, &given, locale)
                    .map_err(AnswerError::Invalid)?;
                if !errors.is_empty() {
                    return Err(AnswerError::Content(errors));
                }
            }
        }
    }
    let mut stored_answer = Map::new();
    stored_answer.insert("action".into(), Value::String(action.to_string()));
    if let Some(content) = content {
        stored_answer.insert("content".into(), Value::Object(content.clone()));
    }
    Ok(Value::Object(stored_answer))
}

/// Whether a stored request is URL mode (only those complete).
pub fn is_url_mode(stored: &Value) -> bool {
    matches!(
        stored_request(stored).map(|request| request.mode),
        Ok(Mode::Url(_))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(answer: &Value, stored: &Value) -> Result<Value, AnswerError> {
        check_answer(answer, stored, &Catalog::new(), Locale::EnUs)
    }
    use serde_json::json;

    fn form() -> Value {
        json!({"message": "City?", "requestedSchema": {"type": "object",
            "properties": {"city": {"type": "string", "minLength": 2}}, "required": ["city"]}})
    }

    #[test]
    fn every_shape_and_an_entry_are_accepted() {
        let bare = check_request(&form(), "x").unwrap();
        assert_eq!(bare.stored, form());
        let rpc =
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": form()});
        assert_eq!(check_request(&rpc, "x").unwrap().stored, rpc);
        let entry = json!({"method": "elicitation/create", "params": form()});
        assert_eq!(check_request(&entry, "x").unwrap().stored, form());
        let text = Value::String(form().to_string());
        assert_eq!(check_request(&text, "x").unwrap().stored, form());
        let url = json!({"mode": "url", "message": "Sign in", "url": "https://example.com"});
        assert!(is_url_mode(&check_request(&url, "x").unwrap().stored));
    }

    #[test]
    fn refusals_carry_the_core_message() {
        let missing = check_request(&json!({"requestedSchema": {"type": "object"}}), "x");
        assert_eq!(missing.unwrap_err().message, "message is required");
        let entry = json!({"method": "elicitation/create", "params": {"requestedSchema": {}}});
        assert_eq!(
            check_request(&entry, "x").unwrap_err().message,
            "params.message is required"
        );
        let sampling = json!({"method": "sampling/createMessage", "params": {}});
        assert_eq!(
            check_request(&sampling, "x").unwrap_err().message,
            "method must be \"elicitation/create\""
        );
        assert_eq!(check_request(&json!(3), "x").unwrap_err().code, -32602);
    }

    #[test]
    fn answers() {
        let stored = form();
        assert_eq!(
            check(
                &json!({"action": "accept", "content": {"city": "Lisbon"}, "x": 1}),
                &stored
            ),
            Ok(json!({"action": "accept", "content": {"city": "Lisbon"}}))
        );
        assert_eq!(
            check(&json!({"action": "decline"}), &stored),
            Ok(json!({"action": "decline"}))
        );
        let Err(AnswerError::Content(errors)) = check(
            &json!({"action": "accept", "content": {"city": "L"}}),
            &stored,
        ) else {
            panic!("expected content errors");
        };
        assert_eq!(errors[0].path, "/city");
        assert!(matches!(
            check(&json!({"action": "accept"}), &stored),
            Err(AnswerError::Content(_))
        ));
        for bad in [
            json!({}),
            json!({"action": "maybe"}),
            json!({"action": "accept", "content": [1]}),
            json!({"action": "decline", "content": {}}),
            json!([1]),
        ] {
            assert!(
                matches!(check(&bad, &stored), Err(AnswerError::Invalid(_))),
                "{bad}"
            );
        }
        let url = json!({"mode": "url", "message": "Sign in", "url": "https://example.com"});
        assert!(check(&json!({"action": "accept"}), &url).is_ok());
        assert!(matches!(
            check(&json!({"action": "accept", "content": {}}), &url),
            Err(AnswerError::Invalid(_))
        ));
    }
}
