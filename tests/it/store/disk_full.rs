//! A full disk: writes fail with a clear error and nothing acknowledged is lost, /health answers
//! 503 while they fail, and both recover by themselves when space comes back. The database sits
//! on a small tmpfs mounted for the test; where the test may not mount (not root, no tmpfs) it
//! says so on the terminal and does not run, unless GOSWISS_REQUIRE_MOUNT is set (CI).

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Server, arr, call_xml, i4, parse_fault, xml_post};
use goswiss::config::Config;

/// A tmpfs mounted on a temporary directory, unmounted on drop (also when the test panics).
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(bytes: u64) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(SmallDisk { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Fills the filesystem with one file until a write fails; returns the file.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).expect("filler");
    let chunk = vec![0u8; 4096];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.flush();
    path
}

async fn health(c: &reqwest::Client, server: &Server) -> u16 {
    c.get(server.url("/health"))
        .send()
        .await
        .expect("/health answers")
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_fails_writes_and_health_until_space_returns() {
    let disk = match SmallDisk::mount(8 << 20) {
        Ok(d) => d,
        Err(why) => {
            assert!(
                std::env::var_os("GOSWISS_REQUIRE_MOUNT").is_none(),
                "GOSWISS_REQUIRE_MOUNT is set but a tmpfs cannot be mounted: {why}"
            );
            let _ = writeln!(
                std::io::stderr().lock(),
                "\nSKIPPED disk-full test: cannot mount a tmpfs ({why}); CI runs it as root"
            );
            return;
        }
    };
    let db = disk.path().join("t.db");
    let server = Server::start_on(&db, Config::default()).await;
    let c = common::client();
    assert_eq!(health(&c, &server).await, 200);

    // Tournaments acknowledged before the disk fills must survive everything below.
    let players: Vec<String> = (1..=8).map(i4).collect();
    let create = call_xml("matchmaker.create_tournament", &[&arr(&players)]);
    let mut acknowledged = Vec::new();
    for _ in 0..5 {
        let reply = xml_post(&c, &server.url("/RPC2"), create.clone()).await;
        assert!(parse_fault(&reply).is_none(), "{reply}");
        acknowledged.push(reply);
    }

    let filler = fill(disk.path());
    // Writes now fail (SQLite may still have room in pages it holds: write until it has not).
    let mut failed = None;
    for _ in 0..2_000 {
        let reply = xml_post(&c, &server.url("/RPC2"), create.clone()).await;
        if let Some(f) = parse_fault(&reply) {
            failed = Some(f);
            break;
        }
        acknowledged.push(reply);
    }
    let (code, message) = failed.expect("writes kept succeeding on a full disk");
    assert_eq!(code, -32603, "{message}");
    assert!(message.contains("not recorded"), "{message}");
    assert_eq!(
        health(&c, &server).await,
        503,
        "/health says ok while writes fail"
    );
    // Reads still work.
    let reply = xml_post(
        &c,
        &server.url("/RPC2"),
        call_xml("matchmaker.round", &[&i4(1)]),
    )
    .await;
    assert!(parse_fault(&reply).is_none(), "{reply}");

    // Space comes back: health recovers by itself (its probe), then writes work.
    std::fs::remove_file(&filler).expect("remove filler");
    let mut recovered = false;
    // Up to 60 s (a bound only a hang reaches): the probe runs every 500 ms.
    for _ in 0..600 {
        if health(&c, &server).await == 200 {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "/health did not recover after space returned");
    let reply = xml_post(&c, &server.url("/RPC2"), create.clone()).await;
    assert!(parse_fault(&reply).is_none(), "{reply}");
    acknowledged.push(reply);
    server.stop().await;

    // Every acknowledged tournament is there after a restart.
    let server = Server::start_on(&db, Config::default()).await;
    for reply in &acknowledged {
        let id = reply
            .split("<i4>")
            .nth(1)
            .and_then(|r| r.split('<').next())
            .and_then(|r| r.parse::<i64>().ok())
            .expect("id in reply");
        let r = xml_post(
            &c,
            &server.url("/RPC2"),
            call_xml("matchmaker.round", &[&i4(id)]),
        )
        .await;
        assert!(parse_fault(&r).is_none(), "tournament {id} lost: {r}");
    }
    server.stop().await;
}
