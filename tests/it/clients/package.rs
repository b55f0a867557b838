//! What the client-package runners share (`python_client`, `typescript_client`,
//! `ruby_client`): a package's sources copied to a scratch directory, so that a build writes
//! nothing into the repository; a tool probe that says what is missing; and a command run to
//! completion within a bound, its output kept for the failure message.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// Runs a command to completion within `limit`; returns (success, stdout + stderr).
pub async fn run(cmd: &mut tokio::process::Command, limit: Duration) -> (bool, String) {
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

/// The first of `probes` (a program and its arguments) that does not run and succeed within
/// two minutes, with why: what a developer's machine may lack.
pub async fn missing(probes: &[(&str, &[&str])]) -> Option<String> {
    for (tool, args) in probes {
        let probe = tokio::process::Command::new(tool)
            .args(*args)
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

/// Copies a package's sources from `from` to `to`, leaving out hidden files and every entry
/// whose name `skip` says is build output or a cache.
pub fn copy_sources(from: &Path, to: &Path, skip: &dyn Fn(&str) -> bool) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || skip(&name) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_sources(&path, &to.join(&*name), skip);
        } else {
            std::fs::copy(&path, to.join(&*name)).expect("copy");
        }
    }
}
