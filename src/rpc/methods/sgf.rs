//! `sgf.*`: SGF records over RPC — parse to a JSON tree, serialise a JSON tree, game info,
//! the main line as setup + moves, and normalise (parse + serialise, sgfmill-exact).
//!
//! SGF travels as a string. A file that is not UTF-8 travels as base64 (an XML-RPC
//! `<base64>` value reaches handlers as a string holding the base64 text), flagged with the
//! `base64` option, or as an array of byte values. Points are given SGF-native (`"pd"`:
//! column then row from the top) with the GTP vertex beside them (`"Q16"`).

use std::cell::RefCell;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, json};

use crate::rpc::{
    Access, Answer, Handler, Method, Param, Params, RpcError, RpcResult, Value as J, Wire,
};
use crate::sgf::{self, Colour, ErrorKind, Game, LoadOptions, Point, PropType, SgfError, Value};

/// Error codes of the `sgf.*` namespace (documented in docs/sgf.md).
pub mod codes {
    /// The SGF could not be loaded (syntax, SZ, CA): sgfmill's message.
    pub const LOAD: i32 = 710;
    /// The record loaded but what the method needs from it is invalid (e.g. setup after the
    /// root, a malformed move on the main line).
    pub const VALUE: i32 = 711;
    /// Text could not be decoded or encoded in the record's charset.
    pub const ENCODING: i32 = 712;
    /// A JSON tree given to `sgf.serialise` is not a valid SGF tree.
    pub const TREE: i32 = 713;
    /// The record is over a per-call cap ([`super::MAX_NODES`], [`super::MAX_GAMES`]).
    pub const LIMIT: i32 = 714;
}

/// Most nodes one call may load (all games of a collection together). Each node costs some
/// hundred bytes loaded and in the answer's text, so the cap bounds a call's memory and reply
/// (about 3× the record's text plus ~100 bytes per node) whatever the body size allows (a
/// 4 MiB body of `;` is 4 million empty nodes). Real records have hundreds of nodes, big
/// commented problem or joseki collections tens of thousands.
pub const MAX_NODES: usize = 500_000;

/// Most games one `sgf.parse` of a collection may hold.
pub const MAX_GAMES: usize = 10_000;

fn over_nodes() -> RpcError {
    RpcError::new(
        codes::LIMIT,
        format!("the record has more nodes than the limit of {MAX_NODES} nodes per call"),
    )
}

/// Options shared by every method (all optional).
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "SgfOptions")]
struct Options {
    /// The `sgf` string is base64 of the file's bytes; results carry `sgf_base64` too.
    base64: bool,
    /// `sgf.parse`: return every game of a collection, not just the first.
    collection: bool,
    /// Use this charset instead of the root CA (sgfmill's override_encoding).
    encoding: Option<String>,
    /// Line width for output; 0 = no wrapping. Default 79.
    wrap: Option<usize>,
    /// Leniencies (each off by default: sgfmill behaviour).
    root_without_semicolon: bool,
    multibyte_aware: bool,
    utf16: bool,
    detect_encoding: bool,
    large_boards: bool,
    rectangular_boards: bool,
    allow_undefined_bytes: bool,
    /// All seven leniencies at once.
    lenient: bool,
}

impl Options {
    fn load_options(&self, text_input: bool) -> LoadOptions {
        LoadOptions {
            // A JSON string is already text: its bytes are UTF-8, whatever CA says
            // (sgfmill's `from_string`).
            override_encoding: self
                .encoding
                .clone()
                .or_else(|| text_input.then(|| "UTF-8".to_owned())),
            root_without_semicolon: self.root_without_semicolon || self.lenient,
            multibyte_aware: self.multibyte_aware || self.lenient,
            utf16: self.utf16 || self.lenient,
            detect_encoding: self.detect_encoding || self.lenient,
            large_boards: self.large_boards || self.lenient,
            rectangular_boards: self.rectangular_boards || self.lenient,
            sgfmill_empty_ident: false,
            keep_lowercase_idents: false,
            allow_undefined_bytes: self.allow_undefined_bytes || self.lenient,
            max_nodes: Some(MAX_NODES),
        }
    }

    fn wrap(&self) -> Option<usize> {
        match self.wrap {
            None => Some(79),
            Some(0) => None,
            Some(w) => Some(w),
        }
    }
}

fn options(p: &Params, index: usize) -> Result<Options, RpcError> {
    Ok(p.opt::<Options>(index, "options")?.unwrap_or_default())
}

/// The SGF bytes of parameter 0 and whether they came as text.
fn input_bytes(p: &Params, opts: &Options) -> Result<(Vec<u8>, bool), RpcError> {
    match p.raw(0) {
        Some(J::String(s)) if opts.base64 => {
            let cleaned: String = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            B64.decode(cleaned.as_bytes())
                .map(|b| (b, false))
                .map_err(|e| {
                    RpcError::invalid_params(format!("parameter sgf: invalid base64: {e}"))
                })
        }
        Some(J::String(s)) => Ok((s.as_bytes().to_vec(), true)),
        Some(J::Array(items)) => items
            .iter()
            .map(|v| v.as_u64().and_then(|n| u8::try_from(n).ok()))
            .collect::<Option<Vec<u8>>>()
            .map(|b| (b, false))
            .ok_or_else(|| {
                RpcError::invalid_params("parameter sgf: an array must hold byte values 0-255")
            }),
        Some(_) => Err(RpcError::invalid_params(
            "parameter sgf: expected a string (SGF text, or base64 with the base64 option) or an array of bytes",
        )),
        None => Err(RpcError::invalid_params("missing parameter sgf")),
    }
}

fn sgf_error(code: i32, e: &SgfError) -> RpcError {
    let code = match e.kind {
        ErrorKind::UnicodeDecode | ErrorKind::UnicodeEncode if code != codes::LOAD => {
            codes::ENCODING
        }
        _ => code,
    };
    RpcError::new(code, e.to_string())
}

fn load(p: &Params, opts: &Options) -> Result<Game, RpcError> {
    let (bytes, text) = input_bytes(p, opts)?;
    // The parsed tree is compact (a few words per node); what a method builds from it is
    // not, so the cap is enforced while parsing, before any of that (and before a huge
    // input is read to its end).
    Game::from_bytes_with(&bytes, &opts.load_options(text)).map_err(|e| match e.kind {
        ErrorKind::Limit => over_nodes(),
        _ => sgf_error(codes::LOAD, &e),
    })
}

// ---------------------------------------------------------------- JSON views

