//! The territory analysis against goscorer (lightvector, MIT), point for point: goscorer's own
//! 91 snapshot tests and its final-score test, our constructed positions and the final
//! positions of GNU Go's scoring games, with goscorer's answers stored in
//! tests/data/score/goscorer/ (see the README there for provenance and how to regenerate).

use goswiss::go::{self, PointStatus, Position, Preset, ScoreInput, Stone};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/score/goscorer/");

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// One position with goscorer's answer: block name → rows.
struct Case {
    name: String,
    blocks: Vec<(String, Vec<String>)>,
}

impl Case {
    fn block(&self, name: &str) -> Option<&[String]> {
        self.blocks
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, rows)| rows.as_slice())
    }
}

/// Parses goscorer's snapshot format (`BOARD:`, `TERRITORY:`, … each followed by rows),
/// several cases per file when each starts with a `== name` line (whose rows are the board
/// when no `BOARD:` follows).
fn parse_cases(text: &str, default_name: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let new_case = |name: &str| Case {
        name: name.to_owned(),
        blocks: vec![("BOARD".to_owned(), Vec::new())],
    };
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(n) = line.strip_prefix("== ") {
            cases.push(new_case(n.trim()));
        } else if let Some(block) = line.strip_suffix(':') {
            let fresh = cases
                .last()
                .is_some_and(|c| c.blocks.len() == 1 && c.blocks[0].1.is_empty());
            if block == "BOARD" {
                if !fresh {
                    cases.push(new_case(default_name));
                }
            } else {
                let case = cases.last_mut().expect("a block before BOARD:");
                case.blocks.push((block.to_owned(), Vec::new()));
            }
        } else {
            let case = cases.last_mut().expect("rows before any board");
            case.blocks.last_mut().unwrap().1.push(line.to_owned());
        }
    }
    cases
}

