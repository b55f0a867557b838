//! PostgreSQL store through tokio-postgres, for several daemons on one database.
//!
//! Writes go through one writer task that owns one connection. Callers queue jobs on a channel;
//! the writer takes everything queued (up to [`MAX_BATCH`]) and commits it in one transaction
//! (group commit: one WAL flush for many acknowledged calls, `synchronous_commit` untouched).
//! A batch of appends only is one statement, sent alone in PostgreSQL's implicit transaction
//! (committed at the message set's Sync); any other batch sends BEGIN, its statements and
//! COMMIT at once (tokio-postgres pipelines the futures it is given together). Either way a
//! batch costs one round trip (with the commit's WAL flush), however many jobs it holds, and
//! each job is answered only after the commit returned. When its batches are small while
//! several callers write, the writer lingers briefly for more jobs (`pg_commit_linger_us`,
//! [`run_writer`]): every transaction's fixed cost is then shared by more of them.
//!
//! The guard between daemons is each tournament's head, `tournaments.next_seq`: an append
//! moves the head from `first_seq` with a compare-and-set and inserts the events only if it
//! moved. A job whose head had moved (another daemon wrote first) changes nothing and fails
//! alone with [`StoreError::Conflict`]; the rest of the batch commits. All the appends of a
//! batch go as one statement ([`APPEND_MANY`]: one parse, plan and executor start per batch
//! rather than per job), unless the batch deletes or names a tournament twice; then each job
//! has its own. Writes lock tournament rows in id order, so two daemons' batches cannot
//! deadlock on each other.
//!
//! Every batch also tells the other daemons what it changed, `id:kind:head` per tournament
//! (`head` -1: deleted): each write statement calls `pg_notify` itself on the rows it changed
//! (one payload for all the appends of a batch), so the NOTIFYs cost no statement or round
//! trip of their own. PostgreSQL delivers them only on commit; [`Store::changes`] hands them to
//! the registries, which refresh their caches from them. Each payload starts with the store's
//! origin mark, so a daemon's listener drops its own writes' payloads unread.
//!
//! Watchers. Creations and deletions go to every daemon (`goswiss_changes`: listings stay
//! complete). An append is told only to the daemons that follow its tournament: each
//! listener's connection has a channel of its own, and a tournament's row lists the channels
//! of the daemons that read or created it (`tournaments.watchers`; a read signs its daemon up
//! in the same transaction, before it reads: see [`WATCH`]). A write notifies those channels
//! but its own daemon's, so a tournament that one daemon alone uses (a load balancer that
//! keeps a tournament on one daemon, or simply one daemon) costs no notification at all:
//! PostgreSQL serializes every notifying commit of the database and signals every listening
//! backend for each, so notifying everything made each daemon added cost every other one
//! CPU. A listener that reconnects starts a new session with a new channel
//! ([`Store::feed_epoch`]): the registries read a tournament again (which signs it up again)
//! before they use it after that. Channels of listeners that are gone are removed from the
//! rows by each listener when it connects and every ten minutes ([`FORGET`]).
//!
//! Reads (a whole load, the tails of the logs other daemons moved, in one statement however
//! many, and the sign-ups before them) use a second connection, so they never wait behind or
//! run inside a write batch. A third one LISTENs. Why not a pool crate: the store
//! needs exactly these three long-lived connections with their own reconnect rules; a generic
//! pool would add a dependency and hide the one connection the group commit relies on.
//!
//! When the database goes away every call fails at once with [`StoreError::Unavailable`] and
//! [`Store::health`] reports it; each connection is re-established by itself (the writer retries
//! every [`RECONNECT_EVERY`] even with no call), and the store recovers without a restart. A
//! commit whose answer was lost with the connection is reported as unavailable: the caller's
//! cache does not move, and its next write meets the compare-and-set if the commit had landed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::join_all;
use tokio::sync::{Mutex, broadcast, mpsc, oneshot};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Client, NoTls, Statement};

use super::{
    HeadChange, LogHead, LogKind, LogPage, Owner, RawEvent, Store, StoreError, StoreFuture,
    StoredTournament, TournamentId,
};

/// Jobs the writer takes per transaction at most; bounds the latency one batch adds.
const MAX_BATCH: usize = 512;
/// How long the writer waits for more jobs when its batch is small and other callers are
/// writing (`pg_commit_linger_us`'s default): see [`run_writer`].
pub const DEFAULT_COMMIT_LINGER: Duration = Duration::from_micros(500);
/// A batch of this many jobs is large enough: the writer sends it without lingering. Per
/// transaction costs are then shared widely enough, and a writer whose batches are this
/// large anyway (one daemon under load) adds no latency.
const LINGER_BELOW: usize = 32;
/// How often a lost connection is tried again.
const RECONNECT_EVERY: Duration = Duration::from_millis(500);
/// How long a connection attempt may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The channel the batches notify on.
const CHANNEL: &str = "goswiss_changes";
/// Tries of a batch that PostgreSQL aborted as a deadlock or serialization failure.
const BATCH_TRIES: usize = 3;
/// Changes a slow follower may fall behind by before it is told it lagged.
const FEED_BUFFER: usize = 4096;
/// How often a listener removes the listeners that are gone from the tournaments' watchers
/// (and once when it connects).
const FORGET_EVERY: Duration = Duration::from_secs(600);
/// How young a listener's channel may be and still be kept when it is not found among the
/// connections ([`FORGET`]): far longer than a connection takes ([`CONNECT_TIMEOUT`]).
const FORGET_YOUNGER_THAN: Duration = Duration::from_secs(60);

/// The schema, one step per file: step `k` (from 0) brings `goswiss_schema.version` to `k + 1`.
/// A new migration is a new file appended here; never edit a released one.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_events.sql"),
    include_str!("../../migrations/postgres/0002_events_no_fkey.sql"),
    include_str!("../../migrations/postgres/0003_watchers.sql"),
    include_str!("../../migrations/postgres/0004_owner.sql"),
    include_str!("../../migrations/postgres/0005_rating_lists.sql"),
];
/// The schema version this build writes (`goswiss_schema.version`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Any key will do, as long as every goswiss daemon uses the same one: it serializes the
/// migrations of daemons starting together.
const MIGRATION_LOCK: i64 = 0x0067_6f73_7769_7373;

// Every write statement sends its own NOTIFY (`id:kind:head`, see [`parse_notification`]) from
// a CTE over the rows it changed, so a batch needs no statement of its own for them and its
// BEGIN, statements and COMMIT go in one round trip. A CTE that changes nothing is only run
// when referenced: `(SELECT count(*) FROM n) >= 0` references it (it is always true).

/// A creation, recorded as owner `$8`'s unless `$8` has `$9` tournaments already (`$9` = 0: no
/// limit): then nothing is inserted or notified and no row comes back. With a cap, [`OWNER_LOCK`]
/// runs first in the same transaction, so this statement's snapshot (taken after the lock) sees
/// every creation for that owner committed before.
const CREATE: &str = "WITH t AS (
    INSERT INTO tournaments (kind, created_at, next_seq, watchers, owner)
    SELECT $1, $2, cardinality($3::text[]), $7::text[], $8::text
    WHERE $9::bigint = 0 OR (SELECT count(*) FROM tournaments WHERE owner = $8::text) < $9::bigint
    RETURNING id
), e AS (
    INSERT INTO events (tournament_id, seq, kind, body, at)
    SELECT t.id, x.ord - 1, x.kind, x.body, $2
    FROM t, unnest($3::text[], $4::text[]) WITH ORDINALITY AS x(kind, body, ord)
), n AS (
    SELECT pg_notify($5, $6 || ' ' || t.id::text || ':' || $1 || ':' || cardinality($3::text[])::text)
    FROM t
)
SELECT id FROM t WHERE (SELECT count(*) FROM n) >= 0";

