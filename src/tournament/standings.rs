//! Standings: every placement criterion OpenGotha 3.51 computes, for every player after a
//! given round, and the placement order by the tournament's criteria.
//!
//! Pure: reads a [`TournamentData`], does no I/O. Values are kept in OpenGotha's own units
//! (half points; SODOS in quarter points; CAT as minus the category index) so that comparisons
//! are exact and the values can be checked one for one against OpenGotha's. Direct
//! confrontation (DC, SDC) depends on the criteria chosen, so [`standings`] computes it.

// Players and rounds are indexed together throughout (player i, round k), as OpenGotha does.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

use crate::pairing::criteria::{self, Unit};
use crate::pairing::opengotha::Crit;

use super::model::{Criterion, Outcome, PlayerId, RoundNumber, TournamentData};

/// What a player did in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Not taking part (skipped or withdrawn): scored with the absence values.
    Absent,
    /// Taking part but neither paired nor given the bye.
    NotAssigned,
    Bye,
    /// Index of the game in the round.
    Paired(usize),
}

/// Player id → index in `t.players`: a plain table (ids are small and dense: 1, 2, 3, …), a
/// hash map only for sparse ids. Standings look players up tens of thousands of times.
pub struct PlayerIndex {
    dense: Vec<u32>,
    sparse: HashMap<PlayerId, usize>,
}

impl PlayerIndex {
    pub fn new(t: &TournamentData) -> PlayerIndex {
        let max = t.players.iter().map(|p| p.id).max().unwrap_or(0) as usize;
        if max <= 4 * t.players.len() + 1024 {
            let mut dense = vec![u32::MAX; max + 1];
            for (i, p) in t.players.iter().enumerate() {
                dense[p.id as usize] = i as u32;
            }
            PlayerIndex {
                dense,
                sparse: HashMap::new(),
            }
        } else {
            PlayerIndex {
                dense: Vec::new(),
                sparse: t
                    .players
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.id, i))
                    .collect(),
            }
        }
    }

    #[inline]
    pub fn get(&self, id: PlayerId) -> Option<usize> {
        if self.dense.is_empty() {
            self.sparse.get(&id).copied()
        } else {
            match self.dense.get(id as usize) {
                Some(&i) if i != u32::MAX => Some(i as usize),
                _ => None,
            }
        }
    }
}

/// What each player (in `t.players` order) did in rounds 1..=`nr` (index k = round k + 1), as
/// OpenGotha classes it: a game or a bye wins over the participation flags.
pub fn participation(t: &TournamentData, nr: usize) -> Vec<Vec<Part>> {
    let idx = PlayerIndex::new(t);
    let mut part = vec![vec![Part::NotAssigned; nr]; t.players.len()];
    for (i, p) in t.players.iter().enumerate() {
        for k in 0..nr {
            if !p.participates(k as u32 + 1) {
                part[i][k] = Part::Absent;
            }
        }
    }
    for k in 0..nr {
        let Some(round) = t.round(k as u32 + 1) else {
            continue;
        };
        for (gi, g) in round.games.iter().enumerate() {
            for pid in [g.white, g.black] {
                if let Some(i) = idx.get(pid) {
                    part[i][k] = Part::Paired(gi);
                }
            }
        }
        for b in &round.byes {
            if let Some(i) = idx.get(*b) {
                part[i][k] = Part::Bye;
            }
        }
    }
    part
}

/// One player's line.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: PlayerId,
    /// 1-based place; tied players share the place of the first of them.
    pub place: u32,
    /// Whether this player shares its place with the player above.
    pub tied_with_previous: bool,
    /// The value of each requested criterion, in the order asked.
    pub values: Vec<i64>,
    /// Direct confrontation and its simplified form (0 unless DC or SDC is a criterion).
    pub dc: i64,
    pub sdc: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Standings {
    pub after_round: RoundNumber,
    pub criteria: Vec<Criterion>,
    /// Rows in placement order.
    pub rows: Vec<Row>,
}

/// Every criterion of every player after rounds 1..=r, computed once per call.
pub struct Scores {
    ids: Vec<PlayerId>,
    /// Per player, per criterion index (see [`crit_index`]), the value after round `r`.
    table: Vec<[i64; N_CRITS]>,
}

const N_CRITS: usize = 25;

fn crit_index(c: Crit) -> usize {
    c as usize
}

impl Scores {
    /// Criterion `c` of the player at index `i` of `t.players` (the data these were computed
    /// from), without the search by id [`Scores::value`] does.
    pub fn at(&self, i: usize, c: Crit) -> i64 {
        self.table[i][crit_index(c)]
    }

