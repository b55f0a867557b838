//! `goswiss db copy`: copies every tournament log from one database to another (SQLite or
//! PostgreSQL on either side) with ids, sequence numbers, kinds, bodies and timestamps intact,
//! then reads the target back and checks it against the source.
//!
//! Why not through the [`Store`](super::Store) trait: the trait hands out new ids and stamps
//! new times, and a copy must keep both. So each side is a plain connection to a database whose
//! schema is this build's (the target is created or migrated first, the source must already
//! be current: a copy never writes to its source).
//!
//! The whole copy is one transaction on the target: a failure leaves it as it was. Events are
//! streamed from the source in chunks, so the copy's memory is one chunk plus a small summary
//! per tournament (its head and a running checksum), not the whole database.
//!
//! A target that already holds tournaments is refused; `force` replaces its contents (in the
//! same transaction). The id counter never goes back: after the copy the target hands out ids
//! above both the source's and its own earlier ones, so a deleted tournament's id is never
//! given out again on either side.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use futures::StreamExt as _;

use super::{postgres, redacted, sqlite};

/// Events per insert statement.
const CHUNK: usize = 2000;

/// What a copy did, for the summary line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopySummary {
    pub matchmaker: u64,
    pub tournament: u64,
    pub events: u64,
    /// Tournaments the target held before (replaced with `force`).
    pub replaced: u64,
    /// The next id the target will hand out.
    pub next_id: i64,
}

impl std::fmt::Display for CopySummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "copied {} tournaments ({} matchmaker, {} tournament) and {} events; \
             read back: every count and checksum matches; next id {}",
            self.matchmaker + self.tournament,
            self.matchmaker,
            self.tournament,
            self.events,
            self.next_id
        )?;
        if self.replaced > 0 {
            write!(f, "; replaced {} tournaments", self.replaced)?;
        }
        Ok(())
    }
}

/// One row of `tournaments`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Head {
    id: i64,
    kind: String,
    created_at: i64,
    next_seq: i64,
    /// Whom it counts against for the creation quotas (`rpc::auth`): kept, so a copy keeps the
    /// counts.
    owner: Option<String>,
}

/// One row of `events`.
struct Row {
    tid: i64,
    seq: i64,
    kind: String,
    body: String,
    at: i64,
}

/// A log's running summary: the next sequence number expected and a checksum of its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sum {
    next: i64,
    hash: u64,
}

impl Default for Sum {
    fn default() -> Sum {
        Sum {
            next: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }
}

impl Sum {
    /// FNV-1a over every column of the event, each field delimited so that moving bytes
    /// between fields changes the sum.
    fn add(&mut self, row: &Row) {
        let mut h = self.hash;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(&row.seq.to_le_bytes());
        eat(&(row.kind.len() as u64).to_le_bytes());
        eat(row.kind.as_bytes());
        eat(&(row.body.len() as u64).to_le_bytes());
        eat(row.body.as_bytes());
        eat(&row.at.to_le_bytes());
        self.hash = h;
        self.next += 1;
    }
}

enum Db {
    Sqlite(rusqlite::Connection),
    Postgres(tokio_postgres::Client),
}

fn sql(e: rusqlite::Error) -> anyhow::Error {
    anyhow!("SQLite: {e}")
}

fn pg(e: tokio_postgres::Error) -> anyhow::Error {
    match e.as_db_error() {
        Some(d) => anyhow!("PostgreSQL: {}", d.message()),
        None => anyhow!("PostgreSQL: {e}"),
    }
}

fn version_error(found: i64, expected: i64, what: &str) -> anyhow::Error {
    if found > expected {
        anyhow!(
            "{what}: schema version {found} is newer than this goswiss ({expected}); \
             copy it with the goswiss that wrote it"
        )
    } else {
        anyhow!(
            "{what}: schema version {found}, this goswiss needs {expected}; run `goswiss serve` \
             on it once to migrate it, then copy"
        )
    }
}

async fn pg_connect(url: &str) -> anyhow::Result<tokio_postgres::Client> {
    let config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| anyhow!("bad PostgreSQL URL: {e}"))?;
    postgres::connect(&config)
        .await
        .map_err(|e| anyhow!("cannot reach {}: {e}", redacted(url)))
}

