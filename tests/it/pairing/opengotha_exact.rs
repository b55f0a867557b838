//! The `opengotha` preset's solver layer: the candidate hints and the pricing bounds of
//! `opengotha::RoundCosts` only make the solve fast, so on varied random tournaments (every
//! system, seeding and DU/DD mode, categories, strong weights, the later OpenGotha's DU/DD
//! span and geography thresholds, concave factors outside 0 … 1) the sparse solve must reach the same optimum as the complete graph solved densely
//! and as the independent `integer-blossom` crate, with a valid optimality certificate; and
//! every bound must really be a lower bound of the cost.

use crate::oracle;
use goswiss::pairing::min_cost_perfect_matching;
use goswiss::pairing::opengotha::{self as og, DuddMode, Params, RoundCosts, SeedSystem, System};
use goswiss::pairing::{PairCosts, SolveOptions, check_certificate, fixtures};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The complete graph solved at once: the reference for the sparse path.
const DENSE: SolveOptions = SolveOptions {
    neighbours: 12,
    dense: true,
};

/// Random parameters around each system's defaults.
pub(super) fn params(rng: &mut ChaCha8Rng, rounds: usize) -> Params {
    let system = [
        System::McMahon,
        System::Swiss,
        System::SwissCat,
        System::Cup,
    ][rng.random_range(0..4)];
    let mut p = Params::defaults(system, rounds);
    let seeds = [
        SeedSystem::SplitAndRandom,
        SeedSystem::SplitAndFold,
        SeedSystem::SplitAndSlip,
    ];
    let modes = [DuddMode::Top, DuddMode::Mid, DuddMode::Bot];
    p.seed_system1 = seeds[rng.random_range(0..3)];
    p.seed_system2 = seeds[rng.random_range(0..3)];
    p.dudd_upper = modes[rng.random_range(0..3)];
    p.dudd_lower = modes[rng.random_range(0..3)];
    p.compensate_dudd = rng.random_bool(0.7);
    if rng.random_bool(0.3) {
        p.category_limits = vec![0, -10];
    }
    if rng.random_bool(0.3) {
        p.random = rng.random_range(0..1_000_000_000);
    }
    if rng.random_bool(0.3) {
        p.minimize_handicap = 100_000_000_000;
    }
    if rng.random_bool(0.3) {
        p.avoid_same_geo = 20_000_000_000_000;
    }
    // The later OpenGotha's rules: DU/DD across every group gap, geography thresholds.
    p.dudd_group_span = [Some(4), Some(2), None][rng.random_range(0..3)];
    p.geo_thresholds = rng.random_bool(0.4);
    if rng.random_bool(0.2) {
        // Outside 0 … 1 the concave terms no longer peak at x = 0: the bounds are off.
        p.nx1 = 1.5;
    }
    p
}

#[test]
fn sparse_solve_equals_the_complete_graph_on_random_tournaments() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_261_122);
    for case in 0..40 {
        let n = [8, 21, 40, 77, 120, 201][case % 6];
        let played = rng.random_range(0..4usize);
        let rounds = played + 1 + rng.random_range(0..3usize);
        let h = fixtures::opengotha_history(n, played, case as u64);
        let p = params(&mut rng, rounds);
        let state = og::RoundState::new(&p, &h, played);
        let all: Vec<usize> = (0..n).collect();
        let costs = RoundCosts::new(&state, &all);
        let what = format!("case {case}: n {n}, round {played}, {:?}", p.system);
        let sparse = min_cost_perfect_matching(&costs, SolveOptions::default()).expect(&what);
        assert_eq!(check_certificate(&costs, &sparse), Ok(()), "{what}");
        let dense = min_cost_perfect_matching(&costs, DENSE).expect(&what);
        assert_eq!(sparse.cost, dense.cost, "{what}: sparse vs dense");
        if n <= 120 {
            let oracle = oracle::integer_blossom_min_cost(&costs);
            assert_eq!(sparse.cost, oracle, "{what}: integer-blossom");
        }
        // The pairing itself (boards, total weight) is the solve's matching.
        let pairing = og::pair(&state, &all, SolveOptions::default()).expect(&what);
        let dense_pairing = og::pair(&state, &all, DENSE).expect(&what);
        assert_eq!(pairing.total_weight, dense_pairing.total_weight, "{what}");
        assert_eq!(
            pairing.bye, dense_pairing.bye,
            "{what}: the bye is a tier of its own"
        );
    }
}

#[test]
fn pricing_bounds_never_exceed_the_cost() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for case in 0..24 {
        let n = [30, 61, 150][case % 3];
        let played = rng.random_range(0..4usize);
        let h = fixtures::opengotha_history(n, played, 100 + case as u64);
        let p = params(&mut rng, played + 2);
        let state = og::RoundState::new(&p, &h, played);
        let all: Vec<usize> = (0..n).collect();
        let costs = RoundCosts::new(&state, &all);
        let len = costs.len();
        for u in 0..len {
            // Suffix minimum of the cost along the row: a monotone bound at v must not exceed
            // the cost of any later pair of the row.
            let mut suffix_min = i128::MAX;
            for v in (u + 1..len).rev() {
                let Some(w) = costs.cost(u, v) else { continue };
                suffix_min = suffix_min.min(w);
                assert!(
                    costs.lower_bound(u, v) <= w,
                    "case {case}: lower bound ({u}, {v})"
                );
                if let Some(mb) = costs.monotone_bound(u, v) {
                    assert!(mb <= suffix_min, "case {case}: monotone bound ({u}, {v})");
                }
            }
        }
    }
}

#[test]
fn a_large_round_is_proved_optimal_and_deterministic() {
    // Above 2,000 vertices pricing runs on two threads: the answer must not depend on it.
    let n = 2_501;
    let h = fixtures::opengotha_history(n, 3, 11);
    let p = Params::defaults(System::McMahon, 5);
    let state = og::RoundState::new(&p, &h, 3);
    let all: Vec<usize> = (0..n).collect();
    let costs = RoundCosts::new(&state, &all);
    let a = min_cost_perfect_matching(&costs, SolveOptions::default()).unwrap();
    assert_eq!(check_certificate(&costs, &a), Ok(()));
    for _ in 0..2 {
        let b = min_cost_perfect_matching(&costs, SolveOptions::default()).unwrap();
        assert_eq!(a.mate, b.mate);
    }
}
