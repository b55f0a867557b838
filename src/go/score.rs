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

use super::bits::{Bits, Grid, Planes};
use super::board::Stone;
use super::position::Position;
use super::rules::{Counting, RuleSet};
use super::territory::{
    PointStatus, plainly_settled_areas, plainly_settled_planes, territory_analysis, unsettled_part,
};

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
///
/// Boards that fit in a bitboard (19×19 and smaller) are counted on bitboards where no
/// territory analysis is needed; the rest, and positions that need the analysis, point by
/// point. Both give the same answer (`bits_agree_with_points` below).
pub fn score(pos: &Position, dead: &[bool], rules: &RuleSet, input: &ScoreInput) -> Score {
    score_with(pos, dead, rules, input, Grid::new(pos))
}

/// [`score`], on bitboards when `grid` is given.
fn score_with(
    pos: &Position,
    dead: &[bool],
    rules: &RuleSet,
    input: &ScoreInput,
    grid: Option<Grid>,
) -> Score {
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
    // The stones the analysis takes as marked dead: exactly the stones that are not living
    // (it reads a stone as dead where `dead` says so).
    let marked: &[bool] = if rules.uses_dead_stones { dead } else { &[] };
    let territory = rules.seki_tax && rules.counting == Counting::Territory;
    if let Some(g) = grid {
        // Which living colours each point's area touches, from bitboards; plain counting is
        // finished there unless the territory analysis has to run.
        let planes = Planes::new(g, pos, &live);
        let (by_black, by_white) = (planes.reached(planes.black), planes.reached(planes.white));
        let board = planes.g.board();
        // Territory presets with a seki tax: plain counting where the analysis is sure
        // to agree (every area one colour's, see `plainly_settled_areas`).
        let one_colour = !by_black.meets(by_white) && by_black.or(by_white) == planes.open;
        let plain =
            !territory || (one_colour && plainly_settled_planes(pos, &live, &planes, by_black));
        if plain {
            return totals(tally_bits(&planes, by_black, by_white, board), rules, input);
        }
        // Some areas touch both colours or none: the analysis need only look near them
        // when the rest is proven plain (`unsettled_part`). Plain counting's tally stands
        // outside the part the analysis looks at; that part is tallied from its answers.
        let part = (!one_colour)
            .then(|| unsettled_part(pos, &live, &planes, by_black, by_white))
            .flatten();
        let looked = part.as_ref().map_or(board, |q| q.points);
        let mut t = tally_bits(&planes, by_black, by_white, board.and_not(looked));
        // (Room for a seki's stones up front, so that the vector is not grown stone by stone.)
        t.seki_stones.reserve(32);
        let g = &planes.g;
        territory_analysis(pos, marked, false, Some(&planes), part.as_ref(), |i, p| {
            let b = g.bit(i);
            let touches = (by_black.has(b), by_white.has(b));
            t.point(i, cells[i], live[i], touches, Some(p));
        });
        return totals(t, rules, input);
    }
    let reg = regions(pos, &live);
    // (Living stones have no region; their `touches` is never read.)
    let touches = |i: usize| {
        if live[i] {
            return (false, false);
        }
        let r = reg.info[reg.id[i] as usize];
        (r.black, r.white)
    };
    let mut t = Tally::new(n);
    // Territory presets with a seki tax: the seki and false-eye analysis decides each
    // point. Skipped where it is sure to agree with plain counting (the usual finished
    // game). (It answers for every point here, in board order.)
    if territory && !plainly_settled_areas(pos, &live, &reg.id, &reg.colours()) {
        territory_analysis(pos, marked, false, None, None, |i, p| {
            t.point(i, cells[i], live[i], touches(i), Some(p));
        });
    } else {
        for i in 0..n {
            t.point(i, cells[i], live[i], touches(i), None);
        }
    }
    totals(t, rules, input)
}

/// What the board gives before captures, komi and the result.
struct Tally {
    black: SideScore,
    white: SideScore,
    dame: u32,
    neutral: u32,
    owners: Vec<Owner>,
    seki_stones: Vec<usize>,
    false_eyes: Vec<usize>,
}

impl Tally {
    /// Nothing counted yet on a board of `n` points (every owner to be written).
    fn new(n: usize) -> Tally {
        Tally {
            black: SideScore::default(),
            white: SideScore::default(),
            dame: 0,
            neutral: 0,
            owners: vec![Owner::Neutral; n],
            seki_stones: Vec::new(),
            false_eyes: Vec::new(),
        }
    }