/// The position and dead mask of goscorer's board notation (`x`/`o` living, `b`/`w` dead).
fn board(rows: &[String]) -> (Position, Vec<bool>) {
    let pos = Position::from_rows(
        &rows
            .iter()
            .map(|r| r.replace('b', "x").replace('w', "o"))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let dead = rows
        .iter()
        .flat_map(|r| r.chars().map(|c| c == 'b' || c == 'w'))
        .collect();
    (pos, dead)
}

/// Renders one block as goscorer's test script does.
fn render(
    block: &str,
    rows: &[String],
    pos: &Position,
    st: &[PointStatus],
    area: &[Stone],
) -> Vec<String> {
    let w = pos.width() as usize;
    rows.iter()
        .enumerate()
        .map(|(y, row)| {
            row.chars()
                .enumerate()
                .map(|(x, c)| {
                    let i = y * w + x;
                    let s = &st[i];
                    let colour = |b: char, wc: char, other: char| match s.territory {
                        Stone::Black => b,
                        Stone::White => wc,
                        Stone::Empty => other,
                    };
                    match block {
                        "TERRITORY" => colour('z', 'a', c),
                        "SEKI" => match (s.seki, pos.at(i) != Stone::Empty) {
                            (Stone::Black, true) => 'x',
                            (Stone::White, true) => 'o',
                            (Stone::Black, false) => 'z',
                            (Stone::White, false) => 'a',
                            _ => '.',
                        },
                        "FALSE EYES" => {
                            if s.false_eye {
                                'F'
                            } else {
                                c
                            }
                        }
                        "UNSCORABLE FALSE EYES" => {
                            if s.unscorable_false_eye {
                                'F'
                            } else {
                                c
                            }
                        }
                        "DAME" => {
                            if s.dame {
                                '1'
                            } else {
                                c
                            }
                        }
                        "EYEVALUE" => {
                            if s.eye_value == 0 {
                                c
                            } else {
                                char::from(b'0' + s.eye_value)
                            }
                        }
                        "AREA" => match area[i] {
                            Stone::Black => 'z',
                            Stone::White => 'a',
                            Stone::Empty => c,
                        },
                        other => panic!("unknown block {other}"),
                    }
                })
                .collect()
        })
        .collect()
}

/// Where the analysis differs from plain counting (each point not a living stone is the
/// territory of the one colour its area touches; nothing in seki or an unfilled false eye).
fn plain_difference(
    pos: &Position,
    dead: &[bool],
    st: &[go::PointStatus],
    area: &[Stone],
) -> Option<String> {
    (0..pos.len()).find_map(|i| {
        let living = pos.at(i) != Stone::Empty && !dead[i];
        let want = if living { Stone::Empty } else { area[i] };
        let s = st[i];
        (s.territory != want || s.seki != Stone::Empty || s.unscorable_false_eye).then(|| {
            format!(
                "point {:?}: analysis {s:?}, plain territory {want:?}",
                pos.xy(i)
            )
        })
    })
}

/// Compares every block of every case; returns the mismatches, each with the points that
/// differ.
fn check(cases: &[Case]) -> Vec<String> {
    let mut bad = Vec::new();
    for case in cases {
        let rows = case.block("BOARD").expect("BOARD block");
        let (pos, dead) = board(rows);
        let st = go::territory_scoring(&pos, &dead, false);
        let area = go::area_scoring(&pos, &dead);
        // Where `go::score` skips the analysis, the analysis must give the plain answer.
        if go::plainly_settled(&pos, &dead)
            && let Some(d) = plain_difference(&pos, &dead, &st, &area)
        {
            bad.push(format!("{}: settled plainly, but {d}", case.name));
        }
        for (block, want) in &case.blocks {
            if block == "BOARD" {
                continue;
            }
            let got = render(block, rows, &pos, &st, &area);
            if &got != want {
                let mut diff = Vec::new();
                for (y, (g, w)) in got.iter().zip(want).enumerate() {
                    for (x, (a, b)) in g.chars().zip(w.chars()).enumerate() {
                        if a != b {
                            diff.push(format!("({x},{y}) got {a} want {b}"));
                        }
                    }
                }
                bad.push(format!(
                    "{} {block}: {}\n  want:\n    {}\n  got:\n    {}",
                    case.name,
                    diff.join(", "),
                    want.join("\n    "),
                    got.join("\n    ")
                ));
            }
        }
    }
    bad
}

/// goscorer's 91 snapshot tests, as published with it.
#[test]
fn goscorer_snapshot_tests() {
    let dir = format!("{DIR}upstream/");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("test_") && n.ends_with(".txt"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 91, "goscorer snapshot files in {dir}");
    let mut cases = Vec::new();
    for n in &names {
        let parsed = parse_cases(&read(&format!("{dir}{n}")), n.trim_end_matches(".txt"));
        assert_eq!(parsed.len(), 1, "{n}");
        assert_eq!(parsed[0].blocks.len(), 7, "{n}: seven blocks");
        cases.extend(parsed);
    }
    let bad = check(&cases);
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n")
    );
}

/// Positions built for this project (large eyes next to dame, bent four, false eyes, seki
/// without eyes and with shared eyes, small boards), with goscorer's answers.
#[test]
fn constructed_positions() {
    let cases = parse_cases(&read(&format!("{DIR}expected_positions.txt")), "?");
    let inputs = parse_cases(&read(&format!("{DIR}positions.txt")), "?");
    assert!(cases.len() >= 20, "{} cases", cases.len());
    assert_eq!(cases.len(), inputs.len(), "every input has an answer");
    for (c, i) in cases.iter().zip(&inputs) {
        assert_eq!((&c.name, c.block("BOARD")), (&i.name, i.block("BOARD")));
        assert_eq!(c.blocks.len(), 8, "{}: eight blocks", c.name);
    }
    let bad = check(&cases);
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n")
    );
}

