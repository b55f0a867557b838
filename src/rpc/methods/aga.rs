//! `aga.*`: AGA files, ranks/ratings, handicaps and reports over RPC. Each handler turns its JSON
//! parameters into calls of the pure `crate::aga` library; diagnostics come back as structured
//! warnings (file, line, severity, code, message, legacy_text). Domain refusals use codes 910–919
//! (listed in docs/aga.md); malformed parameters are invalid params (-32602).

use serde::Deserialize;
use serde_json::{Value, json};

use crate::aga::Tournament;
use crate::aga::diag::{LineCtx, Severity, Warning};
use crate::aga::handicap::{Convention, HandicapOptions, decide};
use crate::aga::lines::parse_round_line_mode;
use crate::aga::lines::{RegisterLine, RoundLine, parse_register_line};
use crate::aga::perl::fmt_num;
use crate::aga::rating::{
    NOTARANK, collapse, normalize_id, normalize_id_strict, rank_to_rating, rating_of_text, split_id,
};
use crate::aga::report::{Refusal, ReportOptions, raku_send_to_aga, results_report, send2aga};
use crate::aga::tdlist;
use crate::aga::tourney::Mode;
use crate::aga::tscore::{TscoreError, TscoreOptions, tscore};
use crate::rpc::{Access, Handler, Method, Param, Params, RpcError, RpcResult};

/// Error codes of the `aga.*` namespace.
pub mod codes {
    /// The tournament files have errors (AGATourn's sticky error flag): reports refuse to run.
    pub const FILES_HAVE_ERRORS: i32 = 910;
    /// The results report was refused by the AGA loader's checks.
    pub const REPORT_REFUSED: i32 = 911;
    /// tscore: a player is in no scoring band.
    pub const NOT_IN_BAND: i32 = 912;
    /// The files of one call have more lines than [`super::MAX_LINES`].
    pub const TOO_MANY_LINES: i32 = 913;
}

/// Most lines the files of one call may hold together. A national TDList has ~22,000; the
/// cap keeps a call's memory and reply (a few hundred bytes per line) bounded, whatever the
/// body size allows (a 4 MiB body of newlines is 4 million lines).
pub const MAX_LINES: usize = 200_000;

/// Refuses texts of more than [`MAX_LINES`] lines in all, before anything is parsed.
fn check_lines<'a>(method: &str, texts: impl IntoIterator<Item = &'a str>) -> Result<(), RpcError> {
    let lines: usize = texts
        .into_iter()
        .map(|t| memchr::memchr_iter(b'\n', t.as_bytes()).count() + 1)
        .sum();
    if lines > MAX_LINES {
        return Err(RpcError::new(
            codes::TOO_MANY_LINES,
            format!("{method}: {lines} lines, over the limit of {MAX_LINES} lines per call"),
        ));
    }
    Ok(())
}

/// A rank, rating or ID given as a string or a number.
fn text_param(p: &Params, index: usize, name: &str) -> Result<String, RpcError> {
    match p.raw(index) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.as_f64().map(fmt_num).unwrap_or_else(|| n.to_string())),
        Some(_) => Err(RpcError::invalid_params(format!(
            "parameter {name}: expected a string or a number"
        ))),
        None => Err(RpcError::invalid_params(format!(
            "missing parameter {name}"
        ))),
    }
}

fn options<T: for<'de> Deserialize<'de> + Default>(
    p: &Params,
    index: usize,
    name: &str,
) -> Result<T, RpcError> {
    Ok(p.opt::<T>(index, name)?.unwrap_or_default())
}

fn warnings_json(w: &[Warning]) -> Value {
    serde_json::to_value(w).unwrap_or(Value::Null)
}

fn has_error(w: &[Warning]) -> bool {
    w.iter().any(|w| w.severity == Severity::Error)
}

fn mode_param(p: &Params, index: usize) -> Result<Mode, RpcError> {
    Ok(p.opt::<Mode>(index, "mode")?.unwrap_or_default())
}

