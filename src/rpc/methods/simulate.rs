//! `simulate.*`: the simulation lab (src/simulation) over both protocols, as a background job.
//!
//! A simulation runs far longer than `request_budget_ms`, so `simulate.start` checks the spec,
//! starts the job and answers its id at once; `simulate.get` gives its progress and, once it
//! has ended, its report; `simulate.cancel` stops it; over WebSocket `simulate.subscribe`
//! pushes its progress and then its report. The job's worker threads take one of the
//! daemon's heavy-work permits for each run they play and only when no heavy call is waiting
//! for one (`try_acquire`: the semaphore's queue goes first), so a long simulation never holds
//! up other heavy calls by more than one run's work. Each run plays under the simulation's
//! own budget ([`crate::budget`]: `simulation_budget_secs`, cancelled by `simulate.cancel`,
//! by the idle rule and when the daemon stops), so a stop takes effect at the engine's next
//! budget check, not at the end of the run. Bounded: players, variants and runs × variants
//! per simulation, simulations at once, a time budget per simulation, and a running
//! simulation nobody asks about (no `get`, no subscription) for `simulation_idle_secs` is
//! stopped — its client went away. Ids are random 128-bit numbers: knowing one is the only
//! way to read or cancel a simulation. Finished simulations are kept for an hour (the newest
//! 32). Codes 1101–1103 (README).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use crate::budget::{Budget, CancelOnDrop};
use crate::rpc::{Access, BoxFuture, Ctx, Handler, Method, Param, Params, RpcError, RpcResult};
use crate::simulation::{self, Control, Limits, Report, Spec, Turn, Turns};

/// No simulation with that id (never started here, or finished more than an hour ago).
pub const NO_SIMULATION: i32 = 1101;
/// `max_simulations` simulations are running: try again when one has ended.
pub const TOO_MANY_SIMULATIONS: i32 = 1102;
/// The spec is over one of the daemon's caps (players, variants, runs × variants).
pub const OVER_CAP: i32 = 1103;

/// How long a finished simulation's report is kept, and how many are kept at most.
pub const KEEP: Duration = Duration::from_secs(3600);
pub const MAX_KEPT: usize = 32;

/// How a simulation stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Running,
    Done,
    /// `simulate.cancel` stopped it: the report covers the runs done.
    Cancelled,
    /// The daemon stopped it (its time budget, or nobody asked about it): the reason.
    Stopped(String),
    /// A tournament could not be played: the engine's message.
    Failed(String),
}

impl State {
    fn name(&self) -> &'static str {
        match self {
            State::Running => "running",
            State::Done => "done",
            State::Cancelled => "cancelled",
            State::Stopped(_) => "stopped",
            State::Failed(_) => "failed",
        }
    }
}

struct Inner {
    state: State,
    report: Option<Arc<Report>>,
    finished: Option<Instant>,
    /// When a client last asked about it (start, get, a live subscription).
    seen: Instant,
    watchers: usize,
    /// Why the turns stopped, set by the worker that noticed (budget, idle).
    stop_reason: Option<String>,
}

/// One simulation job.
pub struct Job {
    pub id: String,
    pub runs: u64,
    pub variants: Vec<String>,
    started: Instant,
    control: Control,
    /// The budget every run plays under: the simulation's deadline, and cancelled when the
    /// guard below is dropped ([`Job::stop`]).
    budget: Budget,
    stop_guard: Mutex<Option<CancelOnDrop>>,
    /// Set by `simulate.cancel`: a job its client stopped is told from one the daemon stopped.
    cancelled_by_client: std::sync::atomic::AtomicBool,
    inner: Mutex<Inner>,
}

/// What a client sees of a job.
#[derive(Debug, Clone)]
pub struct Status {
    pub id: String,
    pub state: State,
    pub done: u64,
    pub runs: u64,
    pub variants: Vec<String>,
    pub elapsed: Duration,
    pub report: Option<Arc<Report>>,
}

