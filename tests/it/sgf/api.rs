//! Behaviour tests of the SGF library's public API: the grammar's error table and
//! tolerances, loading checks (SZ, CA), wrapping, tree editing and setup/moves (see
//! docs/sgf.md), in the spirit of sgfmill's own test suite.

use std::collections::BTreeSet;

use goswiss::sgf::{
    Board, Colour, ErrorKind, Exceeded, Game, LoadOptions, Point, Value, get_setup_and_moves,
    indicate_first_player, load_collection_within, parse_collection, set_initial_position,
};

fn load(s: &str) -> Game {
    Game::from_bytes(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn load_err(s: &[u8]) -> String {
    Game::from_bytes(s).expect_err("should fail").message
}

fn ser(g: &Game) -> String {
    String::from_utf8(g.serialise(None).expect("serialise")).expect("utf8")
}

#[test]
fn parser_error_table() {
    for (input, msg) in [
        ("(;[ag])", "unexpected value"),
        ("(;B[ag](;B[ai]);W[bd])", "unexpected node"),
        ("(;B[ag]())", "empty sequence"),
        ("(;B[ag];())", "empty sequence"),
        ("(;B)", "property with no values"),
        ("(;B;W[ah])", "property with no values"),
        ("(;B W[ag])", "property with no values"),
        ("(;B[ag];(W[ah];B[ai]))", "property value outside a node"),
        ("(;B[ag]", "unexpected end of SGF data"),
        ("(;B[ag", "unexpected end of SGF data"),
        ("(;B[ag]+)", "unexpected end of SGF data"),
        ("(;B[ag](;W[ah])", "unexpected end of SGF data"),
        ("()", "no SGF data found"),
        ("junk", "no SGF data found"),
        ("", "no SGF data found"),
        ("(B[ag])", "no SGF data found"),
    ] {
        assert_eq!(load_err(input.as_bytes()), msg, "{input}");
    }
}

#[test]
fn tolerated_input() {
    // Junk, BOM, whitespace (including VT) before `;`, trailing junk and extra `)`.
    let g = Game::from_bytes(b"\xef\xbb\xbfjunk (\x0b\n ;SZ[9]B[aa]))) trailing").expect("loads");
    assert_eq!(g.size(), 9);
    assert_eq!(ser(&g), "(;B[aa]SZ[9])\n");
    // Empty nodes, values with newlines, NUL, brackets, escapes kept raw.
    let g = load("(;;C[a\nb\0(;[\\]\\\\];)");
    assert_eq!(g.main_sequence().len(), 3);
    let n = g.main_sequence()[1];
    assert_eq!(g.get_raw(n, "C").unwrap(), b"a\nb\0(;[\\]\\\\");
    // Repeated identifiers merge, in order.
    let g = load("(;XX[1]YY[2]XX[3])");
    let r = g.root();
    assert_eq!(g.get_raw_list(r, "XX").unwrap(), vec![&b"1"[..], b"3"]);
    assert_eq!(g.get_raw_list(r, "YY").unwrap(), vec![&b"2"[..]]);
    // Lower-case letters are deleted from identifiers.
    let g = load("(;AddBlack[aa]CoPyright[x]SiZe[9])");
    assert_eq!(g.get_raw(g.root(), "AB").unwrap(), b"aa");
    assert_eq!(g.get_raw(g.root(), "CP").unwrap(), b"x");
    assert_eq!(g.size(), 9);
    // A 65-letter run is a 64-letter identifier then a 1-letter one without values.
    let long = "A".repeat(65);
    assert_eq!(
        load_err(format!("(;{long}[x])").as_bytes()),
        "property with no values"
    );
    let g = load(&format!("(;{}[x])", "A".repeat(64)));
    assert!(g.has_property(g.root(), &"A".repeat(64)));
}

#[test]
fn all_lower_case_identifiers() {
    // sgfmill: the empty identifier, which it cannot read back.
    let opts = LoadOptions {
        sgfmill_empty_ident: true,
        ..LoadOptions::default()
    };
    let g = Game::from_bytes_with(b"(;foo[bar]SZ[9])", &opts).unwrap();
    let out = g.serialise(None).unwrap();
    assert_eq!(out, b"(;[bar]SZ[9])\n");
    assert_eq!(
        Game::from_bytes(&out).unwrap_err().message,
        "unexpected value"
    );
    // Default: the spelling is kept, so the output re-parses.
    let g = load("(;foo[bar]SZ[9])");
    let out = g.serialise(None).unwrap();
    assert_eq!(out, b"(;SZ[9]foo[bar])\n");
    assert_eq!(
        Game::from_bytes(&out).unwrap().serialise(None).unwrap(),
        out
    );
}

#[test]
fn keeping_lower_case_identifiers() {
    let opts = LoadOptions {
        keep_lowercase_idents: true,
        ..LoadOptions::default()
    };
    let g = Game::from_bytes_with(b"(;AddBlack[aa]SZ[9]foo[x])", &opts).unwrap();
    assert!(g.has_property(g.root(), "AddBlack") && !g.has_property(g.root(), "AB"));
    assert_eq!(g.serialise(None).unwrap(), b"(;AddBlack[aa]SZ[9]foo[x])\n");
}

#[test]
fn collections() {
    let games = parse_collection(b"(;GN[a])junk(;GN[b];B[aa])", &LoadOptions::default()).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[1].get_raw(games[1].root(), "GN").unwrap(), b"b");
    let e = parse_collection(b"(;GN[a])(;GN[b];(B[aa]))", &LoadOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "error parsing game 1: property value outside a node"
    );
    let e = parse_collection(b"nothing", &LoadOptions::default()).unwrap_err();
    assert_eq!(e.message, "no SGF data found");
    // Single-game load reads the first game only.
    assert_eq!(
        load("(;GN[a])(;GN[b])")
            .get_raw(load("(;GN[a])").root(), "GN")
            .ok(),
        None
    );
}

/// `sgf.parse` with `collection: true` answers one shape, a list of games, whatever the number
/// of games: a game that does not load is an error entry in its place, in a one-game file as
/// in a longer one, on every wire. Only what fails the whole input is a fault.
#[test]
fn sgf_parse_collections_answer_one_shape() {
    use goswiss::rpc::methods::sgf::parse_on_wire;
    use goswiss::rpc::{Answer, Params, Wire, answer};
    use serde_json::json;

    let parse = |sgf: &str, opts: serde_json::Value, wire: Wire| {
        parse_on_wire(&Params::positional(vec![json!(sgf), opts]).with_wire(wire))
    };
    let collection = json!({"collection": true});
    let entries = |sgf: &str| -> Vec<serde_json::Value> {
        let v = parse(sgf, collection.clone(), Wire::Value)
            .unwrap_or_else(|e| panic!("{sgf}: a fault ({e:?}), not a list"))
            .into_value()
            .unwrap();
        v["games"]
            .as_array()
            .unwrap_or_else(|| panic!("{sgf}: {v}"))
            .clone()
    };
    let bad_size = json!({"error": {"code": 710, "kind": "board_size", "class": "ValueError",
                                     "message": "size out of range: 30"}});
    // A bad game alone, and the same game after a good one: the same entry.
    assert_eq!(entries("(;SZ[30])"), vec![bad_size.clone()]);
    let two = entries("(;GN[a])(;SZ[30])");
    assert_eq!(two.len(), 2);
    assert_eq!(two[0]["nodes"][0]["props"]["GN"]["value"], "a");
    assert_eq!(two[1], bad_size);
    assert_eq!(
        entries("(;SZ[x])"),
        vec![
            json!({"error": {"code": 710, "kind": "board_size", "class": "ValueError",
                              "message": "bad SZ property: b'x'"}})
        ]
    );
    // A syntax error in the first game ends the list there, as in any game.
    let syntax = |n: usize, what: &str| {
        json!({"error": {"code": 710, "kind": "syntax", "class": "ValueError",
                         "message": format!("error parsing game {n}: {what}")}})
    };
    assert_eq!(entries("(;B)"), vec![syntax(0, "property with no values")]);
    assert_eq!(
        entries("(;B)(;GN[a])"),
        vec![syntax(0, "property with no values")]
    );
    assert_eq!(
        entries("(;B[aa]"),
        vec![syntax(0, "unexpected end of SGF data")]
    );
    assert_eq!(
        entries("(;GN[a])(;B)")[1],
        syntax(1, "property with no values")
    );
    // The JSON-RPC and XML-RPC texts are the encodings of the same list, not faults.
    for sgf in ["(;SZ[30])", "(;B)"] {
        let value = parse(sgf, collection.clone(), Wire::Value)
            .unwrap()
            .into_value()
            .unwrap();
        match parse(sgf, collection.clone(), Wire::Json).unwrap() {
            Answer::Json(text) => {
                assert_eq!(
                    serde_json::from_str::<serde_json::Value>(text.get()).unwrap(),
                    value
                )
            }
            other => panic!("{sgf}: {other:?}"),
        }
        let xml = Wire::Xml { nil_ok: false };
        match (
            parse(sgf, collection.clone(), xml).unwrap(),
            answer::encode(xml, &value).unwrap(),
        ) {
            (Answer::Xml(got), Answer::Xml(want)) => assert_eq!(got, want),
            other => panic!("{sgf}: {other:?}"),
        }
    }
    // Without `collection` a game that does not load is the call's fault, as before; with it,
    // only what fails the whole input is.
    let e = parse("(;SZ[30])", json!({}), Wire::Value).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (710, "size out of range: 30"));
    for (sgf, opts, message) in [
        ("junk", collection.clone(), "no SGF data found"),
        (
            "(;GN[a])",
            json!({"collection": true, "encoding": "nope"}),
            "unknown encoding: nope",
        ),
    ] {
        let e = parse(sgf, opts, Wire::Value).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (710, message));
    }
}

