//! A person's answer (an `ElicitResult`) checked against the request it answers, so every surface
//! and the relay decide alike: which actions exist, content only with `accept`, none in URL mode,
//! content within the form's rules, a `_meta.persist` only as the request offered it (§13), and
//! nothing but `action`, `content` and `_meta` kept.

use serde_json::{Map, Value};

use crate::content::{validate_content_with, ContentError};
use crate::error::ElicitationError;
use crate::i18n::{Catalog, Locale};
use crate::one_tap::chosen_persist;
use crate::request::{parse_request, requested_schema, Mode, ParseOptions, Request};

/// Why an answer cannot be kept.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerError {
    /// Malformed for the request (the -32602 shape, naming the member).
    Invalid(ElicitationError),
    /// Content breaking the form's rules, each worded in the asked locale.
    Content(Vec<ContentError>),
}

/// Re-reads a request as it was stored (an object the core accepted before, in any protocol).
pub fn stored_request(stored: &Value) -> Result<Request, ElicitationError> {
    parse_request(
        stored,
        &ParseOptions {
            strict: false,
            local_id: String::new(),
        },
    )
}

/// Checks a person's `ElicitResult` against `stored` (the request as sent, in any protocol) and
/// returns what to keep: `{"action"}` or `{"action","content"}`, with the answer's `_meta` when
/// it has one (a `persist` in it only on an accept, naming a scope the request offered); other
/// members dropped. Content errors are worded in `locale` of `catalog`.
pub fn check_answer(
    answer: &Value,
    stored: &Value,
    catalog: &Catalog,
    locale: Locale,
) -> Result<Value, AnswerError> {
    let invalid =
        |path: &str, problem: &str| AnswerError::Invalid(ElicitationError::invalid(path, problem));
    let object = answer
        .as_object()
        .ok_or_else(|| invalid("result", "must be an ElicitResult object"))?;
    let action = match object.get("action") {
        Some(Value::String(action))
            if action == "accept" || action == "decline" || action == "cancel" =>
        {
            action.as_str()
        }
        Some(_) => {
            return Err(invalid(
                "action",
                "must be \"accept\", \"decline\" or \"cancel\"",
            ))
        }
        None => return Err(invalid("action", "is required")),
    };
    let content = match object.get("content") {
        None => None,
        Some(Value::Object(content)) => Some(content),
        Some(_) => return Err(invalid("content", "must be an object")),
    };
    if action != "accept" && content.is_some() {
        return Err(AnswerError::Invalid(ElicitationError::invalid(
            "content",
            format!("is only allowed with \"accept\", not \"{action}\""),
        )));
    }
    let meta = match object.get("_meta") {
        None | Some(Value::Null) => None,
        Some(Value::Object(meta)) => Some(meta),
        Some(_) => return Err(invalid("_meta", "must be an object")),
    };
    let persist = meta.and_then(|meta| meta.get("persist"));
    if action != "accept" && persist.is_some() {
        return Err(invalid("_meta.persist", "is only allowed with \"accept\""));
    }
    if action == "accept" {
        check_accepted(content, stored, catalog, locale)?;
        if persist.is_some() {
            let offered = stored_request(stored)
                .map(|request| request.persist)
                .unwrap_or_default();
            chosen_persist(meta.map(|_| &object["_meta"]), &offered)
                .map_err(|problem| invalid("_meta.persist", &problem))?;
        }
    }
    let mut kept = Map::new();
    kept.insert("action".into(), Value::String(action.to_string()));
    if let Some(content) = content {
        kept.insert("content".into(), Value::Object(content.clone()));
    }
    if let Some(meta) = meta {
        kept.insert("_meta".into(), Value::Object(meta.clone()));
    }
    Ok(Value::Object(kept))
}

/// An accept's content against the stored request's mode and form.
fn check_accepted(
    content: Option<&Map<String, Value>>,
    stored: &Value,
    catalog: &Catalog,
    locale: Locale,
) -> Result<(), AnswerError> {
    let request = stored_request(stored).map_err(AnswerError::Invalid)?;
    match &request.mode {
        Mode::Url(_) if content.is_some() => Err(AnswerError::Invalid(ElicitationError::invalid(
            "content",
            "is not allowed for a URL-mode elicitation",
        ))),
        Mode::Url(_) => Ok(()),
        Mode::Form(_) => {
            let schema = requested_schema(stored, &request.protocol).ok_or_else(|| {
                AnswerError::Invalid(ElicitationError::invalid("requestedSchema", "is required"))
            })?;
            // No content counts as an empty form: required fields are then missing.
            let given = Value::Object(content.cloned().unwrap_or_default());
            let errors = validate_content_with(catalog, schema, &given, locale)
                .map_err(AnswerError::Invalid)?;
            if errors.is_empty() {
                Ok(())
            } else {
                Err(AnswerError::Content(errors))
            }
        }
    }
}

