//! `matchmaker.*`: the rswiss-compatible namespace (docs/rswiss.md).
//!
//! Names, parameter order, defaults, reply shapes and fault codes are rswiss's, so existing
//! clients work unchanged. Where rswiss answered with a Ruby exception (fault 2 "Uncaught
//! exception ..."), goswiss keeps code 2 and says plainly what was wrong.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::app::registry::{Engine, RegistryError};
use crate::matchmaker::{EngineError, Event, PairingMode, PlayerId, Row, Tournament};
use crate::rpc::openrpc::Doc;
use crate::rpc::{Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::store::{LogKind, TournamentId};

/// Tournaments up to this size run their commands inline: pairing them takes well under a
/// millisecond, less than a trip to the blocking pool.
const INLINE_PLAYERS: usize = 512;

impl Engine for Tournament {
    type Event = Event;
    type Error = EngineError;
    const KIND: LogKind = LogKind::Matchmaker;

    fn replay(events: &[Event]) -> Result<Self, EngineError> {
        Tournament::replay(events)
    }

    fn apply(&mut self, event: &Event) -> Result<(), EngineError> {
        Tournament::apply(self, event)
    }

    fn event_kind(event: &Event) -> &'static str {
        match event {
            Event::Created { .. } => "created",
            Event::RoundPaired { .. } => "round_paired",
            Event::CheckedOut { .. } => "checked_out",
            Event::Committed { .. } => "committed",
        }
    }

    fn heavy(&self) -> bool {
        self.players().len() > INLINE_PLAYERS
    }

    fn internal(message: String) -> EngineError {
        EngineError::Corrupt(message)
    }

    fn log_full(budget: u64, size: u64, adding: u64) -> EngineError {
        EngineError::LogFull {
            budget,
            size,
            adding,
        }
    }
}

type MmError = RegistryError<EngineError>;

/// Largest field accepted whatever `max_matchmaker_players` says: a round's pairing of it is
/// seconds and hundreds of MB (100,000 players: 10.8 s and 351 MB on the first checkout).
pub const MAX_PLAYERS: usize = 100_000;

/// rswiss's fault 1 text for an unknown method or a wrong parameter count.
pub fn missing_or_wrong_params(name: &str) -> RpcError {
    RpcError::new(
        1,
        format!(
            "Method {} missing or wrong number of parameters!",
            crate::rpc::error::clip(name, crate::rpc::error::MAX_QUOTED_BYTES)
        ),
    )
}

/// rswiss's catch-all code, with our own clear message.
fn fault2(message: impl Into<String>) -> RpcError {
    RpcError::new(2, message)
}

fn registry_error(e: MmError) -> RpcError {
    match e {
        RegistryError::NotFound(id) => fault2(format!("no tournament {id}")),
        RegistryError::Engine(EngineError::Corrupt(m)) => {
            tracing::error!(error = %m, "engine state is inconsistent");
            RpcError::internal("internal error: inconsistent tournament state")
        }
        RegistryError::Engine(e) => RpcError::new(e.code(), e.to_string()),
        RegistryError::Store(e) => crate::rpc::error::store_error(&e),
        RegistryError::OverBudget(e) => e.into(),
    }
}

/// Short rendering of a client value for error messages (never the whole request).
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        format!("{}…", &s[..s.floor_char_boundary(60)])
    } else {
        s
    }
}

/// An integer the way rswiss took it: ints, integral doubles and numeric strings all work
/// (Sequel cast them), anything else is fault 2.
fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn int_param(p: &Params, i: usize, name: &str) -> Result<i64, RpcError> {
    let v = p.raw(i).unwrap_or(&Value::Null);
    as_int(v).ok_or_else(|| fault2(format!("{name} must be an integer, got {}", show(v))))
}

fn tournament_id(p: &Params) -> Result<TournamentId, RpcError> {
    int_param(p, 0, "tournament id")
}

