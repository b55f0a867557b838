//! `tournament.*`: the tournament manager (src/tournament) over both protocols.
//!
//! Every mutating method takes, in its last `options` struct, an optional `if_revision`: the
//! call is refused with code 1002 unless the tournament is at that revision (its number of
//! events), which gives clients optimistic concurrency. Every answer that changes state
//! carries the new `revision`. A mutating call is durable before it is answered (the
//! registry's guarantee). Codes 1001–1049 are this namespace's (docs/tournament.md).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::app::registry::{Engine, RegistryError};
use crate::rpc::auth::{Caller, Creator, Writer};
use crate::rpc::openrpc::{Doc, NoParams};
use crate::rpc::{
    Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult, input,
};
use crate::store::{LogKind, TournamentId};
use crate::tournament::engine::{parse_result_code, result_code};
use crate::tournament::model::{
    Game, Player, PlayerId, Record, RecordRef, RoundNumber, Settings, System, TournamentData,
};
use crate::tournament::pair::PairOptions;
use crate::tournament::results::{RecordChange, ResultInput, stored_record};
use crate::tournament::visibility;
use crate::tournament::warnings;
use crate::tournament::{Event, Tournament, TournamentError};

use super::tournament_types as out;

/// Tournaments of more players than this run their commands on the blocking pool: pairing
/// them takes milliseconds, more than a trip to the pool costs.
const INLINE_PLAYERS: usize = 500;

/// Most events one `tournament.events` call returns.
const MAX_EVENTS_PER_CALL: usize = 1000;

/// Most bytes of stored event bodies one `tournament.events` call returns (a page always has
/// at least one event, however big): a log of records and imports is many megabytes, and its
/// answer would be several times that as a tree of values.
pub const MAX_EVENT_BYTES_PER_CALL: usize = 1 << 20;

/// `tournament.*`'s own codes (the engine's are 1003 and up).
pub mod codes {
    // Shared with the auth check, which refuses a write to a missing tournament before it runs.
    pub use crate::rpc::error::codes::NO_TOURNAMENT;
    /// `round.pair`'s `options.model` names no usable model (or an unknown term).
    pub const UNKNOWN_MODEL: i32 = 1036;
    /// With auth on, a read of what an unpublished round holds by a caller who does not
    /// direct the tournament.
    pub const NOT_PUBLISHED: i32 = 1037;
}

/// Whether `p`'s caller sees only what is public of `t` (auth on, not its director nor the
/// admin): unpublished rounds are then left out of every read, as from the web pages.
pub(super) fn public_only(ctx: &Ctx, caller: &crate::rpc::auth::Caller, t: &Tournament) -> bool {
    !crate::rpc::auth::directs(ctx, caller, t.director_token.as_deref())
}

/// The refusal of a read of what round `r` holds, for a caller who may not see it yet.
pub(super) fn not_published(r: RoundNumber) -> RpcError {
    RpcError::new(
        codes::NOT_PUBLISHED,
        format!(
            "round {r} is not published yet: its pairings and results are for the \
             tournament's director until then"
        ),
    )
}

impl Engine for Tournament {
    type Event = Event;
    type Error = TournamentError;
    const KIND: LogKind = LogKind::Tournament;

    fn replay(events: &[Event]) -> Result<Self, TournamentError> {
        Tournament::replay(events)
    }

    fn apply(&mut self, event: &Event) -> Result<(), TournamentError> {
        Tournament::apply(self, event)
    }

    fn event_kind(event: &Event) -> &'static str {
        event.kind()
    }

    fn heavy(&self) -> bool {
        self.data.players.len() > INLINE_PLAYERS
    }

    fn internal(message: String) -> TournamentError {
        TournamentError::Corrupt(message)
    }

    fn log_full(budget: u64, size: u64, adding: u64) -> TournamentError {
        TournamentError::LogFull {
            budget,
            size,
            adding,
        }
    }

    fn published(seq: u64, event: Event) -> Event {
        event.without_record_text(seq)
    }
}

type TError = RegistryError<TournamentError>;

fn engine_error(e: TournamentError) -> RpcError {
    match e {
        TournamentError::Corrupt(m) => {
            tracing::error!(error = %m, "tournament state is inconsistent");
            RpcError::internal("internal error: inconsistent tournament state")
        }
        TournamentError::Stale { expected, actual } => {
            let e = TournamentError::Stale { expected, actual };
            // The revision to read the state at and try again from.
            RpcError::new(e.code(), e.to_string())
                .with_data(json!({"revision": actual, "if_revision": expected}))
        }
        TournamentError::LogFull {
            budget,
            size,
            adding,
        } => {
            let e = TournamentError::LogFull {
                budget,
                size,
                adding,
            };
            RpcError::new(e.code(), e.to_string())
                .with_data(json!({"max_tournament_bytes": budget, "size": size, "adding": adding}))
        }
        e => RpcError::new(e.code(), e.to_string()),
    }
}

/// A registry failure of a `tournament.*` call as its answer (shared with the import/export
/// calls of `tournament_io`).
pub(super) fn registry_error(e: TError) -> RpcError {
    match e {
        RegistryError::NotFound(id) => {
            RpcError::new(codes::NO_TOURNAMENT, format!("no tournament {id}"))
        }
        RegistryError::Engine(e) => engine_error(e),
        RegistryError::Store(e) => crate::rpc::error::store_error(&e),
        RegistryError::OverBudget(e) => e.into(),
    }
}

/// Drops null members (XML-RPC clients without `<nil/>` cannot read them) and turns numbers
/// outside i64 into doubles.
fn clean(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, clean(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(clean).collect()),
        v => v,
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<Value, RpcError> {
    serde_json::to_value(v).map(clean).map_err(|e| {
        tracing::error!(error = %e, "serializing an answer");
        RpcError::internal("internal error: answer not serializable")
    })
}

fn big(x: i128) -> Value {
    match i64::try_from(x) {
        Ok(i) => json!(i),
        Err(_) => json!(x as f64),
    }
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "WriteOptions")]
struct Guard {
    if_revision: Option<u64>,
}

/// Runs a command of `caller` under the tournament's lock (durable before it returns) and
/// gives its answer with the revision after it.
///
/// With auth on, the caller's token is checked against the tournament's director token hash
/// as the state holds it under the lock, in the same step that computes the events: a token
/// rotated, or a tournament created, after the call was let in is judged as it is now (see
/// `auth::Writer`), and a refused call records nothing.
///
/// The command's computation (a round's pairing, an SGF record's replay) runs within the
/// call's time budget: stopped at the budget or when the client goes away, it yields no
/// events, so nothing is recorded, and the call is answered -32012.
async fn mutate<R, F>(
    ctx: &Ctx,
    caller: &Caller,
    id: TournamentId,
    if_revision: Option<u64>,
    f: F,
) -> Result<(R, u64), RpcError>
where
    F: Fn(&Tournament) -> Result<(Vec<Event>, R), TournamentError> + Send + Sync + 'static,
    R: Send + 'static,
{
    let budget = crate::app::work::current_budget();
    let writer = Writer::of(ctx, caller);
    ctx.tournaments
        .mutate(id, move |t, seq| {
            if !writer.opens(t.director_token.as_deref()) {
                return Ok((Vec::new(), Err(writer.refusal(id))));
            }
            if let Some(expected) = if_revision
                && expected != seq
            {
                return Err(TournamentError::Stale {
                    expected,
                    actual: seq,
                });
            }
            let (events, answer) = match crate::app::work::under(budget.as_ref(), || f(t)) {
                Ok(done) => done?,
                // No events: the registry stores nothing and hands the error back.
                Err(over) => return Ok((Vec::new(), Err(over.into()))),
            };
            let after = seq + events.len() as u64;
            Ok((events, Ok((answer, after))))
        })
        .await
        .map_err(registry_error)?
}

