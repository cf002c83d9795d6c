//! Every visible or announced string, from the Fluent files in `i18n/<locale>/`. `build.rs` checks
//! them with the Fluent parser at build time and embeds each locale's text without comments (see
//! `i18n/compile.rs`); `ftl.rs`, a small parser for the subset they use, reads a locale into
//! [`Part`]s the first time it is needed, and this module formats those, so the binary carries no
//! Fluent runtime. A host may register more languages, or override shipped messages, at run time,
//! through the same parser, in a [`Catalog`] it owns (a server holds one per tenant) or in the
//! process-wide one the free functions here use ([`register_translation`], [`text`]…), which the
//! web element and the terminal share.
//! A message missing in a locale falls back to the nearest locale that has it, then `en-US`,
//! never to its id.

use std::sync::OnceLock;

use crate::form::Problem;
use crate::validate::ViolationKind;

mod catalog;
#[cfg(test)]
mod compile;
mod direction;
mod ftl;
mod registry;
mod template;

pub(crate) use catalog::process_wide;
pub use catalog::Catalog;
pub use direction::{close_bidi_controls, is_bidi_control, isolate, Direction};
pub use ftl::FtlError;
pub use registry::{normalize_tag, LocaleRules, PluralCategory, TranslationError};
pub use template::template;

/// A locale: one the component ships, or one a host registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Locale {
    EnUs,
    PtBr,
    /// Added with [`Catalog::register_translation`] (or [`register_translation`]).
    Registered(RegisteredLocale),
}

/// A handle on a locale registered in one catalog (it stays valid there: registrations are never
/// removed). Every other catalog reads it as en-US.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegisteredLocale(
    // The catalog's id (low 24 bits) above the registration's index (8 bits): one `u32` keeps a
    // `Locale` a pair of scalars, passed in registers in the wasm rather than through memory.
    u32,
);

impl RegisteredLocale {
    fn new(catalog: u32, index: usize) -> RegisteredLocale {
        // The index is below MAX_REGISTERED_LOCALES (64).
        RegisteredLocale(catalog << 8 | (index as u32 & 0xff))
    }

    fn catalog(self) -> u32 {
        self.0 >> 8
    }

    fn index(self) -> usize {
        (self.0 & 0xff) as usize
    }
}

/// The locales the component ships.
pub const LOCALES: [Locale; 2] = [Locale::EnUs, Locale::PtBr];

impl Locale {
    /// The BCP 47 tag in the process-wide catalog (normalized, for a registered locale: `es-MX`);
    /// a locale of an owned catalog has its tag from [`Catalog::tag`].
    pub fn tag(self) -> String {
        process_wide().tag(self).to_string()
    }

    /// A shipped locale's tag.
    fn shipped_tag(self) -> Option<&'static str> {
        match self {
            Locale::EnUs => Some("en-US"),
            Locale::PtBr => Some("pt-BR"),
            Locale::Registered(_) => None,
        }
    }

    /// The direction its text runs in, in the process-wide catalog (see [`Catalog::direction`]).
    pub fn direction(self) -> Direction {
        process_wide().direction(self)
    }

    /// The shipped locale with exactly this tag (any case, `-` or `_`).
    fn shipped(tag: &str) -> Option<Locale> {
        LOCALES.into_iter().find(|locale| {
            locale
                .shipped_tag()
                .is_some_and(|known| same_tag(known, tag))
        })
    }

    /// The locale for a language tag in the process-wide catalog (see [`Catalog::locale`]).
    pub fn from_tag(tag: &str) -> Option<Locale> {
        process_wide().locale(tag)
    }

    /// The first candidate that matches a locale of the process-wide catalog (`lang`, ancestor
    /// `lang`, `navigator.languages`…; see [`Catalog::locale`]), else `en-US`.
    pub fn negotiate<'a>(candidates: impl IntoIterator<Item = &'a str>) -> Locale {
        process_wide().negotiate(candidates)
    }

    #[cfg(test)]
    fn source(self) -> &'static str {
        match self {
            Locale::EnUs => concat!(
                include_str!("../../../i18n/en-US/elicitation.ftl"),
                include_str!("../../../i18n/en-US/relay.ftl")
            ),
            Locale::PtBr => concat!(
                include_str!("../../../i18n/pt-BR/elicitation.ftl"),
                include_str!("../../../i18n/pt-BR/relay.ftl")
            ),
            Locale::Registered(_) => "",
        }
    }

    /// The shipped messages, for a shipped locale.
    fn table(self) -> Option<Table> {
        match self {
            Locale::EnUs => Some(en_us()),
            Locale::PtBr => Some(pt_br()),
            Locale::Registered(_) => None,
        }
    }
}

fn same_tag(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(a, b)| {
            a.eq_ignore_ascii_case(&b) || (matches!(a, b'-' | b'_') && matches!(b, b'-' | b'_'))
        })
}

