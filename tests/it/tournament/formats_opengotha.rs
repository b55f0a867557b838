//! OpenGotha XML write and round trip: every tournament file we keep reads back unchanged
//! after our write, and our write of each file equals OpenGotha 3.51's own re-save of it
//! (`golden/*.resave.xml`, made by its jar) element by element, attribute by attribute.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use goswiss::tournament::formats::opengotha_xml::{self, WriteOptions};
use quick_xml::Reader;
use quick_xml::events::Event;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/opengotha")
}

fn read_text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("missing test data {}: {e}", p.display()))
}

fn xml_files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("missing test data directory {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

fn opts() -> WriteOptions {
    WriteOptions {
        save_dt: "20260315180000".into(),
    }
}

#[test]
fn read_write_read_keeps_everything() {
    let d = data_dir();
    let mut files = xml_files(&d, ".xml");
    files.extend(xml_files(&d.join("synthetic"), ".xml"));
    files.extend(xml_files(&d.join("golden"), ".resave.xml"));
    assert!(
        files.len() >= 15,
        "expected the OpenGotha files, found {files:?}"
    );
    for f in files {
        let a =
            opengotha_xml::read(&read_text(&f)).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(!a.players.is_empty(), "{}: no players read", f.display());
        let text = opengotha_xml::write(&a, &opts());
        let b = opengotha_xml::read(&text)
            .unwrap_or_else(|e| panic!("{}: our write does not read back: {e}", f.display()));
        // Dates OpenGotha leaves to "today" are filled in by the write; everything else
        // (players, games, results, byes, every parameter) must be equal.
        let mut a2 = a.clone();
        if a2.settings.begin_date.is_empty() {
            a2.settings.begin_date = "2026-03-15".into();
        }
        if a2.settings.end_date.is_empty() {
            a2.settings.end_date = "2026-03-15".into();
        }
        assert_eq!(
            a2,
            b,
            "{}: read → write → read changed the tournament",
            f.display()
        );
        // And a second write is byte-identical (a fixed point).
        assert_eq!(text, opengotha_xml::write(&b, &opts()), "{}", f.display());
    }
}

/// One XML document as a map from an element's identity (its path, with the key attributes
/// of repeated elements) to its attributes.
type Flat = BTreeMap<String, BTreeMap<String, String>>;

fn flatten(xml: &str) -> Flat {
    let mut r = Reader::from_str(xml);
    let mut stack: Vec<String> = Vec::new();
    let mut out = Flat::new();
    loop {
        let ev = r.read_event().expect("well-formed XML");
        let (e, empty) = match &ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = e.name().as_ref().to_string();
        let mut attrs = BTreeMap::new();
        for a in e.attributes() {
            let a = a.expect("attribute");
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .expect("attribute value")
                .into_owned();
            attrs.insert(a.key.as_ref().to_string(), v);
        }
        let g = |k: &str| attrs.get(k).cloned().unwrap_or_default();
        let id = match name.as_str() {
            "Player" => format!("Player[{}{}]", g("name"), g("firstName")),
            "Game" => format!("Game[r{} t{}]", g("roundNumber"), g("tableNumber")),
            "ByePlayer" => format!("ByePlayer[r{} {}]", g("roundNumber"), g("player")),
            "PlacementCriterion" | "Category" => format!("{name}[{}]", g("number")),
            "Team" => format!("Team[{}]", g("teamNumber")),
            "Board" => format!("Board[r{} b{}]", g("roundNumber"), g("boardNumber")),
            "ClubsGroup" | "Club" => format!("{name}[{}]", g("name")),
            _ => name.clone(),
        };
        stack.push(id);
        let path = stack.join("/");
        assert!(
            out.insert(path.clone(), attrs).is_none(),
            "element {path} appears twice"
        );
        if empty {
            stack.pop();
        }
    }
    out
}

/// Root attributes that differ by nature: when and where the file was saved, by which
/// program, and our `dataVersion` (OpenGotha 3.51 omits it, and then reads its own file as
/// holding old FFG-scale ratings).
const BY_NATURE: &[&str] = &[
    "saveDT",
    "externalIPAddress",
    "fullVersionNumber",
    "runningMode",
    "dataVersion",
];

#[test]
fn our_write_equals_opengotha_resave_element_by_element() {
    let d = data_dir();
    let golden = xml_files(&d.join("golden"), ".resave.xml");
    assert!(
        golden.len() >= 10,
        "expected golden re-saves, found {golden:?}"
    );
    for g in golden {
        let stem = g
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".resave.xml"))
            .expect("golden name");
        let input = [
            d.join(format!("{stem}.xml")),
            d.join("synthetic").join(format!("{stem}.xml")),
        ]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no input file for {}", g.display()));
        let resave_text = read_text(&g);
        let theirs = flatten(&resave_text);
        // OpenGotha dates a tournament without dates on the day it saves; give our write the
        // same moment.
        let save_dt = theirs["Tournament"]["saveDT"].clone();
        let t = opengotha_xml::read(&read_text(&input)).expect("input reads");
        let mut ours = flatten(&opengotha_xml::write(&t, &WriteOptions { save_dt }));
        // A file without dataVersion is "old" to OpenGotha, which then looks the players of
        // its games up by their obsolete canonical names and silently drops the games it
        // cannot match (16 of Toulouse's 55). We keep every game; the games OpenGotha
        // dropped are set aside here, and everything it kept must be equal.
        if !read_text(&input).contains("dataVersion=") {
            let set_aside: Vec<String> = ours
                .keys()
                .filter(|k| !theirs.contains_key(*k))
                .cloned()
                .collect();
            for k in &set_aside {
                assert!(
                    k.starts_with("Tournament/Games/Game["),
                    "{stem}: {k} is missing from OpenGotha's re-save"
                );
            }
            assert!(!set_aside.is_empty(), "{stem}: expected games to set aside");
            for k in set_aside {
                ours.remove(&k);
            }
        }
        let keys_o: Vec<&String> = ours.keys().collect();
        let keys_t: Vec<&String> = theirs.keys().collect();
        assert_eq!(keys_o, keys_t, "{stem}: elements differ");
        let mut compared = 0;
        for (path, a) in &theirs {
            let b = &ours[path];
            let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for n in names {
                if path == "Tournament" && BY_NATURE.contains(&n.as_str()) {
                    continue;
                }
                assert_eq!(
                    b.get(n),
                    a.get(n),
                    "{stem}: {path} @{n}: ours vs OpenGotha's"
                );
                compared += 1;
            }
        }
        assert!(
            compared > 100,
            "{stem}: only {compared} attributes compared"
        );
    }
}

