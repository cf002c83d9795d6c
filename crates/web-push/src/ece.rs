//! Web Push message encryption (RFC 8291) in the `aes128gcm` content coding (RFC 8188), one
//! record per message as RFC 8291 §4 requires.

use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Aes128Gcm, KeyInit, Nonce};
use hkdf::Hkdf;
use p256::ecdh::diffie_hellman;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use rand_core::{OsRng, RngCore};
use sha2::Sha256;

use crate::keys::{parse_uncompressed_point, AUTH_SECRET_LEN, UNCOMPRESSED_POINT_LEN};
use crate::{PushError, Receiver, SubscriptionKeys, MAX_PLAINTEXT, RECORD_SIZE};

const SALT_LEN: usize = 16;
const TAG_LEN: usize = 16;
/// salt (16) || rs (4) || idlen (1) || keyid: the sender's public key (65).
const HEADER_LEN: usize = SALT_LEN + 4 + 1 + UNCOMPRESSED_POINT_LEN;
/// RFC 8188 §2: the padding delimiter of the last record.
const LAST_RECORD_DELIMITER: u8 = 0x02;
/// RFC 8188 §2: a record size below 18 cannot hold a delimiter and a tag.
const MIN_RECORD_SIZE: u32 = 18;

/// The aes128gcm body for one push: a fresh salt and sender key each call, one record of
/// [`RECORD_SIZE`]. Refused when `plaintext` is longer than [`MAX_PLAINTEXT`].
pub fn encrypt(keys: &SubscriptionKeys, plaintext: &[u8]) -> Result<Vec<u8>, PushError> {
    let mut salt = [0u8; SALT_LEN];
    OsRng.fill_bytes(&mut salt);
    encrypt_with(keys, plaintext, &salt, &SecretKey::random(&mut OsRng))
}

/// [`encrypt`] with the salt and the sender's key given, so RFC 8291's example can be replayed.
pub(crate) fn encrypt_with(
    keys: &SubscriptionKeys,
    plaintext: &[u8],
    salt: &[u8; SALT_LEN],
    sender_secret: &SecretKey,
) -> Result<Vec<u8>, PushError> {
    if plaintext.len() > MAX_PLAINTEXT {
        return Err(PushError::PayloadTooLarge {
            len: plaintext.len(),
            max: MAX_PLAINTEXT,
        });
    }
    let sender_public = sender_secret.public_key();
    let (cek, nonce) = derive_content_keys(
        sender_secret,
        &keys.p256dh,
        &keys.p256dh,
        &sender_public,
        &keys.auth,
        salt,
    )?;

    let mut body = Vec::with_capacity(HEADER_LEN + plaintext.len() + 1 + TAG_LEN);
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(UNCOMPRESSED_POINT_LEN as u8);
    body.extend_from_slice(sender_public.to_encoded_point(false).as_bytes());

    let mut record = Vec::with_capacity(plaintext.len() + 1 + TAG_LEN);
    record.extend_from_slice(plaintext);
    record.push(LAST_RECORD_DELIMITER);
    Aes128Gcm::new(&cek.into())
        .encrypt_in_place(Nonce::from_slice(&nonce), b"", &mut record)
        .map_err(|_| PushError::EncryptionFailed)?;
    body.extend_from_slice(&record);
    Ok(body)
}

impl Receiver {
    /// Decrypts an `aes128gcm` push body. Any body may be given: a broken, altered or foreign
    /// one is an error, never a panic.
    pub fn decrypt(&self, body: &[u8]) -> Result<Vec<u8>, PushError> {
        decrypt(&self.secret, &self.auth, body)
    }
}

/// The receiver's side: reads the header, derives the keys from the sender's key in it, and
/// opens the single record.
fn decrypt(
    receiver_secret: &SecretKey,
    auth: &[u8; AUTH_SECRET_LEN],
    body: &[u8],
) -> Result<Vec<u8>, PushError> {
    let (salt, rest) = body
        .split_first_chunk::<SALT_LEN>()
        .ok_or(PushError::MalformedBody("shorter than its header"))?;
    let (record_size, rest) = rest
        .split_first_chunk::<4>()
        .ok_or(PushError::MalformedBody("shorter than its header"))?;
    let (&key_id_len, rest) = rest
        .split_first()
        .ok_or(PushError::MalformedBody("shorter than its header"))?;
    let (key_id, record) = rest
        .split_at_checked(usize::from(key_id_len))
        .ok_or(PushError::MalformedBody("shorter than its key id"))?;

    let record_size = u32::from_be_bytes(*record_size);
    if record_size < MIN_RECORD_SIZE {
        return Err(PushError::MalformedBody("record size below 18"));
    }
    if record.len() <= TAG_LEN {
        return Err(PushError::MalformedBody("no record after the header"));
    }
    if u32::try_from(record.len()).map_or(true, |len| len > record_size) {
        return Err(PushError::MalformedBody(
            "more than one record (Web Push sends one)",
        ));
    }
    if usize::from(key_id_len) != UNCOMPRESSED_POINT_LEN {
        return Err(PushError::MalformedBody(
            "the key id is not the sender's 65-byte public key",
        ));
    }
    let sender_public = parse_uncompressed_point(key_id, "the body's key id")?;

    let receiver_public = receiver_secret.public_key();
    let (cek, nonce) = derive_content_keys(
        receiver_secret,
        &sender_public,
        &receiver_public,
        &sender_public,
        auth,
        salt,
    )?;
    let mut plaintext = record.to_vec();
    Aes128Gcm::new(&cek.into())
        .decrypt_in_place(Nonce::from_slice(&nonce), b"", &mut plaintext)
        .map_err(|_| PushError::DecryptionFailed)?;

    // RFC 8188 §2: the plaintext, the delimiter, then zero or more zero bytes.
    let delimiter_at = plaintext
        .iter()
        .rposition(|&byte| byte != 0)
        .ok_or(PushError::InvalidPadding)?;
    if plaintext.get(delimiter_at) != Some(&LAST_RECORD_DELIMITER) {
        return Err(PushError::InvalidPadding);
    }
    plaintext.truncate(delimiter_at);
    Ok(plaintext)
}

/// RFC 8291 §3.4 then RFC 8188 §2.2–2.3: the content encryption key and the nonce of record 0.
///
/// `own_secret` and `peer_public` make the ECDH secret (the sender's secret with the receiver's
/// key, or the other way round); the key info always names the receiver's key first.
fn derive_content_keys(
    own_secret: &SecretKey,
    peer_public: &PublicKey,
    receiver_public: &PublicKey,
    sender_public: &PublicKey,
    auth: &[u8; AUTH_SECRET_LEN],
    salt: &[u8; SALT_LEN],
) -> Result<([u8; 16], [u8; 12]), PushError> {
    let shared = diffie_hellman(own_secret.to_nonzero_scalar(), peer_public.as_affine());

    let auth_extract = Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes().as_slice());
    let mut ikm = [0u8; 32];
    auth_extract
        .expand_multi_info(
            &[
                b"WebPush: info\0",
                receiver_public.to_encoded_point(false).as_bytes(),
                sender_public.to_encoded_point(false).as_bytes(),
            ],
            &mut ikm,
        )
        .map_err(|_| PushError::EncryptionFailed)?;

    let salt_extract = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    let mut nonce = [0u8; 12];
    salt_extract
        .expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .and_then(|()| salt_extract.expand(b"Content-Encoding: nonce\0", &mut nonce))
        .map_err(|_| PushError::EncryptionFailed)?;
    Ok((cek, nonce))
}

#[cfg(test)]
#[path = "ece_tests.rs"]
mod tests;
