//! The README's curl example (the ```sh block of its Clients section), run as printed with
//! bash against the real server, once with auth off and once with auth on (`open_creation`:
//! the example creates without a token and sends the director token it got with every write),
//! so the README cannot drift from what the daemon does.
//!
//! Without bash, curl or jq the test says so and passes, unless `GOSWISS_REQUIRE_CURL` is set
//! (`.ci/run` sets it after installing Debian's curl and jq).

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::Server;
use goswiss::config::Config;

const README: &str = include_str!("../../../README.md");

/// The first ```sh block of the README's Clients section.
fn readme_example() -> &'static str {
    let section = README
        .split_once("\n## Clients\n")
        .expect("a Clients section in the README")
        .1;
    let section = section.split_once("\n## ").map_or(section, |(s, _)| s);
    let start = section
        .find("```sh\n")
        .expect("a ```sh block in the README's Clients section")
        + "```sh\n".len();
    let len = section[start..].find("```").expect("the ```sh block ends");
    &section[start..start + len]
}

fn missing_tools() -> Option<String> {
    for (tool, arg) in [
        ("bash", "--version"),
        ("curl", "--version"),
        ("jq", "--version"),
    ] {
        match std::process::Command::new(tool)
            .arg(arg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(s) if s.success() => {}
            Ok(s) => return Some(format!("{tool} --version: {s}")),
            Err(e) => return Some(format!("{tool}: {e}")),
        }
    }
    None
}

/// Runs the example against `url` under `bash -eu -o pipefail` (any failing command fails it);
/// returns its stdout.
async fn run_example(url: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("example.sh");
    std::fs::write(&script, readme_example()).expect("write the example");
    let child = tokio::process::Command::new("bash")
        .args(["-eu", "-o", "pipefail"])
        .arg(&script)
        .env("GOSWISS_URL", url)
        .env_remove("TOKEN")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), child)
        .await
        .expect("the example finishes within 5 minutes")
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the README's curl example failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// What the example prints: the refusal, four standings rows, and the tournament's events
/// from revision 2 on in order.
fn check(out: &str) {
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("error: 1021 ")),
        "the second pairing is refused with 1021:\n{out}"
    );
    let rows = lines
        .iter()
        .filter(|l| {
            let mut parts = l.splitn(3, ' ');
            parts.next().is_some_and(|p| p.parse::<u32>().is_ok())
                && parts.next().is_some()
                && parts.next().is_some_and(|v| v.starts_with('{'))
        })
        .count();
    assert_eq!(rows, 4, "four standings rows:\n{out}");
    let events: Vec<(u64, &str)> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("event "))
        .map(|l| {
            let mut parts = l.split(' ');
            let revision = parts.next().and_then(|r| r.parse().ok()).expect("revision");
            (revision, parts.next().expect("kind"))
        })
        .collect();
    let mut kinds = vec!["player_registered"; 4];
    kinds.extend(["round_paired", "result_set", "result_set"]);
    assert_eq!(
        events.iter().map(|e| e.1).collect::<Vec<_>>(),
        kinds,
        "{out}"
    );
    assert_eq!(
        events.iter().map(|e| e.0).collect::<Vec<_>>(),
        (2..9).collect::<Vec<u64>>(),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readme_curl_example_runs_as_printed() {
    assert!(
        readme_example().contains("curl "),
        "the block is the curl example"
    );
    if let Some(why) = missing_tools() {
        assert!(
            std::env::var_os("GOSWISS_REQUIRE_CURL").is_none(),
            "GOSWISS_REQUIRE_CURL is set but bash, curl or jq is missing: {why}"
        );
        let _ = std::io::Write::write_all(
            &mut std::io::stderr().lock(),
            format!(
                "\nSKIPPED readme_curl: needs bash, curl and jq (apt-get install curl jq): {why}\n"
            )
            .as_bytes(),
        );
        return;
    }
    let server = Server::start().await;
    check(&run_example(&server.url("/")).await);
    server.stop().await;

    // With auth on the writes pass only because the example sends the director token.
    let auth = Server::start_with(Config {
        auth: true,
        open_creation: true,
        ..Config::default()
    })
    .await;
    check(&run_example(&auth.url("/")).await);
    auth.stop().await;
}
