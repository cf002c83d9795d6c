//! Helpers shared by the browser suites: a fresh element per test, calling its public API the way
//! a page does, reading its shadow DOM, and recording its events.

#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Element, Event, EventInit, HtmlElement, HtmlInputElement, KeyboardEvent, KeyboardEventInit,
};

pub fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh `<koder-mcp-elicitation>` in the page, with optional attributes.
pub fn element(attributes: &[(&str, &str)]) -> HtmlElement {
    koder_mcp_elicitation::element::define();
    let element: HtmlElement = document()
        .create_element("koder-mcp-elicitation")
        .unwrap()
        .dyn_into()
        .unwrap();
    for (name, value) in attributes {
        element.set_attribute(name, value).unwrap();
    }
    document().body().unwrap().append_child(&element).unwrap();
    element
}

/// `element.elicit(request, options)` with a JSON request.
pub fn elicit(element: &HtmlElement, request: &str) -> Promise {
    elicit_with(element, request, &js_sys::Object::new().into())
}

pub fn elicit_with(element: &HtmlElement, request: &str, options: &JsValue) -> Promise {
    let method: Function = Reflect::get(element, &"elicit".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let request = JSON::parse(request).unwrap();
    method
        .call2(element, &request, options)
        .unwrap()
        .dyn_into()
        .unwrap()
}

/// Calls a method of the element by name.
pub fn call(element: &HtmlElement, name: &str, args: &[JsValue]) -> JsValue {
    let method: Function = Reflect::get(element, &name.into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let args: js_sys::Array = args.iter().collect();
    method.apply(element, &args).unwrap()
}

/// Reads a property of the element.
pub fn property(element: &HtmlElement, name: &str) -> JsValue {
    Reflect::get(element, &name.into()).unwrap()
}

/// Awaits a promise, giving `Ok(value)` or `Err(reason)`.
pub async fn settle(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

/// Lets pending tasks and microtasks run.
pub async fn tick(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// The first element matching `selector` in the element's shadow root.
pub fn find(element: &HtmlElement, selector: &str) -> Option<Element> {
    element
        .shadow_root()
        .unwrap()
        .query_selector(selector)
        .unwrap()
}

pub fn find_all(element: &HtmlElement, selector: &str) -> Vec<Element> {
    let list = element
        .shadow_root()
        .unwrap()
        .query_selector_all(selector)
        .unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into().ok())
        .collect()
}

/// Types a value into a control the way the browser reports it: set value, fire `input`.
pub fn type_into(control: &Element, value: &str) {
    if let Some(input) = control.dyn_ref::<HtmlInputElement>() {
        input.set_value(value);
    } else if let Some(area) = control.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.set_value(value);
    } else {
        let select = control.dyn_ref::<web_sys::HtmlSelectElement>().unwrap();
        select.set_value(value);
        fire(control, "change");
        return;
    }
    fire(control, "input");
}

/// Whether a radio or checkbox is checked.
pub fn is_checked(control: &Element) -> bool {
    control.dyn_ref::<HtmlInputElement>().unwrap().checked()
}

/// Opens `request`, lets `fill` act on the element, presses accept and returns the settled result.
pub async fn accept_with(request: &str, fill: impl FnOnce(&HtmlElement)) -> serde_json::Value {
    let element = element(&[]);
    let pending = elicit(&element, request);
    fill(&element);
    let accept = find(&element, "button[part~=accept]").expect("accept button");
    assert!(
        !accept.has_attribute("disabled"),
        "accept must be enabled after filling"
    );
    click(&accept);
    let result = json_of(&settle(pending).await.expect("accept resolves"));
    element.remove();
    result
}

/// A bare form request around one schema.
pub fn form_request(schema: serde_json::Value) -> String {
    serde_json::json!({"message": "Test", "requestedSchema": schema}).to_string()
}

/// Fires a bubbling event of `kind` at `target`.
pub fn fire(target: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    init.set_composed(true);
    let event = Event::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

/// Fires a cancelable, bubbling keydown.
pub fn key(target: &Element, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_composed(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

pub fn click(target: &Element) {
    target.dyn_ref::<HtmlElement>().unwrap().click();
}

/// Every event of the given names the element fires, with its detail, in order.
pub struct Recorder {
    pub events: Rc<RefCell<Vec<(String, JsValue)>>>,
    _closures: Vec<Closure<dyn FnMut(web_sys::CustomEvent)>>,
}

impl Recorder {
    pub fn new(element: &HtmlElement, names: &[&str]) -> Recorder {
        let events = Rc::new(RefCell::new(Vec::new()));
        let mut closures = Vec::new();
        for name in names {
            let events = events.clone();
            let name_owned = name.to_string();
            let closure = Closure::<dyn FnMut(web_sys::CustomEvent)>::new(
                move |event: web_sys::CustomEvent| {
                    events
                        .borrow_mut()
                        .push((name_owned.clone(), event.detail()));
                },
            );
            element
                .add_event_listener_with_callback(name, closure.as_ref().unchecked_ref())
                .unwrap();
            closures.push(closure);
        }
        Recorder {
            events,
            _closures: closures,
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    pub fn detail(&self, index: usize) -> serde_json::Value {
        json_of(&self.events.borrow()[index].1)
    }
}

/// Replaces `window[name]` for the duration of a test and puts it back on drop.
pub struct Stub {
    name: &'static str,
    original: JsValue,
    _closure: JsValue,
}

impl Stub {
    pub fn new(name: &'static str, function: JsValue) -> Stub {
        let window = web_sys::window().unwrap();
        let original = Reflect::get(&window, &name.into()).unwrap();
        Reflect::set(&window, &name.into(), &function).unwrap();
        Stub {
            name,
            original,
            _closure: function,
        }
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let window = web_sys::window().unwrap();
        Reflect::set(&window, &self.name.into(), &self.original).unwrap();
    }
}

/// `window.open` calls: (url, target, features).
pub type OpenCalls = Rc<RefCell<Vec<(String, String, String)>>>;

/// Records `window.open` calls instead of opening tabs.
pub fn stub_window_open() -> (Stub, OpenCalls) {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let recorded = calls.clone();
    let closure = Closure::<dyn FnMut(String, String, String) -> JsValue>::new(
        move |url, target, features| {
            recorded.borrow_mut().push((url, target, features));
            JsValue::NULL
        },
    );
    let function = closure.into_js_value();
    (Stub::new("open", function), calls)
}
/// A JS value as `serde_json::Value`, to compare with `json!`.
pub fn json_of(value: &JsValue) -> serde_json::Value {
    if value.is_undefined() {
        return serde_json::Value::Null;
    }
    let text = JSON::stringify(value).unwrap().as_string().unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The seed's weather request as a Koder envelope.
pub const WEATHER_ENVELOPE: &str = r#"{
  "type": "elicitation/request", "id": "e_123",
  "schema": {"type": "object", "properties": {
    "city": {"type": "string", "description": "Your city"},
    "temperature_unit": {"type": "string", "enum": ["C", "F"]}
  }, "required": ["city"]},
  "title": "Weather lookup needs your input", "description": "The weather tool needs your city."
}"#;

/// The same request as bare MCP params.
pub const WEATHER_PARAMS: &str = r#"{
  "message": "Weather lookup needs your input",
  "requestedSchema": {"type": "object", "properties": {
    "city": {"type": "string", "description": "Your city"},
    "temperature_unit": {"type": "string", "enum": ["C", "F"]}
  }, "required": ["city"]}
}"#;
