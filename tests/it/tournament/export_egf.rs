//! The EGF table (`.h9`) against OpenGotha 3.51's own exports, byte for byte: every golden
//! tournament of tests/data/opengotha/golden, with and without results by default.
//!
//! Input: OpenGotha's re-save of each tournament (`<name>.resave.xml`, written by the same
//! harness run as the `.h9`), so the tournament is exactly the one OpenGotha exported: for the
//! files without dates OpenGotha's `DT[...]` carries the day of the run, and its re-save
//! carries the same dates. The synthetic tournaments (which have every attribute) are also
//! read from their original files and compared byte for byte.

use std::path::{Path, PathBuf};

use goswiss::tournament::formats::egf::{H9Options, h9, h9_file};
use goswiss::tournament::formats::opengotha_xml;
use goswiss::tournament::model::{GameFormat, Overtime, TournamentData};
use quick_xml::events::Event;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/opengotha")
}

/// The time system and komi of OpenGotha's `GeneralParameterSet`, which the XML reader does
/// not take over (yet): the export needs them for `KM`, `TM`, `CM` and the class.
fn time_and_komi(xml: &str, t: &mut TournamentData) {
    let mut r = quick_xml::Reader::from_str(xml);
    loop {
        match r.read_event().expect("xml") {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == "GeneralParameterSet" => {
                let get = |k: &str| -> Option<String> {
                    e.attributes()
                        .flatten()
                        .find_map(|a| (a.key.as_ref() == k).then(|| a.value.to_string()))
                };
                let num = |k: &str| get(k).and_then(|v| v.parse::<u32>().ok());
                let s = &mut t.settings;
                if let Some(k) = get("komi") {
                    let k: f64 = k.parse().expect("komi");
                    s.komi2 = (k * 2.0).round() as i32;
                }
                if let Some(b) = num("basicTime") {
                    s.time.basic_minutes = b;
                }
                s.time.overtime = match get("complementaryTimeSystem").as_deref() {
                    Some("SUDDENDEATH") => Overtime::SuddenDeath,
                    Some("CANBYOYOMI") => Overtime::Canadian {
                        stones: num("nbMovesCanTime").unwrap_or(15),
                        seconds: num("canByoYomiTime").unwrap_or(300),
                    },
                    Some("FISCHER") => Overtime::Fischer {
                        increment: num("fischerTime").unwrap_or(10),
                    },
                    _ => Overtime::Byoyomi {
                        seconds: num("stdByoYomiTime").unwrap_or(30),
                        periods: 5,
                    },
                };
            }
            _ => {}
        }
    }
}

fn load(path: &Path) -> TournamentData {
    let xml = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut t = opengotha_xml::read(&xml).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    time_and_komi(&xml, &mut t);
    t
}

fn opengotha_options(keep: bool) -> H9Options {
    H9Options {
        keep_by_default: keep,
        generator: "OpenGotha 3.51.02".into(),
        after_round: None,
        opengotha_exact: true,
    }
}

/// The first differing line, for a readable failure.
fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let a: Vec<&[u8]> = ours.split(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = theirs.split(|&b| b == b'\n').collect();
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            return format!(
                "line {}:\n  ours:     {:?}\n  OpenGotha {:?}",
                i + 1,
                String::from_utf8_lossy(x),
                String::from_utf8_lossy(y)
            );
        }
    }
    format!("{} lines, OpenGotha {}", a.len(), b.len())
}

fn compare(name: &str, source: &Path, failures: &mut Vec<String>) -> usize {
    let t = load(source);
    let label = source.file_name().unwrap().to_string_lossy().into_owned();
    compare_data(name, &label, &t, failures)
}

