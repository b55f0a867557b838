//! The XML-RPC request body parser (see harness.rs).
#![no_main]

#[path = "harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::xmlrpc_body(data));
