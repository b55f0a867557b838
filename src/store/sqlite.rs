//! SQLite store through sqlx: WAL, `synchronous=FULL`, foreign keys on.
//!
//! One writer task owns the connection. Concurrent writers' jobs queue up on a channel and the
//! task commits everything queued in one transaction (group commit): many acknowledged calls
//! share one fsync, and no call returns before its transaction committed.
//!
//! The appends of a batch go to SQLite as one multi-row `INSERT` in one transaction: sqlx's
//! SQLite driver hands every statement to its worker thread and back, so three hand-offs per
//! batch (BEGIN, INSERT, COMMIT) instead of one per event keep the writer from spending its
//! time in thread switches (see BENCHMARKS.md). The explicit transaction is deliberate: the
//! same statement in autocommit mode measured slower under load.

use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection, Row, SqliteConnection};
use tokio::sync::{mpsc, oneshot};

use super::{Store, StoreError, StoreFuture, StoredTournament, TournamentId};
use crate::tournament::Event;

/// Jobs the writer takes per transaction at most; bounds the latency one batch adds.
const MAX_BATCH: usize = 512;

/// Most event rows in one multi-row `INSERT`: 5 bound values a row stays far below SQLite's
/// limit of 32,766 variables per statement.
const MAX_ROWS: usize = 2_000;

const SCHEMA_VERSION: i64 = 1;
const SCHEMA: &str = include_str!("../../migrations/sqlite/0001_events.sql");

enum Job {
    Create {
        events: Vec<Event>,
        reply: oneshot::Sender<Result<TournamentId, StoreError>>,
    },
    Append {
        id: TournamentId,
        first_seq: u64,
        events: Vec<Event>,
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
    LoadAll {
        reply: oneshot::Sender<Result<Vec<StoredTournament>, StoreError>>,
    },
    Close {
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
}

pub struct SqliteStore {
    jobs: mpsc::UnboundedSender<Job>,
}

fn db(e: sqlx::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn kind(e: &Event) -> &'static str {
    match e {
        Event::Created { .. } => "created",
        Event::RoundPaired { .. } => "round_paired",
        Event::CheckedOut { .. } => "checked_out",
        Event::Committed { .. } => "committed",
    }
}

impl SqliteStore {
    /// Opens (creating if missing) the database file and starts the writer task.
    pub async fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(db)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let mut conn = SqliteConnection::connect_with(&options).await.map_err(db)?;
        migrate(&mut conn).await?;
        let (jobs, rx) = mpsc::unbounded_channel();
        tokio::spawn(writer(conn, rx));
        Ok(SqliteStore { jobs })
    }

    fn send<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, StoreError>>) -> Job,
    ) -> StoreFuture<'_, T>
    where
        T: Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        let sent = self.jobs.send(make(reply));
        Box::pin(async move {
            sent.map_err(|_| StoreError::Closed)?;
            rx.await.map_err(|_| StoreError::Closed)?
        })
    }
}

impl Store for SqliteStore {
    fn load_all(&self) -> StoreFuture<'_, Vec<StoredTournament>> {
        self.send(|reply| Job::LoadAll { reply })
    }

    fn create(&self, events: Vec<Event>) -> StoreFuture<'_, TournamentId> {
        self.send(|reply| Job::Create { events, reply })
    }

    fn append(&self, id: TournamentId, first_seq: u64, events: Vec<Event>) -> StoreFuture<'_, ()> {
        self.send(|reply| Job::Append {
            id,
            first_seq,
            events,
            reply,
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        self.send(|reply| Job::Close { reply })
    }
}

async fn migrate(conn: &mut SqliteConnection) -> Result<(), StoreError> {
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&mut *conn)
        .await
        .map_err(db)?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::Database(format!(
            "database schema version {version} is newer than this goswiss ({SCHEMA_VERSION})"
        )));
    }
    if version < 1 {
        let mut tx = conn.begin().await.map_err(db)?;
        sqlx::raw_sql(SCHEMA).execute(&mut *tx).await.map_err(db)?;
        // Keep in step with SCHEMA_VERSION.
        sqlx::raw_sql("PRAGMA user_version = 1")
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
    }
    Ok(())
}

