//! The rating lists in the database, on SQLite and on a real PostgreSQL (same test body): one
//! row per kind, the file kept byte for byte, replaced whole by a newer import (a replace that
//! fails leaves the old list), seen by a second store on the same database; two daemons'
//! lists on one PostgreSQL following each other's imports; a daemon on PostgreSQL finding its
//! lists again after a restart.

use crate::common;
use crate::postgres_common;

use std::path::Path;
use std::sync::Arc;

use common::{Server, files};
use goswiss::config::Config;
use goswiss::ratings::{Kind, Query};
use goswiss::rpc::methods::ratings::{Lists, prepare};
use goswiss::store::postgres::PostgresStore;
use goswiss::store::sqlite::SqliteStore;
use goswiss::store::{RatingListVersion, Store, StoredRatingList};
use postgres_common::Postgres;
use serde_json::json;

const FFG: &str = "ratings/ech_ffg_V3-2021-01-11-excerpt.txt";
const AGA: &str = "ratings/tdlista-2021-excerpt.txt";

fn list(kind: &str, n: i64, data: &[u8]) -> StoredRatingList {
    StoredRatingList {
        kind: kind.into(),
        imported_at: 1_700_000_000_000 + n,
        digest: format!("digest-{n}"),
        list_date: (n % 2 == 0).then(|| format!("date {n}")),
        entries: n,
        source: format!("file-{n}.txt"),
        data: data.to_vec(),
    }
}

fn version(l: &StoredRatingList) -> RatingListVersion {
    RatingListVersion {
        kind: l.kind.clone(),
        imported_at: l.imported_at,
        digest: l.digest.clone(),
    }
}

/// What both stores must do; `other` is a second store on the same database (another daemon),
/// `refuse_entries_13` makes the database refuse to store a list of 13 entries.
async fn contract(store: &dyn Store, other: &dyn Store, refuse_entries_13: impl AsyncFnOnce()) {
    assert!(store.rating_list_versions().await.unwrap().is_empty());
    assert_eq!(store.rating_list("egf").await.unwrap(), None);

    // Bytes as imported: single-byte text, a NUL, invalid UTF-8.
    let first = list("ffg", 1, b"ZWILLING Fran\xe7ois\0\xff\r\n");
    let aga = list("aga", 2, b"Aal, Zachary\t15648\r\n");
    store.replace_rating_list(first.clone()).await.unwrap();
    store.replace_rating_list(aga.clone()).await.unwrap();
    assert_eq!(
        store.rating_list_versions().await.unwrap(),
        [version(&aga), version(&first)],
        "one row per kind, by kind"
    );
    assert_eq!(store.rating_list("ffg").await.unwrap(), Some(first.clone()));
    assert_eq!(other.rating_list("ffg").await.unwrap(), Some(first.clone()));

    // A newer import replaces the row of its kind and leaves the others.
    let newer = list("ffg", 4, &vec![b'x'; 3 * 1024 * 1024]);
    other.replace_rating_list(newer.clone()).await.unwrap();
    assert_eq!(store.rating_list("ffg").await.unwrap(), Some(newer.clone()));
    assert_eq!(store.rating_list("aga").await.unwrap(), Some(aga.clone()));
    assert_eq!(store.rating_list_versions().await.unwrap().len(), 2);

    // A replace the database refuses changes nothing: the old list stays whole.
    refuse_entries_13().await;
    let refused = store.replace_rating_list(list("ffg", 13, b"new")).await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(store.rating_list("ffg").await.unwrap(), Some(newer.clone()));
    assert_eq!(
        other.rating_list_versions().await.unwrap(),
        [version(&aga), version(&newer)]
    );
}

#[tokio::test]
async fn rating_lists_are_stored_whole_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lists.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let other = SqliteStore::open(&path).await.unwrap();
    let file = path.clone();
    contract(&store, &other, async move || {
        rusqlite::Connection::open(&file)
            .unwrap()
            .execute_batch(
                "CREATE TRIGGER refuse BEFORE UPDATE ON rating_lists WHEN NEW.entries = 13 \
                 BEGIN SELECT RAISE(ABORT, 'refused'); END;",
            )
            .unwrap();
    })
    .await;
    store.close().await.unwrap();
    other.close().await.unwrap();
    // And after a reopen (a restart).
    let again = SqliteStore::open(&path).await.unwrap();
    assert_eq!(again.rating_list_versions().await.unwrap().len(), 2);
}

#[tokio::test]
async fn rating_lists_are_stored_whole_on_postgres() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("lists");
    let store = PostgresStore::open(&url).await.unwrap();
    let other = PostgresStore::open(&url).await.unwrap();
    let conn_url = url.clone();
    contract(&store, &other, async move || {
        let (client, connection) = tokio_postgres::connect(&conn_url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute(
                "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN \
                 IF NEW.entries = 13 THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; \
                 END $$ LANGUAGE plpgsql; \
                 CREATE TRIGGER refuse BEFORE UPDATE ON rating_lists \
                 FOR EACH ROW EXECUTE FUNCTION refuse();",
            )
            .await
            .unwrap();
    })
    .await;
}

/// Two daemons on one PostgreSQL: what one imports, the other loads at its next look
/// (`ratings.info`, or its minute), and a newer import replaces it there too.
#[tokio::test]
async fn two_daemons_follow_each_others_imports() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("desks");
    let a = Lists::new(Arc::new(PostgresStore::open(&url).await.unwrap()));
    let b = Lists::new(Arc::new(PostgresStore::open(&url).await.unwrap()));
    let ffg = files::read(files::data(FFG));
    a.install(prepare(Kind::Ffg, &ffg, "ffg.txt", 1).unwrap())
        .await
        .unwrap();
    assert!(b.snapshot().is_empty());
    b.refresh().await.unwrap();
    let held = b.snapshot();
    let on_b = held.get(&Kind::Ffg).expect("b loaded the list");
    assert_eq!(on_b.index.list().len(), 108);
    assert_eq!(
        on_b.digest,
        a.snapshot()[&Kind::Ffg].digest,
        "the same file on both"
    );
    let found = on_b.index.search(&Query::new("zwilling"), 5);
    assert_eq!(found.len(), 1);

    // A newer list from b: a sees it replace its own.
    let newer: Vec<u8> = ffg
        .split_inclusive(|&b| b == b'\n')
        .take(3)
        .flatten()
        .copied()
        .collect();
    b.install(prepare(Kind::Ffg, &newer, "newer.txt", 2).unwrap())
        .await
        .unwrap();
    a.refresh().await.unwrap();
    let on_a = &a.snapshot()[&Kind::Ffg];
    assert_eq!(on_a.index.list().len(), 2);
    assert_eq!(on_a.source, "newer.txt");
    assert!(on_a.index.search(&Query::new("zwilling"), 5).is_empty());
}

#[tokio::test]
async fn a_daemon_on_postgres_keeps_its_lists_across_a_restart() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("restart");
    let aga = files::read_to_string(files::data(AGA));
    let server = Server::start_on(Path::new(&url), Config::default()).await;
    let imported = server.ok("ratings.import", json!(["aga", aga])).await;
    assert_eq!(imported["entries"], 34);
    server.stop().await;

    let server = Server::start_on(Path::new(&url), Config::default()).await;
    let info = server.ok("ratings.info", json!([])).await;
    assert_eq!(info["lists"][0]["digest"], imported["digest"]);
    let found = server.ok("ratings.search", json!(["aga", "wendsjo"])).await;
    assert_eq!(found["entries"][0]["player"]["first_name"], "Björn");
    server.stop().await;
}
