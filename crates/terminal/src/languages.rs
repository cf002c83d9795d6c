//! Languages beyond the shipped two: `--messages FILE.ftl` registers a translation with the core
//! (the same Fluent subset and checks as the web element's `registerTranslation`), and the CLDR
//! plural rules here stand in for the browser's `Intl.PluralRules`.

use intl_pluralrules::{PluralCategory as Cldr, PluralRuleType, PluralRules};
use koder_mcp_elicitation_core::i18n::{
    normalize_tag, register_translation, set_locale_rules, Locale, LocaleRules, PluralCategory,
};
use unic_langid::LanguageIdentifier;

/// Registers the messages in `ftl` under `tag` and returns the locale to ask in. The error names
/// the file and every problem the core found; nothing is registered then.
pub fn register_file(tag: &str, path: &str, ftl: &str) -> Result<Locale, String> {
    set_locale_rules(LocaleRules {
        plural: cldr_plural,
        number: |_, _| None,
    });
    let tag = normalize_tag(tag).ok_or_else(|| format!("{path}: {tag} is not a language tag"))?;
    register_translation(&tag, ftl).map_err(|error| format!("{path}: {error}"))
}

/// The languages the environment asks for, most specific first (`LC_ALL`, `LC_MESSAGES`,
/// `LANG`), as set: `es_ES.UTF-8`; unset, empty, `C` and `POSIX` are left out.
pub fn env_languages() -> Vec<String> {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .filter(|value| !value.is_empty() && value != "C" && value != "POSIX")
        .collect()
}

/// The environment's language as a language tag: `es_ES.UTF-8` → `es-ES`.
pub fn tag_from_env() -> Option<String> {
    env_languages()
        .iter()
        .filter_map(|value| value.split(['.', '@']).next())
        .find_map(normalize_tag)
}

/// The CLDR cardinal category of `n` in `tag`'s language, or `None` where CLDR has no rules.
fn cldr_plural(tag: &str, n: f64) -> Option<PluralCategory> {
    let language: LanguageIdentifier = tag.parse().ok()?;
    let rules = PluralRules::create(language, PluralRuleType::CARDINAL).ok()?;
    let category = rules.select(n).ok()?;
    Some(match category {
        Cldr::ZERO => PluralCategory::Zero,
        Cldr::ONE => PluralCategory::One,
        Cldr::TWO => PluralCategory::Two,
        Cldr::FEW => PluralCategory::Few,
        Cldr::MANY => PluralCategory::Many,
        Cldr::OTHER => PluralCategory::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polish_and_arabic_plurals_follow_cldr() {
        assert_eq!(cldr_plural("pl", 1.0), Some(PluralCategory::One));
        assert_eq!(cldr_plural("pl", 3.0), Some(PluralCategory::Few));
        assert_eq!(cldr_plural("pl", 5.0), Some(PluralCategory::Many));
        assert_eq!(cldr_plural("ar", 0.0), Some(PluralCategory::Zero));
        assert_eq!(cldr_plural("ar", 2.0), Some(PluralCategory::Two));
        assert_eq!(cldr_plural("en", 1.0), Some(PluralCategory::One));
        assert_eq!(cldr_plural("not a tag", 1.0), None);
    }
}
