//! `pairing.*`: stateless pairing of one round. The caller sends the players (id, rating,
//! score, wins, club, previous opponents, byes), a model (a preset name or a struct of
//! weights) and options; the answer is the exact optimum with a per-pair explanation.
//! Domain failures use codes 610–619 (see docs/pairing.md).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::pairing::model::{
    BYE_TERMS, ByeTerm, Field, Model, ModelError, Player, Seeding, TERMS, TermCost, UNIT,
    pair_round, pair_window,
};
use crate::pairing::opengotha as og;
use crate::pairing::{KothInput, KothPlayer, SolveOptions, pair_king_of_the_hill};
use crate::rpc::methods::boards;
use crate::rpc::{Access, Handler, Method, Param, Params, RpcError, RpcResult};

/// No pairing exists (forbidden pairs leave someone without an opponent).
pub const NO_PAIRING: i32 = 610;
/// Unknown model, preset, term or option value.
pub const UNKNOWN_MODEL: i32 = 611;
/// The model's costs are too large to be solved exactly.
pub const TOO_LARGE: i32 = 612;
/// More players than one call may pair (see `MAX_PLAYERS`).
pub const TOO_MANY_PLAYERS: i32 = 613;

/// Players per `pairing.pair` / `pairing.explain` call. Real fields are tens to a few
/// thousand players; the attack run measured 20,000 players in window mode at over 6 GB, so
/// the cap keeps one request's memory and time bounded.
pub const MAX_PLAYERS: usize = 10_000;

/// Upper bound on `options.neighbours` (solver tuning: candidates per player). It never
/// changes the optimum, only speed, so a client may lower it but not make it dense (n²).
pub const MAX_NEIGHBOURS: usize = 64;

/// Refuses an over-long `players` array before it is deserialized.
fn players_capped(p: &Params) -> Result<(), RpcError> {
    let n = match p.raw(0) {
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    };
    if n > MAX_PLAYERS {
        return Err(RpcError::new(
            TOO_MANY_PLAYERS,
            format!("{n} players: at most {MAX_PLAYERS} players per pairing call"),
        ));
    }
    Ok(())
}

use crate::rpc::openrpc::Doc;

/// What `rpc.discover` says of `pairing.*`.
mod doc {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde_json::Value;

