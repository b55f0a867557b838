//! The typed Python package (`clients/python`, module `goswiss`) against the real server:
//! pip installs a copy of it offline (no index, no build isolation) into a temporary
//! directory, pytest runs its tests with that install on `PYTHONPATH` (both protocols, errors
//! per code, the asyncio client's pipelining, subscriptions and catch-up across cut
//! connections, the README's Clients example, the generated types against this daemon's
//! `rpc.discover`), and mypy `--strict` checks the package, its examples, tools and tests.
//!
//! Without python3, pytest, mypy, websockets, setuptools or wheel the test says so and passes,
//! unless `GOSWISS_REQUIRE_PYCLIENT` is set (`.ci/run` sets it after installing them).

use crate::common;

use std::path::Path;
use std::time::Duration;

use super::package;
use common::Server;

const PKG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python");

/// What the tests need that may be missing on a developer's machine.
async fn missing_tools() -> Option<String> {
    package::missing(&[(
        "python3",
        &[
            "-c",
            "import pytest, mypy, websockets, setuptools, wheel, sys; \
             assert sys.version_info >= (3, 11), sys.version",
        ],
    )])
    .await
}

/// Runs a command to completion within `limit`, pip and Python quiet and writing no bytecode
/// into the copy.
async fn run(cmd: &mut tokio::process::Command, limit: Duration) -> (bool, String) {
    package::run(
        cmd.env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env("PIP_NO_INPUT", "1"),
        limit,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_package_installs_and_passes_pytest_and_mypy_strict() {
    if let Some(why) = missing_tools().await {
        assert!(
            std::env::var_os("GOSWISS_REQUIRE_PYCLIENT").is_none(),
            "GOSWISS_REQUIRE_PYCLIENT is set but the Python client's tools are missing: {why}"
        );
        eprintln!(
            "SKIPPED python_client: needs python3 >= 3.11 with pytest, mypy, websockets and \
             setuptools and wheel (pip install pytest mypy websockets setuptools wheel): {why}"
        );
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("src");
    let site = tmp.path().join("site");
    // Not caches or build output, so that pip's in-tree build writes nothing into the repository.
    package::copy_sources(Path::new(PKG), &src, &|n| {
        n == "__pycache__" || n == "build" || n.ends_with(".egg-info")
    });

    // Offline: no index, the build backend from the machine (setuptools).
    let (ok, out) = run(
        tokio::process::Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--no-index"])
            .args(["--no-build-isolation", "--no-deps", "--target"])
            .arg(&site)
            .arg(&src)
            .current_dir(tmp.path()),
        Duration::from_secs(300),
    )
    .await;
    assert!(ok, "pip install ./clients/python failed:\n{out}");
    assert!(site.join("goswiss/py.typed").exists(), "py.typed installed");
    assert!(
        !site.join("tests").exists() && !site.join("goswiss_client.py").exists(),
        "only the package is installed"
    );

    let server = Server::start().await;
    let url = server.url("/");
    let (ok, out) = run(
        tokio::process::Command::new("python3")
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
            .arg(Path::new(PKG).join("tests"))
            .env("PYTHONPATH", &site)
            .env("GOSWISS_URL", &url)
            .env("GOSWISS_PACKAGE_DIR", &site)
            .current_dir(tmp.path()),
        Duration::from_secs(600),
    )
    .await;
    assert!(ok, "pytest failed:\n{out}");
    assert!(
        !out.contains("skipped") && out.contains(" passed"),
        "every Python test ran:\n{out}"
    );
    eprintln!("{out}");
    server.stop().await;

    let (ok, out) = run(
        tokio::process::Command::new("python3")
            .args(["-m", "mypy", "--strict", "--cache-dir"])
            .arg(tmp.path().join("mypy-cache"))
            .args(["goswiss", "examples", "tools", "tests", "bench"])
            .current_dir(PKG),
        Duration::from_secs(600),
    )
    .await;
    assert!(ok, "mypy --strict failed:\n{out}");
    assert!(out.contains("Success: no issues found"), "{out}");
}
