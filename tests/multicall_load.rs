//! Heavy inline work does not stall the server: while a `system.multicall` of a thousand
//! `score.toggle_dead` calls on 52×52 boards runs, `/health` and a cheap call still answer.
//! The runtime has one worker, so a multicall run on it would hold it until the end; the test
//! checks the order of the answers (health first), not a clock.
//!
//! Heavy calls take turns: at most `max_heavy_calls` compute at once (each can hold hundreds
//! of megabytes at its caps), and a call that finds no turn waits within its budget.

mod common;

use std::time::{Duration, Instant};

use common::{Server, big_position};
use goswiss::config::Config;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn health_answers_while_a_multicall_of_heavy_inline_calls_runs() {
    let server = Server::start().await;
    let calls: Vec<Value> = (0..1000)
        .map(|_| json!({"methodName": "score.toggle_dead", "params": [big_position(), "aa"]}))
        .collect();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "system.multicall", "params": [calls]})
        .to_string();
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
    // Let the server read and start the multicall.
    tokio::time::sleep(Duration::from_millis(500)).await;
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
    assert!(
        !multicall.is_finished(),
        "the multicall ended before /health answered: the server stalled behind it (or it is too \
         small to tell)"
    );
    let reply = multicall.await.expect("multicall task");
    assert!(
        reply.starts_with("HTTP/1.1 200"),
        "{}",
        &reply[..reply.len().min(300)]
    );
    assert!(reply.contains(r#""dead""#), "no toggle_dead results");
    server.stop().await;
}

/// `pairing.pair` of 10,000 players in window mode 8: minutes of work, so it holds its turn
/// until its budget stops it.
fn endless_pairing() -> Value {
    let players: Vec<Value> = (1..=10_000)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64, "score": (i % 4) as f64}))
        .collect();
    json!([players, null, {"window": 8}])
}

/// A daemon with `turns` turns at heavy work and a 1.5 s budget per call.
async fn with_turns(turns: u32) -> Server {
    Server::start_with(Config {
        max_heavy_calls: turns,
        request_budget_ms: 1500,
        ..Config::default()
    })
    .await
}

/// How long a call (of the heavy class) takes while an endless pairing holds a turn; and its
/// reply.
async fn beside_a_long_one(server: &Server, method: &str, params: Value) -> (Duration, Value) {
    let url = server.url("/jsonrpc");
    let long = tokio::spawn(async move {
        common::rpc::jsonrpc(&common::client(), &url, "pairing.pair", endless_pairing()).await
    });
    // Let the pairing take its turn.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let start = Instant::now();
    let v = server.jsonrpc(method, params).await;
    let took = start.elapsed();
    let long = long.await.expect("pairing task");
    assert_eq!(long["error"]["code"], json!(-32012), "{long}");
    (took, v)
}

/// A tiny `sgf.parse` (a heavy-class call: it runs on the blocking pool) beside an endless
/// pairing, on a daemon with `turns` turns.
async fn small_call_beside_a_long_one(turns: u32) -> (Duration, Value) {
    let server = with_turns(turns).await;
    let answer = beside_a_long_one(&server, "sgf.parse", json!(["(;SZ[9];B[ee])"])).await;
    server.stop().await;
    answer
}

#[tokio::test]
async fn heavy_calls_past_max_heavy_calls_wait_for_a_turn() {
    // One turn: the parse waits until the pairing is stopped at its budget (1.5 s after it
    // started, 1.2 s after the parse was sent), then runs, or runs out of its own budget.
    let (took, v) = small_call_beside_a_long_one(1).await;
    assert!(
        took >= Duration::from_millis(1000),
        "the parse did not wait for the turn: answered in {took:?}: {v}"
    );
    assert!(
        v["result"].is_object() || v["error"]["code"] == json!(-32012),
        "{v}"
    );
    // Two turns: it runs at once beside the pairing.
    let (took, v) = small_call_beside_a_long_one(2).await;
    assert!(v["result"].is_object(), "{v}");
    assert!(
        took < Duration::from_millis(1000),
        "with a free turn the parse waited {took:?}"
    );
}

#[tokio::test]
async fn a_big_tournaments_pairing_takes_a_turn_too() {
    // 600 players is over the matchmaker's inline size: its checkout pairs round 1 on the
    // blocking pool, under the tournament's lock, and takes a turn like a stateless call.
    let players: Vec<u32> = (1..=600).collect();
    for turns in [1, 2] {
        let server = with_turns(turns).await;
        let id = server
            .ok("matchmaker.create_tournament", json!([players]))
            .await;
        let (took, v) = beside_a_long_one(&server, "matchmaker.checkout_match", json!([id])).await;
        let round = server.ok("matchmaker.round", json!([id])).await;
        server.stop().await;
        if turns == 1 {
            assert!(
                took >= Duration::from_millis(1000),
                "the checkout did not wait for the turn: answered in {took:?}: {v}"
            );
            // Either it got the turn in time and paired, or its budget ran out waiting and
            // nothing was recorded.
            match v["error"]["code"].as_i64() {
                Some(-32012) => assert_eq!(round, json!(0), "{v}"),
                _ => assert_eq!(round, json!(1), "{v}"),
            }
        } else {
            assert!(v["result"].is_array(), "{v}");
            assert_eq!(round, json!(1));
            assert!(
                took < Duration::from_millis(1000),
                "with a free turn the checkout waited {took:?}"
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
