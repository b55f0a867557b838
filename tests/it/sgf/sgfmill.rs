//! The assertions of sgfmill 1.1.1's own test suite (sgf_grammar, sgf_properties, sgf and
//! sgf_moves tests, mattheww/sgfmill, MIT), restated against goswiss's API. Assertions
//! about Python types (TypeError for str vs bytes) have no Rust counterpart and are left out.

use std::collections::BTreeSet;

use goswiss::sgf::{
    Board, Colour, ErrorKind, Game, LoadOptions, Point, Value, get_setup_and_moves,
    indicate_first_player, moves::get_setup_and_moves_on, parse_collection, set_initial_position,
};

fn load(b: &[u8]) -> Game {
    Game::from_bytes(b).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(b)))
}

fn load_err(b: &[u8]) -> String {
    Game::from_bytes(b).expect_err("should fail").message
}

fn p(row: u8, col: u8) -> Point {
    Point::new(row, col)
}

fn pts(v: &[(u8, u8)]) -> Value {
    Value::Points(v.iter().map(|&(r, c)| p(r, c)).collect())
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

/// (sequence length, child shapes) of the coarse tree, as sgfmill's tests describe it.
#[derive(Debug, PartialEq)]
struct Shape(usize, Vec<Shape>);

fn shape(g: &Game) -> Shape {
    fn from(g: &Game, start: goswiss::sgf::NodeId) -> Shape {
        let mut len = 1;
        let mut node = start;
        while g.num_children(node) == 1 {
            node = g.child(node, 0).unwrap();
            len += 1;
        }
        Shape(len, g.children(node).map(|c| from(g, c)).collect())
    }
    from(g, g.root())
}

/// A shape as sgfmill's coarse tree gives it, normalised the way a game tree (sgfmill's
/// `Sgf_game` as well as ours) sees it: a lone child tree continues its parent's sequence.
fn sh(len: usize, kids: Vec<Shape>) -> Shape {
    if kids.len() == 1 {
        let Some(Shape(kid_len, grandkids)) = kids.into_iter().next() else {
            unreachable!()
        };
        Shape(len + kid_len, grandkids)
    } else {
        Shape(len, kids)
    }
}

// ------------------------------------------------------------------ sgf_grammar_tests

#[test]
fn valid_property_identifiers() {
    let mut g = Game::new(19).unwrap();
    let root = g.root();
    for ok in ["B", "PB", "ABCDEFGH", "MULTIGOGM", &"X".repeat(64)] {
        assert!(g.set_raw(root, ok, "x").is_ok(), "{ok}");
    }
    for bad in [
        &"X".repeat(65)[..],
        "",
        "b",
        "Player",
        "P2",
        " PB",
        "PB ",
        "P B",
        "PB\0",
    ] {
        assert_eq!(
            g.set_raw(root, bad, "x").unwrap_err().message,
            "ill-formed property identifier"
        );
    }
}

#[test]
fn valid_property_values() {
    let mut g = Game::new(19).unwrap();
    let root = g.root();
    let x70000 = vec![b'x'; 70000];
    for ok in [
        &b""[..],
        b"hello world",
        b"hello\nworld",
        b"hello \x00 world",
        b"hello \xa3 world",
        b"hello \xc2\xa3 world",
        b"hello \\\\-) world",
        b"hello (;[) world",
        b"hello \\] world",
        b"hello world \\\\",
        &x70000,
    ] {
        assert!(g.set_raw(root, "C", ok).is_ok(), "{ok:?}");
    }
    for bad in [&b"[hello world]"[..], b"hello ] world", b"hello world \\"] {
        assert_eq!(
            g.set_raw(root, "C", bad).unwrap_err().message,
            "ill-formed raw property value"
        );
    }
}

#[test]
fn tokeniser_observable_behaviour() {
    let g = load(b"(;B[ah][]C[a\xa3b])");
    assert_eq!(
        g.get_raw_list(g.root(), "B").unwrap(),
        vec![&b"ah"[..], b""]
    );
    assert_eq!(g.get_raw(g.root(), "C").unwrap(), b"a\xa3b");
    // Junk around the game, whitespace anywhere between tokens.
    for s in [
        &b"junk (;B[ah])"[..],
        b"(;B[ah]) junk",
        b"( ;XX[abc][def]KO[];B[bc])",
        b"(; XX[abc][def]KO[];B[bc])",
        b"(;XX [abc][def]KO[];B[bc])",
        b"(;XX[abc] [def]KO[];B[bc])",
        b"(;XX[abc][def] KO[];B[bc])",
        b"(;XX[abc][def]KO [];B[bc])",
        b"(;XX[abc][def]KO[] ;B[bc])",
        b"(;XX[abc][def]KO[]; B[bc])",
        b"(;XX[abc][def]KO[];B [bc])",
        b"(;XX[abc][def]KO[];B[bc] )",
        b"( ;\nB\t[ah]\x0c[ef]\x0b)",
        b"(;B[ah)])",
    ] {
        assert!(
            Game::from_bytes(s).is_ok(),
            "{}",
            String::from_utf8_lossy(s)
        );
    }
    assert_eq!(load_err(b"junk"), "no SGF data found");
    assert_eq!(load_err(b"junk (B[ah])"), "no SGF data found");
    // Paren balance: the game ends when depth returns to 0.
    assert_eq!(shape(&load(b"(; ))(([ag]B C[ah])")), sh(1, vec![]));
    assert_eq!(load_err(b"(;( )) (;)"), "empty sequence");
    // 8, 9, 64 letters are one identifier; 65 are two.
    for n in [8, 9, 64] {
        let s = format!("(;{}[x])", "X".repeat(n));
        assert!(Game::from_bytes(s.as_bytes()).is_ok());
    }
    assert_eq!(
        load_err(format!("(;{}[x])", "X".repeat(65)).as_bytes()),
        "property with no values"
    );
    for s in [
        &b"(;B[ag"[..],
        b"(;B[ag)",
        b"(;+B[ag])",
        b"(;B+[ag])",
        b"(;B[ag]+)",
        br"(;B[ag\])",
        br"(;B[ag\\\])",
    ] {
        assert_eq!(
            load_err(s),
            "unexpected end of SGF data",
            "{}",
            String::from_utf8_lossy(s)
        );
    }
    for (s, raw) in [
        (&br"(;C[ab \] cd][ef])"[..], &br"ab \] cd"[..]),
        (br"(;C[ab \] cd\\][ef])", br"ab \] cd\\"),
        (br"(;C[ab \] cd\\\\][ef])", br"ab \] cd\\\\"),
        (br"(;C[ab \] \\\] cd][ef])", br"ab \] \\\] cd"),
    ] {
        let g = load(s);
        assert_eq!(g.get_raw(g.root(), "C").unwrap(), raw);
    }
    let g = load(b"(;AddBlack[ag])");
    assert_eq!(g.get_raw(g.root(), "AB").unwrap(), b"ag");
}

#[test]
fn parser_structure() {
    for s in [
        &b"(;C[abc]KO[];B[bc])"[..],
        b"initial junk (;C[abc]KO[];B[bc])",
        b"(;C[abc]KO[];B[bc]) final junk",
        b"(;C[abc]KO[];B[bc]) (;B[ag])",
        b"(;C[abc]AB[ab][bc];B[bc])",
        b"(;C[abc] AB[ab]\n[bc]\t;B[bc])",
    ] {
        assert_eq!(shape(&load(s)), sh(2, vec![]));
    }
    assert_eq!(shape(&load(b"(;C[abc]KO[];;B[bc])")), sh(3, vec![]));
    assert_eq!(shape(&load(b"(;)")), sh(1, vec![]));
    for s in [&b""[..], b"junk", b"()", b"(B[ag])", b"B[ag]", b"[ag]"] {
        assert_eq!(load_err(s), "no SGF data found");
    }
    for (s, msg) in [
        (&b"(;B)"[..], "property with no values"),
        (b"(;[ag])", "unexpected value"),
        (b"(;[ag][ah])", "unexpected value"),
        (b"(;[B][ag])", "unexpected value"),
        (b"(;B[ag]", "unexpected end of SGF data"),
        (b"(;B[ag][)]", "unexpected end of SGF data"),
        (b"(;B;W[ah])", "property with no values"),
        (b"(;B[ag](;[ah]))", "unexpected value"),
        (b"(;B W[ag])", "property with no values"),
    ] {
        assert_eq!(load_err(s), msg, "{}", String::from_utf8_lossy(s));
    }
}

#[test]
fn parser_tree_structure() {
    assert_eq!(
        shape(&load(b"(;C[abc]AB[ab](;B[bc]))")),
        sh(1, vec![sh(1, vec![])])
    );
    assert_eq!(
        shape(&load(b"(;C[abc]AB[ab](;B[bc])))")),
        sh(1, vec![sh(1, vec![])])
    );
    assert_eq!(
        shape(&load(b"(;C[abc]AB[ab](;B[bc]))))")),
        sh(1, vec![sh(1, vec![])])
    );
    assert_eq!(
        shape(&load(b"(;C[abc]AB[ab](;B[bc])(;B[bd]))")),
        sh(1, vec![sh(1, vec![]), sh(1, vec![])])
    );
    let s = b"
        (;C[abc]AB[ab];C[];C[]
          (;B[bc])
          (;B[bd];W[ca] (;B[da])(;B[db];W[ea]) )
        )";
    assert_eq!(
        shape(&load(s)),
        sh(
            3,
            vec![sh(1, vec![]), sh(2, vec![sh(1, vec![]), sh(2, vec![])])]
        )
    );
    for (s, msg) in [
        (&b"(;B[ag];W[ah](;B[ai])"[..], "unexpected end of SGF data"),
        (b"(;B[ag];())", "empty sequence"),
        (b"(;B[ag]())", "empty sequence"),
        (b"(;B[ag]((;W[ah])(;W[ai]))", "empty sequence"),
        (b"(;B[ag];W[ah](;B[ai]);W[bd])", "unexpected node"),
        (b"(;B[ag];(W[ah];B[ai]))", "property value outside a node"),
        (b"(;B[ag](;W[ah];)B[ai])", "property value outside a node"),
        (b"(;B[ag](;W[ah])(B[ai]))", "property value outside a node"),
    ] {
        assert_eq!(load_err(s), msg, "{}", String::from_utf8_lossy(s));
    }
}

#[test]
fn parser_properties() {
    let g = load(b"(;C[abc]KO[]AB[ai][bh][ee];B[ bc])");
    let root = g.root();
    assert_eq!(g.get_raw_list(root, "C").unwrap(), vec![&b"abc"[..]]);
    assert_eq!(g.get_raw_list(root, "KO").unwrap(), vec![&b""[..]]);
    assert_eq!(
        g.get_raw_list(root, "AB").unwrap(),
        vec![&b"ai"[..], b"bh", b"ee"]
    );
    assert_eq!(g.get_raw(g.child(root, 0).unwrap(), "B").unwrap(), b" bc");
    let g = load(br"(;C[ab \] \) cd\\])");
    assert_eq!(g.get_raw(g.root(), "C").unwrap(), br"ab \] \) cd\\");
    let g = load(b"(;XX[1]YY[2]XX[3]YY[4])");
    assert_eq!(
        g.get_raw_list(g.root(), "XX").unwrap(),
        vec![&b"1"[..], b"3"]
    );
    assert_eq!(
        g.get_raw_list(g.root(), "YY").unwrap(),
        vec![&b"2"[..], b"4"]
    );
}

#[test]
fn sgf_collections() {
    let opts = LoadOptions::default();
    assert_eq!(
        parse_collection(b"", &opts).unwrap_err().message,
        "no SGF data found"
    );
    assert_eq!(
        parse_collection(b"()", &opts).unwrap_err().message,
        "no SGF data found"
    );
    let games = parse_collection(b"(;C[abc]AB[ab];X[];X[](;B[bc]))", &opts).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(shape(&games[0]), sh(3, vec![sh(1, vec![])]));
    for s in [
        &b"(;X[1];X[2];X[3](;B[bc])) (;Y[1];Y[2])"[..],
        b"dummy (;X[1];X[2];X[3](;B[bc])) junk (;Y[1];Y[2]) Nonsense",
        b"(( (;X[1];X[2];X[3](;B[bc])) ();) (;Y[1];Y[2]) )(Nonsense",
    ] {
        let games = parse_collection(s, &opts).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(shape(&games[0]), sh(3, vec![sh(1, vec![])]));
        assert_eq!(shape(&games[1]), sh(2, vec![]));
    }
    assert_eq!(
        parse_collection(b"(( (;X[1];X[2];X[3](;B[bc])) ();) (;Y[1];Y[2]", &opts)
            .unwrap_err()
            .message,
        "error parsing game 1: unexpected end of SGF data"
    );
}

#[test]
fn text_round_trip_through_set_and_get() {
    let mut g = Game::new(19).unwrap();
    let root = g.root();
    for (input, back) in [
        ("abc", "abc"),
        ("a\\bc", "a\\bc"),
        ("abc\\", "abc\\"),
        ("ab]c", "ab]c"),
        ("abc]", "abc]"),
        ("abc\\]", "abc\\]"),
        ("ab\nc", "ab\nc"),
        ("ab\n  c", "ab\n  c"),
        ("ab\tc", "ab c"),
        ("ab\r\nc\n", "ab\nc\n"),
    ] {
        g.set(root, "C", &text(input)).unwrap();
        assert_eq!(g.get(root, "C").unwrap(), text(back), "{input:?}");
    }
    g.set(root, "C", &text("a\\]bc")).unwrap();
    assert_eq!(g.get_raw(root, "C").unwrap(), br"a\\\]bc");
}

#[test]
fn serialise_game_tree() {
    let serialised: &[u8] = b"(;AB[aa][ab][ac]C[comment \xa3];W[ab];C[];C[](;B[bc])(;B[bd];W[ca](;B[da])(;B[db];\nW[ea])))\n";
    let g = load(serialised);
    assert_eq!(g.serialise(Some(79)).unwrap(), serialised);
    let flat: Vec<u8> = serialised
        .iter()
        .copied()
        .filter(|&b| b != b'\n')
        .chain([b'\n'])
        .collect();
    assert_eq!(g.serialise(None).unwrap(), flat);
}

// ------------------------------------------------------------------ sgf_tests

const SAMPLE_SGF: &[u8] =
    b"(;AP[testsuite:0]CA[utf-8]DT[2009-06-06]FF[4]GM[1]KM[7.5]PB[Black engine]
PL[B]PW[White engine]RE[W+R]SZ[9]AB[ai][bh][ee]AW[fc][gc];B[dg];W[ef]C[comment
on two lines];B[];W[tt]C[Final comment])
";

