//! Idempotency keys over real HTTP against a real relay (SQLite file): a key belongs to its tenant
//! (user, workspace, conversation). A repeat in the tenant with the same body gets the same
//! elicitation, one with a different body gets 422, and the same key in another tenant creates
//! that tenant's own, never handing out another tenant's id or answer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use http_support::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// `POST /v1/elicitations` with the service token, an `Idempotency-Key` and this body text.
async fn create_keyed(relay: &Relay, key: &str, body: &str) -> (StatusCode, Value) {
    let response = relay
        .client
        .post(format!("{}/v1/elicitations", relay.url))
        .header("authorization", format!("Bearer {SERVICE_TOKEN}"))
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap())
}

/// Creates with a key, asserting 201, and returns the id.
async fn create_keyed_id(relay: &Relay, key: &str, body: &Value) -> String {
    let (status, created) = create_keyed(relay, key, &body.to_string()).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_key_another_tenant_used_gets_its_own_elicitation_never_theirs() {
    let relay = Relay::start().await;
    let ana = person("ana", "acme");
    let bob = person("bob", "acme");
    let anas = create_keyed_id(&relay, "tool-call-7", &create_body("ana", "acme", "c1")).await;

    // Another host asks for bob with the key ana's host used: bob gets his own elicitation.
    let bobs = create_keyed_id(&relay, "tool-call-7", &create_body("bob", "acme", "c1")).await;
    assert_ne!(
        bobs, anas,
        "bob's create must not return ana's elicitation id"
    );
    let bobs_pending = relay.pending(&bob).await;
    assert_eq!(bobs_pending.len(), 1);
    assert_eq!(bobs_pending[0]["id"], bobs);

    // Ana answers hers; bob's long-poll does not get ana's answer.
    let (status, _) = relay
        .answer(
            &ana,
            &anas,
            json!({"action": "accept", "content": {"city": "Paris"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, bobs_result) = relay.result(&bobs, 0.0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bobs_result, json!({"status": "pending"}));
    let (_, anas_result) = relay.result(&anas, 0.0).await;
    assert_eq!(anas_result["result"]["content"]["city"], "Paris");
    // Bob answers his own, and each long-poll reads its own person's answer.
    let (status, _) = relay
        .answer(
            &bob,
            &bobs,
            json!({"action": "accept", "content": {"city": "Oslo"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, bobs_result) = relay.result(&bobs, 0.0).await;
    assert_eq!(bobs_result["result"]["content"]["city"], "Oslo");

    // The same person in another workspace or another conversation is another tenant too.
    let other_workspace =
        create_keyed_id(&relay, "tool-call-7", &create_body("ana", "globex", "c1")).await;
    let other_conversation =
        create_keyed_id(&relay, "tool-call-7", &create_body("ana", "acme", "c2")).await;
    let all = [&anas, &bobs, &other_workspace, &other_conversation];
    for (index, id) in all.iter().enumerate() {
        assert!(
            all[index + 1..].iter().all(|other| other != id),
            "four tenants, four elicitations: {all:?}"
        );
    }
    assert_eq!(relay.pending(&person("ana", "globex")).await.len(), 1);
    assert_eq!(
        relay.pending(&ana).await.len(),
        1,
        "c2's, as c1's is settled"
    );
}

#[tokio::test]
async fn a_repeat_with_a_different_body_is_422_and_creates_nothing() {
    let relay = Relay::start().await;
    let ana = person("ana", "acme");
    let body = create_body("ana", "acme", "c1");
    let (status, first) = create_keyed(&relay, "call-1", &body.to_string()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");

    // Each part of what the host asks for counts: the request, the server name, the timeout.
    let mut other_message = body.clone();
    other_message["request"]["message"] = json!("Which town?");
    let mut other_server = body.clone();
    other_server["serverName"] = json!("maps");
    let mut other_timeout = body.clone();
    other_timeout["timeoutMs"] = json!(60_000);
    for changed in [other_message, other_server, other_timeout] {
        let (status, error) = create_keyed(&relay, "call-1", &changed.to_string()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{error}");
        assert_eq!(error["error"]["status"], 422);
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("Idempotency-Key") && message.contains("different request"),
            "{message}"
        );
    }
    assert_eq!(
        relay.pending(&ana).await.len(),
        1,
        "a refused repeat stores nothing"
    );

    // The same body again, even with its keys in another order, is the same request.
    let (status, again) = create_keyed(&relay, "call-1", &body.to_string()).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(again, first);
    let reordered = r#"{"serverName":"weather","request":{"requestedSchema":{"required":["city"],
        "properties":{"city":{"minLength":2,"type":"string"}},"type":"object"},
        "message":"Which city?"},"scope":{"conversationId":"c1","workspaceId":"acme","userId":"ana"}}"#;
    let (status, reordered) = create_keyed(&relay, "call-1", reordered).await;
    assert_eq!(status, StatusCode::CREATED, "{reordered}");
    assert_eq!(reordered, first);
    assert_eq!(relay.pending(&ana).await.len(), 1);

    // A refused repeat leaves the first one working: the person answers it.
    let id = first["id"].as_str().unwrap();
    let (status, _) = relay.answer(&ana, id, json!({"action": "decline"})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, done) = relay
        .call(
            Method::GET,
            &format!("/v1/elicitations/{id}/result"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(done["status"], "settled");
}
