//! The tournament as data: settings, players, rounds, games and results. This is the contract
//! between the parts of the tournament manager: the engine folds its events into a
//! [`TournamentData`], standings and exports read one, imports produce one.
//!
//! Conventions: rounds are 1-based everywhere (as in OpenGotha's XML, the EGF table and the
//! API); ranks use OpenGotha's integers (30k = −30, 1k = −1, 1d = 0, 9d = 8); points that can be
//! halves are kept as integer half points (`…2` suffix), as OpenGotha does, so no float ever
//! decides a place. Every struct deserializes with defaults for missing fields, so stored
//! events stay readable when fields are added (never rename or remove one).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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

/// Parses "3d", "12K", "1D"; pro ranks ("2p") count as 9d. `None` for anything else.
pub fn parse_rank(s: &str) -> Option<Rank> {
    og::parse_rank(s)
}

/// OpenGotha's spelling of a rank: "12K", "1D".
pub fn format_rank(r: Rank) -> String {
    if r < 0 {
        format!("{}K", -r)
    } else {
        format!("{}D", r + 1)
    }
}

/// The pairing and placement system (OpenGotha's four; each has its own defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimeSystem {
    /// Main time in minutes.
    pub basic_minutes: u32,
    pub overtime: Overtime,
    /// Free text shown to players and written into exports (e.g. "60 min + 5×30 s").
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct McMahon {
    pub bar: Rank,
    pub floor: Rank,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HandicapPolicy {
    pub based_on_mms: bool,
    /// Pseudo-ranks above this are taken as this (1D by default: no handicap among dans).
    pub no_handicap_threshold: Rank,
    pub correction: i32,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScoringValues {
    pub nbw2_bye: i32,
    pub nbw2_absent: i32,
    pub mms2_bye: i32,
    pub mms2_absent: i32,
    /// genRoundDownNBWMMS: the cumulative bye + absence credit is rounded down to whole points.
    pub round_down: bool,
    /// genCountNotPlayedGamesAsHalfPoint: for SOS, an opponent's unplayed rounds count ½.
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairingSettings {
    pub avoid_dupl_game: i64,
    pub random: i64,
    pub deterministic_random: bool,
    pub balance_wb: i64,
    pub avoid_mixing_categories: i64,
    pub minimize_score_difference: i64,
    pub dudd_weight: i64,
    pub compensate_dudd: bool,
    pub dudd_upper: Mode3,
    pub dudd_lower: Mode3,
    pub maximize_seeding: i64,
    pub last_round_seed_system1: u32,
    pub seed_system1: Seeding,
    pub seed_system2: Seeding,
    pub additional_crit1: Criterion,
    pub additional_crit2: Criterion,
    pub minimize_handicap: i64,
    pub avoid_same_geo: i64,
    pub prefer_mms_diff_club: i32,
    pub prefer_mms_diff_country: i32,
    pub se_rank_threshold: Rank,
    pub se_nbwins_threshold_active: bool,
    pub se_bar_threshold_active: bool,
    pub nx1: f64,
    /// The later OpenGotha's rules (see docs/pairing.md): DU/DD across every group gap
    /// (`None`) or fewer than this many groups apart (3.51: 4); geography thresholds.
    pub dudd_group_span: Option<i32>,
    pub geo_thresholds: bool,
    /// Pairs that must never be paired (siblings, couples, ...), as player ids.
    pub forbidden_pairs: Vec<(PlayerId, PlayerId)>,
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

impl<'de> Deserialize<'de> for Criterion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Crit::parse(&s)
            .map(Criterion)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown criterion {s:?}")))
    }
}

/// Everything about a tournament that is not a player or a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub name: String,
    /// A short name without spaces (file names, OpenGotha's shortName).
    pub short_name: String,
    pub location: String,
    pub director: String,
    /// ISO dates, YYYY-MM-DD; empty when not set.
    pub begin_date: String,
    pub end_date: String,
    pub rounds: u32,
    pub board_size: u32,
    /// Komi in half points (7.5 → 15), for even games; handicap games use `handicap_komi2`.
    pub komi2: i32,
    /// Komi for handicap games, in half points (0.5 → 1 by default).
    pub handicap_komi2: i32,
    /// Rule set name as `score.*` knows it: japanese, chinese, aga, korean, new_zealand, ing,
    /// tromp_taylor.
    pub rules: String,
    pub time: TimeSystem,
    /// An online tournament (EGF class D).
    pub internet: bool,
    pub system: System,
    pub mcmahon: McMahon,
    pub handicap: HandicapPolicy,
    pub scoring: ScoringValues,
    /// Placement criteria, in order (OpenGotha's defaults for the system when created).
    pub placement: Vec<Criterion>,
    /// Lower rank limit of each category but the last (SwissCat; empty: one category).
    pub categories: Vec<Rank>,
    pub pairing: PairingSettings,
    /// Parameters read from an imported file that goswiss does not interpret (OpenGotha's
    /// display and publish options, …), kept so an export writes them back unchanged:
    /// element name → attribute → value.
    pub extra: BTreeMap<String, BTreeMap<String, String>>,
    /// OpenGotha's clubs groups: named sets of clubs (e.g. the clubs of one city) whose
    /// players are near neighbours for the geography criterion of pairing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clubs_groups: Vec<ClubsGroup>,
    /// OpenGotha's teams (team tournaments). goswiss neither pairs nor ranks teams; they are
    /// kept so an OpenGotha file keeps them through import and export.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<Team>,
}

/// A named set of clubs; club names compare case-insensitively, as OpenGotha's do.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClubsGroup {
    pub name: String,
    pub clubs: Vec<String>,
}

/// A team of a team tournament: who sits on which board in which round.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Team {
    /// OpenGotha's team number (1-based).
    pub number: u32,
    pub name: String,
    pub boards: Vec<TeamBoard>,
}

/// One seat of a team: `player` on board `board` (1-based) in round `round`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TeamBoard {
    pub round: RoundNumber,
    pub board: u32,
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
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::defaults(System::default())
    }
}

/// Registration status: preliminary players are listed but not paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Registration {
    Preliminary,
    #[default]
    Final,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Player {
    pub id: PlayerId,
    /// Surname.
    pub name: String,
    pub first_name: String,
    pub rank: Rank,
    /// EGF-scale rating (GoR); OpenGotha keeps one for every player.
    pub rating: i32,
    /// Where the rating came from ("EGF", "FFG", "AGA", "MAN", "INI", …).
    pub rating_origin: String,
    /// The grade the player declared ("3D", "2P"), when it differs from the rank.
    pub grade: String,
    /// Two-letter country code (upper case) or empty.
    pub country: String,
    pub club: String,
    pub egf_pin: String,
    pub ffg_licence: String,
    pub ffg_licence_status: String,
    pub aga_id: String,
    pub aga_expiration: String,
    /// Hand-set McMahon correction (super-bar +1/+2, or negative).
    pub mms_correction: i32,
    /// Rounds the player does not take part in (absent: scored with the absence values).
    pub skip: Vec<RoundNumber>,
    pub registration: Registration,
    /// Round after which the player withdrew (plays no later round); `None` while in.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