/// The language subtag (`pt` of `pt-BR`), lowercase.
fn language(tag: &str) -> String {
    tag.trim()
        .split(['-', '_'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// `tag` itself, then `tag` without its last subtag, and so on down to the language.
fn truncations(tag: &str) -> impl Iterator<Item = &str> {
    let tag = tag.trim();
    std::iter::successors(Some(tag), |tag| {
        tag.rfind(['-', '_']).and_then(|end| tag.get(..end))
    })
}

fn nearest(tag: &str, available: &[(&str, Locale)]) -> Option<Locale> {
    let find = |wanted: &str| {
        available
            .iter()
            .find(|(known, _)| same_tag(known, wanted))
            .map(|(_, locale)| *locale)
    };
    let lang = language(tag);
    if lang.is_empty() {
        return None;
    }
    truncations(tag).find_map(find).or_else(|| {
        available
            .iter()
            .find(|(known, _)| language(known) == lang)
            .map(|(_, locale)| *locale)
    })
}

/// A Fluent argument.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    Text(&'a str),
    Number(f64),
}

/// Text in a pattern.
type Str = String;

/// One piece of a compiled Fluent pattern.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(Str),
    /// `{ $name }`
    Var(Str),
    /// `{ $var -> [key] … *[default] … }`: the first variant whose key matches, else `default`.
    Select {
        var: Str,
        variants: Vec<(Key, Vec<Part>)>,
        default: usize,
    },
}

/// A variant key.
#[derive(Debug, Clone, PartialEq)]
enum Key {
    /// A plural category (`one`, `other`…) for a number; compared as is with a text.
    Name(Str),
    /// An exact whole number (`[0]`, `[1]`). No shipped file has one.
    Number(f64),
}

/// A locale's messages, sorted by id.
type Table = &'static [(String, Vec<Part>)];

// `static EN_US_FTL: &str` and `static PT_BR_FTL: &str`, generated by build.rs.
include!(concat!(env!("OUT_DIR"), "/i18n_shipped.rs"));

fn en_us() -> Table {
    static MESSAGES: OnceLock<Vec<(String, Vec<Part>)>> = OnceLock::new();
    MESSAGES.get_or_init(|| shipped(EN_US_FTL))
}

fn pt_br() -> Table {
    static MESSAGES: OnceLock<Vec<(String, Vec<Part>)>> = OnceLock::new();
    MESSAGES.get_or_init(|| shipped(PT_BR_FTL))
}

/// A shipped locale's messages, sorted by id. build.rs compiled the same text with the Fluent
/// parser, and a test checks that this parser reads it the same; were it ever refused, the
/// locale's messages would fall back to en-US's (and en-US's to their ids), never panic.
fn shipped(source: &str) -> Vec<(String, Vec<Part>)> {
    let mut messages = ftl::parse(source).unwrap_or_default();
    crate::sort::sort_by_less(&mut messages, |a, b| a.0 < b.0);
    messages
}

/// Where a locale's messages come from: its shipped table, or a host's registration.
enum Source<'a> {
    Shipped(Table),
    Registered(&'a registry::Messages),
}

impl Source<'_> {
    fn get(&self, id: &str) -> Option<&[Part]> {
        match self {
            Source::Shipped(table) => lookup(table, id),
            Source::Registered(messages) => lookup(messages, id),
        }
    }
}

/// How one locale of a fallback chain writes plurals and numbers: the shipped ones by their
/// built-in rules, a registered one by its catalog's [`LocaleRules`] for its tag.
#[derive(Clone, Copy)]
struct Style<'a> {
    locale: Locale,
    tag: &'a str,
    rules: Option<LocaleRules>,
}

fn lookup<'a>(table: &'a [(String, Vec<Part>)], id: &str) -> Option<&'a [Part]> {
    table
        .binary_search_by(|(key, _)| key.as_str().cmp(id))
        .ok()
        .and_then(|index| table.get(index))
        .map(|(_, parts)| parts.as_slice())
}

/// The CLDR cardinal plural category of `n` (en: `one: i = 1 and v = 0`; pt: `one: i = 0..1`),
/// with the operands taken from the number as it is displayed, like fluent-rs did.
/// A registered locale asks its catalog's rules ([`Catalog::set_locale_rules`]), else English's
/// (`one` for exactly 1).
fn plural_category(style: Style, n: f64) -> &'static str {
    // `as` truncates toward zero and saturates (NaN → 0), as fluent-rs's operands did.
    let i = n.abs() as u64;
    let one = match style.locale {
        Locale::EnUs => i == 1 && n.fract() == 0.0,
        Locale::PtBr => i <= 1,
        Locale::Registered(_) => {
            let category = style.rules.and_then(|rules| (rules.plural)(style.tag, n));
            return category.map_or_else(
                || if n == 1.0 { "one" } else { "other" },
                PluralCategory::name,
            );
        }
    };
    if one {
        "one"
    } else {
        "other"
    }
}

/// A number as fluent-rs displayed it (`f64`'s Display): the shortest form that reads back as the
/// same number, never an exponent, no grouping; pt-BR takes a decimal comma ("0,5"). Avoids
/// `format!("{}", f64)`, whose float printing would add kilobytes to the wasm: integers print as
/// `i64`, other numbers through serde_json's shortest-form float printer (already in the binary).
/// A registered locale asks its catalog's rules ([`Catalog::set_locale_rules`]) first.
fn display_number(style: Style, n: f64) -> String {
    if let (Locale::Registered(_), Some(rules)) = (style.locale, style.rules) {
        if let Some(text) = (rules.number)(style.tag, n) {
            return text;
        }
    }
    let mut text = if n.is_nan() {
        "NaN".to_string()
    } else if n.is_infinite() {
        if n < 0.0 { "-inf" } else { "inf" }.to_string()
    } else if n == 0.0 && n.is_sign_negative() {
        "-0".to_string()
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        (n as i64).to_string()
    } else {
        format_float(n)
    };
    if style.locale == Locale::PtBr {
        text = text.replace('.', ",");
    }
    text
}

