//! The `opengotha` weight against OpenGotha 3.51's own weight dumps (tests/data/opengotha,
//! from the pairgoth repository; see its README): every criterion of every pair of every
//! dumped round must be equal, and the exact optimum of those weights must weigh as much as
//! the pairing OpenGotha actually made for that round.

use crate::common::files;

use std::collections::HashMap;

use goswiss::pairing::SolveOptions;
use goswiss::pairing::opengotha::{
    Crit, DuddMode, History, OgGame, OgPlayer, Outcome, Params, RoundState, SeedSystem, System,
    display_name, pair, parse_rank,
};
use quick_xml::Reader;
use quick_xml::events::Event;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/opengotha");

/// A data file's path: absolute paths as given (for `dev_compare`), else under `DATA`.
fn path(file: &str) -> String {
    if file.starts_with('/') {
        file.to_string()
    } else {
        format!("{DATA}/{file}")
    }
}

/// A tournament read from an OpenGotha XML file.
struct Tournament {
    params: Params,
    history: History,
}

fn attrs(e: &quick_xml::events::BytesStart) -> HashMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.expect("attribute");
            (
                a.key.as_ref().to_string(),
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .expect("value")
                    .into_owned(),
            )
        })
        .collect()
}

fn rank(s: &str) -> i32 {
    parse_rank(s).unwrap_or_else(|| panic!("bad rank {s:?}"))
}

fn seed(s: &str) -> SeedSystem {
    match s {
        "SPLITANDRANDOM" => SeedSystem::SplitAndRandom,
        "SPLITANDFOLD" => SeedSystem::SplitAndFold,
        "SPLITANDSLIP" => SeedSystem::SplitAndSlip,
        other => panic!("seed system {other}"),
    }
}

fn dudd(s: &str) -> DuddMode {
    match s {
        "TOP" => DuddMode::Top,
        "MID" => DuddMode::Mid,
        "BOT" => DuddMode::Bot,
        other => panic!("dudd mode {other}"),
    }
}

