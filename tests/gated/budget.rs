//! The per-request time budget (`request_budget_ms`, error -32012) and cancellation: a heavy
//! call past its budget is answered -32012 in about the budget and its work stops; a client
//! that closes its connection during a heavy call stops the work too.
//!
//! The heavy call is `pairing.pair` of 10,000 players in window mode 8: minutes of work
//! (every step searches up to 15·13·…·3 arrangements), far past any budget used here.
//!
//! The budget gate (`goswiss::budget::Gate`, checked here too) holds a pairing at its first
//! check where a test must know it is under way; it and the stop counters are the whole
//! process's, so the tests here run one at a time.

use crate::common;

use std::time::{Duration, Instant};

use common::{Server, big_position, client, serial, until, with_budget};
use goswiss::budget::{Budget, Gate, check, run, stopped_counts};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

fn heavy_pairing() -> Value {
    let players: Vec<Value> = (1..=10_000)
        .map(|i| json!({"id": i, "rating": (i * 7919 % 3000) as f64, "score": (i % 4) as f64}))
        .collect();
    json!({"jsonrpc": "2.0", "id": 1, "method": "pairing.pair",
           "params": [players, null, {"window": 8}]})
}

/// Waits up to 20 s for `pick(stopped_counts())` to pass `before`.
async fn work_stops(before: u64, pick: fn((u64, u64)) -> u64) -> bool {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if pick(stopped_counts()) > before {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn a_call_over_its_budget_is_answered_32012_and_stops() {
    let _serial = serial().await;
    let server = Server::start_with(with_budget(300)).await;
    let body = heavy_pairing();
    let (deadline_stops, _) = stopped_counts();
    let start = Instant::now();
    let v: Value = client()
        .post(server.url("/jsonrpc"))
        .json(&body)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON reply");
    let took = start.elapsed();
    assert_eq!(v["error"]["code"], json!(-32012), "{v}");
    assert_eq!(
        v["error"]["message"],
        json!("request exceeded its time budget of 300 ms")
    );
    // 300 ms of budget, plus reading a 400 KB request on a loaded machine; the pairing itself
    // is minutes of work, so a bound that only a hang reaches still tells them apart.
    assert!(took < Duration::from_secs(30), "answered after {took:?}");
    assert!(
        work_stops(deadline_stops, |c| c.0).await,
        "the pairing went on past its budget"
    );

    // The same over XML-RPC: one budget for both protocols.
    let players: String = (1..=10_000)
        .map(|i| {
            format!(
                "<value><struct><member><name>id</name><value><int>{i}</int></value></member>\
                 <member><name>rating</name><value><double>{}</double></value></member>\
                 </struct></value>",
                i * 7919 % 3000
            )
        })
        .collect();
    let xml = format!(
        "<?xml version=\"1.0\"?><methodCall><methodName>pairing.pair</methodName><params>\
         <param><value><array><data>{players}</data></array></value></param>\
         <param><value><nil/></value></param>\
         <param><value><struct><member><name>window</name><value><int>8</int></value></member>\
         </struct></value></param></params></methodCall>"
    );
    let (deadline_stops, _) = stopped_counts();
    let start = Instant::now();
    let reply = common::xml_post(&client(), &server.url("/RPC2"), xml).await;
    let took = start.elapsed();
    assert_eq!(
        common::parse_fault(&reply),
        Some((
            -32012,
            "request exceeded its time budget of 300 ms".to_string()
        )),
        "{reply}"
    );
    assert!(took < Duration::from_secs(30), "answered after {took:?}");
    assert!(
        work_stops(deadline_stops, |c| c.0).await,
        "the pairing went on past its budget"
    );

    // Cheap calls are not affected.
    let v = server
        .jsonrpc("pairing.pair", json!([[{"id": 1}, {"id": 2}]]))
        .await;
    assert!(v["result"].is_object(), "{v}");
    server.stop().await;
}

/// Sends `body` as a JSON-RPC POST on a raw socket, waits until its work is under way (held at
/// the gate, so it cannot finish before), and closes the socket without reading the answer.
async fn post_and_hang_up(server: &Server, body: &Value, gate: &Gate) {
    let body = body.to_string();
    let mut tcp = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let head = format!(
        "POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.expect("head");
    tcp.write_all(body.as_bytes()).await.expect("body");
    until("the work to start", || gate.held() == 1).await;
    drop(tcp);
}

#[tokio::test]
async fn a_client_that_hangs_up_stops_the_work() {
    let _serial = serial().await;
    // A budget far beyond the test: only the hang-up can stop the pairing.
    let server = Server::start_with(with_budget(120_000)).await;
    let gate = Gate::close(1);
    let (_, cancels) = stopped_counts();
    post_and_hang_up(&server, &heavy_pairing(), &gate).await;
    assert!(
        work_stops(cancels, |c| c.1).await,
        "the pairing went on after its client closed the connection"
    );
    assert_eq!(gate.held(), 0);
    server.stop().await;
}

/// The gate itself: it holds the next run at its first check, or at its end when it makes
/// none, until it opens or the run's budget is over; the runs past its count go through.
#[tokio::test]
async fn the_gate_holds_runs_until_it_opens_or_their_budget_is_over() {
    let _serial = serial().await;
    let checking = || {
        check()?;
        Ok::<_, goswiss::budget::OverBudget>(7)
    };
    // Opened: the held run goes on and nothing is counted as stopped.
    let gate = Gate::close(1);
    let held = std::thread::spawn(move || run(Budget::new(None), checking));
    until("the run to reach the gate", || gate.held() == 1).await;
    // The gate's one slot is taken: another run goes through.
    assert_eq!(run(Budget::new(None), checking), Ok(Ok(7)));
    assert!(!held.is_finished());
    drop(gate);
    assert_eq!(held.join().unwrap(), Ok(Ok(7)));

    // A deadline that passes while the run waits stops it there, as a deadline stop.
    let gate = Gate::close(1);
    let (deadlines, _) = stopped_counts();
    let held =
        std::thread::spawn(move || run(Budget::new(Some(Duration::from_millis(50))), checking));
    until("the run to leave at its deadline", || held.is_finished()).await;
    assert!(held.join().unwrap().is_err());
    assert!(stopped_counts().0 > deadlines);
    drop(gate);

    // A run that makes no check is held at its end; a cancellation stops it there.
    let gate = Gate::close(1);
    let (_, cancels) = stopped_counts();
    let budget = Budget::new(None);
    let guard = budget.cancel_on_drop();
    let held = std::thread::spawn(move || run(budget, || 5));
    until("the run to reach the gate", || gate.held() == 1).await;
    drop(guard);
    until("the cancelled run to leave", || held.is_finished()).await;
    assert!(held.join().unwrap().is_err());
    assert!(stopped_counts().1 > cancels);
    assert_eq!(gate.held(), 0);
    drop(gate);

    // Open, it holds nothing.
    assert_eq!(run(Budget::new(None), checking), Ok(Ok(7)));
}

async fn multicall(server: &Server, calls: Vec<Value>) -> Vec<Value> {
    let v = server.jsonrpc("system.multicall", json!([calls])).await;
    v["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no multicall result: {v}"))
        .clone()
}

fn is_over_budget(entry: &Value, ms: u64) -> bool {
    entry["faultCode"] == json!(-32012)
        && entry["faultString"] == json!(format!("request exceeded its time budget of {ms} ms"))
}

#[tokio::test]
async fn a_multicall_shares_one_budget_and_faults_the_calls_past_it() {
    let _serial = serial().await;
    let server = Server::start_with(with_budget(300)).await;
    let heavy = heavy_pairing()["params"].clone();
    let calls = vec![
        json!({"methodName": "system.echo", "params": [1]}),
        json!({"methodName": "pairing.pair", "params": heavy}),
        json!({"methodName": "system.echo", "params": [2]}),
        json!({"methodName": "tournament.create", "params": [{"name": "late"}]}),
    ];
    let start = Instant::now();
    let results = multicall(&server, calls).await;
    let took = start.elapsed();
    assert_eq!(results.len(), 4, "{results:?}");
    // The call before the budget ran out has its result; the one running then and every one
    // after it are faults, not started.
    assert_eq!(results[0], json!([1]));
    for r in &results[1..] {
        assert!(is_over_budget(r, 300), "{r}");
    }
    assert!(took < Duration::from_secs(30), "answered after {took:?}");
    let list = server.jsonrpc("tournament.list", json!([])).await;
    assert_eq!(list["result"], json!([]), "a call past the budget ran");

    // A thousand cheap-but-not-free inline calls: the first ones are answered, and once the
    // budget is spent every remaining one is a fault.
    let calls: Vec<Value> = (0..1000)
        .map(|_| json!({"methodName": "score.toggle_dead", "params": [big_position(), "aa"]}))
        .collect();
    let start = Instant::now();
    let results = multicall(&server, calls).await;
    let took = start.elapsed();
    assert_eq!(results.len(), 1000);
    let first_fault = results
        .iter()
        .position(|r| r.get("faultCode").is_some())
        .expect("1000 toggles on 52×52 boards fit in 300 ms: make the test heavier");
    assert!(
        results[..first_fault].iter().all(Value::is_array),
        "{:?}",
        &results[..first_fault]
    );
    assert!(
        results[first_fault..]
            .iter()
            .all(|r| is_over_budget(r, 300)),
        "a call after the budget ran out was answered"
    );
    assert!(took < Duration::from_secs(30), "answered after {took:?}");
    server.stop().await;
}
