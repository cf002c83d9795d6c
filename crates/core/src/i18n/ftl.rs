//! Run-time half of `i18n`: a small hand-written parser for the Fluent subset the shipped files
//! use (text, `{ $var }`, `{ "literal" }`, and `{ $var -> [key] … *[other] … }` selects), so a
//! host can register a language without a Fluent runtime in the wasm. It produces the same
//! [`Part`]s `build.rs` compiles the shipped files into, and follows the Fluent syntax's rules for
//! whitespace (a test checks it against the real parser). Everything outside the subset (terms,
//! attributes, functions, message references) is refused with the message's id.

use std::borrow::Cow;

use super::{Key, Part};

/// Why a message is refused: mostly fixed phrases, so no allocation (and less code) for them.
type Why = Cow<'static, str>;

/// One problem in a Fluent text: the message it is in (when known), the line, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct FtlError {
    pub id: Option<String>,
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for FtlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.id {
            Some(id) => write!(f, "message `{id}`: {}", self.reason),
            None => write!(f, "line {}: {}", self.line, self.reason),
        }
    }
}

/// The messages of a Fluent text, in source order, or every problem found in it.
pub fn parse(source: &str) -> Result<Vec<(String, Vec<Part>)>, Vec<FtlError>> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    // CRLF line ends read as LF (a carriage return is never meaningful in a message).
    let source: String = source.chars().filter(|ch| *ch != '\r').collect();
    let mut cursor = Cursor {
        src: &source,
        pos: 0,
    };
    let mut messages = Vec::new();
    let mut errors = Vec::new();
    while let Some(byte) = cursor.peek() {
        // Counted only for an error: counting for every entry would be quadratic.
        let start = cursor.pos;
        let line = || line_at(&source, start);
        match byte {
            b'\n' => cursor.pos += 1,
            b'#' => cursor.skip_line(),
            b' ' if cursor.rest_of_line_is_blank() => cursor.skip_line(),
            b'-' => {
                cursor.pos += 1;
                let name = cursor.identifier().unwrap_or_default().to_string();
                errors.push(FtlError {
                    id: None,
                    line: line(),
                    reason: format!("term `-{name}`: terms are not supported"),
                });
                cursor.skip_junk();
            }
            byte if byte.is_ascii_alphabetic() => match cursor.message() {
                Ok((id, parts)) => messages.push((id, parts)),
                Err((id, reason)) => {
                    errors.push(FtlError {
                        id,
                        line: line(),
                        reason: reason.into_owned(),
                    });
                    cursor.skip_junk();
                }
            },
            _ => {
                errors.push(FtlError {
                    id: None,
                    line: line(),
                    reason: "expected a message (`id = text`) or a comment".to_string(),
                });
                cursor.skip_junk();
            }
        }
    }
    if errors.is_empty() {
        Ok(messages)
    } else {
        Err(errors)
    }
}

/// The line number of a byte position.
fn line_at(source: &str, pos: usize) -> usize {
    source.get(..pos).unwrap_or_default().matches('\n').count() + 1
}

/// One piece of a pattern before its indentation is resolved (as in the Fluent parser).
enum Element {
    Text(String),
    /// Line breaks and the next line's indentation, of which the common part is dropped.
    Indent(usize, usize),
    Placeable(Part),
}

