//! Drives the real `koder-elicit` binary in a pseudo-terminal: a private tmux server per screen
//! (`send-keys` to type, `capture-pane` to read what a person would see).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// How long any one wait may take before the test fails with the screen it saw.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_koder-elicit")
}

/// The workspace root (for node_modules and demo/).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "koder-elicit-test-{}-{}-{}",
        std::process::id(),
        name,
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Single-quotes a word for sh.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

pub struct Screen {
    socket: String,
    pub dir: PathBuf,
}

/// What the finished command left.
#[derive(Debug)]
pub struct Finished {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    /// `stty -a` right after the command: proves the terminal was restored.
    pub stty: String,
}

impl Screen {
    /// Runs `koder-elicit ARGS` in a `width`×`height` terminal with `env` set (and the locale
    /// variables cleared unless given), inside `dir`.
    pub fn start(
        dir: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        width: u16,
        height: u16,
    ) -> Screen {
        Screen::start_with_stdin(dir, args, env, width, height, None)
    }

    /// Like [`Screen::start`], with stdin redirected from a file in `dir` (the terminal stays
    /// the controlling TTY).
    pub fn start_with_stdin(
        dir: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        width: u16,
        height: u16,
        stdin: Option<&str>,
    ) -> Screen {
        let tmux_ok = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            tmux_ok,
            "tmux is required for the terminal tests: install it (scripts/bootstrap.sh does: apt-get install tmux)"
        );
        for leftover in ["status.txt", "out.txt", "err.txt", "stty.txt"] {
            let _ = std::fs::remove_file(dir.join(leftover));
        }
        // A private server whose socket lives (and goes) with the scratch directory.
        let socket = dir
            .join(format!("tmux-{}.sock", NEXT.fetch_add(1, Ordering::SeqCst)))
            .to_string_lossy()
            .into_owned();
        let mut command = String::from("env -u LC_ALL -u LC_MESSAGES -u LANG -u NO_COLOR -u BROWSER -u EDITOR -u VISUAL TERM=xterm-256color");
        for (name, value) in env {
            command.push_str(&format!(" {name}={}", quote(value)));
        }
        command.push(' ');
        command.push_str(&quote(binary()));
        for arg in args {
            command.push(' ');
            command.push_str(&quote(arg));
        }
        if let Some(file) = stdin {
            command.push_str(&format!(" < {}", quote(file)));
        }
        let script = format!(
            "cd {dir} && {command} > out.txt 2> err.txt; echo $? > status.tmp; stty -a > stty.txt 2>&1; mv status.tmp status.txt; sleep 600",
            dir = quote(&dir.to_string_lossy())
        );
        let started = Command::new("tmux")
            .args(["-u", "-S", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["sh", "-c", &script])
            .status()
            .unwrap();
        assert!(started.success(), "tmux new-session failed");
        Screen {
            socket,
            dir: dir.to_path_buf(),
        }
    }

    fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-u", "-S", &self.socket])
            .args(args)
            .output()
            .unwrap()
    }

    /// The visible screen as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-J", "-S", "-"]).stdout)
            .into_owned()
    }

    /// The visible screen as rows, exactly as wrapped.
    pub fn rows(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p"]).stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The screen with its escape sequences (colours, attributes).
    pub fn styled(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-e"]).stdout).into_owned()
    }

    /// Types text literally.
    pub fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-l", text]);
        assert!(out.status.success());
    }

    /// Presses named keys (`Enter`, `Escape`, `C-c`, `BSpace`…).
    pub fn press(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        let out = self.tmux(&args);
        assert!(out.status.success());
    }

    /// Types a line and presses Enter.
    pub fn answer(&self, text: &str) {
        if !text.is_empty() {
            self.type_text(text);
        }
        self.press(&["Enter"]);
    }

    /// Waits until the screen shows `needle`; fails with the screen otherwise.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |screen| screen.contains(needle))
    }

    /// Waits until `needle` shows `count` times.
    pub fn wait_for_count(&self, needle: &str, count: usize) -> String {
        self.wait_until(needle, |screen| screen.matches(needle).count() >= count)
    }

    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.text();
            if done(&screen) {
                return screen;
            }
            if start.elapsed() > PATIENCE {
                panic!(
                    "timed out waiting for {what:?}; the screen:\n{screen}\nstderr:\n{}",
                    self.read("err.txt")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Answers the next question once its prompt line (`›`) count grows past `seen`.
    pub fn next_prompt(&self, seen: usize) -> usize {
        let screen = self.wait_for_count("›", seen + 1);
        screen.matches('›').count()
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }

    /// Waits for the command to exit.
    pub fn finish(&self) -> Finished {
        let start = Instant::now();
        while !self.dir.join("status.txt").exists() {
            if start.elapsed() > PATIENCE {
                panic!(
                    "the command did not exit; the screen:\n{}\nstderr:\n{}",
                    self.text(),
                    self.read("err.txt")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Finished {
            status: self.read("status.txt").trim().parse().unwrap(),
            stdout: self.read("out.txt"),
            stderr: self.read("err.txt"),
            stty: self.read("stty.txt"),
        }
    }

    /// Changes the window size: the program gets SIGWINCH.
    pub fn resize(&self, width: u16, height: u16) {
        let out = self.tmux(&[
            "resize-window",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
        let _ = std::fs::remove_file(&self.socket);
        // Keep the scratch directory of a failed test for a look; tidy up after a passed one,
        // once no other screen still runs in it.
        let shared = std::fs::read_dir(&self.dir).is_ok_and(|mut entries| {
            entries.any(|entry| {
                entry.is_ok_and(|entry| entry.file_name().to_string_lossy().ends_with(".sock"))
            })
        });
        if !std::thread::panicking() && !shared {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Writes a request file into `dir` and returns its name.
pub fn request_file(dir: &Path, name: &str, json: &serde_json::Value) -> String {
    std::fs::write(dir.join(name), json.to_string()).unwrap();
    name.to_string()
}

/// A `$BROWSER` script that records every URL it is asked to open.
pub fn recording_browser(dir: &Path) -> PathBuf {
    let script = dir.join("browser.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> {}\n",
            quote(&dir.join("opened.txt").to_string_lossy())
        ),
    )
    .unwrap();
    make_executable(&script);
    script
}

pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path).unwrap().permissions();
    permissions.set_mode(0o755);
    std::fs::set_permissions(path, permissions).unwrap();
}

/// Parses the command's stdout as one JSON value.
pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("stdout is not JSON: {stdout:?}"))
}

/// Runs the binary without a terminal: `setsid` leaves it no controlling TTY. Returns the exit
/// status, stdout and stderr.
pub fn run_detached(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new("setsid")
        .arg(binary())
        .args(args)
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that exits before reading (a usage error) closes the pipe: that is not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file under node_modules, or a clear failure when the Node packages are not installed.
pub fn node_module(relative: &str) -> PathBuf {
    let path = workspace_root().join("node_modules").join(relative);
    assert!(
        path.exists(),
        "{} is missing: these tests need the Node packages. Run `npm ci` at the workspace root \
         (`npm test` runs scripts/bootstrap.sh, which does).",
        path.display()
    );
    path
}
