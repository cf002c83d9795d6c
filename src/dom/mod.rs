//! The thin browser layer: builds DOM from the pure state and forwards user actions. No business
//! rule lives here.

pub mod form_view;
pub mod frame;
pub mod listener;
pub mod one_tap_view;
pub mod style;
pub mod summary_view;
pub mod url_view;

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

use crate::i18n::close_bidi_controls;

thread_local! {
    /// A page's document never changes, so it is looked up once, not on every open.
    static DOCUMENT: Document = web_sys::window()
        .and_then(|window| window.document())
        // Only reachable outside a window (a worker), where the element cannot exist anyway.
        .unwrap_or_else(|| {
            wasm_bindgen::throw_str("koder-mcp-elicitation needs a browser document")
        });
}

/// The page's document. The element only runs in a window, where one always exists.
pub fn document() -> Document {
    DOCUMENT.with(Document::clone)
}

/// Creates an element; element names here are our own constants, so creation cannot fail in a
/// browser, but a failure still yields a detached `div` rather than a panic.
pub fn create(document: &Document, tag: &str) -> Element {
    document
        .create_element(tag)
        .or_else(|_| document.create_element("div"))
        .unwrap_or_else(|_| wasm_bindgen::throw_str("cannot create elements"))
}

/// Creates an element with a `part` and optional text (set as text, never markup).
pub fn create_part(document: &Document, tag: &str, part: &str, text: Option<&str>) -> Element {
    let element = create(document, tag);
    set_attr(&element, "part", part);
    if let Some(text) = text {
        element.set_text_content(Some(text));
    }
    element
}

/// Sets a server string as an element's text, any bidi control it leaves open closed at its end
/// so none reaches the text after it. The element says how it is isolated (`dir`, `<bdi>`).
pub fn set_server_text(element: &Element, text: &str) {
    element.set_text_content(Some(&close_bidi_controls(text)));
}

/// A server string in a `<bdi>` of its own: its direction comes from its own first strong
/// character (or `dir`, when given), and it cannot reorder the text around it.
pub fn isolated(document: &Document, text: &str, dir: Option<&str>) -> Element {
    let bdi = create(document, "bdi");
    if let Some(dir) = dir {
        set_attr(&bdi, "dir", dir);
    }
    set_server_text(&bdi, text);
    bdi
}

/// Stands for a server string in a message of ours: the private-use character no message has.
pub const SLOT: &str = "\u{E000}";
/// [`SLOT`]'s character.
const SLOT_CHAR: char = '\u{E000}';

/// Fills `element` with `message`, a message of ours formatted with [`SLOT`] for a server string,
/// and that string in its own `<bdi>` where the slot was (see [`isolated`]).
pub fn set_text_isolating(
    document: &Document,
    element: &Element,
    message: &str,
    server_text: &str,
    dir: Option<&str>,
) {
    element.set_text_content(None);
    // Split on the character, not the string: a string pattern brings its searcher into the wasm.
    for (index, piece) in message.split(SLOT_CHAR).enumerate() {
        if index > 0 {
            append(element, &isolated(document, server_text, dir));
        }
        if !piece.is_empty() {
            let _ = element.append_with_str_1(piece);
        }
    }
}

/// Sets an attribute; our attribute names are constants and values are text.
pub fn set_attr(element: &Element, name: &str, value: &str) {
    let _ = element.set_attribute(name, value);
}

/// Removes an attribute if present.
pub fn remove_attr(element: &Element, name: &str) {
    let _ = element.remove_attribute(name);
}

/// Shows or hides an element with the `hidden` attribute.
pub fn set_hidden(element: &Element, hidden: bool) {
    if hidden {
        set_attr(element, "hidden", "");
    } else {
        remove_attr(element, "hidden");
    }
}

/// Appends a child, ignoring the impossible failure of appending a fresh element.
pub fn append(parent: &Element, child: &Element) {
    let _ = parent.append_child(child);
}

/// Focuses an element if it can take focus.
pub fn focus(element: &Element) {
    if let Some(element) = element.dyn_ref::<HtmlElement>() {
        let _ = element.focus();
    }
}

/// Fills a new textarea; one left empty needs no call.
pub fn set_textarea_value(element: &Element, value: &str) {
    if value.is_empty() {
        return;
    }
    if let Some(area) = element.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.set_value(value);
    }
}
