//! Integration tests: clients.

mod clients;
mod python_tournament;
mod replay_scripts;
