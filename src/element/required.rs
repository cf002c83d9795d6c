//! `elicitRequired(error)`: a server answered a request with URLElicitationRequiredError
//! (-32042). Its elicitations (parsed by the core) join the queue together and show one after
//! another, each with the full URL-mode consent and policy; the promise resolves `{ retry: true }`
//! once all completed, or `{ retry: false, action, elicitationId }` as soon as one ends otherwise.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::admit::{ElicitOptions, FlowId};
use super::calls::run_weak;
use super::effects::Effects;
use super::{abort_error, to_js, Answer, Controller, Inner, Resolver};
use crate::dom::listener::Listener;
use crate::reply::{CancelSource, Ending};
use crate::required::{parse_required_text, RequiredProgress, Verdict};
use crate::session::Ticket;
use crate::wire::Malformed;

/// One undecided -32042 flow: its progress, its promise, and its abort listener.
pub(super) struct Flow {
    id: FlowId,
    progress: RequiredProgress,
    resolver: Resolver,
    _abort: Option<Listener>,
}

#[wasm_bindgen]
impl Controller {
    /// `elicitRequired(error, options)`; `text` is the error as JSON (`null` when it was not JSON).
    /// Settles and takes its options like `elicit`.
    #[wasm_bindgen(js_name = elicitRequired)]
    pub fn elicit_required(
        &self,
        text: Option<String>,
        resolve: Function,
        reject: Function,
        signal: Option<AbortSignal>,
        timeout_ms: Option<f64>,
        server_name: Option<String>,
    ) {
        let options = ElicitOptions {
            signal,
            timeout_ms,
            server_name,
            // A -32042 flow keeps its own count and its own ending (`flow_step`).
            batch: None,
        };
        let resolver = Resolver { resolve, reject };
        self.shared
            .run(move |inner, fx| inner.elicit_required(fx, text, options, resolver));
    }
}

impl Inner {
    fn elicit_required(
        &mut self,
        fx: &mut Effects,
        text: Option<String>,
        options: ElicitOptions,
        resolver: Resolver,
    ) {
        let taken = self.take_in(
            fx,
            text,
            Malformed::Required,
            options.signal.as_ref(),
            resolver,
            parse_required_text,
        );
        let Some((requests, resolver)) = taken else {
            return;
        };
        self.flows.last_id += 1;
        let id = self.flows.last_id;
        let abort = options.signal.as_ref().map(|signal| {
            let shared = self.shared.clone();
            Listener::new(signal, "abort", move |_| {
                run_weak(&shared, move |inner, fx| inner.withdraw_flow(fx, id));
            })
        });
        self.flows.open.push(Flow {
            id,
            progress: RequiredProgress::new(requests.len()),
            resolver,
            _abort: abort,
        });
        let mut changes = Vec::new();
        for request in requests {
            let (_, change) = self.admit_request(request, &options, Answer::Flow(id), Some(id));
            changes.extend(change);
        }
        self.finish(fx, changes);
    }

    /// The host withdrew the flow (its signal aborted): the elicitation it shows goes as a server
    /// cancel, which decides the flow and takes the rest with it.
    fn withdraw_flow(&mut self, fx: &mut Effects, flow: FlowId) {
        if let Some(ticket) = self.flow_tickets(flow).first() {
            self.server_cancel(fx, *ticket);
        }
    }

    /// Whether a flow is still undecided.
    pub(super) fn flow_open(&self, flow: FlowId) -> bool {
        self.flows.open.iter().any(|entry| entry.id == flow)
    }

    fn flow_tickets(&self, flow: FlowId) -> Vec<Ticket> {
        self.session
            .entries()
            .filter(|entry| entry.data.flow == Some(flow))
            .map(|entry| entry.ticket)
            .collect()
    }

    /// Applies one step of a flow's progress; once decided, answers its promise and takes its
    /// remaining elicitations out of the queue unseen (nothing was asked of the user yet).
    pub(super) fn flow_step(
        &mut self,
        fx: &mut Effects,
        flow: FlowId,
        step: impl FnOnce(&mut RequiredProgress) -> Option<Verdict>,
    ) {
        let Some(index) = self.flows.open.iter().position(|entry| entry.id == flow) else {
            return;
        };
        let Some(verdict) = self
            .flows
            .open
            .get_mut(index)
            .and_then(|entry| step(&mut entry.progress))
        else {
            return;
        };
        let decided = self.flows.open.remove(index);
        for ticket in self.flow_tickets(flow) {
            // Dropped without an event: its answer goes to this flow, which is decided.
            let _ = self
                .session
                .close(ticket, Ending::Cancel(CancelSource::Server));
        }
        let resolver = decided.resolver;
        match verdict.result() {
            Some(result) => fx.settle.push((resolver.resolve, to_js(&result))),
            None => fx.settle.push((resolver.reject, abort_error())),
        }
    }

    /// "k of N" for the dialog on screen: inside a -32042 flow, the elicitations it already
    /// completed count too, so its second shows "2 of 2".
    pub(super) fn flow_done_before_front(&self) -> usize {
        let Some(flow) = self.session.front().and_then(|entry| entry.data.flow) else {
            return 0;
        };
        self.flows
            .open
            .iter()
            .find(|entry| entry.id == flow)
            .map_or(0, |entry| entry.progress.completed())
    }
}
