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
}

/// An error answer to an RPC call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub fn parse_error(message: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("parse error: {message}"))
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, message)
    }

    pub fn method_not_found(name: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, format!("method not found: {name}"))
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

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}
