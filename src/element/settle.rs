//! Every way an elicitation ends: the user's actions (submit, reject, cancel, consent, cancelling
//! or finishing a URL wait), the server's (cancel, complete), and the session's (timeout, tenant
//! change, rate limit, detach) all arrive as session changes, and `finish` applies them in one
//! place.

use serde_json::Value;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement, HtmlTextAreaElement};

use super::effects::{Dispatch, Effects};
use super::focus::field_focus_target;
use super::{abort_error, to_js, Answer, Body, Held, Inner};
use crate::i18n::plain;
use crate::json;
use crate::one_tap::Persist;
use crate::policy::keeps_draft;
use crate::reply::{CancelSource, Ending};
use crate::request::Mode;
use crate::session::{Change, Ticket, WaitEnd};
use crate::wire;

impl Inner {
    /// The one way out: applies settlements and ended waits, then brings the view in line.
    pub(super) fn finish(&mut self, fx: &mut Effects, changes: Vec<Change<Answer, Held>>) {
        for change in changes {
            match change {
                Change::Settled {
                    ticket,
                    ending,
                    reply_to,
                    data,
                } => self.settled(fx, ticket, &ending, reply_to, data),
                Change::WaitEnded { end, data, ticket } => {
                    // The consent already answered; what the transcript keeps is that it opened.
                    let left = self.summary_of(ticket, &data, &Ending::Accept(None));
                    self.keep_summary(fx, left);
                    self.wait_ended(fx, &end, data)
                }
            }
        }
        self.sync_view(fx, false);
    }

    /// A URL-mode wait ended. The accept already answered, so the event sends nothing back
    /// (`result` and `reply` are null); it names the elicitation, so a host that opened the URL
    /// itself can close what it opened.
    fn wait_ended(&mut self, fx: &mut Effects, end: &WaitEnd, data: Held) {
        self.drafts.forms.remove(&data.scope);
        if data.flow.is_some_and(|flow| !self.flow_open(flow)) {
            return;
        }
        let elicitation_id = data.request.elicitation_id.clone();
        let event = wire::wait_ended_detail(&data.request, &data.scope, end);
        fx.event(wire::wait_ended_event(end), event);
        if let Some(flow) = data.flow {
            self.flow_step(fx, flow, |progress| match end {
                WaitEnd::Completed => progress.complete(),
                WaitEnd::Closed(ending) => progress.end(ending, &elicitation_id),
            });
        }
    }

    /// Fires the event and answers the promise (or the -32042 flow). `data` is `None` when a
    /// URL-mode accept stays in the session to wait for completion; its status polling starts
    /// here.
    fn settled(
        &mut self,
        fx: &mut Effects,
        ticket: Ticket,
        ending: &Ending,
        reply_to: Answer,
        data: Option<Held>,
    ) {
        // The rest of a decided -32042 flow goes unseen (several can expire in one tick).
        if let Answer::Flow(flow) = reply_to {
            if !self.flow_open(flow) {
                return;
            }
        }
        let Some(held) = data
            .as_ref()
            .or_else(|| self.session.get(ticket).map(|entry| &entry.data))
        else {
            return;
        };
        // A URL consent that now waits for completion leaves its summary when the wait ends.
        let left = data
            .as_ref()
            .and_then(|held| self.summary_of(ticket, held, ending));
        let mut event =
            wire::settled_detail_remembering(&held.request, &held.scope, ending, held.remember);
        if let Some(name) = &held.answered_by {
            json::set(&mut event, "answeredBy", Value::String(name.clone()));
        }
        if !keeps_draft(ending) {
            self.drafts.forms.remove(&held.scope);
        }
        // A 2026-07-28 consent is remembered for the next round; any other ending forgets it.
        self.drafts
            .url_consents
            .settled(&held.scope.tenant, &held.server, &held.request, ending);
        let elicitation_id = held.request.elicitation_id.clone();
        let remember = held.remember;
        // URL-mode consent: the event carries what opens, and opening waits for it (a listener
        // may open the URL its own way). Only a URL the policy let through was kept in the view.
        // Continue, in the resumed view, carries the URL too but opens nothing: `resumed` tells a
        // host that opens URLs itself in its `accept` listener to leave it.
        let mut opens = None;
        if let (Ending::Accept(None), Mode::Url(_), Some(view)) = (
            ending,
            &held.request.mode,
            self.screen
                .view
                .as_ref()
                .filter(|view| view.ticket == ticket),
        ) {
            if let Body::Resume { href } = &view.body {
                json::set(&mut event, "url", Value::String(href.clone()));
                json::set(&mut event, "elicitationId", Value::Null);
                json::set(&mut event, "resumed", Value::Bool(true));
            } else if let Some(url) = &view.url_href {
                json::set(&mut event, "url", Value::String(url.clone()));
                json::set(
                    &mut event,
                    "elicitationId",
                    Value::String(elicitation_id.clone()),
                );
                opens = Some(url.clone());
            }
        }
        fx.events.push(Dispatch {
            name: ending.event_name(),
            detail: event,
            opens,
        });
        self.keep_summary(fx, left);
        match reply_to {
            Answer::Promise(resolver) => match ending.result_remembering(remember) {
                Some(result) => fx.settle.push((resolver.resolve, to_js(&result))),
                None => fx.settle.push((resolver.reject, abort_error())),
            },
            Answer::Flow(flow) => {
                self.flow_step(fx, flow, |progress| progress.end(ending, &elicitation_id))
            }
        }
        if data.is_none() {
            // Answered: what stays is the wait for completion, nothing to notify about.
            if let Some(entry) = self.session.get_mut(ticket) {
                entry.data.notification = None;
            }
            self.start_poll(ticket);
        }
    }