fn read_xml(file: &str) -> Tournament {
    let text = files::read_to_string(path(file));
    let mut reader = Reader::from_str(&text);
    let mut players = vec![];
    let mut games_raw = vec![];
    let mut byes_raw = vec![];
    let mut general = HashMap::new();
    let mut handicap = HashMap::new();
    let mut pairing = HashMap::new();
    let mut criteria = vec![];
    loop {
        match reader.read_event().expect("xml event") {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let a = attrs(&e);
                match e.local_name().as_ref() {
                    "Player" => players.push(a),
                    "Game" => games_raw.push(a),
                    "ByePlayer" => byes_raw.push(a),
                    "GeneralParameterSet" => general = a,
                    "HandicapParameterSet" => handicap = a,
                    "PairingParameterSet" => pairing = a,
                    "PlacementCriterion" => criteria.push(a["name"].clone()),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let mut key: HashMap<String, usize> = HashMap::new();
    let mut og_players = vec![];
    for (i, p) in players.iter().enumerate() {
        // OpenGotha's key string: surname and first name, upper case, without spaces.
        let k = format!("{}{}", p["name"], p["firstName"]).to_uppercase();
        key.insert(k.replace(' ', ""), i);
        let absent = p["participating"]
            .chars()
            .enumerate()
            .filter(|(_, c)| *c == '0')
            .map(|(r, _)| r)
            .collect();
        og_players.push(OgPlayer {
            name: p["name"].clone(),
            first_name: p["firstName"].clone(),
            rank: rank(&p["rank"]),
            rating: p["rating"].parse().expect("rating"),
            club: p["club"].clone(),
            country: p["country"].clone(),
            smms_correction: p["smmsCorrection"].parse().expect("smmsCorrection"),
            absent,
        });
    }
    let games = games_raw
        .iter()
        .map(|g| OgGame {
            round: g["roundNumber"].parse::<usize>().expect("round") - 1,
            white: key[&g["whitePlayer"]],
            black: key[&g["blackPlayer"]],
            handicap: g["handicap"].parse().expect("handicap"),
            result: match g["result"].as_str() {
                "RESULT_WHITEWINS" | "RESULT_WHITEWINS_BYDEF" => Outcome::WhiteWins,
                "RESULT_BLACKWINS" | "RESULT_BLACKWINS_BYDEF" => Outcome::BlackWins,
                "RESULT_EQUAL" | "RESULT_EQUAL_BYDEF" => Outcome::Jigo,
                "RESULT_BOTHWIN" | "RESULT_BOTHWIN_BYDEF" => Outcome::BothWin,
                "RESULT_BOTHLOSE" | "RESULT_BOTHLOSE_BYDEF" => Outcome::BothLose,
                _ => Outcome::Unknown,
            },
        })
        .collect();
    let byes = byes_raw
        .iter()
        .map(|b| {
            (
                b["roundNumber"].parse::<usize>().expect("round") - 1,
                key[&b["player"]],
            )
        })
        .collect();
    let crits: Vec<Crit> = criteria
        .iter()
        .map(|c| Crit::parse(c).unwrap_or_else(|| panic!("criterion {c}")))
        .filter(|c| *c != Crit::Nul)
        .collect();
    let ncat: usize = general["numberOfCategories"].parse().expect("categories");
    assert_eq!(ncat, 1, "categories are not read by this test's XML reader");
    let main_mms = crits
        .iter()
        .find(|c| matches!(c, Crit::Nbw | Crit::Mms))
        .is_some_and(|c| *c == Crit::Mms);
    let system = if main_mms {
        System::McMahon
    } else {
        System::Swiss
    };
    let rounds = general["numberOfRounds"].parse().expect("rounds");
    let mut params = Params::defaults(system, rounds);
    let b = |m: &HashMap<String, String>, k: &str| m[k] == "true";
    let i64_ = |k: &str| -> i64 { pairing[k].parse().expect(k) };
    let i32_ = |m: &HashMap<String, String>, k: &str| -> i32 { m[k].parse().expect(k) };
    params.criteria = crits;
    params.mm_floor = rank(&general["genMMFloor"]);
    params.mm_bar = rank(&general["genMMBar"]);
    params.mm_zero = rank(&general["genMMZero"]);
    params.nbw2_bye = i32_(&general, "genNBW2ValueBye");
    params.nbw2_absent = i32_(&general, "genNBW2ValueAbsent");
    params.mms2_bye = i32_(&general, "genMMS2ValueBye");
    params.mms2_absent = i32_(&general, "genMMS2ValueAbsent");
    params.round_down = b(&general, "genRoundDownNBWMMS");
    params.hd_based_on_mms = b(&handicap, "hdBasedOnMMS");
    params.hd_ceiling = i32_(&handicap, "hdCeiling");
    params.hd_correction = i32_(&handicap, "hdCorrection");
    params.hd_no_hd_rank_threshold = rank(&handicap["hdNoHdRankThreshold"]);
    params.nx1 = pairing["paiStandardNX1Factor"].parse().expect("nx1");
    params.avoid_dupl_game = i64_("paiBaAvoidDuplGame");
    params.random = i64_("paiBaRandom");
    assert!(b(&pairing, "paiBaDeterministic"));
    params.balance_wb = i64_("paiBaBalanceWB");
    params.avoid_mixing_categories = i64_("paiMaAvoidMixingCategories");
    params.minimize_score_difference = i64_("paiMaMinimizeScoreDifference");
    params.dudd_weight = i64_("paiMaDUDDWeight");
    params.compensate_dudd = b(&pairing, "paiMaCompensateDUDD");
    params.dudd_upper = dudd(&pairing["paiMaDUDDUpperMode"]);
    params.dudd_lower = dudd(&pairing["paiMaDUDDLowerMode"]);
    params.maximize_seeding = i64_("paiMaMaximizeSeeding");
    params.last_round_seed_system1 = pairing["paiMaLastRoundForSeedSystem1"]
        .parse()
        .expect("last round");
    params.seed_system1 = seed(&pairing["paiMaSeedSystem1"]);
    params.seed_system2 = seed(&pairing["paiMaSeedSystem2"]);
    params.additional_crit1 =
        Crit::parse(&pairing["paiMaAdditionalPlacementCritSystem1"]).expect("crit 1");
    params.additional_crit2 =
        Crit::parse(&pairing["paiMaAdditionalPlacementCritSystem2"]).expect("crit 2");
    params.minimize_handicap = i64_("paiSeMinimizeHandicap");
    params.avoid_same_geo = i64_("paiSeAvoidSameGeo");
    params.prefer_mms_diff_club = i32_(&pairing, "paiSePreferMMSDiffRatherThanSameClub");
    params.prefer_mms_diff_country = i32_(&pairing, "paiSePreferMMSDiffRatherThanSameCountry");
    params.se_rank_threshold = rank(&pairing["paiSeRankThreshold"]);
    params.se_nbwins_threshold_active = b(&pairing, "paiSeNbWinsThresholdActive");
    params.se_bar_threshold_active = b(&pairing, "paiSeBarThresholdActive");
    Tournament {
        params,
        history: History {
            players: og_players,
            games,
            byes,
        },
    }
}

/// One dumped pair: the two names and the 10 numbers (9 criteria, then the total).
struct DumpRow {
    p1: String,
    p2: String,
    values: [i64; 10],
}

fn read_dump(file: &str) -> (usize, Vec<String>, Vec<DumpRow>) {
    let text = files::read_to_string(path(file));
    let mut lines = text.lines();
    let round: usize = lines
        .next()
        .and_then(|l| l.strip_prefix("Round "))
        .expect("round line")
        .parse()
        .expect("round");
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split('\t')
        .map(String::from)
        .collect();
    let rows = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 12, "{l}");
            let mut values = [0i64; 10];
            for (k, v) in f[2..].iter().enumerate() {
                values[k] = v.parse().expect("number");
            }
            DumpRow {
                p1: f[0].to_string(),
                p2: f[1].to_string(),
                values,
            }
        })
        .collect();
    (round, header, rows)
}

