//! Territory analysis for territory counting (Japanese, Korean): which empty points and
//! dead stones count as whose territory once seki and false eyes are taken into account.
//!
//! The analysis is the one published by goscorer (lightvector, MIT), rebuilt here from its
//! description; its results agree point for point with goscorer's on its own test
//! positions and on ours (tests/it/score/goscorer.rs). In outline:
//!
//! 1. **Connection blocks.** A few local shapes (a point between two stones of one colour,
//!    an edge hane, …) mark an empty point that the opponent cannot usefully walk through.
//! 2. **Reach.** For each colour, the points a living stone of that colour reaches without
//!    crossing a living stone of the other colour, once freely ("strict") and once stopping
//!    at the other colour's connection blocks.
//! 3. **Regions.** Connected areas that reach one colour only (with blocks), joined through
//!    points that reach both, are that colour's regions; points in no region are dame.
//! 4. **Macro-chains.** Living chains of a colour joined through region-less, unblocked space.
//! 5. **Eyes.** The empty or dead points of a region, in connected pieces.
//! 6. **False eyes.** An eye point next to a macro-chain is false when, going round through
//!    other macro-chains and eyes, that macro-chain cannot reach the point's other sides
//!    (nor, in the second pass, an eye already worth something).
//! 7. **Eye values** (0, 1 or 2): heuristics on the real (not false) points of each eye —
//!    points that one move would seal, bottlenecks that split the eye into sealed pieces,
//!    size, inner degree, and the shape of the dead stones inside.
//! 8. **Scoring.** A region whose eyes are worth at most one eye in total is in seki:
//!    nothing in it is territory. Otherwise its empty points and dead stones are territory,
//!    except false eyes that will have to be filled (and the points next to a dead stone
//!    thrown into such a false eye), points the opponent can still reach, and points whose
//!    chain straddles two regions.
//!
//! Everything is index arithmetic on a `Position`: flat vectors per point, generation
//! stamps instead of cleared sets, explicit stacks instead of recursion (boards go up to
//! 52×52). The work is linear in the board except inside small eyes, where the bottleneck
//! tests cost the square of the eye's size; big eyes are settled by cheap tests first.

use super::bits::{Areas, Bits, Grid, Planes, Runs, WORDS};
use super::board::Stone;
use super::position::Position;

/// "No id": not in a region, chain, macro-chain or eye.
const NONE: u32 = u32::MAX;

/// What the analysis says about one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointStatus {
    /// The colour this point scores one point of territory for (`Empty`: nobody). Points
    /// under dead stones can be territory; the dead stone itself is a prisoner besides.
    pub territory: Stone,
    /// The colour of the region the point belongs to when that region is not independently
    /// alive with two eyes (seki): its stones and eyes score nothing.
    pub seki: Stone,
    /// An eye point that does not help the group live.
    pub false_eye: bool,
    /// A false eye (or a point next to a dead stone thrown into one) that will have to be
    /// filled, so it is not counted even though the group lives.
    pub unscorable_false_eye: bool,
    /// In no region: reached by both colours (or by neither).
    pub dame: bool,
    /// How many eyes (0 to 2) the eye space holding this point is taken to be worth.
    pub eye_value: u8,
}

impl PointStatus {
    const BLANK: PointStatus = PointStatus {
        territory: Stone::Empty,
        seki: Stone::Empty,
        false_eye: false,
        unscorable_false_eye: false,
        dame: false,
        eye_value: 0,
    };
}

/// Union-find root, halving paths.
fn find(parts: &mut [usize], mut i: usize) -> usize {
    while parts[i] != i {
        parts[i] = parts[parts[i]];
        i = parts[i];
    }
    i
}

fn other(c: Stone) -> Stone {
    match c {
        Stone::Black => Stone::White,
        Stone::White => Stone::Black,
        Stone::Empty => Stone::Empty,
    }
}

/// A set of point (or id) numbers cleared in O(1) by bumping a generation.
struct Marks {
    stamp: Vec<u32>,
    epoch: u32,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            stamp: vec![0; n],
            epoch: 1,
        }
    }

    /// `old` for `n` points, cleared, when it has that many (a new one otherwise).
    fn reused(old: Option<Marks>, n: usize) -> Marks {
        match old {
            Some(mut m) if m.stamp.len() == n => {
                m.clear();
                m
            }
            _ => Marks::new(n),
        }
    }

    fn clear(&mut self) {
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    #[inline]
    fn has(&self, i: usize) -> bool {
        self.stamp[i] == self.epoch
    }

    /// Adds `i`; true when it was not there yet.
    #[inline]
    fn insert(&mut self, i: usize) -> bool {
        let new = self.stamp[i] != self.epoch;
        self.stamp[i] = self.epoch;
        new
    }
}

/// Local shapes, written for the colour `p` whose stones make the block at `@`: `p` a living
/// stone of that colour, `e` empty or such a stone or a dead opponent stone, `@` the empty
/// point that becomes a block, `?` anything. A last row of `x` is the board's edge.
const SHAPES: [&[&[u8]]; 6] = [
    &[b"pp", b"@e", b"pe"],
    &[b"ep?", b"e@e", b"ep?"],
    &[b"pee", b"e@p", b"pee"],
    &[b"?e?", b"p@p", b"xxx"],
    &[b"pp", b"@e", b"xx"],
    &[b"ep?", b"e@e", b"xxx"],
];

/// The eight symmetries as (dy per shape row, dx per shape row, dy per shape column, dx per
/// shape column).
const SYMMETRIES: [(i32, i32, i32, i32); 8] = [
    (1, 0, 0, 1),
    (-1, 0, 0, 1),
    (1, 0, 0, -1),
    (-1, 0, 0, -1),
    (0, 1, 1, 0),
    (0, -1, 1, 0),
    (0, 1, -1, 0),
    (0, -1, -1, 0),
];

/// Scratch space of the false-eye search.
struct Search {
    macro_seen: Marks,
    eye_seen: Marks,
    stack: Vec<u32>,
    flood: Vec<usize>,
}

/// The distinct sides (at most four) of a point reached by the false-eye search.
#[derive(Default)]
struct Sides {
    points: [usize; 4],
    len: usize,
}

impl Sides {
    fn add(&mut self, q: usize) {
        if !self.points[..self.len].contains(&q) {
            self.points[self.len] = q;
            self.len += 1;
        }
    }
}

/// Where an edge shape's anchor (its cell (0, 0)) must be: coordinate `k` on one axis,
/// counted from the far side when `from_far_side`.
#[derive(Clone, Copy)]
struct Pin {
    on_y: bool,
    from_far_side: bool,
    k: i32,
}

/// One shape in one symmetry, as offsets from its `@` point.
struct Template {
    /// (dy, dx, kind) of each `p` and `e` cell, `p` cells first.
    cells: Vec<(i32, i32, u8)>,
    /// Offsets of the shape's cell (0, 0) and of its far corner.
    anchor: (i32, i32),
    corner: (i32, i32),
    pinned: Option<Pin>,
    /// The sides of `@` (see [`side_bit`]) that hold a `p` cell: a point whose living
    /// neighbours of the colour miss one of them cannot fit the template.
    needs: u8,
    /// The template for bitboards: the anchor and the far corner on the board, then the
    /// cells, as slots of the table [`Analysis::mark_blocks_bits`] builds. Every offset is
    /// in -1..=1 on both axes, `(dy, dx)` is `3 (dy + 1) + dx + 1`, and the table holds
    /// the colour's living stones at slots 0 to 8, what an `e` cell admits at 9 to 17 and
    /// the board at 18 to 26, each moved by its slot's offset.
    slots: Vec<u8>,
}

/// The table slot of offset `(dy, dx)` (see [`Template::slots`]).
fn slot((dy, dx): (i32, i32)) -> u8 {
    assert!(
        dy.abs() <= 1 && dx.abs() <= 1,
        "a shape reaches past the 3×3 square"
    );
    (3 * (dy + 1) + dx + 1) as u8
}

/// One bit per side of a point: up, down, left, right.
fn side_bit(dy: i32, dx: i32) -> u8 {
    match (dy, dx) {
        (-1, 0) => 1,
        (1, 0) => 2,
        (0, -1) => 4,
        (0, 1) => 8,
        _ => 0,
    }
}

/// For each set of sides (4 bits), the templates whose `needs` it covers.
fn templates_for(sides: u8) -> &'static [u8] {
    static BY_SIDES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    &BY_SIDES.get_or_init(|| {
        (0..16u8)
            .map(|m| {
                (0..templates().len() as u8)
                    .filter(|&t| templates()[t as usize].needs & !m == 0)
                    .collect()
            })
            .collect()
    })[usize::from(sides & 15)]
}

/// The 48 templates (6 shapes × 8 symmetries), built once.
fn templates() -> &'static [Template] {
    static TEMPLATES: std::sync::OnceLock<Vec<Template>> = std::sync::OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let mut out = Vec::new();
        for &(rdy, rdx, cdy, cdx) in &SYMMETRIES {
            for shape in SHAPES {
                let full = shape.len() as i32;
                let edge = shape[shape.len() - 1][0] == b'x';
                let rows = full - i32::from(edge);
                let cols = shape[0].len() as i32;
                let at = |r: i32, c: i32| (rdy * r + cdy * c, rdx * r + cdx * c);
                let mut at_sign = (0, 0);
                let mut cells = Vec::new();
                for r in 0..rows {
                    for c in 0..cols {
                        match shape[r as usize][c as usize] {
                            b'@' => at_sign = at(r, c),
                            k @ (b'p' | b'e') => cells.push((at(r, c), k)),
                            _ => {}
                        }
                    }
                }
                cells.sort_by_key(|&(_, k)| k != b'p');
                // The anchor of an edge shape is pinned so its edge row falls just off the
                // board. goscorer chooses the pinned coordinate by the row direction for the
                // upright symmetries and by the column's dy for the transposed ones, which for
                // two of the transposed symmetries puts the shape on the third line from the
                // side instead of at the edge; kept as is, so that results stay identical to
                // goscorer's.
                let pinned = edge.then(|| match (rdy, cdy) {
                    (-1, _) => Pin {
                        on_y: true,
                        from_far_side: false,
                        k: full - 2,
                    },
                    (1, _) => Pin {
                        on_y: true,
                        from_far_side: true,
                        k: full - 1,
                    },
                    (_, -1) => Pin {
                        on_y: false,
                        from_far_side: false,
                        k: full - 2,
                    },
                    _ => Pin {
                        on_y: false,
                        from_far_side: true,
                        k: full - 1,
                    },
                });
                let rel = |(dy, dx): (i32, i32)| (dy - at_sign.0, dx - at_sign.1);
                let cells: Vec<(i32, i32, u8)> = cells
                    .into_iter()
                    .map(|(o, k)| (rel(o).0, rel(o).1, k))
                    .collect();
                let needs = cells
                    .iter()
                    .filter(|c| c.2 == b'p')
                    .fold(0, |acc, c| acc | side_bit(c.0, c.1));
                let (anchor, corner) = (rel((0, 0)), rel(at(rows - 1, cols - 1)));
                let mut slots = vec![18 + slot(anchor), 18 + slot(corner)];
                slots.extend(
                    cells
                        .iter()
                        .map(|&(dy, dx, k)| if k == b'p' { 0 } else { 9 } + slot((dy, dx))),
                );
                out.push(Template {
                    cells,
                    needs,
                    anchor,
                    corner,
                    pinned,
                    slots,
                });
            }
        }
        out
    })
}

struct Eye {
    colour: Stone,
    region: u32,
    /// Its empty points and dead stones: a range of `Analysis::eye_points`.
    points: (usize, usize),
    /// Its (macro-chain, eye point, macro-chain stone) adjacencies, sorted: a range of
    /// `Analysis::eye_edges`.
    edges: (usize, usize),
    /// The macro-chains it touches (distinct, ascending), and per macro-chain the block
    /// (biconnected component) of the macro-chain–eye graph holding its edge to this eye:
    /// a range of `Analysis::eye_macros` and `Analysis::eye_blocks`.
    macros: (usize, usize),
    value: u8,
}

/// A stored range as a slice range.
#[inline]
fn span(r: (usize, usize)) -> std::ops::Range<usize> {
    r.0..r.1
}

/// The adjacencies with macro-chain `m` among an eye's sorted `edges`.
fn edges_with(edges: &[(u32, usize, usize)], m: u32) -> &[(u32, usize, usize)] {
    let lo = edges.partition_point(|e| e.0 < m);
    let hi = edges.partition_point(|e| e.0 <= m);
    &edges[lo..hi]
}

/// Connected pieces of a point set, flat: piece `k` is `points[ends[k - 1]..ends[k]]`.
#[derive(Default)]
struct Pieces {
    points: Vec<usize>,
    ends: Vec<usize>,
}

/// The scratch vectors of [`Analysis::eye_values`], kept with the analysis's others
/// ([`Spare`]).
#[derive(Default)]
struct EyeScratch {
    adj_eye: Vec<u8>,
    empty_adj_eye: Vec<u8>,
    empty_adj_false: Vec<u8>,
    opp_adj_false: Vec<u8>,
    poke: Vec<bool>,
    to_block: Vec<u32>,
    real: Option<Marks>,
    pieces: Pieces,
    points: Vec<usize>,
    real_points: Vec<usize>,
}

impl Pieces {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &[usize]> {
        (0..self.ends.len()).map(|k| {
            let lo = if k == 0 { 0 } else { self.ends[k - 1] };
            &self.points[lo..self.ends[k]]
        })
    }
}

struct Analysis<'a> {
    pos: &'a Position,
    /// Connection blocks of Black and of White as bitboards (when the board fits in them,
    /// see `go::bits`).
    block_bits: [Bits; 2],
    w: usize,
    h: usize,
    /// Marked dead (only ever true on a stone).
    dead: Vec<bool>,
    blocks: Vec<Stone>,
    /// The strict reach of Black and of White, per point; or, when the board fits in
    /// bitboards, in `strict_bits` with its grid (the analysis may answer for part of the
    /// board only, so the sets are not unpacked).
    strict_black: Vec<bool>,
    strict_white: Vec<bool>,
    strict_bits: Option<(Grid, [Bits; 2])>,
    region: Vec<u32>,
    region_colour: Vec<Stone>,
    chain: Vec<u32>,
    chain_region: Vec<u32>,
    chain_liberties: Vec<u32>,
    macro_of: Vec<u32>,
    n_macros: usize,
    /// Per macro-chain `m`, the eyes it touches (distinct, ascending):
    /// `macro_eye_list[macro_eye_start[m]..macro_eye_start[m + 1]]`.
    macro_eye_start: Vec<usize>,
    macro_eye_list: Vec<u32>,
    eye_of: Vec<u32>,
    eyes: Vec<Eye>,
    /// The eyes' points, edges, macro-chains and edge blocks, one flat vector each (see
    /// [`Eye`]): no allocation per eye.
    eye_points: Vec<usize>,
    eye_edges: Vec<(u32, usize, usize)>,
    eye_macros: Vec<u32>,
    eye_blocks: Vec<u32>,
    /// The eye–macro-chain edges and the working vectors of their blocks (kept, see
    /// [`Spare`]).
    block_edges: Vec<(u32, u32, usize, usize)>,
    block_scratch: BlockScratch,
    /// First-pass false eye points (with every eye worth nothing): not part of the real eye.
    false_eye: Vec<bool>,
    /// The points the analysis looks at, in board order (empty: every point; see
    /// [`unsettled_part`]); elsewhere the answer is plain counting's.
    visit: Vec<u32>,
    marks: Marks,
    marks2: Marks,
    eye_scratch: EyeScratch,
    /// Scratch of the fills (a stack of points, flags per point) and of the regions on
    /// bitboards (per colour, per point, its part of the reach).
    stack: Vec<usize>,
    seen: Vec<bool>,
    parts: [Vec<u32>; 2],
    runs: Runs,
}

/// Up to how many empty points of the analysed part the connection blocks are tried one
/// by one rather than by the bitboard test, whose cost does not depend on the part (one
/// point's templates cost a few hundred instructions, the bitboard test about 17,000).
const BLOCKS_ONE_BY_ONE: u32 = 48;

/// Territory analysis of `pos` with the stones of `dead` marked dead. With
/// `score_false_eyes`, false eyes that will need filling are counted anyway.
pub fn territory_scoring(
    pos: &Position,
    dead: &[bool],
    score_false_eyes: bool,
) -> Vec<PointStatus> {
    let planes = Grid::new(pos).map(|g| {
        let live: Vec<bool> = (0..pos.len())
            .map(|i| pos.at(i) != Stone::Empty && dead.get(i) != Some(&true))
            .collect();
        Planes::new(g, pos, &live)
    });
    territory_scoring_on(pos, dead, score_false_eyes, planes.as_ref(), None)
}

