//! `ratings.*`: the rating lists of the registration desk (src/ratings) over both protocols,
//! and the lists a daemon keeps in memory ([`Lists`]).
//!
//! An import reads the file (plain, gzip or ZIP; text, or base64 for the lists' own
//! single-byte encodings) on the heavy-work pool under the call's budget, stores it in the
//! database in one statement that replaces the list of its kind, and only then swaps the new
//! index in: a search sees the old list or the new one, never a mix, and a list the daemon
//! searches is one the database holds. At start the daemon loads every stored list, and it
//! looks for newer imports (another daemon on the same PostgreSQL, `goswiss ratings import`
//! on its database) every [`REFRESH_EVERY`] and at each `ratings.info`. A search runs inline:
//! a few binary searches per list, well under a millisecond on the full EGF list
//! (benches/ratings.rs). Codes 1201–1204 (README).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::ratings::{self, Index, Kind, ListError, Query, index::best};
use crate::rpc::error::store_error;
use crate::rpc::{Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::store::{Store, StoreError, StoredRatingList};

/// This namespace's error codes (README "Error codes").
pub mod codes {
    /// Not a list kind: "egf", "ffg", "aga" (and "all" for a search).
    pub const UNKNOWN_KIND: i32 = 1201;
    /// The file does not read as a list of that kind (no row reads, it cannot be unpacked).
    pub const UNREADABLE: i32 = 1202;
    /// Over a cap: the list's bytes or rows, a query's length, a search's limit.
    pub const OVER_CAP: i32 = 1203;
    /// No list of that kind (or none at all) has been imported.
    pub const NO_LIST: i32 = 1204;
}

/// Entries a search answers unless told.
pub const DEFAULT_LIMIT: u64 = 10;
/// Most entries a search answers.
pub const MAX_LIMIT: u64 = 100;
/// Longest query, in characters (the longest name in the EGF list has about 40).
pub const MAX_QUERY_CHARS: usize = 100;
/// Longest `source` kept with an import, in characters (longer is cut).
pub const MAX_SOURCE_CHARS: usize = 200;
/// How often a daemon looks for lists imported by others into its database.
pub const REFRESH_EVERY: Duration = Duration::from_secs(60);

/// One list as the daemon holds it: the index the searches use and which import it is.
pub struct Loaded {
    pub index: Index,
    /// Milliseconds since the epoch.
    pub imported_at: i64,
    pub digest: String,
    pub source: String,
}

impl Loaded {
    /// What `ratings.info` and `ratings.import` say of it (no nil: XML-RPC clients of rswiss
    /// reject `<nil/>`, so an absent date is an absent member).
    pub fn describe(&self) -> Value {
        let list = self.index.list();
        let (skipped, skipped_lines) = list.skipped();
        let mut v = json!({
            "kind": list.kind().as_str(),
            "entries": list.len(),
            "lines": list.lines(),
            "skipped": skipped,
            "skipped_lines": skipped_lines,
            "imported_at": iso_time(self.imported_at),
            "source": self.source,
            "digest": self.digest,
        });
        if let Some(d) = list.list_date() {
            v["list_date"] = json!(d);
        }
        if let Some(d) = list.list_date_iso() {
            v["list_date_iso"] = json!(d);
        }
        v
    }
}

/// A list read and indexed, ready to be stored and swapped in.
pub struct Prepared {
    pub stored: StoredRatingList,
    pub index: Index,
}

impl Prepared {
    fn into_parts(self) -> (StoredRatingList, Loaded) {
        let loaded = Loaded {
            index: self.index,
            imported_at: self.stored.imported_at,
            digest: self.stored.digest.clone(),
            source: self.stored.source.clone(),
        };
        (self.stored, loaded)
    }
}

/// Reads `file` (as downloaded: plain, gzip or ZIP) as a list of `kind`, imported at
/// `imported_at` (ms) from `source`. Pure CPU work: the caller runs it on the blocking pool.
pub fn prepare(
    kind: Kind,
    file: &[u8],
    source: &str,
    imported_at: i64,
) -> Result<Prepared, ListError> {
    let data = ratings::unpack::unpack(kind, file)?.into_owned();
    let list = ratings::parse(kind, &data)?;
    let digest = hex(&Sha256::digest(&data));
    let stored = StoredRatingList {
        kind: kind.as_str().to_string(),
        imported_at,
        digest,
        list_date: list.list_date().map(str::to_string),
        entries: list.len() as i64,
        source: source.chars().take(MAX_SOURCE_CHARS).collect(),
        data,
    };
    Ok(Prepared {
        stored,
        index: Index::new(list),
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn iso_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Days since 1970-01-01 to a civil date, counting in 400-year eras from 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The rating lists a daemon searches, each the one its database holds (or held when last
/// looked at).
#[derive(Default)]
pub struct Lists {
    /// None only for contexts built without a database (unit tests).
    store: Option<Arc<dyn Store>>,
    loaded: RwLock<BTreeMap<Kind, Arc<Loaded>>>,
    /// Imports and refreshes one at a time, so the list swapped in last is the one stored
    /// last.
    writing: tokio::sync::Mutex<()>,
}

impl Lists {
    pub fn new(store: Arc<dyn Store>) -> Lists {
        Lists {
            store: Some(store),
            ..Lists::default()
        }
    }

    fn store(&self) -> Result<&Arc<dyn Store>, StoreError> {
        self.store
            .as_ref()
            .ok_or_else(|| StoreError::Database("no database behind the rating lists".into()))
    }

    /// The lists held now, by kind.
    pub fn snapshot(&self) -> BTreeMap<Kind, Arc<Loaded>> {
        self.loaded
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn put(&self, kind: Kind, list: Arc<Loaded>) -> Option<Arc<Loaded>> {
        self.loaded
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(kind, list)
    }

    /// Loads every list the database holds that differs from the one held (all of them at
    /// start). A stored list this build cannot read is left out with a warning, and the one
    /// held (if any) kept: the daemon starts all the same.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        let store = self.store()?;
        let _one = self.writing.lock().await;
        let held = self.snapshot();
        for version in store.rating_list_versions().await? {
            let Some(kind) = Kind::parse(&version.kind) else {
                tracing::warn!(kind = %version.kind, "unknown rating list kind in the database");
                continue;
            };
            if held
                .get(&kind)
                .is_some_and(|l| l.digest == version.digest && l.imported_at == version.imported_at)
            {
                continue;
            }
            let Some(stored) = store.rating_list(kind.as_str()).await? else {
                continue;
            };
            let (imported_at, digest, source) = (
                stored.imported_at,
                stored.digest.clone(),
                stored.source.clone(),
            );
            let parsed = tokio::task::spawn_blocking(move || {
                ratings::parse(kind, &stored.data).map(Index::new)
            })
            .await;
            match parsed {
                Ok(Ok(index)) => {
                    tracing::info!(
                        list = kind.as_str(),
                        entries = index.list().len(),
                        "rating list loaded"
                    );
                    self.put(
                        kind,
                        Arc::new(Loaded {
                            index,
                            imported_at,
                            digest,
                            source,
                        }),
                    );
                }
                Ok(Err(e)) => {
                    tracing::warn!(list = kind.as_str(), error = %e, "stored rating list unreadable")
                }
                Err(e) => {
                    tracing::error!(list = kind.as_str(), error = %e, "loading a rating list")
                }
            }
        }
        Ok(())
    }

    /// Stores `prepared`, replacing the list of its kind, then searches it: the summary of
    /// the list, and whether it replaced one.
    pub async fn install(&self, prepared: Prepared) -> Result<Value, StoreError> {
        let store = self.store()?;
        let kind = prepared.index.list().kind();
        let (stored, loaded) = prepared.into_parts();
        let _one = self.writing.lock().await;
        store.replace_rating_list(stored).await?;
        let loaded = Arc::new(loaded);
        let replaced = self.put(kind, Arc::clone(&loaded)).is_some();
        let mut summary = loaded.describe();
        summary["replaced"] = json!(replaced);
        Ok(summary)
    }

    /// Looks for newer imports every [`REFRESH_EVERY`] until `stop` turns true.
    pub async fn follow(&self, mut stop: tokio::sync::watch::Receiver<bool>) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(REFRESH_EVERY) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
            if let Err(e) = self.refresh().await {
                tracing::warn!(error = %e, "looking for newer rating lists");
            }
        }
    }
}

pub static METHODS: &[Method] = &[
    Method {
        name: "ratings.import",
        access: Access::Admin,
        params: &[
            Param::req("kind", "string"),
            Param::req("data", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Import a rating list (kind \"egf\", \"ffg\" or \"aga\"; data: the file as text, \
               or base64 with options.base64 — plain, gzip or ZIP; options.source names it), \
               replacing the list of that kind; admin only with auth on.",
        doc: crate::rpc::openrpc::Doc::typed::<doc::RatingImportArgs, doc::RatingListInfo>()
            .errors(&[1201, 1202, 1203, -32010, -32008]),
        handler: Handler::Async(import),
    },
    Method {
        name: "ratings.search",
        access: Access::Public,
        params: &[
            Param::req("kind", "string"),
            Param::req("prefix", "string"),
            Param::opt("limit", "int"),
        ],
        returns: "struct",
        help: "Search a rating list (\"egf\", \"ffg\", \"aga\" or \"all\") by name prefix \
               (\"family given\" or \"given family\", or an id), accent- and case-insensitive: \
               the best `limit` entries (default 10, at most 100), each with the player it fills.",
        doc: crate::rpc::openrpc::Doc::typed::<doc::RatingSearchArgs, doc::RatingSearchAnswer>()
            .errors(&[1201, 1203, 1204]),
        handler: Handler::Sync(search),
    },
    Method {
        name: "ratings.info",
        access: Access::Public,
        params: &[],
        returns: "struct",
        help: "The rating lists held: kind, entries, when imported, the list's own date.",
        doc: crate::rpc::openrpc::Doc::typed::<crate::rpc::openrpc::NoParams, doc::RatingListsHeld>(
        ),
        handler: Handler::Async(info),
    },
];

fn kind_error(given: &str, all: bool) -> RpcError {
    let which = if all {
        "\"egf\", \"ffg\", \"aga\" or \"all\""
    } else {
        "\"egf\", \"ffg\" or \"aga\""
    };
    RpcError::new(
        codes::UNKNOWN_KIND,
        format!(
            "unknown rating list kind {:?}: {which}",
            crate::rpc::error::clip(given, 40)
        ),
    )
}

/// A list error as this namespace's answer.
pub fn list_error(e: ListError) -> RpcError {
    match e {
        ListError::TooBig { .. } | ListError::TooManyRows { .. } => {
            RpcError::new(codes::OVER_CAP, e.to_string())
        }
        ListError::NoRows { .. } | ListError::Unpack(_) => {
            RpcError::new(codes::UNREADABLE, e.to_string())
        }
        ListError::OverBudget => match crate::app::work::current_budget() {
            Some(b) => b.error().into(),
            None => RpcError::new(codes::OVER_CAP, e.to_string()),
        },
    }
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RatingImportOptions")]
pub struct ImportOptions {
    /// `data` is base64 of the file's bytes (the EGF list and the FFG échelle are not UTF-8;
    /// a gzip or ZIP file neither).
    #[serde(default)]
    base64: bool,
    /// Where the file came from (a file name), kept with the list.
    source: Option<String>,
}

fn import(ctx: Arc<Ctx>, p: Params) -> BoxFuture {
    Box::pin(async move {
        let given: String = p.get(0, "kind")?;
        let kind = Kind::parse(&given).ok_or_else(|| kind_error(&given, false))?;
        let opts: ImportOptions = p.opt(2, "options")?.unwrap_or_default();
        let data: String = p.get(1, "data")?;
        let file = if opts.base64 {
            let cleaned: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
            drop(data);
            B64.decode(&cleaned).map_err(|e| {
                RpcError::invalid_params(format!("parameter data: invalid base64: {e}"))
            })?
        } else {
            data.into_bytes()
        };
        let source = opts.source.unwrap_or_default();
        let prepared = crate::app::work::off_workers(&ctx.heavy, move || {
            prepare(kind, &file, &source, now_millis()).map_err(list_error)
        })
        .await?;
        ctx.ratings
            .install(prepared)
            .await
            .map_err(|e| store_error(&e))
    })
}

fn search(ctx: &Ctx, p: &Params) -> RpcResult {
    let given: String = p.get(0, "kind")?;
    let prefix: String = p.get(1, "prefix")?;
    let limit: u64 = p.opt(2, "limit")?.unwrap_or(DEFAULT_LIMIT);
    let all = given.trim().eq_ignore_ascii_case("all");
    let kind = if all {
        None
    } else {
        Some(Kind::parse(&given).ok_or_else(|| kind_error(&given, true))?)
    };
    if limit > MAX_LIMIT {
        return Err(RpcError::new(
            codes::OVER_CAP,
            format!("limit {limit} is over the cap of {MAX_LIMIT} entries per search"),
        ));
    }
    if prefix.chars().count() > MAX_QUERY_CHARS {
        return Err(RpcError::new(
            codes::OVER_CAP,
            format!("the prefix is longer than the cap of {MAX_QUERY_CHARS} characters"),
        ));
    }
    let held = ctx.ratings.snapshot();
    let lists: Vec<Arc<Loaded>> = match kind {
        Some(k) => vec![held.get(&k).cloned().ok_or_else(|| {
            RpcError::new(
                codes::NO_LIST,
                format!(
                    "no {k} rating list has been imported (ratings.import, or goswiss ratings \
                     import)"
                ),
            )
        })?],
        None if held.is_empty() => {
            return Err(RpcError::new(
                codes::NO_LIST,
                "no rating list has been imported (ratings.import, or goswiss ratings import)",
            ));
        }
        None => held.into_values().collect(),
    };
    let limit = limit as usize;
    let query = Query::new(&prefix);
    // One more than asked for tells whether there are more.
    let hits = best(
        lists
            .iter()
            .flat_map(|l| l.index.search(&query, limit + 1))
            .collect(),
        limit + 1,
    );
    let more = hits.len() > limit;
    let entries: Vec<Value> = hits
        .iter()
        .take(limit)
        .map(|h| serde_json::to_value(h.entry))
        .collect::<Result<_, _>>()
        .map_err(|e| RpcError::internal(format!("writing an entry: {e}")))?;
    Ok(json!({ "entries": entries, "more": more }))
}

fn info(ctx: Arc<Ctx>, _p: Params) -> BoxFuture {
    Box::pin(async move {
        // Another daemon, or `goswiss ratings import`, may have imported a newer list.
        ctx.ratings.refresh().await.map_err(|e| store_error(&e))?;
        let lists: Vec<Value> = ctx
            .ratings
            .snapshot()
            .values()
            .map(|l| l.describe())
            .collect();
        Ok(json!({ "lists": lists }))
    })
}

/// What `rpc.discover` says of `ratings.*`: the parameters as the functions above read them,
/// and the answers' members (docs/ratings.md says more of each).
mod doc {
    use schemars::JsonSchema;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingImportArgs {
        /// `egf`, `ffg` or `aga`.
        pub kind: String,
        /// The file as text, or base64 of its bytes with `options.base64` (plain, gzip or ZIP).
        pub data: String,
        pub options: Option<super::ImportOptions>,
    }

    /// One list the daemon holds.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingListInfo {
        pub kind: String,
        pub entries: u64,
        pub lines: u64,
        pub skipped: u64,
        /// The first lines that did not read as a row.
        pub skipped_lines: Vec<u32>,
        /// When it was imported (UTC, ISO 8601).
        pub imported_at: String,
        pub source: String,
        /// SHA-256 of the unpacked file, hex.
        pub digest: String,
        /// The date the file gives itself, as written.
        pub list_date: Option<String>,
        pub list_date_iso: Option<String>,
        /// `ratings.import`'s answer only: whether it replaced a list of its kind.
        pub replaced: Option<bool>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingSearchArgs {
        /// `egf`, `ffg`, `aga` or `all`.
        pub kind: String,
        /// A name prefix ("family given" or "given family"), or an id.
        pub prefix: String,
        /// At most this many entries (default 10, at most 100).
        pub limit: Option<u32>,
    }

    /// The player a row fills, as `tournament.player.add` takes it.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingPlayerFill {
        pub name: String,
        pub first_name: String,
        pub rank: String,
        pub rating: i32,
        pub rating_origin: String,
        pub grade: String,
        pub country: String,
        pub club: String,
        pub egf_pin: String,
        pub ffg_licence: String,
        pub ffg_licence_status: String,
        pub aga_id: String,
        pub aga_expiration: String,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingEntry {
        /// The list it comes from.
        pub list: String,
        pub player: RatingPlayerFill,
        /// The list's own rating, as the file writes it.
        pub listed_rating: String,
        /// The rank from the list's grade (EGF list only).
        pub rank_from_grade: Option<String>,
        /// Its line in the file, from 1.
        pub line: u32,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingSearchAnswer {
        pub entries: Vec<RatingEntry>,
        /// More entries match than were answered.
        pub more: bool,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RatingListsHeld {
        pub lists: Vec<RatingListInfo>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_stops_at_its_budget() {
        let rows: String = (0..10_000)
            .map(|k| format!("Family{k}, Given\t{k}\n"))
            .collect();
        let mut inner = None;
        let spent = crate::budget::Budget::new(Some(Duration::ZERO));
        let out = crate::budget::run(spent, || {
            inner = Some(prepare(Kind::Aga, rows.as_bytes(), "", 0).map(|p| p.index.list().len()))
        });
        assert!(out.is_err());
        // Stopped inside the reading, not after it.
        assert_eq!(inner, Some(Err(ListError::OverBudget)));
        let whole = prepare(Kind::Aga, rows.as_bytes(), "", 0).map(|p| p.index.list().len());
        assert_eq!(whole, Ok(10_000));
    }

    #[test]
    fn list_errors_have_their_codes() {
        let kind = Kind::Egf;
        assert_eq!(
            list_error(ListError::TooBig { kind, bytes: 1 }).code,
            codes::OVER_CAP
        );
        assert_eq!(
            list_error(ListError::TooManyRows { kind }).code,
            codes::OVER_CAP
        );
        assert_eq!(
            list_error(ListError::Unpack("x".into())).code,
            codes::UNREADABLE
        );
    }

    #[test]
    fn times_read_as_utc() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(iso_time(1_767_225_599_999), "2025-12-31T23:59:59Z");
        assert_eq!(iso_time(-1000), "1969-12-31T23:59:59Z");
    }
}
