//! Cost models in the Algorithm::Pair::Best style: a pair's cost is a weighted sum of named
//! terms (rating difference, games already played together, wins difference, same club, …),
//! each explainable on its own, and the round is the exact minimum of the total.
//!
//! Numbers are exact: every input value and weight is read as a decimal with at most three
//! places (milli-units), products are kept in micro-units in `i128`, and the objective comes
//! back in the model's own units (an integer whenever the weights and values are). The presets
//! `gopair`, `opengotha` and `rswiss` are term lists with their weights; a caller may give its
//! own weights. The bye is a virtual vertex whose edge costs are the bye terms.

use std::collections::HashMap;

use super::solve::{PairCosts, SolveError, SolveOptions, min_cost_perfect_matching};

/// Micro-units per model unit.
pub const UNIT: i128 = 1_000_000;
const MILLI: i128 = 1000;

/// One player as the cost models see it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Player {
    pub id: String,
    pub rating: f64,
    pub score: f64,
    pub wins: f64,
    pub club: String,
    /// Previous opponents' ids; an id listed twice means two games.
    pub opponents: Vec<String>,
    pub byes: u32,
}

/// A pair cost term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// Per rating point of difference (AGA-collapsed when asked).
    Rating,
    /// Per previous game together.
    Played,
    /// Per win of difference.
    Wins,
    /// Per point of score difference.
    Score,
    /// Per squared point of score difference.
    ScoreSquared,
    /// Both have the same non-empty club.
    Club,
    /// gopair's early-round adjustment, as a symmetric term (see `early_measure`).
    Early,
    /// A caller-given penalty for a specific pair (the weight multiplies it).
    PairPenalty,
    /// OpenGotha: the two already played (the 5·10¹⁴ duplicate-game weight, as a cost).
    OgDuplicate,
    /// OpenGotha: score-group difference, 10¹¹ × (1 − f(Δgroup / #groups)).
    OgScore,
    /// OpenGotha: seeding inside a score group, 5·10⁶ × (1 − split-and-fold/slip weight).
    OgSeeding,
}

/// A bye cost term: the cost of giving the bye to a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ByeTerm {
    /// Per win.
    Wins,
    /// Per earlier bye.
    Byes,
    /// Per point of score above the lowest score of the field.
    Score,
    /// Per rating point above the lowest rating of the field.
    Rating,
}

pub const TERMS: &[(Term, &str)] = &[
    (Term::Rating, "rating"),
    (Term::Played, "played"),
    (Term::Wins, "wins"),
    (Term::Score, "score"),
    (Term::ScoreSquared, "score_squared"),
    (Term::Club, "club"),
    (Term::Early, "early"),
    (Term::PairPenalty, "pair_penalty"),
    (Term::OgDuplicate, "og_duplicate"),
    (Term::OgScore, "og_score"),
    (Term::OgSeeding, "og_seeding"),
];

pub const BYE_TERMS: &[(ByeTerm, &str)] = &[
    (ByeTerm::Wins, "wins"),
    (ByeTerm::Byes, "byes"),
    (ByeTerm::Score, "score"),
    (ByeTerm::Rating, "rating"),
];

pub fn term_name(t: Term) -> &'static str {
    TERMS.iter().find(|(x, _)| *x == t).map_or("?", |(_, n)| n)
}

pub fn bye_term_name(t: ByeTerm) -> &'static str {
    BYE_TERMS
        .iter()
        .find(|(x, _)| *x == t)
        .map_or("?", |(_, n)| n)
}

/// Seeding inside an OpenGotha score group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seeding {
    Fold,
    Slip,
}

/// A cost model: weighted terms plus options.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub name: String,
    pub terms: Vec<(Term, f64)>,
    pub bye: Vec<(ByeTerm, f64)>,
    /// Pairs that already played are absent edges instead of penalised ones.
    pub forbid_repeats: bool,
    /// Ratings collapsed the AGA way (no gap between 1k and 1d).
    pub aga_collapse: bool,
    /// Rounds in the tournament and the round being paired (1-based), for `early`.
    pub rounds: u32,
    pub round: u32,
    pub seeding: Seeding,
}

