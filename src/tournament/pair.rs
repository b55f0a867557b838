//! Pairing a round from the tournament's own state with OpenGotha 3.51's weight
//! (`pairing::opengotha`): the settings become OpenGotha's parameters, the paired rounds its
//! history, and the result its games — colours and handicap as OpenGotha's `gameBetween`
//! gives them, the bye as its `chooseAByePlayer` chooses it, tables numbered the way its
//! pairing frame renumbers new games. Also the per-criterion explanation of any pair and the
//! manual swap, which re-derives colours and handicap like a fresh pairing.

use std::cmp::Ordering;

use serde::Serialize;

use super::engine::{Event, Tournament};
use super::error::TournamentError;
use super::model::{Game, Outcome, PlayerId, RoundNumber, Settings};
use crate::pairing::opengotha::{self as og, Crit};
use crate::pairing::{SolveError, SolveOptions};

type Result<T> = std::result::Result<T, TournamentError>;

/// OpenGotha's parameters for these settings.
pub fn og_params(s: &Settings) -> og::Params {
    let mut p = og::Params::defaults(s.system.opengotha(), s.rounds as usize);
    p.mm_floor = s.mcmahon.floor;
    p.mm_bar = s.mcmahon.bar;
    p.mm_zero = s.mcmahon.zero;
    p.nbw2_bye = s.scoring.nbw2_bye;
    p.nbw2_absent = s.scoring.nbw2_absent;
    p.mms2_bye = s.scoring.mms2_bye;
    p.mms2_absent = s.scoring.mms2_absent;
    p.round_down = s.scoring.round_down;
    p.category_limits = s.categories.clone();
    p.criteria = s.placement.iter().map(|c| c.0).collect();
    p.hd_based_on_mms = s.handicap.based_on_mms;
    p.hd_no_hd_rank_threshold = s.handicap.no_handicap_threshold;
    p.hd_correction = s.handicap.correction;
    p.hd_ceiling = s.handicap.ceiling;
    let q = &s.pairing;
    p.nx1 = q.nx1;
    p.avoid_dupl_game = q.avoid_dupl_game;
    p.random = q.random;
    p.balance_wb = q.balance_wb;
    p.avoid_mixing_categories = q.avoid_mixing_categories;
    p.minimize_score_difference = q.minimize_score_difference;
    p.dudd_weight = q.dudd_weight;
    p.compensate_dudd = q.compensate_dudd;
    p.dudd_group_span = q.dudd_group_span;
    p.geo_thresholds = q.geo_thresholds;
    p.dudd_upper = q.dudd_upper.into();
    p.dudd_lower = q.dudd_lower.into();
    p.maximize_seeding = q.maximize_seeding;
    p.last_round_seed_system1 = q.last_round_seed_system1 as usize;
    p.seed_system1 = q.seed_system1.into();
    p.seed_system2 = q.seed_system2.into();
    p.additional_crit1 = q.additional_crit1.0;
    p.additional_crit2 = q.additional_crit2.0;
    p.minimize_handicap = q.minimize_handicap;
    p.avoid_same_geo = q.avoid_same_geo;
    p.prefer_mms_diff_club = q.prefer_mms_diff_club;
    p.prefer_mms_diff_country = q.prefer_mms_diff_country;
    p.se_rank_threshold = q.se_rank_threshold;
    p.se_nbwins_threshold_active = q.se_nbwins_threshold_active;
    p.se_bar_threshold_active = q.se_bar_threshold_active;
    p
}

