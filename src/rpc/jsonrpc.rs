//! JSON-RPC 2.0 adapter: a jsonrpsee `RpcModule` built from the same method table, served over
//! HTTP and WebSocket. Positional and named parameters are both accepted; named ones are put
//! in the table's parameter order. `rpc.discover` returns an OpenRPC document of the table.
//!
//! Every request also goes through [`Calls`], a jsonrpsee middleware: a call's heavy-call turn
//! is held until its reply is written out ([`crate::app::turn`]), a reply over `max_reply_bytes` is
//! our -32013, a batch runs as a `system.multicall` does (off the async workers, within
//! the turns, under one budget) instead of jsonrpsee's call after call on the worker, and a
//! subscription method called over plain HTTP is answered by the table (-32020).

use std::future::Future;
use std::sync::Arc;

use jsonrpsee::RpcModule;
use jsonrpsee::server::middleware::rpc::{Batch, BatchEntry, Notification, Request, RpcServiceT};
use jsonrpsee::server::{BatchResponseBuilder, MethodResponse, ResponsePayload};
use jsonrpsee::types::error::{OVERSIZED_RESPONSE_CODE, OVERSIZED_RESPONSE_MSG};
use jsonrpsee::types::{ErrorObjectOwned, Id};
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;

use super::auth::Caller;
use super::batch::InlineCall;
use super::json_call::{answer, params_for, to_error};
use super::{Answer, Ctx, Handler, Method, RpcError, TABLE, Wire};
use crate::app::turn::Connection;

/// The OpenRPC description of the method table ([`super::openrpc`]).
pub fn openrpc() -> Value {
    super::openrpc::DOCUMENT.clone()
}

/// Builds the module every JSON-RPC connection is served from.
pub fn module(ctx: Arc<Ctx>) -> RpcModule<()> {
    let mut module = RpcModule::new(());
    for method in TABLE.iter().copied() {
        // Served as jsonrpsee subscriptions below (their table entries answer elsewhere).
        if super::methods::tournament_live::is_subscription_method(method.name) {
            continue;
        }
        let ctx = Arc::clone(&ctx);
        let registered = module.register_async_method(method.name, move |params, _, ext| {
            let ctx = Arc::clone(&ctx);
            // The HTTP request's (or WebSocket upgrade's) caller, put there by the server.
            let caller = ext.get::<Caller>().cloned().unwrap_or_default();
            async move { answer(&ctx, method, params.as_str(), caller).await }
        });
        if let Err(e) = registered {
            // Only possible with a duplicate name in the table, which a unit test rules out.
            tracing::error!(method = method.name, error = %e, "method not registered");
        }
    }
    super::methods::tournament_live::register_subscriptions(&mut module, Arc::clone(&ctx));
    super::methods::simulate::register_subscriptions(&mut module, Arc::clone(&ctx));
    if let Err(e) = module.register_method("rpc.discover", |_, _, _| {
        Ok::<_, ErrorObjectOwned>(openrpc())
    }) {
        tracing::error!(error = %e, "rpc.discover not registered");
    }
    module
}

/// The jsonrpsee middleware layer of [`Calls`].
#[derive(Clone)]
pub struct CallsLayer {
    ctx: Arc<Ctx>,
}

impl CallsLayer {
    pub fn new(ctx: Arc<Ctx>) -> CallsLayer {
        CallsLayer { ctx }
    }
}

impl<S> tower::Layer<S> for CallsLayer {
    type Service = Calls<S>;

    fn layer(&self, inner: S) -> Calls<S> {
        Calls {
            inner,
            limit: self.ctx.config.reply_limit(),
            ctx: Arc::clone(&self.ctx),
        }
    }
}

/// Every JSON-RPC request, single or batch, HTTP or WebSocket, on its way to the method table.
#[derive(Clone)]
pub struct Calls<S> {
    inner: S,
    ctx: Arc<Ctx>,
    /// `max_reply_bytes`.
    limit: Option<usize>,
}