/// Loads register + round texts (`null` in `rounds` is a missing file: reading stops there)
/// and returns the options struct (param 2) without its `mode` key, which picks the mode.
fn load(p: &Params) -> Result<(Tournament, Value), RpcError> {
    let register: String = p.get(0, "register")?;
    let rounds: Vec<Option<String>> = p.opt(1, "rounds")?.unwrap_or_default();
    let rounds: Vec<Option<&str>> = rounds.iter().map(|r| r.as_deref()).collect();
    check_lines(
        "aga.* files",
        std::iter::once(register.as_str()).chain(rounds.iter().flatten().copied()),
    )?;
    let mut options = match p.raw(2) {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "parameter options: expected a struct",
            ));
        }
    };
    let mode = match options.as_object_mut().and_then(|m| m.remove("mode")) {
        None | Some(Value::Null) => Mode::Compat,
        Some(v) => Mode::deserialize(v).map_err(|e| {
            RpcError::invalid_params(format!("option mode: {e} (compat or strict)"))
        })?,
    };
    Ok((Tournament::load_mode(mode, &register, &rounds), options))
}

fn from_options<T: for<'de> Deserialize<'de>>(options: Value) -> Result<T, RpcError> {
    crate::rpc::input::from_value(&options, "options")
}

fn refusal_error(r: Refusal) -> RpcError {
    let code = if r.findings.iter().any(|f| f.code == "tournament.has_errors") {
        codes::FILES_HAVE_ERRORS
    } else {
        codes::REPORT_REFUSED
    };
    RpcError::new(code, r.to_string())
}

pub fn normalize_id_method(p: &Params) -> RpcResult {
    let id: String = text_param(p, 0, "id")?;
    let mode: Option<String> = p.opt(1, "mode")?;
    let normalized = match mode.as_deref().unwrap_or("compat") {
        "compat" => normalize_id(&id),
        "strict" => normalize_id_strict(&id),
        other => {
            return Err(RpcError::invalid_params(format!(
                "mode must be compat or strict, got {other:?}"
            )));
        }
    };
    let (country, number) = split_id(&id);
    Ok(json!({"id": normalized, "register_country": country, "register_number": number}))
}

pub fn rank_to_rating_method(p: &Params) -> RpcResult {
    let value = text_param(p, 0, "value")?;
    let rating = rank_to_rating(Some(&value));
    let valid = rating != NOTARANK;
    let (converted, mut warnings) = rating_of_text(&value);
    let mut collapsed = Value::Null;
    if valid {
        let (_, text, w) = collapse(Some(&rating));
        collapsed = text.map_or(Value::Null, Value::String);
        warnings.extend(w);
    }
    Ok(json!({
        "rating": rating,
        "valid": valid,
        "collapsed": collapsed,
        "rating_argument": converted,
        "warnings": warnings_json(&warnings),
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct HandicapParams {
    /// `AGA` (default) or `ING`: AGATourn's komi column.
    rules: Option<String>,
    convention: Option<Convention>,
    cap: Option<u32>,
}

pub fn handicap_method(p: &Params) -> RpcResult {
    let p1 = text_param(p, 0, "player1")?;
    let p2 = text_param(p, 1, "player2")?;
    let o: HandicapParams = options(p, 2, "options")?;
    let ing = match o.rules.as_deref().map(str::to_ascii_uppercase).as_deref() {
        None | Some("AGA") => false,
        Some("ING") => true,
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "rules must be AGA or ING, got {other:?}"
            )));
        }
    };
    let convention = o.convention.unwrap_or(if ing {
        Convention::AgatournIng
    } else {
        Convention::Agatourn
    });
    let mut warnings = Vec::new();
    let (handicap, komi) = match convention {
        Convention::Agatourn | Convention::AgatournIng if o.cap.is_none() => {
            // Exactly AGATourn's Handicap(), including its Rating() conversion of the arguments.
            let mut t = Tournament::new();
            let (h, k) = t.handicap(&p1, &p2, Some(convention == Convention::AgatournIng));
            warnings.extend(t.log().iter().cloned());
            (crate::aga::perl::numify(&h), crate::aga::perl::numify(&k))
        }
        _ => {
            let mut c = Vec::new();
            for x in [&p1, &p2] {
                let r = if convention == Convention::DataObjects {
                    // DataObjects reads ranks as N.5 (Rank_to_Rating), not AGATourn's N.
                    let r = rank_to_rating(Some(x));
                    if r == NOTARANK {
                        warnings.push(Warning {
                            file: None,
                            line: None,
                            severity: Severity::Warning,
                            code: "rating.invalid",
                            message: format!("{x:?} is neither a rank nor a rating"),
                            legacy_text: String::new(),
                        });
                        None
                    } else {
                        Some(r)
                    }
                } else {
                    let mut t = Tournament::new();
                    let r = t.rating(x);
                    warnings.extend(t.log().iter().cloned());
                    r
                };
                let (v, _, w) = collapse(r.as_deref());
                warnings.extend(w);
                c.push(v);
            }
            match (c[0], c[1]) {
                (Some(a), Some(b)) => {
                    let d = decide(
                        a,
                        b,
                        &HandicapOptions {
                            convention,
                            cap: o.cap,
                        },
                    );
                    (d.handicap, d.komi)
                }
                _ => (-1.0, -1.0),
            }
        }
    };
    let valid = !(handicap == -1.0 && komi == -1.0 && !warnings.is_empty());
    let stones = if handicap.abs() >= 2.0 {
        handicap.abs()
    } else {
        0.0
    };
    let white = if handicap < 0.0 { "player2" } else { "player1" };
    Ok(json!({
        "handicap": handicap as i64,
        // Whole komi (the AGATourn tables) as an integer, a real komi (7.5) as a double.
        "komi": if komi.fract() == 0.0 { json!(komi as i64) } else { json!(komi) },
        "stones": stones as i64,
        "white": white,
        "valid": valid,
        "warnings": warnings_json(&warnings),
    }))
}

