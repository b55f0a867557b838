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
    #[serde(deserialize_with = "flag")]
    pub json_logs: bool,
    /// Largest request body accepted, in bytes, on both protocols.
    pub max_body_bytes: u32,
    /// Most connections at once, WebSocket sessions included (the daemon stops accepting until
    /// one closes); jsonrpsee also caps its sessions and in-flight calls at it.
    pub max_connections: u32,
    /// Seconds a connection may take to send a complete request head — a new connection, or a
    /// keep-alive one between requests — before it is closed (slow or idle clients cannot
    /// hold connections for ever).
    pub header_timeout_secs: u64,
    /// Seconds a request body may take to arrive once its head is complete (slow-body
    /// clients are answered 408 and closed).
    pub body_timeout_secs: u64,
    /// Seconds a client may go without reading any of a reply (or a WebSocket message) before
    /// its connection is closed.
    pub write_timeout_secs: u64,
    /// Bytes per second a client must read a reply at, averaged over `min_read_window_secs`
    /// of the daemon waiting on it (a reply that fits the socket buffers is never measured);
    /// a slower reader's connection is closed and its reply freed. 0: no minimum.
    pub min_read_bytes_per_sec: u64,
    /// Seconds of waiting on a client's reads over which `min_read_bytes_per_sec` is averaged.
    pub min_read_window_secs: u64,
    /// Largest reply to one request, in bytes (a JSON-RPC batch's reply as a whole): a bigger
    /// answer is error -32013 naming the limit instead, and its writing stops there. 0: no
    /// limit.
    pub max_reply_bytes: u64,
    /// Most connections still sending a request (its head, including idle keep-alive
    /// connections waiting for their next one, or its body); past it, the one that has been
    /// at it longest is closed once it has been at it for 2 s (a burst of ordinary clients
    /// passes it for a moment). 0: three quarters of `max_connections`.
    pub max_reading_connections: u32,
    /// Most open connections (WebSocket sessions included) from one client address; 0: no
    /// limit beyond `max_connections`.
    pub max_connections_per_ip: u32,
    /// Seconds between WebSocket pings; a session that answers none for two intervals is
    /// closed. 0: no pings.
    pub ws_ping_secs: u64,
    /// Host names the daemon answers to (the `Host` header; DNS-rebinding protection). Empty:
    /// loopback names only when listening on loopback, any name otherwise. `*`: any.
    #[serde(deserialize_with = "list")]
    pub allowed_hosts: Vec<String>,
    /// Web origins (`https://host[:port]`) besides the daemon's own whose pages may call it
    /// (they also get CORS headers). Empty: only the daemon's own pages. `*`: any.
    #[serde(deserialize_with = "list")]
    pub allowed_origins: Vec<String>,
    /// The operator's token: every call is allowed with it. Setting it turns auth on.
    pub admin_token: Secret,
    /// Auth on without an admin token: `tournament.*` writes need the tournament's director
    /// token. On whenever `admin_token` is set.
    #[serde(deserialize_with = "flag")]
    pub auth: bool,
    /// With auth on, `matchmaker.*` writes need the admin token too (off: rswiss clients, which
    /// send no token, keep working).
    #[serde(deserialize_with = "flag")]
    pub matchmaker_auth: bool,
    /// Most tournaments (both kinds) that callers holding the admin token may have created and
    /// not deleted, with auth on; 0: no limit.
    pub max_tournaments_per_token: u32,
    /// Most tournaments (both kinds) that callers without the admin token may have created and
    /// not deleted from one network prefix (`quota_ipv4_prefix`, `quota_ipv6_prefix`), with
    /// auth on and `open_creation`; 0: no limit. Counted in the database, so a restart keeps
    /// the counts. With auth off nothing limits creations.
    pub max_tournaments_per_address: u32,
    /// With auth on, callers without the admin token may create tournaments (each within its
    /// network prefix's quota, and getting the new tournament's director token); off, creating
    /// (`tournament.create`, `tournament.import`, `matchmaker.create_tournament`) needs the
    /// admin token. Starting a simulation (`simulate.start`) follows the same rule.
    #[serde(deserialize_with = "flag")]
    pub open_creation: bool,
    /// Leading bits of an IPv4 client address that name its network for the creation quota:
    /// every address of one /24 counts together by default (at most 32).
    pub quota_ipv4_prefix: u8,
    /// The same for IPv6 addresses: one /64 by default, what a single host or home is
    /// usually given (at most 128).
    pub quota_ipv6_prefix: u8,
    /// Milliseconds a call's heavy work (pairing, parsing, scoring, and in `tournament.*` /
    /// `matchmaker.*` a round's pairing, standings, imports and exports) may take before it is
    /// stopped and answered -32012; 0: no limit. The work also stops when its client closes
    /// the connection. A `system.multicall` has one budget for all its calls.
    pub request_budget_ms: u64,
    /// Most players one `matchmaker.create_tournament` may enter (the first checkout pairs
    /// them all at once, within `request_budget_ms`); more is refused with fault 2.
    pub max_matchmaker_players: u32,
    /// Most heavy calls (the blocking-pool work of pairing, parsing, scoring, imports,
    /// standings; a multicall's inline calls; big tournaments' pairings) computing at once;
    /// more wait their turn, within their time budget. Each can hold hundreds of megabytes at
    /// its caps, so this bounds the daemon's memory too. 0: the number of CPUs.
    pub max_heavy_calls: u32,
    /// Turns at heavy work kept for calls made with the admin token or a tournament's director
    /// token (its writes), on top of `max_heavy_calls`, so that anonymous heavy calls cannot
    /// keep directors waiting. Auth off: not used (nobody is told apart). 0: none.
    pub director_heavy_calls: u32,
    /// PostgreSQL only: microseconds the writer waits for more writes before it commits a
    /// batch, when the previous batch held more than one (other calls are writing at the
    /// same time; a lone caller never waits). Fewer, larger transactions when several daemons
    /// share a database. 0: commit at once.
    pub pg_commit_linger_us: u64,
    /// Threads serving calls (the async workers; heavy work has a pool of its own). 0: one per
    /// CPU the daemon may use. Fewer when several daemons share one machine: each thread that
    /// runs out of work sleeps and is woken again, and with more threads than their share of
    /// the CPUs the daemons spend that much more switching between them.
    pub worker_threads: u32,
    /// Most `simulate.*` simulations running at once; `simulate.start` past it is refused
    /// (1102). 0: simulations are off.
    pub max_simulations: u32,
    /// Most players in one simulated tournament (`simulate.start` past it: 1103).
    pub max_simulation_players: u32,
    /// Most tournaments (runs × variants) one simulation may play (past it: 1103).
    pub max_simulation_tournaments: u64,
    /// Seconds a simulation may run; then it stops and reports the runs done. 0: no limit.
    pub simulation_budget_secs: u64,
    /// Seconds a running simulation may go without a client asking about it (`simulate.get`,
    /// a `simulate.subscribe`) before it is stopped: its client went away. 0: never.
    pub simulation_idle_secs: u64,
    /// Most `tournament.subscribe` subscriptions one WebSocket session may hold open; more are
    /// refused with -32006 naming this setting. 0: no limit.
    pub max_subscriptions_per_connection: u32,
    /// Most `tournament.subscribe` subscriptions open at once from one client address, over all
    /// its sessions; more are refused with -32006 naming this setting. 0: no limit.
    pub max_subscriptions_per_address: u32,
    /// Most bytes one tournament's log (of either kind) may hold, counting its stored events'
    /// bodies (game records included); a write that would pass it is refused (tournament.*:
    /// 1038; matchmaker.*: fault 2) and nothing is recorded. 0: no limit.
    pub max_tournament_bytes: u64,
}

