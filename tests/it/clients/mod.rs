//! Integration tests: clients.

mod python_client;
mod python_tournament;
mod replay_scripts;
mod scripts;
mod typescript_client;
