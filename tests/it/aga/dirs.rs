//! Whole-directory golden tests: each oracle tournament directory is loaded with the compat
//! reader and its `dump.json`, `send2aga.tde` and `tscore` outputs are reproduced exactly; the
//! modern results report reproduces the AGA's own example.

use crate::common::files;

use std::path::Path;

use goswiss::aga::Tournament;
use goswiss::aga::report::{DateStyle, ReportOptions, results_report, send2aga};
use goswiss::aga::tscore::{TscoreOptions, tscore};
use serde_json::Value;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/aga/oracle/agatourn"
);
const UPSTREAM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/aga/upstream");

fn load(case: &str) -> Tournament {
    let dir = Path::new(ORACLE).join(case);
    let register = files::read_to_string(dir.join("register.tde"));
    let mut rounds = Vec::new();
    for n in 1.. {
        match std::fs::read_to_string(dir.join(format!("{n}.tde"))) {
            Ok(t) => rounds.push(t),
            Err(_) => break,
        }
    }
    let rounds: Vec<Option<&str>> = rounds.iter().map(|s| Some(s.as_str())).collect();
    Tournament::load(&register, &rounds)
}

fn golden(case: &str, file: &str) -> Option<String> {
    // Some golden files exist only for some cases; the case itself must be there.
    let dir = Path::new(ORACLE).join(case);
    assert!(
        dir.is_dir(),
        "test data directory {} is missing",
        dir.display()
    );
    std::fs::read_to_string(dir.join(file)).ok()
}

fn check_dump(case: &str) {
    let mut t = load(case);
    let got = t.dump();
    let want: Value = serde_json::from_str(&golden(case, "dump.json").unwrap()).unwrap();
    if got != want {
        let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
        for (k, v) in w {
            assert_eq!(g.get(k), Some(v), "{case}: dump key {k}");
        }
        panic!("{case}: dump has extra keys");
    }
}

fn check_outputs(case: &str) {
    let mut t = load(case);
    let s = send2aga(&mut t).expect("send2aga runs");
    assert_eq!(
        s.text,
        golden(case, "send2aga.tde").unwrap(),
        "{case}: send2aga.tde"
    );
    let runs = [
        ("default", TscoreOptions::default()),
        (
            "fr99",
            TscoreOptions {
                final_round: Some(99),
                ..Default::default()
            },
        ),
        (
            "mcmahon_fr99",
            TscoreOptions {
                final_round: Some(99),
                mcmahon: true,
                ..Default::default()
            },
        ),
    ];
    for (name, opts) in runs {
        let mut t = load(case);
        let out = tscore(&mut t, &opts).expect("tscore runs");
        assert_eq!(
            out.scores,
            golden(case, &format!("scores_{name}.txt")).unwrap(),
            "{case}: scores_{name}"
        );
        if let Some(summary) = golden(case, &format!("summary_{name}.txt")) {
            assert_eq!(out.summary, summary, "{case}: summary_{name}");
        }
    }
}

#[test]
fn agatourn_t_dump() {
    check_dump("agatourn-t");
}

#[test]
fn synthetic8_dump() {
    check_dump("synthetic8");
}

#[test]
fn quirks_dump() {
    check_dump("quirks");
}

#[test]
fn agatourn_t_send2aga_and_tscore() {
    check_outputs("agatourn-t");
}

#[test]
fn synthetic8_send2aga_and_tscore() {
    check_outputs("synthetic8");
}

#[test]
fn quirks_refuses_reports() {
    // Its error flag is set, so the oracle has no send2aga or tscore output: both refuse.
    let mut t = load("quirks");
    assert!(t.error());
    assert!(golden("quirks", "send2aga.tde").is_none());
    assert!(send2aga(&mut t).is_err());
    assert!(tscore(&mut t, &TscoreOptions::default()).is_err());
    let r = results_report(
        &t,
        &ReportOptions {
            start: Some("2004-06-15".into()),
            ..Default::default()
        },
    );
    assert!(
        r.unwrap_err()
            .findings
            .iter()
            .any(|f| f.code == "tournament.has_errors")
    );
}

