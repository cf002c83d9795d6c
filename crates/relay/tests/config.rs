//! The command line as clap reads it: flags, their `KODER_RELAY_*` variables (a flag wins),
//! secrets in files, defaults, and a clear error naming the flag for every bad value. The
//! environment is the process's, so every test here takes one lock and sets only what it names.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::sync::Mutex;
use std::time::Duration;

use koder_elicitation_relay::channels::webhooks::RetrySchedule;
use koder_elicitation_relay::cli::{
    parse_command, parse_duration, Command, VAPID_PRIVATE_KEY_ENV, WEBHOOK_SECRET_ENV,
};
use koder_elicitation_relay::config::{
    Config, DEFAULT_AUDIT_CHECKPOINT_INTERVAL, DEFAULT_DATABASE, DEFAULT_DRAIN_TIMEOUT,
    DEFAULT_LISTEN, DEFAULT_RETENTION,
};
use koder_elicitation_relay::logging::LogFormat;
use koder_elicitation_relay::secret::Secret;
use koder_elicitation_relay::store::{redact_database, DatabaseKind};

const TOKEN: &str = "service-token-0123456789abcdef0123";
const SECRET: &str = "jwt-secret-0123456789abcdef0123456789";
const BASE: [&str; 4] = ["--service-token", TOKEN, "--jwt-secret", SECRET];

static ENVIRONMENT: Mutex<()> = Mutex::new(());

/// Parses `args` with exactly the `KODER_RELAY_*` variables of `env` set; the message of a
/// refusal as the binary prints it.
fn parse_with(args: &[&str], env: &[(&str, &str)]) -> Result<Command, String> {
    let _guard = ENVIRONMENT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let ours: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| name.starts_with("KODER_RELAY_"))
        .collect();
    for name in ours {
        std::env::remove_var(name);
    }
    for (name, value) in env {
        std::env::set_var(name, value);
    }
    let parsed =
        parse_command(std::iter::once("koder-elicitation-relay").chain(args.iter().copied()))
            .map_err(|error| error.to_string());
    for (name, _) in env {
        std::env::remove_var(name);
    }
    parsed
}

fn parse(args: &[&str]) -> Result<Command, String> {
    parse_with(args, &[])
}

fn with(extra: &[&str]) -> Result<Command, String> {
    let mut args = BASE.to_vec();
    args.extend_from_slice(extra);
    parse(&args)
}

fn run_with(args: &[&str], env: &[(&str, &str)]) -> Config {
    match parse_with(args, env) {
        Ok(Command::Run(config)) => *config,
        other => panic!("should run: {other:?}"),
    }
}

fn run(args: &[&str]) -> Config {
    run_with(args, &[])
}

#[test]
fn two_secrets_are_enough_and_the_defaults_fill_the_rest() {
    let config = run(&BASE);
    assert_eq!(config.listen.to_string(), DEFAULT_LISTEN);
    assert_eq!(config.database, DEFAULT_DATABASE);
    assert_eq!(config.auth.service_token.expose(), TOKEN);
    assert_eq!(
        config.auth.jwt_secret.as_ref().map(Secret::expose),
        Some(SECRET)
    );
    assert_eq!(config.auth.jwt_audience, "koder-elicitation-relay");
    assert_eq!(config.auth.jwt_issuer, None);
    assert_eq!(config.auth.workspace_claim, "workspace");
    assert_eq!(config.auth.conversation_claim, "conversation");
    assert!(config.allow_origins.is_empty());
    assert_eq!(config.streams.per_person, 16);
    assert_eq!(config.streams.per_replica, 10_000);
    assert_eq!(config.retention, DEFAULT_RETENTION);
    assert_eq!(config.drain_timeout, DEFAULT_DRAIN_TIMEOUT);
    assert_eq!(config.audit_checkpoint_interval, Duration::from_secs(60));
    assert_eq!(DEFAULT_AUDIT_CHECKPOINT_INTERVAL, Duration::from_secs(60));
    let shown = format!("{config:?}");
    assert!(!shown.contains(TOKEN) && !shown.contains(SECRET), "{shown}");
    // The library's defaults are the command line's.
    assert_eq!(Config::new(TOKEN, SECRET), config);
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
        "--audit-checkpoint-interval",
        "15s",
        "--max-streams",
        "20",
        "--max-streams-per-person=2",
    ]);
    assert_eq!(
        config.metrics_listen,
        Some("127.0.0.1:9090".parse().unwrap())
    );
    assert_eq!(config.drain_timeout, Duration::from_millis(500));
    assert_eq!(config.log_format, Some(LogFormat::Text));
    assert_eq!(config.audit_checkpoint_interval, Duration::from_secs(15));
    assert_eq!(
        (config.streams.per_person, config.streams.per_replica),
        (2, 20)
    );
    let defaults = run(&BASE);
    assert_eq!(defaults.metrics_listen, None);
    assert_eq!(defaults.log_format, None);
    for (flag, value) in [
        ("--metrics-listen", "nowhere"),
        ("--drain-timeout", "soon"),
        ("--drain-timeout", "-1s"),
        ("--drain-timeout", "2h"),
        ("--drain-timeout", "61m"),
        ("--log-format", "xml"),
        ("--max-streams", "abc"),
        ("--max-streams", "0"),
        ("--max-streams-per-person", "-1"),
        ("--audit-checkpoint-interval", "60"),
        ("--listen", "nowhere"),
    ] {
        let error = with(&[flag, value]).unwrap_err();
        assert!(
            error.contains(&format!("invalid value '{value}' for '{flag} ")),
            "{error}"
        );
    }
}