/// A finite, non-integer or large `n` through serde_json, written out without an exponent.
fn format_float(n: f64) -> String {
    let Some(printed) = serde_json::Number::from_f64(n).map(|number| number.to_string()) else {
        return String::new();
    };
    // serde_json writes `-1.2345e-7`, `1e21` or `3.25`: take its significant digits and scale.
    let unsigned = printed.trim_start_matches('-');
    let (mantissa, exponent) = unsigned.split_once('e').unwrap_or((unsigned, "0"));
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut scale = exponent.parse::<i32>().unwrap_or(0) - fraction.len() as i32;
    let mut digits = whole
        .bytes()
        .chain(fraction.bytes())
        .fold(0u64, |acc, digit| acc * 10 + u64::from(digit - b'0'));
    while digits != 0 && digits % 10 == 0 {
        digits /= 10;
        scale += 1;
    }
    // On an exact tie between two shortest candidates serde_json keeps the even one, Display the
    // larger: `3263909606309.28125` is `…309.2812` in serde_json and `…309.2813` in Display.
    if exact_decimal(n) == digits.checked_mul(10).map(|d| (d + 5, scale - 1)) {
        digits += 1;
    }
    let digits = digits.to_string();
    let point = digits.len() as i32 + scale;
    let mut out = String::from(if n < 0.0 { "-" } else { "" });
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else if point as usize >= digits.len() {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else if let Some((integer, decimals)) = digits.split_at_checked(point as usize) {
        out.push_str(integer);
        out.push('.');
        out.push_str(decimals);
    }
    out
}

/// `|n|` exactly as `significand × 10^scale`, for a non-integer whose significand fits in a `u64`
/// (the only numbers where a tie between two shortest forms can happen).
fn exact_decimal(n: f64) -> Option<(u64, i32)> {
    let bits = n.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mut mantissa, mut exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if mantissa == 0 {
        return None;
    }
    let zeros = mantissa.trailing_zeros();
    mantissa >>= zeros;
    exponent += zeros as i32;
    if exponent >= 0 {
        return None;
    }
    // m / 2^k = m × 5^k / 10^k
    let mut significand = mantissa;
    for _ in 0..-exponent {
        significand = significand.checked_mul(5)?;
    }
    Some((significand, exponent))
}

/// Writes `parts` into `out`; false when an argument was missing (its `{$name}` is written instead).
fn write_parts(style: Style, parts: &[Part], args: &[(&str, Arg)], out: &mut String) -> bool {
    // The last argument of a name wins, as with FluentArgs.
    let arg = |name: &str| {
        args.iter()
            .rev()
            .find(|(arg, _)| *arg == name)
            .map(|(_, value)| *value)
    };
    let mut clean = true;
    for part in parts {
        match part {
            Part::Text(text) => out.push_str(text),
            Part::Var(name) => match arg(name) {
                Some(Arg::Text(text)) => out.push_str(text),
                Some(Arg::Number(n)) => out.push_str(&display_number(style, n)),
                None => {
                    clean = false;
                    out.push_str("{$");
                    out.push_str(name);
                    out.push('}');
                }
            },
            Part::Select {
                var,
                variants,
                default,
            } => {
                let selector = arg(var);
                clean &= selector.is_some();
                let chosen = variants
                    .iter()
                    .find(|(key, _)| match (key, selector) {
                        (Key::Name(name), Some(Arg::Text(text))) => name == text,
                        (Key::Name(name), Some(Arg::Number(n))) => {
                            name == plural_category(style, n)
                        }
                        (Key::Number(key), Some(Arg::Number(n))) => *key == n,
                        _ => false,
                    })
                    .or_else(|| variants.get(*default))
                    .map_or(&[][..], |(_, parts)| parts.as_ref());
                clean &= write_parts(style, chosen, args, out);
            }
        }
    }
    clean
}

/// Formats `id` from the first table that has it and formats it cleanly; failing that (a
/// missing argument, say), the first table's best effort. `None` only when no table has `id`.
fn format_chain(chain: &[(Style, Source)], id: &str, args: &[(&str, Arg)]) -> Option<String> {
    let mut best_effort = None;
    for (style, source) in chain {
        let Some(parts) = source.get(id) else {
            continue;
        };
        let mut text = String::new();
        if write_parts(*style, parts, args, &mut text) {
            return Some(text);
        }
        best_effort.get_or_insert(text);
    }
    best_effort
}

/// Registers a language in the process-wide catalog (see [`Catalog::register_translation`]).
pub fn register_translation(tag: &str, ftl: &str) -> Result<Locale, TranslationError> {
    catalog::process_wide_mut().register_translation(tag, ftl)
}

/// Registers a language in the process-wide catalog, its direction given or its script's (see
/// [`Catalog::register_translation_with_direction`]).
pub fn register_translation_with_direction(
    tag: &str,
    ftl: &str,
    direction: Option<Direction>,
) -> Result<Locale, TranslationError> {
    catalog::process_wide_mut().register_translation_with_direction(tag, ftl, direction)
}

/// Sets the rules for the process-wide catalog's registered locales (the last call wins).
pub fn set_locale_rules(rules: LocaleRules) {
    catalog::process_wide_mut().set_locale_rules(rules);
}

// These read a copy of the process-wide catalog. Not inlined: at every call site the copy's
// drop would add code to the wasm.

/// Whether a locale's own messages (shipped or registered) have this one (no fallback).
#[inline(never)]
pub fn has_message(locale: Locale, id: &str) -> bool {
    process_wide().has_message(locale, id)
}

/// The message `id` in `locale` with `args`, falling back to the nearest locale, then `en-US`.
#[inline(never)]
pub fn text(locale: Locale, id: &str, args: &[(&str, Arg)]) -> String {
    process_wide().text(locale, id, args)
}

/// A shorthand for messages without arguments.
#[inline(never)]
pub fn plain(locale: Locale, id: &str) -> String {
    process_wide().plain(locale, id)
}

/// The localized message for a rule the value breaks. A server string in it (a property's name)
/// is isolated (FSI … PDI, see [`isolate`]).
#[inline(never)]
pub fn violation_message(locale: Locale, kind: &ViolationKind) -> String {
    process_wide().violation_message(locale, kind)
}

/// The localized message for a field problem.
#[inline(never)]
pub fn problem_message(locale: Locale, problem: &Problem) -> String {
    process_wide().problem_message(locale, problem)
}

impl Catalog {
    /// The localized message for a rule the value breaks.
    pub fn violation_message(&self, locale: Locale, kind: &ViolationKind) -> String {
        let limit = |id: &str, limit: f64| self.text(locale, id, &[("limit", Arg::Number(limit))]);
        match kind {
            ViolationKind::Type { expected } => self.text(
                locale,
                "mcp-elicitation-error-type",
                &[(
                    "expected",
                    Arg::Text(&crate::strings::join(expected, " | ")),
                )],
            ),
            // The property's name is the server's: isolated, it takes its own direction and
            // cannot reorder the message, wherever the message is shown (a page, a 422's JSON).
            ViolationKind::Required { property } => self.text(
                locale,
                "mcp-elicitation-error-required_property",
                &[("property", Arg::Text(&isolate(property)))],
            ),
            ViolationKind::MinLength { limit: n } => {
                limit("mcp-elicitation-error-min_length", *n as f64)
            }
            ViolationKind::MaxLength { limit: n } => {
                limit("mcp-elicitation-error-max_length", *n as f64)
            }
            ViolationKind::Pattern { .. } => self.plain(locale, "mcp-elicitation-error-pattern"),
            ViolationKind::Format { format } => match format.as_str() {
                "email" => self.plain(locale, "mcp-elicitation-error-format-email"),
                "uri" => self.plain(locale, "mcp-elicitation-error-format-uri"),
                "date" => self.plain(locale, "mcp-elicitation-error-format-date"),
                "date-time" => self.plain(locale, "mcp-elicitation-error-format-date_time"),
                other => self.text(
                    locale,
                    "mcp-elicitation-error-format-other",
                    &[("format", Arg::Text(other))],
                ),
            },
            ViolationKind::Minimum { limit: n } => limit("mcp-elicitation-error-minimum", *n),
            ViolationKind::Maximum { limit: n } => limit("mcp-elicitation-error-maximum", *n),
            ViolationKind::ExclusiveMinimum { limit: n } => {
                limit("mcp-elicitation-error-exclusive_minimum", *n)
            }
            ViolationKind::ExclusiveMaximum { limit: n } => {
                limit("mcp-elicitation-error-exclusive_maximum", *n)
            }
            ViolationKind::Enum => self.plain(locale, "mcp-elicitation-error-enum"),
            ViolationKind::Const => self.plain(locale, "mcp-elicitation-error-const"),
            ViolationKind::MinItems { limit: n } => {
                limit("mcp-elicitation-error-min_items", *n as f64)
            }
            ViolationKind::MaxItems { limit: n } => {
                limit("mcp-elicitation-error-max_items", *n as f64)
            }
            ViolationKind::UniqueItems => self.plain(locale, "mcp-elicitation-error-unique_items"),
        }
    }

    /// The localized message for a field problem.
    pub fn problem_message(&self, locale: Locale, problem: &Problem) -> String {
        match problem {
            Problem::Required => self.plain(locale, "mcp-elicitation-field_required"),
            Problem::NotANumber => self.plain(locale, "mcp-elicitation-error-not_a_number"),
            Problem::NotAnInteger => self.plain(locale, "mcp-elicitation-error-not_an_integer"),
            Problem::NotADateTime => self.plain(locale, "mcp-elicitation-error-not_a_date_time"),
            Problem::Rule(kind) => self.violation_message(locale, kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The style of a shipped locale, as a fallback chain gives it.
    fn built_in(locale: Locale) -> Style<'static> {
        Style {
            locale,
            tag: "",
            rules: None,
        }
    }

    fn ids(locale: Locale) -> Vec<String> {
        locale
            .source()
            .lines()
            .filter_map(|line| line.split_once(" = ").map(|(id, _)| id.trim().to_string()))
            .filter(|id| id.starts_with("mcp-elicitation-"))
            .collect()
    }

    /// Whether this build carries the message `id`: the terminal's and the relay's own ship only
    /// with the `terminal` and `relay` features.
    fn is_compiled_in(id: &str) -> bool {
        (cfg!(feature = "terminal") || !id.starts_with("mcp-elicitation-terminal-"))
            && (cfg!(feature = "relay") || !id.starts_with("mcp-elicitation-relay-"))
    }

    #[test]
    fn the_relay_messages_ship_only_with_the_relay_feature() {
        let subject = "mcp-elicitation-relay-email-subject";
        assert_eq!(has_message(Locale::PtBr, subject), cfg!(feature = "relay"));
        if cfg!(feature = "relay") {
            let args = [("server", Arg::Text("Calendário"))];
            let text = text(Locale::PtBr, subject, &args);
            assert_eq!(text, "Calendário precisa da sua resposta");
        }
    }

    #[test]
    fn both_files_parse_and_have_the_same_messages() {
        for locale in LOCALES {
            assert!(
                fluent_syntax::parser::parse(locale.source()).is_ok(),
                "{locale:?} parses"
            );
        }
        let mut en = ids(Locale::EnUs);
        let mut pt = ids(Locale::PtBr);
        en.sort();
        pt.sort();
        assert_eq!(en, pt);
        for id in &en {
            if is_compiled_in(id) {
                assert!(has_message(Locale::PtBr, id), "{id}");
            }
        }
    }

    #[test]
    fn the_spec_keys_have_the_spec_texts() {
        let en = |id| plain(Locale::EnUs, id);
        let pt = |id| plain(Locale::PtBr, id);
        assert_eq!(en("mcp-elicitation-action-accept"), "Submit");
        assert_eq!(pt("mcp-elicitation-action-accept"), "Enviar");
        assert_eq!(en("mcp-elicitation-action-reject"), "Reject");
        assert_eq!(pt("mcp-elicitation-action-reject"), "Recusar");
        assert_eq!(en("mcp-elicitation-action-cancel"), "Cancel");
        assert_eq!(pt("mcp-elicitation-action-cancel"), "Cancelar");
        assert_eq!(
            en("mcp-elicitation-url_mode-opening"),
            "Opening external page"
        );
        assert_eq!(
            pt("mcp-elicitation-url_mode-opening"),
            "Abrindo página externa"
        );
        assert_eq!(en("mcp-elicitation-field_required"), "Required");
        assert_eq!(pt("mcp-elicitation-field_required"), "Obrigatório");
        let seconds = [("seconds", Arg::Number(5.0))];
        assert_eq!(
            text(Locale::EnUs, "mcp-elicitation-timeout_warning", &seconds),
            "Closing in 5s"
        );
        assert_eq!(
            text(Locale::PtBr, "mcp-elicitation-timeout_warning", &seconds),
            "Fechando em 5s"
        );
    }

    #[test]
    fn plurals_follow_the_number() {
        let one = [("seconds", Arg::Number(1.0))];
        let many = [("seconds", Arg::Number(10.0))];
        assert_eq!(
            text(Locale::EnUs, "mcp-elicitation-timeout-announce", &one),
            "This request closes in 1 second."
        );
        assert_eq!(
            text(Locale::EnUs, "mcp-elicitation-timeout-announce", &many),
            "This request closes in 10 seconds."
        );
        assert_eq!(
            text(Locale::PtBr, "mcp-elicitation-timeout-announce", &one),
            "Este pedido fecha em 1 segundo."
        );
        assert_eq!(
            violation_message(Locale::EnUs, &ViolationKind::MinLength { limit: 1 }),
            "Enter at least 1 character"
        );
        assert_eq!(
            violation_message(Locale::PtBr, &ViolationKind::MinItems { limit: 2 }),
            "Escolha pelo menos 2 itens"
        );
    }

    #[test]
    fn unknown_ids_fall_back_to_english_then_never_crash() {
        assert_eq!(text(Locale::PtBr, "does-not-exist", &[]), "does-not-exist");
    }

    #[test]
    fn a_message_missing_in_a_locale_falls_back_to_english_not_to_its_id() {
        let one = |id: &str, text: &str| (id.to_string(), vec![Part::Text(text.to_string())]);
        let pt: Table = Vec::leak(vec![one("only-pt", "Só em português")]);
        let en: Table = Vec::leak(vec![
            one("only-en", "Only in English"),
            one("only-pt", "Only in Portuguese"),
        ]);
        let chain = [
            (built_in(Locale::PtBr), Source::Shipped(pt)),
            (built_in(Locale::EnUs), Source::Shipped(en)),
        ];
        assert_eq!(
            format_chain(&chain, "only-en", &[]).as_deref(),
            Some("Only in English")
        );
        assert_eq!(
            format_chain(&chain, "only-pt", &[]).as_deref(),
            Some("Só em português")
        );
        assert_eq!(format_chain(&chain, "nowhere", &[]), None);
    }

    #[test]
    fn numbers_print_as_fluent_rs_printed_them() {
        // fluent-rs printed `f64`'s Display; the formatter must agree without using it.
        let mut samples = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1.5,
            10.0,
            1000.5,
            0.1,
            0.3,
            1.0 / 3.0,
            2.0 / 3.0,
            1e-5,
            1e-6,
            1.5e-7,
            123.456,
            1e15,
            1e16,
            1e17,
            1e18,
            1e21,
            1.2345678901234567e20,
            9007199254740993.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -1e-300,
            4.35,
            0.000123,
        ];
        // And a spread of bit patterns (a fixed LCG, so the test is repeatable).
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            samples.push(f64::from_bits(state));
            samples.push((state >> 11) as f64 / 1024.0);
        }
        for n in samples {
            let expected = n.to_string();
            assert_eq!(display_number(built_in(Locale::EnUs), n), expected, "{n:e}");
            assert_eq!(
                display_number(built_in(Locale::PtBr), n),
                expected.replace('.', ","),
                "{n:e}"
            );
        }
        assert_eq!(display_number(built_in(Locale::PtBr), 1234.5), "1234,5");
        assert_eq!(display_number(built_in(Locale::EnUs), f64::NAN), "NaN");
        assert_eq!(
            display_number(built_in(Locale::EnUs), f64::NEG_INFINITY),
            "-inf"
        );
    }

    #[test]
    fn plural_categories_follow_cldr() {
        use Locale::{EnUs, PtBr};
        for (n, en, pt) in [
            (0.0, "other", "one"),
            (1.0, "one", "one"),
            (-1.0, "one", "one"),
            (0.5, "other", "one"),
            (1.5, "other", "one"),
            (2.0, "other", "other"),
            (10.0, "other", "other"),
            (1e21, "other", "other"),
        ] {
            assert_eq!(plural_category(built_in(EnUs), n), en, "en {n}");
            assert_eq!(plural_category(built_in(PtBr), n), pt, "pt {n}");
        }
    }

    #[test]
    fn selects_take_the_first_matching_variant_else_the_default() {
        let text = |text: &str| vec![Part::Text(text.to_string())];
        let select = [Part::Select {
            var: "n".to_string(),
            variants: vec![
                (Key::Number(0.0), text("none")),
                (Key::Name("one".to_string()), text("one")),
                (Key::Number(1.0), text("exactly one")),
                (
                    Key::Name("other".to_string()),
                    vec![
                        Part::Var("n".to_string()),
                        Part::Text(" others".to_string()),
                    ],
                ),
            ],
            default: 3,
        }];
        let format = |locale, args: &[(&str, Arg)]| {
            let mut out = String::new();
            let clean = write_parts(built_in(locale), &select, args, &mut out);
            (out, clean)
        };
        let n = |n| [("n", Arg::Number(n))];
        assert_eq!(format(Locale::EnUs, &n(0.0)), ("none".into(), true));
        // In source order, as in fluent-rs: `[one]` comes before `[1]` here.
        assert_eq!(format(Locale::EnUs, &n(1.0)), ("one".into(), true));
        assert_eq!(format(Locale::EnUs, &n(2.5)), ("2.5 others".into(), true));
        assert_eq!(format(Locale::PtBr, &n(0.5)), ("one".into(), true));
        assert_eq!(format(Locale::PtBr, &n(2.5)), ("2,5 others".into(), true));
        // A text is compared with the names as is; the last argument of a name wins.
        let text = [("n", Arg::Number(7.0)), ("n", Arg::Text("one"))];
        assert_eq!(format(Locale::EnUs, &text), ("one".into(), true));
        assert_eq!(
            format(Locale::EnUs, &[("n", Arg::Text("1"))]),
            ("1 others".into(), true)
        );
        // A missing selector takes the default and marks the result as not clean.
        assert_eq!(format(Locale::EnUs, &[]), ("{$n} others".into(), false));
    }

    #[test]
    fn a_missing_argument_still_gives_the_text_not_the_id() {
        let shown = text(Locale::PtBr, "mcp-elicitation-server-from", &[]);
        assert!(shown.starts_with("De "), "{shown}");
    }

    #[test]
    fn pt_br_numbers_take_a_decimal_comma() {
        assert_eq!(
            violation_message(Locale::PtBr, &ViolationKind::Minimum { limit: 0.5 }),
            "Deve ser no mínimo 0,5"
        );
        assert_eq!(
            violation_message(Locale::EnUs, &ViolationKind::Minimum { limit: 0.5 }),
            "Must be at least 0.5"
        );
        assert_eq!(
            text(
                Locale::PtBr,
                "mcp-elicitation-queue",
                &[("position", Arg::Number(1.0)), ("total", Arg::Number(3.0))]
            ),
            "1 de 3"
        );
    }

    #[test]
    fn negotiation_takes_the_first_shipped_locale() {
        assert_eq!(Locale::negotiate(["pt-BR"]), Locale::PtBr);
        assert_eq!(Locale::negotiate(["pt-PT"]), Locale::PtBr);
        assert_eq!(Locale::negotiate(["fr", "pt"]), Locale::PtBr);
        assert_eq!(Locale::negotiate(["fr", "de"]), Locale::EnUs);
        assert_eq!(Locale::negotiate(["en-GB", "pt-BR"]), Locale::EnUs);
        assert_eq!(Locale::negotiate([]), Locale::EnUs);
    }

    #[test]
    fn every_problem_has_a_message_in_both_locales() {
        let kinds = [
            ViolationKind::Type {
                expected: vec!["string"],
            },
            ViolationKind::Required {
                property: "x".into(),
            },
            ViolationKind::MaxLength { limit: 3 },
            ViolationKind::Pattern {
                pattern: "a".into(),
            },
            ViolationKind::Format {
                format: "email".into(),
            },
            ViolationKind::Format {
                format: "ipv4".into(),
            },
            ViolationKind::Minimum { limit: 1.5 },
            ViolationKind::Maximum { limit: 2.0 },
            ViolationKind::ExclusiveMinimum { limit: 0.0 },
            ViolationKind::ExclusiveMaximum { limit: 9.0 },
            ViolationKind::Enum,
            ViolationKind::Const,
            ViolationKind::MaxItems { limit: 1 },
            ViolationKind::UniqueItems,
        ];
        for locale in LOCALES {
            for kind in &kinds {
                let message = violation_message(locale, kind);
                assert!(
                    !message.starts_with("mcp-elicitation"),
                    "{locale:?} {kind:?}: {message}"
                );
            }
        }
        assert_eq!(
            violation_message(Locale::EnUs, &ViolationKind::Minimum { limit: 1.5 }),
            "Must be at least 1.5"
        );
    }

    #[test]
    fn a_servers_property_name_is_isolated_in_the_message_that_quotes_it() {
        let required = |property: &str, locale| {
            violation_message(
                locale,
                &ViolationKind::Required {
                    property: property.into(),
                },
            )
        };
        assert_eq!(
            required("city", Locale::EnUs),
            "\u{2068}city\u{2069} is required"
        );
        assert_eq!(
            required("cidade", Locale::PtBr),
            "\u{2068}cidade\u{2069} é obrigatório"
        );
        // Its override ends inside the isolate, before the message's own words.
        assert_eq!(
            required("\u{202E}evil", Locale::EnUs),
            "\u{2068}\u{202E}evil\u{202C}\u{2069} is required"
        );
    }

    /// Polish plural rules for the tests (as `Intl.PluralRules("pl")` answers for integers).
    fn polish_rules() -> LocaleRules {
        LocaleRules {
            plural: |tag, n| {
                if tag != "pl" {
                    return None;
                }
                let i = n as u64;
                Some(if n.fract() != 0.0 {
                    PluralCategory::Other
                } else if i == 1 {
                    PluralCategory::One
                } else if (2..=4).contains(&(i % 10)) && !(12..=14).contains(&(i % 100)) {
                    PluralCategory::Few
                } else {
                    PluralCategory::Many
                })
            },
            number: |tag, n| (tag == "pl").then(|| format!("<{n}>")),
        }
    }

    const POLISH: &str = "\
mcp-elicitation-action-accept = Wyślij
mcp-elicitation-timeout-announce = { $seconds ->
    [one] Zostanie zamknięte za { $seconds } sekundę.
    [few] Zostanie zamknięte za { $seconds } sekundy.
   *[many] Zostanie zamknięte za { $seconds } sekund.
}
";

    #[test]
    fn a_registered_locale_plurals_and_formats_numbers_by_the_surface_rules() {
        set_locale_rules(polish_rules());
        let pl = register_translation("pl", POLISH).expect("registers");
        assert_eq!(pl.tag(), "pl");
        assert_eq!(Locale::negotiate(["pl-PL"]), pl);
        let announce = |n: f64| {
            text(
                pl,
                "mcp-elicitation-timeout-announce",
                &[("seconds", Arg::Number(n))],
            )
        };
        assert_eq!(announce(1.0), "Zostanie zamknięte za <1> sekundę.");
        assert_eq!(announce(3.0), "Zostanie zamknięte za <3> sekundy.");
        assert_eq!(announce(5.0), "Zostanie zamknięte za <5> sekund.");
        assert_eq!(announce(22.0), "Zostanie zamknięte za <22> sekundy.");
        assert_eq!(announce(12.0), "Zostanie zamknięte za <12> sekund.");
        assert_eq!(plain(pl, "mcp-elicitation-action-accept"), "Wyślij");
        // Not translated: English, never the id.
        assert_eq!(plain(pl, "mcp-elicitation-action-cancel"), "Cancel");
        // The shipped locales keep their own rules.
        assert_eq!(
            text(
                Locale::PtBr,
                "mcp-elicitation-queue",
                &[("position", Arg::Number(1.5)), ("total", Arg::Number(3.0))]
            ),
            "1,5 de 3"
        );
    }

    #[test]
    fn without_surface_rules_a_registered_locale_plurals_as_english() {
        let sv = register_translation(
            "sv",
            "mcp-elicitation-error-min_items = { $limit ->\n    [one] Välj minst { $limit } objekt\n   *[other] Välj minst { $limit } objekt (flera)\n}\n",
        )
        .expect("registers");
        let items = |n: f64| violation_message(sv, &ViolationKind::MinItems { limit: n as _ });
        assert_eq!(items(1.0), "Välj minst 1 objekt");
        assert_eq!(items(2.0), "Välj minst 2 objekt (flera)");
    }

    #[test]
    fn a_missing_message_falls_back_to_the_nearest_locale_then_english() {
        let ca = register_translation(
            "ca",
            "mcp-elicitation-action-accept = Envia\nmcp-elicitation-action-reject = Rebutja\n",
        )
        .expect("registers");
        let valencian = register_translation(
            "ca_es_VALENCIA",
            "mcp-elicitation-action-accept = Envia (valencià)\n",
        )
        .expect("registers");
        assert_eq!(valencian.tag(), "ca-ES-valencia");
        assert_eq!(
            plain(valencian, "mcp-elicitation-action-accept"),
            "Envia (valencià)"
        );
        assert_eq!(plain(valencian, "mcp-elicitation-action-reject"), "Rebutja");
        assert_eq!(plain(valencian, "mcp-elicitation-action-cancel"), "Cancel");
        assert_eq!(plain(ca, "mcp-elicitation-action-accept"), "Envia");
        // Negotiation: the exact tag, then nearer tags, then the same language.
        assert_eq!(Locale::negotiate(["ca-ES-valencia"]), valencian);
        assert_eq!(Locale::negotiate(["ca-ES"]), ca);
        assert_eq!(Locale::negotiate(["ca-AD", "pt"]), ca);
        assert_eq!(Locale::negotiate(["xx", "ca"]), ca);
        assert!(has_message(valencian, "mcp-elicitation-action-accept"));
        assert!(!has_message(valencian, "mcp-elicitation-action-reject"));
    }

    #[test]
    fn registering_again_replaces_and_a_shipped_tag_overrides_its_messages() {
        let id = "mcp-elicitation-url_mode-finished";
        let first =
            register_translation("nb", &format!("{id} = Jeg er ferdig\n")).expect("registers");
        let again = register_translation("NB", "mcp-elicitation-action-accept = Send\n")
            .expect("registers");
        assert_eq!(first, again);
        assert_eq!(plain(again, id), "I've finished");
        assert_eq!(plain(again, "mcp-elicitation-action-accept"), "Send");

        let pt = register_translation("pt-br", &format!("{id} = Pronto, terminei\n")).expect("ok");
        assert_eq!(pt, Locale::PtBr);
        assert_eq!(plain(Locale::PtBr, id), "Pronto, terminei");
        assert_eq!(plain(Locale::PtBr, "mcp-elicitation-url_mode-site"), "Site");
        // An empty registration takes the override away again.
        register_translation("pt-BR", "").expect("ok");
        assert_eq!(plain(Locale::PtBr, id), "Já terminei");
    }

    #[test]
    fn a_registration_in_one_catalog_changes_nothing_in_another() {
        let accept = "mcp-elicitation-action-accept";
        let mut tenant = Catalog::new();
        let mut neighbour = Catalog::new();
        let frisian = tenant
            .register_translation("fy", &format!("{accept} = Ferstjoere\n"))
            .expect("registers");
        assert_eq!(tenant.tag(frisian), "fy");
        assert_eq!(tenant.negotiate(["fy-NL"]), frisian);
        assert_eq!(tenant.plain(frisian, accept), "Ferstjoere");
        assert!(tenant.has_message(frisian, accept));
        assert!(!tenant.has_message(frisian, "mcp-elicitation-action-reject"));
        // The neighbour and the process-wide catalog never heard of it.
        assert_eq!(neighbour.locale("fy"), None);
        assert_eq!(neighbour.negotiate(["fy-NL"]), Locale::EnUs);
        assert_eq!(Locale::from_tag("fy"), None);
        // A handle from another catalog reads as en-US, never as that catalog's registration.
        assert_eq!(neighbour.plain(frisian, accept), "Submit");
        assert_eq!(neighbour.tag(frisian), "en-US");
        assert_eq!(plain(frisian, accept), "Submit");
        // The neighbour's own first registration is another handle, and the tenant's stays its own.
        let neighbours_frisian = neighbour
            .register_translation("fy", &format!("{accept} = Ferstjoere (oar)\n"))
            .expect("registers");
        assert_ne!(neighbours_frisian, frisian);
        assert_eq!(
            neighbour.plain(neighbours_frisian, accept),
            "Ferstjoere (oar)"
        );
        assert_eq!(tenant.plain(frisian, accept), "Ferstjoere");
        assert_eq!(tenant.plain(neighbours_frisian, accept), "Submit");
    }

    #[test]
    fn a_registered_locale_runs_in_its_scripts_direction_unless_told_otherwise() {
        let accept = "mcp-elicitation-action-accept";
        let mut catalog = Catalog::new();
        let register = |catalog: &mut Catalog, tag, direction| {
            catalog
                .register_translation_with_direction(tag, &format!("{accept} = x\n"), direction)
                .expect("registers")
        };
        let arabic = register(&mut catalog, "ar", None);
        let hebrew = register(&mut catalog, "he-IL", None);
        let azeri = register(&mut catalog, "az-Arab", None);
        let spanish = register(&mut catalog, "es", None);
        let private = register(&mut catalog, "qaa", Some(Direction::Rtl));
        let latin_arabic = register(&mut catalog, "ar-Latn", None);
        assert_eq!(catalog.direction(arabic), Direction::Rtl);
        assert_eq!(catalog.direction(hebrew), Direction::Rtl);
        assert_eq!(catalog.direction(azeri), Direction::Rtl);
        assert_eq!(catalog.direction(spanish), Direction::Ltr);
        assert_eq!(catalog.direction(private), Direction::Rtl);
        assert_eq!(catalog.direction(latin_arabic), Direction::Ltr);
        // Registering again sets the direction again.
        let arabic_again = register(&mut catalog, "ar", Some(Direction::Ltr));
        assert_eq!(arabic_again, arabic);
        assert_eq!(catalog.direction(arabic), Direction::Ltr);
        // The shipped locales, an override of one, and another catalog's handle run left to right.
        let english = register(&mut catalog, "en-US", Some(Direction::Rtl));
        assert_eq!(catalog.direction(english), Direction::Ltr);
        assert_eq!(catalog.direction(Locale::PtBr), Direction::Ltr);
        assert_eq!(Catalog::new().direction(hebrew), Direction::Ltr);
        // The English fallback of an unregistered right-to-left language is left to right.
        let fallback = Catalog::new().negotiate(["ar-EG"]);
        assert_eq!(Catalog::new().direction(fallback), Direction::Ltr);
    }

    #[test]
    fn a_catalog_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Catalog>();
    }

    #[test]
    fn a_shipped_locale_override_stays_in_its_catalog() {
        let accept = "mcp-elicitation-action-accept";
        let mut tenant = Catalog::new();
        let neighbour = Catalog::new();
        let english = tenant
            .register_translation("en-us", &format!("{accept} = Send it\n"))
            .expect("registers");
        assert_eq!(english, Locale::EnUs);
        assert_eq!(tenant.plain(Locale::EnUs, accept), "Send it");
        // Portuguese falls back to the tenant's English only for what it lacks.
        assert_eq!(tenant.plain(Locale::PtBr, accept), "Enviar");
        assert_eq!(neighbour.plain(Locale::EnUs, accept), "Submit");
        assert_eq!(plain(Locale::EnUs, accept), "Submit");
        assert_eq!(
            neighbour.violation_message(Locale::EnUs, &ViolationKind::MinLength { limit: 1 }),
            "Enter at least 1 character"
        );
    }

    #[test]
    fn each_catalog_plurals_by_its_own_rules() {
        let announce = |catalog: &Catalog, locale, n: f64| {
            catalog.text(
                locale,
                "mcp-elicitation-timeout-announce",
                &[("seconds", Arg::Number(n))],
            )
        };
        let mut with_rules = Catalog::new();
        with_rules.set_locale_rules(polish_rules());
        let mut without = Catalog::new();
        let pl = with_rules
            .register_translation("pl", POLISH)
            .expect("registers");
        let plain_pl = without
            .register_translation("pl", POLISH)
            .expect("registers");
        assert_eq!(
            announce(&with_rules, pl, 3.0),
            "Zostanie zamknięte za <3> sekundy."
        );
        // No rules: English's plural (3 is not `one`, so the default variant) and plain numbers.
        assert_eq!(
            announce(&without, plain_pl, 3.0),
            "Zostanie zamknięte za 3 sekund."
        );
    }

    #[test]
    fn a_bad_registration_names_each_problem_and_registers_nothing() {
        let error = register_translation(
            "eo",
            "mcp-elicitation-action-accept = Sendi\n\
             mcp-elicitation-no-such = x\n\
             mcp-elicitation-timeout_warning = Fermiĝas post { $sekundoj }s\n\
             mcp-elicitation-error-min_items = { $limit ->\n    [oen] unu\n   *[other] multaj\n}\n\
             mcp-elicitation-action-reject = Rifuzi\nmcp-elicitation-action-reject = Again\n",
        )
        .expect_err("refused");
        assert_eq!(error.locale, "eo");
        assert_eq!(
            error.problems,
            [
                "message `mcp-elicitation-no-such`: not a message of this component",
                "message `mcp-elicitation-timeout_warning`: unknown variable `$sekundoj` (it takes $seconds)",
                "message `mcp-elicitation-error-min_items`: variant key [oen] is not a plural category (zero, one, two, few, many, other)",
                "message `mcp-elicitation-action-reject`: defined twice",
            ]
        );
        assert!(error.to_string().starts_with(
            "the translation for `eo` was not registered: message `mcp-elicitation-no-such`"
        ));
        let malformed = register_translation("eo", "mcp-elicitation-action-accept = { $n\n")
            .expect_err("refused");
        assert_eq!(
            malformed.problems,
            ["message `mcp-elicitation-action-accept`: a `{` without its `}`"]
        );
        // Nothing of it was kept.
        assert_eq!(Locale::from_tag("eo"), None);
        assert_eq!(Locale::negotiate(["eo"]), Locale::EnUs);
        for tag in ["", "e", "es!", "toolonglanguage", "es-"] {
            let error = register_translation(tag, "").expect_err("refused");
            assert!(
                error.problems[0].starts_with("not a language tag"),
                "{tag:?}"
            );
        }
    }

    #[test]
    fn the_shipped_text_reads_as_the_whole_file_does() {
        for locale in LOCALES {
            let mut whole = ftl::parse(locale.source()).expect("the file parses");
            whole.retain(|(id, _)| is_compiled_in(id));
            crate::sort::sort_by_less(&mut whole, |a, b| a.0 < b.0);
            let table = locale.table().expect("shipped");
            assert!(table.len() > 40, "{locale:?}: {} messages", table.len());
            assert_eq!(table, whole.as_slice(), "{locale:?}");
        }
    }

    #[test]
    fn every_shipped_locale_has_every_message_with_the_same_variables() {
        let sorted = |parts| {
            let mut names = registry::variables(parts);
            names.sort_unstable();
            names
        };
        for (id, english) in en_us() {
            let english = sorted(english);
            for locale in LOCALES {
                let parts = locale
                    .table()
                    .and_then(|table| lookup(table, id))
                    .unwrap_or_else(|| panic!("{locale:?} lacks {id}"));
                assert_eq!(sorted(parts), english, "{locale:?} {id}");
            }
        }
        assert_eq!(en_us().len(), pt_br().len());
    }

    #[test]
    fn the_template_is_every_english_message_and_parses_back_to_it() {
        let template = template();
        assert!(template.contains("\nmcp-elicitation-action-accept = Submit\n"));
        assert!(template.contains(
            "mcp-elicitation-timeout-announce = { $seconds ->\n    \
             [one] This request closes in { $seconds } second.\n   \
             *[other] This request closes in { $seconds } seconds.\n}\n"
        ));
        let parsed = ftl::parse(&template).expect("parses");
        assert_eq!(parsed.len(), en_us().len());
        for ((id, parts), (expected_id, expected)) in parsed.iter().zip(en_us()) {
            assert_eq!((id, parts), (expected_id, expected));
        }
        let mut portuguese = String::new();
        template::write_table(&mut portuguese, pt_br());
        let parsed = ftl::parse(&portuguese).expect("parses");
        assert!(parsed.iter().zip(pt_br()).all(|((_, a), (_, b))| a == b));
        // And a translator's copy of it is accepted whole.
        let galician = register_translation("gl", &portuguese).expect("registers");
        assert_eq!(plain(galician, "mcp-elicitation-action-accept"), "Enviar");
    }

    #[test]
    fn the_demo_spanish_has_every_message_and_registers() {
        let spanish = include_str!("../../../www/es.ftl");
        let parsed = ftl::parse(spanish).expect("parses");
        let ids: Vec<&str> = parsed.iter().map(|(id, _)| id.as_str()).collect();
        // The page's messages: the terminal's and the relay's (compiled in with their features)
        // are not its.
        let page_ids = en_us()
            .iter()
            .map(|(id, _)| id.as_str())
            .filter(|id| !id.starts_with("mcp-elicitation-terminal-"))
            .filter(|id| !id.starts_with("mcp-elicitation-relay-"));
        for id in page_ids.clone() {
            assert!(ids.contains(&id), "www/es.ftl lacks {id}");
        }
        let es = register_translation("es", spanish).expect("registers");
        for id in page_ids {
            assert!(has_message(es, id), "{id}");
        }
        assert_eq!(plain(es, "mcp-elicitation-action-reject"), "Rechazar");
    }

    #[test]
    fn language_tags_are_normalized() {
        for (tag, normalized) in [
            ("es_mx", Some("es-MX")),
            ("ZH-hant-tw", Some("zh-Hant-TW")),
            ("sr-LATN", Some("sr-Latn")),
            ("es-419", Some("es-419")),
            (" de-CH-1996 ", Some("de-CH-1996")),
            ("1a", None),
            ("es--mx", None),
        ] {
            assert_eq!(normalize_tag(tag).as_deref(), normalized, "{tag:?}");
        }
    }

    #[test]
    fn plural_category_names_round_trip() {
        for name in ["zero", "one", "two", "few", "many", "other"] {
            assert_eq!(
                PluralCategory::from_name(name).map(PluralCategory::name),
                Some(name)
            );
        }
        assert_eq!(PluralCategory::from_name("several"), None);
    }
}
