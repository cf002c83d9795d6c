//! The JSON-Schema (2020-12) keyword subset shared by the form and `validateContent`.
//!
//! A schema is compiled once into [`Rules`] (malformed keyword values are refused with a
//! -32602 [`ElicitationError`] naming the dotted path), then any instance can be validated
//! against it. Validation never fails: it returns the list of [`Violation`]s, each located by
//! a JSON Pointer into the instance. Keywords outside the subset are ignored, and every
//! keyword applies only to instances of its own type, as JSON Schema prescribes.

#[cfg(test)]
use crate::limits::MAX_PATTERN_PROGRAM;
use crate::limits::{MAX_HASH_DEPTH, MAX_SCHEMA_DEPTH, MAX_SCHEMA_PATTERN_PROGRAM};
use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::{Map, Number, Value};

use crate::error::{child_path, ElicitationError};
use crate::format;
use crate::pattern::Pattern;
use std::sync::Arc;

/// Keywords this validator understands; the last five are annotations with no effect.
pub const SUPPORTED_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "enum",
    "const",
    "minItems",
    "maxItems",
    "uniqueItems",
    "$schema",
    "$comment",
    "title",
    "description",
    "default",
];

/// A compiled schema.
#[derive(Debug, Clone)]
pub struct Rules {
    schema: Schema,
}

#[derive(Debug, Clone)]
enum Schema {
    /// `true` or `{}`-like: everything is valid.
    Always,
    /// `false`: nothing is valid.
    Never,
    /// Shared: a form's fields keep their property's rules, and cloning them is a count.
    Keywords(Arc<Keywords>),
}

/// The keywords of one schema object, already checked.
#[derive(Debug, Default)]
struct Keywords {
    types: Option<Vec<JsonType>>,
    properties: Vec<(String, Rules)>,
    required: Vec<String>,
    items: Option<Rules>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<Pattern>,
    format: Option<String>,
    minimum: Option<Number>,
    maximum: Option<Number>,
    exclusive_minimum: Option<Number>,
    exclusive_maximum: Option<Number>,
    enumeration: Option<Vec<Value>>,
    constant: Option<Value>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: bool,
}

/// The JSON Schema type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    String,
    Integer,
}

impl JsonType {
    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Integer => "integer",
        }
    }

    fn accepts(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::Null, Value::Null)
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::String, Value::String(_)) => true,
            (JsonType::Integer, Value::Number(n)) => is_integer(n),
            _ => false,
        }
    }
}

/// One failed keyword at one instance location.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// JSON Pointer (RFC 6901) of the instance location: `""` for the root, `/age`, `/tags/0`.
    pub path: String,
    pub kind: ViolationKind,
}

/// Which keyword failed, with the limit it set.
///
/// A `false` schema reports `Type { expected: [] }`: no type at all is acceptable there.
#[derive(Debug, Clone, PartialEq)]
pub enum ViolationKind {
    Type { expected: Vec<&'static str> },
    Required { property: String },
    MinLength { limit: u64 },
    MaxLength { limit: u64 },
    Pattern { pattern: String },
    Format { format: String },
    Minimum { limit: f64 },
    Maximum { limit: f64 },
    ExclusiveMinimum { limit: f64 },
    ExclusiveMaximum { limit: f64 },
    Enum,
    Const,
    MinItems { limit: u64 },
    MaxItems { limit: u64 },
    UniqueItems,
}

impl ViolationKind {
    /// The JSON Schema keyword that failed (`"type"`, `"required"`, `"minLength"`…).
    pub fn keyword(&self) -> &'static str {
        match self {
            ViolationKind::Type { .. } => "type",
            ViolationKind::Required { .. } => "required",
            ViolationKind::MinLength { .. } => "minLength",
            ViolationKind::MaxLength { .. } => "maxLength",
            ViolationKind::Pattern { .. } => "pattern",
            ViolationKind::Format { .. } => "format",
            ViolationKind::Minimum { .. } => "minimum",
            ViolationKind::Maximum { .. } => "maximum",
            ViolationKind::ExclusiveMinimum { .. } => "exclusiveMinimum",
            ViolationKind::ExclusiveMaximum { .. } => "exclusiveMaximum",
            ViolationKind::Enum => "enum",
            ViolationKind::Const => "const",
            ViolationKind::MinItems { .. } => "minItems",
            ViolationKind::MaxItems { .. } => "maxItems",
            ViolationKind::UniqueItems => "uniqueItems",
        }
    }
}

impl Rules {
    /// Compiles `schema`; `path` is the dotted prefix used in error messages, e.g.
    /// `"params.requestedSchema"`.
    pub fn compile(schema: &Value, path: &str) -> Result<Rules, ElicitationError> {
        compile_schema(schema, path, 1, &mut 0)
    }