const APPEND: &str = "WITH head AS (
    UPDATE tournaments SET next_seq = $2 + cardinality($3::text[])
    WHERE id = $1 AND next_seq = $2
    RETURNING id, watchers
), n AS (
    SELECT pg_notify(w, $7 || ' ' || head.id::text || ':-:' || ($2 + cardinality($3::text[]))::text)
    FROM head, unnest(head.watchers) AS w
    WHERE NOT starts_with(w, $6)
)
INSERT INTO events (tournament_id, seq, kind, body, at)
SELECT head.id, $2 + x.ord - 1, x.kind, x.body, $5
FROM head, unnest($3::text[], $4::text[]) WITH ORDINALITY AS x(kind, body, ord)
WHERE (SELECT count(*) FROM n) >= 0";

/// Every append of a batch in one statement (when no tournament is in it twice): the same
/// compare-and-set as [`APPEND`] for each tournament, its events inserted only if its head
/// moved, and the ids whose head moved returned. `locked` takes the row locks in id order (an
/// index scan of the ids) before the update touches a row: it is the update's one-time filter,
/// so it runs first, and two daemons' batches cannot deadlock. One statement instead of one
/// per job: PostgreSQL parses, plans and starts an executor once per batch, and the connection
/// exchanges one message set instead of one per job. `locked` and `head` are read once each
/// (an init plan, an array of the moved ids) rather than joined: with hash joins off on the
/// writer's connection a join with a CTE is a nested loop, which read the CTE again for every
/// row (the square of the batch's size; half the statement's time at 32 appends). The heads
/// that moved are notified to each of their watchers but this daemon's listeners ($9: their
/// channels' prefix), 150 to a payload (under PostgreSQL's 8000 bytes: an item is at most 41
/// characters and a space). The update returns each row's watchers as the latest committed
/// version holds them, after its lock: see [`WATCH`].
const APPEND_MANY: &str = "WITH w AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS w(id, first_seq, n)
), locked AS (
    SELECT t.id FROM tournaments t WHERE t.id = ANY ($1::bigint[]) ORDER BY t.id FOR UPDATE OF t
), head AS (
    UPDATE tournaments t SET next_seq = w.first_seq + w.n
    FROM w
    WHERE t.id = w.id AND t.next_seq = w.first_seq AND (SELECT count(*) FROM locked) >= 0
    RETURNING t.id, t.next_seq, t.watchers
), e AS (
    INSERT INTO events (tournament_id, seq, kind, body, at)
    SELECT x.id, x.seq, x.kind, x.body, $8
    FROM unnest($4::bigint[], $5::bigint[], $6::text[], $7::text[]) AS x(id, seq, kind, body)
    WHERE x.id = ANY (ARRAY(SELECT id FROM head))
), n AS (
    SELECT pg_notify(w, $10 || ' ' || string_agg(item, ' ')) FROM (
        SELECT w, head.id::text || ':-:' || head.next_seq::text AS item,
            (row_number() OVER (PARTITION BY w ORDER BY head.id) - 1) / 150 AS chunk
        FROM head, unnest(head.watchers) AS w
        WHERE NOT starts_with(w, $9)
    ) items GROUP BY w, chunk
)
SELECT id FROM head WHERE (SELECT count(*) FROM n) >= 0";

/// The tails of several logs in one statement (one snapshot, so each head agrees with its
/// events): a row per event from each `from_seq` on, and one row with null `seq` for a
/// tournament with nothing new; a tournament not in the store has no row. The events come
/// from a LATERAL subquery the planner cannot flatten (its ORDER BY), so each tail is an
/// index range scan: a plain join could be planned as a scan of the whole events table.
const TAILS: &str = "SELECT w.ord, t.kind, t.next_seq, e.seq, e.body
FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS w(id, from_seq, ord)
JOIN tournaments t ON t.id = w.id
LEFT JOIN LATERAL (
    SELECT seq, body FROM events WHERE tournament_id = w.id AND seq >= w.from_seq ORDER BY seq
) e ON true
ORDER BY w.ord, e.seq";

/// A page of one log (see [`Store::load_page`]) in one statement (one snapshot: the head agrees
/// with the events): the events from `$2` on, at most `$3`, while their bodies' running size
/// stays within `$4` bytes, and the first one whatever its size. `octet_length` reads a
/// stored text's size from its header, so the events past the page are sized, not fetched,
/// and the range on `seq` keeps the sizing to the page's `$3` events, not the log's rest.
/// One row with null `seq` when the page is empty; none when the tournament is not there.
const PAGE: &str = "WITH t AS (SELECT kind, next_seq FROM tournaments WHERE id = $1)
SELECT t.kind, t.next_seq, w.seq, w.body FROM t LEFT JOIN (
    SELECT seq, body, sum(octet_length(body)) OVER (ORDER BY seq) AS upto
    FROM events WHERE tournament_id = $1 AND seq >= $2 AND seq < $2 + $3 ORDER BY seq LIMIT $3
) w ON w.upto <= $4 OR w.seq = $2
ORDER BY w.seq";

/// Serializes the capped creations of one owner ([`CREATE`]) across daemons until the
/// transaction ends. Batches take these locks before any row lock (creations come first, in
/// owner order: [`write_batch`]), so they cannot deadlock with each other or with row locks.
const OWNER_LOCK: &str = "SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))";

/// Locks a tournament's row before [`DELETE`], in a statement of its own: a statement sees
/// the rows committed before it started, so [`DELETE`], started once the lock is held, sees
/// every event an append committed while it waited for the lock (the events have no foreign
/// key to catch one left behind).
const LOCK: &str = "SELECT id FROM tournaments WHERE id = $1 FOR UPDATE";

const DELETE: &str = "WITH e AS (DELETE FROM events WHERE tournament_id = $1),
d AS (DELETE FROM tournaments WHERE id = $1 RETURNING kind),
n AS (SELECT pg_notify($2, $3 || ' ' || $1::text || ':-:-1') FROM d)
SELECT kind FROM d WHERE (SELECT count(*) FROM n) >= 0";

/// Signs a listener ($2, its channel) up as a watcher of the tournaments `$1`, in the read
/// transaction, before [`TAILS`] reads them. Why nothing is missed between the two: an append
/// locks the tournament's row, and a row this statement changes stays locked until the read's
/// commit. An append that took the lock first has committed before this statement goes on, so
/// the read (a later statement: a newer snapshot) sees its events; one that takes it after
/// this commit sees the new watchers (an update in READ COMMITTED works on the latest
/// committed version of the row it waited for, and returns it) and notifies the listener. A
/// row that already names the listener is not touched: it was signed up before, and the
/// appends since then have notified it. The rows are locked in id order first (`locked`, read
/// once before the update scans, as in [`APPEND_MANY`]), the order every write takes them in,
/// so a sign-up and a batch of appends cannot deadlock.
const WATCH: &str = "WITH locked AS (
    SELECT id FROM tournaments WHERE id = ANY ($1::bigint[]) AND NOT ($2 = ANY (watchers))
    ORDER BY id FOR UPDATE
)
UPDATE tournaments SET watchers = array_append(watchers, $2)
WHERE id = ANY (ARRAY(SELECT id FROM locked))";