    /// The server withdrew an elicitation (`cancel()`, an aborted signal).
    pub(super) fn server_cancel(&mut self, fx: &mut Effects, ticket: Ticket) {
        self.close(fx, ticket, Ending::Cancel(CancelSource::Server));
    }

    /// Esc or the browser closing the dialog: cancel, or end a URL wait.
    pub(super) fn dismiss(&mut self, fx: &mut Effects, ticket: Ticket) {
        if self.session.get(ticket).is_some_and(|entry| entry.waiting) {
            self.end_wait(fx, ticket);
        } else {
            self.close(fx, ticket, Ending::Cancel(CancelSource::User));
        }
    }

    pub(super) fn end_wait(&mut self, fx: &mut Effects, ticket: Ticket) {
        let change = self.session.end_wait(ticket);
        self.finish(fx, change.into_iter().collect());
    }

    /// "I've finished": the user says the external page is done, as the server's notification
    /// would.
    pub(super) fn finished_wait(&mut self, fx: &mut Effects, ticket: Ticket) {
        let change = self.session.complete_ticket(ticket);
        self.finish(fx, change.into_iter().collect());
    }

    /// Closes an elicitation under its round's rule: the user's cancel of one also cancels the
    /// rest of its round, each with its own `cancel` (one Esc ends a 2026-07-28 call as cancel).
    pub(super) fn close(&mut self, fx: &mut Effects, ticket: Ticket, ending: Ending) {
        let changes = self.session.close_in_batch(ticket, ending);
        self.finish(fx, changes);
    }

