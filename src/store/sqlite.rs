//! SQLite store through rusqlite: WAL, `synchronous=FULL`, foreign keys on.
//!
//! One dedicated OS thread owns the connection and calls SQLite directly. Callers queue jobs on
//! a channel; the thread takes everything queued (up to [`MAX_BATCH`]) and commits it in one
//! transaction (group commit), so many acknowledged calls share one fsync, and it answers each
//! job only after that commit.
//!
//! The guard against two writers taking the same sequence number is each tournament's head,
//! `tournaments.next_seq`: an append first moves it from `first_seq` to the end of its events
//! with a compare-and-set `UPDATE`. If that changes no row, the job fails alone (a conflict)
//! before it wrote anything, and the rest of the batch commits. Events go to an append-only
//! rowid table, so a commit writes few pages (migrations/sqlite/0002_append_log.sql).
//!
//! Why a thread and not an async driver: sqlx's SQLite driver ran every statement on its own
//! worker thread and handed it over and back (BEGIN, INSERT, COMMIT: three round trips per
//! batch), and those futex wake-ups were the largest item in the server's profile
//! (BENCHMARKS.md). Here a batch costs one wake-up of the writer and one per reply.
//!
//! If the writer thread dies (a panic), every job it held and every later call gets
//! [`StoreError::WriterDied`] at once rather than waiting forever.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use std::collections::HashMap;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use tokio::sync::oneshot;

use super::{
    LogHead, LogKind, LogPage, Owner, RawEvent, Store, StoreError, StoreFuture, StoredTournament,
    TournamentId,
};

/// Jobs the writer takes per transaction at most; bounds the latency one batch adds.
const MAX_BATCH: usize = 512;

/// The schema, one step per file: step `k` (from 0) brings `PRAGMA user_version` to `k + 1`.
/// A new migration is a new file appended here; never edit a released one.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/sqlite/0001_events.sql"),
    include_str!("../../migrations/sqlite/0002_append_log.sql"),
    include_str!("../../migrations/sqlite/0003_log_kind.sql"),
    include_str!("../../migrations/sqlite/0004_health_probe.sql"),
    include_str!("../../migrations/sqlite/0005_owner.sql"),
    include_str!("../../migrations/sqlite/0006_events_by_seq.sql"),
    include_str!("../../migrations/sqlite/0007_rating_lists.sql"),
];

/// The schema version this build writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const INSERT_EVENT: &str =
    "INSERT INTO events (tournament_id, seq, kind, body, at) VALUES (?1, ?2, ?3, ?4, ?5)";

/// A reply that cannot be lost: dropped unanswered (the writer died mid-batch, or the store
/// closed with the job still queued) it answers with an error, so no caller waits forever.
struct Reply<T> {
    tx: Option<oneshot::Sender<Result<T, StoreError>>>,
}

thread_local! {
    /// Set on the writer thread once it has given up after a panic: replies dropped from then
    /// on (jobs still queued in the channel) say why.
    static WRITER_DEAD: Cell<bool> = const { Cell::new(false) };
}

impl<T> Reply<T> {
    fn send(mut self, result: Result<T, StoreError>) {
        if let Some(tx) = self.tx.take() {
            // The caller may have given up (its future was dropped): nothing to tell it.
            let _ = tx.send(result);
        }
    }
}

impl<T> Drop for Reply<T> {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let e = if std::thread::panicking() || WRITER_DEAD.with(Cell::get) {
                died()
            } else {
                StoreError::Closed
            };
            let _ = tx.send(Err(e));
        }
    }
}

fn died() -> StoreError {
    StoreError::WriterDied("the database writer thread panicked; see the server log".into())
}

enum Job {
    Create {
        kind: LogKind,
        rows: Vec<RawEvent>,
        owner: Option<Owner>,
        /// `None`: the owner's cap was reached, nothing was stored.
        reply: Reply<Option<TournamentId>>,
    },
    Append {
        id: TournamentId,
        first_seq: u64,
        rows: Vec<RawEvent>,
        reply: Reply<()>,
    },
    Delete {
        id: TournamentId,
        reply: Reply<()>,
    },
    LoadAll {
        reply: Reply<Vec<StoredTournament>>,
    },
    LoadSince {
        id: TournamentId,
        from: u64,
        reply: Reply<Option<StoredTournament>>,
    },
    Heads {
        reply: Reply<Vec<LogHead>>,
    },
    LoadPage {
        id: TournamentId,
        from: u64,
        max_events: usize,
        max_bytes: usize,
        reply: Reply<Option<LogPage>>,
    },
    Close {
        reply: Reply<()>,
    },
    /// While writes are failing: try a small real write, to see whether they work again.
    Probe,
    /// Makes the writer panic: how the tests reach the writer-death path.
    #[cfg(test)]
    Crash,
}

/// What the callers and the writer thread share.
struct Shared {
    /// Why the writer stopped, once it has died.
    death: OnceLock<String>,
    /// Why the last group commit failed (disk full, I/O error, read-only file), until a commit
    /// or a probe succeeds again: while set, the store is unhealthy.
    failing: std::sync::Mutex<Option<String>>,
    /// When the last probe was asked for, so health checks do not queue one per call.
    last_probe: std::sync::Mutex<Option<std::time::Instant>>,
}

impl Shared {
    fn set_failing(&self, why: Option<String>) {
        *self.failing.lock().unwrap_or_else(|p| p.into_inner()) = why;
    }
}

