//! The read-only summary an inline element leaves where its card was once an elicitation settles:
//! the server, the question, the outcome and, for a submitted form, each field's title and value.
//! Every word comes from the core's `summarize`; every server or person's string goes in as text,
//! isolated in its own element.

use web_sys::{Document, Element};

use super::{append, create, create_part, set_attr, set_server_text, set_text_isolating};
use crate::i18n::Locale;
use crate::summary::Summary;

/// What a summary shows besides the core's lines.
pub struct SummaryTexts<'a> {
    pub server: &'a str,
    pub message: &'a str,
    /// The host "Opened { $host }" names (URL mode), isolated left to right.
    pub host: &'a str,
    /// Who else answered it ("Answered by { $name }"), isolated in its own direction.
    pub answerer: Option<&'a str>,
}

/// Builds the summary. `summary` was built with [`super::SLOT`] for the host. Focusable from script only
/// (`tabindex="-1"`), so focus that was in the card can land on what replaced it.
pub fn summary(
    document: &Document,
    locale: Locale,
    summary: &Summary,
    texts: &SummaryTexts,
) -> Element {
    let root = create_part(document, "section", "summary", None);
    set_attr(&root, "class", "card");
    set_attr(&root, "tabindex", "-1");
    set_attr(&root, "lang", &locale.tag());
    set_attr(&root, "dir", locale.direction().as_str());
    let server = create_part(document, "p", "server", None);
    super::frame::set_server_line(document, &server, locale, texts.server);
    let message = create_part(document, "p", "message", None);
    set_attr(&message, "dir", "auto");
    set_server_text(&message, texts.message);
    let outcome = create_part(document, "p", "summary-outcome", None);
    let (slot, dir) = match texts.answerer {
        Some(name) => (name, None),
        None => (texts.host, Some("ltr")),
    };
    set_text_isolating(document, &outcome, &summary.outcome, slot, dir);
    append(&root, &server);
    append(&root, &message);
    append(&root, &outcome);
    if !summary.rows.is_empty() {
        let list = create_part(document, "dl", "summary-list", None);
        for row in &summary.rows {
            let item = create_part(document, "div", "summary-row", None);
            let label = create_part(document, "dt", "summary-label", None);
            set_attr(&label, "dir", "auto");
            set_server_text(&label, &row.label);
            let value = create_part(document, "dd", "summary-value", None);
            if row.list {
                let items = create(document, "ul");
                for entry in &row.values {
                    let li = create(document, "li");
                    set_attr(&li, "dir", "auto");
                    set_server_text(&li, entry);
                    append(&items, &li);
                }
                append(&value, &items);
            } else {
                set_attr(&value, "dir", "auto");
                set_server_text(&value, row.values.first().map_or("", String::as_str));
            }
            append(&item, &label);
            append(&item, &value);
            append(&list, &item);
        }
        append(&root, &list);
    }
    root
}
