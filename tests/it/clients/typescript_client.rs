//! The TypeScript package (`clients/typescript`, npm package `goswiss`) against the real
//! server: its sources are copied to a temporary directory (nothing is written into the
//! repository), `tsc -p` compiles them under `--strict` (the client, the generated types, the
//! README's example), and `node --test` runs its tests against a daemon on 127.0.0.1:0: both
//! transports, errors with code and data, pipelining, subscriptions with catch-up across cut
//! connections, the built-in WebSocket's framing, the generated types against this daemon's
//! `rpc.discover` (`gen-types.mjs --check`), the README's TypeScript example, and the
//! director token against a second daemon with auth on (a write without it is refused with
//! the typed error, with it it passes).
//!
//! Without node or tsc the test says so and passes, unless `GOSWISS_REQUIRE_TSCLIENT` is set
//! (`.ci/run` sets it after installing Debian's nodejs and node-typescript).

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::Server;
use goswiss::config::Config;

const PKG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/typescript");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");

/// Runs a command to completion within `limit`; returns (success, stdout + stderr).
async fn run(cmd: &mut tokio::process::Command, limit: Duration) -> (bool, String) {
    let child = cmd.stdin(Stdio::null()).kill_on_drop(true).output();
    let out = tokio::time::timeout(limit, child)
        .await
        .unwrap_or_else(|_| panic!("{cmd:?} did not finish within {limit:?}"))
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// What the test needs that may be missing on a developer's machine.
async fn missing_tools() -> Option<String> {
    for (tool, arg) in [("node", "--version"), ("tsc", "--version")] {
        let probe = tokio::process::Command::new(tool)
            .arg(arg)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        match tokio::time::timeout(Duration::from_secs(120), probe).await {
            Ok(Ok(out)) if out.status.success() => {}
            Ok(Ok(out)) => {
                return Some(format!("{tool}: {}", String::from_utf8_lossy(&out.stderr)));
            }
            Ok(Err(e)) => return Some(format!("{tool}: {e}")),
            Err(_) => return Some(format!("{tool} did not answer within 2 minutes")),
        }
    }
    None
}

/// Copies the package's sources (not its build output or installed modules).
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read clients/typescript") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "dist" || name == "node_modules" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_sources(&path, &to.join(&*name));
        } else {
            std::fs::copy(&path, to.join(&*name)).expect("copy");
        }
    }
}

/// A count from node's test summary (`# pass 21`).
fn summary(out: &str, key: &str) -> Option<u64> {
    out.lines()
        .filter_map(|l| l.trim().strip_prefix(&format!("# {key} ")))
        .filter_map(|v| v.trim().parse().ok())
        .next_back()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_package_compiles_strict_and_passes_node_test() {
    if let Some(why) = missing_tools().await {
        assert!(
            std::env::var_os("GOSWISS_REQUIRE_TSCLIENT").is_none(),
            "GOSWISS_REQUIRE_TSCLIENT is set but node or tsc is missing: {why}"
        );
        eprintln!(
            "SKIPPED typescript_client: needs node (18+) and tsc (apt-get install nodejs \
             node-typescript): {why}"
        );
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let pkg = tmp.path().join("goswiss");
    copy_sources(Path::new(PKG), &pkg);

    let (ok, out) = run(
        tokio::process::Command::new("tsc")
            .args(["-p", ".", "--strict"])
            .current_dir(&pkg),
        Duration::from_secs(600),
    )
    .await;
    assert!(ok, "tsc -p . --strict failed:\n{out}");
    assert!(
        pkg.join("dist/src/index.d.ts").exists(),
        "declarations emitted"
    );
    assert!(
        pkg.join("dist/examples/quickstart.js").exists(),
        "the README example compiled"
    );

    let server = Server::start().await;
    // The director token's test (test/auth.test.mjs) needs auth on; open_creation lets it
    // create without the admin token and get the new tournament's director token.
    let auth = Server::start_with(Config {
        auth: true,
        open_creation: true,
        ..Config::default()
    })
    .await;
    let mut files: Vec<String> = std::fs::read_dir(pkg.join("test"))
        .expect("test dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".test.mjs"))
        .map(|n| format!("test/{n}"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "the package's test files: {files:?}");
    let (ok, out) = run(
        tokio::process::Command::new("node")
            .arg("--test")
            .args(&files)
            .env("GOSWISS_URL", server.url("/"))
            .env("GOSWISS_AUTH_URL", auth.url("/"))
            .env("GOSWISS_README", README)
            .current_dir(&pkg),
        Duration::from_secs(900),
    )
    .await;
    server.stop().await;
    auth.stop().await;
    assert!(ok, "node --test failed:\n{out}");
    let tests = summary(&out, "tests");
    let pass = summary(&out, "pass");
    assert!(
        tests.is_some_and(|n| n >= 20) && pass == tests,
        "every TypeScript test ran and passed ({pass:?} of {tests:?}):\n{out}"
    );
    for key in ["fail", "cancelled", "skipped", "todo"] {
        assert_eq!(summary(&out, key), Some(0), "{key}:\n{out}");
    }
    eprintln!("{out}");
}
