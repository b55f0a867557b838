//! Imports and exports of tournaments: OpenGotha's XML file (read and write), the EGF table
//! (`.h9`), the standings CSV and the AGA files (register.tde + round files, send2aga,
//! results report). An export that had to change a text says so in [`NameWarning`]s;
//! [`export`] is the one dispatch every caller writes a file through.

pub mod aga;
pub mod csv;
pub mod egf;
pub mod export;
pub mod opengotha_xml;

use serde::Serialize;

use crate::tournament::model::PlayerId;

/// A text of an exported file that could not be written as it is (a name the file's
/// character set cannot hold, a name changed so it cannot shift the file's fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NameWarning {
    /// The player, or none for the tournament's own name and location.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<PlayerId>,
    /// `name` (name and first name), `club`, `country`, `aga_id`, `tournament_name`,
    /// `location` or `komi`.
    pub field: &'static str,
    /// The text as the tournament holds it.
    pub text: String,
    /// The text as the file has it.
    pub written: String,
    /// Some characters could not be written at all (`?` in the EGF table).
    pub lost: bool,
    /// One line for people.
    pub message: String,
}
