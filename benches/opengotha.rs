//! One round of a McMahon tournament under the `opengotha` preset proper (OpenGotha 3.51's
//! own weight, every criterion: `pairing::opengotha`), at 100 and 1,000 players (10,000 with
//! `GOSWISS_BENCH_10K=1`): ranks 30k–9d, 60 clubs, 8 countries, McMahon defaults, three
//! rounds already played, round 4 paired (split & slip seeding). The exact optimum every time.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use goswiss::pairing::SolveOptions;
use goswiss::pairing::fixtures;
use goswiss::pairing::opengotha::{self as og, Params, System};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("opengotha_round");
    g.sample_size(10);
    let sizes: &[usize] = if std::env::var_os("GOSWISS_BENCH_10K").is_some() {
        &[100, 1000, 10_000]
    } else {
        &[100, 1000]
    };
    for &n in sizes {
        let h = fixtures::opengotha_history(n, 3, 7);
        let params = Params::defaults(System::McMahon, 5);
        let all: Vec<usize> = (0..n).collect();
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
