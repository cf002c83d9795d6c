//! URL mode across the rounds of an MCP 2026-07-28 request, in Chromium: a URL-mode request without
//! `elicitationId` settles `accept` on consent and the dialog closes; when the same server asks for
//! the same URL again (its next round), the dialog offers Continue, Open again and Cancel instead
//! of asking for consent again, and opens nothing by itself: Continue settles `accept` (with the
//! URL and `resumed: true`, not cancelable), Open again fires the cancelable `open` (never
//! `accept`: nothing is answered). 2025-11-25 requests (with an `elicitationId`) and envelopes
//! keep their wait. `window.open` is stubbed and counted.

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

use js_sys::Reflect;
use serde_json::{json, Value};
use support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

const URL: &str = "https://auth.example.com/connect?session=7";
const HOST: &str = "auth.example.com";

/// A 2026-07-28 URL-mode request, as an `InputRequiredResult` entry carries it: no `elicitationId`.
fn round_request(url: &str) -> String {
    json!({"mode": "url", "message": "Connect your account", "url": url}).to_string()
}

fn text_of(element: &HtmlElement, selector: &str) -> Option<String> {
    find(element, selector).and_then(|found| found.text_content())
}

fn focused(element: &HtmlElement) -> Option<web_sys::Element> {
    element.shadow_root().unwrap().active_element()
}

fn with_server(name: &str) -> JsValue {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"serverName".into(), &name.into()).unwrap();
    options.into()
}

/// The consent dialog: its open button says "Open page" and nothing resumes.
fn assert_asks_for_consent(element: &HtmlElement, why: &str) {
    assert_eq!(
        text_of(element, "button[part~=open]").as_deref(),
        Some("Open page"),
        "{why}: consent is asked"
    );
    assert!(
        find(element, "button[part~=reject]").is_some(),
        "{why}: consent offers decline"
    );
    assert!(
        find(element, "button[part~=continue]").is_none(),
        "{why}: nothing to continue"
    );
}

/// Consents to the request on screen and waits for its promise.
async fn consent(element: &HtmlElement, pending: js_sys::Promise) -> Value {
    click(&find(element, "button[part~=open]").expect("open button"));
    json_of(&settle(pending).await.expect("consent resolves"))
}

/// An element whose server already had consent for [`URL`] (one `window.open` so far).
async fn consented_element(opened: &OpenCalls) -> HtmlElement {
    let element = element(&[("server-name", "GitHub")]);
    let first = elicit(&element, &round_request(URL));
    assert_eq!(consent(&element, first).await, json!({"action": "accept"}));
    assert_eq!(opened.borrow().len(), 1);
    element
}

/// A host's listener for one event, recording (detail, cancelable); `delegate` calls
/// `preventDefault()`, as a host that opens URLs its own way does.
struct HostListener {
    element: HtmlElement,
    name: &'static str,
    seen: Rc<RefCell<Vec<(Value, bool)>>>,
    closure: Closure<dyn FnMut(web_sys::CustomEvent)>,
}

impl HostListener {
    fn new(element: &HtmlElement, name: &'static str, delegate: bool) -> HostListener {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let record = seen.clone();
        let closure =
            Closure::<dyn FnMut(web_sys::CustomEvent)>::new(move |event: web_sys::CustomEvent| {
                record
                    .borrow_mut()
                    .push((json_of(&event.detail()), event.cancelable()));
                if delegate {
                    event.prevent_default();
                }
            });
        element
            .add_event_listener_with_callback(name, closure.as_ref().unchecked_ref())
            .unwrap();
        HostListener {
            element: element.clone(),
            name,
            seen,
            closure,
        }
    }
}

impl Drop for HostListener {
    fn drop(&mut self) {
        let _ = self
            .element
            .remove_event_listener_with_callback(self.name, self.closure.as_ref().unchecked_ref());
    }
}

