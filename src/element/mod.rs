//! The Rust-owned controller behind each `<koder-mcp-elicitation>`. The JS shim forwards lifecycle
//! calls and the public API here; every rule is the core's, and this layer only reads the page,
//! renders and reports.
//!
//! One file a job: `calls` (running a call under the state borrow, and queueing the calls that
//! arrive meanwhile), `effects` (what runs after the borrow: DOM, focus, events, promises),
//! `admit` (a call's input parsed or refused, and its requests joining the session, for `intake`
//! and `required`), `intake` (a new `elicit()`), `settle` (every way an elicitation ends), `view`
//! (the dialog on screen, the countdown and the timer), `events` (what the user does in the
//! dialog), `focus` (where focus goes), `inline` (what only `presentation="inline"` does),
//! `polling` (URL-mode status polling), `required` (the -32042 flow: `elicitRequired()`),
//! `platform` (what the browser knows: clock, URLs, local time, `Intl`).

mod admit;
mod answered;
mod attributes;
mod calls;
mod effects;
mod events;
mod focus;
mod inline;
mod intake;
mod notify;
mod platform;
mod polling;
mod required;
mod settle;
mod view;

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use web_sys::{AbortSignal, HtmlElement, ShadowRoot, ShadowRootInit, ShadowRootMode};

use crate::dom::form_view::FormView;
use crate::dom::frame::{Chrome, Presentation};
use crate::dom::listener::{Listener, Listeners};
use crate::error::ElicitationError;
use crate::form::FormState;
use crate::i18n::Direction;
use crate::policy::{Announcements, PollBackoff};
use crate::request::Request;
use crate::scope::{DraftStore, Scope, Tenant};
use crate::session::{Session, Ticket};
use crate::url_rounds::UrlConsents;
use calls::{Shared, Snapshot};

pub use platform::advance_clock;

/// The custom element's tag.
pub const TAG: &str = "koder-mcp-elicitation";

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
    /// The name an abort reason `{ answeredBy }` gives (src/js/define.js reads it: no object
    /// walking in the wasm).
    #[wasm_bindgen(js_name = answeredBy)]
    fn answered_by_reason(signal: &AbortSignal) -> Option<String>;
    #[wasm_bindgen(js_name = reportPanic)]
    fn report_panic(message: &str);
    #[wasm_bindgen(js_name = languageCandidates)]
    fn language_candidates(element: &HtmlElement) -> String;
}

thread_local! {
    static DEFINED: RefCell<bool> = const { RefCell::new(false) };
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

/// `registerTranslation`: adds or replaces a language from Fluent text, with `Intl` plural and
/// number rules, running in its script's direction, and re-renders every open dialog. A refused
/// one changes nothing.
pub fn register_translation(locale: &str, ftl: &str) -> Result<(), ElicitationError> {
    register_translation_with_direction(locale, ftl, None)
}

/// [`register_translation`] running in `direction` (`None`: its script's).
pub fn register_translation_with_direction(
    locale: &str,
    ftl: &str,
    direction: Option<Direction>,
) -> Result<(), ElicitationError> {
    platform::install_locale_rules();
    crate::i18n::register_translation_with_direction(locale, ftl, direction)
        .map_err(|error| ElicitationError::invalid("", error))?;
    platform::relocalize_live_elements();
    Ok(())
}

/// Builds the `ElicitationError` the contract promises.
pub(crate) fn elicitation_error(error: &ElicitationError) -> JsValue {
    JsElicitationError::new(&error.message, error.code).into()
}

/// Turns our JSON into a JS value (through `JSON.parse`, so property names stay plain data).
pub(crate) fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&crate::json::write(value)).unwrap_or(JsValue::NULL)
}

/// Who is asking, as shown: the server's name, else "Unknown server".
fn server_or_unknown(server: &str, locale: crate::i18n::Locale) -> String {
    if server.is_empty() {
        crate::i18n::plain(locale, "mcp-elicitation-server-unknown")
    } else {
        server.to_string()
    }
}

/// The promise of one `elicit()` or `elicitRequired()` call.
struct Resolver {
    resolve: Function,
    reject: Function,
}

/// Who hears how an elicitation ended: its own `elicit()` promise, or the -32042 flow it belongs
/// to. The session owns it and hands it out exactly once.
enum Answer {
    Promise(Resolver),
    Flow(admit::FlowId),
}

