//! Standings of a 1,000-player McMahon tournament after 7 rounds (the target: ≤ 5 ms),
//! with DC among the criteria, the crosstable, and the EGF table. The tournament is made up:
//! ranks 30k–9d, players paired at random each round (one bye when odd, a few absences),
//! results with jigo, results by default and handicaps mixed in; a fixed seed.

use criterion::{Criterion, criterion_group, criterion_main};
use goswiss::pairing::opengotha::Crit;
use goswiss::tournament::crosstable::crosstable;
use goswiss::tournament::formats::egf::{H9Options, h9};
use goswiss::tournament::model::{
    Criterion as Crit2, Game, Outcome, Player, Round, Settings, System, TournamentData,
};
use goswiss::tournament::standings::{scores, standings};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn tournament(n: u32, rounds: u32) -> TournamentData {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut settings = Settings::defaults(System::Mcmahon);
    settings.rounds = rounds;
    settings.name = "Bench Open".into();
    let players: Vec<Player> = (1..=n)
        .map(|id| Player {
            id,
            name: format!("Player{id:04}"),
            first_name: "Bench".into(),
            rank: rng.random_range(-30..=8),
            club: format!("C{}", id % 60),
            country: ["FR", "DE", "NL", "CZ"][id as usize % 4].into(),
            skip: if id.is_multiple_of(97) {
                vec![3]
            } else {
                vec![]
            },
            ..Player::default()
        })
        .collect();
    let mut t = TournamentData {
        settings,
        players,
        rounds: Vec::new(),
    };
    for r in 1..=rounds {
        let mut ids: Vec<u32> = t
            .players
            .iter()
            .filter(|p| p.participates(r))
            .map(|p| p.id)
            .collect();
        ids.shuffle(&mut rng);
        let mut round = Round::default();
        if !ids.len().is_multiple_of(2) {
            round.byes.push(ids.pop().unwrap_or(0));
        }
        for (k, pair) in ids.chunks(2).enumerate() {
            let x: u32 = rng.random_range(0..100);
            let outcome = match x {
                0..=45 => Outcome::WhiteWins,
                46..=91 => Outcome::BlackWins,
                92..=94 => Outcome::Jigo,
                95..=96 => Outcome::BothLose,
                _ => Outcome::BothWin,
            };
            round.games.push(Game {
                table: k as u32 + 1,
                white: pair[0],
                black: pair[1],
                handicap: rng.random_range(0..3),
                outcome,
                forfeit: x.is_multiple_of(41),
                ..Game::default()
            });
        }
        t.rounds.push(round);
    }
    t
}

fn bench(c: &mut Criterion) {
    let t = tournament(1000, 7);
    let mut g = c.benchmark_group("standings_1000x7");
    g.sample_size(30);
    g.bench_function("scores", |b| b.iter(|| scores(&t, 7)));
    g.bench_function("standings_mms_sosm_sososm", |b| {
        b.iter(|| standings(&t, 7, &t.settings.placement))
    });
    let with_dc: Vec<Crit2> = [Crit::Mms, Crit::Dc, Crit::Sosm, Crit::Sososm]
        .into_iter()
        .map(Crit2)
        .collect();
    g.bench_function("standings_mms_dc_sosm_sososm", |b| {
        b.iter(|| standings(&t, 7, &with_dc))
    });
    g.bench_function("crosstable", |b| {
        b.iter(|| crosstable(&t, 7, &t.settings.placement, 7, false))
    });
    let o = H9Options::default();
    g.bench_function("h9_export", |b| b.iter(|| h9(&t, &o)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
