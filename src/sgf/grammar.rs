//! The byte-level SGF grammar: finding a game in the input, tokenising and building the
//! node arena, exactly as sgfmill's `sgf_grammar` does (same tolerance, same error messages,
//! raw values kept byte for byte).
//!
//! Tokenising and parsing run in one pass with one token of look-ahead instead of sgfmill's
//! token list: the state machine sees the tokens in the same order, so it raises the same
//! error at the same place, but nothing is allocated per token. Raw values are recorded as
//! spans into one buffer per game (a copy of the game's bytes), which is what makes parsing
//! fast: a node costs three vector pushes.

use super::charset::Multibyte;
use super::error::{ErrorKind, SgfError};

/// A byte range in one of the game's flat vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    #[inline]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// One property of a node: its identifier (a span of `buf`) and its values (a span of
/// `vals`, each of which is a span of `buf`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prop {
    pub ident: Span,
    pub vals: Span,
}

pub(crate) const NONE: u32 = u32::MAX;

/// One node of the arena. Children are a linked list so that appending is O(1) while parsing;
/// the properties are a span of the game's `props`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeData {
    pub parent: u32,
    pub first_child: u32,
    pub last_child: u32,
    pub next_sibling: u32,
    pub props: Span,
    pub live: bool,
}

impl NodeData {
    pub fn new(parent: u32, props_start: u32) -> Self {
        NodeData {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            props: Span {
                start: props_start,
                len: 0,
            },
            live: true,
        }
    }
}

/// The flat storage of one game tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Arena {
    pub buf: Vec<u8>,
    pub vals: Vec<Span>,
    pub props: Vec<Prop>,
    pub nodes: Vec<NodeData>,
}

impl Arena {
    #[inline]
    pub fn bytes(&self, span: Span) -> &[u8] {
        &self.buf[span.range()]
    }

    /// Adds `child` as the last child of `parent`.
    pub fn link_last(&mut self, parent: u32, child: u32) {
        let p = &mut self.nodes[parent as usize];
        let last = p.last_child;
        p.last_child = child;
        if last == NONE {
            p.first_child = child;
        } else {
            self.nodes[last as usize].next_sibling = child;
        }
        let c = &mut self.nodes[child as usize];
        c.parent = parent;
        c.next_sibling = NONE;
    }
}

/// Leniencies beyond sgfmill for the grammar. All off by default (sgfmill behaviour).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GrammarOptions {
    /// Accept a game tree whose first node has no `;` (Nihon Ki-in files).
    pub root_without_semicolon: bool,
    /// Skip the trail byte after a lead byte inside values, so that a `\` or `]` byte inside
    /// a Shift_JIS / Big5 / GBK / GB18030 character does not end or escape anything.
    pub multibyte: Multibyte,
    /// sgfmill deletes lower-case letters from identifiers, so `foo[x]` becomes the empty
    /// identifier (which it cannot read back). Off (the default), an identifier that would
    /// become empty keeps its original spelling; on, the empty identifier is produced.
    pub sgfmill_empty_ident: bool,
    /// Keep identifiers as written (`AddBlack` stays `AddBlack`) instead of deleting
    /// lower-case letters.
    pub keep_lowercase_idents: bool,
    /// Most nodes a game may have: one more is an [`ErrorKind::Limit`] error at once.
    pub max_nodes: Option<usize>,
}

/// Identifier equality without a `memcmp` call: identifiers are one or two letters almost
/// always, and this comparison is on the hot path of parsing and of reading moves.
#[inline(always)]
pub(crate) fn ident_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Python's `\s` on bytes: space, TAB, LF, VT, FF, CR.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

const EXTRA: u32 = 1 << 31;

#[derive(Debug, Clone, Copy)]
enum Token {
    Value(u32, u32),
    Ident(u32, u32),
    Open,
    Close,
    Semi,
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    mb: Multibyte,
    /// Set when a token could not be read: the token stream has ended.
    done: bool,
}

