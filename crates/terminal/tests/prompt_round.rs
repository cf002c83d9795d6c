//! `koder-elicit prompt` on one round of an MCP 2026-07-28 multi round-trip request (an
//! `InputRequiredResult`), in a real pseudo-terminal and without one (`--answers`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{json, request_file, run_detached, scratch, Screen};
use serde_json::{json, Value};

const EN: (&str, &str) = ("LANG", "en_US.UTF-8");

/// A round with two forms (keys `identity`, `seating`), a roots request for the host, and state.
fn booking_round() -> Value {
    json!({
        "resultType": "input_required",
        "requestState": "opaque-1",
        "inputRequests": {
            "identity": {"method": "elicitation/create", "params": {
                "message": "Who is booking the table?",
                "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string", "title": "Your name"}},
                    "required": ["name"]}}},
            "roots": {"method": "roots/list", "params": {}},
            "seating": {"method": "elicitation/create", "params": {
                "message": "How would you like to sit?",
                "requestedSchema": {"type": "object",
                    "properties": {"seating": {"type": "string", "title": "Seating",
                        "enum": ["indoor", "outdoor"], "default": "indoor"}}}}}
        }
    })
}

#[test]
fn a_round_is_asked_one_question_after_the_other_and_answered_by_key() {
    let dir = scratch("round-terminal");
    let file = request_file(&dir, "round.json", &booking_round());
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 100, 40);
    let first = screen.wait_for("1. Your name *");
    assert!(first.contains("Request 1 of 2"), "{first}");
    assert!(first.contains("Who is booking the table?"), "{first}");
    assert!(!first.contains("How would you like to sit?"), "{first}");
    screen.answer("Ada");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    let second = screen.wait_for("How would you like to sit?");
    assert!(second.contains("Request 2 of 2"), "{second}");
    screen.wait_for("1. Seating");
    screen.press(&["C-u"]);
    screen.answer("2");
    screen.wait_for_count("Enter: Submit", 2);
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"identity": {"action": "accept", "content": {"name": "Ada"}},
            "seating": {"action": "accept", "content": {"seating": "outdoor"}}})
    );
    assert_eq!(
        done.stderr,
        "koder-elicit: inputRequests.roots (roots/list) is left for the host\n"
    );
}

#[test]
fn esc_on_the_first_question_cancels_the_round() {
    let dir = scratch("round-cancel");
    let file = request_file(&dir, "round.json", &booking_round());
    let screen = Screen::start(&dir, &["prompt", "--reply", &file], &[EN], 100, 40);
    screen.wait_for("1. Your name *");
    screen.press(&["Escape"]);
    let done = screen.finish();
    assert_eq!(done.status, 2, "{done:?}");
    assert!(!screen.text().contains("How would you like to sit?"));
    assert_eq!(
        json(&done.stdout),
        json!({"inputResponses": {"identity": {"action": "cancel"}, "seating": {"action": "cancel"}},
            "requestState": "opaque-1"})
    );
}

#[test]
fn answers_by_key_without_a_terminal() {
    let round = booking_round().to_string();
    let (status, stdout, _) = run_detached(
        &[
            "prompt",
            "--reply",
            "--answers",
            r#"{"identity": {"name": "Ada"}}"#,
        ],
        &round,
    );
    assert_eq!(status, 0);
    assert_eq!(
        json(&stdout),
        json!({"inputResponses": {"identity": {"action": "accept", "content": {"name": "Ada"}},
            "seating": {"action": "accept", "content": {"seating": "indoor"}}},
            "requestState": "opaque-1"})
    );
    // A bare inputRequests map, as a JSON-RPC response's result would carry it.
    let bare = booking_round()["inputRequests"].to_string();
    let (status, stdout, _) = run_detached(
        &["prompt", "--answers", r#"{"identity": {"name": "Bo"}}"#],
        &bare,
    );
    assert_eq!(status, 0);
    assert_eq!(
        json(&stdout)["identity"],
        json!({"action": "accept", "content": {"name": "Bo"}})
    );
    let (status, stdout, stderr) = run_detached(
        &["prompt", "--answers", r#"{"idenity": {"name": "Ada"}}"#],
        &round,
    );
    assert_eq!(status, 5);
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("koder-elicit: idenity matches no elicitation of this round\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("koder-elicit: identity: name: Required\n"),
        "{stderr}"
    );
}

#[test]
fn a_malformed_round_names_the_key_and_nothing_is_asked() {
    let bad = json!({"resultType": "input_required", "inputRequests": {
        "github_login": {"method": "elicitation/create", "params": {"mode": "url", "url": "https://example.com"}}}});
    let (status, stdout, stderr) = run_detached(&["prompt"], &bad.to_string());
    assert_eq!(status, 4);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.trim(),
        "koder-elicit: error -32602: inputRequests.github_login.params.message is required"
    );
}
