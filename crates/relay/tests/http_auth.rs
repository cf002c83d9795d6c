//! People's tokens over real HTTP: what `aud`, `iss` and `nbf` must say, the previous HS256
//! secret, identity providers' keys (JWKS: RS256, ES256, EdDSA, a key added without a restart),
//! and stream tickets instead of tokens in URLs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine;
use http_support::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use koder_elicitation_relay::jwks::REFETCH_INTERVAL;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// `GET /v1/elicitations` with this token: the status and the error message, if any.
async fn list(relay: &Relay, token: &str) -> (StatusCode, String) {
    let (status, body) = relay
        .call(Method::GET, "/v1/elicitations", Some(token), None)
        .await;
    let message = body["error"]["message"].as_str().unwrap_or_default();
    (status, message.to_string())
}

#[tokio::test]
async fn a_token_needs_the_relays_audience_and_its_time() {
    let relay = Relay::start().await;
    let claims = |extra: Value| {
        let mut claims = with_defaults(json!({"sub": "alice", "workspace": "acme"}));
        for (name, value) in extra.as_object().unwrap() {
            claims[name] = value.clone();
        }
        claims
    };
    let (status, _) = list(&relay, &mint_with(&claims(json!({})), JWT_SECRET)).await;
    assert_eq!(status, StatusCode::OK);

    let mut no_aud = claims(json!({}));
    no_aud.as_object_mut().unwrap().remove("aud");
    let refused = [
        ("no aud", no_aud, "invalid token: no aud claim"),
        (
            "another aud (say, the app's session token)",
            claims(json!({"aud": "my-app-session"})),
            "invalid token: aud must be \"koder-elicitation-relay\"",
        ),
        (
            "a future nbf",
            claims(json!({"nbf": now_secs() + 60})),
            "token not valid yet (nbf)",
        ),
    ];
    for (what, claims, message) in refused {
        let (status, said) = list(&relay, &mint_with(&claims, JWT_SECRET)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}");
        assert_eq!(said, message, "{what}");
    }
    // A past nbf and an audience list naming the relay are fine.
    let fine = claims(json!({"nbf": now_secs() - 5, "aud": ["my-app", AUDIENCE]}));
    assert_eq!(
        list(&relay, &mint_with(&fine, JWT_SECRET)).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_audience_issuer_claim_names_and_previous_secret_are_configurable() {
    const PREVIOUS: &str = "previous-jwt-secret-5b2e8c1f4a7d0396";
    let relay = Relay::start_with(|config| {
        config.auth.jwt_audience = "relay.example".into();
        config.auth.jwt_issuer = Some("https://idp.example/".into());
        config.auth.jwt_previous_secret = Some(PREVIOUS.into());
        config.auth.workspace_claim = "https://app.example/workspace".into();
        config.auth.conversation_claim = "https://app.example/conversation".into();
    })
    .await;
    relay.create_id(create_body("alice", "acme", "c1")).await;
    relay.create_id(create_body("alice", "acme", "c2")).await;
    let claims = json!({
        "sub": "alice",
        "https://app.example/workspace": "acme",
        "https://app.example/conversation": "c2",
        "aud": "relay.example",
        "iss": "https://idp.example/",
        "exp": now_secs() + 600,
    });
    for secret in [JWT_SECRET, PREVIOUS] {
        let pending = relay.pending(&mint_with(&claims, secret)).await;
        assert_eq!(pending.len(), 1, "only conversation c2");
        assert_eq!(pending[0]["scope"]["conversationId"], json!("c2"));
    }
    let (status, _) = list(
        &relay,
        &mint_with(&claims, "a-third-secret-0123456789abcdef01234"),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    for (claim, value) in [
        ("iss", json!("https://other.example/")),
        ("aud", json!(AUDIENCE)),
    ] {
        let mut other = claims.clone();
        other[claim] = value;
        let (status, _) = list(&relay, &mint_with(&other, JWT_SECRET)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "another {claim}");
    }
    let mut no_iss = claims.clone();
    no_iss.as_object_mut().unwrap().remove("iss");
    assert_eq!(
        list(&relay, &mint_with(&no_iss, JWT_SECRET)).await,
        (
            StatusCode::UNAUTHORIZED,
            "invalid token: no iss claim".into()
        )
    );
    // The default claim names mean nothing to this relay.
    let mut plain = claims;
    plain["workspace"] = json!("acme");
    plain
        .as_object_mut()
        .unwrap()
        .remove("https://app.example/workspace");
    assert_eq!(
        list(&relay, &mint_with(&plain, JWT_SECRET)).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_short_secret_stops_the_start() {
    let dir = TempDir::new("short");
    let database = format!("sqlite://{}", dir.0.join("relay.db").display());
    type Adjust = fn(&mut koder_elicitation_relay::Config);
    let cases: [(&str, Adjust); 3] = [
        ("jwt secret", |config| {
            config.auth.jwt_secret = Some("short".into())
        }),
        ("service token", |config| {
            config.auth.service_token = "short".into()
        }),
        ("no key at all", |config| config.auth.jwt_secret = None),
    ];
    for (what, adjust) in cases {
        let mut config = koder_elicitation_relay::Config::new(SERVICE_TOKEN, JWT_SECRET);
        config.listen = "127.0.0.1:0".parse().unwrap();
        config.database = database.clone();
        adjust(&mut config);
        let error = koder_elicitation_relay::serve(config)
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(error.contains("--"), "{what}: {error}");
    }
}

// ---------------------------------------------------------------------------------------------
// No long-lived token in a URL: tickets.

async fn ticket(relay: &Relay, token: &str) -> (StatusCode, Value) {
    relay
        .call(Method::POST, "/v1/stream/ticket", Some(token), None)
        .await
}

async fn open_with_ticket(relay: &Relay, ticket: &str) -> reqwest::Response {
    relay
        .client
        .get(format!("{}/v1/stream?ticket={ticket}", relay.url))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn access_token_in_the_url_gets_401() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    // Headers only first: were the token taken, this would be an endless event stream.
    let response = relay
        .client
        .get(format!("{}/v1/stream?access_token={alice}", relay.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Authorization header") && message.contains("/v1/stream/ticket"),
        "{message}"
    );
}

#[tokio::test]
async fn a_ticket_opens_the_stream_exactly_once() {
    let relay = Relay::start().await;
    let in_c2 = mint(json!({"sub": "alice", "workspace": "acme", "conversation": "c2"}));
    relay.create_id(create_body("alice", "acme", "c1")).await;
    let mine = relay.create_id(create_body("alice", "acme", "c2")).await;

    let (status, issued) = ticket(&relay, &in_c2).await;
    assert_eq!(status, StatusCode::OK, "{issued}");
    assert_eq!(issued["expiresInMs"], json!(30_000));
    let ticket_text = issued["ticket"].as_str().unwrap().to_string();
    assert_eq!(ticket_text.len(), 32);
    assert!(!ticket_text.contains('.'), "a ticket is not a JWT");

    // It carries the token's scope: conversation c2 only.
    let response = open_with_ticket(&relay, &ticket_text).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = SseReader::new(response);
    assert_eq!(stream.expect().await.data["id"], json!(mine));
    assert_eq!(stream.next(Duration::from_millis(300)).await, None);

    // Used: 401, even while the first stream is open, and after it closed.
    let again = open_with_ticket(&relay, &ticket_text).await;
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED);
    drop(stream);
    let (status, body) = relay
        .call(
            Method::GET,
            &format!("/v1/stream?ticket={ticket_text}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        body["error"]["message"],
        json!("invalid ticket: unknown, expired or already used")
    );

    // Unknown tickets, and tickets asked for without a person's Bearer token.
    assert_eq!(
        open_with_ticket(&relay, "0123456789abcdef0123456789abcdef")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        ticket(&relay, SERVICE_TOKEN).await.0,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = relay
        .call(Method::POST, "/v1/stream/ticket", None, None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_ticket_never_outlives_its_token_and_works_on_another_replica() {
    let relay = Relay::start().await;
    // A second relay on the same database file: replicas share tickets as they share elicitations.
    let database = format!("sqlite://{}", relay.dir.join("relay.db").display());
    let replica = Relay::start_with(|config| config.database = database).await;
    let soon = mint(json!({"sub": "alice", "workspace": "acme", "exp": now_secs() + 2}));
    let (status, issued) = ticket(&relay, &soon).await;
    assert_eq!(status, StatusCode::OK);
    let lifetime = issued["expiresInMs"].as_i64().unwrap();
    assert!(lifetime <= 2_000, "{lifetime}");
    let (_, other) = ticket(&relay, &soon).await;
    assert_eq!(
        open_with_ticket(&replica, other["ticket"].as_str().unwrap())
            .await
            .status(),
        StatusCode::OK
    );
    tokio::time::sleep(Duration::from_millis(lifetime as u64 + 50)).await;
    let late = open_with_ticket(&relay, issued["ticket"].as_str().unwrap()).await;
    assert_eq!(late.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn live_tickets_are_capped_per_person() {
    let relay = Relay::start().await;
    let alice = person("alice", "acme");
    for _ in 0..32 {
        assert_eq!(ticket(&relay, &alice).await.0, StatusCode::OK);
    }
    let response = relay
        .client
        .post(format!("{}/v1/stream/ticket", relay.url))
        .header("authorization", format!("Bearer {alice}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry_after), "{retry_after}");
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["status"], json!(429));
    // Someone else is not held back by alice's tickets.
    assert_eq!(
        ticket(&relay, &person("bob", "acme")).await.0,
        StatusCode::OK
    );
}

// ---------------------------------------------------------------------------------------------
// Identity providers: a JWKS.

fn fixture(name: &str) -> PathBuf {
    Path::new(FIXTURES).join(name)
}

/// The DER inside a PEM file.
fn der(name: &str) -> Vec<u8> {
    let pem = std::fs::read_to_string(fixture(name)).unwrap();
    let body: String = pem
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap()
}

fn sign(algorithm: Algorithm, kid: Option<&str>, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(algorithm);
    header.kid = kid.map(str::to_string);
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

fn alice_claims() -> Value {
    with_defaults(json!({"sub": "alice", "workspace": "acme"}))
}

/// A relay whose people's tokens come from the JWKS file at `jwks` (and, `with_secret`, HS256 too).
async fn relay_with_jwks(jwks: &Path, with_secret: bool) -> Relay {
    let url = format!("file://{}", jwks.display());
    Relay::start_with(|config| {
        config.auth.jwks_url = Some(url);
        if !with_secret {
            config.auth.jwt_secret = None;
        }
    })
    .await
}

#[tokio::test]
async fn rs256_es256_and_eddsa_tokens_from_the_key_set_are_accepted() {
    let relay = relay_with_jwks(&fixture("jwks.json"), false).await;
    relay.create_id(create_body("alice", "acme", "")).await;
    let rsa = EncodingKey::from_rsa_der(&der("rsa-private.pem"));
    let p256 = EncodingKey::from_ec_der(&der("p256-private.pem"));
    let ed25519 = EncodingKey::from_ed_der(&der("ed25519-private.pem"));
    let claims = alice_claims();
    for (what, token) in [
        (
            "RS256",
            sign(Algorithm::RS256, Some("rsa-1"), &rsa, &claims),
        ),
        (
            "ES256",
            sign(Algorithm::ES256, Some("p256-1"), &p256, &claims),
        ),
        (
            "EdDSA",
            sign(Algorithm::EdDSA, Some("ed25519-1"), &ed25519, &claims),
        ),
    ] {
        assert_eq!(relay.pending(&token).await.len(), 1, "{what}");
    }
    // The same checks as HS256 tokens: aud, exp.
    let mut other_aud = claims.clone();
    other_aud["aud"] = json!("my-app");
    let mut expired = claims.clone();
    expired["exp"] = json!(now_secs() - 5);
    for (what, token) in [
        (
            "another aud",
            sign(Algorithm::RS256, Some("rsa-1"), &rsa, &other_aud),
        ),
        (
            "expired",
            sign(Algorithm::ES256, Some("p256-1"), &p256, &expired),
        ),
        // The key's algorithm is pinned: RS512 with the RS256 key is refused.
        (
            "another RSA alg",
            sign(Algorithm::RS512, Some("rsa-1"), &rsa, &claims),
        ),
        // The kid names the P-256 key, the signature is RSA.
        (
            "kid of another key",
            sign(Algorithm::RS256, Some("p256-1"), &rsa, &claims),
        ),
        ("no kid", sign(Algorithm::RS256, None, &rsa, &claims)),
        (
            "unknown kid",
            sign(Algorithm::RS256, Some("rsa-9"), &rsa, &claims),
        ),
        // No HS256 secret on this relay: an HS256 token is never checked against the set.
        ("HS256 on a JWKS-only relay", mint(claims.clone())),
    ] {
        assert_eq!(
            list(&relay, &token).await.0,
            StatusCode::UNAUTHORIZED,
            "{what}"
        );
    }
}

#[tokio::test]
async fn an_hs256_token_signed_with_the_public_key_is_refused() {
    // Both kinds of keys: HS256 tokens are checked only against the HS256 secret.
    let relay = relay_with_jwks(&fixture("jwks.json"), true).await;
    let claims = alice_claims();
    let public_pem = std::fs::read(fixture("rsa-public.pem")).unwrap();
    let public_der = der("rsa-public.pem");
    let jwks: Value =
        serde_json::from_slice(&std::fs::read(fixture("jwks.json")).unwrap()).unwrap();
    let modulus = jwks["keys"][0]["n"].as_str().unwrap().as_bytes().to_vec();
    // The P-256 key's SEC1 point, which is the very bytes a verifier of that key holds.
    let coordinate = |name: &str| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(jwks["keys"][1][name].as_str().unwrap())
            .unwrap()
    };
    let point = [vec![4u8], coordinate("x"), coordinate("y")].concat();
    for (what, kid, secret) in [
        ("RSA PEM", "rsa-1", public_pem),
        ("RSA DER", "rsa-1", public_der),
        ("RSA JWK n", "rsa-1", modulus),
        ("P-256 point", "p256-1", point),
    ] {
        let token = sign(
            Algorithm::HS256,
            Some(kid),
            &EncodingKey::from_secret(&secret),
            &claims,
        );
        assert_eq!(
            list(&relay, &token).await,
            (StatusCode::UNAUTHORIZED, "invalid token".into()),
            "{what}"
        );
    }
    // The relay's own HS256 tokens still work beside the key set.
    assert_eq!(list(&relay, &mint(claims)).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_key_added_to_the_set_is_used_without_a_restart() {
    let dir = TempDir::new("jwks");
    let jwks_path = dir.0.join("jwks.json");
    std::fs::copy(fixture("jwks.json"), &jwks_path).unwrap();
    let relay = relay_with_jwks(&jwks_path, false).await;
    let started = Instant::now();
    let rotated = EncodingKey::from_rsa_der(&der("rsa-rotated-private.pem"));
    let token = sign(Algorithm::RS256, Some("rsa-2"), &rotated, &alice_claims());
    assert_eq!(
        list(&relay, &token).await.0,
        StatusCode::UNAUTHORIZED,
        "not in the set yet"
    );

    // The provider publishes its new key next to the old one.
    let mut jwks: Value = serde_json::from_slice(&std::fs::read(&jwks_path).unwrap()).unwrap();
    let added: Value =
        serde_json::from_slice(&std::fs::read(fixture("jwks-rotated-key.json")).unwrap()).unwrap();
    jwks["keys"].as_array_mut().unwrap().push(added);
    std::fs::write(&jwks_path, jwks.to_string()).unwrap();

    // Unknown kids refetch at most once per interval: right after the start, not yet.
    // (`started` is a little after the set was read at start: the margin keeps this exact.)
    if started.elapsed() < REFETCH_INTERVAL / 2 {
        assert_eq!(
            list(&relay, &token).await.0,
            StatusCode::UNAUTHORIZED,
            "rate limited"
        );
    }
    let deadline = started + REFETCH_INTERVAL + Duration::from_secs(5);
    let accepted_after = loop {
        if list(&relay, &token).await.0 == StatusCode::OK {
            break started.elapsed();
        }
        assert!(Instant::now() < deadline, "the new key was never fetched");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        accepted_after >= REFETCH_INTERVAL - Duration::from_millis(500),
        "refetched sooner than the interval allows: {accepted_after:?}"
    );
    // The old keys still work; a broken set later keeps the known keys.
    let rsa = EncodingKey::from_rsa_der(&der("rsa-private.pem"));
    let old = sign(Algorithm::RS256, Some("rsa-1"), &rsa, &alice_claims());
    assert_eq!(list(&relay, &old).await.0, StatusCode::OK);
    std::fs::write(&jwks_path, "{ not json").unwrap();
    tokio::time::sleep(REFETCH_INTERVAL).await;
    let unknown = sign(Algorithm::RS256, Some("rsa-3"), &rsa, &alice_claims());
    assert_eq!(list(&relay, &unknown).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(list(&relay, &token).await.0, StatusCode::OK);
    assert_eq!(list(&relay, &old).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_bad_key_set_url_stops_the_start() {
    let dir = TempDir::new("jwks-bad");
    let broken = dir.0.join("broken.json");
    std::fs::write(
        &broken,
        r#"{"keys": [{"kty": "oct", "kid": "s", "k": "c2VjcmV0"}]}"#,
    )
    .unwrap();
    for (url, why) in [
        (
            format!("file://{}", dir.0.join("missing.json").display()),
            "cannot read the JWKS file",
        ),
        (
            format!("file://{}", broken.display()),
            "no usable signing key",
        ),
        (
            "http://127.0.0.1:9/jwks.json".to_string(),
            "must start with https://",
        ),
        // TLS is set up (with the relay's own provider), then nothing listens.
        (
            "https://127.0.0.1:9/jwks.json".to_string(),
            "cannot fetch the JWKS",
        ),
    ] {
        let mut config = koder_elicitation_relay::Config::new(SERVICE_TOKEN, JWT_SECRET);
        config.listen = "127.0.0.1:0".parse().unwrap();
        config.database = format!("sqlite://{}", dir.0.join("relay.db").display());
        config.auth.jwks_url = Some(url.clone());
        let error = koder_elicitation_relay::serve(config)
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("--jwks-url") && error.contains(why),
            "{url}: {error}"
        );
    }
}
