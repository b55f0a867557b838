//! The tournament engine.