/// A secret setting: never shown by `Debug` (so never in a log line), compared only through
/// hashes.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl Secret {
    pub fn is_set(&self) -> bool {
        !self.0.is_empty()
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_set() { "<set>" } else { "<unset>" })
    }
}

impl Config {
    /// `max_heavy_calls` as a count: the CPUs when 0.
    pub fn heavy_calls(&self) -> usize {
        match self.max_heavy_calls {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n as usize,
        }
    }

    /// `max_reply_bytes` as a limit; `None` when there is none.
    pub fn reply_limit(&self) -> Option<usize> {
        (self.max_reply_bytes > 0)
            .then(|| usize::try_from(self.max_reply_bytes).unwrap_or(usize::MAX))
    }

    /// `max_reading_connections` for a daemon of `max_connections` connections: three
    /// quarters of them when 0, never more than all of them.
    pub fn reading_connections(&self, max_connections: u32) -> u32 {
        match self.max_reading_connections {
            0 => max_connections - max_connections / 4,
            n => n.min(max_connections),
        }
        .max(1)
    }

    /// `worker_threads` as a count: the CPUs when 0.
    pub fn worker_threads(&self) -> usize {
        match self.worker_threads {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n as usize,
        }
    }
}

/// The most `worker_threads` a daemon takes: more is surely a mistake (a thread costs its
/// stack), and is refused at start.
pub const MAX_WORKER_THREADS: u32 = 1024;

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
            body_timeout_secs: 30,
            write_timeout_secs: 30,
            min_read_bytes_per_sec: 32 * 1024,
            min_read_window_secs: 10,
            max_reply_bytes: 64 * 1024 * 1024,
            max_reading_connections: 0,
            max_connections_per_ip: 1024,
            ws_ping_secs: 30,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            admin_token: Secret::default(),
            auth: false,
            matchmaker_auth: false,
            max_tournaments_per_token: 0,
            max_tournaments_per_address: 1000,
            open_creation: false,
            quota_ipv4_prefix: 24,
            quota_ipv6_prefix: 64,
            request_budget_ms: 10_000,
            max_matchmaker_players: 10_000,
            max_heavy_calls: 0,
            director_heavy_calls: 1,
            pg_commit_linger_us: 500,
            worker_threads: 0,
            max_simulations: 2,
            max_simulation_players: 1000,
            max_simulation_tournaments: 100_000,
            simulation_budget_secs: 600,
            simulation_idle_secs: 60,
            max_subscriptions_per_connection: 100,
            max_subscriptions_per_address: 1000,
            max_tournament_bytes: 64 * 1024 * 1024,
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

