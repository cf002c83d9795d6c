//! Why a call through the relay failed.

use std::fmt;

use serde_json::Value;

/// Why a relay call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum RelayClientError {
    /// The relay could not be reached (after retrying).
    Unreachable(String),
    /// The relay answered with an error: its status, its message and its whole JSON body.
    Relay {
        /// The HTTP status.
        status: u16,
        /// The relay's message (`error.message`).
        message: String,
        /// The body: `{"error":{"status","message","jsonrpcCode"?,"errors"?}}`.
        body: Value,
    },
    /// The relay answered something this client does not understand.
    Unexpected(String),
    /// The caller cancelled; the elicitation was withdrawn.
    Cancelled,
    /// The HTTP client could not be built, or cannot make this request at all (a malformed base
    /// URL; `https` without TLS: see [`RelayClient::new`]).
    Setup(String),
}

impl RelayClientError {
    /// Network errors and 5xx answers may pass: every relay call is safe to repeat.
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            RelayClientError::Unreachable(_) => true,
            RelayClientError::Relay { status, .. } => *status >= 500,
            _ => false,
        }
    }

    /// The JSON-RPC code the relay gave (`-32602` when its core refused the request).
    pub fn jsonrpc_code(&self) -> Option<i64> {
        match self {
            RelayClientError::Relay { body, .. } => body
                .get("error")
                .and_then(|error| error.get("jsonrpcCode"))
                .and_then(Value::as_i64),
            _ => None,
        }
    }
}

impl fmt::Display for RelayClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelayClientError::Unreachable(why) => {
                write!(f, "koder-elicitation-relay unreachable: {why}")
            }
            RelayClientError::Relay {
                status, message, ..
            } => write!(f, "koder-elicitation-relay answered {status}: {message}"),
            RelayClientError::Unexpected(what) => {
                write!(f, "koder-elicitation-relay answered unexpectedly: {what}")
            }
            RelayClientError::Cancelled => f.write_str("the elicitation was withdrawn"),
            RelayClientError::Setup(why) => write!(f, "cannot set up the HTTP client: {why}"),
        }
    }
}

impl std::error::Error for RelayClientError {}
