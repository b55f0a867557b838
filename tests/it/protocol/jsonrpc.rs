//! JSON-RPC 2.0 over HTTP and WebSocket: the same tournament played over both gives the same
//! pairings and standings; positional and named params, batches, and the same error codes as
//! XML-RPC.

use crate::common;

use std::time::Duration;

use common::{Server, client};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// One JSON-RPC transport.
enum Transport {
    Http(reqwest::Client, String),
    Ws(
        Box<
            tokio_tungstenite::WebSocketStream<
                tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
            >,
        >,
    ),
}

impl Transport {
    async fn raw(&mut self, request: Value) -> Value {
        match self {
            Transport::Http(c, url) => c
                .post(url.as_str())
                .json(&request)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap(),
            Transport::Ws(ws) => {
                ws.send(Message::text(request.to_string())).await.unwrap();
                loop {
                    let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
                        .await
                        .expect("reply in time")
                        .expect("open")
                        .unwrap();
                    if let Message::Text(t) = msg {
                        return serde_json::from_str(&t).unwrap();
                    }
                }
            }
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Result<Value, (i64, String)> {
        let reply = self
            .raw(json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
            .await;
        assert_eq!(reply["jsonrpc"], "2.0");
        assert_eq!(reply["id"], 7);
        match reply.get("error") {
            Some(e) => Err((
                e["code"].as_i64().unwrap(),
                e["message"].as_str().unwrap().to_string(),
            )),
            None => Ok(reply["result"].clone()),
        }
    }
}

/// Plays a seeded tournament; returns the pairs in order and the final standings.
async fn play(t: &mut Transport) -> (Vec<Value>, Value) {
    let id = t
        .call(
            "matchmaker.create_tournament",
            json!({"players": (1..=9).collect::<Vec<_>>(), "options": {"seed": 42}}),
        )
        .await
        .unwrap();
    let mut pairs = Vec::new();
    let mut k = 0;
    loop {
        match t.call("matchmaker.checkout_match", json!([id])).await {
            Ok(pair) => {
                let result = [-1, 0, 1][k % 3];
                k += 1;
                assert_eq!(
                    t.call("matchmaker.commit_match", json!([id, pair, result]))
                        .await,
                    Ok(json!(true))
                );
                pairs.push(pair);
            }
            Err(e) => {
                assert_eq!(e, (202, "This tournament reached the end!".to_string()));
                break;
            }
        }
    }
    assert_eq!(
        t.call("matchmaker.has_ended", json!({"tournament_id": id}))
            .await,
        Ok(json!(true))
    );
    let table = t
        .call("matchmaker.table_by_criteria", json!([id]))
        .await
        .unwrap();
    (pairs, table)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_tournament_over_http_and_websocket() {
    let server = Server::start().await;
    let mut http = Transport::Http(client(), server.url("/jsonrpc"));
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/", server.addr))
        .await
        .unwrap();
    let mut ws = Transport::Ws(Box::new(ws));
    let (pairs_http, table_http) = play(&mut http).await;
    let (pairs_ws, table_ws) = play(&mut ws).await;
    assert_eq!(pairs_http.len(), 4 * 4);
    assert_eq!(
        pairs_http, pairs_ws,
        "the same seed pairs the same way on both transports"
    );
    assert_eq!(table_http, table_ws);
    // Scores are JSON numbers with a fractional part kept as floats.
    assert!(table_http[0][2].is_f64());
    assert!(table_http[0][0].is_i64());
    // JSON on / works too.
    let mut root = Transport::Http(client(), server.url("/"));
    assert_eq!(
        root.call("matchmaker.round", json!([1])).await,
        Ok(json!(4))
    );
    server.stop().await;
}

#[tokio::test]
async fn errors_params_and_batches() {
    let server = Server::start().await;
    let mut t = Transport::Http(client(), server.url("/jsonrpc"));
    // The same codes and messages as over XML-RPC.
    assert_eq!(
        t.call("matchmaker.round", json!([5])).await,
        Err((2, "no tournament 5".into()))
    );
    assert_eq!(
        t.call("matchmaker.create_tournament", json!([[1, 1]]))
            .await,
        Err((101, "Repeated player ids detected!".into()))
    );
    assert_eq!(
        t.call("matchmaker.round", json!([])).await,
        Err((
            1,
            "Method matchmaker.round missing or wrong number of parameters!".into()
        ))
    );
    assert_eq!(
        t.call("nope.nothing", json!([])).await.unwrap_err().0,
        -32601
    );
    assert_eq!(
        t.call("matchmaker.round", json!({"tournament": 1})).await,
        Err((
            -32602,
            "matchmaker.round has no parameter \"tournament\" (parameters: tournament_id)".into()
        ))
    );
    // Named parameters may skip optional ones in the middle.
    let id = t
        .call(
            "matchmaker.create_tournament",
            json!({"players": [1, 2], "allow_repeat": false}),
        )
        .await
        .unwrap();
    assert_eq!(id, json!(1));
    let batch = t
        .raw(json!([
            {"jsonrpc": "2.0", "id": 1, "method": "matchmaker.round", "params": [1]},
            {"jsonrpc": "2.0", "id": 2, "method": "nope"},
            {"jsonrpc": "2.0", "id": 3, "method": "system.methodHelp", "params": ["matchmaker.round"]}
        ]))
        .await;
    let batch = batch.as_array().unwrap();
    assert_eq!(batch.len(), 3);
    let by_id = |i: i64| batch.iter().find(|r| r["id"] == i).unwrap().clone();
    assert_eq!(by_id(1)["result"], 0);
    assert_eq!(by_id(2)["error"]["code"], -32601);
    assert_eq!(by_id(3)["result"], "Number of rounds paired so far.");
    // OpenRPC description generated from the table.
    let doc = t.call("rpc.discover", json!([])).await.unwrap();
    let names: Vec<&str> = doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"matchmaker.commit_match"));
    // Malformed JSON.
    let r: Value = client()
        .post(server.url("/jsonrpc"))
        .header("content-type", "application/json")
        .body("{nope")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["error"]["code"], -32700);
    server.stop().await;
}

#[tokio::test]
async fn websocket_sessions_are_closed_on_shutdown() {
    let server = Server::start().await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .unwrap();
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 1, "method": "system.listMethods"}).to_string(),
    ))
    .await
    .unwrap();
    let first = next_text(&mut ws).await;
    assert!(first.contains("matchmaker.winner"), "{first}");
    let stop = tokio::spawn(server.stop());
    // The session ends (close frame or EOF) instead of hanging the shutdown.
    let end = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(Ok(msg)) = ws.next().await {
            if msg.is_close() {
                break;
            }
        }
    })
    .await;
    assert!(end.is_ok(), "the WebSocket session was closed");
    stop.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_websocket_sessions_than_jsonrpsee_allows_by_default() {
    // jsonrpsee's default limit is 100 connections; goswiss raises it.
    let server = Server::start().await;
    let mut sessions = Vec::new();
    for _ in 0..150 {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
            .await
            .expect("session accepted");
        sessions.push(ws);
    }
    for ws in sessions.iter_mut() {
        ws.send(Message::text(
            json!({"jsonrpc": "2.0", "id": 1, "method": "matchmaker.round", "params": [1]})
                .to_string(),
        ))
        .await
        .unwrap();
    }
    for ws in sessions.iter_mut() {
        let reply = tokio::time::timeout(Duration::from_secs(10), next_text(ws))
            .await
            .unwrap();
        assert!(reply.contains("no tournament 1"), "{reply}");
    }
    drop(sessions);
    server.stop().await;
}

/// The next text message of a session, past the daemon's keep-alive pings.
async fn next_text<S>(ws: &mut S) -> String
where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        match ws.next().await.expect("session open").expect("message") {
            Message::Text(t) => return t.to_string(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected message {other:?}"),
        }
    }
}
