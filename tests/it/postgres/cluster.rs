//! The acceptance test of several daemons on one PostgreSQL database: three `goswiss serve`
//! processes, 64 clients (one matchmaker tournament each) spread over them, one daemon killed
//! with SIGKILL and PostgreSQL itself crashed and restarted while they play. Afterwards every
//! acknowledged commit is in the store, every log is gap-free and folds into a finished
//! tournament, and the daemons (the killed one restarted) agree on every tournament.
//!
//! The clients are written here rather than taken from goswiss-replay because they must do
//! what the replay client never does: move to another daemon when theirs dies, and find out
//! whether a commit whose answer was lost landed (`matchmaker.checkedout_matches`: each
//! tournament has one client, so whatever is checked out is its own).

use crate::common;
use crate::postgres_common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use goswiss::matchmaker::{Event, Tournament};
use goswiss::store::Store as _;
use goswiss::store::postgres::PostgresStore;
use postgres_common::Postgres;
use serde_json::{Value, json};
use tokio::process::Child;

const DAEMONS: usize = 3;
const CLIENTS: usize = 64;
const PLAYERS: i64 = 16;
/// 4 rounds for 16 players plus these: 6 rounds of 8 matches.
const ADDITIONAL_ROUNDS: i64 = 2;
const MATCHES: usize = 48;
/// The whole test, kills and restart included, must finish within this.
const BUDGET: Duration = Duration::from_secs(240);

/// Starts `goswiss serve` on an ephemeral port and returns it with its URL, read from the
/// "listening" log line.
async fn spawn(db: &str) -> (Child, String) {
    let mut cmd = common::daemon::serve(db);
    cmd.args(["--log-level", "warn,goswiss=info"]);
    let d = common::daemon::spawn(cmd).await;
    (d.child, format!("http://{}/", d.addr))
}

enum Reply {
    Ok(Value),
    Fault(i64, String),
    /// No answer: the daemon is gone (or the answer was lost on the way).
    Lost,
}

async fn call(c: &reqwest::Client, url: &str, method: &str, params: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let sent = async {
        let r = c.post(url).json(&body).send().await?;
        r.json::<Value>().await
    };
    match sent.await {
        Err(_) => Reply::Lost,
        Ok(v) => match v.get("error") {
            Some(e) => Reply::Fault(
                e["code"].as_i64().unwrap_or(0),
                e["message"].as_str().unwrap_or("").to_string(),
            ),
            None => Reply::Ok(v["result"].clone()),
        },
    }
}

/// Faults that say "nothing happened, try again": storage unavailable (-32008), a race lost
/// to another daemon (-32009), rswiss's "wait" faults (201, 203).
fn transient(code: i64) -> bool {
    matches!(code, -32008 | -32009 | 201 | 203)
}

/// What one client saw.
#[derive(Default)]
struct Log {
    /// Commits answered `true`: (p1, p2, result) as checked out.
    acked: Vec<(i64, i64, i64)>,
    /// Commits whose answer was lost but which are no longer checked out afterwards: they
    /// landed.
    landed: Vec<(i64, i64, i64)>,
    /// Daemons this client had to leave.
    moves: usize,
}

struct Client {
    c: reqwest::Client,
    urls: Vec<String>,
    at: usize,
    id: i64,
    log: Arc<Mutex<Log>>,
    deadline: Instant,
}

impl Client {
    fn url(&self) -> &str {
        &self.urls[self.at]
    }

    /// Gives up on the current daemon for the next one.
    fn move_on(&mut self) {
        self.at = (self.at + 1) % self.urls.len();
        self.log.lock().unwrap().moves += 1;
    }

    fn check_time(&self, what: &str) {
        assert!(
            Instant::now() < self.deadline,
            "tournament {}: out of time while {what}",
            self.id
        );
    }

