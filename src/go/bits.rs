//! Bitboards for the scoring fast path: one bit per point, rows `width + 1` bits apart so
//! that every row ends in a guard bit that is never set. A shift by one then moves a point
//! to its left or right neighbour, or into a guard bit (masked off), and a shift by the row
//! stride to the neighbour above or below, so "the points next to a set" (dilation) is four
//! shifts, three ors and a mask instead of a neighbour walk per point.
//!
//! Fixed at [`WORDS`] words (boards whose `(width + 1) × height` fits: 19×19 and smaller);
//! larger boards keep the point-by-point code.

use super::position::Position;

/// Words per bitboard: 384 bits, enough for 19×19 (20 × 19 = 380 bits).
pub(crate) const WORDS: usize = 6;

/// A set of points.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Bits(pub(crate) [u64; WORDS]);

impl Bits {
    pub(crate) const EMPTY: Bits = Bits([0; WORDS]);

    #[inline]
    pub(crate) fn set(&mut self, b: usize) {
        self.0[b >> 6] |= 1 << (b & 63);
    }

    #[cfg(test)]
    pub(crate) fn has(&self, b: usize) -> bool {
        self.0[b >> 6] >> (b & 63) & 1 != 0
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
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
pub(crate) struct Grid {
    w: usize,
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
        let mut board = Bits::EMPTY;
        for y in 0..h {
            for x in 0..w {
                board.set(y * stride + x);
            }
        }
        Some(Grid { w, stride, board })
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

    /// The part of `within` connected to `seed` (which must lie in `within`).
    pub(crate) fn flood(&self, seed: Bits, within: Bits) -> Bits {
        let mut x = seed;
        loop {
            let y = self.dilate(x).and(within);
            if y == x {
                return x;
            }
            x = y;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Stone;

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
            let on_board: Vec<usize> = d.iter().map(|b| g.point(b)).collect();
            assert!(on_board.iter().all(|&i| i < n));
        }
        assert!(Grid::new(&Position::empty(20, 19)).is_none());
    }
}