impl Db {
    /// The source: must exist, be a goswiss database and have this build's schema. Opened
    /// read-only where the database allows it.
    async fn source(db: &str) -> anyhow::Result<Db> {
        let what = format!("source {}", redacted(db));
        if postgres::is_url(db) {
            let client = pg_connect(db).await?;
            let exists: bool = client
                .query_one("SELECT to_regclass('goswiss_schema') IS NOT NULL", &[])
                .await
                .map_err(pg)
                .with_context(|| what.clone())?
                .get(0);
            if !exists {
                bail!("{what} is not a goswiss database (no goswiss_schema table)");
            }
            let version: i64 = client
                .query_one("SELECT version FROM goswiss_schema", &[])
                .await
                .map_err(pg)
                .with_context(|| what.clone())?
                .get(0);
            if version != postgres::SCHEMA_VERSION {
                return Err(version_error(version, postgres::SCHEMA_VERSION, &what));
            }
            // One snapshot for the heads and the events, and no writes by mistake.
            client
                .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                .await
                .map_err(pg)
                .with_context(|| what.clone())?;
            Ok(Db::Postgres(client))
        } else {
            let path = Path::new(db.strip_prefix("sqlite:").unwrap_or(db));
            if !path.is_file() {
                bail!("{what}: no such database file");
            }
            let conn = rusqlite::Connection::open_with_flags(
                path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(sql)
            .with_context(|| what.clone())?;
            conn.busy_timeout(Duration::from_secs(10)).map_err(sql)?;
            let tables: i64 = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('tournaments', 'events')",
                    [],
                    |r| r.get(0),
                )
                .map_err(sql)
                .with_context(|| what.clone())?;
            if tables != 2 {
                bail!("{what} is not a goswiss database (no tournaments and events tables)");
            }
            let version: i64 = conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(sql)?;
            if version != sqlite::SCHEMA_VERSION {
                return Err(version_error(version, sqlite::SCHEMA_VERSION, &what));
            }
            // A read transaction: one snapshot even if a daemon is still writing.
            conn.execute_batch("BEGIN").map_err(sql)?;
            Ok(Db::Sqlite(conn))
        }
    }

    /// The target: created if missing and brought up to this build's schema.
    async fn target(db: &str) -> anyhow::Result<Db> {
        let what = format!("target {}", redacted(db));
        if postgres::is_url(db) {
            let mut client = pg_connect(db).await?;
            postgres::migrate(&mut client)
                .await
                .map_err(|e| anyhow!("{what}: {e}"))?;
            Ok(Db::Postgres(client))
        } else {
            let path = Path::new(db.strip_prefix("sqlite:").unwrap_or(db));
            let conn = sqlite::open_connection(path, &sqlite::OpenOptions::default())
                .map_err(|e| anyhow!("{what}: {e}"))?;
            Ok(Db::Sqlite(conn))
        }
    }

    async fn begin(&mut self) -> anyhow::Result<()> {
        match self {
            Db::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE").map_err(sql),
            Db::Postgres(c) => c.batch_execute("BEGIN").await.map_err(pg),
        }
    }

    async fn commit(&mut self) -> anyhow::Result<()> {
        match self {
            Db::Sqlite(c) => c.execute_batch("COMMIT").map_err(sql),
            Db::Postgres(c) => c.batch_execute("COMMIT").await.map_err(pg),
        }
    }

    async fn heads(&self) -> anyhow::Result<Vec<Head>> {
        const Q: &str = "SELECT id, kind, created_at, next_seq, owner FROM tournaments ORDER BY id";
        match self {
            Db::Sqlite(c) => {
                let mut st = c.prepare(Q).map_err(sql)?;
                let rows = st
                    .query_map([], |r| {
                        Ok(Head {
                            id: r.get(0)?,
                            kind: r.get(1)?,
                            created_at: r.get(2)?,
                            next_seq: r.get(3)?,
                            owner: r.get(4)?,
                        })
                    })
                    .map_err(sql)?;
                rows.collect::<Result<_, _>>().map_err(sql)
            }
            Db::Postgres(c) => Ok(c
                .query(Q, &[])
                .await
                .map_err(pg)?
                .into_iter()
                .map(|r| Head {
                    id: r.get(0),
                    kind: r.get(1),
                    created_at: r.get(2),
                    next_seq: r.get(3),
                    owner: r.get(4),
                })
                .collect()),
        }
    }

