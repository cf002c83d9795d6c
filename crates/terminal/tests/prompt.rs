//! `koder-elicit prompt` in a real pseudo-terminal: what a person sees, what they type, what is
//! printed and the exit status.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::process::{Command, Stdio};

use common::{json, recording_browser, request_file, run_detached, scratch, Screen};
use serde_json::json;

fn weather_envelope() -> serde_json::Value {
    json!({
        "type": "elicitation/request", "id": "e_123",
        "schema": {"type": "object", "properties": {
            "city": {"type": "string", "description": "Your city"},
            "temperature_unit": {"type": "string", "enum": ["C", "F"]}
        }, "required": ["city"]},
        "title": "Weather lookup needs your input",
        "description": "The forecast tool needs a city."
    })
}

const EN: (&str, &str) = ("LANG", "en_US.UTF-8");

#[test]
fn t1_t2_t3_fields_show_a_missing_required_answer_is_asked_again_then_accept_sends_values() {
    let dir = scratch("accept");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file, "--reply"], &[EN], 80, 30);
    let shown = screen.wait_for("›");
    assert!(shown.contains("Weather lookup needs your input"), "{shown}");
    assert!(shown.contains("The forecast tool needs a city."), "{shown}");
    assert!(shown.contains("1. city *"), "{shown}");
    assert!(shown.contains("Your city"), "{shown}");
    assert!(shown.contains("Fields marked * are required."), "{shown}");
    // T2: nothing typed for a required field: the same message as the web dialog, asked again.
    screen.answer("");
    screen.wait_for("✗ Required");
    screen.answer("Lisbon");
    let shown = screen.wait_for("2. temperature_unit");
    assert!(shown.contains("1) C") && shown.contains("2) F"), "{shown}");
    screen.answer("2");
    let summary = screen.wait_for("Enter: Submit");
    assert!(summary.contains("1. city: Lisbon"), "{summary}");
    assert!(summary.contains("2. temperature_unit: F"), "{summary}");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"type": "elicitation/accept", "id": "e_123",
               "content": {"city": "Lisbon", "temperature_unit": "F"}})
    );
    let text = screen.text();
    assert!(text.contains("Sent."));
    // After it, the core's summary of what was sent (the rows an inline element leaves).
    let after = text.split("Sent.").nth(1).unwrap_or_default();
    assert!(
        after.contains("city: Lisbon") && after.contains("temperature_unit: F"),
        "{text}"
    );
}

#[test]
fn t4_reject_with_a_reason_from_any_question() {
    let dir = scratch("reject");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file, "--reply"], &[EN], 80, 30);
    screen.wait_for("1. city *");
    screen.press(&["C-r"]);
    screen.wait_for("Reason for rejecting (optional)");
    screen.answer("Not now");
    let done = screen.finish();
    assert_eq!(done.status, 1, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"type": "elicitation/reject", "id": "e_123", "reason": "Not now"})
    );
    assert!(screen.text().contains("Rejected."));
}

#[test]
fn t4_reject_from_the_summary_as_json_rpc() {
    let dir = scratch("reject-rpc");
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create",
        "params": {"message": "Need a city", "requestedSchema": {"type": "object",
            "properties": {"city": {"type": "string"}}}}});
    let file = request_file(&dir, "rpc.json", &request);
    let screen = Screen::start(&dir, &["prompt", &file, "--reply"], &[EN], 80, 30);
    screen.wait_for("1. city");
    screen.answer("Porto");
    screen.wait_for("e: edit a field");
    screen.type_text("r");
    screen.wait_for("Reason for rejecting");
    screen.answer("");
    let done = screen.finish();
    assert_eq!(done.status, 1);
    assert_eq!(
        json(&done.stdout),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "decline"}})
    );
}

