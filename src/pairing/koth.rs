//! The matchmaker's optimal king-of-the-hill round: the seam the tournament engine calls.
//!
//! rswiss pairs greedily down the standings (1–2, 3–4, …, skipping past previous opponents) and
//! dead-locks when the last players left have all met. Here the same intent is one exact
//! minimum-cost perfect matching with lexicographic tiers, from the most to the least
//! important:
//!
//! 1. **bye fairness** — the bye goes to a player with the fewest byes so far;
//! 2. **repeats** — as few repeated pairs as possible (a pair that met once may meet again only
//!    with `allow_repeat`; a pair that met twice never does: those pairs are absent edges);
//! 3. **bye placement** — among those, the bye goes to the lowest-placed player;
//! 4. **score gaps** — the sum of *squared* score differences (in half points). Squared, as
//!    OpenGotha's concave score weight does, so two one-point floats beat one two-point float
//!    instead of tying with it;
//! 5. **standings distance** — the sum of squared differences of standings positions, which
//!    makes 1–2, 3–4, … the unique best among equal scores.
//!
//! Each tier's unit exceeds the largest possible total of all lower tiers, so the tiers are
//! never traded against each other; costs are `i128`. A round is refused (`NoLegalRound`) only
//! when no perfect matching of legal pairs exists.

use super::solve::{PairCosts, SolveError, SolveOptions, min_cost_perfect_matching};

/// One player, in standings order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KothPlayer {
    /// Score × 2, so 1.5 points is 3.
    pub score_halves: i64,
    /// Byes received so far.
    pub byes: u32,
}

/// A round to pair.
#[derive(Debug, Clone, Copy)]
pub struct KothInput<'a> {
    /// Standings order: index 0 is the top.
    pub players: &'a [KothPlayer],
    /// Pairs (i, j) of indices and how many times they met (either order; duplicates add up).
    pub played: &'a [(usize, usize, u32)],
    /// Whether a pair that met once may meet a second time.
    pub allow_repeat: bool,
}

/// The optimal round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KothPairing {
    /// Pairs (higher-placed, lower-placed), top board first.
    pub pairs: Vec<(usize, usize)>,
    /// The player with the bye, when the count is odd.
    pub bye: Option<usize>,
    /// Pairs of this round that met before.
    pub repeats: usize,
}

/// No legal round exists: every perfect matching would need a forbidden repeat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoLegalRound {
    pub message: String,
}

impl std::fmt::Display for NoLegalRound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NoLegalRound {}

/// The tiered cost oracle of a king-of-the-hill round (vertex `n` is the BYE when n is odd).
/// Public so tests can run other solvers on exactly the same costs.
#[derive(Debug, Clone)]
pub struct KothCosts {
    n: usize,
    score: Vec<i64>,
    bye_excess: Vec<i128>,
    /// Times met, row-major n×n (u8 saturating: 2 already means "never again").
    met: Vec<u8>,
    allow_repeat: bool,
    /// Units of tiers 1–4 (tier 5 has unit 1).
    unit_bye: i128,
    unit_repeat: i128,
    unit_place: i128,
    unit_gap: i128,
    /// Scores never increase down the standings, so the gap grows with the distance.
    sorted: bool,
}

