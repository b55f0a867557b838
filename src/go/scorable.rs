//! Cinderblock's Scorable (Perl Games::Go::Cinderblock 0.12, docs/score.md),
//! reproduced exactly: every point in one category, region-wide `deanimate` / `reanimate` /
//! `transanimate` with the refusal rule, and its `scores()` / `winner()` formula. A
//! `Chain` marking mode (Sabaki estimator / OGS style) is offered besides the region mode,
//! and `Neutral` replaces Cinderblock's "dame" for regions touching no stone unless the
//! compat flag is set.

use super::board::Stone;
use super::position::Position;

/// The category of one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    AliveBlack,
    AliveWhite,
    DeadBlack,
    DeadWhite,
    KnownBlack,
    KnownWhite,
    DerivedBlack,
    DerivedWhite,
    Dame,
    /// An empty region touching no stone (Cinderblock calls it dame).
    Neutral,
    /// Reanimate's "no category at all" branch (cannot happen; kept for exactness).
    Uncategorised,
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::AliveBlack => "alive_b",
            Category::AliveWhite => "alive_w",
            Category::DeadBlack => "dead_b",
            Category::DeadWhite => "dead_w",
            Category::KnownBlack => "known_terr_b",
            Category::KnownWhite => "known_terr_w",
            Category::DerivedBlack => "derived_terr_b",
            Category::DerivedWhite => "derived_terr_w",
            Category::Dame => "dame",
            Category::Neutral => "neutral",
            Category::Uncategorised => "none",
        }
    }
}

/// How a toggle chooses the stones it affects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkMode {
    /// Cinderblock: the whole region enclosed by the opponent.
    Region,
    /// Just the chain.
    Chain,
}

/// Cinderblock's `scores()`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CinderScores {
    pub black: f64,
    pub white: f64,
}

/// A marking session on one position.
#[derive(Debug, Clone)]
pub struct Scorable {
    pos: Position,
    cats: Vec<Category>,
    pub komi: f64,
    /// Regions touching no stone are `Dame` (Cinderblock) instead of `Neutral`.
    pub compat: bool,
    pub mode: MarkMode,
}

fn opp(s: Stone) -> Stone {
    match s {
        Stone::Black => Stone::White,
        Stone::White => Stone::Black,
        Stone::Empty => Stone::Empty,
    }
}

fn alive(s: Stone) -> Category {
    if s == Stone::Black {
        Category::AliveBlack
    } else {
        Category::AliveWhite
    }
}

fn dead(s: Stone) -> Category {
    if s == Stone::Black {
        Category::DeadBlack
    } else {
        Category::DeadWhite
    }
}

fn known(s: Stone) -> Category {
    if s == Stone::Black {
        Category::KnownBlack
    } else {
        Category::KnownWhite
    }
}

fn derived(s: Stone) -> Category {
    if s == Stone::Black {
        Category::DerivedBlack
    } else {
        Category::DerivedWhite
    }
}

impl Scorable {
    /// The initial state (§2.2): chains alive, empty regions derived territory or dame.
    pub fn new(pos: Position, komi: f64) -> Scorable {
        let mut s = Scorable {
            cats: vec![Category::Dame; pos.len()],
            pos,
            komi,
            compat: false,
            mode: MarkMode::Region,
        };
        s.reset();
        s
    }

    /// Cinderblock's exact behaviour (region mode, empty-board regions are dame).
    pub fn cinderblock(pos: Position, komi: f64) -> Scorable {
        let mut s = Scorable::new(pos, komi);
        s.compat = true;
        s.reset();
        s
    }

    fn reset(&mut self) {
        let mut done = vec![false; self.pos.len()];
        for i in 0..self.pos.len() {
            let st = self.pos.at(i);
            if st != Stone::Empty {
                self.cats[i] = alive(st);
                continue;
            }
            if done[i] {
                continue;
            }
            let region = self.pos.flood(i, |t| t == Stone::Empty);
            let cat = self.classify(&region);
            for &j in &region {
                done[j] = true;
                self.cats[j] = cat;
            }
        }
    }

