//! Bitboards for scoring (area counting and the territory fast path): one bit per point,
//! rows `width + 1` bits apart so that every row ends in a guard bit that is never set. A
//! shift by one then moves a point to its left or right neighbour, or into a guard bit
//! (masked off), and a shift by the row stride to the neighbour above or below, so "the
//! points next to a set" (dilation) is four shifts, three ors and a mask instead of a
//! neighbour walk per point.
//!
//! Fixed at [`WORDS`] words (boards whose `(width + 1) × height` fits: 19×19 and smaller);
//! larger boards keep the point-by-point code.

use super::board::Stone;
use super::position::Position;

/// Words per bitboard: 384 bits, enough for 19×19 (20 × 19 = 380 bits).
pub(crate) const WORDS: usize = 6;

/// A set of points.
#[derive(Clone, Copy, Default)]
pub(crate) struct Bits(pub(crate) [u64; WORDS]);

/// Word by word and without a branch per word: the derived comparison of the arrays calls
/// `memcmp`, which costs more than the comparison itself in the loops that test for a
/// fixed point.
impl PartialEq for Bits {
    #[inline]
    fn eq(&self, o: &Bits) -> bool {
        (0..WORDS).fold(0, |a, k| a | (self.0[k] ^ o.0[k])) == 0
    }
}

impl Eq for Bits {}

impl Bits {
    pub(crate) const EMPTY: Bits = Bits([0; WORDS]);

    #[inline]
    pub(crate) fn set(&mut self, b: usize) {
        self.0[b >> 6] |= 1 << (b & 63);
    }

    #[inline]
    pub(crate) fn has(&self, b: usize) -> bool {
        self.0[b >> 6] >> (b & 63) & 1 != 0
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// How many points.
    #[inline]
    pub(crate) fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the two sets share a point.
    #[inline]
    pub(crate) fn meets(&self, o: Bits) -> bool {
        self.0.iter().zip(o.0).any(|(&a, b)| a & b != 0)
    }

    #[inline]
    pub(crate) fn and(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|k| self.0[k] & o.0[k]))
    }

    #[inline]
    pub(crate) fn or(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|k| self.0[k] | o.0[k]))
    }

    #[inline]
    pub(crate) fn and_not(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|k| self.0[k] & !o.0[k]))
    }

    /// Every bit moved `s` places up (towards higher indices), 0 < `s` < 64.
    #[inline]
    fn up(self, s: u32) -> Bits {
        Bits(std::array::from_fn(|k| {
            self.0[k] << s | if k > 0 { self.0[k - 1] >> (64 - s) } else { 0 }
        }))
    }

    /// Every bit moved `s` places down, 0 < `s` < 64.
    #[inline]
    fn down(self, s: u32) -> Bits {
        Bits(std::array::from_fn(|k| {
            self.0[k] >> s
                | if k + 1 < WORDS {
                    self.0[k + 1] << (64 - s)
                } else {
                    0
                }
        }))
    }

    /// The set holding point `b` wherever `self` holds point `b + off`, `|off| < 64`
    /// (offsets within a row and its neighbours: a row is at most 53 bits, boards being at
    /// most 52 wide).
    #[inline]
    pub(crate) fn pull(self, off: i32) -> Bits {
        match off {
            0 => self,
            ..0 => self.up(off.unsigned_abs()),
            _ => self.down(off.unsigned_abs()),
        }
    }

    /// The set bits, lowest first.
    #[inline]
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(k, mut w)| {
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    k * 64 + b
                })
            })
        })
    }
}

/// The layout of a board in bitboards.
#[derive(Clone)]
pub(crate) struct Grid {
    w: usize,
    h: usize,
    /// Bits per row: the width and a guard bit.
    pub(crate) stride: usize,
    /// The points of the board.
    board: Bits,
}

impl Grid {
    /// `None` when the board does not fit in [`WORDS`] words.
    pub(crate) fn new(pos: &Position) -> Option<Grid> {
        let (w, h) = (usize::from(pos.width()), usize::from(pos.height()));
        let stride = w + 1;
        if stride * h > WORDS * 64 {
            return None;
        }
        let mut g = Grid {
            w,
            h,
            stride,
            board: Bits::EMPTY,
        };
        // (A row at a time: every `go::score` call makes a grid.)
        let mut board = Bits::EMPTY;
        for y in 0..h {
            g.put_row(&mut board, y, (1u64 << w) - 1);
        }
        g.board = board;
        Some(g)
    }

