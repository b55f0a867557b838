//! `pairing.*`: stateless pairing of one round. The caller sends the players (id, rating,
//! score, wins, club, previous opponents, byes), a model (a preset name or a struct of
//! weights) and options; the answer is the exact optimum with a per-pair explanation.
//! Domain failures use codes 610–619 (see docs/pairing.md).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::pairing::model::{
    BYE_TERMS, ByeTerm, Field, Model, ModelError, Player, Seeding, TERMS, TermCost, UNIT,
    pair_round, pair_window,
};
use crate::pairing::{KothInput, KothPlayer, SolveOptions, pair_king_of_the_hill};
use crate::rpc::{Handler, Method, Param, Params, RpcError, RpcResult};

/// No pairing exists (forbidden pairs leave someone without an opponent).
pub const NO_PAIRING: i32 = 610;
/// Unknown model, preset, term or option value.
pub const UNKNOWN_MODEL: i32 = 611;
/// The model's costs are too large to be solved exactly.
pub const TOO_LARGE: i32 = 612;

pub static METHODS: &[Method] = &[
    Method {
        name: "pairing.pair",
        params: &[
            Param::req("players", "array"),
            Param::opt("model", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Pairs one round exactly: players (struct: id, rating, score, wins, club, \
               opponents, byes), model (gopair, opengotha, rswiss, custom, or a struct of \
               weights), options → pairs, bye, objective, per-pair explanation.",
        handler: Handler::Blocking(|_, p| pair(p)),
    },
    Method {
        name: "pairing.explain",
        params: &[
            Param::req("players", "array"),
            Param::req("pair", "array"),
            Param::opt("model", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "The cost terms of one candidate pair [id1, id2] (id2 \"BYE\" for the bye) under \
               a model, for the given field.",
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

fn model_in(p: &Params, index: usize, opts: &OptionsIn) -> Result<Model, RpcError> {
    let raw = p.raw(index).cloned().unwrap_or(Value::Null);
    let spec: ModelIn = match raw {
        Value::Null => ModelIn {
            preset: Some("gopair".to_string()),
            ..ModelIn::default()
        },
        Value::String(s) => ModelIn {
            preset: Some(s),
            ..ModelIn::default()
        },
        v => ModelIn::deserialize(&v)
            .map_err(|e| RpcError::invalid_params(format!("parameter model: {e}")))?,
    };
    let preset = spec.preset.as_deref().unwrap_or("custom");
    let mut m = Model::preset(preset).ok_or_else(|| {
        RpcError::new(
            UNKNOWN_MODEL,
            format!("unknown model {preset:?}: use gopair, opengotha, rswiss or custom"),
        )
    })?;
    let mut weights: Vec<(&String, &f64)> = spec.weights.iter().collect();
    weights.sort_by(|a, b| a.0.cmp(b.0));
    for (name, &w) in weights {
        let t = TERMS
            .iter()
            .find(|(_, n)| *n == name.as_str())
            .map(|(t, _)| *t)
            .ok_or_else(|| {
                RpcError::new(
                    UNKNOWN_MODEL,
                    format!(
                        "unknown term {name:?}: terms are {}",
                        TERMS.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
                    ),
                )
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
                RpcError::new(
                    UNKNOWN_MODEL,
                    format!("unknown bye term {name:?}: wins, byes, score, rating"),
                )
            })?;
        m.bye.retain(|(x, _)| *x != t);
        if w != 0.0 {
            m.bye.push((t, w));
        }
    }
    m.terms.sort_by_key(|(t, _)| *t);
    m.bye.sort_by_key(|(t, _)| *t);
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
fn amount(micro: i128) -> Value {
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

fn terms_json(terms: &[TermCost]) -> Value {
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
        so.neighbours = k.clamp(1, 1 << 20);
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
}
