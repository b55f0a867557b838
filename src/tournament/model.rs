//! The tournament as data: settings, players, rounds, games and results. This is the contract
//! between the parts of the tournament manager: the engine folds its events into a
//! [`TournamentData`], standings and exports read one, imports produce one.
//!
//! Conventions: rounds are 1-based everywhere (as in OpenGotha's XML, the EGF table and the
//! API); ranks use OpenGotha's integers (30k = −30, 1k = −1, 1d = 0, 9d = 8); points that can be
//! halves are kept as integer half points (`…2` suffix), as OpenGotha does, so no float ever
//! decides a place. Every struct deserializes with defaults for missing fields, so stored
//! events stay readable when fields are added (never rename or remove one).
//!
//! Settings and players are read leniently here (a key this version does not know is
//! ignored), because stored events must replay whatever an older or newer version wrote.
//! What callers send is checked strictly before it gets here (`rpc::input`, against the JSON
//! Schema these types derive): unknown keys are refused there, with the nearest valid key.
//! So a new setting is one field with its doc comment (its description in the schema and in
//! docs/tournament.md's table), its serde default, its bounds (`#[schemars(range, length)]`)
//! and, where OpenGotha has it, its XML attribute (`x-opengotha`).

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

use crate::pairing::opengotha::{self as og, Crit, DuddMode, SeedSystem};

/// A player's number inside one tournament: 1, 2, 3, ... in registration order, never
/// reused (a removed player's number stays unused).
pub type PlayerId = u32;

/// A round number, from 1.
pub type RoundNumber = u32;

/// OpenGotha's rank integer: 30k = −30 … 1k = −1, 1d = 0 … 9d = 8.
pub type Rank = i32;

pub const MIN_RANK: Rank = og::MIN_RANK;
pub const MAX_RANK: Rank = og::MAX_RANK;

/// Most rounds a tournament may have (OpenGotha's participation string has 20 flags; we
/// allow more, bounded so every per-round table stays small).
pub const MAX_ROUNDS: u32 = 64;

/// Longest text field (names, club, location, …), in characters.
pub const MAX_TEXT: usize = 200;

/// Longest value of one `settings.extra` attribute, in characters.
pub const MAX_EXTRA_VALUE: usize = 1_000;
/// Most bytes `settings.extra` may hold in all (element and attribute names and values).
pub const MAX_EXTRA_BYTES: usize = 64 * 1024;

/// Parses "3d", "12K", "1D"; pro ranks ("2p") count as 9d. `None` for anything else.
pub fn parse_rank(s: &str) -> Option<Rank> {
    og::parse_rank(s)
}

/// A rank as callers write it: OpenGotha's integer (−30 … 8) or text ("3d", "20k", "1p"), as
/// player ranks and every rank-valued setting take it. Stored events hold the integer.
pub fn deserialize_rank<'de, D: Deserializer<'de>>(d: D) -> Result<Rank, D::Error> {
    d.deserialize_any(RankVisitor)
}

/// [`deserialize_rank`] for a list of ranks.
pub fn deserialize_ranks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Rank>, D::Error> {
    struct Ranks;
    impl<'de> serde::de::Visitor<'de> for Ranks {
        type Value = Vec<Rank>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of ranks")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Vec<Rank>, A::Error> {
            let mut out = Vec::new();
            while let Some(RankIn(r)) = a.next_element()? {
                out.push(r);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Ranks)
}

/// One rank of a list (see [`deserialize_rank`]).
struct RankIn(Rank);

impl<'de> Deserialize<'de> for RankIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_rank(d).map(RankIn)
    }
}

struct RankVisitor;

impl serde::de::Visitor<'_> for RankVisitor {
    type Value = Rank;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a rank like 3d, 20k or 1p, or OpenGotha's integer (30k = -30 … 9d = 8)")
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Rank, E> {
        Rank::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Rank, E> {
        Rank::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Rank, E> {
        // XML-RPC clients may send a double for a whole number.
        if v.fract() == 0.0 && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&v) {
            Ok(v as Rank)
        } else {
            Err(E::invalid_value(serde::de::Unexpected::Float(v), &self))
        }
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Rank, E> {
        parse_rank(v).ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
    }
}

/// The JSON Schema of a rank: OpenGotha's integer or the text players write.
fn rank_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "oneOf": [
            {"type": "integer", "minimum": MIN_RANK, "maximum": MAX_RANK},
            {"type": "string", "pattern": "^ *[0-9]+ *[kKdDpP] *$"}
        ]
    })
}

fn ranks_schema(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "array", "items": rank_schema(generator), "maxItems": 20})
}

/// OpenGotha's spelling of a rank: "12K", "1D".
pub fn format_rank(r: Rank) -> String {
    if r < 0 {
        format!("{}K", -r)
    } else {
        format!("{}D", r + 1)
    }
}

/// The rating OpenGotha gives a player registered with a rank and no rating
/// (`Player.ratingFromRank`): 1D = 2100, 100 a grade, 30K = −900.
pub fn rating_from_rank(r: Rank) -> i32 {
    (r.clamp(MIN_RANK, MAX_RANK) + 30) * 100 - 900
}