    pub(crate) fn width(&self) -> usize {
        self.w
    }

    pub(crate) fn height(&self) -> usize {
        self.h
    }

    /// Adds the points of row `y` given as a mask (bit `x` for column `x`, below the width).
    #[inline]
    pub(crate) fn put_row(&self, x: &mut Bits, y: usize, row: u64) {
        let o = y * self.stride;
        let (k, s) = (o >> 6, o & 63);
        x.0[k] |= row << s;
        if s + self.w > 64 {
            x.0[k + 1] |= row >> (64 - s);
        }
    }

    /// The points of row `y` of `x` as a mask (bit `x` for column `x`).
    #[inline]
    pub(crate) fn row(&self, x: &Bits, y: usize) -> u64 {
        let o = y * self.stride;
        let (k, s) = (o >> 6, o & 63);
        let mut r = x.0[k] >> s;
        if s + self.w > 64 {
            r |= x.0[k + 1] << (64 - s);
        }
        r & ((1u64 << self.w) - 1)
    }

    /// `x` as one flag per point, row-major (`width` per row).
    pub(crate) fn flags(&self, x: &Bits) -> Vec<bool> {
        let mut out = Vec::with_capacity(self.w * self.h);
        for y in 0..self.h {
            let row = self.row(x, y);
            out.extend((0..self.w).map(|c| row >> c & 1 != 0));
        }
        out
    }

    /// The runs of `x` along the rows, joined into connected parts: a run joins the runs of
    /// the row above that it overlaps (union-find whose root is a part's first run).
    pub(crate) fn runs(&self, x: &Bits) -> Runs {
        let mut out = Runs {
            runs: Vec::new(),
            root: Vec::new(),
        };
        self.runs_into(x, &mut out);
        out
    }

    /// [`Grid::runs`] into `out`, whose vectors are emptied and reused.
    pub(crate) fn runs_into(&self, x: &Bits, out: &mut Runs) {
        fn find(parent: &mut [u32], mut i: usize) -> usize {
            while parent[i] as usize != i {
                let up = parent[i] as usize;
                parent[i] = parent[up];
                i = up;
            }
            i
        }
        // (A finished game's open points make about six runs a row: room for eight, so
        // that the vectors are not grown on the way.)
        let mut runs = std::mem::take(&mut out.runs);
        let mut parent = std::mem::take(&mut out.root);
        runs.clear();
        parent.clear();
        runs.reserve(8 * self.h);
        parent.reserve(8 * self.h);
        let mut above = 0..0;
        for y in 0..self.h {
            let mut r = self.row(x, y);
            let here = runs.len();
            while r != 0 {
                let lo = r.trailing_zeros();
                let len = (!(r >> lo)).trailing_zeros();
                let mask = ((1u64 << len) - 1) << lo;
                r &= !mask;
                let id = runs.len();
                parent.push(id as u32);
                // Runs go left to right in both rows: the runs above that end before this
                // one starts are passed for good, and the walk stops at the first that
                // starts after it ends (it may still touch the next run here).
                while above.start < above.end {
                    let (_, alo, alen, _) = runs[above.start];
                    if alo + alen > lo {
                        break;
                    }
                    above.start += 1;
                }
                for j in above.clone() {
                    if runs[j].1 >= lo + len {
                        break;
                    }
                    let (x, z) = (find(&mut parent, j), find(&mut parent, id));
                    let (lo_root, hi_root) = (x.min(z), x.max(z));
                    parent[hi_root] = lo_root as u32;
                }
                runs.push((y, lo, len, mask));
            }
            above = here..runs.len();
        }
        // Roots come before the runs under them, so one pass in order settles every run.
        for j in 0..parent.len() {
            parent[j] = parent[parent[j] as usize];
        }
        *out = Runs { runs, root: parent };
    }

    /// The bit of point index `i` (row-major, `width` per row).
    #[inline]
    pub(crate) fn bit(&self, i: usize) -> usize {
        i + i / self.w
    }