/// OpenGotha's history of the rounds before `round`: every registered player (history index
/// = position in `players`), their games, and their byes.
pub fn og_history(t: &Tournament, round: RoundNumber) -> og::History {
    let d = &t.data;
    let players = d
        .players
        .iter()
        .map(|p| og::OgPlayer {
            name: p.name.clone(),
            first_name: p.first_name.clone(),
            rank: p.rank,
            rating: p.rating,
            club: p.club.clone(),
            country: p.country.clone(),
            smms_correction: p.mms_correction,
            // A round the player is not in (skipped, or after a withdrawal) is OpenGotha's
            // "not participating": scored with the absence values.
            absent: (1..=d.settings.rounds)
                .filter(|&r| !p.participates(r))
                .map(|r| r as usize - 1)
                .collect(),
        })
        .collect();
    let index = |id: PlayerId| d.players.binary_search_by_key(&id, |p| p.id).ok();
    let mut games = Vec::new();
    let mut byes = Vec::new();
    for (k, r) in d.rounds.iter().enumerate().take(round as usize - 1) {
        for g in &r.games {
            if let (Some(white), Some(black)) = (index(g.white), index(g.black)) {
                games.push(og::OgGame {
                    round: k,
                    white,
                    black,
                    handicap: g.handicap as i32,
                    result: g.outcome.opengotha(),
                });
            }
        }
        for &b in &r.byes {
            if let Some(i) = index(b) {
                byes.push((k, i));
            }
        }
    }
    og::History {
        players,
        games,
        byes,
    }
}

/// Options of [`Tournament::pair_round`].
#[derive(Debug, Clone, Default)]
pub struct PairOptions {
    /// Pair only these players (default: every player who can play the round).
    pub players: Option<Vec<PlayerId>>,
}

/// One board of a pairing, with the weight OpenGotha gives the pair.
#[derive(Debug, Clone, Serialize)]
pub struct BoardReport {
    pub table: u32,
    pub white: PlayerId,
    pub black: PlayerId,
    pub handicap: u32,
    pub weight: i64,
    /// Games the two played before this round.
    pub games_before: u32,
}

/// What a pairing produced, beside its event.
#[derive(Debug, Clone, Serialize)]
pub struct PairReport {
    pub round: RoundNumber,
    pub boards: Vec<BoardReport>,
    pub byes: Vec<PlayerId>,
    /// Σ OpenGotha weight over the boards (OpenGotha maximises it).
    pub total_weight: i128,
    /// Pairs that already met.
    pub repeats: u32,
}

/// A pair's weight, criterion by criterion (OpenGotha's dump names), and the board it gives.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub round: RoundNumber,
    pub a: PlayerId,
    pub b: Option<PlayerId>,
    /// OpenGotha's total weight (larger = better pair); for a bye, OpenGotha's bye weight
    /// (smaller = more suitable).
    pub weight: i64,
    pub terms: Vec<(&'static str, i64)>,
    pub white: Option<PlayerId>,
    pub black: Option<PlayerId>,
    pub handicap: Option<u32>,
    pub games_before: u32,
    pub forbidden: bool,
    /// Score group (0 = top) and placement inside it, per player, before the round.
    pub groups: Vec<(PlayerId, i32, i32)>,
}

fn solve_error(round: RoundNumber, e: SolveError) -> TournamentError {
    match e {
        SolveError::NoPerfectMatching => TournamentError::NoPairing {
            round,
            reason: "the forbidden pairs leave no complete pairing".into(),
        },
        SolveError::CostTooLarge => TournamentError::TooLarge,
        other => TournamentError::Corrupt(other.to_string()),
    }
}

impl Tournament {
    /// Whether `round` may be paired or explained: paired already, or the next one.
    fn pairable_round(&self, round: RoundNumber) -> Result<()> {
        self.check_round(round)?;
        if round > self.paired_rounds() + 1 {
            return Err(TournamentError::NotCurrentRound(format!(
                "round {round} cannot be paired before round {}",
                self.paired_rounds() + 1
            )));
        }
        let main = og_params(&self.data.settings).main_crit();
        if main == Crit::Cps && round > 30 {
            // The cup score doubles every round: past 30 it leaves OpenGotha's int range.
            return Err(TournamentError::Invalid(
                "a cup (CPS) tournament is paired for rounds 1 … 30".into(),
            ));
        }
        Ok(())
    }

