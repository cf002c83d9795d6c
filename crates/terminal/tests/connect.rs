//! `koder-elicit connect` against real MCP servers, in a real pseudo-terminal: the Everything
//! server over stdio and the project's demo server over Streamable HTTP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    json, make_executable, node_module, quote, recording_browser, scratch, workspace_root, Screen,
};

const EN: (&str, &str) = ("LANG", "en_US.UTF-8");

fn everything() -> String {
    node_module(".bin/mcp-server-everything")
        .to_string_lossy()
        .into_owned()
}

/// Answers every question with Enter (keeping defaults), typing `name` where the required
/// name is asked, until the summary shows.
fn fill_everything_form(screen: &Screen, name: &str) {
    screen.wait_for("1. String *");
    screen.answer(name);
    let mut prompts = screen.next_prompt(1);
    while !screen.text().contains("Review your answers:") {
        screen.press(&["Enter"]);
        prompts = screen
            .wait_until("the next question or the summary", |text| {
                text.matches('›').count() > prompts || text.contains("Review your answers:")
            })
            .matches('›')
            .count();
    }
}

#[test]
fn everything_form_accept_sends_the_typed_values() {
    let dir = scratch("everything-accept");
    let server = everything();
    let screen = Screen::start(
        &dir,
        &[
            "connect",
            "--call",
            "trigger-elicitation-request",
            "--",
            &server,
        ],
        &[EN],
        100,
        60,
    );
    let shown = screen.wait_for("1. String *");
    assert!(
        shown.contains("From Everything Reference Server"),
        "{shown}"
    );
    fill_everything_form(&screen, "Ada Lovelace");
    let summary = screen.wait_for("Enter: Submit");
    assert!(
        summary.contains("13. Legacy Titled Single Select Enum: Cats"),
        "{summary}"
    );
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    let result = json(&done.stdout);
    let text = result.to_string();
    assert!(
        text.contains("User provided the requested information"),
        "{text}"
    );
    assert!(text.contains("- Name: Ada Lovelace"), "{text}");
    assert!(
        text.contains(r#"\"titledMultipleSelectEnum\": [\n      \"fish-1\""#),
        "{text}"
    );
}

#[test]
fn everything_form_decline_and_cancel() {
    for (keys, expected) in [
        (
            vec!["C-r", "Enter"],
            "User declined to provide the requested information.",
        ),
        (vec!["Escape"], "User cancelled the elicitation dialog."),
    ] {
        let dir = scratch("everything-decline");
        let server = everything();
        let screen = Screen::start(
            &dir,
            &[
                "connect",
                "--call",
                "trigger-elicitation-request",
                "--",
                &server,
            ],
            &[EN],
            100,
            40,
        );
        screen.wait_for("1. String *");
        screen.press(&keys[..1]);
        if keys.len() > 1 {
            screen.wait_for("Reason for rejecting");
            screen.press(&keys[1..]);
        }
        let done = screen.finish();
        assert_eq!(done.status, 0, "{done:?}");
        assert!(done.stdout.contains(expected), "{}", done.stdout);
    }
}

#[test]
fn everything_url_consent_opens_the_browser() {
    let dir = scratch("everything-url");
    let browser = recording_browser(&dir);
    let server = everything();
    let url = "https://example.com/consent?step=1";
    let args = format!(r#"{{"url": "{url}", "message": "Approve the example."}}"#);
    let screen = Screen::start(
        &dir,
        &[
            "connect",
            "--call",
            "trigger-url-elicitation",
            "--args",
            &args,
            "--",
            &server,
        ],
        &[EN, ("BROWSER", &browser.to_string_lossy())],
        100,
        40,
    );
    let shown = screen.wait_for("Enter: Open page");
    assert!(shown.contains("Approve the example."), "{shown}");
    assert!(shown.contains("Site: example.com"), "{shown}");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert!(
        done.stdout
            .contains("User completed the URL elicitation flow"),
        "{}",
        done.stdout
    );
    assert_eq!(screen.read("opened.txt").trim(), url);
}

/// The demo server on a free port; stopped (with its relay) when dropped.
struct Demo {
    child: Child,
    port: u16,
}

impl Demo {
    fn start() -> Demo {
        node_module("@modelcontextprotocol/sdk");
        let mut child = Command::new("node")
            .arg(workspace_root().join("demo/server.mjs"))
            .env("PORT", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs the demo server");
        let stdout = child.stdout.take().unwrap();
        let (ready, port) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("Demo ready: http://127.0.0.1:") {
                    let _ = ready.send(rest.trim_end_matches('/').parse::<u16>().unwrap());
                }
                // Keep draining so the server never blocks on a full pipe.
            }
        });
        let port = port
            .recv_timeout(Duration::from_secs(30))
            .expect("the demo server printed its port");
        Demo { child, port }
    }

    fn mcp_url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The demo's event log (`/demo-log`), as text.
    fn log(&self) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "GET /demo-log HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        // SIGTERM first: the demo then stops what it started (its relay, its temp dir). A SIGKILL
        // would leave its relay running; it is only the fallback.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn demo_weather_over_streamable_http() {
    let demo = Demo::start();
    let dir = scratch("demo-weather");
    let url = demo.mcp_url();
    let screen = Screen::start(
        &dir,
        &["connect", "--url", &url, "--call", "weather"],
        &[EN],
        100,
        40,
    );
    let shown = screen.wait_for("1. city *");
    assert!(shown.contains("From Demo server"), "{shown}");
    assert!(
        shown.contains("The weather tool needs your city."),
        "{shown}"
    );
    screen.answer("Lisbon");
    screen.wait_for("2. temperature_unit");
    screen.answer("F");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    let text = json(&done.stdout).to_string();
    assert!(
        text.contains(r#"Received: {\"action\":\"accept\",\"content\":{\"city\":\"Lisbon\",\"temperature_unit\":\"F\"}}"#),
        "{text}"
    );
    assert!(text.contains("Forecast for Lisbon: 70 °F"), "{text}");
}

#[test]
fn demo_sign_in_waits_for_elicitation_complete() {
    let demo = Demo::start();
    let dir = scratch("demo-sign-in");
    // A "browser" that records the URL and presses the page's "Finish sign-in" for the person.
    let browser = dir.join("finish.sh");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> {opened}\nnode -e {script} \"$1\" >/dev/null 2>&1 &\n",
            opened = quote(&dir.join("opened.txt").to_string_lossy()),
            script = quote(
                "const u = new URL(process.argv[1]); setTimeout(() => fetch(u.origin + '/oauth/fake/finish', \
                 {method: 'POST', headers: {'content-type': 'application/json'}, \
                 body: JSON.stringify({id: u.searchParams.get('id')})}), 500);"
            ),
        ),
    )
    .unwrap();
    make_executable(&browser);
    let url = demo.mcp_url();
    let screen = Screen::start(
        &dir,
        // `elicitationId` and `notifications/elicitation/complete` are 2025-11-25's.
        &[
            "connect",
            "--protocol",
            "2025-11-25",
            "--url",
            &url,
            "--call",
            "sign_in",
        ],
        &[EN, ("BROWSER", &browser.to_string_lossy())],
        110,
        40,
    );
    let shown = screen.wait_for("Enter: Open page");
    assert!(shown.contains("local development address"), "{shown}");
    assert!(shown.contains("Site: 127.0.0.1"), "{shown}");
    screen.press(&["Enter"]);
    screen.wait_for("Waiting for you to finish on the external page…");
    screen.wait_for("The server reports that the external page is done.");
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    let text = json(&done.stdout).to_string();
    assert!(
        text.contains("Signed in. Sent notifications/elicitation/complete"),
        "{text}"
    );
    let opened = screen.read("opened.txt");
    assert!(
        opened.starts_with(&format!("http://127.0.0.1:{}/oauth/fake?id=", demo.port)),
        "{opened}"
    );
}

