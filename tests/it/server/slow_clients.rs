//! Clients that hold the daemon's resources without using them: a body that never arrives, a
//! reply nobody reads, too many connections from one address, a WebSocket peer that never
//! answers a ping, and a file limit lower than `max_connections`.

use crate::common;

use std::time::{Duration, Instant};

use common::Server;
use futures::StreamExt;
use goswiss::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::process::Command;

const ECHO: &str = r#"{"jsonrpc":"2.0","id":1,"method":"system.echo","params":[[17,42]]}"#;

fn echo_request() -> Vec<u8> {
    format!(
        "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{ECHO}",
        ECHO.len()
    )
    .into_bytes()
}

/// Reads until the peer closes (EOF or reset) or `limit` passes; returns the bytes read and
/// whether the close was seen.
async fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Err(_) => return (out, false),
            Ok(Ok(0)) | Ok(Err(_)) => return (out, true),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test]
async fn a_body_that_never_arrives_gets_408() {
    let server = Server::start_with(Config {
        body_timeout_secs: 1,
        ..Config::default()
    })
    .await;
    for path in ["/RPC2", "/jsonrpc"] {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let ct = if path == "/RPC2" {
            "text/xml"
        } else {
            "application/json"
        };
        s.write_all(
            format!(
                "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: {ct}\r\n\
                 Content-Length: 1000\r\n\r\n<?xml"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        let started = Instant::now();
        let (reply, closed) = read_until_closed(&mut s, Duration::from_secs(15)).await;
        let reply = String::from_utf8_lossy(&reply);
        assert!(closed, "{path}: a stalled body keeps its connection");
        assert!(started.elapsed() < Duration::from_secs(10));
        if path == "/RPC2" {
            assert!(reply.starts_with("HTTP/1.1 408"), "{path}: {reply}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_reply_nobody_reads_is_given_up() {
    // The reply must outgrow every socket buffer between the two ends, so it is big: 24 MB.
    let server = Server::start_with(Config {
        write_timeout_secs: 1,
        max_body_bytes: 32 << 20,
        ..Config::default()
    })
    .await;
    let big = "x".repeat(24 << 20);
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"system.echo","params":["{big}"]}}"#);
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut s = socket.connect(server.addr).await.unwrap();
    s.write_all(
        format!(
            "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    drop(big);
    drop(body);
    // Read nothing for a while: the daemon must give up on this reply.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (got, closed) = read_until_closed(&mut s, Duration::from_secs(30)).await;
    assert!(closed);
    assert!(
        got.len() < 24 << 20,
        "the whole reply ({} bytes) was delivered to a client that stopped reading",
        got.len()
    );
    // The daemon still serves.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&echo_request()).await.unwrap();
    let mut buf = [0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("[17,42]"));
    server.stop().await;
}

#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    let server = Server::start_with(Config {
        max_connections_per_ip: 3,
        ..Config::default()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(&echo_request()).await.unwrap();
        let mut buf = [0u8; 1024];
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("[17,42]"));
        held.push(s);
    }
    // The fourth is closed at once, without an answer.
    let mut fourth = TcpStream::connect(server.addr).await.unwrap();
    let _ = fourth.write_all(&echo_request()).await;
    let (reply, closed) = read_until_closed(&mut fourth, Duration::from_secs(10)).await;
    assert!(
        closed && reply.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&reply)
    );
    // A slot comes back when one closes.
    drop(held.pop());
    let ok = async {
        for _ in 0..50 {
            let mut s = TcpStream::connect(server.addr).await.unwrap();
            let _ = s.write_all(&echo_request()).await;
            let (reply, _) = read_until_closed_or_reply(&mut s).await;
            if String::from_utf8_lossy(&reply).contains("[17,42]") {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    };
    assert!(ok.await, "no slot came back after a connection closed");
    server.stop().await;
}

/// Reads one reply (up to 2 s) or until closed.
async fn read_until_closed_or_reply(s: &mut TcpStream) -> (Vec<u8>, bool) {
    let mut buf = [0u8; 4096];
    match tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf)).await {
        Ok(Ok(n)) if n > 0 => (buf[..n].to_vec(), false),
        _ => (Vec::new(), true),
    }
}

#[tokio::test]
async fn a_websocket_peer_that_never_answers_pings_is_closed() {
    let server = Server::start_with(Config {
        ws_ping_secs: 1,
        ..Config::default()
    })
    .await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/", server.addr))
        .await
        .unwrap();
    // Not polling the stream means no pong is sent: the peer looks dead to the daemon.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(msg) = ws.next().await {
            match msg {
                Ok(tokio_tungstenite::tungstenite::Message::Close(_)) | Err(_) => return true,
                Ok(_) => {}
            }
        }
        true
    })
    .await
    .unwrap_or(false);
    assert!(ended, "an unresponsive WebSocket session stayed open");
    server.stop().await;
}

