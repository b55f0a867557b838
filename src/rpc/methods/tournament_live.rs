//! `tournament.subscribe` / `tournament.unsubscribe`: live notifications of a tournament's
//! changes over a JSON-RPC WebSocket session.
//!
//! Each subscription follows its tournament's own feed in the registry (one per tournament,
//! shared by its subscribers), so a write wakes the subscribers of that tournament and no
//! others. Subscriptions are capped per session (`max_subscriptions_per_connection`) and per
//! client address (`max_subscriptions_per_address`), refused with -32006 naming the cap. With
//! auth on, a subscriber who does not direct the tournament gets the events of a round only
//! while it is published (the web pages' rule, [`crate::tournament::visibility`]); what it
//! missed of a round is counted on the round's publication, the notice to re-read it.
//!
//! Both methods are in the method table too, so that the listings show them; called there
//! (XML-RPC, JSON-RPC over plain HTTP, a multicall) they answer -32020: they need a WebSocket.
//! JSON-RPC over HTTP would otherwise reach jsonrpsee's subscription and answer -32603, so an
//! RPC middleware ([`crate::rpc::jsonrpc::Calls`], by [`over_http`]) sends those calls through
//! the table instead.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};

use jsonrpsee::ResponsePayload;
use jsonrpsee::server::middleware::rpc::{Extensions, MethodResponse, Request};
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use crate::app::registry::Change;
use crate::rpc::auth::{self, Caller};
use crate::rpc::{Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::store::TournamentId;
use crate::tournament::Event;
use crate::tournament::engine::result_code;
use crate::tournament::model::RoundNumber;
use crate::tournament::visibility::Publication;

/// This file's error codes (README "Error codes").
pub mod codes {
    /// Over a subscription cap; jsonrpsee's own code for too many subscriptions.
    pub const TOO_MANY_SUBSCRIPTIONS: i32 = -32006;
    /// A WebSocket-only method called on a wire that cannot carry notifications.
    pub const NEEDS_WEBSOCKET: i32 = -32020;
}

/// The notification method name of `tournament.subscribe`.
pub const NOTIFICATION: &str = "tournament.event";

const SUBSCRIBE: &str = "tournament.subscribe";
const UNSUBSCRIBE: &str = "tournament.unsubscribe";

/// How a JSON-RPC request reached the daemon, put in its extensions by the server: a plain
/// HTTP request, or a WebSocket session (every call of one session carries the same number,
/// which is what the per-connection cap counts by).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Http,
    WebSocket(u64),
}

impl Transport {
    /// The transport of a request jsonrpsee is about to serve: a WebSocket session for an
    /// upgrade request (jsonrpsee's own test), plain HTTP otherwise.
    pub fn of<B>(req: &axum::http::Request<B>) -> Transport {
        static SESSIONS: AtomicU64 = AtomicU64::new(0);
        if jsonrpsee::server::ws::is_upgrade_request(req) {
            Transport::WebSocket(SESSIONS.fetch_add(1, Ordering::Relaxed))
        } else {
            Transport::Http
        }
    }
}

// ---- the method table's entries -------------------------------------------------------------

fn needs_websocket(name: &str) -> RpcError {
    RpcError::new(
        codes::NEEDS_WEBSOCKET,
        format!(
            "{name} needs a WebSocket: connect to ws://HOST:PORT/ (or /jsonrpc) and call it \
             there; notifications cannot be sent on this wire"
        ),
    )
}

async fn subscribe_here(_ctx: Arc<Ctx>, _p: Params) -> RpcResult {
    Err(needs_websocket(SUBSCRIBE))
}

async fn unsubscribe_here(_ctx: Arc<Ctx>, _p: Params) -> RpcResult {
    Err(needs_websocket(UNSUBSCRIBE))
}

