//! The solver against independent oracles: brute force (≤ 14 vertices) and the dense
//! `integer-blossom` solver (up to a few thousand vertices), on random and Swiss-like graphs,
//! with and without forbidden pairs. Same objective every time, perfect, no forbidden pair.

use goswiss::pairing::Weight;
use goswiss::pairing::model::{Field, Model, Player};
use goswiss::pairing::{
    DenseCosts, Matching, PairCosts, SolveError, SolveOptions, brute_force, check_certificate,
    min_cost_perfect_matching,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The dense oracle's optimum: max-weight matching with weight = BIG − cost on allowed pairs,
/// BIG large enough that a larger matching always wins. `None` when it is not perfect.
fn oracle(c: &DenseCosts<i64>) -> Option<i64> {
    let n = c.n;
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    for u in 0..n {
        for v in u + 1..n {
            if let Some(w) = c.cost(u, v) {
                lo = lo.min(w);
                hi = hi.max(w);
            }
        }
    }
    if lo > hi {
        return if n == 0 { Some(0) } else { None };
    }
    let big = (n as i64 / 2 + 1) * (hi - lo + 1) + 1;
    let mut weight = vec![0i64; n * n];
    for u in 0..n {
        for v in u + 1..n {
            if let Some(w) = c.cost(u, v) {
                weight[u * n + v] = big - (w - lo);
            }
        }
    }
    let mate = integer_blossom::max_weight_matching(&weight, n);
    let mut total = 0;
    for (u, m) in mate.iter().enumerate() {
        let v = (*m)?;
        if u < v {
            total += c.cost(u, v)?;
        }
    }
    Some(total)
}

/// Checks a solver answer: a perfect matching of allowed pairs whose cost is `want`.
fn check(c: &DenseCosts<i64>, want: Option<i64>, opts: SolveOptions, what: &str) {
    let got = min_cost_perfect_matching(c, opts);
    match (want, got) {
        (None, Err(SolveError::NoPerfectMatching)) => {}
        (Some(w), Ok(m)) => {
            let mut total = 0;
            for (u, &v) in m.mate.iter().enumerate() {
                assert!(v < c.n && m.mate[v] == u, "{what}: not a perfect matching");
                let cost = c.cost(u.min(v), u.max(v));
                assert!(cost.is_some(), "{what}: forbidden pair {u}-{v} used");
                if u < v {
                    total += cost.unwrap_or(0);
                }
            }
            assert_eq!(total, m.cost, "{what}: reported cost");
            assert_eq!(m.cost, w, "{what}: objective differs from the oracle");
        }
        (w, g) => panic!("{what}: oracle {w:?}, solver {:?}", g.map(|m| m.cost)),
    }
}

fn random_graph(rng: &mut ChaCha8Rng, n: usize, max: i64, forbid: f64) -> DenseCosts<i64> {
    goswiss::pairing::fixtures::random_dense_costs(rng, n, max, forbid)
}

/// A Swiss-like field in pairing order: ratings descending, score groups, some previous
/// games (forbidden or penalised), an odd count completed by a BYE hub.
fn swiss_graph(rng: &mut ChaCha8Rng, players: usize, hard: bool) -> DenseCosts<i64> {
    let mut rating: Vec<i64> = (0..players).map(|_| rng.random_range(0..4000)).collect();
    rating.sort_unstable_by(|a, b| b.cmp(a));
    let rounds = rng.random_range(0..6);
    let score: Vec<i64> = (0..players)
        .map(|i| (rounds * (players - i) as i64 / players as i64).min(rounds))
        .collect();
    let n = players + players % 2;
    let mut cost = vec![None; n * n];
    for u in 0..players {
        for v in u + 1..players {
            let played = v - u <= 6 && rng.random_bool(0.3 * rounds as f64 / 6.0);
            if played && hard {
                continue;
            }
            let ds = (score[u] - score[v]).abs();
            cost[u * n + v] = Some(
                1_000_000 * ds * ds
                    + (rating[u] - rating[v]).abs()
                    + if played { 50_000_000 } else { 0 },
            );
        }
    }
    let mut hubs = vec![];
    if players % 2 == 1 {
        for u in 0..players {
            cost[u * n + players] = Some(((players - u) as i64) * 10_000);
        }
        hubs.push(players);
    }
    DenseCosts { n, cost, hubs }
}

#[test]
fn brute_force_small_random_and_swiss() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for case in 0..300 {
        let n = 2 * rng.random_range(1..=7);
        let c = if case % 2 == 0 {
            random_graph(
                &mut rng,
                n,
                [5, 100, 1 << 40][case % 3],
                [0.0, 0.4, 0.7][case % 3],
            )
        } else {
            let players = n - rng.random_range(0..2);
            swiss_graph(&mut rng, players, case % 4 == 1)
        };
        let want = brute_force(&c).map(|(w, _)| w);
        for k in [1, 3, 32] {
            check(
                &c,
                want,
                SolveOptions {
                    neighbours: k,
                    dense: false,
                },
                &format!("case {case} k {k}"),
            );
        }
        assert_eq!(oracle(&c), want, "case {case}: the two oracles disagree");
    }
}

