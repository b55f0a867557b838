//! Results and game records. A result is one of OpenGotha's outcomes, optionally by forfeit;
//! it may come with an SGF record, which is checked against the game it is filed under
//! (players, board size, handicap, komi, a legal replay under the tournament's rules, `RE`
//! against the result and, where the game was played out, against the recomputed score) with
//! `go::validate`. By default the record is stored with what the check found as warnings,
//! returned to the caller and kept beside the record; in strict mode any mismatch refuses the
//! call instead. A record that is not SGF at all is always refused.

use super::engine::{Event, Tournament};
use super::error::TournamentError;
use super::model::{Game, Outcome, Player, Record, RoundNumber};
use crate::go::Preset;
use crate::go::validate::{Expectations, Severity, validate};
use crate::sgf;

type Result<T> = std::result::Result<T, TournamentError>;

/// Largest record accepted, in bytes (the same cap as `sgf.validate`).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// What to do with the game's record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RecordChange {
    /// Keep the stored record (if any).
    #[default]
    Keep,
    Remove,
    /// Check and store this SGF text.
    Set(String),
}

/// A result to record.
#[derive(Debug, Clone, Default)]
pub struct ResultInput {
    pub outcome: Outcome,
    pub forfeit: bool,
    pub record: RecordChange,
    /// Refuse a record that does not match the game instead of storing it with warnings.
    pub strict: bool,
}

/// The record's player name as we expect it: "Name FirstName" (either order is accepted).
fn name_matches(p: &Player, got: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let got = norm(got);
    let a = norm(&format!("{} {}", p.name, p.first_name));
    let b = norm(&format!("{} {}", p.first_name, p.name));
    got == a || got == b || (p.first_name.trim().is_empty() && got == norm(&p.name))
}

/// The reported result in SGF's spelling, for the `RE` comparison; `None` when SGF cannot
/// express it (both win, both lose, unknown).
fn reported(outcome: Outcome) -> Option<&'static str> {
    match outcome {
        Outcome::WhiteWins => Some("W+"),
        Outcome::BlackWins => Some("B+"),
        Outcome::Jigo => Some("0"),
        _ => None,
    }
}

/// Checks a record against a game. Returns the findings as "code: message" lines, and
/// whether any of them is a mismatch (severity error).
pub fn check_record(
    t: &Tournament,
    game: &Game,
    outcome: Outcome,
    sgf_text: &str,
) -> Result<(Vec<String>, bool)> {
    if sgf_text.len() > MAX_RECORD_BYTES {
        return Err(TournamentError::Invalid(format!(
            "the record is larger than {MAX_RECORD_BYTES} bytes"
        )));
    }
    let parsed = sgf::parse(sgf_text.as_bytes())
        .map_err(|e| TournamentError::RecordUnreadable(e.to_string()))?;
    let s = &t.data.settings;
    let rules = Preset::from_ru(&s.rules);
    let exp = Expectations {
        size: u8::try_from(s.board_size).ok(),
        komi: Some(game.komi2 as f64 / 2.0),
        handicap: Some(game.handicap),
        // Names are checked here (either name order is fine), not by validate.
        player_black: None,
        player_white: None,
        rules,
        result: reported(outcome).map(str::to_string),
        dead: None,
        max_moves: None,
    };
    let verdict = validate(&parsed, &exp);
    let mut lines = Vec::new();
    let mut mismatch = false;
    for f in &verdict.findings {
        if f.severity >= Severity::Warning {
            mismatch |= f.severity == Severity::Error;
            lines.push(format!("{}: {}", f.code, f.message));
        }
    }
    for (colour, id, ident) in [
        (sgf::Colour::Black, game.black, "PB"),
        (sgf::Colour::White, game.white, "PW"),
    ] {
        let Ok(p) = t.player(id) else { continue };
        match parsed.player_name(colour).ok().flatten() {
            Some(got) if name_matches(p, &got) => {}
            Some(got) => {
                mismatch = true;
                lines.push(format!(
                    "player: {ident} is {got:?}, expected {:?}",
                    format!("{} {}", p.name, p.first_name).trim()
                ));
            }
            None => lines.push(format!("player: {ident} missing")),
        }
    }
    if reported(outcome).is_none() && outcome != Outcome::Unknown {
        lines.push(format!(
            "result: RE cannot be checked against {outcome:?} (no SGF equivalent)"
        ));
    }
    Ok((lines, mismatch))
}

impl Tournament {
    /// Sets (or corrects) the result of the game at `table` in a paired round. Returns the
    /// events and the record's warnings.
    pub fn set_result(
        &self,
        round: RoundNumber,
        table: u32,
        input: ResultInput,
    ) -> Result<(Vec<Event>, Vec<String>)> {
        if self.archived {
            return Err(TournamentError::Archived);
        }
        let game = self.game(round, table)?;
        let mut warnings = Vec::new();
        let record = match input.record {
            RecordChange::Keep => game.record.clone(),
            RecordChange::Remove => None,
            RecordChange::Set(text) => {
                let (lines, mismatch) = check_record(self, game, input.outcome, &text)?;
                if input.strict && mismatch {
                    return Err(TournamentError::RecordRejected(lines.join("; ")));
                }
                warnings = lines.clone();
                Some(Record {
                    sgf: text,
                    warnings: lines,
                })
            }
        };
        if input.forfeit && input.outcome == Outcome::Unknown {
            return Err(TournamentError::Invalid(
                "an unknown result cannot be a forfeit".into(),
            ));
        }
        if game.outcome == input.outcome && game.forfeit == input.forfeit && game.record == record {
            return Ok((vec![], warnings));
        }
        Ok((
            vec![Event::ResultSet {
                round,
                table,
                outcome: input.outcome,
                forfeit: input.forfeit,
                record,
            }],
            warnings,
        ))
    }
}
