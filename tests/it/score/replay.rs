//! Replay against the golden data: the littlego illegal games are rejected with the right
//! reason, move number and point; every sample the sgfmill oracle replays ends in the
//! oracle's final position; the oracle's notes (suicide, ko, superko, colour twice) are
//! exactly where the strict rules stop a replay.

use std::path::{Path, PathBuf};

use goswiss::go::{
    Illegal, KoRule, PlayRules, ReplayError, ReplayOptions, SuicideRule, Xy, replay,
};
use goswiss::sgf::{Colour, Game};
use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sgf/");

fn load(rel: &str) -> Game {
    Game::from_bytes(&std::fs::read(format!("{DATA}{rel}")).unwrap()).unwrap()
}

fn rules(ko: KoRule, suicide: SuicideRule) -> ReplayOptions {
    ReplayOptions::new(PlayRules { ko, suicide })
}

/// (move number, point, reason) of the first illegal move.
fn first_illegal(g: &Game, opts: ReplayOptions) -> Option<(u32, Option<String>, Illegal)> {
    match replay(g, opts) {
        Ok(_) => None,
        Err(ReplayError::IllegalMove {
            number,
            point,
            reason,
            ..
        }) => Some((number, point.map(Xy::to_sgf), reason)),
        Err(e) => panic!("unexpected error {e}"),
    }
}

const ILLEGAL: &str = "herzbube__littlego/sgf/Illegal games/";

#[test]
fn littlego_suicide() {
    let g = load(&format!("{ILLEGAL}suicide.sgf"));
    let strict = rules(KoRule::Simple, SuicideRule::Forbidden);
    assert_eq!(
        first_illegal(&g, strict),
        Some((4, Some("aa".into()), Illegal::Suicide))
    );
    // A single stone killing only itself is illegal under multi-stone-suicide rules too.
    let nz = rules(KoRule::Situational, SuicideRule::MultiStone);
    assert_eq!(
        first_illegal(&g, nz),
        Some((4, Some("aa".into()), Illegal::Suicide))
    );
    // Allowed, it repeats the position (positional superko).
    let tt = rules(KoRule::Positional, SuicideRule::All);
    assert_eq!(
        first_illegal(&g, tt),
        Some((4, Some("aa".into()), Illegal::PositionalSuperko))
    );
    assert_eq!(
        first_illegal(&g, ReplayOptions::new(PlayRules::COMPAT)),
        None
    );
}

#[test]
fn littlego_positional_superko() {
    let g = load(&format!("{ILLEGAL}positional-superko.sgf"));
    let pos = rules(KoRule::Positional, SuicideRule::Forbidden);
    assert_eq!(
        first_illegal(&g, pos),
        Some((23, Some("eg".into()), Illegal::PositionalSuperko))
    );
    let err = replay(&g, pos).unwrap_err().to_string();
    assert_eq!(
        err,
        "move 23: B eg (E5): repeats an earlier position (positional superko)"
    );
    // Not a simple ko: legal under Japanese rules.
    assert_eq!(
        first_illegal(&g, rules(KoRule::Simple, SuicideRule::Forbidden)),
        None
    );
}

#[test]
fn littlego_situational_superko() {
    let g = load(&format!("{ILLEGAL}situational-superko.sgf"));
    let sit = rules(KoRule::Situational, SuicideRule::Forbidden);
    assert_eq!(
        first_illegal(&g, sit),
        Some((24, Some("ba".into()), Illegal::SituationalSuperko))
    );
    let pos = rules(KoRule::Positional, SuicideRule::Forbidden);
    assert_eq!(
        first_illegal(&g, pos),
        Some((24, Some("ba".into()), Illegal::PositionalSuperko))
    );
    assert_eq!(
        first_illegal(&g, rules(KoRule::Simple, SuicideRule::Forbidden)),
        None
    );
}

#[test]
fn littlego_occupied_point() {
    let g = load(&format!("{ILLEGAL}illegal-move.sgf"));
    for opts in [
        ReplayOptions::new(PlayRules::COMPAT),
        rules(KoRule::Simple, SuicideRule::Forbidden),
    ] {
        assert_eq!(
            first_illegal(&g, opts),
            Some((16, Some("hd".into()), Illegal::Occupied))
        );
    }
    let err = replay(&g, ReplayOptions::new(PlayRules::COMPAT))
        .unwrap_err()
        .to_string();
    assert_eq!(err, "move 16: W hd (H6): point occupied");
}

