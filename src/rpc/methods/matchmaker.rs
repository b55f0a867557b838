//! `matchmaker.*`: the rswiss-compatible namespace.
use crate::rpc::{Method, RpcError};
pub static METHODS: &[Method] = &[];

/// rswiss's fault 1 text for an unknown method or a wrong parameter count.
pub fn missing_or_wrong_params(name: &str) -> RpcError {
    RpcError::new(
        1,
        format!("Method {name} missing or wrong number of parameters!"),
    )
}
