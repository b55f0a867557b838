//! AGA tournament files ↔ a [`TournamentData`], through the existing `aga` module (the
//! AGATourn/GoPair parsers and reports): import from `register.tde` + round files (`1.tde`,
//! `2.tde`, …), export of the same files, and the `send2aga` / results reports built from
//! them. Players keep their AGA id in `aga_id`; a player without one gets a dummy id
//! `TMP99xxx` (OpenGotha's AGA export also uses 99xxx numbers).
//!
//! The files follow AGATourn's conventions, so AGATourn, GoPair and the AGA read them: komi
//! is an integer with the half point implied (6.5 is written `6`, and `6` is read as 6.5); a
//! result by default is not a game the AGA rates and AGATourn's results are only `b`, `w` and
//! `?`, so it is written as the comment line `# FORFEIT <game line>`, which every AGA tool
//! passes over and goswiss's import reads back as a forfeit; a name is written so that no
//! word of it can be read as a rank, a club or a comment (`J 9d CLUB=PWN #` would otherwise
//! read back as a 9d of club PWN).

use std::collections::HashMap;
use std::fmt::Write as _;

use super::NameWarning;
use crate::aga::lines::{RoundLine, parse_round_line};
use crate::aga::perl::is_word;
use crate::aga::report::{self, Finding, Report, ReportOptions};
use crate::aga::{LineCtx, Severity, Tournament as AgaTournament};
use crate::tournament::model::{
    Game, Outcome, Player, PlayerId, Rank, Round, Settings, TournamentData, parse_rank,
};

/// How a result by default starts its comment line in a round file.
pub const FORFEIT_MARK: &str = "# FORFEIT ";

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

/// At most 40 characters of a file's text, for a message.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().nth(40).is_some() {
        out.push('…');
    }
    out
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
    let declared = match t.rounds() {
        None => 0,
        Some(r) => r
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=crate::tournament::model::MAX_ROUNDS).contains(n))
            .ok_or_else(|| {
                AgaError(format!(
                    "register.tde: ## ROUNDS {:?} is not a number of rounds (1 … {})",
                    clip(&r),
                    crate::tournament::model::MAX_ROUNDS
                ))
            })?,
    };
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
            rating: crate::tournament::model::rating_from_rank(rank),
            rating_origin: "AGA".into(),
            club: p.club.clone(),
            aga_id: id.clone(),
            ..Player::default()
        });
        ids.insert(id.clone(), pid);
    }
    data.rounds = vec![Round::default(); data.settings.rounds as usize];
    // The games in file order, each round file line by line as AGATourn reads it (the
    // object above checked them), with the forfeits goswiss writes as comment lines.
    for (i, text) in rounds.iter().enumerate() {
        let rn = i + 1;
        let Some(round) = data.rounds.get_mut(i) else {
            break;
        };
        let file = format!("{rn}.tde");
        for (k, raw) in text
            .split_inclusive('\n')
            .take_while(|l| *l != "0")
            .enumerate()
        {
            let ctx = LineCtx::new(Some(&file), Some(k + 1));
            let forfeit_line = raw.trim_start().strip_prefix(FORFEIT_MARK);
            let (line, forfeit) = match forfeit_line {
                Some(rest) => (rest, true),
                None => (raw, false),
            };
            let g = match parse_round_line(line, &ctx).0 {
                RoundLine::Game(g) => g,
                _ if forfeit => {
                    return Err(AgaError(format!(
                        "{file} line {}: a FORFEIT comment without a game line",
                        k + 1
                    )));
                }
                _ => continue,
            };
            let who = |id: String| {
                ids.get(&id).copied().ok_or_else(|| {
                    AgaError(format!("{file}: {id} is not registered in register.tde"))
                })
            };
            let outcome = match g.result.as_str() {
                "w" | "W" => Outcome::WhiteWins,
                "b" | "B" => Outcome::BlackWins,
                _ => Outcome::Unknown,
            };
            let number = |what: &str, v: &str| {
                v.trim().parse::<i64>().map_err(|_| {
                    AgaError(format!(
                        "{file} line {}: {what} {:?} is out of range",
                        k + 1,
                        clip(v)
                    ))
                })
            };
            let handicap = number("handicap", &g.handi)?;
            let komi = number("komi", &g.komi)?;
            let table = round.games.len() as u32 + 1;
            round.games.push(Game {
                table,
                white: who(g.white_id())?,
                black: who(g.black_id())?,
                handicap: handicap.clamp(0, 9) as u32,
                // The AGA's integer komi has its half point implied: 6 is 6.5.
                komi2: (2 * komi + 1).clamp(-199, 199) as i32,
                outcome,
                forfeit,
                ..Game::default()
            });
        }
    }
    // Trailing rounds without games were announced but not played yet.
    while data.rounds.last().is_some_and(|r| r.games.is_empty()) {
        data.rounds.pop();
    }
    Ok(data)
}

