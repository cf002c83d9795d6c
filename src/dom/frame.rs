//! The frame every dialog has (header, queue line, body, reason box, actions, countdown, live
//! region, and the modal dialog's focus sentinel), built from resolved texts. Server strings go in through `textContent`
//! or a plain attribute value; nothing here parses markup.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

use super::{
    append, create, create_part, set_attr, set_hidden, set_server_text, set_text_isolating,
    set_textarea_value, SLOT,
};
use crate::i18n::{plain, text, Arg, Locale};

/// How the element shows a request: the modal dialog, or the card of `presentation="inline"`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Presentation {
    Modal,
    Inline,
}

impl Presentation {
    /// From the `presentation` attribute: `inline`, else the default, `modal`.
    pub fn from_attribute(value: Option<&str>) -> Presentation {
        match value {
            Some("inline") => Presentation::Inline,
            _ => Presentation::Modal,
        }
    }
}

/// The parts every dialog has.
pub struct Chrome {
    pub dialog: Element,
    /// "From {server}", the title and the message: the request's own texts, set by [`fill`].
    pub server: Element,
    pub title: Element,
    pub message: Element,
    pub queue: Element,
    pub body: Element,
    pub countdown: Element,
    /// Polite live region for announcements (countdown, queue, opening).
    pub live: Element,
    pub actions: Element,
    pub cancel: Element,
    pub reject: Element,
    /// The optional reason sent with a reject, inside `reason_box`, shown by `reason_toggle`.
    pub reason: Element,
    pub reason_toggle: Element,
    pub reason_box: Element,
    /// The modal dialog's first focusable element, before the header: catches a native Shift+Tab
    /// out of the first stop so the controller can wrap it. The inline card has none: Tab leaves
    /// it like any part of the page.
    pub sentinel: Option<Element>,
}

/// The dialog's static texts, resolved by the caller.
pub struct Heading<'a> {
    pub server: &'a str,
    pub title: &'a str,
    pub message: &'a str,
}

/// Builds the frame shared by form and URL mode, in `locale`, with the request's texts still
/// empty: [`fill`] sets them. Nothing in it depends on a request, so it can be built before one.
pub fn blank(document: &Document, locale: Locale, presentation: Presentation) -> Chrome {
    let dialog = container(document, locale, presentation);
    let sentinel = (presentation == Presentation::Modal).then(|| {
        let sentinel = create(document, "span");
        set_attr(&sentinel, "tabindex", "0");
        set_attr(&sentinel, "data-sentinel", "");
        append(&dialog, &sentinel);
        sentinel
    });
    let (header, server, queue) = header(document);
    // The title and message are the server's (the title may be our default): each takes its
    // own direction.
    let title = create_part(document, "h2", "title", None);
    set_attr(&title, "id", "kme-title");
    set_attr(&title, "dir", "auto");
    let body = create(document, "div");
    set_attr(&body, "class", "body");
    let message = create_part(document, "p", "message", None);
    set_attr(&message, "id", "kme-message");
    set_attr(&message, "dir", "auto");
    append(&body, &message);
    let countdown = create_part(document, "p", "countdown", None);
    set_hidden(&countdown, true);
    let live = create(document, "div");
    set_attr(&live, "class", "visually-hidden");
    set_attr(&live, "aria-live", "polite");
    set_attr(&live, "role", "status");
    let (actions, cancel, reject) = actions(document, locale);
    let (reason_box, reason_toggle, reason) = reason_box(document, locale);
    for part in [&header, &title, &body, &countdown, &live, &actions] {
        append(&dialog, part);
    }
    // The reason box is placed by the mode's body builder, after the form or the URL.
    Chrome {
        dialog,
        server,
        title,
        message,
        queue,
        body,
        countdown,
        live,
        actions,
        cancel,
        reject,
        reason,
        reason_toggle,
        reason_box,
        sentinel,
    }
}

/// The element that holds the frame, named and in the language's direction.
///
/// Inline, the card of `presentation="inline"`: a `<section>` in the page's flow with
/// `role="region"`, the landmark the APG gives a named part of a page (a chat message holding a
/// question), which suits a form, a URL consent and a wait alike (`role="form"` would misname the
/// last two). Named by the request's message, since that is the question; not modal, so no
/// `aria-modal`.
fn container(document: &Document, locale: Locale, presentation: Presentation) -> Element {
    let container = match presentation {
        Presentation::Inline => {
            let card = create_part(document, "section", "inline", None);
            set_attr(&card, "class", "card");
            set_attr(&card, "role", "region");
            set_attr(&card, "aria-labelledby", "kme-message");
            card
        }
        Presentation::Modal => {
            let dialog = create_part(document, "dialog", "dialog", None);
            set_attr(&dialog, "role", "dialog");
            set_attr(&dialog, "aria-modal", "true");
            set_attr(&dialog, "aria-labelledby", "kme-title");
            set_attr(&dialog, "aria-describedby", "kme-message");
            dialog
        }
    };
    set_attr(&container, "lang", &locale.tag());
    // The language's direction, not the page's: an English fallback in a right-to-left page
    // stays left to right, and a registered Arabic runs right to left in any page.
    set_attr(&container, "dir", locale.direction().as_str());
    container
}

