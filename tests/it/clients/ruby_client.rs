//! The Ruby gem (`clients/ruby`, gem `goswiss`) against the real server: its sources are
//! copied to a temporary directory (nothing is written into the repository), `gem build`
//! packs them offline and `gem install --local` installs the gem into that directory, and
//! minitest runs the package's tests with the installed gem on the load path against two
//! daemons on 127.0.0.1:0, one with auth off and one with auth on (`open_creation`): both
//! protocols, errors per code with code, message and data, the director token, live events
//! by polling, the generated methods against this daemon's `rpc.discover`
//! (`tools/gen_methods.rb --check`), and the README's Ruby example run as printed.
//!
//! Without ruby (with the xmlrpc and minitest gems) or gem the test says so and passes,
//! unless `GOSWISS_REQUIRE_RUBYCLIENT` is set (`.ci/run` sets it after installing Debian's
//! ruby and ruby-xmlrpc).

use crate::common;

use std::path::Path;
use std::time::Duration;

use super::package::{self, run};
use common::Server;
use goswiss::config::Config;

const PKG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/ruby");
const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// What the test needs that may be missing on a developer's machine.
async fn missing_tools() -> Option<String> {
    package::missing(&[
        (
            "ruby",
            &[
                "-e",
                "require 'xmlrpc/client'; require 'minitest'; require 'json'; \
                 exit(RUBY_VERSION >= '3.0' ? 0 : 1)",
            ],
        ),
        ("gem", &["--version"]),
    ])
    .await
}

/// A count from minitest's summary line (`21 runs, 140 assertions, 0 failures, 0 errors, 0 skips`).
fn summary(out: &str, key: &str) -> Option<u64> {
    let line = out
        .lines()
        .rfind(|l| l.contains(" runs, ") && l.contains(" assertions, "))?;
    line.split(", ")
        .filter_map(|part| part.trim().split_once(' '))
        .find(|(_, k)| *k == key)
        .and_then(|(n, _)| n.parse().ok())
}

/// How many tests the package defines: `def test_` and the per-protocol `define_method`s,
/// counted in the sources so that a test file minitest did not load is noticed.
fn defined_tests(dir: &Path) -> u64 {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("test dir") {
        let path = entry.expect("entry").path();
        if !path.to_string_lossy().ends_with("_test.rb") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read test");
        for line in text.lines().map(str::trim) {
            if line.starts_with("def test_") {
                n += 1;
            } else if line.starts_with("define_method(\"test_") {
                n += 2; // inside `%i[jsonrpc xmlrpc].each`
            }
        }
    }
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ruby_gem_builds_installs_and_passes_minitest() {
    if let Some(why) = missing_tools().await {
        assert!(
            std::env::var_os("GOSWISS_REQUIRE_RUBYCLIENT").is_none(),
            "GOSWISS_REQUIRE_RUBYCLIENT is set but ruby, its xmlrpc or minitest gem, or gem is missing: {why}"
        );
        // Written to the stderr handle itself, which the test harness does not capture, so
        // the developer sees that the gem was not tried.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr().lock(),
            format!(
                "\nSKIPPED ruby_client: needs ruby (3.0+) with the xmlrpc and minitest gems \
                 (apt-get install ruby ruby-xmlrpc): {why}\n"
            )
            .as_bytes(),
        );
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("src");
    let site = tmp.path().join("site");
    package::copy_sources(Path::new(PKG), &src, &|n| n.ends_with(".gem"));

    let (ok, out) = run(
        tokio::process::Command::new("gem")
            .args(["build", "goswiss.gemspec"])
            .current_dir(&src),
        Duration::from_secs(300),
    )
    .await;
    assert!(ok, "gem build failed:\n{out}");
    let version = std::fs::read_to_string(src.join("lib/goswiss/version.rb")).expect("version.rb");
    let version = version
        .split('\'')
        .nth(1)
        .expect("VERSION = '...' in version.rb");
    let gem = src.join(format!("goswiss-{version}.gem"));
    assert!(gem.exists(), "gem build wrote {gem:?}:\n{out}");
    let (ok, out) = run(
        tokio::process::Command::new("gem")
            .args([
                "install",
                "--local",
                "--ignore-dependencies",
                "--no-document",
            ])
            .arg("--install-dir")
            .arg(&site)
            .arg(&gem)
            .current_dir(tmp.path()),
        Duration::from_secs(300),
    )
    .await;
    assert!(ok, "gem install --local failed:\n{out}");
    let installed = site.join(format!("gems/goswiss-{version}"));
    for file in [
        "lib/goswiss.rb",
        "lib/goswiss/client.rb",
        "lib/goswiss/errors.rb",
        "lib/goswiss/methods.rb",
    ] {
        assert!(installed.join(file).exists(), "the gem holds {file}");
    }
    assert!(
        !installed.join("test").exists(),
        "the gem leaves its tests out"
    );

    let server = Server::start().await;
    let auth = Server::start_with(Config {
        auth: true,
        open_creation: true,
        ..Config::default()
    })
    .await;
    let tests = src.join("test");
    let (ok, out) = run(
        tokio::process::Command::new("ruby")
            .arg("-I")
            .arg(installed.join("lib"))
            .arg("-I")
            .arg(&tests)
            .args([
                "-e",
                "Dir[File.join(ARGV.shift, '*_test.rb')].sort.each { |f| require f }",
            ])
            .arg(&tests)
            .arg("--verbose")
            .env("GOSWISS_URL", server.url("/"))
            .env("GOSWISS_AUTH_URL", auth.url("/"))
            .env("GOSWISS_PACKAGE_DIR", &installed)
            .env("GOSWISS_REPO", REPO)
            .current_dir(tmp.path()),
        Duration::from_secs(900),
    )
    .await;
    server.stop().await;
    auth.stop().await;
    assert!(ok, "minitest failed:\n{out}");
    let expected = defined_tests(&tests);
    assert!(expected >= 20, "the package's tests: {expected}");
    assert_eq!(
        summary(&out, "runs"),
        Some(expected),
        "every Ruby test ran:\n{out}"
    );
    for key in ["failures", "errors", "skips"] {
        assert_eq!(summary(&out, key), Some(0), "{key}:\n{out}");
    }
    eprintln!("{out}");
}
