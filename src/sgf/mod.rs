//! SGF game records: reading, editing and writing them exactly as sgfmill 1.1.1 does
//! (docs/sgf.md describes the behaviour and the deliberate differences), with charset handling through `encoding_rs` and opt-in
//! leniencies where sgfmill is wrong (multibyte charsets, Nihon Ki-in roots, UTF-16).
//!
//! Layout: `grammar` (bytes → node arena), `tree` (the [`Game`]: nodes, properties, editing),
//! `props` (typed values), `charset` (CA), `serialise` (arena → bytes), `moves` (setup and
//! main-line plays for a rules engine) and `board` (sgfmill's reference board). Pure: no I/O.
//!
//! A rules engine replays a record with [`Game::size`] and [`get_setup_and_moves`], which
//! gives the setup position and the plays as typed [`Point`]s (row 0 at the bottom).

pub mod board;
pub mod charset;
pub mod error;
pub(crate) mod grammar;
pub mod moves;
pub mod props;
pub(crate) mod serialise;
pub mod tree;

pub use board::Board;
pub use charset::{Charset, Multibyte};
pub use error::{ErrorKind, SgfError};
pub use moves::{
    Play, SetupAndMoves, get_setup_and_moves, indicate_first_player, set_initial_position,
};
pub use props::{Colour, Point, PropType, Value};
pub use tree::{
    Exceeded, Game, LoadOptions, NodeId, load_collection, load_collection_within, parse,
    parse_collection,
};