/// The players of a new tournament: at most `max` (the setting `max_matchmaker_players`,
/// itself capped at [`MAX_PLAYERS`]), since the first checkout pairs them all at once.
fn players_param(v: &Value, max: usize) -> Result<Vec<PlayerId>, RpcError> {
    let Value::Array(items) = v else {
        return Err(fault2(format!(
            "players must be an array of integer ids, got {}",
            show(v)
        )));
    };
    if items.is_empty() {
        return Err(fault2("players must not be empty"));
    }
    if items.len() > max {
        return Err(fault2(format!(
            "a tournament takes at most {max} players (max_matchmaker_players), got {}",
            items.len()
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Number(n) if n.is_i64() || n.is_u64() => n
                .as_i64()
                .ok_or_else(|| fault2(format!("player id {n} is out of range"))),
            other => Err(fault2(format!(
                "player ids must be integers; item {i} is {}",
                show(other)
            ))),
        })
        .collect()
}

fn bool_param(v: &Value, name: &str) -> Result<bool, RpcError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(n) if n.as_i64() == Some(0) => Ok(false),
        Value::Number(n) if n.as_i64() == Some(1) => Ok(true),
        other => Err(fault2(format!(
            "{name} must be a boolean, got {}",
            show(other)
        ))),
    }
}