/// Whether AGATourn reads `id` back as it is: a word (letters, digits, `_`) ending in a digit.
fn usable_id(id: &str) -> bool {
    id.len() >= 2 && id.chars().all(is_word) && id.ends_with(|c: char| c.is_ascii_digit())
}

/// The player's id as both files write it: AGATourn's normal form with the default country
/// (`12345` → `USA12345`), since its round-file reader splits a bare number into a country
/// and a number (`1234` + `5`) and would not find the register's `USA12345`.
fn aga_id(p: &Player) -> String {
    let id = p.aga_id.trim();
    if usable_id(id) {
        crate::aga::rating::normalize_id_strict(id)
    } else {
        format!("TMP{}", 99000 + p.id)
    }
}

fn aga_rank(r: Rank) -> String {
    if r < 0 {
        format!("{}k", -r)
    } else {
        format!("{}d", r + 1)
    }
}

/// Komi in half points as an AGA file writes it: an integer with the half point implied
/// (6.5 → `6`, 0.5 → `0`, −0.5 → `-1`); a whole komi as it is (it reads back as k + ½).
fn komi_text(k2: i32) -> String {
    if k2 % 2 == 0 {
        (k2 / 2).to_string()
    } else {
        (k2 - 1).div_euclid(2).to_string()
    }
}

/// A name as a `register.tde` line can hold it: no `#` (a comment), `=` (`CLUB=`) or `,`
/// (the one comma splits last and first name), no control character, single spaces, and
/// no word after a space that starts with a digit or a minus (AGATourn would take `9d` for
/// the rank and end the name there): the space before such a word becomes `_`.
fn register_name(s: &str) -> String {
    let plain: String = s
        .chars()
        .map(|c| match c {
            '#' | ',' => ' ',
            '=' => '-',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let words: Vec<&str> = plain.split_ascii_whitespace().collect();
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            let numeric = w.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.');
            out.push(if numeric { '_' } else { ' ' });
        }
        out.push_str(w);
    }
    if out.is_empty() { "_".into() } else { out }
}

/// The name of a register line: `Last, First`, each made safe by [`register_name`]; a first
/// name that starts with a digit is glued on with `_` too.
fn full_name(p: &Player) -> String {
    let last = register_name(&p.name);
    if p.first_name.trim().is_empty() {
        return last;
    }
    let first = register_name(&p.first_name);
    let sep = if first.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.') {
        ",_"
    } else {
        ", "
    };
    format!("{last}{sep}{first}")
}

/// The club as `CLUB=` is read back: its word characters only.
fn club_word(club: &str) -> String {
    club.chars().filter(|&c| is_word(c)).collect()
}

/// The tournament as AGA files: `register.tde` and one round file per paired round.
pub struct AgaFiles {
    pub register: String,
    /// `(file name, text)`: `1.tde`, `2.tde`, …
    pub rounds: Vec<(String, String)>,
    /// Names, clubs and ids written otherwise than the tournament holds them, and whole komi
    /// (which AGA files cannot tell from the half above).
    pub warnings: Vec<NameWarning>,
}

