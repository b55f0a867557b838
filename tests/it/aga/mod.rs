//! Integration tests: aga.

mod dirs;
mod probes;
mod props;
mod rpc;
