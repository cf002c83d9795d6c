//! Where focus goes: Tab and Shift+Tab wrap inside the dialog (a radio group is one stop), a field
//! is focused at its checked option, and the element remembers who had focus before it opened.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, KeyboardEvent};

use super::effects::Effects;
use super::Inner;
use crate::dom::document;
use crate::dom::form_view::FieldView;
use crate::dom::frame::Presentation;

impl Inner {
    /// Tab and Shift+Tab wrap inside the dialog (an inline card lets Tab move on like the page).
    pub(super) fn wrap_focus(&self, fx: &mut Effects, event: &KeyboardEvent) {
        let Some(view) = self
            .screen
            .view
            .as_ref()
            .filter(|view| view.presentation == Presentation::Modal)
        else {
            return;
        };
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

    /// Shift+Tab left the first stop natively (a date input steps through its own segments
    /// first, so the keydown wrap cannot tell): wrap to the last stop. Focus arriving from
    /// outside (showModal's own focusing) is left to the open logic.
    pub(super) fn on_start_sentinel(&self, fx: &mut Effects, event: &web_sys::Event) {
        let Some(view) = &self.screen.view else {
            return;
        };
        let from_inside = event
            .dyn_ref::<web_sys::FocusEvent>()
            .and_then(web_sys::FocusEvent::related_target)
            .and_then(|related| related.dyn_into::<web_sys::Node>().ok())
            .is_some_and(|related| view.chrome.dialog.contains(Some(&related)));
        if from_inside {
            fx.focus = tab_stops(&view.chrome.dialog).last().cloned();
        }
    }
}

/// The control to focus for a field: its checked option in a group, else its first, else the
/// control itself.
pub(super) fn field_focus_target(field: &FieldView) -> Element {
    let Some(first) = field.options.first() else {
        return field.control.clone();
    };
    field
        .options
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
    let selector = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1']):not([data-sentinel])";
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
pub(super) fn deep_active_element() -> Option<HtmlElement> {
    let mut active = document().active_element()?;
    while let Some(inner) = active.shadow_root().and_then(|root| root.active_element()) {
        active = inner;
    }
    active.dyn_into().ok()
}