fn princeton() -> Tournament {
    let register = "## TOURNEY Princeton Go Club Rated Games, Princeton, NJ, June 15-30, 2004\n\
                    ## RULES AGA\n\
                    USA489 Matthews, Paul 4k\n\
                    USA3199 Mott, Rick 4k\n";
    Tournament::load(
        register,
        &[
            Some("USA489 USA3199 b 0 7\n"),
            Some("USA3199 USA489 w 0 7\n"),
        ],
    )
}

#[test]
fn results_report_reproduces_the_aga_example() {
    let t = princeton();
    let opts = ReportOptions {
        start: Some("2004-06-15".into()),
        finish: Some("6/30/2004".into()),
        ..Default::default()
    };
    let r = results_report(&t, &opts).unwrap();
    let want = files::read_to_string(format!("{UPSTREAM}/usgo-ratingquals-2004-example.txt"));
    assert_eq!(r.text, want);
    assert!(r.findings.is_empty());

    // The 2020 variant adds location= (and spells the header `Tourney`).
    let opts = ReportOptions {
        tourney: Some("Princeton Go Club Rated Games, Princeton, NJ".into()),
        location: Some("Princeton, NJ".into()),
        ..opts
    };
    let r = results_report(&t, &opts).unwrap();
    let want = files::read_to_string(format!("{UPSTREAM}/usgo-agagd-2020-example.txt"));
    assert_eq!(r.text.replacen("TOURNEY", "Tourney", 1), want);

    let iso = ReportOptions {
        start: Some("6/15/2004".into()),
        date_style: DateStyle::Iso,
        ..Default::default()
    };
    assert!(
        results_report(&t, &iso)
            .unwrap()
            .text
            .contains("        start=2004-06-15\n")
    );
}

#[test]
fn results_report_refuses_what_the_loader_refuses() {
    let opts = ReportOptions {
        start: Some("2024-01-02".into()),
        ..Default::default()
    };
    // A `?` result, a TMP ID and komi out of range.
    let mut t = Tournament::new();
    t.read_register("USA1 A, B 3d\nTMP2 C, D 2k\nUSA3 E, F 1k\n");
    t.read_round(1, "USA1 TMP2 ? 0 6\nUSA1 USA3 w 0 25\n");
    let refusal = results_report(&t, &opts).unwrap_err();
    let codes: Vec<&str> = refusal.findings.iter().map(|f| f.code).collect();
    for code in [
        "report.unfinished_game",
        "report.temporary_id",
        "report.komi_range",
    ] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
    assert!(refusal.to_string().contains("no result"));
    // No start date.
    let t = princeton();
    let r = results_report(&t, &ReportOptions::default()).unwrap_err();
    assert_eq!(r.findings[0].code, "report.no_start_date");
}

#[test]
fn strict_mode_fixes_the_quirks() {
    use goswiss::aga::tourney::Mode;
    let dir = Path::new(ORACLE).join("quirks");
    let read = |f: &str| files::read_to_string(dir.join(f));
    let register = read("register.tde");
    let (r1, r2, r4) = (read("1.tde"), read("2.tde"), read("4.tde"));
    let rounds = [
        Some(r1.as_str()),
        Some(r2.as_str()),
        None,
        Some(r4.as_str()),
    ];
    let mut t = Tournament::load_mode(Mode::Strict, &register, &rounds);
    assert_eq!(t.tourney(), Some("Quirk Test"));
    assert_eq!(t.directive("RULES"), Some(&["ING".to_string()][..]));
    let games: Vec<String> = t.games().iter().map(|g| g.list_string()).collect();
    assert!(
        games.contains(&"USA2122,TMP5,b,3,0,1".to_string()),
        "{games:?}"
    );
    assert!(
        games.contains(&"TMP5,USA123,w,0,7.5,1".to_string()),
        "{games:?}"
    );
    assert_eq!(t.player("TMP5").unwrap().name, "Lower, Case");
    let codes: Vec<&str> = t.log().iter().map(|w| w.code).collect();
    assert!(codes.contains(&"round.gap"), "{codes:?}");
    assert!(!codes.contains(&"round.unparsable"), "{codes:?}");
    let gap = t.log().iter().find(|w| w.code == "round.gap").unwrap();
    assert!(
        gap.message.contains("3.tde") && gap.message.contains("4.tde"),
        "{}",
        gap.message
    );
    // `## Rules ING` counts in strict mode.
    assert_eq!(
        t.handicap("5.0", "4.5", None),
        ("0".to_string(), "7".to_string())
    );
    // Compat ignores all of this.
    let mut c = Tournament::load(&register, &rounds);
    assert_eq!(c.tourney(), Some("Unknown tournament"));
    assert_eq!(
        c.handicap("5.0", "4.5", None),
        ("0".to_string(), "6".to_string())
    );
}

