//! Web pages for players and directors, served by the daemon on its RPC port: the tournament
//! list, a tournament's overview, pairings, standings, crosstable, players and game records
//! (docs/web.md).
//!
//! Layering: `server → web → {rpc (registry, method table), tournament, go, sgf}`. Pages read
//! the tournament registry's cached state; they never write. Directors act through the page
//! script, which posts JSON-RPC to `/jsonrpc` like any client, so every change goes through
//! the same methods (and the same checks) as RPC. `GET /t/{id}/live` is a Server-Sent Events
//! stream fed by the registry's change feed: open pages re-fetch their main fragment
//! (`?fragment=1`) when it says the tournament changed.

pub mod assets;
pub mod desk;
pub mod edit;
pub mod game;
pub mod language;
pub mod pages;
pub mod print;
pub mod setup;
pub mod simulation;
pub mod text;
pub mod zip;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Extension;
use axum::Router;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::Stream;
use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, watch};

use crate::app::registry::{Change, RegistryError, Subscription};
use crate::rpc::Ctx;
use crate::rpc::auth::{self, Caller};
use crate::rpc::methods::tournament_standings::{export_for, export_options};
use crate::store::TournamentId;
use crate::tournament::formats::export::{Content, Export, FORMATS, Format};
use crate::tournament::visibility::Publication;
use crate::tournament::{Event, Tournament};

use pages::{Page, Viewer};

/// How often an idle live stream sends a comment, so proxies and the daemon's own write
/// timeout see a live connection and a vanished client is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The exports the pages offer: format and label, the rows of [`FORMATS`] marked `offered`.
static EXPORTS: std::sync::LazyLock<Vec<(&'static str, &'static str)>> =
    std::sync::LazyLock::new(|| {
        FORMATS
            .iter()
            .filter(|f| f.offered)
            .map(|f| (f.name, f.label))
            .collect()
    });

/// What the handlers share.
#[derive(Clone)]
struct Web {
    ctx: Arc<Ctx>,
    /// Turns true when the daemon shuts down: live streams end so connections can close.
    stop: watch::Receiver<bool>,
    /// Live streams open at once; each also holds one of the daemon's connections.
    streams: Arc<Semaphore>,
}

/// The page routes, to merge into the daemon's router. `GET /` (the list) is served by
/// [`index`] from the root handler, which shares `/` with RPC. `stop` turning true ends every
/// live stream; at most `max_streams` are open at once (503 beyond).
pub fn router(ctx: Arc<Ctx>, stop: watch::Receiver<bool>, max_streams: usize) -> Router {
    let web = Web {
        ctx,
        stop,
        streams: Arc::new(Semaphore::new(max_streams.clamp(1, Semaphore::MAX_PERMITS))),
    };
    Router::new()
        .route("/assets/site.css", get(assets::css))
        .route("/assets/site.js", get(assets::js))
        .route("/assets/print.css", get(assets::print_css))
        .route("/assets/desk.js", get(assets::desk_js))
        .route("/t/{id}", get(overview))
        .route("/t/{id}/round/{r}", get(pairings))
        .route("/t/{id}/round/{r}/game/{table}", get(game_page))
        .route("/t/{id}/standings", get(standings))
        .route("/t/{id}/crosstable", get(crosstable))
        .route("/t/{id}/player/{pid}", get(player))
        .route("/t/{id}/live", get(live))
        .route("/t/{id}/director", get(director))
        .route("/t/{id}/desk", get(desk_page))
        .route("/t/{id}/export/aga", get(aga_archive))
        .route("/t/{id}/export/aga/{file}", get(aga_file))
        .route("/t/{id}/export/{format}", get(export))
        // desk-setup: the set-up form.
        .route("/assets/setup.js", get(assets::setup_js))
        .route("/new", get(new_tournament))
        .route("/t/{id}/settings", get(settings_page))
        // desk-print: A4 print sheets.
        .route("/t/{id}/round/{r}/print/{sheet}", get(print::round_print))
        .route("/t/{id}/print/{what}", get(print::tournament_print))
        // desk-edit2: the pairing-edit screen.
        .route("/assets/edit.js", get(assets::edit_js))
        .route("/t/{id}/round/{r}/edit", get(edit_page))
        .route("/simulation/{id}", get(simulation_page))
        .route("/simulation/{id}/chart/{file}", get(simulation_chart))
        .with_state(web)
}