    /// The point index of bit `b` (which must be on the board).
    #[inline]
    pub(crate) fn point(&self, b: usize) -> usize {
        b - b / self.stride
    }

    /// The points next to a point of `x`, `x` itself included.
    #[inline]
    pub(crate) fn dilate(&self, x: Bits) -> Bits {
        let s = self.stride as u32;
        x.or(x.up(1))
            .or(x.down(1))
            .or(x.up(s))
            .or(x.down(s))
            .and(self.board)
    }

    /// The points of the board.
    #[inline]
    pub(crate) fn board(&self) -> Bits {
        self.board
    }

    /// The points with at least two neighbours in `x`.
    #[inline]
    pub(crate) fn two_neighbours_in(&self, x: Bits) -> Bits {
        let s = self.stride as u32;
        // (A point's right neighbour is in `x` when its bit is set in `x` moved down by one,
        // and so on; guard bits are never in `x`.)
        let (r, l, d, u) = (x.down(1), x.up(1), x.down(s), x.up(s));
        let two = Bits(std::array::from_fn(|k| {
            let (r, l, d, u) = (r.0[k], l.0[k], d.0[k], u.0[k]);
            (r & l) | (d & u) | ((r | l) & (d | u))
        }));
        two.and(self.board)
    }

    /// The part of `within` connected to `seed` (which must lie in `within`, as `within`
    /// must lie on the board).
    ///
    /// One dilation per step, masked by `within` alone (which holds no guard bit or point
    /// off the board). The usual board sizes get a copy of the loop with their row stride
    /// as a constant: shifts by a constant are single instructions, and the loop keeps its
    /// words in registers.
    pub(crate) fn flood(&self, seed: Bits, within: Bits) -> Bits {
        #[inline(always)]
        fn fill(seed: Bits, within: Bits, s: u32) -> Bits {
            let mut x = seed;
            loop {
                let y = x
                    .or(x.up(1))
                    .or(x.down(1))
                    .or(x.up(s))
                    .or(x.down(s))
                    .and(within);
                if y == x {
                    return x;
                }
                x = y;
            }
        }
        match self.stride {
            20 => fill(seed, within, 20),
            14 => fill(seed, within, 14),
            10 => fill(seed, within, 10),
            s => fill(seed, within, s as u32),
        }
    }
}

/// A position in bitboards: living stones of each colour, the points that are not living
/// stones, and the stones marked dead.
pub(crate) struct Planes {
    pub(crate) g: Grid,
    pub(crate) black: Bits,
    pub(crate) white: Bits,
    /// Points that are not living stones (empty points and dead stones).
    pub(crate) open: Bits,
    /// Stones marked dead (a part of `open`).
    pub(crate) dead: Bits,
    pub(crate) dead_black: Bits,
}

