//! Event listeners owned as values: they are removed when dropped, so a dialog's listeners go with
//! the dialog (the gloo `EventListener` habit). Each target's event types are added and removed
//! in one call (src/js/listen.js).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use web_sys::{Event, EventTarget};

#[wasm_bindgen(module = "/src/js/listen.js")]
extern "C" {
    /// Adds the callback, non-passive, for each space-separated type.
    fn listen(target: &EventTarget, types: &str, callback: &JsValue);
    /// Removes what `listen` added.
    fn unlisten(target: &EventTarget, types: &str, callback: &JsValue);
}

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
        listen(target, kind, callback.as_ref());
        Listener {
            target: target.clone(),
            kind,
            callback,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        unlisten(&self.target, self.kind, self.callback.as_ref());
    }
}

/// One callback registered for several events and targets (a dialog's listeners): one closure for
/// all of them. Dropping it unregisters every registration.
pub struct Listeners {
    /// `Fn`, not `FnMut`: a handler that moves focus makes the browser fire `focusout` or `focus`
    /// into this same callback while it runs, and a `FnMut` closure refuses to be re-entered.
    callback: Closure<dyn Fn(Event)>,
    registered: Vec<(EventTarget, &'static str)>,
}

impl Listeners {
    /// A callback that tells the events apart by `Event::type_`. Non-passive, like `Listener`.
    pub fn new(handler: impl Fn(Event) + 'static) -> Listeners {
        Listeners {
            callback: Closure::<dyn Fn(Event)>::new(handler),
            registered: Vec::new(),
        }
    }

    /// Also listens on `target` for each of the space-separated event `types`.
    pub fn on(&mut self, target: &EventTarget, types: &'static str) {
        listen(target, types, self.callback.as_ref());
        self.registered.push((target.clone(), types));
    }
}

impl Drop for Listeners {
    fn drop(&mut self) {
        for (target, types) in &self.registered {
            unlisten(target, types, self.callback.as_ref());
        }
    }
}