#[test]
fn flags_win_over_the_environment_and_equals_works() {
    let env = [
        ("KODER_RELAY_SERVICE_TOKEN", &*format!("env-{TOKEN}")),
        ("KODER_RELAY_JWT_SECRET", &*format!("env-{SECRET}")),
        ("KODER_RELAY_LISTEN", "127.0.0.1:0"),
        ("KODER_RELAY_JWT_AUDIENCE", "env-audience"),
        ("KODER_RELAY_JWT_ISSUER", "https://idp.example"),
        ("KODER_RELAY_WORKSPACE_CLAIM", "https://app.example/ws"),
        ("KODER_RELAY_MAX_STREAMS", "7"),
    ];
    let token = format!("--service-token={TOKEN}");
    let config = run_with(
        &[
            &token,
            "--allow-origin",
            "https://a.example",
            "--allow-origin=http://localhost:5173",
            "--jwt-audience",
            "flag-audience",
            "--conversation-claim=conv",
        ],
        &env,
    );
    assert_eq!(config.auth.service_token.expose(), TOKEN);
    assert_eq!(
        config.auth.jwt_secret,
        Some(Secret::from(format!("env-{SECRET}")))
    );
    assert_eq!(config.listen.port(), 0);
    assert_eq!(config.auth.jwt_audience, "flag-audience");
    assert_eq!(
        config.auth.jwt_issuer.as_deref(),
        Some("https://idp.example")
    );
    assert_eq!(config.auth.workspace_claim, "https://app.example/ws");
    assert_eq!(config.auth.conversation_claim, "conv");
    assert_eq!(config.streams.per_replica, 7);
    assert_eq!(
        config.allow_origins,
        ["https://a.example", "http://localhost:5173"]
    );
    // Origins from the environment, comma-separated.
    let config = run_with(
        &BASE,
        &[(
            "KODER_RELAY_ALLOW_ORIGIN",
            "https://a.example,https://b.example",
        )],
    );
    assert_eq!(
        config.allow_origins,
        ["https://a.example", "https://b.example"]
    );
    // A bad value from the environment names the flag it stands for.
    let error = parse_with(&BASE, &[("KODER_RELAY_RETENTION", "30")]).unwrap_err();
    assert!(error.contains("'--retention <DURATION>'"), "{error}");
}