async fn insert_events(
    conn: &mut SqliteConnection,
    id: TournamentId,
    first_seq: u64,
    events: &[Event],
) -> Result<(), StoreError> {
    let at = now_millis();
    for (k, e) in events.iter().enumerate() {
        let seq = first_seq + k as u64;
        let body = serde_json::to_string(e).map_err(|e| StoreError::Database(e.to_string()))?;
        let r = sqlx::query(
            "INSERT INTO events (tournament_id, seq, kind, body, at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(id)
        .bind(seq as i64)
        .bind(kind(e))
        .bind(body)
        .bind(at)
        .execute(&mut *conn)
        .await;
        match r {
            Ok(_) => {}
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() => {
                return Err(StoreError::Conflict { id, seq });
            }
            Err(e) => return Err(db(e)),
        }
    }
    Ok(())
}

/// What one write job produced inside the batch transaction, answered after the commit.
enum Done {
    Created(
        oneshot::Sender<Result<TournamentId, StoreError>>,
        TournamentId,
    ),
    Appended(oneshot::Sender<Result<(), StoreError>>),
}

async fn run_write(
    conn: &mut SqliteConnection,
    job: &Job,
) -> Result<Option<TournamentId>, StoreError> {
    match job {
        Job::Create { events, .. } => {
            let id: TournamentId =
                sqlx::query("INSERT INTO tournaments (created_at) VALUES (?) RETURNING id")
                    .bind(now_millis())
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(db)?
                    .try_get(0)
                    .map_err(db)?;
            insert_events(conn, id, 0, events).await?;
            Ok(Some(id))
        }
        Job::Append {
            id,
            first_seq,
            events,
            ..
        } => {
            insert_events(conn, *id, *first_seq, events).await?;
            Ok(None)
        }
        Job::LoadAll { .. } | Job::Close { .. } => Ok(None),
    }
}

fn answer(job: Job, result: Result<Option<TournamentId>, StoreError>) -> Option<Done> {
    match (job, result) {
        (Job::Create { reply, .. }, Ok(Some(id))) => Some(Done::Created(reply, id)),
        (Job::Create { reply, .. }, Ok(None)) => {
            let _ = reply.send(Err(StoreError::Database("no id allocated".into())));
            None
        }
        (Job::Create { reply, .. }, Err(e)) => {
            let _ = reply.send(Err(e));
            None
        }
        (Job::Append { reply, .. }, Ok(_)) => Some(Done::Appended(reply)),
        (Job::Append { reply, .. }, Err(e)) => {
            let _ = reply.send(Err(e));
            None
        }
        _ => None,
    }
}

/// Appends every event of `jobs` (all `Job::Append`) with one multi-row `INSERT` in one
/// transaction (one WAL fsync under synchronous=FULL): either every job's events are durable
/// or none are, and a conflict aborts the whole statement.
async fn insert_appends(conn: &mut SqliteConnection, jobs: &[Job]) -> Result<(), StoreError> {
    let at = now_millis();
    let mut rows: Vec<(TournamentId, i64, &'static str, String)> = Vec::new();
    for job in jobs {
        if let Job::Append {
            id,
            first_seq,
            events,
            ..
        } = job
        {
            for (k, e) in events.iter().enumerate() {
                let body =
                    serde_json::to_string(e).map_err(|e| StoreError::Database(e.to_string()))?;
                rows.push((*id, (*first_seq + k as u64) as i64, kind(e), body));
            }
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    let mut sql = String::with_capacity(80 + rows.len() * 17);
    sql.push_str("INSERT INTO events (tournament_id, seq, kind, body, at) VALUES ");
    for i in 0..rows.len() {
        sql.push_str(if i == 0 {
            "(?, ?, ?, ?, ?)"
        } else {
            ", (?, ?, ?, ?, ?)"
        });
    }
    // Only placeholders are spliced in: every value is bound.
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
    for (id, seq, kind, body) in rows {
        q = q.bind(id).bind(seq).bind(kind).bind(body).bind(at);
    }
    let mut tx = conn.begin().await.map_err(db)?;
    q.execute(&mut *tx).await.map_err(db)?;
    tx.commit().await.map_err(db)?;
    Ok(())
}

fn event_rows(job: &Job) -> usize {
    match job {
        Job::Append { events, .. } | Job::Create { events, .. } => events.len(),
        _ => 0,
    }
}

/// Commits a batch of write jobs: the appends as one multi-row statement when they fit, the
/// rest (creates, which need their new id first) through [`write_in_transaction`].
async fn write_batch(conn: &mut SqliteConnection, batch: Vec<Job>) {
    let (appends, others): (Vec<Job>, Vec<Job>) = batch
        .into_iter()
        .partition(|j| matches!(j, Job::Append { .. }));
    if !appends.is_empty() {
        let rows: usize = appends.iter().map(event_rows).sum();
        if rows <= MAX_ROWS && insert_appends(conn, &appends).await.is_ok() {
            for job in appends {
                if let Job::Append { reply, .. } = job {
                    let _ = reply.send(Ok(()));
                }
            }
        } else {
            // Too many rows for one statement, or the statement failed (a conflict aborts it
            // whole): the transaction path commits what it can and answers each job.
            write_in_transaction(conn, appends).await;
        }
    }
    if !others.is_empty() {
        write_in_transaction(conn, others).await;
    }
}

/// Commits a batch of write jobs in one transaction. If the batch fails as a whole (one job's
/// conflict aborts the transaction), each job is retried in its own transaction so one bad job
/// cannot fail the others.
async fn write_in_transaction(conn: &mut SqliteConnection, batch: Vec<Job>) {
    if batch.len() > 1 {
        let attempt = async {
            let mut tx = conn.begin().await.map_err(db)?;
            let mut results = Vec::with_capacity(batch.len());
            for job in &batch {
                results.push(run_write(&mut tx, job).await?);
            }
            tx.commit().await.map_err(db)?;
            Ok::<_, StoreError>(results)
        }
        .await;
        if let Ok(results) = attempt {
            let done: Vec<Done> = batch
                .into_iter()
                .zip(results)
                .filter_map(|(job, r)| answer(job, Ok(r)))
                .collect();
            for d in done {
                match d {
                    Done::Created(reply, id) => {
                        let _ = reply.send(Ok(id));
                    }
                    Done::Appended(reply) => {
                        let _ = reply.send(Ok(()));
                    }
                }
            }
            return;
        }
    }
    for job in batch {
        let result = async {
            let mut tx = conn.begin().await.map_err(db)?;
            let r = run_write(&mut tx, &job).await?;
            tx.commit().await.map_err(db)?;
            Ok(r)
        }
        .await;
        match answer(job, result) {
            Some(Done::Created(reply, id)) => {
                let _ = reply.send(Ok(id));
            }
            Some(Done::Appended(reply)) => {
                let _ = reply.send(Ok(()));
            }
            None => {}
        }
    }
}

async fn load_all(conn: &mut SqliteConnection) -> Result<Vec<StoredTournament>, StoreError> {
    let rows =
        sqlx::query("SELECT tournament_id, seq, body FROM events ORDER BY tournament_id, seq")
            .fetch_all(&mut *conn)
            .await
            .map_err(db)?;
    let mut out: Vec<StoredTournament> = Vec::new();
    for row in rows {
        let id: TournamentId = row.try_get(0).map_err(db)?;
        let seq: i64 = row.try_get(1).map_err(db)?;
        let body: String = row.try_get(2).map_err(db)?;
        let event: Event = serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
            id,
            seq: seq as u64,
            message: e.to_string(),
        })?;
        match out.last_mut() {
            Some(t) if t.id == id => {
                if seq as usize != t.events.len() {
                    return Err(StoreError::Corrupt {
                        id,
                        seq: seq as u64,
                        message: format!("expected seq {}", t.events.len()),
                    });
                }
                t.events.push(event);
            }
            _ => out.push(StoredTournament {
                id,
                events: vec![event],
            }),
        }
    }
    Ok(out)
}

async fn writer(mut conn: SqliteConnection, mut rx: mpsc::UnboundedReceiver<Job>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        // Reads and close are served in order between write batches.
        let mut writes = Vec::new();
        for job in batch {
            match job {
                Job::LoadAll { reply } => {
                    write_batch(&mut conn, std::mem::take(&mut writes)).await;
                    let _ = reply.send(load_all(&mut conn).await);
                }
                Job::Close { reply } => {
                    write_batch(&mut conn, std::mem::take(&mut writes)).await;
                    rx.close();
                    // Later queued jobs see a dropped reply channel: StoreError::Closed.
                    while let Ok(job) = rx.try_recv() {
                        drop(job);
                    }
                    let _ = reply.send(conn.close().await.map_err(db));
                    return;
                }
                write => writes.push(write),
            }
        }
        write_batch(&mut conn, writes).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::PairingMode;

    fn created() -> Event {
        Event::Created {
            players: vec![1, 2],
            additional_rounds: 0,
            allow_repeat: false,
            pairing: PairingMode::default(),
            seed: 1,
        }
    }

    fn out(p1: i64) -> Event {
        Event::CheckedOut { p1, p2: 2 }
    }

    #[tokio::test]
    async fn a_conflict_in_a_group_commit_fails_only_its_own_job() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let id = store.create(vec![created()]).await.unwrap();
        // Queued together, so the writer takes them as one batch: one multi-row statement
        // that the duplicate seq aborts, then one transaction per job.
        let a = store.append(id, 1, vec![out(1)]);
        let b = store.append(id, 1, vec![out(7)]);
        let c = store.append(id, 2, vec![out(3), out(4)]);
        let (a, b, c) = tokio::join!(a, b, c);
        assert!(a.is_ok(), "{a:?}");
        assert!(
            matches!(b, Err(StoreError::Conflict { seq: 1, .. })),
            "{b:?}"
        );
        assert!(c.is_ok(), "{c:?}");
        // Many appends at once: all acknowledged, all stored in order.
        let other = store.create(vec![created()]).await.unwrap();
        let many: Vec<_> = (1..=50)
            .map(|s| store.append(other, s, vec![out(s as i64)]))
            .collect();
        for r in futures::future::join_all(many).await {
            r.unwrap();
        }
        let all = store.load_all().await.unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].events, vec![created(), out(1), out(3), out(4)]);
        assert_eq!(all[1].events.len(), 51);
        assert_eq!(all[1].events[50], out(50));
        store.close().await.unwrap();
        assert!(matches!(
            store.append(id, 9, vec![out(1)]).await,
            Err(StoreError::Closed)
        ));
    }
}