fn names(h: &History) -> HashMap<String, usize> {
    h.players
        .iter()
        .enumerate()
        .map(|(i, p)| (display_name(p), i))
        .collect()
}

/// Every criterion of every dumped pair against ours: the differences, one line each.
fn mismatches(t: &Tournament, round: usize, header: &[String], rows: &[DumpRow]) -> Vec<String> {
    let by_name = names(&t.history);
    let state = RoundState::new(&t.params, &t.history, round - 1);
    let mut out = vec![];
    for row in rows {
        let w = state.weights(by_name[&row.p1], by_name[&row.p2]);
        let mut ours: Vec<i64> = w.named().iter().map(|(_, v)| *v).collect();
        ours.push(w.total());
        for (k, (a, b)) in ours.iter().zip(row.values.iter()).enumerate() {
            if a != b {
                out.push(format!(
                    "R{round} {} – {}: {} ours {a} dump {b}",
                    row.p1,
                    row.p2,
                    header[k + 2]
                ));
            }
        }
    }
    out
}

/// Development aid: `OG_XML=file OG_DUMP=file cargo test --release --test it pairing::opengotha
/// dev_compare -- --ignored --nocapture` lists every difference of a (partial) dump.
#[test]
#[ignore]
fn dev_compare() {
    let mut t = read_xml(&std::env::var("OG_XML").expect("OG_XML"));
    if std::env::var("OG_LATER").is_ok() {
        t.params.dudd_group_span = None;
        t.params.geo_thresholds = true;
    }
    let (round, header, rows) = read_dump(&std::env::var("OG_DUMP").expect("OG_DUMP"));
    let m = mismatches(&t, round, &header, &rows);
    println!("{} rows, {} differences", rows.len(), m.len());
    for l in &m {
        println!("{l}");
    }
}

