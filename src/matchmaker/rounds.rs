//! Round generation: the seam between the engine and a pairing strategy.
//!
//! `optimal` mode (the default) pairs each round as one exact min-cost perfect matching
//! (`crate::pairing::pair_king_of_the_hill`): king-of-the-hill by score, never dead-locked
//! unless no legal round exists. `rswiss` mode reproduces what rswiss's greedy king-of-the-hill pairing effectively does
//! (docs/rswiss.md): adjacent pairing in score order skipping previous opponents, one retry with
//! shuffled score brackets, then — if allowed — one repetition per pair, otherwise a fault.

use std::collections::HashMap;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{EngineError, MatchState, PlannedMatch, PlayerId, Tournament};
use crate::pairing::{KothInput, KothPlayer, pair_king_of_the_hill};

/// How a tournament pairs its rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairingMode {
    /// Optimal king-of-the-hill: fewest repeats, then smallest score gaps, then nearest in the
    /// standings, the bye to the lowest-placed player without one.
    #[default]
    Optimal,
    /// rswiss's greedy king-of-the-hill, faults and all.
    Rswiss,
}

impl PairingMode {
    pub const ALL: &[PairingMode] = &[PairingMode::Optimal, PairingMode::Rswiss];

    pub fn parse(name: &str) -> Option<PairingMode> {
        match name {
            "optimal" => Some(PairingMode::Optimal),
            "rswiss" => Some(PairingMode::Rswiss),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PairingMode::Optimal => "optimal",
            PairingMode::Rswiss => "rswiss",
        }
    }
}

/// A generated round, ready to become a `RoundPaired` event.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundPlan {
    pub matches: Vec<PlannedMatch>,
    pub bye: Option<PlayerId>,
}

/// Pairs met so far (decided games only), keyed by (low index, high index).
fn meetings(t: &Tournament) -> HashMap<(usize, usize), u32> {
    let mut met = HashMap::new();
    for m in &t.matches {
        if matches!(m.state, MatchState::Done(_)) {
            *met.entry((m.p1.min(m.p2), m.p1.max(m.p2))).or_insert(0) += 1;
        }
    }
    met
}

fn times_met(met: &HashMap<(usize, usize), u32>, a: usize, b: usize) -> u32 {
    met.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
}

/// rswiss's gen_matches: for each unscheduled player in list order, the first unscheduled
/// player from the top it may meet. `max_meetings` is 0 for "never met", 1 when one repetition
/// per pair is allowed.
fn greedy(
    order: &[usize],
    scheduled: &mut [bool],
    met: &HashMap<(usize, usize), u32>,
    max_meetings: u32,
    out: &mut Vec<(usize, usize)>,
) {
    for (i, &p1) in order.iter().enumerate() {
        if scheduled[p1] {
            continue;
        }
        let partner = order
            .iter()
            .skip(i + 1)
            .copied()
            .find(|&p2| !scheduled[p2] && times_met(met, p1, p2) <= max_meetings);
        if let Some(p2) = partner {
            scheduled[p1] = true;
            scheduled[p2] = true;
            out.push((p1, p2));
        }
    }
}