    /// Pairs the next round with OpenGotha's weight: the exact maximum of its total weight
    /// over the present players, the bye (odd count) as OpenGotha chooses it.
    pub fn pair_round(
        &self,
        round: RoundNumber,
        opts: &PairOptions,
    ) -> Result<(Vec<Event>, PairReport)> {
        if self.archived {
            return Err(TournamentError::Archived);
        }
        self.check_round(round)?;
        if round != self.paired_rounds() + 1 {
            return Err(TournamentError::NotCurrentRound(format!(
                "the next round to pair is {} (unpair round {} first to pair it again)",
                self.paired_rounds() + 1,
                self.paired_rounds()
            )));
        }
        self.pairable_round(round)?;
        let d = &self.data;
        let ids: Vec<PlayerId> = match &opts.players {
            Some(list) => {
                let mut seen = std::collections::HashSet::new();
                for &id in list {
                    if !seen.insert(id) {
                        return Err(TournamentError::PlayerTwice { player: id, round });
                    }
                    let p = self.player(id)?;
                    let a = self.availability(p, round);
                    if a != super::engine::Availability::Available {
                        return Err(TournamentError::PlayerUnavailable {
                            player: id,
                            round,
                            why: a.why(),
                        });
                    }
                }
                let mut l = list.clone();
                l.sort_unstable();
                l
            }
            None => d
                .players
                .iter()
                .filter(|p| self.availability(p, round) == super::engine::Availability::Available)
                .map(|p| p.id)
                .collect(),
        };
        if ids.is_empty() {
            return Err(TournamentError::NothingToPair(round));
        }
        let index = |id: PlayerId| d.players.binary_search_by_key(&id, |p| p.id).ok();
        let to_pair: Vec<usize> = ids.iter().filter_map(|&id| index(id)).collect();
        let params = og_params(&d.settings);
        let history = og_history(self, round);
        og::check_history(&history).map_err(|e| TournamentError::Corrupt(e.to_string()))?;
        let state = og::RoundState::new(&params, &history, round as usize - 1);
        let mut costs = og::RoundCosts::new(&state, &to_pair);
        for &(a, b) in &d.settings.pairing.forbidden_pairs {
            if let (Some(a), Some(b)) = (index(a), index(b)) {
                costs.forbidden.insert((a.min(b), a.max(b)));
            }
        }
        let pairing =
            og::pair_with(costs, SolveOptions::default()).map_err(|e| solve_error(round, e))?;
        let order = table_order(&state, &pairing.boards);
        let s = &d.settings;
        let mut games = Vec::with_capacity(order.len());
        let mut boards = Vec::with_capacity(order.len());
        let mut repeats = 0;
        for (k, &b) in order.iter().enumerate() {
            let b = &pairing.boards[b];
            let (white, black) = (d.players[b.white].id, d.players[b.black].id);
            let handicap = b.handicap.max(0) as u32;
            let before = state.games_between(b.white, b.black);
            repeats += u32::from(before > 0);
            let table = k as u32 + 1;
            games.push(Game {
                table,
                white,
                black,
                handicap,
                komi2: if handicap > 0 {
                    s.handicap_komi2
                } else {
                    s.komi2
                },
                outcome: Outcome::Unknown,
                forfeit: false,
                known_colour: true,
                record: None,
            });
            boards.push(BoardReport {
                table,
                white,
                black,
                handicap,
                weight: b.weights.total(),
                games_before: before,
            });
        }
        let byes: Vec<PlayerId> = pairing.bye.map(|i| d.players[i].id).into_iter().collect();
        let report = PairReport {
            round,
            boards,
            byes: byes.clone(),
            total_weight: pairing.total_weight,
            repeats,
        };
        Ok((
            vec![Event::RoundPaired {
                round,
                games,
                byes,
                manual: false,
            }],
            report,
        ))
    }

