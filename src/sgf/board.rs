//! sgfmill's reference `Board`: just enough Go to check a setup position and replay a
//! record the way sgfmill does (suicide allowed, ko not enforced). The real rules engine is
//! `crate::go`; this one exists so `get_setup_and_moves` can say `setup position not legal`
//! exactly when sgfmill does.

use std::collections::BTreeSet;

use super::error::SgfError;
use super::props::{Colour, Point};

/// A board of `size` columns and `height` rows (square unless built with `new_rect`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    size: u8,
    height: u8,
    cells: Vec<Option<Colour>>,
}

struct Group {
    colour: Colour,
    points: Vec<usize>,
    surrounded: bool,
}

impl Board {
    pub fn new(size: u8) -> Board {
        Board::new_rect(size, size)
    }

    /// A `width` × `height` board (the rectangular-boards leniency).
    pub fn new_rect(width: u8, height: u8) -> Board {
        Board {
            size: width,
            height,
            cells: vec![None; usize::from(width) * usize::from(height)],
        }
    }

    /// The width (the size of a square board).
    pub fn size(&self) -> u8 {
        self.size
    }

    pub fn height(&self) -> u8 {
        self.height
    }

    fn idx(&self, p: Point) -> usize {
        usize::from(p.row) * usize::from(self.size) + usize::from(p.col)
    }

    fn in_range(&self, p: Point) -> bool {
        p.row < self.height && p.col < self.size
    }

    pub fn get(&self, p: Point) -> Option<Colour> {
        if !self.in_range(p) {
            return None;
        }
        self.cells[self.idx(p)]
    }

    pub fn is_empty(&self) -> bool {
        self.cells.iter().all(Option::is_none)
    }

    fn neighbours(&self, i: usize) -> impl Iterator<Item = usize> {
        let n = usize::from(self.size);
        let h = usize::from(self.height);
        let (r, c) = (i / n, i % n);
        let mut out = [usize::MAX; 4];
        if r > 0 {
            out[0] = i - n;
        }
        if r + 1 < h {
            out[1] = i + n;
        }
        if c > 0 {
            out[2] = i - 1;
        }
        if c + 1 < n {
            out[3] = i + 1;
        }
        out.into_iter().filter(|&x| x != usize::MAX)
    }

    fn group(&self, start: usize, colour: Colour) -> Group {
        let mut seen = vec![start];
        let mut todo = vec![start];
        let mut surrounded = true;
        while let Some(i) = todo.pop() {
            for nb in self.neighbours(i) {
                match self.cells[nb] {
                    None => surrounded = false,
                    Some(c) if c == colour && !seen.contains(&nb) => {
                        seen.push(nb);
                        todo.push(nb);
                    }
                    _ => {}
                }
            }
        }
        Group {
            colour,
            points: seen,
            surrounded,
        }
    }

    fn surrounded_groups(&self, around: &[usize]) -> Vec<Group> {
        let mut handled = vec![false; self.cells.len()];
        let mut out = Vec::new();
        for &i in around {
            let Some(colour) = self.cells[i] else {
                continue;
            };
            if handled[i] {
                continue;
            }
            let g = self.group(i, colour);
            for &p in &g.points {
                handled[p] = true;
            }
            if g.surrounded {
                out.push(g);
            }
        }
        out
    }

    /// Plays a stone. Returns the simple-ko point, if the move created one.
    pub fn play(&mut self, p: Point, colour: Colour) -> Result<Option<Point>, SgfError> {
        if !self.in_range(p) {
            return Err(SgfError::value("point off the board"));
        }
        let i = self.idx(p);
        if self.cells[i].is_some() {
            return Err(SgfError::value("point occupied"));
        }
        self.cells[i] = Some(colour);
        let mut around = vec![i];
        around.extend(self.neighbours(i));
        let surrounded = self.surrounded_groups(&around);
        let to_capture: Vec<&Group> = if surrounded.len() == 1 {
            surrounded.iter().collect()
        } else {
            surrounded.iter().filter(|g| g.colour != colour).collect()
        };
        for g in &to_capture {
            for &q in &g.points {
                self.cells[q] = None;
            }
        }
        // Ko: one single stone captured, and the new stone is alone with one liberty.
        if to_capture.len() == 1
            && to_capture[0].points.len() == 1
            && to_capture[0].colour != colour
        {
            let lone = self.neighbours(i).all(|nb| self.cells[nb] != Some(colour));
            let libs = self
                .neighbours(i)
                .filter(|&nb| self.cells[nb].is_none())
                .count();
            if lone && libs == 1 {
                let q = to_capture[0].points[0];
                let n = usize::from(self.size);
                return Ok(Some(Point::new((q / n) as u8, (q % n) as u8)));
            }
        }
        Ok(None)
    }

    /// Sets the points, then removes every group without liberties. True if nothing had to
    /// be removed.
    pub fn apply_setup(
        &mut self,
        black: &BTreeSet<Point>,
        white: &BTreeSet<Point>,
        empty: &BTreeSet<Point>,
    ) -> bool {
        for (set, colour) in [
            (black, Some(Colour::Black)),
            (white, Some(Colour::White)),
            (empty, None),
        ] {
            for &p in set {
                if self.in_range(p) {
                    let i = self.idx(p);
                    self.cells[i] = colour;
                }
            }
        }
        let all: Vec<usize> = (0..self.cells.len()).collect();
        let captured = self.surrounded_groups(&all);
        for g in &captured {
            for &q in &g.points {
                self.cells[q] = None;
            }
        }
        captured.is_empty()
    }