/// A board's (width, height).
type Dims = (u8, u8);

fn point_json(p: Point, (width, height): Dims) -> J {
    let sgf = p.to_sgf_rect(width, height);
    json!({
        "sgf": String::from_utf8_lossy(&sgf),
        "gtp": p.to_gtp(),
    })
}

fn err_json(e: &SgfError) -> J {
    json!({ "error": e.to_string(), "class": e.kind.class() })
}

/// A typed value as JSON (points SGF-native + GTP).
fn value_json(v: &Value, size: Dims) -> J {
    let pt = |p: &Point| point_json(*p, size);
    match v {
        Value::None => json!(true),
        Value::Number(n) => json!(n),
        Value::Real(f) => json!(f),
        Value::Double(d) => json!(d),
        Value::Colour(c) => json!(c.letter()),
        Value::Text(t) => json!(t),
        Value::Move(m) => m.as_ref().map_or(J::Null, pt),
        Value::Points(ps) => J::Array(ps.iter().map(pt).collect()),
        Value::Ap(name, version) => json!({"name": name, "version": version}),
        Value::Arrows(v) => J::Array(v.iter().map(|(a, b)| json!([pt(a), pt(b)])).collect()),
        Value::Figure(f) => f.as_ref().map_or(
            J::Null,
            |(flags, name)| json!({"flags": flags, "name": name}),
        ),
        Value::Labels(v) => J::Array(
            v.iter()
                .map(|(p, t)| json!({"point": pt(p), "text": t}))
                .collect(),
        ),
    }
}

/// A raw value as text, and whether that text gives the same bytes back when encoded in
/// the record's charset (when not, `sgf.parse` adds `raw_base64` so `sgf.serialise` can
/// write the exact bytes: undecodable values, bytes read leniently, UTF-16's decode-only
/// codec).
fn decode_lossy(game: &Game, raw: &[u8]) -> (String, bool) {
    let cs = game.raw_charset();
    match cs.decode(raw) {
        Ok(s) => {
            let exact = cs
                .with_undefined_bytes(false)
                .encode(&s)
                .is_ok_and(|b| b == raw);
            (s, exact)
        }
        Err(_) => (String::from_utf8_lossy(raw).into_owned(), false),
    }
}

fn node_json(game: &Game, node: sgf::NodeId) -> Result<J, RpcError> {
    let size = game.dimensions();
    let mut props = Map::new();
    let map = game
        .raw_property_map(node)
        .map_err(|e| sgf_error(codes::VALUE, &e))?;
    for (ident, raws) in map {
        let name = String::from_utf8_lossy(ident).into_owned();
        let (ty, known) = PropType::of(ident);
        let mut exact = true;
        let raw_text: Vec<String> = raws
            .iter()
            .map(|r| {
                let (s, ok) = decode_lossy(game, r);
                exact &= ok;
                s
            })
            .collect();
        let value = match game.interpret(ident, &raws) {
            Ok(v) => value_json(&v, size),
            Err(e) => err_json(&e),
        };
        let mut entry = json!({
            "raw": raw_text,
            "type": if known { ty.name() } else { "private" },
            "value": value,
        });
        if !exact {
            entry["raw_base64"] = J::Array(raws.iter().map(|r| json!(B64.encode(r))).collect());
        }
        props.insert(name, entry);
    }
    Ok(json!({
        "id": node.index(),
        "parent": game.parent(node).map(|p| p.index()),
        "children": game.children(node).map(|c| c.index()).collect::<Vec<_>>(),
        "props": props,
    }))
}

// ---------------------------------------------------------------- big answers, written as they go
//
// `sgf.parse` and `sgf.main_line` answer per node or move, and a long record as a `Value` tree
// costs a few kilobytes per node in maps and small strings (a 300,000-move record: 1.7 GB).
// These views write the same answer straight in the wire's encoding (`rpc::answer`): one
// node's `Value` at a time, dropped once written. Object keys are written in sorted order,
// as a `Value`'s map would give them, so the bytes are those of the tree.

/// The error that stopped a view, kept aside: a `Serialize` impl can only return text.
#[derive(Default)]
struct Failure(RefCell<Option<RpcError>>);

impl Failure {
    fn fail<E: serde::ser::Error>(&self, e: RpcError) -> E {
        let message = e.message.clone();
        *self.0.borrow_mut() = Some(e);
        E::custom(message)
    }
}

/// A node or move loop's look at the call's budget, every few thousand items; what the view
/// answers then does not matter ([`crate::budget::run`] reports the budget).
fn check_budget<E: serde::ser::Error>(i: usize) -> Result<(), E> {
    if i.is_multiple_of(4096) && crate::budget::expired() {
        return Err(E::custom("stopped: the request ran out of time"));
    }
    Ok(())
}

/// Writes `view` for `wire`: the error `view` kept aside if it failed, else a serialiser's.
fn encode_view<T: Serialize>(wire: Wire, view: &T, failure: &Failure) -> Result<Answer, RpcError> {
    crate::rpc::answer::encode(wire, view).map_err(|message| {
        failure.0.borrow_mut().take().unwrap_or_else(|| {
            RpcError::internal(format!("the answer could not be written: {message}"))
        })
    })
}

/// A game of `sgf.parse`: `{charset | charset_error, height, nodes, raw_charset, size}`.
struct GameView<'a> {
    game: &'a Game,
    failure: &'a Failure,
}

impl Serialize for GameView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let game = self.game;
        let mut m = s.serialize_map(Some(5))?;
        match game.get_charset() {
            Ok(c) => m.serialize_entry("charset", &c)?,
            Err(e) => m.serialize_entry("charset_error", &e.to_string())?,
        }
        m.serialize_entry("height", &game.dimensions().1)?;
        m.serialize_entry(
            "nodes",
            &NodesView {
                game,
                failure: self.failure,
            },
        )?;
        m.serialize_entry("raw_charset", game.raw_charset().name())?;
        m.serialize_entry("size", &game.size())?;
        m.end()
    }
}

/// A game's nodes in preorder, each built as a `Value` only while it is written.
struct NodesView<'a> {
    game: &'a Game,
    failure: &'a Failure,
}

impl Serialize for NodesView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let nodes = self.game.preorder();
        let mut seq = s.serialize_seq(Some(nodes.len()))?;
        for (i, node) in nodes.into_iter().enumerate() {
            check_budget(i)?;
            let json = node_json(self.game, node).map_err(|e| self.failure.fail(e))?;
            seq.serialize_element(&json)?;
        }
        seq.end()
    }
}