/// [`territory_scoring`], given the position's bitboards when the board fits (made with
/// the same dead stones), and with `part` the analysis looks only at that part of the
/// board (see [`unsettled_part`]: elsewhere plain counting is proven to agree, and the
/// answer there is plain counting's, with no eye values or first-pass false points).
pub(crate) fn territory_scoring_on(
    pos: &Position,
    dead: &[bool],
    score_false_eyes: bool,
    planes: Option<&Planes>,
    part: Option<&Unsettled>,
) -> Vec<PointStatus> {
    let mut out = match (planes, part) {
        (Some(p), Some(q)) => plain_statuses(p, q.by_black),
        _ => vec![PointStatus::BLANK; pos.len()],
    };
    territory_analysis(pos, dead, score_false_eyes, planes, part, |i, s| out[i] = s);
    out
}

/// The analysis of [`territory_scoring_on`], handing `each` the answer for every point it
/// looks at, in board order: the points of `part` when it is given with `planes`, or else
/// every point. (The caller that tallies a score needs nothing for the other points, and
/// no vector of answers for the whole board is made.)
pub(crate) fn territory_analysis(
    pos: &Position,
    dead: &[bool],
    score_false_eyes: bool,
    planes: Option<&Planes>,
    part: Option<&Unsettled>,
    mut each: impl FnMut(usize, PointStatus),
) {
    let n = pos.len();
    let Spare {
        dead: mut marked,
        blocks,
        region,
        region_colour,
        chain,
        chain_region,
        chain_liberties,
        macro_of,
        eye_of,
        eyes,
        eye_points,
        eye_edges,
        eye_macros,
        eye_blocks,
        block_edges,
        block_scratch,
        visit,
        marks,
        marks2,
        eye_scratch,
        stack,
        seen,
        parts,
        runs,
    } = *SPARE.take().unwrap_or_default();
    marked.clear();
    if dead.len() >= n {
        // (The usual case, in one pass over both slices.)
        let stones = pos.cells().iter().zip(dead);
        marked.extend(stones.map(|(&c, &d)| c != Stone::Empty && d));
    } else {
        marked.extend((0..n).map(|i| pos.at(i) != Stone::Empty && dead.get(i) == Some(&true)));
    }
    let mut a = Analysis {
        pos,
        block_bits: [Bits::EMPTY; 2],
        w: pos.width() as usize,
        h: pos.height() as usize,
        dead: marked,
        blocks: filled(blocks, n, Stone::Empty),
        strict_black: Vec::new(),
        strict_white: Vec::new(),
        strict_bits: None,
        region: filled(region, n, NONE),
        region_colour: emptied(region_colour, 16),
        chain: filled(chain, n, NONE),
        chain_region: emptied(chain_region, n / 2),
        chain_liberties: emptied(chain_liberties, n / 2),
        macro_of: filled(macro_of, n, NONE),
        n_macros: 0,
        macro_eye_start: Vec::new(),
        macro_eye_list: Vec::new(),
        eye_of: filled(eye_of, n, NONE),
        eyes: emptied(eyes, 32),
        eye_points: emptied(eye_points, n),
        eye_edges: emptied(eye_edges, n),
        eye_macros: emptied(eye_macros, 64),
        eye_blocks,
        block_edges,
        block_scratch,
        false_eye: Vec::new(),
        visit: emptied(visit, 0),
        marks: Marks::reused(marks, n),
        marks2: Marks::reused(marks2, n),
        eye_scratch,
        stack: emptied(stack, n),
        seen,
        parts,
        runs,
    };
    if let Some(p) = planes {
        if let Some(part) = part {
            // (Sized first: a bitboard's iterator gives no length, and growing by
            // doubling costs more than the count.)
            a.visit.reserve(part.points.count() as usize);
            a.visit
                .extend(part.points.iter().map(|b| p.g.point(b) as u32));
        }
        // Blocks outside the part change nothing: they would lie in the areas of clean
        // components (see `unsettled_part`), which only their own colour ever reaches, and
        // a block stops only the other colour. Where the part holds few empty points they
        // are tried one by one; the bitboard test costs the same on any part.
        let part_empty = part.map(|q| q.points.and(p.open).and_not(p.dead).count());
        if part_empty.is_some_and(|k| k <= BLOCKS_ONE_BY_ONE) {
            a.mark_blocks();
            for k in 0..a.visit.len() {
                let i = a.visit[k] as usize;
                if a.blocks[i] != Stone::Empty {
                    a.block_bits[usize::from(a.blocks[i] == Stone::White)].set(p.g.bit(i));
                }
            }
        } else {
            a.mark_blocks_bits(p);
        }
        let (mut reach_black, strict_black) = a.reach_bits(p, Stone::Black);
        let (mut reach_white, strict_white) = a.reach_bits(p, Stone::White);
        a.strict_bits = Some((p.g.clone(), [strict_black, strict_white]));
        if let Some(part) = part {
            // Whole regions lie inside the part or outside it (see `unsettled_part`), and
            // so do the region-less points: the regions inside are the regions of the
            // reach within the part. Outside, nothing gets a region, chain or eye.
            reach_black = reach_black.and(part.points);
            reach_white = reach_white.and(part.points);
        }
        a.mark_regions_bits(p, reach_black, reach_white);
    } else {
        a.mark_blocks();
        let (reach_black, strict_black) = a.reach_both(Stone::Black);
        let (reach_white, strict_white) = a.reach_both(Stone::White);
        a.strict_black = strict_black;
        a.strict_white = strict_white;
        a.mark_regions(&reach_black, &reach_white);
    }
    a.mark_chains();
    a.mark_macro_chains();
    a.mark_eyes();
    a.mark_eye_blocks();
    let (false_eye, doubtful) = a.false_eye_points();
    a.false_eye = false_eye;
    a.eye_values();
    let unscorable = a.unscorable_false_eyes(&doubtful);
    a.finish(&unscorable, score_false_eyes, &mut each);
    SPARE.set(Some(Box::new(Spare {
        dead: a.dead,
        blocks: a.blocks,
        region: a.region,
        region_colour: a.region_colour,
        chain: a.chain,
        chain_region: a.chain_region,
        chain_liberties: a.chain_liberties,
        macro_of: a.macro_of,
        eye_of: a.eye_of,
        eyes: a.eyes,
        eye_points: a.eye_points,
        eye_edges: a.eye_edges,
        eye_macros: a.eye_macros,
        eye_blocks: a.eye_blocks,
        block_edges: a.block_edges,
        block_scratch: a.block_scratch,
        visit: a.visit,
        marks: Some(a.marks),
        marks2: Some(a.marks2),
        eye_scratch: a.eye_scratch,
        stack: a.stack,
        seen: a.seen,
        parts: a.parts,
        runs: a.runs,
    })));
}

/// The analysis's vectors, kept on each thread from one call to the next so that a call
/// does not allocate them again: most hold an entry per point, above the size that the
/// allocator hands out from its per-thread cache, and on a board whose analysis runs on a
/// small part their allocation was a sixth of the work. Each is emptied and refilled as
/// a new one would be ([`filled`], [`emptied`], [`Marks::reused`]).
#[derive(Default)]
struct Spare {
    dead: Vec<bool>,
    blocks: Vec<Stone>,
    region: Vec<u32>,
    region_colour: Vec<Stone>,
    chain: Vec<u32>,
    chain_region: Vec<u32>,
    chain_liberties: Vec<u32>,
    macro_of: Vec<u32>,
    eye_of: Vec<u32>,
    eyes: Vec<Eye>,
    eye_points: Vec<usize>,
    eye_edges: Vec<(u32, usize, usize)>,
    eye_macros: Vec<u32>,
    eye_blocks: Vec<u32>,
    block_edges: Vec<(u32, u32, usize, usize)>,
    block_scratch: BlockScratch,
    visit: Vec<u32>,
    marks: Option<Marks>,
    marks2: Option<Marks>,
    eye_scratch: EyeScratch,
    stack: Vec<usize>,
    seen: Vec<bool>,
    parts: [Vec<u32>; 2],
    runs: Runs,
}

thread_local! {
    /// This thread's [`Spare`] (none while an analysis runs, or before the first).
    static SPARE: std::cell::Cell<Option<Box<Spare>>> = const { std::cell::Cell::new(None) };
}

/// `v` holding `n` copies of `x`, as `vec![x; n]` would.
fn filled<T: Clone>(mut v: Vec<T>, n: usize, x: T) -> Vec<T> {
    v.clear();
    v.resize(n, x);
    v
}

/// `v` emptied, with room for `cap` entries, as `Vec::with_capacity(cap)` would be.
fn emptied<T>(mut v: Vec<T>, cap: usize) -> Vec<T> {
    v.clear();
    v.reserve(cap);
    v
}

/// Plain counting's answer for every point of `p`: an area's points are its colour's
/// territory (`by_black`: the points of the areas touching living Black), and no stone is
/// in seki. Row by row from the bitboards.
fn plain_statuses(p: &Planes, by_black: Bits) -> Vec<PointStatus> {
    let (w, h) = (p.g.width(), p.g.height());
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        let (open, black) = (p.g.row(&p.open, y), p.g.row(&by_black, y));
        out.extend((0..w).map(|x| PointStatus {
            territory: match (open >> x & 1 != 0, black >> x & 1 != 0) {
                (false, _) => Stone::Empty,
                (true, true) => Stone::Black,
                (true, false) => Stone::White,
            },
            ..PointStatus::BLANK
        }));
    }
    out
}

/// The points `visit` lists, or every point of the board (`0..n`) when it is empty.
fn points(visit: &[u32], n: usize) -> impl Iterator<Item = usize> + '_ {
    let all = if visit.is_empty() { n } else { 0 };
    (0..all).chain(visit.iter().map(|&i| i as usize))
}

/// Area analysis: the colour whose living stones alone are reachable from each point
/// without crossing the other colour's living stones (`Empty` when both or neither are).
pub fn area_scoring(pos: &Position, dead: &[bool]) -> Vec<Stone> {
    let n = pos.len();
    let a = Analysis {
        pos,
        block_bits: [Bits::EMPTY; 2],
        w: pos.width() as usize,
        h: pos.height() as usize,
        dead: (0..n)
            .map(|i| pos.at(i) != Stone::Empty && dead.get(i) == Some(&true))
            .collect(),
        blocks: Vec::new(),
        strict_black: Vec::new(),
        strict_white: Vec::new(),
        strict_bits: None,
        region: Vec::new(),
        region_colour: Vec::new(),
        chain: Vec::new(),
        chain_region: Vec::new(),
        chain_liberties: Vec::new(),
        macro_of: Vec::new(),
        n_macros: 0,
        macro_eye_start: Vec::new(),
        macro_eye_list: Vec::new(),
        eye_of: Vec::new(),
        eyes: Vec::new(),
        eye_points: Vec::new(),
        eye_edges: Vec::new(),
        eye_macros: Vec::new(),
        eye_blocks: Vec::new(),
        block_edges: Vec::new(),
        block_scratch: BlockScratch::default(),
        false_eye: Vec::new(),
        visit: Vec::new(),
        marks: Marks::new(0),
        marks2: Marks::new(0),
        eye_scratch: EyeScratch::default(),
        stack: Vec::new(),
        seen: Vec::new(),
        parts: [Vec::new(), Vec::new()],
        runs: Runs::default(),
    };
    let b = a.reach(Stone::Black);
    let w = a.reach(Stone::White);
    (0..n)
        .map(|i| match (b[i], w[i]) {
            (true, false) => Stone::Black,
            (false, true) => Stone::White,
            _ => Stone::Empty,
        })
        .collect()
}

