//! `notify`: a system notification for a request that arrives while the page is hidden, owned by
//! the request (its `Held`), so it closes when the request settles in any way and its click handler
//! goes with it. The words are the core's (`crate::notification`); the page decides only whether
//! one can show (hidden, permission granted: src/js/notify.js).

use wasm_bindgen::prelude::*;

use super::calls::run_weak;
use super::Inner;
use crate::notification::notification_text;
use crate::session::Ticket;

#[wasm_bindgen(module = "/src/js/notify.js")]
extern "C" {
    #[wasm_bindgen(js_name = showNotification)]
    fn show_notification(
        title: &str,
        body: &str,
        tag: &str,
        lang: &str,
        dir: &str,
        on_click: &JsValue,
    ) -> JsValue;
    #[wasm_bindgen(js_name = closeNotification)]
    fn close_notification(notification: &JsValue);
}

/// A notification on screen; dropping it closes it.
pub(super) struct SystemNotification {
    notification: JsValue,
    _on_click: Closure<dyn FnMut()>,
}

impl Drop for SystemNotification {
    fn drop(&mut self) {
        close_notification(&self.notification);
    }
}

impl Inner {
    /// With `notify`, the notification for the request `ticket` just admitted, tagged by its
    /// elicitation id (a second one for it replaces the first); `None` when the page is visible,
    /// permission is not granted, or the element has no `notify`.
    pub(super) fn notify_arrival(&self, ticket: Ticket) -> Option<SystemNotification> {
        self.attr("notify")?;
        let held = &self.session.get(ticket)?.data;
        let locale = self.locale();
        let server = super::server_or_unknown(&held.server, locale);
        let shown = notification_text(locale, &server, &held.request.message);
        let shared = self.shared.clone();
        let on_click = Closure::<dyn FnMut()>::new(move || {
            run_weak(&shared, move |inner, fx| inner.focus_request(fx, ticket));
        });
        let notification = show_notification(
            &shown.title,
            &shown.body,
            &held.request.elicitation_id,
            &shown.lang,
            shown.dir.as_str(),
            on_click.as_ref(),
        );
        if notification.is_null() {
            return None;
        }
        Some(SystemNotification {
            notification,
            _on_click: on_click,
        })
    }

    /// The person clicked the notification: focus goes to the first field of what is on screen
    /// (the request itself, or the one ahead of it in the queue).
    fn focus_request(&mut self, fx: &mut super::effects::Effects, ticket: Ticket) {
        if self.session.get(ticket).is_some() {
            self.focus_inline(fx);
        }
    }
}
