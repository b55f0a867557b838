//! One round of a realistic McMahon field (ranks 30k–9d, McMahon bar 4d / floor 20k, score
//! groups, previous rounds played) under the weighted-term model `Model::preset("opengotha_terms")`
//! (OpenGotha's duplicate, score-group, seeding and club terms; the full OpenGotha weight is
//! `benches/opengotha.rs`), at 100, 1,000 and 10,000 players; the dense `integer-blossom` oracle at 1,000 on the same costs; and the
//! king-of-the-hill matchmaker at 256 players.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use goswiss::pairing::fixtures::{self, mcmahon_field};
use goswiss::pairing::model::{Field, Model, pair_round};
use goswiss::pairing::{
    KothInput, KothPlayer, PairCosts, SolveOptions, check_certificate, min_cost_perfect_matching,
    pair_king_of_the_hill,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn dense_objective(field: &Field) -> i128 {
    let n = field.len();
    let mut cost = vec![0i128; n * n];
    let mut hi = 0i128;
    for u in 0..n {
        for v in u + 1..n {
            let c = field.cost(u, v).unwrap_or(i128::MAX / (4 * n as i128));
            cost[u * n + v] = c;
            hi = hi.max(c);
        }
    }
    let mate = integer_blossom::min_weight_perfect_matching(&cost, n);
    (0..n)
        .filter(|&u| u < mate[u])
        .map(|u| cost[u * n + mate[u]])
        .sum()
}

fn bench(c: &mut Criterion) {
    let model = Model::preset("opengotha_terms").expect("preset");
    let mut g = c.benchmark_group("mcmahon_round");
    g.sample_size(10);
    for &n in fixtures::bench_sizes() {
        let players = mcmahon_field(n, 3, n as u64);
        let field = Field::new(&model, &players, &[], &[]).expect("field");
        let exact = pair_round(&field, SolveOptions::default()).expect("round");
        if n == 1000 {
            // The dense oracle agrees on the objective (checked once, outside the timing).
            assert_eq!(dense_objective(&field), exact.objective);
        }
        // The optimum of the complete graph, proven by the duals: every pair of players has a
        // reduced cost ≥ 0 and every pair played is tight (the dense oracle is too slow at
        // 10,000, this is an O(n²) check).
        let m = min_cost_perfect_matching(&field, SolveOptions::default()).expect("round");
        assert_eq!(check_certificate(&field, &m), Ok(()), "{n} players");
        assert_eq!(m.cost, exact.objective);
        g.bench_with_input(BenchmarkId::new("sparse_priced", n), &n, |b, _| {
            b.iter(|| {
                min_cost_perfect_matching(&field, SolveOptions::default())
                    .expect("round")
                    .cost
            })
        });
        if n == 1000 {
            g.bench_with_input(BenchmarkId::new("dense_integer_blossom", n), &n, |b, _| {
                b.iter(|| dense_objective(&field))
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("king_of_the_hill");
    for n in [64usize, 256] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let rounds = 6;
        let mut players: Vec<KothPlayer> = (0..n)
            .map(|_| KothPlayer {
                score_halves: 2 * rng.random_range(0..=rounds),
                byes: 0,
            })
            .collect();
        players.sort_by_key(|p| std::cmp::Reverse(p.score_halves));
        let mut played = Vec::new();
        for i in 0..n {
            for d in 1..=rounds as usize {
                if i + d < n && rng.random_bool(0.5) {
                    played.push((i, i + d, 1));
                }
            }
        }
        let input = KothInput {
            players: &players,
            played: &played,
            allow_repeat: false,
        };
        g.bench_with_input(BenchmarkId::new("optimal", n), &n, |b, _| {
            b.iter(|| pair_king_of_the_hill(&input).expect("round").pairs.len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