#[test]
fn t5_escape_cancels_and_the_terminal_is_restored() {
    let dir = scratch("escape");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 80, 30);
    screen.wait_for("1. city *");
    screen.type_text("Lis");
    screen.press(&["Escape"]);
    let done = screen.finish();
    assert_eq!(done.status, 2, "{done:?}");
    assert_eq!(json(&done.stdout), json!({"action": "cancel"}));
    assert!(screen.text().contains("Cancelled."));
    // Raw mode is off again: canonical input and echo are back.
    assert!(done.stty.contains(" icanon"), "{}", done.stty);
    assert!(done.stty.contains(" echo "), "{}", done.stty);
}

#[test]
fn t5_ctrl_c_cancels_without_killing_the_process() {
    let dir = scratch("ctrl-c");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file, "--reply"], &[EN], 80, 30);
    screen.wait_for("1. city *");
    screen.press(&["C-c"]);
    let done = screen.finish();
    // 2 is our cancel status; a killed process would report 130.
    assert_eq!(done.status, 2, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"type": "elicitation/cancel", "id": "e_123", "reason": "user"})
    );
    assert!(done.stty.contains(" icanon"), "{}", done.stty);
}

#[test]
fn t7_the_request_timeout_counts_down_then_closes() {
    let dir = scratch("timeout");
    let mut request = weather_envelope();
    request["timeout"] = json!(2500);
    let file = request_file(&dir, "weather.json", &request);
    let screen = Screen::start(&dir, &["prompt", &file, "--reply"], &[EN], 80, 30);
    screen.wait_for("Closing in 2s");
    screen.wait_for("Closing in 1s");
    let done = screen.finish();
    assert_eq!(done.status, 3, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"type": "elicitation/timeout", "id": "e_123"})
    );
    let shown = screen.text();
    assert!(shown.contains("Closed: the time ran out."), "{shown}");
    assert!(done.stty.contains(" icanon"));
}

#[test]
fn t7_the_timeout_option_in_plain_mode_announces_the_time_left() {
    let dir = scratch("timeout-plain");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(
        &dir,
        &["prompt", &file, "--plain", "--timeout", "1.5"],
        &[EN],
        80,
        30,
    );
    screen.wait_for("This request closes in 2 seconds.");
    let done = screen.finish();
    assert_eq!(done.status, 3);
    assert_eq!(json(&done.stdout), json!({"action": "cancel"}));
}