#[test]
fn littlego_illegal_setup() {
    let g = load(&format!("{ILLEGAL}illegal-setup.sgf"));
    let strict = ReplayOptions {
        lenient_setup: false,
        ..rules(KoRule::Simple, SuicideRule::Forbidden)
    };
    assert!(matches!(
        replay(&g, strict),
        Err(ReplayError::IllegalSetup { node: 0, .. })
    ));
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().unwrap() != "_oracle" {
                walk(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "sgf") {
            out.push(p);
        }
    }
}

/// Every file whose oracle has a replay: (relative path, game, replay object).
fn oracle_replays() -> Vec<(String, Game, Value)> {
    let mut files = Vec::new();
    walk(Path::new(DATA), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(DATA).unwrap().to_string_lossy().into_owned();
        let oracle = format!("{DATA}_oracle/{rel}.json");
        let Ok(text) = std::fs::read_to_string(&oracle) else {
            continue;
        };
        let v: Value = serde_json::from_str(&text).unwrap();
        let Some(rep) = v.get("replay") else { continue };
        let Ok(game) = Game::from_bytes(&std::fs::read(&f).unwrap()) else {
            continue;
        };
        out.push((rel, game, rep.clone()));
    }
    out
}

#[test]
fn oracle_final_positions() {
    let cases = oracle_replays();
    assert!(
        cases.len() > 150,
        "only {} oracle replays found",
        cases.len()
    );
    let mut compared = 0;
    for (rel, game, rep) in &cases {
        let r = replay(game, ReplayOptions::new(PlayRules::COMPAT));
        match rep.get("final_position") {
            Some(rows) => {
                let want: Vec<String> = serde_json::from_value(rows.clone()).unwrap();
                let r = r.unwrap_or_else(|e| panic!("{rel}: {e}"));
                assert_eq!(r.state.board.rows(), want, "{rel}");
                compared += 1;
            }
            None => {
                // The oracle's one replay error: a move on an occupied point.
                let index = rep["index"].as_u64().unwrap() as u32;
                match r {
                    Err(ReplayError::IllegalMove { number, reason, .. }) => {
                        assert_eq!((number, reason), (index + 1, Illegal::Occupied), "{rel}")
                    }
                    other => panic!("{rel}: expected occupied, got {other:?}"),
                }
            }
        }
    }
    assert!(compared > 150);
}

/// Where the oracle's notes say the strict rules must stop, as (move number, reason).
fn expected_stop(notes: &[Value], kinds: &[(&str, Illegal)]) -> Option<(u32, Illegal)> {
    notes
        .iter()
        .filter_map(|n| {
            let note = n["note"].as_str()?;
            let (_, reason) = kinds.iter().find(|(k, _)| *k == note)?;
            Some((n["index"].as_u64()? as u32 + 1, *reason))
        })
        .min_by_key(|(i, r)| (*i, *r != Illegal::Ko))
}

#[test]
fn oracle_notes_are_where_strict_rules_stop() {
    let mut checked = 0;
    for (rel, game, rep) in oracle_replays() {
        let Some(notes) = rep.get("notes").and_then(Value::as_array) else {
            continue;
        };
        if rep.get("final_position").is_none() {
            continue;
        }
        let table: [(ReplayOptions, Vec<(&str, Illegal)>); 4] = [
            (
                rules(KoRule::Simple, SuicideRule::All),
                vec![("simple ko violation", Illegal::Ko)],
            ),
            (
                rules(KoRule::Positional, SuicideRule::All),
                vec![
                    ("simple ko violation", Illegal::Ko),
                    ("positional superko", Illegal::PositionalSuperko),
                ],
            ),
            (
                rules(KoRule::None, SuicideRule::Forbidden),
                vec![("suicide", Illegal::Suicide)],
            ),
            (
                ReplayOptions {
                    alternation: true,
                    ..ReplayOptions::new(PlayRules::COMPAT)
                },
                vec![("same colour twice", Illegal::WrongColour)],
            ),
        ];
        for (opts, kinds) in table {
            let want = expected_stop(notes, &kinds);
            let got = first_illegal(&game, opts).map(|(n, _, r)| (n, r));
            assert_eq!(got, want, "{rel} {opts:?}");
            checked += 1;
        }
    }
    assert!(checked > 600);
}

#[test]
fn handicap_game_first_mover_is_white() {
    let g = load("herzbube__littlego/sgf/19x19/handicap-7-komi-0-with-pass-moves.sgf");
    let r = replay(&g, rules(KoRule::Simple, SuicideRule::Forbidden)).unwrap();
    assert_eq!(r.root_setup.0, 7);
    assert_eq!(r.moves[0].colour, Colour::White);
}