    pub fn value(&self, id: PlayerId, c: Crit) -> Option<i64> {
        let i = self.ids.iter().position(|&x| x == id)?;
        Some(self.table[i][crit_index(c)])
    }
}

/// Whether a game's result is "by default" (not played over the board).
fn played(g: &super::model::Game) -> bool {
    g.outcome != Outcome::Unknown && !g.forfeit
}

/// Computes every criterion after round `r` (1-based; 0 gives the starting values).
pub fn scores(t: &TournamentData, r: RoundNumber) -> Scores {
    let s = &t.settings;
    let n = t.players.len();
    let ids: Vec<PlayerId> = t.players.iter().map(|p| p.id).collect();
    let idx = PlayerIndex::new(t);
    let nr = r as usize;
    let mc = &s.mcmahon;
    let smms: Vec<i64> = t
        .players
        .iter()
        .map(|p| {
            let x = p.rank.clamp(mc.floor, mc.bar.max(mc.floor)) - mc.zero;
            (x + p.mms_correction) as i64
        })
        .collect();
    // Participation per player per round (0-based round index).
    let part = participation(t, nr);
    let game = |i: usize, k: usize| -> Option<&super::model::Game> {
        match part[i][k] {
            Part::Paired(gi) => t.round(k as u32 + 1).map(|rd| &rd.games[gi]),
            _ => None,
        }
    };
    // Points (half) player i got from its game in round k.
    let wx2 = |i: usize, k: usize| -> i64 {
        let Some(g) = game(i, k) else { return 0 };
        let (w, b) = g.outcome.points2();
        if g.white == ids[i] {
            w as i64
        } else {
            b as i64
        }
    };
    // Main scores after round nr (index nr-1), and virtual ones.
    let mut nbw = vec![0i64; n];
    let mut mms = vec![0i64; n];
    let mut cps = vec![0i64; n];
    let mut cussw = vec![0i64; n];
    let mut cussm = vec![0i64; n];
    let mut nbw_v = vec![0i64; n];
    let mut mms_v = vec![0i64; n];
    let mut mms_at = vec![vec![0i64; nr.max(1)]; n];
    for i in 0..n {
        // A request's time budget (crate::budget): stop early; the caller discards the values.
        if i.is_multiple_of(1024) && crate::budget::expired() {
            break;
        }
        let (mut gpts, mut cpsg) = (0i64, 0i64);
        let (mut ab_n, mut ab_m) = (0i64, 0i64);
        let (mut gv, mut nvp) = (0i64, 0i64);
        for k in 0..nr {
            let w = wx2(i, k);
            gpts += w;
            // The cup score doubles every round: OpenGotha keeps it in a Java int, which
            // wraps past 30 rounds. Wrap the same way rather than overflow (found by the
            // aga_import fuzz target: a 64-round AGA import).
            cpsg = i64::from((cpsg as i32).wrapping_mul(2).wrapping_add(w as i32));
            match part[i][k] {
                Part::Absent => {
                    ab_n += s.scoring.nbw2_absent as i64;
                    ab_m += s.scoring.mms2_absent as i64;
                }
                Part::Bye => {
                    ab_n += s.scoring.nbw2_bye as i64;
                    ab_m += s.scoring.mms2_bye as i64;
                }
                _ => {}
            }
            let (an, am) = if s.scoring.round_down {
                (ab_n / 2 * 2, ab_m / 2 * 2)
            } else {
                (ab_n, ab_m)
            };
            nbw[i] = gpts + an;
            mms[i] = 2 * smms[i] + gpts + am;
            // OpenGotha adds the cumulative absence credit to a cup score that doubles each
            // round without re-doubling that credit.
            cps[i] = i64::from((cpsg as i32).wrapping_add(an as i32));
            mms_at[i][k] = mms[i];
            cussw[i] += nbw[i];
            cussm[i] += mms[i];
            match game(i, k) {
                Some(g) if played(g) => gv += w,
                _ => nvp += 1,
            }
            nbw_v[i] = gv + nvp;
            mms_v[i] = 2 * smms[i] + gv + nvp;
        }
        if nr == 0 {
            mms[i] = 2 * smms[i];
        }
    }
    let virt = s.scoring.count_not_played_as_half;
    let mut table = vec![[0i64; N_CRITS]; n];
    let mut sosw = vec![0i64; n];
    let mut sosm = vec![0i64; n];
    for i in 0..n {
        let mut osw = Vec::with_capacity(nr);
        let mut osm = Vec::with_capacity(nr);
        let (mut sdsw, mut sdsm) = (0i64, 0i64);
        let (mut ext, mut exr) = (0i64, 0i64);
        for k in 0..nr {
            match game(i, k) {
                Some(g) => {
                    let o = g.opponent(ids[i]).and_then(|x| idx.get(x));
                    let Some(o) = o else {
                        osw.push(0);
                        osm.push(2 * smms[i]);
                        continue;
                    };
                    let res = wx2(i, k);
                    let w = if virt { nbw_v[o] } else { nbw[o] };
                    let mut m = if virt { mms_v[o] } else { mms[o] };
                    let white = g.white == ids[i];
                    let h = 2 * g.handicap as i64;
                    m += if white { h } else { -h };
                    osw.push(w);
                    osm.push(m);
                    sdsw += w * res;
                    sdsm += m * res;
                    let real = if white {
                        g.handicap as i64
                    } else {
                        -(g.handicap as i64)
                    };
                    let natural = (t.players[i].rank - t.players[o].rank) as i64;
                    let coef = match real - natural {
                        d if d < 0 => 0,
                        0 => 1,
                        1 => 2,
                        _ => 3,
                    };
                    ext += nbw[o] * coef;
                    let won = match g.outcome {
                        Outcome::WhiteWins => white,
                        Outcome::BlackWins => !white,
                        Outcome::BothWin => true,
                        _ => false,
                    };
                    if won {
                        exr += nbw[o] * coef;
                    }
                }
                None => {
                    osw.push(0);
                    osm.push(2 * smms[i]);
                }
            }
        }
        sosw[i] = osw.iter().sum();
        sosm[i] = osm.iter().sum();
        let row = &mut table[i];
        row[crit_index(Crit::Sosw)] = sosw[i];
        row[crit_index(Crit::Sosm)] = sosm[i];
        row[crit_index(Crit::Sodosw)] = sdsw;
        row[crit_index(Crit::Sodosm)] = sdsm;
        row[crit_index(Crit::Sosts)] = sosm[i];
        let (w1, w2) = minus_smallest(&osw);
        row[crit_index(Crit::SoswM1)] = w1;
        row[crit_index(Crit::SoswM2)] = w2;
        // OpenGotha stores SOSM-1/-2 only from the third round on.
        if nr >= 3 {
            let (m1, m2) = minus_smallest(&osm);
            row[crit_index(Crit::SosmM1)] = m1;
            row[crit_index(Crit::SosmM2)] = m2;
        }
        row[crit_index(Crit::Ext)] = ext;
        row[crit_index(Crit::Exr)] = exr;
    }
    for i in 0..n {
        let (mut ssw, mut ssm) = (0i64, 0i64);
        for k in 0..nr {
            match game(i, k)
                .and_then(|g| g.opponent(ids[i]))
                .and_then(|x| idx.get(x))
            {
                Some(o) => {
                    ssw += sosw[o];
                    ssm += sosm[o];
                }
                None => ssm += 2 * smms[i] * nr as i64,
            }
        }
        let p = &t.players[i];
        let ncat = s.categories.len();
        let cat = if ncat == 0 {
            0
        } else {
            s.categories
                .iter()
                .position(|&l| p.rank >= l)
                .unwrap_or(ncat) as i64
        };
        let row = &mut table[i];
        row[crit_index(Crit::Sososw)] = ssw;
        row[crit_index(Crit::Sososm)] = ssm;
        row[crit_index(Crit::Cat)] = -cat;
        row[crit_index(Crit::Rank)] = p.rank as i64;
        row[crit_index(Crit::Rating)] = p.rating as i64;
        row[crit_index(Crit::Nbw)] = nbw[i];
        row[crit_index(Crit::Mms)] = mms[i];
        row[crit_index(Crit::Cps)] = cps[i];
        row[crit_index(Crit::Cussw)] = cussw[i];
        row[crit_index(Crit::Cussm)] = cussm[i];
        row[crit_index(Crit::Sts)] = sts(s, &mms_at[i], nr, mms[i]);
    }
    // SOSTS sums the opponents' STS the way SOSM sums their MMS.
    let sts_of: Vec<i64> = table.iter().map(|r| r[crit_index(Crit::Sts)]).collect();
    for i in 0..n {
        if virt {
            // OpenGotha never fills the virtual STS: opponents count 0 (plus the handicap).
            continue;
        }
        let mut v = 0i64;
        for k in 0..nr {
            match game(i, k) {
                Some(g) => match g.opponent(ids[i]).and_then(|x| idx.get(x)) {
                    Some(o) => {
                        let h = 2 * g.handicap as i64;
                        v += sts_of[o] + if g.white == ids[i] { h } else { -h };
                    }
                    None => v += 2 * smms[i],
                },
                None => v += 2 * smms[i],
            }
        }
        table[i][crit_index(Crit::Sosts)] = v;
    }
    if virt {
        for i in 0..n {
            let mut v = 0i64;
            for k in 0..nr {
                match game(i, k) {
                    Some(g) if g.opponent(ids[i]).is_some_and(|x| idx.get(x).is_some()) => {
                        let h = 2 * g.handicap as i64;
                        v += if g.white == ids[i] { h } else { -h };
                    }
                    _ => v += 2 * smms[i],
                }
            }
            table[i][crit_index(Crit::Sosts)] = v;
        }
    }
    Scores { ids, table }
}

