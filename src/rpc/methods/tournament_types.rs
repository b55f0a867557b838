//! The shapes of `tournament.*`'s answers, as `rpc.discover` publishes them ([`Doc`]): the
//! handlers build their answers as values (null members left out for XML-RPC), and the
//! document's tests check every answer of a realistic session against these schemas.
//!
//! Also the result codes a result is written with, and every alias `tournament.result.set`
//! accepts for them ([`ResultCodeInput`]; a unit test parses each alias).
//!
//! [`Doc`]: crate::rpc::openrpc::Doc

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

use crate::store::TournamentId;
use crate::tournament::model::{Player, PlayerId, RoundNumber, Settings, System};

/// A result as goswiss writes it: `?` (not known yet), `W+`, `B+`, `jigo`, `both_win`,
/// `both_lose`; a trailing `!` marks a result by default (forfeit, not played).
pub struct ResultCode;

/// The codes [`ResultCode`] takes.
pub const RESULT_CODES: &[&str] = &[
    "?",
    "W+",
    "B+",
    "jigo",
    "both_win",
    "both_lose",
    "W+!",
    "B+!",
    "jigo!",
    "both_win!",
    "both_lose!",
];

/// Other spellings `tournament.result.set` reads as a code (OpenGotha's, pairgoth's, SGF's),
/// with the code each means. Case, `-` and ` ` (read as `_`) do not matter; a suffix `!`,
/// `_bydef`, `_forfeit`, `(forfeit)` or `_by_default` marks a forfeit; SGF results with a
/// reason or margin (`W+R`, `B+3.5`; `W+F` a forfeit) read as `W+` / `B+`.
pub const RESULT_ALIASES: &[(&str, &str)] = &[
    ("unknown", "?"),
    ("none", "?"),
    ("w", "W+"),
    ("white", "W+"),
    ("white_wins", "W+"),
    ("whitewins", "W+"),
    ("1-0", "W+"),
    ("b", "B+"),
    ("black", "B+"),
    ("black_wins", "B+"),
    ("blackwins", "B+"),
    ("0-1", "B+"),
    ("=", "jigo"),
    ("draw", "jigo"),
    ("equal", "jigo"),
    ("½-½", "jigo"),
    ("0.5-0.5", "jigo"),
    ("bothwin", "both_win"),
    ("#", "both_win"),
    ("1-1", "both_win"),
    ("bothlose", "both_lose"),
    ("bothloose", "both_lose"),
    ("0", "both_lose"),
    ("0-0", "both_lose"),
    ("W+R", "W+"),
    ("B+3.5", "B+"),
    ("W+F", "W+!"),
    ("black_wins_bydef", "B+!"),
];

impl JsonSchema for ResultCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ResultCode".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A result as goswiss writes it: ? (not known yet), W+, B+, jigo, \
                both_win, both_lose; a trailing ! marks a result by default (forfeit).",
            "type": "string",
            "enum": RESULT_CODES,
        })
    }
}

/// A result as `tournament.result.set` reads it: a [`ResultCode`] or one of its aliases.
pub struct ResultCodeInput;

impl JsonSchema for ResultCodeInput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ResultCodeInput".into()
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let aliases: BTreeMap<&str, &str> = RESULT_ALIASES.iter().copied().collect();
        json_schema!({
            "description": "A result code (ResultCode) or an alias of one (x-aliases: alias → \
                code). Case, '-' and ' ' do not matter; a suffix !, _bydef, _forfeit, (forfeit) \
                or _by_default marks a forfeit; SGF results with a reason or margin (W+R, \
                B+3.5; W+F a forfeit) read as W+ / B+.",
            "anyOf": [
                g.subschema_for::<ResultCode>(),
                {"type": "string", "enum": aliases.keys().collect::<Vec<_>>()},
                {"type": "string", "pattern": "^[ \\t]*[WwBb]\\+"},
                {"type": "string"},
            ],
            "x-aliases": aliases,
        })
    }
}

/// What a tournament's creation answers.
#[derive(JsonSchema)]
pub struct Created {
    pub id: TournamentId,
    pub revision: u64,
    /// The director token (with auth on, writes need it): only in this answer.
    pub director_token: String,
}

/// A new director token.
#[derive(JsonSchema)]
pub struct TokenRotated {
    pub revision: u64,
    pub director_token: String,
}

/// The revision a write left the tournament at.
#[derive(JsonSchema)]
pub struct Revision {
    pub revision: u64,
}