impl Job {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding this lock cannot leave it inconsistent (plain fields).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The job's status; `touch` counts as a client asking (the idle rule).
    pub fn status(&self, touch: bool) -> Status {
        let mut g = self.lock();
        if touch {
            g.seen = Instant::now();
        }
        Status {
            id: self.id.clone(),
            state: g.state.clone(),
            done: self.control.done(),
            runs: self.runs,
            variants: self.variants.clone(),
            elapsed: g.finished.unwrap_or_else(Instant::now) - self.started,
            report: g.report.clone(),
        }
    }

    /// Stops the job: no more runs, and the runs under way stop at their next budget check.
    /// `reason`: why the daemon stopped it (none for a client's `simulate.cancel`).
    fn stop(&self, reason: Option<String>) {
        if let Some(r) = reason {
            self.lock().stop_reason.get_or_insert(r);
        }
        self.control.cancel();
        let guard = self
            .stop_guard
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(guard);
    }

    fn finish(&self, result: Result<Report, simulation::SimError>) {
        let cancelled_by_client = self
            .cancelled_by_client
            .load(std::sync::atomic::Ordering::Relaxed);
        let mut g = self.lock();
        g.finished = Some(Instant::now());
        match result {
            Ok(report) => {
                g.state = if report.runs == self.runs {
                    State::Done
                } else if cancelled_by_client {
                    State::Cancelled
                } else {
                    State::Stopped(
                        g.stop_reason
                            .clone()
                            .unwrap_or_else(|| "stopped by the daemon".into()),
                    )
                };
                g.report = Some(Arc::new(report));
            }
            Err(e) => g.state = State::Failed(e.to_string()),
        }
    }
}

/// The daemon's simulations.
#[derive(Default)]
pub struct Simulations {
    jobs: Mutex<HashMap<String, Arc<Job>>>,
}

impl Drop for Simulations {
    /// The daemon is going away: its simulations' threads stop too.
    fn drop(&mut self) {
        for job in self.jobs().values() {
            job.stop(Some("the daemon stopped".into()));
        }
    }
}

impl Simulations {
    fn jobs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A job by id.
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        self.forget_old();
        self.jobs().get(id).cloned()
    }

    /// Simulations running now.
    fn running(&self) -> usize {
        self.jobs()
            .values()
            .filter(|j| j.lock().state == State::Running)
            .count()
    }

    /// Drops finished jobs older than [`KEEP`], and the oldest beyond [`MAX_KEPT`].
    fn forget_old(&self) {
        let mut jobs = self.jobs();
        let mut finished: Vec<(Instant, String)> = jobs
            .values()
            .filter_map(|j| j.lock().finished.map(|f| (f, j.id.clone())))
            .collect();
        finished.sort();
        let excess = finished.len().saturating_sub(MAX_KEPT);
        for (k, (at, id)) in finished.iter().enumerate() {
            if k < excess || at.elapsed() > KEEP {
                jobs.remove(id);
            }
        }
    }
}

/// The heavy-work turns of one job's workers, and its budget.
struct HeavyTurns {
    heavy: Arc<tokio::sync::Semaphore>,
    job: Arc<Job>,
    deadline: Option<Instant>,
}

const OVER_BUDGET: &str = "over its time budget (simulation_budget_secs)";
const IDLE: &str = "no client asked about it for simulation_idle_secs";

impl HeavyTurns {
    fn over_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// How long a worker sleeps between tries for a permit.
const RETRY: Duration = Duration::from_millis(2);

impl Turns for HeavyTurns {
    fn take(&self) -> Option<Turn> {
        loop {
            if self.job.control.cancelled() {
                return None;
            }
            if self.over_deadline() {
                self.job.stop(Some(OVER_BUDGET.into()));
                return None;
            }
            // Only a free permit nobody queued for: heavy calls waiting go first.
            match Arc::clone(&self.heavy).try_acquire_owned() {
                Ok(p) => return Some(Box::new(p)),
                Err(tokio::sync::TryAcquireError::Closed) => return None,
                Err(tokio::sync::TryAcquireError::NoPermits) => std::thread::sleep(RETRY),
            }
        }
    }