    /// Validates `instance`; an empty list means valid.
    pub fn validate(&self, instance: &Value) -> Vec<Violation> {
        let mut violations = Vec::new();
        let mut pointer = String::new();
        self.check(instance, &mut pointer, &mut violations);
        violations
    }

    /// The compiled `properties` child called `name`, if the schema declares it.
    pub fn property(&self, name: &str) -> Option<&Rules> {
        match &self.schema {
            Schema::Keywords(k) => k
                .properties
                .iter()
                .find_map(|(key, rules)| (key == name).then_some(rules)),
            _ => None,
        }
    }

    /// An upper bound of the `pattern` matching steps validating `instance` can take, so a caller
    /// can refuse instances (a form's defaults) that would cost too much to check.
    pub fn pattern_work(&self, instance: &Value) -> usize {
        let Schema::Keywords(k) = &self.schema else {
            return 0;
        };
        match instance {
            Value::String(text) => k.pattern.as_ref().map_or(0, |p| p.work_bound(text)),
            Value::Array(items) => k.items.as_ref().map_or(0, |rules| {
                items.iter().fold(0usize, |acc, item| {
                    acc.saturating_add(rules.pattern_work(item))
                })
            }),
            Value::Object(object) => k.properties.iter().fold(0usize, |acc, (name, rules)| {
                acc.saturating_add(object.get(name).map_or(0, |v| rules.pattern_work(v)))
            }),
            _ => 0,
        }
    }

    /// The compiled `items` schema, if any.
    pub fn items(&self) -> Option<&Rules> {
        match &self.schema {
            Schema::Keywords(k) => k.items.as_ref(),
            _ => None,
        }
    }

