//! Event listeners owned as values: they are removed when dropped, so a dialog's listeners go with
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

/// One callback registered for several events and targets (a dialog's listeners): one closure and
/// one options object for all of them. Dropping it unregisters every registration.
pub struct Listeners {
    /// `Fn`, not `FnMut`: a handler that moves focus makes the browser fire `focusout` or `focus`
    /// into this same callback while it runs, and a `FnMut` closure refuses to be re-entered.
    callback: Closure<dyn Fn(Event)>,
    options: AddEventListenerOptions,
    registered: Vec<(EventTarget, &'static str)>,
}

impl Listeners {
    /// A callback that tells the events apart by `Event::type_`. Non-passive, like `Listener`.
    pub fn new(handler: impl Fn(Event) + 'static) -> Listeners {
        let options = AddEventListenerOptions::new();
        options.set_passive(false);
        Listeners {
            callback: Closure::<dyn Fn(Event)>::new(handler),
            options,
            registered: Vec::new(),
        }
    }

    /// Also listens for `kind` on `target`.
    pub fn on(&mut self, target: &EventTarget, kind: &'static str) {
        let _ = target.add_event_listener_with_callback_and_add_event_listener_options(
            kind,
            self.callback.as_ref().unchecked_ref(),
            &self.options,
        );
        self.registered.push((target.clone(), kind));
    }
}

impl Drop for Listeners {
    fn drop(&mut self) {
        for (target, kind) in &self.registered {
            let _ = target
                .remove_event_listener_with_callback(kind, self.callback.as_ref().unchecked_ref());
        }
    }
}