pub static METHODS: &[Method] = &[
    Method {
        name: SUBSCRIBE,
        access: Access::Public,
        params: &[Param::req("tournament_id", "int")],
        returns: "string",
        help: "WebSocket only (-32020 elsewhere): the subscription id; then a tournament.event \
               notification {tournament_id, kind, revision, round?, standings_changed, table?, \
               result?, published?, withheld?} per durable change; kind deleted ends it, lagged \
               {missed, revision} means re-read tournament.events. With auth on, non-directors \
               get a round's events only while it is published.",
        doc: crate::rpc::openrpc::Doc::typed::<SubscribeParams, SubscriptionId>()
            .errors(&[1001, -32006, -32020])
            .notifies::<TournamentEvent>(NOTIFICATION, UNSUBSCRIBE),
        handler: Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture {
            Box::pin(subscribe_here(ctx, p))
        }),
    },
    Method {
        name: UNSUBSCRIBE,
        access: Access::Public,
        params: &[Param::req("subscription", "any")],
        returns: "boolean",
        help: "WebSocket only (-32020 elsewhere): ends a tournament.subscribe subscription of \
               this session.",
        doc: crate::rpc::openrpc::Doc::typed::<UnsubscribeParams, bool>().errors(&[-32020]),
        handler: Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture {
            Box::pin(unsubscribe_here(ctx, p))
        }),
    },
];

/// `tournament.subscribe`'s parameters.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SubscribeParams {
    /// The tournament to follow.
    pub tournament_id: TournamentId,
}

/// `tournament.unsubscribe`'s parameters.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct UnsubscribeParams {
    /// The id `tournament.subscribe` answered.
    pub subscription: SubscriptionId,
}

/// A subscription id as jsonrpsee hands it out: a number (or a string).
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SubscriptionId {
    Text(String),
    Number(u64),
}

/// A `tournament.event` notification's `result`: one durable change of the tournament.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TournamentEvent {
    pub tournament_id: TournamentId,
    /// The event's kind (`result_set`, `round_paired`, …), or `deleted` (the subscription
    /// ends), or `lagged` (re-read `tournament.events` from `revision`).
    pub kind: String,
    /// The tournament's revision after the change.
    pub revision: u64,
    /// Whether the change can change the standings (absent for deleted and lagged).
    pub standings_changed: Option<bool>,
    /// The round the change is about.
    pub round: Option<RoundNumber>,
    /// A result's table.
    pub table: Option<u32>,
    /// A result's code (`W+`, `B+`, `jigo`, …).
    pub result: Option<String>,
    /// A round's publication: published or withdrawn.
    pub published: Option<bool>,
    /// On a round's publication, the events of that round left out while it was a draft.
    pub withheld: Option<u64>,
    /// `lagged`: the changes missed.
    pub missed: Option<u64>,
}

/// The table's names that jsonrpsee serves as a subscription instead of a method.
pub fn is_subscription_method(name: &str) -> bool {
    name == SUBSCRIBE || name == UNSUBSCRIBE
}

// ---- notifications --------------------------------------------------------------------------

/// Whether an event can change the standings (a client showing them should re-read).
fn changes_standings(e: &Event) -> bool {
    matches!(
        e,
        Event::SettingsChanged { .. }
            | Event::PlayerRegistered { .. }
            | Event::PlayerUpdated { .. }
            | Event::PlayerWithdrawn { .. }
            | Event::ParticipationSet { .. }
            | Event::PlayerRemoved { .. }
            | Event::RoundPaired { .. }
            | Event::GameAdded { .. }
            | Event::GameRemoved { .. }
            | Event::PlayersSwapped { .. }
            | Event::RoundUnpaired { .. }
            | Event::ResultSet { .. }
    )
}

/// One notification: what happened, at which revision, to which round.
fn notification(id: TournamentId, revision: u64, e: &Event) -> Value {
    let mut v = json!({
        "tournament_id": id,
        "kind": e.kind(),
        "revision": revision,
        "standings_changed": changes_standings(e),
    });
    if let Some(r) = e.round() {
        v["round"] = json!(r);
    }
    match e {
        Event::RoundPublished { published, .. } => v["published"] = json!(published),
        Event::ResultSet {
            table,
            outcome,
            forfeit,
            ..
        } => {
            v["table"] = json!(table);
            v["result"] = json!(result_code(*outcome, *forfeit));
        }
        _ => {}
    }
    v
}

fn raw(v: &Value) -> Option<Box<serde_json::value::RawValue>> {
    serde_json::value::to_raw_value(v).ok()
}

/// What a subscriber starts (or starts again, after it lagged) from: the state it would have
/// read at `revision`.
struct Start {
    revision: u64,
    director_token: Option<String>,
    publication: Publication,
}

async fn start(ctx: &Ctx, id: TournamentId) -> Result<Start, RpcError> {
    ctx.tournaments
        .read(id, |t, revision| Start {
            revision,
            director_token: t.director_token.clone(),
            publication: Publication::of(&t.data),
        })
        .await
        .map_err(super::tournament::registry_error)
}

