//! The `koder-elicit` command: `prompt` (one request from a file or stdin) and `connect` (an MCP
//! client that answers elicitations while a tool runs). See the crate README for the statuses.

use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use koder_elicit::connect::{ConnectOutcome, Connection, Protocol, Target};
use koder_elicit::core::i18n::Locale;
use koder_elicit::core::input_required::InputRound;
use koder_elicit::core::reply::Ending;
use koder_elicit::core::request::{ParseOptions, Request};
use koder_elicit::term::sanitize;
use koder_elicit::{
    answer, answer_round, elicit_round, languages, locale_from_env, parse_input_text, ElicitError,
    Elicitation, Input, Messages, Options, RoundOutcome,
};
use serde_json::Value;

/// The result was accept.
const EXIT_ACCEPT: u8 = 0;
/// The person rejected (MCP `decline`).
const EXIT_DECLINE: u8 = 1;
/// Cancelled: Esc, Ctrl-C, or the server withdrew the request.
const EXIT_CANCEL: u8 = 2;
/// The time ran out (MCP `cancel` was the result).
const EXIT_TIMEOUT: u8 = 3;
/// The request is malformed (-32602); nothing was asked.
const EXIT_MALFORMED: u8 = 4;
/// No answer could be had: no terminal, or `--answers` that do not fit the form.
const EXIT_NO_ANSWER: u8 = 5;
/// `connect`: the tool reported an error (`isError`).
const EXIT_TOOL_ERROR: u8 = 6;
/// `connect`: `--call-timeout` passed and the call was cancelled.
const EXIT_CALL_TIMEOUT: u8 = 7;
/// Wrong command line.
const EXIT_USAGE: u8 = 64;
/// Anything else went wrong (I/O, connection).
const EXIT_FAILURE: u8 = 70;

const USAGE: &str = "\
koder-elicit: MCP elicitation/create on the terminal

Usage:
  koder-elicit prompt [FILE|-] [--reply] [--answers JSON] [OPTIONS]
  koder-elicit connect (--url URL | -- COMMAND [ARGS...]) --call TOOL [--args JSON]
                       [--protocol auto|2026-07-28|2025-11-25] [--call-timeout SECONDS] [OPTIONS]

