//! Durable store: each tournament is an append-only event log (docs/architecture.md).
//!
//! The RPC layer only sees the [`Store`] trait, so a PostgreSQL implementation can sit beside
//! the SQLite one without touching handlers. An implementation must not return from `create`,
//! `append` or `delete` before the change is durable: the caller acknowledges a client's call
//! only then.
//!
//! The store knows nothing of the engines: a log is a [`LogKind`] (which engine folds it) and
//! a list of [`RawEvent`]s, each an event's kind tag and its JSON body, serialized by the
//! caller on its own worker (so the JSON work never runs on a store's single writer).

pub mod copy;
pub mod postgres;
pub mod rating_lists;
pub mod sqlite;

use std::future::Future;
use std::pin::Pin;

pub type TournamentId = i64;
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(String),
    #[error("event {seq} of tournament {id} already exists (another writer got there first)")]
    Conflict { id: TournamentId, seq: u64 },
    #[error("corrupt event {seq} of tournament {id}: {message}")]
    Corrupt {
        id: TournamentId,
        seq: u64,
        message: String,
    },
    #[error("no tournament {0} in the store")]
    NotFound(TournamentId),
    #[error("the store is closed")]
    Closed,
    /// The store's writer stopped unexpectedly: no write can be recorded until a restart.
    #[error("{0}")]
    WriterDied(String),
    /// The database cannot be reached (PostgreSQL down or restarting): the store reconnects
    /// by itself and the call may be tried again. Nothing was recorded, unless the connection
    /// went away around the COMMIT, when the write may have landed: the registry then reads
    /// the tournament's tail before it answers from its cache again.
    #[error("{0}")]
    Unavailable(String),
}

/// A tournament's head moved in the store (written by any daemon on a shared database), as
/// told by [`Store::changes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadChange {
    pub id: TournamentId,
    /// The log's kind when the change created it (`None` for later changes).
    pub kind: Option<LogKind>,
    /// The new number of events; `None` when it was deleted, or for a resync.
    pub head: Option<u64>,
}

impl HeadChange {
    /// Changes may have been missed (the feed reconnected): followers check every cached
    /// tournament against the store.
    pub fn resync() -> HeadChange {
        HeadChange {
            id: 0,
            kind: None,
            head: None,
        }
    }

    pub fn is_resync(&self) -> bool {
        self.id == 0
    }
}

/// `db` fit for a log line: a URL's password is hidden.
pub fn redacted(db: &str) -> String {
    if !postgres::is_url(db) {
        return db.to_string();
    }
    // postgres://user:password@host/...: hide what lies between the first ':' after the
    // scheme and the '@'.
    let (scheme, rest) = db.split_once("://").unwrap_or(("", db));
    match rest.split_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}")
        }
        _ => db.to_string(),
    }
}

/// Opens the store `db` names: a `postgres://` (or `postgresql://`) URL is a PostgreSQL
/// database, `sqlite:PATH` or anything else a SQLite file.
/// `pg_commit_linger` is the PostgreSQL writer's wait for more jobs
/// ([`postgres::PostgresStore::open_with`]); SQLite has no use for it.
pub async fn open(
    db: &str,
    pg_commit_linger: std::time::Duration,
) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    if postgres::is_url(db) {
        Ok(std::sync::Arc::new(
            postgres::PostgresStore::open_with(db, pg_commit_linger).await?,
        ))
    } else {
        let path = db.strip_prefix("sqlite:").unwrap_or(db);
        Ok(std::sync::Arc::new(sqlite::SqliteStore::open(path).await?))
    }
}

/// Which engine a tournament's log belongs to. Ids are one space across kinds: a client's
/// tournament id names one log whatever its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogKind {
    /// `matchmaker.*`: the rswiss-compatible engine (`crate::matchmaker`).
    Matchmaker,
    /// `tournament.*`: the full tournament manager (`crate::tournament`).
    Tournament,
}

