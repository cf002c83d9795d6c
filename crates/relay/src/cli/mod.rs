//! The command line, parsed by clap: flags and environment variables (flags win), and the
//! `--help` generated from the flags below, each with its `KODER_RELAY_*` variable. Only the
//! binary reads it (and the tests of the command line).

mod run;

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::channels::email::{self, SmtpUrl};
use crate::channels::push::{self, AllowList, DEFAULT_SUBSCRIPTIONS_PER_PERSON};
use crate::config::{
    Config, DEFAULT_AUDIENCE, DEFAULT_CONVERSATION_CLAIM, DEFAULT_DATABASE, DEFAULT_GROUPS_CLAIM,
    DEFAULT_LISTEN, DEFAULT_WORKSPACE_CLAIM,
};
use crate::hub::{DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_PERSON};
use crate::logging::LogFormat;

/// The environment variable the webhook key is read from (it has no flag: flags show in the
/// process list).
pub const WEBHOOK_SECRET_ENV: &str = "KODER_RELAY_WEBHOOK_SECRET";

/// The environment variable the SMTP password is read from (it has no flag: flags show in the
/// process list).
pub const SMTP_PASSWORD_ENV: &str = "KODER_RELAY_SMTP_PASSWORD";

/// The environment variable a VAPID private key's PEM text may be given in (beside
/// `--vapid-private-key-file`).
pub const VAPID_PRIVATE_KEY_ENV: &str = "KODER_RELAY_VAPID_PRIVATE_KEY";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Run the relay (boxed: a configuration is far larger than the other commands).
    Run(Box<Config>),
    /// `audit verify`: recompute the audit chain in this database and exit.
    AuditVerify {
        /// `sqlite://PATH` or `postgres://…`.
        database: String,
        /// `--checkpoint HASH`: a checkpoint the trail must still hold.
        checkpoint: Option<String>,
    },
    /// `vapid generate`: make a new VAPID key pair for Web Push and exit.
    VapidGenerate {
        /// `--out PATH`: write the private key's PEM there (a new file, mode 0600) instead of
        /// to stdout.
        out: Option<PathBuf>,
    },
}

const AFTER_HELP: &str = "\
Secrets are best given in the environment or in files: flags show in the process list. A secret
given on the command line (directly or as a file) wins over both forms in the environment.

The webhook key (whsec_...) has no flag: it comes from KODER_RELAY_WEBHOOK_SECRET or from
--webhook-secret-file. The VAPID key of Web Push comes from --vapid-private-key-file or, as PEM
text, from KODER_RELAY_VAPID_PRIVATE_KEY; `koder-elicitation-relay vapid generate` makes one. The
SMTP password has no flag either: it comes from KODER_RELAY_SMTP_PASSWORD or from
--smtp-password-file.";

/// koder-elicitation-relay: carries MCP elicitations from hosts to people's browsers.
#[derive(Debug, Parser)]
#[command(
    name = "koder-elicitation-relay",
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true,
    term_width = 100,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Subcommands>,
    #[command(flatten)]
    run: RunFlags,
}

#[derive(Debug, Subcommand)]
enum Subcommands {
    /// The tamper-evident audit trail.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Audit {
        #[command(subcommand)]
        action: AuditAction,
    },
    /// Web Push's VAPID key.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Vapid {
        #[command(subcommand)]
        action: VapidAction,
    },
}

#[derive(Debug, Subcommand)]
enum VapidAction {
    /// Makes a new VAPID key pair (P-256): the private key as a PKCS#8 PEM on stdout and the
    /// public key (the browsers' applicationServerKey) on stderr; with --out PATH the PEM goes
    /// into a new file (mode 0600, never overwritten) and the public key to stdout.
    Generate {
        /// Write the private key here (for --vapid-private-key-file) instead of to stdout.
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum AuditAction {
    /// Recomputes the audit chains: exit 0 and a summary when intact, exit 1 naming the first
    /// broken entry when one was edited, deleted or reordered, or when the database no longer
    /// holds checkpoint HASH or its entries no longer hash to it.
    Verify {
        /// The relay's database: sqlite://PATH or postgres://…
        #[arg(long, value_name = "URL", env = "KODER_RELAY_DATABASE", hide_env_values = true,
              default_value = DEFAULT_DATABASE)]
        database: String,
        /// A checkpoint's hash (GET /v1/audit/checkpoint, or the "audit checkpoint" log line)
        /// kept outside the database: the trail must still hold it
        #[arg(long, value_name = "HASH")]
        checkpoint: Option<String>,
    },
}