fn every_kind_request() -> serde_json::Value {
    json!({"message": "Every kind of field", "requestedSchema": {"type": "object", "properties": {
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri", "title": "Site"},
        "born": {"type": "string", "format": "date", "title": "Born"},
        "meeting": {"type": "string", "format": "date-time", "title": "Meeting"},
        "notes": {"type": "string", "format": "textarea", "title": "Notes"},
        "count": {"type": "number", "minimum": 0, "maximum": 1000, "title": "Count"},
        "age": {"type": "integer", "title": "Age", "default": 30},
        "agree": {"type": "boolean", "title": "Agree"},
        "unit": {"type": "string", "enum": ["C", "F"], "title": "Unit", "default": "C"},
        "hero": {"type": "string", "title": "Hero", "oneOf": [
            {"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Wonder Woman"}]},
        "pet": {"type": "string", "title": "Pet", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
        "tools": {"type": "array", "title": "Tools", "minItems": 1, "maxItems": 2,
            "items": {"type": "string", "enum": ["Guitar", "Piano", "Drums"]}},
        "fish": {"type": "array", "title": "Fish", "items": {"anyOf": [
            {"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Salmon"}]}},
        "tags": {"type": "array", "title": "Tags", "items": {"type": "string"}},
        "address": {"type": "object", "title": "Address", "description": "Where to send it",
            "properties": {"street": {"type": "string", "title": "Street"}}, "required": ["street"]},
        "api_token": {"type": "string", "title": "API token"}
    }, "required": ["email", "address"]}})
}

#[test]
fn every_field_kind_is_asked_checked_and_sent_typed() {
    let dir = scratch("every-kind");
    let file = request_file(&dir, "every.json", &every_kind_request());
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 100, 60);
    // A secret-looking field brings the web dialog's warning.
    screen.wait_for("looks like a secret");
    screen.wait_for("1. Email *");
    screen.answer("not-an-email");
    screen.wait_for("✗ Enter a valid email address");
    screen.press(&["C-u"]);
    screen.answer("ada@example.com");
    screen.wait_for("2. Site");
    screen.answer("example");
    screen.wait_for("✗ Enter a full address, such as https://example.com");
    screen.press(&["C-u"]);
    screen.answer("https://ada.example");
    screen.wait_for("Format YYYY-MM-DD");
    screen.answer("2026-02-30");
    screen.wait_for("✗ Enter a valid date");
    screen.press(&["C-u"]);
    screen.answer("1815-12-10");
    screen.wait_for("4. Meeting");
    screen.answer("2026-05-01 10:30+02:00");
    screen.wait_for("Ctrl-D finishes");
    screen.type_text("first line");
    screen.press(&["Enter"]);
    screen.type_text("second line");
    screen.press(&["C-d"]);
    screen.wait_for("From 0 to 1000.");
    screen.answer("5000");
    screen.wait_for("✗ Must be at most 1000");
    screen.press(&["C-u"]);
    screen.answer("12.5");
    // The default is already on the line; a fraction is refused for an integer.
    screen.wait_for("› 30");
    screen.type_text(".5");
    screen.press(&["Enter"]);
    screen.wait_for("✗ Enter a whole number");
    screen.press(&["C-u"]);
    screen.answer("41");
    screen.wait_for("Answer y (yes) or n (no).");
    screen.press(&["C-u"]);
    screen.answer("maybe");
    screen.wait_for_count("Answer y (yes) or n (no).", 2);
    screen.press(&["C-u"]);
    screen.answer("y");
    let unit = screen.wait_for("9. Unit");
    assert!(unit.contains("1) C (default)"), "{unit}");
    screen.answer("");
    let hero = screen.wait_for("10. Hero");
    assert!(hero.contains("2) Wonder Woman"), "{hero}");
    screen.answer("Wonder Woman");
    let pet = screen.wait_for("11. Pet");
    assert!(pet.contains("2) Dogs"), "{pet}");
    screen.answer("2");
    screen.wait_for("12. Tools");
    screen.answer("1,2,3");
    screen.wait_for("✗ Choose at most 2 items");
    screen.press(&["C-u"]);
    screen.answer("1,3");
    let fish = screen.wait_for("13. Fish");
    assert!(fish.contains("1) Tuna"), "{fish}");
    screen.answer("2");
    screen.wait_for("Separate tags with commas.");
    screen.answer("red, green,,blue ");
    // The nested object: a heading, then its own required field.
    let group = screen.wait_for("15. Street *");
    assert!(group.contains("▸ Address *"), "{group}");
    assert!(group.contains("Where to send it"), "{group}");
    screen.answer("Rua Augusta");
    screen.wait_for("What you type is hidden.");
    screen.answer("hunter2");
    let summary = screen.wait_for("Review your answers:");
    assert!(
        !summary.contains("hunter2"),
        "the secret showed:\n{summary}"
    );
    assert!(summary.contains("•••••••"), "{summary}");
    assert!(summary.contains("16. API token: (hidden)"), "{summary}");
    assert!(summary.contains("10. Hero: Wonder Woman"), "{summary}");
    assert!(summary.contains("12. Tools: Guitar, Drums"), "{summary}");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"action": "accept", "content": {
            "email": "ada@example.com", "site": "https://ada.example", "born": "1815-12-10",
            "meeting": "2026-05-01T10:30:00+02:00", "notes": "first line\nsecond line",
            "count": 12.5, "age": 41, "agree": true, "unit": "C", "hero": "h2", "pet": "p2",
            "tools": ["Guitar", "Drums"], "fish": ["f2"], "tags": ["red", "green", "blue"],
            "address": {"street": "Rua Augusta"}, "api_token": "hunter2"
        }})
    );
}

