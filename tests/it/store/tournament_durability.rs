//! Durability of `tournament.*`: results are entered concurrently against the real binary,
//! which is killed with SIGKILL mid-round and restarted on the same database. Every
//! acknowledged result must be there, the revision must be where the acknowledgements left it
//! (or one further, for a call in flight), and the event plays on.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Child;

/// Starts `goswiss serve` on an ephemeral port; returns it with its JSON-RPC URL.
async fn spawn(db: &std::path::Path) -> (Child, String) {
    let d = common::daemon::spawn(common::daemon::serve(db)).await;
    (d.child, format!("http://{}/jsonrpc", d.addr))
}

/// One JSON-RPC call; `None` when the connection failed (the daemon was killed).
async fn call(c: &reqwest::Client, url: &str, method: &str, params: Value) -> Option<Value> {
    let r = c
        .post(url)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .ok()?;
    let v: Value = r.json().await.ok()?;
    match v.get("result") {
        Some(r) => Some(r.clone()),
        None => panic!("{method}: {v}"),
    }
}

#[derive(Default)]
struct Log {
    /// Acknowledged results: table → (result, revision after it).
    acked: HashMap<u64, (String, u64)>,
}

#[tokio::test]
async fn sigkill_loses_no_acknowledged_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("durable.db");
    let (mut child, url) = spawn(&db).await;
    let c = reqwest::Client::new();
    let id = call(
        &c,
        &url,
        "tournament.create",
        json!([{"name": "Kill", "rounds": 3}]),
    )
    .await
    .unwrap()["id"]
        .clone();
    for k in 0..80 {
        call(
            &c,
            &url,
            "tournament.player.add",
            json!([id, {"name": format!("P{k:02}"), "rank": format!("{}k", 1 + k % 25)}]),
        )
        .await
        .unwrap();
    }
    let paired = call(&c, &url, "tournament.round.pair", json!([id, 1]))
        .await
        .unwrap();
    assert_eq!(paired["games"].as_array().unwrap().len(), 40);
    let log = Arc::new(Mutex::new(Log::default()));
    let tasks: Vec<_> = (0..4u64)
        .map(|k| {
            let (c, url, id, log) = (c.clone(), url.clone(), id.clone(), Arc::clone(&log));
            tokio::spawn(async move {
                for table in (1..=40u64).filter(|t| t % 4 == k) {
                    let result = if table % 3 == 0 { "B+" } else { "W+" };
                    // Small pauses so the kill lands mid-round.
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    match call(
                        &c,
                        &url,
                        "tournament.result.set",
                        json!([id, 1, table, result]),
                    )
                    .await
                    {
                        Some(r) => {
                            let rev = r["revision"].as_u64().unwrap();
                            log.lock()
                                .unwrap()
                                .acked
                                .insert(table, (result.to_string(), rev));
                        }
                        None => return,
                    }
                }
            })
        })
        .collect();
    tokio::time::timeout(Duration::from_secs(60), async {
        while log.lock().unwrap().acked.len() < 20 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await
    .expect("half the results within 60 s");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    for t in tasks {
        t.await.unwrap();
    }
    let acked = std::mem::take(&mut log.lock().unwrap().acked);
    assert!(
        acked.len() >= 20 && acked.len() < 40,
        "{} acked",
        acked.len()
    );
    let (mut child, url) = spawn(&db).await;
    let round = call(&c, &url, "tournament.round.get", json!([id, 1]))
        .await
        .unwrap();
    let results: HashMap<u64, String> = round["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["table"].as_u64().unwrap(),
                g["result"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (table, (result, _)) in &acked {
        assert_eq!(&results[table], result, "table {table}");
    }
    // Nothing beyond the acknowledged calls, save the ≤ 4 in flight at the kill.
    let max_acked = acked.values().map(|(_, r)| *r).max().unwrap();
    let now = round["revision"].as_u64().unwrap();
    let set = results.values().filter(|r| r.as_str() != "?").count();
    assert!(
        now >= max_acked && now <= max_acked + 4,
        "{now} vs {max_acked}"
    );
    assert!(set >= acked.len() && set <= acked.len() + 4);
    // The round finishes and the next one pairs.
    for table in 1..=40u64 {
        call(
            &c,
            &url,
            "tournament.result.set",
            json!([id, 1, table, "W+"]),
        )
        .await
        .unwrap();
    }
    let r2 = call(&c, &url, "tournament.round.pair", json!([id, 2]))
        .await
        .unwrap();
    assert_eq!(r2["games"].as_array().unwrap().len(), 40);
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