async fn read<R>(
    ctx: &Ctx,
    id: TournamentId,
    f: impl FnOnce(&Tournament, u64) -> R,
) -> Result<R, RpcError> {
    ctx.tournaments.read(id, f).await.map_err(registry_error)
}

/// Puts `patch` over `base`: objects member by member, anything else replaced.
fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(&k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, p) => *b = p,
    }
}

/// A caller's (partial) settings, checked strictly before anything is laid over them: a
/// struct, every key known (or refused with the nearest valid one), every value of its type
/// and within its bounds, each refusal with its path (`settings.handicap.ceiling`).
fn settings_patch(patch: &Value) -> Result<(), RpcError> {
    if !patch.is_object() {
        return Err(RpcError::invalid_params(
            "parameter settings: expected a struct",
        ));
    }
    input::check(patch, &input::SCHEMAS.settings, "settings")?;
    // The types: laid over the defaults, whose types are the same as any tournament's.
    settings_over(&Settings::default(), patch.clone()).map(drop)
}

/// Settings from a partial struct laid over `base` (checked by [`settings_patch`] first).
fn settings_over(base: &Settings, patch: Value) -> Result<Settings, RpcError> {
    let mut v = serde_json::to_value(base).map_err(|e| RpcError::internal(e.to_string()))?;
    merge(&mut v, patch);
    input::from_value(&v, "settings")
}

/// A caller's player struct (`path`: the parameter), checked strictly as settings are; ranks
/// are text ("3d") or OpenGotha's integers.
fn player_value(v: Value, path: &str) -> Result<Value, RpcError> {
    let Value::Object(m) = &v else {
        return Err(RpcError::invalid_params(format!(
            "parameter {path}: expected a struct"
        )));
    };
    if m.contains_key("id") {
        return Err(RpcError::invalid_params(format!(
            "{path}.id is assigned by the tournament and cannot be given"
        )));
    }
    input::check(&v, &input::SCHEMAS.player, path)?;
    input::from_value::<Player>(&v, path)?;
    Ok(v)
}

fn player_json(p: &Player) -> Value {
    let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert(
            "rank_text".into(),
            json!(crate::tournament::model::format_rank(p.rank)),
        );
    }
    clean(v)
}

fn game_json(g: &Game) -> Value {
    json!({
        "table": g.table,
        "white": g.white,
        "black": g.black,
        "handicap": g.handicap,
        "komi2": g.komi2,
        "result": result_code(g.outcome, g.forfeit),
        "outcome": g.outcome,
        "forfeit": g.forfeit,
        "known_colour": g.known_colour,
        "has_record": g.record.is_some(),
    })
}

/// A round as `public_only` callers see it: a paired round that is not published shows that
/// it is paired, and nothing of its games, byes or results.
fn round_view(t: &Tournament, r: RoundNumber, public_only: bool) -> Value {
    if public_only && t.data.round(r).is_some() && !visibility::is_public(&t.data, r) {
        return json!({"round": r, "paired": true, "published": false, "hidden": true,
            "games": [], "byes": []});
    }
    round_json(t, r)
}

fn round_json(t: &Tournament, r: RoundNumber) -> Value {
    match t.data.round(r) {
        Some(rd) => json!({
            "round": r,
            "paired": true,
            "published": rd.published,
            "games": rd.games.iter().map(game_json).collect::<Vec<_>>(),
            "byes": rd.byes,
        }),
        None => json!({"round": r, "paired": false, "published": false, "games": [], "byes": []}),
    }
}

fn summary(id: TournamentId, t: &Tournament, revision: u64) -> Value {
    let s = &t.data.settings;
    json!({
        "id": id,
        "name": s.name,
        "short_name": s.short_name,
        "system": s.system,
        "rounds": s.rounds,
        "paired_rounds": t.paired_rounds(),
        "players": t.data.players.len(),
        "archived": t.archived,
        "revision": revision,
    })
}

fn whole(
    id: TournamentId,
    t: &Tournament,
    revision: u64,
    public_only: bool,
) -> Result<Value, RpcError> {
    let d: &TournamentData = &t.data;
    let mut out = summary(id, t, revision);
    out["settings"] = to_json(&d.settings)?;
    out["players"] = Value::Array(d.players.iter().map(player_json).collect());
    out["rounds_detail"] = Value::Array(
        (1..=t.paired_rounds())
            .map(|r| round_view(t, r, public_only))
            .collect(),
    );
    out["player_count"] = json!(d.players.len());
    Ok(out)
}

// ---- tournament ---------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateOptions {
    seed: Option<u64>,
}

/// A new tournament's settings: `patch` checked, over the defaults of its system.
fn new_settings(patch: Value) -> Result<Settings, RpcError> {
    settings_patch(&patch)?;
    let system = match patch.get("system") {
        None | Some(Value::Null) => System::default(),
        Some(v) => input::from_value::<System>(v, "settings.system")?,
    };
    settings_over(&Settings::defaults(system), patch)
}

async fn create(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: CreateArgs = p.decode(CREATE)?;
    let patch = a.settings.unwrap_or_else(|| json!({}));
    let settings = new_settings(patch)?;
    let o = a.options.unwrap_or_default();
    let seed = o.seed.unwrap_or_else(|| rand::random::<u64>() >> 11);
    let mut created = Tournament::create(settings, seed).map_err(engine_error)?;
    // Only the hash is stored; the token is in this reply and nowhere else.
    let (token, hashed) = crate::rpc::auth::new_token();
    if let Event::Created {
        director_token_sha256,
        ..
    } = &mut created
    {
        *director_token_sha256 = Some(hashed);
    }
    let creator = Creator::of(&ctx, p.caller());
    let id = ctx
        .tournaments
        .create_owned(vec![created], creator.owner())
        .await
        .map_err(registry_error)?
        .ok_or_else(|| creator.over_quota())?;
    Ok(json!({"id": id, "revision": 1, "director_token": token}))
}

/// Replaces the director token (the old one stops working at once).
async fn token_rotate(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let IdArgs { tournament_id: id } = p.decode(ID)?;
    let (token, hashed) = crate::rpc::auth::new_token();
    let ((), rev) = mutate(&ctx, p.caller(), id, None, move |_| {
        Ok((
            vec![Event::DirectorTokenSet {
                director_token_sha256: hashed.clone(),
            }],
            (),
        ))
    })
    .await?;
    Ok(json!({"revision": rev, "director_token": token}))
}

/// An event as `tournament.events` shows it: without the director token's hash (a hash of
/// a random token reveals nothing, but it has no business leaving the daemon).
fn event_json(e: &Event) -> Value {
    let mut v = clean(serde_json::to_value(e).unwrap_or(Value::Null));
    if let Value::Object(m) = &mut v {
        m.remove("director_token_sha256");
    }
    v
}

/// An event `tournament.events` leaves out for a caller who may not see it (an unpublished
/// round's, with auth on): its place in the log, and the round to read again once published.
fn withheld_event(revision: usize, e: &Event) -> Value {
    let mut v = json!({"revision": revision, "kind": "withheld"});
    if let Some(r) = e.round() {
        v["round"] = json!(r);
    }
    v
}

async fn get(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let IdArgs { tournament_id: id } = p.decode(ID)?;
    read(&ctx, id, |t, rev| {
        whole(id, t, rev, public_only(&ctx, p.caller(), t))
    })
    .await?
}

async fn list(ctx: Arc<Ctx>, _p: Params) -> RpcResult {
    let mut out = vec![];
    for id in ctx.tournaments.ids() {
        // A tournament deleted meanwhile is simply not listed.
        if let Ok(v) = ctx.tournaments.read(id, |t, rev| summary(id, t, rev)).await {
            out.push(v);
        }
    }
    Ok(Value::Array(out))
}

