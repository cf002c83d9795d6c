//! What a host's translation must be (checked whole against the en-US messages before a catalog
//! stores anything, so a bad one changes nothing), and the rules a surface gives for registered
//! locales: plural categories and number formatting.

use super::{en_us, ftl, lookup, Key, Part};

/// A registered locale's messages, sorted by id (a plain sorted list: no map code in the wasm).
pub(super) type Messages = Vec<(String, Vec<Part>)>;

/// A CLDR plural category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluralCategory {
    Zero,
    One,
    Two,
    Few,
    Many,
    Other,
}

const CATEGORIES: [(PluralCategory, &str); 6] = [
    (PluralCategory::Zero, "zero"),
    (PluralCategory::One, "one"),
    (PluralCategory::Two, "two"),
    (PluralCategory::Few, "few"),
    (PluralCategory::Many, "many"),
    (PluralCategory::Other, "other"),
];

impl PluralCategory {
    /// The name a Fluent variant key uses (`one`, `few`…).
    pub fn name(self) -> &'static str {
        CATEGORIES
            .iter()
            .find(|(category, _)| *category == self)
            .map_or("other", |(_, name)| name)
    }

    /// The category of a name as `Intl.PluralRules.select` returns it.
    pub fn from_name(name: &str) -> Option<PluralCategory> {
        CATEGORIES
            .iter()
            .find(|(_, known)| *known == name)
            .map(|(category, _)| *category)
    }
}

/// How a surface formats for a catalog's registered locales (the shipped ones have their rules
/// built in).
/// Either function may answer `None` to take the default.
#[derive(Debug, Clone, Copy)]
pub struct LocaleRules {
    /// The plural category of `n` in the locale `tag` (the browser asks `Intl.PluralRules`).
    /// Default: English's rule (`one` for exactly 1, else `other`).
    pub plural: fn(tag: &str, n: f64) -> Option<PluralCategory>,
    /// `n` as the locale writes it (the browser asks `Intl.NumberFormat`). Default: the shortest
    /// decimal form with a `.`, as en-US shows it.
    pub number: fn(tag: &str, n: f64) -> Option<String>,
}

/// Why a registration was refused: every problem, each naming its message.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslationError {
    pub locale: String,
    pub problems: Vec<String>,
}

impl std::fmt::Display for TranslationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the translation for `{}` was not registered: ",
            self.locale
        )?;
        for (index, problem) in self.problems.iter().enumerate() {
            f.write_str(if index == 0 { "" } else { "; " })?;
            f.write_str(problem)?;
        }
        Ok(())
    }
}

/// `tag` normalized and the messages of `ftl`, when every message is valid: a known id, only the
/// variables the English message has, and plural variant keys.
pub(super) fn parse_translation(
    tag: &str,
    ftl: &str,
) -> Result<(String, Messages), TranslationError> {
    let refuse = |problems: Vec<String>| TranslationError {
        locale: tag.to_string(),
        problems,
    };
    let Some(normalized) = normalize_tag(tag) else {
        return Err(refuse(vec![
            "not a language tag (expected something like `es` or `de-CH`)".to_string(),
        ]));
    };
    let parsed = ftl::parse(ftl)
        .map_err(|errors| refuse(errors.iter().map(ToString::to_string).collect()))?;
    let messages = check(parsed).map_err(refuse)?;
    Ok((normalized, messages))
}

/// `es_mx` → `es-MX`, `ZH-hant-tw` → `zh-Hant-TW`; `None` for what is not a language tag.
pub fn normalize_tag(tag: &str) -> Option<String> {
    let mut out = String::new();
    for (position, subtag) in tag.trim().split(['-', '_']).enumerate() {
        let letters = subtag.bytes().all(|b| b.is_ascii_alphabetic());
        let valid = if position == 0 {
            (2..=8).contains(&subtag.len()) && letters
        } else {
            (1..=8).contains(&subtag.len()) && subtag.bytes().all(|b| b.is_ascii_alphanumeric())
        };
        if !valid {
            return None;
        }
        if position > 0 {
            out.push('-');
        }
        // Language lowercase, script titlecase (`Hant`), region uppercase (`MX`).
        for (index, ch) in subtag.chars().enumerate() {
            let upper =
                position > 0 && ((subtag.len() == 4 && letters && index == 0) || subtag.len() == 2);
            out.push(if upper {
                ch.to_ascii_uppercase()
            } else {
                ch.to_ascii_lowercase()
            });
        }
    }
    Some(out)
}

/// Checks parsed messages against the en-US ones; every problem names its message.
fn check(parsed: Vec<(String, Vec<Part>)>) -> Result<Messages, Vec<String>> {
    let mut problems = Vec::new();
    let mut messages = Messages::new();
    for (id, parts) in parsed {
        let Some(english) = lookup(en_us(), &id) else {
            problems.push(format!("message `{id}`: not a message of this component"));
            continue;
        };
        let known = variables(english);
        for var in variables(&parts) {
            if !known.contains(&var) {
                let mut takes = String::new();
                for name in &known {
                    takes.push_str(if takes.is_empty() { "$" } else { ", $" });
                    takes.push_str(name);
                }
                if takes.is_empty() {
                    takes.push_str("none");
                }
                problems.push(format!(
                    "message `{id}`: unknown variable `${var}` (it takes {takes})"
                ));
            }
        }
        let english_keys = key_names(english);
        for key in key_names(&parts) {
            if PluralCategory::from_name(key).is_none() && !english_keys.contains(&key) {
                problems.push(format!(
                    "message `{id}`: variant key [{key}] is not a plural category \
                     (zero, one, two, few, many, other)"
                ));
            }
        }
        match messages.binary_search_by(|(known, _)| known.cmp(&id)) {
            Ok(_) => problems.push(format!("message `{id}`: defined twice")),
            Err(position) => messages.insert(position, (id, parts)),
        }
    }
    if problems.is_empty() {
        Ok(messages)
    } else {
        Err(problems)
    }
}

/// The variables a pattern uses, selectors included, each once.
pub(super) fn variables(parts: &[Part]) -> Vec<&str> {
    let mut found = Vec::new();
    add_variables(parts, &mut found);
    found
}

fn add_variables<'a>(parts: &'a [Part], found: &mut Vec<&'a str>) {
    for part in parts {
        let (name, variants) = match part {
            Part::Text(_) => continue,
            Part::Var(name) => (name, None),
            Part::Select { var, variants, .. } => (var, Some(variants)),
        };
        if !found.contains(&name.as_ref()) {
            found.push(name);
        }
        for (_, value) in variants.into_iter().flat_map(|variants| variants.iter()) {
            add_variables(value, found);
        }
    }
}

/// The names of the variant keys a pattern uses, each once.
fn key_names(parts: &[Part]) -> Vec<&str> {
    let mut found = Vec::new();
    for part in parts {
        if let Part::Select { variants, .. } = part {
            for (key, value) in variants.iter() {
                if let Key::Name(name) = key {
                    if !found.contains(&name.as_ref()) {
                        found.push(name.as_ref());
                    }
                }
                for name in key_names(value) {
                    if !found.contains(&name) {
                        found.push(name);
                    }
                }
            }
        }
    }
    found
}
