//! Heavy inline work does not stall the server: while a `system.multicall` of
//! `score.toggle_dead` calls on 52×52 boards runs, `/health` and a cheap call still answer.
//! The runtime has one worker, so a multicall run on it would hold it until the end; the test
//! checks the order of the answers (health first), not a clock.
//!
//! Heavy calls take turns: at most `max_heavy_calls` compute at once (each can hold hundreds
//! of megabytes at its caps), and a call that finds no turn waits within its budget.
//!
//! The work that must be under way while a test acts (the multicall, a pairing holding its
//! turn) is held by the budget gate (`goswiss::budget::Gate`) until the test lets it go or its
//! budget runs out, so what each test sees does not depend on the machine's speed. The gate is
//! the whole process's: the tests here run one at a time.

mod common;

use common::{Server, big_position, serial, until};
use goswiss::budget::Gate;
use goswiss::config::Config;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn health_answers_while_a_multicall_of_heavy_inline_calls_runs() {
    let _serial = serial().await;
    // A budget beyond the test: the multicall ends when the gate lets it go.
    let server = Server::start_with(Config {
        request_budget_ms: 600_000,
        ..Config::default()
    })
    .await;
    let calls: Vec<Value> = (0..20)
        .map(|_| json!({"methodName": "score.toggle_dead", "params": [big_position(), "aa"]}))
        .collect();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "system.multicall", "params": [calls]})
        .to_string();
    // The multicall's first toggle is held when it is done: the multicall is under way, and
    // cannot end, until the gate opens.
    let gate = Gate::close(1);
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(
        format!(
            "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let multicall = tokio::spawn(async move {
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).await.expect("multicall reply");
        String::from_utf8_lossy(&reply).into_owned()
    });
    until("the multicall to start", || gate.held() == 1).await;
    let c = common::client();
    let health = c.get(server.url("/health")).send().await.expect("health");
    assert_eq!(health.status().as_u16(), 200);
    let echo: Value = c
        .post(server.url("/jsonrpc"))
        .header("Content-Type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":2,"method":"system.echo","params":[5]}"#)
        .send()
        .await
        .expect("echo")
        .json()
        .await
        .expect("JSON");
    assert_eq!(echo["result"], 5);
    assert!(!multicall.is_finished(), "the multicall ended while held");
    drop(gate);
    let reply = multicall.await.expect("multicall task");
    assert!(
        reply.starts_with("HTTP/1.1 200"),
        "{}",
        &reply[..reply.len().min(300)]
    );
    assert_eq!(
        reply.matches(r#""changed""#).count(),
        20,
        "not every toggle_dead answered"
    );
    server.stop().await;
}

/// `pairing.pair` of 10,000 players in window mode 8: minutes of work, held at its first
/// check by the gate anyway, so it holds its turn until its budget stops it or its client
/// hangs up.
fn endless_pairing() -> Value {
    let players: Vec<Value> = (1..=10_000)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64, "score": (i % 4) as f64}))
        .collect();
    json!([players, null, {"window": 8}])
}

/// A daemon with `turns` turns at heavy work. With one turn, a 1.5 s budget per call: the
/// pairing gives its turn back when its budget runs out. With more, a budget beyond the test.
async fn with_turns(turns: u32) -> Server {
    Server::start_with(Config {
        max_heavy_calls: turns,
        request_budget_ms: if turns == 1 { 1500 } else { 600_000 },
        ..Config::default()
    })
    .await
}

/// Calls `method` (of the heavy class) on a daemon with `turns` turns while an endless
/// pairing holds one of them, held under way at the gate. Returns the reply, and whether the
/// pairing still held its turn when the reply came. The pairing then ends: at its budget with
/// one turn (answered -32012), else when its client hangs up.
async fn beside_a_long_one(
    server: &Server,
    turns: u32,
    method: &str,
    params: Value,
) -> (Value, bool) {
    let gate = Gate::close(1);
    let url = server.url("/jsonrpc");
    let long = tokio::spawn(async move {
        common::rpc::jsonrpc(&common::client(), &url, "pairing.pair", endless_pairing()).await
    });
    until("the pairing to take its turn", || gate.held() == 1).await;
    let v = server.jsonrpc(method, params).await;
    // A held pairing has not given its turn back: it leaves the gate before it does.
    let pairing_held_its_turn = gate.held() == 1;
    if turns == 1 {
        let long = long.await.expect("pairing task");
        assert_eq!(long["error"]["code"], json!(-32012), "{long}");
    } else {
        long.abort();
        until("the pairing to stop when its client hangs up", || {
            gate.held() == 0
        })
        .await;
    }
    (v, pairing_held_its_turn)
}

/// A tiny `sgf.parse` (a heavy-class call: it runs on the blocking pool) beside an endless
/// pairing, on a daemon with `turns` turns.
async fn small_call_beside_a_long_one(turns: u32) -> (Value, bool) {
    let server = with_turns(turns).await;
    let answer = beside_a_long_one(&server, turns, "sgf.parse", json!(["(;SZ[9];B[ee])"])).await;
    server.stop().await;
    answer
}

#[tokio::test]
async fn heavy_calls_past_max_heavy_calls_wait_for_a_turn() {
    let _serial = serial().await;
    // One turn: the parse waits until the pairing is stopped at its budget and gives the turn
    // back, then runs, or runs out of its own budget waiting.
    let (v, pairing_held_its_turn) = small_call_beside_a_long_one(1).await;
    if v["error"]["code"] != json!(-32012) {
        assert!(v["result"].is_object(), "{v}");
        assert!(
            !pairing_held_its_turn,
            "the parse ran while the pairing held the only turn: {v}"
        );
    }
    // Two turns: it runs at once beside the pairing, which still holds its own.
    let (v, pairing_held_its_turn) = small_call_beside_a_long_one(2).await;
    assert!(v["result"].is_object(), "{v}");
    assert!(pairing_held_its_turn, "with a free turn the parse waited");
}

#[tokio::test]
async fn a_big_tournaments_pairing_takes_a_turn_too() {
    let _serial = serial().await;
    // 600 players is over the matchmaker's inline size: its checkout pairs round 1 on the
    // blocking pool, under the tournament's lock, and takes a turn like a stateless call.
    let players: Vec<u32> = (1..=600).collect();
    for turns in [1, 2] {
        let server = with_turns(turns).await;
        let id = server
            .ok("matchmaker.create_tournament", json!([players]))
            .await;
        let (v, pairing_held_its_turn) =
            beside_a_long_one(&server, turns, "matchmaker.checkout_match", json!([id])).await;
        let round = server.ok("matchmaker.round", json!([id])).await;
        server.stop().await;
        if turns == 1 {
            // Either it got the turn in time and paired, or its budget ran out waiting and
            // nothing was recorded.
            match v["error"]["code"].as_i64() {
                Some(-32012) => assert_eq!(round, json!(0), "{v}"),
                _ => {
                    assert_eq!(round, json!(1), "{v}");
                    assert!(
                        !pairing_held_its_turn,
                        "the checkout ran while the pairing held the only turn: {v}"
                    );
                }
            }
        } else {
            assert!(v["result"].is_array(), "{v}");
            assert_eq!(round, json!(1));
            assert!(
                pairing_held_its_turn,
                "with a free turn the checkout waited"
            );
        }
    }
}