impl Planes {
    /// From the cells of `pos` and its living stones. Eight points at a time: their cells
    /// and living flags as bytes (0 or 1 each once masked) in a word, packed into eight
    /// bits by one multiplication, into bitboards without guard bits (`width` per row),
    /// then moved into place a row at a time.
    pub(crate) fn new(g: Grid, pos: &Position, live: &[bool]) -> Planes {
        // Byte `k` of `v` (0 or 1) to bit `k` of the result: the products' terms for
        // byte `k` land on bit 56 + k, no two terms on one bit, so nothing carries.
        #[inline(always)]
        fn pack(v: u64) -> u64 {
            v.wrapping_mul(0x0102_0408_1020_4080) >> 56
        }
        const ONES: u64 = 0x0101_0101_0101_0101;
        let n = pos.len();
        // Living Black, living White, Black stones.
        let (mut black, mut white, mut stones) = ([0u64; WORDS], [0u64; WORDS], [0u64; WORDS]);
        let mut all = [0u64; WORDS];
        let (cells, live) = (pos.cells(), &live[..n]);
        let mut put = |k: usize, c: u64, l: u64| {
            // (Stone is 0 empty, 1 Black, 2 White.)
            let (is_b, is_w) = (c & ONES, (c >> 1) & ONES);
            let sh = k & 63;
            black[k >> 6] |= pack(is_b & l) << sh;
            white[k >> 6] |= pack(is_w & l) << sh;
            stones[k >> 6] |= pack(is_b) << sh;
            all[k >> 6] |= pack(is_b | is_w) << sh;
        };
        let (c8, l8) = (cells.chunks_exact(8), live.chunks_exact(8));
        let (c_tail, l_tail) = (c8.remainder(), l8.remainder());
        for (k, (c, l)) in c8.zip(l8).enumerate() {
            let (c, l): (&[Stone; 8], &[bool; 8]) = (c.try_into().unwrap(), l.try_into().unwrap());
            put(
                8 * k,
                u64::from_le_bytes(c.map(|s| s as u8)),
                u64::from_le_bytes(l.map(u8::from)),
            );
        }
        let (mut c, mut l) = ([0u8; 8], [0u8; 8]);
        for (j, (&s, &v)) in c_tail.iter().zip(l_tail).enumerate() {
            c[j] = s as u8;
            l[j] = u8::from(v);
        }
        put(
            n - c_tail.len(),
            u64::from_le_bytes(c),
            u64::from_le_bytes(l),
        );
        let flat = Grid {
            w: g.w,
            h: g.h,
            stride: g.w,
            board: Bits::EMPTY,
        };
        let (mut b, mut wh, mut bs, mut st) = (Bits::EMPTY, Bits::EMPTY, Bits::EMPTY, Bits::EMPTY);
        for y in 0..g.h {
            g.put_row(&mut b, y, flat.row(&Bits(black), y));
            g.put_row(&mut wh, y, flat.row(&Bits(white), y));
            g.put_row(&mut bs, y, flat.row(&Bits(stones), y));
            g.put_row(&mut st, y, flat.row(&Bits(all), y));
        }
        let living = b.or(wh);
        Planes {
            black: b,
            white: wh,
            open: g.board.and_not(living),
            dead: st.and_not(living),
            dead_black: bs.and_not(b),
            g,
        }
    }

    /// The points of the areas (connected parts of `open`) that touch a stone of `stones`.
    #[inline]
    pub(crate) fn reached(&self, stones: Bits) -> Bits {
        let seeds = self.g.dilate(stones).and(self.open);
        if seeds.is_empty() {
            return seeds;
        }
        self.g.flood(seeds, self.open)
    }

    /// The areas (connected parts of `open`), found by their runs along the rows
    /// ([`Grid::runs`]), so the work goes by runs, not points. Areas are numbered in the
    /// order of their first points, as a point-by-point fill in board order numbers them.
    /// `by_black` is a union of areas: an area is Black's when it lies in it.
    pub(crate) fn areas(&self, by_black: Bits) -> Areas {
        let (w, h) = (self.g.w, self.g.h);
        let Runs { runs, root } = self.g.runs(&self.open);
        let mut out = Areas {
            id: vec![u32::MAX; w * h],
            size: Vec::with_capacity(runs.len()),
            dead: Vec::with_capacity(runs.len()),
            first: Vec::with_capacity(runs.len()),
            black: Vec::with_capacity(runs.len()),
        };
        // Per run that is a root, its area.
        let mut label = vec![u32::MAX; runs.len()];
        // (The rows of `dead` and `by_black` are read once per row, not per run.)
        let (mut row_y, mut dead, mut black) = (usize::MAX, 0, 0);
        for (j, &(y, lo, len, mask)) in runs.iter().enumerate() {
            if y != row_y {
                (row_y, dead, black) = (y, self.g.row(&self.dead, y), self.g.row(&by_black, y));
            }
            let root = root[j] as usize;
            let start = y * w + lo as usize;
            if root == j {
                label[j] = out.size.len() as u32;
                out.size.push(0);
                out.dead.push(0);
                out.first.push(start);
                out.black.push(black & mask != 0);
            }
            let a = label[root];
            out.id[start..start + len as usize].fill(a);
            out.size[a as usize] += len;
            out.dead[a as usize] += (dead & mask).count_ones();
        }
        out
    }
}

/// The runs of a set of points along the rows and its connected parts (see [`Grid::runs`]).
#[derive(Default)]
pub(crate) struct Runs {
    /// Per run: its row, first column, length and mask (bit `x` for column `x`).
    pub(crate) runs: Vec<(usize, u32, u32, u64)>,
    /// Per run, the first run of its connected part: runs are in board order, so that run
    /// holds the part's first point.
    pub(crate) root: Vec<u32>,
}

