//! The HTTP front: one axum router serves XML-RPC (on any POST path with an XML body, as rswiss
//! did), JSON-RPC over HTTP and WebSocket (`/jsonrpc`, and `/` for JSON bodies and upgrades),
//! `/health` and `/metrics`. [`serve`] takes a bound listener and a shutdown future so tests
//! can run the real server on 127.0.0.1:0. Every answer says `X-Content-Type-Options:
//! nosniff`.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use jsonrpsee::server::middleware::rpc::RpcServiceBuilder;
use jsonrpsee::server::{PingConfig, ServerConfig, TowerService, stop_channel};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;
use tower::layer::util::{Identity, Stack};

use crate::app::registry::Registry;
use crate::app::turn::{Connection, Outbox};
use crate::config::Config;
use crate::rpc::auth::Caller;
use crate::rpc::jsonrpc::CallsLayer;
use crate::rpc::{Ctx, RpcError, xmlrpc};
use crate::store::Store;

mod deadline;
mod guard;
mod reading;

type JsonService = TowerService<Stack<CallsLayer, Identity>, Identity>;

/// The router's state: cloned for every request by axum, so one `Arc` ([`Shared`]).
#[derive(Clone)]
struct App(Arc<Shared>);

impl std::ops::Deref for App {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

struct Shared {
    ctx: Arc<Ctx>,
    json: JsonService,
    metrics: PrometheusHandle,
    max_body: usize,
    /// Why this daemon is exposed more than it may mean to be ([`exposure`]), said by
    /// `/health` under its status.
    exposure: Arc<[String]>,
}

/// Latency buckets in seconds, from a cached read to a slow pairing.
const BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

/// The process-wide Prometheus recorder (the `metrics` facade has one global recorder, so
/// several servers in one test process share it).
fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets(BUCKETS)
                .unwrap_or_else(|_| PrometheusBuilder::new());
            match builder.install_recorder() {
                Ok(h) => {
                    crate::app::metrics::recorder_installed();
                    h
                }
                // Another recorder is installed (e.g. by an embedding program): keep our own
                // handle so /metrics still answers, even if nothing is recorded into it.
                Err(_) => PrometheusBuilder::new().build_recorder().handle(),
            }
        })
        .clone()
}

fn is_xml(headers: &HeaderMap) -> Option<bool> {
    let ct = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let mime = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    Some(mime == "text/xml" || mime == "application/xml")
}

fn xml_response(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/xml; charset=utf-8")], body).into_response()
}

fn too_big(max: usize) -> RpcError {
    RpcError::invalid_request(format!("request body exceeds the limit of {max} bytes"))
}

/// Reads a body up to the limit. `Err` carries the response to send instead.
async fn read_body(body: Body, max: usize, headers: &HeaderMap) -> Result<Bytes, Response> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(xml_response(xmlrpc::fault_reply(&too_big(max)).body));
    }
    match Limited::new(body, max).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(xml_response(xmlrpc::fault_reply(&too_big(max)).body))
        }
        Err(e) if deadline::is_body_timeout(&*e) => Err((
            StatusCode::REQUEST_TIMEOUT,
            [(header::CONNECTION, "close")],
            format!("{e}\n"),
        )
            .into_response()),
        Err(e) => Err((
            StatusCode::BAD_REQUEST,
            format!("could not read the request body: {e}\n"),
        )
            .into_response()),
    }
}

async fn serve_xml(app: &App, body: &[u8], ext: &axum::http::Extensions) -> Response {
    let start = Instant::now();
    let call = xmlrpc::handle_as(&app.ctx, body, caller_of(ext));
    let (reply, turn) = crate::app::turn::holding_turn(call).await;
    crate::app::metrics::record(reply.method.unwrap_or("unknown"), "xmlrpc", reply.ok, start);
    // The heavy work's turn stays taken until the client has read the reply.
    if let Some(turn) = turn
        && let Some(conn) = ext.get::<Connection>()
    {
        conn.outbox.hold_until_sent(reply.body.len(), turn);
    }
    xml_response(reply.body)
}

