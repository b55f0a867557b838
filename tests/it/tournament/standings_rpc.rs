//! `tournament.standings` and `tournament.crosstable` over both protocols against OpenGotha
//! 3.51's own values: every golden tournament of tests/data/opengotha is built through the
//! daemon with `tournament.*` calls (players, rounds set by hand, results), then its standings
//! after every round are compared with the golden `.criteria.tsv` (order, shared places and
//! every value of the tournament's criteria), and its crosstable with the golden `.h9` cells.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::Server;
use common::rpc::{Client, Proto};
use goswiss::pairing::opengotha::Crit;
use goswiss::tournament::formats::opengotha_xml;
use goswiss::tournament::model::{Outcome, TournamentData};
use goswiss::tournament::standings::display_value;
use serde_json::{Value, json};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/opengotha")
}

fn load(name: &str) -> TournamentData {
    let d = data();
    let p = [
        d.join(format!("{name}.xml")),
        d.join(format!("synthetic/{name}.xml")),
    ]
    .into_iter()
    .find(|p| p.exists())
    .unwrap_or_else(|| panic!("missing tournament file for {name} under {}", d.display()));
    let xml = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    opengotha_xml::read(&xml).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The golden tournaments compared (toulouse2024 is left out: OpenGotha's importer drops some
/// of its games, see tests/it/tournament/standings_oracle.rs).
fn golden_names() -> Vec<String> {
    let dir = data().join("golden");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".criteria.tsv").map(str::to_string)
        })
        .filter(|n| n != "toulouse2024_R1-3")
        .collect();
    names.sort();
    assert!(
        names.len() >= 9,
        "golden dumps missing in {}",
        dir.display()
    );
    names
}

/// Drops nulls (XML-RPC has no nil for these clients).
fn no_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, no_nulls(v)))
                .collect(),
        ),
        v => v,
    }
}

fn code(o: Outcome) -> &'static str {
    match o {
        Outcome::WhiteWins => "W+",
        Outcome::BlackWins => "B+",
        Outcome::Jigo => "jigo",
        Outcome::BothWin => "both_win",
        Outcome::BothLose => "both_lose",
        Outcome::Unknown => "?",
    }
}

/// Builds the tournament in the daemon; returns its id. Player ids match the reader's (both
/// number players 1, 2, … in file order).
async fn build(c: &Client, t: &TournamentData) -> i64 {
    let settings = no_nulls(serde_json::to_value(&t.settings).unwrap());
    let created = c.ok("tournament.create", vec![settings]).await;
    let id = created["id"].as_i64().expect("id");
    for p in &t.players {
        let mut v = no_nulls(serde_json::to_value(p).unwrap());
        v.as_object_mut().unwrap().remove("id");
        let r = c.ok("tournament.player.add", vec![json!(id), v]).await;
        assert_eq!(r["player_id"].as_u64(), Some(p.id as u64));
    }
    for (k, round) in t.rounds.iter().enumerate() {
        let r = k as u32 + 1;
        let games: Vec<Value> = round
            .games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                json!({"white": g.white, "black": g.black, "table": i + 1,
                       "handicap": g.handicap})
            })
            .collect();
        c.ok(
            "tournament.round.set_games",
            vec![
                json!(id),
                json!(r),
                json!(games),
                json!({"byes": round.byes}),
            ],
        )
        .await;
        for (i, g) in round.games.iter().enumerate() {
            if g.outcome == Outcome::Unknown {
                continue;
            }
            c.ok(
                "tournament.result.set",
                vec![
                    json!(id),
                    json!(r),
                    json!(i + 1),
                    json!(code(g.outcome)),
                    json!({"forfeit": g.forfeit}),
                ],
            )
            .await;
        }
    }
    id
}

/// One golden row: (round, key, place as printed, criterion name → value).
type GoldenRow = (u32, String, String, HashMap<String, i64>);

