//! The ambiguous commit, on both stateful namespaces: PostgreSQL commits a write and the
//! connection dies before its answer reaches the daemon. The client must be told -32008 with
//! a message that does not claim the call was not recorded (it was), and reading back must
//! show the write.
//!
//! A proxy on loopback stands between the daemon and PostgreSQL. Once armed with a marker (a
//! byte string only the write under test sends), it forwards the packet carrying the marker,
//! swallows the server's answers until PostgreSQL reports the transaction finished
//! (ReadyForQuery, idle: the COMMIT is done), and then closes both sides: deterministic, no
//! timing involved.

use crate::common;
use crate::postgres_common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Server;
use common::rpc::{Client, Proto};
use goswiss::config::Config;
use postgres_common::Postgres;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// PostgreSQL's ReadyForQuery message with the status "idle": no transaction open, so the
/// write before it is committed.
const READY_IDLE: &[u8] = b"Z\0\0\0\x05I";

#[derive(Default)]
struct Arm {
    marker: Option<Vec<u8>>,
    /// How many connections were cut after a commit.
    cut: usize,
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Starts the proxy to PostgreSQL on `pg_port`; returns its port.
async fn proxy(pg_port: u16, arm: Arc<Mutex<Arm>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = TcpStream::connect(("127.0.0.1", pg_port)).await else {
                continue;
            };
            tokio::spawn(pump(client, server, Arc::clone(&arm)));
        }
    });
    port
}

async fn pump(mut client: TcpStream, mut server: TcpStream, arm: Arc<Mutex<Arm>>) {
    let (mut a, mut b) = ([0u8; 65536], [0u8; 65536]);
    // The end of what the client sent before, so a marker split between reads is seen.
    let mut tail: Vec<u8> = Vec::new();
    let mut swallowing = false;
    let mut swallowed: Vec<u8> = Vec::new();
    loop {
        tokio::select! {
            n = client.read(&mut a) => {
                let Ok(n) = n else { return };
                if n == 0 { return }
                if server.write_all(&a[..n]).await.is_err() { return }
                let mut seen = std::mem::take(&mut tail);
                seen.extend_from_slice(&a[..n]);
                let mut armed = arm.lock().unwrap();
                if let Some(m) = armed.marker.clone() && contains(&seen, &m) {
                    armed.marker = None;
                    swallowing = true;
                }
                let keep = seen.len().saturating_sub(256);
                tail = seen[keep..].to_vec();
            }
            n = server.read(&mut b) => {
                let Ok(n) = n else { return };
                if n == 0 { return }
                if swallowing {
                    swallowed.extend_from_slice(&b[..n]);
                    if contains(&swallowed, READY_IDLE) {
                        // Committed, and the daemon never hears of it.
                        arm.lock().unwrap().cut += 1;
                        return;
                    }
                } else if client.write_all(&b[..n]).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn arm_with(arm: &Mutex<Arm>, marker: &str) {
    arm.lock().unwrap().marker = Some(marker.as_bytes().to_vec());
}

/// Retries a read until the daemon has reconnected (bounded: the store reconnects every
/// 0.5 s).
async fn read_back(c: &Client, method: &str, params: Vec<Value>) -> Value {
    for _ in 0..200 {
        match c.call(method, params.clone()).await {
            Ok(v) => return v,
            Err((-32008, _)) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) => panic!("{method}: {e:?}"),
        }
    }
    panic!("{method}: the daemon did not reconnect within 10 s");
}

fn assert_ambiguous(outcome: Result<Value, (i64, String)>, what: &str) {
    let (code, message) = match outcome {
        Ok(v) => panic!("{what}: answered {v} although the commit's answer was lost"),
        Err(e) => e,
    };
    assert_eq!(code, -32008, "{what}: {message}");
    assert!(
        !message.contains("not recorded"),
        "{what}: the write landed, the answer must not say otherwise: {message}"
    );
    assert!(
        message.contains("may have been recorded"),
        "{what}: {message}"
    );
    assert!(message.contains("read the state back"), "{what}: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_whose_answer_is_lost_is_minus_32008_on_both_namespaces_and_reads_back() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("lost_commit");
    let arm = Arc::new(Mutex::new(Arm::default()));
    let port = proxy(pg.port, Arc::clone(&arm)).await;
    let via_proxy = url.replace(&format!(":{}/", pg.port), &format!(":{port}/"));
    assert_ne!(via_proxy, url);
    let server = Server::start_on(std::path::Path::new(&via_proxy), Config::default()).await;
    let c = Client::new(&server, Proto::Json);
    read_back(&c, "tournament.list", vec![]).await;

    // tournament.*: a registration whose COMMIT answer is lost.
    let t = c
        .ok("tournament.create", vec![json!({"name": "Lost"})])
        .await;
    let tid = t["id"].clone();
    c.ok(
        "tournament.player.add",
        vec![tid.clone(), json!({"name": "Before"})],
    )
    .await;
    arm_with(&arm, "Zyzzyva");
    let r = c
        .call(
            "tournament.player.add",
            vec![tid.clone(), json!({"name": "Zyzzyva", "rank": "3d"})],
        )
        .await;
    assert_eq!(
        arm.lock().unwrap().cut,
        1,
        "the proxy cut the commit's answer"
    );
    assert_ambiguous(r, "tournament.player.add");
    let players = read_back(&c, "tournament.player.list", vec![tid.clone()]).await;
    let names: Vec<&str> = players
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Before", "Zyzzyva"],
        "the write landed and reads back"
    );
    // Trying it again blindly is refused: the player is there (what a read back avoids).
    let (code, _) = c
        .call(
            "tournament.player.add",
            vec![tid.clone(), json!({"name": "Zyzzyva"})],
        )
        .await
        .unwrap_err();
    assert_eq!(code, 1012);

    // matchmaker.*: a commit_match whose COMMIT answer is lost.
    let mid = c
        .ok(
            "matchmaker.create_tournament",
            vec![json!([1, 2, 3, 4]), json!(0), json!(false)],
        )
        .await;
    let pair = c.ok("matchmaker.checkout_match", vec![mid.clone()]).await;
    let out = c
        .ok("matchmaker.checkedout_matches", vec![mid.clone()])
        .await;
    assert_eq!(out, json!([pair.clone()]));
    arm_with(&arm, "committed");
    let r = c
        .call(
            "matchmaker.commit_match",
            vec![mid.clone(), pair.clone(), json!(-1)],
        )
        .await;
    assert_eq!(
        arm.lock().unwrap().cut,
        2,
        "the proxy cut the commit's answer"
    );
    assert_ambiguous(r, "matchmaker.commit_match");
    let out = read_back(&c, "matchmaker.checkedout_matches", vec![mid.clone()]).await;
    assert_eq!(
        out,
        json!([]),
        "the commit landed: the match is no longer out"
    );
    // Committing it again is refused: it is no longer checked out (what a read back avoids).
    let (code, _) = c
        .call(
            "matchmaker.commit_match",
            vec![mid.clone(), pair.clone(), json!(-1)],
        )
        .await
        .unwrap_err();
    assert_eq!(code, 303);
    server.stop().await;
}
