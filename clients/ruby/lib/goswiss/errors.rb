# frozen_string_literal: true

# Exceptions: one class per documented error code, so callers rescue what they handle. Every
# server error is a Goswiss::Fault (code, message, data); codes that belong together share a
# family class (TournamentError for 1001-1063, MatchmakerError for rswiss's 1-402, ...). The
# codes are those of the README's "Error codes" table, docs/*.md and each method's `errors`
# in rpc.discover (the tests check all three against ERRORS).

module Goswiss
  # Base of everything this gem raises on purpose.
  class Error < StandardError; end

  # No well-formed answer: connection refused or lost, HTTP error, unparsable reply.
  class TransportError < Error; end

  # The connection went away with the call in flight: it may or may not have been done.
  # Read the state back (e.g. `tournament_events`) before repeating a write.
  class ConnectionLost < TransportError; end

  # The server answered with an error: #code, #message (the server's text) and #data (nil
  # when the server sent none). The class raised is the one ERRORS registers for the code
  # (Goswiss.fault_for), or Fault itself for a code this version does not know.
  class Fault < Error
    # The code each subclass stands for (nil on Fault and the family classes).
    CODE = nil

    attr_reader :code, :data

    def initialize(code, message, data = nil)
      super(message)
      @code = code
      @data = data
    end

    def inspect
      "#<#{self.class.name} #{code}: #{message}#{data.nil? ? '' : " data=#{data.inspect}"}>"
    end
  end

  # -- families: `rescue Goswiss::TournamentError` catches every refusal of tournament.* --

  # JSON-RPC / XML-RPC protocol errors (-32700 ... -32600, -32020).
  class ProtocolFault < Fault; end

  # The daemon could not do the call (-32603 and -32006 ... -32013).
  class ServerFault < Fault; end

  # `matchmaker.*` (rswiss's interface): codes 1-402.
  class MatchmakerError < Fault; end

  # `pairing.*`: codes 610-613.
  class PairingError < Fault; end

  # `sgf.*`: codes 710-714.
  class SgfError < Fault; end

  # `score.*`: codes 810-830.
  class ScoreError < Fault; end

  # `aga.*`: codes 910-913.
  class AgaError < Fault; end

  # `tournament.*`: codes 1001-1063.
  class TournamentError < Fault; end

  # `ratings.*`: codes 1201-1204.
  class RatingsError < Fault; end

  # `simulate.*`: codes 1101-1103.
  class SimulationError < Fault; end

  # -- one class per documented code --

  # -32700: malformed XML or JSON.
  class ParseError < ProtocolFault
    CODE = -32700
  end

  # -32600: invalid request.
  class InvalidRequest < ProtocolFault
    CODE = -32600
  end

  # -32601: unknown method.
  class MethodNotFound < ProtocolFault
    CODE = -32601
  end

  # -32602: invalid parameters.
  class InvalidParams < ProtocolFault
    CODE = -32602
  end

  # -32603: internal error (a store failure says what is known).
  class InternalError < ServerFault
    CODE = -32603
  end

  # -32007: request body over max_body_bytes.
  class RequestTooBig < ServerFault
    CODE = -32007
  end

  # -32008: database unreachable: read back before retrying.
  class StorageUnavailable < ServerFault
    CODE = -32008
  end

  # -32009: changed by another daemon: try again.
  class ConcurrentChange < ServerFault
    CODE = -32009
  end

  # -32010: auth is on and the call lacks the right token.
  class Unauthorized < ServerFault
    CODE = -32010
  end

  # -32011: the caller's tournament quota is used up.
  class QuotaExceeded < ServerFault
    CODE = -32011
  end

  # -32006: too many subscriptions on this connection or from this address.
  class SubscriptionLimit < ServerFault
    CODE = -32006
  end

  # -32013: the reply would exceed max_reply_bytes.
  class ReplyTooBig < ServerFault
    CODE = -32013
  end

  # -32020: the method (tournament.subscribe/unsubscribe) needs a WebSocket.
  class NeedsWebSocket < ProtocolFault
    CODE = -32020
  end

  # 1037: with auth on, the round is not published yet (a draft's record or explanation).
  class NotPublished < TournamentError
    CODE = 1037
  end

  # 1038: the write would take the tournament's stored log past max_tournament_bytes.
  class LogFull < TournamentError
    CODE = 1038
  end

  # -32012: the call's heavy work ran past request_budget_ms.
  class BudgetExceeded < ServerFault
    CODE = -32012
  end

  # 1: method missing or wrong number of parameters.
  class WrongArity < MatchmakerError
    CODE = 1
  end

  # 2: bad value.
  class BadValue < MatchmakerError
    CODE = 2
  end

  # 101: repeated player ids.
  class RepeatedPlayers < MatchmakerError
    CODE = 101
  end

  # 201: still N matches to be returned: retry.
  class MatchesOutstanding < MatchmakerError
    CODE = 201
  end

  # 202: the tournament reached the end.
  class TournamentEnded < MatchmakerError
    CODE = 202
  end

  # 203: wait while the next round is generated.
  class RoundPending < MatchmakerError
    CODE = 203
  end

  # 204: no round without a repeat.
  class TooManyRearrangements < MatchmakerError
    CODE = 204
  end

  # 205: repetition as last resort not enough.
  class RepetitionNotEnough < MatchmakerError
    CODE = 205
  end

  # 303: this match has not been checked out.
  class MatchNotCheckedOut < MatchmakerError
    CODE = 303
  end

  # 401: the tournament has not ended yet.
  class NotEnded < MatchmakerError
    CODE = 401
  end

  # 402: a tie decided by luck.
  class DifficultTie < MatchmakerError
    CODE = 402
  end

  # 610: forbidden pairs leave a player without opponent.
  class NoPairingExists < PairingError
    CODE = 610
  end

  # 611: unknown model, preset, term, bye term or seeding.
  class UnknownModel < PairingError
    CODE = 611
  end

  # 612: the model's costs are too large to solve exactly.
  class CostsTooLarge < PairingError
    CODE = 612
  end

  # 613: more than 10,000 players in one call.
  class TooManyPlayers < PairingError
    CODE = 613
  end

  # 710: the SGF does not load.
  class SgfUnreadable < SgfError
    CODE = 710
  end

  # 711: the record loads but is invalid for the method.
  class SgfInvalid < SgfError
    CODE = 711
  end

  # 712: text does not decode or encode in the charset.
  class SgfCharset < SgfError
    CODE = 712
  end

  # 713: not a valid SGF tree.
  class SgfBadTree < SgfError
    CODE = 713
  end

  # 714: over a per-call cap (nodes, games).
  class SgfOverCap < SgfError
    CODE = 714
  end

  # 810: the SGF could not be loaded.
  class ScoreSgfUnreadable < ScoreError
    CODE = 810
  end

  # 811: the record cannot be replayed.
  class ScoreNotReplayable < ScoreError
    CODE = 811
  end

  # 812: illegal move in the main line.
  class IllegalMove < ScoreError
    CODE = 812
  end

  # 813: setup stones leave chains without liberties.
  class BadSetup < ScoreError
    CODE = 813
  end

  # 821: no stone at the point.
  class NoStone < ScoreError
    CODE = 821
  end

  # 822: a point off the board.
  class OffBoard < ScoreError
    CODE = 822
  end

  # 830: SGF larger than 1 MiB.
  class SgfTooLarge < ScoreError
    CODE = 830
  end

  # 910: the tournament files have errors.
  class AgaFilesHaveErrors < AgaError
    CODE = 910
  end

  # 911: refused by the AGA loader's checks.
  class AgaReportRefused < AgaError
    CODE = 911
  end

  # 912: a player is in no scoring band.
  class AgaNoBand < AgaError
    CODE = 912
  end

  # 913: over the per-call line cap.
  class AgaOverCap < AgaError
    CODE = 913
  end

  # 1001: no such tournament.
  class NoSuchTournament < TournamentError
    CODE = 1001
  end

  # 1002: stale if_revision.
  class StaleRevision < TournamentError
    CODE = 1002
  end

  # 1003: the tournament is archived.
  class Archived < TournamentError
    CODE = 1003
  end

  # 1010: invalid value across values or against the state.
  class InvalidValue < TournamentError
    CODE = 1010
  end

  # 1011: no such player.
  class NoSuchPlayer < TournamentError
    CODE = 1011
  end

  # 1012: duplicate name + first name.
  class DuplicatePlayer < TournamentError
    CODE = 1012
  end

  # 1013: too many players (10,000).
  class TooManyTournamentPlayers < TournamentError
    CODE = 1013
  end

  # 1020: no such round.
  class NoSuchRound < TournamentError
    CODE = 1020
  end

  # 1021: not the round this applies to.
  class WrongRound < TournamentError
    CODE = 1021
  end

  # 1022: the round has results.
  class RoundHasResults < TournamentError
    CODE = 1022
  end

  # 1023: nobody to pair.
  class NobodyToPair < TournamentError
    CODE = 1023
  end

  # 1024: no pairing exists (forbidden pairs).
  class NoPairing < TournamentError
    CODE = 1024
  end

  # 1025: player twice in a round.
  class PlayerTwiceInRound < TournamentError
    CODE = 1025
  end

  # 1026: absent, withdrawn or preliminary player.
  class PlayerCannotPlay < TournamentError
    CODE = 1026
  end

  # 1027: player already paired.
  class PlayerAlreadyPaired < TournamentError
    CODE = 1027
  end

  # 1028: no game at that table.
  class NoSuchGame < TournamentError
    CODE = 1028
  end

  # 1029: the game has a result.
  class GameHasResult < TournamentError
    CODE = 1029
  end

  # 1030: conflicts with a round the player is in.
  class ConflictsWithRound < TournamentError
    CODE = 1030
  end

  # 1031: the record is not SGF.
  class NotSgf < TournamentError
    CODE = 1031
  end

  # 1032: record refused in strict mode.
  class RecordRefused < TournamentError
    CODE = 1032
  end

  # 1033: unknown result code.
  class UnknownResult < TournamentError
    CODE = 1033
  end

  # 1034: pairing costs too large.
  class PairingCostsTooLarge < TournamentError
    CODE = 1034
  end

  # 1035: no record for the game.
  class NoRecord < TournamentError
    CODE = 1035
  end

  # 1036: round.pair's options.model is unusable.
  class UnknownPairingModel < TournamentError
    CODE = 1036
  end

  # 1040: after_round out of range.
  class AfterRoundOutOfRange < TournamentError
    CODE = 1040
  end

  # 1041: unknown placement criterion, or more than 12.
  class UnknownCriterion < TournamentError
    CODE = 1041
  end

  # 1042: unknown export format.
  class UnknownExportFormat < TournamentError
    CODE = 1042
  end

  # 1060: unknown import/export format.
  class UnknownFormat < TournamentError
    CODE = 1060
  end

  # 1061: the file cannot be read.
  class FileUnreadable < TournamentError
    CODE = 1061
  end

  # 1062: the file cannot be a goswiss tournament.
  class NotATournament < TournamentError
    CODE = 1062
  end

  # 1063: AGA report refused.
  class AgaReportRefusedOnImport < TournamentError
    CODE = 1063
  end

  # 1101: no such simulation.
  class NoSuchSimulation < SimulationError
    CODE = 1101
  end

  # 1102: too many simulations running (or simulations off).
  class TooManySimulations < SimulationError
    CODE = 1102
  end

  # 1103: over a simulation cap.
  class SimulationOverCap < SimulationError
    CODE = 1103
  end

  # 1201: unknown list kind (egf, ffg, aga; all for a search).
  class UnknownListKind < RatingsError
    CODE = 1201
  end

  # 1202: the file does not read as a list of that kind.
  class ListUnreadable < RatingsError
    CODE = 1202
  end

  # 1203: over a cap (the list's size or rows, a search's limit or prefix).
  class ListOverCap < RatingsError
    CODE = 1203
  end

  # 1204: no list of that kind has been imported.
  class NoSuchList < RatingsError
    CODE = 1204
  end

  # Code => class, for every class above.
  ERRORS = constants.map { |c| const_get(c) }
                    .select { |c| c.is_a?(Class) && c < Fault && !c::CODE.nil? }
                    .to_h { |c| [c::CODE, c] }
                    .freeze

  # The exception for an error the server sent: its code's class, else plain Fault.
  def self.fault_for(code, message, data = nil)
    ERRORS.fetch(code, Fault).new(code, message, data)
  end
end