const SAMPLE_SGF_VAR: &[u8] =
    b"(;AP[testsuite:0]CA[utf-8]DT[2009-06-06]FF[4]GM[1]KM[7.5]PB[Black engine]
PL[B]RE[W+R]SZ[9]AB[ai][bh][ee]AW[fd][gc]VW[]
;B[dg]
;W[ef]C[comment
on two lines]
;B[]
;C[Nonfinal comment]VW[aa:bb]
(;B[ia];W[ib];B[ic])
(;B[ib];W[ic]
  (;B[id])
  (;B[ie])
))
";

#[test]
fn new_game_and_loading() {
    let g = Game::new(9).unwrap();
    let root = g.root();
    assert_eq!(g.size(), 9);
    let mut map = g.raw_property_map(root).unwrap();
    map.sort();
    assert_eq!(
        map,
        vec![
            (&b"CA"[..], vec![&b"UTF-8"[..]]),
            (b"FF", vec![b"4"]),
            (b"GM", vec![b"1"]),
            (b"SZ", vec![b"9"])
        ]
    );
    assert_eq!(g.num_children(root), 0);
    assert_eq!(g.parent(root), None);

    let g = load(b"(;)");
    assert_eq!(
        (g.get_charset().unwrap().as_str(), g.size()),
        ("ISO-8859-1", 19)
    );
    assert_eq!(load_err(b"(;SZ[9]"), "unexpected end of SGF data");
    assert_eq!(load(b"(;SZ[9])").size(), 9);
    assert_eq!(load_err(b"(;SZ[a])"), "bad SZ property: b'a'");
    assert_eq!(load_err(b"(;SZ[27])"), "size out of range: 27");
    assert_eq!(load_err(b"(;SZ[0];B[aa])"), "size out of range: 0");
    assert_eq!(load_err(b"(;CA[])"), "unknown encoding: ");
}