/// Removes the listeners that are gone from every tournament's watchers: a listener's channel
/// is its connection's `application_name`, so the live ones are in `pg_stat_activity`. A
/// channel newer than `$1` milliseconds by the time in its name (PostgreSQL's clock when its
/// listener connected) is kept even if not found: this statement may have read
/// `pg_stat_activity` before that listener connected, while the rows it updates are the latest
/// ones, which may already name it. A name not of goswiss's shape is dropped. The rows are
/// locked in id order first, like every write's.
const FORGET: &str = "WITH live AS (
    SELECT coalesce(array_agg(application_name::text), '{}') AS marks
    FROM pg_stat_activity WHERE application_name LIKE 'gw%'
), locked AS (
    SELECT t.id FROM tournaments t, live
    WHERE t.watchers <> '{}' AND NOT (t.watchers <@ live.marks)
    ORDER BY t.id FOR UPDATE OF t
)
UPDATE tournaments t SET watchers = ARRAY(
    SELECT w FROM unnest(t.watchers) AS w
    WHERE w = ANY (live.marks) OR CASE
        WHEN w ~ '^gw[0-9a-f]{16}[.][0-9a-f]{1,15}$'
        THEN ('x' || lpad(split_part(w, '.', 2), 16, '0'))::bit(64)::bigint
            > (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $1
        ELSE false
    END
)
FROM live
WHERE t.id = ANY (ARRAY(SELECT id FROM locked))";

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A database error as the callers see it: a lost or refused connection is "unavailable" (try
/// again later), anything else a database error.
fn pg(e: tokio_postgres::Error) -> StoreError {
    // Class 08 (connection exception) and 57 (operator intervention: the server shutting down,
    // crashed or still starting up) mean the database went away, not that the call was wrong.
    let gone = e
        .code()
        .is_some_and(|c| c.code().starts_with("08") || c.code().starts_with("57"));
    if gone || e.is_closed() || e.code().is_none() {
        StoreError::Unavailable(format!("storage unavailable: {e}"))
    } else {
        let detail = e
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_else(|| e.to_string());
        StoreError::Database(detail)
    }
}

fn retryable(e: &tokio_postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE
    )
}

type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

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
    Close {
        reply: Reply<()>,
    },
}

struct Shared {
    /// Whether the writer's connection is up (for `/health`).
    up: AtomicBool,
    closed: AtomicBool,
    /// Why the writer's connection is down.
    why: StdMutex<String>,
    /// This store's mark on the NOTIFYs its writes send ([`origin_mark`]): its own listener
    /// drops them, as the registries applied these writes already.
    origin: String,
    /// The start of every channel this store's listener takes (`gw` and the origin's digits and
    /// a dot): its writes notify no watcher that starts so.
    prefix: String,
    /// The listener's current session.
    watch: StdMutex<Watch>,
    /// [`Watch::epoch`], for the registries' check before every use of a tournament.
    epoch: AtomicU64,
}

/// A session of the listener: its channel, the one the reads and creations sign up.
#[derive(Default)]
struct Watch {
    /// Counts the sessions: [`Store::feed_epoch`] (also in [`Shared::epoch`], read without
    /// the lock).
    epoch: u64,
    /// The channel while the listener is connected.
    channel: Option<String>,
    /// The tournaments already signed up on it (by a creation or a read): a read of these
    /// needs no [`WATCH`] (the registries read tails again and again, say after every
    /// command the engine refused).
    signed: std::collections::HashSet<TournamentId>,
}

impl Shared {
    fn down(&self, why: String) {
        if self.up.swap(false, Ordering::SeqCst) {
            tracing::warn!(error = %why, "PostgreSQL connection lost; calls fail until it is back");
        }
        *self.why.lock().unwrap_or_else(|p| p.into_inner()) = why;
    }

    fn up(&self) {
        if !self.up.swap(true, Ordering::SeqCst) {
            tracing::info!("PostgreSQL connection (re)established");
        }
    }

    /// The channel a creation signs up now (none while the listener is down), and its session.
    fn channel(&self) -> (u64, Option<String>) {
        let w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        (w.epoch, w.channel.clone())
    }

    /// The channel a read of `ids` signs up now with those of them not signed up yet (none to
    /// sign while the listener is down), and its session.
    fn to_sign(&self, ids: &[TournamentId]) -> (u64, Option<(String, Vec<TournamentId>)>) {
        let w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        let unsigned: Vec<_> = ids
            .iter()
            .copied()
            .filter(|id| !w.signed.contains(id))
            .collect();
        let sign = match &w.channel {
            Some(channel) if !unsigned.is_empty() => Some((channel.clone(), unsigned)),
            _ => None,
        };
        (w.epoch, sign)
    }

    /// Notes `ids` signed up in session `epoch` (unless that session is over).
    fn signed(&self, epoch: u64, ids: impl IntoIterator<Item = TournamentId>) {
        let mut w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        if w.epoch == epoch && w.channel.is_some() {
            w.signed.extend(ids);
        }
    }

    fn set_channel(&self, channel: Option<String>) {
        let mut w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        if channel.is_some() {
            w.epoch += 1;
            self.epoch.store(w.epoch, Ordering::Release);
        }
        w.channel = channel;
        w.signed.clear();
    }
}

pub struct PostgresStore {
    config: tokio_postgres::Config,
    jobs: mpsc::UnboundedSender<Job>,
    shared: Arc<Shared>,
    reader: Mutex<Option<Reader>>,
    feed: broadcast::Sender<HeadChange>,
    listener: tokio::task::JoinHandle<()>,
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// Opens one connection, its driver running on its own task.
pub(crate) async fn connect(config: &tokio_postgres::Config) -> Result<Client, StoreError> {
    let (client, connection) = tokio::time::timeout(CONNECT_TIMEOUT, config.connect(NoTls))
        .await
        .map_err(|_| StoreError::Unavailable("storage unavailable: connection timed out".into()))?
        .map_err(pg)?;
    tokio::spawn(async move {
        // An error here is the connection's end; its calls see it as `is_closed`.
        let _ = connection.await;
    });
    Ok(client)
}

/// Whether `url` names a PostgreSQL database rather than a SQLite file.
pub fn is_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

impl PostgresStore {
    /// Connects, brings the schema up to date and starts the writer and the listener. The
    /// first connection must succeed: a daemon that cannot reach its database at start says so.
    pub async fn open(url: &str) -> Result<PostgresStore, StoreError> {
        Self::open_with(url, DEFAULT_COMMIT_LINGER).await
    }