/// One tournament in `tournament.list`, and the head of `tournament.get`.
#[derive(JsonSchema)]
pub struct Summary {
    pub id: TournamentId,
    pub name: String,
    pub short_name: String,
    pub system: System,
    pub rounds: RoundNumber,
    pub paired_rounds: RoundNumber,
    /// How many players are registered.
    pub players: u64,
    pub archived: bool,
    pub revision: u64,
}

/// A registered player, with its rank written out.
#[derive(JsonSchema)]
pub struct PlayerOut {
    #[serde(flatten)]
    pub player: Player,
    /// The rank as people write it (`3d`, `12k`).
    pub rank_text: String,
}

/// A game of a round.
#[derive(JsonSchema)]
pub struct GameOut {
    pub table: u32,
    pub white: PlayerId,
    pub black: PlayerId,
    pub handicap: u32,
    /// Komi in half points.
    pub komi2: i32,
    pub result: ResultCode,
    pub outcome: crate::tournament::model::Outcome,
    /// A result by default (not played).
    pub forfeit: bool,
    /// Whether the colours are known (OpenGotha's knownColor).
    pub known_colour: bool,
    /// Whether a game record (SGF) is stored (`tournament.game.sgf`).
    pub has_record: bool,
}

/// A round's pairing as a reader sees it.
#[derive(JsonSchema)]
pub struct RoundOut {
    pub round: RoundNumber,
    pub paired: bool,
    pub published: bool,
    /// Paired but not published, and the caller does not direct the tournament (auth on):
    /// its games and byes are left out.
    pub hidden: Option<bool>,
    pub games: Vec<GameOut>,
    pub byes: Vec<PlayerId>,
    /// `tournament.round.get`: the tournament's revision.
    pub revision: Option<u64>,
}

/// `tournament.round.warnings`' answer (desk-edit): the round's games with warnings, and the
/// rules' thresholds for the screen to state.
#[derive(JsonSchema)]
pub struct RoundWarnings {
    pub round: RoundNumber,
    pub paired: bool,
    pub published: bool,
    /// A handicap above this many stones is warned of.
    pub big_handicap_threshold: u32,
    /// A player's whites − blacks (even games) beyond ± this is warned of.
    pub colour_tolerance: i32,
    /// Games with at least one warning, in table order.
    pub games: Vec<crate::tournament::warnings::GameWarnings>,
    /// The tournament's revision.
    pub revision: u64,
}

/// The whole tournament: `tournament.list`'s summary (but `players` is the list, and
/// `player_count` their number), settings, players, rounds.
#[derive(JsonSchema)]
#[schemars(rename = "TournamentOut")]
pub struct Whole {
    pub id: TournamentId,
    pub name: String,
    pub short_name: String,
    pub system: System,
    pub rounds: RoundNumber,
    pub paired_rounds: RoundNumber,
    pub archived: bool,
    pub revision: u64,
    pub settings: Settings,
    /// Every player, in id order.
    pub players: Vec<PlayerOut>,
    pub player_count: u64,
    /// Every paired round.
    pub rounds_detail: Vec<RoundOut>,
}

/// A page of the event log.
#[derive(JsonSchema)]
pub struct EventsPage {
    /// The tournament's revision.
    pub revision: u64,
    pub events: Vec<EventOut>,
    /// Whether there are events after this page.
    pub more: bool,
    /// The `since_revision` of the next page.
    pub next_since: u64,
}

/// One event of the log.
#[derive(JsonSchema)]
pub struct EventOut {
    /// The revision the event made.
    pub revision: u64,
    /// Its kind (`created`, `player_registered`, `round_paired`, `result_set`, …), or
    /// `withheld`: an unpublished round's event the caller may not see (auth on).
    pub kind: String,
    pub round: Option<RoundNumber>,
    /// The event as stored (its members depend on its kind); absent when withheld.
    pub event: Option<serde_json::Map<String, Value>>,
}

/// `tournament.delete`'s answer.
#[derive(JsonSchema)]
pub struct Deleted {
    pub id: TournamentId,
    pub deleted: bool,
}

/// `tournament.archive`'s answer.
#[derive(JsonSchema)]
pub struct Archived {
    pub revision: u64,
    pub archived: bool,
}

/// `tournament.settings.set`'s answer.
#[derive(JsonSchema)]
pub struct SettingsSet {
    pub revision: u64,
    /// The settings now.
    pub settings: Settings,
}

/// `tournament.player.add`'s answer.
#[derive(JsonSchema)]
pub struct PlayerAdded {
    pub revision: u64,
    pub player_id: PlayerId,
}

/// `tournament.player.update`'s answer.
#[derive(JsonSchema)]
pub struct PlayerUpdated {
    pub revision: u64,
    pub player: PlayerOut,
}

