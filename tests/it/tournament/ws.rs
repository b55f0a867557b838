//! `tournament.subscribe` over WebSocket: a subscriber sees every durable change to its
//! tournament (kind, revision, round) and nothing of other tournaments; with auth on, nothing
//! of a round before it is published; subscriptions are capped per session and per address;
//! thousands of them cost a write to another tournament nothing; over plain HTTP the methods
//! answer that they need a WebSocket.

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use common::rpc::xml_outcome;
use common::{Server, call_xml, client, xml_post};
use futures::{SinkExt, StreamExt};
use goswiss::config::{Config, Secret};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Counts the bytes each thread has allocated and not freed, to measure what subscriptions
/// hold: a test's runtime has one thread, which runs the daemon's tasks and the clients', so
/// the count is theirs and no other test's.
struct Counting;

thread_local! {
    static HELD: Cell<i64> = const { Cell::new(0) };
}

fn count(delta: i64) {
    // During thread teardown the counter may be gone: nothing to count then.
    let _ = HELD.try_with(|h| h.set(h.get() + delta));
}

/// Bytes this thread holds allocated.
fn held() -> i64 {
    HELD.with(Cell::get)
}

// SAFETY: every call goes to the system allocator unchanged; only a thread-local count is kept
// beside it (a const-initialised `Cell`, which never allocates).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const ADMIN: &str = "admin-feeds-3c9e1a7b5d2f4e6081a3c5e7b9d1f3a5";

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket session, with `token` as the upgrade's Bearer token.
async fn connect(server: &Server, token: Option<&str>) -> Ws {
    let mut req = format!("ws://{}/jsonrpc", server.addr)
        .into_client_request()
        .unwrap();
    if let Some(t) = token {
        req.headers_mut()
            .insert("authorization", format!("Bearer {t}").parse().unwrap());
    }
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::text(v.to_string())).await.unwrap();
}

