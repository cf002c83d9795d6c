//! `koder-elicit`: MCP `elicitation/create` on the terminal, on the koder-mcp-elicitation core.
//! The core parses the request, models and checks the form, judges URLs, keeps the clock and
//! writes the reply; this crate asks the questions.
//!
//! One call for a Rust terminal client:
//!
//! ```no_run
//! use koder_elicit::{elicit, Options};
//! use koder_elicit::{parse_request_text, ParseOptions};
//!
//! let request = parse_request_text(
//!     r#"{"message": "Where to?", "requestedSchema": {"type": "object",
//!         "properties": {"city": {"type": "string"}}, "required": ["city"]}}"#,
//!     &ParseOptions::default(),
//! )?;
//! let ending = elicit(&request, &Options::default())?;
//! println!("{}", ending.result().unwrap_or_default());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! One round of an MCP 2026-07-28 multi round-trip request (an `InputRequiredResult`), for a host
//! that drives the rounds itself: every elicitation asked in order, answered by key.
//!
//! ```no_run
//! use koder_elicit::{elicit_round, parse_input_text, Input, Options, ParseOptions};
//!
//! let text = r#"{"resultType": "input_required", "requestState": "s1", "inputRequests": {
//!     "city": {"method": "elicitation/create", "params": {"message": "Where to?",
//!         "requestedSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}}}}"#;
//! if let Input::Round(round) = parse_input_text(text, &ParseOptions::default())? {
//!     let outcome = elicit_round(&round, &Options::default())?;
//!     // {"inputResponses": {"city": {...}}, "requestState": "s1"}: what the retry adds.
//!     println!("{}", outcome.retry_params());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Inside rmcp's `ClientHandler::create_elicitation` (the prompt blocks, so it runs on a blocking
//! thread; the server's `notifications/cancelled` cancels `context.ct`, which ends the prompt with
//! nothing sent). [`connect::TerminalClient`] is the full version, with URL-mode completion.
//!
//! ```no_run
//! use koder_elicit::connect::{elicit_result, request_from_params};
//! use koder_elicit::{elicit, Options};
//! use rmcp::model::{ElicitRequestParams, ElicitResult, ErrorData};
//! use rmcp::service::{RequestContext, RoleClient};
//! use rmcp::ClientHandler;
//!
//! struct MyClient;
//!
//! impl ClientHandler for MyClient {
//!     async fn create_elicitation(
//!         &self,
//!         params: ElicitRequestParams,
//!         context: RequestContext<RoleClient>,
//!     ) -> Result<ElicitResult, ErrorData> {
//!         let failed = |error: String| ErrorData::internal_error(error, None);
//!         let request = request_from_params(&params, &context.id.to_string())?;
//!         let options = Options::default();
//!         let signals = options.signals.clone();
//!         let cancelled = context.ct.clone();
//!         let watch = tokio::spawn(async move {
//!             cancelled.cancelled().await;
//!             signals.cancel_from_server();
//!         });
//!         let asked = tokio::task::spawn_blocking(move || elicit(&request, &options)).await;
//!         watch.abort();
//!         let ending = asked
//!             .map_err(|error| failed(error.to_string()))?
//!             .map_err(|error| failed(error.to_string()))?;
//!         // `None`: the server withdrew the request; rmcp sends nothing for it.
//!         elicit_result(&ending).ok_or_else(|| failed("withdrawn".into()))
//!     }
//! }
//! ```

pub mod connect;
pub mod editor;
pub mod flow;
pub mod form_prompt;
pub mod languages;
pub mod lifecycle;
pub mod messages;
pub mod poll;
pub mod round;
pub mod term;
pub mod url_prompt;

use std::fmt;
use std::io;

use koder_mcp_elicitation_core::form::FormState;
use koder_mcp_elicitation_core::i18n::{Arg, Locale};
use koder_mcp_elicitation_core::policy::{self, DEFAULT_POLL_MS};
use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::request::{Mode, Request};
use koder_mcp_elicitation_core::summary::summarize;
use koder_mcp_elicitation_core::url_rounds;
use serde_json::Value;

pub use koder_mcp_elicitation_core as core;
pub use koder_mcp_elicitation_core::request::{parse_request, parse_request_text, ParseOptions};