#[test]
fn node_raw_access() {
    let g = load(br"(;KM[6.5]C[sample\: comment]AB[ai][bh][ee]AE[];B[dg])");
    let (n0, n1) = (g.root(), g.main_sequence()[1]);
    assert_eq!(g.raw_charset().name(), "ISO-8859-1");
    assert!(g.has_property(n0, "KM") && !g.has_property(n0, "XX") && !g.has_property(n1, "KM"));
    let mut props = g.properties(n0).unwrap();
    props.sort();
    assert_eq!(props, vec![&b"AB"[..], b"AE", b"C", b"KM"]);
    assert_eq!(g.properties(n1).unwrap(), vec![&b"B"[..]]);
    assert_eq!(g.get_raw(n0, "C").unwrap(), br"sample\: comment");
    assert_eq!(g.get_raw(n0, "AB").unwrap(), b"ai");
    assert_eq!(g.get_raw(n0, "AE").unwrap(), b"");
    assert_eq!(g.get_raw(n0, "XX").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.get_raw_list(n0, "KM").unwrap(), vec![&b"6.5"[..]]);
    assert_eq!(
        g.get_raw_list(n0, "AB").unwrap(),
        vec![&b"ai"[..], b"bh", b"ee"]
    );
    assert_eq!(g.get_raw_list(n0, "AE").unwrap(), vec![&b""[..]]);
    assert_eq!(
        g.get_raw_list(n0, "XX").unwrap_err().kind,
        ErrorKind::NotFound
    );
}

#[test]
fn node_typed_get() {
    let g = load(
        br"(;AP[testsuite:0]CA[utf-8]DT[2009-06-06]FF[4]GM[1]KM[7.5]PB[Black engine]
PL[B]PW[White engine][xs]RE[W+R]SZ[9]AB[ai][bh][ee]AW[fd][gc]AE[]BM[2]VW[]
EV[Test
event]
C[123:\)
abc]
YY[none
sense]
;B[dg]KO[]AR[ab:cd][de:fg]FG[515:first move]
LB[ac:lbl][bc:lbl2])",
    );
    let (root, n1) = (g.root(), g.main_sequence()[1]);
    assert_eq!(g.get(root, "XX").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.get(root, "C").unwrap(), text("123:)\nabc"));
    assert_eq!(g.get(root, "EV").unwrap(), text("Test event"));
    assert_eq!(g.get(root, "BM").unwrap(), Value::Double(2));
    assert_eq!(g.get(root, "YY").unwrap(), text("none\nsense"));
    assert_eq!(g.get(n1, "KO").unwrap(), Value::None);
    assert_eq!(g.get(root, "KM").unwrap(), Value::Real(7.5));
    assert_eq!(g.get(root, "GM").unwrap(), Value::Number(1));
    assert_eq!(g.get(root, "PL").unwrap(), Value::Colour(Colour::Black));
    assert_eq!(g.get(n1, "B").unwrap(), Value::Move(Some(p(2, 3))));
    assert_eq!(g.get(root, "AB").unwrap(), pts(&[(0, 0), (1, 1), (4, 4)]));
    assert_eq!(g.get(root, "VW").unwrap(), pts(&[]));
    assert_eq!(
        g.get(root, "AP").unwrap(),
        Value::Ap("testsuite".into(), "0".into())
    );
    assert_eq!(
        g.get(n1, "AR").unwrap(),
        Value::Arrows(vec![(p(7, 0), p(5, 2)), (p(4, 3), p(2, 5))])
    );
    assert_eq!(
        g.get(n1, "FG").unwrap(),
        Value::Figure(Some((515, "first move".into())))
    );
    assert_eq!(
        g.get(n1, "LB").unwrap(),
        Value::Labels(vec![(p(6, 0), "lbl".into()), (p(6, 1), "lbl2".into())])
    );
    assert_eq!(g.get(root, "AE").unwrap(), pts(&[]));
    assert_eq!(g.get(root, "PW").unwrap_err().message, "multiple values");
}

#[test]
fn text_values_full_path() {
    let c = |s: &[u8]| {
        let g = load(s);
        g.get(g.root(), "C").unwrap()
    };
    assert_eq!(c(br"(;C[abc]KO[])"), text(r"abc"));
    assert_eq!(c(br"(;C[a\\bc]KO[])"), text(r"a\bc"));
    assert_eq!(c(br"(;C[a\\bc\]KO[])"), text(r"a\bc]KO["));
    assert_eq!(c(br"(;C[abc\\]KO[])"), text("abc\\"));
    assert_eq!(c(br"(;C[abc\\\]KO[])"), text(r"abc\]KO["));
    assert_eq!(c(br"(;C[abc\\\\]KO[])"), text("abc\\\\"));
    assert_eq!(c(br"(;C[abc\\\\\]KO[])"), text(r"abc\\]KO["));
    assert_eq!(c(br"(;C[xxx :\) yyy]KO[])"), text(r"xxx :) yyy"));
    assert_eq!(c(b"(;C[ab\\\nc])"), text("abc"));
    assert_eq!(c(b"(;C[ab\nc])"), text("ab\nc"));
}

#[test]
fn moves_setup_and_game_helpers() {
    let g = load(SAMPLE_SGF);
    let nodes = g.main_sequence();
    assert_eq!(g.get_move(nodes[0]).unwrap(), None);
    assert_eq!(
        g.get_move(nodes[1]).unwrap(),
        Some((Colour::Black, Some(p(2, 3))))
    );
    assert_eq!(
        g.get_move(nodes[2]).unwrap(),
        Some((Colour::White, Some(p(3, 4))))
    );
    assert_eq!(g.get_move(nodes[3]).unwrap(), Some((Colour::Black, None)));
    assert_eq!(g.get_move(nodes[4]).unwrap(), Some((Colour::White, None)));

    let g = load(br"(;KM[6.5]SZ[9]C[sample\: comment]AB[ai][bh][ee]AE[bb];B[dg])");
    let (n0, n1) = (g.root(), g.main_sequence()[1]);
    assert!(g.has_setup_stones(n0) && !g.has_setup_stones(n1));
    let set = |v: &[(u8, u8)]| v.iter().map(|&(r, c)| p(r, c)).collect::<BTreeSet<_>>();
    assert_eq!(
        g.get_setup_stones(n0).unwrap(),
        (set(&[(0, 0), (1, 1), (4, 4)]), set(&[]), set(&[(7, 1)]))
    );
    assert_eq!(
        g.get_setup_stones(n1).unwrap(),
        (set(&[]), set(&[]), set(&[]))
    );

    let g = load(SAMPLE_SGF_VAR);
    let nodes = g.main_sequence();
    assert_eq!((g.size(), g.komi().unwrap()), (9, 7.5));
    assert_eq!(
        g.player_name(Colour::Black).unwrap().as_deref(),
        Some("Black engine")
    );
    assert_eq!(g.player_name(Colour::White).unwrap(), None);
    assert_eq!(g.get(nodes[2], "C").unwrap(), text("comment\non two lines"));
    assert_eq!(g.get(nodes[4], "C").unwrap(), text("Nonfinal comment"));
    let g2 = load(b"(;)");
    assert_eq!((g2.size(), g2.komi().unwrap()), (19, 0.0));
    assert_eq!(g2.player_name(Colour::Black).unwrap(), None);
}

#[test]
fn tree_view_and_sequences() {
    let g = load(SAMPLE_SGF_VAR);
    let root = g.root();
    let kid = |n, i| g.child(n, i).unwrap();
    assert_eq!(g.num_children(root), 1);
    assert_eq!(g.get_raw(kid(root, 0), "B").unwrap(), b"dg");
    let branch = kid(kid(kid(kid(root, 0), 0), 0), 0);
    assert_eq!(g.parent(branch), Some(kid(kid(kid(root, 0), 0), 0)));
    assert_eq!(g.num_children(branch), 2);
    assert_eq!(g.child(branch, 2), None);
    assert_eq!(g.get_raw(kid(branch, 0), "B").unwrap(), b"ia");
    assert_eq!(g.get_raw(kid(branch, 1), "B").unwrap(), b"ib");
    assert_eq!(g.index_in_parent(kid(branch, 1)), Some(1));
    assert_eq!(g.num_children(kid(kid(branch, 1), 0)), 2);
    let leaf = kid(kid(kid(branch, 1), 0), 1);
    assert_eq!(g.num_children(leaf), 0);
    assert_eq!(g.last_node(), kid(kid(kid(branch, 0), 0), 0));

    assert_eq!(g.sequence_above(root).unwrap(), vec![]);
    let r0 = kid(root, 0);
    let r00 = kid(r0, 0);
    let r000 = kid(r00, 0);
    assert_eq!(g.sequence_above(branch).unwrap(), vec![root, r0, r00, r000]);
    assert_eq!(
        g.sequence_above(leaf).unwrap(),
        vec![
            root,
            r0,
            r00,
            r000,
            branch,
            kid(branch, 1),
            kid(kid(branch, 1), 0)
        ]
    );
    assert_eq!(g.main_sequence_below(leaf).unwrap(), vec![]);
    let b0 = kid(branch, 0);
    assert_eq!(
        g.main_sequence_below(branch).unwrap(),
        vec![b0, kid(b0, 0), kid(kid(b0, 0), 0)]
    );
    assert_eq!(
        g.main_sequence_below(root).unwrap(),
        vec![r0, r00, r000, branch, b0, kid(b0, 0), kid(kid(b0, 0), 0)]
    );
    let other = load(SAMPLE_SGF_VAR);
    assert_eq!(
        other.sequence_above(leaf).unwrap_err().message,
        "node doesn't belong to this game"
    );
    assert_eq!(
        other.main_sequence_below(branch).unwrap_err().message,
        "node doesn't belong to this game"
    );
    assert_eq!(g.main_sequence().len(), 8);

    // find / find_property
    assert_eq!(g.get(root, "VW").unwrap(), pts(&[]));
    assert_eq!(g.find(root, "VW").unwrap(), Some(root));
    assert_eq!(g.get(r0, "VW").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.find_property(r0, "VW").unwrap(), pts(&[]));
    let square = pts(&[(7, 0), (7, 1), (8, 0), (8, 1)]);
    assert_eq!(g.get(branch, "VW").unwrap(), square);
    assert_eq!(g.find(leaf, "VW").unwrap(), Some(branch));
    assert_eq!(g.find_property(leaf, "VW").unwrap(), square);
    assert_eq!(g.find(leaf, "XX").unwrap(), None);
    assert_eq!(
        g.find_property(leaf, "XX").unwrap_err().kind,
        ErrorKind::NotFound
    );
}