pub fn parse_register_method(p: &Params) -> RpcResult {
    let text: String = p.get(0, "text")?;
    check_lines("aga.parse_register", [text.as_str()])?;
    let mode = mode_param(p, 1)?;
    let mut lines = Vec::new();
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        crate::budget::check()?;
        let ctx = LineCtx::new(Some("register.tde"), Some(i + 1));
        let (l, _) = parse_register_line(raw, &ctx);
        let entry = match l {
            RegisterLine::Empty => continue,
            RegisterLine::Directive { name, value } => {
                json!({"line": i + 1, "kind": "directive", "name": name, "value": value})
            }
            RegisterLine::Comment(c) => json!({"line": i + 1, "kind": "comment", "comment": c}),
            RegisterLine::Player(pl) => {
                json!({"line": i + 1, "kind": "player", "id": pl.id(), "player": pl})
            }
            RegisterLine::Unparsable => json!({"line": i + 1, "kind": "error"}),
        };
        lines.push(entry);
    }
    // The tournament object adds the register-level checks (duplicate IDs) to the line checks.
    let mut t = Tournament::with_mode(mode);
    t.read_register(&text);
    Ok(json!({
        "lines": lines,
        "directives": t.directives(),
        "player_count": t.players().len(),
        "error": t.error(),
        "warnings": warnings_json(t.log()),
    }))
}

