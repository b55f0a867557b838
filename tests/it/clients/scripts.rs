//! Real XML-RPC clients against the real server: Python's stdlib `xmlrpc.client` and Ruby's
//! `xmlrpc/client` play whole tournaments and check every invariant (the scripts in
//! tests/python and tests/ruby do the checking and print "N passed, M failed").

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::Server;

async fn run(program: &str, args: &[String]) -> std::process::Output {
    let child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(Duration::from_secs(600), child)
        .await
        .unwrap_or_else(|_| panic!("{program} finished within 10 minutes"))
        .unwrap_or_else(|e| panic!("could not run {program}: {e}"))
}

fn report(out: &std::process::Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn has(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

const PLAY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/play_tournaments.py"
);

/// Runs the Python script against `url` with extra arguments; returns its stdout.
async fn python(url: String, extra: &[&str]) -> String {
    let mut args = vec![PLAY.to_string(), "--url".into(), url];
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = run("python3", &args).await;
    assert!(out.status.success(), "{}", report(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_xmlrpc_client_plays_whole_tournaments() {
    // Both allow_repeat modes, two tournaments per size, default (optimal) pairing: every
    // tournament must reach 202 — no dead-lock is accepted.
    let server = Server::start().await;
    let out = python(
        server.url("/RPC2"),
        &["--sizes", "1,2,7,16,33,64", "--tournaments", "2"],
    )
    .await;
    assert!(out.contains("24 passed, 0 failed"), "{out}");
    assert!(out.contains("deadlocked=0 "), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_in_rswiss_pairing_mode() {
    // rswiss mode dead-locks rounds exactly as rswiss does (fault 204/205); the script still
    // checks everything played up to that point.
    let server = Server::start().await;
    let out = python(
        server.url("/RPC2"),
        &[
            "--sizes",
            "7,16,33",
            "--tournaments",
            "3",
            "--pairing",
            "rswiss",
            "--allow-deadlock",
        ],
    )
    .await;
    assert!(out.contains("18 passed, 0 failed"), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_without_the_options_struct_and_on_the_root_path() {
    // A plain rswiss client: three parameters, http://host:port/.
    let server = Server::start().await;
    let out = python(
        server.url("/"),
        &["--sizes", "3,16", "--repeat", "both", "--no-seed-option"],
    )
    .await;
    assert!(out.contains("4 passed, 0 failed"), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ruby_xmlrpc_client_plays_whole_tournaments() {
    if !has("ruby") {
        // CI installs ruby and sets GOSWISS_REQUIRE_RUBY=1, so this only skips on a developer
        // machine without ruby.
        assert!(
            std::env::var_os("GOSWISS_REQUIRE_RUBY").is_none(),
            "GOSWISS_REQUIRE_RUBY is set but ruby is not installed"
        );
        // Written to the stderr handle itself, which the test harness does not capture, so the
        // developer sees that this client was not tried.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr().lock(),
            b"\nSKIPPED Ruby client test: ruby not installed (apt-get install ruby ruby-xmlrpc); \
              CI sets GOSWISS_REQUIRE_RUBY=1 and runs it\n",
        );
        return;
    }
    let server = Server::start().await;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ruby/play_tournaments.rb"
    );
    let out = run(
        "ruby",
        &[
            script.into(),
            server.url("/"),
            "1,2,7,16,33,64".into(),
            "2".into(),
        ],
    )
    .await;
    assert!(out.status.success(), "{}", report(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("24 passed, 0 failed"),
        "{}",
        report(&out)
    );
    server.stop().await;
}

/// The attack script (clients/attack/attack.py) against the release daemon binary: every
/// limit it provokes answers as documented and the daemon stays up. The quick attacks only:
/// the slow-client and budget ones take seconds each and have their own tests.
#[tokio::test]
async fn the_attack_script_finds_every_limit_in_place() {
    let script = format!("{}/clients/attack/attack.py", env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = [
        script.as_str(),
        "--quick",
        "--server",
        env!("CARGO_BIN_EXE_goswiss"),
        "--only",
        "sgf_nodes,sgf_games,tdlist_lines,pairing_players,pairing_infeasible,\
         matchmaker_players,hang_up,cross_site,echo_cap",
    ]
    .map(String::from)
    .into();
    let out = run("python3", &args).await;
    let text = report(&out);
    assert!(out.status.success(), "{text}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches(" yes ")
            .count(),
        9,
        "{text}"
    );
}