    /// Appends the violations of `instance` (located at `pointer`) to `out`.
    fn check(&self, instance: &Value, pointer: &mut String, out: &mut Vec<Violation>) {
        let keywords = match &self.schema {
            Schema::Always => return,
            Schema::Never => {
                out.push(violation(
                    pointer,
                    ViolationKind::Type {
                        expected: Vec::new(),
                    },
                ));
                return;
            }
            Schema::Keywords(k) => k,
        };
        let mut fail = |kind| out.push(violation(pointer, kind));

        if let Some(types) = &keywords.types {
            if !types.iter().any(|t| t.accepts(instance)) {
                let expected = types.iter().map(|t| t.name()).collect();
                fail(ViolationKind::Type { expected });
            }
        }
        if let Some(values) = &keywords.enumeration {
            if !values.iter().any(|v| json_equal(v, instance)) {
                fail(ViolationKind::Enum);
            }
        }
        if let Some(constant) = &keywords.constant {
            if !json_equal(constant, instance) {
                fail(ViolationKind::Const);
            }
        }

        match instance {
            Value::String(text) => keywords.check_string(text, &mut fail),
            Value::Number(n) => keywords.check_number(n, &mut fail),
            Value::Array(items) => {
                keywords.check_array_size(items, &mut fail);
                if let Some(rules) = &keywords.items {
                    for (index, item) in items.iter().enumerate() {
                        let len = pointer.len();
                        pointer.push('/');
                        pointer.push_str(&index.to_string());
                        rules.check(item, pointer, out);
                        pointer.truncate(len);
                    }
                }
            }
            Value::Object(object) => {
                for name in &keywords.required {
                    if !object.contains_key(name) {
                        fail(ViolationKind::Required {
                            property: name.clone(),
                        });
                    }
                }
                for (name, rules) in &keywords.properties {
                    if let Some(value) = object.get(name) {
                        let len = pointer.len();
                        push_pointer_token(pointer, name);
                        rules.check(value, pointer, out);
                        pointer.truncate(len);
                    }
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
    }
}

impl Keywords {
    fn check_string(&self, text: &str, fail: &mut impl FnMut(ViolationKind)) {
        // Lengths count Unicode code points, as JSON Schema specifies.
        if self.min_length.is_some() || self.max_length.is_some() {
            let length = crate::strings::char_count(text) as u64;
            if let Some(limit) = self.min_length.filter(|&limit| length < limit) {
                fail(ViolationKind::MinLength { limit });
            }
            if let Some(limit) = self.max_length.filter(|&limit| length > limit) {
                fail(ViolationKind::MaxLength { limit });
            }
        }
        if let Some(pattern) = &self.pattern {
            if !pattern.is_match(text) {
                fail(ViolationKind::Pattern {
                    pattern: pattern.source().to_string(),
                });
            }
        }
        if let Some(name) = &self.format {
            if !format::is_valid(name, text) {
                fail(ViolationKind::Format {
                    format: name.clone(),
                });
            }
        }
    }

    fn check_number(&self, n: &Number, fail: &mut impl FnMut(ViolationKind)) {
        let limit_of = |limit: &Number| limit.as_f64().unwrap_or(f64::NAN);
        if let Some(limit) = &self.minimum {
            if compare_numbers(n, limit) == Ordering::Less {
                fail(ViolationKind::Minimum {
                    limit: limit_of(limit),
                });
            }
        }
        if let Some(limit) = &self.maximum {
            if compare_numbers(n, limit) == Ordering::Greater {
                fail(ViolationKind::Maximum {
                    limit: limit_of(limit),
                });
            }
        }
        if let Some(limit) = &self.exclusive_minimum {
            if compare_numbers(n, limit) != Ordering::Greater {
                fail(ViolationKind::ExclusiveMinimum {
                    limit: limit_of(limit),
                });
            }
        }
        if let Some(limit) = &self.exclusive_maximum {
            if compare_numbers(n, limit) != Ordering::Less {
                fail(ViolationKind::ExclusiveMaximum {
                    limit: limit_of(limit),
                });
            }
        }
    }

    fn check_array_size(&self, items: &[Value], fail: &mut impl FnMut(ViolationKind)) {
        let length = items.len() as u64;
        if let Some(limit) = self.min_items.filter(|&limit| length < limit) {
            fail(ViolationKind::MinItems { limit });
        }
        if let Some(limit) = self.max_items.filter(|&limit| length > limit) {
            fail(ViolationKind::MaxItems { limit });
        }
        if self.unique_items && has_duplicates(items) {
            fail(ViolationKind::UniqueItems);
        }
    }
}

fn violation(pointer: &str, kind: ViolationKind) -> Violation {
    Violation {
        path: pointer.to_string(),
        kind,
    }
}

/// Appends `/token` with `~` and `/` escaped per RFC 6901.
fn push_pointer_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Compilation

/// `program`: instructions of the patterns compiled so far in this schema (see
/// [`MAX_SCHEMA_PATTERN_PROGRAM`]).
fn compile_schema(
    schema: &Value,
    path: &str,
    depth: usize,
    program: &mut usize,
) -> Result<Rules, ElicitationError> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(ElicitationError::invalid(
            path,
            format!("is nested too deeply (more than {MAX_SCHEMA_DEPTH} levels of schemas)"),
        ));
    }
    let schema = match schema {
        Value::Bool(true) => Schema::Always,
        Value::Bool(false) => Schema::Never,
        Value::Object(map) => {
            Schema::Keywords(Arc::new(compile_keywords(map, path, depth, program)?))
        }
        _ => {
            return Err(ElicitationError::invalid(
                path,
                "must be a schema (an object or a boolean)",
            ))
        }
    };
    Ok(Rules { schema })
}

fn compile_keywords(
    map: &Map<String, Value>,
    path: &str,
    depth: usize,
    program: &mut usize,
) -> Result<Keywords, ElicitationError> {
    let at = |keyword: &str| child_path(path, keyword);
    let mut k = Keywords::default();

    if let Some(value) = map.get("type") {
        k.types = Some(parse_types(value).ok_or_else(|| {
            ElicitationError::invalid(
                &at("type"),
                "must be a type name (null, boolean, object, array, number, string, integer) or a non-empty array of distinct type names",
            )
        })?);
    }
    if let Some(value) = map.get("properties") {
        let Value::Object(properties) = value else {
            return Err(ElicitationError::invalid(
                &at("properties"),
                "must be an object",
            ));
        };
        let properties_path = at("properties");
        for (name, child) in properties {
            let rules = compile_schema(
                child,
                &child_path(&properties_path, name),
                depth + 1,
                program,
            )?;
            k.properties.push((name.clone(), rules));
        }
    }
    if let Some(value) = map.get("required") {
        k.required = parse_required(value)
            .map_err(|problem| ElicitationError::invalid(&at("required"), problem))?;
    }
    if let Some(value) = map.get("items") {
        k.items = Some(compile_schema(value, &at("items"), depth + 1, program)?);
    }
    k.min_length = non_negative_integer(map, "minLength", path)?;
    k.max_length = non_negative_integer(map, "maxLength", path)?;
    k.min_items = non_negative_integer(map, "minItems", path)?;
    k.max_items = non_negative_integer(map, "maxItems", path)?;
    k.minimum = number(map, "minimum", path)?;
    k.maximum = number(map, "maximum", path)?;
    k.exclusive_minimum = number(map, "exclusiveMinimum", path)?;
    k.exclusive_maximum = number(map, "exclusiveMaximum", path)?;
    if let Some(value) = map.get("pattern") {
        let Value::String(source) = value else {
            return Err(ElicitationError::invalid(
                &at("pattern"),
                "must be a string",
            ));
        };
        let pattern = Pattern::compile(source).map_err(|e| {
            ElicitationError::invalid(
                &at("pattern"),
                format!("must be a valid regular expression: {}", e.reason),
            )
        })?;
        *program = program.saturating_add(pattern.program_len());
        if *program > MAX_SCHEMA_PATTERN_PROGRAM {
            return Err(ElicitationError::invalid(
                &at("pattern"),
                format!(
                    "makes the schema's patterns larger than {MAX_SCHEMA_PATTERN_PROGRAM} instructions in all"
                ),
            ));
        }
        k.pattern = Some(pattern);
    }
    if let Some(value) = map.get("format") {
        let Value::String(name) = value else {
            return Err(ElicitationError::invalid(&at("format"), "must be a string"));
        };
        k.format = Some(name.clone());
    }
    if let Some(value) = map.get("enum") {
        let Value::Array(values) = value else {
            return Err(ElicitationError::invalid(&at("enum"), "must be an array"));
        };
        k.enumeration = Some(values.clone());
    }
    k.constant = map.get("const").cloned();
    if let Some(value) = map.get("uniqueItems") {
        let Value::Bool(unique) = value else {
            return Err(ElicitationError::invalid(
                &at("uniqueItems"),
                "must be a boolean",
            ));
        };
        k.unique_items = *unique;
    }
    Ok(k)
}

/// `type`: one type name, or a non-empty array of distinct ones (2020-12 meta-schema).
fn parse_types(value: &Value) -> Option<Vec<JsonType>> {
    match value {
        Value::String(name) => Some(vec![JsonType::parse(name)?]),
        Value::Array(names) if !names.is_empty() => {
            let mut types = Vec::new();
            for name in names {
                let t = JsonType::parse(name.as_str()?)?;
                if types.contains(&t) {
                    return None;
                }
                types.push(t);
            }
            Some(types)
        }
        _ => None,
    }
}

/// `required`: an array of distinct strings (2020-12 meta-schema `stringArray`).
fn parse_required(value: &Value) -> Result<Vec<String>, &'static str> {
    let Value::Array(names) = value else {
        return Err("must be an array of strings");
    };
    // The strings before the first non-string; a repeat among them is reported first.
    let leading: Vec<&str> = names.iter().map_while(Value::as_str).collect();
    if crate::sort::first_repeat(&mut leading.clone()).is_some() {
        return Err("must not list a property twice");
    }
    if leading.len() < names.len() {
        return Err("must be an array of strings");
    }
    Ok(leading.into_iter().map(String::from).collect())
}

