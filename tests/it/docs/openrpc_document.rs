//! `rpc.discover` against the daemon it describes: the document is valid OpenRPC (Python's
//! jsonschema against the OpenRPC meta-schema in tests/data/openrpc), every method's example
//! runs on a live daemon and answers in the example's shape, and every answer of a realistic
//! session (a McMahon event with players, pairings, results, standings, exports, matchmaker
//! calls, SGF, scoring, the examples' calls too) fits its method's declared result schema, and
//! every example's parameters their parameter schemas.
//!
//! Without python3 and its jsonschema the schema checks say so and pass, unless
//! `GOSWISS_REQUIRE_PYCLIENT` is set (`.ci/run` sets it after installing them); the examples'
//! shapes are checked whatever.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::Server;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

const SGF: &str = "(;GM[1]FF[4]SZ[9]PB[Lee]PW[Kim]KM[7]RE[B+R];B[ee];W[cc];B[gc])";

fn sim_spec() -> Value {
    json!({"field": {"generate": {"players": 8, "from": "10k", "to": "1d"}},
           "variants": [{"name": "mcmahon"}], "runs": 2, "seed": 1})
}

/// The state every example runs in (src/rpc/examples.json's ids refer to it): tournament 1, a
/// McMahon event of six players with round 1 paired for four of them and a result with its
/// record on table 1; matchmaker tournament 2 with a match checked out (returned); matchmaker
/// tournament 3 played to its end.
async fn fixture(s: &Server) -> Value {
    s.ok(
        "tournament.create",
        json!([{"name": "Example Open", "system": "mcmahon", "rounds": 3}, {"seed": 1}]),
    )
    .await;
    for (name, first, rank, club) in [
        ("Lee", "Ann", "3d", "Paris"),
        ("Kim", "Bo", "1d", "Lyon"),
        ("Park", "Min", "1k", "Paris"),
        ("Sato", "Yui", "2k", "Lyon"),
        ("Novak", "Jan", "5k", "Brno"),
        ("Weber", "Eva", "6k", "Wien"),
    ] {
        s.ok(
            "tournament.player.add",
            json!([1, {"name": name, "first_name": first, "rank": rank, "club": club}]),
        )
        .await;
    }
    s.ok(
        "tournament.round.pair",
        json!([1, 1, {"players": [1, 2, 3, 4]}]),
    )
    .await;
    s.ok(
        "tournament.result.set",
        json!([1, 1, 1, "B+", {"sgf": SGF}]),
    )
    .await;
    s.ok(
        "matchmaker.create_tournament",
        json!([[1, 2, 3, 4], 0, true, {"seed": 7}]),
    )
    .await;
    let pair = s.ok("matchmaker.checkout_match", json!([2])).await;
    s.ok(
        "matchmaker.create_tournament",
        json!([[1, 2], 0, true, {"seed": 7}]),
    )
    .await;
    let p3 = s.ok("matchmaker.checkout_match", json!([3])).await;
    s.ok("matchmaker.commit_match", json!([3, p3, -1])).await;
    pair
}

/// Where `got` differs in shape from `want`: JSON types (integers and doubles are numbers),
/// every member of an example's object in the answer's, the first item of an example's list
/// like the answer's first. The answer's other members are the schema's to allow.
fn shape_diff(want: &Value, got: &Value, at: &str) -> Option<String> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().find_map(|(k, wv)| match g.get(k) {
            Some(gv) => shape_diff(wv, gv, &format!("{at}.{k}")),
            None => Some(format!("{at}.{k} missing")),
        }),
        (Value::Array(w), Value::Array(g)) => match (w.first(), g.first()) {
            (Some(wf), Some(gf)) => shape_diff(wf, gf, &format!("{at}[0]")),
            (Some(_), None) => Some(format!("{at}: empty, the example's is not")),
            _ => None,
        },
        (Value::Number(_), Value::Number(_))
        | (Value::String(_), Value::String(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Null, Value::Null) => None,
        _ => Some(format!("{at}: {want} vs {got}")),
    }
}