/// Compares every criterion of every dumped pair; then the optimum against OpenGotha's
/// own pairing of that round.
fn check_round(t: &Tournament, dump: &str) {
    let (round, header, rows) = read_dump(dump);
    let h = &t.history;
    let by_name = names(h);
    let state = RoundState::new(&t.params, h, round - 1);
    let mut mismatches = vec![];
    let mut dumped = std::collections::BTreeSet::new();
    for row in &rows {
        let (i, j) = (by_name[&row.p1], by_name[&row.p2]);
        dumped.insert(i);
        dumped.insert(j);
        let w = state.weights(i, j);
        let mut ours: Vec<i64> = w.named().iter().map(|(_, v)| *v).collect();
        ours.push(w.total());
        for (k, (a, b)) in ours.iter().zip(row.values.iter()).enumerate() {
            if a != b {
                mismatches.push(format!(
                    "R{round} {} – {}: {} ours {a} dump {b}",
                    row.p1,
                    row.p2,
                    header[k + 2]
                ));
            }
        }
        // The weight is symmetric except for the hashed terms, which read the names in order.
        let back = state.weights(j, i);
        assert_eq!(back.main_score_diff, w.main_score_diff);
        assert_eq!(back.main_dudd, w.main_dudd);
        assert_eq!(back.sec_geo, w.sec_geo);
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} criteria differ from the dump:\n{}",
        mismatches.len(),
        rows.len() * 10,
        mismatches[..mismatches.len().min(40)].join("\n")
    );
    let n = dumped.len();
    assert_eq!(
        rows.len(),
        n * (n - 1) / 2,
        "the dump covers every pair once"
    );
    let dump_weight: HashMap<(usize, usize), i64> = rows
        .iter()
        .map(|r| {
            let (i, j) = (by_name[&r.p1], by_name[&r.p2]);
            ((i.min(j), i.max(j)), r.values[9])
        })
        .collect();
    // OpenGotha's own pairing of this round, if the file has it.
    let played: Vec<&OgGame> = h.games.iter().filter(|g| g.round == round - 1).collect();
    if played.is_empty() {
        return;
    }
    let mut in_round: Vec<usize> = played.iter().flat_map(|g| [g.white, g.black]).collect();
    in_round.sort_unstable();
    assert_eq!(
        in_round,
        dumped.iter().copied().collect::<Vec<_>>(),
        "the dump and the file pair the same players in round {round}"
    );
    let theirs: i128 = played
        .iter()
        .map(|g| dump_weight[&(g.white.min(g.black), g.white.max(g.black))] as i128)
        .sum();
    // OpenGotha's player order (its standings), as the dump lists it: player 1 of every
    // pair comes first, which is what the hashed (random) terms read.
    let mut to_pair: Vec<usize> = vec![];
    for r in &rows {
        for name in [&r.p1, &r.p2] {
            let i = by_name[name];
            if !to_pair.contains(&i) {
                to_pair.push(i);
            }
        }
    }
    // The sparse path's pricing bounds (RoundCosts) assume 3.51's rules (draw-up/down within
    // 3 groups, geography without thresholds); under the later rules the dense path is the
    // exact reference.
    let dense = SolveOptions {
        dense: true,
        ..SolveOptions::default()
    };
    let ours = pair(&state, &to_pair, dense).expect("a pairing");
    if t.params.dudd_group_span.is_some() && !t.params.geo_thresholds {
        let sparse = pair(&state, &to_pair, SolveOptions::default()).expect("a pairing");
        assert_eq!(
            sparse.total_weight, ours.total_weight,
            "round {round}: sparse vs dense"
        );
    }
    assert_eq!(ours.bye, None);
    assert_eq!(ours.boards.len(), played.len());
    // Our weights equal the dump's (checked above), so this compares optima of the same
    // function: the pairing itself may differ only between equal-weight optima.
    assert_eq!(
        ours.total_weight, theirs,
        "round {round}: exact optimum vs OpenGotha's pairing"
    );
    // OpenGotha's colours and handicap for the boards it made (they are in the file).
    let pos = |i: usize| to_pair.iter().position(|&x| x == i).expect("paired");
    for g in &played {
        let (first, second) = if pos(g.white) < pos(g.black) {
            (g.white, g.black)
        } else {
            (g.black, g.white)
        };
        let (w, b, hd) = state.board(first, second);

        assert_eq!(
            (w, b, hd),
            (g.white, g.black, g.handicap),
            "round {round}: colours and handicap of {} – {}",
            display_name(&h.players[g.white]),
            display_name(&h.players[g.black])
        );
    }
}

