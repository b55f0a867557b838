//! The event-sourced tournament: [`Tournament`] is a fold of [`Event`]s over a
//! [`TournamentData`]. Commands (`register_player`, `set_result`, `pair_round`, …) never
//! mutate: they check the request against the state and return the events it produces (or a
//! [`TournamentError`]); the caller makes the events durable, then [`Tournament::apply`]s them.
//! [`Tournament::replay`] rebuilds any past state from a prefix of the log.
//!
//! Rounds are paired one after the other: round r can be paired once rounds 1 … r−1 are, and
//! only the last paired round can be edited or unpaired. Results can be set and corrected in
//! any paired round.

use serde::{Deserialize, Serialize};

use super::error::TournamentError;
use super::model::{
    Game, MAX_EXTRA_BYTES, MAX_EXTRA_VALUE, MAX_RANK, MAX_ROUNDS, MIN_RANK, Outcome, Player,
    PlayerId, Record, RecordRef, Registration, Round, RoundNumber, Settings, THIS_EVENT,
    TournamentData,
};
use super::patch::{self, PatchOp};

/// Most players one tournament may register (bounds every per-round computation).
pub const MAX_PLAYERS: usize = 10_000;
pub use super::model::{MAX_FORBIDDEN_PAIRS, MAX_TEXT};
/// The event format written by this version (in [`Event::Created`]).
pub const FORMAT: u32 = 1;

type Result<T> = std::result::Result<T, TournamentError>;

/// Everything that can happen to a tournament. The serialized form is the store's event body:
/// variants and fields may be added (with serde defaults) but never renamed or removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Created {
        settings: Settings,
        /// Reserved for randomised pairing options; recorded so a replay is exact.
        #[serde(default)]
        seed: u64,
        /// The event format the log was written in ([`FORMAT`]).
        #[serde(default)]
        format: u32,
        /// SHA-256 (hex) of the director token, set by the RPC layer; the token itself is
        /// never stored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        director_token_sha256: Option<String>,
    },
    /// A settings change: `patch`, the members that changed as a JSON Patch over the previous
    /// settings' JSON ([`super::patch`]). Logs written before changes were stored as
    /// differences hold the whole settings after the change in `settings` instead.
    SettingsChanged {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        settings: Option<Settings>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        patch: Vec<PatchOp>,
    },
    PlayerRegistered {
        player: Player,
    },
    /// The whole player record after the change (participation and withdrawal included).
    PlayerUpdated {
        player: Player,
    },
    /// `after`: the last round the player plays; `None` reinstates a withdrawn player.
    PlayerWithdrawn {
        id: PlayerId,
        after: Option<RoundNumber>,
    },
    ParticipationSet {
        id: PlayerId,
        skip: Vec<RoundNumber>,
    },
    /// Only a player who never played or had a bye can be removed; the id is not reused.
    PlayerRemoved {
        id: PlayerId,
    },
    /// A round's games and byes, by the pairing (`manual` = false) or the director. When the
    /// round is already paired, this replaces it.
    RoundPaired {
        round: RoundNumber,
        games: Vec<Game>,
        byes: Vec<PlayerId>,
        #[serde(default)]
        manual: bool,
    },
    GameAdded {
        round: RoundNumber,
        game: Game,
    },
    GameRemoved {
        round: RoundNumber,
        table: u32,
    },
    /// Games rewritten by a swap of players (matched by table) and the round's byes after it.
    PlayersSwapped {
        round: RoundNumber,
        games: Vec<Game>,
        byes: Vec<PlayerId>,
    },
    /// The last round's pairing is withdrawn (its games, byes and any results).
    RoundUnpaired {
        round: RoundNumber,
    },
    ResultSet {
        round: RoundNumber,
        table: u32,
        outcome: Outcome,
        forfeit: bool,
        /// The game's record after the change when this event brings its text (a new
        /// record; in logs written before records were referenced, any record the game has
        /// after the change, kept or replaced). `None` and no `record_at`: no record.
        record: Option<Record>,
        /// The game keeps a record whose text an earlier event holds (a correction that keeps
        /// it, or sends the same text again): where its text and warnings are, so the text
        /// is stored once however often the result is corrected.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record_at: Option<RecordRef>,
        /// With `record_at`, when the same text was sent again and checked anew: its
        /// warnings (then `record_at.warnings_seq` is this event).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record_warnings: Option<Vec<String>>,
    },
    RoundPublished {
        round: RoundNumber,
        published: bool,
    },
    Archived {
        archived: bool,
    },
    /// A new director token (SHA-256, hex) replaces the previous one.
    DirectorTokenSet {
        director_token_sha256: String,
    },
}

impl Event {
    /// The variant's name (stored beside the body; also the notification's kind).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Created { .. } => "created",
            Event::SettingsChanged { .. } => "settings_changed",
            Event::PlayerRegistered { .. } => "player_registered",
            Event::PlayerUpdated { .. } => "player_updated",
            Event::PlayerWithdrawn { .. } => "player_withdrawn",
            Event::ParticipationSet { .. } => "participation_set",
            Event::PlayerRemoved { .. } => "player_removed",
            Event::RoundPaired { .. } => "round_paired",
            Event::GameAdded { .. } => "game_added",
            Event::GameRemoved { .. } => "game_removed",
            Event::PlayersSwapped { .. } => "players_swapped",
            Event::RoundUnpaired { .. } => "round_unpaired",
            Event::ResultSet { .. } => "result_set",
            Event::RoundPublished { .. } => "round_published",
            Event::Archived { .. } => "archived",
            Event::DirectorTokenSet { .. } => "director_token_set",
        }
    }

    /// The round the event is about, if any.
    pub fn round(&self) -> Option<RoundNumber> {
        match self {
            Event::RoundPaired { round, .. }
            | Event::GameAdded { round, .. }
            | Event::GameRemoved { round, .. }
            | Event::PlayersSwapped { round, .. }
            | Event::RoundUnpaired { round }
            | Event::ResultSet { round, .. }
            | Event::RoundPublished { round, .. } => Some(*round),
            _ => None,
        }
    }
}

