//! One round of an MCP 2026-07-28 multi round-trip request: a server answered `tools/call`,
//! `prompts/get` or `resources/read` with an `InputRequiredResult`, whose `inputRequests` map a
//! server-chosen key to a request the client must fulfil before it retries. Its elicitations are
//! parsed here, by key and in order, each with the same rules and limits as an
//! `elicitation/create`; every other entry (sampling, roots, anything newer) is handed back
//! untouched for the host; and [`input_responses`] builds the `inputResponses` of the retry.
//!
//! Accepted shapes: the `InputRequiredResult` object, a JSON-RPC response whose `result` is one,
//! a bare `inputRequests` map (key → `{method, params}`), or a JSON string of any of them.
//! An object holding none of `resultType`, `inputRequests` and `requestState` is a bare map, and
//! one holding `jsonrpc` is a response (so a bare map cannot use those four words as keys).
//!
//! Every error is the usual -32602 naming the key, e.g. `inputRequests.github_login.params.message
//! is required`; in a JSON-RPC response the path starts at `result.`.
//!
//! [`parse_input_request`] reads one entry on its own, with the same rules and paths that start
//! at the entry (`params.message is required`): what a relay stores when a host hands it one.

use serde_json::{Map, Value};

use crate::error::{child_path, ElicitationError};
use crate::limits::{MAX_INPUT_KEY_CHARS, MAX_INPUT_REQUESTS};
use crate::request::{parse_params, ParseOptions, Protocol, Request};

/// The only `method` of an entry this module parses; every other one goes to [`InputRound::others`].
pub const ELICITATION_METHOD: &str = "elicitation/create";

/// The `resultType` of an `InputRequiredResult`.
pub const INPUT_REQUIRED: &str = "input_required";

/// One elicitation entry of a round.
#[derive(Debug, Clone)]
pub struct KeyedElicitation {
    /// The server-chosen key, kept verbatim: the `inputResponses` answer under it.
    pub key: String,
    /// The entry's `params` object as sent (bare `ElicitRequestParams`), to hand to a surface.
    pub params: Value,
    /// The params parsed like any request: protocol Bare, no id, `elicitation_id` = the key.
    pub request: Request,
}

/// One round: what a surface shows, and what it hands back untouched.
#[derive(Debug, Clone, Default)]
pub struct InputRound {
    /// The `elicitation/create` entries, in the map's order.
    pub elicitations: Vec<KeyedElicitation>,
    /// Every other entry (sampling, roots, unknown methods), untouched, in the map's order.
    pub others: Map<String, Value>,
    /// `requestState`, verbatim: the retry must echo it exactly, and never read it.
    pub request_state: Option<String>,
}

/// Parses a JSON text holding a round in any accepted shape (a JSON string of one too).
pub fn parse_input_round_text(
    text: &str,
    options: &ParseOptions,
) -> Result<InputRound, ElicitationError> {
    parse_input_round(
        &crate::json::parse_argument_unwrapped(text, "input")?,
        options,
    )
}

/// Parses an already decoded round in any accepted shape.
pub fn parse_input_round(
    value: &Value,
    options: &ParseOptions,
) -> Result<InputRound, ElicitationError> {
    let object = value.as_object().ok_or_else(not_a_round)?;
    if object.contains_key("jsonrpc") {
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(ElicitationError::invalid("jsonrpc", "must be \"2.0\""));
        }
        let result = object
            .get("result")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ElicitationError::invalid("result", "must be an InputRequiredResult object")
            })?;
        // A response's result is a result: it has to say it is one that asks for input.
        if !result.contains_key("resultType") {
            return Err(ElicitationError::invalid(
                "result.resultType",
                "must be \"input_required\"",
            ));
        }
        parse_result(result, "result", options)
    } else if ["resultType", "inputRequests", "requestState"]
        .iter()
        .any(|field| object.contains_key(*field))
    {
        parse_result(object, "", options)
    } else {
        parse_requests(object, "inputRequests", options)
    }
}

fn not_a_round() -> ElicitationError {
    ElicitationError::invalid(
        "input",
        "must be an InputRequiredResult, a JSON-RPC response holding one, or an inputRequests map",
    )
}