/// A `nonNegativeInteger` keyword; `2.0` counts as an integer, huge values saturate.
fn non_negative_integer(
    map: &Map<String, Value>,
    keyword: &str,
    path: &str,
) -> Result<Option<u64>, ElicitationError> {
    let Some(value) = map.get(keyword) else {
        return Ok(None);
    };
    let parsed = match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.fract() == 0.0 && *f >= 0.0)
                // `as` saturates, which is the right reading of an absurdly large limit.
                .map(|f| f as u64)
        }),
        _ => None,
    };
    parsed.map(Some).ok_or_else(|| {
        ElicitationError::invalid(&child_path(path, keyword), "must be a non-negative integer")
    })
}

/// A numeric keyword (`minimum`, `exclusiveMaximum`…).
fn number(
    map: &Map<String, Value>,
    keyword: &str,
    path: &str,
) -> Result<Option<Number>, ElicitationError> {
    match map.get(keyword) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(ElicitationError::invalid(
            &child_path(path, keyword),
            "must be a number",
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers and equality

/// An integer JSON number: `1`, `1.0`, and large floats with no fraction.
fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Exact comparison, so `9007199254740993` and `9007199254740992.0` differ.
fn compare_numbers(a: &Number, b: &Number) -> Ordering {
    let float = |n: &Number| n.as_f64().unwrap_or(f64::NAN);
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(x), None) => compare_int_float(x, float(b)),
        (None, Some(y)) => compare_int_float(y, float(a)).reverse(),
        (None, None) => float(a).partial_cmp(&float(b)).unwrap_or(Ordering::Equal),
    }
}

/// Compares an integer (within ±2^64) with a float without rounding either.
fn compare_int_float(int: i128, float: f64) -> Ordering {
    // 2^65: beyond it, the float's sign alone decides.
    const BOUND: f64 = 36_893_488_147_419_103_232.0;
    if float.is_nan() {
        return Ordering::Equal;
    }
    if float >= BOUND {
        return Ordering::Less;
    }
    if float <= -BOUND {
        return Ordering::Greater;
    }
    let floor = float.floor();
    match int.cmp(&(floor as i128)) {
        Ordering::Equal if float > floor => Ordering::Less,
        other => other,
    }
}

/// JSON equality as JSON Schema defines it: numbers by value (`1 == 1.0`), objects regardless
/// of key order, no coercion between types. Iterative, so deep values cannot exhaust the stack.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        match (a, b) {
            (Value::Null, Value::Null) => {}
            (Value::Bool(x), Value::Bool(y)) if x == y => {}
            (Value::String(x), Value::String(y)) if x == y => {}
            (Value::Number(x), Value::Number(y)) if compare_numbers(x, y) == Ordering::Equal => {}
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                pending.extend(x.iter().zip(y.iter()));
            }
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                for (key, value) in x {
                    match y.get(key) {
                        Some(other) => pending.push((value, other)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// Whether two items of `items` are [`json_equal`]: hash every item consistently with that
/// equality, then compare only items whose hashes collide (O(n log n), not O(n²)).
fn has_duplicates(items: &[Value]) -> bool {
    let mut hashed: Vec<(u64, &Value)> = items.iter().map(|v| (equality_hash(v, 0), v)).collect();
    crate::sort::sort_by_less(&mut hashed, |a, b| a.0 < b.0);
    hashed.chunk_by(|x, y| x.0 == y.0).any(|run| {
        run.iter()
            .enumerate()
            .any(|(i, (_, a))| run.iter().skip(i + 1).any(|(_, b)| json_equal(a, b)))
    })
}

/// A hash equal for [`json_equal`] values: numbers hashed by value, object members combined
/// order-insensitively. Past [`MAX_HASH_DEPTH`] it stops descending (more collisions, still
/// correct) so recursion stays bounded.
fn equality_hash(value: &Value, depth: usize) -> u64 {
    let mut hasher = DefaultHasher::new();
    match value {
        Value::Null => 0u8.hash(&mut hasher),
        Value::Bool(b) => (1u8, b).hash(&mut hasher),
        Value::Number(n) => {
            2u8.hash(&mut hasher);
            let f = n.as_f64().unwrap_or(0.0);
            match as_i128(n) {
                Some(int) => (0u8, int).hash(&mut hasher),
                // Integral floats hash like the integer they equal (2^100 fits in an i128).
                None if f.fract() == 0.0 && f.abs() < 1e38 => (0u8, f as i128).hash(&mut hasher),
                None => (1u8, f.to_bits()).hash(&mut hasher),
            }
        }
        Value::String(s) => (3u8, s).hash(&mut hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(&mut hasher);
            if depth < MAX_HASH_DEPTH {
                for item in items {
                    equality_hash(item, depth + 1).hash(&mut hasher);
                }
            }
        }
        Value::Object(members) => {
            (5u8, members.len()).hash(&mut hasher);
            if depth < MAX_HASH_DEPTH {
                let combined = members.iter().fold(0u64, |acc, (key, member)| {
                    let mut entry = DefaultHasher::new();
                    (key, equality_hash(member, depth + 1)).hash(&mut entry);
                    acc.wrapping_add(entry.finish())
                });
                combined.hash(&mut hasher);
            }
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ROOT: &str = "params.requestedSchema";

    fn rules(schema: Value) -> Rules {
        Rules::compile(&schema, ROOT).unwrap_or_else(|e| panic!("{schema} should compile: {e}"))
    }

    fn kinds(schema: Value, instance: Value) -> Vec<(String, &'static str)> {
        rules(schema)
            .validate(&instance)
            .into_iter()
            .map(|v| (v.path, v.kind.keyword()))
            .collect()
    }

    fn valid(schema: Value, instance: Value) -> bool {
        rules(schema).validate(&instance).is_empty()
    }

    fn compile_error(schema: Value) -> String {
        match Rules::compile(&schema, ROOT) {
            Ok(_) => panic!("{schema} should be refused"),
            Err(e) => {
                assert_eq!(e.code, -32602);
                e.message
            }
        }
    }

    #[test]
    fn type_keyword() {
        assert!(valid(json!({"type": "integer"}), json!(1)));
        assert!(valid(json!({"type": "integer"}), json!(1.0)));
        assert!(valid(json!({"type": "integer"}), json!(1e300)));
        assert!(!valid(json!({"type": "integer"}), json!(1.5)));
        assert!(valid(json!({"type": "number"}), json!(1.5)));
        assert!(!valid(json!({"type": "string"}), json!(1)));
        assert!(valid(json!({"type": ["string", "null"]}), json!(null)));
        assert!(!valid(json!({"type": "boolean"}), json!(0)));
        let violations = rules(json!({"type": ["integer", "string"]})).validate(&json!(true));
        assert_eq!(
            violations,
            vec![Violation {
                path: String::new(),
                kind: ViolationKind::Type {
                    expected: vec!["integer", "string"]
                }
            }]
        );
    }

    #[test]
    fn boolean_schemas() {
        assert!(valid(json!(true), json!({"any": "thing"})));
        assert_eq!(kinds(json!(false), json!(1)), vec![(String::new(), "type")]);
        assert!(valid(json!({}), json!([1, "x"])));
    }

    #[test]
    fn properties_and_required() {
        let schema = json!({
            "type": "object",
            "properties": {"age": {"type": "integer", "minimum": 0}, "a/b~c": {"type": "string"}},
            "required": ["name", "age"]
        });
        assert_eq!(
            kinds(schema.clone(), json!({"age": -1, "a/b~c": 3})),
            vec![
                (String::new(), "required"),
                ("/age".to_string(), "minimum"),
                ("/a~1b~0c".to_string(), "type"),
            ]
        );
        assert!(valid(
            schema.clone(),
            json!({"name": "x", "age": 3, "extra": true})
        ));
        // Object keywords ignore other types.
        assert!(valid(
            json!({"required": ["x"], "properties": {"x": false}}),
            json!("str")
        ));
        let compiled = rules(schema);
        assert!(compiled.property("age").is_some());
        assert!(compiled.property("missing").is_none());
        assert!(compiled.items().is_none());
    }

    #[test]
    fn required_violation_names_the_property() {
        let violations = rules(json!({"required": ["__proto__"]})).validate(&json!({}));
        assert_eq!(
            violations.first().map(|v| &v.kind),
            Some(&ViolationKind::Required {
                property: "__proto__".into()
            })
        );
    }

    #[test]
    fn items_keyword() {
        let schema = json!({"type": "array", "items": {"type": "string", "maxLength": 2}});
        assert!(valid(schema.clone(), json!(["ab", "c"])));
        assert_eq!(
            kinds(schema.clone(), json!(["ab", 3, "abc"])),
            vec![("/1".to_string(), "type"), ("/2".to_string(), "maxLength")]
        );
        assert!(valid(json!({"items": false}), json!([])));
        assert!(!valid(json!({"items": false}), json!([1])));
        assert!(rules(schema).items().is_some());
    }

    #[test]
    fn string_lengths_count_code_points() {
        assert!(valid(json!({"maxLength": 2}), json!("💩💩")));
        assert!(!valid(json!({"maxLength": 1}), json!("💩💩")));
        assert!(!valid(json!({"minLength": 3}), json!("💩💩")));
        assert!(valid(json!({"minLength": 2.0}), json!("ab")));
        assert!(valid(json!({"minLength": 3}), json!(12)));
        let v = rules(json!({"minLength": 3})).validate(&json!("ab"));
        assert_eq!(
            v.first().map(|v| &v.kind),
            Some(&ViolationKind::MinLength { limit: 3 })
        );
    }

    #[test]
    fn pattern_keyword() {
        assert!(valid(json!({"pattern": "^[a-z]+$"}), json!("abc")));
        assert!(valid(json!({"pattern": "b"}), json!("abc")));
        assert!(valid(json!({"pattern": "^x"}), json!(42)));
        let v = rules(json!({"pattern": "^[a-z]+$"})).validate(&json!("ab1"));
        assert_eq!(
            v.first().map(|v| &v.kind),
            Some(&ViolationKind::Pattern {
                pattern: "^[a-z]+$".into()
            })
        );
    }

    #[test]
    fn format_keyword() {
        assert!(valid(json!({"format": "email"}), json!("a@example.com")));
        assert_eq!(
            kinds(json!({"format": "email"}), json!("nope")),
            vec![(String::new(), "format")]
        );
        assert!(valid(json!({"format": "date"}), json!(20200101)));
        assert!(valid(json!({"format": "textarea"}), json!("anything")));
    }

    #[test]
    fn numeric_limits() {
        assert!(valid(json!({"minimum": 1.5}), json!(1.5)));
        assert!(!valid(json!({"minimum": 1.5}), json!(1)));
        assert!(valid(json!({"maximum": 3}), json!(3.0)));
        assert!(!valid(json!({"maximum": 3}), json!(3.0001)));
        assert!(!valid(json!({"exclusiveMinimum": 1}), json!(1)));
        assert!(valid(json!({"exclusiveMinimum": 1}), json!(1.01)));
        assert!(!valid(json!({"exclusiveMaximum": 3.0}), json!(3)));
        assert!(valid(json!({"exclusiveMaximum": 3.0}), json!(2)));
        assert!(valid(json!({"minimum": 5}), json!("not a number")));
        // Exact comparison beyond 2^53.
        assert!(!valid(
            json!({"maximum": 9007199254740992u64}),
            json!(9007199254740993u64)
        ));
        assert!(!valid(
            json!({"minimum": 9007199254740993u64}),
            json!(9007199254740992.0)
        ));
        assert!(valid(json!({"maximum": u64::MAX}), json!(u64::MAX)));
        assert!(valid(json!({"minimum": -1e300}), json!(i64::MIN)));
        let v = rules(json!({"exclusiveMaximum": 2.5})).validate(&json!(3));
        assert_eq!(
            v.first().map(|v| &v.kind),
            Some(&ViolationKind::ExclusiveMaximum { limit: 2.5 })
        );
    }

    #[test]
    fn enum_and_const() {
        assert!(valid(json!({"enum": [1, "a", null]}), json!(1.0)));
        assert!(!valid(json!({"enum": [1, "a", null]}), json!(true)));
        assert!(!valid(json!({"enum": []}), json!(null)));
        assert!(valid(
            json!({"const": {"a": 1, "b": [2]}}),
            json!({"b": [2.0], "a": 1})
        ));
        assert!(!valid(json!({"const": {"a": 1}}), json!({"a": 1, "b": 2})));
        assert!(!valid(json!({"const": false}), json!(0)));
        assert!(!valid(json!({"const": [true]}), json!([1])));
        assert_eq!(
            kinds(json!({"const": 2}), json!(3)),
            vec![(String::new(), "const")]
        );
        assert_eq!(
            kinds(json!({"enum": [2]}), json!(3)),
            vec![(String::new(), "enum")]
        );
    }

    #[test]
    fn array_sizes_and_uniqueness() {
        assert!(valid(json!({"minItems": 1, "maxItems": 2}), json!([1])));
        assert!(!valid(json!({"minItems": 1}), json!([])));
        assert!(!valid(json!({"maxItems": 1}), json!([1, 2])));
        assert!(valid(json!({"minItems": 1}), json!("not an array")));
        assert!(valid(
            json!({"uniqueItems": true}),
            json!([1, true, "1", [1], {"a": 1}])
        ));
        assert!(!valid(json!({"uniqueItems": true}), json!([1, 1.0])));
        assert!(!valid(
            json!({"uniqueItems": true}),
            json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])
        ));
        assert!(valid(
            json!({"uniqueItems": true}),
            json!([0, false, [0], [false]])
        ));
        assert!(valid(json!({"uniqueItems": false}), json!([1, 1])));
        let many: Vec<Value> = (0..20_000).map(|i| json!(i)).collect();
        assert!(valid(
            json!({"uniqueItems": true}),
            Value::Array(many.clone())
        ));
        let mut repeated = many;
        repeated.push(json!(19_999.0));
        assert_eq!(
            kinds(json!({"uniqueItems": true}), Value::Array(repeated)),
            vec![(String::new(), "uniqueItems")]
        );
    }

    #[test]
    fn json_equality() {
        assert!(json_equal(&json!(1), &json!(1.0)));
        assert!(json_equal(&json!(-2), &json!(-2.0)));
        assert!(!json_equal(
            &json!(9007199254740991u64),
            &json!(9007199254740992.0)
        ));
        assert!(!json_equal(&json!(1), &json!(true)));
        assert!(!json_equal(&json!(0), &json!(false)));
        assert!(!json_equal(&json!(null), &json!(0)));
        assert!(json_equal(
            &json!({"a": [1, {"b": null}]}),
            &json!({"a": [1.0, {"b": null}]})
        ));
        assert!(!json_equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_equal(&json!("\u{e4}"), &json!("a\u{308}")));
    }

    #[test]
    fn unknown_keywords_are_ignored() {
        assert!(valid(
            json!({"x-custom": 1, "enumNames": ["A"], "$ref": "#/nowhere"}),
            json!(1)
        ));
    }

    #[test]
    fn malformed_keywords_name_their_path() {
        let cases = [
            (json!({"type": "text"}), "params.requestedSchema.type must be a type name"),
            (json!({"type": []}), "params.requestedSchema.type must be a type name"),
            (json!({"type": ["string", "string"]}), "params.requestedSchema.type must be"),
            (json!({"type": 3}), "params.requestedSchema.type must be"),
            (json!({"minLength": -1}), "params.requestedSchema.minLength must be a non-negative integer"),
            (json!({"maxLength": 1.5}), "params.requestedSchema.maxLength must be a non-negative integer"),
            (json!({"minItems": "1"}), "params.requestedSchema.minItems must be a non-negative integer"),
            (json!({"maxItems": null}), "params.requestedSchema.maxItems must be a non-negative integer"),
            (json!({"minimum": "0"}), "params.requestedSchema.minimum must be a number"),
            (json!({"maximum": null}), "params.requestedSchema.maximum must be a number"),
            (json!({"exclusiveMinimum": true}), "params.requestedSchema.exclusiveMinimum must be a number"),
            (json!({"exclusiveMaximum": [1]}), "params.requestedSchema.exclusiveMaximum must be a number"),
            (json!({"pattern": 5}), "params.requestedSchema.pattern must be a string"),
            (json!({"pattern": "(?=x)"}), "params.requestedSchema.pattern must be a valid regular expression: lookahead"),
            (json!({"pattern": "a{1000000}"}), "params.requestedSchema.pattern must be a valid regular expression: pattern is too large"),
            (json!({"format": 1}), "params.requestedSchema.format must be a string"),
            (json!({"enum": "a"}), "params.requestedSchema.enum must be an array"),
            (json!({"required": "a"}), "params.requestedSchema.required must be an array of strings"),
            (json!({"required": [1]}), "params.requestedSchema.required must be an array of strings"),
            (json!({"required": ["a", "a"]}), "params.requestedSchema.required must not list a property twice"),
            (json!({"properties": []}), "params.requestedSchema.properties must be an object"),
            (json!({"properties": {"age": 5}}), "params.requestedSchema.properties.age must be a schema"),
            (json!({"properties": {"age": {"minimum": "5"}}}), "params.requestedSchema.properties.age.minimum must be a number"),
            (json!({"items": [{}]}), "params.requestedSchema.items must be a schema"),
            (json!({"items": {"maxLength": -2}}), "params.requestedSchema.items.maxLength must be a non-negative integer"),
            (json!({"uniqueItems": 1}), "params.requestedSchema.uniqueItems must be a boolean"),
            (json!("string"), "params.requestedSchema must be a schema (an object or a boolean)"),
            (json!(null), "params.requestedSchema must be a schema"),
        ];
        for (schema, expected) in cases {
            let message = compile_error(schema.clone());
            assert!(
                message.starts_with(expected),
                "{schema}: got {message:?}, want {expected:?}"
            );
        }
    }

    #[test]
    fn hostile_depth_is_refused() {
        let mut schema = json!({"type": "string"});
        for _ in 0..40 {
            schema = json!({"type": "object", "properties": {"x": schema}});
        }
        let message = compile_error(schema);
        assert!(message.contains("nested too deeply"), "{message}");
        assert!(message.starts_with("params.requestedSchema.properties.x.properties.x"));

        let mut items = json!(true);
        for _ in 0..1000 {
            items = json!({"items": items});
        }
        assert!(compile_error(items).contains("nested too deeply"));

        let mut ok = json!({"type": "string"});
        for _ in 0..(MAX_SCHEMA_DEPTH - 1) {
            ok = json!({"items": ok});
        }
        assert!(Rules::compile(&ok, ROOT).is_ok());
    }

    #[test]
    fn large_limits_saturate_instead_of_failing() {
        assert!(valid(json!({"maxLength": 1e300}), json!("abc")));
        assert!(valid(
            json!({"maxItems": 18446744073709551615u64}),
            json!([1])
        ));
    }

    #[test]
    fn patterns_are_bounded_per_schema() {
        let wide = format!("^(?:a|a){{0,{}}}$", MAX_PATTERN_PROGRAM / 6);
        let mut properties = Map::new();
        for i in 0..10 {
            properties.insert(format!("f{i}"), json!({"type": "string", "pattern": wide}));
        }
        let message = compile_error(json!({"type": "object", "properties": properties}));
        assert!(
            message.starts_with(&format!("{ROOT}.properties.f")),
            "{message}"
        );
        assert!(message.ends_with(&format!(
            ".pattern makes the schema's patterns larger than {MAX_SCHEMA_PATTERN_PROGRAM} instructions in all"
        )));
        // Many ordinary patterns are fine.
        let mut properties = Map::new();
        for i in 0..100 {
            properties.insert(
                format!("f{i}"),
                json!({"type": "string", "pattern": "^[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,63}$"}),
            );
        }
        rules(json!({"type": "object", "properties": properties}));
    }

    #[test]
    fn pattern_work_bounds_the_matching() {
        let r = rules(json!({"type": "object", "properties": {
            "a": {"type": "string", "pattern": "^a+$"},
            "b": {"type": "array", "items": {"type": "string", "pattern": "b"}},
            "c": {"type": "string"}
        }}));
        assert_eq!(r.pattern_work(&json!({"c": "long text"})), 0);
        let one = r.pattern_work(&json!({"a": "aaa"}));
        assert!(one > 0);
        assert!(r.pattern_work(&json!({"a": "aaaaaa"})) > one);
        assert!(r.pattern_work(&json!({"b": ["x", "y"]})) > r.pattern_work(&json!({"b": ["x"]})));
    }
}
