//! A catalog: the shipped locales plus what one owner registered (or overrode) and the plural and
//! number rules it gave. A server for many tenants holds one per tenant, so one tenant's
//! registration never changes another's text. The web element and the terminal share the
//! process-wide one behind the free functions of [`crate::i18n`].

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockWriteGuard};

use super::registry::{self, LocaleRules, Messages, TranslationError};
use super::{
    format_chain, language, lookup, nearest, same_tag, truncations, Arg, Direction, Locale,
    RegisteredLocale, Source, Style, LOCALES,
};
use crate::limits::MAX_REGISTERED_LOCALES;

/// Registered languages and the rules for them. A [`Locale::Registered`] handle carries the id of
/// the catalog that made it; any other catalog reads it as en-US, so a handle never reaches
/// another catalog's registrations.
#[derive(Debug)]
pub struct Catalog {
    id: u32,
    /// In registration order; never removed, so a handle's index stays valid.
    registered: Vec<Arc<Registration>>,
    rules: Option<LocaleRules>,
}

/// What was registered for one tag (normalized: `es-MX`).
#[derive(Debug)]
struct Registration {
    tag: String,
    messages: Messages,
    /// The direction its text runs in: its script's, unless the host said otherwise.
    direction: Direction,
}

/// The process-wide catalog's id; [`Catalog::new`] hands out the others.
const PROCESS_WIDE_ID: u32 = 0;
/// Ids fit in 24 bits (see [`RegisteredLocale`]).
const MAX_ID: u32 = (1 << 24) - 1;
static NEXT_ID: AtomicU32 = AtomicU32::new(PROCESS_WIDE_ID + 1);

/// The catalog the free functions use, changed in place.
static PROCESS_WIDE: RwLock<Catalog> = RwLock::new(Catalog::with_id(PROCESS_WIDE_ID));

/// A copy of the process-wide catalog (sharing its registrations), so no lock is held while text
/// is formatted: the browser's rules call page code, which may register a language meanwhile.
pub(crate) fn process_wide() -> Catalog {
    PROCESS_WIDE
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .fork()
}

/// The process-wide catalog, to change; copies taken before keep what they saw.
pub(super) fn process_wide_mut() -> RwLockWriteGuard<'static, Catalog> {
    PROCESS_WIDE.write().unwrap_or_else(PoisonError::into_inner)
}

impl Default for Catalog {
    fn default() -> Catalog {
        Catalog::new()
    }
}

