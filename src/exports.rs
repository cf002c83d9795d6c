//! The functions the distributable's entry re-exports: `defineElement`, `validateContent`,
//! `parseRequest` and `registerTranslation` (the `ElicitationError` class is the JS shim's own).

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::content::validate_content;
use crate::element::{elicitation_error, to_js};
use crate::error::ElicitationError;
use crate::i18n::{Direction, Locale};
use crate::json::object;
use crate::request::{parse_request_text, ParseOptions};
use crate::wire;

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
    Ok(to_js(&wire::normalized_request(&request)))
}
