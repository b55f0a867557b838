//! Shared helpers for integration tests: the real server on 127.0.0.1:0 over a temporary
//! database, and small raw-HTTP clients.
#![allow(dead_code)]

pub mod browser;
pub mod daemon;
pub mod files;
pub mod rpc;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use goswiss::config::Config;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub struct Server {
    pub addr: SocketAddr,
    pub dir: Option<tempfile::TempDir>,
    pub db: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl Server {
    pub async fn start() -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("test.db");
        let mut s = Server::start_on(&db, Config::default()).await;
        s.dir = Some(dir);
        s
    }

    pub async fn start_with(config: Config) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("test.db");
        let mut s = Server::start_on(&db, config).await;
        s.dir = Some(dir);
        s
    }

    pub async fn start_on(db: &Path, mut config: Config) -> Server {
        config.db = db.to_string_lossy().into_owned();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(goswiss::serve(config, listener, async move {
            let _ = rx.await;
        }));
        Server {
            addr,
            dir: None,
            db: db.to_path_buf(),
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Graceful shutdown; fails the test if the server errored.
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(20), t)
                .await
                .expect("server stops within 20 s")
                .expect("server task")
                .expect("server result");
        }
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

/// POSTs an XML-RPC body and returns the reply text (HTTP 200 expected).
pub async fn xml_post(c: &reqwest::Client, url: &str, body: String) -> String {
    let r = c
        .post(url)
        .header("content-type", "text/xml")
        .body(body)
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/xml; charset=utf-8")
    );
    r.text().await.expect("body")
}

/// Builds a Ruby-style one-line method call from already-encoded `<value>` contents.
pub fn call_xml(method: &str, params: &[&str]) -> String {
    let mut s =
        format!("<?xml version=\"1.0\" ?><methodCall><methodName>{method}</methodName><params>");
    for p in params {
        s.push_str(&format!("<param><value>{p}</value></param>"));
    }
    s.push_str("</params></methodCall>\n");
    s
}

pub fn i4(v: i64) -> String {
    format!("<i4>{v}</i4>")
}

pub fn arr(items: &[String]) -> String {
    format!(
        "<array><data>{}</data></array>",
        items
            .iter()
            .map(|i| format!("<value>{i}</value>"))
            .collect::<String>()
    )
}

pub fn fault(code: i32, msg: &str) -> String {
    format!(
        "<?xml version=\"1.0\" ?><methodResponse><fault><value><struct><member><name>faultCode</name><value><i4>{code}</i4></value></member><member><name>faultString</name><value><string>{msg}</string></value></member></struct></value></fault></methodResponse>\n"
    )
}

pub fn ok(value: &str) -> String {
    format!(
        "<?xml version=\"1.0\" ?><methodResponse><params><param><value>{value}</value></param></params></methodResponse>\n"
    )
}

/// Extracts (faultCode, faultString) from a fault reply, if it is one.
pub fn parse_fault(reply: &str) -> Option<(i32, String)> {
    let code = reply
        .split("<name>faultCode</name><value><i4>")
        .nth(1)?
        .split("</i4>")
        .next()?
        .parse()
        .ok()?;
    let msg = reply
        .split("<name>faultString</name><value><string>")
        .nth(1)?
        .split("</string>")
        .next()?;
    Some((code, msg.to_string()))
}

/// Extracts the two player ids from a checkout reply.
pub fn parse_pair(reply: &str) -> Option<(i64, i64)> {
    let mut ids = reply
        .split("<i4>")
        .skip(1)
        .map(|s| s.split("</i4>").next().and_then(|v| v.parse().ok()));
    Some((ids.next()??, ids.next()??))
}

/// Scores per player from a table_by_criteria reply.
pub fn table_scores(reply: &str) -> std::collections::HashMap<i64, f64> {
    let mut out = std::collections::HashMap::new();
    for row in reply.split("<value><array><data><value><i4>").skip(1) {
        let id: i64 = row.split("</i4>").next().unwrap().parse().unwrap();
        let score: f64 = row
            .split("<double>")
            .nth(1)
            .unwrap()
            .split("</double>")
            .next()
            .unwrap()
            .parse()
            .unwrap();
        out.insert(id, score);
    }
    out
}

/// One at a time: the tests of a binary that take this run alone, as the tests that close the
/// budget gate (`goswiss::budget::Gate`, which is process-wide) and those doing budgeted work
/// beside them must.
pub async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    SERIAL.lock().await
}

/// [`serial`] for a test that is not async (and runs budgeted work in-process).
pub fn serial_blocking() -> tokio::sync::MutexGuard<'static, ()> {
    SERIAL.blocking_lock()
}

static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Waits until `done()`, looking every 10 ms, for at most 60 s (a bound only a hang reaches);
/// the test fails naming `what` if it never comes.
pub async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let limit = std::time::Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(std::time::Instant::now() < limit, "waited 60 s for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A default configuration with a per-request time budget of `ms` milliseconds.
pub fn with_budget(ms: u64) -> Config {
    Config {
        request_budget_ms: ms,
        ..Config::default()
    }
}

/// A 52×52 board of alternating black and white walls with empty gaps: `score.toggle_dead` on
/// it is tens of milliseconds of work.
pub fn big_position() -> serde_json::Value {
    let rows: Vec<String> = (0..52)
        .map(|r| {
            (0..52)
                .map(|c| match (r % 4, c % 7) {
                    (_, 6) => '.',
                    (0 | 1, _) => 'b',
                    _ => 'w',
                })
                .collect()
        })
        .collect();
    serde_json::json!({ "rows": rows })
}