#[test]
fn simplemm_weights_equal_opengotha_dumps() {
    let t = read_xml("simplemm.xml");
    for r in 1..=5 {
        check_round(&t, &format!("simplemm_weights_R{r}.tsv"));
    }
}

#[test]
fn dump_transcription_is_consistent() {
    // Every dumped total is the sum of its criteria plus 1 (OpenGotha's minimum weight).
    let files = (1..=5)
        .map(|r| format!("simplemm_weights_R{r}.tsv"))
        .chain(["simpleswiss_weights_R3_excerpt.tsv".to_string()]);
    // (The later transcriptions write totalCost as the sum + 1: see the README.)
    for f in files {
        let (_, header, rows) = read_dump(&f);
        assert_eq!(header[11], "totalCost");
        for row in rows {
            assert_eq!(row.values[..9].iter().sum::<i64>() + 1, row.values[9]);
        }
    }
}

/// The same rounds through `pairing.pair` / `pairing.explain` with the `opengotha` preset:
/// the history goes over the wire (ranks, clubs, games with colours, handicap and results)
/// and the answer's terms and total weight are OpenGotha's.
#[test]
fn simplemm_through_the_rpc_preset() {
    use goswiss::rpc::Params as RpcParams;
    use goswiss::rpc::methods::pairing::{explain, pair as rpc_pair};
    use serde_json::{Value, json};

    let t = read_xml("simplemm.xml");
    let h = &t.history;
    for round in 1..=5usize {
        let (_, header, rows) = read_dump(&format!("simplemm_weights_R{round}.tsv"));
        // Players in OpenGotha's list order (the dump's), which the hashed terms read.
        let mut order: Vec<usize> = vec![];
        let by_name: HashMap<String, usize> = h
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| (display_name(p), i))
            .collect();
        for r in &rows {
            for n in [&r.p1, &r.p2] {
                if !order.contains(&by_name[n]) {
                    order.push(by_name[n]);
                }
            }
        }
        let players: Vec<Value> = order
            .iter()
            .map(|&i| {
                let p = &h.players[i];
                let games: Vec<Value> = h
                    .games
                    .iter()
                    .filter(|g| g.round + 1 < round && (g.white == i || g.black == i))
                    .map(|g| {
                        let white = g.white == i;
                        let opp = if white { g.black } else { g.white };
                        let won = matches!(
                            (g.result, white),
                            (Outcome::WhiteWins, true) | (Outcome::BlackWins, false)
                        );
                        json!({
                            "round": g.round + 1,
                            "opponent": display_name(&h.players[opp]),
                            "color": if white { "white" } else { "black" },
                            "handicap": g.handicap,
                            "result": if won { "win" } else { "loss" },
                        })
                    })
                    .collect();
                json!({
                    "id": display_name(p),
                    "name": p.name,
                    "first_name": p.first_name,
                    "rank": p.rank,
                    "rating": p.rating,
                    "club": p.club,
                    "country": p.country,
                    "games": games,
                })
            })
            .collect();
        // simplemm uses OpenGotha's McMahon defaults: only the round and length are given.
        let opts = json!({"round": round, "rounds": 5});
        let r = rpc_pair(&RpcParams::positional(vec![
            json!(players),
            json!("opengotha"),
            opts.clone(),
        ]))
        .expect("pairing.pair");
        let dump: HashMap<(String, String), &DumpRow> = rows
            .iter()
            .flat_map(|row| {
                [
                    ((row.p1.clone(), row.p2.clone()), row),
                    ((row.p2.clone(), row.p1.clone()), row),
                ]
            })
            .collect();
        let played: Vec<&OgGame> = h.games.iter().filter(|g| g.round + 1 == round).collect();
        let theirs: i64 = played
            .iter()
            .map(|g| {
                dump[&(
                    display_name(&h.players[g.white]),
                    display_name(&h.players[g.black]),
                )]
                    .values[9]
            })
            .sum();
        assert_eq!(
            r["objective"]["total_weight"],
            json!(theirs),
            "round {round}"
        );
        assert_eq!(r["boards"].as_array().expect("boards").len(), 8);
        for e in r["explanation"].as_array().expect("explanation") {
            let a = e["pair"][0].as_str().expect("id").to_string();
            let b = e["pair"][1].as_str().expect("id").to_string();
            let row = dump[&(a, b)];
            for (k, name) in header[2..11].iter().enumerate() {
                assert_eq!(e["terms"][name], json!(row.values[k]), "{name}");
            }
            assert_eq!(e["weight"], json!(row.values[9]));
        }
        // One pair through pairing.explain, in the dump's order.
        let row = &rows[0];
        let x = explain(&RpcParams::positional(vec![
            json!(players),
            json!([row.p1, row.p2]),
            json!("opengotha"),
            opts,
        ]))
        .expect("pairing.explain");
        assert_eq!(x["weight"], json!(row.values[9]));
        assert_eq!(x["terms"]["mainSeedCost"], json!(row.values[6]));
    }
}