#[test]
fn integer_blossom_random_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let release = !cfg!(debug_assertions);
    let sizes: &[usize] = if release {
        &[16, 30, 50, 80, 120, 200, 300, 500]
    } else {
        &[16, 30, 50, 80]
    };
    for (i, &n) in sizes.iter().enumerate() {
        for (j, forbid) in [0.0, 0.5, 0.95].into_iter().enumerate() {
            let c = random_graph(&mut rng, n, [50, 1_000_000][(i + j) % 2], forbid);
            let want = oracle(&c);
            check(
                &c,
                want,
                SolveOptions::default(),
                &format!("random n {n} forbid {forbid}"),
            );
        }
    }
}

#[test]
fn integer_blossom_swiss_fields() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let sizes: &[usize] = if cfg!(debug_assertions) {
        &[21, 64, 101]
    } else {
        &[21, 64, 101, 257, 600, 1001, 2000]
    };
    for &n in sizes {
        // The dense oracle takes seconds at 2,000: one field there is enough.
        for hard in [false, true]
            .into_iter()
            .take(if n >= 2000 { 1 } else { 2 })
        {
            let c = swiss_graph(&mut rng, n, hard);
            let want = oracle(&c);
            check(
                &c,
                want,
                SolveOptions::default(),
                &format!("swiss n {n} hard {hard}"),
            );
        }
    }
}

#[test]
fn no_perfect_matching_is_reported() {
    // Vertex 0 may only meet 1, and so may vertex 2: one of them is left without a partner.
    let n = 6;
    let mut cost = vec![Some(1i64); n * n];
    for v in 0..n {
        if v != 1 {
            cost[v] = None;
            cost[2 * n + v] = None;
            cost[v * n + 2] = None;
            cost[v * n] = None;
        }
    }
    let c = DenseCosts {
        n,
        cost,
        hubs: vec![],
    };
    assert_eq!(brute_force(&c), None);
    assert!(matches!(
        min_cost_perfect_matching(&c, SolveOptions::default()),
        Err(SolveError::NoPerfectMatching)
    ));
}

#[test]
fn deterministic() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let c = swiss_graph(&mut rng, 151, false);
    let a = min_cost_perfect_matching(&c, SolveOptions::default()).map(|m| m.mate);
    let b = min_cost_perfect_matching(&c, SolveOptions::default()).map(|m| m.mate);
    assert!(a.is_ok());
    assert_eq!(a, b);
}

/// A score-group field with the pricing hints the real models give: a `monotone_bound` (the
/// group-gap term, never decreasing along pairing order) and a cheap `lower_bound`, so that
/// the block-skipping and early-exit paths of pricing run against the oracle. Small random
/// extras make ties and blossoms; an odd field gets a BYE hub, some pairs are forbidden.
struct Grouped {
    dense: DenseCosts<i64>,
    group: Vec<i64>,
    rating: Vec<i64>,
    gap: i64,
    players: usize,
}