#[test]
fn serialise_sample() {
    let g = load(SAMPLE_SGF_VAR);
    let wrapped: &[u8] =
        b"(;FF[4]AB[ai][bh][ee]AP[testsuite:0]AW[fd][gc]CA[utf-8]DT[2009-06-06]GM[1]
KM[7.5]PB[Black engine]PL[B]RE[W+R]SZ[9]VW[];B[dg];C[comment
on two lines]W[ef]
;B[];C[Nonfinal comment]VW[aa:bb](;B[ia];W[ib];B[ic])(;B[ib];W[ic](;B[id])(;
B[ie])))
";
    assert_eq!(g.serialise(Some(79)).unwrap(), wrapped);
    let flat: &[u8] = b"(;FF[4]AB[ai][bh][ee]AP[testsuite:0]AW[fd][gc]CA[utf-8]DT[2009-06-06]GM[1]KM[7.5]PB[Black engine]PL[B]RE[W+R]SZ[9]VW[];B[dg];C[comment
on two lines]W[ef];B[];C[Nonfinal comment]VW[aa:bb](;B[ia];W[ib];B[ic])(;B[ib];W[ic](;B[id])(;B[ie])))
";
    assert_eq!(g.serialise(None).unwrap(), flat);
    for out in [wrapped, flat] {
        let g2 = load(out);
        let maps = |g: &Game| {
            g.main_sequence()
                .into_iter()
                .map(|n| {
                    let mut m: Vec<(Vec<u8>, Vec<Vec<u8>>)> = g
                        .raw_property_map(n)
                        .unwrap()
                        .into_iter()
                        .map(|(i, v)| (i.to_vec(), v.into_iter().map(<[u8]>::to_vec).collect()))
                        .collect();
                    m.sort();
                    m
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(maps(&g), maps(&g2));
    }
}

#[test]
fn encodings() {
    let mut g1 = Game::new(19).unwrap();
    assert_eq!(g1.get_charset().unwrap(), "UTF-8");
    let root = g1.root();
    g1.set(root, "C", &text("£")).unwrap();
    assert_eq!(g1.get(root, "C").unwrap(), text("£"));
    assert_eq!(g1.get_raw(root, "C").unwrap(), "£".as_bytes());
    assert_eq!(
        g1.serialise(Some(79)).unwrap(),
        "(;FF[4]C[£]CA[UTF-8]GM[1]SZ[19])\n".as_bytes()
    );

    let mut g2 = Game::new_with_charset(19, "iso-8859-1").unwrap();
    assert_eq!(g2.get_charset().unwrap(), "ISO-8859-1");
    let root = g2.root();
    g2.set(root, "C", &text("£")).unwrap();
    assert_eq!(g2.get_raw(root, "C").unwrap(), b"\xa3");
    assert_eq!(
        g2.serialise(Some(79)).unwrap(),
        b"(;FF[4]C[\xa3]CA[ISO-8859-1]GM[1]SZ[19])\n"
    );
    assert_eq!(
        Game::new_with_charset(19, "unknownencoding")
            .unwrap_err()
            .message,
        "unknown encoding: unknownencoding"
    );
    assert_eq!(
        Game::new_with_charset(19, "£").unwrap_err().message,
        "encoding names must be ascii"
    );

    // Loaded games.
    for (bytes, charset, raw) in [
        (
            "\n(;FF[4]C[£]CA[utf-8]GM[1]SZ[19])\n".as_bytes(),
            "UTF-8",
            "£".as_bytes(),
        ),
        (
            b"\n(;FF[4]C[\xa3]CA[iso-8859-1]GM[1]SZ[19])\n",
            "ISO-8859-1",
            b"\xa3",
        ),
        (b"\n(;FF[4]C[\xa3]GM[1]SZ[19])\n", "ISO-8859-1", b"\xa3"),
    ] {
        let g = load(bytes);
        assert_eq!(g.get_charset().unwrap(), charset);
        assert_eq!(g.get(g.root(), "C").unwrap(), text("£"));
        assert_eq!(g.get_raw(g.root(), "C").unwrap(), raw);
        assert_eq!(g.serialise(Some(79)).unwrap(), bytes[1..].to_vec());
    }
    // Invalidly encoded: get() notices, serialise() does not care.
    let g4 = load(b"\n(;FF[4]C[\xa3]CA[utf-8]GM[1]SZ[19])\n");
    assert_eq!(
        g4.get(g4.root(), "C").unwrap_err().kind,
        ErrorKind::UnicodeDecode
    );
    assert_eq!(
        g4.serialise(Some(79)).unwrap(),
        b"(;FF[4]C[\xa3]CA[utf-8]GM[1]SZ[19])\n"
    );
    assert_eq!(
        load_err(b"(;FF[4]CA[unknownencoding]GM[1]SZ[19])"),
        "unknown encoding: unknownencoding"
    );

    // Override.
    let over = |bytes: &[u8], enc: &str| {
        Game::from_bytes_with(
            bytes,
            &LoadOptions {
                override_encoding: Some(enc.into()),
                ..LoadOptions::default()
            },
        )
        .unwrap()
    };
    let g = over("(;FF[4]C[£]CA[iso-8859-1]GM[1]SZ[19])".as_bytes(), "utf-8");
    assert_eq!(g.raw_charset().name(), "UTF-8");
    assert_eq!(g.get(g.root(), "C").unwrap(), text("£"));
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        "(;FF[4]C[£]CA[UTF-8]GM[1]SZ[19])\n".as_bytes()
    );
    let g = over(b"(;FF[4]C[\xa3]CA[utf-8]GM[1]SZ[19])", "iso-8859-1");
    assert_eq!(g.get(g.root(), "C").unwrap(), text("£"));
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;FF[4]C[\xa3]CA[ISO-8859-1]GM[1]SZ[19])\n"
    );

    // Transcoding.
    let mut g1 = load("(;FF[4]C[£]CA[utf-8]GM[1]SZ[19])".as_bytes());
    let root = g1.root();
    g1.set(root, "CA", &text("latin-1")).unwrap();
    assert_eq!(
        g1.serialise(Some(79)).unwrap(),
        b"(;FF[4]C[\xa3]CA[latin-1]GM[1]SZ[19])\n"
    );
    g1.set(root, "CA", &text("unknown")).unwrap();
    assert_eq!(
        g1.serialise(Some(79)).unwrap_err().message,
        "unsupported charset: b'unknown'"
    );
    let mut g2 = load("(;FF[4]C[£]CA[ascii]GM[1]SZ[19])".as_bytes());
    assert_eq!(
        g2.serialise(Some(79)).unwrap(),
        "(;FF[4]C[£]CA[ascii]GM[1]SZ[19])\n".as_bytes()
    );
    let root = g2.root();
    g2.set(root, "CA", &text("utf-8")).unwrap();
    assert_eq!(
        g2.serialise(Some(79)).unwrap_err().kind,
        ErrorKind::UnicodeDecode
    );
    let mut g3 = load("(;FF[4]C[Δ]CA[utf-8]GM[1]SZ[19])".as_bytes());
    let root = g3.root();
    g3.unset(root, "CA").unwrap();
    assert_eq!(
        g3.serialise(Some(79)).unwrap_err().kind,
        ErrorKind::UnicodeEncode
    );

    // from_string.
    let mut g = Game::from_text("(;FF[4]SZ[9])").unwrap();
    assert_eq!((g.get_charset().unwrap().as_str(), g.size()), ("UTF-8", 9));
    let root = g.root();
    g.set(root, "C", &text("££")).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        "(;FF[4]C[££]CA[UTF-8]SZ[9])\n".as_bytes()
    );
    let mut g = Game::from_text("(;FF[4]SZ[9]CA[ISO-8859-1])").unwrap();
    assert_eq!(g.get_charset().unwrap(), "UTF-8");
    let root = g.root();
    g.set(root, "C", &text("££")).unwrap();
    assert_eq!(g.get(root, "C").unwrap(), text("££"));
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        "(;FF[4]C[££]CA[UTF-8]SZ[9])\n".as_bytes()
    );
}

