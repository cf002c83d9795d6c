//! RFC 8291 Appendix A, replayed byte for byte (the fixed salt and sender key must give the
//! RFC's body, and the RFC's receiver must read it), and RFC 8188's padding rules.

use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Aes128Gcm, KeyInit, Nonce};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::SecretKey;
use rand_core::OsRng;

use super::{derive_content_keys, encrypt_with};
use crate::{base64url, PushError, Receiver, SubscriptionKeys};

const PLAINTEXT: &[u8] = b"When I grow up, I want to be a watermelon";
const SENDER_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
const SENDER_PUBLIC: &str =
    "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
const RECEIVER_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
const RECEIVER_PUBLIC: &str =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
const AUTH_SECRET: &str = "BTBZMqHH6r4Tts7J_aSIgg";
const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

fn decode(text: &str) -> Vec<u8> {
    base64url::decode(text, "test vector").unwrap()
}

#[test]
fn the_rfc_sender_key_gives_the_rfc_public_key() {
    let sender = SecretKey::from_slice(&decode(SENDER_PRIVATE)).unwrap();
    let receiver = Receiver::from_base64url(RECEIVER_PRIVATE, AUTH_SECRET).unwrap();
    let sender_public = crate::keys::parse_uncompressed_point(&decode(SENDER_PUBLIC), "k").unwrap();
    assert_eq!(sender.public_key(), sender_public);
    assert_eq!(receiver.p256dh_base64url(), RECEIVER_PUBLIC);
    assert_eq!(receiver.auth_base64url(), AUTH_SECRET);
}

#[test]
fn encrypting_the_rfc_inputs_gives_the_rfc_body() {
    let keys = SubscriptionKeys::from_base64url(RECEIVER_PUBLIC, AUTH_SECRET).unwrap();
    let sender = SecretKey::from_slice(&decode(SENDER_PRIVATE)).unwrap();
    let salt: [u8; 16] = decode(SALT).try_into().unwrap();
    let body = encrypt_with(&keys, PLAINTEXT, &salt, &sender).unwrap();
    assert_eq!(base64url::encode(&body), BODY);
    assert_eq!(body.len(), 86 + PLAINTEXT.len() + 1 + 16);
}

#[test]
fn the_rfc_receiver_decrypts_the_rfc_body() {
    let receiver = Receiver::from_base64url(RECEIVER_PRIVATE, AUTH_SECRET).unwrap();
    let plaintext = receiver.decrypt(&decode(BODY)).unwrap();
    assert_eq!(plaintext, PLAINTEXT);
}

#[test]
fn another_auth_secret_does_not_decrypt_the_rfc_body() {
    let receiver = Receiver::from_base64url(RECEIVER_PRIVATE, "AAAAAAAAAAAAAAAAAAAAAA").unwrap();
    assert_eq!(
        receiver.decrypt(&decode(BODY)),
        Err(PushError::DecryptionFailed)
    );
}

/// A body whose one record holds `record` as is (content, delimiter and padding chosen by the
/// test), sealed for `receiver` the way `encrypt_with` seals.
fn seal_raw_record(receiver: &Receiver, record: &[u8]) -> Vec<u8> {
    let keys = receiver.keys();
    let sender = SecretKey::random(&mut OsRng);
    let salt = [9u8; 16];
    let (cek, nonce) = derive_content_keys(
        &sender,
        &keys.p256dh,
        &keys.p256dh,
        &sender.public_key(),
        &keys.auth,
        &salt,
    )
    .unwrap();
    let mut sealed = record.to_vec();
    Aes128Gcm::new(&cek.into())
        .encrypt_in_place(Nonce::from_slice(&nonce), b"", &mut sealed)
        .unwrap();
    let mut body = salt.to_vec();
    body.extend_from_slice(&4096u32.to_be_bytes());
    body.push(65);
    body.extend_from_slice(sender.public_key().to_encoded_point(false).as_bytes());
    body.extend_from_slice(&sealed);
    body
}

#[test]
fn padding_after_the_last_record_delimiter_is_removed() {
    let receiver = Receiver::generate();
    let body = seal_raw_record(&receiver, b"padded\x02\0\0\0\0");
    assert_eq!(receiver.decrypt(&body).unwrap(), b"padded");
    let body = seal_raw_record(&receiver, b"\x02");
    assert_eq!(receiver.decrypt(&body).unwrap(), b"");
}

#[test]
fn a_record_without_the_last_record_delimiter_is_refused() {
    let receiver = Receiver::generate();
    for record in [
        &b"not last\x01"[..],
        b"not last\x01\0\0",
        b"no delimiter",
        b"\0\0\0",
    ] {
        assert_eq!(
            receiver.decrypt(&seal_raw_record(&receiver, record)),
            Err(PushError::InvalidPadding),
            "{record:?}"
        );
    }
    // A record of the tag alone has no room for a delimiter.
    assert!(matches!(
        receiver.decrypt(&seal_raw_record(&receiver, b"")),
        Err(PushError::MalformedBody(_))
    ));
}
