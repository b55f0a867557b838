//! The README's Python walk-through (clients/python/mcmahon_event.py) run against the real
//! server over both protocols: it must finish, and what it prints and writes must agree with
//! the server's own state — standings in placement order with the tie-breakers, the late
//! entry, the absence and the corrected result in place, and an EGF `.h9` file that parses,
//! lists every player in standings order and whose game cells mirror each other.

use crate::common;

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use common::{Server, client};
use serde_json::{Value, json};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/clients/python/mcmahon_event.py"
);

async fn walk(url: &str, protocol: &str, h9: &std::path::Path) -> String {
    let child = tokio::process::Command::new("python3")
        .args([
            SCRIPT,
            "--url",
            url,
            "--protocol",
            protocol,
            "--h9",
            &h9.to_string_lossy(),
        ])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), child)
        .await
        .expect("the walk-through finishes within 2 minutes")
        .expect("python3 runs (the Python client tests need it)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{text}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// One JSON-RPC call's whole reply (result or error).
async fn reply(url: &str, method: &str, params: Value) -> Value {
    common::rpc::jsonrpc(&client(), &format!("{url}jsonrpc"), method, params).await
}

async fn call(url: &str, method: &str, params: Value) -> Value {
    let v = reply(url, method, params).await;
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

/// One `.h9` player line: its place column, name, first name and round cells.
struct Line {
    name: String,
    first_name: String,
    cells: Vec<String>,
}

/// Reads an EGF results table: `;` lines are comments; a player line is place, name, first
/// name, rank, country, club, the criteria columns, then one cell per round. The cells are
/// the last `rounds` fields.
fn parse_h9(bytes: &[u8], rounds: usize) -> Vec<Line> {
    // ISO-8859-15 agrees with Latin-1 on every letter the walk-through uses.
    let text: String = bytes.iter().map(|&b| b as char).collect();
    let mut lines = vec![];
    for l in text.lines() {
        if l.starts_with(';') || l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        assert!(f.len() >= 6 + rounds, "short player line {l:?}");
        assert!(f[0].parse::<u32>().is_ok(), "place in {l:?}");
        lines.push(Line {
            name: f[1].to_string(),
            first_name: f[2].to_string(),
            cells: f[f.len() - rounds..]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        });
    }
    lines
}

/// A game cell `12+/w3` → (opponent line, result char, colour char); `0+`, `0=`, `0-` → None.
fn cell(c: &str) -> Option<(usize, char, char)> {
    let split = c.find(|ch: char| !ch.is_ascii_digit()).expect("result");
    let opp: usize = c[..split].parse().expect("opponent line");
    let rest: Vec<char> = c[split..].chars().collect();
    assert!(matches!(rest[0], '+' | '-' | '='), "result of {c:?}");
    if opp == 0 {
        assert_eq!(rest.len(), 1, "{c:?}");
        return None;
    }
    assert!(matches!(rest[1], '/' | '!'), "{c:?}");
    assert!(matches!(rest[2], 'w' | 'b'), "{c:?}");
    Some((opp, rest[0], rest[2]))
}

/// The tournament id the script prints ("tournament 7 created over …").
fn tournament_id(out: &str) -> i64 {
    out.lines()
        .find_map(|l| l.strip_prefix("tournament "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no tournament id in\n{out}"))
}

fn check(out: &str, url: &str, h9: &std::path::Path) -> impl std::future::Future<Output = ()> {
    let out = out.to_string();
    let url = url.to_string();
    let h9 = h9.to_path_buf();
    async move {
        let id = tournament_id(&out);
        // The state the script built, read back from the server.
        let t = call(&url, "tournament.get", json!([id])).await;
        assert_eq!(t["paired_rounds"], 4);
        let players = t["players"].as_array().unwrap();
        assert_eq!(players.len(), 13);
        let by_name = |n: &str| players.iter().find(|p| p["name"] == n).unwrap();
        assert_eq!(by_name("Tanaka")["skip"], json!([1]), "late entry");
        assert_eq!(by_name("Rossi")["skip"], json!([3]), "absence");
        let rounds = t["rounds_detail"].as_array().unwrap();
        for r in rounds {
            for g in r["games"].as_array().unwrap() {
                assert_ne!(g["result"], "?", "every game has a result: {g}");
            }
        }
        assert!(out.contains("corrected round 2 table 1"), "{out}");
        assert!(out.contains("correction kept: True"), "{out}");
        let sgf = call(&url, "tournament.game.sgf", json!([id, 1, 1])).await;
        assert!(sgf["sgf"].as_str().unwrap().starts_with("(;GM[1]"));
        assert_eq!(sgf["warnings"], json!([]), "the record matches its game");

        // Standings: the script's table is the server's, in placement order.
        let st = call(&url, "tournament.standings", json!([id])).await;
        let crit: Vec<String> = st["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        assert_eq!(crit, ["MMS", "SOSM", "SOSOSM"]);
        let rows = st["rows"].as_array().unwrap();
        let printed: Vec<Vec<String>> = out
            .lines()
            .skip_while(|l| !l.starts_with("standings after round 4"))
            .skip(2)
            .take_while(|l| !l.starts_with("crosstable"))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect();
        assert_eq!(printed.len(), rows.len(), "{out}");
        let key = |r: &Value| -> Vec<f64> {
            crit.iter()
                .map(|c| r["values"][c].as_f64().unwrap())
                .collect()
        };
        for (k, (row, line)) in rows.iter().zip(&printed).enumerate() {
            assert_eq!(line[1], row["name"].as_str().unwrap(), "line {k}");
            assert_eq!(line[2], row["first_name"].as_str().unwrap(), "line {k}");
            let values: Vec<f64> = line[line.len() - 3..]
                .iter()
                .map(|v| v.parse().unwrap())
                .collect();
            assert_eq!(values, key(row), "line {k}");
            if k > 0 {
                // Placement order: never better than the row above, criterion by criterion;
                // a shared place exactly when every criterion ties.
                let above = key(&rows[k - 1]);
                assert!(above >= key(row), "row {k} above {:?}", above);
                assert_eq!(row["shared"].as_bool(), Some(above == key(row)));
            }
        }
        // MMS of each player: its starting score (rank within bar 3d and floor 20k, zero 30k)
        // plus its wins and its credit for rounds without a game: a bye 1, an absence ½, the
        // sum rounded down (OpenGotha's McMahon defaults).
        let mut points: HashMap<i64, f64> = HashMap::new();
        let mut byes: HashMap<i64, f64> = HashMap::new();
        for r in rounds {
            for g in r["games"].as_array().unwrap() {
                let (w, b) = (g["white"].as_i64().unwrap(), g["black"].as_i64().unwrap());
                let res = g["result"].as_str().unwrap();
                let winner = if res.starts_with('W') { w } else { b };
                *points.entry(winner).or_default() += 1.0;
            }
            for b in r["byes"].as_array().unwrap() {
                *byes.entry(b.as_i64().unwrap()).or_default() += 1.0;
            }
        }
        for p in players {
            let skipped = p["skip"].as_array().unwrap().len() as f64;
            let rank = p["rank"].as_i64().unwrap().clamp(-20, 2);
            let start = (rank + 30) as f64;
            let pid = p["id"].as_i64().unwrap();
            let credit = (byes.get(&pid).unwrap_or(&0.0) + skipped / 2.0).floor();
            let want = start + points.get(&pid).unwrap_or(&0.0) + credit;
            let row = rows.iter().find(|r| r["player_id"] == p["id"]).unwrap();
            assert_eq!(row["values"]["MMS"].as_f64().unwrap(), want, "{p}");
        }

        // The .h9 file: written, parseable, every player in standings order, game cells
        // mirrored (A's `k+/w` is k's `a-/b`).
        let bytes = std::fs::read(&h9).unwrap_or_else(|e| panic!("{}: {e}", h9.display()));
        let text: String = bytes.iter().map(|&b| b as char).collect();
        assert!(text.contains("; EV[Autumn McMahon]"), "{text}");
        assert!(text.contains("Müller"), "ISO-8859-15 bytes: {text}");
        let lines = parse_h9(&bytes, 4);
        assert_eq!(lines.len(), rows.len(), "{text}");
        for (line, row) in lines.iter().zip(rows) {
            assert_eq!(line.name, row["name"].as_str().unwrap(), "{text}");
            assert_eq!(line.first_name, row["first_name"].as_str().unwrap());
        }
        let late = lines.iter().position(|l| l.name == "Tanaka").unwrap();
        assert!(
            cell(&lines[late].cells[0]).is_none(),
            "late entry: no game in round 1"
        );
        let rossi = lines.iter().position(|l| l.name == "Rossi").unwrap();
        assert!(cell(&lines[rossi].cells[2]).is_none(), "absent in round 3");
        for (i, line) in lines.iter().enumerate() {
            for (r, c) in line.cells.iter().enumerate() {
                if let Some((opp, res, colour)) = cell(c) {
                    let back = cell(&lines[opp - 1].cells[r])
                        .unwrap_or_else(|| panic!("{c} of line {} has no mirror", i + 1));
                    let mirror = match res {
                        '+' => '-',
                        '-' => '+',
                        x => x,
                    };
                    let other = if colour == 'w' { 'b' } else { 'w' };
                    assert_eq!(
                        back,
                        (i + 1, mirror, other),
                        "round {} line {}",
                        r + 1,
                        i + 1
                    );
                }
            }
        }
    }
}

/// Runs the walk-through over both protocols against `server`, checks each run, and gives
/// the tournaments it made.
async fn walk_both(server: &Server) -> Vec<i64> {
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let mut ids = Vec::new();
    for protocol in ["xmlrpc", "jsonrpc"] {
        let h9 = dir.path().join(format!("{protocol}.h9"));
        let out = walk(&url, protocol, &h9).await;
        check(&out, &url, &h9).await;
        ids.push(tournament_id(&out));
    }
    ids
}

/// The same walk-through with auth on: the script keeps the director token `tournament.create`
/// returns and sends it with every write, as the README says a director must. Director tokens
/// only, with creation open to anyone (there is no admin token to create with).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_walk_through_runs_with_auth_on() {
    let server = Server::start_with(goswiss::config::Config {
        auth: true,
        open_creation: true,
        ..goswiss::config::Config::default()
    })
    .await;
    for id in walk_both(&server).await {
        // Auth was on: the same kind of write without the token is refused.
        let v = reply(&server.url("/"), "tournament.archive", json!([id])).await;
        assert_eq!(v["error"]["code"], -32010, "{v}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_mcmahon_walk_through_runs_over_both_protocols() {
    let server = Server::start().await;
    walk_both(&server).await;
    server.stop().await;
}
