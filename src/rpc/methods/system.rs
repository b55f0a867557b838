//! `system.*`: introspection and multicall, generated from the method table, and `system.echo`,
//! which does no work at all so the bare cost of each protocol stack can be measured against
//! the real methods.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::rpc::openrpc::{Doc, NoParams};
use crate::rpc::{
    self, Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult,
};

/// `system.methodHelp`'s and `system.methodSignature`'s parameters.
#[derive(Deserialize, JsonSchema)]
pub struct MethodNameParams {
    /// A method's name, as `system.listMethods` gives it.
    pub method_name: String,
}

/// `system.echo`'s parameters.
#[derive(Deserialize, JsonSchema)]
pub struct EchoParams {
    /// Any value: it comes back unchanged.
    pub value: Value,
}

/// `system.multicall`'s parameters.
#[derive(Deserialize, JsonSchema)]
pub struct MulticallParams {
    /// The calls, in order (at most 1000). Read one by one, so that a bad entry is that
    /// entry's fault (-32600) and not the whole multicall's.
    #[schemars(with = "Vec<MulticallCall>")]
    pub calls: Vec<Value>,
}

/// One call of a `system.multicall`.
#[derive(Deserialize, JsonSchema)]
#[allow(non_snake_case, dead_code)]
pub struct MulticallCall {
    /// The method (not `system.multicall`).
    pub methodName: String,
    /// Its positional parameters.
    #[serde(default)]
    pub params: Vec<Value>,
}

/// One call's outcome in a `system.multicall`'s answer.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
pub enum MulticallOutcome {
    /// A success: the result alone in an array.
    Result(#[schemars(length(equal = 1))] Vec<Value>),
    /// A failure.
    Fault(Fault),
}

/// A failed call of a multicall, as XML-RPC faults read.
#[derive(JsonSchema)]
#[allow(non_snake_case, dead_code)]
pub struct Fault {
    pub faultCode: i32,
    pub faultString: String,
}

/// Most calls one `system.multicall` may carry; bounds the work of a single request.
pub const MAX_MULTICALL: usize = 1000;

fn method_param(p: &Params) -> Result<&'static Method, RpcError> {
    let MethodNameParams { method_name: name } = p.decode(METHOD_NAME)?;
    rpc::lookup(&name).ok_or_else(|| RpcError::method_not_found(&name))
}

fn list_methods(_: &Params) -> RpcResult {
    Ok(Value::Array(
        rpc::TABLE.iter().map(|m| json!(m.name)).collect(),
    ))
}

fn method_help(p: &Params) -> RpcResult {
    Ok(json!(method_param(p)?.help))
}

/// One signature per accepted arity: [return type, parameter types...].
fn method_signature(p: &Params) -> RpcResult {
    let m = method_param(p)?;
    let sigs: Vec<Value> = (m.required_params()..=m.params.len())
        .map(|n| {
            let mut sig = vec![json!(m.returns)];
            sig.extend(m.params[..n].iter().map(|p| json!(p.ty)));
            Value::Array(sig)
        })
        .collect();
    Ok(Value::Array(sigs))
}

/// Returns its argument unchanged (after the protocol's own decoding and encoding).
fn echo(p: &Params) -> RpcResult {
    let EchoParams { value } = p.decode(VALUE)?;
    Ok(value)
}

fn fault_struct(e: &RpcError) -> Value {
    let mut m = Map::new();
    m.insert("faultCode".into(), json!(e.code));
    m.insert("faultString".into(), json!(e.message));
    Value::Object(m)
}

