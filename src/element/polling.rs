//! URL mode after consent: poll the host's `status-url` until it says the elicitation is complete,
//! backing off after errors as the core's `PollBackoff` says. The timer lives in the session's
//! entry, so it stops when the wait ends.

use gloo_timers::callback::Timeout;
use serde_json::Value;
use std::rc::Weak;
use wasm_bindgen::JsCast;

use super::calls::{run_weak, Shared};
use super::view::timer_delay;
use super::Inner;
use crate::session::Ticket;

impl Inner {
    /// Schedules the next poll of a waiting elicitation, if the host gave a status URL template.
    pub(super) fn start_poll(&mut self, ticket: Ticket) {
        let Some(template) = self
            .attr("status-url")
            .filter(|url| crate::strings::contains(url, "{id}"))
        else {
            return;
        };
        let Some(entry) = self.session.get_mut(ticket) else {
            return;
        };
        let id = String::from(js_sys::encode_uri_component(&entry.elicitation_id));
        let url = crate::strings::replace(&template, "{id}", &id);
        schedule(&self.shared, &mut entry.data, ticket, url);
    }
}

fn schedule(shared: &Weak<Shared>, held: &mut super::Held, ticket: Ticket, url: String) {
    let shared = shared.clone();
    let delay = timer_delay(held.backoff.delay_ms());
    held.poll = Some(Timeout::new(delay, move || poll_once(shared, ticket, url)));
}

/// One status poll; reschedules itself until the wait ends.
fn poll_once(shared: Weak<Shared>, ticket: Ticket, url: String) {
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = fetch_status(&url).await;
        run_weak(&shared.clone(), move |inner, fx| {
            let Some(entry) = inner.session.get_mut(ticket) else {
                return;
            };
            match outcome {
                Ok(true) => {
                    // This poll's own elicitation: another waiting one may share its id.
                    if let Some(change) = inner.session.complete_ticket(ticket) {
                        inner.finish(fx, vec![change]);
                    }
                }
                Ok(false) => schedule(&shared, &mut entry.data, ticket, url),
                Err(()) => {
                    entry.data.backoff.failed();
                    schedule(&shared, &mut entry.data, ticket, url);
                }
            }
        });
    });
}

/// GET the status URL; `Ok(true)` when it answers `{"status": "complete"}`.
async fn fetch_status(url: &str) -> Result<bool, ()> {
    let window = web_sys::window().ok_or(())?;
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|_| ())?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| ())?;
    if !response.ok() {
        return Err(());
    }
    let body = wasm_bindgen_futures::JsFuture::from(response.text().map_err(|_| ())?)
        .await
        .map_err(|_| ())?;
    let body = crate::json::parse(&body.as_string().unwrap_or_default()).map_err(|_| ())?;
    Ok(body.get("status").and_then(Value::as_str) == Some("complete"))
}
