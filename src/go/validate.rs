//! Checking a submitted game record against what the tournament expects
//! (docs/score.md, "Record validation"): game information, setup, a legal main line under the
//! tournament's rules, and the result in `RE` against the recomputed score. The answer is a
//! list of findings (code, severity, node, move number, message), not just pass/fail.
//!
//! Parse limits on the raw bytes (file size) belong to the caller, which holds the bytes.

use std::collections::BTreeSet;

use crate::sgf::{self, Colour, ErrorKind, Value};

use super::board::{Illegal, Stone, Xy, opponent};
use super::game::{Replay, ReplayError, ReplayOptions, replay};
use super::rules::Preset;
use super::score::{ParsedResult, Score, ScoreInput, parse_result, score};

/// What the tournament expects; every field is optional.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    pub size: Option<u8>,
    pub komi: Option<f64>,
    /// Handicap stones (0 = even game).
    pub handicap: Option<u32>,
    pub player_black: Option<String>,
    pub player_white: Option<String>,
    /// The tournament's rules; when absent, the record's RU (else Japanese).
    pub rules: Option<Preset>,
    /// The result reported to the tournament (`B+R`, `W+3.5`, …).
    pub result: Option<String>,
    /// Dead stones at the end (overrides the record's markup).
    pub dead: Option<Vec<Xy>>,
    /// Cap on the number of moves (default 1000).
    pub max_moves: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    /// Main-sequence node index (root = 0), when the finding is tied to a node.
    pub node: Option<usize>,
    pub move_number: Option<u32>,
    pub message: String,
}

/// The verdict.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub findings: Vec<Finding>,
    pub rules: Preset,
    pub replay: Option<Replay>,
    /// The recomputed score, when the game was played out and RE gives a score.
    pub score: Option<Score>,
}

impl Verdict {
    /// No finding of severity error.
    pub fn ok(&self) -> bool {
        self.findings.iter().all(|f| f.severity < Severity::Error)
    }
}

struct Out(Vec<Finding>);

impl Out {
    fn add(&mut self, code: &'static str, severity: Severity, node: Option<usize>, msg: String) {
        self.0.push(Finding {
            code,
            severity,
            node,
            move_number: None,
            message: msg,
        });
    }
}

fn text(game: &sgf::Game, ident: &str) -> Option<String> {
    match game.get(game.root(), ident) {
        Ok(Value::Text(t)) => Some(t),
        _ => None,
    }
}