    /// [`PostgresStore::open`] with the writer's commit linger (`pg_commit_linger_us`; zero:
    /// never wait for more jobs).
    pub async fn open_with(url: &str, linger: Duration) -> Result<PostgresStore, StoreError> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| StoreError::Database(format!("bad PostgreSQL URL: {e}")))?;
        let mut writer = connect(&config).await?;
        migrate(&mut writer).await?;
        let origin = origin_mark();
        let shared = Arc::new(Shared {
            up: AtomicBool::new(true),
            closed: AtomicBool::new(false),
            why: StdMutex::new(String::new()),
            prefix: channel_prefix(&origin),
            origin,
            watch: StdMutex::new(Watch::default()),
            epoch: AtomicU64::new(0),
        });
        let (jobs, rx) = mpsc::unbounded_channel();
        let statements = Statements::prepare(&writer).await?;
        tokio::spawn(run_writer(
            config.clone(),
            Some((writer, statements)),
            rx,
            Arc::clone(&shared),
            linger,
        ));
        let feed = broadcast::channel(FEED_BUFFER).0;
        let listener = tokio::spawn(run_listener(
            config.clone(),
            feed.clone(),
            Arc::clone(&shared),
        ));
        Ok(PostgresStore {
            config,
            jobs,
            shared,
            reader: Mutex::new(None),
            feed,
            listener,
        })
    }

    /// Removes the listeners that are gone from every tournament's watchers, keeping any
    /// channel younger than `younger_than` (the listener does this on connecting and every
    /// ten minutes, keeping a minute's worth); how many tournaments changed.
    pub async fn forget_gone_watchers(&self, younger_than: Duration) -> Result<u64, StoreError> {
        self.read(async |r: &mut Reader| forget_gone(&r.client, younger_than).await)
            .await
    }

    fn send<T: Send + 'static>(&self, make: impl FnOnce(Reply<T>) -> Job) -> StoreFuture<'_, T> {
        let (tx, rx) = oneshot::channel();
        let sent = self.jobs.send(make(tx)).is_ok();
        Box::pin(async move {
            if sent && let Ok(result) = rx.await {
                return result;
            }
            Err(StoreError::Closed)
        })
    }

    /// A connection for one call, closed when dropped (the rating lists').
    async fn own_connection(&self) -> Result<Client, StoreError> {
        if self.shared.closed.load(Ordering::SeqCst) {
            return Err(StoreError::Closed);
        }
        connect(&self.config).await
    }

    /// Runs `f` on the read connection, connecting it first if needed; a lost connection is
    /// dropped so the next read reconnects.
    async fn read<T>(
        &self,
        f: impl AsyncFnOnce(&mut Reader) -> Result<T, tokio_postgres::Error>,
    ) -> Result<T, StoreError> {
        if self.shared.closed.load(Ordering::SeqCst) {
            return Err(StoreError::Closed);
        }
        let mut guard = self.reader.lock().await;
        if guard.as_ref().is_none_or(|r| r.client.is_closed()) {
            let client = connect(&self.config).await?;
            let tails = client.prepare(TAILS).await.map_err(pg)?;
            let watch = client.prepare(WATCH).await.map_err(pg)?;
            let page = client.prepare(PAGE).await.map_err(pg)?;
            *guard = Some(Reader {
                client,
                tails,
                watch,
                page,
            });
        }
        let reader = guard.as_mut().expect("connected above");
        match f(reader).await {
            Ok(v) => Ok(v),
            Err(e) => {
                if reader.client.is_closed() {
                    *guard = None;
                }
                Err(pg(e))
            }
        }
    }
}

/// The read connection with its prepared statements.
struct Reader {
    client: Client,
    tails: Statement,
    watch: Statement,
    page: Statement,
}

/// Groups [`TAILS`]' rows by the tournament asked for: `wants[k]`'s tail, or `None`.
fn tails(
    wants: &[(TournamentId, u64)],
    rows: Vec<tokio_postgres::Row>,
) -> Result<Vec<Option<StoredTournament>>, StoreError> {
    let mut out: Vec<Option<StoredTournament>> = Vec::with_capacity(wants.len());
    let mut rows = rows.into_iter().peekable();
    for (k, &(id, from)) in wants.iter().enumerate() {
        let ord = k as i64 + 1;
        let mut head: Option<(String, i64)> = None;
        let mut log = Vec::new();
        while let Some(row) = rows.next_if(|r| r.get::<_, i64>(0) == ord) {
            if head.is_none() {
                head = Some((row.get(1), row.get(2)));
            }
            let Some(seq) = row.get::<_, Option<i64>>(3) else {
                continue;
            };
            let expected = from + log.len() as u64;
            if seq != expected as i64 {
                return Err(StoreError::Corrupt {
                    id,
                    seq: seq as u64,
                    message: format!("expected seq {expected}"),
                });
            }
            log.push(row.get(4));
        }
        out.push(match head {
            Some((kind, next)) => Some(checked(id, kind, next, from, log)?),
            None => None,
        });
    }
    Ok(out)
}

pub(crate) async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let target = MIGRATIONS.len() as i64;
    let step = |e: tokio_postgres::Error| StoreError::Database(format!("migration: {}", pg(e)));
    let tx = client.transaction().await.map_err(step)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(step)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS goswiss_schema (version BIGINT NOT NULL);
         INSERT INTO goswiss_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM goswiss_schema)",
    )
    .await
    .map_err(step)?;
    let version: i64 = tx
        .query_one("SELECT version FROM goswiss_schema", &[])
        .await
        .map_err(step)?
        .get(0);
    if version > target {
        return Err(StoreError::Database(format!(
            "database schema version {version} is newer than this goswiss ({target})"
        )));
    }
    // The steps and the version bump commit together: a crash leaves the old version.
    for (k, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        tx.batch_execute(sql)
            .await
            .map_err(|e| StoreError::Database(format!("migration {}: {}", k + 1, pg(e))))?;
        tx.execute("UPDATE goswiss_schema SET version = $1", &[&(k as i64 + 1)])
            .await
            .map_err(step)?;
    }
    tx.commit().await.map_err(step)
}

/// The writer's prepared statements (prepared once per connection).
struct Statements {
    create: Statement,
    owner_lock: Statement,
    append: Statement,
    append_many: Statement,
    lock: Statement,
    delete: Statement,
}

impl Statements {
    async fn prepare(client: &Client) -> Result<Statements, StoreError> {
        // The writer's statements look tournaments up by id among a batch's few: index probes
        // (nested loops) are right at any table size, while the planner, which cannot see
        // how many ids an array holds, could pick a hash join over a scan of the whole table.
        client
            .batch_execute("SET enable_hashjoin = off; SET enable_mergejoin = off")
            .await
            .map_err(pg)?;
        Ok(Statements {
            create: client.prepare(CREATE).await.map_err(pg)?,
            owner_lock: client.prepare(OWNER_LOCK).await.map_err(pg)?,
            append: client.prepare(APPEND).await.map_err(pg)?,
            append_many: client.prepare(APPEND_MANY).await.map_err(pg)?,
            lock: client.prepare(LOCK).await.map_err(pg)?,
            delete: client.prepare(DELETE).await.map_err(pg)?,
        })
    }
}

type Conn = (Client, Statements);

async fn reconnect(config: &tokio_postgres::Config, shared: &Shared) -> Option<Conn> {
    let connected = async {
        let client = connect(config).await?;
        let statements = Statements::prepare(&client).await?;
        Ok::<_, StoreError>((client, statements))
    };
    match connected.await {
        Ok(conn) => {
            shared.up();
            Some(conn)
        }
        Err(e) => {
            shared.down(e.to_string());
            None
        }
    }
}

/// Takes every job queued (up to [`MAX_BATCH`]) into `batch`; whether a close came with them
/// (the jobs queued behind a close are left for it to drop).
fn take_queued(rx: &mut mpsc::UnboundedReceiver<Job>, batch: &mut Vec<Job>) -> bool {
    while batch.len() < MAX_BATCH {
        match rx.try_recv() {
            Ok(job) => {
                let close = matches!(job, Job::Close { .. });
                batch.push(job);
                if close {
                    return true;
                }
            }
            Err(_) => break,
        }
    }
    false
}