/// `{ resultType: "input_required", inputRequests?, requestState? }`.
fn parse_result(
    result: &Map<String, Value>,
    base: &str,
    options: &ParseOptions,
) -> Result<InputRound, ElicitationError> {
    match result.get("resultType") {
        None => {}
        Some(Value::String(kind)) if kind == INPUT_REQUIRED => {}
        Some(_) => {
            return Err(ElicitationError::invalid(
                &child_path(base, "resultType"),
                "must be \"input_required\"",
            ))
        }
    }
    let request_state = match result.get("requestState") {
        None => None,
        Some(Value::String(state)) => Some(state.clone()),
        Some(_) => {
            return Err(ElicitationError::invalid(
                &child_path(base, "requestState"),
                "must be a string",
            ))
        }
    };
    let requests_path = child_path(base, "inputRequests");
    let mut round = match result.get("inputRequests") {
        // No inputRequests: the client retries with the requestState alone.
        None => InputRound::default(),
        Some(Value::Object(requests)) => parse_requests(requests, &requests_path, options)?,
        Some(_) => {
            return Err(ElicitationError::invalid(
                &requests_path,
                "must be an object",
            ))
        }
    };
    round.request_state = request_state;
    Ok(round)
}

/// The `inputRequests` map at `base`: key → `{ method, params }`.
fn parse_requests(
    requests: &Map<String, Value>,
    base: &str,
    options: &ParseOptions,
) -> Result<InputRound, ElicitationError> {
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(ElicitationError::invalid(
            base,
            format!("has more than {MAX_INPUT_REQUESTS} entries"),
        ));
    }
    let mut round = InputRound::default();
    for (key, entry) in requests {
        // Checked before the key goes into any message, so a huge key is never echoed.
        if key.is_empty() {
            return Err(ElicitationError::invalid(base, "key must not be empty"));
        }
        if key.len() > MAX_INPUT_KEY_CHARS && crate::strings::char_count(key) > MAX_INPUT_KEY_CHARS
        {
            return Err(ElicitationError::invalid(
                base,
                format!("key is longer than {MAX_INPUT_KEY_CHARS} characters"),
            ));
        }
        let path = child_path(base, key);
        let object = entry
            .as_object()
            .ok_or_else(|| ElicitationError::invalid(&path, "must be an object"))?;
        let key_options = ParseOptions {
            strict: options.strict,
            local_id: key.clone(),
        };
        match parse_entry(object, &path, &key_options)? {
            None => {
                round.others.insert(key.clone(), entry.clone());
            }
            Some(InputElicitation {
                params,
                mut request,
            }) => {
                // The key is this elicitation's identity within the round, even if a server also
                // sent a (2025-11-25) elicitationId: keys are unique, elicitationIds need not be.
                request.elicitation_id = key.clone();
                round.elicitations.push(KeyedElicitation {
                    key: key.clone(),
                    params,
                    request,
                });
            }
        }
    }
    Ok(round)
}

/// One entry `{method, params}` found at `path` (empty for an entry on its own): its `params`
/// and their reading when it is an elicitation, `None` for any other method (sampling, roots,
/// anything newer), whose params are not looked at.
fn parse_entry(
    entry: &Map<String, Value>,
    path: &str,
    options: &ParseOptions,
) -> Result<Option<InputElicitation>, ElicitationError> {
    let method_path = child_path(path, "method");
    match entry.get("method") {
        Some(Value::String(method)) if method == ELICITATION_METHOD => {}
        Some(Value::String(_)) => return Ok(None),
        Some(_) => return Err(ElicitationError::invalid(&method_path, "must be a string")),
        None => return Err(ElicitationError::invalid(&method_path, "is required")),
    }
    let params_path = child_path(path, "params");
    let params = entry
        .get("params")
        .and_then(Value::as_object)
        .ok_or_else(|| ElicitationError::invalid(&params_path, "must be an object"))?;
    let request = parse_params(params, &params_path, options, Protocol::Bare, None)?;
    Ok(Some(InputElicitation {
        params: Value::Object(params.clone()),
        request,
    }))
}

