//! Integration tests: pairing.

mod blossom;
mod boards;
mod koth;
mod models;
mod narrow;
mod networkx;
mod opengotha;
mod opengotha_exact;
mod oracles;
mod warm;
mod window;