// The steps are `#[inline(never)]`: each runs once per analysis, and a profile then shows
// each step apart.
impl Analysis<'_> {
    #[inline]
    fn stone(&self, i: usize) -> Stone {
        self.pos.at(i)
    }

    #[inline]
    fn living(&self, i: usize, c: Stone) -> bool {
        self.pos.at(i) == c && !self.dead[i]
    }

    #[inline]
    fn is_living(&self, i: usize) -> bool {
        self.pos.at(i) != Stone::Empty && !self.dead[i]
    }

    #[inline]
    fn on_border(&self, i: usize) -> bool {
        let (x, y) = (i % self.w, i / self.w);
        x == 0 || y == 0 || x + 1 == self.w || y + 1 == self.h
    }

    /// Step 1: connection blocks; White wins where both colours' shapes match (goscorer
    /// marks Black's, then White's over them).
    /// Every shape has a living stone next to its `@`, so only empty points next to a
    /// living stone are tried.
    ///
    /// Only the points the analysis looks at are tried (`visit`).
    #[inline(never)]
    fn mark_blocks(&mut self) {
        let (w, h) = (self.w as i32, self.h as i32);
        let on = |(y, x): (i32, i32)| y >= 0 && x >= 0 && y < h && x < w;
        let all = if self.visit.is_empty() {
            self.pos.len()
        } else {
            self.visit.len()
        };
        for k in 0..all {
            let i = if self.visit.is_empty() {
                k
            } else {
                self.visit[k] as usize
            };
            if self.stone(i) != Stone::Empty {
                continue;
            }
            // Every shape has a living stone next to its `@`: only the templates whose
            // stones next to `@` are all there can fit. One look at the neighbours gives
            // the sides held by each colour.
            let wu = self.w;
            let mut sides = [0u8; 2]; // [Black, White]
            self.pos.for_each_neighbour(i, |m| {
                let s = self.stone(m);
                if s != Stone::Empty && !self.dead[m] {
                    sides[usize::from(s == Stone::White)] |= if m + wu == i {
                        1
                    } else if m == i + wu {
                        2
                    } else if m + 1 == i {
                        4
                    } else {
                        8
                    };
                }
            });
            if sides == [0, 0] {
                continue;
            }
            let (y, x) = ((i / self.w) as i32, (i % self.w) as i32);
            // White first: where both colours' shapes fit, White's block stands.
            for (pla, sides) in [(Stone::White, sides[1]), (Stone::Black, sides[0])] {
                if sides == 0 {
                    continue;
                }
                let opp = other(pla);
                let fits = |t: &Template| {
                    let anchor = (y + t.anchor.0, x + t.anchor.1);
                    // The shape is a rectangle: two opposite corners on the board put all of
                    // it on the board.
                    if !on(anchor) || !on((y + t.corner.0, x + t.corner.1)) {
                        return false;
                    }
                    if let Some(pin) = t.pinned {
                        let (coord, size) = if pin.on_y {
                            (anchor.0, h)
                        } else {
                            (anchor.1, w)
                        };
                        let want = if pin.from_far_side {
                            size - pin.k
                        } else {
                            pin.k
                        };
                        if coord != want {
                            return false;
                        }
                    }
                    t.cells.iter().all(|&(dy, dx, kind)| {
                        let j = ((y + dy) * w + x + dx) as usize;
                        let s = self.stone(j);
                        let mine = s == pla && !self.dead[j];
                        match kind {
                            b'p' => mine,
                            _ => mine || s == Stone::Empty || (s == opp && self.dead[j]),
                        }
                    })
                };
                let all = templates();
                if templates_for(sides).iter().any(|&t| fits(&all[t as usize])) {
                    self.blocks[i] = pla;
                    break;
                }
            }
        }
    }

    /// [`Analysis::mark_blocks`] on bitboards. Every cell of every template lies next to
    /// `@` or diagonally next to it, so a template in one symmetry is an `and` of a few of
    /// 27 bitboards, each moved once (see [`Template::slots`]): a cell off the board lands
    /// on a guard bit or outside the board, which none of them holds.
    #[inline(never)]
    fn mark_blocks_bits(&mut self, p: &Planes) {
        let g = &p.g;
        let stride = g.stride as i32;
        let offset = |k: usize| (k as i32 / 3 - 1) * stride + k as i32 % 3 - 1;
        let board = g.board();
        let empty = p.open.and_not(p.dead);
        let dead_white = p.dead.and_not(p.dead_black);
        let left_column = board.and_not(board.pull(-1));
        let (w, h) = (self.w as i32, self.h as i32);
        let mut table = [[0u64; WORDS]; 27];
        for k in 0..9 {
            table[18 + k] = board.pull(offset(k)).0;
        }
        let mut taken = Bits::EMPTY;
        for pla in [Stone::White, Stone::Black] {
            let (mine, dead_opp) = match pla {
                Stone::White => (p.white, p.dead_black),
                _ => (p.black, dead_white),
            };
            let admits = mine.or(empty).or(dead_opp);
            for k in 0..9 {
                table[k] = mine.pull(offset(k)).0;
                table[9 + k] = admits.pull(offset(k)).0;
            }
            let free = empty.and_not(taken);
            let mut fit = [0u64; WORDS];
            for t in templates() {
                let mut m = free;
                if let Some(pin) = t.pinned {
                    let (size, o) = if pin.on_y {
                        (h, t.anchor.0)
                    } else {
                        (w, t.anchor.1)
                    };
                    let want = if pin.from_far_side {
                        size - pin.k
                    } else {
                        pin.k
                    };
                    // The row or column `@` must be on.
                    let line = want - o;
                    let mut only = Bits::EMPTY;
                    if (0..size).contains(&line) {
                        if pin.on_y {
                            g.put_row(&mut only, line as usize, (1u64 << w) - 1);
                        } else {
                            only = left_column.pull(-line);
                        }
                    }
                    m = m.and(only);
                }
                let mut m = m.0;
                for &s in &t.slots {
                    for (a, b) in m.iter_mut().zip(&table[usize::from(s)]) {
                        *a &= b;
                    }
                }
                for (f, a) in fit.iter_mut().zip(m) {
                    *f |= a;
                }
            }
            let fit = Bits(fit);
            taken = taken.or(fit);
            self.block_bits[usize::from(pla == Stone::White)] = fit;
            for b in fit.iter() {
                self.blocks[g.point(b)] = pla;
            }
        }
    }

    /// Step 2: the points a living stone of `pla` reaches without crossing the opponent's
    /// living stones (the strict reach; area scoring's only question).
    fn reach(&self, pla: Stone) -> Vec<bool> {
        let opp = other(pla);
        let n = self.pos.len();
        let mut seen = vec![false; n];
        // Every walk below pushes each point at most once: room for the board up front.
        let mut stack: Vec<usize> = Vec::with_capacity(n);
        stack.extend((0..n).filter(|&i| self.living(i, pla)));
        for &i in &stack {
            seen[i] = true;
        }
        while let Some(i) = stack.pop() {
            self.pos.for_each_neighbour(i, |m| {
                if !seen[m] && !self.living(m, opp) {
                    seen[m] = true;
                    stack.push(m);
                }
            });
        }
        seen
    }

    /// Step 2, both kinds of reach at once: (stopping at the opponent's connection blocks,
    /// which are reached but not passed; strict). The strict reach is
    /// the reach with blocks continued from the opponent's blocks it stopped at, so the
    /// second walk only covers what lies behind them.
    #[inline(never)]
    fn reach_both(&self, pla: Stone) -> (Vec<bool>, Vec<bool>) {
        let opp = other(pla);
        let n = self.pos.len();
        let mut seen = vec![false; n];
        // Every walk below pushes each point at most once: room for the board up front.
        let mut stack: Vec<usize> = Vec::with_capacity(n);
        stack.extend((0..n).filter(|&i| self.living(i, pla)));
        for &i in &stack {
            seen[i] = true;
        }
        let mut held = Vec::with_capacity(n);
        while let Some(i) = stack.pop() {
            if self.blocks[i] == opp {
                held.push(i);
                continue;
            }
            self.pos.for_each_neighbour(i, |m| {
                if !seen[m] && !self.living(m, opp) {
                    seen[m] = true;
                    stack.push(m);
                }
            });
        }
        let blocked = seen.clone();
        while let Some(i) = held.pop() {
            self.pos.for_each_neighbour(i, |m| {
                if !seen[m] && !self.living(m, opp) {
                    seen[m] = true;
                    held.push(m);
                }
            });
        }
        (blocked, seen)
    }

    /// [`Analysis::reach_both`] on bitboards: the reach stopping at the opponent's blocks
    /// grows from `pla`'s living stones through everything but the opponent's living stones,
    /// but not onward from those blocks; the strict reach grows on from there.
    #[inline(never)]
    fn reach_bits(&self, p: &Planes, pla: Stone) -> (Bits, Bits) {
        let mine = if pla == Stone::White {
            p.white
        } else {
            p.black
        };
        let opp_blocks = self.block_bits[usize::from(pla == Stone::Black)];
        let pass = p.open.or(mine);
        let mut blocked = mine;
        loop {
            let next =
                p.g.dilate(blocked.and_not(opp_blocks))
                    .and(pass)
                    .or(blocked);
            if next == blocked {
                break;
            }
            blocked = next;
        }
        (blocked, p.g.flood(blocked, pass))
    }

    /// [`Analysis::mark_regions`] on bitboards, from the reach stopping at blocks of each
    /// colour. What a region's fill walks is its colour's reach: it starts in it and steps
    /// on exactly as the reach did (past everything but the opponent's living stones, not
    /// onward from the opponent's blocks). The opponent's blocks are dead ends that no
    /// region claims (each touches an opponent's stone, so the opponent reaches it too),
    /// and a point that one fill claims is reached back from it by the same steps, so no
    /// fill meets another fill's points of its own colour, and the other colour's are
    /// outside its reach. So a colour's regions are the connected parts of its reach less
    /// the opponent's blocks, each taking the points that only it reaches, numbered by
    /// first point as the fills in board order number them.
    #[inline(never)]
    fn mark_regions_bits(&mut self, p: &Planes, reach_black: Bits, reach_white: Bits) {
        let only = [
            reach_black.and_not(reach_white),
            reach_white.and_not(reach_black),
        ];
        let w = self.w;
        let n = self.pos.len();
        // Per colour and point, the first run of its connected part (`NONE` outside).
        let [black_part, white_part] = std::mem::take(&mut self.parts);
        let mut part = [filled(black_part, n, NONE), filled(white_part, n, NONE)];
        let mut id_of_part: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut runs = std::mem::take(&mut self.runs);
        for (c, reach) in [reach_black, reach_white].into_iter().enumerate() {
            p.g.runs_into(&reach.and_not(self.block_bits[1 - c]), &mut runs);
            for (&(y, lo, len, _), &root) in runs.runs.iter().zip(&runs.root) {
                let start = y * w + lo as usize;
                part[c][start..start + len as usize].fill(root);
            }
            id_of_part[c] = vec![NONE; runs.runs.len()];
        }
        for b in only[0].or(only[1]).iter() {
            let i = p.g.point(b);
            let c = usize::from(!only[0].has(b));
            let k = part[c][i] as usize;
            if id_of_part[c][k] == NONE {
                id_of_part[c][k] = self.region_colour.len() as u32;
                self.region_colour
                    .push(if c == 0 { Stone::Black } else { Stone::White });
            }
            self.region[i] = id_of_part[c][k];
        }
        self.parts = part;
        self.runs = runs;
    }

    /// Step 3: regions, numbered in board order. A fill from a point reaching only `pla`
    /// walks everything but the opponent's living stones (stopping at its blocks and at
    /// points already in a region) and claims the points that reach only `pla`.
    #[inline(never)]
    fn mark_regions(&mut self, reach_black: &[bool], reach_white: &[bool]) {
        let mut stack = Vec::with_capacity(self.pos.len());
        for i in 0..self.pos.len() {
            for (pla, mine, theirs) in [
                (Stone::Black, reach_black, reach_white),
                (Stone::White, reach_white, reach_black),
            ] {
                if !(mine[i] && !theirs[i] && self.region[i] == NONE) {
                    continue;
                }
                let id = self.region_colour.len() as u32;
                self.region_colour.push(pla);
                let opp = other(pla);
                self.marks.clear();
                self.marks.insert(i);
                self.region[i] = id;
                stack.push(i);
                let pos = self.pos;
                while let Some(j) = stack.pop() {
                    if self.blocks[j] == opp {
                        continue;
                    }
                    pos.for_each_neighbour(j, |m| {
                        if self.marks.has(m)
                            || self.region[m] != NONE
                            || (pos.at(m) == opp && !self.dead[m])
                        {
                            return;
                        }
                        self.marks.insert(m);
                        if mine[m] && !theirs[m] {
                            self.region[m] = id;
                        }
                        stack.push(m);
                    });
                }
            }
        }
    }

    /// Step 4a: chains of one content (empty, living or dead stones of a colour), with the
    /// region they lie in (`NONE` if they straddle two) and their liberty count.
    #[inline(never)]
    fn mark_chains(&mut self) {
        let mut stack = emptied(std::mem::take(&mut self.stack), 0);
        let visit = std::mem::take(&mut self.visit);
        for i in points(&visit, self.pos.len()) {
            if self.chain[i] != NONE {
                continue;
            }
            let id = self.chain_region.len() as u32;
            let (s, d) = (self.stone(i), self.dead[i]);
            let mut region = self.region[i];
            let mut liberties = 0;
            self.marks.clear();
            self.chain[i] = id;
            stack.push(i);
            let pos = self.pos;
            while let Some(j) = stack.pop() {
                if self.region[j] != region {
                    region = NONE;
                }
                pos.for_each_neighbour(j, |m| {
                    if self.chain[m] == NONE && pos.at(m) == s && self.dead[m] == d {
                        self.chain[m] = id;
                        stack.push(m);
                    } else if self.chain[m] != id
                        && pos.at(m) == Stone::Empty
                        && self.marks.insert(m)
                    {
                        liberties += 1;
                    }
                });
            }
            self.chain_region.push(region);
            self.chain_liberties.push(liberties);
        }
        self.visit = visit;
        self.stack = stack;
    }

    /// Step 4b: macro-chains, Black's then White's: living chains joined through region-less
    /// space that is not the opponent's block.
    #[inline(never)]
    fn mark_macro_chains(&mut self) {
        let mut count = 0u32;
        let mut stack = emptied(std::mem::take(&mut self.stack), 0);
        let mut seen = std::mem::take(&mut self.seen);
        for pla in [Stone::Black, Stone::White] {
            let opp = other(pla);
            seen.clear();
            seen.resize(self.pos.len(), false);
            for i in points(&self.visit, self.pos.len()) {
                if !self.living(i, pla) || self.macro_of[i] != NONE {
                    continue;
                }
                let id = count;
                count += 1;
                seen[i] = true;
                stack.push(i);
                while let Some(j) = stack.pop() {
                    let walk = if self.living(j, pla) {
                        self.macro_of[j] = id;
                        true
                    } else {
                        // Region-less space is never a living stone (each colour's living
                        // stones lie in its regions). Outside the analysed part nothing has
                        // a region, and the walk meets only the other colour's stones there.
                        self.region[j] == NONE && !self.is_living(j) && self.blocks[j] != opp
                    };
                    if walk {
                        self.pos.for_each_neighbour(j, |m| {
                            if !seen[m] {
                                seen[m] = true;
                                stack.push(m);
                            }
                        });
                    }
                }
            }
        }
        self.n_macros = count as usize;
        self.stack = stack;
        self.seen = seen;
    }

    /// Step 5: eyes, the connected empty-or-dead pieces of each region, with their
    /// adjacencies to the region's macro-chains.
    #[inline(never)]
    fn mark_eyes(&mut self) {
        let mut stack = emptied(std::mem::take(&mut self.stack), 0);
        let visit = std::mem::take(&mut self.visit);
        for i in points(&visit, self.pos.len()) {
            let r = self.region[i];
            if self.eye_of[i] != NONE || self.is_living(i) || r == NONE {
                continue;
            }
            let id = self.eyes.len() as u32;
            let (p0, e0, m0) = (
                self.eye_points.len(),
                self.eye_edges.len(),
                self.eye_macros.len(),
            );
            self.eye_of[i] = id;
            stack.push(i);
            while let Some(j) = stack.pop() {
                self.eye_points.push(j);
                for m in self.pos.neighbours(j) {
                    if self.region[m] != r {
                        continue;
                    }
                    if self.is_living(m) {
                        self.eye_edges.push((self.macro_of[m], j, m));
                    } else if self.eye_of[m] == NONE {
                        self.eye_of[m] = id;
                        stack.push(m);
                    }
                }
            }
            // Sort and deduplicate this eye's edges (the tail of `eye_edges`).
            self.eye_edges[e0..].sort_unstable();
            let mut kept = e0;
            for k in e0..self.eye_edges.len() {
                if kept == e0 || self.eye_edges[k] != self.eye_edges[kept - 1] {
                    self.eye_edges[kept] = self.eye_edges[k];
                    kept += 1;
                }
            }
            self.eye_edges.truncate(kept);
            let mut last = NONE;
            for k in e0..kept {
                let m = self.eye_edges[k].0;
                if m != last {
                    self.eye_macros.push(m);
                    last = m;
                }
            }
            self.eyes.push(Eye {
                colour: self.region_colour[r as usize],
                region: r,
                points: (p0, self.eye_points.len()),
                edges: (e0, kept),
                macros: (m0, self.eye_macros.len()),
                value: 0,
            });
        }
        self.visit = visit;
        // Per macro-chain, its eyes in ascending order (a counting sort of the eyes' lists).
        let mut start = vec![0usize; self.n_macros + 1];
        for &m in &self.eye_macros {
            start[m as usize + 1] += 1;
        }
        for m in 0..self.n_macros {
            start[m + 1] += start[m];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; self.eye_macros.len()];
        for (e, eye) in self.eyes.iter().enumerate() {
            for &m in &self.eye_macros[span(eye.macros)] {
                list[fill[m as usize]] = e as u32;
                fill[m as usize] += 1;
            }
        }
        self.macro_eye_start = start;
        self.macro_eye_list = list;
        self.stack = stack;
    }

    /// Step 6: false eye points. An eye point with at most one neighbour in its eye, next to
    /// macro-chain `m`, is false for `m` unless `m` — going on through other macro-chains,
    /// other eyes and the rest of this eye — gets round to every side of the point that lies
    /// in the region, or reaches an eye (or real points of this eye) worth something. Eye
    /// values are all 0 on the first pass, which gives the false points for life and death;
    /// the second pass, with values, gives the false eyes that must be filled
    /// ([`Analysis::unscorable_false_eyes`]).
    ///
    /// Returns the first pass's false points and every (eye, macro-chain, point, sides in
    /// the region) that made one false, in the order met: the second pass differs only
    /// where an eye worth something saves such a point, so it looks at these alone.
    #[allow(clippy::type_complexity)]
    #[inline(never)]
    fn false_eye_points(&self) -> (Vec<bool>, Vec<(u32, u32, usize, usize)>) {
        let mut result = vec![false; self.pos.len()];
        let mut doubtful = Vec::new();
        // Per block label among the current eye's macro-chain edges, the lowest and highest
        // point at which those macro-chains touch the eye.
        let mut spans: Vec<(u32, usize, usize)> = Vec::new();
        let mut spans_of = None;
        for e in 0..self.eyes.len() {
            let (e0, e1) = self.eyes[e].edges;
            for k in e0..e1 {
                let (m, p, _) = self.eye_edges[k];
                // Sorted edges: the same point next to the same macro-chain is tested once.
                // (A point already found false is tested again for this macro-chain: the
                // second pass may save it for one macro-chain and not for another.)
                if k > e0 && self.eye_edges[k - 1].0 == m && self.eye_edges[k - 1].1 == p {
                    continue;
                }
                let mut inner = 0;
                self.pos
                    .for_each_neighbour(p, |q| inner += usize::from(self.eye_of[q] == e as u32));
                if inner > 1 {
                    continue;
                }
                let region = self.eyes[e].region;
                let mut target = 0;
                self.pos
                    .for_each_neighbour(p, |q| target += usize::from(self.region[q] == region));
                // Quick answer for the usual case: every side of `p` in the region is a stone
                // of `m` or an eye point next to `m`, which the search reaches first thing.
                let own = |q: usize| self.is_living(q) && self.macro_of[q] == m;
                let easy = self
                    .pos
                    .neighbours(p)
                    .filter(|&q| self.region[q] == region)
                    .all(|q| own(q) || (!self.is_living(q) && self.pos.neighbours(q).any(own)));
                if easy {
                    continue;
                }
                // Every side connected to `m` is enough; otherwise only an eye worth
                // something (second pass) can still save the point. `p` has at most one
                // neighbour in its eye, so the rest of the eye stays in one piece without it:
                // it links every macro-chain touching it elsewhere than at `p`. Everything
                // else goes through other eyes: two macro-chains next to this eye are linked
                // without it exactly when their edges to it share a block of the
                // macro-chain–eye graph (`edge_block`, computed once).
                let eye = &self.eyes[e];
                let macros = &self.eye_macros[span(eye.macros)];
                let eye_blocks = &self.eye_blocks[span(eye.macros)];
                if spans_of != Some(e) {
                    spans_of = Some(e);
                    spans.clear();
                    let edges = &self.eye_edges[span(eye.edges)];
                    let mut k = 0;
                    for (j, &m2) in macros.iter().enumerate() {
                        let lo = edges[k].1;
                        while k + 1 < edges.len() && edges[k + 1].0 == m2 {
                            k += 1;
                        }
                        let hi = edges[k].1;
                        k += 1;
                        let l = eye_blocks[j];
                        match spans.iter_mut().find(|s| s.0 == l) {
                            Some(s) => *s = (l, s.1.min(lo), s.2.max(hi)),
                            None => spans.push((l, lo, hi)),
                        }
                    }
                }
                // (Every living side of `p` in the region is a stone of one of the eye's
                // macro-chains, so the search always finds it.)
                let label = |m2: u32| eye_blocks[macros.binary_search(&m2).unwrap_or(0)];
                // A block links through the rest of the eye unless `p` is the only point
                // where its macro-chains touch the eye.
                let via_rest = |l: u32| spans.iter().any(|s| s.0 == l && (s.1 != p || s.2 != p));
                let home = label(m);
                let m_via_rest = via_rest(home);
                let all_connected = self
                    .pos
                    .neighbours(p)
                    .filter(|&q| self.region[q] == region)
                    .all(|q| {
                        if self.is_living(q) {
                            let l = label(self.macro_of[q]);
                            l == home || (m_via_rest && via_rest(l))
                        } else {
                            m_via_rest
                        }
                    });
                if !all_connected {
                    result[p] = true;
                    doubtful.push((e as u32, m, p, target));
                }
            }
        }
        (result, doubtful)
    }

    /// Step 6, second pass: of the first pass's false points (`doubtful`, from
    /// [`Analysis::false_eye_points`]), those that the search does not save now that the
    /// eyes have values: false eyes that must be filled.
    #[inline(never)]
    fn unscorable_false_eyes(&mut self, doubtful: &[(u32, u32, usize, usize)]) -> Vec<bool> {
        let mut result = vec![false; self.pos.len()];
        let mut search = Search {
            macro_seen: Marks::new(self.n_macros),
            eye_seen: Marks::new(self.eyes.len()),
            stack: Vec::with_capacity(self.n_macros),
            flood: emptied(std::mem::take(&mut self.stack), self.pos.len()),
        };
        for &(e, m, p, target) in doubtful {
            if !result[p] && !self.gets_round(e, m, p, target, &mut search) {
                result[p] = true;
            }
        }
        self.stack = search.flood;
        result
    }

    /// The block label of each eye's edge to each of its macro-chains (`eye_blocks`), in
    /// the graph of macro-chains and eyes.
    #[inline(never)]
    fn mark_eye_blocks(&mut self) {
        let nm = self.n_macros;
        let mut edges = emptied(std::mem::take(&mut self.block_edges), self.eye_macros.len());
        for (e, eye) in self.eyes.iter().enumerate() {
            for &m in &self.eye_macros[span(eye.macros)] {
                edges.push(((nm + e) as u32, m, 0, 0));
            }
        }
        // The eyes' macro-chain lists are stored in eye order, so the edge labels line up.
        let n = nm + self.eyes.len();
        blocks_into(n, &edges, &mut self.block_scratch, &mut self.eye_blocks);
        self.block_edges = edges;
    }

    /// The search of step 6 for point `p` of eye `orig`, from macro-chain `start`: whether
    /// `target` sides of `p` are reached, or (second pass) an eye worth something.
    ///
    /// The answer only depends on what the search can reach, so it stops as soon as one of
    /// these holds and walks the cheap part first: macro-chains and the other eyes they
    /// touch, then the points of the original eye (never through `p`) one at a time.
    fn gets_round(
        &mut self,
        orig: u32,
        start: u32,
        p: usize,
        target: usize,
        search: &mut Search,
    ) -> bool {
        let oe = &self.eyes[orig as usize];
        let region = oe.region;
        let worth = oe.value > 0;
        let living_here =
            |q: usize| self.region[q] == region && self.pos.at(q) != Stone::Empty && !self.dead[q];
        // The sides of `p` in the region, and those reached so far.
        let mut p_sides = [usize::MAX; 4];
        let mut n = 0;
        for q in self.pos.neighbours(p) {
            if self.region[q] == region {
                p_sides[n] = q;
                n += 1;
            }
        }
        let p_sides = &p_sides[..n];
        let mut sides = Sides::default();
        search.macro_seen.clear();
        search.eye_seen.clear();
        search.stack.clear();
        search.flood.clear();
        let orig_seen = &mut self.marks;
        orig_seen.clear();
        orig_seen.insert(p);
        // Reaching macro-chain `m` reaches its stones next to `p`.
        let reach_macro = |m: u32, search: &mut Search, sides: &mut Sides| {
            if search.macro_seen.insert(m as usize) {
                search.stack.push(m);
                for &q in p_sides {
                    if living_here(q) && self.macro_of[q] == m {
                        sides.add(q);
                    }
                }
            }
            sides.len >= target
        };
        // Reaching a point of the original eye.
        let reach_point = |q: usize, search: &mut Search, sides: &mut Sides| {
            search.flood.push(q);
            if p_sides.contains(&q) {
                sides.add(q);
            }
            sides.len >= target || (worth && !self.false_eye[q])
        };
        if reach_macro(start, search, &mut sides) {
            return true;
        }
        let mut next_point = 0;
        loop {
            if let Some(m) = search.stack.pop() {
                let m = m as usize;
                let eyes_of_m =
                    &self.macro_eye_list[self.macro_eye_start[m]..self.macro_eye_start[m + 1]];
                for &e in eyes_of_m {
                    if e == orig {
                        for &(_, q, _) in edges_with(&self.eye_edges[span(oe.edges)], m as u32) {
                            if orig_seen.insert(q) && reach_point(q, search, &mut sides) {
                                return true;
                            }
                        }
                    } else if search.eye_seen.insert(e as usize) {
                        let eye = &self.eyes[e as usize];
                        if eye.value > 0 {
                            return true;
                        }
                        for &m2 in &self.eye_macros[span(eye.macros)] {
                            if reach_macro(m2, search, &mut sides) {
                                return true;
                            }
                        }
                    }
                }
            } else if next_point < search.flood.len() {
                let q = search.flood[next_point];
                next_point += 1;
                for r in self.pos.neighbours(q) {
                    if self.eye_of[r] == orig {
                        if orig_seen.insert(r) && reach_point(r, search, &mut sides) {
                            return true;
                        }
                    } else if living_here(r) && reach_macro(self.macro_of[r], search, &mut sides) {
                        return true;
                    }
                }
            } else {
                return false;
            }
        }
    }

    /// Whether `pla` may play at `i` (empty, and not a suicide of a lone stone: some
    /// neighbour is not the opponent's, or captures).
    fn pseudolegal(&self, i: usize, pla: Stone) -> bool {
        if self.stone(i) != Stone::Empty {
            return false;
        }
        let opp = other(pla);
        self.pos
            .neighbours(i)
            .any(|m| self.stone(m) != opp || self.chain_liberties[self.chain[m] as usize] <= 1)
    }

    /// The connected pieces of `points` (flags in `member`) once `deleted` is taken out,
    /// as lists of points; `out` is reused.
    fn pieces(&mut self, points: &[usize], member: &Marks, deleted: &[usize], out: &mut Pieces) {
        out.points.clear();
        out.ends.clear();
        let seen = &mut self.marks2;
        seen.clear();
        for &d in deleted {
            seen.insert(d);
        }
        for &s in points {
            if !seen.insert(s) {
                continue;
            }
            let mut k = out.points.len();
            out.points.push(s);
            while k < out.points.len() {
                let q = out.points[k];
                k += 1;
                for r in self.pos.neighbours(q) {
                    if member.has(r) && seen.insert(r) {
                        out.points.push(r);
                    }
                }
            }
            out.ends.push(out.points.len());
        }
    }

    /// Step 7: the value of every eye.
    #[inline(never)]
    fn eye_values(&mut self) {
        let n = self.pos.len();
        let EyeScratch {
            adj_eye,
            empty_adj_eye,
            empty_adj_false,
            opp_adj_false,
            poke,
            to_block,
            real,
            pieces,
            points,
            real_points,
        } = std::mem::take(&mut self.eye_scratch);
        // Per real point, reset per eye (eyes are disjoint).
        let mut adj_eye = filled(adj_eye, n, 0u8);
        let mut empty_adj_eye = filled(empty_adj_eye, n, 0u8);
        let mut empty_adj_false = filled(empty_adj_false, n, 0u8);
        let mut opp_adj_false = filled(opp_adj_false, n, 0u8);
        let mut poke = filled(poke, n, false);
        let mut to_block = filled(to_block, n, 0u32);
        let mut real = Marks::reused(real, n);
        let mut pieces = Pieces {
            points: emptied(pieces.points, n),
            ends: emptied(pieces.ends, 16),
        };
        // Reused per eye.
        let mut points = emptied(points, n);
        let mut real_points = emptied(real_points, n);
        for e in 0..self.eyes.len() {
            let pla = self.eyes[e].colour;
            let opp = other(pla);
            points.clear();
            points.extend_from_slice(&self.eye_points[span(self.eyes[e].points)]);
            real_points.clear();
            real_points.extend(points.iter().copied().filter(|&q| !self.false_eye[q]));
            real.clear();
            for &q in &real_points {
                real.insert(q);
            }
            for &q in &real_points {
                let (mut a, mut ea, mut ef, mut of) = (0, 0, 0, 0);
                for m in self.pos.neighbours(q) {
                    let s = self.stone(m);
                    a += u8::from(real.has(m));
                    ea += u8::from(s == Stone::Empty && real.has(m));
                    ef += u8::from(s == Stone::Empty && self.false_eye[m]);
                    of += u8::from(s == opp && self.false_eye[m]);
                }
                adj_eye[q] = a;
                empty_adj_eye[q] = ea;
                empty_adj_false[q] = ef;
                opp_adj_false[q] = of;
                poke[q] = self.stone(q) == opp && (of > 0 || ef >= 2);
            }
            for &q in &real_points {
                to_block[q] = self
                    .pos
                    .neighbours(q)
                    .map(|m| {
                        let s = self.stone(m);
                        let r = real.has(m);
                        if s == opp && (self.false_eye[m] || (r && poke[m])) {
                            1000
                        } else if (s == Stone::Empty && (!r || opp_adj_false[m] >= 1))
                            || (s == opp && r && empty_adj_false[m] >= 1)
                        {
                            1
                        } else {
                            0
                        }
                    })
                    .sum();
            }
            let count = |f: &dyn Fn(usize) -> bool| real_points.iter().filter(|&&q| f(q)).count();
            let mut value = 0usize;
            // Cheap tests first: once the eye is worth two, nothing below can change it.
            if count(&|q| to_block[q] <= 1) >= 1 {
                value = 1;
            }
            let dead_inside = count(&|q| self.stone(q) == opp && self.dead[q]);
            if dead_inside >= 5 {
                value = value.max(1);
            }
            if dead_inside >= 8 {
                value = 2;
            }
            // Big enough once weaknesses and inner opponent stones are discounted.
            if value < 2
                && real_points.len()
                    >= count(&|q| to_block[q] >= 1)
                        + count(&|q| to_block[q] >= 2)
                        + count(&|q| self.stone(q) == opp && adj_eye[q] >= 2)
                        + 6
            {
                value = 2;
            }
            // Many empty points of inner degree three or four.
            if value < 2
                && count(&|q| self.stone(q) == Stone::Empty && adj_eye[q] >= 4)
                    + count(&|q| self.stone(q) == Stone::Empty && adj_eye[q] >= 3)
                    >= 6
            {
                value = 2;
            }
            // A playable bottleneck splitting the eye into pieces that are already sealed:
            // one eye per such piece.
            if value < 2 {
                for &d in &real_points {
                    if !self.pseudolegal(d, pla) {
                        continue;
                    }
                    self.pieces(&real_points, &real, &[d], &mut pieces);
                    if pieces.len() < 2 {
                        continue;
                    }
                    // Playing the bottleneck itself seals a piece whose only weakness it was.
                    let bonus = opp_adj_false[d] == 1;
                    let sealed = pieces
                        .iter()
                        .filter(|piece| {
                            piece
                                .iter()
                                .any(|&q| to_block[q] == 0 || (bonus && to_block[q] <= 1))
                        })
                        .count();
                    value = value.max(sealed);
                    if value >= 2 {
                        break;
                    }
                }
            }
            // Two adjacent points of inner degree ≥ 3 that together split the eye into
            // sealed pieces.
            if value < 2 {
                'outer: for &d in &real_points {
                    if self.stone(d) != Stone::Empty
                        || self.on_border(d)
                        || !self.pseudolegal(d, pla)
                        || to_block[d] > 1
                        || adj_eye[d] < 3
                    {
                        continue;
                    }
                    let nbs: Vec<usize> = self.pos.neighbours(d).filter(|&m| real.has(m)).collect();
                    for d2 in nbs {
                        if adj_eye[d2] < 3 || to_block[d2] > 1 {
                            continue;
                        }
                        let d2_empty = self.stone(d2) == Stone::Empty;
                        if !d2_empty && empty_adj_eye[d2] <= 1 {
                            continue;
                        }
                        self.pieces(&real_points, &real, &[d, d2], &mut pieces);
                        if pieces.len() < 2 {
                            continue;
                        }
                        let (mut one, mut two) = (0, 0);
                        for piece in pieces.iter() {
                            let z = piece.iter().filter(|&&q| to_block[q] == 0).take(2).count();
                            one += usize::from(z >= 1);
                            two += usize::from(z >= 2);
                        }
                        if one >= 2 && two >= 1 && (d2_empty || two >= 2) {
                            value = 2;
                            break 'outer;
                        }
                    }
                }
            }
            // Dead opponent stones whose capture would leave a living shape.
            if value < 2 {
                value = value.max(self.dead_shape_value(&points, &real_points, pla, &mut pieces));
            }
            self.eyes[e].value = value.min(2) as u8;
        }
        self.eye_scratch = EyeScratch {
            adj_eye,
            empty_adj_eye,
            empty_adj_false,
            opp_adj_false,
            poke,
            to_block,
            real: Some(real),
            pieces,
            points,
            real_points,
        };
    }

    /// The last eye-value test: the eye holds dead opponent stones and has no playable
    /// bottleneck, but capturing them (with the points the defender cannot play, less any
    /// one of those the attacker may leave out) leaves enough pieces and bottlenecks for two
    /// eyes, after one eye lost per dead stone sitting on a false eye point. 2 or 0.
    fn dead_shape_value(
        &mut self,
        points: &[usize],
        real_points: &[usize],
        pla: Stone,
        pieces: &mut Pieces,
    ) -> usize {
        let opp = other(pla);
        let dead_opps: Vec<usize> = real_points
            .iter()
            .copied()
            .filter(|&q| self.stone(q) == opp && self.dead[q])
            .collect();
        if dead_opps.is_empty() {
            return 0;
        }
        let unplayable: Vec<usize> = real_points
            .iter()
            .copied()
            .filter(|&q| !(self.pseudolegal(q, pla) || (self.stone(q) == opp && self.dead[q])))
            .collect();
        let throwins = points
            .iter()
            .filter(|&&q| self.stone(q) == opp && self.false_eye[q])
            .count();
        let mut shape_marks = Marks::new(self.pos.len());
        let omissions = unplayable.iter().map(|&q| Some(q)).chain([None]);
        for omitted in omissions {
            let shape: Vec<usize> = dead_opps
                .iter()
                .copied()
                .chain(unplayable.iter().copied().filter(|&q| Some(q) != omitted))
                .collect();
            shape_marks.clear();
            for &q in &shape {
                shape_marks.insert(q);
            }
            self.pieces(&shape, &shape_marks, &[], pieces);
            let initial = pieces.len();
            let (mut bottlenecks, mut high_degree) = (0, 0);
            for &q in &shape {
                self.pieces(&shape, &shape_marks, &[q], pieces);
                if pieces.len() > initial {
                    bottlenecks += 1;
                } else if self
                    .pos
                    .neighbours(q)
                    .filter(|&m| shape_marks.has(m))
                    .count()
                    >= 3
                {
                    high_degree += 1;
                }
            }
            let bonus = usize::from(shape.len() >= 7);
            if (initial + (bottlenecks + high_degree + bonus) / 2) < 2 + throwins {
                return 0;
            }
        }
        2
    }

    /// Step 8: the per-point answer.
    #[inline(never)]
    fn finish(
        &mut self,
        unscorable: &[bool],
        score_false_eyes: bool,
        each: &mut impl FnMut(usize, PointStatus),
    ) {
        let n = self.pos.len();
        let cells = self.pos.cells();
        // Points next to a dead stone thrown into an unscorable false eye are not scored for
        // the side that will have to capture it either: bit 0 for Black, bit 1 for White.
        // (Rare, so there is no vector unless there is such a stone.)
        // (Only points the analysis looks at can be unscorable.)
        let mut extra: Vec<u8> = Vec::new();
        for i in points(&self.visit, n) {
            if unscorable[i] && self.dead[i] {
                if extra.is_empty() {
                    extra = vec![0; n];
                }
                let bit = if cells[i] == Stone::Black { 2 } else { 1 };
                self.pos.for_each_neighbour(i, |m| extra[m] |= bit);
            }
        }
        // Per region: its colour, and whether it is in seki (worth at most one eye).
        let mut region_eyes = vec![0u32; self.region_colour.len()];
        for eye in &self.eyes {
            region_eyes[eye.region as usize] += u32::from(eye.value);
        }
        for i in points(&self.visit, n) {
            each(
                i,
                self.status(i, &region_eyes, unscorable, &extra, score_false_eyes),
            );
        }
    }

    /// The answer for point `i` (see [`Analysis::finish`]).
    #[inline]
    fn status(
        &self,
        i: usize,
        region_eyes: &[u32],
        unscorable: &[bool],
        extra: &[u8],
        score_false_eyes: bool,
    ) -> PointStatus {
        let r = self.region[i];
        if r == NONE {
            return PointStatus {
                dame: true,
                ..PointStatus::BLANK
            };
        }
        let colour = self.region_colour[r as usize];
        let seki = if region_eyes[r as usize] <= 1 {
            colour
        } else {
            Stone::Empty
        };
        let (stone, dead) = (self.pos.at(i), self.dead[i]);
        let white = colour == Stone::White;
        let unscorable_false_eye = unscorable[i]
            || (!extra.is_empty()
                && (stone == Stone::Empty || dead)
                && extra[i] & (1 << u8::from(white)) != 0);
        let e = self.eye_of[i];
        let eye_value = if e == NONE {
            0
        } else {
            self.eyes[e as usize].value
        };
        let reached_by_other = match &self.strict_bits {
            Some((g, strict)) => strict[usize::from(!white)].has(g.bit(i)),
            None if white => self.strict_black[i],
            None => self.strict_white[i],
        };
        let territory = if (stone != colour || dead)
            && seki == Stone::Empty
            && (score_false_eyes || !unscorable_false_eye)
            && self.chain_region[self.chain[i] as usize] == r
            && !reached_by_other
        {
            colour
        } else {
            Stone::Empty
        };
        PointStatus {
            territory,
            seki,
            false_eye: self.false_eye[i],
            unscorable_false_eye,
            dame: false,
            eye_value,
        }
    }
}

