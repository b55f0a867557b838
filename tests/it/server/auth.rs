//! Tokens and quotas end to end: director and admin tokens over XML-RPC and JSON-RPC (HTTP and
//! WebSocket), Bearer and Basic; wrong and foreign tokens refused; rotation; `matchmaker_auth`;
//! who may create (the admin, or anyone with `open_creation`) and the creation quotas per
//! network prefix, kept by the database across restarts (SQLite, and PostgreSQL shared by two
//! daemons); tokens surviving a restart; tokens absent from logs, the events log and the
//! database file; a flood of writes at the ids about to be created taking over none of them.

use crate::common;
use crate::postgres_common;

use std::io::Write;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;
use common::rpc::{xml_outcome as xml_result, xml_value};
use common::{Server, client};
use futures::{SinkExt, StreamExt};
use goswiss::config::{Config, Secret};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const ADMIN: &str = "admin-7f3a9c1e5b2d4f60a8c7e9b1d3f5a7c9";

#[derive(Clone, Copy, Debug)]
enum Proto {
    Xml,
    Json,
}

#[derive(Clone, Debug)]
enum Auth {
    None,
    Bearer(String),
    /// HTTP Basic: user and password.
    Basic(String, String),
}

fn header(auth: &Auth) -> Option<String> {
    let b64 = base64::engine::general_purpose::STANDARD;
    match auth {
        Auth::None => None,
        Auth::Bearer(t) => Some(format!("Bearer {t}")),
        Auth::Basic(u, p) => Some(format!("Basic {}", b64.encode(format!("{u}:{p}")))),
    }
}

async fn call(
    server: &Server,
    proto: Proto,
    auth: &Auth,
    method: &str,
    params: Vec<Value>,
) -> Result<Value, (i64, String)> {
    call_with(&client(), server, proto, auth, method, params).await
}

/// A client whose connections come from `ip` (any 127.x.y.z is this machine's loopback).
fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap()
}

async fn call_with(
    c: &reqwest::Client,
    server: &Server,
    proto: Proto,
    auth: &Auth,
    method: &str,
    params: Vec<Value>,
) -> Result<Value, (i64, String)> {
    let mut req = match proto {
        Proto::Xml => {
            let mut body = format!(
                "<?xml version=\"1.0\"?><methodCall><methodName>{method}</methodName><params>"
            );
            for p in &params {
                body.push_str(&format!("<param><value>{}</value></param>", xml_value(p)));
            }
            body.push_str("</params></methodCall>");
            c.post(server.url("/RPC2"))
                .header("content-type", "text/xml")
                .body(body)
        }
        Proto::Json => c.post(server.url("/jsonrpc")).json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": method, "params": params,
        })),
    };
    if let Some(h) = header(auth) {
        req = req.header("authorization", h);
    }
    let resp = req.send().await.expect("request");
    // RPC errors keep HTTP 200.
    assert_eq!(resp.status(), 200, "{method}");
    let text = resp.text().await.expect("body");
    match proto {
        Proto::Xml => xml_result(&text),
        Proto::Json => {
            let v: Value = serde_json::from_str(&text).expect("JSON reply");
            match v.get("error") {
                Some(e) => Err((
                    e["code"].as_i64().unwrap(),
                    e["message"].as_str().unwrap_or("").to_string(),
                )),
                None => Ok(v["result"].clone()),
            }
        }
    }
}

fn code(r: Result<Value, (i64, String)>) -> i64 {
    match r {
        Ok(v) => panic!("expected an error, got {v}"),
        Err((c, _)) => c,
    }
}

fn with_admin() -> Config {
    Config {
        admin_token: Secret(ADMIN.into()),
        ..Config::default()
    }
}

fn admin() -> Auth {
    Auth::Bearer(ADMIN.into())
}

/// A player with a name no other call of this binary uses (names must be unique).
fn player(name: &str) -> Value {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    json!({"name": format!("{name}{n}"), "first_name": "A", "rank": "3k"})
}

async fn create(server: &Server, auth: &Auth) -> (i64, String) {
    let v = call(
        server,
        Proto::Json,
        auth,
        "tournament.create",
        vec![json!({"rounds": 3})],
    )
    .await
    .expect("create");
    (
        v["id"].as_i64().unwrap(),
        v["director_token"].as_str().unwrap().to_string(),
    )
}

/// Log lines of every server in this test binary, at TRACE level.
fn captured() -> &'static Arc<Mutex<Vec<u8>>> {
    static BUF: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    BUF.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&buf);
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || Writer(Arc::clone(&sink)))
            .try_init();
        buf
    })
}

struct Writer(Arc<Mutex<Vec<u8>>>);