/// The pairing and placement system (OpenGotha's four; each has its own defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum System {
    #[default]
    Mcmahon,
    Swiss,
    Swisscat,
    Cup,
}

impl System {
    pub fn opengotha(self) -> og::System {
        match self {
            System::Mcmahon => og::System::McMahon,
            System::Swiss => og::System::Swiss,
            System::Swisscat => og::System::SwissCat,
            System::Cup => og::System::Cup,
        }
    }
}

/// The complementary time system after the basic time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Overtime {
    SuddenDeath,
    /// Japanese byo-yomi: `periods` periods of `seconds` each.
    Byoyomi {
        seconds: u32,
        periods: u32,
    },
    /// Canadian: `stones` moves in `seconds`.
    Canadian {
        stones: u32,
        seconds: u32,
    },
    /// Fischer: `increment` seconds added per move.
    Fischer {
        increment: u32,
    },
}

impl Default for Overtime {
    fn default() -> Self {
        Overtime::Byoyomi {
            seconds: 30,
            periods: 5,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TimeSystem {
    /// Main time in minutes.
    #[schemars(extend("x-opengotha" = "GeneralParameterSet basicTime"))]
    pub basic_minutes: u32,
    /// The time after the main time: `{kind: sudden_death}`, `{kind: byoyomi, seconds,
    /// periods}`, `{kind: canadian, stones, seconds}` or `{kind: fischer, increment}`.
    #[schemars(extend(
        "x-opengotha" = "GeneralParameterSet complementaryTimeSystem, stdByoYomiTime, nbMovesCanTime, canByoYomiTime, fischerTime"
    ))]
    pub overtime: Overtime,
    /// Free text shown to players and written into exports (e.g. "60 min + 5×30 s").
    #[schemars(length(max = MAX_TEXT))]
    pub text: String,
}

impl Default for TimeSystem {
    fn default() -> Self {
        TimeSystem {
            basic_minutes: 60,
            overtime: Overtime::default(),
            text: String::new(),
        }
    }
}

/// McMahon starting scores: `clamp(rank, floor, bar) − zero + correction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct McMahon {
    /// The McMahon bar: players at or above this rank start level (a rank: 3d, or −30 … 8).
    #[serde(deserialize_with = "deserialize_rank")]
    #[schemars(schema_with = "rank_schema")]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genMMBar"))]
    pub bar: Rank,
    /// The McMahon floor: players at or below this rank start level.
    #[serde(deserialize_with = "deserialize_rank")]
    #[schemars(schema_with = "rank_schema")]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genMMFloor"))]
    pub floor: Rank,
    /// The rank whose McMahon score is 0.
    #[serde(deserialize_with = "deserialize_rank")]
    #[schemars(schema_with = "rank_schema")]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genMMZero"))]
    pub zero: Rank,
}

impl Default for McMahon {
    fn default() -> Self {
        // OpenGotha's McMahon defaults: bar 4D, floor 20K, zero 30K.
        McMahon {
            bar: 3,
            floor: -20,
            zero: MIN_RANK,
        }
    }
}

/// OpenGotha's handicap policy: pseudo-ranks (MMS-based or rank-based) capped at the
/// threshold, difference reduced by `correction` toward 0, clamped to `ceiling`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct HandicapPolicy {
    /// Handicap from the McMahon scores (true) or from the ranks (false).
    #[schemars(extend("x-opengotha" = "HandicapParameterSet hdBasedOnMMS"))]
    pub based_on_mms: bool,
    /// Pseudo-ranks above this are taken as this (1D by default: no handicap among dans).
    #[serde(deserialize_with = "deserialize_rank")]
    #[schemars(schema_with = "rank_schema")]
    #[schemars(extend("x-opengotha" = "HandicapParameterSet hdNoHdRankThreshold"))]
    pub no_handicap_threshold: Rank,
    /// Stones taken off the rank difference (1: a one-rank gap is an even game).
    #[schemars(range(min = -1, max = 3))]
    #[schemars(extend("x-opengotha" = "HandicapParameterSet hdCorrection"))]
    pub correction: i32,
    /// Most handicap stones.
    #[schemars(range(min = 0, max = 9))]
    #[schemars(extend("x-opengotha" = "HandicapParameterSet hdCeiling"))]
    pub ceiling: i32,
}

impl Default for HandicapPolicy {
    fn default() -> Self {
        HandicapPolicy {
            based_on_mms: true,
            no_handicap_threshold: 0,
            correction: 1,
            ceiling: 9,
        }
    }
}

