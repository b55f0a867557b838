//! The engine's refusals. Each has a stable numeric code (the `tournament.*` range, 1000–1049)
//! that the RPC layer sends as is, so a client can act on the code and show the message.

/// Why a command was refused (or, for [`TournamentError::Corrupt`], why a log cannot be read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    /// A value out of its allowed range or shape: the message names it.
    #[error("{0}")]
    Invalid(String),
    #[error("the tournament is archived: unarchive it to change it")]
    Archived,
    #[error("no player {0} in this tournament")]
    UnknownPlayer(u32),
    #[error(
        "a player named {0:?} is already registered (OpenGotha needs name + first name unique)"
    )]
    DuplicatePlayer(String),
    #[error("a tournament takes at most {0} players")]
    TooManyPlayers(usize),
    #[error("round {round} does not exist (the tournament has {rounds} rounds)")]
    NoSuchRound { round: u32, rounds: u32 },
    /// A command that only applies to one round was given another (pair only the next round,
    /// edit only the last paired one).
    #[error("{0}")]
    NotCurrentRound(String),
    #[error("round {0} has results: clear them first (or pass force to drop them)")]
    RoundHasResults(u32),
    #[error("no one to pair in round {0}")]
    NothingToPair(u32),
    #[error("no pairing exists for round {round}: {reason}")]
    NoPairing { round: u32, reason: String },
    #[error("player {player} appears twice in round {round}")]
    PlayerTwice { player: u32, round: u32 },
    /// The player may not play this round: absent (skips it), withdrawn, or preliminary.
    #[error("player {player} cannot play round {round}: {why}")]
    PlayerUnavailable {
        player: u32,
        round: u32,
        why: &'static str,
    },
    #[error("player {player} is already paired in round {round}")]
    AlreadyPaired { player: u32, round: u32 },
    #[error("round {round} has no game at table {table}")]
    NoSuchGame { round: u32, table: u32 },
    #[error("the game at table {table} of round {round} has a result: clear it first")]
    GameHasResult { round: u32, table: u32 },
    /// A change to a player that conflicts with a round they are already paired in.
    #[error("player {player} is paired in round {round}: {what}")]
    PlayerPaired {
        player: u32,
        round: u32,
        what: &'static str,
    },
    #[error("the game record does not load: {0}")]
    RecordUnreadable(String),
    #[error("the game record does not match the game (strict mode): {0}")]
    RecordRejected(String),
    #[error(
        "unknown result {0:?}: use W+, B+, jigo, both_win, both_lose or ? (a trailing ! marks a forfeit)"
    )]
    UnknownResult(String),
    #[error("round {round} table {table} has no game record")]
    NoRecord { round: u32, table: u32 },
    #[error("the tournament is at revision {actual}, not {expected}: read it again and retry")]
    Stale { expected: u64, actual: u64 },
    #[error("the pairing's costs are too large to solve exactly")]
    TooLarge,
    /// The write would take the tournament's stored log past its byte budget
    /// (`max_tournament_bytes`); nothing was recorded.
    #[error(
        "the tournament's log holds {size} bytes and this change needs {adding} more, past its \
         budget of {budget} bytes (max_tournament_bytes): nothing was recorded"
    )]
    LogFull { budget: u64, size: u64, adding: u64 },
    /// A log that cannot be folded, or a bug: never the client's fault.
    #[error("inconsistent tournament state: {0}")]
    Corrupt(String),
}

impl TournamentError {
    /// The stable error code sent on both protocols.
    pub fn code(&self) -> i32 {
        use TournamentError as E;
        match self {
            E::Invalid(_) => 1010,
            E::Archived => 1003,
            E::UnknownPlayer(_) => 1011,
            E::DuplicatePlayer(_) => 1012,
            E::TooManyPlayers(_) => 1013,
            E::NoSuchRound { .. } => 1020,
            E::NotCurrentRound(_) => 1021,
            E::RoundHasResults(_) => 1022,
            E::NothingToPair(_) => 1023,
            E::NoPairing { .. } => 1024,
            E::PlayerTwice { .. } => 1025,
            E::PlayerUnavailable { .. } => 1026,
            E::AlreadyPaired { .. } => 1027,
            E::NoSuchGame { .. } => 1028,
            E::GameHasResult { .. } => 1029,
            E::PlayerPaired { .. } => 1030,
            E::RecordUnreadable(_) => 1031,
            E::RecordRejected(_) => 1032,
            E::UnknownResult(_) => 1033,
            E::TooLarge => 1034,
            E::NoRecord { .. } => 1035,
            E::LogFull { .. } => 1038,
            E::Stale { .. } => 1002,
            E::Corrupt(_) => -32603,
        }
    }
}
