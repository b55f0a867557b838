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
    /// Most connections at once: open HTTP connections (the daemon stops accepting until one
    /// closes) and, separately, JSON-RPC WebSocket sessions.
    pub max_connections: u32,
    /// Seconds a connection may take to send a complete request head — a new connection, or a
    /// keep-alive one between requests — before it is closed (slow or idle clients cannot
    /// hold connections for ever).
    pub header_timeout_secs: u64,
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
            header_timeout_secs: 30,
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
    /// Every setting's name, as in the file and (upper-cased, prefixed) in the environment.
    pub const KEYS: [&'static str; 7] = [
        "listen",
        "db",
        "log_level",
        "json_logs",
        "max_body_bytes",
        "max_connections",
        "header_timeout_secs",
    ];

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
            // Only the settings' own names: other GOSWISS_* variables (GOSWISS_CONFIG, test
            // switches) are not settings and must not fail the load.
            .merge(Env::prefixed("GOSWISS_").only(&Config::KEYS))
            .merge(Serialized::defaults(overrides))
            .extract()
            .map_err(Box::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // figment::Jail's closure type is fixed by figment, large error and all.
    #[allow(clippy::result_large_err)]
    fn layers_file_then_env_then_flags() {
        figment::Jail::expect_with(|jail| {
            assert_eq!(
                Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?,
                Config::default()
            );
            jail.create_dir("config")?;
            jail.create_file(
                DEFAULT_CONFIG_PATH,
                "listen = \"127.0.0.1:7000\"\ndb = \"file.db\"\nmax_body_bytes = 4096\n",
            )?;
            let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
            assert_eq!(
                (c.listen.as_str(), c.db.as_str(), c.max_body_bytes),
                ("127.0.0.1:7000", "file.db", 4096)
            );
            jail.set_env("GOSWISS_DB", "env.db");
            jail.set_env("GOSWISS_MAX_BODY_BYTES", "2048");
            jail.set_env("GOSWISS_SOMETHING_ELSE", "1");
            let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
            assert_eq!(
                (c.listen.as_str(), c.db.as_str(), c.max_body_bytes),
                ("127.0.0.1:7000", "env.db", 2048)
            );
            let flags = Overrides {
                db: Some("flag.db".into()),
                ..Overrides::default()
            };
            let c = Config::load(None, &flags).map_err(|e| e.to_string())?;
            assert_eq!(c.db, "flag.db");
            // An explicit file must exist; unknown keys are errors, not silently ignored.
            assert!(Config::load(Some(Path::new("missing.toml")), &flags).is_err());
            jail.create_file("typo.toml", "lisen = \"x\"\n")?;
            assert!(Config::load(Some(Path::new("typo.toml")), &flags).is_err());
            Ok(())
        });
    }

    #[test]
    fn keys_name_every_setting() {
        let v = serde_json::to_value(Config::default()).unwrap();
        let mut names: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut keys = Config::KEYS.to_vec();
        names.sort();
        keys.sort();
        assert_eq!(names, keys);
    }

    #[test]
    fn the_example_file_is_the_defaults() {
        // Every line of the shipped example, uncommented, must parse to the defaults.
        let uncommented: String = EXAMPLE
            .lines()
            .filter_map(|l| l.strip_prefix('#'))
            .filter(|l| l.contains(" = ") && !l.starts_with(' '))
            .map(|l| format!("{l}\n"))
            .collect();
        let parsed: Config = Figment::from(Toml::string(&uncommented))
            .extract()
            .expect("example parses");
        assert_eq!(parsed, Config::default());
    }
}
