//! The integration tests that hold heavy work still with `budget::Gate`. The gate is
//! process-wide (it holds the next runs of any budgeted work in the process), so these tests
//! cannot share a binary with the others, which do budgeted work at any time; here they run
//! one at a time (`common::serial`).

#[path = "../it/common/mod.rs"]
mod common;

mod budget;
mod limits_stateful;
mod multicall_load;
mod simulation;
mod ws_cancel;