fn set_n(g: &mut Game, node: goswiss::sgf::NodeId, name: &str) {
    g.set(node, "N", &text(name)).unwrap();
}

#[test]
fn tree_mutation() {
    let mut g = Game::new(9).unwrap();
    let root = g.root();
    let n1 = g.new_child(root, None).unwrap();
    set_n(&mut g, n1, "n1");
    let n2 = g.new_child(root, None).unwrap();
    set_n(&mut g, n2, "n2");
    let n3 = g.new_child(n1, None).unwrap();
    set_n(&mut g, n3, "n3");
    let n4 = g.new_child(root, Some(1)).unwrap();
    set_n(&mut g, n4, "n4");
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;FF[4]CA[UTF-8]GM[1]SZ[9](;N[n1];N[n3])(;N[n4])(;N[n2]))\n"
    );
    assert_eq!(g.main_sequence(), vec![root, n1, n3]);
    assert_eq!(g.last_node(), n3);
    g.delete(n1).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;FF[4]CA[UTF-8]GM[1]SZ[9](;N[n4])(;N[n2]))\n"
    );
    assert_eq!(g.delete(root).unwrap_err().kind, ErrorKind::Value);

    let mut g = load(b"(;SZ[9](;N[n1];N[n3])(;N[n2]))");
    let root = g.root();
    let n4 = g.new_child(root, None).unwrap();
    set_n(&mut g, n4, "n4");
    let n3 = g.child(g.child(root, 0).unwrap(), 0).unwrap();
    assert_eq!(g.get(n3, "N").unwrap(), text("n3"));
    let n5 = g.new_child(n3, None).unwrap();
    set_n(&mut g, n5, "n5");
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1];N[n3];N[n5])(;N[n2])(;N[n4]))\n"
    );
    assert_eq!(g.last_node(), n5);
    g.delete(n3).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1])(;N[n2])(;N[n4]))\n"
    );

    let mut g = load(b"(;SZ[9](;N[n1];N[n3])(;N[n2]))");
    let root = g.root();
    let n4 = g.new_child(root, Some(2)).unwrap();
    set_n(&mut g, n4, "n4");
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1];N[n3])(;N[n2])(;N[n4]))\n"
    );
}

#[test]
fn reparenting() {
    let mut g = load(b"(;SZ[9](;N[n1];N[n3])(;N[n2]))");
    let root = g.root();
    assert_eq!(
        g.reparent(root, root, None).unwrap_err().message,
        "would create a loop"
    );
    let (n1, n2) = (g.child(root, 0).unwrap(), g.child(root, 1).unwrap());
    let n3 = g.child(n1, 0).unwrap();
    g.reparent(n3, n2, None).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1])(;N[n2];N[n3]))\n"
    );
    g.reparent(n3, n2, None).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1])(;N[n2];N[n3]))\n"
    );
    assert_eq!(
        g.reparent(root, n3, None).unwrap_err().message,
        "would create a loop"
    );
    assert_eq!(
        g.reparent(n3, n3, None).unwrap_err().message,
        "would create a loop"
    );
    let other = Game::new(9).unwrap();
    assert_eq!(
        g.reparent(n3, other.root(), None).unwrap_err().message,
        "new parent doesn't belong to the same game"
    );

    let mut g = load(b"(;SZ[9](;N[n1];N[n3])(;N[n2]))");
    let root = g.root();
    let n3 = g.child(g.child(root, 0).unwrap(), 0).unwrap();
    g.reparent(n3, root, Some(1)).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1])(;N[n3])(;N[n2]))\n"
    );
    g.reparent(n3, root, Some(1)).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1])(;N[n3])(;N[n2]))\n"
    );
    g.reparent(n3, root, Some(2)).unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1])(;N[n2])(;N[n3]))\n"
    );
}

#[test]
fn extend_main_sequence() {
    let mut g = Game::new(9).unwrap();
    for i in 0..6 {
        let n = g.extend_main_sequence();
        set_n(&mut g, n, &format!("e{i}"));
    }
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;FF[4]CA[UTF-8]GM[1]SZ[9];N[e0];N[e1];N[e2];N[e3];N[e4];N[e5])\n"
    );
    let mut g = load(b"(;SZ[9](;N[n1];N[n3])(;N[n2]))");
    for i in 0..6 {
        let n = g.extend_main_sequence();
        set_n(&mut g, n, &format!("e{i}"));
    }
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        b"(;SZ[9](;N[n1];N[n3];N[e0];N[e1];N[e2];N[e3];N[e4];N[e5])(;N[n2]))\n"
    );
}

#[test]
fn node_set_raw_set_and_unset() {
    let mut g = load(
        br"(;AP[testsuite:0]CA[utf-8]DT[2009-06-06]FF[4]GM[1]KM[7.5]
PB[Black engine]PW[White engine]RE[W+R]SZ[9]
AB[ai][bh][ee]AW[fd][gc]BM[2]VW[]
PL[B]
C[123abc]
;B[dg]C[first move])",
    );
    let root = g.root();
    assert_eq!(g.get_raw(root, "RE").unwrap(), b"W+R");
    g.set_raw(root, "RE", "W+2.5").unwrap();
    assert_eq!(g.get_raw(root, "RE").unwrap(), b"W+2.5");
    g.set_raw(root, "XX", "xyz").unwrap();
    g.set_raw_list(root, "XX", &["abc", "def"]).unwrap();
    assert_eq!(g.get_raw(root, "XX").unwrap(), b"abc");
    assert_eq!(
        g.get_raw_list(root, "XX").unwrap(),
        vec![&b"abc"[..], b"def"]
    );
    let none: [&str; 0] = [];
    assert_eq!(
        g.set_raw_list(root, "B", &none).unwrap_err().message,
        "empty property list"
    );
    assert_eq!(
        g.set_raw(root, "Black", "aa").unwrap_err().message,
        "ill-formed property identifier"
    );
    g.set_raw(root, "C", b"foo\\]bar").unwrap();
    g.set_raw(root, "C", b"abc\\\\").unwrap();
    assert_eq!(g.get_raw(root, "C").unwrap(), b"abc\\\\");
    for bad in [&b"foo]bar"[..], b"abc\\"] {
        assert_eq!(
            g.set_raw(root, "C", bad).unwrap_err().message,
            "ill-formed raw property value"
        );
    }
    assert_eq!(
        g.set_raw_list(root, "C", &[&b"abc"[..], b"de]f"])
            .unwrap_err()
            .message,
        "ill-formed raw property value"
    );
    g.set_raw(root, "C", b"foo\\]bar\\\nbaz").unwrap();
    assert_eq!(g.get(root, "C").unwrap(), text("foo]barbaz"));

    // Typed set.
    let mut g = load(b"(;FF[4]GM[1]SZ[9])");
    let root = g.root();
    g.set(root, "KO", &Value::None).unwrap();
    g.set(root, "KM", &Value::Real(0.5)).unwrap();
    g.set(root, "DD", &pts(&[(3, 4), (5, 6)])).unwrap();
    g.set(root, "AB", &pts(&[(0, 0), (1, 1), (4, 4)])).unwrap();
    g.set(root, "TW", &pts(&[])).unwrap();
    g.set(root, "XX", &text("nonsense [none]sense more n\\onsens\\e"))
        .unwrap();
    assert_eq!(
        g.serialise(Some(79)).unwrap(),
        &b"(;FF[4]AB[ai][bh][ee]DD[ef][gd]GM[1]KM[0.5]KO[]SZ[9]TW[]\nXX[nonsense [none\\]sense more n\\\\onsens\\\\e])\n"[..]
    );
    assert_eq!(
        g.set(root, "Black", &Value::Move(None))
            .unwrap_err()
            .message,
        "ill-formed property identifier"
    );

    // Unset.
    let mut g = load(b"(;FF[4]GM[1]SZ[9]HA[3])");
    let root = g.root();
    assert_eq!(g.get(root, "HA").unwrap(), Value::Number(3));
    g.unset(root, "HA").unwrap();
    assert_eq!(g.unset(root, "PL").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.serialise(Some(79)).unwrap(), b"(;FF[4]GM[1]SZ[9])\n");

    // Size.
    assert_eq!(
        g.set(root, "SZ", &Value::Number(19)).unwrap_err().message,
        "changing size is not permitted"
    );
    g.set(root, "SZ", &Value::Number(9)).unwrap();
    assert_eq!(
        g.unset(root, "SZ").unwrap_err().message,
        "changing size is not permitted"
    );
    let mut g2 = load(b"(;FF[4]GM[1]SZ[19]HA[3])");
    let root2 = g2.root();
    g2.unset(root2, "SZ").unwrap();
    g2.set(root2, "SZ", &Value::Number(19)).unwrap();

    // Charset.
    let mut g = load(b"(;FF[4]CA[utf-8]GM[1]SZ[9]HA[3])");
    let root = g.root();
    assert_eq!(g.get_charset().unwrap(), "UTF-8");
    g.unset(root, "CA").unwrap();
    assert_eq!(g.get_charset().unwrap(), "ISO-8859-1");
    g.set(root, "CA", &text("iso-8859-1")).unwrap();
    assert_eq!(g.get_charset().unwrap(), "ISO-8859-1");
    g.set(root, "CA", &text("ascii")).unwrap();
    assert_eq!(g.get_charset().unwrap(), "ASCII");
    g.set(root, "CA", &text("unknownencoding")).unwrap();
    assert_eq!(
        g.get_charset().unwrap_err().message,
        "no codec available for CA unknownencoding"
    );
}