#[test]
fn a_field_can_be_edited_from_the_summary() {
    let dir = scratch("edit");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 80, 40);
    screen.wait_for("1. city *");
    screen.answer("Lisbon");
    screen.wait_for("2. temperature_unit");
    screen.answer("1");
    screen.wait_for("e: edit a field");
    screen.type_text("e");
    screen.wait_for("Number of the field to change:");
    screen.answer("1");
    screen.wait_for("› Lisbon");
    screen.press(&["C-u"]);
    screen.answer("Porto");
    screen.wait_for("1. city: Porto");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(
        json(&done.stdout),
        json!({"action": "accept", "content": {"city": "Porto", "temperature_unit": "C"}})
    );
}

#[test]
fn pt_br_from_lang_and_from_the_option() {
    let dir = scratch("pt-br");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file], &[("LANG", "pt_BR.UTF-8")], 80, 30);
    let shown = screen.wait_for("1. city *");
    assert!(
        shown.contains("Campos marcados com * são obrigatórios."),
        "{shown}"
    );
    assert!(shown.contains("Esc ou Ctrl-C cancela"), "{shown}");
    screen.answer("");
    screen.wait_for("✗ Obrigatório");
    screen.answer("Recife");
    screen.wait_for("Digite o número de uma opção (1 a 2).");
    screen.answer("");
    let summary = screen.wait_for("Enter: Enviar");
    assert!(summary.contains("Revise suas respostas:"), "{summary}");
    assert!(
        summary.contains("2. temperature_unit: (vazio)"),
        "{summary}"
    );
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0);
    assert!(screen.text().contains("Enviado."));

    // --lang wins over LANG, and the countdown is translated too.
    let screen = Screen::start(
        &dir,
        &["prompt", &file, "--lang", "pt-BR", "--timeout", "2"],
        &[EN],
        80,
        30,
    );
    screen.wait_for("Fechando em");
    let done = screen.finish();
    assert_eq!(done.status, 3);
    assert!(screen.text().contains("Fechado: o tempo acabou."));
}

fn url_request(url: &str) -> serde_json::Value {
    json!({"mode": "url", "message": "Sign in to continue.", "url": url, "elicitationId": "abc"})
}

#[test]
fn url_mode_shows_the_host_and_opens_the_browser_from_browser_env() {
    let dir = scratch("url-open");
    let browser = recording_browser(&dir);
    let url = "https://xn--bcher-kva.example/sign-in?x=1";
    let file = request_file(&dir, "url.json", &url_request(url));
    let screen = Screen::start(
        &dir,
        &["prompt", &file],
        &[EN, ("BROWSER", &browser.to_string_lossy())],
        100,
        30,
    );
    let shown = screen.wait_for("Enter: Open page");
    assert!(shown.contains("Open an external page?"), "{shown}");
    assert!(shown.contains(&format!("Address: {url}")), "{shown}");
    assert!(shown.contains("Site: xn--bcher-kva.example"), "{shown}");
    assert!(shown.contains("international characters"), "{shown}");
    // The host is emphasized (bold and underlined).
    let styled = screen.styled();
    assert!(
        styled.contains("\u{1b}[1mSite: \u{1b}[4mxn--bcher-kva.example"),
        "{styled:?}"
    );
    screen.press(&["Enter"]);
    screen.wait_for("Opening external page");
    screen.wait_for("Press Enter when you have finished there");
    assert_eq!(screen.read("opened.txt").trim(), url);
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(json(&done.stdout), json!({"action": "accept"}));
}

