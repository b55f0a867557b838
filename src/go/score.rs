//! Scoring a final position under a rule set: dead stones removed, empty points attributed,
//! captures and dead stones as prisoners under territory counting, White's handicap bonus
//! under area counting, komi, and the result (`B+3.5`, `W+0.5`, `0` for a draw).
//!
//! Area counting gives each empty point (and each point under a dead stone) to the colour
//! whose living stones alone surround it, eyes in seki included. Territory counting under
//! the Japanese and Korean presets uses the seki and false-eye analysis of
//! `super::territory`: nothing in a seki counts, nor false eyes that will have to be
//! filled, so players need not fill every dame before counting. docs/score.md explains it.

use crate::sgf::Colour;

use super::board::Stone;
use super::position::Position;
use super::rules::{Counting, RuleSet};
use super::territory::{plainly_settled_areas, territory_scoring};

/// What a point counts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Black,
    White,
    /// Counts for nobody: touches both colours, or is in seki, or is a false eye that will
    /// have to be filled (territory presets).
    Dame,
    /// Touches no living stone.
    Neutral,
}

/// Inputs besides the position.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScoreInput {
    pub komi: f64,
    /// Handicap stones (0 or 1 = none).
    pub handicap: u32,
    /// Stones captured during play by Black, by White.
    pub captures: [u32; 2],
    /// Passes by Black, by White (AGA pass stones).
    pub passes: [u32; 2],
}

/// One side's score.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SideScore {
    /// Living stones on the board.
    pub stones: u32,
    /// Territory points (empty points and points under removed dead stones).
    pub territory: u32,
    /// Points in this side's seki-taxed regions (not counted under territory rules).
    pub seki_points: u32,
    /// Stones captured during play.
    pub captures: u32,
    /// Opponent stones marked dead (prisoners at the end).
    pub dead_opponent: u32,
    /// Passes by the opponent (AGA pass stones received; informative under area rules).
    pub pass_stones: u32,
    pub komi: f64,
    pub handicap_bonus: f64,
    pub total: f64,
}

/// The full result.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub black: SideScore,
    pub white: SideScore,
    /// Black total minus White total.
    pub margin: f64,
    /// `None` for a draw.
    pub winner: Option<Colour>,
    /// `B+3.5`, `W+12`, `0`.
    pub result: String,
    pub counting: Counting,
    pub dame: u32,
    pub neutral: u32,
    /// Owner of every point (row-major from the top); living stones own their point.
    pub owners: Vec<Owner>,
    /// Points of living chains judged to be in seki.
    pub seki_stones: Vec<usize>,
    /// Empty points and dead stones of a living group's area that do not count because
    /// they are false eyes that will have to be filled (territory presets only).
    pub false_eyes: Vec<usize>,
}

/// Formats a margin like `%g` for the values scores take (`3.5`, `12`).
pub fn format_margin(m: f64) -> String {
    if m.fract() == 0.0 {
        format!("{}", m as i64)
    } else {
        format!("{m}")
    }
}

/// The SGF result for a margin (B − W).
pub fn result_string(margin: f64, ties_to_white: bool) -> String {
    if margin > 0.0 {
        format!("B+{}", format_margin(margin))
    } else if margin < 0.0 {
        format!("W+{}", format_margin(-margin))
    } else if ties_to_white {
        "W+0".to_owned()
    } else {
        "0".to_owned()
    }
}

#[derive(Clone, Copy, Default)]
struct RegionInfo {
    size: u32,
    black: bool,
    white: bool,
}

struct Regions {
    /// Region id per point, `u32::MAX` on living stones.
    id: Vec<u32>,
    info: Vec<RegionInfo>,
}

impl Regions {
    /// Per region, the one living colour it touches (`Empty` for both or none).
    fn colours(&self) -> Vec<Stone> {
        self.info
            .iter()
            .map(|r| match (r.black, r.white) {
                (true, false) => Stone::Black,
                (false, true) => Stone::White,
                _ => Stone::Empty,
            })
            .collect()
    }
}

/// Flood fills the points that are not living stones into regions, recording which living
/// colours each touches. One pass, one shared stack: no allocation per region.
fn regions(pos: &Position, live: &[bool]) -> Regions {
    let mut id = vec![u32::MAX; pos.len()];
    let mut info = Vec::new();
    let mut stack = Vec::with_capacity(pos.len());
    for i in 0..pos.len() {
        if live[i] || id[i] != u32::MAX {
            continue;
        }
        let r = info.len() as u32;
        let mut ri = RegionInfo::default();
        id[i] = r;
        stack.push(i);
        while let Some(j) = stack.pop() {
            ri.size += 1;
            pos.for_each_neighbour(j, |n| {
                if live[n] {
                    match pos.at(n) {
                        Stone::Black => ri.black = true,
                        Stone::White => ri.white = true,
                        Stone::Empty => {}
                    }
                } else if id[n] == u32::MAX {
                    id[n] = r;
                    stack.push(n);
                }
            });
        }
        info.push(ri);
    }
    Regions { id, info }
}