impl Model {
    /// A named preset.
    pub fn preset(name: &str) -> Option<Model> {
        let base = Model {
            name: name.to_string(),
            terms: vec![],
            bye: vec![],
            forbid_repeats: false,
            aga_collapse: false,
            rounds: 0,
            round: 0,
            seeding: Seeding::Slip,
        };
        Some(match name {
            // Games::Go::GoPair: −|Δrating| −16·played −1.5·|Δwins| −2·same club, as costs.
            "gopair" => Model {
                terms: vec![
                    (Term::Rating, 1.0),
                    (Term::Played, 16.0),
                    (Term::Wins, 1.5),
                    (Term::Club, 2.0),
                    (Term::Early, 1.0),
                ],
                // gopair never gives a second bye while others have none and prefers players
                // who have not won every game; the random choice among candidates becomes the
                // deterministic optimum.
                bye: vec![(ByeTerm::Byes, 1000.0), (ByeTerm::Wins, 1.0)],
                aga_collapse: true,
                ..base
            },
            // The weighted-term approximation of OpenGotha (duplicates, score groups, seeding,
            // club) for custom models; the `opengotha` preset proper is `pairing::opengotha`.
            "opengotha_terms" => Model {
                terms: vec![
                    (Term::OgDuplicate, 1.0),
                    (Term::OgScore, 1.0),
                    (Term::OgSeeding, 1.0),
                    (Term::Club, 1e11),
                ],
                // OpenGotha: rank + score + 1000 × byes, minimised; the byes term is a tier
                // above every pair cost so nobody gets a second bye while others have none.
                bye: vec![
                    (ByeTerm::Byes, 1e18),
                    (ByeTerm::Score, 1e11),
                    (ByeTerm::Rating, 1e6),
                ],
                ..base
            },
            "rswiss" => Model {
                // The king-of-the-hill tiers are built by `koth`; this entry names the model.
                terms: vec![],
                bye: vec![],
                forbid_repeats: true,
                ..base
            },
            "custom" => base,
            _ => return None,
        })
    }

    pub fn weight(&self, t: Term) -> f64 {
        self.terms
            .iter()
            .filter(|(x, _)| *x == t)
            .map(|(_, w)| *w)
            .sum()
    }
}

/// What went wrong building or solving a round.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// Malformed input (a duplicate id, a number out of range, …).
    Invalid(String),
    /// No perfect matching of the allowed pairs exists.
    NoPairing(String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Invalid(m) | ModelError::NoPairing(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ModelError {}

/// Largest accepted player value (rating, score, wins, pair penalty).
pub const MAX_VALUE: f64 = 1e12;
/// Largest accepted weight.
pub const MAX_WEIGHT: f64 = 1e18;

/// A value in milli-units, exactly, or an error for NaN, infinities and absurd magnitudes.
pub fn milli(x: f64, what: &str) -> Result<i128, ModelError> {
    milli_within(x, what, MAX_VALUE)
}

fn milli_within(x: f64, what: &str, limit: f64) -> Result<i128, ModelError> {
    if !x.is_finite() || x.abs() > limit {
        return Err(ModelError::Invalid(format!(
            "{what}: {x} is not a usable number"
        )));
    }
    Ok((x * 1000.0).round() as i128)
}

/// One term of one pair in an explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct TermCost {
    pub name: &'static str,
    /// The measured quantity (e.g. the rating difference), in model units.
    pub measure: f64,
    pub weight: f64,
    /// weight × measure, in micro-units.
    pub cost: i128,
}

/// A field ready to pair: players in pairing order, numbers in milli-units.
pub struct Field<'a> {
    model: &'a Model,
    /// `order[k]` = index into the caller's players of the k-th player in pairing order.
    pub order: Vec<usize>,
    players: &'a [Player],
    rating: Vec<i128>,
    score: Vec<i128>,
    wins: Vec<i128>,
    club: Vec<u32>,
    group: Vec<i64>,
    /// Position inside the score group and the group's size (OpenGotha seeding).
    inner: Vec<(i64, i64)>,
    played: HashMap<u64, u32>,
    penalty: HashMap<u64, i128>,
    forbidden: std::collections::HashSet<u64>,
    w: Vec<(Term, i128)>,
    bye_w: Vec<(ByeTerm, i128)>,
    min_score: i128,
    min_rating: i128,
    /// Whether the cheap lower bound (without the hashed and seeding terms) is valid.
    bound_ok: bool,
    /// Whether every term is ≥ 0, so the score terms alone are a monotone bound.
    mono_ok: bool,
    /// OpenGotha score cost by group difference, in micro-units per unit weight.
    og_score: Vec<i128>,
    /// The weights of the cheap terms, summed per term, for the fast lower bound.
    cheap: Cheap,
    /// Weight of the OpenGotha seeding term (0: no seeding hints).
    cheap_seeding: i128,
    n: usize,
}