/// The options struct (4th parameter of create_tournament, a goswiss extension).
fn options_param(v: Option<&Value>) -> Result<(PairingMode, Option<u64>), RpcError> {
    let mut pairing = PairingMode::default();
    let mut seed = None;
    let Some(v) = v else {
        return Ok((pairing, seed));
    };
    let Value::Object(map) = v else {
        return Err(fault2(format!("options must be a struct, got {}", show(v))));
    };
    for (key, value) in map {
        match key.as_str() {
            "pairing" => {
                let name = value.as_str().unwrap_or_default();
                pairing = PairingMode::parse(name).ok_or_else(|| {
                    fault2(format!(
                        "unknown pairing mode {} (available: {})",
                        show(value),
                        PairingMode::ALL
                            .iter()
                            .map(|m| m.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
            }
            "seed" => {
                let s = as_int(value).filter(|s| *s >= 0).ok_or_else(|| {
                    fault2(format!(
                        "seed must be a non-negative integer, got {}",
                        show(value)
                    ))
                })?;
                seed = Some(s as u64);
            }
            other => {
                let known = ["pairing", "seed"];
                return Err(fault2(format!(
                    "options.{}: unknown option {:?} (nearest valid key: {:?}; valid keys: \
                     pairing, seed)",
                    crate::rpc::error::clip(other, crate::rpc::error::MAX_QUOTED_BYTES),
                    crate::rpc::error::clip(other, crate::rpc::error::MAX_QUOTED_BYTES),
                    crate::rpc::input::nearest(other, &known).unwrap_or_default()
                )));
            }
        }
    }
    Ok((pairing, seed))
}

fn pair_value((p1, p2): (PlayerId, PlayerId)) -> Value {
    json!([p1, p2])
}

/// A standings row as rswiss sends it: `[id, matches, score, buchholz, neustadtl, c_score,
/// opp_c_score, wins]`, the five scores always doubles.
fn row_value(r: &Row) -> Value {
    json!([
        r.id,
        r.matches,
        r.score,
        r.buchholz_score,
        r.neustadtl_score,
        r.c_score,
        r.opp_c_score,
        r.wins
    ])
}

async fn create_tournament(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let max = (ctx.config.max_matchmaker_players as usize).min(MAX_PLAYERS);
    let players = players_param(p.raw(0).unwrap_or(&Value::Null), max)?;
    // nil (from clients that send it) means "not given", as in rswiss (nil → 0).
    let additional = match p.raw(1) {
        None | Some(Value::Null) => 0,
        Some(_) => int_param(&p, 1, "additional_rounds")?,
    };
    if additional < 0 {
        return Err(fault2(format!(
            "additional_rounds must be ≥ 0, got {additional}"
        )));
    }
    let additional = u32::try_from(additional)
        .ok()
        .filter(|a| *a <= 10_000)
        .ok_or_else(|| {
            fault2(format!(
                "additional_rounds {additional} is too large (at most 10000)"
            ))
        })?;
    let allow_repeat = match p.raw(2) {
        None | Some(Value::Null) => true,
        Some(v) => bool_param(v, "allow_repeat")?,
    };
    let (pairing, seed) = options_param(p.raw(3).filter(|v| !v.is_null()))?;
    // 53 bits, so the recorded seed reads back exactly in JSON clients too.
    let seed = seed.unwrap_or_else(|| rand::random::<u64>() >> 11);
    let created = Tournament::create(players, additional, allow_repeat, pairing, seed)
        .map_err(|e| registry_error(RegistryError::Engine(e)))?;
    let creator = crate::rpc::auth::Creator::of(&ctx, p.caller());
    let id = ctx
        .registry
        .create_owned(vec![created], creator.owner())
        .await
        .map_err(registry_error)?
        .ok_or_else(|| creator.over_quota())?;
    Ok(json!(id))
}

async fn checkout_match(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let id = tournament_id(&p)?;
    // The first checkout of a round pairs it: within the call's time budget, and stopped
    // there (or when the client goes away) it yields no events, so nothing is recorded.
    let budget = crate::app::work::current_budget();
    let pair = ctx
        .registry
        .mutate(id, move |t, _| {
            match crate::app::work::under(budget.as_ref(), || t.checkout()) {
                Ok(done) => done.map(|(events, pair)| (events, Ok(pair))),
                Err(over) => Ok((Vec::new(), Err(over))),
            }
        })
        .await
        .map_err(registry_error)??;
    Ok(pair_value(pair))
}

async fn commit_match(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let id = tournament_id(&p)?;
    let pair = match p.raw(1) {
        Some(Value::Array(items)) if items.len() == 2 => {
            let a = as_int(&items[0]);
            let b = as_int(&items[1]);
            match (a, b) {
                (Some(a), Some(b)) => (a, b),
                _ => {
                    return Err(fault2(format!(
                        "the pair must hold two player ids, got {}",
                        show(&Value::Array(items.clone()))
                    )));
                }
            }
        }
        Some(other) => {
            return Err(fault2(format!(
                "the pair must be an array of exactly two player ids, got {}",
                show(other)
            )));
        }
        None => return Err(missing_or_wrong_params("matchmaker.commit_match")),
    };
    let result = p.raw(2).unwrap_or(&Value::Null);
    let result = as_int(result).ok_or_else(|| {
        fault2(format!(
            "result must be -1 (first player wins), 0 (draw) or 1 (second player wins), got {}",
            show(result)
        ))
    })?;
    ctx.registry
        .mutate(id, move |t, _| Ok((t.commit(pair, result)?, ())))
        .await
        .map_err(|e| match e {
            RegistryError::Engine(EngineError::UnknownPlayer(player)) => {
                fault2(format!("no player {player} in tournament {id}"))
            }
            e => registry_error(e),
        })?;
    Ok(json!(true))
}

async fn read<R>(ctx: &Ctx, p: &Params, f: impl FnOnce(&Tournament) -> R) -> Result<R, RpcError> {
    let id = tournament_id(p)?;
    ctx.registry
        .read(id, |t, _| f(t))
        .await
        .map_err(registry_error)
}

async fn has_ended(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    Ok(json!(read(&ctx, &p, |t| t.has_ended()).await?))
}

async fn round(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    Ok(json!(read(&ctx, &p, |t| t.round()).await?))
}

async fn checkedout_matches(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let pairs = read(&ctx, &p, |t| t.checked_out_matches()).await?;
    Ok(Value::Array(pairs.into_iter().map(pair_value).collect()))
}

async fn repeated_matches(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    Ok(json!(read(&ctx, &p, |t| t.repeated_matches()).await?))
}

async fn table_by_criteria(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let rows = read(&ctx, &p, |t| t.standings()).await?;
    Ok(Value::Array(rows.iter().map(row_value).collect()))
}

async fn table_by_score(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let rows = read(&ctx, &p, |t| t.standings_by_score()).await?;
    Ok(Value::Array(rows.iter().map(row_value).collect()))
}

async fn winner(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let (player, criterion) = read(&ctx, &p, |t| t.winner())
        .await?
        .map_err(|e| registry_error(RegistryError::Engine(e)))?;
    Ok(json!([player, criterion.name()]))
}

const TID: &[Param] = &[Param::req("tournament_id", "int")];

// ---- what rpc.discover says ----------------------------------------------------------------
//
// rswiss's clients send integers as ints, integral doubles or numeric strings, and its faults
// (1, 2) are what they expect for bad input: these namespaces' parameters are read by the
// functions above, and these types say what those accept.

/// An integer as rswiss took it: an int, an integral double or a numeric string.
struct RswissInt;

impl schemars::JsonSchema for RswissInt {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RswissInt".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An integer: an int, an integral double or a numeric string.",
            "anyOf": [
                {"type": "integer"},
                {"type": "number", "multipleOf": 1},
                {"type": "string", "pattern": "^\\s*[-+]?[0-9]+\\s*$"},
            ],
        })
    }
}

#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct IdArgs {
    tournament_id: RswissInt,
}

/// `matchmaker.create_tournament`'s options (a goswiss extension).
#[derive(schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "MatchmakerOptions")]
#[allow(dead_code)]
struct CreateOptions {
    /// `optimal` (default): a min-cost perfect matching; `rswiss`: rswiss's own order.
    pairing: Option<PairingName>,
    /// Makes the whole tournament reproducible (drawn and recorded without it).
    seed: Option<RswissInt>,
}

#[derive(schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum PairingName {
    Optimal,
    Rswiss,
}

