//! URL mode, complete (issue 15) in Chromium: the cancelable `accept` that lets a host open the URL
//! itself, the wait's "I've finished" and "Cancel", and `elicitRequired()` for
//! URLElicitationRequiredError (-32042). `window.open` is stubbed: nothing leaves the test page.

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

use js_sys::{Promise, Reflect, JSON};
use koder_mcp_elicitation::element::advance_clock;
use serde_json::{json, Value};
use support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ID: &str = "550e8400-e29b-41d4-a716-446655440000";
const URL: &str = "https://mcp.example.com/ui/set_api_key";

fn url_request() -> String {
    json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create", "params": {
        "mode": "url", "elicitationId": ID, "url": URL,
        "message": "Please provide your API key to continue."}})
    .to_string()
}

/// What an `accept` listener saw: the detail, whether the event could be cancelled, and how many
/// windows had opened when it ran.
#[derive(Debug, Clone)]
struct SeenAccept {
    detail: Value,
    cancelable: bool,
    opened_before: usize,
}

/// A host's `accept` listener; `delegate` makes it call `preventDefault()` (it opens the URL
/// itself). Removed on drop.
struct AcceptListener {
    element: web_sys::HtmlElement,
    seen: Rc<RefCell<Vec<SeenAccept>>>,
    closure: Closure<dyn FnMut(web_sys::CustomEvent)>,
}

impl AcceptListener {
    fn new(element: &web_sys::HtmlElement, opened: &OpenCalls, delegate: bool) -> AcceptListener {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let (record, opened) = (seen.clone(), opened.clone());
        let closure =
            Closure::<dyn FnMut(web_sys::CustomEvent)>::new(move |event: web_sys::CustomEvent| {
                record.borrow_mut().push(SeenAccept {
                    detail: json_of(&event.detail()),
                    cancelable: event.cancelable(),
                    opened_before: opened.borrow().len(),
                });
                if delegate {
                    event.prevent_default();
                }
            });
        element
            .add_event_listener_with_callback("accept", closure.as_ref().unchecked_ref())
            .unwrap();
        AcceptListener {
            element: element.clone(),
            seen,
            closure,
        }
    }

    fn seen(&self) -> Vec<SeenAccept> {
        self.seen.borrow().clone()
    }
}

impl Drop for AcceptListener {
    fn drop(&mut self) {
        let _ = self
            .element
            .remove_event_listener_with_callback("accept", self.closure.as_ref().unchecked_ref());
    }
}

fn text_of(element: &web_sys::HtmlElement, selector: &str) -> Option<String> {
    find(element, selector).and_then(|found| found.text_content())
}

fn complete(element: &web_sys::HtmlElement, id: &str) -> Option<bool> {
    call(element, "complete", &[id.into()]).as_bool()
}

/// `element.elicitRequired(error, options)`.
fn elicit_required(element: &web_sys::HtmlElement, error: &Value, options: &JsValue) -> Promise {
    let error = JSON::parse(&error.to_string()).unwrap();
    call(element, "elicitRequired", &[error, options.clone()])
        .dyn_into()
        .unwrap()
}

fn no_options() -> JsValue {
    js_sys::Object::new().into()
}

fn required_item(id: &str, host: &str) -> Value {
    json!({"mode": "url", "elicitationId": id, "url": format!("https://{host}/connect?elicitationId={id}"),
           "message": format!("Authorize {host}")})
}

#[wasm_bindgen_test]
async fn a_host_that_prevents_the_accept_opens_the_url_itself_and_the_elicitation_still_completes()
{
    let (_open, opened) = stub_window_open();
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "complete", "cancel"]);
    let host = AcceptListener::new(&element, &opened, true);
    let pending = elicit(&element, &url_request());
    assert!(host.seen().is_empty(), "nothing before consent");

    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept"})
    );
    let seen = host.seen();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].cancelable, "the URL-mode accept is cancelable");
    assert_eq!(seen[0].detail["url"], URL, "the host gets the URL");
    assert_eq!(seen[0].detail["elicitationId"], ID);
    assert_eq!(
        seen[0].detail["reply"],
        json!({"jsonrpc": "2.0", "id": 3, "result": {"action": "accept"}})
    );
    assert!(
        opened.borrow().is_empty(),
        "the element does not call window.open"
    );

    // The wait is the same as ever, with "I've finished" and "Cancel".
    assert_eq!(
        text_of(&element, "button[part~=finished]").as_deref(),
        Some("I've finished")
    );
    assert_eq!(
        text_of(&element, "button[part~=cancel]").as_deref(),
        Some("Cancel")
    );
    assert_eq!(complete(&element, ID), Some(true));
    assert!(
        find(&element, "dialog").is_none(),
        "completion closes the wait"
    );
    assert_eq!(recorder.names(), ["accept", "complete"]);
    assert_eq!(recorder.detail(1)["elicitationId"], ID);
    drop(host);
    element.remove();
}