/// A game of a collection, or the error entry of one that did not load.
enum Entry<'a> {
    Game(GameView<'a>),
    Error(J),
}

impl Serialize for Entry<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Entry::Game(g) => g.serialize(s),
            Entry::Error(e) => e.serialize(s),
        }
    }
}

/// `{games: [...]}`.
struct GamesView<'a>(Vec<Entry<'a>>);

impl Serialize for GamesView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("games", &self.0)?;
        m.end()
    }
}

/// The moves of `sgf.main_line`, each built as a `Value` only while it is written.
struct MovesView<'a> {
    plays: &'a [(Colour, Option<Point>)],
    size: Dims,
}

impl Serialize for MovesView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.plays.len()))?;
        for (i, (c, pt)) in self.plays.iter().enumerate() {
            check_budget(i)?;
            let point = pt.map(|p| point_json(p, self.size));
            seq.serialize_element(&json!({ "colour": c.letter(), "point": point }))?;
        }
        seq.end()
    }
}

/// Output bytes as the result object: text (decoded in its charset) and, when asked for or
/// when the bytes do not decode, base64.
fn output_json(game: &Game, bytes: &[u8], want_base64: bool) -> J {
    // The root's CA, or the charset the values were read with when CA does not read.
    let charset = game
        .get_charset()
        .ok()
        .and_then(|c| sgf::Charset::lookup(&c).ok())
        .unwrap_or_else(|| game.raw_charset());
    let (text, exact) = match charset.decode(bytes) {
        Ok(t) => (t, true),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
    };
    let mut out = json!({ "sgf": text, "charset": charset.name() });
    if want_base64 || !exact {
        out["sgf_base64"] = json!(B64.encode(bytes));
    }
    out
}

// ---------------------------------------------------------------- handlers

/// What stopped a game of a collection from loading, for its error entry.
fn load_error_kind(e: &SgfError) -> &'static str {
    let m = e.message.as_str();
    if m.starts_with("error parsing game ") {
        "syntax"
    } else if m.starts_with("bad SZ property") || m.starts_with("size out of range") {
        "board_size"
    } else if m.starts_with("unknown encoding") || m == "encoding names must be ascii" {
        "charset"
    } else {
        "load"
    }
}

/// The entry that stands in a collection for a game that does not load.
fn game_error_json(e: &SgfError) -> J {
    json!({ "error": {
        "code": codes::LOAD,
        "kind": load_error_kind(e),
        "class": e.kind.class(),
        "message": e.to_string(),
    }})
}

/// `sgf.parse(sgf, options)` → `{games: [{size, charset, raw_charset, nodes: [...]}]}`.
///
/// With `collection`, each game is loaded on its own: a game that does not load is an error
/// entry in its place and the other games are kept, so the answer has one shape however many
/// games the file holds (a one-game file whose game does not load is a list of that game's
/// error entry). Only what fails the whole input (no game at all, an unknown `encoding`
/// option, a cap) is a fault.
pub fn parse(p: &Params) -> RpcResult {
    parse_on_wire(p)?.into_value()
}

/// [`parse`], written in the encoding `p`'s wire asks for.
pub fn parse_on_wire(p: &Params) -> Result<Answer, RpcError> {
    let failure = Failure::default();
    let opts = options(p, 1)?;
    if !opts.collection {
        let game = load(p, &opts)?;
        let view = GamesView(vec![Entry::Game(GameView {
            game: &game,
            failure: &failure,
        })]);
        return encode_view(p.wire(), &view, &failure);
    }
    // An unknown `encoding` option would fail every game alike: that is the call's fault.
    if let Some(name) = &opts.encoding {
        sgf::Charset::lookup(name).map_err(|e| sgf_error(codes::LOAD, &e))?;
    }
    let (bytes, text) = input_bytes(p, &opts)?;
    let entries =
        sgf::load_collection_within(&bytes, &opts.load_options(text), MAX_GAMES, MAX_NODES)
            .map_err(|e| sgf_error(codes::LOAD, &e))?
            .map_err(|e| match e {
                sgf::Exceeded::Games(max) => RpcError::new(
                    codes::LIMIT,
                    format!("the collection has more than {max} games, the limit per call"),
                ),
                sgf::Exceeded::Nodes(max) => RpcError::new(
                    codes::LIMIT,
                    format!("the collection has more than {max} nodes, the limit per call"),
                ),
            })?;
    let view = GamesView(
        entries
            .iter()
            .map(|g| match g {
                Ok(game) => Entry::Game(GameView {
                    game,
                    failure: &failure,
                }),
                Err(e) => Entry::Error(game_error_json(e)),
            })
            .collect(),
    );
    encode_view(p.wire(), &view, &failure)
}

/// `sgf.normalise(sgf, options)` → `{sgf, charset[, sgf_base64]}`: sgfmill's load + serialise.
pub fn normalise(p: &Params) -> RpcResult {
    let opts = options(p, 1)?;
    let game = load(p, &opts)?;
    let bytes = game
        .serialise(opts.wrap())
        .map_err(|e| sgf_error(codes::ENCODING, &e))?;
    Ok(output_json(&game, &bytes, opts.base64))
}

fn info_field<T>(
    errors: &mut Map<String, J>,
    name: &str,
    r: Result<T, SgfError>,
    f: impl FnOnce(T) -> J,
) -> J {
    match r {
        Ok(v) => f(v),
        Err(e) => {
            errors.insert(name.to_owned(), json!(e.to_string()));
            J::Null
        }
    }
}

/// `sgf.game_info(sgf, options)` → the root's game information, typed.
pub fn game_info(p: &Params) -> RpcResult {
    let opts = options(p, 1)?;
    let game = load(p, &opts)?;
    let root = game.root();
    let mut errors = Map::new();
    let mut out = json!({
        "size": game.size(),
        "height": game.dimensions().1,
        "charset": info_field(&mut errors, "charset", game.get_charset(), |c| json!(c)),
        "komi": info_field(&mut errors, "komi", game.komi(), |k| json!(k)),
        "handicap": info_field(&mut errors, "handicap", game.handicap(), |h| json!(h)),
        "player_b": info_field(&mut errors, "player_b", game.player_name(Colour::Black), |n| json!(n)),
        "player_w": info_field(&mut errors, "player_w", game.player_name(Colour::White), |n| json!(n)),
        "winner": info_field(&mut errors, "winner", game.winner(), |w| json!(w.map(Colour::letter))),
        "nodes": game.node_count(),
        "main_line_length": game.main_sequence().len(),
    });
    for (ident, key) in [
        ("RE", "result"),
        ("DT", "date"),
        ("RU", "rules"),
        ("EV", "event"),
        ("RO", "round"),
        ("GN", "game_name"),
        ("PC", "place"),
        ("BR", "rank_b"),
        ("WR", "rank_w"),
        ("TM", "time_limit"),
        ("OT", "overtime"),
    ] {
        if !game.has_property(root, ident) {
            continue;
        }
        out[key] = match game.get(root, ident) {
            Ok(v) => value_json(&v, game.dimensions()),
            Err(e) => {
                errors.insert(key.to_owned(), json!(e.to_string()));
                J::Null
            }
        };
    }
    if !errors.is_empty() {
        out["errors"] = J::Object(errors);
    }
    Ok(out)
}