async fn delete(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: IdOptionsArgs<Guard> = p.decode(ID_OPTIONS)?;
    let (id, g) = (a.tournament_id, a.options.unwrap_or_default());
    // Checked under the tournament's lock, in the step that deletes it, as every write is.
    let writer = Writer::of(&ctx, p.caller());
    ctx.tournaments
        .delete_if(id, |t, rev| {
            if !writer.opens(t.director_token.as_deref()) {
                return Err(writer.refusal(id));
            }
            match g.if_revision {
                Some(expected) if expected != rev => Err(engine_error(TournamentError::Stale {
                    expected,
                    actual: rev,
                })),
                _ => Ok(()),
            }
        })
        .await
        .map_err(registry_error)??;
    Ok(json!({"id": id, "deleted": true}))
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ArchiveOptions {
    if_revision: Option<u64>,
    archived: Option<bool>,
}

async fn archive(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: IdOptionsArgs<ArchiveOptions> = p.decode(ID_OPTIONS)?;
    let (id, o) = (a.tournament_id, a.options.unwrap_or_default());
    let archived = o.archived.unwrap_or(true);
    let ((), rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        Ok((t.archive(archived)?, ()))
    })
    .await?;
    Ok(json!({"revision": rev, "archived": archived}))
}

async fn settings_set(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: SettingsSetArgs = p.decode(SETTINGS_SET)?;
    let (id, patch) = (a.tournament_id, a.settings);
    settings_patch(&patch)?;
    let g = a.options.unwrap_or_default();
    let (settings, rev) = mutate(&ctx, p.caller(), id, g.if_revision, move |t| {
        let s = settings_over(&t.data.settings, patch.clone())
            .map_err(|e| TournamentError::Invalid(e.message))?;
        Ok((t.change_settings(s.clone())?, s))
    })
    .await?;
    Ok(json!({"revision": rev, "settings": to_json(&settings)?}))
}

// ---- desk-setup: the settings form's check --------------------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckOptions {
    tournament_id: Option<TournamentId>,
}

/// Settings whose change alters what the rounds already paired count for (scores, places).
const ALTERS_PLAYED: &[&str] = &["system", "mcmahon", "scoring", "placement", "categories"];

/// Where a refusal says the trouble is: the first `settings…` path in its message
/// (`settings.mcmahon.bar`, `settings.placement[2]`); every settings check names one.
fn field_of(message: &str) -> Option<String> {
    let start = message.find("settings")?;
    let path: String = message[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        .collect();
    Some(path.trim_end_matches('.').to_string())
}

/// The settings that differ, as `key` or `key.member` for a struct's members.
fn changed_settings(old: &Settings, new: &Settings) -> Result<Vec<String>, RpcError> {
    let (Value::Object(mut a), Value::Object(mut b)) = (to_json(old)?, to_json(new)?) else {
        return Ok(Vec::new());
    };
    // A NULL criterion places nobody: a list with or without them is the same placement.
    for m in [&mut a, &mut b] {
        if let Some(Value::Array(list)) = m.get_mut("placement") {
            list.retain(|c| c != "NULL");
        }
    }
    let mut out = Vec::new();
    for (k, vb) in &b {
        let va = a.get(k).unwrap_or(&Value::Null);
        if va == vb {
            continue;
        }
        match (va, vb) {
            (Value::Object(ma), Value::Object(mb)) => {
                for (m, x) in mb {
                    if ma.get(m) != Some(x) {
                        out.push(format!("{k}.{m}"));
                    }
                }
            }
            _ => out.push(k.clone()),
        }
    }
    Ok(out)
}

/// Checks settings exactly as `tournament.create` (no `tournament_id`) or
/// `tournament.settings.set` (on `options.tournament_id`) would take them, storing nothing, so
/// a form can say what is wrong next to the field while it is filled in: the same functions
/// judge. A refusal is an answer here, not an error: `{ok: false, field, message}`.
async fn settings_check(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let patch: Value = p.get(0, "settings")?;
    let o: CheckOptions = p.opt(1, "options")?.unwrap_or_default();
    let outcome = match o.tournament_id {
        None => new_settings(patch).and_then(|s| {
            Tournament::create(s.clone(), 0).map_err(engine_error)?;
            Ok((s, Vec::new(), 0))
        }),
        Some(id) => match settings_patch(&patch) {
            Err(e) => Err(e),
            Ok(()) => {
                read(&ctx, id, move |t, _| {
                    let s = settings_over(&t.data.settings, patch)?;
                    t.change_settings(s.clone()).map_err(engine_error)?;
                    let changed = changed_settings(&t.data.settings, &s)?;
                    Ok((s, changed, t.paired_rounds()))
                })
                .await?
            }
        },
    };
    Ok(match outcome {
        Ok((s, changed, paired)) => {
            let alters: Vec<&String> = changed
                .iter()
                .filter(|c| {
                    paired > 0 && ALTERS_PLAYED.contains(&c.split('.').next().unwrap_or(""))
                })
                .collect();
            json!({
                "ok": true,
                "settings": to_json(&s)?,
                "egf_class": crate::tournament::formats::egf::egf_class(&s).to_string(),
                "paired_rounds": paired,
                "changed": changed,
                "alters_played": alters,
            })
        }
        Err(e) => {
            // The refusal's own path when it carries one (strict input's data.path).
            let field = e
                .data
                .as_ref()
                .and_then(|d| d.get("path"))
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| field_of(&e.message));
            json!({"ok": false, "field": field, "message": e.message})
        }
    })
}

/// A page of the log, read from the store (the daemon does not keep logs in memory): at most
/// [`MAX_EVENTS_PER_CALL`] events and [`MAX_EVENT_BYTES_PER_CALL`] bytes of them, decoded off
/// the async workers in a heavy-call turn. `next_since` is where the next page starts.
async fn events(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: EventsArgs = p.decode(EVENTS)?;
    let (id, since) = (a.tournament_id, a.since_revision.unwrap_or(0));
    // Through the registry first: a tournament of this namespace, brought up to date.
    // What the public may not see is there, but only as its revision and round: which rounds
    // are public is read with the revision.
    let (revision, public) = read(&ctx, id, |t, rev| {
        (
            rev,
            public_only(&ctx, p.caller(), t).then(|| visibility::Publication::of(&t.data)),
        )
    })
    .await?;
    let from = since.min(revision);
    let store = Arc::clone(&ctx);
    let runtime = tokio::runtime::Handle::current();
    crate::app::work::off_workers(&ctx.heavy, move || {
        // The page is read in the heavy-call turn too, so the pages being built at once, each
        // up to a megabyte of bodies and its tree of values, are as many as the turns.
        let page = runtime
            .block_on(store.tournaments.read_page(
                id,
                from,
                MAX_EVENTS_PER_CALL,
                MAX_EVENT_BYTES_PER_CALL,
            ))
            .map_err(registry_error)?;
        let mut list = Vec::with_capacity(page.events.len());
        for (k, body) in page.events.iter().enumerate() {
            let seq = from + k as u64;
            let e: Event = serde_json::from_str(body).map_err(|e| {
                tracing::error!(id, seq, error = %e, "a stored event does not read");
                RpcError::internal("internal error: inconsistent tournament state")
            })?;
            if let Some(public) = &public
                && e.round().is_some_and(|r| !public.is_public(r))
            {
                list.push(withheld_event((seq + 1) as usize, &e));
                continue;
            }
            let mut v = json!({
                "revision": seq + 1,
                "kind": e.kind(),
                "event": event_json(&e),
            });
            if let Some(r) = e.round() {
                v["round"] = json!(r);
            }
            list.push(v);
        }
        let next = from + list.len() as u64;
        // Another daemon may have written past the revision this one knew.
        let head = page.head.max(revision);
        Ok(json!({
            "revision": head,
            "events": list,
            "more": next < head,
            "next_since": next,
        }))
    })
    .await
}

// ---- players -------------------------------------------------------------------------------