/// Weights (milli-units) of the terms that need only array reads.
#[derive(Debug, Clone, Copy, Default)]
struct Cheap {
    rating: i128,
    wins: i128,
    score: i128,
    score_sq: i128,
    og_score: i128,
    club: i128,
    early: i128,
}

fn key(a: usize, b: usize) -> u64 {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    ((a as u64) << 32) | b as u64
}

/// AGA collapsing: ratings go …, −1.x (1 kyu), 1.x (1 dan), … with no gap between.
fn collapse(r: i128) -> i128 {
    if r >= MILLI {
        r - MILLI
    } else if r <= -MILLI {
        r + MILLI
    } else {
        0
    }
}

/// OpenGotha's concave weight f(x) = (1 − x)(1 + k·x), k = ½, through doubles like OpenGotha.
fn og_concave(x: f64) -> f64 {
    (1.0 - x) * (1.0 + 0.5 * x)
}

impl<'a> Field<'a> {
    /// Prepares a round. `forbidden` and `penalties` name pairs by id.
    pub fn new(
        model: &'a Model,
        players: &'a [Player],
        forbidden: &[(String, String)],
        penalties: &[(String, String, f64)],
    ) -> Result<Field<'a>, ModelError> {
        let n = players.len();
        let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(n);
        for (i, p) in players.iter().enumerate() {
            if by_id.insert(p.id.as_str(), i).is_some() {
                return Err(ModelError::Invalid(format!(
                    "player id {:?} appears twice",
                    p.id
                )));
            }
        }
        let mut rating = Vec::with_capacity(n);
        let mut score = Vec::with_capacity(n);
        let mut wins = Vec::with_capacity(n);
        for p in players {
            let r = milli(p.rating, "rating")?;
            rating.push(if model.aga_collapse { collapse(r) } else { r });
            score.push(milli(p.score, "score")?);
            wins.push(milli(p.wins, "wins")?);
        }
        // Pairing order: score descending, then rating descending, then the caller's order.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            score[b]
                .cmp(&score[a])
                .then(rating[b].cmp(&rating[a]))
                .then(a.cmp(&b))
        });
        let mut pos = vec![0usize; n];
        for (k, &i) in order.iter().enumerate() {
            pos[i] = k;
        }
        let perm = |v: &Vec<i128>| order.iter().map(|&i| v[i]).collect::<Vec<_>>();
        let (rating, score, wins) = (perm(&rating), perm(&score), perm(&wins));
        let mut clubs: HashMap<String, u32> = HashMap::new();
        let club = order
            .iter()
            .map(|&i| {
                let c = players[i].club.trim().to_lowercase();
                if c.is_empty() {
                    0
                } else {
                    let next = clubs.len() as u32 + 1;
                    *clubs.entry(c).or_insert(next)
                }
            })
            .collect();
        let lookup = |id: &str, what: &str| {
            by_id
                .get(id)
                .map(|&i| pos[i])
                .ok_or_else(|| ModelError::Invalid(format!("{what}: unknown player id {id:?}")))
        };
        let mut played = HashMap::new();
        for (i, p) in players.iter().enumerate() {
            for o in &p.opponents {
                let j = lookup(o, &format!("opponents of {:?}", p.id))?;
                if j == pos[i] {
                    return Err(ModelError::Invalid(format!(
                        "{:?} lists itself as an opponent",
                        p.id
                    )));
                }
                // Each side may list the game; count the larger of the two views.
                *played.entry((key(pos[i], j), pos[i] < j)).or_insert(0u32) += 1;
            }
        }
        let mut games: HashMap<u64, u32> = HashMap::new();
        for ((k, _), c) in played {
            let e = games.entry(k).or_insert(0);
            *e = (*e).max(c);
        }
        let mut penalty = HashMap::new();
        for (a, b, c) in penalties {
            let (i, j) = (lookup(a, "pair penalty")?, lookup(b, "pair penalty")?);
            *penalty.entry(key(i, j)).or_insert(0) += milli(*c, "pair penalty")?;
        }
        let mut forbid = std::collections::HashSet::new();
        for (a, b) in forbidden {
            forbid.insert(key(
                lookup(a, "forbidden pair")?,
                lookup(b, "forbidden pair")?,
            ));
        }
        // Score groups: integer part of the score, as OpenGotha.
        let group: Vec<i64> = score.iter().map(|&s| s.div_euclid(MILLI) as i64).collect();
        let groups = match (group.iter().min(), group.iter().max()) {
            (Some(lo), Some(hi)) => hi - lo + 1,
            _ => 1,
        };
        let mut inner = vec![(0i64, 1i64); n];
        let mut k = 0;
        while k < n {
            let mut e = k;
            while e < n && group[e] == group[k] {
                e += 1;
            }
            for (c, slot) in inner[k..e].iter_mut().enumerate() {
                *slot = (c as i64, (e - k) as i64);
            }
            k = e;
        }
        let w = model
            .terms
            .iter()
            .map(|&(t, x)| Ok((t, milli_within(x, term_name(t), MAX_WEIGHT)?)))
            .collect::<Result<Vec<_>, ModelError>>()?;
        let bye_w = model
            .bye
            .iter()
            .map(|&(t, x)| Ok((t, milli_within(x, bye_term_name(t), MAX_WEIGHT)?)))
            .collect::<Result<Vec<_>, ModelError>>()?;
        let min_penalty = penalty.values().copied().min().unwrap_or(0);
        let bound_ok = min_penalty >= 0
            && w.iter().all(|&(t, x)| {
                x >= 0
                    || !matches!(
                        t,
                        Term::Played | Term::PairPenalty | Term::OgDuplicate | Term::OgSeeding
                    )
            });
        let mono_ok = min_penalty >= 0 && w.iter().all(|&(_, x)| x >= 0);
        let cheap_seeding: i128 = w
            .iter()
            .filter(|(t, _)| *t == Term::OgSeeding)
            .map(|(_, x)| *x)
            .sum();
        let mut cheap = Cheap::default();
        for &(t, x) in &w {
            match t {
                Term::Rating => cheap.rating += x,
                Term::Wins => cheap.wins += x,
                Term::Score => cheap.score += x,
                Term::ScoreSquared => cheap.score_sq += x,
                Term::OgScore => cheap.og_score += x,
                Term::Club => cheap.club += x,
                Term::Early => cheap.early += x,
                _ => {}
            }
        }
        let og_score = (0..groups.max(1))
            .map(|d| {
                let weight = (1e11 * og_concave(d as f64 / groups as f64)) as i128;
                (100_000_000_000 - weight) * MILLI
            })
            .collect();
        Ok(Field {
            model,
            players,
            min_score: score.iter().copied().min().unwrap_or(0),
            min_rating: rating.iter().copied().min().unwrap_or(0),
            order,
            rating,
            score,
            wins,
            club,
            group,
            inner,
            played: games,
            penalty,
            forbidden: forbid,
            w,
            bye_w,
            bound_ok,
            mono_ok,
            og_score,
            cheap,
            cheap_seeding,
            n,
        })
    }

    /// The caller's player at pairing position k.
    pub fn player(&self, k: usize) -> &Player {
        &self.players[self.order[k]]
    }

    pub fn games(&self, u: usize, v: usize) -> u32 {
        self.played.get(&key(u, v)).copied().unwrap_or(0)
    }

    pub fn is_forbidden(&self, u: usize, v: usize) -> bool {
        self.forbidden.contains(&key(u, v)) || (self.model.forbid_repeats && self.games(u, v) > 0)
    }

    /// gopair's early-round push, made symmetric: with N = rounds − round − 2 ≥ 1, two of the
    /// top 2·(N+2) players in pairing order that are within N places of each other get
    /// N + 1 − distance (so the nearest strong neighbours meet later in the tournament).
    fn early_measure(&self, u: usize, v: usize) -> i128 {
        let m = self.model;
        if m.rounds == 0 || m.round == 0 || m.rounds < m.round + 3 {
            return 0;
        }
        let big_n = (m.rounds - m.round - 2) as usize;
        let top = 2 * (big_n + 2);
        let d = u.abs_diff(v);
        if u < top && v < top && d <= big_n {
            ((big_n + 1 - d) as i128) * MILLI
        } else {
            0
        }
    }

    /// The measure of one term for the pair (u, v) of pairing positions, in milli-units
    /// (for `OgSeeding` / `OgScore` / `OgDuplicate`: already the OpenGotha cost in milli-units).
    fn measure(&self, t: Term, u: usize, v: usize) -> i128 {
        match t {
            Term::Rating => (self.rating[u] - self.rating[v]).abs(),
            Term::Played => self.games(u, v) as i128 * MILLI,
            Term::Wins => (self.wins[u] - self.wins[v]).abs(),
            Term::Score => (self.score[u] - self.score[v]).abs(),
            Term::ScoreSquared => {
                let d = self.score[u] - self.score[v];
                // milli² → milli, exact for scores in half points.
                d * d / MILLI
            }
            Term::Club => {
                if self.club[u] != 0 && self.club[u] == self.club[v] {
                    MILLI
                } else {
                    0
                }
            }
            Term::Early => self.early_measure(u, v),
            Term::PairPenalty => self.penalty.get(&key(u, v)).copied().unwrap_or(0),
            Term::OgDuplicate => {
                if self.games(u, v) > 0 {
                    500_000_000_000_000 * MILLI
                } else {
                    0
                }
            }
            Term::OgScore => {
                let d = (self.group[u] - self.group[v]).unsigned_abs() as usize;
                self.og_score.get(d).copied().unwrap_or(0)
            }
            Term::OgSeeding => {
                if self.group[u] != self.group[v] {
                    return 0;
                }
                let ((c1, g), (c2, _)) = (self.inner[u], self.inner[v]);
                let max = 5_000_000.0;
                let weight = match self.model.seeding {
                    Seeding::Fold if g > 1 => {
                        let r = (c1 + c2 - (g - 1)) as f64 / (g - 1) as f64;
                        max * (1.0 - r * r)
                    }
                    Seeding::Slip => {
                        let r = (2 * (c1 - c2).abs() - g) as f64 / g as f64;
                        max * (1.0 - r * r)
                    }
                    Seeding::Fold => max,
                };
                (5_000_000 - weight as i128) * MILLI
            }
        }
    }

    fn bye_measure(&self, t: ByeTerm, u: usize) -> i128 {
        match t {
            ByeTerm::Wins => self.wins[u],
            ByeTerm::Byes => self.player(u).byes as i128 * MILLI,
            ByeTerm::Score => self.score[u] - self.min_score,
            ByeTerm::Rating => self.rating[u] - self.min_rating,
        }
    }

    /// Per-term costs of a pair of pairing positions; `v == n` is the bye.
    pub fn explain(&self, u: usize, v: usize) -> Vec<TermCost> {
        if v == self.n {
            return self
                .bye_w
                .iter()
                .map(|&(t, w)| {
                    let m = self.bye_measure(t, u);
                    TermCost {
                        name: bye_term_name(t),
                        measure: m as f64 / 1000.0,
                        weight: w as f64 / 1000.0,
                        cost: w.saturating_mul(m),
                    }
                })
                .collect();
        }
        self.w
            .iter()
            .map(|&(t, w)| {
                let m = self.measure(t, u, v);
                TermCost {
                    name: term_name(t),
                    measure: m as f64 / 1000.0,
                    weight: w as f64 / 1000.0,
                    cost: w.saturating_mul(m),
                }
            })
            .collect()
    }

    fn pair_cost(&self, u: usize, v: usize, cheap_only: bool) -> i128 {
        let mut c: i128 = 0;
        for &(t, w) in &self.w {
            if cheap_only
                && matches!(
                    t,
                    Term::Played | Term::PairPenalty | Term::Club | Term::OgDuplicate
                )
            {
                continue;
            }
            c = c.saturating_add(w.saturating_mul(self.measure(t, u, v)));
        }
        c
    }

    fn bye_cost(&self, u: usize) -> i128 {
        self.bye_w.iter().fold(0i128, |c, &(t, w)| {
            c.saturating_add(w.saturating_mul(self.bye_measure(t, u)))
        })
    }
}

