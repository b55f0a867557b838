//! Integration tests: score.

mod cinderblock;
mod gnugo;
mod goscorer;
mod prop;
mod replay;