    /// OpenGotha's weight of the pair (a, b) for `round` (paired already or the next one),
    /// from the history before it; with `b` = None, a's bye weight.
    pub fn explain(
        &self,
        round: RoundNumber,
        a: PlayerId,
        b: Option<PlayerId>,
    ) -> Result<Explanation> {
        self.pairable_round(round)?;
        let d = &self.data;
        let ia = d
            .players
            .binary_search_by_key(&a, |p| p.id)
            .map_err(|_| TournamentError::UnknownPlayer(a))?;
        let params = og_params(&d.settings);
        let history = og_history(self, round);
        og::check_history(&history).map_err(|e| TournamentError::Corrupt(e.to_string()))?;
        let state = og::RoundState::new(&params, &history, round as usize - 1);
        let group = |i: usize| (d.players[i].id, state.group[i], state.inner[i]);
        let Some(b) = b else {
            return Ok(Explanation {
                round,
                a,
                b: None,
                weight: state.bye_weight(ia),
                terms: vec![
                    ("rank", d.players[ia].rank as i64),
                    ("mms_x2", state.mms2[ia] as i64),
                    ("byes_before_x1000", 1000 * state.byes[ia] as i64),
                ],
                white: None,
                black: None,
                handicap: None,
                games_before: 0,
                forbidden: false,
                groups: vec![group(ia)],
            });
        };
        let ib = d
            .players
            .binary_search_by_key(&b, |p| p.id)
            .map_err(|_| TournamentError::UnknownPlayer(b))?;
        if ia == ib {
            return Err(TournamentError::Invalid(
                "a player cannot be paired with itself".into(),
            ));
        }
        // "Player 1" is the earlier in the pairing's list (player id order), as in pair_round.
        let (x, y) = (ia.min(ib), ia.max(ib));
        let w = state.weights(x, y);
        let (white, black, hd) = state.board(x, y);
        let forbidden = d
            .settings
            .pairing
            .forbidden_pairs
            .iter()
            .any(|&(p, q)| (p, q) == (a, b) || (q, p) == (a, b));
        Ok(Explanation {
            round,
            a,
            b: Some(b),
            weight: w.total(),
            terms: w.named().to_vec(),
            white: Some(d.players[white].id),
            black: Some(d.players[black].id),
            handicap: Some(hd.max(0) as u32),
            games_before: state.games_between(x, y),
            forbidden,
            groups: vec![group(ia), group(ib)],
        })
    }

    /// Swaps two players of the last paired round: within one game the colours are exchanged;
    /// across games (or with the bye) the players trade seats, and each changed game gets the
    /// colours and handicap a fresh pairing would give it. Games with a result are refused.
    pub fn swap_players(&self, round: RoundNumber, a: PlayerId, b: PlayerId) -> Result<Vec<Event>> {
        if self.archived {
            return Err(TournamentError::Archived);
        }
        self.player(a)?;
        self.player(b)?;
        if a == b {
            return Err(TournamentError::Invalid(
                "swap needs two different players".into(),
            ));
        }
        let r = self.paired_round(round)?;
        if round != self.paired_rounds() {
            return Err(TournamentError::NotCurrentRound(format!(
                "only the last paired round ({}) can be edited, not round {round}",
                self.paired_rounds()
            )));
        }
        let seat = |p: PlayerId| -> Result<Option<&Game>> {
            if let Some(g) = r.games.iter().find(|g| g.has(p)) {
                if g.outcome != Outcome::Unknown {
                    return Err(TournamentError::GameHasResult {
                        round,
                        table: g.table,
                    });
                }
                Ok(Some(g))
            } else if r.byes.contains(&p) {
                Ok(None)
            } else {
                Err(TournamentError::Invalid(format!(
                    "player {p} is neither paired nor the bye in round {round}"
                )))
            }
        };
        let (ga, gb) = (seat(a)?, seat(b)?);
        let mut byes = r.byes.clone();
        let mut changed: Vec<Game> = Vec::new();
        match (ga, gb) {
            (Some(g), Some(h)) if g.table == h.table => {
                let mut g = g.clone();
                std::mem::swap(&mut g.white, &mut g.black);
                changed.push(g);
            }
            (None, None) => {
                return Err(TournamentError::Invalid(
                    "both players have the bye: nothing to swap".into(),
                ));
            }
            (ga, gb) => {
                let swap_in = |g: &Game, from: PlayerId, to: PlayerId| {
                    let mut g = g.clone();
                    if g.white == from {
                        g.white = to;
                    } else {
                        g.black = to;
                    }
                    g
                };
                if let Some(g) = ga {
                    changed.push(swap_in(g, a, b));
                }
                if let Some(h) = gb {
                    changed.push(swap_in(h, b, a));
                }
                for x in byes.iter_mut() {
                    if *x == a {
                        *x = b;
                    } else if *x == b {
                        *x = a;
                    }
                }
                byes.sort_unstable();
                self.reseat(round, &mut changed)?;
            }
        }
        for g in &changed {
            for p in [g.white, g.black] {
                self.require_playable(p, round)?;
            }
        }
        for &p in &byes {
            self.require_playable(p, round)?;
        }
        Ok(vec![Event::PlayersSwapped {
            round,
            games: changed,
            byes,
        }])
    }