async fn player_add(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: PlayerAddArgs = p.decode(PLAYER_ADD)?;
    let id = a.tournament_id;
    let v = player_value(a.player, "player")?;
    let mut player: Player = input::from_value(&v, "player")?;
    if v.get("rating").is_none() {
        // No rating given: OpenGotha's, derived from the rank, origin INI, as its player
        // manager registers such a player.
        player.rating = crate::tournament::model::rating_from_rank(player.rank);
        if v.get("rating_origin").is_none() {
            player.rating_origin = "INI".into();
        }
    }
    let g = a.options.unwrap_or_default();
    let (pid, rev) = mutate(&ctx, p.caller(), id, g.if_revision, move |t| {
        t.register_player(player.clone())
    })
    .await?;
    Ok(json!({"revision": rev, "player_id": pid}))
}

async fn player_update(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: PlayerUpdateArgs = p.decode(PLAYER_UPDATE)?;
    let (id, pid) = (a.tournament_id, a.player_id);
    let patch = player_value(a.fields, "fields")?;
    let g = a.options.unwrap_or_default();
    let (player, rev) = mutate(&ctx, p.caller(), id, g.if_revision, move |t| {
        let mut v = serde_json::to_value(t.player(pid)?)
            .map_err(|e| TournamentError::Corrupt(e.to_string()))?;
        merge(&mut v, patch.clone());
        let player: Player = serde_json::from_value(v)
            .map_err(|e| TournamentError::Invalid(format!("fields: {e}")))?;
        Ok((t.update_player(player.clone())?, player))
    })
    .await?;
    Ok(json!({"revision": rev, "player": player_json(&player)}))
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WithdrawOptions {
    if_revision: Option<u64>,
    after_round: Option<RoundNumber>,
    reinstate: Option<bool>,
}

async fn player_withdraw(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: PlayerOptionsArgs<WithdrawOptions> = p.decode(PLAYER_OPTIONS)?;
    let (id, pid, o) = (a.tournament_id, a.player_id, a.options.unwrap_or_default());
    let reinstate = o.reinstate.unwrap_or(false);
    let (after, rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        let ev = t.withdraw_player(pid, o.after_round, reinstate)?;
        let after = match ev.first() {
            Some(Event::PlayerWithdrawn { after, .. }) => *after,
            _ => None,
        };
        Ok((ev, after))
    })
    .await?;
    let mut out = json!({"revision": rev, "withdrawn": !reinstate});
    if let Some(a) = after {
        out["after_round"] = json!(a);
    }
    Ok(out)
}

async fn player_participation(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: ParticipationArgs = p.decode(PARTICIPATION)?;
    let (id, pid, skip) = (a.tournament_id, a.player_id, a.skip);
    if skip.len() > 1000 {
        return Err(RpcError::invalid_params("skip: too many rounds"));
    }
    let g = a.options.unwrap_or_default();
    let ((), rev) = mutate(&ctx, p.caller(), id, g.if_revision, move |t| {
        Ok((t.set_participation(pid, skip.clone())?, ()))
    })
    .await?;
    Ok(json!({"revision": rev}))
}

async fn player_remove(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: PlayerOptionsArgs<Guard> = p.decode(PLAYER_OPTIONS)?;
    let (id, pid, g) = (a.tournament_id, a.player_id, a.options.unwrap_or_default());
    let ((), rev) = mutate(&ctx, p.caller(), id, g.if_revision, move |t| {
        Ok((t.remove_player(pid)?, ()))
    })
    .await?;
    Ok(json!({"revision": rev, "removed": pid}))
}

async fn player_list(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let IdArgs { tournament_id: id } = p.decode(ID)?;
    read(&ctx, id, |t, _| {
        Value::Array(t.data.players.iter().map(player_json).collect())
    })
    .await
}

// ---- rounds --------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PairOptions")]
struct PairParams {
    if_revision: Option<u64>,
    players: Option<Vec<PlayerId>>,
    #[serde(default)]
    #[schemars(schema_with = "super::pairing::model_schema")]
    model: Option<Value>,
}

/// `round.pair`'s `options.model`: absent or `"opengotha"` (also `{"preset": "opengotha"}`)
/// is OpenGotha's exact weight (`None`); anything else is a weighted-term model as
/// `pairing.pair` reads it (a preset name or `{preset, weights, bye}`), refused with 1036
/// when unknown, and for `rswiss`, whose king-of-the-hill tiers need `matchmaker.*`'s scores.
fn pair_model(v: Option<Value>) -> Result<Option<crate::pairing::model::Model>, RpcError> {
    use super::pairing::{SpecError, model_spec};
    let v = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let preset = match &v {
        Value::String(s) => Some(s.as_str()),
        Value::Object(m) => m.get("preset").and_then(Value::as_str),
        _ => None,
    };
    if preset == Some("opengotha") {
        let bare = v.is_string() || v.as_object().is_some_and(|m| m.len() == 1);
        if !bare {
            return Err(RpcError::new(
                codes::UNKNOWN_MODEL,
                "options.model: the opengotha model is OpenGotha's own weight and takes no \
                 weights (use opengotha_terms or custom for weighted terms)",
            ));
        }
        return Ok(None);
    }
    if preset == Some("rswiss") {
        return Err(RpcError::new(
            codes::UNKNOWN_MODEL,
            "options.model: rswiss is matchmaker.*'s king-of-the-hill pairing; use opengotha \
             (default), gopair, opengotha_terms or custom here",
        ));
    }
    model_spec(&v, "options.model")
        .map(Some)
        .map_err(|e| match e {
            SpecError::Shape(m) => RpcError::new(
                codes::UNKNOWN_MODEL,
                format!("{m} (a preset name or {{preset, weights, bye}})"),
            ),
            SpecError::Unknown(m) => RpcError::new(
                codes::UNKNOWN_MODEL,
                m.replace(
                    ", rswiss or \
             custom",
                    " or custom",
                )
                .replace(", rswiss or custom", " or custom"),
            ),
        })
}

async fn round_pair(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: RoundOptionsArgs<PairParams> = p.decode(ROUND_OPTIONS)?;
    let (id, round, o) = (a.tournament_id, a.round, a.options.unwrap_or_default());
    if o.players.as_ref().is_some_and(|l| l.len() > 20_000) {
        return Err(RpcError::invalid_params(
            "options.players: too many players",
        ));
    }
    let opts = PairOptions {
        players: o.players,
        model: pair_model(o.model)?,
    };
    let (report, rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        t.pair_round(round, &opts)
    })
    .await?;
    let amount = super::pairing::amount;
    let games: Vec<Value> = report
        .boards
        .iter()
        .map(|b| {
            let mut g = json!({
                "table": b.table, "white": b.white, "black": b.black, "handicap": b.handicap,
                "games_before": b.games_before,
            });
            if let Some(w) = b.weight {
                g["weight"] = json!(w);
            }
            if let Some(c) = b.cost {
                g["cost"] = amount(c);
            }
            g
        })
        .collect();
    let mut answer = json!({
        "revision": rev,
        "round": report.round,
        "model": report.model,
        "games": games,
        "byes": report.byes,
        "repeats": report.repeats,
    });
    match report.objective {
        Some(o) => answer["objective"] = amount(o),
        None => answer["total_weight"] = big(report.total_weight),
    }
    Ok(answer)
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UnpairOptions {
    if_revision: Option<u64>,
    force: Option<bool>,
}

async fn round_unpair(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: RoundOptionsArgs<UnpairOptions> = p.decode(ROUND_OPTIONS)?;
    let (id, round, o) = (a.tournament_id, a.round, a.options.unwrap_or_default());
    let force = o.force.unwrap_or(false);
    let ((), rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        Ok((t.unpair_round(round, force)?, ()))
    })
    .await?;
    Ok(json!({"revision": rev, "round": round}))
}

/// A game as a client gives it for a manual pairing: colours as given, handicap and komi
/// OpenGotha's for the pair unless set.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GameIn {
    white: PlayerId,
    black: PlayerId,
    table: Option<u32>,
    handicap: Option<u32>,
    komi2: Option<i32>,
}