    /// A player as the caller describes it (ids are any JSON value: numbers or strings).
    #[derive(JsonSchema)]
    #[schemars(rename = "PairingPlayer")]
    #[allow(dead_code)]
    pub struct PlayerIn {
        pub id: Value,
        pub rating: Option<f64>,
        pub score: Option<f64>,
        pub wins: Option<f64>,
        pub club: Option<String>,
        pub opponents: Option<Vec<Value>>,
        pub byes: Option<u32>,
        /// The `opengotha` model's members (rank, MMS…): docs/pairing.md.
        #[serde(flatten)]
        pub other: BTreeMap<String, Value>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct PairArgs {
        pub players: Vec<PlayerIn>,
        #[serde(default)]
        #[schemars(schema_with = "super::model_schema")]
        pub model: Option<Value>,
        /// docs/pairing.md: forbid_repeats, seeding, forbidden, pair_penalties, window, …
        pub options: Option<serde_json::Map<String, Value>>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct ExplainArgs {
        pub players: Vec<PlayerIn>,
        /// The two players' ids.
        pub pair: (Value, Value),
        #[serde(default)]
        #[schemars(schema_with = "super::model_schema")]
        pub model: Option<Value>,
        pub options: Option<serde_json::Map<String, Value>>,
    }

    /// One round's pairing.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Pairing {
        pub pairs: Option<Vec<(Value, Value)>>,
        pub model: Option<String>,
        pub boards: Option<Vec<BTreeMap<String, Value>>>,
        pub byes: Option<Vec<Value>>,
        pub repeats: Option<u64>,
        pub explanation: Option<Vec<BTreeMap<String, Value>>>,
    }
}

pub static METHODS: &[Method] = &[
    Method {
        name: "pairing.pair",
        access: Access::Public,
        params: &[
            Param::req("players", "array"),
            Param::opt("model", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Pairs one round exactly: players (struct: id, rating, score, wins, club, \
               opponents, byes; for opengotha: id, rank, games, bye_rounds, absent_rounds, …), \
               model (gopair, opengotha, rswiss, custom, or a struct of weights), options → \
               pairs, bye, objective, per-pair explanation (opengotha: boards with colours and \
               handicap, OpenGotha's criteria by name).",
        doc: Doc::typed::<doc::PairArgs, doc::Pairing>().errors(&[610, 611, 612, 613]),
        handler: Handler::Blocking(|_, p| pair(p)),
    },
    Method {
        name: "pairing.explain",
        access: Access::Public,
        params: &[
            Param::req("players", "array"),
            Param::req("pair", "array"),
            Param::opt("model", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "The cost terms of one candidate pair [id1, id2] (id2 \"BYE\" for the bye) under \
               a model, for the given field.",
        doc: Doc::typed::<doc::ExplainArgs, BTreeMap<String, Value>>().errors(&[611, 612, 613]),
        handler: Handler::Blocking(|_, p| explain(p)),
    },
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayerIn {
    id: Value,
    #[serde(default)]
    rating: f64,
    #[serde(default)]
    score: f64,
    #[serde(default)]
    wins: f64,
    #[serde(default)]
    club: Option<String>,
    #[serde(default)]
    opponents: Vec<Value>,
    #[serde(default)]
    byes: u32,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ModelIn {
    preset: Option<String>,
    #[serde(default)]
    weights: HashMap<String, f64>,
    #[serde(default)]
    bye: HashMap<String, f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OptionsIn {
    forbid_repeats: Option<bool>,
    allow_repeat: Option<bool>,
    aga_collapse: Option<bool>,
    rounds: Option<u32>,
    round: Option<u32>,
    seeding: Option<String>,
    #[serde(default)]
    forbidden: Vec<(Value, Value)>,
    #[serde(default)]
    pair_penalties: Vec<(Value, Value, f64)>,
    neighbours: Option<usize>,
    window: Option<usize>,
    /// Boards after matching (gopair / custom): "aga" (default) or "none".
    handicap: Option<String>,
    handicap_convention: Option<String>,
    handicap_cap: Option<u32>,
    colour_seed: Option<u64>,
}

/// Ids may be strings or integers on the wire; they are compared as text and given back as
/// they came.
fn id_text(v: &Value) -> Result<String, RpcError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
        other => Err(RpcError::invalid_params(format!(
            "a player id must be a string or an integer, got {other}"
        ))),
    }
}

fn players_in(p: &Params) -> Result<(Vec<Player>, Vec<Value>), RpcError> {
    players_capped(p)?;
    let raw: Vec<PlayerIn> = p.get(0, "players")?;
    let mut players = Vec::with_capacity(raw.len());
    let mut ids = Vec::with_capacity(raw.len());
    for r in raw {
        let opponents = r.opponents.iter().map(id_text).collect::<Result<_, _>>()?;
        players.push(Player {
            id: id_text(&r.id)?,
            rating: r.rating,
            score: r.score,
            wins: r.wins,
            club: r.club.unwrap_or_default(),
            opponents,
            byes: r.byes,
        });
        ids.push(r.id);
    }
    Ok((players, ids))
}

/// Why a model description was refused: its shape (not a name or a `{preset, weights, bye}`
/// struct) or an unknown name (preset, term, bye term). Each namespace gives these its codes.
pub(crate) enum SpecError {
    Shape(String),
    Unknown(String),
}

/// A weighted-term model from its description: a preset name, or `{preset?, weights?: {term:
/// weight}, bye?: {bye_term: weight}}` over the preset (`custom`, no terms, without one); a
/// weight replaces the preset's, 0 removes the term. Shared by `pairing.pair` and
/// `tournament.round.pair`.
/// `path` is where the description is in the call (`model`, `options.model`), for messages.
pub(crate) fn model_spec(raw: &Value, path: &str) -> Result<Model, SpecError> {
    let spec: ModelIn = match raw {
        Value::String(s) => ModelIn {
            preset: Some(s.clone()),
            ..ModelIn::default()
        },
        v => crate::rpc::input::from_value(v, path).map_err(|e| SpecError::Shape(e.message))?,
    };
    let preset = spec.preset.as_deref().unwrap_or("custom");
    let mut m = Model::preset(preset).ok_or_else(|| {
        SpecError::Unknown(format!(
            "{path}: unknown model {preset:?}: use gopair, opengotha, opengotha_terms, rswiss or \
             custom"
        ))
    })?;
    let mut weights: Vec<(&String, &f64)> = spec.weights.iter().collect();
    weights.sort_by(|a, b| a.0.cmp(b.0));
    for (name, &w) in weights {
        let t = TERMS
            .iter()
            .find(|(_, n)| *n == name.as_str())
            .map(|(t, _)| *t)
            .ok_or_else(|| {
                let terms: Vec<&str> = TERMS.iter().map(|(_, n)| *n).collect();
                SpecError::Unknown(format!(
                    "{path}.weights.{name}: unknown term {name:?} (nearest: {:?}); terms are {}",
                    crate::rpc::input::nearest(name, &terms).unwrap_or_default(),
                    terms.join(", ")
                ))
            })?;
        m.terms.retain(|(x, _)| *x != t);
        if w != 0.0 {
            m.terms.push((t, w));
        }
    }
    let mut bye: Vec<(&String, &f64)> = spec.bye.iter().collect();
    bye.sort_by(|a, b| a.0.cmp(b.0));
    for (name, &w) in bye {
        let t: ByeTerm = BYE_TERMS
            .iter()
            .find(|(_, n)| *n == name.as_str())
            .map(|(t, _)| *t)
            .ok_or_else(|| {
                let terms: Vec<&str> = BYE_TERMS.iter().map(|(_, n)| *n).collect();
                SpecError::Unknown(format!(
                    "{path}.bye.{name}: unknown bye term {name:?} (nearest: {:?}); bye terms are \
                     {}",
                    crate::rpc::input::nearest(name, &terms).unwrap_or_default(),
                    terms.join(", ")
                ))
            })?;
        m.bye.retain(|(x, _)| *x != t);
        if w != 0.0 {
            m.bye.push((t, w));
        }
    }
    m.terms.sort_by_key(|(t, _)| *t);
    m.bye.sort_by_key(|(t, _)| *t);
    Ok(m)
}

fn model_in(p: &Params, index: usize, opts: &OptionsIn) -> Result<Model, RpcError> {
    let raw = p.raw(index).cloned().unwrap_or(Value::Null);
    let raw = match raw {
        Value::Null => Value::String("gopair".to_string()),
        v => v,
    };
    let mut m = model_spec(&raw, "model").map_err(|e| match e {
        SpecError::Shape(m) => RpcError::invalid_params(m),
        SpecError::Unknown(m) => RpcError::new(UNKNOWN_MODEL, m),
    })?;
    if let Some(f) = opts.forbid_repeats {
        m.forbid_repeats = f;
    }
    if let Some(a) = opts.aga_collapse {
        m.aga_collapse = a;
    }
    m.rounds = opts.rounds.unwrap_or(0);
    m.round = opts.round.unwrap_or(0);
    match opts.seeding.as_deref() {
        None => {}
        Some("fold") => m.seeding = Seeding::Fold,
        Some("slip") => m.seeding = Seeding::Slip,
        Some(s) => {
            return Err(RpcError::new(
                UNKNOWN_MODEL,
                format!("unknown seeding {s:?}: fold or slip"),
            ));
        }
    }
    Ok(m)
}

fn options_in(p: &Params, index: usize) -> Result<OptionsIn, RpcError> {
    Ok(p.opt(index, "options")?.unwrap_or_default())
}

/// A micro-unit amount in model units: an integer when it is one, else a double.
/// The schema of a cost model as `pairing.*` and `tournament.round.pair` read it: a preset's
/// name, or `{preset, weights, bye}`.
pub(crate) fn model_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "A cost model: a preset's name (opengotha, gopair, opengotha_terms, \
            rswiss, custom) or {preset, weights: {term: weight}, bye: {term: weight}}.",
        "anyOf": [
            {"type": "string", "enum": ["opengotha", "gopair", "opengotha_terms", "rswiss", "custom"]},
            {
                "type": "object",
                "properties": {
                    "preset": {"type": "string"},
                    "weights": {"type": "object", "additionalProperties": {"type": "number"}},
                    "bye": {"type": "object", "additionalProperties": {"type": "number"}},
                },
                "additionalProperties": false,
            },
            {"type": "null"},
        ],
    })
}

pub(crate) fn amount(micro: i128) -> Value {
    if micro % UNIT == 0 {
        let whole = micro / UNIT;
        if let Ok(i) = i64::try_from(whole) {
            return json!(i);
        }
    }
    json!(micro as f64 / UNIT as f64)
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

pub(crate) fn terms_json(terms: &[TermCost]) -> Value {
    let mut m = Map::new();
    for t in terms {
        m.insert(
            t.name.to_string(),
            json!({"measure": number(t.measure), "weight": number(t.weight), "cost": amount(t.cost)}),
        );
    }
    Value::Object(m)
}

type IdPairs = Vec<(String, String)>;
type Penalties = Vec<(String, String, f64)>;

fn model_error(e: ModelError) -> RpcError {
    match e {
        ModelError::Invalid(m) if m.contains("too large") => RpcError::new(TOO_LARGE, m),
        ModelError::Invalid(m) => RpcError::invalid_params(m),
        ModelError::NoPairing(m) => RpcError::new(NO_PAIRING, m),
    }
}

fn pairs_in(opts: &OptionsIn) -> Result<(IdPairs, Penalties), RpcError> {
    let forbidden = opts
        .forbidden
        .iter()
        .map(|(a, b)| Ok((id_text(a)?, id_text(b)?)))
        .collect::<Result<Vec<_>, RpcError>>()?;
    let penalties = opts
        .pair_penalties
        .iter()
        .map(|(a, b, c)| Ok((id_text(a)?, id_text(b)?, *c)))
        .collect::<Result<Vec<_>, RpcError>>()?;
    Ok((forbidden, penalties))
}

/// `pairing.pair(players, model?, options?)`.
pub fn pair(p: &Params) -> RpcResult {
    if is_opengotha(p, 1)? {
        return og_pair(p);
    }
    let (players, ids) = players_in(p)?;
    let opts = options_in(p, 2)?;
    let model = model_in(p, 1, &opts)?;
    if model.name == "rswiss" {
        return pair_rswiss(&players, &ids, &opts);
    }
    let (forbidden, penalties) = pairs_in(&opts)?;
    let field = Field::new(&model, &players, &forbidden, &penalties).map_err(model_error)?;
    let mut so = SolveOptions::default();
    if let Some(k) = opts.neighbours {
        so.neighbours = k.clamp(1, MAX_NEIGHBOURS);
    }
    let round = match opts.window {
        None => pair_round(&field, so),
        // Pair::Best's search grows as (2w − 1)!! per step: keep it to what it used.
        Some(w @ 1..=8) => pair_window(&field, w),
        Some(w) => {
            return Err(RpcError::invalid_params(format!(
                "options.window must be 1 to 8 (Pair::Best's window size), got {w}"
            )));
        }
    }
    .map_err(model_error)?;
    let pairs: Vec<Value> = round
        .pairs
        .iter()
        .map(|x| json!([ids[x.a], ids[x.b]]))
        .collect();
    let explanation: Vec<Value> = round
        .pairs
        .iter()
        .map(|x| {
            json!({
                "pair": [ids[x.a], ids[x.b]],
                "cost": amount(x.cost),
                "games_before": x.games_before,
                "terms": terms_json(&x.terms),
            })
        })
        .collect();
    let mut out = json!({
        "model": model.name,
        "mode": if opts.window.is_some() { "window" } else { "exact" },
        "pairs": pairs,
        "objective": amount(round.objective),
        "repeats": round.repeats,
        "explanation": explanation,
    });
    if let Some((b, cost, terms)) = &round.bye {
        out["bye"] = ids[*b].clone();
        out["bye_explanation"] = json!({"cost": amount(*cost), "terms": terms_json(terms)});
    }
    // Colours and handicap are decided after matching (docs/pairing.md, "Boards"), from the ratings as the
    // model reads them (AGA-collapsed when it collapses them).
    let bo = boards::options(
        opts.handicap.as_deref(),
        opts.handicap_convention.as_deref(),
        opts.handicap_cap,
        opts.colour_seed,
    )?;
    let seat = |i: usize| boards::Seat {
        id: &ids[i],
        rating: if model.aga_collapse {
            crate::aga::rating::collapse_value(players[i].rating)
        } else {
            players[i].rating
        },
    };
    out["boards"] = round
        .pairs
        .iter()
        .map(|x| boards::board(&seat(x.a), &seat(x.b), &bo))
        .collect();
    Ok(out)
}

/// The played counts of a field by pairing position, from both players' opponent lists.
fn played_counts(
    players: &[Player],
    order: &[usize],
) -> Result<Vec<(usize, usize, u32)>, RpcError> {
    let mut pos: HashMap<&str, usize> = HashMap::new();
    for (k, &i) in order.iter().enumerate() {
        if pos.insert(players[i].id.as_str(), k).is_some() {
            return Err(RpcError::invalid_params(format!(
                "player id {:?} appears twice",
                players[i].id
            )));
        }
    }
    let mut seen: HashMap<(usize, usize, bool), u32> = HashMap::new();
    for (k, &i) in order.iter().enumerate() {
        for o in &players[i].opponents {
            let j = *pos.get(o.as_str()).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "opponents of {:?}: unknown player id {o:?}",
                    players[i].id
                ))
            })?;
            if j == k {
                return Err(RpcError::invalid_params(format!(
                    "{:?} lists itself as an opponent",
                    players[i].id
                )));
            }
            *seen.entry((k.min(j), k.max(j), k < j)).or_insert(0) += 1;
        }
    }
    let mut games: HashMap<(usize, usize), u32> = HashMap::new();
    for ((a, b, _), c) in seen {
        let e = games.entry((a, b)).or_insert(0);
        *e = (*e).max(c);
    }
    let mut out: Vec<(usize, usize, u32)> =
        games.into_iter().map(|((a, b), c)| (a, b, c)).collect();
    out.sort_unstable();
    Ok(out)
}

fn rswiss_order(players: &[Player]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| {
        players[b]
            .score
            .total_cmp(&players[a].score)
            .then(a.cmp(&b))
    });
    order
}

