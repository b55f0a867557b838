//! `score.*` and the rules-engine half of `sgf.*`: scoring a position under a rule preset,
//! one stateless step of the dead-stone marking UI, validating a submitted game record and
//! replaying a record to its final position. Handlers convert JSON to `crate::go` calls;
//! every method, parameter, result and error code is documented in docs/score.md.
//!
//! Points travel as SGF letters (`"pd"`: column, then row from the top); positions as rows
//! of `.`/`b`/`w` from the top row down.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::Deserialize;
use serde_json::{Value as J, json};

use crate::go::validate::{Expectations, validate as run_validate};
use crate::go::{
    self, Category, Counting, MarkMode, PlayRules, Position, Preset, ReplayError, ReplayOptions,
    Scorable, ScoreInput, Stone, Xy,
};
use crate::rpc::{Access, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::sgf::{self, Colour, LoadOptions};

/// Error codes of this file's methods (810–899).
pub mod codes {
    /// The SGF record could not be loaded.
    pub const LOAD: i32 = 810;
    /// The record loaded but cannot be replayed (bad move value, unsupported size).
    pub const RECORD: i32 = 811;
    /// The record's main line has an illegal move (message: move number, point, rule).
    pub const ILLEGAL_MOVE: i32 = 812;
    /// The record's setup stones leave chains without liberties.
    pub const ILLEGAL_SETUP: i32 = 813;
    /// `score.toggle_dead` on an empty point.
    pub const NO_STONE: i32 = 821;
    /// A point outside the board.
    pub const OFF_BOARD: i32 = 822;
    /// The SGF input is larger than the limit.
    pub const TOO_LARGE: i32 = 830;
}

/// Largest SGF accepted: a long professional game is a few tens of KB, so 1 MiB is ample.
const MAX_SGF_BYTES: usize = 1 << 20;

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Captures {
    #[serde(default)]
    black: u32,
    #[serde(default)]
    white: u32,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Position")]
struct PositionParam {
    rows: Vec<String>,
    #[serde(default)]
    dead: Vec<String>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
struct ScoreOptions {
    rules: Option<String>,
    komi: Option<f64>,
    handicap: Option<u32>,
    captures: Option<Captures>,
    passes: Option<Captures>,
    /// `region` (Cinderblock, default) or `chain`.
    mode: Option<String>,
    /// `toggle` (default), `kill` or `revive`.
    action: Option<String>,
}

fn preset(name: Option<&str>, default: Preset) -> Result<Preset, RpcError> {
    match name {
        None => Ok(default),
        Some(n) => n
            .parse::<Preset>()
            .map_err(|e| RpcError::invalid_params(format!("options.rules: {e}"))),
    }
}

fn parse_point(s: &str, pos: &Position) -> Result<usize, RpcError> {
    let xy = Xy::parse_sgf(s)
        .ok_or_else(|| RpcError::invalid_params(format!("{s:?} is not an SGF point")))?;
    pos.index(xy).ok_or_else(|| {
        RpcError::new(
            codes::OFF_BOARD,
            format!(
                "point {s} is off the {}x{} board",
                pos.width(),
                pos.height()
            ),
        )
    })
}

fn load_position(p: &PositionParam) -> Result<(Position, Vec<usize>), RpcError> {
    let pos = Position::from_rows(&p.rows)
        .map_err(|e| RpcError::invalid_params(format!("position.rows: {e}")))?;
    let mut dead = Vec::new();
    for s in &p.dead {
        let i = parse_point(s, &pos)?;
        if pos.at(i) == Stone::Empty {
            return Err(RpcError::new(
                codes::NO_STONE,
                format!("position.dead: no stone at {s}"),
            ));
        }
        dead.push(i);
    }
    Ok((pos, dead))
}

fn colour_json(c: Option<Colour>) -> J {
    match c {
        Some(Colour::Black) => json!("b"),
        Some(Colour::White) => json!("w"),
        None => J::Null,
    }
}

fn side_json(s: &go::SideScore) -> J {
    json!({
        "stones": s.stones,
        "territory": s.territory,
        "seki_points": s.seki_points,
        "captures": s.captures,
        "dead_opponent": s.dead_opponent,
        "pass_stones": s.pass_stones,
        "komi": s.komi,
        "handicap_bonus": s.handicap_bonus,
        "total": s.total,
    })
}

fn sorted_points(pos: &Position, pts: impl Iterator<Item = usize>) -> Vec<String> {
    let mut v: Vec<String> = pts.map(|i| pos.xy(i).to_sgf()).collect();
    v.sort();
    v
}

/// The score of `pos` with the `dead` chains under `opts` as JSON.
fn score_json(pos: &Position, dead: &[usize], opts: &ScoreOptions) -> RpcResult {
    let preset = preset(opts.rules.as_deref(), Preset::Japanese)?;
    let rules = preset.rules();
    let komi = opts.komi.unwrap_or(rules.default_komi);
    if !komi.is_finite() {
        return Err(RpcError::invalid_params("options.komi must be finite"));
    }
    let mut mask = vec![false; pos.len()];
    for &i in dead {
        for j in pos.chain(i) {
            mask[j] = true;
        }
    }
    let caps = opts.captures.as_ref();
    let passes = opts.passes.as_ref();
    let input = ScoreInput {
        komi,
        handicap: opts.handicap.unwrap_or(0),
        captures: [caps.map_or(0, |c| c.black), caps.map_or(0, |c| c.white)],
        passes: [passes.map_or(0, |c| c.black), passes.map_or(0, |c| c.white)],
    };
    let s = go::score(pos, &mask, &rules, &input);
    let w = pos.width() as usize;
    let ownership: Vec<String> = s
        .owners
        .chunks(w)
        .map(|row| {
            row.iter()
                .map(|o| match o {
                    go::Owner::Black => 'b',
                    go::Owner::White => 'w',
                    go::Owner::Dame => '=',
                    go::Owner::Neutral => '?',
                })
                .collect()
        })
        .collect();
    let mut out = json!({
        "rules": preset.name(),
        "counting": match s.counting { Counting::Area => "area", Counting::Territory => "territory" },
        "black": side_json(&s.black),
        "white": side_json(&s.white),
        "margin": s.margin,
        "winner": colour_json(s.winner),
        "result": s.result,
        "dame": s.dame,
        "neutral": s.neutral,
        "dead": sorted_points(pos, (0..pos.len()).filter(|&i| mask[i])),
        "seki": sorted_points(pos, s.seki_stones.iter().copied()),
        "false_eyes": sorted_points(pos, s.false_eyes.iter().copied()),
        "ownership": ownership,
    });
    if preset == Preset::Cinderblock {
        // The compat preset answers with Cinderblock's own formula (captures ignored, ties
        // to White).
        let mut sc = Scorable::with_dead(pos.clone(), komi, dead);
        sc.compat = true;
        let c = sc.scores();
        let margin = c.black - c.white;
        out["black"]["total"] = json!(c.black);
        out["white"]["total"] = json!(c.white);
        out["margin"] = json!(margin);
        out["winner"] = colour_json(Some(if sc.winner() == Stone::Black {
            Colour::Black
        } else {
            Colour::White
        }));
        out["result"] = json!(go::result_string(margin, true));
    }
    Ok(out)
}

fn score_position(p: &Params) -> RpcResult {
    let position: PositionParam = p.get(0, "position")?;
    let opts: ScoreOptions = p.opt(1, "options")?.unwrap_or_default();
    let (pos, dead) = load_position(&position)?;
    score_json(&pos, &dead, &opts)
}

fn categories_json(s: &Scorable) -> Vec<String> {
    let w = s.position().width() as usize;
    s.categories()
        .chunks(w)
        .map(|row| {
            row.iter()
                .map(|c| match c {
                    Category::AliveBlack => 'b',
                    Category::AliveWhite => 'w',
                    Category::DeadBlack => 'x',
                    Category::DeadWhite => 'o',
                    Category::KnownBlack | Category::DerivedBlack => 'B',
                    Category::KnownWhite | Category::DerivedWhite => 'W',
                    Category::Dame => '=',
                    Category::Neutral | Category::Uncategorised => '?',
                })
                .collect()
        })
        .collect()
}

fn toggle_dead(p: &Params) -> RpcResult {
    let position: PositionParam = p.get(0, "position")?;
    let point: String = p.get(1, "point")?;
    let opts: ScoreOptions = p.opt(2, "options")?.unwrap_or_default();
    let (pos, dead) = load_position(&position)?;
    let i = parse_point(&point, &pos)?;
    if pos.at(i) == Stone::Empty {
        return Err(RpcError::new(
            codes::NO_STONE,
            format!("no stone at {point}"),
        ));
    }
    let mut sc = Scorable::with_dead(pos.clone(), opts.komi.unwrap_or(0.0), &dead);
    sc.mode = match opts.mode.as_deref() {
        None | Some("region") => MarkMode::Region,
        Some("chain") => MarkMode::Chain,
        Some(m) => {
            return Err(RpcError::invalid_params(format!(
                "options.mode: {m:?} is not region or chain"
            )));
        }
    };
    let changed = match opts.action.as_deref() {
        None | Some("toggle") => sc.transanimate(i),
        Some("kill") => sc.deanimate(i),
        Some("revive") => sc.reanimate(i),
        Some(a) => {
            return Err(RpcError::invalid_params(format!(
                "options.action: {a:?} is not toggle, kill or revive"
            )));
        }
    }
    .unwrap_or(false);
    let mask = sc.dead_mask();
    let dead_now: Vec<usize> = (0..pos.len()).filter(|&j| mask[j]).collect();
    let score = score_json(&pos, &dead_now, &opts)?;
    Ok(json!({
        "changed": changed,
        "dead": sorted_points(&pos, dead_now.iter().copied()),
        "categories": categories_json(&sc),
        "score": score,
    }))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "ScoreSgfOptions")]
struct SgfOptions {
    base64: bool,
    /// `compat` (sgfmill's board: suicide allowed, no ko; the default) or a preset name.
    rules: Option<String>,
    /// Enforce B/W alternation.
    alternation: bool,
}

fn load_sgf(p: &Params, opts: &SgfOptions) -> Result<sgf::Game, RpcError> {
    let (bytes, text) = match p.raw(0) {
        Some(J::String(s)) if opts.base64 => (
            B64.decode(s.trim()).map_err(|e| {
                RpcError::invalid_params(format!("parameter sgf: invalid base64: {e}"))
            })?,
            false,
        ),
        Some(J::String(s)) => (s.as_bytes().to_vec(), true),
        _ => {
            return Err(RpcError::invalid_params(
                "parameter sgf: expected a string (SGF text, or base64 with options.base64)",
            ));
        }
    };
    if bytes.len() > MAX_SGF_BYTES {
        return Err(RpcError::new(
            codes::TOO_LARGE,
            format!("SGF is {} bytes, at most {MAX_SGF_BYTES}", bytes.len()),
        ));
    }
    let load = LoadOptions {
        override_encoding: text.then(|| "UTF-8".to_owned()),
        ..LoadOptions::default()
    };
    sgf::Game::from_bytes_with(&bytes, &load)
        .map_err(|e| RpcError::new(codes::LOAD, format!("cannot load SGF: {e}")))
}

fn final_position(p: &Params) -> RpcResult {
    let opts: SgfOptions = p.opt(1, "options")?.unwrap_or_default();
    let game = load_sgf(p, &opts)?;
    let rules = match opts.rules.as_deref() {
        None | Some("compat") => PlayRules::COMPAT,
        Some(n) => preset(Some(n), Preset::Japanese)?.rules().play,
    };
    let ro = ReplayOptions {
        rules,
        alternation: opts.alternation,
        lenient_setup: true,
    };
    let r = go::replay(&game, ro).map_err(|e| match e {
        ReplayError::Record { .. } => RpcError::new(codes::RECORD, e.to_string()),
        ReplayError::IllegalSetup { .. } => RpcError::new(codes::ILLEGAL_SETUP, e.to_string()),
        ReplayError::IllegalMove { .. } => RpcError::new(codes::ILLEGAL_MOVE, e.to_string()),
    })?;
    let b = &r.state.board;
    let to_move = go::validate::to_move(&r);
    Ok(json!({
        "size": b.width(),
        "rows": b.rows(),
        "moves": r.state.moves,
        "captures": {"black": b.captures(Colour::Black), "white": b.captures(Colour::White)},
        "passes": {"black": r.state.passes[0], "white": r.state.passes[1]},
        "trailing_passes": r.state.trailing_passes,
        "to_move": colour_json(Some(to_move)),
        "ko": b.ko_point(to_move).map(Xy::to_sgf),
        "hash": format!("{:016x}", b.hash()),
    }))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
struct ExpectationsParam {
    size: Option<u8>,
    komi: Option<f64>,
    handicap: Option<u32>,
    player_black: Option<String>,
    player_white: Option<String>,
    rules: Option<String>,
    result: Option<String>,
    dead: Option<Vec<String>>,
    max_moves: Option<u32>,
}

fn validate(p: &Params) -> RpcResult {
    let e: ExpectationsParam = p.opt(1, "expectations")?.unwrap_or_default();
    let opts: SgfOptions = p.opt(2, "options")?.unwrap_or_default();
    let game = match load_sgf(p, &opts) {
        Ok(g) => g,
        Err(err) if err.code == codes::LOAD || err.code == codes::TOO_LARGE => {
            return Ok(json!({
                "ok": false,
                "findings": [{
                    "code": if err.code == codes::LOAD { "load" } else { "too_large" },
                    "severity": "error", "node": null, "move_number": null,
                    "message": err.message,
                }],
            }));
        }
        Err(err) => return Err(err),
    };
    let rules = match e.rules.as_deref() {
        None => None,
        Some(n) => Some(preset(Some(n), Preset::Japanese)?),
    };
    let mut dead = None;
    if let Some(list) = &e.dead {
        let mut v = Vec::new();
        for s in list {
            let xy = Xy::parse_sgf(s).ok_or_else(|| {
                RpcError::invalid_params(format!("expectations.dead: {s:?} is not an SGF point"))
            })?;
            v.push(xy);
        }
        dead = Some(v);
    }
    if let Some(k) = e.komi
        && !k.is_finite()
    {
        return Err(RpcError::invalid_params("expectations.komi must be finite"));
    }
    let exp = Expectations {
        size: e.size,
        komi: e.komi,
        handicap: e.handicap,
        player_black: e.player_black,
        player_white: e.player_white,
        rules,
        result: e.result,
        dead,
        max_moves: e.max_moves,
    };
    let v = run_validate(&game, &exp);
    let findings: Vec<J> = v
        .findings
        .iter()
        .map(|f| {
            json!({
                "code": f.code,
                "severity": f.severity.name(),
                "node": f.node,
                "move_number": f.move_number,
                "message": f.message,
            })
        })
        .collect();
    let score = v.score.as_ref().map(|s| {
        json!({
            "result": s.result,
            "margin": s.margin,
            "winner": colour_json(s.winner),
            "black": side_json(&s.black),
            "white": side_json(&s.white),
        })
    });
    Ok(json!({
        "ok": v.ok(),
        "rules": v.rules.name(),
        "findings": findings,
        "moves": v.replay.as_ref().map(|r| r.state.moves),
        "final_position": v.replay.as_ref().map(|r| r.state.board.rows()),
        "score": score,
    }))
}

use crate::rpc::openrpc::Doc;

/// What `rpc.discover` says of `score.*`, `sgf.validate` and `sgf.final_position`.
mod doc {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde_json::Value;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct PositionArgs {
        /// Rows from the top (`.`, `b`, `w`), and the dead stones' points.
        pub position: super::PositionParam,
        pub options: Option<super::ScoreOptions>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct ToggleArgs {
        pub position: super::PositionParam,
        /// The point (SGF `ea` or GTP `E9`).
        pub point: String,
        pub options: Option<super::ScoreOptions>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct ValidateArgs {
        pub sgf: String,
        /// What the record must agree with.
        pub expectations: Option<super::ExpectationsParam>,
        pub options: Option<super::SgfOptions>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct SgfArgs {
        pub sgf: String,
        pub options: Option<super::SgfOptions>,
    }

    /// One colour's count.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct SideScore {
        pub total: f64,
        pub stones: i64,
        pub territory: i64,
        pub captures: i64,
        pub komi: f64,
    }

    /// A position's score under a rule set.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Score {
        pub black: SideScore,
        pub white: SideScore,
        pub rules: String,
        /// `area` or `territory`.
        pub counting: String,
        /// `B+21`, `W+0.5`, `0` (a draw).
        pub result: String,
        /// Black's total minus white's.
        pub margin: f64,
        /// `b`, `w`, or absent for a draw.
        pub winner: Option<String>,
        pub ownership: Vec<String>,
        pub dead: Vec<String>,
        pub seki: Vec<Value>,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Toggled {
        pub changed: bool,
        pub dead: Vec<String>,
        pub categories: Vec<String>,
        pub score: Score,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Validated {
        pub ok: bool,
        pub findings: Vec<BTreeMap<String, Value>>,
        pub moves: Option<u64>,
        pub rules: Option<String>,
        pub final_position: Option<Vec<String>>,
        pub score: Option<Score>,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct FinalPosition {
        pub size: u32,
        pub rows: Vec<String>,
        pub moves: u64,
        /// `b` or `w`.
        pub to_move: String,
        pub captures: Value,
        pub passes: Value,
        pub trailing_passes: u64,
        pub ko: Option<String>,
        pub hash: String,
    }
}

pub static METHODS: &[Method] = &[
    Method {
        name: "score.position",
        access: Access::Public,
        params: &[
            Param::req("position", "struct"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Score a position (rows + dead stones) under a rule preset: per-colour breakdown, result, ownership.",
        doc: Doc::typed::<doc::PositionArgs, doc::Score>().errors(&[813, 821, 822]),
        handler: Handler::Sync(|_, p| score_position(p)),
    },
    Method {
        name: "score.toggle_dead",
        access: Access::Public,
        params: &[
            Param::req("position", "struct"),
            Param::req("point", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "One step of dead-stone marking (Cinderblock region toggle, or chain mode): new dead set, categories and score.",
        doc: Doc::typed::<doc::ToggleArgs, doc::Toggled>().errors(&[813, 821, 822]),
        handler: Handler::Sync(|_, p| toggle_dead(p)),
    },
    Method {
        name: "sgf.validate",
        access: Access::Public,
        params: &[
            Param::req("sgf", "string"),
            Param::opt("expectations", "struct"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Check a game record against the tournament's expectations: findings (code, severity, node, move), final position, recomputed score.",
        doc: Doc::typed::<doc::ValidateArgs, doc::Validated>().errors(&[810, 811, 830]),
        handler: Handler::Blocking(|_, p| validate(p)),
    },
    Method {
        name: "sgf.final_position",
        access: Access::Public,
        params: &[Param::req("sgf", "string"), Param::opt("options", "struct")],
        returns: "struct",
        help: "Replay a record's main line (setup in any node) and return the final position; an illegal move is error 812.",
        doc: Doc::typed::<doc::SgfArgs, doc::FinalPosition>().errors(&[810, 811, 812, 813, 830]),
        handler: Handler::Blocking(|_, p| final_position(p)),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&Params) -> RpcResult, args: Vec<J>) -> RpcResult {
        f(&Params::positional(args))
    }

    #[test]
    fn score_position_japanese_and_chinese() {
        let pos = json!({"rows": [".bw..", "bbw..", "..bw.", "bbbw.", ".bw.w"], "dead": []});
        let j = call(
            score_position,
            vec![pos.clone(), json!({"rules": "japanese", "komi": 0.5})],
        )
        .unwrap();
        assert_eq!(j["counting"], "territory");
        assert_eq!(j["rules"], "japanese");
        let c = call(
            score_position,
            vec![pos, json!({"rules": "chinese", "komi": 0.5})],
        )
        .unwrap();
        assert_eq!(c["counting"], "area");
        assert!(c["black"]["stones"].as_u64().unwrap() > 0);
    }

    #[test]
    fn score_position_with_dead_stone() {
        let pos = json!({"rows": ["bb...", "bw...", "bb...", ".....", "....."], "dead": ["bb"]});
        let r = call(
            score_position,
            vec![pos, json!({"rules": "japanese", "komi": 0})],
        )
        .unwrap();
        assert_eq!(r["black"]["dead_opponent"], 1);
        // 19 empty points and the point under the dead stone; one prisoner.
        assert_eq!(r["black"]["territory"], 20);
        assert_eq!(r["result"], "B+21");
        assert_eq!(r["dead"], json!(["bb"]));
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let e = call(score_position, vec![json!({"rows": ["bq"]})]).unwrap_err();
        assert_eq!(e.code, -32602);
        let e = call(
            score_position,
            vec![json!({"rows": ["b."], "dead": ["zz"]})],
        )
        .unwrap_err();
        assert_eq!(e.code, codes::OFF_BOARD);
        let e = call(
            score_position,
            vec![json!({"rows": ["b."], "dead": ["ba"]})],
        )
        .unwrap_err();
        assert_eq!(e.code, codes::NO_STONE);
        let e = call(
            score_position,
            vec![json!({"rows": ["b."]}), json!({"rules": "klingon"})],
        )
        .unwrap_err();
        assert_eq!(e.code, -32602);
        let e = call(toggle_dead, vec![json!({"rows": ["b."]}), json!("ba")]).unwrap_err();
        assert_eq!(e.code, codes::NO_STONE);
        let e = call(final_position, vec![json!("(;SZ[9];B[aa")]).unwrap_err();
        assert_eq!(e.code, codes::LOAD);
        let e = call(final_position, vec![json!(5)]).unwrap_err();
        assert_eq!(e.code, -32602);
    }

    #[test]
    fn toggle_dead_is_cinderblock_case_a() {
        let pos = json!({"rows": [".w.bb", ".wwb."]});
        let r = call(
            toggle_dead,
            vec![
                pos,
                json!("ea"),
                json!({"rules": "cinderblock", "komi": 6.5}),
            ],
        )
        .unwrap();
        assert_eq!(r["changed"], true);
        assert_eq!(r["dead"], json!(["da", "db", "ea"]));
        assert_eq!(
            r["categories"],
            json!(["WwWxx", "Wwwxo"].map(|s| s.replace('o', "W")))
        );
        // W = 6.5 + 4 + 3, B = 0 + 0 − 3.
        assert_eq!(r["score"]["white"]["total"], 13.5);
        assert_eq!(r["score"]["black"]["total"], -3.0);
        // Toggle back.
        let pos2 = json!({"rows": [".w.bb", ".wwb."], "dead": ["da", "db", "ea"]});
        let r2 = call(
            toggle_dead,
            vec![pos2, json!("db"), json!({"rules": "cinderblock"})],
        )
        .unwrap();
        assert_eq!(r2["dead"], json!([]));
    }

    #[test]
    fn a_chain_marked_dead_beside_a_living_stone_of_its_colour_concedes_nothing() {
        // Black's corner group (its eye at aa) and a dead black stone at fd in White's area
        // share one open area: chain-mode marking and the Cinderblock rebuild leave that area
        // dame and the eye Black's. goscorer scores the position B 0, W 1 (territory) and
        // B 4, W 5 (area).
        let rows = json!([".b.w..", "bb.w..", "...w..", "...w.b", "...w..", "......"]);
        let r = call(
            toggle_dead,
            vec![
                json!({ "rows": rows }),
                json!("fd"),
                json!({"mode": "chain", "rules": "cinderblock", "komi": 0}),
            ],
        )
        .unwrap();
        assert_eq!(r["changed"], true);
        assert_eq!(r["dead"], json!(["fd"]));
        assert_eq!(
            r["categories"],
            json!(["Bb=w==", "bb=w==", "===w==", "===w=x", "===w==", "======"])
        );
        assert_eq!(r["score"]["black"]["total"], 0.0);
        assert_eq!(r["score"]["white"]["total"], 1.0);
        // The next call rebuilds the same state from the dead list.
        let position = json!({ "rows": rows, "dead": ["fd"] });
        let again = call(
            toggle_dead,
            vec![
                position.clone(),
                json!("ab"),
                json!({"mode": "chain", "action": "revive", "rules": "cinderblock", "komi": 0}),
            ],
        )
        .unwrap();
        assert_eq!(again["changed"], false);
        assert_eq!(again["categories"], r["categories"]);
        for (rules, black, white) in [
            ("cinderblock", 0.0, 1.0),
            ("japanese", 0.0, 1.0),
            ("chinese", 4.0, 5.0),
        ] {
            let s = call(
                score_position,
                vec![position.clone(), json!({"rules": rules, "komi": 0})],
            )
            .unwrap();
            assert_eq!(
                (&s["black"]["total"], &s["white"]["total"]),
                (&json!(black), &json!(white)),
                "{rules}: {s}"
            );
        }
    }

    #[test]
    fn final_position_and_illegal_move() {
        let r = call(final_position, vec![json!("(;SZ[3];B[ba];W[aa];B[ab])")]).unwrap();
        assert_eq!(r["rows"], json!([".b.", "b..", "..."]));
        assert_eq!(r["captures"]["black"], 1);
        assert_eq!(r["to_move"], "w");
        let e = call(
            final_position,
            vec![json!("(;SZ[3];B[ba];W[aa])"), json!({"rules": "compat"})],
        );
        assert!(e.is_ok());
        let e = call(
            final_position,
            vec![
                json!("(;SZ[3];B[ba];W[bb];B[ab];W[aa])"),
                json!({"rules": "japanese"}),
            ],
        )
        .unwrap_err();
        assert_eq!(e.code, codes::ILLEGAL_MOVE);
        assert_eq!(e.message, "move 4: W aa (A3): suicide");
    }

    #[test]
    fn validate_reports_findings() {
        let sgf = "(;GM[1]FF[4]SZ[9]KM[6.5]PB[Ann]PW[Bob]RE[B+R];B[ee];W[ee])";
        let r = call(
            validate,
            vec![
                json!(sgf),
                json!({"size": 9, "komi": 7.5, "player_black": "ann", "player_white": "Carl", "result": "W+R"}),
            ],
        )
        .unwrap();
        assert_eq!(r["ok"], false);
        let codes: Vec<&str> = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, ["komi", "player", "occupied", "result_disagrees"]);
        let occupied = &r["findings"][2];
        assert_eq!(occupied["move_number"], 2);
        assert_eq!(occupied["node"], 2);
        let good = "(;GM[1]SZ[9]KM[0.5]RE[B+79.5];B[ee];W[];B[])";
        let r = call(validate, vec![json!(good), json!({"rules": "japanese"})]).unwrap();
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["findings"], json!([]));
        assert_eq!(r["score"]["result"], "B+79.5");
        let wrong = "(;GM[1]SZ[9]KM[0.5]RE[B+80.5];B[ee];W[];B[])";
        let r = call(validate, vec![json!(wrong), json!({"rules": "japanese"})]).unwrap();
        assert_eq!(r["findings"][0]["code"], "score_mismatch");
        let r = call(validate, vec![json!("not sgf")]).unwrap();
        assert_eq!(r["ok"], false);
        assert_eq!(r["findings"][0]["code"], "load");
    }

    #[test]
    fn methods_are_listed() {
        let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            [
                "score.position",
                "score.toggle_dead",
                "sgf.validate",
                "sgf.final_position"
            ]
        );
    }
}