impl<S> RpcServiceT for Calls<S>
where
    S: RpcServiceT<
            MethodResponse = MethodResponse,
            BatchResponse = MethodResponse,
            NotificationResponse = MethodResponse,
        > + Clone
        + Send
        + Sync
        + 'static,
{
    type MethodResponse = MethodResponse;
    type NotificationResponse = MethodResponse;
    type BatchResponse = MethodResponse;

    fn call<'a>(&self, req: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let call = self.single(req);
        let limit = self.limit;
        async move {
            let (rp, turn) = crate::app::turn::holding_turn(call).await;
            let rp = our_reply_cap(rp, limit);
            // The method's response carries its request's extensions (jsonrpsee's async
            // methods put them there), so the connection is found there.
            if let Some(turn) = turn {
                hold_until_sent(rp.extensions().get::<Connection>(), &rp, turn);
            }
            rp
        }
    }

    fn batch<'a>(&self, batch: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let this = self.clone();
        // Boxed: jsonrpsee's future for every HTTP request holds this one inline, and a batch's
        // is tens of kilobytes (every kind of call it may run); unboxed, each request, single
        // calls too, would copy that much when jsonrpsee boxes its own future.
        Box::pin(async move {
            let conn = batch
                .iter()
                .flatten()
                .find_map(|e| e.extensions().get::<Connection>().cloned());
            let ctx = Arc::clone(&this.ctx);
            let run = crate::app::work::under_one_budget(
                ctx.config.request_budget_ms,
                this.run_batch(batch),
            );
            let (rp, turn) = crate::app::turn::holding_turn(run).await;
            if let Some(turn) = turn {
                hold_until_sent(conn.as_ref(), &rp, turn);
            }
            rp
        })
    }

    fn notification<'a>(
        &self,
        n: Notification<'a>,
    ) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.notification(n)
    }
}

impl<S> Calls<S>
where
    S: RpcServiceT<
            MethodResponse = MethodResponse,
            BatchResponse = MethodResponse,
            NotificationResponse = MethodResponse,
        > + Clone
        + Send
        + Sync
        + 'static,
{
    /// One call on its way to jsonrpsee's method, except a subscription method over plain
    /// HTTP, which the method table answers (it needs a WebSocket). One middleware for both,
    /// rather than a layer of its own: every layer is one more future and service per call.
    fn single<'a>(&self, req: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        use super::methods::tournament_live::{answer_over_http, over_http};
        use futures::future::Either;
        match over_http(req.method_name(), &req.extensions) {
            None => Either::Left(self.inner.call(req)),
            // Boxed, as a batch is (see `batch`): the rare path must not grow every call's future.
            Some(method) => Either::Right(Box::pin(answer_over_http(
                Arc::clone(&self.ctx),
                method,
                req,
            ))),
        }
    }

    /// A batch's entries in order, answered as jsonrpsee would (ids, order, no answer to a
    /// notification, an error per bad entry, one error for an empty batch): each run of
    /// consecutive inline calls on the blocking pool ([`super::batch::run_inline`]), every
    /// other call through the method table's adapter as a single call.
    async fn run_batch(&self, batch: Batch<'_>) -> MethodResponse {
        let mut replies = BatchResponseBuilder::new_with_limit(self.limit.unwrap_or(usize::MAX));
        let mut got_notification = false;
        let mut inline: Vec<(InlineKey, InlineCall)> = Vec::new();
        for entry in batch {
            if !matches!(&entry, Ok(BatchEntry::Call(req)) if inline_method(req).is_some()) {
                // Anything else answers after the run before it.
                let run = std::mem::take(&mut inline);
                if let Err(too_big) = self.run_inline(run, &mut replies).await {
                    return too_big;
                }
            }
            let reply = match entry {
                Ok(BatchEntry::Call(req)) => match inline_method(&req) {
                    Some(method) => {
                        inline.push(inline_call(method, req));
                        continue;
                    }
                    None => {
                        // Only the table's heavy methods (which take no lock) keep the
                        // batch's turn; any other call may wait on a tournament's lock.
                        let heavy = super::lookup(req.method_name()).is_some_and(|m| {
                            matches!(m.handler, Handler::Blocking(_) | Handler::Encoded(_))
                        });
                        if !heavy {
                            crate::app::turn::give_back();
                        }
                        our_reply_cap(self.single(req).await, self.limit)
                    }
                },
                Ok(BatchEntry::Notification(n)) => {
                    // jsonrpsee runs no method for a notification, and answers nothing.
                    got_notification = true;
                    self.inner.notification(n).await;
                    continue;
                }
                Err(e) => {
                    let (err, id) = e.into_parts();
                    MethodResponse::error(id, err)
                }
            };
            if replies.append(reply).is_err() {
                return self.batch_too_big();
            }
        }
        if let Err(too_big) = self.run_inline(inline, &mut replies).await {
            return too_big;
        }
        if replies.is_empty() && got_notification {
            MethodResponse::notification()
        } else {
            // An empty batch is jsonrpsee's invalid-request error, as before.
            MethodResponse::from_batch(replies.finish())
        }
    }

    /// Runs `run`, a run of inline calls, and appends their replies; `Err` with the answer to
    /// the whole batch when they make it too big.
    async fn run_inline(
        &self,
        run: Vec<(InlineKey, InlineCall)>,
        replies: &mut BatchResponseBuilder,
    ) -> Result<(), MethodResponse> {
        if run.is_empty() {
            return Ok(());
        }
        // For the answers to the entries when none of them ran.
        let ids: Vec<Id<'static>> = run.iter().map(|((id, _), _)| id.clone()).collect();
        let limit = self.limit;
        let answered = super::batch::run_inline(&self.ctx, run, move |key, outcome, started| {
            let (id, method) = key;
            crate::app::metrics::record(method, "jsonrpc", outcome.is_ok(), started);
            let payload = match outcome {
                Ok(v) => ResponsePayload::success(Answer::Value(v)),
                Err(e) => ResponsePayload::error(to_error(e)),
            };
            our_reply_cap(
                MethodResponse::response(id, payload, limit.unwrap_or(usize::MAX)),
                limit,
            )
        })
        .await;
        let answers = match answered {
            Ok(answers) => answers,
            Err(e) => ids
                .into_iter()
                .map(|id| MethodResponse::error(id, to_error(e.clone())))
                .collect(),
        };
        for reply in answers {
            if replies.append(reply).is_err() {
                return Err(self.batch_too_big());
            }
        }
        Ok(())
    }

    /// The answer to a batch whose replies together pass `max_reply_bytes` (jsonrpsee's own
    /// would be -32011, which is our quota error).
    fn batch_too_big(&self) -> MethodResponse {
        let limit = self.limit.unwrap_or(usize::MAX);
        MethodResponse::error(Id::Null, to_error(RpcError::reply_too_big(limit)))
    }
}