pub use crate::round::{answer_round, elicit_round, parse_input_text, Input, RoundOutcome};

use crate::editor::Ui;
use crate::flow::Flow;
use crate::lifecycle::{Lifecycle, Signals, Stop, WaitEnd};
pub use crate::messages::Messages;
use crate::term::{Look, Term, Tone};

/// How to ask.
#[derive(Debug, Clone)]
pub struct Options {
    /// The words shown (en-US or pt-BR).
    pub messages: Messages,
    /// Line by line, no cursor movement or colour (`--plain`).
    pub plain: bool,
    /// The host's timeout; the request's own (Koder envelope) applies otherwise, then 5 min.
    pub timeout_ms: Option<f64>,
    /// Who asks, shown above the request.
    pub server_name: Option<String>,
    /// URL mode: a status URL template with `{id}`, polled until `{"status": "complete"}`.
    pub status_url: Option<String>,
    /// The first poll interval.
    pub poll_ms: f64,
    /// The server's cancel and completion, raised from another thread.
    pub signals: Signals,
    /// Within a round of several elicitations: this one's place and the count ("Request 1 of 2").
    pub position: Option<(usize, usize)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            messages: Messages::new(locale_from_env()),
            plain: false,
            timeout_ms: None,
            server_name: None,
            status_url: None,
            poll_ms: DEFAULT_POLL_MS,
            signals: Signals::new(),
            position: None,
        }
    }
}

/// Why an elicitation could not be asked.
#[derive(Debug)]
pub enum ElicitError {
    /// No terminal to prompt on (no controlling TTY).
    NoTerminal(io::Error),
    Io(io::Error),
}

impl fmt::Display for ElicitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElicitError::NoTerminal(error) => write!(f, "no terminal: {error}"),
            ElicitError::Io(error) => write!(f, "terminal error: {error}"),
        }
    }
}

impl std::error::Error for ElicitError {}

/// Asks one elicitation on the terminal and returns how it ended. URL mode returns at consent
/// (the result the server needs); use [`Elicitation`] to also wait for completion.
pub fn elicit(request: &Request, options: &Options) -> Result<Ending, ElicitError> {
    let mut elicitation = Elicitation::open(request, options)?;
    let ending = elicitation.ask()?;
    elicitation.report(&ending)?;
    Ok(ending)
}

/// One elicitation on the terminal, step by step: [`ask`](Self::ask), then for an accepted URL
/// [`wait`](Self::wait). Dropping it restores the terminal.
pub struct Elicitation<'r> {
    request: &'r Request,
    term: Term,
    life: Lifecycle,
    options: Options,
}

impl<'r> Elicitation<'r> {
    /// Opens the terminal (raw mode) and starts the clock.
    pub fn open(request: &'r Request, options: &Options) -> Result<Self, ElicitError> {
        let term = Term::open(Look::from_env(options.plain)).map_err(ElicitError::NoTerminal)?;
        let timeout_ms = policy::timeout_ms(options.timeout_ms, request.timeout_ms, None);
        let life = Lifecycle::start(
            &request.elicitation_id,
            url_rounds::waits_for_completion(request),
            timeout_ms,
            options.signals.clone(),
        );
        Ok(Elicitation {
            request,
            term,
            life,
            options: options.clone(),
        })
    }

    /// Shows the request and asks it through; settles exactly once.
    pub fn ask(&mut self) -> Result<Ending, ElicitError> {
        self.ask_with(false)
    }

    /// A later round (MCP 2026-07-28) asks again for an address the person already agreed to
    /// open: shows the request and offers Continue (accept), Open again and Cancel, with no
    /// second consent. A form is asked as usual.
    pub fn ask_again(&mut self) -> Result<Ending, ElicitError> {
        self.ask_with(true)
    }

