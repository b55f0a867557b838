//! goswiss: a long-running daemon for Go tournaments. One method table served over XML-RPC
//! (wire-compatible with the Ruby rswiss server) and JSON-RPC 2.0 on one port, a pure
//! tournament engine, and a durable event-log store.
//!
//! Layering (docs/architecture.md): `server → rpc → {matchmaker, tournament, pairing, aga, sgf,
//! go, store}`. The domain modules do no I/O and never import `rpc`, `server` or `store`.

#![forbid(unsafe_code)]

pub mod aga;
pub mod budget;
pub mod config;
pub mod go;
pub mod matchmaker;
pub mod pairing;
pub mod ratings;
pub mod rpc;
pub mod server;
pub mod sgf;
pub mod store;
pub mod tournament;
pub mod web;

pub use server::serve;
