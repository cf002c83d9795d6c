//! Web Push's surface over real HTTP against a real relay: the public key, a person's
//! subscriptions (theirs only, one per endpoint, capped), the allow list refusing endpoints a
//! person must not make the relay call, a relay without a VAPID key, and the binary's
//! `vapid generate` and push flags.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use base64::Engine;
use http_support::postgres::Postgres;
use http_support::{mint, person, Relay, TempDir};
use koder_elicitation_relay::channels::push::{AllowList, PushSettings};
use koder_web_push::{Receiver, VapidKey};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const SUBJECT: &str = "mailto:ops@example.com";
/// An exact http origin on the list, as a push service in a test would be.
const LOCAL_PUSH: &str = "http://127.0.0.1:47123";

fn settings(key: &VapidKey) -> PushSettings {
    let mut push = PushSettings::new(key.clone(), SUBJECT).unwrap();
    push.allow = AllowList::parse(&format!("https://*.push.example.com,{LOCAL_PUSH}")).unwrap();
    push.per_person = 3;
    push
}

async fn push_relay(key: &VapidKey, database: Option<&str>) -> Relay {
    let push = settings(key);
    Relay::start_with(|config| {
        config.push = Some(push);
        if let Some(url) = database {
            config.database = url.to_string();
        }
    })
    .await
}

/// `PushSubscription.toJSON()` of a fresh browser for `endpoint`.
fn browser_subscription(endpoint: &str) -> Value {
    let browser = Receiver::generate();
    json!({
        "endpoint": endpoint,
        "expirationTime": null,
        "keys": {"p256dh": browser.p256dh_base64url(), "auth": browser.auth_base64url()},
    })
}

async fn subscribe(relay: &Relay, token: &str, body: &Value) -> (StatusCode, Value) {
    relay
        .call(
            Method::POST,
            "/v1/push/subscriptions",
            Some(token),
            Some(body.to_string()),
        )
        .await
}