#[test]
fn a_secret_may_begin_with_a_hyphen_as_base64url_ones_do() {
    let token = format!("-{TOKEN}");
    let (secret, previous) = (format!("-{SECRET}"), format!("--{SECRET}"));
    let config = run(&[
        "--service-token",
        &token,
        "--jwt-secret",
        &secret,
        "--jwt-previous-secret",
        &previous,
    ]);
    assert_eq!(config.auth.service_token.expose(), token);
    assert_eq!(
        config.auth.jwt_secret.as_ref().map(Secret::expose),
        Some(secret.as_str())
    );
    assert_eq!(
        config.auth.jwt_previous_secret.as_ref().map(Secret::expose),
        Some(previous.as_str())
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
    assert_eq!(config.auth.service_token.expose(), TOKEN);
    assert_eq!(
        config.auth.jwt_secret.as_ref().map(Secret::expose),
        Some(SECRET)
    );
    let config = run_with(
        &["--service-token", TOKEN],
        &[("KODER_RELAY_JWT_SECRET_FILE", secret_path)],
    );
    assert_eq!(
        config.auth.jwt_secret.as_ref().map(Secret::expose),
        Some(SECRET)
    );
    // A file on the command line wins over a secret in the environment.
    let env_secret = format!("env-{SECRET}");
    let config = run_with(
        &["--service-token", TOKEN, "--jwt-secret-file", secret_path],
        &[("KODER_RELAY_JWT_SECRET", &env_secret)],
    );
    assert_eq!(
        config.auth.jwt_secret.as_ref().map(Secret::expose),
        Some(SECRET)
    );
    // Both forms in the environment are one too many.
    assert!(parse_with(
        &["--service-token", TOKEN],
        &[
            ("KODER_RELAY_JWT_SECRET", &env_secret),
            ("KODER_RELAY_JWT_SECRET_FILE", secret_path)
        ],
    )
    .unwrap_err()
    .contains("not both"));
    assert!(with(&["--jwt-secret-file", secret_path])
        .unwrap_err()
        .contains("not both"));
    std::fs::write(&secret_file, "short\n").unwrap();
    let short = parse(&["--service-token", TOKEN, "--jwt-secret-file", secret_path]).unwrap_err();
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
    assert_eq!(config.auth.jwt_secret, None);
    assert_eq!(
        config.auth.jwks_url.as_deref(),
        Some("https://idp.example/jwks.json")
    );
    let previous = SECRET.repeat(2);
    let config = with(&[
        "--jwt-previous-secret",
        &previous,
        "--jwks-url",
        "file:///etc/relay/jwks.json",
    ]);
    let Ok(Command::Run(config)) = config else {
        panic!("should run: {config:?}");
    };
    assert_eq!(
        config.auth.jwt_previous_secret,
        Some(Secret::from(previous))
    );
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
        .contains("missing secret: set --service-token"));
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
        short.contains("--service-token is 1 bytes; give at least 32"),
        "{short}"
    );
    let short = parse(&["--service-token", TOKEN, "--jwt-secret", &SECRET[..31]]).unwrap_err();
    assert!(short.contains("--jwt-secret is 31 bytes"), "{short}");
    assert!(parse(&["--service-token", TOKEN, "--jwt-secret", &SECRET[..32]]).is_ok());
    // The secret itself is never repeated in a refusal.
    assert!(!short.contains(&SECRET[..31]), "{short}");
    assert!(with(&["--jwt-previous-secret", "p"])
        .unwrap_err()
        .contains("--jwt-previous-secret is 1 bytes"));
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
    assert!(parse(&["--bogus"]).unwrap_err().contains("'--bogus'"));
    assert!(parse(&["--listen"]).unwrap_err().contains("--listen"));
    assert!(with(&["--database", "mysql://user:hunter2@x"])
        .unwrap_err()
        .contains("--database \"mysql://user:***@x\" must start with sqlite: or postgres://"));
    assert!(with(&["--allow-origin", "https://a.example/path"])
        .unwrap_err()
        .contains("--allow-origin"));
    for flag in [
        "--jwt-audience",
        "--jwt-issuer",
        "--workspace-claim",
        "--conversation-claim",
    ] {
        let error = with(&[flag, ""]).unwrap_err();
        assert!(
            error.contains(flag) && error.contains("is empty"),
            "{error}"
        );
    }
    let help = parse(&["--help"]).unwrap_err();
    assert!(
        help.contains("--allow-origin") && help.contains("KODER_RELAY_RETENTION"),
        "{help}"
    );
}