    fn require_playable(&self, id: PlayerId, round: RoundNumber) -> Result<()> {
        let p = self.player(id)?;
        match self.availability(p, round) {
            super::engine::Availability::Available => Ok(()),
            a => Err(TournamentError::PlayerUnavailable {
                player: id,
                round,
                why: a.why(),
            }),
        }
    }

    /// Gives each game the colours, handicap and komi OpenGotha's pairing would.
    fn reseat(&self, round: RoundNumber, games: &mut [Game]) -> Result<()> {
        let d = &self.data;
        let params = og_params(&d.settings);
        let history = og_history(self, round);
        let state = og::RoundState::new(&params, &history, round as usize - 1);
        let index = |id: PlayerId| {
            d.players
                .binary_search_by_key(&id, |p| p.id)
                .map_err(|_| TournamentError::UnknownPlayer(id))
        };
        for g in games {
            let (x, y) = (index(g.white)?, index(g.black)?);
            let (x, y) = (x.min(y), x.max(y));
            let (w, b, hd) = state.board(x, y);
            g.white = d.players[w].id;
            g.black = d.players[b].id;
            g.handicap = hd.max(0) as u32;
            g.komi2 = if g.handicap > 0 {
                d.settings.handicap_komi2
            } else {
                d.settings.komi2
            };
        }
        Ok(())
    }

    /// The handicap, colours and komi OpenGotha would give `white` against `black` in
    /// `round` (for a manual game given without them).
    pub fn natural_board(&self, round: RoundNumber, a: PlayerId, b: PlayerId) -> Result<Game> {
        let mut g = [Game {
            white: a,
            black: b,
            ..Game::default()
        }];
        self.reseat(round, &mut g)?;
        let [g] = g;
        Ok(g)
    }
}

/// The order of OpenGotha's table numbers for new games (`renumberTablesByBestScoreThenRating`
/// with its `GameComparator`): each game is represented by its lower-placed player when the
/// two differ on the main score (OpenGotha's comparator picks the player it finds "worse"),
/// by its higher-rated one when they tie; games go by that player's main score, then rating,
/// best first. The comparator sees only the main score here (OpenGotha reads every placement
/// criterion, which can only matter between games whose representatives tie on the score).
fn table_order(state: &og::RoundState, boards: &[og::Board]) -> Vec<usize> {
    let main = state.params.main_crit();
    let score = |i: usize| -> i32 {
        match main {
            Crit::Mms => state.mms2[i],
            _ => state.nbw2[i],
        }
    };
    let rating = |i: usize| state.history.players[i].rating;
    let rep = |b: &og::Board| -> usize {
        match score(b.white).cmp(&score(b.black)) {
            Ordering::Greater => b.black,
            Ordering::Less => b.white,
            Ordering::Equal => {
                if rating(b.white) < rating(b.black) {
                    b.black
                } else {
                    b.white
                }
            }
        }
    };
    let mut order: Vec<usize> = (0..boards.len()).collect();
    // Stable sort: equal games keep the pairing's order (top score group first).
    order.sort_by(|&x, &y| {
        let (p, q) = (rep(&boards[x]), rep(&boards[y]));
        score(q)
            .cmp(&score(p))
            .then_with(|| rating(q).cmp(&rating(p)))
    });
    order
}
