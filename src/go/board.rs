//! The rules engine's board: a rectangular grid (1..=52 on each side) with a border of
//! sentinel cells so neighbour walks need no bounds checks, a Zobrist position hash kept up
//! to date on every change, capture counts per colour and the simple-ko point.
//!
//! Groups are found by flood fill with a generation-stamped mark array (no clearing per
//! move) and an early exit as soon as one liberty is seen: on real games this is cheaper
//! than maintaining incremental chains, and it makes undo of a single move trivial (the
//! move records what it removed), which is how superko rejects a move after trying it.

use crate::sgf::{Colour, Point};

/// What is on a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Stone {
    Empty = 0,
    Black = 1,
    White = 2,
}

const BORDER: u8 = 3;

impl Stone {
    pub fn of(colour: Colour) -> Stone {
        match colour {
            Colour::Black => Stone::Black,
            Colour::White => Stone::White,
        }
    }

    pub fn colour(self) -> Option<Colour> {
        match self {
            Stone::Empty => None,
            Stone::Black => Some(Colour::Black),
            Stone::White => Some(Colour::White),
        }
    }

    /// `b`, `w` or `.` as in the golden board rows.
    pub fn letter(self) -> char {
        match self {
            Stone::Empty => '.',
            Stone::Black => 'b',
            Stone::White => 'w',
        }
    }

    fn from_u8(v: u8) -> Stone {
        match v {
            1 => Stone::Black,
            2 => Stone::White,
            _ => Stone::Empty,
        }
    }
}

/// The other colour.
pub fn opponent(c: Colour) -> Colour {
    match c {
        Colour::Black => Colour::White,
        Colour::White => Colour::Black,
    }
}

pub(crate) fn colour_index(c: Colour) -> usize {
    match c {
        Colour::Black => 0,
        Colour::White => 1,
    }
}

/// A point in board coordinates: `x` = column from the left, `y` = row from the **top**
/// (SGF's orientation; `aa` is (0, 0)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Xy {
    pub x: u8,
    pub y: u8,
}

impl Xy {
    pub fn new(x: u8, y: u8) -> Xy {
        Xy { x, y }
    }

    /// From the SGF library's point (row counted from the bottom) on a board `height` high.
    pub fn from_point(p: Point, height: u8) -> Option<Xy> {
        (p.row < height).then(|| Xy::new(p.col, height - 1 - p.row))
    }

    /// Two SGF letters (`a`–`z`, then `A`–`Z`).
    pub fn to_sgf(self) -> String {
        [sgf_letter(self.x), sgf_letter(self.y)].iter().collect()
    }

    /// Parses two SGF letters; `None` if malformed.
    pub fn parse_sgf(s: &str) -> Option<Xy> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        Some(Xy::new(sgf_index(b[0])?, sgf_index(b[1])?))
    }

    /// GTP vertex (`A`–`Z` without `I`, row counted from the bottom), for boards up to 25.
    pub fn to_gtp(self, height: u8) -> String {
        const COLS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
        match COLS.get(self.x as usize) {
            Some(&c) if self.y < height => format!("{}{}", c as char, height - self.y),
            _ => self.to_sgf(),
        }
    }
}

fn sgf_letter(i: u8) -> char {
    if i < 26 {
        (b'a' + i) as char
    } else {
        (b'A' + (i - 26)) as char
    }
}

fn sgf_index(c: u8) -> Option<u8> {
    match c {
        b'a'..=b'z' => Some(c - b'a'),
        b'A'..=b'Z' => Some(c - b'A' + 26),
        _ => None,
    }
}

/// Largest side the engine supports (SGF letters `a`–`z`, `A`–`Z`).
pub const MAX_SIDE: u8 = 52;

/// Why a move cannot be played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegal {
    OffBoard,
    Occupied,
    Suicide,
    /// Retaking a simple ko immediately.
    Ko,
    PositionalSuperko,
    SituationalSuperko,
    /// The same colour moved twice (only when alternation is enforced).
    WrongColour,
}

