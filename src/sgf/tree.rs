//! The game: an arena of nodes with stable ids, loading (sgfmill's `Sgf_game.from_bytes`),
//! property access raw and typed, node and tree editing, and the game-level helpers.
//!
//! Node ids carry the id of the game that made them, so a node of another game is refused
//! (`node doesn't belong to this game`) instead of silently addressing the wrong node; a
//! deleted node's id stays invalid for ever (ids are never reused).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};

use super::charset::{Charset, Multibyte};
use super::error::{ErrorKind, SgfError, bytes_repr};
use super::grammar::{self, Arena, GrammarOptions, NONE, NodeData, Prop, Span};
use super::props::{Colour, Context, Point, PropType, Value, py_int_text};

/// An identifier and its raw values.
pub type RawProperty<'a> = (&'a [u8], Vec<&'a [u8]>);

/// AB, AW and AE as sets.
pub type SetupStones = (BTreeSet<Point>, BTreeSet<Point>, BTreeSet<Point>);

static NEXT_GAME_ID: AtomicU32 = AtomicU32::new(1);

/// A node of one game. Copyable; valid until the node is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId {
    game: u32,
    index: u32,
}

impl NodeId {
    /// The node's index in its game (stable; the root is 0; pre-order for a freshly
    /// loaded game).
    pub fn index(self) -> u32 {
        self.index
    }
}

/// How to load SGF bytes. The default is sgfmill 1.1.1's behaviour; every leniency is a flag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Use this charset instead of the root `CA` (and rewrite `CA` to its normalised name),
    /// like sgfmill's `override_encoding`.
    pub override_encoding: Option<String>,
    /// Accept a root node without `;` (Nihon Ki-in files).
    pub root_without_semicolon: bool,
    /// Scan Shift_JIS / CP932 / Big5 / GBK / GB18030 values character by character, so a
    /// `\` or `]` trail byte stays part of its character (sgfmill breaks on these).
    pub multibyte_aware: bool,
    /// Decode UTF-16 input with a byte-order mark before parsing (as UTF-8, `CA[UTF-8]`).
    pub utf16: bool,
    /// When `CA` is missing: valid UTF-8 → UTF-8, else chardetng's guess, else ISO-8859-1
    /// (sgfmill: always ISO-8859-1); the guess is written to the root as `CA`.
    pub detect_encoding: bool,
    /// Accept `SZ[w:h]` (`FF[4]` rectangular boards); sgfmill: `bad SZ property`.
    pub rectangular_boards: bool,
    /// Accept SZ up to 52 (`FF[4]` large boards, coordinates `a`–`z` then `A`–`Z`);
    /// sgfmill stops at 26.
    pub large_boards: bool,
    /// Reproduce sgfmill's empty identifier for all-lower-case identifiers (`foo[x]` → `[x]`);
    /// by default such identifiers keep their spelling so the output always re-parses.
    pub sgfmill_empty_ident: bool,
    /// Keep identifiers with lower-case letters as written (`AddBlack` stays `AddBlack`, an
    /// unknown property) instead of deleting the lower-case letters (`AB`).
    pub keep_lowercase_idents: bool,
    /// Single-byte code pages (windows-125x, ISO-8859-x, …): decode the bytes Python leaves
    /// undefined (windows-1252's 0x81, 0x8D, 0x8F, 0x90, 0x9D, …) as the code point of the
    /// same number, as Windows and WHATWG do, instead of failing like sgfmill.
    pub allow_undefined_bytes: bool,
    /// Stop reading a game as soon as it has more than this many nodes, with an
    /// [`ErrorKind::Limit`] error, so that a record over a caller's cap costs no more to refuse
    /// than the cap itself (the parse does not run to the end of a huge input first). `None`:
    /// no limit (sgfmill).
    pub max_nodes: Option<usize>,
}

impl LoadOptions {
    fn grammar(&self, multibyte: Multibyte) -> GrammarOptions {
        GrammarOptions {
            root_without_semicolon: self.root_without_semicolon,
            multibyte,
            sgfmill_empty_ident: self.sgfmill_empty_ident,
            keep_lowercase_idents: self.keep_lowercase_idents,
            max_nodes: self.max_nodes,
        }
    }
}

/// One SGF game tree.
#[derive(Debug, Clone)]
pub struct Game {
    id: u32,
    arena: Arena,
    /// Board width; the size of a square board.
    size: u8,
    /// Board height: `size` unless the rectangular-boards leniency read `SZ[w:h]`.
    height: u8,
    /// The encoding raw values are in (sgfmill's presenter encoding), fixed at load.
    charset: Charset,
    multibyte: Multibyte,
    /// Types registered by the caller for identifiers outside the `FF[4]` table.
    custom_types: Vec<(Vec<u8>, PropType)>,
    /// When set, reading or writing an unknown identifier typed is an error instead of Text.
    strict_properties: bool,
    /// Typed writes of point sets use rectangles (`aa:bc`); sgfmill writes single points.
    compress_point_lists: bool,
}

fn is_valid_ident(ident: &str) -> bool {
    (1..=64).contains(&ident.len()) && ident.bytes().all(|b| b.is_ascii_uppercase())
}

/// sgfmill's `is_valid_property_value`: no unescaped `]`, no trailing lone `\` (a trail
/// byte of a multibyte character is neither, when the game reads them character-aware).
fn is_valid_value(v: &[u8], mb: Multibyte) -> bool {
    let mut i = 0;
    while i < v.len() {
        match v[i] {
            b if mb.is_lead(b) => i += 2,
            b'\\' => {
                if i + 1 >= v.len() {
                    return false;
                }
                i += 2;
            }
            b']' => return false,
            _ => i += 1,
        }
    }
    true
}

/// Loads the first game in `bytes` (sgfmill's `Sgf_game.from_bytes`).
pub fn parse(bytes: &[u8]) -> Result<Game, SgfError> {
    Game::from_bytes_with(bytes, &LoadOptions::default())
}