    /// The id the database would hand out next (deleted ids included: they are never reused).
    async fn next_id(&self) -> anyhow::Result<i64> {
        match self {
            Db::Sqlite(c) => {
                let last: Option<i64> = c
                    .query_row(
                        "SELECT seq FROM sqlite_sequence WHERE name = 'tournaments'",
                        [],
                        |r| r.get(0),
                    )
                    .or_else(|e| match e {
                        rusqlite::Error::QueryReturnedNoRows => Ok(None),
                        e => Err(e),
                    })
                    .map_err(sql)?;
                Ok(last.unwrap_or(0) + 1)
            }
            Db::Postgres(c) => {
                let seq = pg_sequence(c).await?;
                let row = c
                    .query_one(&format!("SELECT last_value, is_called FROM {seq}"), &[])
                    .await
                    .map_err(pg)?;
                let (last, called): (i64, bool) = (row.get(0), row.get(1));
                Ok(if called { last + 1 } else { last })
            }
        }
    }

    async fn set_next_id(&mut self, next: i64) -> anyhow::Result<()> {
        match self {
            Db::Sqlite(c) => {
                let n = c
                    .execute(
                        "UPDATE sqlite_sequence SET seq = ?1 WHERE name = 'tournaments'",
                        [next - 1],
                    )
                    .map_err(sql)?;
                if n == 0 {
                    c.execute(
                        "INSERT INTO sqlite_sequence (name, seq) VALUES ('tournaments', ?1)",
                        [next - 1],
                    )
                    .map_err(sql)?;
                }
                Ok(())
            }
            Db::Postgres(c) => {
                let seq = pg_sequence(c).await?;
                // setval(s, n, false): the next nextval returns n.
                c.execute(
                    "SELECT setval($1::text::regclass, $2, false)",
                    &[&seq, &next],
                )
                .await
                .map_err(pg)?;
                Ok(())
            }
        }
    }

    /// Empties the target (inside the copy's transaction); returns how many tournaments it held.
    async fn clear(&mut self) -> anyhow::Result<u64> {
        match self {
            Db::Sqlite(c) => {
                c.execute("DELETE FROM events", []).map_err(sql)?;
                Ok(c.execute("DELETE FROM tournaments", []).map_err(sql)? as u64)
            }
            Db::Postgres(c) => {
                c.execute("DELETE FROM events", &[]).await.map_err(pg)?;
                c.execute("DELETE FROM tournaments", &[]).await.map_err(pg)
            }
        }
    }