/// A tournament's state: its data, the number of events folded into it (its revision) and
/// what the data does not hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tournament {
    pub data: TournamentData,
    pub revision: u64,
    pub seed: u64,
    pub archived: bool,
    /// The id the next registered player gets (ids are never reused).
    pub next_player_id: PlayerId,
    /// SHA-256 (hex) of the director token, if the tournament has one.
    #[serde(skip)]
    pub director_token: Option<String>,
}

fn invalid(message: impl Into<String>) -> TournamentError {
    TournamentError::Invalid(message.into())
}

fn check_text(what: &str, s: &str) -> Result<()> {
    if s.chars().count() > MAX_TEXT {
        return Err(invalid(format!(
            "{what}: {} characters, more than the limit of {MAX_TEXT}",
            s.chars().count()
        )));
    }
    if s.chars().any(|c| c.is_control() && c != '\t') {
        return Err(invalid(format!("{what}: contains control characters")));
    }
    Ok(())
}

/// Most clubs groups, clubs per group and teams a tournament holds.
pub const MAX_CLUBS_GROUPS: usize = 1_000;
pub const MAX_CLUBS_PER_GROUP: usize = 1_000;
pub const MAX_TEAMS: usize = MAX_PLAYERS;
/// OpenGotha's most members of a team (boards per round).
pub const MAX_TEAM_BOARDS: u32 = 10;

fn check_groups_and_teams(s: &Settings) -> Result<()> {
    if s.clubs_groups.len() > MAX_CLUBS_GROUPS {
        return Err(invalid(format!(
            "settings.clubs_groups: at most {MAX_CLUBS_GROUPS} groups"
        )));
    }
    let mut names = std::collections::HashSet::new();
    for g in &s.clubs_groups {
        check_text("settings.clubs_groups[].name", &g.name)?;
        if g.name.trim().is_empty() {
            return Err(invalid("settings.clubs_groups[].name: a group has no name"));
        }
        if !names.insert(g.name.as_str()) {
            return Err(invalid(format!(
                "settings.clubs_groups: two groups are named {:?}",
                g.name
            )));
        }
        if g.clubs.len() > MAX_CLUBS_PER_GROUP {
            return Err(invalid(format!(
                "settings.clubs_groups[].clubs: a group holds at most {MAX_CLUBS_PER_GROUP} clubs"
            )));
        }
        for c in &g.clubs {
            check_text("settings.clubs_groups[].clubs[]", c)?;
        }
    }
    if s.teams.len() > MAX_TEAMS {
        return Err(invalid(format!(
            "settings.teams: at most {MAX_TEAMS} teams"
        )));
    }
    let mut numbers = std::collections::HashSet::new();
    for t in &s.teams {
        check_text("settings.teams[].name", &t.name)?;
        if t.number == 0 || !numbers.insert(t.number) {
            return Err(invalid(format!(
                "settings.teams[].number: team numbers must be distinct and at least 1 ({} is not)",
                t.number
            )));
        }
        if t.boards.len() > (MAX_ROUNDS * MAX_TEAM_BOARDS) as usize {
            return Err(invalid(format!(
                "settings.teams[].boards: team {} has more seats than rounds × {MAX_TEAM_BOARDS} boards",
                t.number
            )));
        }
        let mut seats = std::collections::HashSet::new();
        for b in &t.boards {
            if !(1..=MAX_ROUNDS).contains(&b.round) || !(1..=MAX_TEAM_BOARDS).contains(&b.board) {
                return Err(invalid(format!(
                    "settings.teams[].boards: team {} has a seat in round {} board {} (rounds 1 … \
                     {MAX_ROUNDS}, boards 1 … {MAX_TEAM_BOARDS})",
                    t.number, b.round, b.board
                )));
            }
            if !seats.insert((b.round, b.board)) {
                return Err(invalid(format!(
                    "settings.teams[].boards: team {} seats two players on board {} of round {}",
                    t.number, b.board, b.round
                )));
            }
        }
    }
    Ok(())
}

fn check_rank(what: &str, r: i32) -> Result<()> {
    if !(MIN_RANK..=MAX_RANK).contains(&r) {
        return Err(invalid(format!(
            "{what}: {r} is out of range ({MIN_RANK} = 30k … {MAX_RANK} = 9d)"
        )));
    }
    Ok(())
}

