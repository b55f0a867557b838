//! The time budget (`request_budget_ms`, -32012) in the stateful namespaces: `tournament.*`'s
//! round pairing, standings and import, `matchmaker.*`'s first checkout (which pairs the
//! round). A call stopped at its budget, or by its client hanging up, records nothing; the cap
//! on a matchmaker tournament's players (`max_matchmaker_players`) is refused at create.
//!
//! Big tournaments are imported under a generous budget, then the daemon is restarted on the
//! same database with a small one: the import is not what the test is about.
//!
//! A round's pairing is held at its first budget check by the budget gate
//! (`goswiss::budget::Gate`) where a test must know it is under way (until its budget runs
//! out, or until its client has hung up), so no test depends on how fast the machine pairs.
//! The gate and the stop counters are the whole process's: the tests here run one at a time.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{Server, serial, until, with_budget};
use goswiss::budget::{Gate, stopped_counts};
use goswiss::config::Config;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

/// Players of the big field: over the inline size, so round 1's pairing (millions of weighted
/// pairs with OpenGotha's weight) runs on the blocking pool, under the tournament's lock.
const FIELD: usize = 4000;

fn assert_over_budget(v: &Value, ms: u64) {
    assert_eq!(v["error"]["code"], json!(-32012), "{v}");
    assert_eq!(
        v["error"]["message"],
        json!(format!("request exceeded its time budget of {ms} ms")),
        "{v}"
    );
}

/// An AGA register of `n` players of mixed ranks, and `rounds` round files in which each
/// player meets a new opponent every round (`n` a multiple of 2^rounds).
fn aga_files(n: usize, rounds: u32) -> Value {
    let mut register = String::from("## TOURNEY Budget test\n## ROUNDS 5\n");
    for i in 1..=n {
        let rank = if i % 3 == 0 {
            format!("{}d", i % 7 + 1)
        } else {
            format!("{}k", i % 29 + 1)
        };
        register.push_str(&format!("USA{i} Player{i}, Given  {rank}\n"));
    }
    let round_files: Vec<Value> = (0..rounds)
        .map(|r| {
            let mut text = String::new();
            for i in 0..n {
                let j = i ^ (1 << r);
                if i < j {
                    let result = if (i + r as usize).is_multiple_of(2) {
                        "w"
                    } else {
                        "b"
                    };
                    text.push_str(&format!("USA{} USA{} {result} 0 7\n", i + 1, j + 1));
                }
            }
            Value::String(text)
        })
        .collect();
    json!({"register": register, "rounds": round_files})
}

/// Imports a tournament under no budget and returns its id and revision.
async fn import_big(db: &Path, n: usize, rounds: u32) -> (Value, u64) {
    let server = Server::start_on(db, with_budget(0)).await;
    let r = server
        .ok(
            "tournament.import",
            json!(["aga", aga_files(n, rounds), "Big"]),
        )
        .await;
    let id = r["id"].clone();
    let rev = server.ok("tournament.get", json!([id])).await["revision"]
        .as_u64()
        .expect("revision");
    server.stop().await;
    (id, rev)
}

/// The tournament's revision, and whether round `round` is paired.
async fn state(server: &Server, id: &Value, round: u32) -> (u64, bool) {
    let rev = server.ok("tournament.get", json!([id])).await["revision"]
        .as_u64()
        .expect("revision");
    let got = server.ok("tournament.round.get", json!([id, round])).await;
    let paired = got["paired"].as_bool().expect("paired");
    (rev, paired)
}

#[tokio::test]
async fn a_round_pairing_past_its_budget_is_refused_and_records_nothing() {
    let _serial = serial().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.db");
    let (id, rev) = import_big(&db, FIELD, 0).await;
    let server = Server::start_on(&db, with_budget(200)).await;
    // The pairing is held at its first check until its budget has run out there.
    let gate = Gate::close(1);
    let (deadline_stops, _) = stopped_counts();
    let start = Instant::now();
    let v = server
        .jsonrpc("tournament.round.pair", json!([id, 1]))
        .await;
    assert_over_budget(&v, 200);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "answered after {:?}",
        start.elapsed()
    );
    // The answer came after the pairing's work ended (the registry waits for it).
    assert!(stopped_counts().0 > deadline_stops, "no check stopped it");
    drop(gate);
    assert_eq!(
        state(&server, &id, 1).await,
        (rev, false),
        "a stopped pairing left a round behind"
    );
    // Cheap commands on the same tournament still go through.
    let r = server
        .ok("tournament.player.update", json!([id, 1, {"club": "Budg"}]))
        .await;
    assert_eq!(r["revision"], json!(rev + 1), "{r}");
    server.stop().await;
}

