//! The `goswiss` command: parses flags, loads the config, starts logging and runs the library.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use goswiss::config::{Config, EXAMPLE, Overrides, environment_help, unknown_variables};
use tracing_subscriber::EnvFilter;

#[derive(Parser)]
#[command(
    name = "goswiss",
    version,
    about = "Go tournament daemon: rswiss-compatible XML-RPC and JSON-RPC"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the daemon.
    Serve(Flags),
    /// Print the effective configuration (after file, environment and flags) as TOML.
    PrintConfig {
        #[command(flatten)]
        flags: Flags,
        /// Print the commented example file instead.
        #[arg(long)]
        example: bool,
    },
    /// Database tools.
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// Play simulated tournaments in memory and compare pairing systems and settings: how well
    /// each ranks players of known strength (docs/simulation.md).
    Simulate(Box<SimulateArgs>),
    /// Rating lists for the registration desk (the EGF list, the FFG échelle, the AGA TDList;
    /// docs/ratings.md), on the database directly.
    Ratings {
        #[command(subcommand)]
        command: RatingsCommand,
    },
}

#[derive(Subcommand)]
enum RatingsCommand {
    /// Import a list file (as downloaded: plain, gzip or ZIP), replacing the list of its kind in
    /// one statement. A daemon on the same database searches it from its next `ratings.info`,
    /// or within a minute.
    Import {
        /// egf, ffg or aga.
        #[arg(long)]
        kind: String,
        /// The file.
        file: PathBuf,
        #[command(flatten)]
        flags: Flags,
    },
    /// Search the lists the database holds, as `ratings.search` does: the best matches of a
    /// name prefix ("family given", "given family") or an id, one per line.
    Search {
        /// egf, ffg, aga or all.
        #[arg(long, default_value = "all")]
        kind: String,
        /// Most entries shown.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// The name prefix or id.
        prefix: String,
        #[command(flatten)]
        flags: Flags,
    },
    /// The lists the database holds: kind, entries, when imported, the list's own date.
    Info {
        #[command(flatten)]
        flags: Flags,
    },
}

#[derive(Subcommand)]
enum DbCommand {
    /// Copy every tournament (both kinds, ids, sequence numbers and timestamps intact) from one
    /// database to another, then read the target back and check every log's count and checksum.
    ///
    /// Either side is a SQLite file (a path or sqlite:PATH) or a postgres://user@host/db URL.
    /// The source is only read and must have this goswiss's schema (run `goswiss serve` on an
    /// older one once to migrate it). The target is created or migrated as needed; a target
    /// that holds tournaments is refused unless --force. The copy is one transaction on the
    /// target: on any error the target is left as it was. Stop the daemons on the target
    /// first (they would not see the copied tournaments until restarted).
    Copy {
        /// The database to copy from.
        #[arg(long)]
        from: String,
        /// The database to copy into.
        #[arg(long)]
        to: String,
        /// Replace the target's tournaments instead of refusing a non-empty target. Ids stay
        /// unique: the target's next id is above both databases' earlier ones.
        #[arg(long)]
        force: bool,
    },
}