impl PairCosts for Field<'_> {
    type W = i128;
    fn len(&self) -> usize {
        self.n + self.n % 2
    }
    fn cost(&self, u: usize, v: usize) -> Option<i128> {
        if v == self.n {
            return Some(self.bye_cost(u));
        }
        if self.is_forbidden(u, v) {
            return None;
        }
        Some(self.pair_cost(u, v, false))
    }
    fn allowed(&self, u: usize, v: usize) -> bool {
        v == self.n || !self.is_forbidden(u, v)
    }
    fn lower_bound(&self, u: usize, v: usize) -> i128 {
        if v == self.n || !self.bound_ok {
            return self.cost(u, v).unwrap_or(i128::MAX);
        }
        // The cheap terms, straight-line: this runs for every pair during pricing. Values are
        // at most 10¹⁵ milli-units and weights 10²¹, so these products fit in i128.
        let k = &self.cheap;
        let mut c = k.rating * (self.rating[u] - self.rating[v]).abs()
            + k.wins * (self.wins[u] - self.wins[v]).abs()
            + k.score * (self.score[u] - self.score[v]).abs();
        if k.og_score != 0 {
            c += k.og_score * self.measure(Term::OgScore, u, v);
        }
        if k.score_sq != 0 {
            c = c.saturating_add(
                k.score_sq
                    .saturating_mul(self.measure(Term::ScoreSquared, u, v)),
            );
        }
        if k.club != 0 && self.club[u] != 0 && self.club[u] == self.club[v] {
            c += k.club * MILLI;
        }
        if k.early != 0 {
            c += k.early * self.early_measure(u, v);
        }
        c
    }
    fn monotone_bound(&self, u: usize, v: usize) -> Option<i128> {
        if v == self.n || !self.mono_ok {
            return None;
        }
        // Pairing order is by score, descending: these measures only grow with v.
        let k = &self.cheap;
        let mut c = k.score * (self.score[u] - self.score[v]).abs();
        if k.og_score != 0 {
            c += k.og_score * self.measure(Term::OgScore, u, v);
        }
        if k.score_sq != 0 {
            c = c.saturating_add(
                k.score_sq
                    .saturating_mul(self.measure(Term::ScoreSquared, u, v)),
            );
        }
        Some(c)
    }
    fn hints(&self, u: usize, out: &mut Vec<usize>) {
        if u >= self.n || self.cheap_seeding == 0 {
            return;
        }
        // OpenGotha's seeding wants partners across the score group: half a group away
        // (slip) or mirrored (fold).
        let (c, g) = self.inner[u];
        let start = u as i64 - c;
        let target = match self.model.seeding {
            Seeding::Slip => {
                if c < g / 2 {
                    c + g / 2
                } else {
                    c - g / 2
                }
            }
            Seeding::Fold => g - 1 - c,
        };
        for d in -3..=3 {
            let t = target + d;
            if (0..g).contains(&t) && t != c {
                out.push((start + t) as usize);
            }
        }
    }
    fn hubs(&self) -> Vec<usize> {
        if self.n % 2 == 1 {
            vec![self.n]
        } else {
            vec![]
        }
    }
}