// ---- desk-setup: the set-up form -----------------------------------------------------------

/// `GET /new`: the form that creates a tournament.
async fn new_tournament(query: Result<Query<PageQuery>, QueryRejection>) -> Response {
    let q = match query {
        Ok(Query(q)) => q,
        Err(e) => return bad(e),
    };
    html(StatusCode::OK, render(&setup::form(None), q.fragment()))
}

/// `GET /t/{id}/settings`: the same form, filled with the tournament's settings.
async fn settings_page(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let (Path(id), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    with_tournament(
        &web,
        &id,
        &caller_of(&caller),
        q.fragment(),
        "",
        |id, t, _| Some(setup::form(Some((id, t)))),
    )
    .await
}

/// `?fragment=1` asks for the page's main fragment only; `?after=r` picks a round.
#[derive(Debug, Default, serde::Deserialize)]
struct PageQuery {
    fragment: Option<String>,
    after: Option<String>,
}

impl PageQuery {
    fn fragment(&self) -> bool {
        self.fragment.as_deref().is_some_and(|f| f != "0")
    }
}

fn with_page_headers(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // Pages change with every result: always revalidate. What a page shows depends on the
    // token the page script sends (a director sees unpublished rounds).
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("Authorization"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    // Only our own script and style run; the board's SVG is inline markup, not a script.
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ),
    );
    resp
}

/// A rendered page (or its fragment) as HTML text.
fn render(page: &Page, fragment: bool) -> String {
    if fragment {
        page.body.clone().into_string()
    } else {
        pages::document(page).into_string()
    }
}

fn html(status: StatusCode, body: String) -> Response {
    with_page_headers((status, body).into_response())
}

fn error(status: StatusCode, message: &str) -> Response {
    html(
        status,
        render(&pages::error_page(status.as_u16(), message), false),
    )
}

/// A path or query the router could not read (not UTF-8, malformed): 400 as a page.
fn bad(e: impl std::fmt::Display) -> Response {
    error(StatusCode::BAD_REQUEST, &e.to_string())
}

fn not_found(what: &str) -> Response {
    error(StatusCode::NOT_FOUND, what)
}

/// A path segment that must be a number: anything else is a 400 naming it.
fn number<N: std::str::FromStr>(what: &str, s: &str) -> Result<N, String> {
    s.parse::<N>()
        .map_err(|_| format!("{what} {s:?} is not a number"))
}

/// The request's caller (put there by the server's auth middleware; anonymous without it).
type MaybeCaller = Option<Extension<Caller>>;

fn caller_of(c: &MaybeCaller) -> Caller {
    c.as_ref().map(|Extension(c)| c.clone()).unwrap_or_default()
}

/// What `caller` may see of `t`: everything with auth off or as its director.
fn viewer(ctx: &crate::rpc::Ctx, caller: &Caller, t: &Tournament) -> Viewer {
    if auth::directs(ctx, caller, t.director_token.as_deref()) {
        Viewer::ALL
    } else {
        Viewer::PUBLIC
    }
}

/// Renders a page from a tournament's state under its lock, as `caller` may see it; `None`
/// from `f` is a 404.
async fn with_tournament(
    web: &Web,
    id: &str,
    caller: &Caller,
    fragment: bool,
    missing: &str,
    f: impl FnOnce(TournamentId, &Tournament, Viewer) -> Option<Page>,
) -> Response {
    let id: TournamentId = match number("tournament id", id) {
        Ok(id) => id,
        Err(m) => return bad(m),
    };
    let ctx = &web.ctx;
    match ctx
        .tournaments
        .read(id, |t, _| {
            f(id, t, viewer(ctx, caller, t)).map(|p| render(&p, fragment))
        })
        .await
    {
        Ok(Some(body)) => html(StatusCode::OK, body),
        Ok(None) => not_found(missing),
        Err(RegistryError::NotFound(_)) => not_found(&format!("no tournament {id}")),
        Err(e) => {
            tracing::error!(error = %e, "reading a tournament for a page");
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
    }
}

/// The exports offered.
fn exports() -> &'static [(&'static str, &'static str)] {
    &EXPORTS
}

