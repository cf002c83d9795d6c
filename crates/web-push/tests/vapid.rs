//! VAPID (RFC 8292): the key in PEM, the `Authorization` header it signs, and `verify_vapid`,
//! which a push service runs on that header.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use koder_web_push::{verify_vapid, PushError, VapidClaims, VapidKey};
use serde_json::{json, Value};

const AUDIENCE: &str = "https://push.example.net";
const SUBJECT: &str = "mailto:ops@example.com";
const EXPIRES: u64 = 1_900_000_000;

/// A P-256 key made with `openssl genpkey`, and the public key and private scalar `openssl ec
/// -text` shows for it.
const OPENSSL_P256: &str = include_str!("fixtures/p256.pem");
const OPENSSL_P256_PUBLIC: &str =
    "BPq3QMCEAUfjY1c-JFbbYL7fgyZCbW447KCk_vK1p8jno6wVFmXK_RqxazcVcoEVMOFnJjrr4OqI6Wacz2--24c";
const OPENSSL_P256_PRIVATE: &str = "pbt_ubyLftNERkSPJkusemGwqfJHWJPAhIGQLbaBO_s";

/// Splits `vapid t=…, k=…` as written by `authorization`.
fn token_and_key(header: &str) -> (String, String) {
    let rest = header.strip_prefix("vapid t=").unwrap();
    let (token, key) = rest.split_once(", k=").unwrap();
    (token.to_owned(), key.to_owned())
}

fn decode_part(part: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}

fn encode_json(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

#[test]
fn the_header_is_an_es256_jwt_with_aud_exp_sub_and_the_key() {
    let key = VapidKey::generate();
    let header = key.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap();
    let (token, k) = token_and_key(&header);
    assert_eq!(k, key.public_key_base64url());
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "{token}");
    assert_eq!(
        decode_part(parts[0]),
        json!({ "typ": "JWT", "alg": "ES256" })
    );
    assert_eq!(
        decode_part(parts[1]),
        json!({ "aud": AUDIENCE, "exp": EXPIRES, "sub": SUBJECT })
    );
    assert_eq!(
        URL_SAFE_NO_PAD.decode(parts[2]).unwrap().len(),
        64,
        "r || s"
    );
    assert!(!token.contains('='), "JWT parts are unpadded");
}

#[test]
fn verify_vapid_reads_back_what_authorization_signed() {
    let key = VapidKey::generate();
    let header = key.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap();
    assert_eq!(
        verify_vapid(&header).unwrap(),
        VapidClaims {
            aud: AUDIENCE.into(),
            exp: EXPIRES,
            sub: SUBJECT.into(),
            public_key: key.public_key_base64url(),
        }
    );
}

#[test]
fn the_public_key_is_a_65_byte_uncompressed_point() {
    let public = URL_SAFE_NO_PAD
        .decode(VapidKey::generate().public_key_base64url())
        .unwrap();
    assert_eq!(public.len(), 65);
    assert_eq!(public[0], 0x04);
}

#[test]
fn parameters_are_read_in_any_order_and_spacing() {
    let key = VapidKey::generate();
    let (token, k) = token_and_key(&key.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap());
    for header in [
        format!("vapid k={k}, t={token}"),
        format!("vapid t={token},k={k}"),
        format!("  VAPID   k = {k} ,  t = {token}  "),
        format!("vapid t={token}, k={k}="),
    ] {
        let claims = verify_vapid(&header).unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(claims.public_key, k, "{header}");
        assert_eq!(claims.aud, AUDIENCE, "{header}");
    }
}

#[test]
fn headers_that_are_not_vapid_t_k_are_refused() {
    let key = VapidKey::generate();
    let (token, k) = token_and_key(&key.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap());
    for header in [
        String::new(),
        "vapid".into(),
        format!("Bearer {token}"),
        format!("WebPush {token}"),
        format!("vapid t={token}"),
        format!("vapid k={k}"),
        format!("vapid t={token}, t={token}, k={k}"),
        format!("vapid t={token}, k"),
        format!("vapid t={token}.extra, k={k}"),
        format!("vapid t=a.b, k={k}"),
    ] {
        assert!(
            matches!(
                verify_vapid(&header),
                Err(PushError::MalformedAuthorization(_) | PushError::Base64 { .. })
            ),
            "{header:?} gave {:?}",
            verify_vapid(&header)
        );
    }
}

