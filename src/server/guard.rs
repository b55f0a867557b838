//! Who may talk to the daemon from a browser. Programs (rswiss clients, scripts, curl) send no
//! `Origin`; browsers always do on POSTs and WebSocket upgrades. Without this layer any web page
//! the operator opens could post XML-RPC to `localhost:9090` (no preflight is needed for a
//! "simple" request), hijack a WebSocket session, or reach the daemon through a rebound DNS
//! name. So:
//!
//! - `Host` must name this daemon: by default, when it listens on loopback, only loopback
//!   names (`localhost`, `127.0.0.1`, `[::1]`, any port); listening elsewhere, any name unless
//!   `allowed_hosts` lists them. Wrong host: 421.
//! - A request with an `Origin` must come from the daemon's own origin (the page it serves) or
//!   from one listed in `allowed_origins`; else 403. A browser's cross-site fetch metadata
//!   (`Sec-Fetch-Site: cross-site`) is refused the same way.
//! - A browser request (one with an `Origin`) must declare its body as XML or JSON: the
//!   content-type sniffing kept for old XML-RPC clients is for programs only (415).
//! - CORS is off unless `allowed_origins` names an origin; those get the CORS headers and
//!   preflight answers.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The rules, fixed at start.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Lower-case host names (no port) allowed in `Host`; `None` allows any.
    hosts: Option<Vec<String>>,
    /// Origins (`scheme://host[:port]`, lower case, no trailing slash) allowed besides the
    /// daemon's own; `*` allows any.
    origins: Vec<String>,
}

const LOOPBACK_NAMES: &[&str] = &["localhost", "127.0.0.1", "::1"];

impl Guard {
    /// `allowed_hosts` empty means the default for `listening_on`.
    pub fn new(
        allowed_hosts: &[String],
        allowed_origins: &[String],
        listening_on: IpAddr,
    ) -> Guard {
        let hosts = if allowed_hosts.iter().any(|h| h.trim() == "*") {
            None
        } else if !allowed_hosts.is_empty() {
            Some(
                allowed_hosts
                    .iter()
                    .map(|h| host_name(h.trim()).to_ascii_lowercase())
                    .collect(),
            )
        } else if listening_on.is_loopback() {
            Some(LOOPBACK_NAMES.iter().map(|s| s.to_string()).collect())
        } else {
            None
        };
        let origins = allowed_origins
            .iter()
            .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
            .filter(|o| !o.is_empty())
            .collect();
        Guard { hosts, origins }
    }

    /// Whether `Host` is checked at all (not when any name is allowed).
    pub fn checks_hosts(&self) -> bool {
        self.hosts.is_some()
    }

    fn host_allowed(&self, host: &str) -> bool {
        match &self.hosts {
            None => true,
            Some(list) => {
                let name = host_name(host).to_ascii_lowercase();
                list.iter()
                    .any(|h| *h == name || (h == "localhost" && name.ends_with(".localhost")))
            }
        }
    }

    /// Listed explicitly (gets CORS headers).
    fn origin_listed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.origins.iter().any(|o| o == "*" || *o == origin)
    }
}

/// `name` of `name`, `name:port`, `[v6]` or `[v6]:port`.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        // A bare IPv6 address has several colons and no port.
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

/// `host[:port]` of an origin `scheme://host[:port]`, or `None` if it is not one (`null`).
fn origin_authority(origin: &str) -> Option<&str> {
    let (_, rest) = origin.split_once("://")?;
    Some(rest.trim_end_matches('/'))
}

fn header(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn refuse(status: StatusCode, why: &str) -> Response {
    (status, format!("{why}\n")).into_response()
}

fn declares_rpc_body(headers: &HeaderMap) -> bool {
    let Some(ct) = header(headers, header::CONTENT_TYPE) else {
        return false;
    };
    let mime = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        mime.as_str(),
        "text/xml" | "application/xml" | "application/json"
    )
}

pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = header(headers, header::HOST);
    // HTTP/1.0 programs may send no Host; browsers always send one, so DNS rebinding (a browser
    // attack) is covered by checking it when present.
    if let Some(host) = host
        && !guard.host_allowed(host)
    {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "this daemon does not answer to that host name (see allowed_hosts)",
        );
    }
    let origin = match headers.get(header::ORIGIN) {
        None => None,
        Some(v) => match v.to_str() {
            Ok(o) => Some(o.to_string()),
            Err(_) => return refuse(StatusCode::FORBIDDEN, "cross-origin request refused"),
        },
    };
    let listed = origin.as_deref().is_some_and(|o| guard.origin_listed(o));
    if let Some(origin) = &origin {
        let same = origin_authority(origin)
            .zip(host)
            .is_some_and(|(a, h)| a.eq_ignore_ascii_case(h));
        if !same && !listed {
            return refuse(
                StatusCode::FORBIDDEN,
                "cross-origin request refused (see allowed_origins)",
            );
        }
    } else if header(headers, header::HeaderName::from_static("sec-fetch-site"))
        == Some("cross-site")
    {
        return refuse(StatusCode::FORBIDDEN, "cross-site request refused");
    }
    if listed && req.method() == Method::OPTIONS {
        return preflight(origin.as_deref().unwrap_or_default());
    }
    let upgrade = headers.contains_key(header::UPGRADE);
    if origin.is_some() && req.method() == Method::POST && !upgrade && !declares_rpc_body(headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a browser request must send Content-Type text/xml or application/json",
        );
    }
    let mut resp = next.run(req).await;
    if listed
        && let Some(o) = origin
            .as_deref()
            .and_then(|o| HeaderValue::from_str(o).ok())
    {
        let h = resp.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, o);
        h.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    resp
}

fn preflight(origin: &str) -> Response {
    let mut resp = StatusCode::NO_CONTENT.into_response();
    let h = resp.headers_mut();
    if let Ok(o) = HeaderValue::from_str(origin) {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, o);
    }
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST, GET, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("Content-Type, Authorization"),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    h.append(header::VARY, HeaderValue::from_static("Origin"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback() -> Guard {
        Guard::new(&[], &[], "127.0.0.1".parse().unwrap())
    }

    #[test]
    fn loopback_default_allows_only_loopback_names() {
        let g = loopback();
        for ok in [
            "localhost",
            "localhost:9090",
            "127.0.0.1:1",
            "[::1]:9090",
            "x.localhost",
        ] {
            assert!(g.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:9090",
            "127.0.0.2",
            "localhost.evil",
        ] {
            assert!(!g.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn elsewhere_any_host_unless_listed() {
        let any = Guard::new(&[], &[], "0.0.0.0".parse().unwrap());
        assert!(any.host_allowed("evil.example"));
        let listed = Guard::new(&["Go.Example:443".into()], &[], "0.0.0.0".parse().unwrap());
        assert!(listed.host_allowed("go.example"));
        assert!(!listed.host_allowed("evil.example"));
        let star = Guard::new(&["*".into()], &[], "127.0.0.1".parse().unwrap());
        assert!(star.host_allowed("evil.example"));
    }

    #[test]
    fn host_names_parse() {
        assert_eq!(host_name("a:80"), "a");
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("::1"), "::1");
        assert_eq!(host_name("a"), "a");
        assert_eq!(origin_authority("http://a:80/"), Some("a:80"));
        assert_eq!(origin_authority("null"), None);
    }
}