/// At most the first 100 bytes of a client's `text` (on a character boundary), for messages.
fn short(text: &str) -> &str {
    let mut end = text.len().min(100);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `settings.extra`: element and attribute names are short texts, values at most
/// [`MAX_EXTRA_VALUE`] characters, the whole at most [`MAX_EXTRA_BYTES`] bytes.
fn check_extra(
    extra: &std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
) -> Result<()> {
    if extra.len() > 200 {
        return Err(invalid("settings.extra: at most 200 elements"));
    }
    let mut bytes = 0;
    for (element, attributes) in extra {
        let at = format!("settings.extra.{}", short(element));
        check_text(&format!("{at} (element name)"), element)?;
        if attributes.len() > 200 {
            return Err(invalid(format!("{at}: at most 200 attributes per element")));
        }
        bytes += element.len();
        for (name, value) in attributes {
            let at = format!("{at}.{}", short(name));
            check_text(&format!("{at} (attribute name)"), name)?;
            let chars = value.chars().count();
            if chars > MAX_EXTRA_VALUE {
                return Err(invalid(format!(
                    "{at}: {chars} characters, more than the limit of {MAX_EXTRA_VALUE}"
                )));
            }
            bytes += name.len() + value.len();
        }
    }
    if bytes > MAX_EXTRA_BYTES {
        return Err(invalid(format!(
            "settings.extra: {bytes} bytes of names and values, more than the limit of \
             {MAX_EXTRA_BYTES}"
        )));
    }
    Ok(())
}

/// Checks settings on their own (the engine checks them against the state separately).
pub fn check_settings(s: &Settings) -> Result<()> {
    for (what, v) in [
        ("settings.name", &s.name),
        ("settings.short_name", &s.short_name),
        ("settings.location", &s.location),
        ("settings.director", &s.director),
        ("settings.begin_date", &s.begin_date),
        ("settings.end_date", &s.end_date),
        ("settings.rules", &s.rules),
        ("settings.time.text", &s.time.text),
    ] {
        check_text(what, v)?;
    }
    // The EGF table writes it as is into PC[country,location].
    if !s.country.is_empty()
        && (s.country.len() != 2 || !s.country.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        return Err(invalid(format!(
            "settings.country: must be a two-letter code (FR) or empty, got {:?}",
            s.country
        )));
    }
    if !(1..=MAX_ROUNDS).contains(&s.rounds) {
        return Err(invalid(format!(
            "settings.rounds: must be 1 … {MAX_ROUNDS}, got {}",
            s.rounds
        )));
    }
    if !(2..=25).contains(&s.board_size) {
        return Err(invalid(format!(
            "settings.board_size: must be 2 … 25, got {}",
            s.board_size
        )));
    }
    for (what, k) in [
        ("settings.komi2", s.komi2),
        ("settings.handicap_komi2", s.handicap_komi2),
    ] {
        if !(-200..=200).contains(&k) {
            return Err(invalid(format!(
                "{what}: komi in half points must be -200 … 200, got {k}"
            )));
        }
    }
    if crate::go::Preset::from_ru(&s.rules).is_none() {
        return Err(invalid(format!(
            "settings.rules: unknown rules {:?}: japanese, chinese, korean, aga, new_zealand, ing or \
             tromp_taylor",
            s.rules
        )));
    }
    check_rank("settings.mcmahon.bar", s.mcmahon.bar)?;
    check_rank("settings.mcmahon.floor", s.mcmahon.floor)?;
    check_rank("settings.mcmahon.zero", s.mcmahon.zero)?;
    if s.mcmahon.bar < s.mcmahon.floor {
        return Err(invalid(
            "settings.mcmahon.bar: must not be below settings.mcmahon.floor",
        ));
    }
    check_rank(
        "settings.handicap.no_handicap_threshold",
        s.handicap.no_handicap_threshold,
    )?;
    if !(-1..=3).contains(&s.handicap.correction) {
        return Err(invalid(format!(
            "settings.handicap.correction: must be -1 … 3, got {}",
            s.handicap.correction
        )));
    }
    if !(0..=9).contains(&s.handicap.ceiling) {
        return Err(invalid(format!(
            "settings.handicap.ceiling: must be 0 … 9, got {}",
            s.handicap.ceiling
        )));
    }
    let v = &s.scoring;
    for (what, x) in [
        ("settings.scoring.nbw2_bye", v.nbw2_bye),
        ("settings.scoring.nbw2_absent", v.nbw2_absent),
        ("settings.scoring.mms2_bye", v.mms2_bye),
        ("settings.scoring.mms2_absent", v.mms2_absent),
    ] {
        if !(0..=2).contains(&x) {
            return Err(invalid(format!(
                "{what}: half points, must be 0, 1 or 2, got {x}"
            )));
        }
    }
    if s.placement.len() > 12 {
        return Err(invalid("settings.placement: at most 12 criteria"));
    }
    if s.categories.len() > 20 {
        return Err(invalid("settings.categories: at most 20 limits"));
    }
    for (k, &r) in s.categories.iter().enumerate() {
        check_rank("settings.categories[]", r)?;
        if k > 0 && r >= s.categories[k - 1] {
            return Err(invalid(
                "settings.categories: must list lower rank limits from the strongest down",
            ));
        }
    }
    let p = &s.pairing;
    for (what, w) in [
        ("avoid_dupl_game", p.avoid_dupl_game),
        ("random", p.random),
        ("balance_wb", p.balance_wb),
        ("avoid_mixing_categories", p.avoid_mixing_categories),
        ("minimize_score_difference", p.minimize_score_difference),
        ("dudd_weight", p.dudd_weight),
        ("maximize_seeding", p.maximize_seeding),
        ("minimize_handicap", p.minimize_handicap),
        ("avoid_same_geo", p.avoid_same_geo),
    ] {
        if !(0..=1_000_000_000_000_000).contains(&w) {
            return Err(invalid(format!(
                "settings.pairing.{what}: must be 0 … 10^18, got {w}"
            )));
        }
    }
    if !p.nx1.is_finite() || !(0.0..=10.0).contains(&p.nx1) {
        return Err(invalid("settings.pairing.nx1: must be a number in 0 … 10"));
    }
    if p.dudd_group_span.is_some_and(|g| g < 1) {
        return Err(invalid(
            "settings.pairing.dudd_group_span: must be at least 1",
        ));
    }
    if p.last_round_seed_system1 > MAX_ROUNDS {
        return Err(invalid(format!(
            "settings.pairing.last_round_seed_system1: must be at most {MAX_ROUNDS}"
        )));
    }
    for (what, x) in [
        ("prefer_mms_diff_club", p.prefer_mms_diff_club),
        ("prefer_mms_diff_country", p.prefer_mms_diff_country),
    ] {
        if !(0..=100).contains(&x) {
            return Err(invalid(format!("settings.pairing.{what}: must be 0 … 100")));
        }
    }
    check_rank("settings.pairing.se_rank_threshold", p.se_rank_threshold)?;
    if p.forbidden_pairs.len() > MAX_FORBIDDEN_PAIRS {
        return Err(invalid(format!(
            "settings.pairing.forbidden_pairs: at most {MAX_FORBIDDEN_PAIRS} pairs"
        )));
    }
    if p.forbidden_pairs.iter().any(|(a, b)| a == b) {
        return Err(invalid(
            "settings.pairing.forbidden_pairs: a pair names the same player twice",
        ));
    }
    check_extra(&s.extra)?;
    check_groups_and_teams(s)?;
    Ok(())
}

/// Checks one player's own fields (not against the other players).
pub fn check_player(p: &Player) -> Result<()> {
    if p.name.trim().is_empty() {
        return Err(invalid("player.name: a player needs a name"));
    }
    for (what, v) in [
        ("player.name", &p.name),
        ("player.first_name", &p.first_name),
        ("player.rating_origin", &p.rating_origin),
        ("player.grade", &p.grade),
        ("player.country", &p.country),
        ("player.club", &p.club),
        ("player.egf_pin", &p.egf_pin),
        ("player.ffg_licence", &p.ffg_licence),
        ("player.ffg_licence_status", &p.ffg_licence_status),
        ("player.aga_id", &p.aga_id),
        ("player.aga_expiration", &p.aga_expiration),
    ] {
        check_text(what, v)?;
    }
    check_rank("player.rank", p.rank)?;
    if !(-1000..=4000).contains(&p.rating) {
        return Err(invalid(format!(
            "player.rating: must be -1000 … 4000, got {}",
            p.rating
        )));
    }
    if !(-1..=2).contains(&p.mms_correction) {
        return Err(invalid(format!(
            "player.mms_correction: must be -1 … 2 (OpenGotha's range), got {}",
            p.mms_correction
        )));
    }
    if p.skip.len() > MAX_ROUNDS as usize || p.skip.iter().any(|r| !(1..=MAX_ROUNDS).contains(r)) {
        return Err(invalid(format!(
            "player.skip: lists rounds 1 … {MAX_ROUNDS}, each once"
        )));
    }
    if p.withdrawn_after.is_some_and(|r| r > MAX_ROUNDS) {
        return Err(invalid(format!(
            "player.withdrawn_after: must be at most {MAX_ROUNDS}"
        )));
    }
    Ok(())
}

/// Rounds sorted, each once.
fn normalise_rounds(mut rounds: Vec<RoundNumber>) -> Vec<RoundNumber> {
    rounds.sort_unstable();
    rounds.dedup();
    rounds
}

/// What a player may do in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    Available,
    Preliminary,
    Absent,
    Withdrawn,
}