/// The `T` rows (the tournament's own criteria) of a golden dump, in order.
fn golden_rows(name: &str) -> Vec<GoldenRow> {
    let f = data().join(format!("golden/{name}.criteria.tsv"));
    let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    let mut header: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols[0] == "variant" {
            header = cols.iter().map(|s| s.to_string()).collect();
            continue;
        }
        if cols[0] != "T" {
            continue;
        }
        let values = header
            .iter()
            .zip(&cols)
            .skip(5)
            .map(|(h, v)| (h.clone(), v.parse::<i64>().unwrap()))
            .collect();
        out.push((
            cols[1].parse().unwrap(),
            cols[4].to_string(),
            cols[3].to_string(),
            values,
        ));
    }
    out
}

/// The criteria a tournament's own standings use, as the golden dump names them.
fn own_criteria(name: &str) -> Vec<String> {
    let f = data().join(format!("golden/{name}.criteria.tsv"));
    let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("# variant T:"))
        .unwrap_or_else(|| panic!("{}: no variant T header", f.display()));
    line.split_whitespace()
        .filter(|c| *c != "NULL")
        .map(str::to_string)
        .collect()
}

async fn check_standings(
    c: &Client,
    id: i64,
    name: &str,
    t: &TournamentData,
    failures: &mut Vec<String>,
) -> usize {
    let rows = golden_rows(name);
    let crits = own_criteria(name);
    let key_of: HashMap<u64, String> = t
        .players
        .iter()
        .map(|p| (p.id as u64, p.opengotha_key()))
        .collect();
    let mut checked = 0;
    let rounds: Vec<u32> = {
        let mut r: Vec<u32> = rows.iter().map(|r| r.0).collect();
        r.dedup();
        r
    };
    for round in rounds {
        let want: Vec<&GoldenRow> = rows.iter().filter(|r| r.0 == round).collect();
        // Asked by name, as OpenGotha spells them (SOSW-1) or ours, to exercise both.
        let v = c
            .ok(
                "tournament.standings",
                vec![json!(id), json!(round), json!(crits)],
            )
            .await;
        let got = v["rows"].as_array().expect("rows");
        if got.len() != want.len() {
            failures.push(format!(
                "{name} R{round}: {} rows, OpenGotha {}",
                got.len(),
                want.len()
            ));
            continue;
        }
        for (pos, (g, w)) in got.iter().zip(&want).enumerate() {
            let key = &key_of[&g["player_id"].as_u64().unwrap()];
            let place = if pos > 0 && got[pos - 1]["place"] == g["place"] {
                String::new()
            } else {
                g["place"].to_string()
            };
            if key != &w.1 || place != w.2 {
                failures.push(format!(
                    "{name} R{round} pos {}: ours {key} place {place:?}, OpenGotha {} {:?}",
                    pos + 1,
                    w.1,
                    w.2
                ));
            }
            for cname in &crits {
                let crit = Crit::parse(cname).unwrap();
                let want = display_value(crit, w.3[cname]);
                let got = g["values"][cname].as_f64();
                checked += 1;
                if got != Some(want) {
                    failures.push(format!(
                        "{name} R{round} {key} {cname}: ours {got:?}, OpenGotha {want}"
                    ));
                }
            }
        }
    }
    checked
}

/// The golden h9's cells per line (the last `rounds` fields of each player line).
fn h9_cells(name: &str, rounds: usize) -> Vec<(String, Vec<String>)> {
    let f = data().join(format!("golden/{name}.h9"));
    let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    // ISO-8859-15 bytes, one character each: the cells are ASCII, the names are compared
    // as bytes (check_crosstable encodes ours the same way).
    let text: String = bytes.iter().map(|&b| b as char).collect();
    text.lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
        .map(|l| {
            // Characters, not bytes: a Latin-9 byte above 0x7F is two bytes here.
            let name: String = l.chars().skip(5).take(30).collect();
            let name = name.trim_end().to_string();
            let f: Vec<&str> = l.split_whitespace().collect();
            let cells = f[f.len() - rounds..]
                .iter()
                .map(|s| s.to_string())
                .collect();
            (name, cells)
        })
        .collect()
}