fn manual_game(t: &Tournament, round: RoundNumber, g: &GameIn) -> Result<Game, TournamentError> {
    t.player(g.white)?;
    t.player(g.black)?;
    if g.white == g.black {
        return Err(TournamentError::PlayerTwice {
            player: g.white,
            round,
        });
    }
    let natural = t.natural_board(round, g.white, g.black)?;
    let handicap = g.handicap.unwrap_or(natural.handicap);
    let s = &t.data.settings;
    Ok(Game {
        table: g.table.unwrap_or(0),
        white: g.white,
        black: g.black,
        handicap,
        komi2: g.komi2.unwrap_or(if handicap > 0 {
            s.handicap_komi2
        } else {
            s.komi2
        }),
        ..Game::default()
    })
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetGamesOptions {
    if_revision: Option<u64>,
    byes: Option<Vec<PlayerId>>,
}

async fn round_set_games(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: SetGamesArgs = p.decode(SET_GAMES)?;
    let (id, round, games) = (a.tournament_id, a.round, a.games);
    if games.len() > 10_000 {
        return Err(RpcError::invalid_params("games: too many games"));
    }
    let o = a.options.unwrap_or_default();
    let byes = o.byes.unwrap_or_default();
    if byes.len() > 10_000 {
        return Err(RpcError::invalid_params("options.byes: too many players"));
    }
    let ((), rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        let mut list = Vec::with_capacity(games.len());
        for (k, g) in games.iter().enumerate() {
            let mut game = manual_game(t, round, g)?;
            if game.table == 0 {
                game.table = k as u32 + 1;
            }
            list.push(game);
        }
        Ok((t.set_round(round, list, byes.clone())?, ()))
    })
    .await?;
    let r = read(&ctx, id, move |t, _| round_json(t, round)).await?;
    Ok(json!({"revision": rev, "round": r}))
}

async fn round_add_game(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: AddGameArgs = p.decode(ADD_GAME)?;
    let (id, round, g, o) = (
        a.tournament_id,
        a.round,
        a.game,
        a.options.unwrap_or_default(),
    );
    let (game, rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        let game = manual_game(t, round, &g)?;
        let ev = t.add_game(round, game)?;
        let added = match ev.first() {
            Some(Event::GameAdded { game, .. }) => game.clone(),
            _ => Game::default(),
        };
        Ok((ev, added))
    })
    .await?;
    Ok(json!({"revision": rev, "game": game_json(&game)}))
}

async fn round_remove_game(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: RemoveGameArgs = p.decode(REMOVE_GAME)?;
    let (id, round, table, o) = (
        a.tournament_id,
        a.round,
        a.table,
        a.options.unwrap_or_default(),
    );
    let ((), rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        Ok((t.remove_game(round, table)?, ()))
    })
    .await?;
    Ok(json!({"revision": rev}))
}

async fn round_swap(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let args: SwapArgs = p.decode(SWAP)?;
    let (id, round, a, b) = (args.tournament_id, args.round, args.player_a, args.player_b);
    let o = args.options.unwrap_or_default();
    let ((), rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        Ok((t.swap_players(round, a, b)?, ()))
    })
    .await?;
    let r = read(&ctx, id, move |t, _| round_json(t, round)).await?;
    Ok(json!({"revision": rev, "round": r}))
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PublishOptions {
    if_revision: Option<u64>,
    published: Option<bool>,
}

async fn round_publish(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: RoundOptionsArgs<PublishOptions> = p.decode(ROUND_OPTIONS)?;
    let (id, round, o) = (a.tournament_id, a.round, a.options.unwrap_or_default());
    let published = o.published.unwrap_or(true);
    let ((), rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        Ok((t.publish_round(round, published)?, ()))
    })
    .await?;
    Ok(json!({"revision": rev, "round": round, "published": published}))
}

async fn round_get(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let RoundArgs {
        tournament_id: id,
        round,
    } = p.decode(ROUND)?;
    read(&ctx, id, |t, rev| {
        t.check_round(round).map_err(engine_error)?;
        let mut v = round_view(t, round, public_only(&ctx, p.caller(), t));
        v["revision"] = json!(rev);
        Ok(v)
    })
    .await?
}

/// The warnings on a round's games (desk-edit: the pairing edit screen shows them).
async fn round_warnings(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let RoundArgs {
        tournament_id: id,
        round,
    } = p.decode(ROUND)?;
    read(&ctx, id, |t, rev| {
        t.check_round(round).map_err(engine_error)?;
        let r = t.data.round(round);
        let published = r.is_some_and(|r| r.published);
        // Like round.get: an unpublished round's games are the director's only.
        let games = if !published && public_only(&ctx, p.caller(), t) {
            Vec::new()
        } else {
            warnings::round_warnings(&t.data, round)
        };
        Ok(json!({
            "round": round,
            "paired": r.is_some(),
            "published": published,
            "big_handicap_threshold": warnings::big_handicap_threshold(&t.data),
            "colour_tolerance": warnings::COLOUR_TOLERANCE,
            "games": games,
            "revision": rev,
        }))
    })
    .await?
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ExplainOptions")]
struct ExplainParams {
    #[serde(default)]
    #[schemars(schema_with = "super::pairing::model_schema")]
    model: Option<Value>,
}

async fn round_explain(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let args: ExplainArgs = p.decode(EXPLAIN)?;
    let (id, round, a, b) = (args.tournament_id, args.round, args.player_a, args.player_b);
    let o = args.options.unwrap_or_default();
    // A round's weights come from the results of the rounds before it: those must be public.
    read(&ctx, id, |t, _| {
        let last = visibility::last_public_round(&t.data);
        if round > last + 1 && round <= t.paired_rounds() + 1 && public_only(&ctx, p.caller(), t) {
            return Err(not_published(last + 1));
        }
        Ok(())
    })
    .await??;
    if let Some(model) = pair_model(o.model)? {
        let e = ctx
            .tournaments
            .read(id, move |t, _| t.explain_with_model(round, a, b, &model))
            .await
            .map_err(registry_error)?
            .map_err(engine_error)?;
        let mut out = json!({
            "round": e.round,
            "player_a": e.a,
            "model": e.model,
            "cost": super::pairing::amount(e.cost),
            "terms": super::pairing::terms_json(&e.terms),
            "games_before": e.games_before,
            "forbidden": e.forbidden,
        });
        seat_json(&mut out, e.b, (e.white, e.black, e.handicap));
        return Ok(clean(out));
    }
    let e = ctx
        .tournaments
        .read(id, move |t, _| t.explain(round, a, b))
        .await
        .map_err(registry_error)?
        .map_err(engine_error)?;
    let mut terms = Map::new();
    for (k, v) in &e.terms {
        terms.insert((*k).to_string(), json!(v));
    }
    let mut out = json!({
        "round": e.round,
        "player_a": e.a,
        "weight": e.weight,
        "terms": terms,
        "games_before": e.games_before,
        "forbidden": e.forbidden,
        "groups": e.groups.iter().map(|(id, g, i)| json!({"player": id, "group": g, "placement": i})).collect::<Vec<_>>(),
    });
    seat_json(&mut out, e.b, (e.white, e.black, e.handicap));
    Ok(clean(out))
}

/// An explanation's second player and the board the pair gets, or the bye mark.
fn seat_json(
    out: &mut Value,
    b: Option<PlayerId>,
    (white, black, handicap): (Option<PlayerId>, Option<PlayerId>, Option<u32>),
) {
    match b {
        Some(b) => {
            out["player_b"] = json!(b);
            out["board"] = json!({"white": white, "black": black, "handicap": handicap});
        }
        None => out["bye"] = json!(true),
    }
}

// ---- results -------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResultOptions {
    if_revision: Option<u64>,
    forfeit: Option<bool>,
    sgf: Option<String>,
    remove_record: Option<bool>,
    strict: Option<bool>,
}