/// `goswiss simulate`: a field, variants, a result model and runs, from flags or a spec file.
#[derive(Args)]
struct SimulateArgs {
    /// A simulation spec (JSON, as `simulate.start` takes it); flags given too override its
    /// runs, seed and threads.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Generated field: number of players.
    #[arg(long, default_value_t = 40)]
    players: usize,
    /// Generated field: declared ranks drawn uniformly from this range.
    #[arg(long, default_value = "20k..3d")]
    ranks: String,
    /// Generated field: clubs (default: one per 6 players).
    #[arg(long)]
    clubs: Option<usize>,
    /// Generated field: countries the clubs belong to.
    #[arg(long)]
    countries: Option<usize>,
    /// Take the players of an OpenGotha tournament file instead of generating them.
    #[arg(long, conflicts_with = "rating_list")]
    field_file: Option<PathBuf>,
    /// Take the players of a rating list instead of generating them: a CSV file (header:
    /// name, first_name, rank, rating, club, country), or a federation's list (--list-format).
    #[arg(long)]
    rating_list: Option<PathBuf>,
    /// With --rating-list: csv, or the EGF list (egf_db.txt), the FFG échelle
    /// (ech_ffg_V3.txt) or the AGA TDList (tdlista.txt), as downloaded (zip or gzip too).
    #[arg(long, default_value = "csv", requires = "rating_list")]
    list_format: String,
    /// With a federation's list: only the players of these countries (e.g. FR,BE).
    #[arg(long, value_delimiter = ',', requires = "rating_list")]
    list_countries: Vec<String>,
    /// With a federation's list: only the players of these ranks (e.g. 20k..3d).
    #[arg(long, requires = "rating_list")]
    list_ranks: Option<String>,
    /// With --rating-list: players drawn from the list for each run (default: all).
    #[arg(long)]
    sample: Option<usize>,
    /// Error of a rating as a measure of true strength, in grades.
    #[arg(long, default_value_t = 0.5)]
    strength_sd: f64,
    /// Pairing system of every variant unless the variant says otherwise.
    #[arg(long, default_value = "mcmahon")]
    system: String,
    /// Rounds of every variant unless the variant says otherwise.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// A variant to compare, as NAME=SETTINGS with SETTINGS any tournament.* settings as
    /// JSON (ranks as text), e.g. 'bar 1d={"mcmahon":{"bar":"1d"}}'. Repeat for several.
    #[arg(long = "variant")]
    variants: Vec<String>,
    /// Cost model for pairing: opengotha (OpenGotha's weight, the default) or a preset name.
    #[arg(long, default_value = "opengotha")]
    pairing_model: String,
    /// Result model: egf, egf_classic, elo[:SCALE] or table:P0,P1,... (P of the stronger
    /// player winning at 0, 100, 200, ... GoR apart).
    #[arg(long, default_value = "egf")]
    model: String,
    /// Tournaments per variant.
    #[arg(long, default_value_t = 1000)]
    runs: u64,
    /// Master seed: the same seed gives the same result on any number of threads.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// Write the report as JSON to FILE ('-' for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write every figure as CSV to FILE ('-' for standard output).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write the SVG charts into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
    /// Print run K of every variant (players with true strength, rounds, standings) as JSON
    /// instead of simulating.
    #[arg(long, value_name = "K")]
    show_run: Option<u64>,
}

#[derive(Args)]
struct Flags {
    /// Config file (default: config/goswiss.toml when it exists).
    #[arg(long, env = "GOSWISS_CONFIG")]
    config: Option<PathBuf>,
    /// Address to listen on, e.g. 127.0.0.1:9090.
    #[arg(long)]
    listen: Option<String>,
    /// Database: a SQLite file (path or sqlite:PATH) or postgres://user[:password]@host[:port]/db.
    #[arg(long)]
    db: Option<String>,
    /// Log level or tracing filter.
    #[arg(long)]
    log_level: Option<String>,
    /// Log one JSON object per line.
    #[arg(long)]
    json_logs: bool,
}

impl Flags {
    fn load(&self) -> anyhow::Result<Config> {
        let overrides = Overrides {
            listen: self.listen.clone(),
            db: self.db.clone(),
            log_level: self.log_level.clone(),
            json_logs: self.json_logs.then_some(true),
        };
        Config::load(self.config.as_deref(), &overrides)
            .map_err(|e| anyhow::anyhow!("configuration: {e}"))
    }
}

/// The log filter: `--log-level` first, then `RUST_LOG`, then `log_level` from the environment
/// (`GOSWISS_LOG_LEVEL`), the file or the default. RUST_LOG sits below the flag but above the
/// other layers because it is what operators of tracing-based daemons reach for first.
fn log_filter(flag: Option<&str>, config: &Config) -> anyhow::Result<EnvFilter> {
    let (source, filter) = match (flag, std::env::var("RUST_LOG")) {
        (Some(f), _) => ("--log-level", f.to_string()),
        (None, Ok(env)) if !env.trim().is_empty() => ("RUST_LOG", env),
        _ => ("log_level", config.log_level.clone()),
    };
    EnvFilter::try_new(&filter).map_err(|e| anyhow::anyhow!("{source} {filter:?}: {e}"))
}