/// One pair of a round, as indices into the caller's players.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// Higher-placed in pairing order first.
    pub a: usize,
    pub b: usize,
    /// Micro-units.
    pub cost: i128,
    pub terms: Vec<TermCost>,
    pub games_before: u32,
}

/// A paired round.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// Top board first.
    pub pairs: Vec<Pair>,
    pub bye: Option<(usize, i128, Vec<TermCost>)>,
    /// Total cost in micro-units.
    pub objective: i128,
    pub repeats: usize,
}

/// Pairs a round exactly under a model.
pub fn pair_round(field: &Field, opts: SolveOptions) -> Result<Round, ModelError> {
    let m = min_cost_perfect_matching(field, opts).map_err(|e| match e {
        SolveError::NoPerfectMatching => ModelError::NoPairing(
            "no pairing exists: the forbidden pairs (previous games with repeats forbidden, \
             explicit exclusions) leave a player without a possible opponent"
                .to_string(),
        ),
        e => ModelError::Invalid(e.to_string()),
    })?;
    let n = field.n;
    let mut pairs = Vec::new();
    let mut bye = None;
    let mut repeats = 0;
    for (u, &v) in m.mate.iter().enumerate() {
        if u >= n {
            continue;
        }
        if v == n {
            bye = Some((field.order[u], field.bye_cost(u), field.explain(u, n)));
        } else if u < v {
            let games = field.games(u, v);
            if games > 0 {
                repeats += 1;
            }
            pairs.push(Pair {
                a: field.order[u],
                b: field.order[v],
                cost: field.pair_cost(u, v, false),
                terms: field.explain(u, v),
                games_before: games,
            });
        }
    }
    Ok(Round {
        pairs,
        bye,
        objective: m.cost,
        repeats,
    })
}

