//! Heavy inline work does not stall the server: while a `system.multicall` of a thousand
//! `score.toggle_dead` calls on 52×52 boards runs, `/health` and a cheap call still answer.
//! The runtime has one worker, so a multicall run on it would hold it until the end; the test
//! checks the order of the answers (health first), not a clock.

mod common;

use std::time::Duration;

use common::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A 52×52 board of alternating black and white walls with empty gaps.
fn big_position() -> Value {
    let rows: Vec<String> = (0..52)
        .map(|r| {
            (0..52)
                .map(|c| match (r % 4, c % 7) {
                    (_, 6) => '.',
                    (0 | 1, _) => 'b',
                    _ => 'w',
                })
                .collect()
        })
        .collect();
    json!({ "rows": rows })
}

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