    /// [`Self::ask`], or with `consented_before` the URL prompt that skips the consent.
    fn ask_with(&mut self, consented_before: bool) -> Result<Ending, ElicitError> {
        let request = self.request;
        let mut ui = Ui {
            term: &mut self.term,
            life: &mut self.life,
            messages: self.options.messages.clone(),
        };
        header(&mut ui, request, &self.options).map_err(ElicitError::Io)?;
        let asked = match &request.mode {
            Mode::Form(schema) => form_prompt::ask_form(&mut ui, schema),
            Mode::Url(url) if consented_before => url_prompt::ask_url_again(&mut ui, &url.url),
            Mode::Url(url) => url_prompt::ask_url(&mut ui, &url.url),
        };
        let asked = match asked {
            Err(Flow::Reject) => form_prompt::ask_reject(&mut ui),
            other => other,
        };
        match asked {
            Ok(ending) => Ok(ending),
            Err(Flow::Stop(stop)) => Ok(form_prompt::ending_for_stop(&mut ui, stop)),
            Err(Flow::Reject) => Ok(ui.life.settle(Ending::Decline { reason: None })),
            Err(Flow::Io(error)) => {
                // The terminal is gone: the request still settles once, as a cancel.
                ui.life.settle(Ending::Cancel(CancelSource::User));
                Err(ElicitError::Io(error))
            }
        }
    }

    /// URL mode after consent: waits for completion (the server's signal or the status URL),
    /// Enter or Esc. Returns at once for anything else, and for a URL request without
    /// `elicitationId` (MCP 2026-07-28; a Koder envelope still waits for `complete`): there,
    /// accept means consent and nothing follows it.
    pub fn wait(&mut self) -> Result<Option<WaitEnd>, ElicitError> {
        let waiting = matches!(self.life.ending(), Some(Ending::Accept(_)))
            && url_rounds::waits_for_completion(self.request);
        if !waiting {
            return Ok(None);
        }
        let _poller = self.options.status_url.as_ref().map(|template| {
            poll::StatusPoller::start(
                template,
                &self.request.elicitation_id,
                self.options.poll_ms,
                self.options.signals.clone(),
            )
        });
        let mut ui = Ui {
            term: &mut self.term,
            life: &mut self.life,
            messages: self.options.messages.clone(),
        };
        match url_prompt::wait(&mut ui) {
            Ok(end) => Ok(Some(end)),
            Err(Flow::Stop(_) | Flow::Reject) => Ok(Some(WaitEnd::Closed)),
            Err(Flow::Io(error)) => Err(ElicitError::Io(error)),
        }
    }

    /// One closing line saying what happened.
    pub fn report(&mut self, ending: &Ending) -> Result<(), ElicitError> {
        let id = match ending {
            Ending::Accept(_) if matches!(self.request.mode, Mode::Url(_)) => return Ok(()),
            Ending::Accept(_) => "mcp-elicitation-terminal-outcome-accept",
            Ending::Decline { .. } => "mcp-elicitation-terminal-outcome-decline",
            Ending::Cancel(CancelSource::Server) => "mcp-elicitation-terminal-outcome-server",
            Ending::Cancel(_) => "mcp-elicitation-terminal-outcome-cancel",
            Ending::Timeout => "mcp-elicitation-terminal-outcome-timeout",
        };
        let tone = if matches!(ending, Ending::Accept(_)) {
            Tone::Strong
        } else {
            Tone::Alert
        };
        self.term
            .line(tone, &self.options.messages.get(id))
            .map_err(ElicitError::Io)?;
        // What was answered, in the core's words: the same rows an inline element leaves in a
        // chat transcript (each field's title and value, a secret-looking one masked; a reason).
        let summary = summarize(self.request, ending, self.options.messages.locale(), "");
        for row in &summary.rows {
            let line = format!("  {}: {}", row.label, row.values.join(", "));
            self.term
                .wrapped(Tone::Quiet, &line, "    ")
                .map_err(ElicitError::Io)?;
        }
        Ok(())
    }
}

fn header(ui: &mut Ui, request: &Request, options: &Options) -> io::Result<()> {
    let messages = ui.messages.clone();
    let server = options.server_name.as_deref();
    if let Some((position, total)) = options.position {
        ui.term.line(
            Tone::Quiet,
            &messages.with(
                "mcp-elicitation-queue-announce",
                &[
                    ("position", Arg::Number(position as f64)),
                    ("total", Arg::Number(total as f64)),
                ],
            ),
        )?;
    }
    let title = request.title.clone().unwrap_or_else(|| match request.mode {
        Mode::Form(_) => messages.get("mcp-elicitation-title-default"),
        Mode::Url(_) => messages.get("mcp-elicitation-url_mode-title"),
    });
    ui.term.line(Tone::Strong, &title)?;
    if let Some(server) = server {
        ui.term.line(
            Tone::Quiet,
            &messages.with(
                "mcp-elicitation-server-from",
                &[("server", Arg::Text(server))],
            ),
        )?;
    }
    if !request.message.is_empty() {
        ui.term.line(Tone::Normal, &request.message)?;
    }
    ui.term
        .line(Tone::Quiet, &messages.get("mcp-elicitation-terminal-keys"))
}