    fn within(&self, work: &mut dyn FnMut()) -> bool {
        let finished = crate::budget::run(self.job.budget.clone(), work).is_ok();
        if !finished && self.over_deadline() {
            self.job.stop(Some(OVER_BUDGET.into()));
        }
        finished
    }
}

/// Stops `job` once nobody has asked about it for `idle` (no `simulate.get`, no page view, no
/// live subscription): its client went away. Ends with the job.
async fn watch_idle(job: Arc<Job>, idle: Duration) {
    let every = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    loop {
        tokio::time::sleep(every).await;
        let g = job.lock();
        if g.state != State::Running {
            return;
        }
        if g.watchers == 0 && g.seen.elapsed() >= idle {
            drop(g);
            job.stop(Some(IDLE.into()));
            return;
        }
    }
}

fn limits(ctx: &Ctx) -> Limits {
    Limits {
        max_players: ctx.config.max_simulation_players as usize,
        max_variants: simulation::spec::MAX_VARIANTS,
        max_tournaments: ctx.config.max_simulation_tournaments,
    }
}

/// A spec's `field` given as a tournament of this daemon (`{"tournament": id}`) or an
/// OpenGotha file (`{"opengotha": "<xml…>"}`) becomes the list of its players; a rating list
/// imported into this daemon (`{"rating_list": {"imported": "egf", …}}`) a pool.
async fn resolve_field(ctx: &Ctx, spec: &mut Value) -> Result<(), RpcError> {
    let Some(field) = spec.get_mut("field").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    let players = if let Some(id) = field.get("tournament") {
        let id: crate::store::TournamentId = serde_json::from_value(id.clone())
            .map_err(|e| RpcError::invalid_params(format!("field.tournament: {e}")))?;
        ctx.tournaments
            .read(id, |t, _| simulation::field::from_tournament(&t.data))
            .await
            .map_err(super::tournament::registry_error)?
    } else if let Some(xml) = field.get("opengotha") {
        let Value::String(xml) = xml else {
            return Err(RpcError::invalid_params(
                "field.opengotha: the OpenGotha file as text",
            ));
        };
        let data = crate::tournament::formats::opengotha_xml::read(xml)
            .map_err(|e| RpcError::invalid_params(format!("field.opengotha: {}", e.0)))?;
        simulation::field::from_tournament(&data)
    } else if let Some(rl) = field.get("rating_list").and_then(Value::as_object)
        && rl.contains_key("imported")
    {
        // A list imported into this daemon (`ratings.import`), narrowed by a filter, becomes
        // a pool each run samples: the lists are far too big to send with every spec.
        let mut rl = rl.clone();
        let kind = rl.remove("imported").unwrap_or(Value::Null);
        let kind = kind
            .as_str()
            .and_then(crate::ratings::Kind::parse)
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "field.rating_list.imported: \"egf\", \"ffg\" or \"aga\", got {kind}"
                ))
            })?;
        let sample = rl.remove("sample").unwrap_or(Value::Null);
        let filter: simulation::field::ListFilter =
            crate::rpc::input::from_value(&Value::Object(rl), "field.rating_list")?;
        let lists = ctx.ratings.snapshot();
        let Some(loaded) = lists.get(&kind) else {
            return Err(RpcError::new(
                super::ratings::codes::NO_LIST,
                format!("field.rating_list.imported: no {kind} list is imported (ratings.import)"),
            ));
        };
        let players = simulation::field::from_rating_list(loaded.index.list(), &filter)
            .map_err(|m| RpcError::invalid_params(format!("field.rating_list: {m}")))?;
        *field = serde_json::Map::from_iter([(
            "pool".to_string(),
            json!({"players": players, "sample": sample}),
        )]);
        return Ok(());
    } else {
        return Ok(());
    };
    if field.len() != 1 {
        return Err(RpcError::invalid_params(
            "field: a tournament or opengotha field takes nothing else",
        ));
    }
    *field = serde_json::Map::from_iter([("players".to_string(), json!(players))]);
    Ok(())
}

