//! The Rust-owned controller behind each `<koder-mcp-elicitation>`. The JS shim forwards lifecycle
//! calls and the public API here. State changes happen under one borrow and produce `Effects`; the
//! effects that can run page code (events, focus, promise settlement) run after the borrow ends,
//! so a page handler may call back into the element safely.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use js_sys::{Function, Promise, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    AbortSignal, Element, Event, HtmlElement, HtmlInputElement, HtmlSelectElement,
    HtmlTextAreaElement, KeyboardEvent, ShadowRoot, ShadowRootInit, ShadowRootMode,
};

use crate::dom::listener::Listener;
use crate::dom::render::{self, Chrome, FormView, Heading};
use crate::dom::{self, append, create, document, set_attr, set_hidden};
use crate::error::ElicitationError;
use crate::form::{FormState, Input};
use crate::i18n::{plain, text, Arg, Locale};
use crate::reply::{CancelSource, Ending};
use crate::request::{parse_request_text, Mode, ParseOptions, Protocol, Request};
use crate::schema::{FieldKind, TextFormat};
use crate::scope::{DraftStore, Scope, Tenant};
use crate::session::{Admit, Change, Session, Ticket};
use crate::url::{judge, UrlParts};

/// The custom element's tag.
pub const TAG: &str = "koder-mcp-elicitation";
const DEFAULT_TIMEOUT_MS: f64 = 300_000.0;
const DEFAULT_RATE_LIMIT: u32 = 10;
const DEFAULT_POLL_MS: f64 = 2_000.0;
const MAX_POLL_MS: f64 = 30_000.0;
/// How long after a dialog appears its first announcement is made, so screen readers notice it.
const ANNOUNCE_DELAY_MS: u32 = 150;
/// `setTimeout` takes a signed 32-bit delay.
const MAX_TIMER_MS: f64 = 2_147_483_647.0;

#[wasm_bindgen(module = "/src/js/define.js")]
extern "C" {
    #[wasm_bindgen(js_name = defineElement)]
    fn define_element_js(tag: &str, create: &Closure<dyn Fn(HtmlElement) -> JsValue>);
    #[wasm_bindgen(js_name = ElicitationError)]
    type JsElicitationError;
    #[wasm_bindgen(constructor, js_class = "ElicitationError")]
    fn new(message: &str, code: i32) -> JsElicitationError;
    #[wasm_bindgen(js_name = abortError)]
    fn abort_error() -> JsValue;
    #[wasm_bindgen(js_name = errorClass)]
    pub(crate) fn error_class() -> JsValue;
    #[wasm_bindgen(js_name = reportPanic)]
    fn report_panic(message: &str);
}

thread_local! {
    static DEFINED: RefCell<bool> = const { RefCell::new(false) };
    /// Live controllers, so tests can drive every element's clock.
    static LIVE: RefCell<Vec<Weak<RefCell<Inner>>>> = const { RefCell::new(Vec::new()) };
    /// Added to `Date.now()`; only tests move it.
    static CLOCK_OFFSET: RefCell<f64> = const { RefCell::new(0.0) };
}

/// Defines `<koder-mcp-elicitation>` once per page (guarded by `customElements.get`).
pub fn define() {
    let first = DEFINED.with(|defined| !std::mem::replace(&mut *defined.borrow_mut(), true));
    if !first {
        return;
    }
    // A panic aborts the wasm right after this hook (panic=abort): log it, and let the shim settle
    // every outstanding elicitation as cancel and stop calling the core (src/js/define.js).
    std::panic::set_hook(Box::new(|info| {
        let message = format!("koder-mcp-elicitation: {info}");
        web_sys::console::error_1(&message.as_str().into());
        report_panic(&message);
    }));
    let create = Closure::<dyn Fn(HtmlElement) -> JsValue>::new(|host: HtmlElement| {
        JsValue::from(Controller::new(host))
    });
    define_element_js(TAG, &create);
    // One factory for the whole page, kept for the page's lifetime.
    create.forget();
}

/// Moves every element's clock forward and runs what falls due (timeouts, countdown). For tests.
#[doc(hidden)]
pub fn advance_clock(ms: f64) {
    CLOCK_OFFSET.with(|offset| *offset.borrow_mut() += ms);
    let live: Vec<Rc<RefCell<Inner>>> =
        LIVE.with(|live| live.borrow().iter().filter_map(Weak::upgrade).collect());
    for inner in live {
        Controller { inner }.tick();
    }
}

fn now() -> f64 {
    js_sys::Date::now() + CLOCK_OFFSET.with(|offset| *offset.borrow())
}

/// Builds the `ElicitationError` the contract promises.
pub(crate) fn elicitation_error(error: &ElicitationError) -> JsValue {
    JsElicitationError::new(&error.message, error.code).into()
}

/// Turns our JSON into a JS value (through `JSON.parse`, so property names stay plain data).
pub(crate) fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}

/// The controller the shim holds for one element.
#[wasm_bindgen]
pub struct Controller {
    inner: Rc<RefCell<Inner>>,
}

struct Pending {
    request: Request,
    scope: Scope,
    server: String,
    resolve: Function,
    reject: Function,
    form: Option<FormState>,
    _abort: Option<Listener>,
    poll: Option<Timeout>,
    poll_delay: f64,
}

enum Body {
    Form(FormView),
    Url,
    Waiting,
}

struct View {
    ticket: Ticket,
    waiting: bool,
    chrome: Chrome,
    body: Body,
    url_href: Option<String>,
    _listeners: Vec<Listener>,
    /// A pending announcement, cancelled if the view goes first.
    _announce: Option<Timeout>,
}

struct Inner {
    host: HtmlElement,
    shadow: ShadowRoot,
    weak: Weak<RefCell<Inner>>,
    session: Session,
    pending: HashMap<Ticket, Pending>,
    drafts: DraftStore<FormState>,
    tenant: Tenant,
    view: Option<View>,
    timer: Option<Timeout>,
    opener: Option<HtmlElement>,
    local_ids: u64,
    announced_seconds: Option<u64>,
    connected: bool,
}

