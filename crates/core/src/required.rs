//! URLElicitationRequiredError (-32042): a server answered a request (typically `tools/call`) with
//! URL-mode elicitations that must complete before the request is retried. Its data is parsed here
//! from any shape a host holds (the JSON-RPC error response, the error object, the official SDK's
//! `UrlElicitationRequiredError` as JSON, or the bare `data`), each elicitation with the same rules
//! and limits as an `elicitation/create` in URL mode; and [`RequiredProgress`] says when to retry.

use serde_json::{Map, Value};

use crate::json::object;

use crate::error::{child_path, ElicitationError};
use crate::limits::MAX_REQUIRED_ELICITATIONS;
use crate::reply::{CancelSource, Ending};
use crate::request::{parse_params, ParseOptions, Protocol, Request};

/// The JSON-RPC error code of URLElicitationRequiredError.
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// Parses a JSON text holding the error in any shape (a JSON string of one is accepted too).
pub fn parse_required_text(
    text: &str,
    options: &ParseOptions,
) -> Result<Vec<Request>, ElicitationError> {
    parse_required(
        &crate::json::parse_argument_unwrapped(text, "error")?,
        options,
    )
}

/// The elicitations of a -32042 error, in order, each a URL-mode request with its `elicitationId`.
pub fn parse_required(
    value: &Value,
    options: &ParseOptions,
) -> Result<Vec<Request>, ElicitationError> {
    let object = value.as_object().ok_or_else(not_an_error)?;
    if object.contains_key("error") {
        if object.contains_key("jsonrpc")
            && object.get("jsonrpc").and_then(Value::as_str) != Some("2.0")
        {
            return Err(ElicitationError::invalid("jsonrpc", "must be \"2.0\""));
        }
        let error = object
            .get("error")
            .and_then(Value::as_object)
            .ok_or_else(|| ElicitationError::invalid("error", "must be an object"))?;
        parse_error_object(error, "error", options)
    } else if object.contains_key("code") || object.contains_key("data") {
        parse_error_object(object, "", options)
    } else if object.contains_key("elicitations") {
        parse_data(object, "", options)
    } else {
        Err(not_an_error())
    }
}

fn not_an_error() -> ElicitationError {
    ElicitationError::invalid(
        "error",
        "must be a URLElicitationRequiredError (-32042): a JSON-RPC error response, its error object, or its data { elicitations }",
    )
}

/// `{ code: -32042, message, data: { elicitations } }`.
fn parse_error_object(
    error: &Map<String, Value>,
    base: &str,
    options: &ParseOptions,
) -> Result<Vec<Request>, ElicitationError> {
    let code_path = child_path(base, "code");
    match error.get("code") {
        Some(code) if code.as_i64() == Some(URL_ELICITATION_REQUIRED) => {}
        Some(_) => return Err(ElicitationError::invalid(&code_path, "must be -32042")),
        None => return Err(ElicitationError::invalid(&code_path, "is required")),
    }
    let data_path = child_path(base, "data");
    let data = error
        .get("data")
        .and_then(Value::as_object)
        .ok_or_else(|| ElicitationError::invalid(&data_path, "must be an object"))?;
    parse_data(data, &data_path, options)
}

/// `{ elicitations: [ElicitRequestURLParams, ...] }`.
fn parse_data(
    data: &Map<String, Value>,
    base: &str,
    options: &ParseOptions,
) -> Result<Vec<Request>, ElicitationError> {
    let list_path = child_path(base, "elicitations");
    let list = match data.get("elicitations") {
        Some(Value::Array(list)) => list,
        Some(_) => return Err(ElicitationError::invalid(&list_path, "must be a list")),
        None => return Err(ElicitationError::invalid(&list_path, "is required")),
    };
    if list.is_empty() {
        return Err(ElicitationError::invalid(
            &list_path,
            "must list at least one elicitation",
        ));
    }
    if list.len() > MAX_REQUIRED_ELICITATIONS {
        return Err(ElicitationError::invalid(
            &list_path,
            format!("lists more than {MAX_REQUIRED_ELICITATIONS} elicitations"),
        ));
    }
    // (elicitation id, its path): a list, not a map, since there are at most
    // MAX_REQUIRED_ELICITATIONS and std's HashMap would cost the wasm its own hash table.
    let mut seen: Vec<(String, String)> = Vec::with_capacity(list.len());
    let mut requests = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let path = child_path(&list_path, &index.to_string());
        let params = item
            .as_object()
            .ok_or_else(|| ElicitationError::invalid(&path, "must be an object"))?;
        // The error may carry only URL-mode elicitations, each with an id (MCP 2025-11-25).
        if params.get("mode").and_then(Value::as_str) != Some("url") {
            return Err(ElicitationError::invalid(
                &child_path(&path, "mode"),
                "must be \"url\"",
            ));
        }
        let id_path = child_path(&path, "elicitationId");
        if matches!(params.get("elicitationId"), None | Some(Value::Null)) {
            return Err(ElicitationError::invalid(&id_path, "is required"));
        }
        let request = parse_params(params, &path, options, Protocol::Bare, None)?;
        if let Some((_, first)) = seen.iter().find(|(id, _)| *id == request.elicitation_id) {
            return Err(ElicitationError::invalid(
                &id_path,
                format!("repeats {first}"),
            ));
        }
        seen.push((request.elicitation_id.clone(), id_path.clone()));
        requests.push(request);
    }
    Ok(requests)
}

