//! Integration tests: sgf.

mod api;
mod golden;
mod oracle;
mod prop;
mod sgfmill;
