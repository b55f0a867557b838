//! The simulation lab (`src/simulation`, `simulate.*`, `goswiss simulate`): the metrics on
//! fields whose answer is known, a simulated tournament replayed exactly through
//! `tournament.*` over RPC, the background job's progress, caps, cancellation and budget, the
//! charts as valid SVG, the web page and the CLI.

use crate::common;

use std::time::{Duration, Instant};

use common::rpc::{Client, Proto};
use common::{Server, serial, until};
use futures::{SinkExt, StreamExt};
use goswiss::budget::Gate;
use goswiss::config::Config;
use goswiss::simulation::{self, Control, Free, Limits, Prepared, Report, Spec};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

fn prepared(spec: Value) -> Prepared {
    Spec::from_value(spec)
        .unwrap()
        .prepare(&Limits::default())
        .unwrap()
}

fn report(spec: Value) -> Report {
    simulation::run(&prepared(spec), 2, &Control::default(), &Free).unwrap()
}

/// Eight players of distinct strength, one grade apart (the field has no ties).
fn ladder(n: usize) -> Value {
    let players: Vec<Value> = (0..n)
        .map(|k| json!({"name": format!("Rung{k}"), "rating": 1000 + 100 * k as i64}))
        .collect();
    json!({"players": players})
}

#[test]
fn sure_results_and_a_round_robin_rank_every_player_exactly() {
    // Its runs are budgeted work, which another test's gate would hold.
    let _serial = common::serial_blocking();
    // The stronger always wins (a table of certainty); 8 players and 7 rounds without
    // repeats is a round robin, so scores are 7, 6, … 0 in strength order.
    let r = report(json!({
        "field": ladder(8), "strength_sd": 0,
        "model": {"kind": "table", "p": [1.0]},
        "variants": [
            {"name": "swiss", "settings": {"system": "swiss", "rounds": 7}},
            {"name": "mcmahon", "settings": {"rounds": 7}},
            {"name": "short", "settings": {"system": "swiss", "rounds": 2}}
        ],
        "runs": 5
    }));
    for v in &r.variants[..2] {
        let tau = v.kendall_tau.unwrap();
        assert_eq!((tau.mean, tau.low, tau.high), (1.0, 1.0, 1.0), "{}", v.name);
        assert_eq!(v.spearman_rho.unwrap().mean, 1.0);
        assert_eq!(v.strongest_wins.unwrap().mean, 1.0);
        assert_eq!(v.top3.unwrap().mean, 1.0);
        assert_eq!(v.mean_abs_error.unwrap().mean, 0.0);
        assert_eq!(v.repeated_games.unwrap().mean, 0.0);
        assert!(v.error_by_true_rank.iter().all(|e| e.mean == 0.0));
    }
    // Two rounds cannot separate eight players: places are shared, τ falls short of 1.
    let short = r.variants[2].kendall_tau.unwrap();
    assert!(short.mean < 0.95 && short.mean > 0.5, "{short:?}");
    assert!(r.variants[2].mean_abs_error.unwrap().mean > 0.0);
}

#[test]
fn coin_flips_leave_strength_and_placement_unrelated() {
    // Its runs are budgeted work, which another test's gate would hold.
    let _serial = common::serial_blocking();
    // The result model says nothing about strength: τ is around 0 within its interval in a
    // Swiss event (no starting scores). McMahon's starting scores come from the ranks, so
    // even coin flips leave its placement correlated with strength.
    let r = report(json!({
        "field": {"generate": {"players": 24, "from": "15k", "to": "3d"}},
        "model": {"kind": "table", "p": [0.5]},
        "variants": [
            {"name": "swiss", "settings": {"system": "swiss", "rounds": 5}},
            {"name": "mcmahon", "settings": {"rounds": 5}}
        ],
        "runs": 300, "seed": 11
    }));
    let swiss = r.variants[0].kendall_tau.unwrap();
    assert!(swiss.low < 0.0 && 0.0 < swiss.high, "{swiss:?}");
    assert!(swiss.high - swiss.low < 0.05, "{swiss:?}");
    let strongest = r.variants[0].strongest_wins.unwrap();
    // One player in 24 wins by chance: about 4 %.
    assert!(
        strongest.low < 1.0 / 24.0 && 1.0 / 24.0 < strongest.high,
        "{strongest:?}"
    );
    let mm = r.variants[1].kendall_tau.unwrap();
    assert!(mm.low > 0.3, "{mm:?}");
    assert!(r.variants[1].tau_vs_first.unwrap().low > 0.3);
}