#[wasm_bindgen_test]
async fn consent_without_an_elicitation_id_accepts_and_the_dialog_closes() {
    let (_open, opened) = stub_window_open();
    let bare = round_request(URL);
    let json_rpc = json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create",
        "params": {"mode": "url", "message": "Connect", "url": URL}})
    .to_string();
    for request in [bare, json_rpc] {
        opened.borrow_mut().clear();
        let element = element(&[("server-name", "GitHub")]);
        let recorder = Recorder::new(&element, &["accept", "complete", "cancel"]);
        let pending = elicit(&element, &request);
        assert_asks_for_consent(&element, "the first time");
        assert_eq!(
            consent(&element, pending).await,
            json!({"action": "accept"})
        );
        assert!(
            find(&element, "dialog").is_none(),
            "nothing waits: the dialog closes"
        );
        assert!(find(&element, "button[part~=finished]").is_none());
        assert_eq!(property(&element, "open"), JsValue::FALSE);
        assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
        assert_eq!(
            opened.borrow().clone(),
            vec![(
                URL.to_string(),
                "_blank".to_string(),
                "noopener,noreferrer".to_string()
            )]
        );
        assert_eq!(recorder.names(), ["accept"]);
        assert_eq!(recorder.detail(0)["url"], URL);
        assert_eq!(
            recorder.detail(0).get("resumed"),
            None,
            "a first consent is not a resume"
        );
        element.remove();
    }
}

#[wasm_bindgen_test]
async fn the_same_server_asking_for_the_same_url_again_offers_continue_without_consent() {
    let (_open, opened) = stub_window_open();
    let element = consented_element(&opened).await;
    let recorder = Recorder::new(&element, &["accept", "cancel", "open"]);
    let listener = HostListener::new(&element, "accept", false);

    let again = elicit(&element, &round_request(URL));
    assert!(find(&element, "dialog").is_some());
    assert_eq!(
        opened.borrow().len(),
        1,
        "the page is not opened again by itself"
    );
    assert_eq!(
        text_of(&element, "[part~=title]").as_deref(),
        Some("Finish on the external page")
    );
    assert_eq!(
        text_of(&element, "#kme-resume").as_deref(),
        Some("Waiting for you to finish on auth.example.com.")
    );
    assert_eq!(text_of(&element, "[part~=url-host]").as_deref(), Some(HOST));
    assert_eq!(text_of(&element, "[part~=url]").as_deref(), Some(URL));
    assert_eq!(
        find(&element, "dialog")
            .unwrap()
            .get_attribute("aria-describedby")
            .as_deref(),
        Some("kme-message kme-resume"),
        "a screen reader hears what the dialog waits for"
    );
    // No consent step: no "Open page", no decline.
    assert!(find(&element, "button[part~=reject]").is_none());
    assert_eq!(
        text_of(&element, "button[part~=open]").as_deref(),
        Some("Open again")
    );
    assert_eq!(
        text_of(&element, "button[part~=continue]").as_deref(),
        Some("Continue")
    );
    let cancel = find(&element, "button[part~=cancel]").unwrap();
    assert_eq!(cancel.text_content().as_deref(), Some("Cancel"));
    assert_eq!(
        focused(&element),
        Some(cancel.clone()),
        "focus starts on a control that claims nothing"
    );
    let proceed = find(&element, "button[part~=continue]").unwrap();
    proceed.dyn_ref::<HtmlElement>().unwrap().focus().unwrap();
    key(&proceed, "Tab");
    assert_eq!(
        focused(&element),
        Some(cancel),
        "Tab wraps from Continue, the last stop, to Cancel"
    );

    click(&find(&element, "button[part~=continue]").unwrap());
    assert_eq!(
        json_of(&settle(again).await.unwrap()),
        json!({"action": "accept"})
    );
    assert!(find(&element, "dialog").is_none());
    assert_eq!(opened.borrow().len(), 1, "Continue opens nothing");
    assert_eq!(recorder.names(), ["accept"]);
    let seen = listener.seen.borrow().clone();
    assert_eq!(seen.len(), 1);
    assert!(
        !seen[0].1,
        "Continue's accept opens nothing, so it is not cancelable"
    );
    assert_eq!(seen[0].0["result"], json!({"action": "accept"}));
    assert_eq!(seen[0].0["mode"], "url");
    assert_eq!(seen[0].0["url"], URL, "every URL-mode accept names its URL");
    assert_eq!(
        seen[0].0["elicitationId"],
        Value::Null,
        "2026-07-28 has none"
    );
    assert_eq!(
        seen[0].0["resumed"],
        json!(true),
        "a host that opens URLs itself can tell Continue from a first consent"
    );

    // Continuing keeps the consent: the round after that resumes too.
    let third = elicit(&element, &round_request(URL));
    assert!(find(&element, "button[part~=continue]").is_some());
    click(&find(&element, "button[part~=continue]").unwrap());
    settle(third).await.unwrap();
    drop(listener);
    element.remove();
}