/// Strasbourg score: MMS, plus 2 points for a top-group player still unbeaten at the
/// quarter-final, and 2 more at the semi-final (OpenGotha's test, on the tournament's last
/// three rounds).
fn sts(s: &super::model::Settings, mms_at: &[i64], nr: usize, mms: i64) -> i64 {
    let total = s.rounds as i64;
    let bar = s.mcmahon.bar as i64;
    // OpenGotha reads 0 before round 1.
    let at = |k: i64| -> i64 {
        if k < 0 || k as usize >= nr {
            0
        } else {
            mms_at[k as usize]
        }
    };
    let mut v = mms;
    let r = nr as i64 - 1;
    if at(total - 3) == 2 * (30 + bar + total - 2) && r >= total - 3 {
        v += 4;
    }
    if at(total - 2) == 2 * (30 + bar + total - 1) && r >= total - 2 {
        v += 4;
    }
    v
}

/// SOS minus the smallest term, and minus the two smallest, as OpenGotha computes them (after
/// two rounds, the "minus one" is the larger of the two terms; after one, both are 0).
fn minus_smallest(terms: &[i64]) -> (i64, i64) {
    match terms.len() {
        0 | 1 => (0, 0),
        2 => (terms[0].max(terms[1]), 0),
        _ => {
            let mut v = terms.to_vec();
            v.sort_unstable();
            let sum: i64 = v.iter().sum();
            (sum - v[0], sum - v[0] - v[1])
        }
    }
}

