//! One MCP 2026-07-28 `input_required` round on the terminal: the `inputRequests` of an
//! `InputRequiredResult` (or a bare `inputRequests` map), parsed by the core, asked one after the
//! other, and answered as the `inputResponses` of the retry, by key.
//!
//! Entries other than `elicitation/create` (sampling, roots) are the host's: they are left out of
//! the responses, and [`InputRound::others`] hands them back untouched.

use koder_mcp_elicitation_core::error::ElicitationError;
use koder_mcp_elicitation_core::i18n::Arg;
use koder_mcp_elicitation_core::input_required::{input_responses, parse_input_round, InputRound};
use koder_mcp_elicitation_core::json::parse_argument_unwrapped;
use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::request::{parse_request, ParseOptions, Request};
use serde_json::{json, Value};

use crate::{answer, ElicitError, Elicitation, Messages, Options};

/// What `koder-elicit prompt` read: one request, or one round of a multi round-trip request.
#[derive(Debug, Clone)]
pub enum Input {
    Request(Box<Request>),
    Round(InputRound),
}

/// Parses a request in any of the contract's shapes, or a round: an `InputRequiredResult`, a
/// JSON-RPC response holding one, or a bare `inputRequests` map (or a JSON string of any).
pub fn parse_input_text(text: &str, options: &ParseOptions) -> Result<Input, ElicitationError> {
    let value = parse_argument_unwrapped(text, "request")?;
    if is_round(&value) {
        parse_input_round(&value, options).map(Input::Round)
    } else {
        parse_request(&value, options).map(|request| Input::Request(Box::new(request)))
    }
}

/// A round, not a request: a response (no `method`), an object with the `InputRequiredResult`
/// fields, or a map whose every entry is `{method, ...}` (a request never has that shape).
fn is_round(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    if object.contains_key("jsonrpc") {
        return !object.contains_key("method");
    }
    ["resultType", "inputRequests", "requestState"]
        .iter()
        .any(|field| object.contains_key(*field))
        || (!object.is_empty()
            && object.values().all(|entry| {
                entry
                    .as_object()
                    .is_some_and(|entry| entry.contains_key("method"))
            }))
}

/// How each elicitation of a round ended, by key, in the round's order.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundOutcome {
    pub endings: Vec<(String, Ending)>,
    /// The round's `requestState`, to echo exactly in the retry.
    pub request_state: Option<String>,
}

impl RoundOutcome {
    /// The retry's `inputResponses`: key → `ElicitResult`.
    pub fn input_responses(&self) -> Value {
        input_responses(
            self.endings
                .iter()
                .filter_map(|(key, ending)| Some((key.clone(), ending.result()?))),
        )
    }

    /// What the retry adds to its params: `inputResponses`, and `requestState` when the round
    /// had one.
    pub fn retry_params(&self) -> Value {
        let mut params = json!({ "inputResponses": self.input_responses() });
        if let (Some(state), Some(object)) = (&self.request_state, params.as_object_mut()) {
            object.insert("requestState".into(), Value::String(state.clone()));
        }
        params
    }

    /// The first ending that is not an accept (the round's outcome for an exit status), else
    /// the first ending.
    pub fn decisive(&self) -> Option<&Ending> {
        self.endings
            .iter()
            .map(|(_, ending)| ending)
            .find(|ending| !matches!(ending, Ending::Accept(_)))
            .or_else(|| self.endings.first().map(|(_, ending)| ending))
    }
}

/// Asks every elicitation of the round on the terminal, one after the other ("Request 1 of 2").
/// Esc or Ctrl-C on one cancels the round: the questions after it are not asked and answer
/// `cancel`, like the web element.
pub fn elicit_round(round: &InputRound, options: &Options) -> Result<RoundOutcome, ElicitError> {
    let total = round.elicitations.len();
    let mut endings = Vec::with_capacity(total);
    let mut cancelled = false;
    for (index, item) in round.elicitations.iter().enumerate() {
        if cancelled {
            endings.push((item.key.clone(), Ending::Cancel(CancelSource::User)));
            continue;
        }
        let mut asked_with = options.clone();
        asked_with.position = (total > 1).then_some((index + 1, total));
        let mut elicitation = Elicitation::open(&item.request, &asked_with)?;
        let ending = elicitation.ask()?;
        elicitation.report(&ending)?;
        elicitation.wait()?;
        cancelled = ending == Ending::Cancel(CancelSource::User);
        endings.push((item.key.clone(), ending));
    }
    Ok(RoundOutcome {
        endings,
        request_state: round.request_state.clone(),
    })
}

