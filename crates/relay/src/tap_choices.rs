//! A stored request's one-tap choices (contract §13), as the answer page and an e-mail show them:
//! the core alone decides whether a request is a one-tap shape and what each choice answers
//! ([`one_tap`]); here they are worded in a language, and numbered for an e-mail's choice links
//! (`<link>&c=<n>`, `n` the index in the core's order, Reject last).

use koder_elicitation_relay_protocol::{LinkChoice, LinkOneTap};
use koder_mcp_elicitation_core::answer::stored_request;
use koder_mcp_elicitation_core::i18n::Locale;
use koder_mcp_elicitation_core::one_tap::one_tap;
use serde_json::Value;

/// The choices of `stored` (a request as the relay keeps it), worded in `locale`, and its
/// question (a property's title or description); `None` when it is not a one-tap shape (or,
/// which the relay's checks rule out, does not parse).
pub fn tap_choices(stored: &Value, locale: Locale) -> Option<LinkOneTap> {
    let request = stored_request(stored).ok()?;
    let shape = one_tap(&request)?;
    // A property with neither title nor description is named by its key ("ok"): words for a
    // program, not for the person, who reads the message instead.
    let field_name = shape.choices.first().and_then(|choice| {
        choice
            .result
            .get("content")?
            .as_object()?
            .keys()
            .next()
            .cloned()
    });
    let question = shape
        .question
        .filter(|question| Some(question) != field_name.as_ref());
    Some(LinkOneTap {
        message: request.message,
        question,
        choices: shape
            .choices
            .into_iter()
            .map(|choice| LinkChoice {
                title: choice.title(locale),
                result: choice.result,
            })
            .collect(),
    })
}

/// The link that opens `link` (`<public-url>/answer/#t=<token>`) with choice `index` selected.
pub fn choice_link(link: &str, index: usize) -> String {
    format!("{link}&c={index}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn titles(stored: &Value, locale: Locale) -> Option<Vec<String>> {
        tap_choices(stored, locale).map(|tap| tap.choices.into_iter().map(|c| c.title).collect())
    }

    #[test]
    fn one_tap_shapes_get_their_choices_in_order_and_others_none() {
        let boolean = json!({"message": "Deploy?", "requestedSchema": {"type": "object",
            "properties": {"ok": {"type": "boolean", "title": "Deploy now"}}}});
        assert_eq!(
            titles(&boolean, Locale::EnUs),
            Some(vec!["Yes".into(), "No".into(), "Reject".into()])
        );
        let tap = tap_choices(&boolean, Locale::PtBr).unwrap();
        assert_eq!(tap.message, "Deploy?");
        assert_eq!(tap.question.as_deref(), Some("Deploy now"));
        assert_eq!(tap.choices[0].title, "Sim");
        assert_eq!(
            tap.choices[1].result,
            json!({"action": "accept", "content": {"ok": false}})
        );
        assert_eq!(tap.choices[2].result, json!({"action": "decline"}));

        let select = json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create",
            "params": {"message": "Where?", "requestedSchema": {"type": "object", "properties": {
                "env": {"type": "string", "oneOf": [{"const": "stg", "title": "Staging"},
                    {"const": "prd", "title": "Production"}, {"const": "dev", "title": "Dev"}]}}}}});
        assert_eq!(
            titles(&select, Locale::EnUs),
            Some(vec![
                "Staging".into(),
                "Production".into(),
                "Dev".into(),
                "Reject".into()
            ])
        );
        let empty =
            json!({"message": "Go?", "requestedSchema": {"type": "object", "properties": {}}});
        let tap = tap_choices(&empty, Locale::EnUs).unwrap();
        assert_eq!(tap.question, None);
        assert_eq!(
            tap.choices[0].result,
            json!({"action": "accept", "content": {}})
        );

        let untitled = json!({"message": "Deploy?", "requestedSchema": {"type": "object",
            "properties": {"ok": {"type": "boolean"}}}});
        assert_eq!(tap_choices(&untitled, Locale::EnUs).unwrap().question, None);
        let described = json!({"message": "Deploy?", "requestedSchema": {"type": "object",
            "properties": {"ok": {"type": "boolean", "description": "Ship it"}}}});
        assert_eq!(
            tap_choices(&described, Locale::EnUs)
                .unwrap()
                .question
                .as_deref(),
            Some("Ship it")
        );

        let text = json!({"message": "City?", "requestedSchema": {"type": "object",
            "properties": {"city": {"type": "string"}}}});
        assert_eq!(tap_choices(&text, Locale::EnUs), None);
        assert_eq!(tap_choices(&json!("not a request"), Locale::EnUs), None);
        assert_eq!(
            choice_link("https://relay.example.com/answer/#t=abc", 2),
            "https://relay.example.com/answer/#t=abc&c=2"
        );
    }
}