fn compare_data(name: &str, label: &str, t: &TournamentData, failures: &mut Vec<String>) -> usize {
    let mut n = 0;
    for (keep, suffix) in [(true, "h9"), (false, "nobydef.h9")] {
        let golden = data().join(format!("golden/{name}.{suffix}"));
        let want = std::fs::read(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        let got = h9(t, &opengotha_options(keep));
        n += 1;
        if got != want {
            failures.push(format!(
                "{name}.{suffix} from {label}: {}",
                first_difference(&got, &want)
            ));
        }
    }
    n
}

#[test]
fn h9_exports_equal_opengothas_byte_for_byte() {
    let golden = data().join("golden");
    let mut names: Vec<String> = std::fs::read_dir(&golden)
        .unwrap_or_else(|e| panic!("{}: {e}", golden.display()))
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".resave.xml").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 10,
        "golden files missing in {}",
        golden.display()
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for name in &names {
        compared += compare(
            name,
            &golden.join(format!("{name}.resave.xml")),
            &mut failures,
        );
        let synthetic = data().join(format!("synthetic/{name}.xml"));
        if synthetic.exists() {
            // OpenGotha's XML importer reads the colour flag from an attribute its writer never
            // writes (`strKnownColor`), so every game it loads has known colours; the synthetic
            // files' `knownColor="false"` games are exported with their colours. Ours keeps
            // the flag and writes `?`: checked here, then compared as OpenGotha loaded them.
            let mut t = load(&synthetic);
            let unknown = t
                .rounds
                .iter()
                .flat_map(|r| &r.games)
                .filter(|g| !g.known_colour)
                .count();
            let text = String::from_utf8_lossy(&h9(&t, &opengotha_options(true))).into_owned();
            let marks = text.matches("!?").count() + text.matches("/?").count();
            assert_eq!(marks, 2 * unknown, "{name}: cells with an unknown colour");
            for g in t.rounds.iter_mut().flat_map(|r| r.games.iter_mut()) {
                g.known_colour = true;
            }
            compared += compare_data(name, "synthetic", &t, &mut failures);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared >= 30, "only {compared} files compared");
}

/// The default table (not OpenGotha's exact bytes) of `t`, as text.
fn default_text(
    t: &TournamentData,
    keep: bool,
) -> (String, Vec<goswiss::tournament::formats::NameWarning>) {
    let f = h9_file(
        t,
        &H9Options {
            keep_by_default: keep,
            ..H9Options::default()
        },
    );
    let text: String = f.bytes.iter().map(|&b| decode_latin9(b)).collect();
    (text, f.warnings)
}

/// ISO-8859-15 byte → character (the eight code points it took from Latin-1).
fn decode_latin9(b: u8) -> char {
    match b {
        0xA4 => '€',
        0xA6 => 'Š',
        0xA8 => 'š',
        0xB4 => 'Ž',
        0xB8 => 'ž',
        0xBC => 'Œ',
        0xBD => 'œ',
        0xBE => 'Ÿ',
        b => b as char,
    }
}

/// The player lines of a table (after the title line).
fn player_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with(';')).collect()
}

#[test]
fn short_game_format_is_read_kept_and_written() {
    let t = load(&data().join("synthetic/synth_short.xml"));
    assert_eq!(t.settings.game_format, Some(GameFormat::Short));
    assert_eq!(t.settings.effective_game_format(), GameFormat::Short);
    let (text, _) = default_text(&t, true);
    let lines = player_lines(&text);
    assert_eq!(lines.len(), 15, "{text}");
    // Short cells: opponent and result only, never a colour, handicap, `/` or `!`.
    for l in &lines {
        let cells = &l[l.len() - 5 * 9 + 1..];
        assert!(!cells.contains(['/', '!']), "{l}");
    }
    assert!(
        lines[0].ends_with("       2+       2+       3+       2+       2+"),
        "{}",
        lines[0]
    );
    // The same tournament in the full format has `/` or `!` in every game cell.
    let mut full = t.clone();
    full.settings.game_format = Some(GameFormat::Full);
    let (text_full, _) = default_text(&full, true);
    assert!(player_lines(&text_full)[0].contains("2+/"), "{text_full}");
}

