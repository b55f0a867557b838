//! What one simulated tournament says about its pairing system, and the streaming
//! accumulators that turn thousands of them into means with 95 % confidence intervals.
//!
//! Accumulators keep sums in fixed point (values × 2³², as `i128`), so adding runs is exact
//! and order-free: the same seed gives the same report on any number of threads. Memory is
//! O(players × variants), never O(runs).
//!
//! Placement: each player's final position is the mean of the positions its group of equal
//! players (shared place in the standings) occupies, so tie-breaks by name never count; the
//! true position is by strength, the same way. Kendall's τ is τ-b (ties in either ranking),
//! Spearman's ρ the Pearson correlation of those positions.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::pairing::opengotha::Crit;
use crate::tournament::model::{Outcome, TournamentData};
use crate::tournament::standings::{PlayerIndex, Standings};

const SCALE: f64 = 4_294_967_296.0;

/// A running mean and variance in exact fixed point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Acc {
    pub n: u64,
    sum: i128,
    sumsq: i128,
}

impl Acc {
    pub fn add(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        let q = (x * SCALE).round() as i128;
        self.n += 1;
        self.sum += q;
        self.sumsq += q * q;
    }

    pub fn merge(&mut self, o: &Acc) {
        self.n += o.n;
        self.sum += o.sum;
        self.sumsq += o.sumsq;
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / SCALE / self.n as f64)
    }

    /// The mean with its 95 % confidence interval (Student's t below 30 observations), kept
    /// within `range` (a share stays in 0 … 1).
    pub fn interval(&self, range: (f64, f64)) -> Option<Interval> {
        let mean = self.mean()?;
        let n = self.n as f64;
        let sd = if self.n > 1 {
            // Σ(q − q̄)² = Σq² − (Σq)²/n, exact in integers up to the last division.
            let ss = self.sumsq as f64 - (self.sum as f64) * (self.sum as f64) / n;
            (ss.max(0.0) / (n - 1.0)).sqrt() / SCALE
        } else {
            0.0
        };
        let half = if self.n > 1 {
            t95(self.n - 1) * sd / n.sqrt()
        } else {
            f64::INFINITY
        };
        Some(Interval {
            mean,
            low: (mean - half).max(range.0),
            high: (mean + half).min(range.1),
            sd,
            n: self.n,
        })
    }
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom (normal past 30).
fn t95(df: u64) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        d if d <= 30 => T[d as usize - 1],
        _ => 1.96,
    }
}

/// A mean and its 95 % confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub sd: f64,
    /// Observations (runs, or runs × players for per-player figures).
    pub n: u64,
}

/// Buckets of true strength for the byes (tenths of the field, strongest first).
pub const STRENGTH_BUCKETS: usize = 10;

/// Everything measured in one tournament of one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Kendall's τ-b; `None` when one ranking is all ties.
    pub tau: Option<f64>,
    pub rho: Option<f64>,
    pub strongest_wins: f64,
    pub top3: f64,
    pub mean_abs_error: f64,
    /// By true position (1 = strongest): final position − true position.
    pub error_by_true_rank: Vec<f64>,
    pub games: u64,
    pub handicap_games: u64,
    pub handicap_stones: u64,
    pub same_club: u64,
    pub same_country: u64,
    pub repeats: u64,
    /// Mean over players of |games as White − games as Black|.
    pub colour_imbalance: f64,
    /// Byes per player in each strength bucket.
    pub byes_by_strength: Vec<f64>,
    /// Final MMS of every player, in half points.
    pub final_mms2: Vec<i64>,
}

/// Mean positions (1-based) of players ordered by `key` descending, ties sharing the mean of
/// the positions they span.
fn average_ranks(n: usize, order: &[usize], same: impl Fn(usize, usize) -> bool) -> Vec<f64> {
    let mut pos = vec![0.0; n];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && same(order[start], order[end]) {
            end += 1;
        }
        let mean = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            pos[i] = mean;
        }
        start = end;
    }
    pos
}

/// Kendall's τ-b of two rankings given as positions (smaller = better).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    let (mut conc, mut disc, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let a = x[i].partial_cmp(&x[j]).unwrap_or(std::cmp::Ordering::Equal);
            let b = y[i].partial_cmp(&y[j]).unwrap_or(std::cmp::Ordering::Equal);
            match (a.is_eq(), b.is_eq()) {
                (true, true) => {
                    tx += 1;
                    ty += 1;
                }
                (true, false) => tx += 1,
                (false, true) => ty += 1,
                _ if a == b => conc += 1,
                _ => disc += 1,
            }
        }
    }
    let n0 = (n * n.saturating_sub(1) / 2) as f64;
    let denom = ((n0 - tx as f64) * (n0 - ty as f64)).sqrt();
    (denom > 0.0).then(|| (conc - disc) as f64 / denom)
}