/// Whether the analysis above is sure to find exactly what plain area counting finds, so
/// that it can be skipped: every area (a connected set of points that are not living
/// stones, numbered in `area`) touches living stones of one colour only (`area_colour`,
/// `Empty` when it touches both or none), and a few counts prove that every region has two
/// eyes and that no eye point is a false eye that must be filled. Then each area is its
/// colour's territory and no living stone is in seki. This is the usual finished game (dame
/// filled), and it costs a few linear passes instead of the analysis.
///
/// Why, in the analysis's own terms. With every area one colour's, no point reaches both
/// colours, so connection blocks change nothing, a region is a colour's chains joined
/// through its areas, macro-chains are chains and eyes are areas. The first false-eye pass
/// is then computed exactly, as the analysis does it: whether two chains next to an eye are
/// linked without that eye is read off the blocks (biconnected components) of the
/// chain–area graph, here only for the candidate points that a look at their neighbours
/// does not settle (the analysis's own quick test: every side is
/// a stone of the chain or a point next to it). Eye values are bounded from below with
/// `f` false points, `s` points and `d` dead stones:
/// - two when `s ≥ 2f + 6` (no dead stones) or `s ≥ 9f + d + 6`: the size test's weakness
///   counts come only from false points (each weakens at most one point, or at most four
///   through dead stones), its inner-stone count is at most `d`, and `s − f` points are
///   real;
/// - one when a real point has no false point within two steps in the area (with no dead
///   stones: at most one false neighbour), since that point is then blocked at most once.
///
/// A region is alive when these bounds add up to two. A false point next to chain `m` is
/// still not a false eye that must be filled when `m` touches another eye worth something
/// (the second search stops there at once), or when its own eye is worth something and `m`
/// touches it at a real point (the search reaches that point at once). Anything else
/// answers no, and the analysis runs.
///
/// Where some areas touch both colours or none, the same proof is made for the clean
/// components alone ([`unsettled_part`]), and the analysis runs on the rest.
///
/// The analysis stays the reference: the tests check on generated and recorded positions
/// that wherever this says yes, the analysis gives the plain answer point for point.
///
/// Most finished games have no false point at all, and that is shown point by point
/// without the graph ([`settled_without_graph`]); the graph is built only when that fails.
pub(crate) fn plainly_settled_areas(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    area_colour: &[Stone],
) -> bool {
    settled_by_bits(pos, live, area, area_colour)
        .unwrap_or_else(|| settled_without_graph(pos, live, area, area_colour))
        .unwrap_or_else(|| plainly_settled_by_graph(pos, live, area, area_colour, None))
}

