//! Canonical JSON and SHA-256 digests: the same value always gives the same bytes (object keys
//! sorted), so digests of requests and results compare and verify; and HMAC-SHA256, the keyed
//! digest of webhook signatures and message links.

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `value` as canonical JSON text: every object's keys in sorted order.
pub fn canonical_json(value: &Value) -> String {
    let mut sorted = value.clone();
    sorted.sort_all_objects();
    sorted.to_string()
}

/// SHA-256 of `bytes`, as 64 lowercase hex characters.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// HMAC-SHA256 with `key` of `parts`, one after another.
pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC takes a key of any length: new_from_slice cannot fail for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return [0; 32];
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth_and_strings_escaped() {
        assert_eq!(
            canonical_json(&json!({"b": [{"z": 1, "a": "x\"y"}], "a": null})),
            r#"{"a":null,"b":[{"a":"x\"y","z":1}]}"#
        );
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
