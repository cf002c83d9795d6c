//! One tap through links and e-mail (contract §13), against a real relay over HTTP on a SQLite
//! file that mails through lettre's real SMTP client to a small SMTP server in this test: a
//! one-tap question's message carries one choice link per choice (`#t=<token>&c=<n>`) in both
//! parts, all on the message's one token, and a text question's none; the link's view gives the
//! core's choices in the caller's language, and posting one's result answers with it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use http_support::smtp::{part, smtp_server, Inbox};
use http_support::{Relay, TempDir};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const PUBLIC_URL: &str = "https://relay.example.com";

/// A relay with the answer page on, mailing through the SMTP server at `port`.
async fn relay_mailing(port: u16, assets: &TempDir) -> Relay {
    http_support::smtp::relay_mailing(port, assets, PUBLIC_URL, |_| {}).await
}

/// Every answer link in `text`.
fn links_in(text: &str) -> Vec<String> {
    http_support::smtp::links_in(PUBLIC_URL, text)
}

/// Creates a question about `schema` that asks for an e-mail (in `language`); its id.
async fn create_mailed(relay: &Relay, schema: Value, language: &str) -> String {
    relay
        .create_id(json!({
            "scope": {"userId": "ana", "workspaceId": "acme"},
            "request": {"message": "Deploy build 42?", "requestedSchema": schema},
            "serverName": "Deployer",
            "notify": {"email": "ana@example.com", "language": language},
        }))
        .await
}