/// The standings after round `after_round` ordered by `criteria` (NULL criteria ignored):
/// higher values first; players equal on every criterion share a place and are listed by
/// name, then first name. With DC or SDC among the criteria, both are computed as OpenGotha
/// does: within each group of players equal on every criterion before the first of them.
pub fn standings(
    t: &TournamentData,
    after_round: RoundNumber,
    criteria: &[Criterion],
) -> Standings {
    let mut sc = scores(t, after_round);
    let crits: Vec<Crit> = criteria
        .iter()
        .map(|c| c.0)
        .filter(|&c| c != Crit::Nul)
        .collect();
    let by_name = |a: usize, b: usize| {
        let (pa, pb) = (&t.players[a], &t.players[b]);
        utf16_cmp(&pa.name, &pb.name).then_with(|| utf16_cmp(&pa.first_name, &pb.first_name))
    };
    let keys = |sc: &Scores, crits: &[Crit]| -> Vec<Vec<i64>> {
        sc.table
            .iter()
            .map(|row| crits.iter().map(|&c| row[crit_index(c)]).collect())
            .collect()
    };
    let mut order: Vec<usize> = (0..t.players.len()).collect();
    if let Some(d) = crits.iter().position(|&c| c == Crit::Dc || c == Crit::Sdc) {
        // The groups tied before DC/SDC, in the order OpenGotha forms them (primary criteria,
        // then names).
        let primary = keys(&sc, &crits[..d]);
        order.sort_by(|&a, &b| primary[b].cmp(&primary[a]).then_with(|| by_name(a, b)));
        let secondary: Vec<Crit> = if crits[d] == Crit::Dc {
            crits[d + 1..].to_vec()
        } else {
            // OpenGotha orders DC's groups by the criteria after DC; with SDC chosen there
            // are none and DC is computed on games alone.
            Vec::new()
        };
        let sec = keys(&sc, &secondary);
        let games = confrontation::decisive_games(t, after_round, &PlayerIndex::new(t));
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() && primary[order[end]] == primary[order[start]] {
                end += 1;
            }
            if end - start > 1 {
                let group = &order[start..end];
                let (dc, sdc) = confrontation::group(&games, group, &sec);
                for (k, &i) in group.iter().enumerate() {
                    sc.table[i][crit_index(Crit::Dc)] = dc[k];
                    sc.table[i][crit_index(Crit::Sdc)] = sdc[k];
                }
            }
            start = end;
        }
    }
    let key = keys(&sc, &crits);
    order.sort_by(|&a, &b| key[b].cmp(&key[a]).then_with(|| by_name(a, b)));
    let mut rows: Vec<Row> = Vec::with_capacity(order.len());
    for (pos, &i) in order.iter().enumerate() {
        let values = key[i].clone();
        let tied = rows.last().is_some_and(|r| r.values == values);
        let place = if tied {
            rows.last().map_or(1, |r| r.place)
        } else {
            pos as u32 + 1
        };
        rows.push(Row {
            id: t.players[i].id,
            place,
            tied_with_previous: tied,
            values,
            dc: sc.table[i][crit_index(Crit::Dc)],
            sdc: sc.table[i][crit_index(Crit::Sdc)],
        });
    }
    Standings {
        after_round,
        criteria: criteria.to_vec(),
        rows,
    }
}

