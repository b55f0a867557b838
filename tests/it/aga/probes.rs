//! Golden tests against AGATourn 1.035: the 206 probes (values and warnings), the 145,161-row
//! handicap sweep, and the 526-row TDListA sample.

use crate::common::files;

use std::io::{BufRead, BufReader};

use goswiss::aga::diag::LineCtx;
use goswiss::aga::lines::{
    parse_register_line, parse_round_line, register_line_json, round_line_json,
};
use goswiss::aga::perl::numify;
use goswiss::aga::rating::{collapse, expand, normalize_id, rank_to_rating};
use goswiss::aga::tdlist::parse_tdlist_line;
use goswiss::aga::{Tournament, handicap};
use serde_json::{Value, json};

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/aga/oracle/agatourn"
);
const UPSTREAM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/aga/upstream");

fn texts(w: &[goswiss::aga::Warning]) -> Vec<Value> {
    w.iter()
        .map(|w| Value::String(w.legacy_text.clone()))
        .collect()
}

/// Runs one query against the stateful object; returns (r, warn).
fn run(t: &mut Tournament, line_no: usize, q: &[String]) -> (Vec<Value>, Vec<Value>) {
    let ctx = LineCtx::new(None, Some(line_no));
    t.set_line(Some(line_no));
    let mark = t.log().len();
    let arg = |i: usize| q.get(i).map(String::as_str).unwrap_or("");
    let s = |x: String| Value::String(x);
    let (r, w): (Vec<Value>, Vec<Value>) = match q[0].as_str() {
        "RankToRating" => (vec![s(rank_to_rating(Some(arg(1))))], vec![]),
        "Rating" => (vec![t.rating(arg(1)).map_or(Value::Null, s)], vec![]),
        "CollapseRating" => {
            let (_, text, w) = collapse(Some(arg(1)));
            (
                vec![text.map_or(Value::Null, s)],
                w.iter().map(|w| s(w.legacy_text.clone())).collect(),
            )
        }
        "ExpandRating" => (vec![s(expand(arg(1)))], vec![]),
        "NormalizeID" => (vec![s(normalize_id(arg(1)))], vec![]),
        "ParseRegisterLine" => {
            let (l, w) = parse_register_line(arg(1), &ctx);
            (register_line_json(&l).into_iter().collect(), texts(&w))
        }
        "ParseRoundLine" => {
            let (l, w) = parse_round_line(arg(1), &ctx);
            (vec![round_line_json(&l)], texts(&w))
        }
        "ParseTdListLine" => {
            let (rec, w) = parse_tdlist_line(arg(1), &ctx);
            (vec![rec.map_or(Value::Null, |r| r.to_json())], texts(&w))
        }
        "Handicap" | "HandicapIng" => {
            let ing = (q[0] == "HandicapIng").then_some(true);
            let (h, k) = t.handicap(arg(1), arg(2), ing);
            (vec![s(h), s(k)], vec![])
        }
        "AddRegisterLine" => {
            t.add_register_line(arg(1));
            (vec![], vec![])
        }
        "WhichBandIs" => {
            let b = t.which_band_is(Some(arg(1)));
            (
                vec![s(b.map_or("-99.9".to_string(), |b| b.to_string()))],
                vec![],
            )
        }
        "BandName" => (
            vec![
                t.band_name(numify(arg(1)).trunc() as i64)
                    .map_or(Value::Null, s),
            ],
            vec![],
        ),
        "Reset" => {
            *t = Tournament::new();
            (vec![], vec![])
        }
        other => panic!("unknown probe function {other}"),
    };
    let mut warn = w;
    warn.extend(texts(&t.log()[mark.min(t.log().len())..]));
    (r, warn)
}

#[test]
fn probes_match_agatourn() {
    let queries = files::read_to_string(format!("{ORACLE}/probe_queries.tsv"));
    let answers = files::read_to_string(format!("{ORACLE}/probe_answers.jsonl"));
    let mut t = Tournament::new();
    let mut n = 0;
    let mut failures = Vec::new();
    for (i, (q, a)) in queries.lines().zip(answers.lines()).enumerate() {
        let q: Vec<String> = q.split('\t').map(|x| x.replace("\\t", "\t")).collect();
        let a: Value = serde_json::from_str(a).unwrap();
        let (r, w) = run(&mut t, i + 1, &q);
        let got = json!({"r": r, "warn": w});
        let want = json!({"r": a["r"], "warn": a["warn"]});
        if got != want {
            failures.push(format!(
                "line {}: {:?}\n   got  {got}\n   want {want}",
                i + 1,
                q
            ));
        }
        n += 1;
    }
    assert_eq!(n, 206);
    assert!(
        failures.is_empty(),
        "{} probe(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn handicap_sweep_matches_row_for_row() {
    let f = {
        let p = format!("{ORACLE}/handicap_sweep_aga.tsv.gz");
        std::fs::File::open(&p).unwrap_or_else(|e| panic!("test data {p}: {e}"))
    };
    let r = BufReader::new(flate2::read::GzDecoder::new(f));
    let mut t = Tournament::new();
    let mut rows = 0;
    let mut bad = Vec::new();
    for (i, line) in r.lines().enumerate() {
        let line = line.unwrap();
        if i == 0 {
            assert_eq!(
                line.split('\t').collect::<Vec<_>>(),
                ["p1", "p2", "handicap", "komi"]
            );
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let (h, k) = t.handicap(f[0], f[1], None);
        if h != f[2] || k != f[3] {
            bad.push(format!("{line} -> {h} {k}"));
        }
        rows += 1;
    }
    assert_eq!(rows, 145_161);
    assert!(t.log().is_empty(), "no warnings expected in the sweep");
    assert!(
        bad.is_empty(),
        "{} rows differ, first: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

#[test]
fn handicap_options_keep_agatourn_default() {
    // The default options reproduce AGATourn's table; a cap changes only big handicaps.
    let opts = handicap::HandicapOptions::default();
    assert_eq!(handicap::decide(8.0, -29.0, &opts).handicap, 33.0);
}

#[test]
fn tdlista_sample_parses_as_agatourn() {
    let sample = files::read_to_string(format!(
        "{UPSTREAM}/opengotha-tdlista-anonymised-sample.txt"
    ));
    let golden = files::read_to_string(format!("{ORACLE}/tdlista_sample_parse.jsonl"));
    let golden: Vec<Value> = golden
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<&str> = sample.split_inclusive('\n').collect();
    assert_eq!(lines.len(), golden.len());
    for (i, (line, g)) in lines.iter().zip(&golden).enumerate() {
        assert_eq!(
            g["q"][1].as_str().unwrap(),
            line.trim_end_matches(['\r', '\n']),
            "query {i}"
        );
        let (rec, w) = parse_tdlist_line(line, &LineCtx::new(None, Some(i + 1)));
        assert!(w.is_empty(), "line {}: {w:?}", i + 1);
        assert_eq!(
            rec.map(|r| r.to_json()).unwrap_or(Value::Null),
            g["r"][0],
            "line {}",
            i + 1
        );
    }
}
