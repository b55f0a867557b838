//! A pairing request with no legal pairing is refused (610) at once, before the weighted
//! solver widens its graph towards the complete one.

use crate::common;

use std::time::{Duration, Instant};

use common::Server;
use serde_json::{Value, json};

#[tokio::test]
async fn a_field_without_a_legal_pairing_is_refused_quickly() {
    let server = Server::start().await;
    let n = 6000;
    let players: Vec<Value> = (1..=n)
        .map(|i| json!({"id": i, "rating": (i % 97) as f64, "score": (i % 5) as f64}))
        .collect();
    // Player 1 may meet nobody.
    let forbidden: Vec<Value> = (2..=n).map(|k| json!([1, k])).collect();
    let start = Instant::now();
    let v = server
        .jsonrpc(
            "pairing.pair",
            json!([players, null, {"forbidden": forbidden}]),
        )
        .await;
    assert_eq!(v["error"]["code"], json!(610), "{v}");
    // Generous for a loaded machine: before the check this took tens of seconds.
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    server.stop().await;
}
