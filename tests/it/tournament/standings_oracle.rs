//! Every criterion of every player after every round, and the placement order, against
//! OpenGotha 3.51's own values (tests/data/opengotha/golden, made by the oracle harness in
//! tests/data/opengotha/oracle).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use goswiss::pairing::opengotha::Crit;
use goswiss::tournament::formats::opengotha_xml;
use goswiss::tournament::model::{Criterion, TournamentData};
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
    load_path(&p)
}

fn load_path(p: &Path) -> TournamentData {
    let xml = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    opengotha_xml::read(&xml).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Criteria checked one for one from [`scores`] (DC and SDC depend on the placement criteria:
/// they are checked from [`standings`] for each variant).
const CHECKED: &[&str] = &[
    "CAT", "RANK", "RATING", "NBW", "MMS", "STS", "CPS", "SOSW", "SOSWM1", "SOSWM2", "SODOSW",
    "SOSOSW", "CUSSW", "SOSM", "SOSMM1", "SOSMM2", "SODOSM", "SOSOSM", "CUSSM", "SOSTS", "EXT",
    "EXR",
];

/// One golden line: variant, round, key, printed place, and the values by criterion name.
struct Line {
    variant: String,
    round: u32,
    key: String,
    place: String,
    values: Vec<(String, i64)>,
}

fn parse(text: &str) -> (HashMap<String, Vec<Criterion>>, Vec<Line>) {
    let mut variants = HashMap::new();
    let mut header: Vec<String> = Vec::new();
    let mut lines = Vec::new();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("# variant ") {
            let (name, crits) = v.split_once(':').expect("variant header");
            let crits: Vec<Criterion> = crits
                .split_whitespace()
                .map(|c| Criterion(Crit::parse(c).unwrap_or_else(|| panic!("criterion {c}"))))
                .filter(|c| c.0 != Crit::Nul)
                .collect();
            variants.insert(name.trim().to_string(), crits);
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols[0] == "variant" {
            header = cols.iter().map(|s| s.to_string()).collect();
            continue;
        }
        lines.push(Line {
            variant: cols[0].to_string(),
            round: cols[1].parse().unwrap(),
            key: cols[4].to_string(),
            place: cols[3].to_string(),
            values: header
                .iter()
                .zip(&cols)
                .skip(5)
                .map(|(h, v)| (h.clone(), v.parse().unwrap()))
                .collect(),
        });
    }
    (variants, lines)
}

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
    let mut dir_checked = 0usize;
    let mut orders = 0usize;
    let mut failures = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".criteria.tsv", "");
        // This file has no dataVersion attribute, so OpenGotha's importer takes it for an old
        // file: it adds 2050 to every rating (then clamps to −900…2949) and finds the
        // players of games and byes by their obsolete canonical name (letters A–Z only), so
        // the 16 games of players whose key holds another character ('-', digits, …) are
        // dropped. Our reader keeps the file as written; the tournament OpenGotha computed on
        // is its re-save by the same harness run, which is compared instead.
        let t = if name == "toulouse2024_R1-3" {
            let original = load(&name);
            // The re-save holds the ratings OpenGotha computed with (already shifted) but,
            // like its source, no dataVersion: read as it stands it would be shifted a
            // second time. Marked current, it is read as the state OpenGotha saved.
            let path = golden.join(format!("{name}.resave.xml"));
            let xml = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .replacen("<Tournament ", "<Tournament dataVersion=\"201\" ", 1);
            let resaved =
                opengotha_xml::read(&xml).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let games = |t: &TournamentData| t.rounds.iter().map(|r| r.games.len()).sum::<usize>();
            assert_eq!((games(&original), games(&resaved)), (55, 39), "{name}");
            resaved
        } else {
            load(&name)
        };
        let text = std::fs::read_to_string(f).unwrap();
        let (variants, lines) = parse(&text);
        let id_of: HashMap<String, u32> = t
            .players
            .iter()
            .map(|p| (p.opengotha_key(), p.id))
            .collect();
        let mut k = 0;
        while k < lines.len() {
            let (variant, round) = (lines[k].variant.clone(), lines[k].round);
            let mut end = k;
            while end < lines.len() && lines[end].variant == variant && lines[end].round == round {
                end += 1;
            }
            let block = &lines[k..end];
            k = end;
            let crits = &variants[&variant];
            let st = standings(&t, round, crits);
            let sc = scores(&t, round);
            orders += 1;
            for (pos, l) in block.iter().enumerate() {
                let id = *id_of
                    .get(&l.key)
                    .unwrap_or_else(|| panic!("{name}: no player {}", l.key));
                let row = &st.rows[pos];
                let p = t.player(row.id).unwrap();
                let ours_place = if row.tied_with_previous {
                    String::new()
                } else {
                    row.place.to_string()
                };
                if p.opengotha_key() != l.key || ours_place != l.place {
                    failures.push(format!(
                        "{name} {variant} R{round} pos {}: ours {} place {ours_place:?}, OpenGotha {} place {:?}",
                        pos + 1,
                        p.opengotha_key(),
                        l.key,
                        l.place
                    ));
                }
                let ours_row = st.rows.iter().find(|r| r.id == id).unwrap();
                for (h, want) in &l.values {
                    let got = match h.as_str() {
                        "DC" => ours_row.dc,
                        "SDC" => ours_row.sdc,
                        h if CHECKED.contains(&h) && variant == "T" => {
                            sc.value(id, Crit::parse(h).unwrap()).unwrap()
                        }
                        _ => continue,
                    };
                    if h == "DC" || h == "SDC" {
                        dir_checked += 1;
                    } else {
                        checked += 1;
                    }
                    if got != *want {
                        failures.push(format!(
                            "{name} {variant} R{round} {} {h}: ours {got}, OpenGotha {want}",
                            l.key
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} values or places differ:\n{}",
        failures.len(),
        checked + dir_checked,
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(checked > 10_000, "only {checked} values checked");
    assert!(
        dir_checked > 1_000,
        "only {dir_checked} DC/SDC values checked"
    );
    assert!(orders > 100, "only {orders} orders checked");
}
