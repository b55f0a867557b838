//! AGA tournament files ↔ a [`TournamentData`], through the existing `aga` module (the
//! AGATourn/GoPair parsers and reports): import from `register.tde` + round files (`1.tde`,
//! `2.tde`, …), export of the same files, and the `send2aga` / results reports built from
//! them. Players keep their AGA id in `aga_id`; a player without one gets a dummy id
//! `TMP99xxx` (OpenGotha's AGA export also uses 99xxx numbers).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::aga::report::{self, Report, ReportOptions};
use crate::aga::{Severity, Tournament as AgaTournament};
use crate::tournament::model::{
    Game, Outcome, Player, PlayerId, Rank, Round, Settings, TournamentData, parse_rank,
};

#[derive(Debug, thiserror::Error)]
#[error("AGA files: {0}")]
pub struct AgaError(pub String);

/// AGA rating text ("6.5", "-1.6") or rank ("2d", "5k") → OpenGotha's rank integer.
fn rank_of(rating: &str) -> Option<Rank> {
    if let Some(r) = parse_rank(rating) {
        return Some(r);
    }
    let v: f64 = rating.trim().parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    // AGA ratings: 1.0 … 9.99 are dans, −1.0 … −30.99 kyus (a 6.5 is a 6 dan, −1.6 a 1 kyu).
    Some(if v >= 1.0 {
        (v.trunc() as i32 - 1).clamp(0, 8)
    } else {
        -((-v).trunc() as i32).clamp(1, 30)
    })
}

fn split_name(full: &str) -> (String, String) {
    match full.split_once(',') {
        Some((last, first)) => (last.trim().to_string(), first.trim().to_string()),
        None => (full.trim().to_string(), String::new()),
    }
}

fn errors(t: &AgaTournament) -> Option<String> {
    let e: Vec<String> = t
        .log()
        .iter()
        .filter(|w| w.severity == Severity::Error)
        .map(|w| {
            let file = w.file.as_deref().unwrap_or("input");
            match w.line {
                Some(l) => format!("{file} line {l}: {}", w.message),
                None => format!("{file}: {}", w.message),
            }
        })
        .collect();
    (!e.is_empty()).then(|| e.join("; "))
}

/// Imports `register.tde` and the round files (round 1 first).
pub fn import(register: &str, rounds: &[String]) -> Result<TournamentData, AgaError> {
    let texts: Vec<Option<&str>> = rounds.iter().map(|s| Some(s.as_str())).collect();
    let t = AgaTournament::load(register, &texts);
    if let Some(e) = errors(&t) {
        return Err(AgaError(e));
    }
    let mut data = TournamentData {
        settings: Settings::default(),
        ..TournamentData::default()
    };
    let s = &mut data.settings;
    s.name = t.tourney().unwrap_or("AGA tournament").trim().to_string();
    let declared: u32 = t.rounds().and_then(|r| r.trim().parse().ok()).unwrap_or(0);
    s.rounds = declared.max(rounds.len() as u32).max(1);
    if s.rounds > crate::tournament::model::MAX_ROUNDS {
        return Err(AgaError(format!("{} rounds is too many", s.rounds)));
    }
    let mut ids: HashMap<String, PlayerId> = HashMap::new();
    for (k, id) in t.registration_order().iter().enumerate() {
        // Over RPC the import runs within a request's time budget (crate::budget): a big
        // register stops here when it ran out; what is returned then is discarded.
        if k.is_multiple_of(1024) {
            crate::budget::check().map_err(|e| AgaError(e.to_string()))?;
        }
        let Some(p) = t.player(id) else { continue };
        if ids.contains_key(id) {
            continue;
        }
        let rank = p
            .rank
            .as_deref()
            .and_then(rank_of)
            .or_else(|| rank_of(&p.rating))
            .ok_or_else(|| {
                AgaError(format!(
                    "register.tde: player {id}: {:?} is neither a rating nor a rank",
                    p.rating
                ))
            })?;
        let (name, first_name) = split_name(&p.name);
        let pid = data.players.len() as PlayerId + 1;
        data.players.push(Player {
            id: pid,
            name,
            first_name,
            rank,
            // OpenGotha's rating for a rank: 1D = 2100, 100 a grade.
            rating: 2100 + 100 * rank,
            rating_origin: "AGA".into(),
            club: p.club.clone(),
            aga_id: id.clone(),
            ..Player::default()
        });
        ids.insert(id.clone(), pid);
    }
    data.rounds = vec![Round::default(); data.settings.rounds as usize];
    for g in t.games() {
        let rn: usize = g.round.trim().parse().unwrap_or(0);
        if rn == 0 || rn > data.rounds.len() {
            return Err(AgaError(format!("game {} in no round", g.list_string())));
        }
        let who = |id: &str| {
            ids.get(id).copied().ok_or_else(|| {
                AgaError(format!("{rn}.tde: {id} is not registered in register.tde"))
            })
        };
        let outcome = match g.result.as_str() {
            "w" | "W" => Outcome::WhiteWins,
            "b" | "B" => Outcome::BlackWins,
            _ => Outcome::Unknown,
        };
        let handicap: u32 = g.handicap.trim().parse().unwrap_or(0);
        let komi: f64 = g.komi.trim().parse().unwrap_or(0.0);
        let round = &mut data.rounds[rn - 1];
        let table = round.games.len() as u32 + 1;
        round.games.push(Game {
            table,
            white: who(&g.white)?,
            black: who(&g.black)?,
            handicap: handicap.min(9),
            komi2: (komi * 2.0).round().clamp(-200.0, 200.0) as i32,
            outcome,
            ..Game::default()
        });
    }
    // Trailing rounds without games were announced but not played yet.
    while data.rounds.last().is_some_and(|r| r.games.is_empty()) {
        data.rounds.pop();
    }
    Ok(data)
}