/// Checks a spec as `simulate.start` would (caps included).
fn prepare(ctx: &Ctx, spec: Value) -> Result<simulation::Prepared, RpcError> {
    // Read as strictly as every other parameter (rpc::input): paths of bad values, unknown
    // keys with the nearest valid one; a variant's settings against the settings schema, as
    // `tournament.create` checks them.
    let spec: Spec = crate::rpc::input::from_value(&spec, "spec")?;
    for (k, v) in spec.variants.iter().enumerate() {
        if !v.settings.is_null() {
            crate::rpc::input::check(
                &v.settings,
                &crate::rpc::input::SCHEMAS.settings,
                &format!("spec.variants[{k}].settings"),
            )?;
        }
    }
    let limits = limits(ctx);
    // Caps first, with their own code, then everything else as invalid parameters.
    let players = match &spec.field {
        simulation::field::FieldSpec::Generate(g) => g.players,
        simulation::field::FieldSpec::Players(p) => p.len(),
        simulation::field::FieldSpec::Pool(p) => p.sample.unwrap_or(p.players.len()),
        simulation::field::FieldSpec::RatingList(r) => r.sample.unwrap_or(0),
    };
    let over = |m: String| RpcError::new(OVER_CAP, m);
    if players > limits.max_players {
        return Err(over(format!(
            "{players} players: at most {} per simulation (max_simulation_players)",
            limits.max_players
        )));
    }
    if spec.variants.len() > limits.max_variants {
        return Err(over(format!(
            "{} variants: at most {} per simulation",
            spec.variants.len(),
            limits.max_variants
        )));
    }
    let tournaments = spec.runs.saturating_mul(spec.variants.len() as u64);
    if tournaments > limits.max_tournaments {
        return Err(over(format!(
            "{} runs × {} variants = {tournaments} tournaments: at most {} per simulation \
             (max_simulation_tournaments)",
            spec.runs,
            spec.variants.len(),
            limits.max_tournaments
        )));
    }
    spec.prepare(&limits).map_err(|m| {
        // A rating list's size is only known once read.
        if m.contains("per simulation") {
            over(m)
        } else {
            RpcError::invalid_params(m)
        }
    })
}

fn too_many(running: usize) -> RpcError {
    RpcError::new(
        TOO_MANY_SIMULATIONS,
        format!(
            "{running} simulations are running, the most this daemon runs at once \
             (max_simulations): try again when one has ended"
        ),
    )
}