/// Loads every game in `bytes`, all or nothing: the first failing game fails the whole
/// collection (`error parsing game N: …`). See [`load_collection`] to keep the good games.
pub fn parse_collection(bytes: &[u8], opts: &LoadOptions) -> Result<Vec<Game>, SgfError> {
    let mut games = Vec::new();
    each_game(bytes, opts, |n, game| {
        let game = game.map_err(|e| {
            if e.message.starts_with("error parsing game ") {
                e
            } else {
                SgfError::new(e.kind, format!("error parsing game {n}: {}", e.message))
            }
        })?;
        games.push(game);
        Ok(())
    })?;
    Ok(games)
}

/// Loads every game in `bytes`, each on its own, as sgfmill's collection reader does
/// (`parse_sgf_collection`, then `Sgf_game.from_coarse_game_tree` game by game): a game
/// whose root cannot be loaded (bad or out-of-range SZ, unknown or non-ASCII CA) is an
/// `Err` entry in its place and the games around it are kept.
///
/// A syntax error in game N cannot be stepped over (where that game ends is unknown), so
/// it ends the list with an `Err` entry `error parsing game N: <message>` — sgfmill's
/// message, where sgfmill fails the whole collection. No game at all: `no SGF data found`.
pub fn load_collection(
    bytes: &[u8],
    opts: &LoadOptions,
) -> Result<Vec<Result<Game, SgfError>>, SgfError> {
    let mut games = Vec::new();
    each_game(bytes, opts, |_, game| {
        games.push(game);
        Ok(())
    })?;
    Ok(games)
}

/// A cap [`load_collection_within`] hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeded {
    /// More games than the cap.
    Games(usize),
    /// More nodes, over the games read so far, than the cap.
    Nodes(usize),
}

/// [`load_collection`] that stops reading as soon as the collection has more than
/// `max_games` games or `max_nodes` nodes in all, so that memory stays bounded by the caps
/// rather than by the input: `Ok(Err(_))` says which cap was hit.
pub fn load_collection_within(
    bytes: &[u8],
    opts: &LoadOptions,
    max_games: usize,
    max_nodes: usize,
) -> Result<Result<Vec<Result<Game, SgfError>>, Exceeded>, SgfError> {
    let mut games = Vec::new();
    let mut nodes = 0usize;
    let mut exceeded = None;
    // One game alone over the cap stops where it passes it, not at its end.
    let opts = &LoadOptions {
        max_nodes: Some(opts.max_nodes.map_or(max_nodes, |m| m.min(max_nodes))),
        ..opts.clone()
    };
    let walk = each_game(bytes, opts, |n, game| {
        if n >= max_games {
            exceeded = Some(Exceeded::Games(max_games));
        } else {
            match &game {
                Ok(g) => nodes += g.node_count(),
                Err(e) if e.kind == ErrorKind::Limit => nodes = usize::MAX,
                Err(_) => {}
            }
            if nodes > max_nodes {
                exceeded = Some(Exceeded::Nodes(max_nodes));
            }
        }
        if exceeded.is_some() {
            // Stops the walk; the cap, not this error, is reported.
            return Err(SgfError::value("cap exceeded"));
        }
        games.push(game);
        Ok(())
    });
    if let Some(e) = exceeded {
        return Ok(Err(e));
    }
    walk?;
    Ok(Ok(games))
}

/// Hands each game of a collection to `on_game` with its index, in order: the game, or why
/// its root does not load, or (last) the syntax error that stops the collection. An error
/// from `on_game` stops the walk and is returned; no game at all is `no SGF data found`.
fn each_game(
    bytes: &[u8],
    opts: &LoadOptions,
    mut on_game: impl FnMut(usize, Result<Game, SgfError>) -> Result<(), SgfError>,
) -> Result<(), SgfError> {
    let converted;
    let utf8_opts;
    let (bytes, opts) = match prepare(bytes, opts) {
        Some((b, o)) => {
            (converted, utf8_opts) = (b, o);
            (&converted[..], &utf8_opts)
        }
        None => (bytes, opts),
    };
    let mut pos = 0;
    let mut scratch = Arena::default();
    for n in 0.. {
        match parse_one(bytes, pos, opts, &mut scratch) {
            Ok(None) if n == 0 => return Err(SgfError::value("no SGF data found")),
            Ok(None) => break,
            Ok(Some((game, end))) => {
                on_game(n, game)?;
                pos = end;
            }
            Err(e) => {
                let e = SgfError::new(e.kind, format!("error parsing game {n}: {}", e.message));
                return on_game(n, Err(e));
            }
        }
    }
    Ok(())
}