#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct CreateArgs {
    /// The players' ids (distinct).
    players: Vec<RswissInt>,
    /// Rounds past ceil(log2 n) (default 0).
    additional_rounds: Option<RswissInt>,
    /// Whether a match may repeat as a last resort (default true; 0 / 1 too).
    allow_repeat: Option<RswissBool>,
    options: Option<CreateOptions>,
}

/// A boolean as rswiss took it: true / false or 1 / 0.
#[derive(schemars::JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
enum RswissBool {
    Bool(bool),
    Int(#[schemars(range(min = 0, max = 1))] u8),
}

/// A match: two player ids.
type Pair = (i64, i64);

#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct CommitArgs {
    tournament_id: RswissInt,
    /// The pair as checked out (either order).
    pair: (RswissInt, RswissInt),
    /// -1: the pair's first player won, 0: a draw, 1: the second won (as checked out).
    #[schemars(range(min = -1, max = 1))]
    result: i64,
}

/// A standings row: `[id, matches, score, buchholz, neustadtl, c_score, opp_c_score, wins]`.
type RowOut = (i64, i64, f64, f64, f64, f64, f64, i64);

/// The winner and the criterion that decided.
type Winner = (i64, CriterionName);

#[derive(schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum CriterionName {
    Score,
    BuchholzScore,
    NeustadtlScore,
    CScore,
    OppCScore,
    Wins,
}

/// Codes of a read of a tournament.
const READ: &[i32] = &[1, 2, -32008];

/// Wraps an async handler into the table's function-pointer shape.
macro_rules! async_handler {
    ($f:ident) => {
        Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture { Box::pin($f(ctx, p)) })
    };
}

