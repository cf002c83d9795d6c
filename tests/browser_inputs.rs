//! `elicitInputs()` (MCP 2026-07-28 multi round-trip) in Chromium: one round's elicitations shown
//! in the server's order and answered by key, sampling left to the host, an empty round, a
//! malformed entry refused before anything shows, and the host's abort withdrawing the round.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use js_sys::{Function, Promise, Reflect, JSON};
use serde_json::{json, Value};
use support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `element.elicitInputs(input, options)` with `input` given as JSON.
fn elicit_inputs(element: &web_sys::HtmlElement, input: &Value, options: &JsValue) -> Promise {
    let method: Function = Reflect::get(element, &"elicitInputs".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let input = JSON::parse(&input.to_string()).unwrap();
    method
        .call2(element, &input, options)
        .unwrap()
        .dyn_into()
        .unwrap()
}

fn no_options() -> JsValue {
    js_sys::Object::new().into()
}

/// A form elicitation entry asking for one required string field.
fn form_entry(message: &str, field: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    }})
}

fn sampling_entry() -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100
    }})
}

fn text_of(element: &web_sys::HtmlElement, selector: &str) -> Option<String> {
    find(element, selector).and_then(|node| node.text_content())
}

/// Whether the queue line is on screen, and what it says.
fn queue_line(element: &web_sys::HtmlElement) -> Option<String> {
    find(element, "[part~=queue]")
        .filter(|queue| !queue.has_attribute("hidden"))
        .and_then(|queue| queue.text_content())
}

/// `promise`, or a rejection once `ms` pass: a round that never settles fails its test instead of
/// hanging the suite.
fn within(ms: i32, promise: Promise) -> Promise {
    let timer = Promise::new(&mut |_, reject| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_1(
                &reject,
                ms,
                &"the round did not settle".into(),
            )
            .unwrap();
    });
    Promise::race(&js_sys::Array::of2(&promise, &timer))
}

