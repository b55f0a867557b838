//! The independent dense oracle of the pairing tests and benchmarks: the minimum-cost perfect
//! matching of a complete graph by the `integer-blossom` crate (a separate O(n³) primal–dual
//! implementation), for cost oracles without forbidden pairs. Shared by tests/ and benches/
//! (`#[path]`), so the tests check with the very oracle the benchmark times.

use goswiss::pairing::PairCosts;

/// The least total cost of a perfect matching of `c`'s complete graph (every pair allowed).
pub fn integer_blossom_min_cost<C: PairCosts<W = i128>>(c: &C) -> i128 {
    let n = c.len();
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for u in 0..n {
        for v in u + 1..n {
            let x = c.cost(u, v).expect("a complete graph");
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    // Weights big − (cost − lo) > 0: a maximum-weight matching is perfect and of least cost.
    let big = (n as i128 / 2 + 1) * (hi - lo + 1) + 1;
    let mut w = vec![0i128; n * n];
    for u in 0..n {
        for v in u + 1..n {
            w[u * n + v] = big - (c.cost(u, v).unwrap() - lo);
        }
    }
    let mate = integer_blossom::max_weight_matching(&w, n);
    (0..n)
        .filter_map(|u| {
            let v = mate[u].expect("perfect");
            (u < v).then(|| c.cost(u, v).unwrap())
        })
        .sum()
}