/// Scores `pos` with `dead` stones (a mask, ignored by Tromp-Taylor) under `rules`.
pub fn score(pos: &Position, dead: &[bool], rules: &RuleSet, input: &ScoreInput) -> Score {
    let n = pos.len();
    let cells = pos.cells();
    let live: Vec<bool> = if rules.uses_dead_stones && dead.len() >= n {
        // (The usual case, in one pass over both slices.)
        cells
            .iter()
            .zip(dead)
            .map(|(&s, &d)| s != Stone::Empty && !d)
            .collect()
    } else {
        (0..n)
            .map(|i| {
                cells[i] != Stone::Empty && !(rules.uses_dead_stones && dead.get(i) == Some(&true))
            })
            .collect()
    };
    let reg = regions(pos, &live);
    // Territory presets with a seki tax: the seki and false-eye analysis decides each point.
    // Skipped where it is sure to agree with plain counting (the usual finished game).
    let analysis = (rules.seki_tax
        && rules.counting == Counting::Territory
        && !plainly_settled_areas(pos, &live, &reg.id, &reg.colours()))
    .then(|| {
        let marked: Vec<bool> = (0..n)
            .map(|i| pos.at(i) != Stone::Empty && !live[i])
            .collect();
        territory_scoring(pos, &marked, false)
    });
    let mut black = SideScore::default();
    let mut white = SideScore::default();
    let (mut dame, mut neutral) = (0u32, 0u32);
    let mut owners = Vec::with_capacity(n);
    let mut seki_stones = Vec::new();
    let mut false_eyes = Vec::new();
    for i in 0..n {
        let st = pos.at(i);
        if live[i] {
            if st == Stone::Black {
                black.stones += 1;
                owners.push(Owner::Black);
            } else {
                white.stones += 1;
                owners.push(Owner::White);
            }
            if analysis.as_ref().is_some_and(|a| a[i].seki != Stone::Empty) {
                seki_stones.push(i);
            }
            continue;
        }
        match st {
            Stone::Black => white.dead_opponent += 1,
            Stone::White => black.dead_opponent += 1,
            Stone::Empty => {}
        }
        let r = reg.info[reg.id[i] as usize];
        let owner = match (&analysis, r.black, r.white) {
            // Reached by no living stone (an empty board): nobody's, and not dame either.
            (_, false, false) => Owner::Neutral,
            (None, true, false) => Owner::Black,
            (None, false, true) => Owner::White,
            (None, true, true) => Owner::Dame,
            (Some(a), _, _) => {
                let p = a[i];
                match (p.territory, p.seki) {
                    (Stone::Black, _) => Owner::Black,
                    (Stone::White, _) => Owner::White,
                    (_, Stone::Black) => {
                        black.seki_points += 1;
                        Owner::Dame
                    }
                    (_, Stone::White) => {
                        white.seki_points += 1;
                        Owner::Dame
                    }
                    _ => {
                        if p.unscorable_false_eye {
                            false_eyes.push(i);
                        }
                        Owner::Dame
                    }
                }
            }
        };
        match owner {
            Owner::Black => black.territory += 1,
            Owner::White => white.territory += 1,
            Owner::Neutral => neutral += 1,
            Owner::Dame => {
                if analysis.as_ref().is_none_or(|a| a[i].seki == Stone::Empty) {
                    dame += 1;
                }
            }
        }
        owners.push(owner);
    }
    black.captures = input.captures[0];
    white.captures = input.captures[1];
    black.pass_stones = input.passes[1];
    white.pass_stones = input.passes[0];
    white.komi = input.komi;
    if rules.counting == Counting::Area {
        // Eyes in seki count under area rules: nothing was taxed.
        white.handicap_bonus = rules.handicap_bonus.points(input.handicap);
        black.total = f64::from(black.stones + black.territory);
        white.total = f64::from(white.stones + white.territory) + white.komi + white.handicap_bonus;
    } else {
        black.total = f64::from(black.territory + black.captures + black.dead_opponent);
        white.total =
            f64::from(white.territory + white.captures + white.dead_opponent) + white.komi;
    }
    let margin = black.total - white.total;
    let winner = if margin > 0.0 {
        Some(Colour::Black)
    } else if margin < 0.0 || rules.ties_to_white {
        Some(Colour::White)
    } else {
        None
    };
    Score {
        black,
        white,
        margin,
        winner,
        result: result_string(margin, rules.ties_to_white),
        counting: rules.counting,
        dame,
        neutral,
        owners,
        seki_stones,
        false_eyes,
    }
}

/// Parses an SGF `RE` value: winner and margin (`Some(m)` for a score), or a reason.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedResult {
    Score {
        winner: Option<Colour>,
        margin: f64,
    },
    /// Resignation, time, forfeit (`R`, `T`, `F` and their long forms) or an unreadable
    /// reason.
    Other {
        winner: Colour,
        reason: String,
    },
    Draw,
    Void,
    Unknown,
}

pub fn parse_result(re: &str) -> ParsedResult {
    let s = re.trim();
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "0" | "draw" | "jigo" => return ParsedResult::Draw,
        "void" => return ParsedResult::Void,
        "" | "?" => return ParsedResult::Unknown,
        _ => {}
    }
    let winner = match lower.as_bytes()[0] {
        b'b' => Colour::Black,
        b'w' => Colour::White,
        _ => return ParsedResult::Unknown,
    };
    let rest = s[1..].trim_start_matches('+').trim();
    if rest.is_empty() {
        return ParsedResult::Other {
            winner,
            reason: String::new(),
        };
    }
    match rest.parse::<f64>() {
        Ok(m) if m.is_finite() && m >= 0.0 => ParsedResult::Score {
            winner: (m > 0.0).then_some(winner),
            margin: m,
        },
        _ => ParsedResult::Other {
            winner,
            reason: rest.to_owned(),
        },
    }
}
