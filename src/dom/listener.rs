//! An event listener owned as a value: it is removed when dropped, so a dialog's listeners go with
//! the dialog (the gloo `EventListener` habit).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{AddEventListenerOptions, Event, EventTarget};

/// A registered listener; dropping it unregisters it.
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    callback: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Listens for `kind` on `target`. Non-passive, so handlers may `preventDefault` (Tab, Esc).
    pub fn new(
        target: &EventTarget,
        kind: &'static str,
        handler: impl FnMut(Event) + 'static,
    ) -> Listener {
        let callback = Closure::<dyn FnMut(Event)>::new(handler);
        let options = AddEventListenerOptions::new();
        options.set_passive(false);
        let _ = target.add_event_listener_with_callback_and_add_event_listener_options(
            kind,
            callback.as_ref().unchecked_ref(),
            &options,
        );
        Listener {
            target: target.clone(),
            kind,
            callback,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.callback.as_ref().unchecked_ref());
    }
}