/// One subscriber's view of its tournament's changes. `directs` answers whether the subscriber
/// directs the tournament under a director token hash (`rpc::auth::directs` for its caller).
struct Follower<D: Fn(Option<&str>) -> bool> {
    id: TournamentId,
    directs: D,
    /// Every event up to this revision is in what the subscriber read or was told of.
    revision: u64,
    /// May see every round (auth off, the director, the admin).
    director: bool,
    publication: Publication,
    /// Per round, events left out since the subscriber last heard of it (a non-director,
    /// while the round was not public) and whether one of them changed the standings.
    withheld: BTreeMap<RoundNumber, (u64, bool)>,
}

impl<D: Fn(Option<&str>) -> bool> Follower<D> {
    fn new(id: TournamentId, directs: D, s: Start) -> Follower<D> {
        let mut f = Follower {
            id,
            directs,
            revision: 0,
            director: false,
            publication: Publication::default(),
            withheld: BTreeMap::new(),
        };
        f.restart(s);
        f
    }

    /// Starts again from the state `s` (at the start, and after the subscriber lagged: a
    /// subscriber told it lagged re-reads everything it shows).
    fn restart(&mut self, s: Start) {
        self.revision = s.revision;
        self.director = (self.directs)(s.director_token.as_deref());
        self.publication = s.publication;
        self.withheld.clear();
    }

    /// The notifications of events appended at `first_seq` for this subscriber: those after
    /// what it read (at its start or restart) that it may see.
    fn appended(&mut self, first_seq: u64, events: &[Event]) -> Vec<Value> {
        events
            .iter()
            .zip(first_seq + 1..)
            .filter_map(|(e, rev)| (rev > self.revision).then(|| self.note(e, rev)).flatten())
            .collect()
    }

    /// The notification of the event at `revision` for this subscriber, if it may see it.
    fn note(&mut self, e: &Event, revision: u64) -> Option<Value> {
        self.revision = revision;
        if let Event::DirectorTokenSet {
            director_token_sha256,
        } = e
        {
            // A rotated token stops opening the drafts at once, as it stops opening writes.
            self.director = (self.directs)(Some(director_token_sha256));
        }
        let public = self.publication.apply(e);
        if !public && !self.director {
            if let Some(r) = e.round() {
                let w = self.withheld.entry(r).or_default();
                w.0 += 1;
                w.1 |= changes_standings(e);
            }
            return None;
        }
        let mut v = notification(self.id, revision, e);
        if let Event::RoundPublished {
            round,
            published: true,
        } = e
            && let Some((n, standings)) = self.withheld.remove(round)
        {
            v["withheld"] = json!(n);
            v["standings_changed"] = json!(standings || v["standings_changed"] == true);
        }
        Some(v)
    }
}

// ---- caps -----------------------------------------------------------------------------------

/// Open subscriptions per WebSocket session and per client address.
#[derive(Default)]
struct Book {
    counts: StdMutex<Counts>,
}

#[derive(Default)]
struct Counts {
    per_connection: HashMap<u64, u32>,
    per_address: HashMap<Option<IpAddr>, u32>,
}

/// One subscription's place in the [`Book`], given back when dropped.
struct Seat {
    book: Arc<Book>,
    connection: u64,
    address: Option<IpAddr>,
}

fn over_cap(what: &str, n: u32, setting: &str, cap: u32) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(
        codes::TOO_MANY_SUBSCRIPTIONS,
        format!(
            "too many subscriptions: {what} has {n} open ({setting} = {cap}); \
             unsubscribe from some first"
        ),
        Some(serde_json::json!({setting: cap, "open": n})),
    )
}

