//! Standings: rswiss's six criteria, computed from the committed results (docs/rswiss.md) with the
//! one deliberate fix that the cumulative score runs in chronological order.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{MatchState, PlayerId, Tournament};

/// A tie-break criterion, in rswiss's default order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    Score,
    BuchholzScore,
    NeustadtlScore,
    CScore,
    OppCScore,
    Wins,
}

pub const CRITERIA: [Criterion; 6] = [
    Criterion::Score,
    Criterion::BuchholzScore,
    Criterion::NeustadtlScore,
    Criterion::CScore,
    Criterion::OppCScore,
    Criterion::Wins,
];

impl Criterion {
    /// The name rswiss puts on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Criterion::Score => "score",
            Criterion::BuchholzScore => "buchholz_score",
            Criterion::NeustadtlScore => "neustadtl_score",
            Criterion::CScore => "c_score",
            Criterion::OppCScore => "opp_c_score",
            Criterion::Wins => "wins",
        }
    }
}

/// One line of the standings table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub id: PlayerId,
    /// Rounds in which the player was scheduled: games (played or not yet) plus byes.
    pub matches: u32,
    pub score: f64,
    pub buchholz_score: f64,
    pub neustadtl_score: f64,
    pub c_score: f64,
    pub opp_c_score: f64,
    pub wins: u32,
}

impl Row {
    pub fn value(&self, c: Criterion) -> f64 {
        match c {
            Criterion::Score => self.score,
            Criterion::BuchholzScore => self.buchholz_score,
            Criterion::NeustadtlScore => self.neustadtl_score,
            Criterion::CScore => self.c_score,
            Criterion::OppCScore => self.opp_c_score,
            Criterion::Wins => f64::from(self.wins),
        }
    }

    fn key(&self) -> [f64; 6] {
        CRITERIA.map(|c| self.value(c))
    }
}

// Sums here start from +0.0 with `fold`: `Iterator::sum` for floats starts from -0.0, which
// would reach the wire as `<double>-0.0</double>`.

/// Points for the player on side `p2` of a stored result (rswiss: p2 takes the result as is,
/// p1 its negation; +1 → 1.0, 0 → 0.5, -1 → 0).
fn points(result_for_player: i8) -> f64 {
    match result_for_player {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    }
}

impl Tournament {
    /// Current scores (byes included), by player index.
    pub fn scores(&self) -> Vec<f64> {
        let mut score: Vec<f64> = self.byes.iter().map(|b| b.len() as f64).collect();
        for m in &self.matches {
            if let MatchState::Done(r) = m.state {
                score[m.p1] += points(-r);
                score[m.p2] += points(r);
            }
        }
        score
    }

    /// Rows in player-creation order.
    pub fn rows(&self) -> Vec<Row> {
        let n = self.players.len();
        let score = self.scores();
        let mut matches: Vec<u32> = self.byes.iter().map(|b| b.len() as u32).collect();
        let mut wins = vec![0u32; n];
        let mut running = vec![0.0f64; n];
        let mut c_score = vec![0.0f64; n];
        let mut opponents: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut beaten: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut drawn: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        // Matches are stored round by round, so this walk is chronological.
        for m in &self.matches {
            matches[m.p1] += 1;
            matches[m.p2] += 1;
            let MatchState::Done(r) = m.state else {
                continue;
            };
            for (me, other, mine) in [(m.p1, m.p2, -r), (m.p2, m.p1, r)] {
                let pts = points(mine);
                running[me] += pts;
                c_score[me] += running[me];
                opponents[me].insert(other);
                match mine {
                    1 => {
                        wins[me] += 1;
                        beaten[me].insert(other);
                    }
                    0 => {
                        drawn[me].insert(other);
                    }
                    _ => {}
                }
            }
        }
        (0..n)
            .map(|p| {
                let mut opp_scores: Vec<f64> = opponents[p].iter().map(|&o| score[o]).collect();
                opp_scores.sort_by(f64::total_cmp);
                let trim = match opp_scores.len() {
                    0..=3 => 0,
                    4..=9 => 1,
                    _ => 2,
                };
                let buchholz: f64 = opp_scores[trim..opp_scores.len() - trim]
                    .iter()
                    .fold(0.0, |a, b| a + b);
                let neustadtl = beaten[p].iter().map(|&o| score[o]).fold(0.0, |a, b| a + b)
                    + 0.5 * drawn[p].iter().map(|&o| score[o]).fold(0.0, |a, b| a + b);
                let opp_c = opponents[p]
                    .iter()
                    .map(|&o| c_score[o])
                    .fold(0.0, |a, b| a + b);
                Row {
                    id: self.players[p],
                    matches: matches[p],
                    score: score[p],
                    buchholz_score: buchholz,
                    neustadtl_score: neustadtl,
                    c_score: c_score[p],
                    opp_c_score: opp_c,
                    wins: wins[p],
                }
            })
            .collect()
    }

    /// Standings by the six criteria, descending; complete ties keep creation order.
    pub fn standings(&self) -> Vec<Row> {
        let mut rows = self.rows();
        rows.sort_by(|a, b| {
            let (ka, kb) = (a.key(), b.key());
            kb.iter()
                .zip(ka.iter())
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        rows
    }

    /// Standings by score alone (what rswiss's `table_by_score` meant to return).
    pub fn standings_by_score(&self) -> Vec<Row> {
        let mut rows = self.rows();
        rows.sort_by(|a, b| b.score.total_cmp(&a.score));
        rows
    }
}
