//! `tournament.subscribe` over WebSocket: a subscriber sees every durable change to its
//! tournament (kind, revision, round) and nothing of other tournaments.

use crate::common;

use std::time::Duration;

use common::Server;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn a_subscriber_sees_pairings_and_results_in_log_order() {
    // Keep-alive pings are tested elsewhere (slow_clients); here every frame is a message.
    let server = Server::start_with(goswiss::config::Config {
        ws_ping_secs: 0,
        ..goswiss::config::Config::default()
    })
    .await;
    let id = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    let other = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    for k in 0..4 {
        server
            .ok(
                "tournament.player.add",
                json!([id, {"name": format!("P{k}")}]),
            )
            .await;
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .unwrap();
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tournament.subscribe", "params": [id]})
            .to_string(),
    ))
    .await
    .unwrap();
    let ack: Value =
        serde_json::from_str(ws.next().await.unwrap().unwrap().to_text().unwrap()).unwrap();
    assert!(ack.get("result").is_some(), "{ack}");
    server
        .ok(
            "tournament.player.add",
            json!([other, {"name": "Elsewhere"}]),
        )
        .await;
    server.ok("tournament.round.pair", json!([id, 1])).await;
    server.ok("tournament.round.publish", json!([id, 1])).await;
    server
        .ok("tournament.result.set", json!([id, 1, 1, "W+"]))
        .await;
    let mut got = vec![];
    while got.len() < 3 {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a notification within 10 s")
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(m.to_text().unwrap()).unwrap();
        assert_eq!(v["method"], "tournament.event", "{v}");
        got.push(v["params"]["result"].clone());
    }
    let kinds: Vec<&str> = got.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["round_paired", "round_published", "result_set"]);
    let revs: Vec<u64> = got
        .iter()
        .map(|v| v["revision"].as_u64().unwrap())
        .collect();
    assert_eq!(revs, [6, 7, 8]);
    assert!(
        got.iter()
            .all(|v| v["tournament_id"] == id && v["round"] == 1)
    );
    assert_eq!(got[2]["result"], "W+");
    assert_eq!(got[2]["standings_changed"], true);
    // An unknown tournament is refused with the namespace's code.
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tournament.subscribe", "params": [9999]})
            .to_string(),
    ))
    .await
    .unwrap();
    let r: Value =
        serde_json::from_str(ws.next().await.unwrap().unwrap().to_text().unwrap()).unwrap();
    assert_eq!(r["error"]["code"], 1001, "{r}");
    drop(ws);
    server.stop().await;
}