/// The validation checklist runs on every golden file without panicking, and names the rule
/// broken by each littlego illegal game.
#[test]
fn validate_every_golden_file() {
    use goswiss::go::Preset;
    use goswiss::go::validate::{Expectations, validate};
    let mut files = Vec::new();
    walk(Path::new(DATA), &mut files);
    let mut n = 0;
    for f in &files {
        let Ok(game) = Game::from_bytes(&std::fs::read(f).unwrap()) else {
            continue;
        };
        let v = validate(&game, &Expectations::default());
        n += 1;
        let rel = f.strip_prefix(DATA).unwrap().to_string_lossy().into_owned();
        let codes: Vec<&str> = v.findings.iter().map(|f| f.code).collect();
        let want = match rel.rsplit('/').next().unwrap() {
            "illegal-move.sgf" => Some("occupied"),
            "suicide.sgf" if rel.contains("Illegal") => Some("suicide"),
            "setup-after-first-move.sgf" => Some("setup_after_root"),
            "illegal-setup.sgf" => Some("illegal_setup"),
            "not-enough-handicap-stones.sgf" => Some("handicap_stones"),
            _ => None,
        };
        if let Some(code) = want {
            assert!(codes.contains(&code), "{rel}: {codes:?}");
            assert!(!v.ok(), "{rel}");
        }
    }
    assert!(n > 200);
    let g = load(&format!("{ILLEGAL}situational-superko.sgf"));
    let exp = Expectations {
        rules: Some(Preset::Aga),
        ..Expectations::default()
    };
    let v = validate(&g, &exp);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "situational_superko")
        .unwrap();
    assert_eq!(f.move_number, Some(24));
}

/// GNU Go's seki positions put setup stones in later nodes (sgfmill refuses them): they
/// replay here, node by node, and the tiny boards (2x2 to 4x4) too.
#[test]
fn seki_exotics_and_tiny_boards_replay() {
    let mut files = Vec::new();
    for dir in ["seki_exotics", "tiny"] {
        walk(
            &Path::new(DATA).join(format!("runningskull__gnugo/regression/games/{dir}")),
            &mut files,
        );
    }
    assert!(files.len() >= 25);
    let mut later_setup = 0;
    for f in &files {
        let game = Game::from_bytes(&std::fs::read(f).unwrap()).unwrap();
        let r = replay(&game, ReplayOptions::new(PlayRules::COMPAT))
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if r.setup_nodes.iter().any(|&n| n > 0) {
            later_setup += 1;
        }
        assert!(r.state.board.rows().len() == game.size() as usize);
    }
    assert_eq!(later_setup, 21);
}

/// The positions GNU Go names `seki*` have stones in seki when scored as they stand (every
/// stone alive), under the structural seki rule.
#[test]
fn seki_positions_have_seki() {
    use goswiss::go::{Preset, ScoreInput, score};
    let mut files = Vec::new();
    walk(
        &Path::new(DATA).join("runningskull__gnugo/regression/games/seki_exotics"),
        &mut files,
    );
    let mut checked = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        if !name.starts_with("seki") {
            continue;
        }
        let game = Game::from_bytes(&std::fs::read(f).unwrap()).unwrap();
        let r = replay(&game, ReplayOptions::new(PlayRules::COMPAT)).unwrap();
        let pos = r.state.board.position();
        let s = score(
            &pos,
            &vec![false; pos.len()],
            &Preset::Japanese.rules(),
            &ScoreInput::default(),
        );
        assert!(!s.seki_stones.is_empty(), "{name}");
        // Area rules count eyes in seki: nothing is taxed.
        let area = score(
            &pos,
            &vec![false; pos.len()],
            &Preset::Chinese.rules(),
            &ScoreInput::default(),
        );
        assert!(area.seki_stones.is_empty());
        assert_eq!(area.black.seki_points + area.white.seki_points, 0);
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// Finished games whose groups live with one large eye space next to unfilled dame
/// (tests/data/score/games): `sgf.validate`'s checklist finds no score mismatch under
/// Japanese rules, and nothing is taken for seki.
#[test]
fn validate_finished_games() {
    use goswiss::go::validate::{Expectations, validate};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/score/games/");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sgf"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "games in {dir}");
    for name in &names {
        let game = Game::from_bytes(&std::fs::read(format!("{dir}{name}")).unwrap()).unwrap();
        let v = validate(&game, &Expectations::default());
        assert_eq!(v.rules, goswiss::go::Preset::Japanese, "{name}");
        assert!(
            v.findings.iter().all(|f| f.code != "score_mismatch"),
            "{name}: {:#?}",
            v.findings
        );
        assert!(v.ok(), "{name}: {:#?}", v.findings);
        let s = v.score.expect("a recomputed score");
        assert!(s.seki_stones.is_empty(), "{name}");
        assert!(s.black.territory > 0 && s.white.territory > 0, "{name}");
    }
}