async fn listed(relay: &Relay, token: &str) -> Vec<Value> {
    let (status, body) = relay
        .call(Method::GET, "/v1/push/subscriptions", Some(token), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["subscriptions"].as_array().unwrap().clone()
}

async fn unsubscribe(relay: &Relay, token: &str, id: &str) -> (StatusCode, Value) {
    relay
        .call(
            Method::DELETE,
            &format!("/v1/push/subscriptions/{id}"),
            Some(token),
            None,
        )
        .await
}

fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn without_a_vapid_key_every_push_route_is_404() {
    let relay = Relay::start().await;
    let ana = person("ana", "acme");
    let (status, body) = relay.call(Method::GET, "/v1/push/key", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        message(&body),
        "Web Push is off: this relay has no VAPID key"
    );
    let endpoint = "https://a.push.example.com/x";
    let (status, body) = subscribe(&relay, &ana, &browser_subscription(endpoint)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["status"], 404);
    let (status, _) = relay
        .call(Method::GET, "/v1/push/subscriptions", Some(&ana), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = unsubscribe(&relay, &ana, &"0".repeat(32)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A person's routes still want a person first.
    let (status, _) = relay
        .call(Method::GET, "/v1/push/subscriptions", None, None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_key_is_the_relays_public_point_in_base64url() {
    let key = VapidKey::generate();
    let relay = push_relay(&key, None).await;
    let (status, body) = relay.call(Method::GET, "/v1/push/key", None, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let public_key = body["publicKey"].as_str().unwrap();
    assert_eq!(public_key, key.public_key_base64url());
    assert_eq!(body.as_object().unwrap().len(), 1, "{body}");
    let point = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(public_key)
        .unwrap();
    assert_eq!(point.len(), 65);
    assert_eq!(point.first(), Some(&0x04), "an uncompressed point");
}

/// Subscribe, the same endpoint again, list, another person, delete: the same on either store.
async fn a_person_keeps_their_own_subscriptions(relay: &Relay) {
    let ana = person("ana", "acme");
    let ana_elsewhere = person("ana", "globex");
    let bob = person("bob", "acme");
    let endpoint = "https://fcm-like.push.example.com/send/ana-laptop";

    let (status, created) = subscribe(relay, &ana, &browser_subscription(endpoint)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32);
    assert_eq!(created.as_object().unwrap().len(), 1, "{created}");

    // The same endpoint again (new keys, as after a browser re-subscribed): the same one.
    let (status, again) = subscribe(relay, &ana, &browser_subscription(endpoint)).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["id"], id.as_str());

    let mine = listed(relay, &ana).await;
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["id"], id.as_str());
    assert_eq!(mine[0]["endpoint"], endpoint);
    assert!(mine[0]["createdAt"].as_i64().unwrap() > 1_700_000_000_000);
    assert!(
        mine[0].get("keys").is_none() && mine[0].get("p256dh").is_none(),
        "keys are never listed: {mine:?}"
    );

    // Nobody else sees it or can remove it; their 404 is an unknown id's.
    assert!(listed(relay, &bob).await.is_empty());
    assert!(listed(relay, &ana_elsewhere).await.is_empty());
    let (status, theirs) = unsubscribe(relay, &bob, &id).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, unknown) = unsubscribe(relay, &bob, &"f".repeat(32)).await;
    assert_eq!(theirs, unknown);
    assert_eq!(message(&theirs), "no such push subscription");
    let (status, _) = unsubscribe(relay, &ana_elsewhere, &id).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The same endpoint for another person is theirs, with its own id.
    let (status, bobs) = subscribe(relay, &bob, &browser_subscription(endpoint)).await;
    assert_eq!(status, StatusCode::CREATED, "{bobs}");
    assert_ne!(bobs["id"], id.as_str());
    assert_eq!(listed(relay, &ana).await.len(), 1);

    let (status, body) = unsubscribe(relay, &ana, &id).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert!(listed(relay, &ana).await.is_empty());
    assert_eq!(listed(relay, &bob).await.len(), 1);
    let (status, _) = unsubscribe(relay, &ana, &id).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The cap: past it 409, while the same endpoint again is still the same one.
async fn a_person_keeps_at_most_the_cap(relay: &Relay) {
    let cy = person("cy", "acme");
    let endpoint = |n: usize| format!("https://a.push.example.com/cy/{n}");
    let mut ids = Vec::new();
    for n in 0..3 {
        let (status, created) = subscribe(relay, &cy, &browser_subscription(&endpoint(n))).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        ids.push(created["id"].as_str().unwrap().to_string());
    }
    let (status, full) = subscribe(relay, &cy, &browser_subscription(&endpoint(3))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{full}");
    assert!(
        message(&full).contains("already has 3 push subscriptions"),
        "{full}"
    );
    let (status, same) = subscribe(relay, &cy, &browser_subscription(&endpoint(1))).await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same["id"], ids[1].as_str());
    assert_eq!(listed(relay, &cy).await.len(), 3);
    // Someone else's cap is their own.
    let (status, _) = subscribe(
        relay,
        &person("dee", "acme"),
        &browser_subscription(&endpoint(3)),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = unsubscribe(relay, &cy, &ids[0]).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, created) = subscribe(relay, &cy, &browser_subscription(&endpoint(3))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let endpoints: Vec<Value> = listed(relay, &cy)
        .await
        .iter()
        .map(|subscription| subscription["endpoint"].clone())
        .collect();
    assert_eq!(
        endpoints,
        [endpoint(1), endpoint(2), endpoint(3)].map(Value::from)
    );
}

#[tokio::test]
async fn subscriptions_on_sqlite() {
    let relay = push_relay(&VapidKey::generate(), None).await;
    a_person_keeps_their_own_subscriptions(&relay).await;
    a_person_keeps_at_most_the_cap(&relay).await;
}

#[tokio::test]
async fn subscriptions_on_postgres() {
    let postgres = Postgres::start();
    let relay = push_relay(&VapidKey::generate(), Some(&postgres.url)).await;
    a_person_keeps_their_own_subscriptions(&relay).await;
    a_person_keeps_at_most_the_cap(&relay).await;
}

#[tokio::test]
async fn endpoints_off_the_allow_list_and_malformed_bodies_are_refused() {
    let relay = push_relay(&VapidKey::generate(), None).await;
    let ana = person("ana", "acme");
    let good = Receiver::generate();
    let keys = json!({"p256dh": good.p256dh_base64url(), "auth": good.auth_base64url()});
    let with_endpoint = |endpoint: &str| json!({"endpoint": endpoint, "keys": keys});
    let refusals = [
        // A private address, another host, another port of the allowed http origin.
        (
            with_endpoint("https://10.0.0.1/x"),
            "endpoint's origin https://10.0.0.1 is not a push service this relay sends to",
        ),
        (
            with_endpoint("https://push.example.com.evil.example/x"),
            "is not a push service this relay sends to",
        ),
        (
            with_endpoint("https://a.b.push.example.com/x"),
            "is not a push service this relay sends to",
        ),
        (
            with_endpoint("http://127.0.0.1:47124/x"),
            "endpoint must be an https:// URL",
        ),
        (
            with_endpoint("https://127.0.0.1:47123/x"),
            "endpoint's origin https://127.0.0.1:47123 is not a push service",
        ),
        (
            with_endpoint("file:///x"),
            "endpoint must be an https:// URL (its scheme is \"file\"",
        ),
        (
            with_endpoint("not a url"),
            "endpoint is not an absolute URL",
        ),
        // http on an origin that is not listed exactly.
        (
            with_endpoint("http://a.push.example.com/x"),
            "endpoint must be an https:// URL",
        ),
        (
            with_endpoint("https://user:pw@a.push.example.com/x"),
            "endpoint must not carry a user name or password",
        ),
        // Keys that are not a browser's.
        (
            json!({"endpoint": "https://a.push.example.com/x",
                   "keys": {"p256dh": "BAAA", "auth": good.auth_base64url()}}),
            "keys: p256dh is not a P-256 public key",
        ),
        (
            json!({"endpoint": "https://a.push.example.com/x",
                   "keys": {"p256dh": good.p256dh_base64url(), "auth": "c2hvcnQ"}}),
            "keys: the auth secret must be 16 bytes",
        ),
        (
            json!({"endpoint": "https://a.push.example.com/x",
                   "keys": {"p256dh": "not*base64", "auth": good.auth_base64url()}}),
            "keys: p256dh is not valid base64url",
        ),
        // Bodies that are not a subscription.
        (
            json!({"endpoint": "https://a.push.example.com/x"}),
            "keys must be an object",
        ),
        (
            json!("https://a.push.example.com/x"),
            "PushSubscription.toJSON()",
        ),
    ];
    for (body, expected) in &refusals {
        let (status, refused) = subscribe(&relay, &ana, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {refused}");
        assert!(message(&refused).contains(expected), "{body}: {refused}");
    }
    let (status, not_json) = relay
        .call(
            Method::POST,
            "/v1/push/subscriptions",
            Some(&ana),
            Some("{".into()),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(message(&not_json).contains("not valid JSON"), "{not_json}");
    let (status, _) = relay
        .call(
            Method::POST,
            "/v1/push/subscriptions",
            Some(&ana),
            Some(format!(r#"{{"endpoint":"{}"}}"#, "a".repeat(300 * 1024))),
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(listed(&relay, &ana).await.is_empty(), "nothing was stored");

    // The exact http origin on the list is taken.
    let (status, created) =
        subscribe(&relay, &ana, &with_endpoint(&format!("{LOCAL_PUSH}/p/1"))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");

    // Subscriptions belong to the whole person: a token limited to one conversation is refused.
    let limited = mint(json!({"sub": "ana", "workspace": "acme", "conversation": "c1"}));
    let (status, body) = subscribe(
        &relay,
        &limited,
        &with_endpoint("https://a.push.example.com/y"),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        message(&body).contains("limited to one conversation"),
        "{body}"
    );
    let (status, _) = relay
        .call(Method::GET, "/v1/push/subscriptions", Some(&limited), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // And the host's token is not a person's.
    let (status, _) = subscribe(
        &relay,
        http_support::SERVICE_TOKEN,
        &with_endpoint("https://a.push.example.com/z"),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn browsers_on_another_origin_may_call_the_push_routes() {
    let key = VapidKey::generate();
    let push = settings(&key);
    let relay = Relay::start_with(|config| {
        config.push = Some(push);
        config.allow_origins = vec!["https://chat.example.com".into()];
    })
    .await;
    let preflight = relay
        .client
        .request(
            Method::OPTIONS,
            format!("{}/v1/push/subscriptions/abc", relay.url),
        )
        .header("origin", "https://chat.example.com")
        .header("access-control-request-method", "DELETE")
        .header("access-control-request-headers", "authorization")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let headers = preflight.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://chat.example.com"
    );
    assert!(headers["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .contains("DELETE"));
    let key_response = relay
        .client
        .get(format!("{}/v1/push/key", relay.url))
        .header("origin", "https://chat.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(
        key_response.headers()["access-control-allow-origin"],
        "https://chat.example.com"
    );
}

// --- The binary ------------------------------------------------------------------------------

const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");

fn binary(cwd: &std::path::Path) -> Command {
    let mut command = Command::new(BINARY);
    command.current_dir(cwd).stdin(Stdio::null());
    for (name, _) in std::env::vars() {
        if name.starts_with("KODER_RELAY_") {
            command.env_remove(name);
        }
    }
    command
}

fn relay_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--listen",
        "127.0.0.1:0",
        "--service-token",
        "binary-service-token-0123456789abcdef",
        "--jwt-secret",
        "binary-jwt-secret-0123456789abcdef01",
    ];
    args.extend_from_slice(extra);
    args
}

/// A started relay, killed when dropped.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary and returns it with its URL (from the `listening on` line).
fn start(cwd: &std::path::Path, extra: &[&str]) -> (Running, String) {
    start_with_env(cwd, extra, &[])
}

fn start_with_env(
    cwd: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Running, String) {
    let mut child = binary(cwd)
        .args(relay_args(extra))
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        if let Some(Ok(line)) = BufReader::new(stdout).lines().next() {
            let _ = sender.send(line);
        }
    });
    let line = receiver
        .recv_timeout(Duration::from_secs(20))
        .expect("a `listening on` line within 20 s");
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (Running(child), url)
}

async fn published_key(url: &str) -> String {
    let client = koder_elicitation_relay_client::http_client().unwrap();
    let text = client
        .get(format!("{url}/v1/push/key"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    body["publicKey"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn vapid_generate_prints_a_key_the_relay_then_publishes() {
    let temp = TempDir::new("vapid");
    let dir = &temp.0;

    // Without --out: the PEM on stdout, the public key on stderr.
    let printed = binary(dir).args(["vapid", "generate"]).output().unwrap();
    assert!(printed.status.success());
    let pem = String::from_utf8(printed.stdout).unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{pem}");
    let stderr = String::from_utf8(printed.stderr).unwrap();
    let stderr_key = stderr
        .trim_end()
        .strip_prefix("public key: ")
        .unwrap_or_else(|| panic!("{stderr:?}"))
        .to_string();
    assert_eq!(
        VapidKey::from_pkcs8_pem(&pem)
            .unwrap()
            .public_key_base64url(),
        stderr_key
    );

    // With --out: a new file only its owner reads, the public key on stdout.
    let key_file = dir.join("vapid.pem");
    let key_path = key_file.to_str().unwrap();
    let written = binary(dir)
        .args(["vapid", "generate", "--out", key_path])
        .output()
        .unwrap();
    assert!(written.status.success());
    let public_key = String::from_utf8(written.stdout)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(public_key.len(), 87, "{public_key}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let before = std::fs::read_to_string(&key_file).unwrap();
    let again = binary(dir)
        .args(["vapid", "generate", "--out", key_path])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    assert_eq!(std::fs::read_to_string(&key_file).unwrap(), before);

    // The relay started with the file publishes that key.
    let (_running, url) = start(
        dir,
        &[
            "--vapid-private-key-file",
            key_path,
            "--vapid-subject",
            SUBJECT,
        ],
    );
    assert_eq!(published_key(&url).await, public_key);

    // And the PEM printed to stdout, given in the environment, publishes its own.
    let (_second, url) = start_with_env(
        dir,
        &[],
        &[
            ("KODER_RELAY_VAPID_PRIVATE_KEY", pem.as_str()),
            (
                "KODER_RELAY_VAPID_SUBJECT",
                "https://relay.example.com/contact",
            ),
            ("KODER_RELAY_DATABASE", "sqlite://second.db"),
        ],
    );
    assert_eq!(published_key(&url).await, stderr_key);
}

#[test]
fn a_bad_subject_or_key_file_stops_the_start_naming_the_flag() {
    let temp = TempDir::new("vapid-bad");
    let dir = &temp.0;
    let key_file = dir.join("vapid.pem");
    std::fs::write(&key_file, VapidKey::generate().to_pkcs8_pem()).unwrap();
    let not_a_key = dir.join("rsa.pem");
    std::fs::write(&not_a_key, include_str!("fixtures/rsa-private.pem")).unwrap();
    let key_path = key_file.to_str().unwrap();
    for (extra, expected) in [
        (
            vec![
                "--vapid-private-key-file",
                key_path,
                "--vapid-subject",
                "ops@example.com",
            ],
            "'--vapid-subject",
        ),
        (
            vec![
                "--vapid-private-key-file",
                not_a_key.to_str().unwrap(),
                "--vapid-subject",
                SUBJECT,
            ],
            "--vapid-private-key-file",
        ),
        (
            vec!["--vapid-private-key-file", key_path],
            "--vapid-subject is required",
        ),
        (
            vec!["--push-open-url", "https://chat.example.com/{id}"],
            "--push-open-url is set but Web Push has no VAPID key",
        ),
    ] {
        let output = binary(dir).args(relay_args(&extra)).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
    }
}

/// The groups kept with a subscription, by the relay's database.
async fn kept_groups(relay: &Relay, id: &str) -> Vec<String> {
    let url = format!("sqlite://{}", relay.dir.join("relay.db").display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let groups = sqlx::query_scalar(
        "SELECT name FROM koder_push_subscription_groups WHERE subscription_id = $1 \
         ORDER BY name",
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    groups
}

#[tokio::test]
async fn a_subscription_keeps_the_groups_of_the_token_that_last_posted_it() {
    let key = VapidKey::generate();
    let relay = push_relay(&key, None).await;
    let body = browser_subscription("https://fcm.push.example.com/send/groups");
    let ops = mint(json!({"sub": "bo", "workspace": "acme", "groups": ["ops", "db"]}));
    let (status, created) = subscribe(&relay, &ops, &body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    assert_eq!(kept_groups(&relay, id).await, ["db", "ops"]);
    // Posted again with a token whose groups changed: the same subscription, its groups now.
    let dev = mint(json!({"sub": "bo", "workspace": "acme", "groups": "dev"}));
    let (status, again) = subscribe(&relay, &dev, &body).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["id"], json!(id));
    assert_eq!(kept_groups(&relay, id).await, ["dev"]);
}