/// The McMahon tournament `notsimplemm` (9 players, bar 1d, floor 20k; absences, byes,
/// handicaps up to 8 stones, two clubs per country): every criterion of every pair of rounds
/// 1–5, the optimum against OpenGotha's pairing, colours and handicaps.
#[test]
fn notsimplemm_weights_equal_opengotha_dumps() {
    let t = read_xml("notsimplemm.xml");
    assert_eq!(t.params.system, System::McMahon);
    for r in 1..=5 {
        check_round(&t, &format!("notsimplemm_weights_R{r}.tsv"));
    }
}

/// The Swiss tournament `simpleswiss` (32 players, NBW groups, no geography, no handicap):
/// every criterion of all 496 pairs of round 4, the exact optimum against OpenGotha's own
/// pairing of that round, and its colours.
#[test]
fn simpleswiss_full_rounds_equal_opengotha_dumps() {
    let t = read_xml("simpleswiss_7R.xml");
    assert_eq!(t.params.system, System::Swiss);
    check_round(&t, "simpleswiss_weights_R4.tsv");
}

/// The Swiss tournament `notsosimpleswiss` (35 players, a bye every round, draw-up/down modes
/// BOT/TOP, split-and-fold from round 4, club and country factors): its dumps come from a
/// later OpenGotha than 3.51, which applies draw-up/draw-down to every pair of different
/// score groups (`dudd_group_span: None`); 3.51 only to groups fewer than 4 apart (the simplemm
/// dumps show both sides of that limit).
fn notsosimpleswiss() -> Tournament {
    let mut t = read_xml("notsosimpleswiss.xml");
    assert_eq!(t.params.system, System::Swiss);
    later_opengotha(&mut t.params);
    t
}

/// The rules of the later OpenGotha that made pairgoth's newer dumps (see the data README).
fn later_opengotha(p: &mut Params) {
    p.dudd_group_span = None;
    p.geo_thresholds = true;
}

/// A real McMahon tournament, Toulouse 2024 (38 players, 36 paired in round 3; bar 2k, floor
/// 20k, split-and-fold, draw-up/down BOT/TOP, six clubs' geography, handicaps), dumped by
/// the later OpenGotha: all 630 pairs of round 3, which need both later rules — draw-up/down
/// for groups 4 and more apart, and the geography thresholds (strong players at the maximum,
/// half of it for one) — then the optimum against the round-3 pairing of the tournament file,
/// its colours and handicaps.
#[test]
fn toulouse2024_round3_equals_opengotha_dump() {
    let mut t = read_xml("toulouse2024_R1-3.xml");
    assert_eq!(t.params.system, System::McMahon);
    later_opengotha(&mut t.params);
    check_round(&t, "toulouse2024_weights_R3.tsv");
    // Each later rule on its own leaves differences.
    let (round, header, rows) = read_dump("toulouse2024_weights_R3.tsv");
    for (span, thresholds) in [(Some(4), true), (None, false)] {
        t.params.dudd_group_span = span;
        t.params.geo_thresholds = thresholds;
        assert!(!mismatches(&t, round, &header, &rows).is_empty());
    }
}