#[test]
fn url_mode_polls_the_status_url_until_complete_with_the_localhost_warning() {
    let dir = scratch("url-poll");
    let browser = recording_browser(&dir);
    // A static status file served by Python's http.server answers {"status": "complete"}.
    std::fs::create_dir_all(dir.join("status")).unwrap();
    std::fs::write(dir.join("status/abc"), r#"{"status": "complete"}"#).unwrap();
    let port = free_port();
    let mut server = Command::new("python3")
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs the status server");
    let url = format!("http://localhost:{port}/sign-in");
    let file = request_file(&dir, "url.json", &url_request(&url));
    let template = format!("http://127.0.0.1:{port}/status/{{id}}");
    let screen = Screen::start(
        &dir,
        &[
            "prompt",
            &file,
            "--status-url",
            &template,
            "--poll-interval",
            "200",
        ],
        &[EN, ("BROWSER", &browser.to_string_lossy())],
        100,
        30,
    );
    let shown = screen.wait_for("Enter: Open page");
    assert!(shown.contains("local development address"), "{shown}");
    screen.press(&["Enter"]);
    screen.wait_for("The server reports that the external page is done.");
    let done = screen.finish();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(json(&done.stdout), json!({"action": "accept"}));
    assert_eq!(screen.read("opened.txt").trim(), url);
}

#[test]
fn blocked_urls_never_reach_the_browser() {
    for (url, reason) in [
        ("http://example.com/pay", "is not encrypted (http)"),
        (
            "https://user:pw@example.com/",
            "hides a user name or password",
        ),
        (
            "javascript:alert(1)",
            "Only secure https addresses can be opened.",
        ),
    ] {
        let dir = scratch("url-blocked");
        let browser = recording_browser(&dir);
        let file = request_file(&dir, "url.json", &url_request(url));
        let screen = Screen::start(
            &dir,
            &["prompt", &file],
            &[EN, ("BROWSER", &browser.to_string_lossy())],
            100,
            30,
        );
        let shown = screen.wait_for("r: Reject · Esc: Cancel");
        assert!(shown.contains(reason), "{url}: {shown}");
        assert!(!shown.contains("Open page"), "{shown}");
        // Enter and "o" open nothing.
        screen.press(&["Enter"]);
        screen.type_text("o");
        screen.type_text("r");
        screen.wait_for("Reason for rejecting");
        screen.answer("");
        let done = screen.finish();
        assert_eq!(done.status, 1, "{url}: {done:?}");
        assert_eq!(json(&done.stdout), json!({"action": "decline"}));
        assert!(
            !dir.join("opened.txt").exists(),
            "{url} reached the browser"
        );
    }
}

#[test]
fn plain_mode_and_dumb_terminals_write_no_escape_sequences() {
    for (args, env) in [
        (vec!["--plain"], vec![EN]),
        (vec![], vec![EN, ("TERM", "dumb")]),
    ] {
        let dir = scratch("plain");
        let file = request_file(&dir, "weather.json", &weather_envelope());
        let mut all = vec!["prompt", file.as_str()];
        all.extend(args.iter().copied());
        let screen = Screen::start(&dir, &all, &env, 80, 30);
        screen.wait_for("1. city *");
        screen.type_text("Lisbox");
        screen.press(&["BSpace"]);
        screen.answer("n");
        screen.wait_for("2. temperature_unit");
        screen.answer("1");
        screen.wait_for("Enter: Submit");
        let styled = screen.styled();
        assert!(
            !styled.contains('\u{1b}'),
            "escape sequences in {args:?}: {styled:?}"
        );
        // Line by line: the typed answer stays on its prompt line.
        assert!(screen.text().contains("› Lisbon"));
        screen.press(&["Enter"]);
        let done = screen.finish();
        assert_eq!(
            json(&done.stdout),
            json!({"action": "accept", "content": {"city": "Lisbon", "temperature_unit": "C"}})
        );
    }
}

#[test]
fn no_color_keeps_attributes_but_drops_colours() {
    let dir = scratch("no-color");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen = Screen::start(&dir, &["prompt", &file], &[EN, ("NO_COLOR", "1")], 80, 30);
    screen.wait_for("1. city *");
    screen.answer("");
    screen.wait_for("✗ Required");
    let styled = screen.styled();
    assert!(
        styled.contains("\u{1b}[1m"),
        "bold is not colour: {styled:?}"
    );
    assert!(!has_colour(&styled), "colour with NO_COLOR: {styled:?}");
    screen.press(&["Escape"]);
    screen.finish();

    // Without NO_COLOR the error is red.
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 80, 30);
    screen.wait_for("1. city *");
    screen.answer("");
    screen.wait_for("✗ Required");
    assert!(has_colour(&screen.styled()));
    screen.press(&["Escape"]);
    screen.finish();
}

