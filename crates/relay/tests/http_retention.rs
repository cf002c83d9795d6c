//! Retention as a host and a person see it: with `--retention 3s`, a settled elicitation is
//! deleted a few seconds after it was answered (then 404 with the same body as an id never
//! seen, and its idempotency key makes a new one), while a pending one stays, and the audit
//! trail keeps its entries.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::time::{Duration, Instant};

use http_support::{create_body, person, Relay, SERVICE_TOKEN};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// A keyed create: (status, body).
async fn create_keyed(relay: &Relay, key: &str, body: &Value) -> (StatusCode, Value) {
    let response = relay
        .client
        .post(format!("{}/v1/elicitations", relay.url))
        .bearer_auth(SERVICE_TOKEN)
        .header("idempotency-key", key)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    (
        status,
        serde_json::from_str(&response.text().await.unwrap()).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settled_one_is_purged_after_retention_and_a_pending_one_is_kept() {
    let relay = Relay::start_with(|config| config.retention = Duration::from_secs(3)).await;
    let ana = person("ana", "acme");
    let body = create_body("ana", "acme", "c1");
    let (status, first) = create_keyed(&relay, "call-1", &body).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let settled = first["id"].as_str().unwrap().to_string();
    let mut waiting = create_body("ana", "acme", "c2");
    waiting["timeoutMs"] = json!(600_000);
    let pending = relay.create_id(waiting).await;
    let (status, _) = relay
        .answer(&ana, &settled, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let answered_at = Instant::now();

    // Kept until retention has passed.
    let (status, result) = relay.result(&settled, 0.0).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["status"], "settled");

    let unknown = "0123456789abcdef0123456789abcdef";
    let unknown_for_host = relay.result(unknown, 0.0).await;
    let unknown_for_person = relay.status(&ana, unknown).await;
    assert_eq!(unknown_for_host.0, StatusCode::NOT_FOUND);
    let purged_for_host = loop {
        let answer = relay.result(&settled, 0.0).await;
        if answer.0 == StatusCode::NOT_FOUND {
            break answer;
        }
        assert!(
            answered_at.elapsed() < Duration::from_secs(15),
            "still there 15 s after it was answered: {answer:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        answered_at.elapsed() >= Duration::from_secs(3),
        "purged after {:?}, before retention passed",
        answered_at.elapsed()
    );
    assert_eq!(purged_for_host, unknown_for_host);
    assert_eq!(relay.status(&ana, &settled).await, unknown_for_person);

    // The pending one is never purged.
    let listed: Vec<Value> = relay.pending(&ana).await;
    assert_eq!(
        listed
            .iter()
            .map(|item| item["id"].clone())
            .collect::<Vec<_>>(),
        [json!(pending)]
    );
    let (status, result) = relay.result(&pending, 0.0).await;
    assert_eq!(
        (status, result["status"].clone()),
        (StatusCode::OK, json!("pending"))
    );

    // Its idempotency key is free: the same create makes a new elicitation.
    let (status, again) = create_keyed(&relay, "call-1", &body).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_ne!(again["id"], first["id"]);

    // The audit trail keeps what happened to it.
    let (status, audit) = relay
        .call_text(Method::GET, "/v1/audit", Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let actions: Vec<String> = audit
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry["elicitationId"] == settled.as_str())
        .map(|entry| entry["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, ["created", "answered:decline"]);
}