#[test]
fn more_rounds_rank_better_under_the_egf_model() {
    // Its runs are budgeted work, which another test's gate would hold.
    let _serial = common::serial_blocking();
    let r = report(json!({
        "field": {"generate": {"players": 30, "from": "20k", "to": "4d"}},
        "variants": [
            {"name": "3 rounds", "settings": {"system": "swiss", "rounds": 3}},
            {"name": "7 rounds", "settings": {"system": "swiss", "rounds": 7}}
        ],
        "runs": 80, "seed": 3
    }));
    let gain = r.variants[1].tau_vs_first.unwrap();
    assert!(gain.low > 0.0, "{gain:?}");
    // Handicaps are McMahon's: Swiss games are even.
    assert_eq!(r.variants[1].handicap_games.unwrap().mean, 0.0);
    assert_eq!(r.runs, 80);
    let total: u64 = r.variants[0].final_mms.iter().map(|m| m.players).sum();
    assert_eq!(total, 80 * 30);
}

#[test]
fn the_charts_are_valid_svg_with_a_mark_per_variant() {
    // Its runs are budgeted work, which another test's gate would hold.
    let _serial = common::serial_blocking();
    let r = report(json!({
        "field": {"generate": {"players": 12, "from": "10k", "to": "2d"}},
        "variants": [
            {"name": "a <&> \"b\"", "settings": {"rounds": 3}},
            {"name": "swiss", "settings": {"system": "swiss", "rounds": 3}}
        ],
        "runs": 20
    }));
    let charts = simulation::chart::all(&r);
    assert_eq!(charts.len(), 4);
    for (name, svg) in &charts {
        let counts = well_formed(svg);
        assert!(counts.get("svg") == Some(&1), "{name}");
        assert!(
            counts.get("text").copied().unwrap_or(0) >= 4,
            "{name}: {counts:?}"
        );
    }
    let tau = well_formed(&charts[0].1);
    assert_eq!(tau.get("circle"), Some(&2), "{tau:?}");
    for (name, svg) in &charts[1..3] {
        let c = well_formed(svg);
        assert_eq!(c.get("polyline"), Some(&2), "{name}: {c:?}");
        assert_eq!(c.get("polygon"), Some(&2), "{name}: {c:?}");
    }
    // The variant's name is escaped, not markup.
    assert!(charts[0].1.contains("a &lt;&amp;&gt; &quot;b&quot;"));
}

/// Parses an SVG document strictly (quick-xml checks that end tags match), requires one `svg`
/// root in the SVG namespace with a viewBox, and counts elements by name.
fn well_formed(text: &str) -> std::collections::HashMap<String, usize> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut open = 0usize;
    let mut roots = 0;
    let mut counts = std::collections::HashMap::new();
    let mut seen = |e: &quick_xml::events::BytesStart, open: usize| {
        let name = e.name().as_ref().to_string();
        if open == 0 {
            roots += 1;
            assert_eq!(name, "svg");
            let attr = |k: &str| {
                e.attributes()
                    .filter_map(Result::ok)
                    .find(|a| a.key.as_ref() == k)
                    .map(|a| a.value.to_string())
            };
            assert_eq!(attr("xmlns").as_deref(), Some("http://www.w3.org/2000/svg"));
            assert!(attr("viewBox").is_some());
        }
        *counts.entry(name).or_insert(0) += 1;
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                seen(&e, open);
                open += 1;
            }
            Ok(Event::Empty(e)) => seen(&e, open),
            Ok(Event::End(_)) => open -= 1,
            Ok(Event::Eof) => break,
            // Text, and character references in it (`&#39;`).
            Ok(Event::Text(_)) | Ok(Event::GeneralRef(_)) | Ok(Event::Decl(_)) => {}
            Ok(other) => panic!("unexpected {other:?}"),
            Err(e) => panic!("not well-formed SVG: {e}\n{text}"),
        }
    }
    assert_eq!((roots, open), (1, 0));
    counts
}

/// The settings a variant was simulated with, as `tournament.create` takes them.
fn settings_json(p: &Prepared, variant: usize) -> Value {
    let mut v = serde_json::to_value(&p.variants[variant].settings).unwrap();
    // The daemon leaves unset members (null) out of what it shows.
    if let Some(m) = v.as_object_mut() {
        m.retain(|_, x| !x.is_null());
    }
    v
}

