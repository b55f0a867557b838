//! `tournament.*` end to end against the real server: a 40-player McMahon event with absences,
//! a late entry, a withdrawal, corrected results and SGF records, played over XML-RPC and over
//! JSON-RPC; the stored log replayed by the engine gives the served state; a restart keeps
//! everything; 16 clients enter results at once; the namespaces do not see each other's ids.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use common::Server;
use common::rpc::{Client, Proto};
use goswiss::tournament::{Event, Tournament};
use serde_json::{Value, json};

fn rev(v: &Value) -> u64 {
    v["revision"]
        .as_u64()
        .unwrap_or_else(|| panic!("no revision in {v}"))
}

/// A record of a played-out 9×9 game... kept tiny: two moves, resignation, names as given.
fn sgf(black: &str, white: &str, re: &str, komi: f64) -> String {
    format!("(;GM[1]FF[4]SZ[19]KM[{komi}]PB[{black}]PW[{white}]RE[{re}];B[pd];W[dp];B[pp];W[dd])")
}

struct Played {
    id: i64,
    /// Ids of the players by name.
    ids: HashMap<String, i64>,
    late: i64,
    withdrawn: i64,
    absent: Vec<(i64, u64)>,
    corrected: (u64, u64),
}

/// Plays a whole 40-player McMahon event (5 rounds) through `cl`, checking revisions as it goes.
async fn play_event(cl: &Client) -> Played {
    let created = cl
        .ok(
            "tournament.create",
            vec![json!({
                "name": "Test Open",
                "rounds": 5,
                "system": "mcmahon",
                "komi2": 13,
                "mcmahon": {"bar": 2},
            })],
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    let mut last = rev(&created);
    let mut step = |v: &Value| {
        let r = rev(v);
        assert!(r > last, "revision {r} after {last}");
        last = r;
    };
    let clubs = ["Pari", "Lyon", "Lill", "Nant", "Brux"];
    let mut ids = HashMap::new();
    for k in 0..40 {
        let rank = if k < 8 {
            format!("{}d", 5 - k / 2)
        } else {
            format!("{}k", 1 + (k - 8) / 2)
        };
        let name = format!("Player{k:02}");
        let r = cl
            .ok(
                "tournament.player.add",
                vec![
                    json!(id),
                    json!({"name": name, "first_name": "Ann", "rank": rank, "club": clubs[k % 5],
                           "country": if k % 7 == 0 { "DE" } else { "FR" }}),
                ],
            )
            .await;
        step(&r);
        ids.insert(name, r["player_id"].as_i64().unwrap());
    }
    // Absences: player 5 skips rounds 2 and 3, player 17 round 1.
    let absent = vec![
        (ids["Player05"], 2),
        (ids["Player05"], 3),
        (ids["Player17"], 1),
    ];
    step(
        &cl.ok(
            "tournament.player.set_participation",
            vec![json!(id), json!(ids["Player05"]), json!([2, 3])],
        )
        .await,
    );
    step(
        &cl.ok(
            "tournament.player.set_participation",
            vec![json!(id), json!(ids["Player17"]), json!([1])],
        )
        .await,
    );
    let mut late = 0;
    let withdrawn = ids["Player30"];
    let mut corrected = (0, 0);
    for round in 1..=5u64 {
        if round == 2 {
            let r = cl
                .ok(
                    "tournament.player.add",
                    vec![
                        json!(id),
                        json!({"name": "Late", "first_name": "Comer", "rank": "3k"}),
                    ],
                )
                .await;
            step(&r);
            late = r["player_id"].as_i64().unwrap();
        }
        if round == 3 {
            step(
                &cl.ok(
                    "tournament.player.withdraw",
                    vec![json!(id), json!(withdrawn)],
                )
                .await,
            );
        }
        let paired = cl
            .ok("tournament.round.pair", vec![json!(id), json!(round)])
            .await;
        step(&paired);
        let games = paired["games"].as_array().unwrap().clone();
        // Every present player plays or has the bye, exactly once.
        let mut seen = HashSet::new();
        for g in &games {
            assert!(seen.insert(g["white"].as_i64().unwrap()));
            assert!(seen.insert(g["black"].as_i64().unwrap()));
        }
        for b in paired["byes"].as_array().unwrap() {
            assert!(seen.insert(b.as_i64().unwrap()));
        }
        for &(p, _) in &absent {
            let skips = absent.iter().any(|&(q, r)| q == p && r == round);
            assert_eq!(seen.contains(&p), !skips, "player {p} round {round}");
        }
        assert_eq!(seen.contains(&late), round >= 2);
        assert_eq!(seen.contains(&withdrawn), round <= 2);
        step(
            &cl.ok("tournament.round.publish", vec![json!(id), json!(round)])
                .await,
        );
        let names: HashMap<i64, String> = ids.iter().map(|(n, &i)| (i, n.clone())).collect();
        for g in &games {
            let (table, w, b) = (
                g["table"].as_u64().unwrap(),
                g["white"].as_i64().unwrap(),
                g["black"].as_i64().unwrap(),
            );
            let white_wins = w < b;
            let result = if table % 9 == 0 {
                "jigo"
            } else if white_wins {
                "W+"
            } else {
                "B+"
            };
            let mut opts = json!({});
            if table == 1 {
                // A record with the game's names and komi: no warning.
                let name = |p: i64| {
                    names
                        .get(&p)
                        .map_or("Late Comer".to_string(), |n| format!("{n} Ann"))
                };
                let komi = g["handicap"].as_u64().unwrap() > 0;
                let re = if white_wins { "W+R" } else { "B+R" };
                opts = json!({"sgf": sgf(&name(b), &name(w), re, if komi { 0.5 } else { 6.5 })});
            }
            let r = cl
                .ok(
                    "tournament.result.set",
                    vec![json!(id), json!(round), json!(table), json!(result), opts],
                )
                .await;
            step(&r);
            if table == 1 && result != "jigo" {
                assert_eq!(r["warnings"], json!([]), "{r}");
            }
        }
        if round == 2 {
            // A correction: table 2 becomes a forfeit win for Black, with a record whose RE
            // disagrees (stored with a warning), then refused in strict mode.
            let bad = sgf("X", "Y", "W+R", 6.5);
            let r = cl
                .ok(
                    "tournament.result.set",
                    vec![
                        json!(id),
                        json!(2),
                        json!(2),
                        json!("B+!"),
                        json!({"sgf": bad}),
                    ],
                )
                .await;
            step(&r);
            let w = r["warnings"].as_array().unwrap();
            assert!(
                w.iter()
                    .any(|l| l.as_str().unwrap().starts_with("result_disagrees"))
            );
            assert!(w.iter().any(|l| l.as_str().unwrap().starts_with("player")));
            assert_eq!(r["result"], "B+!");
            assert_eq!(
                cl.code(
                    "tournament.result.set",
                    vec![
                        json!(id),
                        json!(2),
                        json!(2),
                        json!("B+"),
                        json!({"sgf": bad, "strict": true}),
                    ],
                )
                .await,
                1032
            );
            corrected = (2, 2);
            let back = cl
                .ok("tournament.game.sgf", vec![json!(id), json!(2), json!(2)])
                .await;
            assert_eq!(back["sgf"], bad.as_str());
            assert_eq!(back["result"], "B+!");
            assert!(!back["warnings"].as_array().unwrap().is_empty());
        }
    }
    Played {
        id,
        ids,
        late,
        withdrawn,
        absent,
        corrected,
    }
}

/// Checks a played event's state, and that its log replays to it.
async fn check_event(cl: &Client, p: &Played) -> Value {
    let t = cl.ok("tournament.get", vec![json!(p.id)]).await;
    assert_eq!(t["paired_rounds"], 5);
    assert_eq!(t["player_count"], 41);
    let rounds = t["rounds_detail"].as_array().unwrap();
    for r in rounds {
        assert_eq!(r["published"], true);
        for g in r["games"].as_array().unwrap() {
            assert_ne!(g["result"], "?", "{g}");
        }
    }
    let g = &rounds[p.corrected.0 as usize - 1]["games"][p.corrected.1 as usize - 1];
    assert_eq!(g["result"], "B+!");
    assert_eq!(g["forfeit"], true);
    let players = t["players"].as_array().unwrap();
    let find = |id: i64| players.iter().find(|x| x["id"] == id).unwrap();
    assert_eq!(find(p.withdrawn)["withdrawn_after"], 2);
    assert_eq!(find(p.late)["skip"], json!([1]));
    assert_eq!(find(p.ids["Player05"])["skip"], json!([2, 3]));
    assert!(p.absent.len() == 3);
    // The log, read back page by page, replays to the same state.
    let mut events: Vec<Event> = vec![];
    loop {
        let page = cl
            .ok("tournament.events", vec![json!(p.id), json!(events.len())])
            .await;
        for e in page["events"].as_array().unwrap() {
            assert_eq!(e["revision"], events.len() + 1);
            events.push(serde_json::from_value(e["event"].clone()).unwrap());
        }
        if page["more"] == false {
            assert_eq!(rev(&page), events.len() as u64);
            break;
        }
    }
    let replayed = Tournament::replay(&events).unwrap();
    assert_eq!(replayed.revision, rev(&t));
    assert_eq!(replayed.paired_rounds(), 5);
    for (k, r) in rounds.iter().enumerate() {
        let mine = replayed.data.round(k as u32 + 1).unwrap();
        assert_eq!(mine.games.len(), r["games"].as_array().unwrap().len());
        for (a, b) in mine.games.iter().zip(r["games"].as_array().unwrap()) {
            assert_eq!(a.white as i64, b["white"].as_i64().unwrap());
            assert_eq!(a.black as i64, b["black"].as_i64().unwrap());
        }
    }
    // Explanations of a pair of round 5.
    let g0 = &rounds[4]["games"][0];
    let e = cl
        .ok(
            "tournament.round.explain",
            vec![
                json!(p.id),
                json!(5),
                g0["white"].clone(),
                g0["black"].clone(),
            ],
        )
        .await;
    assert!(e["terms"]["mainScoreDiffCost"].as_i64().unwrap() > 0, "{e}");
    assert_eq!(e["board"]["white"], g0["white"]);
    assert_eq!(e["board"]["handicap"], g0["handicap"]);
    t
}

#[tokio::test]
async fn a_mcmahon_event_over_both_protocols_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let server = Server::start_on(&db, Default::default()).await;
    let xml = Client::new(&server, Proto::Xml);
    let jsn = Client::new(&server, Proto::Json);
    let a = play_event(&xml).await;
    let b = play_event(&jsn).await;
    let ta = check_event(&jsn, &a).await;
    let tb = check_event(&xml, &b).await;
    // The same event gives the same pairings whichever protocol played it.
    assert_eq!(ta["rounds_detail"], tb["rounds_detail"]);
    // Ids are shared by the namespaces, but each sees only its own tournaments.
    let mm = jsn
        .ok("matchmaker.create_tournament", vec![json!([1, 2, 3, 4])])
        .await;
    assert_eq!(jsn.code("tournament.get", vec![mm.clone()]).await, 1001);
    let (code, msg) = xml
        .call("matchmaker.round", vec![json!(a.id)])
        .await
        .unwrap_err();
    assert_eq!((code, msg), (2, format!("no tournament {}", a.id)));
    let list = xml.ok("tournament.list", vec![]).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    // Refusals keep their codes on both wires.
    for cl in [&xml, &jsn] {
        assert_eq!(
            cl.code("tournament.round.pair", vec![json!(a.id), json!(5)])
                .await,
            1021
        );
        assert_eq!(
            cl.code("tournament.round.pair", vec![json!(a.id), json!(6)])
                .await,
            1020
        );
        assert_eq!(
            cl.code(
                "tournament.player.update",
                vec![json!(a.id), json!(999), json!({"club": "X"})]
            )
            .await,
            1011
        );
        assert_eq!(
            cl.code(
                "tournament.player.add",
                vec![
                    json!(a.id),
                    json!({"name": "Player00", "first_name": "Ann"})
                ]
            )
            .await,
            1012
        );
        assert_eq!(
            cl.code(
                "tournament.result.set",
                vec![json!(a.id), json!(1), json!(1), json!("maybe")]
            )
            .await,
            1033
        );
        assert_eq!(
            cl.code(
                "tournament.settings.set",
                vec![json!(a.id), json!({"rounds": 3})]
            )
            .await,
            1010
        );
        assert_eq!(
            cl.code(
                "tournament.player.add",
                vec![json!(a.id), json!({"name": "Z"}), json!({"if_revision": 1})]
            )
            .await,
            1002
        );
        assert_eq!(
            cl.code("tournament.game.sgf", vec![json!(a.id), json!(1), json!(3)])
                .await,
            1035
        );
    }
    server.stop().await;
    // A restart on the same database serves the same tournaments.
    let server = Server::start_on(&db, Default::default()).await;
    let jsn = Client::new(&server, Proto::Json);
    let ta2 = jsn.ok("tournament.get", vec![json!(a.id)]).await;
    assert_eq!(ta2, ta);
    let tb2 = check_event(&jsn, &b).await;
    assert_eq!(tb2, tb);
    // Archive refuses changes; delete removes.
    jsn.ok("tournament.archive", vec![json!(a.id)]).await;
    assert_eq!(
        jsn.code(
            "tournament.result.set",
            vec![json!(a.id), json!(1), json!(1), json!("W+")]
        )
        .await,
        1003
    );
    jsn.ok("tournament.delete", vec![json!(a.id)]).await;
    assert_eq!(jsn.code("tournament.get", vec![json!(a.id)]).await, 1001);
    server.stop().await;
}

