//! Which language a request's pages are in: `?lang=xx` (the switcher's links, which also set
//! the `goswiss_lang` cookie so the next pages stay in it), else the cookie, else the best
//! supported language of `Accept-Language` by its quality values, else English. The
//! middleware runs the whole request with that language ([`super::text::with_lang`]).

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::text::{Lang, with_lang};

/// The cookie that keeps the switcher's choice.
pub const COOKIE: &str = "goswiss_lang";

/// The query parameter the switcher's links carry.
pub const PARAM: &str = "lang";

/// The best supported language of an `Accept-Language` value: highest quality first, the
/// earlier entry on a tie; `q=0` means "not this one"; `*` and unknown tags do not count.
pub fn negotiate(accept: &str) -> Option<Lang> {
    let mut best: Option<(Lang, u16)> = None;
    // Bounded: a header has a bounded size, and entries beyond the first 64 are ignored.
    for entry in accept.split(',').take(64) {
        let mut parts = entry.split(';');
        let tag = parts.next().unwrap_or("").trim();
        let mut q = 1000u16;
        for p in parts {
            if let Some(v) = p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")) {
                q = quality(v).unwrap_or(0);
            }
        }
        if q == 0 {
            continue;
        }
        if let Some(lang) = Lang::from_tag(tag)
            && best.is_none_or(|(_, bq)| q > bq)
        {
            best = Some((lang, q));
        }
    }
    best.map(|(l, _)| l)
}

/// A quality value (`0`, `0.5`, `1.000`) in thousandths; `None` when malformed.
fn quality(v: &str) -> Option<u16> {
    let v = v.trim();
    let (whole, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The value of the `lang` query parameter, when it names a supported language.
fn from_query(query: Option<&str>) -> Option<Lang> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == PARAM)
        .and_then(|(_, v)| Lang::from_tag(v))
}

/// The language the `goswiss_lang` cookie names, if any.
fn from_cookie(headers: &HeaderMap) -> Option<Lang> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .and_then(|(_, v)| Lang::from_tag(v.trim()))
}

/// The request's language, and whether it came from the query (so the cookie is set).
pub fn choose(query: Option<&str>, headers: &HeaderMap) -> (Lang, bool) {
    if let Some(l) = from_query(query) {
        return (l, true);
    }
    let lang = from_cookie(headers)
        .or_else(|| {
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .and_then(negotiate)
        })
        .unwrap_or(Lang::En);
    (lang, false)
}

/// Middleware: answers a GET (a page) in the request's language. Other requests (RPC) pass
/// through untouched.
pub async fn language(req: Request, next: Next) -> Response {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return next.run(req).await;
    }
    let (lang, from_link) = choose(req.uri().query(), req.headers());
    let mut resp = with_lang(lang, next.run(req)).await;
    let h = resp.headers_mut();
    // The same URL is another language for another header or cookie.
    h.append(
        header::VARY,
        HeaderValue::from_static("Accept-Language, Cookie"),
    );
    if from_link {
        let cookie = format!(
            "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax",
            lang.code()
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            h.append(header::SET_COOKIE, v);
        }
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_honours_quality_values() {
        assert_eq!(negotiate("fr"), Some(Lang::Fr));
        assert_eq!(negotiate("de-CH,de;q=0.9"), Some(Lang::De));
        assert_eq!(negotiate("en;q=0.5, fr;q=0.8"), Some(Lang::Fr));
        assert_eq!(negotiate("it, de;q=0.3, fr;q=0.2"), Some(Lang::De));
        assert_eq!(negotiate("FR-be;q=1.0"), Some(Lang::Fr));
        assert_eq!(negotiate("fr;q=0, de;q=0.1"), Some(Lang::De));
        // A tie keeps the earlier entry.
        assert_eq!(negotiate("de;q=0.5, fr;q=0.5"), Some(Lang::De));
        assert_eq!(negotiate("ja, it"), None);
        assert_eq!(negotiate("*"), None);
        assert_eq!(negotiate(""), None);
        // A malformed quality value counts as 0, not as 1.
        assert_eq!(negotiate("fr;q=2, de;q=0.2"), Some(Lang::De));
        assert_eq!(negotiate("fr;q=abc"), None);
    }

    #[test]
    fn query_beats_cookie_beats_header() {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_LANGUAGE, HeaderValue::from_static("de"));
        assert_eq!(choose(None, &h), (Lang::De, false));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; goswiss_lang=fr"),
        );
        assert_eq!(choose(None, &h), (Lang::Fr, false));
        assert_eq!(choose(Some("x=1&lang=en"), &h), (Lang::En, true));
        // An unknown language in the link is ignored, not an error.
        assert_eq!(choose(Some("lang=xx"), &h), (Lang::Fr, false));
        assert_eq!(choose(None, &HeaderMap::new()), (Lang::En, false));
    }
}