/// One `inputRequests` entry's elicitation, read on its own (outside any round).
#[derive(Debug, Clone)]
pub struct InputElicitation {
    /// The entry's `params` object as sent (bare `ElicitRequestParams`).
    pub params: Value,
    /// The params parsed like bare params: protocol Bare, no id, `elicitation_id` = the URL-mode
    /// `elicitationId`, else `options.local_id`.
    pub request: Request,
}

/// Parses ONE `inputRequests` entry `{"method": "elicitation/create", "params"}`, with the same
/// rules as a round's entries. Paths start at the entry (`params.message is required`); an entry
/// of any other method is not for a person and is refused (`method must be
/// "elicitation/create"`).
pub fn parse_input_request(
    entry: &Value,
    options: &ParseOptions,
) -> Result<InputElicitation, ElicitationError> {
    let object = entry.as_object().ok_or_else(|| {
        ElicitationError::invalid("entry", "must be an object with \"method\" and \"params\"")
    })?;
    match parse_entry(object, "", options)? {
        Some(elicitation) => Ok(elicitation),
        None => Err(ElicitationError::invalid(
            "method",
            format!("must be \"{ELICITATION_METHOD}\""),
        )),
    }
}

/// The `inputResponses` of a retry: key → `ElicitResult`, in the given order, as a JSON object.
/// A key given twice keeps its first place and its last result.
pub fn input_responses<I: IntoIterator<Item = (String, Value)>>(results: I) -> Value {
    Value::Object(results.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Mode;
    use serde_json::json;

    fn options() -> ParseOptions {
        ParseOptions {
            strict: false,
            local_id: "local-1".into(),
        }
    }

    fn parse(value: Value) -> Result<InputRound, ElicitationError> {
        parse_input_round(&value, &options())
    }

    fn message_of(value: Value) -> String {
        match parse(value) {
            Ok(round) => panic!("expected an error, got {round:?}"),
            Err(err) => {
                assert_eq!(err.code, -32602);
                err.message
            }
        }
    }

    fn form(message: &str) -> Value {
        json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"]
                }
            }
        })
    }

    fn sampling() -> Value {
        json!({
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
                "maxTokens": 100
            }
        })
    }

    fn keys(round: &InputRound) -> Vec<&str> {
        round
            .elicitations
            .iter()
            .map(|entry| entry.key.as_str())
            .collect()
    }

    #[test]
    fn input_required_result_is_parsed_by_key_with_its_state() {
        let round = parse(json!({
            "resultType": "input_required",
            "inputRequests": {"github_login": form("Your GitHub username"), "capital_of_france": sampling()},
            "requestState": "AEAD-protected blob"
        }))
        .unwrap();
        assert_eq!(keys(&round), ["github_login"]);
        let entry = &round.elicitations[0];
        assert_eq!(entry.request.message, "Your GitHub username");
        assert_eq!(entry.request.protocol, Protocol::Bare);
        assert_eq!(entry.request.id, None);
        assert_eq!(entry.request.elicitation_id, "github_login");
        assert!(matches!(entry.request.mode, Mode::Form(_)));
        assert_eq!(entry.params, form("Your GitHub username")["params"]);
        assert_eq!(round.request_state.as_deref(), Some("AEAD-protected blob"));
        assert_eq!(
            Value::Object(round.others),
            json!({"capital_of_france": sampling()})
        );
    }

    #[test]
    fn bare_input_requests_map_is_a_round_without_state() {
        let round = parse(json!({"a": form("First"), "b": form("Second")})).unwrap();
        assert_eq!(keys(&round), ["a", "b"]);
        assert_eq!(round.request_state, None);
        assert!(round.others.is_empty());
    }

    #[test]
    fn json_rpc_response_is_unwrapped_and_paths_start_at_result() {
        let round = parse(json!({
            "jsonrpc": "2.0", "id": 1,
            "result": {"resultType": "input_required", "inputRequests": {"k": form("Hi")}, "requestState": "s"}
        }))
        .unwrap();
        assert_eq!(keys(&round), ["k"]);
        assert_eq!(round.request_state.as_deref(), Some("s"));
        let message = message_of(json!({
            "jsonrpc": "2.0", "id": 1,
            "result": {"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}}
        }));
        assert_eq!(message, "result.inputRequests.k.params.message is required");
        assert_eq!(
            message_of(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})),
            "result.resultType must be \"input_required\""
        );
        assert_eq!(
            message_of(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x"}})),
            "result must be an InputRequiredResult object"
        );
        assert_eq!(
            message_of(json!({"jsonrpc": "1.0", "id": 1, "result": {}})),
            "jsonrpc must be \"2.0\""
        );
    }

    #[test]
    fn order_of_the_map_is_kept_for_elicitations_and_others() {
        let round = parse(json!({
            "resultType": "input_required",
            "inputRequests": {
                "zeta": form("1"), "roots": {"method": "roots/list"}, "alpha": form("2"),
                "10": form("3"), "sample": sampling(), "2": form("4")
            }
        }))
        .unwrap();
        assert_eq!(keys(&round), ["zeta", "alpha", "10", "2"]);
        let others: Vec<&String> = round.others.keys().collect();
        assert_eq!(others, ["roots", "sample"]);
        let messages: Vec<&str> = round
            .elicitations
            .iter()
            .map(|entry| entry.request.message.as_str())
            .collect();
        assert_eq!(messages, ["1", "2", "3", "4"]);
    }

    #[test]
    fn other_entries_are_returned_untouched_whatever_they_hold() {
        let odd = json!({"method": "roots/list", "params": "not even an object", "extra": [1, {"x": null}]});
        let unknown = json!({"method": "future/thing"});
        let round =
            parse(json!({"r": odd.clone(), "u": unknown.clone(), "s": sampling()})).unwrap();
        assert!(round.elicitations.is_empty());
        assert_eq!(
            Value::Object(round.others),
            json!({"r": odd, "u": unknown, "s": sampling()})
        );
    }

    #[test]
    fn url_mode_entry_without_elicitation_id_is_keyed_by_its_key() {
        let round = parse(json!({"login": {"method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in", "url": "https://example.com/login"
        }}}))
        .unwrap();
        let entry = &round.elicitations[0];
        assert_eq!(entry.request.elicitation_id, "login");
        match &entry.request.mode {
            Mode::Url(url) => {
                assert_eq!(url.url, "https://example.com/login");
                assert_eq!(url.elicitation_id, None);
            }
            Mode::Form(_) => panic!("expected URL mode"),
        }
        // A stray 2025-11-25 elicitationId is kept on the URL request, but the key stays the identity.
        let round = parse(json!({"a": {"method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in", "url": "https://example.com", "elicitationId": "same"
        }}, "b": {"method": "elicitation/create", "params": {
            "mode": "url", "message": "Again", "url": "https://example.com", "elicitationId": "same"
        }}}))
        .unwrap();
        let ids: Vec<&str> = round
            .elicitations
            .iter()
            .map(|entry| entry.request.elicitation_id.as_str())
            .collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn empty_rounds_are_rounds() {
        for value in [
            json!({}),
            json!({"resultType": "input_required", "requestState": "only state"}),
            json!({"resultType": "input_required", "inputRequests": {}}),
            json!({"inputRequests": {}}),
        ] {
            let round = parse(value.clone()).unwrap();
            assert!(round.elicitations.is_empty(), "{value}");
            assert!(round.others.is_empty(), "{value}");
        }
        let round = parse(json!({"requestState": "only state"})).unwrap();
        assert_eq!(round.request_state.as_deref(), Some("only state"));
    }

    #[test]
    fn each_entry_error_names_its_key() {
        assert_eq!(
            message_of(json!({"ok": form("fine"), "bad": 3})),
            "inputRequests.bad must be an object"
        );
        assert_eq!(
            message_of(json!({"x": {"method": 5, "params": {}}})),
            "inputRequests.x.method must be a string"
        );
        assert_eq!(
            message_of(json!({"x": {"params": {}}})),
            "inputRequests.x.method is required"
        );
        assert_eq!(
            message_of(json!({"x": {"method": "elicitation/create"}})),
            "inputRequests.x.params must be an object"
        );
        assert_eq!(
            message_of(json!({"resultType": "input_required", "inputRequests": {
                "github_login": {"method": "elicitation/create", "params": {"requestedSchema": {"type": "object", "properties": {}}}}
            }})),
            "inputRequests.github_login.params.message is required"
        );
        assert_eq!(
            message_of(
                json!({"k": {"method": "elicitation/create", "params": {"message": "x", "requestedSchema": {
                    "type": "object", "properties": {"age": {"type": "integer", "minimum": "3"}}
                }}}})
            ),
            "inputRequests.k.params.requestedSchema.properties.age.minimum must be a number"
        );
        assert_eq!(
            message_of(
                json!({"k": {"method": "elicitation/create", "params": {"mode": "url", "message": "x"}}})
            ),
            "inputRequests.k.params.url is required"
        );
        // Other entries are checked for their shape only, but that check names the key too.
        assert_eq!(
            message_of(json!({"s": {"method": null}})),
            "inputRequests.s.method must be a string"
        );
    }

    #[test]
    fn result_fields_of_the_wrong_type_are_refused() {
        assert_eq!(
            message_of(json!({"resultType": "complete", "inputRequests": {}})),
            "resultType must be \"input_required\""
        );
        assert_eq!(
            message_of(json!({"resultType": 1})),
            "resultType must be \"input_required\""
        );
        assert_eq!(
            message_of(json!({"resultType": "input_required", "inputRequests": []})),
            "inputRequests must be an object"
        );
        assert_eq!(
            message_of(json!({"resultType": "input_required", "requestState": {"a": 1}})),
            "requestState must be a string"
        );
        for value in [json!([]), json!(null), json!("text"), json!(3)] {
            assert!(
                message_of(value).starts_with("input must be an InputRequiredResult"),
                "non-objects are refused"
            );
        }
    }

    #[test]
    fn strict_option_reaches_every_entry() {
        // A nested object is this project's extension: fine by default, refused in strict mode.
        let round = json!({"k": {"method": "elicitation/create", "params": {"message": "x", "requestedSchema": {
            "type": "object", "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}
        }}}});
        assert!(parse(round.clone()).is_ok());
        let strict = ParseOptions {
            strict: true,
            local_id: String::new(),
        };
        let message = parse_input_round(&round, &strict).unwrap_err().message;
        assert!(
            message.starts_with("inputRequests.k.params.requestedSchema.properties.address"),
            "{message}"
        );
        assert!(message.contains("strict mode"), "{message}");
    }

    #[test]
    fn limits_on_entries_and_key_length() {
        let full: Map<String, Value> = (0..MAX_INPUT_REQUESTS)
            .map(|index| (format!("k{index}"), form("x")))
            .collect();
        assert_eq!(
            parse(Value::Object(full.clone()))
                .unwrap()
                .elicitations
                .len(),
            MAX_INPUT_REQUESTS
        );
        let mut over = full;
        // Every kind counts: one sampling entry past the limit is refused too.
        over.insert("one more".into(), sampling());
        assert_eq!(
            message_of(json!({"resultType": "input_required", "inputRequests": over})),
            "inputRequests has more than 20 entries"
        );
        let longest = "k".repeat(MAX_INPUT_KEY_CHARS);
        let round = parse(json!({ longest.clone(): form("x") })).unwrap();
        assert_eq!(round.elicitations[0].key, longest);
        // Counted in characters: 256 two-byte characters are still within the limit.
        let wide = "é".repeat(MAX_INPUT_KEY_CHARS);
        assert!(parse(json!({ wide: form("x") })).is_ok());
        let too_long = "k".repeat(MAX_INPUT_KEY_CHARS + 1);
        assert_eq!(
            message_of(json!({ too_long: sampling() })),
            "inputRequests key is longer than 256 characters"
        );
        assert_eq!(
            message_of(json!({ "": form("x") })),
            "inputRequests key must not be empty"
        );
    }

    #[test]
    fn hostile_keys_are_kept_verbatim() {
        let hostile = [
            "__proto__",
            "constructor",
            "a.b.params",
            "<img src=x onerror=alert(1)>",
            "line\nbreak\u{0}nul",
            "emoji 🦀",
            " ",
        ];
        let map: Map<String, Value> = hostile
            .iter()
            .map(|key| (key.to_string(), form(key)))
            .collect();
        let round = parse(Value::Object(map)).unwrap();
        assert_eq!(keys(&round), hostile);
        for entry in &round.elicitations {
            assert_eq!(entry.request.elicitation_id, entry.key);
            assert_eq!(entry.request.message, entry.key);
        }
        let message = message_of(json!({"<b>x</b>": {"method": []}}));
        assert_eq!(message, "inputRequests.<b>x</b>.method must be a string");
        // A bare map using a word of the result's shape as a key is read as that shape.
        assert_eq!(
            message_of(json!({"resultType": form("x")})),
            "resultType must be \"input_required\""
        );
        assert_eq!(
            message_of(json!({"jsonrpc": form("x")})),
            "jsonrpc must be \"2.0\""
        );
    }

    #[test]
    fn json_text_and_a_json_string_of_it_are_accepted() {
        let value = json!({"resultType": "input_required", "inputRequests": {"k": form("Hi")}, "requestState": "s"});
        let text = value.to_string();
        let round = parse_input_round_text(&text, &options()).unwrap();
        assert_eq!(keys(&round), ["k"]);
        let twice = Value::String(text).to_string();
        let round = parse_input_round_text(&twice, &options()).unwrap();
        assert_eq!(round.request_state.as_deref(), Some("s"));
        let err = parse_input_round_text("{not json", &options()).unwrap_err();
        assert_eq!(err.code, -32602);
        assert!(
            err.message.starts_with("input is not valid JSON"),
            "{}",
            err.message
        );
        let err = parse_input_round_text("\"[1]\"", &options()).unwrap_err();
        assert!(err.message.starts_with("input must be"), "{}", err.message);
    }

    fn entry(value: Value) -> Result<InputElicitation, ElicitationError> {
        parse_input_request(&value, &options())
    }

    fn entry_message(value: Value) -> String {
        match entry(value) {
            Ok(parsed) => panic!("expected an error, got {parsed:?}"),
            Err(err) => {
                assert_eq!(err.code, -32602);
                err.message
            }
        }
    }

    #[test]
    fn one_entry_gives_its_params_and_request() {
        let parsed = entry(form("Your GitHub username")).unwrap();
        assert_eq!(parsed.params, form("Your GitHub username")["params"]);
        assert_eq!(parsed.request.message, "Your GitHub username");
        assert_eq!(parsed.request.protocol, Protocol::Bare);
        assert_eq!(parsed.request.id, None);
        assert_eq!(parsed.request.elicitation_id, "local-1");
        assert!(matches!(parsed.request.mode, Mode::Form(_)));
        let url = json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in", "url": "https://example.com/login"}});
        let parsed = entry(url).unwrap();
        assert!(matches!(parsed.request.mode, Mode::Url(_)));
        assert_eq!(parsed.request.elicitation_id, "local-1");
        // On its own an entry has no key: a 2025-11-25 elicitationId is its identity.
        let with_id = json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in", "url": "https://example.com", "elicitationId": "e-9"}});
        assert_eq!(entry(with_id).unwrap().request.elicitation_id, "e-9");
        // Members besides method and params (a JSON-RPC id, say) are not the entry's business.
        let mut extra = form("x");
        extra["id"] = json!(4);
        assert_eq!(entry(extra).unwrap().params, form("x")["params"]);
    }

    #[test]
    fn one_entry_errors_start_at_the_entry() {
        assert_eq!(
            entry_message(
                json!({"method": "elicitation/create", "params": {"requestedSchema": {}}})
            ),
            "params.message is required"
        );
        for method in ["sampling/createMessage", "roots/list", "future/thing", ""] {
            assert_eq!(
                entry_message(json!({"method": method, "params": {}})),
                "method must be \"elicitation/create\"",
                "{method}"
            );
        }
        assert_eq!(
            entry_message(json!({"method": 5, "params": {}})),
            "method must be a string"
        );
        assert_eq!(entry_message(json!({"params": {}})), "method is required");
        assert_eq!(
            entry_message(json!({"method": "elicitation/create", "params": "x"})),
            "params must be an object"
        );
        assert_eq!(
            entry_message(json!({"method": "elicitation/create"})),
            "params must be an object"
        );
        assert_eq!(
            entry_message(
                json!({"method": "elicitation/create", "params": {"mode": "url", "message": "x"}})
            ),
            "params.url is required"
        );
        assert_eq!(
            entry_message(
                json!({"method": "elicitation/create", "params": {"message": "x", "requestedSchema": {
                "type": "object", "properties": {"age": {"type": "integer", "minimum": "3"}}}}})
            ),
            "params.requestedSchema.properties.age.minimum must be a number"
        );
        for value in [json!([]), json!(null), json!("text"), json!(3)] {
            assert_eq!(
                entry_message(value),
                "entry must be an object with \"method\" and \"params\""
            );
        }
        let nested = json!({"method": "elicitation/create", "params": {"message": "x", "requestedSchema": {
            "type": "object", "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}}}});
        assert!(entry(nested.clone()).is_ok());
        let strict = ParseOptions {
            strict: true,
            local_id: String::new(),
        };
        let message = parse_input_request(&nested, &strict).unwrap_err().message;
        assert!(
            message.starts_with("params.requestedSchema.properties.address"),
            "{message}"
        );
    }

    #[test]
    fn one_entry_and_a_round_decide_alike() {
        // The same entry alone and under a key: the same params, and the same error with the
        // key's path in front.
        let entries = [
            form("fine"),
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://a"}}),
            json!({"method": "elicitation/create", "params": {}}),
            json!({"method": "elicitation/create", "params": {"message": 3, "requestedSchema": {}}}),
            json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": []}}),
            json!({"method": "elicitation/create", "params": {"mode": "sms", "message": "m"}}),
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": 3}}),
            json!({"method": "elicitation/create", "params": []}),
            json!({"method": true}),
            json!({}),
        ];
        for value in entries {
            let alone = entry(value.clone());
            let round = parse(json!({ "k": value.clone() }));
            match (alone, round) {
                (Ok(alone), Ok(round)) => {
                    assert_eq!(alone.params, round.elicitations[0].params, "{value}")
                }
                (Err(alone), Err(round)) => {
                    assert_eq!(format!("inputRequests.k.{}", alone.message), round.message)
                }
                (alone, round) => panic!("{value}: alone {alone:?}, in a round {round:?}"),
            }
        }
    }

    #[test]
    fn input_responses_keep_keys_and_order() {
        let responses = input_responses([
            (
                "zeta".to_string(),
                json!({"action": "accept", "content": {"name": "a"}}),
            ),
            ("__proto__".to_string(), json!({"action": "decline"})),
            ("10".to_string(), json!({"action": "cancel"})),
        ]);
        assert_eq!(
            crate::json::write(&responses),
            r#"{"zeta":{"action":"accept","content":{"name":"a"}},"__proto__":{"action":"decline"},"10":{"action":"cancel"}}"#
        );
        assert_eq!(input_responses(Vec::new()), json!({}));
    }

    #[test]
    fn no_input_panics() {
        // Generated values of every shape near the accepted ones: each ends Ok or in -32602.
        let mut rng = crate::rng::Rng(24);
        let pieces = [
            json!(null),
            json!(1),
            json!("s"),
            json!([]),
            json!({}),
            form("x"),
            sampling(),
            json!({"method": "elicitation/create", "params": {"mode": "url"}}),
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": 3}}),
            json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": []}}),
        ];
        let fields = [
            "resultType",
            "inputRequests",
            "requestState",
            "jsonrpc",
            "result",
            "k",
            "",
        ];
        for _ in 0..2_000 {
            let mut map = Map::new();
            for _ in 0..rng.below(5) {
                let field = fields[rng.below(fields.len())];
                let value = match rng.below(4) {
                    0 => json!("input_required"),
                    1 => json!("2.0"),
                    2 => {
                        let mut inner = Map::new();
                        for index in 0..rng.below(4) {
                            inner.insert(
                                format!("e{index}"),
                                pieces[rng.below(pieces.len())].clone(),
                            );
                        }
                        Value::Object(inner)
                    }
                    _ => pieces[rng.below(pieces.len())].clone(),
                };
                map.insert(field.to_string(), value);
            }
            if let Err(err) = parse(Value::Object(map)) {
                assert_eq!(err.code, -32602);
            }
        }
    }
}
