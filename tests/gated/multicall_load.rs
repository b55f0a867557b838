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

use crate::common;

use common::{Server, big_position, serial, until};
use goswiss::budget::Gate;
use goswiss::config::Config;
use serde_json::{Value, json};
use std::time::Duration;
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

/// Sends `body` as a JSON-RPC POST on a plain socket, whose replies the test can look for
/// without reading them.
fn post_json_std(addr: std::net::SocketAddr, body: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(
        format!(
            "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .unwrap();
    s
}

/// Whether any byte of a reply has come on `s` (without reading it).
fn replied(s: &std::net::TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let got =
        !matches!(s.peek(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
    s.set_nonblocking(false).unwrap();
    got
}

/// JSON-RPC batches run as a multicall does: their inline calls off the async worker, with a
/// turn at heavy work. One worker thread serves the daemon, and the only turn is held by a
/// big reply the test does not read yet (the turn is held until the reply is read), so both
/// batches are provably under way (each has created its tournament) and waiting, not done,
/// while `/health` answers. Were a batch's inline calls run on the worker, as jsonrpsee runs a
/// batch, neither its tournament nor `/health` could be seen before its whole reply was sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn health_answers_while_batches_from_two_clients_run() {
    let _serial = serial().await;
    let server = Server::start_with(Config {
        max_heavy_calls: 1,
        request_budget_ms: 0,
        max_body_bytes: 32 << 20,
        write_timeout_secs: 600,
        min_read_bytes_per_sec: 0,
        ..Config::default()
    })
    .await;
    // The turn's holder: a 12 MB reply, read only at the end.
    let record = format!("(;C[{}])", "x".repeat(12 << 20));
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "sgf.parse", "params": [record]}).to_string();
    drop(record);
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut holder = socket.connect(server.addr).await.unwrap();
    holder
        .write_all(
            format!(
                "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    drop(body);
    let mut first = [0u8; 64];
    holder
        .read_exact(&mut first)
        .await
        .expect("the big reply starts");

    let batch = |n: usize| {
        let mut calls = vec![
            json!({"jsonrpc": "2.0", "id": 0, "method": "matchmaker.create_tournament", "params": [[1, 2]]}),
        ];
        calls.extend((1..=n).map(|i| {
            json!({"jsonrpc": "2.0", "id": i, "method": "score.toggle_dead", "params": [big_position(), "aa"]})
        }));
        Value::Array(calls).to_string()
    };
    let a = post_json_std(server.addr, &batch(40));
    let b = post_json_std(server.addr, &batch(40));
    let c = common::client();
    // Both batches have made their first call...
    let mut started = false;
    for _ in 0..600 {
        let rounds = [
            server.call("matchmaker.round", json!([1])).await,
            server.call("matchmaker.round", json!([2])).await,
        ];
        if rounds.iter().all(Result::is_ok) {
            started = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(started, "the batches did not start");
    assert!(
        !replied(&a) && !replied(&b),
        "a batch finished on the worker"
    );
    // ...and wait for the turn: /health answers meanwhile.
    let health = c.get(server.url("/health")).send().await.expect("health");
    assert_eq!(health.status().as_u16(), 200);
    assert!(
        !replied(&a) && !replied(&b),
        "a batch finished before /health answered"
    );

    // The big reply read, the batches take the turn in turn and answer whole, in order.
    let mut rest = Vec::new();
    holder.read_to_end(&mut rest).await.unwrap();
    for (name, s) in [("a", a), ("b", b)] {
        let reply = tokio::task::spawn_blocking(move || {
            use std::io::Read;
            let mut s = s;
            s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).map(|_| out)
        })
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("batch {name}: {e}"));
        assert!(
            reply.starts_with("HTTP/1.1 200"),
            "{}",
            &reply[..reply.len().min(300)]
        );
        let body = reply.split("\r\n\r\n").nth(1).unwrap_or("");
        let answers: Vec<Value> = serde_json::from_str(body).expect("a JSON array");
        assert_eq!(answers.len(), 41);
        for (i, answer) in answers.iter().enumerate() {
            assert_eq!(answer["id"], json!(i), "batch {name}");
            assert!(
                answer.get("result").is_some(),
                "batch {name}, entry {i}: {answer}"
            );
        }
        assert!(answers[1]["result"]["dead"].is_array(), "{}", answers[1]);
    }
    server.stop().await;
}
