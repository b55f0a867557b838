//! The serialiser, byte-identical to sgfmill's `serialise_game_tree` + `_join_and_wrap`:
//! single children continue a sequence, `FF` first then identifiers in byte order, one piece
//! per property, and a line break inserted before a piece that would pass the width (newlines
//! inside a piece do not reset the count).
//!
//! One deviation, asked for by the caller when sgfmill's order would be misread
//! (`Game::ca_must_lead`): `charset_first` puts the root's `CA` right after `FF`.
//!
//! Pieces are written straight into the output with a running line length instead of being
//! collected and joined, which gives the same bytes without a list of pieces.

use super::grammar::{Arena, NONE};

struct Writer {
    out: Vec<u8>,
    line_len: usize,
    wrap: Option<usize>,
}

impl Writer {
    #[inline]
    fn piece(&mut self, piece_len: usize) {
        if let Some(width) = self.wrap
            && self.line_len > 0
            && self.line_len + piece_len > width
        {
            self.out.push(b'\n');
            self.line_len = 0;
        }
        self.line_len += piece_len;
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.piece(1);
        self.out.push(b);
    }
}

enum Item {
    Tree(u32),
    Close,
}

/// Serialises the tree rooted at node 0 of `arena`; `charset_first`: the root's `CA` right
/// after `FF` instead of in byte order.
pub(crate) fn serialise_arena(arena: &Arena, wrap: Option<usize>, charset_first: bool) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::with_capacity(arena.buf.len() + arena.buf.len() / 64 + 16),
        line_len: 0,
        wrap,
    };
    let mut order: Vec<usize> = Vec::new();
    let mut stack = vec![Item::Tree(0)];
    let mut kids: Vec<u32> = Vec::new();
    while let Some(item) = stack.pop() {
        let mut node = match item {
            Item::Close => {
                w.byte(b')');
                continue;
            }
            Item::Tree(n) => n,
        };
        w.byte(b'(');
        loop {
            w.byte(b';');
            let second: &[u8] = if charset_first && node == 0 {
                b"CA"
            } else {
                b"FF"
            };
            write_props(arena, node, second, &mut w, &mut order);
            let nd = &arena.nodes[node as usize];
            if nd.first_child != NONE && nd.first_child == nd.last_child {
                node = nd.first_child;
            } else {
                break;
            }
        }
        stack.push(Item::Close);
        kids.clear();
        let mut c = arena.nodes[node as usize].first_child;
        while c != NONE {
            kids.push(c);
            c = arena.nodes[c as usize].next_sibling;
        }
        stack.extend(kids.iter().rev().map(|&k| Item::Tree(k)));
    }
    w.byte(b'\n');
    w.out
}

/// Writes `node`'s properties: `FF` first, then `second` (`FF` again when there is none to
/// put early), then the rest in byte order.
fn write_props(arena: &Arena, node: u32, second: &[u8], w: &mut Writer, order: &mut Vec<usize>) {
    let props = &arena.props[arena.nodes[node as usize].props.range()];
    order.clear();
    order.extend(0..props.len());
    if props.len() > 1 {
        // FF first (sgfmill works around an old reader), then byte order.
        order.sort_unstable_by(|&a, &b| {
            let ia = arena.bytes(props[a].ident);
            let ib = arena.bytes(props[b].ident);
            (ia != b"FF", ia != second, ia).cmp(&(ib != b"FF", ib != second, ib))
        });
    }
    for &k in order.iter() {
        let p = &props[k];
        let ident = arena.bytes(p.ident);
        let vals = &arena.vals[p.vals.range()];
        let len = ident.len() + vals.iter().map(|v| v.len as usize + 2).sum::<usize>();
        w.piece(len);
        w.out.extend_from_slice(ident);
        for v in vals {
            w.out.push(b'[');
            w.out.extend_from_slice(arena.bytes(*v));
            w.out.push(b']');
        }
    }
}
