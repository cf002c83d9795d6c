//! A new `elicit()`: the request parsed by the core, its options read, and the elicitation admitted
//! to the session (or refused with -32602 and an `invalid` event, opening nothing).

use super::admit::ElicitOptions;
use super::calls::run_weak;
use super::effects::Effects;
use super::{answered_by_reason, Answer, Inner, Resolver};
use crate::dom::listener::Listener;
use crate::request::parse_request_text;
use crate::wire::Malformed;

impl Inner {
    pub(super) fn elicit(
        &mut self,
        fx: &mut Effects,
        text: Option<String>,
        options: ElicitOptions,
        resolver: Resolver,
    ) {
        let taken = self.take_in(
            fx,
            text,
            Malformed::Request,
            options.signal.as_ref(),
            resolver,
            parse_request_text,
        );
        let Some((request, resolver)) = taken else {
            return;
        };
        let (ticket, change) =
            self.admit_request(request, &options, Answer::Promise(resolver), None);
        if let (Some(signal), Some(entry)) = (options.signal, self.session.get_mut(ticket)) {
            let shared = self.shared.clone();
            let aborted = signal.clone();
            entry.data._abort = Some(Listener::new(&signal, "abort", move |_| {
                let name = answered_by_reason(&aborted);
                run_weak(&shared, move |inner, fx| inner.aborted(fx, ticket, name));
            }));
        }
        match change {
            Some(change) => self.finish(fx, vec![change]),
            None => self.sync_view(fx, false),
        }
    }
}