/// `tournament.player.withdraw`'s answer.
#[derive(JsonSchema)]
pub struct Withdrawn {
    pub revision: u64,
    /// False after a reinstatement.
    pub withdrawn: bool,
    /// The last round the player plays.
    pub after_round: Option<RoundNumber>,
}

/// `tournament.player.remove`'s answer.
#[derive(JsonSchema)]
pub struct Removed {
    pub revision: u64,
    /// The player removed.
    pub removed: PlayerId,
}

/// A number that is an integer when it is whole (costs in the model's units).
#[derive(JsonSchema)]
#[schemars(transparent)]
pub struct Amount(pub f64);

/// A game of a new pairing.
#[derive(JsonSchema)]
pub struct PairedGame {
    pub table: u32,
    pub white: PlayerId,
    pub black: PlayerId,
    pub handicap: u32,
    /// Games the two played before this round.
    pub games_before: u32,
    /// OpenGotha's weight of the pair (larger = better); absent under a weighted-term model.
    pub weight: Option<i64>,
    /// The pair's cost under a weighted-term model (smaller = better).
    pub cost: Option<Amount>,
}

/// `tournament.round.pair`'s answer.
#[derive(JsonSchema)]
pub struct Paired {
    pub revision: u64,
    pub round: RoundNumber,
    /// `opengotha`, or the weighted-term model's name.
    pub model: String,
    pub games: Vec<PairedGame>,
    pub byes: Vec<PlayerId>,
    /// Pairs that already met.
    pub repeats: u32,
    /// Σ OpenGotha weight over the games (OpenGotha's pairing).
    pub total_weight: Option<Amount>,
    /// The minimised total cost (a weighted-term model).
    pub objective: Option<Amount>,
}

/// `tournament.round.unpair`'s answer.
#[derive(JsonSchema)]
pub struct Unpaired {
    pub revision: u64,
    pub round: RoundNumber,
}

/// `tournament.round.set_games`'s and `tournament.round.swap`'s answer.
#[derive(JsonSchema)]
pub struct RoundChanged {
    pub revision: u64,
    /// The round now.
    pub round: RoundOut,
}

/// `tournament.round.add_game`'s answer.
#[derive(JsonSchema)]
pub struct GameAdded {
    pub revision: u64,
    pub game: GameOut,
}

/// `tournament.round.publish`'s answer.
#[derive(JsonSchema)]
pub struct Published {
    pub revision: u64,
    pub round: RoundNumber,
    pub published: bool,
}

/// The board a pair would get.
#[derive(JsonSchema)]
pub struct Board {
    pub white: Option<PlayerId>,
    pub black: Option<PlayerId>,
    pub handicap: Option<u32>,
}

/// A player's score group and placement in it before the round.
#[derive(JsonSchema)]
pub struct Group {
    pub player: PlayerId,
    /// Score group (0 = top).
    pub group: i32,
    pub placement: i32,
}

/// One term of a weighted-term model's cost.
#[derive(JsonSchema)]
pub struct TermCost {
    pub measure: f64,
    pub weight: f64,
    pub cost: Amount,
}

/// `tournament.round.explain`'s answer: OpenGotha's weight term by term (`weight`, `terms` of
/// integers, `groups`), or under a weighted-term model its cost (`model`, `cost`, `terms` of
/// [`TermCost`]).
#[derive(JsonSchema)]
pub struct Explained {
    pub round: RoundNumber,
    pub player_a: PlayerId,
    /// The second player; absent for a bye's weight (then `bye`).
    pub player_b: Option<PlayerId>,
    pub bye: Option<bool>,
    pub board: Option<Board>,
    pub weight: Option<i64>,
    pub model: Option<String>,
    pub cost: Option<Amount>,
    pub terms: BTreeMap<String, ExplainedTerm>,
    pub games_before: u32,
    pub forbidden: bool,
    pub groups: Option<Vec<Group>>,
}

/// A term of an explanation: OpenGotha's weight (an integer), or a model's term.
#[derive(JsonSchema)]
#[schemars(untagged)]
pub enum ExplainedTerm {
    Weight(i64),
    Model(TermCost),
}

/// `tournament.result.set`'s answer.
#[derive(JsonSchema)]
pub struct ResultSet {
    pub revision: u64,
    pub round: RoundNumber,
    pub table: u32,
    pub result: ResultCode,
    /// What checking the record found.
    pub warnings: Vec<String>,
}

/// `tournament.game.sgf`'s answer.
#[derive(JsonSchema)]
pub struct GameRecord {
    pub round: RoundNumber,
    pub table: u32,
    pub white: PlayerId,
    pub black: PlayerId,
    pub result: ResultCode,
    pub sgf: String,
    pub warnings: Vec<String>,
}