/// How often a health check may ask the writer to probe a failing database.
const PROBE_EVERY: Duration = Duration::from_millis(500);

/// Bytes a probe writes: enough to need fresh pages, as a real commit would.
const PROBE_BYTES: i64 = 64 * 1024;

pub struct SqliteStore {
    jobs: mpsc::Sender<Job>,
    shared: Arc<Shared>,
    /// The database file, for the rating lists' own connections (`store::rating_lists`).
    path: std::path::PathBuf,
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Extra settings for tests that need a failing database: SQL run on the connection right
/// after it is opened and migrated (e.g. `PRAGMA max_page_count` to simulate a full disk).
#[derive(Default)]
pub struct OpenOptions {
    pub after_open_sql: Option<String>,
}

impl SqliteStore {
    /// Opens (creating if missing) the database file, brings its schema up to date and starts
    /// the writer thread.
    pub async fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        Self::open_with(path, OpenOptions::default()).await
    }

    /// [`SqliteStore::open`] with test settings.
    pub async fn open_with(
        path: impl AsRef<Path>,
        options: OpenOptions,
    ) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let file = path.clone();
        let (jobs, rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            death: OnceLock::new(),
            failing: std::sync::Mutex::new(None),
            last_probe: std::sync::Mutex::new(None),
        });
        let (opened_tx, opened) = oneshot::channel();
        let thread_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                let conn = match open_connection(&path, &options) {
                    Ok(conn) => {
                        let _ = opened_tx.send(Ok(()));
                        conn
                    }
                    Err(e) => {
                        let _ = opened_tx.send(Err(e));
                        return;
                    }
                };
                run_writer(conn, rx, &thread_shared);
            })
            .map_err(|e| StoreError::Database(format!("cannot start the writer thread: {e}")))?;
        opened
            .await
            .map_err(|_| StoreError::WriterDied("the writer thread died while opening".into()))??;
        Ok(SqliteStore {
            jobs,
            shared,
            path: file,
        })
    }

    /// The error for a call the writer can no longer take.
    fn gone(&self) -> StoreError {
        match self.shared.death.get() {
            Some(why) => StoreError::WriterDied(why.clone()),
            None => StoreError::Closed,
        }
    }

    fn send<T>(&self, make: impl FnOnce(Reply<T>) -> Job) -> StoreFuture<'_, T>
    where
        T: Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let sent = self.jobs.send(make(Reply { tx: Some(tx) })).is_ok();
        Box::pin(async move {
            if sent && let Ok(result) = rx.await {
                return result;
            }
            Err(self.gone())
        })
    }

    #[cfg(test)]
    fn crash_writer(&self) {
        let _ = self.jobs.send(Job::Crash);
    }

    /// Something that makes the writer panic later, for tests that hand the store away.
    #[cfg(test)]
    pub(crate) fn crasher(&self) -> impl Fn() + use<> {
        let jobs = self.jobs.clone();
        move || {
            let _ = jobs.send(Job::Crash);
        }
    }
}

impl Store for SqliteStore {
    fn health(&self) -> Result<(), StoreError> {
        if let Some(why) = self.shared.death.get() {
            return Err(StoreError::WriterDied(why.clone()));
        }
        let failing = self
            .shared
            .failing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let Some(why) = failing else {
            return Ok(());
        };
        // Writes may work again (space came back) with nobody writing to find out, e.g. when
        // a load balancer stopped sending traffic because of this very answer: probe.
        let mut last = self
            .shared
            .last_probe
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if last.is_none_or(|t| t.elapsed() >= PROBE_EVERY) {
            *last = Some(std::time::Instant::now());
            let _ = self.jobs.send(Job::Probe);
        }
        Err(StoreError::Database(format!(
            "writes are failing, nothing can be recorded: {why}"
        )))
    }

    fn load_all(&self) -> StoreFuture<'_, Vec<StoredTournament>> {
        self.send(|reply| Job::LoadAll { reply })
    }

    fn load_since(&self, id: TournamentId, from: u64) -> StoreFuture<'_, Option<StoredTournament>> {
        self.send(|reply| Job::LoadSince { id, from, reply })
    }

    fn heads(&self) -> StoreFuture<'_, Vec<LogHead>> {
        self.send(|reply| Job::Heads { reply })
    }

    fn load_page(
        &self,
        id: TournamentId,
        from: u64,
        max_events: usize,
        max_bytes: usize,
    ) -> StoreFuture<'_, Option<LogPage>> {
        self.send(|reply| Job::LoadPage {
            id,
            from,
            max_events,
            max_bytes,
            reply,
        })
    }

    fn create(&self, kind: LogKind, rows: Vec<RawEvent>) -> StoreFuture<'_, TournamentId> {
        let created = self.send(|reply| Job::Create {
            kind,
            rows,
            owner: None,
            reply,
        });
        Box::pin(async move {
            // Without an owner there is no cap to reach.
            created
                .await?
                .ok_or_else(|| StoreError::Database("creation refused".into()))
        })
    }

    fn create_owned(
        &self,
        kind: LogKind,
        rows: Vec<RawEvent>,
        owner: Owner,
    ) -> StoreFuture<'_, Option<TournamentId>> {
        self.send(|reply| Job::Create {
            kind,
            rows,
            owner: Some(owner),
            reply,
        })
    }

    fn append(&self, id: TournamentId, first_seq: u64, rows: Vec<RawEvent>) -> StoreFuture<'_, ()> {
        self.send(|reply| Job::Append {
            id,
            first_seq,
            rows,
            reply,
        })
    }

    fn delete(&self, id: TournamentId) -> StoreFuture<'_, ()> {
        self.send(|reply| Job::Delete { id, reply })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        self.send(|reply| Job::Close { reply })
    }

    fn rating_list_versions(&self) -> StoreFuture<'_, Vec<super::RatingListVersion>> {
        Box::pin(super::rating_lists::sqlite_versions(&self.path))
    }

    fn rating_list(&self, kind: &str) -> StoreFuture<'_, Option<super::StoredRatingList>> {
        let kind = kind.to_string();
        Box::pin(async move { super::rating_lists::sqlite_list(&self.path, &kind).await })
    }

    fn replace_rating_list(&self, list: super::StoredRatingList) -> StoreFuture<'_, ()> {
        Box::pin(super::rating_lists::sqlite_replace(&self.path, list))
    }
}

