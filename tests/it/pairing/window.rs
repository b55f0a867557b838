//! Window mode against Algorithm::Pair::Best 1.036 itself: the golden pairs in
//! `tests/data/pairbest/cases.json` were produced by running the Perl module on generated fields
//! (see the README there). goswiss's `pair_window` and `pairing.pair` with `options.window`
//! must return the same pairs, and the exact mode must never be worse.

use crate::common::files;

use goswiss::pairing::SolveOptions;
use goswiss::pairing::model::{Field, Model, Player, Term, pair_round, pair_window};
use goswiss::rpc::Params;
use goswiss::rpc::methods::pairing;
use serde_json::{Value, json};

struct Case {
    players: Vec<Player>,
    window: usize,
    weights: Vec<(Term, f64)>,
    /// Pairs as Algorithm::Pair::Best returned them: [me, partner], in its order.
    golden: Vec<(String, String)>,
    raw: Value,
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/pairbest/cases.json"
    );
    let text = files::read_to_string(path);
    let doc: Value = serde_json::from_str(&text).expect("golden JSON");
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let players = c["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Player {
                    id: p["id"].as_str().unwrap().to_string(),
                    rating: p["rating"].as_f64().unwrap(),
                    wins: p["wins"].as_f64().unwrap(),
                    club: p["club"].as_str().unwrap().to_string(),
                    opponents: p["opponents"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|o| o.as_str().unwrap().to_string())
                        .collect(),
                    ..Player::default()
                })
                .collect();
            let w = &c["weights"];
            let weights = [
                (Term::Rating, "rating"),
                (Term::Played, "played"),
                (Term::Wins, "wins"),
                (Term::Club, "club"),
            ]
            .iter()
            .map(|&(t, k)| (t, w[k].as_f64().unwrap()))
            .filter(|&(_, x)| x != 0.0)
            .collect();
            let golden = c["pairbest_pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_string(),
                        p[1].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            Case {
                players,
                window: c["window"].as_u64().unwrap() as usize,
                weights,
                golden,
                raw: c.clone(),
            }
        })
        .collect()
}

fn unordered(pairs: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(a, b)| if a <= b { (a, b) } else { (b, a) })
        .collect();
    v.sort();
    v
}

#[test]
fn window_mode_reproduces_algorithm_pair_best() {
    let cases = cases();
    assert_eq!(cases.len(), 240, "the golden file holds 240 cases");
    let mut worse_than_exact = 0;
    for (k, c) in cases.iter().enumerate() {
        let mut model = Model::preset("custom").unwrap();
        model.terms = c.weights.clone();
        let f = Field::new(&model, &c.players, &[], &[]).expect("field");
        let win = pair_window(&f, c.window).expect("window pairing");
        let ours = unordered(
            win.pairs
                .iter()
                .map(|p| (c.players[p.a].id.clone(), c.players[p.b].id.clone())),
        );
        assert_eq!(
            ours,
            unordered(c.golden.clone()),
            "case {k}: {} players, window {}",
            c.players.len(),
            c.window
        );
        assert!(win.bye.is_none());
        let exact = pair_round(&f, SolveOptions::default()).expect("exact");
        assert!(exact.objective <= win.objective, "case {k}");
        if exact.objective < win.objective {
            worse_than_exact += 1;
        }
    }
    // The data must exercise the heuristic, not only fields where it is optimal anyway.
    assert!(
        worse_than_exact >= 20,
        "only {worse_than_exact} cases where the window misses the optimum"
    );
}

#[test]
fn pairing_pair_window_option_matches_the_golden_pairs() {
    // The RPC path: the same cases through `pairing.pair` with the caller's weights.
    for (k, c) in cases().iter().enumerate().step_by(7) {
        let players: Vec<Value> = c.raw["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                json!({"id": p["id"], "rating": p["rating"], "wins": p["wins"],
                       "club": p["club"], "opponents": p["opponents"]})
            })
            .collect();
        let w = &c.raw["weights"];
        let weights: serde_json::Map<String, Value> = ["rating", "played", "wins", "club"]
            .iter()
            .filter(|k| w[**k].as_f64().unwrap() != 0.0)
            .map(|k| (k.to_string(), w[*k].clone()))
            .collect();
        let out = pairing::pair(&Params::positional(vec![
            Value::Array(players),
            json!({"preset": "custom", "weights": weights}),
            json!({"window": c.window}),
        ]))
        .unwrap_or_else(|e| panic!("case {k}: {e:?}"));
        assert_eq!(out["mode"], "window", "case {k}");
        let got = unordered(out["pairs"].as_array().unwrap().iter().map(|p| {
            (
                p[0].as_str().unwrap().to_string(),
                p[1].as_str().unwrap().to_string(),
            )
        }));
        assert_eq!(got, unordered(c.golden.clone()), "case {k}");
    }
}
