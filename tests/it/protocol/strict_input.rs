//! Strict input end to end, over XML-RPC and JSON-RPC: every struct a caller sends, in every
//! namespace, refuses a key it does not have, naming the key's path and the nearest valid
//! key; settings values are checked with their paths; rank-valued settings take rank text;
//! free text is capped; and a stored event holding a key this version does not know still
//! replays. A meta-test keeps the list of cases in step with the method table.

use crate::common;

use std::collections::BTreeSet;

use common::Server;
use common::rpc::{Client, Proto};
use serde_json::{Value, json};

const REGISTER: &str = "## TOURNEY Test\n1 Lee, Ann 3d\n2 Kim, Bo 1k\n";

/// One refused call: the method, its parameters (`TID` stands for a tournament's id), the
/// code and what the message must say.
struct Case {
    method: &'static str,
    params: Value,
    code: i64,
    says: &'static [&'static str],
}

const TID: &str = "$TID";

fn case(method: &'static str, params: Value, code: i64, says: &'static [&'static str]) -> Case {
    Case {
        method,
        params,
        code,
        says,
    }
}

fn cases() -> Vec<Case> {
    let players = json!([{"id": 1, "rating": 1.0}, {"id": 2, "ratng": 2.0}]);
    let good_players = json!([{"id": 1, "rating": 1.0}, {"id": 2, "rating": 2.0}]);
    let tree = json!({"nodes": [{"id": 0, "props": {"SZ": ["9"]}}]});
    vec![
        // tournament.*: settings, players, games and every options struct.
        case(
            "tournament.create",
            json!([{"nmae": "Open"}]),
            -32602,
            &["settings.nmae", "\"name\""],
        ),
        case(
            "tournament.create",
            json!([{"handicap_rules": "x"}]),
            -32602,
            &["settings.handicap_rules: unknown key"],
        ),
        case(
            "tournament.create",
            json!([{"handicap": {"max": 3}}]),
            -32602,
            &["settings.handicap.max: unknown key", "nearest valid key"],
        ),
        case(
            "tournament.create",
            json!([{"time": {"overtime": {"kind": "byoyomi", "periode": 5}}}]),
            -32602,
            &["settings.time.overtime.periode", "\"periods\""],
        ),
        case(
            "tournament.create",
            json!([{}, {"sead": 1}]),
            -32602,
            &["options.sead", "\"seed\""],
        ),
        case(
            "tournament.create",
            json!([{"system": "mcmahn"}]),
            -32602,
            &["settings.system: unknown value \"mcmahn\"", "\"mcmahon\""],
        ),
        case(
            "tournament.settings.set",
            json!([TID, {"mcmahon": {"barr": "3d"}}]),
            -32602,
            &["settings.mcmahon.barr", "\"bar\""],
        ),
        case(
            "tournament.settings.set",
            json!([TID, {"handicap": {"ceiling": 12}}]),
            -32602,
            &["settings.handicap.ceiling: 12 is above the maximum 9"],
        ),
        case(
            "tournament.settings.set",
            json!([TID, {"mcmahon": {"bar": "12x"}}]),
            -32602,
            &["settings.mcmahon.bar", "a rank like 3d"],
        ),
        case(
            "tournament.settings.set",
            json!([TID, {"rounds": "five"}]),
            -32602,
            &["settings.rounds: invalid type"],
        ),
        // A misspelt setting is the check's answer ({ok: false}), its options an error.
        case(
            "tournament.settings.check",
            json!([{}, {"tournament_ids": 1}]),
            -32602,
            &["options.tournament_ids", "\"tournament_id\""],
        ),
        case(
            "tournament.settings.set",
            json!([TID, {}, {"if_revison": 1}]),
            -32602,
            &["options.if_revison", "\"if_revision\""],
        ),
        case(
            "tournament.player.add",
            json!([TID, {"name": "Kim", "rnk": "3d"}]),
            -32602,
            &["player.rnk", "\"rank\""],
        ),
        case(
            "tournament.player.add",
            json!([TID, {"nmae": "Kim"}]),
            -32602,
            &["player.nmae", "\"name\""],
        ),
        case(
            "tournament.player.update",
            json!([TID, 1, {"clubb": "Lyon"}]),
            -32602,
            &["fields.clubb", "\"club\""],
        ),
        case(
            "tournament.delete",
            json!([TID, {"if_revison": 1}]),
            -32602,
            &["options.if_revison", "\"if_revision\""],
        ),
        case(
            "tournament.archive",
            json!([TID, {"archve": true}]),
            -32602,
            &["options.archve", "\"archived\""],
        ),
        case(
            "tournament.player.withdraw",
            json!([TID, 1, {"after": 1}]),
            -32602,
            &["options.after", "\"after_round\""],
        ),
        case(
            "tournament.player.set_participation",
            json!([TID, 1, [], {"if_revisio": 1}]),
            -32602,
            &["options.if_revisio", "\"if_revision\""],
        ),
        case(
            "tournament.player.remove",
            json!([TID, 1, {"if_rev": 1}]),
            -32602,
            &["options.if_rev", "\"if_revision\""],
        ),
        case(
            "tournament.round.pair",
            json!([TID, 1, {"modle": "gopair"}]),
            -32602,
            &["options.modle", "\"model\""],
        ),
        case(
            "tournament.round.pair",
            json!([TID, 1, {"model": {"preset": "gopair", "weigths": {}}}]),
            1036,
            &["options.model.weigths", "\"weights\""],
        ),
        case(
            "tournament.round.pair",
            json!([TID, 1, {"model": {"weights": {"ratng": 1}}}]),
            1036,
            &["options.model.weights.ratng", "\"rating\""],
        ),
        case(
            "tournament.round.unpair",
            json!([TID, 1, {"forc": true}]),
            -32602,
            &["options.forc", "\"force\""],
        ),
        case(
            "tournament.round.set_games",
            json!([TID, 1, [{"white": 1, "black": 2}, {"white": 3, "blak": 4}]]),
            -32602,
            &["games[1].blak", "\"black\""],
        ),
        case(
            "tournament.round.set_games",
            json!([TID, 1, [], {"bye": [1]}]),
            -32602,
            &["options.bye", "\"byes\""],
        ),
        case(
            "tournament.round.add_game",
            json!([TID, 1, {"white": 1, "black": 2, "tabel": 3}]),
            -32602,
            &["game.tabel", "\"table\""],
        ),
        case(
            "tournament.round.remove_game",
            json!([TID, 1, 1, {"if_revison": 1}]),
            -32602,
            &["options.if_revison"],
        ),
        case(
            "tournament.round.swap",
            json!([TID, 1, 1, 2, {"if_revison": 1}]),
            -32602,
            &["options.if_revison"],
        ),
        case(
            "tournament.round.publish",
            json!([TID, 1, {"publised": false}]),
            -32602,
            &["options.publised", "\"published\""],
        ),
        case(
            "tournament.round.explain",
            json!([TID, 1, 1, 2, {"modl": "gopair"}]),
            -32602,
            &["options.modl", "\"model\""],
        ),
        case(
            "tournament.result.set",
            json!([TID, 1, 1, "B+", {"sfg": "(;)"}]),
            -32602,
            &["options.sfg", "\"sgf\""],
        ),
        case(
            "tournament.import",
            json!(["aga", {"register": REGISTER, "round": []}]),
            -32602,
            &["data.round", "\"rounds\""],
        ),
        case(
            "tournament.import",
            json!(["aga", {"register": REGISTER}, "x", {"sed": 1}]),
            -32602,
            &["options.sed", "\"seed\""],
        ),
        case(
            "tournament.export",
            json!([TID, "opengotha", {"save_td": "x"}]),
            -32602,
            &["options.save_td", "\"save_dt\""],
        ),
        case(
            "tournament.export",
            json!([TID, "aga_results", {"report": {"strat": "2026-01-01"}}]),
            -32602,
            &["options.report.strat", "\"start\""],
        ),
        case(
            "tournament.export",
            json!([TID, "csv", {"after": 1}]),
            -32602,
            &["options.after: unknown key", "takes no keys"],
        ),
        case(
            "tournament.export",
            json!([TID, "h9", {"after": 1}]),
            -32602,
            &["options.after: unknown key", "valid keys: opengotha_exact"],
        ),
        // matchmaker.*: rswiss's fault 2, our message.
        case(
            "matchmaker.create_tournament",
            json!([[1, 2, 3, 4], 0, true, {"sed": 1}]),
            2,
            &["options.sed", "\"seed\""],
        ),
        // simulate.*
        case(
            "simulate.start",
            json!([{"rnus": 5}]),
            -32602,
            &["spec.rnus", "\"runs\""],
        ),
        // ratings.*
        case(
            "ratings.import",
            json!(["ffg", "x", {"base65": true}]),
            -32602,
            &["options.base65", "\"base64\""],
        ),
        // pairing.*
        case(
            "pairing.pair",
            json!([players, "gopair"]),
            -32602,
            &["players[1].ratng", "\"rating\""],
        ),
        case(
            "pairing.pair",
            json!([good_players, {"preset": "gopair", "weigts": {}}]),
            -32602,
            &["model.weigts", "\"weights\""],
        ),
        case(
            "pairing.pair",
            json!([good_players, "gopair", {"neighbors": 3}]),
            -32602,
            &["options.neighbors", "\"neighbours\""],
        ),
        case(
            "pairing.pair",
            json!([[{"id": 1, "rank": "1d", "gmes": []}, {"id": 2, "rank": "1k"}], "opengotha"]),
            -32602,
            &["players[0].gmes", "\"games\""],
        ),
        case(
            "pairing.explain",
            json!([good_players, [1, 2], "gopair", {"windw": 3}]),
            -32602,
            &["options.windw", "\"window\""],
        ),
        // score.* and the record checks.
        case(
            "score.position",
            json!([{"rows": [".."], "ded": []}]),
            -32602,
            &["position.ded", "\"dead\""],
        ),
        case(
            "score.position",
            json!([{"rows": [".."]}, {"captures": {"blak": 1}}]),
            -32602,
            &["options.captures.blak", "\"black\""],
        ),
        case(
            "score.toggle_dead",
            json!([{"rows": ["x."]}, "aa", {"actoin": "kill"}]),
            -32602,
            &["options.actoin", "\"action\""],
        ),
        case(
            "sgf.validate",
            json!(["(;SZ[9])", {"sise": 9}]),
            -32602,
            &["expectations.sise", "\"size\""],
        ),
        case(
            "sgf.validate",
            json!(["(;SZ[9])", {}, {"alternaton": true}]),
            -32602,
            &["options.alternaton", "\"alternation\""],
        ),
        case(
            "sgf.final_position",
            json!(["(;SZ[9])", {"rule": "chinese"}]),
            -32602,
            &["options.rule", "\"rules\""],
        ),
        // sgf.*
        case(
            "sgf.parse",
            json!(["(;)", {"lenent": true}]),
            -32602,
            &["options.lenent", "\"lenient\""],
        ),
        case(
            "sgf.game_info",
            json!(["(;)", {"encodng": "UTF-8"}]),
            -32602,
            &["options.encodng", "\"encoding\""],
        ),
        case(
            "sgf.main_line",
            json!(["(;)", {"wrapp": 3}]),
            -32602,
            &["options.wrapp", "\"wrap\""],
        ),
        case(
            "sgf.normalise",
            json!(["(;)", {"base46": true}]),
            -32602,
            &["options.base46", "\"base64\""],
        ),
        case(
            "sgf.serialise",
            json!([tree, {"wrapp": 3}]),
            -32602,
            &["options.wrapp", "\"wrap\""],
        ),
        case(
            "sgf.serialise",
            json!([{"nodez": []}]),
            -32602,
            &["tree.nodez", "\"nodes\""],
        ),
        case(
            "sgf.serialise",
            json!([{"nodes": [{"id": 0, "prop": {"SZ": ["9"]}}]}]),
            -32602,
            &["tree.nodes[0].prop", "\"props\""],
        ),
        case(
            "sgf.serialise",
            json!([{"games": [{"nodes": [{"props": {"C": {"raw": ["x"], "rwa": 1}}}]}]}]),
            -32602,
            &["tree.games[0].nodes[0].props.C.rwa", "\"raw\""],
        ),
        // aga.*
        case(
            "aga.handicap",
            json!(["1d", "3k", {"cpa": 3}]),
            -32602,
            &["options.cpa", "\"cap\""],
        ),
        case(
            "aga.parse_tdlist",
            json!(["", {"ofset": 1}]),
            -32602,
            &["options.ofset", "\"offset\""],
        ),
        case(
            "aga.tournament",
            json!([REGISTER, [], {"tscore": {"barr": 6}}]),
            -32602,
            &["options.tscore.barr", "\"bar\""],
        ),
        case(
            "aga.tscore",
            json!([REGISTER, [], {"mcmaho": true}]),
            -32602,
            &["options.mcmaho", "\"mcmahon\""],
        ),
        case(
            "aga.send2aga",
            json!([REGISTER, [], {"start": "2026-01-01"}]),
            -32602,
            &["options.start: unknown key", "takes no keys"],
        ),
        case(
            "aga.results_report",
            json!([REGISTER, [], {"strat": "2026-01-01"}]),
            -32602,
            &["options.strat", "\"start\""],
        ),
    ]
}

/// Methods whose struct parameters take no keys a client could misspell: `data` of an
/// OpenGotha import is the file's text; `value` of `system.echo` is any value, given back.
const NOT_STRUCTS: &[&str] = &["system.echo", "system.multicall"];

#[test]
fn every_method_taking_a_struct_has_a_case() {
    let covered: BTreeSet<&str> = cases().iter().map(|c| c.method).collect();
    for m in goswiss::rpc::TABLE.iter() {
        let takes_struct = m
            .params
            .iter()
            .any(|p| p.ty == "struct" || (p.ty == "array" && p.name != "skip"));
        if takes_struct && !NOT_STRUCTS.contains(&m.name) {
            // Arrays of ids or pairs (players of a matchmaker, a pair) hold no structs.
            if [
                "matchmaker.commit_match",
                "tournament.standings",
                "aga.parse_register",
                // Its options ({brief}) are read once the id names a simulation, and a fresh
                // daemon has none (1101 first). To do: a case against a running one.
                "simulate.get",
            ]
            .contains(&m.name)
            {
                continue;
            }
            assert!(
                covered.contains(m.name),
                "{} takes a struct: add a case with a misspelt key to tests/it/protocol/strict_input.rs",
                m.name
            );
        }
    }
}

fn with_tid(v: &Value, tid: i64) -> Value {
    match v {
        Value::String(s) if s == TID => json!(tid),
        Value::Array(a) => Value::Array(a.iter().map(|x| with_tid(x, tid)).collect()),
        other => other.clone(),
    }
}

#[tokio::test]
async fn every_struct_refuses_an_unknown_key_with_its_path_and_the_nearest_key() {
    let server = Server::start().await;
    for proto in [Proto::Json, Proto::Xml] {
        let c = Client::new(&server, proto);
        let t = c
            .ok("tournament.create", vec![json!({"name": "Open"})])
            .await;
        let tid = t["id"].as_i64().unwrap();
        for name in ["Lee", "Kim", "Park", "Choi"] {
            c.ok(
                "tournament.player.add",
                vec![json!(tid), json!({"name": name, "rank": "1d"})],
            )
            .await;
        }
        for k in cases() {
            let Value::Array(params) = with_tid(&k.params, tid) else {
                unreachable!()
            };
            match c.call(k.method, params).await {
                Ok(v) => panic!("{} {} ({proto:?}) succeeded: {v}", k.method, k.params),
                Err((code, message)) => {
                    assert_eq!(
                        code, k.code,
                        "{} {} ({proto:?}): {message}",
                        k.method, k.params
                    );
                    for s in k.says {
                        assert!(
                            message.contains(s),
                            "{} {} ({proto:?}): {message:?} does not say {s:?}",
                            k.method,
                            k.params
                        );
                    }
                }
            }
        }
        // Nothing of that was recorded: the tournament is at its fifth revision.
        let got = c.ok("tournament.get", vec![json!(tid)]).await;
        assert_eq!(got["revision"], 5, "{proto:?}");
        assert_eq!(got["settings"]["name"], "Open");
    }
    server.stop().await;
}

#[tokio::test]
async fn rank_valued_settings_take_rank_text() {
    let server = Server::start().await;
    for proto in [Proto::Json, Proto::Xml] {
        let c = Client::new(&server, proto);
        let t = c
            .ok(
                "tournament.create",
                vec![json!({
                    "mcmahon": {"bar": "4d", "floor": "20k", "zero": "30k"},
                    "handicap": {"no_handicap_threshold": "1d"},
                    "pairing": {"se_rank_threshold": "2p"},
                    "system": "swisscat",
                    "categories": ["1d", "10k"],
                })],
            )
            .await;
        let tid = t["id"].as_i64().unwrap();
        let s = &c.ok("tournament.get", vec![json!(tid)]).await["settings"];
        assert_eq!(
            s["mcmahon"],
            json!({"bar": 3, "floor": -20, "zero": -30}),
            "{proto:?}"
        );
        assert_eq!(s["handicap"]["no_handicap_threshold"], 0);
        assert_eq!(s["pairing"]["se_rank_threshold"], 8);
        assert_eq!(s["categories"], json!([0, -10]));
        // OpenGotha's integers still work, and a change takes text too.
        let changed = c
            .ok(
                "tournament.settings.set",
                vec![json!(tid), json!({"mcmahon": {"bar": 2, "floor": "15K"}})],
            )
            .await;
        assert_eq!(
            changed["settings"]["mcmahon"],
            json!({"bar": 2, "floor": -15, "zero": -30})
        );
        // A bar below the floor is a check across values: 1010, with the path.
        let (code, message) = c
            .call(
                "tournament.settings.set",
                vec![
                    json!(tid),
                    json!({"mcmahon": {"bar": "20k", "floor": "1d"}}),
                ],
            )
            .await
            .unwrap_err();
        assert_eq!(code, 1010, "{message}");
        assert!(message.starts_with("settings.mcmahon.bar:"), "{message}");
    }
    server.stop().await;
}

#[tokio::test]
async fn free_text_and_extra_are_capped_with_the_field_and_the_limit() {
    let server = Server::start().await;
    let c = Client::new(&server, Proto::Json);
    let long = "x".repeat(201);
    for (method, params, says) in [
        (
            "tournament.create",
            vec![json!({"name": long})],
            "settings.name: 201 characters, more than the limit of 200",
        ),
        (
            "tournament.create",
            vec![json!({"time": {"text": long}})],
            "settings.time.text: 201 characters",
        ),
        (
            "tournament.create",
            vec![json!({"clubs_groups": [{"name": "a", "clubs": [long]}]})],
            "settings.clubs_groups[0].clubs[0]: 201 characters",
        ),
        (
            "tournament.create",
            vec![json!({"extra": {"E": {"a": "v".repeat(1001)}}})],
            "settings.extra.E.a: 1001 characters, more than the limit of 1000",
        ),
    ] {
        let (code, message) = c.call(method, params).await.unwrap_err();
        assert!(code == -32602 || code == 1010, "{code} {message}");
        assert!(message.contains(says), "{message:?} does not say {says:?}");
    }
    // extra in all: 80 attributes of 1,000 characters each is 80 kB.
    let attrs: serde_json::Map<String, Value> = (0..80)
        .map(|i| (format!("a{i}"), json!("v".repeat(1000))))
        .collect();
    let (code, message) = c
        .call("tournament.create", vec![json!({"extra": {"E": attrs}})])
        .await
        .unwrap_err();
    assert_eq!(code, 1010, "{message}");
    assert!(
        message.contains("settings.extra:") && message.contains("more than the limit of 65536"),
        "{message}"
    );
    let t = c.ok("tournament.create", vec![json!({})]).await;
    let tid = t["id"].as_i64().unwrap();
    let (code, message) = c
        .call(
            "tournament.player.add",
            vec![json!(tid), json!({"name": "Kim", "club": long})],
        )
        .await
        .unwrap_err();
    assert_eq!(code, -32602, "{message}");
    assert!(
        message.contains("player.club: 201 characters, more than the limit of 200"),
        "{message}"
    );
    // At the limit it is taken.
    c.ok(
        "tournament.player.add",
        vec![json!(tid), json!({"name": "Kim", "club": "x".repeat(200)})],
    )
    .await;
    server.stop().await;
}

/// A log written by an older (or newer) goswiss, or before these checks, with keys this
/// version does not know, still replays; the keys are dropped at the next settings change.
#[test]
fn stored_settings_with_unknown_keys_still_replay() {
    use goswiss::tournament::{Event, Tournament};
    let created: Event = serde_json::from_value(json!({
        "type": "created",
        "settings": {"name": "Old", "handicap_rules": "x", "handicap": {"max": 3, "ceiling": 5},
                     "mcmahon": {"bar": 2}},
        "seed": 1, "format": 1,
    }))
    .expect("a created event with unknown keys reads");
    let changed: Event = serde_json::from_value(json!({
        "type": "settings_changed",
        "settings": {"name": "Older", "komi": 6.5, "rounds": 4},
    }))
    .expect("a settings_changed event with unknown keys reads");
    let t = Tournament::replay(std::slice::from_ref(&created)).unwrap();
    assert_eq!(t.data.settings.name, "Old");
    assert_eq!(t.data.settings.handicap.ceiling, 5);
    assert_eq!(t.data.settings.mcmahon.bar, 2);
    let t = Tournament::replay(&[created, changed]).unwrap();
    assert_eq!(t.data.settings.rounds, 4);
    let back = serde_json::to_value(&t.data.settings).unwrap();
    assert!(back.get("komi").is_none() && back.get("handicap_rules").is_none());
}

#[tokio::test]
async fn rpc_discover_has_the_settings_and_player_schemas() {
    let server = Server::start().await;
    let doc = server.ok("rpc.discover", json!([])).await;
    let schemas = &doc["components"]["schemas"];
    let settings = &schemas["Settings"];
    assert_eq!(settings["type"], "object", "{settings}");
    assert_eq!(settings["additionalProperties"], false);
    for key in [
        "name", "rounds", "mcmahon", "handicap", "pairing", "extra", "teams",
    ] {
        assert!(settings["properties"].get(key).is_some(), "Settings.{key}");
    }
    assert_eq!(settings["properties"]["rounds"]["maximum"], 64);
    assert_eq!(settings["properties"]["name"]["maxLength"], 200);
    let bar = &schemas["McMahon"]["properties"]["bar"];
    assert_eq!(bar["x-opengotha"], "GeneralParameterSet genMMBar", "{bar}");
    assert!(
        bar["oneOf"].is_array(),
        "a rank is an integer or text: {bar}"
    );
    assert_eq!(
        schemas["HandicapPolicy"]["properties"]["ceiling"]["maximum"],
        9
    );
    assert_eq!(schemas["Player"]["additionalProperties"], false);
    // The methods' settings and player parameters point at them.
    let methods = doc["methods"].as_array().unwrap();
    let param = |method: &str, name: &str| -> Value {
        let m = methods.iter().find(|m| m["name"] == method).unwrap();
        let p = m["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name);
        p.unwrap()["schema"].clone()
    };
    for (method, name, want) in [
        (
            "tournament.create",
            "settings",
            "#/components/schemas/Settings",
        ),
        (
            "tournament.settings.set",
            "settings",
            "#/components/schemas/Settings",
        ),
        (
            "tournament.player.add",
            "player",
            "#/components/schemas/Player",
        ),
        (
            "tournament.player.update",
            "fields",
            "#/components/schemas/Player",
        ),
    ] {
        // The reference itself, or inside the wrapper draft 7 needs for a described or
        // nullable one (`allOf: [ref]` beside a description, `anyOf: [ref, null]`).
        let schema = param(method, name);
        let target = schema
            .get("$ref")
            .or_else(|| schema["allOf"][0].get("$ref"))
            .or_else(|| schema["anyOf"][0].get("$ref"));
        assert_eq!(target, Some(&json!(want)), "{method} {name}: {schema}");
    }
    server.stop().await;
}

/// The caps leave real files alone: every OpenGotha file of tests/data imports (its events
/// pass the same checks as a caller's settings and players).
#[test]
fn the_caps_take_every_opengotha_file_of_the_tests() {
    fn xml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                xml_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "xml") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    xml_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/opengotha"),
        &mut files,
    );
    assert!(files.len() >= 10, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok(data) = goswiss::tournament::formats::opengotha_xml::read(&text) else {
            continue;
        };
        goswiss::rpc::methods::tournament_io::import_events(data, 1)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}