struct Cursor<'a> {
    src: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    fn slice(&self, start: usize, end: usize) -> &str {
        self.src.get(start..end).unwrap_or_default()
    }

    fn at_line_end(&self) -> bool {
        matches!(self.peek(), None | Some(b'\n'))
    }

    fn skip_line(&mut self) {
        while !self.at_line_end() {
            self.pos += 1;
        }
        if self.peek().is_some() {
            self.pos += 1;
        }
    }

    fn rest_of_line_is_blank(&self) -> bool {
        let rest = self.src.get(self.pos..).unwrap_or_default();
        rest.split('\n')
            .next()
            .unwrap_or_default()
            .trim_matches(' ')
            .is_empty()
    }

    /// Skips to the next line that starts an entry (a message, a term or a comment).
    fn skip_junk(&mut self) {
        self.skip_line();
        while let Some(byte) = self.peek() {
            if byte.is_ascii_alphabetic() || byte == b'-' || byte == b'#' {
                return;
            }
            self.skip_line();
        }
    }

    fn skip_spaces(&mut self) -> usize {
        let start = self.pos;
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
        self.pos - start
    }

    /// Spaces and line breaks (inside `{ }`).
    fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n')) {
            self.pos += 1;
        }
    }

    /// Blank lines from a line break on, leaving the cursor at the start of the next line with
    /// text (or where it was, at the end). Returns how many line breaks were passed.
    fn skip_blank_lines(&mut self) -> usize {
        let mut breaks = 0;
        loop {
            let line_start = self.pos;
            self.skip_spaces();
            if self.peek() == Some(b'\n') {
                self.pos += 1;
                breaks += 1;
            } else {
                self.pos = line_start;
                return breaks;
            }
        }
    }

    /// At a line start: whether the line continues the pattern (indented, and not starting a
    /// variant, an attribute or the end of a select), or is a placeable.
    fn is_continuation(&self) -> bool {
        let mut ahead = 0;
        while self.peek_at(ahead) == Some(b' ') {
            ahead += 1;
        }
        match self.peek_at(ahead) {
            Some(b'{') => true,
            _ if ahead == 0 => false,
            None | Some(b'}' | b'.' | b'[' | b'*' | b'\n') => false,
            Some(_) => true,
        }
    }

    fn identifier(&mut self) -> Option<&str> {
        let start = self.pos;
        if !self.peek()?.is_ascii_alphabetic() {
            return None;
        }
        while self
            .peek()
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        {
            self.pos += 1;
        }
        Some(self.slice(start, self.pos))
    }

    /// `id = pattern`, at the start of a line.
    fn message(&mut self) -> Result<(String, Vec<Part>), (Option<String>, Why)> {
        let id = self.identifier().unwrap_or_default().to_string();
        let fail = |reason: Why| (Some(id.clone()), reason);
        self.skip_spaces();
        if self.peek() != Some(b'=') {
            return Err(fail("expected `=` after the message id".into()));
        }
        self.pos += 1;
        let parts = match self.maybe_pattern() {
            Ok(Some(parts)) => parts,
            Ok(None) => return Err(fail("a message needs a value".into())),
            Err(reason) => return Err(fail(reason)),
        };
        // An attribute (`.title = …`) on the next lines.
        let end = self.pos;
        self.skip_blank_lines();
        self.skip_spaces();
        if self.peek() == Some(b'.') {
            return Err(fail("attributes are not supported".into()));
        }
        self.pos = end;
        Ok((id, parts))
    }

    /// A pattern on the same line, or on the following indented lines, or `None`.
    fn maybe_pattern(&mut self) -> Result<Option<Vec<Part>>, Why> {
        self.skip_spaces();
        if !self.at_line_end() {
            return self.pattern(false).map(Some);
        }
        let line_end = self.pos;
        self.skip_blank_lines();
        if self.peek().is_some() && self.is_continuation() {
            return self.pattern(true).map(Some);
        }
        self.pos = line_end;
        Ok(None)
    }

    fn pattern(&mut self, block: bool) -> Result<Vec<Part>, Why> {
        let mut elements = Vec::new();
        let mut common_indent = usize::MAX;
        if block {
            let indent = self.skip_spaces();
            elements.push(Element::Indent(0, indent));
            common_indent = indent;
        }
        while let Some(byte) = self.peek() {
            match byte {
                b'\n' => {
                    let line_end = self.pos;
                    let breaks = self.skip_blank_lines();
                    if self.peek().is_some() && self.is_continuation() {
                        let indent = self.skip_spaces();
                        common_indent = common_indent.min(indent);
                        elements.push(Element::Indent(breaks, indent));
                    } else {
                        self.pos = line_end;
                        break;
                    }
                }
                b'{' => elements.push(Element::Placeable(self.placeable()?)),
                b'}' => {
                    return Err("a `}` without its `{` (write { \"}\" } for the character)".into())
                }
                _ => {
                    let start = self.pos;
                    while !matches!(self.peek(), None | Some(b'\n' | b'{' | b'}')) {
                        self.pos += 1;
                    }
                    elements.push(Element::Text(self.slice(start, self.pos).to_string()));
                }
            }
        }
        Ok(dedent(elements, common_indent))
    }

    /// `{ $var }`, `{ "text" }`, `{ { … } }` or a select.
    fn placeable(&mut self) -> Result<Part, Why> {
        self.pos += 1; // `{`
        self.skip_blank();
        let expression = self.inline_expression()?;
        self.skip_blank();
        let part = if self.peek() == Some(b'-') && self.peek_at(1) == Some(b'>') {
            let Part::Var(var) = expression else {
                return Err("only a `$variable` can select a variant".into());
            };
            self.pos += 2;
            self.skip_spaces();
            if !self.at_line_end() {
                return Err("the variants of a select start on a new line".into());
            }
            let (variants, default) = self.variants()?;
            Part::Select {
                var,
                variants,
                default,
            }
        } else {
            expression
        };
        self.skip_blank();
        if self.peek() != Some(b'}') {
            return Err("a `{` without its `}`".into());
        }
        self.pos += 1;
        Ok(part)
    }

    fn inline_expression(&mut self) -> Result<Part, Why> {
        match self.peek() {
            Some(b'$') => {
                self.pos += 1;
                match self.identifier() {
                    Some(name) => Ok(Part::Var(name.to_string())),
                    None => Err("a `$` must be followed by a variable name".into()),
                }
            }
            Some(b'"') => self.string_literal().map(Part::Text),
            Some(b'{') => self.placeable(),
            Some(b'-') if self.peek_at(1).is_some_and(|b| b.is_ascii_alphabetic()) => {
                self.pos += 1;
                let name = self.identifier().unwrap_or_default();
                Err(format!("terms are not supported ({{ -{name} }})").into())
            }
            Some(byte) if byte.is_ascii_digit() || byte == b'-' => {
                Err("number literals are not supported".into())
            }
            Some(byte) if byte.is_ascii_alphabetic() => {
                let name = self.identifier().unwrap_or_default().to_string();
                if self.peek() == Some(b'(') {
                    Err(format!("functions are not supported ({name}())").into())
                } else {
                    Err(format!("message references are not supported ({{ {name} }})").into())
                }
            }
            _ => Err("expected a `$variable` or a \"string\" inside `{ }`".into()),
        }
    }

    /// `"…"` with Fluent's escapes (`\\`, `\"`, `\uXXXX`, `\UXXXXXX`).
    fn string_literal(&mut self) -> Result<String, Why> {
        self.pos += 1; // `"`
        let mut text = String::new();
        loop {
            let rest = self.src.get(self.pos..).unwrap_or_default();
            let Some(ch) = rest.chars().next() else {
                return Err("a string literal is not closed".into());
            };
            self.pos += ch.len_utf8();
            match ch {
                '"' => return Ok(text),
                '\n' => return Err("a string literal is not closed on its line".into()),
                '\\' => match self.peek() {
                    Some(quoted @ (b'\\' | b'"')) => {
                        self.pos += 1;
                        text.push(char::from(quoted));
                    }
                    Some(size @ (b'u' | b'U')) => {
                        let digits = if size == b'u' { 4 } else { 6 };
                        let hex = self.slice(self.pos + 1, self.pos + 1 + digits);
                        let code = hex.chars().try_fold(0, |code, digit| {
                            digit.to_digit(16).map(|value| code * 16 + value)
                        });
                        let Some(code) = code.filter(|_| hex.len() == digits) else {
                            return Err(
                                "a unicode escape needs 4 (\\u) or 6 (\\U) hex digits".into()
                            );
                        };
                        text.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        self.pos += 1 + digits;
                    }
                    _ => return Err("unknown escape in a string literal".into()),
                },
                ch => text.push(ch),
            }
        }
    }

    /// The variants of a select and the index of the default one.
    #[allow(clippy::type_complexity)]
    fn variants(&mut self) -> Result<(Vec<(Key, Vec<Part>)>, usize), Why> {
        let mut variants = Vec::new();
        let mut default = None;
        loop {
            self.skip_blank();
            let is_default = self.peek() == Some(b'*');
            if is_default {
                self.pos += 1;
            }
            if self.peek() != Some(b'[') {
                if is_default {
                    return Err("expected `[` after `*`".into());
                }
                break;
            }
            self.pos += 1;
            self.skip_blank();
            let key = self.variant_key()?;
            self.skip_blank();
            if self.peek() != Some(b']') {
                return Err("a variant key needs its `]`".into());
            }
            self.pos += 1;
            let Some(value) = self.maybe_pattern()? else {
                return Err("a variant needs a value".into());
            };
            if is_default {
                if default.is_some() {
                    return Err("a select has one default variant (`*[…]`), not two".into());
                }
                default = Some(variants.len());
            }
            variants.push((key, value));
        }
        match default {
            Some(default) => Ok((variants, default)),
            None => Err("a select needs a default variant (`*[other]`)".into()),
        }
    }

    fn variant_key(&mut self) -> Result<Key, Why> {
        if let Some(name) = self.identifier() {
            return Ok(Key::Name(name.to_string()));
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|byte| byte.is_ascii_digit() || byte == b'-' || byte == b'.')
        {
            self.pos += 1;
        }
        let key = self.slice(start, self.pos);
        if key.contains('.') {
            return Err(
                format!("variant key [{key}]: only whole-number keys are supported").into(),
            );
        }
        key.parse::<i64>()
            .map(|number| Key::Number(number as f64))
            .map_err(|_| "a variant key is a name (`one`, `other`…) or a whole number".into())
    }
}