    pub(super) fn reject(&mut self, fx: &mut Effects, ticket: Ticket) {
        let reason = self
            .screen
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

    /// `button[part~=open]`: consent in the consent view, Open again in the resumed one.
    pub(super) fn open(&mut self, fx: &mut Effects, ticket: Ticket) {
        if self.resuming() {
            self.open_again(fx, ticket);
        } else {
            self.consent(fx, ticket);
        }
    }

    /// URL mode: the user consented. Only a URL the policy let through gets here; `settled`
    /// fires the cancelable `accept` that opens it.
    fn consent(&mut self, fx: &mut Effects, ticket: Ticket) {
        if self
            .screen
            .view
            .as_ref()
            .and_then(|view| view.url_href.as_ref())
            .is_none()
        {
            return;
        }
        let Some(change) = self.session.settle(ticket, Ending::Accept(None)) else {
            return;
        };
        self.finish(fx, vec![change]);
    }

    /// A URL already consented to, asked for again: Continue accepts (the host retries), and
    /// nothing opens. Only the resumed view has it.
    pub(super) fn resume_continue(&mut self, fx: &mut Effects, ticket: Ticket) {
        if !self.resuming() {
            return;
        }
        let change = self.session.settle(ticket, Ending::Accept(None));
        self.finish(fx, change.into_iter().collect());
    }

    /// Whether the dialog on screen is the resumed view (a URL already consented to).
    fn resuming(&self) -> bool {
        matches!(
            self.screen.view.as_ref().map(|view| &view.body),
            Some(Body::Resume { .. })
        )
    }

    /// Open again, in the resumed view: a cancelable `open` event (not `accept`: nothing is
    /// answered, the elicitation stays open, so `result` and `reply` are null), carrying the URL
    /// so a host that opens URLs its own way still does. `window.open` follows unless a listener
    /// prevents it.
    fn open_again(&mut self, fx: &mut Effects, ticket: Ticket) {
        let Some(view) = self
            .screen
            .view
            .as_ref()
            .filter(|view| view.ticket == ticket)
        else {
            return;
        };
        let Body::Resume { href } = &view.body else {
            return;
        };
        let Some(held) = self.session.get(ticket).map(|entry| &entry.data) else {
            return;
        };
        let mut event = wire::event_detail(&held.request, &held.scope, None);
        json::set(&mut event, "url", Value::String(href.clone()));
        // Only a request without `elicitationId` (2026-07-28) resumes: there is none to name.
        json::set(&mut event, "elicitationId", Value::Null);
        fx.events.push(Dispatch {
            name: "open",
            detail: event,
            opens: Some(href.clone()),
        });
        let opening = plain(view.locale, "mcp-elicitation-url_mode-opening");
        fx.announce = Some((view.chrome.live.clone(), opening));
    }

    /// Submit: accept with the content, or show every error and focus the first invalid field.
    pub(super) fn try_accept(&mut self, fx: &mut Effects, ticket: Ticket) {
        let Some(held) = self.session.get_mut(ticket).map(|entry| &mut entry.data) else {
            return;
        };
        let (Mode::Form(schema), Some(state)) = (&held.request.mode, held.form.as_mut()) else {
            return;
        };
        match state.content(schema) {
            Ok(content) => {
                let remember = self.remembered(None);
                self.accept_remembering(fx, ticket, content, remember);
            }
            Err(problems) => {
                state.submit_attempted = true;
                let first = problems.first().map(|(index, _)| *index);
                self.refresh_form_view(ticket);
                if let (Some(index), Some(Body::Form(view))) =
                    (first, self.screen.view.as_ref().map(|view| &view.body))
                {
                    fx.focus = view.fields.get(index).map(field_focus_target);
                }
            }
        }
    }

    /// A one-tap button that accepts: its choice's content, remembered for the scope its own
    /// button names (`data-persist`) or the Remember control holds.
    pub(super) fn tap(&mut self, fx: &mut Effects, ticket: Ticket, button: &Element) {
        let Some(Body::Tap(tap)) = self.screen.view.as_ref().map(|view| &view.body) else {
            return;
        };
        // One digit: a one-tap question has at most five choices.
        let index = button
            .get_attribute("data-choice")
            .and_then(|index| index.bytes().next())
            .map(|digit| usize::from(digit.wrapping_sub(b'0')));
        let Some(content) = index
            .and_then(|index| tap.tap.choices.get(index))
            .and_then(|choice| choice.result.get("content"))
            .cloned()
        else {
            return;
        };
        let remember = self.remembered(button.get_attribute("data-persist"));
        self.accept_remembering(fx, ticket, content, remember);
    }

    /// The scope the person chose: `named` (a scope button's), else the Remember control's. Both
    /// hold only scopes the request offered.
    fn remembered(&self, named: Option<String>) -> Option<Persist> {
        let name = named.or_else(|| {
            let control = self.screen.view.as_ref()?.remember.as_ref()?;
            Some(control.dyn_ref::<HtmlSelectElement>()?.value())
        })?;
        Persist::from_name(&name)
    }

    /// Accepts `content`, remembered for `remember` when the person chose a scope.
    fn accept_remembering(
        &mut self,
        fx: &mut Effects,
        ticket: Ticket,
        content: Value,
        remember: Option<Persist>,
    ) {
        if let Some(entry) = self.session.get_mut(ticket) {
            entry.data.remember = remember;
        }
        let change = self.session.settle(ticket, Ending::Accept(Some(content)));
        self.finish(fx, change.into_iter().collect());
    }
}
