//! RFC 8291 Appendix A, replayed byte for byte: the fixed salt and sender key must give the
//! RFC's body, and the RFC's receiver must read it.

use p256::SecretKey;

use super::encrypt_with;
use crate::{base64url, Receiver, SubscriptionKeys};

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
        Err(crate::PushError::DecryptionFailed)
    );
}
