//! The seed's T6–T9 and the rest of an elicitation's life in Chromium: URL mode with consent and
//! status polling, timeout on a driven clock, server cancel, tenant switch, queue, detach, rate limit.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Promise, Reflect};
use koder_mcp_elicitation::element::advance_clock;
use serde_json::json;
use support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A status endpoint served from the page itself: answers `pending` until told to complete.
fn stub_status_endpoint(complete_after: usize) -> (Stub, Rc<RefCell<Vec<String>>>) {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let recorded = calls.clone();
    let closure = Closure::<dyn FnMut(String) -> Promise>::new(move |url: String| {
        recorded.borrow_mut().push(url);
        let status = if recorded.borrow().len() >= complete_after {
            "complete"
        } else {
            "pending"
        };
        let body = format!(r#"{{"status":"{status}"}}"#);
        let response = web_sys::Response::new_with_opt_str(Some(&body)).unwrap();
        let response: JsValue = response.into();
        Promise::resolve(&response)
    });
    (Stub::new("fetch", closure.into_js_value()), calls)
}

const URL_REQUEST: &str = r#"{"jsonrpc": "2.0", "id": 3, "method": "elicitation/create", "params": {
  "mode": "url", "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
  "url": "https://mcp.example.com/ui/set_api_key", "message": "Please provide your API key to continue."}}"#;

#[wasm_bindgen_test]
async fn t6_url_mode_consent_opens_then_polling_reaches_complete() {
    let (_open, opened) = stub_window_open();
    let (_fetch, polled) = stub_status_endpoint(4);
    let element = element(&[
        ("status-url", "/status/{id}"),
        ("poll-interval-ms", "100"),
        ("server-name", "Example"),
    ]);
    let recorder = Recorder::new(&element, &["accept", "complete", "cancel"]);
    let pending = elicit(&element, URL_REQUEST);
    assert_eq!(
        find(&element, "[part~=url]")
            .unwrap()
            .text_content()
            .as_deref(),
        Some("https://mcp.example.com/ui/set_api_key")
    );
    assert_eq!(
        find(&element, "[part~=url-host]")
            .unwrap()
            .text_content()
            .as_deref(),
        Some("mcp.example.com")
    );
    assert!(
        find(&element, "[part~=url] a, a").is_none(),
        "the URL is never a link"
    );
    assert!(opened.borrow().is_empty(), "nothing opens before consent");
    assert!(
        polled.borrow().is_empty(),
        "nothing is polled before consent"
    );
    let focused = element.shadow_root().unwrap().active_element().unwrap();
    assert_eq!(
        focused.get_attribute("part").as_deref(),
        Some("cancel"),
        "focus starts on a control that does not consent"
    );

    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept"})
    );
    assert_eq!(
        opened.borrow().clone(),
        vec![(
            "https://mcp.example.com/ui/set_api_key".to_string(),
            "_blank".to_string(),
            "noopener,noreferrer".to_string()
        )]
    );
    assert_eq!(recorder.names(), ["accept"]);
    assert_eq!(
        recorder.detail(0)["reply"],
        json!({"jsonrpc": "2.0", "id": 3, "result": {"action": "accept"}})
    );
    let live = find(&element, "dialog > [role=status]").unwrap();
    assert_eq!(
        live.text_content().as_deref(),
        Some(""),
        "announced a moment after it appears"
    );
    assert!(
        find(&element, "button[part~=close]").is_some(),
        "the dialog now waits"
    );
    tick(250).await;
    assert_eq!(
        live.text_content().as_deref(),
        Some("Opening external page")
    );
    assert_eq!(property(&element, "open").as_bool(), Some(true));

    for _ in 0..40 {
        if find(&element, "dialog").is_none() {
            break;
        }
        tick(50).await;
    }
    assert!(
        find(&element, "dialog").is_none(),
        "polling reached complete and closed the wait"
    );
    assert_eq!(
        polled.borrow().first().map(String::as_str),
        Some("/status/550e8400-e29b-41d4-a716-446655440000")
    );
    assert_eq!(recorder.names(), ["accept", "complete"]);
    assert_eq!(
        recorder.detail(1)["elicitationId"],
        "550e8400-e29b-41d4-a716-446655440000"
    );
    let calls = polled.borrow().len();
    tick(300).await;
    assert_eq!(polled.borrow().len(), calls, "polling stops once settled");
    element.remove();
}