/// Runs `method` with `params` over a WebSocket session (the subscription pair): its answer.
async fn over_websocket(s: &Server, calls: &[(&str, Value)]) -> Vec<Value> {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", s.addr))
        .await
        .expect("websocket");
    let mut out: Vec<Value> = vec![];
    for (k, (method, params)) in calls.iter().enumerate() {
        let mut params = params.clone();
        if *method == "tournament.unsubscribe" {
            // The id the session's subscription got.
            params = json!([out[0]["result"].clone()]);
        }
        ws.send(Message::text(
            json!({"jsonrpc": "2.0", "id": k + 1, "method": method, "params": params}).to_string(),
        ))
        .await
        .expect("send");
        loop {
            let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
                .await
                .expect("an answer within 30 s")
                .expect("open")
                .expect("message");
            // The server's pings (and any other frame) are not answers.
            if !m.is_text() {
                continue;
            }
            let v: Value = serde_json::from_str(m.to_text().expect("text")).expect("json");
            if v.get("id") == Some(&json!(k + 1)) {
                out.push(v);
                break;
            }
        }
    }
    out
}

/// Runs every method's example (each on a fresh daemon with the fixture) and returns the
/// lines for the schema check: each example's params and result, and each live answer.
async fn run_examples(doc: &Value) -> Vec<Value> {
    let examples = doc["methods"].as_array().expect("methods");
    let mut lines = vec![];
    let mut failures = vec![];
    for m in examples {
        let name = m["name"].as_str().expect("name");
        let Some(ex) = m["examples"].as_array().and_then(|e| e.first()) else {
            failures.push(format!("{name}: no example"));
            continue;
        };
        let mut params: Vec<Value> = ex["params"]
            .as_array()
            .expect("example params")
            .iter()
            .map(|p| p["value"].clone())
            .collect();
        let want = ex["result"]["value"].clone();
        lines.push(json!({"method": name, "params": params}));
        lines.push(json!({"method": name, "result": want}));
        let s = Server::start().await;
        let pair = fixture(&s).await;
        // The values only the live daemon knows: the match it checked out, a simulation's
        // id, the players of table 2, a parsed tree.
        match name {
            "matchmaker.commit_match" => params[1] = pair,
            "simulate.get" | "simulate.cancel" => {
                params[0] = s.ok("simulate.start", json!([sim_spec()])).await["id"].clone()
            }
            "tournament.round.swap" => {
                let round = s.ok("tournament.round.get", json!([1, 1])).await;
                let t2 = round["games"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|g| g["table"] == 2)
                    .unwrap()
                    .clone();
                params[2] = t2["white"].clone();
                params[3] = t2["black"].clone();
            }
            "ratings.search" => {
                // A search needs a list: the import's own example, first.
                let import = &doc["methods"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|m| m["name"] == "ratings.import")
                    .expect("ratings.import")["examples"][0]["params"];
                let given: Vec<Value> = import
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["value"].clone())
                    .collect();
                s.ok("ratings.import", json!(given)).await;
            }
            "sgf.serialise" => {
                params[0] = s.ok("sgf.parse", json!([SGF])).await["games"][0].clone();
            }
            _ => {}
        }
        let got = match name {
            "tournament.subscribe" => over_websocket(&s, &[(name, json!(params))]).await[0].clone(),
            "tournament.unsubscribe" => over_websocket(
                &s,
                &[("tournament.subscribe", json!([1])), (name, json!([]))],
            )
            .await[1]
                .clone(),
            _ => s.jsonrpc(name, json!(params)).await,
        };
        match got.get("result") {
            Some(result) => {
                if let Some(d) = shape_diff(&want, result, "result") {
                    failures.push(format!("{name}: {d}"));
                }
                lines.push(json!({"method": name, "result": result}));
            }
            None => failures.push(format!("{name}: {got}")),
        }
        s.stop().await;
    }
    assert!(failures.is_empty(), "examples:\n{}", failures.join("\n"));
    lines
}

