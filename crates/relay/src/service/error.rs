//! Why a service call did not do what was asked, in the service's own terms: the HTTP API maps
//! each to its status and message once (in `api`), so nothing here knows HTTP.

use crate::store::StoreError;

/// What a call could not find. The API words each; an id outside the caller's scope is the
/// same as an unknown one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// No such elicitation (or not the caller's).
    Elicitation,
    /// No such answer link (unknown, forged, or its elicitation deleted).
    Link,
    /// No such push subscription (or another person's).
    Subscription,
}

/// Why a service call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ServiceError {
    /// It is not there, or not the caller's.
    #[error("not found: {0:?}")]
    NotFound(Missing),
    /// It is there, but its state does not allow this (over already, at a cap).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The caller may not do this with the scope they hold.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// What the caller sent is refused; the message says why.
    #[error("invalid: {0}")]
    Invalid(String),
    /// The caller's credential (a token, a ticket) is over or was never valid.
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    /// The caller holds as much of something as allowed; try again after `retry_after_s`.
    #[error("too many: {message}")]
    TooMany {
        /// What there is too much of.
        message: String,
        /// Seconds until trying again may work.
        retry_after_s: u64,
    },
    /// The system gave no randomness for a fresh secret.
    #[error("no randomness: {0}")]
    NoRandomness(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}
