//! A new `elicit()`: the request parsed by the core, its options read, and the elicitation admitted
//! to the session (or refused with -32602 and an `invalid` event, opening nothing).

use web_sys::AbortSignal;

use super::admit::ElicitOptions;
use super::calls::run_weak;
use super::effects::Effects;
use super::{abort_error, elicitation_error, Answer, Inner, Resolver};
use crate::dom::listener::Listener;
use crate::error::ElicitationError;
use crate::request::parse_request_text;
use crate::wire::{invalid_detail, Malformed};

impl Inner {
    pub(super) fn elicit(
        &mut self,
        fx: &mut Effects,
        text: Option<String>,
        options: ElicitOptions,
        resolver: Resolver,
    ) {
        let parse_options = self.parse_options();
        let parsed = match &text {
            Some(text) => parse_request_text(text, &parse_options),
            None => Err(ElicitationError::invalid("request", "is not JSON")),
        };
        let request = match parsed {
            Ok(request) => request,
            Err(error) => {
                let detail =
                    invalid_detail(text.as_deref(), &error, &self.tenant, Malformed::Request);
                fx.event("invalid", detail);
                fx.settle.push((resolver.reject, elicitation_error(&error)));
                return;
            }
        };
        if options.signal.as_ref().is_some_and(AbortSignal::aborted) {
            fx.settle.push((resolver.reject, abort_error()));
            return;
        }
        let (ticket, change) =
            self.admit_request(request, &options, Answer::Promise(resolver), None);
        if let (Some(signal), Some(entry)) = (options.signal, self.session.get_mut(ticket)) {
            let shared = self.shared.clone();
            entry.data._abort = Some(Listener::new(&signal, "abort", move |_| {
                run_weak(&shared, move |inner, fx| inner.server_cancel(fx, ticket));
            }));
        }
        match change {
            Some(change) => self.finish(fx, vec![change]),
            None => self.sync_view(fx, false),
        }
    }
}