#[wasm_bindgen_test]
async fn without_prevent_default_the_element_opens_the_url_after_the_accept() {
    let (_open, opened) = stub_window_open();
    let element = element(&[]);
    let listener = AcceptListener::new(&element, &opened, false);
    let pending = elicit(&element, &url_request());
    click(&find(&element, "button[part~=open]").unwrap());
    settle(pending).await.unwrap();
    let seen = listener.seen();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].cancelable);
    assert_eq!(seen[0].opened_before, 0, "dispatched before anything opens");
    assert_eq!(seen[0].detail["url"], URL);
    assert_eq!(
        opened.borrow().clone(),
        vec![(
            URL.to_string(),
            "_blank".to_string(),
            "noopener,noreferrer".to_string()
        )]
    );
    assert_eq!(complete(&element, ID), Some(true));
    drop(listener);
    element.remove();
}

#[wasm_bindgen_test]
async fn a_form_accept_is_not_cancelable_and_carries_no_url() {
    let (_open, opened) = stub_window_open();
    let element = element(&[]);
    let listener = AcceptListener::new(&element, &opened, true);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Porto",
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Porto"}})
    );
    let seen = listener.seen();
    assert!(!seen[0].cancelable);
    assert!(seen[0].detail.get("url").is_none());
    drop(listener);
    element.remove();
}

#[wasm_bindgen_test]
async fn a_blocked_url_never_fires_accept_even_with_its_button_re_enabled() {
    let (_open, opened) = stub_window_open();
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject"]);
    let request =
        json!({"mode": "url", "message": "Go", "url": "javascript:alert(1)", "elicitationId": "x"});
    let pending = elicit(&element, &request.to_string());
    let open = find(&element, "button[part~=open]").unwrap();
    assert!(open.has_attribute("disabled"));
    click(&open);
    // Even a page that tampers with the shadow DOM cannot consent to a blocked URL.
    open.remove_attribute("disabled").unwrap();
    click(&open);
    assert!(
        recorder.names().is_empty(),
        "no accept: {:?}",
        recorder.names()
    );
    assert!(
        find(&element, "button[part~=finished]").is_none(),
        "no wait"
    );
    click(&find(&element, "button[part~=reject]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "decline"})
    );
    assert_eq!(recorder.names(), ["reject"]);
    assert!(opened.borrow().is_empty());
    element.remove();
}

#[wasm_bindgen_test]
async fn cancelling_a_url_wait_names_the_elicitation_and_sends_nothing_more() {
    let (_open, _opened) = stub_window_open();
    for how in ["cancel button", "Escape"] {
        let element = element(&[]);
        let recorder = Recorder::new(&element, &["accept", "cancel", "complete"]);
        let pending = elicit(&element, &url_request());
        click(&find(&element, "button[part~=open]").unwrap());
        settle(pending).await.unwrap();
        let cancel = find(&element, "button[part~=cancel]").unwrap();
        assert_eq!(
            element
                .shadow_root()
                .unwrap()
                .active_element()
                .map(|focused| focused == cancel),
            Some(true),
            "focus waits on Cancel, not on \"I've finished\""
        );
        if how == "Escape" {
            key(&cancel, "Escape");
        } else {
            click(&cancel);
        }
        assert!(find(&element, "dialog").is_none(), "{how} closes the wait");
        assert_eq!(recorder.names(), ["accept", "cancel"], "{how}");
        let detail = recorder.detail(1);
        assert_eq!(detail["source"], "user");
        assert_eq!(detail["elicitationId"], ID, "{how} names the elicitation");
        assert_eq!(detail["mode"], "url");
        assert_eq!(detail["result"], Value::Null, "the accept already answered");
        assert_eq!(detail["reply"], Value::Null);
        assert_eq!(complete(&element, ID), Some(false), "no longer waiting");
        element.remove();
    }
}

#[wasm_bindgen_test]
async fn i_ve_finished_completes_a_plain_url_elicitation() {
    let (_open, _opened) = stub_window_open();
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["complete", "cancel"]);
    let pending = elicit(&element, &url_request());
    click(&find(&element, "button[part~=open]").unwrap());
    settle(pending).await.unwrap();
    click(&find(&element, "button[part~=finished]").unwrap());
    assert!(find(&element, "dialog").is_none());
    assert_eq!(recorder.names(), ["complete"]);
    assert_eq!(recorder.detail(0)["elicitationId"], ID);
    element.remove();
}

