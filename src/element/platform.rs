//! What the element learns from the browser rather than decides: the clock (which tests may move),
//! how the browser parses a URL, and the user's local time.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::calls::Shared;
use crate::url::UrlParts;

thread_local! {
    /// Live elements, so tests can drive every element's clock.
    static LIVE: RefCell<Vec<Weak<Shared>>> = const { RefCell::new(Vec::new()) };
    /// Added to `Date.now()`; only tests move it.
    static CLOCK_OFFSET: RefCell<f64> = const { RefCell::new(0.0) };
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
    let live: Vec<Rc<Shared>> =
        LIVE.with(|live| live.borrow().iter().filter_map(Weak::upgrade).collect());
    for shared in live {
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