fn koth_input_checked(players: &[Player]) -> Result<Vec<KothPlayer>, RpcError> {
    let order = rswiss_order(players);
    order
        .iter()
        .map(|&i| {
            let s = players[i].score * 2.0;
            if !s.is_finite() || s.fract() != 0.0 || s.abs() > 1e12 {
                return Err(RpcError::invalid_params(format!(
                    "rswiss model: score {} of {:?} must be a multiple of 0.5",
                    players[i].score, players[i].id
                )));
            }
            Ok(KothPlayer {
                score_halves: s as i64,
                byes: players[i].byes,
            })
        })
        .collect()
}

fn pair_rswiss(players: &[Player], ids: &[Value], opts: &OptionsIn) -> RpcResult {
    let order = rswiss_order(players);
    let kp = koth_input_checked(players)?;
    let played = played_counts(players, &order)?;
    let input = KothInput {
        players: &kp,
        played: &played,
        allow_repeat: opts.allow_repeat.unwrap_or(false),
    };
    let r = pair_king_of_the_hill(&input).map_err(|e| RpcError::new(NO_PAIRING, e.message))?;
    let met: HashMap<(usize, usize), u32> = played.iter().map(|&(a, b, c)| ((a, b), c)).collect();
    let mut gaps = 0i64;
    let mut dist = 0i64;
    let mut explanation = Vec::new();
    let mut pairs = Vec::new();
    for &(a, b) in &r.pairs {
        let g = kp[a].score_halves - kp[b].score_halves;
        let d = (b - a) as i64;
        gaps += g * g;
        dist += d * d;
        let (ia, ib) = (&ids[order[a]], &ids[order[b]]);
        pairs.push(json!([ia, ib]));
        explanation.push(json!({
            "pair": [ia, ib],
            "games_before": met.get(&(a, b)).copied().unwrap_or(0),
            "terms": {
                "score_gap_halves_squared": g * g,
                "standings_distance_squared": d * d,
            },
        }));
    }
    let mut out = json!({
        "model": "rswiss",
        "pairs": pairs,
        // The lexicographic objective, most important first.
        "objective": {
            "repeats": r.repeats,
            "score_gap_halves_squared": gaps,
            "standings_distance_squared": dist,
        },
        "repeats": r.repeats,
        "explanation": explanation,
    });
    if let Some(b) = r.bye {
        out["bye"] = ids[order[b]].clone();
        out["bye_explanation"] = json!({"byes_before": kp[b].byes, "standings_position": b + 1});
    }
    Ok(out)
}

