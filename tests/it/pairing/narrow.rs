//! `solve::min_cost_perfect_matching_i128`, the OpenGotha pairing's solve: it runs in `i64`
//! when every number the solve meets fits, which must change nothing but the time. On varied
//! random tournaments (every system and seeding mode, categories, strong weights, concave
//! factors outside 0 … 1, even fields in the `i64` path, odd ones with the BYE and fields too
//! large for `i64` costs in `i128`)
//! it must take the very steps of the plain `i128` solve: the same mates, cost, duals, edges
//! and stage count. Costs beyond the `i64` range part-way through fall back to `i128` and still
//! give its answer. And `check_history`'s seat grid finds a player twice in a round as the
//! set did, also for round numbers too large for the grid.

use goswiss::pairing::opengotha::{self as og, OgGame, Outcome, RoundCosts};
use goswiss::pairing::{
    DenseCosts, Matching, PairCosts, SolveOptions, brute_force, fixtures,
    min_cost_perfect_matching, min_cost_perfect_matching_i128,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Everything a solve reports, for comparing two solves step for step.
fn fingerprint(m: &Matching<i128>) -> impl PartialEq + std::fmt::Debug {
    let duals = m
        .duals
        .as_ref()
        .map(|d| (d.dual.clone(), d.z.clone(), d.parent.clone(), d.stages));
    (m.mate.clone(), m.cost, m.resolves, m.edges, m.stages, duals)
}

#[test]
fn the_narrow_solve_takes_the_wide_solves_steps_on_random_tournaments() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026_1128);
    let mut narrow_cases = 0;
    for case in 0..72 {
        // 300 players: OpenGotha's costs are past the i64 range there (the wide path at once).
        let n = [10, 21, 40, 77, 120, 200, 201, 64, 300][case % 9];
        let played = rng.random_range(0..5usize);
        let rounds = played + 1 + rng.random_range(0..3usize);
        let h = fixtures::opengotha_history(n, played, 500 + case as u64);
        let p = super::opengotha_exact::params(&mut rng, rounds);
        let state = og::RoundState::new(&p, &h, played);
        // Now and then a field without some players, as a round with absentees.
        let all: Vec<usize> = (0..n).filter(|i| case % 5 != 0 || i % 7 != 3).collect();
        let costs = RoundCosts::new(&state, &all);
        let what = format!("case {case}: n {n}, round {played}, {:?}", p.system);
        let wide = min_cost_perfect_matching(&costs, SolveOptions::default()).expect(&what);
        let either = min_cost_perfect_matching_i128(&costs, SolveOptions::default()).expect(&what);
        assert_eq!(fingerprint(&either), fingerprint(&wide), "{what}");
        narrow_cases += usize::from(costs.bye.is_none());
        // The pairing built on it: boards, weights and bye.
        let a = og::pair(&state, &all, SolveOptions::default()).expect(&what);
        let mut b = a.clone();
        b.boards.clear();
        for (u, &v) in wide.mate.iter().enumerate() {
            if u < v && Some(v) != costs.bye {
                let (x, y) = costs.caller_order(u, v);
                let (white, black, handicap) = state.board(costs.vertex[x], costs.vertex[y]);
                b.boards.push(og::Board {
                    white,
                    black,
                    handicap,
                    weights: costs.weights(u, v),
                });
            }
        }
        assert_eq!(a.boards, b.boards, "{what}: boards");
    }
    assert!(narrow_cases >= 30, "{narrow_cases} even fields");
}

/// A complete graph on `n` vertices whose costs become huge for some pairs: beyond the `i64`
/// solve's limit, well within `i128`'s.
struct Huge {
    n: usize,
    cost: Vec<i128>,
}

impl PairCosts for Huge {
    type W = i128;
    fn len(&self) -> usize {
        self.n
    }
    fn cost(&self, u: usize, v: usize) -> Option<i128> {
        Some(self.cost[u * self.n + v])
    }
}

#[test]
fn costs_beyond_the_narrow_range_are_solved_wide_with_the_same_answer() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for case in 0..60 {
        let n = 2 * rng.random_range(2..=7);
        let big = case % 3 != 0;
        let mut cost = vec![0i128; n * n];
        for u in 0..n {
            for v in u + 1..n {
                let w = rng.random_range(0..1_000i128);
                // Past i64::MAX / (64 (n + 2)) for a third of the pairs: the narrow solve
                // meets one and gives up.
                cost[u * n + v] = if big && rng.random_bool(0.3) {
                    w * 1_000_000_000_000_000_000
                } else {
                    w
                };
            }
        }
        let c = Huge { n, cost };
        let either = min_cost_perfect_matching_i128(&c, SolveOptions::default()).unwrap();
        let wide = min_cost_perfect_matching(&c, SolveOptions::default()).unwrap();
        assert_eq!(
            fingerprint(&either),
            fingerprint(&wide),
            "case {case}: n {n}"
        );
        let dense = DenseCosts {
            n,
            cost: c.cost.iter().map(|&w| Some(w)).collect(),
            hubs: vec![],
        };
        let (best, _) = brute_force(&dense).expect("a complete graph has a perfect matching");
        assert_eq!(either.cost, best, "case {case}: the optimum");
    }
}

fn history_with(games: Vec<(usize, usize, usize)>, byes: Vec<(usize, usize)>) -> og::History {
    let mut h = fixtures::opengotha_history(6, 0, 1);
    h.games = games
        .into_iter()
        .map(|(round, white, black)| OgGame {
            round,
            white,
            black,
            handicap: 0,
            result: Outcome::WhiteWins,
        })
        .collect();
    h.byes = byes;
    h
}

#[test]
fn a_player_twice_in_a_round_is_found_on_the_grid_and_beyond_it() {
    // Round numbers are not bounded in a history: far rounds go to a set instead of the grid.
    for far in [0, 3, usize::MAX / 2, usize::MAX - 1] {
        let ok = history_with(vec![(far, 0, 1), (far, 2, 3), (1, 0, 2)], vec![(far, 4)]);
        assert_eq!(og::check_history(&ok), Ok(()), "round {far}");
        let twice = history_with(vec![(far, 0, 1), (far, 2, 1)], vec![]);
        assert_eq!(
            og::check_history(&twice).unwrap_err().0,
            format!("player 1 appears twice in round {}", far.wrapping_add(1)),
            "round {far}"
        );
        let bye_too = history_with(vec![(far, 0, 1)], vec![(far, 5), (far, 0)]);
        assert_eq!(
            og::check_history(&bye_too).unwrap_err().0,
            format!("player 0 appears twice in round {}", far.wrapping_add(1)),
            "round {far}"
        );
    }
}
