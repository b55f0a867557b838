//! Integration tests: store.

mod concurrency;
mod disk_full;
mod durability;
mod tournament_durability;
