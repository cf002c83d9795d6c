//! No public call is ever lost: a page handler that reacts to a focus move the element makes, to
//! one of its events, or to page code the element runs while it works (a replaced
//! `navigator.languages` getter) may call `cancel()`, `elicit()`, `complete()`, change
//! `workspace-id` or remove the element, and each call takes effect and every promise settles.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Object, Promise, Reflect};
use serde_json::{json, Value};
use support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

/// A page listener (capture phase), removed on drop.
struct PageListener {
    target: web_sys::EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl PageListener {
    /// Runs `action` the first time `kind` reaches the document, then stays quiet.
    fn once(kind: &'static str, action: impl FnOnce() + 'static) -> PageListener {
        Self::once_at(document().into(), kind, action)
    }

    /// The same on the element's open shadow root, which sees focus moves inside the dialog
    /// (the document does not: they stay inside the shadow tree).
    fn once_inside(
        element: &HtmlElement,
        kind: &'static str,
        action: impl FnOnce() + 'static,
    ) -> PageListener {
        Self::once_at(element.shadow_root().unwrap().into(), kind, action)
    }

    fn once_at(
        target: web_sys::EventTarget,
        kind: &'static str,
        action: impl FnOnce() + 'static,
    ) -> PageListener {
        let action = RefCell::new(Some(action));
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(action) = action.borrow_mut().take() {
                action();
            }
        });
        target
            .add_event_listener_with_callback_and_bool(kind, closure.as_ref().unchecked_ref(), true)
            .unwrap();
        PageListener {
            target,
            kind,
            closure,
        }
    }

    /// Runs `action` the first time the element fires `kind`.
    fn once_on(
        element: &HtmlElement,
        kind: &'static str,
        action: impl FnOnce(&web_sys::Event) + 'static,
    ) -> Closure<dyn FnMut(web_sys::Event)> {
        let action = RefCell::new(Some(action));
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            if let Some(action) = action.borrow_mut().take() {
                action(&event);
            }
        });
        element
            .add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())
            .unwrap();
        closure
    }
}

impl Drop for PageListener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback_and_bool(
            self.kind,
            self.closure.as_ref().unchecked_ref(),
            true,
        );
    }
}

/// `navigator.languages` replaced by a getter that runs `action` the first time the element
/// reads it (always while the element is busy rendering); restored on drop.
struct LanguagesGetter {
    _getter: Option<Closure<dyn FnMut() -> JsValue>>,
}

impl LanguagesGetter {
    fn new(action: impl FnOnce() + 'static) -> LanguagesGetter {
        let action = RefCell::new(Some(action));
        let getter = Closure::<dyn FnMut() -> JsValue>::new(move || {
            if let Some(action) = action.borrow_mut().take() {
                action();
            }
            js_sys::Array::of1(&"en-US".into()).into()
        });
        Self::install(getter.as_ref());
        LanguagesGetter {
            _getter: Some(getter),
        }
    }

    /// A getter that always throws, as a buggy page's might.
    fn throwing() -> LanguagesGetter {
        Self::install(&js_sys::Function::new_no_args(
            "throw new Error('page bug')",
        ));
        LanguagesGetter { _getter: None }
    }

    fn install(getter: &JsValue) {
        let descriptor = Object::new();
        Reflect::set(&descriptor, &"get".into(), getter).unwrap();
        Reflect::set(&descriptor, &"configurable".into(), &true.into()).unwrap();
        let navigator: Object = web_sys::window().unwrap().navigator().unchecked_into();
        Object::define_property(&navigator, &"languages".into(), &descriptor);
    }
}

impl Drop for LanguagesGetter {
    fn drop(&mut self) {
        let navigator: Object = web_sys::window().unwrap().navigator().unchecked_into();
        Reflect::delete_property(&navigator, &"languages".into()).unwrap();
    }
}