/// What the element keeps for an elicitation while the session holds it; dropped with it, so its
/// abort listener and poll timer go too.
struct Held {
    request: Request,
    /// The server it came from (`serverName`, else `server-name`), as the consents remember it.
    server: String,
    scope: Scope,
    form: Option<FormState>,
    _abort: Option<Listener>,
    poll: Option<Timeout>,
    backoff: PollBackoff,
    /// The -32042 flow this elicitation is part of.
    flow: Option<admit::FlowId>,
    /// `notify`: the system notification shown when it arrived unseen, closed once it settles.
    notification: Option<notify::SystemNotification>,
    /// The scope the person chose to be remembered for, set just before an accept settles.
    remember: Option<crate::one_tap::Persist>,
    /// Who else answered it, when its abort reason named them (`{ answeredBy }`).
    answered_by: Option<String>,
}

type ElementSession = Session<Answer, Held>;
type ElementEntry = crate::session::Entry<Answer, Held>;

enum Body {
    Form(FormView),
    /// A one-tap question's buttons (the `one-tap` attribute).
    Tap(crate::dom::one_tap_view::TapView),
    Url,
    Waiting,
    /// A URL already consented to, asked for again (2026-07-28): `href` is what Open again opens.
    Resume {
        href: String,
    },
}

/// The dialog on screen; its listeners and timers go with it.
struct View {
    ticket: Ticket,
    waiting: bool,
    /// A modal dialog, or a card in the page's flow.
    presentation: Presentation,
    /// The language the dialog was built in; its later texts (queue, countdown, errors) keep it
    /// until a rebuild, so one dialog never mixes two languages.
    locale: crate::i18n::Locale,
    chrome: Chrome,
    body: Body,
    url_href: Option<String>,
    /// The "Remember" control, when the request offers scopes (`_meta.persist`).
    remember: Option<web_sys::Element>,
    _listeners: Listeners,
    /// A pending announcement, cancelled if the view goes first.
    _announce: Option<Timeout>,
}

/// The element's state. Only ever touched under the borrow `calls` takes.
struct Inner {
    host: HtmlElement,
    /// The host's attributes, shared with the `Controller` that records their changes.
    attributes: Rc<attributes::HostAttributes>,
    shadow: ShadowRoot,
    shared: std::rc::Weak<Shared>,
    session: ElementSession,
    drafts: Drafts,
    tenant: Tenant,
    screen: Screen,
    connected: bool,
    local_ids: u64,
    flows: Flows,
}

/// What is on screen and what times it: the dialog, the parts of the next one, the timers, and
/// what an inline element leaves behind.
#[derive(Default)]
struct Screen {
    view: Option<View>,
    /// The next dialog's request-independent parts, built while no dialog shows.
    spare: Option<view::Spare>,
    /// Builds `spare` in a task of its own once no dialog shows, so a close settles first.
    spare_timer: Option<Timeout>,
    timer: Option<Timeout>,
    opener: Option<HtmlElement>,
    announcements: Announcements,
    /// Inline: the summaries left by settled elicitations, oldest first.
    summaries: Vec<web_sys::Element>,
    /// Where a modal answered by someone else says so, made on first use; and its timer.
    answered_live: Option<web_sys::Element>,
    answered_announce: Option<Timeout>,
}

/// What the person gave that outlives a dialog.
#[derive(Default)]
struct Drafts {
    /// The forms of unfinished elicitations, by scope (in memory only).
    forms: DraftStore<FormState>,
    /// URLs consented to without `elicitationId`, so the next round does not ask again.
    url_consents: UrlConsents,
}

/// The -32042 flows (`elicitRequired()`) not yet decided.
#[derive(Default)]
struct Flows {
    open: Vec<required::Flow>,
    /// The id the last flow got.
    last_id: u64,
}

