//! The functions the distributable's entry re-exports: `defineElement`, `validateContent`,
//! `parseRequest` and `registerTranslation` (the `ElicitationError` class is the JS shim's own).

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::content::validate_content;
use crate::element::{elicitation_error, to_js};
use crate::error::ElicitationError;
use crate::i18n::{Direction, Locale};
use crate::json::{self, object};
use crate::request::{parse_request_text, Mode, ParseOptions, Protocol};

/// Defines `<koder-mcp-elicitation>` (once per page).
#[wasm_bindgen(js_name = defineElement)]
pub fn define_element() {
    crate::element::define();
}

/// `validateContent(requestedSchema, content, { locale })` over JSON texts.
#[wasm_bindgen(js_name = validateContentJson)]
pub fn validate_content_json(
    schema: &str,
    content: &str,
    locale: &str,
) -> Result<JsValue, JsValue> {
    let parse = |text: &str, path: &str| {
        crate::json::parse_argument(text, path).map_err(|err| elicitation_error(&err))
    };
    let schema = parse(schema, "requestedSchema")?;
    let content = parse(content, "content")?;
    let errors: Vec<Value> = validate_content(&schema, &content, Locale::negotiate([locale]))
        .map_err(|err| elicitation_error(&err))?
        .into_iter()
        .map(|error| {
            object([
                ("path", error.path.into()),
                ("keyword", error.keyword.into()),
                ("message", error.message.into()),
            ])
        })
        .collect();
    Ok(to_js(&object([
        ("valid", errors.is_empty().into()),
        ("errors", errors.into()),
    ])))
}

/// `registerTranslation(locale, messages, { direction })` with the messages as Fluent text and
/// the direction as given (`""` when none was): adds or replaces a language (or overrides shipped
/// messages) and re-renders every open dialog. A refused one throws `ElicitationError` naming
/// every problem, and changes nothing.
#[wasm_bindgen(js_name = registerTranslationFtl)]
pub fn register_translation_ftl(locale: &str, ftl: &str, direction: &str) -> Result<(), JsValue> {
    let direction = match direction {
        "" => None,
        name => Some(Direction::from_name(name).ok_or_else(|| {
            elicitation_error(&ElicitationError::invalid(
                "",
                "registerTranslation: options.direction must be \"ltr\" or \"rtl\"",
            ))
        })?),
    };
    crate::element::register_translation_with_direction(locale, ftl, direction)
        .map_err(|error| elicitation_error(&error))
}

/// `parseRequest(request)`: the normalized request, or throws `ElicitationError`.
#[wasm_bindgen(js_name = parseRequestJson)]
pub fn parse_request_json(text: &str) -> Result<JsValue, JsValue> {
    let options = ParseOptions {
        strict: false,
        local_id: String::new(),
    };
    let request = parse_request_text(text, &options).map_err(|err| elicitation_error(&err))?;
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
        Mode::Form(schema) => {
            json::set(
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
            );
        }
        Mode::Url(url) => json::set(&mut normalized, "url", Value::String(url.url.clone())),
    }
    Ok(to_js(&normalized))
}