/// What byes and absences are worth, in half points, and how they are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ScoringValues {
    /// Number of wins a bye is worth, in half points (0, 1 or 2).
    #[schemars(range(min = 0, max = 2))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genNBW2ValueBye"))]
    pub nbw2_bye: i32,
    /// Number of wins an absence is worth, in half points.
    #[schemars(range(min = 0, max = 2))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genNBW2ValueAbsent"))]
    pub nbw2_absent: i32,
    /// McMahon points a bye is worth, in half points.
    #[schemars(range(min = 0, max = 2))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genMMS2ValueBye"))]
    pub mms2_bye: i32,
    /// McMahon points an absence is worth, in half points.
    #[schemars(range(min = 0, max = 2))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genMMS2ValueAbsent"))]
    pub mms2_absent: i32,
    /// The cumulative bye + absence credit is rounded down to whole points.
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genRoundDownNBWMMS"))]
    pub round_down: bool,
    /// For SOS, an opponent's unplayed rounds count ½.
    #[schemars(extend("x-opengotha" = "GeneralParameterSet genCountNotPlayedGamesAsHalfPoint"))]
    pub count_not_played_as_half: bool,
}

impl Default for ScoringValues {
    fn default() -> Self {
        ScoringValues {
            nbw2_bye: 2,
            nbw2_absent: 0,
            mms2_bye: 2,
            mms2_absent: 1,
            round_down: true,
            count_not_played_as_half: false,
        }
    }
}

/// OpenGotha's pairing parameter set (the `pai…` attributes), with OpenGotha's defaults for
/// the tournament's system. Field names follow `pairing::opengotha::Params`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PairingSettings {
    /// Weight of avoiding a second game between the same two players.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiBaAvoidDuplGame"))]
    pub avoid_dupl_game: i64,
    /// Weight of the random term (0: none).
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiBaRandom"))]
    pub random: i64,
    /// The random term comes from the tournament's seed (replays give the same pairing).
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiBaDeterministic"))]
    pub deterministic_random: bool,
    /// Weight of balancing each player's white and black games.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiBaBalanceWB"))]
    pub balance_wb: i64,
    /// Weight of keeping players of different categories apart.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaAvoidMixingCategories"))]
    pub avoid_mixing_categories: i64,
    /// Weight of pairing players of the same score.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaMinimizeScoreDifference"))]
    pub minimize_score_difference: i64,
    /// Weight of the draw-up/draw-down rules.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaDUDDWeight"))]
    pub dudd_weight: i64,
    /// A player drawn up (down) before is drawn down (up) next.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaCompensateDUDD"))]
    pub compensate_dudd: bool,
    /// Where in the lower group a drawn-up player comes from: top, mid or bot.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaDUDDUpperMode"))]
    pub dudd_upper: Mode3,
    /// Where in the upper group a drawn-down player comes from: top, mid or bot.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaDUDDLowerMode"))]
    pub dudd_lower: Mode3,
    /// Weight of the seeding inside a score group.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaMaximizeSeeding"))]
    pub maximize_seeding: i64,
    /// The last round seeded with `seed_system1` (later rounds use `seed_system2`).
    #[schemars(range(max = MAX_ROUNDS))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaLastRoundForSeedSystem1"))]
    pub last_round_seed_system1: u32,
    /// Seeding up to `last_round_seed_system1`: split_and_random, split_and_fold or
    /// split_and_slip.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaSeedSystem1"))]
    pub seed_system1: Seeding,
    /// Seeding in the later rounds.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaSeedSystem2"))]
    pub seed_system2: Seeding,
    /// The placement criterion that orders a score group for the first seeding.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaAdditionalPlacementCritSystem1"))]
    pub additional_crit1: Criterion,
    /// The same for the second seeding.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiMaAdditionalPlacementCritSystem2"))]
    pub additional_crit2: Criterion,
    /// Weight of giving as few handicap stones as possible.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiSeMinimizeHandicap"))]
    pub minimize_handicap: i64,
    /// Weight of keeping players of one club or country apart.
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiSeAvoidSameGeo"))]
    pub avoid_same_geo: i64,
    /// How much a score difference is preferred to a same-club pairing, in percent.
    #[schemars(range(min = 0, max = 100))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiSePreferMMSDiffRatherThanSameClub"))]
    pub prefer_mms_diff_club: i32,
    /// The same for a same-country pairing.
    #[schemars(range(min = 0, max = 100))]
    #[schemars(extend(
        "x-opengotha" = "PairingParameterSet paiSePreferMMSDiffRatherThanSameCountry"
    ))]
    pub prefer_mms_diff_country: i32,
    /// Players from this rank up are paired by the secondary criteria (a rank).
    #[serde(deserialize_with = "deserialize_rank")]
    #[schemars(schema_with = "rank_schema")]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiSeRankThreshold"))]
    pub se_rank_threshold: Rank,
    /// Players with at least half the rounds won are paired by the secondary criteria.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiSeNbWinsThresholdActive"))]
    pub se_nbwins_threshold_active: bool,
    /// Players at the McMahon bar are paired by the secondary criteria.
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiSeBarThresholdActive"))]
    pub se_bar_threshold_active: bool,
    /// OpenGotha's standard NX1 factor of the seeding (0 … 10).
    #[schemars(range(min = 0.0, max = 10.0))]
    #[schemars(extend("x-opengotha" = "PairingParameterSet paiStandardNX1Factor"))]
    pub nx1: f64,
    /// The later OpenGotha's rules (see docs/pairing.md): DU/DD across every group gap
    /// (`None`) or fewer than this many groups apart (3.51: 4); geography thresholds.
    #[schemars(range(min = 1))]
    pub dudd_group_span: Option<i32>,
    /// The later OpenGotha's geography thresholds (docs/pairing.md).
    pub geo_thresholds: bool,
    /// Pairs that must never be paired (siblings, couples, ...), as player ids.
    #[schemars(length(max = MAX_FORBIDDEN_PAIRS))]
    pub forbidden_pairs: Vec<(PlayerId, PlayerId)>,
}