#[test]
fn strict_mode_recomputes_bands() {
    use goswiss::aga::tourney::Mode;
    for (mode, want) in [(Mode::Compat, Some(0)), (Mode::Strict, Some(1))] {
        let mut t = Tournament::with_mode(mode);
        assert_eq!(t.which_band_is(Some("4k")), Some(0));
        t.add_register_line("## BAND 6d 3d");
        t.add_register_line("## BAND 1k 5k");
        assert_eq!(t.which_band_is(Some("4k")), want, "{mode:?}");
        let bands = t.directive("BAND").unwrap().len();
        assert_eq!(bands, if mode == Mode::Compat { 3 } else { 2 });
    }
}

#[test]
fn results_report_decimal_komi_needs_a_policy() {
    use goswiss::aga::tourney::Mode;
    let register = "## TOURNEY T\nUSA1 A, B 3d\nUSA2 C, D 2d\n";
    let t = Tournament::load_mode(Mode::Strict, register, &[Some("USA1 USA2 w 0 7.5\n")]);
    let opts = ReportOptions {
        start: Some("2024-05-04".into()),
        ..Default::default()
    };
    let refusal = results_report(&t, &opts).unwrap_err();
    assert_eq!(
        refusal.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
        ["report.komi_decimal"]
    );
    let opts = ReportOptions {
        decimal_komi_integer_part: true,
        ..opts
    };
    let r = results_report(&t, &opts).unwrap();
    assert!(r.text.ends_with("GAMES\n1 2 w 0 7\n"), "{}", r.text);
    assert_eq!(r.findings[0].code, "report.komi_integer_part");
}

#[test]
fn raku_send_to_aga_reproduces_its_expected_text() {
    use goswiss::aga::report::raku_send_to_aga;
    use goswiss::aga::tourney::Mode;
    let register = "## TOURNEY Test Tournament 1\n## DATE 2016-04-28\n## RULES Mine\n\
                    TST22 Last Name 22, First Name 22 5D\n\
                    TST1 LN 1, FN 1 4.0\n\
                    TZZS4 Last Name 4, First Name 4 14K\n\
                    TST3 Last Name 3, First Name 3 3D\n";
    let rounds = [Some("TST1 TST22 w 2 0.5\nTZZS4 TST3 w 0 7.5\n")];
    let t = Tournament::load_mode(Mode::Strict, register, &rounds);
    let r = raku_send_to_aga(&t).unwrap();
    let want = files::read_to_string(format!("{UPSTREAM}/raku-objects-send-to-aga-expected.txt"));
    assert_eq!(r.text, want);
    // It refuses to run without DATE and RULES.
    let t = Tournament::load_mode(Mode::Strict, "TST1 LN 1, FN 1 4.0\n", &[]);
    let codes: Vec<&str> = raku_send_to_aga(&t)
        .unwrap_err()
        .findings
        .iter()
        .map(|f| f.code)
        .collect();
    assert_eq!(codes, ["report.no_date", "report.no_rules"]);
}
