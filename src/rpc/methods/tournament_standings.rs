//! `tournament.standings` and `tournament.crosstable`: read-only views of a tournament of
//! `tournament.*` (src/tournament/standings.rs and crosstable.rs).
//!
//! Values are given in display units: points for the score criteria (MMS 12.5, not 25 half
//! points), SODOS in points too, CAT as the category number from 1, rank as OpenGotha's
//! integer (−30 = 30k … 8 = 9d) beside its text. Codes 1040–1059 are this file's.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::tournament_types as out;
use crate::app::registry::RegistryError;
use crate::pairing::opengotha::Crit;
use crate::rpc::auth::Caller;
use crate::rpc::openrpc::Doc;
use crate::rpc::{Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::store::TournamentId;
use crate::tournament::Tournament;
use crate::tournament::crosstable::{Crosstable, crosstable};
use crate::tournament::formats::{
    self,
    export::{Content, Export, ExportError, Format, Options as ExportOptions},
};
use crate::tournament::model::{Criterion, RoundNumber, TournamentData, format_rank};
use crate::tournament::standings::{Row, criteria_asked, display_value, parse_criterion};
use crate::tournament::visibility;

pub mod codes {
    /// `after_round` beyond the tournament's rounds.
    pub const BAD_ROUND: i32 = 1040;
    /// A criterion name not known (the message lists the valid ones).
    pub const UNKNOWN_CRITERION: i32 = 1041;
    /// An export format not known (the message lists the supported ones).
    pub const UNKNOWN_FORMAT: i32 = 1042;
}

/// Most criteria one call may ask for (OpenGotha has 6 slots).
const MAX_CRITERIA: usize = 12;

/// Tournaments of more players than this are computed on the blocking pool, from a copy, so
/// the tournament's lock and the async workers are not held for milliseconds.
const INLINE_PLAYERS: usize = 500;

fn registry_error(e: RegistryError<crate::tournament::TournamentError>) -> RpcError {
    match e {
        RegistryError::NotFound(id) => RpcError::new(
            super::tournament::codes::NO_TOURNAMENT,
            format!("no tournament {id}"),
        ),
        RegistryError::Engine(e) => {
            tracing::error!(error = %e, "reading a tournament");
            RpcError::internal("internal error: inconsistent tournament state")
        }
        RegistryError::Store(e) => crate::rpc::error::store_error(&e),
        RegistryError::OverBudget(e) => e.into(),
    }
}

/// What of the tournament a caller may not see: with auth on and a caller who does not direct
/// it, `Some((first, paired))` when round `first` (of the `paired` rounds paired) is not
/// published; the data `compute` hands on then stops before it.
type Hidden = Option<(RoundNumber, RoundNumber)>;

/// Runs `f` on the tournament's data as `p`'s caller may see it (the public's stops before
/// the first unpublished round, with auth on), its revision and what it leaves out: inline
/// for small tournaments, on the blocking pool over a copy for large ones; within the call's
/// time budget either way (-32012 when it runs out: at the deadline for a large one).
async fn compute<R: Send + 'static>(
    ctx: &Ctx,
    caller: &Caller,
    id: TournamentId,
    f: impl FnOnce(&TournamentData, u64, Hidden) -> R + Send + 'static,
) -> Result<R, RpcError> {
    let budget = crate::app::work::current_budget();
    let f = std::sync::Mutex::new(Some(f));
    let copied = ctx
        .tournaments
        .read(id, |t: &Tournament, rev| {
            let (data, hidden) = if super::tournament::public_only(ctx, caller, t) {
                let data = visibility::public_data(&t.data);
                let hidden = (data.rounds.len() < t.data.rounds.len()).then(|| {
                    (
                        data.rounds.len() as RoundNumber + 1,
                        t.data.rounds.len() as RoundNumber,
                    )
                });
                (data, hidden)
            } else {
                (Cow::Borrowed(&t.data), None)
            };
            if t.data.players.len() > INLINE_PLAYERS {
                Err((Box::new(data.into_owned()), rev, hidden))
            } else {
                let f = f.lock().ok().and_then(|mut g| g.take());
                Ok(f.map(|f| crate::app::work::under(budget.as_ref(), || f(&data, rev, hidden))))
            }
        })
        .await
        .map_err(registry_error)?;
    let lost = || RpcError::internal("internal error: standings not computed");
    match copied {
        Ok(r) => r.ok_or_else(lost)?.map_err(RpcError::from),
        Err((data, rev, hidden)) => {
            let f = f.lock().ok().and_then(|mut g| g.take()).ok_or_else(lost)?;
            crate::app::work::off_workers(&ctx.heavy, move || {
                Ok::<_, RpcError>(f(&data, rev, hidden))
            })
            .await
        }
    }
}

