//! `koder-elicitation-relay`: runs the relay until SIGTERM or SIGINT, then drains and exits within
//! the drain timeout (a second signal exits at once). See `--help`.

// A bad flag or a missing secret ends in a clear message and exit code 2, never a panic.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]
#![deny(missing_docs, missing_debug_implementations)]

use std::io::Write;
use std::process::ExitCode;

use koder_elicitation_relay::config::{parse_command, Command, USAGE};

/// Exit code for a bad command line or a missing secret.
const USAGE_ERROR: u8 = 2;

fn main() -> ExitCode {
    let command = parse_command(std::env::args().skip(1), |name| std::env::var(name).ok());
    let config = match command {
        Ok(Command::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(config)) => *config,
        Err(message) => {
            eprintln!("koder-elicitation-relay: {message}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    koder_elicitation_relay::logging::init(config.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
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