impl LogKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LogKind::Matchmaker => "matchmaker",
            LogKind::Tournament => "tournament",
        }
    }

    pub fn parse(s: &str) -> Option<LogKind> {
        match s {
            "matchmaker" => Some(LogKind::Matchmaker),
            "tournament" => Some(LogKind::Tournament),
            _ => None,
        }
    }
}

/// One event as stored: the engine's name for its variant (for people reading the database)
/// and its serialized body (what the engine reads back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEvent {
    pub kind: &'static str,
    pub body: String,
}

/// A tournament's full log, as loaded.
#[derive(Debug)]
pub struct StoredTournament {
    pub id: TournamentId,
    pub kind: LogKind,
    /// Event bodies in sequence order, from seq 0.
    pub events: Vec<String>,
}

/// A tournament's log as [`Store::heads`] lists it: its id, kind and number of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogHead {
    pub id: TournamentId,
    pub kind: LogKind,
    pub head: u64,
}

/// A stretch of one log, as [`Store::load_page`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPage {
    pub kind: LogKind,
    /// The log's number of events when it was read.
    pub head: u64,
    /// Event bodies in sequence order, from the seq asked for.
    pub events: Vec<String>,
}

/// The first bodies of `bodies` that a page of at most `max_events` events and `max_bytes`
/// bytes of bodies holds, and at least the first one (a page always moves a reader on).
pub fn cut_page(mut bodies: Vec<String>, max_events: usize, max_bytes: usize) -> Vec<String> {
    let mut bytes = 0usize;
    let mut keep = 0;
    for b in bodies.iter().take(max_events.max(1)) {
        bytes = bytes.saturating_add(b.len());
        if keep > 0 && bytes > max_bytes {
            break;
        }
        keep += 1;
    }
    bodies.truncate(keep);
    bodies
}

/// Whom a new log counts against and how many it may have: its creator's key (a network
/// prefix, or `admin`: the RPC layer's creation quotas, `rpc::auth`), recorded with the log,
/// and the most logs the key may hold at once (0: no limit). See [`Store::create_owned`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub key: String,
    pub cap: u32,
}

pub use rating_lists::{RatingListVersion, StoredRatingList};