    /// Counts point `i` (holding `st`, a living stone when `live`) and writes its owner:
    /// `touches` says which living colours its area touches (read only when it is not a
    /// living stone), `analysis` is the territory analysis's answer for it, if it ran.
    /// Points must come in board order, for the order of the seki stones and false eyes.
    #[inline]
    fn point(
        &mut self,
        i: usize,
        st: Stone,
        live: bool,
        touches: (bool, bool),
        analysis: Option<PointStatus>,
    ) {
        let (black, white) = (&mut self.black, &mut self.white);
        if live {
            if st == Stone::Black {
                black.stones += 1;
                self.owners[i] = Owner::Black;
            } else {
                white.stones += 1;
                self.owners[i] = Owner::White;
            }
            if analysis.is_some_and(|p| p.seki != Stone::Empty) {
                self.seki_stones.push(i);
            }
            return;
        }
        match st {
            Stone::Black => white.dead_opponent += 1,
            Stone::White => black.dead_opponent += 1,
            Stone::Empty => {}
        }
        let owner = match (analysis, touches) {
            // Reached by no living stone (an empty board): nobody's, and not dame either.
            (_, (false, false)) => Owner::Neutral,
            (None, (true, false)) => Owner::Black,
            (None, (false, true)) => Owner::White,
            (None, (true, true)) => Owner::Dame,
            (Some(p), _) => match (p.territory, p.seki) {
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
                        self.false_eyes.push(i);
                    }
                    Owner::Dame
                }
            },
        };
        match owner {
            Owner::Black => black.territory += 1,
            Owner::White => white.territory += 1,
            Owner::Neutral => self.neutral += 1,
            Owner::Dame => {
                if analysis.is_none_or(|p| p.seki == Stone::Empty) {
                    self.dame += 1;
                }
            }
        }
        self.owners[i] = owner;
    }
}

/// Plain counting on bitboards: `by_black` and `by_white` are the points of the areas that
/// touch each colour's living stones. Counts are popcounts of the points in `only` (the
/// rest are counted by [`Tally::point`]); the owners of every point are written, a row at
/// a time.
fn tally_bits(p: &Planes, by_black: Bits, by_white: Bits, only: Bits) -> Tally {
    let g = &p.g;
    let black = SideScore {
        stones: p.black.and(only).count(),
        territory: by_black.and_not(by_white).and(only).count(),
        dead_opponent: p.dead.and_not(p.dead_black).and(only).count(),
        ..SideScore::default()
    };
    let white = SideScore {
        stones: p.white.and(only).count(),
        territory: by_white.and_not(by_black).and(only).count(),
        dead_opponent: p.dead_black.and(only).count(),
        ..SideScore::default()
    };
    let dame_set = by_black.and(by_white);
    let neutral_set = p.open.and_not(by_black.or(by_white));
    // Two bits per point: White or neutral, dame or neutral (Black is neither).
    let low = p.white.or(by_white.and_not(by_black)).or(neutral_set);
    let high = dame_set.or(neutral_set);
    let w = g.width();
    let mut owners = vec![Owner::Neutral; w * g.height()];
    for (y, row) in owners.chunks_exact_mut(w).enumerate() {
        let (l, hi) = (g.row(&low, y), g.row(&high, y));
        // Four points at a time: their two bits each, side by side, index a table of four
        // owners (32 columns of a row at a time, the most that one spreading takes).
        for (c, part) in row.chunks_mut(32).enumerate() {
            let mut z = spread(l >> (32 * c)) | spread(hi >> (32 * c)) << 1;
            let mut fours = part.chunks_exact_mut(4);
            for four in &mut fours {
                four.copy_from_slice(&OWNERS_OF_FOUR[(z & 0xff) as usize]);
                z >>= 8;
            }
            for (k, o) in fours.into_remainder().iter_mut().enumerate() {
                *o = OWNERS_OF_FOUR[(z & 0xff) as usize][k];
            }
        }
    }
    let (dame, neutral) = (dame_set.and(only).count(), neutral_set.and(only).count());
    Tally {
        black,
        white,
        dame,
        neutral,
        owners,
        seki_stones: Vec::new(),
        false_eyes: Vec::new(),
    }
}