/// The round to report after: the given one (0 … the tournament's rounds, or beyond when more
/// rounds were paired than planned), else the last paired round; never one the caller may
/// not see the results of (`hidden`).
fn after_round(
    t: &TournamentData,
    asked: Option<RoundNumber>,
    hidden: Hidden,
) -> Result<RoundNumber, RpcError> {
    let paired = t.rounds.len() as RoundNumber;
    let last = t.settings.rounds.max(paired);
    match (asked, hidden) {
        (Some(r), Some((first, paired))) if (first..=paired).contains(&r) => {
            Err(super::tournament::not_published(first))
        }
        _ => Ok(()),
    }?;
    match asked {
        None => Ok(paired),
        Some(r) if r <= last => Ok(r),
        Some(r) => Err(RpcError::new(
            codes::BAD_ROUND,
            format!("after_round {r} is out of range: the tournament has rounds 0 … {last}"),
        )),
    }
}

/// The criteria asked for (names, any case; NULL dropped), or the tournament's own.
fn criteria(asked: Option<Vec<String>>) -> Result<Option<Vec<Criterion>>, RpcError> {
    let Some(names) = asked else { return Ok(None) };
    if names.len() > MAX_CRITERIA {
        return Err(RpcError::new(
            codes::UNKNOWN_CRITERION,
            format!("at most {MAX_CRITERIA} criteria, got {}", names.len()),
        ));
    }
    let mut out = Vec::with_capacity(names.len());
    for n in &names {
        match parse_criterion(n) {
            Some(Crit::Nul) => {}
            Some(c) => out.push(Criterion(c)),
            None => {
                let valid: Vec<&str> = criteria_asked().map(|c| c.name()).collect();
                return Err(RpcError::new(
                    codes::UNKNOWN_CRITERION,
                    format!(
                        "unknown criterion {:?}; valid: {}",
                        crate::rpc::error::clip(n, 40),
                        valid.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(Some(out))
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// A row's player fields and values, shared by both views.
fn row_json(t: &TournamentData, criteria: &[Criterion], row: &Row, shared: bool) -> Value {
    let mut values = Map::new();
    for (c, v) in criteria.iter().zip(&row.values) {
        values.insert(c.0.name().to_string(), number(display_value(c.0, *v)));
    }
    let mut out = json!({
        "place": row.place,
        "shared": shared,
        "player_id": row.id,
        "values": values,
    });
    if let Some(p) = t.player(row.id) {
        out["name"] = json!(p.name);
        out["first_name"] = json!(p.first_name);
        out["rank"] = json!(p.rank);
        out["rank_text"] = json!(format_rank(p.rank));
        out["country"] = json!(p.country);
        out["club"] = json!(p.club);
    }
    out
}

/// Whether each row shares its place with another (the one above or below).
fn shared_flags(rows: &[Row]) -> Vec<bool> {
    (0..rows.len())
        .map(|i| {
            rows[i].tied_with_previous || rows.get(i + 1).is_some_and(|r| r.tied_with_previous)
        })
        .collect()
}

fn names(criteria: &[Criterion]) -> Vec<&'static str> {
    criteria.iter().map(|c| c.0.name()).collect()
}

async fn standings(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let id: TournamentId = p.get(0, "tournament_id")?;
    let asked: Option<RoundNumber> = p.opt(1, "after_round")?;
    let crit = criteria(p.opt(2, "criteria")?)?;
    compute(&ctx, p.caller(), id, move |t, rev, hidden| {
        let r = after_round(t, asked, hidden)?;
        let crit = crit.unwrap_or_else(|| t.settings.placement.clone());
        let st = crate::tournament::standings::standings(t, r, &crit);
        // Stopped at the budget, the rows are meaningless: do not build a reply of them.
        crate::budget::check()?;
        let shared = shared_flags(&st.rows);
        let rows: Vec<Value> = st
            .rows
            .iter()
            .zip(shared)
            .map(|(row, s)| row_json(t, &crit, row, s))
            .collect();
        Ok(json!({
            "revision": rev,
            "after_round": r,
            "criteria": names(&crit),
            "rows": rows,
        }))
    })
    .await?
}

fn crosstable_json(t: &TournamentData, x: &Crosstable, rev: u64) -> Value {
    let crit = &x.standings.criteria;
    let shared = shared_flags(&x.standings.rows);
    let rows: Vec<Value> = x
        .standings
        .rows
        .iter()
        .zip(&x.cells)
        .zip(shared)
        .enumerate()
        .map(|(i, ((row, cells), s))| {
            let mut v = row_json(t, crit, row, s);
            v["position"] = json!(i + 1);
            v["cells"] = Value::Array(
                cells
                    .iter()
                    .map(|c| {
                        let mut cv = serde_json::to_value(c).unwrap_or(Value::Null);
                        cv["text"] = json!(c.to_string());
                        cv
                    })
                    .collect(),
            );
            v
        })
        .collect();
    json!({
        "revision": rev,
        "after_round": x.standings.after_round,
        "criteria": names(crit),
        "rows": rows,
    })
}

async fn crosstable_method(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let id: TournamentId = p.get(0, "tournament_id")?;
    let asked: Option<RoundNumber> = p.opt(1, "after_round")?;
    compute(&ctx, p.caller(), id, move |t, rev, hidden| {
        let r = after_round(t, asked, hidden)?;
        let x = crosstable(t, r, &t.settings.placement, r, false);
        crate::budget::check()?;
        Ok(crosstable_json(t, &x, rev))
    })
    .await?
}

/// The options of `format`, each format reading only its own (a misspelt option is refused,
/// never ignored): the EGF table's `opengotha_exact`; none for the CSV; `save_dt` and `report`
/// for the whole-tournament files. OpenGotha's save time defaults to now (UTC): the clock is
/// read here, not in the domain.
pub fn export_options(format: Format, options: Option<&Value>) -> Result<ExportOptions, RpcError> {
    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct H9 {
        /// OpenGotha 3.51's exact bytes (`?` for halves and for what ISO-8859-15 lacks).
        #[serde(default)]
        opengotha_exact: bool,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NoOptions {}
    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Whole {
        /// `yyyyMMddHHmmss` for OpenGotha's saveDT (default: now, UTC).
        save_dt: Option<String>,
        /// Results report options (aga_results).
        #[serde(default)]
        report: crate::aga::report::ReportOptions,
    }
    let mut out = ExportOptions::default();
    match format {
        Format::H9 | Format::H9NoByDef => {
            if let Some(o) = options {
                let h9: H9 = crate::rpc::input::from_value(o, "options")?;
                out.opengotha_exact = h9.opengotha_exact;
            }
        }
        Format::Csv => {
            if let Some(o) = options {
                crate::rpc::input::from_value::<NoOptions>(o, "options")?;
            }
        }
        Format::OpenGotha | Format::Aga | Format::Send2Aga | Format::AgaResults => {
            let w: Whole = match options {
                Some(o) => crate::rpc::input::from_value(o, "options")?,
                None => Whole::default(),
            };
            out.save_dt = w.save_dt.unwrap_or_else(super::tournament_io::now_save_dt);
            out.report = w.report;
        }
    }
    Ok(out)
}

/// A refusal of the domain's export as the wire's error.
fn export_error(e: ExportError) -> RpcError {
    match e {
        ExportError::Invalid(m) => RpcError::invalid_params(m),
        ExportError::Refused(m) => RpcError::new(super::tournament_io::codes::REPORT_REFUSED, m),
    }
}

/// Tournament `id` written as `format` for `caller` (the public's data stops before the first
/// unpublished round, with auth on), and the revision it was written at: what
/// `tournament.export` answers and the pages download.
pub async fn export_for(
    ctx: &Ctx,
    caller: &Caller,
    id: TournamentId,
    format: Format,
    asked: Option<RoundNumber>,
    options: ExportOptions,
) -> Result<(Export, u64), RpcError> {
    compute(ctx, caller, id, move |t, rev, hidden| {
        let mut o = options;
        // A whole-tournament file refuses a round before the round is looked at.
        o.after_round = match asked {
            Some(_) if format.info().takes_round => Some(after_round(t, asked, hidden)?),
            other => other,
        };
        let e = formats::export::export(t, format, &o).map_err(export_error)?;
        Ok((e, rev))
    })
    .await?
}

/// An export in `tournament.export`'s answer: the text (for the EGF table one character per
/// byte of its ISO-8859-15 file) or the AGA files, with the file name, warnings and the AGA
/// reports' notes and findings.
fn export_json(e: &Export, rev: u64) -> Value {
    let info = e.info();
    let mut v = json!({
        "revision": rev,
        "format": info.name,
        "file_name": e.file_name,
        "encoding": info.encoding.name(),
    });
    match &e.content {
        Content::Text(text) => v["text"] = json!(text),
        Content::Files(files) => {
            let mut files = files.iter();
            if let Some((_, register)) = files.next() {
                v["register"] = json!(register);
            }
            v["rounds"] = Value::Array(
                files
                    .map(|(name, text)| json!({"name": name, "text": text}))
                    .collect(),
            );
        }
    }
    if matches!(info.format, Format::Send2Aga | Format::AgaResults) {
        v["notes"] = json!(e.notes);
        v["findings"] = serde_json::to_value(&e.findings).unwrap_or(Value::Null);
    } else {
        v["warnings"] = serde_json::to_value(&e.warnings).unwrap_or_else(|_| json!([]));
    }
    v
}

async fn export(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let id: TournamentId = p.get(0, "tournament_id")?;
    let format: String = p.get(1, "format")?;
    // A struct third is the options with no after_round: XML-RPC has no standard null to
    // skip a position with, and the whole-file formats take options but no round.
    let (asked, options): (Option<RoundNumber>, Option<serde_json::Value>) = match p.raw(2) {
        Some(serde_json::Value::Object(_)) => {
            if p.raw(3).is_some() {
                return Err(RpcError::invalid_params(
                    "options given twice (third and fourth parameter)",
                ));
            }
            (None, p.opt(2, "options")?)
        }
        _ => (p.opt(2, "after_round")?, p.opt(3, "options")?),
    };
    let Some(format) = Format::parse(&format) else {
        return Err(RpcError::new(
            codes::UNKNOWN_FORMAT,
            format!(
                "unknown export format {:?}; supported: {}",
                crate::rpc::error::clip(&format, 40),
                Format::names().collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let options = export_options(format, options.as_ref())?;
    let (e, rev) = export_for(&ctx, p.caller(), id, format, asked, options).await?;
    Ok(export_json(&e, rev))
}

macro_rules! async_handler {
    ($f:ident) => {
        Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture { Box::pin($f(ctx, p)) })
    };
}

const TID: Param = Param::req("tournament_id", "int");

pub static METHODS: &[Method] = &[
    Method {
        name: "tournament.standings",
        access: Access::Public,
        params: &[
            TID,
            Param::opt("after_round", "int"),
            Param::opt("criteria", "array"),
        ],
        returns: "struct",
        help: "Standings after a round (default the last paired) by the tournament's placement \
               criteria or the names given (MMS, SOSM, SOSOSM, NBW, SOSW, SOSW-1, DC, …) → \
               {revision, after_round, criteria, rows: [{place, shared, player_id, name, \
               first_name, rank, rank_text, country, club, values{criterion: points}}]}.",
        doc: Doc::typed::<out::StandingsArgs, out::Standings>()
            .errors(&[1001, 1037, 1040, 1041, -32008]),
        handler: async_handler!(standings),
    },
    Method {
        name: "tournament.crosstable",
        access: Access::Public,
        params: &[TID, Param::opt("after_round", "int")],
        returns: "struct",
        help: "The crosstable after a round (default the last paired): the standings rows with \
               position and cells [{round, kind, opponent, opponent_position, result, colour, \
               handicap, forfeit, text}] (text EGF-style: 3+/w2, 0=).",
        doc: Doc::typed::<out::CrosstableArgs, out::Standings>()
            .errors(&[1001, 1037, 1040, 1041, -32008]),
        handler: async_handler!(crosstable_method),
    },
    Method {
        name: "tournament.export",
        access: Access::Public,
        params: &[
            TID,
            Param::req("format", "string"),
            Param::opt("after_round", "int"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "The tournament as a file: format h9 (EGF results table as OpenGotha writes it), \
               h9_nobydef (results by default written 0=), csv (standings) → {revision, format, \
               file_name, encoding, text}, after_round to stop early; whole-tournament formats \
               (no after_round): opengotha → {revision, format, text}, aga → {revision, \
               format, register, rounds:[{name, text}]}, send2aga / aga_results → {revision, \
               format, text, notes, findings}; options {save_dt (opengotha), report{start, \
               finish, location, rules, tourney} (aga_results)}, also as the third parameter \
               when there is no after_round.",
        doc: Doc::typed::<out::ExportArgs, out::Exported>()
            .errors(&[1001, 1037, 1040, 1042, 1060, -32008]),
        handler: async_handler!(export),
    },
];
