//! The parsers and conversions against OpenGotha 3.51.02 itself: excerpts of the three real
//! lists (tests/data/ratings/, PROVENANCE.md) and what OpenGotha's `RatingList` and `Player`
//! make of them (`oracle/*.tsv`, printed by `oracle/RatingsOracle.java` compiled with
//! OpenGotha's sources). Where goswiss reads differently on purpose (docs/ratings.md), the
//! comparison says which difference it allows, and nothing else may differ.

use super::convert::{format_rank, rank_from_grade, rank_from_rating, raw_rating_text};
use super::*;

const EGF: &[u8] = include_bytes!("../../tests/data/ratings/egf_db-2018-12-27-excerpt.txt");
const FFG: &[u8] = include_bytes!("../../tests/data/ratings/ech_ffg_V3-2021-01-11-excerpt.txt");
const AGA: &[u8] = include_bytes!("../../tests/data/ratings/tdlista-2021-excerpt.txt");
const EGF_OG: &str = include_str!("../../tests/data/ratings/oracle/egf_db-2018-12-27-excerpt.tsv");
const FFG_OG: &str =
    include_str!("../../tests/data/ratings/oracle/ech_ffg_V3-2021-01-11-excerpt.tsv");
const AGA_OG: &str = include_str!("../../tests/data/ratings/oracle/tdlista-2021-excerpt.tsv");
const CONVERSIONS_OG: &str = include_str!("../../tests/data/ratings/oracle/conversions.tsv");

/// One row as OpenGotha prints it (RatingsOracle.java's columns).
struct OgRow<'a> {
    cols: Vec<&'a str>,
}

fn og_rows(tsv: &str) -> (String, Vec<OgRow<'_>>) {
    let mut date = String::new();
    let mut rows = Vec::new();
    for line in tsv.lines() {
        if let Some(d) = line.strip_prefix("#date\t") {
            date = d.to_string();
        } else if !line.is_empty() {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 14, "oracle line {line:?}");
            rows.push(OgRow { cols });
        }
    }
    (date, rows)
}

/// OpenGotha reads every list as ISO-8859-15: a name whose bytes are UTF-8 comes out as
/// mojibake ("NaÃ¯m"), which goswiss decodes as UTF-8 ("Naïm").
fn repaired(og: &str) -> Option<String> {
    let (bytes, _, unmappable) = encoding_rs::ISO_8859_15.encode(og);
    if unmappable {
        return None;
    }
    String::from_utf8(bytes.into_owned()).ok()
}

fn same_text(ours: &str, og: &str) -> bool {
    ours == og || repaired(og).as_deref() == Some(ours)
}