/// Answers a round without a terminal (`--answers`): `answers` maps each key to that form's
/// answers (a key left out keeps the form's defaults). `Err` lists every problem, each named by
/// its key.
pub fn answer_round(
    round: &InputRound,
    answers: &Value,
    messages: &Messages,
) -> Result<RoundOutcome, Vec<String>> {
    let Some(by_key) = answers.as_object() else {
        return Err(vec![
            messages.get("mcp-elicitation-terminal-error-answers_round")
        ]);
    };
    let mut errors: Vec<String> = by_key
        .keys()
        .filter(|key| !round.elicitations.iter().any(|item| &&item.key == key))
        .map(|key| {
            messages.with(
                "mcp-elicitation-terminal-error-unknown_key",
                &[("key", Arg::Text(key))],
            )
        })
        .collect();
    let no_answers = json!({});
    let mut endings = Vec::with_capacity(round.elicitations.len());
    for item in &round.elicitations {
        let given = by_key.get(&item.key).unwrap_or(&no_answers);
        match answer(&item.request, given, messages) {
            Ok(ending) => endings.push((item.key.clone(), ending)),
            Err(problems) => errors.extend(
                problems
                    .into_iter()
                    .map(|problem| format!("{}: {problem}", item.key)),
            ),
        }
    }
    if errors.is_empty() {
        Ok(RoundOutcome {
            endings,
            request_state: round.request_state.clone(),
        })
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koder_mcp_elicitation_core::i18n::Locale;

    fn round(value: Value) -> InputRound {
        match parse_input_text(&value.to_string(), &ParseOptions::default()).unwrap() {
            Input::Round(round) => round,
            Input::Request(_) => panic!("read as a request: {value}"),
        }
    }

    #[test]
    fn rounds_and_requests_are_told_apart() {
        let form = json!({"type": "object", "properties": {"n": {"type": "string"}}});
        let entry = json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": form}});
        for value in [
            json!({"resultType": "input_required", "inputRequests": {"a": entry}}),
            json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "input_required", "inputRequests": {"a": entry}}}),
            json!({"a": entry}),
        ] {
            assert_eq!(round(value).elicitations.len(), 1);
        }
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
            "params": {"message": "m", "requestedSchema": form}});
        assert!(matches!(
            parse_input_text(&request.to_string(), &ParseOptions::default()),
            Ok(Input::Request(_))
        ));
        let error = parse_input_text(
            &json!({"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}}).to_string(),
            &ParseOptions::default(),
        )
        .unwrap_err();
        assert_eq!(error.code, -32602);
        assert!(
            error.message.starts_with("inputRequests.k.params"),
            "{}",
            error.message
        );
    }

    #[test]
    fn answers_by_key_build_the_input_responses() {
        let form = |field: &str| {
            json!({"method": "elicitation/create", "params": {"message": "m",
            "requestedSchema": {"type": "object", "properties": {field: {"type": "string", "default": "d"}}}}})
        };
        let round = round(json!({"resultType": "input_required", "requestState": "s1",
            "inputRequests": {"one": form("a"), "two": form("b"),
                "roots": {"method": "roots/list", "params": {}}}}));
        let messages = Messages::new(Locale::EnUs);
        let outcome = answer_round(&round, &json!({"one": {"a": "x"}}), &messages).unwrap();
        assert_eq!(
            outcome.retry_params(),
            json!({"inputResponses": {"one": {"action": "accept", "content": {"a": "x"}},
                "two": {"action": "accept", "content": {"b": "d"}}}, "requestState": "s1"})
        );
        assert_eq!(
            answer_round(&round, &json!({"three": {}, "one": {"z": 1}}), &messages),
            Err(vec![
                "three matches no elicitation of this round".to_string(),
                "one: z matches no field of this form".to_string()
            ])
        );
    }
}
