//! The application layer's own failures. They know no protocol: each wire adapter has one
//! conversion into its error (`rpc::RpcError: From<AppError>`), so every namespace answers
//! the same failure the same way.

/// Why work the application layer ran for a call did not complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    /// The call's time budget (`request_budget_ms`, `ms` of it) ran out: nothing it would
    /// have recorded was recorded.
    #[error("the call ran past its budget of {ms} ms")]
    OverBudget { ms: u64 },
    /// The turns at heavy work are closed: the daemon is stopping.
    #[error("the daemon is shutting down")]
    ShuttingDown,
    /// Heavy work panicked (a bug); the caller gets one error, the daemon goes on.
    #[error("internal error")]
    Panicked,
}