async fn xml_rpc(app: &App, req: Request) -> Response {
    if req.method() != Method::POST {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "POST")],
            "XML-RPC takes POST\n",
        )
            .into_response();
    }
    let (parts, body) = req.into_parts();
    match read_body(body, app.max_body, &parts.headers).await {
        Ok(bytes) => serve_xml(app, &bytes, &parts.extensions).await,
        Err(resp) => resp,
    }
}

async fn json_rpc(app: &App, mut req: Request) -> Response {
    // Whether calls can get notifications (subscriptions), and which session they are of.
    let transport = crate::rpc::methods::tournament_live::Transport::of(&req);
    req.extensions_mut().insert(transport);
    match app.json.clone().oneshot(req).await {
        Ok(resp) => resp.map(Body::new),
        Err(e) => {
            tracing::error!(error = %e, "JSON-RPC service failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response()
        }
    }
}

/// POST without a Content-Type: look at the first non-blank byte, `<` means XML-RPC.
async fn sniffed(app: &App, req: Request, otherwise_json: bool) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = match read_body(body, app.max_body, &parts.headers).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
        return serve_xml(app, &bytes, &parts.extensions).await;
    }
    if otherwise_json {
        json_rpc(app, Request::from_parts(parts, Body::from(bytes))).await
    } else {
        (StatusCode::NOT_FOUND, "not found\n").into_response()
    }
}

/// The caller set by [`with_caller`] (anonymous if somehow missing).
fn caller_of(ext: &axum::http::Extensions) -> Caller {
    ext.get::<Caller>().cloned().unwrap_or_default()
}

/// What every request goes through before the router, in one middleware rather than a layer
/// each (every `from_fn` layer boxes a future per request): the cross-site guard, the body's
/// deadline, the caller, and `nosniff` on the answer.
struct Front {
    guard: Arc<guard::Guard>,
    body_timeout: Duration,
}

async fn front(
    State(front): State<Arc<Front>>,
    req: Request,
    next: axum::middleware::Next,
) -> Response {
    let body_timeout = front.body_timeout;
    let resp = guard::check(&front.guard, req, move |req: Request| async move {
        // The body's clock starts when its head is complete (see [`deadline::body_deadline`]).
        let req = req.map(|b| deadline::body_deadline(b, body_timeout));
        next.run(with_caller(req)).await
    })
    .await;
    nosniff(resp)
}

/// Reads the caller's token (`Authorization`) and address into the request's extensions,
/// where both protocol adapters find it (jsonrpsee hands a WebSocket upgrade's extensions to
/// every call of the session). The header itself is never logged.
fn with_caller(mut req: Request) -> Request {
    let addr = req.extensions().get::<Connection>().map(|c| c.addr);
    let caller = Caller::from_headers(req.headers(), addr);
    req.extensions_mut().insert(caller);
    // Gone before anything downstream can log it (jsonrpsee traces whole requests).
    req.headers_mut().remove(header::AUTHORIZATION);
    req
}

/// `/`: XML bodies go to XML-RPC, everything else (JSON POSTs, WebSocket upgrades) to JSON-RPC.
async fn root(State(app): State<App>, req: Request) -> Response {
    // A plain GET (not a WebSocket upgrade) is a browser asking for the tournament list.
    if req.method() == Method::GET && !req.headers().contains_key(header::UPGRADE) {
        return crate::web::index(&app.ctx, crate::web::wants_fragment(req.uri().query())).await;
    }
    match is_xml(req.headers()) {
        Some(true) => xml_rpc(&app, req).await,
        None if req.method() == Method::POST => sniffed(&app, req, true).await,
        _ => json_rpc(&app, req).await,
    }
}

async fn xml_path(State(app): State<App>, req: Request) -> Response {
    xml_rpc(&app, req).await
}

async fn json_path(State(app): State<App>, req: Request) -> Response {
    json_rpc(&app, req).await
}

/// Any other path: rswiss answered XML-RPC on every path, so XML POSTs are served anywhere.
async fn fallback(State(app): State<App>, req: Request) -> Response {
    if req.method() != Method::POST {
        return (StatusCode::NOT_FOUND, "not found\n").into_response();
    }
    match is_xml(req.headers()) {
        Some(true) => xml_rpc(&app, req).await,
        None => sniffed(&app, req, false).await,
        Some(false) => (StatusCode::NOT_FOUND, "not found\n").into_response(),
    }
}

