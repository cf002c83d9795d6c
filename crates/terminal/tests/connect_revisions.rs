//! `koder-elicit connect` in both MCP revisions, against real servers, in a real pseudo-terminal:
//! a Python server on `mcp` 2.3.0 whose tool elicits through `Resolve` + `Elicit`
//! (tests/peers/python/), and a TypeScript SDK v2 server whose tools return `input_required`
//! rounds (tests/peers/mrtr-server.mjs).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use common::{json, node_module, recording_browser, scratch, workspace_root, Screen};

const EN: (&str, &str) = ("LANG", "en_US.UTF-8");

/// The repository's Python venv with `mcp` 2.3.0, or a clear failure naming the fix.
fn python() -> String {
    let python = workspace_root().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: these tests need the Python MCP SDK. Run scripts/bootstrap.sh (it creates \
         .venv and installs mcp==2.3.0).",
        python.display()
    );
    python.to_string_lossy().into_owned()
}

fn python_server() -> String {
    workspace_root()
        .join("tests/peers/python/resolve_elicit_server.py")
        .to_string_lossy()
        .into_owned()
}

/// The SDK v2 peer's entry point, or a clear failure when the Node packages are missing.
fn sdk_v2_server() -> String {
    node_module("@modelcontextprotocol/server");
    workspace_root()
        .join("tests/peers/mrtr-server.mjs")
        .to_string_lossy()
        .into_owned()
}

/// The Python tool's two questions, answered: Lisbon, then F over the default C.
fn answer_city_and_unit(screen: &Screen) {
    let first = screen.wait_for("Which city is the forecast for?");
    assert!(first.contains("From Python resolver server"), "{first}");
    assert!(
        !first.contains("Which temperature unit?"),
        "the second question is shown before the first is answered:\n{first}"
    );
    screen.answer("Lisbon");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    screen.wait_for("Which temperature unit?");
    screen.wait_for("› C");
    screen.press(&["BSpace"]);
    screen.answer("F");
    screen.wait_for_count("Enter: Submit", 2);
    screen.press(&["Enter"]);
}

/// Runs the Python server's `forecast` tool with `--protocol`, answers both questions, and checks
/// the revision both sides report.
fn python_forecast(protocol: &str, expected_revision: &str) {
    let dir = scratch(&format!("python-{protocol}"));
    let (python, server) = (python(), python_server());
    let screen = Screen::start(
        &dir,
        &[
            "connect",
            "--protocol",
            protocol,
            "--call",
            "forecast",
            "--",
            &python,
            &server,
        ],
        &[EN],
        100,
        50,
    );
    answer_city_and_unit(&screen);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert!(
        done.stderr.contains(&format!(
            "connected to Python resolver server over MCP {expected_revision}"
        )),
        "{}",
        done.stderr
    );
    let text = json(&done.stdout).to_string();
    assert!(
        text.contains(&format!(
            "protocol {expected_revision}: forecast for Lisbon in F"
        )),
        "{text}"
    );
}

#[test]
fn python_resolvers_over_2026_07_28_with_protocol_auto() {
    python_forecast("auto", "2026-07-28");
}

#[test]
fn python_resolvers_over_2025_11_25_take_the_server_initiated_path() {
    python_forecast("2025-11-25", "2025-11-25");
}

/// `connect` on the SDK v2 peer's `two_forms` tool: one round holding two forms.
fn start_two_forms(dir: &Path) -> Screen {
    let server = sdk_v2_server();
    Screen::start(
        dir,
        &["connect", "--call", "two_forms", "--", "node", &server],
        &[EN],
        100,
        60,
    )
}

#[test]
fn sdk_v2_two_forms_in_one_round_are_asked_one_after_the_other() {
    let dir = scratch("sdk-v2-two-forms");
    let screen = start_two_forms(&dir);
    let first = screen.wait_for("1. Your name *");
    assert!(first.contains("Who is booking the table?"), "{first}");
    assert!(!first.contains("How would you like to sit?"), "{first}");
    screen.answer("Ada");
    screen.wait_for("2. Email *");
    screen.answer("ada@example.com");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    screen.wait_for("How would you like to sit?");
    screen.wait_for("1. Seats *");
    screen.answer("2");
    screen.wait_for("2. Seating *");
    screen.answer("outdoor");
    screen.wait_for_count("Enter: Submit", 2);
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert!(
        done.stderr.contains("over MCP 2026-07-28"),
        "{}",
        done.stderr
    );
    let text = json(&done.stdout).to_string();
    assert!(
        text.contains(
            r#"Received identity: accept {\"name\":\"Ada\",\"email\":\"ada@example.com\"}; preferences: accept {\"seats\":2,\"seating\":\"outdoor\"}."#
        ),
        "{text}"
    );
    assert!(text.contains("passed the server's zod schemas"), "{text}");
    assert!(text.contains("Protocol revision: 2026-07-28."), "{text}");
}

