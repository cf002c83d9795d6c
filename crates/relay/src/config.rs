//! What the relay runs with, from flags and environment variables (flags win).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use crate::hub::StreamLimits;
use crate::logging::LogFormat;
use crate::webhooks::{self, RetrySchedule, WebhookConfig, WebhookSecret};

/// The shortest service token or HS256 secret the relay starts with: shorter ones can be guessed.
pub const MIN_SECRET_BYTES: usize = 32;
/// The `aud` people's tokens carry unless `--jwt-audience` says otherwise.
pub const DEFAULT_AUDIENCE: &str = "koder-elicitation-relay";
/// The claim naming the workspace unless `--workspace-claim` says otherwise.
pub const DEFAULT_WORKSPACE_CLAIM: &str = "workspace";
/// The claim naming the conversation unless `--conversation-claim` says otherwise.
pub const DEFAULT_CONVERSATION_CLAIM: &str = "conversation";

/// The address used without `--listen`.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8790";
/// How long a stopping relay waits for open requests without `--drain-timeout`.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// The database used without `--database`: a SQLite file in the working directory.
pub const DEFAULT_DATABASE: &str = "sqlite://koder-elicitation-relay.db";

/// How long finished elicitations are kept without `--retention`: 30 days.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);
/// How often an audit checkpoint is written without `--audit-checkpoint-interval`.
pub const DEFAULT_AUDIT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(60);

/// The usage text `--help` prints.
pub const USAGE: &str = "\
koder-elicitation-relay: carries MCP elicitations from hosts to people's browsers

Usage: koder-elicitation-relay [OPTIONS]
       koder-elicitation-relay audit verify [--database URL] [--checkpoint HASH]
           recomputes the audit chains: exit 0 and a summary when intact, exit 1 naming the
           first broken entry when one was edited, deleted or reordered, or when the database
           no longer holds checkpoint HASH or its entries no longer hash to it

Secrets are best given in the environment or in files: flags show in the process list.

Options:
  --listen ADDR                 address to listen on (default 127.0.0.1:8790; port 0 picks one)
                                env KODER_RELAY_LISTEN
  --database URL                sqlite://PATH or postgres://… (default sqlite://koder-elicitation-relay.db)
                                env KODER_RELAY_DATABASE
  --service-token T             the hosts' bearer token (required, at least 32 bytes)
                                env KODER_RELAY_SERVICE_TOKEN
  --service-token-file PATH     the same, read from a file   env KODER_RELAY_SERVICE_TOKEN_FILE
  --jwt-secret S                HS256 secret of people's tokens (at least 32 bytes)
                                env KODER_RELAY_JWT_SECRET
  --jwt-secret-file PATH        the same, read from a file   env KODER_RELAY_JWT_SECRET_FILE
  --jwt-previous-secret S       the HS256 secret before the current one, still accepted while
                                tokens signed with it live   env KODER_RELAY_JWT_PREVIOUS_SECRET
  --jwks-url URL                an identity provider's key set, https://… (or file:///PATH):
                                RS256, ES256 and EdDSA tokens, keys matched by kid
                                env KODER_RELAY_JWKS_URL
                                (people's tokens need --jwt-secret, --jwks-url, or both)
  --jwt-audience AUD            the aud people's tokens must carry (default koder-elicitation-relay)
                                env KODER_RELAY_JWT_AUDIENCE
  --jwt-issuer ISS              the iss people's tokens must carry (default: not checked)
                                env KODER_RELAY_JWT_ISSUER
  --workspace-claim NAME        the claim naming the workspace (default workspace)
                                env KODER_RELAY_WORKSPACE_CLAIM
  --conversation-claim NAME     the claim naming the conversation (default conversation)
                                env KODER_RELAY_CONVERSATION_CLAIM
  --allow-origin ORIGIN         a browser origin allowed by CORS on the people's API (repeatable)
  --max-streams-per-person N    open streams one person may hold on this replica (default 16;
                                past it 429)   env KODER_RELAY_MAX_STREAMS_PER_PERSON
  --max-streams N               open streams this replica holds (default 10000; past it 503)
                                env KODER_RELAY_MAX_STREAMS
  --webhook-url URL             POST signed webhooks (Standard Webhooks) of every change here:
                                https://… (http:// only on localhost)   env KODER_RELAY_WEBHOOK_URL
                                its whsec_… key comes from env KODER_RELAY_WEBHOOK_SECRET (never
                                a flag) or from a file:
  --webhook-secret-file PATH    the webhook key, read from a file   env KODER_RELAY_WEBHOOK_SECRET_FILE
  --webhook-retry-scale F       multiply the retry waits (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)
                                by F, 0 < F <= 1 (default 1; tests use 0.001)
                                env KODER_RELAY_WEBHOOK_RETRY_SCALE
  --retention DURATION          how long a finished (settled, expired, withdrawn) elicitation is
                                kept before it is deleted: 3s, 15m, 12h, 30d (default 30d;
                                pending ones are never deleted, audit entries are kept)
                                env KODER_RELAY_RETENTION
  --audit-checkpoint-interval DURATION
                                how often the hash over every audit chain's head is kept in the
                                database and logged (default 1m)
                                env KODER_RELAY_AUDIT_CHECKPOINT_INTERVAL
  --metrics-listen ADDR         also serve GET /metrics (and /livez, /readyz) here without
                                auth, for a private network (default: off; on --listen,
                                /metrics needs the service token)   env KODER_RELAY_METRICS_LISTEN
  --drain-timeout DURATION      on SIGTERM or Ctrl-C: streams end with a retry: hint, long-polls
                                answer at once, and the process exits within this long (default
                                30s; e.g. 500ms, 10s, 2m)   env KODER_RELAY_DRAIN_TIMEOUT
  --log-format json|text        log lines as JSON or as text (default: JSON when stderr is not a
                                terminal)   env KODER_RELAY_LOG_FORMAT
  -h, --help                    print this help
";

/// Everything the server needs.
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// `sqlite://PATH` or `postgres://…`.
    pub database: String,
    /// The bearer token of the host API (at least 32 bytes).
    pub service_token: String,
    /// The HS256 secret of people's JWTs (at least 32 bytes); `None` with a key set only.
    pub jwt_secret: Option<String>,
    /// The HS256 secret before `jwt_secret`, still accepted during a rotation.
    pub jwt_previous_secret: Option<String>,
    /// The `aud` people's tokens must carry.
    pub jwt_audience: String,
    /// The `iss` people's tokens must carry, when set.
    pub jwt_issuer: Option<String>,
    /// An identity provider's JWKS (`https://…` or `file:///…`) for RS256, ES256 and EdDSA tokens.
    pub jwks_url: Option<String>,
    /// The claim naming the workspace.
    pub workspace_claim: String,
    /// The claim naming the conversation.
    pub conversation_claim: String,
    /// Origins allowed by CORS on the people's API; empty means no CORS headers at all.
    pub allow_origins: Vec<String>,
    /// How many streams may be open.
    pub streams: StreamLimits,
    /// Where webhooks go, when they are on.
    pub webhook: Option<WebhookConfig>,
    /// How long finished elicitations are kept before the sweeper deletes them.
    pub retention: Duration,
    /// How often an audit checkpoint is written.
    pub audit_checkpoint_interval: Duration,
    /// A second address serving `/metrics` (and the probes) without auth, when set.
    pub metrics_listen: Option<SocketAddr>,
    /// How long a stop waits for open requests before dropping them.
    pub drain_timeout: Duration,
    /// How log lines are written; `None`: JSON unless stderr is a terminal.
    pub log_format: Option<LogFormat>,
}