/// The flags of a run, as given: [`RunFlags::into_config`] checks what they say together.
#[derive(Debug, Args)]
struct RunFlags {
    /// Address to listen on (port 0 picks one).
    #[arg(long, value_name = "ADDR", env = "KODER_RELAY_LISTEN", hide_env_values = true,
          default_value = DEFAULT_LISTEN, value_parser = listen_address)]
    listen: SocketAddr,

    /// The database: sqlite://PATH or postgres://…
    #[arg(long, value_name = "URL", env = "KODER_RELAY_DATABASE", hide_env_values = true,
          default_value = DEFAULT_DATABASE)]
    database: String,

    /// The hosts' bearer token (required, at least 32 bytes).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "KODER_RELAY_SERVICE_TOKEN",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    service_token: Option<String>,

    /// The same, read from a file.
    #[arg(
        long,
        value_name = "PATH",
        env = "KODER_RELAY_SERVICE_TOKEN_FILE",
        hide_env_values = true
    )]
    service_token_file: Option<PathBuf>,

    /// HS256 secret of people's tokens (at least 32 bytes). People's tokens need --jwt-secret,
    /// --jwks-url, or both.
    #[arg(
        long,
        value_name = "SECRET",
        env = "KODER_RELAY_JWT_SECRET",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    jwt_secret: Option<String>,

    /// The same, read from a file.
    #[arg(
        long,
        value_name = "PATH",
        env = "KODER_RELAY_JWT_SECRET_FILE",
        hide_env_values = true
    )]
    jwt_secret_file: Option<PathBuf>,

    /// The HS256 secret before the current one, still accepted while tokens signed with it
    /// live.
    #[arg(
        long,
        value_name = "SECRET",
        env = "KODER_RELAY_JWT_PREVIOUS_SECRET",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    jwt_previous_secret: Option<String>,

    /// An identity provider's key set, https://… (or file:///PATH): RS256, ES256 and EdDSA
    /// tokens, keys matched by kid.
    #[arg(long, value_name = "URL", env = "KODER_RELAY_JWKS_URL", hide_env_values = true,
          value_parser = jwks_url)]
    jwks_url: Option<String>,

    /// The aud people's tokens must carry.
    #[arg(long, value_name = "AUD", env = "KODER_RELAY_JWT_AUDIENCE", hide_env_values = true,
          default_value = DEFAULT_AUDIENCE, value_parser = not_empty)]
    jwt_audience: String,

    /// The iss people's tokens must carry [default: not checked].
    #[arg(long, value_name = "ISS", env = "KODER_RELAY_JWT_ISSUER", hide_env_values = true,
          value_parser = not_empty)]
    jwt_issuer: Option<String>,

    /// The claim naming the workspace.
    #[arg(long, value_name = "NAME", env = "KODER_RELAY_WORKSPACE_CLAIM", hide_env_values = true,
          default_value = DEFAULT_WORKSPACE_CLAIM, value_parser = not_empty)]
    workspace_claim: String,

    /// The claim naming the conversation.
    #[arg(long, value_name = "NAME", env = "KODER_RELAY_CONVERSATION_CLAIM",
          hide_env_values = true, default_value = DEFAULT_CONVERSATION_CLAIM,
          value_parser = not_empty)]
    conversation_claim: String,

    /// The claim listing a person's groups: a list of strings, or one string for one group
    /// (who a team question's `audience.groups` admits).
    #[arg(long, value_name = "NAME", env = "KODER_RELAY_JWT_GROUPS_CLAIM",
          hide_env_values = true, default_value = DEFAULT_GROUPS_CLAIM,
          value_parser = not_empty)]
    jwt_groups_claim: String,

    /// A browser origin allowed by CORS on the people's API and the link routes (repeatable; in
    /// the environment, comma-separated).
    #[arg(long = "allow-origin", value_name = "ORIGIN", env = "KODER_RELAY_ALLOW_ORIGIN",
          hide_env_values = true, value_delimiter = ',', value_parser = origin)]
    allow_origins: Vec<String>,

    /// Open streams one person may hold on this replica (past it 429).
    #[arg(long, value_name = "N", env = "KODER_RELAY_MAX_STREAMS_PER_PERSON",
          hide_env_values = true, default_value_t = DEFAULT_MAX_STREAMS_PER_PERSON,
          value_parser = count,
          allow_hyphen_values = true)]
    max_streams_per_person: usize,

    /// Open streams this replica holds (past it 503).
    #[arg(long, value_name = "N", env = "KODER_RELAY_MAX_STREAMS", hide_env_values = true,
          default_value_t = DEFAULT_MAX_STREAMS, value_parser = count,
          allow_hyphen_values = true)]
    max_streams: usize,

    /// POST signed webhooks (Standard Webhooks) of every change here: https://… (http:// only
    /// on localhost).
    #[arg(
        long,
        value_name = "URL",
        env = "KODER_RELAY_WEBHOOK_URL",
        hide_env_values = true
    )]
    webhook_url: Option<String>,

    /// The webhook key (whsec_…), read from a file.
    #[arg(
        long,
        value_name = "PATH",
        env = "KODER_RELAY_WEBHOOK_SECRET_FILE",
        hide_env_values = true
    )]
    webhook_secret_file: Option<PathBuf>,

    /// Multiply the webhook retry waits (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) by F,
    /// 0 < F <= 1 (tests use 0.001) [default: 1].
    #[arg(long, value_name = "F", env = "KODER_RELAY_WEBHOOK_RETRY_SCALE",
          hide_env_values = true, value_parser = retry_scale,
          allow_hyphen_values = true)]
    webhook_retry_scale: Option<f64>,

    /// Web Push: the VAPID private key, a PKCS#8 PEM file of a P-256 key (`vapid generate
    /// --out PATH` makes one) [default: no Web Push].
    #[arg(
        long,
        value_name = "PATH",
        env = "KODER_RELAY_VAPID_PRIVATE_KEY_FILE",
        hide_env_values = true
    )]
    vapid_private_key_file: Option<PathBuf>,

    /// Web Push: the contact push services see in each push (VAPID sub), mailto:… or
    /// https://… (required with a VAPID key).
    #[arg(long, value_name = "mailto:…|https://…", env = "KODER_RELAY_VAPID_SUBJECT",
          hide_env_values = true, value_parser = vapid_subject)]
    vapid_subject: Option<String>,

    /// Web Push: the push services the relay sends to, comma-separated origins; a first host
    /// label may be *, and only an exact origin may be http:// [default: the browsers' push
    /// services: https://fcm.googleapis.com, https://*.push.services.mozilla.com,
    /// https://*.push.apple.com, https://*.notify.windows.com].
    #[arg(long = "push-endpoint-allow", value_name = "ORIGIN[,ORIGIN…]",
          env = "KODER_RELAY_PUSH_ENDPOINT_ALLOW", hide_env_values = true,
          value_parser = AllowList::parse)]
    push_endpoint_allow: Option<AllowList>,

    /// Web Push: the page a notification opens, with {id}, {workspaceId} and {conversationId}
    /// filled in (URL-encoded), e.g. https://chat.example.com/c/{conversationId}.
    #[arg(long, value_name = "TEMPLATE", env = "KODER_RELAY_PUSH_OPEN_URL",
          hide_env_values = true, value_parser = push_open_url)]
    push_open_url: Option<String>,

    /// Web Push: also remind this long before an unanswered elicitation expires (e.g. 1m)
    /// [default: no reminder].
    #[arg(long, value_name = "DURATION", env = "KODER_RELAY_PUSH_REMIND_BEFORE",
          hide_env_values = true, value_parser = duration,
          allow_hyphen_values = true)]
    push_remind_before: Option<Duration>,

    /// Web Push: the most push subscriptions one person (user in a workspace) keeps (past it
    /// 409).
    #[arg(long, value_name = "N", env = "KODER_RELAY_PUSH_SUBSCRIPTIONS_PER_PERSON",
          hide_env_values = true, default_value_t = DEFAULT_SUBSCRIPTIONS_PER_PERSON,
          value_parser = count, allow_hyphen_values = true)]
    push_subscriptions_per_person: usize,

    /// E-mail: the SMTP server questions' links are mailed through, smtps://HOST:PORT (TLS)
    /// or smtp://HOST:PORT (STARTTLS required; to localhost, used when offered) [default: no
    /// e-mail]. Needs --email-from and the answer page.
    #[arg(long, value_name = "URL", env = "KODER_RELAY_SMTP_URL", hide_env_values = true,
          value_parser = SmtpUrl::parse)]
    smtp_url: Option<SmtpUrl>,

    /// E-mail: the user to log in to the SMTP server as (its password from
    /// KODER_RELAY_SMTP_PASSWORD or --smtp-password-file).
    #[arg(long, value_name = "USER", env = "KODER_RELAY_SMTP_USER", hide_env_values = true,
          value_parser = not_empty)]
    smtp_user: Option<String>,

    /// E-mail: the SMTP password, read from a file.
    #[arg(
        long,
        value_name = "PATH",
        env = "KODER_RELAY_SMTP_PASSWORD_FILE",
        hide_env_values = true
    )]
    smtp_password_file: Option<PathBuf>,

    /// E-mail: the sender, "Name <address>" or an address.
    #[arg(long, value_name = "MAILBOX", env = "KODER_RELAY_EMAIL_FROM", hide_env_values = true,
          value_parser = not_empty)]
    email_from: Option<String>,

    /// E-mail: the domains a create's notify.email may be in (repeatable, or comma-separated)
    /// [default: none, so no address is accepted].
    #[arg(long = "email-allow-domain", value_name = "DOMAIN[,DOMAIN…]",
          env = "KODER_RELAY_EMAIL_ALLOW_DOMAIN", hide_env_values = true, value_delimiter = ',',
          value_parser = email::parse_domain)]
    email_allow_domains: Vec<String>,

    /// E-mail: wait this long after a create before mailing (nothing is sent when the question
    /// ended meanwhile), e.g. 0s, 30s, 2m.
    #[arg(long, value_name = "DURATION", env = "KODER_RELAY_EMAIL_AFTER", hide_env_values = true,
          default_value = "0s", value_parser = duration_or_zero,
          allow_hyphen_values = true)]
    email_after: Duration,

    /// Serve the answer page at /answer/ and give each question a link to it
    /// (<public-url>/answer/#t=<token>); needs --public-url and --answer-page-assets.
    #[arg(long, env = "KODER_RELAY_ANSWER_PAGE", hide_env_values = true,
          action = clap::ArgAction::SetTrue,
          value_parser = clap::builder::BoolishValueParser::new())]
    answer_page: bool,

    /// The answer page: the origin links carry, where people reach this relay (behind any
    /// proxy), e.g. https://relay.example.com (http:// only on localhost).
    #[arg(long, value_name = "ORIGIN", env = "KODER_RELAY_PUBLIC_URL", hide_env_values = true,
          value_parser = crate::answer_page::parse_public_url)]
    public_url: Option<String>,

    /// The answer page: the element's built files (the package's dist/, holding
    /// koder-mcp-elicitation.js), served under /answer/assets/.
    #[arg(
        long,
        value_name = "DIR",
        env = "KODER_RELAY_ANSWER_PAGE_ASSETS",
        hide_env_values = true
    )]
    answer_page_assets: Option<PathBuf>,

    /// How long a finished (settled, expired, withdrawn) elicitation is kept before it is
    /// deleted: 3s, 15m, 12h, 30d (pending ones are never deleted, audit entries are kept).
    #[arg(long, value_name = "DURATION", env = "KODER_RELAY_RETENTION", hide_env_values = true,
          default_value = "30d", value_parser = duration,
          allow_hyphen_values = true)]
    retention: Duration,

    /// Also serve GET /metrics (and /livez, /readyz) here without auth, for a private network
    /// [default: off; on --listen, /metrics needs the service token].
    #[arg(long, value_name = "ADDR", env = "KODER_RELAY_METRICS_LISTEN", hide_env_values = true,
          value_parser = metrics_address)]
    metrics_listen: Option<SocketAddr>,

    /// On SIGTERM or Ctrl-C: streams end with a retry: hint, long-polls answer at once, and the
    /// process exits within this long (e.g. 500ms, 10s, 2m; at most 1 hour).
    #[arg(long, value_name = "DURATION", env = "KODER_RELAY_DRAIN_TIMEOUT",
          hide_env_values = true, default_value = "30s", value_parser = drain_timeout,
          allow_hyphen_values = true)]
    drain_timeout: Duration,

    /// How often the audit trail is checkpointed (e.g. 30s, 1m, 1h).
    #[arg(long, value_name = "DURATION", env = "KODER_RELAY_AUDIT_CHECKPOINT_INTERVAL",
          hide_env_values = true, default_value = "1m", value_parser = duration,
          allow_hyphen_values = true)]
    audit_checkpoint_interval: Duration,

    /// Log lines as JSON or as text [default: JSON when stderr is not a terminal].
    #[arg(long, value_name = "json|text", env = "KODER_RELAY_LOG_FORMAT", hide_env_values = true,
          value_parser = log_format)]
    log_format: Option<LogFormat>,
}

