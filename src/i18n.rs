//! Every visible or announced string, from the Fluent files in `i18n/<locale>/`, compiled into the
//! binary with `include_str!`. A message missing in a locale falls back to `en-US`, never to its id.

use std::cell::OnceCell;

use fluent_bundle::{FluentArgs, FluentBundle, FluentResource, FluentValue};

use crate::form::Problem;
use crate::validate::ViolationKind;

/// A locale the component ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Locale {
    EnUs,
    PtBr,
}

/// The locales in the order they are tried when nothing matches.
pub const LOCALES: [Locale; 2] = [Locale::EnUs, Locale::PtBr];

impl Locale {
    /// The BCP 47 tag.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::EnUs => "en-US",
            Locale::PtBr => "pt-BR",
        }
    }

    /// The shipped locale for a language tag: by primary language (`pt-PT` → `pt-BR`).
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Locale::EnUs),
            "pt" => Some(Locale::PtBr),
            _ => None,
        }
    }

    /// The first candidate that ships (`lang`, ancestor `lang`, `navigator.languages`…), else `en-US`.
    pub fn negotiate<'a>(candidates: impl IntoIterator<Item = &'a str>) -> Locale {
        candidates
            .into_iter()
            .find_map(Locale::from_tag)
            .unwrap_or(Locale::EnUs)
    }

    fn source(self) -> &'static str {
        match self {
            Locale::EnUs => include_str!("../i18n/en-US/elicitation.ftl"),
            Locale::PtBr => include_str!("../i18n/pt-BR/elicitation.ftl"),
        }
    }
}

/// A Fluent argument.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    Text(&'a str),
    Number(f64),
}

type Bundle = FluentBundle<FluentResource>;

thread_local! {
    static BUNDLES: [OnceCell<Option<Bundle>>; 2] = const { [OnceCell::new(), OnceCell::new()] };
}

fn build_bundle(locale: Locale) -> Option<Bundle> {
    // A broken file still yields the entries that parsed; the test below keeps the files clean.
    let resource =
        FluentResource::try_new(locale.source().to_string()).unwrap_or_else(|(partial, _)| partial);
    let lang = locale.tag().parse().ok()?;
    let mut bundle = FluentBundle::new(vec![lang]);
    // Isolation marks would leak into exact texts such as "Closing in 5s".
    bundle.set_use_isolating(false);
    if locale == Locale::PtBr {
        bundle.set_formatter(Some(decimal_comma));
    }
    bundle.add_resource(resource).ok()?;
    Some(bundle)
}

/// Numbers in pt-BR take a decimal comma ("Deve ser no mínimo 0,5").
fn decimal_comma<M>(value: &FluentValue, _: &M) -> Option<String> {
    match value {
        FluentValue::Number(number) => Some(number.as_string().replace('.', ",")),
        _ => None,
    }
}

/// Formats `id` from the first bundle that has it and formats it cleanly; failing that (a
/// missing argument, say), the first bundle's best effort. `None` only when no bundle has `id`.
fn format_chain(bundles: &[&Bundle], id: &str, args: Option<&FluentArgs>) -> Option<String> {
    let mut best_effort = None;
    for bundle in bundles {
        let Some(pattern) = bundle.get_message(id).and_then(|message| message.value()) else {
            continue;
        };
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, args, &mut errors);
        if errors.is_empty() {
            return Some(text.into_owned());
        }
        best_effort.get_or_insert_with(|| text.into_owned());
    }
    best_effort
}

fn format_in(locale: Locale, id: &str, args: Option<&FluentArgs>) -> Option<String> {
    let index = match locale {
        Locale::EnUs => 0,
        Locale::PtBr => 1,
    };
    BUNDLES.with(|bundles| {
        let bundle = bundles
            .get(index)?
            .get_or_init(|| build_bundle(locale))
            .as_ref()?;
        let pattern = bundle.get_message(id)?.value()?;
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, args, &mut errors);
        errors.is_empty().then(|| text.into_owned())
    })
}

/// Whether a locale's own file has this message (no fallback).
pub fn has_message(locale: Locale, id: &str) -> bool {
    format_in(locale, id, None).is_some() || {
        // Messages with variables fail to format without arguments; look them up directly.
        let index = match locale {
            Locale::EnUs => 0,
            Locale::PtBr => 1,
        };
        BUNDLES.with(|bundles| {
            bundles
                .get(index)
                .and_then(|cell| cell.get_or_init(|| build_bundle(locale)).as_ref())
                .is_some_and(|bundle| bundle.has_message(id))
        })
    }
}