/// An inline call's id and method name, for its reply and its metrics.
type InlineKey = (Id<'static>, &'static str);

/// The method of `req` if it runs inline (`Handler::Sync`): such calls of a batch run in runs
/// on the blocking pool.
fn inline_method(req: &Request<'_>) -> Option<&'static Method> {
    super::lookup(req.method_name()).filter(|m| matches!(m.handler, Handler::Sync(_)))
}

/// `req` as an inline call, with its parameters read as a single call's are.
fn inline_call(method: &'static Method, req: Request<'_>) -> (InlineKey, InlineCall) {
    let caller = req
        .extensions()
        .get::<Caller>()
        .cloned()
        .unwrap_or_default();
    let params = params_for(method, req.params.as_ref().map(|p| p.get()))
        .map(|p| (method, p.with_caller(caller).with_wire(Wire::Json)));
    ((req.id.into_owned(), method.name), params)
}

/// jsonrpsee's answer to a reply over its size limit (`max_reply_bytes`) is -32008 "Response
/// is too big", and -32008 is our storage error: said as our -32013 instead.
fn our_reply_cap(rp: MethodResponse, limit: Option<usize>) -> MethodResponse {
    let oversized = rp.as_error_code() == Some(OVERSIZED_RESPONSE_CODE)
        && rp.as_json().get().contains(OVERSIZED_RESPONSE_MSG);
    let Some(limit) = limit.filter(|_| oversized) else {
        return rp;
    };
    #[derive(serde::Deserialize)]
    struct Answered<'a> {
        #[serde(borrow)]
        id: Id<'a>,
    }
    let id = serde_json::from_str::<Answered>(rp.as_json().get())
        .map(|a| a.id.into_owned())
        .unwrap_or(Id::Null);
    MethodResponse::error(id, to_error(RpcError::reply_too_big(limit)))
        .with_extensions(rp.extensions().clone())
}

/// Holds `turn` until `rp` has been written out on `conn` (given back now without one).
fn hold_until_sent(conn: Option<&Connection>, rp: &MethodResponse, turn: OwnedSemaphorePermit) {
    if let Some(conn) = conn {
        conn.outbox.hold_until_sent(rp.as_json().get().len(), turn);
    }
}