#[wasm_bindgen_test]
async fn t6_complete_ends_the_wait_and_ignores_unknown_ids() {
    const ID: &str = "550e8400-e29b-41d4-a716-446655440000";
    let (_open, _opened) = stub_window_open();
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["complete"]);
    let complete = |id: &str| call(&element, "complete", &[id.into()]).as_bool();
    let pending = elicit(&element, URL_REQUEST);
    assert_eq!(complete(ID), Some(false), "not consented yet");
    click(&find(&element, "button[part~=open]").unwrap());
    settle(pending).await.unwrap();
    assert_eq!(complete("unknown"), Some(false));
    assert_eq!(complete(ID), Some(true));
    assert_eq!(complete(ID), Some(false), "a completed id is ignored");
    assert!(find(&element, "dialog").is_none());
    assert_eq!(recorder.names(), ["complete"]);
    element.remove();
}

#[wasm_bindgen_test]
async fn t6_unsafe_urls_are_blocked_but_can_be_declined() {
    let (_open, opened) = stub_window_open();
    for url in [
        "javascript:alert(1)",
        "data:text/html,hi",
        "http://example.com/",
        "https://user:pw@example.com/",
        "not a url",
        "ftp://example.com/",
    ] {
        let element = element(&[]);
        let request =
            json!({"mode": "url", "message": "Go", "url": url, "elicitationId": "x"}).to_string();
        let pending = elicit(&element, &request);
        let open = find(&element, "button[part~=open]").unwrap();
        assert!(open.has_attribute("disabled"), "{url} must not open");
        click(&open);
        assert!(
            find(&element, "[part~=warning]").is_some(),
            "{url} shows why"
        );
        click(&find(&element, "button[part~=reject]").unwrap());
        assert_eq!(
            json_of(&settle(pending).await.unwrap()),
            json!({"action": "decline"}),
            "{url}"
        );
        element.remove();
    }
    assert!(opened.borrow().is_empty());
    let element = element(&[]);
    let pending = elicit(&element, &json!({"mode": "url", "message": "Dev", "url": "http://localhost:3000/cb", "elicitationId": "d"}).to_string());
    assert!(!find(&element, "button[part~=open]")
        .unwrap()
        .has_attribute("disabled"));
    assert!(find(&element, "[part~=warning]")
        .unwrap()
        .text_content()
        .unwrap()
        .contains("development"));
    cancel_and_settle(&element, pending).await;
}

