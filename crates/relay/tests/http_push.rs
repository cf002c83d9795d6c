//! Web Push from the relay, end to end: a push service in the test (on 127.0.0.1, the browser's
//! side: a key pair and auth secret per subscription, made as a browser makes them) receives
//! the relay's pushes, checks each as a real push service would (the VAPID token's signature,
//! `aud`, `exp`, `sub` and key; `Content-Encoding`, `TTL`, `Urgency`, `Topic`), decrypts it and
//! keeps the JSON. Subscriptions are made through the relay's API with people's tokens.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode as HttpStatus};
use axum::response::{IntoResponse, Response};
use http_support::postgres::Postgres;
use http_support::{
    city_form, create_body, mint_with, now_secs, person, Relay, TempDir, AUDIENCE, SERVICE_TOKEN,
};
use koder_elicitation_relay::channels::push::{AllowList, PushSettings};
use koder_web_push::{verify_vapid, Receiver, VapidKey};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const SUBJECT: &str = "mailto:ops@example.com";

// ---------------------------------------------------------------------------------------------
// The push service.

/// What the push service answers a push with.
#[derive(Debug, Clone, Copy)]
enum Answer {
    /// This status, with this `Retry-After` when set.
    Status(u16, Option<&'static str>),
}

/// A push the service took (answered 2xx), decrypted.
#[derive(Debug, Clone)]
struct Received {
    subscription: String,
    topic: String,
    ttl: i64,
    payload: Value,
}

#[derive(Default)]
struct ServiceState {
    origin: String,
    /// The relay's VAPID public key, which every token must carry.
    relay_key: Mutex<String>,
    receivers: Mutex<HashMap<String, Receiver>>,
    /// Scripted answers per subscription, in order; 201 once they run out.
    scripts: Mutex<HashMap<String, VecDeque<Answer>>>,
    /// Whether a subscription keeps answering its last scripted answer.
    stuck: Mutex<HashMap<String, Answer>>,
    hits: Mutex<HashMap<String, Vec<Instant>>>,
    received: Mutex<Vec<Received>>,
    /// Anything a real push service would refuse.
    faults: Mutex<Vec<String>>,
}

struct PushService {
    state: Arc<ServiceState>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PushService {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PushService {
    async fn start() -> PushService {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(ServiceState {
            origin,
            ..ServiceState::default()
        });
        PushService::serve(listener, state)
    }

    /// Serves `state` on `listener` (its origin's address).
    fn serve(listener: tokio::net::TcpListener, state: Arc<ServiceState>) -> PushService {
        let app = axum::Router::new()
            .route("/push/{name}", axum::routing::post(receive))
            .with_state(Arc::clone(&state));
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        PushService { state, task }
    }

    fn origin(&self) -> &str {
        &self.state.origin
    }

    /// A new browser subscription named `name`: its endpoint and keys, as
    /// `PushSubscription.toJSON()` gives them.
    fn subscription(&self, name: &str) -> Value {
        let receiver = Receiver::generate();
        let body = json!({
            "endpoint": format!("{}/push/{name}", self.origin()),
            "expirationTime": null,
            "keys": {"p256dh": receiver.p256dh_base64url(), "auth": receiver.auth_base64url()},
        });
        self.state
            .receivers
            .lock()
            .unwrap()
            .insert(name.to_string(), receiver);
        body
    }

    fn script(&self, name: &str, answers: &[Answer]) {
        self.state
            .scripts
            .lock()
            .unwrap()
            .insert(name.to_string(), answers.iter().copied().collect());
    }

    fn answer_always(&self, name: &str, answer: Option<Answer>) {
        let mut stuck = self.state.stuck.lock().unwrap();
        match answer {
            Some(answer) => stuck.insert(name.to_string(), answer),
            None => stuck.remove(name),
        };
    }

    fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap().clone()
    }

    fn received_by(&self, name: &str) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|push| push.subscription == name)
            .map(|push| push.payload)
            .collect()
    }

    fn hits(&self, name: &str) -> Vec<Instant> {
        self.state
            .hits
            .lock()
            .unwrap()
            .get(name)
            .cloned()
            .unwrap_or_default()
    }

    fn assert_no_faults(&self) {
        let faults = self.state.faults.lock().unwrap();
        assert!(faults.is_empty(), "{faults:#?}");
    }
}

