//! `_meta` through the relay over real HTTP (contract §13, "remember"): the request's `_meta` stays
//! in what a person and a link holder see; the answer's `_meta` (a `persist` the request offered)
//! reaches the host's result and the settled webhook, never a person's stream; a `persist` the
//! request did not offer, or on a decline, is refused with the core's words.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_support::{person, Relay, TempDir, SERVICE_TOKEN};
use koder_elicitation_relay::answer_page::AnswerPageSettings;
use koder_elicitation_relay::channels::webhooks::{
    self, RetrySchedule, WebhookConfig, WebhookSecret,
};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const WEBHOOK_KEY: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

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

/// A webhook receiver on 127.0.0.1 keeping every body it is sent.
async fn webhook_receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&received);
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let kept = Arc::clone(&kept);
            async move {
                kept.lock()
                    .unwrap()
                    .push(serde_json::from_str(&body).unwrap());
                StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

/// The webhook of `event_type` about `id`, once it came (within 10 s).
async fn webhook_of(received: &Mutex<Vec<Value>>, event_type: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = received
            .lock()
            .unwrap()
            .iter()
            .find(|body| body["type"] == event_type && body["data"]["id"] == id)
            .cloned();
        if let Some(body) = found {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "no {event_type} webhook for {id}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_remembered_accept_reaches_the_host_and_the_webhook_and_never_a_stream() {
    let (hook, received) = webhook_receiver().await;
    let relay = Relay::start_with(|config| {
        config.webhook = Some(WebhookConfig {
            url: webhooks::parse_url(&hook).unwrap(),
            secret: WebhookSecret::parse(WEBHOOK_KEY, "test").unwrap(),
            retries: RetrySchedule::scaled(0.001),
        });
    })
    .await;
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

    // The host's result and the settled webhook carry the answer as kept, `_meta` included.
    assert_eq!(
        relay.result(&id, 0.0).await.1,
        json!({"status": "settled", "result": remembered})
    );
    let settled = webhook_of(&received, "elicitation.settled", &id).await;
    assert_eq!(settled["data"]["result"], remembered);

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
    let settled = webhook_of(&received, "elicitation.settled", &once_id).await;
    assert_eq!(settled["data"]["result"], once);
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
    let (status, link) = relay
        .call(
            Method::POST,
            &format!("/v1/elicitations/{id}/link"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{link}");
    let token = link["url"].as_str().unwrap().split_once("#t=").unwrap().1;
    let body = json!({"token": token}).to_string();
    let (status, view) = relay
        .call(Method::POST, "/v1/links/view", None, Some(body))
        .await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["elicitation"]["request"], approval());
}
