//! The relay's HTTP API over real HTTP, against a real SQLite file: what a host and a person see.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::time::{Duration, Instant};

use http_support::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

#[tokio::test]
async fn a_person_answers_and_the_waiting_long_poll_wakes_at_once() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    let mut stream = relay.stream(&alice).await;
    let id = relay.create_id(create_body("alice", "acme", "c1")).await;
    assert_eq!(id.len(), 32);
    assert!(id
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));

    // The stream and the list show it, with the view the element reads.
    let shown = stream.expect().await;
    assert_eq!(shown.event, "elicitation");
    assert_eq!(shown.data["id"], json!(id));
    assert_eq!(shown.data["request"], city_form());
    assert_eq!(shown.data["serverName"], json!("weather"));
    assert_eq!(
        shown.data["scope"],
        json!({"userId": "alice", "workspaceId": "acme", "conversationId": "c1"})
    );
    assert!(shown.data["expiresAt"].as_i64().unwrap() > shown.data["createdAt"].as_i64().unwrap());
    // The time left is the relay's own, as of each view.
    let left = |view: &Value| view["expiresInMs"].as_i64().unwrap();
    let timeout =
        shown.data["expiresAt"].as_i64().unwrap() - shown.data["createdAt"].as_i64().unwrap();
    assert!(left(&shown.data) > 0 && left(&shown.data) <= timeout);
    let listed = relay.pending(&alice).await;
    assert_eq!(listed.len(), 1);
    assert!(left(&listed[0]) <= left(&shown.data));
    let without_time_left = |view: &Value| {
        let mut view = view.clone();
        view.as_object_mut().unwrap().remove("expiresInMs");
        view
    };
    assert_eq!(
        without_time_left(&listed[0]),
        without_time_left(&shown.data)
    );
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "pending"})
    );
    assert_eq!(relay.result(&id, 0.0).await.1, json!({"status": "pending"}));

    // A long-poll waiting 30 s returns as soon as the answer lands, not on its next re-read.
    let poll = {
        let client = relay.client.clone();
        let url = format!("{}/v1/elicitations/{id}/result?wait=30", relay.url);
        tokio::spawn(async move {
            let response = client
                .get(url)
                .header("authorization", format!("Bearer {SERVICE_TOKEN}"))
                .send()
                .await
                .unwrap();
            let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
            (body, Instant::now())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!poll.is_finished(), "the long-poll waits while pending");
    let answer = json!({"action": "accept", "content": {"city": "Lisbon"}});
    let answered_at = Instant::now();
    let (status, body) = relay.answer(&alice, &id, answer.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"status": "settled", "result": answer}));
    let (polled, returned_at) = poll.await.unwrap();
    assert_eq!(polled, json!({"status": "settled", "result": answer}));
    let delay = returned_at.saturating_duration_since(answered_at);
    assert!(
        delay < Duration::from_millis(400),
        "woken by the answer, not by the 1 s re-read: {delay:?}"
    );

    let settled = stream.expect().await;
    assert_eq!(settled.event, "settled");
    assert_eq!(settled.data, json!({"id": id, "action": "accept"}));
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "settled"})
    );
    assert!(relay.pending(&alice).await.is_empty());
    // The long-poll's waiter is gone once it returned (no leak per id).
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(relay.server().hub().sizes().1, 0);
}

#[tokio::test]
async fn an_idempotency_key_creates_once() {
    let relay = Relay::start().await;
    let send = |key: &'static str| {
        relay
            .client
            .post(format!("{}/v1/elicitations", relay.url))
            .header("authorization", format!("Bearer {SERVICE_TOKEN}"))
            .header("idempotency-key", key)
            .body(create_body("alice", "acme", "").to_string())
            .send()
    };
    let first = send("call-1").await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = serde_json::from_str(&first.text().await.unwrap()).unwrap();
    let again = send("call-1").await.unwrap();
    assert_eq!(again.status(), StatusCode::CREATED);
    let again: Value = serde_json::from_str(&again.text().await.unwrap()).unwrap();
    assert_eq!(first, again);
    assert_eq!(relay.pending(&person("alice", "acme")).await.len(), 1);
    let other: Value =
        serde_json::from_str(&send("call-2").await.unwrap().text().await.unwrap()).unwrap();
    assert_ne!(other["id"], first["id"]);
    assert_eq!(relay.pending(&person("alice", "acme")).await.len(), 2);
}