#[test]
fn node_cap_stops_the_parse_where_it_is_passed() {
    let capped = |max| LoadOptions {
        max_nodes: Some(max),
        ..LoadOptions::default()
    };
    // Five nodes: at the cap it loads, one under it is a Limit error.
    let five = b"(;GM[1];B[aa];W[bb](;B[cc])(;B[dd]))";
    assert_eq!(
        Game::from_bytes_with(five, &capped(5))
            .unwrap()
            .node_count(),
        5
    );
    let e = Game::from_bytes_with(five, &capped(4)).unwrap_err();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (ErrorKind::Limit, "more than 4 nodes")
    );
    // The syntax error after the sixth node is never reached: the parse stopped at the cap
    // (uncapped, the error is what comes back).
    let broken = b"(;;;;;;]";
    assert_eq!(
        Game::from_bytes_with(broken, &capped(5)).unwrap_err().kind,
        ErrorKind::Limit
    );
    assert_ne!(Game::from_bytes(broken).unwrap_err().kind, ErrorKind::Limit);
    // A lenient root without `;` counts too.
    let lenient = LoadOptions {
        root_without_semicolon: true,
        max_nodes: Some(0),
        ..LoadOptions::default()
    };
    assert_eq!(
        Game::from_bytes_with(b"(GM[1])", &lenient)
            .unwrap_err()
            .kind,
        ErrorKind::Limit
    );
    // Collections: one game alone over the cap, or the games together.
    let over = load_collection_within(b"(;;;)(;)", &LoadOptions::default(), 10, 2).unwrap();
    assert_eq!(over.unwrap_err(), Exceeded::Nodes(2));
    let over = load_collection_within(b"(;;)(;)", &LoadOptions::default(), 10, 2).unwrap();
    assert_eq!(over.unwrap_err(), Exceeded::Nodes(2));
    let fits = load_collection_within(b"(;)(;)", &LoadOptions::default(), 10, 2).unwrap();
    assert_eq!(fits.unwrap().len(), 2);
}