#[test]
fn set_move_setup_comments_handicap_winner_date() {
    let mut g = load(b"(;FF[4]GM[1]SZ[9];B[aa];B[bb])");
    let nodes = g.main_sequence();
    let (root, n1, n2) = (nodes[0], nodes[1], nodes[2]);
    assert_eq!(g.get_move(root).unwrap(), None);
    g.set_move(root, Colour::Black, Some(p(1, 1))).unwrap();
    g.set_move(n1, Colour::White, Some(p(1, 2))).unwrap();
    g.set_move(n2, Colour::Black, None).unwrap();
    assert_eq!(g.get(root, "B").unwrap(), Value::Move(Some(p(1, 1))));
    assert_eq!(g.get(root, "W").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.get(n1, "W").unwrap(), Value::Move(Some(p(1, 2))));
    assert_eq!(g.get(n1, "B").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.get(n2, "B").unwrap(), Value::Move(None));

    let mut g = load(b"(;FF[4]GM[1]SZ[9]AW[aa:bb])");
    let root = g.root();
    let set = |v: &[(u8, u8)]| v.iter().map(|&(r, c)| p(r, c)).collect::<BTreeSet<_>>();
    g.set_setup_stones(
        root,
        &set(&[(1, 2), (3, 4)]),
        &set(&[]),
        &set(&[(1, 3), (4, 5)]),
    )
    .unwrap();
    assert_eq!(g.get(root, "AB").unwrap(), pts(&[(1, 2), (3, 4)]));
    assert_eq!(g.get(root, "AW").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.get(root, "AE").unwrap(), pts(&[(1, 3), (4, 5)]));
    g.set_setup_stones(root, &set(&[]), &set(&[(6, 7)]), &set(&[]))
        .unwrap();
    assert_eq!(g.get(root, "AB").unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(g.get(root, "AW").unwrap(), pts(&[(6, 7)]));
    assert_eq!(g.get(root, "AE").unwrap_err().kind, ErrorKind::NotFound);

    let mut g = Game::new(9).unwrap();
    let root = g.root();
    g.add_comment_text(root, "hello\nworld").unwrap();
    assert_eq!(g.get(root, "C").unwrap(), text("hello\nworld"));
    g.add_comment_text(root, "hello\naga]in").unwrap();
    assert_eq!(
        g.get(root, "C").unwrap(),
        text("hello\nworld\n\nhello\naga]in")
    );

    let gh = |raw: &str| {
        let mut g = Game::new(19).unwrap();
        let root = g.root();
        g.set_raw(root, "HA", raw).unwrap();
        g.handicap()
    };
    assert_eq!(Game::new(19).unwrap().handicap().unwrap(), None);
    assert_eq!(gh("9").unwrap(), Some(9));
    assert_eq!(gh("2").unwrap(), Some(2));
    assert!(gh("1").is_err());
    assert_eq!(gh("0").unwrap(), None);

    let gw = |raw: &str| {
        let mut g = Game::new(19).unwrap();
        let root = g.root();
        g.set_raw(root, "RE", raw).unwrap();
        g.winner().unwrap()
    };
    assert_eq!(Game::new(19).unwrap().winner().unwrap(), None);
    for none in ["0", "", "Void", "Draw", "Jigo", "?"] {
        assert_eq!(gw(none), None, "{none}");
    }
    for (re, who) in [
        ("B+", Colour::Black),
        ("W+", Colour::White),
        ("B+0.5", Colour::Black),
        ("W+64", Colour::White),
        ("B+R", Colour::Black),
        ("W+Resign", Colour::White),
        ("B+T", Colour::Black),
        ("W+Time", Colour::White),
        ("B+F", Colour::Black),
        ("W+Forfeit", Colour::White),
        ("B", Colour::Black),
        ("W", Colour::White),
    ] {
        assert_eq!(gw(re), Some(who), "{re}");
    }

    let mut g = Game::new(19).unwrap();
    g.set_date(1846, 9, 11).unwrap();
    assert_eq!(g.get_raw(g.root(), "DT").unwrap(), b"1846-09-11");
}

// ------------------------------------------------------------------ sgf_properties_tests

#[test]
fn property_values() {
    let g9 = Game::new(9).unwrap();
    let g19 = Game::new(19).unwrap();
    let g21 = Game::new(21).unwrap();
    let i = |g: &Game, ident: &str, raw: &[&[u8]]| g.interpret(ident.as_bytes(), raw);
    // Number
    for (raw, n) in [
        (&b"1"[..], 1),
        (b"0", 0),
        (b"-1", -1),
        (b"+1", 1),
        (b" 3", 3),
        (b"4\n", 4),
        (b"+ 1", 1),
        (b"- 1", -1),
        (b"1 2", 12),
        (b"1_2", 12),
    ] {
        assert_eq!(i(&g9, "HA", &[raw]), Ok(Value::Number(n)), "{raw:?}");
    }
    assert!(i(&g9, "HA", &[b"1.5"]).is_err() && i(&g9, "HA", &[b"0xaf"]).is_err());
    // Real
    for (raw, f) in [
        (&b"1"[..], 1.0),
        (b"0", 0.0),
        (b"1.0", 1.0),
        (b"1.5", 1.5),
        (b"-1.5", -1.5),
        (b"+0.5", 0.5),
    ] {
        assert_eq!(i(&g9, "KM", &[raw]), Ok(Value::Real(f)));
    }
    for raw in [&b"+"[..], b"0xaf", b"inf", b"-inf", b"NaN", b"1e400"] {
        assert!(i(&g9, "KM", &[raw]).is_err(), "{raw:?}");
    }
    // Double, colour
    for (raw, d) in [(&b"1"[..], 1), (b"2", 2), (b"x", 1), (b"", 1)] {
        assert_eq!(i(&g9, "GB", &[raw]), Ok(Value::Double(d)));
    }
    for (raw, c) in [
        (&b"b"[..], Colour::Black),
        (b"w", Colour::White),
        (b"B", Colour::Black),
        (b"W", Colour::White),
    ] {
        assert_eq!(i(&g9, "PL", &[raw]), Ok(Value::Colour(c)));
    }
    assert!(i(&g9, "PL", &[b""]).is_err() && i(&g9, "PL", &[b"x"]).is_err());
    // Moves and points
    let mv = |g: &Game, raw: &[u8]| i(g, "B", &[raw]);
    assert_eq!(mv(&g19, b"aa"), Ok(Value::Move(Some(p(18, 0)))));
    assert_eq!(mv(&g19, b"ai"), Ok(Value::Move(Some(p(10, 0)))));
    assert_eq!(mv(&g9, b"ba"), Ok(Value::Move(Some(p(8, 1)))));
    assert_eq!(mv(&g21, b"tt"), Ok(Value::Move(Some(p(1, 19)))));
    assert_eq!(mv(&g19, b"tt"), Ok(Value::Move(None)));
    assert_eq!(mv(&g19, b""), Ok(Value::Move(None)));
    assert_eq!(mv(&g21, b""), Ok(Value::Move(None)));
    for raw in [
        &b"Aa"[..],
        b"aA",
        b"aaa",
        b"a",
        b"au",
        b"ua",
        b"a`",
        b"`a",
        b"11",
        b" aa",
        b"aa\x00",
    ] {
        assert!(mv(&g19, raw).is_err(), "{raw:?}");
        assert!(i(&g19, "CR", &[raw]).is_err(), "{raw:?}");
    }
    assert!(i(&g19, "CR", &[b"tt"]).is_err());
    assert_eq!(i(&g21, "CR", &[b"tt"]), Ok(pts(&[(1, 19)])));
    // Point lists
    let ipl = |raw: &[&[u8]]| i(&g19, "CR", raw);
    assert_eq!(ipl(&[b"aa"]), Ok(pts(&[(18, 0)])));
    assert_eq!(ipl(&[b"aa", b"ai"]), Ok(pts(&[(18, 0), (10, 0)])));
    assert_eq!(
        ipl(&[b"ab:bc"]),
        Ok(pts(&[(16, 0), (16, 1), (17, 0), (17, 1)]))
    );
    assert_eq!(
        ipl(&[b"ab:bc", b"aa"]),
        Ok(pts(&[(18, 0), (16, 0), (16, 1), (17, 0), (17, 1)]))
    );
    assert_eq!(ipl(&[b"aa", b"aa"]), Ok(pts(&[(18, 0)])));
    assert_eq!(
        ipl(&[b"ab:bc", b"bb:bc"]),
        Ok(pts(&[(16, 0), (16, 1), (17, 0), (17, 1)]))
    );
    assert_eq!(ipl(&[b"aa", b"bb:bb"]), Ok(pts(&[(18, 0), (17, 1)])));
    for bad in [
        &[&b"ab:aa"[..]][..],
        &[b"ba:aa"],
        &[b"bb:aa"],
        &[b"aa", b"tt"],
        &[b"aa", b""],
        &[b"aa:", b"aa"],
        &[b"aa:tt", b"aa"],
        &[b"tt:aa", b"aa"],
    ] {
        assert!(ipl(bad).is_err(), "{bad:?}");
    }
    // The red-bean DD/VW examples.
    let letters = |v: Value| -> BTreeSet<Vec<u8>> {
        match v {
            Value::Points(ps) => ps.into_iter().map(|q| q.to_sgf(9).to_vec()).collect(),
            _ => BTreeSet::new(),
        }
    };
    let want = |v: &[&str]| {
        v.iter()
            .map(|s| s.as_bytes().to_vec())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        letters(i(&g9, "VW", &[b"ac:ic"]).unwrap()),
        want(&["ac", "bc", "cc", "dc", "ec", "fc", "gc", "hc", "ic"])
    );
    assert_eq!(
        letters(i(&g9, "VW", &[b"aa:bi", b"ca:ce"]).unwrap()),
        want(&[
            "aa", "ab", "ac", "ad", "ae", "af", "ag", "ah", "ai", "bi", "bh", "bg", "bf", "be",
            "bd", "bc", "bb", "ba", "ca", "cb", "cc", "cd", "ce"
        ])
    );
    // Presenter
    assert_eq!(i(&g9, "KO", &[b""]), Ok(Value::None));
    assert_eq!(i(&g9, "SZ", &[b"9"]), Ok(Value::Number(9)));
    assert_eq!(i(&g9, "B", &[b"ca"]), Ok(Value::Move(Some(p(8, 2)))));
    assert_eq!(i(&g19, "B", &[b"ca"]), Ok(Value::Move(Some(p(18, 2)))));
    assert_eq!(
        i(&g9, "SZ", &[b"9", b"blah"]).unwrap_err().message,
        "multiple values"
    );
    assert_eq!(i(&g9, "CR", &[b"ab", b"cd"]), Ok(pts(&[(5, 2), (7, 0)])));
    assert!(i(&g9, "SZ", &[]).is_err() && i(&g9, "CR", &[]).is_err());
    assert_eq!(i(&g9, "DD", &[b""]), Ok(pts(&[])));
    assert_eq!(i(&g9, "CR", &[b""]), Ok(pts(&[])));
    // Compose types
    assert_eq!(
        i(&g19, "AP", &[b"foo\\:bar:2 3"]),
        Ok(Value::Ap("foo:bar".into(), "2 3".into()))
    );
    assert_eq!(
        i(&g19, "AP", &[b"foo bar"]),
        Ok(Value::Ap("foo bar".into(), "".into()))
    );
    assert_eq!(
        i(&g9, "AR", &[b"ab:cd", b"de:fg"]),
        Ok(Value::Arrows(vec![(p(7, 0), p(5, 2)), (p(4, 3), p(2, 5))]))
    );
    assert!(i(&g9, "AR", &[b"ab:tt", b"de:fg"]).is_err());
    assert_eq!(i(&g19, "FG", &[b""]), Ok(Value::Figure(None)));
    assert_eq!(
        i(&g19, "FG", &[b"515:th\\]is"]),
        Ok(Value::Figure(Some((515, "th]is".into()))))
    );
    assert_eq!(
        i(&g9, "LB", &[b"ac:lbl", b"bc:lb\\]l2"]),
        Ok(Value::Labels(vec![
            (p(6, 0), "lbl".into()),
            (p(6, 1), "lb]l2".into())
        ]))
    );
    assert!(i(&g9, "LB", &[b":lbl", b"de:lbl2"]).is_err());
    // Text through the game's charset.
    assert_eq!(i(&g9, "N", &[b"a\nb\\\\c"]), Ok(text("a b\\c")));
    assert_eq!(i(&g9, "C", &[b"a\nb\\\\c"]), Ok(text("a\nb\\c")));
    let latin = Game::new_with_charset(9, "ISO-8859-1").unwrap();
    assert_eq!(i(&latin, "C", &[b"test \xa3"]), Ok(text("test £")));
    assert_eq!(
        i(&g9, "C", &[b"test \xa3"]).unwrap_err().kind,
        ErrorKind::UnicodeDecode
    );
    let ascii = Game::new_with_charset(9, "ASCII").unwrap();
    assert_eq!(
        i(&ascii, "C", &["test £".as_bytes()]).unwrap_err().kind,
        ErrorKind::UnicodeDecode
    );
}

#[test]
fn serialising_property_values() {
    let mut g9 = Game::new(9).unwrap();
    let mut g19 = Game::new(19).unwrap();
    let mut g21 = Game::new(21).unwrap();
    let mut g20 = Game::new(20).unwrap();
    let s = |g: &mut Game, ident: &str, v: Value| {
        let n = g.extend_main_sequence();
        g.set(n, ident, &v).map(|_| {
            g.get_raw_list(n, ident)
                .unwrap()
                .into_iter()
                .map(|r| String::from_utf8_lossy(r).into_owned())
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(s(&mut g9, "KO", Value::None).unwrap(), [""]);
    assert_eq!(s(&mut g9, "SZ", Value::Number(9)).unwrap(), ["9"]);
    assert_eq!(s(&mut g9, "KM", Value::Real(3.5)).unwrap(), ["3.5"]);
    assert_eq!(
        s(&mut g9, "C", text("foo\\:b]ar\n")).unwrap(),
        ["foo\\\\:b\\]ar\n"]
    );
    assert_eq!(s(&mut g9, "B", Value::Move(Some(p(8, 2)))).unwrap(), ["ca"]);
    assert_eq!(
        s(&mut g19, "B", Value::Move(Some(p(18, 2)))).unwrap(),
        ["ca"]
    );
    assert_eq!(s(&mut g9, "B", Value::Move(None)).unwrap(), ["tt"]);
    assert_eq!(s(&mut g20, "B", Value::Move(None)).unwrap(), [""]);
    assert_eq!(
        s(&mut g21, "B", Value::Move(Some(p(1, 19)))).unwrap(),
        ["tt"]
    );
    assert_eq!(
        s(&mut g19, "B", Value::Move(Some(p(8, 1)))).unwrap(),
        ["bk"]
    );
    assert_eq!(
        s(&mut g19, "AW", pts(&[(17, 1), (18, 0)])).unwrap(),
        ["aa", "bb"]
    );
    assert_eq!(
        s(&mut g9, "DD", pts(&[(1, 2), (3, 4)])).unwrap(),
        ["ch", "ef"]
    );
    assert_eq!(s(&mut g9, "DD", pts(&[])).unwrap(), [""]);
    assert_eq!(
        s(&mut g9, "CR", pts(&[])).unwrap_err().message,
        "empty list"
    );
    assert_eq!(
        s(&mut g9, "AP", Value::Ap("na:me".into(), "2.3".into())).unwrap(),
        ["na\\:me:2.3"]
    );
    assert_eq!(
        s(&mut g19, "AP", Value::Ap("foo:bar".into(), "2\n3".into())).unwrap(),
        ["foo\\:bar:2\n3"]
    );
    assert_eq!(
        s(&mut g9, "FG", Value::Figure(Some((515, "th]is".into())))).unwrap(),
        ["515:th\\]is"]
    );
    assert_eq!(s(&mut g9, "FG", Value::Figure(None)).unwrap(), [""]);
    assert_eq!(s(&mut g9, "XX", text("foo\\bar")).unwrap(), ["foo\\\\bar"]);
    assert_eq!(
        s(
            &mut g9,
            "AR",
            Value::Arrows(vec![(p(7, 0), p(5, 2)), (p(4, 3), p(2, 5))])
        )
        .unwrap(),
        ["ab:cd", "de:fg"]
    );
    assert_eq!(
        s(
            &mut g9,
            "LB",
            Value::Labels(vec![(p(6, 0), "lbl".into()), (p(6, 1), "lb]l2".into())])
        )
        .unwrap(),
        ["ac:lbl", "bc:lb\\]l2"]
    );
    assert!(s(&mut g9, "B", Value::Move(Some(p(1, 9)))).is_err());
    assert!(s(&mut g9, "B", Value::Move(Some(p(9, 0)))).is_err());
    for (f, want) in [
        (1.0, "1"),
        (-1.0, "-1"),
        (1.5, "1.5"),
        (-1.5, "-1.5"),
        (0.001, "0.001"),
        (0.0001, "0.0001"),
        (0.00001, "0"),
        (1e15, "1000000000000000"),
        (1e16, "10000000000000000"),
        (1e17, "100000000000000000"),
        (1e18, "1000000000000000000"),
        (-1e18, "-1000000000000000000"),
    ] {
        assert_eq!(s(&mut g9, "KM", Value::Real(f)).unwrap(), [want], "{f}");
    }
    assert!(s(&mut g9, "KM", Value::Real(f64::INFINITY)).is_err());
    assert!(s(&mut g9, "KM", Value::Real(f64::NAN)).is_err());
    let mut latin = Game::new_with_charset(19, "ISO-8859-1").unwrap();
    assert_eq!(
        s(&mut latin, "C", text("\u{2013}")).unwrap_err().kind,
        ErrorKind::UnicodeEncode
    );
}

// ------------------------------------------------------------------ sgf_moves_tests

const MOVES_SAMPLE: &str =
    "(;AP[testsuite:0]CA[utf-8]DT[2009-06-06]FF[4]GM[1]KM[7.5]PB[Black engine]
PL[B]PW[White engine]RE[W+R]SZ[9]AB[ai][bh][ee]AW[fc][gc];B[dg];W[ef]C[comment
on two lines];B[];W[tt]C[Final comment])
";

/// DIAGRAM1 of sgfmill's sgf_moves tests, rows from the top.
const DIAGRAM1: [&str; 9] = [
    ".........",
    ".........",
    ".....ww..",
    ".........",
    "....b....",
    ".........",
    ".........",
    ".b.......",
    "b........",
];

#[test]
fn setup_and_moves() {
    let g1 = Game::from_text(MOVES_SAMPLE).unwrap();
    let sm = get_setup_and_moves(&g1).unwrap();
    assert_eq!(sm.board.rows(), DIAGRAM1);
    let b = Colour::Black;
    let w = Colour::White;
    assert_eq!(
        sm.plays,
        vec![(b, Some(p(2, 3))), (w, Some(p(3, 4))), (b, None), (w, None)]
    );

    let mut g2 = Game::new(9).unwrap();
    let root = g2.root();
    g2.set(root, "AB", &pts(&[(1, 2), (3, 4)])).unwrap();
    let n = g2.extend_main_sequence();
    g2.set(n, "B", &Value::Move(Some(p(5, 6)))).unwrap();
    let n = g2.extend_main_sequence();
    g2.set(n, "W", &Value::Move(Some(p(5, 7)))).unwrap();
    let sm = get_setup_and_moves(&g2).unwrap();
    assert_eq!(sm.board.stones(), vec![(b, p(1, 2)), (b, p(3, 4))]);
    assert_eq!(sm.plays, vec![(b, Some(p(5, 6))), (w, Some(p(5, 7)))]);

    let g3 = Game::from_text("(;AB[ab][ba]AW[aa])").unwrap();
    assert_eq!(
        get_setup_and_moves(&g3).unwrap_err().message,
        "setup position not legal"
    );
    let g4 = Game::from_text("(;SZ[9];B[ab];AW[bc])").unwrap();
    assert_eq!(
        get_setup_and_moves(&g4).unwrap_err().message,
        "setup properties after the root node"
    );
    let g5 = Game::from_text("(;SZ[26];B[ab];W[bc])").unwrap();
    assert_eq!(
        get_setup_and_moves(&g5).unwrap().plays,
        vec![(b, Some(p(24, 0))), (w, Some(p(23, 1)))]
    );

    // A move in the root is allowed without setup.
    let mut g = Game::new(9).unwrap();
    let root = g.root();
    g.set(root, "B", &Value::Move(Some(p(1, 2)))).unwrap();
    let n = g.extend_main_sequence();
    g.set(n, "W", &Value::Move(Some(p(3, 4)))).unwrap();
    let sm = get_setup_and_moves(&g).unwrap();
    assert!(sm.board.is_empty());
    assert_eq!(sm.plays, vec![(b, Some(p(1, 2))), (w, Some(p(3, 4)))]);
    g.set(root, "AW", &pts(&[(3, 3)])).unwrap();
    assert_eq!(
        get_setup_and_moves(&g).unwrap_err().message,
        "mixed setup and moves in root node"
    );

    // Board provided.
    let mut used = Board::new(9);
    used.play(p(0, 0), b).unwrap();
    assert_eq!(
        get_setup_and_moves_on(&g1, used).unwrap_err().message,
        "board not empty"
    );
    assert_eq!(
        get_setup_and_moves_on(&g1, Board::new(19))
            .unwrap_err()
            .message,
        "wrong board size, must be 9"
    );
    assert_eq!(
        get_setup_and_moves_on(&g1, Board::new(9))
            .unwrap()
            .board
            .rows(),
        DIAGRAM1
    );
}

#[test]
fn initial_position_and_first_player() {
    let sm = get_setup_and_moves(&Game::from_text(MOVES_SAMPLE).unwrap()).unwrap();
    let mut g = Game::new(9).unwrap();
    set_initial_position(&mut g, &sm.board).unwrap();
    let root = g.root();
    assert_eq!(g.get(root, "AB").unwrap(), pts(&[(0, 0), (1, 1), (4, 4)]));
    assert_eq!(g.get(root, "AW").unwrap(), pts(&[(6, 5), (6, 6)]));
    assert_eq!(g.get(root, "AE").unwrap_err().kind, ErrorKind::NotFound);

    for (input, output) in [
        (
            &b"(;FF[4]GM[1]SZ[9];B[aa];W[ab])"[..],
            &b"(;FF[4]GM[1]SZ[9];B[aa];W[ab])\n"[..],
        ),
        (
            b"(;FF[4]GM[1]SZ[9];W[aa];B[ab])",
            b"(;FF[4]GM[1]PL[W]SZ[9];W[aa];B[ab])\n",
        ),
        (
            b"(;FF[4]GM[1]SZ[9];C[no game])",
            b"(;FF[4]GM[1]SZ[9];C[no game])\n",
        ),
        (
            b"(;FF[4]GM[1]HA[5]SZ[9];W[aa];B[ab])",
            b"(;FF[4]GM[1]HA[5]SZ[9];W[aa];B[ab])\n",
        ),
        (
            b"(;FF[4]GM[1]HA[5]SZ[9];B[aa];W[ab])",
            b"(;FF[4]GM[1]HA[5]PL[B]SZ[9];B[aa];W[ab])\n",
        ),
        (
            b"(;AW[bc]FF[4]GM[1]SZ[9];B[aa];W[ab])",
            b"(;FF[4]AW[bc]GM[1]PL[B]SZ[9];B[aa];W[ab])\n",
        ),
        (
            b"(;AB[bc]FF[4]GM[1]SZ[9];B[aa];W[ab])",
            b"(;FF[4]AB[bc]GM[1]PL[B]SZ[9];B[aa];W[ab])\n",
        ),
        (
            b"(;FF[4]AB[bc][cd]GM[1]HA[2]SZ[9];W[aa];B[ab])",
            b"(;FF[4]AB[bc][cd]GM[1]HA[2]SZ[9];W[aa];B[ab])\n",
        ),
    ] {
        let mut g = load(input);
        indicate_first_player(&mut g).unwrap();
        assert_eq!(
            g.serialise(Some(79)).unwrap(),
            output,
            "{}",
            String::from_utf8_lossy(input)
        );
    }
}
