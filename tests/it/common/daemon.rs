//! The real `goswiss` binary as a child process (crash tests, start-up limits, several
//! daemons on one database): started on 127.0.0.1:0, its address read from its JSON log's
//! "listening" line, its log drained so that it never blocks on a full pipe.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A started daemon.
pub struct Daemon {
    pub child: Child,
    /// `host:port`.
    pub addr: String,
    /// The log lines it wrote before "listening", parsed.
    pub start_log: Vec<Value>,
}

/// The path of the `goswiss` binary (only the goswiss package's tests have one).
pub fn exe() -> &'static str {
    // Not `env!`: the replay package's tests share this module and have no such binary.
    match option_env!("CARGO_BIN_EXE_goswiss") {
        Some(exe) => exe,
        None => panic!("the goswiss binary is built only for the goswiss package's tests"),
    }
}

/// `goswiss serve` on 127.0.0.1:0 over `db`, with JSON logs; add arguments and environment
/// before passing it to [`spawn`].
pub fn serve(db: impl AsRef<Path>) -> Command {
    let mut cmd = Command::new(exe());
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--json-logs", "--db"])
        .arg(db.as_ref());
    cmd
}

/// Starts `cmd` (a [`serve`] command, or a shell that execs one) and waits for it to listen.
pub async fn spawn(cmd: Command) -> Daemon {
    spawn_watching(cmd, |_| {}).await
}

/// [`spawn`], handing `watch` every log line written after "listening".
pub async fn spawn_watching(
    mut cmd: Command,
    mut watch: impl FnMut(&str) + Send + 'static,
) -> Daemon {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start goswiss");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut start_log = Vec::new();
    // A bound only a hang reaches: the daemon starts in well under a second.
    let addr = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            let v: Value = serde_json::from_str(&line).unwrap_or_default();
            if v["fields"]["message"] == "listening" {
                return v["fields"]["addr"].as_str().map(str::to_string);
            }
            start_log.push(v);
        }
        None
    })
    .await
    .expect("the daemon listens within 60 s")
    .expect("a listening line in the daemon's log");
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            watch(&line);
        }
    });
    Daemon {
        child,
        addr,
        start_log,
    }
}