#[test]
fn webhooks_take_a_url_and_a_key_from_the_environment_or_a_file_only() {
    const KEY: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let webhooks = |extra: &[&str], key: Option<&str>| {
        let mut args = BASE.to_vec();
        args.extend_from_slice(extra);
        let env: Vec<(&str, &str)> = key
            .map(|key| (WEBHOOK_SECRET_ENV, key))
            .into_iter()
            .collect();
        parse_with(&args, &env)
    };
    let Ok(Command::Run(config)) =
        webhooks(&["--webhook-url", "https://h.example/hook"], Some(KEY))
    else {
        panic!("should run");
    };
    let webhook = config.webhook.as_ref().unwrap();
    assert_eq!(webhook.url.as_str(), "https://h.example/hook");
    assert_eq!(webhook.retries, RetrySchedule::default());
    assert!(!format!("{config:?}").contains("MfKQ"));
    assert!(!format!("{config:?}").contains("/hook"));
    assert_eq!(run(&BASE).webhook, None);
    // No flag takes the key itself.
    assert!(webhooks(&["--webhook-secret", KEY], None)
        .unwrap_err()
        .contains("'--webhook-secret'"));
    let missing = webhooks(&["--webhook-url", "https://h.example/"], None).unwrap_err();
    assert!(missing.contains(WEBHOOK_SECRET_ENV), "{missing}");
    assert!(webhooks(&["--webhook-url", "http://h.example/"], Some(KEY))
        .unwrap_err()
        .contains("https://"));
    assert!(webhooks(&[], Some(KEY))
        .unwrap_err()
        .contains("--webhook-url is not"));
    assert!(webhooks(
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
    let Ok(Command::Run(config)) = webhooks(
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
    let from_file = [
        "--webhook-url",
        "https://h.example/",
        "--webhook-secret-file",
        key_path,
    ];
    assert_eq!(
        webhooks(&from_file, None).unwrap(),
        webhooks(&["--webhook-url", "https://h.example/"], Some(KEY)).unwrap()
    );
    assert!(webhooks(&from_file, Some(KEY))
        .unwrap_err()
        .contains("not both"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn retention_takes_a_duration_with_a_unit_and_defaults_to_30_days() {
    assert_eq!(DEFAULT_RETENTION, Duration::from_secs(30 * 86_400));
    assert_eq!(parse_duration("30d"), Some(DEFAULT_RETENTION));
    assert_eq!(parse_duration("30s"), Some(DEFAULT_DRAIN_TIMEOUT));
    for (text, seconds) in [("3s", 3), ("15m", 900), ("12h", 43_200), ("30d", 2_592_000)] {
        assert_eq!(
            run(&[&BASE[..], &["--retention", text]].concat()).retention,
            Duration::from_secs(seconds),
            "{text}"
        );
    }
    let config = run_with(
        &[],
        &[
            ("KODER_RELAY_RETENTION", "7d"),
            ("KODER_RELAY_SERVICE_TOKEN", TOKEN),
            ("KODER_RELAY_JWT_SECRET", SECRET),
        ],
    );
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
        let error = with(&["--retention", bad]).unwrap_err();
        assert!(
            error.contains(&format!(
                "invalid value '{bad}' for '--retention <DURATION>': must be a duration like 3s, 15m, 12h or 30d"
            )),
            "{error}"
        );
    }
}

#[test]
fn audit_verify_takes_the_database_and_a_checkpoint() {
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
    assert_eq!(
        parse_with(
            &["audit", "verify"],
            &[("KODER_RELAY_DATABASE", "sqlite://env.db")]
        ),
        verify("sqlite://env.db")
    );
    // The relay's other settings in the environment do not get in the way.
    assert_eq!(
        parse_with(
            &["audit", "verify"],
            &[
                ("KODER_RELAY_LISTEN", "127.0.0.1:0"),
                ("KODER_RELAY_SERVICE_TOKEN", TOKEN)
            ]
        ),
        verify(DEFAULT_DATABASE)
    );
    assert!(parse(&["audit"]).is_err());
    assert!(parse(&["audit", "verify", "--listen", "x"])
        .unwrap_err()
        .contains("--listen"));
    assert!(parse(&["--listen", "127.0.0.1:0", "audit", "verify"]).is_err());
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
fn audit_checkpoint_interval_takes_a_duration_and_defaults_to_a_minute() {
    let defaults = run(&BASE);
    assert_eq!(defaults.audit_checkpoint_interval, Duration::from_secs(60));
    let args = [&BASE[..], &["--audit-checkpoint-interval", "250ms"]].concat();
    assert_eq!(
        run(&args).audit_checkpoint_interval,
        Duration::from_millis(250)
    );
    let args = [&BASE[..], &["--audit-checkpoint-interval", "often"]].concat();
    let error = parse(&args).unwrap_err();
    assert!(
        error.contains("'--audit-checkpoint-interval <DURATION>'"),
        "{error}"
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

#[test]
fn web_push_needs_a_vapid_key_and_a_subject_and_its_flags_refuse_nonsense() {
    let key = koder_web_push::VapidKey::generate();
    let pem = key.to_pkcs8_pem();
    let dir = std::env::temp_dir().join(format!("koder-relay-vapid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("vapid.pem");
    std::fs::write(&key_file, &pem).unwrap();
    let key_path = key_file.to_str().unwrap();
    let subject = ["--vapid-subject", "mailto:ops@example.com"];

    // Off by default, and no push flag without a key.
    assert_eq!(run(&BASE).push, None);
    for flag in [
        &["--vapid-subject", "mailto:ops@example.com"][..],
        &["--push-endpoint-allow", "https://push.example.com"],
        &["--push-open-url", "https://chat.example.com/{id}"],
        &["--push-remind-before", "1m"],
        &["--push-subscriptions-per-person", "3"],
    ] {
        let error = with(flag).unwrap_err();
        assert!(
            error.contains(&format!("{} is set but Web Push has no VAPID key", flag[0])),
            "{error}"
        );
    }

    // A key file with a subject: the browsers' push services, the defaults.
    let mut args = vec!["--vapid-private-key-file", key_path];
    args.extend_from_slice(&subject);
    let push = run(&[&BASE[..], &args].concat()).push.unwrap();
    assert_eq!(push.public_key(), key.public_key_base64url());
    assert_eq!(push.subject, "mailto:ops@example.com");
    assert_eq!(
        push.allow,
        koder_elicitation_relay::channels::push::AllowList::browsers()
    );
    assert_eq!(
        (push.open_url, push.remind_before, push.per_person),
        (None, None, 10)
    );

    // The PEM itself from the environment, the rest from theirs.
    let config = run_with(
        &BASE,
        &[
            (VAPID_PRIVATE_KEY_ENV, pem.as_str()),
            (
                "KODER_RELAY_VAPID_SUBJECT",
                "https://relay.example.com/contact",
            ),
            (
                "KODER_RELAY_PUSH_ENDPOINT_ALLOW",
                "http://127.0.0.1:9000,https://*.push.example",
            ),
            (
                "KODER_RELAY_PUSH_OPEN_URL",
                "https://chat.example.com/c/{conversationId}",
            ),
            ("KODER_RELAY_PUSH_REMIND_BEFORE", "90s"),
            ("KODER_RELAY_PUSH_SUBSCRIPTIONS_PER_PERSON", "2"),
        ],
    );
    let push = config.push.unwrap();
    assert_eq!(push.public_key(), key.public_key_base64url());
    assert_eq!(
        push.allow.origins(),
        ["http://127.0.0.1:9000", "https://*.push.example"]
    );
    assert_eq!(
        push.open_url("e 1", "w", "c/1").as_deref(),
        Some("https://chat.example.com/c/c%2F1")
    );
    assert_eq!(push.remind_before, Some(Duration::from_secs(90)));
    assert_eq!(push.per_person, 2);

    // A key needs a subject; the file on the command line wins over the PEM in the
    // environment; both in the environment is a refusal.
    let error = with(&["--vapid-private-key-file", key_path]).unwrap_err();
    assert!(
        error.contains("--vapid-subject is required with a VAPID key"),
        "{error}"
    );
    let other = koder_web_push::VapidKey::generate().to_pkcs8_pem();
    let config = run_with(
        &[&BASE[..], &args].concat(),
        &[(VAPID_PRIVATE_KEY_ENV, other.as_str())],
    );
    assert_eq!(
        config.push.unwrap().public_key(),
        key.public_key_base64url()
    );
    let error = parse_with(
        &[&BASE[..], &subject].concat(),
        &[
            (VAPID_PRIVATE_KEY_ENV, other.as_str()),
            ("KODER_RELAY_VAPID_PRIVATE_KEY_FILE", key_path),
        ],
    )
    .unwrap_err();
    assert!(error.contains("not both"), "{error}");

    // Bad values name their flag.
    let not_a_key = dir.join("not-a-key.pem");
    std::fs::write(&not_a_key, "hello").unwrap();
    let missing = dir.join("missing.pem");
    for (extra, expected) in [
        (
            vec!["--vapid-private-key-file", not_a_key.to_str().unwrap()],
            "--vapid-private-key-file",
        ),
        (
            vec!["--vapid-private-key-file", missing.to_str().unwrap()],
            "--vapid-private-key-file",
        ),
        (
            vec!["--vapid-subject", "ops@example.com"],
            "'--vapid-subject",
        ),
        (
            vec!["--vapid-subject", "http://relay.example.com"],
            "'--vapid-subject",
        ),
        (
            vec!["--push-endpoint-allow", "https://a.example/path"],
            "'--push-endpoint-allow",
        ),
        (
            vec!["--push-endpoint-allow", "http://*.example.com"],
            "'--push-endpoint-allow",
        ),
        (
            vec!["--push-endpoint-allow", "fcm.googleapis.com"],
            "'--push-endpoint-allow",
        ),
        (
            vec!["--push-open-url", "chat.example.com/{id}"],
            "'--push-open-url",
        ),
        (
            vec!["--push-open-url", "https://chat.example.com/{user}"],
            "'--push-open-url",
        ),
        (vec!["--push-remind-before", "60"], "'--push-remind-before"),
        (
            vec!["--push-subscriptions-per-person", "0"],
            "'--push-subscriptions-per-person",
        ),
    ] {
        let mut all = subject.to_vec();
        if extra[0] != "--vapid-private-key-file" {
            all.extend(["--vapid-private-key-file", key_path]);
        }
        all.extend(extra);
        let error = with(&all).unwrap_err();
        assert!(error.contains(expected), "{expected}: {error}");
    }
    let error = parse_with(
        &[&BASE[..], &subject].concat(),
        &[(VAPID_PRIVATE_KEY_ENV, "nope")],
    )
    .unwrap_err();
    assert!(error.contains(VAPID_PRIVATE_KEY_ENV), "{error}");
    assert!(!format!("{:?}", run(&[&BASE[..], &args].concat())).contains("PRIVATE KEY"));
    let help = parse(&["--help"]).unwrap_err();
    assert!(
        help.contains("--vapid-private-key-file") && help.contains("KODER_RELAY_PUSH_OPEN_URL"),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_answer_page_needs_its_origin_and_the_elements_files() {
    let dir = std::env::temp_dir().join(format!("koder-relay-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("koder-mcp-elicitation.js"), "export {};").unwrap();
    let dist = dir.to_str().unwrap();
    let page = |extra: &[&str]| {
        let mut args = vec!["--answer-page", "--answer-page-assets", dist];
        args.extend_from_slice(extra);
        with(&args)
    };

    // Off by default; on with an origin (kept without a trailing slash) and the files.
    assert_eq!(run(&BASE).answer_page, None);
    let Command::Run(config) = page(&["--public-url", "https://relay.example.com/"]).unwrap()
    else {
        panic!("should run");
    };
    let settings = config.answer_page.unwrap();
    assert_eq!(settings.public_url, "https://relay.example.com");
    assert_eq!(settings.assets, dir);
    assert_eq!(
        settings.link_url("t0k"),
        "https://relay.example.com/answer/#t=t0k"
    );
    // The same from the environment.
    let config = run_with(
        &BASE,
        &[
            ("KODER_RELAY_ANSWER_PAGE", "true"),
            ("KODER_RELAY_PUBLIC_URL", "http://localhost:8790"),
            ("KODER_RELAY_ANSWER_PAGE_ASSETS", dist),
        ],
    );
    assert_eq!(
        config.answer_page.unwrap().public_url,
        "http://localhost:8790"
    );
    // The image sets the assets for everyone: off, they wait unread.
    let config = run_with(&BASE, &[("KODER_RELAY_ANSWER_PAGE_ASSETS", "/nowhere")]);
    assert_eq!(config.answer_page, None);
    let config = run_with(&BASE, &[("KODER_RELAY_ANSWER_PAGE", "false")]);
    assert_eq!(config.answer_page, None);

    // Each refusal names the flag to set.
    for (extra, needle) in [
        (&[][..], "--answer-page needs --public-url"),
        (
            &["--public-url", "http://relay.example.com"],
            "must start with https://",
        ),
        (
            &["--public-url", "https://relay.example.com/relay"],
            "--public-url",
        ),
        (
            &["--public-url", "https://relay.example.com?x=1"],
            "--public-url",
        ),
    ] {
        let error = page(extra).unwrap_err();
        assert!(error.contains(needle), "{extra:?}: {error}");
    }
    let error = with(&["--answer-page", "--public-url", "https://relay.example.com"]).unwrap_err();
    assert!(error.contains("--answer-page-assets"), "{error}");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let error = with(&[
        "--answer-page",
        "--public-url",
        "https://relay.example.com",
        "--answer-page-assets",
        empty.to_str().unwrap(),
    ])
    .unwrap_err();
    assert!(
        error.contains("--answer-page-assets") && error.contains("koder-mcp-elicitation.js"),
        "{error}"
    );
    for flag in [
        &["--public-url", "https://relay.example.com"][..],
        &["--answer-page-assets", dist],
    ] {
        let error = with(flag).unwrap_err();
        assert!(
            error.contains(&format!("{} is set but the answer page is off", flag[0])),
            "{error}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn e_mail_needs_an_smtp_url_a_sender_and_the_answer_page_and_its_password_never_a_flag() {
    let dir = std::env::temp_dir().join(format!("koder-relay-mail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("koder-mcp-elicitation.js"), "export {};").unwrap();
    let password_file = dir.join("smtp-password");
    std::fs::write(&password_file, "from-a-file\n").unwrap();
    let dist = dir.to_str().unwrap();
    let mut args = BASE.to_vec();
    args.extend_from_slice(&[
        "--answer-page",
        "--answer-page-assets",
        dist,
        "--public-url",
        "https://relay.example.com",
        "--smtp-url",
        "smtps://mail.example.com",
        "--email-from",
        "Relay <relay@example.com>",
    ]);
    let mailing = |extra: &[&str], env: &[(&str, &str)]| {
        let mut all = args.clone();
        all.extend_from_slice(extra);
        parse_with(&all, env)
    };

    // Off by default; with a URL and a sender, no domain is allowed and nothing waits.
    assert_eq!(run(&BASE).email, None);
    let Ok(Command::Run(config)) = mailing(&[], &[]) else {
        panic!("should run");
    };
    let email = config.email.clone().unwrap();
    assert_eq!(
        (email.smtp.host.as_str(), email.smtp.port),
        ("mail.example.com", 465)
    );
    assert!(email.allow_domains.is_empty());
    assert_eq!(email.after, Duration::ZERO);
    assert!(config.outboxes().queues_to("email"));
    assert!(!config.outboxes().queues_to("webhook"));

    // The rest from flags and the environment; the password from the environment or a file.
    let Ok(Command::Run(config)) = mailing(
        &[
            "--smtp-user",
            "mailer",
            "--email-allow-domain",
            "Example.com,@example.org",
        ],
        &[
            ("KODER_RELAY_SMTP_PASSWORD", "from-the-environment"),
            ("KODER_RELAY_EMAIL_AFTER", "30s"),
        ],
    ) else {
        panic!("should run");
    };
    let email = config.email.clone().unwrap();
    assert_eq!(email.allow_domains, ["example.com", "example.org"]);
    assert_eq!(email.after, Duration::from_secs(30));
    assert_eq!(
        email.password.as_ref().map(|password| password.expose()),
        Some("from-the-environment")
    );
    assert!(!format!("{email:?}").contains("from-the-environment"));
    assert!(!format!("{config:?}").contains("from-the-environment"));
    let file = password_file.to_str().unwrap();
    let Ok(Command::Run(config)) = mailing(
        &["--smtp-user", "mailer", "--smtp-password-file", file],
        &[],
    ) else {
        panic!("should run");
    };
    assert_eq!(
        config
            .email
            .unwrap()
            .password
            .as_ref()
            .map(|password| password.expose()),
        Some("from-a-file")
    );

    // Refusals name the flag.
    for (extra, named) in [
        (&["--smtp-password", "x"][..], "--smtp-password"),
        (&["--smtp-user", "mailer"][..], "KODER_RELAY_SMTP_PASSWORD"),
        (&["--email-after", "soon"][..], "--email-after"),
        (
            &["--email-allow-domain", "exa mple.com"][..],
            "--email-allow-domain",
        ),
    ] {
        let error = mailing(extra, &[]).unwrap_err();
        assert!(error.contains(named), "{extra:?}: {error}");
    }
    for (extra, named) in [
        (&["--smtp-url", "http://mail.example.com"][..], "--smtp-url"),
        (
            &[
                "--smtp-url",
                "smtp://mail.example.com",
                "--answer-page-assets",
                dist,
            ][..],
            "--email-from",
        ),
        (&["--email-allow-domain", "example.com"][..], "--smtp-url"),
        (
            &[
                "--smtp-url",
                "smtp://mail.example.com",
                "--email-from",
                "relay@example.com",
            ][..],
            "--answer-page",
        ),
    ] {
        let error = with(extra).unwrap_err();
        assert!(error.contains(named), "{extra:?}: {error}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
