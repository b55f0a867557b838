// Errors: every server error is a GoswissError (code, message, data when the server sent
// one), of the class of its code's family (TournamentError for 1001-1063, ...); ErrorCode
// names every documented code, so `e instanceof TournamentError && e.code === ErrorCode.WrongRound`.
// No answer at all is a TransportError; a call whose connection went away is ConnectionLost.

/** The documented error codes (README "Error codes" and each method's `errors` in rpc.discover). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  SubscriptionLimit: -32006,
  RequestTooBig: -32007,
  StorageUnavailable: -32008,
  ConcurrentChange: -32009,
  Unauthorized: -32010,
  QuotaExceeded: -32011,
  BudgetExceeded: -32012,
  ReplyTooBig: -32013,
  NeedsWebSocket: -32020,
  WrongArity: 1,
  BadValue: 2,
  RepeatedPlayers: 101,
  MatchesOutstanding: 201,
  TournamentEnded: 202,
  RoundPending: 203,
  TooManyRearrangements: 204,
  RepetitionNotEnough: 205,
  MatchNotCheckedOut: 303,
  NotEnded: 401,
  DifficultTie: 402,
  NoPairingExists: 610,
  UnknownModel: 611,
  CostsTooLarge: 612,
  TooManyPlayers: 613,
  SgfUnreadable: 710,
  SgfInvalid: 711,
  SgfCharset: 712,
  SgfBadTree: 713,
  SgfOverLimit: 714,
  ScoreSgfUnreadable: 810,
  ScoreNotReplayable: 811,
  IllegalMove: 812,
  BadSetup: 813,
  NoStone: 821,
  OffBoard: 822,
  SgfTooLarge: 830,
  AgaFilesHaveErrors: 910,
  AgaReportRefused: 911,
  AgaNoBand: 912,
  AgaTooManyLines: 913,
  NoSuchTournament: 1001,
  StaleRevision: 1002,
  Archived: 1003,
  InvalidValue: 1010,
  NoSuchPlayer: 1011,
  DuplicatePlayer: 1012,
  TooManyTournamentPlayers: 1013,
  NoSuchRound: 1020,
  WrongRound: 1021,
  RoundHasResults: 1022,
  NobodyToPair: 1023,
  NoPairing: 1024,
  PlayerTwiceInRound: 1025,
  PlayerCannotPlay: 1026,
  PlayerAlreadyPaired: 1027,
  NoSuchGame: 1028,
  GameHasResult: 1029,
  ConflictsWithRound: 1030,
  NotSgf: 1031,
  RecordRefused: 1032,
  UnknownResult: 1033,
  PairingCostsTooLarge: 1034,
  NoRecord: 1035,
  UnknownPairingModel: 1036,
  NotPublished: 1037,
  LogFull: 1038,
  AfterRoundOutOfRange: 1040,
  UnknownCriterion: 1041,
  UnknownExportFormat: 1042,
  UnknownFormat: 1060,
  FileUnreadable: 1061,
  NotATournament: 1062,
  AgaReportRefusedOnImport: 1063,
  NoSuchSimulation: 1101,
  TooManySimulations: 1102,
  SimulationOverCap: 1103,
  UnknownListKind: 1201,
  ListUnreadable: 1202,
  ListOverCap: 1203,
  NoSuchList: 1204,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

const NAMES: ReadonlyMap<number, ErrorCodeName> = new Map(
  (Object.keys(ErrorCode) as ErrorCodeName[]).map((k) => [ErrorCode[k], k]),
);

/** Base of everything this package throws on purpose. */
export class ClientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** No well-formed answer: connection refused or lost, HTTP error, unparsable reply, timeout. */
export class TransportError extends ClientError {}

/** The connection went away with the call in flight: it may or may not have been done. */
export class ConnectionLost extends TransportError {}

/** The server answered with an error. */
export class GoswissError extends ClientError {
  readonly code: number;
  readonly data: unknown;
  /** The code's name in ErrorCode, or undefined for a code this version does not know. */
  readonly codeName: ErrorCodeName | undefined;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data === undefined ? null : data;
    this.codeName = NAMES.get(code);
  }
}

/** JSON-RPC protocol errors (-32700 ... -32600, -32020). */
export class ProtocolError extends GoswissError {}
/** The daemon could not do the call (-32603, -32006 ... -32013). */
export class ServerError extends GoswissError {}
/** `matchmaker.*` (rswiss's interface): 1 ... 402. */
export class MatchmakerError extends GoswissError {}
/** `pairing.*`: 610 ... 613. */
export class PairingError extends GoswissError {}
/** `sgf.*`: 710 ... 714. */
export class SgfError extends GoswissError {}
/** `score.*`: 810 ... 830. */
export class ScoreError extends GoswissError {}
/** `aga.*`: 910 ... 913. */
export class AgaError extends GoswissError {}
/** `tournament.*`: 1001 ... 1063. */
export class TournamentError extends GoswissError {}
/** `simulate.*`: 1101 ... 1103. */
export class SimulationError extends GoswissError {}
/** `ratings.*`: 1201 ... 1204. */
export class RatingsError extends GoswissError {}

/** The error for what the server sent: its family's class (GoswissError for others). */
export function errorFor(code: number, message: string, data?: unknown): GoswissError {
  let cls: typeof GoswissError = GoswissError;
  if ((code <= -32600 && code >= -32700) || code === -32020) cls = ProtocolError;
  else if (code === -32603 || (code <= -32006 && code >= -32013)) cls = ServerError;
  else if (code >= 1 && code <= 402) cls = MatchmakerError;
  else if (code >= 610 && code <= 613) cls = PairingError;
  else if (code >= 710 && code <= 714) cls = SgfError;
  else if (code >= 810 && code <= 830) cls = ScoreError;
  else if (code >= 910 && code <= 913) cls = AgaError;
  else if (code >= 1001 && code <= 1063) cls = TournamentError;
  else if (code >= 1101 && code <= 1103) cls = SimulationError;
  else if (code >= 1201 && code <= 1204) cls = RatingsError;
  return new cls(code, message, data);
}