/// How many stones of a chain [`chain_search`] looks at before it gives up: enough for
/// the walls round a real game's eyes, small enough that a search costs little.
const CHAIN_SEARCH_LIMIT: usize = 16;

/// Walks the chain of the living stone `start`, breadth first and at most
/// [`CHAIN_SEARCH_LIMIT`] stones, until `found` holds for a neighbour of a visited stone.
/// False when the chain ends or the limit is reached first.
fn chain_search(
    pos: &Position,
    live: &[bool],
    start: usize,
    mut found: impl FnMut(usize) -> bool,
) -> bool {
    // Usually a neighbour of `start` itself answers: no walk.
    if pos.neighbours(start).any(&mut found) {
        return true;
    }
    let colour = pos.at(start);
    let mut seen = [start; CHAIN_SEARCH_LIMIT];
    let (mut len, mut k) = (1, 0);
    while k < len {
        let s = seen[k];
        k += 1;
        for m in pos.neighbours(s) {
            if live[m] && pos.at(m) == colour && !seen[..len].contains(&m) {
                if len == CHAIN_SEARCH_LIMIT {
                    return false;
                }
                seen[len] = m;
                len += 1;
                if pos.neighbours(m).any(&mut found) {
                    return true;
                }
            }
        }
    }
    false
}

/// What a walk along a chain from a stone next to a candidate point `p` of area `a` found
/// (the first [`CHAIN_SEARCH_LIMIT`] stones of the chain, breadth first).
#[derive(Default)]
struct ChainWalk {
    stones: [usize; CHAIN_SEARCH_LIMIT],
    len: usize,
    /// The first few areas other than `a` that the walked stones touch.
    areas: [u32; 8],
    n_areas: usize,
    /// Whether the walked stones touch `a` at a point other than `p`.
    elsewhere: bool,
}

impl ChainWalk {
    fn new(pos: &Position, live: &[bool], area: &[u32], start: usize, p: usize) -> ChainWalk {
        let (colour, a) = (pos.at(start), area[p]);
        let mut w = ChainWalk {
            len: 1,
            ..ChainWalk::default()
        };
        w.stones[0] = start;
        let mut k = 0;
        while k < w.len {
            let s = w.stones[k];
            k += 1;
            pos.for_each_neighbour(s, |m| {
                if live[m] {
                    if pos.at(m) == colour
                        && w.len < CHAIN_SEARCH_LIMIT
                        && !w.stones[..w.len].contains(&m)
                    {
                        w.stones[w.len] = m;
                        w.len += 1;
                    }
                } else if area[m] == a {
                    w.elsewhere |= m != p;
                } else if w.n_areas < w.areas.len() && !w.areas[..w.n_areas].contains(&area[m]) {
                    w.areas[w.n_areas] = area[m];
                    w.n_areas += 1;
                }
            });
        }
        w
    }
}

/// The second, longer test of a candidate `p` (see [`settled_without_graph`]), with
/// `stones` its living neighbours and `open` whether it has a neighbour in its area `a`.
/// Walks along the chain of each stone group the stones into classes whose edges to `a`
/// are surely in one block of the chain–area graph: two stones of one chain, or two chains
/// that both touch another area `b` (the cycle `a`–`c`–`b`–`c'`–`a`). A class links through
/// the rest of `a` when one of its chains touches `a` elsewhere than at `p`. `p` is false
/// for no chain when every class links through the rest of `a` (every side is then
/// connected through `via_rest`), or when there is one class and no side in `a` (every
/// side is then in the home block). The walks see part of the chains only, which can only
/// make classes finer and links fewer: a `true` is sure, a `false` leaves it to the graph.
fn resolved_by_walks(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    p: usize,
    stones: &[usize],
    open: bool,
) -> bool {
    let k = stones.len();
    let mut walks: [ChainWalk; 4] = Default::default();
    for (w, &j) in walks.iter_mut().zip(stones) {
        *w = ChainWalk::new(pos, live, area, j, p);
    }
    classes_settle(
        k,
        open,
        |i, j| {
            let (wi, wj) = (&walks[i], &walks[j]);
            wi.stones[..wi.len].contains(&stones[j])
                || wj.stones[..wj.len].contains(&stones[i])
                || wi.areas[..wi.n_areas]
                    .iter()
                    .any(|b| wj.areas[..wj.n_areas].contains(b))
        },
        |i| walks[i].elsewhere,
    )
}

/// The class test shared by [`resolved_by_walks`] and [`ChainFloods::shown`], for a candidate
/// with `k` (at most four) living neighbours and `open` whether it has a neighbour in its
/// area: neighbours `linked` are merged into one class, and the candidate is false for no
/// chain when every class has a neighbour whose chain touches the area `elsewhere`, or
/// when there is one class and the candidate is not `open`.
#[inline]
fn classes_settle(
    k: usize,
    open: bool,
    linked: impl Fn(usize, usize) -> bool,
    elsewhere: impl Fn(usize) -> bool,
) -> bool {
    let mut class = [0usize, 1, 2, 3];
    for i in 0..k {
        for j in i + 1..k {
            if linked(i, j) {
                let (from, to) = (class[j], class[i]);
                class[..k]
                    .iter_mut()
                    .filter(|c| **c == from)
                    .for_each(|c| *c = to);
            }
        }
    }
    let mut via_rest = [false; 4];
    for i in 0..k {
        via_rest[class[i]] |= elsewhere(i);
    }
    (0..k).all(|i| via_rest[class[i]]) || (!open && (0..k).all(|i| class[i] == class[0]))
}

/// Whether the candidate `p` (a point that is not a living stone, with at most one
/// neighbour that is not a living stone) is shown by short walks along the chains next to
/// it to be a false point for none of them (see [`settled_without_graph`]); false leaves
/// it to the graph.
fn candidate_shown(pos: &Position, live: &[bool], area: &[u32], p: usize) -> bool {
    let a = area[p];
    let (mut open, mut stones, mut k) = (0, [0usize; 4], 0);
    pos.for_each_neighbour(p, |m| {
        if live[m] {
            stones[k] = m;
            k += 1;
        } else {
            open += 1;
        }
    });
    debug_assert!(open <= 1);
    let stones = &stones[..k];
    let resolved = if open == 1 {
        stones
            .iter()
            .all(|&j| chain_search(pos, live, j, |m| !live[m] && m != p && area[m] == a))
    } else {
        // (Each target is a stone next to `p`, so it is found as a neighbour of a
        // stone of the chain exactly when it is in the chain.)
        let mut missing = [false; 4];
        missing[..k].fill(true);
        missing[0] = false;
        k <= 1
            || chain_search(pos, live, stones[0], |m| {
                if let Some(t) = stones.iter().position(|&s| s == m) {
                    missing[t] = false;
                }
                !missing.contains(&true)
            })
    };
    resolved || resolved_by_walks(pos, live, area, p, stones, open == 1)
}

/// [`plainly_settled_areas`] when no point is a false point, shown without the chain–area
/// graph; `None` when some candidate needs the graph (then [`plainly_settled_by_graph`]
/// decides).
///
/// A candidate `p` (a point of area `a`, not a living stone, with at most one neighbour
/// that is not a living stone) is not false for any chain next to it when either
/// - every chain next to `p` also touches `a` at another point: then in the graph test of
///   [`find_false_points`] every block involved links through the rest of the area
///   (`via_rest`), so every side of `p` is connected; or
/// - `p` has no other point of `a` next to it and its living neighbours are one chain:
///   the local test of [`plainly_settled_by_graph`] settles it.
///
/// Both are found by short walks along the chains next to `p` ([`chain_search`]). With no
/// false point, every area is worth one eye at least and two when `s ≥ d + 6` (the bounds
/// of [`plainly_settled_areas`] with `f = 0`), and the answer is whether every region
/// (connected living stones of one colour and areas, found by one flood fill)
/// adds up to two. That is the graph path's answer exactly, since its false points are
/// then none.
fn settled_without_graph(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    area_colour: &[Stone],
) -> Option<bool> {
    let n = pos.len();
    if area_colour.is_empty() || area_colour.contains(&Stone::Empty) {
        return Some(false);
    }
    let na = area_colour.len();
    let mut size = vec![0u32; na];
    let mut dead = vec![0u32; na];
    // The first point of each area (areas are numbered in board order, so this is where
    // the area's number first appears).
    let mut first = vec![0usize; na];
    for p in 0..n {
        if live[p] {
            continue;
        }
        let au = area[p] as usize;
        if size[au] == 0 {
            first[au] = p;
        }
        size[au] += 1;
        dead[au] += u32::from(pos.at(p) != Stone::Empty);
        let mut open = 0;
        pos.for_each_neighbour(p, |m| open += usize::from(!live[m]));
        if open <= 1 && !candidate_shown(pos, live, area, p) {
            return None;
        }
    }
    // Regions: connected points, where two living stones of different colours are not
    // connected (an area touches one colour only, so a living stone next to an area is of
    // the area's colour). One flood fill; each area's worth is added at its first point.
    let mut seen = vec![false; n];
    let mut stack = Vec::with_capacity(n);
    for i in 0..n {
        if seen[i] {
            continue;
        }
        seen[i] = true;
        stack.push(i);
        let mut eyes = 0u32;
        while let Some(j) = stack.pop() {
            if !live[j] {
                let a = area[j] as usize;
                if first[a] == j {
                    eyes += if size[a] >= dead[a] + 6 { 2 } else { 1 };
                }
            }
            let (lj, sj) = (live[j], pos.at(j));
            pos.for_each_neighbour(j, |m| {
                if seen[m] || (lj && live[m] && pos.at(m) != sj) {
                    return;
                }
                seen[m] = true;
                stack.push(m);
            });
        }
        if eyes < 2 {
            return Some(false);
        }
    }
    Some(true)
}

/// Whole chains of living stones, each found by a flood fill of its colour's bitboard the
/// first time a candidate asks for it, with every area it touches and up to two of the
/// points where it touches each: enough to tell whether a chain touches an area at a point
/// other than a given one. (A usual finished game leaves few candidates to the chains, so
/// flooding only theirs costs less than numbering every chain of the board.)
struct ChainFloods {
    /// Per chain found: its stones, and where its records start and end in `touch`.
    chains: Vec<(Bits, usize, usize)>,
    /// Per chain, per area it touches: the area, the first point where the chain touches
    /// it, and a second such point (equal to the first when there is none).
    touch: Vec<[u32; 3]>,
}

impl ChainFloods {
    fn new() -> ChainFloods {
        // (Room for the chains round a few candidates, so that the vectors are not grown
        // on the way.)
        ChainFloods {
            chains: Vec::with_capacity(8),
            touch: Vec::with_capacity(64),
        }
    }