/// 200 "ok" while the daemon can record writes; 503 with the reason once it cannot (the
/// store's writer died), so a load balancer or supervisor can take it out and restart it.
/// Under the status, a line per way the daemon is exposed ([`exposure`]).
async fn health(State(app): State<App>) -> Response {
    let status = app.ctx.registry.health();
    let code = match status {
        Ok(()) => StatusCode::OK,
        Err(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    (code, health_text(status, &app.exposure)).into_response()
}

fn health_text(status: Result<(), impl std::fmt::Display>, exposure: &[String]) -> String {
    let mut text = match status {
        Ok(()) => "ok\n".to_string(),
        Err(e) => format!("unhealthy: {e}\n"),
    };
    for warning in exposure {
        text.push_str("warning: ");
        text.push_str(warning);
        text.push('\n');
    }
    text
}

/// Why a daemon listening on `listening_on` is open to more than its operator may think:
/// off loopback with auth off (anyone who can reach it may change every tournament), and
/// without host checking wherever it listens (a web page the operator opens can reach it
/// through a DNS name rebound to it, loopback included).
pub fn exposure(listening_on: IpAddr, auth_on: bool, checks_hosts: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if !listening_on.is_loopback() && !auth_on {
        warnings.push(format!(
            "listening on {listening_on}, not loopback, with auth off: anyone who can reach \
             this address can change every tournament (set admin_token, or auth = true)"
        ));
    }
    if !checks_hosts {
        warnings.push(format!(
            "listening on {listening_on} without host checking: a web page can reach this \
             daemon through a DNS name rebound to it (set allowed_hosts)"
        ));
    }
    warnings
}

/// `X-Content-Type-Options: nosniff` on every answer: none of ours is to be read as anything
/// but what its Content-Type says (a browser sniffing an XML-RPC fault or a download as HTML
/// would run what a client put in it).
fn nosniff(mut resp: Response) -> Response {
    resp.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    resp
}

async fn metrics(State(app): State<App>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(),
    )
        .into_response()
}

/// Runs the daemon on `listener` until `shutdown` resolves: opens the store and replays every
/// tournament, serves, then closes WebSocket sessions and flushes the store.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // A PostgreSQL URL's password stays out of messages and logs.
    let db = crate::store::redacted(&config.db);
    let store: Arc<dyn Store> = crate::store::open(
        &config.db,
        std::time::Duration::from_micros(config.pg_commit_linger_us),
    )
    .await
    .with_context(|| format!("opening database {db}"))?;
    // Each log is replayed a page at a time: the daemon never holds every log at once.
    let registry = Registry::from_store(Arc::clone(&store))
        .await
        .with_context(|| format!("loading tournaments from {db}"))?
        .with_byte_budget(config.max_tournament_bytes);
    let tournaments = Registry::from_store(Arc::clone(&store))
        .await
        .with_context(|| format!("loading tournaments from {db}"))?
        .with_byte_budget(config.max_tournament_bytes);
    tracing::info!(
        matchmaker = registry.len(),
        tournaments = tournaments.len(),
        db = %db,
        "store opened"
    );
    let listening_on = listener.local_addr()?.ip();
    let guard = Arc::new(guard::Guard::new(
        &config.allowed_hosts,
        &config.allowed_origins,
        listening_on,
    ));
    let exposed: Arc<[String]> =
        exposure(listening_on, config.auth_on(), guard.checks_hosts()).into();
    for warning in exposed.iter() {
        tracing::warn!("{warning}");
    }
    let max_body = config.max_body_bytes as usize;
    let file_limit = deadline::open_file_limit();
    let max_connections = deadline::clamp_connections(config.max_connections, file_limit);
    if max_connections < config.max_connections {
        tracing::warn!(
            configured = config.max_connections,
            effective = max_connections,
            open_file_limit = file_limit,
            "max_connections lowered to fit the open-file limit (raise ulimit -n to allow more)"
        );
    }
    let limits = ConnLimits {
        max_connections: max_connections as usize,
        per_ip: config.max_connections_per_ip as usize,
        reading: config.reading_connections(max_connections) as usize,
        header_timeout: Duration::from_secs(config.header_timeout_secs.max(1)),
        write_timeout: Duration::from_secs(config.write_timeout_secs.max(1)),
        min_read_rate: config.min_read_bytes_per_sec,
        min_read_window: Duration::from_secs(config.min_read_window_secs.max(1)),
    };
    let body_timeout = Duration::from_secs(config.body_timeout_secs.max(1));
    let ws_ping = (config.ws_ping_secs > 0).then(|| {
        let every = Duration::from_secs(config.ws_ping_secs);
        PingConfig::new()
            .ping_interval(every)
            .inactive_limit(every * 2)
            .max_failures(1)
    });
    // One set of turns for every heavy computation: stateless calls and the heavy commands
    // of both registries.
    let heavy = Ctx::heavy_permits(&config);
    let ctx = Arc::new(Ctx {
        registry: registry.with_heavy_turns(Arc::clone(&heavy)),
        tournaments: tournaments.with_heavy_turns(Arc::clone(&heavy)),
        heavy,
        directors_heavy: Ctx::director_permits(&config),
        config,
        simulations: Default::default(),
        ratings: crate::rpc::methods::ratings::Lists::new(Arc::clone(&store)),
    });
    ctx.ratings
        .refresh()
        .await
        .with_context(|| format!("loading rating lists from {db}"))?;
    // Other daemons' writes on a shared database (PostgreSQL): the caches follow them.
    let follower = Arc::clone(&ctx);
    tokio::spawn(async move { follower.registry.follow().await });
    let follower = Arc::clone(&ctx);
    tokio::spawn(async move { follower.tournaments.follow().await });

    let (stop_handle, server_handle) = stop_channel();
    // jsonrpsee stops writing a reply at `max_reply_bytes`; its error for that is said as
    // ours by the middleware (`rpc::jsonrpc::Calls`).
    let reply_limit = ctx
        .config
        .reply_limit()
        .map_or(u32::MAX, |l| u32::try_from(l).unwrap_or(u32::MAX));
    let mut json_config = ServerConfig::builder()
        .max_request_body_size(max_body as u32)
        .max_response_body_size(reply_limit)
        .max_connections(max_connections)
        // The subscription caps are the daemon's own (max_subscriptions_per_*), with errors
        // that name them; jsonrpsee's would cut in first at 1,024.
        .max_subscriptions_per_connection(u32::MAX);
    if let Some(ping) = ws_ping {
        json_config = json_config.enable_ws_ping(ping);
    }
    let json = jsonrpsee::server::Server::builder()
        .set_config(json_config.build())
        // Calls (batches, reply cap, turns) outside; inside it, the subscription methods
        // answer over plain HTTP that they need a WebSocket, in a batch too.
        .set_rpc_middleware(RpcServiceBuilder::new().layer(CallsLayer::new(Arc::clone(&ctx))))
        .to_service_builder()
        .build(crate::rpc::jsonrpc::module(Arc::clone(&ctx)), stop_handle);

    // Live page streams end when the daemon stops, so their connections can close; so do
    // WebSocket sessions, which hold their connections' places until they end.
    let (web_stop_tx, web_stop) = watch::channel(false);
    let follower = Arc::clone(&ctx);
    let stop = web_stop.clone();
    tokio::spawn(async move { follower.ratings.follow(stop).await });
    let shutdown = async move {
        shutdown.await;
        let _ = web_stop_tx.send(true);
        let _ = server_handle.stop();
    };
    let web = crate::web::router(Arc::clone(&ctx), web_stop, max_connections as usize / 2);
    let app = App(Arc::new(Shared {
        ctx: Arc::clone(&ctx),
        json,
        metrics: metrics_handle(),
        max_body,
        exposure: exposed,
    }));
    let router = Router::new()
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/", any(root))
        .route("/RPC2", any(xml_path))
        .route("/xmlrpc", any(xml_path))
        .route("/jsonrpc", any(json_path))
        .fallback(fallback)
        .with_state(app)
        .merge(web)
        // Pages (and the list at `/`) in the request's language.
        .layer(axum::middleware::from_fn(crate::web::language::language))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(Front {
                guard,
                body_timeout,
            }),
            front,
        ));

    let addr = listener.local_addr()?;
    tracing::info!(%addr, "listening");
    accept_loop(listener, router, limits, shutdown).await;
    // The connections have finished (or were given up on), WebSocket sessions too.
    ctx.registry.close().await.context("closing the store")?;
    tracing::info!("store closed");
    Ok(())
}

