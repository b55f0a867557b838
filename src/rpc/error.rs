//! The one error type every RPC handler returns. It carries a numeric code and a message and is
//! mapped once per protocol: an XML-RPC fault (`faultCode`/`faultString`) or a JSON-RPC error
//! object (`code`/`message`). The same failure therefore reads the same on both wires.

use std::fmt;

/// Protocol-level codes shared by both protocols (the xmlrpc-epi interoperability set, which is
/// also JSON-RPC 2.0's).
pub mod codes {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
    pub const INTERNAL_ERROR: i32 = -32603;
    /// The call ran past `request_budget_ms` (see [`crate::budget`]).
    pub const OVER_BUDGET: i32 = -32012;
    /// The reply would pass `max_reply_bytes`.
    pub const REPLY_TOO_BIG: i32 = -32013;
}

/// Longest error message sent: messages quote client input (names, values, parser context),
/// and a reply must not grow with whatever a client sent.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// Longest piece of client text (a method or parameter name) quoted in a message.
pub const MAX_QUOTED_BYTES: usize = 100;

/// `text` cut to at most `max` bytes on a character boundary, marked with "…" when cut.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len()).into()
}

/// An error answer to an RPC call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if message.len() > MAX_MESSAGE_BYTES {
            message = clip(&message, MAX_MESSAGE_BYTES).into_owned();
        }
        RpcError { code, message }
    }

    pub fn parse_error(message: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("parse error: {message}"))
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, message)
    }

    pub fn method_not_found(name: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("method not found: {}", clip(name, MAX_QUOTED_BYTES)),
        )
    }

    /// Bad parameters for a method outside `matchmaker.*` (which keeps rswiss's codes).
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    /// A failure on our side (e.g. the store). The message must not leak internals a client
    /// could not act on; details go to the log.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }
}

impl RpcError {
    /// A heavy call stopped at its time budget of `ms` milliseconds.
    pub fn over_budget(ms: u64) -> Self {
        Self::new(
            codes::OVER_BUDGET,
            format!("request exceeded its time budget of {ms} ms"),
        )
    }
}

impl RpcError {
    /// An answer bigger than `max_reply_bytes` (`limit`): said instead of a cut reply.
    pub fn reply_too_big(limit: usize) -> Self {
        Self::new(
            codes::REPLY_TOO_BIG,
            format!("the reply exceeds max_reply_bytes ({limit} bytes)"),
        )
    }
}

/// For handlers that look at the budget themselves; [`crate::rpc::call`] puts the limit in the
/// message.
impl From<crate::budget::OverBudget> for RpcError {
    fn from(_: crate::budget::OverBudget) -> Self {
        Self::new(codes::OVER_BUDGET, "request exceeded its time budget")
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_text_is_clipped() {
        let name = "é".repeat(10_000);
        let e = RpcError::method_not_found(&name);
        assert!(e.message.len() < 200, "{}", e.message);
        assert!(e.message.ends_with("… (20000 bytes)"));
        let e = RpcError::invalid_params("x".repeat(1 << 20));
        assert!(e.message.len() <= MAX_MESSAGE_BYTES + 32);
        assert_eq!(clip("short", 100), "short");
    }
}