/// Compares every entry of `list` with OpenGotha's rows; `extra` names the rows goswiss
/// reads and OpenGotha drops (their family names). Returns how many text fields differed
/// only by the UTF-8 repair, and how many first names were OpenGotha's placeholders.
fn compare(list: &RatingList, og: &[OgRow<'_>], extra: &[&str]) -> (usize, usize) {
    let mut repairs = 0;
    let mut placeholders = 0;
    let mut og_rows = og.iter();
    for e in list.entries() {
        if extra.contains(&e.name) {
            continue;
        }
        let o = og_rows
            .next()
            .unwrap_or_else(|| panic!("goswiss has a row OpenGotha has not: {e:?}"));
        let c = &o.cols;
        let texts = [
            ("name", e.name, c[0]),
            ("country", e.country, c[2]),
            ("club", e.club, c[3]),
            ("egf_pin", e.egf_pin, c[4]),
            ("ffg_licence", e.ffg_licence, c[5]),
            ("ffg_licence_status", e.ffg_licence_status, c[6]),
            ("aga_id", e.aga_id, c[7]),
            ("aga_expiration", e.aga_expiration, c[8]),
            // OpenGotha keeps the grade's column as it is (" 6k"); goswiss trims it.
            ("grade", e.listed_grade, c[9].trim()),
        ];
        for (what, ours, theirs) in texts {
            assert!(
                same_text(ours, theirs),
                "line {}: {what} {ours:?}, OpenGotha {theirs:?}",
                e.line
            );
            repairs += usize::from(ours != theirs);
        }
        // OpenGotha's placeholders for a missing first name: "x" (EGF), "xxx" (AGA).
        if e.first_name.is_empty() && matches!(c[1], "x" | "xxx") {
            placeholders += 1;
        } else {
            assert!(
                same_text(e.first_name, c[1]),
                "line {}: first name {:?}, OpenGotha {:?}",
                e.line,
                e.first_name,
                c[1]
            );
            repairs += usize::from(e.first_name != c[1]);
        }
        assert_eq!(e.raw_rating_text(), c[10], "line {}: raw rating", e.line);
        assert_eq!(e.rating().to_string(), c[11], "line {}: rating", e.line);
        assert_eq!(format_rank(e.rank()), c[12], "line {}: rank", e.line);
        assert_eq!(
            e.rank_from_grade().map(format_rank).unwrap_or_default(),
            c[13],
            "line {}: rank from grade",
            e.line
        );
    }
    assert!(
        og_rows.next().is_none(),
        "OpenGotha has rows goswiss has not"
    );
    (repairs, placeholders)
}

#[test]
fn egf_excerpt_reads_as_opengotha_reads_it() {
    let list = parse(Kind::Egf, EGF).unwrap();
    let (date, og) = og_rows(EGF_OG);
    assert_eq!(list.list_date(), Some(date.as_str()));
    assert_eq!(list.list_date_iso().as_deref(), Some("2018-12-27"));
    assert_eq!(list.len(), 37);
    assert_eq!(list.skipped(), (0, &[][..]));
    let (repairs, placeholders) = compare(&list, &og, &[]);
    // Only "Na\xC3\xAFm" is UTF-8 inside the single-byte file.
    assert_eq!(repairs, 1);
    assert_eq!(placeholders, 0);
    let naim = list.entries().find(|e| e.name == "Boukerrouye").unwrap();
    assert_eq!(naim.first_name, "Naïm");
    let agota = list.entries().find(|e| e.first_name == "Ágota").unwrap();
    assert_eq!(agota.name, "Dreelyi_Kis");
    let club = list.entries().find(|e| e.name == "Churavy").unwrap();
    assert_eq!((club.club, club.listed_grade), ("FÜ", "16k"));
    // A PIN-only family name: no first name (OpenGotha's first name is "" here too).
    let abramov = list.entries().find(|e| e.name == "Abramov").unwrap();
    assert_eq!((abramov.first_name, abramov.rating()), ("", 1060));
    // A professional: from GoR 2786 the rank is 8D, from the grade 2p 7D.
    let pro = list.entries().find(|e| e.first_name == "Ilja").unwrap();
    assert_eq!(format_rank(pro.rank()), "8D");
    assert_eq!(
        pro.rank_from_grade().map(format_rank).as_deref(),
        Some("7D")
    );
}

#[test]
fn ffg_excerpt_reads_as_opengotha_reads_it() {
    let list = parse(Kind::Ffg, FFG).unwrap();
    let (date, og) = og_rows(FFG_OG);
    assert_eq!(list.list_date(), Some(date.as_str()));
    assert_eq!(list.list_date_iso().as_deref(), Some("2021-01-11"));
    // OpenGotha drops "ÉTIENNE Fabrice" (its first byte is no ASCII letter).
    assert_eq!(list.len(), og.len() + 1);
    let (repairs, _) = compare(&list, &og, &["ÉTIENNE"]);
    assert_eq!(repairs, 0, "the échelle is ISO-8859-1 throughout");
    let rene = list.entries().find(|e| e.name == "AAIJ").unwrap();
    assert_eq!(
        (rene.first_name, rene.rating(), format_rank(rene.rank())),
        ("René", 2293, "3D".to_string())
    );
    let etienne = list.entries().find(|e| e.name == "ÉTIENNE").unwrap();
    assert_eq!(
        (etienne.first_name, etienne.ffg_licence, etienne.club),
        ("Fabrice", "2000173", "35Re")
    );
    let ait = list.entries().find(|e| e.name == "AÏT_ALI").unwrap();
    assert_eq!(ait.first_name, "Corentin");
}

#[test]
fn aga_excerpt_reads_as_opengotha_reads_it() {
    let list = parse(Kind::Aga, AGA).unwrap();
    let (date, og) = og_rows(AGA_OG);
    assert_eq!(date, "");
    assert_eq!(list.list_date(), None);
    assert_eq!(list.len(), og.len());
    let (repairs, placeholders) = compare(&list, &og, &[]);
    // The TDList is UTF-8: OpenGotha garbles each accented name, goswiss does not.
    assert!(repairs >= 10, "{repairs}");
    // "Cambridge Tournament Group"-like rows without a comma: split at the first blank.
    assert_eq!(placeholders, 0);
    let loic = list.entries().find(|e| e.name == "Lefebvre").unwrap();
    assert_eq!(
        (
            loic.first_name,
            loic.listed_rating,
            loic.rating(),
            format_rank(loic.rank())
        ),
        ("Loïc", "4.72008", 2422, "4D".to_string())
    );
    let runar = list
        .entries()
        .find(|e| e.name.starts_with("Baugsson"))
        .unwrap();
    assert_eq!(
        (runar.name, runar.first_name),
        ("Baugsson Sigríðarson", "Rúnar Berg")
    );
    let unrated = list.entries().find(|e| e.name == "Aaron").unwrap();
    assert_eq!(
        (unrated.listed_rating, unrated.rating(), unrated.country),
        ("", -700, "US")
    );
    let foreign = list.entries().find(|e| e.name == "Abrahamsson").unwrap();
    assert_eq!(foreign.country, "");
}

#[test]
fn conversions_match_opengotha_everywhere() {
    let mut rows = 0;
    let mut grades = 0;
    for line in CONVERSIONS_OG.lines() {
        if let Some(rest) = line.strip_prefix("#grade\t") {
            let (grade, want) = rest.split_once('\t').unwrap();
            let grade = grade.trim_start_matches('[').trim_end_matches(']');
            assert_eq!(
                rank_from_grade(grade).map(format_rank).unwrap_or_default(),
                want,
                "grade {grade:?}"
            );
            grades += 1;
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let raw: i32 = c[0].parse().unwrap();
        for (kind, std, rank) in [
            (Kind::Egf, c[1], c[2]),
            (Kind::Ffg, c[3], c[4]),
            (Kind::Aga, c[5], c[6]),
        ] {
            let ours = convert::standard_rating(kind, raw);
            assert_eq!(ours.to_string(), std, "{kind} raw {raw}");
            assert_eq!(
                format_rank(rank_from_rating(ours)),
                rank,
                "{kind} raw {raw}"
            );
        }
        assert_eq!(raw_rating_text(Kind::Aga, raw), c[7], "AGA text of {raw}");
        rows += 1;
    }
    assert_eq!((rows, grades), (6401, 36));
}

#[test]
fn rows_that_do_not_read_are_skipped_and_counted() {
    let egf = [
        " 12345678  Good Row                              FR  Pari   3k   --   1800     1  T1",
        " 12345679  Bad Rating                            FR  Pari   3k   --   18x0     1  T1",
        " 12345680  Cut",
    ]
    .join("\n");
    let list = parse(Kind::Egf, egf.as_bytes()).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list.skipped(), (2, &[2u32, 3][..]));
    assert_eq!(list.lines(), 3);
}

#[test]
fn wrong_files_and_caps_are_refused() {
    // The FFG file as an EGF list, and as an AGA list (no tab: no row), an EGF page as FFG.
    assert!(matches!(
        parse(Kind::Egf, FFG),
        Err(ListError::NoRows {
            kind: Kind::Egf,
            ..
        })
    ));
    assert!(matches!(
        parse(Kind::Aga, FFG),
        Err(ListError::NoRows { .. })
    ));
    assert!(matches!(
        parse(Kind::Ffg, EGF),
        Err(ListError::NoRows { .. })
    ));
    assert!(matches!(
        parse(Kind::Egf, b"<html>Just a moment...</html>"),
        Err(ListError::NoRows { .. })
    ));
    let big = vec![b'\n'; MAX_LIST_BYTES + 1];
    assert!(matches!(
        parse(Kind::Aga, &big),
        Err(ListError::TooBig { .. })
    ));
    let many = "Doe, J\t1\tFull\t1.5\t1/1/2030\n".repeat(MAX_LIST_ROWS + 1);
    assert!(matches!(
        parse(Kind::Aga, many.as_bytes()),
        Err(ListError::TooManyRows { .. })
    ));
}

#[test]
fn fields_are_capped_and_cleaned() {
    let long = "é".repeat(300);
    let line = format!("{long}, Jo\u{7}e\t42\tFull\t2.5\t1/1/2030\tCLUB\n");
    let list = parse(Kind::Aga, line.as_bytes()).unwrap();
    let e = list.entry(0).unwrap();
    assert_eq!(e.name.chars().count(), MAX_FIELD);
    assert_eq!(e.first_name, "Joe");
}

#[test]
fn an_entry_fills_a_tournament_player() {
    let list = parse(Kind::Egf, EGF).unwrap();
    let e = list.entries().find(|e| e.name == "Aaij").unwrap();
    let v = serde_json::to_value(e).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "list": "egf",
            "player": {
                "name": "Aaij", "first_name": "Rene", "rank": "4D", "rating": 2382,
                "rating_origin": "EGF", "grade": "4D", "country": "NL", "club": "Gron",
                "egf_pin": "10537560", "ffg_licence": "", "ffg_licence_status": "",
                "aga_id": "", "aga_expiration": ""
            },
            "listed_rating": "2382",
            "rank_from_grade": "4D",
            "line": 31
        })
    );
    // The player object is what tournament.player.add takes, key for key.
    let player: crate::tournament::model::Player =
        serde_json::from_value(v["player"].clone()).unwrap();
    assert_eq!((player.rank, player.rating), (3, 2382));
}

#[test]
fn a_utf8_list_folds_hungarian_and_nordic_letters() {
    let aga = "Erdős, Pál\t1\tFull\t5.1\t1/1/2030\tBUDA\n\
               Sigríðarson, Rúnar\t2\tFull\t-3.2\t1/1/2030\t\n"
        .as_bytes();
    let idx = Index::new(parse(Kind::Aga, aga).unwrap());
    let names = |q: &str| {
        idx.search(&Query::new(q), 5)
            .iter()
            .map(|h| h.entry.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names("erdos"), ["Erdős"]);
    assert_eq!(names("ERDŐS P"), ["Erdős"]);
    assert_eq!(names("pal erd"), ["Erdős"]);
    assert_eq!(names("sigridar"), ["Sigríðarson"]);
    assert_eq!(names("runar"), ["Sigríðarson"]);
}