/// A standings row.
#[derive(JsonSchema)]
pub struct StandingsRow {
    pub place: u32,
    /// Whether the place is shared (equal on every criterion).
    pub shared: bool,
    pub player_id: PlayerId,
    /// The criteria's values, by name.
    pub values: BTreeMap<String, f64>,
    pub name: Option<String>,
    pub first_name: Option<String>,
    pub rank: Option<i32>,
    pub rank_text: Option<String>,
    pub country: Option<String>,
    pub club: Option<String>,
    /// Crosstable: the row's line number.
    pub position: Option<u32>,
    /// Crosstable: one cell per round.
    pub cells: Option<Vec<CrossCell>>,
}

/// A crosstable cell: what a round was for the player.
#[derive(JsonSchema)]
pub struct CrossCell {
    pub round: RoundNumber,
    pub kind: CellKind,
    /// The opponent, for a game.
    pub opponent: Option<PlayerId>,
    /// The opponent's line in the crosstable (0 without a game).
    pub opponent_position: u32,
    pub result: CellResult,
    /// The player's colour, for a game.
    pub colour: Option<Colour>,
    pub handicap: u32,
    pub forfeit: bool,
    /// The cell as the EGF table writes it (`3+/w2`).
    pub text: String,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellKind {
    Game,
    Bye,
    Absent,
    NotAssigned,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellResult {
    Win,
    Loss,
    Jigo,
    Unknown,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    White,
    Black,
}

/// `tournament.standings`'s and `tournament.crosstable`'s answer.
#[derive(JsonSchema)]
pub struct Standings {
    pub revision: u64,
    pub after_round: RoundNumber,
    /// The criteria, in order (OpenGotha's names).
    pub criteria: Vec<String>,
    pub rows: Vec<StandingsRow>,
}

/// `tournament.export`'s answer: a file's text (`opengotha`, `aga`, `send2aga`,
/// `aga_results` answer their own members besides `revision`).
#[derive(JsonSchema)]
pub struct Exported {
    pub revision: u64,
    pub format: Option<String>,
    pub file_name: Option<String>,
    pub encoding: Option<String>,
    pub text: Option<String>,
    pub warnings: Option<Vec<Value>>,
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// `tournament.import`'s answer.
#[derive(JsonSchema)]
pub struct Imported {
    pub id: TournamentId,
    pub revision: u64,
    /// The director token (only in this answer).
    pub director_token: String,
    pub players: u64,
    pub rounds: RoundNumber,
}

/// `tournament.standings`'s parameters.
#[derive(JsonSchema)]
pub struct StandingsArgs {
    pub tournament_id: TournamentId,
    /// Default: the last round with results (the last public one for the public).
    pub after_round: Option<RoundNumber>,
    /// Placement criteria (OpenGotha's names), at most 12; default the tournament's.
    pub criteria: Option<Vec<String>>,
}

/// `tournament.crosstable`'s parameters.
#[derive(JsonSchema)]
pub struct CrosstableArgs {
    pub tournament_id: TournamentId,
    pub after_round: Option<RoundNumber>,
}

/// `tournament.export`'s parameters (the whole-tournament formats `opengotha`, `aga`,
/// `send2aga`, `aga_results` take their options third).
#[derive(JsonSchema)]
pub struct ExportArgs {
    pub tournament_id: TournamentId,
    /// h9, h9_nobydef, csv, opengotha, aga, send2aga, aga_results.
    pub format: String,
    /// A round (the standings formats), or the options of a whole-tournament format.
    pub after_round: Option<Value>,
    pub options: Option<serde_json::Map<String, Value>>,
}

/// `tournament.import`'s parameters.
#[derive(JsonSchema)]
pub struct ImportArgs {
    /// `opengotha` (XML text) or `aga` ({register, rounds}).
    pub format: String,
    /// The file: text, or the AGA files as a struct.
    pub data: Value,
    /// The tournament's name (default the file's).
    pub name: Option<String>,
    pub options: Option<serde_json::Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::engine::{parse_result_code, result_code};

    #[test]
    fn every_alias_reads_as_its_code() {
        for (alias, code) in RESULT_ALIASES {
            let (o, f) = parse_result_code(alias).unwrap();
            assert_eq!(result_code(o, f), *code, "{alias}");
        }
        for code in RESULT_CODES {
            let (o, f) = parse_result_code(code).unwrap();
            assert_eq!(result_code(o, f), *code);
        }
    }
}
