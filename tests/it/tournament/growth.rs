//! What one caller can make the daemon keep, against the real server: `tournament.events`
//! paged by bytes (every event exactly once, across a restart), the per-tournament byte budget
//! (a refused write records nothing, and the count survives a restart), settings changes
//! stored as their difference, and game records read back from the store after a restart.

use crate::common;

use common::Server;
use goswiss::config::Config;
use serde_json::{Value, json};

/// The byte cap of one `tournament.events` page (README, Limits).
const PAGE_BYTES: usize = 1 << 20;

/// A record of about `kb` kilobytes: a short 9×9 game with a long comment; `tag` makes texts
/// differ.
fn record(kb: usize, tag: &str) -> String {
    let comment = format!("{tag} ").repeat(kb * 1024 / (tag.len() + 1));
    format!("(;GM[1]FF[4]SZ[9]KM[6.5]RE[W+R];B[ee]C[{comment}];W[cc])")
}

/// A tournament of `players` players with round 1 paired: its id and the round's tables.
async fn paired(s: &Server, players: usize) -> (i64, Vec<u64>) {
    let id = s
        .ok(
            "tournament.create",
            json!([{"name": "Growth", "rounds": 3, "board_size": 9}]),
        )
        .await["id"]
        .as_i64()
        .expect("id");
    for k in 0..players {
        s.ok(
            "tournament.player.add",
            json!([id, {"name": format!("Player{k}"), "rank": "1k"}]),
        )
        .await;
    }
    s.ok("tournament.round.pair", json!([id, 1])).await;
    let round = s.ok("tournament.round.get", json!([id, 1])).await;
    let tables = round["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["table"].as_u64().expect("table"))
        .collect();
    (id, tables)
}

/// Every page of the log from revision 0: the events' revisions in order, and each page's
/// event count and (serialized) event bytes.
async fn all_pages(s: &Server, id: i64) -> (Vec<u64>, Vec<(usize, usize)>, Vec<Value>) {
    let mut since = 0u64;
    let (mut revisions, mut pages, mut events) = (vec![], vec![], vec![]);
    for _ in 0..1000 {
        let page = s.ok("tournament.events", json!([id, since])).await;
        let list = page["events"].as_array().expect("events").clone();
        let bytes = list
            .iter()
            .map(|e| serde_json::to_string(&e["event"]).unwrap().len())
            .sum();
        pages.push((list.len(), bytes));
        for e in &list {
            revisions.push(e["revision"].as_u64().expect("revision"));
            events.push(e["event"].clone());
        }
        let next = page["next_since"].as_u64().expect("next_since");
        assert_eq!(next, since + list.len() as u64, "{page}");
        if !page["more"].as_bool().expect("more") {
            assert_eq!(next, page["revision"].as_u64().unwrap());
            return (revisions, pages, events);
        }
        assert!(!list.is_empty(), "a page with more to come moves on");
        since = next;
    }
    panic!("the log never ended");
}

fn check_pages(revisions: &[u64], pages: &[(usize, usize)], head: u64) {
    assert_eq!(
        revisions,
        (1..=head).collect::<Vec<_>>(),
        "every event once"
    );
    assert!(pages.len() >= 2, "{pages:?}");
    for &(n, bytes) in pages {
        // The stored body and the answer's event differ only by what is cleaned from the
        // answer: a page passes the cap only when it is one event.
        assert!(n == 1 || bytes <= PAGE_BYTES, "{pages:?}");
    }
}

#[tokio::test]
async fn events_come_in_pages_by_bytes_each_event_once_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pages.db");
    let s = Server::start_on(&db, Config::default()).await;
    let (id, tables) = paired(&s, 8).await;
    // Four records of 400 kB and corrections that keep them: about 1.6 MB of log in 30-odd
    // events, far below the 1000-event cap, so only the byte cap can split it.
    for (k, table) in tables.iter().enumerate() {
        s.ok(
            "tournament.result.set",
            json!([id, 1, table, "W+R", {"sgf": record(400, &format!("t{k}"))}]),
        )
        .await;
        s.ok("tournament.result.set", json!([id, 1, table, "B+R"]))
            .await;
    }
    let head = s.ok("tournament.get", json!([id])).await["revision"]
        .as_u64()
        .unwrap();
    let (revisions, pages, events) = all_pages(&s, id).await;
    check_pages(&revisions, &pages, head);
    // Asked past the head: an empty last page.
    let past = s.ok("tournament.events", json!([id, head + 5])).await;
    assert_eq!(past["events"], json!([]));
    assert_eq!(
        (past["more"].clone(), past["next_since"].clone()),
        (json!(false), json!(head))
    );
    s.stop().await;

    let s = Server::start_on(&db, Config::default()).await;
    let (again, pages_again, events_again) = all_pages(&s, id).await;
    assert_eq!((again, pages_again), (revisions, pages));
    assert_eq!(events_again, events);
    // The records are read from the store: each game's text as it was sent.
    for (k, table) in tables.iter().enumerate() {
        let g = s.ok("tournament.game.sgf", json!([id, 1, table])).await;
        assert_eq!(g["sgf"], json!(record(400, &format!("t{k}"))));
        assert_eq!(g["result"], json!("B+"));
    }
    s.stop().await;
}