#[test]
fn narrow_terminals_wrap_by_words_and_a_resize_is_survived() {
    let dir = scratch("narrow");
    let mut request = weather_envelope();
    request["description"] =
        json!("The forecast tool needs the city where you want tomorrow's weather.");
    let file = request_file(&dir, "weather.json", &request);
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 30, 30);
    screen.wait_for("1. city *");
    let rows = screen.rows();
    assert!(rows.iter().all(|row| row.chars().count() <= 30));
    // Wrapped at word boundaries: no word is cut across rows.
    assert!(
        rows.iter()
            .any(|row| row.trim_end() == "The forecast tool needs the"),
        "{rows:#?}"
    );
    for word in ["tomorrow's", "weather.", "Weather", "input"] {
        assert!(
            rows.iter().any(|row| row.split(' ').any(|w| w == word)),
            "{word}: {rows:#?}"
        );
    }
    screen.type_text("Lis");
    // SIGWINCH: the window grows; the line is redrawn and typing goes on.
    screen.resize(70, 30);
    screen.type_text("bon");
    screen.wait_for("› Lisbon");
    screen.resize(25, 30);
    screen.press(&["Enter"]);
    screen.wait_for("2. temperature_unit");
    screen.answer("2");
    screen.wait_for("Submit");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"action": "accept", "content": {"city": "Lisbon", "temperature_unit": "F"}})
    );
}

#[test]
fn a_malformed_request_gets_the_32602_message_and_nothing_is_asked() {
    let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
        "params": {"message": "x", "requestedSchema": {"type": "object",
            "properties": {"age": {"type": "integer", "minimum": "3"}}}}});
    let (status, stdout, stderr) = run_detached(&["prompt", "-"], &bad.to_string());
    assert_eq!(status, 4);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.trim(),
        "koder-elicit: error -32602: params.requestedSchema.properties.age.minimum must be a number"
    );
    let (status, _, stderr) = run_detached(&["prompt"], "{not json");
    assert_eq!(status, 4);
    assert!(stderr.contains("request is not valid JSON"), "{stderr}");
}

#[test]
fn answers_are_checked_by_the_same_rules_without_a_terminal() {
    let request = weather_envelope().to_string();
    let (status, stdout, _) = run_detached(
        &["prompt", "--reply", "--answers", r#"{"city": "Lisbon"}"#],
        &request,
    );
    assert_eq!(status, 0);
    assert_eq!(
        json(&stdout),
        json!({"type": "elicitation/accept", "id": "e_123", "content": {"city": "Lisbon"}})
    );
    let (status, stdout, stderr) = run_detached(
        &[
            "prompt",
            "--answers",
            r#"{"temperature_unit": "K", "town": "x"}"#,
        ],
        &request,
    );
    assert_eq!(status, 5);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "koder-elicit: town matches no field of this form\n\
         koder-elicit: city: Required\n\
         koder-elicit: temperature_unit: Choose one of the listed options\n"
    );
    let (status, _, stderr) =
        run_detached(&["prompt", "--lang", "pt-BR", "--answers", "{}"], &request);
    assert_eq!(status, 5);
    assert_eq!(stderr, "koder-elicit: city: Obrigatório\n");
}

#[test]
fn without_a_terminal_or_answers_the_error_is_clear() {
    let (status, stdout, stderr) = run_detached(&["prompt"], &weather_envelope().to_string());
    assert_eq!(status, 5);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.trim(),
        "koder-elicit: No terminal to ask on. Pass --answers JSON, or run koder-elicit in a terminal."
    );
}