/// Reads the command line (`args` with the program name first), the environment and any secret
/// files named. The error is clap's: `--help` (printed to stdout, exit 0) or a message naming
/// the flag at fault (stderr, exit 2); [`clap::Error::print`] and [`clap::Error::exit_code`]
/// tell which.
pub fn parse_command<I, T>(args: I) -> Result<Command, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut command = Cli::command();
    let matches = command.try_get_matches_from_mut(args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    match cli.command {
        Some(Subcommands::Audit {
            action:
                AuditAction::Verify {
                    database,
                    checkpoint,
                },
        }) => Ok(Command::AuditVerify {
            database,
            checkpoint,
        }),
        Some(Subcommands::Vapid {
            action: VapidAction::Generate { out },
        }) => Ok(Command::VapidGenerate { out }),
        None => cli
            .run
            .into_config(&matches)
            .map(|config| Command::Run(Box::new(config)))
            .map_err(|message| command.error(ErrorKind::ValueValidation, message)),
    }
}

/// A whole number above 0 with a unit: `ms`, `s`, `m`, `h` or `d` (`500ms`, `3s`, `15m`, `12h`,
/// `30d`). The unit is required: a bare `30` could mean seconds or days, and retention deletes.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let ms = koder_elicitation_relay_protocol::parse_duration_ms(text.trim())?;
    u64::try_from(ms).ok().map(Duration::from_millis)
}