/// `tournament.get`'s revision and the log's number of events as `tournament.events` pages it.
async fn revision_and_events(s: &Server, id: i64) -> (u64, usize) {
    let rev = s.ok("tournament.get", json!([id])).await["revision"]
        .as_u64()
        .unwrap();
    (rev, all_pages_count(s, id).await)
}

async fn all_pages_count(s: &Server, id: i64) -> usize {
    let mut since = 0u64;
    let mut n = 0;
    for _ in 0..1000 {
        let page = s.ok("tournament.events", json!([id, since])).await;
        n += page["events"].as_array().unwrap().len();
        if !page["more"].as_bool().unwrap() {
            return n;
        }
        since = page["next_since"].as_u64().unwrap();
    }
    panic!("the log never ended");
}

#[tokio::test]
async fn a_write_past_the_byte_budget_is_refused_and_records_nothing_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("budget.db");
    let config = || Config {
        max_tournament_bytes: 1_000_000,
        ..Config::default()
    };
    let s = Server::start_on(&db, config()).await;
    let (id, tables) = paired(&s, 8).await;
    // 300 kB records: the third fits, the fourth does not.
    let mut refused = None;
    for (k, table) in tables.iter().enumerate() {
        let before = revision_and_events(&s, id).await;
        let r = s
            .call(
                "tournament.result.set",
                json!([id, 1, table, "W+R", {"sgf": record(300, &format!("r{k}"))}]),
            )
            .await;
        match r {
            Ok(_) => assert!(k < 3, "record {k} fitted a 1 MB budget"),
            Err((code, message)) => {
                assert_eq!(code, 1038, "{message}");
                assert!(message.contains("1000000"), "{message}");
                assert!(message.contains("max_tournament_bytes"), "{message}");
                // Nothing recorded: same revision, same log, no result on that game.
                assert_eq!(revision_and_events(&s, id).await, before);
                let g = s.call("tournament.game.sgf", json!([id, 1, table])).await;
                assert_eq!(g.unwrap_err().0, 1035, "no record was kept");
                refused = Some((k, *table, before, message));
                break;
            }
        }
    }
    let (k, table, before, message) = refused.expect("the budget refused a record");
    assert_eq!(k, 3);
    // The size in the message is the log's: what the three records and the rest took.
    let size: u64 = message
        .split("holds ")
        .nth(1)
        .and_then(|m| m.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no size in {message:?}"));
    assert!((900_000..1_000_000).contains(&size), "{message}");
    // Small writes still fit.
    s.ok("tournament.result.set", json!([id, 1, table, "B+"]))
        .await;
    s.stop().await;

    // After a restart the log's size is counted again from the store: still refused.
    let s = Server::start_on(&db, config()).await;
    let (rev, n) = revision_and_events(&s, id).await;
    assert_eq!((rev, n), (before.0 + 1, before.1 + 1));
    let (code, again) = s
        .call(
            "tournament.result.set",
            json!([id, 1, table, "W+R", {"sgf": record(300, "late")}]),
        )
        .await
        .unwrap_err();
    assert_eq!(code, 1038, "{again}");
    assert_eq!(revision_and_events(&s, id).await, (rev, n));
    // Deleting is always possible.
    s.ok("tournament.delete", json!([id])).await;
    // And a tournament whose very first events pass the budget is not created.
    let tiny = Config {
        max_tournament_bytes: 100,
        ..Config::default()
    };
    s.stop().await;
    let s = Server::start_on(&db, tiny).await;
    let (code, message) = s
        .call(
            "tournament.create",
            json!([{"name": "Too big", "rounds": 3}]),
        )
        .await
        .unwrap_err();
    assert_eq!(code, 1038, "{message}");
    assert_eq!(s.ok("tournament.list", json!([])).await, json!([]));
    s.stop().await;
}

#[tokio::test]
async fn a_settings_change_is_stored_as_its_difference_and_replays_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("settings.db");
    let s = Server::start_on(&db, Config::default()).await;
    // About 27 kB of `extra` (under its caps: 1000 bytes a value, 64 kB in all).
    let extra: serde_json::Map<String, Value> = (0..30)
        .map(|k| (format!("k{k}"), json!("x".repeat(900))))
        .collect();
    let extra_bytes = 30 * 900;
    let id = s
        .ok(
            "tournament.create",
            json!([{"name": "Diff", "rounds": 3, "extra": {"Big": extra.clone()}}]),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    for k in 0..20 {
        s.ok(
            "tournament.settings.set",
            json!([id, {"name": format!("Diff {k}")}]),
        )
        .await;
    }
    let settings = s.ok("tournament.get", json!([id])).await["settings"].clone();
    assert_eq!(settings["name"], json!("Diff 19"));
    assert_eq!(settings["extra"]["Big"], Value::Object(extra));
    let (_, pages, events) = all_pages(&s, id).await;
    assert_eq!(pages.len(), 1);
    let last = events.last().unwrap();
    // As stored: the one member that changed, not the settings (nor `extra`) again.
    assert_eq!(
        *last,
        json!({"type": "settings_changed", "patch": [
            {"op": "replace", "path": "/name", "value": "Diff 19"}
        ]})
    );
    let stored: usize = events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap().len())
        .sum();
    assert!(stored < 2 * extra_bytes, "the log holds {stored} bytes");
    s.stop().await;

    let s = Server::start_on(&db, Config::default()).await;
    assert_eq!(
        s.ok("tournament.get", json!([id])).await["settings"],
        settings
    );
    s.stop().await;
}
