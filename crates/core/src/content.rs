//! `validateContent`: the form's own rules applied to content a client sent, with localized
//! messages. Servers can use it to re-validate what came back.

use serde_json::Value;

use crate::error::ElicitationError;
use crate::i18n::{process_wide, Catalog, Locale};
use crate::validate::Rules;

/// One broken rule: where (JSON Pointer), which keyword, and a localized message.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentError {
    pub path: String,
    pub keyword: &'static str,
    pub message: String,
}

/// Checks `content` against `schema` (any schema built from the supported keywords). An empty
/// list means valid; a malformed schema is an `ElicitationError` naming the keyword's path.
/// The messages come from the process-wide catalog (the shipped locales and what the web element
/// or the terminal registered).
pub fn validate_content(
    schema: &Value,
    content: &Value,
    locale: Locale,
) -> Result<Vec<ContentError>, ElicitationError> {
    validate_content_with(&process_wide(), schema, content, locale)
}

/// [`validate_content`] with the messages of `catalog` (a tenant's own, say).
pub fn validate_content_with(
    catalog: &Catalog,
    schema: &Value,
    content: &Value,
    locale: Locale,
) -> Result<Vec<ContentError>, ElicitationError> {
    let rules = Rules::compile(schema, "requestedSchema")?;
    Ok(rules
        .validate(content)
        .into_iter()
        .map(|violation| ContentError {
            path: violation.path,
            keyword: violation.kind.keyword(),
            message: catalog.violation_message(locale, &violation.kind),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn weather() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "temperature_unit": {"type": "string", "enum": ["C", "F"]}
            },
            "required": ["city"]
        })
    }

    #[test]
    fn valid_content_has_no_errors() {
        let content = json!({"city": "Lisbon", "temperature_unit": "C"});
        assert_eq!(
            validate_content(&weather(), &content, Locale::EnUs),
            Ok(vec![])
        );
    }

    #[test]
    fn errors_name_the_path_the_keyword_and_say_it_in_the_locale() {
        let content = json!({"city": "L", "temperature_unit": "K"});
        let errors = validate_content(&weather(), &content, Locale::PtBr).unwrap();
        assert_eq!(
            errors,
            vec![
                ContentError {
                    path: "/city".into(),
                    keyword: "minLength",
                    message: "Digite pelo menos 2 caracteres".into()
                },
                ContentError {
                    path: "/temperature_unit".into(),
                    keyword: "enum",
                    message: "Escolha uma das opções listadas".into()
                },
            ]
        );
        let missing = validate_content(&weather(), &json!({}), Locale::EnUs).unwrap();
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].keyword, "required");
        // The property's name is the server's, isolated (FSI … PDI).
        assert_eq!(missing[0].message, "\u{2068}city\u{2069} is required");
    }

    #[test]
    fn a_catalog_gives_its_own_messages_and_leaves_the_others_alone() {
        let mut tenant = Catalog::new();
        tenant
            .register_translation(
                "en-US",
                "mcp-elicitation-error-enum = Pick C or F, please\n",
            )
            .expect("registers");
        let content = json!({"city": "Lisbon", "temperature_unit": "K"});
        let theirs = validate_content_with(&tenant, &weather(), &content, Locale::EnUs).unwrap();
        assert_eq!(theirs[0].message, "Pick C or F, please");
        let others = validate_content_with(&Catalog::new(), &weather(), &content, Locale::EnUs);
        assert_eq!(
            others.unwrap()[0].message,
            "Choose one of the listed options"
        );
        let shared = validate_content(&weather(), &content, Locale::EnUs).unwrap();
        assert_eq!(shared[0].message, "Choose one of the listed options");
    }

    #[test]
    fn a_malformed_schema_is_an_invalid_params_error() {
        let schema =
            json!({"type": "object", "properties": {"age": {"type": "integer", "minimum": "3"}}});
        let err = validate_content(&schema, &json!({}), Locale::EnUs).unwrap_err();
        assert_eq!(err.code, -32602);
        assert_eq!(
            err.message,
            "requestedSchema.properties.age.minimum must be a number"
        );
    }

    #[test]
    fn any_schema_not_only_an_object_at_the_root() {
        let errors = validate_content(
            &json!({"type": "integer", "maximum": 3}),
            &json!(4),
            Locale::EnUs,
        )
        .unwrap();
        assert_eq!(errors[0].path, "");
        assert_eq!(errors[0].message, "Must be at most 3");
    }
}
