//! The words the terminal shows: the core's compiled Fluent messages (the very ids the web dialog
//! uses) in one locale. Every string goes through a [`Messages`], so messages registered at run
//! time (a later `--messages FILE.ftl`) only need an override table here.

use koder_mcp_elicitation_core::form::Problem;
use koder_mcp_elicitation_core::i18n::{plain, problem_message, text, Arg, Locale};

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

    /// The web dialog's text for a field problem.
    pub fn problem(&self, problem: &Problem) -> String {
        problem_message(self.locale, problem)
    }
}
