//! `tournament.import` / `tournament.export` over XML-RPC and JSON-RPC against the real
//! server: OpenGotha files and AGA files imported into tournaments whose stored state equals
//! the file, exported back unchanged, the AGA report of an imported event equal to GoPair's
//! own, and bad input refused with a clear error naming the element or line.

use crate::common;

use common::Server;
use common::rpc::{Client, Proto};
use goswiss::tournament::formats::opengotha_xml;
use serde_json::{Value, json};

fn data(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("missing test data {}: {e}", p.display()))
}

async fn opengotha_round_trip(c: &Client) {
    for file in [
        "opengotha/simplemm.xml",
        "opengotha/synthetic/synth_small.xml",
        // Teams and clubs groups go through the import's events and come back out.
        "opengotha/synthetic/synth_teams.xml",
    ] {
        let xml = data(file);
        let want = opengotha_xml::read(&xml).expect("file reads");
        let r = c
            .ok("tournament.import", vec![json!("opengotha"), json!(xml)])
            .await;
        let id = r["id"].clone();
        assert_eq!(
            r["players"].as_u64(),
            Some(want.players.len() as u64),
            "{file}"
        );
        assert_eq!(
            r["rounds"].as_u64(),
            Some(want.rounds.len() as u64),
            "{file}"
        );
        // The log: created, one registration per player, one pairing per round.
        assert_eq!(
            r["revision"].as_u64(),
            Some(1 + want.players.len() as u64 + want.rounds.len() as u64),
            "{file}"
        );
        let got = c.ok("tournament.get", vec![id.clone()]).await;
        assert_eq!(
            got["players"].as_array().map(Vec::len),
            Some(want.players.len())
        );
        let out = c
            .ok(
                "tournament.export",
                vec![
                    id.clone(),
                    json!("opengotha"),
                    json!({"save_dt": "20260315180000"}),
                ],
            )
            .await;
        let text = out["text"].as_str().expect("text");
        let back = opengotha_xml::read(text).expect("export reads");
        let mut want2 = want.clone();
        for d in [&mut want2.settings.begin_date, &mut want2.settings.end_date] {
            if d.is_empty() {
                *d = "2026-03-15".into();
            }
        }
        assert_eq!(
            back, want2,
            "{file}: import → export changed the tournament ({:?})",
            c.proto
        );
        // Exporting the same tournament directly gives the same text.
        let direct = opengotha_xml::write(
            &want,
            &opengotha_xml::WriteOptions {
                save_dt: "20260315180000".into(),
            },
        );
        assert_eq!(text, direct, "{file}");
        // A whole-file format has no round to stop after: refused, not ignored.
        let e = c
            .call(
                "tournament.export",
                vec![id.clone(), json!("opengotha"), json!(1)],
            )
            .await
            .unwrap_err();
        assert_eq!(e.0, -32602, "{e:?}");
        assert!(e.1.contains("after_round"), "{e:?}");
    }
}