#[tokio::test]
async fn sixteen_clients_enter_results_at_once() {
    let server = Server::start().await;
    let cl = Client::new(&server, Proto::Json);
    let id = cl
        .ok(
            "tournament.create",
            vec![json!({"name": "Busy", "rounds": 3})],
        )
        .await["id"]
        .as_i64()
        .unwrap();
    for k in 0..64 {
        cl.ok(
            "tournament.player.add",
            vec![
                json!(id),
                json!({"name": format!("P{k}"), "rank": format!("{}k", 1 + k % 20)}),
            ],
        )
        .await;
    }
    let games = cl
        .ok("tournament.round.pair", vec![json!(id), json!(1)])
        .await["games"]
        .as_array()
        .unwrap()
        .len() as u64;
    assert_eq!(games, 32);
    let proto = [Proto::Json, Proto::Xml];
    let tasks: Vec<_> = (0..16u64)
        .map(|k| {
            let c = Client::new(&server, proto[k as usize % 2]);
            tokio::spawn(async move {
                let mut revs = vec![];
                // Client k enters tables k+1 and k+17 (twice each: result, then correction).
                for table in [k + 1, k + 17] {
                    for result in ["B+", "W+"] {
                        let r = c
                            .ok(
                                "tournament.result.set",
                                vec![json!(id), json!(1), json!(table), json!(result)],
                            )
                            .await;
                        revs.push(rev(&r));
                    }
                }
                revs
            })
        })
        .collect();
    let mut all = vec![];
    for t in tasks {
        let revs = t.await.unwrap();
        assert!(revs.windows(2).all(|w| w[0] < w[1]), "{revs:?}");
        all.extend(revs);
    }
    let distinct: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        64,
        "every acknowledged call has its own revision"
    );
    let r = cl
        .ok("tournament.round.get", vec![json!(id), json!(1)])
        .await;
    for g in r["games"].as_array().unwrap() {
        assert_eq!(g["result"], "W+");
    }
    // create + 64 players + pairing + 64 results.
    assert_eq!(rev(&r), 1 + 64 + 1 + 64);
    let _ = Arc::new(());
    server.stop().await;
}

