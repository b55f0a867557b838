//! A WebSocket client that disconnects while its call runs stops the call's work, as an HTTP
//! client that closes its connection does (tests/budget.rs): jsonrpsee drops a session's
//! in-flight calls when the session ends, and the call's budget guard cancels the work. Both a
//! stateless heavy call (`pairing.pair`) and a stateful one (`tournament.round.pair`, which
//! then records nothing) are checked.
//!
//! One test in its own binary: the cancellation counter is the whole process's.

mod common;

use std::time::{Duration, Instant};

use common::{Server, client};
use futures::{SinkExt, StreamExt};
use goswiss::budget::stopped_counts;
use goswiss::config::Config;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// Sends `call` on a new WebSocket session, checks nothing is answered for a while (the work
/// is under way), then drops the connection without a close handshake, as a crashed client
/// would.
async fn call_and_vanish(server: &Server, call: Value) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .expect("WebSocket connects");
    ws.send(Message::text(call.to_string()))
        .await
        .expect("call sent");
    let early = tokio::time::timeout(Duration::from_millis(1500), ws.next()).await;
    assert!(
        early.is_err(),
        "an answer came before the disconnect: {early:?}"
    );
    drop(ws);
}

/// Waits up to 30 s for the cancellation count to pass `before`.
async fn cancelled_since(before: u64) -> bool {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if stopped_counts().1 > before {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn a_websocket_client_that_disconnects_stops_its_calls_work() {
    // A budget far beyond the test, and no pings: only the disconnect can stop the work.
    let server = Server::start_with(Config {
        request_budget_ms: 600_000,
        ws_ping_secs: 0,
        ..Config::default()
    })
    .await;

    // pairing.pair of 10,000 players in window mode 8: minutes of work.
    let players: Vec<Value> = (1..=10_000)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64, "score": (i % 4) as f64}))
        .collect();
    let (_, cancels) = stopped_counts();
    call_and_vanish(
        &server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "pairing.pair",
               "params": [players, null, {"window": 8}]}),
    )
    .await;
    assert!(
        cancelled_since(cancels).await,
        "pairing.pair went on after its WebSocket client disconnected"
    );

    // tournament.round.pair of 4,000 players: seconds of work under the tournament's lock.
    let register: String = (1..=4000)
        .map(|i| format!("USA{i} Player{i}, Given  {}k\n", i % 29 + 1))
        .collect();
    let id = server
        .ok(
            "tournament.import",
            json!(["aga", {"register": register, "rounds": []}]),
        )
        .await["id"]
        .clone();
    let rev = server.ok("tournament.get", json!([id])).await["revision"].clone();
    let (_, cancels) = stopped_counts();
    call_and_vanish(
        &server,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tournament.round.pair", "params": [id, 1]}),
    )
    .await;
    assert!(
        cancelled_since(cancels).await,
        "tournament.round.pair went on after its WebSocket client disconnected"
    );
    // The read waits for the tournament's lock: it sees whatever the command did, which is
    // nothing.
    assert_eq!(
        server.ok("tournament.get", json!([id])).await["revision"],
        rev
    );
    let round: Value = client()
        .post(server.url("/jsonrpc"))
        .json(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tournament.round.get",
                      "params": [id, 1]}),
        )
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON reply");
    assert_eq!(
        round["result"]["paired"],
        json!(false),
        "round 1 was paired: {round}"
    );
    server.stop().await;
}