/// One push, checked as a push service checks it; answered as scripted.
async fn receive(
    State(state): State<Arc<ServiceState>>,
    UrlPath(name): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    state
        .hits
        .lock()
        .unwrap()
        .entry(name.clone())
        .or_default()
        .push(Instant::now());
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let mut faults = Vec::new();
    match header("authorization").map(|value| verify_vapid(&value)) {
        Some(Ok(claims)) => {
            if claims.aud != state.origin {
                faults.push(format!("aud {} is not {}", claims.aud, state.origin));
            }
            let now = u64::try_from(now_secs()).unwrap();
            if claims.exp <= now || claims.exp > now + 24 * 3600 {
                faults.push(format!("exp {} is not within 24 h of {now}", claims.exp));
            }
            if claims.sub != SUBJECT {
                faults.push(format!("sub {}", claims.sub));
            }
            if claims.public_key != *state.relay_key.lock().unwrap() {
                faults.push("k is not the relay's /v1/push/key".into());
            }
        }
        Some(Err(error)) => faults.push(format!("VAPID: {error}")),
        None => faults.push("no Authorization".into()),
    }
    if header("content-encoding").as_deref() != Some("aes128gcm") {
        faults.push(format!("Content-Encoding {:?}", header("content-encoding")));
    }
    if header("urgency").as_deref() != Some("high") {
        faults.push(format!("Urgency {:?}", header("urgency")));
    }
    let ttl = header("ttl").and_then(|ttl| ttl.parse::<i64>().ok());
    if ttl.is_none_or(|ttl| ttl < 0) {
        faults.push(format!("TTL {:?}", header("ttl")));
    }
    let topic = header("topic").unwrap_or_default();
    let topic_ok = !topic.is_empty()
        && topic.len() <= 32
        && topic
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
    if !topic_ok {
        faults.push(format!("Topic {topic:?}"));
    }
    let receiver = state.receivers.lock().unwrap().get(&name).cloned();
    let payload = match receiver.map(|receiver| receiver.decrypt(&body)) {
        Some(Ok(plain)) => serde_json::from_slice::<Value>(&plain)
            .map_err(|error| faults.push(format!("payload is not JSON: {error}")))
            .ok(),
        Some(Err(error)) => {
            faults.push(format!("cannot decrypt: {error}"));
            None
        }
        None => {
            faults.push(format!("no subscription {name}"));
            None
        }
    };
    state.faults.lock().unwrap().extend(faults);
    let scripted = state
        .scripts
        .lock()
        .unwrap()
        .get_mut(&name)
        .and_then(VecDeque::pop_front);
    let stuck = state.stuck.lock().unwrap().get(&name).copied();
    let Answer::Status(status, retry_after) =
        scripted.or(stuck).unwrap_or(Answer::Status(201, None));
    if (200..300).contains(&status) {
        if let Some(payload) = payload {
            state.received.lock().unwrap().push(Received {
                subscription: name,
                topic,
                ttl: ttl.unwrap_or(-1),
                payload,
            });
        }
    }
    let mut response = HttpStatus::from_u16(status).unwrap().into_response();
    if let Some(after) = retry_after {
        response
            .headers_mut()
            .insert("retry-after", after.parse().unwrap());
    }
    response
}

// ---------------------------------------------------------------------------------------------
// The relay's side.

/// Push settings sending only to `service`.
fn settings(service: &PushService, vapid: VapidKey) -> PushSettings {
    let mut settings = PushSettings::new(vapid, SUBJECT).unwrap();
    settings.allow = AllowList::parse(service.origin()).unwrap();
    settings
}

async fn push_relay(service: &PushService) -> Relay {
    let settings = settings(service, VapidKey::generate());
    let relay = Relay::start_with(|config| config.push = Some(settings)).await;
    learn_key(service, &relay.url, &relay.client).await;
    relay
}

/// The push service learns the relay's public key as the browser would hand it over.
async fn learn_key(service: &PushService, url: &str, client: &reqwest::Client) {
    let key = client
        .get(format!("{url}/v1/push/key"))
        .send()
        .await
        .unwrap();
    let key: Value = serde_json::from_str(&key.text().await.unwrap()).unwrap();
    *service.state.relay_key.lock().unwrap() = key["publicKey"].as_str().unwrap().to_string();
}

