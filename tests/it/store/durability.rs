//! Durability: tournaments are played concurrently against the real binary, which is killed
//! with SIGKILL mid-play and restarted on the same database. Every acknowledged commit must
//! still be there, and the tournaments must play on to their end.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{arr, call_xml, i4, parse_fault, parse_pair, table_scores};
use tokio::process::Child;

/// Starts `goswiss serve` on an ephemeral port and returns it with its address, read from the
/// "listening" log line.
async fn spawn(db: &std::path::Path) -> (Child, String) {
    spawn_with(db, &[]).await
}

/// [`spawn`] with more environment variables.
async fn spawn_with(db: &std::path::Path, env: &[(&str, &str)]) -> (Child, String) {
    let mut cmd = common::daemon::serve(db);
    cmd.envs(env.iter().copied());
    let d = common::daemon::spawn(cmd).await;
    (d.child, format!("http://{}/", d.addr))
}

async fn post(c: &reqwest::Client, url: &str, body: String) -> Option<String> {
    let r = c
        .post(url)
        .header("content-type", "text/xml")
        .body(body)
        .send()
        .await
        .ok()?;
    r.text().await.ok()
}

#[derive(Default)]
struct Log {
    /// Acknowledged commits: (p1, p2, result) in the stored orientation.
    acked: Vec<(i64, i64, i64)>,
    /// A commit sent and not (yet) acknowledged.
    in_flight: Option<(i64, i64, i64)>,
}

fn points(log: &[(i64, i64, i64)]) -> HashMap<i64, f64> {
    let mut s = HashMap::new();
    for &(a, b, r) in log {
        *s.entry(a).or_insert(0.0) += [1.0, 0.5, 0.0][(r + 1) as usize];
        *s.entry(b).or_insert(0.0) += [0.0, 0.5, 1.0][(r + 1) as usize];
    }
    s
}