async fn result_set(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let a: ResultSetArgs = p.decode(RESULT_SET)?;
    let (id, round, table, code) = (a.tournament_id, a.round, a.table, a.result);
    let o = a.options.unwrap_or_default();
    let (outcome, forfeit) = parse_result_code(&code).map_err(engine_error)?;
    let forfeit = forfeit || o.forfeit.unwrap_or(false);
    let record = match (o.sgf, o.remove_record.unwrap_or(false)) {
        (Some(_), true) => {
            return Err(RpcError::invalid_params(
                "options: sgf and remove_record exclude each other",
            ));
        }
        (Some(s), false) => RecordChange::Set(s),
        (None, true) => RecordChange::Remove,
        (None, false) => RecordChange::Keep,
    };
    let input = ResultInput {
        outcome,
        forfeit,
        record,
        strict: o.strict.unwrap_or(false),
    };
    let (warnings, rev) = mutate(&ctx, p.caller(), id, o.if_revision, move |t| {
        t.set_result(round, table, input.clone())
    })
    .await?;
    Ok(json!({
        "revision": rev,
        "round": round,
        "table": table,
        "result": result_code(outcome, forfeit),
        "warnings": warnings,
    }))
}

/// A game's stored record, read from the store: the state keeps only where it is.
pub(crate) async fn game_record(
    ctx: &Ctx,
    id: TournamentId,
    table: u32,
    record: &RecordRef,
) -> Result<Record, RpcError> {
    let read_json = |seq: u64| async move {
        let body = ctx
            .tournaments
            .read_event(id, seq)
            .await
            .map_err(registry_error)?;
        serde_json::from_str::<Value>(&body).map_err(|e| {
            tracing::error!(id, seq, error = %e, "a stored event does not read");
            RpcError::internal("internal error: inconsistent tournament state")
        })
    };
    let text = read_json(record.text_seq).await?;
    let warnings = if record.warnings_seq == record.text_seq {
        None
    } else {
        Some(read_json(record.warnings_seq).await?)
    };
    stored_record(&text, warnings.as_ref().unwrap_or(&text), table).map_err(engine_error)
}

async fn game_sgf(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let TableArgs {
        tournament_id: id,
        round,
        table,
    } = p.decode(TABLE)?;
    let (mut out, at) = read(&ctx, id, |t, _| {
        // Refused before the game is looked for, so that not even the tables show.
        if t.data.round(round).is_some()
            && !visibility::is_public(&t.data, round)
            && public_only(&ctx, p.caller(), t)
        {
            return Err(not_published(round));
        }
        let g = t.game(round, table).map_err(engine_error)?;
        let at = g
            .record
            .clone()
            .ok_or_else(|| engine_error(TournamentError::NoRecord { round, table }))?;
        Ok::<_, RpcError>((
            json!({
                "round": round,
                "table": table,
                "white": g.white,
                "black": g.black,
                "result": result_code(g.outcome, g.forfeit),
            }),
            at,
        ))
    })
    .await??;
    let record = game_record(&ctx, id, table, &at).await?;
    out["sgf"] = json!(record.sgf);
    out["warnings"] = json!(record.warnings);
    Ok(out)
}

// ---- parameters ----------------------------------------------------------------------------
//
// Each method's parameters as one struct (members in the table's order, optional ones
// `#[serde(default)]`), read with `Params::decode` and described by `rpc.discover`.

#[derive(Deserialize, JsonSchema)]
struct CreateArgs {
    /// Settings over OpenGotha's defaults for the system (`system` first).
    #[serde(default)]
    #[schemars(with = "Option<Settings>")]
    settings: Option<Value>,
    #[serde(default)]
    options: Option<CreateOptions>,
}

#[derive(Deserialize, JsonSchema)]
struct IdArgs {
    tournament_id: TournamentId,
}

#[derive(Deserialize, JsonSchema)]
struct IdOptionsArgs<O> {
    tournament_id: TournamentId,
    #[serde(default)]
    options: Option<O>,
}

#[derive(Deserialize, JsonSchema)]
struct EventsArgs {
    tournament_id: TournamentId,
    /// The revision to read after (default 0: from the start).
    #[serde(default)]
    since_revision: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
struct SettingsSetArgs {
    tournament_id: TournamentId,
    /// The members to change, laid over the current settings.
    #[schemars(with = "Settings")]
    settings: Value,
    #[serde(default)]
    options: Option<Guard>,
}

/// `tournament.settings.check`'s parameters: any object (the check says what is wrong).
#[derive(JsonSchema)]
#[allow(dead_code)]
struct SettingsCheckArgs {
    /// Settings as `tournament.create` (or, with `options.tournament_id`,
    /// `tournament.settings.set`) would take them.
    #[schemars(with = "serde_json::Map<String, Value>")]
    settings: Value,
    options: Option<SettingsCheckOptions>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct SettingsCheckOptions {
    /// Check them as a change of this tournament's settings.
    tournament_id: Option<TournamentId>,
}

/// `tournament.settings.check`'s answer: what would be stored, or the refusal.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct SettingsChecked {
    /// Whether the settings would be taken.
    ok: bool,
    /// When ok: the settings as they would be stored.
    settings: Option<Settings>,
    /// When ok: the EGF tournament class the time control implies (A, B, C or D).
    egf_class: Option<String>,
    /// When ok: rounds already paired (0 for a new tournament).
    paired_rounds: Option<u32>,
    /// When ok: the settings keys that would change (`mcmahon.bar`).
    changed: Option<Vec<String>>,
    /// When ok: the changed keys that alter what paired rounds count for.
    alters_played: Option<Vec<String>>,
    /// When refused: the path of what is refused (`settings.mcmahon.bar`).
    field: Option<String>,
    /// When refused: the refusal, as create or settings.set would say it.
    message: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct PlayerAddArgs {
    tournament_id: TournamentId,
    /// The player (its `id` is assigned).
    #[schemars(with = "Player")]
    player: Value,
    #[serde(default)]
    options: Option<Guard>,
}

#[derive(Deserialize, JsonSchema)]
struct PlayerUpdateArgs {
    tournament_id: TournamentId,
    player_id: PlayerId,
    /// The members to change.
    #[schemars(with = "Player")]
    fields: Value,
    #[serde(default)]
    options: Option<Guard>,
}

#[derive(Deserialize, JsonSchema)]
struct PlayerOptionsArgs<O> {
    tournament_id: TournamentId,
    player_id: PlayerId,
    #[serde(default)]
    options: Option<O>,
}

#[derive(Deserialize, JsonSchema)]
struct ParticipationArgs {
    tournament_id: TournamentId,
    player_id: PlayerId,
    /// The rounds the player skips (at most 1000).
    skip: Vec<RoundNumber>,
    #[serde(default)]
    options: Option<Guard>,
}

#[derive(Deserialize, JsonSchema)]
struct RoundArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
}

#[derive(Deserialize, JsonSchema)]
struct RoundOptionsArgs<O> {
    tournament_id: TournamentId,
    round: RoundNumber,
    #[serde(default)]
    options: Option<O>,
}

#[derive(Deserialize, JsonSchema)]
struct SetGamesArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    /// The round's games (at most 10,000).
    games: Vec<GameIn>,
    #[serde(default)]
    options: Option<SetGamesOptions>,
}

#[derive(Deserialize, JsonSchema)]
struct AddGameArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    game: GameIn,
    #[serde(default)]
    options: Option<Guard>,
}

#[derive(Deserialize, JsonSchema)]
struct RemoveGameArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    table: u32,
    #[serde(default)]
    options: Option<Guard>,
}

#[derive(Deserialize, JsonSchema)]
struct SwapArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    player_a: PlayerId,
    player_b: PlayerId,
    #[serde(default)]
    options: Option<Guard>,
}

