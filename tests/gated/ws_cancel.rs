//! A WebSocket client that disconnects while its call runs stops the call's work, as an HTTP
//! client that closes its connection does (tests/gated/budget.rs): jsonrpsee drops a session's
//! in-flight calls when the session ends, and the call's budget guard cancels the work. Both a
//! stateless heavy call (`pairing.pair`) and a stateful one (`tournament.round.pair`, which
//! then records nothing) are checked.
//!
//! The budget gate (`goswiss::budget::Gate`) holds each call's work at its first budget check
//! until the client is gone: the work is under way when the client disconnects and cannot
//! finish before, whatever the machine's speed, and only the disconnect can end it.
//!
//! One test in its own binary: the gate and the cancellation counter are the whole process's.

use crate::common;

use common::{Server, client, until};
use futures::SinkExt;
use goswiss::budget::{Gate, stopped_counts};
use goswiss::config::Config;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// Sends `call` on a new WebSocket session, waits until its work is under way (held at the
/// gate), then drops the connection without a close handshake, as a crashed client would, and
/// waits until the work is stopped by that.
async fn call_and_vanish(server: &Server, call: Value) {
    let gate = Gate::close(1);
    let (_, cancels) = stopped_counts();
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .expect("WebSocket connects");
    ws.send(Message::text(call.to_string()))
        .await
        .expect("call sent");
    until("the call's work to start", || gate.held() == 1).await;
    drop(ws);
    until("the disconnect to stop the call's work", || {
        stopped_counts().1 > cancels
    })
    .await;
    assert_eq!(gate.held(), 0);
}

#[tokio::test]
async fn a_websocket_client_that_disconnects_stops_its_calls_work() {
    // The gate is process-wide: one gated binary's tests run one at a time.
    let _serial = common::serial().await;
    // A budget far beyond the test, and no pings: only the disconnect can stop the work.
    let server = Server::start_with(Config {
        request_budget_ms: 600_000,
        ws_ping_secs: 0,
        ..Config::default()
    })
    .await;

    // pairing.pair of 10,000 players in window mode 8: on the blocking pool, minutes of work
    // if it were let go.
    let players: Vec<Value> = (1..=10_000)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64, "score": (i % 4) as f64}))
        .collect();
    call_and_vanish(
        &server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "pairing.pair",
               "params": [players, null, {"window": 8}]}),
    )
    .await;

    // tournament.round.pair of 4,000 players: over the inline size, so the pairing runs on the
    // blocking pool, under the tournament's lock.
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
    call_and_vanish(
        &server,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tournament.round.pair", "params": [id, 1]}),
    )
    .await;
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