/// In rswiss's `system.listMethods` order (docs/rswiss.md), without the unusable `table2array`.
pub static METHODS: &[Method] = &[
    Method {
        name: "matchmaker.repeated_matches",
        access: Access::Public,
        params: TID,
        returns: "int",
        help: "Number of matches flagged as repeated (2 per repetition: the old and the new match).",
        doc: Doc::typed::<IdArgs, u64>().errors(READ),
        handler: async_handler!(repeated_matches),
    },
    Method {
        name: "matchmaker.checkedout_matches",
        access: Access::Public,
        params: TID,
        returns: "array",
        help: "Matches handed out and not yet committed, as [p1, p2] pairs.",
        doc: Doc::typed::<IdArgs, Vec<Pair>>().errors(READ),
        handler: async_handler!(checkedout_matches),
    },
    Method {
        name: "matchmaker.create_tournament",
        access: Access::MatchmakerCreate,
        params: &[
            Param::req("players", "array"),
            Param::opt("additional_rounds", "int"),
            Param::opt("allow_repeat", "boolean"),
            Param::opt("options", "struct"),
        ],
        returns: "int",
        help: "Creates a tournament of the given player ids; returns its id. additional_rounds \
               (default 0) are played after ceil(log2 n); allow_repeat defaults to true; \
               options: {pairing: \"optimal\" (default) or \"rswiss\", seed: int}.",
        doc: Doc::typed::<CreateArgs, i64>().errors(&[1, 2, 101, -32008, -32009, -32010, -32011]),
        handler: async_handler!(create_tournament),
    },
    Method {
        name: "matchmaker.checkout_match",
        access: Access::MatchmakerWrite,
        params: TID,
        returns: "array",
        help: "Hands out the next match to play as [p1, p2] (p1 placed higher), pairing the next \
               round when needed. Faults 201 (matches still out), 202 (ended), 204/205 \
               (no round can be paired).",
        doc: Doc::typed::<IdArgs, Pair>()
            .errors(&[1, 2, 201, 202, 204, 205, -32008, -32009, -32010]),
        handler: async_handler!(checkout_match),
    },
    Method {
        name: "matchmaker.commit_match",
        access: Access::MatchmakerWrite,
        params: &[
            Param::req("tournament_id", "int"),
            Param::req("pair", "array"),
            Param::req("result", "int"),
        ],
        returns: "boolean",
        help: "Records the result of a checked-out match: -1 first player wins, 0 draw, 1 second \
               player wins, relative to the pair as checkout_match returned it.",
        doc: Doc::typed::<CommitArgs, bool>().errors(&[1, 2, 303, -32008, -32009, -32010]),
        handler: async_handler!(commit_match),
    },
    Method {
        name: "matchmaker.has_ended",
        access: Access::Public,
        params: TID,
        returns: "boolean",
        help: "True once every round is paired and every match committed.",
        doc: Doc::typed::<IdArgs, bool>().errors(READ),
        handler: async_handler!(has_ended),
    },
    Method {
        name: "matchmaker.table_by_score",
        access: Access::Public,
        params: TID,
        returns: "array",
        help: "Standings rows [id, matches, score, buchholz, neustadtl, c_score, opp_c_score, \
               wins] sorted by score.",
        doc: Doc::typed::<IdArgs, Vec<RowOut>>().errors(READ),
        handler: async_handler!(table_by_score),
    },
    Method {
        name: "matchmaker.round",
        access: Access::Public,
        params: TID,
        returns: "int",
        help: "Number of rounds paired so far.",
        doc: Doc::typed::<IdArgs, u64>().errors(READ),
        handler: async_handler!(round),
    },
    Method {
        name: "matchmaker.table_by_criteria",
        access: Access::Public,
        params: TID,
        returns: "array",
        help: "Standings rows [id, matches, score, buchholz, neustadtl, c_score, opp_c_score, \
               wins] sorted by all six criteria.",
        doc: Doc::typed::<IdArgs, Vec<RowOut>>().errors(READ),
        handler: async_handler!(table_by_criteria),
    },
    Method {
        name: "matchmaker.winner",
        access: Access::Public,
        params: TID,
        returns: "array",
        help: "[player id, deciding criterion] once the tournament has ended. Faults 401 (not \
               ended), 402 (tied on every criterion).",
        doc: Doc::typed::<IdArgs, Winner>().errors(&[1, 2, 401, 402, -32008]),
        handler: async_handler!(winner),
    },
];
