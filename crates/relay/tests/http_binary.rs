//! The `koder-elicitation-relay` binary as its users start it: flags, environment, the one
//! `listening on` line, exit codes, and a graceful stop on SIGTERM.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use http_support::{create_body, person, TempDir, JWT_SECRET};

/// The binary's own secrets (people's tokens in these tests are minted with another one).
const TOKEN: &str = "binary-service-token-0123456789abcdef";
const SECRET: &str = "binary-jwt-secret-0123456789abcdef01";

const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");

fn relay_command(cwd: &Path) -> Command {
    let mut command = Command::new(BINARY);
    command
        .current_dir(cwd)
        .env_remove("KODER_RELAY_SERVICE_TOKEN")
        .env_remove("KODER_RELAY_JWT_SECRET")
        .env_remove("KODER_RELAY_SERVICE_TOKEN_FILE")
        .env_remove("KODER_RELAY_JWT_SECRET_FILE")
        .env_remove("KODER_RELAY_JWT_PREVIOUS_SECRET")
        .env_remove("KODER_RELAY_JWKS_URL")
        .env_remove("KODER_RELAY_DATABASE")
        // Never the fixed default port in tests: another run may hold it.
        .env("KODER_RELAY_LISTEN", "127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A started relay, killed when dropped so a failing test leaves no process behind.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for the first stdout line; returns it and a receiver of any further lines.
fn first_line(child: &mut Child) -> (String, mpsc::Receiver<String>) {
    let stdout = child.stdout.take().unwrap();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let line = receiver
        .recv_timeout(Duration::from_secs(20))
        .expect("a `listening on` line within 20 s");
    (line, receiver)
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<i32> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    None
}

#[tokio::test]
async fn two_secrets_start_it_on_sqlite_in_the_working_directory() {
    let temp = TempDir::new("bin");
    let dir = &temp.0;
    let mut running = Running(
        relay_command(dir)
            .args(["--service-token", TOKEN, "--jwt-secret", SECRET])
            .spawn()
            .unwrap(),
    );
    let child = &mut running.0;
    let (line, more) = first_line(child);
    let url = line
        .strip_prefix("listening on http://127.0.0.1:")
        .map(|port| format!("http://127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    assert_ne!(port, 0);
    assert!(dir.join("koder-elicitation-relay.db").exists());

    let client = koder_elicitation_relay_client::http_client().unwrap();
    let created = client
        .post(format!("{url}/v1/elicitations"))
        .header("authorization", format!("Bearer {TOKEN}"))
        .body(create_body("u", "w", "").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    // Wrong secret for people's tokens: the binary uses the one given.
    let listed = client
        .get(format!("{url}/v1/elicitations"))
        .header("authorization", format!("Bearer {}", person("u", "w")))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 401);

    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    assert_eq!(wait_exit(child, Duration::from_secs(10)), Some(0));
    assert!(
        more.try_iter().next().is_none(),
        "exactly one line on stdout"
    );
}

#[test]
fn secrets_from_the_environment_and_clear_refusals() {
    let temp = TempDir::new("bin");
    let dir = &temp.0;
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = relay_command(dir);
        command.args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        let mut running = Running(command.spawn().unwrap());
        let child = &mut running.0;
        let code = wait_exit(child, Duration::from_secs(10));
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        (code, stdout, stderr)
    };
    let (code, _, stderr) = run(&["--jwt-secret", SECRET], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("missing secret"), "{stderr}");
    assert!(stderr.contains("KODER_RELAY_SERVICE_TOKEN"), "{stderr}");
    let (code, _, stderr) = run(&["--service-token", TOKEN], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("KODER_RELAY_JWT_SECRET"), "{stderr}");
    assert!(stderr.contains("--jwks-url"), "{stderr}");
    // A short secret stops the start, naming where it came from.
    let (code, _, stderr) = run(&["--service-token", TOKEN, "--jwt-secret", "b"], &[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("--jwt-secret is 1 bytes; give at least 32"),
        "{stderr}"
    );
    let (code, _, stderr) = run(
        &[],
        &[
            ("KODER_RELAY_SERVICE_TOKEN", "a"),
            ("KODER_RELAY_JWT_SECRET", SECRET),
        ],
    );
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--service-token is 1 bytes"), "{stderr}");
    let (code, _, stderr) = run(
        &[
            "--service-token",
            TOKEN,
            "--jwt-secret",
            SECRET,
            "--jwt-previous-secret",
            "p",
        ],
        &[],
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("--jwt-previous-secret is 1 bytes"),
        "{stderr}"
    );
    let (code, _, stderr) = run(
        &["--service-token", TOKEN, "--jwt-secret", SECRET, "--nope"],
        &[],
    );
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--nope"), "{stderr}");
    let (code, _, stderr) = run(
        &[
            "--service-token",
            TOKEN,
            "--jwt-secret",
            SECRET,
            "--listen",
            "everywhere",
        ],
        &[],
    );
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--listen"), "{stderr}");
    let (code, stdout, _) = run(&["--help"], &[]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("--allow-origin"), "{stdout}");

    // Both secrets from the environment, a database URL from the environment too.
    let mut running = Running(
        relay_command(dir)
            .env("KODER_RELAY_SERVICE_TOKEN", TOKEN)
            .env("KODER_RELAY_JWT_SECRET", SECRET)
            .env(
                "KODER_RELAY_DATABASE",
                format!("sqlite://{}", dir.join("env.db").display()),
            )
            .spawn()
            .unwrap(),
    );
    let (line, _) = first_line(&mut running.0);
    assert!(line.starts_with("listening on http://127.0.0.1:"), "{line}");
    assert!(dir.join("env.db").exists());
}

#[tokio::test]
async fn secrets_from_mounted_files_never_reach_the_command_line() {
    let temp = TempDir::new("bin");
    let dir = &temp.0;
    let token_file = dir.join("service-token");
    let secret_file = dir.join("jwt-secret");
    // As mounted secrets often are: with a trailing line break.
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    std::fs::write(&secret_file, format!("{JWT_SECRET}\n")).unwrap();
    let mut running = Running(
        relay_command(dir)
            .arg("--service-token-file")
            .arg(&token_file)
            .env("KODER_RELAY_JWT_SECRET_FILE", &secret_file)
            .spawn()
            .unwrap(),
    );
    let (line, _) = first_line(&mut running.0);
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    let client = koder_elicitation_relay_client::http_client().unwrap();
    let created = client
        .post(format!("{url}/v1/elicitations"))
        .header("authorization", format!("Bearer {TOKEN}"))
        .body(create_body("u", "w", "").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    // People's tokens signed with the file's secret are accepted.
    let listed = client
        .get(format!("{url}/v1/elicitations"))
        .header("authorization", format!("Bearer {}", person("u", "w")))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", running.0.id())).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline);
    assert!(
        !cmdline.contains(TOKEN) && !cmdline.contains(JWT_SECRET),
        "{cmdline}"
    );
}

#[test]
fn a_bad_flag_value_stops_the_start_naming_the_flag() {
    let temp = TempDir::new("bin");
    let dir = &temp.0;
    let refusal = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = relay_command(dir);
        command
            .args(["--service-token", TOKEN, "--jwt-secret", SECRET])
            .args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        assert!(
            output.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    for (args, env, needle) in [
        (
            &["--retention", "30"][..],
            &[][..],
            "invalid value '30' for '--retention <DURATION>': must be a duration like 3s, 15m, 12h or 30d",
        ),
        (
            &["--max-streams", "abc"],
            &[],
            "invalid value 'abc' for '--max-streams <N>': must be a whole number above 0",
        ),
        (
            &["--drain-timeout=2h"],
            &[],
            "invalid value '2h' for '--drain-timeout <DURATION>'",
        ),
        // From the environment, the message names the flag the variable stands for.
        (
            &[],
            &[("KODER_RELAY_MAX_STREAMS_PER_PERSON", "-1")],
            "invalid value '-1' for '--max-streams-per-person <N>'",
        ),
    ] {
        let (code, stderr) = refusal(args, env);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    // Nothing was started: no database was made.
    assert!(!dir.join("koder-elicitation-relay.db").exists());
}

#[test]
fn help_is_generated_from_the_flags_with_their_variables() {
    let temp = TempDir::new("bin");
    let output = relay_command(&temp.0)
        .env("KODER_RELAY_SERVICE_TOKEN", TOKEN)
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--listen",
        "--database",
        "--service-token",
        "--service-token-file",
        "--jwt-secret",
        "--jwt-secret-file",
        "--jwt-previous-secret",
        "--jwks-url",
        "--jwt-audience",
        "--jwt-issuer",
        "--workspace-claim",
        "--conversation-claim",
        "--allow-origin",
        "--max-streams-per-person",
        "--max-streams",
        "--webhook-url",
        "--webhook-secret-file",
        "--webhook-retry-scale",
        "--public-url",
        "--answer-page-assets",
        "--retention",
        "--metrics-listen",
        "--drain-timeout",
        "--audit-checkpoint-interval",
        "--log-format",
    ] {
        let variable = format!(
            "KODER_RELAY_{}",
            flag.trim_start_matches("--")
                .replace('-', "_")
                .to_uppercase()
        );
        assert!(help.contains(&format!("{flag} <")), "{flag}: {help}");
        assert!(help.contains(&variable), "{variable}: {help}");
    }
    // Help is wrapped at 100 columns: compared with its words on one line.
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for default in [
        "[default: 30d]",
        "[default: 127.0.0.1:8790]",
        "[default: 16]",
    ] {
        assert!(words.contains(default), "{default}: {help}");
    }
    assert!(help.contains("audit"), "{help}");
    // The value of a variable set in the environment is never shown.
    assert!(!help.contains(TOKEN), "{help}");
}