    /// The chain of the living stone at point `s` (a stone of `planes`), flooded and
    /// recorded if it is not yet.
    fn of(&mut self, planes: &Planes, area: &[u32], s: usize) -> usize {
        let g = &planes.g;
        let b = g.bit(s);
        if let Some(c) = self.chains.iter().position(|c| c.0.has(b)) {
            return c;
        }
        let stones = if planes.black.has(b) {
            planes.black
        } else {
            planes.white
        };
        debug_assert!(stones.has(b), "point {s} is not a stone of the planes");
        let mut seed = Bits::EMPTY;
        seed.set(b);
        let chain = g.flood(seed, stones);
        let start = self.touch.len();
        for t in g.dilate(chain).and(planes.open).iter() {
            let q = g.point(t);
            let (a, q32) = (area[q], q as u32);
            match self.touch[start..].iter_mut().find(|r| r[0] == a) {
                Some(r) => {
                    if r[1] == r[2] {
                        r[2] = q32;
                    }
                }
                None => self.touch.push([a, q32, q32]),
            }
        }
        self.chains.push((chain, start, self.touch.len()));
        self.chains.len() - 1
    }

    /// The records of chain `c`: (area, point, point).
    fn slots(&self, c: usize) -> &[[u32; 3]] {
        let (_, start, end) = self.chains[c];
        &self.touch[start..end]
    }

    /// Whether the candidate `p` (not a living stone, at most one neighbour that is not a
    /// living stone) is shown to be a false point for no chain next to it: the test of
    /// [`resolved_by_walks`] with whole chains instead of walks. The living neighbours of
    /// `p` fall into classes surely in one block of the chain–area graph (one chain, or two
    /// chains that both touch another area); `p` is false for none when every class has a
    /// chain touching `p`'s area elsewhere, or when there is one class and `p` has no
    /// neighbour in its area.
    fn shown(&mut self, pos: &Position, planes: &Planes, area: &[u32], p: usize) -> bool {
        let a = area[p];
        let g = &planes.g;
        let (mut open, mut chains, mut k) = (false, [0usize; 4], 0);
        for m in pos.neighbours(p) {
            if planes.open.has(g.bit(m)) {
                open = true;
            } else {
                chains[k] = self.of(planes, area, m);
                k += 1;
            }
        }
        let chains = &chains[..k];
        classes_settle(
            k,
            open,
            |i, j| {
                chains[i] == chains[j]
                    || self.slots(chains[i]).iter().any(|ti| {
                        ti[0] != a && self.slots(chains[j]).iter().any(|tj| tj[0] == ti[0])
                    })
            },
            |i| {
                self.slots(chains[i])
                    .iter()
                    .any(|t| t[0] == a && (t[1] as usize != p || t[2] as usize != p))
            },
        )
    }
}

/// [`settled_without_graph`] on bitboards and whole chains: `Some(answer)` where no
/// candidate is a false point (the graph path's answer, see there), `Some(None)` when some
/// candidate is not shown so (the graph decides), `None` when the board does not fit in a
/// bitboard (the walks of [`settled_without_graph`] are used).
///
/// - A region is the living stones of one colour and the areas they touch, connected (an
///   area touches one colour only, so its living neighbours are of its colour). It adds up
///   to less than two eyes exactly when it has no area (its stones touch no point outside
///   `L`, the living stones) or one area worth one eye (`s < d + 6`). The first: every
///   stone of the colour is connected through stones of the colour to a stone next to a
///   point outside `L` (one flood of the bitboard). The second: for each area worth one, a
///   stone next to its first point touches another area (a few lookups, the usual case),
///   or else a flood from the area through stones of its colour and points outside `L`
///   meets another area before it stops growing. Such a region is short of eyes in the
///   graph path too, whatever the false points (they only lower an area's worth), so this
///   is tested first and answers no at once.
/// - The candidates are the points outside `L` with at most one neighbour outside `L`: a
///   few shifts and masks. Most are shown by their neighbourhood, for all of them at once
///   ([`shown_locally`]); the rest by [`ChainFloods::shown`], the class test of
///   [`settled_without_graph`] on whole chains (each flooded when first needed), which
///   sees what that path's walks of 16 stones may miss. Candidates still not shown go to
///   [`harmless_if_false`].
fn settled_by_bits(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    area_colour: &[Stone],
) -> Option<Option<bool>> {
    if area_colour.is_empty() || area_colour.contains(&Stone::Empty) {
        return Some(Some(false));
    }
    let g = Grid::new(pos)?;
    let planes = Planes::new(g, pos, live);
    let na = area_colour.len();
    let mut size = vec![0u32; na];
    let mut dead = vec![0u32; na];
    let mut first = vec![0usize; na];
    let cells = pos.cells();
    for i in 0..pos.len() {
        if live[i] {
            continue;
        }
        let a = area[i] as usize;
        if size[a] == 0 {
            first[a] = i;
        }
        size[a] += 1;
        dead[a] += u32::from(cells[i] != Stone::Empty);
    }
    let stats = AreaStats { size, dead, first };
    Some(settled_on_planes(
        pos,
        live,
        area,
        area_colour,
        &planes,
        &stats,
    ))
}

/// The lower bound on an area's eye value from its size `s`, its false points `f` and its
/// dead stones `d` (see [`plainly_settled_areas`]): two, else one when it has no false
/// point (the taint test may still raise a zero to one).
fn worth_bound(s: u32, f: u32, d: u32) -> u8 {
    if (d == 0 && s >= 2 * f + 6) || s >= 9 * f + d + 6 {
        2
    } else {
        u8::from(f == 0)
    }
}

/// The bitboard areas as the fast path's tests take them: area per point, colour per
/// area, and per area its size, dead stones and first point.
fn area_inputs(areas: Areas) -> (Vec<u32>, Vec<Stone>, AreaStats) {
    let colour = areas
        .black
        .iter()
        .map(|&b| if b { Stone::Black } else { Stone::White })
        .collect();
    let stats = AreaStats {
        size: areas.size,
        dead: areas.dead,
        first: areas.first,
    };
    (areas.id, colour, stats)
}

/// Per area: its size, its dead stones, its first point.
struct AreaStats {
    size: Vec<u32>,
    dead: Vec<u32>,
    first: Vec<usize>,
}

/// [`plainly_settled_areas`] for a board that fits in a bitboard, given in `planes`, whose
/// areas each touch one colour's living stones; `by_black` is the points of the areas
/// touching Black. The areas are found on the bitboard by runs along the rows
/// ([`Planes::areas`]) and numbered in board order as [`areas`] numbers them, so everything
/// below is as on the point-by-point path.
pub(crate) fn plainly_settled_planes(
    pos: &Position,
    live: &[bool],
    planes: &Planes,
    by_black: Bits,
) -> bool {
    let areas = planes.areas(by_black);
    let (area, colour, stats) = area_inputs(areas);
    if colour.is_empty() {
        return false;
    }
    settled_on_planes(pos, live, &area, &colour, planes, &stats)
        .unwrap_or_else(|| plainly_settled_by_graph(pos, live, &area, &colour, None))
}

/// The body of [`settled_by_bits`]: `Some(answer)`, or `None` when the graph decides.
fn settled_on_planes(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    area_colour: &[Stone],
    planes: &Planes,
    stats: &AreaStats,
) -> Option<bool> {
    let g = &planes.g;
    let (open, black, white) = (planes.open, planes.black, planes.white);
    let (size, dead, first) = (&stats.size, &stats.dead, &stats.first);
    let na = area_colour.len();
    // Regions without an area.
    let touching = g.dilate(open);
    for stones in [black, white] {
        if g.flood(stones.and(touching), stones) != stones {
            return Some(false);
        }
    }
    // Regions with one area, worth one eye.
    for a in 0..na {
        if size[a] >= dead[a] + 6 {
            continue;
        }
        let (a32, f) = (a as u32, first[a]);
        let mut near = false;
        pos.for_each_neighbour(f, |s| {
            if live[s] && !near {
                pos.for_each_neighbour(s, |t| near |= !live[t] && area[t] != a32);
            }
        });
        if near {
            continue;
        }
        let mut seed = Bits::EMPTY;
        seed.set(g.bit(f));
        let own = g.flood(seed, open);
        let within = open.or(if area_colour[a] == Stone::Black {
            black
        } else {
            white
        });
        let mut x = own;
        loop {
            let y = g.dilate(x).and(within);
            if !y.and(open).and_not(own).is_empty() {
                break;
            }
            if y == x {
                return Some(false);
            }
            x = y;
        }
    }
    // The candidates; most are shown by their neighbourhood alone, a few shifts for all.
    let candidates = open.and_not(g.two_neighbours_in(open));
    let candidates = candidates.and_not(shown_locally(planes, candidates));
    if candidates.is_empty() {
        return Some(true);
    }
    // The rest by whole chains, flooded as they are needed.
    let mut chains = ChainFloods::new();
    let mut unshown = Bits::EMPTY;
    for b in candidates.iter() {
        if !chains.shown(pos, planes, area, g.point(b)) {
            unshown.set(b);
        }
    }
    if unshown.is_empty() {
        return Some(true);
    }
    harmless_if_false(pos, area, area_colour, planes, stats, &mut chains, unshown)
}

/// The `candidates` (points outside `L`, the living stones, with at most one neighbour
/// outside `L`) that their neighbourhood alone shows to be a false point for no chain next
/// to them: the test of [`classes_settle`] on whole chains, decided for all candidates at
/// once by a few shifts of the bitboards. Every living neighbour of a candidate `p` is of
/// its area's colour `c` (the areas here touch one colour only). Two living neighbours of
/// `p` at a right angle are in one class when the point diagonal to `p` between them is a
/// living stone of colour `c` (then they are one chain) or is outside `L` (then both
/// chains touch that point's area).
/// - `p` has one neighbour `q` outside `L`: every class must have a chain touching `p`'s
///   area `a` elsewhere. A stone `s` beside `p` at a right angle to `q` touches it: the
///   point next to both `s` and `q` (on the board, as they are) is either outside `L`, so
///   in `a` and next to `s`, or a living stone of colour `c`, so in `s`'s chain and next to
///   `q`. The stone opposite `q`, if any, is in the class of such an `s` when a diagonal
///   on its side joins them as above.
/// - `p` has no neighbour outside `L`: its living neighbours must be one class. Round a
///   point inside the board the four make a cycle, which stays connected with one join
///   missing; on an edge or in a corner they make a path, which needs every join.
///
/// Stones and open points of `planes` may be a subset of the board's (the clean part of
/// [`unsettled_part`], whose areas are whole areas): fewer joins only make the answer
/// smaller, and an opposite point counts as absent only when it is off the board.
fn shown_locally(planes: &Planes, candidates: Bits) -> Bits {
    let g = &planes.g;
    // (On a board one point wide, two neighbours can face each other with no diagonal
    // between them; such boards are left to the whole chains.)
    if candidates.is_empty() || g.width() < 2 || g.height() < 2 {
        return Bits::EMPTY;
    }
    let (board, open) = (g.board(), planes.open);
    let s = g.stride as i32;
    let mut shown = Bits::EMPTY;
    let mut one_open = Bits::EMPTY;
    for (d, e) in [(1, s), (-1, s), (s, 1), (-s, 1)] {
        let toward = candidates.and(open.pull(d));
        one_open = one_open.or(toward);
        let mut joined = board.and_not(board.pull(-d));
        for x in [planes.black, planes.white] {
            let join = x.or(open);
            let side = join.pull(-d - e).or(join.pull(-d + e));
            joined = joined.or(x.pull(-d).and(side));
        }
        shown = shown.or(toward.and(joined));
    }
    let closed = candidates.and_not(one_open);
    if closed.is_empty() {
        return shown;
    }
    let diagonals = [s + 1, s - 1, -s + 1, -s - 1];
    let mut inside = board;
    for k in diagonals {
        inside = inside.and(board.pull(k));
    }
    for x in [planes.black, planes.white] {
        // Missing joins: diagonals on the board that are neither stones of `x` nor open.
        let join = x.or(open);
        let (mut one, mut two) = (Bits::EMPTY, Bits::EMPTY);
        for k in diagonals {
            let missing = board.pull(k).and_not(join.pull(k));
            two = two.or(one.and(missing));
            one = one.or(missing);
        }
        // (`dilate` also keeps `x` itself, which holds no candidate.)
        let connected = board.and_not(one).or(inside.and_not(two));
        shown = shown.or(closed.and(g.dilate(x)).and(connected));
    }
    shown
}

/// The end of [`settled_on_planes`] when some candidates (`maybe`) are not shown to be
/// false for no chain: `Some(true)` when plain counting is right even if each of them is a
/// false point for every chain next to it, `None` when that is not shown (the graph
/// decides). The bounds of [`plainly_settled_areas`] hold for any set of false points
/// that contains the real one (more false points only lower them: fewer real points,
/// more of them near a false point), so they are taken with all of `maybe` false:
/// - every region whose areas hold such a point must still add up to two eyes;
/// - each such point, for each chain next to it, must be saved by the second false-eye
///   search: the chain touches another area worth something (the search reaches that eye
///   first thing), or its own area is worth something and the chain touches it at a point
///   outside `maybe` (a real point). [`ChainFloods`] records where each chain touches
///   each area.
fn harmless_if_false(
    pos: &Position,
    area: &[u32],
    area_colour: &[Stone],
    planes: &Planes,
    stats: &AreaStats,
    chains: &mut ChainFloods,
    maybe: Bits,
) -> Option<bool> {
    let g = &planes.g;
    let open = planes.open;
    let (size, dead) = (&stats.size, &stats.dead);
    let na = area_colour.len();
    let mut falses = vec![0u32; na];
    for b in maybe.iter() {
        falses[area[g.point(b)] as usize] += 1;
    }
    let mut worth = vec![0u8; na];
    for a in 0..na {
        worth[a] = worth_bound(size[a], falses[a], dead[a]);
    }
    // One eye: a real point with no false point within two steps in the area (with no
    // dead stones: at most one false neighbour).
    let near = g.dilate(maybe).and(open);
    let tainted = near.or(g.dilate(near).and(open));
    let touched = g.flood(maybe, open);
    for b in touched.and_not(maybe).iter() {
        let i = g.point(b);
        let a = area[i] as usize;
        if worth[a] > 0 {
            continue;
        }
        let mut false_sides = 0;
        // (Points of `maybe` are never living stones.)
        pos.for_each_neighbour(i, |m| false_sides += u32::from(maybe.has(g.bit(m))));
        if !tainted.has(b) || (dead[a] == 0 && false_sides <= 1) {
            worth[a] = 1;
        }
    }
    // The regions holding those areas: one flood each through their colour's stones.
    let mut done = Bits::EMPTY;
    for b in maybe.iter() {
        if done.has(b) {
            continue;
        }
        let stones = if area_colour[area[g.point(b)] as usize] == Stone::Black {
            planes.black
        } else {
            planes.white
        };
        let mut seed = Bits::EMPTY;
        seed.set(b);
        let region = g.flood(seed, open.or(stones));
        done = done.or(region);
        let eyes: u32 = (0..na)
            .filter(|&a| region.has(g.bit(stats.first[a])))
            .map(|a| u32::from(worth[a]))
            .sum();
        if eyes < 2 {
            return None;
        }
    }
    // The second search saves every (point, chain) pair.
    for b in maybe.iter() {
        let p = g.point(b);
        let a = area[p];
        for s in pos.neighbours(p) {
            if open.has(g.bit(s)) {
                continue;
            }
            let c = chains.of(planes, area, s);
            let saved = chains.slots(c).iter().any(|t| {
                if t[0] != a {
                    worth[t[0] as usize] > 0
                } else {
                    worth[a as usize] > 0
                        && (!maybe.has(g.bit(t[1] as usize)) || !maybe.has(g.bit(t[2] as usize)))
                }
            });
            if !saved {
                return None;
            }
        }
    }
    Some(true)
}

/// The part of a board that the analysis has to look at ([`unsettled_part`]), and the
/// points of the areas touching living Black (for plain counting elsewhere).
pub(crate) struct Unsettled {
    pub(crate) points: Bits,
    pub(crate) by_black: Bits,
}

