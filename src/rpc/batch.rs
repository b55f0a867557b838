//! Runs of inline calls inside one request: a `system.multicall`'s and a JSON-RPC batch's.
//!
//! One inline (`Handler::Sync`) call is cheap, but a request can carry a thousand of them (say
//! `score.toggle_dead` on 52×52 boards, tens of milliseconds each), and run one after another
//! on an async worker they would hold it for the whole request: `/health` and every other
//! client on that worker would wait. So each run of consecutive inline calls goes to the
//! blocking pool as one job, with a turn at heavy work like any heavy call, within the
//! request's one budget; the calls between runs (heavy and stateful ones) go through
//! [`super::call`] as usual.

use std::sync::Arc;
use std::time::Instant;

use super::{Ctx, Method, Params, RpcError, RpcResult};

/// One inline call of a run: the method and its parameters, or the error the entry already
/// has (it named no method, its parameters did not read), answered in its place.
pub type InlineCall = Result<(&'static Method, Params), RpcError>;

/// Runs `calls` in order on the blocking pool, each under the current call budget (a call
/// started after it ran out is answered -32012 without running), and turns each outcome into
/// the request's answer for it with `answer(key, outcome, started)`. `Err` when no call ran:
/// the budget ran out waiting for a turn, or the job failed; the caller answers every entry
/// with it.
pub async fn run_inline<K, T, F>(
    ctx: &Arc<Ctx>,
    calls: Vec<(K, InlineCall)>,
    answer: F,
) -> Result<Vec<T>, RpcError>
where
    K: Send + 'static,
    T: Send + 'static,
    F: Fn(K, RpcResult, Instant) -> T + Send + 'static,
{
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    let ctx = Arc::clone(ctx);
    // The request's budget: looked at between calls, and live inside each call's checks.
    let budget = crate::app::work::current_budget();
    // A turn at heavy work, as every heavy call takes one (see `app::work::off_workers`); waiting for
    // it counts against the request's budget.
    let deadline = budget
        .as_ref()
        .and_then(|b| b.budget.remaining())
        .map(|left| tokio::time::Instant::now() + left);
    let over = budget.as_ref().map(|b| b.error());
    let permit = crate::app::work::take_turn(&ctx.heavy, deadline, over.as_ref()).await?;
    let job = tokio::task::spawn_blocking(move || {
        let answers = calls
            .into_iter()
            .map(|(key, call)| {
                let started = Instant::now();
                let outcome = call.and_then(|(method, params)| match &budget {
                    Some(b) if b.budget.is_over() => Err(b.error().into()),
                    b => crate::app::work::under(b.as_ref(), || {
                        super::call_inline(&ctx, method, &params)
                    })
                    .map_err(RpcError::from)
                    .and_then(|r| r),
                });
                answer(key, outcome, started)
            })
            .collect::<Vec<T>>();
        (answers, permit)
    });
    match job.await {
        Ok((answers, permit)) => {
            // Held with the request's reply until it is written out.
            crate::app::turn::keep(permit);
            Ok(answers)
        }
        Err(e) => {
            tracing::error!(error = %e, "a run of inline calls panicked");
            Err(RpcError::internal("internal error"))
        }
    }
}