#[test]
fn sdk_v2_esc_on_the_first_form_cancels_the_whole_round() {
    let dir = scratch("sdk-v2-two-forms-cancel");
    let screen = start_two_forms(&dir);
    screen.wait_for("1. Your name *");
    screen.press(&["Escape"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert!(
        !screen.text().contains("How would you like to sit?"),
        "the second question was asked after a cancel:\n{}",
        screen.text()
    );
    let text = json(&done.stdout).to_string();
    assert!(
        text.contains("Received identity: cancel; preferences: cancel."),
        "{text}"
    );
}

/// The out-of-band step of the URL peer: the person finishes on the page (a POST to it).
fn finish_on_the_page(url: &str) {
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("not an http URL: {url}"));
    let (host, path) = rest.split_once('/').unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 204"), "{response}");
}

#[test]
fn sdk_v2_repeated_url_asks_consent_once_then_offers_continue() {
    let dir = scratch("sdk-v2-url");
    let browser: PathBuf = recording_browser(&dir);
    let server = sdk_v2_server();
    let screen = Screen::start(
        &dir,
        &["connect", "--call", "url_sign_in", "--", "node", &server],
        &[EN, ("BROWSER", &browser.to_string_lossy())],
        110,
        60,
    );
    // Round 1: consent, and the page opens once. Nothing waits for a completion.
    let shown = screen.wait_for("Enter: Open page");
    assert!(shown.contains("Site: 127.0.0.1"), "{shown}");
    screen.press(&["Enter"]);
    // Round 2: the same address again, before the person finished: no second consent.
    let again = screen.wait_for("Enter: Continue · o: Open again · Esc: Cancel");
    assert!(
        again.contains(
            "You already agreed to open this page. Waiting for you to finish on 127.0.0.1."
        ),
        "{again}"
    );
    assert_eq!(again.matches("Enter: Open page").count(), 1, "{again}");
    assert!(
        !again.contains("Waiting for you to finish on the external page"),
        "{again}"
    );
    let opened = screen.read("opened.txt");
    assert_eq!(opened.lines().count(), 1, "{opened}");
    // Continue while the page is not finished: the server asks again (round 3), still no consent.
    screen.press(&["Enter"]);
    screen.wait_for_count("Enter: Continue · o: Open again · Esc: Cancel", 2);
    // Open again: the page opens a second time, only because the person asked.
    screen.type_text("o");
    screen.wait_for_count("Opening external page", 2);
    let url = opened.trim().to_string();
    finish_on_the_page(&url);
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    let text = json(&done.stdout).to_string();
    assert!(text.contains("Received sign_in: accept."), "{text}");
    assert!(
        text.contains("Signed in: the person finished on the page after 3 round(s) asking for it."),
        "{text}"
    );
    assert!(text.contains("Protocol revision: 2026-07-28."), "{text}");
    let opened = screen.read("opened.txt");
    assert_eq!(opened.lines().collect::<Vec<_>>(), vec![&url[..], &url[..]]);
    assert_eq!(screen.text().matches("Enter: Open page").count(), 1);
}

/// Why `auto` is not the whole story: a tool that calls the 2025-only `ctx.elicit` fails on
/// 2026-07-28, the terminal says how to reach it, and `--protocol 2025-11-25` does.
#[test]
fn python_ctx_elicit_needs_2025_11_25_and_auto_says_so() {
    let (python, server) = (python(), python_server());
    let dir = scratch("python-ctx-elicit-auto");
    let screen = Screen::start(
        &dir,
        &["connect", "--call", "legacy_city", "--", &python, &server],
        &[EN],
        100,
        30,
    );
    let done = screen.finish();
    assert_eq!(done.status, 70, "{done:?}");
    assert!(
        done.stderr.contains("over MCP 2026-07-28"),
        "{}",
        done.stderr
    );
    assert!(
        done.stderr.contains(
            "if this tool asks its questions the 2025-11-25 way, run again with --protocol 2025-11-25"
        ),
        "{}",
        done.stderr
    );
    let dir = scratch("python-ctx-elicit-legacy");
    let screen = Screen::start(
        &dir,
        &[
            "connect",
            "--protocol",
            "2025-11-25",
            "--call",
            "legacy_city",
            "--",
            &python,
            &server,
        ],
        &[EN],
        100,
        30,
    );
    screen.wait_for("Which city (asked the 2025-11-25 way)?");
    screen.answer("Porto");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    let text = json(&done.stdout).to_string();
    assert!(
        text.contains("protocol 2025-11-25: legacy city Porto"),
        "{text}"
    );
}