impl Config {
    /// A configuration with the defaults: SQLite in the working directory on
    /// [`DEFAULT_LISTEN`], HS256 tokens with `jwt_secret`, the default audience and claim names,
    /// no CORS.
    pub fn new(service_token: impl Into<String>, jwt_secret: impl Into<String>) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8790)),
            database: DEFAULT_DATABASE.to_string(),
            service_token: service_token.into(),
            jwt_secret: Some(jwt_secret.into()),
            jwt_previous_secret: None,
            jwt_audience: DEFAULT_AUDIENCE.to_string(),
            jwt_issuer: None,
            jwks_url: None,
            workspace_claim: DEFAULT_WORKSPACE_CLAIM.to_string(),
            conversation_claim: DEFAULT_CONVERSATION_CLAIM.to_string(),
            allow_origins: Vec::new(),
            streams: StreamLimits::default(),
            webhook: None,
            retention: DEFAULT_RETENTION,
            audit_checkpoint_interval: DEFAULT_AUDIT_CHECKPOINT_INTERVAL,
            metrics_listen: None,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            log_format: None,
        }
    }
}

impl std::fmt::Debug for Config {
    // Secrets stay out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |secret: &Option<String>| secret.as_ref().map(|_| "<redacted>");
        f.debug_struct("Config")
            .field("listen", &self.listen)
            .field("database", &redact_database(&self.database))
            .field("service_token", &"<redacted>")
            .field("jwt_secret", &redacted(&self.jwt_secret))
            .field("jwt_previous_secret", &redacted(&self.jwt_previous_secret))
            .field("jwt_audience", &self.jwt_audience)
            .field("jwt_issuer", &self.jwt_issuer)
            .field("jwks_url", &self.jwks_url)
            .field("workspace_claim", &self.workspace_claim)
            .field("conversation_claim", &self.conversation_claim)
            .field("allow_origins", &self.allow_origins)
            .field("streams", &self.streams)
            .field("webhook", &self.webhook)
            .field("retention", &self.retention)
            .field("audit_checkpoint_interval", &self.audit_checkpoint_interval)
            .field("metrics_listen", &self.metrics_listen)
            .field("drain_timeout", &self.drain_timeout)
            .field("log_format", &self.log_format)
            .finish()
    }
}

