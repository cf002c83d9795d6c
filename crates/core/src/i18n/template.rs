//! The template a translator starts from: every message id with its English text, as Fluent
//! (`npm run i18n:template`, or `cargo run -p koder-mcp-elicitation-core --example i18n_template`).

use super::{en_us, Key, Part, Table};

/// Every message's id and en-US pattern, in the Fluent subset `register_translation` takes.
pub fn template() -> String {
    let mut out = String::from(
        "# Messages of <koder-mcp-elicitation>, in English. Translate the text after each `=`;\n\
         # keep the ids, the { $variables } and the variant keys ([one], *[other]). Plural\n\
         # variants follow the language's CLDR categories (zero, one, two, few, many, other).\n\
         # Register the result with registerTranslation(\"<lang>\", text).\n\n",
    );
    write_table(&mut out, en_us());
    out
}

pub(super) fn write_table(out: &mut String, table: Table) {
    for (id, parts) in table {
        out.push_str(id);
        out.push_str(" = ");
        write_parts(out, parts, 1);
        out.push('\n');
    }
}

/// A pattern at `depth` (1 for a message's own value, 2 inside one level of select…).
fn write_parts(out: &mut String, parts: &[Part], depth: usize) {
    for part in parts {
        match part {
            Part::Text(text) => write_text(out, text, depth),
            Part::Var(name) => {
                out.push_str("{ $");
                out.push_str(name);
                out.push_str(" }");
            }
            Part::Select {
                var,
                variants,
                default,
            } => {
                let indent = "    ".repeat(depth);
                out.push_str("{ $");
                out.push_str(var);
                out.push_str(" ->\n");
                for (index, (key, value)) in variants.iter().enumerate() {
                    // `*[` sits one column left, so the keys line up.
                    out.push_str(indent.get(1..).unwrap_or_default());
                    out.push(if index == *default { '*' } else { ' ' });
                    out.push('[');
                    match key {
                        Key::Name(name) => out.push_str(name),
                        Key::Number(number) => out.push_str(&(*number as i64).to_string()),
                    }
                    out.push_str("] ");
                    write_parts(out, value, depth + 1);
                    out.push('\n');
                }
                out.push_str(&"    ".repeat(depth.saturating_sub(1)));
                out.push('}');
            }
        }
    }
}

/// Text, with the braces Fluent would read as syntax written as string literals.
fn write_text(out: &mut String, text: &str, depth: usize) {
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
            out.push_str(&"    ".repeat(depth));
        }
        for ch in line.chars() {
            match ch {
                '{' => out.push_str("{ \"{\" }"),
                '}' => out.push_str("{ \"}\" }"),
                _ => out.push(ch),
            }
        }
    }
}
