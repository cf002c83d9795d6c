//! One tap and "remember" (contract §13) in Chromium: with `one-tap`, the core's one-tap shapes
//! show as buttons that settle at once with the core's results, first focus is never on a button
//! that accepts, Esc still cancels; without it the form is unchanged. A request's `_meta.persist`
//! offers scopes, and the chosen one comes back in `_meta.persist` of the promise's result and of
//! the event's `result` and `reply`; a one-time accept carries none.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::{json, Value};
use support::*;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

/// A JSON-RPC request (id 9) for `properties`, with `_meta` when it is not null.
fn request(properties: Value, meta: Value) -> String {
    let mut params = json!({
        "message": "The release pipeline is waiting.",
        "requestedSchema": { "type": "object", "properties": properties },
    });
    if !meta.is_null() {
        params["_meta"] = meta;
    }
    json!({ "jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": params })
        .to_string()
}

fn deploy() -> Value {
    json!({ "deploy": { "type": "boolean", "title": "Deploy now?" } })
}

/// Each answer button as `words|part|data-choice|data-persist`, in order.
fn buttons(element: &HtmlElement) -> Vec<String> {
    find_all(element, "[part~=choices] button")
        .iter()
        .map(|button| {
            format!(
                "{}|{}|{}|{}",
                button.text_content().unwrap_or_default(),
                button.get_attribute("part").unwrap_or_default(),
                button.get_attribute("data-choice").unwrap_or_default(),
                button.get_attribute("data-persist").unwrap_or_default(),
            )
        })
        .collect()
}

/// Clicks the answer button whose words are `words`.
fn tap(element: &HtmlElement, words: &str) {
    let button = find_all(element, "[part~=choices] button")
        .into_iter()
        .find(|button| button.text_content().as_deref() == Some(words))
        .unwrap_or_else(|| panic!("no button {words:?}: {:?}", buttons(element)));
    click(&button);
}