/// Every setting's name, as in the file and (upper-cased, `GOSWISS_`-prefixed) in the
/// environment, with one line for `--help`.
pub const SETTINGS: &[(&str, &str)] = &[
    ("listen", "address to listen on (127.0.0.1:9090)"),
    (
        "db",
        "SQLite file (goswiss.db, or sqlite:PATH) or postgres://user[:password]@host[:port]/db (several daemons may share one)",
    ),
    (
        "log_level",
        "log level or tracing filter (info); RUST_LOG, when set, replaces it",
    ),
    (
        "json_logs",
        "one JSON object per log line: true/false, 1/0, yes/no, on/off",
    ),
    ("max_body_bytes", "largest request body in bytes (4194304)"),
    ("max_connections", "most open connections (10000)"),
    (
        "header_timeout_secs",
        "seconds a connection may take to send a request head (30)",
    ),
    (
        "body_timeout_secs",
        "seconds a request body may take after its head (30)",
    ),
    (
        "write_timeout_secs",
        "seconds a client may read nothing of a reply (30)",
    ),
    (
        "min_read_bytes_per_sec",
        "bytes/s a client must read a big reply at, or be cut off (32768; 0 off)",
    ),
    (
        "min_read_window_secs",
        "seconds of waiting on a reader that min_read_bytes_per_sec is averaged over (10)",
    ),
    (
        "max_reply_bytes",
        "largest reply to one request in bytes (67108864; 0 no limit); more is -32013",
    ),
    (
        "max_reading_connections",
        "connections still sending a request; past it the oldest is closed (0: 3/4 of max_connections)",
    ),
    (
        "max_connections_per_ip",
        "most connections from one address (1024; 0 no limit)",
    ),
    (
        "ws_ping_secs",
        "seconds between WebSocket pings (30; 0 off)",
    ),
    (
        "allowed_hosts",
        "Host names answered, comma-separated (loopback names when on loopback; * any)",
    ),
    (
        "allowed_origins",
        "web origins allowed to call, comma-separated (only the daemon's own; * any)",
    ),
    (
        "admin_token",
        "operator's token, allowed every call; setting it turns auth on (unset)",
    ),
    (
        "auth",
        "tournament.* writes need the director's or admin token (false; on with admin_token)",
    ),
    (
        "matchmaker_auth",
        "with auth on, matchmaker.* writes need the admin token (false)",
    ),
    (
        "max_tournaments_per_token",
        "with auth on, tournaments the admin token may have created and not deleted (0 no limit)",
    ),
    (
        "max_tournaments_per_address",
        "with auth on, tournaments callers without it may have from one network prefix (1000; 0 no limit)",
    ),
    (
        "open_creation",
        "with auth on, callers without the admin token may create tournaments (false)",
    ),
    (
        "quota_ipv4_prefix",
        "leading bits of an IPv4 address counted together for the quota (24)",
    ),
    (
        "quota_ipv6_prefix",
        "leading bits of an IPv6 address counted together for the quota (64)",
    ),
    (
        "request_budget_ms",
        "milliseconds a heavy call may run before it is answered -32012 (10000; 0 no limit)",
    ),
    (
        "max_matchmaker_players",
        "most players per matchmaker.create_tournament (10000); more is fault 2",
    ),
    (
        "max_heavy_calls",
        "heavy calls computing at once; more wait, within their budget (0: the CPUs)",
    ),
    (
        "director_heavy_calls",
        "with auth on, heavy turns kept for admin and director calls, beyond max_heavy_calls (1)",
    ),
    (
        "pg_commit_linger_us",
        "PostgreSQL: µs the writer waits for more writes while others are writing (500; 0 off)",
    ),
    (
        "worker_threads",
        "threads serving calls (0: one per CPU; at most 1024)",
    ),
    (
        "max_simulations",
        "simulate.* simulations running at once (2; 0 off)",
    ),
    (
        "max_simulation_players",
        "most players per simulated tournament (1000)",
    ),
    (
        "max_simulation_tournaments",
        "most tournaments (runs x variants) per simulation (100000)",
    ),
    (
        "simulation_budget_secs",
        "seconds a simulation may run before it stops with the runs done (600; 0 none)",
    ),
    (
        "simulation_idle_secs",
        "seconds a running simulation may go unasked about before it stops (60; 0 never)",
    ),
    (
        "max_subscriptions_per_connection",
        "tournament.subscribe subscriptions per WebSocket session (100; 0 no limit)",
    ),
    (
        "max_subscriptions_per_address",
        "tournament.subscribe subscriptions from one address (1000; 0 no limit)",
    ),
    (
        "max_tournament_bytes",
        "bytes of stored events one tournament's log may hold (67108864; 0 no limit)",
    ),
];

