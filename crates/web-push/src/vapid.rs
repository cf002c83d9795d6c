//! VAPID (RFC 8292): the application server's P-256 key, the `vapid t=…, k=…` header it
//! signs, and the push service's check of that header.

use std::fmt;

use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::pkcs8::der::pem;
use p256::pkcs8::{
    DecodePrivateKey, EncodePrivateKey, LineEnding, ObjectIdentifier, PrivateKeyInfo,
};
use rand_core::OsRng;
use serde_json::{json, Value};

use crate::keys::parse_uncompressed_point;
use crate::{base64url, PushError};

/// id-ecPublicKey (RFC 5480): the algorithm of every EC key in PKCS#8.
const OID_EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
/// secp256r1, that is P-256 (RFC 5480).
const OID_P256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7");
/// The JOSE header of every VAPID token (RFC 8292 §2).
const JWT_HEADER: &str = r#"{"typ":"JWT","alg":"ES256"}"#;

/// The application server's VAPID key: a P-256 signing key.
#[derive(Clone)]
pub struct VapidKey {
    signing: SigningKey,
}

impl VapidKey {
    /// A new random key.
    pub fn generate() -> VapidKey {
        VapidKey {
            signing: SigningKey::random(&mut OsRng),
        }
    }

    /// From a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) holding a P-256 key. Another curve,
    /// another algorithm (RSA…), an encrypted key, a SEC1 `EC PRIVATE KEY` or anything else is
    /// refused with an error that says which.
    pub fn from_pkcs8_pem(pem_text: &str) -> Result<VapidKey, PushError> {
        let (label, der) = pem::decode_vec(pem_text.trim().as_bytes())
            .map_err(|_| PushError::InvalidPem("not a PEM document".into()))?;
        match label {
            "PRIVATE KEY" => {}
            "EC PRIVATE KEY" => {
                return Err(PushError::InvalidPem(
                    "this is a SEC1 EC PRIVATE KEY; convert it with \
                     `openssl pkcs8 -topk8 -nocrypt`"
                        .into(),
                ))
            }
            "ENCRYPTED PRIVATE KEY" => {
                return Err(PushError::InvalidPem(
                    "the key is encrypted; give it unencrypted".into(),
                ))
            }
            other => {
                return Err(PushError::InvalidPem(format!(
                    "the PEM holds {other:?}, not PRIVATE KEY"
                )))
            }
        }
        let info = PrivateKeyInfo::try_from(der.as_slice())
            .map_err(|_| PushError::InvalidPem("the PRIVATE KEY is not valid PKCS#8".into()))?;
        if info.algorithm.oid != OID_EC_PUBLIC_KEY {
            return Err(PushError::InvalidPem(format!(
                "the key's algorithm is {}, not an elliptic-curve key",
                describe_oid(info.algorithm.oid)
            )));
        }
        let curve = info
            .algorithm
            .parameters_oid()
            .map_err(|_| PushError::InvalidPem("the EC key names no curve".into()))?;
        if curve != OID_P256 {
            return Err(PushError::InvalidPem(format!(
                "the key is on curve {}, VAPID needs P-256",
                describe_oid(curve)
            )));
        }
        let signing = SigningKey::from_pkcs8_der(&der)
            .map_err(|_| PushError::InvalidPem("the P-256 private key is invalid".into()))?;
        Ok(VapidKey { signing })
    }

    /// The key as a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, LF line endings).
    #[allow(clippy::expect_used)]
    pub fn to_pkcs8_pem(&self) -> String {
        // Encoding a valid P-256 key into a fixed-size structure has no failing case.
        self.signing
            .to_pkcs8_pem(LineEnding::LF)
            .map(|pem| pem.to_string())
            .expect("a P-256 key always encodes as PKCS#8")
    }

    /// The public key as the browser's `applicationServerKey` and the header's `k=` take it:
    /// the 65-byte uncompressed point, base64url without padding.
    pub fn public_key_base64url(&self) -> String {
        encode_verifying_key(self.signing.verifying_key())
    }

    /// The `Authorization` header for one push: `vapid t=<ES256 JWT>, k=<public key>`.
    ///
    /// `audience` is the push endpoint's origin (`https://push.example.net`, no path), `subject`
    /// a `mailto:` or `https:` contact, `expires_at_unix_s` the token's `exp` (RFC 8292 allows at
    /// most 24 hours ahead).
    pub fn authorization(
        &self,
        audience: &str,
        subject: &str,
        expires_at_unix_s: u64,
    ) -> Result<String, PushError> {
        check_audience(audience)?;
        check_subject(subject)?;
        let claims = json!({ "aud": audience, "exp": expires_at_unix_s, "sub": subject });
        let signing_input = format!(
            "{}.{}",
            base64url::encode(JWT_HEADER.as_bytes()),
            base64url::encode(claims.to_string().as_bytes())
        );
        let signature: Signature = self.signing.sign(signing_input.as_bytes());
        Ok(format!(
            "vapid t={signing_input}.{}, k={}",
            base64url::encode(&signature.to_bytes()),
            self.public_key_base64url()
        ))
    }
}

/// Shows the public key only, never the private one.
impl fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VapidKey")
            .field("public_key", &self.public_key_base64url())
            .finish_non_exhaustive()
    }
}

/// What a verified VAPID header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VapidClaims {
    /// The token's audience: the push service's origin, as the sender wrote it.
    pub aud: String,
    /// The token's expiry, in seconds since the Unix epoch.
    pub exp: u64,
    /// The sender's contact; empty when the token has none (RFC 8292 only recommends it).
    pub sub: String,
    /// The `k=` key, as unpadded base64url of the 65-byte point.
    pub public_key: String,
}

