//! The surface-independent core of koder-mcp-elicitation: everything about an MCP
//! `elicitation/create` request that does not depend on where it is shown. The web component
//! (the workspace's root crate) and the terminal surface both decide through it.
//!
//! Plain Rust with no browser types, unit-tested natively:
//!
//! ```
//! use koder_mcp_elicitation_core::request::{parse_request, Mode, ParseOptions};
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

/// A person's answer checked against its request: actions, content rules, URL mode.
pub mod answer;
/// Elicitations answered together (a 2026-07-28 round): the queue line counts them, and the user's
/// cancel of one cancels the rest.
pub mod batch;
/// `validateContent`: the form's rules over content, with localized messages.
pub mod content;
/// The -32602 error every malformed request or schema becomes.
pub mod error;
/// Form state: values, visited fields, errors, and building the accepted content.
pub mod form;
/// Format assertions (`email`, `uri`, `date`, `date-time`).
pub mod format;
/// The messages compiled from `i18n/<locale>/*.ftl`, and locale negotiation.
pub mod i18n;
/// MCP 2026-07-28 multi round-trip: an `InputRequiredResult`'s elicitations by key, and the
/// `inputResponses` of the retry.
pub mod input_required;
/// Reads and writes JSON text as serde_json's `Value`, without serde's generic machinery.
pub mod json;
/// Every hostile-input limit, named in one place.
pub mod limits;
/// The words of the system notification for a request nobody is looking at.
pub mod notification;
/// One-tap shapes (a yes/no, a choice of 2–4, an approval) and the "remember" scopes of
/// `_meta.persist`.
pub mod one_tap;
/// A linear-time ECMA-262 regular-expression engine for `pattern`.
pub mod pattern;
/// The lifecycle rules: timeout precedence, draft retention, announcements, timers, poll backoff.
pub mod policy;
/// The result and the reply in the request's own protocol.
pub mod reply;
/// The four request shapes normalized into one `Request`.
pub mod request;
/// URLElicitationRequiredError (-32042): its elicitations parsed, and whether to retry.
pub mod required;
/// A seeded random generator for tests and the fuzzer.
pub mod rng;
/// `requestedSchema` compiled into renderable fields.
pub mod schema;
/// Tenant scope and the in-memory draft store.
pub mod scope;
/// The queue of elicitations: timeouts, rate limit, scope changes, settling exactly once.
pub mod session;
/// The one small sort every sorting site shares.
pub mod sort;
/// String routines smaller in wasm than std's: substring search and replace, char counting, join.
pub mod strings;
/// What a settled elicitation leaves for the person to read (inline summary, terminal).
pub mod summary;
/// URL-mode verdict: open, open with a warning, or blocked.
pub mod url;
/// URL mode across 2026-07-28 rounds: consent without a wait, and repeated URLs not asked again.
pub mod url_rounds;
/// The JSON-Schema keyword subset shared by the form and `validateContent`.
pub mod validate;
/// The JSON a surface hands its host: event details, error replies, the normalized request.
pub mod wire;