/// Java's `String.compareTo`: by UTF-16 code units.
fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Every criterion a client can ask for, in OpenGotha's order (NULL left out): the rows of
/// [`criteria::TABLE`].
pub fn criteria_asked() -> impl Iterator<Item = Crit> {
    criteria::TABLE
        .iter()
        .map(|d| d.crit)
        .filter(|&c| c != Crit::Nul)
}

/// How many internal units make one displayed unit: 2 for half-point criteria, 4 for SODOS
/// (quarter points), 1 for rank, rating, DC and SDC (the criterion's [`criteria::Unit`]). CAT
/// is special (see [`display_value`]).
pub fn coef(c: Crit) -> i64 {
    criteria::describe(c).unit.coef()
}

/// A criterion's value in display units: points (12.5, not 25 half points), SODOS in points
/// too, the category as its number from 1 (CAT's internal value is minus the 0-based index).
pub fn display_value(c: Crit, v: i64) -> f64 {
    match criteria::describe(c).unit {
        Unit::Category => (1 - v) as f64,
        _ => v as f64 / coef(c) as f64,
    }
}

/// A criterion's value as OpenGotha prints it (`formatScore`): whole part, then `½`, `¼` or `¾`.
/// Java's truncating division is kept, so a negative half prints as its whole part only.
pub fn format_score(c: Crit, v: i64) -> String {
    if criteria::describe(c).unit == Unit::Category {
        return (1 - v).to_string();
    }
    let k = coef(c);
    let (whole, frac) = (v / k, v % k);
    let f = match (k, frac) {
        (2, 1) | (4, 2) => "½",
        (4, 1) => "¼",
        (4, 3) => "¾",
        _ => "",
    };
    format!("{whole}{f}")
}

/// OpenGotha's short name of a criterion (the EGF table's column titles).
pub fn short_name(c: Crit) -> &'static str {
    criteria::describe(c).short
}

/// A criterion by name: ours ("SOSWM1"), OpenGotha's long names ("SOSW-1", "Rating"), any case.
pub fn parse_criterion(name: &str) -> Option<Crit> {
    criteria::by_any_name(name)
}

#[cfg(test)]
mod display_tests {
    use super::*;

    #[test]
    fn values_display_in_points_and_print_as_opengotha_does() {
        assert_eq!(display_value(Crit::Mms, 25), 12.5);
        assert_eq!(display_value(Crit::Sodosm, 7), 1.75);
        assert_eq!(display_value(Crit::Cat, -2), 3.0);
        assert_eq!(display_value(Crit::Rating, 2100), 2100.0);
        assert_eq!(format_score(Crit::Mms, 25), "12½");
        assert_eq!(format_score(Crit::Sodosw, 7), "1¾");
        assert_eq!(format_score(Crit::Sodosw, 5), "1¼");
        assert_eq!(format_score(Crit::Sodosw, 6), "1½");
        assert_eq!(format_score(Crit::Nbw, 6), "3");
        // Java's remainder is negative here: OpenGotha prints no fraction.
        assert_eq!(format_score(Crit::Sosm, -3), "-1");
        assert_eq!(format_score(Crit::Cat, 0), "1");
    }