async fn start(ctx: Arc<Ctx>, p: Params) -> RpcResult {
    let max = ctx.config.max_simulations as usize;
    if max == 0 {
        return Err(RpcError::new(
            TOO_MANY_SIMULATIONS,
            "simulations are off on this daemon (max_simulations = 0)",
        ));
    }
    // Refused early, before waiting for a heavy turn that running simulations may hold; the
    // count is checked again when the job is added.
    let running = ctx.simulations.running();
    if running >= max {
        return Err(too_many(running));
    }
    let StartArgs { mut spec } = p.decode(START)?;
    resolve_field(&ctx, &mut spec).await?;
    let job_ctx = Arc::clone(&ctx);
    // Reading a big rating list or settings is pure work: off the async workers, at a heavy
    // turn. Linear in the request (whose size the body cap bounds) with no budget check
    // inside, so not under the call's budget run: the budget gate of tests
    // (`budget::Gate`) then holds the simulation's first run, not this.
    let turn = crate::app::work::take_turn_within_budget(&ctx.heavy).await?;
    let prepared = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        prepare(&job_ctx, spec)
    })
    .await
    .map_err(|_| RpcError::internal("internal error"))??;
    let secs = |s: u64| (s > 0).then(|| Duration::from_secs(s));
    let limit = secs(ctx.config.simulation_budget_secs);
    // The workers' deadline is not after the budget's: a run its budget stopped at the
    // deadline is seen as over the deadline.
    let deadline = limit.map(|d| Instant::now() + d);
    let budget = Budget::new(limit);
    let stop_guard = budget.cancel_on_drop();
    let job = {
        let mut jobs = ctx.simulations.jobs();
        let running = jobs
            .values()
            .filter(|j| j.lock().state == State::Running)
            .count();
        if running >= max {
            return Err(too_many(running));
        }
        let id = format!("{:032x}", rand::random::<u128>());
        let job = Arc::new(Job {
            id: id.clone(),
            runs: prepared.runs,
            variants: prepared.variants.iter().map(|v| v.name.clone()).collect(),
            started: Instant::now(),
            control: Control::default(),
            budget,
            stop_guard: Mutex::new(Some(stop_guard)),
            cancelled_by_client: Default::default(),
            inner: Mutex::new(Inner {
                state: State::Running,
                report: None,
                finished: None,
                seen: Instant::now(),
                watchers: 0,
                stop_reason: None,
            }),
        });
        jobs.insert(id, Arc::clone(&job));
        job
    };
    let turns = HeavyTurns {
        heavy: Arc::clone(&ctx.heavy),
        job: Arc::clone(&job),
        deadline,
    };
    let threads = ctx.config.heavy_calls();
    let runner = Arc::clone(&job);
    let spawned = std::thread::Builder::new()
        .name("simulation".into())
        .spawn(move || {
            let result = simulation::run(&prepared, threads, &runner.control, &turns);
            runner.finish(result);
        });
    if let Err(e) = spawned {
        ctx.simulations.jobs().remove(&job.id);
        return Err(RpcError::internal(format!(
            "no thread for the simulation: {e}"
        )));
    }
    if let Some(idle) = secs(ctx.config.simulation_idle_secs) {
        tokio::spawn(watch_idle(Arc::clone(&job), idle));
    }
    Ok(json!({"id": job.id, "runs": job.runs, "variants": job.variants, "state": "running"}))
}

/// Drops null members (XML-RPC has no nil for clients that did not send one).
fn clean(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, clean(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(clean).collect()),
        v => v,
    }
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetOptions {
    /// Leave out the figures by true rank and the MMS distribution (the big part).
    #[serde(default)]
    brief: bool,
}

/// A status as `simulate.get` answers it.
pub fn status_json(s: &Status, brief: bool) -> Value {
    let mut v = json!({
        "id": s.id,
        "state": s.state.name(),
        "done": s.done,
        "runs": s.runs,
        "variants": s.variants,
        "elapsed_ms": s.elapsed.as_millis() as u64,
    });
    match &s.state {
        State::Stopped(why) | State::Failed(why) => v["reason"] = json!(why),
        _ => {}
    }
    if let Some(r) = &s.report {
        let mut report = serde_json::to_value(r.as_ref()).unwrap_or(Value::Null);
        if brief && let Some(vs) = report.get_mut("variants").and_then(Value::as_array_mut) {
            for x in vs {
                if let Some(m) = x.as_object_mut() {
                    for k in ["error_by_true_rank", "abs_error_by_true_rank", "final_mms"] {
                        m.remove(k);
                    }
                }
            }
        }
        v["report"] = report;
    }
    clean(v)
}

fn job_of(ctx: &Ctx, id: &str) -> Result<Arc<Job>, RpcError> {
    ctx.simulations.get(id).ok_or_else(|| {
        RpcError::new(
            NO_SIMULATION,
            format!(
                "no simulation {:?} (unknown, or finished more than an hour ago)",
                id.chars().take(40).collect::<String>()
            ),
        )
    })
}