/// The writer: one transaction per batch of queued jobs.
///
/// Group commit across callers: everything paid per transaction (BEGIN and COMMIT, the WAL
/// flush, and a NOTIFY to the tournaments' other watchers, which PostgreSQL serializes across
/// every notifying transaction of the database until its commit is flushed) is shared by the
/// jobs of a batch. With several daemons each writer sees only its share of the
/// load, so its batches shrink and the transactions multiply. So when a batch is small (under
/// [`LINGER_BELOW`] jobs) and the previous one held more than one job (other callers are
/// writing at the same time: a single caller never waits), the writer waits up to `linger`
/// for more jobs, until the batch is no longer small, before it sends it. tokio's
/// timer ticks every millisecond, so a wait that ends on the timer rather than on a full
/// batch can last up to a millisecond longer.
async fn run_writer(
    config: tokio_postgres::Config,
    mut conn: Option<Conn>,
    mut rx: mpsc::UnboundedReceiver<Job>,
    shared: Arc<Shared>,
    linger: Duration,
) {
    let mut previous = 0;
    loop {
        if conn.as_ref().is_some_and(|(c, _)| c.is_closed()) {
            shared.down("storage unavailable: the connection to PostgreSQL closed".into());
            conn = None;
        }
        let first = if conn.is_none() {
            // Down: try again now and then, even with nothing to write, so /health recovers.
            tokio::select! {
                job = rx.recv() => job,
                () = tokio::time::sleep(RECONNECT_EVERY) => {
                    conn = reconnect(&config, &shared).await;
                    continue;
                }
            }
        } else {
            rx.recv().await
        };
        let Some(first) = first else { return };
        let mut closing = matches!(first, Job::Close { .. });
        let mut batch = vec![first];
        if !closing {
            closing = take_queued(&mut rx, &mut batch);
        }
        if !closing
            && previous > 1
            && batch.len() < LINGER_BELOW
            && !linger.is_zero()
            && conn.is_some()
        {
            let deadline = tokio::time::Instant::now() + linger;
            while batch.len() < LINGER_BELOW && !closing {
                match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Ok(Some(job)) => {
                        closing = matches!(job, Job::Close { .. });
                        batch.push(job);
                        if !closing {
                            closing = take_queued(&mut rx, &mut batch);
                        }
                    }
                    Ok(None) | Err(_) => break,
                }
            }
        }
        previous = batch.len();
        let mut close = None;
        let mut writes = Vec::with_capacity(batch.len());
        for job in batch {
            match job {
                Job::Close { reply } => close = Some(reply),
                w => writes.push(w),
            }
        }
        if !writes.is_empty() {
            if conn.is_none() {
                conn = reconnect(&config, &shared).await;
            }
            match &conn {
                Some((client, statements)) => {
                    write_batch(client, statements, writes, &shared).await;
                }
                None => {
                    let why = shared.why.lock().unwrap_or_else(|p| p.into_inner()).clone();
                    for job in writes {
                        fail(job, StoreError::Unavailable(why.clone()));
                    }
                }
            }
        }
        if let Some(reply) = close {
            shared.closed.store(true, Ordering::SeqCst);
            // Jobs queued behind the close are dropped with the receiver: their callers get
            // StoreError::Closed.
            let _ = reply.send(Ok(()));
            return;
        }
    }
}

fn fail(job: Job, e: StoreError) {
    match job {
        Job::Create { reply, .. } => {
            let _ = reply.send(Err(e));
        }
        Job::Append { reply, .. } | Job::Delete { reply, .. } | Job::Close { reply } => {
            let _ = reply.send(Err(e));
        }
    }
}

fn columns(rows: &[RawEvent]) -> (Vec<&str>, Vec<&str>) {
    rows.iter().map(|r| (r.kind, r.body.as_str())).unzip()
}

/// What a batch's statements sign and notify with.
struct Marks<'a> {
    /// Starts every payload ([`Shared::origin`]).
    origin: &'a str,
    /// No watcher that starts so is notified: this daemon's listeners ([`Shared::prefix`]).
    prefix: &'a str,
    /// A new tournament's watchers: this daemon's listener, if it is connected.
    watchers: Vec<String>,
}

/// What one job of a batch did, once its statement ran.
enum Outcome {
    /// `None`: the owner's cap was reached.
    Created(Option<TournamentId>),
    Written,
    /// The compare-and-set found another head: classified after the batch.
    Moved,
    Missing,
}

/// Commits a batch of writes in one transaction, pipelined, and answers each job after the
/// commit. A deadlock or serialization failure (two daemons' batches) is retried whole.
async fn write_batch(client: &Client, st: &Statements, mut jobs: Vec<Job>, shared: &Shared) {
    // Row locks in id order on every daemon: no deadlock between two batches. Creations come
    // first, in owner order: their owner locks are taken before any row lock, in one order.
    jobs.sort_by(|a, b| {
        let key = |j: &Job| match j {
            Job::Append { id, .. } | Job::Delete { id, .. } => (*id, None),
            Job::Create { owner, .. } => (0, owner.as_ref().map(|o| o.key.clone())),
            Job::Close { .. } => (0, None),
        };
        key(a).cmp(&key(b))
    });
    let at = now_millis();
    // A creation signs this daemon up for its tournament, which its registry caches.
    let (epoch, channel) = shared.channel();
    let marks = Marks {
        origin: &shared.origin,
        prefix: &shared.prefix,
        watchers: channel.into_iter().collect(),
    };
    let mut tries = 0;
    let outcomes = loop {
        tries += 1;
        match run_batch(client, st, &jobs, at, &marks).await {
            Ok(outcomes) => break Ok(outcomes),
            Err(e) if retryable(&e) && tries < BATCH_TRIES => continue,
            Err(e) => break Err(e),
        }
    };
    let outcomes = match outcomes {
        Ok(o) => o,
        Err(e) => {
            let e = pg(e);
            if matches!(e, StoreError::Unavailable(_)) || client.is_closed() {
                shared.down(e.to_string());
            }
            for job in jobs {
                fail(job, clone_error(&e));
            }
            return;
        }
    };
    if !marks.watchers.is_empty() {
        shared.signed(
            epoch,
            outcomes.iter().filter_map(|o| match o {
                Outcome::Created(id) => *id,
                _ => None,
            }),
        );
    }
    for (job, outcome) in jobs.into_iter().zip(outcomes) {
        match (job, outcome) {
            (Job::Create { reply, .. }, Outcome::Created(id)) => {
                let _ = reply.send(Ok(id));
            }
            (Job::Append { reply, .. } | Job::Delete { reply, .. }, Outcome::Written) => {
                let _ = reply.send(Ok(()));
            }
            (Job::Delete { id, reply }, Outcome::Missing) => {
                let _ = reply.send(Err(StoreError::NotFound(id)));
            }
            (
                Job::Append {
                    id,
                    first_seq,
                    reply,
                    ..
                },
                Outcome::Moved,
            ) => {
                // Why the head did not move: read it now (rare: a race lost, or a bug).
                let head = client
                    .query_opt("SELECT next_seq FROM tournaments WHERE id = $1", &[&id])
                    .await
                    .map(|r| r.map(|r| r.get::<_, i64>(0)));
                let e = match head {
                    Err(e) => pg(e),
                    Ok(None) => StoreError::NotFound(id),
                    Ok(Some(n)) if (first_seq as i64) < n => {
                        StoreError::Conflict { id, seq: first_seq }
                    }
                    Ok(Some(n)) => StoreError::Database(format!(
                        "event {first_seq} of tournament {id} would leave a gap in its log (next is {n})"
                    )),
                };
                let _ = reply.send(Err(e));
            }
            (job, _) => fail(
                job,
                StoreError::Database("internal: mismatched outcome".into()),
            ),
        }
    }
}

fn clone_error(e: &StoreError) -> StoreError {
    match e {
        StoreError::Unavailable(m) => StoreError::Unavailable(m.clone()),
        other => StoreError::Database(other.to_string()),
    }
}

/// Whether a batch's appends can go as one [`APPEND_MANY`] statement: no deletes (each locks
/// its row in its own statement, which would break the id order of the locks), and no
/// tournament twice (possible when a caller gave up on an append still queued and its next
/// call queued another: the second must meet the first's head, which needs its own statement).
fn appends_together(jobs: &[Job]) -> bool {
    let mut seen = std::collections::HashSet::new();
    jobs.iter().all(|job| match job {
        Job::Delete { .. } => false,
        Job::Append { id, rows, .. } => rows.is_empty() || seen.insert(*id),
        Job::Create { .. } | Job::Close { .. } => true,
    })
}