#[test]
fn t8_demo_server_cancel_ends_the_prompt_with_nothing_sent() {
    let demo = Demo::start();
    let dir = scratch("demo-cancel");
    let url = demo.mcp_url();
    // The client gives up on the call after 2 s; the server then withdraws its elicitation.
    let screen = Screen::start(
        &dir,
        // A server-initiated elicitation that its server withdraws: 2025-11-25's.
        &[
            "connect",
            "--protocol",
            "2025-11-25",
            "--url",
            &url,
            "--call",
            "slow_task",
            "--call-timeout",
            "2",
        ],
        &[EN],
        100,
        40,
    );
    screen.wait_for("1. Priority *");
    screen.type_text("hi");
    let started = Instant::now();
    screen.wait_for("The server withdrew this request. Nothing was sent.");
    // Well before the client's own 5 s clean-up could close it: this was the server's cancel.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let done = screen.finish();
    assert_eq!(done.status, 7, "{done:?}");
    assert!(done.stty.contains(" icanon"), "{}", done.stty);
    let log = demo.log();
    assert!(
        log.contains(r#""tool":"slow_task","event":"aborted""#),
        "{log}"
    );
    assert!(
        log.contains("withdrawing the elicitation (notifications/cancelled)"),
        "{log}"
    );
    assert!(
        !log.contains("Received:"),
        "the server got an answer: {log}"
    );
}