fn aga_id(p: &Player) -> String {
    if p.aga_id.trim().is_empty() {
        format!("TMP{}", 99000 + p.id)
    } else {
        p.aga_id.trim().to_string()
    }
}

fn aga_rank(r: Rank) -> String {
    if r < 0 {
        format!("{}k", -r)
    } else {
        format!("{}d", r + 1)
    }
}

fn komi_text(k2: i32) -> String {
    if k2 % 2 == 0 {
        (k2 / 2).to_string()
    } else {
        format!("{:.1}", k2 as f64 / 2.0)
    }
}

/// The tournament as AGA files: `register.tde` and one round file per paired round.
pub struct AgaFiles {
    pub register: String,
    /// `(file name, text)`: `1.tde`, `2.tde`, …
    pub rounds: Vec<(String, String)>,
}

/// Writes `register.tde` and the round files.
pub fn export(t: &TournamentData) -> AgaFiles {
    let mut reg = String::new();
    let _ = writeln!(reg, "## TOURNEY {}", t.settings.name.replace('\n', " "));
    let _ = writeln!(reg, "## ROUNDS {}", t.settings.rounds);
    let name = |p: &Player| {
        if p.first_name.is_empty() {
            p.name.clone()
        } else {
            format!("{}, {}", p.name, p.first_name)
        }
    };
    for p in &t.players {
        let _ = write!(reg, "{} {} {}", aga_id(p), name(p), aga_rank(p.rank));
        if !p.club.trim().is_empty() && !p.club.contains(char::is_whitespace) {
            let _ = write!(reg, " CLUB={}", p.club);
        }
        reg.push('\n');
    }
    let by_id: HashMap<PlayerId, &Player> = t.players.iter().map(|p| (p.id, p)).collect();
    let mut rounds = Vec::new();
    for (i, r) in t.rounds.iter().enumerate() {
        let mut text = format!("## ROUND {}\n", i + 1);
        for g in &r.games {
            let (Some(w), Some(b)) = (by_id.get(&g.white), by_id.get(&g.black)) else {
                continue;
            };
            let res = match g.outcome {
                Outcome::WhiteWins => "w",
                Outcome::BlackWins => "b",
                // The AGA format has only a winner or "not finished".
                _ => "?",
            };
            let _ = writeln!(
                text,
                "{} {} {} {} {} # {} : {}",
                aga_id(w),
                aga_id(b),
                res,
                g.handicap,
                komi_text(g.komi2),
                name(w),
                name(b)
            );
        }
        rounds.push((format!("{}.tde", i + 1), text));
    }
    AgaFiles {
        register: reg,
        rounds,
    }
}

fn load(files: &AgaFiles) -> AgaTournament {
    let texts: Vec<Option<&str>> = files.rounds.iter().map(|(_, t)| Some(t.as_str())).collect();
    AgaTournament::load(&files.register, &texts)
}

fn refusal(r: report::Refusal) -> AgaError {
    AgaError(
        r.findings
            .iter()
            .map(|f| f.message.clone())
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// GoPair's `send2aga.tde` for the tournament.
pub fn send2aga(t: &TournamentData) -> Result<Report, AgaError> {
    let files = export(t);
    let mut a = load(&files);
    report::send2aga(&mut a).map_err(refusal)
}

/// The AGA results report; the dates and location default to the tournament's own.
pub fn results_report(t: &TournamentData, mut opts: ReportOptions) -> Result<Report, AgaError> {
    let s = &t.settings;
    if opts.start.is_none() && !s.begin_date.is_empty() {
        opts.start = Some(s.begin_date.clone());
    }
    if opts.finish.is_none() && !s.end_date.is_empty() {
        opts.finish = Some(s.end_date.clone());
    }
    if opts.location.is_none() && !s.location.is_empty() {
        opts.location = Some(s.location.clone());
    }
    let files = export(t);
    let a = load(&files);
    report::results_report(&a, &opts).map_err(refusal)
}