/// Replays run `run` of `variant` through `tournament.*` over `client`: the same seed and
/// players, each round paired by the daemon and compared with the simulation's, the
/// simulation's results entered, and the final standings compared.
async fn replay_over_rpc(client: &Client, p: &Prepared, variant: usize, run: u64) {
    let (seed, field, played) = simulation::replay_run(p, variant, run)
        .expect("the run exists")
        .expect("the run plays");
    let d = &played.tournament.data;
    let created = client
        .ok(
            "tournament.create",
            vec![settings_json(p, variant), json!({"seed": seed})],
        )
        .await;
    let id = created["id"].clone();
    for pl in &field.players {
        let added = client
            .ok(
                "tournament.player.add",
                vec![
                    id.clone(),
                    json!({"name": pl.name, "first_name": pl.first_name, "rank": pl.rank,
                           "rating": pl.rating, "club": pl.club, "country": pl.country}),
                ],
            )
            .await;
        assert_eq!(added["player_id"], json!(pl.id), "{added}");
    }
    let options = match &p.variants[variant].pairing_model {
        Some(m) => json!({"model": m.name}),
        None => json!({}),
    };
    for (k, round) in d.rounds.iter().enumerate() {
        let r = k as u32 + 1;
        let paired = client
            .ok(
                "tournament.round.pair",
                vec![id.clone(), json!(r), options.clone()],
            )
            .await;
        let games = paired["games"].as_array().expect("games");
        assert_eq!(games.len(), round.games.len(), "round {r}");
        for (g, want) in games.iter().zip(&round.games) {
            let got = (
                g["table"].as_u64(),
                g["white"].as_u64(),
                g["black"].as_u64(),
                g["handicap"].as_u64(),
            );
            let expected = (
                Some(u64::from(want.table)),
                Some(u64::from(want.white)),
                Some(u64::from(want.black)),
                Some(u64::from(want.handicap)),
            );
            assert_eq!(got, expected, "variant {variant} run {run} round {r}");
        }
        assert_eq!(paired["byes"], json!(round.byes), "round {r}");
        for g in &round.games {
            let result = goswiss::tournament::engine::result_code(g.outcome, g.forfeit);
            client
                .ok(
                    "tournament.result.set",
                    vec![id.clone(), json!(r), json!(g.table), json!(result)],
                )
                .await;
        }
    }
    let st = client.ok("tournament.standings", vec![id.clone()]).await;
    let rows = st["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), played.standings.rows.len());
    for (got, want) in rows.iter().zip(&played.standings.rows) {
        assert_eq!(got["player_id"].as_u64(), Some(u64::from(want.id)), "{got}");
        assert_eq!(got["place"].as_u64(), Some(u64::from(want.place)), "{got}");
    }
    // The daemon's tournament is the simulated one, settings, players and rounds alike.
    let whole = client.ok("tournament.get", vec![id.clone()]).await;
    assert_eq!(whole["settings"], settings_json(p, variant));
    assert_eq!(whole["paired_rounds"], json!(d.rounds.len()));
}

#[tokio::test]
async fn a_simulated_tournament_replays_exactly_through_tournament_rpc() {
    let _serial = serial().await;
    let server = Server::start().await;
    let p = prepared(json!({
        "field": {"generate": {"players": 21, "from": "18k", "to": "3d", "clubs": 4,
                               "countries": 2}},
        "variants": [
            {"name": "mcmahon", "settings": {"rounds": 4, "mcmahon": {"bar": "1k"}}},
            {"name": "swiss gopair", "settings": {"system": "swiss", "rounds": 3},
             "pairing_model": "gopair"}
        ],
        "runs": 6, "seed": 99
    }));
    let json_client = Client::new(&server, Proto::Json);
    let xml_client = Client::new(&server, Proto::Xml);
    replay_over_rpc(&json_client, &p, 0, 3).await;
    replay_over_rpc(&xml_client, &p, 0, 5).await;
    replay_over_rpc(&json_client, &p, 1, 2).await;
    server.stop().await;
}

/// Polls `simulate.get` until the simulation has ended (bounded), returning its last answer.
async fn until_ended(server: &Server, id: &Value) -> Value {
    let start = Instant::now();
    loop {
        let s = server.ok("simulate.get", json!([id])).await;
        if s["state"] != "running" {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "still running after 120 s: {s}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `a` and `b` are the same JSON, numbers equal to 12 significant digits (a float's last digit
/// may differ once it has been through the daemon's JSON text and back).
fn assert_close(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0),
                "{at}: {x} != {y}"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (k, (p, q)) in x.iter().zip(y).enumerate() {
                assert_close(p, q, &format!("{at}[{k}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            // The daemon leaves null members out (XML-RPC has no nil): missing is null.
            for k in x.keys().chain(y.keys()) {
                let p = x.get(k).unwrap_or(&Value::Null);
                let q = y.get(k).unwrap_or(&Value::Null);
                assert_close(p, q, &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

#[tokio::test]
async fn simulate_start_then_get_gives_the_libraries_report() {
    let _serial = serial().await;
    let server = Server::start().await;
    let spec = json!({
        "field": {"generate": {"players": 14, "from": "12k", "to": "2d"}},
        "variants": [{"name": "bar 1k", "settings": {"rounds": 3, "mcmahon": {"bar": "1k"}}},
                     {"name": "bar 2d", "settings": {"rounds": 3, "mcmahon": {"bar": "2d"}}}],
        "runs": 25, "seed": 7
    });
    let started = server.ok("simulate.start", json!([spec])).await;
    assert_eq!(started["state"], "running");
    assert_eq!(started["runs"], 25);
    let id = started["id"].clone();
    assert_eq!(id.as_str().map(str::len), Some(32));
    let done = until_ended(&server, &id).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["done"], 25);
    // The daemon's report is the library's for the same spec, on whatever threads.
    // Both through JSON text: numbers read back the same way on both sides.
    let want: Value = serde_json::from_str(&serde_json::to_string(&report(spec)).unwrap()).unwrap();
    assert_close(&done["report"]["variants"], &want["variants"], "variants");
    // The brief form leaves the per-rank figures out; XML-RPC reads it too.
    let xml = Client::new(&server, Proto::Xml);
    let brief = xml
        .ok("simulate.get", vec![id.clone(), json!({"brief": true})])
        .await;
    assert!(
        brief["report"]["variants"][0]
            .get("error_by_true_rank")
            .is_none()
    );
    assert!(brief["report"]["variants"][0]["kendall_tau"]["mean"].is_number());
    // Unknown ids and malformed specs.
    let e = server
        .call("simulate.get", json!(["nope"]))
        .await
        .unwrap_err();
    assert_eq!(e.0, 1101, "{e:?}");
    let e = server
        .call(
            "simulate.start",
            json!([{"field": {"generate": {}}, "runs": 1}]),
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, -32602, "{e:?}");
    let e = server
        .call(
            "simulate.start",
            json!([{"field": {"generate": {"players": 10, "from": "5k", "to": "1d"}},
                     "variants": [{"settings": {"mcmahon": {"barr": 1}}}], "runs": 1}]),
        )
        .await
        .unwrap_err();
    assert!(e.0 == -32602 && e.1.contains("barr"), "{e:?}");
    assert!(
        e.1.contains("spec.variants[0].settings.mcmahon")
            && e.1.contains(r#"nearest valid key: "bar""#),
        "{e:?}"
    );
    // Strict input as everywhere: the path of the mistake and the nearest valid key.
    let e = server
        .call(
            "simulate.start",
            json!([{"field": {"generate": {"players": 10, "from": "5k", "to": "1d"}},
                     "runs": 1, "modle": {"kind": "egf"}}]),
        )
        .await
        .unwrap_err();
    assert!(
        e.0 == -32602 && e.1.contains("modle") && e.1.contains(r#"nearest valid key: "model""#),
        "{e:?}"
    );
    let e = server
        .call(
            "simulate.start",
            json!([{"field": {"generate": {"players": 10, "from": "5k", "to": "1d"}},
                     "runs": 1, "model": {"kind": "table", "p": [1.5]}}]),
        )
        .await
        .unwrap_err();
    assert!(e.0 == -32602 && e.1.contains("not a probability"), "{e:?}");
    server.stop().await;
}

fn small_field() -> Value {
    json!({"generate": {"players": 10, "from": "10k", "to": "1d"}})
}

#[tokio::test]
async fn specs_over_the_caps_are_refused_with_1103() {
    let _serial = serial().await;
    let server = Server::start_with(Config {
        max_simulation_players: 30,
        max_simulation_tournaments: 100,
        ..Config::default()
    })
    .await;
    let over = |spec: Value| {
        let server = &server;
        async move {
            let e = server
                .call("simulate.start", json!([spec]))
                .await
                .unwrap_err();
            assert_eq!(e.0, 1103, "{e:?}");
            e.1
        }
    };
    let m = over(
        json!({"field": {"generate": {"players": 31, "from": "10k", "to": "1d"}},
                        "runs": 1}),
    )
    .await;
    assert!(m.contains("30"), "{m}");
    over(json!({"field": small_field(), "runs": 1, "variants": vec![json!({}); 17]})).await;
    let m = over(json!({"field": small_field(), "runs": 51,
                        "variants": [{}, {"settings": {"system": "swiss"}}]}))
    .await;
    assert!(m.contains("max_simulation_tournaments"), "{m}");
    // A rating list's size is known once read: 31 listed players are over the cap too.
    let list: String = std::iter::once("name,rating".to_string())
        .chain((0..31).map(|k| format!("P{k},{}", 1000 + k)))
        .collect::<Vec<_>>()
        .join("\n");
    over(json!({"field": {"rating_list": {"text": list}}, "runs": 1})).await;
    // Simulations off.
    server.stop().await;
    let server = Server::start_with(Config {
        max_simulations: 0,
        ..Config::default()
    })
    .await;
    let e = server
        .call(
            "simulate.start",
            json!([{"field": small_field(), "runs": 1}]),
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, 1102, "{e:?}");
    server.stop().await;
}

/// A daemon with one turn at heavy work (so a simulation has one worker) and `config`'s
/// simulation settings.
async fn one_turn(config: Config) -> Server {
    Server::start_with(Config {
        max_heavy_calls: 1,
        ..config
    })
    .await
}

#[tokio::test]
async fn a_field_taken_from_a_tournament_plays_its_players() {
    let _serial = serial().await;
    let server = Server::start().await;
    let id = server
        .ok("tournament.create", json!([{"name": "Club", "rounds": 3}]))
        .await["id"]
        .clone();
    let ranks = [
        "12k", "9k", "7k", "5k", "3k", "2k", "1k", "1d", "2d", "3d", "4d",
    ];
    for (k, rank) in ranks.iter().enumerate() {
        server
            .ok(
                "tournament.player.add",
                json!([id, {"name": format!("Member{k}"), "rank": rank, "club": "Club"}]),
            )
            .await;
    }
    let started = server
        .ok(
            "simulate.start",
            json!([{"field": {"tournament": id}, "runs": 4, "seed": 9,
                    "variants": [{"settings": {"rounds": 3}}]}]),
        )
        .await;
    let done = until_ended(&server, &started["id"]).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["report"]["players"], ranks.len(), "{done}");
    // Every game is between two members of the one club: 11 players, 5 games a round.
    let v = &done["report"]["variants"][0];
    assert_eq!(v["same_club_games"]["mean"].as_f64(), Some(15.0), "{v}");
    // A tournament that does not exist is the usual 1001.
    let e = server
        .call(
            "simulate.start",
            json!([{"field": {"tournament": 999_999}, "runs": 1}]),
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, 1001, "{e:?}");
    server.stop().await;
}

#[tokio::test]
async fn the_simulation_page_fits_a_phone_screen() {
    let _serial = serial().await;
    let test = "the_simulation_page_fits_a_phone_screen";
    let Some(b) = common::browser::Browser::start(test).await else {
        return;
    };
    let server = Server::start().await;
    let variants: Vec<Value> = ["bar 1k", "bar 1d", "bar 2d", "no bar (4d)"]
        .iter()
        .zip(["1k", "1d", "2d", "4d"])
        .map(
            |(name, bar)| json!({"name": name, "settings": {"rounds": 3, "mcmahon": {"bar": bar}}}),
        )
        .collect();
    let started = server
        .ok(
            "simulate.start",
            json!([{"field": {"generate": {"players": 16, "from": "15k", "to": "3d"}},
                    "variants": variants, "runs": 20, "seed": 4}]),
        )
        .await;
    let id = started["id"].as_str().unwrap().to_string();
    assert_eq!(until_ended(&server, &started["id"]).await["state"], "done");
    let shots = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/web-screenshots");
    for (w, h) in [(1280, 900), (390, 844)] {
        b.set_size(w, h).await;
        b.goto(&server.url(&format!("/simulation/{id}"))).await;
        assert!(
            b.wait_for(
                "return document.querySelectorAll('figure.chart svg').length === 4;",
                Duration::from_secs(60),
            )
            .await,
            "the four charts show"
        );
        b.screenshot(&shots.join(format!("simulation-{w}.png")))
            .await;
        // The figures of four variants are wider than a phone: they scroll in their own box,
        // the page itself does not (nor do the charts, which shrink to the width).
        let over = b
            .exec(
                "const e = document.documentElement; return e.scrollWidth - e.clientWidth;",
                vec![],
            )
            .await;
        assert_eq!(over, json!(0), "the page is wider than {w} px");
    }
    b.close().await;
    server.stop().await;
}

/// `simulate.start` over JSON-RPC with `token` as the bearer, or over XML-RPC without one.
async fn start_as(
    server: &Server,
    proto: Proto,
    token: Option<&str>,
) -> Result<Value, (i64, String)> {
    let spec = json!({"field": small_field(), "runs": 1, "seed": 3});
    match proto {
        Proto::Xml => {
            Client::new(server, proto)
                .call("simulate.start", vec![spec])
                .await
        }
        Proto::Json => {
            let req = common::client().post(server.url("/jsonrpc")).json(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "simulate.start", "params": [spec]}),
            );
            let req = match token {
                Some(t) => req.bearer_auth(t),
                None => req,
            };
            let reply: Value = req.send().await.unwrap().json().await.unwrap();
            common::rpc::outcome(reply)
        }
    }
}

#[tokio::test]
async fn with_auth_on_only_the_admin_starts_a_simulation_unless_creation_is_open() {
    let _serial = serial().await;
    const ADMIN: &str = "admin-simulate-8d41f0c2a7e95b36";
    let server = Server::start_with(Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..Config::default()
    })
    .await;
    // It costs CPU for minutes: anonymous callers and wrong tokens are refused, on both
    // protocols, and nothing starts.
    for (proto, token) in [
        (Proto::Xml, None),
        (Proto::Json, None),
        (Proto::Json, Some("not-the-admin-token")),
    ] {
        let e = start_as(&server, proto, token).await.expect_err("refused");
        assert!(
            e.0 == -32010 && e.1.contains("admin token"),
            "{proto:?} {token:?}: {e:?}"
        );
    }
    let started = start_as(&server, Proto::Json, Some(ADMIN)).await.unwrap();
    // Its id is what reads it: `simulate.get` stays open.
    let done = until_ended(&server, &started["id"]).await;
    assert_eq!(done["state"], "done", "{done}");
    server.stop().await;

    // open_creation: anyone may start one, within max_simulations.
    let server = Server::start_with(Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        open_creation: true,
        ..Config::default()
    })
    .await;
    let started = start_as(&server, Proto::Json, None).await.unwrap();
    assert_eq!(until_ended(&server, &started["id"]).await["state"], "done");
    server.stop().await;
}

/// A rating list imported into the daemon (`ratings.import`) is a field: its rated players,
/// narrowed by rank, each run sampling from them; without the list, a clear refusal.
#[tokio::test]
async fn a_field_drawn_from_an_imported_rating_list() {
    let _serial = serial().await;
    let server = Server::start().await;
    let spec = |filter: Value| {
        json!([{"field": {"rating_list": filter}, "runs": 3, "seed": 5,
                "variants": [{"settings": {"rounds": 2}}]}])
    };
    let e = server
        .call(
            "simulate.start",
            spec(json!({"imported": "aga", "sample": 4})),
        )
        .await
        .unwrap_err();
    assert!(e.0 == 1204 && e.1.contains("no AGA list"), "{e:?}");

    let text =
        std::fs::read_to_string(common::files::data("ratings/tdlista-2021-excerpt.txt")).unwrap();
    server.ok("ratings.import", json!(["aga", text])).await;
    let started = server
        .ok(
            "simulate.start",
            spec(json!({"imported": "aga", "sample": 4, "from": "30k", "to": "9d"})),
        )
        .await;
    let done = until_ended(&server, &started["id"]).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["report"]["players"], 4, "{done}");
    let field = done["report"]["field"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        field.starts_with("4 players drawn from a list of "),
        "{field}"
    );
    // Every rated row of the excerpt is in the pool (the unrated ones are not).
    let rated = text
        .lines()
        .filter(|l| l.split('\t').nth(3).is_some_and(|r| !r.trim().is_empty()))
        .count();
    assert!(
        field.ends_with(&format!("list of {rated}")),
        "{field} / {rated} rated"
    );

    // A filter nobody passes, an unknown filter key, an unknown list.
    for (filter, says) in [
        (
            json!({"imported": "aga", "from": "9d", "to": "9d"}),
            "at least 2",
        ),
        (json!({"imported": "aga", "club": "x"}), "club"),
        (json!({"imported": "xyz"}), "imported"),
    ] {
        let e = server
            .call("simulate.start", spec(filter.clone()))
            .await
            .unwrap_err();
        assert!(e.0 == -32602 && e.1.contains(says), "{filter}: {e:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn one_simulation_at_a_time_and_cancel_stops_the_run_under_way() {
    let _serial = serial().await;
    let server = one_turn(Config {
        max_simulations: 1,
        ..Config::default()
    })
    .await;
    // The simulation's first run is held under way at the gate: it cannot end by itself.
    let gate = Gate::close(1);
    let long = server
        .ok(
            "simulate.start",
            json!([{"field": small_field(), "runs": 1000}]),
        )
        .await;
    until("the first run to be under way", || gate.held() == 1).await;
    let e = server
        .call(
            "simulate.start",
            json!([{"field": small_field(), "runs": 1}]),
        )
        .await
        .unwrap_err();
    assert_eq!(e.0, 1102, "{e:?}");
    // Cancelled: the run under way stops at its budget check, and the report covers the runs
    // done (none).
    let c = server.ok("simulate.cancel", json!([long["id"]])).await;
    assert_eq!(c["id"], long["id"]);
    let ended = until_ended(&server, &long["id"]).await;
    assert_eq!(gate.held(), 0);
    assert_eq!(ended["state"], "cancelled", "{ended}");
    assert_eq!(ended["done"], 0, "{ended}");
    assert_eq!(ended["report"]["runs"], 0, "{ended}");
    assert_eq!(ended["report"]["requested_runs"], 1000, "{ended}");
    drop(gate);
    // The slot is free again, and a cancel after the end changes nothing.
    let short = server
        .ok(
            "simulate.start",
            json!([{"field": small_field(), "runs": 2}]),
        )
        .await;
    let done = until_ended(&server, &short["id"]).await;
    assert_eq!(
        (done["state"].as_str(), done["done"].as_u64()),
        (Some("done"), Some(2))
    );
    let c = server.ok("simulate.cancel", json!([short["id"]])).await;
    assert_eq!(c["state"], "done");
    server.stop().await;
}

#[tokio::test]
async fn a_simulation_over_its_time_budget_stops_with_the_runs_it_did() {
    let _serial = serial().await;
    let server = one_turn(Config {
        simulation_budget_secs: 1,
        ..Config::default()
    })
    .await;
    // Its only run is held at the gate until its budget is over, then stopped there.
    let gate = Gate::close(1);
    let long = server
        .ok(
            "simulate.start",
            json!([{"field": small_field(), "runs": 1000}]),
        )
        .await;
    until("the first run to be under way", || gate.held() == 1).await;
    let ended = until_ended(&server, &long["id"]).await;
    assert_eq!(gate.held(), 0);
    assert_eq!(ended["state"], "stopped", "{ended}");
    let reason = ended["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("simulation_budget_secs"), "{ended}");
    assert_eq!(ended["report"]["runs"], 0, "{ended}");
    drop(gate);
    server.stop().await;
}

#[tokio::test]
async fn a_simulation_nobody_asks_about_is_stopped() {
    let _serial = serial().await;
    let server = one_turn(Config {
        simulation_idle_secs: 1,
        ..Config::default()
    })
    .await;
    let gate = Gate::close(1);
    let long = server
        .ok(
            "simulate.start",
            json!([{"field": small_field(), "runs": 1000}]),
        )
        .await;
    until("the first run to be under way", || gate.held() == 1).await;
    // Nobody asks (no get, no subscription): once idle, the run under way is stopped and
    // leaves the gate.
    until("the idle simulation to be stopped", || gate.held() == 0).await;
    let ended = until_ended(&server, &long["id"]).await;
    assert_eq!(ended["state"], "stopped", "{ended}");
    let reason = ended["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("simulation_idle_secs"), "{ended}");
    drop(gate);
    server.stop().await;
}

#[tokio::test]
async fn a_running_simulation_leaves_heavy_calls_their_turn() {
    let _serial = serial().await;
    // One heavy permit: the simulation's workers take it only when no heavy call waits, so a
    // pairing call is answered while a long simulation runs.
    let server = Server::start_with(Config {
        max_heavy_calls: 1,
        ..Config::default()
    })
    .await;
    let long = server
        .ok(
            "simulate.start",
            json!([{"field": {"generate": {"players": 40, "from": "15k", "to": "3d"}},
                     "runs": 100_000}]),
        )
        .await;
    let players: Vec<Value> = (0..200)
        .map(|k| json!({"id": format!("p{k}"), "rating": k * 7 % 300, "score": k % 4}))
        .collect();
    for _ in 0..5 {
        let s = server.ok("simulate.get", json!([long["id"]])).await;
        assert_eq!(s["state"], "running");
        let paired = server.ok("pairing.pair", json!([players])).await;
        assert_eq!(paired["pairs"].as_array().map(Vec::len), Some(100));
    }
    server.ok("simulate.cancel", json!([long["id"]])).await;
    until_ended(&server, &long["id"]).await;
    server.stop().await;
}

#[tokio::test]
async fn a_websocket_subscriber_sees_progress_then_the_report() {
    let _serial = serial().await;
    let server = Server::start_with(Config {
        ws_ping_secs: 0,
        ..Config::default()
    })
    .await;
    // The first run is held under way until a progress message has come: there is one to see
    // however fast the rest goes.
    let mut gate = Some(Gate::close(1));
    let started = server
        .ok(
            "simulate.start",
            json!([{"field": {"generate": {"players": 16, "from": "12k", "to": "2d"}},
                     "variants": [{"settings": {"rounds": 3}}], "runs": 60}]),
        )
        .await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .unwrap();
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 1, "method": "simulate.subscribe",
               "params": [started["id"]]})
        .to_string(),
    ))
    .await
    .unwrap();
    let mut last = Value::Null;
    let mut progress = 0;
    for _ in 0..10_000 {
        let m = tokio::time::timeout(Duration::from_secs(60), ws.next())
            .await
            .expect("a message within 60 s")
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(m.to_text().unwrap()).unwrap();
        if v.get("id") == Some(&json!(1)) {
            assert!(v.get("result").is_some(), "{v}");
            continue;
        }
        assert_eq!(v["method"], "simulate.progress", "{v}");
        let r = &v["params"]["result"];
        assert_eq!(r["id"], started["id"]);
        if r["state"] == "running" {
            assert!(r.get("report").is_none());
            assert!(r["done"].as_u64() < Some(60), "{r}");
            progress += 1;
            gate.take();
            continue;
        }
        last = r.clone();
        break;
    }
    assert!(
        progress >= 1,
        "at least one progress message before the end"
    );
    assert_eq!(last["state"], "done", "{last}");
    assert_eq!(last["report"]["runs"], 60);
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 2, "method": "simulate.subscribe", "params": ["nope"]})
            .to_string(),
    ))
    .await
    .unwrap();
    let r: Value =
        serde_json::from_str(ws.next().await.unwrap().unwrap().to_text().unwrap()).unwrap();
    assert_eq!(r["error"]["code"], 1101, "{r}");
    drop(ws);
    server.stop().await;
}