    async fn insert_heads(&mut self, heads: &[Head]) -> anyhow::Result<()> {
        match self {
            Db::Sqlite(c) => {
                let mut st = c
                    .prepare_cached(
                        "INSERT INTO tournaments (id, kind, created_at, next_seq, owner) \
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )
                    .map_err(sql)?;
                for h in heads {
                    st.execute(rusqlite::params![
                        h.id,
                        h.kind,
                        h.created_at,
                        h.next_seq,
                        h.owner
                    ])
                    .map_err(sql)?;
                }
                Ok(())
            }
            Db::Postgres(c) => {
                for chunk in heads.chunks(CHUNK) {
                    let ids: Vec<i64> = chunk.iter().map(|h| h.id).collect();
                    let kinds: Vec<&str> = chunk.iter().map(|h| h.kind.as_str()).collect();
                    let created: Vec<i64> = chunk.iter().map(|h| h.created_at).collect();
                    let next: Vec<i64> = chunk.iter().map(|h| h.next_seq).collect();
                    let owners: Vec<Option<&str>> =
                        chunk.iter().map(|h| h.owner.as_deref()).collect();
                    c.execute(
                        "INSERT INTO tournaments (id, kind, created_at, next_seq, owner) \
                         SELECT * FROM unnest($1::int8[], $2::text[], $3::int8[], $4::int8[], \
                         $5::text[])",
                        &[&ids, &kinds, &created, &next, &owners],
                    )
                    .await
                    .map_err(pg)?;
                }
                Ok(())
            }
        }
    }

    async fn insert_events(&mut self, rows: &[Row]) -> anyhow::Result<()> {
        match self {
            Db::Sqlite(c) => {
                let mut st = c
                    .prepare_cached(
                        "INSERT INTO events (tournament_id, seq, kind, body, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    )
                    .map_err(sql)?;
                for r in rows {
                    st.execute(rusqlite::params![r.tid, r.seq, r.kind, r.body, r.at])
                        .map_err(sql)?;
                }
                Ok(())
            }
            Db::Postgres(c) => {
                let tids: Vec<i64> = rows.iter().map(|r| r.tid).collect();
                let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
                let kinds: Vec<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
                let bodies: Vec<&str> = rows.iter().map(|r| r.body.as_str()).collect();
                let ats: Vec<i64> = rows.iter().map(|r| r.at).collect();
                c.execute(
                    "INSERT INTO events (tournament_id, seq, kind, body, at) \
                     SELECT * FROM unnest($1::int8[], $2::int8[], $3::text[], $4::text[], $5::int8[])",
                    &[&tids, &seqs, &kinds, &bodies, &ats],
                )
                .await
                .map_err(pg)?;
                Ok(())
            }
        }
    }

    /// Every event, each tournament's in seq order, handed to `sink` in chunks.
    async fn scan(&self, sink: &mut impl Sink) -> anyhow::Result<()> {
        let mut chunk = Vec::with_capacity(CHUNK);
        match self {
            Db::Sqlite(c) => {
                // Append order: each tournament's events come in seq order (the rowid table
                // is appended to in seq order), and the scan needs no index.
                let mut st = c
                    .prepare("SELECT tournament_id, seq, kind, body, at FROM events ORDER BY id")
                    .map_err(sql)?;
                let mut rows = st.query([]).map_err(sql)?;
                while let Some(r) = rows.next().map_err(sql)? {
                    chunk.push(Row {
                        tid: r.get(0).map_err(sql)?,
                        seq: r.get(1).map_err(sql)?,
                        kind: r.get(2).map_err(sql)?,
                        body: r.get(3).map_err(sql)?,
                        at: r.get(4).map_err(sql)?,
                    });
                    if chunk.len() == CHUNK {
                        sink.take(std::mem::take(&mut chunk)).await?;
                    }
                }
            }
            Db::Postgres(c) => {
                let rows = c
                    .query_raw(
                        "SELECT tournament_id, seq, kind, body, at FROM events ORDER BY tournament_id, seq",
                        std::iter::empty::<i64>(),
                    )
                    .await
                    .map_err(pg)?;
                let mut rows = std::pin::pin!(rows);
                while let Some(r) = rows.next().await {
                    let r = r.map_err(pg)?;
                    chunk.push(Row {
                        tid: r.get(0),
                        seq: r.get(1),
                        kind: r.get(2),
                        body: r.get(3),
                        at: r.get(4),
                    });
                    if chunk.len() == CHUNK {
                        sink.take(std::mem::take(&mut chunk)).await?;
                    }
                }
            }
        }
        if !chunk.is_empty() {
            sink.take(chunk).await?;
        }
        Ok(())
    }
}

/// The sequence behind `tournaments.id`, as a quoted name PostgreSQL gave.
async fn pg_sequence(c: &tokio_postgres::Client) -> anyhow::Result<String> {
    let name: Option<String> = c
        .query_one("SELECT pg_get_serial_sequence('tournaments', 'id')", &[])
        .await
        .map_err(pg)?
        .get(0);
    name.ok_or_else(|| anyhow!("tournaments.id has no sequence"))
}

trait Sink {
    async fn take(&mut self, rows: Vec<Row>) -> anyhow::Result<()>;
}

/// Checks each log is gap-free and sums it, keyed by tournament id.
#[derive(Default)]
struct Sums {
    logs: BTreeMap<i64, Sum>,
    events: u64,
}

impl Sums {
    fn add(&mut self, rows: &[Row], side: &str) -> anyhow::Result<()> {
        for r in rows {
            let sum = self.logs.entry(r.tid).or_default();
            if r.seq != sum.next {
                bail!(
                    "{side}: tournament {} has event {} where {} was expected (a gap or a duplicate)",
                    r.tid,
                    r.seq,
                    sum.next
                );
            }
            sum.add(r);
        }
        self.events += rows.len() as u64;
        Ok(())
    }

    /// Every log agrees with its head, and no event belongs to a tournament without one.
    fn check(&self, heads: &[Head], side: &str) -> anyhow::Result<()> {
        for h in heads {
            let n = self.logs.get(&h.id).map_or(0, |s| s.next);
            if n != h.next_seq {
                bail!(
                    "{side}: tournament {} has {n} events but its head says {}",
                    h.id,
                    h.next_seq
                );
            }
        }
        if self.logs.len() > heads.len()
            || self
                .logs
                .keys()
                .any(|id| heads.binary_search_by_key(id, |h| h.id).is_err())
        {
            bail!("{side}: events of a tournament it does not list");
        }
        Ok(())
    }
}

struct Verify(Sums);

impl Sink for Verify {
    async fn take(&mut self, rows: Vec<Row>) -> anyhow::Result<()> {
        self.0.add(&rows, "target after the copy")
    }
}

struct Writer<'a> {
    target: &'a mut Db,
    sums: Sums,
}

impl Sink for Writer<'_> {
    async fn take(&mut self, rows: Vec<Row>) -> anyhow::Result<()> {
        self.sums.add(&rows, "source")?;
        self.target.insert_events(&rows).await
    }
}