#[test]
fn a_tampered_signature_or_claim_is_refused() {
    let key = VapidKey::generate();
    let (token, k) = token_and_key(&key.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap());
    let (signing_input, signature) = token.rsplit_once('.').unwrap();

    let mut altered = URL_SAFE_NO_PAD.decode(signature).unwrap();
    altered[10] ^= 1;
    let header = format!(
        "vapid t={signing_input}.{}, k={k}",
        URL_SAFE_NO_PAD.encode(&altered)
    );
    assert_eq!(verify_vapid(&header), Err(PushError::BadSignature));

    let (jwt_header, _) = signing_input.split_once('.').unwrap();
    let longer = json!({ "aud": AUDIENCE, "exp": EXPIRES + 86_400, "sub": SUBJECT });
    let header = format!(
        "vapid t={jwt_header}.{}.{signature}, k={k}",
        encode_json(&longer)
    );
    assert_eq!(verify_vapid(&header), Err(PushError::BadSignature));

    let short = URL_SAFE_NO_PAD.encode(&altered[..63]);
    let header = format!("vapid t={signing_input}.{short}, k={k}");
    assert_eq!(verify_vapid(&header), Err(PushError::BadSignature));
}

#[test]
fn another_keys_k_is_refused() {
    let signer = VapidKey::generate();
    let other = VapidKey::generate();
    let (token, _) = token_and_key(&signer.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap());
    let header = format!("vapid t={token}, k={}", other.public_key_base64url());
    assert_eq!(verify_vapid(&header), Err(PushError::BadSignature));
    let header = format!("vapid t={token}, k=AAAA");
    assert_eq!(
        verify_vapid(&header),
        Err(PushError::InvalidPublicKey { field: "k" })
    );
}

#[test]
fn tokens_for_other_algorithms_are_refused() {
    let key = VapidKey::generate();
    let k = key.public_key_base64url();
    let claims = encode_json(&json!({ "aud": AUDIENCE, "exp": EXPIRES, "sub": SUBJECT }));
    for (alg, signature) in [
        ("none", String::new()),
        ("HS256", URL_SAFE_NO_PAD.encode([7u8; 32])),
        ("ES384", URL_SAFE_NO_PAD.encode([7u8; 96])),
        ("es256", URL_SAFE_NO_PAD.encode([7u8; 64])),
    ] {
        let jwt_header = encode_json(&json!({ "typ": "JWT", "alg": alg }));
        let header = format!("vapid t={jwt_header}.{claims}.{signature}, k={k}");
        assert_eq!(
            verify_vapid(&header),
            Err(PushError::UnsupportedAlgorithm(alg.into())),
            "{alg}"
        );
    }
    let no_alg = encode_json(&json!({ "typ": "JWT" }));
    assert!(matches!(
        verify_vapid(&format!("vapid t={no_alg}.{claims}.AAAA, k={k}")),
        Err(PushError::MalformedAuthorization(_))
    ));
}

/// A header signed (truly, with ES256) over whatever JWT header and claims the test wants.
fn signed_with_the_openssl_key(jwt_header: &Value, claims: &Value) -> String {
    use p256::ecdsa::signature::Signer;
    let scalar = URL_SAFE_NO_PAD.decode(OPENSSL_P256_PRIVATE).unwrap();
    let signing = p256::ecdsa::SigningKey::from_slice(&scalar).unwrap();
    let input = format!("{}.{}", encode_json(jwt_header), encode_json(claims));
    let signature: p256::ecdsa::Signature = signing.sign(input.as_bytes());
    let signature = URL_SAFE_NO_PAD.encode(signature.to_bytes());
    format!("vapid t={input}.{signature}, k={OPENSSL_P256_PUBLIC}")
}

#[test]
fn signed_claims_without_aud_or_a_whole_exp_are_refused_and_a_missing_sub_is_empty() {
    let es256 = json!({ "typ": "JWT", "alg": "ES256" });
    let good = signed_with_the_openssl_key(
        &es256,
        &json!({ "aud": AUDIENCE, "exp": 5, "sub": SUBJECT }),
    );
    assert_eq!(
        verify_vapid(&good).unwrap().exp,
        5,
        "the signing helper works"
    );

    let no_sub = signed_with_the_openssl_key(
        &json!({ "alg": "ES256" }),
        &json!({ "aud": AUDIENCE, "exp": 5 }),
    );
    assert_eq!(
        verify_vapid(&no_sub).unwrap(),
        VapidClaims {
            aud: AUDIENCE.into(),
            exp: 5,
            sub: String::new(),
            public_key: OPENSSL_P256_PUBLIC.into(),
        }
    );
    for claims in [
        json!({ "exp": 5, "sub": SUBJECT }),
        json!({ "aud": 7, "exp": 5, "sub": SUBJECT }),
        json!({ "aud": AUDIENCE, "sub": SUBJECT }),
        json!({ "aud": AUDIENCE, "exp": "5", "sub": SUBJECT }),
        json!({ "aud": AUDIENCE, "exp": 5.5, "sub": SUBJECT }),
        json!({ "aud": AUDIENCE, "exp": -5, "sub": SUBJECT }),
        json!({ "aud": AUDIENCE, "exp": 5, "sub": ["mailto:x@example.com"] }),
        json!([AUDIENCE, 5, SUBJECT]),
        json!("claims"),
    ] {
        assert!(
            matches!(
                verify_vapid(&signed_with_the_openssl_key(&es256, &claims)),
                Err(PushError::MalformedAuthorization(_))
            ),
            "{claims}"
        );
    }
}

