//! `goswiss db copy`: a SQLite database written by a real daemon (tournaments of both kinds,
//! one deleted) is copied into PostgreSQL and back; every row comes back byte-identical, and
//! daemons on the copies answer exactly what the daemon on the original answered.

use crate::common;
use crate::postgres_common;

use std::path::Path;
use std::process::Command;

use common::Server;
use goswiss::config::Config;
use postgres_common::Postgres;
use serde_json::{Value, json};

async fn rpc(c: &reqwest::Client, url: &str, method: &str, params: Value) -> Result<Value, Value> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let r: Value = c
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"))
        .json()
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"));
    match r.get("error") {
        Some(e) => Err(e.clone()),
        None => Ok(r["result"].clone()),
    }
}

async fn ok(c: &reqwest::Client, url: &str, method: &str, params: Value) -> Value {
    rpc(c, url, method, params)
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// Plays `matches` matches of matchmaker tournament `id` (all of them when more).
async fn play(c: &reqwest::Client, url: &str, id: i64, matches: usize) {
    for k in 0..matches {
        let pair = match rpc(c, url, "matchmaker.checkout_match", json!([id])).await {
            Ok(p) => p,
            Err(e) if e["code"] == 202 => return,
            Err(e) => panic!("checkout_match: {e}"),
        };
        let result = [-1, 0, 1][k % 3];
        ok(c, url, "matchmaker.commit_match", json!([id, pair, result])).await;
    }
}

/// Fills a database through a daemon; returns the ids of the live tournaments with their kinds.
async fn fill(url: &str) -> Vec<(i64, &'static str)> {
    let c = common::client();
    let players: Vec<i64> = (1..=8).collect();
    let mut ids = Vec::new();
    for (k, matches) in [100, 7, 0].into_iter().enumerate() {
        let id = ok(
            &c,
            url,
            "matchmaker.create_tournament",
            json!([players, 0, true, {"seed": k}]),
        )
        .await
        .as_i64()
        .unwrap();
        play(&c, url, id, matches).await;
        ids.push((id, "matchmaker"));
    }
    let created = ok(
        &c,
        url,
        "tournament.create",
        json!([{"name": "Copy Open", "rounds": 3, "system": "swiss"}]),
    )
    .await;
    let tid = created["id"].as_i64().unwrap();
    for k in 0..6 {
        ok(
            &c,
            url,
            "tournament.player.add",
            json!([tid, {"name": format!("P{k}"), "first_name": "Ann", "rank": format!("{}k", k + 1)}]),
        )
        .await;
    }
    ok(&c, url, "tournament.round.pair", json!([tid, 1])).await;
    ok(
        &c,
        url,
        "tournament.result.set",
        json!([tid, 1, 1, "white"]),
    )
    .await;
    ids.push((tid, "tournament"));
    // A deleted tournament: its id must never be handed out again, on any copy.
    let gone = ok(
        &c,
        url,
        "tournament.create",
        json!([{"name": "Gone", "rounds": 1}]),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    ok(&c, url, "tournament.delete", json!([gone])).await;
    ids
}

/// What a client can read of each tournament.
async fn answers(url: &str, ids: &[(i64, &str)]) -> Vec<Value> {
    let c = common::client();
    let mut out = Vec::new();
    for &(id, kind) in ids {
        if kind == "matchmaker" {
            for m in [
                "matchmaker.has_ended",
                "matchmaker.round",
                "matchmaker.table_by_criteria",
                "matchmaker.checkedout_matches",
                "matchmaker.repeated_matches",
            ] {
                out.push(json!([m, rpc(&c, url, m, json!([id])).await]));
            }
        } else {
            out.push(ok(&c, url, "tournament.get", json!([id])).await);
        }
    }
    out
}

type Rows = (
    Vec<(i64, String, i64, i64)>,
    Vec<(i64, i64, String, String, i64)>,
    i64,
);

/// Every stored row of a SQLite database, and its id counter.
fn rows(path: &Path) -> Rows {
    let conn = rusqlite::Connection::open(path).unwrap();
    let heads = conn
        .prepare("SELECT id, kind, created_at, next_seq FROM tournaments ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let events = conn
        .prepare(
            "SELECT tournament_id, seq, kind, body, at FROM events ORDER BY tournament_id, seq",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let seq = conn
        .query_row(
            "SELECT seq FROM sqlite_sequence WHERE name = 'tournaments'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (heads, events, seq)
}

fn db_copy(from: &str, to: &str, force: bool) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goswiss"));
    cmd.args(["db", "copy", "--from", from, "--to", to]);
    if force {
        cmd.arg("--force");
    }
    let out = cmd.output().expect("run goswiss db copy");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

async fn server_on(db: &str) -> Server {
    Server::start_on(Path::new(db), Config::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_to_postgres_and_back_keeps_every_byte_and_every_answer() {
    let Some(pg) = Postgres::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original.db");
    let original_s = original.to_str().unwrap().to_string();

    let server = server_on(&original_s).await;
    let url = server.url("/");
    let ids = fill(&url).await;
    let expected = answers(&url, &ids).await;
    server.stop().await;
    let before = rows(&original);
    assert_eq!(before.0.len(), ids.len(), "the deleted tournament is gone");
    assert!(
        before.2 > ids.iter().map(|i| i.0).max().unwrap(),
        "the deleted id is counted"
    );

    let pg_url = pg.database("copy");
    let (ok_, out) = db_copy(&original_s, &pg_url, false);
    assert!(ok_, "{out}");
    assert!(
        out.contains("copied 4 tournaments (3 matchmaker, 1 tournament)"),
        "{out}"
    );

    // A second copy into the now non-empty database is refused and changes nothing.
    let (ok_, out) = db_copy(&original_s, &pg_url, false);
    assert!(!ok_ && out.contains("already holds 4 tournaments"), "{out}");

    let back = dir.path().join("back.db");
    let back_s = back.to_str().unwrap().to_string();
    let (ok_, out) = db_copy(&pg_url, &back_s, false);
    assert!(ok_, "{out}");
    assert_eq!(
        rows(&back),
        before,
        "SQLite -> PostgreSQL -> SQLite changed a row"
    );

    // Daemons on both copies answer what the original answered, and go on with fresh ids.
    for db in [pg_url.clone(), back_s.clone()] {
        let server = server_on(&db).await;
        let url = server.url("/");
        assert_eq!(answers(&url, &ids).await, expected, "daemon on {db}");
        let c = common::client();
        let fresh = ok(
            &c,
            &url,
            "matchmaker.create_tournament",
            json!([[1, 2, 3, 4], 0, true]),
        )
        .await
        .as_i64()
        .unwrap();
        assert_eq!(fresh, before.2 + 1, "the next id on {db}");
        play(&c, &url, ids[1].0, 100).await;
        assert_eq!(
            ok(&c, &url, "matchmaker.has_ended", json!([ids[1].0])).await,
            json!(true),
            "a copied tournament plays on to its end on {db}"
        );
        server.stop().await;
    }

    // --force replaces the target's contents; the id counter never goes back.
    let (ok_, out) = db_copy(&original_s, &pg_url, true);
    assert!(ok_ && out.contains("replaced 5 tournaments"), "{out}");
    let server = server_on(&pg_url).await;
    let url = server.url("/");
    assert_eq!(answers(&url, &ids).await, expected);
    let c = common::client();
    let fresh = ok(
        &c,
        &url,
        "matchmaker.create_tournament",
        json!([[1, 2, 3, 4], 0, true]),
    )
    .await
    .as_i64()
    .unwrap();
    assert_eq!(
        fresh,
        before.2 + 2,
        "an id given out before --force is not reused"
    );
    server.stop().await;
}

#[tokio::test]
async fn bad_sources_and_unreachable_databases_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();

    let (ok_, out) = db_copy(&p("missing.db"), &p("to.db"), false);
    assert!(!ok_ && out.contains("no such database file"), "{out}");
    assert!(
        !dir.path().join("to.db").exists(),
        "nothing made on a failed copy: {out}"
    );

    std::fs::write(p("junk.db"), b"").unwrap();
    let (ok_, out) = db_copy(&p("junk.db"), &p("to.db"), false);
    assert!(!ok_ && out.contains("not a goswiss database"), "{out}");

    // A database from a newer goswiss.
    let newer = p("newer.db");
    let store = goswiss::store::sqlite::SqliteStore::open(&newer)
        .await
        .unwrap();
    goswiss::store::Store::close(&store).await.unwrap();
    drop(store);
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    let (ok_, out) = db_copy(&newer, &p("to.db"), false);
    assert!(!ok_ && out.contains("schema version 99 is newer"), "{out}");

    // Nothing listens on a port we just freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://goswiss:secret@127.0.0.1:{port}/none");
    let (ok_, out) = db_copy(&url, &p("to.db"), false);
    assert!(!ok_ && out.contains("cannot reach"), "{out}");
    assert!(
        !out.contains("secret"),
        "the password is not printed: {out}"
    );
    let empty = p("empty.db");
    let store = goswiss::store::sqlite::SqliteStore::open(&empty)
        .await
        .unwrap();
    goswiss::store::Store::close(&store).await.unwrap();
    drop(store);
    let (ok_, out) = db_copy(&empty, &url, false);
    assert!(!ok_ && out.contains("cannot reach"), "{out}");
}
