//! Setup and moves of a game's main line (sgfmill's `sgf_moves`): what a rules engine needs
//! to replay a record — the board size, the root setup position and the plays as typed
//! points — plus the inverse helpers that write a position and the first player back.

use std::collections::BTreeSet;

use super::board::Board;
use super::error::SgfError;
use super::props::{Colour, Point, Value};
use super::tree::Game;

/// One play of the main line: colour and point, `None` for a pass.
pub type Play = (Colour, Option<Point>);

/// What `get_setup_and_moves` returns.
#[derive(Debug, Clone)]
pub struct SetupAndMoves {
    /// The board after the root's AB/AW/AE.
    pub board: Board,
    pub plays: Vec<Play>,
}

/// sgfmill's `get_setup_and_moves` with a fresh board of the game's size.
pub fn get_setup_and_moves(game: &Game) -> Result<SetupAndMoves, SgfError> {
    let (width, height) = game.dimensions();
    get_setup_and_moves_on(game, Board::new_rect(width, height))
}

/// The same, starting from `board` (which must be empty and of the game's size).
pub fn get_setup_and_moves_on(game: &Game, mut board: Board) -> Result<SetupAndMoves, SgfError> {
    let (width, height) = game.dimensions();
    if (board.size(), board.height()) != (width, height) {
        let want = if width == height {
            width.to_string()
        } else {
            format!("{width}x{height}")
        };
        return Err(SgfError::value(format!("wrong board size, must be {want}")));
    }
    if !board.is_empty() {
        return Err(SgfError::value("board not empty"));
    }
    let root = game.root();
    let mut nodes = game.main_sequence().into_iter().peekable();
    let (ab, aw, ae) = game.get_setup_stones(root)?;
    if !ab.is_empty() || !aw.is_empty() {
        if !board.apply_setup(&ab, &aw, &ae) {
            return Err(SgfError::value("setup position not legal"));
        }
        if game.get_raw_move(root)?.is_some() {
            return Err(SgfError::value("mixed setup and moves in root node"));
        }
        nodes.next();
    }
    let mut plays = Vec::new();
    for node in nodes {
        if game.has_setup_stones(node) {
            return Err(SgfError::value("setup properties after the root node"));
        }
        if let Some((colour, raw)) = game.get_raw_move(node)? {
            plays.push((colour, game_point(game, raw)?));
        }
    }
    Ok(SetupAndMoves { board, plays })
}

fn game_point(game: &Game, raw: &[u8]) -> Result<Option<Point>, SgfError> {
    match game.interpret(b"B", &[raw])? {
        Value::Move(m) => Ok(m),
        _ => Err(SgfError::value("bad move")),
    }
}

/// Writes `board` as the root's AB/AW (removing AE), like sgfmill's `set_initial_position`.
pub fn set_initial_position(game: &mut Game, board: &Board) -> Result<(), SgfError> {
    let mut black = BTreeSet::new();
    let mut white = BTreeSet::new();
    for (colour, p) in board.stones() {
        match colour {
            Colour::Black => black.insert(p),
            Colour::White => white.insert(p),
        };
    }
    let root = game.root();
    game.set_setup_stones(root, &black, &white, &BTreeSet::new())
}

/// Sets PL on the root when the first mover (the root's first child's move) is not the
/// one a reader would assume (W after a handicap, else B), or when there is setup that
/// makes it ambiguous. A root without children or whose first child has no move: no-op.
pub fn indicate_first_player(game: &mut Game) -> Result<(), SgfError> {
    let root = game.root();
    let Some(first) = game.child(root, 0) else {
        return Ok(());
    };
    let Some((first_player, _)) = game.get_move(first)? else {
        return Ok(());
    };
    let has_handicap = game.has_property(root, "HA");
    let specify =
        if game.has_property(root, "AW") || (game.has_property(root, "AB") && !has_handicap) {
            true
        } else if !has_handicap {
            first_player == Colour::White
        } else {
            first_player == Colour::Black
        };
    if specify {
        game.set(root, "PL", &Value::Colour(first_player))?;
    }
    Ok(())
}
