//! The one error type every RPC handler returns. It carries a numeric code and a message and is
//! mapped once per protocol: an XML-RPC fault (`faultCode`/`faultString`) or a JSON-RPC error
//! object (`code`/`message`). The same failure therefore reads the same on both wires.
//!
//! Where a client needs a value to act on (the current revision after a stale `if_revision`,
//! the limit a call ran into, the path of a bad value) the error carries it as `data` too:
//! JSON-RPC sends it as the error object's `data`; XML-RPC faults have no room for it and
//! stay as rswiss clients know them (the message says the same in words).

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
    /// The database cannot be reached ([`StoreError::Unavailable`]); a write may have landed.
    pub const STORAGE_UNAVAILABLE: i32 = -32008;
    /// Other daemons kept winning the tournament's compare-and-set; nothing was recorded.
    pub const STORAGE_CONFLICT: i32 = -32009;
    /// No `tournament.*` tournament of that id (the auth check and every `tournament.*`
    /// method answer it).
    pub const NO_TOURNAMENT: i32 = 1001;
}

use crate::store::StoreError;

/// The one answer to a store failure, in every namespace (`tournament.*`, `matchmaker.*`,
/// imports, views). Each message says what is known to be true and how to find out the
/// rest: a lost connection may have taken a COMMIT's answer with it after the COMMIT
/// landed, so -32008 never claims the call was not recorded.
pub fn store_error(e: &StoreError) -> RpcError {
    match e {
        StoreError::Unavailable(_) => {
            tracing::warn!(error = %e, "store unavailable");
            RpcError::new(
                codes::STORAGE_UNAVAILABLE,
                "storage unavailable: the database cannot be reached (the daemon reconnects by \
                 itself). A write may have been recorded all the same, if the connection was \
                 lost while it was being committed: read the state back (tournament.get or \
                 tournament.events; matchmaker.checkedout_matches) before trying it again",
            )
        }
        StoreError::Conflict { id, .. } => RpcError::new(
            codes::STORAGE_CONFLICT,
            format!(
                "tournament {id} was being changed by other daemons on the same database at \
                 the same time: the call was not recorded; try it again"
            ),
        ),
        StoreError::WriterDied(_) => {
            tracing::error!(error = %e, "store failure");
            RpcError::internal(
                "storage failure: the database writer stopped (see the daemon's log); no write \
                 can be recorded until the daemon restarts, and one in flight may or may not \
                 have been: read the state back after the restart",
            )
        }
        StoreError::Closed => RpcError::internal(
            "storage closed: the daemon is shutting down; the call was not recorded",
        ),
        StoreError::Corrupt { id, .. } => {
            tracing::error!(error = %e, "store failure");
            RpcError::internal(format!(
                "storage failure: the log of tournament {id} cannot be read (see the daemon's \
                 log); nothing was recorded"
            ))
        }
        StoreError::NotFound(id) => RpcError::internal(format!(
            "storage failure: tournament {id} is not in the database; nothing was recorded"
        )),
        StoreError::Database(_) => {
            tracing::error!(error = %e, "store failure");
            RpcError::internal(
                "storage failure: the database refused the write (see the daemon's log); the \
                 call was not recorded",
            )
        }
    }
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
    /// The values a client may act on (JSON-RPC's error `data`), when there are any.
    pub data: Option<serde_json::Value>,
}

impl RpcError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if message.len() > MAX_MESSAGE_BYTES {
            message = clip(&message, MAX_MESSAGE_BYTES).into_owned();
        }
        RpcError {
            code,
            message,
            data: None,
        }
    }

    /// The same error carrying `data` (JSON-RPC's error `data`).
    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
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
        .with_data(serde_json::json!({"request_budget_ms": ms}))
    }
}

impl RpcError {
    /// An answer bigger than `max_reply_bytes` (`limit`): said instead of a cut reply.
    pub fn reply_too_big(limit: usize) -> Self {
        Self::new(
            codes::REPLY_TOO_BIG,
            format!("the reply exceeds max_reply_bytes ({limit} bytes)"),
        )
        .with_data(serde_json::json!({"max_reply_bytes": limit}))
    }
}

/// For handlers that look at the budget themselves; [`crate::rpc::call`] puts the limit in the
/// message.
impl From<crate::budget::OverBudget> for RpcError {
    fn from(_: crate::budget::OverBudget) -> Self {
        Self::new(codes::OVER_BUDGET, "request exceeded its time budget")
    }
}

/// The application layer's failures on the wire: the one place they get their codes.
impl From<crate::app::AppError> for RpcError {
    fn from(e: crate::app::AppError) -> Self {
        use crate::app::AppError;
        match e {
            AppError::OverBudget { ms } => Self::over_budget(ms),
            AppError::ShuttingDown => Self::internal("the daemon is shutting down"),
            AppError::Panicked => Self::internal("internal error"),
        }
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
    fn store_failures_map_to_one_answer_with_true_messages() {
        let unavailable = store_error(&StoreError::Unavailable("connection lost".into()));
        assert_eq!(unavailable.code, -32008);
        // An ambiguous COMMIT may have landed: the answer must not say it did not.
        assert!(
            !unavailable.message.contains("not recorded"),
            "{unavailable}"
        );
        assert!(unavailable.message.contains("may have been recorded"));
        assert!(unavailable.message.contains("read the state back"));
        let conflict = store_error(&StoreError::Conflict { id: 7, seq: 3 });
        assert_eq!(conflict.code, -32009);
        assert!(conflict.message.contains("tournament 7"));
        assert!(conflict.message.contains("not recorded"));
        let full = store_error(&StoreError::Database("disk I/O error".into()));
        assert_eq!(full.code, -32603);
        assert!(full.message.contains("not recorded"), "{full}");
        // Internals stay in the log.
        assert!(!full.message.contains("disk I/O"), "{full}");
        let died = store_error(&StoreError::WriterDied("panic".into()));
        assert_eq!(died.code, -32603);
        assert!(!died.message.contains("not recorded"), "{died}");
        assert_eq!(store_error(&StoreError::Closed).code, -32603);
    }

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
