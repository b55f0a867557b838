//! A game record prepared for its page: the main line replayed into a list of board changes
//! (so the page script can step through the game without knowing the rules of Go), the final
//! position, and that position counted by `go`'s scorer under the tournament's rules, with
//! the dead stones the record marks.
//!
//! The record was checked when it was stored (its findings are shown beside the board), so
//! the replay here is lenient: a move the rules refuse is skipped instead of ending the game.

use serde::Serialize;

use crate::go::validate::dead_from_markup;
use crate::go::{Board, Owner, Preset, Score, ScoreInput, Stone, SuicideRule, Xy, score};
use crate::sgf::{self, Colour};

/// Most main-line nodes shown: records are at most 1 MiB, but a page need not carry more
/// moves than any real game has.
const MAX_NODES: usize = 5000;

/// One step of the game: the point played (`None`: a pass or a setup-only node) and the
/// points it changed, as (index, before, after) with 0 empty, 1 black, 2 white.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Step {
    #[serde(rename = "m")]
    pub played: Option<u32>,
    #[serde(rename = "c")]
    pub changes: Vec<(u32, u8, u8)>,
}

/// The final position counted.
#[derive(Debug, Clone)]
pub struct Counted {
    pub score: Score,
    /// Points of stones marked dead, row-major from the top.
    pub dead: Vec<bool>,
    /// Whether the game ended with two passes (else the count is of the position as left).
    pub played_out: bool,
}

/// A replayed record.
#[derive(Debug, Clone)]
pub struct GameView {
    pub width: u8,
    pub height: u8,
    /// The position before the first step (setup stones of the root), row-major from the top.
    pub start: Vec<Stone>,
    pub steps: Vec<Step>,
    /// The position after the last step.
    pub last: Vec<Stone>,
    pub counted: Option<Counted>,
}

fn code(s: Stone) -> u8 {
    match s {
        Stone::Empty => 0,
        Stone::Black => 1,
        Stone::White => 2,
    }
}

fn cells(board: &Board) -> Vec<Stone> {
    board.position().cells().to_vec()
}

/// Replays `text` (an SGF record) on a board of the game's size; counts the final position
/// under `rules` (a `score.*` rule set name) with komi and handicap of the game.
pub fn view(text: &str, rules: &str, komi: f64, handicap: u32) -> Result<GameView, String> {
    let game = sgf::parse(text.as_bytes()).map_err(|e| e.to_string())?;
    let size = game.size();
    let mut board = Board::new(size).ok_or_else(|| format!("board size {size} not supported"))?;
    let nodes = game.main_sequence();
    let mut start = None;
    let mut steps = Vec::new();
    let mut prev = cells(&board);
    let mut trailing_passes = 0;
    let mut passes = [0u32; 2];
    let mut last_node = game.root();
    for (k, &node) in nodes.iter().take(MAX_NODES).enumerate() {
        last_node = node;
        if game.has_setup_stones(node) {
            let (ab, aw, ae) = game.get_setup_stones(node).map_err(|e| e.to_string())?;
            for (set, stone) in [(ab, Stone::Black), (aw, Stone::White), (ae, Stone::Empty)] {
                for p in set {
                    if let Some(i) = Xy::from_point(p, size).and_then(|xy| board.index(xy)) {
                        board.set(i, stone);
                    }
                }
            }
            board.remove_dead_chains();
        }
        if k == 0 {
            prev = cells(&board);
            start = Some(prev.clone());
        }
        let mut played = None;
        let mut moved = false;
        if let Ok(Some((colour, point))) = game.get_move(node) {
            moved = true;
            match point.and_then(|p| Xy::from_point(p, size)) {
                None => {
                    trailing_passes += 1;
                    passes[usize::from(colour == Colour::White)] += 1;
                    board.pass();
                }
                Some(xy) => {
                    trailing_passes = 0;
                    if let Some(i) = board.index(xy)
                        && board.play(i, colour, SuicideRule::All, false).is_ok()
                    {
                        played = Some(u32::from(xy.y) * u32::from(size) + u32::from(xy.x));
                    }
                }
            }
        }
        let now = cells(&board);
        let changes: Vec<(u32, u8, u8)> = prev
            .iter()
            .zip(&now)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| (i as u32, code(*a), code(*b)))
            .collect();
        // The root's setup is the start, not a step; any later node that moves or changes is.
        if moved || (k > 0 && !changes.is_empty()) {
            steps.push(Step { played, changes });
        }
        prev = now;
    }
    let last = prev;
    let start = start.unwrap_or_else(|| last.clone());
    let counted =
        count(&game, last_node, &board, rules, komi, handicap, passes).map(|(score, dead)| {
            Counted {
                score,
                dead,
                played_out: trailing_passes >= 2,
            }
        });
    Ok(GameView {
        width: size,
        height: size,
        start,
        steps,
        last,
        counted,
    })
}

/// Counts the final position with the record's dead-stone marks; `None` on an empty board.
fn count(
    game: &sgf::Game,
    last: sgf::NodeId,
    board: &Board,
    rules: &str,
    komi: f64,
    handicap: u32,
    passes: [u32; 2],
) -> Option<(Score, Vec<bool>)> {
    let pos = board.position();
    if pos.cells().iter().all(|&s| s == Stone::Empty) {
        return None;
    }
    let preset = Preset::from_ru(rules).unwrap_or(Preset::Japanese);
    let mut dead = vec![false; pos.len()];
    for xy in dead_from_markup(game, last, board) {
        if let Some(i) = pos.index(xy) {
            for j in pos.chain(i) {
                dead[j] = true;
            }
        }
    }
    let input = ScoreInput {
        komi,
        handicap,
        captures: [board.captures(Colour::Black), board.captures(Colour::White)],
        passes,
    };
    Some((score(&pos, &dead, &preset.rules(), &input), dead))
}

/// Who a point counts for, as the page marks it: `b`, `w` or nothing.
pub fn owner_class(o: Owner) -> Option<&'static str> {
    match o {
        Owner::Black => Some("tb"),
        Owner::White => Some("tw"),
        Owner::Dame | Owner::Neutral => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_undo_to_the_start_and_redo_to_the_end() {
        // A capture at move 4 (B captures the W stone at ba).
        let v = view(
            "(;GM[1]SZ[5]KM[0.5]AB[aa];W[ba];B[ca];W[dd];B[bb];W[];B[])",
            "japanese",
            0.5,
            0,
        )
        .unwrap();
        assert_eq!(v.steps.len(), 6);
        assert_eq!(v.start[0], Stone::Black);
        let mut board: Vec<u8> = v.start.iter().map(|s| code(*s)).collect();
        for s in &v.steps {
            for &(i, old, new) in &s.changes {
                assert_eq!(board[i as usize], old);
                board[i as usize] = new;
            }
        }
        let last: Vec<u8> = v.last.iter().map(|s| code(*s)).collect();
        assert_eq!(board, last);
        // The capture removed the white stone at ba (index 1).
        let capture = &v.steps[3];
        assert!(capture.changes.contains(&(1, 2, 0)), "{capture:?}");
        assert_eq!(capture.played, Some(6));
        assert_eq!(v.steps[4].played, None);
        let c = v.counted.unwrap();
        assert!(c.played_out);
        assert_eq!(c.score.black.captures, 1);
    }

    #[test]
    fn unreadable_records_are_errors_not_panics() {
        assert!(view("not sgf", "japanese", 6.5, 0).is_err());
        assert!(view("(;SZ[99])", "japanese", 6.5, 0).is_err());
    }
}
