//! `pairing.pair` decides colours, handicap and komi after matching for the Pair::Best-style
//! presets (docs/pairing.md, "Boards"): AGATourn's handicap on the (collapsed) ratings with the
//! stronger player White, or even games with seeded-hash colours.

use goswiss::aga::handicap::{Convention, HandicapOptions, decide};
use goswiss::rpc::Params;
use goswiss::rpc::methods::pairing;
use serde_json::{Value, json};

fn field() -> Value {
    // AGA ratings: dans positive, kyus negative.
    json!([
        {"id": "a", "rating": 6.5, "wins": 2}, {"id": "b", "rating": 2.2, "wins": 2},
        {"id": "c", "rating": 1.1, "wins": 1}, {"id": "d", "rating": -1.3, "wins": 1},
        {"id": "e", "rating": -4.0, "wins": 1}, {"id": "f", "rating": -9.9, "wins": 0},
        {"id": "g", "rating": -15.2, "wins": 0}, {"id": "h", "rating": -25.0, "wins": 0},
        {"id": "i", "rating": 3.0, "wins": 0}
    ])
}

fn collapse(r: f64) -> f64 {
    if r >= 1.0 {
        r - 1.0
    } else if r <= -1.0 {
        r + 1.0
    } else {
        r
    }
}

fn rating_of(players: &Value, id: &Value) -> f64 {
    players
        .as_array()
        .unwrap()
        .iter()
        .find(|p| &p["id"] == id)
        .unwrap()["rating"]
        .as_f64()
        .unwrap()
}

#[test]
fn gopair_boards_follow_agatourn_handicap_with_the_stronger_white() {
    let players = field();
    for options in [json!({}), json!({"window": 3})] {
        let r = pairing::pair(&Params::positional(vec![
            players.clone(),
            json!("gopair"),
            options.clone(),
        ]))
        .unwrap();
        let pairs = r["pairs"].as_array().unwrap();
        let boards = r["boards"].as_array().unwrap();
        assert_eq!(pairs.len(), 4);
        assert_eq!(boards.len(), pairs.len(), "{options}");
        assert!(r["bye"].is_string());
        for (p, b) in pairs.iter().zip(boards) {
            let (w, bl) = (&b["white"], &b["black"]);
            assert!(
                (w == &p[0] && bl == &p[1]) || (w == &p[1] && bl == &p[0]),
                "{b} is not {p}"
            );
            let (cw, cb) = (
                collapse(rating_of(&players, w)),
                collapse(rating_of(&players, bl)),
            );
            assert!(cw >= cb, "the weaker player has White: {b}");
            let d = decide(cw, cb, &HandicapOptions::default());
            let stones = if d.handicap.abs() >= 2.0 {
                d.handicap.abs()
            } else {
                0.0
            };
            assert_eq!(b["handicap"].as_f64().unwrap(), stones, "{b}");
            assert_eq!(b["komi"].as_f64().unwrap(), d.komi, "{b}");
        }
    }
}

#[test]
fn caps_conventions_and_even_games() {
    let players = json!([{"id": 1, "rating": 7.0}, {"id": 2, "rating": -20.0}]);
    let board = |options: Value| -> Value {
        let r = pairing::pair(&Params::positional(vec![
            players.clone(),
            json!("gopair"),
            options,
        ]))
        .unwrap();
        r["boards"][0].clone()
    };
    // 6 − (−19) = 25 collapsed points: int(25 / 1.1) = 22 stones, AGATourn has no cap.
    assert_eq!(
        board(json!({})),
        json!({"white": 1, "black": 2, "handicap": 22, "komi": 0.0})
    );
    assert_eq!(board(json!({"handicap_cap": 9}))["handicap"], 9);
    let ing = board(json!({"handicap_convention": "aradjust_ing", "handicap_cap": 9}));
    let d = decide(
        6.0,
        -19.0,
        &HandicapOptions {
            convention: Convention::AradjustIng,
            cap: Some(9),
        },
    );
    assert_eq!(ing["komi"].as_f64().unwrap(), d.komi);
    // Even games: no stones, the convention's even komi, colours from the seed — the same
    // seed gives the same colours, and across seeds both colours happen.
    let even = board(json!({"handicap": "none"}));
    assert_eq!(
        (even["handicap"].clone(), even["komi"].clone()),
        (json!(0), json!(6.0))
    );
    assert_eq!(board(json!({"handicap": "none"})), even);
    let whites: std::collections::BTreeSet<String> = (0..32)
        .map(|seed| board(json!({"handicap": "none", "colour_seed": seed}))["white"].to_string())
        .collect();
    assert_eq!(whites.len(), 2, "colours never change with the seed");
}

#[test]
fn bad_board_options_are_invalid_params() {
    for options in [
        json!({"handicap": "yes"}),
        json!({"handicap_convention": "japanese"}),
        json!({"handicap_cap": 0}),
        json!({"colour_seed": -1}),
    ] {
        let e = pairing::pair(&Params::positional(vec![
            field(),
            json!("gopair"),
            options.clone(),
        ]))
        .unwrap_err();
        assert_eq!(e.code, -32602, "{options}: {e:?}");
    }
}
