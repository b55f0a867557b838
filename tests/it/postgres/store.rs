//! The Store contract, run against SQLite and a real PostgreSQL (same test body), and several
//! registries on one PostgreSQL database standing in for several daemons: conflicts retried,
//! other daemons' tournaments found, their changes followed and published.

use crate::postgres_common;

use std::sync::Arc;
use std::time::Duration;

use goswiss::app::registry::{Change, Registry, RegistryError};
use goswiss::matchmaker::{EngineError, MatchState, PairingMode, Tournament};
use goswiss::store::postgres::PostgresStore;
use goswiss::store::sqlite::SqliteStore;
use goswiss::store::{LogHead, LogKind, Owner, RawEvent, Store, StoreError};
use postgres_common::Postgres;

fn ev(kind: &'static str, n: u32) -> RawEvent {
    RawEvent {
        kind,
        body: format!("{{\"n\":{n}}}"),
    }
}

fn bodies(ns: &[u32]) -> Vec<String> {
    ns.iter().map(|n| format!("{{\"n\":{n}}}")).collect()
}

/// What every store must do, whatever is behind it.
async fn contract(store: &dyn Store) {
    assert!(store.load_all().await.unwrap().is_empty());
    let a = store
        .create(LogKind::Matchmaker, vec![ev("created", 0), ev("x", 1)])
        .await
        .unwrap();
    let b = store
        .create(LogKind::Tournament, vec![ev("created", 10)])
        .await
        .unwrap();
    assert!(a >= 1 && b > a, "ids from 1, increasing: {a} {b}");

    store
        .append(a, 2, vec![ev("x", 2), ev("x", 3)])
        .await
        .unwrap();
    // A writer that read the log before that append lost the race.
    let stale = store.append(a, 2, vec![ev("x", 99)]).await;
    assert!(
        matches!(stale, Err(StoreError::Conflict { id, seq: 2 }) if id == a),
        "{stale:?}"
    );
    // A gap is refused too, and not as a conflict.
    let gap = store.append(a, 9, vec![ev("x", 99)]).await;
    assert!(matches!(gap, Err(StoreError::Database(_))), "{gap:?}");
    let missing = store.append(b + 1000, 0, vec![ev("x", 99)]).await;
    assert!(missing.is_err());

    // Concurrent appends at one sequence number: exactly one wins.
    let racers = (0..8u32).map(|k| store.append(b, 1, vec![ev("x", 100 + k)]));
    let outcomes = futures::future::join_all(racers).await;
    let won = outcomes.iter().filter(|r| r.is_ok()).count();
    assert_eq!(won, 1, "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .all(|r| r.is_ok() || matches!(r, Err(StoreError::Conflict { seq: 1, .. })))
    );

    let all = store.load_all().await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!((all[0].id, all[0].kind), (a, LogKind::Matchmaker));
    assert_eq!(all[0].events, bodies(&[0, 1, 2, 3]));
    assert_eq!((all[1].id, all[1].kind), (b, LogKind::Tournament));
    assert_eq!(all[1].events.len(), 2);

    // Several tails in one call, in the order asked; a missing tournament is None.
    let tails = store
        .load_tails(vec![(b, 1), (b + 1000, 0), (a, 3), (a, 0)])
        .await
        .unwrap();
    assert_eq!(tails.len(), 4);
    let t0 = tails[0].as_ref().unwrap();
    assert_eq!(
        (t0.id, t0.kind, t0.events.len()),
        (b, LogKind::Tournament, 1)
    );
    assert!(tails[1].is_none());
    assert_eq!(tails[2].as_ref().unwrap().events, bodies(&[3]));
    assert_eq!(tails[3].as_ref().unwrap().events, bodies(&[0, 1, 2, 3]));
    assert!(store.load_tails(vec![]).await.unwrap().is_empty());

    let tail = store.load_since(a, 2).await.unwrap().unwrap();
    assert_eq!((tail.id, tail.kind), (a, LogKind::Matchmaker));
    assert_eq!(tail.events, bodies(&[2, 3]));
    let none = store.load_since(a, 4).await.unwrap().unwrap();
    assert!(none.events.is_empty());
    assert!(store.load_since(b + 1000, 0).await.unwrap().is_none());

    // Every log's head, by id, without its events; pages of one log: by count, by bytes of
    // bodies (each body here is 7 bytes, a page may hold exactly its cap), and at least one
    // event however small the cap, so a reader always moves on.
    assert_eq!(
        store.heads().await.unwrap(),
        vec![
            LogHead {
                id: a,
                kind: LogKind::Matchmaker,
                head: 4
            },
            LogHead {
                id: b,
                kind: LogKind::Tournament,
                head: 2
            },
        ]
    );
    let page = |from, n, bytes| store.load_page(a, from, n, bytes);
    let p = page(1, 2, 1000).await.unwrap().unwrap();
    assert_eq!(
        (p.kind, p.head, p.events),
        (LogKind::Matchmaker, 4, bodies(&[1, 2]))
    );
    assert_eq!(
        page(0, 10, 14).await.unwrap().unwrap().events,
        bodies(&[0, 1])
    );
    assert_eq!(
        page(0, 10, 20).await.unwrap().unwrap().events,
        bodies(&[0, 1])
    );
    assert_eq!(
        page(0, 10, 21).await.unwrap().unwrap().events,
        bodies(&[0, 1, 2])
    );
    assert_eq!(page(2, 10, 1).await.unwrap().unwrap().events, bodies(&[2]));
    assert_eq!(page(2, 0, 0).await.unwrap().unwrap().events, bodies(&[2]));
    assert_eq!(
        page(1, 10, 1 << 20).await.unwrap().unwrap().events,
        bodies(&[1, 2, 3])
    );
    let end = page(4, 10, 1000).await.unwrap().unwrap();
    assert_eq!((end.head, end.events.len()), (4, 0));
    assert!(
        store
            .load_page(b + 1000, 0, 10, 10)
            .await
            .unwrap()
            .is_none()
    );

    // Appends to many tournaments at once (a store may commit them as one statement), one
    // of them stale: it alone fails, as a conflict; the others land whole and in order.
    let mut many = Vec::new();
    for k in 0..20u32 {
        many.push(
            store
                .create(LogKind::Matchmaker, vec![ev("created", k)])
                .await
                .unwrap(),
        );
    }
    let stale_one = many[7];
    store.append(stale_one, 1, vec![ev("x", 1)]).await.unwrap();
    let writes = many
        .iter()
        .map(|&id| store.append(id, 1, vec![ev("x", 1), ev("x", 2)]));
    let outcomes = futures::future::join_all(writes).await;
    for (id, outcome) in many.iter().zip(&outcomes) {
        if *id == stale_one {
            assert!(
                matches!(outcome, Err(StoreError::Conflict { seq: 1, .. })),
                "{outcome:?}"
            );
        } else {
            assert!(outcome.is_ok(), "{id}: {outcome:?}");
        }
    }
    let tails = store
        .load_tails(many.iter().map(|&id| (id, 0)).collect())
        .await
        .unwrap();
    for (id, tail) in many.iter().zip(tails) {
        let events = tail.unwrap().events;
        let k = many.iter().position(|x| x == id).unwrap() as u32;
        if *id == stale_one {
            assert_eq!(events, bodies(&[k, 1]));
        } else {
            assert_eq!(events, bodies(&[k, 1, 2]));
        }
    }
    for id in many {
        store.delete(id).await.unwrap();
    }

    store.delete(a).await.unwrap();
    assert!(store.load_since(a, 0).await.unwrap().is_none());
    assert!(matches!(store.delete(a).await, Err(StoreError::NotFound(id)) if id == a));
    let c = store
        .create(LogKind::Matchmaker, vec![ev("created", 20)])
        .await
        .unwrap();
    assert!(c > b, "a deleted id is never given out again");
    let all = store.load_all().await.unwrap();
    assert_eq!(all.iter().map(|t| t.id).collect::<Vec<_>>(), vec![b, c]);

    store.close().await.unwrap();
    let closed = store
        .create(LogKind::Matchmaker, vec![ev("created", 0)])
        .await;
    assert!(matches!(closed, Err(StoreError::Closed)), "{closed:?}");
}

