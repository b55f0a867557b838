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
