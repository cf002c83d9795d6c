//! E-mail to several people, reminders and escalation (contract §12), against a real relay over
//! HTTP on a SQLite file that mails through lettre's real SMTP client to a small SMTP server in
//! this test and sends its webhooks to a receiver here: each address its own message and link,
//! the answer through one attributed to its address, a reminder once and only while open, an
//! escalation stage that admits its audience only when its time comes, mails its addresses and
//! sends one webhook, and nothing for a question answered first.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use http_support::hooks::{webhook_of, webhook_receiver};
use http_support::smtp::{links_in, part, relay_mailing, smtp_server, Inbox};
use http_support::{person, Relay, TempDir, SERVICE_TOKEN};
use koder_elicitation_relay::channels::webhooks::{
    self, RetrySchedule, WebhookConfig, WebhookSecret,
};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const PUBLIC_URL: &str = "https://relay.example.com";
const WEBHOOK_KEY: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const TEAM: [&str; 3] = ["ana@example.com", "bo@example.com", "cy@example.com"];

/// A relay mailing through `port`, sending its webhooks to `hook`.
async fn relay(port: u16, assets: &TempDir, hook: &str) -> Relay {
    std::fs::write(assets.0.join("koder-mcp-elicitation.js"), "export {};\n").unwrap();
    let hook = hook.to_string();
    relay_mailing(port, assets, PUBLIC_URL, move |config| {
        config.webhook = Some(WebhookConfig {
            url: webhooks::parse_url(&hook).unwrap(),
            secret: WebhookSecret::parse(WEBHOOK_KEY, "test").unwrap(),
            retries: RetrySchedule::scaled(0.001),
        });
    })
    .await
}

/// The messages about the question `id` (their `Message-ID` names it).
fn messages_about(inbox: &Inbox, id: &str) -> Vec<String> {
    inbox
        .lock()
        .unwrap()
        .iter()
        .filter(|message| message.contains(&format!("<elicitation-{id}")))
        .cloned()
        .collect()
}

/// The messages about `id`, once there are `count` of them (within 20 s).
async fn wait_for_messages(inbox: &Inbox, id: &str, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let messages = messages_about(inbox, id);
        if messages.len() >= count {
            return messages;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {count} messages about {id}",
            messages.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A header's value in a message as sent.
fn header<'m>(message: &'m str, name: &str) -> &'m str {
    let head = message.split("\r\n\r\n").next().unwrap();
    head.lines()
        .find_map(|line| line.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} in {head}"))
}

/// The answer link a message carries (its text part's first).
fn link_of(message: &str) -> String {
    links_in(PUBLIC_URL, &part(message, "text/plain"))
        .into_iter()
        .next()
        .unwrap()
}

/// A link holder's call: `POST path` with `body`, no credentials.
async fn holder(relay: &Relay, path: &str, body: Value) -> (StatusCode, Value) {
    relay
        .call(Method::POST, path, None, Some(body.to_string()))
        .await
}

fn token_of(link: &str) -> String {
    link.split_once("#t=").unwrap().1.to_string()
}

/// The audit entries about `id`.
async fn audit_of(relay: &Relay, id: &str) -> Vec<Value> {
    let response = relay
        .client
        .get(format!("{}/v1/audit", relay.url))
        .bearer_auth(SERVICE_TOKEN)
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry["elicitationId"] == id)
        .collect()
}

fn deploy(notify: Value) -> Value {
    json!({
        "scope": {"userId": "ana", "workspaceId": "acme"},
        "request": {"message": "Deploy build 42?", "requestedSchema":
            {"type": "object", "properties": {"note": {"type": "string"}}}},
        "serverName": "Deployer",
        "timeoutMs": 120_000,
        "notify": notify,
    })
}

fn accepted() -> Value {
    json!({"action": "accept", "content": {"note": "go"}})
}