pub(crate) fn open_connection(
    path: &Path,
    options: &OpenOptions,
) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::Database(format!("opening {}: {e}", path.display())))?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
    // Switching a new file to WAL takes its exclusive lock, and SQLite answers SQLITE_BUSY at
    // once, without the busy handler, while another connection is switching the same file:
    // several processes opening one new file together (a daemon starting while `goswiss
    // ratings import` runs) retry here within the busy timeout.
    let mode: String =
        while_busy(|| conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))).map_err(db)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Database(format!(
            "cannot switch {} to WAL (journal_mode is {mode})",
            path.display()
        )));
    }
    // FULL: in WAL mode the WAL is fsynced at every commit, so a committed (and therefore
    // acknowledged) transaction survives a power cut, not just a crash of this process.
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
        .map_err(db)?;
    migrate(&conn)?;
    if let Some(sql) = &options.after_open_sql {
        conn.execute_batch(sql).map_err(db)?;
    }
    Ok(conn)
}

/// `f` again while it answers SQLITE_BUSY, for at most the connection's busy timeout (a bound
/// only a stuck lock reaches).
fn while_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match f() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let target = MIGRATIONS.len() as i64;
    let version: i64 =
        while_busy(|| conn.query_row("PRAGMA user_version", [], |r| r.get(0))).map_err(db)?;
    if version > target {
        return Err(StoreError::Database(format!(
            "database schema version {version} is newer than this goswiss ({target})"
        )));
    }
    for (k, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        let step = k as i64 + 1;
        let fail = |e: rusqlite::Error| {
            let _ = conn.execute_batch("ROLLBACK");
            StoreError::Database(format!("migration {step}: {e}"))
        };
        // Each step and its version bump commit together: a crash leaves the old version. The
        // version is read again under the write lock: another process opening the same new
        // file at the same moment (a daemon starting while `goswiss ratings import` or
        // `db copy` runs) may have taken this step already.
        conn.execute_batch("BEGIN IMMEDIATE").map_err(fail)?;
        let now: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail)?;
        if now < step {
            conn.execute_batch(&format!("{sql}\n;PRAGMA user_version = {step};"))
                .map_err(fail)?;
        }
        conn.execute_batch("COMMIT").map_err(fail)?;
    }
    Ok(())
}

/// The writer thread's loop, until the store is closed, every handle is dropped, or a panic.
fn run_writer(conn: Connection, rx: mpsc::Receiver<Job>, shared: &Shared) {
    let outcome = catch_unwind(AssertUnwindSafe(|| writer_loop(conn, &rx, shared)));
    if let Err(panic) = outcome {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        tracing::error!(panic = %message, "the database writer thread died; writes now fail");
        let _ = shared
            .death
            .set(format!("the database writer thread died: {message}"));
        WRITER_DEAD.with(|d| d.set(true));
        // Jobs still queued are answered (with the death) as the receiver drops them; later
        // sends fail and their callers read `death`.
    }
}

fn writer_loop(conn: Connection, rx: &mpsc::Receiver<Job>, shared: &Shared) {
    // Every statement the hot path runs, kept prepared.
    conn.set_prepared_statement_cache_capacity(16);
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        // Reads and close are served in order between write batches.
        let mut writes = Vec::with_capacity(batch.len());
        for job in batch {
            match job {
                Job::LoadAll { reply } => {
                    write_batch(&conn, std::mem::take(&mut writes), shared);
                    reply.send(load_all(&conn));
                }
                Job::LoadSince { id, from, reply } => {
                    write_batch(&conn, std::mem::take(&mut writes), shared);
                    reply.send(load_since(&conn, id, from));
                }
                Job::Heads { reply } => {
                    write_batch(&conn, std::mem::take(&mut writes), shared);
                    reply.send(heads(&conn));
                }
                Job::LoadPage {
                    id,
                    from,
                    max_events,
                    max_bytes,
                    reply,
                } => {
                    write_batch(&conn, std::mem::take(&mut writes), shared);
                    reply.send(load_page(&conn, id, from, max_events, max_bytes));
                }
                Job::Close { reply } => {
                    write_batch(&conn, std::mem::take(&mut writes), shared);
                    // Jobs queued behind the close are dropped with the receiver when this
                    // thread returns: their callers get StoreError::Closed.
                    reply.send(conn.close().map_err(|(_, e)| db(e)));
                    return;
                }
                Job::Probe => {
                    write_batch(&conn, std::mem::take(&mut writes), shared);
                    probe(&conn, shared);
                }
                #[cfg(test)]
                Job::Crash => panic!("writer crash requested by a test"),
                write => writes.push(write),
            }
        }
        write_batch(&conn, writes, shared);
    }
    // Every SqliteStore handle was dropped: the connection closes as the thread ends.
}

