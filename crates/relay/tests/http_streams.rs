//! What a person can open is bounded, and a stream never silently skips what it missed: the caps
//! on open streams (per person and per replica), and a stream that falls behind being ended with
//! a `retry:` hint so its client reconnects and is replayed. Real relay, real HTTP, real SQLite.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::time::{Duration, Instant};

use http_support::*;
use koder_elicitation_relay::hub::StreamLimits;
use reqwest::{header, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Opens a stream and keeps its response (so the stream stays open), or returns the refusal.
async fn open_stream(relay: &Relay, token: &str) -> reqwest::Response {
    relay
        .client
        .get(format!("{}/v1/stream", relay.url))
        .header("authorization", format!("Bearer {token}"))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_streams_of_one_person_the_excess_gets_429_and_another_tenant_is_served() {
    let relay = Relay::start().await;
    let ana = person("ana", "acme");
    let mut open = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..40 {
        let response = open_stream(&relay, &ana).await;
        if response.status() == StatusCode::OK {
            open.push(response);
        } else {
            refused.push(response);
        }
    }
    assert_eq!(open.len(), 16, "the default cap per person");
    assert_eq!(refused.len(), 24);
    for response in refused {
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        let retry_after = response
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.parse::<u64>().ok());
        assert!(matches!(retry_after, Some(1..=60)), "{retry_after:?}");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["status"], json!(429));
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many open streams"));
    }
    assert_eq!(relay.server().hub().open_streams(), 16);

    // Meanwhile another tenant's whole round trip is prompt.
    let bob = person("bob", "globex");
    let started = Instant::now();
    let id = relay.create_id(create_body("bob", "globex", "")).await;
    let answer = json!({"action": "accept", "content": {"city": "Porto"}});
    assert_eq!(
        relay.answer(&bob, &id, answer.clone()).await.0,
        StatusCode::OK
    );
    let (status, result) = relay.result(&id, 5.0).await;
    let took = started.elapsed();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(result, json!({"status": "settled", "result": answer}));
    assert!(
        took < Duration::from_secs(1),
        "create → answer → result took {took:?}"
    );

    // Closing a stream frees its place.
    drop(open.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    while relay.server().hub().open_streams() != 15 {
        assert!(Instant::now() < deadline, "a closed stream frees its place");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(open_stream(&relay, &ana).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_full_replica_refuses_with_503_and_retry_after() {
    let relay = Relay::start_with_streams(StreamLimits {
        per_person: 16,
        per_replica: 3,
    })
    .await;
    let mut open = Vec::new();
    for user in ["a", "b", "c"] {
        let response = open_stream(&relay, &person(user, "w")).await;
        assert_eq!(response.status(), StatusCode::OK);
        open.push(response);
    }
    let response = open_stream(&relay, &person("d", "w")).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(response.headers().contains_key(header::RETRY_AFTER));
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["status"], json!(503));
}

/// A form request of roughly `bytes` bytes (long field descriptions).
fn large_request(bytes: usize) -> Value {
    let fields = bytes / 15_000 + 1;
    let properties: serde_json::Map<String, Value> = (0..fields)
        .map(|index| {
            (
                format!("field{index}"),
                json!({"type": "string", "description": "d".repeat(15_000)}),
            )
        })
        .collect();
    json!({
        "message": "A long form",
        "requestedSchema": {"type": "object", "properties": properties}
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_falls_behind_is_ended_and_its_client_is_replayed() {
    let relay = Relay::start().await;
    let token = person("slow", "acme");
    // A client that reads nothing, with a small receive buffer: the relay cannot write to it
    // for long, so the person's events pile up behind its stream.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut connection = socket.connect(relay.server().local_addr()).await.unwrap();
    connection
        .write_all(
            format!(
                "GET /v1/stream HTTP/1.1\r\nHost: relay\r\nAuthorization: Bearer {token}\r\n\
                 Accept: text/event-stream\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let request = large_request(60_000);
    let mut ids = Vec::new();
    for _ in 0..150 {
        ids.push(
            relay
                .create_id(
                    json!({"scope": {"userId": "slow", "workspaceId": "acme"}, "request": request}),
                )
                .await,
        );
    }
    // Now read: what was written before the lag, then the farewell, then the end.
    let mut received = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(30), async {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let count = connection.read(&mut chunk).await.unwrap();
            if count == 0 {
                break;
            }
            received.extend_from_slice(&chunk[..count]);
        }
    })
    .await;
    assert!(read.is_ok(), "the relay ended the stream that fell behind");
    let text = String::from_utf8_lossy(&received);
    assert!(
        text.starts_with("HTTP/1.1 200"),
        "{}",
        &text[..100.min(text.len())]
    );
    let shown = text.matches("event: elicitation").count();
    assert!(
        shown < ids.len(),
        "it fell behind: {shown} of {} written",
        ids.len()
    );
    assert!(text.contains("\nretry:"), "it ends with a retry: hint");

    // Its client reconnects and is replayed everything still pending, in order.
    let mut stream = relay.stream(&token).await;
    for id in &ids {
        let message = stream
            .next(Duration::from_secs(10))
            .await
            .expect("replayed");
        assert_eq!(message.event, "elicitation");
        assert_eq!(message.data["id"], json!(id));
    }
}

#[tokio::test]
async fn a_stream_ends_when_its_token_does() {
    let relay = Relay::start().await;
    let ends_in_seconds = 3;
    let token =
        mint(json!({"sub": "eve", "workspace": "acme", "exp": now_secs() + ends_in_seconds}));
    let opened = Instant::now();
    let mut response = open_stream(&relay, &token).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut text = String::new();
    let ended = tokio::time::timeout(Duration::from_secs(15), async {
        while let Some(chunk) = response.chunk().await.unwrap() {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    let lasted = opened.elapsed();
    assert!(ended.is_ok(), "the stream ended");
    // `exp` has one-second resolution: the token ends 2 to 3 s after it was minted.
    assert!(
        lasted >= Duration::from_secs(ends_in_seconds as u64 - 1)
            && lasted < Duration::from_secs(ends_in_seconds as u64 + 3),
        "ended {lasted:?} after opening, with the token"
    );
    assert!(text.contains("retry:"), "with a retry: hint: {text:?}");
    // The same token cannot open another (past the second `exp` names): its client must come
    // back with a fresh one.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(
        open_stream(&relay, &token).await.status(),
        StatusCode::UNAUTHORIZED
    );
}
