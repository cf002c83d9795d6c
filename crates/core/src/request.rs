//! The four request shapes of the contract (JSON-RPC request, bare MCP params, Koder envelope, or a
//! JSON string of any of them) normalized into one [`Request`], or an [`ElicitationError`] naming
//! the offending path. Nothing here trusts its input: every field is checked, nothing panics.

use serde_json::{Map, Value};

use crate::error::{child_path, ElicitationError};
use crate::one_tap::{offered_persist, Persist};
use crate::schema::{compile_form_schema, FormSchema};

use crate::limits::{exceeds_text_limit, MAX_ID_CHARS, MAX_TEXT_CHARS, MAX_URL_CHARS};

/// The protocol the request came in, so the reply can be given in the same one.
#[derive(Debug, Clone, PartialEq)]
pub enum Protocol {
    /// `{ jsonrpc: "2.0", id, method: "elicitation/create", params }`.
    JsonRpc,
    /// `{ type: "elicitation/request", id, schema, ... }`.
    Envelope,
    /// Bare `ElicitRequestParams`.
    Bare,
}

/// What the user is asked for.
#[derive(Debug, Clone)]
pub enum Mode {
    /// A form built from `requestedSchema`.
    Form(FormSchema),
    /// Consent to open an external URL.
    Url(UrlRequest),
}

/// URL mode's target and the server's id for it.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlRequest {
    pub url: String,
    /// `elicitationId` (2025-11-25); absent in 2026-07-28 and in the Koder envelope.
    pub elicitation_id: Option<String>,
}

/// One normalized elicitation request.
#[derive(Debug, Clone)]
pub struct Request {
    pub protocol: Protocol,
    /// The request's own id (JSON-RPC or envelope), echoed in the reply; `None` for bare params.
    pub id: Option<Value>,
    /// The id used for the tenant scope: URL `elicitationId`, else the request id, else a local id.
    pub elicitation_id: String,
    /// Heading; the Koder envelope's `title`.
    pub title: Option<String>,
    /// The server's message (`message`, or the envelope's `description`).
    pub message: String,
    /// Per-request timeout from the envelope's `timeout`.
    pub timeout_ms: Option<f64>,
    pub mode: Mode,
    /// The persistence scopes `_meta.persist` offers ("remember", contract §13), each once.
    pub persist: Vec<Persist>,
}

impl Request {
    /// `"form"` or `"url"`, as events report it.
    pub fn mode_name(&self) -> &'static str {
        match self.mode {
            Mode::Form(_) => "form",
            Mode::Url(_) => "url",
        }
    }
}

/// How to parse: `strict` accepts only the MCP 2025-11-25 schema subset.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    pub strict: bool,
    /// Scope id for requests that carry none (bare form params).
    pub local_id: String,
}

/// Parses a JSON text holding any request shape.
pub fn parse_request_text(text: &str, options: &ParseOptions) -> Result<Request, ElicitationError> {
    // A JSON string holding a request is itself a valid shape (contract §3, item 4).
    parse_request(
        &crate::json::parse_argument_unwrapped(text, "request")?,
        options,
    )
}

/// Parses an already decoded request of any shape.
pub fn parse_request(value: &Value, options: &ParseOptions) -> Result<Request, ElicitationError> {
    let object = value.as_object().ok_or_else(|| {
        ElicitationError::invalid(
            "request",
            "must be a JSON-RPC request, MCP elicitation params or a Koder envelope object",
        )
    })?;
    if object.contains_key("jsonrpc") {
        parse_json_rpc(object, options)
    } else if object.get("type").and_then(Value::as_str) == Some("elicitation/request") {
        parse_envelope(object, options)
    } else if object.contains_key("type") && !object.contains_key("message") {
        Err(ElicitationError::invalid(
            "type",
            "must be \"elicitation/request\" for a Koder envelope",
        ))
    } else {
        parse_params(object, "", options, Protocol::Bare, None)
    }
}

