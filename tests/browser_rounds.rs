//! The rounds of MCP 2026-07-28 in Chromium: `elicit()` calls that share one `AbortSignal` object
//! are one round, as SDK v2 calls its `elicitation/create` handler once per entry of a round, each
//! with the round's signal. The queue line counts the round ("1 of 2", then "2 of 2"), and the
//! user's cancel of one (Esc, the cancel button) cancels the rest of its round, so one Esc ends the
//! call; decline and accept leave the others, and calls with other signals (or none) are apart.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use js_sys::{Promise, Reflect};
use serde_json::{json, Value};
use support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web_sys::{AbortController, AbortSignal, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A form request asking for one required string field.
fn question(message: &str, field: &str) -> String {
    json!({"mode": "form", "message": message, "requestedSchema": {
        "type": "object", "properties": {field: {"type": "string"}}, "required": [field]
    }})
    .to_string()
}

fn with_signal(signal: &AbortSignal) -> JsValue {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"signal".into(), signal).unwrap();
    options.into()
}

/// Asks two questions the way SDK v2 hands over one round: two calls, one signal.
fn round_of_two(element: &HtmlElement, signal: &AbortSignal) -> (Promise, Promise) {
    let options = with_signal(signal);
    (
        elicit_with(element, &question("Who is booking?", "name"), &options),
        elicit_with(element, &question("How many seats?", "seats"), &options),
    )
}

fn message(element: &HtmlElement) -> Option<String> {
    find(element, "[part~=message]").and_then(|node| node.text_content())
}

/// What the queue line says, when it is on screen.
fn queue_line(element: &HtmlElement) -> Option<String> {
    find(element, "[part~=queue]")
        .filter(|queue| !queue.has_attribute("hidden"))
        .and_then(|queue| queue.text_content())
}