#[test]
fn load_checks_in_order() {
    assert_eq!(load_err(b"(;SZ[19:19])"), "bad SZ property: b'19:19'");
    assert_eq!(load_err(b"(;SZ[0])"), "size out of range: 0");
    assert_eq!(load_err(b"(;SZ[27])"), "size out of range: 27");
    assert_eq!(load_err(b"(;SZ[-0_1])"), "size out of range: -1");
    assert_eq!(
        load_err(b"(;SZ[123456789012345678901234567890])"),
        "size out of range: 123456789012345678901234567890"
    );
    assert_eq!(
        load_err(b"(;SZ[ 9 ]CA[\xe9])"),
        "encoding names must be ascii"
    );
    assert_eq!(load_err(b"(;CA[foo])"), "unknown encoding: foo");
    assert_eq!(load_err(b"(;CA[])"), "unknown encoding: ");
    assert_eq!(load_err(b"(;SZ[x]CA[foo])"), "bad SZ property: b'x'");
    let g = load("(;CA[utf8]SZ[26])");
    assert_eq!(g.get_charset().unwrap(), "UTF-8");
    assert_eq!(ser(&g), "(;CA[utf8]SZ[26])\n");
}

#[test]
fn wrapping() {
    // Pieces are never split; a line ends before a piece that would pass 79 bytes.
    let c = "x".repeat(70);
    let g = load(&format!("(;C[{c}];B[aa];W[bb])"));
    let out = String::from_utf8(g.serialise(Some(79)).unwrap()).unwrap();
    assert_eq!(out, format!("(;C[{c}];\nB[aa];W[bb])\n"));
    // A piece longer than the width sits alone on its line.
    let long = "y".repeat(100);
    let g = load(&format!("(;B[aa];C[{long}];W[bb])"));
    let out = String::from_utf8(g.serialise(Some(79)).unwrap()).unwrap();
    assert_eq!(out, format!("(;B[aa];\nC[{long}]\n;W[bb])\n"));
    // Embedded newlines do not reset the count.
    let g = load(&format!("(;C[a\n{}];B[aa])", "z".repeat(70)));
    let out = String::from_utf8(g.serialise(Some(79)).unwrap()).unwrap();
    assert_eq!(out, format!("(;C[a\n{}];\nB[aa])\n", "z".repeat(70)));
    // Last line exactly 79 bytes: the final newline piece goes on a line of its own.
    let fill = "q".repeat(79 - "(;C[])".len());
    let g = load(&format!("(;C[{fill}])"));
    let out = String::from_utf8(g.serialise(Some(79)).unwrap()).unwrap();
    assert_eq!(out, format!("(;C[{fill}])\n\n"));
    assert_eq!(ser(&g), format!("(;C[{fill}])\n"));
}