/// Answers a form without a terminal (`--answers`), through the same checks as the prompts.
/// `Err` lists every problem, localized.
pub fn answer(
    request: &Request,
    answers: &Value,
    messages: &Messages,
) -> Result<Ending, Vec<String>> {
    let Mode::Form(schema) = &request.mode else {
        return Err(vec![
            messages.get("mcp-elicitation-terminal-error-answers_url")
        ]);
    };
    let Some(answers) = answers.as_object() else {
        return Err(vec![messages.get("mcp-elicitation-terminal-error-answers")]);
    };
    let mut state = FormState::new(schema);
    let unknown = state.fill(schema, answers);
    let mut errors: Vec<String> = unknown
        .iter()
        .map(|path| {
            messages.with(
                "mcp-elicitation-terminal-error-unknown_answer",
                &[("path", Arg::Text(path))],
            )
        })
        .collect();
    match state.content(schema) {
        Ok(content) if errors.is_empty() => Ok(Ending::Accept(Some(content))),
        Ok(_) => Err(errors),
        Err(problems) => {
            for (index, problem) in problems {
                let field = schema
                    .fields
                    .get(index)
                    .map(|field| field.key())
                    .unwrap_or_default();
                errors.push(messages.with(
                    "mcp-elicitation-terminal-error-invalid_answer",
                    &[
                        ("field", Arg::Text(&field)),
                        ("problem", Arg::Text(&messages.problem(&problem))),
                    ],
                ));
            }
            Err(errors)
        }
    }
}

/// The language from `LC_ALL`, `LC_MESSAGES`, then `LANG` (POSIX order), else en-US.
pub fn locale_from_env() -> Locale {
    let candidates = languages::env_languages();
    Locale::negotiate(candidates.iter().map(String::as_str))
}

/// The result a stop leaves when the caller needs it without a terminal (for example when
/// opening the terminal failed after the request arrived).
pub fn ending_for(stop: Stop) -> Ending {
    match stop {
        Stop::UserCancel => Ending::Cancel(CancelSource::User),
        Stop::Timeout => Ending::Timeout,
        Stop::ServerCancel => Ending::Cancel(CancelSource::Server),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(value: Value) -> Request {
        parse_request(&value, &ParseOptions::default()).unwrap()
    }

    #[test]
    fn answers_go_through_the_form_rules() {
        let form = request(json!({"message": "m", "requestedSchema": {"type": "object",
            "properties": {"n": {"type": "integer", "maximum": 3}, "s": {"type": "string"}},
            "required": ["s"]}}));
        assert_eq!(
            answer(
                &form,
                &json!({"n": 2, "s": "x"}),
                &Messages::new(Locale::EnUs)
            ),
            Ok(Ending::Accept(Some(json!({"n": 2, "s": "x"}))))
        );
        assert_eq!(
            answer(
                &form,
                &json!({"n": 4, "z": 1}),
                &Messages::new(Locale::EnUs)
            ),
            Err(vec![
                "z matches no field of this form".to_string(),
                "n: Must be at most 3".to_string(),
                "s: Required".to_string()
            ])
        );
        assert_eq!(
            answer(&form, &json!({"s": ""}), &Messages::new(Locale::PtBr)),
            Err(vec!["s: Obrigatório".to_string()])
        );
        let url = request(
            json!({"mode": "url", "message": "m", "url": "https://a.example",
            "elicitationId": "x"}),
        );
        assert_eq!(
            answer(&url, &json!({}), &Messages::new(Locale::EnUs)),
            Err(vec![
                "--answers answers a form; a URL-mode request needs a terminal.".to_string()
            ])
        );
        assert_eq!(
            answer(&form, &json!([1]), &Messages::new(Locale::EnUs)),
            Err(vec![
                "--answers must be a JSON object of field names and values.".to_string()
            ])
        );
    }
}
