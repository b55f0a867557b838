//! One round of a McMahon tournament under the `opengotha` preset proper (OpenGotha 3.51's
//! own weight, every criterion: `pairing::opengotha`), at 100 and 1,000 players (10,000 with
//! `GOSWISS_BENCH_10K=1`): ranks 30k–9d, 60 clubs, 8 countries, McMahon defaults, three
//! rounds already played, round 4 paired (split & slip seeding). The exact optimum every time.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use goswiss::pairing::SolveOptions;
use goswiss::pairing::opengotha::{self as og, History, OgGame, OgPlayer, Outcome, Params, System};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A history of `rounds` rounds made cheaply, so the setup does not depend on the engine
/// measured: each round pairs neighbours in (rank + wins) order with a random offset, the
/// stronger player White with the rank difference (capped at 9) as handicap above 1d-gaps,
/// results favouring the stronger side a little; odd fields give a bye to the last one.
fn history(n: usize, rounds: usize, seed: u64) -> History {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let players: Vec<OgPlayer> = (0..n)
        .map(|i| OgPlayer {
            name: format!("Player{i:05}"),
            first_name: ["Ann", "Bo", "Cy", "Di"][i % 4].to_string(),
            // −30 (30k) … 8 (9d), more players in the kyu middle.
            rank: ((rng.random_range(-30..=8) + rng.random_range(-30..=8)) as f64 / 2.0).round()
                as i32,
            rating: 0,
            club: format!("club{}", rng.random_range(0..60)),
            country: format!("c{}", rng.random_range(0..8)),
            smms_correction: 0,
            absent: vec![],
        })
        .collect();
    let mut wins = vec![0i32; n];
    let mut games = vec![];
    let mut byes = vec![];
    for r in 0..rounds {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| {
            (
                -(players[i].rank.clamp(-20, 3) + wins[i]),
                -players[i].rank,
                i,
            )
        });
        // A random offset inside the top part so pairs are not only 1–2, 3–4.
        let shift = rng.random_range(0..4usize).min(order.len() / 2);
        order[..2 * shift].rotate_left(shift);
        if n % 2 == 1 {
            byes.push((r, order.pop().unwrap()));
        }
        for pair in order.chunks(2) {
            let (a, b) = (pair[0], pair[1]);
            let (w, bl) = if players[a].rank >= players[b].rank {
                (a, b)
            } else {
                (b, a)
            };
            let gap = players[w].rank - players[bl].rank;
            let white_wins = rng.random_bool(if gap > 0 { 0.55 } else { 0.5 });
            if white_wins {
                wins[w] += 1;
            } else {
                wins[bl] += 1;
            }
            games.push(OgGame {
                round: r,
                white: w,
                black: bl,
                handicap: if gap > 1 { gap.min(9) } else { 0 },
                result: if white_wins {
                    Outcome::WhiteWins
                } else {
                    Outcome::BlackWins
                },
            });
        }
    }
    History {
        players,
        games,
        byes,
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("opengotha_round");
    g.sample_size(10);
    let sizes: &[usize] = if std::env::var_os("GOSWISS_BENCH_10K").is_some() {
        &[100, 1000, 10_000]
    } else {
        &[100, 1000]
    };
    for &n in sizes {
        let h = history(n, 3, 7);
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