fn get(ctx: &Ctx, p: &Params) -> RpcResult {
    let a: GetArgs = p.decode(GET)?;
    let job = job_of(ctx, &a.id)?;
    let o = a.options.unwrap_or_default();
    Ok(status_json(&job.status(true), o.brief))
}

fn cancel(ctx: &Ctx, p: &Params) -> RpcResult {
    let a: IdArgs = p.decode(ID)?;
    let job = job_of(ctx, &a.id)?;
    if job.status(true).state == State::Running {
        job.cancelled_by_client
            .store(true, std::sync::atomic::Ordering::Relaxed);
        job.stop(None);
    }
    let s = job.status(false);
    Ok(json!({"id": s.id, "state": s.state.name(), "done": s.done}))
}

macro_rules! async_handler {
    ($f:ident) => {
        Handler::Async(|ctx: Arc<Ctx>, p: Params| -> BoxFuture { Box::pin($f(ctx, p)) })
    };
}

/// `simulate.start`'s parameters.
#[derive(Deserialize, schemars::JsonSchema)]
struct StartArgs {
    /// {field, variants, model, runs, seed, strength_sd}: docs/simulation.md.
    #[schemars(with = "serde_json::Map<String, Value>")]
    spec: Value,
}

/// `simulate.get`'s parameters.
#[derive(Deserialize, schemars::JsonSchema)]
struct GetArgs {
    /// The id `simulate.start` answered.
    id: String,
    #[serde(default)]
    options: Option<GetOptions>,
}

/// `simulate.cancel`'s parameters.
#[derive(Deserialize, schemars::JsonSchema)]
struct IdArgs {
    id: String,
}

/// A simulation's state.
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum StateName {
    Running,
    Done,
    Cancelled,
    Stopped,
    Failed,
}

/// `simulate.start`'s answer.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Started {
    id: String,
    runs: u64,
    /// The variants' names.
    variants: Vec<String>,
    state: StateName,
}

/// `simulate.get`'s answer: the progress, and the report once the simulation has ended.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct StatusOut {
    id: String,
    state: StateName,
    /// Runs done.
    done: u64,
    runs: u64,
    variants: Vec<String>,
    elapsed_ms: u64,
    /// Why it stopped or failed.
    reason: Option<String>,
    /// The report (docs/simulation.md): its variants' metrics with intervals.
    report: Option<serde_json::Map<String, Value>>,
}

/// `simulate.cancel`'s answer.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct CancelledOut {
    id: String,
    state: StateName,
    done: u64,
}

const START: &[Param] = &[Param::req("spec", "struct")];
const GET: &[Param] = &[Param::req("id", "string"), Param::opt("options", "struct")];
const ID: &[Param] = &[Param::req("id", "string")];

pub static METHODS: &[Method] = &[
    Method {
        name: "simulate.start",
        access: Access::AdminUnlessOpen,
        params: START,
        returns: "struct",
        help: "Starts a simulation in the background: spec {field (generate, players, \
               pool, rating_list (CSV text, or imported: egf|ffg|aga with countries, from, to), tournament, opengotha), variants [{name, settings, \
               pairing_model}], model (egf, egf_classic, elo, table), runs, seed, \
               strength_sd} → {id, runs, variants, state}. Read it with simulate.get.",
        doc: crate::rpc::openrpc::Doc::typed::<StartArgs, Started>()
            .errors(&[1001, 1102, 1103, 1204, -32602]),
        handler: async_handler!(start),
    },
    Method {
        name: "simulate.get",
        access: Access::Public,
        params: GET,
        returns: "struct",
        help: "A simulation's progress {state (running, done, cancelled, stopped, failed), \
               done, runs, elapsed_ms, reason} and, once it has ended, its report \
               (options {brief}: without the figures by true rank).",
        // Inline: a status is cheap, and it must not wait for a heavy turn that the
        // simulation it asks about may be holding.
        doc: crate::rpc::openrpc::Doc::typed::<GetArgs, StatusOut>().errors(&[1101]),
        handler: Handler::Sync(get),
    },
    Method {
        name: "simulate.cancel",
        access: Access::Public,
        params: ID,
        returns: "struct",
        help: "Stops a running simulation; its report covers the runs done → {id, state, done}.",
        doc: crate::rpc::openrpc::Doc::typed::<IdArgs, CancelledOut>().errors(&[1101]),
        handler: Handler::Sync(cancel),
    },
];

