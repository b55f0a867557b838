//! OpenGotha XML import and every export (see harness.rs).
#![no_main]

#[path = "harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::opengotha_import(data));
