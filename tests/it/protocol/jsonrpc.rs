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

/// Sends `batch` over HTTP and over a WebSocket session: the two replies (`None` when there
/// was no answer to wait for).
async fn batch_both_ways(server: &Server, batch: &Value, answered: bool) -> (Value, Option<Value>) {
    let http: Value = client()
        .post(server.url("/jsonrpc"))
        .json(batch)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    if !answered {
        return (http, None);
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .unwrap();
    ws.send(Message::text(batch.to_string())).await.unwrap();
    let reply = tokio::time::timeout(Duration::from_secs(30), next_text(&mut ws))
        .await
        .expect("the batch's reply over WebSocket");
    (http, Some(serde_json::from_str(&reply).unwrap()))
}

#[tokio::test]
async fn batches_answer_each_entry_as_its_single_call_in_order() {
    let server = Server::start().await;
    let t = server
        .ok("matchmaker.create_tournament", json!([[1, 2, 3]]))
        .await;
    let position = json!({"rows": ["bw.", ".bw", "..."]});
    // Inline calls (echo, help, score.position) around heavy and stateful ones, named and
    // positional parameters, every kind of id, errors of every kind.
    let calls = [
        json!({"jsonrpc": "2.0", "id": "a", "method": "system.echo", "params": [1]}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "matchmaker.round", "params": [t]}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "system.methodHelp", "params": {"method_name": "matchmaker.round"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "nope.nothing"}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "system.echo", "params": {"nope": 1}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "sgf.parse", "params": ["(;SZ[9];B[ee])"]}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "score.position", "params": [position]}),
        json!({"jsonrpc": "2.0", "id": null, "method": "system.echo", "params": [[3, {"x": 4.5}]]}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "system.multicall", "params": [[{"methodName": "system.echo", "params": [9]}]]}),
        json!({"jsonrpc": "2.0", "id": 10, "method": "matchmaker.round"}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "system.echo"}),
    ];
    let mut singles = Vec::new();
    for call in &calls {
        singles.push(
            client()
                .post(server.url("/jsonrpc"))
                .json(call)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap(),
        );
    }
    let invalid = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid request"}});
    // Notifications (no id) get no answer; entries that are not requests get -32600.
    let mut batch = Vec::new();
    let mut want = Vec::new();
    for (i, (call, single)) in calls.iter().zip(&singles).enumerate() {
        batch.push(call.clone());
        want.push(single.clone());
        if i % 3 == 0 {
            batch.push(json!({"jsonrpc": "2.0", "method": "system.echo", "params": [i]}));
        }
        if i == 4 {
            batch.push(json!({"foo": "bar"}));
            want.push(invalid.clone());
            batch.push(json!(17));
            want.push(invalid.clone());
        }
    }
    let (http, ws) = batch_both_ways(&server, &Value::Array(batch), true).await;
    assert_eq!(http, Value::Array(want));
    assert_eq!(ws, Some(http));
    // The empty batch is one invalid-request error; a batch of notifications is not answered.
    let (http, ws) = batch_both_ways(&server, &json!([]), true).await;
    assert_eq!(http, invalid);
    assert_eq!(ws, Some(invalid));
    let (http, _) = batch_both_ways(
        &server,
        &json!([{"jsonrpc": "2.0", "method": "system.echo", "params": [1]}]),
        false,
    )
    .await;
    assert_eq!(http, Value::Null);
    server.stop().await;
}

#[tokio::test]
async fn a_batch_has_one_budget_for_all_its_calls() {
    let server = Server::start_with(common::with_budget(1000)).await;
    let players: Vec<Value> = (1..=10_000)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64}))
        .collect();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "system.echo", "params": ["before"]},
        // Minutes of work: stopped at the batch's budget.
        {"jsonrpc": "2.0", "id": 2, "method": "pairing.pair", "params": [players, null, {"window": 8}]},
        // Each alone would be answered at once; after the batch's budget they are not started.
        {"jsonrpc": "2.0", "id": 3, "method": "sgf.parse", "params": ["(;B[aa])"]},
        {"jsonrpc": "2.0", "id": 4, "method": "system.echo", "params": ["after"]},
    ]);
    let reply: Value = client()
        .post(server.url("/jsonrpc"))
        .json(&batch)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let over = json!({"code": -32012, "message": "request exceeded its time budget of 1000 ms",
        "data": {"request_budget_ms": 1000}});
    assert_eq!(reply[0]["result"], "before", "{reply}");
    for i in 1..4 {
        assert_eq!(reply[i]["error"], over, "entry {i}: {}", reply[i]);
        assert_eq!(reply[i]["id"], json!(i + 1));
    }
    server.stop().await;
}