/// `GOSWISS_*` variables that are read but are not settings: the config file's path, and the
/// switches CI sets to make tests of optional tools mandatory.
pub const OTHER_VARIABLES: &[(&str, &str)] = &[
    (
        "GOSWISS_CONFIG",
        "config file (config/goswiss.toml when it exists)",
    ),
    (
        "GOSWISS_REQUIRE_RUBY",
        "tests: fail instead of skipping when ruby is missing",
    ),
    (
        "GOSWISS_REQUIRE_NETWORKX",
        "tests: fail instead of skipping when networkx is missing",
    ),
    (
        "GOSWISS_REQUIRE_MOUNT",
        "tests: fail instead of skipping when a tmpfs cannot be mounted",
    ),
    (
        "GOSWISS_REQUIRE_POSTGRES",
        "tests: fail instead of skipping when initdb/pg_ctl are missing",
    ),
    (
        "GOSWISS_REQUIRE_CHROMIUM",
        "tests: fail instead of skipping when chromium/chromedriver are missing",
    ),
];

/// The environment's part of `--help`: every variable goswiss reads.
pub fn environment_help() -> String {
    let mut out = String::from(
        "Environment (each setting also in the config file; flags beat the environment, which \
         beats the file):\n",
    );
    for (key, help) in SETTINGS {
        out.push_str(&format!("  GOSWISS_{:<22} {help}\n", key.to_uppercase()));
    }
    for (name, help) in OTHER_VARIABLES {
        out.push_str(&format!("  {name:<30} {help}\n"));
    }
    out.push_str(
        "  RUST_LOG                       log filter: beats log_level, loses to --log-level\n",
    );
    out
}

/// `GOSWISS_*` variables in `vars` that goswiss does not know, each with the closest known
/// name when one is near: a misspelt setting would otherwise be ignored without a word.
pub fn unknown_variables(vars: impl IntoIterator<Item = String>) -> Vec<(String, Option<String>)> {
    let known: Vec<String> = SETTINGS
        .iter()
        .map(|(k, _)| format!("GOSWISS_{}", k.to_uppercase()))
        .chain(OTHER_VARIABLES.iter().map(|(n, _)| n.to_string()))
        .collect();
    let mut unknown: Vec<(String, Option<String>)> = vars
        .into_iter()
        .filter(|v| v.starts_with("GOSWISS_") && !known.contains(v))
        .map(|v| {
            let near = known
                .iter()
                .map(|k| (edit_distance(&v, k), k))
                .filter(|(d, _)| *d <= 3)
                .min()
                .map(|(_, k)| k.clone());
            (v, near)
        })
        .collect();
    unknown.sort();
    unknown
}

