//! The subscriber's keys: what a browser publishes (`SubscriptionKeys`) and what it keeps
//! (`Receiver`).

use std::fmt;

use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use rand_core::{OsRng, RngCore};

use crate::{base64url, PushError};

/// Length of the auth secret (RFC 8291 §3.2).
pub(crate) const AUTH_SECRET_LEN: usize = 16;
/// Length of an uncompressed P-256 point: `0x04 || x || y`.
pub(crate) const UNCOMPRESSED_POINT_LEN: usize = 65;

/// The keys of one push subscription, as the browser gives them in
/// `PushSubscription.toJSON().keys`: its P-256 public key (`p256dh`) and its 16-byte auth secret.
#[derive(Clone, PartialEq, Eq)]
pub struct SubscriptionKeys {
    pub(crate) p256dh: PublicKey,
    pub(crate) auth: [u8; AUTH_SECRET_LEN],
}

impl SubscriptionKeys {
    /// From `PushSubscription.toJSON().keys`: base64url, padded or not.
    ///
    /// Refuses a `p256dh` that is not a 65-byte uncompressed point on the P-256 curve, and an
    /// `auth` that is not 16 bytes.
    pub fn from_base64url(p256dh: &str, auth: &str) -> Result<SubscriptionKeys, PushError> {
        let point = base64url::decode(p256dh, "p256dh")?;
        let p256dh = parse_uncompressed_point(&point, "p256dh")?;
        let auth = parse_auth_secret(&base64url::decode(auth, "auth")?)?;
        Ok(SubscriptionKeys { p256dh, auth })
    }

    /// The public key as base64url without padding (65 bytes, uncompressed).
    pub fn p256dh_base64url(&self) -> String {
        base64url::encode(self.p256dh.to_encoded_point(false).as_bytes())
    }

    /// The auth secret as base64url without padding.
    pub fn auth_base64url(&self) -> String {
        base64url::encode(&self.auth)
    }
}

/// Shows the public key only: the auth secret stays out of logs.
impl fmt::Debug for SubscriptionKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubscriptionKeys")
            .field("p256dh", &self.p256dh_base64url())
            .field("auth", &"<redacted>")
            .finish()
    }
}

/// The receiving side of Web Push, made as a browser makes it: a P-256 key pair and an auth
/// secret. It hands out its [`SubscriptionKeys`] and decrypts what is pushed to them.
#[derive(Clone)]
pub struct Receiver {
    pub(crate) secret: SecretKey,
    pub(crate) auth: [u8; AUTH_SECRET_LEN],
}

impl Receiver {
    /// A fresh key pair and a fresh random auth secret.
    pub fn generate() -> Receiver {
        let mut auth = [0u8; AUTH_SECRET_LEN];
        OsRng.fill_bytes(&mut auth);
        Receiver {
            secret: SecretKey::random(&mut OsRng),
            auth,
        }
    }

    /// From a stored private key (the 32-byte scalar, as a JWK's `d`) and auth secret, both
    /// base64url.
    pub fn from_base64url(private_key: &str, auth: &str) -> Result<Receiver, PushError> {
        let scalar = base64url::decode(private_key, "private key")?;
        let secret = SecretKey::from_slice(&scalar).map_err(|_| PushError::InvalidPrivateKey)?;
        let auth = parse_auth_secret(&base64url::decode(auth, "auth")?)?;
        Ok(Receiver { secret, auth })
    }

    /// The public key, as `PushSubscription.toJSON().keys.p256dh` carries it.
    pub fn p256dh_base64url(&self) -> String {
        self.keys().p256dh_base64url()
    }

    /// The auth secret, as `PushSubscription.toJSON().keys.auth` carries it.
    pub fn auth_base64url(&self) -> String {
        base64url::encode(&self.auth)
    }

    /// What a sender needs to encrypt for this receiver.
    pub fn keys(&self) -> SubscriptionKeys {
        SubscriptionKeys {
            p256dh: self.secret.public_key(),
            auth: self.auth,
        }
    }
}

/// Shows the public key only: the private key and the auth secret stay out of logs.
impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("p256dh", &self.p256dh_base64url())
            .finish_non_exhaustive()
    }
}

/// A P-256 point in the only form Web Push uses: 65 bytes, uncompressed, on the curve.
pub(crate) fn parse_uncompressed_point(
    bytes: &[u8],
    field: &'static str,
) -> Result<PublicKey, PushError> {
    if bytes.len() != UNCOMPRESSED_POINT_LEN || bytes.first() != Some(&0x04) {
        return Err(PushError::InvalidPublicKey { field });
    }
    PublicKey::from_sec1_bytes(bytes).map_err(|_| PushError::InvalidPublicKey { field })
}

fn parse_auth_secret(bytes: &[u8]) -> Result<[u8; AUTH_SECRET_LEN], PushError> {
    <[u8; AUTH_SECRET_LEN]>::try_from(bytes)
        .map_err(|_| PushError::InvalidAuthSecret { len: bytes.len() })
}