/// A database URL without its password, for messages.
pub fn redact_database(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = url.get(scheme_end + 3..at).unwrap_or_default();
            match credentials.split_once(':') {
                Some((user, _)) => format!(
                    "{}{user}:***{}",
                    url.get(..scheme_end + 3).unwrap_or_default(),
                    url.get(at..).unwrap_or_default()
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Print [`USAGE`] and exit.
    Help,
    /// Run the relay (boxed: a configuration is far larger than `Help`).
    Run(Box<Config>),
    /// `audit verify`: recompute the audit chain in this database and exit.
    AuditVerify {
        /// `sqlite://PATH` or `postgres://…`.
        database: String,
        /// `--checkpoint HASH`: a checkpoint the trail must still hold.
        checkpoint: Option<String>,
    },
}

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatabaseKind {
    /// `sqlite:…`
    Sqlite,
    /// `postgres://…` or `postgresql://…`
    Postgres,
}

impl DatabaseKind {
    /// The kind of a database URL, or `None` for an unsupported scheme.
    pub fn of(url: &str) -> Option<DatabaseKind> {
        if url.starts_with("sqlite:") {
            Some(DatabaseKind::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(DatabaseKind::Postgres)
        } else {
            None
        }
    }
}

/// Reads flags (`args` without the program name), the environment (`env` looks a variable up)
/// and any secret files named. The error is a message for the person who started the relay.
pub fn parse_command(
    args: impl IntoIterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|first| first == "audit") {
        return parse_audit(args.skip(1), env);
    }
    let mut flags: HashMap<&'static str, String> = HashMap::new();
    let mut allow_origins = Vec::new();
    while let Some(arg) = args.next() {
        // Both `--flag value` and `--flag=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value)),
            _ => (arg.clone(), None),
        };
        if flag == "-h" || flag == "--help" {
            return Ok(Command::Help);
        }
        let mut value = || flag_value(&flag, inline.map(str::to_string), &mut args);
        if flag == "--allow-origin" {
            allow_origins.push(value()?);
            continue;
        }
        let Some((name, _)) = FLAGS.iter().find(|(name, _)| *name == flag) else {
            return Err(format!("unknown argument {arg:?} (see --help)"));
        };
        let value = value()?;
        flags.insert(name, value);
    }
    // A flag wins over its environment variable.
    let from_env = |flag: &str| {
        FLAGS
            .iter()
            .find(|(name, _)| *name == flag)
            .and_then(|(_, variable)| env(variable))
    };
    let setting = |flag: &str| flags.get(flag).cloned().or_else(|| from_env(flag));
    // A secret on the command line (either form) wins over both forms in the environment.
    let secret = |flag: &str, file_flag: &str| {
        if flags.contains_key(flag) || flags.contains_key(file_flag) {
            one_secret(
                flags.get(flag).cloned(),
                flags.get(file_flag).cloned(),
                flag,
                file_flag,
            )
        } else {
            one_secret(from_env(flag), from_env(file_flag), flag, file_flag)
        }
    };
    let listen_text = setting("--listen").unwrap_or_else(|| DEFAULT_LISTEN.to_string());
    let listen = listen_text.parse::<SocketAddr>().map_err(|_| {
        format!("--listen {listen_text:?} is not an address like 127.0.0.1:8790 or [::1]:0")
    })?;
    let database = setting("--database").unwrap_or_else(|| DEFAULT_DATABASE.to_string());
    if DatabaseKind::of(&database).is_none() {
        return Err(format!(
            "--database {:?} must start with sqlite: or postgres://",
            redact_database(&database)
        ));
    }
    let service_token = secret("--service-token", "--service-token-file")?
        .ok_or("missing secret: set --service-token, --service-token-file, KODER_RELAY_SERVICE_TOKEN or KODER_RELAY_SERVICE_TOKEN_FILE")?;
    let jwt_secret = secret("--jwt-secret", "--jwt-secret-file")?;
    let jwt_previous_secret = setting("--jwt-previous-secret");
    let jwks_url = setting("--jwks-url");
    if jwt_secret.is_none() && jwks_url.is_none() {
        return Err(
            "missing key for people's tokens: set --jwt-secret, --jwt-secret-file, \
             KODER_RELAY_JWT_SECRET or KODER_RELAY_JWT_SECRET_FILE (HS256), or --jwks-url / \
             KODER_RELAY_JWKS_URL (an identity provider), or both"
                .into(),
        );
    }
    if let Some(previous) = &jwt_previous_secret {
        check_secret_length("--jwt-previous-secret", previous)?;
    }
    if jwt_previous_secret.is_some() && jwt_secret.is_none() {
        return Err("--jwt-previous-secret needs --jwt-secret (the current one)".into());
    }
    if let Some(url) = &jwks_url {
        if !(url.starts_with("https://") || url.starts_with("file:///")) {
            return Err(format!(
                "--jwks-url {url:?} must start with https:// (or file:/// for a local file)"
            ));
        }
    }
    let named = |flag: &str, default: &str| match setting(flag) {
        Some(value) if value.is_empty() => Err(format!("{flag} is empty")),
        Some(value) => Ok(value),
        None => Ok(default.to_string()),
    };
    let jwt_audience = named("--jwt-audience", DEFAULT_AUDIENCE)?;
    let workspace_claim = named("--workspace-claim", DEFAULT_WORKSPACE_CLAIM)?;
    let conversation_claim = named("--conversation-claim", DEFAULT_CONVERSATION_CLAIM)?;
    let jwt_issuer = match setting("--jwt-issuer") {
        Some(issuer) if issuer.is_empty() => return Err("--jwt-issuer is empty".into()),
        issuer => issuer,
    };
    for origin in &allow_origins {
        check_origin(origin)?;
    }
    let defaults = StreamLimits::default();
    let streams = StreamLimits {
        per_person: count(
            setting("--max-streams-per-person"),
            "--max-streams-per-person",
            defaults.per_person,
        )?,
        per_replica: count(
            setting("--max-streams"),
            "--max-streams",
            defaults.per_replica,
        )?,
    };
    let webhook = webhook_config(
        setting("--webhook-url"),
        env(WEBHOOK_SECRET_ENV),
        setting("--webhook-secret-file"),
        setting("--webhook-retry-scale"),
    )?;
    let retention = match setting("--retention") {
        None => DEFAULT_RETENTION,
        Some(text) => parse_duration(&text).ok_or_else(|| {
            format!("--retention {text:?} must be a duration like 3s, 15m, 12h or 30d")
        })?,
    };
    let audit_checkpoint_interval = match setting("--audit-checkpoint-interval") {
        None => DEFAULT_AUDIT_CHECKPOINT_INTERVAL,
        Some(text) => parse_duration(&text).ok_or_else(|| {
            format!("--audit-checkpoint-interval {text:?} must be a duration like 500ms, 30s or 1m")
        })?,
    };
    let metrics_listen = match setting("--metrics-listen") {
        None => None,
        Some(text) => Some(text.parse::<SocketAddr>().map_err(|_| {
            format!("--metrics-listen {text:?} is not an address like 10.0.0.5:9090")
        })?),
    };
    let drain_timeout = match setting("--drain-timeout") {
        None => DEFAULT_DRAIN_TIMEOUT,
        Some(text) => parse_drain_timeout(&text)?,
    };
    let log_format = match setting("--log-format") {
        None => None,
        Some(text) => Some(
            LogFormat::parse(&text)
                .ok_or_else(|| format!("--log-format {text:?} must be json or text"))?,
        ),
    };
    Ok(Command::Run(Box::new(Config {
        listen,
        database,
        service_token,
        jwt_secret,
        jwt_previous_secret,
        jwt_audience,
        jwt_issuer,
        jwks_url,
        workspace_claim,
        conversation_claim,
        allow_origins,
        streams,
        webhook,
        retention,
        audit_checkpoint_interval,
        metrics_listen,
        drain_timeout,
        log_format,
    })))
}

/// The environment variable the webhook key is read from (it has no flag: flags show in the
/// process list).
pub const WEBHOOK_SECRET_ENV: &str = "KODER_RELAY_WEBHOOK_SECRET";

/// Webhooks from `--webhook-url`, its key (from the environment or a file, one of them) and
/// `--webhook-retry-scale`; `None` without a URL.
fn webhook_config(
    url: Option<String>,
    secret: Option<String>,
    secret_file: Option<String>,
    retry_scale: Option<String>,
) -> Result<Option<WebhookConfig>, String> {
    let Some(url) = url else {
        if secret.is_some() || secret_file.is_some() || retry_scale.is_some() {
            return Err(format!(
                "a webhook key or --webhook-retry-scale is set but --webhook-url is not \
                 (set --webhook-url or KODER_RELAY_WEBHOOK_URL, or unset {WEBHOOK_SECRET_ENV} \
                 and --webhook-secret-file)"
            ));
        }
        return Ok(None);
    };
    let url = webhooks::parse_url(&url)?;
    let secret = match (secret, secret_file) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "give {WEBHOOK_SECRET_ENV} or --webhook-secret-file, not both"
            ))
        }
        (Some(text), None) => WebhookSecret::parse(&text, WEBHOOK_SECRET_ENV)?,
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path).map_err(|error| {
                format!("--webhook-secret-file {path:?} cannot be read: {error}")
            })?;
            WebhookSecret::parse(&text, &format!("--webhook-secret-file {path:?}"))?
        }
        (None, None) => {
            return Err(format!(
                "--webhook-url needs its whsec_… key: set {WEBHOOK_SECRET_ENV} or \
                 --webhook-secret-file"
            ))
        }
    };
    let retries = match retry_scale {
        None => RetrySchedule::default(),
        Some(text) => match text.trim().parse::<f64>() {
            Ok(scale) if scale > 0.0 && scale <= 1.0 => RetrySchedule::scaled(scale),
            _ => {
                return Err(format!(
                    "--webhook-retry-scale {text:?} must be a number above 0, at most 1"
                ))
            }
        },
    };
    Ok(Some(WebhookConfig {
        url,
        secret,
        retries,
    }))
}

