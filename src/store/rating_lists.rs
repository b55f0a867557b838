//! The imported rating lists in the database (`rating_lists`, migrations `*_rating_lists.sql`):
//! one row per list kind holding the file as imported, replaced whole by a newer import.
//!
//! Why beside the stores' writers rather than through them: a list is a few megabytes written
//! a few times a year, not an event of a tournament's log, and it must not hold up the group
//! commits of every tournament behind it. SQLite gets a connection of its own for each such
//! call (WAL lets it read beside the writer; its write waits for the writer's transaction
//! like any second writer, `synchronous=FULL` like the writer's); PostgreSQL a connection of
//! its own to read or write a list, and the store's read connection for the small version
//! query. The same code serves `goswiss ratings import`, which works on the database
//! directly, as `goswiss db copy` does.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::StoreError;

/// A list as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRatingList {
    /// "egf", "ffg" or "aga".
    pub kind: String,
    /// When it was imported, in milliseconds since the epoch.
    pub imported_at: i64,
    /// SHA-256 of `data`, hex.
    pub digest: String,
    /// The date the file gives itself, as it writes it.
    pub list_date: Option<String>,
    /// The rows read from it at import.
    pub entries: i64,
    /// Where it came from (a file name; empty when not told).
    pub source: String,
    /// The file (unpacked), in its own encoding.
    pub data: Vec<u8>,
}

/// Which import of a list the database holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatingListVersion {
    pub kind: String,
    pub imported_at: i64,
    pub digest: String,
}

pub(crate) fn unsupported() -> StoreError {
    StoreError::Database("this store keeps no rating lists".into())
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

const UPSERT_SQLITE: &str = "INSERT INTO rating_lists \
     (kind, imported_at, digest, list_date, entries, source, data) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
     ON CONFLICT (kind) DO UPDATE SET imported_at = excluded.imported_at, \
     digest = excluded.digest, list_date = excluded.list_date, entries = excluded.entries, \
     source = excluded.source, data = excluded.data";

const UPSERT_PG: &str = "INSERT INTO rating_lists \
     (kind, imported_at, digest, list_date, entries, source, data) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) \
     ON CONFLICT (kind) DO UPDATE SET imported_at = excluded.imported_at, \
     digest = excluded.digest, list_date = excluded.list_date, entries = excluded.entries, \
     source = excluded.source, data = excluded.data";

const VERSIONS: &str = "SELECT kind, imported_at, digest FROM rating_lists ORDER BY kind";

const ONE: &str = "SELECT kind, imported_at, digest, list_date, entries, source, data \
     FROM rating_lists WHERE kind = ";

/// A connection of its own to the SQLite file `path` (already created and migrated by the
/// store's writer).
fn sqlite_connection(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::Database(format!("opening {}: {e}", path.display())))?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
    // Per connection, as the writer's: a committed import survives a power cut.
    conn.execute_batch("PRAGMA synchronous = FULL")
        .map_err(db)?;
    Ok(conn)
}

/// Runs `f` on a fresh connection to `path`, on the blocking pool.
async fn on_sqlite<T: Send + 'static>(
    path: &Path,
    f: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || f(&sqlite_connection(&path)?))
        .await
        .map_err(|e| StoreError::Database(format!("rating list task: {e}")))?
}

pub(crate) async fn sqlite_versions(path: &Path) -> Result<Vec<RatingListVersion>, StoreError> {
    on_sqlite(path, |c| {
        let mut stmt = c.prepare(VERSIONS).map_err(db)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(RatingListVersion {
                    kind: r.get(0)?,
                    imported_at: r.get(1)?,
                    digest: r.get(2)?,
                })
            })
            .map_err(db)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(db)
    })
    .await
}

pub(crate) async fn sqlite_list(
    path: &Path,
    kind: &str,
) -> Result<Option<StoredRatingList>, StoreError> {
    let kind = kind.to_string();
    on_sqlite(path, move |c| {
        c.query_row(&format!("{ONE}?1"), [kind], |r| {
            Ok(StoredRatingList {
                kind: r.get(0)?,
                imported_at: r.get(1)?,
                digest: r.get(2)?,
                list_date: r.get(3)?,
                entries: r.get(4)?,
                source: r.get(5)?,
                data: r.get(6)?,
            })
        })
        .optional()
        .map_err(db)
    })
    .await
}

pub(crate) async fn sqlite_replace(path: &Path, list: StoredRatingList) -> Result<(), StoreError> {
    on_sqlite(path, move |c| {
        c.execute(
            UPSERT_SQLITE,
            params![
                list.kind,
                list.imported_at,
                list.digest,
                list.list_date,
                list.entries,
                list.source,
                list.data
            ],
        )
        .map(|_| ())
        .map_err(db)
    })
    .await
}

pub(crate) async fn pg_versions(
    client: &tokio_postgres::Client,
) -> Result<Vec<RatingListVersion>, tokio_postgres::Error> {
    Ok(client
        .query(VERSIONS, &[])
        .await?
        .into_iter()
        .map(|r| RatingListVersion {
            kind: r.get(0),
            imported_at: r.get(1),
            digest: r.get(2),
        })
        .collect())
}

pub(crate) async fn pg_list(
    client: &tokio_postgres::Client,
    kind: &str,
) -> Result<Option<StoredRatingList>, tokio_postgres::Error> {
    Ok(client
        .query_opt(&format!("{ONE}$1"), &[&kind])
        .await?
        .map(|r| StoredRatingList {
            kind: r.get(0),
            imported_at: r.get(1),
            digest: r.get(2),
            list_date: r.get(3),
            entries: r.get(4),
            source: r.get(5),
            data: r.get(6),
        }))
}

pub(crate) async fn pg_replace(
    client: &tokio_postgres::Client,
    list: &StoredRatingList,
) -> Result<(), tokio_postgres::Error> {
    client
        .execute(
            UPSERT_PG,
            &[
                &list.kind,
                &list.imported_at,
                &list.digest,
                &list.list_date,
                &list.entries,
                &list.source,
                &list.data,
            ],
        )
        .await
        .map(|_| ())
}
