//! goswiss's SGF layer against reference outputs of sgfmill 1.1.1 and CPython 3.11's codec
//! registry, kept in tests/data/sgf/_sgfmill/oracle.json (see the README there for how it is
//! made; sgfmill is not needed to run these tests).
//!
//! Covered: collections with bad games (each game loaded on its own), the exception class and
//! message of every typed-value failure, game-level helpers, charset names as Python accepts
//! them, and every byte of every single-byte code page goswiss supports.

use std::collections::BTreeSet;

use goswiss::sgf::{
    Charset, ErrorKind, Game, LoadOptions, Point, SgfError, Value, load_collection,
};
use serde_json::{Value as J, json};

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/sgf/_sgfmill/oracle.json"
);

fn oracle() -> J {
    let text = std::fs::read_to_string(ORACLE)
        .unwrap_or_else(|e| panic!("cannot read the sgfmill oracle data {ORACLE}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{ORACLE}: {e}"))
}

/// The oracle writes bytes one code point per byte.
fn bytes_of(j: &J) -> Vec<u8> {
    j.as_str()
        .expect("latin-1 string")
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("one byte per code point"))
        .collect()
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn failure(e: &SgfError) -> J {
    json!({"class": e.kind.class(), "message": e.message})
}

fn pt(p: &Point) -> J {
    json!([p.row, p.col])
}

fn value_json(v: &Value) -> J {
    match v {
        Value::None => json!(true),
        Value::Number(n) => json!(n),
        Value::Real(f) => json!(f),
        Value::Double(d) => json!(d),
        Value::Colour(c) => json!(c.letter()),
        Value::Text(t) => json!(t),
        Value::Move(m) => m.as_ref().map_or(J::Null, pt),
        Value::Points(ps) => J::Array(ps.iter().map(pt).collect()),
        Value::Ap(a, b) => json!([a, b]),
        Value::Arrows(v) => J::Array(v.iter().map(|(a, b)| json!([pt(a), pt(b)])).collect()),
        Value::Figure(f) => f.as_ref().map_or(J::Null, |(n, s)| json!([n, s])),
        Value::Labels(v) => J::Array(v.iter().map(|(p, s)| json!([pt(p), s])).collect()),
    }
}

/// Python's decoder messages name positions and codecs in ways that depend on its internals
/// (multibyte decoders report the whole bad sequence); for those only the class is compared.
fn same_failure(ours: &J, theirs: &J) -> bool {
    if theirs["class"] == "UnicodeDecodeError" {
        return ours["class"] == theirs["class"];
    }
    ours == theirs
}

fn game_json(game: &Game) -> J {
    json!({
        "size": game.size(),
        "charset": match game.get_charset() {
            Ok(c) => json!(c),
            Err(e) => failure(&e),
        },
        "serialised": match game.serialise(None) {
            Ok(b) => json!(latin1(&b)),
            Err(e) => failure(&e),
        },
    })
}

