//! Heavy work and its limits: each call's time budget, the turns at heavy work
//! (`max_heavy_calls`, and the directors' own share), and running pure work on the blocking
//! pool under both.
//!
//! A call's budget and whether it may take the directors' turns are set once per call by the
//! wire adapter ([`serve`]) and read here by whatever heavy work the call reaches (the
//! registry's commands, handlers' computations, a batch's run of inline calls), so no
//! function on the way needs to pass them along. Nothing here knows a protocol: running out
//! is [`AppError::OverBudget`], which each wire turns into its own error.

use std::future::Future;
use std::sync::Arc;

use super::AppError;
use super::turn;

/// The time budget of the call being served: the deadline and cancel flag its work runs
/// under, and the configured milliseconds for the -32012 message.
#[derive(Debug, Clone)]
pub struct CallBudget {
    pub budget: crate::budget::Budget,
    pub ms: u64,
}

impl CallBudget {
    /// The error of this budget run out.
    pub fn error(&self) -> AppError {
        AppError::OverBudget { ms: self.ms }
    }
}

tokio::task_local! {
    /// The budget of the call being served on this task ([`serve`]): stateful handlers (which
    /// take locks and hand their heavy parts to the blocking pool) read it with
    /// [`current_budget`]; calls inside a `system.multicall` get a child of the multicall's.
    static CALL_BUDGET: CallBudget;

    /// The directors' turns at heavy work, when the call being served on this task may take
    /// them (a director's or the admin's call, see `rpc::auth`): [`take_turn`] looks here, wherever the call's
    /// heavy work asks for its turn (the registry, [`off_workers`], a multicall's batch).
    static DIRECTORS_TURNS: Option<Arc<tokio::sync::Semaphore>>;
}

/// The budget of the call being served on this task; `None` outside [`serve`] (the library
/// used directly, tests), where nothing is limited.
pub fn current_budget() -> Option<CallBudget> {
    CALL_BUDGET.try_with(Clone::clone).ok()
}

/// A new call's budget: within the enclosing call's (a `system.multicall`'s: one total for all
/// its calls), else `ms` (`request_budget_ms`) from now.
pub fn new_call_budget(ms: u64) -> CallBudget {
    match current_budget() {
        Some(outer) => CallBudget {
            budget: outer.budget.child(),
            ms: outer.ms,
        },
        None => {
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
pub fn under<T>(budget: Option<&CallBudget>, f: impl FnOnce() -> T) -> Result<T, AppError> {
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
    over: Option<&AppError>,
) -> Result<tokio::sync::OwnedSemaphorePermit, AppError> {
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
    .map_err(|_| AppError::ShuttingDown)
}

/// A turn at heavy work for the current call ([`take_turn`]), waited for within its budget:
/// for a stateful command that computes under its tournament's lock (the registry).
pub async fn take_turn_within_budget(
    heavy: &Arc<tokio::sync::Semaphore>,
) -> Result<tokio::sync::OwnedSemaphorePermit, AppError> {
    let (deadline, over) = give_up_at(current_budget().as_ref());
    take_turn(heavy, deadline, over.as_ref()).await
}

/// When a caller under `budget` stops waiting for heavy work (a little past the budget's
/// deadline, so that work which notices it answers for itself), and the error it answers
/// then. None: no budget, no deadline.
pub fn give_up_at(budget: Option<&CallBudget>) -> (Option<tokio::time::Instant>, Option<AppError>) {
    let deadline = (budget.and_then(|b| b.budget.remaining()))
        .map(|l| tokio::time::Instant::now() + l + OVER_BUDGET_GRACE);
    (deadline, budget.map(CallBudget::error))
}

/// Runs heavy pure work on the blocking pool under the current call's budget: -32012 at the
/// deadline (at once, even if the work has not reached a check yet; the work stops at its
/// next check), and the work stops too when the call's future is dropped (its client went
/// away). Stateful handlers use it for what they compute on data they own (a parsed import,
/// a copy of a tournament); nothing they could record depends on it once it gave up.
///
/// `f`'s error is the caller's own (a wire error, a domain error); it only has to hold the
/// ways this can fail ([`AppError`]).
pub async fn off_workers<T: Send + 'static, E: From<AppError> + Send + 'static>(
    heavy: &Arc<tokio::sync::Semaphore>,
    f: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, E> {
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
    let permit = take_turn(heavy, deadline, over.as_ref())
        .await
        .map_err(E::from)?;
    let job = tokio::task::spawn_blocking(move || {
        let out = under(budget.as_ref(), f).map_err(E::from).and_then(|r| r);
        (out, permit)
    });
    let joined = match (deadline, over) {
        (Some(at), Some(over)) => match tokio::time::timeout_at(at, job).await {
            Ok(joined) => joined,
            Err(_) => return Err(over.into()),
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
            Err(AppError::Panicked.into())
        }
    }
}

/// Runs `fut`, the calls of one JSON-RPC batch (`ms`: `request_budget_ms`), under one budget as a `system.multicall`'s
/// calls are: each call's budget is a child of it (one deadline for all), a call whose budget
/// is spent is not started, and dropping `fut` (the client went away) cancels them all.
pub async fn under_one_budget<F: Future>(ms: u64, fut: F) -> F::Output {
    let budget = new_call_budget(ms);
    let _cancel = budget.budget.cancel_on_drop();
    CALL_BUDGET.scope(budget, fut).await
}

/// How long past its deadline a heavy call is waited for before -32012 is sent without it.
const OVER_BUDGET_GRACE: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `fut`, one call's work, under `budget`, with the directors' turns open to it when
/// `directors_turns` is given (the call is a director's or the admin's): every heavy part it
/// reaches ([`take_turn`], [`off_workers`], the registry) reads both from here.
pub async fn serve<F: Future>(
    budget: CallBudget,
    directors_turns: Option<Arc<tokio::sync::Semaphore>>,
    fut: F,
) -> F::Output {
    DIRECTORS_TURNS
        .scope(directors_turns, CALL_BUDGET.scope(budget, fut))
        .await
}
