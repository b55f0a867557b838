//! Integration tests: clients.

mod package;
mod python_client;
mod python_tournament;
mod readme_curl;
mod replay_scripts;
mod ruby_client;
mod scripts;
mod typescript_client;