/// Why one job of a batch failed.
enum JobError {
    /// Only this job is affected: it wrote nothing, the batch goes on.
    Alone(StoreError),
    /// The transaction itself failed (I/O error, disk full, read-only database...), or a job
    /// failed halfway: nothing of the batch can be committed.
    Batch(StoreError),
}

fn batch(e: rusqlite::Error) -> JobError {
    JobError::Batch(db(e))
}

/// Inserts a job's events. Called only once the job's head moved, so a failure here would
/// leave the job half done: it fails the whole batch instead.
fn insert_rows(
    conn: &Connection,
    id: TournamentId,
    first_seq: u64,
    rows: &[RawEvent],
    at: i64,
) -> Result<(), JobError> {
    let mut stmt = conn.prepare_cached(INSERT_EVENT).map_err(batch)?;
    for (k, row) in rows.iter().enumerate() {
        let seq = first_seq + k as u64;
        stmt.execute(params![id, seq as i64, row.kind, row.body, at])
            .map_err(batch)?;
    }
    Ok(())
}

/// A creation; `None` when `owner` has its cap of logs already (counted in this transaction,
/// so the batch's earlier creations count too): then nothing is written.
fn create(
    conn: &Connection,
    kind: LogKind,
    rows: &[RawEvent],
    owner: Option<&Owner>,
    at: i64,
) -> Result<Option<TournamentId>, JobError> {
    let (key, cap) = match owner {
        Some(o) => (Some(o.key.as_str()), i64::from(o.cap)),
        None => (None, 0),
    };
    let id: Option<TournamentId> = conn
        .prepare_cached(
            "INSERT INTO tournaments (created_at, next_seq, kind, owner) \
             SELECT ?1, ?2, ?3, ?4 \
             WHERE ?5 = 0 OR (SELECT count(*) FROM tournaments WHERE owner = ?4) < ?5 \
             RETURNING id",
        )
        .and_then(|mut s| {
            s.query_row(
                params![at, rows.len() as i64, kind.as_str(), key, cap],
                |r| r.get(0),
            )
            .optional()
        })
        .map_err(batch)?;
    if let Some(id) = id {
        insert_rows(conn, id, 0, rows, at)?;
    }
    Ok(id)
}