#[test]
fn short_format_nobydef_drops_results_by_default_unless_exact() {
    let t = load(&data().join("synthetic/synth_short.xml"));
    let forfeits = t
        .rounds
        .iter()
        .flat_map(|r| &r.games)
        .filter(|g| g.forfeit)
        .count();
    assert!(forfeits > 0, "the file has results by default");
    let zeros = |s: &str| s.matches("0=").count();
    let (keep, _) = default_text(&t, true);
    let (drop, _) = default_text(&t, false);
    // Each result by default leaves both players' cells as `0=` (not played).
    assert_eq!(zeros(&drop), zeros(&keep) + 2 * forfeits, "{drop}");
    // OpenGotha's exact bytes keep them (its short cells have no `!` to find): the golden
    // synth_short.nobydef.h9 is its table with them (compared in the test above).
    let mut exact = opengotha_options(false);
    exact.generator = H9Options::default().generator;
    let exact_drop = String::from_utf8_lossy(&h9(&t, &exact)).into_owned();
    let mut exact_keep = opengotha_options(true);
    exact_keep.generator = exact.generator.clone();
    assert_eq!(exact_drop, String::from_utf8_lossy(&h9(&t, &exact_keep)));
}

#[test]
fn half_points_are_decimals_by_default_and_question_marks_when_exact() {
    let t = load(&data().join("synthetic/synth_short.xml"));
    let (text, _) = default_text(&t, true);
    let golden = std::fs::read(data().join("golden/synth_short.h9")).expect("golden");
    let golden: String = golden.iter().map(|&b| decode_latin9(b)).collect();
    // OpenGotha writes `½`, which ISO-8859-15 lacks: `838?`.
    assert!(
        player_lines(&golden)[0].contains(" 183 838? 0 "),
        "{golden}"
    );
    let ours = player_lines(&text);
    assert!(ours[0].contains(" 183 838.5 0 "), "{}", ours[0]);
    // Player 6's criteria, all three with a half: `26? 120? 641?`.
    assert!(ours[5].contains(" 26.5 120.5 641.5 0 "), "{}", ours[5]);
    // Every line has the same criteria columns: each value ends where the title's does.
    let title = text.lines().find(|l| l.starts_with("; Pl")).expect("title");
    for l in &ours {
        // The name, rank, country, club and criteria columns (the cells may hold `13?`, an
        // unknown result).
        let criteria: String = l.chars().take(title.chars().count()).collect();
        assert!(!criteria.contains('?'), "a half written as ?: {l}");
    }
    let mms_end = title.find("MMS").expect("MMS") + 3;
    for l in &ours {
        let before = &l[..mms_end];
        assert!(
            before.ends_with(|c: char| c.is_ascii_digit()),
            "MMS column misaligned: {l}\n{title}"
        );
    }
}

#[test]
fn names_are_transliterated_and_every_change_is_a_warning() {
    let t = load(&data().join("synthetic/synth_names.xml"));
    let (text, warnings) = default_text(&t, true);
    for name in [
        "Szoke Bálint",
        "Walesa Lukasz",
        "Dvorák Jirí",
        "Yilmaz Ayse",
        "Buga Ruta",
        "Nguyen Van_Duc",
        "O'Brien Seán",
        "Müller-Lüdenscheidt Hans_Peter",
        "Œuvray Zoé",
    ] {
        assert!(
            player_lines(&text).iter().any(|l| l[5..].starts_with(name)),
            "{name} missing:\n{text}"
        );
    }
    // Clubs too: Győr → Gyor, Łódź → Lódz (ó is in ISO-8859-15).
    assert!(text.contains(" Gyor "), "{text}");
    assert!(text.contains(" Lódz "), "{text}");
    // The CJK name cannot be written: `?`, and said so.
    let cjk = t.players.iter().find(|p| p.name == "李").expect("李");
    let w: Vec<_> = warnings
        .iter()
        .filter(|w| w.player_id == Some(cjk.id))
        .collect();
    assert!(
        w.iter()
            .any(|w| w.field == "name" && w.lost && w.written == "? ?"),
        "{warnings:?}"
    );
    assert!(
        w.iter().any(|w| w.field == "club" && w.lost),
        "{warnings:?}"
    );
    // Every player whose name or club changed is named, and no one else.
    for p in &t.players {
        let full = format!("{} {}", p.name, p.first_name);
        let changed_name = !full
            .chars()
            .all(goswiss::tournament::formats::egf::in_latin9);
        let changed_club = !p
            .club
            .chars()
            .all(goswiss::tournament::formats::egf::in_latin9);
        let has = |f: &str| {
            warnings
                .iter()
                .any(|w| w.player_id == Some(p.id) && w.field == f)
        };
        assert_eq!(has("name"), changed_name, "{full}: {warnings:?}");
        assert_eq!(has("club"), changed_club, "{}: {warnings:?}", p.club);
    }
    assert!(
        warnings.iter().all(|w| w.message.contains(&w.written)),
        "{warnings:?}"
    );
    // OpenGotha's bytes: `?` for what Latin-9 lacks, and the warnings say so.
    let exact = h9_file(&t, &opengotha_options(true));
    let golden = std::fs::read(data().join("golden/synth_names.h9")).expect("golden");
    assert_eq!(exact.bytes, golden);
    assert!(
        exact
            .warnings
            .iter()
            .any(|w| w.field == "name" && w.written.starts_with("Sz?ke") && w.lost),
        "{:?}",
        exact.warnings
    );
}

