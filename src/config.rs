//! Settings: one serde struct with its defaults in code, layered as
//! defaults < TOML file (config/goswiss.toml) < environment (`GOSWISS_*`) < command-line flags.

use std::path::Path;

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

/// The default config file, read when present (and required when named with `--config`).
pub const DEFAULT_CONFIG_PATH: &str = "config/goswiss.toml";

/// The commented example file, also printed by `goswiss print-config --example`.
pub const EXAMPLE: &str = include_str!("../config/goswiss.toml");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Address to listen on. rswiss clients call http://localhost:9090/.
    pub listen: String,
    /// SQLite database file (created when missing).
    pub db: String,
    /// Log filter: a level (error, warn, info, debug, trace) or a tracing directive list.
    pub log_level: String,
    /// One JSON object per log line instead of human-readable text.
    pub json_logs: bool,
    /// Largest request body accepted, in bytes, on both protocols.
    pub max_body_bytes: u32,
    /// Most JSON-RPC connections (WebSocket sessions plus in-flight HTTP calls) at once.
    pub max_connections: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "127.0.0.1:9090".into(),
            db: "goswiss.db".into(),
            log_level: "info".into(),
            json_logs: false,
            max_body_bytes: 4 * 1024 * 1024,
            max_connections: 10_000,
        }
    }
}

/// Flag values that override everything else; `None` leaves the lower layers alone.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Overrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_logs: Option<bool>,
}

impl Config {
    /// Loads the layers. `path` is the `--config` file (an error if missing); without it the
    /// default path is read when it exists.
    pub fn load(path: Option<&Path>, overrides: &Overrides) -> Result<Config, Box<figment::Error>> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        // `file_exact` fails on a missing file: right for an explicit --config, so the default
        // path is only added when it exists.
        let default = Path::new(DEFAULT_CONFIG_PATH);
        match path {
            Some(p) => figment = figment.merge(Toml::file_exact(p)),
            None if default.exists() => figment = figment.merge(Toml::file_exact(default)),
            None => {}
        }
        figment
            .merge(Env::prefixed("GOSWISS_").ignore(&["config"]))
            .merge(Serialized::defaults(overrides))
            .extract()
            .map_err(Box::new)
    }
}
