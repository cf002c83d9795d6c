//! The dialog's stylesheet. Colours, radius, font and spacing are CSS custom properties so a host
//! page can theme it; `::part` names let it restyle any piece.
//!
//! Each colour is a `light-dark()` pair, so the palette follows the `color-scheme` the element
//! inherits, as the browser's own controls do (a page that declares none stays light). Where an
//! MCP Apps host passes its theme variables (`--color-background-primary`, `--font-sans`, …) they
//! come before our own defaults.
//!
//! One constructable stylesheet is parsed once and adopted by every instance's shadow root. Unlike
//! a `<style>` element it is not subject to a page's `style-src`, so strict-CSP pages get the theme
//! too. Only a browser without `adoptedStyleSheets` gets a `<style>` element instead.

use std::cell::OnceCell;

use wasm_bindgen::JsValue;
use web_sys::{CssStyleSheet, ShadowRoot};

thread_local! {
    /// The shared sheet; `None` once construction failed (no constructable stylesheets).
    static SHARED: OnceCell<Option<CssStyleSheet>> = const { OnceCell::new() };
}

/// Styles `shadow`: adopts the shared sheet, or appends a `<style>` where that is unsupported.
pub fn adopt(shadow: &ShadowRoot) {
    let adoptable =
        js_sys::Reflect::has(shadow, &JsValue::from_str("adoptedStyleSheets")).unwrap_or(false);
    let sheet = if adoptable {
        SHARED.with(|shared| shared.get_or_init(build).clone())
    } else {
        None
    };
    match sheet {
        Some(sheet) => shadow.set_adopted_style_sheets(&js_sys::Array::of1(&sheet)),
        None => {
            let style = super::create(&super::document(), "style");
            style.set_text_content(Some(MINIFIED_STYLE));
            let _ = shadow.append_child(&style);
        }
    }
}

fn build() -> Option<CssStyleSheet> {
    let sheet = CssStyleSheet::new().ok()?;
    sheet.replace_sync(MINIFIED_STYLE).ok()?;
    Some(sheet)
}

/// What the wasm carries: [`STYLE`] minified at compile time.
const MINIFIED_STYLE: &str = minified_css!(STYLE);