/// Stores `subscription` for the person of `token`; its id.
async fn subscribe(
    url: &str,
    client: &reqwest::Client,
    token: &str,
    subscription: &Value,
) -> String {
    let response = client
        .post(format!("{url}/v1/push/subscriptions"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(subscription.to_string())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    body["id"].as_str().unwrap().to_string()
}

/// Waits up to `within` for `done`.
async fn until(within: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < deadline, "waited {within:?} for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A counter's value in a metrics text (0 when absent).
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

fn deliveries(outcome: &str) -> String {
    format!("koder_relay_push_deliveries_total{{outcome=\"{outcome}\"}}")
}

// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_question_reaches_each_of_its_persons_subscriptions_once_and_every_end_closes_it() {
    let service = PushService::start().await;
    let relay = push_relay(&service).await;
    let (ana, bob) = (person("ana", "acme"), person("bob", "acme"));
    let ana_elsewhere = person("ana", "other");
    for (token, name) in [
        (&ana, "ana-phone"),
        (&ana, "ana-laptop"),
        (&bob, "bob-phone"),
        (&ana_elsewhere, "ana-other-workspace"),
    ] {
        subscribe(
            &relay.url,
            &relay.client,
            token,
            &service.subscription(name),
        )
        .await;
    }

    let mut body = create_body("ana", "acme", "c1");
    body["request"]["message"] = json!("Which city, \"exactly\"?");
    let id = relay.create_id(body).await;
    until(
        Duration::from_secs(10),
        "the question on both of ana's",
        || service.received().len() >= 2,
    )
    .await;
    for name in ["ana-phone", "ana-laptop"] {
        let pushes = service.received_by(name);
        assert_eq!(pushes.len(), 1, "{name}: {pushes:?}");
        let push = &pushes[0];
        assert_eq!(push["type"], "elicitation");
        assert_eq!(push["id"], id.as_str());
        assert_eq!(push["serverName"], "weather");
        assert_eq!(push["message"], "Which city, \"exactly\"?");
        assert_eq!(push["workspaceId"], "acme");
        assert_eq!(push["conversationId"], "c1");
        let left = push["expiresInMs"].as_i64().unwrap();
        assert!(left > 0 && left <= 10 * 60 * 1000, "{left}");
        assert!(push.get("url").is_none(), "no --push-open-url, no url");
    }
    let first = service.received();
    assert!(first.iter().all(|push| push.ttl > 0 && push.ttl <= 600));

    // Answered: a close under the same Topic, without the answer.
    let (status, answered) = relay
        .answer(
            &ana,
            &id,
            json!({"action": "accept", "content": {"city": "Lyon"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    until(Duration::from_secs(10), "the closes", || {
        service.received().len() >= 4
    })
    .await;
    for push in &service.received()[2..] {
        assert_eq!(
            push.payload,
            json!({"type": "settled", "id": id, "status": "settled"})
        );
        assert_eq!(push.topic, first[0].topic);
    }

    // Withdrawn, and expired: each closed with its outcome.
    let withdrawn = relay.create_id(create_body("ana", "acme", "c1")).await;
    until(Duration::from_secs(10), "the second question", || {
        service.received().len() >= 6
    })
    .await;
    let (status, _) = relay
        .call(
            Method::DELETE,
            &format!("/v1/elicitations/{withdrawn}"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let mut short = create_body("ana", "acme", "c1");
    short["timeoutMs"] = json!(1000);
    let expired = relay.create_id(short).await;
    until(
        Duration::from_secs(15),
        "the withdraw's and the expiry's closes",
        || service.received().len() >= 12,
    )
    .await;
    // A moment more: nothing else arrives.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let all = service.received();
    assert_eq!(all.len(), 12, "{all:#?}");
    let closes: Vec<(String, String)> = all
        .iter()
        .filter(|push| push.payload["type"] == "settled")
        .map(|push| {
            (
                push.payload["id"].as_str().unwrap().to_string(),
                push.payload["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (ended, how) in [(&withdrawn, "withdrawn"), (&expired, "expired")] {
        let count = closes
            .iter()
            .filter(|(id, status)| id == ended && status == how)
            .count();
        assert_eq!(count, 2, "{how}: {closes:?}");
    }
    assert!(!all
        .iter()
        .any(|push| push.payload.to_string().contains("Lyon")));
    assert!(service.received_by("bob-phone").is_empty());
    assert!(service.received_by("ana-other-workspace").is_empty());
    service.assert_no_faults();
}

/// Each subscription's pushes are worded in its `language` (the nearest shipped locale, en-US
/// without one), kept from the subscribe and changed by subscribing the endpoint again; a tag that
/// is not one is refused.
#[tokio::test]
async fn a_question_is_worded_in_each_subscriptions_language() {
    let service = PushService::start().await;
    let relay = push_relay(&service).await;
    let ana = person("ana", "acme");
    let post = |body: Value| {
        relay.call(
            Method::POST,
            "/v1/push/subscriptions",
            Some(ana.as_str()),
            Some(body.to_string()),
        )
    };
    let with = |name: &str, language: Option<&str>| {
        let mut body = service.subscription(name);
        body["language"] = json!(language);
        body
    };
    for (name, language) in [
        ("pt", Some("pt-BR")),
        ("pt-pt", Some("pt-PT")),
        ("none", None),
        ("klingon", Some("tlh")),
    ] {
        let (status, _) = post(with(name, language)).await;
        assert_eq!(status, StatusCode::CREATED, "{name}");
    }
    // The same endpoint again, in another language: the same subscription, now in pt-BR.
    let moved = with("moved", Some("en-US"));
    let (_, first) = post(moved.clone()).await;
    let mut again = moved;
    again["language"] = json!("pt-BR");
    let (status, second) = post(again).await;
    assert_eq!((status, &second), (StatusCode::OK, &first));
    for bad in [json!("pt_BR"), json!("x".repeat(36)), json!(""), json!(7)] {
        let mut body = service.subscription("refused");
        body["language"] = bad.clone();
        let (status, error) = post(body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("language must be a BCP 47 tag"),
            "{message}"
        );
    }

    relay.create_id(create_body("ana", "acme", "c1")).await;
    until(Duration::from_secs(10), "the question on each", || {
        service.received().len() >= 5
    })
    .await;
    let english = ("\u{2068}weather\u{2069} needs your input", "en-US");
    let portuguese = ("\u{2068}weather\u{2069} precisa da sua resposta", "pt-BR");
    for (name, (title, lang)) in [
        ("pt", portuguese),
        ("pt-pt", portuguese),
        ("moved", portuguese),
        ("none", english),
        ("klingon", english),
    ] {
        let pushes = service.received_by(name);
        assert_eq!(pushes.len(), 1, "{name}: {pushes:?}");
        assert_eq!(
            (pushes[0]["title"].as_str(), pushes[0]["lang"].as_str()),
            (Some(title), Some(lang)),
            "{name}"
        );
    }
    assert!(service.received_by("refused").is_empty());
    service.assert_no_faults();
}

#[tokio::test]
async fn gone_subscriptions_are_deleted_busy_services_are_retried_and_deadlines_end_retries() {
    let service = PushService::start().await;
    let relay = push_relay(&service).await;
    let ana = person("ana", "acme");
    let gone = subscribe(
        &relay.url,
        &relay.client,
        &ana,
        &service.subscription("gone"),
    )
    .await;
    subscribe(
        &relay.url,
        &relay.client,
        &ana,
        &service.subscription("busy"),
    )
    .await;
    service.answer_always("gone", Some(Answer::Status(410, None)));
    service.script("busy", &[Answer::Status(503, Some("2"))]);

    relay.create_id(create_body("ana", "acme", "")).await;
    until(Duration::from_secs(10), "the busy one's retry", || {
        service.received_by("busy").len() == 1
    })
    .await;
    let hits = service.hits("busy");
    assert_eq!(hits.len(), 2, "one 503, then one delivery");
    // The first backoff alone would be about 1 s.
    assert!(
        hits[1] - hits[0] >= Duration::from_millis(1950),
        "Retry-After: 2 honoured ({:?})",
        hits[1] - hits[0]
    );
    assert_eq!(service.hits("gone").len(), 1);
    // 410: the subscription is no longer listed, and the next question does not go to it.
    let (status, listed) = relay
        .call(Method::GET, "/v1/push/subscriptions", Some(&ana), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let ids: Vec<&str> = listed["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|subscription| subscription["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{listed}");
    assert!(!ids.contains(&gone.as_str()));

    // Answered while its push waits for a retry: the question is not pushed any more, its close
    // is.
    service.script("busy", &[Answer::Status(503, Some("1"))]);
    let answered = relay.create_id(create_body("ana", "acme", "")).await;
    until(Duration::from_secs(10), "the first attempt", || {
        service.hits("busy").len() == 3
    })
    .await;
    let (status, _) = relay
        .answer(&ana, &answered, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    until(Duration::from_secs(10), "the answered one's close", || {
        service
            .received_by("busy")
            .iter()
            .any(|push| push["id"] == answered.as_str())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let about_answered: Vec<Value> = service
        .received_by("busy")
        .into_iter()
        .filter(|push| push["id"] == answered.as_str())
        .collect();
    assert_eq!(
        about_answered,
        [json!({"type": "settled", "id": answered, "status": "settled"})]
    );

    // A push service busy for longer than the question lasts: given up at the deadline.
    service.script("busy", &[Answer::Status(503, Some("30"))]);
    let mut short = create_body("ana", "acme", "");
    short["timeoutMs"] = json!(2000);
    let short_id = relay.create_id(short).await;
    until(Duration::from_secs(15), "the short one's close", || {
        service
            .received_by("busy")
            .iter()
            .any(|push| push["id"] == short_id.as_str() && push["type"] == "settled")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        service.hits("gone").len(),
        1,
        "the gone one gets nothing more"
    );
    let to_busy = service.received_by("busy");
    assert!(
        !to_busy
            .iter()
            .any(|push| push["id"] == short_id.as_str() && push["type"] == "elicitation"),
        "{to_busy:?}"
    );

    let (_, metrics) = relay
        .call_text(Method::GET, "/metrics", Some(SERVICE_TOKEN), None)
        .await;
    // Delivered: the first question (after its retry), the answered one's close and the short
    // one's close. Expired: the answered one's question and the short one's.
    assert_eq!(sample(&metrics, &deliveries("delivered")), 3.0, "{metrics}");
    assert_eq!(sample(&metrics, &deliveries("retried")), 2.0, "{metrics}");
    assert_eq!(sample(&metrics, &deliveries("gone")), 1.0, "{metrics}");
    assert_eq!(sample(&metrics, &deliveries("expired")), 2.0, "{metrics}");
    assert_eq!(sample(&metrics, &deliveries("refused")), 0.0, "{metrics}");
    service.assert_no_faults();
}

#[tokio::test]
async fn a_reminder_comes_once_shortly_before_the_question_expires() {
    let service = PushService::start().await;
    let mut push = settings(&service, VapidKey::generate());
    push.remind_before = Some(Duration::from_secs(2));
    let relay = Relay::start_with(|config| config.push = Some(push)).await;
    learn_key(&service, &relay.url, &relay.client).await;
    let ana = person("ana", "acme");
    subscribe(
        &relay.url,
        &relay.client,
        &ana,
        &service.subscription("phone"),
    )
    .await;
    let mut body = create_body("ana", "acme", "");
    body["timeoutMs"] = json!(3500);
    let id = relay.create_id(body).await;
    until(
        Duration::from_secs(10),
        "the question, its reminder, its close",
        || service.received().len() >= 3,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let received = service.received();
    let kinds: Vec<&Value> = received.iter().map(|push| &push.payload["type"]).collect();
    assert_eq!(
        kinds,
        ["elicitation", "elicitation", "settled"],
        "{received:#?}"
    );
    assert!(received
        .iter()
        .all(|push| push.payload["id"] == id.as_str()));
    let (first, reminder) = (&received[0], &received[1]);
    assert!(first.payload["expiresInMs"].as_i64().unwrap() > 2500);
    let left = reminder.payload["expiresInMs"].as_i64().unwrap();
    assert!(left > 0 && left <= 2000, "{left}");
    assert_eq!(reminder.topic, first.topic);
    assert!(reminder.ttl <= 2);
    assert_eq!(received[2].payload["status"], "expired");
    service.assert_no_faults();
}

#[tokio::test]
async fn notify_remind_after_pushes_once_more_while_open_and_never_after_an_answer() {
    let service = PushService::start().await;
    let relay = push_relay(&service).await;
    let ana = person("ana", "acme");
    subscribe(
        &relay.url,
        &relay.client,
        &ana,
        &service.subscription("phone"),
    )
    .await;
    let mut body = create_body("ana", "acme", "");
    body["notify"] = json!({"remindAfter": "10s"});
    let open = relay.create_id(body.clone()).await;
    let answered = relay.create_id(body).await;
    let (status, _) = relay
        .answer(&ana, &answered, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let pushes_about = |id: &str| -> Vec<Value> {
        service
            .received()
            .iter()
            .filter(|push| push.payload["id"] == id)
            .map(|push| push.payload.clone())
            .collect()
    };
    until(Duration::from_secs(25), "the reminder", || {
        pushes_about(&open).len() >= 2
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let kinds = |id: &str| -> Vec<Value> {
        pushes_about(id)
            .iter()
            .map(|push| push["type"].clone())
            .collect()
    };
    assert_eq!(kinds(&open), ["elicitation", "elicitation"]);
    let reminder = &pushes_about(&open)[1];
    assert!(
        reminder["expiresInMs"].as_i64().unwrap() <= 290_000,
        "{reminder}"
    );
    // Answered at once: its first push may have been skipped, its reminder never comes.
    let answered_kinds = kinds(&answered);
    assert_eq!(answered_kinds.last(), Some(&json!("settled")));
    assert!(
        answered_kinds
            .iter()
            .filter(|kind| *kind == "elicitation")
            .count()
            <= 1
    );
    service.assert_no_faults();
}

#[tokio::test]
async fn a_push_service_down_at_first_gets_the_push_once_it_is_back() {
    let service = PushService::start().await;
    let relay = push_relay(&service).await;
    let ana = person("ana", "acme");
    subscribe(
        &relay.url,
        &relay.client,
        &ana,
        &service.subscription("phone"),
    )
    .await;
    // The push service goes down: connections to its port are refused.
    let address = service.origin().trim_start_matches("http://").to_string();
    let state = Arc::clone(&service.state);
    drop(service);
    let id = relay.create_id(create_body("ana", "acme", "")).await;
    until(Duration::from_secs(10), "a failed attempt", || {
        let metrics = relay.server().metrics().render(0, None);
        sample(&metrics, &deliveries("retried")) >= 1.0
    })
    .await;
    // Back on the same address, with what it knew.
    let listener = tokio::net::TcpListener::bind(&address).await.unwrap();
    let service = PushService::serve(listener, state);
    until(Duration::from_secs(15), "the push once it is back", || {
        !service.received().is_empty()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let received = service.received_by("phone");
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0]["id"], id.as_str());
    service.assert_no_faults();
}

#[tokio::test]
async fn two_replicas_on_one_postgresql_send_each_push_once() {
    let postgres = Postgres::start();
    let service = PushService::start().await;
    let mut push = settings(&service, VapidKey::generate());
    push.open_url = Some("https://app.example.com/questions/{id}?workspace={workspaceId}".into());
    let start = || {
        let (database, push) = (postgres.url.clone(), push.clone());
        Relay::start_with(move |config| {
            config.database = database;
            config.push = Some(push);
        })
    };
    let replicas = [start().await, start().await];
    learn_key(&service, &replicas[0].url, &replicas[0].client).await;
    let ana = person("ana", "acme");
    for name in ["phone", "laptop"] {
        subscribe(
            &replicas[0].url,
            &replicas[0].client,
            &ana,
            &service.subscription(name),
        )
        .await;
    }
    const QUESTIONS: usize = 12;
    for index in 0..QUESTIONS {
        replicas[index % 2]
            .create_id(create_body("ana", "acme", ""))
            .await;
    }
    until(Duration::from_secs(20), "every push", || {
        service.received().len() >= 2 * QUESTIONS
    })
    .await;
    // Both replicas poll the outbox: give a second send time to show.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let received = service.received();
    assert_eq!(received.len(), 2 * QUESTIONS);
    let mut pairs: Vec<(String, String)> = received
        .iter()
        .map(|push| {
            (
                push.subscription.clone(),
                push.payload["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 2 * QUESTIONS, "each push once");
    for push in &received {
        let id = push.payload["id"].as_str().unwrap();
        assert_eq!(
            push.payload["url"],
            format!("https://app.example.com/questions/{id}?workspace=acme")
        );
    }
    service.assert_no_faults();
}

// ---------------------------------------------------------------------------------------------
// The binary, killed between a create and its push's delivery.

const TOKEN: &str = "push-binary-service-token-0123456789abcdef";
const SECRET: &str = "push-binary-jwt-secret-0123456789abcdef012";
const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");

/// The binary on `database`, sending pushes with the key in `key_file` to `allow` only; killed
/// when dropped.
struct RelayProcess {
    child: Child,
    url: String,
}

impl RelayProcess {
    fn start(cwd: &Path, database: &str, key_file: &Path, allow: &str) -> RelayProcess {
        let mut child = Command::new(BINARY)
            .current_dir(cwd)
            .env_clear()
            .env("KODER_RELAY_SERVICE_TOKEN", TOKEN)
            .env("KODER_RELAY_JWT_SECRET", SECRET)
            .env("KODER_RELAY_LOG_FORMAT", "json")
            .args(["--listen", "127.0.0.1:0", "--database", database])
            .arg("--vapid-private-key-file")
            .arg(key_file)
            .args(["--vapid-subject", SUBJECT, "--push-endpoint-allow", allow])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the relay");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a `listening on` line");
        let url = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        RelayProcess { child, url }
    }

    /// SIGKILL: no drain, no goodbye.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_relay_killed_before_the_push_went_out_delivers_it_after_restart_once() {
    let temp = TempDir::new("push-kill");
    let key_file = temp.0.join("vapid.pem");
    std::fs::write(&key_file, VapidKey::generate().to_pkcs8_pem()).unwrap();
    let database = format!("sqlite://{}", temp.0.join("relay.db").display());
    let service = PushService::start().await;
    let client = koder_elicitation_relay_client::http_client().unwrap();
    let relay = RelayProcess::start(&temp.0, &database, &key_file, service.origin());
    learn_key(&service, &relay.url, &client).await;
    let ana = mint_with(
        &json!({"sub": "ana", "workspace": "acme", "exp": now_secs() + 3600, "aud": AUDIENCE}),
        SECRET,
    );
    subscribe(&relay.url, &client, &ana, &service.subscription("phone")).await;
    // The push service is overloaded: the relay's first attempt fails.
    service.answer_always("phone", Some(Answer::Status(503, Some("1"))));
    let created = client
        .post(format!("{}/v1/elicitations", relay.url))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body(create_body("ana", "acme", "").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = serde_json::from_str(&created.text().await.unwrap()).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    until(Duration::from_secs(10), "the first attempt", || {
        !service.hits("phone").is_empty()
    })
    .await;
    // Killed once the failure is kept (its retry due in a second); a kill before that leaves
    // the row leased, and it goes 30 s later.
    tokio::time::sleep(Duration::from_millis(300)).await;
    relay.kill();
    assert!(service.received().is_empty());

    service.answer_always("phone", None);
    let relay = RelayProcess::start(&temp.0, &database, &key_file, service.origin());
    // A lease held at the kill runs out after 30 s: within that and some.
    until(
        Duration::from_secs(45),
        "the push after the restart",
        || !service.received().is_empty(),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let received = service.received_by("phone");
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0]["id"], id.as_str());
    assert_eq!(received[0]["type"], "elicitation");
    drop(relay);
    service.assert_no_faults();
}

/// The answer page's settings (links on https://relay.example.com), with `dist` as its files.
fn answer_page(dist: &TempDir) -> koder_elicitation_relay::answer_page::AnswerPageSettings {
    std::fs::write(dist.0.join("koder-mcp-elicitation.js"), "export {};").unwrap();
    koder_elicitation_relay::answer_page::AnswerPageSettings::new(
        "https://relay.example.com",
        &dist.0,
    )
    .unwrap()
}

/// A relay pushing to `service` (which knows its key), with the answer page on when `dist` is
/// given, and `--push-open-url` when `open_url` is.
async fn relay_with_page(
    service: &PushService,
    dist: Option<&TempDir>,
    open_url: Option<&str>,
) -> Relay {
    let mut push = settings(service, VapidKey::generate());
    push.open_url = open_url.map(str::to_string);
    let page = dist.map(answer_page);
    let relay = Relay::start_with(move |config| {
        config.push = Some(push);
        config.answer_page = page;
    })
    .await;
    learn_key(service, &relay.url, &relay.client).await;
    relay
}

/// The push a new question asking `request` of `user` (in acme) brings to the one browser
/// `user` subscribed just before, in `language` when given (its subscription is named `user`).
async fn pushed_for(
    service: &PushService,
    relay: &Relay,
    user: &str,
    language: Option<&str>,
    request: Value,
) -> Value {
    let mut subscription = service.subscription(user);
    if let Some(language) = language {
        subscription["language"] = json!(language);
    }
    subscribe(
        &relay.url,
        &relay.client,
        &person(user, "acme"),
        &subscription,
    )
    .await;
    let mut body = create_body(user, "acme", "c1");
    body["request"] = request;
    let id = relay.create_id(body).await;
    until(Duration::from_secs(10), "the push", || {
        !service.received_by(user).is_empty()
    })
    .await;
    let push = service.received_by(user).remove(0);
    assert_eq!(push["id"], id.as_str());
    push
}

/// A link holder's `POST path` with `body`, no credentials: (status, body).
async fn holder(relay: &Relay, path: &str, body: Value) -> (StatusCode, Value) {
    relay
        .call(Method::POST, path, None, Some(body.to_string()))
        .await
}

/// Asserts that `token` is a link to the elicitation `id` (its view shows it).
async fn assert_links_to(relay: &Relay, token: &str, id: &str) {
    let (status, shown) = holder(relay, "/v1/links/view", json!({ "token": token })).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["elicitation"]["id"], id);
}

#[tokio::test]
async fn with_the_answer_page_and_no_open_url_a_push_opens_the_questions_link() {
    let service = PushService::start().await;
    let dist = TempDir::new("dist");
    let linked = relay_with_page(&service, Some(&dist), None).await;
    let ana = person("ana", "acme");
    let phone = service.subscription("phone");
    subscribe(&linked.url, &linked.client, &ana, &phone).await;
    let id = linked.create_id(create_body("ana", "acme", "c1")).await;
    until(Duration::from_secs(10), "the push", || {
        !service.received_by("phone").is_empty()
    })
    .await;
    let push = &service.received_by("phone")[0];
    let url = push["url"].as_str().unwrap();
    let token = url
        .strip_prefix("https://relay.example.com/answer/#t=")
        .unwrap_or_else(|| panic!("{url}"));
    assert_links_to(&linked, token, &id).await;

    // --push-open-url wins over the page.
    let opened = relay_with_page(
        &service,
        Some(&dist),
        Some("https://app.example.com/q/{id}"),
    )
    .await;
    let laptop = service.subscription("laptop");
    subscribe(&opened.url, &opened.client, &ana, &laptop).await;
    let id = opened.create_id(create_body("ana", "acme", "c1")).await;
    until(Duration::from_secs(10), "the push", || {
        !service.received_by("laptop").is_empty()
    })
    .await;
    let push = &service.received_by("laptop")[0];
    assert_eq!(push["url"], format!("https://app.example.com/q/{id}"));
    assert_eq!(
        opened.server().store().links.count_for(&id).await.unwrap(),
        0
    );
    service.assert_no_faults();
}

/// "Deploy to production?" as one boolean property.
fn deploy_question() -> Value {
    json!({"message": "Ready to ship?", "requestedSchema": {"type": "object",
        "properties": {"deploy": {"type": "boolean", "title": "Deploy to production?"}},
        "required": ["deploy"]}})
}

/// A single select of `options` (value and title each).
fn choice_question(options: &[(&str, &str)]) -> Value {
    let options: Vec<Value> = options
        .iter()
        .map(|(value, title)| json!({"const": value, "title": title}))
        .collect();
    json!({"message": "Which region?", "requestedSchema": {"type": "object",
        "properties": {"region": {"type": "string", "oneOf": options}}, "required": ["region"]}})
}

/// The actor of the audit entry recording `action` (waiting for it to be written).
async fn audit_actor(relay: &Relay, action: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, text) = relay
            .call_text(Method::GET, "/v1/audit", Some(SERVICE_TOKEN), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        let found = text
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|entry| entry["action"] == action);
        if let Some(entry) = found {
            return entry["actor"].as_str().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "no {action} entry: {text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_yes_no_questions_push_carries_two_actions_that_answer_it_through_its_link() {
    let service = PushService::start().await;
    let dist = TempDir::new("dist");
    let relay = relay_with_page(&service, Some(&dist), None).await;
    let push = pushed_for(&service, &relay, "ana", None, deploy_question()).await;
    let id = push["id"].as_str().unwrap().to_string();
    assert_eq!(
        push["actions"],
        json!([{"action": "choice-0", "title": "Yes"}, {"action": "choice-1", "title": "No"}])
    );
    let answer = &push["answer"];
    let link = answer["link"].as_str().unwrap();
    let token = answer["token"].as_str().unwrap();
    // The push's own link: the one its click opens.
    assert_eq!(link, format!("https://relay.example.com/answer/#t={token}"));
    assert_eq!(push["url"], link);
    assert_eq!(token.len(), 43, "{token}");
    assert_eq!(
        answer["endpoint"],
        "https://relay.example.com/v1/links/answer"
    );
    assert_eq!(
        answer["results"],
        json!({"choice-0": {"action": "accept", "content": {"deploy": true}},
               "choice-1": {"action": "accept", "content": {"deploy": false}}})
    );
    assert_eq!(
        relay.server().store().links.count_for(&id).await.unwrap(),
        1,
        "one link, for the click and the actions alike"
    );

    // What the worker does for "No": one POST of the token and that result, no credentials.
    let (status, settled) = holder(
        &relay,
        "/v1/links/answer",
        json!({"token": token, "result": answer["results"]["choice-1"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{settled}");
    let (status, result) = relay.result(&id, 5.0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        http_support::answered_through_a_link(result, None),
        json!({"status": "settled", "result": {"action": "accept", "content": {"deploy": false}}})
    );
    let actor = audit_actor(&relay, "answered:accept").await;
    assert!(actor.starts_with("link:"), "{actor}");
    assert!(!actor.contains(token));
    // A second tap (another device's notification) finds it over.
    let (status, _) = holder(
        &relay,
        "/v1/links/answer",
        json!({"token": token, "result": answer["results"]["choice-0"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    service.assert_no_faults();
}

#[tokio::test]
async fn actions_are_worded_in_the_subscriptions_language_and_kept_with_an_open_url() {
    let service = PushService::start().await;
    let dist = TempDir::new("dist");
    let relay = relay_with_page(
        &service,
        Some(&dist),
        Some("https://app.example.com/q/{id}"),
    )
    .await;
    let push = pushed_for(&service, &relay, "ana", Some("pt-BR"), deploy_question()).await;
    assert_eq!(
        push["actions"],
        json!([{"action": "choice-0", "title": "Sim"}, {"action": "choice-1", "title": "Não"}])
    );
    // The click opens the app; the actions still answer through the push's own link.
    assert_eq!(
        push["url"],
        format!("https://app.example.com/q/{}", push["id"].as_str().unwrap())
    );
    let token = push["answer"]["token"].as_str().unwrap();
    assert_eq!(
        push["answer"]["link"],
        format!("https://relay.example.com/answer/#t={token}")
    );
    assert_links_to(&relay, token, push["id"].as_str().unwrap()).await;
    service.assert_no_faults();
}

#[tokio::test]
async fn only_a_shape_of_at_most_two_choices_with_the_page_on_carries_actions() {
    let service = PushService::start().await;
    let dist = TempDir::new("dist");
    let relay = relay_with_page(&service, Some(&dist), None).await;
    let shapes = [
        (
            "approve",
            json!({"message": "Approve the plan?", "requestedSchema": {"type": "object", "properties": {}}}),
            Some(
                json!([{"action": "choice-0", "title": "Accept"}, {"action": "choice-1", "title": "Reject"}]),
            ),
        ),
        (
            "two",
            choice_question(&[("eu", "Europe"), ("us", "Americas")]),
            Some(
                json!([{"action": "choice-0", "title": "Europe"}, {"action": "choice-1", "title": "Americas"}]),
            ),
        ),
        (
            "three",
            choice_question(&[("eu", "Europe"), ("us", "Americas"), ("ap", "Asia")]),
            None,
        ),
        ("text", city_form(), None),
    ];
    for (user, request, actions) in shapes {
        let push = pushed_for(&service, &relay, user, None, request).await;
        match actions {
            Some(actions) => {
                assert_eq!(push["actions"], actions, "{user}");
                let results = push["answer"]["results"].as_object().unwrap();
                assert_eq!(results.len(), 2, "{user}");
            }
            None => {
                assert!(push.get("actions").is_none(), "{user}: {push}");
                assert!(push.get("answer").is_none(), "{user}: {push}");
            }
        }
    }

    // The page off: a yes/no question's push has no actions (and no link to answer through).
    let plain = relay_with_page(&service, None, None).await;
    let push = pushed_for(&service, &plain, "off", None, deploy_question()).await;
    assert!(push.get("actions").is_none(), "{push}");
    assert!(push.get("answer").is_none(), "{push}");
    assert!(push.get("url").is_none(), "{push}");
    service.assert_no_faults();
}

#[tokio::test]
async fn an_apps_service_worker_on_another_origin_may_answer_through_a_link() {
    let app = "https://app.example.com";
    let dist = TempDir::new("dist");
    let page = answer_page(&dist);
    let relay = Relay::start_with(|config| {
        config.answer_page = Some(page.clone());
        config.allow_origins = vec![app.to_string()];
    })
    .await;
    let allowed = |response: &reqwest::Response| {
        response
            .headers()
            .get("access-control-allow-origin")
            .map(|value| value.to_str().unwrap().to_string())
    };
    let preflight = |relay: &Relay, path: &str, origin: &str| {
        relay
            .client
            .request(Method::OPTIONS, format!("{}{path}", relay.url))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type")
            .send()
    };
    let mut body = create_body("ana", "acme", "c1");
    body["request"] = deploy_question();
    let id = relay.create_id(body).await;
    let url = relay.link(&id).await;
    let token = url.split_once("#t=").unwrap().1;

    for path in ["/v1/links/view", "/v1/links/answer"] {
        let response = preflight(&relay, path, app).await.unwrap();
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        assert_eq!(allowed(&response).as_deref(), Some(app), "{path}");
        let methods = response.headers()["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(methods.contains("POST"), "{path}: {methods}");
        let headers = response.headers()["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        assert!(headers.contains("content-type"), "{path}: {headers}");
        let elsewhere = preflight(&relay, path, "https://evil.example")
            .await
            .unwrap();
        assert_eq!(allowed(&elsewhere), None, "{path}");
    }
    // The worker's answer itself, from the app's origin: readable there.
    let answered = relay
        .client
        .post(format!("{}/v1/links/answer", relay.url))
        .header("origin", app)
        .header("content-type", "application/json")
        .body(
            json!({"token": token, "result": {"action": "accept", "content": {"deploy": true}}})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), StatusCode::OK);
    assert_eq!(allowed(&answered).as_deref(), Some(app));
    // A failure is readable too: the worker tells a 409 from a network error.
    let again = relay
        .client
        .post(format!("{}/v1/links/answer", relay.url))
        .header("origin", app)
        .header("content-type", "application/json")
        .body(json!({"token": token, "result": {"action": "decline"}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(allowed(&again).as_deref(), Some(app));
    // The hosts' API still answers no other origin.
    let host = preflight(&relay, "/v1/elicitations", app).await.unwrap();
    assert_eq!(allowed(&host), None);

    // Without --allow-origin: no CORS on the links either.
    let plain = Relay::start_with(|config| config.answer_page = Some(page)).await;
    let response = preflight(&plain, "/v1/links/answer", app).await.unwrap();
    assert_eq!(allowed(&response), None);
}