/// `sgf.main_line(sgf, options)` → `{size, komi, handicap, setup: {black, white}, moves}`
/// (sgfmill's get_setup_and_moves): what a rules engine replays.
pub fn main_line(p: &Params) -> RpcResult {
    main_line_on_wire(p)?.into_value()
}

/// [`main_line`], written in the encoding `p`'s wire asks for.
pub fn main_line_on_wire(p: &Params) -> Result<Answer, RpcError> {
    let opts = options(p, 1)?;
    let game = load(p, &opts)?;
    let size = game.dimensions();
    let sm = sgf::get_setup_and_moves(&game).map_err(|e| sgf_error(codes::VALUE, &e))?;
    let mut black = Vec::new();
    let mut white = Vec::new();
    for (c, pt) in sm.board.stones() {
        match c {
            Colour::Black => black.push(point_json(pt, size)),
            Colour::White => white.push(point_json(pt, size)),
        }
    }
    let failure = Failure::default();
    let view = MainLineView {
        size,
        komi: game.komi().ok(),
        handicap: game.handicap().ok().flatten(),
        setup: json!({ "black": black, "white": white }),
        moves: MovesView {
            plays: &sm.plays,
            size,
        },
    };
    encode_view(p.wire(), &view, &failure)
}

/// `{handicap, height, komi, moves, setup, size}` of `sgf.main_line`.
struct MainLineView<'a> {
    size: Dims,
    komi: Option<f64>,
    handicap: Option<i64>,
    setup: J,
    moves: MovesView<'a>,
}

impl Serialize for MainLineView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("handicap", &self.handicap)?;
        m.serialize_entry("height", &self.size.1)?;
        m.serialize_entry("komi", &self.komi)?;
        m.serialize_entry("moves", &self.moves)?;
        m.serialize_entry("setup", &self.setup)?;
        m.serialize_entry("size", &self.size.0)?;
        m.end()
    }
}

/// One raw value from a JSON tree: text to encode in the record's charset, or exact bytes
/// (from `raw_base64`, which `sgf.parse` gives for values that do not decode).
enum RawIn {
    Text(String),
    Bytes(Vec<u8>),
}

impl RawIn {
    fn text(&self) -> String {
        match self {
            RawIn::Text(t) => t.clone(),
            RawIn::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        }
    }
}

/// The raw values of one property in a JSON tree: `["pd"]`, `"pd"`, `{"raw": ["pd"], ...}`
/// or `{"raw_base64": ["cGQ="]}` (which wins over `raw`).
fn raw_list(ident: &str, v: &J) -> Result<Vec<RawIn>, RpcError> {
    let bad = || {
        RpcError::new(
            codes::TREE,
            format!("property {ident}: expected a list of raw strings"),
        )
    };
    if let Some(b64) = v.get("raw_base64") {
        let items = b64.as_array().ok_or_else(bad)?;
        return items
            .iter()
            .map(|i| {
                let text = i.as_str().ok_or_else(bad)?;
                B64.decode(text.as_bytes()).map(RawIn::Bytes).map_err(|e| {
                    RpcError::new(
                        codes::TREE,
                        format!("property {ident}: invalid base64: {e}"),
                    )
                })
            })
            .collect();
    }
    let list = match v {
        J::Object(o) => o.get("raw").unwrap_or(&J::Null),
        other => other,
    };
    match list {
        J::String(s) => Ok(vec![RawIn::Text(s.clone())]),
        J::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(|s| RawIn::Text(s.to_owned()))
                    .ok_or_else(bad)
            })
            .collect(),
        _ => Err(bad()),
    }
}

fn tree_error(msg: impl Into<String>) -> RpcError {
    RpcError::new(codes::TREE, msg)
}