/// `EventTarget.prototype.addEventListener` and `removeEventListener` replaced by methods that
/// throw, as a buggy page's might; restored on drop.
struct ThrowingListenerMethods {
    prototype: Object,
    saved: Vec<(&'static str, JsValue)>,
}

impl ThrowingListenerMethods {
    fn install() -> ThrowingListenerMethods {
        let global = js_sys::global();
        let target = Reflect::get(&global, &"EventTarget".into()).unwrap();
        let prototype: Object = Reflect::get(&target, &"prototype".into())
            .unwrap()
            .unchecked_into();
        let mut saved = Vec::new();
        for name in ["addEventListener", "removeEventListener"] {
            saved.push((name, Reflect::get(&prototype, &name.into()).unwrap()));
            let throwing = js_sys::Function::new_no_args("throw new Error('page bug')");
            Reflect::set(&prototype, &name.into(), &throwing).unwrap();
        }
        ThrowingListenerMethods { prototype, saved }
    }
}

impl Drop for ThrowingListenerMethods {
    fn drop(&mut self) {
        for (name, method) in &self.saved {
            Reflect::set(&self.prototype, &(*name).into(), method).unwrap();
        }
    }
}

/// Awaits a promise, failing the test if it does not settle within a second.
async fn settled(promise: Promise) -> Result<Value, Value> {
    let timeout = Promise::new(&mut |_, reject| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_1(
                &reject,
                1000,
                &"never settled".into(),
            )
            .unwrap();
    });
    let race = Promise::race(&js_sys::Array::of2(&promise, &timeout));
    match settle(race).await {
        Ok(value) => Ok(json_of(&value)),
        Err(reason) => {
            let reason = json_of(&Reflect::get(&reason, &"name".into()).unwrap_or(reason));
            assert_ne!(reason, json!("never settled"), "a promise never settled");
            Err(reason)
        }
    }
}

fn tags_request() -> String {
    form_request(json!({"type": "object", "properties": {
        "labels": {"type": "array", "items": {"type": "string"}}
    }}))
}

fn url_request(id: &str) -> String {
    json!({
        "mode": "url", "message": "Sign in", "elicitationId": id,
        "url": "https://auth.example.com/start"
    })
    .to_string()
}

fn cancel_on(element: &HtmlElement) -> impl FnOnce() + 'static {
    let element = element.clone();
    move || {
        call(&element, "cancel", &[]);
    }
}

#[wasm_bindgen_test]
async fn a_cancel_from_focusin_after_removing_a_tag_settles_the_elicitation() {
    let element = element(&[]);
    let events = Recorder::new(&element, &["cancel"]);
    let pending = elicit(&element, &tags_request());
    let input = find(&element, "input[data-tags]").expect("tag input");
    type_into(&input, "red");
    key(&input, "Enter");
    let remove = find(&element, "button[data-remove-tag]").expect("remove button");
    // A real click focuses the button first; removing its tag sends focus back to the input.
    remove.dyn_ref::<HtmlElement>().unwrap().focus().unwrap();
    let _listener = PageListener::once_inside(&element, "focusin", cancel_on(&element));
    click(&remove);
    tick(0).await;
    assert_eq!(settled(pending).await, Err(json!("AbortError")));
    assert_eq!(events.names(), vec!["cancel"]);
    assert_eq!(events.detail(0)["source"], json!("server"));
    assert_eq!(property(&element, "open"), JsValue::FALSE);
    element.remove();
}

#[wasm_bindgen_test]
async fn an_elicit_from_focusin_on_open_is_queued_behind_the_first() {
    let element = element(&[]);
    let second: Made = Rc::default();
    let _listener = {
        let (element, second) = (element.clone(), second.clone());
        PageListener::once("focusin", move || {
            *second.borrow_mut() = Some(elicit(&element, WEATHER_PARAMS));
        })
    };
    let first = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    assert_eq!(property(&element, "pending"), JsValue::from(2));
    let queue = find(&element, "[part~=queue]").expect("queue position");
    assert!(!queue.has_attribute("hidden"), "the dialog shows 1 of 2");
    call(&element, "cancel", &[]);
    assert_eq!(settled(first).await, Err(json!("AbortError")));
    tick(0).await;
    assert_eq!(
        property(&element, "open"),
        JsValue::TRUE,
        "the second shows"
    );
    call(&element, "cancel", &[]);
    let second = second.borrow_mut().take().expect("the page called elicit");
    assert_eq!(settled(second).await, Err(json!("AbortError")));
    element.remove();
}

#[wasm_bindgen_test]
async fn a_workspace_change_from_focusin_on_open_dismisses_the_old_scope() {
    let element = element(&[("workspace-id", "w1")]);
    let events = Recorder::new(&element, &["cancel"]);
    let _listener = {
        let element = element.clone();
        PageListener::once("focusin", move || {
            element.set_attribute("workspace-id", "w2").unwrap();
        })
    };
    let pending = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    assert_eq!(settled(pending).await, Ok(json!({"action": "cancel"})));
    assert_eq!(events.detail(0)["source"], json!("workspace"));
    assert_eq!(property(&element, "open"), JsValue::FALSE);
    element.remove();
}