/// Algorithm::Pair::Best's sliding window, for users who want its pairings: items in the
/// caller's order; each step searches the best arrangement of the next `window` pairs, where
/// the first unpaired item tries its best `2·pairs − 1` unpaired candidates (by cost, ties in
/// the caller's order) and the search recurses on the next unpaired item; only the first pair
/// is kept, until the rest fits one window. Its two bugs are not copied: the pruning is only
/// used when it is valid (no negative scores, i.e. no negative costs here), and an odd field
/// gets its bye first (the cheapest bye cost, ties to the last in the caller's order) instead
/// of looping forever. The exact optimum (`pair_round`) is never worse.
pub fn pair_window(field: &Field, window: usize) -> Result<Round, ModelError> {
    let n = field.n;
    let window = window.max(1);
    // Caller index → pairing position.
    let mut pos = vec![0usize; n];
    for (k, &i) in field.order.iter().enumerate() {
        pos[i] = k;
    }
    let mut paired = vec![false; n];
    let mut bye = None;
    if n % 2 == 1 {
        let mut best: Option<(i128, usize)> = None;
        for (i, &p) in pos.iter().enumerate() {
            let c = field.bye_cost(p);
            if best.is_none_or(|(b, _)| c <= b) {
                best = Some((c, i));
            }
        }
        if let Some((c, i)) = best {
            paired[i] = true;
            bye = Some((i, c, field.explain(pos[i], n)));
        }
    }
    let cost = |a: usize, b: usize| -> Option<i128> {
        let (u, v) = (pos[a].min(pos[b]), pos[a].max(pos[b]));
        field.cost(u, v)
    };
    // Candidate lists: every other item by ascending cost, stable in the caller's order. A
    // step's search only starts from its first 2·pairs_left − 1 unpaired items, so a list is built
    // when its item gets there and dropped once it is paired: memory O(window · n) instead of
    // all n lists (n² entries, gigabytes for 10,000 players).
    let list_of = |a: usize| -> Vec<(usize, i128)> {
        let mut l: Vec<(usize, i128)> = (0..n)
            .filter(|&b| b != a)
            .filter_map(|b| cost(a, b).map(|c| (b, c)))
            .collect();
        l.sort_by_key(|&(_, c)| c);
        l
    };
    let mut lists: Vec<Vec<(usize, i128)>> = vec![Vec::new(); n];
    let mut built = vec![false; n];
    struct Search<'s> {
        lists: &'s [Vec<(usize, i128)>],
        paired: Vec<bool>,
        /// Every item before it is paired.
        start: usize,
        best: Option<(i128, Vec<(usize, usize)>)>,
        chosen: Vec<(usize, usize)>,
        prune: bool,
        /// Search nodes visited, for the budget checks.
        visited: u64,
        stopped: bool,
    }
    fn rec(s: &mut Search, pairs_left: usize, acc: i128) {
        // A wide window explores millions of arrangements per step: look at the request's
        // budget now and then.
        s.visited += 1;
        if s.stopped || (s.visited.is_multiple_of(65_536) && crate::budget::expired()) {
            s.stopped = true;
            return;
        }
        if pairs_left == 0 {
            if s.best.as_ref().is_none_or(|(b, _)| acc < *b) {
                s.best = Some((acc, s.chosen.clone()));
            }
            return;
        }
        let Some(me) = s.paired[s.start..]
            .iter()
            .position(|&p| !p)
            .map(|i| i + s.start)
        else {
            return;
        };
        s.paired[me] = true;
        let cands: Vec<(usize, i128)> = s.lists[me]
            .iter()
            .filter(|&&(b, _)| !s.paired[b])
            .take(2 * pairs_left - 1)
            .copied()
            .collect();
        for (b, c) in cands {
            let acc2 = acc + c;
            if s.prune && s.best.as_ref().is_some_and(|(best, _)| acc2 > *best) {
                continue;
            }
            s.paired[b] = true;
            s.chosen.push((me, b));
            rec(s, pairs_left - 1, acc2);
            s.chosen.pop();
            s.paired[b] = false;
        }
        s.paired[me] = false;
    }
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut left = paired.iter().filter(|&&p| !p).count();
    let mut start = 0;
    loop {
        while start < n && paired[start] {
            start += 1;
        }
        if left == 0 {
            break;
        }
        crate::budget::check().map_err(|e| ModelError::Invalid(e.to_string()))?;
        let pairs_left = (left / 2).min(window);
        // The items a search can start from: at depth d, 2d items are paired, so its item is
        // among the first 2d + 1 unpaired ones; the deepest is pairs_left − 1.
        let heads: Vec<usize> = (start..n)
            .filter(|&i| !paired[i])
            .take(2 * pairs_left - 1)
            .collect();
        for &a in &heads {
            if !built[a] {
                lists[a] = list_of(a);
                built[a] = true;
            }
        }
        // Pruning is sound when no cost the search can add is negative (a partial sum never
        // shrinks), as in Algorithm::Pair::Best without negative scores.
        let prune = heads.iter().all(|&a| lists[a].iter().all(|&(_, c)| c >= 0));
        let mut s = Search {
            lists: &lists,
            paired: paired.clone(),
            start,
            best: None,
            chosen: Vec::new(),
            prune,
            visited: 0,
            stopped: false,
        };
        rec(&mut s, pairs_left, 0);
        if s.stopped {
            return Err(ModelError::Invalid(crate::budget::OverBudget.to_string()));
        }
        let Some((_, chosen)) = s.best else {
            return Err(ModelError::NoPairing(
                "window mode found no pairing: the forbidden pairs block the window search \
                 (the exact mode may still find one)"
                    .to_string(),
            ));
        };
        let keep = if 2 * pairs_left >= left {
            chosen.len()
        } else {
            1
        };
        for &(a, b) in chosen.iter().take(keep) {
            paired[a] = true;
            paired[b] = true;
            left -= 2;
            kept.push((a, b));
            lists[a] = Vec::new();
            lists[b] = Vec::new();
        }
    }
    let mut pairs: Vec<Pair> = kept
        .into_iter()
        .map(|(a, b)| {
            let (u, v) = (pos[a].min(pos[b]), pos[a].max(pos[b]));
            Pair {
                a: field.order[u],
                b: field.order[v],
                cost: field.pair_cost(u, v, false),
                terms: field.explain(u, v),
                games_before: field.games(u, v),
            }
        })
        .collect();
    pairs.sort_by_key(|p| pos[p.a]);
    let objective = pairs.iter().map(|p| p.cost).sum::<i128>() + bye.as_ref().map_or(0, |b| b.1);
    let repeats = pairs.iter().filter(|p| p.games_before > 0).count();
    Ok(Round {
        pairs,
        bye,
        objective,
        repeats,
    })
}