pub fn parse_round_method(p: &Params) -> RpcResult {
    let text: String = p.get(0, "text")?;
    check_lines("aga.parse_round", [text.as_str()])?;
    let round: Option<u32> = p.opt(1, "round")?;
    let strict = mode_param(p, 2)? == Mode::Strict;
    let file = round.map_or("round.tde".to_string(), |r| format!("{r}.tde"));
    let mut games = Vec::new();
    let mut directives = Vec::new();
    let mut comments = Vec::new();
    let mut warnings = Vec::new();
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        crate::budget::check()?;
        let ctx = LineCtx::new(Some(&file), Some(i + 1));
        let (l, w) = parse_round_line_mode(raw, &ctx, strict);
        warnings.extend(w);
        match l {
            RoundLine::Game(g) => games.push(json!({
                "line": i + 1, "white": if strict { normalize_id_strict(&g.white_id()) } else { g.white_id() }, "black": if strict { normalize_id_strict(&g.black_id()) } else { g.black_id() }, "result": g.result,
                "handicap": g.handi, "komi": g.komi, "comment": g.comment,
            })),
            RoundLine::Directive { name } => directives.push(json!({"line": i + 1, "name": name})),
            RoundLine::Comment(c) => comments.push(json!({"line": i + 1, "comment": c})),
            RoundLine::Empty | RoundLine::Unparsable => {}
        }
    }
    Ok(json!({
        "games": games,
        "directives": directives,
        "comments": comments,
        "error": has_error(&warnings),
        "warnings": warnings_json(&warnings),
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct TdListParams {
    /// Skip this many records.
    offset: usize,
    /// Return at most this many records (default: all).
    limit: Option<usize>,
}

pub fn parse_tdlist_method(p: &Params) -> RpcResult {
    let text: String = p.get(0, "text")?;
    check_lines("aga.parse_tdlist", [text.as_str()])?;
    let o: TdListParams = options(p, 1, "options")?;
    let limit = o.limit.unwrap_or(usize::MAX);
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let (mut lines, mut parsed, mut failed) = (0usize, 0usize, 0usize);
    // Records are converted as they stream by; only the requested page is kept.
    let mut stopped = Ok(());
    tdlist::for_each_line(&text, |line, rec, w| {
        // The callback cannot stop the walk; past the budget it skips the work.
        if stopped.is_err() {
            return;
        }
        stopped = crate::budget::check();
        lines += 1;
        warnings.extend(w);
        match rec {
            Some(r) => {
                if parsed >= o.offset && records.len() < limit {
                    let mut v = r.to_json();
                    if let Some(m) = v.as_object_mut() {
                        m.insert("line".into(), json!(line));
                    }
                    records.push(v);
                }
                parsed += 1;
            }
            None => failed += 1,
        }
    });
    stopped?;
    Ok(json!({
        "lines": lines,
        "parsed": parsed,
        "failed": failed,
        "records": records,
        "warnings": warnings_json(&warnings),
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct TournamentParams {
    /// Include AGATourn's handicap for every ordered pair of players.
    handicaps: bool,
    /// tscore options for the standings.
    tscore: Option<TscoreOptions>,
}

/// Above this many players the all-pairs handicap table (quadratic) is refused.
pub const MAX_HANDICAP_TABLE_PLAYERS: usize = 1_000;
/// Above this many players tscore (quadratic per band) is refused.
pub const MAX_TSCORE_PLAYERS: usize = 5_000;

fn too_many(what: &str, n: usize, max: usize) -> String {
    format!("{what} is limited to {max} registered players; this tournament has {n}")
}

pub fn tournament_method(p: &Params) -> RpcResult {
    let (mut t, o) = load(p)?;
    let o: TournamentParams = from_options(o)?;
    let n = t.players().len();
    if o.handicaps && n > MAX_HANDICAP_TABLE_PLAYERS {
        return Err(RpcError::invalid_params(too_many(
            "the handicap table",
            n,
            MAX_HANDICAP_TABLE_PLAYERS,
        )));
    }
    let load_warnings = t.log().to_vec();
    let mut dump = t.dump_with(o.handicaps);
    if let Some(m) = dump.as_object_mut() {
        m.remove("new_warnings");
        m.remove("late_warnings");
        if !o.handicaps {
            m.remove("handicaps");
        }
        m.insert("warnings".into(), warnings_json(&load_warnings));
        let opts = o.tscore.unwrap_or_default();
        let result = if n > MAX_TSCORE_PLAYERS {
            Err(too_many("tscore", n, MAX_TSCORE_PLAYERS))
        } else {
            tscore(&mut t, &opts).map_err(|e| e.to_string())
        };
        let (standings, why) = match result {
            Ok(s) => (
                serde_json::to_value(&s.standings).unwrap_or(Value::Null),
                Value::Null,
            ),
            Err(e) => (Value::Null, Value::String(e)),
        };
        m.insert("standings".into(), standings);
        m.insert("standings_error".into(), why);
    }
    Ok(dump)
}

pub fn tscore_method(p: &Params) -> RpcResult {
    let (mut t, o) = load(p)?;
    let opts: TscoreOptions = from_options(o)?;
    let n = t.players().len();
    if n > MAX_TSCORE_PLAYERS {
        return Err(RpcError::invalid_params(too_many(
            "tscore",
            n,
            MAX_TSCORE_PLAYERS,
        )));
    }
    match tscore(&mut t, &opts) {
        Ok(s) => serde_json::to_value(&s).map_err(|e| RpcError::internal(e.to_string())),
        Err(e @ TscoreError::HasErrors) => {
            Err(RpcError::new(codes::FILES_HAVE_ERRORS, e.to_string()))
        }
        Err(e) => Err(RpcError::new(codes::NOT_IN_BAND, e.to_string())),
    }
}

pub fn send2aga_method(p: &Params) -> RpcResult {
    let (mut t, o) = load(p)?;
    // Only `mode`: any other option would be ignored, so it is refused.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NoOptions {}
    from_options::<NoOptions>(o)?;
    let r = send2aga(&mut t).map_err(refusal_error)?;
    serde_json::to_value(&r).map_err(|e| RpcError::internal(e.to_string()))
}

pub fn results_report_method(p: &Params) -> RpcResult {
    let (t, mut o) = load(p)?;
    let format = o
        .as_object_mut()
        .and_then(|m| m.remove("format"))
        .filter(|v| !v.is_null());
    let r = match format.as_ref().map(|f| f.as_str()) {
        None | Some(Some("aga")) => {
            let opts: ReportOptions = from_options(o)?;
            results_report(&t, &opts)
        }
        Some(Some("data_objects")) => {
            if o.as_object().is_some_and(|m| !m.is_empty()) {
                return Err(RpcError::invalid_params(
                    "the data_objects format takes its dates and rules from the DATE and RULES directives; no other options",
                ));
            }
            raku_send_to_aga(&t)
        }
        _ => return Err(RpcError::invalid_params("option format must be \"aga\" or \"data_objects\"")),
    }
    .map_err(refusal_error)?;
    serde_json::to_value(&r).map_err(|e| RpcError::internal(e.to_string()))
}

const FILES: &[Param] = &[
    Param::req("register", "string"),
    Param::opt("rounds", "array"),
    Param::opt("options", "struct"),
];

use crate::rpc::openrpc::Doc;

pub static METHODS: &[Method] = &[
    Method {
        name: "aga.normalize_id",
        access: Access::Public,
        params: &[Param::req("id", "string"), Param::opt("mode", "string")],
        returns: "struct",
        help: "Normalise an AGA ID (mode compat = AGATourn NormalizeID, strict = also USA for numeric IDs).",
        doc: Doc::typed::<doc::NormalizeIdArgs, doc::NormalizedId>(),
        handler: Handler::Sync(|_, p| normalize_id_method(p)),
    },
    Method {
        name: "aga.rank_to_rating",
        access: Access::Public,
        params: &[Param::req("value", "string")],
        returns: "struct",
        help: "AGATourn RankToRating (4d -> 4.5), its collapsed value and the Rating() argument conversion.",
        doc: Doc::typed::<doc::RankArgs, doc::RankRating>(),
        handler: Handler::Sync(|_, p| rank_to_rating_method(p)),
    },
    Method {
        name: "aga.handicap",
        access: Access::Public,
        params: &[
            Param::req("player1", "string"),
            Param::req("player2", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Handicap and komi for two ranks/ratings (AGATourn table by default; options: rules, convention, cap).",
        doc: Doc::typed::<doc::HandicapArgs, doc::Handicap>(),
        handler: Handler::Sync(|_, p| handicap_method(p)),
    },
    Method {
        name: "aga.parse_register",
        access: Access::Public,
        params: &[Param::req("text", "string"), Param::opt("mode", "string")],
        returns: "struct",
        help: "Parse a register.tde text: players, directives, comments, structured warnings.",
        doc: Doc::typed::<doc::ParseArgs, doc::Parsed>().errors(&[913]),
        handler: Handler::Blocking(|_, p| parse_register_method(p)),
    },
    Method {
        name: "aga.parse_round",
        access: Access::Public,
        params: &[
            Param::req("text", "string"),
            Param::opt("round", "int"),
            Param::opt("mode", "string"),
        ],
        returns: "struct",
        help: "Parse a round file N.tde: games (white black result handicap komi), structured warnings.",
        doc: Doc::typed::<doc::ParseRoundArgs, doc::Parsed>().errors(&[913]),
        handler: Handler::Blocking(|_, p| parse_round_method(p)),
    },
    Method {
        name: "aga.parse_tdlist",
        access: Access::Public,
        params: &[
            Param::req("text", "string"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Parse an AGA TDList (tab TDListA/B or space layout); options offset/limit page the records.",
        doc: Doc::typed::<doc::TdListArgs, doc::TdList>().errors(&[913]),
        handler: Handler::Blocking(|_, p| parse_tdlist_method(p)),
    },
    Method {
        name: "aga.tournament",
        access: Access::Public,
        params: FILES,
        returns: "struct",
        help: "Load register.tde + round files: players, counters, games, bands, standings, warnings.",
        doc: Doc::typed::<doc::FilesArgs, doc::Loaded>().errors(&[913]),
        handler: Handler::Blocking(|_, p| tournament_method(p)),
    },
    Method {
        name: "aga.tscore",
        access: Access::Public,
        params: FILES,
        returns: "struct",
        help: "GoPair tscore: scores.txt and summary.txt texts plus structured standings.",
        doc: Doc::typed::<doc::FilesArgs, doc::Scores>().errors(&[910, 912, 913]),
        handler: Handler::Blocking(|_, p| tscore_method(p)),
    },
    Method {
        name: "aga.send2aga",
        access: Access::Public,
        params: FILES,
        returns: "struct",
        help: "The legacy GoPair send2aga.tde text (refused while the files have errors).",
        doc: Doc::typed::<doc::FilesArgs, doc::Report>().errors(&[910, 913]),
        handler: Handler::Blocking(|_, p| send2aga_method(p)),
    },
    Method {
        name: "aga.results_report",
        access: Access::Public,
        params: FILES,
        returns: "struct",
        help: "The modern AGA results report (TOURNEY, start=, finish=, rules=, PLAYERS, GAMES), checked like the AGA loader.",
        doc: Doc::typed::<doc::FilesArgs, doc::Report>().errors(&[910, 911, 913]),
        handler: Handler::Blocking(|_, p| results_report_method(p)),
    },
];

/// What `rpc.discover` says of `aga.*`: the parameters as the functions above read them (a
/// rank or rating as text or a number), and the answers' members.
mod doc {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde_json::Value;

    /// Text, or a number read as its text (a rating).
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub enum TextOrNumber {
        Text(String),
        Number(f64),
    }

    /// `compat` (AGATourn's, default) or `strict`.
    #[derive(JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    pub enum Mode {
        Compat,
        Strict,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct NormalizeIdArgs {
        pub id: String,
        pub mode: Option<Mode>,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct NormalizedId {
        pub id: String,
        pub register_country: Option<String>,
        pub register_number: Option<String>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct RankArgs {
        /// A rank (4d, 5k) or a rating.
        pub value: TextOrNumber,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct RankRating {
        pub rating: Option<String>,
        pub valid: bool,
        pub collapsed: Option<String>,
        pub rating_argument: Option<String>,
        pub warnings: Vec<Value>,
    }

    /// `aga.handicap`'s options.
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    pub struct HandicapOptions {
        /// `AGA` (default) or `ING`: AGATourn's komi column.
        pub rules: Option<String>,
        pub convention: Option<String>,
        pub cap: Option<u32>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct HandicapArgs {
        pub player1: TextOrNumber,
        pub player2: TextOrNumber,
        pub options: Option<HandicapOptions>,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Handicap {
        pub handicap: i64,
        pub komi: f64,
        pub stones: i64,
        /// `player1` or `player2`.
        pub white: String,
        pub valid: bool,
        pub warnings: Vec<Value>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct ParseArgs {
        /// The file's text.
        pub text: String,
        pub mode: Option<Mode>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct ParseRoundArgs {
        pub text: String,
        /// The round's number (the file's N.tde).
        pub round: Option<u32>,
        pub mode: Option<Mode>,
    }

    /// A parsed file: its lines, games or directives, and structured warnings.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Parsed {
        /// Whether a warning is an error (AGATourn's error flag).
        pub error: bool,
        pub warnings: Vec<Value>,
        pub directives: Value,
        pub lines: Option<Vec<BTreeMap<String, Value>>>,
        pub games: Option<Vec<BTreeMap<String, Value>>>,
        pub player_count: Option<u64>,
    }

    /// `aga.parse_tdlist`'s options.
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    pub struct TdListOptions {
        /// Skip this many records.
        pub offset: Option<u64>,
        /// Return at most this many records (default: all).
        pub limit: Option<u64>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct TdListArgs {
        pub text: String,
        pub options: Option<TdListOptions>,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct TdList {
        pub lines: u64,
        pub parsed: u64,
        pub failed: u64,
        pub records: Vec<BTreeMap<String, Value>>,
        pub warnings: Vec<Value>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct FilesArgs {
        /// register.tde's text.
        pub register: String,
        /// The round files' texts, round 1 first (null for a round without a file).
        pub rounds: Option<Vec<Option<String>>>,
        pub options: Option<serde_json::Map<String, Value>>,
    }

    /// The loaded tournament: players, counters, games, bands, standings, warnings.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Loaded {
        pub players: BTreeMap<String, BTreeMap<String, Value>>,
        pub games: Vec<Value>,
        pub directives: Value,
        pub warnings: Vec<Value>,
    }

    /// tscore's texts and standings.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Scores {
        pub scores: String,
        pub summary: String,
        pub standings: Vec<BTreeMap<String, Value>>,
        pub notes: Vec<Value>,
        pub last_round: u32,
    }

    /// A report's text and what checking it found.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct Report {
        pub text: String,
        pub findings: Vec<Value>,
        pub notes: Vec<Value>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&Params) -> RpcResult, args: Vec<Value>) -> RpcResult {
        f(&Params::positional(args))
    }

    #[test]
    fn table_lists_every_method_once() {
        let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        for want in [
            "aga.parse_register",
            "aga.parse_round",
            "aga.parse_tdlist",
            "aga.tournament",
            "aga.handicap",
            "aga.rank_to_rating",
            "aga.normalize_id",
            "aga.results_report",
            "aga.send2aga",
            "aga.tscore",
        ] {
            assert_eq!(names.iter().filter(|n| **n == want).count(), 1, "{want}");
            assert!(
                crate::rpc::lookup(want).is_some(),
                "{want} is in the server's table"
            );
        }
        assert_eq!(names.len(), 10);
    }

    #[test]
    fn simple_methods() {
        let r = call(normalize_id_method, vec![json!("usa02122")]).unwrap();
        assert_eq!(r["id"], "USA2122");
        let r = call(normalize_id_method, vec![json!("02122"), json!("strict")]).unwrap();
        assert_eq!(r["id"], "USA2122");
        assert_eq!(
            call(normalize_id_method, vec![json!("x"), json!("bogus")])
                .unwrap_err()
                .code,
            -32602
        );
        let r = call(rank_to_rating_method, vec![json!("5k")]).unwrap();
        assert_eq!(
            (r["rating"].clone(), r["collapsed"].clone()),
            (json!("-5.5"), json!("-4.5"))
        );
        let r = call(rank_to_rating_method, vec![json!("abc")]).unwrap();
        assert_eq!(r["valid"], false);
        assert_eq!(
            r["warnings"][0]["legacy_text"],
            "Invalid Rating argument:abc"
        );
    }

    #[test]
    fn handicap() {
        let r = call(handicap_method, vec![json!("4d"), json!("2k")]).unwrap();
        assert_eq!(
            (r["handicap"].clone(), r["komi"].clone()),
            (json!(3), json!(0))
        );
        let r = call(handicap_method, vec![json!(9.0), json!(-30.0)]).unwrap();
        assert_eq!(r["handicap"], 33);
        let r = call(
            handicap_method,
            vec![json!(9.0), json!(-30.0), json!({"cap": 9})],
        )
        .unwrap();
        assert_eq!(r["handicap"], 9);
        let r = call(
            handicap_method,
            vec![json!("5.0"), json!("4.5"), json!({"rules": "ING"})],
        )
        .unwrap();
        assert_eq!(r["komi"], 7);
        let opts = json!({"convention": "data_objects"});
        let r = call(
            handicap_method,
            vec![json!("3d"), json!("2d"), opts.clone()],
        )
        .unwrap();
        assert_eq!(
            (r["handicap"].clone(), r["komi"].clone()),
            (json!(0), json!(-7.5))
        );
        let r = call(
            handicap_method,
            vec![json!("1d"), json!("5k"), opts.clone()],
        )
        .unwrap();
        assert_eq!(
            (
                r["handicap"].clone(),
                r["komi"].clone(),
                r["stones"].clone()
            ),
            (json!(5), json!(0.5), json!(5))
        );
        let r = call(handicap_method, vec![json!("x"), json!("5k"), opts]).unwrap();
        assert_eq!(r["valid"], false);
        let r = call(handicap_method, vec![json!("abc"), json!("3.0")]).unwrap();
        assert_eq!(r["valid"], false);
        assert_eq!(r["warnings"].as_array().unwrap().len(), 2);
        let e = call(handicap_method, vec![json!("1d"), json!([1])]).unwrap_err();
        assert_eq!(e.code, -32602);
        let e = call(
            handicap_method,
            vec![json!("1d"), json!("1k"), json!({"convention": "nope"})],
        )
        .unwrap_err();
        assert_eq!(e.code, -32602);
    }

    #[test]
    fn parsers() {
        let r = call(
            parse_register_method,
            vec![json!("## TOURNEY T\nUSA1 A, B 3d\nusa01 C, D 2k\nbad\n")],
        )
        .unwrap();
        assert_eq!(r["error"], true);
        assert_eq!(r["player_count"], 1);
        let codes: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, ["register.duplicate_id", "register.unparsable"]);
        assert_eq!(r["warnings"][0]["line"], 3);
        let r = call(
            parse_round_method,
            vec![json!("TMP1 TMP2 w 0 6\nTMP1 TMP2 w 0 7.5\n"), json!(2)],
        )
        .unwrap();
        assert_eq!(r["games"].as_array().unwrap().len(), 1);
        assert_eq!(r["warnings"][0]["file"], "2.tde");
        assert_eq!(r["warnings"][0]["line"], 2);
        let r = call(
            parse_tdlist_method,
            vec![
                json!("A, B\t1\tFull\t\t\t\t\t\t\r\nnothing\n"),
                json!({"limit": 5}),
            ],
        )
        .unwrap();
        assert_eq!(
            (r["parsed"].clone(), r["failed"].clone()),
            (json!(1), json!(1))
        );
        assert_eq!(r["records"][0]["agaNum"], "1");
        assert_eq!(
            call(parse_tdlist_method, vec![json!(5)]).unwrap_err().code,
            -32602
        );
        let r = call(
            parse_round_method,
            vec![json!("1 2 w 0 7.5\n"), json!(1), json!("strict")],
        )
        .unwrap();
        assert_eq!(
            (
                r["games"][0]["white"].clone(),
                r["games"][0]["komi"].clone()
            ),
            (json!("USA1"), json!("7.5"))
        );
    }

    #[test]
    fn tournament_and_reports() {
        let reg = json!("## TOURNEY T\n## ROUNDS 1\nUSA1 A, B 3d\nUSA2 C, D 2d\n");
        let rounds = json!(["USA1 USA2 w 0 6\n"]);
        let r = call(tournament_method, vec![reg.clone(), rounds.clone()]).unwrap();
        assert_eq!(r["players"]["USA1"]["wins"], "1");
        assert_eq!(r["standings"][0]["id"], "USA1");
        assert!(r.get("handicaps").is_none());
        let r = call(send2aga_method, vec![reg.clone(), rounds.clone()]).unwrap();
        assert!(r["text"].as_str().unwrap().contains("USA1 USA2 W 0 6\n"));
        let r = call(
            results_report_method,
            vec![reg.clone(), rounds.clone(), json!({"start": "2024-03-01"})],
        )
        .unwrap();
        assert!(
            r["text"]
                .as_str()
                .unwrap()
                .starts_with("TOURNEY T\n        start=3/1/2024\n")
        );
        let e = call(
            results_report_method,
            vec![
                reg.clone(),
                json!(["USA1 USA2 ? 0 6\n"]),
                json!({"start": "2024-03-01"}),
            ],
        )
        .unwrap_err();
        assert_eq!(e.code, codes::REPORT_REFUSED);
        let dob =
            json!("## TOURNEY T\n## DATE 2024-03-01\n## RULES AGA\nUSA1 A, B 3d\nUSA2 C, D 2d\n");
        let r = call(
            results_report_method,
            vec![dob, rounds.clone(), json!({"format": "data_objects"})],
        )
        .unwrap();
        assert!(
            r["text"]
                .as_str()
                .unwrap()
                .contains("     USA1      USA2 W 0 6\n")
        );
        let e = call(
            results_report_method,
            vec![reg.clone(), rounds.clone(), json!({"format": "x"})],
        )
        .unwrap_err();
        assert_eq!(e.code, -32602);
        let e = call(
            send2aga_method,
            vec![reg.clone(), json!(["USA1 USA2 w 0 7.5\n"])],
        )
        .unwrap_err();
        assert_eq!(e.code, codes::FILES_HAVE_ERRORS);
        // The refusal lists the errors: file, line and what is wrong.
        assert!(e.message.contains("1.tde line 1: "), "{}", e.message);
        let r = call(
            tscore_method,
            vec![reg.clone(), rounds.clone(), json!({"mcmahon": true})],
        )
        .unwrap();
        assert!(r["scores"].as_str().unwrap().contains("MBnd"));
        let e = call(
            tscore_method,
            vec![reg.clone(), rounds.clone(), json!({"mode": "lax"})],
        )
        .unwrap_err();
        assert_eq!(e.code, -32602);
        let e = call(
            tournament_method,
            vec![reg.clone(), rounds.clone(), json!({"nope": 1})],
        )
        .unwrap_err();
        assert_eq!(e.code, -32602);
        // Strict mode: a numeric ID in a round file matches the registered USA ID.
        let r = call(
            tournament_method,
            vec![reg, json!(["1 USA2 w 0 6.5\n"]), json!({"mode": "strict"})],
        )
        .unwrap();
        assert_eq!(r["players"]["USA1"]["wins"], "1");
        assert_eq!(r["games"][0], "USA1,USA2,w,0,6.5,1");
    }
}