impl Write for Writer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn auth_off_keeps_everything_open_and_still_hands_out_tokens() {
    let server = Server::start().await;
    let (id, token) = create(&server, &Auth::None).await;
    assert!(token.len() >= 43, "{token}");
    for proto in [Proto::Xml, Proto::Json] {
        call(
            &server,
            proto,
            &Auth::None,
            "tournament.player.add",
            vec![json!(id), player("X")],
        )
        .await
        .expect("open write");
    }
    server.stop().await;
}

#[tokio::test]
async fn writes_need_the_director_or_admin_token_on_both_protocols() {
    captured();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_on(&dir.path().join("auth.db"), with_admin()).await;
    let (t1, d1) = create(&server, &admin()).await;
    let (t2, d2) = create(&server, &admin()).await;
    assert_ne!(d1, d2);
    let add = |id: i64| vec![json!(id), player("P")];
    for proto in [Proto::Xml, Proto::Json] {
        // Refused: no token, a wrong one, another tournament's, the right one as user name
        // with some other password.
        for bad in [
            Auth::None,
            Auth::Bearer("nope".into()),
            Auth::Bearer(d2.clone()),
            Auth::Basic(d1.clone(), "x".into()),
            Auth::Bearer(format!("{ADMIN}x")),
        ] {
            let r = call(&server, proto, &bad, "tournament.player.add", add(t1)).await;
            assert_eq!(code(r), -32010, "{proto:?} {bad:?}");
        }
        let r = call(
            &server,
            proto,
            &Auth::None,
            "tournament.player.add",
            add(t1),
        )
        .await;
        let msg = r.unwrap_err().1;
        assert!(
            msg.contains("director token") && msg.contains("no token"),
            "{msg}"
        );
        // Allowed: Bearer, Basic (password, or user name alone), the admin token.
        for good in [
            Auth::Bearer(d1.clone()),
            Auth::Basic("director".into(), d1.clone()),
            Auth::Basic(d1.clone(), String::new()),
            Auth::Bearer(ADMIN.into()),
            Auth::Basic(String::new(), ADMIN.into()),
        ] {
            call(&server, proto, &good, "tournament.player.add", add(t1))
                .await
                .unwrap_or_else(|e| panic!("{proto:?} {good:?}: {e:?}"));
        }
        call(
            &server,
            proto,
            &Auth::Bearer(d2.clone()),
            "tournament.player.add",
            add(t2),
        )
        .await
        .expect("own tournament");
        // Reads stay open.
        let v = call(
            &server,
            proto,
            &Auth::None,
            "tournament.get",
            vec![json!(t1)],
        )
        .await
        .expect("read");
        assert!(v["players"].as_array().unwrap().len() >= 5);
        // Inside a multicall the same rules hold, for the multicall's caller.
        let calls = json!([{"methodName": "tournament.player.add", "params": add(t1)}]);
        let v = call(
            &server,
            proto,
            &Auth::None,
            "system.multicall",
            vec![calls.clone()],
        )
        .await
        .expect("multicall");
        assert_eq!(v[0]["faultCode"], json!(-32010), "{v}");
        let v = call(
            &server,
            proto,
            &Auth::Bearer(d1.clone()),
            "system.multicall",
            vec![calls],
        )
        .await
        .expect("multicall");
        assert!(v[0][0]["player_id"].is_i64(), "{v}");
    }
    // Deleting is a write too.
    let r = call(
        &server,
        Proto::Json,
        &Auth::None,
        "tournament.delete",
        vec![json!(t2)],
    )
    .await;
    assert_eq!(code(r), -32010);
    // Rotation: the old token stops working, the new one works; a stranger cannot rotate.
    let r = call(
        &server,
        Proto::Xml,
        &Auth::None,
        "tournament.token.rotate",
        vec![json!(t1)],
    )
    .await;
    assert_eq!(code(r), -32010);
    let v = call(
        &server,
        Proto::Xml,
        &Auth::Bearer(d1.clone()),
        "tournament.token.rotate",
        vec![json!(t1)],
    )
    .await
    .expect("rotate");
    let d1b = v["director_token"].as_str().unwrap().to_string();
    assert_ne!(d1b, d1);
    let r = call(
        &server,
        Proto::Json,
        &Auth::Bearer(d1.clone()),
        "tournament.player.add",
        add(t1),
    )
    .await;
    assert_eq!(code(r), -32010);
    call(
        &server,
        Proto::Json,
        &Auth::Bearer(d1b.clone()),
        "tournament.player.add",
        add(t1),
    )
    .await
    .expect("rotated token");
    let v = call(
        &server,
        Proto::Json,
        &Auth::Bearer(ADMIN.into()),
        "tournament.token.rotate",
        vec![json!(t1)],
    )
    .await
    .expect("admin rotates");
    assert!(v["director_token"].is_string());
    // matchmaker.*'s checkouts and commits stay open by default (rswiss clients send no
    // token); creating is the admin's, as for tournament.*.
    let r = call(
        &server,
        Proto::Xml,
        &Auth::None,
        "matchmaker.create_tournament",
        vec![json!([1, 2, 3, 4])],
    )
    .await;
    assert_eq!(code(r), -32010);
    let m = call(
        &server,
        Proto::Xml,
        &admin(),
        "matchmaker.create_tournament",
        vec![json!([1, 2, 3, 4])],
    )
    .await
    .expect("the admin creates");
    call(
        &server,
        Proto::Xml,
        &Auth::None,
        "matchmaker.checkout_match",
        vec![m],
    )
    .await
    .expect("checkout open");

    // Neither the tokens nor their hashes leave in the events log.
    let ev = call(
        &server,
        Proto::Json,
        &Auth::None,
        "tournament.events",
        vec![json!(t1)],
    )
    .await
    .expect("events")
    .to_string();
    let hash = |t: &str| goswiss::rpc::auth::to_hex(&goswiss::rpc::auth::hash(t));
    for secret in [&d1, &d1b, &hash(&d1), &hash(&d1b)] {
        assert!(!ev.contains(secret.as_str()), "events log shows {secret}");
    }
    assert!(ev.contains("director_token_set"), "{ev}");
    let db = server.db.clone();
    server.stop().await;
    // The database keeps hashes only.
    let mut bytes = std::fs::read(&db).unwrap();
    for ext in ["-wal", "-shm"] {
        if let Ok(b) = std::fs::read(format!("{}{ext}", db.display())) {
            bytes.extend(b);
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains(&hash(&d2)), "the hash is stored");
    for secret in [&d1, &d1b, &d2] {
        assert!(!text.contains(secret.as_str()), "token in the database");
    }
    // Nor in any log line, at TRACE level (a token is only ever in the reply that hands it out).
    let logs = String::from_utf8_lossy(&captured().lock().unwrap()).into_owned();
    assert!(!logs.is_empty(), "the capture works");
    for secret in [ADMIN, &d1, &d1b, &d2] {
        let line = logs.lines().find(|l| l.contains(secret));
        assert!(
            line.is_none(),
            "token in the logs: {}",
            line.unwrap_or("").replace(secret, "<TOKEN>")
        );
    }
    let b64 = base64::engine::general_purpose::STANDARD;
    assert!(!logs.contains(&b64.encode(format!("director:{d1}"))));
}

#[tokio::test]
async fn websocket_sessions_carry_the_upgrade_token() {
    let server = Server::start_with(with_admin()).await;
    let (id, token) = create(&server, &admin()).await;
    for (auth, want_ok) in [
        (Auth::None, false),
        (Auth::Bearer(token.clone()), true),
        (Auth::Basic("d".into(), token.clone()), true),
    ] {
        let mut req = format!("ws://{}/jsonrpc", server.addr)
            .into_client_request()
            .unwrap();
        if let Some(h) = header(&auth) {
            req.headers_mut()
                .insert("authorization", h.parse().unwrap());
        }
        let (mut ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .expect("upgrade");
        for k in 0..2 {
            let msg = json!({"jsonrpc": "2.0", "id": k, "method": "tournament.player.add",
                             "params": [id, player("W")]});
            ws.send(Message::text(msg.to_string())).await.unwrap();
            let reply: Value = loop {
                match ws.next().await.expect("open").expect("message") {
                    Message::Text(t) => break serde_json::from_str(&t).unwrap(),
                    Message::Ping(_) | Message::Pong(_) => continue,
                    other => panic!("unexpected {other:?}"),
                }
            };
            if want_ok {
                assert!(reply["result"]["player_id"].is_i64(), "{auth:?} {reply}");
            } else {
                assert_eq!(reply["error"]["code"], json!(-32010), "{reply}");
            }
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn matchmaker_auth_closes_matchmaker_writes_to_all_but_the_admin() {
    let server = Server::start_with(Config {
        matchmaker_auth: true,
        ..with_admin()
    })
    .await;
    let admin = Auth::Bearer(ADMIN.into());
    let create = |a: Auth| {
        let s = &server;
        async move {
            call(
                s,
                Proto::Xml,
                &a,
                "matchmaker.create_tournament",
                vec![json!([1, 2, 3, 4])],
            )
            .await
        }
    };
    assert_eq!(code(create(Auth::None).await), -32010);
    assert_eq!(code(create(Auth::Bearer("guess".into())).await), -32010);
    let id = create(admin.clone()).await.expect("admin creates");
    let r = call(
        &server,
        Proto::Xml,
        &Auth::None,
        "matchmaker.checkout_match",
        vec![id.clone()],
    )
    .await;
    assert_eq!(code(r), -32010);
    let pair = call(
        &server,
        Proto::Json,
        &admin,
        "matchmaker.checkout_match",
        vec![id.clone()],
    )
    .await
    .expect("admin checks out");
    let r = call(
        &server,
        Proto::Json,
        &Auth::None,
        "matchmaker.commit_match",
        vec![id.clone(), pair.clone(), json!(0)],
    )
    .await;
    assert_eq!(code(r), -32010);
    call(
        &server,
        Proto::Json,
        &admin,
        "matchmaker.commit_match",
        vec![id.clone(), pair, json!(0)],
    )
    .await
    .expect("admin commits");
    // Reads stay open.
    call(
        &server,
        Proto::Xml,
        &Auth::None,
        "matchmaker.round",
        vec![id],
    )
    .await
    .expect("read");
    server.stop().await;
}

/// The three ways to create a tournament.
fn creations() -> Vec<(&'static str, Vec<Value>)> {
    vec![
        ("tournament.create", vec![json!({"rounds": 3})]),
        (
            "tournament.import",
            vec![
                json!("aga"),
                json!({"register": "USA1 Doe, John 2d\nUSA2 Roe, Jane 1k\n", "rounds": []}),
            ],
        ),
        ("matchmaker.create_tournament", vec![json!([1, 2, 3, 4])]),
    ]
}

#[tokio::test]
async fn with_auth_on_creating_needs_the_admin_token_unless_creation_is_open() {
    let server = Server::start_with(with_admin()).await;
    let (_, director) = create(&server, &admin()).await;
    for proto in [Proto::Xml, Proto::Json] {
        for (method, params) in creations() {
            // A director token is not the admin's.
            for who in [Auth::None, Auth::Bearer(director.clone())] {
                let (c, msg) = call(&server, proto, &who, method, params.clone())
                    .await
                    .unwrap_err();
                assert_eq!(c, -32010, "{proto:?} {method} {who:?}");
                assert!(
                    msg.contains("needs the admin token") && msg.contains("open_creation"),
                    "{msg}"
                );
            }
            call(&server, proto, &admin(), method, params)
                .await
                .unwrap_or_else(|e| panic!("{proto:?} {method}: {e:?}"));
        }
    }
    server.stop().await;

    // Open creation: anyone creates, and gets the director token of what it made.
    let server = Server::start_with(Config {
        open_creation: true,
        ..with_admin()
    })
    .await;
    for (method, params) in creations() {
        call(&server, Proto::Json, &Auth::None, method, params)
            .await
            .unwrap_or_else(|e| panic!("{method}: {e:?}"));
    }
    let (id, token) = create(&server, &Auth::None).await;
    call(
        &server,
        Proto::Json,
        &Auth::Bearer(token),
        "tournament.player.add",
        vec![json!(id), player("O")],
    )
    .await
    .expect("the creator directs it");
    server.stop().await;

    // Director tokens only (no admin token): nobody creates unless creation is open, and the
    // refusal says what the operator must do.
    let server = Server::start_with(Config {
        auth: true,
        ..Config::default()
    })
    .await;
    let (c, msg) = call(
        &server,
        Proto::Json,
        &Auth::None,
        "tournament.create",
        vec![],
    )
    .await
    .unwrap_err();
    assert_eq!(c, -32010);
    assert!(
        msg.contains("has none") && msg.contains("admin_token or open_creation"),
        "{msg}"
    );
    server.stop().await;
}

#[tokio::test]
async fn with_auth_off_nothing_limits_creations() {
    let server = Server::start_with(Config {
        max_tournaments_per_address: 2,
        ..Config::default()
    })
    .await;
    for _ in 0..5 {
        for (method, params) in creations() {
            call(&server, Proto::Json, &Auth::None, method, params)
                .await
                .unwrap_or_else(|e| panic!("{method}: {e:?}"));
        }
    }
    server.stop().await;
}

/// Creates a tournament from `ip` with `auth`: its id, or the error code.
async fn create_from(server: &Server, ip: &str, auth: &Auth) -> Result<i64, i64> {
    call_with(
        &client_from(ip),
        server,
        Proto::Json,
        auth,
        "tournament.create",
        vec![json!({"rounds": 1})],
    )
    .await
    .map(|v| v["id"].as_i64().unwrap())
    .map_err(|(c, _)| c)
}

#[tokio::test]
async fn creation_quotas_count_per_network_prefix_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("quotas.db");
    let config = Config {
        open_creation: true,
        max_tournaments_per_address: 3,
        max_tournaments_per_token: 2,
        ..with_admin()
    };
    let server = Server::start_on(&db, config.clone()).await;
    // Three addresses of one /24 share its quota, over both kinds of tournament.
    let a = create_from(&server, "127.0.0.2", &Auth::None)
        .await
        .unwrap();
    call_with(
        &client_from("127.0.0.3"),
        &server,
        Proto::Xml,
        &Auth::None,
        "matchmaker.create_tournament",
        vec![json!([1, 2])],
    )
    .await
    .expect("second");
    let (_, d3) = create(&server, &Auth::None).await;
    // A director token is not the admin's: it counts for its network.
    let r = call_with(
        &client_from("127.0.0.4"),
        &server,
        Proto::Json,
        &Auth::Bearer(d3),
        "tournament.create",
        vec![],
    )
    .await;
    let (c, msg) = r.unwrap_err();
    assert_eq!(c, -32011);
    assert!(
        msg.contains("127.0.0.0/24") && msg.contains("max_tournaments_per_address = 3"),
        "{msg}"
    );
    for ip in ["127.0.0.1", "127.0.0.200"] {
        assert_eq!(create_from(&server, ip, &Auth::None).await, Err(-32011));
    }
    // Another /24 has its own.
    create_from(&server, "127.0.1.1", &Auth::None)
        .await
        .unwrap();
    // A failed creation takes no slot; a deletion gives one back.
    call(
        &server,
        Proto::Json,
        &admin(),
        "tournament.delete",
        vec![json!(a)],
    )
    .await
    .expect("delete");
    let r = call(
        &server,
        Proto::Json,
        &Auth::None,
        "tournament.create",
        vec![json!({"rounds": -1})],
    )
    .await;
    assert_eq!(code(r), -32602);
    let back = create_from(&server, "127.0.0.9", &Auth::None)
        .await
        .unwrap();
    assert_eq!(
        create_from(&server, "127.0.0.9", &Auth::None).await,
        Err(-32011)
    );
    // The admin has its own quota.
    create(&server, &admin()).await;
    create(&server, &admin()).await;
    let r = call(&server, Proto::Json, &admin(), "tournament.create", vec![]).await;
    assert!(r.unwrap_err().1.contains("max_tournaments_per_token = 2"));
    server.stop().await;

    // After a restart the counts are the same.
    let server = Server::start_on(&db, config.clone()).await;
    assert_eq!(
        create_from(&server, "127.0.0.5", &Auth::None).await,
        Err(-32011)
    );
    assert_eq!(
        create_from(&server, "127.0.0.5", &admin()).await,
        Err(-32011)
    );
    call(
        &server,
        Proto::Json,
        &admin(),
        "tournament.delete",
        vec![json!(back)],
    )
    .await
    .expect("delete");
    create_from(&server, "127.0.0.5", &Auth::None)
        .await
        .unwrap();
    server.stop().await;

    // With every address its own network (/32), the same database counts each alone.
    let server = Server::start_on(
        &db,
        Config {
            quota_ipv4_prefix: 32,
            ..config
        },
    )
    .await;
    for ip in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
        create_from(&server, ip, &Auth::None).await.unwrap();
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_quotas_are_shared_by_the_daemons_of_one_postgres_database() {
    let Some(pg) = postgres_common::Postgres::start() else {
        return;
    };
    let url = pg.database("quotas");
    let config = Config {
        open_creation: true,
        max_tournaments_per_address: 2,
        ..with_admin()
    };
    let db = std::path::PathBuf::from(&url);
    let one = Server::start_on(&db, config.clone()).await;
    let two = Server::start_on(&db, config.clone()).await;
    let first = create_from(&one, "127.0.0.2", &Auth::None).await.unwrap();
    create_from(&two, "127.0.0.3", &Auth::None).await.unwrap();
    assert_eq!(
        create_from(&one, "127.0.0.4", &Auth::None).await,
        Err(-32011)
    );
    assert_eq!(
        create_from(&two, "127.0.0.4", &Auth::None).await,
        Err(-32011)
    );
    one.stop().await;
    let one = Server::start_on(&db, config).await;
    assert_eq!(
        create_from(&one, "127.0.0.4", &Auth::None).await,
        Err(-32011),
        "after a restart"
    );
    // A deletion on one daemon gives the slot back on the other.
    call(
        &two,
        Proto::Json,
        &admin(),
        "tournament.delete",
        vec![json!(first)],
    )
    .await
    .expect("delete");
    create_from(&one, "127.0.0.4", &Auth::None).await.unwrap();
    one.stop().await;
    two.stop().await;
}

/// One WebSocket session's calls, one at a time.
struct Session {
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    next: u64,
}

impl Session {
    async fn open(server: &Server) -> Session {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
            .await
            .expect("upgrade");
        Session { ws, next: 0 }
    }

    async fn call(&mut self, method: &str, params: Vec<Value>) -> Result<Value, (i64, String)> {
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        self.ws.send(Message::text(msg.to_string())).await.unwrap();
        let reply: Value = loop {
            match self.ws.next().await.expect("open").expect("message") {
                Message::Text(t) => break serde_json::from_str(&t).unwrap(),
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("unexpected {other:?}"),
            }
        };
        match reply.get("error") {
            Some(e) => Err((
                e["code"].as_i64().unwrap(),
                e["message"].as_str().unwrap_or("").to_string(),
            )),
            None => Ok(reply["result"].clone()),
        }
    }
}

/// The writes a flooder tries on tournament `id`.
fn flood(id: i64, k: usize) -> (&'static str, Vec<Value>) {
    match k % 3 {
        0 => ("tournament.token.rotate", vec![json!(id)]),
        1 => (
            "tournament.settings.set",
            vec![json!(id), json!({"name": "Taken over"})],
        ),
        _ => ("tournament.player.add", vec![json!(id), player("Flood")]),
    }
}

/// The takeover the hardening found: writes at the ids about to be created passed the token
/// check (no tournament yet) and ran once the real creator's tournament had landed under that
/// id. Here a creator makes tournaments one after another while flooders on JSON-RPC, XML-RPC
/// and WebSocket send rotations, settings and players to the next ids without a token (and
/// with another tournament's): none may succeed, and the creator's token must still open every
/// tournament it made, which must hold nothing the flooders sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_writes_at_the_next_ids_takes_over_no_tournament() {
    const CREATIONS: usize = 150;
    const MAX_TRIES_PER_FLOODER: usize = 200_000;
    let server = Arc::new(Server::start_with(with_admin()).await);
    let (own, own_token) = create(&server, &admin()).await;
    let next = Arc::new(AtomicI64::new(own + 1));
    let done = Arc::new(AtomicBool::new(false));
    let successes = Arc::new(Mutex::new(Vec::<String>::new()));
    let tries = Arc::new(AtomicUsize::new(0));
    let mut flooders = Vec::new();
    for (k, transport) in ["json", "xml", "ws", "json", "xml", "ws"]
        .iter()
        .enumerate()
    {
        let (server, next, done, successes, tries) = (
            Arc::clone(&server),
            Arc::clone(&next),
            Arc::clone(&done),
            Arc::clone(&successes),
            Arc::clone(&tries),
        );
        // Half the flooders send no token, half the token of a tournament of their own.
        let auth = if k < 3 {
            Auth::None
        } else {
            Auth::Bearer(own_token.clone())
        };
        let transport = *transport;
        flooders.push(tokio::spawn(async move {
            let mut ws = match transport {
                "ws" => Some(Session::open(&server).await),
                _ => None,
            };
            let c = client();
            let mut n = 0;
            while !done.load(Ordering::SeqCst) && n < MAX_TRIES_PER_FLOODER {
                let id = next.load(Ordering::SeqCst) + (n % 2) as i64;
                let (method, params) = flood(id, n / 2 + k);
                let r = match (&mut ws, transport) {
                    (Some(ws), _) => ws.call(method, params).await,
                    (None, "xml") => {
                        call_with(&c, &server, Proto::Xml, &auth, method, params).await
                    }
                    (None, _) => call_with(&c, &server, Proto::Json, &auth, method, params).await,
                };
                match r {
                    Ok(v) => successes
                        .lock()
                        .unwrap()
                        .push(format!("{transport} {method} on {id}: {v}")),
                    Err((1001 | -32010, _)) => {}
                    Err(e) => panic!("{transport} {method} on {id}: unexpected {e:?}"),
                }
                n += 1;
                tries.fetch_add(1, Ordering::SeqCst);
            }
        }));
    }
    // Every flooder is at work before the first creation.
    for _ in 0..6000 {
        if tries.load(Ordering::SeqCst) >= flooders.len() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        tries.load(Ordering::SeqCst) >= flooders.len(),
        "the flood started"
    );
    let mut made = Vec::new();
    for _ in 0..CREATIONS {
        let (id, token) = create(&server, &admin()).await;
        next.store(id + 1, Ordering::SeqCst);
        made.push((id, token));
    }
    done.store(true, Ordering::SeqCst);
    for f in flooders {
        f.await.expect("flooder");
    }
    let successes = successes.lock().unwrap().clone();
    assert!(successes.is_empty(), "takeovers: {successes:?}");
    for (id, token) in made {
        call(
            &server,
            Proto::Json,
            &Auth::Bearer(token),
            "tournament.player.add",
            vec![json!(id), player("Mine")],
        )
        .await
        .unwrap_or_else(|e| panic!("the creator's token no longer opens {id}: {e:?}"));
        let t = call(
            &server,
            Proto::Json,
            &Auth::None,
            "tournament.get",
            vec![json!(id)],
        )
        .await
        .unwrap();
        assert_eq!(
            t["revision"],
            json!(2),
            "{id} holds only its creation and one player: {t}"
        );
    }
    Arc::try_unwrap(server)
        .ok()
        .expect("one owner")
        .stop()
        .await;
}

#[tokio::test]
async fn tokens_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("auth.db");
    let server = Server::start_on(&db, with_admin()).await;
    let (t1, d1) = create(&server, &admin()).await;
    let (t2, d2) = create(&server, &admin()).await;
    let v = call(
        &server,
        Proto::Json,
        &Auth::Bearer(d2.clone()),
        "tournament.token.rotate",
        vec![json!(t2)],
    )
    .await
    .expect("rotate");
    let d2b = v["director_token"].as_str().unwrap().to_string();
    server.stop().await;

    let server = Server::start_on(&db, with_admin()).await;
    let add = |id: i64| vec![json!(id), player("R")];
    for proto in [Proto::Xml, Proto::Json] {
        call(
            &server,
            proto,
            &Auth::Bearer(d1.clone()),
            "tournament.player.add",
            add(t1),
        )
        .await
        .expect("director token after restart");
        call(
            &server,
            proto,
            &Auth::Bearer(d2b.clone()),
            "tournament.player.add",
            add(t2),
        )
        .await
        .expect("rotated token after restart");
        for bad in [d2.clone(), d1.clone()] {
            let r = call(
                &server,
                proto,
                &Auth::Bearer(bad),
                "tournament.player.add",
                add(t2),
            )
            .await;
            assert_eq!(code(r), -32010);
        }
    }
    server.stop().await;
}

/// With auth on, the open reads show the public what the web pages show it: an unpublished
/// round is a draft (paired, hidden), its events, results and games are left out of every read
/// of a caller without the director or admin token, until the round is published.
#[tokio::test]
async fn with_auth_on_open_reads_leave_out_unpublished_rounds() {
    let server = Server::start_with(with_admin()).await;
    let (id, dt) = create(&server, &admin()).await;
    let director = Auth::Bearer(dt);
    let mut players = vec![];
    for k in 0..4 {
        let v = call(
            &server,
            Proto::Json,
            &director,
            "tournament.player.add",
            vec![json!(id), player(&format!("Vis{k}"))],
        )
        .await
        .expect("player.add");
        players.push(v["player_id"].clone());
    }
    let write = |method: &'static str, params: Vec<Value>| {
        let server = &server;
        let director = director.clone();
        async move {
            call(server, Proto::Json, &director, method, params)
                .await
                .unwrap_or_else(|e| panic!("{method}: {e:?}"))
        }
    };
    write("tournament.round.pair", vec![json!(id), json!(1)]).await;
    write(
        "tournament.result.set",
        vec![json!(id), json!(1), json!(1), json!("W+")],
    )
    .await;
    // Every read both protocols answer, as (method, params).
    let reads = || -> Vec<(&'static str, Vec<Value>)> {
        vec![
            ("tournament.get", vec![json!(id)]),
            ("tournament.round.get", vec![json!(id), json!(1)]),
            ("tournament.events", vec![json!(id)]),
            ("tournament.standings", vec![json!(id)]),
            ("tournament.crosstable", vec![json!(id)]),
            ("tournament.export", vec![json!(id), json!("h9")]),
            ("tournament.export", vec![json!(id), json!("opengotha")]),
        ]
    };
    let as_ = |auth: Auth, method: &'static str, params: Vec<Value>| {
        let server = &server;
        async move { call(server, Proto::Json, &auth, method, params).await }
    };
    for (method, params) in reads() {
        let public = as_(Auth::None, method, params.clone()).await.unwrap();
        let dir = as_(director.clone(), method, params.clone()).await.unwrap();
        let adm = as_(admin(), method, params.clone()).await.unwrap();
        assert_eq!(
            dir, adm,
            "{method}: the director and the admin see the same"
        );
        assert_ne!(public, dir, "{method}: the public sees less");
        let text = public.to_string();
        assert!(
            !text.contains("W+") && !text.contains("result_set"),
            "{method}: {text}"
        );
    }
    let public = |method: &'static str, params: Vec<Value>| as_(Auth::None, method, params);
    let round = public("tournament.round.get", vec![json!(id), json!(1)])
        .await
        .unwrap();
    assert_eq!(
        (&round["paired"], &round["hidden"], &round["games"]),
        (&json!(true), &json!(true), &json!([]))
    );
    let events = public("tournament.events", vec![json!(id)]).await.unwrap();
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "withheld").count(),
        2,
        "{kinds:?}"
    );
    let standings = public("tournament.standings", vec![json!(id)])
        .await
        .unwrap();
    assert_eq!(standings["after_round"], 0, "{standings}");
    // What only the draft holds is refused, naming the round.
    for (method, params) in [
        ("tournament.standings", vec![json!(id), json!(1)]),
        ("tournament.crosstable", vec![json!(id), json!(1)]),
        ("tournament.export", vec![json!(id), json!("h9"), json!(1)]),
        ("tournament.game.sgf", vec![json!(id), json!(1), json!(1)]),
        (
            "tournament.round.explain",
            vec![json!(id), json!(2), players[0].clone(), players[1].clone()],
        ),
    ] {
        for proto in [Proto::Json, Proto::Xml] {
            let r = call(&server, proto, &Auth::None, method, params.clone()).await;
            let (c, m) = r.expect_err(method);
            assert_eq!(c, 1037, "{method}: {m}");
            assert!(m.contains("round 1 is not published"), "{method}: {m}");
            let r = call(&server, proto, &director, method, params.clone()).await;
            assert!(!matches!(r, Err((1037, _))), "{method}: {r:?}");
        }
    }
    // Published: the public reads what the director reads.
    write("tournament.round.publish", vec![json!(id), json!(1)]).await;
    for (method, params) in reads() {
        let public = as_(Auth::None, method, params.clone()).await.unwrap();
        let dir = as_(director.clone(), method, params.clone()).await.unwrap();
        assert_eq!(public, dir, "{method}");
    }
    // Auth off: everyone is the director.
    let open = Server::start().await;
    let v = call(
        &open,
        Proto::Json,
        &Auth::None,
        "tournament.create",
        vec![json!({"rounds": 2})],
    )
    .await
    .unwrap();
    let oid = v["id"].clone();
    for k in 0..2 {
        call(
            &open,
            Proto::Json,
            &Auth::None,
            "tournament.player.add",
            vec![oid.clone(), player(&format!("Open{k}"))],
        )
        .await
        .unwrap();
    }
    call(
        &open,
        Proto::Json,
        &Auth::None,
        "tournament.round.pair",
        vec![oid.clone(), json!(1)],
    )
    .await
    .unwrap();
    let r = call(
        &open,
        Proto::Json,
        &Auth::None,
        "tournament.round.get",
        vec![oid, json!(1)],
    )
    .await
    .unwrap();
    assert_eq!(r["games"].as_array().unwrap().len(), 1, "{r}");
    open.stop().await;
    server.stop().await;
}

