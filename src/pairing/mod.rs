//! The pairing engine: one round of a tournament is a minimum-cost perfect matching over the
//! present players (plus a virtual BYE vertex when their number is odd), solved exactly.
//!
//! `blossom` is the primal–dual matching core, `solve` the exact complete-graph driver
//! (candidate graph, dual pricing, widening when forbidden pairs get in the way), `model` the
//! Algorithm::Pair::Best-style cost models with per-pair explanations and the presets, and
//! `koth` the king-of-the-hill matchmaker used by the tournament engine. Pure code: no I/O.

pub mod blossom;
pub mod criteria;
pub mod fixtures;
pub mod koth;
pub mod model;
pub mod opengotha;
pub mod solve;

pub use blossom::Weight;
pub use koth::{
    KothCosts, KothInput, KothPairing, KothPlayer, NoLegalRound, pair_king_of_the_hill,
};
pub use solve::{
    DenseCosts, Matching, PairCosts, SolveError, SolveOptions, brute_force, check_certificate,
    min_cost_perfect_matching, min_cost_perfect_matching_i128,
};

#[cfg(test)]
mod tests;
