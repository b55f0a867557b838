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