#[wasm_bindgen_test]
async fn open_again_fires_open_not_accept_and_opens_the_url_once_more() {
    let (_open, opened) = stub_window_open();
    let element = consented_element(&opened).await;
    let recorder = Recorder::new(&element, &["accept", "open", "cancel"]);
    let listener = HostListener::new(&element, "open", false);
    let again = elicit(&element, &round_request(URL));
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(opened.borrow().len(), 2, "one more open");
    assert_eq!(
        opened.borrow().last().cloned(),
        Some((
            URL.to_string(),
            "_blank".to_string(),
            "noopener,noreferrer".to_string()
        ))
    );
    assert!(
        find(&element, "button[part~=continue]").is_some(),
        "the dialog stays until the user continues or cancels"
    );
    assert_eq!(
        text_of(&element, "[role=status][aria-live=polite]:not([part])").as_deref(),
        Some("Opening external page")
    );
    let seen = listener.seen.borrow().clone();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].1, "cancelable: a host may open the URL its own way");
    assert_eq!(seen[0].0["url"], URL);
    assert_eq!(seen[0].0["mode"], "url");
    assert_eq!(seen[0].0["elicitationId"], Value::Null);
    assert_eq!(
        seen[0].0["result"],
        Value::Null,
        "nothing is sent: still open"
    );
    assert_eq!(seen[0].0["reply"], Value::Null);
    assert_eq!(seen[0].0["scope"]["userId"], "");
    assert!(seen[0].0.get("id").is_some());
    assert_eq!(
        recorder.names(),
        ["open"],
        "no accept: a host that sends detail.reply on accept sends nothing"
    );

    click(&find(&element, "button[part~=cancel]").unwrap());
    assert_eq!(
        json_of(&settle(again).await.unwrap()),
        json!({"action": "cancel"})
    );
    assert_eq!(opened.borrow().len(), 2);
    assert_eq!(recorder.names(), ["open", "cancel"]);
    drop(listener);
    element.remove();
}

#[wasm_bindgen_test]
async fn a_host_that_prevents_the_open_opens_again_itself() {
    let (_open, opened) = stub_window_open();
    let element = consented_element(&opened).await;
    let listener = HostListener::new(&element, "open", true);
    let again = elicit(&element, &round_request(URL));
    click(&find(&element, "button[part~=open]").unwrap());
    assert_eq!(
        opened.borrow().len(),
        1,
        "the host opened it, not the element"
    );
    assert_eq!(listener.seen.borrow().len(), 1);
    assert_eq!(listener.seen.borrow()[0].0["url"], URL);
    click(&find(&element, "button[part~=continue]").unwrap());
    settle(again).await.unwrap();
    drop(listener);
    element.remove();
}

#[wasm_bindgen_test]
async fn cancel_or_escape_on_the_resumed_dialog_cancels_and_the_next_request_asks_again() {
    let (_open, opened) = stub_window_open();
    for how in ["cancel button", "Escape"] {
        let element = consented_element(&opened).await;
        let recorder = Recorder::new(&element, &["accept", "cancel"]);
        let again = elicit(&element, &round_request(URL));
        let cancel = find(&element, "button[part~=cancel]").unwrap();
        if how == "Escape" {
            key(&cancel, "Escape");
        } else {
            click(&cancel);
        }
        assert_eq!(
            json_of(&settle(again).await.unwrap()),
            json!({"action": "cancel"}),
            "{how}"
        );
        assert!(find(&element, "dialog").is_none(), "{how}");
        assert_eq!(recorder.names(), ["cancel"], "{how}");
        assert_eq!(recorder.detail(0)["source"], "user");
        // The user stopped: a later request for that URL starts from consent.
        let later = elicit(&element, &round_request(URL));
        assert_asks_for_consent(&element, how);
        click(&find(&element, "button[part~=cancel]").unwrap());
        settle(later).await.unwrap();
        opened.borrow_mut().clear();
        element.remove();
    }
}

