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
pub mod jsonrpc;
pub mod methods;
pub mod openrpc;
pub mod registry;
pub mod telemetry;
pub mod turn;
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

use crate::config::Config;
use registry::Registry;

pub type RpcResult = Result<Value, RpcError>;
pub type BoxFuture = Pin<Box<dyn Future<Output = RpcResult> + Send + 'static>>;

/// Shared state every handler can reach.
pub struct Ctx {
    pub config: Config,
    /// `matchmaker.*` tournaments: the cache of folded states in front of the durable store.
    pub registry: Registry<crate::matchmaker::Tournament>,
    /// `tournament.*` tournaments (logs of the other kind), over the same store.
    pub tournaments: Registry<crate::tournament::Tournament>,
    /// Turns at heavy work (`max_heavy_calls` permits): see [`off_workers`].
    pub heavy: Arc<tokio::sync::Semaphore>,
    /// More turns at heavy work, for directors' and the admin's calls only
    /// (`director_heavy_calls`): see [`take_turn`].
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

/// One entry of the method table.
pub struct Method {
    pub name: &'static str,
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

/// The time budget of the call being served: the deadline and cancel flag its work runs
/// under, and the configured milliseconds for the -32012 message.
#[derive(Debug, Clone)]
pub struct CallBudget {
    pub budget: crate::budget::Budget,
    pub ms: u64,
}

impl CallBudget {
    /// The -32012 answer of this budget.
    pub fn error(&self) -> RpcError {
        RpcError::over_budget(self.ms)
    }
}

tokio::task_local! {
    /// The budget of the call [`call`] is serving on this task: stateful handlers (which
    /// take locks and hand their heavy parts to the blocking pool) read it with
    /// [`current_budget`]; calls inside a `system.multicall` get a child of the multicall's.
    static CALL_BUDGET: CallBudget;

    /// The directors' turns at heavy work, when the call [`call`] is serving on this task may
    /// take them ([`auth::Grant::directs`]): [`take_turn`] looks here, wherever the call's
    /// heavy work asks for its turn (the registry, [`off_workers`], a multicall's batch).
    static DIRECTORS_TURNS: Option<Arc<tokio::sync::Semaphore>>;
}

/// The budget of the call being served on this task; `None` outside [`call`] (the library
/// used directly, tests), where nothing is limited.
pub fn current_budget() -> Option<CallBudget> {
    CALL_BUDGET.try_with(Clone::clone).ok()
}

/// A new call's budget: within the enclosing call's (a `system.multicall`'s: one total for all
/// its calls), else `request_budget_ms` from now.
fn new_call_budget(ctx: &Ctx) -> CallBudget {
    match current_budget() {
        Some(outer) => CallBudget {
            budget: outer.budget.child(),
            ms: outer.ms,
        },
        None => {
            let ms = ctx.config.request_budget_ms;
            let limit = (ms > 0).then(|| std::time::Duration::from_millis(ms));
            CallBudget {
                budget: crate::budget::Budget::new(limit),
                ms,
            }
        }
    }
}

/// Runs `f` on this thread under `budget` (see [`crate::budget::run`]): -32012 when a check
/// inside it failed, whatever `f` returned. With no budget, just `f()`. For the computation
/// of a stateful command, which runs under the tournament's lock inside the registry: the
/// caller turns -32012 into "no events", so a stopped command records nothing.
pub fn under<T>(budget: Option<&CallBudget>, f: impl FnOnce() -> T) -> Result<T, RpcError> {
    match budget {
        None => Ok(f()),
        Some(b) => crate::budget::run(b.budget.clone(), f).map_err(|_| b.error()),
    }
}

/// One of `max_heavy_calls` turns at heavy work, waited for until `deadline` (then `over`).
/// Heavy work past the CPUs only adds memory (a parse or a pairing at its caps holds hundreds
/// of megabytes), so later calls wait here, and the wait counts against their budget. The
/// holder keeps the permit for as long as its work runs; a request that holds a turn already
/// (an earlier heavy call of its multicall or batch, see [`turn`]) takes that one again.
///
/// A call made as a director or the admin (with auth on) takes whichever comes first of
/// those turns and the directors' own (`director_heavy_calls`, which no other call takes), so
/// anonymous heavy work holding every general turn keeps it waiting no longer than its own
/// share is busy.
pub async fn take_turn(
    heavy: &Arc<tokio::sync::Semaphore>,
    deadline: Option<tokio::time::Instant>,
    over: Option<&RpcError>,
) -> Result<tokio::sync::OwnedSemaphorePermit, RpcError> {
    if let Some(held) = turn::reuse() {
        return Ok(held);
    }
    let general = Arc::clone(heavy).acquire_owned();
    let turn = async move {
        match DIRECTORS_TURNS.try_with(Clone::clone).ok().flatten() {
            Some(own) => tokio::select! {
                // A general turn when one is free: the directors' share stays for the next.
                biased;
                p = general => p,
                p = own.acquire_owned() => p,
            },
            None => general.await,
        }
    };
    match (deadline, over) {
        (Some(at), Some(over)) => match tokio::time::timeout_at(at, turn).await {
            Ok(p) => p,
            Err(_) => return Err(over.clone()),
        },
        _ => turn.await,
    }
    .map_err(|_| RpcError::internal("the daemon is shutting down"))
}

/// A turn at heavy work for the current call ([`take_turn`]), waited for within its budget:
/// for a stateful command that computes under its tournament's lock (the registry).
pub async fn take_turn_within_budget(
    heavy: &Arc<tokio::sync::Semaphore>,
) -> Result<tokio::sync::OwnedSemaphorePermit, RpcError> {
    let (deadline, over) = give_up_at(current_budget().as_ref());
    take_turn(heavy, deadline, over.as_ref()).await
}

/// When a caller under `budget` stops waiting for heavy work (a little past the budget's
/// deadline, so that work which notices it answers for itself), and the error it answers
/// then. None: no budget, no deadline.
fn give_up_at(budget: Option<&CallBudget>) -> (Option<tokio::time::Instant>, Option<RpcError>) {
    let deadline = (budget.and_then(|b| b.budget.remaining()))
        .map(|l| tokio::time::Instant::now() + l + OVER_BUDGET_GRACE);
    (deadline, budget.map(CallBudget::error))
}

/// Runs heavy pure work on the blocking pool under the current call's budget: -32012 at the
/// deadline (at once, even if the work has not reached a check yet; the work stops at its
/// next check), and the work stops too when the call's future is dropped (its client went
/// away). Stateful handlers use it for what they compute on data they own (a parsed import,
/// a copy of a tournament); nothing they could record depends on it once it gave up.
pub async fn off_workers<T: Send + 'static>(
    heavy: &Arc<tokio::sync::Semaphore>,
    f: impl FnOnce() -> Result<T, RpcError> + Send + 'static,
) -> Result<T, RpcError> {
    // A child of the call's budget: its guard, held by this future, cancels this job when
    // the future is dropped or gives up, and leaves the rest of the call alone.
    let budget = current_budget().map(|b| CallBudget {
        budget: b.budget.child(),
        ms: b.ms,
    });
    let _cancel = budget.as_ref().map(|b| b.budget.cancel_on_drop());
    let (deadline, over) = give_up_at(budget.as_ref());
    // The permit goes into the job and comes back with its answer, to be held until the
    // reply is written out ([`turn`]); an over-budget caller that stops waiting leaves it in
    // the job, which gives it back when the work really ends.
    let permit = take_turn(heavy, deadline, over.as_ref()).await?;
    let job = tokio::task::spawn_blocking(move || {
        let out = under(budget.as_ref(), f).and_then(|r| r);
        (out, permit)
    });
    let joined = match (deadline, over) {
        (Some(at), Some(over)) => match tokio::time::timeout_at(at, job).await {
            Ok(joined) => joined,
            Err(_) => return Err(over),
        },
        _ => job.await,
    };
    match joined {
        Ok((out, permit)) => {
            turn::keep(permit);
            out
        }
        Err(e) => {
            tracing::error!(error = %e, "heavy work panicked");
            Err(RpcError::internal("internal error"))
        }
    }
}

/// Runs `fut`, the calls of one JSON-RPC batch, under one budget as a `system.multicall`'s
/// calls are: each call's budget is a child of it (one deadline for all), a call whose budget
/// is spent is not started, and dropping `fut` (the client went away) cancels them all.
pub async fn under_one_budget<F: Future>(ctx: &Ctx, fut: F) -> F::Output {
    let budget = new_call_budget(ctx);
    let _cancel = budget.budget.cancel_on_drop();
    CALL_BUDGET.scope(budget, fut).await
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
    let budget = new_call_budget(ctx);
    if budget.budget.is_over() {
        return Err(budget.error());
    }
    let _cancel = budget.budget.cancel_on_drop();
    let grant = auth::authorize(ctx, method, &params).await?;
    // The call's heavy work takes its turns knowing whether the directors' share is open to it.
    let directors_turns = grant.directs().then(|| Arc::clone(&ctx.directors_heavy));
    DIRECTORS_TURNS
        .scope(directors_turns, run(ctx, method, params, budget))
        .await
}

/// Runs an authorized call's handler under its budget.
async fn run(
    ctx: &Arc<Ctx>,
    method: &'static Method,
    params: Params,
    budget: CallBudget,
) -> Result<Answer, RpcError> {
    CALL_BUDGET
        .scope(budget, async {
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
                    off_workers(&ctx.heavy, move || f(&job_ctx, &params))
                        .await
                        .map(Answer::Value)
                }
                Handler::Encoded(f) => {
                    let job_ctx = Arc::clone(ctx);
                    let limit = ctx.config.reply_limit();
                    off_workers(&ctx.heavy, move || {
                        answer::within_reply_limit(limit, || f(&job_ctx, &params))
                    })
                    .await
                }
                Handler::Async(f) => f(Arc::clone(ctx), params).await.map(Answer::Value),
            }
        })
        .await
}

/// How long past its deadline a heavy call is waited for before -32012 is sent without it.
const OVER_BUDGET_GRACE: std::time::Duration = std::time::Duration::from_millis(50);

/// The answer to a call of a method that does not exist. It is rswiss's fault 1, which XML-RPC
/// clients of rswiss expect; the JSON-RPC adapter answers -32601 instead (jsonrpsee's own).
pub fn unknown_method(name: &str) -> RpcError {
    methods::matchmaker::missing_or_wrong_params(name)
}
