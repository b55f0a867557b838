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
use std::time::Duration;

use super::package::{self, run};
use common::Server;
use goswiss::config::Config;

const PKG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/typescript");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");

/// What the test needs that may be missing on a developer's machine.
async fn missing_tools() -> Option<String> {
    package::missing(&[("node", &["--version"]), ("tsc", &["--version"])]).await
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
    package::copy_sources(Path::new(PKG), &pkg, &|n| {
        n == "dist" || n == "node_modules"
    });

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