#[wasm_bindgen_test]
async fn required_with_two_elicitations_completes_by_notification_then_by_i_ve_finished() {
    let (_open, opened) = stub_window_open();
    let element = element(&[("server-name", "Example Co")]);
    let recorder = Recorder::new(&element, &["accept", "complete", "cancel"]);
    let error = json!({"jsonrpc": "2.0", "id": 2, "error": {
        "code": -32042, "message": "This request requires more information.",
        "data": {"elicitations": [required_item("first", "files.example.com"), required_item("second", "mail.example.com")]}}});
    let pending = elicit_required(&element, &error, &no_options());
    assert_eq!(
        text_of(&element, "[part~=queue]").as_deref(),
        Some("1 of 2")
    );
    assert_eq!(
        text_of(&element, "[part~=url-host]").as_deref(),
        Some("files.example.com")
    );
    assert_eq!(
        text_of(&element, "[part~=message]").as_deref(),
        Some("Authorize files.example.com")
    );
    assert!(opened.borrow().is_empty(), "nothing opens before consent");
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(opened.borrow().len(), 1);
    assert!(
        find(&element, "button[part~=finished]").is_some(),
        "the first waits"
    );
    assert_eq!(
        complete(&element, "second"),
        Some(false),
        "not consented yet"
    );
    assert_eq!(complete(&element, "first"), Some(true));

    assert_eq!(
        text_of(&element, "[part~=queue]").as_deref(),
        Some("2 of 2")
    );
    assert_eq!(
        text_of(&element, "[part~=url-host]").as_deref(),
        Some("mail.example.com")
    );
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        opened.borrow().last().map(|call| call.0.clone()),
        Some("https://mail.example.com/connect?elicitationId=second".to_string())
    );
    click(&find(&element, "button[part~=finished]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"retry": true})
    );
    assert!(find(&element, "dialog").is_none());
    assert_eq!(
        recorder.names(),
        ["accept", "complete", "accept", "complete"]
    );
    assert_eq!(recorder.detail(0)["elicitationId"], "first");
    assert_eq!(
        recorder.detail(0)["url"],
        "https://files.example.com/connect?elicitationId=first"
    );
    assert_eq!(recorder.detail(3)["elicitationId"], "second");
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    element.remove();
}

#[wasm_bindgen_test]
async fn required_accepts_the_sdk_error_and_status_polling_completes_it() {
    let (_open, _opened) = stub_window_open();
    let closure = Closure::<dyn FnMut(String) -> Promise>::new(move |_url: String| {
        let response =
            web_sys::Response::new_with_opt_str(Some(r#"{"status":"complete"}"#)).unwrap();
        let response: JsValue = response.into();
        Promise::resolve(&response)
    });
    let _fetch = Stub::new("fetch", closure.into_js_value());
    let element = element(&[("status-url", "/status/{id}"), ("poll-interval-ms", "100")]);
    // JSON.stringify of the SDK's UrlElicitationRequiredError.
    let error = json!({"code": -32042, "name": "McpError",
        "data": {"elicitations": [required_item("polled", "auth.example.com")]}});
    let pending = elicit_required(&element, &error, &no_options());
    assert!(
        find(&element, "[part~=queue]")
            .unwrap()
            .has_attribute("hidden"),
        "one elicitation: no position shown"
    );
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"retry": true})
    );
    assert!(find(&element, "dialog").is_none());
    element.remove();
}

