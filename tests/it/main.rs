//! The integration tests, one binary (each test file used to be its own binary that linked
//! the whole crate: 68 links). Modules are nested by area; the shared helpers (the daemon on
//! 127.0.0.1:0, raw clients, the browser driver, the PostgreSQL cluster, the pairing oracle)
//! live once in `common`, `postgres_common` and `oracle`. Run one area or file with a filter:
//! `cargo test --release --test it pairing::blossom`.

mod common;
mod oracle;
mod postgres_common;

mod aga;
mod clients;
mod docs;
mod limits;
mod pairing;
mod postgres;
mod protocol;
mod score;
mod server;
mod sgf;
mod store;
mod tournament;
mod web;