fn fill_and_accept(element: &web_sys::HtmlElement, field: &str, value: &str) {
    let input = find(element, &format!(r#"[data-field="{field}"] input"#)).expect("the field");
    type_into(&input, value);
    click(&find(element, "button[part~=accept]").expect("accept button"));
}

#[wasm_bindgen_test]
async fn a_round_shows_each_elicitation_in_order_and_resolves_by_key() {
    let element = element(&[]);
    let round = json!({
        "resultType": "input_required",
        "inputRequests": {
            "k1": form_entry("Your GitHub username", "login"),
            "capital_of_france": sampling_entry(),
            "k2": form_entry("Your city", "city")
        },
        "requestState": "opaque"
    });
    let pending = elicit_inputs(&element, &round, &no_options());
    // Both elicitations are queued at once; sampling is the host's and never shows.
    assert_eq!(property(&element, "pending").as_f64(), Some(2.0));
    assert_eq!(
        text_of(&element, "[part~=message]").as_deref(),
        Some("Your GitHub username")
    );
    assert_eq!(queue_line(&element).as_deref(), Some("1 of 2"));
    fill_and_accept(&element, "login", "octocat");
    tick(0).await;
    assert_eq!(
        text_of(&element, "[part~=message]").as_deref(),
        Some("Your city")
    );
    assert_eq!(
        queue_line(&element).as_deref(),
        Some("2 of 2"),
        "the round's second counts the first"
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(1.0));
    fill_and_accept(&element, "city", "Faro");
    let responses = json_of(
        &settle(within(2000, pending))
            .await
            .expect("the round resolves"),
    );
    assert_eq!(
        responses,
        json!({
            "k1": {"action": "accept", "content": {"login": "octocat"}},
            "k2": {"action": "accept", "content": {"city": "Faro"}}
        })
    );
    let keys: Vec<&String> = responses.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["k1", "k2"], "the server's keys, in its order");
    assert!(find(&element, "dialog").is_none(), "nothing left on screen");
    element.remove();
}

#[wasm_bindgen_test]
async fn a_declined_entry_does_not_end_the_round_and_odd_keys_are_kept() {
    let element = element(&[]);
    // A JSON-RPC response holding the result, with keys a JS object could mistake for its own.
    let response = json!({"jsonrpc": "2.0", "id": 4, "result": {
        "resultType": "input_required",
        "inputRequests": {"__proto__": form_entry("First", "a"), "b.c": form_entry("Second", "b")}
    }});
    let pending = elicit_inputs(&element, &response, &no_options());
    click(&find(&element, "button[part~=reject]").expect("reject button"));
    tick(0).await;
    assert_eq!(
        text_of(&element, "[part~=message]").as_deref(),
        Some("Second"),
        "the next entry is still asked"
    );
    key(
        &find(&element, r#"[data-field="b"] input"#).unwrap(),
        "Escape",
    );
    let responses = settle(within(2000, pending))
        .await
        .expect("the round resolves");
    assert_eq!(
        json_of(&responses),
        json!({"__proto__": {"action": "decline"}, "b.c": {"action": "cancel"}})
    );
    let own = Reflect::get_own_property_descriptor(&responses.into(), &"__proto__".into()).unwrap();
    assert!(
        !own.is_undefined(),
        "__proto__ is an own key, not the prototype"
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn a_round_without_elicitations_resolves_empty_and_shows_nothing() {
    let element = element(&[]);
    for round in [
        json!({"resultType": "input_required", "requestState": "only state"}),
        json!({"roots": {"method": "roots/list"}, "capital_of_france": sampling_entry()}),
    ] {
        let pending = elicit_inputs(&element, &round, &no_options());
        assert!(find(&element, "dialog").is_none(), "{round}");
        assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
        assert_eq!(
            json_of(&settle(pending).await.unwrap()),
            json!({}),
            "{round}"
        );
    }
    element.remove();
}

#[wasm_bindgen_test]
async fn a_malformed_entry_rejects_naming_its_key_and_shows_nothing() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "cancel", "reject", "invalid"]);
    let round = json!({"resultType": "input_required", "inputRequests": {
        "fine": form_entry("Fine", "a"),
        "github_login": {"method": "elicitation/create", "params": {"mode": "form", "requestedSchema": {"type": "object", "properties": {}}}}
    }});
    let error = settle(elicit_inputs(&element, &round, &no_options()))
        .await
        .expect_err("a malformed round rejects");
    assert_eq!(
        json_of(&Reflect::get(&error, &"name".into()).unwrap()),
        json!("ElicitationError")
    );
    assert_eq!(
        json_of(&Reflect::get(&error, &"code".into()).unwrap()),
        json!(-32602)
    );
    assert_eq!(
        json_of(&Reflect::get(&error, &"message".into()).unwrap()),
        json!("inputRequests.github_login.params.message is required")
    );
    assert!(
        find(&element, "dialog").is_none(),
        "not even the valid entry shows"
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    assert!(recorder.names().is_empty(), "{:?}", recorder.names());
    element.remove();
}

#[wasm_bindgen_test]
async fn aborting_the_signal_withdraws_every_pending_entry() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["cancel"]);
    let controller = web_sys::AbortController::new().unwrap();
    let options = js_sys::Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let round = json!({
        "one": form_entry("First", "a"),
        "two": form_entry("Second", "b"),
        "three": form_entry("Third", "c")
    });
    let pending = elicit_inputs(&element, &round, &options.into());
    fill_and_accept(&element, "a", "answered");
    tick(0).await;
    assert_eq!(property(&element, "pending").as_f64(), Some(2.0));
    controller.abort();
    let error = settle(within(2000, pending))
        .await
        .expect_err("an aborted round rejects");
    assert_eq!(
        json_of(&Reflect::get(&error, &"name".into()).unwrap()),
        json!("AbortError")
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    assert!(
        find(&element, "dialog").is_none(),
        "no entry stays on screen"
    );
    let sources: Vec<Value> = (0..recorder.names().len())
        .map(|index| recorder.detail(index)["source"].clone())
        .collect();
    assert_eq!(
        sources,
        [json!("server"), json!("server")],
        "both withdrawn"
    );
    element.remove();
}