/// Largest pairing weight (OpenGotha's weights stay far below; this keeps sums in i64).
pub const MAX_WEIGHT: i64 = 1_000_000_000_000_000;

/// Most forbidden pairs a tournament may list.
pub const MAX_FORBIDDEN_PAIRS: usize = 10_000;

impl PairingSettings {
    /// OpenGotha's defaults for a system.
    pub fn defaults(system: System) -> PairingSettings {
        let p = og::Params::defaults(system.opengotha(), 1);
        PairingSettings {
            avoid_dupl_game: p.avoid_dupl_game,
            random: p.random,
            deterministic_random: true,
            balance_wb: p.balance_wb,
            avoid_mixing_categories: p.avoid_mixing_categories,
            minimize_score_difference: p.minimize_score_difference,
            dudd_weight: p.dudd_weight,
            compensate_dudd: p.compensate_dudd,
            dudd_upper: p.dudd_upper.into(),
            dudd_lower: p.dudd_lower.into(),
            maximize_seeding: p.maximize_seeding,
            last_round_seed_system1: p.last_round_seed_system1 as u32,
            seed_system1: p.seed_system1.into(),
            seed_system2: p.seed_system2.into(),
            additional_crit1: Criterion(p.additional_crit1),
            additional_crit2: Criterion(p.additional_crit2),
            minimize_handicap: p.minimize_handicap,
            avoid_same_geo: p.avoid_same_geo,
            prefer_mms_diff_club: p.prefer_mms_diff_club,
            prefer_mms_diff_country: p.prefer_mms_diff_country,
            se_rank_threshold: p.se_rank_threshold,
            se_nbwins_threshold_active: p.se_nbwins_threshold_active,
            se_bar_threshold_active: p.se_bar_threshold_active,
            nx1: p.nx1,
            dudd_group_span: p.dudd_group_span,
            geo_thresholds: p.geo_thresholds,
            forbidden_pairs: Vec::new(),
        }
    }
}

impl Default for PairingSettings {
    fn default() -> Self {
        PairingSettings::defaults(System::default())
    }
}

/// Where a drawn-up/down player should come from in its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode3 {
    Top,
    Mid,
    Bot,
}

impl From<DuddMode> for Mode3 {
    fn from(m: DuddMode) -> Self {
        match m {
            DuddMode::Top => Mode3::Top,
            DuddMode::Mid => Mode3::Mid,
            DuddMode::Bot => Mode3::Bot,
        }
    }
}

impl From<Mode3> for DuddMode {
    fn from(m: Mode3) -> Self {
        match m {
            Mode3::Top => DuddMode::Top,
            Mode3::Mid => DuddMode::Mid,
            Mode3::Bot => DuddMode::Bot,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Seeding {
    SplitAndRandom,
    SplitAndFold,
    SplitAndSlip,
}

impl From<SeedSystem> for Seeding {
    fn from(s: SeedSystem) -> Self {
        match s {
            SeedSystem::SplitAndRandom => Seeding::SplitAndRandom,
            SeedSystem::SplitAndFold => Seeding::SplitAndFold,
            SeedSystem::SplitAndSlip => Seeding::SplitAndSlip,
        }
    }
}

impl From<Seeding> for SeedSystem {
    fn from(s: Seeding) -> Self {
        match s {
            Seeding::SplitAndRandom => SeedSystem::SplitAndRandom,
            Seeding::SplitAndFold => SeedSystem::SplitAndFold,
            Seeding::SplitAndSlip => SeedSystem::SplitAndSlip,
        }
    }
}

/// A placement criterion, serialized by OpenGotha's name ("MMS", "SOSM", "SOSWM1", "NULL").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Criterion(pub Crit);

impl Serialize for Criterion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name())
    }
}

impl JsonSchema for Criterion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Criterion".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Crit::names().collect();
        json_schema!({
            "type": "string",
            "description": "A placement criterion by OpenGotha's name (any case).",
            "enum": names,
        })
    }
}

impl<'de> Deserialize<'de> for Criterion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Crit::parse(&s)
            .map(Criterion)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown criterion {s:?}")))
    }
}