    #[test]
    fn the_cup_score_wraps_past_30_rounds_as_opengotha_int_does() {
        use super::super::model::{Game, Outcome, Player, Round, TournamentData};
        // Two players, 40 rounds, the first wins every game: OpenGotha's cup score doubles
        // and adds 2 each round, 2^(r+1) − 2, kept in a Java int.
        let mut t = TournamentData::default();
        t.settings.rounds = 40;
        for id in [1, 2] {
            t.players.push(Player {
                id,
                name: format!("P{id}"),
                ..Player::default()
            });
        }
        t.rounds = (1..=40)
            .map(|_| Round {
                games: vec![Game {
                    table: 1,
                    white: 1,
                    black: 2,
                    outcome: Outcome::WhiteWins,
                    ..Game::default()
                }],
                ..Round::default()
            })
            .collect();
        let java_int = |r: u32| ((1i64 << (r + 1)) - 2) as i32 as i64;
        for r in [1, 2, 30, 31, 40] {
            let sc = scores(&t, r);
            assert_eq!(sc.value(1, Crit::Cps), Some(java_int(r)), "round {r}");
        }
    }

    #[test]
    fn criteria_parse_by_either_name() {
        assert_eq!(parse_criterion("SOSW-1"), Some(Crit::SoswM1));
        assert_eq!(parse_criterion("sosmm2"), Some(Crit::SosmM2));
        assert_eq!(parse_criterion("Rating"), Some(Crit::Rating));
        assert_eq!(parse_criterion("XYZ"), None);
        for c in criteria_asked() {
            assert_eq!(parse_criterion(c.name()), Some(c));
        }
    }
}

/// Direct confrontation (DC) and its simplified form (SDC) inside one group of tied players,
/// as OpenGotha 3.51 computes them (its `defineDirForExAequoGroup` and Matthieu Walraet's
/// confrontation sort, rewritten from their description and behaviour).
mod confrontation {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use super::super::model::{Outcome, RoundNumber, TournamentData};

    /// Per player (index in `t.players`), the games won or lost over the board in rounds
    /// 1..=r: (opponent's index, +1 won / −1 lost). Only White or Black wins count (no jigo,
    /// forfeit or both-win/lose), as in OpenGotha.
    pub(super) fn decisive_games(
        t: &TournamentData,
        r: RoundNumber,
        idx: &super::PlayerIndex,
    ) -> Vec<Vec<(usize, i64)>> {
        let mut out = vec![Vec::new(); t.players.len()];
        for round in t.rounds.iter().take(r as usize) {
            for g in &round.games {
                let (Some(w), Some(b)) = (idx.get(g.white), idx.get(g.black)) else {
                    continue;
                };
                if g.forfeit || w == b {
                    continue;
                }
                let d = match g.outcome {
                    Outcome::WhiteWins => 1,
                    Outcome::BlackWins => -1,
                    _ => continue,
                };
                out[w].push((b, d));
                out[b].push((w, -d));
            }
        }
        out
    }

    /// Net result between group members (by position in `members`).
    fn pair_matrix(games: &[Vec<(usize, i64)>], members: &[usize]) -> Vec<Vec<i64>> {
        let n = members.len();
        let pos: HashMap<usize, usize> = members.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let mut m = vec![vec![0i64; n]; n];
        for (k, &i) in members.iter().enumerate() {
            for &(o, d) in &games[i] {
                if let Some(&j) = pos.get(&o) {
                    m[k][j] += d;
                }
            }
        }
        m
    }

