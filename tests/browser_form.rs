//! The seed's T1–T5 in headless Chromium: the real element, its shadow DOM and its events.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::json;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn t1_a_two_field_schema_renders_both_fields() {
    let element = element(&[("server-name", "Weather server")]);
    let _pending = elicit(&element, WEATHER_ENVELOPE);
    let city = find(&element, r#"[data-field="city"] input[type="text"]"#).expect("city input");
    let label = find(&element, r#"[data-field="city"] label"#).unwrap();
    assert_eq!(label.get_attribute("for"), Some(city.id()));
    assert!(label.text_content().unwrap().starts_with("city"));
    assert_eq!(city.get_attribute("aria-required").as_deref(), Some("true"));
    let radios = find_all(
        &element,
        r#"[data-field="temperature_unit"] [role="radiogroup"] input[type="radio"]"#,
    );
    let values: Vec<_> = radios
        .iter()
        .map(|radio| radio.get_attribute("value").unwrap())
        .collect();
    assert_eq!(values, ["C", "F"]);
    let dialog = find(&element, "dialog").unwrap();
    assert_eq!(dialog.get_attribute("role").as_deref(), Some("dialog"));
    assert_eq!(dialog.get_attribute("aria-modal").as_deref(), Some("true"));
    let title = find(&element, "#kme-title").unwrap();
    assert_eq!(
        title.text_content().as_deref(),
        Some("Weather lookup needs your input")
    );
    assert_eq!(
        dialog.get_attribute("aria-labelledby").as_deref(),
        Some("kme-title")
    );
    assert!(find(&element, "[part~=server]")
        .unwrap()
        .text_content()
        .unwrap()
        .contains("Weather server"));
    assert_eq!(property(&element, "open").as_bool(), Some(true));
    assert_eq!(property(&element, "pending").as_f64(), Some(1.0));
    element.remove();
}

#[wasm_bindgen_test]
async fn t2_missing_required_disables_accept_and_marks_the_field_invalid_after_leaving_it() {
    let element = element(&[]);
    let _pending = elicit(&element, WEATHER_PARAMS);
    let accept = find(&element, "button[part~=accept]").unwrap();
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    assert!(
        accept.has_attribute("disabled"),
        "accept is disabled while city is empty"
    );
    assert_eq!(
        city.get_attribute("aria-invalid"),
        None,
        "no error before the user leaves the field"
    );
    fire(&city, "focusout");
    assert_eq!(city.get_attribute("aria-invalid").as_deref(), Some("true"));
    let error = find(&element, r#"[data-field="city"] [part~=error]"#).unwrap();
    assert_eq!(error.text_content().as_deref(), Some("Required"));
    assert!(city
        .get_attribute("aria-describedby")
        .unwrap()
        .split(' ')
        .any(|id| id == error.id()));
    type_into(&city, "Lisbon");
    assert!(!accept.has_attribute("disabled"));
    assert_eq!(city.get_attribute("aria-invalid"), None);
    assert_eq!(error.text_content().as_deref(), Some(""));
    // And back: the view writes only what changed, so each change must still reach the DOM.
    type_into(&city, "");
    assert!(
        accept.has_attribute("disabled"),
        "empty again: accept is disabled again"
    );
    assert_eq!(city.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(error.text_content().as_deref(), Some("Required"));
    element.remove();
}

#[wasm_bindgen_test]
async fn t3_accept_fires_accept_and_resolves_with_typed_content() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel"]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Lisbon",
    );
    let fahrenheit = find(
        &element,
        r#"[data-field="temperature_unit"] input[value="F"]"#,
    )
    .unwrap();
    click(&fahrenheit);
    click(&find(&element, "button[part~=accept]").unwrap());
    let result = json_of(&settle(pending).await.unwrap());
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"city": "Lisbon", "temperature_unit": "F"}})
    );
    assert_eq!(recorder.names(), ["accept"]);
    let detail = recorder.detail(0);
    assert_eq!(detail["id"], "e_123");
    assert_eq!(detail["mode"], "form");
    assert_eq!(detail["result"], result);
    assert_eq!(
        detail["reply"],
        json!({"type": "elicitation/accept", "id": "e_123", "content": {"city": "Lisbon", "temperature_unit": "F"}})
    );
    assert_eq!(detail["scope"]["elicitationId"], "e_123");
    assert!(find(&element, "dialog").is_none(), "the dialog is gone");
    assert_eq!(property(&element, "open").as_bool(), Some(false));
    element.remove();
}