/// `pairing.explain(players, pair, model?, options?)`.
pub fn explain(p: &Params) -> RpcResult {
    if is_opengotha(p, 2)? {
        return og_explain(p);
    }
    let (players, _) = players_in(p)?;
    let pair: (Value, Value) = p.get(1, "pair")?;
    let opts = options_in(p, 3)?;
    let model = model_in(p, 2, &opts)?;
    if model.name == "rswiss" {
        return Err(RpcError::new(
            UNKNOWN_MODEL,
            "the rswiss model has lexicographic tiers, not per-pair terms: use pairing.pair",
        ));
    }
    let (forbidden, penalties) = pairs_in(&opts)?;
    let field = Field::new(&model, &players, &forbidden, &penalties).map_err(model_error)?;
    let a = id_text(&pair.0)?;
    let b = id_text(&pair.1)?;
    let position = |id: &str| {
        (0..players.len())
            .find(|&k| field.player(k).id == id)
            .ok_or_else(|| RpcError::invalid_params(format!("pair: unknown player id {id:?}")))
    };
    let u = position(&a)?;
    if b == "BYE" && pair.1.is_string() && players.iter().all(|x| x.id != "BYE") {
        let terms = field.explain(u, players.len());
        let total = terms.iter().fold(0i128, |c, t| c.saturating_add(t.cost));
        return Ok(
            json!({"pair": [pair.0, "BYE"], "cost": amount(total), "terms": terms_json(&terms)}),
        );
    }
    let v = position(&b)?;
    if u == v {
        return Err(RpcError::invalid_params(
            "pair: a player cannot be paired with itself",
        ));
    }
    let (lo, hi) = (u.min(v), u.max(v));
    let terms = field.explain(lo, hi);
    let total = terms.iter().fold(0i128, |c, t| c.saturating_add(t.cost));
    let mut out = json!({
        "pair": [pair.0, pair.1],
        "cost": amount(total),
        "games_before": field.games(lo, hi),
        "terms": terms_json(&terms),
    });
    if field.is_forbidden(lo, hi) {
        out["forbidden"] = json!(true);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The `opengotha` preset: OpenGotha 3.51's own weight (src/pairing/opengotha.rs) over a
// tournament history sent by the caller (ranks, clubs, countries, games with colours, handicap
// and results, byes, absences). Its players and options have their own shapes (docs/pairing.md §4).

/// Whether the `model` parameter names the exact OpenGotha preset (a struct with weights or
/// bye terms is refused: OpenGotha's parameters are options of this preset).
fn is_opengotha(p: &Params, index: usize) -> Result<bool, RpcError> {
    Ok(match p.raw(index) {
        Some(Value::String(s)) => s == "opengotha",
        Some(Value::Object(m)) if m.get("preset") == Some(&json!("opengotha")) => {
            if m.keys().any(|k| k != "preset") {
                return Err(RpcError::new(
                    UNKNOWN_MODEL,
                    "the opengotha model takes its parameters in options (weights such as \
                     avoid_dupl_game, seed_system2, …); for weighted og_* terms use the preset \
                     opengotha_terms or custom",
                ));
            }
            true
        }
        _ => false,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OgGameIn {
    round: usize,
    opponent: Value,
    color: String,
    #[serde(default)]
    handicap: i32,
    #[serde(default)]
    result: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OgPlayerIn {
    id: Value,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    first_name: Option<String>,
    rank: Value,
    #[serde(default)]
    rating: i32,
    #[serde(default)]
    club: Option<String>,
    #[serde(default)]
    country: Option<String>,
    #[serde(default)]
    smms_correction: i32,
    #[serde(default)]
    games: Vec<OgGameIn>,
    #[serde(default)]
    bye_rounds: Vec<usize>,
    #[serde(default)]
    absent_rounds: Vec<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OgOptionsIn {
    round: Option<usize>,
    rounds: Option<usize>,
    system: Option<String>,
    #[serde(default)]
    forbidden: Vec<(Value, Value)>,
    forbid_repeats: Option<bool>,
    neighbours: Option<usize>,
    mm_floor: Option<Value>,
    mm_bar: Option<Value>,
    mm_zero: Option<Value>,
    nbw_bye: Option<f64>,
    nbw_absent: Option<f64>,
    mms_bye: Option<f64>,
    mms_absent: Option<f64>,
    round_down: Option<bool>,
    category_limits: Option<Vec<Value>>,
    criteria: Option<Vec<String>>,
    hd_based_on_mms: Option<bool>,
    hd_no_hd_rank_threshold: Option<Value>,
    hd_correction: Option<i32>,
    hd_ceiling: Option<i32>,
    nx1: Option<f64>,
    avoid_dupl_game: Option<i64>,
    random: Option<i64>,
    balance_wb: Option<i64>,
    avoid_mixing_categories: Option<i64>,
    minimize_score_difference: Option<i64>,
    dudd_weight: Option<i64>,
    compensate_dudd: Option<bool>,
    dudd_group_span: Option<Value>,
    geo_thresholds: Option<bool>,
    clubs_groups: Option<Vec<Vec<String>>>,
    dudd_upper: Option<String>,
    dudd_lower: Option<String>,
    maximize_seeding: Option<i64>,
    last_round_seed_system1: Option<usize>,
    seed_system1: Option<String>,
    seed_system2: Option<String>,
    additional_crit1: Option<String>,
    additional_crit2: Option<String>,
    minimize_handicap: Option<i64>,
    avoid_same_geo: Option<i64>,
    prefer_mms_diff_club: Option<i32>,
    prefer_mms_diff_country: Option<i32>,
    se_rank_threshold: Option<Value>,
    se_nbwins_threshold_active: Option<bool>,
    se_bar_threshold_active: Option<bool>,
}

/// Most rounds a history may name (OpenGotha allows 20; room for long events).
const OG_MAX_ROUNDS: usize = 64;
/// Largest accepted criterion weight (OpenGotha's largest default is 5·10¹⁴).
const OG_MAX_WEIGHT: i64 = 1_000_000_000_000_000;

/// A rank as text ("5k", "2d") or as OpenGotha's integer (30k = −30 … 9d = 8).
fn og_rank(v: &Value, what: &str) -> Result<i32, RpcError> {
    let r = match v {
        Value::String(s) => og::parse_rank(s),
        Value::Number(n) => n
            .as_i64()
            .filter(|r| (og::MIN_RANK as i64..=og::MAX_RANK as i64).contains(r))
            .map(|r| r as i32),
        _ => None,
    };
    r.ok_or_else(|| {
        RpcError::invalid_params(format!(
            "{what}: {v} is not a rank (\"30k\" … \"1k\", \"1d\" … \"9d\", or −30 … 8)"
        ))
    })
}

fn og_name<T: Copy + PartialEq>(s: &str, what: &str, table: &[(&str, T)]) -> Result<T, RpcError> {
    table
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            RpcError::new(
                UNKNOWN_MODEL,
                format!(
                    "unknown {what} {s:?}: use {}",
                    table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ),
            )
        })
}

fn og_crit(s: &str, what: &str) -> Result<og::Crit, RpcError> {
    og::Crit::parse(s)
        .ok_or_else(|| RpcError::new(UNKNOWN_MODEL, format!("unknown {what} criterion {s:?}")))
}

/// Half points from points (0, ½, 1 …).
fn og_half_points(x: f64, what: &str) -> Result<i32, RpcError> {
    let h = x * 2.0;
    if !h.is_finite() || h.fract() != 0.0 || !(0.0..=4.0).contains(&h) {
        return Err(RpcError::invalid_params(format!(
            "{what} must be 0, 0.5, 1, 1.5 or 2 points, got {x}"
        )));
    }
    Ok(h as i32)
}

fn og_weight(x: Option<i64>, what: &str, into: &mut i64) -> Result<(), RpcError> {
    if let Some(w) = x {
        if !(0..=OG_MAX_WEIGHT).contains(&w) {
            return Err(RpcError::invalid_params(format!(
                "options.{what} must be 0 … 10^15, got {w}"
            )));
        }
        *into = w;
    }
    Ok(())
}

const OG_SYSTEMS: &[(&str, og::System)] = &[
    ("mcmahon", og::System::McMahon),
    ("swiss", og::System::Swiss),
    ("swisscat", og::System::SwissCat),
    ("cup", og::System::Cup),
];
const OG_SEEDS: &[(&str, og::SeedSystem)] = &[
    ("random", og::SeedSystem::SplitAndRandom),
    ("fold", og::SeedSystem::SplitAndFold),
    ("slip", og::SeedSystem::SplitAndSlip),
];
const OG_DUDD: &[(&str, og::DuddMode)] = &[
    ("top", og::DuddMode::Top),
    ("mid", og::DuddMode::Mid),
    ("bot", og::DuddMode::Bot),
];

/// The OpenGotha parameters: the system's defaults, then the caller's options.
fn og_params(o: &OgOptionsIn, rounds: usize) -> Result<og::Params, RpcError> {
    let system = match &o.system {
        Some(s) => og_name(s, "system", OG_SYSTEMS)?,
        None => og::System::McMahon,
    };
    let mut p = og::Params::defaults(system, rounds);
    if let Some(v) = &o.mm_floor {
        p.mm_floor = og_rank(v, "options.mm_floor")?;
    }
    if let Some(v) = &o.mm_bar {
        p.mm_bar = og_rank(v, "options.mm_bar")?;
    }
    if p.mm_floor > p.mm_bar {
        return Err(RpcError::invalid_params(
            "options.mm_floor must not be above options.mm_bar",
        ));
    }
    if let Some(v) = &o.mm_zero {
        p.mm_zero = og_rank(v, "options.mm_zero")?;
    }
    for (x, what, into) in [
        (o.nbw_bye, "options.nbw_bye", &mut p.nbw2_bye),
        (o.nbw_absent, "options.nbw_absent", &mut p.nbw2_absent),
        (o.mms_bye, "options.mms_bye", &mut p.mms2_bye),
        (o.mms_absent, "options.mms_absent", &mut p.mms2_absent),
    ] {
        if let Some(x) = x {
            *into = og_half_points(x, what)?;
        }
    }
    if let Some(b) = o.round_down {
        p.round_down = b;
    }
    if let Some(limits) = &o.category_limits {
        p.category_limits = limits
            .iter()
            .map(|v| og_rank(v, "options.category_limits"))
            .collect::<Result<_, _>>()?;
        if p.category_limits.windows(2).any(|w| w[0] <= w[1]) {
            return Err(RpcError::invalid_params(
                "options.category_limits must go down strictly (strongest category first)",
            ));
        }
    }
    if let Some(c) = &o.criteria {
        if c.is_empty() || c.len() > 6 {
            return Err(RpcError::invalid_params(
                "options.criteria: 1 to 6 placement criteria",
            ));
        }
        p.criteria = c
            .iter()
            .map(|s| og_crit(s, "placement"))
            .collect::<Result<_, _>>()?;
    }
    if let Some(b) = o.hd_based_on_mms {
        p.hd_based_on_mms = b;
    }
    if let Some(v) = &o.hd_no_hd_rank_threshold {
        p.hd_no_hd_rank_threshold = og_rank(v, "options.hd_no_hd_rank_threshold")?;
    }
    if let Some(c) = o.hd_correction {
        if !(-9..=9).contains(&c) {
            return Err(RpcError::invalid_params("options.hd_correction: −9 … 9"));
        }
        p.hd_correction = c;
    }
    if let Some(c) = o.hd_ceiling {
        if !(0..=9).contains(&c) {
            return Err(RpcError::invalid_params("options.hd_ceiling: 0 … 9"));
        }
        p.hd_ceiling = c;
    }
    if let Some(k) = o.nx1 {
        if !(0.0..=1.0).contains(&k) {
            return Err(RpcError::invalid_params("options.nx1: 0 … 1"));
        }
        p.nx1 = k;
    }
    og_weight(o.avoid_dupl_game, "avoid_dupl_game", &mut p.avoid_dupl_game)?;
    og_weight(o.random, "random", &mut p.random)?;
    og_weight(o.balance_wb, "balance_wb", &mut p.balance_wb)?;
    og_weight(
        o.avoid_mixing_categories,
        "avoid_mixing_categories",
        &mut p.avoid_mixing_categories,
    )?;
    og_weight(
        o.minimize_score_difference,
        "minimize_score_difference",
        &mut p.minimize_score_difference,
    )?;
    og_weight(o.dudd_weight, "dudd_weight", &mut p.dudd_weight)?;
    og_weight(
        o.maximize_seeding,
        "maximize_seeding",
        &mut p.maximize_seeding,
    )?;
    og_weight(
        o.minimize_handicap,
        "minimize_handicap",
        &mut p.minimize_handicap,
    )?;
    og_weight(o.avoid_same_geo, "avoid_same_geo", &mut p.avoid_same_geo)?;
    if let Some(b) = o.compensate_dudd {
        p.compensate_dudd = b;
    }
    // The later OpenGotha's two rules (docs/pairing.md §3): DU/DD for every group gap ("all"), the
    // geography thresholds.
    match &o.dudd_group_span {
        None => {}
        Some(Value::String(s)) if s == "all" => p.dudd_group_span = None,
        Some(v) => match v.as_i64() {
            Some(span @ 1..=1000) => p.dudd_group_span = Some(span as i32),
            _ => {
                return Err(RpcError::invalid_params(
                    "options.dudd_group_span: groups 1 … 1000 (OpenGotha 3.51: 4), or \"all\"",
                ));
            }
        },
    }
    if let Some(b) = o.geo_thresholds {
        p.geo_thresholds = b;
    }
    if let Some(groups) = &o.clubs_groups {
        // The tournament engine's bounds (check_settings) for the same lists.
        if groups.len() > 1_000 || groups.iter().any(|g| g.len() > 1_000) {
            return Err(RpcError::invalid_params(
                "options.clubs_groups: at most 1,000 groups of at most 1,000 clubs",
            ));
        }
        p.clubs_groups = groups.clone();
    }
    if let Some(s) = &o.dudd_upper {
        p.dudd_upper = og_name(s, "dudd mode", OG_DUDD)?;
    }
    if let Some(s) = &o.dudd_lower {
        p.dudd_lower = og_name(s, "dudd mode", OG_DUDD)?;
    }
    if let Some(r) = o.last_round_seed_system1 {
        p.last_round_seed_system1 = r.min(OG_MAX_ROUNDS);
    }
    if let Some(s) = &o.seed_system1 {
        p.seed_system1 = og_name(s, "seeding", OG_SEEDS)?;
    }
    if let Some(s) = &o.seed_system2 {
        p.seed_system2 = og_name(s, "seeding", OG_SEEDS)?;
    }
    if let Some(s) = &o.additional_crit1 {
        p.additional_crit1 = og_crit(s, "additional")?;
    }
    if let Some(s) = &o.additional_crit2 {
        p.additional_crit2 = og_crit(s, "additional")?;
    }
    for (x, what, into) in [
        (
            o.prefer_mms_diff_club,
            "prefer_mms_diff_club",
            &mut p.prefer_mms_diff_club,
        ),
        (
            o.prefer_mms_diff_country,
            "prefer_mms_diff_country",
            &mut p.prefer_mms_diff_country,
        ),
    ] {
        if let Some(x) = x {
            if !(0..=100).contains(&x) {
                return Err(RpcError::invalid_params(format!(
                    "options.{what}: 0 … 100 score points"
                )));
            }
            *into = x;
        }
    }
    if let Some(v) = &o.se_rank_threshold {
        p.se_rank_threshold = og_rank(v, "options.se_rank_threshold")?;
    }
    if let Some(b) = o.se_nbwins_threshold_active {
        p.se_nbwins_threshold_active = b;
    }
    if let Some(b) = o.se_bar_threshold_active {
        p.se_bar_threshold_active = b;
    }
    Ok(p)
}

/// A field for the OpenGotha preset: the history, the parameters, the round (0-based), the
/// caller's ids, and the players present in that round (in the caller's order).
struct OgField {
    history: og::History,
    params: og::Params,
    round: usize,
    ids: Vec<Value>,
    index: HashMap<String, usize>,
    present: Vec<usize>,
    forbidden: Vec<(usize, usize)>,
    forbid_repeats: bool,
    neighbours: Option<usize>,
}

fn og_field(p: &Params, options_index: usize) -> Result<OgField, RpcError> {
    players_capped(p)?;
    let raw: Vec<OgPlayerIn> = p.get(0, "players")?;
    let opts: OgOptionsIn = p.opt(options_index, "options")?.unwrap_or_default();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, r) in raw.iter().enumerate() {
        if index.insert(id_text(&r.id)?, i).is_some() {
            return Err(RpcError::invalid_params(format!(
                "player id {} appears twice",
                r.id
            )));
        }
    }
    let lookup = |v: &Value, what: &str| -> Result<usize, RpcError> {
        let t = id_text(v)?;
        index
            .get(&t)
            .copied()
            .ok_or_else(|| RpcError::invalid_params(format!("{what}: unknown player id {t:?}")))
    };
    let round_ok = |r: usize, what: &str| -> Result<usize, RpcError> {
        if (1..=OG_MAX_ROUNDS).contains(&r) {
            Ok(r - 1)
        } else {
            Err(RpcError::invalid_params(format!(
                "{what}: round {r} is not 1 … {OG_MAX_ROUNDS}"
            )))
        }
    };
    let mut players = Vec::with_capacity(raw.len());
    // (round, white, black) → (handicap, result), from either player's list.
    let mut games: HashMap<(usize, usize, usize), (i32, og::Outcome)> = HashMap::new();
    let mut byes = vec![];
    let mut last_round = 0;
    for (i, r) in raw.iter().enumerate() {
        let id = id_text(&r.id)?;
        if !(-1..=2).contains(&r.smms_correction) {
            return Err(RpcError::invalid_params(format!(
                "smms_correction of {id:?} must be −1 … 2"
            )));
        }
        let absent = r
            .absent_rounds
            .iter()
            .map(|&x| round_ok(x, &format!("absent_rounds of {id:?}")))
            .collect::<Result<Vec<_>, _>>()?;
        for &b in &r.bye_rounds {
            let b = round_ok(b, &format!("bye_rounds of {id:?}"))?;
            last_round = last_round.max(b + 1);
            byes.push((b, i));
        }
        for g in &r.games {
            let what = format!("games of {id:?}");
            let round = round_ok(g.round, &what)?;
            last_round = last_round.max(round + 1);
            let o = lookup(&g.opponent, &what)?;
            let white = match g.color.to_ascii_lowercase().as_str() {
                "w" | "white" => true,
                "b" | "black" => false,
                c => {
                    return Err(RpcError::invalid_params(format!(
                        "{what}: color {c:?} is not white or black"
                    )));
                }
            };
            // The result from this player's side, turned into White's side.
            let mine = g
                .result
                .as_deref()
                .unwrap_or("unknown")
                .to_ascii_lowercase();
            let outcome = match (mine.as_str(), white) {
                ("win", true) | ("loss", false) => og::Outcome::WhiteWins,
                ("win", false) | ("loss", true) => og::Outcome::BlackWins,
                ("jigo", _) => og::Outcome::Jigo,
                ("both_win", _) => og::Outcome::BothWin,
                ("both_lose", _) => og::Outcome::BothLose,
                ("unknown", _) => og::Outcome::Unknown,
                (x, _) => {
                    return Err(RpcError::invalid_params(format!(
                        "{what}: result {x:?} is not win, loss, jigo, both_win, both_lose or \
                         unknown"
                    )));
                }
            };
            let key = if white { (round, i, o) } else { (round, o, i) };
            let val = (g.handicap, outcome);
            if let Some(prev) = games.insert(key, val)
                && prev != val
            {
                return Err(RpcError::invalid_params(format!(
                    "{what}: round {} is given twice with different colours, handicap or result",
                    g.round
                )));
            }
        }
        players.push(og::OgPlayer {
            name: r.name.clone().unwrap_or_else(|| id.clone()),
            first_name: r.first_name.clone().unwrap_or_default(),
            rank: og_rank(&r.rank, &format!("rank of {id:?}"))?,
            rating: r.rating,
            club: r.club.clone().unwrap_or_default(),
            country: r.country.clone().unwrap_or_default(),
            smms_correction: r.smms_correction,
            absent,
        });
    }
    let mut list: Vec<og::OgGame> = games
        .into_iter()
        .map(|((round, white, black), (handicap, result))| og::OgGame {
            round,
            white,
            black,
            handicap,
            result,
        })
        .collect();
    list.sort_by_key(|g| (g.round, g.white, g.black));
    let history = og::History {
        players,
        games: list,
        byes,
    };
    // A game given with the same colour by both players, or a player twice in a round.
    og::check_history(&history).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    let round = match opts.round {
        Some(r) => round_ok(r, "options.round")?,
        None if last_round < OG_MAX_ROUNDS => last_round,
        None => return Err(RpcError::invalid_params("the history is already full")),
    };
    if history.games.iter().any(|g| g.round >= round)
        || history.byes.iter().any(|&(r, _)| r >= round)
    {
        return Err(RpcError::invalid_params(format!(
            "the history has games or byes in round {} or later: it must stop before the round \
             being paired",
            round + 1
        )));
    }
    let rounds = opts
        .rounds
        .unwrap_or(round + 1)
        .clamp(round + 1, OG_MAX_ROUNDS);
    let params = og_params(&opts, rounds)?;
    if params.main_crit() == og::Crit::Cps && round >= 30 {
        // The cup score doubles every round: past 30 rounds it leaves OpenGotha's int range.
        return Err(RpcError::invalid_params(
            "a cup (CPS) tournament is paired for rounds 1 … 30",
        ));
    }
    let present: Vec<usize> = (0..history.players.len())
        .filter(|&i| !history.players[i].absent.contains(&round))
        .collect();
    let forbidden = opts
        .forbidden
        .iter()
        .map(|(a, b)| {
            let (a, b) = (
                lookup(a, "options.forbidden")?,
                lookup(b, "options.forbidden")?,
            );
            Ok((a.min(b), a.max(b)))
        })
        .collect::<Result<Vec<_>, RpcError>>()?;
    Ok(OgField {
        ids: raw.iter().map(|r| r.id.clone()).collect(),
        history,
        params,
        round,
        index,
        present,
        forbidden,
        forbid_repeats: opts.forbid_repeats.unwrap_or(false),
        neighbours: opts.neighbours,
    })
}

fn og_terms(w: &og::Weights) -> Value {
    let mut m = Map::new();
    for (name, v) in w.named() {
        m.insert(name.to_string(), json!(v));
    }
    Value::Object(m)
}

fn og_big(x: i128) -> Value {
    match i64::try_from(x) {
        Ok(i) => json!(i),
        Err(_) => json!(x as f64),
    }
}

/// `pairing.pair` with the opengotha preset.
fn og_pair(p: &Params) -> RpcResult {
    let f = og_field(p, 2)?;
    let state = og::RoundState::new(&f.params, &f.history, f.round);
    let mut costs = og::RoundCosts::new(&state, &f.present);
    costs.forbidden.extend(f.forbidden.iter().copied());
    if f.forbid_repeats {
        for g in &f.history.games {
            costs
                .forbidden
                .insert((g.white.min(g.black), g.white.max(g.black)));
        }
    }
    let mut so = SolveOptions::default();
    if let Some(k) = f.neighbours {
        so.neighbours = k.clamp(1, MAX_NEIGHBOURS);
    }
    let r = og::pair_with(costs, so).map_err(|e| match e {
        crate::pairing::SolveError::NoPerfectMatching => RpcError::new(NO_PAIRING, e.to_string()),
        crate::pairing::SolveError::CostTooLarge => RpcError::new(TOO_LARGE, e.to_string()),
        other => RpcError::internal(other.to_string()),
    })?;
    let ids = &f.ids;
    let max = og::max_weight(&f.params);
    let mut pairs = vec![];
    let mut boards = vec![];
    let mut explanation = vec![];
    let mut repeats = 0;
    for b in &r.boards {
        // Higher-placed first (score group, then placement inside it).
        let (hi, lo) = if (state.group[b.white], state.inner[b.white])
            <= (state.group[b.black], state.inner[b.black])
        {
            (b.white, b.black)
        } else {
            (b.black, b.white)
        };
        let before = state.games_between(hi, lo);
        if before > 0 {
            repeats += 1;
        }
        pairs.push(json!([ids[hi], ids[lo]]));
        boards.push(json!({"white": ids[b.white], "black": ids[b.black], "handicap": b.handicap}));
        explanation.push(json!({
            "pair": [ids[hi], ids[lo]],
            "weight": b.weights.total(),
            "cost": og_big(max - b.weights.total() as i128),
            "games_before": before,
            "terms": og_terms(&b.weights),
        }));
    }
    let mut out = json!({
        "model": "opengotha",
        "mode": "exact",
        "round": f.round + 1,
        "pairs": pairs,
        "boards": boards,
        // OpenGotha maximises: the sum of the boards' weights.
        "objective": {"total_weight": og_big(r.total_weight)},
        "repeats": repeats,
        "explanation": explanation,
    });
    if let Some(b) = r.bye {
        out["bye"] = ids[b].clone();
        out["bye_explanation"] = og_bye_json(&state, b);
    }
    Ok(out)
}

fn og_bye_json(state: &og::RoundState, i: usize) -> Value {
    json!({
        "weight": state.bye_weight(i),
        "terms": {
            "rank": state.history.players[i].rank,
            "mms_x2": state.mms2[i],
            "byes_before_x1000": 1000 * state.byes[i],
        },
    })
}

/// `pairing.explain` with the opengotha preset.
fn og_explain(p: &Params) -> RpcResult {
    let f = og_field(p, 3)?;
    let pair: (Value, Value) = p.get(1, "pair")?;
    let state = og::RoundState::new(&f.params, &f.history, f.round);
    let find = |v: &Value| -> Result<usize, RpcError> {
        let t = id_text(v)?;
        f.index
            .get(&t)
            .copied()
            .ok_or_else(|| RpcError::invalid_params(format!("pair: unknown player id {t:?}")))
    };
    let a = find(&pair.0)?;
    if pair.1 == json!("BYE") && !f.index.contains_key("BYE") {
        let mut out = og_bye_json(&state, a);
        out["pair"] = json!([pair.0, "BYE"]);
        return Ok(out);
    }
    let b = find(&pair.1)?;
    if a == b {
        return Err(RpcError::invalid_params(
            "pair: a player cannot be paired with itself",
        ));
    }
    // Player 1 is the earlier one in the caller's list (it matters for the hashed terms).
    let (x, y) = (a.min(b), a.max(b));
    let w = state.weights(x, y);
    let (white, black, handicap) = state.board(x, y);
    let mut out = json!({
        "pair": [pair.0, pair.1],
        "weight": w.total(),
        "cost": og_big(og::max_weight(&f.params) - w.total() as i128),
        "games_before": state.games_between(x, y),
        "terms": og_terms(&w),
        "board": {"white": f.ids[white], "black": f.ids[black], "handicap": handicap},
    });
    let key = (x, y);
    if f.forbidden.contains(&key) || (f.forbid_repeats && state.games_between(x, y) > 0) {
        out["forbidden"] = json!(true);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field4() -> Value {
        json!([
            {"id": "a", "rating": 5.5, "score": 2, "wins": 2, "club": "Paris"},
            {"id": "b", "rating": 4.5, "score": 2, "wins": 2, "club": "paris"},
            {"id": "c", "rating": 2.0, "score": 1, "wins": 1, "opponents": ["a"]},
            {"id": "d", "rating": -3.0, "score": 0, "wins": 0, "opponents": ["c"]},
            {"id": "e", "rating": -5.0, "score": 0, "wins": 0, "byes": 1},
        ])
    }

    #[test]
    fn pair_custom_weights_is_exact_and_explained() {
        let r = pair(&Params::positional(vec![
            field4(),
            json!({"weights": {"rating": 1, "played": 16, "wins": 1.5, "club": 2}, "bye": {"byes": 100, "wins": 1}}),
        ]))
        .unwrap();
        // By hand: bye to c (1) + a–b (1 rating + 2 club) + d–e (2 rating) = 6 beats the bye
        // to d (0 + 3 + c–e 7 + 1.5 = 11.5) and anything with e's second bye (100).
        assert_eq!(r["bye"], json!("c"));
        assert_eq!(r["objective"], json!(6));
        let pairs = r["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 2);
        let mut total = 0.0;
        for e in r["explanation"].as_array().unwrap() {
            let mut sum = 0.0;
            for (_, t) in e["terms"].as_object().unwrap() {
                sum += t["cost"].as_f64().unwrap();
            }
            assert_eq!(sum, e["cost"].as_f64().unwrap());
            total += sum;
        }
        total += r["bye_explanation"]["cost"].as_f64().unwrap();
        assert_eq!(total, r["objective"].as_f64().unwrap());
    }

    #[test]
    fn opengotha_terms_preset_is_the_weighted_approximation() {
        // The weighted-term OpenGotha approximation is a preset of its own, open to caller
        // weights, unlike the `opengotha` preset proper.
        for model in [
            json!("opengotha_terms"),
            json!({"preset": "opengotha_terms", "weights": {"club": 0}}),
        ] {
            let r = pair(&Params::positional(vec![field4(), model.clone()])).unwrap();
            assert_eq!(r["model"], json!("opengotha_terms"), "{model}");
            for p in r["pairs"].as_array().unwrap() {
                let mut ids: Vec<&str> = p
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                ids.sort();
                assert!(
                    ids != ["a", "c"] && ids != ["c", "d"],
                    "{model}: a repeat {ids:?}"
                );
            }
            let terms = r["explanation"][0]["terms"].as_object().unwrap();
            assert!(terms.contains_key("og_duplicate") && terms.contains_key("og_score"));
        }
    }

    #[test]
    fn window_mode_is_offered() {
        let players = json!([
            {"id": 1, "rating": 0}, {"id": 2, "rating": 2}, {"id": 3, "rating": 3}, {"id": 4, "rating": 10},
        ]);
        let model = json!({"weights": {"rating": 1}});
        let w = pair(&Params::positional(vec![
            players.clone(),
            model.clone(),
            json!({"window": 1}),
        ]))
        .unwrap();
        assert_eq!(w["mode"], json!("window"));
        assert_eq!(w["objective"], json!(9));
        let e = pair(&Params::positional(vec![players.clone(), model.clone()])).unwrap();
        assert_eq!(e["mode"], json!("exact"));
        assert_eq!(e["objective"], json!(9));
        let bad = pair(&Params::positional(vec![
            players,
            model,
            json!({"window": 50}),
        ]))
        .unwrap_err();
        assert_eq!(bad.code, crate::rpc::error::codes::INVALID_PARAMS);
    }

    #[test]
    fn explain_one_pair() {
        let r = explain(&Params::positional(vec![
            field4(),
            json!(["a", "b"]),
            json!("gopair"),
        ]))
        .unwrap();
        // AGA collapse: 5.5 → 4.5, 4.5 → 3.5: one point; same club (case-insensitive): 2.
        assert_eq!(r["terms"]["rating"]["cost"], json!(1));
        assert_eq!(r["terms"]["club"]["cost"], json!(2));
        assert_eq!(r["terms"]["played"]["cost"], json!(0));
        assert_eq!(r["cost"], json!(3));
        let r = explain(&Params::positional(vec![field4(), json!(["c", "a"])])).unwrap();
        assert_eq!(r["games_before"], json!(1));
        assert_eq!(r["terms"]["played"]["cost"], json!(16));
    }

    #[test]
    fn errors_are_clear() {
        let e = pair(&Params::positional(vec![field4(), json!("nope")])).unwrap_err();
        assert_eq!(e.code, UNKNOWN_MODEL);
        let e = pair(&Params::positional(vec![
            json!([{"id": "a", "opponents": ["z"]}, {"id": "b"}]),
        ]))
        .unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        assert!(e.message.contains("\"z\""), "{}", e.message);
        let e = pair(&Params::positional(vec![json!([{"id": "a"}, {"id": "a"}])])).unwrap_err();
        assert!(e.message.contains("twice"));
        let e = pair(&Params::positional(vec![json!("x")])).unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        // Two players who met, repeats forbidden: no pairing.
        let e = pair(&Params::positional(vec![
            json!([{"id": 1, "opponents": [2]}, {"id": 2}]),
            json!("custom"),
            json!({"forbid_repeats": true}),
        ]))
        .unwrap_err();
        assert_eq!(e.code, NO_PAIRING);
        let e = pair(&Params::positional(vec![
            json!([{"id": 1, "rating": f64::MAX}, {"id": 2}]),
        ]))
        .unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
    }

    #[test]
    fn player_cap_and_neighbours_bound() {
        let many = |n: usize| json!((0..n).map(|i| json!({"id": i})).collect::<Vec<_>>());
        let over = many(MAX_PLAYERS + 1);
        let e = pair(&Params::positional(vec![over.clone()])).unwrap_err();
        assert_eq!(e.code, TOO_MANY_PLAYERS);
        assert!(e.message.contains("10000"), "{}", e.message);
        let e = explain(&Params::positional(vec![over.clone(), json!([0, 1])])).unwrap_err();
        assert_eq!(e.code, TOO_MANY_PLAYERS);
        let e = pair(&Params::positional(vec![over, json!("opengotha")])).unwrap_err();
        assert_eq!(e.code, TOO_MANY_PLAYERS);
        // A huge neighbours is bounded, and the optimum is the same as with the default.
        let base = pair(&Params::positional(vec![field4(), json!("gopair")])).unwrap();
        let big = pair(&Params::positional(vec![
            field4(),
            json!("gopair"),
            json!({"neighbours": usize::MAX}),
        ]))
        .unwrap();
        assert_eq!(base["pairs"], big["pairs"]);
    }

    #[test]
    fn rswiss_model_pairs_king_of_the_hill() {
        let r = pair(&Params::positional(vec![
            json!([
                {"id": 1, "score": 1}, {"id": 2, "score": 2, "opponents": [3]},
                {"id": 3, "score": 2}, {"id": 4, "score": 0}, {"id": 5, "score": 1},
            ]),
            json!("rswiss"),
        ]))
        .unwrap();
        // Standings 2, 3, 1, 5, 4; 2–3 met: 2–1, 3–5, bye 4.
        assert_eq!(r["pairs"], json!([[2, 1], [3, 5]]));
        assert_eq!(r["bye"], json!(4));
        assert_eq!(r["objective"]["repeats"], json!(0));
    }

    /// Five players after one round: a McMahon field with a bye to give.
    fn og_field5() -> Value {
        json!([
            {"id": "a", "rank": "3d", "club": "Paris", "country": "FR",
             "games": [{"round": 1, "opponent": "b", "color": "white", "result": "win"}]},
            {"id": "b", "rank": "2d", "club": "Lyon", "country": "FR",
             "games": [{"round": 1, "opponent": "a", "color": "black", "result": "loss"}]},
            {"id": "c", "rank": "1k", "club": "paris", "country": "FR",
             "games": [{"round": 1, "opponent": "d", "color": "black", "handicap": 2,
                        "result": "win"}]},
            {"id": "d", "rank": "3k", "club": "Metz",
             "games": [{"round": 1, "opponent": "c", "color": "white", "handicap": 2,
                        "result": "loss"}]},
            {"id": "e", "rank": "10k", "bye_rounds": [1]},
            {"id": "f", "rank": "12k", "absent_rounds": [2]},
        ])
    }

    #[test]
    fn opengotha_preset_pairs_with_boards_bye_and_dump_terms() {
        let r = pair(&Params::positional(vec![og_field5(), json!("opengotha")])).unwrap();
        assert_eq!(r["model"], "opengotha");
        assert_eq!(r["round"], 2);
        // f is absent in round 2; of a–e the bye goes to e again? No: e already had one.
        let bye = r["bye"].as_str().unwrap();
        assert_ne!(bye, "e", "a second bye while others have none");
        assert_ne!(bye, "f");
        let pairs = r["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 2);
        let boards = r["boards"].as_array().unwrap();
        assert_eq!(boards.len(), 2);
        let mut total = 0i64;
        for (e, b) in r["explanation"].as_array().unwrap().iter().zip(boards) {
            let terms = e["terms"].as_object().unwrap();
            assert_eq!(terms.len(), 9);
            assert!(terms.contains_key("mainDUDDCost") && terms.contains_key("secGeoCost"));
            let sum: i64 = terms.values().map(|v| v.as_i64().unwrap()).sum();
            assert_eq!(e["weight"].as_i64().unwrap(), sum + 1);
            total += sum + 1;
            // Nobody meets the same opponent twice when another pairing exists.
            assert_eq!(e["games_before"], 0);
            assert!(b["handicap"].as_i64().unwrap() >= 0);
        }
        assert_eq!(r["objective"]["total_weight"].as_i64().unwrap(), total);
        assert!(r["bye_explanation"]["weight"].is_i64());
    }

    #[test]
    fn opengotha_explain_gives_terms_board_and_bye() {
        let x = explain(&Params::positional(vec![
            og_field5(),
            json!(["a", "b"]),
            json!({"preset": "opengotha"}),
        ]))
        .unwrap();
        assert_eq!(x["games_before"], 1);
        assert_eq!(x["terms"]["baseDuplicateGameCost"], 0);
        // a was White in round 1, b Black: balances +1 / −1, so b gets White now.
        assert_eq!(x["board"]["white"], "b");
        assert_eq!(x["board"]["handicap"], 0);
        assert_eq!(x["terms"]["baseBWBalanceCost"], 1_000_000);
        let y = explain(&Params::positional(vec![
            og_field5(),
            json!(["e", "BYE"]),
            json!("opengotha"),
        ]))
        .unwrap();
        // rank −10 + 2·MMS (20 + 1 bye point = 21 → 42) + 1000 × 1 bye.
        assert_eq!(y["weight"], -10 + 42 + 1000);
        // Same club (case-insensitive) and country: no geography bonus; different clubs: some.
        let same = explain(&Params::positional(vec![
            og_field5(),
            json!(["a", "c"]),
            json!("opengotha"),
        ]))
        .unwrap();
        assert_eq!(same["terms"]["secGeoCost"], 0);
        let diff = explain(&Params::positional(vec![
            og_field5(),
            json!(["b", "c"]),
            json!("opengotha"),
        ]))
        .unwrap();
        assert!(diff["terms"]["secGeoCost"].as_i64().unwrap() > 0);
    }

    #[test]
    fn opengotha_options_and_errors() {
        let invalid = crate::rpc::error::codes::INVALID_PARAMS;
        let call = |players: Value, opts: Value| {
            pair(&Params::positional(vec![players, json!("opengotha"), opts]))
        };
        // Swiss with slip seeding and a forbidden pair.
        let r = call(
            og_field5(),
            json!({"system": "swiss", "seed_system1": "slip", "forbidden": [["a", "c"]]}),
        )
        .unwrap();
        for p in r["pairs"].as_array().unwrap() {
            assert_ne!(p, &json!(["a", "c"]));
            assert_ne!(p, &json!(["c", "a"]));
        }
        // The later OpenGotha's rules are options; 3.51's are the defaults.
        let opts = |v: Value| og_params(&serde_json::from_value(v).unwrap(), 5);
        let p = opts(json!({})).unwrap();
        assert_eq!((p.dudd_group_span, p.geo_thresholds), (Some(4), false));
        let p = opts(json!({"dudd_group_span": "all", "geo_thresholds": true})).unwrap();
        assert_eq!((p.dudd_group_span, p.geo_thresholds), (None, true));
        let p = opts(json!({"clubs_groups": [["Par", "Ver"], []]})).unwrap();
        assert_eq!(p.clubs_groups, vec![vec!["Par", "Ver"], vec![]]);
        let many: Vec<Vec<String>> = vec![vec![]; 1_001];
        assert!(opts(json!({"clubs_groups": many})).is_err());
        assert_eq!(
            opts(json!({"dudd_group_span": 2})).unwrap().dudd_group_span,
            Some(2)
        );
        for bad in [json!(0), json!(-3), json!(2.5), json!("some"), json!(true)] {
            let e = opts(json!({"dudd_group_span": bad})).unwrap_err();
            assert_eq!(e.code, invalid, "{bad}");
        }
        assert!(
            call(
                og_field5(),
                json!({"dudd_group_span": "all", "geo_thresholds": true})
            )
            .is_ok()
        );
        // A cup: groups from the win sequence; fine in round 2, refused past round 30.
        assert!(call(og_field5(), json!({"system": "cup"})).is_ok());
        let e = call(og_field5(), json!({"system": "cup", "round": 40})).unwrap_err();
        assert_eq!(e.code, invalid);
        let e = call(og_field5(), json!({"system": "lightning"})).unwrap_err();
        assert_eq!(e.code, UNKNOWN_MODEL);
        let e = call(og_field5(), json!({"seed_system2": "shuffle"})).unwrap_err();
        assert_eq!(e.code, UNKNOWN_MODEL);
        let e = call(og_field5(), json!({"criteria": ["MMS", "XYZ"]})).unwrap_err();
        assert_eq!(e.code, UNKNOWN_MODEL);
        let e = call(og_field5(), json!({"colour": 1})).unwrap_err();
        assert_eq!(e.code, invalid);
        let e = call(og_field5(), json!({"avoid_dupl_game": -1})).unwrap_err();
        assert_eq!(e.code, invalid);
        let e = call(og_field5(), json!({"round": 1})).unwrap_err();
        assert_eq!(e.code, invalid, "round 1 is already in the history");
        let e = call(json!([{"id": "a", "rank": "40k"}]), json!({})).unwrap_err();
        assert_eq!(e.code, invalid);
        let e = call(json!([{"id": "a"}]), json!({})).unwrap_err();
        assert_eq!(e.code, invalid, "rank is required");
        let e = call(json!([{"id": "a", "rank": "1d", "elo": 3}]), json!({})).unwrap_err();
        assert_eq!(e.code, invalid);
        // The two sides of a game disagree.
        let e = call(
            json!([
                {"id": "a", "rank": "1d",
                 "games": [{"round": 1, "opponent": "b", "color": "white", "result": "win"}]},
                {"id": "b", "rank": "1d",
                 "games": [{"round": 1, "opponent": "a", "color": "white", "result": "win"}]},
            ]),
            json!({}),
        )
        .unwrap_err();
        assert_eq!(e.code, invalid);
        let e = call(
            json!([
                {"id": "a", "rank": "1d",
                 "games": [{"round": 1, "opponent": "zz", "color": "white"}]},
            ]),
            json!({}),
        )
        .unwrap_err();
        assert!(e.message.contains("zz"), "{}", e.message);
        // Weights in the model struct are refused: they are options of this preset.
        let e = pair(&Params::positional(vec![
            og_field5(),
            json!({"preset": "opengotha", "weights": {"club": 1}}),
        ]))
        .unwrap_err();
        assert_eq!(e.code, UNKNOWN_MODEL);
        // Repeats forbidden and only one possible opponent: no pairing.
        let e = call(
            json!([
                {"id": "a", "rank": "1d",
                 "games": [{"round": 1, "opponent": "b", "color": "white", "result": "win"}]},
                {"id": "b", "rank": "1d"},
            ]),
            json!({"forbid_repeats": true}),
        )
        .unwrap_err();
        assert_eq!(e.code, NO_PAIRING);
    }
}
