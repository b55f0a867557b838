//! A game in progress: the board plus the history superko needs (a map from position hash
//! to the move index that produced it; the setup position is index −1), and the replay of
//! an SGF record's main line that reports the first illegal move precisely.
//!
//! The SGF library's `get_setup_and_moves` refuses setup outside the root (sgfmill's rule);
//! GNU Go's seki files put AB/AW/AE in later nodes, so `replay` walks the main sequence
//! itself (a small adapter over the library's public node API) and applies every node's
//! setup, then its move.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::sgf::{self, Colour};

use super::board::{Board, Illegal, MoveRecord, Stone, Xy, colour_index, opponent};
use super::rules::{KoRule, PlayRules};

/// Zobrist hashes are already uniform: hash them by identity.
#[derive(Default)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type HashIndex = HashMap<u64, i32, BuildHasherDefault<IdentityHasher>>;

/// Mixed into the hash for the situational key: the colour that has just moved.
const SIDE_KEY: [u64; 2] = [0x5851_F42D_4C95_7F2D, 0x1405_7B7E_F767_814F];

/// A board with its history.
#[derive(Debug, Clone)]
pub struct GameState {
    pub board: Board,
    pub rules: PlayRules,
    /// Position hash → index of the move after which it first arose.
    positional: HashIndex,
    /// (position hash ^ side that just moved) → move index.
    situational: HashIndex,
    /// Moves (plays and passes) made so far.
    pub moves: u32,
    /// Passes per colour (AGA pass stones).
    pub passes: [u32; 2],
    /// Consecutive passes at the end.
    pub trailing_passes: u32,
    pub last_colour: Option<Colour>,
    rec: MoveRecord,
}

impl GameState {
    pub fn new(board: Board, rules: PlayRules) -> GameState {
        let mut g = GameState {
            board,
            rules,
            positional: HashIndex::default(),
            situational: HashIndex::default(),
            moves: 0,
            passes: [0, 0],
            trailing_passes: 0,
            last_colour: None,
            rec: MoveRecord::default(),
        };
        g.record_setup(Colour::Black);
        g
    }

    /// Records the current position as the setup position (index −1), with `to_move` the
    /// player to move; call again after changing the setup.
    pub fn record_setup(&mut self, to_move: Colour) {
        self.positional.clear();
        self.situational.clear();
        let h = self.board.hash();
        self.positional.insert(h, -1);
        self.situational
            .insert(h ^ SIDE_KEY[colour_index(opponent(to_move))], -1);
    }

    /// Plays a move (`None` = pass). On an illegal move nothing changes.
    pub fn play(&mut self, colour: Colour, point: Option<Xy>) -> Result<(), Illegal> {
        let Some(p) = point else {
            self.board.pass();
            self.passes[colour_index(colour)] += 1;
            self.trailing_passes += 1;
            self.moves += 1;
            self.last_colour = Some(colour);
            return Ok(());
        };
        let i = self.board.index(p).ok_or(Illegal::OffBoard)?;
        let check_ko = self.rules.ko != KoRule::None;
        self.board
            .play_into(i, colour, self.rules.suicide, check_ko, &mut self.rec)?;
        let index = self.moves as i32;
        let h = self.board.hash();
        let s = h ^ SIDE_KEY[colour_index(colour)];
        match self.rules.ko {
            KoRule::Positional if self.positional.contains_key(&h) => {
                self.board.undo(&self.rec);
                return Err(Illegal::PositionalSuperko);
            }
            KoRule::Situational if self.situational.contains_key(&s) => {
                self.board.undo(&self.rec);
                return Err(Illegal::SituationalSuperko);
            }
            _ => {}
        }
        if matches!(self.rules.ko, KoRule::Positional | KoRule::Situational) {
            self.positional.entry(h).or_insert(index);
            self.situational.entry(s).or_insert(index);
        }
        self.moves += 1;
        self.trailing_passes = 0;
        self.last_colour = Some(colour);
        Ok(())
    }

    /// The stones removed by the last successful play.
    pub fn last_record(&self) -> &MoveRecord {
        &self.rec
    }
}

/// One move of a replayed main line.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayedMove {
    pub colour: Colour,
    pub point: Option<Xy>,
    /// Index of the node in the main sequence (root = 0).
    pub node: usize,
}

/// Why a replay stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayError {
    /// The record itself is unusable (bad SZ, a malformed move value, an off-board point).
    Record { node: usize, message: String },
    /// Setup stones left chains without liberties.
    IllegalSetup { node: usize, removed: usize },
    /// The first illegal move. `number` counts moves from 1 (passes included).
    IllegalMove {
        number: u32,
        node: usize,
        colour: Colour,
        point: Option<Xy>,
        reason: Illegal,
        /// Board height, to print GTP coordinates.
        height: u8,
    },
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Record { node, message } => write!(f, "node {node}: {message}"),
            ReplayError::IllegalSetup { node, removed } => write!(
                f,
                "node {node}: setup position not legal ({removed} stones without liberties)"
            ),
            ReplayError::IllegalMove {
                number,
                colour,
                point,
                reason,
                height,
                ..
            } => {
                let c = match colour {
                    Colour::Black => "B",
                    Colour::White => "W",
                };
                let at = point.map_or_else(
                    || "pass".to_owned(),
                    |p| format!("{} ({})", p.to_sgf(), p.to_gtp(*height)),
                );
                write!(f, "move {number}: {c} {at}: {}", reason.describe())
            }
        }
    }
}