pub trait Store: Send + Sync {
    /// Every tournament with its events in order.
    fn load_all(&self) -> StoreFuture<'_, Vec<StoredTournament>>;
    /// One tournament's events from seq `from` on (its whole log from 0), with its kind; `None`
    /// if it is not in the store. How a daemon catches up with another daemon's writes.
    fn load_since(&self, id: TournamentId, from: u64) -> StoreFuture<'_, Option<StoredTournament>>;
    /// The tails of several logs at once: for each `(id, from)` asked, that tournament's events
    /// from seq `from` on, or `None` if it is not in the store, in the order asked. How a
    /// daemon catches up with many tournaments other daemons wrote; a store may answer it with
    /// one query instead of one per tournament.
    fn load_tails(
        &self,
        wants: Vec<(TournamentId, u64)>,
    ) -> StoreFuture<'_, Vec<Option<StoredTournament>>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(wants.len());
            for (id, from) in wants {
                out.push(self.load_since(id, from).await?);
            }
            Ok(out)
        })
    }
    /// Every log's id, kind and head, by id: how a daemon starting up finds what to read,
    /// one log at a time ([`Store::load_page`]) rather than every log at once. The default
    /// reads every log (for test stores); the real stores read only the heads.
    fn heads(&self) -> StoreFuture<'_, Vec<LogHead>> {
        Box::pin(async move {
            Ok(self
                .load_all()
                .await?
                .into_iter()
                .map(|t| LogHead {
                    id: t.id,
                    kind: t.kind,
                    head: t.events.len() as u64,
                })
                .collect())
        })
    }
    /// Part of one log: the events from seq `from` on, at most `max_events` of them and no
    /// more than `max_bytes` bytes of bodies, but at least one when the log has an event at
    /// `from` (see [`cut_page`]); `None` if the log is not in the store. How the daemon reads
    /// what it does not keep in memory (a page of `tournament.events`, a game's record) and
    /// replays a log without holding it whole. The default reads the whole tail (for test
    /// stores); the real stores read only the page.
    fn load_page(
        &self,
        id: TournamentId,
        from: u64,
        max_events: usize,
        max_bytes: usize,
    ) -> StoreFuture<'_, Option<LogPage>> {
        Box::pin(async move {
            Ok(self.load_since(id, from).await?.map(|t| {
                let head = from + t.events.len() as u64;
                LogPage {
                    kind: t.kind,
                    head,
                    events: cut_page(t.events, max_events, max_bytes),
                }
            }))
        })
    }
    /// Allocates a new tournament id and stores its first events (seq 0..), atomically.
    fn create(&self, kind: LogKind, events: Vec<RawEvent>) -> StoreFuture<'_, TournamentId>;
    /// [`Store::create`], recorded as `owner.key`'s, unless the logs recorded as that key's
    /// number `owner.cap` already (a cap of 0: no limit): then nothing is stored and the
    /// answer is `None`. The count and the creation are one step, so creations at the same
    /// time (other daemons' too, on a shared database) cannot overshoot the cap, and a deleted
    /// log no longer counts.
    fn create_owned(
        &self,
        kind: LogKind,
        events: Vec<RawEvent>,
        owner: Owner,
    ) -> StoreFuture<'_, Option<TournamentId>>;
    /// Appends events at `first_seq`, `first_seq + 1`, ... in one transaction. Fails with
    /// [`StoreError::Conflict`] if any of those sequence numbers is taken.
    fn append(
        &self,
        id: TournamentId,
        first_seq: u64,
        events: Vec<RawEvent>,
    ) -> StoreFuture<'_, ()>;
    /// Removes a tournament and its whole log; its id is never given out again.
    fn delete(&self, id: TournamentId) -> StoreFuture<'_, ()>;
    /// Flushes and closes; later calls fail with [`StoreError::Closed`].
    fn close(&self) -> StoreFuture<'_, ()>;
    /// Whether writes can still be recorded (for `/health`); cheap, no I/O.
    fn health(&self) -> Result<(), StoreError> {
        Ok(())
    }
    /// Heads moved by the other writers (other daemons; a store may leave its own writes out,
    /// which its callers applied already), for stores that several daemons share; `None`
    /// when this daemon is the only writer (SQLite).
    fn changes(&self) -> Option<tokio::sync::broadcast::Receiver<HeadChange>> {
        None
    }
    /// Which session of the change feed the store's reads and creations sign this daemon up
    /// for. A shared store may tell a daemon only of changes to the tournaments it read or
    /// created (PostgreSQL: the tournament's watchers); its feed's sessions end when the
    /// connection behind them does, and a tournament read or created in an earlier session
    /// (or in none: 0 before the first) is no longer followed, so the caller reads it again
    /// (which signs up again) before it serves it from its cache. Constant for a store
    /// without a feed.
    fn feed_epoch(&self) -> u64 {
        0
    }
    /// Which rating lists the database holds and which import of each (no data): how a
    /// daemon learns that another one, or `goswiss ratings import`, imported a newer list.
    /// Stores without rating lists (test doubles) say so.
    fn rating_list_versions(&self) -> StoreFuture<'_, Vec<RatingListVersion>> {
        Box::pin(async { Err(rating_lists::unsupported()) })
    }
    /// One rating list with its file, `None` when none of that kind was imported.
    fn rating_list(&self, kind: &str) -> StoreFuture<'_, Option<StoredRatingList>> {
        let _ = kind;
        Box::pin(async { Err(rating_lists::unsupported()) })
    }
    /// Replaces the rating list of `list.kind` (or adds it) in one statement: readers see the
    /// old list or the new one, never a mix; durable when it returns, like every write.
    fn replace_rating_list(&self, list: StoredRatingList) -> StoreFuture<'_, ()> {
        let _ = list;
        Box::pin(async { Err(rating_lists::unsupported()) })
    }
}