/// [`APPEND_MANY`]'s array parameters: one entry per tournament, one per event.
#[derive(Default)]
struct Appends<'a> {
    ids: Vec<i64>,
    first_seqs: Vec<i64>,
    counts: Vec<i64>,
    event_ids: Vec<i64>,
    event_seqs: Vec<i64>,
    kinds: Vec<&'a str>,
    bodies: Vec<&'a str>,
}

impl<'a> Appends<'a> {
    fn of(jobs: &'a [Job]) -> Appends<'a> {
        let mut a = Appends::default();
        for job in jobs {
            if let Job::Append {
                id,
                first_seq,
                rows,
                ..
            } = job
                && !rows.is_empty()
            {
                let first = *first_seq as i64;
                a.ids.push(*id);
                a.first_seqs.push(first);
                a.counts.push(rows.len() as i64);
                for (k, row) in rows.iter().enumerate() {
                    a.event_ids.push(*id);
                    a.event_seqs.push(first + k as i64);
                    a.kinds.push(row.kind);
                    a.bodies.push(&row.body);
                }
            }
        }
        a
    }
}

/// [`APPEND_MANY`] for every append of `jobs` (which [`appends_together`] allowed): the ids
/// whose head moved.
async fn append_many(
    client: &Client,
    st: &Statements,
    jobs: &[Job],
    at: i64,
    marks: &Marks<'_>,
) -> Result<std::collections::HashSet<i64>, tokio_postgres::Error> {
    let a = Appends::of(jobs);
    if a.ids.is_empty() {
        return Ok(Default::default());
    }
    let moved = client
        .query(
            &st.append_many,
            &[
                &a.ids,
                &a.first_seqs,
                &a.counts,
                &a.event_ids,
                &a.event_seqs,
                &a.kinds,
                &a.bodies,
                &at,
                &marks.prefix,
                &marks.origin,
            ],
        )
        .await?;
    Ok(moved.iter().map(|r| r.get(0)).collect())
}

/// One try of a batch: BEGIN, the jobs' statements and the NOTIFYs sent together, COMMIT (or,
/// for a batch of appends only, their one statement alone). The appends go as one statement
/// when they can ([`appends_together`]), else one each.
async fn run_batch(
    client: &Client,
    st: &Statements,
    jobs: &[Job],
    at: i64,
    marks: &Marks<'_>,
) -> Result<Vec<Outcome>, tokio_postgres::Error> {
    let together = appends_together(jobs);
    if together && jobs.iter().all(|j| matches!(j, Job::Append { .. })) {
        // Only appends, all in one statement: it goes alone, without BEGIN and COMMIT, as
        // PostgreSQL's implicit transaction of one extended-protocol message set (Bind,
        // Execute, Sync). The statement is atomic, the transaction commits at the Sync, and
        // tokio-postgres answers only at the ReadyForQuery that follows the commit (with the
        // commit's error, should it fail), so no job is answered before COMMIT. This saves the
        // two simple-query cycles of BEGIN and COMMIT, and two of the three replies the
        // connection has to wake up for, per transaction.
        let moved = append_many(client, st, jobs, at, marks).await?;
        return Ok(jobs
            .iter()
            .map(|job| match job {
                Job::Append { rows, .. } if rows.is_empty() => Outcome::Written,
                Job::Append { id, .. } if moved.contains(id) => Outcome::Written,
                _ => Outcome::Moved,
            })
            .collect());
    }
    let begin = client.batch_execute("BEGIN");
    let mut statements = Vec::with_capacity(jobs.len());
    for job in jobs {
        statements.push(async move {
            match job {
                Job::Create {
                    kind, rows, owner, ..
                } => {
                    let (kinds, bodies) = columns(rows);
                    let key = owner.as_ref().map(|o| o.key.as_str());
                    let cap = owner.as_ref().map_or(0, |o| i64::from(o.cap));
                    let kind = kind.as_str();
                    let create_params: [&(dyn ToSql + Sync); 9] = [
                        &kind,
                        &at,
                        &kinds,
                        &bodies,
                        &CHANNEL,
                        &marks.origin,
                        &marks.watchers,
                        &key,
                        &cap,
                    ];
                    let created = match key.filter(|_| cap > 0) {
                        // Both sent now, in this order (join polls them in order), as a
                        // delete's lock and delete are.
                        Some(key) => {
                            let lock_params: [&(dyn ToSql + Sync); 1] = [&key];
                            let (locked, created) = futures::join!(
                                client.query_one(&st.owner_lock, &lock_params),
                                client.query_opt(&st.create, &create_params)
                            );
                            locked?;
                            created?
                        }
                        None => client.query_opt(&st.create, &create_params).await?,
                    };
                    Ok(Some(Outcome::Created(created.map(|row| row.get(0)))))
                }
                Job::Append { rows, .. } if rows.is_empty() => Ok(Some(Outcome::Written)),
                // Answered by the one statement below.
                Job::Append { .. } if together => Ok(None),
                Job::Append {
                    id,
                    first_seq,
                    rows,
                    ..
                } => {
                    let (kinds, bodies) = columns(rows);
                    let n = client
                        .execute(
                            &st.append,
                            &[
                                id,
                                &(*first_seq as i64),
                                &kinds,
                                &bodies,
                                &at,
                                &marks.prefix,
                                &marks.origin,
                            ],
                        )
                        .await?;
                    Ok(Some(if n == 0 {
                        Outcome::Moved
                    } else {
                        Outcome::Written
                    }))
                }
                Job::Delete { id, .. } => {
                    // Both sent now, in this order (join polls them in order), so they stay
                    // between BEGIN and COMMIT in the pipeline.
                    let lock_params: [&(dyn ToSql + Sync); 1] = [id];
                    let delete_params: [&(dyn ToSql + Sync); 3] = [id, &CHANNEL, &marks.origin];
                    let (locked, gone) = futures::join!(
                        client.query_opt(&st.lock, &lock_params),
                        client.query_opt(&st.delete, &delete_params)
                    );
                    locked?;
                    let gone = gone?;
                    Ok(Some(if gone.is_some() {
                        Outcome::Written
                    } else {
                        Outcome::Missing
                    }))
                }
                Job::Close { .. } => Ok(Some(Outcome::Written)),
            }
        });
    }
    let all = async {
        if together {
            append_many(client, st, jobs, at, marks).await
        } else {
            Ok(Default::default())
        }
    };
    // Sent in this order, answered in this order, all in one round trip: BEGIN, the jobs
    // (each statement sends its own NOTIFYs), COMMIT. If a statement fails, PostgreSQL
    // aborts the transaction, refuses the statements after it and answers the COMMIT with a
    // rollback: nothing of the batch is written, and the statement's error is what is
    // reported.
    let (began, outcomes, moved, committed) = futures::join!(
        begin,
        join_all(statements),
        all,
        client.batch_execute("COMMIT")
    );
    let result = began.and_then(|()| {
        let moved = moved?;
        jobs.iter()
            .zip(outcomes)
            .map(|(job, outcome)| {
                Ok(match (outcome?, job) {
                    (Some(o), _) => o,
                    (None, Job::Append { id, .. }) if moved.contains(id) => Outcome::Written,
                    (None, _) => Outcome::Moved,
                })
            })
            .collect::<Result<Vec<_>, _>>()
    });
    let outcomes = match result {
        Ok(o) => o,
        Err(e) => {
            // The COMMIT was a rollback; this only makes sure no transaction stays open
            // should the server have taken BEGIN but not seen the COMMIT.
            if committed.is_err() {
                let _ = client.batch_execute("ROLLBACK").await;
            }
            return Err(e);
        }
    };
    committed?;
    Ok(outcomes)
}

/// A store's mark on its NOTIFYs: `@` and 16 hex digits, unique among the daemons on one
/// database (the process id, the time and std's per-process random hash keys mixed).
fn origin_mark() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("@{:016x}", h.finish())
}