/// Where some areas touch both colours or neither (dame, seki, an empty corner), plain
/// counting may still be proven right on the board away from them: this finds the part
/// near them, the only part the analysis then has to look at. `by_black` and `by_white` are the points of
/// the areas touching living Black and living White stones. `None` when there is no such
/// part or it is not proven (the analysis then runs on the whole board).
///
/// A *clean* component is a connected set of one colour's living stones and of areas that
/// touch that colour only, none of whose stones is next to an area touching both colours
/// or none. In the analysis's terms it is exactly one region with no region-less point
/// next to it: the other colour never reaches it (its stones stop that colour's reach, and
/// that colour's connection blocks lie next to its own stones, never in these areas), so
/// its reach is all of its colour's; and its colour's reach cannot leave it (its areas
/// touch its stones only, and its stones touch nothing outside but the other colour's
/// stones). So its macro-chains are its chains and its eyes are its areas, as on a board
/// whose areas are all one colour's, and the proof of [`plainly_settled_areas`] holds for
/// it alone: the same tests ([`settled_on_planes`]) on its points say whether plain
/// counting is right there. Everything the analysis computes for one region (chains,
/// macro-chains, eyes, the macro-chain–eye graph, eye values, false eyes, strict reach)
/// lies within that region and the region-less points next to it, so on the rest of the
/// board the analysis gives what it gives on the whole board.
pub(crate) fn unsettled_part(
    pos: &Position,
    live: &[bool],
    planes: &Planes,
    by_black: Bits,
    by_white: Bits,
) -> Option<Unsettled> {
    let g = &planes.g;
    let only_black = by_black.and_not(by_white);
    let only_white = by_white.and_not(by_black);
    let mixed = planes.open.and_not(only_black.or(only_white));
    if mixed.is_empty() {
        return None;
    }
    let near_mixed = g.dilate(mixed);
    let mut clean = Bits::EMPTY;
    for (stones, own) in [(planes.black, only_black), (planes.white, only_white)] {
        let component = stones.or(own);
        let unclean = g.flood(stones.and(near_mixed), component);
        clean = clean.or(component.and_not(unclean));
    }
    if clean.is_empty() {
        return None;
    }
    let sub = Planes {
        g: g.clone(),
        black: planes.black.and(clean),
        white: planes.white.and(clean),
        open: planes.open.and(clean),
        dead: planes.dead.and(clean),
        dead_black: planes.dead_black.and(clean),
    };
    let areas = sub.areas(by_black);
    let (area, colour, stats) = area_inputs(areas);
    let settled = settled_on_planes(pos, live, &area, &colour, &sub, &stats).unwrap_or_else(|| {
        let stones = g.flags(&clean.and_not(planes.open));
        plainly_settled_by_graph(pos, live, &area, &colour, Some(&stones))
    });
    settled.then(|| Unsettled {
        points: g.board().and_not(clean),
        by_black,
    })
}

/// [`plainly_settled_areas`] through the chain–area graph (see there).
///
/// With `only`, the test is on the clean components of [`unsettled_part`]: `only` flags
/// their living stones, and `area` numbers their areas only (`NONE` elsewhere).
fn plainly_settled_by_graph(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    area_colour: &[Stone],
    only: Option<&[bool]>,
) -> bool {
    let n = pos.len();
    if area_colour.is_empty() || area_colour.contains(&Stone::Empty) {
        return false;
    }
    let na = area_colour.len();
    // Nodes: areas 0..na, then the chains of living stones (`chain`, on living points
    // only). One walk of the chains finds the chain–area edges (area, chain, lowest and
    // highest point of the area where they touch), one per pair; joins the graph's
    // components (`parts`); and counts, per point that is not a living stone, its living
    // neighbours.
    let mut chain = vec![NONE; n];
    let mut living_sides = vec![0u8; n];
    let mut nodes = na;
    let mut edges: Vec<(u32, u32, usize, usize)> = Vec::with_capacity(2 * na + 8);
    // Per area, the chain last seen touching it and that edge.
    let mut stamp = vec![NONE; na];
    let mut edge_of = vec![0u32; na];
    let mut parts: Vec<usize> = Vec::with_capacity(2 * na + 8);
    parts.extend(0..na);
    let mut stack = Vec::with_capacity(n);
    for i in 0..n {
        if !live[i] || chain[i] != NONE || only.is_some_and(|o| !o[i]) {
            continue;
        }
        let id = nodes as u32;
        nodes += 1;
        parts.push(id as usize);
        let s = pos.at(i);
        chain[i] = id;
        stack.push(i);
        while let Some(j) = stack.pop() {
            pos.for_each_neighbour(j, |m| {
                if live[m] {
                    if chain[m] == NONE && pos.at(m) == s {
                        chain[m] = id;
                        stack.push(m);
                    }
                    return;
                }
                living_sides[m] += 1;
                let a = area[m] as usize;
                if stamp[a] != id {
                    stamp[a] = id;
                    edge_of[a] = edges.len() as u32;
                    edges.push((a as u32, id, m, m));
                    let (x, y) = (find(&mut parts, a), find(&mut parts, id as usize));
                    parts[x] = y;
                } else {
                    let e = &mut edges[edge_of[a] as usize];
                    e.2 = e.2.min(m);
                    e.3 = e.3.max(m);
                }
            });
        }
    }
    // Whether point `q` (not a living stone) is next to a stone of chain `c`.
    let touches = |q: usize, c: u32| pos.neighbours(q).any(|r| live[r] && chain[r] == c);
    // Area sizes and dead stones, and the false-point candidates: points with at most one
    // neighbour in their area. A candidate next to chain `c` whose every side is a stone of
    // `c` or a point next to `c` is not false for `c` (the usual case, settled locally);
    // the other (point, chain) pairs are left to the test through the graph's blocks.
    let mut size = vec![0u32; na];
    let mut dead = vec![0u32; na];
    let mut unsettled: Vec<(usize, u32)> = Vec::with_capacity(64);
    for p in 0..n {
        if live[p] || area[p] == NONE {
            continue;
        }
        let a = area[p] as usize;
        size[a] += 1;
        dead[a] += u32::from(pos.at(p) != Stone::Empty);
        if pos.degree(p) - usize::from(living_sides[p]) > 1 {
            continue;
        }
        // The distinct chains next to the candidate.
        let (mut chains, mut k) = ([NONE; 4], 0);
        pos.for_each_neighbour(p, |q| {
            if live[q] {
                let c = chain[q];
                if !chains[..k].contains(&c) {
                    chains[k] = c;
                    k += 1;
                }
            }
        });
        for &c in &chains[..k] {
            let local = pos.neighbours(p).all(|q| {
                if live[q] {
                    chain[q] == c
                } else {
                    touches(q, c)
                }
            });
            if !local {
                unsettled.push((p, c));
            }
        }
    }
    let mut false_points = FalsePoints::default();
    if !unsettled.is_empty() {
        false_points = find_false_points(pos, live, area, &chain, na, nodes, &edges, &unsettled);
    }
    let falses = &false_points.falses;
    // Eye values bounded from below (see above). Without false points an area is worth one
    // eye at least (it has a real point with no false point near), two when `s ≥ d + 6`.
    let mut worth = vec![0u8; na];
    for a in 0..na {
        let (s, f, d) = (
            size[a],
            if falses.is_empty() {
                0
            } else {
                false_points.count[a]
            },
            dead[a],
        );
        worth[a] = worth_bound(s, f, d);
    }
    if !falses.is_empty() {
        let is_false = &false_points.is_false;
        // Points with a false point within two steps in their area.
        let mut tainted = vec![false; n];
        for &(f, _) in falses {
            // (A point found false for two chains is walked twice; harmless.)
            for m in pos.neighbours(f) {
                if !live[m] {
                    tainted[m] = true;
                    for m2 in pos.neighbours(m) {
                        if !live[m2] {
                            tainted[m2] = true;
                        }
                    }
                }
            }
        }
        for i in 0..n {
            if live[i] || is_false[i] || area[i] == NONE {
                continue;
            }
            let a = area[i] as usize;
            if worth[a] == 0
                && (!tainted[i]
                    || (dead[a] == 0 && pos.neighbours(i).filter(|&m| is_false[m]).count() <= 1))
            {
                worth[a] = 1;
            }
        }
    }
    // Every region (chains joined through their areas) needs eyes worth two in all.
    let mut eyes = vec![0u8; nodes];
    for (a, &w) in worth.iter().enumerate() {
        let r = find(&mut parts, a);
        eyes[r] = eyes[r].saturating_add(w);
    }
    if !(0..nodes).all(|u| eyes[find(&mut parts, u)] >= 2) {
        return false;
    }
    if falses.is_empty() {
        return true;
    }
    // Each false point, for each chain it is false for, must be saved by the second
    // search: the chain touches another area worth something (the search reaches that eye
    // first thing), or the point's own area is worth something and the chain touches it
    // at a real point.
    let is_false = &false_points.is_false;
    falses.iter().all(|&(p, c)| {
        let a = area[p];
        if edges
            .iter()
            .any(|e| e.1 == c && e.0 != a && worth[e.0 as usize] > 0)
        {
            return true;
        }
        if worth[a as usize] == 0 {
            return false;
        }
        // The lowest and highest points where `c` touches the area are such points unless
        // they are false themselves; only then is the area searched.
        edges
            .iter()
            .find(|e| e.0 == a && e.1 == c)
            .is_some_and(|e| !is_false[e.2] || !is_false[e.3])
            || (0..n).any(|q| !live[q] && area[q] == a && !is_false[q] && touches(q, c))
    })
}

/// The false points of [`plainly_settled_areas`]: each false (point, chain) pair, the false
/// points and their count per area.
#[derive(Default)]
struct FalsePoints {
    falses: Vec<(usize, u32)>,
    is_false: Vec<bool>,
    count: Vec<u32>,
}

/// Of the candidate (point, chain) pairs not settled locally, those where the chain cannot
/// get round the point: a side of the point is linked to the chain neither directly nor
/// through the rest of the area. Two chains next to an area are linked without it exactly
/// when their edges to it share a block of the chain–area graph; `edges` are in the order
/// the chain walk found them.
#[allow(clippy::too_many_arguments)]
fn find_false_points(
    pos: &Position,
    live: &[bool],
    area: &[u32],
    chain: &[u32],
    na: usize,
    nodes: usize,
    edges: &[(u32, u32, usize, usize)],
    unsettled: &[(usize, u32)],
) -> FalsePoints {
    // The edges were found chain by chain, chains in increasing order, so a stable counting
    // sort by area orders them by area, then chain (no comparison sort).
    let mut first_edge = vec![0usize; na + 1];
    for &(a, ..) in edges {
        first_edge[a as usize + 1] += 1;
    }
    for a in 0..na {
        first_edge[a + 1] += first_edge[a];
    }
    let mut fill = first_edge.clone();
    let mut sorted = vec![(0, 0, 0, 0); edges.len()];
    for &e in edges {
        sorted[fill[e.0 as usize]] = e;
        fill[e.0 as usize] += 1;
    }
    let edges = &sorted[..];
    debug_assert!(edges.is_sorted_by_key(|e| (e.0, e.1)));
    let block = blocks(nodes, edges);
    let mut out = FalsePoints {
        falses: Vec::with_capacity(unsettled.len()),
        is_false: vec![false; pos.len()],
        count: vec![0; na],
    };
    for &(p, c) in unsettled {
        let a = area[p] as usize;
        let incident = first_edge[a]..first_edge[a + 1];
        let (inc, blk) = (&edges[incident.clone()], &block[incident]);
        // (Every chain next to `p` has its edge to `p`'s area.)
        let label = |c: u32| blk[inc.partition_point(|e| e.1 < c)];
        // A block links through the rest of the area unless `p` is the only point where
        // its chains touch the area.
        let via_rest = |l: u32| {
            inc.iter()
                .zip(blk)
                .any(|(e, &b)| b == l && (e.2 != p || e.3 != p))
        };
        let home = label(c);
        let c_via_rest = via_rest(home);
        let connected = pos.neighbours(p).all(|q| {
            if live[q] {
                let l = label(chain[q]);
                l == home || (c_via_rest && via_rest(l))
            } else {
                c_via_rest
            }
        });
        if !connected {
            if !out.is_false[p] {
                out.is_false[p] = true;
                out.count[a] += 1;
            }
            out.falses.push((p, c));
        }
    }
    out
}

/// [`plainly_settled_areas`] for a position and its dead stones: whether the territory
/// analysis is sure to agree with plain counting (each area its one colour's, no seki, no
/// false eye to fill). `go::score` skips the analysis where this holds.
pub fn plainly_settled(pos: &Position, dead: &[bool]) -> bool {
    let (live, area, colour) = areas(pos, dead);
    plainly_settled_areas(pos, &live, &area, &colour)
}

/// The inputs of [`plainly_settled_areas`]: living stones, area per point, area colours.
fn areas(pos: &Position, dead: &[bool]) -> (Vec<bool>, Vec<u32>, Vec<Stone>) {
    let n = pos.len();
    let live: Vec<bool> = (0..n)
        .map(|i| pos.at(i) != Stone::Empty && dead.get(i) != Some(&true))
        .collect();
    let mut area = vec![NONE; n];
    let mut colour = Vec::new();
    let mut stack = Vec::new();
    for i in 0..n {
        if live[i] || area[i] != NONE {
            continue;
        }
        let id = colour.len() as u32;
        let (mut black, mut white) = (false, false);
        area[i] = id;
        stack.push(i);
        while let Some(j) = stack.pop() {
            for m in pos.neighbours(j) {
                if live[m] {
                    black |= pos.at(m) == Stone::Black;
                    white |= pos.at(m) == Stone::White;
                } else if area[m] == NONE {
                    area[m] = id;
                    stack.push(m);
                }
            }
        }
        colour.push(match (black, white) {
            (true, false) => Stone::Black,
            (false, true) => Stone::White,
            _ => Stone::Empty,
        });
    }
    (live, area, colour)
}

/// Block (biconnected component) label of each edge of the bipartite graph `edges` (area,
/// chain, ..) over `nodes` nodes: two neighbours of a node stay linked without it exactly
/// when their edges to it share a block. Iterative Hopcroft–Tarjan.
fn blocks(nodes: usize, edges: &[(u32, u32, usize, usize)]) -> Vec<u32> {
    let mut block = Vec::new();
    blocks_into(nodes, edges, &mut BlockScratch::default(), &mut block);
    block
}

/// The working vectors of [`blocks_into`], kept between calls by the analysis.
#[derive(Default)]
struct BlockScratch {
    deg: Vec<usize>,
    fill: Vec<usize>,
    adj: Vec<(u32, u32)>,
    disc: Vec<u32>,
    low: Vec<u32>,
    frames: Vec<(usize, u32, usize)>,
    edge_stack: Vec<u32>,
}