fn append(
    conn: &Connection,
    id: TournamentId,
    first_seq: u64,
    rows: &[RawEvent],
    at: i64,
) -> Result<(), JobError> {
    let next = first_seq + rows.len() as u64;
    let moved = conn
        .prepare_cached("UPDATE tournaments SET next_seq = ?1 WHERE id = ?2 AND next_seq = ?3")
        .and_then(|mut s| s.execute(params![next as i64, id, first_seq as i64]))
        .map_err(batch)?;
    if moved == 0 {
        let head: Option<i64> = conn
            .prepare_cached("SELECT next_seq FROM tournaments WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map_err(batch)?;
        return Err(JobError::Alone(match head {
            None => StoreError::Database(format!("no tournament {id} in the store")),
            Some(n) if (first_seq as i64) < n => StoreError::Conflict { id, seq: first_seq },
            Some(n) => StoreError::Database(format!(
                "event {first_seq} of tournament {id} would leave a gap in its log (next is {n})"
            )),
        }));
    }
    insert_rows(conn, id, first_seq, rows, at)
}

fn delete(conn: &Connection, id: TournamentId) -> Result<(), JobError> {
    conn.prepare_cached("DELETE FROM events WHERE tournament_id = ?1")
        .and_then(|mut s| s.execute([id]))
        .map_err(batch)?;
    let gone = conn
        .prepare_cached("DELETE FROM tournaments WHERE id = ?1")
        .and_then(|mut s| s.execute([id]))
        .map_err(batch)?;
    if gone == 0 {
        // Nothing was deleted above either (no tournament, no events): the job failed alone.
        return Err(JobError::Alone(StoreError::NotFound(id)));
    }
    Ok(())
}

/// A job that went through and waits for the commit to be answered.
enum Done {
    Created(Reply<Option<TournamentId>>, Option<TournamentId>),
    Written(Reply<()>),
}

fn exec_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// Commits a batch of write jobs in one transaction and answers each job after the commit.
/// A job that fails alone (a conflict) is answered with its error and leaves the others
/// untouched; a failure of the transaction itself fails every job of the batch with it.
/// One small real commit, to learn whether writes work again.
fn probe(conn: &Connection, shared: &Shared) {
    let result = conn.execute_batch("BEGIN IMMEDIATE").and_then(|()| {
        conn.execute(
            "INSERT OR REPLACE INTO health_probe (id, at, pad) VALUES (1, ?1, zeroblob(?2))",
            params![now_millis(), PROBE_BYTES],
        )?;
        conn.execute_batch("COMMIT")
    });
    match result {
        Ok(()) => {
            tracing::info!("writes work again");
            shared.set_failing(None);
        }
        Err(e) => {
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            shared.set_failing(Some(e.to_string()));
        }
    }
}

fn write_batch(conn: &Connection, batch: Vec<Job>, shared: &Shared) {
    if batch.is_empty() {
        return;
    }
    let at = now_millis();
    let mut done: Vec<Done> = Vec::with_capacity(batch.len());
    let mut failure: Option<StoreError> = exec_cached(conn, "BEGIN IMMEDIATE").err().map(db);
    let mut jobs = batch.into_iter();
    if failure.is_none() {
        for job in jobs.by_ref() {
            let outcome = match job {
                Job::Create {
                    kind,
                    rows,
                    owner,
                    reply,
                } => match create(conn, kind, &rows, owner.as_ref(), at) {
                    Ok(id) => Ok(Done::Created(reply, id)),
                    Err(e) => Err((e, Failed::Create(reply))),
                },
                Job::Append {
                    id,
                    first_seq,
                    rows,
                    reply,
                } => match append(conn, id, first_seq, &rows, at) {
                    Ok(()) => Ok(Done::Written(reply)),
                    Err(e) => Err((e, Failed::Unit(reply))),
                },
                Job::Delete { id, reply } => match delete(conn, id) {
                    Ok(()) => Ok(Done::Written(reply)),
                    Err(e) => Err((e, Failed::Unit(reply))),
                },
                // Only writes reach here (see writer_loop).
                other => {
                    drop(other);
                    continue;
                }
            };
            match outcome {
                Ok(d) => done.push(d),
                Err((JobError::Alone(e), reply)) => reply.send(e),
                Err((JobError::Batch(e), reply)) => {
                    reply.send(StoreError::Database(e.to_string()));
                    failure = Some(e);
                    break;
                }
            }
        }
    }
    if failure.is_none() {
        failure = exec_cached(conn, "COMMIT").err().map(db);
    }
    match failure {
        None => {
            shared.set_failing(None);
            for d in done {
                match d {
                    Done::Created(reply, id) => reply.send(Ok(id)),
                    Done::Written(reply) => reply.send(Ok(())),
                }
            }
        }
        Some(e) => {
            // SQLite may already have rolled back (disk full, I/O error): then this fails
            // harmlessly with "no transaction is active".
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            tracing::error!(error = %e, "a group commit failed; none of its calls were recorded");
            let message = e.to_string();
            shared.set_failing(Some(message.clone()));
            let fail = || StoreError::Database(message.clone());
            for d in done {
                match d {
                    Done::Created(reply, _) => reply.send(Err(fail())),
                    Done::Written(reply) => reply.send(Err(fail())),
                }
            }
            for job in jobs {
                match job {
                    Job::Create { reply, .. } => reply.send(Err(fail())),
                    Job::Append { reply, .. } | Job::Delete { reply, .. } => {
                        reply.send(Err(fail()))
                    }
                    other => drop(other),
                }
            }
        }
    }
}

/// The reply of a job that failed, whatever its type.
enum Failed {
    Create(Reply<Option<TournamentId>>),
    Unit(Reply<()>),
}

impl Failed {
    fn send(self, e: StoreError) {
        match self {
            Failed::Create(r) => r.send(Err(e)),
            Failed::Unit(r) => r.send(Err(e)),
        }
    }
}

fn load_all(conn: &Connection) -> Result<Vec<StoredTournament>, StoreError> {
    let mut logs: HashMap<TournamentId, Vec<String>> = HashMap::new();
    // The append order: each tournament's events come in seq order, no sort or index needed.
    let mut stmt = conn
        .prepare("SELECT tournament_id, seq, body FROM events ORDER BY id")
        .map_err(db)?;
    let mut rows = stmt.query([]).map_err(db)?;
    while let Some(row) = rows.next().map_err(db)? {
        let id: TournamentId = row.get(0).map_err(db)?;
        let seq: i64 = row.get(1).map_err(db)?;
        let body: String = row.get(2).map_err(db)?;
        let events = logs.entry(id).or_default();
        if seq != events.len() as i64 {
            return Err(StoreError::Corrupt {
                id,
                seq: seq as u64,
                message: format!("expected seq {}", events.len()),
            });
        }
        events.push(body);
    }
    // Every head must agree with its log: a head past the log's end means lost events.
    let mut heads = conn
        .prepare("SELECT id, next_seq, kind FROM tournaments ORDER BY id")
        .map_err(db)?;
    let mut rows = heads.query([]).map_err(db)?;
    let mut out = Vec::with_capacity(logs.len());
    while let Some(row) = rows.next().map_err(db)? {
        let id: TournamentId = row.get(0).map_err(db)?;
        let next: i64 = row.get(1).map_err(db)?;
        let kind: String = row.get(2).map_err(db)?;
        let events = logs.remove(&id).unwrap_or_default();
        let stored = events.len() as i64;
        if next != stored {
            return Err(StoreError::Corrupt {
                id,
                seq: stored as u64,
                message: format!("the head says {next} events, the log has {stored}"),
            });
        }
        let kind = LogKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
            id,
            seq: 0,
            message: format!("unknown log kind {kind:?}"),
        })?;
        out.push(StoredTournament { id, kind, events });
    }
    if let Some(id) = logs.keys().min() {
        return Err(StoreError::Corrupt {
            id: *id,
            seq: 0,
            message: "events of a tournament the store does not list".into(),
        });
    }
    Ok(out)
}

