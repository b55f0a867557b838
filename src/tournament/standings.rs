//! Standings: every placement criterion OpenGotha 3.51 computes, for every player after a
//! given round, and the placement order by the tournament's criteria.
//!
//! Pure: reads a [`TournamentData`], does no I/O. Values are kept in OpenGotha's own units
//! (half points; SODOS in quarter points; CAT as minus the category index) so that comparisons
//! are exact and the values can be checked one for one against OpenGotha's. Direct
//! confrontation (DC, SDC) is not computed yet: both are 0.

// Players and rounds are indexed together throughout (player i, round k), as OpenGotha does.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

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

/// What each player (in `t.players` order) did in rounds 1..=`nr` (index k = round k + 1), as
/// OpenGotha classes it: a game or a bye wins over the participation flags.
pub fn participation(t: &TournamentData, nr: usize) -> Vec<Vec<Part>> {
    let idx: HashMap<PlayerId, usize> = t
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id, i))
        .collect();
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
                if let Some(&i) = idx.get(&pid) {
                    part[i][k] = Part::Paired(gi);
                }
            }
        }
        for b in &round.byes {
            if let Some(&i) = idx.get(b) {
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
    let idx: HashMap<PlayerId, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
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
        let (mut gpts, mut cpsg) = (0i64, 0i64);
        let (mut ab_n, mut ab_m) = (0i64, 0i64);
        let (mut gv, mut nvp) = (0i64, 0i64);
        for k in 0..nr {
            let w = wx2(i, k);
            gpts += w;
            cpsg = 2 * cpsg + w;
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
            cps[i] = cpsg + an;
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
                    let o = g.opponent(ids[i]).and_then(|x| idx.get(&x).copied());
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
                .and_then(|x| idx.get(&x).copied())
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
                Some(g) => match g.opponent(ids[i]).and_then(|x| idx.get(&x).copied()) {
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
                    Some(g) if g.opponent(ids[i]).is_some_and(|x| idx.contains_key(&x)) => {
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
/// name, then first name.
pub fn standings(
    t: &TournamentData,
    after_round: RoundNumber,
    criteria: &[Criterion],
) -> Standings {
    let sc = scores(t, after_round);
    let crits: Vec<Crit> = criteria.iter().map(|c| c.0).collect();
    let mut order: Vec<usize> = (0..t.players.len()).collect();
    let key =
        |i: usize| -> Vec<i64> { crits.iter().map(|&c| sc.table[i][crit_index(c)]).collect() };
    order.sort_by(|&a, &b| {
        key(b).cmp(&key(a)).then_with(|| {
            let (pa, pb) = (&t.players[a], &t.players[b]);
            utf16_cmp(&pa.name, &pb.name).then_with(|| utf16_cmp(&pa.first_name, &pb.first_name))
        })
    });
    let mut rows: Vec<Row> = Vec::with_capacity(order.len());
    for (pos, &i) in order.iter().enumerate() {
        let values = key(i);
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

/// Every criterion a client can ask for, in OpenGotha's order (NULL left out).
pub const CRITERIA: &[Crit] = &[
    Crit::Cat,
    Crit::Rank,
    Crit::Rating,
    Crit::Nbw,
    Crit::Mms,
    Crit::Sts,
    Crit::Cps,
    Crit::Sosw,
    Crit::SoswM1,
    Crit::SoswM2,
    Crit::Sodosw,
    Crit::Sososw,
    Crit::Cussw,
    Crit::Sosm,
    Crit::SosmM1,
    Crit::SosmM2,
    Crit::Sodosm,
    Crit::Sososm,
    Crit::Cussm,
    Crit::Sosts,
    Crit::Ext,
    Crit::Exr,
    Crit::Dc,
    Crit::Sdc,
];

/// How many internal units make one displayed unit: 2 for half-point criteria, 4 for SODOS
/// (quarter points), 1 for rank, rating, DC and SDC. CAT is special (see [`display_value`]).
pub fn coef(c: Crit) -> i64 {
    match c {
        Crit::Nul | Crit::Cat | Crit::Rank | Crit::Rating | Crit::Dc | Crit::Sdc => 1,
        Crit::Sodosw | Crit::Sodosm => 4,
        _ => 2,
    }
}

/// A criterion's value in display units: points (12.5, not 25 half points), SODOS in points
/// too, the category as its number from 1 (CAT's internal value is minus the 0-based index).
pub fn display_value(c: Crit, v: i64) -> f64 {
    match c {
        Crit::Cat => (1 - v) as f64,
        c => v as f64 / coef(c) as f64,
    }
}

/// A criterion's value as OpenGotha prints it (`formatScore`): whole part, then `½`, `¼` or `¾`.
/// Java's truncating division is kept, so a negative half prints as its whole part only.
pub fn format_score(c: Crit, v: i64) -> String {
    if c == Crit::Cat {
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
    match c {
        Crit::Nul => "NULL",
        Crit::Cat => "CAT",
        Crit::Rank => "Rank",
        Crit::Rating => "Rating",
        Crit::Nbw => "NBW",
        Crit::Mms => "MMS",
        Crit::Sts => "STS",
        Crit::Cps => "CPS",
        Crit::Cussw | Crit::Cussm => "CUSS",
        Crit::Sosw | Crit::Sosm => "SOS",
        Crit::SoswM1 | Crit::SosmM1 => "SOS-1",
        Crit::SoswM2 | Crit::SosmM2 => "SOS-2",
        Crit::Sodosw | Crit::Sodosm => "SODOS",
        Crit::Sososw | Crit::Sososm => "SOSOS",
        Crit::Sosts => "SOSTS",
        Crit::Ext => "EXT",
        Crit::Exr => "EXR",
        Crit::Dc => "DC",
        Crit::Sdc => "SDC",
    }
}

/// A criterion by name: ours ("SOSWM1"), OpenGotha's long names ("SOSW-1", "Rating"), any case.
pub fn parse_criterion(name: &str) -> Option<Crit> {
    let u = name.trim().to_uppercase();
    let u = match u.as_str() {
        "SOSW-1" => "SOSWM1",
        "SOSW-2" => "SOSWM2",
        "SOSM-1" => "SOSMM1",
        "SOSM-2" => "SOSMM2",
        other => other,
    };
    Crit::parse(u)
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
    fn criteria_parse_by_either_name() {
        assert_eq!(parse_criterion("SOSW-1"), Some(Crit::SoswM1));
        assert_eq!(parse_criterion("sosmm2"), Some(Crit::SosmM2));
        assert_eq!(parse_criterion("Rating"), Some(Crit::Rating));
        assert_eq!(parse_criterion("XYZ"), None);
        for &c in CRITERIA {
            assert_eq!(parse_criterion(c.name()), Some(c));
        }
    }
}
