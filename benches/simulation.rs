//! The simulation lab's cost (src/simulation): one simulated tournament of 200 players and 5
//! McMahon rounds with OpenGotha's weight (players, pairings, results, standings and the
//! metrics), and one round's pairing inside it. The target is 10,000 such tournaments
//! in 60 s on 2 cores, about 6 ms per round of work per core; `goswiss simulate` measures the
//! whole figure (docs/simulation.md, "Speed").
//!
//! Run: `nice -n 10 cargo bench --bench simulation`. `GOSWISS_SIM_PROFILE=N` skips criterion
//! and plays N tournaments on this thread (for perf or `valgrind --tool=callgrind`).

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use goswiss::simulation::{Limits, Prepared, Spec, play};
use goswiss::tournament::Tournament;
use goswiss::tournament::pair::PairOptions;
use serde_json::json;

fn spec() -> Prepared {
    Spec::from_value(json!({
        "field": {"generate": {"players": 200, "from": "20k", "to": "5d"}},
        "variants": [{"settings": {"system": "mcmahon", "rounds": 5}}],
        "runs": 1_000_000, "seed": 1
    }))
    .and_then(|s| s.prepare(&Limits::default()))
    .expect("the benchmark's spec")
}

/// Plays run `run` of the spec: a whole tournament and its observation.
fn one(p: &Prepared, run: u64) -> usize {
    let seed = play::run_seed(p.seed, run);
    let field = play::run_field(&p.field, seed, p.strength_sd);
    let v = &p.variants[0];
    let played = play::play(&v.settings, None, &field, seed, &p.model).expect("plays");
    let o = goswiss::simulation::metrics::observe(
        &played.tournament.data,
        &field.strength,
        &played.standings,
    );
    o.final_mms2.len()
}

/// The tournament of run `run` with rounds 1 … `round` − 1 played: ready to pair `round`.
fn before_round(p: &Prepared, run: u64, round: u32) -> Tournament {
    let seed = play::run_seed(p.seed, run);
    let field = play::run_field(&p.field, seed, p.strength_sd);
    let v = &p.variants[0];
    let played = play::play(&v.settings, None, &field, seed, &p.model).expect("plays");
    // The state before the round was paired: the rounds from it on dropped (the tournament
    // keeps no log of its events; its data is the whole state).
    let mut t = played.tournament;
    t.data.rounds.truncate(round as usize - 1);
    t
}

fn bench(c: &mut Criterion) {
    let p = spec();
    let mut g = c.benchmark_group("simulation");
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(15));
    let mut run = 0;
    g.bench_function("tournament_200_players_5_rounds_mcmahon", |b| {
        b.iter(|| {
            run += 1;
            one(&p, run)
        })
    });
    for round in [1, 3, 5] {
        let t = before_round(&p, 7, round);
        g.bench_function(format!("pair_round_{round}_of_200_players"), |b| {
            b.iter(|| {
                t.pair_round(round, &PairOptions::default())
                    .expect("pairs")
                    .0
                    .len()
            })
        });
    }
    g.finish();
}

fn profile(n: u64) {
    let p = spec();
    let start = Instant::now();
    let cpu = cpu_time::ThreadTime::now();
    let mut total = 0;
    for run in 0..n {
        total += one(&p, run);
    }
    println!(
        "{n} tournaments ({total} players): {:.2} ms each, {:.2} CPU ms each",
        start.elapsed().as_secs_f64() * 1000.0 / n as f64,
        cpu.elapsed().as_secs_f64() * 1000.0 / n as f64
    );
}

fn main() {
    if let Some(n) = std::env::var("GOSWISS_SIM_PROFILE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        profile(n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

criterion_group!(benches, bench);
