//! goswiss: a long-running daemon for Go tournaments. One method table served over XML-RPC
//! (wire-compatible with the Ruby rswiss server) and JSON-RPC 2.0 on one port, a pure
//! tournament engine, and a durable event-log store.
//!
//! Layering (docs/architecture.md), each layer importing only those below it: `server` (the
//! HTTP front) → `web` (the pages) → `rpc` (the method table, the wires, auth) → `app` (the
//! registry, budgets and turns, metrics; no protocol) → `store`, `ratings` and the domain
//! (`simulation` → `tournament` → {`pairing`, `aga`, `sgf`, `go`}, `matchmaker` → `pairing`,
//! `go` → `sgf`); `budget` and `config` below them all. The domain modules do no I/O and never
//! import `app`, `rpc`, `server`, `web` or `store`.

#![forbid(unsafe_code)]

pub mod aga;
pub mod app;
pub mod budget;
pub mod config;
pub mod go;
pub mod matchmaker;
pub mod pairing;
pub mod ratings;
pub mod rpc;
pub mod server;
pub mod sgf;
pub mod simulation;
pub mod store;
pub mod tournament;
pub mod web;

pub use server::serve;