// The value parsers: each error is the end of clap's "invalid value 'X' for '--flag <V>': …".

fn duration(text: &str) -> Result<Duration, String> {
    parse_duration(text).ok_or_else(|| "must be a duration like 3s, 15m, 12h or 30d".to_string())
}

/// A duration as [`parse_duration`] reads it, or zero (`0s`, `0ms`, `0`).
fn duration_or_zero(text: &str) -> Result<Duration, String> {
    let zero = text
        .trim()
        .strip_prefix('0')
        .is_some_and(|unit| ["", "ms", "s", "m", "h", "d"].contains(&unit));
    if zero {
        return Ok(Duration::ZERO);
    }
    parse_duration(text).ok_or_else(|| "must be a duration like 0s, 30s or 2m".to_string())
}

fn drain_timeout(text: &str) -> Result<Duration, String> {
    match parse_duration(text) {
        Some(timeout) if timeout <= Duration::from_secs(3_600) => Ok(timeout),
        _ => Err("must be a duration like 500ms, 30s or 2m (at most 1 hour)".to_string()),
    }
}

fn listen_address(text: &str) -> Result<SocketAddr, String> {
    text.parse()
        .map_err(|_| "is not an address like 127.0.0.1:8790 or [::1]:0".to_string())
}

fn metrics_address(text: &str) -> Result<SocketAddr, String> {
    text.parse()
        .map_err(|_| "is not an address like 10.0.0.5:9090".to_string())
}