async fn check_crosstable(
    c: &Client,
    id: i64,
    name: &str,
    t: &TournamentData,
    failures: &mut Vec<String>,
) -> bool {
    // Comparable only where OpenGotha's table lists every player (it leaves out players with
    // no game) and every colour is known (round.set_games has no unknown colour).
    let rounds = t.settings.rounds as usize;
    let all_implied = t.players.iter().all(|p| {
        t.rounds
            .iter()
            .any(|r| r.byes.contains(&p.id) || r.games.iter().any(|g| g.has(p.id)))
    });
    let known = t
        .rounds
        .iter()
        .all(|r| r.games.iter().all(|g| g.known_colour));
    if !all_implied || !known {
        return false;
    }
    let v = c
        .ok("tournament.crosstable", vec![json!(id), json!(rounds)])
        .await;
    let want = h9_cells(name, rounds);
    let got = v["rows"].as_array().expect("rows");
    assert_eq!(got.len(), want.len(), "{name}: crosstable rows");
    for (g, (wname, wcells)) in got.iter().zip(&want) {
        let gname = format!(
            "{} {}",
            g["name"].as_str().unwrap().replace(' ', "_"),
            g["first_name"].as_str().unwrap().replace(' ', "_")
        );
        // The name as OpenGotha's file has it: ISO-8859-15 bytes (`?` for what it lacks),
        // read back byte by byte as h9_cells reads them, 30 characters.
        let (latin9, _) = goswiss::tournament::formats::egf::to_latin9(&gname, true);
        let gname: String = goswiss::tournament::formats::egf::encode_latin9(&latin9)
            .iter()
            .map(|&b| b as char)
            .take(30)
            .collect::<String>()
            .trim_end()
            .to_string();
        // A short-format tournament's table has only opponent and result (`26+`); the
        // crosstable's text is the full cell.
        let short = wcells.iter().all(|c| !c.contains(['/', '!']));
        let cells: Vec<String> = g["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let t = c["text"].as_str().unwrap();
                match t.find(['/', '!']) {
                    Some(k) if short => t[..k].to_string(),
                    _ => t.to_string(),
                }
            })
            .collect();
        if &gname != wname || &cells != wcells {
            failures.push(format!(
                "{name}: ours {gname} {cells:?}, OpenGotha {wname} {wcells:?}"
            ));
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standings_and_crosstable_over_both_protocols_match_opengotha() {
    let server = Server::start().await;
    let xml = Client::new(&server, Proto::Xml);
    let js = Client::new(&server, Proto::Json);
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut crosstables = 0;
    for (k, name) in golden_names().iter().enumerate() {
        let t = load(name);
        // Built over one protocol, read over both.
        let builder = if k % 2 == 0 { &js } else { &xml };
        let id = build(builder, &t).await;
        for c in [&js, &xml] {
            checked += check_standings(c, id, name, &t, &mut failures).await;
        }
        if check_crosstable(&xml, id, name, &t, &mut failures).await {
            crosstables += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences (of {checked} values):\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(checked > 2_000, "only {checked} values checked");
    assert!(crosstables >= 2, "only {crosstables} crosstables compared");
    server.stop().await;
}

#[tokio::test]
async fn bad_rounds_and_criteria_get_clear_errors() {
    let server = Server::start().await;
    for proto in [Proto::Json, Proto::Xml] {
        let c = Client::new(&server, proto);
        let id = c.ok("tournament.create", vec![json!({"rounds": 4})]).await["id"].clone();
        let e = c
            .call("tournament.standings", vec![id.clone(), json!(5)])
            .await
            .unwrap_err();
        assert_eq!(e.0, 1040, "{e:?}");
        assert!(e.1.contains("0 … 4"), "{e:?}");
        let e = c
            .call("tournament.crosstable", vec![id.clone(), json!(9)])
            .await
            .unwrap_err();
        assert_eq!(e.0, 1040, "{e:?}");
        let e = c
            .call(
                "tournament.standings",
                vec![id.clone(), json!(1), json!(["MMS", "SOSX"])],
            )
            .await
            .unwrap_err();
        assert_eq!(e.0, 1041, "{e:?}");
        assert!(
            e.1.contains("SOSX") && e.1.contains("SOSOSM"),
            "the message lists the valid names: {e:?}"
        );
        let e = c
            .call("tournament.standings", vec![json!(987654)])
            .await
            .unwrap_err();
        assert_eq!(e.0, 1001, "{e:?}");
        let e = c
            .call("tournament.standings", vec![id.clone(), json!("two")])
            .await
            .unwrap_err();
        assert_eq!(e.0, -32602, "{e:?}");
        // An empty tournament has empty standings after round 0.
        let v = c.ok("tournament.standings", vec![id.clone()]).await;
        assert_eq!(v["after_round"], json!(0));
        assert_eq!(v["criteria"], json!(["MMS", "SOSM", "SOSOSM"]));
        assert_eq!(v["rows"], json!([]));
    }
    server.stop().await;
}

/// Decodes the golden ISO-8859-15 file the way `tournament.export` gives its text.
fn latin9(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0xA4 => '€',
            0xBD => 'œ',
            b => b as char,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_over_both_protocols() {
    let server = Server::start().await;
    // OpenGotha's re-save carries the dates, place and komi OpenGotha exported with; the
    // time system stays the daemon's default here, so TM/CM/CL are compared as the default's.
    for (name, proto) in [("simplemm", Proto::Json), ("notsosimpleswiss", Proto::Xml)] {
        let c = Client::new(&server, proto);
        let path = data().join(format!("golden/{name}.resave.xml"));
        let xml =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut t = opengotha_xml::read(&xml).unwrap();
        t.settings.komi2 = 15;
        t.settings.time.basic_minutes = 60;
        t.settings.time.overtime = goswiss::tournament::model::Overtime::Canadian {
            stones: 15,
            seconds: 300,
        };
        let id = build(&c, &t).await;
        let golden = data().join(format!("golden/{name}.h9"));
        let want =
            latin9(&std::fs::read(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display())));
        // OpenGotha's exact bytes (the default writes halves and names the EGD way).
        let v = c
            .ok(
                "tournament.export",
                vec![json!(id), json!("h9"), json!({"opengotha_exact": true})],
            )
            .await;
        assert_eq!(v["encoding"], json!("ISO-8859-15"));
        assert!(v["file_name"].as_str().unwrap().ends_with(".h9"), "{v}");
        let got = v["text"].as_str().unwrap();
        // Equal but for the generator's name.
        let strip = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| !l.starts_with("; Generated by"))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(strip(got), strip(&want), "{name} over {proto:?}");
        assert!(got.contains("; Generated by goswiss"));

        let v = c
            .ok("tournament.export", vec![json!(id), json!("csv"), json!(2)])
            .await;
        assert_eq!(v["encoding"], json!("UTF-8"));
        let csv = v["text"].as_str().unwrap();
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert!(
            lines[0]
                .starts_with("position,place,name,first_name,rank,rating,country,club,egf_pin,")
        );
        assert!(lines[0].ends_with(",R1,R2"), "{}", lines[0]);
        // One line per registered player, then the final CRLF.
        assert_eq!(lines.len(), t.players.len() + 2);
        let st = c
            .ok("tournament.standings", vec![json!(id), json!(2)])
            .await;
        let first = &st["rows"][0];
        let fields: Vec<&str> = lines[1].split(',').collect();
        assert_eq!(fields[2], first["name"].as_str().unwrap());
        let crit0 = st["criteria"][0].as_str().unwrap();
        assert_eq!(
            fields[9].parse::<f64>().unwrap(),
            first["values"][crit0].as_f64().unwrap()
        );

        let e = c
            .call("tournament.export", vec![json!(id), json!("tou")])
            .await
            .unwrap_err();
        assert_eq!(e.0, 1042, "{e:?}");
        assert!(e.1.contains("h9, h9_nobydef, csv"), "{e:?}");
        let e = c
            .call("tournament.export", vec![json!(id), json!("h9"), json!(99)])
            .await
            .unwrap_err();
        assert_eq!(e.0, 1040, "{e:?}");
    }
    server.stop().await;
}
