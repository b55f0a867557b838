//! GoPair 1.001 `tscore` (docs/aga.md): wins, SOS, SODS and head-to-head (or McMahon MBnd, SOM,
//! SODM) per band, as the byte-exact `scores.txt` / `summary.txt` texts and as structured
//! standings. Where Perl iterates a hash (band membership order, which only matters for exact
//! ties in place and rating) this uses ID order.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::perl::numify;
use super::tourney::Tournament;

/// `tscore` command-line options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TscoreOptions {
    /// `-fr N`: the last round to count; `None` stops before the first round with a `?` result.
    pub final_round: Option<i64>,
    /// `-m`: McMahon scoring.
    pub mcmahon: bool,
    /// `-b bar`: the McMahon bar (default 6).
    pub bar: i64,
    /// `-co columns`: paper width for the summary (default 80).
    pub columns: i64,
}

impl Default for TscoreOptions {
    fn default() -> Self {
        TscoreOptions {
            final_round: None,
            mcmahon: false,
            bar: 6,
            columns: 80,
        }
    }
}

/// One player's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Standing {
    pub id: String,
    pub name: String,
    pub rating: String,
    pub band: usize,
    pub band_name: Option<String>,
    /// 1-based index in the printed order (the summary's opponent index).
    pub index: usize,
    pub wins: i64,
    pub games: i64,
    pub sos: i64,
    pub sods: i64,
    pub hth: i64,
    pub mcmahon_band: i64,
    pub som: i64,
    pub sodm: i64,
    /// 1-based place within the band.
    pub place: i64,
    /// How many players share this place (1 = no tie).
    pub ties: i64,
}

/// The outputs of one `tscore` run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tscore {
    pub scores: String,
    pub summary: String,
    /// What tscore prints on the terminal about `?` results.
    pub notes: Vec<String>,
    pub standings: Vec<Standing>,
    pub last_round: i64,
}

/// Why tscore refuses to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TscoreError {
    /// AGATourn's error flag is set.
    HasErrors,
    /// A player is in no band.
    NotInBand {
        id: String,
        name: String,
        rating: String,
    },
}

impl std::fmt::Display for TscoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TscoreError::HasErrors => {
                write!(
                    f,
                    "the tournament files have errors (AGATourn's error flag is set); fix them first"
                )
            }
            TscoreError::NotInBand { id, name, rating } => write!(
                f,
                "{name} ({id}) with a rating of {rating} is not in any scoring band; \
                 please adjust ##BAND directives in register.tde to cover all players"
            ),
        }
    }
}

type Slot = (i64, String);

fn pad_trunc(s: &str, width: usize) -> String {
    let t: String = s.chars().take(width).collect();
    format!("{t:<width$}")
}

