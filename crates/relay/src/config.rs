//! What the relay runs with, from flags and environment variables (flags win).

use std::net::SocketAddr;

use crate::hub::StreamLimits;

/// The address used without `--listen`.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8790";
/// The database used without `--database`: a SQLite file in the working directory.
pub const DEFAULT_DATABASE: &str = "sqlite://koder-elicitation-relay.db";

/// The usage text `--help` prints.
pub const USAGE: &str = "\
koder-elicitation-relay: carries MCP elicitations from hosts to people's browsers

Usage: koder-elicitation-relay [OPTIONS]

Options:
  --listen ADDR          address to listen on (default 127.0.0.1:8790; port 0 picks one)
                         env KODER_RELAY_LISTEN
  --database URL         sqlite://PATH or postgres://… (default sqlite://koder-elicitation-relay.db)
                         env KODER_RELAY_DATABASE
  --service-token T      the hosts' bearer token (required)   env KODER_RELAY_SERVICE_TOKEN
  --jwt-secret S         HS256 secret of people's tokens (required)   env KODER_RELAY_JWT_SECRET
  --allow-origin ORIGIN  a browser origin allowed by CORS on the people's API (repeatable)
  --max-streams-per-person N   open streams one person may hold on this replica (default 16;
                         past it 429)   env KODER_RELAY_MAX_STREAMS_PER_PERSON
  --max-streams N        open streams this replica holds (default 10000; past it 503)
                         env KODER_RELAY_MAX_STREAMS
  -h, --help             print this help
";

/// Everything the server needs.
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// `sqlite://PATH` or `postgres://…`.
    pub database: String,
    /// The bearer token of the host API.
    pub service_token: String,
    /// The HS256 secret of people's JWTs.
    pub jwt_secret: String,
    /// Origins allowed by CORS on the people's API; empty means no CORS headers at all.
    pub allow_origins: Vec<String>,
    /// How many streams may be open.
    pub streams: StreamLimits,
}

impl std::fmt::Debug for Config {
    // Secrets stay out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("listen", &self.listen)
            .field("database", &redact_database(&self.database))
            .field("service_token", &"<redacted>")
            .field("jwt_secret", &"<redacted>")
            .field("allow_origins", &self.allow_origins)
            .field("streams", &self.streams)
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
    /// Run the relay.
    Run(Config),
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

/// Reads flags (`args` without the program name) and the environment (`env` looks a variable
/// up). The error is a message for the person who started the relay.
pub fn parse_command(
    args: impl IntoIterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    let mut listen = None;
    let mut database = None;
    let mut service_token = None;
    let mut jwt_secret = None;
    let mut allow_origins = Vec::new();
    let mut max_streams_per_person = None;
    let mut max_streams = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        // Both `--flag value` and `--flag=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value)),
            _ => (arg.clone(), None),
        };
        if flag == "-h" || flag == "--help" {
            return Ok(Command::Help);
        }
        let slot = match flag.as_str() {
            "--listen" => &mut listen,
            "--database" => &mut database,
            "--service-token" => &mut service_token,
            "--jwt-secret" => &mut jwt_secret,
            "--max-streams-per-person" => &mut max_streams_per_person,
            "--max-streams" => &mut max_streams,
            "--allow-origin" => {
                let value = flag_value(&flag, inline.map(str::to_string), &mut args)?;
                allow_origins.push(value);
                continue;
            }
            _ => return Err(format!("unknown argument {arg:?} (see --help)")),
        };
        *slot = Some(flag_value(&flag, inline.map(str::to_string), &mut args)?);
    }
    let listen_text = listen
        .or_else(|| env("KODER_RELAY_LISTEN"))
        .unwrap_or_else(|| DEFAULT_LISTEN.to_string());
    let listen = listen_text.parse::<SocketAddr>().map_err(|_| {
        format!("--listen {listen_text:?} is not an address like 127.0.0.1:8790 or [::1]:0")
    })?;
    let database = database
        .or_else(|| env("KODER_RELAY_DATABASE"))
        .unwrap_or_else(|| DEFAULT_DATABASE.to_string());
    if DatabaseKind::of(&database).is_none() {
        return Err(format!(
            "--database {:?} must start with sqlite: or postgres://",
            redact_database(&database)
        ));
    }
    let service_token = required_secret(
        service_token.or_else(|| env("KODER_RELAY_SERVICE_TOKEN")),
        "--service-token or KODER_RELAY_SERVICE_TOKEN",
    )?;
    let jwt_secret = required_secret(
        jwt_secret.or_else(|| env("KODER_RELAY_JWT_SECRET")),
        "--jwt-secret or KODER_RELAY_JWT_SECRET",
    )?;
    for origin in &allow_origins {
        check_origin(origin)?;
    }
    let defaults = StreamLimits::default();
    let streams = StreamLimits {
        per_person: count(
            max_streams_per_person.or_else(|| env("KODER_RELAY_MAX_STREAMS_PER_PERSON")),
            "--max-streams-per-person",
            defaults.per_person,
        )?,
        per_replica: count(
            max_streams.or_else(|| env("KODER_RELAY_MAX_STREAMS")),
            "--max-streams",
            defaults.per_replica,
        )?,
    };
    Ok(Command::Run(Config {
        listen,
        database,
        service_token,
        jwt_secret,
        allow_origins,
        streams,
    }))
}