#[test]
fn tree_shape_and_property_order() {
    let g = load("(;SZ[9]FF[4]AB[aa];B[bb](;W[cc];B[dd])(;W[ee](;B[ff])))");
    assert_eq!(
        ser(&g),
        "(;FF[4]AB[aa]SZ[9];B[bb](;W[cc];B[dd])(;W[ee];B[ff]))\n"
    );
}

#[test]
fn tree_operations() {
    let mut g = Game::new(9).unwrap();
    assert_eq!(
        ser(&g),
        "(;CA[UTF-8]FF[4]GM[1]SZ[9])\n".replace("(;CA[UTF-8]FF[4]", "(;FF[4]CA[UTF-8]")
    );
    let root = g.root();
    let a = g.extend_main_sequence();
    let b = g.extend_main_sequence();
    g.set_move(a, Colour::Black, Some(Point::new(0, 0)))
        .unwrap();
    g.set_move(b, Colour::White, None).unwrap();
    let c = g.new_child(a, Some(0)).unwrap();
    g.set_move(c, Colour::White, Some(Point::new(8, 8)))
        .unwrap();
    assert_eq!(g.children(a).collect::<Vec<_>>(), vec![c, b]);
    assert_eq!(g.main_sequence(), vec![root, a, c]);
    assert_eq!(g.last_node(), c);
    assert_eq!(g.sequence_above(c).unwrap(), vec![root, a]);
    assert_eq!(g.main_sequence_below(a).unwrap(), vec![c]);
    assert_eq!(
        ser(&g),
        "(;FF[4]CA[UTF-8]GM[1]SZ[9];B[ai](;W[ia])(;W[tt]))\n"
    );
    // Moves read back typed.
    assert_eq!(g.get_move(b).unwrap(), Some((Colour::White, None)));
    assert_eq!(g.get_move(root).unwrap(), None);
    // Reparenting: loops refused, moving to the end or an index.
    assert_eq!(
        g.reparent(a, c, None).unwrap_err().message,
        "would create a loop"
    );
    assert_eq!(
        g.reparent(a, a, None).unwrap_err().message,
        "would create a loop"
    );
    g.reparent(c, a, None).unwrap();
    assert_eq!(g.children(a).collect::<Vec<_>>(), vec![b, c]);
    g.reparent(c, root, Some(0)).unwrap();
    assert_eq!(g.children(root).collect::<Vec<_>>(), vec![c, a]);
    assert_eq!(g.parent(c), Some(root));
    // Deleting.
    assert_eq!(
        g.delete(root).unwrap_err().message,
        "can't remove the root node"
    );
    g.delete(a).unwrap();
    assert!(g.node(a.index()).is_none());
    assert!(g.get_raw(b, "W").is_err(), "descendants go with the node");
    assert_eq!(g.children(root).collect::<Vec<_>>(), vec![c]);
    assert_eq!(ser(&g), "(;FF[4]CA[UTF-8]GM[1]SZ[9];W[ia])\n");
    // Nodes of another game are refused.
    let other = Game::new(9).unwrap();
    assert_eq!(
        g.main_sequence_below(other.root()).unwrap_err().message,
        "node doesn't belong to this game"
    );
    assert_eq!(
        g.reparent(c, other.root(), None).unwrap_err().message,
        "new parent doesn't belong to the same game"
    );
    assert_eq!(Game::new(27).unwrap_err().message, "size out of range: 27");
}

