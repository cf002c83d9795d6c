//! Stable-Rust fuzzer for everything that reads server input: request parsing (as a request, a
//! -32042 error and an MCP 2026-07-28 round), form-schema compilation (strict and lenient),
//! `validateContent` (`Rules::compile` + `validate`), the regular-expression engine and the
//! format checks.
//!
//! No nightly, so no libFuzzer: this is a coverage-free mutation + generation fuzzer driven by a
//! seeded RNG. Seeds are every fixture the project has (the JSON-Schema-Test-Suite, the request
//! examples of `src/request.rs` and `tests/support`, the MCP 2025-11-25 elicitation chapter's
//! JSON examples) plus a list of hostile values. Each input runs under `catch_unwind`; a panic, a
//! refusal that is not a -32602, a broken invariant, or an input slower than the freeze limit is
//! a failure and is printed with its input. The last line says how many inputs each target ran.
//!
//! Environment:
//!   FUZZ_SECONDS   seconds per target (default 40; `npm test` uses the default)
//!   FUZZ_SEED      RNG seed (default: from the clock; printed so a run can be replayed)
//!   FUZZ_TARGETS   comma-separated subset of request,schema,validate,pattern,format
//!   FUZZ_FREEZE_MS an input needing more CPU time than this fails (default 3000: `cargo test`
//!                  runs a debug build, 10-30 times slower than release)
//!
//! Longer run: `FUZZ_SECONDS=600 cargo test --release --test fuzz`.

use std::cell::RefCell;
use std::fs;
use std::hash::{Hash, Hasher};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use koder_mcp_elicitation_core::error::INVALID_PARAMS;
use koder_mcp_elicitation_core::form::{FormState, Input};
use koder_mcp_elicitation_core::format;
use koder_mcp_elicitation_core::input_required::parse_input_round_text;
use koder_mcp_elicitation_core::limits::{MAX_INPUT_KEY_CHARS, MAX_INPUT_REQUESTS, MAX_PROPERTIES};
use koder_mcp_elicitation_core::pattern::Pattern;
use koder_mcp_elicitation_core::request::{parse_request_text, Mode, ParseOptions};
use koder_mcp_elicitation_core::required::parse_required_text;
use koder_mcp_elicitation_core::schema::{compile_form_schema, FieldKind, FormSchema, TextFormat};
use koder_mcp_elicitation_core::validate::{Rules, SUPPORTED_KEYWORDS};
use serde_json::{json, Map, Number, Value};

#[path = "common/fixture_files.rs"]
mod fixture_files;
use fixture_files::collect_json_files;

// ---------------------------------------------------------------------------------------------
// RNG

// SplitMix64, shared with the core's property tests.
use koder_mcp_elicitation_core::rng::Rng;

// ---------------------------------------------------------------------------------------------
// Seeds

/// Everything the fuzzers start from.
#[derive(Default)]
struct Corpus {
    /// Whole requests (any shape), as values.
    requests: Vec<Value>,
    /// Schemas: suite schemas, requested schemas, property schemas.
    schemas: Vec<Value>,
    /// Instances to validate.
    instances: Vec<Value>,
    /// Regular expressions.
    patterns: Vec<String>,
    /// Strings worth feeding to patterns and formats.
    strings: Vec<String>,
}

/// Hostile or odd strings used everywhere a string goes.
const HOSTILE_STRINGS: &[&str] = &[
    "",
    " ",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "<svg onload=alert(1)>",
    "</style><script>alert(1)</script>",
    "\u{202e}evil\u{202c}",
    "a\u{200b}b\u{200d}c\u{feff}",
    "__proto__",
    "constructor",
    "toString",
    "prototype",
    "hasOwnProperty",
    "\u{0}",
    "\n\r\t",
    "😀",
    "é",
    "\u{10ffff}",
    "1e308",
    "-0",
    "NaN",
    "Infinity",
    "{id}",
    "a.b",
    "a/b~c",
    "https://example.com/a",
    "http://localhost:8080/",
    "https://user:pass@example.com/",
    "https://xn--80ak6aa92e.com/",
    "data:text/html,<script>alert(1)</script>",
    "2024-02-29T12:00:00Z",
    "2023-02-29",
    "joe@example.com",
    "string",
    "object",
    "array",
    "integer",
    "number",
    "boolean",
    "null",
    "form",
    "url",
    "elicitation/create",
    "elicitation/request",
    "2.0",
    "textarea",
    "email",
    "uri",
    "date",
    "date-time",
    "password",
];

/// Patterns known to be hard for backtracking engines, or odd for parsers.
const HOSTILE_PATTERNS: &[&str] = &[
    "^(a+)+$",
    "^(a|a)*$",
    "^(a*)*b$",
    "(x+x+)+y",
    "^(a|aa)+$",
    "^([a-z]+)*[0-9]$",
    "(.*a){20}",
    "^(?:a?){30}a{30}$",
    "a{0,1000}",
    "(?:a{0,100}){0,10}",
    "(?:){4294967295}",
    "(?:(?:){1000}){1000}",
    "(?:a{0}){100000}",
    "(?:^){1000}",
    "(?:\\b){100}",
    "(?:|){5000}",
    "[\\s\\S]*[\\s\\S]*[\\s\\S]*$",
    "\\p{L}+\\p{N}*",
    "^[\\u{0}-\\u{10FFFF}]+$",
    "(?<n>a)|(?<m>b)",
    "\\uD83D\\uDE00",
    "[\\uD800-\\uDBFF]",
    "((((((((((a))))))))))",
    "^.*$",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| fail_setup(&format!("cannot read {}: {e}", path.display())));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| fail_setup(&format!("{} is not JSON: {e}", path.display())))
}