fn heads(conn: &Connection) -> Result<Vec<LogHead>, StoreError> {
    let mut stmt = conn
        .prepare("SELECT id, kind, next_seq FROM tournaments ORDER BY id")
        .map_err(db)?;
    let mut rows = stmt.query([]).map_err(db)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(db)? {
        let id: TournamentId = row.get(0).map_err(db)?;
        let kind: String = row.get(1).map_err(db)?;
        let head: i64 = row.get(2).map_err(db)?;
        let kind = LogKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
            id,
            seq: 0,
            message: format!("unknown log kind {kind:?}"),
        })?;
        out.push(LogHead {
            id,
            kind,
            head: head.max(0) as u64,
        });
    }
    Ok(out)
}

/// A page of one log (see [`Store::load_page`]), through the `(tournament_id, seq)` index:
/// rows are read one at a time and the reading stops at the page's end, so a page costs its
/// own events (and the one after it) whatever the log's length.
fn load_page(
    conn: &Connection,
    id: TournamentId,
    from: u64,
    max_events: usize,
    max_bytes: usize,
) -> Result<Option<LogPage>, StoreError> {
    let head: Option<(i64, String)> = conn
        .prepare_cached("SELECT next_seq, kind FROM tournaments WHERE id = ?1")
        .and_then(|mut s| s.query_row([id], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(db)?;
    let Some((next, kind)) = head else {
        return Ok(None);
    };
    let kind = LogKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
        id,
        seq: 0,
        message: format!("unknown log kind {kind:?}"),
    })?;
    let mut stmt = conn
        .prepare_cached(
            "SELECT seq, body FROM events WHERE tournament_id = ?1 AND seq >= ?2 ORDER BY seq",
        )
        .map_err(db)?;
    let mut rows = stmt.query(params![id, from as i64]).map_err(db)?;
    let mut events: Vec<String> = Vec::new();
    let mut bytes = 0usize;
    while events.len() < max_events.max(1) {
        let Some(row) = rows.next().map_err(db)? else {
            break;
        };
        let seq: i64 = row.get(0).map_err(db)?;
        let expected = from + events.len() as u64;
        if seq != expected as i64 {
            return Err(StoreError::Corrupt {
                id,
                seq: seq as u64,
                message: format!("expected seq {expected}"),
            });
        }
        // The body's size is known before it is copied out: a page stops before the event
        // that would pass its bytes, without taking that event's text.
        let body = row.get_ref(1).map_err(db)?;
        let size = body
            .as_bytes()
            .map_err(|e| StoreError::Database(e.to_string()))?
            .len();
        bytes = bytes.saturating_add(size);
        if !events.is_empty() && bytes > max_bytes {
            break;
        }
        events.push(
            body.as_str()
                .map_err(|e| StoreError::Database(e.to_string()))?
                .to_string(),
        );
    }
    Ok(Some(LogPage {
        kind,
        head: next.max(0) as u64,
        events,
    }))
}

