//! Every limit on what a server may send, in one place. MCP servers are untrusted: a request past
//! any of these is refused with -32602 before anything renders, and work that could grow with
//! hostile input (pattern matching, nesting, hashing) is bounded here.

/// Longest server string: `message`, `title`, `description`, a property name, an option value or
/// label, a string default. Counted in code points.
pub const MAX_TEXT_CHARS: usize = 20_000;

/// Whether a server string is past [`MAX_TEXT_CHARS`] (the byte length is checked first, so
/// ordinary strings are never walked).
pub fn exceeds_text_limit(text: &str) -> bool {
    text.len() > MAX_TEXT_CHARS && crate::strings::char_count(text) > MAX_TEXT_CHARS
}

/// Longest URL kept for URL mode; longer ones are refused rather than shown.
pub const MAX_URL_CHARS: usize = 8_192;

/// Most URL-mode elicitations one URLElicitationRequiredError (-32042) may list.
pub const MAX_REQUIRED_ELICITATIONS: usize = 20;

/// Most entries one `InputRequiredResult`'s `inputRequests` may hold (MCP 2026-07-28), every
/// kind counted: elicitations, sampling, roots and unknown methods alike.
pub const MAX_INPUT_REQUESTS: usize = 20;

/// Longest `inputRequests` key, in code points: the key is echoed in errors and kept as the
/// elicitation's identity.
pub const MAX_INPUT_KEY_CHARS: usize = 256;

/// Longest scope string a relay accepts, in code points: a user, workspace or conversation id
/// (in the host's `scope` and in a person's token), a server name, an idempotency key. They are
/// stored, indexed and compared on every lookup, so they stay short.
pub const MAX_SCOPE_CHARS: usize = 256;

/// Longest request id or `elicitationId`, in code points.
pub const MAX_ID_CHARS: usize = 1024;

/// Most properties a form may have, counted across nested objects.
pub const MAX_PROPERTIES: usize = 100;

/// Most options one select may offer.
pub const MAX_OPTIONS: usize = 500;

/// Deepest nesting of `object` properties in a form (the root form is depth 0).
pub const MAX_FORM_DEPTH: usize = 3;

/// Deepest nesting of schemas `validateContent` accepts (root = 1), so hostile nesting cannot
/// exhaust the stack. Deeper than [`MAX_FORM_DEPTH`] because content validation takes any schema.
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// Below this depth `uniqueItems` hashing stops looking (equality is still checked exactly).
pub const MAX_HASH_DEPTH: usize = 64;

/// Longest accepted `pattern`, in characters.
pub const MAX_PATTERN_CHARS: usize = 10_000;

/// Largest compiled pattern, in instructions (counted repetition is expanded). Every VM step
/// costs a few nanoseconds, and one input character can take one step per instruction.
pub const MAX_PATTERN_PROGRAM: usize = 10_000;

/// Most compiled pattern instructions one schema may hold in all (four patterns at the size cap),
/// so a schema full of huge patterns is refused before it costs time or memory.
pub const MAX_SCHEMA_PATTERN_PROGRAM: usize = 4 * MAX_PATTERN_PROGRAM;

/// Most VM steps (threads added or advanced) one match may take before it gives up and reports
/// no match: a few milliseconds of work in the browser, whatever the pattern and the text.
pub const MAX_MATCH_STEPS: usize = 4_000_000;

/// Most pattern matching work all defaults of one form may need when the form opens (one
/// match's budget): long defaults under large patterns are refused.
pub const MAX_DEFAULTS_PATTERN_WORK: usize = MAX_MATCH_STEPS;

/// Deepest group nesting in a pattern; keeps the recursive parser and compiler far from the
/// stack limit.
pub const MAX_PATTERN_NESTING: usize = 128;

/// Longest `\p{...}` body in a pattern worth looking at.
pub const MAX_PATTERN_PROPERTY_NAME: usize = 64;

/// Most drafts kept at once; the oldest goes first, so a busy page cannot grow memory forever.
pub const MAX_DRAFTS: usize = 64;

/// Most URL-mode consents one surface remembers (MCP 2026-07-28: a repeated URL is not asked
/// again); the least recently used goes first.
pub const MAX_URL_CONSENTS: usize = 32;

/// Most languages one catalog holds (`i18n::Catalog::register_translation`, and the process-wide
/// catalog's `i18n::register_translation`); registering one again replaces it and does not count
/// twice.
pub const MAX_REGISTERED_LOCALES: usize = 64;
