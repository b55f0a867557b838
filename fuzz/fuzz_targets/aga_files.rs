//! The AGA file parsers (see harness.rs).
#![no_main]

#[path = "harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::aga_files(data));