/// The final positions of GNU Go's 58 scoring games with GNU Go 3.8's dead stones, and of
/// its 22 seki_exotics files.
#[test]
fn gnugo_final_positions() {
    let cases = parse_cases(&read(&format!("{DIR}expected_gnugo.txt")), "?");
    assert_eq!(cases.len(), 58 + 22);
    let bad = check(&cases);
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n")
    );
}

/// The analysis is skipped where plain counting is sure to agree (`check` asserts the
/// agreement on every case); enough of GNU Go's finished games take that path to matter.
#[test]
fn gnugo_final_positions_mostly_settle_plainly() {
    let cases = parse_cases(&read(&format!("{DIR}expected_gnugo.txt")), "?");
    let settled = cases
        .iter()
        .filter(|c| {
            let (pos, dead) = board(c.block("BOARD").expect("BOARD block"));
            go::plainly_settled(&pos, &dead)
        })
        .count();
    assert!(settled >= 20, "{settled} of {} settle plainly", cases.len());
}

/// goscorer's `test_final_scoring` (its test.py): final territory and area scores of three
/// boards, through `go::score` (captures and komi as given) and, for the variant that
/// scores false eyes, through the analysis directly.
#[test]
fn goscorer_final_scores() {
    // (board, [(black captures, white captures, komi, score false eyes, black, white)],
    //  area (komi, black, white))
    type Terr = (u32, u32, f64, bool, f64, f64);
    type Case<'a> = (&'a [&'a str], &'a [Terr], (f64, f64, f64));
    let cases: [Case; 3] = [
        (
            &[
                ".xo.oxxo.",
                "x.o.oxo.o",
                "ooooxxo..",
                "xxxxxxooo",
                "....x.x.o",
            ],
            &[
                (0, 0, 0.0, false, 4.0, 4.0),
                (0, 0, 0.0, true, 5.0, 4.0),
                (0, 0, 3.5, true, 5.0, 7.5),
                (8, 6, 3.5, true, 13.0, 13.5),
            ],
            (3.5, 21.0, 25.5),
        ),
        (
            &[
                ".xo.oxxo.",
                "x.o.oxo.o",
                "ooooxxob.",
                "xxxxxxooo",
                "w..wx.x.o",
            ],
            &[
                (0, 0, 0.0, false, 6.0, 5.0),
                (0, 0, 0.0, true, 7.0, 5.0),
                (0, 0, 3.5, true, 7.0, 8.5),
                (8, 6, 3.5, true, 15.0, 14.5),
            ],
            (0.0, 21.0, 22.0),
        ),
        (
            &[
                ".xo.oxxo.",
                "x.o.oxo.o",
                "ooooxxo..",
                "xxxxxxo.w",
                "....x.o..",
            ],
            &[(0, 0, 0.0, false, 5.0, 8.0)],
            (0.0, 19.0, 24.0),
        ),
    ];
    for (rows, terr, (akomi, ab, aw)) in cases {
        let rows: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
        let (pos, dead) = board(&rows);
        let dead_b = (0..pos.len())
            .filter(|&i| dead[i] && pos.at(i) == Stone::Black)
            .count();
        let dead_w = (0..pos.len())
            .filter(|&i| dead[i] && pos.at(i) == Stone::White)
            .count();
        for &(cb, cw, komi, false_eyes, b, w) in terr {
            let st = go::territory_scoring(&pos, &dead, false_eyes);
            let tb = st.iter().filter(|s| s.territory == Stone::Black).count();
            let tw = st.iter().filter(|s| s.territory == Stone::White).count();
            let got_b = (tb + dead_w) as f64 + f64::from(cb);
            let got_w = (tw + dead_b) as f64 + f64::from(cw) + komi;
            assert_eq!(
                (got_b, got_w),
                (b, w),
                "{rows:?} {cb} {cw} {komi} {false_eyes}"
            );
            if !false_eyes {
                let input = ScoreInput {
                    komi,
                    handicap: 0,
                    captures: [cb, cw],
                    passes: [0, 0],
                };
                let s = go::score(&pos, &dead, &Preset::Japanese.rules(), &input);
                assert_eq!((s.black.total, s.white.total), (b, w), "{rows:?} via score");
            }
        }
        let s = go::score(
            &pos,
            &dead,
            &Preset::Chinese.rules(),
            &ScoreInput {
                komi: akomi,
                ..ScoreInput::default()
            },
        );
        assert_eq!((s.black.total, s.white.total), (ab, aw), "{rows:?} area");
    }
}