/// Checks a `vapid t=…, k=…` header as a push service does: the parameters in any order and
/// spacing, a JWT whose header says ES256, and a signature that verifies with `k`.
///
/// It does not judge `aud` or `exp`: the caller compares them with its own origin and clock.
pub fn verify_vapid(authorization: &str) -> Result<VapidClaims, PushError> {
    let (token, key) = parse_authorization(authorization)?;
    let key_bytes = base64url::decode(key, "k")?;
    let public_key = parse_uncompressed_point(&key_bytes, "k")?;
    let verifying_key = VerifyingKey::from(public_key);

    let mut parts = token.split('.');
    let (Some(header_part), Some(claims_part), Some(signature_part), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed("t is not a JWT of three parts"));
    };
    let header = decode_json(header_part, "the JWT header")?;
    match header.get("alg") {
        Some(Value::String(alg)) if alg == "ES256" => {}
        Some(Value::String(alg)) => return Err(PushError::UnsupportedAlgorithm(alg.clone())),
        _ => return Err(malformed("the JWT header has no alg")),
    }
    let signature_bytes = base64url::decode(signature_part, "the JWT signature")?;
    let signature = Signature::from_slice(&signature_bytes).map_err(|_| PushError::BadSignature)?;
    let signing_input_len = header_part.len() + 1 + claims_part.len();
    let signing_input = token
        .get(..signing_input_len)
        .ok_or_else(|| malformed("t is not a JWT of three parts"))?;
    verifying_key
        .verify(signing_input.as_bytes(), &signature)
        .map_err(|_| PushError::BadSignature)?;

    let claims = decode_json(claims_part, "the JWT claims")?;
    let aud = match claims.get("aud") {
        Some(Value::String(aud)) => aud.clone(),
        _ => return Err(malformed("the JWT has no aud string")),
    };
    let exp = claims
        .get("exp")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed("the JWT has no exp in whole seconds"))?;
    let sub = match claims.get("sub") {
        None => String::new(),
        Some(Value::String(sub)) => sub.clone(),
        Some(_) => return Err(malformed("the JWT's sub is not a string")),
    };
    Ok(VapidClaims {
        aud,
        exp,
        sub,
        public_key: encode_verifying_key(&verifying_key),
    })
}

/// Splits `vapid t=…, k=…` into the token and the key, in either order and with any spaces.
fn parse_authorization(authorization: &str) -> Result<(&str, &str), PushError> {
    let text = authorization.trim();
    let (scheme, params) = text
        .split_once(|c: char| c.is_ascii_whitespace())
        .ok_or_else(|| malformed("expected `vapid t=…, k=…`"))?;
    if !scheme.eq_ignore_ascii_case("vapid") {
        return Err(malformed("the scheme is not vapid"));
    }
    let (mut token, mut key) = (None, None);
    for param in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = param
            .split_once('=')
            .ok_or_else(|| malformed("a parameter is not name=value"))?;
        let slot = match name.trim() {
            n if n.eq_ignore_ascii_case("t") => &mut token,
            n if n.eq_ignore_ascii_case("k") => &mut key,
            _ => continue,
        };
        if slot.replace(value.trim()).is_some() {
            return Err(malformed("a parameter appears twice"));
        }
    }
    match (token, key) {
        (Some(token), Some(key)) => Ok((token, key)),
        (None, _) => Err(malformed("no t= parameter")),
        (_, None) => Err(malformed("no k= parameter")),
    }
}

fn decode_json(part: &str, what: &'static str) -> Result<Value, PushError> {
    let bytes = base64url::decode(part, what)?;
    match serde_json::from_slice(&bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => Err(PushError::MalformedAuthorization(format!(
            "{what} is not a JSON object"
        ))),
    }
}

fn malformed(why: &str) -> PushError {
    PushError::MalformedAuthorization(why.to_owned())
}

fn encode_verifying_key(key: &VerifyingKey) -> String {
    base64url::encode(key.to_encoded_point(false).as_bytes())
}

/// An origin, as RFC 8292 §2 asks of `aud`: a scheme, a host, maybe a port; nothing after.
fn check_audience(audience: &str) -> Result<(), PushError> {
    let authority = audience
        .strip_prefix("https://")
        .or_else(|| audience.strip_prefix("http://"))
        .ok_or_else(|| {
            PushError::InvalidVapidParameter(format!(
                "the audience {audience:?} is not an http(s) origin"
            ))
        })?;
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._:[]".contains(c);
    if authority.is_empty() || !authority.chars().all(allowed) {
        return Err(PushError::InvalidVapidParameter(format!(
            "the audience {audience:?} must be an origin only (scheme, host, port; no path)"
        )));
    }
    Ok(())
}

/// RFC 8292 §2.1: the contact is a `mailto:` or an `https:` URI.
fn check_subject(subject: &str) -> Result<(), PushError> {
    let rest = subject
        .strip_prefix("mailto:")
        .or_else(|| subject.strip_prefix("https://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.chars().any(char::is_control) => Ok(()),
        _ => Err(PushError::InvalidVapidParameter(format!(
            "the subject {subject:?} must be a mailto: or https: URI"
        ))),
    }
}

/// Names the algorithms and curves people most often hand in by mistake.
fn describe_oid(oid: ObjectIdentifier) -> String {
    let name = match oid.to_string().as_str() {
        "1.2.840.113549.1.1.1" => "RSA",
        "1.3.101.112" => "Ed25519",
        "1.3.101.110" => "X25519",
        "1.3.132.0.34" => "P-384",
        "1.3.132.0.35" => "P-521",
        "1.3.132.0.10" => "secp256k1",
        _ => return format!("OID {oid}"),
    };
    format!("{name} (OID {oid})")
}