impl Availability {
    pub fn why(self) -> &'static str {
        match self {
            Availability::Available => "available",
            Availability::Preliminary => "the registration is preliminary",
            Availability::Absent => "the player skips this round",
            Availability::Withdrawn => "the player has withdrawn",
        }
    }
}

impl Tournament {
    /// The first event of a new tournament.
    pub fn create(settings: Settings, seed: u64) -> Result<Event> {
        check_settings(&settings)?;
        if !settings.pairing.forbidden_pairs.is_empty() {
            return Err(invalid(
                "pairing.forbidden_pairs must be empty at creation (no players yet)",
            ));
        }
        Ok(Event::Created {
            settings,
            seed,
            format: FORMAT,
            director_token_sha256: None,
        })
    }

    fn from_created(event: &Event) -> Result<Tournament> {
        match event {
            Event::Created {
                settings,
                seed,
                director_token_sha256,
                ..
            } => Ok(Tournament {
                data: TournamentData {
                    settings: settings.clone(),
                    players: Vec::new(),
                    rounds: Vec::new(),
                },
                revision: 1,
                seed: *seed,
                archived: false,
                next_player_id: 1,
                director_token: director_token_sha256.clone(),
            }),
            other => Err(TournamentError::Corrupt(format!(
                "the log starts with {} instead of created",
                other.kind()
            ))),
        }
    }

    /// Rebuilds the state from a log (or any prefix of one that starts with `created`).
    pub fn replay(events: &[Event]) -> Result<Tournament> {
        let (first, rest) = events
            .split_first()
            .ok_or_else(|| TournamentError::Corrupt("empty log".into()))?;
        let mut t = Tournament::from_created(first)?;
        for e in rest {
            t.apply(e)?;
        }
        Ok(t)
    }

    pub fn settings(&self) -> &Settings {
        &self.data.settings
    }

    /// Rounds paired so far (the last one is the "current" round).
    pub fn paired_rounds(&self) -> RoundNumber {
        self.data.rounds.len() as RoundNumber
    }

    pub fn player(&self, id: PlayerId) -> Result<&Player> {
        self.data
            .player(id)
            .ok_or(TournamentError::UnknownPlayer(id))
    }

    fn player_index(&self, id: PlayerId) -> Result<usize> {
        self.data
            .players
            .binary_search_by_key(&id, |p| p.id)
            .map_err(|_| TournamentError::UnknownPlayer(id))
    }

