//! Rust core of `<koder-mcp-elicitation>`, a web component that renders MCP `elicitation/create`
//! requests (form and URL mode) and settles each with exactly one `ElicitResult`.
//!
//! Everything except `dom`, `element` and `exports` is plain Rust with no browser types, so it is
//! unit-tested natively with `cargo test`:
//!
//! ```
//! use koder_mcp_elicitation::request::{parse_request, Mode, ParseOptions};
//! let request = serde_json::json!({
//!     "message": "Weather lookup needs your input",
//!     "requestedSchema": {
//!         "type": "object",
//!         "properties": { "city": { "type": "string" } },
//!         "required": ["city"]
//!     }
//! });
//! let parsed = parse_request(&request, &ParseOptions::default()).unwrap();
//! assert!(matches!(parsed.mode, Mode::Form(_)));
//! ```

/// `validateContent`: the form's rules over content, with localized messages.
pub mod content;
/// The -32602 error every malformed request or schema becomes.
pub mod error;
/// Form state: values, visited fields, errors, and building the accepted content.
pub mod form;
/// Format assertions (`email`, `uri`, `date`, `date-time`).
pub mod format;
/// Fluent bundles for `en-US` and `pt-BR` and locale negotiation.
pub mod i18n;
/// A linear-time ECMA-262 regular-expression engine for `pattern`.
pub mod pattern;
/// The result and the reply in the request's own protocol.
pub mod reply;
/// The four request shapes normalized into one `Request`.
pub mod request;
/// `requestedSchema` compiled into renderable fields.
pub mod schema;
/// Tenant scope and the in-memory draft store.
pub mod scope;
/// The queue of elicitations: timeouts, rate limit, scope changes, settling exactly once.
pub mod session;
/// URL-mode verdict: open, open with a warning, or blocked.
pub mod url;
/// The JSON-Schema keyword subset shared by the form and `validateContent`.
pub mod validate;

#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
pub mod element;
#[cfg(target_arch = "wasm32")]
mod exports;
