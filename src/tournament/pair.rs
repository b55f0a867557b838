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
use super::model::{Game, Outcome, PlayerId, Round, RoundNumber, Settings, TournamentData};
use super::standings;
use crate::pairing::model::{self as terms, Model, ModelError};
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
    p.clubs_groups = s.clubs_groups.iter().map(|g| g.clubs.clone()).collect();
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
    /// A weighted-term cost model (`pairing::model`: gopair, opengotha_terms, custom
    /// weights) instead of OpenGotha's exact weight (`None`, the default).
    pub model: Option<Model>,
}

/// One board of a pairing, with the weight OpenGotha gives the pair (or its cost under a
/// weighted-term model).
#[derive(Debug, Clone, Serialize)]
pub struct BoardReport {
    pub table: u32,
    pub white: PlayerId,
    pub black: PlayerId,
    pub handicap: u32,
    /// OpenGotha's weight (larger = better); `None` under a weighted-term model.
    pub weight: Option<i64>,
    /// The pair's cost under a weighted-term model, in micro-units (smaller = better).
    pub cost: Option<i128>,
    /// Games the two played before this round.
    pub games_before: u32,
}

/// What a pairing produced, beside its event.
#[derive(Debug, Clone, Serialize)]
pub struct PairReport {
    pub round: RoundNumber,
    /// `opengotha`, or the weighted-term model's name.
    pub model: String,
    pub boards: Vec<BoardReport>,
    pub byes: Vec<PlayerId>,
    /// Σ OpenGotha weight over the boards (OpenGotha maximises it); 0 under a model.
    pub total_weight: i128,
    /// Under a weighted-term model: the minimised total cost, in micro-units.
    pub objective: Option<i128>,
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

/// A pair's cost under a weighted-term model, term by term (see
/// [`Tournament::explain_with_model`]); costs in micro-units, smaller = better.
#[derive(Debug, Clone)]
pub struct ModelExplanation {
    pub round: RoundNumber,
    pub a: PlayerId,
    pub b: Option<PlayerId>,
    /// The model's name (gopair, opengotha_terms, custom, …).
    pub model: String,
    /// Σ of the terms' costs, as the solver adds them.
    pub cost: i128,
    pub terms: Vec<terms::TermCost>,
    pub white: Option<PlayerId>,
    pub black: Option<PlayerId>,
    pub handicap: Option<u32>,
    pub games_before: u32,
    /// A forbidden pair, or a repeat the model forbids: the solver would not choose it.
    pub forbidden: bool,
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

fn model_error(round: RoundNumber, e: ModelError) -> TournamentError {
    match e {
        ModelError::NoPairing(reason) => TournamentError::NoPairing { round, reason },
        ModelError::Invalid(m) if m.contains("too large") => TournamentError::TooLarge,
        ModelError::Invalid(m) => TournamentError::Invalid(format!("pairing model: {m}")),
    }
}

/// A board of a solved round, players as indices into `players`.
struct Seat {
    white: usize,
    black: usize,
    handicap: i32,
    weight: Option<i64>,
    cost: Option<i128>,
}

/// A solved round before its tables are numbered.
struct Solved {
    boards: Vec<Seat>,
    bye: Option<usize>,
    total_weight: i128,
    objective: Option<i128>,
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
        let solved = match &opts.model {
            None => {
                let mut costs = og::RoundCosts::new(&state, &to_pair);
                for &(a, b) in &d.settings.pairing.forbidden_pairs {
                    if let (Some(a), Some(b)) = (index(a), index(b)) {
                        costs.forbidden.insert((a.min(b), a.max(b)));
                    }
                }
                let pairing = og::pair_with(costs, SolveOptions::default())
                    .map_err(|e| solve_error(round, e))?;
                let boards = pairing
                    .boards
                    .iter()
                    .map(|b| Seat {
                        white: b.white,
                        black: b.black,
                        handicap: b.handicap,
                        weight: Some(b.weights.total()),
                        cost: None,
                    })
                    .collect();
                Solved {
                    boards,
                    bye: pairing.bye,
                    total_weight: pairing.total_weight,
                    objective: None,
                }
            }
            Some(model) => self.pair_with_model(model, round, &state, &to_pair)?,
        };
        let s = &d.settings;
        let byes: Vec<PlayerId> = solved.bye.map(|i| d.players[i].id).into_iter().collect();
        let unnumbered: Vec<Game> = solved
            .boards
            .iter()
            .map(|b| {
                let handicap = b.handicap.max(0) as u32;
                Game {
                    table: 0,
                    white: d.players[b.white].id,
                    black: d.players[b.black].id,
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
                }
            })
            .collect();
        let order = table_order(d, round, &unnumbered, &byes);
        let mut games = Vec::with_capacity(order.len());
        let mut boards = Vec::with_capacity(order.len());
        let mut repeats = 0;
        for (k, &i) in order.iter().enumerate() {
            let b = &solved.boards[i];
            let before = state.games_between(b.white, b.black);
            repeats += u32::from(before > 0);
            let table = k as u32 + 1;
            let game = Game {
                table,
                ..unnumbered[i].clone()
            };
            boards.push(BoardReport {
                table,
                white: game.white,
                black: game.black,
                handicap: game.handicap,
                weight: b.weight,
                cost: b.cost,
                games_before: before,
            });
            games.push(game);
        }
        let report = PairReport {
            round,
            model: opts
                .model
                .as_ref()
                .map_or_else(|| "opengotha".to_string(), |m| m.name.clone()),
            boards,
            byes: byes.clone(),
            total_weight: solved.total_weight,
            objective: solved.objective,
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

    /// The weighted-term model's view of `to_pair` (indices into `players`) before `round`:
    /// the model told the round, and each player as `pairing::model` sees one — `rating` the
    /// rank on the AGA scale (1d = 1.0, 1k = −1.0; gopair collapses the gap), `score` the main
    /// score (MMS or NBW) and `wins` the wins before the round, the club, previous opponents
    /// and byes —, with the tournament's forbidden pairs as absent edges and `rounds`/`round`
    /// for gopair's early-round term.
    fn model_field(
        &self,
        model: &Model,
        round: RoundNumber,
        state: &og::RoundState,
        to_pair: &[usize],
    ) -> (Model, Vec<terms::Player>, Vec<(String, String)>) {
        let d = &self.data;
        let mut model = model.clone();
        model.rounds = d.settings.rounds;
        model.round = round;
        let main_mms = state.params.main_crit() == Crit::Mms;
        let text = |i: usize| d.players[i].id.to_string();
        let mut opponents: Vec<Vec<String>> = vec![Vec::new(); d.players.len()];
        let mut byes = vec![0u32; d.players.len()];
        let index = |id: PlayerId| d.players.binary_search_by_key(&id, |p| p.id).ok();
        for r in d.rounds.iter().take(round as usize - 1) {
            for g in &r.games {
                if let (Some(w), Some(b)) = (index(g.white), index(g.black)) {
                    opponents[w].push(text(b));
                    opponents[b].push(text(w));
                }
            }
            for &b in &r.byes {
                if let Some(i) = index(b) {
                    byes[i] += 1;
                }
            }
        }
        let players: Vec<terms::Player> = to_pair
            .iter()
            .map(|&i| {
                let p = &d.players[i];
                let score2 = if main_mms {
                    state.mms2[i]
                } else {
                    state.nbw2[i]
                };
                terms::Player {
                    id: text(i),
                    rating: if p.rank >= 0 {
                        f64::from(p.rank + 1)
                    } else {
                        f64::from(p.rank)
                    },
                    score: f64::from(score2) / 2.0,
                    wins: f64::from(state.nbw2[i]) / 2.0,
                    club: p.club.clone(),
                    opponents: std::mem::take(&mut opponents[i]),
                    byes: byes[i],
                }
            })
            .collect();
        let forbidden: Vec<(String, String)> = d
            .settings
            .pairing
            .forbidden_pairs
            .iter()
            .map(|&(a, b)| (a.to_string(), b.to_string()))
            .collect();
        (model, players, forbidden)
    }

    /// Pairs `to_pair` (indices into `players`) under a weighted-term model (see
    /// [`Tournament::model_field`]). Colours and handicap are then OpenGotha's for each pair,
    /// as for a manual game.
    fn pair_with_model(
        &self,
        model: &Model,
        round: RoundNumber,
        state: &og::RoundState,
        to_pair: &[usize],
    ) -> Result<Solved> {
        let (model, players, forbidden) = self.model_field(model, round, state, to_pair);
        let err = |e| model_error(round, e);
        let field = terms::Field::new(&model, &players, &forbidden, &[]).map_err(err)?;
        let paired = terms::pair_round(&field, SolveOptions::default()).map_err(err)?;
        let boards = paired
            .pairs
            .iter()
            .map(|p| {
                let (x, y) = (to_pair[p.a], to_pair[p.b]);
                let (white, black, handicap) = state.board(x.min(y), x.max(y));
                Seat {
                    white,
                    black,
                    handicap,
                    weight: None,
                    cost: Some(p.cost),
                }
            })
            .collect();
        Ok(Solved {
            boards,
            bye: paired.bye.map(|(k, _, _)| to_pair[k]),
            total_weight: 0,
            objective: Some(paired.objective),
        })
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

    /// The cost of the pair (a, b) for `round` under a weighted-term model, term by term, as
    /// `pair_round` with that model would price it; with `b` = None, a's bye cost. The field
    /// is the round's: the players seated in it once it is paired, else those who can play it
    /// (the model's numbers — rating collapse, score range — depend on the whole field).
    pub fn explain_with_model(
        &self,
        round: RoundNumber,
        a: PlayerId,
        b: Option<PlayerId>,
        model: &Model,
    ) -> Result<ModelExplanation> {
        self.pairable_round(round)?;
        let d = &self.data;
        let index = |id: PlayerId| {
            d.players
                .binary_search_by_key(&id, |p| p.id)
                .map_err(|_| TournamentError::UnknownPlayer(id))
        };
        let ia = index(a)?;
        let ib = b.map(index).transpose()?;
        if ib == Some(ia) {
            return Err(TournamentError::Invalid(
                "a player cannot be paired with itself".into(),
            ));
        }
        let to_pair: Vec<usize> = match d.rounds.get(round as usize - 1) {
            Some(r) => {
                let mut seated: Vec<usize> = r
                    .games
                    .iter()
                    .flat_map(|g| [g.white, g.black])
                    .chain(r.byes.iter().copied())
                    .filter_map(|id| index(id).ok())
                    .collect();
                seated.sort_unstable();
                seated.dedup();
                seated
            }
            None => (0..d.players.len())
                .filter(|&i| {
                    self.availability(&d.players[i], round)
                        == super::engine::Availability::Available
                })
                .collect(),
        };
        for (id, i) in std::iter::once((a, ia)).chain(b.zip(ib)) {
            if to_pair.binary_search(&i).is_err() {
                return Err(TournamentError::Invalid(format!(
                    "player {id} is not in round {round}'s field (not seated in it, or not \
                     available to play it)"
                )));
            }
        }
        let params = og_params(&d.settings);
        let history = og_history(self, round);
        og::check_history(&history).map_err(|e| TournamentError::Corrupt(e.to_string()))?;
        let state = og::RoundState::new(&params, &history, round as usize - 1);
        let (model, players, forbidden) = self.model_field(model, round, &state, &to_pair);
        let field = terms::Field::new(&model, &players, &forbidden, &[])
            .map_err(|e| model_error(round, e))?;
        // Pairing positions are the field's own order; find each player's by its id text.
        let position = |i: usize| {
            let id = d.players[i].id.to_string();
            (0..players.len())
                .find(|&k| field.player(k).id == id)
                .expect("every player of the field has a pairing position")
        };
        let u = position(ia);
        let mut out = ModelExplanation {
            round,
            a,
            b,
            model: model.name.clone(),
            cost: 0,
            terms: Vec::new(),
            white: None,
            black: None,
            handicap: None,
            games_before: 0,
            forbidden: false,
        };
        match ib {
            None => out.terms = field.explain(u, players.len()),
            Some(ib) => {
                let v = position(ib);
                let (lo, hi) = (u.min(v), u.max(v));
                out.terms = field.explain(lo, hi);
                out.games_before = field.games(lo, hi);
                out.forbidden = field.is_forbidden(lo, hi);
                let (white, black, hd) = state.board(ia.min(ib), ia.max(ib));
                out.white = Some(d.players[white].id);
                out.black = Some(d.players[black].id);
                out.handicap = Some(hd.max(0) as u32);
            }
        }
        out.cost = out
            .terms
            .iter()
            .fold(0i128, |c, t| c.saturating_add(t.cost));
        Ok(out)
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
/// with its `GameComparator`, best-score-then-rating order). OpenGotha compares players with
/// its placement comparator (every placement criterion, ties kept) on their values *after*
/// the round being numbered, its games already in with unknown results; DC and SDC are 0
/// there (they are computed only when standings are ordered). Each game is represented by
/// the player the comparator finds worse when the two differ, by the higher-rated one when
/// they tie (White on equal ratings); games go best representative first, equal ones by
/// rating. `games` are the new round's games in any order, `byes` its byes; returns the
/// indices of `games` in table order.
pub(crate) fn table_order(
    d: &TournamentData,
    round: RoundNumber,
    games: &[Game],
    byes: &[PlayerId],
) -> Vec<usize> {
    // The state as OpenGotha sees it while it numbers: rounds before this one (records left
    // out, nothing reads them here) and this one's games without results.
    let strip = |g: &Game| Game {
        record: None,
        ..g.clone()
    };
    let mut rounds: Vec<Round> = d
        .rounds
        .iter()
        .take(round as usize - 1)
        .map(|r| Round {
            games: r.games.iter().map(strip).collect(),
            byes: r.byes.clone(),
            published: r.published,
        })
        .collect();
    rounds.resize_with(round as usize - 1, Round::default);
    rounds.push(Round {
        games: games.iter().map(strip).collect(),
        byes: byes.to_vec(),
        published: false,
    });
    let view = TournamentData {
        settings: d.settings.clone(),
        players: d.players.clone(),
        rounds,
    };
    let sc = standings::scores(&view, round);
    let crits: Vec<Crit> = d
        .settings
        .placement
        .iter()
        .map(|c| c.0)
        .filter(|&c| !matches!(c, Crit::Nul | Crit::Dc | Crit::Sdc))
        .collect();
    let index = standings::PlayerIndex::new(&view);
    let at = |id: PlayerId| index.get(id).unwrap_or(0);
    // Greater = better, on every criterion in turn (OpenGotha's `betterByScore`).
    let better = |a: usize, b: usize| -> Ordering {
        crits
            .iter()
            .map(|&c| sc.at(a, c).cmp(&sc.at(b, c)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let rating = |i: usize| sc.at(i, Crit::Rating);
    let rep = |g: &Game| -> usize {
        let (w, b) = (at(g.white), at(g.black));
        match better(w, b) {
            Ordering::Greater => b,
            Ordering::Less => w,
            Ordering::Equal if rating(w) < rating(b) => b,
            Ordering::Equal => w,
        }
    };
    let reps: Vec<usize> = games.iter().map(rep).collect();
    let mut order: Vec<usize> = (0..games.len()).collect();
    // Stable sort: games equal on everything keep the pairing's order (OpenGotha's comparator
    // is not even consistent there: it never answers "equal").
    order.sort_by(|&x, &y| {
        let (p, q) = (reps[x], reps[y]);
        better(q, p).then_with(|| rating(q).cmp(&rating(p)))
    });
    order
}