#[tokio::test]
async fn a_round_pairing_whose_client_hangs_up_stops_and_records_nothing() {
    let _serial = serial().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.db");
    let (id, rev) = import_big(&db, FIELD, 0).await;
    // A budget far beyond the test: only the hang-up can stop the pairing, which the gate
    // holds under way until then.
    let server = Server::start_on(&db, with_budget(600_000)).await;
    let gate = Gate::close(1);
    let (_, cancels) = stopped_counts();
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tournament.round.pair", "params": [id, 1]})
            .to_string();
    let mut tcp = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let head = format!(
        "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.expect("head");
    tcp.write_all(body.as_bytes()).await.expect("body");
    until("the pairing to start", || gate.held() == 1).await;
    drop(tcp);
    until("the hang-up to stop the pairing", || {
        stopped_counts().1 > cancels
    })
    .await;
    drop(gate);
    // The read waits for the tournament's lock, so it sees whatever the command did.
    assert_eq!(
        state(&server, &id, 1).await,
        (rev, false),
        "a cancelled pairing left a round behind"
    );
    server.stop().await;
}

#[tokio::test]
async fn standings_and_imports_past_their_budget_are_refused() {
    let _serial = serial().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.db");
    let (id, _) = import_big(&db, 8000, 3).await;
    let server = Server::start_on(&db, with_budget(1)).await;
    // Three rounds of 8,000 players: the standings (and their copy) take more than 1 ms.
    let v = server.jsonrpc("tournament.standings", json!([id])).await;
    assert_over_budget(&v, 1);
    let v = server.jsonrpc("tournament.crosstable", json!([id])).await;
    assert_over_budget(&v, 1);
    // An import creates nothing when stopped.
    let before = server.ok("tournament.list", json!([])).await;
    let v = server
        .jsonrpc(
            "tournament.import",
            json!(["aga", aga_files(8000, 3), "Too slow"]),
        )
        .await;
    assert_over_budget(&v, 1);
    assert_eq!(server.ok("tournament.list", json!([])).await, before);
    server.stop().await;
}

#[tokio::test]
async fn a_matchmaker_checkout_past_its_budget_pairs_nothing() {
    let _serial = serial().await;
    // 1 ms: round 1 of 10,000 players takes tens of milliseconds (the solver checks the
    // budget at its start and through its dual steps), well under 100 ms on a quiet machine.
    let server = Server::start_with(with_budget(1)).await;
    let players: Vec<u32> = (1..=10_000).collect();
    let id = server
        .ok("matchmaker.create_tournament", json!([players]))
        .await;
    let v = server
        .jsonrpc("matchmaker.checkout_match", json!([id]))
        .await;
    assert_over_budget(&v, 1);
    assert_eq!(server.ok("matchmaker.round", json!([id])).await, json!(0));
    assert_eq!(
        server
            .ok("matchmaker.checkedout_matches", json!([id]))
            .await,
        json!([])
    );
    server.stop().await;
}

#[tokio::test]
async fn a_matchmaker_tournament_over_the_player_cap_is_refused_at_create() {
    let _serial = serial().await;
    let server = Server::start_with(Config {
        max_matchmaker_players: 50,
        ..Config::default()
    })
    .await;
    let over: Vec<u32> = (1..=51).collect();
    let v = server
        .jsonrpc("matchmaker.create_tournament", json!([over]))
        .await;
    assert_eq!(v["error"]["code"], json!(2), "{v}");
    assert_eq!(
        v["error"]["message"],
        json!("a tournament takes at most 50 players (max_matchmaker_players), got 51")
    );
    let at: Vec<u32> = (1..=50).collect();
    let id = server.ok("matchmaker.create_tournament", json!([at])).await;
    let pair = server.ok("matchmaker.checkout_match", json!([id])).await;
    assert_eq!(pair.as_array().map(Vec::len), Some(2), "{pair}");
    server.stop().await;

    // The default: 10,000.
    let server = Server::start().await;
    let over: Vec<u32> = (1..=10_001).collect();
    let v = server
        .jsonrpc("matchmaker.create_tournament", json!([over]))
        .await;
    assert_eq!(v["error"]["code"], json!(2), "{v}");
    server.stop().await;
}