/// The form's `requestedSchema` inside a request as sent in `protocol`: `params.requestedSchema`
/// of a JSON-RPC request, `requestedSchema` of bare params, `schema` of a Koder envelope. `None`
/// when it is absent (URL mode) or the value is not of that shape.
pub fn requested_schema<'a>(request: &'a Value, protocol: &Protocol) -> Option<&'a Value> {
    match protocol {
        Protocol::JsonRpc => request.get("params")?.get("requestedSchema"),
        Protocol::Bare => request.get("requestedSchema"),
        Protocol::Envelope => request.get("schema"),
    }
}

fn parse_json_rpc(
    object: &Map<String, Value>,
    options: &ParseOptions,
) -> Result<Request, ElicitationError> {
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(ElicitationError::invalid("jsonrpc", "must be \"2.0\""));
    }
    match object.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => {}
        _ => {
            return Err(ElicitationError::invalid(
                "method",
                "must be \"elicitation/create\"",
            ))
        }
    }
    let id = request_id(object.get("id"), "id")?;
    let params = object
        .get("params")
        .and_then(Value::as_object)
        .ok_or_else(|| ElicitationError::invalid("params", "must be an object"))?;
    parse_params(params, "params", options, Protocol::JsonRpc, Some(id))
}

/// A JSON-RPC or envelope id: a string or a number, required.
fn request_id(id: Option<&Value>, path: &str) -> Result<Value, ElicitationError> {
    match id {
        Some(Value::String(text)) if crate::strings::char_count(text) <= MAX_ID_CHARS => {
            Ok(Value::String(text.clone()))
        }
        Some(Value::String(_)) => Err(ElicitationError::invalid(
            path,
            format!("is longer than {MAX_ID_CHARS} characters"),
        )),
        Some(Value::Number(number)) => Ok(Value::Number(number.clone())),
        Some(_) => Err(ElicitationError::invalid(
            path,
            "must be a string or a number",
        )),
        None => Err(ElicitationError::invalid(path, "is required")),
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(text) => text.clone(),
        other => crate::json::write(other),
    }
}

/// Parses bare MCP params found at `base` (a dotted path for error messages).
pub(crate) fn parse_params(
    params: &Map<String, Value>,
    base: &str,
    options: &ParseOptions,
    protocol: Protocol,
    id: Option<Value>,
) -> Result<Request, ElicitationError> {
    let message = bounded_text(params.get("message"), &child_path(base, "message"))?
        .ok_or_else(|| ElicitationError::invalid(&child_path(base, "message"), "is required"))?;
    let fallback_id = id
        .as_ref()
        .map(id_text)
        .unwrap_or_else(|| options.local_id.clone());
    match params.get("mode") {
        None | Some(Value::Null) => {}
        Some(Value::String(mode)) if mode == "form" || mode == "url" => {}
        Some(_) => {
            return Err(ElicitationError::invalid(
                &child_path(base, "mode"),
                "must be \"form\" or \"url\"",
            ))
        }
    }
    let is_url = params.get("mode").and_then(Value::as_str) == Some("url");
    let (mode, elicitation_id) = if is_url {
        let url = parse_url_field(params.get("url"), &child_path(base, "url"))?;
        let elicitation_path = child_path(base, "elicitationId");
        let elicitation_id = match params.get("elicitationId") {
            None | Some(Value::Null) => None,
            Some(Value::String(text))
                if !text.is_empty() && crate::strings::char_count(text) <= MAX_ID_CHARS =>
            {
                Some(text.clone())
            }
            Some(Value::String(_)) => {
                return Err(ElicitationError::invalid(
                    &elicitation_path,
                    format!("must be a non-empty string of at most {MAX_ID_CHARS} characters"),
                ))
            }
            Some(_) => {
                return Err(ElicitationError::invalid(
                    &elicitation_path,
                    "must be a string",
                ))
            }
        };
        let scope_id = elicitation_id.clone().unwrap_or(fallback_id);
        (
            Mode::Url(UrlRequest {
                url,
                elicitation_id,
            }),
            scope_id,
        )
    } else {
        let schema_path = child_path(base, "requestedSchema");
        let schema = params
            .get("requestedSchema")
            .ok_or_else(|| ElicitationError::invalid(&schema_path, "is required"))?;
        let form = compile_form_schema(schema, &schema_path, options.strict)?;
        (Mode::Form(form), fallback_id)
    };
    Ok(Request {
        protocol,
        id,
        elicitation_id,
        title: None,
        message,
        timeout_ms: None,
        mode,
        persist: offered_persist(params.get("_meta")),
    })
}