#[test]
fn property_editing() {
    let mut g = load("(;SZ[9]DD[aa];B[aa];W[bb])");
    let root = g.root();
    let n = g.main_sequence()[2];
    assert_eq!(
        g.set_raw(n, "b", "x").unwrap_err().message,
        "ill-formed property identifier"
    );
    assert_eq!(
        g.set_raw(n, "", "x").unwrap_err().message,
        "ill-formed property identifier"
    );
    assert_eq!(
        g.set_raw(n, "C", "a]b").unwrap_err().message,
        "ill-formed raw property value"
    );
    assert_eq!(
        g.set_raw(n, "C", "ab\\").unwrap_err().message,
        "ill-formed raw property value"
    );
    let empty: [&str; 0] = [];
    assert_eq!(
        g.set_raw_list(n, "C", &empty).unwrap_err().message,
        "empty property list"
    );
    assert_eq!(
        g.set_raw(root, "SZ", "19").unwrap_err().message,
        "changing size is not permitted"
    );
    g.set_raw(root, "SZ", "9").unwrap();
    assert_eq!(
        g.unset(root, "SZ").unwrap_err().message,
        "changing size is not permitted"
    );
    assert_eq!(g.unset(n, "XX").unwrap_err().kind, ErrorKind::NotFound);
    // Edits to an earlier node after later nodes exist.
    g.set(root, "KM", &Value::Real(6.5)).unwrap();
    g.set(root, "PB", &Value::Text("Honinbo ]\\".into()))
        .unwrap();
    g.add_comment_text(n, "first").unwrap();
    g.add_comment_text(n, "second").unwrap();
    assert_eq!(
        g.get(n, "C").unwrap(),
        Value::Text("first\n\nsecond".into())
    );
    assert_eq!(
        ser(&g),
        "(;DD[aa]KM[6.5]PB[Honinbo \\]\\\\]SZ[9];B[aa];C[first\n\nsecond]W[bb])\n"
    );
    assert_eq!(g.komi().unwrap(), 6.5);
    assert_eq!(
        g.player_name(Colour::Black).unwrap().as_deref(),
        Some("Honinbo ]\\")
    );
    g.unset(root, "KM").unwrap();
    assert_eq!(g.komi().unwrap(), 0.0);
    // find / find_property walk up the ancestors.
    assert_eq!(g.find(n, "DD").unwrap(), Some(root));
    assert_eq!(g.find(n, "VW").unwrap(), None);
    assert_eq!(
        g.find_property(n, "DD").unwrap(),
        Value::Points([Point::new(8, 0)].into())
    );
    assert_eq!(
        g.find_property(n, "VW").unwrap_err().kind,
        ErrorKind::NotFound
    );
    g.set_date(2026, 11, 22).unwrap();
    assert_eq!(g.get_raw(root, "DT").unwrap(), b"2026-11-22");
}

#[test]
fn unknown_and_registered_properties() {
    let mut g = load("(;XX[a\\]b]YY[7])");
    let root = g.root();
    assert_eq!(g.get(root, "XX").unwrap(), Value::Text("a]b".into()));
    g.register_property_type("YY", goswiss::sgf::PropType::Number);
    assert_eq!(g.get(root, "YY").unwrap(), Value::Number(7));
    g.set_strict_properties(true);
    assert_eq!(g.get(root, "XX").unwrap_err().message, "unknown property");
    assert_eq!(g.get(root, "YY").unwrap(), Value::Number(7));
    assert_eq!(
        g.set(root, "ZZ", &Value::Text("x".into()))
            .unwrap_err()
            .message,
        "unknown property"
    );
    // Raw access is never refused.
    assert_eq!(g.get_raw(root, "XX").unwrap(), b"a\\]b");
}