    /// The category of an empty piece from the colours of the stones next to it (dead
    /// stones included, as Cinderblock looks at raw stones).
    fn classify(&self, piece: &[usize]) -> Category {
        let (mut b, mut w) = (false, false);
        for &j in piece {
            for n in self.pos.neighbours(j) {
                match self.pos.at(n) {
                    Stone::Black => b = true,
                    Stone::White => w = true,
                    Stone::Empty => {}
                }
            }
        }
        match (b, w) {
            (true, true) => Category::Dame,
            (true, false) => Category::DerivedBlack,
            (false, true) => Category::DerivedWhite,
            (false, false) if self.compat => Category::Dame,
            (false, false) => Category::Neutral,
        }
    }

    /// Builds the state a marking session would have with exactly these stones dead
    /// (stateless RPC): the dead stones' regions become the opponent's known territory,
    /// except a region that a living stone of their colour shares ([`Scorable::conceded`]).
    pub fn with_dead(pos: Position, komi: f64, dead_points: &[usize]) -> Scorable {
        let mut s = Scorable::new(pos, komi);
        // Every dead chain first: whether a region is conceded depends on all of them.
        for &i in dead_points {
            let st = s.pos.at(i);
            if st != Stone::Empty {
                for j in s.pos.chain(i) {
                    s.cats[j] = dead(st);
                }
            }
        }
        for &i in dead_points {
            let st = s.pos.at(i);
            if st == Stone::Empty {
                continue;
            }
            if let Some(region) = s.conceded(i) {
                for j in region {
                    if s.pos.at(j) == Stone::Empty {
                        s.cats[j] = known(opp(st));
                    }
                }
            }
        }
        s
    }

