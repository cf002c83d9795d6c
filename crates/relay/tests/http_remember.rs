//! `_meta` through the relay over real HTTP (contract §13, "remember"): the request's `_meta` stays
//! in what a person and a link holder see; the answer's `_meta` (a `persist` the request offered)
//! reaches the host's result, never a person's stream (the settled webhook's is in
//! tests/e2e/relay-webhooks.test.mjs); a `persist` the request did not offer, or on a decline, is
//! refused with the core's words.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use http_support::{person, Relay, TempDir};
use koder_elicitation_relay::answer_page::AnswerPageSettings;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// A Codex-style tool approval: no properties, `_meta.persist` offering both scopes.
fn approval() -> Value {
    json!({
        "message": "Run `cargo test` in the workspace?",
        "requestedSchema": {"type": "object", "properties": {}},
        "_meta": {"persist": ["session", "always"], "codex_approval_kind": "exec"}
    })
}

fn create_body(user: &str, request: Value) -> Value {
    json!({
        "scope": {"userId": user, "workspaceId": "acme", "conversationId": "c1"},
        "request": request,
        "serverName": "codex",
    })
}

#[tokio::test]
async fn a_remembered_accept_reaches_the_host_and_never_a_stream() {
    let relay = Relay::start().await;
    let ana = person("ana", "acme");
    let mut stream = relay.stream(&ana).await;
    let id = relay.create_id(create_body("ana", approval())).await;

    // What the person sees carries the request's `_meta` as the host sent it.
    let shown = stream.expect().await;
    assert_eq!(shown.event, "elicitation");
    assert_eq!(shown.data["request"], approval());
    assert_eq!(
        relay.pending(&ana).await[0]["request"]["_meta"],
        approval()["_meta"]
    );

    let remembered = json!({"action": "accept", "content": {}, "_meta": {"persist": "session"}});
    let (status, answered) = relay.answer(&ana, &id, remembered.clone()).await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered, json!({"status": "settled", "result": remembered}));

    // The host's result carries the answer as kept, `_meta` included.
    assert_eq!(
        relay.result(&id, 0.0).await.1,
        json!({"status": "settled", "result": remembered})
    );

    // The person's stream says only that it settled, and how: no content, no `_meta`.
    let event = stream.expect().await;
    assert_eq!(event.event, "settled");
    assert_eq!(event.data, json!({"id": id, "action": "accept"}));

    // A one-time accept carries no `_meta.persist`; other `_meta` members are kept as given.
    let once_id = relay.create_id(create_body("ana", approval())).await;
    let once = json!({"action": "accept", "content": {}, "_meta": {"trace": "t-1"}});
    assert_eq!(
        relay.answer(&ana, &once_id, once.clone()).await.0,
        StatusCode::OK
    );
    let (_, host) = relay.result(&once_id, 0.0).await;
    assert_eq!(host["result"], once);
    assert!(host["result"]["_meta"].get("persist").is_none(), "{host}");
}

#[tokio::test]
async fn a_persist_the_request_did_not_offer_is_refused_with_the_cores_words() {
    let relay = Relay::start().await;
    let ana = person("ana", "acme");
    let mut session_only = approval();
    session_only["_meta"]["persist"] = json!("session");
    let id = relay.create_id(create_body("ana", session_only)).await;
    let refused = |problem: &str| json!({"error": {"status": 400, "message": format!("_meta.persist {problem}"), "jsonrpcCode": -32602}});

    let always = json!({"action": "accept", "content": {}, "_meta": {"persist": "always"}});
    let (status, body) = relay.answer(&ana, &id, always).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, refused("\"always\" was not offered by the request"));

    let unknown = json!({"action": "accept", "content": {}, "_meta": {"persist": "forever"}});
    let (status, body) = relay.answer(&ana, &id, unknown).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, refused("must be \"session\" or \"always\""));

    let declined = json!({"action": "decline", "_meta": {"persist": "session"}});
    let (status, body) = relay.answer(&ana, &id, declined).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, refused("is only allowed with \"accept\""));

    // Nothing was stored: it still waits, and an offered scope settles it.
    assert_eq!(relay.result(&id, 0.0).await.1, json!({"status": "pending"}));
    let session = json!({"action": "accept", "content": {}, "_meta": {"persist": "session"}});
    assert_eq!(
        relay.answer(&ana, &id, session.clone()).await.0,
        StatusCode::OK
    );
    assert_eq!(relay.result(&id, 0.0).await.1["result"], session);

    // A request that offers nothing takes no `persist` at all.
    let plain =
        json!({"message": "Proceed?", "requestedSchema": {"type": "object", "properties": {}}});
    let plain_id = relay.create_id(create_body("ana", plain)).await;
    let remembered = json!({"action": "accept", "content": {}, "_meta": {"persist": "session"}});
    let (status, body) = relay.answer(&ana, &plain_id, remembered).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, refused("\"session\" was not offered by the request"));
}

#[tokio::test]
async fn a_link_shows_the_requests_meta_while_it_waits() {
    let dist = TempDir::new("dist");
    std::fs::write(dist.0.join("koder-mcp-elicitation.js"), "export {};\n").unwrap();
    let page = AnswerPageSettings::new("https://relay.example.com", &dist.0).unwrap();
    let relay = Relay::start_with(|config| config.answer_page = Some(page)).await;
    let id = relay.create_id(create_body("ana", approval())).await;
    let link = relay.link(&id).await;
    let token = link.split_once("#t=").unwrap().1;
    let body = json!({"token": token}).to_string();
    let (status, view) = relay
        .call(Method::POST, "/v1/links/view", None, Some(body))
        .await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["elicitation"]["request"], approval());
}
