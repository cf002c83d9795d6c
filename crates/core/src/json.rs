//! Reads JSON text into serde_json's [`Value`] and writes it back, without serde's generic
//! `Deserializer` and `Serializer` machinery, which cost kilobytes of the gzipped wasm. The reader
//! gives the same values for the same texts as serde_json's, and refuses the same texts: numbers
//! are read with serde_json's own algorithm (a `u64` significand scaled by an exact power of ten, so `5`,
//! `-5` and `5.0` stay unsigned, signed and float), strings must be well formed (paired
//! surrogates, no raw control characters), and nesting stops at serde_json's depth of 128.
//! The writer writes what `serde_json::to_string` writes. Tests compare both ways on generated texts.

use std::fmt;
use std::sync::OnceLock;

use serde_json::{Map, Number, Value};

use crate::error::ElicitationError;

/// Why a text is not JSON, and where (1-based line and column, as serde_json reports them).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub reason: &'static str,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.reason, self.line, self.column
        )
    }
}

/// The value of a JSON text (surrounding whitespace allowed, nothing else after it).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let value = reader.value()?;
    reader.skip_whitespace();
    if reader.pos < reader.bytes.len() {
        return Err(reader.error("trailing characters"));
    }
    Ok(value)
}

/// `text` as JSON for the argument `path` names, or the -32602 `{path} is not valid JSON: …`.
pub fn parse_argument(text: &str, path: &str) -> Result<Value, ElicitationError> {
    parse(text).map_err(|err| ElicitationError::invalid(path, format!("is not valid JSON: {err}")))
}

/// Like [`parse_argument`], and a JSON string holding JSON text is read once more: a request or
/// an error may arrive serialized twice (contract §3, item 4).
pub fn parse_argument_unwrapped(text: &str, path: &str) -> Result<Value, ElicitationError> {
    match parse_argument(text, path)? {
        Value::String(inner) => parse_argument(&inner, path),
        other => Ok(other),
    }
}