#[derive(Deserialize, JsonSchema)]
struct ExplainArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    player_a: PlayerId,
    /// Absent: player_a's bye weight.
    #[serde(default)]
    player_b: Option<PlayerId>,
    #[serde(default)]
    options: Option<ExplainParams>,
}

#[derive(Deserialize, JsonSchema)]
struct ResultSetArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    table: u32,
    #[schemars(with = "out::ResultCodeInput")]
    result: String,
    #[serde(default)]
    options: Option<ResultOptions>,
}

#[derive(Deserialize, JsonSchema)]
struct TableArgs {
    tournament_id: TournamentId,
    round: RoundNumber,
    table: u32,
}

const CREATE: &[Param] = &[Param::opt("settings", "struct"), OPTS];
const ID: &[Param] = &[TID];
const ID_OPTIONS: &[Param] = &[TID, OPTS];
const EVENTS: &[Param] = &[TID, Param::opt("since_revision", "int")];
const SETTINGS_SET: &[Param] = &[TID, Param::req("settings", "struct"), OPTS];
const PLAYER_ADD: &[Param] = &[TID, Param::req("player", "struct"), OPTS];
const PLAYER_UPDATE: &[Param] = &[
    TID,
    Param::req("player_id", "int"),
    Param::req("fields", "struct"),
    OPTS,
];
const PLAYER_OPTIONS: &[Param] = &[TID, Param::req("player_id", "int"), OPTS];
const PARTICIPATION: &[Param] = &[
    TID,
    Param::req("player_id", "int"),
    Param::req("skip", "array"),
    OPTS,
];
const ROUND: &[Param] = &[TID, Param::req("round", "int")];
const ROUND_OPTIONS: &[Param] = &[TID, Param::req("round", "int"), OPTS];
const SET_GAMES: &[Param] = &[
    TID,
    Param::req("round", "int"),
    Param::req("games", "array"),
    OPTS,
];
const ADD_GAME: &[Param] = &[
    TID,
    Param::req("round", "int"),
    Param::req("game", "struct"),
    OPTS,
];
const REMOVE_GAME: &[Param] = &[
    TID,
    Param::req("round", "int"),
    Param::req("table", "int"),
    OPTS,
];
const SWAP: &[Param] = &[
    TID,
    Param::req("round", "int"),
    Param::req("player_a", "int"),
    Param::req("player_b", "int"),
    OPTS,
];
const EXPLAIN: &[Param] = &[
    TID,
    Param::req("round", "int"),
    Param::req("player_a", "int"),
    Param::opt("player_b", "int"),
    Param::opt("options", "struct"),
];
const RESULT_SET: &[Param] = &[
    TID,
    Param::req("round", "int"),
    Param::req("table", "int"),
    Param::req("result", "string"),
    OPTS,
];
const TABLE: &[Param] = &[TID, Param::req("round", "int"), Param::req("table", "int")];

/// Codes of every write to a tournament.
const WRITE: &[i32] = &[1001, 1002, 1003, 1038, -32008, -32009, -32010];
/// Codes of every read of a tournament.
const READ: &[i32] = &[1001, -32008];

// ---- the table -------------------------------------------------------------------------------

macro_rules! async_handler {
    ($f:ident) => {
        Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture { Box::pin($f(ctx, p)) })
    };
}

const TID: Param = Param::req("tournament_id", "int");
const OPTS: Param = Param::opt("options", "struct");