    /// DC and SDC of each member of `group` (player indices, in OpenGotha's order: primary
    /// criteria, then names); `sec[i]` are player i's values of the criteria after DC.
    pub(super) fn group(
        games: &[Vec<(usize, i64)>],
        group: &[usize],
        sec: &[Vec<i64>],
    ) -> (Vec<i64>, Vec<i64>) {
        let n = group.len();
        let mut sdc = vec![0i64; n];
        let clipped: Vec<Vec<i64>> = pair_matrix(games, group)
            .into_iter()
            .map(|row| row.into_iter().map(|x| x.clamp(-1, 1)).collect())
            .collect();
        // SDC only when every pair of the group has a decided net result.
        let relevant = (0..n).all(|i| (0..n).all(|j| i == j || clipped[i][j] != 0));
        if relevant {
            for i in 0..n {
                sdc[i] = (0..n).filter(|&j| clipped[i][j] == 1).count() as i64;
            }
        }
        // DC: the group re-ordered (stably) by the criteria after DC; equal players share a
        // place; each gets sc = n − place, the order used where games do not decide.
        let mut sorted: Vec<usize> = (0..n).collect();
        sorted.sort_by(|&a, &b| sec[group[b]].cmp(&sec[group[a]]));
        let mut place = vec![0usize; n];
        for k in 1..n {
            place[k] = if sec[group[sorted[k]]] == sec[group[sorted[k - 1]]] {
                place[k - 1]
            } else {
                k
            };
        }
        let members: Vec<usize> = sorted.iter().map(|&k| group[k]).collect();
        // Unclipped here: a net +2 between two players adds no edge (OpenGotha's quirk).
        let pair = pair_matrix(games, &members);
        let mut g = Graph::new(place.iter().map(|&p| (n - p) as i64).collect());
        for i in 0..n {
            for j in 0..n {
                if pair[i][j] == 1 {
                    g.game(i, j);
                }
            }
        }
        let rank = g.sort();
        let max = rank.iter().copied().max().unwrap_or(0);
        let mut dc = vec![0i64; n];
        for (k, &orig) in sorted.iter().enumerate() {
            dc[orig] = max - rank[k];
        }
        (dc, sdc)
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Game,
        Cycling,
        Transitive,
        Tr,
    }

    struct Edge {
        from: usize,
        to: usize,
        kind: Kind,
        /// Nodes on the paths this edge stands for (cycle detection).
        via: BTreeSet<usize>,
        /// Still in the graph's edge set (removed edges stay in the arena).
        alive: bool,
    }

    struct Node {
        sc: i64,
        coming: BTreeMap<usize, usize>,
        outgoing: BTreeMap<usize, usize>,
        looped: Option<usize>,
        class: usize,
        rank: i64,
    }

    /// Loser → winner edges between the players of a group.
    struct Graph {
        nodes: Vec<Node>,
        edges: Vec<Edge>,
    }

    impl Graph {
        fn new(sc: Vec<i64>) -> Graph {
            Graph {
                nodes: sc
                    .into_iter()
                    .enumerate()
                    .map(|(i, sc)| Node {
                        sc,
                        coming: BTreeMap::new(),
                        outgoing: BTreeMap::new(),
                        looped: None,
                        class: i,
                        rank: 0,
                    })
                    .collect(),
                edges: Vec::new(),
            }
        }

        fn find(&self, from: usize, to: usize) -> Option<usize> {
            if from == to {
                self.nodes[from].looped
            } else {
                self.nodes[from].outgoing.get(&to).copied()
            }
        }

        fn register(&mut self, e: usize) {
            let (from, to) = (self.edges[e].from, self.edges[e].to);
            if from == to {
                self.nodes[to].looped = Some(e);
            } else {
                self.nodes[from].outgoing.insert(to, e);
                self.nodes[to].coming.insert(from, e);
            }
        }

        fn unregister(&mut self, e: usize) {
            let (from, to) = (self.edges[e].from, self.edges[e].to);
            if from == to {
                self.nodes[to].looped = None;
            } else {
                self.nodes[from].outgoing.remove(&to);
                self.nodes[to].coming.remove(&from);
            }
        }

        fn add(&mut self, from: usize, to: usize, kind: Kind) -> usize {
            self.edges.push(Edge {
                from,
                to,
                kind,
                via: BTreeSet::new(),
                alive: true,
            });
            let e = self.edges.len() - 1;
            self.register(e);
            e
        }

        fn game(&mut self, winner: usize, loser: usize) {
            if self.find(loser, winner).is_none() {
                self.add(loser, winner, Kind::Game);
            }
        }

        fn isolate(&mut self, n: usize) {
            let edges: Vec<usize> = self.nodes[n]
                .coming
                .values()
                .chain(self.nodes[n].outgoing.values())
                .copied()
                .collect();
            for e in edges {
                self.unregister(e);
            }
        }

        /// Every path through `n` becomes a transitive edge (remembering the nodes it went
        /// through); then `n` leaves the graph.
        fn transition(&mut self, n: usize) {
            let coming: Vec<usize> = self.nodes[n].coming.values().copied().collect();
            let outgoing: Vec<usize> = self.nodes[n].outgoing.values().copied().collect();
            for &ce in &coming {
                for &oe in &outgoing {
                    let (from, to) = (self.edges[ce].from, self.edges[oe].to);
                    let te = match self.find(from, to) {
                        Some(e) => e,
                        None => self.add(from, to, Kind::Transitive),
                    };
                    let mut via: BTreeSet<usize> = BTreeSet::new();
                    via.insert(n);
                    via.extend(self.edges[ce].via.iter().copied());
                    via.extend(self.edges[oe].via.iter().copied());
                    if let Some(l) = self.nodes[n].looped {
                        via.extend(self.edges[l].via.iter().copied());
                    }
                    self.edges[te].via.extend(via);
                }
            }
            self.isolate(n);
        }