#[wasm_bindgen_test]
async fn t3_json_rpc_requests_get_a_json_rpc_reply() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept"]);
    let request = format!(
        r#"{{"jsonrpc": "2.0", "id": 42, "method": "elicitation/create", "params": {WEATHER_PARAMS}}}"#
    );
    let pending = elicit(&element, &request);
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Porto",
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Porto"}})
    );
    assert_eq!(
        recorder.detail(0)["reply"],
        json!({"jsonrpc": "2.0", "id": 42, "result": {"action": "accept", "content": {"city": "Porto"}}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn t4_reject_fires_reject_with_decline_and_the_reason() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel"]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    let reason = find(&element, "textarea#kme-reason").unwrap();
    reason
        .dyn_ref::<web_sys::HtmlTextAreaElement>()
        .unwrap()
        .set_value("Not now");
    click(&find(&element, "button[part~=reject]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "decline"})
    );
    assert_eq!(recorder.names(), ["reject"]);
    let detail = recorder.detail(0);
    assert_eq!(detail["result"], json!({"action": "decline"}));
    assert_eq!(detail["reason"], "Not now");
    assert_eq!(
        detail["reply"],
        json!({"type": "elicitation/reject", "id": "e_123", "reason": "Not now"})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn t5_escape_cancels_with_source_user() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel"]);
    let pending = elicit(&element, WEATHER_PARAMS);
    key(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Escape",
    );
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(recorder.names(), ["cancel"]);
    let detail = recorder.detail(0);
    assert_eq!(detail["source"], "user");
    assert_eq!(detail["result"], json!({"action": "cancel"}));
    assert_eq!(
        detail["reply"],
        json!({"action": "cancel"}),
        "bare params get the bare result"
    );
    assert!(find(&element, "dialog").is_none());
    element.remove();
}

#[wasm_bindgen_test]
async fn cancel_button_cancels_once_even_when_clicked_twice() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel"]);
    let pending = elicit(&element, WEATHER_PARAMS);
    let cancel = find(&element, "button[part~=cancel]").unwrap();
    click(&cancel);
    click(&cancel);
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(recorder.names(), ["cancel"]);
    element.remove();
}

#[wasm_bindgen_test]
async fn a_malformed_request_rejects_with_32602_and_opens_nothing() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["invalid"]);
    let pending = elicit(
        &element,
        r#"{"message": "x", "requestedSchema": {"type": "object", "properties": {"age": {"type": "integer", "minimum": "3"}}}}"#,
    );
    let error = settle(pending).await.unwrap_err();
    assert_eq!(
        json_of(&js_sys::Reflect::get(&error, &"name".into()).unwrap()),
        json!("ElicitationError")
    );
    assert_eq!(
        json_of(&js_sys::Reflect::get(&error, &"code".into()).unwrap()),
        json!(-32602)
    );
    assert_eq!(
        json_of(&js_sys::Reflect::get(&error, &"message".into()).unwrap()),
        json!("requestedSchema.properties.age.minimum must be a number")
    );
    assert!(find(&element, "dialog").is_none());
    assert_eq!(recorder.names(), ["invalid"]);
    assert_eq!(recorder.detail(0)["error"]["code"], -32602);
    assert_eq!(recorder.detail(0)["result"], serde_json::Value::Null);
    element.remove();
}

#[wasm_bindgen_test]
async fn opening_focuses_the_first_field_once_and_never_the_sentinel() {
    let element = element(&[]);
    let focused = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let seen = focused.clone();
    let listener = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(
        move |event: web_sys::Event| {
            let target: web_sys::Element = event.target().unwrap().dyn_into().unwrap();
            let name = if target.has_attribute("data-sentinel") {
                "sentinel".to_string()
            } else {
                format!("{}#{}", target.local_name(), target.id())
            };
            seen.borrow_mut().push(name);
        },
    );
    let root = element
        .shadow_root()
        .expect("the element has its shadow root");
    root.add_event_listener_with_callback("focusin", listener.as_ref().unchecked_ref())
        .unwrap();
    let _pending = elicit(&element, WEATHER_ENVELOPE);
    // Focus moved once, straight to the first field: a stop on the sentinel first would be read out
    // by a screen reader and restyle the dialog a second time.
    assert_eq!(*focused.borrow(), ["input#kme-f0"]);
    let active = root.active_element().expect("something has focus");
    assert_eq!(active.id(), "kme-f0");
    assert!(
        !active.has_attribute("autofocus"),
        "autofocus is not left behind"
    );
    element.remove();
}
