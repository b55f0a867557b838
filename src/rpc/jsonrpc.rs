//! JSON-RPC 2.0 adapter: a jsonrpsee `RpcModule` built from the same method table, served over
//! HTTP and WebSocket. Positional and named parameters are both accepted; named ones are put
//! in the table's parameter order. `rpc.discover` returns an OpenRPC document of the table.

use std::sync::Arc;
use std::time::Instant;

use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use super::auth::Caller;
use super::{Ctx, Method, Params, RpcError, TABLE};

fn to_error(e: RpcError) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(e.code, e.message, None::<()>)
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

/// The OpenRPC description of the method table.
pub fn openrpc() -> Value {
    let schema = |ty: &str| match ty {
        "int" => json!({"type": "integer"}),
        "double" => json!({"type": "number"}),
        "boolean" => json!({"type": "boolean"}),
        "string" | "base64" | "dateTime.iso8601" => json!({"type": "string"}),
        "array" => json!({"type": "array"}),
        "struct" => json!({"type": "object"}),
        _ => json!({}),
    };
    let methods: Vec<Value> = TABLE
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "summary": m.help,
                "paramStructure": "either",
                "params": m.params.iter().map(|p| json!({
                    "name": p.name,
                    "required": p.required,
                    // The settings and player structs have schemas of their own (rpc::input).
                    "schema": super::input::param_schema(m.name, p.name)
                        .unwrap_or_else(|| schema(p.ty)),
                })).collect::<Vec<_>>(),
                "result": {"name": "result", "schema": schema(m.returns)},
            })
        })
        .collect();
    json!({
        "openrpc": "1.2.6",
        "info": {"title": "goswiss", "version": env!("CARGO_PKG_VERSION")},
        "methods": methods,
        "components": {"schemas": super::input::components()},
    })
}

/// Builds the module every JSON-RPC connection is served from.
pub fn module(ctx: Arc<Ctx>) -> RpcModule<()> {
    let mut module = RpcModule::new(());
    for method in TABLE.iter().copied() {
        let ctx = Arc::clone(&ctx);
        let registered = module.register_async_method(method.name, move |params, _, ext| {
            let ctx = Arc::clone(&ctx);
            // The HTTP request's (or WebSocket upgrade's) caller, put there by the server.
            let caller = ext.get::<Caller>().cloned().unwrap_or_default();
            async move {
                let start = Instant::now();
                let result = match params_for(method, params.as_str()) {
                    Ok(p) => {
                        let p = p.with_caller(caller).with_wire(super::Wire::Json);
                        super::call_on_wire(&ctx, method, p).await
                    }
                    Err(e) => Err(e),
                };
                crate::server::record(method.name, "jsonrpc", result.is_ok(), start);
                result.map_err(to_error)
            }
        });
        if let Err(e) = registered {
            // Only possible with a duplicate name in the table, which a unit test rules out.
            tracing::error!(method = method.name, error = %e, "method not registered");
        }
    }
    super::methods::tournament::register_subscriptions(&mut module, Arc::clone(&ctx));
    if let Err(e) = module.register_method("rpc.discover", |_, _, _| {
        Ok::<_, ErrorObjectOwned>(openrpc())
    }) {
        tracing::error!(error = %e, "rpc.discover not registered");
    }
    module
}