#[tokio::test]
async fn an_identical_repeat_is_fine_and_a_different_answer_conflicts() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    let id = relay.create_id(create_body("alice", "acme", "")).await;
    let answer = json!({"action": "accept", "content": {"city": "Porto"}});
    let first = relay.answer(&alice, &id, answer.clone()).await;
    assert_eq!(first.0, StatusCode::OK);
    let repeat = relay.answer(&alice, &id, answer.clone()).await;
    assert_eq!(repeat, first);
    let (status, body) = relay
        .answer(&alice, &id, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["status"], json!(409));
    assert_eq!(
        relay.result(&id, 0.0).await.1,
        json!({"status": "settled", "result": answer})
    );
}

#[tokio::test]
async fn a_withdrawn_elicitation_is_gone_for_the_person_and_streams_say_so() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    let mut stream = relay.stream(&alice).await;
    let id = relay.create_id(create_body("alice", "acme", "")).await;
    assert_eq!(stream.expect().await.event, "elicitation");
    let path = format!("/v1/elicitations/{id}");
    let withdrawn = json!({"status": "withdrawn", "result": {"action": "cancel"}});
    let (status, body) = relay
        .call(Method::DELETE, &path, Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!((status, body), (StatusCode::OK, withdrawn.clone()));
    let event = stream.expect().await;
    assert_eq!(event.event, "withdrawn");
    assert_eq!(event.data, json!({"id": id}));
    let (status, body) = relay
        .answer(
            &alice,
            &id,
            json!({"action": "accept", "content": {"city": "Rome"}}),
        )
        .await;
    assert_eq!(status, StatusCode::GONE);
    assert_eq!(body["error"]["status"], json!(410));
    // Idempotent: withdrawing again answers the same final state.
    let again = relay
        .call(Method::DELETE, &path, Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(again, (StatusCode::OK, withdrawn.clone()));
    assert_eq!(relay.result(&id, 0.0).await.1, withdrawn);
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "withdrawn"})
    );
    // A settled one is not withdrawn: DELETE reports how it ended.
    let answered = relay.create_id(create_body("alice", "acme", "")).await;
    relay
        .answer(&alice, &answered, json!({"action": "decline"}))
        .await;
    let (_, body) = relay
        .call(
            Method::DELETE,
            &format!("/v1/elicitations/{answered}"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(
        body,
        json!({"status": "settled", "result": {"action": "decline"}})
    );
}

#[tokio::test]
async fn an_unanswered_elicitation_expires_as_a_cancel() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    let mut stream = relay.stream(&alice).await;
    let mut body = create_body("alice", "acme", "");
    // Below the floor: clamped to 1 s.
    body["timeoutMs"] = json!(10);
    let (status, created) = relay.create(body).await;
    assert_eq!(status, StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let started = Instant::now();
    assert_eq!(stream.expect().await.event, "elicitation");
    let (status, polled) = relay.result(&id, 10.0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        polled,
        json!({"status": "expired", "result": {"action": "cancel"}})
    );
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    let event = stream.expect().await;
    assert_eq!(
        (event.event.as_str(), event.data),
        ("expired", json!({"id": id}))
    );
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "expired"})
    );
    let (status, _) = relay
        .answer(&alice, &id, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::GONE);
    assert!(relay.pending(&alice).await.is_empty());
}