impl Book {
    fn take(
        self: &Arc<Self>,
        ctx: &Ctx,
        connection: u64,
        address: Option<IpAddr>,
    ) -> Result<Seat, ErrorObjectOwned> {
        let (per_conn, per_addr) = (
            ctx.config.max_subscriptions_per_connection,
            ctx.config.max_subscriptions_per_address,
        );
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let on_conn = counts.per_connection.get(&connection).copied().unwrap_or(0);
        if per_conn > 0 && on_conn >= per_conn {
            return Err(over_cap(
                "this connection",
                on_conn,
                "max_subscriptions_per_connection",
                per_conn,
            ));
        }
        let from_addr = counts.per_address.get(&address).copied().unwrap_or(0);
        if per_addr > 0 && from_addr >= per_addr {
            return Err(over_cap(
                "this client address",
                from_addr,
                "max_subscriptions_per_address",
                per_addr,
            ));
        }
        *counts.per_connection.entry(connection).or_insert(0) += 1;
        *counts.per_address.entry(address).or_insert(0) += 1;
        Ok(Seat {
            book: Arc::clone(self),
            connection,
            address,
        })
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut counts = self.book.counts.lock().unwrap_or_else(|p| p.into_inner());
        let Counts {
            per_connection,
            per_address,
        } = &mut *counts;
        if let Some(n) = per_connection.get_mut(&self.connection) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                per_connection.remove(&self.connection);
            }
        }
        if let Some(n) = per_address.get_mut(&self.address) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                per_address.remove(&self.address);
            }
        }
    }
}

// ---- the subscription -----------------------------------------------------------------------

/// The subscription's tournament id, from positional or named parameters, with the table's
/// arity message.
fn subscribe_params(raw: Option<&str>) -> Result<TournamentId, RpcError> {
    let method = &METHODS[0];
    let p = crate::rpc::json_call::params_for(method, raw)?;
    if p.len() != 1 || p.raw(0).is_none() {
        return Err(method.arity_error(p.len()));
    }
    p.get(0, "tournament_id")
}

/// Registers `tournament.subscribe(tournament_id)` / `tournament.unsubscribe` with jsonrpsee
/// (WebSocket sessions): every change to the tournament after the subscription's start, once
/// durable, is pushed as a `tournament.event` notification. A deleted tournament sends kind
/// "deleted" (with the revision it had) and ends the subscription; a subscriber too slow to
/// keep up ([`crate::app::registry::FEED_BUFFER`] changes behind) gets kind "lagged" with the
/// revision it may read `tournament.events` up to, and goes on from there.
pub fn register_subscriptions(module: &mut jsonrpsee::RpcModule<()>, ctx: Arc<Ctx>) {
    let book = Arc::new(Book::default());
    let registered = module.register_subscription(
        SUBSCRIBE,
        NOTIFICATION,
        UNSUBSCRIBE,
        move |params, pending, _, ext| {
            let ctx = Arc::clone(&ctx);
            let book = Arc::clone(&book);
            async move {
                let id = match subscribe_params(params.as_str()) {
                    Ok(id) => id,
                    Err(e) => return pending.reject(crate::rpc::json_call::to_error(e)).await,
                };
                let caller = ext.get::<Caller>().cloned().unwrap_or_default();
                // Outside the daemon's server (no transport noted) the session is jsonrpsee's
                // connection, the best there is.
                let connection = match ext.get::<Transport>() {
                    Some(Transport::WebSocket(n)) => *n,
                    _ => u64::MAX - pending.connection_id().0 as u64,
                };
                // Held until the subscription ends, however it ends.
                let _seat = match book.take(&ctx, connection, caller.addr()) {
                    Ok(seat) => seat,
                    Err(e) => return pending.reject(e).await,
                };
                // Subscribed before the state is read, so no change can slip between them.
                let mut feed = ctx.tournaments.subscribe(id);
                let first = match Box::pin(start(&ctx, id)).await {
                    Ok(s) => s,
                    Err(e) => return pending.reject(crate::rpc::json_call::to_error(e)).await,
                };
                let Ok(sink) = pending.accept().await else {
                    return;
                };
                let directs = |token: Option<&str>| auth::directs(&ctx, &caller, token);
                let mut follower = Follower::new(id, directs, first);
                loop {
                    let change = tokio::select! {
                        () = sink.closed() => return,
                        c = feed.recv() => c,
                    };
                    let mut last = false;
                    let messages: Vec<Value> = match change {
                        Ok(Change::Appended {
                            first_seq, events, ..
                        }) => follower.appended(first_seq, &events),
                        Ok(Change::Deleted { revision, .. }) => {
                            last = true;
                            vec![json!({"tournament_id": id, "kind": "deleted", "revision": revision})]
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                            // Events were dropped, publications among them perhaps: start again
                            // from the state as it is now.
                            match Box::pin(start(&ctx, id)).await {
                                Ok(s) => {
                                    follower.restart(s);
                                    vec![json!({"tournament_id": id, "kind": "lagged",
                                        "missed": missed, "revision": follower.revision})]
                                }
                                Err(e) => {
                                    last = true;
                                    if e.code == super::tournament::codes::NO_TOURNAMENT {
                                        vec![json!({"tournament_id": id, "kind": "deleted",
                                            "revision": follower.revision})]
                                    } else {
                                        vec![json!({"tournament_id": id, "kind": "closed",
                                            "revision": follower.revision,
                                            "reason": format!("the subscription fell behind \
                                                and the tournament could not be read again \
                                                ({}); subscribe again", e.message)})]
                                    }
                                }
                            }
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    };
                    for m in messages {
                        let Some(m) = raw(&m) else { continue };
                        if sink.send(m).await.is_err() {
                            return;
                        }
                    }
                    if last {
                        return;
                    }
                }
            }
        },
    );
    if let Err(e) = registered {
        tracing::error!(error = %e, "tournament.subscribe not registered");
    }
}

// ---- over plain HTTP ------------------------------------------------------------------------

/// The table's entry for a call of `method` when it is a subscription method called over plain
/// HTTP ([`Transport::Http`]): such a call, alone or in a batch, goes through the method table
/// like any other (arity, auth, then -32020) instead of jsonrpsee's -32603. The JSON-RPC
/// middleware ([`crate::rpc::jsonrpc::Calls`]) asks for every call.
pub fn over_http(method: &str, ext: &Extensions) -> Option<&'static Method> {
    if is_subscription_method(method) && ext.get::<Transport>() == Some(&Transport::Http) {
        METHODS.iter().find(|m| m.name == method)
    } else {
        None
    }
}

