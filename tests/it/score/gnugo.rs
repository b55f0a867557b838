//! GNU Go's 58 scoring games (tests/data/sgf/runningskull__gnugo, see its README): replay each main line, mark
//! GNU Go 3.8's dead stones (whole chains), score with Japanese rules and compare with the
//! oracle's column 4 and with EXPECTED_SCORES.tsv.

use std::collections::HashMap;

use goswiss::go::{self, Preset, ScoreInput, Xy};
use goswiss::sgf::Game;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/sgf/runningskull__gnugo/regression/games/"
);

fn tsv(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(format!("{DIR}scoring/{name}")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("file\t") && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// Scores one game with these dead stones under `preset`.
fn score_game(file: &str, dead: &str, preset: Preset) -> go::Score {
    score_game_with(file, dead, &preset.rules())
}

fn score_game_with(file: &str, dead: &str, rules: &go::RuleSet) -> go::Score {
    let (pos, mask, input) = final_position(file, dead);
    go::score(&pos, &mask, rules, &input)
}

/// A game's final position, its dead-stone mask (these dead stones, whole chains) and the
/// score input from the record.
fn final_position(file: &str, dead: &str) -> (go::Position, Vec<bool>, ScoreInput) {
    let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
    let game = Game::from_bytes(&bytes).unwrap();
    let r = go::replay(&game, go::ReplayOptions::new(go::PlayRules::COMPAT)).unwrap();
    let pos = r.state.board.position();
    let mut mask = vec![false; pos.len()];
    for p in dead.split(',').filter(|s| !s.is_empty()) {
        let i = pos.index(Xy::parse_sgf(p).unwrap()).unwrap();
        for j in pos.chain(i) {
            mask[j] = true;
        }
    }
    let b = &r.state.board;
    let input = ScoreInput {
        komi: game.komi().unwrap(),
        handicap: game.handicap().unwrap().unwrap_or(0) as u32,
        captures: [
            b.captures(goswiss::sgf::Colour::Black),
            b.captures(goswiss::sgf::Colour::White),
        ],
        passes: r.state.passes,
    };
    (pos, mask, input)
}

/// Games whose result equals EXPECTED_SCORES.tsv (the reference scorer: 56).
const EXPECTED_HITS: usize = 56;

#[test]
fn gnugo_scoring_set() {
    let rows = tsv("GNUGO38_DEAD.tsv");
    assert_eq!(rows.len(), 58);
    let expected: HashMap<String, String> = tsv("EXPECTED_SCORES.tsv")
        .into_iter()
        .map(|r| {
            (
                format!("scoring/{}", r[0].trim_start_matches("scoring/")),
                r[1].clone(),
            )
        })
        .collect();
    let (mut oracle_hits, mut expected_hits) = (0, 0);
    let mut misses = Vec::new();
    for r in &rows {
        let s = score_game(&r[0], &r[2], Preset::Japanese);
        if s.result == r[3] {
            oracle_hits += 1;
        } else {
            misses.push(format!("{}: got {} oracle {}", r[0], s.result, r[3]));
        }
        if expected.get(&r[0]) == Some(&s.result) {
            expected_hits += 1;
        } else {
            eprintln!(
                "  expected {:?}, got {} ({})",
                expected.get(&r[0]),
                s.result,
                r[0]
            );
        }
    }
    eprintln!("oracle column 4: {oracle_hits}/58; EXPECTED_SCORES: {expected_hits}/58");
    for m in &misses {
        eprintln!("  {m}");
    }
    // The seki and false-eye analysis reproduces the oracle on every game, the four seki
    // games (score7, score47, score49, score52) included.
    assert!(misses.is_empty(), "{misses:#?}");
    assert_eq!(oracle_hits, 58);
    assert_eq!(
        expected_hits, EXPECTED_HITS,
        "EXPECTED_SCORES agreement changed"
    );
}

/// Without the seki analysis the score misses exactly the four seki games.
#[test]
fn naive_counting_misses_the_seki_games() {
    let mut naive = Preset::Japanese.rules();
    naive.seki_tax = false;
    let misses: Vec<String> = tsv("GNUGO38_DEAD.tsv")
        .iter()
        .filter(|r| score_game_with(&r[0], &r[2], &naive).result != r[3])
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(
        misses,
        [
            "scoring/score47.sgf",
            "scoring/score49.sgf",
            "scoring/score52.sgf",
            "scoring/score7.sgf"
        ]
    );
}

/// Debug aid, not a check: prints one game's ownership map.
/// `DEBUG_GAME=scoring/score7.sgf cargo test --release --test it score::gnugo -- --ignored --nocapture`
#[test]
#[ignore = "debug aid: prints a game's ownership map"]
fn debug_one() {
    let Ok(f) = std::env::var("DEBUG_GAME") else {
        return;
    };
    let rows = tsv("GNUGO38_DEAD.tsv");
    let r = rows.iter().find(|r| r[0] == f).unwrap();
    let s = score_game(&r[0], &r[2], Preset::Japanese);
    let bytes = std::fs::read(format!("{DIR}{f}")).unwrap();
    let game = Game::from_bytes(&bytes).unwrap();
    let rep = go::replay(&game, go::ReplayOptions::new(go::PlayRules::COMPAT)).unwrap();
    let pos = rep.state.board.position();
    let w = pos.width() as usize;
    let dead: Vec<usize> = r[2]
        .split(',')
        .filter_map(|p| pos.index(Xy::parse_sgf(p)?))
        .collect();
    for y in 0..pos.height() as usize {
        let mut line = String::new();
        for x in 0..w {
            let i = y * w + x;
            let st = pos.at(i).letter();
            let c = match (st, s.owners[i]) {
                ('.', go::Owner::Black) => '+',
                ('.', go::Owner::White) => '-',
                ('.', go::Owner::Dame) => '.',
                ('.', go::Owner::Neutral) => '?',
                (c, _) if s.seki_stones.contains(&i) => c.to_ascii_uppercase(),
                ('w', go::Owner::Black) => 'X',
                ('b', go::Owner::White) => 'O',
                (c, _) => c,
            };
            line.push(c);
            line.push(if dead.contains(&i) { '*' } else { ' ' });
        }
        eprintln!("{line}");
    }
    eprintln!("{:?}\n{:?}", s.black, s.white);
}

/// The handicap bonus of each area preset on the set's handicap games, and the
/// area result differs from the Japanese one only by stones and bonus.
#[test]
fn handicap_bonus_per_preset() {
    let mut seen = 0;
    for r in tsv("GNUGO38_DEAD.tsv") {
        let game = Game::from_bytes(&std::fs::read(format!("{DIR}{}", r[0])).unwrap()).unwrap();
        let Some(h) = game.handicap().unwrap() else {
            continue;
        };
        seen += 1;
        let chinese = score_game(&r[0], &r[2], Preset::Chinese);
        let aga = score_game(&r[0], &r[2], Preset::Aga);
        let japanese = score_game(&r[0], &r[2], Preset::Japanese);
        assert_eq!(chinese.white.handicap_bonus, h as f64);
        assert_eq!(aga.white.handicap_bonus, (h - 1) as f64);
        assert_eq!(japanese.white.handicap_bonus, 0.0);
        assert_eq!(chinese.margin - aga.margin, -1.0);
        assert_eq!(chinese.black.stones, japanese.black.stones);
    }
    assert_eq!(seen, 4);
}

/// Measuring aid, not a check: `go::score` called N times on one game's final position (the
/// bench's positions: GNU Go 3.8's dead stones), for instruction counts that do not depend
/// on the machine's load (docs/score.md, "Tests and benchmarks"):
/// `SCORE_LOOP="scoring/score7.sgf japanese 200" valgrind --tool=callgrind
/// --toggle-collect='goswiss::go::score::score' target/release/deps/score_gnugo-…
/// --ignored --exact callgrind_loop`, then divide the count by N. `ALL` for the file scores
/// every game of the set in turn (divide by N × the number of games).
#[test]
#[ignore = "measuring aid: runs go::score in a loop for callgrind"]
fn callgrind_loop() {
    let Ok(spec) = std::env::var("SCORE_LOOP") else {
        return;
    };
    let args: Vec<&str> = spec.split_whitespace().collect();
    let [file, preset, count] = args[..] else {
        panic!("SCORE_LOOP wants \"FILE PRESET COUNT\", got {spec:?}");
    };
    let rules = preset
        .parse::<Preset>()
        .unwrap_or_else(|e| panic!("{e}"))
        .rules();
    // `ALL`: every file of the set in turn (a typical mix rather than one position).
    let rows: Vec<Vec<String>> = tsv("GNUGO38_DEAD.tsv")
        .into_iter()
        .filter(|r| file == "ALL" || r[0] == file)
        .collect();
    assert!(!rows.is_empty(), "{file} is not in GNUGO38_DEAD.tsv");
    let games: Vec<_> = rows.iter().map(|r| final_position(&r[0], &r[2])).collect();
    let mut margin = 0.0;
    for _ in 0..count.parse::<usize>().unwrap() {
        for (pos, mask, input) in &games {
            margin +=
                std::hint::black_box(go::score(std::hint::black_box(pos), mask, &rules, input))
                    .margin;
        }
    }
    eprintln!("{file} {preset} ×{count}: margin sum {margin}");
}