impl Illegal {
    /// Stable machine-readable name.
    pub fn code(self) -> &'static str {
        match self {
            Illegal::OffBoard => "off_board",
            Illegal::Occupied => "occupied",
            Illegal::Suicide => "suicide",
            Illegal::Ko => "ko",
            Illegal::PositionalSuperko => "positional_superko",
            Illegal::SituationalSuperko => "situational_superko",
            Illegal::WrongColour => "wrong_colour",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Illegal::OffBoard => "point off the board",
            Illegal::Occupied => "point occupied",
            Illegal::Suicide => "suicide",
            Illegal::Ko => "retakes a ko immediately",
            Illegal::PositionalSuperko => "repeats an earlier position (positional superko)",
            Illegal::SituationalSuperko => {
                "repeats an earlier position with the same player to move (situational superko)"
            }
            Illegal::WrongColour => "the same colour moved twice",
        }
    }
}

/// Which suicides are legal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuicideRule {
    /// No suicide (Japanese, Chinese, AGA, Korean).
    Forbidden,
    /// Multi-stone suicide legal; a single stone killing only itself is not (NZ, Tromp-Taylor,
    /// Ing).
    MultiStone,
    /// Every suicide, single stones too (sgfmill's reference board: compat replay).
    All,
}

/// What one successful `play` did (enough to undo it).
#[derive(Debug, Clone, Default)]
pub struct MoveRecord {
    pub point: usize,
    pub colour_stone: u8,
    /// Opponent stones removed.
    pub captured: Vec<usize>,
    /// Own stones removed by a suicide (the played stone included).
    pub suicided: Vec<usize>,
    prev_ko: Option<(usize, u8)>,
    prev_hash: u64,
}

/// The board.
#[derive(Debug, Clone)]
pub struct Board {
    width: u8,
    height: u8,
    stride: usize,
    cells: Vec<u8>,
    hash: u64,
    /// Stones captured by Black, by White (suicided stones count for the opponent).
    captures: [u32; 2],
    /// The point the given colour may not play next because of simple ko.
    ko: Option<(usize, u8)>,
    marks: Vec<u32>,
    generation: u32,
    stack: Vec<usize>,
    group: Vec<usize>,
}

