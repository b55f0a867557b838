//! Engine errors. The codes are rswiss's fault codes, which clients branch on; the RPC layer
//! only chooses the wording for fault 2.

use super::PlayerId;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    #[error("a tournament needs at least one player")]
    NoPlayers,
    #[error("Repeated player ids detected!")]
    RepeatedIds,
    #[error("Still {0} matches to be returned!")]
    StillOut(usize),
    #[error("This tournament reached the end!")]
    Ended,
    #[error("Reached maximum number of rearrangements allowed.")]
    MaxRearranges,
    #[error("Allowing match repetition as last resort was not enough.")]
    RepetitionExhausted,
    #[error("This match has not been checked out!")]
    NotCheckedOut,
    #[error("no player {0} in this tournament")]
    UnknownPlayer(PlayerId),
    #[error("result must be -1 (first player wins), 0 (draw) or 1 (second player wins), got {0}")]
    BadResult(i64),
    #[error("The Tournament has not ended yet.")]
    NotEnded,
    #[error("We have a difficult tie to break. Try flipping a coin.")]
    Tie,
    #[error("corrupt event log: {0}")]
    Corrupt(String),
    /// The write would take the tournament's stored log past its byte budget.
    #[error(
        "the tournament's log holds {size} bytes and this change needs {adding} more, past its \
         budget of {budget} bytes (max_tournament_bytes): nothing was recorded"
    )]
    LogFull { budget: u64, size: u64, adding: u64 },
}

impl EngineError {
    /// rswiss's fault code: 2 for everything rswiss reported as an uncaught exception.
    pub fn code(&self) -> i32 {
        match self {
            EngineError::RepeatedIds => 101,
            EngineError::StillOut(_) => 201,
            EngineError::Ended => 202,
            EngineError::MaxRearranges => 204,
            EngineError::RepetitionExhausted => 205,
            EngineError::NotCheckedOut => 303,
            EngineError::NotEnded => 401,
            EngineError::Tie => 402,
            EngineError::NoPlayers
            | EngineError::UnknownPlayer(_)
            | EngineError::BadResult(_)
            | EngineError::Corrupt(_)
            | EngineError::LogFull { .. } => 2,
        }
    }
}