/// Runs `tscore` on a loaded tournament.
pub fn tscore(t: &mut Tournament, opts: &TscoreOptions) -> Result<Tscore, TscoreError> {
    if t.error() {
        return Err(TscoreError::HasErrors);
    }
    // Options come from clients: keep them in a range where the layout arithmetic cannot
    // overflow (tscore itself accepts any number).
    const LIMIT: i64 = 1_000_000;
    let opts = &TscoreOptions {
        final_round: opts.final_round.map(|r| r.clamp(-LIMIT, LIMIT)),
        mcmahon: opts.mcmahon,
        bar: opts.bar.clamp(-LIMIT, LIMIT),
        columns: opts.columns.clamp(-LIMIT, LIMIT),
    };
    let players = t.players().clone();
    let ids: Vec<String> = players.keys().cloned().collect();
    let mut bands: Vec<Vec<String>> = Vec::new();
    let mut wins: HashMap<String, i64> = HashMap::new();
    let mut games: HashMap<String, i64> = HashMap::new();
    let mut mcm: HashMap<String, i64> = HashMap::new();
    for id in &ids {
        let p = &players[id];
        let Some(band) = t.which_band_is(Some(&p.rating)) else {
            return Err(TscoreError::NotInBand {
                id: id.clone(),
                name: p.name.clone(),
                rating: p.rating.clone(),
            });
        };
        if bands.len() <= band {
            bands.resize(band + 1, Vec::new());
        }
        bands[band].push(id.clone());
        let mut mb = numify(&p.rating).trunc() as i64;
        if mb > opts.bar {
            mb = opts.bar;
        }
        if mb < 0 {
            mb += 1;
        }
        mcm.insert(id.clone(), mb);
    }

    // CountGamesWins
    let ing = t
        .directive("RULES")
        .and_then(|r| r.first())
        .is_some_and(|r| r.eq_ignore_ascii_case("ING"));
    let mut opp: HashMap<String, BTreeMap<i64, String>> = HashMap::new();
    let mut color: HashMap<Slot, char> = HashMap::new();
    let mut result: HashMap<Slot, char> = HashMap::new();
    let mut handi: HashMap<Slot, String> = HashMap::new();
    let mut beat: HashSet<(String, String)> = HashSet::new();
    let mut bad: BTreeMap<i64, i64> = BTreeMap::new();
    let mut last_round: i64 = 1;
    for g in t.games().to_vec() {
        let (w, b) = (g.white.clone(), g.black.clone());
        let round = numify(&g.round).trunc() as i64;
        let mut widx = round;
        if opp.entry(w.clone()).or_default().contains_key(&widx) {
            widx = 1 + opp[&w].len() as i64;
        }
        let mut bidx = round;
        if opp.entry(b.clone()).or_default().contains_key(&bidx) {
            bidx = 1 + opp[&b].len() as i64;
        }
        last_round = last_round.max(widx).max(bidx);
        opp.entry(w.clone()).or_default().insert(widx, b.clone());
        opp.entry(b.clone()).or_default().insert(bidx, w.clone());
        color.insert((widx, w.clone()), 'w');
        color.insert((bidx, b.clone()), 'b');
        let h = if !g.handicap.is_empty() && g.handicap != "0" {
            format!("h{}", g.handicap)
        } else {
            let mut komi = numify(&g.komi);
            let mut text = g.komi.clone();
            if komi == -1.0 && ing {
                komi = 0.0;
                text = "0".into();
            }
            if komi < 0.0 {
                format!("r{}", super::perl::fmt_num(-komi))
            } else {
                format!("k{text}")
            }
        };
        handi.insert((widx, w.clone()), h.clone());
        handi.insert((bidx, b.clone()), h);
        match g.result.to_ascii_uppercase().as_str() {
            "W" | "B" => {
                let white_won = g.result.eq_ignore_ascii_case("w");
                let (winner, wslot, loser, lslot) = if white_won {
                    (&w, widx, &b, bidx)
                } else {
                    (&b, bidx, &w, widx)
                };
                result.insert((wslot, winner.clone()), '+');
                result.insert((lslot, loser.clone()), '-');
                beat.insert((winner.clone(), loser.clone()));
                *wins.entry(winner.clone()).or_default() += 1;
                *mcm.entry(winner.clone()).or_default() += 1;
                *games.entry(w.clone()).or_default() += 1;
                *games.entry(b.clone()).or_default() += 1;
            }
            _ => {
                result.insert((widx, w.clone()), '?');
                result.insert((bidx, b.clone()), '?');
                *bad.entry(round).or_default() += 1;
            }
        }
    }
    let mut notes = Vec::new();
    let mut final_round = opts.final_round;
    for (&r, &n) in &bad {
        notes.push(format!(
            "Note: {n} bad result{} in round {r}.",
            if n > 1 { "s" } else { "" }
        ));
        if final_round.is_none() {
            notes.push(format!(
                "  To include round {r}, add \"-fr {r}\" (final_round - use the last round you want to include)."
            ));
            final_round = Some(r - 1);
            break;
        }
    }
    let final_round = final_round.unwrap_or(999);

    let get = |m: &HashMap<String, i64>, k: &str| m.get(k).copied().unwrap_or(0);
    let mut sos: HashMap<String, i64> = HashMap::new();
    let mut som: HashMap<String, i64> = HashMap::new();
    let mut sods: HashMap<String, i64> = HashMap::new();
    let mut sodm: HashMap<String, i64> = HashMap::new();
    for (id, rounds) in &opp {
        for (&slot, o) in rounds {
            if slot > final_round {
                continue;
            }
            *sos.entry(id.clone()).or_default() += get(&wins, o);
            *som.entry(id.clone()).or_default() += get(&mcm, o);
            if beat.contains(&(id.clone(), o.clone())) {
                *sods.entry(id.clone()).or_default() += get(&wins, o);
                *sodm.entry(id.clone()).or_default() += get(&mcm, o);
            }
        }
    }

    // Place, ties, head-to-head: per band, on vectors (these loops are quadratic in a band).
    let key = |x: &str| -> [i64; 5] {
        if opts.mcmahon {
            [
                get(&mcm, x),
                get(&som, x),
                get(&sodm, x),
                get(&sos, x),
                get(&sods, x),
            ]
        } else {
            [get(&wins, x), get(&sos, x), get(&sods, x), 0, 0]
        }
    };
    let count_ties = |places: &[i64]| -> Vec<i64> {
        places
            .iter()
            .enumerate()
            .map(|(i, p)| {
                1 + places
                    .iter()
                    .enumerate()
                    .filter(|&(j, q)| j != i && q == p)
                    .count() as i64
            })
            .collect()
    };
    let mut place: HashMap<String, i64> = HashMap::new();
    let mut ties: HashMap<String, i64> = HashMap::new();
    let mut hth: HashMap<String, i64> = HashMap::new();
    for band in &bands {
        let keys: Vec<[i64; 5]> = band.iter().map(|x| key(x)).collect();
        // Place = how many others of the band beat this player on the tie-breaker sequence.
        let mut places: Vec<i64> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                keys.iter()
                    .enumerate()
                    .filter(|&(j, o)| j != i && o > k)
                    .count() as i64
            })
            .collect();
        let mut band_ties = count_ties(&places);
        if !opts.mcmahon {
            // Head-to-head for two-way ties, in band order, on the places as they change.
            for i in 0..band.len() {
                for j in 0..band.len() {
                    if i == j || places[i] != places[j] || band_ties[i] != 2 {
                        continue;
                    }
                    if beat.contains(&(band[i].clone(), band[j].clone())) {
                        hth.insert(band[i].clone(), 1);
                        places[j] += 1;
                    }
                }
            }
            band_ties = count_ties(&places);
        }
        for (i, id) in band.iter().enumerate() {
            place.insert(id.clone(), places[i]);
            ties.insert(id.clone(), band_ties[i]);
        }
    }

    let rounds_text = t.rounds().unwrap_or_default();
    let mut rounds_num = numify(&rounds_text);
    let mut rounds_print = rounds_text;
    if (last_round as f64) > rounds_num {
        rounds_num = last_round as f64;
        rounds_print = last_round.to_string();
    }
    if final_round < last_round {
        last_round = final_round;
    }
    let tourney = t.tourney().unwrap_or("").to_string();

    // PrintScores
    let rating_of = |id: &str| numify(&players[id].rating);
    let mut sorted_bands: Vec<Vec<String>> = bands.clone();
    for band in sorted_bands.iter_mut() {
        band.sort_by(|a, b| {
            get(&place, a).cmp(&get(&place, b)).then(
                rating_of(b)
                    .partial_cmp(&rating_of(a))
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
        });
    }
    let mut scores = format!("  {tourney}\n");
    if (last_round as f64) < rounds_num {
        scores.push_str(&format!(
            "  Scores after Round {last_round} (of {rounds_print})\n\n"
        ));
    } else {
        scores.push_str(&format!("  Final Scores ({rounds_print} Rounds)\n\n"));
    }
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut standings = Vec::new();
    let mut next = 1;
    for (bi, band) in sorted_bands.iter().enumerate() {
        if band.is_empty() {
            continue;
        }
        let band_name = t.band_name(bi as i64);
        scores.push_str(&format!(
            "\n    Band {}\n\n",
            band_name.clone().unwrap_or_default()
        ));
        if opts.mcmahon {
            scores.push_str(
                "ID       Name                   Wins/Games MBnd SOM SODM SOS SODS Place\n\n",
            );
        } else {
            scores.push_str("ID       Name                    Wins/Games  SOS SODS HtH Place\n\n");
        }
        for id in band {
            index.insert(id.clone(), next);
            let p = &players[id];
            let tie = get(&ties, id);
            let tie_str = if tie > 1 {
                format!("({tie} way tie)")
            } else {
                String::new()
            };
            let label = format!("{} {}", p.name, p.rating);
            let pl = get(&place, id) + 1;
            let line = if opts.mcmahon {
                format!(
                    "{id:<8} {label:<28} {:>2}/{:<2} {:>2} {:>4} {:>4} {:>2}  {:>2} {pl:>3} {tie_str}\n",
                    get(&wins, id),
                    get(&games, id),
                    get(&mcm, id),
                    get(&som, id),
                    get(&sodm, id),
                    get(&sos, id),
                    get(&sods, id),
                )
            } else {
                format!(
                    "{id:<8} {label:<28} {:>2}/{:<2}  {:>3} {:>3}  {:>2}  {pl:>3} {tie_str}\n",
                    get(&wins, id),
                    get(&games, id),
                    get(&sos, id),
                    get(&sods, id),
                    get(&hth, id),
                )
            };
            scores.push_str(&line);
            standings.push(Standing {
                id: id.clone(),
                name: p.name.clone(),
                rating: p.rating.clone(),
                band: bi,
                band_name: band_name.clone(),
                index: next,
                wins: get(&wins, id),
                games: get(&games, id),
                sos: get(&sos, id),
                sods: get(&sods, id),
                hth: get(&hth, id),
                mcmahon_band: get(&mcm, id),
                som: get(&som, id),
                sodm: get(&sodm, id),
                place: pl,
                ties: tie,
            });
            next += 1;
        }
        scores.push_str("\n\n");
    }

    // PrintSummary
    let mut summary = format!("  {tourney}\n");
    if (last_round as f64) < rounds_num {
        summary.push_str(&format!(
            "  Summary after Round {last_round} (of {rounds_print})\n\n"
        ));
    } else {
        summary.push_str(&format!("  Final Summary ({rounds_print} Rounds)\n\n"));
    }
    let mut name_width = t.name_length() as i64;
    let mut digits: i64 = 1;
    let mut entrants = ids.len() as i64;
    while entrants > 9 {
        entrants /= 10;
        digits += 1;
    }
    if opts.columns - (digits + 1 + 5 + 1 + name_width + last_round * (1 + 1 + 2 + 1 + digits)) < 0
    {
        name_width = opts.columns - (digits + 1 + 5 + 1 + last_round * (2 + 1 + digits + 1 + 3));
        if name_width < 10 {
            notes.push(format!(
                "Note: I can't make this fit into {} columns.",
                opts.columns
            ));
            name_width = t.name_length() as i64;
        }
    }
    let nw = name_width.max(0) as usize;
    let dg = digits as usize;
    let idx_text = |id: &str| match index.get(id) {
        Some(i) => format!("{i:<dg$}"),
        None => "none".to_string(),
    };
    let mut line: HashMap<String, String> = HashMap::new();
    for id in &ids {
        let p = &players[id];
        line.insert(
            id.clone(),
            format!(
                "{} {:5.1} {} ",
                idx_text(id),
                numify(&p.rating),
                pad_trunc(&p.name, nw)
            ),
        );
    }
    for (id, rounds) in &opp {
        let l = line.entry(id.clone()).or_default();
        for r in 1..=last_round {
            match rounds.get(&r) {
                Some(o) => {
                    let key = (r, id.clone());
                    l.push_str(&format!(
                        " {}{}{}:{}",
                        color.get(&key).map(char::to_string).unwrap_or_default(),
                        result.get(&key).map(char::to_string).unwrap_or_default(),
                        handi.get(&key).cloned().unwrap_or_default(),
                        idx_text(o)
                    ));
                }
                None => l.push_str("        "),
            }
        }
    }
    let space = " ".repeat(dg.saturating_sub(1));
    let name_space = " ".repeat(nw);
    let mut header = String::new();
    header.push_str(&format!(
        "{space}        {name_space}  +---> color (white or black)\n"
    ));
    header.push_str(&format!(
        "{space}        {name_space}  |+---> '+' for win, '-' for loss\n"
    ));
    header.push_str(&format!(
        "{space}        {name_space}  ||+---> 'h'=handi, 'k'=komi, 'r'=rvrs komi\n"
    ));
    header.push_str(&format!(
        "{} Rank {}  |||  +-> opponent Idx (far left column)\n",
        pad_trunc("Idx", dg + 1),
        pad_trunc("Name", nw)
    ));
    header.push_str(&format!("{space}        {name_space}  |||  |\n"));
    for (bi, band) in sorted_bands.iter().enumerate() {
        if band.is_empty() {
            continue;
        }
        summary.push_str(&format!(
            "\n    Band {}\n",
            t.band_name(bi as i64).unwrap_or_default()
        ));
        summary.push_str(&header);
        for id in band {
            summary.push_str(line.get(id).map_or("", String::as_str));
            summary.push('\n');
        }
        summary.push('\n');
    }
    Ok(Tscore {
        scores,
        summary,
        notes,
        standings,
        last_round,
    })
}
