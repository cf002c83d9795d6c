//! One tap and "remember" (contract §13): a one-tap question's buttons in a group named by the
//! question, and the "Remember" control of a request whose `_meta.persist` offers scopes. Which
//! buttons, in which order and with which result is the core's (`one_tap`); this only builds them.

use serde_json::Value;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlSelectElement};

use super::frame::{button, Chrome};
use super::{append, create, create_part, set_attr, set_server_text};
use crate::i18n::{plain, Locale};
use crate::one_tap::{OneTap, Persist, TapLabel};

/// The buttons of a one-tap question on screen.
pub struct TapView {
    /// Each choice's `ElicitResult`, by the `data-choice` its button carries.
    pub results: Vec<Value>,
    /// Where first focus goes: the Remember control, else the group itself, never a button that
    /// accepts.
    pub focus: Element,
    /// The Remember control, when the request offers scopes and they are not buttons of their own.
    pub remember: Option<Element>,
}

/// Builds `tap`'s buttons into the frame, in `locale`: "Accept" (then one button per scope in
/// `offered`) or Yes / No or the options, then the frame's own Reject moved in as the last choice.
pub fn one_tap(
    document: &Document,
    locale: Locale,
    chrome: &Chrome,
    tap: &OneTap,
    offered: &[Persist],
) -> TapView {
    let group = create_part(document, "div", "choices", None);
    set_attr(&group, "role", "group");
    // Focusable only from code: the modal's first focus, so a screen reader hears the question.
    set_attr(&group, "tabindex", "-1");
    let question_id = match &tap.question {
        Some(question) => {
            let shown = create_part(document, "p", "question", None);
            set_attr(&shown, "id", "kme-question");
            set_attr(&shown, "dir", "auto");
            set_server_text(&shown, question);
            append(&chrome.body, &shown);
            "kme-question"
        }
        // No properties: the request's message is the question.
        None => "kme-message",
    };
    set_attr(&group, "aria-labelledby", question_id);
    // With no properties the scopes are buttons beside Accept; otherwise a control above.
    let scope_buttons = tap
        .choices
        .first()
        .is_some_and(|choice| choice.label == TapLabel::Accept);
    let remember = (!scope_buttons && !offered.is_empty()).then(|| {
        let (label, select) = remember(document, locale, offered);
        append(&chrome.body, &label);
        select
    });
    let mut results = Vec::with_capacity(tap.choices.len());
    for (index, choice) in tap.choices.iter().enumerate() {
        let index = index.to_string();
        let shown = if choice.label == TapLabel::Reject {
            set_attr(&chrome.reject, "part", "choice reject");
            chrome.reject.clone()
        } else {
            let shown = button(document, "choice", "");
            set_attr(&shown, "dir", "auto");
            set_server_text(&shown, &choice.title(locale));
            shown
        };
        set_attr(&shown, "data-choice", &index);
        append(&group, &shown);
        if choice.label == TapLabel::Accept {
            for scope in offered {
                let persist = button(
                    document,
                    "choice persist",
                    &plain(locale, scope.button_message()),
                );
                set_attr(&persist, "data-choice", &index);
                set_attr(&persist, "data-persist", scope.name());
                append(&group, &persist);
            }
        }
        results.push(choice.result.clone());
    }
    append(&chrome.body, &group);
    TapView {
        results,
        focus: remember.clone().unwrap_or(group),
        remember,
    }
}

/// The "Remember" control: a labelled `select[part~=remember]` with "Only this time" (the
/// default, value empty), then each scope in `offered`. Returns the label holding it, and it.
pub fn remember(document: &Document, locale: Locale, offered: &[Persist]) -> (Element, Element) {
    let label = create(document, "label");
    set_attr(&label, "class", "remember");
    let name = create(document, "span");
    name.set_text_content(Some(&plain(locale, "mcp-elicitation-remember")));
    let select = create_part(document, "select", "remember", None);
    let once: (&str, &str) = ("", "mcp-elicitation-remember-once");
    let scopes = offered
        .iter()
        .map(|scope| (scope.name(), scope.remember_message()));
    for (value, message) in std::iter::once(once).chain(scopes) {
        let option = create(document, "option");
        set_attr(&option, "value", value);
        option.set_text_content(Some(&plain(locale, message)));
        append(&select, &option);
    }
    append(&label, &name);
    append(&label, &select);
    (label, select)
}

/// The scope a Remember control holds (`None`: only this time).
pub fn remembered(select: &Element) -> Option<Persist> {
    Persist::from_name(&select.dyn_ref::<HtmlSelectElement>()?.value())
}