impl Lexer<'_> {
    /// The next token, or `None` when the stream has ended (end of input or a byte that
    /// starts no token).
    #[inline(always)]
    fn next(&mut self) -> Option<Token> {
        if self.done {
            return None;
        }
        let s = self.s;
        let n = s.len();
        let mut i = self.i;
        while i < n && is_ws(s[i]) {
            i += 1;
        }
        if i >= n {
            self.done = true;
            return None;
        }
        let b = s[i];
        let tok = match b {
            b'[' => {
                let start = i + 1;
                let end = if self.mb == Multibyte::Safe {
                    find_value_end(s, start)
                } else {
                    find_value_end_multibyte(s, start, self.mb)
                };
                let Some(j) = end else {
                    self.done = true;
                    return None;
                };
                i = j + 1;
                Token::Value(start as u32, j as u32)
            }
            b'(' => {
                i += 1;
                Token::Open
            }
            b')' => {
                i += 1;
                Token::Close
            }
            b';' => {
                i += 1;
                Token::Semi
            }
            _ if b.is_ascii_alphabetic() => {
                let start = i;
                let limit = n.min(start + 64);
                i += 1;
                while i < limit && s[i].is_ascii_alphabetic() {
                    i += 1;
                }
                Token::Ident(start as u32, i as u32)
            }
            _ => {
                self.done = true;
                return None;
            }
        };
        self.i = i;
        Some(tok)
    }
}

/// The index of the `]` that ends a value starting at `start`, or `None` if the value is
/// unterminated. Short values (moves, the bulk of any record) are checked directly; longer
/// ones (comments) are scanned with `memchr2`, which skips plain text many bytes at a time.
#[inline(always)]
fn find_value_end(s: &[u8], start: usize) -> Option<usize> {
    if let Some(&[a, b, c]) = s.get(start..start + 3)
        && c == b']'
        && a != b']'
        && a != b'\\'
        && b != b']'
        && b != b'\\'
    {
        return Some(start + 2);
    }
    let mut j = start;
    loop {
        j += memchr::memchr2(b']', b'\\', s.get(j..)?)?;
        if s[j] == b']' {
            return Some(j);
        }
        // A backslash escapes the next byte, whatever it is.
        j += 2;
    }
}

/// `find_value_end` for a charset whose trail bytes can be `\` or `]`: a lead byte takes
/// the next byte with it.
fn find_value_end_multibyte(s: &[u8], start: usize, mb: Multibyte) -> Option<usize> {
    let mut j = start;
    loop {
        let c = *s.get(j)?;
        if c == b']' {
            return Some(j);
        }
        j += if c == b'\\' || mb.is_lead(c) { 2 } else { 1 };
    }
}

/// Finds sgfmill's game start, `(` + optional whitespace + `;`, at or after `from`.
fn find_start(s: &[u8], from: usize, opts: &GrammarOptions) -> Option<usize> {
    let mut pos = from;
    while pos < s.len() {
        let open = pos + memchr::memchr(b'(', &s[pos..])?;
        let mut j = open + 1;
        while j < s.len() && is_ws(s[j]) {
            j += 1;
        }
        if j < s.len()
            && (s[j] == b';' || (opts.root_without_semicolon && s[j].is_ascii_uppercase()))
        {
            return Some(open);
        }
        pos = open + 1;
    }
    None
}

/// One parsed game: its arena (root = node 0) and where parsing stopped.
pub(crate) struct Parsed {
    pub arena: Arena,
    pub end: usize,
}

struct TreeCtx {
    /// The node this tree's first node hangs from (`NONE` for the game's root tree).
    attach_to: u32,
    last_node: u32,
    seq_len: u32,
}

fn err(msg: &str) -> SgfError {
    SgfError::value(msg)
}