/// The answer to `req`, a call of `method` found by [`over_http`], from the table, as
/// [`crate::rpc::jsonrpc`] serves every other method.
pub async fn answer_over_http(
    ctx: Arc<Ctx>,
    method: &'static Method,
    req: Request<'_>,
) -> MethodResponse {
    let caller = req.extensions.get::<Caller>().cloned().unwrap_or_default();
    let params = req.params.as_ref().map(|p| p.get());
    let result = crate::rpc::json_call::answer(&ctx, method, params, caller).await;
    let extensions = req.extensions.clone();
    match result {
        Ok(a) => MethodResponse::response(req.id, ResponsePayload::success(a), u32::MAX as usize),
        Err(e) => MethodResponse::error(req.id, e),
    }
    .with_extensions(extensions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::Tournament;
    use crate::tournament::model::{Outcome, Player, Settings, System};
    use crate::tournament::pair::PairOptions;
    use crate::tournament::results::ResultInput;

    /// A tournament of 4 players and its log, commands applied as the registry applies them.
    struct Run {
        t: Tournament,
        log: Vec<Event>,
    }

    impl Run {
        fn new() -> Run {
            let mut settings = Settings::defaults(System::Swiss);
            settings.rounds = 3;
            let created = Tournament::create(settings, 5).unwrap();
            let mut run = Run {
                t: Tournament::replay(std::slice::from_ref(&created)).unwrap(),
                log: vec![created],
            };
            for k in 0..4 {
                let p = Player {
                    name: format!("P{k}"),
                    first_name: "T".into(),
                    rank: -k,
                    ..Player::default()
                };
                let ev = run.t.register_player(p).unwrap().0;
                run.push(ev);
            }
            run
        }

        /// Applies `events`; returns where they were appended (the first one's seq).
        fn push(&mut self, events: Vec<Event>) -> u64 {
            let first = self.log.len() as u64;
            for e in events {
                self.t.apply(&e).unwrap();
                self.log.push(e);
            }
            first
        }

        fn start(&self) -> Start {
            Start {
                revision: self.log.len() as u64,
                director_token: self.t.director_token.clone(),
                publication: Publication::of(&self.t.data),
            }
        }

        fn pair(&mut self, r: RoundNumber) -> (u64, Vec<Event>) {
            let ev = self.t.pair_round(r, &PairOptions::default()).unwrap().0;
            (self.push(ev.clone()), ev)
        }

        /// White wins, or Black if White had already won (the same result is no change).
        fn result(&mut self, r: RoundNumber, table: u32) -> (u64, Vec<Event>) {
            let before = self.t.game(r, table).unwrap().outcome;
            let input = ResultInput {
                outcome: if before == Outcome::WhiteWins {
                    Outcome::BlackWins
                } else {
                    Outcome::WhiteWins
                },
                ..ResultInput::default()
            };
            let ev = self.t.set_result(r, table, input).unwrap().0;
            (self.push(ev.clone()), ev)
        }

        fn publish(&mut self, r: RoundNumber, published: bool) -> (u64, Vec<Event>) {
            let ev = self.t.publish_round(r, published).unwrap();
            (self.push(ev.clone()), ev)
        }

        fn rotate(&mut self, hash: &str) -> (u64, Vec<Event>) {
            let ev = vec![Event::DirectorTokenSet {
                director_token_sha256: hash.into(),
            }];
            (self.push(ev.clone()), ev)
        }
    }

    fn kinds(notes: &[Value]) -> Vec<&str> {
        notes.iter().map(|v| v["kind"].as_str().unwrap()).collect()
    }

    #[test]
    fn the_public_gets_a_round_once_published_with_what_it_missed() {
        let mut run = Run::new();
        let mut public = Follower::new(7, |_: Option<&str>| false, run.start());
        let mut director = Follower::new(7, |_: Option<&str>| true, run.start());
        let mut both = |(first, ev): (u64, Vec<Event>)| {
            (public.appended(first, &ev), director.appended(first, &ev))
        };
        let (p, d) = both(run.pair(1));
        assert_eq!((p.len(), kinds(&d)), (0, vec!["round_paired"]));
        let (p, d) = both(run.result(1, 1));
        assert!(p.is_empty());
        assert_eq!(d[0]["result"], "W+");
        let (p, d) = both(run.publish(1, true));
        assert_eq!(kinds(&p), ["round_published"]);
        assert_eq!(p[0]["withheld"], 2, "{p:?}");
        assert_eq!(p[0]["standings_changed"], true);
        assert_eq!(p[0]["revision"], d[0]["revision"]);
        assert!(d[0].get("withheld").is_none(), "{d:?}");
        // A published round's results reach everyone, a withdrawn round's nobody but the
        // director, and the withdrawal itself everyone.
        let (p, _) = both(run.result(1, 2));
        assert_eq!(p[0]["table"], 2);
        let (p, _) = both(run.publish(1, false));
        assert_eq!(p[0]["published"], false);
        let (p, d) = both(run.result(1, 1));
        assert_eq!((p.len(), d.len()), (0, 1));
        let (p, _) = both(run.publish(1, true));
        assert_eq!(p[0]["withheld"], 1, "{p:?}");
    }

    #[test]
    fn events_already_read_are_not_told_again() {
        let mut run = Run::new();
        let (first, paired) = run.pair(1);
        let (_, published) = run.publish(1, true);
        // Subscribed before the pairing, read the state after the publication (the feed
        // hands over both changes all the same).
        let mut f = Follower::new(7, |_: Option<&str>| false, run.start());
        assert!(f.appended(first, &paired).is_empty());
        assert!(f.appended(first + 1, &published).is_empty());
        let (first, ev) = run.result(1, 1);
        let notes = f.appended(first, &ev);
        assert_eq!(notes[0]["revision"], first + 1);
        // After a lag it starts again from the state read then: a round published meanwhile
        // is public from there on, whatever it missed.
        let mut f = Follower::new(7, |_: Option<&str>| false, run.start());
        let (_, _) = run.pair(2);
        let (_, _) = run.publish(2, true);
        f.restart(run.start());
        let (first, ev) = run.result(2, 1);
        assert_eq!(kinds(&f.appended(first, &ev)), ["result_set"]);
    }

    #[test]
    fn a_rotated_token_stops_opening_the_drafts() {
        let mut run = Run::new();
        let (_, _) = run.rotate("aa");
        let mut f = Follower::new(7, |t: Option<&str>| t == Some("aa"), run.start());
        let (first, ev) = run.pair(1);
        assert_eq!(
            f.appended(first, &ev).len(),
            1,
            "the director sees the draft"
        );
        let (first, ev) = run.rotate("bb");
        assert_eq!(kinds(&f.appended(first, &ev)), ["director_token_set"]);
        let (first, ev) = run.result(1, 1);
        assert!(f.appended(first, &ev).is_empty(), "no longer");
        let (first, ev) = run.rotate("aa");
        f.appended(first, &ev);
        let (first, ev) = run.result(1, 2);
        assert_eq!(f.appended(first, &ev).len(), 1, "again");
    }
}