/// The theme's CSS text.
pub const STYLE: &str = r#"
:host {
  --kme-font: var(--font-sans, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --kme-radius: var(--border-radius-md, 12px);
  --kme-space: 16px;
  --kme-width: 32rem;
  --kme-bg: var(--color-background-primary, light-dark(#ffffff, #1f2328));
  --kme-fg: var(--color-text-primary, light-dark(#1b1f24, #e8eaed));
  --kme-muted: var(--color-text-secondary, light-dark(#4d5661, #b4bcc6));
  --kme-border: var(--color-border-primary, light-dark(#8a94a0, #8b949e));
  --kme-accent: light-dark(#0b57d0, #8ab4f8);
  --kme-accent-fg: light-dark(#ffffff, #0d1117);
  --kme-danger: var(--color-text-danger, light-dark(#b3261e, #ffb4ab));
  --kme-warning-bg: var(--color-background-warning, light-dark(#fff4ce, #3d3200));
  --kme-warning-fg: var(--color-text-warning, light-dark(#4d3800, #ffe08a));
  --kme-field-bg: var(--color-background-primary, light-dark(#ffffff, #161a1f));
  --kme-backdrop: light-dark(rgb(15 20 25 / 55%), rgb(0 0 0 / 65%));
  --kme-focus: var(--color-ring-primary, light-dark(#0b57d0, #8ab4f8));
  display: contents;
}
/* Inline, the element is a block in the page's flow: a host can give it margins, scroll it into
   view, or watch it. The modal dialog sits in the top layer and takes no room. */
:host([presentation="inline"]) { display: block; }
dialog, .card {
  box-sizing: border-box;
  width: min(var(--kme-width), calc(100vw - 2 * var(--kme-space)));
  max-height: calc(100dvh - 2 * var(--kme-space));
  padding: 0;
  border: 1px solid var(--kme-border);
  border-radius: var(--kme-radius);
  background: var(--kme-bg);
  color: var(--kme-fg);
  font: 16px/1.5 var(--kme-font);
  box-shadow: 0 12px 40px rgb(0 0 0 / 30%);
  overflow: hidden;
  /* Unset, `--kme-color-scheme` leaves the scheme inherited from the page. */
  color-scheme: var(--kme-color-scheme);
  text-align: start;
}
dialog[open] { display: flex; flex-direction: column; }
dialog::backdrop { background: var(--kme-backdrop); }
/* presentation="inline": the same card in the page's flow, and the summary left in its place. */
.card { display: flex; flex-direction: column; width: auto; max-width: var(--kme-width); max-height: none; box-shadow: none; margin-block: 8px; }
[part~="summary"] { gap: 4px; padding: var(--kme-space); }
[part~="summary"] p, dl, dd { margin: 0; overflow-wrap: anywhere; }
[part~="summary"] [part~="server"] { color: var(--kme-muted); font-size: 0.875rem; }
[part~="summary-outcome"], dt { font-weight: 600; }
[part~="summary-row"] { display: flex; flex-wrap: wrap; gap: 0 8px; }
dd ul { margin: 0; padding-inline-start: 1.25em; }
@media (max-height: 28rem) {
  dialog[open] { display: block; overflow: auto; scroll-padding-block-end: 6rem; }
  footer { position: sticky; bottom: 0; background: var(--kme-bg); }
}
/* No opening animation: measured, any entrance animation or transition (keyframes, opacity
   only, or @starting-style) adds about 0.5 ms of style work to every open, a fifth of a small one. */
header, .body, footer { padding-inline: var(--kme-space); }
header { display: flex; justify-content: space-between; gap: 8px; padding-top: var(--kme-space); color: var(--kme-muted); font-size: 0.875rem; }
header p { margin: 0; }
[part~="queue"] { flex: none; align-self: flex-start; border: 1px solid var(--kme-border); border-radius: 999px; padding: 0 10px; white-space: nowrap; }
[part~="server"] { font-weight: 600; overflow-wrap: anywhere; }
h2 { margin: 4px var(--kme-space) 8px; font-size: 1.25rem; line-height: 1.3; overflow-wrap: anywhere; }
/* A divider under the title, as over the actions, so text scrolled under it reads as cut off. Always
   shown: a line shown only once scrolled (a scroll-state container query, or scroll-attached
   backgrounds) cost about 0.05 ms more style work per open. */
.body { overflow: auto; flex: 1 1 auto; min-height: 0; padding-block: 12px 4px; border-top: 1px solid var(--kme-border); }
[part~="message"] { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0 0 12px; }
[part~="warning"] { background: var(--kme-warning-bg); color: var(--kme-warning-fg); border-radius: 8px; padding: 8px 12px; margin: 0 0 12px; }
.legend { color: var(--kme-muted); font-size: 0.875rem; margin: 0 0 8px; }
/* Fields stack in flex columns: grid columns laid out the same look with 15 % more style and layout
   work per open (100 fields: 12.3 → 10.2 ms, a prebuilt dialog shown 60 times each way). */
form { display: flex; flex-direction: column; gap: 14px; margin: 0; }
[part~="field"] { display: flex; flex-direction: column; gap: 4px; min-width: 0; }
fieldset { display: grid; gap: 4px; min-width: 0; border: 1px solid var(--kme-border); border-radius: 8px; margin: 0; padding: 8px 12px 12px; }
fieldset.choices { border: 0; padding: 0; }
legend, label[part~="label"] { font-weight: 600; padding: 0; overflow-wrap: anywhere; }
.required { color: var(--kme-danger); }
.description { color: var(--kme-muted); font-size: 0.875rem; margin: 0; overflow-wrap: anywhere; }
input, select, textarea {
  box-sizing: border-box; font: inherit; color: var(--kme-fg); background: var(--kme-field-bg);
  border: 1px solid var(--kme-border); border-radius: 8px; padding: 8px 10px; width: 100%; min-width: 0;
}
textarea { min-height: 5rem; resize: vertical; }
input[type="checkbox"], input[type="radio"] { flex: none; width: 1.125rem; height: 1.125rem; margin: 0; padding: 0; accent-color: var(--kme-accent); }
input[role="switch"] {
  appearance: none; position: relative; width: 2.75rem; height: 1.5rem; border: 2px solid var(--kme-border);
  border-radius: 999px; background: var(--kme-field-bg); cursor: pointer;
}
input[role="switch"]::before {
  content: ""; position: absolute; top: 2px; inset-inline-start: 2px; width: calc(1.5rem - 8px); height: calc(1.5rem - 8px);
  border-radius: 50%; background: var(--kme-muted);
}
input[role="switch"]:checked { background: var(--kme-accent); border-color: var(--kme-accent); }
input[role="switch"]:checked::before { transform: translateX(1.25rem); background: var(--kme-accent-fg); }
/* Layout mirrors with the dialog's `dir`: logical properties where there are some, else these. */
[dir="rtl"] input[role="switch"]:checked::before { transform: translateX(-1.25rem); }
input[role="switch"][aria-invalid="true"] { border-color: var(--kme-danger); }
input[aria-invalid="true"], select[aria-invalid="true"], textarea[aria-invalid="true"], fieldset[aria-invalid="true"] { border-color: var(--kme-danger); }
:focus-visible { outline: 3px solid var(--kme-focus); outline-offset: 2px; }
[part~="error"] { color: var(--kme-danger); font-size: 0.875rem; margin: 0; min-height: 0; }
[part~="error"]:empty { display: none; }
.segmented { display: flex; flex-wrap: wrap; gap: 0; }
.segmented label { position: relative; display: inline-flex; align-items: center; gap: 6px; border: 1px solid var(--kme-border); padding: 8px 14px; margin: 0 0 -1px; margin-inline-end: -1px; cursor: pointer; background: var(--kme-field-bg); }
/* The radio itself is invisible but covers its segment, so a click anywhere on it is a click on the radio. */
.segmented input { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0; cursor: pointer; }
.segmented label:first-of-type { border-start-start-radius: 8px; border-end-start-radius: 8px; }
.segmented label:last-of-type { border-start-end-radius: 8px; border-end-end-radius: 8px; }
.segmented label:hover { background: color-mix(in srgb, var(--kme-accent) 10%, var(--kme-field-bg)); }
.segmented label:has(input:checked) { background: var(--kme-accent); color: var(--kme-accent-fg); border-color: var(--kme-accent); font-weight: 600; z-index: 1; }
.segmented label:has(input:checked) span::before { content: "✓ " / ""; }
.segmented label:has(input:focus-visible) { outline: 3px solid var(--kme-focus); outline-offset: 2px; z-index: 2; }
fieldset[aria-invalid="true"] .segmented label { border-color: var(--kme-danger); }
.check { display: flex; align-items: center; gap: 8px; }
.switch { display: flex; align-items: center; gap: 10px; }
.tags ul { list-style: none; display: flex; flex-wrap: wrap; gap: 6px; padding: 0; margin: 0 0 6px; }
.tags li { display: inline-flex; align-items: center; gap: 4px; border: 1px solid var(--kme-border); border-radius: 999px; padding: 2px 4px; padding-inline-start: 10px; }
.tags li button { border: 0; background: none; color: inherit; font: inherit; line-height: 1; min-width: 1.75rem; min-height: 1.75rem; padding: 0; cursor: pointer; border-radius: 999px; }
.tags li button:hover { background: color-mix(in srgb, var(--kme-fg) 12%, var(--kme-bg)); }
.url-box { border: 1px solid var(--kme-border); border-radius: 8px; padding: 8px 12px; margin: 0 0 12px; }
.url-box p { margin: 0; }
[part~="url"] { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; user-select: all; }
[part~="url-host"] { font-weight: 700; font-size: 1.1rem; overflow-wrap: anywhere; }
.note { color: var(--kme-muted); font-size: 0.875rem; }
[part~="reason"] { margin: 8px 0 0; }
#kme-reason-toggle { border: 0; background: none; padding: 2px 0; color: var(--kme-muted); }
#kme-reason-toggle::before { content: "\25B8\00A0"; content: "\25B8\00A0" / ""; }
[dir="rtl"] #kme-reason-toggle::before { content: "\25C2\00A0"; content: "\25C2\00A0" / ""; }
#kme-reason-toggle[aria-expanded="true"]::before { content: "\25BE\00A0"; content: "\25BE\00A0" / ""; }
#kme-reason-toggle:hover { text-decoration: underline; }
#kme-reason { margin-top: 4px; }
[part~="countdown"] { margin: 0 var(--kme-space); font-weight: 600; color: var(--kme-danger); }
footer { display: flex; flex-wrap: wrap; justify-content: flex-end; gap: 8px; padding-block: 12px var(--kme-space); border-top: 1px solid var(--kme-border); }
@media (max-width: 30rem) {
  :host { --kme-space: 12px; }
  footer button { flex: 1 1 auto; }
}
button { font: inherit; border-radius: 8px; padding: 8px 16px; cursor: pointer; border: 1px solid var(--kme-border); background: var(--kme-bg); color: var(--kme-fg); }
/* The primary action: submit, Open page, or Continue (where Open again is not the last button). */
button[part~="accept"], button[part~="open"]:last-child, button[part~="continue"] { background: var(--kme-accent); color: var(--kme-accent-fg); border-color: var(--kme-accent); font-weight: 600; }
button:hover:not(:disabled) { background: color-mix(in srgb, var(--kme-fg) 8%, var(--kme-bg)); }
button[part~="accept"]:hover:not(:disabled), button[part~="open"]:last-child:hover:not(:disabled), button[part~="continue"]:hover:not(:disabled) { background: color-mix(in srgb, var(--kme-accent) 88%, var(--kme-fg)); }
button:disabled { opacity: 0.55; cursor: not-allowed; }
@media (prefers-reduced-motion: no-preference) {
  input[role="switch"]::before { transition: transform 120ms ease-out; }
}
@media (forced-colors: active) {
  input[role="switch"]::before { background: CanvasText; }
  input[role="switch"]:checked { background: Highlight; }
  input[role="switch"]:checked::before { background: Canvas; }
  .segmented label:has(input:checked) { outline: 2px solid Highlight; }
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
"#;
