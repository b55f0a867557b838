//! Settings: one serde struct with defaults in code; file < env (GOSWISS_*) < flags.
#[derive(Debug, Clone, Default)]
pub struct Config {}
