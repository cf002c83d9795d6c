//! The words the terminal shows: the core's compiled Fluent messages (the very ids the web dialog
//! uses) in one locale. Every string goes through a [`Messages`], so messages registered at run
//! time (a later `--messages FILE.ftl`) only need an override table here.

use koder_mcp_elicitation_core::form::Problem;
use koder_mcp_elicitation_core::i18n::{plain, problem_message, text, Arg, Locale};
use koder_mcp_elicitation_core::validate::ViolationKind;

use crate::term::sanitize;

/// Messages in one locale.
#[derive(Debug, Clone)]
pub struct Messages {
    locale: Locale,
}

impl Messages {
    /// The shipped messages of `locale` (missing ones fall back to en-US in the core).
    pub fn new(locale: Locale) -> Self {
        Messages { locale }
    }

    /// The locale in force.
    pub fn locale(&self) -> Locale {
        self.locale
    }

    /// A message without arguments.
    pub fn get(&self, id: &str) -> String {
        plain(self.locale, id)
    }

    /// A message with arguments.
    pub fn with(&self, id: &str, args: &[(&str, Arg)]) -> String {
        text(self.locale, id, args)
    }

    /// The web dialog's text for a field problem. The core isolates a server's property name in
    /// it (FSI … PDI), which a terminal cannot: the name's own controls are shown as U+FFFD, as
    /// everywhere in the terminal, and the isolate's marks are left out.
    pub fn problem(&self, problem: &Problem) -> String {
        match problem {
            Problem::Rule(ViolationKind::Required { property }) => {
                let shown = Problem::Rule(ViolationKind::Required {
                    property: sanitize(property),
                });
                problem_message(self.locale, &shown).replace(['\u{2068}', '\u{2069}'], "")
            }
            _ => problem_message(self.locale, problem),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_name_in_a_problem_is_shown_without_bidi_controls() {
        let required = |property: &str| {
            Messages::new(Locale::EnUs).problem(&Problem::Rule(ViolationKind::Required {
                property: property.into(),
            }))
        };
        assert_eq!(required("city"), "city is required");
        assert_eq!(
            required("\u{202E}ci\u{1b}[2Jty"),
            "\u{FFFD}ci\u{FFFD}[2Jty is required"
        );
        assert_eq!(
            Messages::new(Locale::PtBr).problem(&Problem::Required),
            "Obrigatório"
        );
    }
}
