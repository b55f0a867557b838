//! One round of a McMahon tournament under the `opengotha` preset proper (OpenGotha 3.51's
//! own weight, every criterion: `pairing::opengotha`), at 100, 1,000 and 10,000 players
//! (`GOSWISS_BENCH_QUICK=1` leaves 10,000 out): ranks 30k–9d, 60 clubs, 8 countries, McMahon
//! defaults, three rounds already played, round 4 paired (split & slip seeding). The exact
//! optimum every time: before timing, each size's answer is proved optimal over the complete
//! graph by its certificate (`check_certificate`, O(n²)), and at 1,000 it is compared with the
//! complete graph solved densely.

#[path = "../tests/it/oracle/mod.rs"]
mod oracle;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use goswiss::pairing::opengotha::{self as og, Params, RoundCosts, System};
use goswiss::pairing::{SolveOptions, check_certificate, fixtures, min_cost_perfect_matching};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("opengotha_round");
    g.sample_size(10);
    for &n in fixtures::bench_sizes() {
        let h = fixtures::opengotha_history(n, 3, 7);
        let params = Params::defaults(System::McMahon, 5);
        let all: Vec<usize> = (0..n).collect();
        {
            let state = og::RoundState::new(&params, &h, 3);
            let costs = RoundCosts::new(&state, &all);
            let m = min_cost_perfect_matching(&costs, SolveOptions::default()).expect("round");
            assert_eq!(check_certificate(&costs, &m), Ok(()), "{n} players");
            if n == 1000 {
                let dense = SolveOptions {
                    dense: true,
                    ..SolveOptions::default()
                };
                let d = min_cost_perfect_matching(&costs, dense).expect("dense");
                assert_eq!(m.cost, d.cost, "sparse vs dense at {n}");
                assert_eq!(
                    m.cost,
                    oracle::integer_blossom_min_cost(&costs),
                    "integer-blossom at {n}"
                );
                // The dense oracle's time on the same costs, in the same run.
                g.bench_with_input(BenchmarkId::new("dense_integer_blossom", n), &n, |b, _| {
                    b.iter(|| std::hint::black_box(oracle::integer_blossom_min_cost(&costs)))
                });
            }
        }
        g.bench_with_input(BenchmarkId::new("exact", n), &n, |b, _| {
            b.iter(|| {
                // The round state (scores, groups, DU/DD, colour balances) is part of pairing a
                // round, so it is inside the measurement.
                let state = og::RoundState::new(&params, &h, 3);
                let p = og::pair(&state, &all, SolveOptions::default()).expect("pairing");
                std::hint::black_box(p.total_weight)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