/// How to replay.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    pub rules: PlayRules,
    /// Reject a move by the same colour as the previous one.
    pub alternation: bool,
    /// Accept setup stones that leave chains without liberties (they are removed).
    pub lenient_setup: bool,
}

impl ReplayOptions {
    pub fn new(rules: PlayRules) -> ReplayOptions {
        ReplayOptions {
            rules,
            alternation: false,
            lenient_setup: true,
        }
    }
}

/// A replayed main line.
#[derive(Debug, Clone)]
pub struct Replay {
    pub state: GameState,
    pub moves: Vec<ReplayedMove>,
    /// Main-sequence indices of nodes that carried AB/AW/AE.
    pub setup_nodes: Vec<usize>,
    /// Setup stones placed in the root.
    pub root_setup: (usize, usize),
}

/// Replays `game`'s main line under `opts`: every node's AB, AW, AE (in that order, then
/// removal of chains left without liberties), then its B or W move.
pub fn replay(game: &sgf::Game, opts: ReplayOptions) -> Result<Replay, ReplayError> {
    let size = game.size();
    let board = Board::new(size).ok_or_else(|| ReplayError::Record {
        node: 0,
        message: format!("board size {size} not supported"),
    })?;
    let mut state = GameState::new(board, opts.rules);
    let mut moves = Vec::new();
    let mut setup_nodes = Vec::new();
    let mut root_setup = (0, 0);
    for (k, node) in game.main_sequence().into_iter().enumerate() {
        if game.has_setup_stones(node) {
            let (ab, aw, ae) = game
                .get_setup_stones(node)
                .map_err(|e| ReplayError::Record {
                    node: k,
                    message: e.to_string(),
                })?;
            if k == 0 {
                root_setup = (ab.len(), aw.len());
            }
            for (set, stone) in [
                (&ab, Stone::Black),
                (&aw, Stone::White),
                (&ae, Stone::Empty),
            ] {
                for &p in set {
                    let i = Xy::from_point(p, size)
                        .and_then(|xy| state.board.index(xy))
                        .ok_or_else(|| ReplayError::Record {
                            node: k,
                            message: "setup point off the board".to_owned(),
                        })?;
                    state.board.set(i, stone);
                }
            }
            let removed = state.board.remove_dead_chains();
            if removed > 0 && !opts.lenient_setup {
                return Err(ReplayError::IllegalSetup { node: k, removed });
            }
            setup_nodes.push(k);
            let next = first_mover_after(game, k).unwrap_or(Colour::Black);
            state.record_setup(next);
        }
        let mv = game.get_move(node).map_err(|e| ReplayError::Record {
            node: k,
            message: e.to_string(),
        })?;
        let Some((colour, point)) = mv else { continue };
        let xy = match point {
            None => None,
            Some(p) => Some(Xy::from_point(p, size).ok_or_else(|| ReplayError::Record {
                node: k,
                message: "move off the board".to_owned(),
            })?),
        };
        let number = state.moves + 1;
        let illegal = |reason| ReplayError::IllegalMove {
            number,
            node: k,
            colour,
            point: xy,
            reason,
            height: size,
        };
        if opts.alternation && state.last_colour == Some(colour) {
            return Err(illegal(Illegal::WrongColour));
        }
        state.play(colour, xy).map_err(illegal)?;
        moves.push(ReplayedMove {
            colour,
            point: xy,
            node: k,
        });
    }
    Ok(Replay {
        state,
        moves,
        setup_nodes,
        root_setup,
    })
}

/// The colour of the first move at or after main-sequence node `k`.
fn first_mover_after(game: &sgf::Game, k: usize) -> Option<Colour> {
    game.main_sequence()
        .into_iter()
        .skip(k)
        .find_map(|n| game.get_move(n).ok().flatten().map(|(c, _)| c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::Game;

    use super::super::board::SuicideRule;

    fn rules(ko: KoRule, suicide: SuicideRule) -> ReplayOptions {
        ReplayOptions::new(PlayRules { ko, suicide })
    }

    #[test]
    fn setup_in_later_nodes_and_captures() {
        let g = Game::from_text("(;SZ[3]AB[ba][ab];AW[aa];B[bb])").unwrap();
        let r = replay(&g, rules(KoRule::Simple, SuicideRule::Forbidden)).unwrap();
        // The white setup stone had no liberties and was removed at once.
        assert_eq!(r.state.board.rows(), vec![".b.", "bb.", "..."]);
        assert_eq!(r.setup_nodes, vec![0, 1]);
        let strict = ReplayOptions {
            lenient_setup: false,
            ..rules(KoRule::Simple, SuicideRule::Forbidden)
        };
        assert!(matches!(
            replay(&g, strict),
            Err(ReplayError::IllegalSetup {
                node: 1,
                removed: 1
            })
        ));
    }

    #[test]
    fn alternation_is_optional() {
        let g = Game::from_text("(;SZ[5];B[aa];B[bb])").unwrap();
        assert!(replay(&g, rules(KoRule::Simple, SuicideRule::Forbidden)).is_ok());
        let opts = ReplayOptions {
            alternation: true,
            ..rules(KoRule::Simple, SuicideRule::Forbidden)
        };
        let err = replay(&g, opts).unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2: B bb (B4): the same colour moved twice"
        );
    }

    #[test]
    fn passes_counted() {
        let g = Game::from_text("(;SZ[5];B[aa];W[];B[];W[tt])").unwrap();
        let r = replay(&g, rules(KoRule::Simple, SuicideRule::Forbidden)).unwrap();
        assert_eq!(r.state.trailing_passes, 3);
        assert_eq!(r.state.passes, [1, 2]);
        assert_eq!(r.moves.len(), 4);
    }
}