fn number(game: &sgf::Game, ident: &str) -> Result<Option<i64>, String> {
    match game.get(game.root(), ident) {
        Ok(Value::Number(n)) => Ok(Some(n)),
        Ok(_) => Ok(None),
        Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

fn same_name(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// Dead stones from the last node's markup: `MA` on stones, else stones inside the
/// opponent's `TB`/`TW` territory.
pub fn dead_from_markup(game: &sgf::Game, last: sgf::NodeId, board: &super::Board) -> Vec<Xy> {
    let h = board.height();
    let points = |ident: &str| -> BTreeSet<sgf::Point> {
        match game.get(last, ident) {
            Ok(Value::Points(p)) => p,
            _ => BTreeSet::new(),
        }
    };
    let mut out = Vec::new();
    for p in points("MA") {
        if let Some(xy) = Xy::from_point(p, h)
            && board.get(xy) != Stone::Empty
        {
            out.push(xy);
        }
    }
    if out.is_empty() {
        for (ident, dead_colour) in [("TB", Stone::White), ("TW", Stone::Black)] {
            for p in points(ident) {
                if let Some(xy) = Xy::from_point(p, h)
                    && board.get(xy) == dead_colour
                {
                    out.push(xy);
                }
            }
        }
    }
    out
}

/// Runs the checklist on a loaded record.
pub fn validate(game: &sgf::Game, exp: &Expectations) -> Verdict {
    let mut out = Out(Vec::new());
    let root = game.root();
    use Severity::{Error, Info, Warning};

    // 1. Format.
    match number(game, "GM") {
        Ok(None | Some(1)) => {}
        Ok(Some(g)) => out.add("not_go", Error, Some(0), format!("GM[{g}] is not Go")),
        Err(e) => out.add("bad_property", Error, Some(0), format!("GM: {e}")),
    }
    match number(game, "FF") {
        Ok(None | Some(1..=4)) => {}
        Ok(Some(f)) => out.add("bad_ff", Warning, Some(0), format!("FF[{f}] is not 1 to 4")),
        Err(e) => out.add("bad_property", Warning, Some(0), format!("FF: {e}")),
    }

    // 2. Game information.
    let size = game.size();
    if let Some(want) = exp.size
        && want != size
    {
        out.add(
            "size",
            Error,
            Some(0),
            format!("board size {size}, expected {want}"),
        );
    }
    match game.komi() {
        Ok(k) => {
            if let Some(want) = exp.komi
                && (k - want).abs() > 1e-9
            {
                out.add("komi", Error, Some(0), format!("komi {k}, expected {want}"));
            }
        }
        Err(e) => out.add("komi", Error, Some(0), format!("KM unreadable: {e}")),
    }
    let handicap = match game.handicap() {
        Ok(h) => h.unwrap_or(0).max(0) as u32,
        Err(_) => {
            out.add(
                "handicap",
                Error,
                Some(0),
                "HA[1] or unreadable HA".to_owned(),
            );
            0
        }
    };
    if let Some(want) = exp.handicap
        && want != handicap
        && !(want <= 1 && handicap == 0)
    {
        out.add(
            "handicap",
            Error,
            Some(0),
            format!("handicap {handicap}, expected {want}"),
        );
    }
    let ru = text(game, "RU");
    let ru_preset = ru.as_deref().and_then(Preset::from_ru);
    if let Some(r) = &ru
        && ru_preset.is_none()
    {
        out.add(
            "rules_unknown",
            Warning,
            Some(0),
            format!("RU[{r}] maps to no rule preset"),
        );
    }
    let rules = exp.rules.or(ru_preset).unwrap_or(Preset::Japanese);
    if let (Some(want), Some(got)) = (exp.rules, ru_preset)
        && want != got
    {
        out.add(
            "rules",
            Warning,
            Some(0),
            format!("RU says {got}, the tournament plays {want}"),
        );
    }
    for (colour, want) in [
        (Colour::Black, &exp.player_black),
        (Colour::White, &exp.player_white),
    ] {
        let Some(want) = want else { continue };
        let got = game.player_name(colour).ok().flatten();
        let ident = if colour == Colour::Black { "PB" } else { "PW" };
        match got {
            Some(g) if same_name(&g, want) => {}
            Some(g) => out.add(
                "player",
                Error,
                Some(0),
                format!("{ident} is {g:?}, expected {want:?}"),
            ),
            None => out.add(
                "player",
                Warning,
                Some(0),
                format!("{ident} missing, expected {want:?}"),
            ),
        }
    }

    // 3. Setup.
    let nodes = game.main_sequence();
    for (k, &n) in nodes.iter().enumerate().skip(1) {
        if game.has_setup_stones(n) {
            out.add(
                "setup_after_root",
                Error,
                Some(k),
                "setup properties after the root node".to_owned(),
            );
        }
    }
    if let Ok((ab, aw, _)) = game.get_setup_stones(root) {
        if handicap >= 2 && (ab.len() != handicap as usize || !aw.is_empty()) {
            out.add(
                "handicap_stones",
                Error,
                Some(0),
                format!(
                    "HA[{handicap}] with {} black and {} white setup stones",
                    ab.len(),
                    aw.len()
                ),
            );
        }
        if handicap < 2 && (!ab.is_empty() || !aw.is_empty()) {
            out.add(
                "setup_without_handicap",
                Warning,
                Some(0),
                format!(
                    "{} black and {} white setup stones without a handicap",
                    ab.len(),
                    aw.len()
                ),
            );
        }
    }

    // 4. Main line.
    let play = rules.rules();
    let opts = ReplayOptions {
        rules: play.play,
        alternation: true,
        lenient_setup: false,
    };
    let replayed = match replay(game, opts) {
        Ok(r) => Some(r),
        Err(ReplayError::IllegalMove {
            number,
            node,
            reason: Illegal::WrongColour,
            ..
        }) => {
            // Report and replay again without alternation to find further problems.
            out.0.push(Finding {
                code: "alternation",
                severity: Error,
                node: Some(node),
                move_number: Some(number),
                message: format!("move {number}: the same colour moved twice"),
            });
            replay_rest(game, opts, &mut out)
        }
        Err(e) => {
            push_replay_error(&mut out, &e);
            None
        }
    };
    if let Some(r) = &replayed {
        let max = exp.max_moves.unwrap_or(1000);
        if r.state.moves > max {
            out.add(
                "too_many_moves",
                Error,
                None,
                format!("{} moves, at most {max}", r.state.moves),
            );
        }
        if let Some(first) = r.moves.first() {
            let want = if handicap >= 2 {
                Colour::White
            } else {
                Colour::Black
            };
            let pl = match game.get(root, "PL") {
                Ok(Value::Colour(c)) => Some(c),
                _ => None,
            };
            let want = pl.unwrap_or(want);
            if first.colour != want {
                out.add(
                    "first_player",
                    Warning,
                    Some(first.node),
                    format!(
                        "first move by {}, expected {}",
                        letter(first.colour),
                        letter(want)
                    ),
                );
            }
        }
    }

    // 5. End of game and result.
    let re = text(game, "RE");
    let parsed = re.as_deref().map(parse_result);
    let mut computed = None;
    if let (Some(reported), Some(p)) = (&exp.result, &parsed) {
        let want = parse_result(reported);
        if winner_of(&want) != winner_of(p) {
            out.add(
                "result_disagrees",
                Error,
                Some(0),
                format!(
                    "RE[{}] but the reported result is {reported}",
                    re.clone().unwrap_or_default()
                ),
            );
        }
    }
    if let (Some(r), Some(ParsedResult::Score { .. } | ParsedResult::Draw)) = (&replayed, &parsed) {
        let aga = rules == Preset::Aga;
        let passes_needed = 2;
        if r.state.trailing_passes < passes_needed {
            out.add(
                "not_played_out",
                Warning,
                None,
                "RE gives a score but the game does not end with two passes".to_owned(),
            );
        } else if aga && r.state.last_colour != Some(Colour::White) {
            out.add(
                "aga_white_last",
                Warning,
                None,
                "AGA: White must pass last".to_owned(),
            );
        }
        let board = &r.state.board;
        let dead = match &exp.dead {
            Some(d) => d.clone(),
            None => dead_from_markup(game, *nodes.last().unwrap_or(&root), board),
        };
        let pos = board.position();
        let mut mask = vec![false; pos.len()];
        for xy in &dead {
            if let Some(i) = pos.index(*xy) {
                for j in pos.chain(i) {
                    mask[j] = true;
                }
            }
        }
        let komi = exp.komi.or_else(|| game.komi().ok()).unwrap_or(0.0);
        let input = ScoreInput {
            komi,
            handicap,
            captures: [board.captures(Colour::Black), board.captures(Colour::White)],
            passes: r.state.passes,
        };
        let s = score(&pos, &mask, &play, &input);
        let re_text = re.clone().unwrap_or_default();
        let agrees = match parsed {
            Some(ParsedResult::Draw) => s.winner.is_none(),
            Some(ParsedResult::Score { winner, margin }) => {
                s.winner == winner && (s.margin.abs() - margin).abs() < 1e-9
            }
            _ => true,
        };
        if !agrees {
            out.add(
                "score_mismatch",
                Warning,
                None,
                format!(
                    "RE[{re_text}] but the position scores {} under {rules} rules{}",
                    s.result,
                    if dead.is_empty() {
                        " (no dead stones marked)"
                    } else {
                        ""
                    }
                ),
            );
        }
        if aga {
            out.add(
                "pass_stones",
                Info,
                None,
                format!(
                    "pass stones: black {}, white {}",
                    r.state.passes[0], r.state.passes[1]
                ),
            );
        }
        computed = Some(s);
    }
    if re.is_none() {
        out.add("no_result", Warning, Some(0), "no RE property".to_owned());
    }
    Verdict {
        findings: out.0,
        rules,
        replay: replayed,
        score: computed,
    }
}

fn letter(c: Colour) -> &'static str {
    match c {
        Colour::Black => "B",
        Colour::White => "W",
    }
}

fn winner_of(p: &ParsedResult) -> Option<Option<Colour>> {
    match p {
        ParsedResult::Score { winner, .. } => Some(*winner),
        ParsedResult::Other { winner, .. } => Some(Some(*winner)),
        ParsedResult::Draw => Some(None),
        ParsedResult::Void | ParsedResult::Unknown => None,
    }
}

fn replay_rest(game: &sgf::Game, opts: ReplayOptions, out: &mut Out) -> Option<Replay> {
    let opts = ReplayOptions {
        alternation: false,
        ..opts
    };
    match replay(game, opts) {
        Ok(r) => Some(r),
        Err(e) => {
            push_replay_error(out, &e);
            None
        }
    }
}

fn push_replay_error(out: &mut Out, e: &ReplayError) {
    let (code, node, number) = match e {
        ReplayError::Record { node, .. } => ("bad_record", Some(*node), None),
        ReplayError::IllegalSetup { node, .. } => ("illegal_setup", Some(*node), None),
        ReplayError::IllegalMove {
            number,
            node,
            reason,
            ..
        } => (reason.code(), Some(*node), Some(*number)),
    };
    out.0.push(Finding {
        code,
        severity: Severity::Error,
        node,
        move_number: number,
        message: e.to_string(),
    });
}

/// The colour to move after a replay.
pub fn to_move(r: &Replay) -> Colour {
    r.state.last_colour.map_or(Colour::Black, opponent)
}
