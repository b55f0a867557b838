//! Rules and scoring speed (issue 5 targets): replaying a 250-move 19×19 game (≥ 1 M
//! moves/s) and scoring a 19×19 final position with dead stones (≤ 10 µs).
//!
//! Run: `nice -n 10 cargo bench --bench score`. The game is generated (seeded, legal under
//! Japanese rules); the scoring position is GNU Go's score1.sgf read from tests/data at
//! run time with its GNU Go 3.8 dead stones.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goswiss::go::{
    self, Board, GameState, PlayRules, Preset, ReplayOptions, ScoreInput, Stone, Xy,
};
use goswiss::sgf::{Colour, Game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SCORING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/sgf/runningskull__gnugo/regression/games/scoring/"
);

/// A legal 250-move game (random moves, skipping illegal tries and own eyes).
fn game_250() -> Vec<(Colour, Xy)> {
    let rules = Preset::Japanese.rules().play;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut g = GameState::new(Board::new(19).unwrap(), rules);
    let mut moves = Vec::new();
    while moves.len() < 250 {
        let c = if moves.len() % 2 == 0 {
            Colour::Black
        } else {
            Colour::White
        };
        let p = Xy::new(rng.random_range(0..19), rng.random_range(0..19));
        if g.play(c, Some(p)).is_ok() {
            moves.push((c, p));
        }
    }
    moves
}

fn bench_replay(c: &mut Criterion) {
    let moves = game_250();
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(moves.len() as u64));
    for (name, rules) in [
        ("engine_250_japanese", Preset::Japanese.rules().play),
        (
            "engine_250_positional_superko",
            Preset::TrompTaylor.rules().play,
        ),
        ("engine_250_situational_superko", Preset::Aga.rules().play),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut g = GameState::new(Board::new(19).unwrap(), rules);
                for &(c, p) in &moves {
                    g.play(c, Some(p)).unwrap();
                }
                black_box(g.board.hash())
            })
        });
    }
    // The whole main line from a parsed record (node walk and move decoding included).
    let mut sgf = String::from("(;SZ[19]");
    for (c, p) in &moves {
        let l = if *c == Colour::Black { "B" } else { "W" };
        sgf.push_str(&format!(";{l}[{}]", p.to_sgf()));
    }
    sgf.push(')');
    let game = Game::from_text(&sgf).unwrap();
    group.bench_function("sgf_main_line_250_japanese", |b| {
        b.iter(|| {
            let r = go::replay(&game, ReplayOptions::new(Preset::Japanese.rules().play)).unwrap();
            black_box(r.state.moves)
        })
    });
    group.finish();
}

/// A GNU Go scoring game's final position, dead-stone mask and score input.
fn scoring_case(file: &str) -> (go::Position, Vec<bool>, ScoreInput) {
    let bytes = std::fs::read(format!("{SCORING}{file}")).unwrap();
    let tsv = std::fs::read_to_string(format!("{SCORING}GNUGO38_DEAD.tsv")).unwrap();
    let dead = tsv
        .lines()
        .find(|l| l.starts_with(&format!("scoring/{file}\t")))
        .and_then(|l| l.split('\t').nth(2))
        .unwrap()
        .to_owned();
    let game = Game::from_bytes(&bytes).unwrap();
    let r = go::replay(&game, ReplayOptions::new(PlayRules::COMPAT)).unwrap();
    let pos = r.state.board.position();
    let mut mask = vec![false; pos.len()];
    for p in dead.split(',') {
        let i = pos.index(Xy::parse_sgf(p).unwrap()).unwrap();
        for j in pos.chain(i) {
            mask[j] = true;
        }
    }
    assert!(mask.iter().any(|&d| d) && pos.cells().iter().any(|&s| s != Stone::Empty));
    let input = ScoreInput {
        komi: game.komi().unwrap(),
        handicap: 0,
        captures: [
            r.state.board.captures(Colour::Black),
            r.state.board.captures(Colour::White),
        ],
        passes: r.state.passes,
    };
    (pos, mask, input)
}

fn bench_score(c: &mut Criterion) {
    let mut group = c.benchmark_group("score");
    // score1: dame filled (no shared liberties); score7: seki on the board, so the seki
    // analysis runs in full.
    for (file, label) in [("score1.sgf", "no_seki"), ("score7.sgf", "seki")] {
        let (pos, mask, input) = scoring_case(file);
        for preset in [Preset::Japanese, Preset::Chinese] {
            let rules = preset.rules();
            group.bench_function(format!("19x19_dead_stones_{label}_{preset}"), |b| {
                b.iter(|| black_box(go::score(black_box(&pos), &mask, &rules, &input).margin))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_replay, bench_score);
criterion_main!(benches);