#[test]
fn bad_files_get_clear_errors() {
    let e = opengotha_xml::read("<Players/>").unwrap_err().to_string();
    assert!(e.contains("no <Tournament>"), "{e}");
    // A rank text is read as OpenGotha reads it (`99Q` is its 99K, clamped to 30K), never
    // refused: see opengotha_ranks_are_read_as_opengotha_reads_them.
    let odd_rank = r#"<Tournament><Players><Player name="A" firstName="B" rank="99Q"/></Players></Tournament>"#;
    let t = opengotha_xml::read(odd_rank).expect("OpenGotha reads 99Q as 30K");
    assert_eq!(t.players[0].rank, -30);
    let unknown = r#"<Tournament><Players><Player name="A" firstName="B" rank="1D"/></Players>
        <Games><Game roundNumber="1" tableNumber="1" whitePlayer="AB" blackPlayer="CD"/></Games></Tournament>"#;
    let e = opengotha_xml::read(unknown).unwrap_err().to_string();
    assert!(e.contains("round 1 table 1") && e.contains("CD"), "{e}");
    let dup = r#"<Tournament dataVersion="201"><Players><Player name="A" firstName="B"/><Player name="A " firstName="B"/></Players></Tournament>"#;
    let e = opengotha_xml::read(dup).unwrap_err().to_string();
    assert!(e.contains("two players") && e.contains("AB"), "{e}");
    let e = opengotha_xml::read("<Tournament><Players>")
        .unwrap_err()
        .to_string();
    assert!(!e.is_empty());
}

#[test]
fn old_files_get_opengotha_rating_shift() {
    // A file without dataVersion is read as OpenGotha reads it: FFG-scale ratings + 2050,
    // clamped to 2949; our own files carry dataVersion 201 and keep their ratings.
    let old = r#"<Tournament><Players><Player name="A" firstName="B" rank="1D" rating="100"/><Player name="C" firstName="D" rank="1D" rating="2100"/></Players></Tournament>"#;
    let t = opengotha_xml::read(old).expect("reads");
    assert_eq!(t.players[0].rating, 2150);
    assert_eq!(t.players[1].rating, 2949);
    let back = opengotha_xml::read(&opengotha_xml::write(&t, &opts())).expect("reads");
    assert_eq!(back.players[0].rating, 2150);
}

#[test]
fn opengotha_ranks_are_read_as_opengotha_reads_them() {
    // golden/ranks.tsv: OpenGotha 3.51's Player.convertKDPToInt of each text (−99: no rank,
    // which OpenGotha writes back as 99K and so reads as 30K).
    let tsv = read_text(&data_dir().join("golden/ranks.tsv"));
    let mut n = 0;
    for line in tsv.lines().filter(|l| !l.starts_with('#')) {
        let (text, want) = line.rsplit_once('\t').expect("text<TAB>rank");
        let want: i32 = want.parse().expect("a number");
        let got = opengotha_xml::opengotha_rank(text);
        let want = (want != -99).then_some(want);
        assert_eq!(got, want, "{text:?}");
        // In a file: the rank as OpenGotha has it, 30K where it has none.
        let xml = format!(
            r#"<Tournament dataVersion="201"><Players><Player name="A" firstName="B" rank="{}" rating="1000"/></Players></Tournament>"#,
            text.replace('&', "&amp;").replace('"', "&quot;")
        );
        if let Ok(t) = opengotha_xml::read(&xml) {
            assert_eq!(t.players[0].rank, want.unwrap_or(-30), "{text:?} in a file");
        } else {
            // Only texts XML cannot carry as they are (attribute values lose tabs and ends
            // of line) may fail here.
            assert!(text.contains(['\t', '\r', '\n']), "{text:?} refused");
        }
        n += 1;
    }
    assert!(n >= 50, "only {n} ranks");
    // Real saves contain 99K: read as 30K, never refused.
    let xml = r#"<Tournament><Players><Player name="A" firstName="B" rank="99K" grade="99K"/></Players></Tournament>"#;
    assert_eq!(
        opengotha_xml::read(xml).expect("reads").players[0].rank,
        -30
    );
}

