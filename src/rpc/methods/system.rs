//! `system.*`: introspection generated from the method table.
use crate::rpc::Method;
pub static METHODS: &[Method] = &[];