#[test]
fn game_info_helpers() {
    let g = load("(;HA[0]RE[w+R]KM[0.5])");
    assert_eq!(g.handicap().unwrap(), None);
    assert_eq!(g.winner().unwrap(), Some(Colour::White));
    assert_eq!(
        load("(;HA[1])").handicap().unwrap_err().python(),
        "ValueError"
    );
    assert_eq!(load("(;HA[3])").handicap().unwrap(), Some(3));
    assert_eq!(load("(;RE[])").winner().unwrap(), None);
    assert_eq!(load("(;RE[Draw])").winner().unwrap(), None);
    assert_eq!(load("(;)").winner().unwrap(), None);
}

#[test]
fn charsets_and_transcoding() {
    // from_text forces UTF-8.
    let g = Game::from_text("(;CA[latin1]C[café])").unwrap();
    assert_eq!(g.get(g.root(), "C").unwrap(), Value::Text("café".into()));
    assert_eq!(g.get_raw(g.root(), "CA").unwrap(), b"UTF-8");
    // Latin-1 input, CA changed to UTF-8: the output is transcoded.
    let mut g = Game::from_bytes(b"(;C[caf\xe9])").unwrap();
    assert_eq!(g.get(g.root(), "C").unwrap(), Value::Text("café".into()));
    let root = g.root();
    g.set_raw(root, "CA", "UTF-8").unwrap();
    assert_eq!(
        g.serialise(None).unwrap(),
        "(;C[café]CA[UTF-8])\n".as_bytes()
    );
    // Bytes written unchanged when the target is the raw encoding, even if improper.
    let g = Game::from_bytes(b"(;CA[UTF-8]C[\xff])").unwrap();
    assert_eq!(g.serialise(None).unwrap(), b"(;C[\xff]CA[UTF-8])\n");
    assert_eq!(
        g.get(g.root(), "C").unwrap_err().kind,
        ErrorKind::UnicodeDecode
    );
    // Unknown target charset.
    let mut g = Game::from_bytes(b"(;C[x])").unwrap();
    let root = g.root();
    g.set_raw(root, "CA", "foo").unwrap();
    assert_eq!(
        g.serialise(None).unwrap_err().message,
        "unsupported charset: b'foo'"
    );
    assert_eq!(
        g.get_charset().unwrap_err().message,
        "no codec available for CA foo"
    );
    // Unrepresentable characters.
    let mut g = Game::from_text("(;C[日本])").unwrap();
    let root = g.root();
    g.set_raw(root, "CA", "ISO-8859-1").unwrap();
    assert_eq!(
        g.serialise(None).unwrap_err().kind,
        ErrorKind::UnicodeEncode
    );
}

