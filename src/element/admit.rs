//! Taking in a call and admitting its requests to the session, shared by `elicit()` (`intake`)
//! and `elicitRequired()` (`required`): the input parsed or refused, its options, its timeout,
//! its scope and (form mode) its draft.

use web_sys::AbortSignal;

use super::effects::Effects;
use super::platform::now;
use super::{abort_error, elicitation_error, Answer, ElementSession, Held, Inner, Resolver};
use crate::batch::BatchId;
use crate::error::ElicitationError;
use crate::form::FormState;
use crate::policy::{self, PollBackoff};
use crate::request::{Mode, ParseOptions, Request};
use crate::scope::Scope;
use crate::session::{Admit, Change, Ticket};
use crate::url_rounds::waits_for_completion;
use crate::wire::{invalid_detail, Malformed};

/// Identifies one -32042 flow inside an element.
pub(super) type FlowId = u64;

/// The second argument of `elicit()`, read by the shim before the call runs.
pub(super) struct ElicitOptions {
    pub signal: Option<AbortSignal>,
    pub timeout_ms: Option<f64>,
    pub server_name: Option<String>,
    /// The round the call belongs to (its signal's number), for the core's batch rules.
    pub batch: Option<BatchId>,
}

impl Inner {
    /// How requests are parsed here: `strict` from the attribute, a fresh local id.
    pub(super) fn parse_options(&mut self) -> ParseOptions {
        self.local_ids += 1;
        ParseOptions {
            strict: self.attr("strict").is_some(),
            local_id: format!("local-{}", self.local_ids),
        }
    }

    /// The first step of `elicit()` and `elicitRequired()`: `text` (`None`: it was not JSON) parsed
    /// by `parse`. A malformed input is refused with -32602 and an `invalid` event, and a call
    /// whose signal already aborted rejects with an `AbortError`; either way the promise is
    /// settled and `None` comes back. Otherwise, what was parsed and the promise to answer.
    pub(super) fn take_in<T>(
        &mut self,
        fx: &mut Effects,
        text: Option<String>,
        kind: Malformed,
        signal: Option<&AbortSignal>,
        resolver: Resolver,
        parse: impl FnOnce(&str, &ParseOptions) -> Result<T, ElicitationError>,
    ) -> Option<(T, Resolver)> {
        let parse_options = self.parse_options();
        let parsed = match &text {
            Some(text) => parse(text, &parse_options),
            None => {
                let subject = match kind {
                    Malformed::Request => "request",
                    Malformed::Required => "error",
                };
                Err(ElicitationError::invalid(subject, "is not JSON"))
            }
        };
        match parsed {
            Err(error) => {
                let detail = invalid_detail(text.as_deref(), &error, &self.tenant, kind);
                fx.event("invalid", detail);
                fx.settle.push((resolver.reject, elicitation_error(&error)));
                None
            }
            Ok(_) if signal.is_some_and(AbortSignal::aborted) => {
                fx.settle.push((resolver.reject, abort_error()));
                None
            }
            Ok(parsed) => Some((parsed, resolver)),
        }
    }

    /// Admits a parsed request to the session with its timeout, scope and (form mode) draft.
    pub(super) fn admit_request(
        &mut self,
        request: Request,
        options: &ElicitOptions,
        answer: Answer,
        flow: Option<FlowId>,
    ) -> (Ticket, Option<Change<Answer, Held>>) {
        let server = options
            .server_name
            .clone()
            .or_else(|| self.attr("server-name"))
            .unwrap_or_default();
        let timeout_ms = policy::timeout_ms(
            options.timeout_ms,
            request.timeout_ms,
            self.number_attr("timeout-ms"),
        );
        let scope = Scope {
            tenant: self.tenant.clone(),
            server: server.clone(),
            elicitation_id: request.elicitation_id.clone(),
        };
        let form = match &request.mode {
            Mode::Form(schema) => Some(
                self.drafts
                    .forms
                    .get(&scope)
                    .filter(|draft| draft.fits(schema))
                    .cloned()
                    .unwrap_or_else(|| FormState::new(schema)),
            ),
            Mode::Url(_) => None,
        };
        let admit = Admit {
            server: server.clone(),
            tenant: self.tenant.clone(),
            elicitation_id: request.elicitation_id.clone(),
            awaits_completion: waits_for_completion(&request),
            timeout_ms,
            rate_limit: policy::rate_limit(self.number_attr("rate-limit")),
        };
        let held = Held {
            request,
            server,
            scope,
            form,
            _abort: None,
            poll: None,
            backoff: PollBackoff::new(self.number_attr("poll-interval-ms")),
            flow,
            notification: None,
            remember: None,
            answered_by: None,
        };
        let session: &mut ElementSession = &mut self.session;
        let (ticket, change) = session.admit_in_batch(now(), admit, options.batch, answer, held);
        // Only a request that stays pending is worth telling the person about.
        if change.is_none() {
            let notification = self.notify_arrival(ticket);
            if let Some(entry) = self.session.get_mut(ticket) {
                entry.data.notification = notification;
            }
        }
        (ticket, change)
    }
}