    fn writable(&self) -> Result<()> {
        if self.archived {
            Err(TournamentError::Archived)
        } else {
            Ok(())
        }
    }

    /// A round that exists in the settings.
    pub fn check_round(&self, round: RoundNumber) -> Result<()> {
        let rounds = self.data.settings.rounds;
        if round == 0 || round > rounds {
            return Err(TournamentError::NoSuchRound { round, rounds });
        }
        Ok(())
    }

    /// A round already paired.
    pub fn paired_round(&self, round: RoundNumber) -> Result<&Round> {
        self.check_round(round)?;
        self.data.round(round).ok_or_else(|| {
            TournamentError::NotCurrentRound(format!(
                "round {round} is not paired yet ({} paired so far)",
                self.paired_rounds()
            ))
        })
    }

    /// The last paired round, which is the only one that can be edited.
    fn current_round(&self, round: RoundNumber) -> Result<&Round> {
        let r = self.paired_round(round)?;
        if round != self.paired_rounds() {
            return Err(TournamentError::NotCurrentRound(format!(
                "only the last paired round ({}) can be edited, not round {round}",
                self.paired_rounds()
            )));
        }
        Ok(r)
    }

    pub fn availability(&self, p: &Player, round: RoundNumber) -> Availability {
        if p.registration == Registration::Preliminary {
            Availability::Preliminary
        } else if p.withdrawn_after.is_some_and(|w| round > w) {
            Availability::Withdrawn
        } else if p.skip.contains(&round) {
            Availability::Absent
        } else {
            Availability::Available
        }
    }

    fn require_available(&self, id: PlayerId, round: RoundNumber) -> Result<()> {
        let p = self.player(id)?;
        match self.availability(p, round) {
            Availability::Available => Ok(()),
            a => Err(TournamentError::PlayerUnavailable {
                player: id,
                round,
                why: a.why(),
            }),
        }
    }

    /// Rounds in which the player has a game or a bye.
    pub fn rounds_played_by(&self, id: PlayerId) -> Vec<RoundNumber> {
        (1..=self.paired_rounds())
            .filter(|&r| {
                self.data
                    .round(r)
                    .is_some_and(|rd| rd.byes.contains(&id) || rd.games.iter().any(|g| g.has(id)))
            })
            .collect()
    }

    // ---- settings -------------------------------------------------------------------------

    pub fn change_settings(&self, settings: Settings) -> Result<Vec<Event>> {
        self.writable()?;
        check_settings(&settings)?;
        if settings.rounds < self.paired_rounds() {
            return Err(invalid(format!(
                "rounds cannot go below the {} rounds already paired",
                self.paired_rounds()
            )));
        }
        for &(a, b) in &settings.pairing.forbidden_pairs {
            self.player(a)?;
            self.player(b)?;
        }
        if settings == self.data.settings {
            return Ok(vec![]);
        }
        Ok(vec![Event::settings_changed(
            &self.data.settings,
            &settings,
        )?])
    }

    // ---- players --------------------------------------------------------------------------

    fn check_unique_key(&self, p: &Player) -> Result<()> {
        let key = p.opengotha_key();
        if self
            .data
            .players
            .iter()
            .any(|q| q.id != p.id && q.opengotha_key_chars().eq(key.chars()))
        {
            return Err(TournamentError::DuplicatePlayer(format!(
                "{} {}",
                p.name, p.first_name
            )));
        }
        Ok(())
    }

    /// Registers a player (its `id` is assigned here). A late entry (rounds already paired)
    /// skips the paired rounds it is not in, so they count as absences, not as lost rounds.
    pub fn register_player(&self, mut player: Player) -> Result<(Vec<Event>, PlayerId)> {
        self.writable()?;
        if self.data.players.len() >= MAX_PLAYERS {
            return Err(TournamentError::TooManyPlayers(MAX_PLAYERS));
        }
        player.id = self.next_player_id;
        check_player(&player)?;
        self.check_unique_key(&player)?;
        let mut skip = player.skip.clone();
        skip.extend(1..=self.paired_rounds());
        player.skip = normalise_rounds(skip);
        if player.withdrawn_after.is_some() {
            return Err(invalid("a new player cannot be withdrawn"));
        }
        let id = player.id;
        Ok((vec![Event::PlayerRegistered { player }], id))
    }

    /// Replaces a player's record; participation and withdrawal changes go through the same
    /// checks as [`Self::set_participation`] and [`Self::withdraw_player`].
    pub fn update_player(&self, mut player: Player) -> Result<Vec<Event>> {
        self.writable()?;
        let old = self.player(player.id)?;
        check_player(&player)?;
        self.check_unique_key(&player)?;
        player.skip = normalise_rounds(player.skip);
        self.check_participation(&player)?;
        if player == *old {
            return Ok(vec![]);
        }
        Ok(vec![Event::PlayerUpdated { player }])
    }

    /// Whether `player`'s skip list, withdrawal and registration agree with the rounds the
    /// player is already paired in.
    fn check_participation(&self, player: &Player) -> Result<()> {
        for r in self.rounds_played_by(player.id) {
            let what = if player.skip.contains(&r) {
                "cannot skip a round they are paired in"
            } else if player.withdrawn_after.is_some_and(|w| r > w) {
                "cannot withdraw before a round they are paired in"
            } else if player.registration == Registration::Preliminary {
                "cannot become preliminary"
            } else {
                continue;
            };
            return Err(TournamentError::PlayerPaired {
                player: player.id,
                round: r,
                what,
            });
        }
        Ok(())
    }