/// `GET /`: the tournament list (`tournament.*`, then `matchmaker.*` ones).
pub async fn index(ctx: &Arc<Ctx>, fragment: bool) -> Response {
    let mut rows = Vec::new();
    for id in ctx.tournaments.ids() {
        // A tournament deleted meanwhile is simply not listed.
        if let Ok(row) = ctx
            .tournaments
            .read(id, |t, _| pages::ListRow {
                id,
                name: t.data.settings.name.clone(),
                system: t.data.settings.system,
                players: t.data.players.len(),
                rounds: t.data.settings.rounds,
                paired: t.paired_rounds(),
                archived: t.archived,
            })
            .await
        {
            rows.push(row);
        }
    }
    let mut mm = Vec::new();
    for id in ctx.registry.ids() {
        if let Ok(row) = ctx
            .registry
            .read(id, |t, _| pages::MatchmakerRow {
                id,
                players: t.players().len(),
                round: t.round(),
                rounds: t.rounds(),
                ended: t.has_ended(),
            })
            .await
        {
            mm.push(row);
        }
    }
    html(StatusCode::OK, render(&pages::index(&rows, &mm), fragment))
}

async fn overview(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let (Path(id), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    let ex = exports();
    with_tournament(
        &web,
        &id,
        &caller_of(&caller),
        q.fragment(),
        "",
        |id, t, v| Some(pages::overview(id, t, ex, v)),
    )
    .await
}

async fn pairings(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    numbered_page(web, caller, path, query, "round", pages::pairings).await
}

/// `GET /t/{id}/desk`: the registration desk and the check-in (desk-floor).
async fn desk_page(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let (Path(id), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    with_tournament(
        &web,
        &id,
        &caller_of(&caller),
        q.fragment(),
        "",
        |id, t, v| Some(desk::desk(id, t, v)),
    )
    .await
}

async fn standings(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    after_round_page(web, caller, path, query, pages::standings_page).await
}

async fn crosstable(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    after_round_page(web, caller, path, query, pages::crosstable).await
}

/// A page of the tournament as it stood after round `?after=` (default: the last shown).
async fn after_round_page(
    web: Web,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
    render: fn(TournamentId, &Tournament, Option<u32>, Viewer) -> Option<Page>,
) -> Response {
    let (Path(id), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    let after = match q.after.as_deref().map(|a| number::<u32>("round", a)) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(m)) => return bad(m),
    };
    with_tournament(
        &web,
        &id,
        &caller_of(&caller),
        q.fragment(),
        "that round is not paired (or not published) yet",
        |id, t, v| render(id, t, after, v),
    )
    .await
}

async fn player(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    numbered_page(web, caller, path, query, "player", pages::player).await
}

/// A page of one numbered thing of the tournament (`/t/{id}/{what}/{n}`): a round's
/// pairings, a player; 404 `no {what} {n}` when the tournament has none such.
async fn numbered_page(
    web: Web,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
    what: &str,
    render: fn(TournamentId, &Tournament, u32, Viewer) -> Option<Page>,
) -> Response {
    let (Path((id, second)), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    let n: u32 = match number(what, &second) {
        Ok(n) => n,
        Err(m) => return bad(m),
    };
    with_tournament(
        &web,
        &id,
        &caller_of(&caller),
        q.fragment(),
        &format!("no {what} {n}"),
        |id, t, v| render(id, t, n, v),
    )
    .await
}

async fn game_page(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String, String)>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let (Path((id, r, table)), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    let (r, table): (u32, u32) = match (number("round", &r), number("table", &table)) {
        (Ok(r), Ok(tb)) => (r, tb),
        (Err(m), _) | (_, Err(m)) => return bad(m),
    };
    let Ok(tid) = id.parse::<TournamentId>() else {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("tournament id {id:?} is not a number"),
        );
    };
    // The record is replayed outside the tournament's lock: a long one takes a while, and
    // other callers should not wait for a page.
    let caller = caller_of(&caller);
    let ctx = &web.ctx;
    let record = ctx
        .tournaments
        .read(tid, |t, _| {
            if !viewer(ctx, &caller, t).shows(t, r) {
                return None;
            }
            let g = t.data.round(r)?.games.iter().find(|g| g.table == table)?;
            Some(g.record.as_ref().map(|at| {
                (
                    at.clone(),
                    t.data.settings.rules.clone(),
                    f64::from(g.komi2) / 2.0,
                    g.handicap,
                )
            }))
        })
        .await;
    // The state keeps where the record is; its text and warnings are read from the store.
    let (view, warnings) = match record {
        Ok(Some(Some((at, rules, komi, hd)))) => {
            match crate::rpc::methods::tournament::game_record(ctx, tid, table, &at).await {
                Ok(rec) => (Some(game::view(&rec.sgf, &rules, komi, hd)), rec.warnings),
                Err(e) => (Some(Err(e.message)), Vec::new()),
            }
        }
        // The page itself says what is missing.
        _ => (None, Vec::new()),
    };
    with_tournament(
        &web,
        &id,
        &caller,
        q.fragment(),
        &format!("no game at table {table} of round {r} (or the round is not published yet)"),
        move |id, t, v| pages::game(id, t, r, table, view, &warnings, v),
    )
    .await
}

// ---- desk-edit2: the pairing-edit screen ---------------------------------------------------

/// `GET /t/{id}/round/{r}/edit`: the pairing-edit screen of round `r`. Rendered with the
/// registry's revision, which the screen's edits send back as `if_revision`.
async fn edit_page(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let (Path((id, r)), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    let (id, r): (TournamentId, u32) = match (number("tournament id", &id), number("round", &r)) {
        (Ok(id), Ok(r)) => (id, r),
        (Err(m), _) | (_, Err(m)) => return bad(m),
    };
    let caller = caller_of(&caller);
    let ctx = &web.ctx;
    let fragment = q.fragment();
    match ctx
        .tournaments
        .read(id, |t, rev| {
            edit::edit(id, t, rev, r, viewer(ctx, &caller, t)).map(|p| render(&p, fragment))
        })
        .await
    {
        Ok(Some(body)) => html(StatusCode::OK, body),
        Ok(None) => not_found(&format!("no round {r}")),
        Err(RegistryError::NotFound(_)) => not_found(&format!("no tournament {id}")),
        Err(e) => {
            tracing::error!(error = %e, "reading a tournament for the edit screen");
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
    }
}

// ---- live updates ---------------------------------------------------------------------------

/// The SSE message for one durable change of the tournament, naming the `events` of it the
/// stream may show.
fn change_event(id: TournamentId, revision: u64, events: &[&Event]) -> SseEvent {
    let kinds: Vec<&str> = events.iter().map(|e| e.kind()).collect();
    let rounds: Vec<u32> = events.iter().filter_map(|e| e.round()).collect();
    SseEvent::default().event("change").data(
        json!({"tournament_id": id, "revision": revision, "kinds": kinds, "rounds": rounds})
            .to_string(),
    )
}

struct LiveState {
    id: TournamentId,
    rx: Subscription<Event>,
    stop: watch::Receiver<bool>,
    done: bool,
    /// With auth on: which rounds are public, as of revision `.1`. The stream is anonymous
    /// (an `EventSource` sends no token), so it names only what the public pages show: every
    /// change still says its revision (a director's page re-reads its drafts), but an
    /// unpublished round's events are not named ([`crate::tournament::visibility`]).
    public: Option<(Publication, u64)>,
    ctx: Arc<Ctx>,
    /// Held while the stream is open: the cap on live streams.
    _permit: OwnedSemaphorePermit,
}

/// The next message of a live stream; `None` ends it (deleted tournament, shutdown).
async fn next_message(mut s: LiveState) -> Option<(Result<SseEvent, Infallible>, LiveState)> {
    if s.done {
        return None;
    }
    loop {
        let change = tokio::select! {
            r = s.stop.wait_for(|stop| *stop) => {
                let _ = r;
                return None;
            }
            c = s.rx.recv() => c,
        };
        let ev = match change {
            Ok(Change::Appended {
                id,
                first_seq,
                events,
            }) if id == s.id => {
                let shown = shown(&mut s.public, first_seq, &events);
                change_event(id, first_seq + events.len() as u64, &shown)
            }
            Ok(Change::Deleted { id, .. }) if id == s.id => {
                s.done = true;
                SseEvent::default().event("deleted").data("{}")
            }
            Ok(_) => continue,
            // Missed changes: whatever they were, the page re-reads everything (and the
            // publication is read again).
            Err(broadcast::error::RecvError::Lagged(_)) => {
                if s.public.is_some() {
                    s.public = public_view(&s.ctx, s.id).await.ok().flatten();
                }
                SseEvent::default()
                    .event("change")
                    .data(json!({"tournament_id": s.id, "lagged": true}).to_string())
            }
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        return Some((Ok(ev), s));
    }
}

/// The events of a change the public may see: all of them without a publication to follow
/// (auth off).
fn shown<'a>(
    public: &mut Option<(Publication, u64)>,
    first_seq: u64,
    events: &'a [Event],
) -> Vec<&'a Event> {
    let Some((publication, seen)) = public else {
        return events.iter().collect();
    };
    events
        .iter()
        .zip(first_seq + 1..)
        .filter(|(e, revision)| {
            // Already in the state the stream started from: judged by the rounds as they are.
            if *revision <= *seen {
                return e.round().is_none_or(|r| publication.is_public(r));
            }
            *seen = *revision;
            publication.apply(e)
        })
        .map(|(e, _)| e)
        .collect()
}

/// With auth on, the rounds' publication and the revision it is of; None with auth off.
async fn public_view(
    ctx: &Ctx,
    id: TournamentId,
) -> Result<Option<(Publication, u64)>, RegistryError<crate::tournament::TournamentError>> {
    let on = ctx.config.auth_on();
    ctx.tournaments
        .read(id, |t, rev| on.then(|| (Publication::of(&t.data), rev)))
        .await
}

async fn live(State(web): State<Web>, path: Result<Path<String>, PathRejection>) -> Response {
    let Path(id) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let id: TournamentId = match number("tournament id", &id) {
        Ok(id) => id,
        Err(m) => return bad(m),
    };
    let Ok(permit) = Arc::clone(&web.streams).try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "30")],
            "too many live pages open\n",
        )
            .into_response();
    };
    // Subscribed before the existence check, so no change slips between the two.
    let rx = web.ctx.tournaments.subscribe(id);
    let public = match public_view(&web.ctx, id).await {
        Ok(public) => public,
        Err(RegistryError::NotFound(_)) => return not_found(&format!("no tournament {id}")),
        Err(e) => {
            tracing::error!(error = %e, "opening a live stream");
            return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
        }
    };
    let state = LiveState {
        id,
        rx,
        stop: web.stop.clone(),
        done: false,
        public,
        ctx: Arc::clone(&web.ctx),
        _permit: permit,
    };
    let stream = futures::stream::unfold(state, next_message);
    sse(stream)
}

