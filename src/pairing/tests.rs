//! Unit tests of the solver against brute force on small random graphs.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_costs(rng: &mut ChaCha8Rng, n: usize, max: i64, forbid: f64) -> DenseCosts<i64> {
    super::fixtures::random_dense_costs(rng, n, max, forbid)
}

#[test]
fn matches_brute_force_on_small_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for case in 0..600 {
        let n = 2 * rng.random_range(1..=6);
        let forbid = [0.0, 0.3, 0.6][case % 3];
        let max = [3, 20, 1000][case % 3];
        let c = random_costs(&mut rng, n, max, forbid);
        let want = brute_force(&c);
        for k in [1, 2, n] {
            let got = min_cost_perfect_matching(
                &c,
                SolveOptions {
                    neighbours: k,
                    dense: false,
                },
            );
            match (&want, got) {
                (None, Err(SolveError::NoPerfectMatching)) => {}
                (Some((w, _)), Ok(m)) => {
                    assert_eq!(m.cost, *w, "case {case} n {n} k {k}");
                    for (u, &v) in m.mate.iter().enumerate() {
                        assert_eq!(m.mate[v], u);
                        assert!(c.cost(u.min(v), u.max(v)).is_some());
                    }
                }
                (w, g) => panic!("case {case}: brute force {w:?}, solver {g:?}"),
            }
        }
    }
}