/// What to do once the state borrow is released.
#[derive(Default)]
struct Effects {
    close: Vec<Element>,
    show: Option<Element>,
    focus: Option<Element>,
    restore_focus: Option<HtmlElement>,
    announce: Option<(Element, String)>,
    open_window: Option<String>,
    events: Vec<(&'static str, Value)>,
    settle: Vec<(Function, JsValue)>,
}

impl Effects {
    fn run(self, host: &HtmlElement) {
        for dialog in self.close {
            if let Some(dialog) = dialog.dyn_ref::<web_sys::HtmlDialogElement>() {
                dialog.close();
            }
            dialog.remove();
        }
        if let Some(dialog) = self
            .show
            .as_ref()
            .and_then(|d| d.dyn_ref::<web_sys::HtmlDialogElement>())
        {
            if host.is_connected() && !dialog.open() {
                let _ = dialog.show_modal();
            }
        }
        if let Some(url) = self.open_window {
            if let Some(window) = web_sys::window() {
                let _ = window.open_with_url_and_target_and_features(
                    &url,
                    "_blank",
                    "noopener,noreferrer",
                );
            }
        }
        if let Some(element) = self.focus {
            dom::focus(&element);
        }
        if let Some(opener) = self.restore_focus {
            if opener.is_connected() {
                let _ = opener.focus();
            }
        }
        if let Some((region, message)) = self.announce {
            region.set_text_content(Some(&message));
        }
        for (name, detail) in self.events {
            let init = web_sys::CustomEventInit::new();
            init.set_bubbles(true);
            init.set_composed(true);
            init.set_detail(&to_js(&detail));
            if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict(name, &init) {
                let _ = host.dispatch_event(&event);
            }
        }
        for (function, value) in self.settle {
            let _ = function.call1(&JsValue::NULL, &value);
        }
    }
}

#[wasm_bindgen]
impl Controller {
    fn new(host: HtmlElement) -> Controller {
        let init = ShadowRootInit::new(ShadowRootMode::Open);
        let shadow = host
            .attach_shadow(&init)
            .or_else(|_| host.shadow_root().ok_or(JsValue::NULL))
            .unwrap_or_else(|_| wasm_bindgen::throw_str("cannot attach a shadow root"));
        crate::dom::style::adopt(&shadow);
        let inner = Rc::new_cyclic(|weak| {
            RefCell::new(Inner {
                host,
                shadow,
                weak: weak.clone(),
                session: Session::default(),
                pending: HashMap::new(),
                drafts: DraftStore::default(),
                tenant: Tenant::default(),
                view: None,
                timer: None,
                opener: None,
                local_ids: 0,
                announced_seconds: None,
                connected: false,
            })
        });
        LIVE.with(|live| {
            let mut live = live.borrow_mut();
            live.retain(|weak| weak.strong_count() > 0);
            live.push(Rc::downgrade(&inner));
        });
        Controller { inner }
    }

    fn with<R: Default>(&self, action: impl FnOnce(&mut Inner, &mut Effects) -> R) -> R {
        run_with(&self.inner, action)
    }

    /// `connectedCallback`.
    pub fn connected(&self) {
        self.with(|inner, fx| {
            inner.connected = true;
            inner.tenant = inner.read_tenant();
            inner.sync_view(fx, false);
        })
    }

    /// `disconnectedCallback`: nothing may be left hanging.
    pub fn disconnected(&self) {
        self.with(|inner, fx| {
            inner.connected = false;
            let changes = inner.session.detach();
            inner.finish(fx, changes);
            inner.timer = None;
        })
    }

    /// `attributeChangedCallback`.
    #[wasm_bindgen(js_name = attributeChanged)]
    pub fn attribute_changed(&self, name: String) {
        self.with(|inner, fx| match name.as_str() {
            "user-id" | "workspace-id" | "conversation-id" => {
                let tenant = inner.read_tenant();
                if tenant != inner.tenant {
                    inner.tenant = tenant;
                    let changes = inner.session.change_tenant(&inner.tenant);
                    inner.finish(fx, changes);
                }
            }
            "lang" | "server-name" => inner.sync_view(fx, true),
            _ => {}
        })
    }

    /// `elicit(request, options)`; `text` is the request as JSON (`null` when it was not JSON).
    pub fn elicit(&self, text: Option<String>, options: JsValue) -> Promise {
        let mut resolvers: Option<(Function, Function)> = None;
        let promise = Promise::new(&mut |resolve, reject| resolvers = Some((resolve, reject)));
        if let Some((resolve, reject)) = resolvers {
            self.with(|inner, fx| inner.elicit(fx, text, &options, resolve, reject));
        }
        promise
    }

    /// `complete(elicitationId)`: the server finished a URL-mode elicitation.
    pub fn complete(&self, elicitation_id: String) -> bool {
        self.with(|inner, fx| match inner.session.complete(&elicitation_id) {
            Some(change) => {
                inner.finish(fx, vec![change]);
                true
            }
            None => false,
        })
    }

    /// `cancel()`: the server withdrew the elicitation on screen.
    pub fn cancel(&self) {
        self.with(|inner, fx| {
            if let Some(ticket) = inner.session.front().map(|entry| entry.ticket) {
                inner.server_cancel(fx, ticket);
            }
        })
    }

    /// `open`: a dialog is showing.
    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self) -> bool {
        self.inner
            .try_borrow()
            .map(|inner| inner.view.is_some())
            .unwrap_or(false)
    }

    /// `pending`: elicitations open or queued.
    pub fn pending(&self) -> u32 {
        self.inner
            .try_borrow()
            .map(|inner| inner.session.len() as u32)
            .unwrap_or(0)
    }

    fn tick(&self) {
        self.with(|inner, fx| {
            let changes = inner.session.tick(now());
            inner.finish(fx, changes);
            if inner.view.is_some() {
                inner.sync_view(fx, false);
            }
        })
    }
}

/// Runs an action under the borrow, then its effects without it. A call that arrives while the
/// state is borrowed (only possible from code we run ourselves) is dropped rather than panicking.
fn run_with<R: Default>(
    cell: &Rc<RefCell<Inner>>,
    action: impl FnOnce(&mut Inner, &mut Effects) -> R,
) -> R {
    let mut effects = Effects::default();
    let (result, host) = match cell.try_borrow_mut() {
        Ok(mut inner) => {
            let result = action(&mut inner, &mut effects);
            (result, inner.host.clone())
        }
        Err(_) => return R::default(),
    };
    effects.run(&host);
    result
}