fn sse(stream: impl Stream<Item = Result<SseEvent, Infallible>> + Send + 'static) -> Response {
    let mut resp = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive"))
        .into_response();
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

// ---- exports --------------------------------------------------------------------------------

/// `GET /t/{id}/export/{format}`: the file `tournament.export` writes for the caller, as a
/// download (with auth on, the public's stops before the first unpublished round). The same
/// dispatch as the method's ([`crate::tournament::formats::export`]), under a call's budget.
async fn export(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let Path((id, format)) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let tid: TournamentId = match number("tournament id", &id) {
        Ok(id) => id,
        Err(m) => return bad(m),
    };
    let Some(format) = Format::parse(&format).filter(|f| f.info().offered) else {
        return not_found(&format!(
            "no export format {:?}",
            crate::rpc::error::clip(&format, 40)
        ));
    };
    let e = match export_as(&web, tid, &caller_of(&caller), format).await {
        Ok(e) => e,
        Err(resp) => return resp,
    };
    let Some(body) = e.bytes() else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "export gave no content");
    };
    let mut resp = download(body, e.info().mime, &e.file_name);
    // How many texts the file writes otherwise (their list is on the overview page and in
    // the RPC answer): a file has no room for a message.
    resp.headers_mut()
        .insert("x-export-warnings", HeaderValue::from(e.warnings.len()));
    resp
}