#[test]
fn multibyte_trail_bytes() {
    // 表 = 95 5C, ソ = 83 5C in Shift_JIS.
    let sjis = encoding_rs::SHIFT_JIS
        .encode("(;CA[Shift_JIS]PB[表]C[ソフト])")
        .0
        .into_owned();
    // sgfmill: PB swallows `]C[…` because 5C escapes the `]`.
    let compat = Game::from_bytes(&sjis).unwrap();
    assert!(!compat.has_property(compat.root(), "C"));
    // Character-aware: two properties with the right text.
    let opts = LoadOptions {
        multibyte_aware: true,
        ..LoadOptions::default()
    };
    let g = Game::from_bytes_with(&sjis, &opts).unwrap();
    let root = g.root();
    assert_eq!(g.get(root, "PB").unwrap(), Value::Text("表".into()));
    assert_eq!(g.get(root, "C").unwrap(), Value::Text("ソフト".into()));
    // CA comes first (after FF), so a reader knows the charset before C's trail bytes.
    assert_eq!(g.serialise(None).unwrap(), {
        let mut v = encoding_rs::SHIFT_JIS
            .encode("(;CA[Shift_JIS]C[ソフト]PB[表])")
            .0
            .into_owned();
        v.push(b'\n');
        v
    });
    // Nothing before CA hides a trail byte: sgfmill's order stays.
    let bytes = encoding_rs::SHIFT_JIS
        .encode("(;PB[表]AN[x]CA[Shift_JIS])")
        .0
        .into_owned();
    let g = Game::from_bytes_with(&bytes, &opts).unwrap();
    assert_eq!(g.serialise(None).unwrap(), {
        let mut v = encoding_rs::SHIFT_JIS
            .encode("(;AN[x]CA[Shift_JIS]PB[表])")
            .0
            .into_owned();
        v.push(b'\n');
        v
    });
    // Big5 許 = B3 5C; GBK 俓 = 81 5D hides a `]`.
    for (charset, text) in [("Big5", "許"), ("GBK", "乗")] {
        let enc = encoding_rs::Encoding::for_label(charset.as_bytes()).unwrap();
        let bytes = enc
            .encode(&format!("(;CA[{charset}]C[{text}];B[aa])"))
            .0
            .into_owned();
        let g = Game::from_bytes_with(&bytes, &opts).unwrap();
        assert_eq!(
            g.get(g.root(), "C").unwrap(),
            Value::Text(text.into()),
            "{charset}"
        );
        assert_eq!(g.main_sequence().len(), 2);
    }
    // A trail byte that breaks the byte-wise reading (`\` before `]` and `)`).
    let bytes = encoding_rs::SHIFT_JIS
        .encode("(;CA[SJIS]C[ソ])")
        .0
        .into_owned();
    assert_eq!(
        Game::from_bytes(&bytes).unwrap_err().message,
        "unexpected end of SGF data"
    );
    let g = Game::from_bytes_with(&bytes, &opts).unwrap();
    assert_eq!(g.get(g.root(), "C").unwrap(), Value::Text("ソ".into()));
    // Writing text with such characters does not double the trail byte.
    let mut g = Game::from_bytes_with(b"(;CA[SJIS])", &opts).unwrap();
    let root = g.root();
    g.set(root, "C", &Value::Text("表]".into())).unwrap();
    assert_eq!(g.get_raw(root, "C").unwrap(), b"\x95\x5c\\]");
    assert_eq!(g.get(root, "C").unwrap(), Value::Text("表]".into()));
}

#[test]
fn utf16_and_detection_leniencies() {
    let text = "(;C[é])";
    let mut utf16 = vec![0xff, 0xfe];
    for u in text.encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    assert_eq!(
        Game::from_bytes(&utf16).unwrap_err().message,
        "no SGF data found"
    );
    let opts = LoadOptions {
        utf16: true,
        ..LoadOptions::default()
    };
    let g = Game::from_bytes_with(&utf16, &opts).unwrap();
    assert_eq!(g.get(g.root(), "C").unwrap(), Value::Text("é".into()));
    assert_eq!(g.serialise(None).unwrap(), "(;C[é]CA[UTF-8])\n".as_bytes());
    let opts = LoadOptions {
        detect_encoding: true,
        ..LoadOptions::default()
    };
    let g = Game::from_bytes_with(text.as_bytes(), &opts).unwrap();
    assert_eq!(g.get(g.root(), "C").unwrap(), Value::Text("é".into()));
    // Without detection, UTF-8 bytes without CA read as Latin-1 mojibake.
    let g = Game::from_bytes(text.as_bytes()).unwrap();
    assert_eq!(g.get(g.root(), "C").unwrap(), Value::Text("Ã©".into()));
}

#[test]
fn large_boards() {
    let input = b"(;SZ[52];B[AZ];W[zA];B[tt])";
    assert_eq!(load_err(input), "size out of range: 52");
    let opts = LoadOptions {
        large_boards: true,
        ..LoadOptions::default()
    };
    let g = Game::from_bytes_with(input, &opts).unwrap();
    assert_eq!(g.size(), 52);
    let sm = get_setup_and_moves(&g).unwrap();
    assert_eq!(
        sm.plays,
        vec![
            (Colour::Black, Some(Point::new(0, 26))),
            (Colour::White, Some(Point::new(25, 25))),
            (Colour::Black, Some(Point::new(32, 19))),
        ]
    );
    assert_eq!(g.serialise(None).unwrap(), b"(;SZ[52];B[AZ];W[zA];B[tt])\n");
    assert_eq!(Point::new(0, 26).to_sgf(52), *b"AZ");
}

