//! What the user does inside the dialog: typing and choosing (the form state and draft follow
//! at once), tags, buttons, keys. Each dialog's listeners belong to its view.

use wasm_bindgen::JsCast;
use web_sys::{
    Element, Event, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, KeyboardEvent,
};

use super::calls::run_weak;
use super::effects::Effects;
use super::platform::local_offset_minutes;
use super::{Body, Inner};
use crate::dom::form_view;
use crate::dom::frame::{self, Chrome};
use crate::dom::listener::Listeners;
use crate::dom::{append, document};
use crate::form::Input;
use crate::reply::{CancelSource, Ending};
use crate::request::Mode;
use crate::schema::{FieldKind, TextFormat};
use crate::session::Ticket;

impl Inner {
    pub(super) fn listen(&self, ticket: Ticket, chrome: &Chrome, body: &Body) -> Listeners {
        let dialog = &chrome.dialog;
        let shared = self.shared.clone();
        let mut listeners = Listeners::new(move |event: Event| {
            let kind = event.type_();
            run_weak(&shared, move |inner, fx| {
                inner.on_event(fx, ticket, &kind, &event)
            });
        });
        listeners.on(dialog, "input change focusout click keydown cancel close");
        // `focus` does not bubble: only the sentinel's own reaches this callback.
        if let Some(sentinel) = &chrome.sentinel {
            listeners.on(sentinel, "focus");
        }
        if let Body::Form(view) = body {
            listeners.on(&view.form, "submit");
        }
        listeners
    }

    fn on_event(&mut self, fx: &mut Effects, ticket: Ticket, kind: &str, event: &Event) {
        if self.screen.view.as_ref().map(|view| view.ticket) != Some(ticket) {
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
            "focus" => self.on_start_sentinel(fx, event),
            "focusout" => {
                if let Some(index) = target.as_ref().and_then(field_index) {
                    // Leaving one radio for another in the same group is not leaving the field.
                    if let Some(state) = self
                        .session
                        .get_mut(ticket)
                        .and_then(|entry| entry.data.form.as_mut())
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
                if let Some(view) = self
                    .screen
                    .view
                    .as_ref()
                    .filter(|view| view.chrome.reason_toggle == button)
                {
                    frame::set_reason_open(&view.chrome, !frame::reason_open(&view.chrome));
                    return;
                }
                let part = button.get_attribute("part").unwrap_or_default();
                if let Some(tag) = button.get_attribute("data-remove-tag") {
                    if let Some(index) = field_index(&button) {
                        self.remove_tag(fx, ticket, index, &tag);
                    }
                    return;
                }
                // A button may carry several parts (the wait's "cancel close"): the first known
                // one, in this order, says what it does.
                let parts: Vec<&str> = part.split_whitespace().collect();
                let action = [
                    "accept", "reject", "cancel", "open", "close", "finished", "continue", "choice",
                ]
                .into_iter()
                .find(|name| parts.contains(name));
                match action {
                    Some("accept") => {
                        event.prevent_default();
                        self.try_accept(fx, ticket);
                    }
                    Some("reject") => self.reject(fx, ticket),
                    Some("cancel") => self.close(fx, ticket, Ending::Cancel(CancelSource::User)),
                    Some("open") => self.open(fx, ticket),
                    Some("close") => self.end_wait(fx, ticket),
                    Some("finished") => self.finished_wait(fx, ticket),
                    Some("continue") => self.resume_continue(fx, ticket),
                    Some("choice") => self.tap(fx, ticket, &button),
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
                        self.screen.view.as_ref().map(|view| &view.body),
                        Some(Body::Form(_))
                    ) {
                        self.try_accept(fx, ticket);
                    }
                }
            }
            _ => {}
        }
    }

    fn on_input(&mut self, _fx: &mut Effects, ticket: Ticket, target: &Element, is_change: bool) {
        let Some(index) = field_index(target) else {
            return;
        };
        let Some(held) = self.session.get_mut(ticket).map(|entry| &mut entry.data) else {
            return;
        };
        let (Mode::Form(schema), Some(state)) = (&held.request.mode, held.form.as_mut()) else {
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
                let Some(Body::Form(view)) = self.screen.view.as_ref().map(|view| &view.body)
                else {
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
        let (draft, scope) = (state.clone(), held.scope.clone());
        self.drafts.forms.put(scope, draft);
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
        let Some(held) = self.session.get_mut(ticket).map(|entry| &mut entry.data) else {
            return;
        };
        let Some(state) = held.form.as_mut() else {
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
        let (draft, scope) = (state.clone(), held.scope.clone());
        self.drafts.forms.put(scope, draft);
        if let Some(view) = &self.screen.view {
            if let Body::Form(form_view) = &view.body {
                if let Some(list) = form_view
                    .fields
                    .get(index)
                    .and_then(|field| field.tag_list.as_ref())
                {
                    append(
                        list,
                        &form_view::tag_item(&document(), view.locale, index, &tag),
                    );
                }
            }
        }
        self.refresh_field_view(ticket, index);
    }

    fn remove_tag(&mut self, fx: &mut Effects, ticket: Ticket, index: usize, tag: &str) {
        let Some(held) = self.session.get_mut(ticket).map(|entry| &mut entry.data) else {
            return;
        };
        let Some(state) = held.form.as_mut() else {
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
        let (draft, scope) = (state.clone(), held.scope.clone());
        self.drafts.forms.put(scope, draft);
        if let Some(Body::Form(view)) = self.screen.view.as_ref().map(|view| &view.body) {
            if let Some(field) = view.fields.get(index) {
                if let Some(item) = field
                    .tag_list
                    .as_ref()
                    .and_then(|list| list.children().item(position as u32))
                {
                    item.remove();
                }
                // Focus moves after the borrow: page code may react to it.
                fx.focus = Some(field.control.clone());
            }
        }
        self.refresh_field_view(ticket, index);
    }
}

/// The field an element belongs to: its own `data-index`, or its group's (radios and checkboxes
/// carry none of their own).
pub(super) fn field_index(element: &Element) -> Option<usize> {
    element
        .closest("[data-index]")
        .ok()??
        .get_attribute("data-index")?
        .parse()
        .ok()
}