fn init_tracing(filter: EnvFilter, config: &Config) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    if config.json_logs {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Misspelt `GOSWISS_*` variables would otherwise be ignored in silence.
fn unknown_variable_warnings() -> Vec<String> {
    unknown_variables(std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()))
        .into_iter()
        .map(|(name, near)| match near {
            Some(near) => {
                format!("unknown environment variable {name} ignored (did you mean {near}?)")
            }
            None => format!("unknown environment variable {name} ignored"),
        })
        .collect()
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// mimalloc for the daemon: a request's answer is a tree of many small JSON values built and
/// dropped at once (an `sgf.parse` reply: millions), which glibc's malloc handled slowly
/// (most of such a call's time in consolidating and unlinking freed chunks) and with a higher
/// peak. Library users and the in-process tests keep their own allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // The error and its causes on one line, without anyhow's backtrace (RUST_BACKTRACE is
    // often set on developer machines): these are operator errors, not bugs.
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("goswiss: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let env_help = environment_help();
    let matches = Cli::command()
        .after_help(env_help.clone())
        .mut_subcommand("serve", |c| c.after_help(env_help.clone()))
        .mut_subcommand("print-config", |c| c.after_help(env_help.clone()))
        .get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.command {
        Command::PrintConfig { flags, example } => {
            for warning in unknown_variable_warnings() {
                eprintln!("warning: {warning}");
            }
            if example {
                print!("{EXAMPLE}");
            } else {
                print!("{}", toml_of(&flags.load()?)?);
            }
            Ok(())
        }
        Command::Db {
            command: DbCommand::Copy { from, to, force },
        } => {
            let runtime = tokio::runtime::Runtime::new().context("starting the runtime")?;
            let summary = runtime.block_on(goswiss::store::copy::copy(&from, &to, force))?;
            println!(
                "{} -> {}: {summary}",
                goswiss::store::redacted(&from),
                goswiss::store::redacted(&to)
            );
            Ok(())
        }
        Command::Simulate(args) => simulate(&args),
        Command::Ratings { command } => ratings_command(command),
        Command::Serve(flags) => {
            let config = flags.load()?;
            init_tracing(log_filter(flags.log_level.as_deref(), &config)?, &config);
            for warning in unknown_variable_warnings() {
                tracing::warn!("{warning}");
            }
            if config.auth && !config.admin_token.is_set() && !config.open_creation {
                tracing::warn!(
                    "auth is on without admin_token and open_creation is off: nobody can create \
                     tournaments (set admin_token, or open_creation = true)"
                );
            }
            if config.worker_threads > goswiss::config::MAX_WORKER_THREADS {
                anyhow::bail!(
                    "worker_threads is {}: at most {} (0: one per CPU)",
                    config.worker_threads,
                    goswiss::config::MAX_WORKER_THREADS
                );
            }
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(config.worker_threads())
                .enable_all()
                .build()
                .context("starting the runtime")?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind(&config.listen)
                    .await
                    .with_context(|| format!("listening on {}", config.listen))?;
                goswiss::serve(config, listener, shutdown_signal()).await
            })
        }
    }
}

// ---- goswiss ratings ----------------------------------------------------------------------

