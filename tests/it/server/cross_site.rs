//! A browser page must not drive the daemon unless allowed: cross-site POSTs of every encoding,
//! cross-site WebSocket upgrades and foreign Host names (DNS rebinding) are refused, while
//! programs (no Origin) and the daemon's own origin keep working, and configured origins get CORS.

use crate::common;

use common::{Server, call_xml, client, i4};
use goswiss::config::Config;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const ECHO_JSON: &str = r#"{"jsonrpc":"2.0","id":1,"method":"system.echo","params":[7]}"#;

async fn post(
    server: &Server,
    path: &str,
    headers: &[(&str, &str)],
    body: String,
) -> (u16, String) {
    let mut req = client().post(server.url(path)).body(body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.expect("send");
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap_or_default())
}

fn xml_echo() -> String {
    call_xml("system.echo", &[&i4(7)])
}

#[tokio::test]
async fn programs_without_origin_keep_working() {
    let server = Server::start().await;
    // rswiss's own clients, curl without a content type, JSON-RPC clients.
    let (s, body) = post(&server, "/", &[("Content-Type", "text/xml")], xml_echo()).await;
    assert_eq!(s, 200);
    assert!(body.contains("<i4>7</i4>"), "{body}");
    let (s, body) = post(&server, "/RPC2", &[], xml_echo()).await;
    assert_eq!(s, 200);
    assert!(body.contains("<i4>7</i4>"), "{body}");
    let (s, body) = post(
        &server,
        "/jsonrpc",
        &[("Content-Type", "application/json")],
        ECHO_JSON.into(),
    )
    .await;
    assert_eq!((s, body.contains(r#""result":7"#)), (200, true), "{body}");
    server.stop().await;
}

#[tokio::test]
async fn cross_site_posts_are_refused_in_every_encoding() {
    let server = Server::start().await;
    let evil = [("Origin", "http://evil.example")];
    for ct in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("text/xml"),
        Some("application/json"),
    ] {
        let mut headers = evil.to_vec();
        if let Some(ct) = ct {
            headers.push(("Content-Type", ct));
        }
        for path in ["/", "/RPC2", "/jsonrpc", "/anything"] {
            let body = if ct == Some("application/json") {
                ECHO_JSON.to_string()
            } else {
                xml_echo()
            };
            let (s, text) = post(&server, path, &headers, body).await;
            assert_eq!(s, 403, "{ct:?} {path}: {text}");
            assert!(text.contains("cross-origin request refused"), "{text}");
        }
    }
    // Fetch metadata without an Origin (some navigations) is refused too.
    let (s, _) = post(
        &server,
        "/",
        &[
            ("Sec-Fetch-Site", "cross-site"),
            ("Content-Type", "text/xml"),
        ],
        xml_echo(),
    )
    .await;
    assert_eq!(s, 403);
    server.stop().await;
}

#[tokio::test]
async fn the_daemons_own_pages_may_call_but_must_declare_their_body() {
    let server = Server::start().await;
    let own = format!("http://{}", server.addr);
    let (s, body) = post(
        &server,
        "/jsonrpc",
        &[("Origin", &own), ("Content-Type", "application/json")],
        ECHO_JSON.into(),
    )
    .await;
    assert_eq!(s, 200, "{body}");
    // Sniffing an undeclared body is for programs only.
    let (s, body) = post(
        &server,
        "/",
        &[("Origin", &own), ("Content-Type", "text/plain")],
        xml_echo(),
    )
    .await;
    assert_eq!(s, 415, "{body}");
    // No CORS headers for the daemon's own origin: none are needed.
    let resp = client()
        .post(server.url("/jsonrpc"))
        .header("Origin", &own)
        .header("Content-Type", "application/json")
        .body(ECHO_JSON)
        .send()
        .await
        .unwrap();
    assert!(resp.headers().get("access-control-allow-origin").is_none());
    server.stop().await;
}

#[tokio::test]
async fn foreign_host_names_are_refused_on_loopback() {
    let server = Server::start().await;
    for host in ["evil.example", "evil.example:9090", "127.0.0.2"] {
        let (s, text) = post(
            &server,
            "/",
            &[("Host", host), ("Content-Type", "text/xml")],
            xml_echo(),
        )
        .await;
        assert_eq!(s, 421, "{host}: {text}");
    }
    let port = server.addr.port();
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let (s, _) = post(
            &server,
            "/",
            &[("Host", &host), ("Content-Type", "text/xml")],
            xml_echo(),
        )
        .await;
        assert_eq!(s, 200, "{host}");
    }
    // /health is guarded the same way (a rebound page could read it).
    let resp = client()
        .get(server.url("/health"))
        .header("Host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 421);
    server.stop().await;
}

#[tokio::test]
async fn cross_site_websocket_upgrades_are_refused() {
    let server = Server::start().await;
    let mut req = format!("ws://{}/", server.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", "http://evil.example".parse().unwrap());
    match tokio_tungstenite::connect_async(req).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status().as_u16(), 403)
        }
        other => panic!("a cross-site upgrade was not refused: {other:?}"),
    }
    // The daemon's own origin may open a session.
    let mut req = format!("ws://{}/", server.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", format!("http://{}", server.addr).parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_ok());
    server.stop().await;
}

#[tokio::test]
async fn configured_origins_get_cors() {
    let config = Config {
        allowed_origins: vec!["https://club.example".into()],
        ..Config::default()
    };
    let server = Server::start_with(config).await;
    let resp = client()
        .request(reqwest::Method::OPTIONS, server.url("/jsonrpc"))
        .header("Origin", "https://club.example")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 204);
    assert_eq!(
        resp.headers()["access-control-allow-origin"],
        "https://club.example"
    );
    let resp = client()
        .post(server.url("/jsonrpc"))
        .header("Origin", "https://club.example")
        .header("Content-Type", "application/json")
        .body(ECHO_JSON)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(
        resp.headers()["access-control-allow-origin"],
        "https://club.example"
    );
    // Others are still refused.
    let (s, _) = post(
        &server,
        "/jsonrpc",
        &[
            ("Origin", "https://other.example"),
            ("Content-Type", "application/json"),
        ],
        ECHO_JSON.into(),
    )
    .await;
    assert_eq!(s, 403);
    server.stop().await;
}

