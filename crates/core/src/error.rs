//! The one error a malformed request or schema produces: JSON-RPC "Invalid params" naming the path.

use std::fmt;

/// JSON-RPC 2.0 "Invalid params", the code MCP uses for a malformed `elicitation/create`.
pub const INVALID_PARAMS: i32 = -32602;

/// A request or schema that cannot be shown; `message` names the offending path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitationError {
    pub code: i32,
    pub message: String,
}

impl ElicitationError {
    /// `path` is dotted (`requestedSchema.properties.age.minimum`), `problem` a short phrase
    /// (`must be a number`).
    pub fn invalid(path: &str, problem: impl fmt::Display) -> Self {
        let message = if path.is_empty() {
            problem.to_string()
        } else {
            format!("{path} {problem}")
        };
        ElicitationError {
            code: INVALID_PARAMS,
            message,
        }
    }
}

impl fmt::Display for ElicitationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ElicitationError {}

/// Joins a dotted path and a child key (`params` + `message` → `params.message`).
pub fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}