/// A foreground colour in tmux's rendering of the screen (39 is "default", not a colour).
fn has_colour(styled: &str) -> bool {
    styled.contains("\u{1b}[38;")
        || (30..38).any(|code| styled.contains(&format!("\u{1b}[{code}m")))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_textarea_can_be_written_in_the_editor() {
    let dir = scratch("editor");
    // An "editor" that appends a line to what it is given, as a person would.
    let editor = dir.join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'written in the editor\\n' >> \"$1\"\n",
    )
    .unwrap();
    common::make_executable(&editor);
    let request = json!({"message": "Describe it", "requestedSchema": {"type": "object",
        "properties": {"notes": {"type": "string", "format": "textarea", "title": "Notes"}}}});
    let file = request_file(&dir, "notes.json", &request);
    let screen = Screen::start(
        &dir,
        &["prompt", &file],
        &[EN, ("EDITOR", &editor.to_string_lossy())],
        80,
        30,
    );
    screen.wait_for(&format!("Ctrl-E opens {}", editor.display()));
    screen.type_text("typed first");
    screen.press(&["Enter"]);
    screen.press(&["C-e"]);
    screen.wait_for("written in the editor");
    screen.press(&["C-d"]);
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(
        json(&done.stdout),
        json!({"action": "accept", "content": {"notes": "typed first\nwritten in the editor"}})
    );
    assert!(done.stty.contains(" icanon"));
}

#[test]
fn the_request_can_come_on_stdin_while_the_terminal_asks() {
    let dir = scratch("stdin");
    let file = request_file(&dir, "weather.json", &weather_envelope());
    let screen =
        Screen::start_with_stdin(&dir, &["prompt", "-"], &[EN], 80, 30, Some(file.as_str()));
    screen.wait_for("1. city *");
    screen.answer("Faro");
    screen.wait_for("2. temperature_unit");
    screen.answer("");
    screen.wait_for("Enter: Submit");
    screen.press(&["Enter"]);
    let done = screen.finish();
    assert_eq!(done.status, 0, "{done:?}");
    assert_eq!(
        json(&done.stdout),
        json!({"action": "accept", "content": {"city": "Faro"}})
    );
}