async fn cancel_and_settle(element: &web_sys::HtmlElement, pending: Promise) {
    click(&find(element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn t7_timeout_on_a_driven_clock_shows_a_countdown_then_fires_timeout() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["timeout", "cancel"]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    let countdown = find(&element, "[part~=countdown]").unwrap();
    assert!(
        countdown.has_attribute("hidden"),
        "no countdown with minutes left"
    );
    advance_clock(270_500.0);
    assert!(
        !countdown.has_attribute("hidden"),
        "countdown shows in the last 30 s"
    );
    assert_eq!(countdown.text_content().as_deref(), Some("Closing in 30s"));
    advance_clock(20_000.0);
    assert_eq!(countdown.text_content().as_deref(), Some("Closing in 10s"));
    advance_clock(10_000.0);
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(recorder.names(), ["timeout"]);
    assert_eq!(
        recorder.detail(0)["reply"],
        json!({"type": "elicitation/timeout", "id": "e_123"})
    );
    assert!(find(&element, "dialog").is_none(), "the dialog is gone");
    element.remove();
}

#[wasm_bindgen_test]
async fn t7_per_request_timeouts_override_the_attribute() {
    let element = element(&[("timeout-ms", "60000")]);
    let options = js_sys::Object::new();
    Reflect::set(&options, &"timeoutMs".into(), &5000.into()).unwrap();
    let pending = elicit_with(&element, WEATHER_PARAMS, &options);
    assert!(
        !find(&element, "[part~=countdown]")
            .unwrap()
            .has_attribute("hidden"),
        "5 s is inside the countdown window"
    );
    advance_clock(5_001.0);
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "cancel"})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn t8_server_cancel_closes_without_a_reply_and_rejects_with_abort_error() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel"]);
    let controller = web_sys::AbortController::new().unwrap();
    let options = js_sys::Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let pending = elicit_with(&element, WEATHER_ENVELOPE, &options);
    assert!(find(&element, "dialog").is_some());
    controller.abort();
    let error = settle(pending).await.unwrap_err();
    assert_eq!(
        json_of(&Reflect::get(&error, &"name".into()).unwrap()),
        json!("AbortError")
    );
    assert!(find(&element, "dialog").is_none());
    assert_eq!(recorder.names(), ["cancel"], "no accept or reject");
    assert_eq!(recorder.detail(0)["source"], "server");
    assert_eq!(
        recorder.detail(0)["result"],
        serde_json::Value::Null,
        "nothing is sent back"
    );
    assert_eq!(recorder.detail(0)["reply"], serde_json::Value::Null);

    let pending = elicit(&element, WEATHER_ENVELOPE);
    call(&element, "cancel", &[]);
    let error = settle(pending).await.unwrap_err();
    assert_eq!(
        json_of(&Reflect::get(&error, &"name".into()).unwrap()),
        json!("AbortError")
    );

    let pending = elicit_with(&element, WEATHER_ENVELOPE, &options);
    let error = settle(pending).await.unwrap_err();
    assert_eq!(
        json_of(&Reflect::get(&error, &"name".into()).unwrap()),
        json!("AbortError"),
        "an already aborted signal opens nothing"
    );
    assert!(find(&element, "dialog").is_none());
    element.remove();
}

#[wasm_bindgen_test]
async fn t9_workspace_switch_dismisses_and_keeps_values_in_their_own_scope() {
    let element = element(&[
        ("user-id", "u1"),
        ("workspace-id", "w1"),
        ("conversation-id", "c1"),
    ]);
    let recorder = Recorder::new(&element, &["cancel"]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Lisbon",
    );
    element.set_attribute("workspace-id", "w2").unwrap();
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(recorder.names(), ["cancel"]);
    assert_eq!(recorder.detail(0)["source"], "workspace");
    assert_eq!(recorder.detail(0)["scope"]["workspaceId"], "w1");
    assert!(
        find(&element, "dialog").is_none(),
        "the previous dialog is dismissed"
    );

    // Same elicitation id in the new scope: the old values are invisible.
    let pending = elicit(&element, WEATHER_ENVELOPE);
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    assert_eq!(
        city.dyn_ref::<web_sys::HtmlInputElement>().unwrap().value(),
        ""
    );
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();

    // Back in the old scope, the same elicitation gets its values back.
    element.set_attribute("workspace-id", "w1").unwrap();
    let pending = elicit(&element, WEATHER_ENVELOPE);
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    assert_eq!(
        city.dyn_ref::<web_sys::HtmlInputElement>().unwrap().value(),
        "Lisbon"
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Lisbon"}})
    );

    // Settled, so the draft is wiped.
    let pending = elicit(&element, WEATHER_ENVELOPE);
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    assert_eq!(
        city.dyn_ref::<web_sys::HtmlInputElement>().unwrap().value(),
        ""
    );
    cancel_and_settle(&element, pending).await;
}