/// What the AGA files write otherwise than the tournament holds it: names, clubs and ids
/// made safe for their lines, and whole komi (which AGA files cannot tell from the half
/// above). Cheap: no file is built.
pub fn name_warnings(t: &TournamentData) -> Vec<NameWarning> {
    let mut warnings = Vec::new();
    let mut warn = |p: &Player, field: &'static str, text: String, written: String| {
        if text != written {
            let message = format!(
                "player {} ({} {}): {field} written as {written:?}",
                p.id, p.name, p.first_name
            );
            warnings.push(NameWarning {
                player_id: Some(p.id),
                field,
                text,
                written,
                lost: false,
                message,
            });
        }
    };
    for p in &t.players {
        let plain = if p.first_name.trim().is_empty() {
            p.name.trim().to_string()
        } else {
            format!("{}, {}", p.name.trim(), p.first_name.trim())
        };
        warn(p, "name", plain, full_name(p));
        if !p.aga_id.trim().is_empty() {
            warn(p, "aga_id", p.aga_id.trim().to_string(), aga_id(p));
        }
        warn(p, "club", p.club.trim().to_string(), club_word(&p.club));
    }
    let whole: Vec<(usize, &Game)> = t
        .rounds
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.games.iter().map(move |g| (i + 1, g)))
        .filter(|(_, g)| g.komi2 % 2 == 0)
        .collect();
    if let Some((r, g)) = whole.first() {
        let k = g.komi2 / 2;
        warnings.push(NameWarning {
            player_id: None,
            field: "komi",
            text: k.to_string(),
            written: k.to_string(),
            lost: false,
            message: format!(
                "{} game(s) have a whole komi (round {r} table {}: {k}); AGA files imply half \
                 a point, so they read back as {k}.5",
                whole.len(),
                g.table
            ),
        });
    }
    warnings
}

/// Writes `register.tde` and the round files.
pub fn export(t: &TournamentData) -> AgaFiles {
    let line_safe = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    };
    let mut reg = String::new();
    let _ = writeln!(reg, "## TOURNEY {}", line_safe(&t.settings.name));
    let _ = writeln!(reg, "## ROUNDS {}", t.settings.rounds);
    let mut names: HashMap<PlayerId, (String, String)> = HashMap::new();
    for p in &t.players {
        let id = aga_id(p);
        let name = full_name(p);
        let _ = write!(reg, "{id} {name} {}", aga_rank(p.rank));
        let club = club_word(&p.club);
        if !club.is_empty() {
            let _ = write!(reg, " CLUB={club}");
        }
        reg.push('\n');
        names.insert(p.id, (id, name));
    }
    let mut rounds = Vec::new();
    for (i, r) in t.rounds.iter().enumerate() {
        let mut text = format!("## ROUND {}\n", i + 1);
        for g in &r.games {
            let (Some((w, wn)), Some((b, bn))) = (names.get(&g.white), names.get(&g.black)) else {
                continue;
            };
            let res = match g.outcome {
                Outcome::WhiteWins => "w",
                Outcome::BlackWins => "b",
                // The AGA format has only a winner or "not finished".
                _ => "?",
            };
            if g.forfeit {
                // Not played: no AGA tool reads it, goswiss's import does.
                text.push_str(FORFEIT_MARK);
            }
            let _ = writeln!(
                text,
                "{w} {b} {res} {} {} # {wn} : {bn}",
                g.handicap,
                komi_text(g.komi2)
            );
        }
        rounds.push((format!("{}.tde", i + 1), text));
    }
    AgaFiles {
        register: reg,
        rounds,
        warnings: name_warnings(t),
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

/// A warning that the tournament's results by default were left out of a report.
fn forfeits_finding(t: &TournamentData) -> Option<Finding> {
    let n = t
        .rounds
        .iter()
        .flat_map(|r| &r.games)
        .filter(|g| g.forfeit)
        .count();
    (n > 0).then(|| Finding {
        severity: Severity::Warning,
        code: "report.forfeits_left_out",
        message: format!(
            "{n} result(s) by default left out: the AGA rates only games played (the round \
             files keep them as # FORFEIT comment lines)"
        ),
    })
}

/// GoPair's `send2aga.tde` for the tournament.
pub fn send2aga(t: &TournamentData) -> Result<Report, AgaError> {
    let files = export(t);
    let mut a = load(&files);
    let mut r = report::send2aga(&mut a).map_err(refusal)?;
    r.findings.extend(forfeits_finding(t));
    Ok(r)
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
    let mut r = report::results_report(&a, &opts).map_err(refusal)?;
    r.findings.extend(forfeits_finding(t));
    Ok(r)
}
