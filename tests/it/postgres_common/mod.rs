//! A throw-away PostgreSQL cluster for the tests: `initdb` in a temporary directory, `pg_ctl
//! start` on a free loopback port (its unix socket in the same directory), stopped and removed
//! when the guard drops, also when a test panics.
//!
//! The binaries are looked up on PATH, then in /usr/lib/postgresql/*/bin. When they are missing
//! the test prints a loud SKIP and passes, unless GOSWISS_REQUIRE_POSTGRES is set (CI), where
//! it fails naming what it looked for. initdb refuses to run as root: as root the cluster is
//! made and run as the `postgres` user (runuser), owning the temporary directory.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Postgres {
    bin: PathBuf,
    pub dir: tempfile::TempDir,
    pub port: u16,
    as_user: Option<String>,
}

fn find_bin() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"));
    let mut debian: Vec<PathBuf> = debian.collect();
    // The newest version first.
    debian.sort();
    debian.reverse();
    on_path
        .chain(debian)
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
        // /usr/local/bin may hold links to only some of the tools: use the real directory.
        .map(|dir| {
            std::fs::canonicalize(dir.join("initdb"))
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
                .unwrap_or(dir)
        })
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe extern "C" {
        fn geteuid() -> u32;
    }
    unsafe { geteuid() == 0 }
}

impl Postgres {
    /// Starts a cluster, or `None` (after a loud SKIP) when PostgreSQL is not installed and not
    /// required.
    pub fn start() -> Option<Postgres> {
        let Some(bin) = find_bin() else {
            let what = "initdb and pg_ctl (on PATH or in /usr/lib/postgresql/*/bin)";
            if std::env::var_os("GOSWISS_REQUIRE_POSTGRES").is_some() {
                panic!("GOSWISS_REQUIRE_POSTGRES is set but {what} were not found");
            }
            eprintln!(
                "\nSKIPPED PostgreSQL test: it needs {what}; install the `postgresql` package\n"
            );
            return None;
        };
        let dir = tempfile::tempdir().expect("temporary directory");
        let as_user = is_root().then(|| "postgres".to_string());
        if let Some(user) = &as_user {
            let status = Command::new("chown")
                .arg(format!("{user}:"))
                .arg(dir.path())
                .status()
                .expect("chown");
            assert!(status.success(), "chown {} to {user}", dir.path().display());
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let pg = Postgres {
            bin,
            dir,
            port,
            as_user,
        };
        let data = pg.data();
        pg.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "goswiss",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        pg.run("pg_ctl", &pg.start_args());
        Some(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn start_args(&self) -> Vec<String> {
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c max_connections=100",
            self.port,
            self.dir.path().display()
        );
        vec![
            "start".into(),
            "-w".into(),
            "-D".into(),
            self.data().display().to_string(),
            "-l".into(),
            self.dir.path().join("log").display().to_string(),
            "-o".into(),
            options,
        ]
    }

    fn command(&self, tool: &str, args: &[impl AsRef<std::ffi::OsStr>]) -> Command {
        let exe = self.bin.join(tool);
        let mut cmd = match &self.as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        cmd.args(args).current_dir(self.dir.path());
        cmd
    }

    fn run(&self, tool: &str, args: &[impl AsRef<std::ffi::OsStr>]) {
        let out = self.command(tool, args).output().expect(tool);
        assert!(
            out.status.success(),
            "{tool} failed: {}\n{}\nserver log: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    /// A URL for a fresh database `name` of this cluster.
    pub fn database(&self, name: &str) -> String {
        let out = self
            .command(
                "createdb",
                &[
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    "goswiss",
                    name,
                ],
            )
            .output()
            .expect("createdb");
        assert!(
            out.status.success(),
            "createdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        format!("postgres://goswiss@127.0.0.1:{}/{name}", self.port)
    }

    /// Stops the server at once (as a crash would, `immediate`), then starts it again.
    pub fn restart(&self) {
        self.stop("immediate");
        self.run("pg_ctl", &self.start_args());
    }

    pub fn stop(&self, mode: &str) {
        let data = self.data().display().to_string();
        let _ = self
            .command("pg_ctl", &["stop", "-w", "-m", mode, "-D", &data])
            .output();
    }

    pub fn start_again(&self) {
        self.run("pg_ctl", &self.start_args());
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop("immediate");
    }
}