/// The areas of a position (see [`Planes::areas`]).
pub(crate) struct Areas {
    /// Per point, its area (`u32::MAX` on living stones).
    pub(crate) id: Vec<u32>,
    /// Per area: points, dead stones, first point, whether it is Black's.
    pub(crate) size: Vec<u32>,
    pub(crate) dead: Vec<u32>,
    pub(crate) first: Vec<usize>,
    pub(crate) black: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dilation and neighbour counts agree with the position's neighbour walk on boards of
    /// every shape that fits, corners and edges included.
    #[test]
    fn dilation_matches_neighbours() {
        for (w, h) in [
            (1u8, 1u8),
            (2, 5),
            (5, 2),
            (9, 9),
            (13, 13),
            (19, 19),
            (30, 12),
        ] {
            let pos =
                Position::from_cells(w, h, vec![Stone::Empty; usize::from(w) * usize::from(h)]);
            let g = Grid::new(&pos).unwrap();
            let n = pos.len();
            // A pseudo-random set: every third point and a few more.
            let member = |i: usize| i.is_multiple_of(3) || i % 7 == 2;
            let mut x = Bits::EMPTY;
            for i in (0..n).filter(|&i| member(i)) {
                x.set(g.bit(i));
            }
            let d = g.dilate(x);
            let two = g.two_neighbours_in(x);
            for i in 0..n {
                assert_eq!(g.point(g.bit(i)), i);
                let k = pos.neighbours(i).filter(|&m| member(m)).count();
                assert_eq!(d.has(g.bit(i)), member(i) || k > 0, "{w}x{h} point {i}");
                assert_eq!(two.has(g.bit(i)), k >= 2, "{w}x{h} point {i}");
            }
            // Rows out and back in.
            let mut z = Bits::EMPTY;
            for y in 0..usize::from(h) {
                let row = g.row(&x, y);
                for c in 0..usize::from(w) {
                    assert_eq!(row >> c & 1 != 0, member(y * usize::from(w) + c));
                }
                assert_eq!(row >> w, 0);
                g.put_row(&mut z, y, row);
            }
            assert!(z == x, "{w}x{h} rows");
            assert_eq!(g.flags(&x), (0..n).map(member).collect::<Vec<_>>());
            let on_board: Vec<usize> = d.iter().map(|b| g.point(b)).collect();
            assert!(on_board.iter().all(|&i| i < n));
        }
        assert!(Grid::new(&Position::empty(20, 19)).is_none());
    }

    /// The flood agrees with a point-by-point fill on every board shape that fits (the
    /// strides it has a constant for and the others), on random sets and seeds.
    #[test]
    fn flood_matches_a_fill() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut shapes = 0;
        for w in 1..=52u8 {
            for h in 1..=52u8 {
                let pos = Position::empty(w, h);
                let Some(g) = Grid::new(&pos) else {
                    continue;
                };
                shapes += 1;
                let n = pos.len();
                for _ in 0..4 {
                    // Dense enough that parts are long and winding.
                    let p = rng.random_range(0.4..0.8);
                    let inside: Vec<bool> = (0..n).map(|_| rng.random_bool(p)).collect();
                    let points: Vec<usize> = (0..n).filter(|&i| inside[i]).collect();
                    if points.is_empty() {
                        continue;
                    }
                    let mut within = Bits::EMPTY;
                    points.iter().for_each(|&i| within.set(g.bit(i)));
                    let (mut seed, mut want) = (Bits::EMPTY, vec![false; n]);
                    let mut stack = Vec::new();
                    for _ in 0..rng.random_range(1..=3) {
                        let i = points[rng.random_range(0..points.len())];
                        seed.set(g.bit(i));
                        want[i] = true;
                        stack.push(i);
                    }
                    while let Some(i) = stack.pop() {
                        for m in pos.neighbours(i) {
                            if inside[m] && !want[m] {
                                want[m] = true;
                                stack.push(m);
                            }
                        }
                    }
                    assert_eq!(g.flags(&g.flood(seed, within)), want, "{w}x{h}");
                }
            }
        }
        assert!(shapes > 500, "{shapes} shapes");
    }
}