#[test]
fn the_audience_must_be_an_origin_and_the_subject_a_contact() {
    let key = VapidKey::generate();
    for bad in [
        "https://push.example.net/path",
        "push.example.net",
        "",
        "https://",
    ] {
        assert!(
            matches!(
                key.authorization(bad, SUBJECT, EXPIRES),
                Err(PushError::InvalidVapidParameter(_))
            ),
            "audience {bad:?}"
        );
    }
    for bad in ["ops@example.com", "mailto:", "http://example.com", ""] {
        assert!(
            matches!(
                key.authorization(AUDIENCE, bad, EXPIRES),
                Err(PushError::InvalidVapidParameter(_))
            ),
            "subject {bad:?}"
        );
    }
    for good in [
        "https://push.example.net:8443",
        "http://127.0.0.1:9000",
        "http://[::1]:80",
    ] {
        let header = key
            .authorization(good, "https://example.com/contact", 1)
            .unwrap();
        assert_eq!(verify_vapid(&header).unwrap().aud, good);
    }
}

#[test]
fn pem_round_trip_keeps_the_key() {
    let key = VapidKey::generate();
    let pem = key.to_pkcs8_pem();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{pem}");
    assert!(
        pem.trim_end().ends_with("-----END PRIVATE KEY-----"),
        "{pem}"
    );
    let again = VapidKey::from_pkcs8_pem(&pem).unwrap();
    assert_eq!(again.public_key_base64url(), key.public_key_base64url());
    assert_eq!(again.to_pkcs8_pem(), pem);
    let header = again.authorization(AUDIENCE, SUBJECT, EXPIRES).unwrap();
    assert_eq!(
        verify_vapid(&header).unwrap().public_key,
        key.public_key_base64url()
    );
}

#[test]
fn an_openssl_p256_key_is_read_with_its_public_key() {
    let key = VapidKey::from_pkcs8_pem(OPENSSL_P256).unwrap();
    assert_eq!(key.public_key_base64url(), OPENSSL_P256_PUBLIC);
    let crlf = OPENSSL_P256.replace('\n', "\r\n");
    assert_eq!(
        VapidKey::from_pkcs8_pem(&crlf)
            .unwrap()
            .public_key_base64url(),
        OPENSSL_P256_PUBLIC
    );
}

#[test]
fn debug_shows_the_public_key_and_never_the_private_one() {
    let key = VapidKey::from_pkcs8_pem(OPENSSL_P256).unwrap();
    let shown = format!("{key:?} {key:#?}");
    assert!(shown.contains(OPENSSL_P256_PUBLIC), "{shown}");
    assert!(!shown.contains(OPENSSL_P256_PRIVATE), "{shown}");
    let pem_body: String = OPENSSL_P256
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    for line in OPENSSL_P256.lines().filter(|l| !l.starts_with("-----")) {
        assert!(!shown.contains(line), "{shown}");
    }
    assert!(!shown.contains(&pem_body));
    assert!(
        !shown.to_lowercase().contains("a5bb7fb9bc8b7ed3"),
        "{shown}"
    );
}

#[test]
fn other_keys_and_garbage_are_refused_with_a_clear_reason() {
    let cases = [
        (include_str!("fixtures/p384.pem"), "P-384"),
        (include_str!("fixtures/rsa.pem"), "RSA"),
        (include_str!("fixtures/ed.pem"), "Ed25519"),
        (include_str!("fixtures/p256-sec1.pem"), "SEC1"),
        (include_str!("fixtures/p256-enc.pem"), "encrypted"),
        ("", "not a PEM"),
        ("hello", "not a PEM"),
        (
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "not valid PKCS#8",
        ),
        (
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
            "CERTIFICATE",
        ),
    ];
    for (pem, reason) in cases {
        match VapidKey::from_pkcs8_pem(pem) {
            Err(error @ PushError::InvalidPem(_)) => {
                let message = error.to_string();
                assert!(
                    message.contains(reason),
                    "{message:?} should say {reason:?}"
                );
                assert!(message.contains("P-256"), "{message:?}");
            }
            other => panic!("{reason}: {other:?}"),
        }
    }
}