fn fail_setup(message: &str) -> ! {
    eprintln!("fuzz: {message}");
    process::exit(1);
}

/// Walks a value, collecting every `pattern` keyword and every string.
fn harvest(value: &Value, corpus: &mut Corpus) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key == "pattern" {
                    if let Value::String(p) = child {
                        corpus.patterns.push(p.clone());
                    }
                }
                harvest(child, corpus);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| harvest(item, corpus)),
        Value::String(text) if text.len() < 200 => corpus.strings.push(text.clone()),
        _ => {}
    }
}

/// Schemas reachable inside a request or schema (requestedSchema, properties, items).
fn harvest_schemas(value: &Value, corpus: &mut Corpus) {
    let Value::Object(map) = value else {
        return;
    };
    for key in ["requestedSchema", "schema"] {
        if let Some(schema) = map.get(key) {
            corpus.schemas.push(schema.clone());
            harvest_schemas(schema, corpus);
        }
    }
    if let Some(params) = map.get("params") {
        harvest_schemas(params, corpus);
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for child in properties.values() {
            corpus.schemas.push(child.clone());
            harvest_schemas(child, corpus);
        }
    }
    if let Some(items) = map.get("items") {
        corpus.schemas.push(items.clone());
    }
}

fn load_corpus() -> Corpus {
    let mut corpus = Corpus::default();
    let root = fixtures();

    let mut suite = Vec::new();
    collect_json_files(&root.join("json-schema-test-suite"), &mut suite);
    suite.sort();
    if suite.is_empty() {
        fail_setup("no JSON-Schema-Test-Suite files found under tests/fixtures");
    }
    for file in &suite {
        let Value::Array(groups) = read_json(file) else {
            continue;
        };
        for group in &groups {
            let schema = group.get("schema").cloned().unwrap_or(Value::Null);
            harvest(&schema, &mut corpus);
            corpus.schemas.push(schema);
            for case in group
                .get("tests")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(data) = case.get("data") {
                    harvest(data, &mut corpus);
                    corpus.instances.push(data.clone());
                }
            }
        }
    }

    for name in ["request-examples.json", "mcp-elicitation-2025-11-25.json"] {
        let file = read_json(&root.join("fuzz").join(name));
        for example in file
            .get("examples")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            harvest(example, &mut corpus);
            harvest_schemas(example, &mut corpus);
            // Property schemas from the spec become one-field forms, results become instances.
            if example.get("type").and_then(Value::as_str).is_some()
                && example.get("jsonrpc").is_none()
                && example.get("id").is_none()
            {
                corpus.schemas.push(example.clone());
                corpus.requests.push(json!({
                    "message": "spec example",
                    "requestedSchema": {"type": "object", "properties": {"field": example}},
                }));
            }
            if let Some(content) = example.pointer("/result/content") {
                corpus.instances.push(content.clone());
            }
            corpus.requests.push(example.clone());
        }
    }
    corpus
        .patterns
        .extend(HOSTILE_PATTERNS.iter().map(|p| p.to_string()));
    corpus
        .strings
        .extend(HOSTILE_STRINGS.iter().map(|s| s.to_string()));
    corpus.patterns.sort();
    corpus.patterns.dedup();
    corpus.strings.sort();
    corpus.strings.dedup();
    corpus
}

// ---------------------------------------------------------------------------------------------
// Generation

const KEYWORDS_EXTRA: &[&str] = &[
    "enumNames",
    "oneOf",
    "anyOf",
    "mode",
    "message",
    "requestedSchema",
    "url",
    "elicitationId",
    "jsonrpc",
    "id",
    "method",
    "params",
    "schema",
    "timeout",
    "__proto__",
    "constructor",
];

fn random_string(rng: &mut Rng, corpus: &Corpus) -> String {
    match rng.below(8) {
        0..=3 => rng.pick(&corpus.strings).cloned().unwrap_or_default(),
        4 => rng
            .pick(HOSTILE_STRINGS)
            .map(|s| s.to_string())
            .unwrap_or_default(),
        5 => {
            // A long repetition: the size limits must hold without freezing.
            let unit = rng.pick(&["a", "x", "é", "😀", "<b>", "\u{202e}"]).copied();
            let count = match rng.below(4) {
                0 => 100,
                1 => 1_000,
                2 => 20_001,
                _ => 100_000,
            };
            unit.unwrap_or("a").repeat(count)
        }
        _ => {
            let len = rng.size(40);
            (0..len)
                .map(|_| match rng.below(10) {
                    0 => char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('?'),
                    1 => char::from_u32(rng.below(0x80) as u32).unwrap_or('?'),
                    _ => char::from(b'a' + rng.below(26) as u8),
                })
                .collect()
        }
    }
}

fn random_number(rng: &mut Rng) -> Value {
    let n = match rng.below(12) {
        0 => Number::from(0u64),
        1 => Number::from(u64::MAX),
        2 => Number::from(i64::MIN),
        3 => Number::from_f64(-0.0).unwrap_or_else(|| Number::from(0)),
        4 => Number::from_f64(1e308).unwrap_or_else(|| Number::from(0)),
        5 => Number::from_f64(-1e308).unwrap_or_else(|| Number::from(0)),
        6 => Number::from_f64(5e-324).unwrap_or_else(|| Number::from(0)),
        7 => Number::from_f64(9_007_199_254_740_993.0).unwrap_or_else(|| Number::from(0)),
        8 => Number::from_f64(1.5).unwrap_or_else(|| Number::from(0)),
        9 => Number::from(rng.below(10) as i64 - 3),
        10 => Number::from(4_294_967_296u64),
        _ => {
            Number::from_f64((rng.next_u64() as f64) / 1e9 - 5e9).unwrap_or_else(|| Number::from(0))
        }
    };
    Value::Number(n)
}