const GNUGO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/sgf/runningskull__gnugo/regression/games/"
);

/// The final positions of GNU Go's scoring games (with GNU Go 3.8's dead stones, in
/// goscorer's notation) and of its seki_exotics files (nothing dead), as `(name, rows)`.
fn gnugo_positions() -> Vec<(String, Vec<String>)> {
    let tsv = read(&format!("{GNUGO}scoring/GNUGO38_DEAD.tsv"));
    let mut games: Vec<(String, String)> = tsv
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("file\t") && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_owned(), f[2].to_owned())
        })
        .collect();
    let dir = format!("{GNUGO}seki_exotics/");
    let mut seki: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sgf"))
        .collect();
    seki.sort();
    games.extend(
        seki.into_iter()
            .map(|n| (format!("seki_exotics/{n}"), String::new())),
    );
    games
        .into_iter()
        .map(|(file, dead)| {
            let path = format!("{GNUGO}{file}");
            let game = goswiss::sgf::Game::from_bytes(
                &std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}")),
            )
            .unwrap();
            let r = go::replay(&game, go::ReplayOptions::new(go::PlayRules::COMPAT)).unwrap();
            let pos = r.state.board.position();
            let mut mask = vec![false; pos.len()];
            for p in dead.split(',').filter(|s| !s.is_empty()) {
                let i = pos.index(go::Xy::parse_sgf(p).unwrap()).unwrap();
                for j in pos.chain(i) {
                    mask[j] = true;
                }
            }
            let w = pos.width() as usize;
            let rows = (0..pos.height() as usize)
                .map(|y| {
                    (0..w)
                        .map(|x| {
                            let i = y * w + x;
                            match (pos.at(i), mask[i]) {
                                (Stone::Black, false) => 'x',
                                (Stone::Black, true) => 'b',
                                (Stone::White, false) => 'o',
                                (Stone::White, true) => 'w',
                                (Stone::Empty, _) => '.',
                            }
                        })
                        .collect()
                })
                .collect();
            (file, rows)
        })
        .collect()
}

/// The stored GNU Go inputs are what the replay gives today (so goscorer's answers are
/// about the positions the other tests score).
#[test]
fn gnugo_inputs_are_current() {
    let stored = parse_cases(&read(&format!("{DIR}gnugo_positions.txt")), "?");
    let now = gnugo_positions();
    assert_eq!(stored.len(), now.len());
    for (s, (name, rows)) in stored.iter().zip(&now) {
        assert_eq!(&s.name, name);
        assert_eq!(s.block("BOARD"), Some(rows.as_slice()), "{name}");
    }
}

/// Writes gnugo_positions.txt (then run generate.py; see the README).
#[test]
#[ignore = "writes tests/data/score/goscorer/gnugo_positions.txt"]
fn dump_gnugo_positions() {
    let mut out = String::from(
        "# Final positions of GNU Go's scoring games (GNU Go 3.8's dead stones as b/w) and\n\
         # seki_exotics files, written by `cargo test --release --test it score::goscorer --\n\
         # --ignored dump_gnugo_positions`; do not edit.\n",
    );
    for (name, rows) in gnugo_positions() {
        out.push_str(&format!("== {name}\nBOARD:\n{}\n", rows.join("\n")));
    }
    std::fs::write(format!("{DIR}gnugo_positions.txt"), out).unwrap();
}