fn with_weak(weak: &Weak<RefCell<Inner>>, action: impl FnOnce(&mut Inner, &mut Effects)) {
    if let Some(cell) = weak.upgrade() {
        run_with(&cell, action);
    }
}

/// A small read of an options object property.
fn option(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

impl Inner {
    fn attr(&self, name: &str) -> Option<String> {
        self.host.get_attribute(name)
    }

    fn read_tenant(&self) -> Tenant {
        Tenant {
            user_id: self.attr("user-id").unwrap_or_default(),
            workspace_id: self.attr("workspace-id").unwrap_or_default(),
            conversation_id: self.attr("conversation-id").unwrap_or_default(),
        }
    }

    fn number_attr(&self, name: &str) -> Option<f64> {
        self.attr(name)
            .and_then(|text| crate::form::read_decimal(text.trim()))
            .filter(|number| number.is_finite() && *number >= 0.0)
    }

    /// `lang` on the element, else the nearest ancestor's, else `navigator.languages`, else en-US.
    fn locale(&self) -> Locale {
        let mut candidates: Vec<String> = Vec::new();
        if let Ok(Some(nearest)) = self.host.closest("[lang]") {
            if let Some(lang) = nearest
                .get_attribute("lang")
                .filter(|lang| !lang.is_empty())
            {
                candidates.push(lang);
            }
        }
        if let Some(window) = web_sys::window() {
            for language in window.navigator().languages().iter() {
                if let Some(language) = language.as_string() {
                    candidates.push(language);
                }
            }
        }
        Locale::negotiate(candidates.iter().map(String::as_str))
    }

    fn server_name(&self, pending: &Pending, locale: Locale) -> String {
        if pending.server.is_empty() {
            plain(locale, "mcp-elicitation-server-unknown")
        } else {
            pending.server.clone()
        }
    }

    fn elicit(
        &mut self,
        fx: &mut Effects,
        text: Option<String>,
        options: &JsValue,
        resolve: Function,
        reject: Function,
    ) {
        self.local_ids += 1;
        let parse_options = ParseOptions {
            strict: self.host.has_attribute("strict"),
            local_id: format!("local-{}", self.local_ids),
        };
        let parsed = match &text {
            Some(text) => parse_request_text(text, &parse_options),
            None => Err(ElicitationError::invalid("request", "is not JSON")),
        };
        let request = match parsed {
            Ok(request) => request,
            Err(error) => {
                fx.events
                    .push(("invalid", self.invalid_detail(text.as_deref(), &error)));
                fx.settle.push((reject, elicitation_error(&error)));
                return;
            }
        };
        let signal = option(options, "signal").dyn_into::<AbortSignal>().ok();
        if signal.as_ref().is_some_and(AbortSignal::aborted) {
            fx.settle.push((reject, abort_error()));
            return;
        }
        let server = option(options, "serverName")
            .as_string()
            .or_else(|| self.attr("server-name"))
            .unwrap_or_default();
        let timeout_ms = option(options, "timeoutMs")
            .as_f64()
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .or(request.timeout_ms)
            .or_else(|| self.number_attr("timeout-ms").filter(|ms| *ms > 0.0))
            .unwrap_or(DEFAULT_TIMEOUT_MS);
        let rate_limit = self
            .number_attr("rate-limit")
            .map(|limit| limit.min(u32::MAX as f64) as u32)
            .unwrap_or(DEFAULT_RATE_LIMIT);
        let scope = Scope {
            tenant: self.tenant.clone(),
            elicitation_id: request.elicitation_id.clone(),
        };
        let (ticket, change) = self.session.admit(
            now(),
            Admit {
                server: server.clone(),
                tenant: self.tenant.clone(),
                elicitation_id: request.elicitation_id.clone(),
                is_url: matches!(request.mode, Mode::Url(_)),
                timeout_ms,
                rate_limit,
            },
        );
        let form = match &request.mode {
            Mode::Form(schema) => Some(
                self.drafts
                    .get(&scope)
                    .filter(|draft| draft.fits(schema))
                    .cloned()
                    .unwrap_or_else(|| FormState::new(schema)),
            ),
            Mode::Url(_) => None,
        };
        let abort = signal.map(|signal| {
            let weak = self.weak.clone();
            Listener::new(&signal, "abort", move |_| {
                with_weak(&weak, |inner, fx| inner.server_cancel(fx, ticket));
            })
        });
        self.pending.insert(
            ticket,
            Pending {
                request,
                scope,
                server,
                resolve,
                reject,
                form,
                _abort: abort,
                poll: None,
                poll_delay: self
                    .number_attr("poll-interval-ms")
                    .unwrap_or(DEFAULT_POLL_MS)
                    .max(100.0),
            },
        );
        match change {
            Some(change) => self.finish(fx, vec![change]),
            None => self.sync_view(fx, false),
        }
    }

    fn invalid_detail(&self, text: Option<&str>, error: &ElicitationError) -> Value {
        let raw: Option<Value> = text.and_then(|text| serde_json::from_str(text).ok());
        let id = raw
            .as_ref()
            .and_then(|raw| raw.get("id"))
            .cloned()
            .unwrap_or(Value::Null);
        let is_url = raw.as_ref().is_some_and(|raw| {
            raw.get("mode").and_then(Value::as_str) == Some("url")
                || raw.pointer("/params/mode").and_then(Value::as_str) == Some("url")
        });
        let is_json_rpc = raw.as_ref().is_some_and(|raw| raw.get("jsonrpc").is_some());
        let reply = if is_json_rpc {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": error.code, "message": error.message}})
        } else {
            Value::Null
        };
        let scope = Scope {
            tenant: self.tenant.clone(),
            elicitation_id: String::new(),
        };
        json!({
            "id": id,
            "mode": if is_url { "url" } else { "form" },
            "scope": scope.to_json(),
            "result": null,
            "reply": reply,
            "error": {"code": error.code, "message": error.message},
        })
    }

    fn server_cancel(&mut self, fx: &mut Effects, ticket: Ticket) {
        let change = self
            .session
            .close(ticket, Ending::Cancel(CancelSource::Server));
        self.finish(fx, change.into_iter().collect());
    }

    /// The one way out: applies settlements and ended waits, then brings the view in line.
    fn finish(&mut self, fx: &mut Effects, changes: Vec<Change>) {
        for change in changes {
            match change {
                Change::Settled { ticket, ending } => self.settled(fx, ticket, &ending),
                Change::WaitEnded { ticket, completed } => {
                    if let Some(pending) = self.pending.remove(&ticket) {
                        self.drafts.remove(&pending.scope);
                        if completed {
                            let mut detail = self.detail(&pending, None);
                            detail["elicitationId"] =
                                Value::String(pending.request.elicitation_id.clone());
                            fx.events.push(("complete", detail));
                        }
                    }
                }
            }
        }
        self.sync_view(fx, false);
    }

    fn detail(&self, pending: &Pending, ending: Option<&Ending>) -> Value {
        let request = &pending.request;
        let id = match request.protocol {
            Protocol::Bare => Value::String(request.elicitation_id.clone()),
            _ => request.id.clone().unwrap_or(Value::Null),
        };
        json!({
            "id": id,
            "mode": request.mode_name(),
            "scope": pending.scope.to_json(),
            "result": ending.and_then(Ending::result),
            "reply": ending.and_then(|ending| ending.reply(&request.protocol, request.id.as_ref())),
        })
    }

    fn settled(&mut self, fx: &mut Effects, ticket: Ticket, ending: &Ending) {
        let still_waiting = self.session.get(ticket).is_some_and(|entry| entry.waiting);
        let pending = if still_waiting {
            self.pending
                .get(&ticket)
                .map(|pending| (pending.resolve.clone(), pending.reject.clone(), None))
        } else {
            self.pending.remove(&ticket).map(|pending| {
                (
                    pending.resolve.clone(),
                    pending.reject.clone(),
                    Some(pending),
                )
            })
        };
        let Some((resolve, reject, removed)) = pending else {
            return;
        };
        let detail = {
            let Some(pending) = removed.as_ref().or_else(|| self.pending.get(&ticket)) else {
                return;
            };
            let mut detail = self.detail(pending, Some(ending));
            match ending {
                Ending::Cancel(source) => detail["source"] = Value::from(source.name()),
                Ending::Decline { reason } => {
                    detail["reason"] = reason.clone().map(Value::String).unwrap_or(Value::Null)
                }
                _ => {}
            }
            // Keep a draft only when the tenant changed: the same scope may come back to it.
            if !matches!(ending, Ending::Cancel(CancelSource::Workspace)) {
                self.drafts.remove(&pending.scope);
            }
            detail
        };
        fx.events.push((ending.event_name(), detail));
        match ending.result() {
            Some(result) => fx.settle.push((resolve, to_js(&result))),
            None => fx.settle.push((reject, abort_error())),
        }
        if still_waiting {
            self.start_poll(ticket);
        }
    }

    /// Renders the elicitation at the front of the queue (or nothing), and keeps the queue
    /// position, countdown and timer current. `force` rebuilds the same dialog (language change).
    fn sync_view(&mut self, fx: &mut Effects, force: bool) {
        let front = self
            .session
            .front()
            .map(|entry| (entry.ticket, entry.waiting));
        let current = self.view.as_ref().map(|view| (view.ticket, view.waiting));
        let showing = front.filter(|_| self.connected);
        if force || current != showing {
            let focused_index = self.focused_field_index();
            // A rebuild of the same dialog (language change) keeps the reject reason typed so far.
            let mut kept_reason = None;
            if let Some(old) = self.view.take() {
                if showing.is_some_and(|(ticket, _)| ticket == old.ticket) {
                    kept_reason = Some(render::reason_state(&old.chrome));
                }
                fx.close.push(old.chrome.dialog.clone());
            }
            match showing {
                Some((ticket, waiting)) => {
                    if current.is_none() {
                        self.opener = deep_active_element();
                    }
                    if let Some(view) = self.render(fx, ticket, waiting, focused_index) {
                        if let Some(kept) = &kept_reason {
                            render::restore_reason(&view.chrome, kept);
                        }
                        fx.show = Some(view.chrome.dialog.clone());
                        self.view = Some(view);
                    }
                }
                None => {
                    fx.restore_focus = self.opener.take();
                }
            }
        }
        self.refresh_status(fx);
        self.schedule();
    }

    fn focused_field_index(&self) -> Option<usize> {
        let active = self.shadow.active_element()?;
        active.get_attribute("data-index")?.parse().ok()
    }

    fn refresh_status(&mut self, fx: &mut Effects) {
        let total = self.session.len();
        let Some(view) = &self.view else {
            self.announced_seconds = None;
            return;
        };
        let locale = self.locale();
        let position = 1;
        if total > 1 {
            let args = [
                ("position", Arg::Number(position as f64)),
                ("total", Arg::Number(total as f64)),
            ];
            view.chrome
                .queue
                .set_text_content(Some(&text(locale, "mcp-elicitation-queue", &args)));
            set_attr(
                &view.chrome.queue,
                "aria-label",
                &text(locale, "mcp-elicitation-queue-announce", &args),
            );
            set_hidden(&view.chrome.queue, false);
        } else {
            set_hidden(&view.chrome.queue, true);
        }
        match self.session.countdown_seconds(now()) {
            Some(seconds) if !view.waiting => {
                let args = [("seconds", Arg::Number(seconds as f64))];
                view.chrome.countdown.set_text_content(Some(&text(
                    locale,
                    "mcp-elicitation-timeout_warning",
                    &args,
                )));
                set_hidden(&view.chrome.countdown, false);
                // Announce at 30 s and 10 s, not every second.
                let crossed = [30, 10].into_iter().find(|mark| {
                    seconds <= *mark && self.announced_seconds.is_none_or(|last| last > *mark)
                });
                if let Some(mark) = crossed {
                    self.announced_seconds = Some(mark);
                    let message = text(
                        locale,
                        "mcp-elicitation-timeout-announce",
                        &[("seconds", Arg::Number(seconds as f64))],
                    );
                    fx.announce = Some((view.chrome.live.clone(), message));
                }
            }
            _ => {
                set_hidden(&view.chrome.countdown, true);
                self.announced_seconds = None;
            }
        }
    }

    /// One timer for the whole element: the next deadline, or the next countdown second.
    fn schedule(&mut self) {
        self.timer = None;
        let Some(deadline) = self.session.next_deadline() else {
            return;
        };
        let now = now();
        let mut wake = deadline;
        if self.view.is_some() && self.session.countdown_seconds(now).is_some() {
            let to_next_second = (self
                .session
                .front()
                .map_or(deadline, |entry| entry.deadline)
                - now)
                % 1000.0;
            wake = wake.min(
                now + if to_next_second <= 0.0 {
                    1000.0
                } else {
                    to_next_second
                },
            );
        } else if let Some(front) = self.session.front().filter(|_| self.view.is_some()) {
            // Wake when the countdown window opens, not only at the deadline.
            let window = front.deadline - crate::session::COUNTDOWN_MS;
            if window > now {
                wake = wake.min(window);
            }
        }
        let delay = (wake - now).clamp(0.0, MAX_TIMER_MS).ceil() as u32;
        let weak = self.weak.clone();
        self.timer = Some(Timeout::new(delay, move || {
            if let Some(inner) = weak.upgrade() {
                Controller { inner }.tick();
            }
        }));
    }

    fn render(
        &mut self,
        fx: &mut Effects,
        ticket: Ticket,
        waiting: bool,
        focus_index: Option<usize>,
    ) -> Option<View> {
        let locale = self.locale();
        let document = document();
        let pending = self.pending.get(&ticket)?;
        let request = &pending.request;
        let server = self.server_name(pending, locale);
        let default_title = match request.mode {
            Mode::Form(_) => plain(locale, "mcp-elicitation-title-default"),
            Mode::Url(_) => plain(locale, "mcp-elicitation-url_mode-title"),
        };
        let heading = Heading {
            server: &server,
            title: request.title.as_deref().unwrap_or(&default_title),
            message: &request.message,
        };
        let chrome = render::chrome(&document, locale, &heading);
        let mut url_href = None;
        let mut announce_later = None;
        let body = match (&request.mode, waiting) {
            (Mode::Url(url), true) => {
                let status = create(&document, "p");
                status.set_text_content(Some(&plain(locale, "mcp-elicitation-url_mode-waiting")));
                set_attr(&status, "class", "note");
                append(&chrome.body, &status);
                let shown = create_part_text(&document, "p", "url", &url.url);
                append(&chrome.body, &shown);
                chrome.cancel.remove();
                chrome.reject.remove();
                let close = dom::create_part(
                    &document,
                    "button",
                    "close",
                    Some(&plain(locale, "mcp-elicitation-url_mode-close")),
                );
                set_attr(&close, "type", "button");
                append(&chrome.actions, &close);
                fx.focus = Some(close);
                // A live region filled in the same step it appears is often not spoken; fill it a
                // moment later, with a timer that goes with the view.
                let live = chrome.live.clone();
                let opening = plain(locale, "mcp-elicitation-url_mode-opening");
                announce_later = Some(Timeout::new(ANNOUNCE_DELAY_MS, move || {
                    live.set_text_content(Some(&opening));
                }));
                Body::Waiting
            }
            (Mode::Url(url), false) => {
                let parts = browser_url_parts(&url.url);
                let verdict = judge(parts.as_ref());
                let shown = parts
                    .as_ref()
                    .map_or(url.url.as_str(), |parts| parts.href.as_str())
                    .to_string();
                render::url(&document, locale, &chrome, &shown, &verdict);
                if verdict.may_open() {
                    url_href = parts.map(|parts| parts.href);
                }
                // Focus a control that does not consent.
                fx.focus = Some(chrome.cancel.clone());
                Body::Url
            }
            (Mode::Form(schema), _) => {
                let state = pending.form.as_ref()?;
                let view =
                    render::form(&document, locale, &chrome, schema, state, &local_date_time);
                render::refresh_form(&view, schema, state, locale);
                let target = focus_index
                    .and_then(|index| view.fields.get(index))
                    .or_else(|| view.fields.first())
                    .map(|field| {
                        field
                            .options
                            .first()
                            .filter(|_| !field.options.is_empty())
                            .map_or(field.control.clone(), |first| {
                                checked_or_first(&field.options, first)
                            })
                    })
                    .unwrap_or_else(|| view.accept.clone());
                fx.focus = Some(target);
                Body::Form(view)
            }
        };
        let _ = self.shadow.append_child(&chrome.dialog);
        let listeners = self.listen(ticket, &chrome, &body);
        Some(View {
            ticket,
            waiting,
            chrome,
            body,
            url_href,
            _listeners: listeners,
            _announce: announce_later,
        })
    }

    fn listen(&self, ticket: Ticket, chrome: &Chrome, body: &Body) -> Vec<Listener> {
        let dialog = &chrome.dialog;
        let handler = |kind: &'static str| {
            let weak = self.weak.clone();
            move |event: Event| {
                with_weak(&weak, |inner, fx| inner.on_event(fx, ticket, kind, &event));
            }
        };
        let mut listeners = vec![
            Listener::new(dialog, "input", handler("input")),
            Listener::new(dialog, "change", handler("change")),
            Listener::new(dialog, "focusout", handler("focusout")),
            Listener::new(&chrome.sentinel, "focus", handler("sentinel")),
            Listener::new(dialog, "click", handler("click")),
            Listener::new(dialog, "keydown", handler("keydown")),
            Listener::new(dialog, "cancel", handler("cancel")),
            Listener::new(dialog, "close", handler("close")),
        ];
        if let Body::Form(view) = body {
            listeners.push(Listener::new(&view.form, "submit", handler("submit")));
        }
        listeners
    }

    fn on_event(&mut self, fx: &mut Effects, ticket: Ticket, kind: &str, event: &Event) {
        if self.view.as_ref().map(|view| view.ticket) != Some(ticket) {
            return;
        }
        let target = event
            .target()
            .and_then(|target| target.dyn_into::<Element>().ok());
        match kind {
            "input" | "change" => {
                if let Some(target) = target {
                    self.on_input(fx, ticket, &target, kind == "change");
                }
            }
            "sentinel" => {
                // Shift+Tab left the first stop natively (a date input steps through its own
                // segments first, so the keydown wrap cannot tell): wrap to the last stop. Focus
                // arriving from outside (showModal's own focusing) is left to the open logic.
                let from_inside = event
                    .dyn_ref::<web_sys::FocusEvent>()
                    .and_then(web_sys::FocusEvent::related_target)
                    .and_then(|related| related.dyn_into::<web_sys::Node>().ok())
                    .zip(self.view.as_ref())
                    .is_some_and(|(related, view)| view.chrome.dialog.contains(Some(&related)));
                if from_inside {
                    if let Some(view) = &self.view {
                        fx.focus = tab_stops(&view.chrome.dialog).last().cloned();
                    }
                }
            }
            "focusout" => {
                if let Some(index) = target.as_ref().and_then(field_index) {
                    // Leaving one radio for another in the same group is not leaving the field.
                    if let Some(state) = self.pending.get_mut(&ticket).and_then(|p| p.form.as_mut())
                    {
                        state.visit(index);
                    }
                    self.refresh_field_view(ticket, index);
                }
            }
            "click" => {
                let Some(button) =
                    target.and_then(|target| target.closest("button").ok().flatten())
                else {
                    return;
                };
                if button.has_attribute("disabled") {
                    return;
                }
                let part = button.get_attribute("part").unwrap_or_default();
                if let Some(tag) = button.get_attribute("data-remove-tag") {
                    if let Some(index) = field_index(&button) {
                        self.remove_tag(ticket, index, &tag);
                    }
                    return;
                }
                match part.as_str() {
                    "accept" => {
                        event.prevent_default();
                        self.try_accept(fx, ticket);
                    }
                    "reject" => self.reject(fx, ticket),
                    "cancel" => self.close(fx, ticket, Ending::Cancel(CancelSource::User)),
                    "open" => self.consent(fx, ticket),
                    "close" => {
                        let change = self.session.end_wait(ticket);
                        self.finish(fx, change.into_iter().collect());
                    }
                    _ => {}
                }
            }
            "keydown" => {
                if let Some(key_event) = event.dyn_ref::<KeyboardEvent>() {
                    self.on_key(fx, ticket, key_event, target.as_ref());
                }
            }
            "submit" => {
                event.prevent_default();
                self.try_accept(fx, ticket);
            }
            "cancel" => {
                // The browser's own Esc handling: keep one close path.
                event.prevent_default();
                self.dismiss(fx, ticket);
            }
            "close" => self.dismiss(fx, ticket),
            _ => {}
        }
    }

    /// Esc or the browser closing the dialog: cancel, or end a URL wait.
    fn dismiss(&mut self, fx: &mut Effects, ticket: Ticket) {
        if self.session.get(ticket).is_some_and(|entry| entry.waiting) {
            let change = self.session.end_wait(ticket);
            self.finish(fx, change.into_iter().collect());
        } else {
            self.close(fx, ticket, Ending::Cancel(CancelSource::User));
        }
    }

    fn close(&mut self, fx: &mut Effects, ticket: Ticket, ending: Ending) {
        let change = self.session.close(ticket, ending);
        self.finish(fx, change.into_iter().collect());
    }

    fn reject(&mut self, fx: &mut Effects, ticket: Ticket) {
        let reason = self
            .view
            .as_ref()
            .and_then(|view| {
                view.chrome
                    .reason
                    .dyn_ref::<HtmlTextAreaElement>()
                    .map(HtmlTextAreaElement::value)
            })
            .map(|reason| reason.trim().to_string())
            .filter(|reason| !reason.is_empty());
        let change = self.session.settle(ticket, Ending::Decline { reason });
        self.finish(fx, change.into_iter().collect());
    }

    fn consent(&mut self, fx: &mut Effects, ticket: Ticket) {
        let Some(href) = self.view.as_ref().and_then(|view| view.url_href.clone()) else {
            return;
        };
        let Some(change) = self.session.settle(ticket, Ending::Accept(None)) else {
            return;
        };
        fx.open_window = Some(href);
        self.finish(fx, vec![change]);
    }

    fn try_accept(&mut self, fx: &mut Effects, ticket: Ticket) {
        let Some(pending) = self.pending.get_mut(&ticket) else {
            return;
        };
        let (Mode::Form(schema), Some(state)) = (&pending.request.mode, pending.form.as_mut())
        else {
            return;
        };
        match state.content(schema) {
            Ok(content) => {
                let change = self.session.settle(ticket, Ending::Accept(Some(content)));
                self.finish(fx, change.into_iter().collect());
            }
            Err(problems) => {
                state.submit_attempted = true;
                let first = problems.first().map(|(index, _)| *index);
                self.refresh_form_view(ticket);
                if let (Some(index), Some(Body::Form(view))) =
                    (first, self.view.as_ref().map(|view| &view.body))
                {
                    if let Some(field) = view.fields.get(index) {
                        fx.focus = Some(
                            field
                                .options
                                .first()
                                .map_or(field.control.clone(), |first| {
                                    checked_or_first(&field.options, first)
                                }),
                        );
                    }
                }
            }
        }
    }

    fn on_key(
        &mut self,
        fx: &mut Effects,
        ticket: Ticket,
        event: &KeyboardEvent,
        target: Option<&Element>,
    ) {
        match event.key().as_str() {
            "Escape" => {
                event.prevent_default();
                self.dismiss(fx, ticket);
            }
            "Tab" => self.wrap_focus(fx, event),
            "Enter" | "," if target.is_some_and(|t| t.has_attribute("data-tags")) => {
                event.prevent_default();
                if let Some(target) = target {
                    self.add_tag(ticket, target);
                }
            }
            "Enter" => {
                let Some(target) = target else { return };
                let tag = target.tag_name().to_ascii_lowercase();
                if tag == "input" || tag == "select" {
                    // Enter submits; on an invalid form it shows every error and focuses the first.
                    event.prevent_default();
                    if matches!(
                        self.view.as_ref().map(|view| &view.body),
                        Some(Body::Form(_))
                    ) {
                        self.try_accept(fx, ticket);
                    }
                }
            }
            _ => {}
        }
    }

    /// Tab and Shift+Tab wrap inside the dialog.
    fn wrap_focus(&self, fx: &mut Effects, event: &KeyboardEvent) {
        let Some(view) = &self.view else { return };
        let stops = tab_stops(&view.chrome.dialog);
        let (Some(first), Some(last)) = (stops.first(), stops.last()) else {
            return;
        };
        let active = self.shadow.active_element();
        let same = |stop: &Element| {
            active
                .as_ref()
                .is_some_and(|active| same_stop(active, stop))
        };
        let inside = active
            .as_ref()
            .is_some_and(|active| view.chrome.dialog.contains(Some(active)));
        // A date input steps back through its own segments: let the browser move, and the
        // start sentinel wraps focus once it leaves the first segment.
        let segmented = matches!(
            first.get_attribute("type").as_deref(),
            Some("date" | "datetime-local" | "time" | "month" | "week")
        );
        if event.shift_key() && ((same(first) && !segmented) || !inside) {
            event.prevent_default();
            fx.focus = Some(last.clone());
        } else if !event.shift_key() && (same(last) || !inside) {
            event.prevent_default();
            fx.focus = Some(first.clone());
        }
    }

    fn on_input(&mut self, _fx: &mut Effects, ticket: Ticket, target: &Element, is_change: bool) {
        let Some(index) = field_index(target) else {
            return;
        };
        let Some(pending) = self.pending.get_mut(&ticket) else {
            return;
        };
        let (Mode::Form(schema), Some(state)) = (&pending.request.mode, pending.form.as_mut())
        else {
            return;
        };
        let Some(field) = schema.fields.get(index) else {
            return;
        };
        match &field.kind {
            FieldKind::Tags { .. } => return,
            FieldKind::Number { .. } => {
                if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
                    state.set_number(index, input.value(), input.validity().bad_input());
                }
            }
            FieldKind::Text {
                format: TextFormat::DateTime,
                ..
            } => {
                if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
                    let value = input.value();
                    state.set_local_date_time(index, value.clone(), local_offset_minutes(&value));
                }
            }
            FieldKind::Text { .. } => {
                let value = target
                    .dyn_ref::<HtmlInputElement>()
                    .map(HtmlInputElement::value)
                    .or_else(|| {
                        target
                            .dyn_ref::<HtmlTextAreaElement>()
                            .map(HtmlTextAreaElement::value)
                    })
                    .unwrap_or_default();
                state.set(index, Input::Text(value));
            }
            FieldKind::Toggle => {
                if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
                    state.set(index, Input::Toggle(input.checked()));
                }
            }
            FieldKind::Choice { .. } => {
                let value = target
                    .dyn_ref::<HtmlSelectElement>()
                    .map(HtmlSelectElement::value)
                    .or_else(|| {
                        target
                            .dyn_ref::<HtmlInputElement>()
                            .map(HtmlInputElement::value)
                    })
                    .unwrap_or_default();
                state.set(index, Input::Choice((!value.is_empty()).then_some(value)));
                if is_change {
                    state.visit(index);
                }
            }
            FieldKind::MultiChoice { options, .. } => {
                let Some(Body::Form(view)) = self.view.as_ref().map(|view| &view.body) else {
                    return;
                };
                let Some(field_view) = view.fields.get(index) else {
                    return;
                };
                let chosen = options
                    .iter()
                    .zip(&field_view.options)
                    .filter(|(_, element)| {
                        element
                            .dyn_ref::<HtmlInputElement>()
                            .is_some_and(HtmlInputElement::checked)
                    })
                    .map(|(choice, _)| choice.value.clone())
                    .collect();
                state.set(index, Input::Many(chosen));
                state.visit(index);
            }
        }
        let (draft, scope) = (state.clone(), pending.scope.clone());
        self.drafts.put(scope, draft);
        self.refresh_field_view(ticket, index);
    }

    fn add_tag(&mut self, ticket: Ticket, target: &Element) {
        let Some(index) = field_index(target) else {
            return;
        };
        let Some(input) = target.dyn_ref::<HtmlInputElement>() else {
            return;
        };
        let typed = input.value();
        let tag = typed.trim().trim_end_matches(',').trim().to_string();
        if tag.is_empty() {
            return;
        }
        let Some(pending) = self.pending.get_mut(&ticket) else {
            return;
        };
        let Some(state) = pending.form.as_mut() else {
            return;
        };
        let mut tags = match state.fields.get(index).map(|field| &field.input) {
            Some(Input::Many(tags)) => tags.clone(),
            _ => Vec::new(),
        };
        tags.push(tag.clone());
        state.set(index, Input::Many(tags));
        state.visit(index);
        input.set_value("");
        let (draft, scope) = (state.clone(), pending.scope.clone());
        self.drafts.put(scope, draft);
        if let Some(Body::Form(view)) = self.view.as_ref().map(|view| &view.body) {
            if let Some(list) = view
                .fields
                .get(index)
                .and_then(|field| field.tag_list.as_ref())
            {
                append(
                    list,
                    &render::tag_item(&document(), self.locale(), index, &tag),
                );
            }
        }
        self.refresh_field_view(ticket, index);
    }

    fn remove_tag(&mut self, ticket: Ticket, index: usize, tag: &str) {
        let Some(pending) = self.pending.get_mut(&ticket) else {
            return;
        };
        let Some(state) = pending.form.as_mut() else {
            return;
        };
        let Some(Input::Many(tags)) = state.fields.get(index).map(|field| field.input.clone())
        else {
            return;
        };
        let Some(position) = tags.iter().position(|existing| existing == tag) else {
            return;
        };
        let mut tags = tags;
        tags.remove(position);
        state.set(index, Input::Many(tags));
        let (draft, scope) = (state.clone(), pending.scope.clone());
        self.drafts.put(scope, draft);
        if let Some(Body::Form(view)) = self.view.as_ref().map(|view| &view.body) {
            if let Some(field) = view.fields.get(index) {
                if let Some(item) = field
                    .tag_list
                    .as_ref()
                    .and_then(|list| list.children().item(position as u32))
                {
                    item.remove();
                }
                dom::focus(&field.control);
            }
        }
        self.refresh_field_view(ticket, index);
    }

    fn refresh_form_view(&self, ticket: Ticket) {
        let (Some(view), Some(pending)) = (self.view.as_ref(), self.pending.get(&ticket)) else {
            return;
        };
        if let (Body::Form(form_view), Mode::Form(schema), Some(state)) =
            (&view.body, &pending.request.mode, &pending.form)
        {
            render::refresh_form(form_view, schema, state, self.locale());
        }
    }

    /// After one field changed: that field and, inside a nested object, its siblings (whether
    /// they are required depends on the object being filled in).
    fn refresh_field_view(&self, ticket: Ticket, index: usize) {
        let (Some(view), Some(pending)) = (self.view.as_ref(), self.pending.get(&ticket)) else {
            return;
        };
        if let (Body::Form(form_view), Mode::Form(schema), Some(state)) =
            (&view.body, &pending.request.mode, &pending.form)
        {
            let parent = schema
                .fields
                .get(index)
                .map(|field| &field.path[..field.path.len().saturating_sub(1)]);
            let related = |other: usize| {
                other == index
                    || parent.is_some_and(|parent| {
                        !parent.is_empty()
                            && schema
                                .fields
                                .get(other)
                                .is_some_and(|field| field.path.starts_with(parent))
                    })
            };
            render::refresh_fields(form_view, schema, state, self.locale(), related);
        }
    }

    fn start_poll(&mut self, ticket: Ticket) {
        let Some(template) = self.attr("status-url").filter(|url| url.contains("{id}")) else {
            return;
        };
        let Some(pending) = self.pending.get_mut(&ticket) else {
            return;
        };
        let id = String::from(js_sys::encode_uri_component(
            &pending.request.elicitation_id,
        ));
        let url = template.replace("{id}", &id);
        let weak = self.weak.clone();
        let delay = pending.poll_delay.clamp(0.0, MAX_TIMER_MS) as u32;
        pending.poll = Some(Timeout::new(delay, move || poll_once(weak, ticket, url)));
    }
}