/// Everything about a tournament that is not a player or a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Settings {
    /// The tournament's name.
    #[schemars(length(max = MAX_TEXT))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet name"))]
    pub name: String,
    /// A short name without spaces (file names).
    #[schemars(length(max = MAX_TEXT))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet shortName"))]
    pub short_name: String,
    /// Where it is played.
    #[schemars(length(max = MAX_TEXT))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet location"))]
    pub location: String,
    /// The tournament director.
    #[schemars(length(max = MAX_TEXT))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet director"))]
    pub director: String,
    /// First day, an ISO date (YYYY-MM-DD); empty when not set.
    #[schemars(length(max = MAX_TEXT))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet beginDate"))]
    pub begin_date: String,
    /// Last day, an ISO date (YYYY-MM-DD); empty when not set.
    #[schemars(length(max = MAX_TEXT))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet endDate"))]
    pub end_date: String,
    /// Number of rounds.
    #[schemars(range(min = 1, max = MAX_ROUNDS))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet numberOfRounds"))]
    pub rounds: u32,
    /// Board size (2 … 25).
    #[schemars(range(min = 2, max = 25))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet size"))]
    pub board_size: u32,
    /// Komi in half points (7.5 → 15), for even games; handicap games use `handicap_komi2`.
    #[schemars(range(min = -200, max = 200))]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet komi"))]
    pub komi2: i32,
    /// Komi for handicap games, in half points (0.5 → 1 by default).
    #[schemars(range(min = -200, max = 200))]
    pub handicap_komi2: i32,
    /// Rule set name as `score.*` knows it: japanese, chinese, aga, korean, new_zealand, ing,
    /// tromp_taylor.
    #[schemars(length(max = MAX_TEXT))]
    pub rules: String,
    /// The time system.
    pub time: TimeSystem,
    /// An online tournament (EGF class D).
    #[schemars(extend("x-opengotha" = "GeneralParameterSet bInternet"))]
    pub internet: bool,
    /// The pairing and placement system: mcmahon, swiss, swisscat or cup. At creation it
    /// chooses the defaults of `placement`, `mcmahon`, `scoring` and `pairing` (OpenGotha's
    /// for the system); the defaults shown here are McMahon's.
    pub system: System,
    /// McMahon starting scores.
    pub mcmahon: McMahon,
    /// The handicap policy.
    pub handicap: HandicapPolicy,
    /// What byes and absences are worth.
    pub scoring: ScoringValues,
    /// Placement criteria, in order (OpenGotha's defaults for the system when created).
    #[schemars(length(max = 12))]
    #[schemars(extend("x-opengotha" = "PlacementParameterSet PlacementCriterion name"))]
    pub placement: Vec<Criterion>,
    /// Lower rank limit of each category but the last (SwissCat; empty: one category).
    #[serde(deserialize_with = "deserialize_ranks")]
    #[schemars(schema_with = "ranks_schema")]
    #[schemars(extend("x-opengotha" = "GeneralParameterSet Category lowerLimit"))]
    pub categories: Vec<Rank>,
    /// OpenGotha's pairing parameters.
    pub pairing: PairingSettings,
    /// Parameters read from an imported file that goswiss does not interpret (OpenGotha's
    /// display and publish options, …), kept so an export writes them back unchanged:
    /// element name → attribute → value.
    #[schemars(length(max = 200))]
    #[schemars(extend("x-opengotha" = "DPParameterSet, PublishParameterSet, …: every attribute"))]
    pub extra: BTreeMap<String, BTreeMap<String, String>>,
    /// OpenGotha's clubs groups: named sets of clubs (e.g. the clubs of one city) whose
    /// players are near neighbours for the geography criterion of pairing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 1000))]
    #[schemars(extend("x-opengotha" = "ClubsGroups ClubsGroup"))]
    pub clubs_groups: Vec<ClubsGroup>,
    /// OpenGotha's teams (team tournaments). goswiss neither pairs nor ranks teams; they are
    /// kept so an OpenGotha file keeps them through import and export.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 10000))]
    #[schemars(extend("x-opengotha" = "Teams Team"))]
    pub teams: Vec<Team>,
    /// How the EGF table (`.h9`) writes a game: `full` (`26+/w2`: opponent, result, `/` or
    /// `!` for a result by default, colour, handicap) or `short` (`26+`), OpenGotha's display
    /// setting `gameFormat`. Unset (`null`): the `gameFormat` of an imported OpenGotha file's
    /// display parameters, else `full`. Read and written by the OpenGotha XML.
    #[schemars(extend("x-opengotha" = "DPParameterSet gameFormat"))]
    pub game_format: Option<GameFormat>,
    /// The country of the venue, a two-letter code (`FR`), written into the EGF table's
    /// `PC[country,location]`. Empty: the country more than half of the table's players
    /// share, if any.
    #[schemars(length(max = 2))]
    pub country: String,
}

/// OpenGotha's `gameFormat`: how much of a game the EGF table's cells say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameFormat {
    #[default]
    Full,
    Short,
}

impl GameFormat {
    /// The name OpenGotha's XML uses.
    pub fn name(self) -> &'static str {
        match self {
            GameFormat::Full => "full",
            GameFormat::Short => "short",
        }
    }

    /// OpenGotha's reading of the attribute: `short` is short, anything else full.
    pub fn parse(s: &str) -> GameFormat {
        if s == "short" {
            GameFormat::Short
        } else {
            GameFormat::Full
        }
    }
}

