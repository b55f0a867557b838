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