fn random_key(rng: &mut Rng, corpus: &Corpus) -> String {
    match rng.below(6) {
        0 | 1 => rng
            .pick(SUPPORTED_KEYWORDS)
            .map(|s| s.to_string())
            .unwrap_or_default(),
        2 => rng
            .pick(KEYWORDS_EXTRA)
            .map(|s| s.to_string())
            .unwrap_or_default(),
        _ => random_string(rng, corpus).chars().take(64).collect(),
    }
}

fn random_value(rng: &mut Rng, corpus: &Corpus, depth: usize) -> Value {
    let leaf = depth == 0 || rng.chance(40);
    match rng.below(if leaf { 5 } else { 9 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => random_number(rng),
        3 | 4 => Value::String(random_string(rng, corpus)),
        5 => rng.pick(&corpus.instances).cloned().unwrap_or(Value::Null),
        6 => random_schema(rng, corpus, depth - 1),
        7 => Value::Array(
            (0..rng.size(8))
                .map(|_| random_value(rng, corpus, depth - 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.size(8) {
                map.insert(
                    random_key(rng, corpus),
                    random_value(rng, corpus, depth - 1),
                );
            }
            Value::Object(map)
        }
    }
}

/// A schema built from the understood keywords, mostly well-typed, sometimes not.
fn random_schema(rng: &mut Rng, corpus: &Corpus, depth: usize) -> Value {
    if rng.chance(10) {
        return Value::Bool(rng.chance(50));
    }
    if rng.chance(25) {
        if let Some(seed) = rng.pick(&corpus.schemas) {
            return seed.clone();
        }
    }
    let types = [
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];
    let mut map = Map::new();
    let kind = rng.pick(&types).copied().unwrap_or("string");
    if rng.chance(85) {
        map.insert("type".into(), json!(kind));
    }
    for _ in 0..rng.size(6) {
        let list = if rng.chance(85) {
            SUPPORTED_KEYWORDS
        } else {
            KEYWORDS_EXTRA
        };
        let keyword = rng.pick(list).copied().unwrap_or("type");
        let wrong = rng.chance(10);
        let value = if wrong {
            random_value(rng, corpus, depth.min(2))
        } else {
            match keyword {
                "type" => json!(rng.pick(&types).copied().unwrap_or("string")),
                "properties" if depth > 0 => {
                    let mut props = Map::new();
                    for _ in 0..rng.size(6) {
                        props.insert(
                            random_key(rng, corpus),
                            random_schema(rng, corpus, depth - 1),
                        );
                    }
                    Value::Object(props)
                }
                "items" if depth > 0 => random_schema(rng, corpus, depth - 1),
                "required" => Value::Array(
                    (0..rng.size(4))
                        .map(|_| Value::String(random_key(rng, corpus)))
                        .collect(),
                ),
                "minLength" | "maxLength" | "minItems" | "maxItems" => {
                    json!(rng.pick(&[0u64, 1, 2, 5, 100, u64::MAX]).copied().unwrap_or(0))
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    random_number(rng)
                }
                "pattern" => json!(rng.pick(&corpus.patterns).cloned().unwrap_or_default()),
                "format" => json!(rng
                    .pick(&["email", "uri", "date", "date-time", "textarea", "password", "x"])
                    .copied()
                    .unwrap_or("email")),
                "enum" => Value::Array(
                    (0..rng.size(8))
                        .map(|_| {
                            if rng.chance(70) {
                                Value::String(random_string(rng, corpus))
                            } else {
                                random_value(rng, corpus, 1)
                            }
                        })
                        .collect(),
                ),
                "enumNames" => Value::Array(
                    (0..rng.size(8))
                        .map(|_| Value::String(random_string(rng, corpus)))
                        .collect(),
                ),
                "oneOf" | "anyOf" => Value::Array(
                    (0..rng.size(8))
                        .map(|_| {
                            json!({"const": random_string(rng, corpus), "title": random_string(rng, corpus)})
                        })
                        .collect(),
                ),
                "uniqueItems" => Value::Bool(rng.chance(50)),
                _ => random_value(rng, corpus, depth.min(2)),
            }
        };
        map.insert(keyword.to_string(), value);
    }
    Value::Object(map)
}

/// A whole request in one of the four shapes around a generated or seeded schema.
fn random_request(rng: &mut Rng, corpus: &Corpus) -> Value {
    if rng.chance(40) {
        if let Some(seed) = rng.pick(&corpus.requests) {
            return seed.clone();
        }
    }
    let mut schema = if rng.chance(30) {
        rng.pick(&corpus.schemas).cloned().unwrap_or(Value::Null)
    } else {
        random_schema(rng, corpus, 4)
    };
    if rng.chance(60) {
        if let Value::Object(map) = &mut schema {
            map.insert("type".into(), json!("object"));
        }
    }
    let message = random_string(rng, corpus);
    let params = if rng.chance(15) {
        json!({"mode": "url", "message": message, "url": random_string(rng, corpus), "elicitationId": random_string(rng, corpus)})
    } else {
        json!({"message": message, "requestedSchema": schema})
    };
    match rng.below(3) {
        0 => {
            json!({"jsonrpc": "2.0", "id": rng.below(100), "method": "elicitation/create", "params": params})
        }
        1 => {
            let mut envelope = json!({"type": "elicitation/request", "id": random_string(rng, corpus), "title": random_string(rng, corpus)});
            if let (Value::Object(env), Value::Object(params)) = (&mut envelope, params) {
                for (key, value) in params {
                    let key = match key.as_str() {
                        "requestedSchema" => "schema".to_string(),
                        "message" => "description".to_string(),
                        _ => key,
                    };
                    env.insert(key, value);
                }
                if rng.chance(30) {
                    env.insert("timeout".into(), random_number(rng));
                }
            }
            envelope
        }
        _ => params,
    }
}

// ---------------------------------------------------------------------------------------------
// Mutation

/// Every node's path (object keys and array indexes), up to a bound.
fn node_paths(value: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    if out.len() > 400 {
        return;
    }
    out.push(prefix.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                prefix.push(Step::Key(key.clone()));
                node_paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                prefix.push(Step::Index(index));
                node_paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn node_at<'a>(value: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut node = value;
    for step in path {
        node = match (step, node) {
            (Step::Key(key), Value::Object(map)) => map.get_mut(key)?,
            (Step::Index(index), Value::Array(items)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    Some(node)
}

/// One structural mutation at a random node.
fn mutate_value(rng: &mut Rng, corpus: &Corpus, value: &mut Value) {
    let mut paths = Vec::new();
    node_paths(value, &mut Vec::new(), &mut paths);
    let Some(path) = rng.pick(&paths).cloned() else {
        return;
    };
    let Some(node) = node_at(value, &path) else {
        return;
    };
    match rng.below(12) {
        0 | 1 => *node = random_value(rng, corpus, 3),
        2 => *node = random_schema(rng, corpus, 3),
        3 => *node = Value::String(random_string(rng, corpus)),
        4 => *node = random_number(rng),
        5 => {
            // Deep nesting around the node.
            let levels = rng.pick(&[4usize, 5, 8, 33, 100]).copied().unwrap_or(4);
            let mut nested = node.take();
            for _ in 0..levels {
                nested = if rng.chance(50) {
                    json!({"type": "object", "properties": {"n": nested}})
                } else {
                    json!([nested])
                };
            }
            *node = nested;
        }
        6 => match node {
            Value::Object(map) => {
                let key = random_key(rng, corpus);
                map.insert(key, random_value(rng, corpus, 2));
            }
            Value::Array(items) => items.push(random_value(rng, corpus, 2)),
            other => {
                let mut map = Map::new();
                map.insert(random_key(rng, corpus), other.take());
                *other = Value::Object(map);
            }
        },
        7 => match node {
            Value::Object(map) if !map.is_empty() => {
                let index = rng.below(map.len());
                if let Some(key) = map.keys().nth(index).cloned() {
                    let child = map.remove(&key).unwrap_or(Value::Null);
                    if rng.chance(50) {
                        map.insert(random_key(rng, corpus), child);
                    }
                }
            }
            Value::Array(items) if !items.is_empty() => {
                let index = rng.below(items.len());
                items.remove(index);
            }
            _ => *node = Value::Null,
        },
        8 => {
            // Many properties / options: the size limits.
            let count = rng
                .pick(&[6usize, 99, 100, 101, 500, 501, 10_000])
                .copied()
                .unwrap_or(6);
            if rng.chance(50) {
                let mut props = Map::new();
                for i in 0..count {
                    props.insert(format!("p{i}"), json!({"type": "string"}));
                }
                *node = json!({"type": "object", "properties": props});
            } else {
                *node = Value::Array((0..count).map(|i| json!(format!("o{i}"))).collect());
            }
        }
        9 => {
            if let Some(seed) = rng.pick(&corpus.schemas) {
                *node = seed.clone();
            }
        }
        10 => {
            if let Value::Array(items) = node {
                if let Some(first) = items.first().cloned() {
                    items.push(first); // duplicates
                }
            } else if let Value::Object(map) = node {
                map.insert("__proto__".into(), random_value(rng, corpus, 2));
            }
        }
        _ => {
            if let Some(p) = rng.pick(&corpus.patterns) {
                if let Value::Object(map) = node {
                    map.insert("pattern".into(), json!(p));
                } else {
                    *node = json!(p);
                }
            }
        }
    }
}

const TEXT_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\udfff",
    "1e999",
    "-0",
    "NaN",
    "null",
    "true",
    "0.0000001",
    "18446744073709551616",
    "\"__proto__\":",
    "\u{0}",
    "\u{feff}",
];

/// Mutates the JSON text itself (works on characters, so the text stays UTF-8).
fn mutate_text(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(5) {
            0 => {
                if let Some(token) = rng.pick(TEXT_TOKENS) {
                    chars.splice(at..at, token.chars());
                }
            }
            1 => {
                let end = (at + rng.size(16)).min(chars.len());
                chars.drain(at..end);
            }
            2 => {
                let end = (at + rng.size(32)).min(chars.len());
                let copy: Vec<char> = chars.get(at..end).map(<[char]>::to_vec).unwrap_or_default();
                let to = rng.below(chars.len() + 1);
                chars.splice(to..to, copy);
            }
            3 => {
                if let Some(c) = chars.get_mut(at) {
                    *c = char::from_u32(u32::from(*c) ^ (1 << rng.below(7))).unwrap_or('?');
                }
            }
            _ => {
                let c = char::from_u32(rng.below(0x80) as u32).unwrap_or(' ');
                chars.insert(at, c);
            }
        }
    }
    chars.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// Running

/// CPU time this thread has run, from Linux's schedstat; wall time elsewhere. The CI machine is
/// shared, so a freeze is judged by the work done, not by how long the scheduler made us wait.
struct Clock {
    cpu: bool,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            cpu: Self::thread_cpu().is_some(),
        }
    }

    fn thread_cpu() -> Option<Duration> {
        let text = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
        Some(Duration::from_nanos(nanos))
    }

    fn now(&self, wall: Instant) -> Duration {
        if self.cpu {
            Self::thread_cpu().unwrap_or_else(|| wall.elapsed())
        } else {
            wall.elapsed()
        }
    }

    fn kind(&self) -> &'static str {
        if self.cpu {
            "CPU time"
        } else {
            "wall time"
        }
    }
}

thread_local! {
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

struct Outcome {
    name: &'static str,
    inputs: u64,
    accepted: u64,
    failures: Vec<String>,
    slowest: Duration,
    slowest_input: String,
}

/// Shortened, escaped input for a report.
fn show(input: &str) -> String {
    let escaped: String = input.chars().flat_map(char::escape_debug).collect();
    if escaped.chars().count() > 2_000 {
        let head: String = escaped.chars().take(2_000).collect();
        format!("{head}… ({} chars in all)", input.chars().count())
    } else {
        escaped
    }
}

/// Runs `target` on generated inputs for `budget`. The target returns `Ok(true)` when the input
/// was accepted, `Ok(false)` when it was properly refused, `Err` when an invariant broke.
fn run(
    name: &'static str,
    budget: Duration,
    freeze: Duration,
    rng: &mut Rng,
    mut generate: impl FnMut(&mut Rng) -> String,
    target: impl Fn(&str) -> Result<bool, String>,
) -> Outcome {
    let mut outcome = Outcome {
        name,
        inputs: 0,
        accepted: 0,
        failures: Vec::new(),
        slowest: Duration::ZERO,
        slowest_input: String::new(),
    };
    let start = Instant::now();
    let clock = Clock::new();
    while start.elapsed() < budget && outcome.failures.len() < 10 {
        let input = generate(rng);
        let wall = Instant::now();
        let began = clock.now(wall);
        let result = panic::catch_unwind(AssertUnwindSafe(|| target(&input)));
        let took = clock.now(wall).saturating_sub(began);
        outcome.inputs += 1;
        if took > outcome.slowest {
            outcome.slowest = took;
            outcome.slowest_input = show(&input);
        }
        match result {
            Ok(Ok(accepted)) => outcome.accepted += u64::from(accepted),
            Ok(Err(problem)) => outcome
                .failures
                .push(format!("{name}: {problem}\n  input: {}", show(&input))),
            Err(_) => {
                let message = LAST_PANIC.with(|p| p.borrow().clone());
                outcome.failures.push(format!(
                    "{name}: PANIC {message}\n  input: {}",
                    show(&input)
                ));
            }
        }
        if took > freeze {
            eprintln!(
                "fuzz: {name}: slow input ({} ms of {}): {}",
                took.as_millis(),
                clock.kind(),
                show(&input).chars().take(600).collect::<String>()
            );
            outcome.failures.push(format!(
                "{name}: took {} ms of {} (freeze limit {} ms)\n  input: {}",
                took.as_millis(),
                clock.kind(),
                freeze.as_millis(),
                show(&input)
            ));
        }
    }
    outcome
}

fn check_error(code: i32, message: &str) -> Result<bool, String> {
    if code != INVALID_PARAMS {
        return Err(format!("refused with code {code}, not -32602: {message}"));
    }
    if message.trim().is_empty() {
        return Err("refused with an empty message".into());
    }
    Ok(false)
}

/// Every violation path must be a JSON Pointer into the instance.
fn check_violations(rules: &Rules, instance: &Value) -> Result<(), String> {
    for violation in rules.validate(instance) {
        if instance.pointer(&violation.path).is_none() {
            return Err(format!(
                "violation path {:?} does not point into the instance",
                violation.path
            ));
        }
    }
    Ok(())
}

/// The same input as a URLElicitationRequiredError (-32042), as is and as the one elicitation
/// of its data: refused with -32602, or only URL-mode elicitations with an id, within the limit.
fn required_target(text: &str) -> Result<(), String> {
    let mut candidates = vec![text.to_string()];
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let params = value.get("params").cloned().unwrap_or(value);
        candidates.push(json!({"code": -32042, "data": {"elicitations": [params]}}).to_string());
    }
    for candidate in &candidates {
        match parse_required_text(candidate, &ParseOptions::default()) {
            Err(err) => check_error(err.code, &err.message).map(|_| ())?,
            Ok(requests) => {
                if requests.is_empty() || requests.len() > 20 {
                    return Err(format!("{} required elicitations accepted", requests.len()));
                }
                for request in &requests {
                    match &request.mode {
                        Mode::Url(url) if url.elicitation_id.is_some() => {}
                        _ => return Err("a -32042 elicitation without URL mode and an id".into()),
                    }
                }
            }
        }
    }
    Ok(())
}

/// The same input as an MCP 2026-07-28 round, as is and as the elicitation entry of a result
/// beside a sampling entry: refused with -32602, or within the limits, keyed by the map's keys.
fn input_round_target(text: &str) -> Result<(), String> {
    let mut candidates = vec![text.to_string()];
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let params = value.get("params").cloned().unwrap_or(value);
        candidates.push(
            json!({"resultType": "input_required", "requestState": "s", "inputRequests": {
                "sample": {"method": "sampling/createMessage", "params": {}},
                "k": {"method": "elicitation/create", "params": params}
            }})
            .to_string(),
        );
    }
    for candidate in &candidates {
        match parse_input_round_text(candidate, &ParseOptions::default()) {
            Err(err) => check_error(err.code, &err.message).map(|_| ())?,
            Ok(round) => {
                let entries = round.elicitations.len() + round.others.len();
                if entries > MAX_INPUT_REQUESTS {
                    return Err(format!("{entries} input requests accepted"));
                }
                for entry in &round.elicitations {
                    if entry.request.elicitation_id != entry.key || entry.key.is_empty() {
                        return Err(format!("entry {:?} is not keyed by its key", entry.key));
                    }
                    if entry.key.chars().count() > MAX_INPUT_KEY_CHARS {
                        return Err("an input request key over the limit was accepted".into());
                    }
                }
            }
        }
    }
    Ok(())
}

fn request_target(text: &str) -> Result<bool, String> {
    required_target(text)?;
    input_round_target(text)?;
    let mut accepted = false;
    for strict in [true, false] {
        let options = ParseOptions {
            strict,
            local_id: "local".into(),
        };
        match parse_request_text(text, &options) {
            Err(err) => {
                check_error(err.code, &err.message)?;
            }
            Ok(request) => {
                accepted = true;
                if request.message.chars().count() > 20_000 {
                    return Err("a message over 20,000 characters was accepted".into());
                }
                if let Mode::Form(schema) = &request.mode {
                    if schema.fields.len() > MAX_PROPERTIES {
                        return Err(format!("{} fields accepted", schema.fields.len()));
                    }
                    // Untouched defaults are what a user who just presses Submit sends; then a
                    // user fills the fields in (choices seeded from the input, so it replays).
                    let mut state = FormState::new(schema);
                    check_form_content(schema, &state, "untouched defaults")?;
                    let mut rng = Rng(text_seed(text));
                    for round in 0..3 {
                        for (index, field) in schema.fields.iter().enumerate() {
                            if rng.chance(70) {
                                type_into(&mut rng, &mut state, index, &field.kind);
                            }
                        }
                        check_form_content(
                            schema,
                            &state,
                            &format!("typed values, round {round}"),
                        )?;
                    }
                }
            }
        }
    }
    Ok(accepted)
}

/// The contract: the accept button is enabled exactly when the content can be built, and the
/// content the form builds is valid for `validateContent` with the same schema.
fn check_form_content(schema: &FormSchema, state: &FormState, when: &str) -> Result<(), String> {
    let valid = state.is_valid(schema);
    match state.content(schema) {
        Ok(content) => {
            if !valid {
                return Err(format!(
                    "{when}: content {content} built from an invalid form"
                ));
            }
            let violations = schema.rules.validate(&content);
            if !violations.is_empty() {
                return Err(format!(
                    "{when}: the form's own content {content} breaks its schema: {violations:?}"
                ));
            }
        }
        Err(problems) if valid => {
            return Err(format!(
                "{when}: the form says valid but cannot build its content: {problems:?}"
            ))
        }
        Err(_) => {}
    }
    Ok(())
}

fn text_seed(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// What a user could put into a control of this kind (the browser only hands over strings).
fn type_into(rng: &mut Rng, state: &mut FormState, index: usize, kind: &FieldKind) {
    const TYPED: &[&str] = &[
        "",
        " ",
        "a",
        "Lisbon",
        "joe@example.com",
        "not an email",
        "https://example.com/x",
        "2024-02-29",
        "2023-02-29",
        "2024-01-01T10:00",
        "2024-01-01T10:00:59",
        "0",
        "-0",
        "1",
        "1.5",
        "1e308",
        "-1e308",
        "1e309",
        "NaN",
        "12345678901234567890",
        "0.1",
        "007",
        "<b>x</b>",
        "\u{202e}x",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
    ];
    let pick = |rng: &mut Rng| rng.pick(TYPED).copied().unwrap_or("").to_string();
    match kind {
        FieldKind::Number { .. } => {
            let text = pick(rng);
            let bad = rng.chance(10);
            state.set_number(index, text, bad);
        }
        FieldKind::Text {
            format: TextFormat::DateTime,
            ..
        } => {
            let offset = rng
                .pick(&[0, 60, -300, 330, 840, -720])
                .copied()
                .unwrap_or(0);
            state.set_local_date_time(index, pick(rng), offset);
        }
        FieldKind::Text { .. } => state.set(index, Input::Text(pick(rng))),
        FieldKind::Toggle => state.set(index, Input::Toggle(rng.chance(50))),
        FieldKind::Choice { options } => {
            let choice = match rng.below(4) {
                0 => None,
                1 => Some(pick(rng)),
                _ => rng.pick(options).map(|o| o.value.clone()),
            };
            state.set(index, Input::Choice(choice));
        }
        FieldKind::MultiChoice { options, .. } => {
            let chosen = options
                .iter()
                .filter(|_| rng.chance(40))
                .map(|o| o.value.clone())
                .collect();
            state.set(index, Input::Many(chosen));
        }
        FieldKind::Tags { .. } => {
            let tags = (0..rng.below(4)).map(|_| pick(rng)).collect();
            state.set(index, Input::Many(tags));
        }
    }
    if rng.chance(50) {
        state.visit(index);
    }
}

fn schema_target(text: &str) -> Result<bool, String> {
    // Nesting past serde_json's recursion limit is refused while parsing, as in the browser.
    let Ok(schema) = serde_json::from_str::<Value>(text) else {
        return Ok(false);
    };
    let strict = compile_form_schema(&schema, "requestedSchema", true);
    let lenient = compile_form_schema(&schema, "requestedSchema", false);
    if let Err(err) = &strict {
        check_error(err.code, &err.message)?;
    }
    if let Err(err) = &lenient {
        check_error(err.code, &err.message)?;
    }
    if strict.is_ok() && lenient.is_err() {
        return Err("accepted in strict mode but refused without it".into());
    }
    Ok(lenient.is_ok())
}

fn validate_target(text: &str) -> Result<bool, String> {
    let Ok(pair) = serde_json::from_str::<Value>(text) else {
        return Ok(false);
    };
    let (Some(schema), Some(instances)) = (pair.get(0), pair.get(1).and_then(Value::as_array))
    else {
        return Err("generator bug: not [schema, [instances]]".into());
    };
    match Rules::compile(schema, "requestedSchema") {
        Err(err) => check_error(err.code, &err.message),
        Ok(rules) => {
            for instance in instances {
                check_violations(&rules, instance)?;
            }
            Ok(true)
        }
    }
}

fn pattern_target(text: &str) -> Result<bool, String> {
    let Ok(pair) = serde_json::from_str::<Value>(text) else {
        return Ok(false);
    };
    let (Some(source), Some(subjects)) = (
        pair.get(0).and_then(Value::as_str),
        pair.get(1).and_then(Value::as_array),
    ) else {
        return Err("generator bug: not [pattern, [texts]]".into());
    };
    let Ok(pattern) = Pattern::compile(source) else {
        return Ok(false);
    };
    for subject in subjects.iter().filter_map(Value::as_str) {
        let first = pattern.is_match(subject);
        if pattern.is_match(subject) != first {
            return Err(format!("is_match is not deterministic on {subject:?}"));
        }
    }
    Ok(true)
}

fn format_target(text: &str) -> Result<bool, String> {
    let subject: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let subject = subject.as_str().unwrap_or_default();
    let mut any = false;
    for name in ["email", "uri", "date", "date-time"] {
        any |= format::is_valid(name, subject);
    }
    // Formats the module does not assert are annotations: always valid.
    for name in ["textarea", "", "password", "__proto__"] {
        if !format::is_valid(name, subject) {
            return Err(format!(
                "format {name:?} is an annotation but refused the text"
            ));
        }
    }
    Ok(any)
}

/// A subject for a pattern: corpus strings, mutated ones, long runs of the pattern's own characters.
fn subject_for(rng: &mut Rng, corpus: &Corpus, pattern: &str) -> String {
    match rng.below(4) {
        0 => random_string(rng, corpus),
        1 => {
            let alphabet: Vec<char> = pattern.chars().filter(|c| c.is_alphanumeric()).collect();
            let len = rng
                .pick(&[10usize, 100, 1_000, 10_000])
                .copied()
                .unwrap_or(10);
            let mut s: String = (0..len)
                .map(|_| rng.pick(&alphabet).copied().unwrap_or('a'))
                .collect();
            if rng.chance(50) {
                s.push('!');
            }
            s
        }
        2 => {
            let base = rng.pick(&corpus.strings).cloned().unwrap_or_default();
            mutate_text(rng, &base)
        }
        _ => rng.pick(&corpus.strings).cloned().unwrap_or_default(),
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            fail_setup(&format!("{name} must be a whole number, not {text:?}"))
        }),
        Err(_) => default,
    }
}

fn main() {
    let seconds = env_number("FUZZ_SECONDS", 40);
    let freeze = Duration::from_millis(env_number("FUZZ_FREEZE_MS", 3_000));
    let clock_seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let seed = env_number("FUZZ_SEED", clock_seed);
    let targets: Vec<String> = std::env::var("FUZZ_TARGETS")
        .unwrap_or_else(|_| "request,schema,validate,pattern,format".into())
        .split(',')
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let corpus = load_corpus();
    println!(
        "fuzz: seed {seed} (FUZZ_SEED={seed} replays), {seconds}s per target, corpus: {} requests, {} schemas, {} instances, {} patterns, {} strings",
        corpus.requests.len(),
        corpus.schemas.len(),
        corpus.instances.len(),
        corpus.patterns.len(),
        corpus.strings.len()
    );
    panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = info.to_string());
    }));

    let budget = Duration::from_secs(seconds);
    // The format target is cheap and simple: it gets a fifth of the time.
    let short = Duration::from_secs(seconds.div_ceil(5).max(1));
    let mut rng = Rng(seed);
    let mut outcomes = Vec::new();
    for target in &targets {
        let c = &corpus;
        let outcome = match target.as_str() {
            "request" => run(
                "request",
                budget,
                freeze,
                &mut rng,
                |rng| {
                    let mut value = random_request(rng, c);
                    for _ in 0..rng.below(4) {
                        mutate_value(rng, c, &mut value);
                    }
                    let text = value.to_string();
                    match rng.below(10) {
                        0 | 1 => mutate_text(rng, &text),
                        2 => Value::String(text).to_string(), // a JSON string of a request
                        _ => text,
                    }
                },
                request_target,
            ),
            "schema" => run(
                "schema",
                budget,
                freeze,
                &mut rng,
                |rng| {
                    let mut value = if rng.chance(50) {
                        rng.pick(&c.schemas).cloned().unwrap_or(Value::Null)
                    } else {
                        random_schema(rng, c, 4)
                    };
                    for _ in 0..rng.below(4) {
                        mutate_value(rng, c, &mut value);
                    }
                    if rng.chance(60) {
                        if let Value::Object(map) = &mut value {
                            map.insert("type".into(), json!("object"));
                        }
                    }
                    value.to_string()
                },
                schema_target,
            ),
            "validate" => run(
                "validate",
                budget,
                freeze,
                &mut rng,
                |rng| {
                    let mut schema = if rng.chance(50) {
                        rng.pick(&c.schemas).cloned().unwrap_or(Value::Null)
                    } else {
                        random_schema(rng, c, 4)
                    };
                    for _ in 0..rng.below(3) {
                        mutate_value(rng, c, &mut schema);
                    }
                    let instances: Vec<Value> = (0..1 + rng.below(4))
                        .map(|_| {
                            let mut instance = if rng.chance(50) {
                                rng.pick(&c.instances).cloned().unwrap_or(Value::Null)
                            } else {
                                random_value(rng, c, 4)
                            };
                            for _ in 0..rng.below(3) {
                                mutate_value(rng, c, &mut instance);
                            }
                            instance
                        })
                        .collect();
                    json!([schema, instances]).to_string()
                },
                validate_target,
            ),
            "pattern" => run(
                "pattern",
                budget,
                freeze,
                &mut rng,
                |rng| {
                    let base = rng.pick(&c.patterns).cloned().unwrap_or_default();
                    let pattern = match rng.below(4) {
                        0 => base,
                        1 | 2 => mutate_pattern(rng, c, &base),
                        _ => {
                            let other = rng.pick(&c.patterns).cloned().unwrap_or_default();
                            let joiner = rng.pick(&["", "|", ")(", "(?:", "{2}", "+"]).copied();
                            format!("{base}{}{other}", joiner.unwrap_or(""))
                        }
                    };
                    let subjects: Vec<String> = (0..1 + rng.below(3))
                        .map(|_| subject_for(rng, c, &pattern))
                        .collect();
                    json!([pattern, subjects]).to_string()
                },
                pattern_target,
            ),
            "format" => run(
                "format",
                short,
                freeze,
                &mut rng,
                |rng| {
                    let base = rng.pick(&c.strings).cloned().unwrap_or_default();
                    let subject = if rng.chance(70) {
                        mutate_text(rng, &base)
                    } else {
                        random_string(rng, c)
                    };
                    Value::String(subject).to_string()
                },
                format_target,
            ),
            other => fail_setup(&format!(
                "unknown FUZZ_TARGETS entry {other:?} (request, schema, validate, pattern, format)"
            )),
        };
        println!(
            "fuzz: {:<8} {:>8} inputs ({} accepted), {} failures, slowest {:.1} ms CPU",
            outcome.name,
            outcome.inputs,
            outcome.accepted,
            outcome.failures.len(),
            outcome.slowest.as_secs_f64() * 1000.0
        );
        outcomes.push(outcome);
    }

    let mut failed = 0;
    for outcome in &outcomes {
        for failure in &outcome.failures {
            failed += 1;
            println!("FAILED: {failure}");
        }
        if std::env::var_os("FUZZ_VERBOSE").is_some() {
            println!(
                "fuzz: {} slowest input: {}",
                outcome.name,
                outcome.slowest_input.chars().take(300).collect::<String>()
            );
        }
    }
    let summary: Vec<String> = outcomes
        .iter()
        .map(|o| format!("{} {}", o.name, o.inputs))
        .collect();
    println!(
        "fuzz: inputs run per target: {}; {failed} failures (seed {seed})",
        summary.join(", ")
    );
    if failed > 0 {
        process::exit(1);
    }
}

