//! Integration tests: protocol.

mod error_data;
mod fuzz_regressions;
mod jsonrpc;
mod parity;
mod strict_input;
mod xmlrpc_wire;