/// One status poll; reschedules itself (backing off after errors) until the wait ends.
fn poll_once(weak: Weak<RefCell<Inner>>, ticket: Ticket, url: String) {
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = fetch_status(&url).await;
        with_weak(&weak, |inner, fx| {
            let Some(pending) = inner.pending.get_mut(&ticket) else {
                return;
            };
            match outcome {
                Ok(true) => {
                    let id = pending.request.elicitation_id.clone();
                    if let Some(change) = inner.session.complete(&id) {
                        inner.finish(fx, vec![change]);
                    }
                }
                Ok(false) | Err(()) => {
                    if outcome.is_err() {
                        pending.poll_delay = (pending.poll_delay * 2.0).min(MAX_POLL_MS);
                    }
                    let delay = pending.poll_delay.clamp(0.0, MAX_TIMER_MS) as u32;
                    let weak = inner.weak.clone();
                    pending.poll = Some(Timeout::new(delay, move || poll_once(weak, ticket, url)));
                }
            }
        });
    });
}

/// GET the status URL; `Ok(true)` when it answers `{"status": "complete"}`.
async fn fetch_status(url: &str) -> Result<bool, ()> {
    let window = web_sys::window().ok_or(())?;
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|_| ())?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| ())?;
    if !response.ok() {
        return Err(());
    }
    let body = wasm_bindgen_futures::JsFuture::from(response.text().map_err(|_| ())?)
        .await
        .map_err(|_| ())?;
    let body: Value =
        serde_json::from_str(&body.as_string().unwrap_or_default()).map_err(|_| ())?;
    Ok(body.get("status").and_then(Value::as_str) == Some("complete"))
}

