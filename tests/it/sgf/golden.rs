//! Golden tests: every SGF file in tests/data/sgf/ against the sgfmill 1.1.1 oracle JSON
//! beside it (`_oracle/<path>.json`; the format is described in tests/data/sgf/README.md).
//!
//! The JSON is rebuilt from goswiss's public API and compared key by key. Error objects whose
//! text is sgfmill's own are compared exactly; those whose text comes from Python itself
//! (`could not convert string to float`, decoder details, bare `ValueError`) only by class.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use goswiss::sgf::{
    Board, Colour, Game, LoadOptions, Point, PropType, SgfError, Value, get_setup_and_moves,
};
use serde_json::{Value as J, json};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sgf");

fn sgf_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(DATA)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read data dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "_oracle") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "sgf") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn oracle(path: &Path) -> J {
    let rel = path.strip_prefix(DATA).expect("under data dir");
    let mut o = PathBuf::from(DATA)
        .join("_oracle")
        .join(rel)
        .into_os_string();
    o.push(".json");
    let text = std::fs::read_to_string(&o).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    serde_json::from_str(&text).expect("oracle json")
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn pt(p: Point) -> J {
    json!([p.row, p.col])
}

fn err(e: &SgfError) -> J {
    json!({ "error": e.python() })
}

fn value_json(v: &Value) -> J {
    match v {
        Value::None => json!(true),
        Value::Number(n) => json!(n),
        Value::Real(f) => json!(f),
        Value::Double(d) => json!(d),
        Value::Colour(c) => json!(c.letter()),
        Value::Text(t) => json!(t),
        Value::Move(m) => m.map_or(J::Null, pt),
        Value::Points(ps) => J::Array(ps.iter().map(|p| pt(*p)).collect()),
        Value::Ap(a, b) => json!([a, b]),
        Value::Arrows(v) => J::Array(v.iter().map(|(a, b)| json!([pt(*a), pt(*b)])).collect()),
        Value::Figure(f) => f.as_ref().map_or(J::Null, |(n, s)| json!([n, s])),
        Value::Labels(v) => J::Array(v.iter().map(|(p, s)| json!([pt(*p), s])).collect()),
    }
}

fn or_err<T>(r: Result<T, SgfError>, f: impl FnOnce(T) -> J) -> J {
    match r {
        Ok(v) => f(v),
        Err(e) => err(&e),
    }
}

fn mv(m: Option<(Colour, Option<Point>)>) -> J {
    m.map_or(J::Null, |(c, p)| json!([c.letter(), p.map_or(J::Null, pt)]))
}

/// The oracle's `replay` on the reference board, notes included.
fn replay(setup: &Board, plays: &[(Colour, Option<Point>)]) -> J {
    let mut board = setup.clone();
    let mut notes = Vec::new();
    let mut positions: HashMap<Board, i64> = HashMap::new();
    let mut situations: HashMap<(Board, Option<Colour>), i64> = HashMap::new();
    positions.insert(board.clone(), -1);
    situations.insert((board.clone(), None), -1);
    let mut ko: Option<Point> = None;
    for (i, &(colour, point)) in plays.iter().enumerate() {
        let i = i as i64;
        if i > 0 && plays[(i - 1) as usize].0 == colour {
            notes.push(json!({"index": i, "note": "same colour twice"}));
        }
        let Some(p) = point else {
            ko = None;
            continue;
        };
        if ko == Some(p) {
            notes.push(json!({"index": i, "note": "simple ko violation"}));
        }
        match board.play(p, colour) {
            Err(e) => return json!({"error": e.python(), "index": i, "notes": notes}),
            Ok(k) => ko = k,
        }
        if board.get(p).is_none() {
            notes.push(json!({"index": i, "note": "suicide"}));
        }
        if let Some(j) = positions.insert(board.clone(), i) {
            notes.push(json!({"index": i, "note": "positional superko", "repeats_after_index": j}));
        }
        if let Some(j) = situations.insert((board.clone(), Some(colour)), i) {
            notes
                .push(json!({"index": i, "note": "situational superko", "repeats_after_index": j}));
        }
    }
    json!({
        "final_position": board.rows(),
        "area_score_b_minus_w_all_alive": board.area_score(),
        "notes": notes,
    })
}

fn build(game: &Game) -> J {
    let root = game.root();
    let info = json!({
        "charset": or_err(game.get_charset(), |c| json!(c)),
        "size": game.size(),
        "komi": or_err(game.komi(), |k| json!(k)),
        "handicap": or_err(game.handicap(), |h| json!(h)),
        "winner": or_err(game.winner(), |w| w.map_or(J::Null, |c| json!(c.letter()))),
        "player_b": or_err(game.player_name(Colour::Black), |n| json!(n)),
        "player_w": or_err(game.player_name(Colour::White), |n| json!(n)),
    });
    let mut props = serde_json::Map::new();
    for (ident, raws) in game.raw_property_map(root).expect("root") {
        let name = String::from_utf8_lossy(ident).into_owned();
        let (ty, known) = PropType::of(ident);
        let ty_name = if known {
            ty.name().to_owned()
        } else {
            "private(text)".to_owned()
        };
        props.insert(
            name.clone(),
            json!({
                "raw": raws.iter().map(|r| latin1(r)).collect::<Vec<_>>(),
                "type": ty_name,
                "value": or_err(game.get(root, &name), |v| value_json(&v)),
            }),
        );
    }
    let main = game.main_sequence();
    let moves: Vec<J> = main.iter().map(|&n| or_err(game.get_move(n), mv)).collect();
    let variation_points = main.iter().filter(|&&n| game.num_children(n) > 1).count();
    let setup_of = |ident: &str| match game.get(root, ident) {
        Ok(v) => value_json(&v),
        Err(_) => json!([]),
    };
    let mut out = json!({
        "ok": true,
        "info": info,
        "root": props,
        "main_sequence_length": main.len(),
        "main_sequence_moves": moves,
        "variation_points": variation_points,
        "root_setup": {"AB": setup_of("AB"), "AW": setup_of("AW"), "AE": setup_of("AE")},
        "serialised": or_err(game.serialise(Some(79)), |b| json!(latin1(&b))),
        "serialised_nowrap": or_err(game.serialise(None), |b| json!(latin1(&b))),
    });
    match get_setup_and_moves(game) {
        Ok(sm) => {
            out["setup_and_moves"] = json!({
                "setup_position": sm.board.rows(),
                "setup_stones": sm.board.stones().iter().map(|(c, p)| json!([c.letter(), pt(*p)])).collect::<Vec<_>>(),
                "plays": sm.plays.iter().map(|&(c, p)| mv(Some((c, p)))).collect::<Vec<_>>(),
            });
            out["replay"] = replay(&sm.board, &sm.plays);
        }
        Err(e) => out["setup_and_moves"] = err(&e),
    }
    out
}

/// Messages that are sgfmill's own text (compared exactly); others only by class.
const SGFMILL_MESSAGES: &[&str] = &[
    "multiple values",
    "setup properties after the root node",
    "setup position not legal",
    "mixed setup and moves in root node",
    "point occupied",
    "infinite",
    "not a number",
    "empty list",
];

fn class_of(s: &str) -> &str {
    s.split(':').next().unwrap_or(s)
}

/// Compares recursively; pushes a description of every difference.
fn compare(path: &str, want: &J, got: &J, diffs: &mut Vec<String>) {
    match (want, got) {
        (J::Object(w), J::Object(g)) => {
            if let (Some(J::String(we)), Some(J::String(ge))) = (w.get("error"), g.get("error")) {
                let msg = we.split_once(": ").map_or("", |(_, m)| m);
                let exact = SGFMILL_MESSAGES.contains(&msg);
                let same = if exact {
                    we == ge
                } else {
                    class_of(we) == class_of(ge)
                };
                if !same {
                    diffs.push(format!("{path}: error {we:?} != {ge:?}"));
                }
                for (k, wv) in w.iter().filter(|(k, _)| *k != "error") {
                    compare(
                        &format!("{path}.{k}"),
                        wv,
                        g.get(k).unwrap_or(&J::Null),
                        diffs,
                    );
                }
                return;
            }
            for (k, wv) in w {
                match g.get(k) {
                    Some(gv) => compare(&format!("{path}.{k}"), wv, gv, diffs),
                    None => diffs.push(format!("{path}.{k}: missing")),
                }
            }
            for k in g.keys().filter(|k| !w.contains_key(*k)) {
                diffs.push(format!("{path}.{k}: unexpected"));
            }
        }
        (J::Array(w), J::Array(g)) if w.len() == g.len() => {
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                compare(&format!("{path}[{i}]"), wv, gv, diffs);
            }
        }
        (J::Number(w), J::Number(g)) => {
            if w.as_f64() != g.as_f64() {
                diffs.push(format!("{path}: {w} != {g}"));
            }
        }
        _ => {
            if want != got {
                let show = |v: &J| {
                    let s = v.to_string();
                    if s.len() > 300 {
                        format!("{}…", &s[..s.floor_char_boundary(300)])
                    } else {
                        s
                    }
                };
                diffs.push(format!("{path}: want {} got {}", show(want), show(got)));
            }
        }
    }
}