#[tokio::test]
async fn the_web_page_shows_progress_then_figures_and_charts() {
    let _serial = serial().await;
    let server = Server::start().await;
    let started = server
        .ok(
            "simulate.start",
            json!([{"field": {"generate": {"players": 10, "from": "12k", "to": "2d"}},
                     "variants": [{"name": "Bar <1d>", "settings": {"rounds": 3,
                                   "mcmahon": {"bar": "1d"}}}],
                     "runs": 15}]),
        )
        .await;
    let id = started["id"].as_str().unwrap().to_string();
    until_ended(&server, &json!(id)).await;
    let c = common::client();
    let page = c
        .get(server.url(&format!("/simulation/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Bar &lt;1d&gt;"), "the name, escaped");
    assert!(html.contains("Kendall"));
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(
        !html.contains("http-equiv=\"refresh\""),
        "a finished run stops reloading"
    );
    let svg = c
        .get(server.url(&format!("/simulation/{id}/chart/tau.svg")))
        .send()
        .await
        .unwrap();
    assert_eq!(svg.status(), 200);
    assert_eq!(
        svg.headers()["content-type"].to_str().unwrap(),
        "image/svg+xml"
    );
    well_formed(&svg.text().await.unwrap());
    for bad in [
        format!("/simulation/{id}/chart/nope.svg"),
        "/simulation/0123".to_string(),
    ] {
        assert_eq!(
            c.get(server.url(&bad)).send().await.unwrap().status(),
            404,
            "{bad}"
        );
    }
    // While it runs the page reloads itself (its first run held under way).
    let gate = Gate::close(1);
    let long = server
        .ok(
            "simulate.start",
            json!([{"field": {"generate": {"players": 10, "from": "12k", "to": "2d"}},
                     "runs": 100_000}]),
        )
        .await;
    until("the first run to be under way", || gate.held() == 1).await;
    let html = c
        .get(server.url(&format!("/simulation/{}", long["id"].as_str().unwrap())))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("http-equiv=\"refresh\""));
    assert!(html.contains("<progress"));
    server.ok("simulate.cancel", json!([long["id"]])).await;
    until_ended(&server, &long["id"]).await;
    drop(gate);
    server.stop().await;
}

