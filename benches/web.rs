//! Page rendering speed (issue 15 target): the standings page of a 1,000-player McMahon
//! tournament after 7 rounds renders in ≤ 20 ms server-side (standings computed and the
//! whole HTML document written). Also the crosstable and a round's pairings, for scale.
//!
//! Run: `nice -n 10 cargo bench --bench web`. The tournament is built with the engine
//! (seeded ranks, results by a fixed rule), 7 rounds paired by the OpenGotha weight.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use goswiss::tournament::Tournament;
use goswiss::tournament::model::{Outcome, Player, Settings, System};
use goswiss::tournament::pair::PairOptions;
use goswiss::tournament::results::ResultInput;
use goswiss::web::pages;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn push(t: &mut Tournament, events: Vec<goswiss::tournament::Event>) {
    for e in events {
        t.apply(&e).expect("apply");
    }
}

/// 1,000 players, 7 rounds paired and played.
fn tournament() -> Tournament {
    let settings = Settings {
        name: "Bench Open".into(),
        rounds: 7,
        ..Settings::defaults(System::Mcmahon)
    };
    let created = Tournament::create(settings, 11).expect("create");
    let mut t = Tournament::replay(&[created]).expect("replay");
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for k in 0..1000 {
        let rank = rng.random_range(-25..=6);
        let p = Player {
            name: format!("Player{k:04}"),
            first_name: "Bench".into(),
            rank,
            rating: 2100 + 100 * rank,
            club: format!("C{}", k % 60),
            country: ["FR", "DE", "NL", "CZ", "JP"][k % 5].into(),
            ..Player::default()
        };
        let (ev, _) = t.register_player(p).expect("register");
        push(&mut t, ev);
    }
    for round in 1..=7 {
        let (ev, _) = t.pair_round(round, &PairOptions::default()).expect("pair");
        push(&mut t, ev);
        let games = t.data.round(round).expect("round").games.clone();
        for g in games {
            let w = t.player(g.white).expect("white").rank + g.handicap as i32;
            let b = t.player(g.black).expect("black").rank;
            let outcome = if g.table % 11 == 0 {
                Outcome::Jigo
            } else if w > b || (w == b && g.table % 2 == 0) {
                Outcome::WhiteWins
            } else {
                Outcome::BlackWins
            };
            let (ev, _) = t
                .set_result(
                    round,
                    g.table,
                    ResultInput {
                        outcome,
                        ..ResultInput::default()
                    },
                )
                .expect("result");
            push(&mut t, ev);
        }
    }
    t
}

fn bench(c: &mut Criterion) {
    let t = tournament();
    let mut g = c.benchmark_group("web");
    g.sample_size(30);
    g.bench_function("standings_page_1000_players_7_rounds", |b| {
        b.iter(|| {
            let page =
                pages::standings_page(1, black_box(&t), None, pages::Viewer::ALL).expect("page");
            black_box(pages::document(&page).into_string())
        })
    });
    g.bench_function("crosstable_page_1000_players_7_rounds", |b| {
        b.iter(|| {
            let page = pages::crosstable(1, black_box(&t), None, pages::Viewer::ALL).expect("page");
            black_box(pages::document(&page).into_string())
        })
    });
    g.bench_function("pairings_page_500_games", |b| {
        b.iter(|| {
            let page = pages::pairings(1, black_box(&t), 7, pages::Viewer::ALL).expect("page");
            black_box(pages::document(&page).into_string())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