/// The header: the server line and the queue position (`header`, `server`, `queue`).
fn header(document: &Document) -> (Element, Element, Element) {
    let header = create_part(document, "header", "header", None);
    let server = create_part(document, "p", "server", None);
    let queue = create_part(document, "p", "queue", None);
    // A polite live region: a request queued while this one is open is announced ("1 of 3").
    set_attr(&queue, "role", "status");
    set_hidden(&queue, true);
    append(&header, &server);
    append(&header, &queue);
    (header, server, queue)
}

/// The footer with Cancel and Decline (`actions`, `cancel`, `reject`); each mode adds its own.
fn actions(document: &Document, locale: Locale) -> (Element, Element, Element) {
    let actions = create_part(document, "footer", "actions", None);
    let cancel = button(
        document,
        "cancel",
        &plain(locale, "mcp-elicitation-action-cancel"),
    );
    let reject = button(
        document,
        "reject",
        &plain(locale, "mcp-elicitation-action-reject"),
    );
    append(&actions, &cancel);
    append(&actions, &reject);
    (actions, cancel, reject)
}

/// The optional reject reason: a disclosure button over a hidden textarea (`reason_box`,
/// `reason_toggle`, `reason`).
///
/// Not a `<details>`: the same keyboard and screen-reader behaviour (a button with
/// `aria-expanded`), and 0.2–0.35 ms less per open, which a closed `<details>` spends on its own
/// shadow tree and marker.
fn reason_box(document: &Document, locale: Locale) -> (Element, Element, Element) {
    let reason_label = plain(locale, "mcp-elicitation-reason-label");
    let reason_box = create_part(document, "div", "reason", None);
    let reason_toggle = create(document, "button");
    reason_toggle.set_text_content(Some(&reason_label));
    set_attr(&reason_toggle, "type", "button");
    set_attr(&reason_toggle, "id", "kme-reason-toggle");
    set_attr(&reason_toggle, "aria-expanded", "false");
    set_attr(&reason_toggle, "aria-controls", "kme-reason");
    let reason = create(document, "textarea");
    set_attr(&reason, "id", "kme-reason");
    set_attr(&reason, "rows", "2");
    set_attr(&reason, "maxlength", "1000");
    set_attr(&reason, "aria-label", &reason_label);
    set_hidden(&reason, true);
    append(&reason_box, &reason_toggle);
    append(&reason_box, &reason);
    (reason_box, reason_toggle, reason)
}

/// Sets the request's texts in a frame from [`blank`] built in the same `locale`.
pub fn fill(document: &Document, chrome: &Chrome, locale: Locale, heading: &Heading) {
    set_server_line(document, &chrome.server, locale, heading.server);
    set_server_text(&chrome.title, heading.title);
    set_server_text(&chrome.message, heading.message);
}

/// "From {server}", the server's name isolated in its own `<bdi>` (the dialog's and the summary's).
pub fn set_server_line(document: &Document, element: &Element, locale: Locale, server: &str) {
    let from = text(
        locale,
        "mcp-elicitation-server-from",
        &[("server", Arg::Text(SLOT))],
    );
    set_text_isolating(document, element, &from, server, None);
}

/// A `type="button"` button (not a submit) with its part name and label.
pub fn button(document: &Document, part: &str, label: &str) -> Element {
    let element = create_part(document, "button", part, Some(label));
    set_attr(&element, "type", "button");
    element
}

/// What the user did in the reject-reason box: the text typed and whether it is expanded.
pub struct ReasonState {
    text: String,
    open: bool,
}

/// Reads the reject-reason box, so a rebuilt dialog (language change) can keep it.
pub fn reason_state(chrome: &Chrome) -> ReasonState {
    ReasonState {
        text: chrome
            .reason
            .dyn_ref::<web_sys::HtmlTextAreaElement>()
            .map(web_sys::HtmlTextAreaElement::value)
            .unwrap_or_default(),
        open: reason_open(chrome),
    }
}

/// Puts back what `reason_state` read.
pub fn restore_reason(chrome: &Chrome, state: &ReasonState) {
    set_textarea_value(&chrome.reason, &state.text);
    set_reason_open(chrome, state.open);
}

/// Whether the reject-reason textarea is shown.
pub fn reason_open(chrome: &Chrome) -> bool {
    chrome
        .reason_toggle
        .get_attribute("aria-expanded")
        .as_deref()
        == Some("true")
}

/// Shows or hides the reject-reason textarea, keeping the toggle's `aria-expanded` in step.
pub fn set_reason_open(chrome: &Chrome, open: bool) {
    set_attr(
        &chrome.reason_toggle,
        "aria-expanded",
        if open { "true" } else { "false" },
    );
    set_hidden(&chrome.reason, !open);
}
