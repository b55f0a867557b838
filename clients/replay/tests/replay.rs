//! The replay client (`goswiss-replay`) against the real server, over XML-RPC, JSON-RPC and
//! WebSocket: it plays whole tournaments, several at once and several clients per tournament,
//! and its JSON summary must show every tournament finished with no invariant broken.

#[path = "../../../tests/it/common/mod.rs"]
mod common;

use std::process::Stdio;
use std::time::Duration;

use common::Server;
use serde_json::Value;

async fn replay(args: &[&str]) -> (std::process::ExitStatus, Value, String) {
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_goswiss-replay"))
        .args(args)
        .args(["--json", "--quiet"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), child)
        .await
        .expect("goswiss-replay finished within 5 minutes")
        .expect("goswiss-replay runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = format!(
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("summary is not JSON ({e}): {report}"));
    (out.status, summary, report)
}

/// Checks a run that must finish every tournament with no violation. The server's rswiss
/// pairing can, very rarely even with allow_repeat, run out of pairings (fault 205, as rswiss
/// did): such a tournament is a problem with its fault, and only then may matches fall short.
fn assert_clean(summary: &Value, report: &str, tournaments: u64, players: u64, rounds: u64) {
    let n = |k: &str| {
        summary[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k}: {report}"))
    };
    assert_eq!(n("tournaments"), tournaments, "{report}");
    assert_eq!(n("violations"), 0, "{report}");
    assert_eq!(n("transport_errors"), 0, "{report}");
    assert_eq!(n("finished") + n("problems"), tournaments, "{report}");
    let faults = summary["problem_faults"].as_object().unwrap();
    assert!(faults.keys().all(|k| k == "204" || k == "205"), "{report}");
    // Every round of every tournament: floor(n/2) matches.
    let full = tournaments * rounds * (players / 2);
    let matches = n("matches");
    if n("problems") == 0 {
        assert_eq!(matches, full, "{report}");
    } else {
        assert!(matches < full, "{report}");
    }
    // create + 2 per match + the final 202 + five end-of-tournament reads per tournament.
    assert!(n("rpcs") >= n("finished") * 7 + 2 * matches, "{report}");
    assert!(summary["match_cycles_per_second"].as_f64().unwrap() > 0.0);
    let lat = &summary["latency"]["matchmaker.commit_match"];
    assert_eq!(lat["count"].as_u64(), Some(matches), "{report}");
    let (p50, p99) = (
        lat["p50_ms"].as_f64().unwrap(),
        lat["p99_ms"].as_f64().unwrap(),
    );
    assert!(p50 > 0.0 && p50 <= p99, "{report}");
    for m in [
        "matchmaker.create_tournament",
        "matchmaker.checkout_match",
        "matchmaker.table_by_criteria",
        "matchmaker.winner",
    ] {
        assert!(
            summary["latency"][m]["count"].as_u64() > Some(0),
            "{m}: {report}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_tournaments_over_every_protocol() {
    let server = Server::start().await;
    let url = server.url("/");
    for protocol in ["xmlrpc", "jsonrpc", "ws"] {
        // 16 players: 4 rounds of 8 matches. Three tournaments at once, two clients each, so
        // checkouts of one round overlap and 201 retries happen.
        let (status, summary, report) = replay(&[
            "--url",
            &url,
            "--protocol",
            protocol,
            "--players",
            "16",
            "--tournaments",
            "6",
            "--concurrency",
            "3",
            "--clients-per-tournament",
            "2",
            "--allow-repeat",
            "--seed",
            "7",
        ])
        .await;
        assert!(status.success(), "{report}");
        assert_eq!(summary["protocol"], protocol, "{report}");
        assert_clean(&summary, &report, 6, 16, 4);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_fields_additional_rounds_and_the_rswiss_mode() {
    let server = Server::start().await;
    let url = server.url("/RPC2");
    // 7 players: a bye every round; 3 + 2 additional rounds = 5 rounds of 3 matches, so byes
    // must rotate and repeats are allowed as the last resort.
    let (status, summary, report) = replay(&[
        "--url",
        &url,
        "--players",
        "7",
        "--tournaments",
        "4",
        "--concurrency",
        "2",
        "--additional-rounds",
        "2",
        "--allow-repeat",
        "--pairing",
        "rswiss",
        "--results",
        "40/20/40",
        "--seed",
        "3",
    ])
    .await;
    assert!(status.success(), "{report}");
    assert_eq!(summary["pairing"], "rswiss", "{report}");
    assert_eq!(summary["results"], "40/20/40", "{report}");
    let finished = summary["finished"].as_u64().unwrap();
    let problems = summary["problems"].as_u64().unwrap();
    // rswiss's pairing may still run out of repetitions (fault 205): that is a problem
    // tournament, reported with its fault, never a violation.
    assert_eq!(finished + problems, 4, "{report}");
    assert_eq!(summary["violations"], 0, "{report}");
    assert_eq!(summary["transport_errors"], 0, "{report}");
    if problems > 0 {
        let faults = summary["problem_faults"].as_object().unwrap();
        assert!(faults.keys().all(|k| k == "204" || k == "205"), "{report}");
    } else {
        assert_eq!(summary["matches"], 4 * 5 * 3, "{report}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_drives_several_daemons() {
    // Two daemons (each its own store here): the workers are spread over the URLs in turn.
    let (a, b) = (Server::start().await, Server::start().await);
    let urls = format!("{},{}", a.url("/"), b.url("/"));
    let (status, summary, report) = replay(&[
        "--url",
        &urls,
        "--protocol",
        "jsonrpc",
        "--players",
        "8",
        "--tournaments",
        "6",
        "--concurrency",
        "2",
        "--allow-repeat",
        "--seed",
        "5",
    ])
    .await;
    assert!(status.success(), "{report}");
    assert_clean(&summary, &report, 6, 8, 3);
    assert_eq!(summary["url"], urls, "{report}");
    // The client's own CPU time, for benchmarks that run it beside the daemons.
    assert!(summary["cpu_seconds"].as_f64().unwrap() > 0.0, "{report}");
    // Each daemon played some: its first tournament exists and has ended.
    let c = common::client();
    for server in [&a, &b] {
        let reply = common::xml_post(
            &c,
            &server.url("/"),
            common::call_xml("matchmaker.has_ended", &[&common::i4(1)]),
        )
        .await;
        assert!(reply.contains("<boolean>1</boolean>"), "{reply}\n{report}");
    }
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_is_a_transport_error_and_a_failing_exit() {
    // Bind and drop a listener: nothing answers on that port.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{addr}/");
    let (status, summary, report) =
        replay(&["--url", &url, "--tournaments", "2", "--timeout", "5"]).await;
    assert!(!status.success(), "{report}");
    assert_eq!(summary["problems"], 2, "{report}");
    assert_eq!(summary["transport_errors"], 2, "{report}");
    assert_eq!(summary["matches"], 0, "{report}");
}

#[test]
fn bad_flags_are_refused() {
    for args in [
        &["--results", "20/50/20"][..],
        &["--results", "x"][..],
        &["--protocol", "soap"][..],
        &["--pairing", "random"][..],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_goswiss-replay"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_tournament_api_events() {
    let server = Server::start().await;
    let url = server.url("/");
    for protocol in ["jsonrpc", "xmlrpc"] {
        // 11 players (a bye every round), 3 rounds, four tournaments two at a time.
        let (status, summary, report) = replay(&[
            "--url",
            &url,
            "--protocol",
            protocol,
            "--api",
            "tournament",
            "--players",
            "11",
            "--rounds",
            "3",
            "--tournaments",
            "4",
            "--concurrency",
            "2",
            "--seed",
            "11",
        ])
        .await;
        assert!(status.success(), "{report}");
        let n = |k: &str| {
            summary[k]
                .as_u64()
                .unwrap_or_else(|| panic!("{k}: {report}"))
        };
        assert_eq!(n("tournaments"), 4, "{report}");
        assert_eq!(n("finished"), 4, "{report}");
        assert_eq!(n("problems"), 0, "{report}");
        assert_eq!(n("violations"), 0, "{report}");
        assert_eq!(n("matches"), 4 * 3 * 5, "{report}");
        let count = |m: &str| summary["latency"][m]["count"].as_u64();
        assert_eq!(count("tournament.result.set"), Some(60), "{report}");
        assert_eq!(count("tournament.round.pair"), Some(12), "{report}");
        assert_eq!(count("tournament.player.add"), Some(44), "{report}");
        assert_eq!(count("tournament.get"), Some(4), "{report}");
    }
    server.stop().await;
}