/// The session's next message (a reply or a notification), within 10 s.
async fn recv(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s")
            .expect("session open")
            .expect("a message");
        match m {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// `tournament.subscribe(tid)` as call `k`: the reply.
async fn subscribe(ws: &mut Ws, k: u64, tid: &Value) -> Value {
    send(
        ws,
        json!({"jsonrpc": "2.0", "id": k, "method": "tournament.subscribe", "params": [tid]}),
    )
    .await;
    recv(ws).await
}

/// The next notification's `tournament.event` payload.
async fn event(ws: &mut Ws) -> Value {
    let v = recv(ws).await;
    assert_eq!(v["method"], "tournament.event", "{v}");
    v["params"]["result"].clone()
}

/// The kinds of the session's next `n` notifications.
async fn kinds(ws: &mut Ws, n: usize) -> Vec<String> {
    let mut out = vec![];
    for _ in 0..n {
        out.push(event(ws).await["kind"].as_str().unwrap().to_string());
    }
    out
}

/// A JSON-RPC call over HTTP with `token` as Bearer: the whole reply.
async fn call_as(server: &Server, token: Option<&str>, method: &str, params: Value) -> Value {
    let mut req = client()
        .post(server.url("/jsonrpc"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap().json().await.unwrap()
}

async fn ok_as(server: &Server, token: Option<&str>, method: &str, params: Value) -> Value {
    let v = call_as(server, token, method, params).await;
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

#[tokio::test]
async fn a_subscriber_sees_pairings_and_results_in_log_order() {
    // Keep-alive pings are tested elsewhere (slow_clients); here every frame is a message.
    let server = Server::start_with(goswiss::config::Config {
        ws_ping_secs: 0,
        ..goswiss::config::Config::default()
    })
    .await;
    let id = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    let other = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    for k in 0..4 {
        server
            .ok(
                "tournament.player.add",
                json!([id, {"name": format!("P{k}")}]),
            )
            .await;
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .unwrap();
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tournament.subscribe", "params": [id]})
            .to_string(),
    ))
    .await
    .unwrap();
    let ack: Value =
        serde_json::from_str(ws.next().await.unwrap().unwrap().to_text().unwrap()).unwrap();
    assert!(ack.get("result").is_some(), "{ack}");
    server
        .ok(
            "tournament.player.add",
            json!([other, {"name": "Elsewhere"}]),
        )
        .await;
    server.ok("tournament.round.pair", json!([id, 1])).await;
    server.ok("tournament.round.publish", json!([id, 1])).await;
    server
        .ok("tournament.result.set", json!([id, 1, 1, "W+"]))
        .await;
    let mut got = vec![];
    while got.len() < 3 {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a notification within 10 s")
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(m.to_text().unwrap()).unwrap();
        assert_eq!(v["method"], "tournament.event", "{v}");
        got.push(v["params"]["result"].clone());
    }
    let kinds: Vec<&str> = got.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["round_paired", "round_published", "result_set"]);
    let revs: Vec<u64> = got
        .iter()
        .map(|v| v["revision"].as_u64().unwrap())
        .collect();
    assert_eq!(revs, [6, 7, 8]);
    assert!(
        got.iter()
            .all(|v| v["tournament_id"] == id && v["round"] == 1)
    );
    assert_eq!(got[2]["result"], "W+");
    assert_eq!(got[2]["standings_changed"], true);
    // An unknown tournament is refused with the namespace's code.
    ws.send(Message::text(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tournament.subscribe", "params": [9999]})
            .to_string(),
    ))
    .await
    .unwrap();
    let r: Value =
        serde_json::from_str(ws.next().await.unwrap().unwrap().to_text().unwrap()).unwrap();
    assert_eq!(r["error"]["code"], 1001, "{r}");
    drop(ws);
    server.stop().await;
}

#[tokio::test]
async fn subscriptions_are_capped_per_session_and_per_address() {
    let server = Server::start_with(Config {
        ws_ping_secs: 0,
        max_subscriptions_per_connection: 3,
        max_subscriptions_per_address: 5,
        ..Config::default()
    })
    .await;
    let id = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    let refused = |r: &Value, setting: &str| {
        assert_eq!(r["error"]["code"], -32006, "{r}");
        let m = r["error"]["message"].as_str().unwrap();
        assert!(m.contains(setting), "{m}");
    };
    let mut a = connect(&server, None).await;
    // A refused subscription takes no seat.
    let r = subscribe(&mut a, 0, &json!(99999)).await;
    assert_eq!(r["error"]["code"], 1001, "{r}");
    let mut subs = vec![];
    for k in 1..=3 {
        let r = subscribe(&mut a, k, &id).await;
        subs.push(r["result"].clone());
        assert!(!subs[subs.len() - 1].is_null(), "{r}");
    }
    refused(
        &subscribe(&mut a, 4, &id).await,
        "max_subscriptions_per_connection = 3",
    );
    let mut b = connect(&server, None).await;
    for k in 1..=2 {
        let r = subscribe(&mut b, k, &id).await;
        assert!(r.get("result").is_some(), "{r}");
    }
    refused(
        &subscribe(&mut b, 3, &id).await,
        "max_subscriptions_per_address = 5",
    );
    // Unsubscribing gives the seat back, to any session of the address.
    send(
        &mut a,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tournament.unsubscribe", "params": [subs[0]]}),
    )
    .await;
    assert_eq!(recv(&mut a).await["result"], true);
    assert!(subscribe(&mut b, 4, &id).await.get("result").is_some());
    refused(
        &subscribe(&mut b, 5, &id).await,
        "max_subscriptions_per_connection = 3",
    );
    let mut c = connect(&server, None).await;
    refused(
        &subscribe(&mut c, 1, &id).await,
        "max_subscriptions_per_address = 5",
    );
    // Closing a session gives its seats back (once the daemon has seen it go).
    a.close(None).await.unwrap();
    drop(a);
    let mut got = None;
    for k in 0..400 {
        let r = subscribe(&mut c, 10 + k, &id).await;
        if r.get("result").is_some() {
            got = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(got.is_some(), "the closed session's seats came back");
    assert!(subscribe(&mut c, 1000, &id).await.get("result").is_some());
    refused(
        &subscribe(&mut c, 1001, &id).await,
        "max_subscriptions_per_address = 5",
    );
    // The seats held are live subscriptions: a write reaches each of them.
    server
        .ok("tournament.player.add", json!([id, {"name": "P"}]))
        .await;
    for (ws, open) in [(&mut b, 3), (&mut c, 2)] {
        for _ in 0..open {
            assert_eq!(event(ws).await["kind"], "player_registered");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn with_auth_on_the_public_hears_of_a_round_once_it_is_published() {
    let server = Server::start_with(Config {
        ws_ping_secs: 0,
        admin_token: Secret(ADMIN.into()),
        ..Config::default()
    })
    .await;
    let created = ok_as(
        &server,
        Some(ADMIN),
        "tournament.create",
        json!([{"rounds": 3}]),
    )
    .await;
    let (id, dt) = (
        created["id"].clone(),
        created["director_token"].as_str().unwrap().to_string(),
    );
    let dt = dt.as_str();
    for k in 0..4 {
        let p = json!([id, {"name": format!("P{k}"), "rank": format!("{}k", k + 1)}]);
        ok_as(&server, Some(dt), "tournament.player.add", p).await;
    }
    let mut public = connect(&server, None).await;
    let mut director = connect(&server, Some(dt)).await;
    let mut admin = connect(&server, Some(ADMIN)).await;
    for ws in [&mut public, &mut director, &mut admin] {
        let r = subscribe(ws, 1, &id).await;
        assert!(r.get("result").is_some(), "{r}");
    }
    // A draft round: its pairing and a result.
    ok_as(&server, Some(dt), "tournament.round.pair", json!([id, 1])).await;
    ok_as(
        &server,
        Some(dt),
        "tournament.result.set",
        json!([id, 1, 1, "W+"]),
    )
    .await;
    for ws in [&mut director, &mut admin] {
        assert_eq!(event(ws).await["kind"], "round_paired");
        let r = event(ws).await;
        assert_eq!((&r["kind"], &r["table"]), (&json!("result_set"), &json!(1)));
    }
    // Published: the public's first notification, with what it missed.
    ok_as(
        &server,
        Some(dt),
        "tournament.round.publish",
        json!([id, 1]),
    )
    .await;
    let p = event(&mut public).await;
    assert_eq!(p["kind"], "round_published", "{p}");
    assert_eq!(
        (&p["withheld"], &p["standings_changed"]),
        (&json!(2), &json!(true))
    );
    let d = event(&mut director).await;
    assert_eq!(d["revision"], p["revision"]);
    assert!(d.get("withheld").is_none(), "{d}");
    assert_eq!(event(&mut admin).await["kind"], "round_published");
    // A published round's results reach everyone.
    ok_as(
        &server,
        Some(dt),
        "tournament.result.set",
        json!([id, 1, 2, "B+"]),
    )
    .await;
    for ws in [&mut public, &mut director, &mut admin] {
        let r = event(ws).await;
        assert_eq!(
            (&r["kind"], &r["result"]),
            (&json!("result_set"), &json!("B+"))
        );
    }
    // Round 2 is a draft; the token is rotated: the old token's session no longer sees the
    // draft's result, the admin's does, and a player's registration reaches everyone.
    ok_as(&server, Some(dt), "tournament.round.pair", json!([id, 2])).await;
    let rotated = ok_as(&server, Some(dt), "tournament.token.rotate", json!([id])).await;
    let dt2 = rotated["director_token"].as_str().unwrap();
    ok_as(
        &server,
        Some(dt2),
        "tournament.result.set",
        json!([id, 2, 1, "W+"]),
    )
    .await;
    ok_as(
        &server,
        Some(dt2),
        "tournament.player.add",
        json!([id, {"name": "Late"}]),
    )
    .await;
    assert_eq!(
        kinds(&mut director, 3).await,
        ["round_paired", "director_token_set", "player_registered"]
    );
    assert_eq!(
        kinds(&mut public, 2).await,
        ["director_token_set", "player_registered"]
    );
    assert_eq!(
        kinds(&mut admin, 4).await,
        [
            "round_paired",
            "director_token_set",
            "result_set",
            "player_registered"
        ]
    );
    // A deletion ends every subscription with the revision the tournament had.
    let revision = ok_as(&server, None, "tournament.get", json!([id])).await["revision"].clone();
    ok_as(&server, Some(ADMIN), "tournament.delete", json!([id])).await;
    for ws in [&mut public, &mut director, &mut admin] {
        let d = event(ws).await;
        assert_eq!(
            d,
            json!({"tournament_id": id, "kind": "deleted", "revision": revision})
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn over_plain_http_the_subscription_methods_say_they_need_a_websocket() {
    let server = Server::start().await;
    let id = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    let needs = |code: &Value, message: &Value, method: &str| {
        assert_eq!(code, -32020, "{method}: {message}");
        let m = message.as_str().unwrap();
        assert!(m.contains(method) && m.contains("needs a WebSocket"), "{m}");
    };
    for (method, params) in [
        ("tournament.subscribe", json!([id])),
        ("tournament.unsubscribe", json!([1])),
    ] {
        // JSON-RPC over HTTP, alone and in a batch beside another call.
        let r = server.jsonrpc(method, params.clone()).await;
        needs(&r["error"]["code"], &r["error"]["message"], method);
        let batch: Value = client()
            .post(server.url("/jsonrpc"))
            .json(&json!([
                {"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                {"jsonrpc": "2.0", "id": 2, "method": "system.echo", "params": [5]},
            ]))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let one = batch
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == 1)
            .unwrap();
        let two = batch
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == 2)
            .unwrap();
        needs(&one["error"]["code"], &one["error"]["message"], method);
        assert_eq!(two["result"], 5, "{batch}");
        // XML-RPC.
        let xml = xml_post(
            &client(),
            &server.url("/RPC2"),
            call_xml(method, &[&common::i4(params[0].as_i64().unwrap())]),
        )
        .await;
        let (code, message) = xml_outcome(&xml).unwrap_err();
        needs(&json!(code), &json!(message), method);
    }
    // The arity check comes first, as for any method of the table, on both wires.
    let r = server.jsonrpc("tournament.subscribe", json!([])).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Both are listed, and described.
    let list = server.ok("system.listMethods", json!([])).await;
    let discover = server.ok("rpc.discover", json!([])).await;
    for method in ["tournament.subscribe", "tournament.unsubscribe"] {
        assert!(list.as_array().unwrap().contains(&json!(method)), "{list}");
        assert!(
            discover["methods"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["name"] == method),
            "{method}"
        );
        let help = server.ok("system.methodHelp", json!([method])).await;
        assert!(help.as_str().unwrap().contains("WebSocket"), "{help}");
    }
    // And on a WebSocket the same names still subscribe.
    let mut ws = connect(&server, None).await;
    let r = subscribe(&mut ws, 1, &id).await;
    assert!(r["result"].is_number() || r["result"].is_string(), "{r}");
    server.stop().await;
}

#[tokio::test]
async fn thousands_of_subscriptions_elsewhere_cost_a_write_nothing() {
    // One thread (the test's runtime) runs the daemon's tasks and every client: its CPU time
    // and the bytes it holds are what the subscriptions cost. No per-address cap here: all
    // sessions come from 127.0.0.1.
    let server = Server::start_with(Config {
        ws_ping_secs: 0,
        max_subscriptions_per_address: 0,
        ..Config::default()
    })
    .await;
    let a = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    let b = server.ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    let c = client();
    let url = server.url("/jsonrpc");
    let mut k = 0;
    let mut write = || {
        k += 1;
        let body = json!({"jsonrpc": "2.0", "id": k, "method": "tournament.player.add",
                          "params": [a, {"name": format!("P{k}")}]});
        let req = c.post(&url).json(&body);
        async move {
            let v: Value = req.send().await.unwrap().json().await.unwrap();
            assert!(v.get("result").is_some(), "{v}");
        }
    };
    for _ in 0..20 {
        write().await;
    }
    let cpu = cpu_time::ThreadTime::now();
    for _ in 0..100 {
        write().await;
    }
    let alone = cpu.elapsed();

    // 50 sessions of 100 subscriptions to B (the per-session default cap): the first of
    // each warms the session's buffers, the other 4,950 are measured.
    const SESSIONS: usize = 50;
    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        let mut ws = connect(&server, None).await;
        assert!(subscribe(&mut ws, 0, &b).await.get("result").is_some());
        sessions.push(ws);
    }
    let before = held();
    for ws in &mut sessions {
        for k in 1..100 {
            send(
                ws,
                json!({"jsonrpc": "2.0", "id": k, "method": "tournament.subscribe", "params": [b]}),
            )
            .await;
        }
        for _ in 1..100 {
            let r = recv(ws).await;
            assert!(r.get("result").is_some(), "{r}");
        }
    }
    let per_subscription = (held() - before) / (SESSIONS as i64 * 99);
    // Measured 4.2 KB (2026-11-28): jsonrpsee's task and bookkeeping, the feed's receiver,
    // the caps' count; the caps bound how many there are.
    assert!(
        per_subscription < 8192,
        "{per_subscription} bytes held per subscription"
    );

    let cpu = cpu_time::ThreadTime::now();
    for _ in 0..100 {
        write().await;
    }
    let beside = cpu.elapsed();
    // One feed for every tournament woke all 5,000 subscriptions on each of these writes
    // (500,000 wake-ups, seconds of CPU): the factor and the slack only absorb noise.
    assert!(
        beside <= alone * 3 + Duration::from_millis(50),
        "100 writes: {alone:?} alone, {beside:?} beside 5,000 subscriptions to another tournament"
    );
    eprintln!(
        "100 writes: {alone:?} alone, {beside:?} beside 5,000 subscriptions elsewhere; \
         {per_subscription} bytes per subscription"
    );
    // They are live: a write to B reaches every one.
    server
        .ok("tournament.player.add", json!([b, {"name": "B1"}]))
        .await;
    for ws in &mut sessions {
        for _ in 0..100 {
            assert_eq!(event(ws).await["kind"], "player_registered");
        }
    }
    server.stop().await;
}
