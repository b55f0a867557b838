//! One file per namespace. Each exposes `pub static METHODS: &[Method]`; `all()` concatenates
//! them in the order `system.listMethods` reports.

pub mod aga;
// Colours and handicap after matching, for `pairing.pair` (not a namespace).
pub mod boards;
pub mod matchmaker;
pub mod pairing;
pub mod ratings;
pub mod score;
pub mod sgf;
pub mod simulate;
pub mod system;
pub mod tournament;
pub mod tournament_io;
pub mod tournament_live;
pub mod tournament_standings;
pub mod tournament_types;

use super::Method;

pub fn all() -> Vec<&'static Method> {
    let namespaces: &[&'static [Method]] = &[
        system::METHODS,
        matchmaker::METHODS,
        aga::METHODS,
        sgf::METHODS,
        pairing::METHODS,
        score::METHODS,
        tournament::METHODS,
        tournament_live::METHODS,
        tournament_io::METHODS,
        tournament_standings::METHODS,
        simulate::METHODS,
        ratings::METHODS,
    ];
    namespaces.iter().flat_map(|ns| ns.iter()).collect()
}
