//! Scoring a final position under a rule set (../shared/spec/scoring.md §3–§5): dead stones
//! removed, empty regions attributed, captures and dead stones as prisoners under territory
//! counting, seki taxed under Japanese/Korean rules, White's handicap bonus under area
//! counting, komi, and the result (`B+3.5`, `W+0.5`, `0` for a draw).
//!
//! Seki detection is structural (no reading): living stones are grouped into "macro-groups"
//! through the empty regions that only they touch; a macro-group that touches a shared
//! region (one touching both colours) and has fewer than two such eye regions cannot be
//! independently alive, so — the stones being marked alive — it lives in seki, and its eye
//! regions and the shared liberties score nothing under territory rules.

use crate::sgf::Colour;

use super::board::Stone;
use super::position::Position;
use super::rules::{Counting, RuleSet};

/// What a point counts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Black,
    White,
    /// Touches both colours (or is in seki).
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

struct Regions {
    /// Region id per point, `u32::MAX` on living stones.
    id: Vec<u32>,
    /// Per region: points, touches living black, touches living white.
    info: Vec<(Vec<usize>, bool, bool)>,
}

fn regions(pos: &Position, live: &[bool]) -> Regions {
    let mut id = vec![u32::MAX; pos.len()];
    let mut info = Vec::new();
    let mut stack = Vec::new();
    for i in 0..pos.len() {
        if live[i] || id[i] != u32::MAX {
            continue;
        }
        let r = info.len() as u32;
        let (mut pts, mut b, mut w) = (Vec::new(), false, false);
        id[i] = r;
        stack.push(i);
        while let Some(j) = stack.pop() {
            pts.push(j);
            for n in pos.neighbours(j) {
                if live[n] {
                    match pos.at(n) {
                        Stone::Black => b = true,
                        Stone::White => w = true,
                        Stone::Empty => {}
                    }
                } else if id[n] == u32::MAX {
                    id[n] = r;
                    stack.push(n);
                }
            }
        }
        info.push((pts, b, w));
    }
    Regions { id, info }
}

/// Union-find over cell indices.
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Living points in seki: see the module comment.
#[allow(clippy::needless_range_loop)] // `i` indexes the position, `live` and the forest
fn seki_stones(pos: &Position, live: &[bool], reg: &Regions) -> Vec<bool> {
    let n = pos.len();
    let mut parent: Vec<usize> = (0..n).collect();
    // Chains, then chains joined through regions only one colour touches.
    for i in 0..n {
        if !live[i] {
            continue;
        }
        for m in pos.neighbours(i) {
            if live[m] && pos.at(m) == pos.at(i) {
                let (a, b) = (find(&mut parent, i), find(&mut parent, m));
                parent[a] = b;
            }
        }
    }
    for (pts, b, w) in &reg.info {
        if b == w {
            continue;
        }
        let mut first = None;
        for &j in pts {
            for m in pos.neighbours(j) {
                if live[m] {
                    match first {
                        None => first = Some(m),
                        Some(f) => {
                            let (a, c) = (find(&mut parent, f), find(&mut parent, m));
                            parent[a] = c;
                        }
                    }
                }
            }
        }
    }
    // Per macro-group: eye regions and whether it touches a shared region.
    let mut eyes: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut shared = vec![false; n];
    for i in 0..n {
        if !live[i] {
            continue;
        }
        let root = find(&mut parent, i);
        for m in pos.neighbours(i) {
            let r = reg.id[m];
            if r == u32::MAX {
                continue;
            }
            let (_, b, w) = &reg.info[r as usize];
            if *b && *w {
                shared[root] = true;
            } else if !eyes[root].contains(&r) {
                eyes[root].push(r);
            }
        }
    }
    (0..n)
        .map(|i| {
            live[i] && {
                let root = find(&mut parent, i);
                shared[root] && eyes[root].len() < 2
            }
        })
        .collect()
}

/// Scores `pos` with `dead` stones (a mask, ignored by Tromp-Taylor) under `rules`.
pub fn score(pos: &Position, dead: &[bool], rules: &RuleSet, input: &ScoreInput) -> Score {
    let n = pos.len();
    let live: Vec<bool> = (0..n)
        .map(|i| {
            pos.at(i) != Stone::Empty && !(rules.uses_dead_stones && dead.get(i) == Some(&true))
        })
        .collect();
    let reg = regions(pos, &live);
    let seki = if rules.seki_tax && rules.counting == Counting::Territory {
        seki_stones(pos, &live, &reg)
    } else {
        vec![false; n]
    };
    let mut owners = vec![Owner::Neutral; n];
    let mut black = SideScore::default();
    let mut white = SideScore::default();
    let (mut dame, mut neutral) = (0u32, 0u32);
    for i in 0..n {
        if live[i] {
            match pos.at(i) {
                Stone::Black => {
                    black.stones += 1;
                    owners[i] = Owner::Black;
                }
                _ => {
                    white.stones += 1;
                    owners[i] = Owner::White;
                }
            }
        } else if pos.at(i) == Stone::Black {
            white.dead_opponent += 1;
        } else if pos.at(i) == Stone::White {
            black.dead_opponent += 1;
        }
    }
    for (pts, b, w) in &reg.info {
        let taxed = pts.iter().any(|&j| pos.neighbours(j).any(|m| seki[m]));
        let owner = match (b, w) {
            (true, false) => Owner::Black,
            (false, true) => Owner::White,
            (true, true) => Owner::Dame,
            (false, false) => Owner::Neutral,
        };
        let count = pts.len() as u32;
        let owner = match owner {
            Owner::Black | Owner::White if taxed => {
                let side = if owner == Owner::Black {
                    &mut black
                } else {
                    &mut white
                };
                side.seki_points += count;
                Owner::Dame
            }
            Owner::Black => {
                black.territory += count;
                Owner::Black
            }
            Owner::White => {
                white.territory += count;
                Owner::White
            }
            Owner::Dame => {
                dame += count;
                Owner::Dame
            }
            Owner::Neutral => {
                neutral += count;
                Owner::Neutral
            }
        };
        for &j in pts {
            owners[j] = owner;
        }
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
        seki_stones: (0..n).filter(|&i| seki[i]).collect(),
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