/// Pearson's correlation (Spearman's ρ when given positions).
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    let d = (sxx * syy).sqrt();
    (d > 0.0).then(|| sxy / d)
}

/// Observes one finished tournament: `strength[i]` is the true strength of `data.players[i]`,
/// `standings` the final standings.
pub fn observe(data: &TournamentData, strength: &[f64], standings: &Standings) -> Observation {
    let n = data.players.len();
    let index = PlayerIndex::new(data);
    // Final positions from the standings' shared places.
    let order: Vec<usize> = standings
        .rows
        .iter()
        .filter_map(|r| index.get(r.id))
        .collect();
    let tied_next: Vec<bool> = standings
        .rows
        .iter()
        .skip(1)
        .map(|r| r.tied_with_previous)
        .collect();
    let mut final_pos = vec![0.0; n];
    {
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() && tied_next[end - 1] {
                end += 1;
            }
            let mean = (start + 1 + end) as f64 / 2.0;
            for &i in &order[start..end] {
                final_pos[i] = mean;
            }
            start = end;
        }
    }
    // True positions: by strength, strongest first (index order among equals, which
    // average_ranks makes irrelevant).
    let mut by_strength: Vec<usize> = (0..n).collect();
    by_strength.sort_by(|&a, &b| strength[b].total_cmp(&strength[a]).then(a.cmp(&b)));
    let true_pos = average_ranks(n, &by_strength, |a, b| strength[a] == strength[b]);
    let tau = kendall_tau_b(&true_pos, &final_pos);
    let rho = pearson(&true_pos, &final_pos);
    // Share of the first `k` places a player holds: its tie group's places within 1 … k,
    // split evenly across the group (the expected value of a random tie-break).
    let share_of_top = |i: usize, k: f64| -> f64 {
        // A group around mean position m spans m ± (size − 1)/2; recover its bounds.
        let m = final_pos[i];
        let size = final_pos.iter().filter(|&&p| p == m).count() as f64;
        let first = m - (size - 1.0) / 2.0;
        let last = m + (size - 1.0) / 2.0;
        ((k.min(last) - first + 1.0).max(0.0) / size).min(1.0)
    };
    let top_strength = strength.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let strongest: Vec<usize> = (0..n).filter(|&i| strength[i] == top_strength).collect();
    let strongest_wins = strongest.iter().map(|&i| share_of_top(i, 1.0)).sum::<f64>()
        / strongest.len().max(1) as f64;
    let k3 = n.min(3);
    let top3 = by_strength
        .iter()
        .take(k3)
        .map(|&i| share_of_top(i, k3 as f64))
        .sum::<f64>()
        / k3.max(1) as f64;
    let mean_abs_error = (0..n)
        .map(|i| (final_pos[i] - true_pos[i]).abs())
        .sum::<f64>()
        / n.max(1) as f64;
    let error_by_true_rank: Vec<f64> = by_strength
        .iter()
        .enumerate()
        .map(|(k, &i)| final_pos[i] - (k + 1) as f64)
        .collect();
    // Games: handicaps, geography, repeats, colours.
    let (mut games, mut hgames, mut stones, mut club, mut country, mut repeats) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let mut met: std::collections::HashSet<(u32, u32)> = std::collections::HashSet::new();
    let mut colour = vec![0i64; n];
    let mut byes = vec![0u32; n];
    for r in &data.rounds {
        for g in &r.games {
            if g.outcome == Outcome::Unknown {
                continue;
            }
            let (Some(w), Some(b)) = (index.get(g.white), index.get(g.black)) else {
                continue;
            };
            games += 1;
            if g.handicap > 0 {
                hgames += 1;
                stones += u64::from(g.handicap);
            }
            let (pw, pb) = (&data.players[w], &data.players[b]);
            if !pw.club.trim().is_empty() && pw.club.trim().eq_ignore_ascii_case(pb.club.trim()) {
                club += 1;
            }
            if !pw.country.is_empty() && pw.country.eq_ignore_ascii_case(&pb.country) {
                country += 1;
            }
            let key = (g.white.min(g.black), g.white.max(g.black));
            if !met.insert(key) {
                repeats += 1;
            }
            colour[w] += 1;
            colour[b] -= 1;
        }
        for &b in &r.byes {
            if let Some(i) = index.get(b) {
                byes[i] += 1;
            }
        }
    }
    let colour_imbalance = colour.iter().map(|c| c.unsigned_abs()).sum::<u64>() as f64 / n as f64;
    let buckets = STRENGTH_BUCKETS.min(n).max(1);
    let mut bye_sum = vec![0.0; buckets];
    let mut bye_n = vec![0.0; buckets];
    for (k, &i) in by_strength.iter().enumerate() {
        let b = k * buckets / n;
        bye_sum[b] += f64::from(byes[i]);
        bye_n[b] += 1.0;
    }
    let byes_by_strength = bye_sum
        .iter()
        .zip(&bye_n)
        .map(|(s, c)| if *c > 0.0 { s / c } else { 0.0 })
        .collect();
    // Row values follow the criteria without the NULL ones.
    let mms_col = standings
        .criteria
        .iter()
        .filter(|c| c.0 != Crit::Nul)
        .position(|c| c.0 == Crit::Mms);
    let final_mms2 = match mms_col {
        Some(col) => standings.rows.iter().map(|r| r.values[col]).collect(),
        None => {
            let sc = crate::tournament::standings::scores(data, standings.after_round);
            (0..n).map(|i| sc.at(i, Crit::Mms)).collect()
        }
    };
    Observation {
        tau,
        rho,
        strongest_wins,
        top3,
        mean_abs_error,
        error_by_true_rank,
        games,
        handicap_games: hgames,
        handicap_stones: stones,
        same_club: club,
        same_country: country,
        repeats,
        colour_imbalance,
        byes_by_strength,
        final_mms2,
    }
}