/// Parses the first game at or after `from`. `Ok(None)`: no game start found.
///
/// `scratch` is working storage reused across the games of a collection: the game is built
/// there (where the memory is already warm) and copied out at exactly its size, which costs
/// less than growing fresh vectors per game.
pub(crate) fn parse_game(
    s: &[u8],
    from: usize,
    opts: &GrammarOptions,
    scratch: &mut Arena,
) -> Result<Option<Parsed>, SgfError> {
    let Some(base) = find_start(s, from, opts) else {
        return Ok(None);
    };
    // Spans are u32 with one bit reserved; a game over 2 GiB is refused, not mis-parsed.
    if s.len() - base >= (EXTRA as usize) {
        return Err(err("SGF data too large"));
    }
    let game = &s[base..];
    let mut lx = Lexer {
        s: game,
        i: 0,
        mb: opts.multibyte,
        done: false,
    };
    scratch.vals.clear();
    scratch.props.clear();
    scratch.nodes.clear();
    let arena = scratch;
    // Identifiers rewritten because of lower-case letters live after the game's bytes.
    let mut extra: Vec<u8> = Vec::new();
    let mut any_extra = false;
    let mut stack: Vec<Option<TreeCtx>> = Vec::with_capacity(8);
    let mut tree: Option<TreeCtx> = None;
    let mut seq_open = false;
    let mut current: u32 = NONE;
    let mut lookahead: Option<Token> = None;
    let unexpected_end = || err("unexpected end of SGF data");

    loop {
        let tok = match lookahead.take() {
            Some(t) => t,
            None => lx.next().ok_or_else(unexpected_end)?,
        };
        match tok {
            Token::Value(..) => return Err(err("unexpected value")),
            Token::Semi => {
                if !seq_open {
                    return Err(err("unexpected node"));
                }
                current = new_node(arena, tree.as_mut(), opts.max_nodes)?;
                // A request's time budget (crate::budget), looked at every few thousand nodes.
                if current.is_multiple_of(4096) && crate::budget::expired() {
                    return Err(err("stopped: the request ran out of time"));
                }
            }
            Token::Open | Token::Close => {
                if seq_open {
                    if tree.as_ref().is_some_and(|t| t.seq_len == 0) {
                        return Err(err("empty sequence"));
                    }
                    seq_open = false;
                }
                if let Token::Open = tok {
                    let attach_to = tree.as_ref().map_or(NONE, |t| t.last_node);
                    stack.push(tree.take());
                    tree = Some(TreeCtx {
                        attach_to,
                        last_node: NONE,
                        seq_len: 0,
                    });
                    seq_open = true;
                } else {
                    // `stack` is never empty here: each `)` matches an earlier `(` or the
                    // lexer would not have produced it before the game ended.
                    match stack.pop() {
                        Some(Some(outer)) => tree = Some(outer),
                        _ => break,
                    }
                }
                current = NONE;
            }
            Token::Ident(a, b) => {
                let vals_start = arena.vals.len() as u32;
                loop {
                    match lx.next().ok_or_else(unexpected_end)? {
                        Token::Value(va, vb) => arena.vals.push(Span {
                            start: va,
                            len: vb - va,
                        }),
                        other => {
                            lookahead = Some(other);
                            break;
                        }
                    }
                }
                let nvals = arena.vals.len() as u32 - vals_start;
                if nvals == 0 {
                    return Err(err("property with no values"));
                }
                if current == NONE {
                    let lenient_root = opts.root_without_semicolon
                        && arena.nodes.is_empty()
                        && seq_open
                        && tree.as_ref().is_some_and(|t| t.seq_len == 0);
                    if !lenient_root {
                        return Err(err("property value outside a node"));
                    }
                    current = new_node(arena, tree.as_mut(), opts.max_nodes)?;
                }
                let ident = make_ident(game, a, b, &mut extra, opts);
                any_extra |= ident.start & EXTRA != 0;
                add_values(arena, game, &extra, current, ident, vals_start, nvals);
            }
        }
    }
    let end = lx.i;
    let game_len = end as u32;
    let mut buf = Vec::with_capacity(end + extra.len());
    buf.extend_from_slice(&game[..end]);
    if any_extra {
        buf.extend_from_slice(&extra);
        for p in &mut arena.props {
            if p.ident.start & EXTRA != 0 {
                p.ident.start = game_len + (p.ident.start & !EXTRA);
            }
        }
    }
    Ok(Some(Parsed {
        arena: Arena {
            buf,
            vals: arena.vals.to_vec(),
            props: arena.props.to_vec(),
            nodes: arena.nodes.to_vec(),
        },
        end: base + end,
    }))
}