#[tokio::test]
async fn echoed_client_text_is_capped() {
    let server = Server::start().await;
    let name = "x".repeat(1_000_000);
    let (s, body) = post(
        &server,
        "/",
        &[("Content-Type", "text/xml")],
        call_xml(&name, &[]),
    )
    .await;
    assert_eq!(s, 200);
    assert!(body.len() < 1_000, "{} bytes", body.len());
    assert!(body.contains("(1000000 bytes)"), "{body}");
    let req =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"system.echo","params":{{"{name}":1}}}}"#);
    let (s, body) = post(
        &server,
        "/jsonrpc",
        &[("Content-Type", "application/json")],
        req,
    )
    .await;
    assert_eq!(s, 200);
    assert!(body.len() < 1_000, "{} bytes", body.len());
    let req = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{name}","params":[]}}"#);
    let (_, body) = post(
        &server,
        "/jsonrpc",
        &[("Content-Type", "application/json")],
        req,
    )
    .await;
    assert!(body.len() < 1_000, "{} bytes", body.len());
    server.stop().await;
}

/// Every answer says `X-Content-Type-Options: nosniff`: a browser must never read a reply as
/// anything but its declared type (an XML-RPC fault or a download sniffed as HTML would run
/// what a client put in it). RPC on both protocols, their errors, /health, /metrics, pages,
/// downloads, the director page, refusals of every kind, 404s, a WebSocket upgrade.
#[tokio::test]
async fn every_kind_of_answer_says_nosniff() {
    let server = Server::start_with(Config {
        max_body_bytes: 100_000,
        body_timeout_secs: 1,
        ..Config::default()
    })
    .await;
    let c = client();
    let rpc = |method: &str, params: serde_json::Value| {
        let c = c.clone();
        let url = server.url("/jsonrpc");
        let body =
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        async move {
            let v: serde_json::Value = c
                .post(url)
                .json(&body)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            v["result"].clone()
        }
    };
    let created = rpc(
        "tournament.create",
        serde_json::json!([{"name": "Open", "rounds": 2}]),
    )
    .await;
    let id = created["id"].as_i64().expect("a tournament");
    for name in ["Ann", "Bob"] {
        rpc(
            "tournament.player.add",
            serde_json::json!([id, {"name": name, "first_name": "A", "rank": "1k"}]),
        )
        .await;
    }
    rpc("tournament.round.pair", serde_json::json!([id, 1])).await;

    let own = format!("http://{}", server.addr);
    let big = "x".repeat(200_000);
    let requests: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        (
            "XML-RPC",
            c.post(server.url("/"))
                .header("Content-Type", "text/xml")
                .body(xml_echo()),
            200,
        ),
        (
            "XML-RPC fault",
            c.post(server.url("/RPC2"))
                .header("Content-Type", "text/xml")
                .body("<nope"),
            200,
        ),
        (
            "JSON-RPC",
            c.post(server.url("/jsonrpc"))
                .header("Content-Type", "application/json")
                .body(ECHO_JSON),
            200,
        ),
        (
            "JSON-RPC too big",
            c.post(server.url("/jsonrpc"))
                .header("Content-Type", "application/json")
                .body(big),
            413,
        ),
        (
            "JSON-RPC not JSON",
            c.post(server.url("/jsonrpc"))
                .header("Content-Type", "text/plain")
                .body("x"),
            415,
        ),
        ("health", c.get(server.url("/health")), 200),
        ("metrics", c.get(server.url("/metrics")), 200),
        ("tournament list", c.get(server.url("/")), 200),
        (
            "tournament page",
            c.get(server.url(&format!("/t/{id}"))),
            200,
        ),
        (
            "director page",
            c.get(server.url(&format!("/t/{id}/director"))),
            200,
        ),
        (
            "download",
            c.get(server.url(&format!("/t/{id}/export/h9"))),
            200,
        ),
        (
            "zip download",
            c.get(server.url(&format!("/t/{id}/export/aga"))),
            200,
        ),
        ("asset", c.get(server.url("/assets/site.css")), 200),
        ("page not found", c.get(server.url("/t/999999")), 404),
        ("not found", c.get(server.url("/nothing/here")), 404),
        ("wrong method", c.get(server.url("/RPC2")), 405),
        (
            "foreign host",
            c.post(server.url("/RPC2"))
                .header("Host", "evil.example")
                .body(xml_echo()),
            421,
        ),
        (
            "foreign origin",
            c.post(server.url("/RPC2"))
                .header("Origin", "http://evil.example")
                .header("Content-Type", "text/xml")
                .body(xml_echo()),
            403,
        ),
        (
            "undeclared browser body",
            c.post(server.url("/RPC2"))
                .header("Origin", own.as_str())
                .body(xml_echo()),
            415,
        ),
    ];
    for (what, req, status) in requests {
        let resp = req.send().await.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(resp.status().as_u16(), status, "{what}");
        assert_eq!(
            resp.headers()
                .get("x-content-type-options")
                .map(|v| v.as_bytes()),
            Some(&b"nosniff"[..]),
            "{what}"
        );
    }
    // A body that never comes: 408.
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    s.write_all(b"POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml\r\nContent-Length: 100\r\n\r\n<")
        .await
        .unwrap();
    let mut reply = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        s.read_to_end(&mut reply),
    )
    .await;
    let reply = String::from_utf8_lossy(&reply).to_ascii_lowercase();
    assert!(reply.starts_with("http/1.1 408"), "{reply}");
    assert!(
        reply.contains("\r\nx-content-type-options: nosniff\r\n"),
        "{reply}"
    );
    // A WebSocket upgrade.
    let (_ws, resp) = tokio_tungstenite::connect_async(format!("ws://{}/jsonrpc", server.addr))
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 101);
    assert_eq!(
        resp.headers()
            .get("x-content-type-options")
            .map(|v| v.as_bytes()),
        Some(&b"nosniff"[..])
    );
    server.stop().await;
}

/// A daemon that does not check `Host` says so under `/health`'s status (and logs it at
/// start); one that does says only its status.
#[tokio::test]
async fn health_says_when_hosts_are_not_checked() {
    let health = |server: &Server| {
        let url = server.url("/health");
        async move {
            let resp = client().get(url).send().await.unwrap();
            assert_eq!(resp.status().as_u16(), 200);
            resp.text().await.unwrap()
        }
    };
    let open = Server::start_with(Config {
        allowed_hosts: vec!["*".into()],
        ..Config::default()
    })
    .await;
    let text = health(&open).await;
    assert!(
        text.starts_with("ok\nwarning: listening on 127.0.0.1 without host checking"),
        "{text}"
    );
    assert!(text.contains("(set allowed_hosts)"), "{text}");
    open.stop().await;
    let checked = Server::start().await;
    assert_eq!(health(&checked).await, "ok\n");
    checked.stop().await;
}