/// The notification method name of `simulate.subscribe`.
pub const NOTIFICATION: &str = "simulate.progress";

/// How often a subscription reports progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Counts a live subscription as a client watching its job (the idle rule) until dropped.
struct Watching(Arc<Job>);

impl Watching {
    fn new(job: Arc<Job>) -> Watching {
        job.lock().watchers += 1;
        Watching(job)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let mut g = self.0.lock();
        g.watchers = g.watchers.saturating_sub(1);
        g.seen = Instant::now();
    }
}

/// Registers `simulate.subscribe(id)` (JSON-RPC over WebSocket): `simulate.progress`
/// notifications {id, state, done, runs, elapsed_ms} every quarter second while the
/// simulation runs, then one with its final state and report, and the subscription ends.
/// While subscribed the simulation counts as watched; `simulate.unsubscribe` ends it early.
pub fn register_subscriptions(module: &mut jsonrpsee::RpcModule<()>, ctx: Arc<Ctx>) {
    use jsonrpsee::types::ErrorObjectOwned;
    let registered = module.register_subscription(
        "simulate.subscribe",
        NOTIFICATION,
        "simulate.unsubscribe",
        move |params, pending, _, _| {
            let ctx = Arc::clone(&ctx);
            async move {
                let id: Option<String> = params.one::<String>().ok().or_else(|| {
                    params
                        .parse::<Value>()
                        .ok()
                        .and_then(|v| v.get("id").and_then(Value::as_str).map(String::from))
                });
                let job = id.and_then(|id| ctx.simulations.get(&id));
                let Some(job) = job else {
                    pending
                        .reject(ErrorObjectOwned::owned(
                            NO_SIMULATION,
                            "simulate.subscribe takes the id of a simulation of this daemon",
                            None::<()>,
                        ))
                        .await;
                    return;
                };
                let Ok(sink) = pending.accept().await else {
                    return;
                };
                let _watching = Watching::new(Arc::clone(&job));
                let mut tick = tokio::time::interval(PROGRESS_EVERY);
                let mut last: Option<(u64, &'static str)> = None;
                loop {
                    tokio::select! {
                        () = sink.closed() => return,
                        _ = tick.tick() => {}
                    }
                    let s = job.status(true);
                    let ended = s.state != State::Running;
                    if last == Some((s.done, s.state.name())) {
                        continue;
                    }
                    last = Some((s.done, s.state.name()));
                    let message = if ended {
                        status_json(&s, false)
                    } else {
                        status_json(&Status { report: None, ..s }, true)
                    };
                    let Ok(raw) = serde_json::value::to_raw_value(&message) else {
                        return;
                    };
                    if sink.send(raw).await.is_err() || ended {
                        return;
                    }
                }
            }
        },
    );
    if let Err(e) = registered {
        tracing::error!(error = %e, "simulate.subscribe not registered");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_drops_what_xml_rpc_cannot_carry() {
        let s = Status {
            id: "x".into(),
            state: State::Stopped("budget".into()),
            done: 3,
            runs: 10,
            variants: vec!["a".into()],
            elapsed: Duration::from_millis(1500),
            report: None,
        };
        let v = status_json(&s, false);
        assert_eq!(v["state"], "stopped");
        assert_eq!(v["reason"], "budget");
        assert_eq!(v["elapsed_ms"], 1500);
        assert!(v.get("report").is_none());
    }
}