#[inline]
fn new_node(
    arena: &mut Arena,
    tree: Option<&mut TreeCtx>,
    max_nodes: Option<usize>,
) -> Result<u32, SgfError> {
    if let Some(max) = max_nodes
        && arena.nodes.len() >= max
    {
        return Err(SgfError::new(
            ErrorKind::Limit,
            format!("more than {max} nodes"),
        ));
    }
    let id = arena.nodes.len() as u32;
    arena
        .nodes
        .push(NodeData::new(NONE, arena.props.len() as u32));
    if let Some(t) = tree {
        let parent = if t.seq_len == 0 {
            t.attach_to
        } else {
            t.last_node
        };
        if parent != NONE {
            arena.link_last(parent, id);
        }
        t.last_node = id;
        t.seq_len += 1;
    }
    Ok(id)
}

/// The identifier with lower-case letters deleted (sgfmill), as a span; rewritten
/// identifiers go to `extra` and are flagged with `EXTRA`.
#[inline]
fn make_ident(game: &[u8], a: u32, b: u32, extra: &mut Vec<u8>, opts: &GrammarOptions) -> Span {
    let raw = &game[a as usize..b as usize];
    if opts.keep_lowercase_idents || raw.iter().all(u8::is_ascii_uppercase) {
        return Span {
            start: a,
            len: b - a,
        };
    }
    let upper: Vec<u8> = raw.iter().copied().filter(u8::is_ascii_uppercase).collect();
    if upper.is_empty() && !opts.sgfmill_empty_ident {
        return Span {
            start: a,
            len: b - a,
        };
    }
    let start = extra.len() as u32;
    extra.extend_from_slice(&upper);
    Span {
        start: EXTRA | start,
        len: upper.len() as u32,
    }
}

#[inline]
fn ident_bytes<'a>(game: &'a [u8], extra: &'a [u8], span: Span) -> &'a [u8] {
    if span.start & EXTRA != 0 {
        let s = (span.start & !EXTRA) as usize;
        &extra[s..s + span.len as usize]
    } else {
        &game[span.range()]
    }
}

/// Adds the values just pushed (`vals[vals_start..]`) to `node` under `ident`, merging with
/// an existing property of the same identifier as sgfmill does.
fn add_values(
    arena: &mut Arena,
    game: &[u8],
    extra: &[u8],
    node: u32,
    ident: Span,
    vals_start: u32,
    nvals: u32,
) {
    let nd = arena.nodes[node as usize];
    let wanted = ident_bytes(game, extra, ident);
    let range = nd.props.range();
    let found = arena.props[range.clone()]
        .iter()
        .position(|p| ident_eq(ident_bytes(game, extra, p.ident), wanted));
    match found {
        None => {
            arena.props.push(Prop {
                ident,
                vals: Span {
                    start: vals_start,
                    len: nvals,
                },
            });
            arena.nodes[node as usize].props.len += 1;
        }
        Some(k) => {
            let idx = range.start + k;
            let old = arena.props[idx].vals;
            if old.start + old.len == vals_start {
                // The property's values end where the new ones begin: just extend.
                arena.props[idx].vals.len += nvals;
            } else {
                // Rare (`XX[1]YY[2]XX[3]`): move the old values after the new ones' copy.
                let mut merged: Vec<Span> = arena.vals[old.range()].to_vec();
                merged.extend_from_slice(&arena.vals[vals_start as usize..]);
                arena.vals.truncate(vals_start as usize);
                let start = arena.vals.len() as u32;
                arena.vals.extend_from_slice(&merged);
                arena.props[idx].vals = Span {
                    start,
                    len: merged.len() as u32,
                };
            }
        }
    }
}