#[wasm_bindgen_test]
async fn a_boolean_is_yes_no_reject_named_by_the_question_and_no_settles_false() {
    let element = element(&[("one-tap", "")]);
    let recorder = Recorder::new(&element, &["accept"]);
    let pending = elicit(&element, &request(deploy(), Value::Null));
    assert_eq!(
        buttons(&element),
        ["Yes|choice|0|", "No|choice|1|", "Reject|choice reject|2|"]
    );
    let group = find(&element, "[part~=choices]").unwrap();
    assert_eq!(
        group.get_attribute("aria-labelledby").as_deref(),
        Some("kme-title")
    );
    assert_eq!(
        find(&element, "#kme-title")
            .unwrap()
            .text_content()
            .as_deref(),
        Some("Deploy now?")
    );
    assert!(find(&element, "input, button[part~=accept]").is_none());
    assert!(find(&element, "button[part~=cancel]").is_some());
    let focused = element.shadow_root().unwrap().active_element().unwrap();
    assert_eq!(
        focused, group,
        "first focus: the question, not a button that accepts"
    );
    tap(&element, "No");
    let result = json_of(&settle(pending).await.unwrap());
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"deploy": false}})
    );
    assert_eq!(recorder.detail(0)["result"], result);
    assert_eq!(
        recorder.detail(0)["reply"],
        json!({"jsonrpc": "2.0", "id": 9, "result": result})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn without_the_attribute_a_boolean_is_the_switch_and_submit() {
    let element = element(&[]);
    let pending = elicit(&element, &request(deploy(), Value::Null));
    assert!(find(&element, "input[type=checkbox][role=switch]").is_some());
    assert!(find(&element, "[part~=choices], [part~=choice]").is_none());
    let submit = find(&element, "button[part~=accept]").unwrap();
    assert_eq!(submit.text_content().as_deref(), Some("Submit"));
    click(&submit);
    let result = json_of(&settle(pending).await.unwrap());
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"deploy": false}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn a_select_shows_its_titles_and_reject_declines_with_a_reject_event() {
    let element = element(&[("one-tap", "")]);
    let recorder = Recorder::new(&element, &["reject"]);
    let size = json!({ "size": { "type": "string", "title": "Size",
        "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}] } });
    let pending = elicit(&element, &request(size.clone(), Value::Null));
    assert_eq!(
        buttons(&element),
        [
            "Small|choice|0|",
            "Large|choice|1|",
            "Reject|choice reject|2|"
        ]
    );
    tap(&element, "Reject");
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "decline"})
    );
    assert_eq!(recorder.names(), ["reject"]);

    let pending = elicit(&element, &request(size, Value::Null));
    tap(&element, "Large");
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"size": "l"}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn esc_still_cancels_as_the_user() {
    let element = element(&[("one-tap", "")]);
    let recorder = Recorder::new(&element, &["cancel"]);
    let pending = elicit(&element, &request(json!({}), Value::Null));
    key(&find(&element, "[part~=choices]").unwrap(), "Escape");
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(recorder.detail(0)["source"], "user");
    element.remove();
}

#[wasm_bindgen_test]
async fn no_properties_offers_a_button_per_scope_and_the_chosen_one_returns_in_meta() {
    let element = element(&[("one-tap", "")]);
    let recorder = Recorder::new(&element, &["accept"]);
    let pending = elicit(
        &element,
        &request(json!({}), json!({"persist": ["session", "always"]})),
    );
    assert_eq!(
        buttons(&element),
        [
            "Accept|choice|0|",
            "Allow for this session|choice persist|0|session",
            "Always allow|choice persist|0|always",
            "Reject|choice reject|1|",
        ]
    );
    assert_eq!(
        find(&element, "[part~=choices]")
            .unwrap()
            .get_attribute("aria-labelledby")
            .as_deref(),
        Some("kme-message"),
        "with no properties the message is the question"
    );
    tap(&element, "Always allow");
    let result = json_of(&settle(pending).await.unwrap());
    let remembered = json!({"action": "accept", "content": {}, "_meta": {"persist": "always"}});
    assert_eq!(result, remembered);
    assert_eq!(recorder.detail(0)["result"], remembered);
    assert_eq!(
        recorder.detail(0)["reply"],
        json!({"jsonrpc": "2.0", "id": 9, "result": remembered})
    );

    // Only "session" offered: only its button; the one-time Accept carries no `_meta`.
    let pending = elicit(&element, &request(json!({}), json!({"persist": "session"})));
    assert_eq!(
        buttons(&element),
        [
            "Accept|choice|0|",
            "Allow for this session|choice persist|0|session",
            "Reject|choice reject|1|",
        ]
    );
    tap(&element, "Accept");
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn a_boolean_offering_scopes_has_a_remember_control_whose_scope_travels_with_the_answer() {
    let element = element(&[("one-tap", "")]);
    let meta = json!({"persist": ["always"], "codex_approval_kind": "exec"});
    let pending = elicit(&element, &request(deploy(), meta.clone()));
    let remember = find(&element, "label select[part~=remember]").expect("Remember");
    let options: Vec<_> = find_all(&element, "select[part~=remember] option")
        .iter()
        .map(|option| {
            format!(
                "{}={}",
                option.get_attribute("value").unwrap_or_default(),
                option.text_content().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(options, ["=Only this time", "always=Always"]);
    assert!(remember
        .closest("label")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap()
        .starts_with("Remember"));
    assert_eq!(
        element.shadow_root().unwrap().active_element(),
        Some(remember.clone()),
        "first focus: the Remember control"
    );
    type_into(&remember, "always");
    tap(&element, "Yes");
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"deploy": true}, "_meta": {"persist": "always"}})
    );

    // Left at "Only this time": no `_meta`.
    let pending = elicit(&element, &request(deploy(), meta));
    tap(&element, "Yes");
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"deploy": true}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn a_form_offering_scopes_has_remember_beside_submit() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept"]);
    let form = json!({ "command": { "type": "string", "default": "make" },
        "cwd": { "type": "string" } });
    let pending = elicit(
        &element,
        &request(form.clone(), json!({"persist": ["session", "always"]})),
    );
    let footer: Vec<_> = find_all(&element, "footer button, footer select")
        .iter()
        .map(|node| node.get_attribute("part").unwrap_or_default())
        .collect();
    assert_eq!(footer, ["cancel", "reject", "remember", "accept"]);
    type_into(
        &find(&element, "select[part~=remember]").unwrap(),
        "session",
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    let remembered = json!({"action": "accept", "content": {"command": "make"}, "_meta": {"persist": "session"}});
    assert_eq!(json_of(&settle(pending).await.unwrap()), remembered);
    assert_eq!(
        recorder.detail(0)["reply"],
        json!({"jsonrpc": "2.0", "id": 9, "result": remembered})
    );

    // Nothing offered: no control.
    let pending = elicit(&element, &request(form, Value::Null));
    assert!(find(&element, "[part~=remember]").is_none());
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"command": "make"}})
    );
    element.remove();
}