/// Builds a game from the JSON tree of `sgf.parse` (or a minimal one: nodes with `id`,
/// `parent`, `props` of raw strings).
fn game_from_json(tree: &J, opts: &Options) -> Result<Game, RpcError> {
    let (tree, at) = match tree.get("games").and_then(|g| g.get(0)) {
        Some(g) => (g, "tree.games[0]"),
        None => (tree, "tree"),
    };
    // The members `sgf.parse` writes are read or ignored as its answer's views; any other is
    // a misspelling that would drop data without a word.
    only_keys(tree, at, GAME_KEYS)?;
    if let Some(J::Array(nodes)) = tree.get("nodes") {
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("{at}.nodes[{i}]");
            only_keys(n, &at, NODE_KEYS)?;
            if let Some(J::Object(props)) = n.get("props") {
                for (ident, v) in props {
                    only_keys(v, &format!("{at}.props.{ident}"), VALUE_KEYS)?;
                }
            }
        }
    }
    let nodes = tree.get("nodes").and_then(J::as_array).ok_or_else(|| {
        RpcError::invalid_params("parameter tree: expected an object with a nodes array")
    })?;
    let root_json = nodes
        .first()
        .ok_or_else(|| tree_error("the tree has no nodes"))?;
    let props_of = |n: &J| -> Result<Vec<(String, Vec<RawIn>)>, RpcError> {
        match n.get("props") {
            None | Some(J::Null) => Ok(Vec::new()),
            Some(J::Object(o)) => o
                .iter()
                .map(|(k, v)| Ok((k.clone(), raw_list(k, v)?)))
                .collect(),
            Some(_) => Err(tree_error("props must be an object")),
        }
    };
    let root_props = props_of(root_json)?;
    let raw_of = |ident: &str| {
        root_props
            .iter()
            .find(|(k, _)| k == ident)
            .and_then(|(_, v)| v.first())
            .map(RawIn::text)
    };
    let max = if opts.large_boards || opts.lenient {
        52
    } else {
        26
    };
    let side = |t: &str| {
        sgf::props::py_int(t.as_bytes())
            .and_then(|n| u8::try_from(n).ok())
            .filter(|n| (1..=max).contains(n))
    };
    let (width, height) = match raw_of("SZ") {
        Some(s) => {
            let rect = (opts.rectangular_boards || opts.lenient)
                .then(|| s.split_once(':'))
                .flatten();
            match rect {
                Some((w, h)) => side(w).zip(side(h)),
                None => side(&s).map(|n| (n, n)),
            }
            .ok_or_else(|| tree_error(format!("bad SZ property: {s}")))?
        }
        None => (19, 19),
    };
    let charset = opts
        .encoding
        .clone()
        .or_else(|| raw_of("CA"))
        .unwrap_or_else(|| "ISO-8859-1".to_owned());
    let cs = sgf::Charset::lookup(&charset)
        .map_err(|e| tree_error(e.to_string()))?
        .with_undefined_bytes(opts.allow_undefined_bytes || opts.lenient);
    let mut game =
        Game::empty_rect(width, height, cs.name()).map_err(|e| tree_error(e.to_string()))?;
    // Values were cut character-aware if they were read so: check them the same way.
    game.set_multibyte_aware(opts.multibyte_aware || opts.lenient);
    let mut ids: std::collections::HashMap<u64, sgf::NodeId> = std::collections::HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let id = n.get("id").and_then(J::as_u64).unwrap_or(i as u64);
        let node = if i == 0 {
            if n.get("parent").is_some_and(|p| !p.is_null()) {
                return Err(tree_error("the first node must be the root (parent null)"));
            }
            game.root()
        } else {
            let parent = n.get("parent").and_then(J::as_u64).ok_or_else(|| {
                tree_error(format!("node {id}: only the first node may lack a parent"))
            })?;
            let parent = *ids.get(&parent).ok_or_else(|| {
                tree_error(format!("node {id}: parent {parent} is not an earlier node"))
            })?;
            game.new_child(parent, None)
                .map_err(|e| tree_error(e.to_string()))?
        };
        if ids.insert(id, node).is_some() {
            return Err(tree_error(format!("duplicate node id {id}")));
        }
        for (ident, raws) in props_of(n)? {
            let bytes = raws
                .into_iter()
                .map(|r| match r {
                    RawIn::Text(t) => cs.encode(&t),
                    RawIn::Bytes(b) => Ok(b),
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| sgf_error(codes::ENCODING, &e))?;
            // As parsed: lower-case identifiers and any SZ values come back as they went.
            game.set_raw_list_as_parsed(node, &ident, &bytes)
                .map_err(|e| tree_error(format!("node {id}, property {ident}: {e}")))?;
        }
    }
    Ok(game)
}

/// The members of a game, a node and a property value in `sgf.parse`'s answer.
const GAME_KEYS: &[&str] = &[
    "charset",
    "charset_error",
    "height",
    "nodes",
    "raw_charset",
    "size",
];
const NODE_KEYS: &[&str] = &["id", "parent", "children", "props"];
const VALUE_KEYS: &[&str] = &["raw", "raw_base64", "type", "value"];

/// Refuses a member of the struct `v` (at `path`) that is not one of `keys`.
fn only_keys(v: &J, path: &str, keys: &[&str]) -> Result<(), RpcError> {
    if let J::Object(m) = v
        && let Some(k) = m.keys().find(|k| !keys.contains(&k.as_str()))
    {
        return Err(crate::rpc::input::unknown_key(path, k, keys));
    }
    Ok(())
}

/// `sgf.serialise(tree, options)` → `{sgf, charset[, sgf_base64]}`.
pub fn serialise(p: &Params) -> RpcResult {
    let opts = options(p, 1)?;
    let tree = p.get::<J>(0, "tree")?;
    let game = game_from_json(&tree, &opts)?;
    let bytes = match game.serialise(opts.wrap()) {
        Ok(b) => b,
        // sgfmill refuses a root CA that does not read as a charset name (several values,
        // escapes); the values are then written in the charset they were given in.
        Err(_) if game.get_charset().is_err() => game.serialise_raw(opts.wrap()),
        Err(e) => return Err(sgf_error(codes::ENCODING, &e)),
    };
    Ok(output_json(&game, &bytes, opts.base64))
}

const SGF_AND_OPTIONS: &[Param] = &[Param::req("sgf", "string"), Param::opt("options", "struct")];

use crate::rpc::openrpc::Doc;

/// What `rpc.discover` says of `sgf.*`.
mod doc {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde_json::Value;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct SgfArgs {
        /// The SGF text (base64 of the file's bytes with options.base64).
        pub sgf: String,
        pub options: Option<super::Options>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub struct SerialiseArgs {
        /// A game as sgf.parse answers it.
        pub tree: BTreeMap<String, Value>,
        pub options: Option<super::Options>,
    }

    /// sgf.parse's answer: the games (a collection's bad games as error entries).
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct ParsedSgf {
        pub games: Vec<BTreeMap<String, Value>>,
    }