#[wasm_bindgen_test]
async fn another_server_another_url_or_a_declined_first_consent_asks_again() {
    let (_open, opened) = stub_window_open();
    let element = consented_element(&opened).await;

    let other_server = elicit_with(&element, &round_request(URL), &with_server("GitLab"));
    assert_asks_for_consent(&element, "another server");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(other_server).await.unwrap();

    let other_url = elicit(&element, &round_request(&format!("{URL}&step=2")));
    assert_asks_for_consent(&element, "another URL");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(other_url).await.unwrap();

    // The same server named through the option resumes, as the attribute did.
    let same = elicit_with(&element, &round_request(URL), &with_server("GitHub"));
    assert!(find(&element, "button[part~=continue]").is_some());
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(same).await.unwrap();
    element.remove();

    // Declining the first consent records nothing.
    let element = support::element(&[("server-name", "GitHub")]);
    let first = elicit(&element, &round_request(URL));
    click(&find(&element, "button[part~=reject]").unwrap());
    assert_eq!(
        json_of(&settle(first).await.unwrap()),
        json!({"action": "decline"})
    );
    let second = elicit(&element, &round_request(URL));
    assert_asks_for_consent(&element, "after a decline");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(second).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn a_round_queued_behind_the_first_consent_resumes_once_the_user_consents() {
    let (_open, opened) = stub_window_open();
    let element = element(&[("server-name", "GitHub")]);
    let first = elicit(&element, &round_request(URL));
    let second = elicit(&element, &round_request(URL));
    assert_eq!(
        text_of(&element, "[part~=queue]").as_deref(),
        Some("1 of 2")
    );
    assert_eq!(consent(&element, first).await, json!({"action": "accept"}));
    assert!(
        find(&element, "button[part~=continue]").is_some(),
        "the queued round does not ask again"
    );
    assert!(find(&element, "button[part~=reject]").is_none());
    assert_eq!(opened.borrow().len(), 1);
    click(&find(&element, "button[part~=continue]").unwrap());
    assert_eq!(
        json_of(&settle(second).await.unwrap()),
        json!({"action": "accept"})
    );
    assert_eq!(property(&element, "pending").as_f64(), Some(0.0));
    element.remove();
}

#[wasm_bindgen_test]
async fn requests_with_an_elicitation_id_and_envelopes_still_wait_for_completion() {
    let (_open, opened) = stub_window_open();
    let element = consented_element(&opened).await;
    let recorder = Recorder::new(&element, &["complete"]);

    // 2025-11-25: the same server and URL, with an elicitationId: consent, then the wait.
    let with_id = json!({"mode": "url", "message": "Connect", "url": URL, "elicitationId": "el-1"})
        .to_string();
    let pending = elicit(&element, &with_id);
    assert_asks_for_consent(&element, "an elicitationId request");
    assert_eq!(
        consent(&element, pending).await,
        json!({"action": "accept"})
    );
    assert_eq!(
        text_of(&element, "button[part~=finished]").as_deref(),
        Some("I've finished")
    );
    assert_eq!(
        call(&element, "complete", &["el-1".into()]).as_bool(),
        Some(true)
    );
    assert!(find(&element, "dialog").is_none());

    // A Koder envelope waits for complete(id) too.
    let envelope = json!({"type": "elicitation/request", "id": "env-1", "mode": "url",
        "url": URL, "description": "Connect"})
    .to_string();
    let pending = elicit(&element, &envelope);
    assert_asks_for_consent(&element, "an envelope");
    consent(&element, pending).await;
    assert!(find(&element, "button[part~=finished]").is_some());
    assert_eq!(
        call(&element, "complete", &["env-1".into()]).as_bool(),
        Some(true)
    );
    assert_eq!(recorder.names(), ["complete", "complete"]);

    // A consent given with an elicitationId does not let a later round skip consent.
    let fresh = element_with_consent_by_id(&opened).await;
    let round = elicit(&fresh, &round_request(URL));
    assert_asks_for_consent(&fresh, "after a 2025-11-25 consent");
    click(&find(&fresh, "button[part~=cancel]").unwrap());
    settle(round).await.unwrap();
    fresh.remove();
    element.remove();
}

/// An element whose only consent to [`URL`] came with an `elicitationId`, now completed.
async fn element_with_consent_by_id(opened: &OpenCalls) -> HtmlElement {
    let element = element(&[("server-name", "GitHub")]);
    let request = json!({"mode": "url", "message": "Connect", "url": URL, "elicitationId": "el-2"})
        .to_string();
    let before = opened.borrow().len();
    consent(&element, elicit(&element, &request)).await;
    assert_eq!(opened.borrow().len(), before + 1);
    call(&element, "complete", &["el-2".into()]);
    element
}