async fn aga_round_trip(c: &Client) {
    let dir = "aga/oracle/agatourn/agatourn-t";
    let register = data(&format!("{dir}/register.tde"));
    let round1 = data(&format!("{dir}/1.tde"));
    let r = c
        .ok(
            "tournament.import",
            vec![
                json!("aga"),
                json!({"register": register, "rounds": [round1]}),
                json!("AGA test"),
            ],
        )
        .await;
    let id = r["id"].clone();
    assert_eq!(r["players"], json!(4));
    let got = c.ok("tournament.get", vec![id.clone()]).await;
    assert_eq!(got["settings"]["name"], json!("AGA test"));
    let names: Vec<&str> = got["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["Player", "Schwei", "Tsai", "Chien"]);
    let ranks: Vec<i64> = got["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|p| p["rank"].as_i64())
        .collect();
    // 6.5 → 6d, 2d, −1.6 → 1k, 5k.
    assert_eq!(ranks, [5, 1, -1, -5]);
    // GoPair's send2aga of the original files lists one finished game; ours of the imported
    // tournament lists the same.
    let oracle = data(&format!("{dir}/send2aga.tde"));
    let want_games: Vec<&str> = oracle
        .lines()
        .filter(|l| l.split_whitespace().count() == 5 && !l.starts_with('#'))
        .collect();
    let rep = c
        .ok("tournament.export", vec![id.clone(), json!("send2aga")])
        .await;
    let text = rep["text"].as_str().expect("text");
    let got_games: Vec<&str> = text
        .lines()
        .filter(|l| l.split_whitespace().count() == 5 && !l.starts_with('#'))
        .collect();
    assert_eq!(got_games, want_games, "send2aga games:\n{text}");
    for id_ in ["USA31742", "USA31718", "USA31749", "TMP31705"] {
        assert!(text.contains(id_), "{id_} missing from send2aga:\n{text}");
    }
    // Files out and in again: the same players and games.
    let files = c
        .ok("tournament.export", vec![id.clone(), json!("aga")])
        .await;
    let rounds: Vec<Value> = files["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| r["text"].clone())
        .collect();
    assert_eq!(files["rounds"][0]["name"], json!("1.tde"));
    let again = c
        .ok(
            "tournament.import",
            vec![
                json!("aga"),
                json!({"register": files["register"], "rounds": rounds}),
            ],
        )
        .await;
    let a = c.ok("tournament.get", vec![again["id"].clone()]).await;
    assert_eq!(a["players"], got["players"]);
    assert_eq!(a["rounds_detail"], got["rounds_detail"]);
}

async fn bad_input(c: &Client) {
    let e = c
        .call("tournament.import", vec![json!("tou"), json!("")])
        .await
        .unwrap_err();
    assert_eq!(e.0, 1060, "{e:?}");
    let bad = r#"<Tournament><Players><Player name="A" firstName="B" rank="1D"/></Players><Games><Game roundNumber="1" tableNumber="1" whitePlayer="AB" blackPlayer="XY"/></Games></Tournament>"#;
    let e = c
        .call("tournament.import", vec![json!("opengotha"), json!(bad)])
        .await
        .unwrap_err();
    assert_eq!(e.0, 1061, "{e:?}");
    assert!(
        e.1.contains("round 1 table 1") && e.1.contains("XY"),
        "{e:?}"
    );
    let e = c
        .call(
            "tournament.import",
            vec![json!("opengotha"), json!("<Tournament><Players>")],
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, 1061, "{e:?}");
    let e = c
        .call(
            "tournament.import",
            vec![
                json!("aga"),
                json!({"register": "USA1 Doe, John 2d\n", "rounds": ["USA1 USA9 w 0 7\n"]}),
            ],
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, 1061, "{e:?}");
    assert!(e.1.contains("USA9"), "{e:?}");
    let e = c
        .call(
            "tournament.import",
            vec![json!("aga"), json!({"rounds": []})],
        )
        .await
        .unwrap_err();
    assert!(e.1.contains("register"), "{e:?}");
    let e = c
        .call(
            "tournament.export",
            vec![json!(999_999), json!("opengotha")],
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, 1001, "{e:?}");
}

#[tokio::test]
async fn import_export_over_both_protocols() {
    let server = Server::start().await;
    for proto in [Proto::Json, Proto::Xml] {
        let c = Client::new(&server, proto);
        opengotha_round_trip(&c).await;
        aga_round_trip(&c).await;
        bad_input(&c).await;
    }
    server.stop().await;
}

/// Four players, one round: a game played (komi 6.5) and a result by default.
fn aga_sample() -> goswiss::tournament::model::TournamentData {
    use goswiss::tournament::model::{Game, Outcome, Player, Round, TournamentData};
    let mut t = TournamentData::default();
    t.settings.name = "AGA sample".into();
    t.settings.rounds = 2;
    let people = [
        ("J 9d CLUB=PWN #", "", -3, "Paris", "12345"),
        ("Doe", "Jane", 1, "NYGC", "23456"),
        ("Roe", "Rick 5k", -10, "", ""),
        ("Poe", "Ed", 2, "Bost", "34567"),
    ];
    for (k, (name, first, rank, club, aga)) in people.into_iter().enumerate() {
        t.players.push(Player {
            id: k as u32 + 1,
            name: name.into(),
            first_name: first.into(),
            rank,
            club: club.into(),
            aga_id: aga.into(),
            ..Player::default()
        });
    }
    let game = |table, white, black, outcome, forfeit| Game {
        table,
        white,
        black,
        handicap: 0,
        komi2: 13,
        outcome,
        forfeit,
        known_colour: true,
        ..Game::default()
    };
    t.rounds.push(Round {
        games: vec![
            game(1, 1, 2, Outcome::WhiteWins, false),
            game(2, 3, 4, Outcome::BlackWins, true),
        ],
        ..Round::default()
    });
    t
}

#[test]
fn aga_export_reads_back_with_names_forfeits_and_komi() {
    use goswiss::tournament::formats::aga;
    let t = aga_sample();
    let files = aga::export(&t);
    // The forfeit is a comment line no AGA tool reads; the game played is an ordinary line.
    let r1 = &files.rounds[0].1;
    let lines: Vec<&str> = r1.lines().collect();
    // A bare number is written as AGATourn reads it in the register: with its country.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("USA12345 USA23456 w 0 6 ")),
        "{r1}"
    );
    let forfeit: Vec<&&str> = lines.iter().filter(|l| l.contains("34567")).collect();
    assert_eq!(forfeit.len(), 1, "{r1}");
    assert!(forfeit[0].starts_with(aga::FORFEIT_MARK), "{r1}");
    // The name cannot shift the register line: rank and club are the player's.
    let j = files
        .register
        .lines()
        .find(|l| l.starts_with("USA12345 "))
        .expect("J's line");
    assert!(j.ends_with(" 3k CLUB=Paris"), "{j}");
    assert!(
        files
            .warnings
            .iter()
            .any(|w| w.player_id == Some(1) && w.field == "name")
    );
    let rounds: Vec<String> = files.rounds.iter().map(|(_, t)| t.clone()).collect();
    let back = aga::import(&files.register, &rounds).expect("our own files read back");
    let ranks: Vec<i32> = back.players.iter().map(|p| p.rank).collect();
    assert_eq!(ranks, [-3, 1, -10, 2]);
    let clubs: Vec<&str> = back.players.iter().map(|p| p.club.as_str()).collect();
    assert_eq!(clubs, ["Paris", "NYGC", "", "Bost"]);
    assert_eq!(back.players[2].name, "Roe");
    assert_eq!(back.players[1].first_name, "Jane");
    let g = &back.rounds[0].games;
    assert_eq!(g.len(), 2);
    assert!(!g[0].forfeit && g[1].forfeit, "{g:?}");
    // Komi 6.5 is written 6 (the half implied) and reads back as 6.5.
    assert!(g.iter().all(|g| g.komi2 == 13), "{g:?}");
    // What is sent for rating leaves the forfeit out, and says so.
    let rep = aga::send2aga(&t).expect("send2aga");
    let games: Vec<&str> = rep
        .text
        .lines()
        .filter(|l| l.split_whitespace().count() == 5 && !l.starts_with('#'))
        .collect();
    assert_eq!(games.len(), 1, "{}", rep.text);
    assert!(
        games[0].contains("12345") && games[0].contains("23456"),
        "{}",
        rep.text
    );
    assert!(
        rep.findings
            .iter()
            .any(|f| f.code == "report.forfeits_left_out"),
        "{:?}",
        rep.findings
    );
}

#[test]
fn aga_import_refuses_bad_round_counts() {
    use goswiss::tournament::formats::aga;
    for rounds in ["-1", "0", "4294967297", "x"] {
        let reg = format!("## ROUNDS {rounds}\nUSA1 Doe, John 2d\n");
        let e = aga::import(&reg, &[]).expect_err(rounds).to_string();
        assert!(e.contains("ROUNDS"), "{rounds}: {e}");
    }
}

#[tokio::test]
async fn exports_carry_warnings_and_options() {
    let server = Server::start().await;
    let c = Client::new(&server, Proto::Json);
    let xml = data("opengotha/synthetic/synth_names.xml");
    let r = c
        .ok("tournament.import", vec![json!("opengotha"), json!(xml)])
        .await;
    let id = r["id"].clone();
    let h9 = c
        .ok("tournament.export", vec![id.clone(), json!("h9")])
        .await;
    let w = h9["warnings"].as_array().expect("warnings");
    assert!(
        w.iter()
            .any(|w| w["text"] == json!("李 明") && w["lost"] == json!(true)),
        "{h9}"
    );
    assert!(
        w.iter().any(|w| w["field"] == json!("name")
            && w["written"]
                .as_str()
                .is_some_and(|s| s.starts_with("Szoke"))),
        "{h9}"
    );
    let text = h9["text"].as_str().expect("text");
    assert!(
        text.contains("Szoke Bálint") && text.contains(" |12345678"),
        "{text}"
    );
    // OpenGotha's exact bytes on request.
    let exact = c
        .ok(
            "tournament.export",
            vec![id.clone(), json!("h9"), json!({"opengotha_exact": true})],
        )
        .await;
    let text = exact["text"].as_str().expect("text");
    assert!(
        text.contains("Sz?ke Bálint") && !text.contains(" |1"),
        "{text}"
    );
    // A misspelt option is refused.
    let e = c
        .call(
            "tournament.export",
            vec![id.clone(), json!("h9"), json!({"opengotha_exakt": true})],
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, -32602, "{e:?}");
    let e = c
        .call(
            "tournament.export",
            vec![id.clone(), json!("csv"), json!({"opengotha_exact": true})],
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, -32602, "{e:?}");
    let aga = c
        .ok("tournament.export", vec![id.clone(), json!("aga")])
        .await;
    assert!(aga["warnings"].as_array().is_some(), "{aga}");

    // A player registered with a rank and no rating gets OpenGotha's rating for it.
    let created = c
        .ok(
            "tournament.create",
            vec![json!({"name": "Ratings", "rounds": 3})],
        )
        .await;
    let tid = created["id"].clone();
    for (rank, rating) in [("3k", None), ("2d", Some(2250))] {
        let mut p = json!({"name": format!("P{rank}"), "first_name": "A", "rank": rank});
        if let Some(r) = rating {
            p["rating"] = json!(r);
        }
        c.ok("tournament.player.add", vec![tid.clone(), p]).await;
    }
    let got = c.ok("tournament.get", vec![tid.clone()]).await;
    let players = got["players"].as_array().expect("players");
    assert_eq!(players[0]["rating"], json!(1800), "{got}");
    assert_eq!(players[0]["rating_origin"], json!("INI"), "{got}");
    assert_eq!(players[1]["rating"], json!(2250), "{got}");
    let og = c
        .ok("tournament.export", vec![tid.clone(), json!("opengotha")])
        .await;
    let text = og["text"].as_str().expect("text");
    assert!(text.contains(r#"rating="1800""#), "{text}");
    server.stop().await;
}