/// A McMahon event over several rounds, and the other namespaces: every answer, as lines for
/// the schema check.
async fn session(s: &Server) -> Vec<Value> {
    let mut lines = vec![];
    let mut call = async |method: &str, params: Value| -> Value {
        let v = s.ok(method, params).await;
        lines.push(json!({"method": method, "result": v}));
        v
    };
    let created = call(
        "tournament.create",
        json!([{"name": "Autumn Cup", "system": "mcmahon", "rounds": 4,
                 "mcmahon": {"bar": "2d", "floor": "15k"}}, {"seed": 5}]),
    )
    .await;
    let id = created["id"].clone();
    for k in 0..12 {
        let rank = format!("{}k", 1 + k);
        let club = ["Paris", "Lyon", "Brno"][k % 3];
        call(
            "tournament.player.add",
            json!([id, {"name": format!("Player{k}"), "first_name": "A", "rank": rank,
                        "club": club, "country": "FR"}]),
        )
        .await;
    }
    call("tournament.player.update", json!([id, 3, {"rank": "2d"}])).await;
    call("tournament.player.set_participation", json!([id, 12, [2]])).await;
    for round in 1..=3 {
        let paired = call("tournament.round.pair", json!([id, round])).await;
        call("tournament.round.publish", json!([id, round])).await;
        for (k, g) in paired["games"].as_array().unwrap().iter().enumerate() {
            let result = ["W+", "B+", "jigo", "B+!"][k % 4];
            let options = if k == 0 {
                json!({"sgf": SGF})
            } else {
                json!({})
            };
            call(
                "tournament.result.set",
                json!([id, round, g["table"], result, options]),
            )
            .await;
        }
        call("tournament.round.get", json!([id, round])).await;
        call("tournament.standings", json!([id])).await;
    }
    call("tournament.round.explain", json!([id, 4, 1, 2])).await;
    call("tournament.round.explain", json!([id, 4, 1])).await;
    call(
        "tournament.round.explain",
        json!([id, 4, 1, 2, {"model": "gopair"}]),
    )
    .await;
    call("tournament.round.pair", json!([id, 4, {"model": "gopair"}])).await;
    call("tournament.round.unpair", json!([id, 4])).await;
    // After the explanations: a model's explanation of a round after a withdrawal answers 1010
    // (an opponent unknown to the model), which is not what this test is about.
    call("tournament.player.withdraw", json!([id, 5])).await;
    call("tournament.game.sgf", json!([id, 1, 1])).await;
    call("tournament.crosstable", json!([id, 2])).await;
    call(
        "tournament.standings",
        json!([id, 3, ["MMS", "SOSM", "SOSOSM", "DC"]]),
    )
    .await;
    for format in ["h9", "csv", "opengotha", "aga"] {
        call("tournament.export", json!([id, format])).await;
    }
    call("tournament.events", json!([id])).await;
    call("tournament.get", json!([id])).await;
    call("tournament.list", json!([])).await;
    call("tournament.player.list", json!([id])).await;
    call("tournament.settings.set", json!([id, {"komi2": 15}])).await;
    call("tournament.archive", json!([id])).await;
    call("tournament.archive", json!([id, {"archived": false}])).await;
    call("tournament.token.rotate", json!([id])).await;
    // matchmaker.*, played to its end.
    let mm = call(
        "matchmaker.create_tournament",
        json!([[1, 2, 3, 4, 5, 6], 0, true, {"seed": 11}]),
    )
    .await;
    for _ in 0..40 {
        if call("matchmaker.has_ended", json!([mm])).await == json!(true) {
            break;
        }
        let pair = call("matchmaker.checkout_match", json!([mm])).await;
        call("matchmaker.checkedout_matches", json!([mm])).await;
        call("matchmaker.commit_match", json!([mm, pair, 1])).await;
        call("matchmaker.round", json!([mm])).await;
    }
    for m in [
        "matchmaker.table_by_criteria",
        "matchmaker.table_by_score",
        "matchmaker.repeated_matches",
    ] {
        call(m, json!([mm])).await;
    }
    // SGF and scoring.
    let parsed = call("sgf.parse", json!([SGF])).await;
    call("sgf.serialise", json!([parsed["games"][0]])).await;
    call("sgf.final_position", json!([SGF, {"rules": "chinese"}])).await;
    call("sgf.validate", json!([SGF, {"size": 19}])).await;
    call(
        "score.position",
        json!([{"rows": ["bbw..", "bw...", "bw...", "bbw..", "....."]}, {"rules": "chinese"}]),
    )
    .await;
    // A tie the criteria cannot break is 402: the winner when there is one.
    if let Ok(w) = s.call("matchmaker.winner", json!([mm])).await {
        lines.push(json!({"method": "matchmaker.winner", "result": w}));
    }
    lines
}

