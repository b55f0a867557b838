//! The method table: every RPC method is declared once here (name, parameter names in order,
//! one-line help, handler) and served by both protocol adapters, `xmlrpc` and `jsonrpc`.
//!
//! Handlers see `serde_json::Value`s whatever the wire was: the XML-RPC adapter converts its
//! values on the way in and out, so one handler gives the same answer on both protocols. A
//! handler with a big answer writes it in the wire's encoding instead ([`Handler::Encoded`],
//! [`answer`]), the same bytes without the `Value` tree.

pub mod answer;
pub mod auth;
pub mod batch;
pub mod error;
pub mod input;
pub mod json_call;
pub mod jsonrpc;
pub mod methods;
pub mod openrpc;
pub mod xml_value;
pub mod xmlrpc;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};

use serde::de::DeserializeOwned;
pub use serde_json::Value;

pub use answer::{Answer, Wire};
pub use error::RpcError;

use crate::app::registry::Registry;
use crate::app::work;
use crate::config::Config;

pub type RpcResult = Result<Value, RpcError>;
pub type BoxFuture = Pin<Box<dyn Future<Output = RpcResult> + Send + 'static>>;

/// Shared state every handler can reach.
pub struct Ctx {
    pub config: Config,
    /// `matchmaker.*` tournaments: the cache of folded states in front of the durable store.
    pub registry: Registry<crate::matchmaker::Tournament>,
    /// `tournament.*` tournaments (logs of the other kind), over the same store.
    pub tournaments: Registry<crate::tournament::Tournament>,
    /// Turns at heavy work (`max_heavy_calls` permits): see [`work::off_workers`].
    pub heavy: Arc<tokio::sync::Semaphore>,
    /// More turns at heavy work, for directors' and the admin's calls only
    /// (`director_heavy_calls`): see [`work::take_turn`].
    pub directors_heavy: Arc<tokio::sync::Semaphore>,
    /// `simulate.*` jobs, running and finished.
    pub simulations: methods::simulate::Simulations,
    /// The rating lists the registration desk searches (`ratings.*`).
    pub ratings: methods::ratings::Lists,
}

impl Ctx {
    /// The heavy-work permits for `config`.
    pub fn heavy_permits(config: &Config) -> Arc<tokio::sync::Semaphore> {
        Arc::new(tokio::sync::Semaphore::new(config.heavy_calls()))
    }

    /// The directors' own heavy-work permits for `config` (none with auth off, where nobody is
    /// told apart).
    pub fn director_permits(config: &Config) -> Arc<tokio::sync::Semaphore> {
        let n = if config.auth_on() {
            config.director_heavy_calls as usize
        } else {
            0
        };
        Arc::new(tokio::sync::Semaphore::new(n))
    }
}

/// How a method runs.
pub enum Handler {
    /// Cheap, CPU-only work: runs inline on the async worker.
    Sync(fn(&Ctx, &Params) -> RpcResult),
    /// CPU-heavy pure work (large parses, big pairings): runs on the blocking pool so it cannot
    /// stall other connections.
    Blocking(fn(&Ctx, &Params) -> RpcResult),
    /// Work that waits on the store or on a tournament's lock.
    Async(fn(Arc<Ctx>, Params) -> BoxFuture),
    /// Heavy pure work with a big answer: runs as `Blocking`, and writes its answer in the
    /// encoding of the call's wire ([`Params::wire`]) instead of as a `Value` tree.
    Encoded(fn(&Ctx, &Params) -> Result<Answer, RpcError>),
}

/// One declared parameter.
pub struct Param {
    pub name: &'static str,
    /// XML-RPC type name for `system.methodSignature`: int, boolean, string, double, array,
    /// struct, base64, dateTime.iso8601; "any" where a method takes any value (system.echo).
    pub ty: &'static str,
    /// Required parameters come first; optional ones may be left off from the end.
    pub required: bool,
}

impl Param {
    pub const fn req(name: &'static str, ty: &'static str) -> Param {
        Param {
            name,
            ty,
            required: true,
        }
    }
    pub const fn opt(name: &'static str, ty: &'static str) -> Param {
        Param {
            name,
            ty,
            required: false,
        }
    }
}

/// Who may call a method when auth is on (README, Auth). With auth off every call is open,
/// but for [`Access::Create`]'s quotas, which count only with auth on too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: it changes nothing (or only its own session's or job's state).
    Public,
    /// A write to the `tournament.*` tournament its first parameter (`tournament_id`) names:
    /// that tournament's director token, or the admin's.
    Director,
    /// Creates a tournament: the admin, or anyone when `open_creation`, within the caller's
    /// quota; the new tournament's director token comes back.
    Create,
    /// The admin token only (`ratings.import` replaces a list every desk searches).
    Admin,
    /// Work the operator pays for in CPU (a simulation): the admin, or anyone when
    /// `open_creation`.
    AdminUnlessOpen,
    /// rswiss's writes: open, as rswiss has no tokens, unless `matchmaker_auth`; then the
    /// admin's.
    MatchmakerWrite,
    /// rswiss's create: the admin's with `matchmaker_auth`, else as [`Access::Create`].
    MatchmakerCreate,
}

