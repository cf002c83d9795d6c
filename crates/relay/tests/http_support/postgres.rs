//! A throwaway PostgreSQL from scripts/pg-temp.sh for the http_* tests; stopped on drop, also
//! when a check failed.

use std::process::Command;

use super::TempDir;

pub struct Postgres {
    dir: TempDir,
    pub url: String,
}

fn pg_temp(action: &str, dir: &TempDir) -> Result<String, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/pg-temp.sh");
    let output = Command::new("bash")
        .arg(script)
        .arg(action)
        .arg(&dir.0)
        .output()
        .map_err(|error| format!("cannot run {script}: {error}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        Err(format!(
            "scripts/pg-temp.sh {action} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

impl Postgres {
    pub fn start() -> Postgres {
        let dir = TempDir::new("pg");
        let url = pg_temp("start", &dir).unwrap_or_else(|error| {
            panic!("PostgreSQL is required for these tests and could not start: {error}")
        });
        Postgres { dir, url }
    }

    /// Stops the server (`pg_ctl stop -m fast`), keeping its data for [`Postgres::start_again`].
    pub fn stop(&self) -> Result<String, String> {
        pg_temp("stop", &self.dir)
    }

    /// Starts the stopped server again on its data and port; its URL.
    pub fn start_again(&self) -> Result<String, String> {
        pg_temp("start", &self.dir)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Err(error) = pg_temp("stop", &self.dir) {
            eprintln!("{error}");
        }
    }
}
