//! `koder-elicitation-relay`: runs the relay until SIGTERM or SIGINT, then drains and exits within
//! the drain timeout (a second signal exits at once). See `--help`.

#![deny(missing_docs, missing_debug_implementations)]

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use koder_elicitation_relay::cli::{parse_command, Command};

/// Exit code for a bad command line or a missing secret.
const USAGE_ERROR: u8 = 2;

fn main() -> ExitCode {
    let config = match parse_command(std::env::args_os()) {
        Ok(Command::Run(config)) => *config,
        Ok(Command::AuditVerify {
            database,
            checkpoint,
        }) => return verify_audit(&database, checkpoint.as_deref()),
        Ok(Command::VapidGenerate { out }) => return generate_vapid_key(out.as_deref()),
        // `--help` (stdout, exit 0), or what is wrong with the command line (stderr, exit 2).
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(USAGE_ERROR)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    koder_elicitation_relay::logging::init(config.log_format);
    check_open_files(config.streams.per_replica);
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    runtime.block_on(async move {
        let server = match koder_elicitation_relay::serve(config).await {
            Ok(server) => server,
            Err(error) => {
                tracing::error!(%error, "cannot start");
                return ExitCode::FAILURE;
            }
        };
        let mut stdout = std::io::stdout();
        // Exactly one line; whoever started us waits for it.
        let _ = writeln!(stdout, "listening on {}", server.url());
        let _ = stdout.flush();
        stop_signal().await;
        tracing::info!("stopping: draining streams and long-polls");
        tokio::select! {
            stopped = server.shutdown() => match stopped {
                Ok(()) => {
                    tracing::info!("stopped");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    tracing::error!(%error, "shutdown failed");
                    ExitCode::FAILURE
                }
            },
            () = stop_signal() => {
                tracing::warn!("a second stop signal: exiting without waiting for open requests");
                ExitCode::FAILURE
            }
        }
    })
}

/// The async runtime, or `None` after saying on stderr why it cannot start.
fn runtime() -> Option<tokio::runtime::Runtime> {
    let built = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    built
        .inspect_err(|error| {
            eprintln!("koder-elicitation-relay: cannot start the async runtime: {error}")
        })
        .ok()
}

/// `audit verify`: one line on stdout and exit 0 when the chain is intact; one line on stderr
/// naming the first broken entry (or why the database could not be read) and exit 1.
fn verify_audit(database: &str, checkpoint: Option<&str>) -> ExitCode {
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    match runtime.block_on(koder_elicitation_relay::audit_verify::verify_database(
        database, checkpoint,
    )) {
        Ok(verified) => {
            let held = verified
                .checkpoint
                .map(|found| format!("; checkpoint {} (seq {}) holds", found.hash, found.seq))
                .unwrap_or_default();
            let unsealed = match verified.unsealed {
                0 => String::new(),
                n => format!(
                    "; {n} recorded change(s) not sealed yet, so not verified (a running relay \
                     seals them within a second, a stopped one when it starts)"
                ),
            };
            println!(
                "audit chain intact: {} entries in {} chains, heads hash {}{held}{unsealed}",
                verified.entries, verified.chains, verified.heads.hash
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("koder-elicitation-relay: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `vapid generate`: a new VAPID key pair. Without `out`: the PEM on stdout and the public key
/// on stderr (so `> vapid.pem` keeps only the key). With `out`: the PEM in a new file only its
/// owner may read (an existing file is never overwritten), the public key on stdout.
fn generate_vapid_key(out: Option<&Path>) -> ExitCode {
    let key = koder_web_push::VapidKey::generate();
    let pem = key.to_pkcs8_pem();
    let public_key = key.public_key_base64url();
    let Some(path) = out else {
        print!("{pem}");
        eprintln!("public key: {public_key}");
        return ExitCode::SUCCESS;
    };
    match write_new_private_file(path, pem.as_bytes()) {
        Ok(()) => {
            println!("{public_key}");
            ExitCode::SUCCESS
        }
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            eprintln!(
                "koder-elicitation-relay: {} exists already; not overwriting a key (remove it \
                 first, or choose another --out)",
                path.display()
            );
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!(
                "koder-elicitation-relay: cannot write {}: {error}",
                path.display()
            );
            ExitCode::FAILURE
        }
    }
}

/// Creates `path` (failing when it exists), readable and writable by its owner only, and
/// writes `contents`.
fn write_new_private_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

/// Descriptors the relay needs besides its streams: listeners, database connections, files.
const SPARE_FILES: u64 = 256;

/// Raises the open-files soft limit to the hard limit (each open stream holds a descriptor, and
/// the usual soft limit of 1,024 is far below `--max-streams`), and warns when even the hard
/// limit cannot hold `max_streams`: past it, connections are refused by the system, not by the
/// relay's 503.
fn check_open_files(max_streams: usize) {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct it is given, which lives on this stack.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: setrlimit only reads the struct it is given.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit = raised;
            }
        }
        let needed = u64::try_from(max_streams)
            .unwrap_or(u64::MAX)
            .saturating_add(SPARE_FILES);
        #[allow(clippy::unnecessary_cast)] // rlim_t is u64 on Linux, not everywhere.
        let open_files = limit.rlim_cur as u64;
        if open_files < needed {
            tracing::warn!(
                open_files,
                max_streams,
                "the open-files limit is below --max-streams: raise it (systemd LimitNOFILE=, \
                 ulimit -n) or lower --max-streams"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = max_streams;
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C elsewhere).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut terminate), Ok(mut interrupt)) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt.recv() => {}
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