fn parse_envelope(
    object: &Map<String, Value>,
    options: &ParseOptions,
) -> Result<Request, ElicitationError> {
    let id = request_id(object.get("id"), "id")?;
    let title = bounded_text(object.get("title"), "title")?;
    let description = bounded_text(object.get("description"), "description")?;
    let timeout_ms = match object.get("timeout") {
        None | Some(Value::Null) => None,
        Some(value) => Some(positive_ms(value, "timeout")?),
    };
    let is_url = match object.get("mode") {
        None | Some(Value::Null) => false,
        Some(Value::String(mode)) if mode == "form" => false,
        Some(Value::String(mode)) if mode == "url" => true,
        Some(_) => {
            return Err(ElicitationError::invalid(
                "mode",
                "must be \"form\" or \"url\"",
            ))
        }
    };
    let mode = if is_url {
        let url = parse_url_field(object.get("url"), "url")?;
        Mode::Url(UrlRequest {
            url,
            elicitation_id: None,
        })
    } else {
        let schema = object
            .get("schema")
            .ok_or_else(|| ElicitationError::invalid("schema", "is required"))?;
        Mode::Form(compile_form_schema(schema, "schema", options.strict)?)
    };
    Ok(Request {
        protocol: Protocol::Envelope,
        elicitation_id: id_text(&id),
        id: Some(id),
        message: description.unwrap_or_default(),
        title,
        timeout_ms,
        mode,
        persist: offered_persist(object.get("_meta")),
    })
}

/// A positive, finite number of milliseconds.
pub fn positive_ms(value: &Value, path: &str) -> Result<f64, ElicitationError> {
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms > 0.0 => Ok(ms),
        _ => Err(ElicitationError::invalid(
            path,
            "must be a positive number of milliseconds",
        )),
    }
}

/// An optional server string, refused past [`MAX_TEXT_CHARS`].
fn bounded_text(value: Option<&Value>, path: &str) -> Result<Option<String>, ElicitationError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if exceeds_text_limit(text) => Err(ElicitationError::invalid(
            path,
            format!("is longer than {MAX_TEXT_CHARS} characters"),
        )),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(ElicitationError::invalid(path, "must be a string")),
    }
}

