//! The one error type of the crate.

use std::fmt;

/// Why a key, a push body or a VAPID header was refused.
///
/// Every input that can come from outside (a subscription's keys, a PEM file, a push body, an
/// `Authorization` header) is checked and answered with one of these, never with a panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushError {
    /// A field that must be base64url (padded or not) is not.
    Base64 {
        /// Which value: `p256dh`, `auth`, `k`, a JWT part…
        field: &'static str,
    },
    /// A public key that is not a 65-byte uncompressed P-256 point on the curve.
    InvalidPublicKey {
        /// Which value: `p256dh`, `k`, the body's key id…
        field: &'static str,
    },
    /// A private key that is not a valid P-256 scalar.
    InvalidPrivateKey,
    /// An auth secret that is not 16 bytes long.
    InvalidAuthSecret {
        /// The length that was given.
        len: usize,
    },
    /// A private key PEM that is not a PKCS#8 P-256 key; the text says what it is instead.
    InvalidPem(String),
    /// A plaintext longer than one push record can carry.
    PayloadTooLarge {
        /// The plaintext's length.
        len: usize,
        /// [`crate::MAX_PLAINTEXT`].
        max: usize,
    },
    /// An `aes128gcm` body whose header or record layout is broken; the text says where.
    MalformedBody(&'static str),
    /// The record did not authenticate: another key, or a body changed on the way.
    DecryptionFailed,
    /// The decrypted record does not end with the last-record delimiter (RFC 8188 §2).
    InvalidPadding,
    /// The encryption itself failed (no valid input leads here).
    EncryptionFailed,
    /// A VAPID audience that is not an origin, or a subject that is not `mailto:` or `https:`.
    InvalidVapidParameter(String),
    /// An `Authorization` header that is not `vapid t=…, k=…`, or a JWT that is not well formed.
    MalformedAuthorization(String),
    /// A JWT whose header names another algorithm than ES256.
    UnsupportedAlgorithm(String),
    /// The JWT's signature does not verify with the key `k`.
    BadSignature,
}

impl fmt::Display for PushError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PushError::Base64 { field } => write!(f, "{field} is not valid base64url"),
            PushError::InvalidPublicKey { field } => write!(
                f,
                "{field} is not a P-256 public key (65 bytes, uncompressed, on the curve)"
            ),
            PushError::InvalidPrivateKey => write!(f, "the private key is not a valid P-256 key"),
            PushError::InvalidAuthSecret { len } => {
                write!(f, "the auth secret must be 16 bytes, got {len}")
            }
            PushError::InvalidPem(why) => {
                write!(f, "not a PKCS#8 PEM P-256 private key: {why}")
            }
            PushError::PayloadTooLarge { len, max } => write!(
                f,
                "the push payload is {len} bytes; one Web Push record holds at most {max}"
            ),
            PushError::MalformedBody(why) => write!(f, "malformed aes128gcm body: {why}"),
            PushError::DecryptionFailed => write!(
                f,
                "the push message did not decrypt (another key, or it was altered)"
            ),
            PushError::InvalidPadding => write!(
                f,
                "the decrypted record does not end with the last-record delimiter"
            ),
            PushError::EncryptionFailed => write!(f, "the push message could not be encrypted"),
            PushError::InvalidVapidParameter(why) => write!(f, "invalid VAPID parameter: {why}"),
            PushError::MalformedAuthorization(why) => {
                write!(f, "malformed VAPID authorization: {why}")
            }
            PushError::UnsupportedAlgorithm(alg) => {
                write!(
                    f,
                    "the VAPID JWT uses algorithm {alg:?}; only ES256 is accepted"
                )
            }
            PushError::BadSignature => write!(
                f,
                "the VAPID JWT's signature does not verify with the key k"
            ),
        }
    }
}

impl std::error::Error for PushError {}