#[wasm_bindgen_test]
async fn removing_the_element_from_focusin_on_open_settles_as_detached() {
    let element = element(&[]);
    let events = Recorder::new(&element, &["cancel"]);
    let _listener = {
        let element = element.clone();
        PageListener::once("focusin", move || element.remove())
    };
    let pending = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    assert_eq!(settled(pending).await, Ok(json!({"action": "cancel"})));
    assert_eq!(events.detail(0)["source"], json!("detached"));
    assert_eq!(property(&element, "pending"), JsValue::from(0));
}

#[wasm_bindgen_test]
async fn a_cancel_from_focusin_on_an_invalid_submit_settles() {
    let element = element(&[]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    // Focus elsewhere first, so the invalid submit moves focus back to the city.
    let unit = find(&element, r#"[data-field="temperature_unit"] input"#).unwrap();
    unit.dyn_ref::<HtmlElement>().unwrap().focus().unwrap();
    assert_ne!(
        element.shadow_root().unwrap().active_element(),
        Some(city.clone())
    );
    let _listener = PageListener::once_inside(&element, "focusin", cancel_on(&element));
    key(&city, "Enter");
    tick(0).await;
    assert_eq!(settled(pending).await, Err(json!("AbortError")));
    element.remove();
}

#[wasm_bindgen_test]
async fn an_elicit_from_focusin_when_focus_returns_to_the_opener_opens_next() {
    let opener = document().create_element("button").unwrap();
    opener.set_text_content(Some("Open"));
    document().body().unwrap().append_child(&opener).unwrap();
    opener.dyn_ref::<HtmlElement>().unwrap().focus().unwrap();
    let element = element(&[]);
    let first = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    let second: Made = Rc::default();
    let _listener = {
        let (element, second) = (element.clone(), second.clone());
        PageListener::once("focusin", move || {
            *second.borrow_mut() = Some(elicit(&element, WEATHER_PARAMS));
        })
    };
    key(&find(&element, "input").unwrap(), "Escape");
    assert_eq!(settled(first).await.unwrap(), json!({"action": "cancel"}));
    tick(0).await;
    assert_eq!(
        property(&element, "open"),
        JsValue::TRUE,
        "the new one opens"
    );
    call(&element, "cancel", &[]);
    let second = second.borrow_mut().take().expect("the page called elicit");
    assert_eq!(settled(second).await, Err(json!("AbortError")));
    element.remove();
    opener.remove();
}

#[wasm_bindgen_test]
async fn calls_from_the_elements_own_events_take_effect() {
    let element = element(&[]);
    // accept → elicit again; the new one must open and settle.
    let again: Made = Rc::default();
    let _on_accept = {
        let (target, again) = (element.clone(), again.clone());
        PageListener::once_on(&element, "accept", move |_| {
            *again.borrow_mut() = Some(elicit(&target, WEATHER_ENVELOPE));
        })
    };
    // cancel → cancel() again and remove the element: nothing breaks, nothing is left.
    let _on_cancel = {
        let target = element.clone();
        PageListener::once_on(&element, "cancel", move |_| {
            call(&target, "cancel", &[]);
            target.remove();
        })
    };
    let first = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    type_into(
        &find(&element, r#"[data-field="city"] input"#).unwrap(),
        "Lisbon",
    );
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(settled(first).await.unwrap()["action"], json!("accept"));
    tick(0).await;
    assert_eq!(property(&element, "open"), JsValue::TRUE);
    key(&find(&element, "input").unwrap(), "Escape");
    let again = again
        .borrow_mut()
        .take()
        .expect("the accept handler called elicit");
    assert_eq!(settled(again).await.unwrap(), json!({"action": "cancel"}));
    assert_eq!(property(&element, "pending"), JsValue::from(0));
    assert!(!element.is_connected());
}

#[wasm_bindgen_test]
async fn a_complete_from_the_url_accept_event_ends_the_wait() {
    let element = element(&[]);
    let events = Recorder::new(&element, &["accept", "complete"]);
    let answered: Rc<Cell<Option<bool>>> = Rc::default();
    let _on_accept = {
        let (target, answered) = (element.clone(), answered.clone());
        PageListener::once_on(&element, "accept", move |_| {
            answered.set(call(&target, "complete", &["auth-1".into()]).as_bool());
        })
    };
    let open_stub = Closure::<dyn FnMut() -> JsValue>::new(|| JsValue::NULL);
    let window = web_sys::window().unwrap();
    let original_open = Reflect::get(&window, &"open".into()).unwrap();
    Reflect::set(&window, &"open".into(), open_stub.as_ref()).unwrap();
    let pending = elicit(&element, &url_request("auth-1"));
    tick(0).await;
    click(&find(&element, "button[part~=open]").expect("open button"));
    assert_eq!(settled(pending).await.unwrap(), json!({"action": "accept"}));
    tick(0).await;
    Reflect::set(&window, &"open".into(), &original_open).unwrap();
    assert_eq!(answered.get(), Some(true), "complete() knew the waiting id");
    assert_eq!(events.names(), vec!["accept", "complete"]);
    assert_eq!(property(&element, "open"), JsValue::FALSE);
    element.remove();
}

#[wasm_bindgen_test]
async fn calls_made_while_the_element_is_busy_run_right_after_in_order() {
    let element = element(&[("workspace-id", "w1")]);
    let events = Recorder::new(&element, &["cancel"]);
    let second: Made = Rc::default();
    // The getter runs while the element renders the first dialog: every call it makes arrives
    // while the element is busy.
    let _languages = {
        let (element, second) = (element.clone(), second.clone());
        LanguagesGetter::new(move || {
            *second.borrow_mut() = Some(elicit(&element, WEATHER_PARAMS));
            call(&element, "cancel", &[]);
            assert_eq!(
                call(&element, "complete", &["nobody".into()]),
                JsValue::FALSE
            );
        })
    };
    let first = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    // In order: the second was queued, then cancel() withdrew the first.
    assert_eq!(settled(first).await, Err(json!("AbortError")));
    assert_eq!(events.detail(0)["source"], json!("server"));
    assert_eq!(property(&element, "pending"), JsValue::from(1));
    assert_eq!(
        property(&element, "open"),
        JsValue::TRUE,
        "the second shows"
    );
    element.set_attribute("workspace-id", "w2").unwrap();
    let second = second
        .borrow_mut()
        .take()
        .expect("the getter called elicit");
    assert_eq!(settled(second).await, Ok(json!({"action": "cancel"})));
    element.remove();
}

#[wasm_bindgen_test]
async fn removing_the_element_while_it_is_busy_settles_everything() {
    let element = element(&[]);
    let _languages = {
        let element = element.clone();
        LanguagesGetter::new(move || element.remove())
    };
    let pending = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    assert_eq!(settled(pending).await, Ok(json!({"action": "cancel"})));
    assert_eq!(property(&element, "pending"), JsValue::from(0));
    assert_eq!(property(&element, "open"), JsValue::FALSE);
}

/// Opens an envelope and cancels it, then bare params the same way: whether each dialog was open
/// and how each call settled. A test checks them after undoing its page patch.
async fn open_and_cancel_twice(element: &HtmlElement) -> Vec<(JsValue, Result<Value, Value>)> {
    let mut seen = Vec::new();
    for request in [WEATHER_ENVELOPE, WEATHER_PARAMS] {
        let pending = elicit(element, request);
        tick(0).await;
        let open = property(element, "open");
        call(element, "cancel", &[]);
        seen.push((open, settled(pending).await));
    }
    seen
}

/// What `open_and_cancel_twice` sees from an element that works.
fn opened_and_cancelled_twice() -> Vec<(JsValue, Result<Value, Value>)> {
    vec![(JsValue::TRUE, Err(json!("AbortError"))); 2]
}

#[wasm_bindgen_test]
async fn a_page_getter_that_throws_while_the_element_is_busy_breaks_nothing() {
    let element = element(&[]);
    let languages = LanguagesGetter::throwing();
    let seen = open_and_cancel_twice(&element).await;
    drop(languages);
    assert_eq!(seen, opened_and_cancelled_twice());
    element.remove();
}

#[wasm_bindgen_test]
async fn a_page_whose_add_event_listener_throws_still_gets_dialogs_that_open_and_settle() {
    let element = element(&[]);
    let methods = ThrowingListenerMethods::install();
    // Closing drops each dialog's listeners, so removeEventListener throws too.
    let seen = open_and_cancel_twice(&element).await;
    drop(methods);
    assert_eq!(seen, opened_and_cancelled_twice());
    element.remove();
}

/// The promise of an `elicit()` a page handler made, once it ran.
type Made = Rc<RefCell<Option<Promise>>>;

/// Every call a page can make, made from one handler in a row: a new `elicit()`, `cancel()` (which
/// withdraws it), `complete()` of an unknown id, a `workspace-id` change, and removing the element.
/// Gives the handler's own elicitation, to check it settled.
fn every_call_from(
    element: &HtmlElement,
    kind: &'static str,
) -> (Closure<dyn FnMut(web_sys::Event)>, Made) {
    let made: Made = Rc::default();
    let handler = {
        let (target, made) = (element.clone(), made.clone());
        PageListener::once_on(element, kind, move |_| {
            *made.borrow_mut() = Some(elicit(&target, WEATHER_PARAMS));
            call(&target, "cancel", &[]);
            assert_eq!(
                call(&target, "complete", &["nobody".into()]),
                JsValue::FALSE
            );
            target.set_attribute("workspace-id", "elsewhere").unwrap();
            target.remove();
        })
    };
    (handler, made)
}

#[wasm_bindgen_test]
async fn every_call_from_each_of_the_elements_events_takes_effect() {
    let (window, original_open) = {
        let window = web_sys::window().unwrap();
        let original = Reflect::get(&window, &"open".into()).unwrap();
        (window, original)
    };
    let open_stub = Closure::<dyn FnMut() -> JsValue>::new(|| JsValue::NULL);
    Reflect::set(&window, &"open".into(), open_stub.as_ref()).unwrap();
    for kind in [
        "accept", "reject", "cancel", "timeout", "invalid", "complete",
    ] {
        let element = element(&[("timeout-ms", "60000")]);
        let (_handler, made) = every_call_from(&element, kind);
        let first = match kind {
            "invalid" => elicit(&element, r#"{"message": 5}"#),
            "complete" => elicit(&element, &url_request("auth-9")),
            _ => elicit(&element, WEATHER_ENVELOPE),
        };
        tick(0).await;
        match kind {
            "accept" => {
                type_into(
                    &find(&element, r#"[data-field="city"] input"#).unwrap(),
                    "Porto",
                );
                click(&find(&element, "button[part~=accept]").unwrap());
            }
            "reject" => click(&find(&element, "button[part~=reject]").unwrap()),
            "cancel" => key(&find(&element, "input").unwrap(), "Escape"),
            "timeout" => koder_mcp_elicitation::element::advance_clock(60_001.0),
            "complete" => {
                click(&find(&element, "button[part~=open]").unwrap());
                call(&element, "complete", &["auth-9".into()]);
            }
            _ => {}
        }
        let _ = settled(first).await;
        tick(0).await;
        let made = made.borrow_mut().take();
        let made = made.unwrap_or_else(|| panic!("the {kind} handler ran"));
        assert_eq!(
            settled(made).await,
            Err(json!("AbortError")),
            "the elicitation made in the {kind} handler was withdrawn by its cancel()"
        );
        assert_eq!(property(&element, "pending"), JsValue::from(0), "{kind}");
        assert_eq!(property(&element, "open"), JsValue::FALSE, "{kind}");
        assert!(!element.is_connected(), "{kind}: the handler removed it");
    }
    Reflect::set(&window, &"open".into(), &original_open).unwrap();
}

#[wasm_bindgen_test]
async fn a_cancel_from_focusin_when_tab_wraps_settles() {
    let element = element(&[]);
    let pending = elicit(&element, WEATHER_ENVELOPE);
    tick(0).await;
    let root = element.shadow_root().unwrap();
    // The last tab stop: Tab from it wraps focus to the first field.
    let stops = find_all(&element, "button:not([disabled])");
    let last = stops.last().expect("a button").clone();
    last.dyn_ref::<HtmlElement>().unwrap().focus().unwrap();
    assert_eq!(root.active_element(), Some(last.clone()));
    let _listener = PageListener::once_inside(&element, "focusin", cancel_on(&element));
    key(&last, "Tab");
    tick(0).await;
    assert_eq!(settled(pending).await, Err(json!("AbortError")));
    element.remove();
}
