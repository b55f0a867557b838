//! Warm re-solves (`blossom::max_weight_matching_warm`) against cold solves and the dense
//! `integer-blossom` oracle, on random graphs whose edges arrive in rounds the way the pricing
//! loop adds them: mostly edges with a negative reduced cost against the previous duals, some
//! others, ties, forbidden (absent) pairs, odd fields completed by a BYE hub, and small weight
//! ranges that make nested blossoms. Every warm result must carry a valid dual certificate for
//! the edges it was given, and reach the oracle's objective.

use std::collections::HashMap;

use goswiss::pairing::blossom::{
    Solved, max_weight_matching, max_weight_matching_resolve, max_weight_matching_warm,
};
use goswiss::pairing::{
    PairCosts, SolveOptions, brute_force, check_certificate, min_cost_perfect_matching,
};
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Edge = (u32, u32, i64);

/// Cardinality and total weight of a solve's matching on `edges`.
fn value(s: &Solved<i64>, edges: &[Edge]) -> (usize, i64) {
    let w: HashMap<(usize, usize), i64> = edges
        .iter()
        .map(|&(u, v, w)| ((u as usize, v as usize), w))
        .collect();
    let (mut pairs, mut total) = (0, 0);
    for (u, &v) in s.mate.iter().enumerate() {
        if v != usize::MAX && u < v {
            pairs += 1;
            total += w[&(u, v)];
        }
    }
    (pairs, total)
}

/// The dual certificate of a max-weight perfect matching of `edges`: perfect, on edges of the
/// graph, blossom duals ≥ 0, every edge's reduced cost ≥ 0 and matched edges tight.
fn certify(s: &Solved<i64>, n: usize, edges: &[Edge]) -> Result<(), String> {
    let w: HashMap<(usize, usize), i64> = edges
        .iter()
        .map(|&(u, v, w)| ((u as usize, v as usize), w))
        .collect();
    for (u, &v) in s.mate.iter().enumerate() {
        if v >= n || s.mate[v] != u {
            return Err(format!("not perfect at {u}"));
        }
        if !w.contains_key(&(u.min(v), u.max(v))) {
            return Err(format!("{u}–{v} matched but not an edge"));
        }
    }
    if let Some(b) = s.z.iter().position(|&z| z < 0) {
        return Err(format!("blossom {b} has z < 0"));
    }
    for &(u, v, wt) in edges {
        let (u, v) = (u as usize, v as usize);
        let r = s.reduced(u, v, wt);
        if r < 0 {
            return Err(format!("edge {u}–{v} has reduced cost {r}"));
        }
        if s.mate[u] == v && r != 0 {
            return Err(format!("matched edge {u}–{v} not tight ({r})"));
        }
    }
    Ok(())
}

/// Maximum cardinality, then maximum weight, by the dense oracle.
fn oracle(n: usize, edges: &[Edge]) -> (usize, i64) {
    if edges.is_empty() {
        return (0, 0);
    }
    let lo = edges.iter().map(|e| e.2).min().unwrap_or(0);
    let hi = edges.iter().map(|e| e.2).max().unwrap_or(0);
    // One more pair always outweighs any difference in the weights.
    let big = (n as i64 / 2 + 1) * (hi - lo + 1) + 1;
    let mut weight = vec![0i64; n * n];
    let mut w = HashMap::new();
    for &(u, v, wt) in edges {
        let (u, v) = (u as usize, v as usize);
        weight[u * n + v] = big + (wt - lo) + 1;
        weight[v * n + u] = big + (wt - lo) + 1;
        w.insert((u, v), wt);
    }
    let mate = integer_blossom::max_weight_matching(&weight, n);
    let (mut pairs, mut total) = (0, 0);
    for (u, m) in mate.iter().enumerate() {
        if let Some(v) = *m
            && u < v
            && let Some(&wt) = w.get(&(u, v))
        {
            pairs += 1;
            total += wt;
        }
    }
    (pairs, total)
}

/// A random weighted graph on `n` vertices (`n` even): each pair absent with probability
/// `forbid`, weights in −max..=max. With `hub`, the last vertex is a BYE joined to every other
/// one. A perfect matching (0–1, 2–3, …) is always present, so every solve is perfect.
struct Field {
    n: usize,
    all: Vec<Edge>,
    hub: Option<u32>,
}

fn field(rng: &mut ChaCha8Rng, n: usize, max: i64, forbid: f64, hub: bool) -> Field {
    let mut all = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            let spine = u % 2 == 0 && v == u + 1;
            let at_hub = hub && v == n - 1;
            if spine || at_hub || !rng.random_bool(forbid) {
                all.push((u as u32, v as u32, rng.random_range(-max..=max)));
            }
        }
    }
    Field {
        n,
        all,
        hub: hub.then_some(n as u32 - 1),
    }
}