    /// Sets the rounds a player skips (absent rounds, scored with the absence values).
    pub fn set_participation(&self, id: PlayerId, skip: Vec<RoundNumber>) -> Result<Vec<Event>> {
        self.writable()?;
        let mut p = self.player(id)?.clone();
        p.skip = normalise_rounds(skip);
        check_player(&p)?;
        self.check_participation(&p)?;
        Ok(vec![Event::ParticipationSet { id, skip: p.skip }])
    }

    /// Withdraws a player after round `after` (default: the last paired round), or reinstates
    /// them (`reinstate`).
    pub fn withdraw_player(
        &self,
        id: PlayerId,
        after: Option<RoundNumber>,
        reinstate: bool,
    ) -> Result<Vec<Event>> {
        self.writable()?;
        let mut p = self.player(id)?.clone();
        let after = if reinstate {
            None
        } else {
            Some(after.unwrap_or(self.paired_rounds()))
        };
        if after.is_some_and(|a| a > self.data.settings.rounds) {
            return Err(invalid(format!(
                "withdrawal after round {} is past the last round ({})",
                after.unwrap_or(0),
                self.data.settings.rounds
            )));
        }
        p.withdrawn_after = after;
        self.check_participation(&p)?;
        Ok(vec![Event::PlayerWithdrawn { id, after }])
    }

    pub fn remove_player(&self, id: PlayerId) -> Result<Vec<Event>> {
        self.writable()?;
        self.player(id)?;
        if let Some(&r) = self.rounds_played_by(id).first() {
            return Err(TournamentError::PlayerPaired {
                player: id,
                round: r,
                what: "a player who played cannot be removed (withdraw them instead)",
            });
        }
        if self
            .data
            .settings
            .pairing
            .forbidden_pairs
            .iter()
            .any(|&(a, b)| a == id || b == id)
        {
            return Err(invalid(format!(
                "player {id} is in pairing.forbidden_pairs: remove the pair first"
            )));
        }
        Ok(vec![Event::PlayerRemoved { id }])
    }

    // ---- rounds ---------------------------------------------------------------------------