#[test]
fn every_golden_file_matches_sgfmill() {
    let files = sgf_files();
    assert_eq!(files.len(), 229, "the golden set has 229 SGF files");
    let mut failures = Vec::new();
    let (mut ok, mut negative) = (0, 0);
    for path in &files {
        let want = oracle(path);
        let bytes = std::fs::read(path).expect("read sgf");
        let name = path
            .strip_prefix(DATA)
            .unwrap_or(path)
            .display()
            .to_string();
        match (want["ok"].as_bool(), Game::from_bytes(&bytes)) {
            (Some(false), Err(e)) => {
                negative += 1;
                if J::String(e.message.clone()) != want["error"] {
                    failures.push(format!(
                        "{name}: error {:?}, oracle {}",
                        e.message, want["error"]
                    ));
                }
            }
            (Some(false), Ok(_)) => {
                failures.push(format!("{name}: loaded, oracle says {}", want["error"]))
            }
            (_, Err(e)) => failures.push(format!("{name}: failed to load: {e}")),
            (_, Ok(game)) => {
                ok += 1;
                let mut diffs = Vec::new();
                compare("", &want, &build(&game), &mut diffs);
                for d in diffs.into_iter().take(5) {
                    failures.push(format!("{name}: {d}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((ok, negative), (219, 10));
}

/// With the multibyte leniency on, files whose charset is Shift_JIS, Big5, GBK or GB18030
/// load to the same raw values when no character hides a `\` or `]` byte (true of every
/// golden file), and their text decodes as the whole-file decode says it should.
#[test]
fn multibyte_aware_mode_agrees_on_golden_files() {
    let opts = LoadOptions {
        multibyte_aware: true,
        ..LoadOptions::default()
    };
    let mut checked = 0;
    for path in sgf_files() {
        let bytes = std::fs::read(&path).expect("read");
        let (Ok(compat), Ok(aware)) = (
            Game::from_bytes(&bytes),
            Game::from_bytes_with(&bytes, &opts),
        ) else {
            continue;
        };
        if compat.raw_charset().multibyte() == goswiss::sgf::Multibyte::Safe {
            continue;
        }
        checked += 1;
        assert_eq!(compat.serialise(None), aware.serialise(None), "{path:?}");
        for (a, b) in compat
            .main_sequence()
            .into_iter()
            .zip(aware.main_sequence())
        {
            let (ma, mb) = (
                compat.raw_property_map(a).unwrap(),
                aware.raw_property_map(b).unwrap(),
            );
            assert_eq!(ma, mb, "{path:?}");
            if let Ok(Value::Text(t)) = aware.get(b, "C") {
                let raw = aware.get_raw(b, "C").unwrap();
                assert_eq!(
                    t,
                    aware.raw_charset().decode(raw).unwrap().replace('\r', ""),
                    "{path:?}"
                );
            }
        }
    }
    // Sabaki japanese(+_bad), libsgfc++ big5, gb18030, gbk, shiftjis and two macos files.
    assert!(checked >= 6, "checked {checked}");
}

/// Sabaki's `no-ca.sgf` is GB2312 without CA: sgfmill reads Latin-1 mojibake; with
/// encoding detection the comment reads as Chinese.
#[test]
fn detection_reads_no_ca_file() {
    let bytes = std::fs::read(format!("{DATA}/SabakiHQ__sgf/tests/sgf/no-ca.sgf")).expect("read");
    let compat = Game::from_bytes(&bytes).expect("loads");
    assert_eq!(compat.get_charset().unwrap(), "ISO-8859-1");
    let opts = LoadOptions {
        detect_encoding: true,
        ..LoadOptions::default()
    };
    let game = Game::from_bytes_with(&bytes, &opts).expect("loads");
    let Ok(Value::Text(c)) = game.get(game.root(), "C") else {
        panic!("C does not decode")
    };
    assert!(c.contains("黑先"), "{c}");
    // Nihon Ki-in's Shift_JIS file, with detection instead of an override.
    let bytes = std::fs::read(format!(
        "{DATA}/SabakiHQ__sgf/tests/sgf/encoding/nihon-kiin.sgf"
    ))
    .expect("read");
    let opts = LoadOptions {
        detect_encoding: true,
        multibyte_aware: true,
        root_without_semicolon: true,
        ..LoadOptions::default()
    };
    let game = Game::from_bytes_with(&bytes, &opts).expect("loads");
    assert_eq!(game.raw_charset().name(), "SHIFT-JIS");
    let Ok(Value::Text(pb)) = game.get(game.root(), "PB") else {
        panic!("PB does not decode")
    };
    let whole = encoding_rs::SHIFT_JIS.decode(&bytes).0;
    assert!(whole.contains(&format!("PB[{pb}]")), "{pb}");
}

/// Nihon Ki-in's file (Shift_JIS, no CA, root without `;`) fails under sgfmill; with the
/// three leniencies it loads, and names with 0x5C trail bytes read correctly.
#[test]
fn nihon_kiin_file_loads_with_leniencies() {
    let bytes = std::fs::read(format!(
        "{DATA}/SabakiHQ__sgf/tests/sgf/encoding/nihon-kiin.sgf"
    ))
    .expect("read");
    assert_eq!(
        Game::from_bytes(&bytes).unwrap_err().message,
        "no SGF data found"
    );
    let opts = LoadOptions {
        root_without_semicolon: true,
        multibyte_aware: true,
        override_encoding: Some("Shift_JIS".into()),
        ..LoadOptions::default()
    };
    let game = Game::from_bytes_with(&bytes, &opts).expect("loads leniently");
    let root = game.root();
    // TE's raw value holds 83 5C (ソ): the trail byte is part of the character, not an
    // escape. (TE is a Double in FF[4]; read its bytes as text.)
    let raw = game.get_raw(root, "TE").expect("TE");
    let Ok(Value::Text(title)) = game.interpret(b"C", &[raw]) else {
        panic!("TE does not decode")
    };
    let whole = encoding_rs::SHIFT_JIS.decode(&bytes).0;
    assert!(whole.contains(&format!("TE[{title}]")), "{title}");
    assert!(title.contains('ソ'), "{title}");
    // PB ends in 83 5C right before `]`: sgfmill would take `\]` as an escape.
    let Ok(Value::Text(pb)) = game.get(root, "PB") else {
        panic!("PB does not decode")
    };
    assert!(
        pb.chars().count() == 3 && whole.contains(&format!("PB[{pb}]")),
        "{pb}"
    );
    assert_eq!(game.main_sequence().len(), 9);
}