        fn reinit(&mut self) {
            for e in 0..self.edges.len() {
                if !self.edges[e].alive {
                    continue;
                }
                if matches!(self.edges[e].kind, Kind::Transitive | Kind::Tr) {
                    self.unregister(e);
                    self.edges[e].alive = false;
                } else {
                    self.register(e);
                    self.edges[e].via.clear();
                }
            }
        }

        /// The cycles of the win graph: each node of a cycle gets the cycle's class.
        fn detect_cycles(&mut self) -> Vec<BTreeSet<usize>> {
            let mut with_loop: Vec<usize> = Vec::new();
            for n in 0..self.nodes.len() {
                self.transition(n);
                if let Some(l) = self.nodes[n].looped {
                    // A larger cycle through this node replaces the smaller ones it contains.
                    let via = self.edges[l].via.clone();
                    with_loop.retain(|x| !via.contains(x));
                    with_loop.push(n);
                }
            }
            let mut cycles = Vec::new();
            for &w in &with_loop {
                let mut cycle = BTreeSet::new();
                cycle.insert(w);
                if let Some(l) = self.nodes[w].looped {
                    let via: Vec<usize> = self.edges[l].via.iter().copied().collect();
                    for v in via {
                        self.nodes[v].class = w;
                        cycle.insert(v);
                    }
                }
                cycles.push(cycle);
            }
            self.reinit();
            cycles
        }

        /// Drops the edges inside cycles; each member of a cycle inherits the edges of the
        /// others, so order across the cycle is kept.
        fn remove_cycling_edges(&mut self, cycles: &[BTreeSet<usize>]) {
            for e in 0..self.edges.len() {
                let (from, to) = (self.edges[e].from, self.edges[e].to);
                if self.edges[e].alive && self.nodes[from].class == self.nodes[to].class {
                    self.edges[e].kind = Kind::Cycling;
                    self.unregister(e);
                }
            }
            for cycle in cycles {
                for &origin in cycle {
                    for &dest in cycle {
                        if dest == origin {
                            continue;
                        }
                        let coming: Vec<usize> = self.nodes[origin]
                            .coming
                            .values()
                            .map(|&e| self.edges[e].from)
                            .collect();
                        for from in coming {
                            if !self.nodes[dest].coming.contains_key(&from) {
                                self.add(from, dest, Kind::Tr);
                            }
                        }
                        let outgoing: Vec<usize> = self.nodes[origin]
                            .outgoing
                            .values()
                            .map(|&e| self.edges[e].to)
                            .collect();
                        for to in outgoing {
                            if !self.nodes[dest].outgoing.contains_key(&to) {
                                self.add(dest, to, Kind::Tr);
                            }
                        }
                    }
                }
            }
        }

        /// Ranks from the bottom: repeatedly, the players who beat nobody left, the lowest sc
        /// first, take the worst free ranks. Returns each node's rank (1 = best).
        fn sort(&mut self) -> Vec<i64> {
            let cycles = self.detect_cycles();
            self.remove_cycling_edges(&cycles);
            let mut left: BTreeSet<usize> = (0..self.nodes.len()).collect();
            while !left.is_empty() {
                let free: Vec<usize> = left
                    .iter()
                    .copied()
                    .filter(|&n| self.nodes[n].coming.is_empty())
                    .collect();
                let Some(low) = free.iter().map(|&n| self.nodes[n].sc).min() else {
                    // Cannot happen once cycles are removed; OpenGotha would loop for ever.
                    for &n in &left {
                        self.nodes[n].rank = 1;
                    }
                    break;
                };
                let chosen: Vec<usize> = free
                    .into_iter()
                    .filter(|&n| self.nodes[n].sc == low)
                    .collect();
                let rank = 1 + left.len() as i64 - chosen.len() as i64;
                for n in chosen {
                    self.isolate(n);
                    self.nodes[n].rank = rank;
                    left.remove(&n);
                }
            }
            self.nodes.iter().map(|n| n.rank).collect()
        }
    }
}
