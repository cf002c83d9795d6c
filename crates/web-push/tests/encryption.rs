//! The aes128gcm round trip between `encrypt` and `Receiver::decrypt`, and what a receiver does
//! with bodies it must refuse.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use koder_web_push::{encrypt, PushError, Receiver, SubscriptionKeys, MAX_PLAINTEXT};

const HEADER_LEN: usize = 86;
const TAG_LEN: usize = 16;

fn subscribed() -> (Receiver, SubscriptionKeys) {
    let receiver = Receiver::generate();
    let keys =
        SubscriptionKeys::from_base64url(&receiver.p256dh_base64url(), &receiver.auth_base64url())
            .unwrap();
    (receiver, keys)
}

/// A plaintext whose every byte differs from its neighbours, so a shifted or cut copy shows.
fn plaintext(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

#[test]
fn round_trips_empty_one_byte_and_the_largest_payload() {
    let (receiver, keys) = subscribed();
    for len in [0, 1, 2, 100, MAX_PLAINTEXT - 1, MAX_PLAINTEXT] {
        let message = plaintext(len);
        let body = encrypt(&keys, &message).unwrap();
        assert_eq!(
            body.len(),
            HEADER_LEN + len + 1 + TAG_LEN,
            "body for {len} bytes"
        );
        assert!(
            body.len() <= 4096,
            "a {len}-byte payload must fit the 4096-byte push limit"
        );
        assert_eq!(receiver.decrypt(&body).unwrap(), message, "{len} bytes");
    }
}

#[test]
fn the_body_header_carries_the_salt_record_size_and_sender_key() {
    let (_, keys) = subscribed();
    let body = encrypt(&keys, b"hello").unwrap();
    assert_eq!(&body[16..20], &4096u32.to_be_bytes(), "rs");
    assert_eq!(body[20], 65, "idlen");
    assert_eq!(body[21], 0x04, "the key id is an uncompressed point");
}

#[test]
fn one_byte_over_the_limit_is_refused() {
    let (_, keys) = subscribed();
    let refused = encrypt(&keys, &plaintext(MAX_PLAINTEXT + 1));
    assert_eq!(
        refused,
        Err(PushError::PayloadTooLarge {
            len: MAX_PLAINTEXT + 1,
            max: MAX_PLAINTEXT
        })
    );
    assert!(refused.unwrap_err().to_string().contains("3993"));
}

#[test]
fn each_push_has_a_fresh_salt_and_sender_key() {
    let (receiver, keys) = subscribed();
    let first = encrypt(&keys, b"same").unwrap();
    let second = encrypt(&keys, b"same").unwrap();
    assert_ne!(first[..16], second[..16], "salt");
    assert_ne!(first[21..86], second[21..86], "sender key");
    assert_ne!(first[86..], second[86..], "ciphertext");
    assert_eq!(receiver.decrypt(&first).unwrap(), b"same");
    assert_eq!(receiver.decrypt(&second).unwrap(), b"same");
}

#[test]
fn another_receiver_cannot_decrypt() {
    let (_, keys) = subscribed();
    let body = encrypt(&keys, b"for someone else").unwrap();
    let stranger = Receiver::generate();
    assert_eq!(stranger.decrypt(&body), Err(PushError::DecryptionFailed));
}

#[test]
fn the_same_key_with_another_auth_secret_cannot_decrypt() {
    let (receiver, keys) = subscribed();
    let body = encrypt(&keys, b"secret").unwrap();
    let keys_with_other_auth =
        SubscriptionKeys::from_base64url(&receiver.p256dh_base64url(), "AAAAAAAAAAAAAAAAAAAAAA")
            .unwrap();
    let body_for_other_auth = encrypt(&keys_with_other_auth, b"secret").unwrap();
    assert_eq!(receiver.decrypt(&body).unwrap(), b"secret");
    assert_eq!(
        receiver.decrypt(&body_for_other_auth),
        Err(PushError::DecryptionFailed)
    );
}

#[test]
fn every_truncation_is_refused() {
    let (receiver, keys) = subscribed();
    let body = encrypt(&keys, b"a message cut short").unwrap();
    for len in 0..body.len() {
        assert!(
            receiver.decrypt(&body[..len]).is_err(),
            "a body cut to {len} of {} bytes was accepted",
            body.len()
        );
    }
}

#[test]
fn every_changed_byte_is_refused_except_a_record_size_that_still_fits() {
    let (receiver, keys) = subscribed();
    let message = b"do not alter me";
    let body = encrypt(&keys, message).unwrap();
    for at in 0..body.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut altered = body.clone();
            altered[at] ^= flip;
            let result = receiver.decrypt(&altered);
            if (16..20).contains(&at) {
                // RFC 8188 does not authenticate rs: any size that still holds the one record
                // reads the same message; a smaller one is refused.
                let rs = u32::from_be_bytes(altered[16..20].try_into().unwrap()) as usize;
                if rs >= body.len() - HEADER_LEN {
                    assert_eq!(result.unwrap(), message, "rs {rs}");
                } else {
                    assert!(result.is_err(), "rs {rs} accepted");
                }
            } else {
                assert!(result.is_err(), "byte {at} ^ {flip:#x} was accepted");
            }
        }
    }
}