#[tokio::test]
async fn the_store_contract_holds_for_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("c.db")).await.unwrap();
    contract(&store).await;
}

#[tokio::test]
async fn the_store_contract_holds_for_postgres() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("contract");
    let store = PostgresStore::open(&url).await.unwrap();
    contract(&store).await;
    // The schema is versioned: a second daemon opening it migrates nothing and sees the data.
    let again = PostgresStore::open(&url).await.unwrap();
    assert_eq!(again.load_all().await.unwrap().len(), 2);
}

/// Creation quotas as the store keeps them (`Store::create_owned`): per owner key, counted in
/// the step that creates, seen by another store on the same database (another daemon, or this
/// one after a restart), a deletion giving the slot back, and creations at the same time through
/// both stores never past the cap.
async fn quotas(store: &dyn Store, other: &dyn Store) {
    let owner = |key: &str, cap: u32| Owner {
        key: key.into(),
        cap,
    };
    let net = || owner("198.51.100.0/24", 2);
    let create = |s: &'static str| vec![ev(s, 0)];
    let mut mine = Vec::new();
    for _ in 0..2 {
        let id = store
            .create_owned(LogKind::Tournament, create("created"), net())
            .await
            .unwrap();
        mine.push(id.expect("under the cap"));
    }
    let held = store.load_all().await.unwrap().len();
    let full = store
        .create_owned(LogKind::Matchmaker, create("created"), net())
        .await
        .unwrap();
    assert_eq!(full, None, "both kinds count");
    let full = other
        .create_owned(LogKind::Tournament, create("created"), net())
        .await
        .unwrap();
    assert_eq!(full, None, "the other store counts the same rows");
    assert_eq!(
        store.load_all().await.unwrap().len(),
        held,
        "a refused creation stores nothing"
    );
    // Other keys, plain creations and uncapped owners are not held back by it, and do not count
    // for it.
    assert!(
        other
            .create_owned(
                LogKind::Tournament,
                create("created"),
                owner("198.51.101.0/24", 2)
            )
            .await
            .unwrap()
            .is_some()
    );
    store
        .create(LogKind::Tournament, create("created"))
        .await
        .unwrap();
    for _ in 0..3 {
        let admin = store
            .create_owned(LogKind::Tournament, create("created"), owner("admin", 0))
            .await
            .unwrap();
        assert!(admin.is_some(), "cap 0: no limit");
    }
    // A deletion gives the slot back, once.
    store.delete(mine[0]).await.unwrap();
    let again = other
        .create_owned(LogKind::Tournament, create("created"), net())
        .await
        .unwrap();
    assert!(again.is_some());
    let full = store
        .create_owned(LogKind::Tournament, create("created"), net())
        .await
        .unwrap();
    assert_eq!(full, None);
    // Sixteen creations at once through both stores for three slots: three land.
    let racers = (0..16).map(|k| {
        let s = if k % 2 == 0 { store } else { other };
        s.create_owned(
            LogKind::Tournament,
            create("created"),
            owner("203.0.113.0/24", 3),
        )
    });
    let landed = futures::future::join_all(racers)
        .await
        .into_iter()
        .map(|r| r.unwrap())
        .filter(Option::is_some)
        .count();
    assert_eq!(landed, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_quotas_are_counted_by_the_store_for_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let other = SqliteStore::open(&path).await.unwrap();
    quotas(&store, &other).await;
    // Reopened, the counts are the same.
    store.close().await.unwrap();
    other.close().await.unwrap();
    let reopened = SqliteStore::open(&path).await.unwrap();
    let full = reopened
        .create_owned(
            LogKind::Tournament,
            vec![ev("created", 0)],
            Owner {
                key: "203.0.113.0/24".into(),
                cap: 3,
            },
        )
        .await
        .unwrap();
    assert_eq!(full, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_quotas_are_counted_by_the_store_for_postgres() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("quotas");
    let store = PostgresStore::open(&url).await.unwrap();
    let other = PostgresStore::open(&url).await.unwrap();
    quotas(&store, &other).await;
}

/// Waits until `feed`'s store hears `writer`'s creations (its LISTEN starts in the background:
/// a change made before it is live is not announced one by one, only by the resync the feed
/// sends on a reconnect). Creations are announced to every daemon; a probe that is not heard
/// is followed by another. Returns the probes, which may still be on their way.
async fn wait_live(
    writer: &PostgresStore,
    feed: &mut tokio::sync::broadcast::Receiver<goswiss::store::HeadChange>,
) -> Vec<i64> {
    let mut probes = Vec::new();
    for _ in 0..150 {
        probes.push(
            writer
                .create(LogKind::Tournament, vec![ev("created", 0)])
                .await
                .unwrap(),
        );
        if let Ok(change) = tokio::time::timeout(Duration::from_millis(200), feed.recv()).await {
            assert!(probes.contains(&change.expect("feed open").id));
            return probes;
        }
    }
    panic!("the change feed never went live");
}

/// Takes what the probes of [`wait_live`] still have in flight off `feed`.
async fn drain_probes(
    feed: &mut tokio::sync::broadcast::Receiver<goswiss::store::HeadChange>,
    probes: &[i64],
) {
    while let Ok(change) = tokio::time::timeout(Duration::from_millis(300), feed.recv()).await {
        assert!(probes.contains(&change.unwrap().id));
    }
}

/// A store listening on `url` (its feed live) and a second store to write with: another
/// daemon's writes, since a store's feed leaves out its own (its registries applied them).
async fn store_and_writer(
    url: &str,
) -> (
    PostgresStore,
    tokio::sync::broadcast::Receiver<goswiss::store::HeadChange>,
    PostgresStore,
) {
    let store = PostgresStore::open(url).await.unwrap();
    let mut feed = store.changes().expect("PostgreSQL has a change feed");
    let writer = PostgresStore::open(url).await.unwrap();
    let probes = wait_live(&writer, &mut feed).await;
    drain_probes(&mut feed, &probes).await;
    (store, feed, writer)
}

/// [`store_and_writer`] with the writer's feed live too (its creations then sign it up, and
/// it hears the store's creations), returned last.
async fn both_listening(
    url: &str,
) -> (
    PostgresStore,
    tokio::sync::broadcast::Receiver<goswiss::store::HeadChange>,
    PostgresStore,
    tokio::sync::broadcast::Receiver<goswiss::store::HeadChange>,
) {
    let (store, mut feed, writer) = store_and_writer(url).await;
    let mut writer_feed = writer.changes().unwrap();
    let probes = wait_live(&store, &mut writer_feed).await;
    drain_probes(&mut writer_feed, &probes).await;
    // The store's feed leaves out the store's own probes: nothing more arrives on it.
    drain_probes(&mut feed, &[]).await;
    (store, feed, writer, writer_feed)
}

#[tokio::test]
async fn every_write_of_a_big_batch_is_announced_on_the_change_feed() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("feed");
    let (store, mut feed, writer) = store_and_writer(&url).await;
    // Enough appends queued at once for batches whose heads do not fit one NOTIFY payload.
    let mut ids = Vec::new();
    for k in 0..400u32 {
        ids.push(
            writer
                .create(LogKind::Tournament, vec![ev("created", k)])
                .await
                .unwrap(),
        );
    }
    // A store hears of the appends to the tournaments it follows: those it read (or created).
    let read = store
        .load_tails(ids.iter().map(|&id| (id, 0)).collect())
        .await
        .unwrap();
    assert!(read.iter().all(|t| t.as_ref().unwrap().events.len() == 1));
    let writes = ids
        .iter()
        .map(|&id| writer.append(id, 1, vec![ev("x", 1), ev("x", 2)]));
    for outcome in futures::future::join_all(writes).await {
        outcome.unwrap();
    }
    writer.delete(ids[3]).await.unwrap();
    let mut created = std::collections::HashSet::new();
    let mut moved = std::collections::HashSet::new();
    let mut deleted = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !(deleted && moved.len() == ids.len()) {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("every change announced within 30 s")
            .unwrap();
        match (change.kind, change.head) {
            (Some(LogKind::Tournament), Some(1)) => assert!(created.insert(change.id)),
            (None, Some(3)) => assert!(moved.insert(change.id)),
            (None, None) if change.id == ids[3] => deleted = true,
            _ => panic!("unexpected change {change:?}"),
        }
    }
    let all: std::collections::HashSet<_> = ids.iter().copied().collect();
    assert_eq!(created, all);
    assert_eq!(moved, all);
}

/// The number of watchers of each of `ids` as stored, and the channels of the listeners
/// connected (their connections' `application_name`).
async fn watchers(url: &str, ids: &[i64]) -> (Vec<i32>, Vec<String>) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut counts = Vec::new();
    for id in ids {
        let row = client
            .query_one(
                "SELECT cardinality(watchers) FROM tournaments WHERE id = $1",
                &[id],
            )
            .await
            .unwrap();
        counts.push(row.get(0));
    }
    let live = client
        .query(
            "SELECT application_name::text FROM pg_stat_activity
             WHERE application_name LIKE 'gw%' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    (counts, live)
}

#[tokio::test]
async fn a_store_hears_only_of_the_tournaments_it_follows() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("follows");
    // The writer's listener live too: its creations sign it up.
    let (store, mut feed, writer, _) = both_listening(&url).await;
    let x = writer
        .create(LogKind::Matchmaker, vec![ev("created", 1)])
        .await
        .unwrap();
    let y = writer
        .create(LogKind::Matchmaker, vec![ev("created", 2)])
        .await
        .unwrap();
    // The store reads x (and so follows it), never y.
    assert_eq!(
        store.load_since(x, 0).await.unwrap().unwrap().events.len(),
        1
    );
    // The writer follows both (it created them); the store's listener is x's second watcher.
    assert_eq!(watchers(&url, &[x, y]).await.0, vec![2, 1]);
    // A second read signs nothing up twice.
    store.load_since(x, 1).await.unwrap().unwrap();
    assert_eq!(watchers(&url, &[x, y]).await.0, vec![2, 1]);
    writer.append(y, 1, vec![ev("x", 1)]).await.unwrap();
    writer.append(x, 1, vec![ev("x", 1)]).await.unwrap();
    // A fence: announced to everyone, after the appends (a session's notifications arrive in
    // commit order).
    let z = writer
        .create(LogKind::Matchmaker, vec![ev("created", 3)])
        .await
        .unwrap();
    let mut heard = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while heard.last().map(|c: &goswiss::store::HeadChange| c.id) != Some(z) {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("the fence heard within 30 s")
            .unwrap();
        heard.push(change);
    }
    let heard: Vec<_> = heard.iter().map(|c| (c.id, c.kind, c.head)).collect();
    assert_eq!(
        heard,
        vec![
            (x, Some(LogKind::Matchmaker), Some(1)),
            (y, Some(LogKind::Matchmaker), Some(1)),
            (x, None, Some(2)),
            (z, Some(LogKind::Matchmaker), Some(1)),
        ],
        "the creations, and the append to the tournament the store read, not the other"
    );
    // The writer's own appends are not announced to it, though it follows both.
    let mut own = writer.changes().unwrap();
    writer.append(x, 2, vec![ev("x", 2)]).await.unwrap();
    writer
        .create(LogKind::Matchmaker, vec![ev("created", 4)])
        .await
        .unwrap();
    assert!(
        tokio::time::timeout(Duration::from_millis(500), own.recv())
            .await
            .is_err(),
        "a store hears nothing of its own writes"
    );
}