/// `audit verify [--database URL] [--checkpoint HASH]` (after `audit`); the database as for
/// running, flag first, then `KODER_RELAY_DATABASE`, then the default.
fn parse_audit(
    mut args: impl Iterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    if args.next().as_deref() != Some("verify") {
        return Err("usage: koder-elicitation-relay audit verify --database URL".into());
    }
    let (mut database, mut checkpoint) = (None, None);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value)),
            _ => (arg.clone(), None),
        };
        let slot = match flag.as_str() {
            "--database" => &mut database,
            "--checkpoint" => &mut checkpoint,
            _ => {
                return Err(format!(
                    "audit verify takes only --database URL and --checkpoint HASH, not {flag:?}"
                ))
            }
        };
        *slot = Some(flag_value(&flag, inline.map(str::to_string), &mut args)?);
    }
    let database = database
        .or_else(|| env("KODER_RELAY_DATABASE"))
        .unwrap_or_else(|| DEFAULT_DATABASE.to_string());
    Ok(Command::AuditVerify {
        database,
        checkpoint,
    })
}

/// A drain timeout: a duration as [`parse_duration`] reads it (`500ms`, `30s`, `2m`), at most an
/// hour.
fn parse_drain_timeout(text: &str) -> Result<Duration, String> {
    match parse_duration(text) {
        Some(timeout) if timeout <= Duration::from_secs(3_600) => Ok(timeout),
        _ => Err(format!(
            "--drain-timeout {text:?} must be a duration like 500ms, 30s or 2m (at most 1 hour)"
        )),
    }
}

/// Refuses a secret shorter than [`MIN_SECRET_BYTES`], naming the flag it came from.
pub fn check_secret_length(flag: &str, secret: &str) -> Result<(), String> {
    if secret.len() < MIN_SECRET_BYTES {
        return Err(format!(
            "{flag} is {} bytes; give at least {MIN_SECRET_BYTES} (for example: openssl rand -hex 32)",
            secret.len()
        ));
    }
    Ok(())
}

