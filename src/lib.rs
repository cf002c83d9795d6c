//! `<koder-mcp-elicitation>`: the web surface of koder-mcp-elicitation. Everything a surface does
//! not need a browser for lives in the core crate (`crates/core`), re-exported here so the
//! controller and the browser tests name it as before. This crate adds only the browser layer:
//! the controller (`element`), the DOM it renders (`dom`), the module exports (`exports`) and the
//! round `elicitInputs()` reads (`inputs`).

pub use koder_mcp_elicitation_core::{
    batch, content, error, form, format, i18n, input_required, json, limits, notification, one_tap,
    pattern, policy, reply, request, required, rng, schema, scope, session, sort, strings, summary,
    url, url_rounds, validate, wire,
};

#[cfg(target_arch = "wasm32")]
mod allocator;
/// Compile-time CSS minification for the stylesheet.
#[macro_use]
pub mod css;
#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
pub mod element;
#[cfg(target_arch = "wasm32")]
mod exports;
#[cfg(target_arch = "wasm32")]
mod inputs;