/// One entry of the method table.
pub struct Method {
    pub name: &'static str,
    /// Who may call it when auth is on: declared here, so a method added later says so itself
    /// (README, Auth; [`auth`] applies it).
    pub access: Access,
    pub params: &'static [Param],
    /// XML-RPC type of the result, for `system.methodSignature`.
    pub returns: &'static str,
    pub help: &'static str,
    pub handler: Handler,
    /// The types of its parameters and result, and its error codes, for `rpc.discover`
    /// ([`openrpc::Doc`]).
    pub doc: openrpc::Doc,
}

impl Method {
    pub fn required_params(&self) -> usize {
        self.params.iter().filter(|p| p.required).count()
    }

    /// The arity error of this method's namespace: rswiss's fault 1 for `matchmaker.*`,
    /// invalid params elsewhere.
    pub fn arity_error(&self, got: usize) -> RpcError {
        if self.name.starts_with("matchmaker.") {
            methods::matchmaker::missing_or_wrong_params(self.name)
        } else {
            let min = self.required_params();
            let max = self.params.len();
            let want = if min == max {
                format!("{max}")
            } else {
                format!("{min} to {max}")
            };
            RpcError::invalid_params(format!(
                "{} takes {want} parameters ({}), got {got}",
                self.name,
                self.params
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }
}

/// Positional parameters, after named JSON-RPC parameters were put in the table's order.
/// Absent optional parameters are `None`.
#[derive(Debug, Clone, Default)]
pub struct Params {
    values: Vec<Option<Value>>,
    /// Who is calling (token hash, address): anonymous unless the adapter says otherwise.
    caller: auth::Caller,
    /// The encoding the answer is wanted in, for [`Handler::Encoded`] methods.
    wire: Wire,
}

impl Params {
    pub fn positional(values: Vec<Value>) -> Params {
        Params {
            values: values.into_iter().map(Some).collect(),
            caller: auth::Caller::default(),
            wire: Wire::Value,
        }
    }

    pub fn from_options(values: Vec<Option<Value>>) -> Params {
        Params {
            values,
            caller: auth::Caller::default(),
            wire: Wire::Value,
        }
    }

    /// The same parameters, called by `caller`.
    pub fn with_caller(mut self, caller: auth::Caller) -> Params {
        self.caller = caller;
        self
    }

    pub fn caller(&self) -> &auth::Caller {
        &self.caller
    }

    /// The same parameters, answered on `wire`.
    pub fn with_wire(mut self, wire: Wire) -> Params {
        self.wire = wire;
        self
    }

    /// The encoding the caller wants the answer in.
    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// Number of parameters given (counting up to the last one present).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The raw value at `index`, if given.
    pub fn raw(&self, index: usize) -> Option<&Value> {
        self.values.get(index).and_then(Option::as_ref)
    }

    /// A required parameter, deserialized; a missing or ill-typed one is an invalid-params error
    /// that names it (and the path of a bad value inside it, and the nearest valid key for an
    /// unknown one: [`input::from_value`]).
    pub fn get<T: DeserializeOwned>(&self, index: usize, name: &str) -> Result<T, RpcError> {
        let value = self
            .raw(index)
            .ok_or_else(|| RpcError::invalid_params(format!("missing parameter {name}")))?;
        input::from_value(value, name)
    }

    /// Every parameter at once, as the method's parameter struct `T`: a member per parameter,
    /// in the table's order (`names`: the table's names, for the messages), an optional one
    /// `#[serde(default)]`. The messages are those of [`Params::get`] and [`Params::opt`]
    /// (`parameter round: invalid type …`, `options.if_revisoin: unknown key …`), and the
    /// type is the one `rpc.discover` describes ([`openrpc::Doc`]).
    pub fn decode<T: DeserializeOwned>(&self, names: &[Param]) -> Result<T, RpcError> {
        let values = Value::Array(
            self.values
                .iter()
                .map(|v| v.clone().unwrap_or(Value::Null))
                .collect(),
        );
        input::params_struct(&values, names)
    }

    /// An optional parameter: absent or null gives `None`.
    pub fn opt<T: DeserializeOwned>(
        &self,
        index: usize,
        name: &str,
    ) -> Result<Option<T>, RpcError> {
        match self.raw(index) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => input::from_value(value, name).map(Some),
        }
    }
}

/// Every method, in the order `system.listMethods` gives them.
pub static TABLE: LazyLock<Vec<&'static Method>> = LazyLock::new(methods::all);

static INDEX: LazyLock<HashMap<&'static str, &'static Method>> =
    LazyLock::new(|| TABLE.iter().map(|m| (m.name, *m)).collect());

/// Looks a method up by its exact name.
pub fn lookup(name: &str) -> Option<&'static Method> {
    INDEX.get(name).copied()
}

/// The arity check every call goes through.
fn check_arity(method: &Method, params: &Params) -> Result<(), RpcError> {
    let given = params.len();
    if given < method.required_params()
        || given > method.params.len()
        || (0..method.required_params()).any(|i| params.raw(i).is_none())
    {
        return Err(method.arity_error(given));
    }
    Ok(())
}

/// Runs an inline (`Handler::Sync`) method on the calling thread, which must be allowed to
/// block (a blocking-pool thread): for batches such as `system.multicall`'s.
pub fn call_inline(ctx: &Ctx, method: &'static Method, params: &Params) -> RpcResult {
    check_arity(method, params)?;
    auth::authorize_inline(ctx, method, params)?;
    let Handler::Sync(f) = method.handler else {
        return Err(RpcError::internal(format!(
            "{} is not an inline method",
            method.name
        )));
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(ctx, params))).unwrap_or_else(|_| {
        tracing::error!(method = method.name, "handler panicked");
        Err(RpcError::internal("internal error"))
    })
}