    /// An SGF text as written.
    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct SgfText {
        pub sgf: String,
        pub charset: String,
        /// With options.base64.
        pub sgf_base64: Option<String>,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct GameInfo {
        pub size: u32,
        pub height: Option<u32>,
        pub charset: Option<String>,
        pub komi: Option<f64>,
        pub handicap: Option<u32>,
        pub player_b: Option<String>,
        pub player_w: Option<String>,
        pub result: Option<String>,
        /// `b`, `w` or absent.
        pub winner: Option<String>,
        pub nodes: u64,
        pub main_line_length: u64,
    }

    #[derive(JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    pub struct MainLine {
        pub size: u32,
        pub height: Option<u32>,
        pub komi: Option<f64>,
        pub handicap: Option<u32>,
        pub setup: Value,
        pub moves: Vec<BTreeMap<String, Value>>,
    }
}

pub static METHODS: &[Method] = &[
    Method {
        name: "sgf.parse",
        access: Access::Public,
        params: SGF_AND_OPTIONS,
        returns: "struct",
        help: "Parse SGF (text, or base64 with options.base64) into a JSON tree with raw and typed values.",
        doc: Doc::typed::<doc::SgfArgs, doc::ParsedSgf>().errors(&[710, 711, 712, 713, 714]),
        handler: Handler::Encoded(|_, p| parse_on_wire(p)),
    },
    Method {
        name: "sgf.serialise",
        access: Access::Public,
        params: &[
            Param::req("tree", "struct"),
            Param::opt("options", "struct"),
        ],
        returns: "struct",
        help: "Write a JSON tree (as sgf.parse returns, or nodes with raw props) as SGF, byte-exact like sgfmill.",
        doc: Doc::typed::<doc::SerialiseArgs, doc::SgfText>().errors(&[711, 712, 713, 714]),
        handler: Handler::Blocking(|_, p| serialise(p)),
    },
    Method {
        name: "sgf.game_info",
        access: Access::Public,
        params: SGF_AND_OPTIONS,
        returns: "struct",
        help: "Game information of an SGF record: size, komi, handicap, players, winner, result, date, rules.",
        doc: Doc::typed::<doc::SgfArgs, doc::GameInfo>().errors(&[710, 711, 712, 713, 714]),
        handler: Handler::Blocking(|_, p| game_info(p)),
    },
    Method {
        name: "sgf.main_line",
        access: Access::Public,
        params: SGF_AND_OPTIONS,
        returns: "struct",
        help: "Setup stones and the moves of the main line (sgfmill get_setup_and_moves), SGF and GTP coordinates.",
        doc: Doc::typed::<doc::SgfArgs, doc::MainLine>().errors(&[710, 711, 712, 713, 714]),
        handler: Handler::Encoded(|_, p| main_line_on_wire(p)),
    },
    Method {
        name: "sgf.normalise",
        access: Access::Public,
        params: SGF_AND_OPTIONS,
        returns: "struct",
        help: "Parse and serialise an SGF record exactly as sgfmill does (options.wrap: width, 0 = none).",
        doc: Doc::typed::<doc::SgfArgs, doc::SgfText>().errors(&[710, 711, 712, 713, 714]),
        handler: Handler::Blocking(|_, p| normalise(p)),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&Params) -> RpcResult, args: Vec<J>) -> RpcResult {
        f(&Params::positional(args))
    }

    /// The answer views look at the budget as they write, on every wire (the record is
    /// loaded first, outside the budget, whose parser looks at it too).
    #[test]
    fn written_answers_stop_when_the_budget_is_spent() {
        let p = Params::positional(vec![json!("(;SZ[9];B[aa];W[bb])")]);
        let game = load(&p, &options(&p, 1).unwrap()).unwrap();
        let plays = sgf::get_setup_and_moves(&game).unwrap().plays;
        let failure = Failure::default();
        let games = GamesView(vec![Entry::Game(GameView {
            game: &game,
            failure: &failure,
        })]);
        let moves = MovesView {
            plays: &plays,
            size: game.dimensions(),
        };
        let spent = || crate::budget::Budget::new(Some(std::time::Duration::ZERO));
        for wire in [Wire::Value, Wire::Json, Wire::Xml { nil_ok: false }] {
            assert!(encode_view(wire, &games, &failure).is_ok());
            assert!(encode_view(wire, &moves, &failure).is_ok());
            let stopped = crate::budget::run(spent(), || encode_view(wire, &games, &failure));
            assert!(stopped.is_err(), "{wire:?}");
            let stopped = crate::budget::run(spent(), || encode_view(wire, &moves, &failure));
            assert!(stopped.is_err(), "{wire:?}");
        }
    }

    #[test]
    fn normalise_matches_sgfmill_serialiser() {
        let r = call(normalise, vec![json!("(;SZ[9]FF[4];B[aa];W[tt])")]).unwrap();
        // Text input is UTF-8 (sgfmill's from_string): CA is set accordingly.
        assert_eq!(r["sgf"], "(;FF[4]CA[UTF-8]SZ[9];B[aa];W[tt])\n");
        assert_eq!(r["charset"], "UTF-8");
        let r = call(normalise, vec![json!("(;C[x];B[aa])"), json!({"wrap": 0})]).unwrap();
        assert_eq!(r["sgf"], "(;C[x]CA[UTF-8];B[aa])\n");
    }

    #[test]
    fn base64_input_keeps_the_file_charset() {
        let bytes = b"(;CA[ISO-8859-1]PB[Jos\xe9];B[aa])";
        let r = call(
            normalise,
            vec![json!(B64.encode(bytes)), json!({"base64": true})],
        )
        .unwrap();
        assert_eq!(r["sgf"], "(;CA[ISO-8859-1]PB[José];B[aa])\n");
        assert_eq!(
            B64.decode(r["sgf_base64"].as_str().unwrap()).unwrap(),
            b"(;CA[ISO-8859-1]PB[Jos\xe9];B[aa])\n"
        );
        // Bytes as an array work too.
        let arr: Vec<J> = bytes.iter().map(|&b| json!(b)).collect();
        let r = call(game_info, vec![J::Array(arr)]).unwrap();
        assert_eq!(r["player_b"], "José");
    }

