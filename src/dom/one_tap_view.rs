//! One tap and "remember" (contract §13): a one-tap question's buttons in a group named by the
//! question (the dialog's heading), and the "Remember" control of a request whose `_meta.persist` offers scopes. Which
//! buttons, in which order and with which result is the core's (`one_tap`); this only builds them.

use web_sys::{Document, Element};

use super::frame::{button, Chrome};
use super::{append, create, create_part, set_attr, set_server_text};
use crate::i18n::{plain, Locale};
use crate::one_tap::{OneTap, Persist, TapLabel};

/// The buttons of a one-tap question on screen.
pub struct TapView {
    /// The question's choices; a button's `data-choice` is its index.
    pub tap: OneTap,
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
    tap: OneTap,
    offered: &[Persist],
) -> TapView {
    // A fieldset styled as the form's groups: the answers stacked, each a wide target. Its role
    // is spelled out too, as the shared DOM names it (`[role=group]`).
    let group = create_part(document, "fieldset", "choices", None);
    set_attr(&group, "class", "choices");
    set_attr(&group, "role", "group");
    // Focusable only from code: the modal's first focus, so a screen reader hears the question.
    set_attr(&group, "tabindex", "-1");
    // The question is the heading (the property's title or description); with no properties it
    // is the request's message.
    let question_id = match tap.question {
        Some(_) => "kme-title",
        None => "kme-message",
    };
    set_attr(&group, "aria-labelledby", question_id);
    // With no properties the scopes are buttons beside Accept; otherwise a control over them.
    let scope_buttons = matches!(
        tap.choices.first().map(|choice| &choice.label),
        Some(TapLabel::Accept)
    );
    let remember = (!scope_buttons && !offered.is_empty()).then(|| {
        let (label, select) = remember(document, locale, offered);
        append(&group, &label);
        select
    });
    for (index, choice) in tap.choices.iter().enumerate() {
        // A one-tap question has at most five choices: their numbers without integer formatting.
        let index = ["0", "1", "2", "3", "4"]
            .get(index)
            .copied()
            .unwrap_or_default();
        if matches!(choice.label, TapLabel::Reject) {
            // The frame's own Reject, moved in as the last choice.
            set_attr(&chrome.reject, "part", "choice reject");
            set_attr(&chrome.reject, "data-choice", index);
            append(&group, &chrome.reject);
            continue;
        }
        choice_button(document, &group, "choice", &choice.title(locale), index);
        if matches!(choice.label, TapLabel::Accept) {
            for scope in offered {
                let words = plain(locale, scope.button_message());
                let persist = choice_button(document, &group, "choice persist", &words, index);
                set_attr(&persist, "data-persist", scope.name());
            }
        }
    }
    append(&chrome.body, &group);
    TapView {
        tap,
        focus: remember.clone().unwrap_or(group),
        remember,
    }
}

/// One answer button in `group`: its part, its words (in their own direction) and its choice.
fn choice_button(
    document: &Document,
    group: &Element,
    part: &str,
    words: &str,
    index: &str,
) -> Element {
    let shown = button(document, part, "");
    set_attr(&shown, "dir", "auto");
    set_server_text(&shown, words);
    set_attr(&shown, "data-choice", index);
    append(group, &shown);
    shown
}

/// The "Remember" control: a labelled `select[part~=remember]` with "Only this time" (the
/// default, value empty), then each scope in `offered`. Returns the label holding it, and it.
pub fn remember(document: &Document, locale: Locale, offered: &[Persist]) -> (Element, Element) {
    let label = create(document, "label");
    set_attr(&label, "class", "check");
    label.set_text_content(Some(&plain(locale, "mcp-elicitation-remember")));
    let select = create_part(document, "select", "remember", None);
    let option = |value: &str, message: &str| {
        let option = create(document, "option");
        set_attr(&option, "value", value);
        option.set_text_content(Some(&plain(locale, message)));
        append(&select, &option);
    };
    option("", "mcp-elicitation-remember-once");
    for scope in offered {
        option(scope.name(), scope.remember_message());
    }
    append(&label, &select);
    (label, select)
}
