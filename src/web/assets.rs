//! The pages' stylesheets and scripts, every one of them, compiled into the binary (no files
//! at run time, nothing fetched from elsewhere). Their URLs carry a hash of their content, so
//! browsers may keep them for a year: a new build changes the URL. The screens name their
//! script by its URL function here; this module imports no screen.

use std::sync::LazyLock;

use axum::extract::Query;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

pub const CSS: &str = include_str!("assets/site.css");
pub const JS: &str = include_str!("assets/site.js");
/// The print sheets' stylesheet (desk-print).
pub const PRINT_CSS: &str = include_str!("assets/print.css");
/// The desk's script (desk-floor): registration, check-in, quick results.
pub const DESK_JS: &str = include_str!("assets/desk.js");
/// The set-up form's script (desk-setup).
pub const SETUP_JS: &str = include_str!("assets/setup.js");
/// The pairing-edit screen's script (desk-edit2).
pub const EDIT_JS: &str = include_str!("assets/edit.js");

/// FNV-1a, enough to tell two builds' assets apart.
fn fingerprint(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

static CSS_HASH: LazyLock<String> = LazyLock::new(|| fingerprint(CSS));
static JS_HASH: LazyLock<String> = LazyLock::new(|| fingerprint(JS));
static PRINT_CSS_HASH: LazyLock<String> = LazyLock::new(|| fingerprint(PRINT_CSS));
static DESK_JS_HASH: LazyLock<String> = LazyLock::new(|| fingerprint(DESK_JS));
static SETUP_HASH: LazyLock<String> = LazyLock::new(|| fingerprint(SETUP_JS));
static EDIT_HASH: LazyLock<String> = LazyLock::new(|| fingerprint(EDIT_JS));

pub fn css_url() -> String {
    format!("/assets/site.css?v={}", *CSS_HASH)
}

pub fn js_url() -> String {
    format!("/assets/site.js?v={}", *JS_HASH)
}

pub fn print_css_url() -> String {
    format!("/assets/print.css?v={}", *PRINT_CSS_HASH)
}

pub fn desk_js_url() -> String {
    format!("/assets/desk.js?v={}", *DESK_JS_HASH)
}

pub fn setup_js_url() -> String {
    format!("/assets/setup.js?v={}", *SETUP_HASH)
}

pub fn edit_js_url() -> String {
    format!("/assets/edit.js?v={}", *EDIT_HASH)
}

#[derive(Debug, Deserialize)]
pub struct Version {
    v: Option<String>,
}

fn asset(body: &'static str, mime: &'static str, hash: &str, asked: Option<String>) -> Response {
    // Only the URL of this build's content may be cached for ever; any other (an old page
    // asking for an older version) is revalidated each time.
    let cache = if asked.as_deref() == Some(hash) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{hash}\"")) {
        h.insert(header::ETAG, etag);
    }
    resp
}

pub async fn css(Query(q): Query<Version>) -> Response {
    asset(CSS, "text/css; charset=utf-8", &CSS_HASH, q.v)
}

pub async fn js(Query(q): Query<Version>) -> Response {
    asset(JS, "text/javascript; charset=utf-8", &JS_HASH, q.v)
}

pub async fn setup_js(Query(q): Query<Version>) -> Response {
    asset(SETUP_JS, "text/javascript; charset=utf-8", &SETUP_HASH, q.v)
}

pub async fn print_css(Query(q): Query<Version>) -> Response {
    asset(PRINT_CSS, "text/css; charset=utf-8", &PRINT_CSS_HASH, q.v)
}
pub async fn desk_js(Query(q): Query<Version>) -> Response {
    asset(
        DESK_JS,
        "text/javascript; charset=utf-8",
        &DESK_JS_HASH,
        q.v,
    )
}

pub async fn edit_js(Query(q): Query<Version>) -> Response {
    asset(EDIT_JS, "text/javascript; charset=utf-8", &EDIT_HASH, q.v)
}
