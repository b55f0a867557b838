"""Exceptions: one class per documented error code, so callers can catch what they handle.

Every server error is a `Fault` (code, message, and `data` when the server sent one); the
class raised is the one registered for its code in `ERRORS` (`fault_for`), or `Fault` itself
for a code this version does not know. Codes that belong together share a base class
(`TournamentError` for 1001-1063, `MatchmakerError` for rswiss's 1-402, ...), so
`except TournamentError` catches every refusal of `tournament.*`.

The codes are those of the README's "Error codes" table and docs/tournament.md, docs/rswiss.md,
docs/pairing.md, docs/sgf.md, docs/score.md and docs/aga.md.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "AfterRoundOutOfRange",
    "AgaError",
    "AgaFilesHaveErrors",
    "AgaNoBand",
    "AgaReportRefused",
    "AgaReportRefusedOnImport",
    "AgaTooManyLines",
    "Archived",
    "BadSetup",
    "BadValue",
    "BudgetExceeded",
    "ConcurrentChange",
    "ConflictsWithRound",
    "ConnectionLost",
    "CostsTooLarge",
    "DifficultTie",
    "DuplicatePlayer",
    "ERRORS",
    "Fault",
    "FileUnreadable",
    "GameHasResult",
    "GoswissError",
    "IllegalMove",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidValue",
    "ListOverCap",
    "ListUnreadable",
    "LogFull",
    "MatchNotCheckedOut",
    "MatchesOutstanding",
    "MatchmakerError",
    "MethodNotFound",
    "NeedsWebSocket",
    "NoPairing",
    "NoPairingExists",
    "NoRecord",
    "NoStone",
    "NoSuchGame",
    "NoSuchList",
    "NoSuchPlayer",
    "NoSuchRound",
    "NoSuchSimulation",
    "NoSuchTournament",
    "NobodyToPair",
    "NotATournament",
    "NotEnded",
    "NotPublished",
    "NotSgf",
    "OffBoard",
    "PairingCostsTooLarge",
    "PairingError",
    "ParseError",
    "PlayerAlreadyPaired",
    "PlayerCannotPlay",
    "PlayerTwiceInRound",
    "ProtocolFault",
    "QuotaExceeded",
    "RatingsError",
    "RecordRefused",
    "RepeatedPlayers",
    "RepetitionNotEnough",
    "ReplyTooBig",
    "RequestTooBig",
    "RoundHasResults",
    "RoundPending",
    "ScoreError",
    "ScoreNotReplayable",
    "ScoreSgfUnreadable",
    "ServerFault",
    "SgfBadTree",
    "SgfCharset",
    "SgfError",
    "SgfInvalid",
    "SgfOverLimit",
    "SgfTooLarge",
    "SgfUnreadable",
    "SimulationError",
    "SimulationOverCap",
    "StaleRevision",
    "StorageUnavailable",
    "SubscriptionLimit",
    "TooManyPlayers",
    "TooManyRearrangements",
    "TooManySimulations",
    "TooManyTournamentPlayers",
    "TournamentEnded",
    "TournamentError",
    "TransportError",
    "Unauthorized",
    "UnknownCriterion",
    "UnknownExportFormat",
    "UnknownFormat",
    "UnknownListKind",
    "UnknownModel",
    "UnknownPairingModel",
    "UnknownResult",
    "WrongArity",
    "WrongRound",
    "fault_for",
]


class GoswissError(Exception):
    """Base of everything this package raises on purpose."""


class TransportError(GoswissError):
    """No well-formed answer: connection refused or lost, HTTP error, unparsable reply."""


class ConnectionLost(TransportError):
    """The connection went away with the call in flight: it may or may not have been done.

    Read the state back (e.g. `tournament.events`) before repeating a write.
    """


class Fault(GoswissError):
    """The server answered with an error: `code`, `message` and `data` (None if not sent)."""

    code: int = 0

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"fault {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


# -- families ------------------------------------------------------------------------------


class ProtocolFault(Fault):
    """JSON-RPC / XML-RPC protocol errors (-32700 ... -32600)."""


class ServerFault(Fault):
    """The daemon could not do the call (-32603 and -32007 ... -32012)."""


class MatchmakerError(Fault):
    """`matchmaker.*` (rswiss's interface): codes 1-402."""


class PairingError(Fault):
    """`pairing.*`: codes 610-613."""


class SgfError(Fault):
    """`sgf.*`: codes 710-714."""


class ScoreError(Fault):
    """`score.*`: codes 810-830."""


class AgaError(Fault):
    """`aga.*`: codes 910-913."""


class TournamentError(Fault):
    """`tournament.*`: codes 1001-1063."""


class SimulationError(Fault):
    """`simulate.*`: codes 1101-1103."""


class RatingsError(Fault):
    """`ratings.*`: codes 1201-1204."""


# -- one class per code ------------------------------------------------------------------


class ParseError(ProtocolFault):
    """-32700: malformed XML or JSON."""

    code = -32700


class InvalidRequest(ProtocolFault):
    """-32600: invalid request."""

    code = -32600


class MethodNotFound(ProtocolFault):
    """-32601: unknown method."""

    code = -32601


class InvalidParams(ProtocolFault):
    """-32602: invalid parameters."""

    code = -32602


class InternalError(ServerFault):
    """-32603: internal error (a store failure says what is known)."""

    code = -32603


class RequestTooBig(ServerFault):
    """-32007: request body over max_body_bytes."""

    code = -32007


class StorageUnavailable(ServerFault):
    """-32008: database unreachable: read back before retrying."""

    code = -32008


class ConcurrentChange(ServerFault):
    """-32009: changed by another daemon: try again."""

    code = -32009


class Unauthorized(ServerFault):
    """-32010: auth is on and the call lacks the right token."""

    code = -32010


class QuotaExceeded(ServerFault):
    """-32011: the caller's tournament quota is used up."""

    code = -32011


class SubscriptionLimit(ServerFault):
    """-32006: too many subscriptions on this connection or from this address."""

    code = -32006


class ReplyTooBig(ServerFault):
    """-32013: the reply would exceed max_reply_bytes."""

    code = -32013


class NeedsWebSocket(ProtocolFault):
    """-32020: the method (tournament.subscribe/unsubscribe) needs a WebSocket."""

    code = -32020


class NotPublished(TournamentError):
    """1037: with auth on, the round is not published yet (a draft's record or explanation)."""

    code = 1037


class LogFull(TournamentError):
    """1038: the write would take the tournament's stored log past max_tournament_bytes."""

    code = 1038


class BudgetExceeded(ServerFault):
    """-32012: the call's heavy work ran past request_budget_ms."""

    code = -32012


class WrongArity(MatchmakerError):
    """1: method missing or wrong number of parameters."""

    code = 1


class BadValue(MatchmakerError):
    """2: bad value."""

    code = 2


class RepeatedPlayers(MatchmakerError):
    """101: repeated player ids."""

    code = 101


class MatchesOutstanding(MatchmakerError):
    """201: still N matches to be returned: retry."""

    code = 201


class TournamentEnded(MatchmakerError):
    """202: the tournament reached the end."""

    code = 202


class RoundPending(MatchmakerError):
    """203: wait while the next round is generated."""

    code = 203


class TooManyRearrangements(MatchmakerError):
    """204: no round without a repeat."""

    code = 204


class RepetitionNotEnough(MatchmakerError):
    """205: repetition as last resort not enough."""

    code = 205


class MatchNotCheckedOut(MatchmakerError):
    """303: this match has not been checked out."""

    code = 303


class NotEnded(MatchmakerError):
    """401: the tournament has not ended yet."""

    code = 401


class DifficultTie(MatchmakerError):
    """402: a tie decided by luck."""

    code = 402


class NoPairingExists(PairingError):
    """610: forbidden pairs leave a player without opponent."""

    code = 610


class UnknownModel(PairingError):
    """611: unknown model, preset, term, bye term or seeding."""

    code = 611


class CostsTooLarge(PairingError):
    """612: the model's costs are too large to solve exactly."""

    code = 612


class TooManyPlayers(PairingError):
    """613: more than 10,000 players in one call."""

    code = 613


class SgfUnreadable(SgfError):
    """710: the SGF does not load."""

    code = 710


class SgfInvalid(SgfError):
    """711: the record loads but is invalid for the method."""

    code = 711


class SgfCharset(SgfError):
    """712: text does not decode or encode in the charset."""

    code = 712


class SgfBadTree(SgfError):
    """713: not a valid SGF tree."""

    code = 713


class SgfOverLimit(SgfError):
    """714: a record over a limit (nodes per call)."""

    code = 714


class ScoreSgfUnreadable(ScoreError):
    """810: the SGF could not be loaded."""

    code = 810


class ScoreNotReplayable(ScoreError):
    """811: the record cannot be replayed."""

    code = 811


class IllegalMove(ScoreError):
    """812: illegal move in the main line."""

    code = 812


class BadSetup(ScoreError):
    """813: setup stones leave chains without liberties."""

    code = 813


class NoStone(ScoreError):
    """821: no stone at the point."""

    code = 821


class OffBoard(ScoreError):
    """822: a point off the board."""

    code = 822


class SgfTooLarge(ScoreError):
    """830: SGF larger than 1 MiB."""

    code = 830


class AgaFilesHaveErrors(AgaError):
    """910: the tournament files have errors."""

    code = 910


class AgaReportRefused(AgaError):
    """911: refused by the AGA loader's checks."""

    code = 911


class AgaNoBand(AgaError):
    """912: a player is in no scoring band."""

    code = 912


class AgaTooManyLines(AgaError):
    """913: an AGA file over its line limit."""

    code = 913


class NoSuchTournament(TournamentError):
    """1001: no such tournament."""

    code = 1001


class StaleRevision(TournamentError):
    """1002: stale if_revision."""

    code = 1002


class Archived(TournamentError):
    """1003: the tournament is archived."""

    code = 1003


class InvalidValue(TournamentError):
    """1010: invalid value across values or against the state."""

    code = 1010


class NoSuchPlayer(TournamentError):
    """1011: no such player."""

    code = 1011


class DuplicatePlayer(TournamentError):
    """1012: duplicate name + first name."""

    code = 1012


class TooManyTournamentPlayers(TournamentError):
    """1013: too many players (10,000)."""

    code = 1013


class NoSuchRound(TournamentError):
    """1020: no such round."""

    code = 1020


class WrongRound(TournamentError):
    """1021: not the round this applies to."""

    code = 1021


class RoundHasResults(TournamentError):
    """1022: the round has results."""

    code = 1022


class NobodyToPair(TournamentError):
    """1023: nobody to pair."""

    code = 1023


class NoPairing(TournamentError):
    """1024: no pairing exists (forbidden pairs)."""

    code = 1024


class PlayerTwiceInRound(TournamentError):
    """1025: player twice in a round."""

    code = 1025


class PlayerCannotPlay(TournamentError):
    """1026: absent, withdrawn or preliminary player."""

    code = 1026


class PlayerAlreadyPaired(TournamentError):
    """1027: player already paired."""

    code = 1027


class NoSuchGame(TournamentError):
    """1028: no game at that table."""

    code = 1028


class GameHasResult(TournamentError):
    """1029: the game has a result."""

    code = 1029


class ConflictsWithRound(TournamentError):
    """1030: conflicts with a round the player is in."""

    code = 1030


class NotSgf(TournamentError):
    """1031: the record is not SGF."""

    code = 1031


class RecordRefused(TournamentError):
    """1032: record refused in strict mode."""

    code = 1032


class UnknownResult(TournamentError):
    """1033: unknown result code."""

    code = 1033


class PairingCostsTooLarge(TournamentError):
    """1034: pairing costs too large."""

    code = 1034


class NoRecord(TournamentError):
    """1035: no record for the game."""

    code = 1035


class UnknownPairingModel(TournamentError):
    """1036: round.pair's options.model is unusable."""

    code = 1036


class AfterRoundOutOfRange(TournamentError):
    """1040: after_round out of range."""

    code = 1040


class UnknownCriterion(TournamentError):
    """1041: unknown placement criterion, or more than 12."""

    code = 1041


class UnknownExportFormat(TournamentError):
    """1042: unknown export format."""

    code = 1042


class UnknownFormat(TournamentError):
    """1060: unknown import/export format."""

    code = 1060


class FileUnreadable(TournamentError):
    """1061: the file cannot be read."""

    code = 1061


class NotATournament(TournamentError):
    """1062: the file cannot be a goswiss tournament."""

    code = 1062


class AgaReportRefusedOnImport(TournamentError):
    """1063: AGA report refused."""

    code = 1063


class NoSuchSimulation(SimulationError):
    """1101: no such simulation (unknown id, or finished more than an hour ago)."""

    code = 1101


class TooManySimulations(SimulationError):
    """1102: too many simulations running (or simulations off)."""

    code = 1102


class SimulationOverCap(SimulationError):
    """1103: a simulation spec over a cap."""

    code = 1103


class UnknownListKind(RatingsError):
    """1201: unknown rating list kind."""

    code = 1201


class ListUnreadable(RatingsError):
    """1202: the file does not read as a list of that kind."""

    code = 1202


class ListOverCap(RatingsError):
    """1203: a rating list or search over a cap."""

    code = 1203


class NoSuchList(RatingsError):
    """1204: no such rating list imported yet."""

    code = 1204


ERRORS: Final[dict[int, type[Fault]]] = {
    cls.code: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        RequestTooBig,
        StorageUnavailable,
        ConcurrentChange,
        Unauthorized,
        QuotaExceeded,
        SubscriptionLimit,
        ReplyTooBig,
        NeedsWebSocket,
        NotPublished,
        LogFull,
        BudgetExceeded,
        WrongArity,
        BadValue,
        RepeatedPlayers,
        MatchesOutstanding,
        TournamentEnded,
        RoundPending,
        TooManyRearrangements,
        RepetitionNotEnough,
        MatchNotCheckedOut,
        NotEnded,
        DifficultTie,
        NoPairingExists,
        UnknownModel,
        CostsTooLarge,
        TooManyPlayers,
        SgfUnreadable,
        SgfInvalid,
        SgfCharset,
        SgfBadTree,
        SgfOverLimit,
        ScoreSgfUnreadable,
        ScoreNotReplayable,
        IllegalMove,
        BadSetup,
        NoStone,
        OffBoard,
        SgfTooLarge,
        AgaFilesHaveErrors,
        AgaReportRefused,
        AgaNoBand,
        AgaTooManyLines,
        NoSuchTournament,
        StaleRevision,
        Archived,
        InvalidValue,
        NoSuchPlayer,
        DuplicatePlayer,
        TooManyTournamentPlayers,
        NoSuchRound,
        WrongRound,
        RoundHasResults,
        NobodyToPair,
        NoPairing,
        PlayerTwiceInRound,
        PlayerCannotPlay,
        PlayerAlreadyPaired,
        NoSuchGame,
        GameHasResult,
        ConflictsWithRound,
        NotSgf,
        RecordRefused,
        UnknownResult,
        PairingCostsTooLarge,
        NoRecord,
        UnknownPairingModel,
        AfterRoundOutOfRange,
        UnknownCriterion,
        UnknownExportFormat,
        UnknownFormat,
        FileUnreadable,
        NotATournament,
        AgaReportRefusedOnImport,
        NoSuchSimulation,
        TooManySimulations,
        SimulationOverCap,
        UnknownListKind,
        ListUnreadable,
        ListOverCap,
        NoSuchList,
    )
}


def fault_for(code: int, message: str, data: Any = None) -> Fault:
    """The exception for an error the server sent: its code's class, else plain `Fault`."""
    return ERRORS.get(code, Fault)(code, message, data)
