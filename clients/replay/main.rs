//! goswiss-replay: plays whole tournaments against a running goswiss (or rswiss) daemon, like
//! rswiss's xml-test.rb but bounded and scriptable, and reports what it measured.
//!
//! `--concurrency C` tournaments are in flight at once, each played by
//! `--clients-per-tournament K` clients sharing its checkouts. 201/203 are retried with a
//! bounded backoff, 202 is the normal end, any other fault makes a problem tournament (as
//! xml-test.rb counts them). Every tournament is checked as it is played (see `check.rs`);
//! a violation makes the exit status 1. The summary gives throughput and latency percentiles
//! per method; `--json` prints it as one JSON object.
// The one exception, `cpu_seconds`'s call of getrusage, is marked where it is.
#![deny(unsafe_code)]

mod check;
mod proto;

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal as _, Write as _};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use check::{End, Log};
use proto::{CallError, Fault, Protocol, Transport};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Pairing {
    Optimal,
    Rswiss,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Api {
    Matchmaker,
    Tournament,
}

/// Replays whole tournaments against a goswiss daemon and reports throughput, latency and
/// any broken invariant.
#[derive(Parser, Debug, Clone)]
#[command(name = "goswiss-replay", version)]
struct Args {
    /// The daemon's URL (XML-RPC and JSON-RPC are both served on `/`; `ws` uses ws://).
    /// Several daemons on one database: a comma-separated list (or the option repeated);
    /// the in-flight tournaments are spread over them in turn, worker `k` on URL `k mod n`,
    /// so one process drives them all.
    #[arg(long, default_value = "http://127.0.0.1:9090/", value_delimiter = ',', num_args = 1..)]
    url: Vec<String>,
    #[arg(long, value_enum, default_value = "xmlrpc")]
    protocol: Protocol,
    /// Players per tournament.
    #[arg(long, default_value_t = 16)]
    players: usize,
    /// Tournaments to play in all.
    #[arg(long, default_value_t = 10)]
    tournaments: u64,
    /// Tournaments in flight at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Clients sharing one tournament's checkouts.
    #[arg(long, default_value_t = 1)]
    clients_per_tournament: usize,
    /// Let the server repeat a pairing as a last resort (rswiss's allow_repeat).
    #[arg(long)]
    allow_repeat: bool,
    /// Rounds played after ceil(log2 players).
    #[arg(long, default_value_t = 0)]
    additional_rounds: u32,
    /// The server's pairing mode; when absent the server's default is used.
    #[arg(long, value_enum)]
    pairing: Option<Pairing>,
    /// Percent of first-player wins / draws / second-player wins (xml-test.rb's mix).
    #[arg(long, default_value = "20/50/30", value_parser = parse_mix)]
    results: [u32; 3],
    /// Makes results and the server's pairings reproducible (tournament i gets seed + i).
    #[arg(long)]
    seed: Option<u64>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// No progress output.
    #[arg(long)]
    quiet: bool,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Which API the tournaments are played through: `matchmaker` (rswiss's checkout /
    /// commit cycle) or `tournament` (create, named players with ranks, `round.pair` with the
    /// OpenGotha weight, `result.set` for every game, the tournament read back at the end).
    #[arg(long, value_enum, default_value = "matchmaker")]
    api: Api,
    /// Rounds of a `--api tournament` event (default: ceil(log2 players) + additional).
    #[arg(long)]
    rounds: Option<u32>,
    /// Instead of tournaments, make this many `system.echo` calls (spread over
    /// `--concurrency` clients): the bare cost of the protocol stack, for comparison.
    #[arg(long, default_value_t = 0)]
    echo: u64,
}

fn parse_mix(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = s
        .split('/')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{s:?}: expected P1/DRAW/P2 percentages like 20/50/30"))?;
    match parts[..] {
        [a, b, c] if a + b + c == 100 => Ok([a, b, c]),
        [_, _, _] => Err(format!("{s:?}: the three percentages must add up to 100")),
        _ => Err(format!("{s:?}: expected three numbers P1/DRAW/P2")),
    }
}

/// Consecutive 201/203 answers one client accepts before it gives the tournament up.
const MAX_RETRIES: u32 = 2_000;
/// Backoff after 201/203: 1 ms doubling to 32 ms (xml-test.rb slept 5 s).
const BACKOFF_MIN: Duration = Duration::from_millis(1);
const BACKOFF_MAX: Duration = Duration::from_millis(32);

/// Per-client counters, merged at the end (no shared lock on the hot path).
#[derive(Default)]
struct Stats {
    latencies: HashMap<&'static str, Vec<u32>>,
    rpcs: u64,
    retries: u64,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        for (m, mut v) in other.latencies {
            self.latencies.entry(m).or_default().append(&mut v);
        }
        self.rpcs += other.rpcs;
        self.retries += other.retries;
    }
}

/// Counters the progress display reads while tournaments run.
#[derive(Default)]
struct Progress {
    tournaments: AtomicU64,
    matches: AtomicU64,
    rpcs: AtomicU64,
    problems: AtomicU64,
    violations: AtomicU64,
}

/// One client's connection plus its counters.
struct Client {
    t: Transport,
    stats: Stats,
    progress: Arc<Progress>,
}

impl Client {
    async fn call(&mut self, method: &'static str, params: Vec<Value>) -> Result<Value, CallError> {
        let start = Instant::now();
        let r = self.t.call(method, params).await;
        let micros = start.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
        self.stats.latencies.entry(method).or_default().push(micros);
        self.stats.rpcs += 1;
        self.progress.rpcs.fetch_add(1, Ordering::Relaxed);
        r
    }
}

/// How one tournament ended.
#[derive(Default)]
struct Outcome {
    finished: bool,
    problem: Option<String>,
    problem_code: Option<i64>,
    transport_error: bool,
    violations: Vec<String>,
    matches: u64,
    repeated: i64,
}

fn as_pair(v: &Value) -> Option<(i64, i64)> {
    match v.as_array()?.as_slice() {
        [a, b] => Some((a.as_i64()?, b.as_i64()?)),
        _ => None,
    }
}

fn draw_result(rng: &mut ChaCha8Rng, mix: [u32; 3]) -> i64 {
    let x = rng.random_range(0..100);
    if x < mix[0] {
        -1
    } else if x < mix[0] + mix[1] {
        0
    } else {
        1
    }
}

/// Why one client stopped playing.
enum Stop {
    /// Fault 202.
    Ended,
    Problem(String, Option<i64>, bool),
}

/// One client's checkout/commit loop on a shared tournament.
async fn play_client(
    c: &mut Client,
    id: i64,
    log: &Mutex<Log>,
    mut rng: ChaCha8Rng,
    mix: [u32; 3],
) -> Stop {
    let max_checkouts = log.lock().map(|l| l.expected_matches()).unwrap_or(0) + 1;
    let mut retries = 0u32;
    let mut backoff = BACKOFF_MIN;
    // Bounded: each iteration either checks out a match (at most all of them, plus the final
    // 202) or retries (at most MAX_RETRIES in a row).
    for _ in 0..(max_checkouts as u64 * (u64::from(MAX_RETRIES) + 1)) {
        let pair = match c.call("matchmaker.checkout_match", vec![json!(id)]).await {
            Ok(v) => match as_pair(&v) {
                Some(p) => p,
                None => {
                    return Stop::Problem(format!("checkout_match returned {v}"), None, true);
                }
            },
            Err(CallError::Fault(Fault { code: 202, .. })) => return Stop::Ended,
            Err(CallError::Fault(Fault { code, message })) if code == 201 || code == 203 => {
                retries += 1;
                c.stats.retries += 1;
                if retries > MAX_RETRIES {
                    return Stop::Problem(
                        format!("still fault {code} after {MAX_RETRIES} retries: {message}"),
                        Some(code),
                        false,
                    );
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                continue;
            }
            Err(CallError::Fault(f)) => {
                return Stop::Problem(
                    format!("fault {}: {}", f.code, f.message),
                    Some(f.code),
                    false,
                );
            }
            Err(e @ CallError::Transport(_)) => return Stop::Problem(e.to_string(), None, true),
        };
        retries = 0;
        backoff = BACKOFF_MIN;
        {
            let Ok(mut l) = log.lock() else {
                return Stop::Problem("log lock poisoned".into(), None, true);
            };
            l.checked_out(pair.0, pair.1);
            if l.checkouts.len() > l.expected_matches() {
                return Stop::Problem(
                    format!(
                        "more than {} matches handed out ({} rounds)",
                        l.expected_matches(),
                        l.rounds
                    ),
                    None,
                    false,
                );
            }
        }
        let result = draw_result(&mut rng, mix);
        match c
            .call(
                "matchmaker.commit_match",
                vec![json!(id), json!([pair.0, pair.1]), json!(result)],
            )
            .await
        {
            Ok(Value::Bool(true)) => {
                if let Ok(mut l) = log.lock() {
                    l.committed(pair.0, pair.1, result);
                }
                c.progress.matches.fetch_add(1, Ordering::Relaxed);
            }
            Ok(v) => return Stop::Problem(format!("commit_match returned {v}"), None, true),
            Err(CallError::Fault(f)) => {
                return Stop::Problem(
                    format!("commit_match fault {}: {}", f.code, f.message),
                    Some(f.code),
                    false,
                );
            }
            Err(e) => return Stop::Problem(e.to_string(), None, true),
        }
    }
    Stop::Problem("client loop bound reached".into(), None, false)
}

/// What the server says at the end, or the first call that failed.
async fn read_end(c: &mut Client, id: i64) -> Result<End, String> {
    let tid = || vec![json!(id)];
    let has_ended = c
        .call("matchmaker.has_ended", tid())
        .await
        .map_err(|e| format!("has_ended: {e}"))?;
    let round = c
        .call("matchmaker.round", tid())
        .await
        .map_err(|e| format!("round: {e}"))?;
    let repeated = c
        .call("matchmaker.repeated_matches", tid())
        .await
        .map_err(|e| format!("repeated_matches: {e}"))?;
    let table = c
        .call("matchmaker.table_by_criteria", tid())
        .await
        .map_err(|e| format!("table_by_criteria: {e}"))?;
    let winner = match c.call("matchmaker.winner", tid()).await {
        Ok(v) => {
            let w = v.as_array().and_then(|a| a.first()).and_then(Value::as_i64);
            Some(w.ok_or_else(|| format!("winner returned {v}"))?)
        }
        Err(CallError::Fault(Fault { code: 402, .. })) => None,
        Err(e) => return Err(format!("winner: {e}")),
    };
    let table = table
        .as_array()
        .ok_or("table_by_criteria is not an array")?
        .iter()
        .map(|r| r.as_array().cloned().unwrap_or_default())
        .collect();
    Ok(End {
        has_ended: has_ended.as_bool().ok_or("has_ended is not a boolean")?,
        round: round.as_i64().ok_or("round is not an integer")?,
        repeated: repeated
            .as_i64()
            .ok_or("repeated_matches is not an integer")?,
        table,
        winner,
    })
}

/// Creates and plays tournament number `index` with the worker's clients.
async fn play_tournament(args: &Args, index: u64, clients: &mut [Client]) -> Outcome {
    let mut out = Outcome::default();
    let players: Vec<i64> = (1..=args.players as i64).collect();
    let mut params = vec![
        json!(players),
        json!(args.additional_rounds),
        json!(args.allow_repeat),
    ];
    let mut options = serde_json::Map::new();
    if let Some(p) = args.pairing {
        let name = match p {
            Pairing::Optimal => "optimal",
            Pairing::Rswiss => "rswiss",
        };
        options.insert("pairing".into(), json!(name));
    }
    if let Some(seed) = args.seed {
        // 53 bits so a JSON client reads it back exactly.
        options.insert(
            "seed".into(),
            json!(seed.wrapping_add(index) & ((1 << 53) - 1)),
        );
    }
    if !options.is_empty() {
        params.push(Value::Object(options));
    }
    let id = match clients[0]
        .call("matchmaker.create_tournament", params)
        .await
    {
        Ok(v) => match v.as_i64() {
            Some(id) => id,
            None => {
                out.problem = Some(format!("create_tournament returned {v}"));
                out.transport_error = true;
                return out;
            }
        },
        Err(e) => {
            out.problem = Some(format!("create_tournament: {e}"));
            if let CallError::Fault(f) = &e {
                out.problem_code = Some(f.code);
            } else {
                out.transport_error = true;
            }
            return out;
        }
    };
    let log = Mutex::new(Log::new(players, args.additional_rounds, args.allow_repeat));
    let base_seed = args.seed.unwrap_or_else(rand::random);
    let stops = futures::future::join_all(clients.iter_mut().enumerate().map(|(k, c)| {
        // Each client draws its own results; the whole run is reproducible with --seed when
        // K = 1 (with K > 1 which client commits which match depends on timing).
        let rng = ChaCha8Rng::seed_from_u64(
            base_seed
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(index << 8)
                .wrapping_add(k as u64),
        );
        play_client(c, id, &log, rng, args.results)
    }))
    .await;
    let log = log.into_inner().unwrap_or_else(|p| p.into_inner());
    out.matches = log.commits.len() as u64;
    log.check_rounds(&mut out.violations);
    for s in stops {
        if let Stop::Problem(msg, code, transport) = s
            && out.problem.is_none()
        {
            out.problem = Some(format!("tournament {id}: {msg}"));
            out.problem_code = code;
            out.transport_error = transport;
        }
    }
    if out.problem.is_none() {
        match read_end(&mut clients[0], id).await {
            Ok(end) => {
                out.repeated = end.repeated;
                log.check_end(&end, &mut out.violations);
                out.finished = true;
            }
            Err(e) => {
                out.problem = Some(format!("tournament {id}: {e}"));
                out.transport_error = true;
            }
        }
    }
    for v in &mut out.violations {
        *v = format!("tournament {id}: {v}");
    }
    out
}

/// A call whose failure ends the tournament as a problem.
async fn must(c: &mut Client, method: &'static str, params: Vec<Value>) -> Result<Value, Outcome> {
    c.call(method, params).await.map_err(|e| {
        let mut o = Outcome {
            problem: Some(format!("{method}: {e}")),
            ..Outcome::default()
        };
        match &e {
            CallError::Fault(f) => o.problem_code = Some(f.code),
            _ => o.transport_error = true,
        }
        o
    })
}

/// Plays tournament number `index` through `tournament.*`: a McMahon event of named,
/// ranked players, each round paired by the server (OpenGotha's weight) and every game's
/// result submitted (each a durable write), then the whole tournament read back and checked.
async fn play_tournament_api(args: &Args, index: u64, c: &mut Client) -> Outcome {
    match play_tournament_api_inner(args, index, c).await {
        Ok(o) | Err(o) => o,
    }
}

async fn play_tournament_api_inner(
    args: &Args,
    index: u64,
    c: &mut Client,
) -> Result<Outcome, Outcome> {
    let n = args.players.max(2);
    let rounds = args
        .rounds
        .unwrap_or_else(|| (usize::BITS - (n - 1).leading_zeros()) + args.additional_rounds);
    let seed = args.seed.unwrap_or_else(rand::random).wrapping_add(index);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let created = must(
        c,
        "tournament.create",
        vec![
            json!({"name": format!("replay {index}"), "rounds": rounds, "system": "mcmahon"}),
            json!({"seed": seed & ((1 << 53) - 1)}),
        ],
    )
    .await?;
    let id = created["id"].clone();
    for k in 0..n {
        // Ranks spread from 20k to 5d, as in a club event.
        let rank = -20 + (rng.random_range(0..25)) as i64;
        must(
            c,
            "tournament.player.add",
            vec![
                id.clone(),
                json!({"name": format!("Player{k:05}"), "first_name": format!("R{index}"),
                       "rank": rank, "club": format!("C{}", k % 7)}),
            ],
        )
        .await?;
    }
    let mut out = Outcome::default();
    for r in 1..=rounds {
        let paired = must(c, "tournament.round.pair", vec![id.clone(), json!(r)]).await?;
        let games = paired["games"].as_array().cloned().unwrap_or_default();
        let byes = paired["byes"].as_array().map_or(0, Vec::len);
        if games.len() * 2 + byes != n {
            out.violations.push(format!(
                "round {r}: {} games and {byes} byes for {n} players",
                games.len()
            ));
        }
        for g in &games {
            let result = match draw_result(&mut rng, args.results) {
                1 => "W+",
                0 => "jigo",
                _ => "B+",
            };
            must(
                c,
                "tournament.result.set",
                vec![id.clone(), json!(r), g["table"].clone(), json!(result)],
            )
            .await?;
            out.matches += 1;
            c.progress.matches.fetch_add(1, Ordering::Relaxed);
        }
    }
    let end = must(c, "tournament.get", vec![id.clone()]).await?;
    let detail = end["rounds_detail"].as_array().map_or(0, Vec::len);
    if detail != rounds as usize {
        out.violations.push(format!(
            "tournament {id}: {detail} rounds stored, {rounds} played"
        ));
    }
    let unknown = end["rounds_detail"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["games"].as_array().cloned().unwrap_or_default())
        .filter(|g| {
            g["result"]
                .as_str()
                .is_none_or(|s| s == "?" || s == "unknown")
        })
        .count();
    if unknown > 0 {
        out.violations.push(format!(
            "tournament {id}: {unknown} games without their result"
        ));
    }
    out.finished = true;
    Ok(out)
}

#[derive(Default)]
struct Totals {
    tournaments: u64,
    finished: u64,
    problems: u64,
    transport_errors: u64,
    problem_codes: BTreeMap<String, u64>,
    problem_examples: Vec<String>,
    violations: u64,
    violation_examples: Vec<String>,
    matches: u64,
    repeated: i64,
    stats: Stats,
}

impl Totals {
    fn add(&mut self, o: Outcome) {
        self.tournaments += 1;
        self.matches += o.matches;
        if o.finished {
            self.finished += 1;
            self.repeated += o.repeated;
        }
        if let Some(p) = o.problem {
            self.problems += 1;
            if o.transport_error {
                self.transport_errors += 1;
            }
            let code = o
                .problem_code
                .map_or_else(|| "other".to_string(), |c| c.to_string());
            *self.problem_codes.entry(code).or_default() += 1;
            if self.problem_examples.len() < 10 {
                self.problem_examples.push(p);
            }
        }
        self.violations += o.violations.len() as u64;
        for v in o.violations {
            if self.violation_examples.len() < 20 {
                self.violation_examples.push(v);
            }
        }
    }
}

/// One worker: plays tournaments from the shared counter until all are taken.
async fn worker(
    args: Arc<Args>,
    url: String,
    http: reqwest::Client,
    next: Arc<AtomicU64>,
    progress: Arc<Progress>,
) -> Totals {
    let mut totals = Totals::default();
    let mut clients = Vec::with_capacity(args.clients_per_tournament);
    for _ in 0..args.clients_per_tournament.max(1) {
        match Transport::connect(args.protocol, &http, &url).await {
            Ok(t) => clients.push(Client {
                t,
                stats: Stats::default(),
                progress: Arc::clone(&progress),
            }),
            Err(e) => {
                // Without a connection this worker cannot play its share: count every
                // tournament it would have taken as a transport problem.
                let total = if args.echo > 0 { 1 } else { args.tournaments };
                while next.fetch_add(1, Ordering::Relaxed) < total {
                    totals.add(Outcome {
                        problem: Some(e.clone()),
                        transport_error: true,
                        ..Outcome::default()
                    });
                    progress.tournaments.fetch_add(1, Ordering::Relaxed);
                    progress.problems.fetch_add(1, Ordering::Relaxed);
                }
                return totals;
            }
        }
    }
    if args.echo > 0 {
        let c = &mut clients[0];
        while next.fetch_add(1, Ordering::Relaxed) < args.echo {
            // The shape of a checkout's answer: the same payload size as a real cycle.
            match c.call("system.echo", vec![json!([17, 42])]).await {
                Ok(v) if v == json!([17, 42]) => {}
                Ok(v) => totals.add(Outcome {
                    violations: vec![format!("system.echo returned {v}")],
                    ..Outcome::default()
                }),
                Err(e) => {
                    totals.add(Outcome {
                        problem: Some(e.to_string()),
                        transport_error: matches!(e, CallError::Transport(_)),
                        ..Outcome::default()
                    });
                    break;
                }
            }
        }
        for c in clients {
            totals.stats.merge(c.stats);
        }
        return totals;
    }
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= args.tournaments {
            break;
        }
        let o = match args.api {
            Api::Matchmaker => play_tournament(&args, index, &mut clients).await,
            Api::Tournament => play_tournament_api(&args, index, &mut clients[0]).await,
        };
        if o.problem.is_some() {
            progress.problems.fetch_add(1, Ordering::Relaxed);
        }
        progress
            .violations
            .fetch_add(o.violations.len() as u64, Ordering::Relaxed);
        progress.tournaments.fetch_add(1, Ordering::Relaxed);
        totals.add(o);
    }
    for c in clients {
        totals.stats.merge(c.stats);
    }
    totals
}

fn percentile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[i]) / 1000.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// This process's CPU time so far (user + system, its finished threads included), from
/// `getrusage`: what the client itself cost, for benchmarks that run it beside the daemon.
/// (`/proc/self/stat` counts in clock ticks of 10 ms, so a short run read 0.) `None` where
/// the call fails.
#[allow(unsafe_code)]
fn cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` only writes the `rusage` it is given a valid pointer to, and it has
    // filled it in when it returns 0.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return None;
        }
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(secs(usage.ru_utime) + secs(usage.ru_stime))
}

fn summary(args: &Args, t: &mut Totals, wall: Duration) -> Value {
    let secs = wall.as_secs_f64().max(1e-9);
    let mut latency = serde_json::Map::new();
    let mut methods: Vec<_> = t.stats.latencies.iter_mut().collect();
    methods.sort_by_key(|(m, _)| **m);
    for (m, v) in methods {
        v.sort_unstable();
        latency.insert(
            m.to_string(),
            json!({
                "count": v.len(),
                "p50_ms": round3(percentile(v, 0.50)),
                "p95_ms": round3(percentile(v, 0.95)),
                "p99_ms": round3(percentile(v, 0.99)),
                "max_ms": round3(percentile(v, 1.0)),
            }),
        );
    }
    json!({
        "url": args.url.join(","),
        "protocol": args.protocol.name(),
        "players": args.players,
        "concurrency": args.concurrency,
        "clients_per_tournament": args.clients_per_tournament,
        "allow_repeat": args.allow_repeat,
        "additional_rounds": args.additional_rounds,
        "pairing": args.pairing.map(|p| match p { Pairing::Optimal => "optimal", Pairing::Rswiss => "rswiss" }),
        "results": format!("{}/{}/{}", args.results[0], args.results[1], args.results[2]),
        "seed": args.seed,
        "tournaments": t.tournaments,
        "finished": t.finished,
        "problems": t.problems,
        "problem_rate": if t.tournaments == 0 { 0.0 } else { t.problems as f64 / t.tournaments as f64 },
        "problem_faults": t.problem_codes,
        "problem_examples": t.problem_examples,
        "transport_errors": t.transport_errors,
        "repeated_matches": t.repeated,
        "violations": t.violations,
        "violation_examples": t.violation_examples,
        "matches": t.matches,
        "rpcs": t.stats.rpcs,
        "retries": t.stats.retries,
        "wall_seconds": round3(secs),
        // To the microsecond getrusage gives: a short run costs a few milliseconds.
        "cpu_seconds": cpu_seconds().map(|s| (s * 1e6).round() / 1e6),
        "rpc_per_second": round3(t.stats.rpcs as f64 / secs),
        "match_cycles_per_second": round3(t.matches as f64 / secs),
        "latency": latency,
    })
}

fn print_human(s: &Value) {
    let g = |k: &str| s.get(k).cloned().unwrap_or(Value::Null);
    println!(
        "{} tournaments of {} players over {} ({} in flight, {} client(s) each): {} finished, {} problems",
        g("tournaments"),
        g("players"),
        g("protocol").as_str().unwrap_or(""),
        g("concurrency"),
        g("clients_per_tournament"),
        g("finished"),
        g("problems"),
    );
    println!(
        ">>>> Problem rate: {}/{} / Repeated matches: {}",
        g("problems"),
        g("tournaments"),
        g("repeated_matches")
    );
    if let Some(faults) = s.get("problem_faults").and_then(Value::as_object)
        && !faults.is_empty()
    {
        println!(
            "problem faults: {}",
            faults
                .iter()
                .map(|(k, v)| format!("{k}×{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for e in s["problem_examples"].as_array().into_iter().flatten() {
            println!("  {}", e.as_str().unwrap_or(""));
        }
    }
    println!("invariant violations: {}", g("violations"));
    for e in s["violation_examples"].as_array().into_iter().flatten() {
        println!("  {}", e.as_str().unwrap_or(""));
    }
    println!(
        "{} matches, {} RPCs ({} retries) in {:.3} s: {:.0} RPC/s, {:.0} match cycles/s",
        g("matches"),
        g("rpcs"),
        g("retries"),
        g("wall_seconds").as_f64().unwrap_or(0.0),
        g("rpc_per_second").as_f64().unwrap_or(0.0),
        g("match_cycles_per_second").as_f64().unwrap_or(0.0),
    );
    println!(
        "{:<32} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "latency (ms)", "calls", "p50", "p95", "p99", "max"
    );
    for (m, l) in s["latency"].as_object().into_iter().flatten() {
        let f = |k: &str| l[k].as_f64().unwrap_or(0.0);
        println!(
            "{:<32} {:>8} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
            m,
            l["count"],
            f("p50_ms"),
            f("p95_ms"),
            f("p99_ms"),
            f("max_ms")
        );
    }
}

/// Progress on stderr: one rewritten bar on a terminal, a plain line every few seconds
/// otherwise.
async fn show_progress(total: u64, progress: Arc<Progress>, done: Arc<AtomicBool>) {
    let tty = std::io::stderr().is_terminal();
    let every = if tty {
        Duration::from_millis(200)
    } else {
        Duration::from_secs(5)
    };
    let start = Instant::now();
    let mut last = Instant::now();
    loop {
        // Short sleeps so the end of the run is not held up by a long interval.
        tokio::time::sleep(Duration::from_millis(100)).await;
        if done.load(Ordering::Relaxed) {
            break;
        }
        if last.elapsed() < every {
            continue;
        }
        last = Instant::now();
        let t = progress.tournaments.load(Ordering::Relaxed);
        let m = progress.matches.load(Ordering::Relaxed);
        let r = progress.rpcs.load(Ordering::Relaxed);
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let tail = format!(
            "{t}/{total} tournaments, {m} matches, {} problems, {} violations, {:.0} RPC/s, {:.0} cycles/s",
            progress.problems.load(Ordering::Relaxed),
            progress.violations.load(Ordering::Relaxed),
            r as f64 / secs,
            m as f64 / secs
        );
        let mut err = std::io::stderr().lock();
        if tty {
            let width = 30usize;
            let filled = (t as usize * width)
                .checked_div(total as usize)
                .unwrap_or(width);
            let _ = write!(
                err,
                "\r[{}{}] {tail}\x1b[K",
                "#".repeat(filled.min(width)),
                " ".repeat(width - filled.min(width))
            );
        } else {
            let _ = writeln!(err, "progress: {tail}");
        }
    }
    if tty {
        let _ = writeln!(std::io::stderr());
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if args.players == 0 {
        eprintln!("goswiss-replay: --players must be at least 1");
        return std::process::ExitCode::from(2);
    }
    let concurrency = args.concurrency.clamp(1, 10_000);
    let http = match reqwest::Client::builder()
        .timeout(Duration::from_secs(args.timeout))
        .tcp_nodelay(true)
        .pool_max_idle_per_host(concurrency * args.clients_per_tournament.max(1))
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("goswiss-replay: HTTP client: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let args = Arc::new(args);
    let next = Arc::new(AtomicU64::new(0));
    let progress = Arc::new(Progress::default());
    let done = Arc::new(AtomicBool::new(false));
    let shown = (!args.quiet).then(|| {
        tokio::spawn(show_progress(
            if args.echo > 0 { 0 } else { args.tournaments },
            Arc::clone(&progress),
            Arc::clone(&done),
        ))
    });
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|k| {
            tokio::spawn(worker(
                Arc::clone(&args),
                args.url[k % args.url.len()].clone(),
                http.clone(),
                Arc::clone(&next),
                Arc::clone(&progress),
            ))
        })
        .collect();
    let mut totals = Totals::default();
    for w in workers {
        match w.await {
            Ok(t) => {
                totals.tournaments += t.tournaments;
                totals.finished += t.finished;
                totals.problems += t.problems;
                totals.transport_errors += t.transport_errors;
                for (k, v) in t.problem_codes {
                    *totals.problem_codes.entry(k).or_default() += v;
                }
                for e in t.problem_examples {
                    if totals.problem_examples.len() < 10 {
                        totals.problem_examples.push(e);
                    }
                }
                totals.violations += t.violations;
                for e in t.violation_examples {
                    if totals.violation_examples.len() < 20 {
                        totals.violation_examples.push(e);
                    }
                }
                totals.matches += t.matches;
                totals.repeated += t.repeated;
                totals.stats.merge(t.stats);
            }
            Err(e) => {
                eprintln!("goswiss-replay: a worker failed: {e}");
                totals.transport_errors += 1;
            }
        }
    }
    let wall = start.elapsed();
    done.store(true, Ordering::Relaxed);
    if let Some(h) = shown {
        let _ = h.await;
    }
    let s = summary(&args, &mut totals, wall);
    if args.json {
        println!("{s}");
    } else {
        print_human(&s);
    }
    if totals.violations > 0 || totals.transport_errors > 0 {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