/// desk-edit2: with auth on, `tournament.round.warnings` gives a public caller no games of an
/// unpublished round (its pairing is the director's), the director every warned game, and
/// the public the same once the round is published.
#[tokio::test]
async fn with_auth_on_round_warnings_leave_out_an_unpublished_rounds_games() {
    let server = Server::start_with(with_admin()).await;
    let (id, dt) = create(&server, &admin()).await;
    let director = Auth::Bearer(dt);
    let mut players = vec![];
    for (k, club) in ["Paris", "Paris", "Lyon", "Brno"].iter().enumerate() {
        let mut p = player(&format!("Warn{k}"));
        p["club"] = json!(club);
        let v = call(
            &server,
            Proto::Json,
            &director,
            "tournament.player.add",
            vec![json!(id), p],
        )
        .await
        .expect("player.add");
        players.push(v["player_id"].clone());
    }
    call(
        &server,
        Proto::Json,
        &director,
        "tournament.round.set_games",
        vec![
            json!(id),
            json!(1),
            json!([
                {"table": 1, "white": players[0], "black": players[1]},
                {"table": 2, "white": players[2], "black": players[3]},
            ]),
        ],
    )
    .await
    .expect("set_games");
    let warnings = |auth: Auth| {
        let server = &server;
        async move {
            call(
                server,
                Proto::Json,
                &auth,
                "tournament.round.warnings",
                vec![json!(id), json!(1)],
            )
            .await
            .expect("round.warnings")
        }
    };
    let dir = warnings(director.clone()).await;
    assert_eq!(
        dir["games"],
        json!([{"table": 1, "warnings": [{"kind": "same_club", "club": "Paris"}]}]),
        "{dir}"
    );
    let public = warnings(Auth::None).await;
    assert_eq!(
        (&public["paired"], &public["published"], &public["games"]),
        (&json!(true), &json!(false), &json!([])),
        "{public}"
    );
    assert!(!public.to_string().contains("Paris"), "{public}");
    call(
        &server,
        Proto::Json,
        &director,
        "tournament.round.publish",
        vec![json!(id), json!(1)],
    )
    .await
    .expect("publish");
    let public = warnings(Auth::None).await;
    let dir = warnings(director).await;
    assert_eq!(public["games"], dir["games"], "published: the same for all");
    assert_eq!(public["published"], json!(true));
    server.stop().await;
}
