//! Property tests: no input line makes any AGA parser or tournament operation panic, and ID
//! normalisation is idempotent.

use goswiss::aga::Tournament;
use goswiss::aga::diag::LineCtx;
use goswiss::aga::lines::{parse_register_line, parse_round_line};
use goswiss::aga::rating::{
    collapse, expand, normalize_id, normalize_id_strict, rank_to_rating, rating_of_text,
};
use goswiss::aga::report::{ReportOptions, results_report, send2aga};
use goswiss::aga::tdlist::parse_tdlist_line;
use goswiss::aga::tscore::{TscoreOptions, tscore};
use proptest::prelude::*;

/// Lines made of AGA-ish tokens, so the parsers' interesting paths are reached often.
fn token_line() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("USA1"),
        Just("usa0012"),
        Just("TMP3"),
        Just("2122"),
        Just("Foo,"),
        Just("Bar"),
        Just("3d"),
        Just("12K"),
        Just("-5.5"),
        Just("5"),
        Just("0.5"),
        Just("#"),
        Just("##"),
        Just("BAND"),
        Just("RULES"),
        Just("ING"),
        Just("CLUB=x-y"),
        Just("BYE"),
        Just("w"),
        Just("b"),
        Just("?"),
        Just("0"),
        Just("7"),
        Just("-6"),
        Just("7.5"),
        Just("Full"),
        Just("1/2/2003"),
        Just("\t"),
        Just(" "),
        Just("   "),
        Just("\r"),
        Just("é"),
    ];
    prop::collection::vec(token, 0..14).prop_map(|v| v.join(" "))
}

fn any_line() -> impl Strategy<Value = String> {
    prop_oneof![token_line(), "\\PC{0,60}", "[ -~\t]{0,80}"]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn line_parsers_never_panic(line in any_line()) {
        let ctx = LineCtx::new(Some("x.tde"), Some(1));
        let _ = parse_register_line(&line, &ctx);
        let _ = parse_round_line(&line, &ctx);
        let _ = parse_tdlist_line(&line, &ctx);
        let tabbed = line.replace(' ', "\t");
        let _ = parse_tdlist_line(&tabbed, &ctx);
        let _ = rank_to_rating(Some(&line));
        let _ = rating_of_text(&line);
        let _ = collapse(Some(&line));
        let _ = expand(&line);
    }

    #[test]
    fn tournament_operations_never_panic(
        register in prop::collection::vec(any_line(), 0..8),
        rounds in prop::collection::vec(prop::collection::vec(any_line(), 0..5), 0..3),
        queries in prop::collection::vec(any_line(), 0..4),
    ) {
        let register = register.join("\n");
        let rounds: Vec<String> = rounds.iter().map(|r| r.join("\n")).collect();
        let rounds: Vec<Option<&str>> = rounds.iter().map(|r| Some(r.as_str())).collect();
        let mut t = Tournament::load(&register, &rounds);
        for q in &queries {
            let _ = t.which_band_is(Some(q));
            let _ = t.band_name(-1);
            let _ = t.band_name(0);
            let _ = t.handicap(q, "3d", None);
            let _ = t.sigma(q);
            t.add_register_line(q);
        }
        let _ = t.dump();
        let _ = send2aga(&mut t.clone());
        let _ = tscore(&mut t.clone(), &TscoreOptions::default());
        let _ = tscore(&mut t.clone(), &TscoreOptions { final_round: Some(99), mcmahon: true, ..Default::default() });
        let _ = results_report(&t, &ReportOptions { start: Some("2024-01-01".into()), ..Default::default() });
    }

    #[test]
    fn tscore_options_never_panic(
        final_round in prop::option::of(any::<i64>()),
        mcmahon in any::<bool>(),
        bar in any::<i64>(),
        columns in any::<i64>(),
    ) {
        let register = "## BAND 9d 30k\nUSA1 A, B 3d\nUSA2 C, D 2k\nUSA3 E, F 5.5\n";
        let mut t = Tournament::load(register, &[Some("USA1 USA2 w 0 6\nUSA3 USA9 ? 0 6\n"), Some("USA2 USA3 b 2 0\n")]);
        let out = tscore(&mut t, &TscoreOptions { final_round, mcmahon, bar, columns });
        prop_assert!(out.is_ok());
    }

    #[test]
    fn tdlist_streaming_equals_line_by_line(lines in prop::collection::vec(any_line(), 0..6), tabs in any::<bool>()) {
        let mut text = lines.join("\r\n");
        if tabs {
            text = text.replace(' ', "\t");
        }
        let mut fast = Vec::new();
        goswiss::aga::tdlist::for_each_line(&text, |n, r, w| fast.push((n, r.map(|r| r.to_json()), w)));
        let slow: Vec<_> = text
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| {
                let (r, w) = parse_tdlist_line(l, &LineCtx::new(None, Some(i + 1)));
                (i + 1, r.map(|r| r.to_json()), w)
            })
            .collect();
        prop_assert_eq!(fast, slow);
    }

    #[test]
    fn normalize_is_idempotent(id in prop_oneof!["[A-Za-z]{0,4}0{0,3}[0-9A-Za-z]{0,5}", "\\PC{0,12}"]) {
        let once = normalize_id(&id);
        prop_assert_eq!(normalize_id(&once), once.clone());
        let strict = normalize_id_strict(&id);
        prop_assert_eq!(normalize_id_strict(&strict), strict.clone());
    }
}