/// Runs each call in order; a success is wrapped in a one-element array, a failure becomes a
/// fault struct (the de-facto multicall convention Python and Ruby clients expect).
///
/// The calls' CPU work never runs on an async worker: each run of consecutive inline (`Sync`)
/// calls goes to the blocking pool as one job, so a multicall of a thousand cheap-but-not-free
/// calls (say `score.toggle_dead` on 52×52 boards) cannot stall `/health` or other clients.
///
/// All the calls share the multicall's one time budget (`request_budget_ms` from its start):
/// a call running when it runs out is stopped and answered -32012, and every call after it
/// gets the -32012 fault without being started; the calls done before keep their results.
/// Per-call faults rather than one error for the whole multicall, because calls already done
/// may have changed tournaments, and the client must learn which.
async fn multicall(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let MulticallParams { calls } = p.decode(CALLS)?;
    if calls.len() > MAX_MULTICALL {
        return Err(RpcError::invalid_params(format!(
            "system.multicall takes at most {MAX_MULTICALL} calls, got {}",
            calls.len()
        )));
    }
    let mut results = Vec::with_capacity(calls.len());
    let mut inline: Vec<Result<(&'static Method, Params), RpcError>> = Vec::new();
    for call in calls {
        // Each call runs as the multicall's caller (its token and quota).
        let call = resolve(call).map(|(m, params)| (m, params.with_caller(p.caller().clone())));
        match call {
            Ok((method, params)) if !matches!(method.handler, Handler::Sync(_)) => {
                run_inline_batch(&ctx, std::mem::take(&mut inline), &mut results).await;
                if matches!(method.handler, Handler::Async(_)) {
                    crate::app::turn::give_back();
                }
                results.push(wrap(rpc::call(&ctx, method, params).await));
            }
            entry => inline.push(entry),
        }
    }
    run_inline_batch(&ctx, inline, &mut results).await;
    Ok(Value::Array(results))
}

fn wrap(outcome: RpcResult) -> Value {
    match outcome {
        Ok(v) => Value::Array(vec![v]),
        Err(e) => fault_struct(&e),
    }
}

/// Runs inline calls (and entries that failed to resolve, in their places) on the blocking
/// pool ([`rpc::batch::run_inline`]).
async fn run_inline_batch(
    ctx: &Arc<Ctx>,
    batch: Vec<Result<(&'static Method, Params), RpcError>>,
    results: &mut Vec<Value>,
) {
    let n = batch.len();
    let calls = batch.into_iter().map(|call| ((), call)).collect();
    match rpc::batch::run_inline(ctx, calls, |(), outcome, _| wrap(outcome)).await {
        Ok(values) => results.extend(values),
        Err(e) => results.extend((0..n).map(|_| fault_struct(&e))),
    }
}

/// The method and parameters of one multicall entry.
fn resolve(call: Value) -> Result<(&'static Method, Params), RpcError> {
    let Value::Object(mut call) = call else {
        return Err(RpcError::invalid_request(
            "each multicall entry must be a struct {methodName, params}",
        ));
    };
    let name = match call.remove("methodName") {
        Some(Value::String(s)) => s,
        _ => {
            return Err(RpcError::invalid_request(
                "multicall entry without a methodName string",
            ));
        }
    };
    if name == "system.multicall" {
        return Err(RpcError::invalid_request(
            "system.multicall cannot be nested",
        ));
    }
    let params = match call.remove("params") {
        None => Vec::new(),
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(RpcError::invalid_request(
                "multicall params must be an array",
            ));
        }
    };
    let method = rpc::lookup(&name).ok_or_else(|| rpc::unknown_method(&name))?;
    Ok((method, Params::positional(params)))
}

const METHOD_NAME: &[Param] = &[Param::req("method_name", "string")];
const VALUE: &[Param] = &[Param::req("value", "any")];
const CALLS: &[Param] = &[Param::req("calls", "array")];

pub static METHODS: &[Method] = &[
    Method {
        name: "system.listMethods",
        access: Access::Public,
        params: &[],
        returns: "array",
        help: "The names of every method this server offers.",
        doc: Doc::typed::<NoParams, Vec<String>>(),
        handler: Handler::Sync(|_, p| list_methods(p)),
    },
    Method {
        name: "system.methodSignature",
        access: Access::Public,
        params: METHOD_NAME,
        returns: "array",
        help: "The signatures of a method: one [return type, parameter types...] per arity.",
        doc: Doc::typed::<MethodNameParams, Vec<Vec<String>>>().errors(&[-32601]),
        handler: Handler::Sync(|_, p| method_signature(p)),
    },
    Method {
        name: "system.methodHelp",
        access: Access::Public,
        params: METHOD_NAME,
        returns: "string",
        help: "One line of help for a method.",
        doc: Doc::typed::<MethodNameParams, String>().errors(&[-32601]),
        handler: Handler::Sync(|_, p| method_help(p)),
    },
    Method {
        name: "system.echo",
        access: Access::Public,
        params: VALUE,
        returns: "any",
        help: "Returns its argument unchanged: the bare cost of a call over this protocol.",
        doc: Doc::typed::<EchoParams, Value>(),
        handler: Handler::Sync(|_, p| echo(p)),
    },
    Method {
        name: "system.multicall",
        access: Access::Public,
        params: CALLS,
        returns: "array",
        help: "Runs several calls [{methodName, params}] in order in one request (at most 1000), \
               within one time budget: calls past it get fault -32012.",
        doc: Doc::typed::<MulticallParams, Vec<MulticallOutcome>>().errors(&[-32600]),
        handler: Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture {
            Box::pin(multicall(ctx, p))
        }),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_returns_its_argument() {
        for v in [json!(1), json!("x"), json!([1, {"a": 2.5}]), json!(null)] {
            assert_eq!(echo(&Params::positional(vec![v.clone()])).unwrap(), v);
        }
    }
}
