//! Memory of a request stays proportional to its input: `pairing.pair` in window mode used to
//! build every player's sorted candidate list up front (n² entries: 3.2 GB for 10,000 players,
//! over 6 GB for 20,000); now only the lists a step searches from exist at a time.
//!
//! One test in its own binary: the peak resident size (VmHWM) is the whole process's.

use goswiss::rpc::Params;
use goswiss::rpc::methods::pairing;
use serde_json::{Value, json};

/// The process's peak resident set in KiB (Linux).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

#[test]
fn window_mode_memory_is_linear_in_the_players() {
    let n = 3_000;
    let players: Vec<Value> = (1..=n)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64, "score": (i % 4) as f64}))
        .collect();
    let params = Params::positional(vec![
        Value::Array(players),
        Value::Null,
        json!({"window": 1}),
    ]);
    let before = peak_kib();
    let round = pairing::pair(&params).expect("a window pairing");
    let grown = peak_kib().saturating_sub(before);
    assert_eq!(
        round["pairs"].as_array().map(Vec::len),
        Some(n as usize / 2),
        "every player paired"
    );
    // All 3,000 lists at once: 3,000 × 2,999 entries of 32 bytes, about 280 MiB. One list is
    // 94 KiB; the request and the reply take a few MiB.
    assert!(
        grown < 64 * 1024,
        "peak memory grew by {} MiB for {n} players",
        grown / 1024
    );
}