/// The `detect_encoding` leniency for a game without CA: UTF-8 when the bytes are valid
/// UTF-8, else chardetng's guess (as Sabaki does), else ISO-8859-1.
fn detect_charset(bytes: &[u8]) -> Charset {
    if std::str::from_utf8(bytes).is_ok() {
        return Charset::UTF8;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let guess = detector.guess(None, chardetng::Utf8Detection::Allow);
    Charset::lookup(guess.name()).unwrap_or(Charset::LATIN1)
}

/// UTF-16 with a BOM → UTF-8 bytes, when that leniency is on. The bytes are then UTF-8
/// whatever CA says, so the encoding is overridden to UTF-8 (unless the caller set one).
fn prepare(bytes: &[u8], opts: &LoadOptions) -> Option<(Vec<u8>, LoadOptions)> {
    if !opts.utf16 {
        return None;
    }
    let (enc, _) = encoding_rs::Encoding::for_bom(bytes)?;
    if enc == encoding_rs::UTF_8 {
        return None;
    }
    let (text, _, _) = enc.decode(bytes);
    let mut opts = opts.clone();
    opts.override_encoding
        .get_or_insert_with(|| "UTF-8".to_owned());
    Some((text.into_owned().into_bytes(), opts))
}

/// A game read by the grammar at `from`: the game (or why its root cannot be loaded) and
/// where it ended. The outer error is a syntax error; `Ok(None)`: no game start.
type OneGame = Result<Option<(Result<Game, SgfError>, usize)>, SgfError>;

fn parse_one(bytes: &[u8], from: usize, opts: &LoadOptions, scratch: &mut Arena) -> OneGame {
    if !opts.multibyte_aware {
        return parse_with(bytes, from, opts, scratch, Multibyte::Safe);
    }
    // Character-aware scanning needs the charset before the bytes are read.
    if let Some(name) = &opts.override_encoding {
        let mb = Charset::lookup(name)?.multibyte();
        return parse_with(bytes, from, opts, scratch, mb);
    }
    // Otherwise the charset is in the root: read byte-wise first, then again
    // character-aware if CA names a multibyte charset.
    match parse_with(bytes, from, opts, scratch, Multibyte::Safe) {
        Ok(Some((Ok(game), end))) if game.charset.multibyte() != Multibyte::Safe => {
            let mb = game.charset.multibyte();
            match parse_with(bytes, from, opts, scratch, mb) {
                // Read character-aware, the root must still name that kind of charset: a
                // trail byte read byte-wise as an escape can hide a CA inside another value
                // (`B[表]CA[UTF-8]…CA[Shift_JIS]`), and then neither reading is the file's.
                Ok(Some((Ok(again), _))) if again.charset.multibyte() != mb => {
                    let message = format!(
                        "the root's charset is ambiguous: read byte-wise its CA is {}, read as \
                         {} it is {}",
                        game.charset.name(),
                        game.charset.name(),
                        again.charset.name()
                    );
                    Ok(Some((Err(SgfError::value(message)), end)))
                }
                other => other,
            }
        }
        // A cap is not something a character-aware reading would fix.
        Err(e) if e.kind == ErrorKind::Limit => Err(e),
        Err(e) => {
            // A trail byte may have broken the byte-wise reading: try each multibyte
            // family and keep a reading whose own CA confirms it.
            for mb in [Multibyte::ShiftJis, Multibyte::DoubleByte] {
                if let Ok(Some((Ok(game), end))) = parse_with(bytes, from, opts, scratch, mb)
                    && game.charset.multibyte() == mb
                {
                    return Ok(Some((Ok(game), end)));
                }
            }
            Err(e)
        }
        other => other,
    }
}

fn parse_with(
    bytes: &[u8],
    from: usize,
    opts: &LoadOptions,
    scratch: &mut Arena,
    mb: Multibyte,
) -> OneGame {
    let Some(parsed) = grammar::parse_game(bytes, from, &opts.grammar(mb), scratch)? else {
        return Ok(None);
    };
    let game = Game::from_arena(parsed.arena, opts).map(|mut game| {
        game.multibyte = mb;
        game
    });
    Ok(Some((game, parsed.end)))
}

impl Game {
    fn ctx(&self) -> Context {
        Context {
            size: self.size,
            height: self.height,
            charset: self.charset,
            multibyte: self.multibyte,
            compress_point_lists: self.compress_point_lists,
        }
    }

    /// A new game (sgfmill's `Sgf_game(size, encoding)`): root `FF[4]GM[1]SZ[size]CA[..]`.
    pub fn new(size: u8) -> Result<Game, SgfError> {
        Game::new_with_charset(size, "UTF-8")
    }

    pub fn new_with_charset(size: u8, encoding: &str) -> Result<Game, SgfError> {
        if !(1..=26).contains(&size) {
            return Err(SgfError::value(format!("size out of range: {size}")));
        }
        let charset = Charset::lookup(encoding)?;
        let mut arena = Arena::default();
        arena.nodes.push(NodeData::new(NONE, 0));
        let mut game = Game {
            id: NEXT_GAME_ID.fetch_add(1, Ordering::Relaxed),
            arena,
            size,
            height: size,
            charset,
            multibyte: Multibyte::Safe,
            custom_types: Vec::new(),
            strict_properties: false,
            compress_point_lists: false,
        };
        let root = game.root();
        game.put(root, b"FF", &[b"4".as_slice()]);
        game.put(root, b"GM", &[b"1".as_slice()]);
        game.put(root, b"SZ", &[size.to_string().as_bytes()]);
        game.put(root, b"CA", &[charset.name().as_bytes()]);
        Ok(game)
    }

    /// A game whose root has no properties at all, for building a tree from scratch (e.g.
    /// from a JSON description). Raw values added later are in `encoding`.
    ///
    /// Sizes up to 52 are accepted here (large boards); `new` keeps sgfmill's 1–26.
    pub fn empty(size: u8, encoding: &str) -> Result<Game, SgfError> {
        Game::empty_rect(size, size, encoding)
    }

    /// `empty` for a `width` × `height` board (the rectangular-boards leniency).
    pub fn empty_rect(width: u8, height: u8, encoding: &str) -> Result<Game, SgfError> {
        for side in [width, height] {
            if !(1..=52).contains(&side) {
                return Err(SgfError::value(format!("size out of range: {side}")));
            }
        }
        let mut game = Game::new_with_charset(width.min(26), encoding)?;
        game.size = width;
        game.height = height;
        game.arena.nodes[0].props.len = 0;
        Ok(game)
    }

    /// Loads the first game in `bytes` with sgfmill's rules.
    pub fn from_bytes(bytes: &[u8]) -> Result<Game, SgfError> {
        Game::from_bytes_with(bytes, &LoadOptions::default())
    }

    /// Loads the first game in `bytes`.
    pub fn from_bytes_with(bytes: &[u8], opts: &LoadOptions) -> Result<Game, SgfError> {
        let converted;
        let utf8_opts;
        let (bytes, opts) = match prepare(bytes, opts) {
            Some((b, o)) => {
                (converted, utf8_opts) = (b, o);
                (&converted[..], &utf8_opts)
            }
            None => (bytes, opts),
        };
        match parse_one(bytes, 0, opts, &mut Arena::default())? {
            Some((game, _)) => game,
            None => Err(SgfError::value("no SGF data found")),
        }
    }

    /// sgfmill's `from_string`: the text as UTF-8 with the encoding overridden to UTF-8.
    pub fn from_text(text: &str) -> Result<Game, SgfError> {
        Game::from_bytes_with(
            text.as_bytes(),
            &LoadOptions {
                override_encoding: Some("UTF-8".to_owned()),
                ..LoadOptions::default()
            },
        )
    }

    fn from_arena(arena: Arena, opts: &LoadOptions) -> Result<Game, SgfError> {
        let mut game = Game {
            id: NEXT_GAME_ID.fetch_add(1, Ordering::Relaxed),
            arena,
            size: 19,
            height: 19,
            charset: Charset::LATIN1,
            multibyte: Multibyte::Safe,
            custom_types: Vec::new(),
            strict_properties: false,
            compress_point_lists: false,
        };
        let root = game.root();
        if let Some(sz) = game.raw_first(root, b"SZ") {
            let bad = || SgfError::value(format!("bad SZ property: {}", bytes_repr(sz)));
            let (w, h) = match py_int_text(sz) {
                Some(text) => (text.clone(), text),
                None if opts.rectangular_boards => {
                    // `SZ[w:h]` (FF[4] rectangular boards).
                    let colon = sz.iter().position(|&b| b == b':').ok_or_else(bad)?;
                    let w = py_int_text(&sz[..colon]).ok_or_else(bad)?;
                    let h = py_int_text(&sz[colon + 1..]).ok_or_else(bad)?;
                    (w, h)
                }
                None => return Err(bad()),
            };
            // Python ints are unbounded: a huge SZ is "out of range", not "bad".
            let max = if opts.large_boards { 52 } else { 26 };
            let side = |text: &str| match text.parse::<u8>() {
                Ok(n) if (1..=max).contains(&n) => Ok(n),
                _ => Err(SgfError::value(format!("size out of range: {text}"))),
            };
            game.size = side(&w)?;
            game.height = side(&h)?;
        }
        let charset = match &opts.override_encoding {
            Some(name) => {
                let cs = Charset::lookup(name)?;
                game.put(root, b"CA", &[cs.name().as_bytes()]);
                cs
            }
            None => match game.raw_first(root, b"CA") {
                Some(ca) => Charset::lookup_bytes(ca)?,
                None if opts.detect_encoding => {
                    // Record the guess, so the output says what it is (and serialising
                    // does not transcode to the ISO-8859-1 default).
                    let cs = detect_charset(&game.arena.buf);
                    game.put(root, b"CA", &[cs.name().as_bytes()]);
                    cs
                }
                None => Charset::LATIN1,
            },
        };
        game.charset = charset.with_undefined_bytes(opts.allow_undefined_bytes);
        Ok(game)
    }

    // ------------------------------------------------------------------ basics

    /// Board size (1–26; up to 52 with the large-boards leniency). For a rectangular
    /// board (`SZ[w:h]`, behind its leniency) this is the width: see [`Game::dimensions`].
    pub fn size(&self) -> u8 {
        self.size
    }

    /// (width, height); equal for every board sgfmill reads.
    pub fn dimensions(&self) -> (u8, u8) {
        (self.size, self.height)
    }

    /// The raw SZ value that matches this game's size (`19`, or `w:h`).
    fn size_text(&self) -> String {
        if self.size == self.height {
            self.size.to_string()
        } else {
            format!("{}:{}", self.size, self.height)
        }
    }

    /// The charset raw values are encoded in (fixed at load).
    pub fn raw_charset(&self) -> Charset {
        self.charset
    }

    /// Whether the `allow_undefined_bytes` leniency was in force at load.
    fn charset_lenient(&self) -> bool {
        self.charset == self.charset.with_undefined_bytes(true)
    }

    /// Whether the root's `CA` must be written right after `FF` instead of in sgfmill's
    /// byte order: the game is read character-aware and written in a multibyte charset
    /// (`mb`, `Safe` otherwise), and a root value that would come before `CA` holds a
    /// character whose trail byte is `\` or `]` (`B[表]` is `B[95 5C]` in Shift_JIS). A
    /// reader meets that value before it knows the charset: read byte-wise, the trail byte
    /// escapes the `]` and `CA` is swallowed into the value, and the file may still parse.
    /// `written` gives a value's bytes as they will be written (`None`: cannot say).
    fn ca_must_lead(&self, mb: Multibyte, written: impl Fn(&[u8]) -> Option<Vec<u8>>) -> bool {
        if mb == Multibyte::Safe {
            return false;
        }
        let hides = |v: &[u8]| {
            let mut i = 0;
            while i + 1 < v.len() {
                if mb.is_lead(v[i]) {
                    if matches!(v[i + 1], b'\\' | b']') {
                        return true;
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
            false
        };
        self.props_of(0).iter().any(|p| {
            let ident = self.arena.bytes(p.ident);
            ident != b"FF"
                && ident < &b"CA"[..]
                && self
                    .values_of(p)
                    .any(|v| written(v).is_none_or(|w| hides(&w)))
        })
    }

    /// Whether values are scanned character-aware (multibyte leniency in force).
    pub fn multibyte(&self) -> Multibyte {
        self.multibyte
    }

    /// sgfmill's `get_charset()`: the normalised name of the root `CA` (default
    /// `ISO-8859-1`); `no codec available for CA X` for an unknown one.
    pub fn get_charset(&self) -> Result<String, SgfError> {
        let root = self.root();
        match self.get(root, "CA") {
            Err(e) if e.kind == ErrorKind::NotFound => Ok("ISO-8859-1".to_owned()),
            Err(e) => Err(e),
            Ok(Value::Text(name)) => Charset::lookup(&name)
                .map(|c| c.name().to_owned())
                .map_err(|_| SgfError::value(format!("no codec available for CA {name}"))),
            Ok(_) => Err(SgfError::value("bad CA")),
        }
    }

    pub fn root(&self) -> NodeId {
        NodeId {
            game: self.id,
            index: 0,
        }
    }

    /// The node with this index, if it exists (not deleted).
    pub fn node(&self, index: u32) -> Option<NodeId> {
        self.arena
            .nodes
            .get(index as usize)
            .filter(|n| n.live)
            .map(|_| NodeId {
                game: self.id,
                index,
            })
    }

    fn id(&self, index: u32) -> NodeId {
        NodeId {
            game: self.id,
            index,
        }
    }

    fn check(&self, node: NodeId) -> Result<usize, SgfError> {
        if node.game != self.id {
            return Err(SgfError::value("node doesn't belong to this game"));
        }
        match self.arena.nodes.get(node.index as usize) {
            Some(n) if n.live => Ok(node.index as usize),
            _ => Err(SgfError::bad_node()),
        }
    }

    fn data(&self, node: NodeId) -> &NodeData {
        // Callers check first; an invalid id can only come from this module.
        &self.arena.nodes[node.index as usize]
    }

    /// Number of live nodes.
    pub fn node_count(&self) -> usize {
        self.arena.nodes.iter().filter(|n| n.live).count()
    }

    // ------------------------------------------------------------------ navigation

    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.check(node).ok()?;
        let p = self.data(node).parent;
        (p != NONE).then(|| self.id(p))
    }

    /// The children in order.
    pub fn children(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let first = if self.check(node).is_ok() {
            self.data(node).first_child
        } else {
            NONE
        };
        std::iter::successors((first != NONE).then_some(first), move |&c| {
            let next = self.arena.nodes[c as usize].next_sibling;
            (next != NONE).then_some(next)
        })
        .map(move |c| self.id(c))
    }

    pub fn num_children(&self, node: NodeId) -> usize {
        self.children(node).count()
    }

    pub fn child(&self, node: NodeId, index: usize) -> Option<NodeId> {
        self.children(node).nth(index)
    }

    /// Position of `node` among its parent's children.
    pub fn index_in_parent(&self, node: NodeId) -> Option<usize> {
        let parent = self.parent(node)?;
        self.children(parent).position(|c| c == node)
    }

    /// Root → leaf, always through child 0.
    pub fn main_sequence(&self) -> Vec<NodeId> {
        self.main_sequence_below_unchecked(self.root())
    }

    fn main_sequence_below_unchecked(&self, node: NodeId) -> Vec<NodeId> {
        let mut out = vec![node];
        let mut cur = node.index;
        loop {
            let first = self.arena.nodes[cur as usize].first_child;
            if first == NONE {
                return out;
            }
            out.push(self.id(first));
            cur = first;
        }
    }

    /// The end of the main sequence.
    pub fn last_node(&self) -> NodeId {
        let mut cur = 0u32;
        loop {
            let first = self.arena.nodes[cur as usize].first_child;
            if first == NONE {
                return self.id(cur);
            }
            cur = first;
        }
    }

    /// The descendants of `node` along child 0, from its first child to a leaf (`node`
    /// itself excluded, as in sgfmill).
    pub fn main_sequence_below(&self, node: NodeId) -> Result<Vec<NodeId>, SgfError> {
        self.check(node)?;
        let mut below = self.main_sequence_below_unchecked(node);
        below.remove(0);
        Ok(below)
    }

    /// Root down to `node`'s parent.
    pub fn sequence_above(&self, node: NodeId) -> Result<Vec<NodeId>, SgfError> {
        self.check(node)?;
        let mut out = Vec::new();
        let mut cur = self.data(node).parent;
        while cur != NONE {
            out.push(self.id(cur));
            cur = self.arena.nodes[cur as usize].parent;
        }
        out.reverse();
        Ok(out)
    }

    /// Every live node in pre-order (children in order).
    pub fn preorder(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.arena.nodes.len());
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            out.push(self.id(n));
            let kids: Vec<u32> = self.children(self.id(n)).map(|c| c.index).collect();
            stack.extend(kids.into_iter().rev());
        }
        out
    }

    // ------------------------------------------------------------------ editing the tree

    /// Adds a new child at the end of the main sequence.
    pub fn extend_main_sequence(&mut self) -> NodeId {
        let last = self.last_node();
        // The last node is live by construction.
        self.insert_child(last.index, None)
    }

    /// A new child of `node`, appended, or inserted at `index` like a list insert.
    pub fn new_child(&mut self, node: NodeId, index: Option<usize>) -> Result<NodeId, SgfError> {
        let p = self.check(node)? as u32;
        Ok(self.insert_child(p, index))
    }

    fn insert_child(&mut self, parent: u32, index: Option<usize>) -> NodeId {
        let id = self.arena.nodes.len() as u32;
        self.arena
            .nodes
            .push(NodeData::new(parent, self.arena.props.len() as u32));
        self.link_at(parent, id, index);
        self.id(id)
    }

    /// Links `child` under `parent` at `index` (append when `None` or past the end).
    fn link_at(&mut self, parent: u32, child: u32, index: Option<usize>) {
        let kids: Vec<u32> = self.children(self.id(parent)).map(|c| c.index).collect();
        match index {
            Some(i) if i < kids.len() => {
                self.arena.nodes[child as usize].parent = parent;
                self.arena.nodes[child as usize].next_sibling = kids[i];
                if i == 0 {
                    self.arena.nodes[parent as usize].first_child = child;
                } else {
                    self.arena.nodes[kids[i - 1] as usize].next_sibling = child;
                }
            }
            _ => self.arena.link_last(parent, child),
        }
    }

    fn unlink(&mut self, node: u32) {
        let parent = self.arena.nodes[node as usize].parent;
        if parent == NONE {
            return;
        }
        let kids: Vec<u32> = self.children(self.id(parent)).map(|c| c.index).collect();
        let Some(pos) = kids.iter().position(|&k| k == node) else {
            return;
        };
        let next = self.arena.nodes[node as usize].next_sibling;
        if pos == 0 {
            self.arena.nodes[parent as usize].first_child = next;
        } else {
            self.arena.nodes[kids[pos - 1] as usize].next_sibling = next;
        }
        if next == NONE {
            self.arena.nodes[parent as usize].last_child =
                if pos == 0 { NONE } else { kids[pos - 1] };
        }
        let nd = &mut self.arena.nodes[node as usize];
        nd.parent = NONE;
        nd.next_sibling = NONE;
    }

    /// Removes `node` and its subtree. The root cannot be removed.
    pub fn delete(&mut self, node: NodeId) -> Result<(), SgfError> {
        let n = self.check(node)? as u32;
        if n == 0 {
            return Err(SgfError::value("can't remove the root node"));
        }
        self.unlink(n);
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            stack.extend(self.children(self.id(x)).map(|c| c.index));
            self.arena.nodes[x as usize].live = false;
        }
        Ok(())
    }

    /// Moves `node` (with its subtree) under `new_parent`, at `index` or at the end.
    pub fn reparent(
        &mut self,
        node: NodeId,
        new_parent: NodeId,
        index: Option<usize>,
    ) -> Result<(), SgfError> {
        let n = self.check(node)? as u32;
        if new_parent.game != self.id {
            return Err(SgfError::value(
                "new parent doesn't belong to the same game",
            ));
        }
        let p = self.check(new_parent)? as u32;
        let mut cur = p;
        while cur != NONE {
            if cur == n {
                return Err(SgfError::value("would create a loop"));
            }
            cur = self.arena.nodes[cur as usize].parent;
        }
        self.unlink(n);
        self.link_at(p, n, index);
        Ok(())
    }

    // ------------------------------------------------------------------ raw properties

    fn props_of(&self, n: usize) -> &[Prop] {
        &self.arena.props[self.arena.nodes[n].props.range()]
    }

    fn find_prop(&self, n: usize, ident: &[u8]) -> Option<&Prop> {
        self.props_of(n)
            .iter()
            .find(|p| grammar::ident_eq(self.arena.bytes(p.ident), ident))
    }

    fn values_of<'a>(&'a self, p: &Prop) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.arena.vals[p.vals.range()]
            .iter()
            .map(|s| self.arena.bytes(*s))
    }

    fn raw_first(&self, node: NodeId, ident: &[u8]) -> Option<&[u8]> {
        let p = self.find_prop(node.index as usize, ident)?;
        self.values_of(p).next()
    }

    pub fn has_property(&self, node: NodeId, ident: &str) -> bool {
        self.check(node)
            .is_ok_and(|n| self.find_prop(n, ident.as_bytes()).is_some())
    }

    /// The node's identifiers, in storage order (serialisation sorts them).
    pub fn properties(&self, node: NodeId) -> Result<Vec<&[u8]>, SgfError> {
        let n = self.check(node)?;
        Ok(self
            .props_of(n)
            .iter()
            .map(|p| self.arena.bytes(p.ident))
            .collect())
    }

    /// Identifier → raw values for every property of the node.
    pub fn raw_property_map(&self, node: NodeId) -> Result<Vec<RawProperty<'_>>, SgfError> {
        let n = self.check(node)?;
        Ok(self
            .props_of(n)
            .iter()
            .map(|p| (self.arena.bytes(p.ident), self.values_of(p).collect()))
            .collect())
    }

    /// The first raw value.
    pub fn get_raw(&self, node: NodeId, ident: &str) -> Result<&[u8], SgfError> {
        let n = self.check(node)?;
        self.find_prop(n, ident.as_bytes())
            .and_then(|p| self.values_of(p).next())
            .ok_or_else(|| SgfError::not_found(ident))
    }

    /// All raw values.
    pub fn get_raw_list(&self, node: NodeId, ident: &str) -> Result<Vec<&[u8]>, SgfError> {
        let n = self.check(node)?;
        self.find_prop(n, ident.as_bytes())
            .map(|p| self.values_of(p).collect())
            .ok_or_else(|| SgfError::not_found(ident))
    }

    /// Sets the raw values (already escaped) of a property.
    pub fn set_raw_list<V: AsRef<[u8]>>(
        &mut self,
        node: NodeId,
        ident: &str,
        values: &[V],
    ) -> Result<(), SgfError> {
        let n = self.check(node)?;
        if !is_valid_ident(ident) {
            return Err(SgfError::value("ill-formed property identifier"));
        }
        if values.is_empty() {
            return Err(SgfError::value("empty property list"));
        }
        if values
            .iter()
            .any(|v| !is_valid_value(v.as_ref(), self.multibyte))
        {
            return Err(SgfError::value("ill-formed raw property value"));
        }
        if ident == "SZ"
            && !(values.len() == 1 && values[0].as_ref() == self.size_text().as_bytes())
        {
            return Err(SgfError::value("changing size is not permitted"));
        }
        let values: Vec<&[u8]> = values.iter().map(AsRef::as_ref).collect();
        self.put(self.id(n as u32), ident.as_bytes(), &values);
        Ok(())
    }

    /// Sets raw values as a parser would store them, for building a tree from a
    /// description of a parsed one (the `sgf.serialise` RPC): the identifier may be any run
    /// of 1–64 ASCII letters (the parser keeps lower-case spellings), SZ may hold any
    /// values (the board size was fixed when the game was made), and values must still be
    /// well-formed raw values so the output re-parses.
    pub fn set_raw_list_as_parsed<V: AsRef<[u8]>>(
        &mut self,
        node: NodeId,
        ident: &str,
        values: &[V],
    ) -> Result<(), SgfError> {
        let n = self.check(node)?;
        if !(1..=64).contains(&ident.len()) || !ident.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(SgfError::value("ill-formed property identifier"));
        }
        if values.is_empty() {
            return Err(SgfError::value("empty property list"));
        }
        if values
            .iter()
            .any(|v| !is_valid_value(v.as_ref(), self.multibyte))
        {
            return Err(SgfError::value("ill-formed raw property value"));
        }
        let values: Vec<&[u8]> = values.iter().map(AsRef::as_ref).collect();
        self.put(self.id(n as u32), ident.as_bytes(), &values);
        Ok(())
    }

    /// Reads raw values character-aware (a multibyte trail byte is never `\` or `]`), as
    /// the `multibyte_aware` leniency does at load; for games built rather than loaded.
    pub fn set_multibyte_aware(&mut self, aware: bool) {
        self.multibyte = if aware {
            self.charset.multibyte()
        } else {
            Multibyte::Safe
        };
    }

    pub fn set_raw(
        &mut self,
        node: NodeId,
        ident: &str,
        value: impl AsRef<[u8]>,
    ) -> Result<(), SgfError> {
        self.set_raw_list(node, ident, &[value])
    }

    /// Stores values without checks (callers have validated them).
    fn put(&mut self, node: NodeId, ident: &[u8], values: &[&[u8]]) {
        let n = node.index as usize;
        let vals_start = self.arena.vals.len() as u32;
        for v in values {
            let start = self.arena.buf.len() as u32;
            self.arena.buf.extend_from_slice(v);
            self.arena.vals.push(Span {
                start,
                len: v.len() as u32,
            });
        }
        let vals = Span {
            start: vals_start,
            len: values.len() as u32,
        };
        let range = self.arena.nodes[n].props.range();
        if let Some(k) = self.arena.props[range.clone()]
            .iter()
            .position(|p| self.arena.bytes(p.ident) == ident)
        {
            self.arena.props[range.start + k].vals = vals;
            return;
        }
        let ident_start = self.arena.buf.len() as u32;
        self.arena.buf.extend_from_slice(ident);
        let prop = Prop {
            ident: Span {
                start: ident_start,
                len: ident.len() as u32,
            },
            vals,
        };
        if range.end != self.arena.props.len() {
            // Another node's properties follow: move this node's to the end first.
            let start = self.arena.props.len() as u32;
            self.arena.props.extend_from_within(range);
            self.arena.nodes[n].props.start = start;
        }
        self.arena.props.push(prop);
        self.arena.nodes[n].props.len += 1;
    }

    /// Removes a property; missing → not found. Unsetting a SZ other than 19 fails.
    pub fn unset(&mut self, node: NodeId, ident: &str) -> Result<(), SgfError> {
        let n = self.check(node)?;
        if ident == "SZ" && (self.size, self.height) != (19, 19) {
            return Err(SgfError::value("changing size is not permitted"));
        }
        let range = self.arena.nodes[n].props.range();
        let k = self.arena.props[range.clone()]
            .iter()
            .position(|p| self.arena.bytes(p.ident) == ident.as_bytes())
            .ok_or_else(|| SgfError::not_found(ident))?;
        self.arena.props[range.start + k..range.end].rotate_left(1);
        self.arena.nodes[n].props.len -= 1;
        Ok(())
    }

    // ------------------------------------------------------------------ typed properties

    /// Gives an identifier outside the `FF[4]` table a type (e.g. a private property a
    /// server writes). Identifiers of the table keep their type.
    pub fn register_property_type(&mut self, ident: &str, ty: PropType) {
        self.custom_types.retain(|(i, _)| i != ident.as_bytes());
        self.custom_types.push((ident.as_bytes().to_vec(), ty));
    }

    /// With `strict`, typed access to an identifier that is neither in the table nor
    /// registered fails with `unknown property` (sgfmill: read as Text).
    pub fn set_strict_properties(&mut self, strict: bool) {
        self.strict_properties = strict;
    }

    /// With `compress`, typed writes of point sets (AB, AW, AE, TB, TW, VW, MA, …) use
    /// rectangles where possible instead of one value per point.
    pub fn set_compress_point_lists(&mut self, compress: bool) {
        self.compress_point_lists = compress;
    }

    /// The type used for `ident`: the `FF[4]` table, then registered types, then Text (or an
    /// error in strict mode).
    pub fn prop_type(&self, ident: &[u8]) -> Result<PropType, SgfError> {
        let (ty, known) = PropType::of(ident);
        if known {
            return Ok(ty);
        }
        if let Some((_, ty)) = self.custom_types.iter().find(|(i, _)| i == ident) {
            return Ok(*ty);
        }
        if self.strict_properties {
            return Err(SgfError::value("unknown property"));
        }
        Ok(ty)
    }

    /// The typed value of a property (unknown identifiers are Text).
    pub fn get(&self, node: NodeId, ident: &str) -> Result<Value, SgfError> {
        let raw = self.get_raw_list(node, ident)?;
        self.ctx()
            .interpret(self.prop_type(ident.as_bytes())?, &raw)
    }

    /// Interprets raw values as the property `ident` would be (for callers holding raw
    /// values, e.g. a JSON view).
    pub fn interpret(&self, ident: &[u8], raw: &[&[u8]]) -> Result<Value, SgfError> {
        self.ctx().interpret(self.prop_type(ident)?, raw)
    }

    /// Sets a property from a typed value.
    pub fn set(&mut self, node: NodeId, ident: &str, value: &Value) -> Result<(), SgfError> {
        self.check(node)?;
        if !is_valid_ident(ident) {
            return Err(SgfError::value("ill-formed property identifier"));
        }
        let raw = self
            .ctx()
            .serialise(self.prop_type(ident.as_bytes())?, value)?;
        self.set_raw_list(node, ident, &raw)
    }

    /// The node's move: `None` without B/W; B wins when both are present; a pass is
    /// `Some((colour, None))`. Only the first raw value is read (sgfmill's `get_move`).
    pub fn get_move(&self, node: NodeId) -> Result<Option<(Colour, Option<Point>)>, SgfError> {
        let n = self.check(node)?;
        let (colour, prop) = match self.find_prop(n, b"B") {
            Some(p) => (Colour::Black, p),
            None => match self.find_prop(n, b"W") {
                Some(p) => (Colour::White, p),
                None => return Ok(None),
            },
        };
        // sgfmill reads the first raw value as a point, without the typed "multiple
        // values" check (and without collecting the values: this is the hot path of
        // main-line replay).
        let raw = self.arena.bytes(self.arena.vals[prop.vals.start as usize]);
        Ok(Some((colour, self.ctx().go_point(raw)?)))
    }

    /// Removes B and W, then sets the colour's move (`None` = pass).
    pub fn set_move(
        &mut self,
        node: NodeId,
        colour: Colour,
        point: Option<Point>,
    ) -> Result<(), SgfError> {
        self.check(node)?;
        let raw = self.ctx().serialise(PropType::Move, &Value::Move(point))?;
        for ident in ["B", "W"] {
            if self.has_property(node, ident) {
                self.unset(node, ident)?;
            }
        }
        self.set_raw_list(node, colour.ident(), &raw)
    }

    /// The raw move of sgfmill's `get_raw_move`: colour and first raw value, no checks.
    pub fn get_raw_move(&self, node: NodeId) -> Result<Option<(Colour, &[u8])>, SgfError> {
        let n = self.check(node)?;
        for (colour, ident) in [(Colour::Black, b"B"), (Colour::White, b"W")] {
            if let Some(p) = self.find_prop(n, ident) {
                return Ok(self.values_of(p).next().map(|v| (colour, v)));
            }
        }
        Ok(None)
    }

    fn points_or_empty(&self, node: NodeId, ident: &str) -> Result<BTreeSet<Point>, SgfError> {
        match self.get(node, ident) {
            Ok(Value::Points(p)) => Ok(p),
            Ok(_) => Ok(BTreeSet::new()),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(BTreeSet::new()),
            Err(e) => Err(e),
        }
    }

    /// AB, AW, AE as sets (empty when absent).
    pub fn get_setup_stones(&self, node: NodeId) -> Result<SetupStones, SgfError> {
        Ok((
            self.points_or_empty(node, "AB")?,
            self.points_or_empty(node, "AW")?,
            self.points_or_empty(node, "AE")?,
        ))
    }

    pub fn has_setup_stones(&self, node: NodeId) -> bool {
        ["AB", "AW", "AE"]
            .iter()
            .any(|i| self.has_property(node, i))
    }

    /// Removes AB, AW and AE, then writes the non-empty sets.
    pub fn set_setup_stones(
        &mut self,
        node: NodeId,
        black: &BTreeSet<Point>,
        white: &BTreeSet<Point>,
        empty: &BTreeSet<Point>,
    ) -> Result<(), SgfError> {
        self.check(node)?;
        for ident in ["AB", "AW", "AE"] {
            if self.has_property(node, ident) {
                self.unset(node, ident)?;
            }
        }
        for (ident, set) in [("AB", black), ("AW", white), ("AE", empty)] {
            if !set.is_empty() {
                self.set(node, ident, &Value::Points(set.clone()))?;
            }
        }
        Ok(())
    }

    /// Appends to C with a blank line in between, or creates it.
    pub fn add_comment_text(&mut self, node: NodeId, text: &str) -> Result<(), SgfError> {
        let new = if self.has_property(node, "C") {
            match self.get(node, "C")? {
                Value::Text(old) => format!("{old}\n\n{text}"),
                _ => text.to_owned(),
            }
        } else {
            text.to_owned()
        };
        self.set(node, "C", &Value::Text(new))
    }

    /// The nearest of `node` and its ancestors that has the property.
    pub fn find(&self, node: NodeId, ident: &str) -> Result<Option<NodeId>, SgfError> {
        let mut cur = self.check(node)? as u32;
        while cur != NONE {
            if self.find_prop(cur as usize, ident.as_bytes()).is_some() {
                return Ok(Some(self.id(cur)));
            }
            cur = self.arena.nodes[cur as usize].parent;
        }
        Ok(None)
    }

    /// The typed value of the nearest such property; missing → not found.
    pub fn find_property(&self, node: NodeId, ident: &str) -> Result<Value, SgfError> {
        match self.find(node, ident)? {
            Some(n) => self.get(n, ident),
            None => Err(SgfError::not_found(ident)),
        }
    }

    // ------------------------------------------------------------------ game helpers

    /// KM, 0.0 when absent.
    pub fn komi(&self) -> Result<f64, SgfError> {
        match self.get(self.root(), "KM") {
            Ok(Value::Real(f)) => Ok(f),
            Ok(_) => Err(SgfError::value("bad KM")),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(0.0),
            Err(e) => Err(e),
        }
    }

    /// HA: absent or 0 → `None`; 1 → error.
    pub fn handicap(&self) -> Result<Option<i64>, SgfError> {
        match self.get(self.root(), "HA") {
            Ok(Value::Number(0)) => Ok(None),
            Ok(Value::Number(1)) => Err(SgfError::value("")),
            Ok(Value::Number(n)) => Ok(Some(n)),
            Ok(_) => Err(SgfError::value("bad HA")),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// PB / PW.
    pub fn player_name(&self, colour: Colour) -> Result<Option<String>, SgfError> {
        let ident = match colour {
            Colour::Black => "PB",
            Colour::White => "PW",
        };
        match self.get(self.root(), ident) {
            Ok(Value::Text(t)) => Ok(Some(t)),
            Ok(_) => Ok(None),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The first character of RE, if it is b or w (any case).
    pub fn winner(&self) -> Result<Option<Colour>, SgfError> {
        match self.get(self.root(), "RE") {
            Ok(Value::Text(t)) => Ok(
                match t
                    .chars()
                    .next()
                    .map(|c| c.to_lowercase().collect::<String>())
                {
                    Some(s) if s == "b" => Some(Colour::Black),
                    Some(s) if s == "w" => Some(Colour::White),
                    _ => None,
                },
            ),
            Ok(_) => Ok(None),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// DT = the given date as `YYYY-MM-DD` (the domain has no clock: callers pass today).
    pub fn set_date(&mut self, year: u16, month: u8, day: u8) -> Result<(), SgfError> {
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return Err(SgfError::value("invalid date"));
        }
        let root = self.root();
        self.set(
            root,
            "DT",
            &Value::Text(format!("{year:04}-{month:02}-{day:02}")),
        )
    }

    // ------------------------------------------------------------------ serialising

    /// The serialisation with the raw values as stored, in the charset they were read with
    /// (no transcoding to the root `CA`): for callers that must write a game whose `CA`
    /// does not read as a charset name, which sgfmill's `serialise` refuses.
    pub fn serialise_raw(&self, wrap: Option<usize>) -> Vec<u8> {
        let charset_first = self.ca_must_lead(self.multibyte, |v| Some(v.to_vec()));
        super::serialise::serialise_arena(&self.arena, wrap, charset_first)
    }

    /// sgfmill's `serialise(wrap)`: byte-exact, in the charset of the root `CA` (with one
    /// deviation, see [`Game::ca_must_lead`]).
    pub fn serialise(&self, wrap: Option<usize>) -> Result<Vec<u8>, SgfError> {
        let target = self.get_charset().map_err(|_| {
            let raw = self.get_raw(self.root(), "CA").unwrap_or_default();
            SgfError::value(format!("unsupported charset: {}", bytes_repr(raw)))
        })?;
        if target == self.charset.name() {
            return Ok(self.serialise_raw(wrap));
        }
        let target = Charset::lookup(&target)?.with_undefined_bytes(self.charset_lenient());
        // Character-aware games only: the written text is what a reader will scan.
        let mb = match self.multibyte {
            Multibyte::Safe => Multibyte::Safe,
            _ => target.multibyte(),
        };
        let charset_first = self.ca_must_lead(mb, |v| {
            let text = self.charset.decode(v).ok()?;
            target.encode(&text).ok()
        });
        let out = super::serialise::serialise_arena(&self.arena, wrap, charset_first);
        let text = self.charset.decode(&out)?;
        target.encode(&text)
    }
}
