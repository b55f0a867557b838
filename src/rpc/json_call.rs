//! One JSON-RPC call on the method table, whatever carries it: its parameters put in the
//! table's positional order, the call answered through [`super::call_on_wire`] (budget, auth,
//! turns) with its metrics, and the error as a JSON-RPC error object. The jsonrpsee module
//! ([`super::jsonrpc`]) and the subscriptions' HTTP answers (`methods::tournament_live`) both
//! call it; it imports neither, so neither depends on the other through it.

use std::sync::Arc;
use std::time::Instant;

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::Value;

use super::auth::Caller;
use super::{Answer, Ctx, Method, Params, RpcError, Wire};

/// An error as JSON-RPC's error object (its `data` kept).
pub fn to_error(e: RpcError) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(e.code, e.message, e.data)
}

/// Puts JSON-RPC params (absent, array or object) in the table's positional order.
pub fn params_for(method: &Method, raw: Option<&str>) -> Result<Params, RpcError> {
    let Some(raw) = raw else {
        return Ok(Params::default());
    };
    let value: Value =
        serde_json::from_str(raw).map_err(|e| RpcError::invalid_params(format!("params: {e}")))?;
    match value {
        Value::Array(items) => Ok(Params::positional(items)),
        Value::Object(mut named) => {
            let mut slots: Vec<Option<Value>> =
                method.params.iter().map(|p| named.remove(p.name)).collect();
            if let Some(unknown) = named.keys().next() {
                return Err(RpcError::invalid_params(format!(
                    "{} has no parameter {:?} (parameters: {})",
                    method.name,
                    super::error::clip(unknown, super::error::MAX_QUOTED_BYTES),
                    method
                        .params
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            // Trailing absent parameters are simply not given.
            while matches!(slots.last(), Some(None)) {
                slots.pop();
            }
            Ok(Params::from_options(slots))
        }
        Value::Null => Ok(Params::default()),
        other => Err(RpcError::invalid_params(format!(
            "params must be an array or an object, got {other}"
        ))),
    }
}

/// The answer to one JSON-RPC call of `method` through the table (raw `params`, by `caller`),
/// its metrics recorded: what every registered method runs, and the subscription methods over
/// plain HTTP too.
pub(crate) async fn answer(
    ctx: &Arc<Ctx>,
    method: &'static Method,
    params: Option<&str>,
    caller: Caller,
) -> Result<Answer, ErrorObjectOwned> {
    let start = Instant::now();
    let result = match params_for(method, params) {
        Ok(p) => {
            let p = p.with_caller(caller).with_wire(Wire::Json);
            super::call_on_wire(ctx, method, p).await
        }
        Err(e) => Err(e),
    };
    crate::app::metrics::record(method.name, "jsonrpc", result.is_ok(), start);
    result.map_err(to_error)
}
