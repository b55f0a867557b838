//! Tournaments in memory in front of the store.
pub struct Registry {}