#[wasm_bindgen_test]
async fn required_cancelled_declined_or_timed_out_tells_the_host_not_to_retry() {
    let (_open, opened) = stub_window_open();
    let data = json!({"elicitations": [required_item("one", "a.example.com"), required_item("two", "b.example.com")]});

    // Cancel on the first: the second is never shown.
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept", "reject", "cancel", "timeout"]);
    let pending = elicit_required(&element, &data, &no_options());
    click(&find(&element, "button[part~=cancel]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"retry": false, "action": "cancel", "elicitationId": "one"})
    );
    assert!(
        find(&element, "dialog").is_none(),
        "the second is not shown"
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    assert_eq!(recorder.names(), ["cancel"]);
    assert_eq!(recorder.detail(0)["source"], "user");

    // Decline on the second, after the first completed.
    let pending = elicit_required(&element, &data, &no_options());
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(complete(&element, "one"), Some(true));
    click(&find(&element, "button[part~=reject]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"retry": false, "action": "decline", "elicitationId": "two"})
    );

    // Cancel while waiting.
    let pending = elicit_required(&element, &data, &no_options());
    click(&find(&element, "button[part~=open]").unwrap());
    click(&find(&element, "button[part~=cancel]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"retry": false, "action": "cancel", "elicitationId": "one"})
    );
    assert!(find(&element, "dialog").is_none());

    // The timeout passes while the first waits.
    recorder.events.borrow_mut().clear();
    let options = js_sys::Object::new();
    Reflect::set(&options, &"timeoutMs".into(), &60_000.into()).unwrap();
    let pending = elicit_required(&element, &data, &options);
    click(&find(&element, "button[part~=open]").unwrap());
    advance_clock(60_001.0);
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"retry": false, "action": "cancel", "elicitationId": "one"})
    );
    assert!(find(&element, "dialog").is_none());
    assert_eq!(recorder.names(), ["accept", "timeout"]);
    assert_eq!(recorder.detail(1)["elicitationId"], "one");
    assert_eq!(recorder.detail(1)["result"], Value::Null);
    assert_eq!(opened.borrow().len(), 3, "only consented URLs opened");
    element.remove();
}

#[wasm_bindgen_test]
async fn required_withdrawn_by_its_signal_rejects_with_abort_error() {
    let (_open, _opened) = stub_window_open();
    let element = element(&[]);
    let controller = web_sys::AbortController::new().unwrap();
    let options = js_sys::Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let data = json!({"elicitations": [required_item("one", "a.example.com"), required_item("two", "b.example.com")]});
    let pending = elicit_required(&element, &data, &options);
    assert!(find(&element, "dialog").is_some());
    controller.abort();
    let error = settle(pending).await.unwrap_err();
    assert_eq!(
        json_of(&Reflect::get(&error, &"name".into()).unwrap()),
        json!("AbortError")
    );
    assert!(find(&element, "dialog").is_none());
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    element.remove();
}

#[wasm_bindgen_test]
async fn malformed_required_data_is_refused_with_32602_and_opens_nothing() {
    let (_open, opened) = stub_window_open();
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["invalid", "accept"]);
    let cases = [
        (
            json!({"code": -32042, "data": {"elicitations": {"mode": "url"}}}),
            "data.elicitations must be a list",
        ),
        (
            json!({"elicitations": [{"message": "A form", "requestedSchema": {"type": "object", "properties": {}}}]}),
            "elicitations.0.mode must be \"url\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32042, "message": "m",
                "data": {"elicitations": [{"mode": "url", "message": "x", "url": "https://a.example.com"}]}}}),
            "error.data.elicitations.0.elicitationId is required",
        ),
        (
            json!({"code": -32602, "message": "Invalid params"}),
            "code must be -32042",
        ),
    ];
    for (index, (error, message)) in cases.iter().enumerate() {
        let rejected = settle(elicit_required(&element, error, &no_options()))
            .await
            .unwrap_err();
        assert_eq!(
            json_of(&Reflect::get(&rejected, &"name".into()).unwrap()),
            json!("ElicitationError")
        );
        assert_eq!(
            json_of(&Reflect::get(&rejected, &"code".into()).unwrap()),
            json!(-32602)
        );
        assert_eq!(
            json_of(&Reflect::get(&rejected, &"message".into()).unwrap()),
            json!(message)
        );
        assert!(
            find(&element, "dialog").is_none(),
            "{message}: nothing opens"
        );
        assert_eq!(recorder.names().len(), index + 1);
        assert_eq!(recorder.detail(index)["error"]["message"], *message);
        assert_eq!(recorder.detail(index)["mode"], "url");
    }
    assert!(recorder.names().iter().all(|name| name == "invalid"));
    assert!(opened.borrow().is_empty());
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    element.remove();
}
