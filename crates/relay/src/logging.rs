//! Log lines on stderr through `tracing`: JSON lines for a log collector, or text for a person at
//! a terminal. Nothing logged carries a token, a secret, a query string or an answer's content:
//! requests are logged by route template (see `api::request_log`), errors by their message.

use std::io::IsTerminal;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable text.
    Text,
}

impl LogFormat {
    /// `json` or `text`.
    pub fn parse(text: &str) -> Option<LogFormat> {
        match text.trim() {
            "json" => Some(LogFormat::Json),
            "text" => Some(LogFormat::Text),
            _ => None,
        }
    }
}

/// Installs the process-wide subscriber: `format`, or JSON when stderr is not a terminal. Info
/// and above; a second call does nothing.
pub fn init(format: Option<LogFormat>) {
    let terminal = std::io::stderr().is_terminal();
    let format = format.unwrap_or(if terminal {
        LogFormat::Text
    } else {
        LogFormat::Json
    });
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO);
    // Err only when a subscriber is already installed: keep that one.
    let _ = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
        LogFormat::Text => builder.with_ansi(terminal).try_init(),
    };
}