/// The owners of four points from their two bits each (bit 0: White or neutral, bit 1:
/// dame or neutral), point `k` in bits `2k` and `2k + 1` of the index.
const OWNERS_OF_FOUR: [[Owner; 4]; 256] = {
    const OWNER: [Owner; 4] = [Owner::Black, Owner::White, Owner::Dame, Owner::Neutral];
    let mut t = [[Owner::Black; 4]; 256];
    let mut i = 0;
    while i < 256 {
        let mut k = 0;
        while k < 4 {
            t[i][k] = OWNER[i >> (2 * k) & 3];
            k += 1;
        }
        i += 1;
    }
    t
};

/// The low 32 bits of `x` moved to the even bits (bit `k` to bit `2k`).
fn spread(x: u64) -> u64 {
    let mut x = x & 0xffff_ffff;
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// Captures, pass stones, komi, handicap bonus, totals and the result.
fn totals(t: Tally, rules: &RuleSet, input: &ScoreInput) -> Score {
    let Tally {
        mut black,
        mut white,
        dame,
        neutral,
        owners,
        seki_stones,
        false_eyes,
    } = t;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::go::rules::Preset;
    use crate::go::territory::tests::generate;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random stones on a random rectangle that fits in a bitboard (1×1 to 30×12), some
    /// marked dead: areas touching both colours, neither, or one, and empty boards.
    pub(crate) fn scatter(rng: &mut ChaCha8Rng) -> (Position, Vec<bool>) {
        let (w, h) = loop {
            let (w, h) = (rng.random_range(1..=30u8), rng.random_range(1..=19u8));
            if (usize::from(w) + 1) * usize::from(h) <= 384 {
                break (w, h);
            }
        };
        scatter_on(rng, w, h)
    }

    /// [`scatter`] on a `w`×`h` board.
    fn scatter_on(rng: &mut ChaCha8Rng, w: u8, h: u8) -> (Position, Vec<bool>) {
        let n = usize::from(w) * usize::from(h);
        let fill = rng.random_range(0.0..0.9);
        let cells = (0..n)
            .map(|_| match rng.random_bool(fill) {
                false => Stone::Empty,
                true if rng.random_bool(0.5) => Stone::Black,
                true => Stone::White,
            })
            .collect();
        let dead = (0..n).map(|_| rng.random_bool(0.1)).collect();
        (Position::from_cells(w, h, cells), dead)
    }

    /// The bitboard path gives the point-by-point path's answer, every field of it (every
    /// point's owner included), under every preset: on finished-looking positions (most go
    /// through the bitboard fast path under territory rules) and on scattered stones.
    #[test]
    fn bits_agree_with_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        let mut plain_territory = 0;
        for case in 0..3000 {
            let (pos, dead) = if case % 3 == 2 {
                scatter(&mut rng)
            } else {
                generate(&mut rng)
            };
            let input = ScoreInput {
                komi: 6.5,
                handicap: rng.random_range(0..4),
                captures: [rng.random_range(0..9), rng.random_range(0..9)],
                passes: [rng.random_range(0..3), rng.random_range(0..3)],
            };
            // (Sometimes a short dead mask: the missing points are alive.)
            let dead = if case % 7 == 3 {
                dead[..dead.len() / 2].to_vec()
            } else {
                dead
            };
            for preset in Preset::ALL {
                let rules = preset.rules();
                let bits = score_with(&pos, &dead, &rules, &input, Grid::new(&pos));
                let points = score_with(&pos, &dead, &rules, &input, None);
                assert_eq!(
                    bits,
                    points,
                    "case {case}, {preset:?}\n{}\ndead {:?}",
                    pos.rows().join("\n"),
                    (0..dead.len()).filter(|&i| dead[i]).collect::<Vec<_>>()
                );
                if preset == Preset::Japanese && bits.seki_stones.is_empty() {
                    plain_territory += 1;
                }
            }
        }
        assert!(plain_territory >= 500, "{plain_territory}");
        // Boards wider than 32 points, whose rows the owners are written from in two parts.
        for case in 0..300 {
            let w = rng.random_range(33..=52u8);
            let h = rng.random_range(1..=(384 / (usize::from(w) + 1)) as u8);
            let (pos, dead) = scatter_on(&mut rng, w, h);
            let input = ScoreInput::default();
            for preset in Preset::ALL {
                let rules = preset.rules();
                let bits = score_with(&pos, &dead, &rules, &input, Grid::new(&pos));
                let points = score_with(&pos, &dead, &rules, &input, None);
                assert_eq!(bits, points, "wide case {case}, {w}x{h}, {preset:?}");
            }
        }
    }
}