/// Tournament `tid` written as `format` for `caller`, as a call of `tournament.export` would
/// be: within the daemon's request budget, heavy work taking its turns.
async fn export_as(
    web: &Web,
    tid: TournamentId,
    caller: &Caller,
    format: Format,
) -> Result<Export, Response> {
    let ctx = &web.ctx;
    let failed = |e: crate::rpc::RpcError| {
        if e.code == crate::rpc::error::codes::NO_TOURNAMENT {
            not_found(&format!("no tournament {tid}"))
        } else {
            error(
                StatusCode::BAD_REQUEST,
                &format!("export failed: {} ({})", e.message, e.code),
            )
        }
    };
    let options = export_options(format, None).map_err(failed)?;
    let directs = ctx
        .tournaments
        .read(tid, |t, _| {
            auth::directs(ctx, caller, t.director_token.as_deref())
        })
        .await
        .map_err(|_| not_found(&format!("no tournament {tid}")))?;
    let budget = crate::app::work::new_call_budget(ctx.config.request_budget_ms);
    let directors_turns = directs.then(|| Arc::clone(&ctx.directors_heavy));
    crate::app::work::serve(
        budget,
        directors_turns,
        export_for(ctx, caller, tid, format, None, options),
    )
    .await
    .map(|(e, _)| e)
    .map_err(failed)
}