    /// Checks a whole round's games and byes (for a manual pairing): every player exists,
    /// may play the round, and appears once.
    pub(crate) fn check_round_content(
        &self,
        round: RoundNumber,
        games: &[Game],
        byes: &[PlayerId],
    ) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        let mut tables = std::collections::HashSet::new();
        for g in games {
            if g.white == g.black {
                return Err(TournamentError::PlayerTwice {
                    player: g.white,
                    round,
                });
            }
            if g.table == 0 || !tables.insert(g.table) {
                return Err(invalid(format!(
                    "table numbers must be distinct and from 1 (table {})",
                    g.table
                )));
            }
            if g.handicap > 9 {
                return Err(invalid(format!(
                    "handicap must be 0 … 9, got {}",
                    g.handicap
                )));
            }
            if !(-200..=200).contains(&g.komi2) {
                return Err(invalid("komi2 must be -200 … 200"));
            }
        }
        for id in games
            .iter()
            .flat_map(|g| [g.white, g.black])
            .chain(byes.iter().copied())
        {
            self.require_available(id, round)?;
            if !seen.insert(id) {
                return Err(TournamentError::PlayerTwice { player: id, round });
            }
        }
        Ok(())
    }

    /// Sets a whole round by hand: the next round to pair, or the last paired round when it
    /// has no result yet.
    pub fn set_round(
        &self,
        round: RoundNumber,
        games: Vec<Game>,
        byes: Vec<PlayerId>,
    ) -> Result<Vec<Event>> {
        self.writable()?;
        self.check_round(round)?;
        let paired = self.paired_rounds();
        if round == paired {
            if self.data.round(round).is_some_and(round_has_results) {
                return Err(TournamentError::RoundHasResults(round));
            }
        } else if round != paired + 1 {
            return Err(TournamentError::NotCurrentRound(format!(
                "round {round} cannot be set: the next round to pair is {}",
                paired + 1
            )));
        }
        self.check_round_content(round, &games, &byes)?;
        Ok(vec![Event::RoundPaired {
            round,
            games,
            byes: normalise_byes(byes),
            manual: true,
        }])
    }

    /// Adds one game to the last paired round.
    pub fn add_game(&self, round: RoundNumber, mut game: Game) -> Result<Vec<Event>> {
        self.writable()?;
        let r = self.current_round(round)?;
        self.player(game.white)?;
        self.player(game.black)?;
        for id in [game.white, game.black] {
            if r.byes.contains(&id) || r.games.iter().any(|g| g.has(id)) {
                return Err(TournamentError::AlreadyPaired { player: id, round });
            }
        }
        if game.table == 0 {
            game.table = r.games.iter().map(|g| g.table).max().unwrap_or(0) + 1;
        } else if r.games.iter().any(|g| g.table == game.table) {
            return Err(invalid(format!(
                "table {} of round {round} is taken",
                game.table
            )));
        }
        game.outcome = Outcome::Unknown;
        game.forfeit = false;
        game.record = None;
        self.check_round_content(round, std::slice::from_ref(&game), &[])?;
        Ok(vec![Event::GameAdded { round, game }])
    }

    /// Removes one game (without a result) from the last paired round.
    pub fn remove_game(&self, round: RoundNumber, table: u32) -> Result<Vec<Event>> {
        self.writable()?;
        let r = self.current_round(round)?;
        let g = r
            .games
            .iter()
            .find(|g| g.table == table)
            .ok_or(TournamentError::NoSuchGame { round, table })?;
        if g.outcome != Outcome::Unknown {
            return Err(TournamentError::GameHasResult { round, table });
        }
        Ok(vec![Event::GameRemoved { round, table }])
    }

    /// Withdraws the last round's pairing. Refused while it has results, unless `force`.
    pub fn unpair_round(&self, round: RoundNumber, force: bool) -> Result<Vec<Event>> {
        self.writable()?;
        let r = self.current_round(round)?;
        if !force && round_has_results(r) {
            return Err(TournamentError::RoundHasResults(round));
        }
        Ok(vec![Event::RoundUnpaired { round }])
    }

    pub fn publish_round(&self, round: RoundNumber, published: bool) -> Result<Vec<Event>> {
        self.writable()?;
        let r = self.paired_round(round)?;
        if r.published == published {
            return Ok(vec![]);
        }
        Ok(vec![Event::RoundPublished { round, published }])
    }

    pub fn archive(&self, archived: bool) -> Result<Vec<Event>> {
        if self.archived == archived {
            return Ok(vec![]);
        }
        Ok(vec![Event::Archived { archived }])
    }

    /// The game at `table` of a paired round.
    pub fn game(&self, round: RoundNumber, table: u32) -> Result<&Game> {
        self.paired_round(round)?
            .games
            .iter()
            .find(|g| g.table == table)
            .ok_or(TournamentError::NoSuchGame { round, table })
    }

    // ---- folding --------------------------------------------------------------------------

    fn round_mut(&mut self, round: RoundNumber) -> Result<&mut Round> {
        round
            .checked_sub(1)
            .and_then(|i| self.data.rounds.get_mut(i as usize))
            .ok_or_else(|| TournamentError::Corrupt(format!("round {round} is not paired")))
    }

    fn player_mut(&mut self, id: PlayerId) -> Result<&mut Player> {
        let i = self
            .player_index(id)
            .map_err(|_| TournamentError::Corrupt(format!("no player {id}")))?;
        Ok(&mut self.data.players[i])
    }

    /// Folds one event into the state. Events come from this engine's commands (or a stored
    /// log of them), so a failure here means a corrupt log.
    pub fn apply(&mut self, event: &Event) -> Result<()> {
        match event {
            Event::Created { .. } => {
                return Err(TournamentError::Corrupt(
                    "a second created event".to_string(),
                ));
            }
            Event::SettingsChanged {
                settings: Some(settings),
                ..
            } => self.data.settings = settings.clone(),
            Event::SettingsChanged {
                settings: None,
                patch,
            } => self.data.settings = patched(&self.data.settings, patch)?,
            Event::PlayerRegistered { player } => {
                if player.id < self.next_player_id {
                    return Err(TournamentError::Corrupt(format!(
                        "player id {} registered out of order",
                        player.id
                    )));
                }
                self.next_player_id = player.id + 1;
                // Ids grow, so pushing keeps the list sorted by id.
                self.data.players.push(player.clone());
            }
            Event::PlayerUpdated { player } => *self.player_mut(player.id)? = player.clone(),
            Event::PlayerWithdrawn { id, after } => self.player_mut(*id)?.withdrawn_after = *after,
            Event::ParticipationSet { id, skip } => self.player_mut(*id)?.skip = skip.clone(),
            Event::PlayerRemoved { id } => {
                let i = self
                    .player_index(*id)
                    .map_err(|_| TournamentError::Corrupt(format!("no player {id}")))?;
                self.data.players.remove(i);
            }
            Event::RoundPaired {
                round, games, byes, ..
            } => {
                let paired = self.paired_rounds();
                let seq = self.revision;
                let new = Round {
                    games: games.iter().map(|g| held_here(g, seq)).collect(),
                    byes: byes.clone(),
                    published: false,
                };
                if *round == paired + 1 {
                    self.data.rounds.push(new);
                } else if *round == paired && paired > 0 {
                    *self.round_mut(*round)? = new;
                } else {
                    return Err(TournamentError::Corrupt(format!(
                        "round {round} paired after {paired} rounds"
                    )));
                }
            }
            Event::GameAdded { round, game } => {
                let seq = self.revision;
                let r = self.round_mut(*round)?;
                r.games.push(held_here(game, seq));
                r.games.sort_by_key(|g| g.table);
            }
            Event::GameRemoved { round, table } => {
                let r = self.round_mut(*round)?;
                r.games.retain(|g| g.table != *table);
            }
            Event::PlayersSwapped { round, games, byes } => {
                let seq = self.revision;
                let r = self.round_mut(*round)?;
                for g in games {
                    let slot = r
                        .games
                        .iter_mut()
                        .find(|x| x.table == g.table)
                        .ok_or_else(|| TournamentError::Corrupt(format!("no table {}", g.table)))?;
                    *slot = held_here(g, seq);
                }
                r.byes = byes.clone();
            }
            Event::RoundUnpaired { round } => {
                if *round != self.paired_rounds() || *round == 0 {
                    return Err(TournamentError::Corrupt(format!(
                        "unpairing round {round}, not the last"
                    )));
                }
                self.data.rounds.pop();
            }
            Event::ResultSet {
                round,
                table,
                outcome,
                forfeit,
                record,
                record_at,
                ..
            } => {
                let seq = self.revision;
                let r = self.round_mut(*round)?;
                let g = r
                    .games
                    .iter_mut()
                    .find(|g| g.table == *table)
                    .ok_or_else(|| TournamentError::Corrupt(format!("no table {table}")))?;
                g.outcome = *outcome;
                g.forfeit = *forfeit;
                // The state keeps where the record is, never its text.
                g.record = match (record, record_at) {
                    (Some(whole), _) => Some(RecordRef::held_by(seq, whole)),
                    (None, Some(at)) => Some(at.clone()),
                    (None, None) => None,
                };
            }
            Event::RoundPublished { round, published } => {
                self.round_mut(*round)?.published = *published;
            }
            Event::Archived { archived } => self.archived = *archived,
            Event::DirectorTokenSet {
                director_token_sha256,
            } => self.director_token = Some(director_token_sha256.clone()),
        }
        self.revision += 1;
        Ok(())
    }
}

