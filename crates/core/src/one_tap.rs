//! One-tap shapes and "remember" (contract §13), decided once for every surface: which requests
//! can be answered with a single button, which buttons (in which order, with which result), which
//! of them a push may carry as actions, and which persistence scopes a request's `_meta.persist`
//! offers.
//!
//! The order of [`OneTap::choices`] is the contract's: it numbers the e-mail's choice links
//! (`c=<n>`), so the relay and the answer page agree on what `c=1` means.

use serde_json::{Map, Value};

use crate::i18n::Locale;
use crate::json::object;
use crate::request::{Mode, Request};
use crate::schema::{FieldKind, Item};

/// The most options a single select may have and still be answered with one tap.
pub const MAX_ONE_TAP_OPTIONS: usize = 4;
/// The most actions a push notification carries (what browsers show reliably).
pub const MAX_PUSH_ACTIONS: usize = 2;

/// A persistence scope a request offers and an answer may choose (`_meta.persist`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persist {
    /// "Allow for this session".
    Session,
    /// "Always allow".
    Always,
}

impl Persist {
    /// Every scope, in the order they are offered.
    pub const ALL: [Persist; 2] = [Persist::Session, Persist::Always];

    /// The wire name: `"session"` or `"always"`.
    pub fn name(self) -> &'static str {
        match self {
            Persist::Session => "session",
            Persist::Always => "always",
        }
    }

    /// The scope named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Persist> {
        // A match, not a search of `ALL`: the element's wasm carries this one.
        match name {
            "session" => Some(Persist::Session),
            "always" => Some(Persist::Always),
            _ => None,
        }
    }

    /// The message id of the one-tap button that accepts with this scope.
    pub fn button_message(self) -> &'static str {
        match self {
            Persist::Session => "mcp-elicitation-persist-session",
            Persist::Always => "mcp-elicitation-persist-always",
        }
    }

    /// The message id of this scope's entry in a form's "Remember" control.
    pub fn remember_message(self) -> &'static str {
        match self {
            Persist::Session => "mcp-elicitation-remember-session",
            Persist::Always => "mcp-elicitation-remember-always",
        }
    }

    /// Adds `_meta.persist` naming this scope to an `ElicitResult`, keeping any other `_meta`.
    pub fn mark(self, result: &mut Value) {
        let Some(result) = result.as_object_mut() else {
            return;
        };
        let meta = result
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Some(meta) = meta.as_object_mut() {
            meta.insert("persist".into(), self.name().into());
        }
    }
}

/// The scopes a request's `_meta` offers (`persist`: a scope name or a list of them), in the
/// order of [`Persist::ALL`], each once. Anything else offers nothing: `_meta` is the server's
/// free-form data, never a reason to refuse a request.
pub fn offered_persist(meta: Option<&Value>) -> Vec<Persist> {
    let named: Vec<&str> = match meta.and_then(|meta| meta.get("persist")) {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    Persist::ALL
        .into_iter()
        .filter(|scope| named.contains(&scope.name()))
        .collect()
}

/// The scope an answer's `_meta.persist` chose, when it is one `offered`; `Err` naming the
/// problem when it names something else (a scope the request did not offer, or not a scope).
pub fn chosen_persist(
    result_meta: Option<&Value>,
    offered: &[Persist],
) -> Result<Option<Persist>, String> {
    match result_meta.and_then(|meta| meta.get("persist")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => match Persist::from_name(name) {
            Some(scope) if offered.contains(&scope) => Ok(Some(scope)),
            Some(_) => Err(format!("\"{name}\" was not offered by the request")),
            None => Err("must be \"session\" or \"always\"".into()),
        },
        Some(_) => Err("must be a string".into()),
    }
}

/// What a one-tap button says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TapLabel {
    /// "Accept" (a question with no properties).
    Accept,
    /// "Yes" (a boolean's `true`).
    Yes,
    /// "No" (a boolean's `false`).
    No,
    /// An enum option's title (else its value): the server's words.
    Option(String),
    /// "Reject" (declines).
    Reject,
}

impl TapLabel {
    /// The message id of a label the element words itself (`None` for an option's own title).
    pub fn message(&self) -> Option<&'static str> {
        match self {
            TapLabel::Accept => Some("mcp-elicitation-one_tap-accept"),
            TapLabel::Yes => Some("mcp-elicitation-one_tap-yes"),
            TapLabel::No => Some("mcp-elicitation-one_tap-no"),
            TapLabel::Reject => Some("mcp-elicitation-action-reject"),
            TapLabel::Option(_) => None,
        }
    }
}