fn ratings_command(command: RatingsCommand) -> anyhow::Result<()> {
    use goswiss::ratings::Kind;
    use goswiss::rpc::methods::ratings::{Lists, now_millis, prepare};

    let flags = match &command {
        RatingsCommand::Import { flags, .. }
        | RatingsCommand::Search { flags, .. }
        | RatingsCommand::Info { flags } => flags,
    };
    let config = flags.load()?;
    let db = goswiss::store::redacted(&config.db);
    let runtime = tokio::runtime::Runtime::new().context("starting the runtime")?;
    runtime.block_on(async {
        let store = goswiss::store::open(&config.db, std::time::Duration::ZERO)
            .await
            .with_context(|| format!("opening database {db}"))?;
        let lists = Lists::new(std::sync::Arc::clone(&store));
        let outcome = async {
            match &command {
                RatingsCommand::Import { kind, file, .. } => {
                    let kind = Kind::parse(kind)
                        .with_context(|| format!("unknown list kind {kind:?}: egf, ffg or aga"))?;
                    let bytes = std::fs::read(file)
                        .with_context(|| format!("reading {}", file.display()))?;
                    let source = file
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let prepared = tokio::task::spawn_blocking(move || {
                        prepare(kind, &bytes, &source, now_millis())
                    })
                    .await
                    .context("reading the list")?
                    .with_context(|| format!("reading {}", file.display()))?;
                    let summary = lists
                        .install(prepared)
                        .await
                        .with_context(|| format!("storing the list in {db}"))?;
                    println!(
                        "{db}: {} {} the {} list: {} entries ({} lines, {} skipped){}",
                        if summary["replaced"] == true {
                            "replaced"
                        } else {
                            "imported"
                        },
                        summary["source"].as_str().unwrap_or(""),
                        kind,
                        summary["entries"],
                        summary["lines"],
                        summary["skipped"],
                        summary["list_date"]
                            .as_str()
                            .map(|d| format!(", dated {d}"))
                            .unwrap_or_default()
                    );
                }
                RatingsCommand::Search {
                    kind,
                    limit,
                    prefix,
                    ..
                } => {
                    lists.refresh().await.context("loading the lists")?;
                    let which: Vec<Kind> = if kind.trim().eq_ignore_ascii_case("all") {
                        Kind::ALL.to_vec()
                    } else {
                        vec![Kind::parse(kind).with_context(|| {
                            format!("unknown list kind {kind:?}: egf, ffg, aga or all")
                        })?]
                    };
                    let held = lists.snapshot();
                    if which.iter().all(|k| !held.contains_key(k)) {
                        anyhow::bail!("no such rating list in {db}: import one first");
                    }
                    let query = goswiss::ratings::Query::new(prefix);
                    let hits = goswiss::ratings::index::best(
                        which
                            .iter()
                            .filter_map(|k| held.get(k))
                            .flat_map(|l| l.index.search(&query, *limit))
                            .collect(),
                        *limit,
                    );
                    for h in hits {
                        let e = h.entry;
                        let id = [e.egf_pin, e.ffg_licence, e.aga_id]
                            .into_iter()
                            .find(|s| !s.is_empty())
                            .unwrap_or("");
                        println!(
                            "{}\t{} {}\t{}\t{}\t{}\t{}\t{}",
                            e.kind.as_str(),
                            e.name,
                            e.first_name,
                            goswiss::ratings::convert::format_rank(e.rank()),
                            e.rating(),
                            e.country,
                            e.club,
                            id
                        );
                    }
                }
                RatingsCommand::Info { .. } => {
                    lists.refresh().await.context("loading the lists")?;
                    for list in lists.snapshot().values() {
                        println!("{}", list.describe());
                    }
                }
            }
            anyhow::Ok(())
        }
        .await;
        store.close().await.context("closing the database")?;
        outcome
    })
}

fn toml_of(config: &Config) -> anyhow::Result<String> {
    let mut out = String::new();
    for (key, value) in serde_json::to_value(config)?
        .as_object()
        .context("config is a struct")?
    {
        out.push_str(&format!("{key} = {value}\n"));
    }
    Ok(out)
}

// ---- goswiss simulate ---------------------------------------------------------------------