/// Pattern mutation: token-level edits that keep it near the grammar.
fn mutate_pattern(rng: &mut Rng, corpus: &Corpus, base: &str) -> String {
    const PIECES: &[&str] = &[
        "(",
        ")",
        "(?:",
        "(?<n>",
        "[",
        "]",
        "[^",
        "{",
        "}",
        "{0}",
        "{1,}",
        "{2,5}",
        "{4294967295}",
        "{0,1000}",
        "*",
        "+",
        "?",
        "*?",
        "|",
        "^",
        "$",
        "\\b",
        "\\B",
        "\\d",
        "\\w",
        "\\s",
        "\\p{L}",
        "\\P{Nd}",
        "\\u{1F600}",
        "\\uD83D",
        "\\x4",
        "\\c",
        "\\k<n>",
        "\\1",
        ".",
        "-",
        "a",
        "é",
        "😀",
        "\\",
    ];
    let mut chars: Vec<char> = base.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 => {
                if let Some(piece) = rng.pick(PIECES) {
                    chars.splice(at..at, piece.chars());
                }
            }
            1 => {
                let end = (at + 1 + rng.below(4)).min(chars.len());
                chars.drain(at..end);
            }
            _ => {
                let other = rng.pick(&corpus.patterns).cloned().unwrap_or_default();
                chars.splice(at..at, other.chars());
            }
        }
    }
    chars.into_iter().collect()
}
