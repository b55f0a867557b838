//! What one tournament's clients saw, and the invariants it must satisfy: nobody twice in a
//! round, full rounds, balanced byes, every checkout committed once, repeats only when allowed
//! and as the server counts them, the right number of rounds, and standings that agree with the
//! results the clients committed.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// `ceil(log2 n)`: rswiss's round count before additional rounds (0 for one player).
pub fn base_rounds(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

pub struct Log {
    pub players: Vec<i64>,
    pub allow_repeat: bool,
    pub rounds: u32,
    /// Matches in every round: floor(n/2).
    pub per_round: usize,
    /// (round, p1, p2) in the order the checkouts were answered.
    pub checkouts: Vec<(u32, i64, i64)>,
    /// (p1, p2, result) as committed and acknowledged, in the checkout's orientation.
    pub commits: Vec<(i64, i64, i64)>,
}

impl Log {
    pub fn new(players: Vec<i64>, additional_rounds: u32, allow_repeat: bool) -> Log {
        let n = players.len();
        Log {
            rounds: base_rounds(n) + additional_rounds,
            per_round: n / 2,
            players,
            allow_repeat,
            checkouts: Vec::new(),
            commits: Vec::new(),
        }
    }

    pub fn expected_matches(&self) -> usize {
        self.rounds as usize * self.per_round
    }

    /// Records a checkout and returns its round. A round's checkouts cannot be answered before
    /// every checkout of the previous round was answered (its matches must be committed
    /// first, and clients commit only what they received), so arrival order gives the round.
    pub fn checked_out(&mut self, p1: i64, p2: i64) -> u32 {
        let round = (self.checkouts.len() / self.per_round.max(1)) as u32;
        self.checkouts.push((round, p1, p2));
        round
    }

    pub fn committed(&mut self, p1: i64, p2: i64, result: i64) {
        self.commits.push((p1, p2, result));
    }

    /// Per-round checks, valid for a tournament stopped early too.
    pub fn check_rounds(&self, violations: &mut Vec<String>) {
        let ids: HashSet<i64> = self.players.iter().copied().collect();
        let mut by_round: HashMap<u32, Vec<(i64, i64)>> = HashMap::new();
        for &(r, a, b) in &self.checkouts {
            by_round.entry(r).or_default().push((a, b));
        }
        let mut byes: HashMap<i64, u32> = self.players.iter().map(|&p| (p, 0)).collect();
        let mut rounds: Vec<_> = by_round.into_iter().collect();
        rounds.sort_by_key(|(r, _)| *r);
        for (r, matches) in &rounds {
            let mut seen = HashSet::new();
            for &(a, b) in matches {
                if a == b {
                    violations.push(format!("round {r}: player {a} paired with himself"));
                }
                for p in [a, b] {
                    if !ids.contains(&p) {
                        violations.push(format!("round {r}: unknown player {p}"));
                    }
                    if !seen.insert(p) {
                        violations.push(format!("round {r}: player {p} twice in the round"));
                    }
                }
            }
            let complete = matches.len() == self.per_round;
            if !complete && Some(r) != rounds.last().map(|(r, _)| r) {
                violations.push(format!(
                    "round {r}: {} matches, expected {}",
                    matches.len(),
                    self.per_round
                ));
            }
            if complete && self.players.len() % 2 == 1 {
                for p in &self.players {
                    if !seen.contains(p) {
                        *byes.entry(*p).or_default() += 1;
                    }
                }
            }
        }
        // The bye goes to a player with the fewest byes so far, so counts never differ by 2.
        if let (Some(lo), Some(hi)) = (byes.values().min(), byes.values().max())
            && hi - lo > 1
        {
            violations.push(format!("byes unbalanced: {lo} to {hi} per player"));
        }
        if rounds.len() > self.rounds as usize {
            violations.push(format!(
                "{} rounds played, expected {}",
                rounds.len(),
                self.rounds
            ));
        }
        let mut pairs: HashMap<(i64, i64), u32> = HashMap::new();
        for &(_, a, b) in &self.checkouts {
            *pairs.entry((a.min(b), a.max(b))).or_default() += 1;
        }
        if !self.allow_repeat
            && let Some(((a, b), n)) = pairs.iter().find(|(_, n)| **n > 1)
        {
            violations.push(format!("{a} and {b} met {n} times without allow_repeat"));
        }
    }

    /// Match rows the server should flag as repeated: every match of a pair that met more
    /// than once (rswiss flags the old and the new match: 2 per repetition).
    pub fn repeated_rows(&self) -> u64 {
        let mut pairs: HashMap<(i64, i64), u64> = HashMap::new();
        for &(_, a, b) in &self.checkouts {
            *pairs.entry((a.min(b), a.max(b))).or_default() += 1;
        }
        pairs.values().filter(|n| **n > 1).sum()
    }

    /// End-of-tournament checks against what the server reports.
    pub fn check_end(&self, end: &End, violations: &mut Vec<String>) {
        if self.checkouts.len() != self.expected_matches() {
            violations.push(format!(
                "{} matches played, expected {} ({} rounds of {})",
                self.checkouts.len(),
                self.expected_matches(),
                self.rounds,
                self.per_round
            ));
        }
        let mut out: HashMap<(i64, i64), u32> = HashMap::new();
        for &(_, a, b) in &self.checkouts {
            *out.entry((a, b)).or_default() += 1;
        }
        let mut done: HashMap<(i64, i64), u32> = HashMap::new();
        for &(a, b, _) in &self.commits {
            *done.entry((a, b)).or_default() += 1;
        }
        if out != done {
            violations.push(format!(
                "{} checkouts but {} commits acknowledged, or different pairs",
                self.checkouts.len(),
                self.commits.len()
            ));
        }
        if !end.has_ended {
            violations.push("has_ended is false after fault 202".into());
        }
        if end.round != i64::from(self.rounds) {
            violations.push(format!(
                "round is {} at the end, expected {}",
                end.round, self.rounds
            ));
        }
        if end.repeated != self.repeated_rows() as i64 {
            violations.push(format!(
                "repeated_matches is {}, the clients saw {} repeated matches",
                end.repeated,
                self.repeated_rows()
            ));
        }
        self.check_table(&end.table, violations);
        if let Some(w) = end.winner
            && end
                .table
                .first()
                .and_then(|r| r.first())
                .and_then(Value::as_i64)
                != Some(w)
        {
            violations.push(format!("winner {w} is not first in table_by_criteria"));
        }
    }

    fn check_table(&self, table: &[Vec<Value>], violations: &mut Vec<String>) {
        // Expected (matches, score, wins) per player from the committed results.
        let mut expect: HashMap<i64, (i64, f64, i64)> =
            self.players.iter().map(|&p| (p, (0, 0.0, 0))).collect();
        for &(a, b, res) in &self.commits {
            let (sa, sb, wa, wb) = match res {
                -1 => (1.0, 0.0, 1, 0),
                0 => (0.5, 0.5, 0, 0),
                _ => (0.0, 1.0, 0, 1),
            };
            for (p, s, w) in [(a, sa, wa), (b, sb, wb)] {
                if let Some(e) = expect.get_mut(&p) {
                    e.0 += 1;
                    e.1 += s;
                    e.2 += w;
                }
            }
        }
        // A player missing from a complete round had the bye: one match, one point.
        let mut by_round: HashMap<u32, HashSet<i64>> = HashMap::new();
        for &(r, a, b) in &self.checkouts {
            let s = by_round.entry(r).or_default();
            s.insert(a);
            s.insert(b);
        }
        if self.players.len() % 2 == 1 {
            for present in by_round.values() {
                for p in &self.players {
                    if !present.contains(p)
                        && let Some(e) = expect.get_mut(p)
                    {
                        e.0 += 1;
                        e.1 += 1.0;
                    }
                }
            }
        }
        if table.len() != self.players.len() {
            violations.push(format!(
                "table_by_criteria has {} rows for {} players",
                table.len(),
                self.players.len()
            ));
        }
        let mut last_score = f64::INFINITY;
        for row in table {
            let num = |i: usize| row.get(i).and_then(Value::as_f64);
            let (Some(id), Some(matches), Some(score), Some(wins)) =
                (row.first().and_then(Value::as_i64), num(1), num(2), num(7))
            else {
                violations.push(format!("malformed standings row {row:?}"));
                continue;
            };
            if row.len() != 8 {
                violations.push(format!("standings row of {} fields: {row:?}", row.len()));
            }
            match expect.get(&id) {
                None => violations.push(format!("standings list unknown player {id}")),
                Some(&(m, s, w)) => {
                    if matches != m as f64 || score != s || wins != w as f64 {
                        violations.push(format!(
                            "player {id}: table says matches {matches}, score {score}, wins \
                             {wins}; committed results give {m}, {s}, {w}"
                        ));
                    }
                }
            }
            if score > last_score {
                violations.push(format!("standings not sorted by score at player {id}"));
            }
            last_score = score;
        }
    }
}

/// What the server says once a tournament has ended.
pub struct End {
    pub has_ended: bool,
    pub round: i64,
    pub repeated: i64,
    pub table: Vec<Vec<Value>>,
    /// `None` when the winner is a tie on every criterion (fault 402).
    pub winner: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rounds_like_rswiss() {
        for (n, r) in [(1, 0), (2, 1), (3, 2), (16, 4), (17, 5), (64, 6), (256, 8)] {
            assert_eq!(base_rounds(n), r, "{n}");
        }
    }

    fn three_player_log() -> Log {
        let mut log = Log::new(vec![1, 2, 3], 0, false);
        // Round 0: 1-2 (3 has the bye), round 1: 3-1 (2 has the bye).
        assert_eq!(log.checked_out(1, 2), 0);
        log.committed(1, 2, -1);
        assert_eq!(log.checked_out(3, 1), 1);
        log.committed(3, 1, 0);
        log
    }

    #[test]
    fn a_consistent_tournament_passes() {
        let log = three_player_log();
        let end = End {
            has_ended: true,
            round: 2,
            repeated: 0,
            // 1: W + D = 1.5; 3: bye + D = 1.5; 2: L + bye = 1.
            table: vec![
                vec![
                    json!(1),
                    json!(2),
                    json!(1.5),
                    json!(0.0),
                    json!(0.0),
                    json!(0.0),
                    json!(0.0),
                    json!(1),
                ],
                vec![
                    json!(3),
                    json!(2),
                    json!(1.5),
                    json!(0.0),
                    json!(0.0),
                    json!(0.0),
                    json!(0.0),
                    json!(0),
                ],
                vec![
                    json!(2),
                    json!(2),
                    json!(1.0),
                    json!(0.0),
                    json!(0.0),
                    json!(0.0),
                    json!(0.0),
                    json!(0),
                ],
            ],
            winner: Some(1),
        };
        let mut v = Vec::new();
        log.check_rounds(&mut v);
        log.check_end(&end, &mut v);
        assert!(v.is_empty(), "{v:?}");
    }

    #[test]
    fn violations_are_found() {
        let mut log = Log::new(vec![1, 2, 3, 4], 0, false);
        log.checked_out(1, 2);
        log.checked_out(2, 3);
        log.checked_out(1, 2);
        let mut v = Vec::new();
        log.check_rounds(&mut v);
        assert!(v.iter().any(|m| m.contains("player 2 twice")), "{v:?}");
        assert!(v.iter().any(|m| m.contains("met 2 times")), "{v:?}");
        let log = three_player_log();
        let end = End {
            has_ended: true,
            round: 2,
            repeated: 0,
            table: vec![vec![
                json!(1),
                json!(2),
                json!(2.0),
                json!(0.0),
                json!(0.0),
                json!(0.0),
                json!(0.0),
                json!(2),
            ]],
            winner: Some(3),
        };
        let mut v = Vec::new();
        log.check_end(&end, &mut v);
        assert!(
            v.iter().any(|m| m.contains("player 1: table says")),
            "{v:?}"
        );
        assert!(v.iter().any(|m| m.contains("1 rows for 3")), "{v:?}");
        assert!(v.iter().any(|m| m.contains("winner 3")), "{v:?}");
    }
}