/// The changes a payload (`@origin id:kind:head ...`) names, none if `own` sent it. Items that
/// do not parse are skipped (so are the marks: a daemon of an older goswiss, which sends
/// payloads without one, is read as another daemon).
fn parse_notification(payload: &str, own: &str) -> Vec<HeadChange> {
    if payload.split(' ').next() == Some(own) {
        return Vec::new();
    }
    payload
        .split(' ')
        .filter_map(|item| {
            let mut parts = item.split(':');
            let id = parts.next()?.parse().ok()?;
            let kind = LogKind::parse(parts.next()?);
            let head: i64 = parts.next()?.parse().ok()?;
            Some(HeadChange {
                id,
                kind,
                head: u64::try_from(head).ok(),
            })
        })
        .collect()
}

/// The start of the channels of a store whose origin mark is `origin` (`@` and 16 hex digits):
/// `gw`, the digits and a dot. [`FORGET`] knows this shape.
fn channel_prefix(origin: &str) -> String {
    format!("gw{}.", origin.trim_start_matches('@'))
}

/// Connects the listener: a new channel (the prefix and PostgreSQL's clock in milliseconds, in
/// hex), made the connection's `application_name` (how [`FORGET`] knows it is live), then
/// LISTENs on it and on [`CHANNEL`] (creations and deletions, which every daemon hears of).
async fn listen(
    config: &tokio_postgres::Config,
    prefix: &str,
) -> Option<(Client, mpsc::UnboundedReceiver<String>, String)> {
    let connected = tokio::time::timeout(CONNECT_TIMEOUT, config.connect(NoTls)).await;
    let Ok(Ok((client, mut connection))) = connected else {
        return None;
    };
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = futures::StreamExt::next(&mut messages).await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    if tx.send(n.payload().to_string()).is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    let now: i64 = client
        .query_one(
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
            &[],
        )
        .await
        .ok()?
        .get(0);
    // Only hex digits, a dot and letters: safe inside the quotes below.
    let channel = format!("{prefix}{:x}", now.max(0));
    client
        .batch_execute(&format!(
            "SET application_name = '{channel}'; LISTEN {CHANNEL}; LISTEN \"{channel}\""
        ))
        .await
        .ok()?;
    Some((client, rx, channel))
}

/// Removes the listeners that are gone from the tournaments' watchers ([`FORGET`]), keeping
/// channels younger than `younger_than`: how many tournaments changed.
async fn forget_gone(
    client: &Client,
    younger_than: Duration,
) -> Result<u64, tokio_postgres::Error> {
    let millis = i64::try_from(younger_than.as_millis()).unwrap_or(i64::MAX);
    client.execute(FORGET, &[&millis]).await
}

/// LISTENs on its own connection and forwards every change heard; after a reconnect it sends
/// [`HeadChange::resync`] so followers check what they may have missed meanwhile. Each
/// connection is a session of the feed with a channel of its own ([`listen`]), which the store's
/// reads and creations then sign up on the tournaments they touch; the other daemons' writes to
/// those tournaments are notified on it. Now and then it also removes the listeners that are
/// gone from the tournaments' watchers.
async fn run_listener(
    config: tokio_postgres::Config,
    feed: broadcast::Sender<HeadChange>,
    shared: Arc<Shared>,
) {
    let mut first = true;
    loop {
        let Some((client, mut rx, channel)) = listen(&config, &shared.prefix).await else {
            tokio::time::sleep(RECONNECT_EVERY).await;
            continue;
        };
        shared.set_channel(Some(channel));
        if !first {
            let _ = feed.send(HeadChange::resync());
        }
        first = false;
        let mut forget = tokio::time::interval(FORGET_EVERY);
        loop {
            tokio::select! {
                payload = rx.recv() => {
                    let Some(payload) = payload else { break };
                    for change in parse_notification(&payload, &shared.origin) {
                        let _ = feed.send(change);
                    }
                }
                _ = forget.tick() => {
                    // The first tick is at once: a daemon that starts cleans up after the
                    // ones that stopped. A failure only leaves the list longer until next
                    // time; a lost connection is seen by the next receive.
                    if let Err(e) = forget_gone(&client, FORGET_YOUNGER_THAN).await {
                        tracing::warn!(error = %e, "cannot remove gone listeners from the watchers");
                    }
                }
            }
        }
        shared.set_channel(None);
        drop(client);
        tokio::time::sleep(RECONNECT_EVERY).await;
    }
}

impl Store for PostgresStore {
    fn health(&self) -> Result<(), StoreError> {
        if self.shared.up.load(Ordering::SeqCst) {
            Ok(())
        } else {
            let why = self
                .shared
                .why
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            Err(StoreError::Unavailable(why))
        }
    }