#[test]
fn collections_keep_their_good_games() {
    let oracle = oracle();
    let cases = oracle["collections"].as_array().expect("collections");
    assert!(cases.len() >= 15, "too few collection cases");
    let mut failures = Vec::new();
    for case in cases {
        let input = bytes_of(&case["input"]);
        let ours = load_collection(&input, &LoadOptions::default());
        let want_games = case["games"].as_array().expect("games");
        let got: J = match &ours {
            Err(e) => json!({"error": failure(e)}),
            Ok(games) => J::Array(
                games
                    .iter()
                    .map(|g| match g {
                        Ok(game) => json!({"game": game_json(game)}),
                        Err(e) => json!({"error": failure(e)}),
                    })
                    .collect(),
            ),
        };
        // sgfmill either reads every game (collection_error null) or fails the collection
        // at game N; goswiss keeps games 0..N and ends the list with that error.
        let want: J = match &case["collection_error"] {
            J::Null => J::Array(want_games.clone()),
            err if err["message"] == "no SGF data found" => json!({"error": err}),
            err => {
                let mut list = want_games.clone();
                list.push(json!({"error": err}));
                J::Array(list)
            }
        };
        if got != want {
            failures.push(format!("{}\n  want {want}\n  got  {got}", case["input"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn typed_values_fail_with_sgfmills_classes() {
    let oracle = oracle();
    let cases = oracle["values"].as_array().expect("values");
    assert!(cases.len() > 1000, "too few value cases");
    let mut failures = Vec::new();
    let mut classes = BTreeSet::new();
    for case in cases {
        let size = case["size"].as_u64().expect("size") as u8;
        let encoding = case["encoding"].as_str().expect("encoding");
        let game = Game::new_with_charset(size, encoding).expect("game");
        let ident = case["ident"].as_str().expect("ident");
        let raw: Vec<Vec<u8>> = case["raw"]
            .as_array()
            .expect("raw")
            .iter()
            .map(bytes_of)
            .collect();
        let raw_refs: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
        let ours = game.interpret(ident.as_bytes(), &raw_refs);
        let ok = match (&ours, case.get("error")) {
            (Ok(v), None) => value_json(v) == case["value"],
            (Err(e), Some(want)) => {
                classes.insert(e.kind.class());
                same_failure(&failure(e), want)
            }
            _ => false,
        };
        if !ok {
            let got = match &ours {
                Ok(v) => json!({"value": value_json(v)}),
                Err(e) => json!({"error": failure(e)}),
            };
            failures.push(format!(
                "{ident}{:?} (size {size}, {encoding}): want {} got {got}",
                case["raw"],
                case.get("error").unwrap_or(&case["value"]),
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // The data must exercise every class sgfmill raises for values.
    for class in ["ValueError", "TypeError", "UnicodeDecodeError"] {
        assert!(
            classes.contains(class),
            "no {class} case in the oracle data"
        );
    }
}

#[test]
fn game_helpers_match_sgfmill() {
    let oracle = oracle();
    let mut failures = Vec::new();
    for case in oracle["helpers"].as_array().expect("helpers") {
        let input = bytes_of(&case["input"]);
        let game = match Game::from_bytes(&input) {
            Ok(g) => g,
            Err(e) => {
                if !same_failure(&failure(&e), &case["load"]) {
                    failures.push(format!("{}: load {e:?}", case["input"]));
                }
                continue;
            }
        };
        let wrap = |r: Result<J, SgfError>| match r {
            Ok(v) => json!({"value": v}),
            Err(e) => json!({"error": failure(&e)}),
        };
        let got = [
            ("handicap", wrap(game.handicap().map(|h| json!(h)))),
            ("komi", wrap(game.komi().map(|k| json!(k)))),
            (
                "winner",
                wrap(game.winner().map(|w| json!(w.map(|c| c.letter())))),
            ),
            (
                "player_b",
                wrap(
                    game.player_name(goswiss::sgf::Colour::Black)
                        .map(|n| json!(n)),
                ),
            ),
            ("charset", wrap(game.get_charset().map(|c| json!(c)))),
            (
                "serialised",
                wrap(game.serialise(None).map(|b| json!(latin1(&b)))),
            ),
        ];
        for (key, got) in got {
            let want = &case[key];
            let ok = match (got.get("error"), want.get("error")) {
                (Some(g), Some(w)) => same_failure(g, w),
                _ => &got == want,
            };
            if !ok {
                failures.push(format!("{} {key}: want {want} got {got}", case["input"]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The code pages goswiss claims to read exactly as Python does.
const SINGLE_BYTE: &[&str] = &[
    "ASCII",
    "ISO-8859-1",
    "ISO-8859-2",
    "ISO-8859-3",
    "ISO-8859-4",
    "ISO-8859-5",
    "ISO-8859-6",
    "ISO-8859-7",
    "ISO-8859-8",
    "ISO-8859-9",
    "ISO-8859-10",
    "ISO-8859-11",
    "ISO-8859-13",
    "ISO-8859-14",
    "ISO-8859-15",
    "ISO-8859-16",
    "CP1250",
    "CP1251",
    "CP1252",
    "CP1253",
    "CP1254",
    "CP1255",
    "CP1256",
    "CP1257",
    "CP1258",
    "CP866",
    "CP874",
    "TIS-620",
    "KOI8-R",
    "KOI8-U",
    "MAC-ROMAN",
    "MAC-CYRILLIC",
];

#[test]
fn single_byte_code_pages_match_python_byte_for_byte() {
    let oracle = oracle();
    let tables = oracle["single_byte"].as_object().expect("single_byte");
    let mut failures = Vec::new();
    for &name in SINGLE_BYTE {
        let table = tables
            .get(name)
            .unwrap_or_else(|| panic!("no Python table for {name}"))
            .as_array()
            .expect("table");
        let cs = Charset::lookup(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(cs.name(), name);
        assert!(cs.is_single_byte(), "{name}");
        let lenient = cs.with_undefined_bytes(true);
        for (b, want) in table.iter().enumerate() {
            let byte = [b as u8];
            let got = cs.decode(&byte).ok().map(|s| {
                let mut it = s.chars();
                let c = it.next().expect("one char");
                assert!(it.next().is_none());
                u32::from(c)
            });
            let want = want.as_u64().map(|c| c as u32);
            if got != want {
                failures.push(format!(
                    "{name} byte 0x{b:02X}: want {want:X?} got {got:X?}"
                ));
            }
            match want {
                // A defined byte encodes back to itself.
                Some(c) => {
                    let c = char::from_u32(c).expect("char");
                    let back = cs.encode(&c.to_string());
                    if back.as_deref() != Ok(&byte[..]) {
                        failures.push(format!("{name} U+{:04X} encodes to {back:?}", c as u32));
                    }
                }
                // An undefined byte fails as UnicodeDecodeError, and reads with the leniency.
                None => {
                    if let Err(e) = cs.decode(&byte) {
                        assert_eq!(e.kind, ErrorKind::UnicodeDecode, "{name} 0x{b:02X}");
                    }
                    assert!(lenient.decode(&byte).is_ok(), "{name} 0x{b:02X} lenient");
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
}

#[test]
fn charset_names_follow_pythons_registry() {
    let oracle = oracle();
    let names = oracle["charset_lookup"]
        .as_object()
        .expect("charset_lookup");
    assert!(names.len() > 1000, "too few names");
    // Every normalised name goswiss can give is one Python gives too.
    let mut supported = BTreeSet::new();
    let mut failures = Vec::new();
    for (name, want) in names {
        if let Ok(cs) = Charset::lookup(name) {
            supported.insert(cs.name());
            if want["name"] != cs.name() {
                failures.push(format!("{name:?}: Python {want}, goswiss {}", cs.name()));
            }
        }
    }
    for (name, want) in names {
        let ours = Charset::lookup(name);
        match want.get("name").and_then(J::as_str) {
            // A name of a codec goswiss runs must be accepted under all of Python's spellings.
            Some(py) if supported.contains(py) => {
                if ours.is_err() {
                    failures.push(format!("{name:?}: Python {py}, goswiss rejects it"));
                }
            }
            // Python accepts it but goswiss has no such codec: an unknown encoding here.
            Some(_) => assert!(ours.is_err()),
            None => match ours {
                Ok(cs) => failures.push(format!(
                    "{name:?}: Python rejects it, goswiss reads {}",
                    cs.name()
                )),
                Err(e) => {
                    assert_eq!(e.kind, ErrorKind::Value);
                    if e.message != want["error"]["message"] && name.is_ascii() {
                        failures.push(format!("{name:?}: message {:?}", e.message));
                    }
                }
            },
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for name in SINGLE_BYTE
        .iter()
        .chain(&[
            "UTF-8",
            "SHIFT-JIS",
            "CP932",
            "EUC-JP",
            "GB2312",
            "GBK",
            "GB18030",
        ])
        .chain(&["BIG5", "CP950", "EUC-KR", "CP949", "ISO2022-JP", "UTF-16"])
    {
        assert!(supported.contains(name), "{name} is not supported");
    }
}

#[test]
fn undefined_bytes_fail_when_read_like_sgfmill() {
    let oracle = oracle();
    let mut failures = Vec::new();
    for case in oracle["decode"].as_array().expect("decode") {
        let input = bytes_of(&case["input"]);
        let game = Game::from_bytes(&input).expect("loads");
        let got = game.get(game.root(), "C");
        let ok = match (&got, case.get("error")) {
            (Ok(Value::Text(t)), None) => case["value"] == json!(t),
            (Err(e), Some(want)) => same_failure(&failure(e), want),
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: want {case} got {got:?}", case["input"]));
        }
        // The leniency reads every byte.
        let lenient = LoadOptions {
            allow_undefined_bytes: true,
            ..LoadOptions::default()
        };
        let game = Game::from_bytes_with(&input, &lenient).expect("loads");
        assert!(game.get(game.root(), "C").is_ok(), "{}", case["input"]);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
