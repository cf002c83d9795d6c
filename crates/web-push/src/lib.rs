//! Web Push for plain Rust: message encryption (RFC 8291, the `aes128gcm` content coding of
//! RFC 8188) and VAPID (RFC 8292), for both sides.
//!
//! The sending side, as an application server: [`VapidKey`] signs the `Authorization` header
//! and [`encrypt`] makes the body for a subscription's [`SubscriptionKeys`]. The receiving side,
//! as a browser and its push service: [`Receiver`] holds the subscriber's keys and decrypts,
//! [`verify_vapid`] checks the header.
//!
//! ```
//! use koder_web_push::{encrypt, verify_vapid, Receiver, VapidKey};
//!
//! let browser = Receiver::generate();
//! let keys = koder_web_push::SubscriptionKeys::from_base64url(
//!     &browser.p256dh_base64url(),
//!     &browser.auth_base64url(),
//! )?;
//! let body = encrypt(&keys, br#"{"type":"elicitation"}"#)?;
//! assert_eq!(browser.decrypt(&body)?, br#"{"type":"elicitation"}"#);
//!
//! let vapid = VapidKey::generate();
//! let header = vapid.authorization("https://push.example.net", "mailto:ops@example.com", 1_900_000_000)?;
//! assert_eq!(verify_vapid(&header)?.public_key, vapid.public_key_base64url());
//! # Ok::<(), koder_web_push::PushError>(())
//! ```

mod base64url;
mod ece;
mod error;
mod keys;
mod vapid;

pub use ece::encrypt;
pub use error::PushError;
pub use keys::{Receiver, SubscriptionKeys};
pub use vapid::{verify_vapid, VapidClaims, VapidKey};

/// The record size every body is written with: one record of 4096 bytes, the payload size
/// every push service must accept (RFC 8030 §7.2).
pub const RECORD_SIZE: u32 = 4096;

/// The longest plaintext one push carries: 4096 bytes of body less the 86-byte header, the
/// 16-byte tag and the 1-byte delimiter (RFC 8291 §4).
pub const MAX_PLAINTEXT: usize = 3993; // one 4096-byte record: 4096 - 86 header - 16 tag - 1 delimiter