/// The message `id` in `locale` with `args`, falling back to `en-US`.
pub fn text(locale: Locale, id: &str, args: &[(&str, Arg)]) -> String {
    let mut fluent_args = FluentArgs::new();
    for (name, arg) in args {
        match arg {
            Arg::Text(text) => fluent_args.set(*name, FluentValue::from(*text)),
            Arg::Number(number) => fluent_args.set(*name, FluentValue::from(*number)),
        }
    }
    let args = (!args.is_empty()).then_some(&fluent_args);
    BUNDLES
        .with(|bundles| {
            let bundle = |locale: Locale| {
                let index = match locale {
                    Locale::EnUs => 0,
                    Locale::PtBr => 1,
                };
                bundles
                    .get(index)
                    .and_then(|cell| cell.get_or_init(|| build_bundle(locale)).as_ref())
            };
            let chain: Vec<&Bundle> = [bundle(locale), bundle(Locale::EnUs)]
                .into_iter()
                .flatten()
                .collect();
            format_chain(&chain, id, args)
        })
        // Only an id that no file has (a programming error) shows as itself.
        .unwrap_or_else(|| id.to_string())
}

/// A shorthand for messages without arguments.
pub fn plain(locale: Locale, id: &str) -> String {
    text(locale, id, &[])
}

/// The localized message for a rule the value breaks.
pub fn violation_message(locale: Locale, kind: &ViolationKind) -> String {
    let limit = |id: &str, limit: f64| text(locale, id, &[("limit", Arg::Number(limit))]);
    match kind {
        ViolationKind::Type { expected } => text(
            locale,
            "mcp-elicitation-error-type",
            &[("expected", Arg::Text(&expected.join(" | ")))],
        ),
        ViolationKind::Required { property } => text(
            locale,
            "mcp-elicitation-error-required_property",
            &[("property", Arg::Text(property))],
        ),
        ViolationKind::MinLength { limit: n } => {
            limit("mcp-elicitation-error-min_length", *n as f64)
        }
        ViolationKind::MaxLength { limit: n } => {
            limit("mcp-elicitation-error-max_length", *n as f64)
        }
        ViolationKind::Pattern { .. } => plain(locale, "mcp-elicitation-error-pattern"),
        ViolationKind::Format { format } => match format.as_str() {
            "email" => plain(locale, "mcp-elicitation-error-format-email"),
            "uri" => plain(locale, "mcp-elicitation-error-format-uri"),
            "date" => plain(locale, "mcp-elicitation-error-format-date"),
            "date-time" => plain(locale, "mcp-elicitation-error-format-date_time"),
            other => text(
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
        ViolationKind::Enum => plain(locale, "mcp-elicitation-error-enum"),
        ViolationKind::Const => plain(locale, "mcp-elicitation-error-const"),
        ViolationKind::MinItems { limit: n } => limit("mcp-elicitation-error-min_items", *n as f64),
        ViolationKind::MaxItems { limit: n } => limit("mcp-elicitation-error-max_items", *n as f64),
        ViolationKind::UniqueItems => plain(locale, "mcp-elicitation-error-unique_items"),
    }
}

/// The localized message for a field problem.
pub fn problem_message(locale: Locale, problem: &Problem) -> String {
    match problem {
        Problem::Required => plain(locale, "mcp-elicitation-field_required"),
        Problem::NotANumber => plain(locale, "mcp-elicitation-error-not_a_number"),
        Problem::NotAnInteger => plain(locale, "mcp-elicitation-error-not_an_integer"),
        Problem::NotADateTime => plain(locale, "mcp-elicitation-error-not_a_date_time"),
        Problem::Rule(kind) => violation_message(locale, kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(locale: Locale) -> Vec<String> {
        locale
            .source()
            .lines()
            .filter_map(|line| line.split_once(" = ").map(|(id, _)| id.trim().to_string()))
            .filter(|id| id.starts_with("mcp-elicitation-"))
            .collect()
    }

    #[test]
    fn both_files_parse_and_have_the_same_messages() {
        for locale in LOCALES {
            assert!(
                FluentResource::try_new(locale.source().to_string()).is_ok(),
                "{locale:?} parses"
            );
        }
        let mut en = ids(Locale::EnUs);
        let mut pt = ids(Locale::PtBr);
        en.sort();
        pt.sort();
        assert_eq!(en, pt);
        for id in &en {
            assert!(has_message(Locale::PtBr, id), "{id}");
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

    fn bundle_of(tag: &str, source: &str) -> Bundle {
        let mut bundle = FluentBundle::new(vec![tag.parse().expect("a valid tag")]);
        bundle.set_use_isolating(false);
        bundle
            .add_resource(FluentResource::try_new(source.to_string()).expect("valid Fluent"))
            .expect("no duplicate ids");
        bundle
    }

    #[test]
    fn a_message_missing_in_a_locale_falls_back_to_english_not_to_its_id() {
        let pt = bundle_of("pt-BR", "only-pt = Só em português\n");
        let en = bundle_of(
            "en-US",
            "only-pt = Only in Portuguese\nonly-en = Only in English\n",
        );
        assert_eq!(
            format_chain(&[&pt, &en], "only-en", None).as_deref(),
            Some("Only in English")
        );
        assert_eq!(
            format_chain(&[&pt, &en], "only-pt", None).as_deref(),
            Some("Só em português")
        );
        assert_eq!(format_chain(&[&pt, &en], "nowhere", None), None);
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
}