#[tokio::test]
async fn url_mode_completes_and_a_form_does_not() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    let mut stream = relay.stream(&alice).await;
    // 2025-11-25: URL mode with an elicitationId, as a JSON-RPC request.
    let url_2025 = json!({"jsonrpc": "2.0", "id": 4, "method": "elicitation/create", "params": {
        "mode": "url", "message": "Sign in", "url": "https://example.com/login", "elicitationId": "login-1"}});
    let id = relay
        .create_id(
            json!({"scope": {"userId": "alice", "workspaceId": "acme"}, "request": url_2025}),
        )
        .await;
    let shown = stream.expect().await;
    assert_eq!(shown.data["request"], url_2025);
    assert_eq!(shown.data.get("serverName"), Some(&Value::Null));
    let complete = format!("/v1/elicitations/{id}/complete");
    let (status, body) = relay
        .call(Method::POST, &complete, Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(
        (status, body),
        (StatusCode::OK, json!({"status": "complete"}))
    );
    let event = stream.expect().await;
    assert_eq!(
        (event.event.as_str(), event.data),
        ("complete", json!({"id": id}))
    );
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "complete"})
    );
    // Consent after completion: still "complete" for people, settled for the host.
    let (status, _) = relay.answer(&alice, &id, json!({"action": "accept"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "complete"})
    );
    assert_eq!(
        relay.result(&id, 0.0).await.1,
        json!({"status": "settled", "result": {"action": "accept"}})
    );
    // Completing again is the same answer.
    let again = relay
        .call(Method::POST, &complete, Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(again, (StatusCode::OK, json!({"status": "complete"})));

    // 2026-07-28: URL mode without elicitationId is accepted; content with a URL accept is not.
    let url_2026 = json!({"mode": "url", "message": "Authorize", "url": "https://example.com/ok"});
    let id_2026 = relay
        .create_id(
            json!({"scope": {"userId": "alice", "workspaceId": "acme"}, "request": url_2026}),
        )
        .await;
    let (status, body) = relay
        .answer(
            &alice,
            &id_2026,
            json!({"action": "accept", "content": {"x": 1}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["jsonrpcCode"], json!(-32602));

    let form = relay.create_id(create_body("alice", "acme", "")).await;
    let (status, body) = relay
        .call(
            Method::POST,
            &format!("/v1/elicitations/{form}/complete"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        relay.status(&alice, &form).await.1,
        json!({"status": "pending"})
    );
}

#[tokio::test]
async fn other_tenants_see_exactly_what_an_unknown_id_shows() {
    let relay = Relay::start().await;
    let id = relay.create_id(create_body("alice", "acme", "c1")).await;
    let unknown = "0123456789abcdef0123456789abcdef";
    let outsiders = [
        ("other workspace", person("alice", "globex")),
        ("other user", person("bob", "acme")),
        (
            "other conversation",
            mint(json!({"sub": "alice", "workspace": "acme", "conversation": "c2"})),
        ),
    ];
    let answer = json!({"action": "accept", "content": {"city": "Oslo"}});
    for (who, token) in &outsiders {
        for path in ["/v1/elicitations/{}/status", "/v1/elicitations/{}/result"] {
            let method = if path.ends_with("status") {
                Method::GET
            } else {
                Method::POST
            };
            let body = (method == Method::POST).then(|| answer.to_string());
            let theirs = relay
                .call_text(
                    method.clone(),
                    &path.replace("{}", &id),
                    Some(token),
                    body.clone(),
                )
                .await;
            let nobodys = relay
                .call_text(method, &path.replace("{}", unknown), Some(token), body)
                .await;
            assert_eq!(theirs.0, StatusCode::NOT_FOUND, "{who} {path}");
            assert_eq!(theirs, nobodys, "{who} {path}: byte-identical");
            assert_eq!(
                theirs.1,
                r#"{"error":{"status":404,"message":"no such elicitation"}}"#
            );
        }
        assert!(relay.pending(token).await.is_empty(), "{who}");
    }
    // Nothing an outsider did settled it; the conversation's own token and an unlimited one see it.
    let in_conversation = mint(json!({"sub": "alice", "workspace": "acme", "conversation": "c1"}));
    assert_eq!(relay.pending(&in_conversation).await.len(), 1);
    assert_eq!(relay.pending(&person("alice", "acme")).await.len(), 1);
    let (status, _) = relay.answer(&in_conversation, &id, answer).await;
    assert_eq!(status, StatusCode::OK);
    // A malformed id is unknown too.
    let (status, body) = relay
        .call(
            Method::GET,
            "/v1/elicitations/..%2F..%2Fetc/result",
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["message"], json!("no such elicitation"));
}

#[tokio::test]
async fn streams_only_carry_their_own_scope() {
    let relay = Relay::start().await;
    let mut limited = relay
        .stream(&mint(
            json!({"sub": "alice", "workspace": "acme", "conversation": "c2"}),
        ))
        .await;
    let mut other_user = relay.stream(&person("bob", "acme")).await;
    relay.create_id(create_body("alice", "acme", "c1")).await;
    let mine = relay.create_id(create_body("alice", "acme", "c2")).await;
    let event = limited.expect().await;
    assert_eq!(event.data["id"], json!(mine));
    assert_eq!(limited.next(Duration::from_millis(300)).await, None);
    assert_eq!(other_user.next(Duration::from_millis(300)).await, None);
}

#[tokio::test]
async fn tokens_are_checked_and_each_api_takes_only_its_own() {
    let relay = Relay::start().await;
    let id = relay.create_id(create_body("alice", "acme", "")).await;
    let alice = person("alice", "acme");
    let forged = mint_with(
        &with_defaults(json!({"sub": "alice", "workspace": "acme"})),
        "not-the-secret-0123456789abcdef0123",
    );
    let expired = mint(json!({"sub": "alice", "workspace": "acme", "exp": now_secs() - 5}));
    let no_exp = mint_with(
        &json!({"sub": "alice", "workspace": "acme", "aud": AUDIENCE}),
        JWT_SECRET,
    );
    let b64 = |text: &str| {
        use base64ish::encode;
        encode(text.as_bytes())
    };
    let alg_none = format!(
        "{}.{}.",
        b64(r#"{"alg":"none","typ":"JWT"}"#),
        b64(&with_defaults(json!({"sub": "alice", "workspace": "acme"})).to_string())
    );
    let status_path = format!("/v1/elicitations/{id}/status");
    for (what, token) in [
        ("missing", None),
        ("forged", Some(forged.as_str())),
        ("expired", Some(expired.as_str())),
        ("no exp", Some(no_exp.as_str())),
        ("alg none", Some(alg_none.as_str())),
        ("service token on the people's API", Some(SERVICE_TOKEN)),
    ] {
        let (status, body) = relay.call(Method::GET, &status_path, token, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}: {body}");
        assert_eq!(body["error"]["status"], json!(401), "{what}");
    }
    let (status, body) = relay
        .call(
            Method::GET,
            &format!("/v1/elicitations/{id}/result"),
            Some(&alice),
            None,
        )
        .await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "people token on the host API: {body}"
    );
    let (status, _) = relay
        .call(
            Method::GET,
            &format!("/v1/elicitations/{id}/result"),
            Some("wrong"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = relay
        .call(
            Method::POST,
            "/v1/elicitations",
            Some(&alice),
            Some(create_body("alice", "acme", "").to_string()),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // The good token works (tickets and `?access_token=` are tests/http_auth.rs's).
    assert_eq!(relay.status(&alice, &id).await.0, StatusCode::OK);
    let response = relay
        .client
        .get(format!("{}/v1/stream", relay.url))
        .header("authorization", format!("Bearer {alice}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let mut stream = SseReader::new(response);
    assert_eq!(stream.expect().await.data["id"], json!(id));
}

/// Base64url without padding, enough to forge an `alg: none` token by hand.
mod base64ish {
    pub fn encode(bytes: &[u8]) -> String {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
            let chars = chunk.len() + 1;
            for i in 0..chars {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        out
    }
}

#[tokio::test]
async fn bad_input_gets_a_json_error_saying_what_is_wrong() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    // The core's message for a request without a message.
    let mut body = create_body("alice", "acme", "");
    body["request"] = json!({"requestedSchema": {"type": "object", "properties": {}}});
    let (status, error) = relay.create(body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        error,
        json!({"error": {"status": 400, "message": "message is required", "jsonrpcCode": -32602}})
    );
    let mut body = create_body("alice", "acme", "");
    body["request"] = json!({"method": "elicitation/create", "params": {"message": "x"}});
    let (_, error) = relay.create(body).await;
    assert_eq!(
        error["error"]["message"],
        json!("params.requestedSchema is required")
    );
    // An inputRequests entry is accepted, and streamed as its params.
    let mut body = create_body("alice", "acme", "");
    body["request"] = json!({"method": "elicitation/create", "params": city_form()});
    let id = relay.create_id(body).await;
    assert_eq!(relay.pending(&alice).await[0]["request"], city_form());

    for (what, body, needle) in [
        ("not JSON", "{".to_string(), "not valid JSON"),
        ("no scope", json!({"request": city_form()}).to_string(), "scope"),
        (
            "empty user",
            json!({"scope": {"userId": "", "workspaceId": "w"}, "request": city_form()}).to_string(),
            "scope.userId",
        ),
        (
            "timeout not a number",
            json!({"scope": {"userId": "u", "workspaceId": "w"}, "request": city_form(), "timeoutMs": "5"}).to_string(),
            "timeoutMs",
        ),
        (
            "no request",
            json!({"scope": {"userId": "u", "workspaceId": "w"}}).to_string(),
            "request is required",
        ),
    ] {
        let (status, error) = relay
            .call(Method::POST, "/v1/elicitations", Some(SERVICE_TOKEN), Some(body))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{what}: {message}");
    }

    // Malformed answers: 400 with the -32602 shape.
    for (answer, message) in [
        (json!({}), "action is required"),
        (
            json!({"action": "ok"}),
            "action must be \"accept\", \"decline\" or \"cancel\"",
        ),
        (
            json!({"action": "accept", "content": "Rome"}),
            "content must be an object",
        ),
        (
            json!({"action": "decline", "content": {}}),
            "content is only allowed with \"accept\", not \"decline\"",
        ),
    ] {
        let (status, error) = relay.answer(&alice, &id, answer.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(
            error,
            json!({"error": {"status": 400, "message": message, "jsonrpcCode": -32602}})
        );
    }
    // Content that breaks the schema: 422 with each broken rule.
    let (status, error) = relay
        .answer(
            &alice,
            &id,
            json!({"action": "accept", "content": {"city": "X"}}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error["error"]["status"], json!(422));
    assert_eq!(
        error["error"]["errors"],
        json!([{"path": "/city", "keyword": "minLength", "message": "Enter at least 2 characters"}])
    );
    // In the person's language, as their browser asks for it.
    let in_portuguese = relay
        .client
        .post(format!("{}/v1/elicitations/{id}/result", relay.url))
        .header("authorization", format!("Bearer {alice}"))
        .header("accept-language", "pt-BR,pt;q=0.9,en;q=0.8")
        .body(json!({"action": "accept", "content": {"city": "X"}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(in_portuguese.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let error: Value = serde_json::from_str(&in_portuguese.text().await.unwrap()).unwrap();
    assert_eq!(
        error["error"]["errors"][0]["message"],
        json!("Digite pelo menos 2 caracteres")
    );
    let (status, error) = relay.answer(&alice, &id, json!({"action": "accept"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error["error"]["errors"][0]["keyword"], json!("required"));
    // Still pending after all that.
    assert_eq!(
        relay.status(&alice, &id).await.1,
        json!({"status": "pending"})
    );
    let (status, _) = relay
        .call(
            Method::GET,
            "/v1/elicitations?status=settled",
            Some(&alice),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, error) = relay
        .call(
            Method::GET,
            &format!("/v1/elicitations/{id}/result?wait=soon"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
}

#[tokio::test]
async fn an_oversized_body_is_413_in_json() {
    let relay = Relay::start().await;
    let mut body = create_body("alice", "acme", "");
    body["padding"] = json!("x".repeat(300 * 1024));
    let (status, error) = relay.create(body).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error["error"]["status"], json!(413));
    // Just under the limit is read (and refused only for what it says).
    let mut body = create_body("alice", "acme", "");
    body["padding"] = json!("x".repeat(200 * 1024));
    assert_eq!(relay.create(body).await.0, StatusCode::CREATED);
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json() {
    let relay = Relay::start().await;
    let (status, body) = relay.call(Method::GET, "/v2/nothing", None, None).await;
    assert_eq!(
        (status, body),
        (
            StatusCode::NOT_FOUND,
            json!({"error": {"status": 404, "message": "no such route"}})
        )
    );
    let (status, body) = relay.call(Method::PUT, "/v1/stream", None, None).await;
    assert_eq!(
        (status, body),
        (
            StatusCode::METHOD_NOT_ALLOWED,
            json!({"error": {"status": 405, "message": "method not allowed"}})
        )
    );
    // Every listed route exists with its method: unauthenticated, each one asks for a token.
    for (method, path) in koder_elicitation_relay::api::documented_routes() {
        let path = path.replace("{id}", "0123456789abcdef0123456789abcdef");
        let method = Method::from_bytes(method.as_str().as_bytes()).unwrap();
        let (status, body) = relay.call(method.clone(), &path, None, None).await;
        if path == "/v1/openapi.json" {
            assert_eq!(status, StatusCode::OK);
            assert_eq!(body["openapi"].as_str().map(|v| &v[..2]), Some("3."));
        } else if path == "/v1/push/key" {
            // Public (a public key), and off here: this relay has no VAPID key.
            assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}: {body}");
        } else if path.starts_with("/v1/links/") {
            // A link's token is in the body, and the answer page is off here.
            assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}: {body}");
            assert!(body.to_string().contains("--answer-page"), "{body}");
        } else {
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path}: {body}");
        }
    }
}

#[tokio::test]
async fn a_new_tab_gets_every_pending_one_on_connect() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    let first = relay.create_id(create_body("alice", "acme", "c1")).await;
    let second = relay.create_id(create_body("alice", "acme", "c2")).await;
    for _tab in 0..2 {
        let mut stream = relay.stream(&alice).await;
        assert_eq!(stream.expect().await.data["id"], json!(first));
        assert_eq!(stream.expect().await.data["id"], json!(second));
        assert_eq!(stream.next(Duration::from_millis(200)).await, None);
    }
}

#[tokio::test]
async fn cors_only_on_the_peoples_routes_and_only_when_asked_for() {
    let origin = "https://app.example.com";
    let preflight = |relay: &Relay, path: &str, method: &str| {
        relay
            .client
            .request(Method::OPTIONS, format!("{}{path}", relay.url))
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header("access-control-request-headers", "authorization")
            .send()
    };
    let relay = Relay::start_with_origins(vec![origin.to_string()]).await;
    let id = "0123456789abcdef0123456789abcdef";
    for (path, method) in [
        ("/v1/stream".to_string(), "GET"),
        (format!("/v1/elicitations/{id}/result"), "POST"),
        ("/v1/elicitations".to_string(), "GET"),
    ] {
        let response = preflight(&relay, &path, method).await.unwrap();
        assert_eq!(
            response.headers()["access-control-allow-origin"],
            origin,
            "{method} {path}"
        );
    }
    for (path, method) in [
        (format!("/v1/elicitations/{id}/result"), "GET"),
        ("/v1/elicitations".to_string(), "POST"),
        (format!("/v1/elicitations/{id}/complete"), "POST"),
    ] {
        let response = preflight(&relay, &path, method).await.unwrap();
        assert!(
            response
                .headers()
                .get("access-control-allow-origin")
                .is_none(),
            "host route {method} {path}"
        );
    }
    let response = relay
        .client
        .get(format!("{}/v1/elicitations", relay.url))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert!(response
        .headers()
        .get("access-control-allow-origin")
        .is_none());

    let plain = Relay::start().await;
    let response = preflight(&plain, "/v1/stream", "GET").await.unwrap();
    assert!(response
        .headers()
        .get("access-control-allow-origin")
        .is_none());
}

#[tokio::test]
async fn shutdown_ends_streams_and_long_polls() {
    let mut relay = Relay::start().await;
    let alice = person("alice", "acme");
    let id = relay.create_id(create_body("alice", "acme", "")).await;
    let mut stream = relay.stream(&alice).await;
    assert_eq!(stream.expect().await.event, "elicitation");
    let poll = {
        let client = relay.client.clone();
        let url = format!("{}/v1/elicitations/{id}/result?wait=60", relay.url);
        tokio::spawn(async move {
            client
                .get(url)
                .header("authorization", format!("Bearer {SERVICE_TOKEN}"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    relay.server.take().unwrap().shutdown().await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(poll.await.unwrap(), r#"{"status":"pending"}"#);
    assert_eq!(stream.next(Duration::from_secs(2)).await, None);
}

#[tokio::test]
async fn concurrent_answers_settle_exactly_once() {
    let relay = std::sync::Arc::new(Relay::start().await);
    let alice = person("alice", "acme");
    let id = relay.create_id(create_body("alice", "acme", "")).await;
    let answers: Vec<_> = (0..10)
        .map(|index| {
            let relay = std::sync::Arc::clone(&relay);
            let alice = alice.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let answer =
                    json!({"action": "accept", "content": {"city": format!("City {index}")}});
                let (status, body) = relay.answer(&alice, &id, answer.clone()).await;
                (status, body, answer)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for answer in answers {
        let (status, body, sent) = answer.await.unwrap();
        match status {
            StatusCode::OK => winners.push((body, sent)),
            StatusCode::CONFLICT => {}
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let (body, sent) = winners.remove(0);
    assert_eq!(body, json!({"status": "settled", "result": sent}));
    assert_eq!(
        relay.result(&id, 0.0).await.1,
        json!({"status": "settled", "result": sent})
    );

    // An answer racing a withdrawal: whichever wins, both sides agree on how it ended.
    let raced = relay.create_id(create_body("alice", "acme", "")).await;
    let answer = {
        let relay = std::sync::Arc::clone(&relay);
        let raced = raced.clone();
        tokio::spawn(async move {
            relay
                .answer(&alice, &raced, json!({"action": "decline"}))
                .await
        })
    };
    let (_, withdrawn) = relay
        .call(
            Method::DELETE,
            &format!("/v1/elicitations/{raced}"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    let (answer_status, _) = answer.await.unwrap();
    let settled_by_person = json!({"status": "settled", "result": {"action": "decline"}});
    let withdrawn_by_host = json!({"status": "withdrawn", "result": {"action": "cancel"}});
    match answer_status {
        StatusCode::OK => assert_eq!(withdrawn, settled_by_person),
        StatusCode::GONE => assert_eq!(withdrawn, withdrawn_by_host),
        other => panic!("unexpected {other}"),
    }
    assert_eq!(relay.result(&raced, 0.0).await.1, withdrawn);
}