    /// Every stone and its colour, sorted by point.
    pub fn stones(&self) -> Vec<(Colour, Point)> {
        let n = usize::from(self.size);
        let mut out: Vec<(Colour, Point)> = self
            .cells
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.map(|c| (c, Point::new((i / n) as u8, (i % n) as u8))))
            .collect();
        out.sort();
        out
    }

    /// Rows from the top down, `b`/`w`/`.`.
    pub fn rows(&self) -> Vec<String> {
        let n = usize::from(self.size);
        (0..usize::from(self.height))
            .rev()
            .map(|r| {
                (0..n)
                    .map(|c| match self.cells[r * n + c] {
                        Some(Colour::Black) => 'b',
                        Some(Colour::White) => 'w',
                        None => '.',
                    })
                    .collect()
            })
            .collect()
    }

    /// Area score B − W with every stone alive and no komi.
    pub fn area_score(&self) -> i64 {
        let mut score = 0i64;
        let mut seen = vec![false; self.cells.len()];
        for i in 0..self.cells.len() {
            match self.cells[i] {
                Some(Colour::Black) => score += 1,
                Some(Colour::White) => score -= 1,
                None if !seen[i] => {
                    let mut region = vec![i];
                    let mut todo = vec![i];
                    seen[i] = true;
                    let (mut b, mut w) = (false, false);
                    while let Some(x) = todo.pop() {
                        for nb in self.neighbours(x) {
                            match self.cells[nb] {
                                Some(Colour::Black) => b = true,
                                Some(Colour::White) => w = true,
                                None if !seen[nb] => {
                                    seen[nb] = true;
                                    region.push(nb);
                                    todo.push(nb);
                                }
                                None => {}
                            }
                        }
                    }
                    let len = region.len() as i64;
                    if b {
                        score += len;
                    }
                    if w {
                        score -= len;
                    }
                }
                None => {}
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str, size: u8) -> Point {
        Point::from_sgf(s.as_bytes(), size).unwrap()
    }

    #[test]
    fn capture_and_self_capture() {
        let mut b = Board::new(3);
        b.play(p("ba", 3), Colour::Black).unwrap();
        b.play(p("ab", 3), Colour::Black).unwrap();
        // White into the corner: suicide, allowed, removes itself.
        b.play(p("aa", 3), Colour::White).unwrap();
        assert_eq!(b.get(p("aa", 3)), None);
        assert_eq!(
            b.play(p("ba", 3), Colour::White).unwrap_err().message,
            "point occupied"
        );
    }

    #[test]
    fn ko_point() {
        // . b w .
        // b w . w
        // . b w .
        let mut b = Board::new(4);
        for (s, c) in [
            ("ba", Colour::Black),
            ("ab", Colour::Black),
            ("bc", Colour::Black),
            ("ca", Colour::White),
            ("db", Colour::White),
            ("cc", Colour::White),
            ("bb", Colour::White),
        ] {
            b.play(p(s, 4), c).unwrap();
        }
        assert_eq!(b.play(p("cb", 4), Colour::Black).unwrap(), Some(p("bb", 4)));
    }

    #[test]
    fn basics_and_full_board_self_capture() {
        // sgfmill board_tests: test_basics, test_full_board_selfcapture.
        let mut b = Board::new(9);
        assert!(b.is_empty());
        assert_eq!(b.get(Point::new(2, 3)), None);
        b.play(Point::new(2, 3), Colour::Black).unwrap();
        assert_eq!(b.get(Point::new(2, 3)), Some(Colour::Black));
        assert!(!b.is_empty());
        b.play(Point::new(3, 4), Colour::White).unwrap();
        assert!(b.play(Point::new(3, 4), Colour::White).is_err());
        assert!(b.play(Point::new(9, 2), Colour::White).is_err());
        assert_eq!(
            b.stones(),
            vec![
                (Colour::Black, Point::new(2, 3)),
                (Colour::White, Point::new(3, 4))
            ]
        );
        let mut full = Board::new(9);
        for row in 0..9 {
            for col in 0..9 {
                full.play(Point::new(row, col), Colour::Black).unwrap();
            }
        }
        assert_eq!(full, Board::new(9));
        assert!(full.is_empty());
    }

    #[test]
    fn rectangular() {
        let mut b = Board::new_rect(3, 2);
        // Two rows of three: a white stone in the lower-left corner, black around it.
        b.play(Point::new(0, 0), Colour::White).unwrap();
        b.play(Point::new(1, 0), Colour::Black).unwrap();
        b.play(Point::new(0, 1), Colour::Black).unwrap();
        assert_eq!(b.get(Point::new(0, 0)), None);
        assert_eq!(b.rows(), vec!["b..", ".b."]);
        assert!(b.play(Point::new(2, 0), Colour::Black).is_err());
        assert_eq!(b.area_score(), 6);
    }

    #[test]
    fn setup_and_score() {
        let mut b = Board::new(3);
        let black: BTreeSet<Point> = [p("aa", 3)].into();
        let white: BTreeSet<Point> = [p("ba", 3), p("ab", 3)].into();
        assert!(!b.apply_setup(&black, &white, &BTreeSet::new()));
        assert_eq!(b.get(p("aa", 3)), None);
        assert_eq!(b.area_score(), -9);
        assert_eq!(b.rows(), vec![".w.", "w..", "..."]);
    }
}