/// A first sparse graph: the spine, the hub's edges, and each vertex's nearest few.
fn first_edges(f: &Field, rng: &mut ChaCha8Rng, near: u32) -> (Vec<Edge>, Vec<Edge>) {
    let (mut first, mut rest) = (Vec::new(), Vec::new());
    for &e in &f.all {
        let spine = e.0 % 2 == 0 && e.1 == e.0 + 1;
        let at_hub = Some(e.1) == f.hub;
        if spine || at_hub || (e.1 - e.0 <= near && rng.random_bool(0.7)) {
            first.push(e);
        } else {
            rest.push(e);
        }
    }
    (first, rest)
}

#[derive(Default, Debug)]
struct Seen {
    rounds: usize,
    /// Rounds whose previous optimum had a blossom with z > 0.
    with_blossoms: usize,
    /// Rounds whose previous optimum had a blossom inside a blossom.
    nested: usize,
}

/// Adds edges in rounds like the pricing loop (negative reduced costs first, up to `batch`,
/// plus a few arbitrary ones), solving warm and cold each time; checks both against each
/// other, the certificate and, on the last round, the oracle of the complete graph.
fn play(f: &Field, rng: &mut ChaCha8Rng, batch: usize, seen: &mut Seen) -> Vec<usize> {
    let n = f.n;
    let (mut edges, mut rest) = first_edges(f, rng, 3);
    let mut s = max_weight_matching(n, &edges);
    certify(&s, n, &edges).unwrap();
    loop {
        let mut neg: Vec<usize> = (0..rest.len())
            .filter(|&i| s.reduced(rest[i].0 as usize, rest[i].1 as usize, rest[i].2) < 0)
            .collect();
        if neg.is_empty() {
            break;
        }
        neg.shuffle(rng);
        neg.truncate(batch);
        // A few edges with a non-negative reduced cost as well (pricing never adds those, but
        // the warm start must take any appended edge).
        for _ in 0..2 {
            if !rest.is_empty() {
                neg.push(rng.random_range(0..rest.len()));
            }
        }
        neg.sort_unstable();
        neg.dedup();
        for &i in neg.iter().rev() {
            edges.push(rest.swap_remove(i));
        }
        seen.rounds += 1;
        if s.z.iter().any(|&z| z > 0) {
            seen.with_blossoms += 1;
        }
        let n2 = s.parent.len();
        if (n..n2).any(|b| s.parent[b] != usize::MAX && s.parent[b] >= n) {
            seen.nested += 1;
        }
        let appended = neg.len();
        let cold = max_weight_matching(n, &edges);
        let again = max_weight_matching_warm(s.clone(), n, &edges);
        let resolve = max_weight_matching_resolve(s.clone(), n, &edges);
        s = max_weight_matching_warm(s, n, &edges);
        assert_eq!(s.mate, again.mate, "a warm re-solve is deterministic");
        // The previous matching was perfect: each appended edge frees at most its endpoint and
        // that endpoint's partner.
        assert!(s.free_at_start <= 2 * appended, "{} free", s.free_at_start);
        certify(&resolve, n, &edges).unwrap_or_else(|e| panic!("resolve certificate: {e}"));
        assert_eq!(
            value(&resolve, &edges),
            value(&cold, &edges),
            "resolve vs cold"
        );
        certify(&s, n, &edges).unwrap_or_else(|e| panic!("warm certificate: {e}"));
        certify(&cold, n, &edges).unwrap_or_else(|e| panic!("cold certificate: {e}"));
        assert_eq!(value(&s, &edges), value(&cold, &edges), "warm vs cold");
    }
    // No pair prices out: the duals are feasible for the whole graph.
    certify(&s, n, &f.all).unwrap_or_else(|e| panic!("complete-graph certificate: {e}"));
    assert_eq!(value(&s, &edges), oracle(n, &f.all), "warm vs oracle");
    s.mate
}

#[test]
fn warm_rounds_equal_cold_and_oracle() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut seen = Seen::default();
    for case in 0..240 {
        let n = 2 * rng.random_range(2..=30);
        let max = [1, 2, 5, 100, 1 << 40][case % 5];
        let forbid = [0.0, 0.3, 0.7][case % 3];
        let f = field(&mut rng, n, max, forbid, case % 4 == 3);
        let batch = [1, 3, 1000][case % 3];
        play(&f, &mut rng, batch, &mut seen);
    }
    eprintln!("{seen:?}");
    // The cases must reach the paths the repair takes.
    assert!(seen.rounds > 300, "{seen:?}");
    assert!(seen.with_blossoms > 100, "{seen:?}");
    assert!(seen.nested > 20, "{seen:?}");
}

#[test]
fn warm_rounds_on_larger_fields() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let mut seen = Seen::default();
    for (i, &n) in [100usize, 200, 400].iter().enumerate() {
        for (j, max) in [3i64, 1000].into_iter().enumerate() {
            let f = field(&mut rng, n, max, [0.0, 0.5][(i + j) % 2], j == 1);
            play(&f, &mut rng, [5, 200][i % 2], &mut seen);
        }
    }
    eprintln!("{seen:?}");
    assert!(seen.nested > 0, "{seen:?}");
}

