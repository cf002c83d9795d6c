//! What a settled elicitation leaves behind for the person to read: the outcome ("Submitted",
//! "Declined", "Cancelled", "Timed out", "Opened <host>") and, for a submitted form, each field's
//! title with the value given. Built from the request and its ending only, so it never shows more
//! than the result carried: no field the content lacks, nothing the schema does not name. The web
//! component's inline presentation renders it; the terminal prints it.

use serde_json::Value;

use crate::i18n::{plain, text, Arg, Locale};
use crate::reply::Ending;
use crate::request::{Mode, Request};
use crate::schema::{Field, FieldKind};

/// The outcome line and, for a submitted form, its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// "Submitted", "Declined", "Cancelled", "Timed out", or "Opened <host>".
    pub outcome: String,
    pub rows: Vec<SummaryRow>,
}

/// One answered field: its title and the value given, as text. An array gives one entry per
/// item (shown as a list); anything else gives exactly one.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    pub label: String,
    pub values: Vec<String>,
    /// An array, shown as a list even with one item.
    pub list: bool,
}

/// The summary of `request` ended by `ending`, in `locale`. `host` is what "Opened { $host }"
/// names for URL mode: the URL's host, or a placeholder the caller swaps for an isolated one.
pub fn summarize(request: &Request, ending: &Ending, locale: Locale, host: &str) -> Summary {
    let mut rows = Vec::new();
    let outcome = match (ending, &request.mode) {
        (Ending::Accept(Some(content)), Mode::Form(schema)) => {
            // Plain loops rather than iterator chains: each chain's adapters would be compiled
            // into the element's wasm once more.
            for field in &schema.fields {
                if let Some(row) = row(field, content, locale) {
                    rows.push(row);
                }
            }
            plain(locale, "mcp-elicitation-summary-accept")
        }
        (Ending::Accept(_), _) => text(
            locale,
            "mcp-elicitation-summary-opened",
            &[("host", Arg::Text(host))],
        ),
        (Ending::Decline { reason }, _) => {
            if let Some(reason) = reason {
                rows.push(SummaryRow {
                    label: plain(locale, "mcp-elicitation-summary-reason"),
                    values: Vec::from([reason.clone()]),
                    list: false,
                });
            }
            plain(locale, "mcp-elicitation-summary-decline")
        }
        (Ending::Cancel(_), _) => plain(locale, "mcp-elicitation-summary-cancel"),
        (Ending::Timeout, _) => plain(locale, "mcp-elicitation-summary-timeout"),
    };
    Summary { outcome, rows }
}

/// What a question someone else answered leaves: "Answered by { $name }", with no rows (the
/// answer's content is not the person's to see). `name` is the answerer, or a placeholder the
/// caller swaps for an isolated one. The same words are announced when a modal closes so.
pub fn answered_by(locale: Locale, name: &str) -> Summary {
    Summary {
        outcome: text(
            locale,
            "mcp-elicitation-summary-answered_by",
            &[("name", Arg::Text(name))],
        ),
        rows: Vec::new(),
    }
}

/// A field's row, or `None` when the content does not hold it (left empty, or not asked).
fn row(field: &Field, content: &Value, locale: Locale) -> Option<SummaryRow> {
    let mut value = content;
    for name in &field.path {
        value = value.as_object()?.get(name)?;
    }
    let mut values = Vec::new();
    let list = matches!(value, Value::Array(_));
    match value {
        _ if field.secret => values.push(plain(locale, "mcp-elicitation-summary-hidden")),
        Value::Array(items) => {
            for item in items {
                values.push(value_text(field, item, locale));
            }
        }
        _ => values.push(value_text(field, value, locale)),
    }
    Some(SummaryRow {
        label: field.label.clone(),
        values,
        list: list && !field.secret,
    })
}