/// The pairs of a `round.pair` answer as sorted id pairs.
fn pair_set(paired: &Value) -> Vec<(i64, i64)> {
    let mut v: Vec<(i64, i64)> = paired["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let (w, b) = (g["white"].as_i64().unwrap(), g["black"].as_i64().unwrap());
            (w.min(b), w.max(b))
        })
        .collect();
    v.sort_unstable();
    v
}

#[tokio::test]
async fn round_pair_takes_the_pairing_cost_models() {
    let server = Server::start().await;
    for proto in [Proto::Json, Proto::Xml] {
        let cl = Client::new(&server, proto);
        let created = cl
            .ok(
                "tournament.create",
                vec![json!({"name": "Models", "rounds": 5, "system": "swiss"})],
            )
            .await;
        let id = created["id"].as_i64().unwrap();
        let mut ids = vec![];
        for (name, rank) in [("A", "4d"), ("B", "3d"), ("C", "2d"), ("D", "1d")] {
            let r = cl
                .ok(
                    "tournament.player.add",
                    vec![
                        json!(id),
                        json!({"name": name, "first_name": "X", "rank": rank}),
                    ],
                )
                .await;
            ids.push(r["player_id"].as_i64().unwrap());
        }
        let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
        // Bad models are refused with 1036 and change nothing.
        let before = rev(&cl.ok("tournament.get", vec![json!(id)]).await);
        for bad in [
            json!("nonesuch"),
            json!("rswiss"),
            json!({"weights": {"bogus": 1}}),
            json!({"preset": "gopair", "bye": {"moon": 1}}),
            json!({"preset": "opengotha", "weights": {"rating": 1}}),
            json!({"preset": "custom", "colour": 1}),
            json!(5),
        ] {
            assert_eq!(
                cl.code(
                    "tournament.round.pair",
                    vec![json!(id), json!(1), json!({"model": bad.clone()})],
                )
                .await,
                1036,
                "{bad} ({proto:?})"
            );
        }
        assert_eq!(rev(&cl.ok("tournament.get", vec![json!(id)]).await), before);
        // Round 1 under rating distance alone: 4d–3d and 2d–1d (AGA ratings 4, 3, 2, 1:
        // cost 1 + 1), reported as costs, not OpenGotha weights.
        let r1 = cl
            .ok(
                "tournament.round.pair",
                vec![
                    json!(id),
                    json!(1),
                    json!({"model": {"preset": "custom", "weights": {"rating": 1}}}),
                ],
            )
            .await;
        assert_eq!(r1["model"], "custom", "{r1}");
        assert_eq!(r1["objective"], 2, "{r1}");
        assert!(r1.get("total_weight").is_none(), "{r1}");
        assert_eq!(pair_set(&r1), vec![(a, b), (c, d)]);
        for g in r1["games"].as_array().unwrap() {
            assert_eq!(g["cost"], 1, "{g}");
            assert!(g.get("weight").is_none(), "{g}");
        }
        // The stronger player wins.
        for g in r1["games"].as_array().unwrap() {
            let w = g["white"].as_i64().unwrap();
            let result = if w == a || w == c { "W+" } else { "B+" };
            cl.ok(
                "tournament.result.set",
                vec![json!(id), json!(1), g["table"].clone(), json!(result)],
            )
            .await;
        }
        // Round 2 under gopair: A and C (1 win) meet, B and D (0): rating 2 + 2 (collapsed
        // 3, 2, 1, 0), no wins gap, early-round push 1 + 1 = 6, against 7 + 1 for A–D/B–C and
        // 16 per repeat for A–B/C–D.
        let r2 = cl
            .ok(
                "tournament.round.pair",
                vec![json!(id), json!(2), json!({"model": "gopair"})],
            )
            .await;
        assert_eq!(r2["model"], "gopair");
        assert_eq!(pair_set(&r2), vec![(a, c), (b, d)], "{r2}");
        assert_eq!(r2["objective"], 6, "{r2}");
        assert_eq!(r2["repeats"], 0);
        // Tables: the game of the winners first.
        let g1 = &r2["games"][0];
        assert!(g1["white"] == a || g1["black"] == a, "{r2}");
        // round.explain under the same model prices each chosen pair as the pairing did,
        // and a repeat with gopair's 16.
        for g in r2["games"].as_array().unwrap() {
            let e = cl
                .ok(
                    "tournament.round.explain",
                    vec![
                        json!(id),
                        json!(2),
                        g["white"].clone(),
                        g["black"].clone(),
                        json!({"model": "gopair"}),
                    ],
                )
                .await;
            assert_eq!(e["model"], "gopair", "{e}");
            assert_eq!(e["cost"], g["cost"], "{e} vs {g}");
            assert_eq!(e["games_before"], 0, "{e}");
            assert!(e.get("weight").is_none(), "{e}");
        }
        let e = cl
            .ok(
                "tournament.round.explain",
                vec![
                    json!(id),
                    json!(2),
                    json!(a),
                    json!(b),
                    json!({"model": "gopair"}),
                ],
            )
            .await;
        assert_eq!(e["games_before"], 1, "{e}");
        assert_eq!(e["terms"]["played"]["cost"], 16, "{e}");
        assert_eq!(
            cl.code(
                "tournament.round.explain",
                vec![
                    json!(id),
                    json!(2),
                    json!(a),
                    json!(b),
                    json!({"model": "nonesuch"}),
                ],
            )
            .await,
            1036
        );
        // "opengotha" named explicitly is the default weight.
        cl.ok("tournament.round.unpair", vec![json!(id), json!(2)])
            .await;
        let og = cl
            .ok(
                "tournament.round.pair",
                vec![json!(id), json!(2), json!({"model": "opengotha"})],
            )
            .await;
        assert_eq!(og["model"], "opengotha");
        assert!(og["total_weight"].as_i64().unwrap() > 0 || og["total_weight"].is_f64());
        assert!(og["games"][0]["weight"].as_i64().unwrap() > 0, "{og}");
    }
    server.stop().await;
}