/// A named set of clubs; club names compare case-insensitively, as OpenGotha's do.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ClubsGroup {
    /// The group's name.
    #[schemars(length(max = MAX_TEXT))]
    pub name: String,
    /// Its clubs' names.
    #[schemars(length(max = 1000), inner(length(max = MAX_TEXT)))]
    pub clubs: Vec<String>,
}

/// A team of a team tournament: who sits on which board in which round.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Team {
    /// OpenGotha's team number (1-based).
    pub number: u32,
    /// The team's name.
    #[schemars(length(max = MAX_TEXT))]
    pub name: String,
    /// Who sits where.
    #[schemars(length(max = 640))]
    pub boards: Vec<TeamBoard>,
}

/// One seat of a team: `player` on board `board` (1-based) in round `round`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TeamBoard {
    /// The round.
    pub round: RoundNumber,
    /// The board, from 1.
    pub board: u32,
    /// The player's id.
    pub player: PlayerId,
}

impl Settings {
    /// A new tournament's settings with OpenGotha's defaults for `system`.
    pub fn defaults(system: System) -> Settings {
        let og = og::Params::defaults(system.opengotha(), 5);
        let scoring = ScoringValues {
            nbw2_bye: og.nbw2_bye,
            nbw2_absent: og.nbw2_absent,
            mms2_bye: og.mms2_bye,
            mms2_absent: og.mms2_absent,
            round_down: og.round_down,
            count_not_played_as_half: false,
        };
        Settings {
            name: String::new(),
            short_name: String::new(),
            location: String::new(),
            director: String::new(),
            begin_date: String::new(),
            end_date: String::new(),
            rounds: 5,
            board_size: 19,
            komi2: 13,
            handicap_komi2: 1,
            rules: "japanese".into(),
            time: TimeSystem::default(),
            internet: false,
            system,
            mcmahon: McMahon {
                bar: og.mm_bar,
                floor: og.mm_floor,
                zero: og.mm_zero,
            },
            handicap: HandicapPolicy {
                based_on_mms: og.hd_based_on_mms,
                no_handicap_threshold: og.hd_no_hd_rank_threshold,
                correction: og.hd_correction,
                ceiling: og.hd_ceiling,
            },
            scoring,
            placement: og.criteria.iter().map(|c| Criterion(*c)).collect(),
            categories: Vec::new(),
            pairing: PairingSettings::defaults(system),
            extra: BTreeMap::new(),
            clubs_groups: Vec::new(),
            teams: Vec::new(),
            game_format: None,
            country: String::new(),
        }
    }

    /// The EGF table's game format: [`Settings::game_format`] when set, else the
    /// `gameFormat` an imported OpenGotha file's display parameters carry (tournaments
    /// imported before the setting existed keep it there), else full.
    pub fn effective_game_format(&self) -> GameFormat {
        self.game_format.unwrap_or_else(|| {
            self.extra
                .get("DPParameterSet")
                .and_then(|m| m.get("gameFormat"))
                .map_or(GameFormat::Full, |v| GameFormat::parse(v))
        })
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::defaults(System::default())
    }
}

/// Registration status: preliminary players are listed but not paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Registration {
    Preliminary,
    #[default]
    Final,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Player {
    /// The player's number in the tournament (assigned at registration).
    pub id: PlayerId,
    /// Surname.
    #[schemars(length(max = MAX_TEXT))]
    pub name: String,
    /// Given name.
    #[schemars(length(max = MAX_TEXT))]
    pub first_name: String,
    /// The rank: text (3d, 12k, 1p) or OpenGotha's integer (−30 … 8).
    #[serde(deserialize_with = "deserialize_rank")]
    #[schemars(schema_with = "rank_schema")]
    pub rank: Rank,
    /// EGF-scale rating (GoR); OpenGotha keeps one for every player.
    #[schemars(range(min = -1000, max = 4000))]
    pub rating: i32,
    /// Where the rating came from ("EGF", "FFG", "AGA", "MAN", "INI", …).
    #[schemars(length(max = MAX_TEXT))]
    pub rating_origin: String,
    /// The grade the player declared ("3D", "2P"), when it differs from the rank.
    #[schemars(length(max = MAX_TEXT))]
    pub grade: String,
    /// Two-letter country code (upper case) or empty.
    #[schemars(length(max = MAX_TEXT))]
    pub country: String,
    /// The player's club.
    #[schemars(length(max = MAX_TEXT))]
    pub club: String,
    /// EGF PIN.
    #[schemars(length(max = MAX_TEXT))]
    pub egf_pin: String,
    /// FFG licence number.
    #[schemars(length(max = MAX_TEXT))]
    pub ffg_licence: String,
    /// FFG licence status.
    #[schemars(length(max = MAX_TEXT))]
    pub ffg_licence_status: String,
    /// AGA id.
    #[schemars(length(max = MAX_TEXT))]
    pub aga_id: String,
    /// AGA membership expiry date.
    #[schemars(length(max = MAX_TEXT))]
    pub aga_expiration: String,
    /// Hand-set McMahon correction (super-bar +1/+2, or negative).
    #[schemars(range(min = -1, max = 2))]
    pub mms_correction: i32,
    /// Rounds the player does not take part in (absent: scored with the absence values).
    #[schemars(length(max = MAX_ROUNDS))]
    pub skip: Vec<RoundNumber>,
    /// final (paired) or preliminary (listed, not paired).
    pub registration: Registration,
    /// Round after which the player withdrew (plays no later round); `None` while in.
    #[schemars(range(max = MAX_ROUNDS))]
    pub withdrawn_after: Option<RoundNumber>,
}