/// Copies every log of `from` into `to` (paths or `postgres://` URLs) and checks the result;
/// `force` replaces a non-empty target. The target is unchanged if anything fails.
pub async fn copy(from: &str, to: &str, force: bool) -> anyhow::Result<CopySummary> {
    if from == to {
        bail!("--from and --to name the same database");
    }
    let source = Db::source(from).await?;
    let mut target = Db::target(to).await?;
    let heads = source.heads().await.context("reading the source")?;
    for h in &heads {
        if super::LogKind::parse(&h.kind).is_none() {
            bail!(
                "source: tournament {} has an unknown kind {:?}",
                h.id,
                h.kind
            );
        }
    }
    let source_next = source.next_id().await.context("reading the source")?;

    let what = format!("writing {}", redacted(to));
    target.begin().await.context(what.clone())?;
    let held = target.heads().await.context(what.clone())?.len() as u64;
    if held > 0 && !force {
        bail!(
            "the target {} already holds {held} tournaments; pass --force to replace them",
            redacted(to)
        );
    }
    let target_next = target.next_id().await.context(what.clone())?;
    let replaced = if held > 0 {
        target.clear().await.context(what.clone())?
    } else {
        0
    };
    target.insert_heads(&heads).await.context(what.clone())?;
    let mut writer = Writer {
        target: &mut target,
        sums: Sums::default(),
    };
    source.scan(&mut writer).await.context(what.clone())?;
    let sums = writer.sums;
    sums.check(&heads, "source")?;
    let max_id = heads.last().map_or(0, |h| h.id);
    let next_id = source_next.max(target_next).max(max_id + 1);
    target.set_next_id(next_id).await.context(what.clone())?;
    target.commit().await.context(what)?;

    // Read everything back from the committed target and compare.
    let copied = target.heads().await.context("reading the target back")?;
    if copied != heads {
        bail!("the target's tournaments differ from the source's after the copy");
    }
    let mut verify = Verify(Sums::default());
    target
        .scan(&mut verify)
        .await
        .context("reading the target back")?;
    verify.0.check(&copied, "target after the copy")?;
    if verify.0.events != sums.events || verify.0.logs != sums.logs {
        let bad = sums
            .logs
            .iter()
            .find(|(id, s)| verify.0.logs.get(id) != Some(s))
            .map_or(0, |(id, _)| *id);
        bail!("tournament {bad}: the target's events differ from the source's after the copy");
    }
    let next = target.next_id().await.context("reading the target back")?;
    if next < next_id {
        bail!("the target would hand out id {next}, below {next_id}");
    }
    let count = |k: &str| heads.iter().filter(|h| h.kind == k).count() as u64;
    Ok(CopySummary {
        matchmaker: count("matchmaker"),
        tournament: count("tournament"),
        events: sums.events,
        replaced,
        next_id: next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: i64, body: &str) -> Row {
        Row {
            tid: 1,
            seq,
            kind: "k".into(),
            body: body.into(),
            at: 5,
        }
    }

    #[test]
    fn sums_see_every_field_and_gaps() {
        let mut a = Sums::default();
        a.add(&[row(0, "ab"), row(1, "c")], "x").unwrap();
        let mut b = Sums::default();
        b.add(&[row(0, "a"), row(1, "bc")], "x").unwrap();
        assert_ne!(a.logs, b.logs, "bytes moved between events change the sum");
        let mut c = Sums::default();
        let mut r = row(0, "ab");
        r.at = 6;
        c.add(&[r, row(1, "c")], "x").unwrap();
        assert_ne!(a.logs, c.logs, "the timestamp is summed");
        let mut gap = Sums::default();
        assert!(gap.add(&[row(0, "a"), row(2, "b")], "x").is_err());
        let head = |n| Head {
            id: 1,
            kind: "matchmaker".into(),
            created_at: 0,
            next_seq: n,
            owner: None,
        };
        assert!(a.check(&[head(2)], "x").is_ok());
        assert!(a.check(&[head(3)], "x").is_err());
        assert!(a.check(&[], "x").is_err());
    }
}