#[test]
fn warm_is_deterministic() {
    let f = field(&mut ChaCha8Rng::seed_from_u64(33), 60, 3, 0.2, true);
    let a = play(
        &f,
        &mut ChaCha8Rng::seed_from_u64(1),
        4,
        &mut Seen::default(),
    );
    let b = play(
        &f,
        &mut ChaCha8Rng::seed_from_u64(1),
        4,
        &mut Seen::default(),
    );
    assert_eq!(a, b);
}

#[test]
fn warm_falls_back_when_edges_are_not_a_prefix() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let f = field(&mut rng, 20, 10, 0.0, false);
    let (first, rest) = first_edges(&f, &mut rng, 3);
    let s = max_weight_matching(f.n, &first);
    // The first edges in another order, then more: the kept edge indices would be wrong.
    let mut other: Vec<Edge> = first.iter().rev().copied().collect();
    other.extend(rest.iter().take(3));
    let w = max_weight_matching_warm(s.clone(), f.n, &other);
    certify(&w, f.n, &other).unwrap();
    assert_eq!(value(&w, &other), oracle(f.n, &other));
    // Fewer edges than before.
    let w = max_weight_matching_warm(s, f.n, &first[..first.len() / 2]);
    assert_eq!(
        value(&w, &first[..first.len() / 2]),
        oracle(f.n, &first[..first.len() / 2])
    );
    // A result without its kept state.
    let s = max_weight_matching(f.n, &first).without_warm_start();
    assert!(!s.can_warm_start());
    let w = max_weight_matching_warm(s, f.n, &f.all);
    assert_eq!(value(&w, &f.all), oracle(f.n, &f.all));
}

/// The whole driver with one candidate per vertex, so that pricing adds pairs and the re-solves
/// are warm: brute force, certificate, and re-solves actually happening.
#[test]
fn driver_with_warm_resolves_equals_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let mut resolved = 0;
    for case in 0..300 {
        let n = 2 * rng.random_range(2..=7);
        let mut c = goswiss::pairing::fixtures::random_dense_costs(
            &mut rng,
            n,
            [2, 50, 1 << 30][case % 3],
            [0.0, 0.3][case % 2],
        );
        if case % 4 == 0 {
            // The last vertex as a BYE hub.
            c.hubs = vec![n - 1];
            for u in 0..n - 1 {
                c.cost[u * n + n - 1] = Some(rng.random_range(0..10));
            }
        }
        let want = brute_force(&c).map(|(w, _)| w);
        let got = min_cost_perfect_matching(
            &c,
            SolveOptions {
                neighbours: 1,
                dense: false,
            },
        );
        match (want, got) {
            (None, Err(_)) => {}
            (Some(w), Ok(m)) => {
                assert_eq!(m.cost, w, "case {case}");
                check_certificate(&c, &m).unwrap_or_else(|e| panic!("case {case}: {e}"));
                if m.resolves > 0 {
                    resolved += 1;
                }
            }
            (w, g) => panic!(
                "case {case}: brute force {w:?}, solver {:?}",
                g.map(|m| m.cost)
            ),
        }
    }
    assert!(resolved > 50, "only {resolved} cases re-solved");
}

/// Larger driver runs against the dense oracle (through a max-weight transform).
#[test]
fn driver_with_warm_resolves_equals_integer_blossom() {
    let mut rng = ChaCha8Rng::seed_from_u64(36);
    for (i, n) in [40usize, 120, 300].into_iter().enumerate() {
        let c = goswiss::pairing::fixtures::random_dense_costs(&mut rng, n, [3, 1000][i % 2], 0.2);
        let mut all = Vec::new();
        for u in 0..n {
            for v in u + 1..n {
                if let Some(w) = c.cost(u, v) {
                    all.push((u as u32, v as u32, -w));
                }
            }
        }
        let (pairs, best) = oracle(n, &all);
        let m = min_cost_perfect_matching(
            &c,
            SolveOptions {
                neighbours: 2,
                dense: false,
            },
        )
        .expect("a perfect matching exists");
        assert_eq!(pairs, n / 2);
        assert_eq!(m.cost, -best, "n {n}");
        assert!(m.resolves > 0, "n {n}: no re-solve exercised");
        check_certificate(&c, &m).unwrap();
    }
}

fn small_field() -> impl Strategy<Value = (u64, usize, i64, f64, bool, usize)> {
    (
        any::<u64>(),
        2usize..=11,
        prop_oneof![Just(1i64), Just(3), Just(1000)],
        prop_oneof![Just(0.0), Just(0.4)],
        any::<bool>(),
        1usize..=6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn prop_warm_equals_oracle((seed, half, max, forbid, hub, batch) in small_field()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let f = field(&mut rng, 2 * half, max, forbid, hub);
        play(&f, &mut rng, batch, &mut Seen::default());
    }
}