fn answer(element: &HtmlElement, field: &str, value: &str) {
    let input = find(element, &format!(r#"[data-field="{field}"] input"#)).expect("the field");
    type_into(&input, value);
    click(&find(element, "button[part~=accept]").expect("accept button"));
}

fn escape(element: &HtmlElement) {
    let field = find(element, "[data-field] input").expect("a field to press Esc in");
    key(&field, "Escape");
}

fn sources(recorder: &Recorder) -> Vec<Value> {
    (0..recorder.names().len())
        .map(|index| recorder.detail(index)["source"].clone())
        .collect()
}

#[wasm_bindgen_test]
async fn one_signal_is_one_round_counted_1_of_2_then_2_of_2() {
    let element = element(&[]);
    let round = AbortController::new().unwrap();
    let (first, second) = round_of_two(&element, &round.signal());
    assert_eq!(message(&element).as_deref(), Some("Who is booking?"));
    assert_eq!(queue_line(&element).as_deref(), Some("1 of 2"));
    answer(&element, "name", "Ada");
    tick(0).await;
    assert_eq!(message(&element).as_deref(), Some("How many seats?"));
    assert_eq!(
        queue_line(&element).as_deref(),
        Some("2 of 2"),
        "the round's second question says so, though the first is answered"
    );
    assert_eq!(
        find(&element, "[part~=queue]")
            .unwrap()
            .get_attribute("aria-label")
            .as_deref(),
        Some("Request 2 of 2")
    );
    answer(&element, "seats", "3");
    assert_eq!(
        json_of(&settle(first).await.unwrap()),
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(
        json_of(&settle(second).await.unwrap()),
        json!({"action": "accept", "content": {"seats": "3"}})
    );

    // The round is over: the same signal used again later starts a new one.
    let later = elicit_with(
        &element,
        &question("Anything else?", "note"),
        &with_signal(&round.signal()),
    );
    assert_eq!(
        queue_line(&element),
        None,
        "a lone question shows no position"
    );
    escape(&element);
    settle(later).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn one_escape_cancels_the_whole_round() {
    for how in ["Escape", "cancel button"] {
        let element = element(&[]);
        let recorder = Recorder::new(&element, &["cancel", "accept", "reject"]);
        let round = AbortController::new().unwrap();
        let (first, second) = round_of_two(&element, &round.signal());
        if how == "Escape" {
            escape(&element);
        } else {
            click(&find(&element, "button[part~=cancel]").unwrap());
        }
        assert_eq!(
            json_of(&settle(first).await.unwrap()),
            json!({"action": "cancel"}),
            "{how}"
        );
        assert_eq!(
            json_of(&settle(second).await.unwrap()),
            json!({"action": "cancel"}),
            "{how}: the round's other question is cancelled too"
        );
        assert!(find(&element, "dialog").is_none(), "{how}: no dialog left");
        assert_eq!(property(&element, "open"), JsValue::FALSE);
        assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
        assert_eq!(recorder.names(), ["cancel", "cancel"], "{how}: one each");
        assert_eq!(sources(&recorder), [json!("user"), json!("user")], "{how}");
        assert_eq!(recorder.detail(1)["result"], json!({"action": "cancel"}));
        element.remove();
    }
}

#[wasm_bindgen_test]
async fn other_signals_and_no_signal_are_not_cancelled_with_it() {
    let element = element(&[]);
    let one = AbortController::new().unwrap();
    let other = AbortController::new().unwrap();
    let first = elicit_with(
        &element,
        &question("Who is booking?", "name"),
        &with_signal(&one.signal()),
    );
    let second = elicit_with(
        &element,
        &question("How many seats?", "seats"),
        &with_signal(&other.signal()),
    );
    let third = elicit(&element, &question("Any allergies?", "allergies"));
    assert_eq!(queue_line(&element).as_deref(), Some("1 of 3"));
    escape(&element);
    assert_eq!(
        json_of(&settle(first).await.unwrap()),
        json!({"action": "cancel"})
    );
    tick(0).await;
    assert_eq!(
        message(&element).as_deref(),
        Some("How many seats?"),
        "another signal's question is still asked"
    );
    assert_eq!(queue_line(&element).as_deref(), Some("1 of 2"));
    escape(&element);
    settle(second).await.unwrap();
    tick(0).await;
    assert_eq!(
        message(&element).as_deref(),
        Some("Any allergies?"),
        "a call without a signal is its own"
    );
    assert_eq!(queue_line(&element), None);
    answer(&element, "allergies", "none");
    assert_eq!(
        json_of(&settle(third).await.unwrap()),
        json!({"action": "accept", "content": {"allergies": "none"}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn a_decline_leaves_the_rest_of_the_round() {
    let element = element(&[]);
    let round = AbortController::new().unwrap();
    let (first, second) = round_of_two(&element, &round.signal());
    click(&find(&element, "button[part~=reject]").unwrap());
    assert_eq!(
        json_of(&settle(first).await.unwrap()),
        json!({"action": "decline"})
    );
    tick(0).await;
    assert_eq!(message(&element).as_deref(), Some("How many seats?"));
    assert_eq!(queue_line(&element).as_deref(), Some("2 of 2"));
    answer(&element, "seats", "2");
    assert_eq!(
        json_of(&settle(second).await.unwrap())["action"],
        json!("accept")
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn elicit_inputs_counts_its_round_and_one_escape_ends_it() {
    let element = element(&[]);
    let method: js_sys::Function = Reflect::get(&element, &"elicitInputs".into())
        .unwrap()
        .into();
    let entry = |message: &str, field: &str| {
        let mut request: Value = serde_json::from_str(&question(message, field)).unwrap();
        json!({"method": "elicitation/create", "params": request.take()})
    };
    let round = json!({"resultType": "input_required", "inputRequests": {
        "identity": entry("Who is booking?", "name"),
        "preferences": entry("How many seats?", "seats")
    }});
    let input = js_sys::JSON::parse(&round.to_string()).unwrap();
    let call = |input: &JsValue| -> Promise {
        method
            .call2(&element, input, &js_sys::Object::new())
            .unwrap()
            .into()
    };

    let answered = call(&input);
    assert_eq!(queue_line(&element).as_deref(), Some("1 of 2"));
    answer(&element, "name", "Ada");
    tick(0).await;
    assert_eq!(message(&element).as_deref(), Some("How many seats?"));
    assert_eq!(queue_line(&element).as_deref(), Some("2 of 2"));
    answer(&element, "seats", "4");
    settle(answered).await.unwrap();

    let cancelled = call(&input);
    escape(&element);
    assert_eq!(
        json_of(&settle(cancelled).await.unwrap()),
        json!({"identity": {"action": "cancel"}, "preferences": {"action": "cancel"}}),
        "one Esc answers the whole round"
    );
    assert!(find(&element, "dialog").is_none());
    element.remove();
}