impl Default for Player {
    fn default() -> Self {
        Player {
            id: 0,
            name: String::new(),
            first_name: String::new(),
            rank: -20,
            rating: 100,
            rating_origin: String::new(),
            grade: String::new(),
            country: String::new(),
            club: String::new(),
            egf_pin: String::new(),
            ffg_licence: String::new(),
            ffg_licence_status: String::new(),
            aga_id: String::new(),
            aga_expiration: String::new(),
            mms_correction: 0,
            skip: Vec::new(),
            registration: Registration::Final,
            withdrawn_after: None,
        }
    }
}

impl Player {
    /// Whether the player takes part in round `r` (not skipped, not withdrawn before it).
    pub fn participates(&self, r: RoundNumber) -> bool {
        !self.skip.contains(&r) && self.withdrawn_after.is_none_or(|w| r <= w)
    }

    /// OpenGotha's key: upper-cased name + first name without spaces (its XML's player
    /// reference).
    pub fn opengotha_key(&self) -> String {
        self.opengotha_key_chars().collect()
    }

    /// The characters of [`Player::opengotha_key`], without building the string: a
    /// registration compares its key with every player's, which must not allocate per player.
    pub fn opengotha_key_chars(&self) -> impl Iterator<Item = char> + '_ {
        self.name
            .chars()
            .chain(self.first_name.chars())
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_uppercase)
    }
}

/// A game's result, OpenGotha's six values (forfeit is a separate flag on the game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    #[default]
    Unknown,
    WhiteWins,
    BlackWins,
    Jigo,
    BothWin,
    BothLose,
}

impl Outcome {
    /// Half points for (white, black).
    pub fn points2(self) -> (i32, i32) {
        match self {
            Outcome::WhiteWins => (2, 0),
            Outcome::BlackWins => (0, 2),
            Outcome::Jigo => (1, 1),
            Outcome::BothWin => (2, 2),
            Outcome::BothLose | Outcome::Unknown => (0, 0),
        }
    }

    pub fn opengotha(self) -> og::Outcome {
        match self {
            Outcome::Unknown => og::Outcome::Unknown,
            Outcome::WhiteWins => og::Outcome::WhiteWins,
            Outcome::BlackWins => og::Outcome::BlackWins,
            Outcome::Jigo => og::Outcome::Jigo,
            Outcome::BothWin => og::Outcome::BothWin,
            Outcome::BothLose => og::Outcome::BothLose,
        }
    }
}

/// A game record attached to a result: the SGF text as submitted, and what checking it found.
/// This is the record as an event carries it; the state keeps a [`RecordRef`] instead.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Record {
    pub sgf: String,
    /// Warnings returned when it was stored (kept so they can be shown again).
    pub warnings: Vec<String>,
}

/// Where a game's record is in the tournament's log: what the state keeps of a record. The
/// text (up to a megabyte) and its warnings stay in the stored events and are read from the
/// store when asked for (`tournament.game.sgf`, the game page), so a tournament's memory does
/// not grow with its records, nor with corrections that keep one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordRef {
    /// The event (its sequence number: revision − 1) whose body holds the SGF text.
    pub text_seq: u64,
    /// The event whose body holds the warnings of the game's current result.
    pub warnings_seq: u64,
    /// The text's size in bytes.
    pub bytes: u64,
    /// SHA-256 of the text (hex): a correction sending the same text again refers to the
    /// stored one instead of storing a second copy.
    pub sha256: String,
    /// SHA-256 (hex) of the warnings, one per line: with the text's, tells an unchanged record
    /// (a call repeated) without reading the store.
    pub warnings_sha256: String,
}

/// A placeholder sequence number in a [`RecordRef`] read from an event written before records
/// were referenced (a swapped game carrying its whole record): the event that holds it, which
/// [`crate::tournament::Tournament::apply`] fills in.
pub const THIS_EVENT: u64 = u64::MAX;

impl RecordRef {
    /// The reference to a record held whole by event `seq`.
    pub fn held_by(seq: u64, record: &Record) -> RecordRef {
        RecordRef {
            text_seq: seq,
            warnings_seq: seq,
            bytes: record.sgf.len() as u64,
            sha256: sha256_hex(record.sgf.as_bytes()),
            warnings_sha256: warnings_sha256(&record.warnings),
        }
    }