#[wasm_bindgen_test]
async fn queued_requests_show_their_position_and_settle_independently() {
    let element = element(&[]);
    let first = elicit(&element, WEATHER_ENVELOPE);
    let second = elicit(&element, WEATHER_PARAMS);
    let third = elicit(&element, WEATHER_PARAMS);
    assert_eq!(property(&element, "pending").as_f64(), Some(3.0));
    let queue = find(&element, "[part~=queue]").unwrap();
    assert_eq!(queue.text_content().as_deref(), Some("1 of 3"));
    assert!(!queue.has_attribute("hidden"));
    click(&find(&element, "button[part~=reject]").unwrap());
    assert_eq!(
        json_of(&settle(first).await.unwrap()),
        json!({"action": "decline"})
    );
    assert_eq!(
        find(&element, "[part~=queue]")
            .unwrap()
            .text_content()
            .as_deref(),
        Some("1 of 2")
    );
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Faro",
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(second).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Faro"}})
    );
    assert!(
        find(&element, "[part~=queue]")
            .unwrap()
            .has_attribute("hidden"),
        "one left: no position shown"
    );
    key(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Escape",
    );
    assert_eq!(
        json_of(&settle(third).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    element.remove();
}

#[wasm_bindgen_test]
async fn detaching_the_element_settles_everything_as_detached() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["cancel"]);
    let first = elicit(&element, WEATHER_ENVELOPE);
    let second = elicit(&element, WEATHER_PARAMS);
    element.remove();
    assert_eq!(
        json_of(&settle(first).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(
        json_of(&settle(second).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(recorder.names(), ["cancel", "cancel"]);
    assert_eq!(recorder.detail(0)["source"], "detached");
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn the_eleventh_request_from_one_server_in_a_minute_is_rate_limited() {
    let element = element(&[("server-name", "Chatty")]);
    let recorder = Recorder::new(&element, &["cancel"]);
    let pending: Vec<Promise> = (0..11).map(|_| elicit(&element, WEATHER_PARAMS)).collect();
    assert_eq!(property(&element, "pending").as_f64(), Some(10.0));
    assert_eq!(recorder.names(), ["cancel"], "the 11th settles at once");
    assert_eq!(recorder.detail(0)["source"], "rate-limit");
    let mut pending = pending;
    let eleventh = pending.pop().unwrap();
    assert_eq!(
        json_of(&settle(eleventh).await.unwrap()),
        json!({"action": "cancel"})
    );
    let options = js_sys::Object::new();
    Reflect::set(&options, &"serverName".into(), &"Quiet".into()).unwrap();
    let other = elicit_with(&element, WEATHER_PARAMS, &options);
    assert_eq!(
        property(&element, "pending").as_f64(),
        Some(11.0),
        "another server is not limited"
    );
    element.remove();
    for promise in pending {
        settle(promise).await.unwrap();
    }
    settle(other).await.unwrap();
}

#[wasm_bindgen_test]
async fn double_submit_settles_once() {
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel", "timeout"]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    type_into(&city, "Braga");
    let accept = find(&element, "button[part~=accept]").unwrap();
    key(&city, "Enter");
    click(&accept);
    click(&accept);
    advance_clock(400_000.0);
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Braga"}})
    );
    assert_eq!(recorder.names(), ["accept"]);
    element.remove();
}

#[wasm_bindgen_test]
async fn t6_polling_backs_off_on_errors_and_still_completes() {
    let (_open, _opened) = stub_window_open();
    let calls = Rc::new(RefCell::new(Vec::<f64>::new()));
    let recorded = calls.clone();
    // Two failures (HTTP 503), then complete.
    let closure = Closure::<dyn FnMut(String) -> Promise>::new(move |_url: String| {
        recorded.borrow_mut().push(js_sys::Date::now());
        let failing = recorded.borrow().len() <= 2;
        let init = web_sys::ResponseInit::new();
        init.set_status(if failing { 503 } else { 200 });
        let response =
            web_sys::Response::new_with_opt_str_and_init(Some(r#"{"status":"complete"}"#), &init)
                .unwrap();
        let response: JsValue = response.into();
        Promise::resolve(&response)
    });
    let _fetch = Stub::new("fetch", closure.into_js_value());
    let element = element(&[("status-url", "/status/{id}"), ("poll-interval-ms", "100")]);
    let recorder = Recorder::new(&element, &["complete"]);
    let pending = elicit(&element, URL_REQUEST);
    click(&find(&element, "button[part~=open]").unwrap());
    settle(pending).await.unwrap();
    for _ in 0..60 {
        if find(&element, "dialog").is_none() {
            break;
        }
        tick(50).await;
    }
    assert_eq!(recorder.names(), ["complete"], "errors do not stop polling");
    let times = calls.borrow().clone();
    assert_eq!(times.len(), 3);
    // 100 ms, then 200 ms after the first error, then 400 ms after the second.
    assert!(times[2] - times[1] >= 350.0, "backs off: {times:?}");
    assert!(times[1] - times[0] >= 180.0, "backs off: {times:?}");
    element.remove();
}

fn shown_text(element: &web_sys::HtmlElement, selector: &str) -> Option<String> {
    find(element, selector).and_then(|node| node.text_content())
}

/// Opens `request` with `server` as the server's name, checks what the dialog shows, and cancels.
async fn open_check_and_cancel(
    element: &web_sys::HtmlElement,
    request: serde_json::Value,
    server: &str,
    check: impl FnOnce(&web_sys::HtmlElement),
) {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"serverName".into(), &server.into()).unwrap();
    let pending = elicit_with(element, &request.to_string(), &options);
    assert_eq!(find_all(element, "dialog").len(), 1, "one dialog at a time");
    assert_eq!(
        shown_text(element, "[part~=server]").as_deref(),
        Some(format!("From {server}").as_str())
    );
    check(element);
    click(&find(element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
}

// Once no dialog shows, the element builds the next one's request-independent parts in a task of
// its own. Each later dialog must still show only its own request: its texts, the legend only
// when a field is required, and only its mode's buttons.
#[wasm_bindgen_test]
async fn dialogs_opened_after_an_idle_moment_show_only_their_own_request() {
    let element = element(&[("lang", "en-US")]);
    let required = json!({"message": "one", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string"}}, "required": ["name"]}});
    let optional = json!({"message": "two", "requestedSchema": {"type": "object",
        "properties": {"note": {"type": "string"}}}});
    let url = json!({"mode": "url", "message": "three", "elicitationId": "idle-url",
        "url": "https://example.com/connect"});
    open_check_and_cancel(&element, required.clone(), "alpha", |element| {
        assert_eq!(
            shown_text(element, "[part~=message]").as_deref(),
            Some("one")
        );
        assert!(find(element, ".legend").is_some());
    })
    .await;
    tick(20).await;
    open_check_and_cancel(&element, optional, "beta", |element| {
        assert_eq!(
            shown_text(element, "[part~=message]").as_deref(),
            Some("two")
        );
        assert!(
            find(element, ".legend").is_none(),
            "no required field, no legend"
        );
        assert_eq!(find_all(element, "button[part~=accept]").len(), 1);
    })
    .await;
    tick(20).await;
    open_check_and_cancel(&element, url, "gamma", |element| {
        assert_eq!(
            shown_text(element, "[part~=message]").as_deref(),
            Some("three")
        );
        assert_eq!(
            shown_text(element, "h2").as_deref(),
            Some("Open an external page?")
        );
        assert!(find(element, "button[part~=accept]").is_none());
        assert!(find(element, "button[part~=open]").is_some());
        assert!(find(element, "form").is_none());
    })
    .await;
    // Removed while the next parts are due, then put back: it still opens, and shows this request.
    element.remove();
    tick(20).await;
    document().body().unwrap().append_child(&element).unwrap();
    open_check_and_cancel(&element, required, "delta", |element| {
        assert_eq!(
            shown_text(element, "h2").as_deref(),
            Some("Input requested")
        );
        assert_eq!(
            shown_text(element, "[part~=message]").as_deref(),
            Some("one")
        );
    })
    .await;
    element.remove();
}

/// The same JSON-RPC request, as two servers each numbering their own requests from 1 send it.
const CITY_REQUEST_1: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {
  "message": "Which city?", "requestedSchema": {"type": "object",
  "properties": {"city": {"type": "string", "title": "City"}}, "required": ["city"]}}}"#;

fn from_server(name: &str) -> JsValue {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"serverName".into(), &name.into()).unwrap();
    options.into()
}

fn city_value(element: &web_sys::HtmlElement) -> String {
    find(element, r#"[data-field="city"] input"#)
        .unwrap()
        .dyn_ref::<web_sys::HtmlInputElement>()
        .unwrap()
        .value()
}

#[wasm_bindgen_test]
async fn two_servers_asking_under_the_same_request_id_never_meet() {
    let element = element(&[("user-id", "u1"), ("workspace-id", "w1")]);
    let recorder = Recorder::new(&element, &["accept", "cancel"]);

    // Alpha's request is on screen and typed into; Beta's, with the same id, waits behind it.
    let alpha = elicit_with(&element, CITY_REQUEST_1, &from_server("Alpha"));
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Lisbon",
    );
    let beta = elicit_with(&element, CITY_REQUEST_1, &from_server("Beta"));
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(alpha).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Lisbon"}})
    );
    assert!(find(&element, "[part~=server]")
        .unwrap()
        .text_content()
        .unwrap()
        .contains("Beta"));
    assert_eq!(
        city_value(&element),
        "",
        "Beta never sees what Alpha was told"
    );
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Porto",
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(beta).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Porto"}})
    );
    assert_eq!(recorder.names(), ["accept", "accept"]);
    for (index, city) in [(0, "Lisbon"), (1, "Porto")] {
        let reply = &recorder.detail(index)["reply"];
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["result"]["content"]["city"], city);
    }

    // A draft kept across a workspace switch goes back to the server it was typed for only.
    let alpha = elicit_with(&element, CITY_REQUEST_1, &from_server("Alpha"));
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Faro",
    );
    let beta = elicit_with(&element, CITY_REQUEST_1, &from_server("Beta"));
    element.set_attribute("workspace-id", "w2").unwrap();
    settle(alpha).await.unwrap();
    settle(beta).await.unwrap();
    element.set_attribute("workspace-id", "w1").unwrap();
    let beta = elicit_with(&element, CITY_REQUEST_1, &from_server("Beta"));
    assert_eq!(city_value(&element), "", "Alpha's draft stays Alpha's");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(beta).await.unwrap();
    let alpha = elicit_with(&element, CITY_REQUEST_1, &from_server("Alpha"));
    assert_eq!(city_value(&element), "Faro");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(alpha).await.unwrap();
    element.remove();
}

/// A 2025-11-25 URL request whose `elicitationId` two servers could both use.
const LOGIN_URL: &str = r#"{"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": {
  "mode": "url", "elicitationId": "login", "url": "https://mcp.example.com/login",
  "message": "Sign in to continue."}}"#;