#[tokio::test]
async fn max_connections_fits_a_low_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(format!(
        "ulimit -n 200 && exec '{}' serve --listen 127.0.0.1:0 --json-logs --db '{}'",
        common::daemon::exe(),
        db.display()
    ));
    let errors = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&errors);
    let mut daemon = common::daemon::spawn_watching(cmd, move |line| {
        if line.contains("accept failed") {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .await;
    let addr = daemon.addr.clone();
    let lowered = daemon.start_log.iter().find_map(|v| {
        v["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("max_connections lowered"))
            .then(|| v["fields"]["effective"].as_u64())
            .flatten()
    });
    assert_eq!(lowered, Some(68), "the clamp was not logged");
    // 150 clients at once, each one call: every one is answered (those over the cap wait in
    // the backlog), and the daemon never runs out of descriptors.
    let calls = (0..150).map(|_| {
        let addr = addr.clone();
        async move {
            let mut s = TcpStream::connect(&addr).await.ok()?;
            s.write_all(&echo_request()).await.ok()?;
            let mut out = Vec::new();
            let mut buf = [0u8; 1024];
            while !String::from_utf8_lossy(&out).contains("[17,42]") {
                let n = s.read(&mut buf).await.ok()?;
                if n == 0 {
                    return None;
                }
                out.extend_from_slice(&buf[..n]);
            }
            Some(())
        }
    });
    let answered = tokio::time::timeout(Duration::from_secs(60), futures::future::join_all(calls))
        .await
        .expect("all 150 calls answered within 60 s");
    assert_eq!(answered.iter().filter(|a| a.is_some()).count(), 150);
    let health = common::client()
        .get(format!("http://{addr}/health"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .expect("/health answers");
    assert_eq!(health.status().as_u16(), 200);
    daemon.child.kill().await.ok();
    assert_eq!(
        errors.load(std::sync::atomic::Ordering::Relaxed),
        0,
        "accept failed"
    );
}

/// A connection from the loopback address `ip` (127.0.0.0/8 is all this machine's), so that
/// one test can be several clients.
async fn connect_from(ip: &str, server: &Server) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{ip}:0").parse().unwrap())
        .unwrap_or_else(|e| panic!("bind {ip}: {e}"));
    socket.connect(server.addr).await.unwrap()
}

/// Whether `s` answers an echo call (within 30 s, or before it is closed).
async fn echoes(s: &mut TcpStream) -> bool {
    let _ = s.write_all(&echo_request()).await;
    let mut buf = [0u8; 4096];
    matches!(
        tokio::time::timeout(Duration::from_secs(30), s.read(&mut buf)).await,
        Ok(Ok(n)) if String::from_utf8_lossy(&buf[..n]).contains("[17,42]")
    )
}

/// Whether an echo call on a new connection from `ip` is answered.
async fn echo_from(ip: &str, server: &Server) -> bool {
    echoes(&mut connect_from(ip, server).await).await
}

#[tokio::test]
async fn websocket_sessions_count_against_the_per_address_limit() {
    let server = Server::start_with(Config {
        max_connections_per_ip: 3,
        ..Config::default()
    })
    .await;
    let mut sessions = Vec::new();
    for _ in 0..3 {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
            .await
            .expect("a session under the limit");
        use futures::SinkExt;
        ws.send(tokio_tungstenite::tungstenite::Message::text(ECHO))
            .await
            .unwrap();
        // The answer is the first text frame: a ping may come first on a loaded machine.
        let reply = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                match ws.next().await {
                    Some(Ok(m)) if m.is_text() => break m,
                    Some(Ok(_)) => continue,
                    other => panic!("session closed before its answer: {other:?}"),
                }
            }
        })
        .await
        .expect("a reply");
        assert!(reply.to_string().contains("[17,42]"), "{reply}");
        sessions.push(ws);
    }
    // The address's three sessions are its three connections: a fourth (HTTP or WebSocket)
    // is closed at once.
    let mut fourth = connect_from("127.0.0.1", &server).await;
    let _ = fourth.write_all(&echo_request()).await;
    // A bound only a hang reaches (it took over 10 s once on a loaded machine).
    let (reply, closed) = read_until_closed(&mut fourth, Duration::from_secs(60)).await;
    assert!(
        closed && reply.is_empty(),
        "a fourth connection was served: {:?}",
        String::from_utf8_lossy(&reply)
    );
    assert!(
        tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
            .await
            .is_err(),
        "a fourth session was opened"
    );
    // Other addresses are served.
    assert!(echo_from("127.0.0.2", &server).await);
    // A session that ends gives its place back.
    drop(sessions.pop());
    // Polled with a bound only a hang reaches: on a loaded machine the session's end can take
    // seconds to be noticed (5 s was once not enough).
    let mut served = false;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if echo_from("127.0.0.1", &server).await {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(served, "no place came back after a session ended");
    server.stop().await;
}

/// A request head and the first byte of a 1000-byte body, the rest held back.
const SLOW_BODY: &[u8] =
    b"POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                           Content-Length: 1000\r\n\r\n{";

#[tokio::test]
async fn slow_senders_from_a_few_addresses_cannot_take_every_connection() {
    // Five addresses with four slow bodies each could hold all 20 connections; at most 10
    // may be sending a request, the oldest of them shed past that.
    let server = Server::start_with(Config {
        max_connections: 20,
        max_connections_per_ip: 4,
        max_reading_connections: 10,
        header_timeout_secs: 600,
        body_timeout_secs: 600,
        ..Config::default()
    })
    .await;
    let mut slow = Vec::new();
    for a in 2..=6 {
        for _ in 0..4 {
            let mut s = connect_from(&format!("127.0.0.{a}"), &server).await;
            s.write_all(SLOW_BODY).await.unwrap();
            slow.push(s);
        }
    }
    // A seventh address is served...
    assert!(
        echo_from("127.0.0.7", &server).await,
        "slow senders took every connection"
    );
    // ...the slow senders that had been at it longest were closed...
    let (_, closed) = read_until_closed(&mut slow[0], Duration::from_secs(20)).await;
    assert!(closed, "the oldest slow sender is still connected");
    // ...and the latest is still there: given the rest of its body, it is answered.
    let mut last = slow.pop().unwrap();
    let rest = format!(
        "{:<999}",
        r#""jsonrpc":"2.0","id":1,"method":"system.echo","params":[[17,42]]}"#
    );
    last.write_all(rest.as_bytes()).await.unwrap();
    let mut buf = [0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(30), last.read(&mut buf))
        .await
        .expect("an answer")
        .unwrap();
    assert!(
        String::from_utf8_lossy(&buf[..n]).contains("[17,42]"),
        "{:?}",
        String::from_utf8_lossy(&buf[..n])
    );
    server.stop().await;
}