/// What the host hears once a -32042 flow is decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every elicitation completed: retry the original request.
    Retry,
    /// One ended otherwise (declined, cancelled, timed out, dismissed): do not retry.
    Stop {
        /// `"decline"` or `"cancel"`, as the elicitation's own result would say.
        action: &'static str,
        elicitation_id: String,
    },
    /// The host withdrew the flow (its abort signal, `cancel()`): it hears an `AbortError`.
    Withdrawn,
}

impl Verdict {
    /// The value the host's promise resolves with; `None` when it rejects (withdrawn).
    pub fn result(&self) -> Option<Value> {
        match self {
            Verdict::Retry => Some(object([("retry", true.into())])),
            Verdict::Stop {
                action,
                elicitation_id,
            } => Some(object([
                ("retry", false.into()),
                ("action", (*action).into()),
                ("elicitationId", elicitation_id.clone().into()),
            ])),
            Verdict::Withdrawn => None,
        }
    }
}

/// One -32042 flow: its elicitations are presented one after another; the original request may be
/// retried once all of them completed, and not if any ends another way. Decided once.
#[derive(Debug, Clone, PartialEq)]
pub struct RequiredProgress {
    total: usize,
    completed: usize,
    decided: bool,
}

impl RequiredProgress {
    pub fn new(total: usize) -> RequiredProgress {
        RequiredProgress {
            total,
            completed: 0,
            decided: false,
        }
    }

    /// How many elicitations the flow has.
    pub fn total(&self) -> usize {
        self.total
    }

    /// How many have completed so far.
    pub fn completed(&self) -> usize {
        self.completed
    }

    /// Whether the verdict was given.
    pub fn is_decided(&self) -> bool {
        self.decided
    }

    /// One elicitation completed; the last one decides `Retry`.
    pub fn complete(&mut self) -> Option<Verdict> {
        if self.decided {
            return None;
        }
        self.completed += 1;
        if self.completed < self.total {
            return None;
        }
        self.decided = true;
        Some(Verdict::Retry)
    }