/// [`blocks`] into `block` (emptied first), with the working vectors of `scratch`.
fn blocks_into(
    nodes: usize,
    edges: &[(u32, u32, usize, usize)],
    scratch: &mut BlockScratch,
    block: &mut Vec<u32>,
) {
    let BlockScratch {
        deg,
        fill,
        adj,
        disc,
        low,
        frames,
        edge_stack,
    } = scratch;
    deg.clear();
    deg.resize(nodes + 1, 0);
    for &(a, c, ..) in edges {
        deg[a as usize + 1] += 1;
        deg[c as usize + 1] += 1;
    }
    for v in 0..nodes {
        deg[v + 1] += deg[v];
    }
    fill.clear();
    fill.extend_from_slice(deg);
    adj.clear();
    adj.resize(deg[nodes], (0, 0));
    for (e, &(a, c, ..)) in edges.iter().enumerate() {
        adj[fill[a as usize]] = (c, e as u32);
        fill[a as usize] += 1;
        adj[fill[c as usize]] = (a, e as u32);
        fill[c as usize] += 1;
    }
    block.clear();
    block.resize(edges.len(), NONE);
    disc.clear();
    disc.resize(nodes, 0);
    low.clear();
    low.resize(nodes, 0);
    let mut time = 0u32;
    let mut next = 0u32;
    // (node, edge it was reached by, next adjacency index)
    // (At most one frame per node and one stacked entry per edge.)
    frames.clear();
    frames.reserve(nodes);
    edge_stack.clear();
    edge_stack.reserve(edges.len());
    for root in 0..nodes {
        if disc[root] != 0 {
            continue;
        }
        time += 1;
        disc[root] = time;
        low[root] = time;
        frames.push((root, NONE, deg[root]));
        while let Some(&mut (v, via, ref mut k)) = frames.last_mut() {
            if *k < deg[v + 1] {
                let (w, e) = adj[*k];
                *k += 1;
                let w = w as usize;
                if e == via {
                    continue;
                }
                if disc[w] == 0 {
                    edge_stack.push(e);
                    time += 1;
                    disc[w] = time;
                    low[w] = time;
                    frames.push((w, e, deg[w]));
                } else if disc[w] < disc[v] {
                    edge_stack.push(e);
                    low[v] = low[v].min(disc[w]);
                }
            } else {
                frames.pop();
                if let Some(&(u, ..)) = frames.last() {
                    low[u] = low[u].min(low[v]);
                    if low[v] >= disc[u] {
                        while let Some(e) = edge_stack.pop() {
                            block[e as usize] = next;
                            if e == via {
                                break;
                            }
                        }
                        next += 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A finished-looking position: zones around random seeds, walls of stones along the zone
    /// borders, holes knocked into the walls, stones thrown into the zones (the opponent's
    /// marked dead), and the dame filled, mostly.
    pub(crate) fn generate(rng: &mut ChaCha8Rng) -> (Position, Vec<bool>) {
        let size = [5u8, 7, 9, 13, 19][rng.random_range(0..5)];
        let n = usize::from(size) * usize::from(size);
        let seeds: Vec<(i32, i32, Stone)> = (0..rng.random_range(2..7))
            .map(|k| {
                let c = if k % 2 == 0 {
                    Stone::Black
                } else {
                    Stone::White
                };
                (
                    rng.random_range(0..i32::from(size)),
                    rng.random_range(0..i32::from(size)),
                    c,
                )
            })
            .collect();
        let w = usize::from(size);
        let zone: Vec<Stone> = (0..n)
            .map(|i| {
                let (x, y) = ((i % w) as i32, (i / w) as i32);
                seeds
                    .iter()
                    .min_by_key(|s| (s.0 - x).abs() + (s.1 - y).abs())
                    .unwrap()
                    .2
            })
            .collect();
        let empty = Position::empty(size, size);
        let mut cells = vec![Stone::Empty; n];
        for i in 0..n {
            if empty.neighbours(i).any(|m| zone[m] != zone[i]) {
                cells[i] = zone[i];
            }
        }
        let holes = rng.random_range(0..6);
        let throws = rng.random_range(0..6);
        for _ in 0..holes {
            cells[rng.random_range(0..n)] = Stone::Empty;
        }
        let mut thrown = Vec::new();
        for _ in 0..throws {
            let i = rng.random_range(0..n);
            if cells[i] == Stone::Empty {
                cells[i] = other(zone[i]);
                thrown.push(i);
            }
        }
        // Fill the dame (points touching both colours) with either colour, bounded.
        for _ in 0..4 {
            let pos = Position::from_cells(size, size, cells.clone());
            let mut changed = false;
            for i in 0..n {
                if cells[i] != Stone::Empty || rng.random_bool(0.1) {
                    continue;
                }
                let b = pos.neighbours(i).any(|m| cells[m] == Stone::Black);
                let wh = pos.neighbours(i).any(|m| cells[m] == Stone::White);
                if b && wh {
                    cells[i] = if rng.random_bool(0.5) {
                        Stone::Black
                    } else {
                        Stone::White
                    };
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let pos = Position::from_cells(size, size, cells);
        let mut dead = vec![false; n];
        for &i in &thrown {
            if pos.at(i) == other(zone[i]) && rng.random_bool(0.8) {
                for j in pos.chain(i) {
                    dead[j] = true;
                }
            }
        }
        (pos, dead)
    }

    /// The analysis on bitboards gives the point-by-point analysis's answer, every point's
    /// status, with and without false eyes scored: on finished-looking positions and on
    /// scattered stones (dame, seki, areas touching nobody).
    #[test]
    fn bits_analysis_agrees_with_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(77);
        let mut seki = 0;
        for case in 0..3000 {
            let (pos, dead) = if case % 2 == 1 {
                crate::go::score::tests::scatter(&mut rng)
            } else {
                generate(&mut rng)
            };
            let live: Vec<bool> = (0..pos.len())
                .map(|i| pos.at(i) != Stone::Empty && !dead[i])
                .collect();
            let planes = Planes::new(Grid::new(&pos).unwrap(), &pos, &live);
            for score_false_eyes in [false, true] {
                let bits = territory_scoring_on(&pos, &dead, score_false_eyes, Some(&planes), None);
                let points = territory_scoring_on(&pos, &dead, score_false_eyes, None, None);
                assert!(
                    bits == points,
                    "case {case}\n{}\ndead {:?}",
                    pos.rows().join("\n"),
                    (0..dead.len()).filter(|&i| dead[i]).collect::<Vec<_>>()
                );
                seki += usize::from(bits.iter().any(|s| s.seki != Stone::Empty));
            }
        }
        assert!(seki >= 500, "{seki}");
    }

    /// Asserts that a fast path's answer on generated position `case` is the graph path's,
    /// and counts it as a yes or a no.
    fn agrees_with_graph(
        case: usize,
        pos: &Position,
        dead: &[bool],
        quick: bool,
        graph: bool,
        yes: &mut usize,
        no: &mut usize,
    ) {
        assert_eq!(
            quick,
            graph,
            "case {case}\n{}\ndead {:?}",
            pos.rows().join("\n"),
            (0..pos.len()).filter(|&i| dead[i]).collect::<Vec<_>>()
        );
        *if quick { yes } else { no } += 1;
    }

    /// Wherever the point-by-point path answers, it answers as the graph path; it answers
    /// on most generated positions whose areas are each one colour's (both yes and no), and
    /// leaves some to the graph. The generator's walls and thrown-in stones make candidate
    /// points of every kind (one-point eyes between chains, points whose chain touches the
    /// area nowhere else).
    #[test]
    fn settled_without_graph_agrees_with_graph() {
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let (mut yes, mut no, mut fallback) = (0, 0, 0);
        for case in 0..5000 {
            let (pos, dead) = generate(&mut rng);
            let (live, area, colour) = areas(&pos, &dead);
            if colour.is_empty() || colour.contains(&Stone::Empty) {
                continue;
            }
            let graph = plainly_settled_by_graph(&pos, &live, &area, &colour, None);
            match settled_without_graph(&pos, &live, &area, &colour) {
                Some(quick) => {
                    agrees_with_graph(case, &pos, &dead, quick, graph, &mut yes, &mut no)
                }
                None => fallback += 1,
            }
        }
        eprintln!("point by point: yes {yes}, no {no}; graph {fallback}");
        assert!(
            yes >= 200 && no >= 50 && fallback >= 50,
            "yes {yes}, no {no}, graph {fallback}"
        );
    }

    /// Where some areas touch both colours or none and [`unsettled_part`] proves the rest
    /// plain, the analysis on that part only gives the whole-board analysis's answer: every
    /// field of every point inside the part, and outside it the same territory, seki, dame
    /// and false eyes that must be filled (none there). Both outcomes of the proof must
    /// occur often.
    #[test]
    fn analysis_on_the_unsettled_part_agrees_with_the_whole() {
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let (mut restricted, mut not_proven, mut share) = (0, 0, 0.0);
        let mut kinds = [(0, 0); 3];
        for case in 0..6000 {
            let (pos, dead) = match case % 4 {
                0 => crate::go::score::tests::scatter(&mut rng),
                1 => generate(&mut rng),
                _ => with_dame(&mut rng),
            };
            let live: Vec<bool> = (0..pos.len())
                .map(|i| pos.at(i) != Stone::Empty && !dead[i])
                .collect();
            let planes = Planes::new(Grid::new(&pos).unwrap(), &pos, &live);
            let (by_black, by_white) = (planes.reached(planes.black), planes.reached(planes.white));
            if !by_black.meets(by_white) && by_black.or(by_white) == planes.open {
                continue;
            }
            let Some(part) = unsettled_part(&pos, &live, &planes, by_black, by_white) else {
                not_proven += 1;
                kinds[(case % 4).min(2)].1 += 1;
                continue;
            };
            kinds[(case % 4).min(2)].0 += 1;
            restricted += 1;
            share += f64::from(part.points.count()) / pos.len() as f64;
            let inside = planes.g.flags(&part.points);
            for score_false_eyes in [false, true] {
                let whole =
                    territory_scoring_on(&pos, &dead, score_false_eyes, Some(&planes), None);
                let on_part =
                    territory_scoring_on(&pos, &dead, score_false_eyes, Some(&planes), Some(&part));
                for i in 0..pos.len() {
                    let expected = if inside[i] {
                        whole[i]
                    } else {
                        PointStatus {
                            eye_value: on_part[i].eye_value,
                            false_eye: on_part[i].false_eye,
                            ..whole[i]
                        }
                    };
                    assert!(
                        on_part[i] == expected,
                        "case {case}, point {i} (inside {}): {:?} against {:?}\n{}\ndead {:?}",
                        inside[i],
                        on_part[i],
                        whole[i],
                        pos.rows().join("\n"),
                        (0..dead.len()).filter(|&i| dead[i]).collect::<Vec<_>>()
                    );
                }
            }
        }
        let share = share / f64::from(restricted.max(1));
        // (Per generator, scattered, generated and with dame: restricted, not proven.)
        eprintln!(
            "restricted {restricted} (mean share {share:.2}), not proven {not_proven} {kinds:?}"
        );
        assert!(
            restricted >= 300 && not_proven >= 100,
            "restricted {restricted}, not proven {not_proven}"
        );
    }

    /// A plainly settled [`generate`] position (the first of at most 20 tries) with one to
    /// three of its living stones that touch both colours taken off (filled dame, mostly):
    /// finished games whose players left some dame, so areas touching both colours sit
    /// among settled ones.
    fn with_dame(rng: &mut ChaCha8Rng) -> (Position, Vec<bool>) {
        let (mut pos, mut dead) = generate(rng);
        for _ in 0..20 {
            if plainly_settled(&pos, &dead) {
                break;
            }
            (pos, dead) = generate(rng);
        }
        let mut cells = pos.cells().to_vec();
        let n = cells.len();
        for _ in 0..rng.random_range(1..4) {
            for _ in 0..50 {
                let i = rng.random_range(0..n);
                let (b, w) = pos.neighbours(i).fold((false, false), |(b, w), m| {
                    (
                        b || pos.at(m) == Stone::Black,
                        w || pos.at(m) == Stone::White,
                    )
                });
                if cells[i] != Stone::Empty && !dead[i] && b && w {
                    cells[i] = Stone::Empty;
                    break;
                }
            }
        }
        (Position::from_cells(pos.width(), pos.height(), cells), dead)
    }

    /// Every candidate that [`shown_locally`] passes is shown to be a false point for no
    /// chain next to it by the class test on whole chains (found here by flood fills):
    /// living neighbours are in one class when their chains are one or touch one other
    /// area; with one neighbour outside the living stones, every class has a chain that
    /// touches the candidate's area at another point; with none, there is one class.
    /// Boards of every shape that fits a bitboard, from 1×1, with stones scattered at
    /// random (every kind of neighbourhood, edges and corners; `score::tests::scatter`),
    /// and generated finished games; only candidates whose area touches one colour count,
    /// as on the callers' boards. Most candidates must pass.
    #[test]
    fn shown_locally_holds_on_whole_chains() {
        let mut rng = ChaCha8Rng::seed_from_u64(53);
        // Per generator (finished games, scattered stones): candidates, shown.
        let mut counts = [(0u32, 0u32); 2];
        for case in 0..8000 {
            let (pos, dead) = if case % 2 == 0 {
                generate(&mut rng)
            } else {
                crate::go::score::tests::scatter(&mut rng)
            };
            let (live, area, colour) = areas(&pos, &dead);
            let g = Grid::new(&pos).expect("fits");
            let planes = Planes::new(g, &pos, &live);
            let g = &planes.g;
            let (by_black, by_white) = (planes.reached(planes.black), planes.reached(planes.white));
            let one_colour = by_black.and_not(by_white).or(by_white.and_not(by_black));
            let candidates = planes
                .open
                .and_not(g.two_neighbours_in(planes.open))
                .and(one_colour);
            let shown = shown_locally(&planes, candidates);
            assert!(shown.and_not(candidates).is_empty(), "case {case}");
            // Whole chains by flood fill, and the points outside them that each touches.
            let n = pos.len();
            let mut chain = vec![NONE; n];
            let mut touches: Vec<Vec<usize>> = vec![Vec::new(); n];
            for i in 0..n {
                if !live[i] || chain[i] != NONE {
                    continue;
                }
                let mut stack = vec![i];
                chain[i] = i as u32;
                while let Some(j) = stack.pop() {
                    for m in pos.neighbours(j) {
                        if live[m] && chain[m] == NONE && pos.at(m) == pos.at(i) {
                            chain[m] = i as u32;
                            stack.push(m);
                        } else if !live[m] && !touches[i].contains(&m) {
                            touches[i].push(m);
                        }
                    }
                }
            }
            counts[case % 2].0 += candidates.count();
            counts[case % 2].1 += shown.count();
            for b in shown.iter() {
                let p = g.point(b);
                let a = area[p];
                assert_ne!(colour[a as usize], Stone::Empty);
                let chains: Vec<usize> = pos
                    .neighbours(p)
                    .filter(|&m| live[m])
                    .map(|m| chain[m] as usize)
                    .collect();
                let open = pos.neighbours(p).count() - chains.len();
                let elsewhere = |c: usize| touches[c].iter().any(|&m| m != p && area[m] == a);
                let linked = |c: usize, d: usize| {
                    c == d
                        || touches[c].iter().any(|&m| {
                            area[m] != a && touches[d].iter().any(|&o| area[o] == area[m])
                        })
                };
                // Classes by repeated merging (at most four members).
                let k = chains.len();
                let mut class: Vec<usize> = (0..k).collect();
                for _ in 0..k {
                    for i in 0..k {
                        for j in 0..k {
                            if linked(chains[i], chains[j]) {
                                let low = class[i].min(class[j]);
                                class[i] = low;
                                class[j] = low;
                            }
                        }
                    }
                }
                let holds = if open == 1 {
                    (0..k).all(|i| (0..k).any(|j| class[j] == class[i] && elsewhere(chains[j])))
                } else {
                    assert_eq!(open, 0, "case {case}, point {p}");
                    class.iter().all(|&c| c == class[0])
                };
                assert!(
                    holds,
                    "case {case}, point {p} ({}x{})\n{}\ndead {:?}",
                    pos.width(),
                    pos.height(),
                    pos.rows().join("\n"),
                    (0..n).filter(|&i| dead[i]).collect::<Vec<_>>()
                );
            }
        }
        eprintln!("candidates and shown locally, games and scattered: {counts:?}");
        let [(games, games_shown), (scattered, scattered_shown)] = counts;
        assert!(
            games >= 5000
                && games_shown * 2 >= games
                && scattered >= 5000
                && scattered_shown * 10 >= scattered * 4,
            "{counts:?}"
        );
    }

    /// Wherever the bitboard path answers, it answers as the graph path, yes and no; it
    /// answers on most generated positions, more often than the walks (whole chains see
    /// more than walks of 16 stones), and leaves some to the graph.
    #[test]
    fn settled_by_bits_agrees_with_graph() {
        let mut rng = ChaCha8Rng::seed_from_u64(47);
        let (mut yes, mut no, mut fallback, mut walks) = (0, 0, 0, 0);
        for case in 0..5000 {
            let (pos, dead) = generate(&mut rng);
            let (live, area, colour) = areas(&pos, &dead);
            let bits = settled_by_bits(&pos, &live, &area, &colour)
                .expect("generated boards fit in a bitboard");
            walks += usize::from(settled_without_graph(&pos, &live, &area, &colour).is_some());
            let Some(quick) = bits else {
                fallback += 1;
                continue;
            };
            let graph = plainly_settled_by_graph(&pos, &live, &area, &colour, None);
            agrees_with_graph(case, &pos, &dead, quick, graph, &mut yes, &mut no);
        }
        eprintln!("bits: yes {yes}, no {no}; graph {fallback}; the walks answer {walks}");
        assert!(
            yes >= 900 && no >= 300 && fallback >= 50 && yes + no >= walks,
            "yes {yes}, no {no}, graph {fallback}, walks {walks}"
        );
    }

    /// Wherever `plainly_settled` says yes, the analysis gives the plain answer on every
    /// point: each point that is not a living stone is the territory of its area's one
    /// colour, nothing is in seki, no false eye must be filled. Both answers must occur.
    #[test]
    fn plain_counting_agrees_where_settled() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let (mut settled, mut not) = (0, 0);
        for case in 0..5000 {
            let (pos, dead) = generate(&mut rng);
            if !plainly_settled(&pos, &dead) {
                not += 1;
                continue;
            }
            settled += 1;
            let st = territory_scoring(&pos, &dead, false);
            let plain = area_scoring(&pos, &dead);
            for i in 0..pos.len() {
                let living = pos.at(i) != Stone::Empty && !dead[i];
                let want = if living { Stone::Empty } else { plain[i] };
                assert!(
                    st[i].territory == want
                        && st[i].seki == Stone::Empty
                        && !st[i].unscorable_false_eye,
                    "case {case}, point {:?}: analysis {:?}, plain {want:?}\n{}",
                    pos.xy(i),
                    st[i],
                    pos.rows().join("\n")
                );
            }
        }
        assert!(settled >= 300 && not >= 300, "settled {settled}, not {not}");
    }
}