/// Calls a method with positional parameters: arity check, then the handler. Protocol adapters
/// go through here so both wires behave the same.
///
/// Every call gets a time budget ([`CallBudget`]); the heavy parts of any namespace run under
/// it and its guard, held here, cancels it when this future is dropped (hyper drops a request
/// when its client closes the connection, jsonrpsee a WebSocket session's calls when it
/// closes). Inside a multicall a call whose budget is already spent is not started.
pub async fn call(ctx: &Arc<Ctx>, method: &'static Method, params: Params) -> RpcResult {
    call_on_wire(ctx, method, params.with_wire(Wire::Value))
        .await
        .and_then(Answer::into_value)
}

/// [`call`], answered in the encoding `params` asks for ([`Params::wire`]): the protocol
/// adapters' entry, so that a big answer is written as the wire's text and never held as a
/// `Value` tree.
pub async fn call_on_wire(
    ctx: &Arc<Ctx>,
    method: &'static Method,
    params: Params,
) -> Result<Answer, RpcError> {
    check_arity(method, &params)?;
    let budget = work::new_call_budget(ctx.config.request_budget_ms);
    if budget.budget.is_over() {
        return Err(budget.error().into());
    }
    let _cancel = budget.budget.cancel_on_drop();
    let grant = auth::authorize(ctx, method, &params).await?;
    // The call's heavy work takes its turns knowing whether the directors' share is open to it.
    let directors_turns = grant.directs().then(|| Arc::clone(&ctx.directors_heavy));
    work::serve(budget, directors_turns, run(ctx, method, params)).await
}

/// Runs an authorized call's handler (under the budget [`call_on_wire`] set).
async fn run(ctx: &Arc<Ctx>, method: &'static Method, params: Params) -> Result<Answer, RpcError> {
    async {
        match method.handler {
            // A panic is a bug, but it must cost the caller one error, not the connection.
            Handler::Sync(f) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(ctx, &params)))
                    .unwrap_or_else(|_| {
                        tracing::error!(method = method.name, "handler panicked");
                        Err(RpcError::internal("internal error"))
                    })
                    .map(Answer::Value)
            }
            Handler::Blocking(f) => {
                let job_ctx = Arc::clone(ctx);
                work::off_workers(&ctx.heavy, move || f(&job_ctx, &params))
                    .await
                    .map(Answer::Value)
            }
            Handler::Encoded(f) => {
                let job_ctx = Arc::clone(ctx);
                let limit = ctx.config.reply_limit();
                work::off_workers(&ctx.heavy, move || {
                    answer::within_reply_limit(limit, || f(&job_ctx, &params))
                })
                .await
            }
            Handler::Async(f) => f(Arc::clone(ctx), params).await.map(Answer::Value),
        }
    }
    .await
}

/// The answer to a call of a method that does not exist. It is rswiss's fault 1, which XML-RPC
/// clients of rswiss expect; the JSON-RPC adapter answers -32601 instead (jsonrpsee's own).
pub fn unknown_method(name: &str) -> RpcError {
    methods::matchmaker::missing_or_wrong_params(name)
}
