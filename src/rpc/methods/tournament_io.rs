//! `tournament.import` and the whole-file formats of `tournament.export`: tournaments in and
//! out of the daemon as OpenGotha XML and AGA files (src/tournament/formats). An import becomes a new tournament
//! whose log is ordinary events (created, one player_registered per player, one round_paired
//! per round with its results), stored in one transaction before the answer, so it is as
//! durable and replayable as a tournament built call by call. Codes 1060–1079 are this
//! file's (docs/tournament.md).

use std::collections::HashSet;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::tournament::registry_error;
use crate::rpc::{Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::tournament::engine::{FORMAT, check_player, check_settings};
use crate::tournament::formats::{aga, opengotha_xml};
use crate::tournament::model::TournamentData;
use crate::tournament::{Event, Tournament};

pub mod codes {
    /// The format is not one of the known names.
    pub const UNKNOWN_FORMAT: i32 = 1060;
    /// The file could not be read (the message names the element or line).
    pub const BAD_FILE: i32 = 1061;
    /// The file reads but is not a tournament goswiss can hold (the message says why).
    pub const NOT_IMPORTABLE: i32 = 1062;
    /// The AGA report was refused (the findings say why).
    pub const REPORT_REFUSED: i32 = 1063;
}

/// Largest import accepted, in bytes of text (a 1,000-player, 10-round OpenGotha file is
/// about 700 kB).
const MAX_IMPORT_BYTES: usize = 8 << 20;

fn not_importable(what: impl std::fmt::Display) -> RpcError {
    RpcError::new(codes::NOT_IMPORTABLE, format!("cannot import: {what}"))
}

/// The events that build `data` from nothing: the same checks the engine applies to each
/// piece (settings, players, round content), then a replay to be sure the log folds.
pub fn import_events(mut data: TournamentData, seed: u64) -> Result<Vec<Event>, RpcError> {
    let s = &mut data.settings;
    let last_round = data.rounds.len() as u32;
    if s.rounds < last_round {
        s.rounds = last_round;
    }
    // Forbidden pairs name player ids; they are set after the players exist.
    let forbidden = std::mem::take(&mut s.pairing.forbidden_pairs);
    check_settings(&data.settings).map_err(not_importable)?;
    if data.players.len() > crate::tournament::engine::MAX_PLAYERS {
        return Err(not_importable(format!(
            "{} players, at most {}",
            data.players.len(),
            crate::tournament::engine::MAX_PLAYERS
        )));
    }
    let mut events = vec![Event::Created {
        settings: data.settings.clone(),
        seed,
        format: FORMAT,
        director_token_sha256: None,
    }];
    let mut keys = HashSet::new();
    for (i, p) in data.players.iter_mut().enumerate() {
        p.id = i as u32 + 1;
        check_player(p)
            .map_err(|e| not_importable(format!("player {} {}: {e}", p.name, p.first_name)))?;
        if !keys.insert(p.opengotha_key()) {
            return Err(not_importable(format!(
                "two players are called {} {}",
                p.name, p.first_name
            )));
        }
        events.push(Event::PlayerRegistered { player: p.clone() });
    }
    let n = data.players.len() as u32;
    for (i, r) in data.rounds.iter().enumerate() {
        let round = i as u32 + 1;
        let mut seen = HashSet::new();
        let mut tables = HashSet::new();
        for g in &r.games {
            if g.table == 0 || !tables.insert(g.table) {
                return Err(not_importable(format!(
                    "round {round}: table {} is numbered twice or 0",
                    g.table
                )));
            }
            if g.handicap > 9 {
                return Err(not_importable(format!(
                    "round {round} table {}: handicap {}",
                    g.table, g.handicap
                )));
            }
        }
        for id in r
            .games
            .iter()
            .flat_map(|g| [g.white, g.black])
            .chain(r.byes.iter().copied())
        {
            if id == 0 || id > n || !seen.insert(id) {
                return Err(not_importable(format!(
                    "round {round}: player {id} appears twice or does not exist"
                )));
            }
        }
        let mut byes = r.byes.clone();
        byes.sort_unstable();
        events.push(Event::RoundPaired {
            round,
            games: r.games.clone(),
            byes,
            manual: true,
        });
        if r.published {
            events.push(Event::RoundPublished {
                round,
                published: true,
            });
        }
    }
    if !forbidden.is_empty() {
        let mut settings = data.settings.clone();
        settings.pairing.forbidden_pairs = forbidden;
        events.push(Event::settings_changed(&data.settings, &settings).map_err(not_importable)?);
    }
    Tournament::replay(&events).map_err(not_importable)?;
    Ok(events)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgaInput {
    register: String,
    #[serde(default)]
    rounds: Vec<String>,
}

fn text_size(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.iter().map(text_size).sum(),
        Value::Object(m) => m.values().map(text_size).sum(),
        _ => 0,
    }
}

/// Reads `data` in `format` into a tournament.
pub fn parse_import(format: &str, data: Value) -> Result<TournamentData, RpcError> {
    if text_size(&data) > MAX_IMPORT_BYTES {
        return Err(RpcError::invalid_params(format!(
            "data: more than {MAX_IMPORT_BYTES} bytes"
        )));
    }
    match format {
        "opengotha" | "opengotha_xml" => {
            let Value::String(text) = data else {
                return Err(RpcError::invalid_params(
                    "data: the OpenGotha XML file as a string",
                ));
            };
            opengotha_xml::read(&text).map_err(|e| RpcError::new(codes::BAD_FILE, e.to_string()))
        }
        "aga" => {
            let input: AgaInput = crate::rpc::input::from_value(&data, "data").map_err(|e| {
                RpcError::invalid_params(format!(
                    "{} (data: {{register: text of register.tde, rounds: [text of 1.tde, …]}})",
                    e.message
                ))
            })?;
            aga::import(&input.register, &input.rounds)
                .map_err(|e| RpcError::new(codes::BAD_FILE, e.to_string()))
        }
        other => Err(RpcError::new(
            codes::UNKNOWN_FORMAT,
            format!("unknown format {other:?} (opengotha or aga)"),
        )),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportOptions {
    seed: Option<u64>,
}

async fn import(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let format: String = p.get(0, "format")?;
    let data: Value = p.get(1, "data")?;
    let name: Option<String> = p.opt(2, "name")?;
    let o: ImportOptions = p.opt(3, "options")?.unwrap_or_default();
    let seed = o.seed.unwrap_or_else(|| rand::random::<u64>() >> 11);
    // Reading a file of thousands of players is heavy: off the async workers, within the
    // call's budget. Nothing exists before `create` below, so a stopped import leaves nothing.
    let ((players, rounds), mut events) = crate::app::work::off_workers(&ctx.heavy, move || {
        let mut t = parse_import(&format, data)?;
        if let Some(n) = name {
            t.settings.name = n;
        }
        let counts = (t.players.len(), t.rounds.len());
        Ok::<_, RpcError>((counts, import_events(t, seed)?))
    })
    .await?;
    // As tournament.create: the director token is in this reply only, its hash in the log.
    let (token, hashed) = crate::rpc::auth::new_token();
    if let Some(Event::Created {
        director_token_sha256,
        ..
    }) = events.first_mut()
    {
        *director_token_sha256 = Some(hashed);
    }
    let revision = events.len();
    let creator = crate::rpc::auth::Creator::of(&ctx, p.caller());
    let id = ctx
        .tournaments
        .create_owned(events, creator.owner())
        .await
        .map_err(registry_error)?
        .ok_or_else(|| creator.over_quota())?;
    Ok(json!({
        "id": id,
        "revision": revision,
        "players": players,
        "rounds": rounds,
        "director_token": token,
    }))
}

/// OpenGotha's `saveDT` for now (UTC), `yyyyMMddHHmmss`: the default of an export's
/// `save_dt`.
pub(super) fn now_save_dt() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}{m:02}{d:02}{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

macro_rules! async_handler {
    ($f:ident) => {
        Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture { Box::pin($f(ctx, p)) })
    };
}

pub static METHODS: &[Method] = &[Method {
    name: "tournament.import",
    access: Access::Create,
    params: &[
        Param::req("format", "string"),
        Param::req("data", "any"),
        Param::opt("name", "string"),
        Param::opt("options", "struct"),
    ],
    returns: "struct",
    help: "Creates a tournament from a file: format opengotha (data: the XML text) or aga \
               (data: {register, rounds:[1.tde text, …]}); name overrides the file's; options \
               {seed}. → {id, revision, players, rounds, director_token}.",
    doc: crate::rpc::openrpc::Doc::typed::<
        super::tournament_types::ImportArgs,
        super::tournament_types::Imported,
    >()
    .errors(&[
        1010, 1013, 1038, 1060, 1061, 1062, 1063, -32008, -32009, -32010, -32011,
    ]),
    handler: async_handler!(import),
}];
