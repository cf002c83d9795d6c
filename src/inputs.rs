//! `elicitInputs()`: one MCP 2026-07-28 round (an `InputRequiredResult` or its `inputRequests`)
//! read by the core for the element's shim, which queues one `elicit()` per elicitation and
//! gathers the answers by key (src/js/define.js). The queue, the dialogs and the panic
//! containment stay the ones `elicit()` already has. The shim builds the `inputResponses` object
//! itself (`Object.fromEntries`, which keeps a key like `__proto__` an own key): going through
//! the core's `input_responses` would add about 640 B gzip to the wasm for the same object.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::element::{elicitation_error, to_js, Controller};
use crate::error::ElicitationError;
use crate::input_required::parse_input_round_text;
use crate::request::ParseOptions;

#[wasm_bindgen]
impl Controller {
    /// The round's elicitations as `[[key, paramsText], …]` in the server's order (each params
    /// object as JSON text, ready for `elicit()`), or throws the -32602 `ElicitationError`
    /// naming the key. `text` is `null` when the input was not JSON; `strict` is the element's.
    #[wasm_bindgen(js_name = inputRound)]
    pub fn input_round(&self, text: Option<String>, strict: bool) -> Result<JsValue, JsValue> {
        let options = ParseOptions {
            strict,
            local_id: String::new(),
        };
        let round = match text {
            Some(text) => parse_input_round_text(&text, &options),
            None => Err(ElicitationError::invalid("input", "is not JSON")),
        }
        .map_err(|error| elicitation_error(&error))?;
        let entries: Vec<Value> = round
            .elicitations
            .into_iter()
            .map(|entry| {
                Value::Array(vec![
                    Value::String(entry.key),
                    Value::String(crate::json::write(&entry.params)),
                ])
            })
            .collect();
        Ok(to_js(&Value::Array(entries)))
    }
}