/// A whole number above 0 with a unit: `ms`, `s`, `m`, `h` or `d` (`500ms`, `3s`, `15m`, `12h`,
/// `30d`). The unit is required: a bare `30` could mean seconds or days, and retention deletes.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = (text.get(..digits)?, text.get(digits..)?);
    let count: u64 = number.parse().ok()?;
    let unit_ms: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    if count == 0 {
        return None;
    }
    count.checked_mul(unit_ms).map(Duration::from_millis)
}

/// A positive count, or `default` when not given.
fn count(value: Option<String>, flag: &str, default: usize) -> Result<usize, String> {
    match value {
        None => Ok(default),
        Some(text) => match text.trim().parse::<usize>() {
            Ok(count) if count > 0 => Ok(count),
            _ => Err(format!("{flag} {text:?} must be a whole number above 0")),
        },
    }
}

/// Every flag that takes one value, with its environment variable (`--allow-origin` repeats and
/// has none).
const FLAGS: &[(&str, &str)] = &[
    ("--listen", "KODER_RELAY_LISTEN"),
    ("--database", "KODER_RELAY_DATABASE"),
    ("--service-token", "KODER_RELAY_SERVICE_TOKEN"),
    ("--service-token-file", "KODER_RELAY_SERVICE_TOKEN_FILE"),
    ("--jwt-secret", "KODER_RELAY_JWT_SECRET"),
    ("--jwt-secret-file", "KODER_RELAY_JWT_SECRET_FILE"),
    ("--jwt-previous-secret", "KODER_RELAY_JWT_PREVIOUS_SECRET"),
    ("--jwks-url", "KODER_RELAY_JWKS_URL"),
    ("--jwt-audience", "KODER_RELAY_JWT_AUDIENCE"),
    ("--jwt-issuer", "KODER_RELAY_JWT_ISSUER"),
    ("--workspace-claim", "KODER_RELAY_WORKSPACE_CLAIM"),
    ("--conversation-claim", "KODER_RELAY_CONVERSATION_CLAIM"),
    (
        "--max-streams-per-person",
        "KODER_RELAY_MAX_STREAMS_PER_PERSON",
    ),
    ("--max-streams", "KODER_RELAY_MAX_STREAMS"),
    ("--webhook-url", "KODER_RELAY_WEBHOOK_URL"),
    ("--webhook-secret-file", "KODER_RELAY_WEBHOOK_SECRET_FILE"),
    ("--webhook-retry-scale", "KODER_RELAY_WEBHOOK_RETRY_SCALE"),
    ("--retention", "KODER_RELAY_RETENTION"),
    (
        "--audit-checkpoint-interval",
        "KODER_RELAY_AUDIT_CHECKPOINT_INTERVAL",
    ),
    ("--metrics-listen", "KODER_RELAY_METRICS_LISTEN"),
    ("--drain-timeout", "KODER_RELAY_DRAIN_TIMEOUT"),
    ("--log-format", "KODER_RELAY_LOG_FORMAT"),
];

fn flag_value(
    flag: &str,
    inline: Option<String>,
    rest: &mut impl Iterator<Item = String>,
) -> Result<String, String> {
    inline
        .or_else(|| rest.next())
        .ok_or_else(|| format!("{flag} needs a value (see --help)"))
}

/// A secret given directly or in a file (one or the other), `None` when neither is set. A
/// file's trailing line break is not part of the secret.
fn one_secret(
    direct: Option<String>,
    file: Option<String>,
    flag: &str,
    file_flag: &str,
) -> Result<Option<String>, String> {
    match (direct, file) {
        (Some(_), Some(_)) => Err(format!("give {flag} or {file_flag}, not both")),
        (Some(value), None) if value.is_empty() => Err(format!("{flag} is empty; give a secret")),
        (Some(value), None) => {
            check_secret_length(flag, &value)?;
            Ok(Some(value))
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("{file_flag} {path:?} cannot be read: {error}"))?;
            let value = text.trim_end_matches(['\n', '\r']).to_string();
            check_secret_length(&format!("the secret in {file_flag} {path:?}"), &value)?;
            Ok(Some(value))
        }
        (None, None) => Ok(None),
    }
}

