//! Integration tests: limits.

mod pairing;
mod sgf_aga;