/// Levenshtein distance over bytes (variable names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A boolean setting as people write it in an environment variable or a file: true/false,
/// 1/0, yes/no, on/off (any case). figment reads `GOSWISS_JSON_LOGS=1` as the number 1, which
/// plain `bool` refuses.
fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Bool(bool),
        Int(i64),
        Text(String),
    }
    match Raw::deserialize(d)? {
        Raw::Bool(b) => Ok(b),
        Raw::Int(1) => Ok(true),
        Raw::Int(0) => Ok(false),
        Raw::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" | "" => Ok(false),
            _ => Err(serde::de::Error::custom(format!(
                "expected true/false, 1/0, yes/no or on/off, not {t:?}"
            ))),
        },
        Raw::Int(n) => Err(serde::de::Error::custom(format!(
            "expected true/false, 1/0, yes/no or on/off, not {n}"
        ))),
    }
}

/// A list setting: a TOML array, or one string of comma-separated items (the form an
/// environment variable takes).
fn list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        List(Vec<String>),
        Text(String),
    }
    Ok(match Raw::deserialize(d)? {
        Raw::List(v) => v,
        Raw::Text(t) => t
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    })
}

impl Config {
    /// Whether calls are checked for tokens.
    pub fn auth_on(&self) -> bool {
        self.auth || self.admin_token.is_set()
    }

    /// Every setting's name, as in the file and (upper-cased, prefixed) in the environment.
    pub fn keys() -> Vec<&'static str> {
        SETTINGS.iter().map(|(k, _)| *k).collect()
    }

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
            .merge(Env::prefixed("GOSWISS_").only(&Config::keys()))
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
    // figment::Jail's closure type is fixed by figment.
    #[allow(clippy::result_large_err)]
    fn boolean_settings_take_the_usual_spellings() {
        for (value, want) in [
            ("1", true),
            ("0", false),
            ("true", true),
            ("YES", true),
            ("off", false),
        ] {
            figment::Jail::expect_with(|jail| {
                jail.set_env("GOSWISS_JSON_LOGS", value);
                let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
                assert_eq!(c.json_logs, want, "GOSWISS_JSON_LOGS={value}");
                Ok(())
            });
        }
        figment::Jail::expect_with(|jail| {
            jail.set_env("GOSWISS_JSON_LOGS", "2");
            let e = Config::load(None, &Overrides::default()).unwrap_err();
            assert!(e.to_string().contains("expected true/false"), "{e}");
            Ok(())
        });
    }

    #[test]
    // figment::Jail's closure type is fixed by figment.
    #[allow(clippy::result_large_err)]
    fn lists_take_arrays_or_comma_separated_text() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("GOSWISS_ALLOWED_HOSTS", "go.example, localhost");
            jail.create_file("c.toml", "allowed_origins = [\"https://a.example\"]\n")?;
            let c = Config::load(Some(Path::new("c.toml")), &Overrides::default())
                .map_err(|e| e.to_string())?;
            assert_eq!(c.allowed_hosts, ["go.example", "localhost"]);
            assert_eq!(c.allowed_origins, ["https://a.example"]);
            Ok(())
        });
    }

    #[test]
    fn misspelt_variables_are_found_with_a_suggestion() {
        let vars = [
            "GOSWISS_DB",
            "GOSWISS_LISTN",
            "GOSWISS_CONFIG",
            "GOSWISS_ZZZZZZZZZZZZ",
            "PATH",
        ]
        .map(String::from);
        assert_eq!(
            unknown_variables(vars),
            vec![
                (
                    "GOSWISS_LISTN".to_string(),
                    Some("GOSWISS_LISTEN".to_string())
                ),
                ("GOSWISS_ZZZZZZZZZZZZ".to_string(), None),
            ]
        );
    }

    #[test]
    fn settings_table_names_every_key() {
        let help = environment_help();
        for k in Config::keys() {
            assert!(
                help.contains(&format!("GOSWISS_{}", k.to_uppercase())),
                "{k}"
            );
        }
    }

    #[test]
    fn keys_name_every_setting() {
        let v = serde_json::to_value(Config::default()).unwrap();
        let mut names: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut keys = Config::keys();
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