#[tokio::test]
async fn each_address_gets_its_own_link_and_the_answer_through_one_names_it() {
    let (port, inbox) = smtp_server();
    let assets = TempDir::new("schedule-dist");
    let (hook, received) = webhook_receiver(0).await;
    let relay = relay(port, &assets, &hook).await;

    // An address off the allow list is named.
    let (status, body) = relay
        .create(deploy(
            json!({"email": ["ana@example.com", "eve@example.org"]}),
        ))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("eve@example.org"),
        "{body}"
    );

    let mut team = deploy(json!({"email": TEAM}));
    team["scope"] = json!({"workspaceId": "acme"});
    team["audience"] = json!({"users": ["ana", "bo", "cy"]});
    let id = relay.create_id(team).await;
    let messages = wait_for_messages(&inbox, &id, 3).await;
    let to: BTreeSet<&str> = messages.iter().map(|m| header(m, "To")).collect();
    assert_eq!(to, TEAM.into_iter().collect::<BTreeSet<_>>());
    let ids: BTreeSet<&str> = messages.iter().map(|m| header(m, "Message-ID")).collect();
    assert_eq!(ids.len(), 3, "one Message-ID each: {ids:?}");
    let links: Vec<(String, String)> = messages
        .iter()
        .map(|m| (header(m, "To").to_string(), link_of(m)))
        .collect();
    let distinct: BTreeSet<&String> = links.iter().map(|(_, link)| link).collect();
    assert_eq!(distinct.len(), 3, "three distinct links: {links:?}");

    // Bo answers through his link.
    let (bo, bo_link) = links.iter().find(|(to, _)| to == TEAM[1]).unwrap();
    let token = token_of(bo_link);
    let (status, body) = holder(
        &relay,
        "/v1/links/answer",
        json!({"token": token, "result": accepted()}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, result) = relay.result(&id, 0.0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(result["answeredBy"]["email"], json!(bo), "{result}");
    let link_id = result["answeredBy"]["link"].as_str().unwrap().to_string();
    let settled = webhook_of(&received, "elicitation.settled").await;
    assert_eq!(
        settled["data"]["answeredBy"]["email"],
        json!(bo),
        "{settled}"
    );
    let audit = audit_of(&relay, &id).await;
    assert!(
        audit
            .iter()
            .any(|entry| entry["action"] == "answered:accept"
                && entry["actor"] == format!("link:{link_id}")),
        "the audit names the link answeredBy names: {audit:?}"
    );

    // Everyone else's link now reads as already answered, and cannot answer.
    for (to, link) in links.iter().filter(|(to, _)| to != bo) {
        let token = token_of(link);
        let (status, view) = holder(&relay, "/v1/links/view", json!({"token": token})).await;
        assert_eq!(status, StatusCode::OK, "{to}: {view}");
        assert_eq!(view["elicitation"]["status"], "settled", "{to}: {view}");
        let (status, _) = holder(
            &relay,
            "/v1/links/answer",
            json!({"token": token, "result": accepted()}),
        )
        .await;
        assert_eq!(status, StatusCode::CONFLICT, "{to}");
    }
    // The relay's links are not a host's: the host may still make its 256.
    relay.link(&id).await;
    assert_eq!(
        relay
            .server()
            .store()
            .links
            .count_for_hosts(&id)
            .await
            .unwrap(),
        1
    );
}

/// The reminders about `id` among the messages.
fn reminders(inbox: &Inbox, id: &str) -> Vec<String> {
    messages_about(inbox, id)
        .into_iter()
        .filter(|message| header(message, "Subject").starts_with("Reminder:"))
        .collect()
}

#[tokio::test]
async fn a_reminder_comes_once_while_the_question_is_open_and_never_after() {
    let (port, inbox) = smtp_server();
    let assets = TempDir::new("schedule-dist");
    let (hook, _received) = webhook_receiver(0).await;
    let relay = relay(port, &assets, &hook).await;
    let (status, body) = relay
        .create(deploy(
            json!({"email": "ana@example.com", "remindAfter": "9s"}),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    let notify = json!({"email": ["ana@example.com", "bo@example.com"], "remindAfter": "10s"});
    let open = relay.create_id(deploy(notify.clone())).await;
    let answered = relay.create_id(deploy(notify)).await;
    let first = wait_for_messages(&inbox, &open, 2).await;
    wait_for_messages(&inbox, &answered, 2).await;
    let (status, body) = relay
        .answer(&person("ana", "acme"), &answered, accepted())
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(reminders(&inbox, &open).is_empty(), "not before its time");

    let deadline = Instant::now() + Duration::from_secs(25);
    while reminders(&inbox, &open).len() < 2 {
        assert!(Instant::now() < deadline, "no reminders");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A while longer: still one each, and none for the question answered before its time.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let reminded = reminders(&inbox, &open);
    assert_eq!(reminded.len(), 2, "one reminder per address");
    for reminder in &reminded {
        let to = header(reminder, "To");
        let original = first.iter().find(|m| header(m, "To") == to).unwrap();
        assert_eq!(
            link_of(reminder),
            link_of(original),
            "the same link for {to}"
        );
        assert_eq!(
            header(reminder, "Subject"),
            "Reminder: Deployer needs your input"
        );
    }
    assert!(reminders(&inbox, &answered).is_empty());
    assert_eq!(messages_about(&inbox, &answered).len(), 2);
}

/// The `elicitation.escalated` webhooks received about `id`.
fn escalations(received: &Mutex<Vec<Value>>, id: &str) -> Vec<Value> {
    received
        .lock()
        .unwrap()
        .iter()
        .filter(|body| body["type"] == "elicitation.escalated" && body["data"]["id"] == id)
        .cloned()
        .collect()
}

fn team_question(after: &str) -> Value {
    json!({
        "scope": {"workspaceId": "acme"},
        "audience": {"users": ["ana"]},
        "request": {"message": "Deploy build 42?", "requestedSchema":
            {"type": "object", "properties": {"note": {"type": "string"}}}},
        "serverName": "Deployer",
        "timeoutMs": 120_000,
        "escalate": [{"after": after, "audience": {"users": ["bo"]},
                      "notify": {"email": "cy@example.com"}}],
    })
}

#[tokio::test]
async fn an_escalation_stage_admits_its_audience_in_its_time_mails_and_tells_the_host_once() {
    let (port, inbox) = smtp_server();
    let assets = TempDir::new("schedule-dist");
    let (hook, received) = webhook_receiver(0).await;
    let relay = relay(port, &assets, &hook).await;
    let bo = person("bo", "acme");

    let escalating = relay.create_id(team_question("3s")).await;
    let answered = relay.create_id(team_question("3s")).await;
    let (status, body) = relay
        .answer(&person("ana", "acme"), &answered, accepted())
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Before its time, Bo sees nothing of it.
    let ids = |list: Vec<Value>| -> Vec<String> {
        list.iter()
            .map(|view| view["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(ids(relay.pending(&bo).await).is_empty());
    let (status, _) = relay.status(&bo, &escalating).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(messages_about(&inbox, &escalating).is_empty());

    let escalated = webhook_of(&received, "elicitation.escalated").await;
    assert_eq!(
        escalated["data"],
        json!({"id": escalating, "stage": 1}),
        "{escalated}"
    );
    assert_eq!(ids(relay.pending(&bo).await), [escalating.as_str()]);
    let mailed = wait_for_messages(&inbox, &escalating, 1).await;
    assert_eq!(header(&mailed[0], "To"), "cy@example.com");
    let (_, result) = relay.result(&escalating, 0.0).await;
    assert_eq!(result["escalated"], 1, "{result}");
    let audit = audit_of(&relay, &escalating).await;
    assert_eq!(
        audit
            .iter()
            .filter(|entry| entry["action"] == "escalated:1")
            .count(),
        1,
        "{audit:?}"
    );

    // A while longer: one webhook, one message; nothing for the question answered first.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(escalations(&received, &escalating).len(), 1);
    assert_eq!(messages_about(&inbox, &escalating).len(), 1);
    assert!(escalations(&received, &answered).is_empty());
    assert!(messages_about(&inbox, &answered).is_empty());
    let (_, result) = relay.result(&answered, 0.0).await;
    assert_eq!(result["escalated"], 0, "{result}");
}
