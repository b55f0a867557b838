//! Every criterion of every player after every round, and the placement order, against
//! OpenGotha 3.51's own values (tests/data/opengotha/golden, made by the oracle harness in
//! tests/data/opengotha/oracle).

use std::path::{Path, PathBuf};

use goswiss::pairing::opengotha::Crit;
use goswiss::tournament::formats::opengotha_xml;
use goswiss::tournament::model::TournamentData;
use goswiss::tournament::standings::{scores, standings};

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
    let xml = std::fs::read_to_string(&p).unwrap();
    opengotha_xml::read(&xml).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Criteria checked one for one (DC and SDC are not computed yet).
const CHECKED: &[&str] = &[
    "CAT", "RANK", "RATING", "NBW", "MMS", "STS", "CPS", "SOSW", "SOSWM1", "SOSWM2", "SODOSW",
    "SOSOSW", "CUSSW", "SOSM", "SOSMM1", "SOSMM2", "SODOSM", "SOSOSM", "CUSSM", "SOSTS", "EXT",
    "EXR",
];

#[test]
fn every_criterion_of_every_player_of_every_round_matches_opengotha() {
    let golden = data().join("golden");
    let mut files: Vec<_> = std::fs::read_dir(&golden)
        .unwrap_or_else(|e| panic!("{}: {e}", golden.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".criteria.tsv"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "golden dumps missing in {}",
        golden.display()
    );
    let mut checked = 0usize;
    let mut failures = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".criteria.tsv", "");
        // OpenGotha's importer drops 16 of this file's 55 games and rescales its ratings
        // (no dataVersion attribute); our reader keeps them. Not compared until the reader
        // reproduces those importer rules.
        if name == "toulouse2024_R1-3" {
            continue;
        }
        let t = load(&name);
        let text = std::fs::read_to_string(f).unwrap();
        let mut header: Vec<&str> = Vec::new();
        let mut own_has_dir = false;
        let mut last_round = 0;
        let mut sc = None;
        let mut order: Vec<(u32, String, String)> = Vec::new();
        let flush = |round: u32,
                     order: &mut Vec<(u32, String, String)>,
                     failures: &mut Vec<String>,
                     skip: bool| {
            if order.is_empty() || skip {
                order.clear();
                return;
            }
            let st = standings(&t, round, &t.settings.placement);
            for (pos, (_, key, place)) in order.iter().enumerate() {
                let row = &st.rows[pos];
                let p = t.player(row.id).unwrap();
                let ours_place = if row.tied_with_previous {
                    String::new()
                } else {
                    row.place.to_string()
                };
                if &p.opengotha_key() != key || &ours_place != place {
                    failures.push(format!(
                        "{name} R{round} pos {}: ours {} place {ours_place:?}, OpenGotha {key} place {place:?}",
                        pos + 1,
                        p.opengotha_key()
                    ));
                }
            }
            order.clear();
        };
        for line in text.lines() {
            if let Some(v) = line.strip_prefix("# variant T:") {
                own_has_dir = v.contains("DC");
                continue;
            }
            if line.starts_with('#') {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            if cols[0] == "variant" {
                header = cols;
                continue;
            }
            if cols[0] != "T" {
                continue;
            }
            let round: u32 = cols[1].parse().unwrap();
            if round != last_round {
                flush(last_round, &mut order, &mut failures, own_has_dir);
                sc = Some(scores(&t, round));
                last_round = round;
            }
            let key = cols[4];
            let id = t
                .players
                .iter()
                .find(|p| p.opengotha_key() == key)
                .unwrap_or_else(|| panic!("{name}: no player {key}"))
                .id;
            order.push((round, key.to_string(), cols[3].to_string()));
            for (h, v) in header.iter().zip(&cols).skip(5) {
                if !CHECKED.contains(h) {
                    continue;
                }
                let c = Crit::parse(h).unwrap();
                let want: i64 = v.parse().unwrap();
                let got = sc.as_ref().unwrap().value(id, c).unwrap();
                checked += 1;
                if got != want {
                    failures.push(format!(
                        "{name} R{round} {key} {h}: ours {got}, OpenGotha {want}"
                    ));
                }
            }
        }
        flush(last_round, &mut order, &mut failures, own_has_dir);
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} values differ:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(checked > 10_000, "only {checked} values checked");
}
