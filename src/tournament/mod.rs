//! The tournament manager behind `tournament.*`: a real Go tournament run by the daemon —
//! registered players, McMahon/Swiss/SwissCat/Cup rounds paired with OpenGotha's weight,
//! results with game records, standings with every Go tie-breaker, imports and exports.
//!
//! Pure and event-sourced like the matchmaker: commands compute events, the caller makes them
//! durable and then applies them, and every past state can be rebuilt from the log.
//! [`model`] is the tournament as data, shared by the engine, standings and formats.

pub mod crosstable;
pub mod engine;
pub mod error;
pub mod formats;
pub mod model;
pub mod pair;
pub mod patch;
pub mod results;
pub mod standings;
pub mod visibility;
pub mod warnings;

pub use engine::{Event, Tournament};
pub use error::TournamentError;

#[cfg(test)]
mod tests;