#[test]
fn game_format_time_control_and_published_rounds_survive_our_round_trip() {
    use goswiss::tournament::model::{GameFormat, Overtime};
    let short = read_text(&data_dir().join("synthetic/synth_short.xml"));
    let mut t = opengotha_xml::read(&short).expect("reads");
    assert_eq!(t.settings.game_format, Some(GameFormat::Short));
    let out = opengotha_xml::write(&t, &opts());
    assert!(out.contains(r#"gameFormat="short""#), "{out}");
    let back = opengotha_xml::read(&out).expect("reads");
    assert_eq!(back.settings.game_format, Some(GameFormat::Short));
    // A file without a display set is OpenGotha's default, full.
    let plain = opengotha_xml::read("<Tournament/>").expect("reads");
    assert_eq!(plain.settings.game_format, Some(GameFormat::Full));
    // A tournament made here with the setting writes it.
    let mut own = plain.clone();
    own.settings.extra.clear();
    own.settings.game_format = Some(GameFormat::Short);
    let again = opengotha_xml::read(&opengotha_xml::write(&own, &opts())).expect("reads");
    assert_eq!(again.settings.game_format, Some(GameFormat::Short));

    // Byo-yomi periods, the time text, rules, handicap komi, the venue's country and the
    // published rounds, which OpenGotha's sets cannot hold.
    t.settings.time.overtime = Overtime::Byoyomi {
        seconds: 30,
        periods: 5,
    };
    t.settings.time.text = "60 min + 5×30 s".into();
    t.settings.country = "NL".into();
    t.settings.handicap_komi2 = 1;
    t.rounds[0].published = true;
    t.rounds[2].published = true;
    let out = opengotha_xml::write(&t, &opts());
    let back = opengotha_xml::read(&out).expect("reads");
    assert_eq!(back.settings.time, t.settings.time);
    assert_eq!(back.settings.country, "NL");
    assert_eq!(back.settings.handicap_komi2, 1);
    let published: Vec<bool> = back.rounds.iter().map(|r| r.published).collect();
    assert_eq!(published, [true, false, true, false, false]);
    assert_eq!(back, t, "everything else too");
    // OpenGotha's own files get no goswiss element: a file read and written stays OpenGotha's.
    let plain_out = opengotha_xml::write(&opengotha_xml::read(&short).expect("reads"), &opts());
    assert!(!plain_out.contains("Goswiss"), "{plain_out}");
}

#[test]
fn numbers_out_of_range_are_refused_never_wrapped() {
    let big = (1u64 << 32) + 3;
    for (what, xml) in [
        (
            "numberOfRounds",
            format!(
                r#"<Tournament><TournamentParameterSet><GeneralParameterSet numberOfRounds="{big}"/></TournamentParameterSet></Tournament>"#
            ),
        ),
        (
            "size",
            format!(
                r#"<Tournament><TournamentParameterSet><GeneralParameterSet size="{big}"/></TournamentParameterSet></Tournament>"#
            ),
        ),
        (
            "roundNumber",
            format!(
                r#"<Tournament dataVersion="201"><Players><Player name="A" firstName="B" rank="1D"/><Player name="C" firstName="D" rank="1D"/></Players><Games><Game roundNumber="{big}" tableNumber="1" whitePlayer="AB" blackPlayer="CD" result="RESULT_WHITEWINS"/></Games></Tournament>"#
            ),
        ),
        (
            "tableNumber",
            format!(
                r#"<Tournament dataVersion="201"><Players><Player name="A" firstName="B" rank="1D"/><Player name="C" firstName="D" rank="1D"/></Players><Games><Game roundNumber="1" tableNumber="{big}" whitePlayer="AB" blackPlayer="CD" result="RESULT_WHITEWINS"/></Games></Tournament>"#
            ),
        ),
        (
            "roundNumber",
            format!(
                r#"<Tournament dataVersion="201"><Players><Player name="A" firstName="B" rank="1D"/></Players><ByePlayers><ByePlayer roundNumber="{big}" player="AB"/></ByePlayers></Tournament>"#
            ),
        ),
    ] {
        let e = opengotha_xml::read(&xml).expect_err(what).to_string();
        assert!(
            e.contains(what) && e.contains("out of range"),
            "{what}: {e}"
        );
    }
}