#[test]
fn rectangular_boards() {
    let input = b"(;SZ[7:3]AB[aa]AW[gc];B[ga];W[ac])";
    assert_eq!(load_err(input), "bad SZ property: b'7:3'");
    let opts = LoadOptions {
        rectangular_boards: true,
        ..LoadOptions::default()
    };
    let mut g = Game::from_bytes_with(input, &opts).unwrap();
    assert_eq!((g.size(), g.dimensions()), (7, (7, 3)));
    let sm = get_setup_and_moves(&g).unwrap();
    assert_eq!(sm.board.rows(), vec!["b......", ".......", "......w"]);
    assert_eq!(
        sm.plays,
        vec![
            (Colour::Black, Some(Point::new(2, 6))),
            (Colour::White, Some(Point::new(0, 0)))
        ]
    );
    let root = g.root();
    assert!(
        g.set(root, "B", &Value::Move(Some(Point::new(3, 0))))
            .is_err()
    );
    assert_eq!(
        g.set_raw(root, "SZ", "7").unwrap_err().message,
        "changing size is not permitted"
    );
    g.set_raw(root, "SZ", "7:3").unwrap();
    assert_eq!(
        g.serialise(None).unwrap(),
        b"(;AB[aa]AW[gc]SZ[7:3];B[ga];W[ac])\n"
    );
    // A square SZ[w:w] is just a square board.
    let g = Game::from_bytes_with(b"(;SZ[9:9])", &opts).unwrap();
    assert_eq!(g.dimensions(), (9, 9));
}

#[test]
fn setup_and_moves() {
    let g = load("(;SZ[5]AB[aa][bb]AW[cc];W[dd];B[];W[ee])");
    let sm = get_setup_and_moves(&g).unwrap();
    assert_eq!(sm.board.stones().len(), 3);
    assert_eq!(
        sm.plays,
        vec![
            (Colour::White, Some(Point::new(1, 3))),
            (Colour::Black, None),
            (Colour::White, Some(Point::new(0, 4)))
        ]
    );
    for (input, msg) in [
        ("(;SZ[5]AB[aa]B[bb])", "mixed setup and moves in root node"),
        (
            "(;SZ[5]AB[aa];AW[bb])",
            "setup properties after the root node",
        ),
        (
            "(;SZ[5]AE[aa];B[bb])",
            "setup properties after the root node",
        ),
        ("(;SZ[5]AE[aa])", "setup properties after the root node"),
        ("(;SZ[3]AB[aa]AW[ba][ab])", "setup position not legal"),
    ] {
        assert_eq!(
            get_setup_and_moves(&load(input)).unwrap_err().message,
            msg,
            "{input}"
        );
    }
    // A move in the root without setup is allowed.
    let sm = get_setup_and_moves(&load("(;SZ[5]B[aa];W[bb])")).unwrap();
    assert_eq!(sm.plays.len(), 2);
    // Board checks.
    let g = load("(;SZ[5])");
    assert_eq!(
        goswiss::sgf::moves::get_setup_and_moves_on(&g, Board::new(9))
            .unwrap_err()
            .message,
        "wrong board size, must be 5"
    );
}

#[test]
fn writing_positions_and_first_player() {
    let mut g = Game::new(5).unwrap();
    let mut board = Board::new(5);
    board.play(Point::new(0, 0), Colour::Black).unwrap();
    board.play(Point::new(4, 4), Colour::White).unwrap();
    set_initial_position(&mut g, &board).unwrap();
    let root = g.root();
    assert_eq!(g.get_raw(root, "AB").unwrap(), b"ae");
    assert_eq!(g.get_raw(root, "AW").unwrap(), b"ea");
    let n = g.extend_main_sequence();
    g.set_move(n, Colour::White, Some(Point::new(2, 2)))
        .unwrap();
    indicate_first_player(&mut g).unwrap();
    assert_eq!(g.get(root, "PL").unwrap(), Value::Colour(Colour::White));
    // Handicap and White first: nothing to say.
    let mut g = load("(;HA[2]AB[dd][pp];W[qd])");
    indicate_first_player(&mut g).unwrap();
    assert!(!g.has_property(g.root(), "PL"));
    // No handicap and Black first: nothing to say either.
    let mut g = load("(;;B[qd])");
    indicate_first_player(&mut g).unwrap();
    assert!(!g.has_property(g.root(), "PL"));
    let stones: BTreeSet<Point> = BTreeSet::new();
    assert!(
        g.set_setup_stones(g.root(), &stones, &stones, &stones)
            .is_ok()
    );
}