fn parse_url_field(value: Option<&Value>, path: &str) -> Result<String, ElicitationError> {
    match value {
        Some(Value::String(url)) if crate::strings::char_count(url) > MAX_URL_CHARS => Err(
            ElicitationError::invalid(path, format!("is longer than {MAX_URL_CHARS} characters")),
        ),
        // An unparsable URL is not a malformed request: URL mode shows it blocked (contract §5).
        Some(Value::String(url)) => Ok(url.clone()),
        Some(_) => Err(ElicitationError::invalid(path, "must be a string")),
        None => Err(ElicitationError::invalid(path, "is required")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> Result<Request, ElicitationError> {
        parse_request(
            &value,
            &ParseOptions {
                strict: false,
                local_id: "local-1".into(),
            },
        )
    }

    fn weather_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Your city"},
                "temperature_unit": {"type": "string", "enum": ["C", "F"]}
            },
            "required": ["city"]
        })
    }

    #[test]
    fn json_rpc_request_is_parsed_with_its_id() {
        let request = parse(json!({
            "jsonrpc": "2.0", "id": 7, "method": "elicitation/create",
            "params": {"message": "Need a city", "requestedSchema": weather_schema()}
        }))
        .unwrap();
        assert_eq!(request.protocol, Protocol::JsonRpc);
        assert_eq!(request.id, Some(json!(7)));
        assert_eq!(request.elicitation_id, "7");
        assert_eq!(request.message, "Need a city");
        assert_eq!(request.mode_name(), "form");
    }

    #[test]
    fn json_rpc_with_wrong_method_or_version_is_refused() {
        let err = parse(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}))
            .unwrap_err();
        assert_eq!(err.code, -32602);
        assert!(err.message.starts_with("method "), "{}", err.message);
        let err =
            parse(json!({"jsonrpc": "1.0", "id": 1, "method": "elicitation/create"})).unwrap_err();
        assert!(err.message.starts_with("jsonrpc "));
        let err = parse(
            json!({"jsonrpc": "2.0", "id": [1], "method": "elicitation/create", "params": {}}),
        )
        .unwrap_err();
        assert_eq!(err.message, "id must be a string or a number");
        let err =
            parse(json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create"})).unwrap_err();
        assert_eq!(err.message, "params must be an object");
    }

    #[test]
    fn bare_form_params_default_to_form_and_use_the_local_id() {
        let request = parse(json!({"message": "Hi", "requestedSchema": weather_schema()})).unwrap();
        assert_eq!(request.protocol, Protocol::Bare);
        assert_eq!(request.id, None);
        assert_eq!(request.elicitation_id, "local-1");
        let request =
            parse(json!({"mode": "form", "message": "Hi", "requestedSchema": weather_schema()}))
                .unwrap();
        assert!(matches!(request.mode, Mode::Form(_)));
    }

    #[test]
    fn bare_url_params_with_and_without_elicitation_id() {
        let request = parse(json!({
            "mode": "url", "message": "Sign in", "url": "https://example.com/a", "elicitationId": "abc"
        }))
        .unwrap();
        match &request.mode {
            Mode::Url(url) => {
                assert_eq!(url.url, "https://example.com/a");
                assert_eq!(url.elicitation_id.as_deref(), Some("abc"));
            }
            Mode::Form(_) => panic!("expected URL mode"),
        }
        assert_eq!(request.elicitation_id, "abc");
        let request =
            parse(json!({"mode": "url", "message": "Sign in", "url": "https://example.com"}))
                .unwrap();
        assert_eq!(request.elicitation_id, "local-1");
    }

    #[test]
    fn koder_envelope_maps_title_description_and_timeout() {
        let request = parse(json!({
            "type": "elicitation/request", "id": "e_123", "schema": weather_schema(),
            "title": "Weather lookup needs your input", "description": "...", "timeout": 5000
        }))
        .unwrap();
        assert_eq!(request.protocol, Protocol::Envelope);
        assert_eq!(request.id, Some(json!("e_123")));
        assert_eq!(
            request.title.as_deref(),
            Some("Weather lookup needs your input")
        );
        assert_eq!(request.message, "...");
        assert_eq!(request.timeout_ms, Some(5000.0));
        let request = parse(json!({
            "type": "elicitation/request", "id": "e_124", "mode": "url",
            "url": "https://server.example/elicit/abc", "title": "Sign in to GitHub"
        }))
        .unwrap();
        assert_eq!(request.mode_name(), "url");
        assert_eq!(request.elicitation_id, "e_124");
    }

    #[test]
    fn envelope_errors_name_the_field() {
        let err = parse(json!({"type": "elicitation/request", "id": "e", "schema": weather_schema(), "timeout": -1}))
            .unwrap_err();
        assert_eq!(
            err.message,
            "timeout must be a positive number of milliseconds"
        );
        let err = parse(json!({"type": "elicitation/request", "id": "e"})).unwrap_err();
        assert_eq!(err.message, "schema is required");
        let err =
            parse(json!({"type": "elicitation/request", "schema": weather_schema()})).unwrap_err();
        assert_eq!(err.message, "id is required");
        let err = parse(json!({"type": "something/else", "id": 1})).unwrap_err();
        assert!(err.message.starts_with("type "));
    }

    #[test]
    fn json_string_of_a_request_is_accepted() {
        let options = ParseOptions::default();
        let text = json!({"message": "Hi", "requestedSchema": weather_schema()}).to_string();
        assert!(parse_request_text(&text, &options).is_ok());
        let double = Value::String(text).to_string();
        assert!(parse_request_text(&double, &options).is_ok());
        let err = parse_request_text("{not json", &options).unwrap_err();
        assert!(err.message.starts_with("request is not valid JSON"));
    }

    #[test]
    fn malformed_params_are_refused_with_paths() {
        let err = parse(json!({"requestedSchema": weather_schema()})).unwrap_err();
        assert_eq!(err.message, "message is required");
        let err = parse(json!({"message": 3, "requestedSchema": weather_schema()})).unwrap_err();
        assert_eq!(err.message, "message must be a string");
        let err = parse(json!({"message": "x"})).unwrap_err();
        assert_eq!(err.message, "requestedSchema is required");
        let err = parse(json!({"mode": "sms", "message": "x"})).unwrap_err();
        assert_eq!(err.message, "mode must be \"form\" or \"url\"");
        let err = parse(json!({"mode": "url", "message": "x"})).unwrap_err();
        assert_eq!(err.message, "url is required");
        let err =
            parse(json!({"mode": "url", "message": "x", "url": "https://a", "elicitationId": 5}))
                .unwrap_err();
        assert_eq!(err.message, "elicitationId must be a string");
        let err = parse(json!([1, 2])).unwrap_err();
        assert!(err.message.starts_with("request must be"));
        let err = parse(json!({
            "jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
            "params": {"message": "x", "requestedSchema": {"type": "object", "properties": {"age": {"type": "integer", "minimum": "3"}}}}
        }))
        .unwrap_err();
        assert_eq!(
            err.message,
            "params.requestedSchema.properties.age.minimum must be a number"
        );
    }

    #[test]
    fn requested_schema_is_found_where_each_protocol_keeps_it() {
        let params = json!({"message": "Hi", "requestedSchema": weather_schema()});
        let rpc =
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params});
        let envelope =
            json!({"type": "elicitation/request", "id": "e", "schema": weather_schema()});
        for value in [&params, &rpc, &envelope] {
            let request = parse(value.clone()).unwrap();
            assert_eq!(
                requested_schema(value, &request.protocol),
                Some(&weather_schema()),
                "{value}"
            );
        }
        // Each protocol looks in its own place only.
        assert_eq!(requested_schema(&params, &Protocol::JsonRpc), None);
        assert_eq!(requested_schema(&params, &Protocol::Envelope), None);
        assert_eq!(requested_schema(&rpc, &Protocol::Bare), None);
        assert_eq!(requested_schema(&envelope, &Protocol::Bare), None);
        let url = json!({"mode": "url", "message": "Sign in", "url": "https://example.com"});
        assert_eq!(requested_schema(&url, &Protocol::Bare), None);
        assert_eq!(requested_schema(&json!("text"), &Protocol::JsonRpc), None);
        assert_eq!(
            requested_schema(&json!({"params": 3}), &Protocol::JsonRpc),
            None
        );
    }

    #[test]
    fn hostile_message_length_is_refused() {
        let long = "x".repeat(MAX_TEXT_CHARS + 1);
        let err = parse(json!({"message": long, "requestedSchema": weather_schema()})).unwrap_err();
        assert_eq!(err.message, "message is longer than 20000 characters");
        let ok = "x".repeat(MAX_TEXT_CHARS);
        assert!(parse(json!({"message": ok, "requestedSchema": weather_schema()})).is_ok());
    }
}
