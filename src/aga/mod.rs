//! AGA (American Go Association) tournament data: player IDs, ranks and ratings, the
//! `register.tde` / round-file / TDList formats, bands, handicap and komi, and the reports sent to
//! the AGA — giving exactly the answers of Perl Games::Go::AGATourn 1.035 and the GoPair 1.001
//! scripts (compat mode, docs/aga.md), with structured diagnostics where they only carp, and a
//! `strict` mode that drops their quirks.
//!
//! Pure domain code: no I/O. Callers hand over file contents as text.

pub mod diag;
pub mod handicap;
pub mod lines;
pub mod perl;
pub mod rating;
pub mod report;
pub mod tdlist;
pub mod tourney;
pub mod tscore;

pub use diag::{LineCtx, Severity, Warning};
pub use tourney::{Mode, Tournament};