/// The message whose `Message-ID` names `id`, once it has arrived.
async fn message_about(inbox: &Inbox, id: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let found = inbox
            .lock()
            .unwrap()
            .iter()
            .find(|message| message.contains(&format!("<elicitation-{id}@relay.test>")))
            .cloned();
        if let Some(message) = found {
            return message;
        }
        assert!(Instant::now() < deadline, "no message about {id}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The words of the HTML button (`<a href="…" …>words</a>`) that opens `link`.
fn button_words(html: &str, link: &str) -> Option<String> {
    let start = html.find(&format!("<a href=\"{}\"", link.replace('&', "&amp;")))?;
    let (_, after_tag) = html[start..].split_once('>')?;
    Some(after_tag.split_once("</a>")?.0.to_string())
}

/// The token of a link, and its choice (`c`), if any.
fn token_and_choice(link: &str) -> (String, Option<String>) {
    let fragment = link.split_once("#t=").unwrap().1;
    match fragment.split_once("&c=") {
        Some((token, choice)) => (token.to_string(), Some(choice.to_string())),
        None => (fragment.to_string(), None),
    }
}

#[tokio::test]
async fn one_tap_shapes_get_a_link_per_choice_in_both_parts_and_a_text_question_none() {
    let (port, inbox) = smtp_server();
    let assets = TempDir::new("one-tap-dist");
    let relay = relay_mailing(port, &assets).await;
    let select = json!({"type": "object", "properties": {"env": {"type": "string", "title": "Where",
        "oneOf": [{"const": "stg", "title": "Staging"}, {"const": "prd", "title": "Production"},
                  {"const": "dev", "title": "Dev"}]}}});
    let cases = [
        (
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
            "en-US",
            vec!["Yes", "No", "Reject"],
        ),
        (
            select,
            "en-US",
            vec!["Staging", "Production", "Dev", "Reject"],
        ),
        (
            json!({"type": "object", "properties": {}}),
            "pt-BR",
            vec!["Aceitar", "Recusar"],
        ),
        (
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            "en-US",
            vec![],
        ),
    ];
    for (schema, language, titles) in cases {
        let id = create_mailed(&relay, schema.clone(), language).await;
        let message = message_about(&inbox, &id).await;
        let text = part(&message, "text/plain");
        let html = part(&message, "text/html");
        for (part_name, body) in [("text", &text), ("html", &html)] {
            let links = links_in(body);
            let tokens: BTreeSet<String> =
                links.iter().map(|link| token_and_choice(link).0).collect();
            assert_eq!(
                tokens.len(),
                1,
                "one token per message ({part_name}): {body}"
            );
            let choices: Vec<String> = links
                .iter()
                .filter_map(|link| token_and_choice(link).1)
                .collect();
            let expected: Vec<String> = (0..titles.len()).map(|n| n.to_string()).collect();
            assert_eq!(choices, expected, "{schema} ({part_name}): {body}");
        }
        // Each choice by its words: a line of its own in the text part, a button in the HTML.
        let token = token_and_choice(&links_in(&text)[0]).0;
        for (index, title) in titles.iter().enumerate() {
            let link = format!("{PUBLIC_URL}/answer/#t={token}&c={index}");
            assert!(
                text.lines().any(|line| line == format!("{title}: {link}")),
                "{title}: {text}"
            );
            assert_eq!(
                button_words(&html, &link).as_deref(),
                Some(*title),
                "{html}"
            );
        }
        if titles.is_empty() {
            assert!(html.contains(">Answer</a>"), "{html}");
        } else {
            assert!(!html.contains(">Answer</a>") && !html.contains(">Responder</a>"));
        }
    }
}

#[tokio::test]
async fn a_links_view_gives_the_cores_choices_in_the_callers_language_and_one_answers() {
    let (port, inbox) = smtp_server();
    let assets = TempDir::new("one-tap-dist");
    let relay = relay_mailing(port, &assets).await;
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean", "title": "Deploy now"}}});
    let id = create_mailed(&relay, schema, "pt-BR").await;
    let message = message_about(&inbox, &id).await;
    let text = part(&message, "text/plain");
    assert!(text.contains("Sim: "), "{text}");
    let (token, _) = token_and_choice(&links_in(&text)[0]);

    let view = |language: &'static str| {
        let relay = &relay;
        let token = token.clone();
        async move {
            let response = relay
                .client
                .post(format!("{}/v1/links/view", relay.url))
                .header("accept-language", language)
                .json(&json!({ "token": token }))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.json::<Value>().await.unwrap()
        }
    };
    let english = view("en-US,en;q=0.9").await;
    assert_eq!(
        english["oneTap"],
        json!({"message": "Deploy build 42?", "question": "Deploy now", "choices": [
            {"title": "Yes", "result": {"action": "accept", "content": {"ok": true}}},
            {"title": "No", "result": {"action": "accept", "content": {"ok": false}}},
            {"title": "Reject", "result": {"action": "decline"}},
        ]})
    );
    let portuguese = view("pt-BR").await;
    let titles: Vec<&str> = portuguese["oneTap"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|choice| choice["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Sim", "Não", "Recusar"]);

    // "No" (c=1), posted as the view gives it, is the answer the host reads.
    let chosen = english["oneTap"]["choices"][1]["result"].clone();
    let (status, body) = relay
        .call(
            Method::POST,
            "/v1/links/answer",
            None,
            Some(json!({ "token": token, "result": chosen }).to_string()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, outcome) = relay.result(&id, 0.0).await;
    assert_eq!(
        http_support::answered_through_a_link(outcome, Some("ana@example.com")),
        json!({"status": "settled", "result": {"action": "accept", "content": {"ok": false}}})
    );
    // Over: no choices, nothing of the question.
    let over = view("en-US").await;
    assert_eq!(over.get("oneTap"), None);
    assert_eq!(over["elicitation"]["status"], "settled");

    // A text question's view has none.
    let text_id = create_mailed(
        &relay,
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        "en-US",
    )
    .await;
    let text = part(&message_about(&inbox, &text_id).await, "text/plain");
    let (text_token, choice) = token_and_choice(&links_in(&text)[0]);
    assert_eq!(choice, None);
    let (status, body) = relay
        .call(
            Method::POST,
            "/v1/links/view",
            None,
            Some(json!({ "token": text_token }).to_string()),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["elicitation"]["status"], "pending");
    assert_eq!(body.get("oneTap"), None);
}