/// Round 10 in full: 561 pairs (34 players; Habuda has the bye), every criterion, the exact
/// optimum against OpenGotha's own pairing of the round, its colours.
#[test]
fn notsosimpleswiss_round10_equals_opengotha_dump() {
    check_round(&notsosimpleswiss(), "notsosimpleswiss_weights_R10.tsv");
}

/// An excerpt of round 6 (its first two players against everyone: 59 pairs).
#[test]
fn notsosimpleswiss_round6_excerpt_equals_opengotha_dump() {
    let t = notsosimpleswiss();
    let (round, header, rows) = read_dump("notsosimpleswiss_weights_R6_excerpt.tsv");
    assert_eq!(rows.len(), 59);
    let m = mismatches(&t, round, &header, &rows);
    assert!(m.is_empty(), "{}", m.join("\n"));
    // With 3.51's limit, the pairs 4 groups apart lose their draw-up/down term: the dump
    // tells the two versions apart.
    let mut t351 = notsosimpleswiss();
    t351.params.dudd_group_span = Some(4);
    t351.params.geo_thresholds = false;
    assert_eq!(mismatches(&t351, round, &header, &rows).len(), 8);
}

/// An excerpt of simpleswiss round 7 (its first two players against everyone: 59 pairs):
/// groups 4 apart exist by then, and their draw-up/down term shows this dump comes from the
/// later OpenGotha too (under 3.51's rule 6 pairs lose it).
#[test]
fn simpleswiss_round7_excerpt_equals_the_later_opengotha() {
    let mut t = read_xml("simpleswiss_7R.xml");
    later_opengotha(&mut t.params);
    let (round, header, rows) = read_dump("simpleswiss_weights_R7_excerpt.tsv");
    assert_eq!(rows.len(), 59);
    let m = mismatches(&t, round, &header, &rows);
    assert!(m.is_empty(), "{}", m.join("\n"));
    t.params.dudd_group_span = Some(4);
    // Two lines (the term and the total) per pair that loses its draw-up/down term.
    assert_eq!(mismatches(&t, round, &header, &rows).len(), 12);
}

/// A Swiss tournament (NBW groups, no geography, no handicap): an excerpt of OpenGotha's
/// round-3 dump (the 58 pairs of its first two players with everyone), compared criterion by
/// criterion. The file keeps only the games of rounds 1–2, all this round needs.
#[test]
fn simpleswiss_round3_excerpt_equals_opengotha_dump() {
    let t = read_xml("simpleswiss_7R.xml");
    assert_eq!(t.params.system, System::Swiss);
    let (round, header, rows) = read_dump("simpleswiss_weights_R3_excerpt.tsv");
    assert_eq!(rows.len(), 58);
    let h = &t.history;
    let by_name: HashMap<String, usize> = h
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (display_name(p), i))
        .collect();
    let state = RoundState::new(&t.params, h, round - 1);
    // Three groups after two rounds (2, 1 and 0 wins), empty ones included.
    assert_eq!(state.number_of_groups, 3);
    let mut mismatches = vec![];
    for row in &rows {
        let w = state.weights(by_name[&row.p1], by_name[&row.p2]);
        let mut ours: Vec<i64> = w.named().iter().map(|(_, v)| *v).collect();
        ours.push(w.total());
        for (k, (a, b)) in ours.iter().zip(row.values.iter()).enumerate() {
            if a != b {
                mismatches.push(format!(
                    "{} – {}: {} ours {a} dump {b}",
                    row.p1,
                    row.p2,
                    header[k + 2]
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