fn create_part_text(document: &web_sys::Document, tag: &str, part: &str, text: &str) -> Element {
    dom::create_part(document, tag, part, Some(text))
}

fn field_index(element: &Element) -> Option<usize> {
    element.get_attribute("data-index")?.parse().ok()
}

fn checked_or_first(options: &[Element], first: &Element) -> Element {
    options
        .iter()
        .find(|option| {
            option
                .dyn_ref::<HtmlInputElement>()
                .is_some_and(HtmlInputElement::checked)
        })
        .unwrap_or(first)
        .clone()
}

/// The elements Tab stops at, in order (a radio group is one stop).
fn tab_stops(dialog: &Element) -> Vec<Element> {
    let selector = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1']):not([data-sentinel])";
    let Ok(list) = dialog.query_selector_all(selector) else {
        return Vec::new();
    };
    let mut stops: Vec<Element> = Vec::new();
    for index in 0..list.length() {
        let Some(element) = list
            .item(index)
            .and_then(|node| node.dyn_into::<Element>().ok())
        else {
            continue;
        };
        if element.closest("[hidden]").ok().flatten().is_some() {
            continue;
        }
        if element.get_attribute("type").as_deref() == Some("radio") {
            let name = element.get_attribute("name");
            if stops.last().is_some_and(|last| {
                last.get_attribute("type").as_deref() == Some("radio")
                    && last.get_attribute("name") == name
            }) {
                continue;
            }
        }
        stops.push(element);
    }
    stops
}

