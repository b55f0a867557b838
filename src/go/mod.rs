//! Go rules and scoring (docs/score.md): a board of any size from 1 to 52 with captures,
//! suicide and ko per rule set, positional and situational superko through a Zobrist
//! position hash; the replay of an SGF main line that names the first illegal move;
//! Cinderblock's dead-stone marking session; scoring under every preset (area and territory
//! counting, seki and false eyes, handicap bonus, komi, draws); and the checklist that
//! validates a submitted game record.
//!
//! Pure domain code: no I/O and no RPC types. The SGF records come from `crate::sgf`.

mod bits;
pub mod board;
pub mod game;
pub mod position;
pub mod rules;
pub mod scorable;
pub mod score;
pub mod territory;
pub mod validate;

pub use board::{Board, Illegal, Stone, SuicideRule, Xy};
pub use game::{GameState, Replay, ReplayError, ReplayOptions, replay};
pub use position::Position;
pub use rules::{Counting, HandicapBonus, KoRule, PlayRules, Preset, RuleSet};
pub use scorable::{Category, MarkMode, Scorable};
pub use score::{Owner, Score, ScoreInput, SideScore, parse_result, result_string, score};
pub use territory::{PointStatus, area_scoring, plainly_settled, territory_scoring};