impl Grouped {
    fn new(rng: &mut ChaCha8Rng, players: usize, groups: i64, gap: i64, forbid: f64) -> Self {
        let mut group: Vec<i64> = (0..players).map(|_| rng.random_range(0..groups)).collect();
        group.sort_unstable();
        let rating: Vec<i64> = (0..players).map(|_| rng.random_range(0..40)).collect();
        let n = players + players % 2;
        let mut cost = vec![None; n * n];
        for u in 0..players {
            for v in u + 1..players {
                if rng.random_bool(forbid) {
                    continue;
                }
                let extra = rng.random_range(0..4);
                cost[u * n + v] =
                    Some(gap * (group[v] - group[u]) + (rating[u] - rating[v]).abs() + extra);
            }
        }
        let mut hubs = vec![];
        if players % 2 == 1 {
            for u in 0..players {
                cost[u * n + players] = Some(rng.random_range(0..3) * gap);
            }
            hubs.push(players);
        }
        Grouped {
            dense: DenseCosts { n, cost, hubs },
            group,
            rating,
            gap,
            players,
        }
    }
}

impl PairCosts for Grouped {
    type W = i64;
    fn len(&self) -> usize {
        self.dense.n
    }
    fn cost(&self, u: usize, v: usize) -> Option<i64> {
        self.dense.cost(u, v)
    }
    fn lower_bound(&self, u: usize, v: usize) -> i64 {
        if v >= self.players {
            return self.cost(u, v).unwrap_or(i64::MAX);
        }
        self.gap * (self.group[v] - self.group[u]) + (self.rating[u] - self.rating[v]).abs()
    }
    fn monotone_bound(&self, u: usize, v: usize) -> Option<i64> {
        (v < self.players).then(|| self.gap * (self.group[v] - self.group[u]))
    }
    fn hubs(&self) -> Vec<usize> {
        self.dense.hubs.clone()
    }
}

#[test]
fn grouped_fields_with_pricing_bounds_equal_integer_blossom() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let sizes: &[usize] = if cfg!(debug_assertions) {
        &[9, 40, 101]
    } else {
        &[9, 40, 101, 300, 641, 1200]
    };
    for &players in sizes {
        for (i, forbid) in [0.0, 0.2].into_iter().enumerate() {
            let groups = [3, 12][(players + i) % 2];
            let c = Grouped::new(&mut rng, players, groups, 1000, forbid);
            let want = oracle(&c.dense);
            for k in [2, 12] {
                let what = format!("grouped n {players} forbid {forbid} k {k}");
                check(
                    &c.dense,
                    want,
                    SolveOptions {
                        neighbours: k,
                        dense: false,
                    },
                    &format!("{what} (dense costs)"),
                );
                let m = min_cost_perfect_matching(
                    &c,
                    SolveOptions {
                        neighbours: k,
                        dense: false,
                    },
                )
                .expect("perfect");
                assert_eq!(Some(m.cost), want, "{what}: objective");
                assert_eq!(check_certificate(&c, &m), Ok(()), "{what}: certificate");
            }
        }
    }
}

/// A McMahon field after three rounds: the pairing benchmark's own generator.
fn mcmahon_players(n: usize, seed: u64) -> Vec<Player> {
    goswiss::pairing::fixtures::mcmahon_field(n, 3, seed)
}