#[test]
fn egd_pin_and_country_are_written() {
    let mut t = load(&data().join("synthetic/synth_names.xml"));
    let (text, _) = default_text(&t, true);
    let line = |text: &str, name: &str| -> String {
        player_lines(text)
            .into_iter()
            .find(|l| l[5..].starts_with(name))
            .unwrap_or_else(|| panic!("{name}:\n{text}"))
            .to_string()
    };
    assert!(line(&text, "Szoke").ends_with(" |12345678"), "{text}");
    assert!(line(&text, "Smith").ends_with(" |56789012"), "{text}");
    // Not an EGD PIN (8 digits): left out.
    assert!(!line(&text, "Yilmaz").contains('|'), "{text}");
    assert!(!line(&text, "Buga").contains('|'), "{text}");
    // No country setting and no majority country: none.
    assert!(text.contains("\n; PC[,Nowhere]\n"), "{text}");
    t.settings.country = "HU".into();
    let (text, _) = default_text(&t, true);
    assert!(text.contains("\n; PC[HU,Nowhere]\n"), "{text}");
    // OpenGotha's bytes have neither.
    let exact = String::from_utf8_lossy(&h9(&t, &opengotha_options(true))).into_owned();
    assert!(exact.contains("\n; PC[,Nowhere]\n"), "{exact}");
    assert!(!exact.contains(" |"), "{exact}");
    // A majority country is the venue's when none is set.
    t.settings.country.clear();
    for p in &mut t.players {
        p.country = "PL".into();
    }
    let (text, _) = default_text(&t, true);
    assert!(text.contains("\n; PC[PL,Nowhere]\n"), "{text}");
}

#[test]
fn a_tournament_name_cannot_forge_header_fields_or_lines() {
    let mut t = load(&data().join("synthetic/synth_short.xml"));
    t.settings.name = "T] ; EV[forged".into();
    t.settings.location = "Here]\n; KM[0\r".into();
    t.settings.begin_date = "2026-03-14] ; HA[h9".into();
    t.players[0].name = "Evil\n; CL[A]".into();
    for exact in [false, true] {
        let o = H9Options {
            opengotha_exact: exact,
            ..H9Options::default()
        };
        let text = String::from_utf8_lossy(&h9(&t, &o)).into_owned();
        let header: Vec<&str> = text.lines().filter(|l| l.starts_with(';')).collect();
        let head = header.join("\n");
        for key in ["EV[", "PC[", "DT[", "KM[", "CL[", "HA["] {
            assert_eq!(
                head.matches(key).count(),
                1,
                "{key} (exact {exact}):\n{text}"
            );
        }
        // Each header field opens and closes once on its own line.
        for l in header.iter().filter(|l| l.contains('[')) {
            assert_eq!(l.matches('[').count(), 1, "{l}");
            assert!(l.ends_with(']'), "{l}");
        }
        assert!(text.contains("; EV[T) ; EV(forged]"), "{text}");
        // The name stays one field of its player's line.
        assert_eq!(player_lines(&text).len(), 15, "{text}");
        assert!(text.contains(" Evil_;_CL[A] "), "{text}");
    }
}
