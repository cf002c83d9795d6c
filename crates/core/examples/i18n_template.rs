//! Prints every message id with its English text, as a Fluent template to translate:
//! `cargo run -p koder-mcp-elicitation-core --example i18n_template > es.ftl`.

fn main() {
    print!("{}", koder_mcp_elicitation_core::i18n::template());
}