/// The spec the flags describe (or the spec file's, with runs and seed from the flags when
/// they were given on the command line).
fn simulation_spec(
    args: &SimulateArgs,
    matches: &clap::ArgMatches,
) -> anyhow::Result<goswiss::simulation::Spec> {
    use goswiss::simulation::Spec;
    use serde_json::{Value, json};
    let given = |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    if let Some(path) = &args.spec {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let v: Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        let mut spec = Spec::from_value(v).map_err(anyhow::Error::msg)?;
        if given("runs") {
            spec.runs = args.runs;
        }
        if given("seed") {
            spec.seed = args.seed;
        }
        return Ok(spec);
    }
    let field = if let Some(path) = &args.field_file {
        let xml =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let data = goswiss::tournament::formats::opengotha_xml::read(&xml)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.0))?;
        json!({"players": goswiss::simulation::field::from_tournament(&data)})
    } else if let Some(path) = &args.rating_list
        && args.list_format.eq_ignore_ascii_case("csv")
    {
        if !args.list_countries.is_empty() || args.list_ranks.is_some() {
            anyhow::bail!(
                "--list-countries and --list-ranks read a federation's list (--list-format)"
            );
        }
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        json!({"rating_list": {"text": text, "sample": args.sample}})
    } else if let Some(path) = &args.rating_list {
        use goswiss::ratings;
        let kind = ratings::Kind::parse(&args.list_format).with_context(|| {
            format!(
                "--list-format csv, egf, ffg or aga, got {:?}",
                args.list_format
            )
        })?;
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let data = ratings::unpack::unpack(kind, &bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let list =
            ratings::parse(kind, &data).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let (from, to) = match &args.list_ranks {
            Some(r) => {
                let (from, to) = r
                    .split_once("..")
                    .context("--list-ranks takes FROM..TO, e.g. 20k..3d")?;
                (Some(from.trim()), Some(to.trim()))
            }
            None => (None, None),
        };
        let filter: goswiss::simulation::field::ListFilter = serde_json::from_value(
            json!({"countries": args.list_countries, "from": from, "to": to}),
        )
        .context("--list-ranks")?;
        let pool = goswiss::simulation::field::from_rating_list(&list, &filter)
            .map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))?;
        json!({"pool": {"players": pool, "sample": args.sample}})
    } else {
        let (from, to) = args
            .ranks
            .split_once("..")
            .context("--ranks takes FROM..TO, e.g. 20k..3d")?;
        json!({"generate": {"players": args.players, "from": from.trim(), "to": to.trim(),
                            "clubs": args.clubs, "countries": args.countries}})
    };
    let model = match args.model.split_once(':') {
        None => json!({"kind": args.model}),
        Some(("elo", scale)) => json!({"kind": "elo", "scale": scale.parse::<f64>()
            .context("--model elo:SCALE takes a number")?}),
        Some(("table", list)) => {
            let p: Result<Vec<f64>, _> = list.split(',').map(|x| x.trim().parse::<f64>()).collect();
            json!({"kind": "table", "p": p.context("--model table:P0,P1,... takes numbers")?})
        }
        Some(_) => anyhow::bail!("--model: egf, egf_classic, elo[:SCALE] or table:P0,P1,..."),
    };
    let base = json!({"system": args.system, "rounds": args.rounds});
    let pairing_model = (args.pairing_model != "opengotha").then(|| args.pairing_model.clone());
    let variants: Vec<Value> = if args.variants.is_empty() {
        vec![json!({"settings": base, "pairing_model": pairing_model,
                    "name": format!("{} {} rounds", args.system, args.rounds)})]
    } else {
        let mut out = Vec::new();
        for v in &args.variants {
            let (name, settings) = v
                .split_once('=')
                .context("--variant takes NAME=SETTINGS (settings as JSON)")?;
            let patch: Value = serde_json::from_str(settings)
                .with_context(|| format!("--variant {name}: the settings are not JSON"))?;
            let mut merged = base.clone();
            if let (Some(m), Value::Object(p)) = (merged.as_object_mut(), patch) {
                for (k, x) in p {
                    m.insert(k, x);
                }
            } else {
                anyhow::bail!("--variant {name}: the settings must be a JSON object");
            }
            out.push(json!({"name": name, "settings": merged, "pairing_model": pairing_model}));
        }
        out
    };
    Spec::from_value(json!({
        "field": field, "strength_sd": args.strength_sd, "variants": variants,
        "model": model, "runs": args.runs, "seed": args.seed,
    }))
    .map_err(anyhow::Error::msg)
}

/// Writes `text` to `path`, or to standard output for '-'.
fn write_out(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    if path.as_os_str() == "-" {
        use std::io::Write as _;
        std::io::stdout().write_all(text.as_bytes())?;
        Ok(())
    } else {
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    }
}

/// The progress line: a bar on a terminal (rewritten in place), else a plain line per tenth.
struct Progress {
    terminal: bool,
    total: u64,
    start: std::time::Instant,
    last_tenth: u64,
}

impl Progress {
    fn show(&mut self, done: u64) {
        use std::io::Write as _;
        let secs = self.start.elapsed().as_secs_f64();
        let share = done as f64 / self.total.max(1) as f64;
        let eta = if done > 0 {
            format!("{:.0} s left", secs / share - secs)
        } else {
            String::new()
        };
        if self.terminal {
            const WIDTH: usize = 30;
            let filled = ((share * WIDTH as f64) as usize).min(WIDTH);
            eprint!(
                "\r[{}{}] {:>3.0}% {done}/{} runs {secs:.1} s {eta}   ",
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                share * 100.0,
                self.total
            );
            let _ = std::io::stderr().flush();
        } else {
            let tenth = done * 10 / self.total.max(1);
            if tenth > self.last_tenth {
                self.last_tenth = tenth;
                eprintln!(
                    "simulate: {done}/{} runs ({:.0}%), {secs:.1} s",
                    self.total,
                    share * 100.0
                );
            }
        }
    }
}