/// The controller the shim holds for one element.
#[wasm_bindgen]
pub struct Controller {
    shared: Rc<Shared>,
    attributes: Rc<attributes::HostAttributes>,
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
        let attributes = Rc::new(attributes::HostAttributes::default());
        let shared = Rc::new_cyclic(|weak| {
            Shared::new(Inner {
                host,
                attributes: attributes.clone(),
                shadow,
                shared: weak.clone(),
                session: Session::default(),
                drafts: Drafts::default(),
                tenant: Tenant::default(),
                screen: Screen::default(),
                connected: false,
                local_ids: 0,
                flows: Flows::default(),
            })
        });
        platform::register_live(&shared);
        Controller { shared, attributes }
    }

    /// `connectedCallback`.
    pub fn connected(&self) {
        self.shared.run(|inner, fx| {
            inner.connected = true;
            inner.tenant = inner.read_tenant();
            inner.sync_view(fx, false);
        })
    }

    /// `disconnectedCallback`: nothing may be left hanging.
    pub fn disconnected(&self) {
        self.shared.run(|inner, fx| {
            inner.connected = false;
            let changes = inner.session.detach();
            inner.finish(fx, changes);
            inner.screen.timer = None;
            inner.screen.spare_timer = None;
            inner.screen.spare = None;
        })
    }

    /// `attributeChangedCallback`, with the attribute's new value (`null`: removed).
    #[wasm_bindgen(js_name = attributeChanged)]
    pub fn attribute_changed(&self, name: String, value: Option<String>) {
        self.attributes.set(&name, value);
        self.shared.run(move |inner, fx| match name.as_str() {
            "user-id" | "workspace-id" | "conversation-id" => {
                let tenant = inner.read_tenant();
                if tenant != inner.tenant {
                    inner.tenant = tenant;
                    // What another scope answered is no longer shown.
                    fx.close.append(&mut inner.screen.summaries);
                    let changes = inner.session.change_tenant(&inner.tenant);
                    inner.finish(fx, changes);
                }
            }
            "lang" | "server-name" | "presentation" | "one-tap" => inner.sync_view(fx, true),
            _ => {}
        })
    }

    /// `elicit(request, options)`; `text` is the request as JSON (`null` when it was not JSON).
    /// The shim's promise settles through `resolve` / `reject`; the options come read and typed
    /// (`readOptions` in src/js/define.js). `round` numbers the call's `AbortSignal`: calls that
    /// share one signal are one round (SDK v2 and `elicitInputs` pass one per round), and the core
    /// keeps them together (`crate::batch`).
    #[allow(clippy::too_many_arguments)]
    pub fn elicit(
        &self,
        text: Option<String>,
        resolve: Function,
        reject: Function,
        signal: Option<AbortSignal>,
        timeout_ms: Option<f64>,
        server_name: Option<String>,
        round: Option<u32>,
    ) {
        let options = admit::ElicitOptions {
            signal,
            timeout_ms,
            server_name,
            batch: round.map(u64::from),
        };
        let resolver = Resolver { resolve, reject };
        self.shared
            .run(move |inner, fx| inner.elicit(fx, text, options, resolver));
    }

    /// `complete(elicitationId, { serverName })`: the server finished a URL-mode elicitation; with
    /// `server_name`, only one that server asked for. Whether it was waiting is known at once, even
    /// when the call itself has to wait its turn.
    pub fn complete(&self, elicitation_id: String, server_name: Option<String>) -> bool {
        let known = self.shared.snapshot().waiting.iter().any(|(server, id)| {
            *id == elicitation_id && server_name.as_ref().is_none_or(|name| name == server)
        });
        self.shared.run(move |inner, fx| {
            let server = server_name.as_deref();
            if let Some(change) = inner.session.complete_from(server, &elicitation_id) {
                inner.finish(fx, vec![change]);
            }
        });
        known
    }

    /// `cancel()`: the server withdrew the elicitation on screen.
    pub fn cancel(&self) {
        self.shared.run(|inner, fx| {
            if let Some(ticket) = inner.session.front().map(|entry| entry.ticket) {
                inner.server_cancel(fx, ticket);
            }
        })
    }

    /// `focus()` on an inline element: its first field (a control that does not consent, in URL
    /// mode), else the last summary it left.
    #[wasm_bindgen(js_name = focusInline)]
    pub fn focus_inline(&self) {
        self.shared.run(|inner, fx| inner.focus_inline(fx))
    }

    /// `open`: a dialog is showing.
    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self) -> bool {
        self.shared.snapshot().open
    }

    /// `pending`: elicitations open or queued.
    pub fn pending(&self) -> u32 {
        self.shared.snapshot().pending
    }
}

impl Inner {
    /// What the public getters report, taken after every call.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            open: self.screen.view.is_some(),
            pending: u32::try_from(self.session.len()).unwrap_or(u32::MAX),
            waiting: self
                .session
                .entries()
                .filter(|entry| entry.waiting)
                .map(|entry| (entry.server.clone(), entry.elicitation_id.clone()))
                .collect(),
        }
    }

    fn attr(&self, name: &str) -> Option<String> {
        self.attributes.get(name)
    }

    /// The `presentation` attribute.
    fn presentation(&self) -> Presentation {
        Presentation::from_attribute(self.attr("presentation").as_deref())
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
}

impl Inner {
    /// `lang` on the element, else the nearest ancestor's, else `navigator.languages`, else en-US.
    /// The shim reads them in one call (`languageCandidates`), one per line.
    fn locale(&self) -> crate::i18n::Locale {
        let candidates = language_candidates(&self.host);
        crate::i18n::Locale::negotiate(candidates.lines().filter(|tag| !tag.is_empty()))
    }
}