/// Drops the indentation common to the pattern's lines and the blank space at its end (but not
/// what a `{ " " }` wrote), and joins adjacent texts (as `build.rs` does).
fn dedent(elements: Vec<Element>, common_indent: usize) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    // How much of the last part, if it is a text, came up to a placeable and must stay.
    let mut kept_len = 0;
    for element in elements {
        let (text, from_placeable) = match element {
            Element::Text(text) => (text, false),
            Element::Indent(breaks, indent) => {
                let kept = indent.saturating_sub(common_indent);
                let mut text = String::new();
                text.extend(std::iter::repeat_n('\n', breaks));
                text.extend(std::iter::repeat_n(' ', kept));
                (text, false)
            }
            Element::Placeable(Part::Text(text)) => (text, true),
            Element::Placeable(part) => {
                parts.push(part);
                kept_len = 0;
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        match parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(&text),
            _ => {
                kept_len = 0;
                parts.push(Part::Text(text));
            }
        }
        if from_placeable {
            kept_len = match parts.last() {
                Some(Part::Text(last)) => last.len(),
                _ => 0,
            };
        }
    }
    if let Some(Part::Text(text)) = parts.last_mut() {
        let trimmed = text.trim_end_matches([' ', '\n']).len().max(kept_len);
        text.truncate(trimmed);
        if text.is_empty() {
            parts.pop();
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::super::compile::{self, Piece, VariantKey};
    use super::*;

    /// The build-time compiler's view (the real Fluent parser) in the run-time representation.
    fn from_piece(piece: &Piece) -> Part {
        match piece {
            Piece::Text(text) => Part::Text(text.clone()),
            Piece::Var(name) => Part::Var(name.clone()),
            Piece::Select {
                var,
                variants,
                default,
            } => Part::Select {
                var: var.clone(),
                variants: variants
                    .iter()
                    .map(|(key, pieces)| {
                        let key = match key {
                            VariantKey::Name(name) => Key::Name(name.clone()),
                            VariantKey::Number(number) => Key::Number(*number),
                        };
                        (key, pieces.iter().map(from_piece).collect())
                    })
                    .collect(),
                default: *default,
            },
        }
    }

    fn fluent(source: &str) -> Vec<(String, Vec<Part>)> {
        let mut messages = compile::Messages::new();
        compile::add_file("test.ftl", source, &mut messages).expect("the Fluent parser accepts it");
        let mut parsed: Vec<_> = messages
            .iter()
            .map(|(id, pieces)| (id.clone(), pieces.iter().map(from_piece).collect()))
            .collect();
        parsed.sort_by(|a: &(String, Vec<Part>), b| a.0.cmp(&b.0));
        parsed
    }

    fn ours(source: &str) -> Vec<(String, Vec<Part>)> {
        let mut parsed = parse(source).expect("our parser accepts it");
        parsed.sort_by(|a, b| a.0.cmp(&b.0));
        parsed
    }

    fn error_of(source: &str) -> String {
        let errors = parse(source).expect_err("refused");
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_shipped_files_parse_as_the_fluent_parser_reads_them() {
        for source in [
            include_str!("../../../../i18n/en-US/elicitation.ftl"),
            include_str!("../../../../i18n/pt-BR/elicitation.ftl"),
        ] {
            let expected = fluent(source);
            assert_eq!(expected.len(), ours(source).len());
            assert_eq!(ours(source), expected);
        }
    }

    #[test]
    fn whitespace_literals_and_selects_read_as_the_fluent_parser_reads_them() {
        for source in [
            "a = Hello   \n",
            "a =    Hello world  \nb = Next\n",
            "a =\n    Block text\n",
            "a = First line\n    second line\n\n      third, indented\n\n\nb = B\n",
            "a =\n    one\n  two\n",
            "a = Tab\tinside and trailing { \"  \" }\n",
            "a = { \"{\" }braces{ \"}\" } { \"\\\"q\\\" \\\\ \\u00A0\\U01F600\" }\n",
            "a = x { { $nested } } y\n",
            "a = { $n ->\n    [0] none\n    [one] { $n } item\n   *[other] { $n } items\n}\n",
            "a = Before { $n ->\n       [one]   one\n            more line\n      *[other]\n          many\n   } after\n",
            "a = { $n ->\n    [one] { $m ->\n        [one] 1/1\n       *[other] 1/n\n    }\n   *[other] n\n}\n",
            "a = { $kind -> \n    [tag] A tag\n   *[text] A text\n}\n",
            "# comment\n## group\n### resource\n\na = A\n   \nb = B\r\nc = C\r\n",
            "a = { $x }\n    { $y }\n",
            "a = { -5 ->\n *[other] x\n}\n".replace("-5", "$v").as_str(),
        ] {
            assert_eq!(ours(source), fluent(source), "{source:?}");
        }
    }

    #[test]
    fn what_the_subset_leaves_out_is_refused_naming_the_message() {
        for (source, expected) in [
            (
                "-brand = Koder\n",
                "line 1: term `-brand`: terms are not supported",
            ),
            (
                "m = { -brand }\n",
                "message `m`: terms are not supported ({ -brand })",
            ),
            (
                "m = Hi\n    .title = T\n",
                "message `m`: attributes are not supported",
            ),
            (
                "m = { NUMBER($n) }\n",
                "message `m`: functions are not supported (NUMBER())",
            ),
            (
                "m = { other }\n",
                "message `m`: message references are not supported ({ other })",
            ),
            (
                "m = { 5 }\n",
                "message `m`: number literals are not supported",
            ),
            (
                "m = { \"x\" ->\n   *[other] x\n}\n",
                "message `m`: only a `$variable` can select a variant",
            ),
            (
                "m = { $n ->\n    [1.5] one\n   *[other] x\n}\n",
                "message `m`: variant key [1.5]: only whole-number keys are supported",
            ),
            (
                "m = { $n ->\n    [one] x\n}\n",
                "message `m`: a select needs a default variant (`*[other]`)",
            ),
            (
                "m = { $n ->\n   *[one] x\n   *[other] y\n}\n",
                "message `m`: a select has one default variant (`*[…]`), not two",
            ),
            (
                "m = { $n -> *[other] x }\n",
                "message `m`: the variants of a select start on a new line",
            ),
            ("m = Open { $n\n", "message `m`: a `{` without its `}`"),
            ("m = Close }\n", "message `m`: a `}` without its `{`"),
            (
                "m = { \"open\n",
                "message `m`: a string literal is not closed on its line",
            ),
            (
                "m = { \"\\q\" }\n",
                "message `m`: unknown escape in a string literal",
            ),
            (
                "m = { $ }\n",
                "message `m`: a `$` must be followed by a variable name",
            ),
            ("m =\n", "message `m`: a message needs a value"),
            (
                "m Hello\n",
                "message `m`: expected `=` after the message id",
            ),
            (
                "ok = Fine\n!bad\n",
                "line 2: expected a message (`id = text`) or a comment",
            ),
            (
                "   indented = x\n",
                "line 1: expected a message (`id = text`) or a comment",
            ),
        ] {
            let error = error_of(source);
            assert!(error.starts_with(expected), "{source:?}: {error}");
        }
    }

    #[test]
    fn a_long_text_parses_in_linear_time_and_errors_still_know_their_line() {
        let long = "# a comment line\nm = text\n".repeat(50_000) + "!junk\n";
        let errors = parse(&long).expect_err("the junk");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, 100_001);
    }

    #[test]
    fn every_problem_is_reported_and_good_messages_after_junk_still_parse() {
        let errors = parse("a = { $n\nb = Fine\n-term = x\nc = { NUMBER($x) }\n").expect_err("bad");
        let ids: Vec<_> = errors.iter().map(|error| error.id.as_deref()).collect();
        assert_eq!(ids, [Some("a"), None, Some("c")]);
        assert_eq!(errors[1].line, 3);
    }
}
