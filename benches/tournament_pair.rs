//! `tournament.round.pair` over JSON-RPC (issue 13 target: ≤ 30 ms for a 1,000-player McMahon
//! round with history). The daemon runs in-process on 127.0.0.1:0 over a temporary SQLite
//! database; a 1,000-player McMahon event (seeded ranks, clubs, countries) is built through
//! the RPC and rounds 1–3 are paired and played, then the benchmark pairs round 4 and unpairs
//! it again, timing only the `round.pair` calls (the unpair is outside the measurement).
//!
//! Run: `nice -n 10 cargo bench --bench tournament_pair`. For a profile of one process,
//! `GOSWISS_PAIR_PROFILE=N target/release/deps/tournament_pair-* --bench` skips criterion and
//! runs N pair/unpair cycles (for `valgrind --tool=callgrind`); `GOSWISS_PAIR_MODEL=gopair`
//! pairs them under that model instead of OpenGotha's weight.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const PLAYERS: usize = 1000;
const PLAYED_ROUNDS: u64 = 3;

struct Daemon {
    url: String,
    http: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    _dir: tempfile::TempDir,
}

impl Daemon {
    async fn start() -> Daemon {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = goswiss::config::Config {
            db: dir.path().join("bench.db").to_string_lossy().into_owned(),
            // Profile mode runs under valgrind, 50× slower: the setup's first pairings would
            // exceed the default 10 s call budget.
            request_budget_ms: if std::env::var_os("GOSWISS_PAIR_PROFILE").is_some() {
                0
            } else {
                goswiss::config::Config::default().request_budget_ms
            },
            ..Default::default()
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(goswiss::serve(config, listener, async move {
            let _ = rx.await;
        }));
        Daemon {
            url: format!("http://{addr}/jsonrpc"),
            http: reqwest::Client::new(),
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        let v: Value = self
            .http
            .post(&self.url)
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send()
            .await
            .expect("send")
            .json()
            .await
            .expect("json");
        match v.get("result") {
            Some(r) => r.clone(),
            None => panic!("{method}: {v}"),
        }
    }

    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}

/// Builds the event: 1,000 players, rounds 1–3 paired and played (results entered by 16
/// concurrent clients so the store's group commit keeps the setup short).
async fn event(d: &Daemon) -> i64 {
    let created = d
        .call(
            "tournament.create",
            json!([{"name": "Bench Open", "rounds": 7, "system": "mcmahon"}, {"seed": 11}]),
        )
        .await;
    let id = created["id"].as_i64().expect("id");
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let players: Vec<Value> = (0..PLAYERS)
        .map(|k| {
            let rank: i32 = rng.random_range(-25..=6);
            let country = ["FR", "DE", "NL", "CZ", "JP"][k % 5];
            json!({"name": format!("Player{k:04}"), "first_name": "Bench", "rank": rank,
                   "rating": 2100 + 100 * rank, "club": format!("C{}", k % 60),
                   "country": country})
        })
        .collect();
    for chunk in players.chunks(250) {
        let calls: Vec<Value> = chunk
            .iter()
            .map(|p| json!({"methodName": "tournament.player.add", "params": [id, p]}))
            .collect();
        d.call("system.multicall", json!([calls])).await;
    }
    for round in 1..=PLAYED_ROUNDS {
        let paired = d.call("tournament.round.pair", json!([id, round])).await;
        let games = paired["games"].as_array().expect("games").clone();
        let calls: Vec<Value> = games
            .iter()
            .map(|g| {
                let t = g["table"].as_u64().unwrap_or(0);
                let result = if t % 11 == 0 {
                    "jigo"
                } else if t % 3 == 0 {
                    "B+"
                } else {
                    "W+"
                };
                json!({"methodName": "tournament.result.set", "params": [id, round, t, result]})
            })
            .collect();
        d.call("system.multicall", json!([calls])).await;
    }
    id
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Pairs round 4 with `options` and unpairs it, `n` times; returns the time spent in
/// `round.pair` calls.
async fn cycles(d: &Daemon, id: i64, n: u64, options: &Value) -> Duration {
    let round = PLAYED_ROUNDS + 1;
    let mut spent = Duration::ZERO;
    for _ in 0..n {
        let start = Instant::now();
        let r = d
            .call("tournament.round.pair", json!([id, round, options]))
            .await;
        spent += start.elapsed();
        assert_eq!(r["games"].as_array().map(Vec::len), Some(PLAYERS / 2));
        d.call("tournament.round.unpair", json!([id, round])).await;
    }
    spent
}

fn bench(c: &mut Criterion) {
    let rt = runtime();
    let d = rt.block_on(Daemon::start());
    let id = rt.block_on(event(&d));
    let mut g = c.benchmark_group("tournament_rpc");
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("round_pair_1000_players_round_4_jsonrpc", |b| {
        b.iter_custom(|n| rt.block_on(cycles(&d, id, n, &json!({}))))
    });
    // The same round under gopair's weighted terms (the cheaper solver).
    g.bench_function("round_pair_1000_players_round_4_jsonrpc_gopair", |b| {
        b.iter_custom(|n| rt.block_on(cycles(&d, id, n, &json!({"model": "gopair"}))))
    });
    g.finish();
    rt.block_on(d.stop());
}

fn profile(n: u64) {
    let rt = runtime();
    let d = rt.block_on(Daemon::start());
    let id = rt.block_on(event(&d));
    let model = std::env::var("GOSWISS_PAIR_MODEL").ok();
    let options = model.map_or_else(|| json!({}), |m| json!({ "model": m }));
    let spent = rt.block_on(cycles(&d, id, n, &options));
    println!(
        "{n} round.pair calls, {:.1} ms each",
        spent.as_secs_f64() * 1000.0 / n as f64
    );
    rt.block_on(d.stop());
}

fn main() {
    if let Some(n) = std::env::var("GOSWISS_PAIR_PROFILE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        profile(n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

criterion_group!(benches, bench);
