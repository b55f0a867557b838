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
use std::process::Stdio;
use std::time::Duration;

use common::Server;

const PKG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python");

/// What the tests need that may be missing on a developer's machine.
async fn missing_tools() -> Option<String> {
    let probe = tokio::process::Command::new("python3")
        .args([
            "-c",
            "import pytest, mypy, websockets, setuptools, wheel, sys; \
             assert sys.version_info >= (3, 11), sys.version",
        ])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(Duration::from_secs(120), probe).await {
        Ok(Ok(out)) if out.status.success() => None,
        Ok(Ok(out)) => Some(String::from_utf8_lossy(&out.stderr).into_owned()),
        Ok(Err(e)) => Some(format!("python3: {e}")),
        Err(_) => Some("python3 did not answer within 2 minutes".into()),
    }
}

/// Runs a command to completion within `limit`; returns (success, stdout + stderr).
async fn run(cmd: &mut tokio::process::Command, limit: Duration) -> (bool, String) {
    let child = cmd
        .stdin(Stdio::null())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PIP_NO_INPUT", "1")
        .kill_on_drop(true)
        .output();
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

/// Copies the package's sources (not caches or build output), so that pip's in-tree build
/// writes nothing into the repository.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read clients/python") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.')
            || name == "__pycache__"
            || name == "build"
            || name.ends_with(".egg-info")
        {
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
    copy_sources(Path::new(PKG), &src);

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