impl Tournament {
    /// The RNG for the round about to be paired: one ChaCha stream per round, so a round's
    /// randomness does not depend on how many draws earlier rounds made.
    fn round_rng(&self) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.settings.seed);
        rng.set_stream(u64::from(self.round));
        rng
    }

    /// Pairs the next round.
    pub(super) fn plan_round(&self) -> Result<RoundPlan, EngineError> {
        match self.settings.pairing {
            PairingMode::Optimal => self.plan_optimal(),
            PairingMode::Rswiss => self.plan_rswiss(),
        }
    }

    fn plan_optimal(&self) -> Result<RoundPlan, EngineError> {
        let n = self.players.len();
        // First round: a random order, as rswiss. Later: the standings, so "distance in the
        // standings" means what a tournament director sees in the table.
        let order: Vec<usize> = if self.round == 0 {
            let mut order: Vec<usize> = (0..n).collect();
            order.shuffle(&mut self.round_rng());
            order
        } else {
            self.standings().iter().map(|r| self.index[&r.id]).collect()
        };
        let mut position = vec![0usize; n];
        for (pos, &p) in order.iter().enumerate() {
            position[p] = pos;
        }
        let scores = self.scores();
        let players: Vec<KothPlayer> = order
            .iter()
            .map(|&p| KothPlayer {
                // Scores are multiples of one half, so this is exact.
                score_halves: (scores[p] * 2.0).round() as i64,
                byes: self.byes[p].len() as u32,
            })
            .collect();
        let met = meetings(self);
        let played: Vec<(usize, usize, u32)> = met
            .iter()
            .map(|(&(a, b), &count)| (position[a], position[b], count))
            .collect();
        let input = KothInput {
            players: &players,
            played: &played,
            allow_repeat: self.settings.allow_repeat,
        };
        let pairing = pair_king_of_the_hill(&input).map_err(|_| {
            if self.settings.allow_repeat {
                EngineError::RepetitionExhausted
            } else {
                EngineError::MaxRearranges
            }
        })?;
        let matches = pairing
            .pairs
            .iter()
            .map(|&(i, j)| {
                let (a, b) = (order[i], order[j]);
                PlannedMatch {
                    p1: self.players[a],
                    p2: self.players[b],
                    repeated: times_met(&met, a, b) > 0,
                }
            })
            .collect();
        Ok(RoundPlan {
            matches,
            bye: pairing.bye.map(|i| self.players[order[i]]),
        })
    }

    fn plan_rswiss(&self) -> Result<RoundPlan, EngineError> {
        let n = self.players.len();
        let mut rng = self.round_rng();
        let scores = self.scores();
        let by_score = |order: &mut Vec<usize>| {
            // Stable: equal scores keep creation order (rswiss leaves it arbitrary).
            order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        };
        let mut order: Vec<usize> = (0..n).collect();
        if self.round == 0 {
            order.shuffle(&mut rng);
        } else {
            by_score(&mut order);
        }

        // The bye: walking up from the bottom, the first player without one. rswiss gives
        // nobody the bye once everyone has had one (and the odd player then sits out forever);
        // we give it to the lowest-placed player with the fewest byes instead.
        let mut bye = None;
        if n % 2 == 1 {
            let fewest = order.iter().map(|&p| self.byes[p].len()).min().unwrap_or(0);
            bye = order
                .iter()
                .rev()
                .copied()
                .find(|&p| self.byes[p].len() == fewest);
        }
        let mut base = vec![false; n];
        if let Some(b) = bye {
            base[b] = true;
        }
        let wanted = n / 2;
        let met = meetings(self);

        let mut pairs = Vec::with_capacity(wanted);
        let mut scheduled = base.clone();
        greedy(&order, &mut scheduled, &met, 0, &mut pairs);
        let mut repeated = Vec::new();
        if pairs.len() < wanted {
            // rswiss's "backtrack" never pairs anyone, and of its hard rearrangements only the
            // first can matter (docs/rswiss.md): one more greedy pass with each equal-score bracket
            // shuffled.
            let mut hard: Vec<usize> = (0..n).collect();
            by_score(&mut hard);
            for bracket in hard.chunk_by_mut(|&a, &b| scores[a] == scores[b]) {
                bracket.shuffle(&mut rng);
            }
            pairs.clear();
            scheduled = base;
            greedy(&hard, &mut scheduled, &met, 0, &mut pairs);
            if pairs.len() < wanted {
                if !self.settings.allow_repeat {
                    return Err(EngineError::MaxRearranges);
                }
                let first_repeat = pairs.len();
                greedy(&hard, &mut scheduled, &met, 1, &mut pairs);
                if pairs.len() < wanted {
                    return Err(EngineError::RepetitionExhausted);
                }
                repeated = pairs[first_repeat..]
                    .iter()
                    .map(|&(a, b)| times_met(&met, a, b) > 0)
                    .collect();
            }
        }
        let first_repeat = pairs.len() - repeated.len();
        let matches = pairs
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| PlannedMatch {
                p1: self.players[a],
                p2: self.players[b],
                repeated: i >= first_repeat && repeated[i - first_repeat],
            })
            .collect();
        Ok(RoundPlan {
            matches,
            bye: bye.map(|b| self.players[b]),
        })
    }
}
