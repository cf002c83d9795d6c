//! Answer links and the answer page, against a real relay over HTTP on SQLite (and one case on
//! PostgreSQL): hosts get links, a link reads and answers its one elicitation and nothing else,
//! every token that names no link gets one identical 404, a settled, expired or withdrawn
//! question shows only how it ended, the answer is journalled as made by the link, the created
//! webhook carries a link, the page and its files are served under the CSP, and no token reaches
//! a log line.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_support::hooks::{webhook_of, webhook_receiver};
use http_support::postgres::Postgres;
use http_support::{create_body, person, Relay, TempDir, SERVICE_TOKEN};
use koder_elicitation_relay::answer_page::AnswerPageSettings;
use koder_elicitation_relay::channels::webhooks::{
    self, RetrySchedule, WebhookConfig, WebhookSecret,
};
use koder_elicitation_relay::Config;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const PUBLIC_URL: &str = "https://relay.example.com";
const WEBHOOK_KEY: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ELEMENT: &str = "export const element = 'koder-mcp-elicitation';\n";

/// The element's files as `dist/` holds them, and a file outside them a link points at.
struct Assets {
    dist: TempDir,
    _outside: TempDir,
}

fn assets() -> Assets {
    let dist = TempDir::new("dist");
    let outside = TempDir::new("outside");
    std::fs::write(dist.0.join("koder-mcp-elicitation.js"), ELEMENT).unwrap();
    std::fs::create_dir_all(dist.0.join("pkg")).unwrap();
    std::fs::write(dist.0.join("pkg/core_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dist.0.join("notes.txt"), "not served").unwrap();
    std::fs::write(dist.0.join("pkg.js"), "dir beside").unwrap();
    std::fs::write(outside.0.join("secret.js"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.0.join("secret.js"), dist.0.join("leak.js")).unwrap();
    Assets {
        dist,
        _outside: outside,
    }
}

/// A relay with the answer page on (links on https://relay.example.com), and `adjust` applied.
async fn relay_with_page(assets: &Assets, adjust: impl FnOnce(&mut Config)) -> Relay {
    let page = AnswerPageSettings::new(PUBLIC_URL, &assets.dist.0).unwrap();
    Relay::start_with(|config| {
        config.answer_page = Some(page);
        adjust(config);
    })
    .await
}

/// The token of a link (what follows `#t=`).
fn token_of(url: &str) -> String {
    let (page, token) = url.split_once("#t=").unwrap();
    assert_eq!(page, format!("{PUBLIC_URL}/answer/"));
    token.to_string()
}

/// `POST /v1/elicitations/{id}/link` with `token`: (status, body).
async fn post_link(relay: &Relay, id: &str, token: Option<&str>) -> (StatusCode, Value) {
    let path = format!("/v1/elicitations/{id}/link");
    relay.call(Method::POST, &path, token, None).await
}

/// A link holder's call: `POST path` with `body`, no credentials; (status, body as text).
async fn holder(relay: &Relay, path: &str, body: Value) -> (StatusCode, String) {
    relay
        .call_text(Method::POST, path, None, Some(body.to_string()))
        .await
}

async fn view(relay: &Relay, token: &str) -> (StatusCode, Value) {
    let (status, text) = holder(relay, "/v1/links/view", json!({ "token": token })).await;
    (status, serde_json::from_str(&text).unwrap())
}

async fn answer(relay: &Relay, token: &str, result: Value) -> (StatusCode, Value) {
    let body = json!({ "token": token, "result": result });
    let (status, text) = holder(relay, "/v1/links/answer", body).await;
    (status, serde_json::from_str(&text).unwrap())
}

fn lisbon() -> Value {
    json!({"action": "accept", "content": {"city": "Lisbon"}})
}

/// The keys of a link's elicitation, sorted.
fn keys(view: &Value) -> Vec<String> {
    let mut keys: Vec<String> = view["elicitation"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

#[tokio::test]
async fn hosts_get_a_new_link_each_call_and_only_with_the_service_token() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let (status, created) = relay.create(create_body("ana", "acme", "c1")).await;
    assert_eq!(status, StatusCode::CREATED);
    let id = created["id"].as_str().unwrap();
    let (status, body) = post_link(&relay, id, Some(SERVICE_TOKEN)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["expiresAt"], created["expiresAt"]);
    let first = body["url"].as_str().unwrap();
    let token = token_of(first);
    assert_eq!(token.len(), 43);
    assert!(token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    let second = relay.link(id).await;
    assert_ne!(first, second, "a new link each call");
    // Both reach it.
    for url in [first, second.as_str()] {
        let (status, shown) = view(&relay, &token_of(url)).await;
        assert_eq!(status, StatusCode::OK, "{shown}");
        assert_eq!(shown["elicitation"]["id"], json!(id));
    }
    assert_eq!(relay.server().store().links.count_for(id).await.unwrap(), 2);
    // A host's links are rows: an elicitation has at most 256, then 409 says so.
    for _ in 2..256 {
        relay.link(id).await;
    }
    let (status, body) = post_link(&relay, id, Some(SERVICE_TOKEN)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["error"]["message"],
        "this elicitation has 256 links, the most it may have"
    );
    assert_eq!(
        relay.server().store().links.count_for(id).await.unwrap(),
        256
    );

    let unknown = "0123456789abcdef0123456789abcdef";
    let (status, body) = post_link(&relay, unknown, Some(SERVICE_TOKEN)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["message"], "no such elicitation");
    let (status, _) = post_link(&relay, id, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = post_link(&relay, id, Some(&person("ana", "acme"))).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a person's token is not a host's"
    );

    // Without the page: no links, and it says why.
    let off = Relay::start().await;
    let id = off.create_id(create_body("ana", "acme", "c1")).await;
    let (status, body) = post_link(&off, &id, Some(SERVICE_TOKEN)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--answer-page"),
        "{body}"
    );
    let (status, _) = holder(&off, "/v1/links/view", json!({"token": "x"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = off.call_text(Method::GET, "/answer/", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_link_shows_its_question_and_its_answer_reaches_the_host_journalled_as_the_link() {
    let assets = assets();
    let relay = Arc::new(relay_with_page(&assets, |_| {}).await);
    let id = relay.create_id(create_body("ana", "acme", "c1")).await;
    let token = token_of(&relay.link(&id).await);

    let (status, shown) = view(&relay, &token).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    let elicitation = &shown["elicitation"];
    assert_eq!(elicitation["id"], json!(id));
    assert_eq!(elicitation["status"], "pending");
    assert_eq!(elicitation["request"]["message"], "Which city?");
    assert_eq!(elicitation["serverName"], "weather");
    let left = elicitation["expiresInMs"].as_i64().unwrap();
    assert!(left > 0 && left <= 300_000, "{left}");
    assert!(elicitation.get("scope").is_none(), "no tenant ids: {shown}");

    // The host waits; the answer through the link wakes it with exactly that answer.
    let waiting = {
        let (relay, id) = (Arc::clone(&relay), id.clone());
        tokio::spawn(async move { relay.result(&id, 20.0).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Checked as a person's answer is: the schema's minLength.
    let (status, refused) = answer(
        &relay,
        &token,
        json!({"action": "accept", "content": {"city": "L"}}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"]["errors"][0]["path"], "/city");
    // A program answering through a link (a chat bot) reads plain text: no isolation marks
    // around the server's property name.
    let (status, refused) =
        answer(&relay, &token, json!({"action": "accept", "content": {}})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(
        refused["error"]["errors"][0]["message"],
        json!("city is required")
    );
    let (status, body) = holder(
        &relay,
        "/v1/links/answer",
        json!({"token": token, "result": {"action": "maybe"}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    let started = Instant::now();
    let (status, settled) = answer(&relay, &token, lisbon()).await;
    assert_eq!(status, StatusCode::OK, "{settled}");
    assert_eq!(
        settled,
        json!({"elicitation": {"id": id, "status": "settled"}})
    );
    let (status, result) = waiting.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        http_support::answered_through_a_link(result, None),
        json!({"status": "settled", "result": lisbon()})
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    // Once answered: only how it ended, and a second answer conflicts.
    let (status, shown) = view(&relay, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        shown,
        json!({"elicitation": {"id": id, "status": "settled"}})
    );
    let (status, again) = answer(&relay, &token, lisbon()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["error"]["message"], "already settled");
    assert!(!again.to_string().contains("Lisbon"));

    // The audit trail names the link, not a person.
    let deadline = Instant::now() + Duration::from_secs(5);
    let answered = loop {
        let (status, text) = relay
            .call_text(Method::GET, "/v1/audit", Some(SERVICE_TOKEN), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        let entries: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        if let Some(entry) = entries
            .iter()
            .find(|entry| entry["action"] == "answered:accept")
        {
            break entry.clone();
        }
        assert!(Instant::now() < deadline, "no answered entry: {text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(answered["elicitationId"], json!(id));
    let actor = answered["actor"].as_str().unwrap();
    let link_id = actor
        .strip_prefix("link:")
        .unwrap_or_else(|| panic!("{actor}"));
    assert_eq!(link_id.len(), 32, "{actor}");
    assert!(!actor.contains(&token), "the link's id, never its token");
}

#[tokio::test]
async fn a_link_reaches_its_one_elicitation_and_nothing_else() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let a = relay.create_id(create_body("ana", "acme", "c1")).await;
    let b = relay.create_id(create_body("ana", "acme", "c1")).await;
    let token_a = token_of(&relay.link(&a).await);
    // Whatever else the body names, A's token reads and answers A.
    let (status, text) = holder(
        &relay,
        "/v1/links/view",
        json!({"token": token_a, "id": b, "elicitationId": b}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let shown: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(shown["elicitation"]["id"], json!(a));
    let (status, text) = holder(
        &relay,
        "/v1/links/answer",
        json!({"token": token_a, "id": b, "result": lisbon()}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(relay.result(&a, 0.0).await.1["status"], "settled");
    assert_eq!(relay.result(&b, 0.0).await.1, json!({"status": "pending"}));
    let (_, metrics) = relay
        .call_text(Method::GET, "/metrics", Some(SERVICE_TOKEN), None)
        .await;
    let answered = "koder_relay_answer_links_total{outcome=\"answered\"} 1";
    assert!(metrics.contains(answered), "{metrics}");
    // A link is no person's token: the people's API does not take it.
    let (status, _) = relay
        .call(Method::GET, "/v1/elicitations", Some(&token_a), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = relay.answer(&token_a, &b, lisbon()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn every_token_that_names_no_link_gets_one_identical_404() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let id = relay.create_id(create_body("ana", "acme", "c1")).await;
    let token = token_of(&relay.link(&id).await);
    // One character changed: well formed, forged.
    let mut forged = token.clone().into_bytes();
    forged[10] = if forged[10] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    let unknown = "A".repeat(43);
    let malformed: [&str; 5] = [
        "",
        "short",
        &format!("{token}="),
        &"é".repeat(43),
        &token[..42],
    ];
    let mut bodies = Vec::new();
    for path in ["/v1/links/view", "/v1/links/answer"] {
        for candidate in [forged.as_str(), unknown.as_str()]
            .into_iter()
            .chain(malformed)
        {
            let (status, text) = holder(
                &relay,
                path,
                json!({"token": candidate, "result": lisbon()}),
            )
            .await;
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{path} {candidate:?}: {text}"
            );
            bodies.push(text);
        }
    }
    assert!(bodies.iter().all(|body| body == &bodies[0]), "{bodies:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&bodies[0]).unwrap(),
        json!({"error": {"status": 404, "message": "no such link"}})
    );
    // Still unanswered.
    assert_eq!(relay.result(&id, 0.0).await.1, json!({"status": "pending"}));
    // Operators see the refusals counted.
    let (status, metrics) = relay
        .call_text(Method::GET, "/metrics", Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    for line in [
        "koder_relay_answer_links_total{outcome=\"minted\"} 1",
        &format!(
            "koder_relay_answer_links_total{{outcome=\"unknown\"}} {}",
            bodies.len()
        ),
    ] {
        assert!(metrics.contains(line), "{line} in\n{metrics}");
    }
    assert!(!metrics.contains("outcome=\"answered\""), "{metrics}");
}

#[tokio::test]
async fn a_token_in_a_query_string_is_never_read() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let id = relay.create_id(create_body("ana", "acme", "c1")).await;
    let token = token_of(&relay.link(&id).await);
    for path in ["/v1/links/view", "/v1/links/answer"] {
        let with_query = format!("{path}?token={token}&t={token}");
        let (status, text) = holder(&relay, &with_query, json!({"result": lisbon()})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {text}");
        assert!(text.contains("token is required"), "{text}");
        let (status, _) = relay.call_text(Method::GET, &with_query, None, None).await;
        assert_eq!(
            status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{path}: a GET changes nothing"
        );
    }
    assert_eq!(relay.result(&id, 0.0).await.1, json!({"status": "pending"}));
}

#[tokio::test]
async fn expired_and_withdrawn_links_show_that_and_nothing_else() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let mut expiring = create_body("ana", "acme", "c1");
    expiring["timeoutMs"] = json!(1_000);
    let expired = relay.create_id(expiring).await;
    let withdrawn = relay.create_id(create_body("ana", "acme", "c1")).await;
    let expired_token = token_of(&relay.link(&expired).await);
    let withdrawn_token = token_of(&relay.link(&withdrawn).await);
    let path = format!("/v1/elicitations/{withdrawn}");
    let (status, _) = relay
        .call(Method::DELETE, &path, Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    for (id, token, status_word) in [
        (&expired, &expired_token, "expired"),
        (&withdrawn, &withdrawn_token, "withdrawn"),
    ] {
        let (status, shown) = view(&relay, token).await;
        assert_eq!(status, StatusCode::OK, "{shown}");
        assert_eq!(
            shown,
            json!({"elicitation": {"id": id, "status": status_word}})
        );
        assert_eq!(keys(&shown), ["id", "status"]);
        let (status, refused) = answer(&relay, token, lisbon()).await;
        assert_eq!(status, StatusCode::CONFLICT, "{refused}");
        assert_eq!(
            refused["error"]["message"],
            format!("already {status_word}")
        );
        // A link minted now still shows only the outcome.
        let (status, late) = view(&relay, &token_of(&relay.link(id).await)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(late, shown);
    }
    assert_eq!(
        relay.result(&expired, 0.0).await.1,
        json!({"status": "expired", "result": {"action": "cancel"}})
    );
}

#[tokio::test]
async fn retention_deletes_a_questions_links_with_it() {
    let assets = assets();
    let relay = relay_with_page(&assets, |config| {
        config.retention = Duration::from_millis(300);
    })
    .await;
    let id = relay.create_id(create_body("ana", "acme", "c1")).await;
    let token = token_of(&relay.link(&id).await);
    let (status, _) = answer(&relay, &token, lisbon()).await;
    assert_eq!(status, StatusCode::OK);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, _) = view(&relay, &token).await;
        if status == StatusCode::NOT_FOUND {
            break;
        }
        assert!(Instant::now() < deadline, "the link outlived its question");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        relay.server().store().links.count_for(&id).await.unwrap(),
        0
    );
}

#[tokio::test]
async fn the_created_webhook_carries_a_link_that_reaches_the_question() {
    let assets = assets();
    // The first two attempts fail: every attempt carries the same link.
    let (url, received) = webhook_receiver(2).await;
    let relay = relay_with_page(&assets, |config| {
        config.webhook = Some(WebhookConfig {
            url: webhooks::parse_url(&url).unwrap(),
            secret: WebhookSecret::parse(WEBHOOK_KEY, "test").unwrap(),
            retries: RetrySchedule::scaled(0.001),
        });
    })
    .await;
    let id = relay.create_id(create_body("ana", "acme", "c1")).await;
    let created = webhook_of(&received, "elicitation.created").await;
    assert_eq!(created["data"]["id"], json!(id));
    let answer_url = created["data"]["answerUrl"].as_str().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while received.lock().unwrap().len() < 3 {
        assert!(
            Instant::now() < deadline,
            "the created webhook was not sent 3 times"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let attempts: Vec<Value> = received.lock().unwrap().iter().take(3).cloned().collect();
    for attempt in &attempts {
        assert_eq!(attempt["type"], "elicitation.created");
        assert_eq!(
            attempt["data"]["answerUrl"],
            json!(answer_url),
            "one link per webhook"
        );
    }
    let token = token_of(answer_url);
    // The token is not kept anywhere in plain text: not in the outbox row.
    let database = relay.server().store();
    for file in ["relay.db", "relay.db-wal"] {
        let stored = std::fs::read(relay.dir.join(file)).unwrap_or_default();
        let stored = String::from_utf8_lossy(&stored);
        assert!(!stored.contains(&token), "the token is in {file}");
    }
    let (status, shown) = view(&relay, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["elicitation"]["id"], json!(id));
    let (status, _) = answer(&relay, &token, lisbon()).await;
    assert_eq!(status, StatusCode::OK);
    let settled = webhook_of(&received, "elicitation.settled").await;
    assert_eq!(settled["data"]["result"], lisbon());
    assert!(settled["data"].get("answerUrl").is_none(), "{settled}");
    assert_eq!(database.links.count_for(&id).await.unwrap(), 1);
}

/// `GET path` as sent, byte for byte (no client normalizes it): the whole answer as text.
async fn raw_get(relay: &Relay, path: &str) -> String {
    let (address, path) = (relay.server().local_addr(), path.to_string());
    tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn the_page_is_served_under_its_policy_in_the_persons_language() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let response = relay
        .client
        .get(format!("{}/answer/", relay.url))
        .header("accept-language", "pt-BR,pt;q=0.9,en;q=0.8")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    let header = |name: &str| headers.get(name).unwrap().to_str().unwrap().to_string();
    let policy = header("content-security-policy");
    for item in [
        "default-src 'none'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(item), "{item}: {policy}");
    }
    assert_eq!(header("referrer-policy"), "no-referrer");
    assert_eq!(header("cache-control"), "no-store");
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert!(header("content-type").starts_with("text/html"));
    let html = response.text().await.unwrap();
    assert!(html.contains("lang=\"pt-BR\" dir=\"ltr\""), "{html}");
    assert!(!html.contains("{{"), "every placeholder filled: {html}");
    assert!(html.contains("assets/answer-page.js"), "{html}");
    let english = relay.call_text(Method::GET, "/answer/", None, None).await.1;
    assert!(english.contains("lang=\"en-US\""), "{english}");
    assert!(english.contains("Answer a question"), "{english}");

    // `/answer` leads to the page (the fragment goes along in the browser).
    let moved = raw_get(&relay, "/answer").await;
    assert!(moved.starts_with("HTTP/1.1 308"), "{moved}");
    assert!(moved.contains("location: /answer/\r\n"), "{moved}");
}

#[tokio::test]
async fn the_elements_files_are_served_and_nothing_outside_them() {
    let assets = assets();
    let relay = relay_with_page(&assets, |_| {}).await;
    let get = |path: &str| {
        let request = relay.client.get(format!("{}{path}", relay.url));
        async move { request.send().await.unwrap() }
    };
    for (path, content_type) in [
        ("/answer/assets/koder-mcp-elicitation.js", "text/javascript"),
        ("/answer/assets/pkg/core_bg.wasm", "application/wasm"),
        ("/answer/assets/answer-page.js", "text/javascript"),
        ("/answer/assets/answer-page.css", "text/css"),
    ] {
        let response = get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with(content_type),
            "{path}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'none'"));
        let etag = headers["etag"].clone();
        assert!(!response.bytes().await.unwrap().is_empty(), "{path}");
        // Asked again with its ETag: not sent again.
        let again = relay
            .client
            .get(format!("{}{path}", relay.url))
            .header("if-none-match", etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
    }
    let element = get("/answer/assets/koder-mcp-elicitation.js").await;
    assert_eq!(element.text().await.unwrap(), ELEMENT);

    for refused in [
        "/answer/assets/notes.txt",
        "/answer/assets/pkg",
        "/answer/assets/pkg/",
        "/answer/assets/missing.js",
        "/answer/assets/leak.js",
        "/answer/assets/..%2f..%2fetc%2fpasswd.js",
        "/answer/assets/pkg%2f..%2f..%2fsecret.js",
        "/answer/assets/.hidden.js",
    ] {
        let response = get(refused).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{refused}");
        // Refused by the assets' own check, not for want of a route.
        let body = response.text().await.unwrap();
        assert!(body.contains("no such file"), "{refused}: {body}");
    }
    // Dot segments as sent, unnormalized by a client.
    for raw in [
        "/answer/assets/../../outside/secret.js",
        "/answer/assets/pkg/../../../secret.js",
    ] {
        let answer = raw_get(&relay, raw).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{raw}: {answer}");
        // Refused by the assets' own check, not for want of a route.
        assert!(answer.contains("no such file"), "{raw}: {answer}");
    }
}

#[tokio::test]
async fn links_work_on_postgresql_too() {
    let postgres = Postgres::start();
    let assets = assets();
    let relay = relay_with_page(&assets, |config| {
        config.database = postgres.url.clone();
    })
    .await;
    let id = relay.create_id(create_body("ana", "acme", "c1")).await;
    let token = token_of(&relay.link(&id).await);
    let (status, shown) = view(&relay, &token).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["elicitation"]["status"], "pending");
    let (status, _) = answer(&relay, &token, lisbon()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        http_support::answered_through_a_link(relay.result(&id, 0.0).await.1, None),
        json!({"status": "settled", "result": lisbon()})
    );
    let (status, _) = answer(&relay, &token, lisbon()).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _) = view(&relay, &"A".repeat(43)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

// The binary as operators run it.

const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");
const BINARY_TOKEN: &str = "links-service-token-0123456789abcdef";
const BINARY_SECRET: &str = "links-jwt-secret-0123456789abcdef0123";

fn relay_command(cwd: &std::path::Path) -> Command {
    let mut command = Command::new(BINARY);
    command
        .current_dir(cwd)
        .env_clear()
        .env("KODER_RELAY_LISTEN", "127.0.0.1:0")
        .env("KODER_RELAY_SERVICE_TOKEN", BINARY_TOKEN)
        .env("KODER_RELAY_JWT_SECRET", BINARY_SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[test]
fn the_page_on_without_its_origin_or_the_elements_files_does_not_start() {
    let temp = TempDir::new("bin-links");
    let assets = assets();
    let dist = assets.dist.0.to_str().unwrap();
    let empty = TempDir::new("empty-dist");
    for (args, env, needle) in [
        (
            vec!["--answer-page", "--answer-page-assets", dist],
            vec![],
            "--public-url",
        ),
        (
            vec!["--answer-page", "--public-url", PUBLIC_URL],
            vec![],
            "--answer-page-assets",
        ),
        (
            vec!["--answer-page", "--public-url", PUBLIC_URL],
            vec![("KODER_RELAY_ANSWER_PAGE_ASSETS", empty.0.to_str().unwrap())],
            "--answer-page-assets",
        ),
        (
            vec![
                "--answer-page",
                "--public-url",
                "http://relay.example.com",
                "--answer-page-assets",
                dist,
            ],
            vec![],
            "--public-url",
        ),
        (vec!["--public-url", PUBLIC_URL], vec![], "--answer-page"),
    ] {
        let output = relay_command(&temp.0)
            .args(&args)
            .envs(env)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    assert!(!temp.0.join("koder-elicitation-relay.db").exists());
}

/// A started relay, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn no_token_reaches_a_log_line() {
    let temp = TempDir::new("bin-links-log");
    let assets = assets();
    let (hook, received) = webhook_receiver(0).await;
    let mut running = Running(
        relay_command(&temp.0)
            .env("KODER_RELAY_WEBHOOK_SECRET", WEBHOOK_KEY)
            .args(["--log-format", "json", "--webhook-url", &hook])
            .args(["--answer-page", "--public-url", PUBLIC_URL])
            .arg("--answer-page-assets")
            .arg(&assets.dist.0)
            .spawn()
            .unwrap(),
    );
    let child = &mut running.0;
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut text);
        text
    });

    let client = koder_elicitation_relay_client::http_client().unwrap();
    let created: Value = client
        .post(format!("{url}/v1/elicitations"))
        .bearer_auth(BINARY_TOKEN)
        .body(create_body("ana", "acme", "c1").to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    let linked: Value = client
        .post(format!("{url}/v1/elicitations/{id}/link"))
        .bearer_auth(BINARY_TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut tokens = vec![token_of(linked["url"].as_str().unwrap())];
    let created_hook = webhook_of(&received, "elicitation.created").await;
    tokens.push(token_of(
        created_hook["data"]["answerUrl"].as_str().unwrap(),
    ));
    // Every route a token goes to, and a token in a query string.
    let short = json!({"action": "accept", "content": {"city": "L"}});
    for (path, body, expected) in [
        (
            "/v1/links/view".to_string(),
            json!({"token": tokens[0]}),
            StatusCode::OK,
        ),
        (
            format!("/v1/links/view?token={}", tokens[1]),
            json!({}),
            StatusCode::BAD_REQUEST,
        ),
        (
            "/v1/links/answer".into(),
            json!({"token": tokens[1], "result": short}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/v1/links/answer".into(),
            json!({"token": tokens[1], "result": lisbon()}),
            StatusCode::OK,
        ),
        (
            "/v1/links/answer".into(),
            json!({"token": tokens[0], "result": lisbon()}),
            StatusCode::CONFLICT,
        ),
    ] {
        let response = client
            .post(format!("{url}{path}"))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), expected, "{path} {body}");
    }
    webhook_of(&received, "elicitation.settled").await;

    // Each log line is written as it happens: stopped now, the pipe holds them all.
    let _ = child.kill();
    let _ = child.wait();
    let log = log.join().unwrap();
    assert!(
        log.contains("\"route\":\"/v1/links/answer\""),
        "the log was read: {log}"
    );
    assert!(log.contains("\"route\":\"/v1/links/view\""), "{log}");
    for token in &tokens {
        assert!(!log.contains(token.as_str()), "a token in the log: {log}");
    }
    let mut out = String::new();
    let _ = stdout.read_to_string(&mut out);
    for token in &tokens {
        assert!(!out.contains(token.as_str()), "a token on stdout: {out}");
    }
}