/// Whether `active` is the tab stop `stop` (any radio of a group counts as the group's stop).
fn same_stop(active: &Element, stop: &Element) -> bool {
    if active == stop {
        return true;
    }
    active.get_attribute("type").as_deref() == Some("radio")
        && stop.get_attribute("type").as_deref() == Some("radio")
        && active.get_attribute("name") == stop.get_attribute("name")
}

/// `document.activeElement`, followed into open shadow roots.
fn deep_active_element() -> Option<HtmlElement> {
    let mut active = document().active_element()?;
    while let Some(inner) = active.shadow_root().and_then(|root| root.active_element()) {
        active = inner;
    }
    active.dyn_into().ok()
}

/// The browser's parse of a URL-mode URL, so what is judged is what would open.
fn browser_url_parts(url: &str) -> Option<UrlParts> {
    let parsed = web_sys::Url::new(url).ok()?;
    Some(UrlParts {
        scheme: parsed.protocol().trim_end_matches(':').to_ascii_lowercase(),
        username: parsed.username(),
        password: parsed.password(),
        host: parsed.hostname(),
        href: parsed.href(),
    })
}

/// Minutes east of UTC in force at a local `datetime-local` value.
fn local_offset_minutes(local: &str) -> i32 {
    let date = js_sys::Date::new(&JsValue::from_str(local));
    let offset = date.get_timezone_offset();
    if offset.is_finite() {
        -(offset as i32)
    } else {
        0
    }
}

/// An RFC 3339 default shown in a `datetime-local` control, in the user's local time.
fn local_date_time(stamp: &str) -> String {
    let date = js_sys::Date::new(&JsValue::from_str(stamp));
    if !date.get_time().is_finite() {
        return String::new();
    }
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date(),
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}