/// Whether a stored request is URL mode (only those complete); an unreadable one is not.
pub fn is_url_mode(stored: &Value) -> bool {
    matches!(
        stored_request(stored).map(|request| request.mode),
        Ok(Mode::Url(_))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(answer: &Value, stored: &Value) -> Result<Value, AnswerError> {
        check_answer(answer, stored, &Catalog::new(), Locale::EnUs)
    }

    /// The -32602 message of an answer refused as malformed.
    fn refusal(answer: &Value, stored: &Value) -> String {
        match check(answer, stored) {
            Err(AnswerError::Invalid(error)) => {
                assert_eq!(error.code, -32602);
                error.message
            }
            other => panic!("{answer}: expected a refusal, got {other:?}"),
        }
    }

    fn city_schema() -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string", "minLength": 2}},
            "required": ["city"]})
    }

    fn form() -> Value {
        json!({"message": "City?", "requestedSchema": city_schema()})
    }

    fn url() -> Value {
        json!({"mode": "url", "message": "Sign in", "url": "https://example.com"})
    }

    /// The form request in each protocol it can be stored in.
    fn forms() -> [Value; 3] {
        [
            form(),
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": form()}),
            json!({"type": "elicitation/request", "id": "e", "schema": city_schema()}),
        ]
    }

    #[test]
    fn every_action_is_kept_alone() {
        for stored in forms().iter().chain([&url()]) {
            for action in ["decline", "cancel"] {
                assert_eq!(
                    check(&json!({ "action": action }), stored),
                    Ok(json!({ "action": action })),
                    "{stored}"
                );
            }
        }
        assert_eq!(
            check(&json!({"action": "accept"}), &url()),
            Ok(json!({"action": "accept"}))
        );
    }

    #[test]
    fn only_the_three_actions_exist() {
        let actions = "action must be \"accept\", \"decline\" or \"cancel\"";
        for action in [
            json!("maybe"),
            json!("Accept"),
            json!("reject"),
            json!(""),
            json!(1),
            json!(null),
            json!(["accept"]),
        ] {
            assert_eq!(refusal(&json!({ "action": action }), &form()), actions);
        }
        assert_eq!(refusal(&json!({}), &form()), "action is required");
        assert_eq!(
            refusal(&json!({"content": {"city": "Lisbon"}}), &form()),
            "action is required"
        );
        for answer in [json!([1]), json!("accept"), json!(null), json!(3)] {
            assert_eq!(
                refusal(&answer, &form()),
                "result must be an ElicitResult object"
            );
        }
    }

    #[test]
    fn content_only_with_accept_and_only_an_object() {
        for action in ["decline", "cancel"] {
            for stored in [form(), url()] {
                assert_eq!(
                    refusal(&json!({"action": action, "content": {}}), &stored),
                    format!("content is only allowed with \"accept\", not \"{action}\"")
                );
            }
        }
        for content in [json!([1]), json!("Lisbon"), json!(null), json!(2)] {
            for action in ["accept", "decline"] {
                assert_eq!(
                    refusal(&json!({"action": action, "content": content}), &form()),
                    "content must be an object"
                );
            }
        }
    }

    #[test]
    fn accepted_content_meets_the_form_in_every_protocol() {
        for stored in forms() {
            assert_eq!(
                check(
                    &json!({"action": "accept", "content": {"city": "Lisbon"}}),
                    &stored
                ),
                Ok(json!({"action": "accept", "content": {"city": "Lisbon"}})),
                "{stored}"
            );
            let Err(AnswerError::Content(errors)) = check(
                &json!({"action": "accept", "content": {"city": "L"}}),
                &stored,
            ) else {
                panic!("{stored}: expected content errors");
            };
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].path, "/city");
            assert_eq!(errors[0].keyword, "minLength");
            // No content is an empty form: its required field is missing.
            let Err(AnswerError::Content(errors)) = check(&json!({"action": "accept"}), &stored)
            else {
                panic!("{stored}: expected the required field missing");
            };
            assert_eq!(errors[0].keyword, "required");
            assert_eq!(errors[0].message, "\u{2068}city\u{2069} is required");
        }
    }

    #[test]
    fn content_errors_speak_the_locale_and_the_catalog() {
        let answer = json!({"action": "accept", "content": {"city": "L"}});
        let Err(AnswerError::Content(errors)) =
            check_answer(&answer, &form(), &Catalog::new(), Locale::PtBr)
        else {
            panic!("expected content errors");
        };
        assert_eq!(errors[0].message, "Digite pelo menos 2 caracteres");
        let mut tenant = Catalog::new();
        tenant
            .register_translation(
                "en-US",
                "mcp-elicitation-error-min_length = Longer, please\n",
            )
            .unwrap();
        let Err(AnswerError::Content(errors)) =
            check_answer(&answer, &form(), &tenant, Locale::EnUs)
        else {
            panic!("expected content errors");
        };
        assert_eq!(errors[0].message, "Longer, please");
    }

    #[test]
    fn url_mode_takes_no_content() {
        let rpc =
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": url()});
        let envelope = json!({"type": "elicitation/request", "id": "e", "mode": "url",
            "url": "https://example.com"});
        for stored in [url(), rpc, envelope] {
            assert_eq!(
                check(&json!({"action": "accept"}), &stored),
                Ok(json!({"action": "accept"}))
            );
            for content in [json!({}), json!({"city": "Lisbon"})] {
                assert_eq!(
                    refusal(&json!({"action": "accept", "content": content}), &stored),
                    "content is not allowed for a URL-mode elicitation"
                );
            }
        }
    }

    #[test]
    fn members_besides_action_content_and_meta_are_dropped() {
        let extras = json!({"x": 1, "action2": "cancel"});
        let mut answer = json!({"action": "accept", "content": {"city": "Lisbon"}});
        let mut declined = json!({"action": "decline"});
        for (key, value) in extras.as_object().unwrap() {
            answer[key] = value.clone();
            declined[key] = value.clone();
        }
        assert_eq!(
            check(&answer, &form()),
            Ok(json!({"action": "accept", "content": {"city": "Lisbon"}}))
        );
        assert_eq!(check(&declined, &form()), Ok(json!({"action": "decline"})));
        declined["action"] = json!("accept");
        assert_eq!(check(&declined, &url()), Ok(json!({"action": "accept"})));
    }

    #[test]
    fn meta_is_kept_and_persist_only_as_offered() {
        let stored = json!({"message": "Run `ls`?", "_meta": {"persist": ["session"]},
            "requestedSchema": {"type": "object", "properties": {}}});
        let remembered = json!({"action": "accept", "content": {},
            "_meta": {"persist": "session", "trace": "t"}});
        assert_eq!(check(&remembered, &stored), Ok(remembered.clone()));
        assert_eq!(
            check(
                &json!({"action": "decline", "_meta": {"trace": "t"}}),
                &stored
            ),
            Ok(json!({"action": "decline", "_meta": {"trace": "t"}}))
        );
        assert_eq!(
            refusal(
                &json!({"action": "accept", "content": {}, "_meta": {"persist": "always"}}),
                &stored
            ),
            "_meta.persist \"always\" was not offered by the request"
        );
        assert_eq!(
            refusal(
                &json!({"action": "decline", "_meta": {"persist": "session"}}),
                &stored
            ),
            "_meta.persist is only allowed with \"accept\""
        );
        assert_eq!(
            refusal(
                &json!({"action": "accept", "content": {}, "_meta": 1}),
                &stored
            ),
            "_meta must be an object"
        );
        let city = json!({"action": "accept", "content": {"city": "Lisbon"},
            "_meta": {"persist": "session"}});
        assert!(refusal(&city, &form()).contains("was not offered"));
    }

    #[test]
    fn an_unreadable_stored_request_refuses_an_accept_only() {
        // Declining needs nothing of the request; accepting must know its mode and form.
        let unreadable = json!({"message": "no schema"});
        assert_eq!(
            check(&json!({"action": "cancel"}), &unreadable),
            Ok(json!({"action": "cancel"}))
        );
        assert_eq!(
            refusal(&json!({"action": "accept"}), &unreadable),
            "requestedSchema is required"
        );
        assert!(matches!(
            check(&json!({"action": "accept"}), &json!(3)),
            Err(AnswerError::Invalid(_))
        ));
    }

    #[test]
    fn url_mode_is_told_apart_in_every_protocol() {
        assert!(is_url_mode(&url()));
        assert!(is_url_mode(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": url()})
        ));
        assert!(is_url_mode(
            &json!({"type": "elicitation/request", "id": "e",
            "mode": "url", "url": "https://example.com"})
        ));
        for stored in forms() {
            assert!(!is_url_mode(&stored), "{stored}");
        }
        for unreadable in [json!(null), json!({"mode": "url"}), json!("text")] {
            assert!(!is_url_mode(&unreadable), "{unreadable}");
        }
    }
}