fn flag_value(
    flag: &str,
    inline: Option<String>,
    rest: &mut impl Iterator<Item = String>,
) -> Result<String, String> {
    inline
        .or_else(|| rest.next())
        .ok_or_else(|| format!("{flag} needs a value (see --help)"))
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

fn required_secret(value: Option<String>, source: &str) -> Result<String, String> {
    match value {
        Some(secret) if !secret.is_empty() => Ok(secret),
        Some(_) => Err(format!("{source} is empty; give a secret")),
        None => Err(format!("missing secret: set {source}")),
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

    fn parse(args: &[&str]) -> Result<Command, String> {
        parse_command(args.iter().map(|arg| arg.to_string()), |_| None)
    }

    #[test]
    fn two_secrets_are_enough_and_the_defaults_fill_the_rest() {
        let Ok(Command::Run(config)) = parse(&["--service-token", "a", "--jwt-secret", "b"]) else {
            panic!("should run");
        };
        assert_eq!(config.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(config.database, DEFAULT_DATABASE);
        assert_eq!(config.service_token, "a");
        assert_eq!(config.jwt_secret, "b");
        assert!(config.allow_origins.is_empty());
        assert!(!format!("{config:?}").contains("\"a\""));
    }

    #[test]
    fn flags_win_over_the_environment_and_equals_works() {
        let env = |name: &str| match name {
            "KODER_RELAY_SERVICE_TOKEN" => Some("env-token".to_string()),
            "KODER_RELAY_JWT_SECRET" => Some("env-secret".to_string()),
            "KODER_RELAY_LISTEN" => Some("127.0.0.1:0".to_string()),
            _ => None,
        };
        let args = [
            "--service-token=flag-token",
            "--allow-origin",
            "https://a.example",
            "--allow-origin=http://localhost:5173",
        ];
        let Ok(Command::Run(config)) = parse_command(args.iter().map(|a| a.to_string()), env)
        else {
            panic!("should run");
        };
        assert_eq!(config.service_token, "flag-token");
        assert_eq!(config.jwt_secret, "env-secret");
        assert_eq!(config.listen.port(), 0);
        assert_eq!(
            config.allow_origins,
            ["https://a.example", "http://localhost:5173"]
        );
    }

    #[test]
    fn missing_secrets_and_bad_flags_are_clear_errors() {
        assert_eq!(
            parse(&["--jwt-secret", "b"]),
            Err("missing secret: set --service-token or KODER_RELAY_SERVICE_TOKEN".into())
        );
        assert!(parse(&["--service-token", "a"])
            .unwrap_err()
            .contains("--jwt-secret"));
        assert!(parse(&["--service-token", "", "--jwt-secret", "b"])
            .unwrap_err()
            .contains("empty"));
        assert!(parse(&["--bogus"])
            .unwrap_err()
            .contains("unknown argument"));
        assert!(parse(&["--listen"]).unwrap_err().contains("needs a value"));
        let base = ["--service-token", "a", "--jwt-secret", "b"];
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
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
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
