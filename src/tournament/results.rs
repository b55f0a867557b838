//! Results and game records. A result is one of OpenGotha's outcomes, optionally by forfeit;
//! it may come with an SGF record, which is checked against the game it is filed under
//! (players, board size, handicap, komi, a legal replay under the tournament's rules, `RE`
//! against the result and, where the game was played out, against the recomputed score) with
//! `go::validate`. By default the record is stored with what the check found as warnings,
//! returned to the caller and kept beside the record; in strict mode any mismatch refuses the
//! call instead. A record that is not SGF at all is always refused.

use super::engine::{Event, Tournament};
use super::error::TournamentError;
use super::model::{Game, Outcome, Player, Record, RecordRef, RoundNumber, warnings_sha256};
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
        // The event this command writes, if any, is the next one of the log.
        let seq = self.revision;
        let mut warnings = Vec::new();
        // What the game's record becomes: its text in this event, or a reference to an
        // earlier one (with this event's warnings when the text was checked anew).
        let (record, record_at, record_warnings) = match input.record {
            RecordChange::Keep => (None, game.record.clone(), None),
            RecordChange::Remove => (None, None, None),
            RecordChange::Set(text) => {
                let (lines, mismatch) = check_record(self, game, input.outcome, &text)?;
                if input.strict && mismatch {
                    return Err(TournamentError::RecordRejected(lines.join("; ")));
                }
                warnings = lines.clone();
                match &game.record {
                    // The stored text again: no second copy of it.
                    Some(old) if old.same_text(&text) => {
                        let at = RecordRef {
                            warnings_seq: seq,
                            warnings_sha256: warnings_sha256(&lines),
                            ..old.clone()
                        };
                        (None, Some(at), Some(lines))
                    }
                    _ => (
                        Some(Record {
                            sgf: text,
                            warnings: lines,
                        }),
                        None,
                        None,
                    ),
                }
            }
        };
        if input.forfeit && input.outcome == Outcome::Unknown {
            return Err(TournamentError::Invalid(
                "an unknown result cannot be a forfeit".into(),
            ));
        }
        let unchanged_record = match (&record, &record_at, &game.record) {
            (None, None, None) => true,
            (None, Some(at), Some(old)) => {
                at.text_seq == old.text_seq && at.warnings_sha256 == old.warnings_sha256
            }
            _ => false,
        };
        if game.outcome == input.outcome && game.forfeit == input.forfeit && unchanged_record {
            return Ok((vec![], warnings));
        }
        Ok((
            vec![Event::ResultSet {
                round,
                table,
                outcome: input.outcome,
                forfeit: input.forfeit,
                record,
                record_at,
                record_warnings,
            }],
            warnings,
        ))
    }
}

/// The whole record (as the event that brought it held it) of the game at `table` in a stored
/// event's body: a `result_set`'s record, or a game's in an event that carries games (a swap
/// written before records were referenced).
fn whole_record_in(body: &serde_json::Value, table: u32) -> Option<&serde_json::Value> {
    if let Some(r) = body.get("record").filter(|r| r.is_object()) {
        return Some(r);
    }
    let game =
        |g: &&serde_json::Value| g.get("table").and_then(|t| t.as_u64()) == Some(table.into());
    body.get("games")
        .and_then(|gs| gs.as_array())
        .and_then(|gs| gs.iter().find(game))
        .or_else(|| body.get("game"))
        .and_then(|g| g.get("record"))
        .filter(|r| r.get("sgf").is_some())
}

/// A game's record read back from the stored events its [`RecordRef`] names: `text_event` is
/// the body of event `text_seq`, `warnings_event` that of `warnings_seq` (parsed), `table`
/// the game's table. Fails (a corrupt log) when they do not hold it.
pub fn stored_record(
    text_event: &serde_json::Value,
    warnings_event: &serde_json::Value,
    table: u32,
) -> Result<Record> {
    let corrupt = |what: &str| {
        TournamentError::Corrupt(format!(
            "the event a record of table {table} refers to holds no {what}"
        ))
    };
    let sgf = whole_record_in(text_event, table)
        .and_then(|r| r.get("sgf"))
        .and_then(|s| s.as_str())
        .ok_or_else(|| corrupt("record text"))?;
    let warnings = warnings_event
        .get("record_warnings")
        .or_else(|| whole_record_in(warnings_event, table).and_then(|r| r.get("warnings")))
        .map(|w| serde_json::from_value::<Vec<String>>(w.clone()))
        .transpose()
        .map_err(|_| corrupt("warnings"))?
        .unwrap_or_default();
    Ok(Record {
        sgf: sgf.to_string(),
        warnings,
    })
}