#[test]
fn garbage_and_hostile_headers_are_errors_not_panics() {
    let (receiver, keys) = subscribed();
    // A small deterministic generator: the same bytes on every run.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u8
    };
    for len in 0..600 {
        let garbage: Vec<u8> = (0..len).map(|_| next()).collect();
        assert!(receiver.decrypt(&garbage).is_err(), "{len} random bytes");
    }

    let valid = encrypt(&keys, b"x").unwrap();
    let with_header = |rs: u32, idlen: u8| {
        let mut body = valid.clone();
        body[16..20].copy_from_slice(&rs.to_be_bytes());
        body[20] = idlen;
        body
    };
    for (rs, idlen) in [
        (0, 65),
        (17, 65),
        (u32::MAX, 0),
        (4096, 0),
        (4096, 1),
        (4096, 64),
        (4096, 66),
        (4096, 255),
    ] {
        assert!(
            receiver.decrypt(&with_header(rs, idlen)).is_err(),
            "rs {rs}, idlen {idlen}"
        );
    }
    // The one record of "x" is 1 + 1 + 16 = 18 bytes: the smallest valid rs still holds it.
    assert_eq!(receiver.decrypt(&with_header(18, 65)).unwrap(), b"x");

    let mut two_records = valid.clone();
    two_records.extend_from_slice(&[0u8; 4096]);
    assert!(matches!(
        receiver.decrypt(&two_records),
        Err(PushError::MalformedBody(_))
    ));
    let mut off_curve = valid.clone();
    off_curve[22..86].fill(0x11);
    assert!(matches!(
        receiver.decrypt(&off_curve),
        Err(PushError::InvalidPublicKey { .. })
    ));
}

#[test]
fn subscription_keys_are_read_padded_or_not() {
    let receiver = Receiver::generate();
    let (p256dh, auth) = (receiver.p256dh_base64url(), receiver.auth_base64url());
    assert_eq!(p256dh.len(), 87, "65 bytes, unpadded");
    assert_eq!(auth.len(), 22, "16 bytes, unpadded");
    let padded =
        SubscriptionKeys::from_base64url(&format!("{p256dh}="), &format!("{auth}==")).unwrap();
    assert_eq!(padded, receiver.keys());
    assert_eq!(padded.p256dh_base64url(), p256dh);
    assert_eq!(padded.auth_base64url(), auth);
    let body = encrypt(&padded, b"padded keys").unwrap();
    assert_eq!(receiver.decrypt(&body).unwrap(), b"padded keys");
}

#[test]
fn bad_subscription_keys_are_refused_with_the_reason() {
    let receiver = Receiver::generate();
    let (p256dh, auth) = (receiver.p256dh_base64url(), receiver.auth_base64url());
    let point = base64_decode(&p256dh);

    let compressed = {
        let mut bytes = vec![0x02 | (point[64] & 1)];
        bytes.extend_from_slice(&point[1..33]);
        base64_encode(&bytes)
    };
    let off_curve = {
        let mut bytes = point.clone();
        bytes[64] ^= 1;
        base64_encode(&bytes)
    };
    let too_long = {
        let mut bytes = point.clone();
        bytes.push(0);
        base64_encode(&bytes)
    };
    for bad in [compressed, off_curve, too_long, String::new(), "AA".into()] {
        assert_eq!(
            SubscriptionKeys::from_base64url(&bad, &auth),
            Err(PushError::InvalidPublicKey { field: "p256dh" }),
            "p256dh {bad:?}"
        );
    }
    assert_eq!(
        SubscriptionKeys::from_base64url("not base64!", &auth),
        Err(PushError::Base64 { field: "p256dh" })
    );
    assert_eq!(
        SubscriptionKeys::from_base64url(&p256dh, "AAAAAAAAAAAAAAAAAAAA"),
        Err(PushError::InvalidAuthSecret { len: 15 })
    );
    assert_eq!(
        SubscriptionKeys::from_base64url(&p256dh, &base64_encode(&[7u8; 17])),
        Err(PushError::InvalidAuthSecret { len: 17 })
    );
    assert_eq!(
        SubscriptionKeys::from_base64url(&p256dh, "+/+/"),
        Err(PushError::Base64 { field: "auth" })
    );
    let message = SubscriptionKeys::from_base64url(&p256dh, "AAAA")
        .unwrap_err()
        .to_string();
    assert!(message.contains("16 bytes"), "{message}");
}

#[test]
fn debug_output_keeps_the_secrets_out() {
    let receiver = Receiver::generate();
    for shown in [format!("{receiver:?}"), format!("{:?}", receiver.keys())] {
        assert!(shown.contains(&receiver.p256dh_base64url()), "{shown}");
        assert!(!shown.contains(&receiver.auth_base64url()), "{shown}");
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
