//! The `aga.*` handlers called directly (the wire-level tests come with the server): a full-size
//! TDListA through `aga.parse_tdlist`, and the oracle directory through `aga.tournament`.

use crate::common::files;

use goswiss::rpc::Params;
use goswiss::rpc::methods::aga::{parse_tdlist_method, tournament_method};
use serde_json::json;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/aga");

#[test]
fn parse_tdlist_handles_a_full_size_list() {
    let sample = files::read_to_string(format!(
        "{DATA}/upstream/opengotha-tdlista-anonymised-sample.txt"
    ));
    let rows: Vec<&str> = sample.split_inclusive('\n').collect();
    let text: String = (0..22_410).map(|i| rows[i % rows.len()]).collect();
    let r = parse_tdlist_method(&Params::positional(vec![json!(text)])).unwrap();
    assert_eq!(r["lines"], 22_410);
    assert_eq!(r["parsed"], 22_410);
    assert_eq!(r["failed"], 0);
    assert_eq!(r["records"].as_array().unwrap().len(), 22_410);
    assert_eq!(r["records"][526]["line"], 527);
    assert_eq!(r["records"][526]["name"], r["records"][0]["name"]);
    // Paging keeps only what was asked for.
    let r = parse_tdlist_method(&Params::positional(vec![
        json!(text),
        json!({"offset": 22_400, "limit": 50}),
    ]))
    .unwrap();
    assert_eq!(r["records"].as_array().unwrap().len(), 10);
    assert_eq!(r["records"][0]["line"], 22_401);
}

#[test]
fn tournament_method_matches_the_oracle_dump() {
    let dir = format!("{DATA}/oracle/agatourn/synthetic8");
    let read = |f: &str| files::read_to_string(format!("{dir}/{f}"));
    let rounds = json!([read("1.tde"), read("2.tde"), read("3.tde")]);
    let p = Params::positional(vec![
        json!(read("register.tde")),
        rounds,
        json!({"handicaps": true}),
    ]);
    let r = tournament_method(&p).unwrap();
    let want: serde_json::Value = serde_json::from_str(&read("dump.json")).unwrap();
    for key in [
        "players",
        "games",
        "bands",
        "directives",
        "handicaps",
        "unregistered_counters",
        "error",
    ] {
        assert_eq!(r[key], want[key], "{key}");
    }
    assert_eq!(r["standings"].as_array().unwrap().len(), 8);
    assert_eq!(r["standings"][0]["id"], "USA101");
}

#[test]
fn quadratic_work_is_bounded() {
    use goswiss::rpc::methods::aga::{MAX_HANDICAP_TABLE_PLAYERS, tscore_method};
    let register: String = (1..=MAX_HANDICAP_TABLE_PLAYERS + 1)
        .map(|i| format!("USA{i} P{i}, X 3d\n"))
        .collect();
    let p = Params::positional(vec![json!(register), json!([]), json!({"handicaps": true})]);
    let e = tournament_method(&p).unwrap_err();
    assert_eq!(e.code, -32602);
    assert!(e.message.contains("limited to 1000"), "{}", e.message);
    // Without the table the same tournament loads, standings included.
    let p = Params::positional(vec![json!(register), json!([])]);
    let r = tournament_method(&p).unwrap();
    assert_eq!(
        r["standings"].as_array().unwrap().len(),
        MAX_HANDICAP_TABLE_PLAYERS + 1
    );
    assert!(tscore_method(&p).is_ok());
}