    #[test]
    fn parse_gives_raw_and_typed_values() {
        let r = call(
            parse,
            vec![json!(
                "(;SZ[19]KM[6.5]AB[dd][pp];W[qd](;B[]C[a\\]b])(;B[tt]))"
            )],
        )
        .unwrap();
        let g = &r["games"][0];
        assert_eq!(g["size"], 19);
        let nodes = g["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 4);
        assert_eq!(nodes[0]["props"]["KM"]["value"], 6.5);
        assert_eq!(nodes[0]["props"]["AB"]["type"], "stone_list");
        // Sorted as points (row from the bottom first): pp (Q4) before dd (D16).
        assert_eq!(
            nodes[0]["props"]["AB"]["value"][0],
            json!({"sgf": "pp", "gtp": "Q4"})
        );
        assert_eq!(
            nodes[0]["props"]["AB"]["value"][1],
            json!({"sgf": "dd", "gtp": "D16"})
        );
        assert_eq!(
            nodes[1]["props"]["W"]["value"],
            json!({"sgf": "qd", "gtp": "R16"})
        );
        assert_eq!(nodes[1]["children"], json!([2, 3]));
        assert_eq!(nodes[2]["props"]["B"]["value"], J::Null);
        assert_eq!(nodes[2]["props"]["C"]["raw"], json!(["a\\]b"]));
        assert_eq!(nodes[2]["props"]["C"]["value"], "a]b");
        assert_eq!(nodes[3]["parent"], 1);
    }

    #[test]
    fn parse_then_serialise_round_trips() {
        let text = "(;FF[4]CA[UTF-8]GM[1]PB[名人]SZ[9];B[ee](;W[cc])(;C[x\\]y]W[gg]))\n";
        let parsed = call(parse, vec![json!(text)]).unwrap();
        let out = call(serialise, vec![parsed]).unwrap();
        assert_eq!(out["sgf"], text);
        // Minimal tree form.
        let tree = json!({"nodes": [
            {"id": 0, "props": {"SZ": ["9"], "CA": ["UTF-8"]}},
            {"id": 5, "parent": 0, "props": {"B": ["aa"]}},
            {"id": 6, "parent": 0, "props": {"B": {"raw": ["bb"]}}},
        ]});
        let out = call(serialise, vec![tree]).unwrap();
        assert_eq!(out["sgf"], "(;CA[UTF-8]SZ[9](;B[aa])(;B[bb]))\n");
        // Values that do not decode travel as base64 and come back byte for byte.
        let bytes = b"(;CA[UTF-8]C[\xff\xfe];B[aa])";
        let parsed = call(
            parse,
            vec![json!(B64.encode(bytes)), json!({"base64": true})],
        )
        .unwrap();
        let c = &parsed["games"][0]["nodes"][0]["props"]["C"];
        assert_eq!(c["raw_base64"], json!([B64.encode(b"\xff\xfe")]));
        let out = call(serialise, vec![parsed, json!({"base64": true, "wrap": 0})]).unwrap();
        assert_eq!(
            B64.decode(out["sgf_base64"].as_str().unwrap()).unwrap(),
            b"(;C[\xff\xfe]CA[UTF-8];B[aa])\n"
        );
    }

    #[test]
    fn serialise_rejects_bad_trees() {
        let bad = [
            json!({"nodes": []}),
            json!({"nodes": [{"props": {"B1": ["x"]}}]}),
            json!({"nodes": [{"props": {"": ["x"]}}]}),
            json!({"nodes": [{"props": {"SZ": ["9", "x]"]}}]}),
            json!({"nodes": [{"props": {"C": ["a]b"]}}]}),
            json!({"nodes": [{"id": 0}, {"id": 1, "parent": 7}]}),
            json!({"nodes": [{"id": 0}, {"id": 0, "parent": 0}]}),
            json!({"nodes": [{"props": {"C": [1]}}]}),
        ];
        for t in bad {
            let e = call(serialise, vec![t.clone()]).unwrap_err();
            assert_eq!(e.code, codes::TREE, "{t}: {e}");
        }
        let e = call(serialise, vec![json!("not a tree")]).unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        let e = call(
            serialise,
            vec![json!({"nodes": [{"props": {"C": ["日本"], "CA": ["latin1"]}}]})],
        )
        .unwrap_err();
        assert_eq!(e.code, codes::ENCODING);
    }

    #[test]
    fn game_info_and_main_line() {
        let text =
            "(;SZ[9]KM[6.5]HA[2]PB[Alice]PW[Bob]RE[W+R]DT[2026-11-22]AB[cc][gg];W[ee];B[];W[tt])";
        let r = call(game_info, vec![json!(text)]).unwrap();
        assert_eq!(r["komi"], 6.5);
        assert_eq!(r["handicap"], 2);
        assert_eq!(r["winner"], "w");
        assert_eq!(r["result"], "W+R");
        assert_eq!(r["date"], "2026-11-22");
        assert!(r.get("errors").is_none());
        let r = call(main_line, vec![json!(text)]).unwrap();
        assert_eq!(r["setup"]["black"].as_array().unwrap().len(), 2);
        assert_eq!(
            r["moves"][0],
            json!({"colour": "w", "point": {"sgf": "ee", "gtp": "E5"}})
        );
        assert_eq!(r["moves"][1]["point"], J::Null);
        assert_eq!(r["moves"][2]["point"], J::Null);
        let e = call(main_line, vec![json!("(;SZ[9];AB[aa])")]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (codes::VALUE, "setup properties after the root node")
        );
        let r = call(game_info, vec![json!("(;HA[1]KM[x])")]).unwrap();
        assert!(r["errors"]["komi"].is_string() && r["errors"]["handicap"].is_string());
    }

    #[test]
    fn client_errors_are_clear() {
        let e = call(parse, vec![json!("(;B[aa]")]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (codes::LOAD, "unexpected end of SGF data")
        );
        let e = call(parse, vec![json!("(;)"), json!({"nope": true})]).unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        let e = call(parse, vec![json!("!!"), json!({"base64": true})]).unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        let e = call(parse, vec![json!(42)]).unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        let e = call(parse, vec![json!([1, 300])]).unwrap_err();
        assert_eq!(e.code, crate::rpc::error::codes::INVALID_PARAMS);
        // A syntax error in game 0 of a collection is its error entry, as in any game.
        let r = call(
            parse,
            vec![json!("(;B)(;GN[a])"), json!({"collection": true})],
        )
        .unwrap();
        assert_eq!(
            r["games"],
            json!([{"error": {"code": codes::LOAD, "kind": "syntax", "class": "ValueError",
                              "message": "error parsing game 0: property with no values"}}])
        );
        let r = call(
            parse,
            vec![json!("(;GN[a])(;GN[b])"), json!({"collection": true})],
        )
        .unwrap();
        assert_eq!(r["games"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn collections_keep_their_good_games() {
        let text = "(;GN[a]SZ[9])(;GN[b]SZ[30])(;GN[c]CA[nope])(;GN[d]SZ[x])(;GN[e])(;B)";
        let r = call(parse, vec![json!(text), json!({"collection": true})]).unwrap();
        let games = r["games"].as_array().unwrap();
        assert_eq!(games.len(), 6);
        assert_eq!(games[0]["size"], 9);
        assert_eq!(
            games[1],
            json!({"error": {"code": 710, "kind": "board_size", "class": "ValueError",
                             "message": "size out of range: 30"}})
        );
        // A text input's CA is overridden (UTF-8), so CA[nope] loads; as bytes it does not.
        assert_eq!(games[2]["charset"], "UTF-8");
        assert_eq!(games[3]["error"]["kind"], "board_size");
        assert_eq!(games[3]["error"]["message"], "bad SZ property: b'x'");
        assert_eq!(games[4]["nodes"][0]["props"]["GN"]["value"], "e");
        assert_eq!(
            games[5]["error"],
            json!({"code": 710, "kind": "syntax", "class": "ValueError",
                   "message": "error parsing game 5: property with no values"})
        );
        let bytes = b"(;GN[a])(;GN[b]CA[nope])(;GN[c]CA[caf\xe9])";
        let r = call(
            parse,
            vec![
                json!(B64.encode(bytes)),
                json!({"base64": true, "collection": true}),
            ],
        )
        .unwrap();
        let games = r["games"].as_array().unwrap();
        assert_eq!(games[0]["nodes"][0]["props"]["GN"]["value"], "a");
        assert_eq!(games[1]["error"]["kind"], "charset");
        assert_eq!(games[1]["error"]["message"], "unknown encoding: nope");
        assert_eq!(games[2]["error"]["message"], "encoding names must be ascii");
        let e = call(
            parse,
            vec![
                json!("(;GN[a])(;GN[b])"),
                json!({"collection": true, "encoding": "nope"}),
            ],
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (codes::LOAD, "unknown encoding: nope")
        );
        // One game that does not load: a fault without `collection`, its error entry with it.
        let e = call(parse, vec![json!("(;SZ[30])"), json!({})]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (codes::LOAD, "size out of range: 30")
        );
        let r = call(parse, vec![json!("(;SZ[30])"), json!({"collection": true})]).unwrap();
        assert_eq!(
            r["games"],
            json!([{"error": {"code": 710, "kind": "board_size", "class": "ValueError",
                              "message": "size out of range: 30"}}])
        );
    }

    #[test]
    fn charset_error_when_ca_does_not_read() {
        // CA's first raw value names the charset the values are read with; the typed CA
        // (what sgfmill's get_charset reads) can still fail.
        for (bytes, why) in [
            (&b"(;CA[UTF-8][latin1]C[x])"[..], "multiple values"),
            (
                &b"(;CA[iso\\8859\\1]C[x])"[..],
                "no codec available for CA iso88591",
            ),
        ] {
            let r = call(
                parse,
                vec![json!(B64.encode(bytes)), json!({"base64": true})],
            )
            .unwrap();
            let g = &r["games"][0];
            assert_eq!(g["charset_error"], why);
            assert!(g.get("charset").is_none());
            // sgfmill cannot serialise these ("unsupported charset"); sgf.serialise writes
            // the values in the charset they were read with.
            let e = call(
                normalise,
                vec![json!(B64.encode(bytes)), json!({"base64": true})],
            )
            .unwrap_err();
            assert!(e.message.starts_with("unsupported charset"), "{e}");
            let out = call(serialise, vec![r, json!({"wrap": 0, "base64": true})]).unwrap();
            let back = B64.decode(out["sgf_base64"].as_str().unwrap()).unwrap();
            assert_eq!(
                call(
                    parse,
                    vec![json!(B64.encode(&back)), json!({"base64": true})]
                )
                .unwrap()["games"][0]["charset_error"],
                why
            );
        }
    }

    #[test]
    fn serialise_takes_back_what_parse_gives() {
        for (text, want) in [
            ("(;SZ[ 9 ]B[ee])", "(;B[ee]CA[UTF-8]SZ[ 9 ])\n"),
            ("(;SZ[9][ee];B[aa])", "(;CA[UTF-8]SZ[9][ee];B[aa])\n"),
            ("(;foo[bar]SZ[9])", "(;CA[UTF-8]SZ[9]foo[bar])\n"),
            ("(;AddBlack[aa]SZ[9])", "(;AB[aa]CA[UTF-8]SZ[9])\n"),
            ("(;SZ[19]XX[a\\]b][c])", "(;CA[UTF-8]SZ[19]XX[a\\]b][c])\n"),
        ] {
            let parsed = call(parse, vec![json!(text)]).unwrap();
            let out = call(serialise, vec![parsed, json!({"wrap": 0})])
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(out["sgf"], want, "{text}");
        }
        // Bytes read leniently (windows-1252's undefined 0x81) come back exact.
        let bytes = b"(;CA[cp1252]C[\x81\x80])";
        let opts = json!({"base64": true, "allow_undefined_bytes": true});
        let parsed = call(parse, vec![json!(B64.encode(bytes)), opts.clone()]).unwrap();
        let c = &parsed["games"][0]["nodes"][0]["props"]["C"];
        assert_eq!(c["value"], "\u{81}\u{20ac}");
        assert_eq!(c["raw_base64"], json!([B64.encode(b"\x81\x80")]));
        let out = call(serialise, vec![parsed, json!({"base64": true, "wrap": 0})]).unwrap();
        assert_eq!(
            B64.decode(out["sgf_base64"].as_str().unwrap()).unwrap(),
            b"(;C[\x81\x80]CA[cp1252])\n"
        );
        // Without the leniency the undefined byte does not read, as in Python.
        let parsed = call(
            parse,
            vec![json!(B64.encode(bytes)), json!({"base64": true})],
        )
        .unwrap();
        let c = &parsed["games"][0]["nodes"][0]["props"]["C"];
        assert_eq!(c["value"]["class"], "UnicodeDecodeError");
    }

    #[test]
    fn lenient_option() {
        let sjis = encoding_rs::SHIFT_JIS
            .encode("(PB[表]C[ソ];B[aa])")
            .0
            .into_owned();
        let b64 = B64.encode(&sjis);
        let e = call(parse, vec![json!(b64), json!({"base64": true})]).unwrap_err();
        assert_eq!(e.message, "no SGF data found");
        let r = call(
            game_info,
            vec![
                json!(b64),
                json!({"base64": true, "lenient": true, "encoding": "Shift_JIS"}),
            ],
        )
        .unwrap();
        assert_eq!(r["player_b"], "表");
    }

    #[test]
    fn rectangular_boards() {
        let text = "(;SZ[5:3];B[ec];W[aa])";
        let e = call(main_line, vec![json!(text)]).unwrap_err();
        assert_eq!(e.message, "bad SZ property: b'5:3'");
        let opts = json!({"rectangular_boards": true});
        let r = call(main_line, vec![json!(text), opts.clone()]).unwrap();
        assert_eq!((&r["size"], &r["height"]), (&json!(5), &json!(3)));
        assert_eq!(r["moves"][0]["point"], json!({"sgf": "ec", "gtp": "E1"}));
        assert_eq!(r["moves"][1]["point"], json!({"sgf": "aa", "gtp": "A3"}));
        let parsed = call(parse, vec![json!(text), opts.clone()]).unwrap();
        let out = call(serialise, vec![parsed, opts]).unwrap();
        assert_eq!(out["sgf"], "(;CA[UTF-8]SZ[5:3];B[ec];W[aa])\n");
    }

    #[test]
    fn methods_are_declared() {
        let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            [
                "sgf.parse",
                "sgf.serialise",
                "sgf.game_info",
                "sgf.main_line",
                "sgf.normalise"
            ]
        );
    }
}