/// serde_json refuses to nest deeper than this (its `remaining_depth` of 128 reaching zero).
const MAX_DEPTH: usize = 127;

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Reader<'_> {
    fn error(&self, reason: &'static str) -> JsonError {
        let seen = self.bytes.get(..self.pos).unwrap_or(self.bytes);
        let line = 1 + seen.iter().filter(|&&b| b == b'\n').count();
        let line_start = seen.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        JsonError {
            reason,
            line,
            column: self.pos - line_start,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek();
        self.pos += usize::from(byte.is_some());
        byte
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        self.skip_whitespace();
        match self.next() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'n') => self.word(b"ull", Value::Null),
            Some(b't') => self.word(b"rue", Value::Bool(true)),
            Some(b'f') => self.word(b"alse", Value::Bool(false)),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-') => self.number(false),
            Some(b'0'..=b'9') => {
                self.pos -= 1;
                self.number(true)
            }
            Some(b'[') => self.nested(Self::array),
            Some(b'{') => self.nested(Self::object),
            Some(_) => Err(self.error("expected value")),
        }
    }

    fn word(&mut self, rest: &[u8], value: Value) -> Result<Value, JsonError> {
        for &expected in rest {
            match self.next() {
                None => return Err(self.error("EOF while parsing a value")),
                Some(byte) if byte != expected => return Err(self.error("expected ident")),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    fn nested(
        &mut self,
        read: fn(&mut Self) -> Result<Value, JsonError>,
    ) -> Result<Value, JsonError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error("recursion limit exceeded"));
        }
        self.depth += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        let mut items = Vec::new();
        if self.empty(b']') {
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.after_item(b']', "EOF while parsing a list", "expected `,` or `]`")? {
                return Ok(Value::Array(items));
            }
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        const EOF: &str = "EOF while parsing an object";
        let mut map = Map::new();
        if self.empty(b'}') {
            return Ok(Value::Object(map));
        }
        loop {
            self.expect(b'"', EOF, "key must be a string")?;
            let key = self.string()?;
            self.expect(b':', EOF, "expected `:`")?;
            // A repeated key keeps its first place and takes the last value, as in serde_json.
            let value = self.value()?;
            map.insert(key, value);
            if self.after_item(b'}', EOF, "expected `,` or `}`")? {
                return Ok(Value::Object(map));
            }
        }
    }

    /// Whether the array or object just opened closes at once (`[]`, `{ }`), reading the close.
    fn empty(&mut self, close: u8) -> bool {
        self.skip_whitespace();
        let empty = self.peek() == Some(close);
        self.pos += usize::from(empty);
        empty
    }

    /// Reads `wanted` after optional whitespace.
    fn expect(
        &mut self,
        wanted: u8,
        eof: &'static str,
        other: &'static str,
    ) -> Result<(), JsonError> {
        self.skip_whitespace();
        match self.next() {
            Some(byte) if byte == wanted => Ok(()),
            None => Err(self.error(eof)),
            Some(_) => Err(self.error(other)),
        }
    }

    /// After an item: `,` (more follow: false) or `close` (done: true).
    fn after_item(
        &mut self,
        close: u8,
        eof: &'static str,
        other: &'static str,
    ) -> Result<bool, JsonError> {
        self.skip_whitespace();
        match self.next() {
            Some(b',') => Ok(false),
            Some(byte) if byte == close => Ok(true),
            None => Err(self.error(eof)),
            Some(_) => Err(self.error(other)),
        }
    }

    /// A string's contents, after its opening quote.
    fn string(&mut self) -> Result<String, JsonError> {
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote, backslash or control character in one go.
            let start = self.pos;
            while let Some(byte) = self.peek() {
                if byte == b'"' || byte == b'\\' || byte < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The run ends on an ASCII byte or the end, so it is whole UTF-8 of the `&str` input.
            if let Some(run) = self
                .bytes
                .get(start..self.pos)
                .and_then(|run| std::str::from_utf8(run).ok())
            {
                out.push_str(run);
            }
            match self.next() {
                Some(b'"') => return Ok(out),
                Some(b'\\') => self.escape(&mut out)?,
                Some(_) => {
                    return Err(self
                        .error("control character (\\u0000-\\u001F) found while parsing a string"))
                }
                None => return Err(self.error("EOF while parsing a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let unescaped = match self.next() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => self.unicode_escape()?,
            None => return Err(self.error("EOF while parsing a string")),
            Some(_) => return Err(self.error("invalid escape")),
        };
        out.push(unescaped);
        Ok(())
    }

    /// The character of a `\u` escape (after the `u`): a pair of them for a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let first = self.hex4()?;
        if (0xDC00..=0xDFFF).contains(&first) {
            return Err(self.error("lone leading surrogate in hex escape"));
        }
        if !(0xD800..=0xDBFF).contains(&first) {
            return char::from_u32(first).ok_or_else(|| self.error("invalid unicode code point"));
        }
        for expected in [b'\\', b'u'] {
            match self.next() {
                Some(byte) if byte == expected => {}
                None => return Err(self.error("EOF while parsing a string")),
                Some(_) => return Err(self.error("unexpected end of hex escape")),
            }
        }
        let second = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&second) {
            return Err(self.error("lone leading surrogate in hex escape"));
        }
        let code = 0x1_0000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        char::from_u32(code).ok_or_else(|| self.error("invalid unicode code point"))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut n = 0;
        for _ in 0..4 {
            let digit = match self.next() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(byte) => (byte as char)
                    .to_digit(16)
                    .ok_or_else(|| self.error("invalid escape"))?,
            };
            n = n * 16 + digit;
        }
        Ok(n)
    }

    fn digit(&self) -> Option<u64> {
        match self.peek() {
            Some(byte @ b'0'..=b'9') => Some(u64::from(byte - b'0')),
            _ => None,
        }
    }

    /// A number, after its sign; serde_json's algorithm step for step (its default, not the
    /// `float_roundtrip` one), so the same text gives the same `Number`.
    fn number(&mut self, positive: bool) -> Result<Value, JsonError> {
        let mut significand = match self.next() {
            None => return Err(self.error("EOF while parsing a value")),
            Some(b'0') => {
                if self.digit().is_some() {
                    return Err(self.error("invalid number"));
                }
                0
            }
            Some(byte @ b'1'..=b'9') => u64::from(byte - b'0'),
            Some(_) => return Err(self.error("invalid number")),
        };
        // Digits past what a u64 holds only scale the number (serde_json ignores their value).
        let mut exponent: i32 = 0;
        let mut overflowed = false;
        while let Some(digit) = self.digit() {
            self.pos += 1;
            match with_digit(significand, digit) {
                Some(next) if !overflowed => significand = next,
                _ => {
                    overflowed = true;
                    exponent = exponent.saturating_add(1);
                }
            }
        }
        let is_float = matches!(self.peek(), Some(b'.' | b'e' | b'E'));
        if !is_float && !overflowed {
            return Ok(Value::Number(integer(positive, significand)));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            // Fraction digits count while they fit, even after the whole part overflowed; from
            // the first that does not fit on, the rest are ignored.
            let mut fraction_digits = 0;
            let mut fraction_full = false;
            while let Some(digit) = self.digit() {
                self.pos += 1;
                fraction_digits += 1;
                if !fraction_full {
                    match with_digit(significand, digit) {
                        Some(next) => {
                            significand = next;
                            exponent = exponent.saturating_sub(1);
                        }
                        None => fraction_full = true,
                    }
                }
            }
            if fraction_digits == 0 {
                return Err(if self.peek().is_some() {
                    self.error("invalid number")
                } else {
                    self.error("EOF while parsing a value")
                });
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            let positive_exp = match self.peek() {
                Some(b'+') => {
                    self.pos += 1;
                    true
                }
                Some(b'-') => {
                    self.pos += 1;
                    false
                }
                _ => true,
            };
            let Some(first) = self.digit() else {
                return Err(if self.next().is_some() {
                    self.error("invalid number")
                } else {
                    self.error("EOF while parsing a value")
                });
            };
            self.pos += 1;
            let mut exp = first as i32;
            let mut exp_overflowed = false;
            while let Some(digit) = self.digit() {
                self.pos += 1;
                match exp
                    .checked_mul(10)
                    .and_then(|e| e.checked_add(digit as i32))
                {
                    Some(next) if !exp_overflowed => exp = next,
                    _ => exp_overflowed = true,
                }
            }
            if exp_overflowed {
                // An exponent past i32: infinity is refused, zero (or a tiny number) is zero.
                if significand != 0 && positive_exp {
                    return Err(self.error("number out of range"));
                }
                return Ok(float(if positive { 0.0 } else { -0.0 }));
            }
            exponent = if positive_exp {
                exponent.saturating_add(exp)
            } else {
                exponent.saturating_sub(exp)
            };
        }
        self.scale(positive, significand, exponent).map(float)
    }

    /// `significand × 10^exponent` as serde_json computes it (one multiply or divide by an exact
    /// power of ten, or divisions by 1e308 first for tiny numbers).
    fn scale(&self, positive: bool, significand: u64, mut exponent: i32) -> Result<f64, JsonError> {
        let mut f = significand as f64;
        loop {
            match pow10(exponent.unsigned_abs() as usize) {
                Some(pow) => {
                    if exponent >= 0 {
                        f *= pow;
                        if f.is_infinite() {
                            return Err(self.error("number out of range"));
                        }
                    } else {
                        f /= pow;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exponent >= 0 {
                        return Err(self.error("number out of range"));
                    }
                    f /= 1e308;
                    exponent += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

/// An object of `entries`, in this order: what `json!({…})` builds, without going through serde's
/// `Serializer` for every value put in it.
pub fn object<const N: usize>(mut entries: [(&str, Value); N]) -> Value {
    // One body for every length: the generic part only passes the array on.
    object_of(&mut entries)
}

/// [`object`] of a slice, whose values it takes (leaving `null`s behind).
fn object_of(entries: &mut [(&str, Value)]) -> Value {
    Value::Object(
        entries
            .iter_mut()
            .map(|(key, value)| (key.to_string(), std::mem::take(value)))
            .collect(),
    )
}

/// Sets `key` on an object (anything else is left as it is). Unlike `value[key] = …`, whose
/// panic message formats the key with `{:?}`, it keeps std's escaping and Debug tables out of
/// the wasm.
pub fn set(target: &mut Value, key: &str, value: Value) {
    if let Some(map) = target.as_object_mut() {
        map.insert(key.to_string(), value);
    }
}

/// The compact JSON text of `value`, exactly as `serde_json::to_string` writes it.
pub fn write(value: &Value) -> String {
    let mut out = String::new();
    write_into(value, &mut out);
    out
}

fn write_into(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_into(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_into(item, out);
            }
            out.push('}');
        }
    }
}

/// A quoted string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes,
/// everything else (`/`, DEL, non-ASCII) as is.
fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' => {
                let hex = |n: u32| char::from_digit(n, 16).unwrap_or('0');
                out.push_str("\\u00");
                out.push(hex(c as u32 >> 4));
                out.push(hex(c as u32 & 15));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `significand` with `digit` appended in base 10, while it fits in a `u64`.
fn with_digit(significand: u64, digit: u64) -> Option<u64> {
    significand.checked_mul(10)?.checked_add(digit)
}

/// A whole number without a point or exponent: unsigned, or signed when negative; `-0` and what
/// is below `i64::MIN` become floats, as in serde_json.
fn integer(positive: bool, significand: u64) -> Number {
    if positive {
        return Number::from(significand);
    }
    let negated = (significand as i64).wrapping_neg();
    if negated >= 0 {
        float_number(-(significand as f64))
    } else {
        Number::from(negated)
    }
}

fn float(f: f64) -> Value {
    Value::Number(float_number(f))
}

/// Finite by construction (infinities are refused above).
fn float_number(f: f64) -> Number {
    Number::from_f64(f).unwrap_or_else(|| Number::from(0u64))
}

/// 10^n, the `f64` nearest to it, for n in 0..=308 (serde_json's table): computed once, on the
/// first number with a fraction or an exponent, instead of shipping 2.5 KB of poorly compressing
/// data. 10^n = 5^n × 2^n, and 5^n is a big integer here, rounded to 53 bits exactly once.
fn pow10(n: usize) -> Option<f64> {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut five: Vec<u32> = vec![1];
            (0..=308)
                .map(|n| {
                    let power = nearest(&five, n);
                    let mut carry = 0u64;
                    for limb in &mut five {
                        let product = u64::from(*limb) * 5 + carry;
                        *limb = product as u32;
                        carry = product >> 32;
                    }
                    if carry > 0 {
                        five.push(carry as u32);
                    }
                    power
                })
                .collect()
        })
        .get(n)
        .copied()
}

/// The `f64` nearest to `limbs` (a big integer, least significant 32 bits first) × 2^`scale`,
/// ties to even; for the powers of ten above, which are far from the edges of the range.
fn nearest(limbs: &[u32], scale: i32) -> f64 {
    let top = limbs.len().saturating_sub(1);
    let limb = |below_top: usize| {
        top.checked_sub(below_top)
            .and_then(|i| limbs.get(i))
            .map_or(0, |&l| u128::from(l))
    };
    let leading_zeros = limbs.get(top).map_or(32, |l| l.leading_zeros()) as i32;
    let bits = 32 * limbs.len() as i32 - leading_zeros;
    let (mut mantissa, mut exponent) = if bits <= 53 {
        let low = |i: usize| u64::from(limbs.get(i).copied().unwrap_or(0));
        (low(0) | low(1) << 32, scale)
    } else {
        // The top three limbs hold the top 54 bits and more; what is below them only decides a tie.
        let window = (limb(0) << 64) | (limb(1) << 32) | limb(2);
        let shift = 42 - leading_zeros;
        let top54 = (window >> shift) as u64;
        let below = window & ((1u128 << shift) - 1) != 0
            || limbs.iter().take(top.saturating_sub(2)).any(|&l| l != 0);
        let (mut mantissa, round) = (top54 >> 1, top54 & 1 == 1);
        if round && (below || mantissa & 1 == 1) {
            mantissa += 1;
        }
        (mantissa, scale + bits - 53)
    };
    if mantissa == 1 << 53 {
        mantissa >>= 1;
        exponent += 1;
    }
    // An exact power of two: the mantissa (at most 53 bits) converts exactly, so does the product.
    let power_of_two = f64::from_bits(((exponent + 1023) as u64) << 52);
    mantissa as f64 * power_of_two
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn set_replaces_or_appends_a_key_in_order_and_leaves_non_objects_alone() {
        let mut event = object([("type", "cancel".into()), ("id", 1.into())]);
        set(&mut event, "source", "user".into());
        set(&mut event, "type", "reject".into());
        assert_eq!(write(&event), r#"{"type":"reject","id":1,"source":"user"}"#);
        let mut not_an_object = Value::from("text");
        set(&mut not_an_object, "key", Value::Null);
        assert_eq!(not_an_object, Value::from("text"));
    }

    /// Both readers agree: the same value (the same number kind and bits) or both refuse.
    fn agree(text: &str) {
        let ours = parse(text);
        let theirs = serde_json::from_str::<Value>(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{text:?}");
                // The writer too: its text is serde_json's, which also tells -0.0 from 0.0.
                assert_eq!(write(a), b.to_string(), "{text:?}");
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn every_power_of_ten_is_the_nearest_f64() {
        for n in 0..=308 {
            let expected: f64 = format!("1e{n}").parse().expect("a float");
            assert_eq!(
                pow10(n).map(f64::to_bits),
                Some(expected.to_bits()),
                "1e{n}"
            );
        }
        assert_eq!(pow10(309), None);
    }

    #[test]
    fn edge_cases_read_as_serde_json_reads_them() {
        for text in [
            "0",
            "-0",
            "-0.0",
            "0.0",
            "1",
            "-1",
            "5.0",
            "1e5",
            "1E5",
            "1e+5",
            "1e-5",
            "-1.5e-3",
            "1e400",
            "-1e400",
            "0e400",
            "1e-400",
            "-1e-400",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "2.2250738585072014e-308",
            "4.9e-324",
            "5e-324",
            "2e-324",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1844674407370955161.5",
            "1844674407370955161.6",
            "18446744073709551616.5",
            "184467440737095516150.12",
            "0.1844674407370955161999",
            "123456789012345678901234567890e-20",
            "1e2147483647",
            "1e2147483648",
            "0e2147483648",
            "1e-2147483648",
            "1e-99999999999",
            "0.000000000000000000000000000001e30",
            "1.",
            ".5",
            "01",
            "-",
            "-a",
            "1e",
            "1e+",
            "1e-",
            "1.e5",
            "+1",
            "1.5.5",
            "0x10",
            "Infinity",
            "NaN",
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\udc00\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ud83d\\ud83d\"",
            "\"\\ud83dx\"",
            "\"\\ud83d\\n\"",
            "\"\\u00e9\\u0000\"",
            "\"\\uD83D\\uDE00\"",
            "\"\\u12\"",
            "\"\\u12G4\"",
            "\"a\tb\"",
            "\"a\u{1}\"",
            "\"\\x\"",
            "\"abc",
            "\"\\",
            "\"é ✓ 😀\"",
            "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
            "[1,]",
            "[,1]",
            "[1 2]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "{\"a\"}",
            "[",
            "{",
            "]",
            "[1",
            "{\"a\":",
            "{\"a\":1,\"a\":2,\"b\":3}",
            "{\"b\":1,\"a\":2}",
            " [ ] ",
            "{}",
            "[]",
            "[[],{}]",
            "nul",
            "truex",
            "true false",
            "\n\r\t null \n",
            "",
            " ",
            "\u{feff}1",
            "1 // c",
            "tru",
            "n",
        ] {
            agree(text);
        }
        for depth in [126, 127, 128, 129, 1000] {
            agree(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            agree(&format!(
                "{}1{}",
                "{\"a\":".repeat(depth),
                "}".repeat(depth)
            ));
        }
    }

    fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
        rng.pick(items).copied().unwrap_or_default()
    }

    fn digits(rng: &mut Rng, out: &mut String, at_most: usize) {
        for _ in 0..1 + rng.below(at_most) {
            out.push(char::from(b'0' + rng.below(10) as u8));
        }
    }

    fn number(rng: &mut Rng, out: &mut String) {
        if rng.below(3) == 0 {
            out.push('-');
        }
        if rng.below(4) == 0 {
            out.push('0');
        } else {
            out.push(char::from(b'1' + rng.below(9) as u8));
            if rng.below(2) == 0 {
                digits(rng, out, 24);
            }
        }
        if rng.below(2) == 0 {
            out.push('.');
            digits(rng, out, 24);
        }
        if rng.below(3) == 0 {
            out.push_str(pick(rng, &["e", "E", "e+", "e-", "E-"]));
            digits(rng, out, 4);
        }
    }

    fn value(rng: &mut Rng, out: &mut String, depth: usize) {
        match rng.below(if depth > 4 { 5 } else { 8 }) {
            0 => out.push_str(pick(rng, &["null", "true", "false"])),
            1 | 2 => number(rng, out),
            3 | 4 => {
                out.push('"');
                for _ in 0..rng.below(6) {
                    out.push_str(pick(
                        rng,
                        &[
                            "a",
                            "é",
                            "😀",
                            "\\n",
                            "\\\"",
                            "\\\\",
                            "\\u00e9",
                            "\\ud83d\\ude00",
                            "\\ud83d",
                            "\\udc00",
                            " ",
                            "\\/",
                            "\t",
                            "\\u0001",
                            "\\u001f",
                            "\\b",
                            "\\f",
                            "\\r",
                            "\\u007f",
                            "/",
                            "\u{7f}",
                        ],
                    ));
                }
                out.push('"');
            }
            5 | 6 => {
                out.push('[');
                for index in 0..rng.below(4) {
                    if index > 0 {
                        out.push_str(pick(rng, &[",", ", ", " ,\n"]));
                    }
                    value(rng, out, depth + 1);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for index in 0..rng.below(4) {
                    if index > 0 {
                        out.push(',');
                    }
                    out.push_str(pick(rng, &["\"a\"", "\"b\"", "\"a\" ", "\"\\u0061\""]));
                    out.push(':');
                    value(rng, out, depth + 1);
                }
                out.push('}');
            }
        }
    }

    #[test]
    fn generated_texts_and_their_mutants_read_as_serde_json_reads_them() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..60_000 {
            let mut text = String::new();
            value(&mut rng, &mut text, 0);
            agree(&text);
            // One byte-level mutation at an ASCII position: drop, duplicate or replace a char.
            let positions: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            if let Some(&at) = positions.get(rng.below(positions.len().max(1))) {
                let mut mutant = text.clone();
                match rng.below(3) {
                    0 => {
                        mutant.remove(at);
                    }
                    1 => {
                        let c = mutant[at..].chars().next().unwrap_or(' ');
                        mutant.insert(at, c);
                    }
                    _ => {
                        mutant.remove(at);
                        mutant.insert_str(
                            at,
                            pick(
                                &mut rng,
                                &["}", "]", ",", ":", "\"", "\\", "-", "0", "e", ".", " "],
                            ),
                        );
                    }
                }
                agree(&mutant);
            }
        }
    }
}