/// How many connections may be open at once, and how long a connection may take to send a
/// complete request head (new, or idle between keep-alive requests) before it is closed.
struct ConnLimits {
    max_connections: usize,
    /// Open connections per client address; 0: unlimited.
    per_ip: usize,
    /// Connections still sending a request ([`reading`]).
    reading: usize,
    header_timeout: Duration,
    write_timeout: Duration,
    /// Bytes a second a client must read a reply at; 0: no minimum.
    min_read_rate: u64,
    min_read_window: Duration,
}

/// Open connections per client address, for `max_connections_per_ip`.
#[derive(Default)]
struct PerIp(std::sync::Mutex<HashMap<IpAddr, usize>>);

impl PerIp {
    /// Counts a new connection from `ip` unless it already has `cap`; the slot is given back
    /// when the returned guard drops.
    fn admit(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<IpSlot> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = map.entry(ip).or_insert(0);
        if cap > 0 && *n >= cap {
            return None;
        }
        *n += 1;
        Some(IpSlot {
            owner: Arc::clone(self),
            ip,
        })
    }
}

struct IpSlot {
    owner: Arc<PerIp>,
    ip: IpAddr,
}

impl Drop for IpSlot {
    fn drop(&mut self) {
        let mut map = self.owner.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

/// How long shutdown waits for in-flight requests before closing their connections anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Our own accept loop instead of `axum::serve`, which has no header-read timeout and no
/// connection cap: an idle or slow client would hold its socket (and file descriptor) for
/// ever, and enough of them would stop the daemon from accepting anyone. Here every
/// connection is HTTP/1.1 with upgrades (XML-RPC, JSON-RPC and WebSocket clients all speak it)
/// with hyper's header-read timeout, which also bounds the idle time between keep-alive
/// requests; at `max_connections` open connections the loop stops accepting (new clients wait
/// in the kernel's backlog) until one closes. A connection's place (and its address's count)
/// lives with its socket, so a WebSocket session, the socket hyper hands on after an upgrade,
/// keeps it until the session ends. Past `max_reading_connections` connections still sending
/// a request, the one at it longest is shed ([`reading`]).
async fn accept_loop(
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let max =
        u32::try_from(limits.max_connections.clamp(1, Semaphore::MAX_PERMITS)).unwrap_or(u32::MAX);
    // One permit per open connection: the cap, and (all permits back) "every connection done".
    let permits = Arc::new(Semaphore::new(max as usize));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let per_ip = Arc::new(PerIp::default());
    let readers = reading::Readers::new(limits.reading);
    readers.sweep();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            p = Arc::clone(&permits).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break, // never closed; defensive
            },
        };
        let (tcp, slot, peer) = tokio::select! {
            () = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok((tcp, peer)) => match per_ip.admit(peer.ip(), limits.per_ip) {
                    Some(slot) => (tcp, slot, peer.ip()),
                    None => {
                        // Closed at once: the client sees a reset, not a wait.
                        tracing::debug!(%peer, "connection refused: max_connections_per_ip");
                        metrics::counter!("goswiss_connections_refused_total", "reason" => "per_ip")
                            .increment(1);
                        continue;
                    }
                },
                Err(e) => {
                    // EMFILE and friends: back off instead of spinning on the error.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Replies go out as soon as they are written: no Nagle delay on keep-alive connections.
        let _ = tcp.set_nodelay(true);
        let outbox = Arc::new(Outbox::default());
        // Every request of the connection carries its client's address (quotas) and the
        // connection's outbox (the turns held until replies are sent).
        let connection = Connection {
            addr: peer,
            outbox: Arc::clone(&outbox),
        };
        let state = readers.open();
        let (on_request, on_reply) = (Arc::clone(&state), Arc::clone(&state));
        let service = TowerToHyperService::new(
            router
                .clone()
                .map_request(move |req: Request<hyper::body::Incoming>| {
                    let mut req =
                        req.map(|b| reading::ReadingBody::new(b, Arc::clone(&on_request)));
                    req.extensions_mut().insert(connection.clone());
                    req
                })
                .map_response(move |resp: Response| {
                    // After an upgrade the connection reads no more requests.
                    let next = (resp.status() != StatusCode::SWITCHING_PROTOCOLS)
                        .then(|| Arc::clone(&on_reply));
                    resp.map(|b| reading::AnsweredBody::new(b, next))
                }),
        );
        let io = deadline::WriteDeadline::new(tcp, limits.write_timeout)
            .min_rate(limits.min_read_rate, limits.min_read_window)
            .counting(outbox)
            .holding((permit, slot));
        let conn = http
            .serve_connection(TokioIo::new(io), service)
            .with_upgrades();
        let mut stop = stop_rx.clone();
        let readers = Arc::clone(&readers);
        tokio::spawn(async move {
            let mut conn = std::pin::pin!(conn);
            let ended = tokio::select! {
                r = conn.as_mut() => r,
                () = async { let _ = stop.wait_for(|s| *s).await; } => {
                    // Finish the request in flight (if any), then close.
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
                // Dropping the connection closes it (and frees what it held).
                () = state.shed.notified() => Ok(()),
            };
            if let Err(e) = ended {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            // An upgraded (WebSocket) connection ends here too, but its socket, with its place
            // under max_connections and its address's count, lives on in the session.
            readers.close(&state);
        });
    }
    tracing::info!("shutting down");
    drop(listener);
    let _ = stop_tx.send(true);
    if tokio::time::timeout(SHUTDOWN_GRACE, permits.acquire_many(max))
        .await
        .is_err()
    {
        tracing::warn!("requests still running after {SHUTDOWN_GRACE:?}; closing anyway");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposure_is_said_off_loopback_or_without_host_checking() {
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        let v6: IpAddr = "::".parse().unwrap();
        assert!(exposure(lo, false, true).is_empty());
        assert!(exposure("::1".parse().unwrap(), false, true).is_empty());
        // Any host name on loopback: DNS rebinding reaches it.
        let rebinding = exposure(lo, true, false);
        assert_eq!(rebinding.len(), 1);
        assert!(
            rebinding[0].contains("127.0.0.1 without host checking"),
            "{rebinding:?}"
        );
        let both = exposure(any, false, false);
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(both[0].contains("auth off") && both[0].contains("0.0.0.0"));
        assert!(both[1].contains("without host checking") && both[1].contains("allowed_hosts"));
        let hosts_only = exposure(v6, true, false);
        assert_eq!(hosts_only.len(), 1);
        assert!(hosts_only[0].contains("host checking"));
        assert_eq!(exposure(any, false, true).len(), 1);
        assert!(exposure(any, true, true).is_empty());
    }

    #[test]
    fn health_says_the_exposure_under_its_status() {
        let ok: Result<(), &str> = Ok(());
        assert_eq!(health_text(ok, &[]), "ok\n");
        let warnings = exposure("0.0.0.0".parse().unwrap(), false, true);
        let text = health_text(ok, &warnings);
        assert!(
            text.starts_with("ok\nwarning: listening on 0.0.0.0"),
            "{text}"
        );
        assert!(
            text.ends_with("(set admin_token, or auth = true)\n"),
            "{text}"
        );
        assert_eq!(
            health_text(Err("the disk is full"), &warnings)
                .lines()
                .next(),
            Some("unhealthy: the disk is full")
        );
    }

    #[test]
    fn host_checking_as_the_guard_does_it() {
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        assert!(!guard::Guard::new(&[], &[], any).checks_hosts());
        assert!(guard::Guard::new(&["go.example".into()], &[], any).checks_hosts());
        assert!(!guard::Guard::new(&["*".into()], &[], any).checks_hosts());
        assert!(guard::Guard::new(&[], &[], "127.0.0.1".parse().unwrap()).checks_hosts());
    }
}