    /// The region that the dead stone at `i` gives to the opponent: the points reached from
    /// it through anything but the opponent's stones (Cinderblock's region) — or `None` when
    /// a living stone of its colour is among them. Region mode kills or revives such a
    /// region's stones together, so it never meets one; a chain marked dead on its own
    /// (chain mode, or a dead list sent to the stateless RPC) can share its region with a
    /// living stone of its colour, and that region, whose empty points then touch both
    /// colours' living stones or that stone's alone, is not the opponent's (as with area
    /// counting and goscorer's analysis).
    fn conceded(&self, i: usize) -> Option<Vec<usize>> {
        let st = self.pos.at(i);
        let region = self.pos.flood(i, |t| t != opp(st));
        let shared = region
            .iter()
            .any(|&j| self.pos.at(j) == st && self.cats[j] == alive(st));
        (!shared).then_some(region)
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn category(&self, i: usize) -> Category {
        self.cats[i]
    }

    pub fn categories(&self) -> &[Category] {
        &self.cats
    }

    /// The affected set of a toggle at `i` (a stone).
    fn affected(&self, i: usize) -> Vec<usize> {
        let st = self.pos.at(i);
        match self.mode {
            MarkMode::Region => {
                let o = opp(st);
                self.pos.flood(i, |t| t != o)
            }
            MarkMode::Chain => self.pos.chain(i),
        }
    }

    /// §2.4. `None` for an empty point (Cinderblock dies); `Some(false)` when refused or
    /// already dead.
    pub fn deanimate(&mut self, i: usize) -> Option<bool> {
        let st = self.pos.at(i);
        if st == Stone::Empty {
            return None;
        }
        if self.cats[i] == dead(st) {
            return Some(false);
        }
        let o = opp(st);
        let region = self.affected(i);
        let clash = region.iter().any(|&j| {
            self.pos.at(j) == Stone::Empty
                && matches!(self.cats[j], Category::KnownBlack | Category::KnownWhite)
        });
        if clash {
            return Some(false);
        }
        for &j in &region {
            if self.pos.at(j) == Stone::Empty {
                self.cats[j] = known(o);
            } else if self.pos.at(j) == st {
                self.cats[j] = dead(st);
            }
        }
        if self.mode == MarkMode::Chain {
            // The chain's region goes to the opponent as the stateless rebuild
            // (`with_dead`) gives it, so that every call of a session sees the same state.
            for j in self.conceded(i).unwrap_or_default() {
                if self.pos.at(j) == Stone::Empty {
                    self.cats[j] = known(o);
                }
            }
        }
        Some(true)
    }

    /// §2.5.
    pub fn reanimate(&mut self, i: usize) -> Option<bool> {
        let st = self.pos.at(i);
        if st == Stone::Empty {
            return None;
        }
        if self.cats[i] == alive(st) {
            return Some(false);
        }
        let region = self.affected(i);
        let mut empties = Vec::new();
        for &j in &region {
            match self.pos.at(j) {
                s if s == st => self.cats[j] = alive(st),
                Stone::Empty => empties.push(j),
                _ => {}
            }
        }
        if self.mode == MarkMode::Chain {
            // A revived chain takes back its region: every empty point reached from it
            // through anything but the opponent's stones, which other dead chains of its
            // colour may have conceded while it was dead (`conceded`).
            let o = opp(st);
            empties.extend(
                self.pos
                    .flood(i, |t| t != o)
                    .into_iter()
                    .filter(|&j| self.pos.at(j) == Stone::Empty),
            );
        }
        let mut in_set = vec![false; self.pos.len()];
        for &j in &empties {
            in_set[j] = true;
        }
        let mut done = vec![false; self.pos.len()];
        for &j in &empties {
            if done[j] {
                continue;
            }
            let piece = self.pos.flood(j, |t| t == Stone::Empty);
            let piece: Vec<usize> = if self.mode == MarkMode::Region {
                piece.into_iter().filter(|&p| in_set[p]).collect()
            } else {
                piece
            };
            let cat = self.classify(&piece);
            let cat = if cat == Category::Neutral
                || (self.compat && cat == Category::Dame && !touches_stone(&self.pos, &piece))
            {
                Category::Uncategorised
            } else {
                cat
            };
            for &p in &piece {
                done[p] = true;
                self.cats[p] = cat;
            }
        }
        Some(true)
    }

    /// §2.6: `None` for an empty point.
    pub fn transanimate(&mut self, i: usize) -> Option<bool> {
        match self.node_animated(i)? {
            true => self.deanimate(i),
            false => self.reanimate(i),
        }
    }

    /// `None` for empty, `Some(true)` alive, `Some(false)` dead.
    pub fn node_animated(&self, i: usize) -> Option<bool> {
        match self.cats[i] {
            Category::AliveBlack | Category::AliveWhite => Some(true),
            Category::DeadBlack | Category::DeadWhite => Some(false),
            _ => None,
        }
    }

    pub fn count(&self, c: Category) -> usize {
        self.cats.iter().filter(|&&k| k == c).count()
    }

    /// Dead stones of a colour.
    pub fn dead(&self, s: Stone) -> Vec<usize> {
        self.points_in(dead(s))
    }

    pub fn dead_mask(&self) -> Vec<bool> {
        self.cats
            .iter()
            .map(|c| matches!(c, Category::DeadBlack | Category::DeadWhite))
            .collect()
    }

    fn points_in(&self, c: Category) -> Vec<usize> {
        (0..self.cats.len())
            .filter(|&i| self.cats[i] == c)
            .collect()
    }

    /// known ∪ derived territory of a colour.
    pub fn territory(&self, s: Stone) -> usize {
        self.count(known(s)) + self.count(derived(s))
    }

    /// Cinderblock's `scores()` (§2.7).
    pub fn scores(&self) -> CinderScores {
        let dead_b = self.count(Category::DeadBlack) as f64;
        let dead_w = self.count(Category::DeadWhite) as f64;
        CinderScores {
            white: self.komi + self.territory(Stone::White) as f64 + dead_b - dead_w,
            black: self.territory(Stone::Black) as f64 + dead_w - dead_b,
        }
    }

    /// Cinderblock's `winner()`: White on ties.
    pub fn winner(&self) -> Stone {
        let s = self.scores();
        if s.white >= s.black {
            Stone::White
        } else {
            Stone::Black
        }
    }
}

fn touches_stone(pos: &Position, piece: &[usize]) -> bool {
    piece
        .iter()
        .any(|&j| pos.neighbours(j).any(|n| pos.at(n) != Stone::Empty))
}
