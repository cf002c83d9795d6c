//! A new `elicit()`: the request parsed by the core, its options read, and the elicitation admitted
//! to the session (or refused with -32602 and an `invalid` event, opening nothing).

use serde_json::Value;
use web_sys::AbortSignal;

use super::calls::run_weak;
use super::effects::Effects;
use super::platform::now;
use super::required::FlowId;
use super::{abort_error, elicitation_error, Answer, ElementSession, Held, Inner, Resolver};
use crate::batch::BatchId;
use crate::dom::listener::Listener;
use crate::error::ElicitationError;
use crate::form::FormState;
use crate::json::object;
use crate::policy::{self, PollBackoff};
use crate::request::{parse_request_text, Mode, ParseOptions, Request};
use crate::scope::Scope;
use crate::session::{Admit, Change, Ticket};
use crate::url_rounds::waits_for_completion;

/// The second argument of `elicit()`, read by the shim before the call runs.
pub(super) struct ElicitOptions {
    pub signal: Option<AbortSignal>,
    pub timeout_ms: Option<f64>,
    pub server_name: Option<String>,
    /// The round the call belongs to (its signal's number), for the core's batch rules.
    pub batch: Option<BatchId>,
}

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
                fx.event("invalid", self.invalid_detail(text.as_deref(), &error));
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

    /// How requests are parsed here: `strict` from the attribute, a fresh local id.
    pub(super) fn parse_options(&mut self) -> ParseOptions {
        self.local_ids += 1;
        ParseOptions {
            strict: self.attr("strict").is_some(),
            local_id: format!("local-{}", self.local_ids),
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
            elicitation_id: request.elicitation_id.clone(),
        };
        let form = match &request.mode {
            Mode::Form(schema) => Some(
                self.drafts
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
        };
        let session: &mut ElementSession = &mut self.session;
        session.admit_in_batch(now(), admit, options.batch, answer, held)
    }

    pub(super) fn invalid_detail(&self, text: Option<&str>, error: &ElicitationError) -> Value {
        let raw: Option<Value> = text.and_then(|text| crate::json::parse(text).ok());
        let id = raw
            .as_ref()
            .and_then(|raw| raw.get("id"))
            .cloned()
            .unwrap_or(Value::Null);
        let is_url = raw.as_ref().is_some_and(|raw| {
            raw.get("mode").and_then(Value::as_str) == Some("url")
                || raw
                    .get("params")
                    .and_then(|params| params.get("mode"))
                    .and_then(Value::as_str)
                    == Some("url")
        });
        let is_json_rpc = raw.as_ref().is_some_and(|raw| raw.get("jsonrpc").is_some());
        let reply = if is_json_rpc {
            object([
                ("jsonrpc", "2.0".into()),
                ("id", id.clone()),
                ("error", error_object(error)),
            ])
        } else {
            Value::Null
        };
        let scope = Scope {
            tenant: self.tenant.clone(),
            elicitation_id: String::new(),
        };
        object([
            ("id", id),
            ("mode", if is_url { "url" } else { "form" }.into()),
            ("scope", scope.to_json()),
            ("result", Value::Null),
            ("reply", reply),
            ("error", error_object(error)),
        ])
    }
}

/// `{ code, message }` of an error, as events and JSON-RPC replies carry it.
fn error_object(error: &ElicitationError) -> Value {
    object([
        ("code", error.code.into()),
        ("message", error.message.clone().into()),
    ])
}
