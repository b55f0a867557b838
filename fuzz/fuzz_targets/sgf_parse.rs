//! The SGF methods with every option (see harness.rs).
#![no_main]

#[path = "harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::sgf_parse(data));
