//! The `goswiss` command: parses flags, loads the config, starts logging and runs the library.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use goswiss::config::{Config, EXAMPLE, Overrides};
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
}

#[derive(Args)]
struct Flags {
    /// Config file (default: config/goswiss.toml when it exists).
    #[arg(long, env = "GOSWISS_CONFIG")]
    config: Option<PathBuf>,
    /// Address to listen on, e.g. 127.0.0.1:9090.
    #[arg(long)]
    listen: Option<String>,
    /// SQLite database file.
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

fn init_tracing(config: &Config) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&config.log_level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
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

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::PrintConfig { flags, example } => {
            if example {
                print!("{EXAMPLE}");
            } else {
                print!("{}", toml_of(&flags.load()?)?);
            }
            Ok(())
        }
        Command::Serve(flags) => {
            let config = flags.load()?;
            init_tracing(&config);
            let runtime = tokio::runtime::Runtime::new().context("starting the runtime")?;
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