#[test]
fn messages_register_a_language_with_its_own_plurals_and_a_broken_file_is_refused() {
    let dir = std::env::temp_dir().join(format!("koder-elicit-messages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Polish: 5 is "many", where English would say "other".
    let polish = dir.join("pl.ftl");
    std::fs::write(
        &polish,
        "mcp-elicitation-field_required = Wymagane\n\
         mcp-elicitation-error-min_length = { $limit ->\n\
         \x20   [one] Wpisz co najmniej { $limit } znak\n\
         \x20   [few] Wpisz co najmniej { $limit } znaki\n\
         \x20   [many] Wpisz co najmniej { $limit } znaków\n\
         \x20  *[other] Wpisz co najmniej { $limit } znaku\n\
         }\n",
    )
    .unwrap();
    let request = json!({"message": "Kto?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "minLength": 5}, "city": {"type": "string"},
            "code": {"type": "string", "pattern": "^[0-9]+$"}},
        "required": ["city"]}})
    .to_string();
    let polish_path = polish.to_str().unwrap();
    let (status, stdout, stderr) = run_detached(
        &[
            "prompt",
            "--messages",
            polish_path,
            "--lang",
            "pl",
            "--answers",
            r#"{"name": "ab"}"#,
        ],
        &request,
    );
    assert_eq!(status, 5, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "koder-elicit: name: Wpisz co najmniej 5 znaków\nkoder-elicit: city: Wymagane\n"
    );
    // A message the file leaves out falls back to English, never to its id.
    let (_, _, stderr) = run_detached(
        &[
            "prompt",
            "--messages",
            polish_path,
            "--lang",
            "pl",
            "--answers",
            r#"{"city": "Kraków", "code": "abc"}"#,
        ],
        &request,
    );
    assert_eq!(
        stderr,
        "koder-elicit: code: Does not match the expected format\n"
    );
    // A broken file registers nothing and names the message.
    let broken = dir.join("broken.ftl");
    std::fs::write(&broken, "mcp-elicitation-field_required = { $nope\n").unwrap();
    let (status, _, stderr) = run_detached(
        &[
            "prompt",
            "--messages",
            broken.to_str().unwrap(),
            "--lang",
            "pl",
            "--answers",
            "{}",
        ],
        &request,
    );
    assert_eq!(status, 64);
    assert!(stderr.contains("broken.ftl"), "{stderr}");
    assert!(
        stderr.contains("mcp-elicitation-field_required"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arabic_messages_take_all_six_plural_categories() {
    let dir = std::env::temp_dir().join(format!("koder-elicit-arabic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let arabic = dir.join("ar.ftl");
    std::fs::write(
        &arabic,
        "mcp-elicitation-error-max_length = { $limit ->\n\
         \x20   [zero] zero { $limit }\n\
         \x20   [one] one { $limit }\n\
         \x20   [two] two { $limit }\n\
         \x20   [few] few { $limit }\n\
         \x20   [many] many { $limit }\n\
         \x20  *[other] other { $limit }\n\
         }\n",
    )
    .unwrap();
    // Named in order, so the fields come in that order whatever order JSON objects keep.
    let limits = [
        ("a", 0),
        ("b", 1),
        ("c", 2),
        ("d", 3),
        ("e", 11),
        ("f", 100),
    ];
    let mut properties = serde_json::Map::new();
    let mut answers = serde_json::Map::new();
    for (name, limit) in limits {
        properties.insert(
            name.to_string(),
            json!({"type": "string", "maxLength": limit}),
        );
        answers.insert(name.to_string(), json!("x".repeat(limit + 1)));
    }
    let request = json!({"message": "؟", "requestedSchema": {"type": "object",
        "properties": properties}})
    .to_string();
    let (status, _, stderr) = run_detached(
        &[
            "prompt",
            "--messages",
            arabic.to_str().unwrap(),
            "--lang",
            "ar",
            "--answers",
            &serde_json::Value::Object(answers).to_string(),
        ],
        &request,
    );
    assert_eq!(status, 5, "{stderr}");
    assert_eq!(
        stderr,
        "koder-elicit: a: zero 0\nkoder-elicit: b: one 1\nkoder-elicit: c: two 2\n\
         koder-elicit: d: few 3\nkoder-elicit: e: many 11\nkoder-elicit: f: other 100\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_servers_bidi_controls_never_reach_the_terminal() {
    let dir = scratch("bidi");
    let request = json!({"message": "Pay \u{202E}0001$ to\u{2067} acme", "requestedSchema": {
        "type": "object", "properties": {"city": {"type": "string", "title": "\u{202E}ytic"}},
        "required": ["city"]}});
    let file = request_file(&dir, "bidi.json", &request);
    let screen = Screen::start(&dir, &["prompt", &file], &[EN], 80, 30);
    let shown = screen.wait_for("›");
    assert!(
        shown.contains("Pay \u{FFFD}0001$ to\u{FFFD} acme"),
        "{shown}"
    );
    assert!(shown.contains("1. \u{FFFD}ytic *"), "{shown}");
    assert!(
        !shown.contains(['\u{202E}', '\u{2067}']),
        "bidi controls reached the terminal: {shown}"
    );
    screen.press(&["Escape"]);
    screen.finish();
}

#[test]
fn errors_without_a_terminal_show_control_and_bidi_characters_as_replacements() {
    // A server's field name that would clear the screen and reverse the rest of the line.
    let name = "ci\u{1b}[2Jty\u{202E}";
    let request = json!({"message": "Where?", "requestedSchema": {
        "type": "object", "properties": {name: {"type": "string"}}, "required": [name]}});
    let answers = json!({"to\u{9b}wn\u{2067}": "x"}).to_string();
    let (status, stdout, stderr) =
        run_detached(&["prompt", "--answers", &answers], &request.to_string());
    assert_eq!(status, 5);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "koder-elicit: to\u{FFFD}wn\u{FFFD} matches no field of this form\n\
         koder-elicit: ci\u{FFFD}[2Jty\u{FFFD}: Required\n"
    );
    // A malformed request's message names the server's key the same way.
    let round = json!({"resultType": "input_required", "inputRequests": {
        "lo\u{1b}]0;gin\u{202E}": {"method": "elicitation/create", "params": {"mode": "url", "url": "https://example.com"}}}});
    let (status, _, stderr) = run_detached(&["prompt"], &round.to_string());
    assert_eq!(status, 4);
    assert_eq!(
        stderr,
        "koder-elicit: error -32602: inputRequests.lo\u{FFFD}]0;gin\u{FFFD}.params.message is required\n"
    );
}