pub static METHODS: &[Method] = &[
    Method {
        name: "tournament.create",
        access: Access::Create,
        params: CREATE,
        returns: "struct",
        help: "Creates a tournament: settings (name, rounds, system mcmahon|swiss|swisscat|cup, \
               komi2, mcmahon{bar,floor}, handicap{…}, scoring{…}, placement[…], pairing{…}, …) \
               over OpenGotha's defaults for the system; options {seed}. → {id, revision, \
               director_token} (keep the token: with auth on, writes need it).",
        doc: Doc::typed::<CreateArgs, out::Created>()
            .errors(&[1010, 1038, -32008, -32009, -32010, -32011]),
        handler: async_handler!(create),
    },
    Method {
        name: "tournament.token.rotate",
        access: Access::Director,
        params: ID,
        returns: "struct",
        help: "Replaces the tournament's director token (director or admin token needed when \
               auth is on) → {director_token, revision}; the old token stops working.",
        doc: Doc::typed::<IdArgs, out::TokenRotated>().errors(WRITE),
        handler: async_handler!(token_rotate),
    },
    Method {
        name: "tournament.get",
        access: Access::Public,
        params: ID,
        returns: "struct",
        help: "The whole tournament: summary, settings, players, rounds_detail (games, byes).",
        doc: Doc::typed::<IdArgs, out::Whole>().errors(READ),
        handler: async_handler!(get),
    },
    Method {
        name: "tournament.list",
        access: Access::Public,
        params: &[],
        returns: "array",
        help: "Every tournament: {id, name, system, rounds, paired_rounds, players, archived, \
               revision}.",
        doc: Doc::typed::<NoParams, Vec<out::Summary>>().errors(&[-32008]),
        handler: async_handler!(list),
    },
    Method {
        name: "tournament.delete",
        access: Access::Director,
        params: ID_OPTIONS,
        returns: "struct",
        help: "Deletes a tournament and its log for good; options {if_revision}.",
        doc: Doc::typed::<IdOptionsArgs<Guard>, out::Deleted>().errors(WRITE),
        handler: async_handler!(delete),
    },
    Method {
        name: "tournament.archive",
        access: Access::Director,
        params: ID_OPTIONS,
        returns: "struct",
        help: "Archives (read-only) or, with options {archived: false}, unarchives.",
        doc: Doc::typed::<IdOptionsArgs<ArchiveOptions>, out::Archived>().errors(WRITE),
        handler: async_handler!(archive),
    },
    Method {
        name: "tournament.events",
        access: Access::Public,
        params: EVENTS,
        returns: "struct",
        help: "The event log after a revision (default 0), as stored, at most 1000 events and \
               1 MiB of them per call (at least one): {revision, events: [{revision, kind, \
               round?, event}], more, next_since} (next_since: the since_revision of the next \
               page).",
        doc: Doc::typed::<EventsArgs, out::EventsPage>().errors(READ),
        handler: async_handler!(events),
    },
    Method {
        name: "tournament.settings.set",
        access: Access::Director,
        params: SETTINGS_SET,
        returns: "struct",
        help: "Changes settings: the given members are laid over the current ones.",
        doc: Doc::typed::<SettingsSetArgs, out::SettingsSet>()
            .errors(&[1001, 1002, 1003, 1010, 1030, 1038, -32008, -32009, -32010]),
        handler: async_handler!(settings_set),
    },
    Method {
        name: "tournament.settings.check",
        access: Access::Public,
        params: &[Param::req("settings", "struct"), OPTS],
        returns: "struct",
        help: "Checks settings as tournament.create would take them (or tournament.settings.set, \
               with options {tournament_id}), storing nothing → {ok: true, settings, egf_class, \
               paired_rounds, changed, alters_played} or {ok: false, field, message} (field: \
               the path of what is refused, as settings.mcmahon.bar).",
        doc: Doc::typed::<SettingsCheckArgs, SettingsChecked>().errors(&[1001, 1010]),
        handler: async_handler!(settings_check),
    },
    Method {
        name: "tournament.player.add",
        access: Access::Director,
        params: PLAYER_ADD,
        returns: "struct",
        help: "Registers a player {name, first_name, rank (3d / 12k or −30…8), rating, club, \
               country, egf_pin, aga_id, mms_correction, skip[], registration} → {player_id, \
               revision}. After round k is paired, rounds 1…k are skipped (late entry).",
        doc: Doc::typed::<PlayerAddArgs, out::PlayerAdded>().errors(&[
            1001, 1002, 1003, 1010, 1012, 1013, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(player_add),
    },
    Method {
        name: "tournament.player.update",
        access: Access::Director,
        params: PLAYER_UPDATE,
        returns: "struct",
        help: "Changes a player's fields (the others are kept).",
        doc: Doc::typed::<PlayerUpdateArgs, out::PlayerUpdated>().errors(&[
            1001, 1002, 1003, 1010, 1011, 1012, 1030, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(player_update),
    },
    Method {
        name: "tournament.player.withdraw",
        access: Access::Director,
        params: PLAYER_OPTIONS,
        returns: "struct",
        help: "Withdraws a player after a round (options {after_round}, default the last \
               paired one); options {reinstate: true} undoes it.",
        doc: Doc::typed::<PlayerOptionsArgs<WithdrawOptions>, out::Withdrawn>().errors(&[
            1001, 1002, 1003, 1010, 1011, 1020, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(player_withdraw),
    },
    Method {
        name: "tournament.player.set_participation",
        access: Access::Director,
        params: PARTICIPATION,
        returns: "struct",
        help: "Sets the rounds a player skips (refused for a round they are paired in).",
        doc: Doc::typed::<ParticipationArgs, out::Revision>().errors(&[
            1001, 1002, 1003, 1010, 1011, 1030, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(player_participation),
    },
    Method {
        name: "tournament.player.remove",
        access: Access::Director,
        params: PLAYER_OPTIONS,
        returns: "struct",
        help: "Removes a player who never played (withdraw the others).",
        doc: Doc::typed::<PlayerOptionsArgs<Guard>, out::Removed>()
            .errors(&[1001, 1002, 1003, 1011, 1030, 1038, -32008, -32009, -32010]),
        handler: async_handler!(player_remove),
    },
    Method {
        name: "tournament.player.list",
        access: Access::Public,
        params: ID,
        returns: "array",
        help: "Every player, in id order.",
        doc: Doc::typed::<IdArgs, Vec<out::PlayerOut>>().errors(READ),
        handler: async_handler!(player_list),
    },
    Method {
        name: "tournament.round.pair",
        access: Access::Director,
        params: ROUND_OPTIONS,
        returns: "struct",
        help: "Pairs the next round with OpenGotha's weight (options {players: [ids]} to pair \
               only some; model: opengotha (default) | gopair | opengotha_terms | custom | \
               {preset, weights, bye} for pairing.*'s cost models): games with tables, \
               colours, handicap, weight (cost under a model); byes.",
        doc: Doc::typed::<RoundOptionsArgs<PairParams>, out::Paired>().errors(&[
            1001, 1002, 1003, 1011, 1021, 1023, 1024, 1034, 1036, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(round_pair),
    },
    Method {
        name: "tournament.round.unpair",
        access: Access::Director,
        params: ROUND_OPTIONS,
        returns: "struct",
        help: "Withdraws the last round's pairing (options {force: true} drops its results too).",
        doc: Doc::typed::<RoundOptionsArgs<UnpairOptions>, out::Unpaired>().errors(&[
            1001, 1002, 1003, 1020, 1021, 1022, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(round_unpair),
    },
    Method {
        name: "tournament.round.set_games",
        access: Access::Director,
        params: SET_GAMES,
        returns: "struct",
        help: "Sets a round by hand: games [{white, black, table?, handicap?, komi2?}] \
               (handicap and komi OpenGotha's unless given), options {byes}.",
        doc: Doc::typed::<SetGamesArgs, out::RoundChanged>().errors(&[
            1001, 1002, 1003, 1011, 1021, 1025, 1026, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(round_set_games),
    },
    Method {
        name: "tournament.round.add_game",
        access: Access::Director,
        params: ADD_GAME,
        returns: "struct",
        help: "Adds a game {white, black, table?, handicap?, komi2?} to the last paired round.",
        doc: Doc::typed::<AddGameArgs, out::GameAdded>().errors(&[
            1001, 1002, 1003, 1011, 1020, 1021, 1025, 1026, 1027, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(round_add_game),
    },
    Method {
        name: "tournament.round.remove_game",
        access: Access::Director,
        params: REMOVE_GAME,
        returns: "struct",
        help: "Removes a game without a result from the last paired round.",
        doc: Doc::typed::<RemoveGameArgs, out::Revision>().errors(&[
            1001, 1002, 1003, 1020, 1021, 1028, 1029, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(round_remove_game),
    },
    Method {
        name: "tournament.round.swap",
        access: Access::Director,
        params: SWAP,
        returns: "struct",
        help: "Swaps two players of the last paired round (same game: colours; else seats or \
               the bye, with colours and handicap recomputed).",
        doc: Doc::typed::<SwapArgs, out::RoundChanged>().errors(&[
            1001, 1002, 1003, 1011, 1020, 1021, 1022, 1026, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(round_swap),
    },
    Method {
        name: "tournament.round.publish",
        access: Access::Director,
        params: ROUND_OPTIONS,
        returns: "struct",
        help: "Publishes a round's pairing (options {published: false} withdraws it).",
        doc: Doc::typed::<RoundOptionsArgs<PublishOptions>, out::Published>()
            .errors(&[1001, 1002, 1003, 1020, 1038, -32008, -32009, -32010]),
        handler: async_handler!(round_publish),
    },
    Method {
        name: "tournament.round.get",
        access: Access::Public,
        params: ROUND,
        returns: "struct",
        help: "One round: {round, paired, published, games, byes, revision}.",
        doc: Doc::typed::<RoundArgs, out::RoundOut>().errors(&[1001, 1020, -32008]),
        handler: async_handler!(round_get),
    },
    Method {
        name: "tournament.round.explain",
        access: Access::Public,
        params: EXPLAIN,
        returns: "struct",
        help: "OpenGotha's weight of a pair for a round (paired or next), term by term, and the \
               board it gives; without player_b, player_a's bye weight. options {model} as in \
               round.pair: under a weighted-term model, the pair's cost instead → {model, cost, \
               terms{name: {measure, weight, cost}}, games_before, forbidden, board}.",
        doc: Doc::typed::<ExplainArgs, out::Explained>()
            .errors(&[1001, 1011, 1020, 1036, 1037, -32008]),
        handler: async_handler!(round_explain),
    },
    Method {
        name: "tournament.round.warnings",
        access: Access::Public,
        params: ROUND,
        returns: "struct",
        help: "Warnings on a round's games before publishing: same_club, same_country, repeated \
               (played in an earlier round), big_handicap (above big_handicap_threshold: 4, or \
               the handicap ceiling if lower), colour (a player's whites - blacks in even games \
               after this round beyond ±colour_tolerance, 1) → {round, paired, published, \
               big_handicap_threshold, colour_tolerance, games[{table, warnings[{kind, ...}]}], \
               revision}.",
        doc: Doc::typed::<RoundArgs, out::RoundWarnings>().errors(&[1001, 1020, -32008]),
        handler: async_handler!(round_warnings),
    },
    Method {
        name: "tournament.result.set",
        access: Access::Director,
        params: RESULT_SET,
        returns: "struct",
        help: "Sets or corrects a result: W+, B+, jigo, both_win, both_lose, ? (OpenGotha, \
               pairgoth and SGF spellings too; ! = forfeit); options {sgf, strict, forfeit, \
               remove_record} → {revision, result, warnings}.",
        doc: Doc::typed::<ResultSetArgs, out::ResultSet>().errors(&[
            1001, 1002, 1003, 1020, 1028, 1031, 1032, 1033, 1038, -32008, -32009, -32010,
        ]),
        handler: async_handler!(result_set),
    },
    Method {
        name: "tournament.game.sgf",
        access: Access::Public,
        params: TABLE,
        returns: "struct",
        help: "A game's stored record: {sgf, warnings, white, black, result}.",
        doc: Doc::typed::<TableArgs, out::GameRecord>()
            .errors(&[1001, 1020, 1028, 1035, 1037, -32008]),
        handler: async_handler!(game_sgf),
    },
];