fn complete_from(element: &web_sys::HtmlElement, id: &str, server: &str) -> Option<bool> {
    call(element, "complete", &[id.into(), from_server(server)]).as_bool()
}

#[wasm_bindgen_test]
async fn a_completion_that_names_its_server_ends_only_that_servers_wait() {
    let (_open, opened) = stub_window_open();
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["complete"]);
    let alpha = elicit_with(&element, LOGIN_URL, &from_server("Alpha"));
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        json_of(&settle(alpha).await.unwrap()),
        json!({"action": "accept"})
    );
    let beta = elicit_with(&element, LOGIN_URL, &from_server("Beta"));

    // Beta's server reports "login" complete: Beta's is not waiting yet, and Alpha's is not Beta's.
    assert_eq!(complete_from(&element, "login", "Beta"), Some(false));
    assert!(recorder.names().is_empty());
    assert!(
        find(&element, "button[part~=close]").is_some(),
        "Alpha's wait goes on"
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(2.0));

    assert_eq!(complete_from(&element, "login", "Alpha"), Some(true));
    assert_eq!(recorder.names(), ["complete"]);
    assert!(find(&element, "[part~=server]")
        .unwrap()
        .text_content()
        .unwrap()
        .contains("Beta"));
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        json_of(&settle(beta).await.unwrap()),
        json!({"action": "accept"})
    );
    assert_eq!(opened.borrow().len(), 2);
    assert_eq!(complete_from(&element, "login", "Alpha"), Some(false));
    assert_eq!(complete_from(&element, "login", "Beta"), Some(true));
    assert_eq!(recorder.names(), ["complete", "complete"]);
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    element.remove();
}