/// python3 with jsonschema, or why not.
async fn python_jsonschema() -> Result<(), String> {
    let probe = tokio::process::Command::new("python3")
        .args(["-c", "import jsonschema, referencing"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(Duration::from_secs(120), probe).await {
        Ok(Ok(out)) if out.status.success() => Ok(()),
        Ok(Ok(out)) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        Ok(Err(e)) => Err(format!("python3: {e}")),
        Err(_) => Err("python3 did not answer within 2 minutes".into()),
    }
}

/// tests/python/openrpc_check.py on `doc` and `lines`: its report, and whether it passed.
async fn check(doc: &Value, lines: &[Value]) -> Option<(bool, String)> {
    if let Err(why) = python_jsonschema().await {
        assert!(
            std::env::var_os("GOSWISS_REQUIRE_PYCLIENT").is_none(),
            "python3 with jsonschema is required: {why}"
        );
        eprintln!("skipped: python3 with jsonschema is missing ({why})");
        return None;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let doc_path = dir.path().join("doc.json");
    let lines_path = dir.path().join("answers.jsonl");
    std::fs::write(&doc_path, doc.to_string()).expect("write doc");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&lines_path, text).expect("write answers");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/openrpc_check.py");
    let run = tokio::process::Command::new("python3")
        .arg(script)
        .arg(&doc_path)
        .arg(&lines_path)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("the check ends within 5 minutes")
        .expect("python3 runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.success(), report))
}

#[tokio::test]
async fn every_answer_fits_the_document_and_every_example_runs() {
    let server = Server::start().await;
    let doc = server.ok("rpc.discover", json!([])).await;
    let mut lines = session(&server).await;
    server.stop().await;
    lines.extend(run_examples(&doc).await);
    // Every method answered at least once.
    for m in doc["methods"].as_array().unwrap() {
        assert!(
            lines
                .iter()
                .any(|l| l["method"] == m["name"] && l.get("result").is_some()),
            "{} never answered",
            m["name"]
        );
    }
    if let Some((passed, report)) = check(&doc, &lines).await {
        assert!(passed, "{report}");
    }
}

#[tokio::test]
async fn the_check_fails_an_answer_that_does_not_fit() {
    let server = Server::start().await;
    let doc = server.ok("rpc.discover", json!([])).await;
    server.stop().await;
    let lines = [
        json!({"method": "tournament.create", "result": {"id": 1, "revision": "one", "director_token": "x"}}),
        json!({"method": "tournament.round.get", "result": {"round": 1, "paired": true,
            "published": true, "games": [], "byes": [], "surprise": 1}}),
    ];
    if let Some((passed, report)) = check(&doc, &lines).await {
        assert!(!passed, "{report}");
        assert!(report.contains("/revision"), "{report}");
        assert!(report.contains("surprise"), "{report}");
    }
    let mut broken = doc.clone();
    broken.as_object_mut().unwrap().remove("info");
    if let Some((passed, report)) = check(&broken, &[]).await {
        assert!(
            !passed && report.contains("'info' is a required property"),
            "{report}"
        );
    }
}

#[tokio::test]
async fn the_document_types_what_clients_send_and_get() {
    let server = Server::start().await;
    let doc = server.ok("rpc.discover", json!([])).await;
    server.stop().await;
    let method = |name: &str| {
        doc["methods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    let schemas = &doc["components"]["schemas"];
    // Shared types are named once and referred to.
    let get = method("tournament.get");
    assert_eq!(
        get["result"]["schema"]["$ref"],
        "#/components/schemas/TournamentOut"
    );
    assert!(schemas["TournamentOut"]["properties"]["settings"].is_object());
    // Result codes: the codes, and the aliases result.set reads.
    let codes = &schemas["ResultCode"]["enum"];
    for c in ["W+", "B+", "jigo", "both_win", "both_lose", "?", "B+!"] {
        assert!(codes.as_array().unwrap().contains(&json!(c)), "{codes}");
    }
    let input = &schemas["ResultCodeInput"];
    assert_eq!(input["x-aliases"]["white_wins"], "W+", "{input}");
    let set = method("tournament.result.set");
    assert_eq!(
        set["params"][3]["schema"]["$ref"],
        "#/components/schemas/ResultCodeInput"
    );
    // Errors with their meanings.
    let codes: Vec<i64> = set["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_i64().unwrap())
        .collect();
    for c in [1001, 1002, 1033, -32602, -32010] {
        assert!(codes.contains(&c), "{codes:?}");
    }
    assert!(
        set["errors"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| !e["message"].as_str().unwrap().is_empty())
    );
    // The subscription pair and its notification.
    let sub = method("tournament.subscribe");
    assert_eq!(sub["x-notification"]["name"], "tournament.event");
    assert!(sub["x-notification"]["params"]["result"].is_object());
    assert!(
        method("tournament.unsubscribe")["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["code"] == -32020)
    );
    // The settings schema of strict input is still the one published.
    assert!(schemas["Settings"]["properties"]["mcmahon"].is_object());
}
