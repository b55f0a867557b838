//! Headless Chromium driven through chromedriver's W3C WebDriver HTTP API (plain JSON over
//! loopback with reqwest: no browser-automation crate). Debian's `chromium` and
//! `chromium-driver` provide both programs; `.ci/run` installs them and sets
//! `GOSWISS_REQUIRE_CHROMIUM=1`, without which a missing browser is a loud skip.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    c: reqwest::Client,
}

fn find(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    l.local_addr().expect("addr").port()
}

/// Starts chromedriver on a free port and waits until it says it is ready. The port is free
/// when chosen but another process (a test's server binding port 0) may take it before
/// chromedriver binds it; chromedriver then exits or says so, and it is started again on
/// another port (5 tries). Its output goes to a file that the failure message quotes.
async fn start_driver(driver: &std::path::Path, c: &reqwest::Client) -> (Child, String) {
    let log = std::env::temp_dir().join(format!("goswiss-chromedriver-{}.log", std::process::id()));
    let mut last = String::new();
    for _ in 0..5 {
        let port = free_port();
        let out = std::fs::File::create(&log).expect("chromedriver log file");
        let err = out.try_clone().expect("chromedriver log file");
        let mut child = Command::new(driver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            // Its own process group, which Chromium joins: a test that panics before
            // `close` still takes the browser down with the driver (see `Drop`).
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", driver.display()));
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                last = format!(
                    "chromedriver on port {port} exited ({status}): {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
                break;
            }
            // When the IPv4 port was taken but IPv6's was free, chromedriver keeps running on
            // ::1 only, and 127.0.0.1:port is someone else's: start again elsewhere.
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            if said.contains("bind() failed") || said.contains("Address already in use") {
                let _ = child.kill().await;
                last = format!("chromedriver could not bind port {port}: {said}");
                break;
            }
            let ready = c.get(format!("{base}/status")).send().await;
            if let Ok(r) = ready
                && let Ok(v) = r.json::<Value>().await
                && v["value"]["ready"] == true
            {
                return (child, base);
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "chromedriver did not start on port {port}: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    panic!("chromedriver did not start in 5 tries; the last: {last}");
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session, or `None` (after a loud SKIP
    /// line) when they are not installed and CI does not require them.
    pub async fn start(test: &str) -> Option<Browser> {
        let driver = find("GOSWISS_CHROMEDRIVER", &["chromedriver"]);
        let chrome = find(
            "GOSWISS_CHROMIUM",
            &["chromium", "chromium-browser", "google-chrome"],
        );
        let (Some(driver), Some(chrome)) = (driver, chrome) else {
            if std::env::var("GOSWISS_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1") {
                panic!(
                    "GOSWISS_REQUIRE_CHROMIUM=1 but chromium or chromedriver is not installed \
                     (apt-get install chromium chromium-driver)"
                );
            }
            eprintln!(
                "\nSKIPPED {test}: chromium and chromedriver not found \
                 (apt-get install chromium chromium-driver) ***\n"
            );
            return None;
        };
        let c = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .expect("client");
        let (child, base) = start_driver(&driver, &c).await;
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chrome.to_string_lossy(),
                // As root (CI) Chromium needs --no-sandbox; nothing here needs a GPU or fonts.
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,900",
                         "--no-first-run", "--no-default-browser-check"]
            }
        }}});
        let r: Value = c
            .post(format!("{base}/session"))
            .json(&caps)
            .send()
            .await
            .expect("new session")
            .json()
            .await
            .expect("session reply");
        let session = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {r}"))
            .to_string();
        Some(Browser {
            driver: child,
            base,
            session,
            c,
        })
    }

    async fn cmd(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        match self.try_cmd(method, path, body).await {
            Ok(v) => v,
            Err(e) => panic!("webdriver {path}: {e}"),
        }
    }

    /// One WebDriver command; a WebDriver error (not a transport failure) comes back as
    /// `Err` with its `{error, message}` object so the caller can decide.
    async fn try_cmd(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, Value> {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut req = self.c.request(method, &url);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let v: Value = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"))
            .json()
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        if v["value"].get("error").is_some() {
            return Err(v["value"].clone());
        }
        Ok(v["value"].clone())
    }

    /// Finds `css` and runs `act` on the element; when the page replaced the element between
    /// the find and the act (a live fragment re-rendered: WebDriver's "stale element
    /// reference"), finds it again and retries, as a person would click the row they now
    /// see. Bounded: 100 tries.
    async fn on_element(&self, css: &str, act: &[(&str, Value)]) {
        for attempt in 0.. {
            let e = self.find(css).await;
            let mut stale = None;
            for (verb, body) in act {
                let path = format!("/element/{e}/{verb}");
                match self
                    .try_cmd(reqwest::Method::POST, &path, Some(body.clone()))
                    .await
                {
                    Ok(_) => {}
                    Err(err) if err["error"] == "stale element reference" => {
                        stale = Some(err);
                        break;
                    }
                    Err(err) => panic!("webdriver {path} on {css}: {err}"),
                }
            }
            match stale {
                None => return,
                Some(err) if attempt >= 99 => panic!("{css} stayed stale: {err}"),
                Some(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
            }
        }
    }

    pub async fn goto(&self, url: &str) {
        self.cmd(reqwest::Method::POST, "/url", Some(json!({"url": url})))
            .await;
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value.
    pub async fn exec(&self, script: &str, args: Vec<Value>) -> Value {
        self.cmd(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
        .await
    }

    /// The element `css` selects (the first); fails the test when there is none.
    pub async fn find(&self, css: &str) -> String {
        let v = self
            .cmd(
                reqwest::Method::POST,
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        v["element-6066-11e4-a52e-4f735466cecf"]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    /// Clicks the element `css` selects as a user would (WebDriver's element click: it must
    /// be visible and not covered, or the test fails).
    pub async fn click(&self, css: &str) {
        self.on_element(css, &[("click", json!({}))]).await;
    }

    /// Clears the field `css` selects and types `text` into it, key by key.
    pub async fn type_into(&self, css: &str, text: &str) {
        self.on_element(
            css,
            &[("clear", json!({})), ("value", json!({"text": text}))],
        )
        .await;
    }

    /// Types `text` into the element `css` selects without clearing it first (WebDriver key
    /// codes such as `\u{E007}` Enter or `\u{E015}` ArrowDown included): keys as a user
    /// presses them in a field that already has focus or content.
    pub async fn send_keys(&self, css: &str, text: &str) {
        self.on_element(css, &[("value", json!({"text": text}))])
            .await;
    }

    /// The current window's handle.
    pub async fn window(&self) -> String {
        let v = self.cmd(reqwest::Method::GET, "/window", None).await;
        v.as_str().expect("window handle").to_string()
    }

    /// Opens a new tab (its own `sessionStorage`) and returns its handle; stays on the
    /// current one.
    pub async fn new_tab(&self) -> String {
        let v = self
            .cmd(
                reqwest::Method::POST,
                "/window/new",
                Some(json!({"type": "tab"})),
            )
            .await;
        v["handle"].as_str().expect("new window handle").to_string()
    }

    pub async fn switch_to(&self, handle: &str) {
        self.cmd(
            reqwest::Method::POST,
            "/window",
            Some(json!({"handle": handle})),
        )
        .await;
    }

    /// Polls `script` until it returns `true`, for at most `limit`.
    pub async fn wait_for(&self, script: &str, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.exec(script, vec![]).await == Value::Bool(true) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    pub async fn set_size(&self, width: u32, height: u32) {
        self.cmd(
            reqwest::Method::POST,
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        )
        .await;
    }

    /// Saves a PNG of the viewport (an artifact to look at, never compared).
    pub async fn screenshot(&self, path: &Path) {
        let v = self.cmd(reqwest::Method::GET, "/screenshot", None).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().expect("base64 screenshot"))
            .expect("valid base64");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot dir");
        }
        std::fs::write(path, png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    /// Prints the current page to PDF on A4 (WebDriver's `POST /session/{id}/print`, which
    /// answers the file as base64) with the page's own CSS page size and margins.
    pub async fn print_pdf(&self, landscape: bool) -> Vec<u8> {
        let v = self
            .cmd(
                reqwest::Method::POST,
                "/print",
                Some(json!({
                    "orientation": if landscape { "landscape" } else { "portrait" },
                    "page": {"width": 21.0, "height": 29.7},
                    "margin": {"top": 0, "bottom": 0, "left": 0, "right": 0},
                    "background": true
                })),
            )
            .await;
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().expect("base64 PDF"))
            .expect("valid base64")
    }

    /// Ends the session (closes Chromium) and stops chromedriver.
    pub async fn close(mut self) {
        let url = format!("{}/session/{}", self.base, self.session);
        let _ = self.c.delete(url).send().await;
        let _ = self.driver.kill().await;
    }
}

impl Drop for Browser {
    /// On every path, a panic included: kill the driver's process group, Chromium and its
    /// helpers with it (killing chromedriver alone leaves the browser running).
    fn drop(&mut self) {
        if let Some(pid) = self.driver.id() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stderr(Stdio::null())
                .status();
        }
    }
}