impl Catalog {
    /// A catalog of its own with only the shipped locales, independent of every other.
    pub fn new() -> Catalog {
        // Wrapping (after 16 million catalogs) could only let a stale handle read as a wrong locale
        // of the catalog it is given, never reach another catalog: every lookup goes through `self`.
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed) % MAX_ID;
        Catalog::with_id(id + 1)
    }

    const fn with_id(id: u32) -> Catalog {
        Catalog {
            id,
            registered: Vec::new(),
            rules: None,
        }
    }

    /// The same catalog (same id, shared registrations).
    fn fork(&self) -> Catalog {
        Catalog {
            id: self.id,
            registered: self.registered.clone(),
            rules: self.rules,
        }
    }

    /// Adds the language `tag` (a BCP 47 tag such as `es` or `de-CH`) from a Fluent text in the
    /// subset of `i18n/*.ftl`, or replaces what was registered for it before. A shipped tag
    /// (`en-US`, `pt-BR`) overrides the shipped messages it names, in this catalog only. Messages
    /// it leaves out fall back to the nearest locale, then en-US. Nothing is stored unless every
    /// message is valid: a known id, only the variables the English message has, and plural
    /// variant keys.
    /// Its text runs in its script's direction ([`Direction::of_tag`]).
    pub fn register_translation(
        &mut self,
        tag: &str,
        ftl: &str,
    ) -> Result<Locale, TranslationError> {
        self.register_translation_with_direction(tag, ftl, None)
    }

    /// [`Catalog::register_translation`], with the direction its text runs in given (`None`: its
    /// script's), for a tag that does not say it (a private-use or unusual tag).
    pub fn register_translation_with_direction(
        &mut self,
        tag: &str,
        ftl: &str,
        direction: Option<Direction>,
    ) -> Result<Locale, TranslationError> {
        let (normalized, messages) = registry::parse_translation(tag, ftl)?;
        let registration = Arc::new(Registration {
            direction: direction.unwrap_or_else(|| Direction::of_tag(&normalized)),
            tag: normalized,
            messages,
        });
        let index = match self
            .registered
            .iter()
            .position(|entry| entry.tag == registration.tag)
        {
            Some(index) => {
                if let Some(entry) = self.registered.get_mut(index) {
                    *entry = registration;
                }
                index
            }
            None => {
                if self.registered.len() >= MAX_REGISTERED_LOCALES {
                    return Err(TranslationError {
                        locale: tag.to_string(),
                        problems: vec![format!(
                            "at most {MAX_REGISTERED_LOCALES} languages can be registered"
                        )],
                    });
                }
                self.registered.push(registration);
                self.registered.len() - 1
            }
        };
        Ok(self.locale_at(index))
    }

    /// Sets the plural and number rules for this catalog's registered locales (the last call wins).
    pub fn set_locale_rules(&mut self, rules: LocaleRules) {
        self.rules = Some(rules);
    }

    /// The BCP 47 tag of `locale` (normalized for a registered one: `es-MX`); a handle from
    /// another catalog reads as `en-US`, as its text does.
    pub fn tag(&self, locale: Locale) -> &str {
        match self.own(locale) {
            Locale::Registered(handle) => self
                .registration_of(handle)
                .map_or("en-US", |entry| &entry.tag),
            shipped => shipped.shipped_tag().unwrap_or("en-US"),
        }
    }

    /// The direction `locale`'s text runs in: left to right for the shipped locales (and an
    /// override of one, and a handle from another catalog), else what it was registered with.
    pub fn direction(&self, locale: Locale) -> Direction {
        match self.own(locale) {
            Locale::Registered(handle) => self
                .registration_of(handle)
                .map_or(Direction::Ltr, |entry| entry.direction),
            Locale::EnUs | Locale::PtBr => Direction::Ltr,
        }
    }

    /// The locale for a language tag: the one with that tag, else the nearest by dropping
    /// subtags (`es-MX-x` → `es-MX` → `es`), else one with the same language (`pt-PT` → `pt-BR`);
    /// registered locales before shipped ones.
    pub fn locale(&self, tag: &str) -> Option<Locale> {
        nearest(tag, &self.available())
    }

    /// The first candidate that matches a locale (see [`Catalog::locale`]), else `en-US`.
    pub fn negotiate<'a>(&self, candidates: impl IntoIterator<Item = &'a str>) -> Locale {
        let available = self.available();
        candidates
            .into_iter()
            .find_map(|tag| nearest(tag, &available))
            .unwrap_or(Locale::EnUs)
    }

    /// Whether a locale's own messages (shipped or registered here) have this one (no fallback).
    pub fn has_message(&self, locale: Locale, id: &str) -> bool {
        let locale = self.own(locale);
        self.registration(self.tag(locale))
            .is_some_and(|entry| lookup(&entry.messages, id).is_some())
            || locale.table().and_then(|table| lookup(table, id)).is_some()
    }

    /// The message `id` in `locale` with `args`, falling back to the nearest locale, then `en-US`.
    pub fn text(&self, locale: Locale, id: &str, args: &[(&str, Arg)]) -> String {
        format_chain(&self.fallback_chain(locale), id, args)
            // Only an id that no file has (a programming error) shows as itself.
            .unwrap_or_else(|| id.to_string())
    }

    /// A shorthand for messages without arguments.
    pub fn plain(&self, locale: Locale, id: &str) -> String {
        self.text(locale, id, &[])
    }

    /// `locale`, or en-US for a handle this catalog did not make.
    fn own(&self, locale: Locale) -> Locale {
        match locale {
            Locale::Registered(handle) if self.registration_of(handle).is_none() => Locale::EnUs,
            locale => locale,
        }
    }

    fn registration_of(&self, handle: RegisteredLocale) -> Option<&Registration> {
        if handle.catalog() != self.id {
            return None;
        }
        self.registered.get(handle.index()).map(Arc::as_ref)
    }

    /// What was registered for `tag`, if anything.
    fn registration(&self, tag: &str) -> Option<&Registration> {
        self.registered
            .iter()
            .find(|entry| entry.tag == tag)
            .map(Arc::as_ref)
    }

    /// The locale a registration stands for: a shipped one it overrides, or its own.
    fn locale_at(&self, index: usize) -> Locale {
        let tag = self
            .registered
            .get(index)
            .map_or("", |entry| entry.tag.as_str());
        Locale::shipped(tag).unwrap_or(Locale::Registered(RegisteredLocale::new(self.id, index)))
    }

    /// Every locale there is (registered first, in order, then the shipped ones), with its tag.
    fn available(&self) -> Vec<(&str, Locale)> {
        let mut all: Vec<(&str, Locale)> = Vec::new();
        for (index, entry) in self.registered.iter().enumerate() {
            all.push((&entry.tag, self.locale_at(index)));
        }
        for shipped in LOCALES {
            if !all.iter().any(|(_, locale)| *locale == shipped) {
                all.push((shipped.shipped_tag().unwrap_or("en-US"), shipped));
            }
        }
        all
    }

    /// Where a message in `locale` is looked for, in order: what was registered for it, its
    /// shipped table, then the same for its nearer tags (`es-MX` → `es`), other locales of its
    /// language, and en-US.
    fn fallback_chain(&self, locale: Locale) -> Vec<(Style<'_>, Source<'_>)> {
        let locale = self.own(locale);
        let style = |locale, tag| Style {
            locale,
            tag,
            rules: self.rules,
        };
        let mut chain = Vec::new();
        // Nothing registered (the usual case): the shipped table, then en-US, with no lookups.
        if self.registered.is_empty() {
            for locale in [locale, Locale::EnUs] {
                if let Some(table) = locale.table() {
                    chain.push((style(locale, ""), Source::Shipped(table)));
                }
            }
            return chain;
        }
        let tag = self.tag(locale);
        let mut tags: Vec<(&str, Locale)> = vec![(tag, locale)];
        let available = self.available();
        let lang = language(tag);
        let nearer = truncations(tag).skip(1).filter_map(|tag| {
            available
                .iter()
                .find(|(known, _)| same_tag(known, tag))
                .copied()
        });
        let same_language = available
            .iter()
            .filter(|(known, _)| language(known) == lang)
            .copied();
        for candidate in nearer.chain(same_language).chain([("en-US", Locale::EnUs)]) {
            if !tags.iter().any(|(_, locale)| *locale == candidate.1) {
                tags.push(candidate);
            }
        }
        for (tag, locale) in tags {
            if let Some(entry) = self.registration(tag) {
                chain.push((style(locale, tag), Source::Registered(&entry.messages)));
            }
            if let Some(table) = locale.table() {
                chain.push((style(locale, tag), Source::Shipped(table)));
            }
        }
        chain
    }
}