/// Plays tournament `t` until the connection fails or it ends; returns whether it ended.
async fn play(url: String, t: i64, log: Arc<Mutex<Log>>, seed: i64) -> bool {
    let c = reqwest::Client::new();
    let mut k = seed;
    loop {
        let Some(r) = post(&c, &url, call_xml("matchmaker.checkout_match", &[&i4(t)])).await else {
            return false;
        };
        let Some(pair) = parse_pair(&r) else {
            let (code, msg) = parse_fault(&r).expect("a pair or a fault");
            assert_eq!(code, 202, "{msg}");
            return true;
        };
        k = (k * 7 + 3) % 11;
        let result = [-1, 0, 1][(k % 3) as usize];
        log.lock().unwrap().in_flight = Some((pair.0, pair.1, result));
        let body = call_xml(
            "matchmaker.commit_match",
            &[&i4(t), &arr(&[i4(pair.0), i4(pair.1)]), &i4(result)],
        );
        let Some(r) = post(&c, &url, body).await else {
            return false;
        };
        assert!(r.contains("<boolean>1</boolean>"), "{r}");
        let mut l = log.lock().unwrap();
        l.in_flight = None;
        l.acked.push((pair.0, pair.1, result));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_loses_no_acknowledged_commit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("durable.db");
    let (mut child, url) = spawn(&db).await;
    let c = reqwest::Client::new();
    let players = arr(&(1..=16).map(i4).collect::<Vec<_>>());
    let mut ids = Vec::new();
    for _ in 0..4 {
        let r = post(
            &c,
            &url,
            call_xml("matchmaker.create_tournament", &[&players]),
        )
        .await
        .unwrap();
        ids.push(
            r.split("<i4>")
                .nth(1)
                .unwrap()
                .split("</i4>")
                .next()
                .unwrap()
                .parse::<i64>()
                .unwrap(),
        );
    }
    let logs: Vec<Arc<Mutex<Log>>> = ids.iter().map(|_| Arc::default()).collect();
    let tasks: Vec<_> = ids
        .iter()
        .zip(&logs)
        .map(|(&t, log)| tokio::spawn(play(url.clone(), t, Arc::clone(log), t)))
        .collect();
    // Kill once roughly half of the 4 × 32 matches are acknowledged.
    tokio::time::timeout(Duration::from_secs(60), async {
        while logs
            .iter()
            .map(|l| l.lock().unwrap().acked.len())
            .sum::<usize>()
            < 64
        {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await
    .expect("half the matches within 60 s");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    for t in tasks {
        assert!(
            !t.await.unwrap(),
            "no tournament could have ended before the kill"
        );
    }

    let (child, url) = spawn(&db).await;
    for (&t, log) in ids.iter().zip(&logs) {
        let (acked_log, in_flight) = {
            let l = log.lock().unwrap();
            (l.acked.clone(), l.in_flight)
        };
        let table = post(
            &c,
            &url,
            call_xml("matchmaker.table_by_criteria", &[&i4(t)]),
        )
        .await
        .unwrap();
        let got = table_scores(&table);
        let acked = points(&acked_log);
        let mut with_in_flight = acked_log.clone();
        with_in_flight.extend(in_flight);
        let maybe = points(&with_in_flight);
        for p in 1..=16 {
            let g = got.get(&p).copied().unwrap_or(-1.0);
            let a = acked.get(&p).copied().unwrap_or(0.0);
            let m = maybe.get(&p).copied().unwrap_or(0.0);
            assert!(
                g == a || g == m,
                "tournament {t} player {p}: {g} after restart, {a} acknowledged"
            );
        }
        // Acknowledged commits cannot be committed again.
        for &(a, b, r) in &acked_log {
            let again = post(
                &c,
                &url,
                call_xml(
                    "matchmaker.commit_match",
                    &[&i4(t), &arr(&[i4(a), i4(b)]), &i4(r)],
                ),
            )
            .await
            .unwrap();
            assert_eq!(parse_fault(&again).map(|f| f.0), Some(303), "{again}");
        }
    }
    // Finish every tournament: commit what is still out, then play on to 202.
    for (&t, log) in ids.iter().zip(&logs) {
        let out = post(
            &c,
            &url,
            call_xml("matchmaker.checkedout_matches", &[&i4(t)]),
        )
        .await
        .unwrap();
        let mut ids_out = out
            .split("<i4>")
            .skip(1)
            .map(|s| s.split("</i4>").next().unwrap().parse::<i64>().unwrap());
        while let (Some(a), Some(b)) = (ids_out.next(), ids_out.next()) {
            let r = post(
                &c,
                &url,
                call_xml(
                    "matchmaker.commit_match",
                    &[&i4(t), &arr(&[i4(a), i4(b)]), &i4(0)],
                ),
            )
            .await
            .unwrap();
            assert!(r.contains("<boolean>1</boolean>"), "{r}");
        }
        assert!(
            play(url.clone(), t, Arc::clone(log), 1).await,
            "tournament {t} finishes after the restart"
        );
        let ended = post(&c, &url, call_xml("matchmaker.has_ended", &[&i4(t)]))
            .await
            .unwrap();
        assert!(ended.contains("<boolean>1</boolean>"));
        let round = post(&c, &url, call_xml("matchmaker.round", &[&i4(t)]))
            .await
            .unwrap();
        assert!(round.contains("<i4>4</i4>"), "{round}");
    }
    drop(child);
}

/// Creates the daemon's first tournament (players 1..=n) and checks a match out of it.
async fn create_and_check_out(c: &reqwest::Client, url: &str, n: i64) -> (i64, i64) {
    let players: Vec<String> = (1..=n).map(i4).collect();
    let r = post(
        c,
        url,
        call_xml("matchmaker.create_tournament", &[&arr(&players)]),
    )
    .await
    .unwrap();
    assert!(r.contains("<i4>1</i4>"), "{r}");
    let r = post(c, url, call_xml("matchmaker.checkout_match", &[&i4(1)]))
        .await
        .unwrap();
    parse_pair(&r).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_shuts_down_gracefully_and_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("term.db");
    let (mut child, url) = spawn(&db).await;
    let c = reqwest::Client::new();
    let pair = create_and_check_out(&c, &url, 3).await;
    let pid = child.id().expect("running").to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("exits within 20 s of SIGTERM")
        .unwrap();
    assert!(exit.success(), "clean exit: {exit:?}");
    let (_child, url) = spawn(&db).await;
    let out = post(
        &c,
        &url,
        call_xml("matchmaker.checkedout_matches", &[&i4(1)]),
    )
    .await
    .unwrap();
    assert!(out.contains(&arr(&[i4(pair.0), i4(pair.1)])), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_worker_thread_serves_and_too_many_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("threads.db");
    // More than the most is a mistake, refused at start with the setting named.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goswiss"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .env("GOSWISS_WORKER_THREADS", "5000")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("worker_threads is 5000: at most 1024"),
        "{err}"
    );
    // One thread serving calls (the store and heavy work have threads of their own): a whole
    // checkout / commit cycle, durable across a restart.
    let (child, url) = spawn_with(&db, &[("GOSWISS_WORKER_THREADS", "1")]).await;
    let c = reqwest::Client::new();
    let pair = create_and_check_out(&c, &url, 4).await;
    let r = post(
        &c,
        &url,
        call_xml(
            "matchmaker.commit_match",
            &[&i4(1), &arr(&[i4(pair.0), i4(pair.1)]), &i4(-1)],
        ),
    )
    .await
    .unwrap();
    assert!(parse_fault(&r).is_none(), "{r}");
    drop(child);
    let (_child, url) = spawn(&db).await;
    let r = post(
        &c,
        &url,
        call_xml("matchmaker.table_by_criteria", &[&i4(1)]),
    )
    .await
    .unwrap();
    let scores = table_scores(&r);
    assert_eq!(scores.get(&pair.0), Some(&1.0), "{r}");
}