// ---- director mode and AGA files -----------------------------------------------------------

/// `GET /t/{id}/director`: whether the token sent (`Authorization: Bearer …`) opens director
/// mode for this tournament: `{"auth": bool, "director": bool}`. The page script asks before
/// entering director mode, so a wrong token is refused when it is typed, not at the first
/// action. It opens exactly what the tournament's writes accept ([`auth::directs`]).
async fn director(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let Path(id) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let id: TournamentId = match number("tournament id", &id) {
        Ok(id) => id,
        Err(m) => return bad(m),
    };
    let caller = caller_of(&caller);
    let ctx = &web.ctx;
    let opens = ctx
        .tournaments
        .read(id, |t, _| {
            auth::directs(ctx, &caller, t.director_token.as_deref())
        })
        .await;
    match opens {
        Ok(director) => {
            let mut resp = axum::Json(json!({"auth": ctx.config.auth_on(), "director": director}))
                .into_response();
            let h = resp.headers_mut();
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            h.insert(header::VARY, HeaderValue::from_static("Authorization"));
            resp
        }
        Err(_) => not_found(&format!("no tournament {id}")),
    }
}

/// The AGA files of tournament `id` as `caller` may see them: the archive's file name,
/// `register.tde` and the round files (`1.tde`, …) of the rounds shown, from the same export
/// as `tournament.export`'s `aga`.
async fn aga_files(
    web: &Web,
    id: &str,
    caller: &Caller,
) -> Result<(String, Vec<(String, String)>), Response> {
    let tid: TournamentId = number("tournament id", id).map_err(bad)?;
    let ctx = &web.ctx;
    let shown = ctx
        .tournaments
        .read(tid, |t, _| {
            let v = viewer(ctx, caller, t);
            (1..=t.paired_rounds())
                .map(|r| v.shows(t, r))
                .collect::<Vec<bool>>()
        })
        .await
        .map_err(|_| not_found(&format!("no tournament {tid}")))?;
    let e = export_as(web, tid, caller, Format::Aga).await?;
    let Content::Files(all) = e.content else {
        return Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "export gave no content",
        ));
    };
    let mut all = all.into_iter();
    let mut files: Vec<(String, String)> = all.next().into_iter().collect();
    // A round paired after the visibility was read is not shown: it was not seen.
    files.extend(
        all.enumerate()
            .filter(|(k, _)| shown.get(*k).copied().unwrap_or(false))
            .map(|(_, f)| f),
    );
    Ok((e.file_name, files))
}