/// The accumulated observations of one variant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VariantAcc {
    pub runs: u64,
    pub tau: Acc,
    pub tau_undefined: u64,
    pub rho: Acc,
    pub strongest_wins: Acc,
    pub top3: Acc,
    pub mean_abs_error: Acc,
    /// τ of this variant minus τ of the first one, run by run (same fields).
    pub tau_vs_first: Acc,
    pub error_by_true_rank: Vec<Acc>,
    pub abs_error_by_true_rank: Vec<Acc>,
    pub handicap_share: Acc,
    pub mean_handicap: Acc,
    pub handicap_games: Acc,
    pub same_club: Acc,
    pub same_country: Acc,
    pub repeats: Acc,
    pub colour_imbalance: Acc,
    pub byes_by_strength: Vec<Acc>,
    /// Final MMS (half points) → players.
    pub final_mms2: BTreeMap<i64, u64>,
}

impl VariantAcc {
    pub fn add(&mut self, o: &Observation, first_tau: Option<f64>) {
        self.runs += 1;
        match o.tau {
            Some(t) => self.tau.add(t),
            None => self.tau_undefined += 1,
        }
        if let Some(r) = o.rho {
            self.rho.add(r);
        }
        if let (Some(t), Some(f)) = (o.tau, first_tau) {
            self.tau_vs_first.add(t - f);
        }
        self.strongest_wins.add(o.strongest_wins);
        self.top3.add(o.top3);
        self.mean_abs_error.add(o.mean_abs_error);
        let grow = |v: &mut Vec<Acc>, n: usize| {
            if v.len() < n {
                v.resize(n, Acc::default());
            }
        };
        grow(&mut self.error_by_true_rank, o.error_by_true_rank.len());
        grow(&mut self.abs_error_by_true_rank, o.error_by_true_rank.len());
        for (k, &e) in o.error_by_true_rank.iter().enumerate() {
            self.error_by_true_rank[k].add(e);
            self.abs_error_by_true_rank[k].add(e.abs());
        }
        let games = o.games.max(1) as f64;
        self.handicap_share.add(o.handicap_games as f64 / games);
        self.mean_handicap.add(o.handicap_stones as f64 / games);
        self.handicap_games.add(o.handicap_games as f64);
        self.same_club.add(o.same_club as f64);
        self.same_country.add(o.same_country as f64);
        self.repeats.add(o.repeats as f64);
        self.colour_imbalance.add(o.colour_imbalance);
        grow(&mut self.byes_by_strength, o.byes_by_strength.len());
        for (k, &b) in o.byes_by_strength.iter().enumerate() {
            self.byes_by_strength[k].add(b);
        }
        for &m in &o.final_mms2 {
            *self.final_mms2.entry(m).or_default() += 1;
        }
    }