    /// Whether `text` is this record's text (same size and hash).
    pub fn same_text(&self, text: &str) -> bool {
        self.bytes == text.len() as u64 && self.sha256 == sha256_hex(text.as_bytes())
    }
}

pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn warnings_sha256(warnings: &[String]) -> String {
    sha256_hex(warnings.join("\n").as_bytes())
}

/// A game's `record` as stored: a [`RecordRef`], or (in events written before records were
/// referenced) the whole [`Record`], which is read as a reference to the event holding it.
fn record_ref<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<RecordRef>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Ref(RecordRef),
        Whole(Record),
    }
    Ok(Option::<Stored>::deserialize(d)?.map(|s| match s {
        Stored::Ref(r) => r,
        Stored::Whole(r) => RecordRef::held_by(THIS_EVENT, &r),
    }))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Game {
    /// Table (board) number, from 1, unique within the round.
    pub table: u32,
    pub white: PlayerId,
    pub black: PlayerId,
    pub handicap: u32,
    /// Komi of this game in half points.
    pub komi2: i32,
    pub outcome: Outcome,
    /// A result "by default" (forfeit, not played): scores like the outcome, but not a
    /// played game for SOS's "virtual opponent" option, DC and exports.
    pub forfeit: bool,
    /// Whether the colours are known (OpenGotha's knownColor; false for some imports).
    pub known_colour: bool,
    /// Where the game's record is in the log, if it has one.
    #[serde(deserialize_with = "record_ref")]
    pub record: Option<RecordRef>,
}

impl Default for Game {
    fn default() -> Self {
        Game {
            table: 0,
            white: 0,
            black: 0,
            handicap: 0,
            komi2: 13,
            outcome: Outcome::Unknown,
            forfeit: false,
            known_colour: true,
            record: None,
        }
    }
}

impl Game {
    pub fn has(&self, p: PlayerId) -> bool {
        self.white == p || self.black == p
    }

    /// The other player of the game, if `p` played it.
    pub fn opponent(&self, p: PlayerId) -> Option<PlayerId> {
        if self.white == p {
            Some(self.black)
        } else if self.black == p {
            Some(self.white)
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Round {
    /// Games in table order.
    pub games: Vec<Game>,
    /// Players with a bye this round (OpenGotha allows one; more is refused on pairing).
    pub byes: Vec<PlayerId>,
    /// Published (pairings visible to players).
    pub published: bool,
}

/// A whole tournament: what the engine's state holds, what standings and exports read and
/// what imports produce.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TournamentData {
    pub settings: Settings,
    /// Players in id order.
    pub players: Vec<Player>,
    /// `rounds[r - 1]` is round r; rounds not yet paired are absent or empty.
    pub rounds: Vec<Round>,
}

impl TournamentData {
    pub fn player(&self, id: PlayerId) -> Option<&Player> {
        self.players
            .binary_search_by_key(&id, |p| p.id)
            .ok()
            .map(|i| &self.players[i])
    }

    pub fn round(&self, r: RoundNumber) -> Option<&Round> {
        r.checked_sub(1).and_then(|i| self.rounds.get(i as usize))
    }

    /// The game `p` played in round `r`, if any.
    pub fn game_of(&self, r: RoundNumber, p: PlayerId) -> Option<&Game> {
        self.round(r)?.games.iter().find(|g| g.has(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_round_trip_in_opengotha_spelling() {
        for r in MIN_RANK..=MAX_RANK {
            assert_eq!(parse_rank(&format_rank(r)), Some(r));
        }
        assert_eq!(format_rank(-30), "30K");
        assert_eq!(format_rank(0), "1D");
        assert_eq!(format_rank(3), "4D");
    }

    #[test]
    fn settings_read_back_with_missing_fields_defaulted() {
        let s: Settings = serde_json::from_str(r#"{"name":"Open","system":"swiss"}"#).unwrap();
        assert_eq!(s.name, "Open");
        assert_eq!(s.system, System::Swiss);
        // Fields not given take the struct defaults (McMahon's), not the Swiss preset: the
        // engine applies presets explicitly when a tournament is created.
        assert_eq!(s.rounds, 5);
        let back: Settings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn criteria_serialize_by_opengotha_name() {
        let c: Vec<Criterion> = serde_json::from_str(r#"["MMS","sosm","SOSWM1","NULL"]"#).unwrap();
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"["MMS","SOSM","SOSWM1","NULL"]"#
        );
        assert!(serde_json::from_str::<Criterion>(r#""XYZ""#).is_err());
    }

    #[test]
    fn participation_and_keys() {
        let p = Player {
            name: "van der Berg".into(),
            first_name: "Anna Lisa".into(),
            skip: vec![2],
            withdrawn_after: Some(4),
            ..Player::default()
        };
        assert!(p.participates(1) && !p.participates(2) && p.participates(4));
        assert!(!p.participates(5));
        assert_eq!(p.opengotha_key(), "VANDERBERGANNALISA");
    }
}