/// Waits until `n` sessions of `url`'s database wait for a lock, looking every 10 ms for at
/// most 60 s. (From a connection of its own: in a transaction `pg_stat_activity` is read once.)
async fn lock_waiters(url: &str, n: i64) {
    let (c, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let limit = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let waiting: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE datname = current_database() AND wait_event_type = 'Lock'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        if waiting >= n {
            return;
        }
        assert!(
            tokio::time::Instant::now() < limit,
            "{waiting} sessions wait for a lock after 60 s, not {n}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// An append racing a read that signs the store up: either the read sees the append's
/// events, or the append notifies the store. A third connection holds the tournament's row
/// lock while both queue behind it, in each order in turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_racing_a_sign_up_is_read_or_heard() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("race");
    let (store, mut feed, writer) = store_and_writer(&url).await;
    let (holder, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let store = Arc::new(store);
    let writer = Arc::new(writer);
    for read_first in [false, true] {
        let t = writer
            .create(LogKind::Matchmaker, vec![ev("created", 0)])
            .await
            .unwrap();
        drain_probes(&mut feed, &[t]).await;
        holder.batch_execute("BEGIN").await.unwrap();
        holder
            .execute("SELECT id FROM tournaments WHERE id = $1 FOR UPDATE", &[&t])
            .await
            .unwrap();
        let read = {
            let store = Arc::clone(&store);
            async move { store.load_since(t, 0).await.unwrap().unwrap().events.len() }
        };
        let append = {
            let writer = Arc::clone(&writer);
            async move { writer.append(t, 1, vec![ev("x", 1)]).await.unwrap() }
        };
        // The second waits behind the first for the row's lock: each is started once the one
        // before it waits there.
        let (read, append) = if read_first {
            let read = tokio::spawn(read);
            lock_waiters(&url, 1).await;
            (read, tokio::spawn(append))
        } else {
            let append = tokio::spawn(append);
            lock_waiters(&url, 1).await;
            (tokio::spawn(read), append)
        };
        lock_waiters(&url, 2).await;
        holder.batch_execute("COMMIT").await.unwrap();
        append.await.unwrap();
        let seen = read.await.unwrap();
        let heard = tokio::time::timeout(Duration::from_secs(2), feed.recv()).await;
        match (read_first, seen, heard) {
            // Signed up first: the read saw only the creation, and the append (which waited
            // for the sign-up's commit) notified the store.
            (true, 1, Ok(change)) => {
                let change = change.unwrap();
                assert_eq!((change.id, change.head), (t, Some(2)));
            }
            // Appended first: the read saw the event; nothing to hear.
            (false, 2, Err(_)) => {}
            (first, seen, heard) => {
                panic!("read first {first}: the read saw {seen} events, the feed gave {heard:?}")
            }
        }
    }
}

#[tokio::test]
async fn listeners_that_are_gone_are_removed_from_the_watchers() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("gone");
    let (writer, mut writer_feed, reader, _) = both_listening(&url).await;
    let t = writer
        .create(LogKind::Matchmaker, vec![ev("created", 1)])
        .await
        .unwrap();
    reader.load_since(t, 0).await.unwrap().unwrap();
    let (counts, live) = watchers(&url, &[t]).await;
    assert_eq!((counts, live.len()), (vec![2], 2));
    // The reader's daemon stops: its listener's connection ends.
    reader.close().await.unwrap();
    drop(reader);
    let mut gone = false;
    // Up to 60 s: a bound only a hang reaches.
    for _ in 0..2400 {
        if watchers(&url, &[t]).await.1.len() == 1 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(gone, "the closed store's listener left");
    // A channel younger than the margin is kept (its listener may be connecting as the
    // cleanup reads the connections).
    writer
        .forget_gone_watchers(Duration::from_secs(3600))
        .await
        .unwrap();
    assert_eq!(watchers(&url, &[t]).await.0, vec![2]);
    // Without the margin the gone listener goes (from t and from the probes the reader
    // created); the live one stays.
    assert!(writer.forget_gone_watchers(Duration::ZERO).await.unwrap() >= 1);
    assert_eq!(watchers(&url, &[t]).await.0, vec![1]);
    // And the writer, still following t, hears a third daemon's writes to it.
    let third = PostgresStore::open(&url).await.unwrap();
    third.append(t, 1, vec![ev("x", 1)]).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let change = tokio::time::timeout_at(deadline, writer_feed.recv())
            .await
            .expect("the append heard within 30 s")
            .unwrap();
        if change.id == t {
            assert_eq!(change.head, Some(2));
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_postgres_restart_a_store_follows_again_what_it_reads() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("refollow");
    let (store, mut feed, writer) = store_and_writer(&url).await;
    let t = writer
        .create(LogKind::Matchmaker, vec![ev("created", 1)])
        .await
        .unwrap();
    store.load_since(t, 0).await.unwrap().unwrap();
    let before = store.feed_epoch();
    pg.restart();
    // The listener reconnects by itself: a new session (and channel), announced by a resync.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while store.feed_epoch() == before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the listener reconnected"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Creations of the probes may still arrive; then the resync.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("the feed told its followers to check everything within 60 s")
            .unwrap();
        if change.is_resync() {
            break;
        }
    }
    // Reading t again signs the new channel up (the old one went with its connection).
    store.load_since(t, 1).await.unwrap().unwrap();
    let mut written = false;
    for _ in 0..200 {
        match writer.append(t, 1, vec![ev("x", 1)]).await {
            Ok(()) => {
                written = true;
                break;
            }
            // The writer's connection comes back by itself.
            Err(StoreError::Unavailable(_)) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            // An earlier try landed though its answer was lost with the connection.
            Err(StoreError::Conflict { .. }) => {
                written = true;
                break;
            }
            Err(e) => panic!("append: {e}"),
        }
    }
    assert!(written, "the writer reconnected");
    let change = tokio::time::timeout(Duration::from_secs(30), feed.recv())
        .await
        .expect("the append heard within 30 s")
        .unwrap();
    assert_eq!((change.id, change.head), (t, Some(2)));
}

type Reg = Arc<Registry<Tournament>>;

async fn daemon(url: &str) -> Reg {
    let store: Arc<dyn Store> = Arc::new(PostgresStore::open(url).await.unwrap());
    let logs = store.load_all().await.unwrap();
    let reg = Arc::new(Registry::<Tournament>::open(store, &logs).unwrap());
    let follower = Arc::clone(&reg);
    tokio::spawn(async move { follower.follow().await });
    reg
}

/// Plays one tournament to its end with `workers` concurrent clients, each call going to the
/// next daemon in turn. Returns the number of acknowledged commits.
async fn play(regs: Vec<Reg>, id: i64, workers: usize) -> usize {
    let mut tasks = Vec::new();
    for w in 0..workers {
        let regs = regs.clone();
        tasks.push(tokio::spawn(async move {
            let mut acked = 0;
            let mut k = w;
            for _ in 0..10_000 {
                k += 1;
                let reg = &regs[k % regs.len()];
                let pair = match reg.mutate(id, |t, _| t.checkout()).await {
                    Ok(pair) => pair,
                    Err(RegistryError::Engine(EngineError::Ended)) => return acked,
                    Err(RegistryError::Engine(EngineError::StillOut(_))) => {
                        tokio::time::sleep(Duration::from_millis(2)).await;
                        continue;
                    }
                    Err(e) => panic!("checkout: {e}"),
                };
                k += 1;
                let reg = &regs[k % regs.len()];
                reg.mutate(id, move |t, _| Ok((t.commit(pair, 1)?, ())))
                    .await
                    .unwrap_or_else(|e| panic!("commit: {e}"));
                acked += 1;
            }
            panic!("tournament {id} did not end");
        }));
    }
    let mut acked = 0;
    for t in tasks {
        acked += t.await.unwrap();
    }
    acked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_daemons_on_one_database_agree() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("daemons");
    let regs = vec![daemon(&url).await, daemon(&url).await, daemon(&url).await];

    // Created on one daemon, found by the others on first access.
    let created =
        Tournament::create((1..=8).collect(), 1, false, PairingMode::default(), 7).unwrap();
    let mut ids = Vec::new();
    for k in 0..6 {
        ids.push(regs[k % 3].create(vec![created.clone()]).await.unwrap());
    }
    for reg in &regs {
        for &id in &ids {
            assert_eq!(reg.read(id, |_, seq| seq).await.unwrap(), 1);
        }
    }
    // Daemon 0 follows each tournament from here (one event each), whoever writes it.
    let mut watches: Vec<_> = ids.iter().map(|&id| regs[0].subscribe(id)).collect();

    let games = ids
        .iter()
        .map(|&id| tokio::spawn(play(regs.clone(), id, 3)));
    let mut acked = Vec::new();
    for g in games {
        acked.push(g.await.unwrap());
    }

    // The log as stored: replayed from scratch by a fourth daemon.
    let fresh = daemon(&url).await;
    for (&id, &acks) in ids.iter().zip(&acked) {
        let stored = fresh
            .read(id, |t, seq| (seq, t.has_ended(), t.standings()))
            .await;
        let (seq, ended, standings) = stored.unwrap();
        assert!(ended, "tournament {id} ended");
        // Every acknowledged commit is in the log once: no commit lost, none applied twice.
        let commits = fresh
            .read(id, |t, _| {
                t.matches()
                    .iter()
                    .filter(|m| matches!(m.state, MatchState::Done(_)))
                    .count()
            })
            .await
            .unwrap();
        assert_eq!(commits, acks, "tournament {id}");
        // And every daemon's cache caught up with it (the change feed), within moments.
        for reg in &regs {
            let mut same = false;
            for _ in 0..200 {
                if reg.read(id, |_, s| s).await.unwrap() == seq {
                    same = true;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert!(same, "a daemon's cache of {id} caught up to {seq}");
            let theirs = reg.read(id, |t, _| t.standings()).await.unwrap();
            assert_eq!(format!("{theirs:?}"), format!("{standings:?}"));
        }
    }

    // Daemon 0's subscribers heard of every change, whoever wrote it, in each log's order,
    // each of its own tournament only.
    for (&id, watch) in ids.iter().zip(&mut watches) {
        let mut head = 1;
        while let Ok(change) = watch.try_recv() {
            match change {
                Change::Appended {
                    id: of,
                    first_seq,
                    events,
                } => {
                    assert_eq!((of, first_seq), (id, head), "tournament {id} in order");
                    head += events.len() as u64;
                }
                Change::Deleted { .. } => panic!("nothing was deleted"),
            }
        }
        let seq = fresh.read(id, |_, s| s).await.unwrap();
        assert_eq!(head, seq, "subscriber saw all of {id}");
    }

    // A delete on one daemon reaches the others.
    regs[1].delete(ids[0]).await.unwrap();
    for reg in [&regs[0], &regs[2]] {
        let r = reg.mutate(ids[0], |t, _| t.checkout()).await;
        assert!(
            matches!(r, Err(RegistryError::NotFound(_))),
            "{:?}",
            r.map(|_| ())
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_restart_fails_calls_clearly_and_recovers_by_itself() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.database("restart");
    let store = Arc::new(PostgresStore::open(&url).await.unwrap());
    let id = store
        .create(LogKind::Matchmaker, vec![ev("created", 0)])
        .await
        .unwrap();
    pg.stop("immediate");
    let down = store.append(id, 1, vec![ev("x", 1)]).await;
    assert!(matches!(down, Err(StoreError::Unavailable(_))), "{down:?}");
    assert!(matches!(store.health(), Err(StoreError::Unavailable(_))));
    let read = store.load_since(id, 0).await;
    assert!(matches!(read, Err(StoreError::Unavailable(_))), "{read:?}");
    pg.start_again();
    // Recovers with no call made (the writer retries on its own), and then writes again.
    let mut healthy = false;
    for _ in 0..100 {
        if store.health().is_ok() {
            healthy = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(healthy, "health recovered after the restart");
    store.append(id, 1, vec![ev("x", 1)]).await.unwrap();
    let log = store.load_since(id, 0).await.unwrap().unwrap();
    assert_eq!(log.events, bodies(&[0, 1]));
}