    pub fn merge(&mut self, o: &VariantAcc) {
        self.runs += o.runs;
        self.tau_undefined += o.tau_undefined;
        for (a, b) in [
            (&mut self.tau, &o.tau),
            (&mut self.rho, &o.rho),
            (&mut self.strongest_wins, &o.strongest_wins),
            (&mut self.top3, &o.top3),
            (&mut self.mean_abs_error, &o.mean_abs_error),
            (&mut self.tau_vs_first, &o.tau_vs_first),
            (&mut self.handicap_share, &o.handicap_share),
            (&mut self.mean_handicap, &o.mean_handicap),
            (&mut self.handicap_games, &o.handicap_games),
            (&mut self.same_club, &o.same_club),
            (&mut self.same_country, &o.same_country),
            (&mut self.repeats, &o.repeats),
            (&mut self.colour_imbalance, &o.colour_imbalance),
        ] {
            a.merge(b);
        }
        for (a, b) in [
            (&mut self.error_by_true_rank, &o.error_by_true_rank),
            (&mut self.abs_error_by_true_rank, &o.abs_error_by_true_rank),
            (&mut self.byes_by_strength, &o.byes_by_strength),
        ] {
            if a.len() < b.len() {
                a.resize(b.len(), Acc::default());
            }
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
        for (&k, &v) in &o.final_mms2 {
            *self.final_mms2.entry(k).or_default() += v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accumulator_is_exact_and_order_free() {
        let xs: Vec<f64> = (0..1000)
            .map(|k| ((k * 7919) % 1000) as f64 / 997.0)
            .collect();
        let mut a = Acc::default();
        xs.iter().for_each(|&x| a.add(x));
        let mut b1 = Acc::default();
        let mut b2 = Acc::default();
        xs.iter().rev().take(300).for_each(|&x| b1.add(x));
        xs.iter().rev().skip(300).for_each(|&x| b2.add(x));
        b2.merge(&b1);
        assert_eq!(a, b2);
        let i = a.interval((f64::MIN, f64::MAX)).unwrap();
        let mean = xs.iter().sum::<f64>() / 1000.0;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 999.0).sqrt();
        assert!((i.mean - mean).abs() < 1e-9);
        assert!((i.sd - sd).abs() < 1e-6);
        assert!((i.high - i.mean - 1.96 * sd / 1000f64.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn small_samples_use_student_t_and_shares_stay_in_range() {
        let mut a = Acc::default();
        for x in [1.0, 1.0, 0.0] {
            a.add(x);
        }
        let i = a.interval((0.0, 1.0)).unwrap();
        assert!((i.mean - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(i.high, 1.0);
        assert!(i.low < 0.0 + 1e-12);
        let mut one = Acc::default();
        one.add(0.5);
        let i = one.interval((0.0, 1.0)).unwrap();
        assert_eq!((i.low, i.high), (0.0, 1.0));
    }

    #[test]
    fn tau_b_and_spearman_on_known_rankings() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(kendall_tau_b(&x, &x), Some(1.0));
        assert_eq!(kendall_tau_b(&x, &[4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        // One swap of neighbours: 5 concordant, 1 discordant pair.
        let t = kendall_tau_b(&x, &[2.0, 1.0, 3.0, 4.0]).unwrap();
        assert!((t - 4.0 / 6.0).abs() < 1e-12);
        // Ties in y: τ-b = (C − D) / √((n0 − n1)(n0 − n2)) = 5 / √(6 · 5).
        let t = kendall_tau_b(&x, &[1.5, 1.5, 3.0, 4.0]).unwrap();
        assert!((t - 5.0 / 30f64.sqrt()).abs() < 1e-12);
        assert_eq!(kendall_tau_b(&x, &[1.0; 4]), None);
        assert!((pearson(&x, &x).unwrap() - 1.0).abs() < 1e-12);
        let r = pearson(&x, &[2.0, 1.0, 3.0, 4.0]).unwrap();
        assert!((r - 0.8).abs() < 1e-12);
    }

    #[test]
    fn average_ranks_share_positions() {
        let order = [2, 0, 1, 3];
        let key = [5, 5, 9, 1];
        let pos = average_ranks(4, &order, |a, b| key[a] == key[b]);
        assert_eq!(pos, vec![2.5, 2.5, 1.0, 4.0]);
    }
}