fn simulate(args: &SimulateArgs) -> anyhow::Result<()> {
    use goswiss::simulation::{self, Control, Free, Limits, chart};
    // The flags' sources (given or defaulted) decide what overrides a spec file.
    let matches = Cli::command().get_matches();
    let sub = matches
        .subcommand_matches("simulate")
        .context("simulate's arguments")?;
    let spec = simulation_spec(args, sub)?;
    let prepared = spec
        .prepare(&Limits::default())
        .map_err(anyhow::Error::msg)?;
    if let Some(run) = args.show_run {
        let mut out = Vec::new();
        for (k, v) in prepared.variants.iter().enumerate() {
            let (seed, field, played) = simulation::replay_run(&prepared, k, run)
                .with_context(|| format!("the simulation has no run {run}"))??;
            let d = &played.tournament.data;
            out.push(serde_json::json!({
                "variant": v.name, "run": run, "seed": seed, "settings": d.settings,
                "players": d.players.iter().zip(&field.strength).map(|(p, s)| serde_json::json!({
                    "id": p.id, "name": p.name, "first_name": p.first_name,
                    "rank": goswiss::tournament::model::format_rank(p.rank), "rating": p.rating,
                    "club": p.club, "country": p.country, "strength": s,
                })).collect::<Vec<_>>(),
                "rounds": d.rounds.iter().map(|r| serde_json::json!({
                    "games": r.games.iter().map(|g| serde_json::json!({
                        "table": g.table, "white": g.white, "black": g.black,
                        "handicap": g.handicap, "komi2": g.komi2,
                        "result": goswiss::tournament::engine::result_code(g.outcome, g.forfeit),
                    })).collect::<Vec<_>>(),
                    "byes": r.byes,
                })).collect::<Vec<_>>(),
                "standings": played.standings.rows.iter().map(|r| serde_json::json!({
                    "place": r.place, "id": r.id, "values": r.values,
                })).collect::<Vec<_>>(),
            }));
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let control = Control::default();
    let mut progress = Progress {
        terminal: std::io::stderr().is_terminal(),
        total: prepared.runs,
        start: std::time::Instant::now(),
        last_tenth: 0,
    };
    let cpu = cpu_time::ProcessTime::now();
    let report = std::thread::scope(|s| -> anyhow::Result<_> {
        let job = s.spawn(|| simulation::run(&prepared, threads, &control, &Free));
        while !job.is_finished() {
            progress.show(control.done());
            std::thread::sleep(std::time::Duration::from_millis(if progress.terminal {
                100
            } else {
                250
            }));
        }
        progress.show(control.done());
        if progress.terminal {
            eprintln!();
        }
        job.join()
            .map_err(|_| anyhow::anyhow!("the simulation panicked"))?
            .map_err(anyhow::Error::from)
    })?;
    eprintln!(
        "{} tournaments ({} runs × {} variants) in {:.1} s, {:.1} CPU s on {threads} threads",
        report.runs * report.variants.len() as u64,
        report.runs,
        report.variants.len(),
        progress.start.elapsed().as_secs_f64(),
        cpu.elapsed().as_secs_f64()
    );
    let mut stdout_taken = false;
    if let Some(path) = &args.json {
        write_out(path, &(serde_json::to_string_pretty(&report)? + "\n"))?;
        stdout_taken |= path.as_os_str() == "-";
    }
    if let Some(path) = &args.csv {
        write_out(path, &report.csv())?;
        stdout_taken |= path.as_os_str() == "-";
    }
    if let Some(dir) = &args.svg {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, svg) in chart::all(&report) {
            let path = dir.join(name);
            std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        }
        eprintln!("charts written to {}", dir.display());
    }
    if !stdout_taken {
        print!("{}", report.table());
    }
    Ok(())
}