/// `attachment` with the file's name. A name of plain ASCII goes as it is; any other (a
/// tournament named in its own language: `Tournoi_de_Nîmes.h9`) goes twice, as RFC 6266
/// says: an ASCII stand-in for old clients and the UTF-8 name, percent-encoded (RFC 8187),
/// which browsers save under.
fn disposition(file_name: &str) -> String {
    let plain = |c: char| c.is_ascii_graphic() && c != '"' && c != '\\' && c != '%';
    if file_name.chars().all(plain) {
        return format!("attachment; filename=\"{file_name}\"");
    }
    let ascii: String = file_name
        .chars()
        .map(|c| if plain(c) { c } else { '_' })
        .collect();
    let mut encoded = String::new();
    for b in file_name.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

fn download(body: Vec<u8>, mime: &'static str, file_name: &str) -> Response {
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    if let Ok(v) = HeaderValue::from_str(&disposition(file_name)) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    resp
}

/// `GET /t/{id}/export/aga`: `register.tde` and every shown round's file in one stored ZIP
/// archive, `<short name>_aga.zip`.
async fn aga_archive(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let Path(id) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let (file_name, files) = match aga_files(&web, &id, &caller_of(&caller)).await {
        Ok(f) => f,
        Err(resp) => return resp,
    };
    let files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(n, t)| (n, t.into_bytes()))
        .collect();
    match zip::stored(&files) {
        Ok(bytes) => download(bytes, Format::Aga.info().mime, &file_name),
        Err(e) => {
            tracing::error!(error = ?e, "writing the AGA archive");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the archive is too large",
            )
        }
    }
}

/// `GET /t/{id}/export/aga/{file}`: one AGA file, `register.tde` or a shown round's `N.tde`.
async fn aga_file(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let Path((id, file)) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let (_, files) = match aga_files(&web, &id, &caller_of(&caller)).await {
        Ok(f) => f,
        Err(resp) => return resp,
    };
    match files.into_iter().find(|(n, _)| *n == file) {
        Some((name, text)) => download(text.into_bytes(), "text/plain; charset=utf-8", &name),
        None => not_found(&format!(
            "no AGA file {:?} (register.tde, or N.tde for a paired and published round)",
            crate::rpc::error::clip(&file, 40)
        )),
    }
}

/// Whether a raw query string asks for the fragment only (for the root handler in `server`).
pub fn wants_fragment(query: Option<&str>) -> bool {
    query.unwrap_or("").split('&').any(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        k == "fragment" && v != "0"
    })
}

/// `GET /simulation/{id}`: a `simulate.*` run's progress, then its figures and charts.
async fn simulation_page(
    State(web): State<Web>,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let Path(id) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let Some(job) = web.ctx.simulations.get(&id) else {
        return not_found("no such simulation (unknown, or finished more than an hour ago)");
    };
    let status = job.status(true);
    let running = status.state == crate::rpc::methods::simulate::State::Running;
    let mut body = render(&simulation::page(&status), false);
    if running {
        // The page follows the job by reloading itself until it has ended.
        body = body.replacen(
            "<head>",
            &format!(
                "<head><meta http-equiv=\"refresh\" content=\"{}\">",
                simulation::RELOAD_SECS
            ),
            1,
        );
    }
    html(StatusCode::OK, body)
}

/// `GET /simulation/{id}/chart/{file}`: one chart of a finished run as an SVG file.
async fn simulation_chart(
    State(web): State<Web>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let Path((id, file)) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let Some(job) = web.ctx.simulations.get(&id) else {
        return not_found("no such simulation (unknown, or finished more than an hour ago)");
    };
    let status = job.status(true);
    let Some(svg) = status
        .report
        .as_deref()
        .and_then(|r| simulation::chart_svg(r, &file))
    else {
        return not_found(
            "no such chart (yet): tau.svg, placement_error.svg, placement_bias.svg, final_mms.svg once the run has a report",
        );
    };
    let mut resp = svg.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("image/svg+xml"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}