/// One value as the person reads it: yes/no, an option by its title, a number in the locale's
/// style, text as given.
fn value_text(field: &Field, value: &Value, locale: Locale) -> String {
    let options = match &field.kind {
        FieldKind::Choice { options } | FieldKind::MultiChoice { options, .. } => &options[..],
        _ => &[],
    };
    match value {
        Value::Bool(true) => plain(locale, "mcp-elicitation-summary-yes"),
        Value::Bool(false) => plain(locale, "mcp-elicitation-summary-no"),
        Value::Number(number) => text(
            locale,
            "mcp-elicitation-summary-number",
            &[("value", Arg::Number(number.as_f64().unwrap_or_default()))],
        ),
        Value::String(given) => {
            for option in options {
                if &option.value == given {
                    return option.label.clone();
                }
            }
            given.clone()
        }
        other => crate::json::write(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::CancelSource;
    use crate::request::{parse_request, ParseOptions};
    use serde_json::json;

    fn request(schema: Value) -> Request {
        parse_request(
            &json!({"message": "Book a table", "requestedSchema": schema}),
            &ParseOptions::default(),
        )
        .unwrap()
    }

    fn booking() -> Request {
        request(json!({"type": "object", "properties": {
            "name": {"type": "string", "title": "Your name"},
            "api_token": {"type": "string", "title": "API token"},
            "size": {"type": "integer", "title": "Party size"},
            "terrace": {"type": "boolean", "title": "Terrace"},
            "indoors": {"type": "boolean"},
            "time": {"type": "string", "title": "Time", "oneOf": [
                {"const": "19", "title": "7 pm"}, {"const": "21", "title": "9 pm"}]},
            "diet": {"type": "array", "title": "Diet", "items": {"anyOf": [
                {"const": "veg", "title": "Vegetarian"}, {"const": "gf", "title": "Gluten free"}]}},
            "notes": {"type": "string", "title": "Notes", "default": "none"},
            "weight": {"type": "number", "title": "Weight"}
        }}))
    }

    fn rows(summary: &Summary) -> Vec<(&str, Vec<&str>)> {
        summary
            .rows
            .iter()
            .map(|row| {
                (
                    row.label.as_str(),
                    row.values.iter().map(String::as_str).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_submitted_form_reads_by_title_with_secrets_masked() {
        let content = json!({"name": "Ana", "api_token": "sk-123", "size": 4,
            "terrace": true, "indoors": false, "time": "21", "diet": ["veg", "gf"],
            "weight": 1.5});
        let summary = summarize(&booking(), &Ending::Accept(Some(content)), Locale::EnUs, "");
        assert_eq!(summary.outcome, "Submitted");
        assert_eq!(
            rows(&summary),
            vec![
                ("Your name", vec!["Ana"]),
                ("API token", vec!["(hidden)"]),
                ("Party size", vec!["4"]),
                ("Terrace", vec!["yes"]),
                ("indoors", vec!["no"]),
                ("Time", vec!["9 pm"]),
                ("Diet", vec!["Vegetarian", "Gluten free"]),
                ("Weight", vec!["1.5"]),
            ]
        );
        assert!(summary
            .rows
            .iter()
            .all(|row| !row.values.contains(&"sk-123".to_string())));
        let diet = summary.rows.iter().find(|row| row.label == "Diet").unwrap();
        assert!(diet.list);
    }

    #[test]
    fn only_what_the_content_holds_is_shown() {
        // "notes" has a default the content does not carry, and "extra" is no field of the form:
        // neither appears.
        let content = json!({"name": "Ana", "extra": "hidden from the person"});
        let summary = summarize(&booking(), &Ending::Accept(Some(content)), Locale::EnUs, "");
        assert_eq!(rows(&summary), vec![("Your name", vec!["Ana"])]);
    }

    #[test]
    fn nested_fields_are_found_by_path() {
        let request = request(json!({"type": "object", "properties": {
            "address": {"type": "object", "properties": {"city": {"type": "string", "title": "City"}}}
        }}));
        let summary = summarize(
            &request,
            &Ending::Accept(Some(json!({"address": {"city": "Porto"}}))),
            Locale::EnUs,
            "",
        );
        assert_eq!(rows(&summary), vec![("City", vec!["Porto"])]);
    }

    #[test]
    fn other_endings_say_what_happened_in_the_locale() {
        let form = booking();
        let outcome = |ending: Ending, locale| summarize(&form, &ending, locale, "").outcome;
        assert_eq!(
            outcome(Ending::Decline { reason: None }, Locale::EnUs),
            "Declined"
        );
        assert_eq!(outcome(Ending::Timeout, Locale::EnUs), "Timed out");
        assert_eq!(
            outcome(Ending::Cancel(CancelSource::User), Locale::EnUs),
            "Cancelled"
        );
        assert_eq!(
            outcome(Ending::Decline { reason: None }, Locale::PtBr),
            "Recusado"
        );
        let declined = summarize(
            &form,
            &Ending::Decline {
                reason: Some("Not today".into()),
            },
            Locale::EnUs,
            "",
        );
        assert_eq!(rows(&declined), vec![("Reason", vec!["Not today"])]);
        let content = json!({"terrace": true, "weight": 1.5});
        let pt = summarize(&form, &Ending::Accept(Some(content)), Locale::PtBr, "");
        assert_eq!(pt.outcome, "Enviado");
        assert_eq!(
            rows(&pt),
            vec![("Terrace", vec!["sim"]), ("Weight", vec!["1,5"])]
        );
    }

    #[test]
    fn a_url_consent_names_the_host() {
        let url = parse_request(
            &json!({"mode": "url", "message": "Sign in", "url": "https://auth.example/x",
                "elicitationId": "e1"}),
            &ParseOptions::default(),
        )
        .unwrap();
        let summary = summarize(&url, &Ending::Accept(None), Locale::EnUs, "auth.example");
        assert!(summary.outcome.contains("Opened"), "{}", summary.outcome);
        assert!(summary.outcome.contains("auth.example"));
        assert!(summary.rows.is_empty());
    }

    #[test]
    fn answered_by_someone_else_names_them_in_each_language() {
        let en = answered_by(Locale::EnUs, "Ana");
        assert_eq!(en.outcome, "Answered by Ana");
        assert!(en.rows.is_empty());
        assert_eq!(
            answered_by(Locale::PtBr, "Ana").outcome,
            "Respondido por Ana"
        );
    }
}
