//! Build-time half of `i18n`: parses the Fluent files with the real Fluent parser, refuses what
//! the runtime in `i18n.rs` does not implement, and writes each locale's text as it ships.
//!
//! `build.rs` includes this file with `#[path]`; `i18n.rs` includes it again under `cfg(test)` so
//! the checks are unit-tested. It must not use anything from the crate.

use std::collections::BTreeMap;

use fluent_syntax::ast;

/// One piece of a compiled pattern (the build-time twin of `i18n::Part`).
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Var(String),
    Select {
        var: String,
        variants: Vec<(VariantKey, Vec<Piece>)>,
        default: usize,
    },
}

/// A variant key: a name (a plural category, or text compared as is) or an integer.
#[derive(Debug, Clone, PartialEq)]
pub enum VariantKey {
    Name(String),
    Number(f64),
}

/// The messages of one locale, by id.
pub type Messages = BTreeMap<String, Vec<Piece>>;

/// Parses one `.ftl` file into `messages`, naming `file` and the message id in every error.
pub fn add_file(file: &str, source: &str, messages: &mut Messages) -> Result<(), Vec<String>> {
    // A file with a parse error still yields its good entries: check those too, so the report
    // is not buried under every id of the file "missing" from the other locale.
    let (resource, parse_errors) = match fluent_syntax::parser::parse(source) {
        Ok(resource) => (resource, Vec::new()),
        Err((resource, errors)) => (resource, errors),
    };
    let mut errors: Vec<String> = parse_errors
        .iter()
        .map(|error| {
            let line = source[..error.pos.start.min(source.len())]
                .matches('\n')
                .count()
                + 1;
            // The broken entry, from the end of the last good one: its id, when it has one.
            let entry = error
                .slice
                .clone()
                .and_then(|slice| source.get(slice))
                .and_then(|junk| junk.trim_start().split_once('='))
                .map(|(id, _)| id.trim())
                .filter(|id| !id.is_empty() && !id.contains(char::is_whitespace))
                .map(|id| format!(" message `{id}`:"))
                .unwrap_or_default();
            format!("{file}:{line}:{entry} Fluent parse error: {}", error.kind)
        })
        .collect();
    for entry in &resource.body {
        match entry {
            ast::Entry::Message(message) => {
                let id = message.id.name;
                let fail = |errors: &mut Vec<String>, why: &str| {
                    errors.push(format!("{file}: message `{id}`: {why}"));
                };
                if !message.attributes.is_empty() {
                    fail(&mut errors, "attributes are not supported");
                }
                let Some(value) = &message.value else {
                    fail(&mut errors, "a message needs a value");
                    continue;
                };
                let mut why = Vec::new();
                let pieces = pattern(value, &mut why);
                for why in why {
                    fail(&mut errors, &why);
                }
                if messages.insert(id.to_string(), pieces).is_some() {
                    fail(&mut errors, "defined twice");
                }
            }
            ast::Entry::Term(term) => errors.push(format!(
                "{file}: term `-{}`: terms are not supported",
                term.id.name
            )),
            // Reported above, with its line.
            ast::Entry::Junk { .. }
            | ast::Entry::Comment(_)
            | ast::Entry::GroupComment(_)
            | ast::Entry::ResourceComment(_) => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn pattern(pattern: &ast::Pattern<&str>, why: &mut Vec<String>) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for element in &pattern.elements {
        match element {
            ast::PatternElement::TextElement { value } => push_text(&mut pieces, value),
            ast::PatternElement::Placeable { expression } => {
                placeable(expression, &mut pieces, why)
            }
        }
    }
    pieces
}

/// Adjacent texts become one piece: the output is the same and the table smaller.
fn push_text(pieces: &mut Vec<Piece>, text: &str) {
    if text.is_empty() {
        return;
    }
    match pieces.last_mut() {
        Some(Piece::Text(last)) => last.push_str(text),
        _ => pieces.push(Piece::Text(text.to_string())),
    }
}

fn placeable(expression: &ast::Expression<&str>, pieces: &mut Vec<Piece>, why: &mut Vec<String>) {
    match expression {
        ast::Expression::Inline(inline) => match inline {
            ast::InlineExpression::VariableReference { id } => {
                pieces.push(Piece::Var(id.name.to_string()))
            }
            ast::InlineExpression::StringLiteral { value } => push_text(
                pieces,
                &fluent_syntax::unicode::unescape_unicode_to_string(value),
            ),
            ast::InlineExpression::Placeable { expression } => placeable(expression, pieces, why),
            other => why.push(unsupported(other)),
        },
        ast::Expression::Select { selector, variants } => {
            let ast::InlineExpression::VariableReference { id } = selector else {
                why.push(format!(
                    "only a variable can select a variant, not {}",
                    unsupported(selector)
                ));
                return;
            };
            let mut compiled = Vec::new();
            let mut default = 0;
            for (index, variant) in variants.iter().enumerate() {
                let key = match variant.key {
                    ast::VariantKey::Identifier { name } => VariantKey::Name(name.to_string()),
                    ast::VariantKey::NumberLiteral { value } => match integer_key(value) {
                        Some(number) => VariantKey::Number(number),
                        None => {
                            why.push(format!(
                                "variant key [{value}]: only whole-number keys are supported"
                            ));
                            continue;
                        }
                    },
                };
                if variant.default {
                    default = index;
                }
                compiled.push((key, pattern(&variant.value, why)));
            }
            pieces.push(Piece::Select {
                var: id.name.to_string(),
                variants: compiled,
                default,
            });
        }
    }
}

/// `[1]`, `[0]`, `[-2]`: keys written with a fraction never equal an argument in fluent-rs (the
/// literal's fraction digits are part of its value there), so they are refused rather than copied.
fn integer_key(value: &str) -> Option<f64> {
    if value.contains('.') {
        return None;
    }
    value.parse().ok()
}

fn unsupported(expression: &ast::InlineExpression<&str>) -> String {
    match expression {
        ast::InlineExpression::FunctionReference { id, .. } => {
            format!("functions are not supported ({}())", id.name)
        }
        ast::InlineExpression::MessageReference { id, .. } => {
            format!("message references are not supported ({{ {} }})", id.name)
        }
        ast::InlineExpression::TermReference { id, .. } => {
            format!("terms are not supported ({{ -{} }})", id.name)
        }
        ast::InlineExpression::NumberLiteral { value } => {
            format!("number literals are not supported ({{ {value} }})")
        }
        ast::InlineExpression::StringLiteral { value } => {
            format!("a string literal (\"{value}\")")
        }
        ast::InlineExpression::VariableReference { id } => format!("${}", id.name),
        ast::InlineExpression::Placeable { .. } => "a nested placeable".to_string(),
    }
}

/// Every locale must have exactly the same message ids.
pub fn check_same_ids(locales: &[(&str, &Messages)]) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    for (tag, messages) in locales {
        for (other_tag, other) in locales {
            for id in messages.keys() {
                if !other.contains_key(id) {
                    errors.push(format!(
                        "message `{id}` is in i18n/{tag}/ but missing from i18n/{other_tag}/"
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Every locale's message must take the same variables as the first locale's (en-US): a
/// translation that drops `{ $limit }` or invents `{ $count }` is a mistake the build catches.
pub fn check_same_variables(locales: &[(&str, &Messages)]) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let Some((first_tag, first)) = locales.first() else {
        return Ok(());
    };
    for (tag, messages) in locales {
        for (id, pieces) in messages.iter() {
            let Some(reference) = first.get(id) else {
                continue;
            };
            let (expected, found) = (variables(reference), variables(pieces));
            if expected != found {
                errors.push(format!(
                    "message `{id}` in i18n/{tag}/ takes {} but in i18n/{first_tag}/ takes {}",
                    list(&found),
                    list(&expected)
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn list(variables: &std::collections::BTreeSet<String>) -> String {
    if variables.is_empty() {
        return "no variables".to_string();
    }
    let names: Vec<String> = variables.iter().map(|name| format!("${name}")).collect();
    names.join(", ")
}

/// The variables a pattern uses, selectors included.
pub fn variables(pieces: &[Piece]) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    for piece in pieces {
        match piece {
            Piece::Text(_) => {}
            Piece::Var(name) => {
                found.insert(name.clone());
            }
            Piece::Select { var, variants, .. } => {
                found.insert(var.clone());
                for (_, value) in variants {
                    found.extend(variables(value));
                }
            }
        }
    }
    found
}

/// A locale's Fluent text as it ships: its files joined, without comment and blank lines, and
/// without the messages `keep` leaves out. `build.rs` compiles the result again and checks that it
/// gives the same messages, so a pattern that needed one of the dropped lines fails the build.
pub fn shipped_text(sources: &[String], keep: impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    let mut keeping = true;
    for line in sources.iter().flat_map(|source| source.lines()) {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        // An entry starts at column 0; its further lines are indented or close a select (`}`).
        if !line.starts_with([' ', '}']) {
            let id = line.split(['=', ' ']).next().unwrap_or_default();
            keeping = keep(id);
        }
        if keeping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `static NAME: &str = "…";`
pub fn constant(name: &str, text: &str) -> String {
    format!("static {name}: &str = {text:?};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile_one(source: &str) -> Result<Messages, Vec<String>> {
        let mut messages = Messages::new();
        add_file("i18n/xx/test.ftl", source, &mut messages).map(|()| messages)
    }

    fn error_of(source: &str) -> String {
        compile_one(source).expect_err("refused").join("\n")
    }

    #[test]
    fn text_variables_and_plural_selects_compile() {
        let messages = compile_one(
            "# comment\n\
             plain = Hello\n\
             with-var = From { $server } { \"\\u00A0\" }end\n\
             plural = { $n ->\n    [0] none\n    [one] { $n } item\n   *[other] { $n } items\n}\n",
        )
        .expect("compiles");
        assert_eq!(messages["plain"], [Piece::Text("Hello".into())]);
        assert_eq!(
            messages["with-var"],
            [
                Piece::Text("From ".into()),
                Piece::Var("server".into()),
                Piece::Text(" \u{a0}end".into()),
            ]
        );
        let Piece::Select {
            var,
            variants,
            default,
        } = &messages["plural"][0]
        else {
            panic!("a select")
        };
        assert_eq!(var, "n");
        assert_eq!(*default, 2);
        assert_eq!(variants[0].0, VariantKey::Number(0.0));
        assert_eq!(variants[1].0, VariantKey::Name("one".into()));
        assert_eq!(
            variants[2].1,
            [Piece::Var("n".into()), Piece::Text(" items".into())]
        );
    }

    #[test]
    fn a_parse_error_names_the_file_and_line() {
        let error = error_of("ok = Fine\nbroken = { $n ->\n  [one] x\n}\n");
        assert_eq!(
            error,
            "i18n/xx/test.ftl:4: message `broken`: Fluent parse error: \
             The select expression must have a default variant"
        );
    }

    #[test]
    fn unsupported_syntax_names_the_file_and_message() {
        for (source, why) in [
            ("-brand = Koder\n", "term `-brand`: terms are not supported"),
            ("m = { -brand }\n", "message `m`: terms are not supported"),
            (
                "m = Hi\n    .title = T\n",
                "message `m`: attributes are not supported",
            ),
            (
                "m = { NUMBER($n) }\n",
                "message `m`: functions are not supported",
            ),
            (
                "m = { other }\n",
                "message `m`: message references are not supported",
            ),
            (
                "m = { 5 }\n",
                "message `m`: number literals are not supported",
            ),
            (
                "m = { NUMBER($n) ->\n   *[other] x\n}\n",
                "message `m`: only a variable can select",
            ),
            (
                "m = { $n ->\n    [1.0] one\n   *[other] x\n}\n",
                "message `m`: variant key [1.0]",
            ),
            ("m = A\nm = B\n", "message `m`: defined twice"),
        ] {
            let error = error_of(source);
            assert!(
                error.starts_with("i18n/xx/test.ftl: ") && error.contains(why),
                "{source:?}: {error}"
            );
        }
    }

    #[test]
    fn every_locale_needs_the_same_ids() {
        let en = compile_one("a = A\nb = B\n").expect("compiles");
        let pt = compile_one("a = A\nc = C\n").expect("compiles");
        assert_eq!(check_same_ids(&[("en-US", &en), ("en-GB", &en)]), Ok(()));
        assert_eq!(
            check_same_ids(&[("en-US", &en), ("pt-BR", &pt)]),
            Err(vec![
                "message `b` is in i18n/en-US/ but missing from i18n/pt-BR/".to_string(),
                "message `c` is in i18n/pt-BR/ but missing from i18n/en-US/".to_string(),
            ])
        );
    }

    #[test]
    fn every_locale_needs_the_same_variables() {
        let en =
            compile_one("a = { $n ->\n    [one] one { $what }\n   *[other] { $n }\n}\nb = B\n")
                .expect("compiles");
        let good =
            compile_one("a = { $n ->\n   *[other] { $n } { $what }\n}\nb = Bê\n").expect("ok");
        let bad = compile_one("a = { $count } { $what }\nb = { $n }\n").expect("compiles");
        assert_eq!(
            check_same_variables(&[("en-US", &en), ("pt-BR", &good)]),
            Ok(())
        );
        assert_eq!(
            check_same_variables(&[("en-US", &en), ("xx", &bad)]),
            Err(vec![
                "message `a` in i18n/xx/ takes $count, $what but in i18n/en-US/ takes $n, $what"
                    .to_string(),
                "message `b` in i18n/xx/ takes $n but in i18n/en-US/ takes no variables"
                    .to_string(),
            ])
        );
    }

    #[test]
    fn the_shipped_text_drops_comments_blank_lines_and_left_out_messages() {
        let source = "# comment\n\nkeep = A\ndrop = { $n ->\n    [one] x\n   *[other] y\n}\n\n## Group\nsel = { $n ->\n    [one] x\n   *[other] y\n}\n".to_string();
        let text = shipped_text(std::slice::from_ref(&source), |id| id != "drop");
        assert_eq!(
            text,
            "keep = A\nsel = { $n ->\n    [one] x\n   *[other] y\n}\n"
        );
        let mut all = compile_one(&source).expect("ok");
        all.remove("drop");
        assert_eq!(compile_one(&text), Ok(all));
        assert_eq!(
            constant("T", "a = \"q\"\n"),
            "static T: &str = \"a = \\\"q\\\"\\n\";\n"
        );
    }
}