/// One button of a one-tap question.
#[derive(Debug, Clone, PartialEq)]
pub struct TapChoice {
    pub label: TapLabel,
    /// The `ElicitResult` this button settles (`accept` with content, or `decline`).
    pub result: Value,
}

impl TapChoice {
    /// The button's words in `locale`: the shipped message, or the option's own title (not
    /// isolated: a caller that mixes it into its own text isolates it).
    pub fn title(&self, locale: Locale) -> String {
        match (&self.label, self.label.message()) {
            (TapLabel::Option(title), _) => title.clone(),
            (_, Some(id)) => crate::i18n::plain(locale, id),
            (_, None) => String::new(),
        }
    }

    /// Whether it accepts (first focus never lands on such a button).
    pub fn accepts(&self) -> bool {
        self.result.get("action").and_then(Value::as_str) == Some("accept")
    }
}

/// A request that can be answered with one tap.
#[derive(Debug, Clone, PartialEq)]
pub struct OneTap {
    /// The property's title, else its description, shown as the question (`None` with no
    /// properties: the request's message is the question).
    pub question: Option<String>,
    /// The buttons, in the contract's order; the last is always Reject.
    pub choices: Vec<TapChoice>,
    /// How many of the first `choices` a push carries as its actions (0 when it carries none).
    pub push_actions: usize,
}

/// The one-tap shape of `request`, if it has one: a form whose schema has no properties, exactly
/// one boolean property, or exactly one single select of 2 to [`MAX_ONE_TAP_OPTIONS`] options.
pub fn one_tap(request: &Request) -> Option<OneTap> {
    let Mode::Form(form) = &request.mode else {
        return None;
    };
    // Plain loops and pushes rather than iterator chains and `vec!`s: each would be compiled into
    // the element's wasm once more.
    let mut choices = Vec::new();
    let mut question = None;
    match (form.layout.as_slice(), form.fields.as_slice()) {
        ([], []) => choices.push(accepting(TapLabel::Accept, Map::new())),
        ([Item::Field(_)], [field]) => {
            let mut answer = |label: TapLabel, value: Value| {
                let mut content = Map::new();
                content.insert(field.name.clone(), value);
                choices.push(accepting(label, content));
            };
            match &field.kind {
                FieldKind::Toggle => {
                    answer(TapLabel::Yes, Value::Bool(true));
                    answer(TapLabel::No, Value::Bool(false));
                }
                FieldKind::Choice { options }
                    if (2..=MAX_ONE_TAP_OPTIONS).contains(&options.len()) =>
                {
                    for option in options {
                        answer(
                            TapLabel::Option(option.label.clone()),
                            Value::String(option.value.clone()),
                        );
                    }
                }
                _ => return None,
            }
            question = Some(if field.label != field.name {
                field.label.clone()
            } else {
                field
                    .description
                    .clone()
                    .unwrap_or_else(|| field.label.clone())
            });
        }
        _ => return None,
    }
    let push_actions = match choices.len() {
        // No properties: Accept and Reject.
        1 => 2,
        accepting if accepting <= MAX_PUSH_ACTIONS => accepting,
        _ => 0,
    };
    choices.push(TapChoice {
        label: TapLabel::Reject,
        result: object([("action", "decline".into())]),
    });
    Some(OneTap {
        question,
        choices,
        push_actions,
    })
}

