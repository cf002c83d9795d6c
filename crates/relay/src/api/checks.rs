//! The core's rules applied to what hosts and people send: a host's request is parsed by
//! `request::parse_request` (or, for one `inputRequests` entry, by
//! `input_required::parse_input_request`), and a person's answer is checked by
//! `answer::check_answer`, as the web element and the terminal decide.

use koder_mcp_elicitation_core::error::ElicitationError;
use koder_mcp_elicitation_core::input_required::parse_input_request;
use koder_mcp_elicitation_core::request::{parse_request, ParseOptions, Request};
use serde_json::Value;

pub use koder_mcp_elicitation_core::answer::{
    check_answer, is_url_mode, stored_request, AnswerError,
};

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
        // A JSON-RPC request has a method too, but only an entry goes without `jsonrpc`.
        Value::Object(object)
            if object.contains_key("method") && !object.contains_key("jsonrpc") =>
        {
            let entry = parse_input_request(value, &options)?;
            Ok(CheckedRequest {
                stored: entry.params,
                request: entry.request,
            })
        }
        _ => Ok(CheckedRequest {
            request: parse_request(value, &options)?,
            stored: value.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let checked = check_request(&entry, "x").unwrap();
        assert_eq!(checked.stored, form());
        assert_eq!(checked.request.elicitation_id, "x");
        let entry_text = Value::String(entry.to_string());
        assert_eq!(check_request(&entry_text, "x").unwrap().stored, form());
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
}
