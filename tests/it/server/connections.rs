//! Connection hygiene: silent, slow and idle clients cannot hold connections for ever, the
//! connection cap makes new clients wait instead of failing or exhausting file descriptors,
//! and shutdown does not wait on idle keep-alive connections.

use crate::common;

use std::time::Duration;

use common::Server;
use goswiss::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ECHO: &str = r#"{"jsonrpc":"2.0","id":1,"method":"system.echo","params":[[17,42]]}"#;

fn echo_request(close: bool) -> Vec<u8> {
    format!(
        "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n{}\r\n{ECHO}",
        ECHO.len(),
        if close { "Connection: close\r\n" } else { "" }
    )
    .into_bytes()
}

/// Reads until the server closes the connection (or `limit` passes); returns what was read and
/// whether the close was seen.
async fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (String, bool) {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&out).into_owned(), false),
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&out).into_owned(), true),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test]
async fn silent_slow_and_idle_connections_are_closed() {
    let server = Server::start_with(Config {
        header_timeout_secs: 1,
        ..Config::default()
    })
    .await;
    let limit = Duration::from_secs(15);

    // Connects and never sends a byte.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    // Sends half a request head and stalls (slowloris).
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"POST /RPC2 HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    // A keep-alive client that makes one call and then idles.
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    idle.write_all(&echo_request(false)).await.unwrap();

    let (_, closed) = read_until_closed(&mut silent, limit).await;
    assert!(closed, "a silent connection stays open");
    let (_, closed) = read_until_closed(&mut slow, limit).await;
    assert!(closed, "a stalled request head keeps its connection");
    let (reply, closed) = read_until_closed(&mut idle, limit).await;
    assert!(
        reply.starts_with("HTTP/1.1 200") && reply.contains(r#""result":[17,42]"#),
        "{reply}"
    );
    assert!(closed, "an idle keep-alive connection stays open");

    // The daemon still serves afterwards.
    let mut fresh = TcpStream::connect(server.addr).await.unwrap();
    fresh.write_all(&echo_request(true)).await.unwrap();
    let (reply, closed) = read_until_closed(&mut fresh, limit).await;
    assert!(closed && reply.contains(r#""result":[17,42]"#), "{reply}");
    server.stop().await;
}

#[tokio::test]
async fn the_connection_cap_makes_new_clients_wait_not_fail() {
    let server = Server::start_with(Config {
        max_connections: 2,
        header_timeout_secs: 600,
        ..Config::default()
    })
    .await;
    let a = TcpStream::connect(server.addr).await.unwrap();
    let _b = TcpStream::connect(server.addr).await.unwrap();
    // Let the daemon accept both (it holds one permit per open connection).
    tokio::time::sleep(Duration::from_millis(200)).await;

    let url = server.url("/jsonrpc");
    let call = |timeout: Duration| {
        let url = url.clone();
        async move {
            reqwest::Client::new()
                .post(url)
                .header("content-type", "application/json")
                .body(ECHO)
                .timeout(timeout)
                .send()
                .await
        }
    };
    // Both slots are taken: a third client is not served...
    assert!(
        call(Duration::from_millis(1500)).await.is_err(),
        "served beyond max_connections"
    );
    // ...until one of them goes away; then it is, without any error.
    drop(a);
    let reply = call(Duration::from_secs(20))
        .await
        .expect("served once a slot is free");
    assert!(reply.status().is_success());
    assert!(reply.text().await.unwrap().contains("[17,42]"));
    server.stop().await;
}

#[tokio::test]
async fn shutdown_does_not_wait_for_idle_keep_alive_connections() {
    let server = Server::start_with(Config {
        header_timeout_secs: 600,
        ..Config::default()
    })
    .await;
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    idle.write_all(&echo_request(false)).await.unwrap();
    let mut buf = [0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(10), idle.read(&mut buf))
        .await
        .expect("reply")
        .unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("[17,42]"));
    let started = std::time::Instant::now();
    // `stop` fails the test after 20 s; the grace period for busy connections is 10 s and an
    // idle one must not use it.
    server.stop().await;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "shutdown waited {:?} on an idle connection",
        started.elapsed()
    );
}
