//! What a call does once the state borrow is released: everything that can run page code
//! (closing and showing dialogs, focus, events, settling promises) or open a window (after the
//! cancelable URL-mode `accept`, unless a listener prevented it).

use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use super::to_js;
use crate::dom;

/// What to do once the state borrow is released, in this order.
#[derive(Default)]
pub(super) struct Effects {
    pub close: Vec<Element>,
    pub show: Option<Element>,
    pub focus: Option<Element>,
    pub restore_focus: Option<HtmlElement>,
    pub announce: Option<(Element, String)>,
    pub events: Vec<Dispatch>,
    pub settle: Vec<(Function, JsValue)>,
}

/// One event to fire on the element.
pub(super) struct Dispatch {
    pub name: &'static str,
    pub detail: Value,
    /// URL-mode consent: the URL opened with `window.open` after the event, unless a listener
    /// called `preventDefault()` (the host opens it its own way). Makes the event cancelable.
    pub opens: Option<String>,
}

impl Effects {
    /// Queues an event.
    pub fn event(&mut self, name: &'static str, detail: Value) {
        self.events.push(Dispatch {
            name,
            detail,
            opens: None,
        });
    }
}

impl Effects {
    pub fn run(self, host: &HtmlElement) {
        for dialog in self.close {
            if let Some(dialog) = dialog.dyn_ref::<web_sys::HtmlDialogElement>() {
                dialog.close();
            }
            dialog.remove();
        }
        if let Some(dialog) = self
            .show
            .as_ref()
            .and_then(|d| d.dyn_ref::<web_sys::HtmlDialogElement>())
        {
            if host.is_connected() && !dialog.open() {
                // The dialog's own focusing steps pick the autofocus element, so showModal focuses
                // the target once instead of the first sentinel (a second focus change would
                // restyle and lay out the dialog again).
                let delegate = self.focus.as_ref().filter(|e| dialog.contains(Some(e)));
                if let Some(element) = delegate {
                    dom::set_attr(element, "autofocus", "");
                }
                let _ = dialog.show_modal();
                if let Some(element) = delegate {
                    dom::remove_attr(element, "autofocus");
                }
            }
        }
        if let Some(element) = self.focus {
            dom::focus(&element);
        }
        if let Some(opener) = self.restore_focus {
            if opener.is_connected() {
                let _ = opener.focus();
            }
        }
        if let Some((region, message)) = self.announce {
            region.set_text_content(Some(&message));
        }
        for dispatch in self.events {
            let init = web_sys::CustomEventInit::new();
            init.set_bubbles(true);
            init.set_composed(true);
            init.set_cancelable(dispatch.opens.is_some());
            init.set_detail(&to_js(&dispatch.detail));
            let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict(dispatch.name, &init)
            else {
                continue;
            };
            let _ = host.dispatch_event(&event);
            if let Some(url) = dispatch.opens.filter(|_| !event.default_prevented()) {
                if let Some(window) = web_sys::window() {
                    let _ = window.open_with_url_and_target_and_features(
                        &url,
                        "_blank",
                        "noopener,noreferrer",
                    );
                }
            }
        }
        for (function, value) in self.settle {
            let _ = function.call1(&JsValue::NULL, &value);
        }
    }
}
