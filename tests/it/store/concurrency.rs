//! Concurrency: 16 clients check out and commit on one tournament at once. No match is handed
//! out twice, no commit is lost, and the tournament finishes.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Server, arr, call_xml, i4, parse_fault, parse_pair, table_scores, xml_post};

const PLAYERS: i64 = 64;
const CLIENTS: usize = 16;

/// The result of a pair depends only on the pair, so the tournament's course does not depend
/// on which client happened to commit what: the test is deterministic for a given seed.
fn result_for(a: i64, b: i64) -> i64 {
    ((a * 31 + b * 17) % 3) - 1
}

#[derive(Default)]
struct Seen {
    /// (round, low id, high id) of every match handed out.
    handed: Vec<(i64, i64, i64)>,
    /// Acknowledged commits in the stored orientation.
    committed: Vec<(i64, i64, i64)>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_clients_on_one_tournament() {
    let server = Server::start().await;
    let url = server.url("/RPC2");
    let c = common::client();
    let players = arr(&(1..=PLAYERS).map(i4).collect::<Vec<_>>());
    let seed = "<struct><member><name>seed</name><value><i4>2024</i4></value></member></struct>";
    let r = xml_post(
        &c,
        &url,
        call_xml(
            "matchmaker.create_tournament",
            &[&players, &i4(1), "<boolean>1</boolean>", seed],
        ),
    )
    .await;
    assert!(r.contains("<i4>1</i4>"), "{r}");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut tasks = Vec::new();
    for _ in 0..CLIENTS {
        let (c, url, seen) = (c.clone(), url.clone(), Arc::clone(&seen));
        tasks.push(tokio::spawn(async move {
            for _ in 0..10_000 {
                let r = xml_post(&c, &url, call_xml("matchmaker.checkout_match", &[&i4(1)])).await;
                let Some((a, b)) = parse_pair(&r) else {
                    match parse_fault(&r) {
                        Some((201, _)) => {
                            tokio::time::sleep(Duration::from_millis(2)).await;
                            continue;
                        }
                        Some((202, _)) => return,
                        other => panic!("unexpected reply {other:?}: {r}"),
                    }
                };
                // The round cannot advance while this match is out, so this is its round.
                let round = xml_post(&c, &url, call_xml("matchmaker.round", &[&i4(1)])).await;
                let round: i64 = round
                    .split("<i4>")
                    .nth(1)
                    .unwrap()
                    .split("</i4>")
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                seen.lock()
                    .unwrap()
                    .handed
                    .push((round, a.min(b), a.max(b)));
                let res = result_for(a, b);
                let r = xml_post(
                    &c,
                    &url,
                    call_xml(
                        "matchmaker.commit_match",
                        &[&i4(1), &arr(&[i4(a), i4(b)]), &i4(res)],
                    ),
                )
                .await;
                assert!(r.contains("<boolean>1</boolean>"), "{r}");
                seen.lock().unwrap().committed.push((a, b, res));
            }
            panic!("a client did not finish within 10,000 checkouts");
        }));
    }
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(120), t)
            .await
            .expect("clients finish in time")
            .unwrap();
    }
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let rounds = 6 + 1;
    assert_eq!(
        seen.committed.len(),
        rounds * 32,
        "every match committed once"
    );
    let unique: HashSet<_> = seen.handed.iter().collect();
    assert_eq!(unique.len(), seen.handed.len(), "no match handed out twice");
    let mut per_round: HashMap<i64, HashSet<i64>> = HashMap::new();
    for &(r, a, b) in &seen.handed {
        let s = per_round.entry(r).or_default();
        assert!(s.insert(a) && s.insert(b), "a player twice in round {r}");
    }
    assert_eq!(per_round.len(), rounds);
    // No commit lost: the standings equal the acknowledged results.
    let mut score: HashMap<i64, f64> = HashMap::new();
    for &(a, b, r) in &seen.committed {
        *score.entry(a).or_default() += [1.0, 0.5, 0.0][(r + 1) as usize];
        *score.entry(b).or_default() += [0.0, 0.5, 1.0][(r + 1) as usize];
    }
    let table = xml_post(
        &c,
        &url,
        call_xml("matchmaker.table_by_criteria", &[&i4(1)]),
    )
    .await;
    let got = table_scores(&table);
    assert_eq!(got.len(), PLAYERS as usize);
    for (id, s) in got {
        assert_eq!(s, score[&id], "player {id}");
    }
    let ended = xml_post(&c, &url, call_xml("matchmaker.has_ended", &[&i4(1)])).await;
    assert!(ended.contains("<boolean>1</boolean>"));
    server.stop().await;
}