/// An origin is `*` or `scheme://host[:port]` with no path, as browsers send it.
fn check_origin(origin: &str) -> Result<(), String> {
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
        Ok(())
    } else {
        Err(format!(
            "--allow-origin {origin:?} must be an origin like https://app.example.com (no path)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "service-token-0123456789abcdef0123";
    const SECRET: &str = "jwt-secret-0123456789abcdef0123456789";

    fn parse(args: &[&str]) -> Result<Command, String> {
        parse_command(args.iter().map(|arg| arg.to_string()), |_| None)
    }

    fn run(args: &[&str]) -> Config {
        match parse(args) {
            Ok(Command::Run(config)) => *config,
            other => panic!("should run: {other:?}"),
        }
    }

    #[test]
    fn two_secrets_are_enough_and_the_defaults_fill_the_rest() {
        let config = run(&["--service-token", TOKEN, "--jwt-secret", SECRET]);
        assert_eq!(config.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(config.database, DEFAULT_DATABASE);
        assert_eq!(config.service_token, TOKEN);
        assert_eq!(config.jwt_secret.as_deref(), Some(SECRET));
        assert_eq!(config.jwt_audience, "koder-elicitation-relay");
        assert_eq!(config.jwt_issuer, None);
        assert_eq!(config.workspace_claim, "workspace");
        assert_eq!(config.conversation_claim, "conversation");
        assert!(config.allow_origins.is_empty());
        let shown = format!("{config:?}");
        assert!(!shown.contains(TOKEN) && !shown.contains(SECRET), "{shown}");
        assert_eq!(
            Config::new(TOKEN, SECRET),
            Config {
                listen: config.listen,
                ..config
            }
        );
    }

    #[test]
    fn operations_flags_parse_and_refuse_nonsense() {
        let config = run(&[
            "--service-token",
            TOKEN,
            "--jwt-secret",
            SECRET,
            "--metrics-listen",
            "127.0.0.1:9090",
            "--drain-timeout",
            "500ms",
            "--log-format",
            "text",
        ]);
        assert_eq!(
            config.metrics_listen,
            Some("127.0.0.1:9090".parse().unwrap())
        );
        assert_eq!(config.drain_timeout, Duration::from_millis(500));
        assert_eq!(config.log_format, Some(LogFormat::Text));
        let defaults = run(&["--service-token", TOKEN, "--jwt-secret", SECRET]);
        assert_eq!(defaults.metrics_listen, None);
        assert_eq!(defaults.drain_timeout, Duration::from_secs(30));
        assert_eq!(defaults.log_format, None);
        assert_eq!(defaults.audit_checkpoint_interval, Duration::from_secs(60));
        let mut args = vec!["--service-token", TOKEN, "--jwt-secret", SECRET];
        args.extend(["--audit-checkpoint-interval", "250ms"]);
        assert_eq!(
            run(&args).audit_checkpoint_interval,
            Duration::from_millis(250)
        );
        args.extend(["--audit-checkpoint-interval", "often"]);
        assert!(parse(&args)
            .unwrap_err()
            .starts_with("--audit-checkpoint-interval \"often\""));
        for (timeout, seconds) in [("45s", 45), ("2m", 120), ("10s", 10)] {
            assert_eq!(
                parse_drain_timeout(timeout),
                Ok(Duration::from_secs(seconds))
            );
        }
        for (flag, value) in [
            ("--metrics-listen", "nowhere"),
            ("--drain-timeout", "soon"),
            ("--drain-timeout", "-1s"),
            ("--drain-timeout", "2h"),
            ("--drain-timeout", "61m"),
            ("--log-format", "xml"),
        ] {
            let error = parse(&[
                "--service-token",
                TOKEN,
                "--jwt-secret",
                SECRET,
                flag,
                value,
            ])
            .unwrap_err();
            assert!(error.contains(flag), "{error}");
        }
    }

    #[test]
    fn flags_win_over_the_environment_and_equals_works() {
        let env = |name: &str| match name {
            "KODER_RELAY_SERVICE_TOKEN" => Some(format!("env-{TOKEN}")),
            "KODER_RELAY_JWT_SECRET" => Some(format!("env-{SECRET}")),
            "KODER_RELAY_LISTEN" => Some("127.0.0.1:0".to_string()),
            "KODER_RELAY_JWT_AUDIENCE" => Some("env-audience".to_string()),
            "KODER_RELAY_JWT_ISSUER" => Some("https://idp.example".to_string()),
            "KODER_RELAY_WORKSPACE_CLAIM" => Some("https://app.example/ws".to_string()),
            _ => None,
        };
        let args = [
            format!("--service-token={TOKEN}"),
            "--allow-origin".into(),
            "https://a.example".into(),
            "--allow-origin=http://localhost:5173".into(),
            "--jwt-audience".into(),
            "flag-audience".into(),
            "--conversation-claim=conv".into(),
        ];
        let Ok(Command::Run(config)) = parse_command(args, env) else {
            panic!("should run");
        };
        assert_eq!(config.service_token, TOKEN);
        assert_eq!(config.jwt_secret, Some(format!("env-{SECRET}")));
        assert_eq!(config.listen.port(), 0);
        assert_eq!(config.jwt_audience, "flag-audience");
        assert_eq!(config.jwt_issuer.as_deref(), Some("https://idp.example"));
        assert_eq!(config.workspace_claim, "https://app.example/ws");
        assert_eq!(config.conversation_claim, "conv");
        assert_eq!(
            config.allow_origins,
            ["https://a.example", "http://localhost:5173"]
        );
    }

    #[test]
    fn secrets_come_from_files_and_key_sets_stand_alone() {
        let dir = std::env::temp_dir().join(format!("koder-relay-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let token_file = dir.join("token");
        let secret_file = dir.join("secret");
        std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
        std::fs::write(&secret_file, format!("{SECRET}\r\n")).unwrap();
        let token_path = token_file.to_str().unwrap();
        let secret_path = secret_file.to_str().unwrap();
        let config = run(&[
            "--service-token-file",
            token_path,
            "--jwt-secret-file",
            secret_path,
        ]);
        assert_eq!(config.service_token, TOKEN);
        assert_eq!(config.jwt_secret.as_deref(), Some(SECRET));
        let env =
            |name: &str| (name == "KODER_RELAY_JWT_SECRET_FILE").then(|| secret_path.to_string());
        let Ok(Command::Run(config)) =
            parse_command(["--service-token".to_string(), TOKEN.to_string()], env)
        else {
            panic!("should run");
        };
        assert_eq!(config.jwt_secret.as_deref(), Some(SECRET));
        // A file on the command line wins over a secret in the environment.
        let env = |name: &str| (name == "KODER_RELAY_JWT_SECRET").then(|| format!("env-{SECRET}"));
        let args = ["--service-token", TOKEN, "--jwt-secret-file", secret_path];
        let Ok(Command::Run(config)) = parse_command(args.map(str::to_string), env) else {
            panic!("should run");
        };
        assert_eq!(config.jwt_secret.as_deref(), Some(SECRET));
        assert!(parse(&[
            "--service-token",
            TOKEN,
            "--jwt-secret",
            SECRET,
            "--jwt-secret-file",
            secret_path
        ])
        .unwrap_err()
        .contains("not both"));
        std::fs::write(&secret_file, "short\n").unwrap();
        let short =
            parse(&["--service-token", TOKEN, "--jwt-secret-file", secret_path]).unwrap_err();
        assert!(
            short.contains("--jwt-secret-file") && short.contains("32"),
            "{short}"
        );
        assert!(parse(&[
            "--service-token",
            TOKEN,
            "--jwt-secret-file",
            "/nonexistent/secret"
        ])
        .unwrap_err()
        .contains("cannot be read"));
        let _ = std::fs::remove_dir_all(&dir);

        let config = run(&[
            "--service-token",
            TOKEN,
            "--jwks-url",
            "https://idp.example/jwks.json",
        ]);
        assert_eq!(config.jwt_secret, None);
        assert_eq!(
            config.jwks_url.as_deref(),
            Some("https://idp.example/jwks.json")
        );
        let config = run(&[
            "--service-token",
            TOKEN,
            "--jwt-secret",
            SECRET,
            "--jwt-previous-secret",
            &SECRET.repeat(2),
            "--jwks-url",
            "file:///etc/relay/jwks.json",
        ]);
        assert_eq!(config.jwt_previous_secret, Some(SECRET.repeat(2)));
        for url in [
            "http://idp.example/jwks",
            "file://relative.json",
            "jwks.json",
        ] {
            assert!(
                parse(&["--service-token", TOKEN, "--jwks-url", url])
                    .unwrap_err()
                    .contains("--jwks-url"),
                "{url}"
            );
        }
    }

    #[test]
    fn missing_or_short_secrets_and_bad_flags_are_clear_errors() {
        assert!(parse(&["--jwt-secret", SECRET])
            .unwrap_err()
            .starts_with("missing secret: set --service-token"));
        let no_key = parse(&["--service-token", TOKEN]).unwrap_err();
        assert!(
            no_key.contains("--jwt-secret") && no_key.contains("--jwks-url"),
            "{no_key}"
        );
        assert!(parse(&["--service-token", "", "--jwt-secret", SECRET])
            .unwrap_err()
            .contains("empty"));
        let short = parse(&["--service-token", "a", "--jwt-secret", SECRET]).unwrap_err();
        assert!(
            short.starts_with("--service-token is 1 bytes; give at least 32"),
            "{short}"
        );
        let short = parse(&["--service-token", TOKEN, "--jwt-secret", &SECRET[..31]]).unwrap_err();
        assert!(short.starts_with("--jwt-secret is 31 bytes"), "{short}");
        assert!(parse(&["--service-token", TOKEN, "--jwt-secret", &SECRET[..32]]).is_ok());
        assert!(parse(&[
            "--service-token",
            TOKEN,
            "--jwt-secret",
            SECRET,
            "--jwt-previous-secret",
            "p"
        ])
        .unwrap_err()
        .starts_with("--jwt-previous-secret is 1 bytes"));
        assert!(parse(&[
            "--service-token",
            TOKEN,
            "--jwks-url",
            "https://idp.example/jwks",
            "--jwt-previous-secret",
            SECRET,
        ])
        .unwrap_err()
        .contains("needs --jwt-secret"));
        assert!(parse(&["--bogus"])
            .unwrap_err()
            .contains("unknown argument"));
        assert!(parse(&["--listen"]).unwrap_err().contains("needs a value"));
        let base = ["--service-token", TOKEN, "--jwt-secret", SECRET];
        let with = |extra: &[&str]| {
            let mut args: Vec<&str> = base.to_vec();
            args.extend_from_slice(extra);
            parse(&args)
        };
        assert!(with(&["--listen", "nowhere"])
            .unwrap_err()
            .contains("--listen"));
        assert!(with(&["--database", "mysql://x"])
            .unwrap_err()
            .contains("--database"));
        assert!(with(&["--allow-origin", "https://a.example/path"])
            .unwrap_err()
            .contains("--allow-origin"));
        for flag in [
            "--jwt-audience",
            "--jwt-issuer",
            "--workspace-claim",
            "--conversation-claim",
        ] {
            assert_eq!(with(&[flag, ""]).unwrap_err(), format!("{flag} is empty"));
        }
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
    }

    #[test]
    fn webhooks_take_a_url_and_a_key_from_the_environment_or_a_file_only() {
        const KEY: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let base = ["--service-token", TOKEN, "--jwt-secret", SECRET];
        let with = |extra: &[&str], key: Option<&str>| {
            let mut args: Vec<String> = base.iter().map(|arg| arg.to_string()).collect();
            args.extend(extra.iter().map(|arg| arg.to_string()));
            parse_command(args, |name| {
                (name == WEBHOOK_SECRET_ENV)
                    .then(|| key.map(str::to_string))
                    .flatten()
            })
        };
        let Ok(Command::Run(config)) =
            with(&["--webhook-url", "https://h.example/hook"], Some(KEY))
        else {
            panic!("should run");
        };
        let webhook = config.webhook.as_ref().unwrap();
        assert_eq!(webhook.url.as_str(), "https://h.example/hook");
        assert_eq!(webhook.retries, RetrySchedule::default());
        assert!(!format!("{config:?}").contains("MfKQ"));
        assert!(!format!("{config:?}").contains("/hook"));
        assert_eq!(run(&base).webhook, None);
        // No flag takes the key itself.
        assert!(with(&["--webhook-secret", KEY], None)
            .unwrap_err()
            .contains("unknown argument"));
        let missing = with(&["--webhook-url", "https://h.example/"], None).unwrap_err();
        assert!(missing.contains(WEBHOOK_SECRET_ENV), "{missing}");
        assert!(with(&["--webhook-url", "http://h.example/"], Some(KEY))
            .unwrap_err()
            .contains("https://"));
        assert!(with(&[], Some(KEY))
            .unwrap_err()
            .contains("--webhook-url is not"));
        assert!(with(
            &[
                "--webhook-url",
                "http://localhost:1/",
                "--webhook-retry-scale",
                "0"
            ],
            Some(KEY)
        )
        .unwrap_err()
        .contains("--webhook-retry-scale"));
        let Ok(Command::Run(config)) = with(
            &[
                "--webhook-url",
                "http://localhost:1/",
                "--webhook-retry-scale=0.001",
            ],
            Some(KEY),
        ) else {
            panic!("should run");
        };
        assert_eq!(
            config.webhook.unwrap().retries,
            RetrySchedule::scaled(0.001)
        );
        let dir = std::env::temp_dir().join(format!("koder-relay-webhook-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let key_file = dir.join("key");
        std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
        let key_path = key_file.to_str().unwrap();
        let args = [
            "--webhook-url",
            "https://h.example/",
            "--webhook-secret-file",
            key_path,
        ];
        assert!(with(&args, None).unwrap().eq(&with(
            &["--webhook-url", "https://h.example/"],
            Some(KEY)
        )
        .unwrap()));
        assert!(with(&args, Some(KEY)).unwrap_err().contains("not both"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn retention_takes_a_duration_with_a_unit_and_defaults_to_30_days() {
        assert_eq!(DEFAULT_RETENTION, Duration::from_secs(30 * 86_400));
        let base = ["--service-token", TOKEN, "--jwt-secret", SECRET];
        assert_eq!(run(&base).retention, DEFAULT_RETENTION);
        for (text, seconds) in [("3s", 3), ("15m", 900), ("12h", 43_200), ("30d", 2_592_000)] {
            let mut args = base.to_vec();
            args.extend(["--retention", text]);
            assert_eq!(run(&args).retention, Duration::from_secs(seconds), "{text}");
        }
        let env = |name: &str| match name {
            "KODER_RELAY_RETENTION" => Some("7d".to_string()),
            "KODER_RELAY_SERVICE_TOKEN" => Some(TOKEN.to_string()),
            "KODER_RELAY_JWT_SECRET" => Some(SECRET.to_string()),
            _ => None,
        };
        let Ok(Command::Run(config)) = parse_command(Vec::<String>::new(), env) else {
            panic!("should run");
        };
        assert_eq!(config.retention, Duration::from_secs(7 * 86_400));
        for bad in [
            "30",
            "d",
            "0d",
            "-3s",
            "1.5h",
            "3 s",
            "3w",
            "",
            "99999999999999999999d",
        ] {
            let mut args = base.to_vec();
            args.extend(["--retention", bad]);
            assert_eq!(
                parse(&args).unwrap_err(),
                format!("--retention {bad:?} must be a duration like 3s, 15m, 12h or 30d")
            );
        }
    }

    #[test]
    fn audit_verify_needs_only_the_database() {
        let verify = |database: &str| {
            Ok(Command::AuditVerify {
                database: database.to_string(),
                checkpoint: None,
            })
        };
        assert_eq!(
            parse(&["audit", "verify", "--database", "sqlite://a.db"]),
            verify("sqlite://a.db")
        );
        assert_eq!(
            parse(&["audit", "verify", "--database=postgres://db/x"]),
            verify("postgres://db/x")
        );
        assert_eq!(parse(&["audit", "verify"]), verify(DEFAULT_DATABASE));
        let env = |name: &str| (name == "KODER_RELAY_DATABASE").then(|| "sqlite://env.db".into());
        assert_eq!(
            parse_command(["audit", "verify"].map(str::to_string), env),
            verify("sqlite://env.db")
        );
        assert!(parse(&["audit"]).is_err());
        assert!(parse(&["audit", "verify", "--listen", "x"])
            .unwrap_err()
            .contains("--listen"));
        assert!(parse(&["audit", "verify", "--database"]).is_err());
        assert_eq!(
            parse(&[
                "audit",
                "verify",
                "--checkpoint",
                "ab12",
                "--database=sqlite://a.db"
            ]),
            Ok(Command::AuditVerify {
                database: "sqlite://a.db".into(),
                checkpoint: Some("ab12".into()),
            })
        );
    }

    #[test]
    fn database_passwords_are_redacted() {
        assert_eq!(
            redact_database("postgres://user:secret@db:5432/x"),
            "postgres://user:***@db:5432/x"
        );
        assert_eq!(redact_database("sqlite://a.db"), "sqlite://a.db");
        assert_eq!(
            DatabaseKind::of("sqlite::memory:"),
            Some(DatabaseKind::Sqlite)
        );
        assert_eq!(
            DatabaseKind::of("postgresql://x"),
            Some(DatabaseKind::Postgres)
        );
    }
}