#[test]
fn the_cli_writes_json_csv_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("charts");
    let json_path = dir.path().join("r.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goswiss"))
        .args([
            "simulate",
            "--players",
            "12",
            "--ranks",
            "10k..2d",
            "--rounds",
            "3",
            "--runs",
            "20",
            "--threads",
            "2",
            "--variant",
            r#"bar 1d={"mcmahon":{"bar":"1d"}}"#,
            "--variant",
            r#"swiss={"system":"swiss"}"#,
            "--csv",
            "-",
        ])
        .arg("--json")
        .arg(&json_path)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Not a terminal: plain progress lines, then the summary.
    assert!(stderr.contains("simulate: 20/20 runs (100%)"), "{stderr}");
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("variant,metric,index,mean,low,high,sd,n\n"));
    assert!(csv.contains("\nbar 1d,kendall_tau,,"));
    assert!(csv.contains("\nswiss,error_by_true_rank,12,"));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(report["runs"], 20);
    assert_eq!(report["variants"][1]["name"], "swiss");
    for name in [
        "tau.svg",
        "placement_error.svg",
        "placement_bias.svg",
        "final_mms.svg",
    ] {
        well_formed(&std::fs::read_to_string(svg.join(name)).unwrap());
    }
    // The same seed on one thread gives the same report.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goswiss"))
        .args([
            "simulate",
            "--players",
            "12",
            "--ranks",
            "10k..2d",
            "--rounds",
            "3",
            "--runs",
            "20",
            "--threads",
            "1",
            "--variant",
            r#"bar 1d={"mcmahon":{"bar":"1d"}}"#,
            "--variant",
            r#"swiss={"system":"swiss"}"#,
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again, report);
    // One run shown whole: players with their strength, rounds, standings.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goswiss"))
        .args([
            "simulate",
            "--players",
            "12",
            "--rounds",
            "3",
            "--show-run",
            "4",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown[0]["run"], 4);
    assert_eq!(shown[0]["players"].as_array().map(Vec::len), Some(12));
    assert_eq!(shown[0]["rounds"].as_array().map(Vec::len), Some(3));
    // A mistake is a message and a failure status, not a panic.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goswiss"))
        .args(["simulate", "--variant", r#"x={"mcmahon":{"bar":"11x"}}"#])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a rank"));
}

/// The CLI reads a federation's list from its file (here gzip-compressed, as the EGF list is
/// downloaded) and narrows it by country and rank; a filter on a CSV list is refused.
#[test]
fn the_cli_draws_a_field_from_a_federation_list_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let egf = std::fs::read(common::files::data("ratings/egf_db-2018-12-27-excerpt.txt")).unwrap();
    let gz_path = dir.path().join("egf_db.txt.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&egf).unwrap();
    std::fs::write(&gz_path, gz.finish().unwrap()).unwrap();
    let json_path = dir.path().join("r.json");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_goswiss"))
            .args(["simulate", "--rounds", "2", "--runs", "5", "--threads", "1"])
            .arg("--rating-list")
            .arg(&gz_path)
            .args(extra)
            .arg("--json")
            .arg(&json_path)
            .output()
            .unwrap()
    };
    // Russia's rows: eight, one a homonym's second row, so seven players.
    let out = run(&[
        "--list-format",
        "egf",
        "--list-countries",
        "ru",
        "--sample",
        "4",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(report["players"], 4, "{report}");
    assert_eq!(
        report["field"], "4 players drawn from a list of 7",
        "{report}"
    );

    let out = run(&["--list-format", "egf", "--list-ranks", "30k..21k"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at least 2"),
        "{out:?}"
    );
    let out = run(&["--list-countries", "FR"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--list-format"),
        "{out:?}"
    );
}