fn accepting(label: TapLabel, content: Map<String, Value>) -> TapChoice {
    TapChoice {
        label,
        result: object([
            ("action", "accept".into()),
            ("content", Value::Object(content)),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{parse_request, ParseOptions};
    use serde_json::json;

    fn shape(properties: Value) -> Option<OneTap> {
        let request = json!({
            "message": "Deploy?",
            "requestedSchema": { "type": "object", "properties": properties }
        });
        one_tap(&parse_request(&request, &ParseOptions::default()).unwrap())
    }

    fn results(tap: &OneTap) -> Vec<Value> {
        tap.choices
            .iter()
            .map(|choice| choice.result.clone())
            .collect()
    }

    #[test]
    fn no_properties_is_accept_or_reject() {
        let tap = shape(json!({})).unwrap();
        assert_eq!(tap.question, None);
        assert_eq!(
            results(&tap),
            [
                json!({"action": "accept", "content": {}}),
                json!({"action": "decline"})
            ]
        );
        assert_eq!(tap.push_actions, 2);
        assert!(tap.choices[0].accepts() && !tap.choices[1].accepts());
        assert_eq!(tap.choices[0].title(Locale::EnUs), "Accept");
        assert_eq!(tap.choices[1].title(Locale::PtBr), "Recusar");
    }

    #[test]
    fn a_boolean_is_yes_no_or_reject() {
        let tap =
            shape(json!({"go": {"type": "boolean", "title": "Deploy to production?"}})).unwrap();
        assert_eq!(tap.question.as_deref(), Some("Deploy to production?"));
        assert_eq!(
            tap.choices
                .iter()
                .map(|c| c.label.clone())
                .collect::<Vec<_>>(),
            [TapLabel::Yes, TapLabel::No, TapLabel::Reject]
        );
        assert_eq!(
            results(&tap),
            [
                json!({"action": "accept", "content": {"go": true}}),
                json!({"action": "accept", "content": {"go": false}}),
                json!({"action": "decline"})
            ]
        );
        assert_eq!(tap.push_actions, 2);
    }

    #[test]
    fn an_enum_of_two_to_four_is_one_button_each() {
        let tap = shape(json!({"env": {
            "type": "string",
            "description": "Where to?",
            "oneOf": [{"const": "s", "title": "Staging"}, {"const": "p", "title": "Production"}]
        }}))
        .unwrap();
        assert_eq!(tap.question.as_deref(), Some("Where to?"));
        assert_eq!(tap.choices[1].label, TapLabel::Option("Production".into()));
        assert_eq!(
            tap.choices[1].result,
            json!({"action": "accept", "content": {"env": "p"}})
        );
        assert_eq!(tap.push_actions, 2);
        let three = shape(json!({"size": {"type": "string", "enum": ["s", "m", "l"]}})).unwrap();
        assert_eq!(three.choices.len(), 4);
        assert_eq!(
            three.push_actions, 0,
            "a push carries no actions past two choices"
        );
        assert_eq!(three.question.as_deref(), Some("size"));
    }

    #[test]
    fn other_shapes_are_forms() {
        for properties in [
            json!({"name": {"type": "string"}}),
            json!({"a": {"type": "boolean"}, "b": {"type": "boolean"}}),
            json!({"one": {"type": "string", "enum": ["only"]}}),
            json!({"five": {"type": "string", "enum": ["1", "2", "3", "4", "5"]}}),
            json!({"many": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}),
            json!({"nested": {"type": "object", "properties": {"b": {"type": "boolean"}}}}),
        ] {
            assert_eq!(shape(properties.clone()), None, "{properties}");
        }
        let url = json!({"mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e"});
        assert_eq!(
            one_tap(&parse_request(&url, &ParseOptions::default()).unwrap()),
            None
        );
    }

    #[test]
    fn persist_offers_known_scopes_only() {
        assert_eq!(offered_persist(None), []);
        assert_eq!(
            offered_persist(Some(&json!({"persist": "always"}))),
            [Persist::Always]
        );
        assert_eq!(
            offered_persist(Some(&json!({"persist": ["always", "session", "x", 3]}))),
            [Persist::Session, Persist::Always]
        );
        assert_eq!(offered_persist(Some(&json!({"persist": 1}))), []);
        assert_eq!(offered_persist(Some(&json!("persist"))), []);
    }

    #[test]
    fn an_answer_chooses_an_offered_scope_only() {
        let offered = [Persist::Session];
        assert_eq!(chosen_persist(None, &offered), Ok(None));
        assert_eq!(
            chosen_persist(Some(&json!({"persist": "session"})), &offered),
            Ok(Some(Persist::Session))
        );
        assert!(chosen_persist(Some(&json!({"persist": "always"})), &offered).is_err());
        assert!(chosen_persist(Some(&json!({"persist": "forever"})), &offered).is_err());
        assert!(chosen_persist(Some(&json!({"persist": ["session"]})), &offered).is_err());
    }

    #[test]
    fn marking_keeps_other_meta() {
        let mut result = json!({"action": "accept", "content": {}, "_meta": {"trace": "t"}});
        Persist::Always.mark(&mut result);
        assert_eq!(result["_meta"], json!({"trace": "t", "persist": "always"}));
        let mut bare = json!({"action": "accept"});
        Persist::Session.mark(&mut bare);
        assert_eq!(bare["_meta"], json!({"persist": "session"}));
    }
}