/// Zobrist key of a stone: a SplitMix64 of (cell, colour), computed rather than tabled so
/// any board size works without a big static table.
#[inline]
fn zobrist(cell: usize, stone: u8) -> u64 {
    let mut z = (cell as u64)
        .wrapping_mul(4)
        .wrapping_add(stone as u64)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Board {
    /// An empty square board; `None` outside 1..=52.
    pub fn new(size: u8) -> Option<Board> {
        Board::rect(size, size)
    }

    /// An empty `width` × `height` board.
    pub fn rect(width: u8, height: u8) -> Option<Board> {
        if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
            return None;
        }
        let stride = width as usize + 2;
        let len = stride * (height as usize + 2);
        let mut cells = vec![BORDER; len];
        for y in 0..height as usize {
            for x in 0..width as usize {
                cells[(y + 1) * stride + x + 1] = 0;
            }
        }
        Some(Board {
            width,
            height,
            stride,
            cells,
            hash: 0,
            captures: [0, 0],
            ko: None,
            marks: vec![0; len],
            generation: 0,
            stack: Vec::with_capacity(64),
            group: Vec::with_capacity(64),
        })
    }

    pub fn width(&self) -> u8 {
        self.width
    }

    pub fn height(&self) -> u8 {
        self.height
    }

    /// The Zobrist hash of the stones (not of the side to move or the ko point).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Stones captured by `c` (including opponent suicides).
    pub fn captures(&self, c: Colour) -> u32 {
        self.captures[colour_index(c)]
    }

    /// Cell index of a point, if it is on the board.
    pub fn index(&self, p: Xy) -> Option<usize> {
        (p.x < self.width && p.y < self.height)
            .then(|| (p.y as usize + 1) * self.stride + p.x as usize + 1)
    }

    /// The point of a cell index (which must be on the board).
    pub fn xy(&self, i: usize) -> Xy {
        Xy::new((i % self.stride - 1) as u8, (i / self.stride - 1) as u8)
    }

    pub fn get(&self, p: Xy) -> Stone {
        self.index(p)
            .map_or(Stone::Empty, |i| Stone::from_u8(self.cells[i]))
    }

    pub fn at(&self, i: usize) -> Stone {
        Stone::from_u8(self.cells[i])
    }

    /// Every on-board cell index, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.height as usize)
            .flat_map(move |y| (0..self.width as usize).map(move |x| (y + 1) * self.stride + x + 1))
    }

    /// The simple-ko point forbidden to `c` on its next move.
    pub fn ko_point(&self, c: Colour) -> Option<Xy> {
        let s = Stone::of(c) as u8;
        self.ko.filter(|&(_, k)| k == s).map(|(i, _)| self.xy(i))
    }

    pub fn count(&self, s: Stone) -> usize {
        self.points().filter(|&i| self.cells[i] == s as u8).count()
    }

    /// Rows from the top as strings of `b`, `w` and `.`.
    pub fn rows(&self) -> Vec<String> {
        (0..self.height)
            .map(|y| {
                (0..self.width)
                    .map(|x| self.get(Xy::new(x, y)).letter())
                    .collect()
            })
            .collect()
    }

    #[inline]
    fn neighbours(&self, i: usize) -> [usize; 4] {
        [i - 1, i + 1, i - self.stride, i + self.stride]
    }

    fn set_cell(&mut self, i: usize, s: u8) {
        let old = self.cells[i];
        if old != 0 {
            self.hash ^= zobrist(i, old);
        }
        if s != 0 {
            self.hash ^= zobrist(i, s);
        }
        self.cells[i] = s;
    }

    fn next_generation(&mut self) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.generation = 1;
        }
        self.generation
    }

    /// Whether the chain at `i` has a liberty (early exit).
    fn has_liberty(&mut self, i: usize) -> bool {
        let colour = self.cells[i];
        let g = self.next_generation();
        self.stack.clear();
        self.stack.push(i);
        self.marks[i] = g;
        while let Some(j) = self.stack.pop() {
            for n in self.neighbours(j) {
                let c = self.cells[n];
                if c == 0 {
                    return true;
                }
                if c == colour && self.marks[n] != g {
                    self.marks[n] = g;
                    self.stack.push(n);
                }
            }
        }
        false
    }

    /// The chain at `i` into `self.group`.
    fn collect_chain(&mut self, i: usize) {
        let colour = self.cells[i];
        let g = self.next_generation();
        self.group.clear();
        self.group.push(i);
        self.marks[i] = g;
        let mut k = 0;
        while k < self.group.len() {
            let j = self.group[k];
            k += 1;
            for n in self.neighbours(j) {
                if self.cells[n] == colour && self.marks[n] != g {
                    self.marks[n] = g;
                    self.group.push(n);
                }
            }
        }
    }

    /// The chain containing point `i` (cell indices); empty for an empty point.
    pub fn chain(&mut self, i: usize) -> Vec<usize> {
        if self.cells[i] == 0 || self.cells[i] == BORDER {
            return Vec::new();
        }
        self.collect_chain(i);
        self.group.clone()
    }

    /// Plays `colour` at cell `i`: captures first, then the played chain if it has no
    /// liberties (when the suicide rule allows it). Simple ko is checked when `check_ko`.
    /// On failure nothing changes.
    pub fn play(
        &mut self,
        i: usize,
        colour: Colour,
        suicide: SuicideRule,
        check_ko: bool,
    ) -> Result<MoveRecord, Illegal> {
        let mut rec = MoveRecord::default();
        self.play_into(i, colour, suicide, check_ko, &mut rec)?;
        Ok(rec)
    }

    /// `play` reusing a record's buffers (the replay hot path).
    pub fn play_into(
        &mut self,
        i: usize,
        colour: Colour,
        suicide: SuicideRule,
        check_ko: bool,
        rec: &mut MoveRecord,
    ) -> Result<(), Illegal> {
        match self.cells.get(i) {
            Some(0) => {}
            Some(1 | 2) => return Err(Illegal::Occupied),
            _ => return Err(Illegal::OffBoard),
        }
        let me = Stone::of(colour) as u8;
        let opp = 3 - me;
        if check_ko && self.ko == Some((i, me)) {
            return Err(Illegal::Ko);
        }
        rec.point = i;
        rec.colour_stone = me;
        rec.captured.clear();
        rec.suicided.clear();
        rec.prev_ko = self.ko;
        rec.prev_hash = self.hash;
        // Surrounded on all sides by the opponent (or the edge): the shape of a ko capture.
        let enclosed = self
            .neighbours(i)
            .iter()
            .all(|&n| self.cells[n] == opp || self.cells[n] == BORDER);
        self.set_cell(i, me);
        for n in self.neighbours(i) {
            if self.cells[n] == opp && !self.has_liberty(n) {
                self.collect_chain(n);
                for k in 0..self.group.len() {
                    let j = self.group[k];
                    self.set_cell(j, 0);
                    rec.captured.push(j);
                }
            }
        }
        if rec.captured.is_empty() && !self.has_liberty(i) {
            self.collect_chain(i);
            let allowed = match suicide {
                SuicideRule::Forbidden => false,
                SuicideRule::MultiStone => self.group.len() > 1,
                SuicideRule::All => true,
            };
            if !allowed {
                self.set_cell(i, 0);
                return Err(Illegal::Suicide);
            }
            for k in 0..self.group.len() {
                let j = self.group[k];
                self.set_cell(j, 0);
                rec.suicided.push(j);
            }
            self.captures[colour_index(opponent(colour))] += rec.suicided.len() as u32;
        }
        self.captures[colour_index(colour)] += rec.captured.len() as u32;
        self.ko = (enclosed && rec.captured.len() == 1).then(|| (rec.captured[0], opp));
        Ok(())
    }

    /// Undoes the move `rec` describes (it must be the last change made).
    pub fn undo(&mut self, rec: &MoveRecord) {
        let me = rec.colour_stone;
        let opp = 3 - me;
        for &j in &rec.suicided {
            self.cells[j] = me;
        }
        for &j in &rec.captured {
            self.cells[j] = opp;
        }
        self.cells[rec.point] = 0;
        let me_c = if me == 1 {
            Colour::Black
        } else {
            Colour::White
        };
        self.captures[colour_index(me_c)] -= rec.captured.len() as u32;
        self.captures[colour_index(opponent(me_c))] -= rec.suicided.len() as u32;
        self.ko = rec.prev_ko;
        self.hash = rec.prev_hash;
    }

    /// A pass clears the ko point.
    pub fn pass(&mut self) {
        self.ko = None;
    }

    /// Puts (or removes, with `Stone::Empty`) a stone without any rule: setup properties.
    pub fn set(&mut self, i: usize, s: Stone) {
        self.set_cell(i, s as u8);
        self.ko = None;
    }

    /// Removes every chain without liberties (after setup); returns how many stones went.
    pub fn remove_dead_chains(&mut self) -> usize {
        let mut removed = 0;
        let pts: Vec<usize> = self.points().collect();
        for i in pts {
            if self.cells[i] != 0 && !self.has_liberty(i) {
                self.collect_chain(i);
                for k in 0..self.group.len() {
                    let j = self.group[k];
                    self.set_cell(j, 0);
                }
                removed += self.group.len();
            }
        }
        removed
    }

    /// The stones as a scoring position (row-major from the top).
    pub fn position(&self) -> crate::go::Position {
        crate::go::Position::from_cells(
            self.width,
            self.height,
            self.points()
                .map(|i| Stone::from_u8(self.cells[i]))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(size: u8) -> Board {
        Board::new(size).unwrap()
    }

    fn pt(bd: &Board, s: &str) -> usize {
        bd.index(Xy::parse_sgf(s).unwrap()).unwrap()
    }

    #[test]
    fn capture_single_stone_in_corner() {
        let mut bd = b(5);
        let (a, c, d) = (pt(&bd, "aa"), pt(&bd, "ba"), pt(&bd, "ab"));
        bd.play(a, Colour::White, SuicideRule::Forbidden, true)
            .unwrap();
        bd.play(c, Colour::Black, SuicideRule::Forbidden, true)
            .unwrap();
        let rec = bd
            .play(d, Colour::Black, SuicideRule::Forbidden, true)
            .unwrap();
        assert_eq!(rec.captured, vec![a]);
        assert_eq!(bd.get(Xy::new(0, 0)), Stone::Empty);
        assert_eq!(bd.captures(Colour::Black), 1);
    }

    #[test]
    fn suicide_rules() {
        let mut bd = b(3);
        bd.play(pt(&bd, "ba"), Colour::Black, SuicideRule::Forbidden, true)
            .unwrap();
        bd.play(pt(&bd, "ab"), Colour::Black, SuicideRule::Forbidden, true)
            .unwrap();
        let h = bd.hash();
        let aa = pt(&bd, "aa");
        assert_eq!(
            bd.play(aa, Colour::White, SuicideRule::Forbidden, true)
                .unwrap_err(),
            Illegal::Suicide
        );
        assert_eq!(
            bd.play(aa, Colour::White, SuicideRule::MultiStone, true)
                .unwrap_err(),
            Illegal::Suicide
        );
        assert_eq!(bd.hash(), h);
        let rec = bd.play(aa, Colour::White, SuicideRule::All, true).unwrap();
        assert_eq!(rec.suicided, vec![aa]);
        assert_eq!(bd.captures(Colour::Black), 1);
        assert_eq!(bd.hash(), h);
    }

    #[test]
    fn simple_ko_and_undo() {
        // . b w .
        // b w . w
        // . b w .
        let mut bd = b(4);
        for (c, s) in [
            (Colour::Black, "ba"),
            (Colour::Black, "ab"),
            (Colour::Black, "bc"),
            (Colour::White, "ca"),
            (Colour::White, "bb"),
            (Colour::White, "db"),
            (Colour::White, "cc"),
        ] {
            let i = pt(&bd, s);
            bd.play(i, c, SuicideRule::Forbidden, true).unwrap();
        }
        let before = bd.clone();
        let rec = bd
            .play(pt(&bd, "cb"), Colour::Black, SuicideRule::Forbidden, true)
            .unwrap();
        assert_eq!(rec.captured.len(), 1);
        assert_eq!(
            bd.ko_point(Colour::White),
            Some(Xy::parse_sgf("bb").unwrap())
        );
        assert_eq!(
            bd.play(pt(&bd, "bb"), Colour::White, SuicideRule::Forbidden, true)
                .unwrap_err(),
            Illegal::Ko
        );
        bd.undo(&rec);
        assert_eq!(bd.rows(), before.rows());
        assert_eq!(bd.hash(), before.hash());
    }

    #[test]
    fn one_by_one_board() {
        let mut bd = b(1);
        let i = pt(&bd, "aa");
        assert_eq!(
            bd.play(i, Colour::Black, SuicideRule::Forbidden, true)
                .unwrap_err(),
            Illegal::Suicide
        );
        assert!(bd.play(i, Colour::Black, SuicideRule::All, true).is_ok());
        assert_eq!(bd.count(Stone::Black), 0);
        assert!(Board::new(0).is_none());
        assert!(Board::new(53).is_none());
    }
}