prompt reads one request (JSON-RPC elicitation/create, MCP params, or a Koder envelope) from
FILE or stdin, asks it, and prints the ElicitResult as JSON (with --reply: the reply in the
request's own protocol). --answers JSON answers a form without a terminal.
It also reads one round of an MCP 2026-07-28 multi round-trip request (an InputRequiredResult,
or a bare inputRequests map), asks its elicitations one after the other and prints the
inputResponses (with --reply: inputResponses and requestState, for the retry); --answers then
maps each key to that form's answers.

connect is an MCP client (rmcp): it connects over stdio or Streamable HTTP, calls TOOL, answers
every elicitation on the terminal and prints the tool's result as JSON. --protocol picks the MCP
revision: auto (the default) tries 2026-07-28 (server/discover) and falls back to 2025-11-25
(initialize); the revision agreed on is printed on stderr.

Options:
  --lang TAG             en-US, pt-BR, or the language of --messages (default: LC_ALL, LC_MESSAGES, LANG)
  --messages FILE.ftl    add a language (or override shipped messages) for TAG: the Fluent subset of
                         i18n/*.ftl; `npm run --silent i18n:template` prints the English to translate
  --plain                line by line, no cursor movement or colour (also TERM=dumb)
  --timeout SECONDS      close an unanswered request after this long (default: the request's, else 300)
  --status-url TEMPLATE  URL mode: poll TEMPLATE ({id} = elicitation id) for {\"status\": \"complete\"}
  --poll-interval MS     first status poll interval (default 2000)
  --strict               accept only the MCP 2025-11-25 schema subset
  -h, --help             this help;  -V, --version  the version

Exit status: 0 accept, 1 decline, 2 cancel, 3 timeout, 4 malformed request, 5 no terminal or
invalid --answers, 6 tool error, 7 call timeout, 64 usage (or a --messages file that does not
parse), 70 other failure.
";

#[derive(Default)]
struct Args {
    command: String,
    file: Option<String>,
    reply: bool,
    answers: Option<String>,
    lang: Option<String>,
    messages: Option<String>,
    plain: bool,
    timeout_ms: Option<f64>,
    status_url: Option<String>,
    poll_ms: Option<f64>,
    strict: bool,
    url: Option<String>,
    call: Option<String>,
    call_args: Option<String>,
    call_timeout: Option<f64>,
    protocol: Protocol,
    server_command: Vec<String>,
}

fn parse_args(raw: Vec<String>) -> Result<Args, String> {
    let mut args = Args::default();
    let mut items = raw.into_iter();
    let seconds = |value: Option<String>, name: &str| -> Result<f64, String> {
        value
            .as_deref()
            .and_then(|text| text.parse::<f64>().ok())
            .filter(|number| number.is_finite() && *number > 0.0)
            .ok_or_else(|| format!("{name} needs a positive number"))
    };
    while let Some(item) = items.next() {
        match item.as_str() {
            "-h" | "--help" => args.command = "help".into(),
            "-V" | "--version" => args.command = "version".into(),
            "--reply" => args.reply = true,
            "--plain" => args.plain = true,
            "--strict" => args.strict = true,
            "--answers" => args.answers = Some(items.next().ok_or("--answers needs JSON")?),
            "--lang" => args.lang = Some(items.next().ok_or("--lang needs a language tag")?),
            "--messages" => args.messages = Some(items.next().ok_or("--messages needs a file")?),
            "--timeout" => args.timeout_ms = Some(seconds(items.next(), "--timeout")? * 1000.0),
            "--status-url" => {
                args.status_url = Some(items.next().ok_or("--status-url needs a template")?)
            }
            "--poll-interval" => args.poll_ms = Some(seconds(items.next(), "--poll-interval")?),
            "--url" => args.url = Some(items.next().ok_or("--url needs a URL")?),
            "--call" => args.call = Some(items.next().ok_or("--call needs a tool name")?),
            "--args" => args.call_args = Some(items.next().ok_or("--args needs JSON")?),
            "--call-timeout" => args.call_timeout = Some(seconds(items.next(), "--call-timeout")?),
            "--protocol" => {
                args.protocol = items
                    .next()
                    .as_deref()
                    .and_then(Protocol::from_flag)
                    .ok_or("--protocol needs auto, 2026-07-28 or 2025-11-25")?
            }
            "--" => args.server_command = items.by_ref().collect(),
            "prompt" | "connect" if args.command.is_empty() => args.command = item,
            other if other.starts_with('-') && other != "-" => {
                return Err(format!("unknown option {other}"))
            }
            _ if args.command == "prompt" && args.file.is_none() => args.file = Some(item),
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1).collect()) {
        Ok(args) => args,
        Err(problem) => return usage_error(&problem),
    };
    let locale = match &args.messages {
        Some(path) => match registered_locale(&args, path) {
            Ok(locale) => locale,
            Err(problem) => {
                say(&problem);
                return ExitCode::from(EXIT_USAGE);
            }
        },
        None => args
            .lang
            .as_deref()
            .and_then(Locale::from_tag)
            .unwrap_or_else(locale_from_env),
    };
    let mut options = Options {
        messages: Messages::new(locale),
        plain: args.plain,
        timeout_ms: args.timeout_ms,
        status_url: args.status_url.clone(),
        ..Options::default()
    };
    if let Some(poll_ms) = args.poll_ms {
        options.poll_ms = poll_ms;
    }
    ExitCode::from(match args.command.as_str() {
        "help" => {
            print!("{USAGE}");
            EXIT_ACCEPT
        }
        "version" => {
            println!("koder-elicit {}", env!("CARGO_PKG_VERSION"));
            EXIT_ACCEPT
        }
        "prompt" => prompt(&args, &options),
        "connect" => connect(&args, options),
        _ => return usage_error("a command is needed: prompt or connect"),
    })
}

/// `--messages FILE.ftl`: registers the file's messages under `--lang` (else the environment's
/// language) and asks in that language.
fn registered_locale(args: &Args, path: &str) -> Result<Locale, String> {
    let tag = args
        .lang
        .clone()
        .or_else(languages::tag_from_env)
        .ok_or("--messages needs --lang TAG (or LANG) to name the language of the file")?;
    let ftl = std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}"))?;
    languages::register_file(&tag, path, &ftl)
}

/// Writes one line of the command's own output to stderr, after `koder-elicit: `. Its text may
/// carry a server's (a field's name, the server's name, a path in the request) or an argument's:
/// its control and bidi characters are shown as U+FFFD, as the prompts show them, so none can
/// move the cursor, clear the screen or reorder the line.
fn say(message: impl std::fmt::Display) {
    eprintln!("koder-elicit: {}", sanitize(&message.to_string()));
}

fn usage_error(problem: &str) -> ExitCode {
    say(problem);
    eprintln!("\n{USAGE}");
    ExitCode::from(EXIT_USAGE)
}

fn prompt(args: &Args, options: &Options) -> u8 {
    let text = match args.file.as_deref() {
        None | Some("-") => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map(|_| text)
        }
        Some(path) => std::fs::read_to_string(path),
    };
    let text = match text {
        Ok(text) => text,
        Err(error) => {
            say(format_args!("cannot read the request: {error}"));
            return EXIT_FAILURE;
        }
    };
    let parse_options = ParseOptions {
        strict: args.strict,
        local_id: "local-1".into(),
    };
    match parse_input_text(&text, &parse_options) {
        Ok(Input::Request(request)) => prompt_request(args, options, &request),
        Ok(Input::Round(round)) => prompt_round(args, options, &round),
        Err(error) => {
            say(format_args!("error {}: {}", error.code, error.message));
            EXIT_MALFORMED
        }
    }
}

/// `--answers JSON`, parsed (`None` without the flag); when it is not JSON, says so and gives the
/// exit status.
fn given_answers(args: &Args, options: &Options) -> Result<Option<Value>, u8> {
    let Some(text) = &args.answers else {
        return Ok(None);
    };
    match serde_json::from_str(text) {
        Ok(answers) => Ok(Some(answers)),
        Err(_) => {
            say(options
                .messages
                .get("mcp-elicitation-terminal-error-answers"));
            Err(EXIT_NO_ANSWER)
        }
    }
}

/// No terminal to ask on: the message, and the status.
fn no_terminal(options: &Options) -> u8 {
    say(options
        .messages
        .get("mcp-elicitation-terminal-error-no_tty"));
    EXIT_NO_ANSWER
}

/// One round of a multi round-trip request (MCP 2026-07-28): prints the retry's
/// `inputResponses` (with `--reply`, `{inputResponses, requestState}`).
fn prompt_round(args: &Args, options: &Options, round: &InputRound) -> u8 {
    for (key, entry) in &round.others {
        let method = entry.get("method").and_then(Value::as_str).unwrap_or("?");
        say(format_args!(
            "inputRequests.{key} ({method}) is left for the host"
        ));
    }
    let answers = match given_answers(args, options) {
        Ok(answers) => answers,
        Err(status) => return status,
    };
    let outcome: RoundOutcome = match answers {
        Some(answers) => match answer_round(round, &answers, &options.messages) {
            Ok(outcome) => outcome,
            Err(problems) => {
                for problem in problems {
                    say(&problem);
                }
                return EXIT_NO_ANSWER;
            }
        },
        None => match elicit_round(round, options) {
            Ok(outcome) => outcome,
            Err(ElicitError::NoTerminal(_)) => return no_terminal(options),
            Err(error) => {
                say(&error);
                return EXIT_FAILURE;
            }
        },
    };
    let output = if args.reply {
        outcome.retry_params()
    } else {
        outcome.input_responses()
    };
    println!("{output}");
    outcome.decisive().map_or(EXIT_ACCEPT, status_of)
}

fn prompt_request(args: &Args, options: &Options, request: &Request) -> u8 {
    let answers = match given_answers(args, options) {
        Ok(answers) => answers,
        Err(status) => return status,
    };
    let ending = if let Some(answers) = answers {
        match answer(request, &answers, &options.messages) {
            Ok(ending) => ending,
            Err(problems) => {
                for problem in problems {
                    say(&problem);
                }
                return EXIT_NO_ANSWER;
            }
        }
    } else {
        let asked = Elicitation::open(request, options).and_then(|mut elicitation| {
            let ending = elicitation.ask()?;
            elicitation.report(&ending)?;
            elicitation.wait()?;
            Ok(ending)
        });
        match asked {
            Ok(ending) => ending,
            Err(ElicitError::NoTerminal(_)) => return no_terminal(options),
            Err(error) => {
                say(&error);
                return EXIT_FAILURE;
            }
        }
    };
    let output = if args.reply {
        ending.reply(&request.protocol, request.id.as_ref())
    } else {
        ending.result()
    };
    if let Some(output) = output {
        println!("{output}");
    }
    status_of(&ending)
}

fn status_of(ending: &Ending) -> u8 {
    match ending {
        Ending::Accept(_) => EXIT_ACCEPT,
        Ending::Decline { .. } => EXIT_DECLINE,
        Ending::Cancel(_) => EXIT_CANCEL,
        Ending::Timeout => EXIT_TIMEOUT,
    }
}

fn connect(args: &Args, options: Options) -> u8 {
    let target = match (&args.url, args.server_command.is_empty()) {
        (Some(url), true) => Target::Http(url.clone()),
        (None, false) => Target::Stdio(args.server_command.clone()),
        _ => {
            say("connect needs either --url URL or -- COMMAND [ARGS...]");
            return EXIT_USAGE;
        }
    };
    let Some(tool) = args.call.clone() else {
        say("connect needs --call TOOL");
        return EXIT_USAGE;
    };
    let arguments = match &args.call_args {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => Some(object),
            _ => {
                say("--args must be a JSON object");
                return EXIT_USAGE;
            }
        },
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            say(&error);
            return EXIT_FAILURE;
        }
    };
    // The revision agreed on, for the hint after a failed call.
    let mut agreed = None;
    let outcome = runtime.block_on(async {
        let connection = Connection::open(&target, args.protocol, options).await?;
        agreed = connection.protocol_version();
        // Users and scripts see which revision the server and the client agreed on.
        say(format_args!(
            "connected to {} over MCP {}",
            connection
                .server_name()
                .unwrap_or_else(|| "the server".to_string()),
            agreed.as_deref().unwrap_or("(unknown revision)")
        ));
        let outcome = connection
            .call(
                &tool,
                arguments,
                args.call_timeout.map(Duration::from_secs_f64),
            )
            .await;
        connection.close().await;
        outcome
    });
    match outcome {
        Ok(ConnectOutcome::Result(result)) => {
            match serde_json::to_string(&result) {
                Ok(json) => println!("{json}"),
                Err(error) => say(&error),
            }
            if result.is_error == Some(true) {
                EXIT_TOOL_ERROR
            } else {
                EXIT_ACCEPT
            }
        }
        Ok(ConnectOutcome::CallTimedOut) => {
            say("the call did not finish in time and was cancelled");
            EXIT_CALL_TIMEOUT
        }
        Err(error) => {
            say(&error);
            if args.protocol == Protocol::Auto && agreed.as_deref() == Some("2026-07-28") {
                // Servers on `mcp` 2.x or FastMCP 4 whose tools call the 2025-only `ctx.elicit`
                // fail this way on 2026-07-28 ("no back-channel for server-initiated requests").
                say("if this tool asks its questions the 2025-11-25 way, run again with --protocol 2025-11-25");
            }
            EXIT_FAILURE
        }
    }
}