fn load_since(
    conn: &Connection,
    id: TournamentId,
    from: u64,
) -> Result<Option<StoredTournament>, StoreError> {
    let head: Option<(i64, String)> = conn
        .prepare_cached("SELECT next_seq, kind FROM tournaments WHERE id = ?1")
        .and_then(|mut s| s.query_row([id], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(db)?;
    let Some((next, kind)) = head else {
        return Ok(None);
    };
    let mut stmt = conn
        .prepare_cached(
            "SELECT seq, body FROM events WHERE tournament_id = ?1 AND seq >= ?2 ORDER BY id",
        )
        .map_err(db)?;
    let mut rows = stmt.query(params![id, from as i64]).map_err(db)?;
    let mut events = Vec::new();
    while let Some(row) = rows.next().map_err(db)? {
        let seq: i64 = row.get(0).map_err(db)?;
        let expected = from + events.len() as u64;
        if seq != expected as i64 {
            return Err(StoreError::Corrupt {
                id,
                seq: seq as u64,
                message: format!("expected seq {expected}"),
            });
        }
        events.push(row.get(1).map_err(db)?);
    }
    let stored = from as i64 + events.len() as i64;
    if next != stored {
        return Err(StoreError::Corrupt {
            id,
            seq: stored as u64,
            message: format!("the head says {next} events, the log has {stored}"),
        });
    }
    let kind = LogKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
        id,
        seq: 0,
        message: format!("unknown log kind {kind:?}"),
    })?;
    Ok(Some(StoredTournament { id, kind, events }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Processes opening the same new file at once (a daemon starting while the CLI imports a
    /// rating list) each take every migration step under the write lock, so none of them
    /// runs a step another has taken ("duplicate column name").
    #[test]
    fn connections_opening_a_new_file_at_once_all_migrate_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        let start = std::sync::Arc::new(std::sync::Barrier::new(6));
        let openers: Vec<_> = (0..6)
            .map(|_| {
                let (path, start) = (path.clone(), std::sync::Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    open_connection(&path, &OpenOptions::default()).map(|_| ())
                })
            })
            .collect();
        for opener in openers {
            opener
                .join()
                .unwrap()
                .expect("every opener migrates or finds it done");
        }
        let conn = open_connection(&path, &OpenOptions::default()).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }

    // The store does not read bodies: any text stands for an event.
    fn created() -> RawEvent {
        RawEvent {
            kind: "created",
            body: "{\"created\":1}".into(),
        }
    }

    fn out(p1: i64) -> RawEvent {
        RawEvent {
            kind: "checked_out",
            body: format!("{{\"out\":{p1}}}"),
        }
    }

    fn bodies(events: &[RawEvent]) -> Vec<String> {
        events.iter().map(|e| e.body.clone()).collect()
    }

    const MM: LogKind = LogKind::Matchmaker;

    #[tokio::test]
    async fn a_conflict_in_a_group_commit_fails_only_its_own_job() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let id = store.create(MM, vec![created()]).await.unwrap();
        // Queued together, so the writer takes them as one batch: b's duplicate seq fails b
        // alone, and so does d, whose first seq e took in the same batch: none of d's two
        // events may be stored.
        let a = store.append(id, 1, vec![out(1)]);
        let b = store.append(id, 1, vec![out(7)]);
        let c = store.append(id, 2, vec![out(3), out(4)]);
        let e = store.append(id, 4, vec![out(8)]);
        let d = store.append(id, 4, vec![out(5), out(6)]);
        let (a, b, c, d, e) = tokio::join!(a, b, c, d, e);
        assert!(a.is_ok(), "{a:?}");
        assert!(
            matches!(b, Err(StoreError::Conflict { seq: 1, .. })),
            "{b:?}"
        );
        assert!(c.is_ok(), "{c:?}");
        assert!(
            matches!(d, Err(StoreError::Conflict { seq: 4, .. })),
            "{d:?}"
        );
        assert!(e.is_ok(), "{e:?}");
        // A gap is refused too, and leaves nothing behind.
        match store.append(id, 7, vec![out(9)]).await {
            Err(StoreError::Database(m)) => assert!(m.contains("gap"), "{m}"),
            other => panic!("{other:?}"),
        }
        // An unknown tournament is a clear error, not a conflict.
        match store.append(9_999, 0, vec![out(9)]).await {
            Err(StoreError::Database(m)) => assert!(m.contains("no tournament 9999"), "{m}"),
            other => panic!("{other:?}"),
        }
        store.append(id, 5, vec![out(9)]).await.unwrap();
        // Many appends at once: all acknowledged, all stored in order.
        let other = store.create(MM, vec![created()]).await.unwrap();
        let many: Vec<_> = (1..=50)
            .map(|s| store.append(other, s, vec![out(s as i64)]))
            .collect();
        for r in futures::future::join_all(many).await {
            r.unwrap();
        }
        let all = store.load_all().await.unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(
            all[0].events,
            bodies(&[created(), out(1), out(3), out(4), out(8), out(9)])
        );
        assert_eq!(all[1].events.len(), 51);
        assert_eq!(all[1].events[50], out(50).body);
        store.close().await.unwrap();
        assert!(matches!(
            store.append(id, 9, vec![out(1)]).await,
            Err(StoreError::Closed)
        ));
    }

    #[tokio::test]
    async fn a_failed_conflict_in_a_batch_of_creates_keeps_the_creates() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let first = store.create(MM, vec![created()]).await.unwrap();
        let a = store.create(MM, vec![created(), out(1)]);
        let b = store.append(first, 0, vec![out(2)]);
        let c = store.create(MM, vec![created()]);
        let (a, b, c) = tokio::join!(a, b, c);
        let (a, c) = (a.unwrap(), c.unwrap());
        assert!(
            matches!(b, Err(StoreError::Conflict { seq: 0, .. })),
            "{b:?}"
        );
        assert!(first < a && a < c, "{first} {a} {c}");
        let all = store.load_all().await.unwrap();
        let ids: Vec<_> = all.iter().map(|t| t.id).collect();
        assert_eq!(ids, vec![first, a, c]);
        assert_eq!(all[1].events, bodies(&[created(), out(1)]));
    }

    #[tokio::test]
    async fn everything_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let id = store.create(MM, vec![created()]).await.unwrap();
        store.append(id, 1, vec![out(1), out(3)]).await.unwrap();
        // Dropped without close: the writer still finishes and closes the connection.
        drop(store);
        let store = SqliteStore::open(&path).await.unwrap();
        let all = store.load_all().await.unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].events, bodies(&[created(), out(1), out(3)]));
        store.close().await.unwrap();
    }

    #[tokio::test]
    async fn a_version_1_database_is_migrated_and_plays_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        // A database as the first schema left it: two tournaments, their events interleaved.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch("PRAGMA user_version = 1").unwrap();
        conn.execute_batch("INSERT INTO tournaments (created_at) VALUES (0), (0)")
            .unwrap();
        for (t, seq, e) in [
            (1, 0, created()),
            (2, 0, created()),
            (2, 1, out(5)),
            (1, 1, out(1)),
            (1, 2, out(3)),
        ] {
            conn.execute(
                "INSERT INTO events (tournament_id, seq, kind, body, at) VALUES (?1, ?2, ?3, ?4, 0)",
                params![t, seq, e.kind, e.body],
            )
            .unwrap();
        }
        drop(conn);
        let store = SqliteStore::open(&path).await.unwrap();
        let all = store.load_all().await.unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].id, all[1].id), (1, 2));
        assert_eq!(all[0].events, bodies(&[created(), out(1), out(3)]));
        assert_eq!(all[1].events, bodies(&[created(), out(5)]));
        // The heads were set from the old log: the next seq works, a taken one conflicts.
        store.append(1, 3, vec![out(4)]).await.unwrap();
        assert!(matches!(
            store.append(2, 1, vec![out(6)]).await,
            Err(StoreError::Conflict { id: 2, seq: 1 })
        ));
        let id = store.create(MM, vec![created()]).await.unwrap();
        assert_eq!(id, 3);
        store.close().await.unwrap();
        let conn = Connection::open(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }

    #[tokio::test]
    async fn a_head_that_disagrees_with_its_log_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let id = store.create(MM, vec![created()]).await.unwrap();
        store.append(id, 1, vec![out(1)]).await.unwrap();
        store.close().await.unwrap();
        let conn = Connection::open(&path).unwrap();
        conn.execute("UPDATE tournaments SET next_seq = 5", [])
            .unwrap();
        drop(conn);
        let store = SqliteStore::open(&path).await.unwrap();
        match store.load_all().await {
            Err(StoreError::Corrupt { seq: 2, .. }) => {}
            other => panic!("{:?}", other.map(|v| v.len())),
        }
    }

    #[tokio::test]
    async fn kinds_are_kept_and_a_deleted_tournament_is_gone_for_good() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let a = store.create(MM, vec![created()]).await.unwrap();
        let b = store
            .create(LogKind::Tournament, vec![created(), out(1)])
            .await
            .unwrap();
        let c = store.create(MM, vec![created()]).await.unwrap();
        store.delete(a).await.unwrap();
        assert!(matches!(store.delete(a).await, Err(StoreError::NotFound(id)) if id == a));
        assert!(store.append(a, 1, vec![out(1)]).await.is_err());
        store.close().await.unwrap();
        let store = SqliteStore::open(&path).await.unwrap();
        let all = store.load_all().await.unwrap();
        let got: Vec<_> = all.iter().map(|t| (t.id, t.kind, t.events.len())).collect();
        assert_eq!(got, vec![(b, LogKind::Tournament, 2), (c, MM, 1)]);
        // A deleted id is never handed out again.
        let d = store.create(MM, vec![created()]).await.unwrap();
        assert!(d > c, "{d} {c}");
        store.close().await.unwrap();
    }

    #[tokio::test]
    async fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        SqliteStore::open(&path)
            .await
            .unwrap()
            .close()
            .await
            .unwrap();
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA user_version = 99").unwrap();
        drop(conn);
        let e = SqliteStore::open(&path).await.err().expect("refused");
        assert!(e.to_string().contains("newer"), "{e}");
    }

    #[tokio::test]
    async fn a_dead_writer_fails_calls_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let id = store.create(MM, vec![created()]).await.unwrap();
        // Queued behind the crash: answered by the dying thread, not left hanging.
        store.crash_writer();
        let queued = store.append(id, 1, vec![out(1)]);
        let r = tokio::time::timeout(Duration::from_secs(10), queued)
            .await
            .expect("no hang");
        assert!(matches!(r, Err(StoreError::WriterDied(_))), "{r:?}");
        // Calls made after the death fail too, at once.
        for _ in 0..3 {
            let later = store.append(id, 1, vec![out(1)]);
            let later = tokio::time::timeout(Duration::from_secs(10), later)
                .await
                .expect("no hang");
            assert!(matches!(later, Err(StoreError::WriterDied(_))), "{later:?}");
        }
        // Once the thread has recorded it, the reason is the panic's own message.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            match store.append(id, 1, vec![out(1)]).await {
                Err(StoreError::WriterDied(m)) if m.contains("crash requested") => break,
                Err(StoreError::WriterDied(_)) if std::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn a_full_disk_fails_the_batch_with_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let small = OpenOptions {
            // The file cannot grow past its current pages: the next new page is "disk full".
            after_open_sql: Some("PRAGMA max_page_count = 4".into()),
        };
        let store = SqliteStore::open_with(&path, small).await.unwrap();
        let id = store.create(MM, vec![created()]).await;
        let id = match id {
            Ok(id) => id,
            Err(e) => {
                assert!(e.to_string().contains("full"), "{e}");
                return;
            }
        };
        let big = RawEvent {
            kind: "round_paired",
            body: "x".repeat(300),
        };
        let mut last = Ok(());
        for seq in (1..4_000u64).step_by(2) {
            last = store.append(id, seq, vec![big.clone(), big.clone()]).await;
            if last.is_err() {
                break;
            }
        }
        match last {
            Err(StoreError::Database(m)) => assert!(m.contains("full"), "{m}"),
            other => panic!("expected a full database, got {other:?}"),
        }
        // The store still answers (and still refuses) rather than hanging.
        let again = store.append(id, 1_000_000, vec![out(1)]).await;
        assert!(matches!(again, Err(StoreError::Database(_))), "{again:?}");
        store.close().await.unwrap();
    }

    #[tokio::test]
    async fn a_read_only_database_fails_writes_with_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let id = store.create(MM, vec![created()]).await.unwrap();
        store.close().await.unwrap();
        let ro = OpenOptions {
            after_open_sql: Some("PRAGMA query_only = ON".into()),
        };
        let store = SqliteStore::open_with(&path, ro).await.unwrap();
        // Reads still work; writes fail with SQLite's own reason.
        assert_eq!(store.load_all().await.unwrap().len(), 1);
        match store.append(id, 1, vec![out(1)]).await {
            Err(StoreError::Database(m)) => assert!(m.contains("readonly"), "{m}"),
            other => panic!("{other:?}"),
        }
        store.close().await.unwrap();
    }
}