impl KothCosts {
    /// Builds the costs; `Err` only for a malformed input (an index out of range or a pair
    /// of a player with itself) or tiers too large for `i128`.
    pub fn new(input: &KothInput) -> Result<KothCosts, NoLegalRound> {
        let n = input.players.len();
        let mut met = vec![0u8; n * n];
        for &(i, j, times) in input.played {
            if i >= n || j >= n || i == j {
                return Err(NoLegalRound {
                    message: format!("played pair ({i}, {j}) is not a pair of the {n} players"),
                });
            }
            let t = times.min(2) as u8;
            met[i * n + j] = met[i * n + j].saturating_add(t).min(2);
            met[j * n + i] = met[i * n + j];
        }
        let score: Vec<i64> = input.players.iter().map(|p| p.score_halves).collect();
        let min_byes = input.players.iter().map(|p| p.byes).min().unwrap_or(0);
        let bye_excess: Vec<i128> = input
            .players
            .iter()
            .map(|p| (p.byes - min_byes) as i128)
            .collect();
        let too_big = || NoLegalRound {
            message: "the round is too large to pair exactly".to_string(),
        };
        let edges = (n as i128 + 1) / 2;
        let last = (n as i128 - 1).max(0);
        let (lo, hi) = (
            score.iter().copied().min().unwrap_or(0) as i128,
            score.iter().copied().max().unwrap_or(0) as i128,
        );
        let gap = hi - lo;
        // Largest possible totals of the lower tiers, built bottom-up.
        let max_dist = edges.checked_mul(last * last).ok_or_else(too_big)?;
        let unit_gap = max_dist + 1;
        let max_gap = edges
            .checked_mul(gap.checked_mul(gap).ok_or_else(too_big)?)
            .and_then(|g| g.checked_mul(unit_gap))
            .and_then(|g| g.checked_add(max_dist))
            .ok_or_else(too_big)?;
        let unit_place = max_gap + 1;
        let max_place = last
            .checked_mul(unit_place)
            .and_then(|p| p.checked_add(max_gap))
            .ok_or_else(too_big)?;
        let unit_repeat = max_place + 1;
        let max_repeat = edges
            .checked_mul(unit_repeat)
            .and_then(|r| r.checked_add(max_place))
            .ok_or_else(too_big)?;
        let unit_bye = max_repeat + 1;
        let max_excess = bye_excess.iter().copied().max().unwrap_or(0);
        // The solver keeps its duals within a few multiples of n·max cost.
        let max_cost = max_excess
            .checked_mul(unit_bye)
            .and_then(|b| b.checked_add(max_repeat))
            .ok_or_else(too_big)?;
        if max_cost > i128::MAX / (64 * (n as i128 + 3)) {
            return Err(too_big());
        }
        Ok(KothCosts {
            n,
            score,
            bye_excess,
            met,
            allow_repeat: input.allow_repeat,
            unit_bye,
            unit_repeat,
            unit_place,
            unit_gap,
            sorted: input
                .players
                .windows(2)
                .all(|w| w[0].score_halves >= w[1].score_halves),
        })
    }

    fn met(&self, u: usize, v: usize) -> u8 {
        self.met[u * self.n + v]
    }
}

impl PairCosts for KothCosts {
    type W = i128;

    fn len(&self) -> usize {
        self.n + self.n % 2
    }

    fn cost(&self, u: usize, v: usize) -> Option<i128> {
        if v == self.n {
            // u gets the bye.
            let place = (self.n - 1 - u) as i128;
            return Some(self.bye_excess[u] * self.unit_bye + place * self.unit_place);
        }
        let repeat = match self.met(u, v) {
            0 => 0,
            1 if self.allow_repeat => 1,
            _ => return None,
        };
        let gap = (self.score[u] - self.score[v]) as i128;
        let dist = (v - u) as i128;
        Some(repeat * self.unit_repeat + gap * gap * self.unit_gap + dist * dist)
    }

    fn lower_bound(&self, u: usize, v: usize) -> i128 {
        if v == self.n {
            return self.cost(u, v).unwrap_or(i128::MAX);
        }
        let gap = (self.score[u] - self.score[v]) as i128;
        let dist = (v - u) as i128;
        gap * gap * self.unit_gap + dist * dist
    }

    fn monotone_bound(&self, u: usize, v: usize) -> Option<i128> {
        let dist = (v - u) as i128;
        Some(if self.sorted && v < self.n {
            let gap = (self.score[u] - self.score[v]) as i128;
            gap * gap * self.unit_gap + dist * dist
        } else {
            dist * dist
        })
    }

    fn hubs(&self) -> Vec<usize> {
        if self.n % 2 == 1 {
            vec![self.n]
        } else {
            vec![]
        }
    }
}

/// Pairs one round optimally (see the module documentation for the tiers).
pub fn pair_king_of_the_hill(input: &KothInput) -> Result<KothPairing, NoLegalRound> {
    let costs = KothCosts::new(input)?;
    let n = input.players.len();
    let m = match min_cost_perfect_matching(&costs, SolveOptions::default()) {
        Ok(m) => m,
        Err(SolveError::NoPerfectMatching) => {
            return Err(NoLegalRound {
                message: if input.allow_repeat {
                    "no legal round: even repeating pairs once cannot pair everyone".to_string()
                } else {
                    "no legal round: every pairing of the remaining players repeats a game"
                        .to_string()
                },
            });
        }
        Err(e) => {
            return Err(NoLegalRound {
                message: e.to_string(),
            });
        }
    };
    let mut pairs = Vec::with_capacity(n / 2);
    let mut bye = None;
    let mut repeats = 0;
    for (u, &v) in m.mate.iter().enumerate() {
        if v == n {
            bye = Some(u);
        } else if u < v && u < n {
            if costs.met(u, v) > 0 {
                repeats += 1;
            }
            pairs.push((u, v));
        }
    }
    debug_assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0));
    Ok(KothPairing {
        pairs,
        bye,
        repeats,
    })
}