    /// A call that must eventually answer: lost answers move to the next daemon, transient
    /// faults wait a little. Only for calls that change nothing (reads).
    async fn read(&mut self, method: &str) -> Value {
        loop {
            self.check_time(method);
            match call(&self.c, &self.urls[self.at], method, json!([self.id])).await {
                Reply::Ok(v) => return v,
                Reply::Fault(code, _) if transient(code) => {}
                Reply::Fault(code, m) => panic!("tournament {}: {method}: {code} {m}", self.id),
                Reply::Lost => self.move_on(),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// After a lost or uncertain answer: the matches still checked out are this client's, and
    /// `pending` (a commit whose fate is unknown) landed if it is not among them.
    async fn recover(&mut self, pending: Option<(i64, i64, i64)>) -> Vec<(i64, i64)> {
        // Let the other daemons hear of the last commits before asking them.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let out = self.read("matchmaker.checkedout_matches").await;
        let out: Vec<(i64, i64)> = out
            .as_array()
            .expect("an array of pairs")
            .iter()
            .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
            .collect();
        if let Some((a, b, r)) = pending
            && !out.contains(&(a, b))
        {
            self.log.lock().unwrap().landed.push((a, b, r));
        }
        out
    }

    /// Commits `pair` until it is acknowledged or known to have landed.
    async fn commit(&mut self, pair: (i64, i64), result: i64) {
        loop {
            self.check_time("committing");
            let params = json!([self.id, [pair.0, pair.1], result]);
            match call(&self.c, self.url(), "matchmaker.commit_match", params).await {
                Reply::Ok(Value::Bool(true)) => {
                    self.log
                        .lock()
                        .unwrap()
                        .acked
                        .push((pair.0, pair.1, result));
                    return;
                }
                Reply::Ok(v) => panic!("tournament {}: commit_match returned {v}", self.id),
                // Not recorded: try again.
                Reply::Fault(code, _) if code != -32008 && transient(code) => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                // Unavailable storage may have lost the commit's answer, not the commit.
                Reply::Fault(-32008, _) => {}
                Reply::Fault(code, m) => {
                    // Refused: fine only if an earlier try landed after all (its answer lost).
                    let out = self.recover(Some((pair.0, pair.1, result))).await;
                    assert!(
                        !out.contains(&pair),
                        "tournament {}: commit {pair:?} refused ({code} {m}) yet still out",
                        self.id
                    );
                    return;
                }
                Reply::Lost => self.move_on(),
            }
            let out = self.recover(Some((pair.0, pair.1, result))).await;
            if !out.contains(&pair) {
                return;
            }
        }
    }

    /// Plays the tournament to its end.
    async fn play(&mut self) {
        let mut k = self.id;
        loop {
            self.check_time("checking out");
            let pair = match call(
                &self.c,
                self.url(),
                "matchmaker.checkout_match",
                json!([self.id]),
            )
            .await
            {
                Reply::Ok(p) => (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()),
                Reply::Fault(202, _) => return,
                Reply::Fault(code, _) if transient(code) => {
                    if code == -32008 || code == 201 {
                        // A checkout is a write too: it may have landed unanswered (-32008),
                        // or landed with its answer lost where this daemon had not yet heard
                        // of it (201: a match is out, and every match out is this client's).
                        for pair in self.recover(None).await {
                            k += 1;
                            self.commit(pair, k % 3 - 1).await;
                        }
                    } else {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                    continue;
                }
                Reply::Fault(code, m) => {
                    panic!("tournament {}: checkout_match: {code} {m}", self.id)
                }
                Reply::Lost => {
                    self.move_on();
                    for pair in self.recover(None).await {
                        k += 1;
                        self.commit(pair, k % 3 - 1).await;
                    }
                    continue;
                }
            };
            k += 1;
            self.commit(pair, k % 3 - 1).await;
        }
    }
}

fn acked_total(logs: &[Arc<Mutex<Log>>]) -> usize {
    logs.iter().map(|l| l.lock().unwrap().acked.len()).sum()
}

async fn wait_for(logs: &[Arc<Mutex<Log>>], n: usize, deadline: Instant) {
    while acked_total(logs) < n {
        assert!(
            Instant::now() < deadline,
            "only {} commits",
            acked_total(logs)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_daemons_survive_a_sigkill_and_a_postgres_restart() {
    let Some(pg) = Postgres::start() else { return };
    let pg = Arc::new(pg);
    let db = pg.database("cluster");
    let start = Instant::now();
    let deadline = start + BUDGET;

    let mut daemons = Vec::new();
    for _ in 0..DAEMONS {
        daemons.push(spawn(&db).await);
    }
    let urls: Vec<String> = daemons.iter().map(|d| d.1.clone()).collect();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();

    // Every tournament is created before anything is killed: a create whose answer was lost
    // would leave a tournament no client knows.
    let mut ids = Vec::new();
    for i in 0..CLIENTS {
        let params =
            json!([(1..=PLAYERS).collect::<Vec<_>>(), ADDITIONAL_ROUNDS, true, {"seed": i}]);
        match call(
            &http,
            &urls[i % DAEMONS],
            "matchmaker.create_tournament",
            params,
        )
        .await
        {
            Reply::Ok(v) => ids.push(v.as_i64().expect("an id")),
            _ => panic!("create_tournament on {}", urls[i % DAEMONS]),
        }
    }

    let logs: Vec<Arc<Mutex<Log>>> = ids.iter().map(|_| Arc::default()).collect();
    let finished = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let mut client = Client {
                c: http.clone(),
                urls: urls.clone(),
                at: i % DAEMONS,
                id,
                log: Arc::clone(&logs[i]),
                deadline,
            };
            let finished = Arc::clone(&finished);
            tokio::spawn(async move {
                client.play().await;
                finished.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();

    let total = CLIENTS * MATCHES;
    // A quarter in: SIGKILL daemon 0 (its clients move to the others).
    wait_for(&logs, total / 4, deadline).await;
    let killed_at = acked_total(&logs);
    daemons[0].0.start_kill().unwrap();
    daemons[0].0.wait().await.unwrap();
    // Half-way: PostgreSQL crashes (immediate stop) and comes back.
    wait_for(&logs, total / 2, deadline).await;
    let restarted_at = acked_total(&logs);
    let pg2 = Arc::clone(&pg);
    tokio::task::spawn_blocking(move || pg2.restart())
        .await
        .unwrap();
    for t in tasks {
        tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), t)
            .await
            .expect("every tournament finishes within the budget")
            .expect("client task");
    }
    assert_eq!(finished.load(Ordering::SeqCst), CLIENTS);
    assert!(
        killed_at < total && restarted_at < total,
        "the faults came mid-play"
    );
    let moves: usize = logs.iter().map(|l| l.lock().unwrap().moves).sum();
    assert!(moves > 0, "the killed daemon's clients moved");

    // The live daemons reconnected by themselves.
    for url in &urls[1..] {
        let health = http.get(format!("{url}health")).send().await.unwrap();
        assert!(
            health.status().is_success(),
            "{url} healthy after the restart"
        );
    }

    // The store itself: gap-free logs (load_all checks every head against its events) that
    // fold into finished tournaments holding exactly the commits the clients made.
    let store = PostgresStore::open(&db).await.unwrap();
    let stored: HashMap<i64, Vec<String>> = store
        .load_all()
        .await
        .expect("every log loads gap-free")
        .into_iter()
        .map(|t| (t.id, t.events))
        .collect();
    assert_eq!(stored.len(), CLIENTS);
    for (id, log) in ids.iter().zip(&logs) {
        let events: Vec<Event> = stored[id]
            .iter()
            .map(|b| serde_json::from_str(b).expect("an event"))
            .collect();
        let t = Tournament::replay(&events).expect("the log folds");
        assert!(t.has_ended(), "tournament {id} ended");
        let mut committed: Vec<(i64, i64, i64)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Committed { p1, p2, result } => Some((*p1, *p2, i64::from(*result))),
                _ => None,
            })
            .collect();
        let l = log.lock().unwrap();
        let mut made: Vec<(i64, i64, i64)> = l.acked.iter().chain(&l.landed).copied().collect();
        for &(a, b, r) in &l.acked {
            assert!(
                committed.contains(&(a, b, r)) || committed.contains(&(b, a, -r)),
                "tournament {id}: acknowledged commit {a}-{b} {r} lost"
            );
        }
        assert_eq!(committed.len(), MATCHES, "tournament {id}");
        committed.sort();
        made.sort();
        let mut made_stored: Vec<(i64, i64, i64)> = made
            .iter()
            .map(|&(a, b, r)| {
                if committed.binary_search(&(a, b, r)).is_ok() {
                    (a, b, r)
                } else {
                    (b, a, -r)
                }
            })
            .collect();
        made_stored.sort();
        assert_eq!(committed, made_stored, "tournament {id}: stored commits");
    }
    store.close().await.unwrap();

    // The killed daemon, restarted, and the others agree on every tournament.
    let (_again, url0) = spawn(&db).await;
    for &id in &ids {
        let mut seen = Vec::new();
        for url in [&url0, &urls[1], &urls[2]] {
            let mut answer = Vec::new();
            for m in ["matchmaker.has_ended", "matchmaker.table_by_criteria"] {
                match call(&http, url, m, json!([id])).await {
                    Reply::Ok(v) => answer.push(v),
                    _ => panic!("{m} {id} on {url}"),
                }
            }
            seen.push(answer);
        }
        assert_eq!(seen[0][0], json!(true));
        assert!(
            seen.iter().all(|s| *s == seen[0]),
            "tournament {id}: {seen:?}"
        );
    }
    eprintln!(
        "cluster: {total} matches in {:.1} s; SIGKILL after {killed_at}, PostgreSQL restart \
         after {restarted_at} acknowledged commits; {moves} client moves",
        start.elapsed().as_secs_f64()
    );
}