    fn load_all(&self) -> StoreFuture<'_, Vec<StoredTournament>> {
        Box::pin(async move {
            let (heads, events) = self
                .read(async |r: &mut Reader| {
                    // One snapshot for both reads: the heads and the logs agree.
                    let tx = r
                        .client
                        .build_transaction()
                        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
                        .read_only(true)
                        .start()
                        .await?;
                    let heads = tx
                        .query("SELECT id, kind, next_seq FROM tournaments ORDER BY id", &[])
                        .await?;
                    let events = tx
                        .query(
                            "SELECT tournament_id, seq, body FROM events ORDER BY tournament_id, seq",
                            &[],
                        )
                        .await?;
                    tx.commit().await?;
                    Ok((heads, events))
                })
                .await?;
            let mut logs: HashMap<TournamentId, Vec<String>> = HashMap::new();
            for row in events {
                let id: TournamentId = row.get(0);
                let seq: i64 = row.get(1);
                let log = logs.entry(id).or_default();
                if seq != log.len() as i64 {
                    return Err(StoreError::Corrupt {
                        id,
                        seq: seq as u64,
                        message: format!("expected seq {}", log.len()),
                    });
                }
                log.push(row.get(2));
            }
            let mut out = Vec::with_capacity(heads.len());
            for row in heads {
                let id: TournamentId = row.get(0);
                let events = logs.remove(&id).unwrap_or_default();
                out.push(checked(id, row.get(1), row.get(2), 0, events)?);
            }
            if let Some(id) = logs.keys().min() {
                return Err(StoreError::Corrupt {
                    id: *id,
                    seq: 0,
                    message: "events of a tournament the store does not list".into(),
                });
            }
            Ok(out)
        })
    }

    fn load_since(&self, id: TournamentId, from: u64) -> StoreFuture<'_, Option<StoredTournament>> {
        Box::pin(async move {
            let mut tails = self.load_tails(vec![(id, from)]).await?;
            Ok(tails.pop().flatten())
        })
    }

    fn load_tails(
        &self,
        wants: Vec<(TournamentId, u64)>,
    ) -> StoreFuture<'_, Vec<Option<StoredTournament>>> {
        Box::pin(async move {
            if wants.is_empty() {
                return Ok(Vec::new());
            }
            let ids: Vec<i64> = wants.iter().map(|w| w.0).collect();
            let froms: Vec<i64> = wants.iter().map(|w| w.1 as i64).collect();
            let (epoch, sign) = self.shared.to_sign(&ids);
            let rows = self
                .read(async |r: &mut Reader| {
                    let Some((channel, unsigned)) = &sign else {
                        // All signed up already, or no listener to sign up (the caller reads
                        // again once there is one: see `feed_epoch`).
                        return r.client.query(&r.tails, &[&ids, &froms]).await;
                    };
                    // Signed up, then read, in one transaction (see WATCH), pipelined. A
                    // deadlock or serialization failure is tried again, as the writer's are.
                    let watch_params: [&(dyn ToSql + Sync); 2] = [unsigned, channel];
                    let tails_params: [&(dyn ToSql + Sync); 2] = [&ids, &froms];
                    let mut tries = 0;
                    loop {
                        tries += 1;
                        let (began, watched, rows, committed) = futures::join!(
                            r.client.batch_execute("BEGIN"),
                            r.client.execute(&r.watch, &watch_params),
                            r.client.query(&r.tails, &tails_params),
                            r.client.batch_execute("COMMIT"),
                        );
                        let rows = began.and(watched).and(rows);
                        if rows.is_err() && committed.is_err() {
                            let _ = r.client.batch_execute("ROLLBACK").await;
                        }
                        match rows {
                            Err(e) if retryable(&e) && tries < BATCH_TRIES => continue,
                            rows => {
                                let rows = rows?;
                                committed?;
                                return Ok(rows);
                            }
                        }
                    }
                })
                .await?;
            if let Some((_, unsigned)) = sign {
                self.shared.signed(epoch, unsigned);
            }
            tails(&wants, rows)
        })
    }

    fn heads(&self) -> StoreFuture<'_, Vec<LogHead>> {
        Box::pin(async move {
            let rows = self
                .read(async |r: &mut Reader| {
                    r.client
                        .query(
                            "SELECT id, kind, next_seq FROM tournaments ORDER BY id",
                            &[],
                        )
                        .await
                })
                .await?;
            rows.into_iter()
                .map(|row| {
                    let id: TournamentId = row.get(0);
                    let kind: String = row.get(1);
                    let head: i64 = row.get(2);
                    let kind = LogKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                        id,
                        seq: 0,
                        message: format!("unknown log kind {kind:?}"),
                    })?;
                    Ok(LogHead {
                        id,
                        kind,
                        head: head.max(0) as u64,
                    })
                })
                .collect()
        })
    }

    fn load_page(
        &self,
        id: TournamentId,
        from: u64,
        max_events: usize,
        max_bytes: usize,
    ) -> StoreFuture<'_, Option<LogPage>> {
        Box::pin(async move {
            // Halves of the range, so that `$2 + $3` in the statement cannot overflow; no
            // log comes near either.
            let half = i64::MAX / 2;
            let from_seq = i64::try_from(from).unwrap_or(half).min(half);
            let limit = i64::try_from(max_events.max(1)).unwrap_or(half).min(half);
            let bytes = i64::try_from(max_bytes).unwrap_or(i64::MAX);
            let rows = self
                .read(async |r: &mut Reader| {
                    r.client
                        .query(&r.page, &[&id, &from_seq, &limit, &bytes])
                        .await
                })
                .await?;
            let Some(first) = rows.first() else {
                return Ok(None);
            };
            let kind: String = first.get(0);
            let head: i64 = first.get(1);
            let kind = LogKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                id,
                seq: 0,
                message: format!("unknown log kind {kind:?}"),
            })?;
            let mut events = Vec::with_capacity(rows.len());
            for row in rows {
                let Some(seq) = row.get::<_, Option<i64>>(2) else {
                    continue;
                };
                let expected = from + events.len() as u64;
                if seq != expected as i64 {
                    return Err(StoreError::Corrupt {
                        id,
                        seq: seq as u64,
                        message: format!("expected seq {expected}"),
                    });
                }
                events.push(row.get(3));
            }
            Ok(Some(LogPage {
                kind,
                head: head.max(0) as u64,
                events,
            }))
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
        self.listener.abort();
        self.send(|reply| Job::Close { reply })
    }

    fn changes(&self) -> Option<broadcast::Receiver<HeadChange>> {
        Some(self.feed.subscribe())
    }

    fn rating_list_versions(&self) -> StoreFuture<'_, Vec<super::RatingListVersion>> {
        Box::pin(
            self.read(async |r: &mut Reader| super::rating_lists::pg_versions(&r.client).await),
        )
    }

    fn rating_list(&self, kind: &str) -> StoreFuture<'_, Option<super::StoredRatingList>> {
        let kind = kind.to_string();
        Box::pin(async move {
            // A connection of its own: megabytes of a list do not hold up the reads of
            // tournaments on the read connection.
            let client = self.own_connection().await?;
            super::rating_lists::pg_list(&client, &kind)
                .await
                .map_err(pg)
        })
    }

    fn replace_rating_list(&self, list: super::StoredRatingList) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let client = self.own_connection().await?;
            super::rating_lists::pg_replace(&client, &list)
                .await
                .map_err(pg)
        })
    }

    fn feed_epoch(&self) -> u64 {
        self.shared.epoch.load(Ordering::Acquire)
    }
}

/// A loaded log whose head agrees with its events (`from` is the first event's seq).
fn checked(
    id: TournamentId,
    kind: String,
    next: i64,
    from: u64,
    events: Vec<String>,
) -> Result<StoredTournament, StoreError> {
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
    Ok(StoredTournament { id, kind, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append_job(id: TournamentId) -> Job {
        Job::Append {
            id,
            first_seq: 0,
            rows: Vec::new(),
            reply: oneshot::channel().0,
        }
    }

    #[test]
    fn a_batch_takes_what_is_queued_and_stops_at_a_close() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for id in 1..=3 {
            tx.send(append_job(id)).ok();
        }
        let mut batch = Vec::new();
        assert!(!take_queued(&mut rx, &mut batch));
        assert_eq!(batch.len(), 3);

        tx.send(append_job(4)).ok();
        tx.send(Job::Close {
            reply: oneshot::channel().0,
        })
        .ok();
        tx.send(append_job(5)).ok();
        let mut batch = Vec::new();
        assert!(take_queued(&mut rx, &mut batch));
        assert_eq!(batch.len(), 2);
        assert!(matches!(batch[1], Job::Close { .. }));
        // The job behind the close stays queued: it is dropped with the writer's receiver.
        assert!(matches!(rx.try_recv(), Ok(Job::Append { id: 5, .. })));
    }

    #[test]
    fn a_batch_holds_at_most_max_batch_jobs() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for id in 0..(MAX_BATCH as i64 + 10) {
            tx.send(append_job(id)).ok();
        }
        let mut batch = Vec::new();
        assert!(!take_queued(&mut rx, &mut batch));
        assert_eq!(batch.len(), MAX_BATCH);
    }

    #[test]
    fn notification_payloads_parse() {
        let changes = parse_notification(
            "@00000000000000ab 7:tournament:1 12:-:6 9:-:-1 bad 3:matchmaker",
            "@00000000000000cd",
        );
        assert_eq!(
            changes,
            vec![
                HeadChange {
                    id: 7,
                    kind: Some(LogKind::Tournament),
                    head: Some(1)
                },
                HeadChange {
                    id: 12,
                    kind: None,
                    head: Some(6)
                },
                HeadChange {
                    id: 9,
                    kind: None,
                    head: None
                },
            ]
        );
        // A payload without a mark (an older daemon's) is another daemon's.
        assert_eq!(parse_notification("5:-:2", "@00000000000000cd").len(), 1);
    }

    #[test]
    fn a_store_skips_its_own_notifications_only() {
        let own = origin_mark();
        let other = origin_mark();
        assert_ne!(own, other);
        assert_eq!(own.len(), 17);
        assert!(parse_notification(&format!("{own} 7:-:3 8:-:4"), &own).is_empty());
        assert_eq!(
            parse_notification(&format!("{other} 7:-:3 8:-:4"), &own).len(),
            2
        );
    }
}
