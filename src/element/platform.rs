//! What the element learns from the browser rather than decides: the clock (which tests may move),
//! how the browser parses a URL, the user's local time, and how a registered language plurals
//! and writes numbers (`Intl`).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::calls::Shared;
use crate::i18n::{LocaleRules, PluralCategory};
use crate::url::UrlParts;

thread_local! {
    /// Live elements, so tests can drive every element's clock and a new language reaches every
    /// open dialog.
    static LIVE: RefCell<Vec<Weak<Shared>>> = const { RefCell::new(Vec::new()) };
    /// Added to `Date.now()`; only tests move it.
    static CLOCK_OFFSET: RefCell<f64> = const { RefCell::new(0.0) };
    /// `Intl.PluralRules` / `Intl.NumberFormat` objects by (constructor, tag), made once each.
    static INTL: RefCell<Vec<(&'static str, String, JsValue)>> = const { RefCell::new(Vec::new()) };
}

fn live_elements() -> Vec<Rc<Shared>> {
    LIVE.with(|live| live.borrow().iter().filter_map(Weak::upgrade).collect())
}

/// A language was registered: every open dialog renders again, in whatever language its
/// element negotiates now (a call made while an element is busy waits its turn).
pub(crate) fn relocalize_live_elements() {
    for shared in live_elements() {
        shared.run(|inner, fx| {
            // Parts built ahead hold the old words and direction.
            inner.screen.spare = None;
            if inner.screen.view.is_some() {
                inner.sync_view(fx, true);
            }
        });
    }
}

/// Registered locales plural and write numbers as the browser's `Intl` says.
pub(crate) fn install_locale_rules() {
    crate::i18n::set_locale_rules(LocaleRules {
        plural: |tag, n| {
            let rules = intl_object("PluralRules", tag, &JsValue::UNDEFINED)?;
            PluralCategory::from_name(&call_with_number(&rules, "select", n)?)
        },
        number: |tag, n| {
            // Every digit a limit has (the default stops at 3: 0.0001 would read as 0).
            let options = js_sys::Object::new();
            Reflect::set(&options, &"maximumFractionDigits".into(), &20.into()).ok()?;
            let format = intl_object("NumberFormat", tag, &options)?;
            call_with_number(&format, "format", n)
        },
    });
}

/// `new Intl[constructor](tag, options)`, cached. Everything goes through the catching
/// `Reflect`/`Function` calls: this runs under an element's state borrow, and page code may have
/// replaced `Intl`; a failure only means the core's default rules apply.
fn intl_object(constructor: &'static str, tag: &str, options: &JsValue) -> Option<JsValue> {
    let cached = INTL.with(|cache| {
        cache
            .borrow()
            .iter()
            .find(|(kind, known, _)| *kind == constructor && known == tag)
            .map(|(_, _, object)| object.clone())
    });
    if cached.is_some() {
        return cached;
    }
    let intl = Reflect::get(&js_sys::global(), &"Intl".into()).ok()?;
    let class: Function = Reflect::get(&intl, &constructor.into())
        .ok()?
        .dyn_into()
        .ok()?;
    let args = js_sys::Array::of2(&tag.into(), options);
    let object = Reflect::construct(&class, &args).ok()?;
    INTL.with(|cache| {
        cache
            .borrow_mut()
            .push((constructor, tag.to_string(), object.clone()))
    });
    Some(object)
}

fn call_with_number(object: &JsValue, method: &str, n: f64) -> Option<String> {
    let method: Function = Reflect::get(object, &method.into()).ok()?.dyn_into().ok()?;
    method.call1(object, &n.into()).ok()?.as_string()
}

/// Keeps a weak handle on a new element for [`advance_clock`].
pub(super) fn register_live(shared: &Rc<Shared>) {
    LIVE.with(|live| {
        let mut live = live.borrow_mut();
        live.retain(|weak| weak.strong_count() > 0);
        live.push(Rc::downgrade(shared));
    });
}

/// Moves every element's clock forward and runs what falls due (timeouts, countdown). For tests.
#[doc(hidden)]
pub fn advance_clock(ms: f64) {
    CLOCK_OFFSET.with(|offset| *offset.borrow_mut() += ms);
    for shared in live_elements() {
        shared.run(|inner, fx| inner.tick(fx));
    }
}

/// Milliseconds since the epoch, as the element's timers see them.
pub(super) fn now() -> f64 {
    js_sys::Date::now() + CLOCK_OFFSET.with(|offset| *offset.borrow())
}

/// The browser's parse of a URL-mode URL, so what is judged is what would open.
pub(super) fn browser_url_parts(url: &str) -> Option<UrlParts> {
    let parsed = web_sys::Url::new(url).ok()?;
    Some(UrlParts {
        scheme: parsed.protocol().trim_end_matches(':').to_ascii_lowercase(),
        username: parsed.username(),
        password: parsed.password(),
        host: parsed.hostname(),
        href: parsed.href(),
    })
}

/// Minutes east of UTC in force at a local `datetime-local` value.
pub(super) fn local_offset_minutes(local: &str) -> i32 {
    let date = js_sys::Date::new(&JsValue::from_str(local));
    let offset = date.get_timezone_offset();
    if offset.is_finite() {
        -(offset as i32)
    } else {
        0
    }
}

/// An RFC 3339 default shown in a `datetime-local` control, in the user's local time.
pub(super) fn local_date_time(stamp: &str) -> String {
    let date = js_sys::Date::new(&JsValue::from_str(stamp));
    if !date.get_time().is_finite() {
        return String::new();
    }
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date(),
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}