fn count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(count) if count > 0 => Ok(count),
        _ => Err("must be a whole number above 0".to_string()),
    }
}

fn retry_scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(scale) if scale > 0.0 && scale <= 1.0 => Ok(scale),
        _ => Err("must be a number above 0, at most 1".to_string()),
    }
}

fn not_empty(text: &str) -> Result<String, String> {
    if text.is_empty() {
        Err("is empty".to_string())
    } else {
        Ok(text.to_string())
    }
}

fn log_format(text: &str) -> Result<LogFormat, String> {
    LogFormat::parse(text).ok_or_else(|| "must be json or text".to_string())
}

fn vapid_subject(text: &str) -> Result<String, String> {
    push::check_subject(text)
        .map(|()| text.to_string())
        .map_err(|_| "must be a mailto: address (mailto:ops@example.com) or an https:// URL".into())
}

fn push_open_url(text: &str) -> Result<String, String> {
    push::check_open_url(text).map(|()| text.to_string())
}

fn jwks_url(url: &str) -> Result<String, String> {
    if url.starts_with("https://") || url.starts_with("file:///") {
        Ok(url.to_string())
    } else {
        Err("must start with https:// (or file:/// for a local file)".to_string())
    }
}

/// An origin is `*` or `scheme://host[:port]` with no path, as browsers send it.
fn origin(origin: &str) -> Result<String, String> {
    let well_formed = origin == "*"
        || (origin
            .split_once("://")
            .is_some_and(|(scheme, host)| !scheme.is_empty() && !host.is_empty())
            && !origin.ends_with('/')
            && origin
                .split_once("://")
                .is_some_and(|(_, host)| !host.contains('/'))
            && origin.bytes().all(|byte| byte.is_ascii_graphic()));
    if well_formed {
        Ok(origin.to_string())
    } else {
        Err("must be an origin like https://app.example.com (no path)".to_string())
    }
}