/// The certificate checked the slow, obvious way: ancestors walked up the blossom forest for
/// every pair. Independent of the solver's LCA structure.
fn naive_certificate<C: PairCosts>(c: &C, m: &Matching<C::W>) -> bool {
    let s = m.duals.as_ref().expect("duals");
    let n = c.len();
    let ancestors = |v: usize| {
        let mut out = Vec::new();
        let mut b = s.parent[v];
        while b != usize::MAX {
            out.push(b);
            b = s.parent[b];
        }
        out
    };
    let chains: Vec<Vec<usize>> = (0..n).map(ancestors).collect();
    for u in 0..n {
        let mine: std::collections::HashSet<usize> = chains[u].iter().copied().collect();
        for (v, chain) in chains.iter().enumerate().skip(u + 1) {
            let Some(w) = c.cost(u, v) else { continue };
            let z: i128 = chain
                .iter()
                .filter(|b| mine.contains(b))
                .map(|&b| s.z[b].to_i128())
                .sum();
            let r = s.dual[u].to_i128() + s.dual[v].to_i128() + 4 * w.to_i128() + 2 * z;
            if r < 0 || (m.mate[u] == v && r != 0) {
                return false;
            }
        }
    }
    true
}

#[test]
fn optimality_certificate_of_mcmahon_rounds() {
    let model = Model::preset("opengotha_terms").expect("preset");
    let sizes: &[usize] = if cfg!(debug_assertions) {
        &[301]
    } else {
        &[301, 1200, 3001]
    };
    for &n in sizes {
        let players = mcmahon_players(n, n as u64);
        let field = Field::new(&model, &players, &[], &[]).expect("field");
        let m = min_cost_perfect_matching(&field, SolveOptions::default()).expect("round");
        assert_eq!(check_certificate(&field, &m), Ok(()), "n {n}");
        if n <= 1200 {
            assert!(naive_certificate(&field, &m), "n {n}: naive check");
        }
        // The check can fail: a dual lowered below feasibility, a blossom dual made negative.
        let s = m.duals.as_ref().expect("duals");
        let mut bad = m.clone();
        if let Some(d) = bad.duals.as_mut() {
            d.dual[0] -= 4 * (field.cost(0, m.mate[0].max(1)).unwrap_or(0).abs() + 1000);
        }
        assert!(
            check_certificate(&field, &bad).is_err(),
            "n {n}: lowered dual"
        );
        if let Some(b) = (n..2 * n).find(|&b| s.z[b] > 0) {
            let mut bad = m.clone();
            if let Some(d) = bad.duals.as_mut() {
                d.z[b] = -1;
            }
            assert!(
                check_certificate(&field, &bad).is_err(),
                "n {n}: negative z"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 64 } else { 256 }))]

    #[test]
    fn prop_objective_equals_oracles(
        seed in any::<u64>(),
        half in 1usize..=7,
        forbid in 0.0f64..0.8,
        k in 1usize..6,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let c = random_graph(&mut rng, 2 * half, 1000, forbid);
        let want = brute_force(&c).map(|(w, _)| w);
        prop_assert_eq!(oracle(&c), want);
        check(&c, want, SolveOptions { neighbours: k, dense: false }, "proptest");
    }

    #[test]
    fn prop_medium_fields_equal_integer_blossom(
        seed in any::<u64>(),
        players in 10usize..90,
        hard in any::<bool>(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let c = swiss_graph(&mut rng, players, hard);
        let want = oracle(&c);
        check(&c, want, SolveOptions { neighbours: 4, dense: false }, "proptest swiss");
    }

    #[test]
    fn prop_grouped_fields_equal_integer_blossom_with_certificate(
        seed in any::<u64>(),
        players in 2usize..120,
        groups in 1i64..8,
        forbid in 0.0f64..0.5,
        k in 1usize..8,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let c = Grouped::new(&mut rng, players, groups, 500, forbid);
        let want = oracle(&c.dense);
        match min_cost_perfect_matching(&c, SolveOptions { neighbours: k, dense: false }) {
            Ok(m) => {
                prop_assert_eq!(Some(m.cost), want);
                prop_assert_eq!(check_certificate(&c, &m), Ok(()));
                prop_assert!(naive_certificate(&c, &m));
            }
            Err(e) => {
                prop_assert_eq!(e, SolveError::NoPerfectMatching);
                prop_assert_eq!(want, None);
            }
        }
    }
}