    /// One elicitation ended without completing. The user's consent (accept) decides nothing: the
    /// elicitation then waits for its completion.
    pub fn end(&mut self, ending: &Ending, elicitation_id: &str) -> Option<Verdict> {
        if self.decided {
            return None;
        }
        let verdict = match ending {
            Ending::Accept(_) => return None,
            Ending::Cancel(CancelSource::Server) => Verdict::Withdrawn,
            Ending::Decline { .. } => Verdict::Stop {
                action: "decline",
                elicitation_id: elicitation_id.to_string(),
            },
            Ending::Cancel(_) | Ending::Timeout => Verdict::Stop {
                action: "cancel",
                elicitation_id: elicitation_id.to_string(),
            },
        };
        self.decided = true;
        Some(verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Mode;
    use serde_json::json;

    fn item(id: &str) -> Value {
        json!({
            "mode": "url", "elicitationId": id, "message": "Authorize Example Co",
            "url": format!("https://mcp.example.com/connect?elicitationId={id}")
        })
    }

    fn parse(value: Value) -> Result<Vec<Request>, ElicitationError> {
        parse_required(&value, &ParseOptions::default())
    }

    fn ids(requests: &[Request]) -> Vec<&str> {
        requests
            .iter()
            .map(|request| request.elicitation_id.as_str())
            .collect()
    }

    #[test]
    fn every_shape_of_the_error_gives_its_elicitations_in_order() {
        let data = json!({"elicitations": [item("a"), item("b")]});
        let error = json!({"code": -32042, "message": "This request requires more information.", "data": data});
        let response = json!({"jsonrpc": "2.0", "id": 2, "error": error});
        // The official SDK's UrlElicitationRequiredError, as JSON.stringify writes it.
        let sdk = json!({"code": -32042, "data": data, "name": "McpError"});
        for shape in [data.clone(), error, response, sdk] {
            let requests = parse(shape).unwrap();
            assert_eq!(ids(&requests), ["a", "b"]);
            let first = &requests[0];
            assert_eq!(first.protocol, Protocol::Bare);
            assert_eq!(first.message, "Authorize Example Co");
            match &first.mode {
                Mode::Url(url) => {
                    assert_eq!(url.url, "https://mcp.example.com/connect?elicitationId=a");
                    assert_eq!(url.elicitation_id.as_deref(), Some("a"));
                }
                Mode::Form(_) => panic!("expected URL mode"),
            }
        }
        let text = data.to_string();
        assert_eq!(
            ids(&parse_required_text(&text, &ParseOptions::default()).unwrap()),
            ["a", "b"]
        );
    }

    #[test]
    fn malformed_data_is_refused_naming_the_path() {
        let cases = [
            (
                json!([item("a")]),
                "error must be a URLElicitationRequiredError",
            ),
            (
                json!({"something": 1}),
                "error must be a URLElicitationRequiredError",
            ),
            (
                json!({"code": -32602, "data": {"elicitations": [item("a")]}}),
                "code must be -32042",
            ),
            (
                json!({"data": {"elicitations": [item("a")]}}),
                "code is required",
            ),
            (json!({"code": -32042}), "data must be an object"),
            (
                json!({"jsonrpc": "2.0", "id": 1, "error": "nope"}),
                "error must be an object",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32042, "data": {"elicitations": {}}}}),
                "error.data.elicitations must be a list",
            ),
            (json!({"elicitations": "a"}), "elicitations must be a list"),
            (
                json!({"elicitations": []}),
                "elicitations must list at least one elicitation",
            ),
            (
                json!({"elicitations": [3]}),
                "elicitations.0 must be an object",
            ),
            (
                json!({"elicitations": [item("a"), {"message": "x", "requestedSchema": {"type": "object", "properties": {}}}]}),
                "elicitations.1.mode must be \"url\"",
            ),
            (
                json!({"elicitations": [{"mode": "url", "message": "x", "url": "https://a.example"}]}),
                "elicitations.0.elicitationId is required",
            ),
            (
                json!({"elicitations": [{"mode": "url", "message": "x", "url": "https://a.example", "elicitationId": ""}]}),
                "elicitations.0.elicitationId must be a non-empty string",
            ),
            (
                json!({"elicitations": [{"mode": "url", "elicitationId": "a", "url": "https://a.example"}]}),
                "elicitations.0.message is required",
            ),
            (
                json!({"elicitations": [{"mode": "url", "elicitationId": "a", "message": "x"}]}),
                "elicitations.0.url is required",
            ),
            (
                json!({"elicitations": [item("a"), item("a")]}),
                "elicitations.1.elicitationId repeats elicitations.0.elicitationId",
            ),
        ];
        for (value, expected) in cases {
            let error = parse(value.clone()).unwrap_err();
            assert_eq!(error.code, -32602, "{value}");
            assert!(
                error.message.starts_with(expected),
                "{value}: {} does not start with {expected}",
                error.message
            );
        }
        let too_many: Vec<Value> = (0..=MAX_REQUIRED_ELICITATIONS)
            .map(|i| item(&i.to_string()))
            .collect();
        let error = parse(json!({"elicitations": too_many})).unwrap_err();
        assert_eq!(
            error.message,
            "elicitations lists more than 20 elicitations"
        );
        let error = parse_required_text("{oops", &ParseOptions::default()).unwrap_err();
        assert!(error.message.starts_with("error is not valid JSON"));
    }

    #[test]
    fn hostile_sizes_inside_an_elicitation_are_refused_like_elicit_create() {
        let long = "x".repeat(crate::limits::MAX_TEXT_CHARS + 1);
        let error = parse(json!({"elicitations": [{"mode": "url", "elicitationId": "a", "message": long, "url": "https://a.example"}]}))
            .unwrap_err();
        assert_eq!(
            error.message,
            "elicitations.0.message is longer than 20000 characters"
        );
    }

    #[test]
    fn retry_once_every_elicitation_completed() {
        let mut progress = RequiredProgress::new(2);
        assert_eq!(
            progress.end(&Ending::Accept(None), "a"),
            None,
            "consent waits"
        );
        assert_eq!(progress.complete(), None);
        assert_eq!(progress.completed(), 1);
        assert_eq!(progress.complete(), Some(Verdict::Retry));
        assert!(progress.is_decided());
        assert_eq!(progress.complete(), None, "decided once");
        assert_eq!(Verdict::Retry.result(), Some(json!({"retry": true})));
    }

    #[test]
    fn any_other_end_stops_the_retry() {
        for (ending, action) in [
            (Ending::Decline { reason: None }, "decline"),
            (Ending::Cancel(CancelSource::User), "cancel"),
            (Ending::Timeout, "cancel"),
            (Ending::Cancel(CancelSource::Workspace), "cancel"),
            (Ending::Cancel(CancelSource::RateLimit), "cancel"),
            (Ending::Cancel(CancelSource::Detached), "cancel"),
        ] {
            let mut progress = RequiredProgress::new(2);
            assert_eq!(progress.complete(), None);
            let verdict = progress.end(&ending, "b").unwrap();
            assert_eq!(
                verdict.result(),
                Some(json!({"retry": false, "action": action, "elicitationId": "b"})),
                "{ending:?}"
            );
            assert_eq!(progress.end(&ending, "b"), None, "decided once");
            assert_eq!(progress.complete(), None, "decided once");
        }
        let mut progress = RequiredProgress::new(1);
        assert_eq!(
            progress.end(&Ending::Cancel(CancelSource::Server), "a"),
            Some(Verdict::Withdrawn)
        );
        assert_eq!(Verdict::Withdrawn.result(), None);
    }
}