/// desk-edit: `tournament.round.warnings` reports the same-club game of a hand-made round and
/// follows a swap that separates the clubs.
#[tokio::test]
async fn round_warnings_follow_the_edits() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_on(&dir.path().join("t.db"), Default::default()).await;
    let c = Client::new(&server, Proto::Json);
    let id = c
        .ok(
            "tournament.create",
            vec![json!({"name": "Warned", "system": "mcmahon", "rounds": 3})],
        )
        .await["id"]
        .clone();
    let mut ids = Vec::new();
    for (name, club) in [("A", "Paris"), ("B", "Paris"), ("C", "Lyon"), ("D", "Brno")] {
        let v = c
            .ok(
                "tournament.player.add",
                vec![
                    id.clone(),
                    json!({"name": name, "rank": "1k", "club": club}),
                ],
            )
            .await;
        ids.push(v["player_id"].clone());
    }
    c.ok(
        "tournament.round.set_games",
        vec![
            id.clone(),
            json!(1),
            json!([
                {"table": 1, "white": ids[0], "black": ids[1]},
                {"table": 2, "white": ids[2], "black": ids[3]},
            ]),
        ],
    )
    .await;
    let w = c
        .ok("tournament.round.warnings", vec![id.clone(), json!(1)])
        .await;
    assert_eq!(w["big_handicap_threshold"], json!(4));
    assert_eq!(w["colour_tolerance"], json!(1));
    assert_eq!(
        w["games"],
        json!([{"table": 1, "warnings": [{"kind": "same_club", "club": "Paris"}]}]),
        "{w}"
    );
    c.ok(
        "tournament.round.swap",
        vec![id.clone(), json!(1), ids[1].clone(), ids[2].clone()],
    )
    .await;
    let w = c
        .ok("tournament.round.warnings", vec![id.clone(), json!(1)])
        .await;
    assert_eq!(w["games"], json!([]), "{w}");
    assert_eq!(
        c.code("tournament.round.warnings", vec![id.clone(), json!(9)])
            .await,
        1020
    );
}
