//! Shared by the `http_*` tests: a real relay on 127.0.0.1:0 over a real SQLite file in a fresh
//! temp dir, a plain HTTP client, token minting, and a small server-sent-events reader.
#![allow(dead_code)]

pub mod postgres;

pub mod smtp;

pub mod hooks;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use koder_elicitation_relay::{serve, Config, Server};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

pub const SERVICE_TOKEN: &str = "test-service-token-3f9a1c7e5b2d8046";
pub const JWT_SECRET: &str = "test-jwt-secret-8c1e4a7f2b9d6035a1c4e7f0";
/// The `aud` the relay checks by default.
pub const AUDIENCE: &str = "koder-elicitation-relay";

/// A relay and its temp dir (removed on drop).
pub struct Relay {
    pub server: Option<Server>,
    pub url: String,
    pub client: reqwest::Client,
    pub dir: PathBuf,
}

/// A fresh, unique temp dir.
pub fn temp_dir(label: &str) -> PathBuf {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    let dir = std::env::temp_dir().join(format!("koder-relay-{label}-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A temp dir removed when dropped, even when a test fails.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        TempDir(temp_dir(label))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Relay {
    pub async fn start() -> Relay {
        Relay::start_with_origins(Vec::new()).await
    }

    pub async fn start_with_origins(allow_origins: Vec<String>) -> Relay {
        Relay::start_with(|config| config.allow_origins = allow_origins).await
    }

    /// A relay with these stream caps.
    pub async fn start_with_streams(streams: koder_elicitation_relay::hub::StreamLimits) -> Relay {
        Relay::start_with(|config| config.streams = streams).await
    }

    /// A relay on the test secrets with `adjust` applied to its configuration.
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Relay {
        let dir = temp_dir("http");
        let mut config = Config::new(SERVICE_TOKEN, JWT_SECRET);
        config.listen = "127.0.0.1:0".parse().unwrap();
        config.database = format!("sqlite://{}", dir.join("relay.db").display());
        adjust(&mut config);
        let server = serve(config).await.unwrap();
        Relay {
            url: server.url(),
            server: Some(server),
            client: koder_elicitation_relay_client::http_client().unwrap(),
            dir,
        }
    }

    pub fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// Any call: `(status, body as JSON, or as a JSON string when it is not JSON)`.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<String>,
    ) -> (StatusCode, Value) {
        let (status, text) = self.call_text(method, path, token, body).await;
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    /// Any call, body as text.
    pub async fn call_text(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<String>,
    ) -> (StatusCode, String) {
        let mut request = self.client.request(method, format!("{}{path}", self.url));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.text().await.unwrap())
    }

    /// `POST /v1/elicitations` with the service token.
    pub async fn create(&self, body: Value) -> (StatusCode, Value) {
        self.call(
            Method::POST,
            "/v1/elicitations",
            Some(SERVICE_TOKEN),
            Some(body.to_string()),
        )
        .await
    }

    /// Creates one and returns its id (asserting 201).
    pub async fn create_id(&self, body: Value) -> String {
        let (status, created) = self.create(body).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        created["id"].as_str().unwrap().to_string()
    }

    /// A person's answer.
    pub async fn answer(&self, token: &str, id: &str, result: Value) -> (StatusCode, Value) {
        self.call(
            Method::POST,
            &format!("/v1/elicitations/{id}/result"),
            Some(token),
            Some(result.to_string()),
        )
        .await
    }

    /// A host's answer link for `id` (`POST /v1/elicitations/{id}/link` with the service token):
    /// its URL, asserting 201.
    pub async fn link(&self, id: &str) -> String {
        let (status, body) = self
            .call(
                Method::POST,
                &format!("/v1/elicitations/{id}/link"),
                Some(SERVICE_TOKEN),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["url"].as_str().unwrap().to_string()
    }

    /// The host's view, waiting up to `wait` seconds.
    pub async fn result(&self, id: &str, wait: f64) -> (StatusCode, Value) {
        self.call(
            Method::GET,
            &format!("/v1/elicitations/{id}/result?wait={wait}"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await
    }

    /// A person's status view.
    pub async fn status(&self, token: &str, id: &str) -> (StatusCode, Value) {
        self.call(
            Method::GET,
            &format!("/v1/elicitations/{id}/status"),
            Some(token),
            None,
        )
        .await
    }

    /// A person's pending list.
    pub async fn pending(&self, token: &str) -> Vec<Value> {
        let (status, body) = self
            .call(
                Method::GET,
                "/v1/elicitations?status=pending",
                Some(token),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["elicitations"].as_array().unwrap().clone()
    }

    /// Opens `GET /v1/stream` with the token in the header.
    pub async fn stream(&self, token: &str) -> SseReader {
        let response = self
            .client
            .get(format!("{}/v1/stream", self.url))
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        SseReader::new(response)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        drop(self.server.take());
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// An HS256 token with these claims (`exp` one hour ahead and the relay's `aud` unless given).
pub fn mint(claims: Value) -> String {
    mint_with(&with_defaults(claims), JWT_SECRET)
}

/// `claims` with `exp` one hour ahead and `aud` the relay's, unless they say otherwise.
pub fn with_defaults(mut claims: Value) -> Value {
    if claims.get("exp").is_none() {
        claims["exp"] = json!(now_secs() + 3600);
    }
    if claims.get("aud").is_none() {
        claims["aud"] = json!(AUDIENCE);
    }
    claims
}

pub fn mint_with(claims: &Value, secret: &str) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

/// A person's token for (user, workspace), every conversation.
pub fn person(user: &str, workspace: &str) -> String {
    mint(json!({"sub": user, "workspace": workspace}))
}

/// A form request asking for a city (required, at least 2 characters).
pub fn city_form() -> Value {
    json!({
        "message": "Which city?",
        "requestedSchema": {
            "type": "object",
            "properties": {"city": {"type": "string", "minLength": 2}},
            "required": ["city"]
        }
    })
}

/// A create body for (user, workspace, conversation) with the city form.
pub fn create_body(user: &str, workspace: &str, conversation: &str) -> Value {
    json!({
        "scope": {"userId": user, "workspaceId": workspace, "conversationId": conversation},
        "request": city_form(),
        "serverName": "weather",
    })
}

/// Reads server-sent events from a streaming response.
pub struct SseReader {
    response: reqwest::Response,
    buffer: String,
}

/// One event: its name and its JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct SseMessage {
    pub event: String,
    pub data: Value,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> SseReader {
        SseReader {
            response,
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped), or `None` when none comes within `within` or the
    /// stream ends.
    pub async fn next(&mut self, within: Duration) -> Option<SseMessage> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = String::from("message");
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(name) = line.strip_prefix("event:") {
                        event = name.trim().to_string();
                    } else if let Some(text) = line.strip_prefix("data:") {
                        data.push_str(text.trim_start());
                    }
                }
                if !data.is_empty() {
                    return Some(SseMessage {
                        event,
                        data: serde_json::from_str(&data).unwrap(),
                    });
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .ok()?
                .ok()??;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next event, which must come within 5 s.
    pub async fn expect(&mut self) -> SseMessage {
        self.next(Duration::from_secs(5))
            .await
            .expect("an event within 5 s")
    }
}

/// A store on `url` that queues webhook deliveries (and no pushes), as a relay with
/// `--webhook-url` opens it.
pub async fn store_with_webhooks(url: &str) -> Arc<koder_elicitation_relay::store::Store> {
    use koder_elicitation_relay::channels::{outbox_of, webhooks};
    let queue = webhooks::store::WebhookQueue;
    let outboxes =
        koder_elicitation_relay::store::Outboxes::new(vec![outbox_of::<webhooks::Webhooks>(queue)]);
    let store = koder_elicitation_relay::store::Store::open(url, outboxes).await;
    Arc::new(store.expect("open the store"))
}

/// A settled question's result, event or webhook data without its `answeredBy`, after checking
/// that it names an answer through a link (`{"link": "<id>"}`, with `email` when the relay mailed
/// that link): what the host is told of a link's answer, whoever's question it was.
pub fn answered_through_a_link(mut value: Value, email: Option<&str>) -> Value {
    let answered_by = value
        .as_object_mut()
        .and_then(|object| object.remove("answeredBy"))
        .unwrap_or(Value::Null);
    let link = answered_by["link"].as_str().unwrap_or_default();
    assert!(!link.is_empty(), "answeredBy names the link: {answered_by}");
    let expected = match email {
        Some(email) => json!({"link": link, "email": email}),
        None => json!({ "link": link }),
    };
    assert_eq!(answered_by, expected);
    value
}