/// `game` as the state keeps it once event `seq` carrying it is folded: a record the event
/// holds whole (an event written before records were referenced) is referred to there.
fn held_here(game: &Game, seq: u64) -> Game {
    let mut g = game.clone();
    if let Some(r) = &mut g.record {
        if r.text_seq == THIS_EVENT {
            r.text_seq = seq;
        }
        if r.warnings_seq == THIS_EVENT {
            r.warnings_seq = seq;
        }
    }
    g
}

/// `settings` with a stored difference applied.
fn patched(settings: &Settings, ops: &[PatchOp]) -> Result<Settings> {
    let corrupt = |e: String| TournamentError::Corrupt(format!("settings_changed: {e}"));
    let mut doc = serde_json::to_value(settings).map_err(|e| corrupt(e.to_string()))?;
    patch::apply(&mut doc, ops).map_err(corrupt)?;
    serde_json::from_value(doc).map_err(|e| corrupt(e.to_string()))
}

impl Event {
    /// This event as live subscribers get it once it is event `seq` of the log: a record's
    /// text (up to a megabyte) replaced by where it is in the log, so that changes waiting
    /// for slow subscribers hold no records.
    pub fn without_record_text(self, seq: u64) -> Event {
        match self {
            Event::ResultSet {
                round,
                table,
                outcome,
                forfeit,
                record: Some(whole),
                ..
            } => Event::ResultSet {
                round,
                table,
                outcome,
                forfeit,
                record: None,
                record_at: Some(RecordRef::held_by(seq, &whole)),
                record_warnings: None,
            },
            e => e,
        }
    }

    /// The event that changes `old` settings into `new`: the difference only.
    pub fn settings_changed(old: &Settings, new: &Settings) -> Result<Event> {
        let json = |s: &Settings| {
            serde_json::to_value(s).map_err(|e| TournamentError::Corrupt(e.to_string()))
        };
        Ok(Event::SettingsChanged {
            settings: None,
            patch: patch::diff(&json(old)?, &json(new)?),
        })
    }
}

/// Whether any game of the round has a result.
pub fn round_has_results(r: &Round) -> bool {
    r.games.iter().any(|g| g.outcome != Outcome::Unknown)
}

fn normalise_byes(mut byes: Vec<PlayerId>) -> Vec<PlayerId> {
    byes.sort_unstable();
    byes
}

/// Reads a result code: goswiss's names, OpenGotha's XML codes and display strings, pairgoth's
/// letters and AGA's. A trailing `!` (OpenGotha's display) or `_BYDEF` marks a forfeit.
/// Returns the outcome and whether it is by forfeit.
pub fn parse_result_code(code: &str) -> Result<(Outcome, bool)> {
    let raw = code.trim();
    let unknown = || TournamentError::UnknownResult(raw.chars().take(40).collect());
    let mut s = raw.to_ascii_lowercase().replace(['-', ' '], "_");
    let mut forfeit = false;
    for suffix in ["!", "_bydef", "_forfeit", "(forfeit)", "_by_default"] {
        if let Some(t) = s.strip_suffix(suffix) {
            s = t.trim_end_matches('_').to_string();
            forfeit = true;
        }
    }
    let s = s.strip_prefix("result_").unwrap_or(&s).to_string();
    let outcome = match s.as_str() {
        "?" | "unknown" | "" | "none" => Outcome::Unknown,
        "w+" | "w" | "white" | "whitewins" | "white_wins" | "1_0" => Outcome::WhiteWins,
        "b+" | "b" | "black" | "blackwins" | "black_wins" | "0_1" => Outcome::BlackWins,
        "jigo" | "=" | "draw" | "equal" | "½_½" | "0.5_0.5" => Outcome::Jigo,
        "both_win" | "bothwin" | "#" | "1_1" => Outcome::BothWin,
        "both_lose" | "bothlose" | "bothloose" | "0" | "0_0" => Outcome::BothLose,
        // SGF-style results with a reason or margin: "W+R", "B+3.5", "W+T", "W+F".
        x if x.starts_with("w+") => {
            if x.ends_with("+f") || x.ends_with("+forfeit") {
                forfeit = true;
            }
            Outcome::WhiteWins
        }
        x if x.starts_with("b+") => {
            if x.ends_with("+f") || x.ends_with("+forfeit") {
                forfeit = true;
            }
            Outcome::BlackWins
        }
        _ => return Err(unknown()),
    };
    if forfeit && outcome == Outcome::Unknown {
        return Err(unknown());
    }
    Ok((outcome, forfeit))
}

/// The short code of an outcome, as `result.set` takes it back.
pub fn result_code(outcome: Outcome, forfeit: bool) -> String {
    let base = match outcome {
        Outcome::Unknown => "?",
        Outcome::WhiteWins => "W+",
        Outcome::BlackWins => "B+",
        Outcome::Jigo => "jigo",
        Outcome::BothWin => "both_win",
        Outcome::BothLose => "both_lose",
    };
    if forfeit {
        format!("{base}!")
    } else {
        base.to_string()
    }
}
