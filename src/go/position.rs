//! A static position for scoring: a rectangular grid of stones, row-major from the top
//! (Cinderblock's `[row, col]` with row 0 the first row of the board array; SGF's `aa` is
//! index 0). It is separate from the rules `Board` because scoring needs no border cells,
//! hashes or history, and Cinderblock's examples use rectangular boards.

use super::board::{MAX_SIDE, Stone, Xy};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    width: u8,
    height: u8,
    cells: Vec<Stone>,
    /// Per cell, which neighbours exist (bits: left, right, up, down): neighbour walks are
    /// the hot loop of scoring and this spares them a division per call.
    sides: Vec<u8>,
}

const LEFT: u8 = 1;
const RIGHT: u8 = 2;
const UP: u8 = 4;
const DOWN: u8 = 8;

/// The orthogonal neighbours of one cell.
#[derive(Debug, Clone)]
pub struct Neighbours {
    arr: [usize; 4],
    len: u8,
    k: u8,
}

impl Iterator for Neighbours {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.k < self.len {
            let v = self.arr[self.k as usize];
            self.k += 1;
            Some(v)
        } else {
            None
        }
    }
}

impl Position {
    /// From cells row-major from the top; the length must be `width * height`.
    pub fn from_cells(width: u8, height: u8, cells: Vec<Stone>) -> Position {
        debug_assert_eq!(cells.len(), width as usize * height as usize);
        let (w, h) = (width as usize, height as usize);
        let sides = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                (if x > 0 { LEFT } else { 0 })
                    | (if x + 1 < w { RIGHT } else { 0 })
                    | (if y > 0 { UP } else { 0 })
                    | (if y + 1 < h { DOWN } else { 0 })
            })
            .collect();
        Position {
            width,
            height,
            cells,
            sides,
        }
    }

    /// An empty position.
    pub fn empty(width: u8, height: u8) -> Position {
        Position::from_cells(
            width,
            height,
            vec![Stone::Empty; width as usize * height as usize],
        )
    }

    /// From rows written top row first: `.`, `0`, `+` or `-` empty; `b`/`B`/`x`/`X` black;
    /// `w`/`W`/`o`/`O` white; spaces are ignored (Cinderblock's `0 w b` style).
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Position, String> {
        let mut cells = Vec::new();
        let mut width = None;
        for (y, row) in rows.iter().enumerate() {
            let mut n = 0;
            for ch in row.as_ref().chars() {
                let s = match ch {
                    '.' | '0' | '+' | '-' => Stone::Empty,
                    'b' | 'B' | 'x' | 'X' => Stone::Black,
                    'w' | 'W' | 'o' | 'O' => Stone::White,
                    ' ' => continue,
                    other => return Err(format!("row {y}: unexpected character {other:?}")),
                };
                cells.push(s);
                n += 1;
            }
            match width {
                None => width = Some(n),
                Some(w) if w != n => {
                    return Err(format!("row {y} has {n} points, row 0 has {w}"));
                }
                _ => {}
            }
        }
        let width = width.unwrap_or(0);
        let height = rows.len();
        if !(1..=MAX_SIDE as usize).contains(&width) || !(1..=MAX_SIDE as usize).contains(&height) {
            return Err(format!(
                "board must be 1 to {MAX_SIDE} points on each side, got {width}x{height}"
            ));
        }
        Ok(Position::from_cells(width as u8, height as u8, cells))
    }

    pub fn width(&self) -> u8 {
        self.width
    }

    pub fn height(&self) -> u8 {
        self.height
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.iter().all(|&s| s == Stone::Empty)
    }

    pub fn at(&self, i: usize) -> Stone {
        self.cells[i]
    }

    pub fn cells(&self) -> &[Stone] {
        &self.cells
    }

    pub fn index(&self, p: Xy) -> Option<usize> {
        (p.x < self.width && p.y < self.height)
            .then(|| p.y as usize * self.width as usize + p.x as usize)
    }

    pub fn xy(&self, i: usize) -> Xy {
        let w = self.width as usize;
        Xy::new((i % w) as u8, (i / w) as u8)
    }

    /// How many orthogonal neighbours cell `i` has (2 to 4 on boards of 2 or more per side).
    #[inline]
    pub fn degree(&self, i: usize) -> usize {
        self.sides[i].count_ones() as usize
    }

    /// Orthogonal neighbours of cell `i`.
    #[inline]
    pub fn neighbours(&self, i: usize) -> Neighbours {
        let w = self.width as usize;
        let f = self.sides[i];
        let mut arr = [0; 4];
        let mut len = 0;
        for (bit, n) in [
            (LEFT, i.wrapping_sub(1)),
            (RIGHT, i + 1),
            (UP, i.wrapping_sub(w)),
            (DOWN, i + w),
        ] {
            if f & bit != 0 {
                arr[len] = n;
                len += 1;
            }
        }
        Neighbours {
            arr,
            len: len as u8,
            k: 0,
        }
    }

    /// Calls `f` on each orthogonal neighbour of cell `i`, in the order of
    /// [`Position::neighbours`], without building the list: the flood fills of scoring run
    /// this for every point, and four tests cost less than filling and walking an array.
    #[inline(always)]
    pub fn for_each_neighbour(&self, i: usize, mut f: impl FnMut(usize)) {
        let w = self.width as usize;
        let s = self.sides[i];
        if s & LEFT != 0 {
            f(i - 1);
        }
        if s & RIGHT != 0 {
            f(i + 1);
        }
        if s & UP != 0 {
            f(i - w);
        }
        if s & DOWN != 0 {
            f(i + w);
        }
    }

    /// Rows from the top as `b`/`w`/`.` strings.
    pub fn rows(&self) -> Vec<String> {
        self.cells
            .chunks(self.width as usize)
            .map(|r| r.iter().map(|s| s.letter()).collect())
            .collect()
    }

    /// The chain through `i` (empty if `i` is empty).
    pub fn chain(&self, i: usize) -> Vec<usize> {
        let s = self.cells[i];
        if s == Stone::Empty {
            return Vec::new();
        }
        self.flood(i, |t| t == s)
    }

    /// Cinderblock's floodfill: breadth-first from `start` (always included, untested);
    /// a neighbour joins when `cond` holds for its content.
    pub fn flood(&self, start: usize, cond: impl Fn(Stone) -> bool) -> Vec<usize> {
        let mut seen = vec![false; self.cells.len()];
        let mut out = vec![start];
        seen[start] = true;
        let mut k = 0;
        while k < out.len() {
            let j = out[k];
            k += 1;
            for n in self.neighbours(j) {
                if !seen[n] {
                    seen[n] = true;
                    if cond(self.cells[n]) {
                        out.push(n);
                    }
                }
            }
        }
        out
    }
}
